#!/bin/bash
# Run irqlab-vmm on a real /dev/kvm when the host has none: boot a Debian
# Linux guest under QEMU TCG with an emulated AMD SVM CPU, load kvm and
# kvm_amd in it, run irqlab-vmm there, and hand back its output and status.
#
#   tests/nested/run-in-kvm.sh [options] -- IRQLAB-VMM-ARGS...
#   tests/nested/run-in-kvm.sh [options] -c 'SHELL COMMAND' [FILE...]
#   tests/nested/run-in-kvm.sh --serve SOCKET
#
# Options:
#   -t SECS   time limit for the command inside the guest (default 120)
#   -c CMD    run a shell command in the guest instead of irqlab-vmm
#             (irqlab-vmm is on its PATH; the cwd holds copies of the FILEs,
#             at the same relative paths)
#   -v        print the guest's console and the rig's messages on stderr
#   --serve SOCKET
#             keep the guest up and run one command after another in it,
#             as guest-bench/runner/rigserver.py asks on the Unix socket
#             SOCKET (tests/nested/README.md "The rig as a server"): the
#             host's / is shared read-only and the repository read-write
#             (virtio-9p), and each command runs chrooted in the host's
#             tree, so any host binary runs on the guest's /dev/kvm
#
# Paths: every argument that names an existing file (relative to the repo
# root, or absolute) is copied into the initramfs and the command runs in
# that copy, so `build/kernel/irqlab.elf` works as is.  `--module FILE,STR`
# is handled, and `--stats-json FILE` and `--timeline FILE` are written
# in the guest and copied back to FILE on the host.
#
# Output: irqlab-vmm's stdout on stdout, its stderr on stderr; exit status:
# irqlab-vmm's, or 124 if it ran past -t SECS.  77 with "SKIP: ..." when
# the rig cannot be set up here (no qemu, no kernel package to be had); 125
# with "RIG: ..." when the rig itself failed (kvm_amd did not load, make
# failed, the guest gave no status even when booted again).
#
# Environment:
#   NESTED_CPU           QEMU -cpu (default qemu64,+svm,+npt)
#   NESTED_ACCEL         QEMU -accel (default tcg,thread=single: see below);
#                        kvm needs a host KVM with nested SVM: -cpu stays
#                        NESTED_CPU, not scripts/qemu-kvm-cpu's model (on
#                        a kvm_pvm AMD host QEMU starts with it but drops
#                        svm and npt, so kvm_amd cannot load)
#   NESTED_SMP           guest CPUs (default 2)
#   NESTED_MEM           guest RAM in MiB (default 512)
#   NESTED_BOOT_TIMEOUT  seconds allowed for boot + power-off (default 120);
#                        the guest is stopped after -t SECS + this
#   NESTED_RETRIES       boots again when a guest gives no status (default 1)
#   NESTED_KVM_AMD_ARGS  kvm_amd parameters, e.g. "npt=0" (default none)
#   NESTED_APPEND        more of the guest Linux's command line
#   NESTED_KERNEL_DEB    a linux-image-*.deb to use instead of apt-get download
#   NESTED_NO_MAKE=1     do not run make (use the objects already built)
#   NESTED_VMM=FILE      put FILE (a static irqlab-vmm) in the guest instead
#                        of building build/nested/irqlab-vmm; no make
#   NESTED_WITH_QEMU=1   also put the host's qemu-system-x86_64 in the guest
#                        (with its libraries and the firmware for a
#                        multiboot -kernel boot), at the same paths, so the
#                        guest can run it with -accel kvm; off by default
#                        (+~18 MB gzipped initramfs, +~3 s).
#                        NESTED_GUEST_QEMU names another binary,
#                        NESTED_QEMU_FIRMWARE adds firmware files (names in
#                        /usr/share/qemu or /usr/share/seabios)
#
# What it needs, and fetches on a fresh Debian 12 (as root): qemu-system-x86
# (installed by .ci/run), and, with `apt-get download` into build/nested/
# (nothing is installed): linux-image-6.1.*-amd64 (~71 MB; only vmlinuz and
# four modules are kept, 11 MB) and busybox-static (~1 MB).  apt-get update
# is run first when the apt lists do not know the packages.
#
# Why thread=single: with QEMU 7.2's default multi-threaded TCG and -smp 2,
# the guest Linux froze (both CPUs, no watchdog output; once an RCU stall)
# at the start of about 1 irqlab-vmm run in 50 (8 of 16 boots running it 40
# times); on single-threaded TCG it did not in 720 runs, nor with -smp 1 on
# multi-threaded TCG (320 runs).  A boot and a run take 9-11 s so, 7-9 s
# with NESTED_SMP=1 NESTED_ACCEL=tcg (one guest CPU: no cross-CPU kicks).
#
# Files: build/nested/cache (kernel, modules, busybox: kept), build/nested/
# irqlab-vmm (static), build/nested/last/ (console.log, channel.log and the
# files of the last run).
set -u
cd "$(dirname "$0")/../.." || exit 125
ROOT=$PWD
N=build/nested
CACHE=$N/cache
QEMU=${QEMU:-qemu-system-x86_64}
GUEST_TIMEOUT=120
VERBOSE=0
RAWCMD=
SERVE=
CPU=${NESTED_CPU:-qemu64,+svm,+npt}
ACCEL=${NESTED_ACCEL:-tcg,thread=single}
RETRIES=${NESTED_RETRIES:-1}
SMP=${NESTED_SMP:-2}
MEM=${NESTED_MEM:-512}
BOOT_TIMEOUT=${NESTED_BOOT_TIMEOUT:-120}

