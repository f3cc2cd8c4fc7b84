# SPDX-License-Identifier: MIT
"""make lab-refs: each handout's reference numbers, measured (docs/labs/
README.md "Reference numbers").  Each lab's "Measure and explain" runs
RUNS times, here or in the nested rig (lab.Machine), and each number is
reported as its median with its range over the runs, the host named.
The report goes to docs/results/HOST-DATE-labrefs.md, listed in
docs/labs/README.md: the one place these numbers live, so no two
documents can give two numbers for one measurement.

A measurement is (what, irqlab-vmm arguments or None for make bench-pir,
a function of (records, --stats-json) to {name: number})."""
import json
import os
import statistics

from runner import records

RUNS = 5


def _rec(recs, name, **match):
    r = records.find(recs, name, **match)
    if r is None:
        raise KeyError('no @%s %s' % (name, match))
    return r


def _num(r, k):
    return float(r.num(k))


def exits(recs, js):
    e = js['exits']
    out = {'exits': e['total']}
    for k in ('IO', 'MMIO', 'X86_RDMSR', 'X86_WRMSR', 'HLT'):
        out[k] = e['by_reason'].get(k, 0)
    out['ports'] = len(e['by_port'])
    return out


def calib(source):
    def get(recs, js):
        c = _rec(recs, 'calib', source=source)
        # irqlab-vmm's APIC timer runs at 1 GHz (--apic-mhz)
        return {'APIC timer off the true rate, ppm':
                abs(_num(c, 'lapic_khz') - 1e6) / 1e6 * 1e6,
                'its own error bound, ppm': _num(c, 'lapic_err_ppm'),
                'port-I/O exits': _num(c, 'pio_exits'),
                'exits': _num(c, 'exits'), 'took us': _num(c, 'took_us')}
    return get


def bench(*cases):
    def get(recs, js):
        out = {}
        for case in cases:
            b = _rec(recs, 'bench', case=case)
            out['%s p50 us' % case] = _num(b, 'p50_ns') / 1000
            out['%s p99 us' % case] = _num(b, 'p99_ns') / 1000
            out['%s exits/op' % case] = _num(b, 'exits_per_op')
            if 'send_exits' in b:
                out['%s send exits/op' % case] = _num(b, 'send_exits')
        return out
    return get


def rotate(recs, js):
    out = {}
    for r in records.find_all(recs, 'ioapic_rotate'):
        m = r.get('mode', '?')
        out['%s writes' % m] = _num(r, 'writes')
        out['%s us a write' % m] = _num(r, 'ns_per_write') / 1000
        out['%s TMR updates' % m] = _num(r, 'tmr_updates')
        out['%s remote TMR updates' % m] = _num(r, 'remote_tmr_updates')
    return out


def pir(recs, js):
    b = _rec(recs, 'bench_pir')
    return {k: _num(b, k) for k in ('empty_checked_ns', 'empty_always_ns',
                                    'one_checked_ns', 'one_always_ns')}


REFS = {
    'exits': [('the boot\'s exits, xAPIC, 2 vCPUs',
               ['--cpus', '2', '-a', 'apic=xapic'], exits)],
    'pit': [('PIT calibration (--cpuid-freq=off)',
             ['--cpuid-freq=off', '-a', 'calib=pit'], calib('pit'))],
    'lapic-timer': [('bench=timer', ['--cpus', '2', '-a',
                                     'bench=timer iters=200'],
                     bench('timer.oneshot', 'timer.tsc_deadline'))],
    'ipi': [('ipi_pingpong, xAPIC', ['--cpus', '2', '-a',
             'bench=ipi_pingpong iters=200 apic=xapic'],
             bench('ipi_pingpong')),
            ('ipi_pingpong, x2APIC', ['--cpus', '2', '-a',
             'bench=ipi_pingpong iters=200 apic=x2apic'],
             bench('ipi_pingpong'))],
    'ioapic': [('bench=ioapic_rotate, 4 vCPUs', ['--cpus', '4', '-a',
                'bench=ioapic_rotate iters=1000'], rotate),
               ('the same, --ioapic naive', ['--cpus', '4', '--ioapic',
                'naive', '-a', 'bench=ioapic_rotate iters=1000'], rotate)],
    'pir': [('make bench-pir (on the host, no VM)', None, pir)],
    'calib': [('calib=all: CPUID 0x15', ['-a', 'calib=all'],
               calib('cpuid15')),
              ('calib=all: CPUID 0x16', ['-a', 'calib=all'],
               calib('cpuid16')),
              ('calib=all: 0x40000010', ['-a', 'calib=all'], calib('hv')),
              ('calib=all: the PIT', ['-a', 'calib=all'], calib('pit')),
              ('calib=all: the PM timer', ['-a', 'calib=all'],
               calib('pmtimer'))],
    'ipi-bench': [('bench=ipi_wake', ['--cpus', '2', '-a',
                   'bench=ipi_wake iters=1000'], bench('ipi_wake'))],
}


def measure(lab, machine, out_dir, runs=RUNS, say=print):
    """{what: {name: [value per run]}} for @lab's measurements.  Those
    with the same arguments read the same boots (calib=all gives every
    source's @calib in one): run i of each is boot i of the arguments."""
    from runner import boot
    got, booted = {}, {}
    for what, args, get in REFS[lab]:
        vals = got.setdefault(what, {})
        for i in range(runs):
            key = (tuple(args) if args is not None else None, i)
            if key in booted:
                out, st = booted[key]
            elif args is None:
                r = boot.run([os.path.join(boot.BUILD, 'pir-bench')], 300)
                out, st = r.out, {}
            else:
                base = os.path.join(out_dir, '%s-%d' % (lab, len(booted)))
                js = base + '.json'
                r = machine.run([boot.VMM, '--stats-json', js] + args +
                                [boot.KERNEL], 300, base)
                if r is None:
                    say('lab-refs: %s: %s' % (lab, machine.why))
                    return got
                try:
                    with open(js) as f:
                        st = json.load(f)
                except (OSError, ValueError):
                    st = {}
                out = r.out
            booted[key] = out, st
            try:
                one = get(records.parse_text(out), st)
            except (KeyError, ValueError, TypeError) as e:
                say('lab-refs: %s: %s, run %d: %s' % (lab, what, i + 1, e))
                continue
            for k, v in one.items():
                vals.setdefault(k, []).append(v)
        say('lab-refs: %s: %s: %d runs' % (lab, what, max(
            [len(v) for v in vals.values()] or [0])))
    return got


def _fmt(x):
    return '%.0f' % x if abs(x) >= 100 or x == int(x) else '%.2f' % x


def report(results, host, runs=RUNS):
    """The markdown of {lab: measure()}."""
    out = ['Host: %s.  Each measurement ran %d times; a row gives the '
           'median, and the least and the most.  The commands are the '
           'handouts\' "Measure and explain" (labs/refs.py).' % (
               host, runs), '']
    for lab, got in results.items():
        out += ['## %s' % lab, '']
        for what, vals in got.items():
            out += ['**%s**' % what, '', '| number | median | range |',
                    '|---|---:|---|']
            for k, v in vals.items():
                out.append('| %s | %s | %s - %s (%d runs) |' % (
                    k, _fmt(statistics.median(v)), _fmt(min(v)),
                    _fmt(max(v)), len(v)))
            out.append('')
    return '\n'.join(out)
