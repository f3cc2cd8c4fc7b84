"""The seccomp filters of the vCPU threads and of the PIT's timer thread
(docs/SECURITY.md).

A forbidden call from a jailed thread ends irqlab-vmm with status 20 and
one line naming the call.  The forbidden call is made on purpose through
IRQLAB_SECCOMP_SELFTEST=NAME, which irqlab-vmm reads at startup and
announces on stderr: vCPU 0 makes that call (pit:NAME: the PIT's timer
thread), all arguments zero, right after its filter is in.  Then full
boots in every irqchip mode, SMP, xAPIC and x2APIC, with --halt-poll,
--timeout and a guest failure: the filter is in on every vCPU and, in user
and split mode, on the PIT's thread (the --stats lines say so), and
nothing is trapped.  In kernel mode with --hpet=on the same thread runs
the HPET alone, as "the HPET's timer thread", with KVM_IRQ_LINE.
A sanitizer build has no filter (docs/SECURITY.md): this needs the
ordinary build/irqlab-vmm."""
import pytest

from harness import (KERNEL as K, ROOT, VMM, has, no_line, rig_dup_ipi,
                     rig_rule, status)

pytestmark = pytest.mark.kvm_or_nested('the filter goes in on a running vCPU thread')


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
TRAP = (r'^irqlab-vmm: %s: system call %s \(%d\) is not allowed by the '
        r'seccomp filter; --no-seccomp turns the filter off$')
# per irqchip mode: system calls the filter allows, ioctl requests
ALLOWED = {'user': (15, 13), 'split': (14, 6), 'kernel': (12, 4),
           'kernel-hpet': (13, 6)}
# the PIT's timer thread's (KVM's own PIT in kernel mode: no such thread,
# unless --hpet=on, then it is the HPET's)
PIT_ALLOWED = {'user': (13, 0), 'split': (14, 1), 'kernel-hpet': (14, 1)}
PIT_LINE = (r'^ seccomp: the %s timer thread may make %d system calls '
            r'\(%d ioctl requests?\); filter in: yes$')


def thread_of(chip):
    return "HPET's" if chip == 'kernel-hpet' else "PIT's"


def filter_line(chip, cpus):
    calls, ioctls = ALLOWED[chip]
    return (r'^ seccomp: each vCPU thread may make %d system calls \(%d '
            r'ioctl requests\); filters in: %d of %d vCPUs$' %
            (calls, ioctls, cpus, cpus))


def has_filters(r, chip, cpus):
    """Both --stats lines: every vCPU's filter in, and the PIT thread's in
    user and split mode (none in kernel mode)."""
    has(r, filter_line(chip, cpus), 'err')
    if chip in PIT_ALLOWED:
        has(r, PIT_LINE % ((thread_of(chip),) + PIT_ALLOWED[chip]), 'err')
    else:
        no_line(r, r" seccomp: the (PIT|HPET)'s timer thread.*", 'err')


