# SPDX-License-Identifier: MIT
"""Calibration benchmark: CPUID-frequency calibration against the PIT.

    guest-bench/calib-bench.py [-n BOOTS] [-q QEMU_BOOTS] [--no-qemu]
                               [-c CONFIG,...] [--rig] [--no-doc]

Boots the same kernel (build/kernel/irqlab.elf, no command line) BOOTS
times in each irqlab-vmm config, interleaved round by round so that host
noise falls on all of them alike:

    cpuid  irqlab-vmm --cpuid-freq=on   (leaves 0x15, 0x16, 0x40000010)
    pit    irqlab-vmm --cpuid-freq=off  (zeroed, as Hyper-V does)
    hv     irqlab-vmm --cpuid-freq=hv   (0x40000010 only)
    cpuid-kernel, pit-kernel   the first two with --irqchip=kernel (KVM's
           LAPIC and PIT: the calibration's accesses stay in the kernel)
    pmtimer, pmtimer-kernel    --cpuid-freq=off -a calib=pmtimer, user and
           kernel irqchip (the PM timer is irqlab's in both)
    hpet, hpet-kernel    --cpuid-freq=off --hpet=on -a calib=hpet, user
           and kernel irqchip (the HPET is irqlab's in both; MMIO reads)

(-c picks some of them; cpuid always runs, as the TSC's truth),

and, unless --no-qemu, QEMU_BOOTS times in two QEMU configs on the same
KVM, counting QEMU's userspace exits with perf's kvm:kvm_userspace_exit:

    qemu-pit  qemu-system-x86_64 -accel kvm -cpu MODEL
    qemu-hv   the same with -cpu MODEL,+invtsc,vmware-cpuid-freq=on

MODEL is what scripts/qemu-kvm-cpu found QEMU/KVM starts with here
(`host` where it can; QEMU 7.2's `-cpu host` aborts on some KVM hosts);
when none starts, the QEMU rows are skipped, loudly, with the reason.

For each boot it takes: the boot-to-ready time (from fork to the kernel's
@ready line on the VMM's stdout, read through a pipe with
CLOCK_MONOTONIC), the kernel's @calib record (source, tsc_khz, lapic_khz,
took_us, the window and whether the bound met its 1% target, and on
irqlab-vmm the exits of the calib phase, exact), and
irqlab-vmm's --stats-json (total exits, exits per phase).

Accuracy: lapic_khz against the true APIC timer rate, 1 GHz (irqlab-vmm's
--apic-mhz default and QEMU's); tsc_khz against the TSC rate irqlab-vmm
injects into CPUID 0x15 from KVM_GET_TSC_KHZ, read off the first cpuid
boot.

Where the host has no usable /dev/kvm, or with --rig, every boot runs
in the nested rig (tests/nested/README.md "The rig as a server"), QEMU
with -cpu host there; it says so, the host is named so in the report, and
boot-to-ready is then the whole command's time in the rig.

Output: a summary on stdout (medians, p10/p90), every boot's numbers in
bench-results/calib.json, and the guest's output of the last boot of
each config in bench-results/calib-<config>.out.  A run of every config
with the defaults (-n 50 -q 10) also writes the report as
docs/results/HOST-DATE-calib.md and lists it in docs/CALIB.md; --no-doc
leaves docs/ alone.  Exit status 0, 1 if a boot failed, 2 for bad usage
or a build output missing, 77 if neither /dev/kvm nor the rig can run.
"""
import argparse
import json
import os
import platform
import sys
import tempfile

from . import ROOT, boot, markdown, report, rigserver, stats

OUT = os.path.join(ROOT, 'bench-results')
RIG_TMP = os.path.join(ROOT, 'build', 'calib-bench')  # the rig writes here
RIG = None      # the rig's server, under --rig
APIC_KHZ = 1000000
TIMEOUT = 120

