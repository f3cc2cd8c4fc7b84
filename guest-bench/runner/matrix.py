# SPDX-License-Identifier: MIT
"""guest-bench/run: boot the same kernel with the same command line
(bench=all iters=N threads=1) under every hypervisor configuration,
collect the @records, and turn them into DIR/results.json, DIR/results.md
(and docs/BENCHMARKS.md's results part) and plots.  docs/BENCHMARKS.md
"Host runner" says what each config is.

Progress goes to stderr.  A config that fails (bad status, timeout, no
@ready) is reported, recorded as failed in results.json, and the run
goes on.  One that cannot run here (no /dev/kvm, no QEMU, no -cpu model
QEMU/KVM starts with: scripts/qemu-kvm-cpu) is a loud skip, recorded as
skipped with the reason.  Exit status: 0 if no config failed (skips are
listed), 1 if some failed, 2 on bad usage or missing build outputs.
"""
import glob
import json
import os
import re
import shutil
import sys

from . import (ROOT, anatomy, arg_parser, boot, markdown, plots, records,
               report, rigserver)

CONFIGS = ['vmm-%s-%s-%s' % (chip, apic, hlt)
           for chip in ('user', 'split', 'kernel')
           for apic in ('x2apic', 'xapic') for hlt in ('exit', 'guest')]
CONFIGS += ['vmm-user-x2apic-poll']
# --pv-eoi=on (docs/LAPIC.md "PV EOI"), --hlt=exit, in each irqchip
CONFIGS += ['vmm-%s-x2apic-pveoi' % chip for chip in ('user', 'split', 'kernel')]
CONFIGS += ['qemu-kvm-on', 'qemu-kvm-split', 'qemu-kvm-on-pveoi',
            'qemu-tcg', 'native']
# The latency knobs (docs/BENCHMARKS.md "Latency knobs"): each config
# boots once per case of KNOB_CASES, on KNOB_CPUS vCPUs, and once with
# no case, so that each case gets the host CPU time of its boot minus
# the empty boot's, per sample (host_cpu_us_per_op).  VARIANT: vmm
# options, kernel command-line words.
KNOB_CASES = ('ipi_wake', 'ipi_pingpong', 'futex_wake', 'broadcast.unicast',
              'broadcast.multicast')
KNOB_CPUS = 3
# at most this many samples a case in a knob boot: 16 configs x 6 boots
# would take hours at iters=1000 where a broadcast takes 50 ms (loaded
# kvm_pvm host)
KNOB_ITERS_MAX = 200
KNOB_VARIANTS = {
    'base': ([], ''),
    'pvipi': (['--pv-ipi=on'], ''),
    'pveoi': (['--pv-eoi=on'], ''),
    'hp200k': ([], 'haltpoll=200000'),
    'hpadapt': ([], 'haltpoll=adaptive'),
    'hp200k-hpoll': (['--halt-poll', str(200)], 'haltpoll=200000'),
    'all': (['--pv-eoi=on', '--pv-ipi=on', '--halt-poll', str(200)],
            'haltpoll=adaptive'),
}
KNOBS = ['knob-user-' + v for v in KNOB_VARIANTS]
KNOBS += ['knob-%s-%s' % (chip, v) for chip in ('split', 'kernel')
          for v in ('base', 'pvipi', 'pveoi', 'hp200k', 'hpadapt')]
KNOBS += ['knob-qemu-kvm-pvipi', 'knob-qemu-kvm-pvipi-hpadapt']
CONFIGS += KNOBS
# QEMU/KVM configs: -machine, and the flags the runner adds to the model
QEMU_KVM = {'qemu-kvm-on': 'pc,kernel_irqchip=on',
            'qemu-kvm-split': 'pc,kernel_irqchip=split',
            'qemu-kvm-on-pveoi': 'pc,kernel_irqchip=on'}
# ... and the -cpu flags a config adds to those: QEMU offers KVM's PV
# EOI by default, which the kernel then uses; off, the rows stay those
# of the runs before it (docs/LAPIC.md "PV EOI")
QEMU_KVM_EXTRA = {'qemu-kvm-on': ',kvm-pv-eoi=off',
                  'qemu-kvm-split': ',kvm-pv-eoi=off',
                  'qemu-kvm-on-pveoi': ',kvm-pv-eoi=on'}
