# SPDX-License-Identifier: MIT
"""make bench-linux: `perf bench futex wake` in Debian's stock Linux, on
irqlab-vmm and its peers (docs/LINUX.md).

    guest-bench/linux-bench [--rows LIST] [--smp N] [--irqlab HOW]
                            [--qemu-kvm HOW] [--tcg-limit S]
                            [--kvm-limit S] [--vmm-limit S]
    guest-bench/linux-bench --matrix [--matrix-cpus 2,4]
                            [--matrix-irqchips user,split,kernel]
                            [--matrix-apics xapic,x2apic]
    guest-bench/linux-bench --profile [--profile-cpus N]
                            [--profile-vmm-args ARGS]

--matrix and --profile (runner/linuxmatrix.py): the boot matrix of
irqchip x vCPUs x xAPIC/x2APIC, and the boot's exit profile with and
without the CPUID frequency leaves; their own tables and JSON files.

Rows (--rows, comma-separated, default all):
    native         perf bench futex wake -t 1 on the host itself (the
                   host's perf, else make linux-guest's copy; without
                   either, build/native-futex's futex_wake row, said so)
    irqlab-user, irqlab-split, irqlab-kernel
                   irqlab-vmm --irqchip=MODE booting build/linux-guest/
                   bzImage and initramfs.gz: directly where /dev/kvm is
                   real VMX or SVM, else (kvm_pvm, or no /dev/kvm) inside
                   the nested rig (tests/nested/run-in-kvm.sh); --irqlab
                   direct|nested forces one
    qemu-tcg       qemu-system-x86_64 -accel tcg (multi-threaded)
    qemu-kvm       -accel kvm, where the irqlab-vmm rows boot (--qemu-kvm
                   direct|nested forces one): directly with -cpu the
                   model scripts/qemu-kvm-cpu finds (--qemu-kvm direct on
                   kvm_pvm: a stock kernel crawls in KVM's instruction
                   emulator, and after --kvm-limit seconds the row says
                   "did not boot" with the last console line); in the
                   nested rig with -cpu host,-kvm-pv-eoi (the rig's KVM
                   stalls Linux with PV EOI), perf stat counting the
                   rig's KVM exits
    qemu-kvm-split the same with -machine kernel_irqchip=split

Each guest boots once with N vCPUs (--smp, default 2) and runs the
default lines of guest-bench/linux/init: perf bench futex wake -t 1 and
-t N (perf 6.1 repeats each 10 times and prints the mean).  For each
row: the mean wake in ms of -t 1 and -t N with perf's relative standard
error, boot to /init (the guest's /proc/uptime at /init, and the host's
time from the start to the @linux line where the console comes straight
back), the guest's LOC/RES/CAL deltas over the benchmarks, and exits
(irqlab-vmm's --stats-json exits.total; QEMU/KVM's kvm:kvm_exit from
`perf stat` where it can count it).

Output: the table on stdout, bench-results/linux.json, each boot's
console in build/bench-linux/ROW.out (stderr: ROW.err).  A run of every
row at the defaults also writes the table and each row's method as
docs/results/HOST-DATE-linux.md, listed in docs/LINUX.md "Numbers"
(--no-doc does not).  Exit status 0,
1 if a row that could run failed, 2 bad usage, 77 SKIP (no linux guest:
make linux-guest could not fetch it).
"""
import bisect
import json
import os
import platform
import re
import shutil
import subprocess
import time

from . import ROOT, arg_parser, boot, markdown, qmp, records, rigserver

GUEST = os.path.join(ROOT, 'build/linux-guest')
BZIMAGE = os.path.join(GUEST, 'bzImage')
INITRD = os.path.join(GUEST, 'initramfs.gz')
OUT = os.path.join(ROOT, 'build/bench-linux')
RESULTS = os.path.join(ROOT, 'bench-results/linux.json')
RIG = os.path.join(ROOT, 'tests/nested/run-in-kvm.sh')
ROWS = ['native', 'irqlab-user', 'irqlab-split', 'irqlab-kernel',
        'qemu-tcg', 'qemu-kvm', 'qemu-kvm-split']
# The console on COM1; panic=-1 and -no-reboot end a panicking guest.
APPEND = 'console=ttyS0 panic=-1'
MEM_MB = 512
INIT_MARK = '@linux '


def say(msg):
    print(msg, flush=True)


# ---- the nested rig's fault ----
# (tests/nested/README.md "Faults of the nested rig")
# With KVM's LAPIC (split, kernel) the rig delivers an interrupt with
# IF=0 now and then (QEMU TCG's SVM, helper_vmrun()).  Its two faces:
# - the panic: the LAPIC timer vector again on its handler's first
#   instruction, so Linux enters with the user's GS base and its page
#   faults recurse to the entry stack's guard page;
# - the stall: a CPU spinning for good on a lock inside an interrupt (a
#   vector in service, IF=0) that it took while the code it interrupted
#   held that lock; irqlab-vmm's --timeout dump (status 18) shows it.
RIG_DOUBLE_DELIVERY = re.compile(
    r'stack guard page was hit(.|\n)*'
    r'RIP: 0010:asm_(sysvec_[a-z_]+|common_interrupt)\+0x0/')
