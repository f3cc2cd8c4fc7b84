"""Boots for the integration tests: irqlab-vmm (on /dev/kvm, or through
tests/nested/run-in-kvm.sh where there is none), QEMU (TCG, or KVM with
the -cpu model scripts/qemu-kvm-cpu finds), any command; each with a time
limit, its stdout, stderr and --stats-json kept under build/tests/.

Run from anywhere: every path here is relative to the repository root,
and every command runs there.  Environment: VMM (default
build/irqlab-vmm), QEMU (default qemu-system-x86_64), IRQLAB_TEST_KVM=nested
(act as a host without /dev/kvm: the tests that need one skip, and
irqlab-vmm boots go through the nested rig where a test allows it).
"""
import functools
import glob
import json
import os
import re
import shlex
import shutil
import signal
import subprocess
import tempfile
import time
from pathlib import Path

import sys

import pytest

ROOT = Path(__file__).resolve().parents[2]
# the one record parser: the host runner's (guest-bench/runner/records.py)
sys.path.insert(0, str(ROOT / 'guest-bench'))
from runner import records  # noqa: E402
from runner.qmp import dump as qmp_dump  # noqa: E402
VMM = os.environ.get('VMM', 'build/irqlab-vmm')
KERNEL = 'build/kernel/irqlab.elf'
KERNEL32 = 'build/kernel/irqlab32.elf'
KERNEL_PVH = 'build/kernel/irqlab-pvh.elf'
QEMU = os.environ.get('QEMU', 'qemu-system-x86_64')
OUT = 'build/tests'

# what the summary prints after the tests: KNOWN, FLAKE and host notes
NOTES = []
# every command the test running now ran (conftest.py empties it before
# each test): a failed test's report shows them all (failure_evidence())
RUNS = []
# a failed test's boots are copied here, under the test's name
FAILED = OUT + '/failed'
# lines of each stream a failure report shows in full; past that, the
# head and the tail, and the kept file has all of it
REPORT_LINES = 4000


def note(text):
    """A line for the summary's notes: seen by everyone, fails nothing."""
    NOTES.append(text)
    print(text)


class Run:
    """One finished command: status (None if it ran out of time), stdout,
    stderr, the --stats-json it wrote (or None) and the records."""

    def __init__(self, name, base, argv, status, seconds, timeout,
                 strict=True):
        self.name, self.base, self.argv = name, base, argv
        self.status, self.seconds, self.timeout = status, seconds, timeout
        RUNS.append(self)
        self.out = _read(_file(base, '.out'))
        self.err = _read(_file(base, '.err'))
        bad = []
        text = self.out
        # A guest stopped from outside (irqlab-vmm's --timeout: status 18,
        # or this harness's: None) may be cut in the middle of a line: a
        # line without its newline was never finished, so it is no record.
        if status in (None, 18) and text and not text.endswith('\n'):
            text = text[:text.rfind('\n') + 1]
        self.records = records.parse_text(text, bad)
        self.bad_records = bad
        # a malformed record is a kernel bug, whatever the test reads; but
        # not strict: a Linux guest's console, where a printk can land in
        # the middle of /init's record line (the test reads what it needs)
        assert not bad or not strict, '%s: malformed records: %s' % (
            name, '; '.join('line %d: %s' % (n, e) for n, e in bad))
        js = _file(base, '.json')
        self.stats = None
        if js.exists():
            try:
                self.stats = json.loads(js.read_text())
            except ValueError:
                pass

    @property
    def exits(self):
        assert self.stats is not None, '%s: no --stats-json\n%s' % (
            self.name, self.report())
        return self.stats['exits']

    def lines(self, stream='out'):
        return (self.out if stream == 'out' else self.err).splitlines()

    def grep(self, pattern, stream='out'):
        """The lines of stream in which pattern (a Python re) is found."""
        return [l for l in self.lines(stream) if re.search(pattern, l)]

    def has(self, pattern, stream='out'):
        return bool(self.grep(pattern, stream))

    def rec(self, name, **match):
        return records.find(self.records, name, **match)

    def recs(self, name, **match):
        return records.find_all(self.records, name, **match)

    def status_text(self):
        if self.status is None:
            return 'timed out after %g s' % self.timeout
        return 'status %d' % self.status

    def report(self, tail=60):
        """What a failure shows: the command, how it ended, the output."""
        def last(text):
            lines = text.splitlines()
            cut = ['    (%d lines before)' % (len(lines) - tail)] \
                if len(lines) > tail else []
            return '\n'.join(cut + ['    ' + l for l in lines[-tail:]])
        return ('%s: %s: %s in %.1f s (%s.{out,err,json})\n'
                '  stdout:\n%s\n  stderr:\n%s' %
                (self.name, ' '.join(map(shlex.quote, self.argv)),
                 self.status_text(), self.seconds,
                 self.base.relative_to(ROOT), last(self.out),
                 last(self.err)))