def selftest(boot, name, call, *args):
    return boot.in_kvm(name, [VMM, '--stats'] + list(args) + [K], 60,
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
    has(r, TRAP % ('vCPU 0', call, nr), 'err')
    # it ends at once: no stats table, no second line about it
    no_line(r, ' seccomp: .*', 'err')
    assert len(r.grep('not allowed by the seccomp filter', 'err')) == 1, \
        r.report()


def chip_args(chip):
    """irqlab-vmm's options for a chip of PIT_ALLOWED"""
    if chip == 'kernel-hpet':
        return ['--irqchip=kernel', '--hpet=on']
    return ['--irqchip=' + chip]


# the PIT's thread: not in its filter (timer_settime: the vCPUs' APIC
# timer), or in it with other arguments (read and timerfd_settime: its
# timerfd; ioctl: KVM_SIGNAL_MSI on the VM fd in split mode)
PIT_FORBIDDEN = [('openat', 257), ('mmap', 9), ('read', 0),
                 ('timerfd_settime', 286), ('timer_settime', 223),
                 ('ioctl', 16)]


@pytest.mark.parametrize('call, nr', PIT_FORBIDDEN,
                         ids=[c for c, _ in PIT_FORBIDDEN])
@pytest.mark.parametrize('chip', ['user', 'split', 'kernel-hpet'])
def test_forbidden_call_pit(boot, chip, call, nr):
    r = selftest(boot, 'trap-pit-%s-%s' % (chip, call), 'pit:' + call,
                 *chip_args(chip), '--cpus', '2')
    status(r, EXIT_SECCOMP)
    who = 'the %s timer thread' % thread_of(chip)
    has(r, "^irqlab-vmm: %s: %s calls %s \\(%d\\) with zero arguments"
        % (SELFTEST, who, call, nr), 'err')
    has(r, TRAP % (who, call, nr), 'err')
    assert len(r.grep('not allowed by the seccomp filter', 'err')) == 1, \
        r.report()


def test_pit_selftest_needs_irqlabs_pit(boot):
    """With --irqchip=kernel the PIT is KVM's: no thread to make the call."""
    r = selftest(boot, 'pit-kernel', 'pit:getpid', '--irqchip=kernel')
    status(r, 2)
    has(r, "^irqlab-vmm: %s: pit:getpid: the PIT's timer thread is "
        "irqlab's only with --irqchip=user or split \\(or --hpet=on, the "
        "HPET's\\)$" % SELFTEST, 'err')


def test_allowed_call(boot):
    """getpid is in the filter: the selftest's call returns, the boot ends
    as always."""
    r = selftest(boot, 'allowed-getpid', 'getpid', '--cpus', '2')
    status(r, 0)
    has(r, '^@ready ')
    has_filters(r, 'user', 2)


@pytest.mark.parametrize('chip', ['user', 'split', 'kernel-hpet'])
def test_allowed_call_pit(boot, chip):
    """The thread's call returns, and its work goes on: the PIT's
    (check=ioapic), or the HPET's, KVM_IRQ_LINE and KVM_SET_PIT2 included
    (check=hpet)"""
    check = 'check=hpet' if chip == 'kernel-hpet' else 'check=ioapic'
    r = selftest(boot, 'allowed-pit-getpid-' + chip, 'pit:getpid',
                 *chip_args(chip), '--cpus', '2', '-a', check)
    status(r, 0)
    if chip == 'kernel-hpet':
        has(r, '^@hpet_check ok=7 fail=0 ')
    else:
        has(r, '^@ioapic_check ok=[1-9][0-9]* fail=0 .* pit=ok ')
    has_filters(r, chip, 2)


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
    if chip != 'user' and 'bench=' not in cmdline:
        # KVM's LAPIC and no timing: a rig of one CPU, where its second
        # delivery did not come in 50 boots (tests/nested/README.md "Fault
        # rate"); ipi_wake needs two, for its TSC check
        boot.rig_smp = 1
    r = rig_rule(boot, '%s-%s' % (name, chip), lambda n: boot.vmm(
        n, '--irqchip=' + chip, '--cpus', str(cpus), *opts, '-a', cmdline, K,
        timeout=120), rig_dup_ipi)
    status(r, want)
    has_filters(r, chip, cpus)
    no_line(r, '.*not allowed by the seccomp filter.*', 'err')


def test_halt_poll_jailed(boot):
    r = boot.vmm('halt-poll', '--cpus', '2', '--halt-poll', '200', '-a',
                 'check=ipi bench=ipi_wake iters=100', K, timeout=120)
    status(r, 0)
    has_filters(r, 'user', 2)


@pytest.mark.parametrize('chip', ['user', 'split'])
def test_trace_jailed(boot, chip):
    """--trace writes from the vCPU threads to stderr (fd 2); with KVM's
    irqchip there is nothing of irqlab's to trace."""
    trace = 'lapic,ioapic,pit,pic' if chip == 'user' else 'ioapic,pit,pic'
    r = boot.vmm('trace-' + chip, '--irqchip=' + chip, '--cpus', '2',
                 '--trace=' + trace, '-a', 'check=ioapic', K, timeout=120)
    status(r, 0)
    has_filters(r, chip, 2)