QEMU_KVM_FLAGS = '+x2apic,+tsc-deadline'
# --hlt=exit --halt-poll 200: KVM's default halt_poll_ns bound (VMM.md)
HALT_POLL = 200
PERF_TIMEOUT = 60


def say(msg):
    print('run: ' + msg, file=sys.stderr, flush=True)


def needs_kvm(cmd):
    """irqlab-vmm, or QEMU with -accel kvm."""
    return cmd[0] == boot.VMM or 'kvm' in (
        cmd[cmd.index('-accel') + 1:cmd.index('-accel') + 2]
        if '-accel' in cmd else [])


class Unrunnable(Exception):
    """This config cannot run here: .reason (a word) and .why; a skip,
    or a failure (.failed) when it is our tool's fault, not the host's."""

    def __init__(self, reason, why, failed=False):
        super().__init__(why)
        self.reason, self.why, self.failed = reason, why, failed


class Matrix:
    """One run: its options, where the files go, the -cpu probe."""

    def __init__(self, a):
        self.iters, self.quick, self.out = a.n, a.quick, a.o
        self.raw = os.path.join(a.o, 'raw')
        self.cmdline = 'bench=all iters=%d threads=1' % a.n
        # Per-boot time limit: the kernel's own waits are bounded, so
        # only a hung hypervisor reaches it.  TCG is the slowest config.
        self.limit = 60 if a.quick else 60 + a.n // 4
        self.qemu_bin = boot.qemu_binary()
        self.perf = os.environ.get('PERF') or 'perf'
        self.cpu = None                 # boot.CpuProbe, once probed
        # --rig: the configs that need /dev/kvm run in the nested rig
        # (tests/nested): irqlab's LAPIC on a rig with a CPU per vCPU (a
        # guest whose vCPUs share a CPU times the scheduler, not the IPI);
        # KVM's LAPIC on a rig of one CPU, time-shared, where the rig's
        # fault with KVM's LAPIC does not come (tests/nested/README.md
        # "Fault rate": 0 of 50 boots on one CPU, 17 of 50 on two)
        self.rig_mode, self.rigs = a.rig, {}

    def kvm(self):
        """Can the configs that need /dev/kvm run: here, or in the rig."""
        return self.rig_mode or boot.kvm_usable()

    def need_kvm(self):
        if not self.kvm():
            raise Unrunnable('no-kvm', 'no usable /dev/kvm (--rig runs '
                             'it in the nested rig)')

    def rig_server(self, cpus):
        """The rig with @cpus CPUs, one for each of the guest's vCPUs."""
        if cpus not in self.rigs:
            rig = rigserver.RigServer(ROOT, smp=cpus)
            say('--rig: booting the nested rig with %d CPUs (%s)' % (
                cpus, rig.log))
            try:
                rig.start()
            except rigserver.RigSkip as e:
                raise Unrunnable('no-rig', 'the nested rig cannot run '
                                 'here: %s' % e)
            except rigserver.RigError as e:
                raise Unrunnable('rig-failed', str(e), failed=True)
            self.rigs[cpus] = rig
        return self.rigs[cpus]

    def close(self):
        for cpus, rig in sorted(self.rigs.items()):
            rig.stop()
            say('--rig: %d command(s) in the nested rig with %d CPUs' % (
                rig.n, cpus))

    def cpus_for(self, params):
        """The CPUs a config's vCPUs run on and, if fewer than its vCPUs,
        why: under --rig the rig's (one for KVM's LAPIC, else one per
        vCPU) for the configs that need /dev/kvm, else this host's."""
        if self.rig_mode and ('irqlab-vmm' in params or
                              'qemu-kvm' in params):
            if 'qemu-kvm' in params or re.search(
                    r'\birqchip=(split|kernel)\b', params):
                return 1, 'kvm-lapic-rig'
            return vcpus(params), None
        return os.cpu_count() or 1, 'vcpus'

    def path(self, name, ext):
        return os.path.join(self.raw, name + ext)

    def header(self, f, name, params):
        if self.rig_mode and ('irqlab-vmm' in params or 'qemu-kvm' in params):
            params += ' host=nested-rig'
        # more vCPUs than CPUs under them: its times are the scheduler's
        # (report.ratio() forms no ratio from it)
        cpus, why = self.cpus_for(params)
        if vcpus(params) > cpus:
            params += ' time_shared=%s' % why
        f.write('@config name=%s %s iters=%d\n' % (name, params, self.iters))

    def probe_cpu(self):
        """The -cpu model QEMU/KVM starts with here, probed once; its
        whole probe goes to DIR/qemu-kvm-cpu.json."""
        if self.cpu:
            return self.cpu
        if self.rig_mode:
            # the rig's KVM is kvm_amd on QEMU's emulated CPU: -cpu host
            # starts there (tests/integration/harness.py does the same)
            self.cpu = boot.CpuProbe('host', 'host,' + QEMU_KVM_FLAGS)
            return self.cpu
        self.cpu = boot.probe_cpu(QEMU_KVM_FLAGS, self.qemu_bin,
                                  self.path('qemu-kvm-cpu', '.err'))
        if self.cpu.probe:
            with open(os.path.join(self.out, 'qemu-kvm-cpu.json'), 'w') as f:
                json.dump(self.cpu.probe, f, indent=1)
        if self.cpu.model:
            say('QEMU/KVM starts with -cpu %s here (scripts/qemu-kvm-cpu); '
                'the qemu-kvm configs use -cpu %s' % (self.cpu.model,
                                                      self.cpu.used))
        return self.cpu

    def boot(self, f, name, cmd):
        with open(self.path(name, '.cmd'), 'w') as c:
            c.write(' '.join(cmd) + '\n')
        if self.rig_mode and needs_kvm(cmd):
            return boot.run_in_rig(self.rig_server(rig_cpus(cmd)), cmd,
                                   self.limit,
                                   out_file=f, err_path=self.path(name,
                                                                  '.err'))
        return boot.run(cmd, self.limit, out_file=f,
                        err_path=self.path(name, '.err'))

    def vmm(self, f, name):
        """vmm-CHIP-APIC-HLT; HLT "poll" is --hlt=exit --halt-poll 200,
        "pveoi" --hlt=exit --pv-eoi=on."""
        _, chip, apic, hlt = name.split('-')
        poll = HALT_POLL if hlt == 'poll' else 0
        pveoi = 'on' if hlt == 'pveoi' else 'off'
        hlt = 'exit' if hlt in ('poll', 'pveoi') else hlt
        self.header(f, name, 'kind=irqlab-vmm irqchip=%s apic=%s hlt=%s '
                    'halt_poll=%d pv_eoi=%s cpus=2' % (chip, apic, hlt, poll,
                                                       pveoi))
        self.need_kvm()
        return self.boot(f, name, boot.vmm_cmd(
            '%s apic=%s' % (self.cmdline, apic), irqchip=chip, hlt=hlt,
            halt_poll=poll, args=['--pv-eoi=' + pveoi])), 0

    def qemu(self, f, name):
        if name in QEMU_KVM:
            accel, machine = 'kvm', QEMU_KVM[name]
            cpu = None
            if self.kvm() and boot.have(self.qemu_bin):
                cpu = self.probe_cpu()
            self.header(f, name, 'kind=qemu-kvm irqchip=%s apic=x2apic '
                        'hlt=exit cpus=2 cpu=%s cpu_probed=%s' % (
                            machine.split('=')[1],
                            cpu.used + QEMU_KVM_EXTRA.get(name, '')
                            if cpu and cpu.used else 'none',
                            cpu.model if cpu and cpu.model else 'none'))
            self.need_kvm()
            if cpu and cpu.skip:
                raise Unrunnable(cpu.skip, cpu.why,
                                 failed=cpu.skip == 'probe-failed')
            cpu = cpu.used + QEMU_KVM_EXTRA.get(name, '') if cpu else None
        else:
            accel, machine, cpu = 'tcg', 'pc', 'qemu64'
            self.header(f, name, 'kind=qemu-tcg irqchip=tcg apic=xapic '
                        'hlt=exit cpus=2 cpu=%s' % cpu)
        if not boot.have(self.qemu_bin):
            raise Unrunnable('no-qemu', '%s is not installed' % self.qemu_bin)
        return self.boot(f, name, boot.qemu_cmd(
            self.cmdline, accel=accel, machine=machine, cpu=cpu,
            qemu=self.qemu_bin)), boot.QEMU_OK

    def native(self, f, name):
        """native-futex on the host, then perf bench futex wake -t 1."""
        self.header(f, name, 'kind=native irqchip=none apic=native '
                    'hlt=none cpus=2')
        res = self.boot(f, name, [boot.NATIVE_FUTEX, '-n', str(self.iters)])
        if not boot.have(self.perf):
            say('native: no perf, so no perf bench futex wake line')
            f.write('@perf_failed rc=-1 reason=no-perf\n')
            return res, 0
        f.write('@perf cmd=perf_bench_futex_wake_-t_1\n')
        f.flush()
        p = boot.run([self.perf, 'bench', 'futex', 'wake', '-t', '1'],
                     PERF_TIMEOUT, out_file=f)
        with open(self.path(name, '.err'), 'a') as e:
            e.write(p.err)
        if p.rc != 0:
            f.write('@perf_failed rc=%d\n' % p.rc)
        res.wall_ms += p.wall_ms        # the row's time: both
        res.cpu_ms += p.cpu_ms
        return res, 0

    def knob_cmd(self, name, append):
        """The command of knob config @name with the kernel's @append."""
        if name.startswith('knob-qemu-'):
            cpu = self.probe_cpu().used + ',kvm-pv-ipi=on'
            return boot.qemu_cmd(append, accel='kvm', machine=QEMU_KVM[
                'qemu-kvm-on'], cpu=cpu, smp=KNOB_CPUS, qemu=self.qemu_bin)
        _, chip, variant = name.split('-', 2)
        args, words = KNOB_VARIANTS[variant]
        return boot.vmm_cmd(' '.join(w for w in (append, words) if w),
                            cpus=KNOB_CPUS, irqchip=chip, args=args)

    def knob_check(self, f, name):
        """The header of knob config @name, or Unrunnable."""
        qemu = name.startswith('knob-qemu-')
        words = 'haltpoll=adaptive' if name.endswith('hpadapt') else ''
        if not qemu:
            words = KNOB_VARIANTS[name.split('-', 2)[2]][1]
        self.header(f, name, 'kind=%s irqchip=%s apic=x2apic hlt=exit '
                    'cpus=%d knobs=%s knob_iters=%d' % (
                        'qemu-kvm' if qemu else 'irqlab-vmm',
                        'kernel' if qemu else name.split('-')[1],
                        KNOB_CPUS, (name.split('-', 2)[2] +
                                    (',' + words if words else '')),
                        min(self.iters, KNOB_ITERS_MAX)))
        self.need_kvm()
        if qemu:
            if not boot.have(self.qemu_bin):
                raise Unrunnable('no-qemu', '%s is not installed' %
                                 self.qemu_bin)
            if not self.rig_mode and boot.kvm_hypercalls_loop():
                raise Unrunnable('kvm-pvm-hypercall', '/dev/kvm is '
                                 'kvm_pvm, whose emulator never completes '
                                 'the guest\'s KVM_HC_SEND_IPI: the boot '
                                 'would hang (docs/LAPIC.md)')
            cpu = self.probe_cpu()
            if cpu.skip:
                raise Unrunnable(cpu.skip, cpu.why,
                                 failed=cpu.skip == 'probe-failed')
        return words

    def knob(self, f, name):
        """Knob config @name: an empty boot, then one boot per case;
        each case's @host_cpu line follows its output."""
        words = self.knob_check(f, name)
        qemu = name.startswith('knob-qemu-')
        want = boot.QEMU_OK if qemu else 0
        words = words if qemu else ''   # knob_cmd adds VARIANT's own
        base = self.boot(f, name, self.knob_cmd(name, words))
        last, wall = base, base.wall_ms
        for case in KNOB_CASES:
            if last.timed_out or last.status != want or not last.ready():
                break
            last = self.boot(f, name, self.knob_cmd(name, (
                '%s bench=%s iters=%d threads=1' % (
                    words, case, min(self.iters, KNOB_ITERS_MAX))).strip()))
            wall += last.wall_ms
            r = last.find('bench', case=case)
            n = r.num('n') if r else None
            if n and last.cpu_ms is not None and base.cpu_ms is not None:
                f.write('@host_cpu case=%s cpu_ms=%.1f base_ms=%.1f n=%d '
                        'per_op_us=%.1f\n' % (case, last.cpu_ms,
                                               base.cpu_ms, n,
                                               (last.cpu_ms - base.cpu_ms)
                                               * 1e3 / n))
        last.wall_ms = wall
        return last, want

    def run_one(self, name):
        """One boot of config @name into raw/NAME.out: 'ok', 'failed' or
        'skipped'."""
        kind = ('native' if name == 'native' else
                'knob' if name.startswith('knob-') else
                'qemu' if name.startswith('qemu-') else 'vmm')
        with open(self.path(name, '.out'), 'w') as f:
            try:
                res, want = getattr(self, kind)(f, name)
            except Unrunnable as u:
                st = 'failed' if u.failed else 'skipped'
                f.write('@config_end status=%s rc=-1 wall_ms=0 reason=%s\n'
                        % (st, u.reason))
                with open(self.path(name, '.err'), 'w') as e:
                    e.write(u.why + '\n')
                say('%s: %s (%s: %s)' % (name, st.upper(), u.reason, u.why))
                return st
            reason = None
            if res.timed_out:
                reason = 'timeout'
            elif res.status != want:
                reason = 'exit-status-%d' % res.status
            elif kind != 'native' and not res.ready():
                reason = 'no-ready'
            ms, cpu = int(res.wall_ms), int(res.cpu_ms)
            if reason is None:
                f.write('@config_end status=ok rc=%d wall_ms=%d cpu_ms=%d\n'
                        % (res.rc, ms, cpu))
                say('%s: ok, %.1f s' % (name, ms / 1000))
                return 'ok'
            f.write('@config_end status=failed rc=%d wall_ms=%d cpu_ms=%d '
                    'reason=%s\n' % (res.rc, ms, cpu, reason))
        say('%s: FAILED (%s), skipped; output in %s[.pN].out and .err' %
            (name, reason, self.path(name, '')))
        for line in res.err.splitlines()[-3:]:
            say('  | ' + line)
        return 'failed'

    def run_config(self, name, dest, retries):
        """One pass of config @name into @dest.  ipi_wake and futex_wake
        refuse to report when the vCPUs' TSCs look skewed (@tsc_sync,
        docs/RECORDS.md); a noisy host can cause that, so a full run
        boots such a config again, up to @retries times.  Every attempt's
        output stays (NAME[.pK].tryN.out); the last one counts."""
        out = self.path(name, '.out')
        flake = self.rig_mode
        for attempt in range(retries + 1):
            st = self.run_one(name)
            if flake and st == 'ok' and rig_fault(out):
                # tests/nested/README.md "The rule": once, loudly
                flake = False
                shutil.copy(out, '%s.flake.out' % dest[:-4])
                say('FLAKE: %s: the nested rig\'s fault: %s; booting it '
                    'again (tests/nested/README.md "The rule")' % (
                        name, rig_fault(out)))
                st = self.run_one(name)
            if st != 'ok' or attempt == retries:
                break
            c = report.read(out)
            skew = [k.name for k in c.cases.values()
                    if k.skipped and k.reason == 'tsc-skew']
            if not skew:
                break
            shutil.copy(out, '%s.try%d.out' % (dest[:-4], attempt + 1))
            say('%s: %s skipped for TSC skew (skew_cyc=%s), booting it '
                'again' % (name, ' '.join(skew),
                           c.tsc_sync.get('skew_cyc', '?')
                           if c.tsc_sync else '?'))
        if out != dest:
            os.replace(out, dest)
            if os.path.exists(self.path(name, '.err')):
                os.replace(self.path(name, '.err'), dest[:-4] + '.err')
        return st