IRQLAB = {
    'cpuid': ['--cpuid-freq=on'],
    'pit': ['--cpuid-freq=off'],
    'hv': ['--cpuid-freq=hv'],
    'cpuid-kernel': ['--irqchip=kernel', '--cpuid-freq=on'],
    'pit-kernel': ['--irqchip=kernel', '--cpuid-freq=off'],
    'pmtimer': ['--cpuid-freq=off', '-a', 'calib=pmtimer'],
    'pmtimer-kernel': ['--irqchip=kernel', '--cpuid-freq=off', '-a',
                       'calib=pmtimer'],
    'hpet': ['--cpuid-freq=off', '--hpet=on', '-a', 'calib=hpet'],
    'hpet-kernel': ['--irqchip=kernel', '--cpuid-freq=off', '--hpet=on',
                    '-a', 'calib=hpet'],
}
# -cpu flags on the probed model (scripts/qemu-kvm-cpu --with)
QEMU_FLAGS = {
    'qemu-pit': '',
    'qemu-hv': '+invtsc,vmware-cpuid-freq=on',
}
QEMU_CPU = {}


def probe_cpu():
    """QEMU_CPU from the probed model: (model, None) or (None, why)."""
    if RIG:
        # the rig's KVM is kvm_amd on QEMU's emulated CPU: -cpu host
        # starts there (runner/matrix.py, tests/integration do the same)
        for cfg, flags in QEMU_FLAGS.items():
            QEMU_CPU[cfg] = 'host' + (',' + flags if flags else '')
        return 'host', None
    for cfg, flags in QEMU_FLAGS.items():
        cpu = boot.probe_cpu(flags)
        if not cpu.model:
            return None, cpu.why
        QEMU_CPU[cfg] = cpu.used
    return QEMU_CPU['qemu-pit'], None


def timed(cmd, want):
    """One boot: its numbers so far (a dict), the boot (boot.Result)."""
    r = boot.run_in_rig(RIG, cmd, TIMEOUT) if RIG else boot.run(cmd, TIMEOUT)
    run = {'status': r.rc, 'ready_ms': r.ready_ms}
    if r.rc != want or r.ready_ms is None:
        run['error'] = r.err.strip().splitlines()[-1:] or ['no @ready']
    return run, r


def calib_of(r):
    c = r.find('calib')
    return dict(c) if c is not None else None


def boot_irqlab(cfg, tmp):
    js = os.path.join(tmp, 'stats.json')
    run, r = timed(boot.vmm_cmd(cpus=1, args=['--stats-json', js] +
                                IRQLAB[cfg]), 0)
    if 'error' in run:
        return run, r.out
    with open(js) as f:
        st = json.load(f)
    run['exits_total'] = st['exits']['total']
    run['exits_calib_phase'] = st['exits']['by_phase']['calib']['total']
    run['vmm_own_kb'] = st['memory']['vmm_own_kb']
    run['calib'] = calib_of(r)
    return run, r.out


def boot_qemu(cfg, tmp):
    perf = os.path.join(tmp, 'perf.csv')
    run, r = timed(['perf', 'stat', '-x,', '-o', perf, '-e',
                    'kvm:kvm_userspace_exit'] +
                   boot.qemu_cmd(accel='kvm', cpu=QEMU_CPU[cfg], smp=1),
                   boot.QEMU_OK)
    if 'error' in run:
        return run, r.out
    with open(perf) as f:
        for line in f:
            fields = line.split(',')
            if len(fields) > 2 and fields[2] == 'kvm:kvm_userspace_exit':
                run['exits_total'] = int(fields[0])
    run['calib'] = calib_of(r)
    return run, r.out


def summary(v):
    """n, p10, p50 (the median), p90, min, max; None for no samples."""
    s = stats.summary(v)
    return s and {'n': s['n'], 'p10': s['p10'], 'p50': s['median'],
                  'p90': s['p90'], 'min': s['min'], 'max': s['max']}


def ppm(got, true):
    return abs(got - true) * 1e6 / true


