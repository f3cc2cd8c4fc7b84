# SPDX-License-Identifier: MIT
"""Boot the irqlab kernel once, in irqlab-vmm or QEMU, with a time limit.

    from runner import boot
    r = boot.run(boot.vmm_cmd(append='bench=self_ipi iters=20'), 60)
    r.status, r.timed_out, r.out, r.err, r.wall_ms, r.kernel_ms, r.ready_ms
    r.cpu_ms                                    # the boot's host CPU time
    r.find('bench', case='self_ipi')            # runner.records

    cpu = boot.probe_cpu('+x2apic,+tsc-deadline')   # scripts/qemu-kvm-cpu
    r = boot.run(boot.qemu_cmd(accel='kvm', cpu=cpu.used, append=...), 60)
    r.status == boot.QEMU_OK

The guest's output comes back with its CRs dropped.  Exit statuses: see
status_text(); irqlab-vmm's are in docs/VMM.md "Exit status".
"""
import json
import os
import resource
import shutil
import signal
import stat
import subprocess
import tempfile
import threading
import time

from . import ROOT, records

BUILD = os.path.join(ROOT, 'build')
VMM = os.path.join(BUILD, 'irqlab-vmm')
KERNEL = os.path.join(BUILD, 'kernel/irqlab.elf')
KERNEL32 = os.path.join(BUILD, 'kernel/irqlab32.elf')
NATIVE_FUTEX = os.path.join(BUILD, 'native-futex')
PROBE = os.path.join(ROOT, 'scripts/qemu-kvm-cpu')

# QEMU's isa-debug-exit turns the kernel's status V into (V << 1) | 1:
# the kernel's 0 comes out as 1 (docs/RECORDS.md).
QEMU_OK = 1
# After the time limit: SIGTERM, then SIGKILL this much later, as
# timeout(1) -k; a boot that needed it reports TIMEOUT_STATUS, timeout's.
KILL_AFTER = 5
TIMEOUT_STATUS = 124

# docs/VMM.md "Exit status"
VMM_STATUS = {
    2: 'bad option or argument',
    4: 'the kernel or a module cannot be loaded',
    6: 'KVM or host failure',
    8: 'guest triple fault or reset',
    10: 'KVM_EXIT_INTERNAL_ERROR',
    12: 'KVM_EXIT_FAIL_ENTRY',
    14: 'an exit reason irqlab does not handle',
    16: 'every vCPU asleep for good',
    18: 'irqlab-vmm --timeout ran out',
    49: 'kernel panic',
}


def qemu_binary():
    return os.environ.get('QEMU') or 'qemu-system-x86_64'


def kvm_usable():
    try:
        st = os.stat('/dev/kvm')
    except OSError:
        return False
    return (stat.S_ISCHR(st.st_mode) and
            os.access('/dev/kvm', os.R_OK | os.W_OK))


def have(program):
    return shutil.which(program) is not None


def kvm_hypercalls_loop():
    """/dev/kvm is kvm_pvm's, whose instruction emulator never completes
    a guest VMCALL/VMMCALL (docs/LAPIC.md): a KVM PV hypercall hangs the
    guest there.  The same test as irqlab-vmm's (vmm/kvm/kvm.c)."""
    mod = '/sys/module/'
    return (os.path.exists(mod + 'kvm_pvm') and
            not os.path.exists(mod + 'kvm_intel') and
            not os.path.exists(mod + 'kvm_amd'))


def qemu_has_tcg(qemu=None):
    try:
        p = subprocess.run([qemu or qemu_binary(), '-accel', 'help'],
                           capture_output=True, text=True, timeout=30)
    except (OSError, subprocess.TimeoutExpired):
        return False
    return 'tcg' in p.stdout.split()


def vmm_cmd(append=None, cpus=2, irqchip=None, hlt=None, halt_poll=None,
            args=(), kernel=KERNEL, vmm=VMM):
    """irqlab-vmm's command line: --cpus, the chosen options, @args, -a
    @append, the kernel."""
    cmd = [vmm, '--cpus', str(cpus)]
    if irqchip:
        cmd.append('--irqchip=' + irqchip)
    if hlt:
        cmd.append('--hlt=' + hlt)
    if halt_poll is not None:
        cmd += ['--halt-poll', str(halt_poll)]
    cmd += list(args)
    if append:
        cmd += ['-a', append]
    return cmd + [kernel]


