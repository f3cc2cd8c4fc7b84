#!/usr/bin/python3
"""Turn an irqlab-vmm --trace log into seed inputs of the lapic or ioapic
fuzz harness (their byte-coded op lists: tests/fuzz/fuzz_lapic.c and
fuzz_ioapic.c say the format).

How the seeds in tests/fuzz/corpus/{lapic,ioapic}/ were recorded, from the
top of the tree after `make all` (docs/FUZZING.md):

    build/irqlab-vmm --cpus 2 --timeout 90 --trace lapic,ioapic \\
        -a check=lapic,ioapic build/kernel/irqlab.elf 2>x2.trace
    (the same with --no-x2apic, 2>xapic.trace, and with
     -a "check=ipi,timer" 2>ipi.trace)
    tests/fuzz/trace2ops.py lapic x2.trace xapic.trace ipi.trace
    tests/fuzz/trace2ops.py ioapic x2.trace xapic.trace

Each trace line becomes the op that makes the model do it again: a
register or MSR access, a CR8 write, an interrupt taken (ack), an
interrupt from outside (accept), a timer firing, a line raised or pulsed
(an IOAPIC delivery), an EOI; the time between lines becomes clock steps.
Lines that follow from an op (an IPI's accepts, an EOI's broadcast, the
models' own decoding) are skipped.  A long trace is cut into windows of
--window ops; each window after the first starts with the ops that put
the APICs in the mode the trace was in, and only windows that bring an op
kind not seen in the windows kept so far are written (at most --max).
"""
import argparse
import os
import re
import struct
import sys

LINE = re.compile(r'^t=(\d+)\.(\d+) vcpu=(\S+) (.*)$')

LAPIC_REGS = {
    'ID': 0x20, 'LVR': 0x30, 'TPR': 0x80, 'APR': 0x90, 'PPR': 0xa0,
    'EOI': 0xb0, 'RRD': 0xc0, 'LDR': 0xd0, 'DFR': 0xe0, 'SVR': 0xf0,
    'ISR': 0x100, 'TMR': 0x180, 'IRR': 0x200, 'ESR': 0x280,
    'LVT_CMCI': 0x2f0, 'ICR_LO': 0x300, 'ICR': 0x300, 'ICR_HI': 0x310,
    'LVT_TIMER': 0x320, 'LVT_THERM': 0x330, 'LVT_PERF': 0x340,
    'LVT_LINT0': 0x350, 'LVT_LINT1': 0x360, 'LVT_ERROR': 0x370,
    'TMICT': 0x380, 'TMCCT': 0x390, 'TDCR': 0x3e0, 'SELF_IPI': 0x3f0,
}

# fuzz_lapic.c's ops
(L_MMIO_WR, L_MMIO_RD, L_REG_WR, L_MSR_WR, L_MSR_RD, L_CLOCK, L_TIMER,
 L_INTA, L_EOI, L_ACCEPT, L_ROUTE, L_CR8, L_TSC, L_RESET, L_ICR, L_SVR,
 L_X2APIC) = range(17)
# fuzz_ioapic.c's ops
(I_SEL, I_WIN_WR, I_WIN_RD, I_MMIO_WR, I_MMIO_RD, I_RTE, I_IRQ, I_PULSE,
 I_EOIR, I_INTA, I_LEOI, I_TPR, I_SVR) = range(13)


def num(s):
    return int(s, 0)


def parse(path):
    """(ns, vcpu or -1, text) per line of the trace."""
    out = []
    with open(path, errors='replace') as f:
        for ln in f:
            m = LINE.match(ln.rstrip('\n'))
            if m:
                ns = int(m.group(1)) * 10**9 + int(m.group(2)) * 1000
                cpu = -1 if m.group(3) == '-' else int(m.group(3))
                out.append((ns, cpu, m.group(4)))
    return out


def clock_op(delta):
    """A CLOCK op of about @delta ns: ns:u16 << shift."""
    shift = 0
    while delta >> shift > 0xffff:
        shift += 1
    return struct.pack('<BHB', L_CLOCK, delta >> shift, shift)


