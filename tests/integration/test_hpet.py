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


@pytest.mark.parametrize('chip', ['user', 'kernel'])
def test_calib_against_the_hpet(boot, chip):
    """calib=hpet (docs/CALIB.md): the TSC and the APIC timer against the
    HPET's main counter, its reads counted as MMIO exits, no port I/O,
    and the rate within its own bound of CPUID 0x15's (the truth here)."""
    r = boot.vmm('calib-hpet-' + chip, '--irqchip=' + chip, '--hpet=on',
                 '--x2apic', '-a', 'calib=hpet', KERNEL)
    status(r, 0)
    rec = r.rec('calib')
    assert rec['source'] == 'hpet' and rec['use'] == '1', r.report()
    assert rec['pio'] == rec['pio_exits'] == '0', rec.line
    assert int(rec['mmio']) == int(rec['mmio_exits']) > int(rec['polls']) \
        > 0, rec.line
    truth = boot.vmm('calib-truth-' + chip, '--irqchip=' + chip,
                     '-a', 'calib=cpuid15', KERNEL)
    status(truth, 0)
    want = int(truth.rec('calib')['tsc_khz'])
    err = abs(int(rec['tsc_khz']) - want) * 1e6 / want
    assert err <= int(rec['tsc_err_ppm']) + 1000, (err, rec.line)


def test_calib_hpet_without_one(boot):
    r = boot.vmm('calib-hpet-none', '-a', 'calib=hpet', KERNEL)
    status(r, 0)
    rec = r.rec('calib')
    assert rec['source'] == 'none' and 'hpet:' in rec.get('reason', ''), \
        rec.line
