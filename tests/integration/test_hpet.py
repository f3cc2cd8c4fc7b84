"""irqlab-vmm --hpet=on (vmm/pc/hpet.c, wired in irqchip/isa.c) and the
kernel's check=hpet (kernel/check/hpet_check.c, docs/RECORDS.md
@hpet_check): the HPET found through its ACPI table, its counter at the
advertised period, one-shot, periodic, legacy-route and level
interrupts, in user and split mode; no HPET without the option; and a
clear refusal with KVM's IOAPIC, where it is not offered yet."""
import pytest

from harness import KERNEL, status

pytestmark = pytest.mark.kvm_or_nested('--hpet is irqlab-vmm\'s')


@pytest.mark.parametrize('chip', ['user', 'split'])
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


def test_hpet_with_kvm_ioapic_is_refused(boot):
    r = boot.vmm('hpet-kernel', '--irqchip=kernel', '--hpet=on', KERNEL)
    status(r, 2)
    assert '--hpet=on is for --irqchip=user and split' in r.err