def vcpus(params):
    """The vCPUs a config's @config parameters name (cpus=N)."""
    m = re.search(r'\bcpus=(\d+)', params)
    return int(m.group(1)) if m else 1


def rig_cpus(cmd):
    """The rig's CPUs for a boot command (Matrix.cpus_for()): one where
    KVM's LAPIC delivers (QEMU/KVM, irqlab-vmm --irqchip=split|kernel),
    else irqlab-vmm's --cpus."""
    if 'irqlab-vmm' not in cmd[0] or any(
            a in ('--irqchip=split', '--irqchip=kernel') for a in cmd):
        return 1
    for i, a in enumerate(cmd[:-1]):
        if a == '--cpus':
            return int(cmd[i + 1])
    return 1


def rig_fault(path):
    """The kernel's @fault kind=sti_shadow line in @path (docs/RECORDS.md:
    the rig injected inside STI's shadow), or None."""
    with open(path, errors='replace') as f:
        rec = records.sti_shadow(f.read())
    return rec.line.strip() if rec else None


def write_results(out, files, doc=None, draw=True, rig=False,
                  breakdown=None):
    """The reports of the config files @files: DIR/results.json,
    DIR/results.md, the plots and, with @doc, docs/results/KIND-DATE.md
    and @doc's list of them; @breakdown, (markdown, JSON) of the timeline
    (anatomy.for_bench()), goes into both.  False if an output could not
    be written."""
    return write_configs(out, report.merge([report.read(f) for f in files]),
                         doc, draw, rig=rig, breakdown=breakdown)


