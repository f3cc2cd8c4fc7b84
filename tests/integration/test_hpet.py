"""irqlab-vmm --hpet=on (vmm/pc/hpet.c, wired in irqchip/isa.c) and the
kernel's check=hpet (kernel/check/hpet_check.c, docs/RECORDS.md
@hpet_check): the HPET found through its ACPI table, its counter at the
advertised period, one-shot, periodic, legacy-route and level
interrupts, in user, split and kernel mode (KVM_IRQ_LINE, and KVM's
8254 cut off IRQ0 under legacy replacement); no HPET without the
option."""
import pytest

from harness import KERNEL, status

pytestmark = pytest.mark.kvm_or_nested('--hpet is irqlab-vmm\'s')


@pytest.mark.parametrize('chip', ['user', 'split', 'kernel'])
def test_check_hpet(boot, chip):
    r = boot.vmm('hpet-' + chip, '--cpus', '2', '--irqchip=' + chip,
                 '--hpet=on', '--stats', '-a', 'check=hpet', KERNEL)
    status(r, 0)
    rec = r.rec('hpet_check')
    assert rec, r.report()
    assert rec['fail'] == '0' and rec['skip'] == '0', r.report()
    assert int(rec['ok']) == 7, r.report()
    assert rec['base'] == '0xfed00000' and rec['period_fs'] == '10000000'
    assert rec['timers'] == '3' and rec['legacy'] == '1'


def test_no_hpet_by_default(boot):
    r = boot.vmm('hpet-none', '-a', 'check=hpet', KERNEL)
    status(r, 0)
    assert r.rec('hpet_check')['skipped'] == 'no-hpet', r.report()
