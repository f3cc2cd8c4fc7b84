#!/bin/sh
# Install what building irqlab needs beyond gcc, make and binutils, when
# it is missing: libseccomp-dev (irqlab-vmm's vCPU threads run under a
# seccomp filter, docs/SECURITY.md).  As root it runs apt; otherwise it
# prints the exact command and fails.  make run calls it first.
set -u
pkgs=""
[ -f /usr/include/seccomp.h ] || pkgs="$pkgs libseccomp-dev"
[ -z "$pkgs" ] && exit 0
if [ "$(id -u)" != 0 ]; then
	echo "building irqlab-vmm needs:$pkgs" >&2
	echo "install them with: sudo apt-get update && sudo apt-get install -y$pkgs" >&2
	exit 1
fi
export DEBIAN_FRONTEND=noninteractive
echo "installing build dependencies:$pkgs" >&2
apt-get update -qq || echo "apt-get update failed: trying what is cached" >&2
apt-get install -y -qq --no-install-recommends $pkgs >&2
