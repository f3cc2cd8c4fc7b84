#!/bin/sh
# Install what `make run` needs beyond gcc, make and binutils, when it is
# missing:
#   libseccomp-dev   irqlab-vmm's vCPU threads run under a seccomp filter
#                    (docs/SECURITY.md)
#   qemu-system-x86  with --rig: the nested rig (tests/nested/), which
#                    make run boots irqlab-vmm in where /dev/kvm is missing
#   help2man         with --man: irqlab-vmm(1), made from its --help
#   libcriterion-dev, python3
#                    with --grade: make grade's unit checks and grader
#   bochs, bochsbios, vgabios, grub-pc-bin, grub-efi-amd64-bin, xorriso,
#   mtools, qemu-system-x86
#                    with --conformance: make conformance's Bochs column
#                    (from the GRUB ISO) and its QEMU ones
# As root it runs apt; otherwise it prints the one command to run and
# fails.  make run calls it first, with --rig where there is no /dev/kvm;
# make man with --man; make grade with --grade (and --rig as make run).
set -u
rig=0 man=0 grade=0 conf=0
for a in "$@"; do
	case $a in
	--rig) rig=1 ;;
	--man) man=1 ;;
	--grade) grade=1 ;;
	--conformance) conf=1 ;;
	*) echo "usage: $0 [--rig] [--man] [--grade] [--conformance]" >&2; exit 2 ;;
	esac
done
pkgs=""
if [ $man = 1 ]; then
	command -v help2man >/dev/null 2>&1 || pkgs="$pkgs help2man"
else
	[ -f /usr/include/seccomp.h ] || pkgs="$pkgs libseccomp-dev"
fi
if [ $grade = 1 ]; then
	[ -f /usr/include/criterion/criterion.h ] || pkgs="$pkgs libcriterion-dev"
	[ -x /usr/bin/python3 ] || pkgs="$pkgs python3"
fi
if [ $conf = 1 ]; then
	command -v bochs >/dev/null 2>&1 || pkgs="$pkgs bochs"
	[ -f /usr/share/bochs/BIOS-bochs-latest ] || pkgs="$pkgs bochsbios"
	[ -f /usr/share/bochs/VGABIOS-lgpl-latest ] || pkgs="$pkgs vgabios"
	[ -d /usr/lib/grub/i386-pc ] || pkgs="$pkgs grub-pc-bin"
	[ -d /usr/lib/grub/x86_64-efi ] || pkgs="$pkgs grub-efi-amd64-bin"
	command -v xorriso >/dev/null 2>&1 || pkgs="$pkgs xorriso"
	command -v mformat >/dev/null 2>&1 || pkgs="$pkgs mtools"
	command -v qemu-system-x86_64 >/dev/null 2>&1 || pkgs="$pkgs qemu-system-x86"
fi
if [ $rig = 1 ]; then
	command -v qemu-system-x86_64 >/dev/null 2>&1 || pkgs="$pkgs qemu-system-x86"
	# run-in-kvm.sh unpacks Debian's kernel package: dpkg-deb, xz
	command -v xz >/dev/null 2>&1 || pkgs="$pkgs xz-utils"
fi
[ -z "$pkgs" ] && exit 0
why="building irqlab-vmm needs"
[ $man = 1 ] && why="irqlab-vmm's man page needs"
[ $rig = 1 ] && why="make run needs (no usable /dev/kvm here: the nested rig boots irqlab-vmm)"
[ $grade = 1 ] && why="make grade needs"
[ $conf = 1 ] && why="make conformance needs"
if [ "$(id -u)" != 0 ]; then
	echo "$why:$pkgs" >&2
	echo "install them with: sudo apt-get update && sudo apt-get install -y$pkgs" >&2
	exit 1
fi
export DEBIAN_FRONTEND=noninteractive
echo "installing$pkgs: $why them" >&2
apt-get update -qq || echo "apt-get update failed: trying what is cached" >&2
apt-get install -y -qq --no-install-recommends $pkgs >&2 || {
	echo "apt-get install$pkgs failed" >&2
	exit 1
}
