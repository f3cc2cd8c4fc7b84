"""The kernel's Xen PVH entry (kernel/boot/pvh.S, docs/HYPERVISORS.md):
QEMU TCG's -kernel of irqlab-pvh.elf (the PVH note, no multiboot header)
and irqlab-vmm's PVH loader, each with 2 CPUs: the start info's command
line, memory map and RSDP reach the kernel (@boot proto=pvh, @smp
rsdp=pvh), the AP starts, check=ipi is exact and @calib is there."""
import pytest

from harness import KERNEL, KERNEL_PVH, has, line, no_line, qemu_status, status


def ipi_exact(r, n, k=100):
    s = n * k * (2 * (n - 1) + 1)
    line(r, '@ipi_check sent=%d received=%d lost=0 dup=0 cpus=%d k=%d '
         'stalls=0 tsc=[0-9]+' % (s, s, n, k))


@pytest.mark.qemu
def test_qemu_tcg_pvh(boot):
    r = boot.qemu('qemu-pvh', '-smp', '2', '-append', 'check=ipi',
                  kernel=KERNEL_PVH, timeout=120)
    line(r, '@boot proto=pvh hv=(TCGTCGTCGTCG|none) pv=0 mem_kb=[1-9][0-9]* '
         'mmap=[1-9][0-9]* mods=0 fwcfg_cpus=2 argc=1 path=0 ignored=0')
    line(r, r'pvh: loader "", cmdline "check=ipi", .*')
    # QEMU TCG has no CPUID 0x15/0x16: the PIT path, its bound met
    line(r, '@calib source=pit tsc_khz=[1-9][0-9]* .* bound=met .*')
    line(r, '@smp online=2 apic=xapic cpus=2 bsp=0 source=acpi rsdp=pvh')
    ipi_exact(r, 2)
    line(r, '@ready tsc=[0-9]+')
    no_line(r, '@panic.*')
    qemu_status(r, 1, 'kernel exit status 0')


@pytest.mark.kvm_or_nested
@pytest.mark.parametrize('apic', ['xapic', 'x2apic'])
def test_vmm_pvh(boot, apic):
    """--pvh enters irqlab.elf at its note although it has multiboot
    headers; the start info's RSDP is irqlab-vmm's ACPI tables."""
    r = boot.vmm('vmm-pvh-' + apic, '--pvh', '-c', '2', '-a',
                 'check=ipi apic=%s' % apic, KERNEL)
    status(r, 0)
    has(r, '^@boot proto=pvh hv=irqlab pv=1 .*fwcfg_cpus=2 argc=2 path=0 '
        'ignored=0$')
    has(r, '^@calib source=cpuid15 .* pio_exits=0 ')
    has(r, '^@smp online=2 apic=%s cpus=2 bsp=0 source=acpi rsdp=pvh$'
        % apic)
    ipi_exact(r, 2)


@pytest.mark.kvm_or_nested
def test_vmm_pvh_only_image(boot):
    """irqlab-pvh.elf has no multiboot header: irqlab-vmm finds the note
    by itself, as for a Linux vmlinux."""
    r = boot.vmm('vmm-pvh-only', '-c', '2', '-a', 'check=ipi',
                 KERNEL_PVH)
    status(r, 0)
    has(r, '^@boot proto=pvh ')
    ipi_exact(r, 2)
