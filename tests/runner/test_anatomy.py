# SPDX-License-Identifier: MIT
"""runner/anatomy.py: the per-phase breakdown of a --timeline file, on a
file written here (the shape vmm/exit/timeline.c writes)."""
import json

import pytest

from runner import anatomy


def slices(ipi, vector, points, t0):
    """The X slices of one IPI through @points, each 10 us on."""
    out = []
    for i, (a, b) in enumerate(zip(points, points[1:])):
        out.append({'ph': 'X', 'pid': 1, 'tid': 0, 'cat': 'ipi',
                    'ts': t0 + 10 * i, 'dur': 10.0 * (1 + (b == 8)),
                    'name': 'p%d' % b,
                    'args': {'ipi': ipi, 'vector': vector, 'from': 0,
                             'to': 1, 'from_point': a, 'to_point': b}})
    return out


def doc(tmp_path, ipis):
    ev = [{'ph': 'M', 'pid': 1, 'tid': 0, 'ts': 0, 'name': 'process_name',
           'args': {'name': 'irqlab-vmm'}}]
    for e in ipis:
        ev += e
    p = tmp_path / 't.json'
    p.write_text(json.dumps({'otherData': {'irqchip': 'user', 'cpus': 2,
                                           'pv_eoi': True},
                             'traceEvents': ev}))
    return anatomy.load(str(p))


def test_breakdown_per_phase_and_end_to_end(tmp_path):
    # send(0) ICR exit(2) posted(3) injected(6) handler(8) EOI(9)
    d = doc(tmp_path, [slices(1, 0xd2, [0, 2, 3, 6, 8, 9], 0),
                       slices(2, 0xd2, [0, 2, 3, 6, 8, 9], 100),
                       slices(3, 0xd0, [0, 2, 3, 6, 8], 200)])
    rows, s = anatomy.breakdown(d, 0xd2)
    assert [r[1] for r in rows] == [2, 3, 6, 8, 9]
    assert all(r[2] == 2 for r in rows)
    # send to handler: 10 + 10 + 10 + 20 us
    assert s == {'n': 2, 'p50': 50, 'p90': 50, 'p99': 50,
                 'what': 'send to handler'}
    share = {r[1]: r[6] for r in rows}
    assert share[8] == pytest.approx(0.4) and share[9] is None
    assert anatomy.breakdown(d)[1]['n'] == 3


def test_table_and_side_by_side(tmp_path):
    d = doc(tmp_path, [slices(1, 0xd2, [0, 2, 8], 0)])
    t = anatomy.table(d)
    assert '| p2 | ICR exit | 1 | 10.00 |' in t
    assert '| **send to handler** | | 1 | 30.00 |' in t
    assert anatomy.describe(d) == 'user irqchip, 2 vCPUs, pv_eoi'
    two = anatomy.side_by_side([d, d], ['a', 'b'])
    assert '| p8 | 20.00 (67%) | 20.00 (67%) |' in two


def test_not_a_timeline(tmp_path, capsys):
    p = tmp_path / 'x.json'
    p.write_text('{"a": 1}')
    assert anatomy.main([str(p)]) == 2
    assert 'no traceEvents' in capsys.readouterr().err


def test_a_guest_that_stamps_nothing_ends_at_the_entry(tmp_path):
    """Linux: the host's points only, ICR exit (2) to entry (7)."""
    d = doc(tmp_path, [slices(1, 0xfd, [2, 3, 6, 7], 0)])
    rows, s = anatomy.breakdown(d)
    assert s['what'] == 'ICR exit to entry' and s['p50'] == 30
    assert '| **ICR exit to entry** | 30.00 |' in anatomy.side_by_side(
        [d], ['kernel'])


def bench_line(case, p50_ns, total, send, kick, eoi, hlt, other):
    return ('@bench case=%s cpus=2 apic=x2apic n=100 p50_ns=%d '
            'exits_per_op=%s send_exits=%s kick_exits=%s eoi_exits=%s '
            'hlt_exits=%s other_exits=%s\n' % (case, p50_ns, total, send,
                                                kick, eoi, hlt, other))


def test_probe_effect_holds_the_exact_exits_apart(tmp_path):
    """The probe effect's rows: medians of p50 on and off, and the
    send/EOI/HLT exits (exact) apart from all exits per operation, which
    a kick or a stray timer exit moves (3.03 on, 3.01 off in a loaded
    rig, with the same send/EOI/HLT)."""
    (tmp_path / 'on.out').write_text(
        bench_line('ipi_wake', 200000, '3.00', '1.00', '0.00', '1.00',
                   '1.00', '0.00') +
        bench_line('ipi_pingpong', 400000, '3.03', '1.00', '0.99', '1.00',
                   '0.00', '0.04'))
    (tmp_path / 'off.out').write_text(
        bench_line('ipi_wake', 100000, '3.00', '1.00', '0.00', '1.00',
                   '1.00', '0.00') +
        bench_line('ipi_pingpong', 400000, '3.01', '1.00', '1.00', '1.00',
                   '0.00', '0.01'))
    rows = anatomy.probe_effect(str(tmp_path), [('on', 'off')])
    assert rows[0] == ('ipi_wake', 1, 200.0, 100.0, 2.0, '1.00/1.00/1.00',
                       '1.00/1.00/1.00', '3.00', '3.00')
    case, n, on, off, ratio, pon, poff, eon, eoff = rows[1]
    assert (pon, poff) == ('1.00/1.00/0.00', '1.00/1.00/0.00')
    assert (eon, eoff) == ('3.03', '3.01')


def test_probe_effect_without_a_pair(tmp_path):
    (tmp_path / 'on.out').write_text('@bench_skip case=ipi_wake why=skew\n')
    (tmp_path / 'off.out').write_text('')
    rows = anatomy.probe_effect(str(tmp_path), [('on', 'off')])
    assert rows[0] == ('ipi_wake', 0, None, None, None, '-', '-', '-', '-')