def write_configs(out, configs, doc=None, draw=True, ref=report.REF,
                  source=None, say=say, rig=False, breakdown=None):
    """write_results() of report.Configs (guest-bench/report's from serial
    logs: @source says so); the ratios are to config @ref.  @doc: publish
    the report as a results file (RESULTS) and list it in @doc."""
    for c in configs:
        if c.errors:
            say('%s: %d problem(s), first: %s' % (
                c.name, len(c.errors) + c.more_errors, c.errors[0]))
    host = report.host_info()
    res = report.results_json(configs, host, ref)
    md = markdown.results_md(configs, host, ref, source)
    if breakdown:
        md += '\n' + breakdown[0]
        res['breakdown'] = breakdown[1]
    ok = True
    try:
        os.makedirs(out, exist_ok=True)
        with open(os.path.join(out, 'results.json'), 'w') as f:
            json.dump(res, f, indent=1)
            f.write('\n')
        with open(os.path.join(out, 'results.md'), 'w') as f:
            f.write(md)
    except OSError as e:
        say('cannot write the results: %s' % e)
        return False
    if doc:
        try:
            path = markdown.publish(md, host['date'],
                                    markdown.host_kind(rig),
                                    os.path.join(os.path.dirname(doc),
                                                 'results'), doc)
            say('%s: written, and listed in %s' % (path, doc))
        except (OSError, ValueError) as e:
            say(str(e))
            ok = False
    if draw:
        n = plots.draw(res, out, say)
        if n is not None:
            say('%d plots (SVG and PNG) in %s' % (n, out))
    return ok