def analyse(runs, tsc_true):
    out = {}
    for cfg, rs in runs.items():
        ok = [r for r in rs if 'error' not in r and r.get('calib')]
        c = [r['calib'] for r in ok]
        s = {'boots': len(rs), 'failed': len(rs) - len(ok),
             'source': sorted({x['source'] for x in c}),
             'ready_ms': summary([r['ready_ms'] for r in ok]),
             'exits_total': summary([r.get('exits_total') for r in ok]),
             'took_us': summary([int(x['took_us']) for x in c]),
             'window_us': summary([int(x['window_us']) for x in c]),
             'polls': summary([int(x['polls']) for x in c]),
             'tries': summary([int(x.get('tries', 1)) for x in c]),
             'kernel_pio': summary([int(x['pio']) for x in c]),
             'lapic_err_ppm': summary([ppm(int(x['lapic_khz']), APIC_KHZ)
                                       for x in c]),
             'lapic_bound_ppm': summary([int(x['lapic_err_ppm'])
                                         for x in c]),
             'widened': summary([int(x.get('widened', 0)) for x in c]),
             'bound': {b: sum(x.get('bound') == b for x in c)
                       for b in ('met', 'missed', 'fixed')},
             'within_bound': sum(ppm(int(x['lapic_khz']), APIC_KHZ) <=
                                 int(x['lapic_err_ppm']) + 1000000 / APIC_KHZ
                                 for x in c)}
        if tsc_true:
            s['tsc_err_ppm'] = summary([ppm(int(x['tsc_khz']), tsc_true)
                                        for x in c])
        for k in ('exits', 'pio_exits', 'apic_exits', 'mmio_exits'):
            vals = [x.get(k) for x in c]
            if vals and all(v not in (None, 'na') for v in vals):
                s['calib_' + k] = summary([int(v) for v in vals])
        if ok and 'exits_calib_phase' in ok[0]:
            s['exits_calib_phase'] = summary([r['exits_calib_phase']
                                              for r in ok])
        out[cfg] = s
    return out


def fmt(s, key, f='%.1f'):
    v = s.get(key)
    return '-' if not v else (f % v['p50'] + ' (' + f % v['p10'] + '-' +
                               f % v['p90'] + ')')


def fmax(s, key, f='%d'):
    v = s.get(key)
    return '-' if not v else f % v['max']


def table(res):
    rows = [('source', lambda s: ','.join(s['source']) or '-'),
            ('boots ok / failed', lambda s: '%d / %d' % (
                s['boots'] - s['failed'], s['failed'])),
            ('boot to @ready, ms', lambda s: fmt(s, 'ready_ms')),
            ('calib took, us', lambda s: fmt(s, 'took_us', '%d')),
            ('calib window, us', lambda s: fmt(s, 'window_us', '%d')),
            ('calib exits (irqlab, exact)',
             lambda s: fmt(s, 'calib_exits', '%d')),
            ('  of which port I/O', lambda s: fmt(s, 'calib_pio_exits', '%d')),
            ('  of which APIC', lambda s: fmt(s, 'calib_apic_exits', '%d')),
            ('  of which MMIO (the HPET; xAPIC registers)',
             lambda s: fmt(s, 'calib_mmio_exits', '%d')),
            ('kernel port accesses in calib',
             lambda s: fmt(s, 'kernel_pio', '%d')),
            ('reference polls', lambda s: fmt(s, 'polls', '%d')),
            ('tries', lambda s: fmt(s, 'tries', '%d')),
            ('window widened', lambda s: fmt(s, 'widened', '%d')),
            ('bound met / missed / fixed', lambda s: '%d / %d / %d' % (
                s['bound']['met'], s['bound']['missed'],
                s['bound']['fixed'])),
            ('userspace exits, whole boot',
             lambda s: fmt(s, 'exits_total', '%d')),
            ('lapic_khz error, ppm', lambda s: fmt(s, 'lapic_err_ppm', '%d')),
            ('  max', lambda s: fmax(s, 'lapic_err_ppm')),
            ('  its reported bound, ppm',
             lambda s: fmt(s, 'lapic_bound_ppm', '%d')),
            ('  within it', lambda s: '%d / %d' % (
                s['within_bound'], s['boots'] - s['failed'])),
            ('tsc_khz error, ppm', lambda s: fmt(s, 'tsc_err_ppm', '%d')),
            ('  max', lambda s: fmax(s, 'tsc_err_ppm'))]
    cfgs = list(res)
    lines = ['| | ' + ' | '.join(cfgs) + ' |',
             '|---' * (len(cfgs) + 1) + '|']
    for name, f in rows:
        lines.append('| %s | %s |' % (name, ' | '.join(f(res[c])
                                                       for c in cfgs)))
    return '\n'.join(lines)


