"""check=kvmclock (kernel/check/kvmclock_check.c, docs/RECORDS.md
@kvmclock): KVM's paravirtual clock read through the leaves irqlab-vmm
advertises with --kvm-pv=on (at 0x40000100) and --kvm-pv=on,base (at
0x40000000, where a guest that reads only the first base looks), in
every irqchip mode: it never goes back and runs at the TSC's rate; and
the CPUID layout each spelling gives."""
import pytest

from harness import KERNEL, status

pytestmark = pytest.mark.kvm_or_nested('kvmclock is KVM\'s')


@pytest.mark.parametrize('chip', ['user', 'split', 'kernel'])
@pytest.mark.parametrize('pv', ['on', 'on,base'])
def test_kvmclock(boot, chip, pv):
    r = boot.vmm('kvmclock-%s-%s' % (chip, pv.replace(',', '-')),
                 '--cpus', '1', '--irqchip=' + chip, '--kvm-pv=' + pv,
                 '-a', 'check=kvmclock', KERNEL)
    status(r, 0)
    rec = r.rec('kvmclock')
    assert rec, r.report()
    if rec['ok'] == 'skipped':
        pytest.skip('this KVM offers no KVM_FEATURE_CLOCKSOURCE2: %s' %
                    r.grep('^kvmclock: SKIPPED.*')[0])
    assert rec['base'] == ('0x40000000' if pv == 'on,base' else
                           '0x40000100'), rec.line
    assert rec['ok'] == '1' and rec['back'] == '0', r.report()
    assert abs(int(rec['err_ppm'])) <= 1000, rec.line
    # irqlab's own leaves still found where they went: @boot says pv=1,
    # and the kernel's CPUID line names the first signature
    b = r.rec('boot')
    assert b['pv'] == '1', b.line
    cpuid = r.rec('cpuid')
    assert cpuid['hv'] == ('KVMKVMKVM' if pv == 'on,base' else
                           'irqlabirqlab'), cpuid.line


def test_base_needs_a_kvm_pv_spelling(boot):
    r = boot.vmm('kvmclock-bad', '--kvm-pv=base', '-a', 'check=kvmclock',
                 KERNEL)
    status(r, 2)
    assert 'on,base or sig,base' in r.err