# ... or a few instructions into the first delivery's entry (seen at
# error_entry+0x0): an interrupt stub's frame (asm_sysvec_*, asm_common_
# interrupt) over a kernel context whose EFLAGS has IF clear.  IF=0
# masks every maskable interrupt (SDM vol. 3 6.8.1), and with KVM's LAPIC
# neither the guest nor irqlab-vmm injects it, so this frame cannot be
# theirs.
_TS = r'(?:\[[ 0-9.]+\] )?'
RIG_IF0_FRAME = re.compile(
    r'^' + _TS + r'\s*asm_(?:sysvec_[a-z_]+|common_interrupt)\+0x[0-9a-f]+/'
    r'0x[0-9a-f]+\n' + _TS + r'RIP: 0010:(\S+)\n(?:' + _TS + r'Code: .*\n)?' +
    _TS + r'RSP: [0-9a-f]+:[0-9a-f]+ EFLAGS: ([0-9a-f]+)', re.M)
# irqlab-vmm's --timeout dump: a line per vCPU, then its LAPIC's lines
VCPU_DUMP = re.compile(
    r'^irqlab-vmm: vcpu([0-9]+): (.*?), RIP 0x([0-9a-f]+) RFLAGS '
    r'0x[0-9a-f]+ \(IF=([01])\)[^\n]*\n((?:  .*\n)*)', re.M)
SPIN_SLOWPATH = ('native_queued_spin_lock_slowpath',
                 '__pv_queued_spin_lock_slowpath')
# where a 64-bit kernel's text starts with nokaslr (CONFIG_PHYSICAL_START
# 16 MiB): the KVM-LAPIC boots in the rig pass nokaslr, so that the dump's
# RIPs can be named with the rig's own kallsyms (the same kernel build)
NOKASLR_TEXT = 0xffffffff81000000
RIG_KALLSYMS = os.path.join(ROOT, 'build/nested/rig-kallsyms.txt')


class Kallsyms:
    """Text symbols of /proc/kallsyms, by their offset from _text, so
    that they name the places of the same build loaded elsewhere."""

    def __init__(self, text):
        syms, base = [], None
        for line in text.splitlines():
            f = line.split()
            if len(f) < 3 or f[1] not in 'Tt':
                continue
            addr = int(f[0], 16)
            if f[2] == '_text':
                base = addr
            syms.append((addr, f[2]))
        if base is None or not syms:
            raise ValueError('no _text in the kallsyms')
        self.syms = sorted((a - base, n) for a, n in syms)
        self.offsets = [o for o, _ in self.syms]

    def name(self, rip, text=NOKASLR_TEXT):
        """'symbol+0xoff' of @rip, or None outside the kernel's text."""
        off = rip - text
        i = bisect.bisect_right(self.offsets, off) - 1
        if off < 0 or i < 0 or off - self.offsets[i] > 0x10000:
            return None
        return '%s+0x%x' % (self.syms[i][1], off - self.offsets[i])


def rig_kallsyms():
    """The rig kernel's symbols, when build/nested/rig-kallsyms.txt was
    read from the same kernel package as build/linux-guest's (the
    rig's server writes it); else None."""
    try:
        with open(RIG_KALLSYMS + '.kernel') as f:
            rig = f.read().strip()
        with open(os.path.join(GUEST, 'kernel.txt')) as f:
            guest = f.read().strip()
        if rig != guest:
            return None
        with open(RIG_KALLSYMS) as f:
            return Kallsyms(f.read())
    except (OSError, ValueError):
        return None


def vcpu_dump(err):
    """irqlab-vmm's --timeout dump: [(vcpu, state, rip, if_, isr)]."""
    out = []
    for m in VCPU_DUMP.finditer(err):
        isr = re.search(r'^  ISR (.*)$', m.group(5), re.M)
        vecs = isr.group(1).split() if isr and isr.group(1) != '-' else []
        out.append((int(m.group(1)), m.group(2), int(m.group(3), 16),
                    m.group(4) == '1', vecs))
    return out


def rig_stall(err, syms):
    """The stall's evidence, or None: a vCPU running with IF=0 that spins
    for good in the spin-lock slow path, either inside an interrupt (a
    vector in service) or as the only CPU online (the others still wait
    for their SIPI).  Either way the lock's holder is the code that the
    interrupt it is in interrupted: that code held it with interrupts off,
    so the interrupt was taken with IF=0."""
    if syms is None:
        return None
    cpus, dump = vcpu_dump(err), 'irqlab-vmm --timeout: status 18'
    if not cpus:
        cpus, dump = qmp.cpus(err), 'qemu-limit\'s dump'
    for n, state, rip, if_, isr in cpus:
        where = syms.name(rip)
        if state != 'running' or if_ or not where or \
                where.split('+')[0] not in SPIN_SLOWPATH:
            continue
        alone = all(s.startswith('waiting for INIT') for m, s, _, _, _ in cpus
                    if m != n)
        if isr or alone:
            return ('vCPU%d spinning for good in %s with IF=0, %s: on a '
                    'lock held by the code its interrupt interrupted '
                    '(%s)' % (
                        n, where, 'vector %s in service' % ' '.join(isr)
                        if isr else 'the only CPU online', dump))
    return None


def rig_fault(status, out, err, syms=None):
    """The rig's interrupt-delivery fault a boot shows, or None; @syms
    (Kallsyms of the guest's kernel, loaded without KASLR) to tell a
    stall from its dump."""
    if status == 0:
        return None
    if RIG_DOUBLE_DELIVERY.search(out):
        return ('an interrupt delivered again on its handler\'s first '
                'instruction, with IF=0 (Linux panicked: status %s)' % status)
    if 'stack guard page was hit' in out:
        for m in RIG_IF0_FRAME.finditer(out):
            if not int(m.group(2), 16) & 0x200:
                return ('an interrupt delivered again inside its own entry '
                        '(at %s), with IF=0 (Linux panicked: status %s)' %
                        (m.group(1), status))
    if status in (18, 'limit'):    # irqlab-vmm's --timeout, qemu-limit's
        return rig_stall(err, syms)
    return None