def failure_evidence(nodeid):
    """The report sections of a failed test: for each command it ran, its
    files copied to build/tests/failed/TEST/ (a later boot of the same
    name cannot overwrite them there) and its command, how it ended and
    its whole stdout and stderr, so that a red CI run tells why without
    running it again."""
    keep = ROOT / FAILED / re.sub(r'[^A-Za-z0-9_.=-]+', '_', nodeid)
    keep.mkdir(parents=True, exist_ok=True)
    sections = []
    for n, run in enumerate(RUNS):
        for f in run.base.parent.glob(glob.escape(run.base.name) + '.*'):
            shutil.copy2(f, keep / ('%d-%s' % (n, f.name)))
        sections.append((
            'boot %d of this test: %s' % (n, run.name),
            '%s\n%s: %s in %.1f s\nkept: %s/%d-%s.{cmd,out,err,json}\n'
            '--- stdout ---\n%s\n--- stderr ---\n%s' % (
                _file(run.base, '.cmd').read_text(errors='replace').strip()
                if _file(run.base, '.cmd').exists() else
                ' '.join(map(shlex.quote, run.argv)),
                run.name, run.status_text(), run.seconds,
                keep.relative_to(ROOT), n, run.name,
                _whole(run.out), _whole(run.err))))
    return sections


def _whole(text):
    """text, or its first and last REPORT_LINES / 2 lines past that."""
    lines = text.splitlines()
    if len(lines) <= REPORT_LINES:
        return text.rstrip('\n')
    h = REPORT_LINES // 2
    return '\n'.join(lines[:h] + ['... (%d lines: the kept .out or .err '
                                   'has them)' % (len(lines) - 2 * h)] +
                     lines[-h:])


def _file(base, ext):
    """base's file with ext (a name may hold dots: not with_suffix)."""
    return base.parent / (base.name + ext)


def _read(path):
    try:
        return path.read_text(errors='replace')
    except OSError:
        return ''


def execute(argv, base, timeout, env=None, strip_cr=False, strict=True):
    """Run argv at the repository root with stdout in base.out and stderr
    in base.err (base.json and base.raw removed first); after timeout
    seconds its whole process group is stopped and status is None.  A
    QEMU that runs past timeout first has its vCPUs' registers written
    to base.err (runner/qmp.py's dump()), so that a hang says where it
    was."""
    qmp = None
    if os.path.basename(argv[0]).startswith('qemu-system') and \
            '-qmp' not in argv:
        qmp = os.path.join(tempfile.mkdtemp(prefix='irqlab-qmp-'), 's')
        argv = argv[:1] + ['-qmp', 'unix:%s,server=on,wait=off' % qmp] + \
            argv[1:]
    out = _begin(argv, base, strip_cr)
    full_env = dict(os.environ, **(env or {}))
    t0 = time.monotonic()
    with open(out, 'wb') as o, open(_file(base, '.err'), 'wb') as e:
        p = subprocess.Popen(argv, cwd=ROOT, stdin=subprocess.DEVNULL,
                             stdout=o, stderr=e, env=full_env,
                             start_new_session=True)
        try:
            status = p.wait(timeout=timeout)
        except subprocess.TimeoutExpired:
            status = None
            if qmp:
                e.write(qmp_dump(qmp, 'the test: QEMU ran past %d s'
                                 % timeout).encode())
                e.flush()
            _stop(p)
    if qmp:
        shutil.rmtree(os.path.dirname(qmp), ignore_errors=True)
    seconds = time.monotonic() - t0
    _end(base, out, strip_cr)
    return Run(base.name, base, argv, status, seconds, timeout, strict)


