# shellcheck shell=sh
# apt-get download without installing, shared by tests/nested/run-in-kvm.sh
# and guest-bench/linux/make-guest.sh (both source it from the repository
# root).  The caller defines log() and sets ROOT (the repository root)
# and APT_ERR, the file apt-get's stderr goes to (relative to ROOT).

apt_known() { apt-cache show "$1" >/dev/null 2>&1; }

# apt_ready PKG: make the apt lists know PKG if we can (apt-get update as
# root when they do not)
apt_ready() {
	apt_known "$1" && return 0
	[ "$(id -u)" = 0 ] || return 1
	log "apt-get update"
	DEBIAN_FRONTEND=noninteractive apt-get update -qq >&2 || return 1
	apt_known "$1"
}

# apt_download DIR PKG...: the packages' .debs into DIR
apt_download() {
	local d=$1 p
	shift
	command -v apt-get >/dev/null 2>&1 || return 1
	for p in "$@"; do
		apt_ready "$p" || return 1
	done
	log "apt-get download $*"
	(cd "$d" && apt-get download -q "$@" >/dev/null 2>"$ROOT/$APT_ERR") ||
		{ cat "$APT_ERR" >&2; return 1; }
}

# The kernel package linux-image-amd64 depends on now
# (linux-image-6.1.0-NN-amd64 on Debian 12); empty if apt cannot say.
apt_kernel_package() {
	apt-cache depends linux-image-amd64 2>/dev/null |
		awk '/Depends: linux-image-[0-9]/ { print $2; exit }'
}
