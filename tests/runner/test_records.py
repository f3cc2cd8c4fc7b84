# SPDX-License-Identifier: MIT
"""guest-bench/runner/records.py and stats.py: the record parser and the
runner's statistics."""
import math

import pytest

from runner import records, stats
from runner.records import RecordError


def code_of(line):
    """parse()'s error for @line: (code, where), or None if it parses."""
    try:
        records.parse(line)
    except RecordError as e:
        return e.code, e.where
    return None


def test_parses_a_bench_record():
    r = records.parse('@bench case=ipi_wake cpus=2 apic=x2apic n=200 '
                      'p50_ns=141711 exits_per_op=3.00 hex=0x1f\r\n')
    assert r.name == 'bench'
    assert len(r) == 7
    assert r['case'] == 'ipi_wake'
    assert r['apic'] == 'x2apic'
    assert r.u64('p50_ns') == 141711
    assert r.u64('hex') == 31
    assert r.number('exits_per_op') == pytest.approx(3.0, abs=1e-12)
    # the last value lost its CR LF
    assert r['hex'] == '0x1f'
    assert r.get('nope') is None
    assert r.u64('nope') is None


def test_a_record_owns_its_strings():
    line = '@bench case=x n=5'
    a = records.parse(line)
    b = records.Record(a.name, a, a.line)
    a.clear()
    assert b.name == 'bench'
    assert b['case'] == 'x'
    assert b['n'] == '5'


def test_name_only_and_blanks():
    r = records.parse('@ready')
    assert r.name == 'ready'
    assert len(r) == 0
    r = records.parse('@tsc_sync  cpus=0,1\tskew_cyc=-12 ok=1  ')
    assert len(r) == 3
    assert r['skew_cyc'] == '-12'
    assert r['cpus'] == '0,1'


def test_numbers_are_checked():
    assert code_of('@x a=12x b=-3 c=na d=1e3 e=inf f= g')[0] == \
        'empty-value'
    r = records.parse('@x a=12x b=-3 c=na d=1e3 e=inf g=0xZ')
    with pytest.raises(ValueError):
        r.u64('a')
    with pytest.raises(ValueError):
        r.u64('b')                      # no sign
    assert r.number('b') == pytest.approx(-3.0, abs=1e-12)
    assert r.u64('c') is None           # "na": absent
    assert r.number('d') == pytest.approx(1000.0, abs=1e-9)
    with pytest.raises(ValueError):
        r.number('e')                   # not finite
    with pytest.raises(ValueError):
        r.u64('g')
    with pytest.raises(ValueError):
        r.number('a')
    # num(): the default for anything that is not a number
    assert r.num('a', 'x') == 'x'
    assert r.num('c', 7) == 7


def test_u64_overflow_is_an_error():
    r = records.parse('@x a=18446744073709551615 b=18446744073709551616')
    assert r.u64('a') == 2 ** 64 - 1
    with pytest.raises(ValueError):
        r.u64('b')


BAD = [
    ('human line', 'not-a-record', 0),
    ('', 'not-a-record', 0),
    ('\r\n', 'not-a-record', 0),
    (' @bench a=1', 'not-a-record', 0),
    ('@', 'no-name', 1),
    ('@ a=1', 'no-name', 1),
    ('@Bench a=1', 'bad-name', 1),
    ('@be-nch a=1', 'bad-name', 3),
    ('@bench a=1 b', 'no-eq', 11),
    ('@bench =1', 'empty-key', 7),
    ('@bench a=', 'empty-value', 7),
    ('@bench a-b=1', 'bad-key', 8),
    ('@bench a=1 a=2', 'dup-key', 11),
    ('@bench a=1\x1b[0m', 'ctrl', 10),
    # two CPUs' output mixed on one line
    ('@bench case=x n=1@bench case=y', 'dup-key', 24),
]


@pytest.mark.parametrize('line,code,where', BAD)
def test_malformed_lines_are_errors(line, code, where):
    with pytest.raises(RecordError) as e:
        records.parse(line)
    assert e.value.code == code
    assert e.value.where == where
    # and the text readers skip it
    assert records.parse_text(line) == []
    assert records.find(line, 'bench') is None