def parse_args(argv):
    ap = arg_parser('guest-bench/run', __doc__)
    ap.add_argument('--quick', action='store_true',
                    help='iters=50, 1 pass, no retries, shorter timeouts, '
                    'no docs update (make bench QUICK=1)')
    ap.add_argument('-n', type=int, metavar='ITERS',
                    help='samples per case, 1 to 65536 (the kernel\'s '
                    'iters=; default 1000, --quick 50)')
    ap.add_argument('-p', type=int, metavar='PASSES',
                    help='boot every config PASSES times, all configs per '
                    'pass, 1 to 20 (default 3, --quick 1); the report '
                    'takes medians')
    ap.add_argument('-c', metavar='LIST',
                    help='only these configs (names from --list), '
                    'comma-separated, in this order')
    ap.add_argument('-o', metavar='DIR',
                    help='output folder (default: bench-results in the '
                    'repository)')
    ap.add_argument('--doc', metavar='FILE',
                    help='write the report as docs/results/HOST-DATE.md '
                    '(beside FILE) and list it in FILE (default for a '
                    'full run: docs/BENCHMARKS.md)')
    ap.add_argument('--no-doc', action='store_true',
                    help='leave the docs alone')
    ap.add_argument('--rig', action='store_true',
                    help='run the configs that need /dev/kvm (irqlab-vmm, '
                    'QEMU/KVM) in the nested rig (tests/nested/README.md), '
                    'for a host without /dev/kvm: their outcomes and exit '
                    'counts are real, their times are QEMU TCG\'s')
    ap.add_argument('--no-breakdown', action='store_true',
                    help='leave out the per-phase breakdown of an IPI (the '
                    '--timeline boots of docs/ANATOMY.md) from results.md '
                    'and results.json')
    ap.add_argument('--list', action='store_true', help='print the configs')
    ap.add_argument('--report', nargs='+', metavar='FILE',
                    help='no boots: write the reports of these config files '
                    '(DIR/raw/*.out of an earlier run) into DIR')
    a = ap.parse_args(argv)
    if a.n is None:
        a.n = 50 if a.quick else 1000
    if a.p is None:
        a.p = 1 if a.quick else 3
    if not 1 <= a.n <= 65536:
        ap.error('-n must be 1 to 65536 (the kernel\'s iters=)')
    if not 1 <= a.p <= 20:
        ap.error('-p must be 1 to 20')
    a.configs = a.c.split(',') if a.c else CONFIGS
    bad = [c for c in a.configs if c not in CONFIGS]
    if bad:
        ap.error('unknown config %s (known: %s)' % (','.join(bad),
                                                     ' '.join(CONFIGS)))
    if a.no_doc:
        a.doc = None
    elif a.doc is None and not a.quick and not a.report:
        a.doc = os.path.join(ROOT, 'docs/BENCHMARKS.md')
    # paths as given, from the caller's folder; shown from the repo's
    a.o = _short(a.o or os.path.join(ROOT, 'bench-results'))
    a.doc = a.doc and _short(a.doc)
    a.report = a.report and [_short(f) for f in a.report]
    return a


