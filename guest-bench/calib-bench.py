#!/usr/bin/env python3
"""Calibration benchmark (issue 5): CPUID-frequency calibration against the PIT.

    guest-bench/calib-bench.py [-n BOOTS] [-q QEMU_BOOTS] [--no-qemu]
                               [-c CONFIG,...]

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

Output: a summary on stdout (medians, p10/p90), every boot's numbers in
bench-results/calib.json, and the guest's output of the last boot of
each config in bench-results/calib-<config>.out.  Exit status 0, 1 if a
boot failed, 2 for bad usage, 77 if something needed is missing.
"""
import argparse
import json
import os
import platform
import re
import shutil
import statistics
import subprocess
import sys
import tempfile
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
VMM = os.path.join(ROOT, 'build/irqlab-vmm')
KERNEL = os.path.join(ROOT, 'build/kernel/irqlab.elf')
KERNEL32 = os.path.join(ROOT, 'build/kernel/irqlab32.elf')
OUT = os.path.join(ROOT, 'bench-results')
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
}
# -cpu flags on the probed model (scripts/qemu-kvm-cpu --with)
QEMU_FLAGS = {
    'qemu-pit': '',
    'qemu-hv': '+invtsc,vmware-cpuid-freq=on',
}
QEMU_CPU = {}
PROBE = os.path.join(ROOT, 'scripts/qemu-kvm-cpu')


def probe_cpu():
    """QEMU_CPU from the probed model: (model, None) or (None, why)."""
    for cfg, flags in QEMU_FLAGS.items():
        p = subprocess.run([PROBE, '--with', flags], capture_output=True,
                           text=True, cwd=ROOT)
        if p.returncode:
            return None, (p.stderr.strip().splitlines() or ['status %d' %
                                                              p.returncode])[-1]
        QEMU_CPU[cfg] = p.stdout.strip()
    return QEMU_CPU['qemu-pit'], None


def record(text, name):
    m = re.search(r'^@%s (.*)$' % name, text, re.M)
    return dict(re.findall(r'(\w+)=(\S+)', m.group(1))) if m else None


def timed(cmd):
    """Run cmd; return (ready seconds or None, stdout text, status)."""
    t0 = time.monotonic()
    p = subprocess.Popen(cmd, stdout=subprocess.PIPE,
                         stderr=subprocess.PIPE, text=True, cwd=ROOT)
    ready, lines = None, []
    for line in p.stdout:
        if ready is None and line.startswith('@ready'):
            ready = time.monotonic() - t0
        lines.append(line)
    try:
        p.wait(TIMEOUT)
    except subprocess.TimeoutExpired:
        p.kill()
        p.wait()
    err = p.stderr.read()
    return ready, ''.join(lines), p.returncode, err


def boot_irqlab(cfg, tmp):
    js = os.path.join(tmp, 'stats.json')
    ready, text, rc, err = timed([VMM, '--stats-json', js] + IRQLAB[cfg] +
                                 [KERNEL])
    run = {'status': rc, 'ready_ms': ready and ready * 1e3}
    if rc != 0 or ready is None:
        run['error'] = err.strip().splitlines()[-1:] or ['no @ready']
        return run, text
    st = json.load(open(js))
    run['exits_total'] = st['exits']['total']
    run['exits_calib_phase'] = st['exits']['by_phase']['calib']['total']
    run['vmm_own_kb'] = st['memory']['vmm_own_kb']
    run['calib'] = record(text, 'calib')
    return run, text


def boot_qemu(cfg, tmp):
    perf = os.path.join(tmp, 'perf.csv')
    cmd = ['perf', 'stat', '-x,', '-o', perf, '-e', 'kvm:kvm_userspace_exit',
           'qemu-system-x86_64', '-accel', 'kvm', '-cpu', QEMU_CPU[cfg],
           '-m', '64', '-kernel', KERNEL32, '-serial', 'stdio',
           '-display', 'none', '-nodefaults', '-no-reboot',
           '-device', 'isa-debug-exit,iobase=0xf4,iosize=4']
    ready, text, rc, err = timed(cmd)
    # the kernel's kernel_exit(0) through isa-debug-exit: (0 << 1) | 1
    run = {'status': rc, 'ready_ms': ready and ready * 1e3}
    if rc != 1 or ready is None:
        run['error'] = err.strip().splitlines()[-1:] or ['no @ready']
        return run, text
    for line in open(perf):
        f = line.split(',')
        if len(f) > 2 and f[2] == 'kvm:kvm_userspace_exit':
            run['exits_total'] = int(f[0])
    run['calib'] = record(text, 'calib')
    return run, text


