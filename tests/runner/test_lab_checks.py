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
import refs  # noqa: E402
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


def test_lab_refs_extract_and_report():
    """labs/refs.py: the numbers a handout's measurement gives, and the
    report's median and range over the runs."""
    recs = records.parse_text(
        '@calib source=pit tsc_khz=1 lapic_khz=1001000 window_us=9 '
        'took_us=50000 polls=8 exits=420 pio_exits=400 apic_exits=20 '
        'lapic_err_ppm=6000 use=1\n'
        '@bench case=ipi_wake n=200 p50_ns=180000 p99_ns=320000 '
        'exits_per_op=3.00 send_exits=1.00\n')
    pit = refs.calib('pit')(recs, {})
    assert pit['APIC timer off the true rate, ppm'] == 1000
    assert pit['port-I/O exits'] == 400 and pit['exits'] == 420
    wake = refs.bench('ipi_wake')(recs, {})
    assert wake['ipi_wake p50 us'] == 180 and \
        wake['ipi_wake send exits/op'] == 1
    md = refs.report({'pit': {'PIT': {'port-I/O exits': [400, 300, 900]}}},
                     'amd-nested-rig', runs=3)
    assert '| port-I/O exits | 400 | 300 - 900 (3 runs) |' in md
    assert md.startswith('Host: amd-nested-rig.')
    with pytest.raises(KeyError):
        refs.calib('cpuid15')(recs, {})


def test_lab_refs_one_boot_for_the_same_arguments(tmp_path):
    """calib's five sources come from one calib=all boot a run, not five."""
    boots = []

    class Machine:
        why = ''

        def run(self, argv, limit, base):
            boots.append(argv)
            out = ''.join(
                '@calib source=%s tsc_khz=1 lapic_khz=1000000 window_us=9 '
                'took_us=5 polls=0 exits=10 pio_exits=%d apic_exits=10 '
                'lapic_err_ppm=100 use=%d\n' % (s, 30 if s == 'pit' else 0,
                                                s == 'cpuid15')
                for s in ('cpuid15', 'cpuid16', 'hv', 'pit', 'pmtimer'))
            return SimpleNamespace(out=out)

    got = refs.measure('calib', Machine(), str(tmp_path), runs=3,
                       say=lambda s: None)
    assert len(boots) == 3, boots
    assert got['calib=all: the PIT']['port-I/O exits'] == [30, 30, 30]
    assert len(got['calib=all: CPUID 0x15']['exits']) == 3