def test_error_texts():
    assert records.strerror('dup-key') == 'duplicate key'
    assert records.strerror(-5) == 'unknown error'
    assert records.strerror(1000) == 'unknown error'
    assert str(RecordError('dup-key', 11)) == 'duplicate key at byte 11'


def test_too_long_and_too_many():
    line = '@' + 'a' * (records.LINE_MAX + 62)
    assert code_of(line) == ('too-long', records.LINE_MAX)
    # exactly LINE_MAX is fine, CR LF not counted
    line = line[:records.LINE_MAX] + '\r\n'
    assert code_of(line) is None
    line = '@many' + ''.join(' k%d=%d' % (i, i)
                             for i in range(records.MAX_KEYS + 1))
    assert code_of(line)[0] == 'too-many'
    line = line[:line.rindex(' ')]
    assert code_of(line) is None
    assert len(records.parse(line)) == records.MAX_KEYS


def test_fuzz_does_not_crash():
    """Random bytes give a Record or a RecordError, nothing else."""
    seed = 12345
    alphabet = ' =a1_.@x\t\r\n\x01Z-\x00'      # the C string's NUL too
    for _ in range(20000):
        seed = (seed * 1103515245 + 12345) & 0xffffffff
        n = seed >> 24
        chars = ['@']
        for _ in range(1, min(n, 299)):
            seed = (seed * 1103515245 + 12345) & 0xffffffff
            chars.append(alphabet[(seed >> 16) % 15])
        try:
            r = records.parse(''.join(chars))
        except RecordError as e:
            assert e.code in records.ERRORS
            continue
        assert r.name


def test_find_and_parse_text():
    text = ('irqlab kernel\n@calib source=cpuid15 tsc_khz=5\n'
            '@bench case=a n=1\n@bench case=b n=2\n@bench =bad\n@ready\n')
    errors = []
    recs = records.parse_text(text, errors)
    assert [r.name for r in recs] == ['calib', 'bench', 'bench', 'ready']
    assert [(n, e.code) for n, e in errors] == [(5, 'empty-key')]
    assert records.find(text, 'bench', case='b')['n'] == '2'
    assert len(records.find_all(recs, 'bench')) == 2
    assert records.find(text, 'bench', case='c') is None
    assert records.find(text, 'calib').number('tsc_khz') == 5


# ---- statistics ----

def test_nearest_rank_percentiles():
    # 1..10: nearest rank p = ceil(p/100 * 10)-th
    a = [7, 3, 10, 1, 5, 9, 2, 8, 4, 6]
    assert stats.percentile(a, 0) == 1
    assert stats.percentile(a, 10) == 1
    assert stats.percentile(a, 11) == 2
    assert stats.percentile(a, 50) == 5
    assert stats.percentile(a, 90) == 9
    assert stats.percentile(a, 99) == 10
    assert stats.percentile(a, 100) == 10
    assert stats.median(a) == 5.5
    # one sample: every percentile is it
    assert stats.percentile([1], 50) == 1
    assert stats.percentile([1], 99) == 1
    with pytest.raises(ValueError):
        stats.percentile([], 50)


def test_wikipedia_nearest_rank_example():
    # the example of "Percentile", nearest-rank method
    a = [15, 20, 35, 40, 50]
    assert stats.percentile(a, 5) == 15
    assert stats.percentile(a, 30) == 20
    assert stats.percentile(a, 40) == 20
    assert stats.percentile(a, 50) == 35
    assert stats.percentile(a, 100) == 50
    assert stats.median(a) == 35


def test_matches_the_kernels_integer_rank():
    # bench.c: rank = (p * n + 99) / 100
    a = list(range(1000))
    for n in range(1, 1001, 37):
        for p in range(1, 101):
            assert stats.percentile(a[:n], p) == (p * n + 99) // 100 - 1, \
                'n=%d p=%d' % (n, p)


