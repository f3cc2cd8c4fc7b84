# SPDX-License-Identifier: MIT
"""runner/pirbench.py: make bench-pir's report from build/pir-bench's
output (the shape guest-bench/native/pir_bench.c prints)."""
from runner import pirbench

OUT = '''PIR fold, ns per fold (median of 21 rounds of 1048576; host CLOCK_MONOTONIC)
case          checked       always    ratio
empty            4.67        70.73   15.14x
one             29.67        70.16    2.36x
(post alone: 26.75 ns, subtracted from the 'one' row)
@bench_pir empty_checked_ns=4.67 empty_always_ns=70.73 one_checked_ns=29.67 \
one_always_ns=70.16 post_ns=26.75
'''


def test_report_from_the_record():
    md = pirbench.report_md(OUT, 'AMD EPYC 7B13', 'abc1234', 0.5, 0.7)
    assert md.startswith('Host: AMD EPYC 7B13, ')
    assert '| empty | 4.67 | 70.73 | 0.066x |' in md
    assert '| one | 29.67 | 70.16 | 0.423x |' in md
    assert '(26.75 ns)' in md
    assert '@bench_pir empty_checked_ns=4.67' in md


def test_a_missing_binary_is_status_2(tmp_path, capsys):
    assert pirbench.main([str(tmp_path / 'none')]) == 2
    assert 'make bench-pir builds it' in capsys.readouterr().err
