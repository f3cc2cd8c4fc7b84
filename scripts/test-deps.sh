#!/bin/sh
# Install what `make test` needs, when it is missing.  As root it runs apt;
# otherwise it prints the exact command and fails.
set -u
pkgs=""
[ -f /usr/include/criterion/criterion.h ] || pkgs="$pkgs libcriterion-dev"
command -v qemu-system-x86_64 >/dev/null 2>&1 || pkgs="$pkgs qemu-system-x86"
# Debian's python3 runs the host tooling (guest-bench/runner) and the
# tests (Makefile: PYTHON), with python3-pytest and python3-matplotlib
py=${PYTHON:-/usr/bin/python3}
if [ -x "$py" ]; then
	"$py" -c 'import pytest' >/dev/null 2>&1 || pkgs="$pkgs python3-pytest"
	"$py" -c 'import matplotlib' >/dev/null 2>&1 || pkgs="$pkgs python3-matplotlib"
else
	pkgs="$pkgs python3 python3-pytest python3-matplotlib"
fi
[ -z "$pkgs" ] && exit 0

if [ "$(id -u)" != 0 ]; then
	echo "make test needs:$pkgs" >&2
	echo "install them with: sudo apt-get update && sudo apt-get install -y$pkgs" >&2
	exit 1
fi
echo "installing test dependencies:$pkgs" >&2
export DEBIAN_FRONTEND=noninteractive
apt-get update -qq && apt-get install -y -qq --no-install-recommends $pkgs >&2
