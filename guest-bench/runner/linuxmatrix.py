# SPDX-License-Identifier: MIT
"""linux-bench --matrix and --profile: Debian's Linux on irqlab-vmm in
every irqchip mode, vCPU count and APIC mode, and its boot's exits with
and without the CPUID frequency leaves (docs/LINUX.md).

--matrix: one boot per cell of {2, 4} vCPUs (--matrix-cpus) x {user,
split, kernel} irqchip (--matrix-irqchips) x {xapic, x2apic}
(--matrix-apics; x2apic-pv is a third choice):
    xapic   irqlab-vmm's defaults (no paravirtual leaves) and `nox2apic`
            on Linux's command line.  (Without it Linux 6.1 declines the
            x2APIC anyway: with no interrupt remapping it enables x2APIC
            only under a hypervisor it knows, "x2apic: IRQ remapping
            doesn't support X2APIC mode".)
    x2apic  --kvm-pv=sig: KVM's signature at 0x40000100 with no feature,
            which is what makes Linux enable x2APIC without interrupt
            remapping (x86_init.hyper.x2apic_available), and nothing
            else: the same emulated timers as xapic.
    x2apic-pv  --kvm-pv=on: the signature and KVM's PV features
            (kvm-clock; with KVM's LAPIC, split and kernel, PV send-IPI).
Each boot runs `perf bench futex wake -t N` once (lg.bench) and prints
the kernel log's APIC and clock lines (lg.dmesg=apic).  A cell passes
when Linux reaches /init with every CPU online, in the APIC mode asked
for, LOC, RES and CAL are non-zero on every CPU at the end and LOC grew
on every CPU over the benchmark, @linux_done came and irqlab-vmm ended
with status 0 (ACPI S5).  A failed cell keeps its evidence: the status,
the last console lines.

--profile: user irqchip, 2 vCPUs, xAPIC, booted with --cpuid-freq on and
off, each with the CPU's own vendor string and with the other one
(--cpu-vendor; --profile-vendors, --profile-cpus, --profile-vmm-args
change it): Linux 6.1 takes the TSC and APIC timer rates from CPUID 0x15
only when the vendor is Intel (native_calibrate_tsc()).  irqlab-vmm's
exits by port, MMIO and MSR; in particular the LAPIC current-count reads
(TMCCT: lapic+0x390, x2APIC MSR 0x839), the PIT (0x40-0x43) and port
0x61 accesses, and the PM timer's (0x608).

Output: the table on stdout; bench-results/linux-matrix.json or
linux-profile.json; each boot's console in build/bench-linux/CELL.out,
its stderr in CELL.err and its --stats-json in CELL.json."""
import json
import os
import time

from . import linux, markdown, records

MATRIX_JSON = os.path.join(linux.ROOT, 'bench-results/linux-matrix.json')
PROFILE_JSON = os.path.join(linux.ROOT, 'bench-results/linux-profile.json')
APIC_MODES = {'xapic': ((), 'nox2apic'),
              'x2apic': (('--kvm-pv=sig',), ''),
              'x2apic-pv': (('--kvm-pv=on',), '')}
# The exits Linux's TSC and LAPIC timer calibration make, by key of
# --stats-json: (what, kind, key)
PROFILE_KEYS = [
    ('TMCCT, xAPIC', 'by_mmio', 'lapic+0x390'),
    ('TMCCT, x2APIC', 'by_msr', '0x839'),
    ('TMICT, xAPIC', 'by_mmio', 'lapic+0x380'),
    ('TSC deadline', 'by_msr', '0x6e0'),
    ('PIT ch0', 'by_port', '0x40'),
    ('PIT ch2', 'by_port', '0x42'),
    ('PIT mode', 'by_port', '0x43'),
    ('port 0x61', 'by_port', '0x61'),
    ('PM timer', 'by_port', '0x608'),
    ('RTC 0x70', 'by_port', '0x70'),
    ('RTC 0x71', 'by_port', '0x71'),
]