def _begin(argv, base, strip_cr, where=''):
    """base's old files removed, base.cmd written; the file stdout goes
    to (base.raw when its CRs are to be dropped)."""
    base.parent.mkdir(parents=True, exist_ok=True)
    for ext in ('.out', '.err', '.json', '.raw'):
        _file(base, ext).unlink(missing_ok=True)
    _file(base, '.cmd').write_text(
        where + ' '.join(map(shlex.quote, argv)) + '\n')
    return _file(base, '.raw' if strip_cr else '.out')


def _end(base, out, strip_cr):
    if strip_cr and out.exists():   # a serial console's CR LF, as tr -d
        _file(base, '.out').write_bytes(out.read_bytes().replace(b'\r', b''))


def execute_in_rig(argv, base, timeout, env=None, strip_cr=False,
                   strict=True, smp=None):
    """As execute(), but argv runs inside the nested rig's server (one
    rig boot for the whole session: rigserver.py); a broken rig gives
    status 125 with a RIG: line on stderr."""
    out = _begin(argv, base, strip_cr, '(in the nested rig) ')
    t0 = time.monotonic()
    status = rig_server(smp).run(argv, out, _file(base, '.err'), timeout,
                                 env)
    seconds = time.monotonic() - t0
    _end(base, out, strip_cr)
    return Run(base.name, base, argv, status, seconds, timeout, strict)


_RIG_SERVER = {}


def rig_server(smp=None):
    """The session's rig server with @smp CPUs (None: the rig's default;
    each started on first use, stopped by stop_rig_server() at the
    session's end); skip or fail as nested_rig() does if the rig cannot
    run here."""
    nested_rig()
    if smp not in _RIG_SERVER:
        from runner import rigserver
        try:
            _start_rig_server(smp)
        except rigserver.RigError as e:
            pytest.fail('the nested-KVM rig with %s CPUs does not start: %s'
                        % (smp, e), pytrace=False)
    return _RIG_SERVER[smp]


def _start_rig_server(smp):
    from runner import rigserver
    srv = rigserver.RigServer(ROOT, smp)
    srv.start()
    _RIG_SERVER[smp] = srv


def rig_server_boots():
    """The rig boots of this session's servers: starts and restarts."""
    return sum(s.boots for s in _RIG_SERVER.values())


def stop_rig_server():
    for smp, s in _RIG_SERVER.items():
        s.stop()
        if s.boots:
            print('nested rig server (%s CPUs): %d command(s), %d rig '
                  'boot(s)' % (smp or 'default', s.n, s.boots))


def _stop(p):
    for sig in (signal.SIGTERM, signal.SIGKILL):
        try:
            os.killpg(p.pid, sig)
        except ProcessLookupError:
            return
        try:
            p.wait(timeout=5)
            return
        except subprocess.TimeoutExpired:
            pass


# ---- what the host has ----------------------------------------------------

def kvm_usable():
    """A /dev/kvm this process can open (and IRQLAB_TEST_KVM is not nested)."""
    if os.environ.get('IRQLAB_TEST_KVM', 'auto') == 'nested':
        return False
    return (os.path.exists('/dev/kvm') and
            os.access('/dev/kvm', os.R_OK | os.W_OK))


def no_kvm_reason():
    if os.environ.get('IRQLAB_TEST_KVM', 'auto') == 'nested':
        return '/dev/kvm set aside (IRQLAB_TEST_KVM=nested)'
    return 'no usable /dev/kvm'


