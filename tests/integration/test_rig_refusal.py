"""Where /dev/kvm is missing, make bench, make anatomy, make bench-linux
and make bench-calib go to the nested rig by themselves; RIG=0 refuses,
with a clear line and status 2, before anything runs (docs/BENCHMARKS.md,
docs/ANATOMY.md, docs/LINUX.md, docs/CALIB.md)."""
import subprocess

import pytest

from harness import ROOT, kvm_usable


@pytest.mark.parametrize('target,what', [
    ('bench', 'the KVM configs'),
    ('anatomy', 'irqlab-vmm'),
    ('bench-linux', 'irqlab-vmm'),
    ('bench-calib', 'irqlab-vmm'),
])
def test_rig0_refuses_without_kvm(target, what):
    if kvm_usable():
        pytest.skip('this host has a usable /dev/kvm: %s runs on it, and '
                    'RIG=0 has nothing to refuse' % target)
    p = subprocess.run(['make', '--no-print-directory', target, 'RIG=0'],
                       cwd=ROOT, capture_output=True, text=True,
                       timeout=600)
    assert p.returncode == 2, (p.returncode, p.stdout[-2000:],
                               p.stderr[-2000:])
    assert 'make %s: no usable /dev/kvm here, and RIG=0' % target in \
        p.stderr, p.stderr
    assert what in p.stderr
