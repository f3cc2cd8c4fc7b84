"""A failed test keeps its evidence: the report shows every command it ran,
how it ended and its whole output, and names the copy kept under
build/tests/failed/ (conftest.py's pytest_runtest_makereport,
harness.failure_evidence())."""
import shutil
import subprocess
import sys

import pytest

from harness import FAILED, REPORT_LINES, ROOT, execute


def test_a_failed_test_reports_its_boots():
    p = subprocess.run(
        [sys.executable, '-m', 'pytest', '-q',
         'tests/integration/evidence_probe.py'],
        cwd=ROOT, capture_output=True, text=True, timeout=120)
    out = p.stdout
    assert p.returncode == 1, out + p.stderr
    assert '1 failed' in out, out
    # both commands, each with its status, its command line and its output
    assert 'boot 0 of this test: first' in out, out
    assert 'boot 1 of this test: second' in out, out
    assert "sh -c 'seq 1 5000; exit 3'" in out and 'status 3' in out, out
    assert 'first-out' in out and 'first-err' in out, out
    # a long stream: its head and tail, and where the rest is
    assert '\n1\n' in out and '\n5000\n' in out, out
    assert '... (%d lines: the kept .out or .err has them)' % (
        5000 - REPORT_LINES) in out, out
    keep = ROOT / FAILED / (
        'evidence_probe.py_test_fails_after_two_commands')
    assert ('kept: %s/1-second.{cmd,out,err,json}' %
            keep.relative_to(ROOT)) in out, out
    kept = (keep / '1-second.out').read_text().split()
    assert kept == [str(i) for i in range(1, 5001)]
    assert (keep / '0-first.err').read_text() == 'first-err\n'


def test_a_qemu_past_its_limit_says_where_it_was(tmp_path):
    """A QEMU that runs past its limit leaves its vCPUs' registers in
    its .err (runner/qmp.py's dump(), through a QMP socket of its own)."""
    if not shutil.which('qemu-system-x86_64'):
        pytest.skip('no qemu-system-x86_64 here: the dump needs one')
    r = execute(['qemu-system-x86_64', '-accel', 'tcg', '-smp', '2',
                 '-display', 'none', '-monitor', 'none', '-nodefaults',
                 '-S'], tmp_path / 'hang', 2)
    assert r.status is None
    err = (tmp_path / 'hang.err').read_text()
    assert 'QEMU ran past 2 s' in err, err
    assert 'CPU#0' in err and 'CPU#1' in err and 'IP=' in err, err
    assert '-qmp unix:' in (tmp_path / 'hang.cmd').read_text()
    # and the dump reads as the rig's stall rule reads it
    sys.path.insert(0, str(ROOT / 'guest-bench'))
    from runner import qmp
    assert [c[0] for c in qmp.cpus(err)] == [0, 1], err


def test_qemu_limit_ends_a_hung_qemu_with_its_dump():
    """guest-bench/qemu-limit (the QEMU/KVM rows of make bench-linux in
    the nested rig run under it): past its limit QEMU's registers and
    LAPICs on stderr, and status 124, as timeout(1); within it, QEMU's
    own status; bad usage 2."""
    if not shutil.which('qemu-system-x86_64'):
        pytest.skip('no qemu-system-x86_64 here: qemu-limit needs one')
    tool = str(ROOT / 'guest-bench/qemu-limit')
    p = subprocess.run([tool, '2', 'qemu-system-x86_64', '-accel', 'tcg',
                        '-smp', '2', '-m', '64', '-display', 'none',
                        '-nodefaults', '-S'],
                       capture_output=True, text=True, timeout=60)
    assert p.returncode == 124, p.stderr
    assert 'qemu-limit: QEMU ran past 2 s' in p.stderr, p.stderr
    for want in ('CPU#0\n', 'CPU#1\n', 'EIP=0000fff0', 'CPU#0 LAPIC:',
                 'CPU#1 LAPIC:', 'ISR\t'):
        assert want in p.stderr, p.stderr
    p = subprocess.run([tool, '30', 'qemu-system-x86_64', '-no-such-option'],
                       capture_output=True, text=True, timeout=60)
    assert p.returncode == 1 and 'qemu-limit' not in p.stderr, p.stderr
    p = subprocess.run([tool, 'soon', 'qemu-system-x86_64'],
                       capture_output=True, text=True, timeout=60)
    assert p.returncode == 2 and 'usage: qemu-limit' in p.stderr
    p = subprocess.run([tool, '--help'], capture_output=True, text=True,
                       timeout=60)
    assert p.returncode == 0 and 'qemu-limit SECS QEMU' in p.stdout