@functools.lru_cache(maxsize=None)
def qemu_missing():
    """Why QEMU TCG cannot run here, or None."""
    if not shutil.which(QEMU):
        return '%s is not installed' % QEMU
    p = subprocess.run([QEMU, '-accel', 'help'], capture_output=True,
                       text=True)
    if 'tcg' not in p.stdout.split():
        return '%s has no TCG accelerator (%s -accel help)' % (QEMU, QEMU)
    if not (ROOT / KERNEL32).exists():
        pytest.fail('%s is missing (make all)' % KERNEL32, pytrace=False)
    return None


@functools.lru_cache(maxsize=None)
def qemu_device_missing(name):
    """Why QEMU has no -device name (a distribution may leave test
    devices out), or None."""
    why = qemu_missing()
    if why:
        return why
    p = subprocess.run([QEMU, '-device', 'help'], capture_output=True,
                       text=True)
    if not re.search(r'^name "%s"' % re.escape(name), p.stdout, re.M):
        return '%s has no -device %s' % (QEMU, name)
    return None


@functools.lru_cache(maxsize=None)
def grub_missing():
    """Why scripts/mkiso cannot build a GRUB image here, or None."""
    p = subprocess.run(['scripts/mkiso', '--check'], cwd=ROOT,
                       capture_output=True, text=True)
    if p.returncode == 3:
        return p.stderr.strip()
    assert p.returncode == 0, 'scripts/mkiso --check: status %d: %s' % (
        p.returncode, p.stderr)
    return None


# OVMF's code and variable store: Debian's ovmf (4 MiB, then 2 MiB), or
# $OVMF_CODE and $OVMF_VARS
OVMF_PAIRS = [('/usr/share/OVMF/OVMF_CODE_4M.fd',
               '/usr/share/OVMF/OVMF_VARS_4M.fd'),
              ('/usr/share/OVMF/OVMF_CODE.fd', '/usr/share/OVMF/OVMF_VARS.fd')]


def ovmf_files():
    """(code, vars) of an OVMF build, or (None, why)."""
    pairs = OVMF_PAIRS
    if os.environ.get('OVMF_CODE') or os.environ.get('OVMF_VARS'):
        pairs = [(os.environ.get('OVMF_CODE', ''),
                  os.environ.get('OVMF_VARS', ''))]
    for code, vars_ in pairs:
        if os.path.isfile(code) and os.path.isfile(vars_):
            return code, vars_
    return None, 'no OVMF firmware (apt-get install ovmf; or set OVMF_CODE ' \
        'and OVMF_VARS): looked for %s' % ', '.join(c for c, _ in pairs)


@functools.lru_cache(maxsize=None)
def _grub_iso(entry):
    out = ROOT / OUT / 'iso' / ('irqlab-%s.iso' % (entry or 'default'))
    out.parent.mkdir(parents=True, exist_ok=True)
    argv = ['scripts/mkiso'] + (['-d', entry] if entry else []) + \
        [KERNEL, str(out)]
    p = subprocess.run(argv, cwd=ROOT, capture_output=True, text=True)
    if p.returncode != 0:
        return None, '%s: status %d\n%s' % (' '.join(argv), p.returncode,
                                             p.stderr)
    return str(out.relative_to(ROOT)), None


def grub_iso(entry=None):
    """build/tests/iso/irqlab-ENTRY.iso: scripts/mkiso's image (make iso's
    with entry=None) with ENTRY the default; skips if the tools are
    missing, built once a session, a failure fails every test using it."""
    why = grub_missing()
    if why:
        pytest.skip(why)
    iso, why = _grub_iso(entry)
    if why:
        pytest.fail(why, pytrace=False)
    return iso


@functools.lru_cache(maxsize=None)
def perf_missing():
    """Why `perf stat` cannot count KVM's tracepoints here, or None."""
    if not shutil.which('perf'):
        return 'perf is not installed'
    p = subprocess.run(['perf', 'stat', '-e', 'kvm:kvm_userspace_exit',
                        'true'], capture_output=True, text=True)
    if p.returncode != 0:
        line = (p.stderr.strip().splitlines() or ['?'])[0]
        return 'perf cannot count kvm:kvm_userspace_exit: %s' % line
    return None


