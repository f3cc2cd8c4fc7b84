# SPDX-License-Identifier: MIT
"""Boot the irqlab kernel under QEMU TCG on 2 CPUs with bench=all
iters=50 and check that every guest-bench case (docs/BENCHMARKS.md "Guest
cases") printed one well-formed @bench record (n=50, min <= p50 <= p90
<= p99 <= max, mean within [min, max], the _ns fields when @calib found
the TSC frequency, no exit counts: TCG has no irqlab protocol) or an
@bench_skip with a reason; @tsc_sync, futex_wake's perf-style lines.
Then on one CPU: the cross-CPU cases skip with a reason, an unknown name
says so.  Outcomes only: no timing is checked.

    /usr/bin/python3 -m pytest -v tests/integration/test_qemu_tcg_bench.py
"""
import os
import re
import sys

import pytest

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(
    os.path.abspath(__file__))))
sys.path.insert(0, os.path.join(ROOT, 'guest-bench'))
from runner import boot, records  # noqa: E402

OUT = os.path.join(ROOT, 'build/tests/integration/qemu-tcg-bench')
TIMEOUT = 120
CASES = ['ipi_pingpong', 'ipi_wake', 'ipi_wake.send', 'self_ipi',
         'broadcast.shorthand', 'broadcast.unicast', 'broadcast.multicast',
         'exit_cost.cpuid',
         'exit_cost.pio', 'exit_cost.apic_read', 'exit_cost.mmio',
         'exit_cost.hlt', 'timer.oneshot', 'timer.tsc_deadline',
         'futex_wake']
N = 50
# futex_wake's samples: one per woken thread, 4 threads (the default) in
# each of its 10 runs, whatever iters= says
N_FUTEX = 40
STATS = ['min', 'p50', 'p90', 'p99', 'max', 'mean']
# every record ends with the latency knobs in use (docs/RECORDS.md)
KNOBS = ['pv_ipi', 'haltpoll', 'poll_cyc_per_op']
FIELDS = ['case', 'cpus', 'apic', 'n'] + [s + '_cyc' for s in STATS]
FIELDS_NS = FIELDS + [s + '_ns' for s in STATS] + KNOBS
FIELDS = FIELDS + KNOBS
ONE_CPU = ['ipi_pingpong', 'ipi_wake', 'broadcast.unicast',
           'broadcast.multicast', 'futex_wake']


def tcg_boot(name, smp, append):
    """One QEMU TCG boot; its serial output in OUT/NAME.log."""
    qemu = boot.qemu_binary()
    if not boot.have(qemu):
        pytest.skip('%s is not installed' % qemu)
    if not boot.qemu_has_tcg(qemu):
        pytest.skip('%s has no TCG accelerator (%s -accel help)' %
                    (qemu, qemu))
    assert os.path.exists(boot.KERNEL32), \
        '%s is missing (make build/kernel/irqlab32.elf)' % boot.KERNEL32
    os.makedirs(OUT, exist_ok=True)
    log = os.path.join(OUT, name + '.log')
    with open(log, 'w') as f:
        r = boot.run(boot.qemu_cmd(append, accel='tcg', smp=smp), TIMEOUT,
                     out_file=f, err_path=os.path.join(OUT, name + '.err'))
    r.log = log
    return r


@pytest.fixture(scope='module')
def bench2():
    return tcg_boot('bench2', 2, 'bench=all iters=%d' % N)


@pytest.fixture(scope='module')
def bench1():
    return tcg_boot('bench1', 1, 'bench=ipi_pingpong,ipi_wake,'
                    'broadcast.unicast,broadcast.multicast,futex_wake,'
                    'self_ipi,bogus iters=5')


def lines(r, pattern):
    """The whole lines of @r's output that match @pattern."""
    return [l for l in r.out.splitlines() if re.fullmatch(pattern, l)]


def exit_ok(r):
    # QEMU's isa-debug-exit turns the kernel's 0 into 1
    assert not r.timed_out, 'timed out after %d s (%s)' % (TIMEOUT, r.log)
    assert r.status == boot.QEMU_OK, 'QEMU %s, want 1 (%s): %s' % (
        r.describe(), r.log, r.err[-300:])


@pytest.mark.parametrize('case', CASES)
def test_case(bench2, case):
    """One sane @bench, or one @bench_skip with a reason."""
    skip = lines(bench2, r'@bench_skip case=%s reason=[a-z0-9-]+' %
                 re.escape(case))
    if skip:
        print('note: %s skipped: %s' % (case, skip[0]))
        return
    found = [l for l in bench2.out.splitlines()
             if l.startswith('@bench case=%s ' % case)]
    assert len(found) == 1, 'not exactly one @bench for %s (%s)' % (
        case, bench2.log)
    r = records.parse(found[0])
    n = N_FUTEX if case == 'futex_wake' else N
    assert list(r) in (FIELDS, FIELDS_NS), 'malformed: ' + found[0]
    assert r['cpus'] == '2' and r['apic'] in ('xapic', 'x2apic') and \
        r['n'] == str(n), 'malformed: ' + found[0]
    assert all(r[k].isdigit() for k in list(r)[4:] if k not in KNOBS[:2]), \
        'malformed: ' + found[0]
    # TCG offers no PV multicast; haltpoll= is not on this command line
    assert (r['pv_ipi'], r['haltpoll'], r['poll_cyc_per_op']) == \
        ('none', 'off', '0'), 'malformed: ' + found[0]
    # TCG: no irqlab protocol, so no exit counts
    assert 'exits_per_op' not in r
    cyc = [r.u64(s + '_cyc') for s in STATS]
    assert cyc[:5] == sorted(cyc[:5]), '%s: min..max not in order: %s' % (
        case, found[0])
    assert cyc[0] <= cyc[5] <= cyc[4], '%s: mean_cyc outside [min, max]' % \
        case


def test_bench2_lines(bench2):
    assert lines(bench2, r'@tsc_sync cpus=0,1 skew_cyc=-?[0-9]+ ok=[01] '
                 r'rtt_cyc=[0-9]+'), 'no @tsc_sync line (%s)' % bench2.log
    # futex_wake's perf-style lines, whether or not its @bench was skipped
    assert lines(bench2, r'\[Run 10\]: Wokeup 4 of 4 threads in '
                 r'[0-9]+\.[0-9]{4} ms'), 'no futex_wake run line'
    assert lines(bench2, r'Wokeup 4 of 4 threads in [0-9]+\.[0-9]{4} ms '
                 r'\(\+-[0-9]+\.[0-9]{2}%\)'), 'no futex_wake summary line'
    assert not lines(bench2, r'@bench_skip case=.* reason=unknown'), \
        'an unknown case'
    assert lines(bench2, r'@ready tsc=[0-9]+'), 'no @ready line'
    assert not lines(bench2, r'@panic.*'), 'a @panic line'
    exit_ok(bench2)


def test_one_cpu(bench1):
    for case in ONE_CPU:
        assert lines(bench1, r'@bench_skip case=%s reason=one-cpu' %
                     re.escape(case)), 'no %s skip (%s)' % (case, bench1.log)
    assert lines(bench1, r'@bench case=self_ipi cpus=1 apic=xapic n=5 .*'), \
        'no self_ipi on 1 CPU'
    assert lines(bench1, r'@bench_skip case=bogus reason=unknown'), \
        'no unknown case skip'
    exit_ok(bench1)
