#!/bin/bash
# make linux-guest: Debian's stock kernel and an initramfs that runs
# `perf bench futex wake` and prints @linux records (docs/LINUX.md).
#
#   guest-bench/linux/make-guest.sh [-v]
#
# Fetches with `apt-get download` (nothing is installed) into
# build/linux-guest/dl, and keeps:
#   build/linux-guest/bzImage         linux-image-6.1.*-amd64's vmlinuz
#   build/linux-guest/kernel.txt      that package's file name
#   build/linux-guest/initramfs.gz    cpio newc, gzip: busybox-static,
#                                     linux-perf's perf and the libraries
#                                     ldd names, guest-bench/linux/init
#   build/linux-guest/manifest.txt    what went into the initramfs
# The libraries come from the host when it has them (linux-perf installed)
# or else from their Debian packages, downloaded and unpacked into
# build/linux-guest/sysroot.  apt-get update runs first only when the apt
# lists do not know a package.
#
# LINUX_GUEST_DIR (under the repository, default build/linux-guest) puts
# it all elsewhere.
#
# Exit status: 0 done (or already up to date), 77 with "SKIP: ..." when
# this host cannot fetch the packages (no apt, not root, no lists),
# 1 with "linux-guest: ..." on any other failure.
set -u
cd "$(dirname "$0")/../.." || exit 1
ROOT=$PWD
O=${LINUX_GUEST_DIR:-build/linux-guest}
DL=$O/dl
VERBOSE=0
[ "${1:-}" = -v ] && VERBOSE=1

skip() { echo "SKIP: $*"; exit 77; }
die() { echo "linux-guest: $*" >&2; exit 1; }
log() { [ "$VERBOSE" = 1 ] && echo "linux-guest: $*" >&2; return 0; }

for t in dpkg-deb tar gzip ldd find flock; do
	command -v $t >/dev/null 2>&1 || die "$t is not installed"
done
mkdir -p $DL || die "cannot create $DL"

# ---- apt: apt-get download, as tests/nested/run-in-kvm.sh does ----------
APT_ERR=$O/apt.err
. scripts/apt-lib.sh

# ---- the kernel: the package linux-image-amd64 depends on ------------
fetch_kernel() {
	[ -s $O/bzImage ] && [ -s $O/kernel.txt ] && return 0
	apt_ready linux-image-amd64 ||
		skip "apt cannot find linux-image-amd64 (not root, or no Debian lists)"
	local pkg deb x=$DL/kernel
	pkg=$(apt_kernel_package)
	[ -n "$pkg" ] || skip "cannot resolve linux-image-amd64 to a kernel package"
	rm -rf $x && mkdir -p $x
	apt_download $x "$pkg" || skip "apt-get download $pkg failed"
	deb=$(ls $x/linux-image-*.deb 2>/dev/null | head -1)
	[ -f "$deb" ] || die "no $pkg package in $x"
	dpkg-deb --fsys-tarfile "$deb" | tar -x -C $x --wildcards './boot/vmlinuz-*' ||
		die "cannot extract vmlinuz from $deb"
	cp $x/boot/vmlinuz-* $O/bzImage.tmp && mv $O/bzImage.tmp $O/bzImage ||
		die "cannot copy vmlinuz"
	basename "$deb" >$O/kernel.txt
	rm -rf $x	# the .deb is ~70 MB; the bzImage ~8 MB
}

# ---- busybox and perf ---------------------------------------------------
fetch_busybox() {
	[ -x $O/busybox ] && return 0
	local x=$DL/busybox
	rm -rf $x && mkdir -p $x
	apt_download $x busybox-static || skip "apt-get download busybox-static failed"
	dpkg-deb -x $x/busybox-static_*.deb $x/root || die "cannot unpack busybox-static"
	cp $x/root/bin/busybox $O/busybox || die "no bin/busybox in busybox-static"
	rm -rf $x
}

# linux-perf 6.1 ships /usr/bin/perf (older packages: perf_6.1 beside a
# wrapper); the first ELF file found is the program.
fetch_perf() {
	[ -x $O/perf ] && return 0
	local x=$DL/perf f
	rm -rf $x && mkdir -p $x
	apt_download $x linux-perf || skip "apt-get download linux-perf failed"
	dpkg-deb -x $x/linux-perf_*.deb $x/root || die "cannot unpack linux-perf"
	for f in $x/root/usr/bin/perf_[0-9]* $x/root/usr/bin/perf; do
		[ -f "$f" ] && head -c 4 "$f" | grep -q ELF && break
		f=
	done
	[ -n "$f" ] || die "no perf program in linux-perf"
	cp "$f" $O/perf && chmod 755 $O/perf || die "cannot copy $f"
	echo "$(basename $x/linux-perf_*.deb) ${f#$x/root}" >$O/perf.txt
	rm -rf $x
}