@functools.lru_cache(maxsize=None)
def _rig_probe():
    """Start the session's rig server (rigserver.py): whether the rig
    runs here is whether it starts."""
    from runner import rigserver
    try:
        _start_rig_server(None)
    except rigserver.RigSkip as e:
        return 'skip', 'the nested-KVM rig cannot run here: %s' % e
    except rigserver.RigError as e:
        return 'fail', 'the nested-KVM rig does not work: %s' % e
    return 'ok', None


def _qemu_cpu(accel, cpu_flags, nested=False):
    """QEMU's -cpu arguments for @accel ([] for TCG), or skip: no QEMU,
    no /dev/kvm for QEMU/KVM, or no -cpu model it starts with here.  In
    the nested rig (@nested) QEMU/KVM runs on the rig's kvm_amd, where
    -cpu host starts."""
    why = qemu_missing()
    if why:
        pytest.skip(why)
    if accel != 'kvm':
        return []
    if nested:
        return ['-cpu', 'host' + (',' + cpu_flags if cpu_flags else '')]
    if not kvm_usable():
        pytest.skip(no_kvm_reason() + ' for QEMU/KVM')
    model, why = qemu_kvm_cpu(cpu_flags)
    if not model:
        pytest.skip(why)
    return ['-cpu', model]


def nested_rig():
    """Skip (the rig cannot run here) or fail (it broke) unless
    tests/nested/run-in-kvm.sh works; probed once."""
    what, why = _rig_probe()
    if what == 'skip':
        pytest.skip(why)
    if what == 'fail':
        pytest.fail(why, pytrace=False)


@functools.lru_cache(maxsize=None)
def qemu_kvm_cpu(flags=''):
    """The -cpu model QEMU/KVM starts with here (scripts/qemu-kvm-cpu),
    with flags added; skips, with its reason, if there is none."""
    argv = ['scripts/qemu-kvm-cpu'] + (['--with', flags] if flags else [])
    p = subprocess.run(argv, cwd=ROOT, capture_output=True, text=True,
                       env=dict(os.environ, QEMU=QEMU))
    if p.returncode in (3, 4, 5):
        return None, p.stderr.strip().splitlines()[-1]
    assert p.returncode == 0, 'scripts/qemu-kvm-cpu: status %d: %s' % (
        p.returncode, p.stderr)
    return p.stdout.strip(), None


# ---- the boot fixture's object ---------------------------------------------

_SHARED = {}


