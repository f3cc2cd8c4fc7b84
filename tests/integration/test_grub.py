"""The kernel from GRUB 2, as a user boots it: scripts/mkiso's image (make
iso), under SeaBIOS (pc) and OVMF (q35, UEFI), QEMU TCG, 2 CPUs, with
`multiboot2` and `multiboot` (docs/BOOT.md).  Each boot must read its
command line (GRUB passes no kernel path: @boot path=0), find the ACPI
tables (@smp rsdp=: the multiboot2 tag, the BIOS area, or under UEFI
with multiboot 1 the memory map's ACPI regions), start both CPUs, pass
check=ipi and exit through isa-debug-exit.  The serial log of every boot
stays in build/tests/test_grub/.  A QEMU/KVM variant runs where the
firmware is usable under KVM, and skips, with the reason, where not."""
import os

import pytest

from harness import (grub_iso, kvm_usable, line, no_line, note, qemu_status,
                     ROOT)

pytestmark = pytest.mark.qemu

# (firmware, entry): the protocol, and where the RSDP must come from
BOOTS = {
    ('seabios', 'mb2'): (2, 'mb2'),
    ('seabios', 'mb1'): (1, 'bios'),
    ('ovmf', 'mb2'): (2, 'mb2'),
    ('ovmf', 'mb1'): (1, 'mmap'),
}
# OVMF's own boot takes 4-9 s under TCG here (SeaBIOS's well under 1 s):
# the limits leave room for a loaded host
TIMEOUT = {'seabios': 60, 'ovmf': 180}


def iso_for(entry):
    """make iso's image for mb2 (its default), else the same with ENTRY
    as the default."""
    return grub_iso(None if entry == 'mb2' else entry)


def check_default_suite(r, proto, rsdp):
    """What the mb2 and mb1 entries (check=ipi) must print."""
    qemu_status(r, 1, 'kernel exit status 0')
    line(r, 'multiboot%d: loader "GRUB [^"]*", cmdline "check=ipi", .*' % proto)
    line(r, '@boot proto=mb%d hv=(TCGTCGTCGTCG|KVMKVMKVM|none) pv=0 '
         'mem_kb=[0-9]+ mmap=[0-9]+ mods=0 fwcfg_cpus=2 argc=1 path=0 '
         'ignored=0' % proto)
    line(r, '  argv\\[0\\] "check=ipi"')
    line(r, '@calib source=(cpuid15|cpuid16|hv|pit|pmtimer) .* use=1( .*)?')
    line(r, '@smp online=2 apic=(xapic|x2apic) cpus=2 bsp=0 source=acpi '
         'rsdp=%s' % rsdp)
    # QEMU/KVM offers KVM's PV send-IPI (-cpu host in the nested rig):
    # then the check adds its multicast round (docs/RECORDS.md)
    line(r, '@ipi_check sent=600 received=600 lost=0 dup=0 cpus=2 k=100 '
         'stalls=0 tsc=[0-9]+|@ipi_check sent=800 received=800 lost=0 dup=0 '
         'cpus=2 k=100 stalls=0 tsc=[0-9]+ multicast=pv')
    line(r, '@ready tsc=[0-9]+')
    no_line(r, '@panic.*')
    c = r.rec('calib', use='1')
    print('%s: @ready and exit in %.2f s (QEMU start to exit), calib %s, '
          'rsdp %s' % (r.name, r.seconds, c['source'], rsdp))


@pytest.mark.parametrize('firmware,entry', sorted(BOOTS))
def test_grub_tcg(boot, firmware, entry):
    proto, rsdp = BOOTS[firmware, entry]
    r = boot.qemu_iso('%s-%s' % (firmware, entry), iso_for(entry), firmware,
                      timeout=TIMEOUT[firmware])
    check_default_suite(r, proto, rsdp)


def test_grub_checks_entry(boot):
    """check=ipi,timer,ioapic: every check runs (no pc-testdev here, so
    the IOAPIC check says it cannot)."""
    r = boot.qemu_iso('seabios-checks', grub_iso('checks'), 'seabios',
                      timeout=TIMEOUT['seabios'])
    qemu_status(r, 1, 'kernel exit status 0')
    line(r, '@boot proto=mb2 .* argc=1 path=0 ignored=0')
    line(r, '@ipi_check sent=600 received=600 lost=0 dup=0 cpus=2 .*')
    line(r, '@timer_check oneshot=ok periodic=10 .*')
    line(r, '@ioapic_check skipped=no-testdev pit=.*')
    line(r, '@ready tsc=[0-9]+')


