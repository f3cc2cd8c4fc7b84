# SPDX-License-Identifier: MIT
"""runner/calib.py: make bench-calib's report from boots' numbers (the
shape boot_irqlab() and boot_qemu() give), and where it is published."""
import argparse

from runner import calib, markdown


def run(source, pio, lapic_khz, bound, exits, ready):
    c = {'source': source, 'tsc_khz': '2694859', 'lapic_khz': str(lapic_khz),
         'took_us': '3000', 'window_us': '1000', 'polls': str(pio - 6),
         'tries': '1', 'pio': str(pio), 'lapic_err_ppm': str(bound),
         'widened': '0', 'bound': 'met', 'exits': str(pio + 6),
         'pio_exits': str(pio), 'apic_exits': '6'}
    return {'status': 0, 'ready_ms': ready, 'exits_total': exits,
            'exits_calib_phase': pio + 6, 'calib': c}


def test_report_names_the_host_and_the_exits(tmp_path):
    runs = {'cpuid': [run('cpuid15', 0, 1000100, 900, 40, 90.0)] * 3,
            'pit': [run('pit', 32, 1008000, 80000, 68, 95.0),
                    {'status': 12, 'ready_ms': None,
                     'error': ['KVM_RUN failed']}]}
    res = calib.analyse(runs, 2694859)
    assert res['pit']['failed'] == 1
    assert res['pit']['calib_pio_exits']['p50'] == 32
    assert res['cpuid']['calib_pio_exits']['p50'] == 0
    a = argparse.Namespace(n=3, q=10)
    md = calib.report_md(a, res, runs, 'amd-nested-rig', 'AMD EPYC',
                         'abc1234', None)
    assert md.startswith('Host: AMD EPYC (amd-nested-rig)')
    assert '| of which port I/O | 0 (0-0) | 32 (32-32) |' in \
        md.replace('|   of', '| of')
    assert '- failed: pit: status 12: KVM_RUN failed' in md
    # published as make bench's are: named by host and date, listed
    doc = tmp_path / 'CALIB.md'
    doc.write_text('x\n<!-- calib-results:begin -->\n'
                   '<!-- calib-results:end -->\n')
    path = markdown.publish(md, '2026-12-07T03:00:00Z', 'amd-nested-rig',
                            str(tmp_path / 'results'), str(doc),
                            'make bench-calib', '-calib',
                            '<!-- calib-results:begin -->',
                            '<!-- calib-results:end -->')
    assert path.endswith('amd-nested-rig-2026-12-07T0300Z-calib.md')
    assert '(results/amd-nested-rig-2026-12-07T0300Z-calib.md)' in \
        doc.read_text()


def test_full_is_every_config_at_the_defaults():
    assert calib.parse_args([]).full
    assert not calib.parse_args(['-n', '5']).full
    assert not calib.parse_args(['--no-qemu']).full