class Booter:
    """Boots for one test; files under build/tests/<test module>/."""

    def __init__(self, module, nested):
        self.dir = ROOT / OUT / module
        self.nested = nested    # irqlab-vmm through the nested rig
        self.rig_smp = None     # the rig's CPUs there (None: its default)

    def run(self, name, argv, timeout, **kw):
        """Any command, at the repository root."""
        return execute([str(a) for a in argv], self.dir / name, timeout, **kw)

    def in_kvm(self, name, argv, timeout, env=None, strip_cr=False,
               strict=True):
        """argv (a host program that needs /dev/kvm: irqlab-vmm, a
        sanitizer build of it) at the repository root: directly, or in
        the nested rig's server when the test runs there, with a minute at
        least (the rig is slow)."""
        argv = [str(a) for a in argv]
        if not self.nested:
            r = execute(argv, self.dir / name, timeout, env, strip_cr, strict)
            why = sti_shadow(r)
            if why:
                pytest.fail('%s: %s, and this is not the nested rig\n%s' %
                            (name, why, r.report()), pytrace=False)
            return r
        first = str((self.dir / name).relative_to(ROOT)) + '.'

        def once(n):
            # a second boot writes its own files (--stats-json's too)
            again = str((self.dir / n).relative_to(ROOT)) + '.'
            return execute_in_rig([again + a[len(first):]
                                   if a.startswith(first) else a
                                   for a in argv], self.dir / n,
                                  max(timeout, 60), env, strip_cr, strict,
                                  self.rig_smp)
        return rig_rule(self, name, once, sti_shadow, rig_fail_entry,
                        rig_dup_dest)

    def vmm(self, name, *args, timeout=30, stats=True, env=None,
            strict=True):
        """irqlab-vmm ARGS (--stats --stats-json with stats=True, only
        --stats-json with stats='json'); in the nested rig when the test
        runs there (in_kvm())."""
        js = str(_file(self.dir / name, '.json').relative_to(ROOT))
        pre = {True: ['--stats', '--stats-json', js],
               'json': ['--stats-json', js], False: []}[stats]
        return self.in_kvm(name, [VMM] + pre + list(args), timeout, env,
                           strict=strict)

    def shared_vmm(self, name, *args, **kw):
        """The same boot for every test that asks for it in this session
        (each test runnable alone: the first to ask boots)."""
        key = (self.dir, name, args, tuple(sorted(kw.items())), self.nested)
        if key not in _SHARED:
            _SHARED[key] = self.vmm(name, *args, **kw)
        return _SHARED[key]

    def qemu(self, name, *args, timeout=60, accel='tcg', cpu_flags='',
             kernel=KERNEL32):
        """QEMU -kernel irqlab32.elf (multiboot 1; kernel=KERNEL_PVH: the
        PVH entry), serial on stdout (CRs dropped), the kernel's status V
        as QEMU's (V << 1) | 1 (isa-debug-exit).  accel='kvm' takes
        scripts/qemu-kvm-cpu's model (skip if none)."""
        cpu = _qemu_cpu(accel, cpu_flags, self.nested)
        argv = ([QEMU, '-accel', accel] + cpu +
                ['-m', '64', '-kernel', kernel,
                 '-device', 'isa-debug-exit,iobase=0xf4,iosize=0x04',
                 '-serial', 'stdio', '-display', 'none', '-no-reboot',
                 '-nodefaults'] + list(args))
        return self._qemu_run(name, argv, timeout, accel)

    def _qemu_run(self, name, argv, timeout, accel):
        """QEMU/KVM in the nested rig when the test runs there."""
        if accel == 'kvm' and self.nested:
            return self.in_kvm(name, argv, timeout, strip_cr=True)
        return self.run(name, argv, timeout, strip_cr=True)


    def qemu_iso(self, name, iso, firmware='seabios', timeout=120,
                 accel='tcg', smp=2, cpu_flags=''):
        """QEMU booting ISO from its CD drive through firmware ('seabios':
        the pc machine's BIOS; 'ovmf': q35 with OVMF in pflash, the
        variable store a fresh copy), serial on stdout (CRs dropped), the
        kernel's status V as QEMU's (V << 1) | 1 (isa-debug-exit)."""
        cpu, machine = _qemu_cpu(accel, cpu_flags, self.nested), []
        if firmware == 'ovmf':
            code, vars_ = ovmf_files()
            if not code:
                pytest.skip(vars_)
            copy = _file(self.dir / name, '.vars.fd')
            copy.parent.mkdir(parents=True, exist_ok=True)
            shutil.copyfile(vars_, copy)
            machine = ['-machine', 'q35',
                       '-drive', 'if=pflash,format=raw,unit=0,readonly=on,'
                       'file=' + code,
                       '-drive', 'if=pflash,format=raw,unit=1,file=%s' %
                       copy.relative_to(ROOT)]
        argv = ([QEMU, '-accel', accel] + cpu + machine +
                ['-m', '128', '-smp', str(smp), '-cdrom', iso,
                 '-device', 'isa-debug-exit,iobase=0xf4,iosize=0x04',
                 '-serial', 'stdio', '-display', 'none', '-no-reboot',
                 '-nodefaults'])
        return self._qemu_run(name, argv, timeout, accel)