class Lapic:
    """Trace lines -> fuzz_lapic ops (bytes), one op per list item."""

    def __init__(self):
        self.ops, self.kinds = [], []
        self.skip_accepts = False
        self.x2 = [False, False]
        self.last_ns = None

    def op(self, cpu, code, fmt='', *args, kind=None):
        b = struct.pack('<B' + fmt, ((cpu & 1) << 7) | code, *args)
        self.ops.append(b)
        self.kinds.append(kind or code)

    def line(self, ns, cpu, text):
        if text.startswith('ioapic:') or text.startswith('pit:') or \
                text.startswith('pic:') or cpu < 0:
            return
        if self.last_ns is not None and ns - self.last_ns >= 1000:
            self.ops.append(clock_op(ns - self.last_ns))
            self.kinds.append(L_CLOCK)
        self.last_ns = ns
        m = re.match(r'(wrmsr|rdmsr|wr|rd) ([A-Z_0-9]+) = (\S+)', text)
        if m and m.group(2) in LAPIC_REGS:
            off, val = LAPIC_REGS[m.group(2)], num(m.group(3))
            k = (m.group(1), m.group(2))
            if m.group(1) == 'wrmsr':
                self.op(cpu, L_MSR_WR, 'BBQ', 0, off >> 4, val, kind=k)
            elif m.group(1) == 'rdmsr':
                self.op(cpu, L_MSR_RD, 'BB', 0, off >> 4, kind=k)
            elif m.group(1) == 'wr':
                self.op(cpu, L_REG_WR, 'BI', off >> 4, val & 0xffffffff,
                        kind=k)
            else:
                self.op(cpu, L_MMIO_RD, 'HB', off, 4, kind=k)
            self.skip_accepts = False
            return
        m = re.match(r'(wr|rd) (0x[0-9a-f]+)(?:/(\d+))?(?: = (0x[0-9a-f]+|\d+))?:', text)
        if m:
            off, size = num(m.group(2)), int(m.group(3) or 4)
            sz = {4: 0, 1: 3, 2: 4, 8: 5, 3: 6}.get(size, 7)
            if m.group(1) == 'wr':
                self.op(cpu, L_MMIO_WR, 'HBI', off & 0xffff, sz,
                        num(m.group(4) or '0') & 0xffffffff, kind='badwr')
            else:
                self.op(cpu, L_MMIO_RD, 'HB', off & 0xffff, sz, kind='badrd')
            return
        m = re.match(r'#GP: (wrmsr|rdmsr) (0x[0-9a-f]+) = (\S+)', text)
        if m:
            msr, val = num(m.group(2)), num(m.group(3))
            kind, idx = (0, msr - 0x800) if 0x800 <= msr <= 0x8ff else \
                (3, msr & 0xff)
            if m.group(1) == 'wrmsr':
                self.op(cpu, L_MSR_WR, 'BBQ', kind, idx, val, kind='gpwr')
            else:
                self.op(cpu, L_MSR_RD, 'BB', kind, idx, kind='gprd')
            return
        m = re.match(r'IA32_APIC_BASE = (\S+)|#GP: IA32_APIC_BASE \S+ -> (\S+)',
                     text)
        if m:
            val = num(m.group(1) or m.group(2))
            if m.group(1):
                self.x2[cpu & 1] = bool(val & (1 << 10))
            self.op(cpu, L_MSR_WR, 'BBQ', 1, 0, val, kind='base')
            return
        m = re.match(r'TSC deadline = (\S+)', text)
        if m:
            self.op(cpu, L_MSR_WR, 'BBQ', 2, 0, num(m.group(1)), kind='tscd')
            return
        m = re.match(r'CR8 = (\S+):', text)
        if m:
            self.op(cpu, L_CR8, 'B', num(m.group(1)) & 0xff)
            return
        if text.startswith('timer fires'):
            self.op(cpu, L_TIMER)
            self.skip_accepts = True
            return
        if text.startswith('IPI '):
            self.skip_accepts = True
            return
        if text.startswith('ack '):
            self.op(cpu, L_INTA)
            self.skip_accepts = False
            return
        m = re.match(r'accept (\S+) (edge|level)', text)
        if m:
            if not self.skip_accepts or m.group(2) == 'level':
                self.op(cpu, L_ACCEPT, 'BB', num(m.group(1)) & 0xff,
                        m.group(2) == 'level')

    def prelude(self, x2):
        """Ops that put both APICs in the trace's mode again."""
        b = b''
        for c in (0, 1):
            b += struct.pack('<BB', (c << 7) | L_SVR, 0xff)
            if x2[c]:
                b += struct.pack('<B', (c << 7) | L_X2APIC)
        return b

    def run(self, trace):
        modes = []
        for ns, cpu, text in trace:
            self.line(ns, cpu, text)
            while len(modes) < len(self.ops):
                modes.append(tuple(self.x2))
        return modes