def qemu_cmd(append=None, accel='tcg', machine='pc', cpu='qemu64', smp=2,
             mem=64, args=(), kernel=KERNEL32, qemu=None):
    """QEMU booting the ELF32 copy with isa-debug-exit and the serial
    port on stdout, as the runner and the tests do."""
    cmd = [qemu or qemu_binary(), '-accel', accel, '-machine', machine,
           '-cpu', cpu, '-smp', str(smp), '-m', str(mem), '-kernel', kernel]
    if append:
        cmd += ['-append', append]
    return cmd + ['-device', 'isa-debug-exit,iobase=0xf4,iosize=0x04',
                  '-serial', 'stdio', '-display', 'none', '-no-reboot',
                  '-nodefaults'] + list(args)


def status_text(status, timed_out=False, qemu=False):
    """A boot's status in words."""
    if timed_out:
        return 'timed out'
    if status is None:
        return 'not run'
    if status < 0:
        try:
            return 'killed by %s' % signal.Signals(-status).name
        except ValueError:
            return 'killed by signal %d' % -status
    if qemu and status & 1:
        return 'status %d (the kernel\'s %d through isa-debug-exit)' % (
            status, status >> 1)
    if not qemu and status in VMM_STATUS:
        return 'status %d (%s)' % (status, VMM_STATUS[status])
    return 'status %d' % status


class Result:
    """One boot: cmd, status (the process's; negative: a signal),
    timed_out, out (CRs dropped), err, wall_ms, cpu_ms (the host CPU
    time, user + system, of the process and its reaped children, from
    getrusage), kernel_ms (the kernel's first line, "irqlab kernel ...":
    what firmware and loader took) and ready_ms (first @ready line),
    from the start, or None."""

    def __init__(self, cmd):
        self.cmd = cmd
        self.status = None
        self.timed_out = False
        self.out = ''
        self.err = ''
        self.wall_ms = 0.0
        self.cpu_ms = 0.0               # host CPU, user + system
        self.kernel_ms = None
        self.ready_ms = None
        self.marks_ms = {}
        self._records = None

    @property
    def rc(self):
        """The status as timeout(1) would give it: 124 after the limit."""
        return TIMEOUT_STATUS if self.timed_out else self.status

    @property
    def records(self):
        if self._records is None:
            self._records = records.parse_text(self.out)
        return self._records

    def find(self, name, **match):
        return records.find(self.records, name, **match)

    def find_all(self, name, **match):
        return records.find_all(self.records, name, **match)

    def ready(self):
        return self.find('ready') is not None

    def describe(self):
        return status_text(self.status, self.timed_out,
                           qemu='qemu' in os.path.basename(self.cmd[0]))


def _stop(p, res, grace):
    """The time limit ran out: SIGTERM the boot's process group, then
    SIGKILL @grace seconds later."""
    res.timed_out = True
    for sig, wait in ((signal.SIGTERM, grace), (signal.SIGKILL, None)):
        try:
            os.killpg(p.pid, sig)
        except ProcessLookupError:
            return
        if wait is None:
            return
        try:
            p.wait(wait)
            return
        except subprocess.TimeoutExpired:
            pass


def children_cpu_ms():
    """Host CPU time (user + system, ms) of this process's children that
    ended and were waited for: the difference around one boot is that
    boot's (getrusage(2) RUSAGE_CHILDREN; the runner boots one at a time)."""
    ru = resource.getrusage(resource.RUSAGE_CHILDREN)
    return (ru.ru_utime + ru.ru_stime) * 1e3