usage() {
	sed -n '2,/^set -u/{/^set -u/d;s/^# \{0,1\}//;p}' "$0" >&2
	exit 2
}
skip() { echo "SKIP: $*"; exit 77; }
rig() { echo "RIG: $*" >&2; exit 125; }
log() { [ "$VERBOSE" = 1 ] && echo "nested: $*" >&2; return 0; }

while [ $# -gt 0 ]; do
	case $1 in
	-t) GUEST_TIMEOUT=${2:?}; shift 2 ;;
	-c) RAWCMD=${2:?}; shift 2 ;;
	-v) VERBOSE=1; shift ;;
	--serve) SERVE=${2:?}; shift 2; break ;;
	--) shift; break ;;
	-h|--help) usage ;;
	-*) usage ;;
	*) [ -n "$RAWCMD" ] || usage; break ;;
	esac
done
[ -n "$RAWCMD" ] || [ -n "$SERVE" ] || [ $# -gt 0 ] || usage

command -v "$QEMU" >/dev/null 2>&1 || skip "$QEMU is not installed (apt-get install qemu-system-x86)"
for t in timeout dpkg-deb tar gzip base64 flock; do
	command -v $t >/dev/null 2>&1 || skip "$t is not installed"
done
mkdir -p "$CACHE" || rig "cannot create $CACHE"

# ---- the cache: vmlinuz, the four modules, a static busybox ----------
# apt_download DIR PKG...: apt-get download into DIR, with an apt-get
# update first if the lists do not know a package (scripts/apt-lib.sh)
APT_ERR=$CACHE/apt.err
. scripts/apt-lib.sh

# The modules /init loads, in order: KVM's, then virtio-9p's (--serve)
KVM_MODULES="irqbypass kvm ccp kvm-amd"
P9_MODULES="virtio_ring virtio virtio_pci_legacy_dev virtio_pci_modern_dev virtio_pci netfs fscache 9pnet 9pnet_virtio 9p"

fetch_kernel() {
	[ -f $CACHE/vmlinuz ] && [ -f $CACHE/modules/kvm-amd.ko ] &&
		[ -f $CACHE/modules/9p.ko ] && return 0
	local dl=$CACHE/dl deb pkg
	rm -rf $dl && mkdir -p $dl
	if [ -n "${NESTED_KERNEL_DEB:-}" ]; then
		deb=$NESTED_KERNEL_DEB
	else
		apt_ready linux-image-amd64 ||
			skip "apt cannot find linux-image-amd64 (not root, or no Debian lists)"
		# The metapackage depends on the current linux-image-6.1.0-NN-amd64.
		pkg=$(apt_kernel_package)
		[ -n "$pkg" ] || skip "cannot resolve linux-image-amd64 to a kernel package"
		apt_download $dl "$pkg" || skip "apt-get download $pkg failed"
		deb=$(ls $dl/linux-image-*.deb 2>/dev/null | head -1)
	fi
	[ -f "$deb" ] || skip "no kernel package ($deb)"
	local x=$dl/x
	mkdir -p $x
	dpkg-deb --fsys-tarfile "$deb" | tar -x -C $x --wildcards \
		'./boot/vmlinuz-*' '*/kernel/arch/x86/kvm/kvm.ko*' \
		'*/kernel/arch/x86/kvm/kvm-amd.ko*' '*/kernel/virt/lib/irqbypass.ko*' \
		'*/kernel/drivers/crypto/ccp/ccp.ko*' '*/kernel/drivers/virtio/*' \
		'*/kernel/fs/netfs/*' '*/kernel/fs/fscache/*' '*/kernel/fs/9p/*' \
		'*/kernel/net/9p/*' ||
		rig "cannot extract vmlinuz and the modules from $deb"
	rm -rf $CACHE/modules && mkdir -p $CACHE/modules
	local f m
	for m in $KVM_MODULES $P9_MODULES; do
		f=$(find $x -name "$m.ko*" | head -1)
		[ -n "$f" ] || rig "$deb has no $m.ko"
		case $f in
		*.ko) cp "$f" $CACHE/modules/$m.ko ;;
		*.ko.xz) xz -dc "$f" >$CACHE/modules/$m.ko ;;
		*.ko.zst) zstd -dqc "$f" >$CACHE/modules/$m.ko ;;
		*.ko.gz) gzip -dc "$f" >$CACHE/modules/$m.ko ;;
		*) rig "unknown module compression: $f" ;;
		esac || rig "cannot decompress $f"
	done
	cp $x/boot/vmlinuz-* $CACHE/vmlinuz.tmp && mv $CACHE/vmlinuz.tmp $CACHE/vmlinuz
	basename "$deb" >$CACHE/kernel.txt
	rm -rf $dl	# the .deb is 71 MB; only ~15 MB of it is kept
}