def pct(v, p):
    """Nearest-rank percentile of a non-empty list."""
    s = sorted(v)
    k = max(1, -(-len(s) * p // 100))
    return s[int(k) - 1]


def summary(v):
    v = [x for x in v if x is not None]
    if not v:
        return None
    return {'n': len(v), 'p10': pct(v, 10), 'p50': statistics.median(v),
            'p90': pct(v, 90), 'min': min(v), 'max': max(v)}


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
        for k in ('exits', 'pio_exits', 'apic_exits'):
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
            ('kernel port accesses in calib',
             lambda s: fmt(s, 'kernel_pio', '%d')),
            ('PIT polls', lambda s: fmt(s, 'polls', '%d')),
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


def main():
    ap = argparse.ArgumentParser(
        description='CPUID-frequency calibration against the PIT '
        '(median of many boots).')
    ap.add_argument('-n', type=int, default=50, help='boots per irqlab '
                    'config (default 50)')
    ap.add_argument('-q', type=int, default=10, help='boots per QEMU '
                    'config (default 10; each takes seconds)')
    ap.add_argument('--no-qemu', action='store_true')
    ap.add_argument('-c', '--configs', help='irqlab configs, comma-'
                    'separated (default: all of %s)' % ','.join(IRQLAB))
    a = ap.parse_args()
    if a.n < 1 or a.q < 1:
        ap.error('-n and -q must be at least 1')
    if a.configs:
        want = a.configs.split(',')
        bad = [c for c in want if c not in IRQLAB]
        if bad:
            ap.error('unknown config %s' % ','.join(bad))
        for c in list(IRQLAB):
            if c != 'cpuid' and c not in want:
                del IRQLAB[c]
    for f in (VMM, KERNEL, KERNEL32):
        if not os.path.exists(f):
            sys.exit('calib-bench: %s is missing: run make first' % f)
    if not os.access('/dev/kvm', os.R_OK | os.W_OK):
        print('calib-bench: no usable /dev/kvm', file=sys.stderr)
        sys.exit(77)
    qemu = not a.no_qemu
    if qemu and not (shutil.which('qemu-system-x86_64') and
                     shutil.which('perf')):
        print('calib-bench: no qemu-system-x86_64 or perf: QEMU rows '
              'skipped', file=sys.stderr)
        qemu = False
    kvm_cpu = None
    if qemu:
        kvm_cpu, why = probe_cpu()
        if not kvm_cpu:
            print('calib-bench: SKIP: QEMU rows: %s' % why, file=sys.stderr)
            qemu = False
        else:
            print('calib-bench: QEMU/KVM -cpu %s (scripts/qemu-kvm-cpu)' %
                  kvm_cpu, file=sys.stderr)
    os.makedirs(OUT, exist_ok=True)
    runs = {c: [] for c in list(IRQLAB) + (list(QEMU_CPU) if qemu else [])}
    last = {}
    tmp = tempfile.mkdtemp(prefix='calib-bench.')
    bad = 0
    groups = [('irqlab', a.n, IRQLAB, boot_irqlab)]
    if qemu:
        groups.append(('QEMU', a.q, QEMU_CPU, boot_qemu))
    for label, rounds, cfgs, boot in groups:
        for i in range(rounds):
            print('calib-bench: %s round %d/%d' % (label, i + 1, rounds),
                  file=sys.stderr, end='\r')
            for cfg in cfgs:
                r, last[cfg] = boot(cfg, tmp)
                runs[cfg].append(r)
                bad += 'error' in r
        print(file=sys.stderr)
    shutil.rmtree(tmp, ignore_errors=True)
    for cfg, text in last.items():
        open(os.path.join(OUT, 'calib-%s.out' % cfg), 'w').write(text)
    first = next((r['calib'] for r in runs['cpuid'] if r.get('calib')), None)
    tsc_true = first and int(first['tsc_khz'])
    res = analyse(runs, tsc_true)
    rev = subprocess.run(['git', 'describe', '--always', '--dirty'],
                         capture_output=True, text=True, cwd=ROOT).stdout
    model = next((l.split(':', 1)[1].strip() for l in open('/proc/cpuinfo')
                  if l.startswith('model name')), '?')
    host = {'cpu': model, 'cpus': os.cpu_count(),
            'kernel': platform.release(), 'date':
            time.strftime('%Y-%m-%dT%H:%M:%SZ', time.gmtime())}
    json.dump({'git': rev.strip(), 'host': host, 'tsc_khz_true': tsc_true,
               'apic_khz_true': APIC_KHZ, 'qemu_kvm_cpu': kvm_cpu,
               'qemu_cpu': QEMU_CPU if qemu else None,
               'summary': res, 'runs': runs},
              open(os.path.join(OUT, 'calib.json'), 'w'), indent=1)
    print('host: %s, %d CPUs, Linux %s; %s; %d irqlab boots per config, '
          '%d QEMU; p50 (p10-p90)' % (model, os.cpu_count(),
                                      platform.release(), rev.strip(), a.n,
                                      a.q if qemu else 0))
    if qemu:
        print('QEMU/KVM: %s' % ', '.join('%s -cpu %s' % kv
                                         for kv in QEMU_CPU.items()))
    print(table(res))
    for cfg, rs in runs.items():
        for r in rs:
            if 'error' in r:
                print('failed: %s: status %s: %s' % (cfg, r['status'],
                                                     r['error'][0]))
    sys.exit(1 if bad else 0)


if __name__ == '__main__':
    main()