class Cell:
    def __init__(self, name, irqchip, smp, apic, vmm_args, append):
        self.name, self.irqchip, self.smp, self.apic = name, irqchip, smp, apic
        self.vmm_args, self.append = list(vmm_args), append
        self.state = 'ok'
        self.why = []
        self.status = None
        self.init_s = None
        self.cpus = None
        self.clocksource = None
        self.clockevent = None
        self.x2apic = None
        self.apic_routing = None
        self.tsc_mhz = None
        self.irq_end = {}
        self.irq_delta = {}
        self.exits = None
        self.wall_s = None
        self.stats = None
        self.klog = []
        self.tail = []
        self.rig_fault = None   # the first boot's, when it was booted again

    def as_dict(self):
        d = dict(vars(self))
        d.pop('stats')
        return d


def boot_cell(a, cell, bench, grow=True):
    """Boot @cell's irqlab-vmm with the Linux guest, running @bench;
    @grow: LOC must grow on every CPU over it."""
    js = os.path.join(linux.OUT, cell.name + '.json')
    if os.path.exists(js):
        os.unlink(js)
    append = '%s quiet %s lg.dmesg=apic lg.bench="%s"' % (
        linux.APPEND, cell.append, bench)
    res, cell.rig_fault = linux.boot_irqlab_linux(
        a, cell.name, linux.irqlab_how(a), cell.irqchip, cell.smp, append,
        js, cell.vmm_args)
    linux.save(cell.name, res)
    cell.status = res.status
    lines = [l.rstrip() for l in res.out.splitlines() if l.strip()]
    cell.klog = [l[len('dmesg: '):] for l in lines if l.startswith('dmesg: ')]
    cell.tail = [l for l in lines if not l.startswith('dmesg: ')][-5:]
    try:
        with open(js) as f:
            cell.stats = json.load(f)
        cell.exits = cell.stats['exits']['total']
        cell.wall_s = cell.stats.get('wall_ns', 0) / 1e9 or None
    except (OSError, ValueError, KeyError, TypeError):
        pass
    if res.status == 77:
        cell.state = 'skipped'
        cell.why.append(next((l for l in (res.out + res.err).splitlines()
                              if l.startswith('SKIP')), 'SKIP: the rig'))
        return res
    run = records.linux_run(res.out)
    judge(cell, run, res, grow)
    return res


def judge(cell, run, res, grow):
    """Fill @cell from the boot's records and say what failed."""
    bad = cell.why
    if run.boot is None:
        bad.append('no /init (no @linux): %s' % res.describe())
    else:
        b = run.boot
        cell.init_s = b.num('uptime_s')
        cell.cpus = b.num('cpus')
        cell.clocksource = b.get('clocksource')
        cell.clockevent = run.clockevent
        cell.x2apic = b.num('x2apic')
        cell.apic_routing = b.get('apic')
        cell.tsc_mhz = b.get('tsc_mhz')
        if cell.cpus != cell.smp:
            bad.append('%s CPUs of %d' % (cell.cpus, cell.smp))
        want = 1 if cell.apic.startswith('x2apic') else 0
        if cell.x2apic != want:
            bad.append('x2apic=%s, wanted %d' % (cell.x2apic, want))
        end = run.irqs.get('end', {})
        for cpu in range(cell.smp):
            e = end.get(cpu)
            if not e:
                bad.append('no end counts for CPU %d' % cpu)
                continue
            cell.irq_end[cpu] = {k: e.get(k) for k in run.IRQ_KEYS}
            cell.irq_delta[cpu] = {k: run.irq_delta(cpu, k)
                                   for k in run.IRQ_KEYS}
            zero = [k for k in run.IRQ_KEYS if not e.get(k)]
            if zero:
                bad.append('CPU %d: %s zero' % (cpu, '/'.join(zero)))
            if grow and not cell.irq_delta[cpu].get('loc'):
                bad.append('CPU %d: LOC did not grow' % cpu)
        if not run.finished():
            bad.append('no @linux_done failed=0')
    if res.status != 0:
        bad.append('status %s (%s)' % (res.status, res.describe()))
    if bad:
        cell.state = 'FAILED' if run.boot is not None else 'NO BOOT'


def icr_text(cell):
    """The ICR's exits (irqlab's LAPIC only): xAPIC ICR (read for the
    busy bit, and written) + ICR2 (written), or the x2APIC ICR MSR."""
    ex = (cell.stats or {}).get('exits', {})
    mm, msr = ex.get('by_mmio', {}), ex.get('by_msr', {})
    x = mm.get('lapic+0x300', 0) + mm.get('lapic+0x310', 0)
    x2 = msr.get('0x830', 0)
    if not cell.stats or not (x or x2):
        return '-'
    return ('0x300+0x310: %d + %d' % (mm.get('lapic+0x300', 0),
                                      mm.get('lapic+0x310', 0))
            if x else 'MSR 0x830: %d' % x2)