fetch_busybox() {
	[ -x $CACHE/busybox ] && return 0
	local dl=$CACHE/dl-bb
	rm -rf $dl && mkdir -p $dl
	apt_download $dl busybox-static || skip "apt-get download busybox-static failed"
	dpkg-deb -x $dl/busybox-static_*.deb $dl/x || rig "cannot unpack busybox-static"
	cp $dl/x/bin/busybox $CACHE/busybox.tmp && mv $CACHE/busybox.tmp $CACHE/busybox
	rm -rf $dl
}

exec 9>$CACHE/.lock
flock 9
t_start=$(date +%s.%N)
fetch_kernel
fetch_busybox
flock -u 9
t_fetched=$(date +%s.%N)

# ---- irqlab-vmm, linked static so the initramfs needs no libraries ----
# (a server runs the host's own binaries, through 9p: it needs none)
VMM_BIN=${NESTED_VMM:-$N/irqlab-vmm}
if [ -n "$SERVE" ]; then
	VMM_BIN=
elif [ -n "${NESTED_VMM:-}" ]; then
	[ -x "$NESTED_VMM" ] || rig "NESTED_VMM: $NESTED_VMM is not executable"
elif [ "${NESTED_NO_MAKE:-0}" != 1 ]; then
	make --no-print-directory -s all >&2 || rig "make failed"
	make --no-print-directory -s VMM=$N/irqlab-vmm \
		HOST_LDFLAGS='-pthread -static' $N/irqlab-vmm >&2 ||
		rig "cannot link a static irqlab-vmm"
fi
[ -z "$SERVE" ] && [ ! -x "$VMM_BIN" ] &&
	rig "$VMM_BIN is missing (run without NESTED_NO_MAKE)"