def boot_rig_retry(name, irqchip, how, boot_once, status=None):
    """@boot_once() (a boot.Result); in the rig with KVM's LAPIC, once
    more if it showed the rig's fault, saying so.  @status(res): the
    status to judge the boot by (default its own).  Returns the result
    and the first boot's fault (None if there was none)."""
    res = boot_once()
    why = rig_fault(status(res) if status else res.status, res.out,
                    res.err, rig_kallsyms()) \
        if how == 'nested' and irqchip != 'user' else None
    if why:
        say('linux-bench: %s: the nested rig\'s fault: %s; booting again '
            '(tests/nested/README.md "Faults of the nested rig")' %
            (name, why))
        res = boot_once()
    return res, why


# ---- the host ------------------------------------------------------------

def host_kvm():
    """How /dev/kvm is backed here: ('real', module) for kvm_intel or
    kvm_amd, ('kvm_pvm', why) for KVM on PVM (a stock kernel runs in
    KVM's instruction emulator), ('none', why) for no usable /dev/kvm."""
    if not boot.kvm_usable():
        return 'none', 'no usable /dev/kvm'
    mods = [m for m in ('kvm_intel', 'kvm_amd', 'kvm_pvm')
            if os.path.isdir('/sys/module/' + m)]
    real = [m for m in mods if m != 'kvm_pvm']
    if real:
        return 'real', real[0]
    if 'kvm_pvm' in mods:
        return 'kvm_pvm', ('/dev/kvm is kvm_pvm (/sys/module/kvm_pvm): a '
                           'stock kernel runs in KVM\'s instruction emulator')
    return 'real', 'kvm (no vendor module seen)'


def guest_kernel():
    """The guest's kernel, as make linux-guest fetched it."""
    with open(os.path.join(GUEST, 'kernel.txt')) as f:
        return f.read().strip()


def host_name():
    model = ''
    try:
        with open('/proc/cpuinfo') as f:
            for line in f:
                if line.startswith('model name'):
                    model = line.split(':', 1)[1].strip()
                    break
    except OSError:
        pass
    return '%s, %d CPUs, Linux %s' % (model or platform.machine(),
                                      os.cpu_count() or 0, platform.release())


# ---- the commands --------------------------------------------------------

def qemu_linux_cmd(accel='tcg', cpu=None, smp=2, append=APPEND,
                   qemu=None, irqchip=None):
    """QEMU booting the bzImage and initramfs, the console on stdout;
    the guest's poweroff ends it with status 0.  @irqchip: KVM's
    kernel_irqchip (on, split), QEMU's default (on) if None."""
    cmd = [qemu or boot.qemu_binary(), '-accel', accel]
    if irqchip:
        cmd += ['-machine', 'pc,kernel_irqchip=' + irqchip]
    if cpu:
        cmd += ['-cpu', cpu]
    return cmd + ['-smp', str(smp), '-m', str(MEM_MB), '-kernel', BZIMAGE,
                  '-initrd', INITRD, '-append', append, '-serial', 'stdio',
                  '-display', 'none', '-monitor', 'none', '-vga', 'none',
                  '-nodefaults', '-no-reboot']


def vmm_linux_args(irqchip='user', smp=2, append=APPEND, stats_json=None,
                   bzimage=BZIMAGE, initrd=INITRD, extra=()):
    """irqlab-vmm's arguments (no program name) for the Linux guest;
    @extra: more options (--kvm-pv=on, --x2apic...)."""
    args = ['--cpus', str(smp), '--mem', str(MEM_MB),
            '--irqchip=' + irqchip] + list(extra)
    if stats_json:
        args += ['--stats-json', stats_json]
    return args + ['--initrd', initrd, '-a', append, bzimage]


def rel(path):
    return os.path.relpath(path, ROOT)


def perf_stat_prefix(out_file):
    """`perf stat` counting KVM's exits (and, where the tracepoint exists,
    the instructions KVM emulates) into @out_file, or [] if perf cannot
    count them here."""
    perf = shutil.which('perf')
    if not perf:
        return []
    evs = []
    for ev in ('kvm:kvm_exit', 'kvm:kvm_userspace_exit',
               'kvm:kvm_emulate_insn'):
        p = subprocess.run([perf, 'stat', '-x,', '-e', ev, 'true'],
                           capture_output=True, text=True)
        if p.returncode == 0:
            evs.append(ev)
    if 'kvm:kvm_exit' not in evs:
        return []
    return [perf, 'stat', '-x,', '-a', '-e', ','.join(evs), '-o', out_file,
            '--']


def perf_stat_read(path):
    """{event: count} from `perf stat -x,` output."""
    got = {}
    try:
        with open(path) as f:
            for line in f:
                parts = line.strip().split(',')
                if len(parts) > 2 and parts[0].isdigit():
                    got[parts[2]] = int(parts[0])
    except OSError:
        pass
    return got


# ---- the rows ------------------------------------------------------------

