"""guest-bench/report on a serial log this kernel writes now (QEMU TCG's
COM1 as captured, CR LF and all, through the PVH entry), beside the
irqlab-vmm log in tests/runner/logs: the records a report reads have not
drifted from what the kernel prints (tests/runner/test_serial.py has the
bad logs)."""
import json
import subprocess
import sys
from pathlib import Path

import pytest

from harness import KERNEL_PVH, QEMU, ROOT, qemu_status

pytestmark = pytest.mark.qemu


def test_report_of_a_fresh_log(boot, tmp_path):
    r = boot.run('tcg-log', [QEMU, '-accel', 'tcg', '-smp', '2', '-m', '64',
                             '-kernel', KERNEL_PVH, '-append',
                             'bench=ipi_pingpong,self_ipi iters=50',
                             '-device', 'isa-debug-exit,iobase=0xf4,'
                             'iosize=0x04', '-serial', 'stdio', '-display',
                             'none', '-no-reboot', '-nodefaults'], 120)
    qemu_status(r, 1, 'kernel exit status 0')
    log = tmp_path / 'qemu-tcg-pvh.log'
    log.write_bytes(Path(str(r.base) + '.out').read_bytes())
    assert b'\r\n' in log.read_bytes(), 'COM1 ends lines in CR LF'
    out = tmp_path / 'report'
    p = subprocess.run([sys.executable, str(ROOT / 'guest-bench/report'),
                        '--no-plots', '-o', str(out), str(log),
                        str(ROOT / 'tests/runner/logs/irqlab-vmm-rig.log')],
                       capture_output=True, text=True, timeout=60)
    assert p.returncode == 0, p.stderr
    j = json.loads((out / 'results.json').read_text())
    names = [c['name'] for c in j['configs']]
    assert names == ['qemu-tcg-pvh [TCGTCGTCGTCG]',
                     'irqlab-vmm-rig [irqlab]'], names
    assert j['configs'][0]['params']['proto'] == 'pvh'
    cases = {(x['config'], x['case']): x for x in j['results']}
    # ipi_pingpong times on one CPU's TSC: ipi_wake would refuse on a
    # loaded host whose TCG vCPUs' TSCs look skewed (mt1 at 521a8f6)
    tcg = cases[(names[0], 'ipi_pingpong')]
    assert tcg['stats']['n'] == 50 and tcg['stats']['p50_ns'] > 0
    assert tcg['exits_per_op'] == 'not measured'
    assert cases[(names[1], 'ipi_pingpong')]['stats']['exits_per_op'] > 0
