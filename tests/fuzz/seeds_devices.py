#!/usr/bin/python3
"""Write the seed corpora of the device harnesses (docs/FUZZING.md).

    /usr/bin/python3 tests/fuzz/seeds_devices.py [DIR]
    (DIR defaults to tests/fuzz/corpus)

Each seed is an operation list in its harness's byte code (documented at the
top of tests/fuzz/fuzz_<name>.c): the register sequences the kernel's own
drivers perform (kernel/dev/pit.c, pic.c, uart.c, fwcfg.c, pv.c; the HPET:
Linux's clockevent and the register use of a check), then a few
the kernel does not use (other modes, BCD, AEOI, loopback, the ends of guest
RAM), so libFuzzer starts from accesses a real guest makes.
"""
import os
import sys

# ---- fuzz_pit.c: 0 write, 1 read, 2 gate, 3 advance, 4 fire, 5 early,
# 6 latch, 7 status; port selector 0-2 channel, 3 command, 4 port 0x61
CMD, P61 = 3, 4


def pit_write(sel, val):
    return [0, sel, val]


def pit_count(ch, count):
    return pit_write(ch, count & 0xff) + pit_write(ch, count >> 8)


def advance(ns):
    sh = 0
    while ns >> sh > 0xffff:
        sh += 1
    v = ns >> sh
    return [3, v & 0xff, v >> 8, sh]


FIRE, EARLY = [4], [5]

PIT = {
    # kernel/dev/pit.c pit_periodic(): mode 2, 1 kHz, then ticks
    'periodic-1khz': (pit_write(CMD, 0x34) + pit_count(0, 1193) +
                      (advance(1000000) + FIRE) * 4 + [6, 0]),
    # pit_oneshot() and pit_read_count(): mode 0, latch, read
    'oneshot-latch': (pit_write(CMD, 0x30) + pit_count(0, 0xffff) +
                      advance(20000000) + [6, 0] + FIRE + [1, 0, 1, 0]),
    # calibration through channel 2 and port 0x61 (pit_ch2_*)
    'ch2-calibration': ([1, P61] + pit_write(P61, 0x01) +
                        pit_write(CMD, 0xb0) + pit_count(2, 11932) +
                        advance(5000000) + [1, P61] + advance(6000000) +
                        [1, P61] + pit_write(P61, 0x00)),
    # mode 3 square wave, read-back of the status
    'mode3-status': (pit_write(CMD, 0x36) + pit_count(0, 23863) +
                     (advance(10000000) + FIRE) * 3 + [7, 0] + EARLY),
    # channel 1 in BCD mode 4, LSB only
    'ch1-bcd-mode4': (pit_write(CMD, 0x59) + pit_write(1, 0x99) +
                      advance(100000) + [6, 1] + [7, 1]),
    # channel 2 mode 1 and mode 5, triggered by the gate
    'ch2-gate-modes': (pit_write(CMD, 0xb2) + pit_count(2, 500) +
                       [2, 2, 0, 2, 2, 1] + advance(300000) + [7, 2] +
                       pit_write(CMD, 0xba) + pit_count(2, 50) +
                       [2, 2, 0, 2, 2, 1] + advance(30000) + [6, 2]),
    # a too-fast period: the host timer is clamped, edges merge
    'short-period': (pit_write(CMD, 0x34) + pit_count(0, 2) +
                     (advance(250000) + FIRE) * 3),
}

# ---- fuzz_pic.c: 0 write, 1 read, 2 line, 3 edge, 4 INTA, 5 bus,
# 6 init (8 bytes), 7 status; ports 0 0x20, 1 0x21, 2 0xa0, 3 0xa1,
# 4 0x4d0, 5 0x4d1
INIT_PC = [6, 0x01, 0x01, 0x20, 0x28, 0x04, 0x02, 0x01, 0x01]
EOI_M, EOI_S = [0, 0, 0x20], [0, 2, 0x20]