class Row:
    def __init__(self, name, how):
        self.name, self.how = name, how
        self.state = 'ok'           # ok, failed, skipped, did-not-boot
        self.why = ''
        self.wake = {}              # threads -> WakeSummary
        self.init_s = None          # guest uptime at /init
        self.host_init_s = None     # host time to the @linux line
        self.wall_s = None          # the VM's: QEMU's, irqlab-vmm's own
        self.exits = None
        self.exits_how = ''
        self.irq = {}               # cpu -> {loc, res, cal} deltas
        self.clocksource = None
        self.clockevent = None      # CPU 0's/the broadcast device
        self.cpus = None
        self.last_line = ''

    def as_dict(self):
        d = dict(vars(self))
        d['wake'] = {t: w.as_dict() for t, w in self.wake.items()}
        return d


def last_console_line(text):
    lines = [l.strip() for l in text.splitlines() if l.strip()]
    return lines[-1] if lines else '(nothing on the console)'


def take_guest(row, res, smp):
    """Fill @row from one boot's console (@res, a boot.Result)."""
    run = records.linux_run(res.out)
    row.wall_s = res.wall_ms / 1e3
    row.last_line = last_console_line(res.out)
    if INIT_MARK in res.marks_ms:
        row.host_init_s = res.marks_ms[INIT_MARK] / 1e3
    row.init_s = run.init_s
    row.cpus = run.cpus
    row.clocksource = run.clocksource
    row.clockevent = run.clockevent
    for t in sorted({1, smp}):
        w = run.wake(t)
        if w:
            row.wake[t] = w
    for cpu in sorted(run.irqs.get('end', {})):
        row.irq[cpu] = {k: run.irq_delta(cpu, k) for k in run.IRQ_KEYS}
    if run.boot is None:
        row.state = 'did-not-boot'
        row.why = '%s after %.0f s; last console line: %s' % (
            res.describe(), row.wall_s, row.last_line)
    elif not run.finished() or 1 not in row.wake:
        row.state = 'failed'
        row.why = 'reached /init but %s (%s); last line: %s' % (
            'no @linux_done' if run.done is None else
            'a benchmark line failed', res.describe(), row.last_line)
    return run


def save(name, res):
    os.makedirs(OUT, exist_ok=True)
    with open(os.path.join(OUT, name + '.out'), 'w') as f:
        f.write(res.out)
    with open(os.path.join(OUT, name + '.err'), 'w') as f:
        f.write(res.err)


def row_native(a, smp):
    row = Row('native', 'perf bench futex wake on the host')
    perf = shutil.which('perf')
    env = None
    if not perf and os.path.exists(os.path.join(GUEST, 'perf')):
        perf = os.path.join(GUEST, 'perf')
        sysroot = os.path.join(GUEST, 'sysroot')
        env = dict(os.environ, LD_LIBRARY_PATH='%s/lib/x86_64-linux-gnu:'
                   '%s/usr/lib/x86_64-linux-gnu' % (sysroot, sysroot))
        row.how = 'make linux-guest\'s perf, run on the host'
    if perf:
        out = ''
        for t in sorted({1, smp}):
            res = boot.run([perf, 'bench', 'futex', 'wake', '-t', str(t)],
                           120, env=env)
            out += res.out
            for line in res.out.splitlines():
                w = records.parse_wokeup(line)
                if w:
                    row.wake[t] = w
        with open(os.path.join(OUT, 'native.out'), 'w') as f:
            f.write(out)
        if 1 in row.wake:
            return row
        row.why = 'perf printed no Wokeup summary; '
    if not os.path.exists(boot.NATIVE_FUTEX):
        row.state, row.why = 'skipped', row.why + 'no perf, no native-futex'
        return row
    res = boot.run([boot.NATIVE_FUTEX, '-n', '1000'], 60)
    save('native', res)
    r = res.find('bench', case='futex_wake')
    row.how = ('build/native-futex (no runnable perf here): the futex_wake '
               'p50, wake to run, not perf\'s mean')
    if r and r.num('p50_ns') is not None:
        row.wake[1] = records.WakeSummary(1, 1, r.num('p50_ns') / 1e6, 0.0)
    else:
        row.state, row.why = 'failed', 'native-futex gave no @bench'
    return row


def row_qemu(a, accel, smp, irqchip=None):
    name = 'qemu-' + accel + ('-' + irqchip if irqchip else '')
    if accel == 'kvm' and qemu_kvm_how(a) == 'nested':
        return row_qemu_rig(a, name, smp, irqchip)
    kind, why = host_kvm()
    cpu = None
    if accel == 'kvm':
        if kind == 'none':
            r = Row(name, 'QEMU/KVM')
            r.state, r.why = 'skipped', why
            return r
        probe = boot.probe_cpu()
        if probe.skip:
            r = Row(name, 'QEMU/KVM')
            r.state, r.why = 'skipped', probe.why
            return r
        cpu = probe.used
    row = Row(name, 'qemu-system-x86_64 -accel %s%s%s' % (
        accel, ' -cpu ' + cpu if cpu else '',
        ' -machine kernel_irqchip=' + irqchip if irqchip else ''))
    limit = a.kvm_limit if accel == 'kvm' else a.tcg_limit
    # Under KVM the decompressor's and early lines say how far it got.
    append = APPEND + (' earlyprintk=ttyS0' if accel == 'kvm' else ' quiet')
    cmd = qemu_linux_cmd(accel, cpu, smp, append, irqchip=irqchip)
    stat_file = os.path.join(OUT, name + '.perf')
    prefix = perf_stat_prefix(stat_file) if accel == 'kvm' else []
    if prefix:
        # timeout(1) inside perf stat, so that perf outlives QEMU and
        # writes its counts when the limit runs out
        cmd = ['timeout', '-k', '5', str(limit)] + cmd
    res = boot.run(prefix + cmd, limit + 30, marks=(INIT_MARK,))
    save(name, res)
    take_guest(row, res, smp)
    if prefix:
        got = perf_stat_read(stat_file)
        if got.get('kvm:kvm_exit'):
            row.exits = got['kvm:kvm_exit']
            row.exits_how = 'perf stat -a kvm:kvm_exit (whole host: ' \
                'other VMs too)'
        elif 'kvm:kvm_userspace_exit' in got:
            # kvm_pvm does not fire kvm:kvm_exit (0): count what it does
            row.exits = got['kvm:kvm_userspace_exit']
            row.exits_how = 'perf stat -a kvm:kvm_userspace_exit (whole ' \
                'host; kvm:kvm_exit counted %d)' % got.get('kvm:kvm_exit', 0)
        if 'kvm:kvm_emulate_insn' in got and row.exits_how:
            row.exits_how += ', %d kvm:kvm_emulate_insn' % \
                got['kvm:kvm_emulate_insn']
        res.timed_out = res.timed_out or res.status == 124
    if res.timed_out and row.state == 'did-not-boot':
        row.why = 'did not boot: no /init in %d s (%s); last console ' \
            'line: %s' % (limit, why if accel == 'kvm' else 'TCG',
                          row.last_line)
    return row