def run(cmd, timeout, out_file=None, err_path=None, env=None, cwd=ROOT,
        marks=()):
    """Run @cmd (stdin /dev/null) for at most @timeout seconds.  Its
    stdout, CRs dropped, is in .out and, line by line as it comes, in
    @out_file (an open text file) if given; its stderr is in .err and
    in the file @err_path if given.  .marks_ms[M]: when the first line
    starting with M (one of @marks) came, from the start."""
    res = Result(list(cmd))
    if err_path:
        errf = open(err_path, 'w+b')
    else:
        errf = tempfile.TemporaryFile()
    lines = []
    with errf:
        t0, cpu0 = time.monotonic(), children_cpu_ms()
        try:
            p = subprocess.Popen(res.cmd, stdin=subprocess.DEVNULL,
                                 stdout=subprocess.PIPE, stderr=errf,
                                 env=env, cwd=cwd, start_new_session=True)
        except OSError as e:
            res.status = 127
            res.err = '%s: %s\n' % (res.cmd[0], e.strerror)
            errf.write(res.err.encode())
            return res
        timer = threading.Timer(timeout, _stop, (p, res, KILL_AFTER))
        timer.start()
        try:
            for raw in p.stdout:
                line = raw.replace(b'\r', b'').decode(errors='replace')
                if res.ready_ms is None and line.startswith('@ready'):
                    res.ready_ms = (time.monotonic() - t0) * 1e3
                if res.kernel_ms is None and 'irqlab kernel ' in line:
                    res.kernel_ms = (time.monotonic() - t0) * 1e3
                for m in marks:
                    if m not in res.marks_ms and line.startswith(m):
                        res.marks_ms[m] = (time.monotonic() - t0) * 1e3
                lines.append(line)
                if out_file:
                    out_file.write(line)
                    out_file.flush()
            res.status = p.wait()
        finally:
            timer.cancel()
            if p.poll() is None:        # interrupted: leave nothing behind
                _stop(p, res, 1)
                p.wait()
        res.wall_ms = (time.monotonic() - t0) * 1e3
        res.cpu_ms = children_cpu_ms() - cpu0
        errf.seek(0)
        res.err = errf.read().decode(errors='replace')
    res.out = ''.join(lines)
    return res


def run_in_rig(server, cmd, timeout, out_file=None, err_path=None):
    """As run(), but @cmd runs inside the nested rig's server
    (rigserver.RigServer), whose /dev/kvm it uses; its output goes
    through files under build/ (the rig writes only in the repository)
    and reaches @out_file once it ended."""
    res = Result(list(cmd))
    tmp = os.path.join(BUILD, 'rig-run')
    os.makedirs(tmp, exist_ok=True)
    out, err = os.path.join(tmp, 'out'), os.path.join(tmp, 'err')
    t0 = time.monotonic()
    st = server.run(res.cmd, out, err, timeout)
    res.wall_ms = (time.monotonic() - t0) * 1e3
    res.timed_out = st is None
    res.status = st
    with open(out, errors='replace') as f:
        res.out = f.read().replace('\r', '')
    with open(err, errors='replace') as f:
        res.err = f.read()
    for line in res.out.splitlines():
        if line.startswith('@ready'):
            res.ready_ms = res.wall_ms  # the end: no finer time here
            break
    if out_file:
        out_file.write(res.out)
        out_file.flush()
    if err_path:
        shutil.copyfile(err, err_path)
    return res


class CpuProbe:
    """scripts/qemu-kvm-cpu's answer: model (what QEMU/KVM starts with
    here), used (it with the flags asked for), or skip (a reason word:
    no-kvm, no-qemu, no-cpu-model, probe-failed) and why (one line);
    probe, the whole probe as JSON (a dict), when it gave one."""

    # the tool's exit statuses (its --help)
    SKIPS = {3: 'no-kvm', 4: 'no-qemu', 5: 'no-cpu-model'}

    def __init__(self, model=None, used=None, skip=None, why='',
                 probe=None):
        self.model, self.used = model, used
        self.skip, self.why, self.probe = skip, why, probe


def probe_cpu(flags='', qemu=None, err_path=None):
    """The -cpu model QEMU/KVM starts with on this host, from
    scripts/qemu-kvm-cpu (it caches its answer in build/)."""
    env = dict(os.environ, QEMU=qemu or qemu_binary())
    p = subprocess.run([PROBE, '--json', '--with', flags], cwd=ROOT,
                       env=env, capture_output=True, text=True)
    if err_path:
        with open(err_path, 'w') as f:
            f.write(p.stderr)
    said = [l[len('qemu-kvm-cpu: '):] for l in p.stderr.splitlines()
            if l.startswith('qemu-kvm-cpu: ')]
    try:
        probe = json.loads(p.stdout) if p.stdout.strip() else None
    except ValueError:
        probe = None
    if p.returncode == 0 and probe and probe.get('cpu'):
        return CpuProbe(probe['cpu'], probe.get('with', probe['cpu']),
                        probe=probe)
    skip = CpuProbe.SKIPS.get(p.returncode, 'probe-failed')
    why = said[-1] if said else 'scripts/qemu-kvm-cpu failed (status %d)' \
        % p.returncode
    return CpuProbe(skip=skip, why=why, probe=probe)
