#!/bin/sh
# Installs the Debian packages Rubicon needs to build and test, when they
# are missing: as root with apt-get, otherwise it prints the one apt-get
# line to run and exits 1.
#
# Required: everything the build, `make check` and `make demo` run on a
# minimal Debian 12 (debootstrap, with only git and make added): the
# compilers and libraries, tclsh and tcllib, and the programs the tests
# exec (kill from procps, bzip2, zstd, python3, sqlite3, blkparse and btt from
# blktrace), and Open MPI for the distributed run.
# Optional (installed when possible, their absence skips what needs them):
# gnuplot-nox (graphs), valgrind (memcheck run), libxlsxwriter-dev (.xlsx
# output), fio (checking job files), graphviz (DAG drawings), man-db
# (install test of the man pages), iproute2 (split runs over network
# namespaces, tests/hosts.test), chromium (report.html opened headless,
# tests/report.test).
need=""
optional=""
have_pkg() { dpkg-query -W -f='${Status}' "$1" 2>/dev/null | grep -q 'ok installed'; }
for p in make gcc libc6-dev autoconf pkg-config tcl tcl-dev tcllib zlib1g-dev libbz2-dev libzstd-dev \
	 check libsubunit-dev libjansson-dev libsqlite3-dev libsqlite3-tcl \
	 procps bzip2 zstd python3 sqlite3 blktrace openmpi-bin libopenmpi-dev; do
    have_pkg "$p" || need="$need $p"
done
for p in gnuplot-nox valgrind libxlsxwriter-dev fio graphviz man-db iproute2 chromium; do
    have_pkg "$p" || optional="$optional $p"
done
[ -z "$need$optional" ] && exit 0
if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then
    echo "ensure-deps: installing$need$optional"
    echo "ensure-deps: (apt-get runs quietly; this takes a few minutes on a fresh machine)"
    export DEBIAN_FRONTEND=noninteractive
    apt-get update -qq >/dev/null 2>&1 || true
    if [ -n "$need" ]; then
	apt-get install -y -qq -o DPkg::Lock::Timeout=600 $need >/dev/null || {
	    echo "ensure-deps: apt-get install$need failed" >&2; exit 1; }
    fi
    if [ -n "$optional" ]; then
	apt-get install -y -qq -o DPkg::Lock::Timeout=600 $optional >/dev/null 2>&1 ||
	    echo "ensure-deps: optional packages$optional not installed (what needs them is skipped)"
    fi
    exit 0
fi
if [ -n "$need" ]; then
    echo "ensure-deps: Debian packages missing; as root run:" >&2
    echo "  apt-get install$need$optional" >&2
    exit 1
fi
echo "ensure-deps: optional packages not installed:$optional"
exit 0