# ---- QEMU/KVM in the nested rig ------------------------------------------

# In the rig, -cpu host is the rig's own CPU model (it starts there: make
# bench-boot probes it), without KVM's PV EOI: with PV EOI the rig's KVM
# stalls Linux for good, as it did irqlab-vmm's boots that offered it
# (tests/nested/README.md "The stalls"; docs/VMM.md PV_EOI).
RIG_QEMU_CPU = 'host,-kvm-pv-eoi'
RIG_PERF_EVENTS = ('kvm:kvm_exit', 'kvm:kvm_userspace_exit')
_rig = {}


def rig_server():
    """The one rig server of this run (started on first use), and the
    KVM tracepoints `perf stat` counts in it ([] if it cannot).  Raises
    rigserver.RigSkip where the rig cannot run, RigError if it did not
    start."""
    if 'srv' not in _rig:
        srv = rigserver.RigServer(ROOT)
        srv.start()
        probe = os.path.join(OUT, 'rig-perf-probe')
        st = srv.run(['perf', 'stat', '-x,', '-a', '-e',
                      ','.join(RIG_PERF_EVENTS), '-o', rel(probe) + '.csv',
                      'true'], rel(probe) + '.out', rel(probe) + '.err', 60)
        _rig['srv'] = srv
        _rig['events'] = list(RIG_PERF_EVENTS) if st == 0 else []
    return _rig['srv'], _rig['events']


def rig_server_stop():
    if 'srv' in _rig:
        _rig.pop('srv').stop()


def qemu_kvm_how(a):
    """--qemu-kvm: 'direct' or 'nested'; auto: where the irqlab-vmm rows
    boot, so that like is compared with like."""
    return irqlab_how(a) if a.qemu_kvm == 'auto' else a.qemu_kvm


def qemu_status(res):
    """QEMU's status as a boot's end (boot_rig_retry()): 'limit' when
    guest-bench/qemu-limit stopped it (its stderr then has the vCPUs'
    dump), and -no-reboot makes a panic's reboot exit 0 too, so a boot
    without @linux_done that exited 0 counts as the panic it was."""
    if res.timed_out:
        return 'limit'
    if res.status == 0 and '@linux_done' not in res.out:
        return 'panic' if 'Kernel panic' in res.out else 'reset'
    return res.status


def row_qemu_rig(a, name, smp, irqchip):
    """A QEMU/KVM row inside the nested rig: QEMU on the rig's /dev/kvm
    (kvm_amd), `perf stat -a` counting the rig's KVM exits (its only
    VM), booted again once on the rig's fault."""
    row = Row(name, 'qemu-system-x86_64 -accel kvm -cpu %s%s, in the '
              'nested rig (QEMU TCG, emulated SVM, kvm_amd): KVM\'s PV EOI '
              'off, as it stalls the rig' % (
                  RIG_QEMU_CPU, ' -machine kernel_irqchip=' + irqchip
                  if irqchip else ''))
    try:
        srv, events = rig_server()
    except rigserver.RigSkip as e:
        row.state, row.why = 'skipped', 'the rig cannot run here: %s' % e
        return row
    except rigserver.RigError as e:
        row.state, row.why = 'failed', 'the rig did not start: %s' % e
        return row
    stat_file = os.path.join(OUT, name + '.perf')
    if os.path.exists(stat_file):
        os.unlink(stat_file)
    # nokaslr: qemu-limit's dump of a hung boot is named by the rig's
    # kallsyms (rig_stall())
    cmd = qemu_linux_cmd('kvm', RIG_QEMU_CPU, smp,
                         APPEND + ' earlyprintk=ttyS0 nokaslr',
                         qemu='qemu-system-x86_64', irqchip=irqchip)
    cmd = ['python3', 'guest-bench/qemu-limit', str(a.kvm_limit)] + \
        [rel(c) if c.startswith(ROOT + os.sep) else c for c in cmd]
    if events:
        cmd = ['perf', 'stat', '-x,', '-a', '-e', ','.join(events), '-o',
               rel(stat_file), '--'] + cmd
    res, first = boot_rig_retry(
        name, 'kernel', 'nested',
        lambda: boot.run_in_rig(srv, cmd, a.kvm_limit + 30),
        status=qemu_status)
    if first:
        row.how += '; booted twice: the first boot showed the rig\'s ' \
            'fault, ' + first
    save(name, res)
    take_guest(row, res, smp)
    got = perf_stat_read(stat_file)
    if 'kvm:kvm_exit' in got:
        row.exits = got['kvm:kvm_exit']
        row.exits_how = 'perf stat -a kvm:kvm_exit in the rig (its only ' \
            'VM; %d of them userspace exits)' % got.get(
                'kvm:kvm_userspace_exit', 0)
    if res.timed_out and row.state == 'did-not-boot':
        row.why = 'did not boot: no /init in %d s in the rig; last ' \
            'console line: %s' % (a.kvm_limit, row.last_line)
    return row