PIC = {
    # kernel/dev/pic.c: mask, ICW1-4, unmask, a timer tick, EOI
    'kernel-init-tick': ([0, 1, 0xff, 0, 3, 0xff] + INIT_PC +
                         [0, 1, 0x00, 0, 3, 0x00] + [3, 0] + [4] + EOI_M +
                         [7, 0x04, 7, 0x00]),
    # the slave through IR2: IRQ 12, nested with IRQ 1
    'cascade-nested': (INIT_PC + [0, 1, 0, 0, 3, 0] + [3, 12, 4] + [3, 1, 4] +
                       EOI_M + EOI_S + EOI_M + [7, 0x06]),
    # ELCR: IRQ 3 and 10 level-triggered (kernel/dev/pic.c pic_set_elcr)
    'elcr-level': (INIT_PC + [0, 4, 0x08, 0, 5, 0x04, 0, 1, 0, 0, 3, 0] +
                   [2, 3, 1, 4] + EOI_M + [2, 3, 0] + [2, 10, 1, 4] +
                   EOI_S + EOI_M + [2, 10, 0, 1, 4, 1, 5]),
    # AEOI with rotation, the poll command
    'aeoi-rotate-poll': ([6, 0x01, 0x01, 0x20, 0x28, 0x04, 0x02, 0x03, 0x03] +
                         [0, 0, 0x80] + [3, 4, 3, 5, 4, 4] + [3, 6, 7, 1]),
    # special mask mode, specific EOI, set priority
    'smm-specific-eoi': (INIT_PC + [3, 5, 4] + [0, 0, 0x68, 0, 1, 0x20] +
                         [3, 3, 4] + [0, 0, 0x63, 0, 0, 0x65, 0, 0, 0xc2] +
                         [0, 0, 0x48]),
    # single mode, LTIM, no ICW4; a spurious INTA; odd bus widths
    'single-ltim-spurious': ([6, 0x0a, 0x00, 0x40, 0x48, 0, 0, 0, 0] +
                             [2, 5, 1, 2, 5, 0, 4] + [5, 0, 1, 1, 5, 2, 8, 0]),
}

# ---- fuzz_uart.c: 0 write, 1 read, 2 receive, 3 receive n
UART_INIT = [0, 1, 0, 0, 3, 0x80, 0, 0, 0x01, 0, 1, 0x00, 0, 3, 0x03,
             0, 2, 0x07, 0, 4, 0x03]

UART = {
    # kernel/dev/uart.c uart_init(), then polled output
    'kernel-init-print': UART_INIT + sum(([1, 5, 0, 0, c] for c in b'ok\n'),
                                         []),
    # interrupts through OUT2: received data, THR empty
    'irq-rx-thr': (UART_INIT + [0, 4, 0x0b, 0, 1, 0x03] + [2, 0x61] +
                   [1, 2, 1, 0, 1, 2, 1, 5]),
    # loopback, the FIFO filled past its 16 bytes, cleared
    'loopback-overrun': ([0, 4, 0x10, 0, 0, 0x55, 1, 0, 3, 20, 1, 5] +
                         [0, 1, 0x05, 1, 2, 0, 2, 0x03, 1, 6]),
    # scratch, divisor latch read-back, modem status
    'scratch-dlab-msr': ([0, 7, 0xa5, 1, 7, 0, 3, 0x83, 1, 0, 1, 1] +
                         [0, 3, 0x03, 0, 1, 0x08, 1, 6, 1, 2]),
}

# ---- fuzz_fw_cfg.c: byte 0 the vCPU count; 0 select, 1 read, 2 write,
# 3 read anywhere
FW_CFG = {
    # kernel/boot/fwcfg.c: the signature, then the CPU count
    'kernel-probe': [2] + [0, 0, 0] + [1, 0] * 4 + [0, 5, 0, 1, 1],
    'items': ([64, 0, 1, 0, 1, 2, 0, 0x0f, 0, 1, 3, 0, 0x19, 0, 1, 2] +
              [2, 0, 0, 5, 0, 0, 0, 0, 0, 0, 0, 3, 0, 0, 3, 1, 3]),
}

# ---- fuzz_pvport.c: byte 0 odd adds RAM above 4 GiB; addresses k lo hi
# (k 0 low + d, 1 low end - d, 2 4 GiB + d, 3 high end - d)
SNAP_SIZE = 16 + 8 * 15


def addr(k, d):
    return [k, d & 0xff, d >> 8]


def poke(a, data):
    return [2] + a + [len(data)] + list(data)