# ---- the initramfs -----------------------------------------------------
RUN=$(mktemp -d "$ROOT/$N/run.XXXXXX") || rig "mktemp failed"
trap 'rm -rf "$RUN"' EXIT
R=$RUN/root
mkdir -p $R/bin $R/lib/modules $R/work/.fetch
cp $CACHE/busybox $R/bin/busybox
cp $CACHE/modules/*.ko $R/lib/modules/
[ -n "$VMM_BIN" ] && cp "$VMM_BIN" $R/bin/irqlab-vmm
cp tests/nested/init $R/init
chmod 755 $R/init $R/bin/busybox
[ -n "$VMM_BIN" ] && chmod 755 $R/bin/irqlab-vmm

# ---- opt-in: the host's QEMU, to run in the guest on its /dev/kvm -----
# NESTED_WITH_QEMU=1 copies the binary, every library ldd lists (and the
# dynamic loader) and the firmware a multiboot -kernel boot reads (found
# with strace: SeaBIOS, the multiboot DMA option ROM, kvmvapic) to the same
# paths in the initramfs.  It adds ~55 MB to it (~18 MB gzipped) and ~3 s
# to a run, so the default path leaves it out.
if [ "${NESTED_WITH_QEMU:-0}" = 1 ]; then
	gq=${NESTED_GUEST_QEMU:-/usr/bin/qemu-system-x86_64}
	[ -x "$gq" ] || rig "NESTED_WITH_QEMU: $gq is not executable"
	ldd "$gq" | grep -q 'not found' && rig "NESTED_WITH_QEMU: ldd $gq: a library is not found"
	libs=$(ldd "$gq" | awk '$2 == "=>" && $3 ~ /^\// { print $3 } $1 ~ /^\// { print $1 }') ||
		rig "NESTED_WITH_QEMU: ldd $gq failed"
	fw=
	for f in bios-256k.bin multiboot_dma.bin kvmvapic.bin ${NESTED_QEMU_FIRMWARE:-}; do
		for d in /usr/share/qemu /usr/share/seabios; do
			[ -e $d/$f ] && { fw="$fw $d/$f"; continue 2; }
		done
		rig "NESTED_WITH_QEMU: no $f in /usr/share/qemu or /usr/share/seabios"
	done
	for f in "$gq" $libs $fw; do
		mkdir -p "$R$(dirname "$f")" && cp -L "$f" "$R$f" ||
			rig "NESTED_WITH_QEMU: cannot copy $f"
	done
	log "with QEMU: $gq, $(echo $libs | wc -w) libraries,$fw"
fi

# copy_in PATH: put a host file in the guest's /work; prints its guest path.
nfile=0
copy_in() {
	local p=$1 g
	case $p in
	/*) nfile=$((nfile + 1)); g=.ext/$nfile/${p##*/} ;;
	*) g=$p ;;
	esac
	mkdir -p "$R/work/$(dirname "$g")" && cp "$p" "$R/work/$g" ||
		rig "cannot copy $p into the initramfs"
	printf '%s' "$g"
}
q() { printf "'%s'" "$(printf '%s' "$1" | sed "s/'/'\\\\''/g")"; }

fetch_names=() fetch_dests=()
if [ -n "$SERVE" ]; then
	: >$R/cmd	# the commands come over the socket
elif [ -n "$RAWCMD" ]; then
	for a in "$@"; do
		[ -f "$a" ] || rig "-c: $a is not a file"
		copy_in "$a" >/dev/null
	done
	printf '%s\n' "$RAWCMD" >$R/cmd
else
	cmd="exec irqlab-vmm"
	prev=
	for a in "$@"; do
		orig=$a
		if [ "$prev" = --stats-json ] || [ "$prev" = --timeline ]; then
			fetch_names+=("out${#fetch_names[@]}.json")
			fetch_dests+=("$a")
			a=/work/.fetch/${fetch_names[-1]}
		elif [ "$prev" = --module ] && [ -f "${a%%,*}" ]; then
			case $a in
			*,*) a="$(copy_in "${a%%,*}"),${a#*,}" ;;
			*) a=$(copy_in "$a") ;;
			esac
		elif [ -f "$a" ]; then
			a=$(copy_in "$a")
		fi
		cmd="$cmd $(q "$a")"
		prev=$orig
	done
	printf '%s\n' "$cmd" >$R/cmd