def top_exits(ex, n=6):
    """The @n commonest exit keys of --stats-json's exits: ports (pio
    0x608), MMIO (lapic+0xb0), MSRs, with their counts."""
    keys = [('pio ' + k, v) for k, v in ex.get('by_port', {}).items()]
    keys += [(k, v) for k, v in ex.get('by_mmio', {}).items()]
    keys += [('msr ' + k, v) for k, v in ex.get('by_msr', {}).items()]
    keys.sort(key=lambda kv: -kv[1])
    return ', '.join('%s %d' % kv for kv in keys[:n])


def irqlab_how(a):
    """--irqlab: 'direct' or 'nested'; auto: direct where /dev/kvm is
    real, else the nested rig."""
    if a.irqlab != 'auto':
        return a.irqlab
    return 'direct' if host_kvm()[0] == 'real' else 'nested'


def boot_irqlab_linux(a, name, how, irqchip, smp, append, js, vmm_args):
    """irqlab-vmm with the Linux guest, --stats-json @js, directly or
    (@how 'nested') in the rig, with irqlab-vmm's own --timeout under the
    runner's limit, so a hung guest ends with its dump; booted again once
    on the rig's fault (boot_rig_retry()).  Returns the boot.Result and
    the first boot's fault, or None."""
    extra = ['--timeout', str(max(60, a.vmm_limit - 60))] + list(vmm_args)

    def boot_once():
        if how == 'direct':
            cmd = [boot.VMM] + vmm_linux_args(irqchip, smp, append, js,
                                              extra=extra)
            return boot.run(cmd, a.vmm_limit, marks=(INIT_MARK,))
        env = dict(os.environ, NESTED_MEM=str(MEM_MB + 512))
        cmd = [RIG, '-t', str(a.vmm_limit), '--'] + vmm_linux_args(
            irqchip, smp, append, rel(js), bzimage=rel(BZIMAGE),
            initrd=rel(INITRD), extra=extra)
        return boot.run(cmd, a.vmm_limit + 300, env=env)

    return boot_rig_retry(name, irqchip, how, boot_once)


def row_irqlab(a, irqchip, smp):
    name = 'irqlab-' + irqchip
    why = host_kvm()[1]
    how = irqlab_how(a)
    where = ('on this host\'s /dev/kvm (%s)' % why if how == 'direct' else
             'in the nested rig (QEMU TCG, emulated SVM, kvm_amd): ' + why)
    row = Row(name, 'irqlab-vmm --irqchip=%s%s, %s' % (
        irqchip, ''.join(' ' + x for x in a.vmm_args), where))
    js = os.path.join(OUT, name + '.json')
    if os.path.exists(js):
        os.unlink(js)
    append = APPEND + ' quiet'     # as TCG: the console's exits left out
    if how == 'nested' and irqchip != 'user':
        append += ' nokaslr'        # a stall's dump named (rig_stall())
    res, first = boot_irqlab_linux(a, name, how, irqchip, smp, append, js,
                                   a.vmm_args)
    if first:
        row.how += '; booted twice: the first boot showed the rig\'s ' \
            'fault, ' + first
    save(name, res)
    if res.status == 77:
        row.state = 'skipped'
        row.why = next((l for l in (res.out + res.err).splitlines()
                        if l.startswith('SKIP')), 'the rig cannot run here')
        return row
    take_guest(row, res, smp)
    if how == 'nested':
        row.host_init_s = None      # the rig's own boot is in that time
    if how == 'nested':
        row.wall_s = None           # so is the rig's in the process's time
    try:
        with open(js) as f:
            st = json.load(f)
        ex = st['exits']
        row.wall_s = st.get('wall_ns', 0) / 1e9 or row.wall_s
        row.exits = ex['total']
        row.exits_how = 'irqlab-vmm --stats-json exits.total; the most: ' + \
            top_exits(ex)
    except (OSError, ValueError, KeyError, TypeError):
        pass
    if row.state != 'ok':
        err = [l for l in res.err.splitlines() if l.strip()]
        if err:
            row.why += '; stderr: ' + err[-1]
    return row


# ---- the table -----------------------------------------------------------

def fmt_wake(w):
    if not w:
        return '-'
    return '%.4f (+-%.0f%%)' % (w.ms, w.rse_pct) if w.rse_pct else \
        '%.4f' % w.ms


def fmt_s(v):
    return '-' if v is None else '%.2f' % v