def test_grub_bench_entry(boot):
    """The quick bench=: one @bench record per case, all words read.
    ipi_wake refuses to run where the two TSCs look skewed (@bench_skip
    reason=tsc-skew): under TCG on a loaded host the round trip of
    tsc_sync can look like skew.  Then the boot is tried again; after 3
    such boots the refusal is taken as the case's answer, with a note."""
    refused = False
    for t in (1, 2, 3):
        r = boot.qemu_iso('seabios-bench-%d' % t, grub_iso('bench'),
                          'seabios', timeout=TIMEOUT['seabios'])
        qemu_status(r, 1, 'kernel exit status 0')
        line(r, '@boot proto=mb2 .* argc=2 path=0 ignored=0')
        skip = r.rec('bench_skip', case='ipi_wake')
        if not skip or skip['reason'] != 'tsc-skew':
            break
        print('%s: %s' % (r.name, skip.line))
    else:
        refused = True
        note('grub bench entry: ipi_wake refused for TSC skew in 3 boots '
             'under TCG (a loaded host): %s' % skip.line)
    for case in ('ipi_pingpong', 'ipi_wake', 'exit_cost.pio'):
        b = r.rec('bench', case=case)
        if b is None and case == 'ipi_wake' and refused:
            continue
        assert b is not None, 'no @bench case=%s\n%s' % (case, r.report())
        assert b['n'] == '200', b.line
    line(r, '@ready tsc=[0-9]+')


def test_mkiso_bad_entry(boot):
    """An entry grub.cfg does not have is a usage error (status 2)."""
    grub_iso()          # skips where the tools are missing
    r = boot.run('mkiso-bad', ['scripts/mkiso', '-d', 'nope',
                               'build/kernel/irqlab.elf',
                               'build/tests/test_grub/nope.iso'], 30)
    assert r.status == 2, r.report()
    assert r.has("mkiso: no entry 'nope' in ", 'err'), r.report()


# ---- QEMU/KVM --------------------------------------------------------------

def slow_firmware():
    """Why the firmware cannot be tested under KVM here, or None.  On
    kvm_pvm much guest code runs in KVM's instruction emulator: SeaBIOS
    takes 70-130 s before the kernel, and OVMF stops in its own early
    code (a KVM internal error, an emulation failure on fwait/fninit,
    after which QEMU waits, paused, until killed) (docs/BOOT.md)."""
    if os.environ.get('IRQLAB_TEST_SLOW_FIRMWARE') == '1':
        return None
    if kvm_usable() and os.path.isdir('/sys/module/kvm_pvm'):
        return ('/dev/kvm is kvm_pvm (KVM on PVM): SeaBIOS takes 70-130 s '
                'there and OVMF stops in its early code (KVM emulation '
                'failure); IRQLAB_TEST_SLOW_FIRMWARE=1 runs it anyway')
    return None


@pytest.mark.kvm('firmware under QEMU/KVM in the nested rig is two levels '
                 'of virtualization under TCG: SeaBIOS reached the kernel in '
                 '18 s once and not in 300 s the next time')
@pytest.mark.parametrize('firmware', ['seabios', 'ovmf'])
def test_grub_kvm(boot, firmware):
    """The multiboot (v1) entry under QEMU/KVM, whose RSDP comes from the
    BIOS area or the memory map.  A boot that never reaches the kernel is
    the firmware's trouble on this host: skipped with its log; once the
    kernel runs, every record must be right."""
    why = slow_firmware()
    if why:
        pytest.skip(why)
    limit = int(os.environ.get('IRQLAB_TEST_FW_TIMEOUT', '300'))
    name = '%s-mb1-kvm' % firmware
    r = boot.qemu_iso(name, iso_for('mb1'), firmware, timeout=limit,
                      accel='kvm')
    if not r.has('irqlab kernel '):
        err = [l for l in r.lines('err') if l.strip()]
        said = err[:1] + [l for l in err if 'emulation failure' in l][:1]
        pytest.skip('%s under QEMU/KVM never reached the kernel (%s%s; the '
                    'log: %s.out, .err): the firmware on this host' %
                    (firmware, r.status_text(),
                     ''.join(', QEMU: ' + l.strip() for l in said),
                     r.base.relative_to(ROOT)))
    proto, rsdp = BOOTS[firmware, 'mb1']
    check_default_suite(r, proto, rsdp)
