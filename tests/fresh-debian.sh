#!/bin/sh
# fresh-debian.sh ?ROOT? -- run by hand as root, not by make check.
# Bootstraps a minimal Debian 12 in ROOT (debootstrap --variant=minbase,
# adding only git and make), clones this repository's HEAD into it with
# nothing beside it (the clone holds its data), and runs the README's two
# commands there as
# root: make demo, then make check.  Then the package: make deb, no file of
# it already owned by an installed package (dpkg -c against dpkg -S),
# dpkg -i beside tcllib, man csv still tcllib's and man rubicon-csv
# Rubicon's; make install and make uninstall into /usr/local as Debian
# populates it (nothing that was there before goes), and pkg-config
# --define-prefix on a DESTDIR staging.  Then, as an unprivileged user in
# a second clone, make demo must stop with the one apt-get line once a
# package is missing.  Prints each command's wall time and closing lines.
#   MIRROR   the Debian mirror (default: the first of this machine's)
set -e
here=$(cd "$(dirname "$0")/.." && pwd)
root=${1:-/tmp/rubicon-fresh}
case $root in /*) ;; *) root=$(pwd)/$root ;; esac
mirror=${MIRROR:-$(sed -n 's/^URIs: *\([^ ]*\/debian\)$/\1/p' /etc/apt/sources.list.d/debian.sources 2>/dev/null | head -n 1)}
mirror=${mirror:-http://deb.debian.org/debian}

command -v debootstrap >/dev/null || apt-get install -y -qq debootstrap >/dev/null
if [ ! -x "$root/usr/bin/make" ]; then
    echo "fresh-debian: debootstrap bookworm into $root from $mirror"
    debootstrap --variant=minbase --include=git,make bookworm "$root" "$mirror" >"$root.log" 2>&1 ||
	{ tail -n 20 "$root.log"; exit 1; }
fi
cp /etc/resolv.conf "$root/etc/resolv.conf"
# What a booted machine has: /proc, /sys (Open MPI's hwloc reads the CPU
# topology there), /dev and /dev/pts (script(1) needs a pseudo-terminal).
mountpoint -q "$root/proc" || mount -t proc proc "$root/proc"
mountpoint -q "$root/sys" || mount -t sysfs sysfs "$root/sys"
mountpoint -q "$root/dev" || mount --bind /dev "$root/dev"
mountpoint -q "$root/dev/pts" || mount --bind /dev/pts "$root/dev/pts"
# hosts.test makes network namespaces inside the root (ip netns), which
# leaves run/netns and its entries mounted: those are unmounted too.
unmountAll() {
    for m in $(awk -v r="$root/" 'index($2, r) == 1 {print $2}' /proc/self/mounts | sort -r); do
	umount -l "$m" 2>/dev/null || true
    done
}
trap unmountAll EXIT

rm -rf "$root/work"
mkdir -p "$root/work"
git clone -q "$here" "$root/work/rubicon"
# Nothing beside the clone: a clone must be complete on its own.
test ! -e "$root/work/shared"

step() {
    echo "fresh-debian: $1"
    start=$(date +%s)
    if chroot "$root" /bin/sh -c "$2" >"$root/work/$3.log" 2>&1; then rc=0; else rc=$?; fi
    echo "  exit $rc after $(($(date +%s) - start)) s; last lines:"
    tail -n "${4:-3}" "$root/work/$3.log" | sed 's/^/  | /'
}
step "make demo (as root)" "cd /work/rubicon && make demo" demo
step "make check (as root)" "cd /work/rubicon && make check" check 6

step "make deb, dpkg -c against dpkg -S, dpkg -i beside tcllib" '
cd /work/rubicon && make -s deb >/dev/null && deb=$(ls build/deb/rubicon_*.deb) &&
dpkg -s tcllib | grep "^Version" &&
n=0; for f in $(dpkg -c "$deb" | awk "{print \$6}" | sed "s|^\\./|/|"); do
    case $f in */) continue;; esac
    if o=$(dpkg -S "$f" 2>/dev/null); then echo "collision: $o"; n=$((n + 1)); fi
done; echo "$(dpkg -c "$deb" | grep -vc "/\$") files, $n owned by an installed package" &&
test $n = 0 && dpkg -i "$deb" && dpkg -s rubicon | grep "^Status" &&
echo "man -w csv: $(man -w csv)" && echo "man -w rubicon-csv: $(man -w rubicon-csv)" &&
man -w csv | grep -q "/csv.3tcl" && man -w rubicon-csv | grep -q "rubicon-csv.3tcl" &&
echo "installed rubicon: $(echo "puts [package require rubicon]" | tclsh)" &&
dpkg -r rubicon >/dev/null && echo "dpkg -r: ok"' deb 8

step "make install, make uninstall into a populated /usr/local; pkg-config on a DESTDIR staging" '
cd /work/rubicon && touch /usr/local/bin/other /usr/local/include/other.h &&
mkdir -p /usr/local/share/man/man1 && touch /usr/local/share/man/man1/other.1 &&
find /usr/local | sort > /tmp/before && make -s install >/dev/null &&
test -x /usr/local/bin/rubicon && make -s uninstall >/dev/null &&
find /usr/local | sort > /tmp/after && diff /tmp/before /tmp/after &&
echo "/usr/local after uninstall: as before ($(wc -l < /tmp/before) entries)" &&
make -s install-files DESTDIR=/tmp/stage >/dev/null &&
PKG_CONFIG_PATH=/tmp/stage/usr/local/lib/pkgconfig pkg-config --define-prefix --cflags rubicon &&
make -s uninstall DESTDIR=/tmp/stage >/dev/null && echo "staging left: $(find /tmp/stage -mindepth 1 | wc -l) entries"' install 4

# Non-root on a machine missing a package: a second clone whose dependency
# list names one more package, built by nobody.
git clone -q "$here" "$root/work/rubicon-user"
sed -i 's/libopenmpi-dev; do/libopenmpi-dev rubicon-no-such-package; do/' \
    "$root/work/rubicon-user/scripts/ensure-deps.sh"
chown -R nobody "$root/work/rubicon-user"
step "make demo (as nobody, a package missing)" \
    "cd /work/rubicon-user && setpriv --reuid=nobody --regid=nogroup --clear-groups make demo" user 5
