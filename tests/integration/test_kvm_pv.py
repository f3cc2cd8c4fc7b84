"""KVM's own paravirtual features with KVM's LAPIC (--irqchip=kernel and
split): KVM_FEATURE_PV_EOI (--pv-eoi=on) and KVM_FEATURE_PV_SEND_IPI
(--pv-ipi=on), both offered in KVM's leaves at 0x40000100.

They need a KVM that runs the guest's hypercalls and sets the PV EOI
flag.  kvm_pvm does neither (docs/LAPIC.md), so where /dev/kvm is
kvm_pvm's, or missing, irqlab-vmm runs on the nested rig's real KVM
(tests/nested/run-in-kvm.sh, skipped with its reason where the rig cannot
run); on a real VMX or SVM host it runs directly.  The check is check=ipi:
exact, its multicast rounds sent by KVM_HC_SEND_IPI, and most EOIs taken
by KVM's flag rather than by the register."""
import pytest

import harness
from harness import KERNEL, line
from test_pv_latency import kvm_hypercalls_loop
from test_vmm_boot import smp_boot


def booter(request):
    """Directly on a /dev/kvm that completes hypercalls; else the rig."""
    direct = harness.kvm_usable() and not kvm_hypercalls_loop()
    return harness.Booter(request.module.__name__, not direct)


@pytest.mark.parametrize('chip', ['kernel', 'split'])
def test_kvm_pv_eoi_and_send_ipi(request, chip):
    # a duplicated IPI twice is KVM's LAPIC's, as in test_vmm_boot
    r = smp_boot(booter(request), 'kvm-pv-' + chip,
                 ['--irqchip=' + chip, '--cpus', '3', '--pv-eoi=on',
                  '--pv-ipi=on', '-a', 'check=ipi', KERNEL])
    line(r, r'@pveoi kind=kvm')
    line(r, r'pv_ipi: KVM_HC_SEND_IPI multicast IPIs')
    rec = r.rec('ipi_check')
    assert rec and rec['multicast'] == 'pv', r.report()
    sent = int(rec['sent'])
    assert (int(rec['received']), int(rec['lost']), int(rec['dup'])) == \
        (sent, 0, 0), rec.line
    st = r.rec('pveoi_stats')
    assert st and st['kind'] == 'kvm', r.report()
    taken, written = int(st['taken']), int(st['written'])
    # the flag is set only when the EOI would clear the one vector in
    # service: most of check=ipi's EOIs, not all
    assert taken > written, st.line
