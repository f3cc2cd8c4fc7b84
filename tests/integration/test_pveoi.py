"""--pv-eoi (docs/LAPIC.md "PV EOI"): with --irqchip=user an IPI costs 2
userspace exits instead of 3 (the EOI is a flag in guest memory), and
@ipi_check stays exact; with KVM's LAPIC (kernel, split) the kernel finds
KVM_FEATURE_PV_EOI in KVM's leaves and enables MSR_KVM_PV_EOI_EN.
Outcomes only: exit counts, records; no timing is checked."""
import pytest

from harness import KERNEL, line, note, rig_dup_ipi, rig_rule, status

pytestmark = pytest.mark.kvm_or_nested('PV EOI is a KVM feature of irqlab-vmm')

N = 100
WAKE_TRIES = 4


def bench(boot, name, *args, case, tries=1):
    """A boot running @case; the @bench record, or None if every one of
    @tries boots skipped it (ipi_wake: the TSCs looked skewed)."""
    for i in range(tries):
        r = boot.vmm('%s-%d' % (name, i), '--cpus', '2', *args, KERNEL,
                     timeout=120)
        status(r, 0)
        rec = r.rec('bench', case=case)
        if rec:
            return r, rec
        assert r.rec('bench_skip', case=case), r.report()
    return r, None


def near(v, want):
    """An exit count per op, to a few hundredths: a stray exit (a timer,
    the console) adds some, an IPI that finds its target not yet halted
    takes a HLT away."""
    return abs(v - want) < 0.05


def exits(rec):
    return {k: float(rec[k]) for k in ('exits_per_op', 'send_exits',
                                        'kick_exits', 'eoi_exits',
                                        'hlt_exits', 'other_exits')}


@pytest.mark.parametrize('apic', ['x2apic', 'xapic'])
@pytest.mark.parametrize('pveoi', ['on', 'off'])
def test_user_pingpong_exits(boot, pveoi, apic):
    r, rec = bench(boot, 'pingpong-%s-%s' % (pveoi, apic),
                   '--irqchip=user', '--pv-eoi=' + pveoi, '-a',
                   'bench=ipi_pingpong iters=%d apic=%s' % (N, apic),
                   case='ipi_pingpong')
    e = exits(rec)
    if pveoi == 'on':
        line(r, r'@pveoi kind=irqlab')
        # An EOI by the register is allowed when an interrupt was already
        # waiting in IRR as the handler entered (the flag is not set then):
        # how often depends on the timing (0.00 on an idle host, 0.03 in
        # the rig beside two CPU hogs), so the count is held to the EOIs
        # written, and the flag must do most of them.
        st = r.rec('pveoi_stats')
        assert st and int(st['taken']) + int(st['written']) >= 2 * N, \
            r.report()
        assert e['eoi_exits'] < 0.25 and \
            int(st['taken']) > 4 * int(st['written']), (e, st.line)
    else:
        line(r, r'@pveoi kind=none why=not-offered')
        assert e['eoi_exits'] == 1.0, e
        assert not r.rec('pveoi_stats')
    # One ICR write per IPI.  The target is kicked only when it is inside
    # KVM_RUN: one already out (in another exit, more often on a loaded
    # host: 0.95 in the rig beside two CPU hogs) takes the vector at its
    # next entry with no kick.  The parts add up to the whole.
    assert near(e['send_exits'], 1) and 0.5 <= e['kick_exits'] <= 1.05, e
    assert abs(e['exits_per_op'] - sum(e[k] for k in (
        'send_exits', 'kick_exits', 'eoi_exits', 'hlt_exits',
        'other_exits'))) < 0.02, e


@pytest.mark.parametrize('pveoi', ['on', 'off'])
def test_user_wake_exits(boot, pveoi):
    r, rec = bench(boot, 'wake-' + pveoi, '--irqchip=user',
                   '--pv-eoi=' + pveoi, '-a',
                   'bench=ipi_wake iters=%d apic=x2apic' % N,
                   case='ipi_wake', tries=WAKE_TRIES)
    if rec is None:
        pytest.skip('SKIP: ipi_wake skipped for TSC skew in %d boots '
                    '(a loaded host): its exits were not counted'
                    % WAKE_TRIES)
    e = exits(rec)
    # send, the target's HLT, and the EOI unless PV
    assert near(e['exits_per_op'], 2 if pveoi == 'on' else 3), e
    assert near(e['hlt_exits'], 1), e
    assert near(e['eoi_exits'], 0 if pveoi == 'on' else 1), e