def table(rows, smp):
    head = ['row', 'wake -t 1 ms', 'wake -t %d ms' % smp, '/init (guest s)',
            '/init (host s)', 'VM wall s', 'exits', 'LOC/RES/CAL per CPU',
            'clocksource', 'clockevent/broadcast', 'state']
    out = [head]
    for r in rows:
        irq = ' '.join('%s/%s/%s' % (d['loc'], d['res'], d['cal'])
                       for _, d in sorted(r.irq.items())) or '-'
        out.append([r.name, fmt_wake(r.wake.get(1)),
                    fmt_wake(r.wake.get(smp)) if smp != 1 else '-',
                    fmt_s(r.init_s), fmt_s(r.host_init_s), fmt_s(r.wall_s),
                    '-' if r.exits is None else str(r.exits), irq,
                    r.clocksource or '-', r.clockevent or '-', r.state])
    w = [max(len(x[i]) for x in out) for i in range(len(head))]
    lines = ['| ' + ' | '.join(c.ljust(w[i]) for i, c in enumerate(x)) +
             ' |' for x in out]
    lines.insert(1, '|' + '|'.join('-' * (n + 2) for n in w) + '|')
    return '\n'.join(lines)


def report_md(rows, smp, kernel, kind, why):
    """The run in markdown: the host and guest, the table, each row's
    method and why a row did not run."""
    out = ['Host: %s; /dev/kvm: %s (%s).  Guest: %s, %d vCPUs, %d MiB; '
           '`perf bench futex wake`, mean of its 10 runs, +- its relative '
           'standard error (docs/LINUX.md "Numbers").' % (
               host_name(), kind, why, kernel, smp, MEM_MB), '',
           table(rows, smp), '']
    for r in rows:
        out.append('- %s: %s%s' % (r.name, r.how, ('; exits: ' + r.exits_how)
                                   if r.exits_how else ''))
        if r.why:
            out.append('  - %s: %s' % (r.state, r.why))
    return '\n'.join(out) + '\n'


def publish(rows, smp, kernel, kind, why, rig, hpet=False):
    """docs/results/HOST-DATE-linux.md (-linuxhpet.md with --hpet),
    listed in docs/LINUX.md."""
    md = report_md(rows, smp, kernel, kind, why)
    if hpet:
        md = ('Every irqlab-vmm row with `--hpet=on`; QEMU\'s `pc` machine '
              'has its HPET by default.\n\n' + md)
    path = markdown.publish_run(
        md, markdown.host_kind(rig=rig), 'docs/LINUX.md',
        'make bench-linux' + (" LINUX_BENCH_ARGS=--hpet" if hpet else ''),
        '-linuxhpet' if hpet else '-linux',
        'linux-hpet-results' if hpet else 'linux-results')
    say('linux-bench: wrote %s' % rel(path))


def parse_args(argv):
    p = arg_parser('linux-bench', __doc__)
    p.add_argument('--rows', default=','.join(ROWS), metavar='LIST',
                   help='rows to run, comma-separated (below; default all)')
    p.add_argument('--smp', type=int, default=2, metavar='N',
                   help='vCPUs of every guest, 1-8 (default 2)')
    p.add_argument('--irqlab', choices=('auto', 'direct', 'nested'),
                   default='auto',
                   help='irqlab-vmm on this /dev/kvm, or in the nested rig; '
                   'auto: direct only on real VMX or SVM')
    p.add_argument('--qemu-kvm', choices=('auto', 'direct', 'nested'),
                   default='auto',
                   help='the QEMU/KVM rows on this /dev/kvm, or in the '
                   'nested rig; auto: where the irqlab-vmm rows go')
    p.add_argument('--tcg-limit', type=int, default=180, metavar='S',
                   help='seconds a QEMU TCG boot gets (default 180)')
    p.add_argument('--kvm-limit', type=int, default=240, metavar='S',
                   help='seconds a QEMU/KVM boot gets before "did not '
                   'boot" (default 240)')
    p.add_argument('--vmm-limit', type=int, default=900, metavar='S',
                   help='seconds an irqlab-vmm boot gets (default 900)')
    p.add_argument('--vmm-args', default='',
                   help='more irqlab-vmm options, blank-separated '
                   '(e.g. --kvm-pv=on)')
    p.add_argument('--hpet', action='store_true',
                   help='every irqlab-vmm row with --hpet=on (QEMU has its '
                   'HPET anyway): which clocksource and clockevent Linux '
                   'picks beside an HPET; a full run is published as '
                   'HOST-DATE-linuxhpet.md')
    p.add_argument('--matrix', action='store_true',
                   help='the boot matrix (runner/linuxmatrix.py)')
    p.add_argument('--matrix-cpus', default='2,4', metavar='LIST',
                   help="the matrix's vCPU counts (default 2,4)")
    p.add_argument('--matrix-irqchips', default='user,split,kernel',
                   metavar='LIST', help="the matrix's irqchip modes "
                   '(default user,split,kernel)')
    p.add_argument('--matrix-apics', default='xapic,x2apic',
                   metavar='LIST', help="the matrix's APIC modes "
                   '(default xapic,x2apic)')
    p.add_argument('--no-doc', action='store_true',
                   help='write no docs/results/ file')
    p.add_argument('--profile', action='store_true',
                   help='the exit profile, --cpuid-freq on and off')
    p.add_argument('--profile-cpus', type=int, default=2, metavar='N',
                   help="the profile's vCPUs (default 2)")
    p.add_argument('--profile-vmm-args', default='', metavar='ARGS',
                   help="more irqlab-vmm options for the profile's boots")
    p.add_argument('--profile-vendors', default='host,other',
                   help='--cpu-vendor of the profile\'s boots: host, intel, '
                   'amd, or other (Intel on an AMD CPU, AMD on an Intel '
                   'one); Linux 6.1 reads CPUID 0x15 only on Intel')
    a = p.parse_args(argv)
    a.profile_vendors = [x for x in a.profile_vendors.split(',') if x]
    if not a.profile_vendors or any(
            x not in ('host', 'intel', 'amd', 'other')
            for x in a.profile_vendors):
        p.error('--profile-vendors: host, intel, amd, other')
    a.vmm_args = a.vmm_args.split()
    a.profile_vmm_args = a.profile_vmm_args.split()
    try:
        a.matrix_cpus = [int(x) for x in a.matrix_cpus.split(',') if x]
    except ValueError:
        p.error('--matrix-cpus: a comma-separated list of numbers')
    a.matrix_irqchips = [x for x in a.matrix_irqchips.split(',') if x]
    if any(x not in ('user', 'split', 'kernel') for x in a.matrix_irqchips):
        p.error('--matrix-irqchips: user, split, kernel')
    a.matrix_apics = [x for x in a.matrix_apics.split(',') if x]
    if any(x not in ('xapic', 'x2apic', 'x2apic-pv')
           for x in a.matrix_apics):
        p.error('--matrix-apics: xapic, x2apic, x2apic-pv')
    if any(not 1 <= n <= 8 for n in a.matrix_cpus + [a.profile_cpus]):
        p.error('--matrix-cpus, --profile-cpus: 1 to 8')
    a.full = a.rows == ','.join(ROWS) and a.smp == 2 and not a.vmm_args
    if a.hpet:
        a.vmm_args.append('--hpet=on')
    a.matrix_full = (a.matrix_cpus, a.matrix_irqchips, a.matrix_apics) == \
        ([2, 4], ['user', 'split', 'kernel'], ['xapic', 'x2apic']) and \
        not a.vmm_args
    a.profile_full = (a.profile_cpus == 2 and not a.profile_vmm_args and
                      not a.vmm_args and a.profile_vendors == ['host', 'other'])
    a.rows = [r for r in a.rows.split(',') if r]
    bad = [r for r in a.rows if r not in ROWS]
    if bad or not 1 <= a.smp <= 8:
        p.error('unknown rows %s (known: %s)' % (bad, ', '.join(ROWS))
                if bad else '--smp: 1 to 8')
    return a