class Ioapic:
    """Trace lines -> fuzz_ioapic ops."""

    def __init__(self):
        self.ops, self.kinds = [], []
        self.vectors = set()
        self.asserted = set()

    def op(self, src, code, fmt='', *args, kind=None):
        s = 7 if src < 0 else src & 7
        self.ops.append(struct.pack('<B' + fmt, (s << 5) | code, *args))
        self.kinds.append(kind or code)

    def line(self, ns, cpu, text):
        m = re.match(r'ioapic: (write|read) IOREGSEL (\S+)', text)
        if m:
            if m.group(1) == 'write':
                self.op(cpu, I_SEL, 'B', num(m.group(2)) & 0xff)
            else:
                self.op(cpu, I_MMIO_RD, 'HB', 0, 0, kind='selrd')
            return
        m = re.match(r'ioapic: write EOIR vector (\S+)', text)
        if m:
            self.op(cpu, I_EOIR, 'B', num(m.group(1)) & 0xff)
            return
        m = re.match(r'ioapic: bad (write|read) of (\d+) bytes at \+(\S+)',
                     text)
        if m:
            sz = {4: 0, 1: 3, 2: 4, 8: 5, 3: 6}.get(int(m.group(2)), 7)
            if m.group(1) == 'write':
                self.op(cpu, I_MMIO_WR, 'HBI', num(m.group(3)) & 0xffff,
                        sz, 0, kind='badwr')
            else:
                self.op(cpu, I_MMIO_RD, 'HB', num(m.group(3)) & 0xffff, sz,
                        kind='badrd')
            return
        m = re.match(r'ioapic: (write|read) (?:pin \d+ \w+|ID|VER|ARB|bad '
                     r'index \S+) = (0x[0-9a-f]+)', text)
        if m:
            if m.group(1) == 'write':
                self.op(cpu, I_WIN_WR, 'I', num(m.group(2)))
            else:
                self.op(cpu, I_WIN_RD)
            return
        m = re.match(r'ioapic: pin (\d+) -> vector (\S+) (edge|level)', text)
        if m:
            pin, vec = int(m.group(1)), num(m.group(2))
            self.vectors.add(vec)
            if m.group(3) == 'edge':
                self.op(-1, I_PULSE, 'B', pin)
            elif pin not in self.asserted:
                self.asserted.add(pin)
                self.op(-1, I_IRQ, 'BB', pin, 1)
            return
        m = re.match(r'ioapic: pin (\d+) EOI vector \S+(, still asserted)?',
                     text)
        if m and not m.group(2):
            pin = int(m.group(1))
            if pin in self.asserted:
                self.asserted.discard(pin)
                # the device dropped its line before the EOI came
                self.ops.insert(len(self.ops) - 1, struct.pack(
                    '<BBB', (7 << 5) | I_IRQ, pin, 0))
                self.kinds.insert(len(self.kinds) - 1, 'lower')
            return
        if cpu < 0 or text.startswith('ioapic:'):
            return
        m = re.match(r'ack (0x[0-9a-f]+|\d+)', text)
        if m and num(m.group(1)) in self.vectors:
            self.op(-1, I_INTA, 'B', cpu)
            return
        m = re.match(r'EOI (0x[0-9a-f]+|\d+)', text)
        if m and num(m.group(1)) in self.vectors:
            self.op(-1, I_LEOI, 'B', cpu)

    def run(self, trace):
        for ns, cpu, text in trace:
            self.line(ns, cpu, text)
        return None


def windows(conv, modes, header, size, most):
    """Windows of @size ops that bring new kinds of op, at most @most."""
    seen, out = set(), []
    for start in range(0, len(conv.ops), size):
        kinds = set(conv.kinds[start:start + size])
        if not kinds - seen:
            continue
        seen |= kinds
        pre = b''
        if start and modes is not None:
            pre = conv.prelude(modes[start - 1])
        out.append(header + pre + b''.join(conv.ops[start:start + size]))
        if len(out) == most:
            break
    return out


def main():
    ap = argparse.ArgumentParser(description=__doc__.split('\n')[0])
    ap.add_argument('harness', choices=('lapic', 'ioapic'))
    ap.add_argument('traces', nargs='+')
    ap.add_argument('--out', help='default tests/fuzz/corpus/HARNESS')
    ap.add_argument('--window', type=int, default=300)
    ap.add_argument('--max', type=int, default=12)
    a = ap.parse_args()
    out = a.out or os.path.join('tests/fuzz/corpus', a.harness)
    os.makedirs(out, exist_ok=True)
    for path in a.traces:
        trace = parse(path)
        if a.harness == 'lapic':
            # APIC IDs 0 and 1; x2APIC and TSC-deadline in CPUID (1 GHz
            # TSC in kHz: bits 5:2 = 15 -> 16 MHz), 1000 MHz timer
            conv, header = Lapic(), bytes([0, 1, 0x03 | (15 << 2)])
        else:
            # 2 vCPUs, the optimized policy, IOAPIC ID 0, LAPICs enabled
            conv, header = Ioapic(), bytes([1, 0])
        modes = conv.run(trace)
        name = os.path.splitext(os.path.basename(path))[0]
        for i, w in enumerate(windows(conv, modes, header, a.window, a.max)):
            dst = os.path.join(out, 'trace-%s-%02d' % (name, i))
            with open(dst, 'wb') as f:
                f.write(w)
            print('%-40s %6d bytes' % (dst, len(w)))
    return 0


if __name__ == '__main__':
    sys.exit(main())
