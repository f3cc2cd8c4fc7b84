"""The vCPU threads' seccomp filter (docs/SECURITY.md).

A forbidden call from a vCPU thread ends irqlab-vmm with status 20 and
one line naming the call.  The forbidden call is made on purpose through
IRQLAB_SECCOMP_SELFTEST=NAME, which irqlab-vmm reads at startup and
announces on stderr: vCPU 0 makes that call, all arguments zero, right
after its filter is in.  Then full boots in every irqchip mode, SMP, xAPIC
and x2APIC, with --halt-poll, --timeout and a guest failure: the filter
is in on every vCPU (the --stats line says so) and nothing is trapped.
A sanitizer build has no filter (docs/SECURITY.md): this needs the
ordinary build/irqlab-vmm."""
import pytest

from harness import KERNEL as K, ROOT, VMM, has, no_line, status

pytestmark = pytest.mark.kvm('the filter goes in on a running vCPU thread')


@pytest.fixture(autouse=True, scope='module')
def not_sanitized():
    """A sanitizer build has no filter (docs/SECURITY.md)."""
    exe = (ROOT / VMM).read_bytes() if (ROOT / VMM).exists() else b''
    for rt in (b'__asan_init', b'__tsan_init'):
        if rt in exe:
            pytest.skip('SKIP: %s is a sanitizer build (%s), which installs '
                        'no seccomp filter' % (VMM, rt.decode()))

EXIT_SECCOMP = 20
SELFTEST = 'IRQLAB_SECCOMP_SELFTEST'
TRAP = (r'^irqlab-vmm: vCPU 0: system call %s \(%d\) is not allowed by the '
        r'seccomp filter; --no-seccomp turns the filter off$')
# per irqchip mode: system calls the filter allows, ioctl requests
ALLOWED = {'user': (14, 13), 'split': (14, 6), 'kernel': (12, 4)}


def filter_line(chip, cpus):
    calls, ioctls = ALLOWED[chip]
    return (r'^ seccomp: each vCPU thread may make %d system calls \(%d '
            r'ioctl requests\); filters in: %d of %d vCPUs$' %
            (calls, ioctls, cpus, cpus))


def selftest(boot, name, call, *args):
    return boot.run(name, [VMM, '--stats'] + list(args) + [K], 60,
                    env={SELFTEST: call})


# (system call, its x86-64 number): not in the filter at all, or in it
# only with other arguments (write: fd 1 and 2; ioctl: KVM requests on
# the vCPU's and the VM's fd; tgkill: this process, SIGUSR1 and 2)
FORBIDDEN = [('openat', 257), ('getppid', 110), ('mmap', 9), ('write', 1),
             ('ioctl', 16), ('tgkill', 234)]


@pytest.mark.parametrize('call, nr', FORBIDDEN, ids=[c for c, _ in FORBIDDEN])
@pytest.mark.parametrize('chip', ['user', 'split', 'kernel'])
def test_forbidden_call(boot, chip, call, nr):
    r = selftest(boot, 'trap-%s-%s' % (chip, call), call,
                 '--irqchip=' + chip, '--cpus', '2')
    status(r, EXIT_SECCOMP)
    has(r, '^irqlab-vmm: %s: vCPU 0 calls %s \\(%d\\) with zero arguments'
        % (SELFTEST, call, nr), 'err')
    has(r, TRAP % (call, nr), 'err')
    # it ends at once: no stats table, no second line about it
    no_line(r, ' seccomp: .*', 'err')
    assert len(r.grep('not allowed by the seccomp filter', 'err')) == 1, \
        r.report()


def test_allowed_call(boot):
    """getpid is in the filter: the selftest's call returns, the boot ends
    as always."""
    r = selftest(boot, 'allowed-getpid', 'getpid', '--cpus', '2')
    status(r, 0)
    has(r, '^@ready ')
    has(r, filter_line('user', 2), 'err')


def test_no_seccomp(boot):
    """--no-seccomp: the same forbidden call returns, nothing is trapped."""
    r = selftest(boot, 'off-getppid', 'getppid', '--no-seccomp')
    status(r, 0)
    has(r, '^@ready ')
    has(r, r'^ seccomp: off \(--no-seccomp\)$', 'err')
    no_line(r, '.*not allowed by the seccomp filter.*', 'err')


def test_unknown_selftest_call(boot):
    r = selftest(boot, 'unknown', 'no_such_call')
    status(r, 2)
    has(r, "^irqlab-vmm: %s: no system call 'no_such_call'$" % SELFTEST,
        'err')


# full boots: (name, irqchip, cpus, options, kernel command line, status)
BOOTS = [
    ('x2apic', 2, ['--x2apic'], 'check=ipi,timer,ioapic', 0),
    ('xapic', 2, ['--no-x2apic'], 'check=ipi,timer,ioapic,pic apic=xapic', 0),
    ('smp4', 4, [], 'check=ipi,timer bench=ipi_wake,futex_wake iters=50', 0),
    ('lapic', 2, [], 'check=lapic', 0),
    ('hlt-guest', 2, ['--hlt', 'guest'], 'check=ipi', 0),
    ('timeout', 2, ['--timeout', '1'], 'bench=all iters=1000000', 18),
    ('panic', 2, [], 'crash=gp', 49),
]


@pytest.mark.parametrize('name, cpus, opts, cmdline, want', BOOTS,
                         ids=[b[0] for b in BOOTS])
@pytest.mark.parametrize('chip', ['user', 'split', 'kernel'])
def test_boot_jailed(boot, chip, name, cpus, opts, cmdline, want):
    r = boot.vmm('%s-%s' % (name, chip), '--irqchip=' + chip,
                 '--cpus', str(cpus), *opts, '-a', cmdline, K, timeout=120)
    status(r, want)
    has(r, filter_line(chip, cpus), 'err')
    no_line(r, '.*not allowed by the seccomp filter.*', 'err')


def test_halt_poll_jailed(boot):
    r = boot.vmm('halt-poll', '--cpus', '2', '--halt-poll', '200', '-a',
                 'check=ipi bench=ipi_wake iters=100', K, timeout=120)
    status(r, 0)
    has(r, filter_line('user', 2), 'err')


@pytest.mark.parametrize('chip', ['user', 'split'])
def test_trace_jailed(boot, chip):
    """--trace writes from the vCPU threads to stderr (fd 2); with KVM's
    irqchip there is nothing of irqlab's to trace."""
    trace = 'lapic,ioapic,pit,pic' if chip == 'user' else 'ioapic,pit,pic'
    r = boot.vmm('trace-' + chip, '--irqchip=' + chip, '--cpus', '2',
                 '--trace=' + trace, '-a', 'check=ioapic', K, timeout=120)
    status(r, 0)
    has(r, filter_line(chip, 2), 'err')