# ---- the nested rig's rule (tests/nested/README.md "The rule") --------------
# QEMU TCG's SVM can deliver an event L1 KVM injected a second time
# (helper_vmrun() leaves the vector in exception_index:
# tests/nested/README.md "Faults of the nested rig").  A boot in the rig may be run again once,
# loudly, only when it shows one of these classified faults, each from
# evidence that irqlab cannot produce: all are boots where KVM's LAPIC,
# not irqlab's, delivers every interrupt (--irqchip=split or kernel), and
# irqlab's seccomp filter forbids its threads any ioctl that injects.

KVM_LAPIC = ('--irqchip=split', '--irqchip=kernel')


def kvm_lapic(argv):
    return any(a in KVM_LAPIC for a in argv)


def rig_dup_ipi(r):
    """@ipi_check with nothing lost and an IPI received twice: the second
    delivery of one injection (a status other than 0)."""
    if r.status != 0 and kvm_lapic(r.argv) and \
            r.has(r'^@ipi_check .* lost=0 dup=[1-9]'):
        return 'an IPI delivered twice by KVM\'s LAPIC: ' + ' | '.join(
            r.grep(r'^(@ipi_check|ipi_check: cpu [0-9]+ ->)'))
    return None


DUP_DEST = re.compile(
    r"^lapic_check: dest: .*: HOST: KVM's LAPIC: (?:logical|physical) "
    r"0x[0-9a-f]+: CPUs 0x([0-9a-f]+) took it \(0x([0-9a-f]+) more than "
    r"once\), want 0x([0-9a-f]+)$", re.M)


def rig_dup_dest(r):
    """check=lapic's dest step, with KVM's LAPIC: every CPU the IPI was for
    took it and no other did, but one took it more than once: the second
    delivery of one injection (kernel/check/lapic_check_dest.c deliver())."""
    if not kvm_lapic(r.argv):
        return None
    for m in DUP_DEST.finditer(r.out):
        took, twice, want = (int(x, 16) for x in m.groups())
        if took == want and twice and not twice & ~want:
            return 'an IPI delivered twice by KVM\'s LAPIC: ' + m.group(0)
    return None


FAIL_ENTRY = re.compile(r'vcpu([0-9]+): KVM_EXIT_FAIL_ENTRY, hardware reason '
                        r'0xffffffff\n\s+RIP=([0-9a-f]+)')


def rig_fail_entry(r):
    """KVM_RUN refused to enter an AP that had already run: status 12
    (KVM_EXIT_FAIL_ENTRY) with hardware reason 0xffffffff (SVM's
    VMEXIT_INVALID: VMRUN found the saved state invalid), on vcpu N >= 1
    after the kernel printed "smp: cpu N online", with KVM's LAPIC.
    There irqlab-vmm sets an AP's registers never (KVM's INIT and SIPI
    do) and its vCPU threads cannot (the seccomp filter allows
    KVM_SET_REGS and KVM_SET_SREGS in --irqchip=user only), so the state
    VMRUN refused is what the rig's KVM and QEMU's SVM made of the
    guest's own."""
    if r.status != 12 or not kvm_lapic(r.argv):
        return None
    m = FAIL_ENTRY.search(r.err)
    if not m or m.group(1) == '0' or \
            not r.has(r'^smp: cpu %s online' % m.group(1)):
        return None
    return ('the rig refused to enter vcpu%s, an AP already running, at RIP '
            '0x%s (KVM_EXIT_FAIL_ENTRY, SVM VMEXIT_INVALID)' % m.groups())


def user_lapic_host(step, detail):
    """True when check=lapic's @step ('tpr: lowered cr8') came out HOST
    under --irqchip=user (irqlab's LAPIC) for a reason the host gives, with
    its evidence: a KVM with no KVM_EXIT_SET_TPR (kvm_pvm) lets the guest
    lower CR8 with no exit, and one that opens the interrupt window late
    makes the window steps HOST.  Every other step of irqlab's LAPIC must
    be ok (test_lapic_check, test_conformance)."""
    if step == 'tpr: lowered cr8':
        return detail.startswith('no exit at the MOV (no KVM_EXIT_SET_TPR)')
    return step.startswith('window: ')


