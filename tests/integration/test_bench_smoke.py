# SPDX-License-Identifier: MIT
"""Smoke run of the host runner (guest-bench/run --quick, as make bench
QUICK=1) on a few configs: every config ran, every guest config has a
record for every case any config reported (@bench with the statistics
as numbers, irqlab-vmm also with the exit counts, or @bench_skip with a
reason), the native row has its two cases, results.json and results.md
exist.  First, with no KVM needed: the report turns a truncated and a
garbage config file into failed configs, without crashing.  Outcomes
only: no value is checked.

Where there is no /dev/kvm the runner boots the KVM configs in the nested
rig (guest-bench/run --rig): the user-mode config on a rig with a CPU
per vCPU, the KVM-LAPIC ones on a rig of one CPU, and follows
the rig's rule (tests/nested/README.md): a boot whose kernel reported
the rig's STI-shadow fault is booted again once, loudly.

QEMU is a peer, not ours: a qemu-kvm config that cannot start here (no
QEMU, or no -cpu model QEMU/KVM starts with: scripts/qemu-kvm-cpu) is a
SKIP of its own case, with the reason, and the rest must still pass; one
that started and then failed is a failure.  BENCH_SMOKE_CONFIGS picks
the configs; QEMU_KVM_CPU_CANDIDATES='nosuch' simulates a host where no
model starts.

    /usr/bin/python3 -m pytest -v tests/integration/test_bench_smoke.py
"""
import json
import os
import subprocess
import sys

import pytest

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(
    os.path.abspath(__file__))))
sys.path.insert(0, os.path.join(ROOT, 'guest-bench'))
from runner import boot, records  # noqa: E402

OUT = os.path.join(ROOT, 'build/tests/integration/bench-smoke')
RUN = [sys.executable, os.path.join(ROOT, 'guest-bench/run')]
CONFIGS = os.environ.get(
    'BENCH_SMOKE_CONFIGS',
    'vmm-user-x2apic-exit,vmm-kernel-xapic-guest,qemu-kvm-on,native'
).split(',')
STATS = ['n'] + ['%s_%s' % (p, u) for u in ('cyc', 'ns')
                 for p in ('min', 'p50', 'p90', 'p99', 'max', 'mean')]
EXITS = ['exits_per_op', 'send_exits', 'kick_exits', 'eoi_exits',
         'hlt_exits', 'other_exits']
# a peer that cannot start here: a skip, not a failure
PEER_SKIPS = ('no-cpu-model', 'no-qemu')


def is_num(v):
    return isinstance(v, (int, float)) and not isinstance(v, bool)


def test_report_on_broken_input(tmp_path):
    """A truncated file, a garbage one and a missing one: failed configs
    with their problems, and the report still written."""
    (tmp_path / 'cut.out').write_text(
        '@config name=cut kind=irqlab-vmm iters=5\n'
        '@bench case=x n=5 p50_ns=1\n')
    (tmp_path / 'junk.out').write_bytes(
        b'\x01\x02garbage\n@bench case=\n@bench =3 x\n@@@\n')
    files = [str(tmp_path / f) for f in ('cut.out', 'junk.out',
                                         'missing.out')]
    p = subprocess.run(RUN + ['--report'] + files + ['-o', str(tmp_path)],
                       capture_output=True, text=True, timeout=120)
    assert p.returncode == 0, p.stderr
    d = json.loads((tmp_path / 'results.json').read_text())
    st = {c['name']: (c['status'], c['reason'], len(c['errors']))
          for c in d['configs']}
    assert st['cut'][:2] == ('failed', 'truncated')
    assert st['junk'][:2] == ('failed', 'truncated')
    assert st['missing'][:2] == ('failed', 'unreadable')
    assert st['junk'][2] >= 3, d
    assert (tmp_path / 'results.md').stat().st_size > 0


@pytest.fixture(scope='module')
def smoke():
    """One quick run of the configs; (status, results.json, its stderr)."""
    for f in (boot.VMM, boot.KERNEL, boot.NATIVE_FUTEX):
        assert os.path.exists(f), '%s is missing (make all %s)' % (
            f, os.path.relpath(boot.NATIVE_FUTEX, ROOT))
    # no /dev/kvm: the runner's --rig, as make test's other KVM tests
    rig = [] if boot.kvm_usable() else ['--rig']
    p = subprocess.run(RUN + ['--quick', '-n', '20', '-c', ','.join(CONFIGS),
                              '-o', OUT, '--no-doc'] + rig,
                       capture_output=True, text=True, timeout=900)
    sys.stderr.write(p.stderr)
    with open(os.path.join(OUT, 'results.json')) as f:
        d = json.load(f)
    return p.returncode, d, p.stderr


def config(d, name):
    return next(c for c in d['configs'] if c['name'] == name)


def peer_skip(c):
    """The reason a qemu-kvm config could not start here, or None."""
    if (c['status'] != 'skipped' or c['params'].get('kind') != 'qemu-kvm' or
            c['reason'] not in PEER_SKIPS):
        return None
    try:
        with open(os.path.join(OUT, 'raw', c['name'] + '.err')) as f:
            return f.read().strip() or c['reason']
    except OSError:
        return c['reason']


