#!/bin/sh
# Installs the Debian packages Rubicon needs to build and test, when they
# are missing: as root with apt-get, otherwise it names them and stops.
# Optional tools (gnuplot, valgrind, clang) are installed when possible
# but their absence does not stop the build.
need=""
optional=""
have_pkg() { dpkg-query -W -f='${Status}' "$1" 2>/dev/null | grep -q 'ok installed'; }
for p in tcl-dev tcllib zlib1g-dev libbz2-dev check libsubunit-dev pkg-config autoconf make gcc \
	 libjansson-dev libsqlite3-dev libsqlite3-tcl procps; do
    have_pkg "$p" || need="$need $p"
done
for p in gnuplot-nox valgrind libxlsxwriter-dev fio graphviz; do
    have_pkg "$p" || optional="$optional $p"
done
[ -z "$need$optional" ] && exit 0
if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then
    echo "ensure-deps: installing$need$optional"
    export DEBIAN_FRONTEND=noninteractive
    apt-get update -qq >/dev/null 2>&1 || true
    apt-get install -y -qq $need >/dev/null || {
        echo "ensure-deps: apt-get install$need failed" >&2; exit 1; }
    [ -n "$optional" ] && { apt-get install -y -qq $optional >/dev/null 2>&1 ||
        echo "ensure-deps: optional packages$optional not installed (plots and valgrind runs are skipped)"; }
    exit 0
fi
if [ -n "$need" ]; then
    echo "ensure-deps: missing Debian packages:$need" >&2
    echo "ensure-deps: run as root, or: sudo apt-get install$need" >&2
    exit 1
fi
echo "ensure-deps: optional packages not installed:$optional"
exit 0
