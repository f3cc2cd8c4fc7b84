# SPDX-License-Identifier: MIT
"""tests/fuzz/run.py's report: the table a full make fuzz publishes in
docs/results/, and which runs publish one."""
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.dirname(
    os.path.abspath(__file__))), 'fuzz'))
import run  # noqa: E402


def test_report_has_the_host_and_every_harness():
    rows = [{'name': 'lapic', 'regress': 0, 'seeds': 13, 'corpus': 893,
             'execs': 153394, 'seconds': 61.0, 'cov': 648, 'ft': 4235,
             'error': None},
            {'name': 'pic', 'regress': 1, 'seeds': 6, 'corpus': 604,
             'execs': 1262097, 'seconds': 60.0, 'cov': 234, 'ft': 1742,
             'error': 'crash: build/fuzz/crash/pic/x'}]
    md = run.report_md(rows, ['pic: crash: build/fuzz/crash/pic/x'],
                       'fuzz (libFuzzer, 60 s each): 2 harnesses, 1 failed',
                       60, 0.2, 1.4, 'Debian clang version 14.0.6', 'abc1234',
                       'AMD EPYC 7B13')
    assert md.startswith('Host: AMD EPYC 7B13, ')
    assert 'load average 0.2 before, 1.4 after' in md
    assert '| lapic | 0 | 13 | 893 | 153,394 | 2,514 | 648 | 4,235 | ok |' \
        in md
    assert '| pic | 1 | 6 | 604 | 1,262,097 | 21,034 | 234 | 1,742 | CRASH |' \
        in md
    assert '- FAIL pic: crash: build/fuzz/crash/pic/x' in md


def test_every_harness_is_a_tests_fuzz_file():
    names = run.all_harnesses()
    assert 'lapic' in names and 'ioapic' in names
    assert all(os.path.exists(os.path.join(run.HERE, 'fuzz_%s.c' % n))
               for n in names)