def test_user_cmdline_off(boot):
    """pveoi=off on the kernel's command line: offered, not used."""
    r, rec = bench(boot, 'cmdline-off', '--irqchip=user', '--pv-eoi=on',
                   '-a', 'pveoi=off bench=ipi_pingpong iters=%d' % N,
                   case='ipi_pingpong')
    line(r, r'@pveoi kind=none why=cmdline')
    assert near(exits(rec)['eoi_exits'], 1)


@pytest.mark.parametrize('cpus', [2, 4])
def test_user_ipi_check_exact(boot, cpus):
    """Every IPI of check=ipi arrives once, with the EOIs lazy."""
    r = boot.vmm('ipi-check-%d' % cpus, '--irqchip=user', '--pv-eoi=on',
                 '--cpus', str(cpus), '-a', 'check=ipi', KERNEL, timeout=120)
    status(r, 0)
    line(r, r'@ipi_check sent=(\d+) received=\2 lost=0 dup=0 cpus=%d k=100 .*'
         % cpus)
    sent = int(r.rec('ipi_check')['sent'])
    st = r.rec('pveoi_stats')
    assert sent and st and int(st['taken']) >= sent // 2, r.report()


@pytest.mark.parametrize('chip', ['kernel', 'split'])
def test_kvm_pveoi(boot, chip):
    """KVM's PV EOI: the leaves are there only with --pv-eoi=on, the
    kernel enables the MSR, and @ipi_check is exact.  Whether KVM then
    sets the flag is the host KVM's business: said, not asserted."""
    r = rig_rule(boot, 'kvm-%s' % chip, lambda n: boot.vmm(
        n, '--irqchip=' + chip, '--pv-eoi=on', '--cpus', '2', '-a',
        'check=ipi', KERNEL, timeout=120), rig_dup_ipi)
    status(r, 0)
    line(r, r'@pveoi kind=kvm')
    assert not r.has('MSR_KVM_PV_EOI_EN #GP'), r.report()
    line(r, r'@ipi_check sent=(\d+) received=\2 lost=0 dup=0 cpus=2 .*')
    st = r.rec('pveoi_stats')
    assert st, r.report()
    if int(st['taken']) == 0:
        note('NOTE: --irqchip=%s --pv-eoi=on: this host\'s KVM accepted '
             'MSR_KVM_PV_EOI_EN but never set the flag (%s EOIs by the '
             'register; seen on kvm_pvm)' % (chip, st['written']))
    off = boot.vmm('kvm-%s-off' % chip, '--irqchip=' + chip, '--cpus', '2',
                   KERNEL, timeout=60)
    status(off, 0)
    line(off, r'@pveoi kind=none why=not-offered')


def test_bad_value(boot):
    r = boot.vmm('bad-value', '--pv-eoi=maybe', KERNEL, stats=False)
    status(r, 2)
    assert r.has('--pv-eoi must be on or off', 'err'), r.report()


@pytest.mark.parametrize('apic', ['x2apic', 'xapic'])
def test_user_checks_pass(boot, apic):
    """The kernel's own checks (timer, IOAPIC with its level EOIs, PIC,
    LAPIC rules) pass with the EOIs lazy, and most EOIs were."""
    r = boot.vmm('checks-' + apic, '--irqchip=user', '--pv-eoi=on',
                 '--cpus', '2', '-a', 'check=timer,ioapic,pic,lapic apic=%s'
                 % apic, KERNEL, timeout=300)
    status(r, 0)
    line(r, r'@timer_check oneshot=ok .*early=0 .*')
    line(r, r'@ioapic_check ok=\d+ fail=0 .*')
    line(r, r'@pic_check ok=\d+ fail=0 .*')
    line(r, r'@lapic_check ok=\d+ fail=0 .*')
    st = r.rec('pveoi_stats')
    assert st and int(st['taken']) > int(st['written']), r.report()
