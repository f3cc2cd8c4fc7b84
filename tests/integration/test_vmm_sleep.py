"""A guest that asks for a sleep state the machine lacks (docs/VMM.md,
vmm/dev/acpipm.h): irqlab's DSDT offers S5 alone, so an SLP_EN with
another SLP_TYP ends the run at once, status 24, with a line that names
what was asked and what is offered: never silence until a timeout.  In
every irqchip mode (the PM1 block is irqlab's in all three)."""
import pytest

from harness import guest, has, status

pytestmark = pytest.mark.kvm_or_nested('the guest has to run')


@pytest.mark.parametrize('chip', ['user', 'split', 'kernel'])
def test_s3_gets_a_clear_answer(boot, chip):
    elf = guest('sleep-s3', 'tests/integration/sleep-s3.S')
    r = boot.vmm('s3-' + chip, '--irqchip=' + chip, '--timeout', '30', elf,
                 timeout=60, stats=False)
    status(r, 24)
    has(r, r'^irqlab-vmm: the guest asked for a sleep state this machine '
        r'lacks: SLP_TYP 1 with SLP_EN in PM1a_CNT \(port 0x604\); it '
        r'offers only S5, soft-off \(the DSDT\'s \\_S5, SLP_TYP 5\): the VM '
        r'ends \(status 24\)$', 'err')
    assert r.seconds < 20, '%s: the answer took %.1f s' % (r.name, r.seconds)