# ---- the libraries perf needs ------------------------------------------
# missing_libs: the sonames ldd cannot find, with the sysroot searched.
SYSROOT=$O/sysroot
sys_ldpath() {
	echo "$ROOT/$SYSROOT/lib/x86_64-linux-gnu:$ROOT/$SYSROOT/usr/lib/x86_64-linux-gnu"
}
missing_libs() {
	LD_LIBRARY_PATH=$(sys_ldpath) ldd $O/perf | awk '/not found/ { print $1 }'
}
# fetch_libs: when the host lacks some, download linux-perf's library
# dependencies (and theirs: apt-cache depends --recurse) that are not
# installed into the sysroot; LINUX_GUEST_LIBS=download takes every one
# from there (the path a host without linux-perf takes).
fetch_libs() {
	local all=0
	if [ "${LINUX_GUEST_LIBS:-}" = download ]; then
		all=1
		[ -f $SYSROOT/.all ] && return 0
	else
		[ -z "$(missing_libs)" ] && return 0
		log "the host lacks: $(missing_libs | tr '\n' ' ')"
	fi
	local x=$DL/libs pkgs d
	pkgs=$(apt-cache depends --recurse --no-recommends --no-suggests \
		--no-conflicts --no-breaks --no-replaces --no-enhances linux-perf |
		awk '/^lib|^zlib/ && !/:/ { print }' | sort -u |
		while read -r p; do
			[ $all = 1 ] || ! dpkg -s "$p" >/dev/null 2>&1 && echo "$p"
		done)
	[ -n "$pkgs" ] ||
		die "ldd $O/perf: missing $(missing_libs | tr '\n' ' ')and nothing to fetch"
	rm -rf $x && mkdir -p $x $SYSROOT
	apt_download $x $pkgs || die "apt-get download of perf's libraries failed"
	for d in $x/*.deb; do
		dpkg-deb -x "$d" $SYSROOT || die "cannot unpack $d"
	done
	# only the libraries are wanted (an etc/ld.so.conf.d would also look
	# like a make dependency file to the Makefile's find)
	rm -rf $x $SYSROOT/etc $SYSROOT/usr/share $SYSROOT/usr/bin $SYSROOT/sbin
	[ $all = 1 ] && : >$SYSROOT/.all
	[ -z "$(missing_libs)" ] ||
		die "ldd $O/perf: still missing $(missing_libs | tr '\n' ' ')"
}

exec 9>$O/.lock
flock 9 2>/dev/null
fetch_kernel
fetch_busybox
fetch_perf
fetch_libs

# ---- the initramfs ------------------------------------------------------
R=$O/root
rm -rf $R && mkdir -p $R/bin $R/usr/bin $R/proc $R/sys $R/dev $R/tmp || die "mkdir $R"
cp $O/busybox $R/bin/busybox && cp $O/perf $R/usr/bin/perf &&
	cp guest-bench/linux/init $R/init && chmod 755 $R/init || die "cannot fill $R"
: >$O/manifest.txt
echo "kernel $(cat $O/kernel.txt)" >>$O/manifest.txt
echo "perf $(cat $O/perf.txt 2>/dev/null)" >>$O/manifest.txt
# Each library at the path the host's loader found it (the sysroot's
# prefix dropped), and the loader itself.
LD_LIBRARY_PATH=$(sys_ldpath) ldd $O/perf |
	awk '$2 == "=>" && $3 ~ /^\// { print $3 } $1 ~ /^\// { print $1 }' >$O/libs.txt ||
	die "ldd $O/perf failed"
while read -r lib; do
	dest=${lib#$ROOT/$SYSROOT}
	mkdir -p "$R$(dirname "$dest")" && cp -L "$lib" "$R$dest" || die "cannot copy $lib"
	echo "lib $dest" >>$O/manifest.txt
done <$O/libs.txt
(cd $R && find . | LC_ALL=C sort | "$ROOT/$O/busybox" cpio -o -H newc -R 0:0 2>/dev/null) |
	gzip -9 >$O/initramfs.gz.tmp && mv $O/initramfs.gz.tmp $O/initramfs.gz ||
	die "cannot build the initramfs"
rm -f $O/apt.err
log "$O/initramfs.gz: $(wc -c <$O/initramfs.gz) bytes, $(wc -l <$O/libs.txt) libraries"
exit 0
