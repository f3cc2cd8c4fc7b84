"""The irqlab kernel under QEMU/KVM, on the -cpu model QEMU starts with
here (scripts/qemu-kvm-cpu; skipped, with its reason, where none does):
the boot records of a plain boot and the kernel's exit status."""
import pytest

from harness import line, no_line, qemu_status

pytestmark = [pytest.mark.kvm_or_nested, pytest.mark.qemu]


def test_qemu_kvm_plain(boot):
    r = boot.qemu('plain', '-append', 'hello world', accel='kvm', timeout=120)
    qemu_status(r, 1, 'kernel exit status 0')
    line(r, 'irqlab kernel [^ ]+')
    line(r, '@cpuid vendor=[^ ]+ .* hv=KVMKVMKVM')
    line(r, '@boot proto=mb1 hv=KVMKVMKVM pv=0 .* fwcfg_cpus=1 argc=3 '
         'path=1 ignored=2')
    line(r, '@ready tsc=[0-9]+')
    no_line(r, '@panic.*')
