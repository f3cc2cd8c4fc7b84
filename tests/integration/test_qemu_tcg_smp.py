"""The irqlab kernel under QEMU TCG on several CPUs, its SMP records
checked (docs/RECORDS.md): every AP online (@smp), check=ipi's counts
exact (@ipi_check) on 4 CPUs, 1 CPU, and apic=x2apic on 2 CPUs (QEMU 7.2
TCG has no x2APIC: the kernel must warn and use xAPIC); check=timer's
LAPIC timer modes on 4 CPUs."""
import pytest

from harness import line, no_line, qemu_status

pytestmark = pytest.mark.qemu


def ipi_sent(n, k):
    """What @ipi_check must count on n CPUs: each sends k to each of the
    n-1 others, k to itself, and k broadcasts that reach n-1 CPUs."""
    return n * k * (2 * (n - 1) + 1)


def check_ipi(r, n, k):
    """@ipi_check exact for n CPUs and k, and the kernel went on."""
    s = ipi_sent(n, k)
    line(r, '@ipi_check sent=%d received=%d lost=0 dup=0 cpus=%d k=%d '
         'stalls=0 tsc=[0-9]+' % (s, s, n, k))
    line(r, '@ready tsc=[0-9]+')
    no_line(r, '@panic.*')
    qemu_status(r, 1, 'kernel exit status 0')


def test_smp4_ipi(boot):
    r = boot.qemu('smp4-ipi', '-smp', '4', '-append', 'check=ipi,timer',
                  timeout=120)
    line(r, '@smp online=4 apic=(xapic|x2apic) cpus=4 bsp=0 source=acpi rsdp=bios')
    aps = r.grep('^(smp: cpu [1-3] online, APIC ID [1-3])$')
    assert len(aps) == 3, '%d AP online lines, want 3\n%s' % (
        len(aps), r.report())
    check_ipi(r, 4, 100)
    # QEMU TCG's LAPIC offers no TSC-deadline mode without -cpu flags for it
    line(r, '@timer_check oneshot=ok periodic=10 tsc_deadline=(ok|absent) '
         'early=0 irqs=[0-9]+ stale=[0-9]+')


def test_smp1_ipi(boot):
    r = boot.qemu('smp1-ipi', '-smp', '1', '-append', 'check=ipi',
                  timeout=120)
    line(r, '@smp online=1 apic=(xapic|x2apic) cpus=1 bsp=0 source=acpi rsdp=bios')
    no_line(r, 'smp: cpu .*')
    check_ipi(r, 1, 100)


def test_smp2_x2apic(boot):
    r = boot.qemu('smp2-x2apic', '-smp', '2', '-append',
                  'check=ipi apic=x2apic ipi_k=10', timeout=120)
    if r.has('^@smp .*apic=xapic'):
        line(r, 'lapic: warning: apic=x2apic, but CPUID.1:ECX.21. .*')
    line(r, '@smp online=2 apic=(xapic|x2apic) cpus=2 bsp=0 source=acpi rsdp=bios')
    check_ipi(r, 2, 10)
