#!/bin/sh
# Install what `make test` needs, when it is missing.  As root it runs apt;
# otherwise it prints the exact command and fails.  The GRUB image's tools
# and OVMF are optional: without them tests/integration/test_grub.py
# skips, saying why, so not being able to install them only warns.
set -u
pkgs=""
[ -f /usr/include/criterion/criterion.h ] || pkgs="$pkgs libcriterion-dev"
# irqlab-vmm links libseccomp (the vCPU threads' filter, docs/SECURITY.md)
[ -f /usr/include/seccomp.h ] || pkgs="$pkgs libseccomp-dev"
# irqlab-vmm(1) is made by help2man and read by man -l (test_install.py)
command -v help2man >/dev/null 2>&1 || pkgs="$pkgs help2man"
command -v man >/dev/null 2>&1 || pkgs="$pkgs man-db"
command -v qemu-system-x86_64 >/dev/null 2>&1 || pkgs="$pkgs qemu-system-x86"
# make fuzz: clang with libFuzzer's runtime (tests/fuzz/, docs/FUZZING.md)
command -v clang >/dev/null 2>&1 || pkgs="$pkgs clang"
command -v clang >/dev/null 2>&1 &&
	[ -f "$(clang -print-resource-dir)/lib/linux/libclang_rt.fuzzer-x86_64.a" ] ||
	pkgs="$pkgs libclang-rt-14-dev"
# gcc's ThreadSanitizer runtime: the TSan build (test_tsan_storm.py)
case "$(${CC:-gcc} -print-file-name=libtsan.so 2>/dev/null)" in
/*) ;;
*) pkgs="$pkgs libgcc-12-dev" ;;
esac
# Debian's python3 runs the host tooling (guest-bench/runner) and the
# tests (Makefile: PYTHON), with python3-pytest and python3-matplotlib
py=${PYTHON:-/usr/bin/python3}
if [ -x "$py" ]; then
	"$py" -c 'import pytest' >/dev/null 2>&1 || pkgs="$pkgs python3-pytest"
	"$py" -c 'import matplotlib' >/dev/null 2>&1 || pkgs="$pkgs python3-matplotlib"
else
	pkgs="$pkgs python3 python3-pytest python3-matplotlib"
fi
# scripts/mkiso (make iso) and the UEFI boots
opt=""
command -v grub-mkrescue >/dev/null 2>&1 || opt="$opt grub-common"
[ -d /usr/lib/grub/i386-pc ] || opt="$opt grub-pc-bin"
[ -d /usr/lib/grub/x86_64-efi ] || opt="$opt grub-efi-amd64-bin"
command -v xorriso >/dev/null 2>&1 || opt="$opt xorriso"
command -v mformat >/dev/null 2>&1 || opt="$opt mtools"
[ -f /usr/share/OVMF/OVMF_CODE_4M.fd ] || [ -f /usr/share/OVMF/OVMF_CODE.fd ] ||
	opt="$opt ovmf"
# make linux-guest / test_linux_guest.py: apt-get download of Debian's
# kernel, busybox-static and linux-perf needs only apt and dpkg-deb; the
# host's perf (linux-perf) gives make bench-linux its native row and the
# initramfs the libraries perf needs (else they are downloaded)
command -v perf >/dev/null 2>&1 || opt="$opt linux-perf"
[ -z "$pkgs$opt" ] && exit 0

if [ "$(id -u)" != 0 ]; then
	if [ -n "$opt" ]; then
		echo "SKIP: the GRUB boots (test_grub.py) and bench-linux's native perf need:$opt" >&2
		echo "install them with: sudo apt-get install -y$opt" >&2
	fi
	[ -z "$pkgs" ] && exit 0
	echo "make test needs:$pkgs" >&2
	echo "install them with: sudo apt-get update && sudo apt-get install -y$pkgs" >&2
	exit 1
fi
export DEBIAN_FRONTEND=noninteractive
apt-get update -qq || echo "apt-get update failed: trying what is cached" >&2
if [ -n "$pkgs" ]; then
	echo "installing test dependencies:$pkgs" >&2
	apt-get install -y -qq --no-install-recommends $pkgs >&2 || exit 1
fi
if [ -n "$opt" ]; then
	echo "installing the GRUB image's tools and OVMF:$opt" >&2
	apt-get install -y -qq --no-install-recommends $opt >&2 ||
		echo "SKIP: could not install$opt: test_grub.py will skip" >&2
fi
exit 0