def sti_shadow(run):
    """The kernel's @fault kind=sti_shadow record (docs/RECORDS.md): an
    interrupt taken inside STI's shadow, described, or None."""
    f = records.sti_shadow(run.records)
    if f is None:
        return None
    return ('%s interrupt(s) taken inside STI\'s shadow, the first vector '
            '%s at the HLT at %s (@fault: the hypervisor injected while '
            'its guest could not take one)' % (f.get('n'), f.get('vector'),
                                               f.get('rip')))


def rig_rule(boot, name, once, *faults):
    """once(name) -> Run: a boot.  In the rig, a boot that shows one of
    @faults (functions of a Run: the fault's description, or None) is
    booted once more (once(name + '-again')), with a FLAKE note; if that
    one shows a fault too, the test is an expected failure naming both.
    Anywhere else, or for any other failure, the first boot is the
    answer."""
    r = once(name)
    if not boot.nested:
        return r
    why = next((w for w in (f(r) for f in faults) if w), None)
    if not why:
        return r
    first = r.base.relative_to(ROOT)
    note('FLAKE: nested rig: %s: %s (%s.*); booted again (tests/nested/'
         'README.md "The rule")' % (name, why, first))
    r = once(name + '-again')
    again = next((w for w in (f(r) for f in faults) if w), None)
    if again:
        pytest.xfail('nested rig, twice: %s: %s (%s.*); then %s (%s.*): '
                     'QEMU TCG\'s SVM, not irqlab (tests/nested/README.md '
                     '"Faults of the nested rig")' % (name, why, first, again,
                                          r.base.relative_to(ROOT)))
    return r


# ---- the tiny long-mode guests (tests/integration/*.S) ---------------------

@functools.lru_cache(maxsize=None)
def _build_guest(name, src, defines):
    d = ROOT / OUT / 'guests'
    d.mkdir(parents=True, exist_ok=True)
    obj, elf = d / (name + '.o'), d / (name + '.elf')
    for argv in (['gcc'] + list(defines) + ['-Itests/integration', '-c',
                                            src, '-o', str(obj)],
                 ['ld', '-m', 'elf_x86_64', '-Ttext', '0x100000', '-N',
                  '-e', 'start', '--no-warn-rwx-segments', '-o', str(elf),
                  str(obj)]):
        p = subprocess.run(argv, cwd=ROOT, capture_output=True, text=True)
        if p.returncode != 0:
            return None, '%s %s does not build: %s\n%s' % (
                src, ' '.join(defines), ' '.join(argv), p.stderr)
    return str(elf.relative_to(ROOT)), None


def guest(name, src, *defines):
    """build/tests/guests/NAME.elf from SRC (with its -D flags), linked
    at 1 MiB; built once a session, a failure fails every test using it."""
    elf, why = _build_guest(name, src, tuple(defines))
    if why:
        pytest.fail(why, pytrace=False)
    return elf


# ---- assertions with the output in their message ----------------------------

def has(run, pattern, stream='out'):
    """Some line of run's stream (out, err) matches pattern (Python re)."""
    assert run.has(pattern, stream), "%s: no %s line matching '%s'\n%s" % (
        run.name, stream, pattern, run.report())


def status(run, want):
    assert run.status == want, '%s: %s, want %d\n%s' % (
        run.name, run.status_text(), want, run.report())


def line(run, pattern, stream='out'):
    """Some whole line of run's stream matches pattern."""
    has(run, '^(%s)$' % pattern, stream)


def no_line(run, pattern, stream='out'):
    """No whole line of run's stream matches pattern."""
    bad = run.grep('^(%s)$' % pattern, stream)
    assert not bad, '%s: unexpected %s line %r\n%s' % (
        run.name, stream, bad[0], run.report())


def qemu_status(run, want, what):
    """QEMU's status: the kernel's V as (V << 1) | 1 (isa-debug-exit)."""
    assert run.status is not None, '%s: %s\n%s' % (
        run.name, run.status_text(), run.report())
    assert run.status == want, 'QEMU exit status %d, want %d (%s)\n%s' % (
        run.status, want, what, run.report())