def parse_args(argv):
    ap = argparse.ArgumentParser(
        prog='guest-bench/calib-bench.py',
        description='CPUID-frequency calibration against the PIT '
        '(median of many boots).',
        formatter_class=argparse.RawDescriptionHelpFormatter,
        epilog=__doc__.split('\n\n', 1)[1])
    ap.add_argument('-n', type=int, default=50, help='boots per irqlab '
                    'config (default 50)')
    ap.add_argument('-q', type=int, default=10, help='boots per QEMU '
                    'config (default 10; each takes seconds)')
    ap.add_argument('--no-qemu', action='store_true',
                    help='irqlab-vmm rows only')
    ap.add_argument('-c', '--configs', help='irqlab configs, comma-'
                    'separated (default: all of %s)' % ','.join(IRQLAB))
    ap.add_argument('--rig', action='store_true',
                    help='boot in the nested rig even where /dev/kvm is '
                    'usable (without it the rig is the default)')
    ap.add_argument('--no-doc', action='store_true',
                    help='write no docs/results/ file')
    a = ap.parse_args(argv)
    if a.n < 1 or a.q < 1:
        ap.error('-n and -q must be at least 1')
    a.full = not a.configs and not a.no_qemu and (a.n, a.q) == (50, 10)
    if a.configs:
        want = a.configs.split(',')
        bad = [c for c in want if c not in IRQLAB]
        if bad:
            ap.error('unknown config %s' % ','.join(bad))
        for c in list(IRQLAB):
            if c != 'cpuid' and c not in want:
                del IRQLAB[c]
    return a


def say(msg, end='\n'):
    print('calib-bench: ' + msg, file=sys.stderr, end=end, flush=True)


def want_qemu(a):
    """Whether the QEMU rows run here, and with which -cpu model."""
    qemu = boot.qemu_binary()
    if a.no_qemu:
        return None
    if not (boot.have(qemu) and boot.have('perf')):
        say('SKIP: QEMU rows: no %s or perf' % qemu)
        return None
    kvm_cpu, why = probe_cpu()
    if not kvm_cpu:
        say('SKIP: QEMU rows: %s' % why)
        return None
    say('QEMU/KVM -cpu %s (scripts/qemu-kvm-cpu)' % kvm_cpu)
    return kvm_cpu


def boot_all(a, kvm_cpu):
    """Every boot, round by round: (runs per config, the last output
    per config, how many failed)."""
    runs = {c: [] for c in list(IRQLAB) + (list(QEMU_CPU) if kvm_cpu
                                            else [])}
    last, bad = {}, 0
    groups = [('irqlab', a.n, IRQLAB, boot_irqlab)]
    if kvm_cpu:
        groups.append(('QEMU', a.q, QEMU_CPU, boot_qemu))
    if RIG:
        os.makedirs(RIG_TMP, exist_ok=True)
    with tempfile.TemporaryDirectory(prefix='calib-bench.',
                                     dir=RIG_TMP if RIG else None) as tmp:
        for label, rounds, cfgs, one in groups:
            for i in range(rounds):
                say('%s round %d/%d' % (label, i + 1, rounds), end='\r')
                for cfg in cfgs:
                    r, last[cfg] = one(cfg, tmp)
                    runs[cfg].append(r)
                    bad += 'error' in r
            print(file=sys.stderr)
    return runs, last, bad