def irq_text(cell):
    """LOC/RES/CAL at the end, per CPU, as a/b/c a/b/c..."""
    return ' '.join('%s/%s/%s' % (d['loc'], d['res'], d['cal'])
                    for _, d in sorted(cell.irq_end.items())) or '-'


def mode_text(cell):
    """What Linux said of its APIC: the x2apic record and the log."""
    if cell.x2apic is None:
        return '-'
    said = [l for l in cell.klog if 'x2apic' in l.lower() and
            'command line' not in l.lower()]
    return '%s%s' % ('x2apic' if cell.x2apic else 'xapic',
                     ' (%s)' % said[-1].split('] ', 1)[-1] if said else '')


def fmt(v, f='%.1f'):
    return '-' if v is None else f % v


def md_table(head, rows):
    w = [max(len(str(r[i])) for r in [head] + rows) for i in range(len(head))]
    out = ['| ' + ' | '.join(str(c).ljust(w[i]) for i, c in enumerate(r)) +
           ' |' for r in [head] + rows]
    out.insert(1, '|' + '|'.join('-' * (n + 2) for n in w) + '|')
    return '\n'.join(out)


def matrix(a):
    cells = []
    for smp in a.matrix_cpus:
        for chip in a.matrix_irqchips:
            for apic in a.matrix_apics:
                vmm, app = APIC_MODES[apic]
                cells.append(Cell('matrix-%s-%d-%s' % (chip, smp, apic),
                                  chip, smp, apic, list(vmm) + a.vmm_args,
                                  app))
    for c in cells:
        t0 = time.monotonic()
        linux.say('linux-bench: %s ...' % c.name)
        boot_cell(a, c, 'perf bench futex wake -t %d' % c.smp)
        linux.say('linux-bench: %s: %s in %.0f s%s' % (
            c.name, c.state, time.monotonic() - t0,
            ': ' + '; '.join(c.why) if c.why else ''))
    head = ['irqchip', 'vCPUs', 'APIC', 'irqlab-vmm', 'Linux mode (its log)',
            'clocksource', 'clockevent/broadcast', '/init s',
            'LOC/RES/CAL per CPU at the end',
            'ICR exits', 'exits', 'status', 'state']
    rows = [[c.irqchip, c.smp, c.apic, ' '.join(c.vmm_args) or 'default',
             mode_text(c), c.clocksource or '-', c.clockevent or '-',
             fmt(c.init_s),
             irq_text(c), icr_text(c),
             c.exits if c.exits is not None else '-',
             c.status, c.state + (' (second boot)' if c.rig_fault else '')]
            for c in cells]
    md = [md_table(head, rows), '']
    for c in cells:
        if c.rig_fault:
            md.append('- %s: booted twice, the first boot showed the nested '
                      'rig\'s fault: %s' % (c.name, c.rig_fault))
        if c.why:
            md.append('- %s: %s: %s' % (c.name, c.state, '; '.join(c.why)))
            md += ['  | ' + l for l in c.tail]
    linux.say('')
    linux.say('\n'.join(md))
    write(MATRIX_JSON, a, cells)
    if a.matrix_full and not a.no_doc:
        publish(cells, md, '-linuxmatrix', 'make bench-linux '
                'LINUX_BENCH_ARGS=--matrix', 'matrix')
    return 1 if any(c.state not in ('ok', 'skipped') for c in cells) else 0


def phase_exits(cell, phase):
    ph = (cell.stats or {}).get('exits', {}).get('by_phase', {})
    return ph.get(phase, {}).get('total', '-')


def profile_counts(cell):
    ex = (cell.stats or {}).get('exits', {})
    return {what: ex.get(kind, {}).get(key, 0)
            for what, kind, key in PROFILE_KEYS}


def guest_vendor():
    """The vendor string of the CPU irqlab-vmm's guest runs on: the host's
    where /dev/kvm is real, the nested rig's (QEMU's qemu64: AMD) else."""
    if linux.host_kvm()[0] != 'real':
        return 'amd'
    try:
        with open('/proc/cpuinfo') as f:
            return 'intel' if 'GenuineIntel' in f.read(4096) else 'amd'
    except OSError:
        return 'amd'


