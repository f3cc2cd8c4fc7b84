# SPDX-License-Identifier: MIT
#
# Sourced by qemu-tcg-bench.sh, the last QEMU TCG test in shell (the
# others are test_qemu_tcg_*.py).  The caller sets OUT (its output
# folder) and QEMU_TIMEOUT (seconds per boot) first.
QEMU=${QEMU:-qemu-system-x86_64}
KERNEL=build/kernel/irqlab32.elf

if ! command -v "$QEMU" >/dev/null 2>&1; then
	echo "SKIP: $QEMU is not installed"
	exit 77
fi
if ! "$QEMU" -accel help 2>/dev/null | grep -qx tcg; then
	echo "SKIP: $QEMU has no TCG accelerator ($QEMU -accel help)"
	exit 77
fi
if ! command -v timeout >/dev/null 2>&1; then
	echo "SKIP: timeout(1) is not installed"
	exit 77
fi
if [ ! -f "$KERNEL" ]; then
	echo "FAIL: $KERNEL is missing (make build/kernel/irqlab32.elf)"
	exit 1
fi
mkdir -p "$OUT" || { echo "FAIL: cannot create $OUT"; exit 1; }

failed=0
name=
status=

# has_device NAME: this QEMU has -device NAME (pc-testdev is a test
# device a distribution may leave out)
has_device() {
	"$QEMU" -device help 2>/dev/null | grep -q "^name \"$1\""
}

# boot NAME QEMU-ARGS...: serial output in $OUT/NAME.log (CRs dropped),
# QEMU's own messages in $OUT/NAME.err, exit status in $status.
boot() {
	name=$1
	shift
	timeout "$QEMU_TIMEOUT" "$QEMU" -accel tcg -m 64 -kernel "$KERNEL" \
		-device isa-debug-exit,iobase=0xf4,iosize=0x04 \
		-serial stdio -display none -no-reboot -nodefaults "$@" \
		</dev/null >"$OUT/$name.raw" 2>"$OUT/$name.err"
	status=$?
	tr -d '\r' <"$OUT/$name.raw" >"$OUT/$name.log"
}

fail() {
	echo "FAIL: $name: $*"
	if [ "$failed" != "$name" ]; then
		echo "---- $OUT/$name.log ----"
		cat "$OUT/$name.log"
		echo "---- $OUT/$name.err ----"
		cat "$OUT/$name.err"
		echo "----"
	fi
	failed=$name
}

# expect_line ERE WHAT: some whole line of the output matches ERE
expect_line() {
	grep -Eq -- "^($1)\$" "$OUT/$name.log" || fail "no $2 line"
}

reject_line() {
	! grep -Eq -- "^($1)\$" "$OUT/$name.log" || fail "unexpected $2 line"
}

# QEMU's isa-debug-exit turns the kernel's status V into (V << 1) | 1.
expect_status() {
	if [ "$status" = 124 ]; then
		fail "timed out after $QEMU_TIMEOUT s"
	elif [ "$status" != "$1" ]; then
		fail "QEMU exit status $status, want $1 ($2)"
	fi
}