PVPORT = {
    # kernel/dev/pv.c: probe, phase, print, snapshot, power off
    'kernel-session': ([0, 5, 0x00, 2, 5, 0x04, 2, 6, 1] +
                       poke(addr(0, 0x1000), b'hello\0') +
                       [0] + addr(0, 0x1000) +
                       [3] + addr(0, 0x2000) + [SNAP_SIZE, 0] +
                       [1] + addr(0, 0x2000) + [7, 0]),
    # a string without its NUL at the end of low RAM; a snapshot that
    # would run past it; high RAM
    'ends-of-ram': ([1] + poke(addr(1, 4), b'abcd') + [0] + addr(1, 4) +
                    [3] + addr(1, 64) + [SNAP_SIZE, 0] + [1] + addr(1, 64) +
                    poke(addr(2, 0x10), b'high\0') + [0] + addr(2, 0x10) +
                    [0] + addr(3, 0) + [1] + addr(3, 8)),
    # an old guest's short snapshot, bad widths and phases
    'short-snapshot-bad': ([0] + [3] + addr(0, 0x3000 - 0x800) + [24, 0] +
                           [1] + addr(0, 0x3000 - 0x800) +
                           [4, 0x08, 0, 9, 0, 0, 0, 0, 0, 0, 0] +
                           [6, 7, 5, 0x0c, 2, 5, 0, 3]),
}

# ---- fuzz_hpet.c: 0 write (reg = offset / 8; sz 0: 8 bytes, 1: 4 bytes,
# sz & 4: the upper half), 1 read, 2 timer op (n, kind, v), 3 advance,
# 4 fire, 5 early
def hpet_write(off, val, size=8):
    return [0, off // 8, 0 if size == 8 else 1 | (4 if off & 4 else 0)] + \
        list(val.to_bytes(8, 'little'))


def hpet_read(off, size=8):
    return [1, off // 8, 0 if size == 8 else 1 | (4 if off & 4 else 0)]


ENABLE, LEG_RT = 1, 2
HPET = {
    # Linux's clockevent: legacy replacement, timer 0 periodic 32-bit
    'linux-legacy-periodic': (hpet_write(0x10, ENABLE | LEG_RT) +
                              hpet_write(0x100, 0x14e) +
                              hpet_write(0x108, 100000, 4) +
                              hpet_write(0x108, 100000, 4) +
                              [4, 4, 4] + hpet_read(0xf0, 4) +
                              hpet_read(0x104, 4)),
    # the kernel's check: one-shot 64-bit edge on GSI 20, level on 21
    'oneshot-then-level': (hpet_write(0x10, ENABLE) +
                           hpet_write(0x100, 0x4 | 20 << 9) +
                           hpet_write(0x108, 1000) + [4] +
                           hpet_write(0x120, 0x6 | 21 << 9) +
                           hpet_write(0x128, 5000) + [4] + hpet_read(0x20) +
                           hpet_write(0x20, 2) + hpet_read(0x20)),
    # halted, counter written, restarted; bad widths and offsets
    'halt-write-bad': (hpet_write(0x10, ENABLE) + [3, 0, 1, 10] +
                       hpet_write(0x10, 0) + hpet_write(0xf0, 0xfffffff0) +
                       hpet_write(0x10, ENABLE) + [3, 200, 0, 0] +
                       hpet_read(0xf0) + [1, 2, 2] + [1, 0x82, 0] +
                       [0, 0x7f, 0] + [0] * 8),
    # the timer ops: a 32-bit periodic on 22 and a shared level line
    'timer-ops': ([2, 2, 2, 1] + [2, 2, 0, 0x56] + [2, 2, 1, 40] +
                  [2, 1, 0, 0x23] + [2, 1, 1, 20] + [3, 0, 16, 8] + [4, 4] +
                  [2, 0, 3, 1] + [5]),
}

HARNESSES = {'pit': PIT, 'pic': PIC, 'uart': UART, 'fw_cfg': FW_CFG,
             'pvport': PVPORT, 'hpet': HPET}


def main():
    top = sys.argv[1] if len(sys.argv) > 1 else os.path.join(
        os.path.dirname(os.path.abspath(__file__)), 'corpus')
    for name, seeds in HARNESSES.items():
        d = os.path.join(top, name)
        os.makedirs(d, exist_ok=True)
        for seed, ops in seeds.items():
            with open(os.path.join(d, seed), 'wb') as f:
                f.write(bytes(ops))
        print(f'{name}: {len(seeds)} seeds in {d}')


if __name__ == '__main__':
    main()
