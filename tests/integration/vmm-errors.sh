#!/bin/bash
# irqlab-vmm's handling of bad input: options, missing and malformed
# kernels.  The image is loaded before /dev/kvm is opened, so all of this
# runs on any host.
set -u
VMM=build/irqlab-vmm
K=build/kernel/irqlab.elf
T=build/tests/vmm-errors
mkdir -p $T
fails=0

# expect STATUS PATTERN -- command...: the status and a stderr line matching
expect() {
	local want=$1 pat=$2; shift 3
	"$@" >$T/out 2>$T/err
	local rc=$?
	if [ $rc -ne "$want" ] || ! grep -qE -- "$pat" $T/err; then
		echo "FAIL: '$*': status $rc (want $want), stderr:"
		sed 's/^/    /' $T/err
		fails=$((fails + 1))
	else
		echo "ok: $* -> $want: $(head -1 $T/err)"
	fi
}

$VMM --help | grep -q -- '--stats-json' || { echo "FAIL: --help"; fails=$((fails + 1)); }
$VMM --help | grep -q -- '--timeout SECONDS' || { echo "FAIL: --help: no --timeout"; fails=$((fails + 1)); }
$VMM --help | grep -q -- '18 --timeout ran out' || { echo "FAIL: --help: no status 18"; fails=$((fails + 1)); }
$VMM --version | grep -q '^irqlab-vmm ' || { echo "FAIL: --version"; fails=$((fails + 1)); }

expect 2 'no KERNEL given' -- $VMM
expect 2 "unknown option '--bogus'" -- $VMM --bogus $K
expect 2 "needs an argument" -- $VMM $K --cpus
expect 2 "--cpus must be a number from 1 to 64, not '0'" -- $VMM --cpus 0 $K
expect 2 "--cpus must be a number" -- $VMM --cpus 2x $K
expect 2 "--mem must be MiB" -- $VMM --mem 1 $K
expect 2 "--multiboot must be 1 or 2" -- $VMM --multiboot 3 $K
expect 2 "--irqchip must be user, kernel or split" -- $VMM --irqchip=both $K
expect 2 "--trace: unknown class 'pci'" -- $VMM --trace=pit,pci $K
expect 2 "one KERNEL only" -- $VMM $K $K
expect 2 "--halt-poll must be microseconds from 0 to 10000, not '10001'" -- $VMM --halt-poll 10001 $K
expect 2 "--halt-poll is for --irqchip=user" -- $VMM --halt-poll 50 --irqchip=split $K
expect 2 "--timeout must be whole seconds from 1 to 1000000, not '0'" -- $VMM --timeout 0 $K
expect 2 "--timeout must be whole seconds from 1 to 1000000, not '1000001'" -- $VMM --timeout 1000001 $K
expect 2 "--timeout must be whole seconds from 1 to 1000000, not '2s'" -- $VMM --timeout 2s $K
expect 2 "--timeout must be whole seconds from 1 to 1000000, not '-1'" -- $VMM --timeout=-1 $K
expect 2 "--timeout must be whole seconds from 1 to 1000000, not '1.5'" -- $VMM --timeout 1.5 $K
expect 2 "--timeout must be whole seconds from 1 to 1000000, not ''" -- $VMM --timeout= $K
expect 2 "option '--timeout' needs an argument" -- $VMM $K --timeout
expect 2 "stats-json /nonexistent/x.json" -- $VMM --stats-json /nonexistent/x.json $K
expect 4 "kernel /nonexistent: No such file" -- $VMM /nonexistent
expect 4 "not a regular file" -- $VMM /tmp
expect 4 "module /nonexistent" -- $VMM --module /nonexistent $K

# malformed images
: >$T/empty
expect 4 "no multiboot header" -- $VMM $T/empty
head -c 4096 /dev/urandom >$T/random
expect 4 "multiboot" -- $VMM $T/random
# headers intact (they sit at 0x1000), the segments cut off
head -c 6000 $K >$T/cut.elf
expect 4 ": .*(truncated|past the end)" -- $VMM $T/cut.elf
# break the multiboot2 header's checksum: it is the 4th dword of the header
if ! command -v python3 >/dev/null 2>&1; then
	echo "SKIP (host): the bad-checksum image: python3 is not installed"
else
python3 - $K $T/badsum <<'PY'
import struct, sys
d = bytearray(open(sys.argv[1], 'rb').read())
for off in range(0, 32768, 8):
    if struct.unpack_from('<I', d, off)[0] == 0xe85250d6:
        d[off + 12] ^= 0xff
        break
else:
    sys.exit('no multiboot2 header in the kernel')
open(sys.argv[2], 'wb').write(d)
PY
expect 4 "checksum" -- $VMM --multiboot 2 $T/badsum
fi

# a good kernel on a host without KVM: a clear error, not a crash
if [ ! -e /dev/kvm ]; then
	expect 6 "/dev/kvm: .*KVM is not available" -- $VMM $K
else
	echo "SKIP (host): the no-KVM error: this host has a /dev/kvm"
fi
[ $fails -eq 0 ]