def _short(path):
    """@path from the repository's root if it is inside it, else
    absolute (the runner works from the root)."""
    path = os.path.abspath(path)
    rel = os.path.relpath(path, ROOT)
    return path if rel.startswith('..') else rel


def main(argv=None):
    a = parse_args(sys.argv[1:] if argv is None else argv)
    if a.list:
        print(' '.join(CONFIGS))
        return 0
    os.chdir(ROOT)
    if a.report:
        return 0 if write_results(a.o, a.report, a.doc, rig=a.rig) else 1
    for f in (boot.VMM, boot.KERNEL, boot.KERNEL32, boot.NATIVE_FUTEX):
        if not os.path.exists(f):
            say('%s is missing: run \'make bench\' (or make all %s)' %
                (os.path.relpath(f), os.path.relpath(boot.NATIVE_FUTEX)))
            return 2
    m = Matrix(a)
    try:
        os.makedirs(m.raw, exist_ok=True)
    except OSError as e:
        say('cannot create %s: %s' % (m.raw, e))
        return 2
    for old in glob.glob(os.path.join(m.raw, '*')):
        if old.endswith(('.out', '.err', '.cmd')):
            os.remove(old)
    total, i, files = len(a.configs) * a.p, 0, []
    count = {'ok': 0, 'failed': 0, 'skipped': 0}
    statuses, reasons = {}, {}          # per config, over its passes
    say('%d configs x %d passes, %s, up to %d s each, into %s' % (
        len(a.configs), a.p, m.cmdline, m.limit, a.o))
    try:
        for p in range(1, a.p + 1):
            for c in a.configs:
                i += 1
                dest = m.path(c, '.p%d.out' % p if a.p > 1 else '.out')
                say('[%d/%d] pass %d/%d: %s (%d left after it)' % (
                    i, total, p, a.p, c, total - i))
                st = m.run_config(c, dest, 0 if a.quick else 1)
                count[st] += 1
                files.append(dest)
                if statuses.get(c, 'skipped') == 'skipped':
                    statuses[c] = st
                    reasons[c] = report.read(dest).reason or st
    finally:
        m.close()
    brk = None
    vmm_ran = [c for c in a.configs if c.startswith('vmm-') and
               statuses.get(c) == 'ok']
    if vmm_ran and not a.no_breakdown:
        say('the timeline of each IPI (docs/ANATOMY.md): %d boots of their '
            'own into %s' % (len(anatomy.BENCH_CONFIGS) + 2,
                             os.path.join(a.o, 'anatomy')))
        brk = anatomy.for_bench(a.o, a.quick, a.rig)
    say('writing %s and %s' % (os.path.join(a.o, 'results.json'),
                               os.path.join(a.o, 'results.md')))
    if not write_results(a.o, files, a.doc, rig=a.rig, breakdown=brk):
        say('the report failed')
        return 1
    if count['skipped']:
        say('%d of %d boots SKIPPED: they cannot run here (reasons above '
            'and in results.json)' % (count['skipped'], total))
    if count['failed']:
        say('%d of %d boots FAILED (in results.json)' % (count['failed'],
                                                        total))
        return 1
    vmm = [c for c in a.configs if c.startswith(('vmm-', 'knob-'))]
    if vmm and all(statuses.get(c) == 'skipped' for c in vmm):
        say('every irqlab-vmm configuration was SKIPPED (%s): this run '
            'measured no irqlab' % '; '.join(sorted(set(
                reasons[c] for c in vmm))))
        return 1
    say('%d of %d boots ran' % (total - count['skipped'], total))
    return 0