def main(argv=None):
    a = parse_args(argv)
    # every time: the packages are kept, and the initramfs is packed
    # again, so an /init edited since is the one that boots
    p = subprocess.run([os.path.join(ROOT, 'guest-bench/linux/'
                                     'make-guest.sh')], cwd=ROOT)
    if p.returncode == 77:
        return 77
    if p.returncode:
        return 1
    os.makedirs(OUT, exist_ok=True)
    kind, why = host_kvm()
    say('linux-bench: host %s; /dev/kvm: %s (%s)' % (host_name(), kind, why))
    kernel = guest_kernel()
    if a.matrix or a.profile:
        from . import linuxmatrix
        say('linux-bench: guest %s, %d MiB' % (kernel, MEM_MB))
        st = linuxmatrix.matrix(a) if a.matrix else 0
        return max(st, linuxmatrix.profile(a) if a.profile else 0)
    say('linux-bench: guest %s, %d vCPUs, %d MiB' % (kernel, a.smp, MEM_MB))
    try:
        rows = run_rows(a)
    finally:
        rig_server_stop()
    say('')
    return report(a, rows, kernel, kind, why)


def run_rows(a):
    rows = []
    for name in a.rows:
        t0 = time.monotonic()
        say('linux-bench: %s ...' % name)
        if name == 'native':
            r = row_native(a, a.smp)
        elif name.startswith('qemu-'):
            accel, _, irqchip = name[5:].partition('-')
            r = row_qemu(a, accel, a.smp, irqchip or None)
        else:
            r = row_irqlab(a, name[7:], a.smp)
        say('linux-bench: %s: %s in %.0f s%s' % (
            name, r.state, time.monotonic() - t0,
            ': ' + r.why if r.why else ''))
        rows.append(r)
    return rows


def report(a, rows, kernel, kind, why):
    """The table and each row's method on stdout, linux.json, and for a
    full run its docs/results/ file; the exit status."""
    say(table(rows, a.smp))
    say('')
    for r in rows:
        say('%s: %s%s' % (r.name, r.how, ('; exits: ' + r.exits_how)
                          if r.exits_how else ''))
        if r.why:
            say('  %s: %s' % (r.state, r.why))
    os.makedirs(os.path.dirname(RESULTS), exist_ok=True)
    with open(RESULTS, 'w') as f:
        json.dump({'date': time.strftime('%Y-%m-%dT%H:%M:%SZ', time.gmtime()),
                   'host': host_name(), 'kvm': [kind, why],
                   'guest': kernel, 'smp': a.smp,
                   'rows': [r.as_dict() for r in rows]}, f, indent=1)
    say('linux-bench: %s' % rel(RESULTS))
    if a.full and not a.no_doc:
        publish(rows, a.smp, kernel, kind, why, irqlab_how(a) == 'nested',
                a.hpet)
    # QEMU/KVM not booting is what a kvm_pvm host does: reported, not a
    # failure; any other row that could run and did not is one
    return 1 if any(r.state == 'failed' or (r.state == 'did-not-boot' and
                                            not r.name.startswith('qemu-kvm'))
                    for r in rows) else 0
