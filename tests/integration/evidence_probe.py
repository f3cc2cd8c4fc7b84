"""A test that fails on purpose, for test_failure_evidence.py, which runs
it in a pytest of its own (its name is no test_*.py: the suite does not
collect it)."""


def test_fails_after_two_commands(boot):
    boot.run('first', ['sh', '-c', 'echo first-out; echo first-err >&2'], 30)
    r = boot.run('second', ['sh', '-c', 'seq 1 5000; exit 3'], 30)
    assert r.status == 0, 'the probe fails here'
