# SPDX-License-Identifier: MIT
"""guest-bench/report (runner/serial.py): serial logs of the kernel from
two configurations, captured as a user would (tests/runner/logs: QEMU
TCG's COM1 with CR LF; irqlab-vmm in the nested rig), into one report;
and every kind of bad log refused with its file and line."""
import json
import os

import pytest

from runner import serial

LOGS = os.path.join(os.path.dirname(os.path.abspath(__file__)), 'logs')
TCG = os.path.join(LOGS, 'qemu-tcg.log')
VMM = os.path.join(LOGS, 'irqlab-vmm-rig.log')
TCG_NAME = 'qemu-tcg [TCGTCGTCGTCG]'
VMM_NAME = 'irqlab-vmm-rig [irqlab]'


def report(tmp_path, *args):
    out = tmp_path / 'out'
    rc = serial.main(['-o', str(out), '--no-plots'] + list(args))
    return rc, out


def test_two_logs_side_by_side(tmp_path, capsys):
    rc, out = report(tmp_path, TCG, VMM)
    assert rc == 0, capsys.readouterr().err
    j = json.loads((out / 'results.json').read_text())
    assert [c['name'] for c in j['configs']] == [TCG_NAME, VMM_NAME]
    assert all(c['status'] == 'ok' for c in j['configs'])
    assert j['configs'][0]['params']['proto'] == 'mb1'
    assert j['configs'][1]['params']['cpus'] == 2
    assert j['ratio_to'] == TCG_NAME
    rows = {(r['config'], r['case']): r for r in j['results']}
    tcg, vmm = rows[(TCG_NAME, 'ipi_wake')], rows[(VMM_NAME, 'ipi_wake')]
    # only irqlab-vmm counts exits: elsewhere "not measured", never 0
    assert tcg['exits_per_op'] == 'not measured'
    assert 'exits_per_op' not in tcg['stats']
    assert vmm['stats']['exits_per_op'] == 3.0
    assert 'exits_per_op' not in vmm
    assert tcg['ratio_p50_to_ref'] == 1.0
    want = vmm['stats']['p50_ns'] / tcg['stats']['p50_ns']
    assert vmm['ratio_p50_to_ref'] == round(want, 4)
    md = (out / 'results.md').read_text()
    assert 'guest-bench/report, from 2 serial log(s)' in md
    assert '| ipi_wake | %s | %d |' % (TCG_NAME, tcg['stats']['p50_ns']) in md
    assert '| not measured |' in md
    assert '| 3.00 (1.00/0.00/1.00/1.00/0.00) |' in md


def test_ref_by_number(tmp_path, capsys):
    rc, out = report(tmp_path, '--ref', '2', TCG, VMM)
    assert rc == 0
    j = json.loads((out / 'results.json').read_text())
    assert j['ratio_to'] == VMM_NAME
    rc, _ = report(tmp_path, '--ref', '3', TCG, VMM)
    assert rc == 2
    assert '--ref 3: no such log' in capsys.readouterr().err


def bad(tmp_path, capsys, text, name='bad.log'):
    p = tmp_path / name
    p.write_bytes(text.encode() if isinstance(text, str) else text)
    rc, _ = report(tmp_path, TCG, str(p))
    err = capsys.readouterr().err
    assert rc == 2, err
    assert not (tmp_path / 'out' / 'results.json').exists()
    return err.strip().replace(str(p), 'FILE')


def lines():
    with open(TCG, newline='') as f:
        return f.read().split('\r\n')


def test_empty_log(tmp_path, capsys):
    assert bad(tmp_path, capsys, '') == \
        'report: FILE: empty: no serial output at all'
    assert 'empty' in bad(tmp_path, capsys, '\r\n\r\n')


def test_truncated_record(tmp_path, capsys):
    ls = lines()
    n = next(i for i, l in enumerate(ls) if l.startswith('@bench '))
    cut = '\r\n'.join(ls[:n] + [ls[n][:ls[n].index('p50_cyc') + 5]])
    err = bad(tmp_path, capsys, cut)
    assert err.startswith('report: FILE:%d: a malformed record' % (n + 1))
    assert 'truncated' in err
    # cut where a key=value ends: the record parses, a key it needs is gone
    cut = '\r\n'.join(ls[:n] + [ls[n][:ls[n].index(' p50_cyc')]])
    assert bad(tmp_path, capsys, cut) == (
        'report: FILE:%d: @bench has no p50_cyc= (the log ends inside it: '
        'truncated)' % (n + 1))


def test_truncated_log(tmp_path, capsys):
    ls = lines()
    n = next(i for i, l in enumerate(ls) if l.startswith('@ready'))
    assert bad(tmp_path, capsys, '\r\n'.join(ls[:n]) + '\r\n') == (
        'report: FILE:%d: the log ends before @ready (or @panic): '
        'truncated, or the kernel hung' % n)


def test_other_kernel_version(tmp_path, capsys):
    text = '\r\n'.join(lines())
    err = bad(tmp_path, capsys, text.replace('records=1', 'records=2'))
    assert err.startswith('report: FILE:2: records format 2 (kernel ')
    assert err.endswith('this report reads format 1')
    # a kernel from before @kernel
    no = '\r\n'.join(l for l in lines() if not l.startswith('@kernel'))
    assert 'before any @kernel record' in bad(tmp_path, capsys, no)
    # a record without a key it must have, mid-log
    old = text.replace(' p99_cyc=', ' p99cyc=', 1)
    assert 'a record from another kernel version' in \
        bad(tmp_path, capsys, old)


def test_not_a_log(tmp_path, capsys):
    assert 'no @kernel record in 3 lines: not a serial log' in \
        bad(tmp_path, capsys, 'hello\nworld\n@x\n')
    assert 'no @kernel record' in bad(tmp_path, capsys, os.urandom(4096))


def test_two_boots(tmp_path, capsys):
    text = '\r\n'.join(lines())
    err = bad(tmp_path, capsys, text + text)
    assert 'a second boot (the first at line 2)' in err


def test_same_name_twice(tmp_path, capsys):
    rc, _ = report(tmp_path, TCG, TCG)
    assert rc == 2
    assert 'two logs make the same configuration' in capsys.readouterr().err


def test_boot_loader_text_and_a_panic(tmp_path, capsys):
    """GRUB's lines and escapes before the kernel's are fine; a boot that
    panicked is a failed configuration, not a bad log."""
    ls = lines()
    n = next(i for i, l in enumerate(ls) if l.startswith('@ready'))
    text = ('\x1b[2J\x1b[0;37;40mGNU GRUB  version 2.06\r\n'
            'Booting `irqlab\'\r\n' + '\r\n'.join(ls[:n]) +
            '\r\n@panic reason=test rip=0x1\r\n')
    p = tmp_path / 'grub.log'
    p.write_text(text)
    rc, out = report(tmp_path, TCG, str(p))
    assert rc == 0, capsys.readouterr().err
    j = json.loads((out / 'results.json').read_text())
    c = j['configs'][1]
    assert c['name'] == 'grub [TCGTCGTCGTCG]'
    assert (c['status'], c['reason']) == ('failed', 'panic: test')