def test_mean_stddev_rse():
    a = [2, 4, 4, 4, 5, 5, 7, 9]
    assert stats.mean(a) == pytest.approx(5.0, abs=1e-12)
    # sample stddev: sqrt(32 / 7)
    assert stats.stddev(a) == pytest.approx(math.sqrt(32 / 7), abs=1e-12)
    # 100 * sqrt(32/7) / sqrt(8) / 5 = 15.118578920369089
    assert stats.rse(a) == pytest.approx(15.118578920369089, abs=1e-9)
    assert stats.stddev(a[:1]) == 0
    assert stats.rse(a[:1]) == 0
    assert stats.rse([-1, 0, 1]) == 0   # zero mean


def test_perf_summary_line():
    w = records.parse_wokeup('Wokeup 1 of 1 threads in 0.1061 ms '
                             '(+-31.38%)\n')
    assert w.woken == 1
    assert w.threads == 1
    assert w.ms == pytest.approx(0.1061, abs=1e-12)
    assert w.rse_pct == pytest.approx(31.38, abs=1e-12)
    w = records.parse_wokeup('  Wokeup 3 of 4 threads in 2 ms (+-0.00%)')
    assert w.woken == 3
    assert records.parse_wokeup('[Run 7]: Wokeup 1 of 1 threads in '
                                '0.0070 ms') is None
    assert records.parse_wokeup('Wokeup 1 of 1 threads in 0.0070 ms') is None
    assert records.parse_wokeup('Wokeup 1 of 1 threads in nan ms '
                                '(+-1%)') is None
    assert records.parse_wokeup('') is None


def test_plain_numbers_for_json():
    assert stats.plain(3.0) == 3 and isinstance(stats.plain(3.0), int)
    assert stats.plain(20.5) == 20.5
    assert stats.plain('x') == 'x'


LINUX_OUT = '''linux-guest: /init at 3.09s
@linux kernel=6.1.0-57-amd64 cpus=2 online=0-1 uptime_s=3.09 \
clocksource=hpet clocksources=hpet,acpi_pm hv=none apic=default x2apic=0 \
tsc_mhz=2596.113 benches=2
@linux_irq phase=init cpu=0 loc=588 res=37 cal=271
@linux_irq phase=init cpu=1 loc=461 res=54 cal=317
[Run 10]: Wokeup 1 of 1 threads in 0.0480 ms
Wokeup 1 of 1 threads in 1.0173 ms (+-52.69%)
@linux_wake n=1 status=0 woken=1 threads=1 ms=1.0173 rse_pct=52.69 \
runs=10 took_s=1.30 cmd=perf,bench,futex,wake,-t,1
@linux_wake n=2 status=1 woken=na runs=0 took_s=0.01 cmd=perf,nope
@linux_irq phase=end cpu=0 loc=869 res=60 cal=368
@linux_irq phase=end cpu=1 loc=726 res=77 cal=405
@linux_done uptime_s=6.32 failed=1
'''


def test_linux_guest_records():
    run = records.linux_run(LINUX_OUT)
    assert run.cpus == 2 and run.clocksource == 'hpet'
    assert run.init_s == pytest.approx(3.09)
    w = run.wake(1)
    assert (w.woken, w.threads, w.n, w.status) == (1, 1, 1, 0)
    assert w.ms == pytest.approx(1.0173) and w.rse_pct == pytest.approx(52.69)
    assert run.wake(2) is None          # the second line printed no summary
    assert len(run.wakes) == 2
    assert run.irq('init', 1, 'cal') == 317
    assert run.irq_delta(0, 'loc') == 869 - 588
    assert run.irq_delta(1, 'res') == 77 - 54
    assert run.irq_delta(2, 'loc') is None
    assert run.done.num('failed') == 1 and not run.finished()
    # the summary line the guest printed parses as perf's
    assert records.parse_wokeup(LINUX_OUT.splitlines()[5]).ms == \
        pytest.approx(1.0173)


def test_linux_guest_records_absent():
    run = records.linux_run('Kernel panic - not syncing\n')
    assert run.boot is None and run.cpus is None and run.init_s is None
    assert run.wake(1) is None and not run.finished() and run.irqs == {}