fi
cat >$R/rig.conf <<EOF
GUEST_TIMEOUT=$(q "$GUEST_TIMEOUT")
KVM_AMD_ARGS=$(q "${NESTED_KVM_AMD_ARGS:-}")
KVM_MODULES=$(q "$KVM_MODULES")
P9_MODULES=$(q "$P9_MODULES")
SERVE_ROOT=$(q "${SERVE:+$ROOT}")
EOF
log "guest command: $(cat $R/cmd)"

(cd $R && find . | LC_ALL=C sort | "$ROOT/$CACHE/busybox" cpio -o -H newc -R 0:0 2>/dev/null) |
	gzip -1 >$RUN/initrd.gz || rig "cannot build the initramfs"

# tsc=reliable: QEMU TCG gives every vCPU one TSC (cpu_get_ticks()), but
# Linux's unsynchronized_tsc() takes a non-Intel CPU without constant_tsc
# (qemu64) and more than one CPU as unsynchronized and marks the TSC
# unstable; KVM then resets each vCPU's TSC offset at every vcpu_load and
# catches it up (kvm_arch_vcpu_load(), x86.c), so the guest's TSC is no
# longer the host's plus one offset, nor quite the other vCPU's
# (tests/nested/README.md "The rig's TSC").
APPEND="console=ttyS0 quiet loglevel=4 panic=-1 oops=panic softlockup_panic=1"
APPEND="$APPEND sysctl.kernel.panic_on_rcu_stall=1 tsc=reliable"
APPEND="$APPEND${NESTED_APPEND:+ $NESTED_APPEND}"

# ---- --serve: one guest, many commands -----------------------------------
# Serial 2 is the control line on SOCKET (/init's serve loop reads a
# command, runs it, answers DONE); the host's / is shared read-only as
# "hostroot" and the repository read-write as "repo" (9p, virtio-pci).
# QEMU runs in the foreground until the guest powers off or it is killed.
if [ -n "$SERVE" ]; then
	rm -f "$SERVE"
	log "serving on $SERVE: -accel $ACCEL -cpu $CPU -smp $SMP -m $MEM"
	"$QEMU" -accel "$ACCEL" -cpu "$CPU" -smp "$SMP" -m "$MEM" \
		-kernel $CACHE/vmlinuz -initrd $RUN/initrd.gz -append "$APPEND" \
		-display none -monitor none -vga none -nodefaults -no-reboot \
		-serial file:"${SERVE%.sock}-console.log" \
		-serial file:"${SERVE%.sock}-channel.log" \
		-serial unix:"$SERVE",server=on,wait=off \
		-virtfs local,path=/,mount_tag=hostroot,security_model=none,readonly=on,multidevs=remap \
		-virtfs local,path="$ROOT",mount_tag=repo,security_model=none,multidevs=remap \
		</dev/null &
	qpid=$!
	trap 'kill -TERM $qpid 2>/dev/null; wait $qpid; exit 143' TERM INT HUP
	wait $qpid
	exit $?
fi

# ---- boot ----------------------------------------------------------------
# Serial 0 is the console (kernel log); serial 1 is the result channel.
# A soft lockup or an RCU stall panics the guest, and panic=-1 with
# -no-reboot then ends QEMU, so a broken guest costs ~25 s, not the limit.
limit=$((GUEST_TIMEOUT + BOOT_TIMEOUT))
fmt() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.1f", b - a }'; }