def main(argv=None):
    a = parse_args(sys.argv[1:] if argv is None else argv)
    for f in (boot.VMM, boot.KERNEL, boot.KERNEL32):
        if not os.path.exists(f):
            say('%s is missing: run make first' % f)
            return 2
    global RIG
    if a.rig or not boot.kvm_usable():
        RIG = rigserver.RigServer(ROOT)
        say('%s: every boot runs in the nested rig (%s)' % (
            '--rig' if a.rig else 'no usable /dev/kvm here', RIG.log))
        try:
            RIG.start()
        except rigserver.RigError as e:
            say('SKIP: the nested rig cannot run here: %s' % e)
            return 77
    try:
        return bench(a)
    finally:
        if RIG:
            RIG.stop()


def bench(a):
    kvm_cpu = want_qemu(a)
    os.makedirs(OUT, exist_ok=True)
    runs, last, bad = boot_all(a, kvm_cpu)
    for cfg, text in last.items():
        with open(os.path.join(OUT, 'calib-%s.out' % cfg), 'w') as f:
            f.write(text)
    first = next((r['calib'] for r in runs['cpuid'] if r.get('calib')), None)
    tsc_true = first and int(first['tsc_khz'])
    res = analyse(runs, tsc_true)
    h = report.host_info()
    rev, model = h['git']['describe'], h['host']['cpu_model']
    host = {'cpu': model, 'cpus': os.cpu_count(),
            'kernel': platform.release(), 'date': h['date']}
    with open(os.path.join(OUT, 'calib.json'), 'w') as f:
        json.dump({'git': rev, 'host': host, 'tsc_khz_true': tsc_true,
                   'apic_khz_true': APIC_KHZ, 'qemu_kvm_cpu': kvm_cpu,
                   'qemu_cpu': QEMU_CPU if kvm_cpu else None,
                   'summary': res, 'runs': runs}, f, indent=1)
    kind = markdown.host_kind(rig=bool(RIG))
    md = report_md(a, res, runs, kind, model, rev, kvm_cpu)
    print(md, end='')
    if a.full and not a.no_doc:
        path = markdown.publish_run(md, kind, 'docs/CALIB.md',
                                    'make bench-calib', '-calib',
                                    'calib-results')
        say('wrote %s' % os.path.relpath(path, ROOT))
    elif not a.no_doc:
        say('not every config at the defaults: no docs/results/ file')
    return 1 if bad else 0


def report_md(a, res, runs, kind, model, rev, kvm_cpu):
    """The run in markdown: the host, the method, the table, failures."""
    out = ['Host: %s (%s), %d CPUs, Linux %s; %s.  %d irqlab-vmm boots per '
           'config and %d per QEMU config, interleaved round by round '
           '(docs/CALIB.md "The benchmark").  p50 (p10-p90).' % (
               model, kind, os.cpu_count(), platform.release(), rev, a.n,
               a.q if kvm_cpu else 0)]
    if RIG:
        out[0] += ('  Every boot ran in the nested rig (Linux\'s KVM under '
                   'QEMU TCG): boot to @ready is the whole command\'s '
                   'time there, the exit counts are exact.')
    if kvm_cpu:
        out.append('QEMU/KVM: %s; its userspace exits from perf\'s '
                   'kvm:kvm_userspace_exit.' % ', '.join(
                       '%s -cpu %s' % kv for kv in QEMU_CPU.items()))
    out += ['', table(res), '']
    for cfg, rs in runs.items():
        for r in rs:
            if 'error' in r:
                out.append('- failed: %s: status %s: %s' % (
                    cfg, r['status'], r['error'][0]))
    return '\n'.join(out) + '\n'