def profile_vendors(names):
    """--profile-vendors as --cpu-vendor values, 'other' resolved, each
    once, the CPU's own vendor as 'host'."""
    own = guest_vendor()
    out = []
    for v in names:
        v = {'other': 'amd' if own == 'intel' else 'intel'}.get(v, v)
        v = 'host' if v == own else v
        if v not in out:
            out.append(v)
    return out


def profile(a):
    cells = []
    for vendor in profile_vendors(a.profile_vendors):
        for freq in ('on', 'off'):
            pre = '' if vendor == 'host' else vendor + '-'
            c = Cell('profile-%scpuid-freq-%s' % (pre, freq), 'user',
                     a.profile_cpus, 'xapic',
                     ['--cpuid-freq=' + freq, '--cpu-vendor=' + vendor] +
                     a.profile_vmm_args + a.vmm_args, 'nox2apic')
            if any(v in c.vmm_args for v in ('--kvm-pv=on', '--kvm-pv=sig')):
                c.apic, c.append = 'x2apic', ''
            cells.append(c)
    for c in cells:
        t0 = time.monotonic()
        linux.say('linux-bench: %s ...' % c.name)
        boot_cell(a, c, 'true', grow=False)
        linux.say('linux-bench: %s: %s in %.0f s%s' % (
            c.name, c.state, time.monotonic() - t0,
            ': ' + '; '.join(c.why) if c.why else ''))
    head = ['exits'] + [c.name[len('profile-'):] for c in cells]
    rows = [['total'] + [c.exits if c.exits is not None else '-'
                         for c in cells]]
    # /init moves irqlab-vmm to its "bench" phase: before it, the boot
    rows += [[what] + [phase_exits(c, ph) for c in cells]
             for what, ph in (('boot, to /init (phase early)', 'early'),
                              ('/init on (phase bench)', 'bench'))]
    counts = [profile_counts(c) for c in cells]
    rows += [[what] + [n[what] for n in counts] for what, _, _ in
             PROFILE_KEYS]
    rows += [['clocksource'] + [c.clocksource or '-' for c in cells],
             ['tsc MHz'] + [c.tsc_mhz or '-' for c in cells],
             ['/init s'] + [fmt(c.init_s) for c in cells],
             ['state'] + [c.state for c in cells]]
    md = [md_table(head, rows)]
    for c in cells:
        md.append('')
        md.append('- %s: the most exits: %s' % (
            c.name, linux.top_exits((c.stats or {}).get('exits', {}), 12)))
        for l in c.klog:
            if any(w in l.lower() for w in ('tsc', 'calibrat', 'apic timer',
                                             'pit', 'lapic')):
                md.append('  - dmesg: `%s`' % l)
        if c.why:
            md.append('  - %s: %s' % (c.state, '; '.join(c.why)))
    linux.say('')
    linux.say('\n'.join(md))
    write(PROFILE_JSON, a, cells)
    if a.profile_full and not a.no_doc:
        publish(cells, md, '-linuxprofile', 'make bench-linux '
                'LINUX_BENCH_ARGS=--profile', 'profile')
    return 1 if any(c.state not in ('ok', 'skipped') for c in cells) else 0


def publish(cells, md, tag, what, section):
    """docs/results/HOST-DATE-TAG.md, listed in docs/LINUX.md's section."""
    kind, why = linux.host_kvm()
    rig = kind != 'real'
    head = ('Host: %s; /dev/kvm: %s (%s)%s.  Guest: %s, %d MiB.  One boot '
            'per column or row (docs/LINUX.md).\n\n' % (
                linux.host_name(), kind, why,
                '; every boot in the nested rig' if rig else '',
                linux.guest_kernel(), linux.MEM_MB))
    path = markdown.publish_run(
        head + '\n'.join(md) + '\n', markdown.host_kind(rig=rig),
        'docs/LINUX.md', what, tag, 'linux-' + section)
    linux.say('linux-bench: wrote %s' % linux.rel(path))


def write(path, a, cells):
    kind, why = linux.host_kvm()
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, 'w') as f:
        json.dump({'date': time.strftime('%Y-%m-%dT%H:%M:%SZ', time.gmtime()),
                   'host': linux.host_name(), 'kvm': [kind, why],
                   'cells': [c.as_dict() for c in cells]}, f, indent=1)
    linux.say('linux-bench: %s' % linux.rel(path))