boot_once() {	# one boot; sets qrc and fills $RUN/files
	rm -rf $RUN/files $RUN/console.log $RUN/channel.log $RUN/qemu.out
	mkdir -p $RUN/files
	log "booting: -accel $ACCEL -cpu $CPU -smp $SMP -m $MEM (limit ${limit}s)"
	t_boot=$(date +%s.%N)
	# QEMU runs in the background so that a TERM or INT sent to this
	# script (say by an outer timeout) stops it too.
	timeout -k 5 $limit "$QEMU" -accel "$ACCEL" -cpu "$CPU" -smp "$SMP" -m "$MEM" \
		-kernel $CACHE/vmlinuz -initrd $RUN/initrd.gz -append "$APPEND" \
		-display none -monitor none -vga none -nodefaults -no-reboot \
		-serial file:$RUN/console.log -serial file:$RUN/channel.log \
		>$RUN/qemu.out 2>&1 </dev/null &
	qpid=$!
	trap stop_qemu TERM INT HUP
	wait $qpid
	qrc=$?
	trap - TERM INT HUP
	t_end=$(date +%s.%N)

	tr -d '\r' <$RUN/channel.log | awk -v dir="$RUN/files" '
		/^@@file / { name = substr($0, 8); gsub(/\//, "_", name); out = dir "/" name ".b64"; printf "" > out; next }
		/^@@end$/ { close(out); out = ""; next }
		/^@@status=/ { print substr($0, 10) > (dir "/status"); next }
		/^@@rig / { print substr($0, 7) >> (dir "/rig"); next }
		/^@@timeout$/ { print "" > (dir "/timeout"); next }
		out != "" { print >> out }
	'
	local b
	for b in $RUN/files/*.b64; do
		[ -f "$b" ] || continue
		base64 -di <"$b" >"${b%.b64}" 2>/dev/null
		rm -f "$b"
	done
	rm -rf $N/last && mkdir -p $N/last &&
		cp -r $RUN/files $RUN/root $RUN/console.log $RUN/channel.log $RUN/qemu.out $N/last/
	timing="fetch $(fmt $t_start $t_fetched)s, guest $(fmt $t_boot $t_end)s"
	if [ "$VERBOSE" = 1 ]; then
		echo "nested: ---- guest console ----" >&2
		tr -d '\r' <$RUN/console.log >&2
		echo "nested: ---- end of console; qemu status $qrc; $timing" >&2
	fi
}
stop_qemu() {
	kill -TERM $qpid 2>/dev/null
	wait $qpid 2>/dev/null
	rm -rf $N/last && cp -r $RUN $N/last 2>/dev/null
	echo "RIG: stopped by a signal; the guest console is in $N/last/console.log" >&2
	exit 125
}

# A guest that gives no status at all (it hung, or its kernel panicked) is
# the rig's trouble, not irqlab-vmm's: boot it again, NESTED_RETRIES times.
try=0
while :; do
	boot_once
	[ -s $RUN/files/status ] && break
	[ $try -ge "$RETRIES" ] && break
	try=$((try + 1))
	echo "nested: no status from the guest (qemu status $qrc, $timing); booting again ($try of $RETRIES)" >&2
	tr -d '\r' <$RUN/console.log | tail -5 | sed 's/^/nested:   /' >&2
done

log "kernel: $(cat $CACHE/kernel.txt 2>/dev/null)"

F=$RUN/files
[ -f $F/stdout ] && cat $F/stdout
[ -f $F/stderr ] && cat $F/stderr >&2
i=0
for name in "${fetch_names[@]}"; do
	if [ -f "$F/fetch_$name" ]; then
		cp "$F/fetch_$name" "${fetch_dests[$i]}"
	fi
	i=$((i + 1))
done

if [ ! -s $F/status ]; then
	{
		[ $qrc = 124 ] && echo "RIG: the guest did not finish in ${limit}s"
		echo "RIG: no status from the guest (qemu status $qrc, $timing)."
		echo "RIG: last console lines ($N/last/console.log):"
		tr -d '\r' <$RUN/console.log | tail -25 | sed 's/^/  /'
		[ -s $RUN/qemu.out ] && sed 's/^/  qemu: /' $RUN/qemu.out
	} >&2
	exit 125
fi
st=$(cat $F/status)
if [ "$st" = 125 ] && [ -f $F/rig ]; then
	sed 's/^/RIG: /' $F/rig >&2
	exit 125
fi
[ -f $F/timeout ] &&
	echo "nested: the command timed out after ${GUEST_TIMEOUT}s in the guest (-t); status 124" >&2
log "$(cat $F/rig 2>/dev/null | tr '\n' ';')"
log "status $st; $timing"
exit "$st"
