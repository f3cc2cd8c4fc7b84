"""harness.sti_shadow(), the rule's reading of the kernel's @fault record
(docs/RECORDS.md, tests/nested/README.md "The STI shadow"), and
harness.rig_fail_entry() ("a refused entry"), on outputs written here:
no VM runs."""
from harness import ROOT, Run, rig_dup_dest, rig_fail_entry, sti_shadow

FAULT = '@fault kind=sti_shadow n=2 vector=0xd5 cpu=0 rip=0x110da2\n'


def run_of(tmp_path, out, err='', status=0, argv=('irqlab-vmm',)):
    base = tmp_path / 'boot'
    (tmp_path / 'boot.out').write_text(out)
    (tmp_path / 'boot.err').write_text(err)
    return Run('boot', base, list(argv), status, 1.0, 30)


ONLINE = 'smp: cpu 1 online, APIC ID 1\nsmp: cpu 2 online, APIC ID 2\n'
REFUSED = ('irqlab-vmm: vcpu2: KVM_EXIT_FAIL_ENTRY, hardware reason '
           '0xffffffff\n  RIP=0000000000101209 RSP=00000000001f4018\n')
SPLIT = ('irqlab-vmm', '--irqchip=split', '--cpus', '4')


def test_refused_entry_of_an_online_ap(tmp_path):
    why = rig_fail_entry(run_of(tmp_path, ONLINE, REFUSED, 12, SPLIT))
    assert why and 'vcpu2' in why and '0x0000000000101209' in why, why


def test_refused_entry_is_not_every_failed_entry(tmp_path):
    # irqlab's LAPIC: irqlab-vmm sets the APs' registers at SIPI there
    user = ('irqlab-vmm', '--irqchip=user', '--cpus', '4')
    assert rig_fail_entry(run_of(tmp_path, ONLINE, REFUSED, 12, user)) is None
    # the BSP, or an AP that never ran: irqlab-vmm's own state
    bsp = REFUSED.replace('vcpu2', 'vcpu0')
    assert rig_fail_entry(run_of(tmp_path, ONLINE, bsp, 12, SPLIT)) is None
    assert rig_fail_entry(run_of(tmp_path, 'smp: cpu 1 online\n', REFUSED,
                                 12, SPLIT)) is None
    # another hardware reason, another status
    other = REFUSED.replace('0xffffffff', '0x80000021')
    assert rig_fail_entry(run_of(tmp_path, ONLINE, other, 12, SPLIT)) is None
    assert rig_fail_entry(run_of(tmp_path, ONLINE, REFUSED, 0, SPLIT)) is None


def test_fault_record_is_named(tmp_path):
    why = sti_shadow(run_of(tmp_path, '@ready tsc=1\n' + FAULT))
    assert why and '2 interrupt(s)' in why and '0xd5' in why and \
        '0x110da2' in why, why


def test_no_record_no_fault(tmp_path):
    assert sti_shadow(run_of(tmp_path, '@ready tsc=1\n')) is None


def test_other_fault_kind_is_not_this_one(tmp_path):
    out = '@fault kind=other n=1 vector=0x30 cpu=0 rip=0x1\n'
    assert sti_shadow(run_of(tmp_path, out)) is None


def test_every_wait_in_the_kernel_is_in_the_table():
    """No bare STI; HLT left in the kernel or the bench cases: each wait
    goes through sti_hlt(), so an interrupt inside its shadow is told."""
    bare = []
    for d in ('kernel', 'guest-bench/cases', 'calib'):
        for p in sorted((ROOT / d).rglob('*.[ch]')):
            for n, line in enumerate(p.read_text().splitlines(), 1):
                if 'sti; hlt' in line.replace('\\n\\t', '; '):
                    bare.append('%s:%d' % (p.relative_to(ROOT), n))
    assert not bare, 'STI; HLT outside sti_hlt() (kernel/arch/halt.h): %s' % bare


# the line of the rig's fault seen in test_lapic_check[split-no-x2apic]
DUP = ("lapic_check: dest: logical cluster: the BSP alone: HOST: KVM's "
       "LAPIC: logical 0x11: CPUs 0x1 took it (0x1 more than once), want "
       "0x1\n")
SPLIT2 = ('irqlab-vmm', '--irqchip=split', '--cpus', '2')


def test_an_ipi_twice_in_a_dest_step(tmp_path):
    why = rig_dup_dest(run_of(tmp_path, DUP, argv=SPLIT2))
    assert why and 'delivered twice' in why and '0x11' in why, why


def test_a_dest_step_that_lost_or_misrouted_is_no_rig_fault(tmp_path):
    lost = DUP.replace('CPUs 0x1 took it (0x1', 'CPUs 0x0 took it (0x0')
    wrong = DUP.replace('CPUs 0x1 took it (0x1', 'CPUs 0x3 took it (0x1')
    for out in (lost, wrong):
        assert rig_dup_dest(run_of(tmp_path, out, argv=SPLIT2)) is None
    # irqlab's own LAPIC: a duplicate there is irqlab's, never the rig's
    user = ('irqlab-vmm', '--irqchip=user', '--cpus', '2')
    assert rig_dup_dest(run_of(tmp_path, DUP, argv=user)) is None
