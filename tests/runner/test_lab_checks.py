# SPDX-License-Identifier: MIT
"""labs/checks.py's rules, on records written here: what passes and what
fails, without a boot."""
import json
import os
import sys
from types import SimpleNamespace

import pytest

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(
    os.path.abspath(__file__))))
sys.path.insert(0, os.path.join(ROOT, 'labs'))

import checks  # noqa: E402
from runner import records  # noqa: E402


def wake(tmp_path, send='1.00', kick='0.00', eoi='1.00', hlt='1.00',
         other='0.00', n=200):
    line = ('@bench case=ipi_wake cpus=2 apic=x2apic n=%d p50_ns=180000 '
            'p99_ns=320000 exits_per_op=3.00 send_exits=%s kick_exits=%s '
            'eoi_exits=%s hlt_exits=%s other_exits=%s' %
            (n, send, kick, eoi, hlt, other))
    r = SimpleNamespace(records=records.parse_text(line + '\n'), status=0,
                        timed_out=False)
    js = tmp_path / 'stats.json'
    js.write_text(json.dumps({'exits': {'classes': {
        'apic_send': n, 'apic_eoi': n, 'hlt': n}}}))
    return checks.wake_exits(r, str(js))


def test_exact_wake_passes(tmp_path):
    assert wake(tmp_path)[0] == 'ok'


def test_a_late_target_kick_passes_and_is_shown(tmp_path):
    """kvm_pvm: 2 kicks in 200 wakes, CPU1 still in KVM_RUN 100 us after
    it said it goes idle."""
    verdict, detail = wake(tmp_path, kick='0.01')
    assert verdict == 'ok' and 'kick=0.01' in detail


@pytest.mark.parametrize('field,value', [
    ('kick', '0.90'),      # the loop did not wait for CPU1's HLT
    ('eoi', '0.99'),       # the last EOI fell outside the window
    ('hlt', '1.01'),       # an HLT at either end inside it
    ('send', '2.00'),      # xAPIC ICR_HI written every time
    ('other', '0.50'),
])
def test_a_loop_that_breaks_the_window_fails(tmp_path, field, value):
    verdict, detail = wake(tmp_path, **{field: value})
    assert verdict == 'FAILED' and '%s=%s' % (field, value) in detail