def raw_err(name):
    try:
        with open(os.path.join(OUT, 'raw', name + '.err')) as f:
            return f.read().strip()
    except OSError:
        return ''


def guest_cases(d):
    """Every case a guest config reported, run or skipped."""
    guest = [c for c in d['configs'] if c['params'].get('kind') != 'native'
             and not peer_skip(c)]
    return sorted({r['case'] for r in d['results'] if r['config'] != 'native'}
                  | {s['case'] for c in guest for s in c['skipped']})


def test_runner_ran(smoke):
    rc, d, err = smoke
    assert rc == 0 or any(config(d, n)['status'] == 'failed'
                          for n in CONFIGS), err
    for k in ('git', 'host', 'configs', 'results', 'qemu_kvm_cpu'):
        assert k in d, 'results.json has no %s' % k
    assert d['host'].get('cpu_model') and d['host'].get('kernel_release')
    assert os.path.getsize(os.path.join(OUT, 'results.md')) > 0
    assert [c['name'] for c in d['configs']] == CONFIGS
    cases = guest_cases(d)
    assert len(cases) >= 5, cases


def test_breakdown_beside_the_results(smoke):
    """The per-phase breakdown (docs/ANATOMY.md) from --timeline boots of
    its own, in results.md and results.json, and drawn as stacked bars;
    every histogram in results.json adds up to its record's n."""
    rc, d, err = smoke
    b = d.get('breakdown')
    assert b, 'results.json has no breakdown\n' + err[-2000:]
    ran = {n: c for n, c in b['configs'].items() if 'not_run' not in c}
    assert 'user-x2apic-base' in ran, b['configs']
    wake = ran['user-x2apic-base']['ipi_wake']
    if wake['end_to_end']:      # ipi_wake may skip itself (TSC skew)
        names = [p['phase'] for p in wake['phases']]
        assert 'ICR exit' in names and 'decode and post' in names, names
    with open(os.path.join(OUT, 'results.md')) as f:
        assert '## Where the time of one IPI goes' in f.read()
    assert os.path.exists(os.path.join(OUT, 'anatomy-ipi_wake.svg')) or \
        'no matplotlib' in err
    for r in d['results']:
        if 'hist' in r:
            assert sum(n for _, n in r['hist']['buckets']) == \
                r['stats']['n'], (r['config'], r['case'])


def case_in_summary(cfg, case):
    """A case whose result is its own record: @PARENT mode=SUB ..."""
    parent, _, sub = case.partition('.')
    try:
        with open(os.path.join(OUT, 'raw', cfg + '.out'),
                  errors='replace') as f:
            text = f.read()
    except OSError:
        return False
    return records.find(text, parent, mode=sub) is not None


@pytest.mark.parametrize('name', CONFIGS)
def test_config(smoke, name):
    _, d, _ = smoke
    c = config(d, name)
    why = peer_skip(c)
    if why:
        pytest.skip('%s: %s' % (name, why))
    if c['status'] == 'skipped' and c['reason'] == 'no-rig':
        pytest.skip('%s: no /dev/kvm, and %s' % (name, raw_err(name) or
                                                  'the rig cannot run here'))
    flake = os.path.join(OUT, 'raw', name + '.flake.out')
    if os.path.exists(flake) and any('kernel @fault' in e
                                     for e in c['errors']):
        # tests/nested/README.md "The rule": the rig's fault twice
        pytest.xfail('nested rig, twice: %s: @fault kind=sti_shadow in '
                     '%s and in its second boot' % (name, flake))
    assert c['status'] == 'ok', '%s: %s (%s)' % (name, c['status'],
                                                c['reason'])
    rows = {r['case']: r['stats'] for r in d['results']
            if r['config'] == name}
    kind = c['params'].get('kind')
    if kind == 'qemu-kvm':
        # it ran on the probed model, recorded as such
        cpu = d.get('qemu_kvm_cpu')
        assert cpu and c['params'].get('cpu', '').startswith(cpu), \
            '-cpu %r is not the probed qemu_kvm_cpu %r' % (
                c['params'].get('cpu'), cpu)
    if kind == 'native':
        for case in ('futex_wake', 'futex_wake.waker'):
            assert case in rows, 'native: no %s' % case
            assert all(is_num(rows[case].get(k)) for k in STATS), rows[case]
        return
    skipped = {s['case']: s['reason'] for s in c['skipped']}
    bad = []
    for case in guest_cases(d):
        parent = case.split('.')[0]
        if case not in skipped and parent != case and parent in skipped:
            continue        # ipi_wake.send comes only with ipi_wake
        if case in skipped:
            if not skipped[case]:
                bad.append('%s skipped without a reason' % case)
            continue
        s = rows.get(case)
        if s is None and case_in_summary(name, case):
            continue        # ioapic_rotate.level: its record is @ioapic_rotate
        if s is None:
            bad.append('no record for %s' % case)
            continue
        want = STATS + (EXITS if kind == 'irqlab-vmm' else [])
        bad += ['%s: %s is %r' % (case, k, s.get(k)) for k in want
                if not is_num(s.get(k))]
    assert not bad, '%s: %s' % (name, '; '.join(bad))
