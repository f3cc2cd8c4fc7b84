"""A failed test keeps its evidence: the report shows every command it ran,
how it ended and its whole output, and names the copy kept under
build/tests/failed/ (conftest.py's pytest_runtest_makereport,
harness.failure_evidence())."""
import subprocess
import sys

from harness import FAILED, REPORT_LINES, ROOT


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
