#!/bin/bash
# mkinitrd.sh OUT: a gzipped newc initramfs of busybox (the nested rig's
# static busybox, build/nested/cache/busybox) and tests/nested/tiny/init.
set -eu
cd "$(dirname "$0")/../../.."
out=${1:?usage: mkinitrd.sh OUT}
bb=build/nested/cache/busybox
[ -x $bb ] || { echo "SKIP: no $bb (run tests/nested/run-in-kvm.sh once)"; exit 77; }
d=$(mktemp -d)
trap 'rm -rf "$d"' EXIT
mkdir -p $d/bin $d/dev
cp $bb $d/bin/busybox
cp tests/nested/tiny/init $d/init
chmod 755 $d/init $d/bin/busybox
(cd $d && find . | LC_ALL=C sort | "$OLDPWD/$bb" cpio -o -H newc -R 0:0 2>/dev/null) |
	gzip -9 >"$out"
