"""harness.sti_shadow(), the rule's reading of the kernel's @fault record
(docs/RECORDS.md, tests/nested/README.md "The STI shadow"), on outputs
written here: no VM runs."""
from harness import ROOT, Run, sti_shadow

FAULT = '@fault kind=sti_shadow n=2 vector=0xd5 cpu=0 rip=0x110da2\n'


def run_of(tmp_path, out):
    base = tmp_path / 'boot'
    (tmp_path / 'boot.out').write_text(out)
    (tmp_path / 'boot.err').write_text('')
    return Run('boot', base, ['irqlab-vmm'], 0, 1.0, 30)


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
    assert not bare, 'STI; HLT outside sti_hlt() (kernel/halt.h): %s' % bare
