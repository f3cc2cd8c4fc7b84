# SPDX-License-Identifier: MIT
"""guest-bench/runner/report.py: the runner's config files read back,
the passes merged; and what results.json and results.md make of them."""
import pytest

from runner import markdown, plots, report


@pytest.fixture
def read(tmp_path):
    """read(text, name='cfg.out'): @text as a config file, read back."""
    def read_text(text, name='cfg.out'):
        p = tmp_path / name
        p.write_text(text)
        return report.read(str(p))
    return read_text


HOST = {'date': '2026-12-03T00:00:00Z',
        'git': {'rev': 'abc', 'describe': 'abc'},
        'host': {'cpu_model': 'test CPU', 'cpus': 2, 'sysname': 'Linux',
                 'kernel_release': '6.18', 'kernel_version': '#1',
                 'machine': 'x86_64'}}


def test_a_good_config(read):
    c = read('@config name=vmm-user-x2apic-exit kind=irqlab-vmm '
             'irqchip=user apic=x2apic hlt=exit cpus=2 iters=50\n'
             'irqlab kernel v1\r\n'
             '@calib source=cpuid15 tsc_khz=2299998\n'
             '@bench case=ipi_pingpong cpus=2 apic=x2apic n=50 p50_ns=10 '
             'exits_per_op=3.00\n'
             '@tsc_sync cpus=0,1 skew_cyc=-12 ok=1\n'
             '@bench_skip case=ipi_wake reason=tsc-skew\n'
             'Wokeup 4 of 4 threads in 0.5000 ms (+-1.50%)\n'
             '@ready tsc=1\n'
             '@config_end status=ok rc=0 wall_ms=1234 cpu_ms=987\n')
    assert c.name == 'vmm-user-x2apic-exit'
    assert c.status == 'ok'
    assert c.reason == ''
    assert c.rc == 0
    assert c.wall_ms == 1234
    assert c.cpu_ms == 987
    assert len(c.cases) == 2
    assert c.errors == []
    k = c.case('ipi_pingpong')
    assert k
    assert not k.skipped
    assert k.rec.number('p50_ns') == 10
    k = c.case('ipi_wake')
    assert k
    assert k.skipped
    assert k.reason == 'tsc-skew'
    assert c.tsc_sync['skew_cyc'] == '-12'
    assert c.hdr['apic'] == 'x2apic'
    assert len(c.wokeup) == 1
    assert c.wokeup[0].threads == 4
    assert c.perf is None
    assert c.case('self_ipi') is None


def test_perf_line_and_a_failed_config(read):
    c = read('@config name=native kind=native iters=5\n'
             '@bench case=futex_wake n=5 p50_ns=3\n'
             '@perf cmd=x\n'
             '[Run 1]: Wokeup 1 of 1 threads in 0.0070 ms\n'
             'Wokeup 1 of 1 threads in 0.0359 ms (+-28.70%)\n'
             '@config_end status=failed rc=124 wall_ms=9 reason=timeout\n')
    assert c.status == 'failed'
    assert c.reason == 'timeout'
    assert c.rc == 124
    assert c.perf is not None
    assert c.perf.ms == pytest.approx(0.0359, abs=1e-12)
    assert c.wokeup == []


def test_truncated_and_malformed_are_failed_with_problems(read):
    c = read('@config name=cut kind=qemu-kvm\n'
             '@bench case=a n=1\n'
             '@bench case=a n=2\n'             # a second record
             '@bench n=3\n'                    # no case
             '@bench case=b n=1 n=2\n'         # duplicate key
             '@bench case=c x\x01y=1\n'        # control byte
             '@panic reason=ipi-check\n')      # and no @config_end
    assert c.name == 'cut'
    assert c.status == 'failed'
    assert c.reason == 'truncated'
    assert len(c.cases) == 1
    assert len(c.errors) == 5
    assert 'line 3: a second record' in c.errors[0]
    assert 'duplicate key' in c.errors[2]
    assert '@panic' in c.errors[4]


def test_no_header_many_errors_long_lines(read):
    text = ''.join('@bad-name %d\n' % i for i in range(40))
    text += 'x' * 100000                # one huge line
    text += '\n@config_end status=ok rc=0 wall_ms=1\n'
    c = read(text, 'irqlab-test-report-1.out')
    # named after its file, problems capped and counted
    assert c.name.startswith('irqlab-test-report-')
    assert c.status == 'ok'
    assert len(c.errors) == report.MAX_ERRORS
    assert len(c.errors) + c.more_errors == 40 + 1 + 1


def test_unreadable_file():
    c = report.read('/nonexistent/x.out')
    assert c.status == 'failed'
    assert c.reason == 'unreadable'
    assert c.name == 'x'


def test_reference_config():
    two = [report.Config('qemu-kvm-split'), report.Config('qemu-kvm-on')]
    two[0].status, two[1].status = 'ok', 'failed'
    assert report.ref_config(two) is None
    two[1].status = 'ok'
    assert report.ref_config(two) is two[1]


def test_passes_merge_into_medians(read):
    passes = [
        '@config name=a iters=5\n@bench case=x n=5 p50_ns=10 apic=x2apic\n'
        '@bench_skip case=y reason=tsc-skew\n'
        'Wokeup 1 of 1 threads in 0.2 ms (+-1.00%)\n'
        '@config_end status=ok rc=0 wall_ms=1\n',
        '@config name=b\n@config_end status=failed rc=124 wall_ms=5 '
        'reason=timeout\n',
        '@config name=a iters=5\n@bench case=x n=5 p50_ns=30 apic=x2apic\n'
        '@bench_skip case=y reason=tsc-skew\n'
        'Wokeup 1 of 1 threads in 0.4 ms (+-2.00%)\n'
        '@config_end status=ok rc=0 wall_ms=2\n',
        '@config name=a iters=5\n@bench case=x n=5\n'
        '@config_end status=failed rc=124 wall_ms=4 reason=timeout\n',
    ]
    out = report.merge([read(t, 'p%d.out' % i) for i, t in
                        enumerate(passes)])
    assert len(out) == 2
    assert out[0].name == 'a'
    assert out[0].status == 'ok'
    assert out[0].passes == 3
    assert out[0].passes_ok == 2
    assert '1 of 3 passes failed: timeout' in out[0].reason
    assert out[0].wall_ms == 7
    k = out[0].case('x')
    assert k
    assert k.rec.number('p50_ns') == 20
    assert k.rec.number('p50_ns_min') == 10
    assert k.rec.number('p50_ns_max') == 30
    assert k.rec.number('passes') == 2
    assert k.rec['apic'] == 'x2apic'
    k = out[0].case('y')
    assert k
    assert k.skipped
    assert k.reason == 'tsc-skew'
    assert len(out[0].wokeup) == 2
    assert out[1].name == 'b'
    assert out[1].status == 'failed'
    assert out[1].reason == 'timeout'
    assert out[1].passes_ok == 0


def test_skipped_config_and_the_probed_cpu(read):
    """A config that cannot run here (the runner's Unrunnable: no
    /dev/kvm, no QEMU, no -cpu model QEMU/KVM starts with) is skipped,
    not failed, when every pass was; the probed model comes from the
    header."""
    passes = [
        '@config name=qemu-kvm-on kind=qemu-kvm cpu=none cpu_probed=none '
        'iters=5\n'
        '@config_end status=skipped rc=-1 wall_ms=0 reason=no-cpu-model\n',
        '@config name=qemu-kvm-split kind=qemu-kvm cpu=max,+x2apic '
        'cpu_probed=max iters=5\n'
        '@config_end status=skipped rc=-1 wall_ms=0 reason=no-kvm\n',
        '@config name=qemu-kvm-split kind=qemu-kvm cpu=max,+x2apic '
        'cpu_probed=max iters=5\n'
        '@config_end status=failed rc=124 wall_ms=4 reason=timeout\n',
        '@config name=qemu-kvm-on kind=qemu-kvm cpu=none cpu_probed=none '
        'iters=5\n'
        '@config_end status=skipped rc=-1 wall_ms=0 reason=no-cpu-model\n',
    ]
    cs = [read(t, 'p%d.out' % i) for i, t in enumerate(passes)]
    assert cs[0].status == 'skipped'
    assert cs[0].passes_ok == 0
    assert report.qemu_kvm_cpu(cs[:1]) is None
    out = report.merge(cs)
    assert len(out) == 2
    assert out[0].status == 'skipped'
    assert out[0].reason == 'no-cpu-model'
    assert out[1].status == 'failed'
    assert report.ref_config(out) is None
    assert report.qemu_kvm_cpu(out) == 'max'


def test_ioapic_rotate_cut_by_its_budget(read):
    """ioapic_rotate cut short by its time budget (the lines irqlab-vmm
    --cpus 8 --ioapic=naive printed on the kvm_pvm AMD host): the @bench
    records carry asked=, budget_ms= and ended= at the end, and still
    read as cases with their statistics."""
    c = read('@config name=vmm-user-x2apic-exit kind=irqlab-vmm '
             'irqchip=user apic=x2apic hlt=exit cpus=8 iters=200\n'
             '@bench case=ioapic_rotate.edge cpus=8 apic=x2apic n=9 '
             'min_cyc=21077576 p50_cyc=1993773340 p90_cyc=2170322830 '
             'p99_cyc=2170322830 max_cyc=2170322830 '
             'mean_cyc=1464116781 min_ns=8118869 p50_ns=767981373 '
             'p90_ns=835986455 p99_ns=835986455 max_ns=835986455 '
             'mean_ns=563963011 exits_per_op=4.63 send_exits=0.00 '
             'kick_exits=2.63 eoi_exits=0.00 hlt_exits=0.00 '
             'other_exits=2.00 asked=200 budget_ms=5000 ended=budget\n'
             '@ioapic_rotate mode=edge cpus=8 rotations=9 writes=144 '
             'ns_per_write=35247687 p50_ns_per_write=47998835 '
             'read_ns=57195 vs_read=839.21 asked=200 budget_ms=5000 '
             'ended=budget rte_writes=144 tmr_updates=568 remote_tmr_updates=497\n'
             '@bench case=ioapic_rotate.level cpus=8 apic=x2apic n=32 '
             'min_cyc=904202 p50_cyc=370848140 p90_cyc=599898182 '
             'p99_cyc=666345706 max_cyc=666345706 mean_cyc=403306936 '
             'min_ns=348289 p50_ns=142846961 p90_ns=231074726 '
             'p99_ns=256669642 max_ns=256669642 mean_ns=155349762 '
             'exits_per_op=14.63 send_exits=0.00 kick_exits=7.63 '
             'eoi_exits=1.00 hlt_exits=0.00 other_exits=6.00 asked=200 '
             'budget_ms=5000 ended=budget\n'
             '@config_end status=ok rc=0 wall_ms=12150\n')
    assert c.status == 'ok'
    assert c.errors == []
    assert len(c.cases) == 2
    k = c.case('ioapic_rotate.edge')
    assert k
    assert k.rec.u64('n') == 9
    assert k.rec.u64('asked') == 200
    assert k.rec['ended'] == 'budget'
    assert k.rec.u64('p50_ns') == 767981373
    k = c.case('ioapic_rotate.level')
    assert k
    assert k.rec.u64('budget_ms') == 5000


# ---- what results.json and results.md make of them ----

def test_json_rows_and_markdown(read):
    vmm = read('@config name=vmm-user-x2apic-exit kind=irqlab-vmm '
               'irqchip=user apic=x2apic hlt=exit halt_poll=0 cpus=2 '
               'iters=5\n'
               '@bench case=x n=5 p50_ns=10 p99_ns=40 exits_per_op=3.00 '
               'send_exits=1.00 kick_exits=1.00 eoi_exits=1.00 '
               'hlt_exits=0.00 other_exits=0.00 hex=0x10 note=na\n'
               '@config_end status=ok rc=0 wall_ms=1500\n', 'vmm.out')
    qemu = read('@config name=qemu-kvm-on kind=qemu-kvm irqchip=on '
                'apic=x2apic hlt=exit cpus=2 cpu=max,+x2apic '
                'cpu_probed=max iters=5\n'
                '@bench case=x n=5 p50_ns=40 p99_ns=80\n'
                '@config_end status=ok rc=1 wall_ms=500\n', 'qemu.out')
    cs = report.merge([vmm, qemu])
    j = report.results_json(cs, HOST)
    assert j['qemu_kvm_cpu'] == 'max'
    assert [c['name'] for c in j['configs']] == ['vmm-user-x2apic-exit',
                                                 'qemu-kvm-on']
    row = j['results'][0]
    assert row['ratio_p50_to_qemu_kvm_on'] == 0.25
    # numbers as numbers (integral ones as ints), the rest as strings
    assert row['stats']['exits_per_op'] == 3
    assert isinstance(row['stats']['exits_per_op'], int)
    assert row['stats']['hex'] == 16
    assert row['stats']['note'] == 'na'
    assert row['stats']['passes'] == 1
    md = markdown.results_md(cs, HOST)
    assert ('| vmm-user-x2apic-exit | irqlab-vmm --irqchip=user --hlt=exit,'
            ' apic=x2apic | ok | 1/1 | 1.5 |') in md
    assert ('| x | vmm-user-x2apic-exit | 10 | 40 | 3.00 '
            '(1.00/1.00/1.00/0.00/0.00) | 0.25x |') in md
    assert '| x | qemu-kvm-on | 40 | 80 | not measured | 1.00x |' in md
    assert "QEMU/KVM -cpu model `max`" in md


def test_update_doc(tmp_path):
    doc = tmp_path / 'doc.md'
    doc.write_text('a\n%s\nold\n%s\nb\n' % (markdown.DOC_BEGIN,
                                           markdown.DOC_END))
    markdown.update_doc(str(doc), 'new\n')
    assert doc.read_text() == 'a\n%s\nnew\n%s\nb\n' % (markdown.DOC_BEGIN,
                                                      markdown.DOC_END)
    doc.write_text('no markers\n')
    with pytest.raises(ValueError):
        markdown.update_doc(str(doc), 'new\n')
    assert doc.read_text() == 'no markers\n'


def test_knob_config_host_cpu_per_op(read):
    """A knob config's boots in one file: each case's @host_cpu goes
    into its record; one without its @bench is a problem."""
    c = read('@config name=knob-user-pvipi kind=irqlab-vmm irqchip=user '
             'apic=x2apic hlt=exit cpus=3 knobs=pvipi iters=20\n'
             '@ready tsc=1\n'
             '@bench case=ipi_wake cpus=3 apic=x2apic n=20 p50_ns=10\n'
             '@host_cpu case=ipi_wake cpu_ms=300.0 base_ms=100.0 n=20 '
             'per_op_us=10000.0\n'
             '@ready tsc=2\n'
             '@bench_skip case=futex_wake reason=tsc-skew\n'
             '@host_cpu case=futex_wake cpu_ms=1 base_ms=1 n=1 '
             'per_op_us=0.0\n'
             '@config_end status=ok rc=0 wall_ms=5\n')
    assert c.status == 'ok'
    assert c.case('ipi_wake').rec.number('host_cpu_us_per_op') == 10000.0
    assert len(c.errors) == 1
    assert '@host_cpu without its @bench' in c.errors[0]
    m = report.merge([c, c])[0]
    assert m.case('ipi_wake').rec.number('host_cpu_us_per_op') == 10000.0


def test_publish_writes_a_results_file_and_lists_them(tmp_path):
    doc = tmp_path / 'BENCH.md'
    doc.write_text('a\n%s\n%s\nb\n' % (markdown.DOC_BEGIN, markdown.DOC_END))
    res = tmp_path / 'results'
    old = markdown.publish('| old |\n', '2026-12-03T14:51:52Z',
                           'amd-kvm_pvm', str(res), str(doc))
    new = markdown.publish('| new |\n', '2026-12-06T19:52:00Z',
                           'intel-nested-rig', str(res), str(doc))
    assert old.endswith('results/amd-kvm_pvm-2026-12-03T1451Z.md')
    assert open(new).read() == ('# make bench on intel-nested-rig, '
                                '2026-12-06T19:52:00Z\n\n| new |\n')
    text = doc.read_text()
    # newest first, each a link beside the doc
    first = text.index('intel-nested-rig-2026-12-06T1952Z.md')
    assert first < text.index('amd-kvm_pvm-2026-12-03T1451Z.md')
    assert '(results/intel-nested-rig-2026-12-06T1952Z.md)' in text
    assert text.startswith('a\n') and text.endswith('\nb\n')


def test_host_kind_names_the_rig():
    assert markdown.host_kind(rig=True).endswith('-nested-rig')
    assert markdown.host_kind().split('-', 1)[1] in (
        'kvm', 'kvm_pvm', 'no-kvm')


def _cfg(name, kind, extra=''):
    return ('@config name=%s kind=%s irqchip=user apic=x2apic hlt=exit '
            'cpus=3%s iters=50\n'
            '@bench case=ipi_wake cpus=3 apic=x2apic n=50 p50_ns=4000000 '
            'exits_per_op=3.00\n'
            '@ready tsc=1\n'
            '@config_end status=ok rc=0 wall_ms=1 cpu_ms=1\n' % (
                name, kind, extra))


def test_no_ratio_from_a_time_shared_config(read):
    shared = read(_cfg('knob-user-base', 'irqlab-vmm', ' time_shared=vcpus'),
                  'a.out')
    ref = read(_cfg('qemu-kvm-on', 'qemu-kvm'), 'b.out')
    alone = read(_cfg('vmm-user-x2apic-exit', 'irqlab-vmm'), 'c.out')
    assert report.time_shared(shared) and not report.time_shared(alone)
    assert report.ratio(shared, 'ipi_wake', ref) is None
    assert report.ratio(alone, 'ipi_wake', ref) == 1.0
    j = report.results_json([shared, ref, alone], HOST)
    row = next(r for r in j['results'] if r['config'] == 'knob-user-base')
    assert row['time_shared'] is True
    assert row['ratio_p50_to_qemu_kvm_on'] is None
    assert next(c for c in j['configs']
                if c['name'] == 'knob-user-base')['time_shared'] is True
    md = markdown.results_md([shared, ref, alone], HOST, 'qemu-kvm-on')
    line = next(l for l in md.splitlines()
                if l.startswith('| ipi_wake | knob-user-base |'))
    assert line.endswith('| time-shared |'), line
    assert '**time-shared**' in md


def test_the_rig_gives_irqlabs_lapic_a_cpu_per_vcpu():
    from runner import matrix
    vmm = ['build/irqlab-vmm', '--cpus', '3', '--irqchip=user', 'k.elf']
    assert matrix.rig_cpus(vmm) == 3
    # KVM's LAPIC: the one-CPU rig, where the rig's fault does not come
    assert matrix.rig_cpus(vmm[:3] + ['--irqchip=split', 'k.elf']) == 1
    assert matrix.rig_cpus(['qemu-system-x86_64', '-accel', 'kvm', '-smp',
                            '2']) == 1
    assert matrix.vcpus('kind=irqlab-vmm irqchip=user cpus=3') == 3


def test_a_plot_of_serial_logs_names_their_machines():
    """A report of serial logs is titled with each log's machine, not the
    host that drew it (a Bochs log is not "AMD EPYC")."""
    from runner import plots
    logs = {'host': {'cpu_model': 'AMD EPYC'}, 'configs': [
        {'name': 'bochs', 'params': {'kind': 'log', 'hv': 'none',
                                     'cpu': 'GenuineIntel/0x6/0x3c'}},
        {'name': 'qemu-tcg', 'params': {'kind': 'log', 'hv': 'TCGTCGTCGTCG',
                                        'cpu': 'AuthenticAMD/0xf/0x6b'}}]}
    t = plots.machines(logs)
    assert 'AMD EPYC' not in t, t
    assert 'bochs on GenuineIntel/0x6/0x3c, hv none' in t, t
    assert 'qemu-tcg on AuthenticAMD/0xf/0x6b' in t, t
    run = dict(logs, configs=[{'name': 'native', 'params':
                               {'kind': 'native'}}])
    assert plots.machines(run) == 'AMD EPYC'


HIST = ('@bench_hist case=ipi_wake unit=ns sub=8 n=50 '
        'buckets=3670016:20,4194304:25,8388608:5\n')


def test_a_histogram_goes_with_its_case_and_passes_add_up(read):
    """@bench_hist (docs/RECORDS.md): every sample in log-linear
    buckets, into results.json; two passes of a config add up."""
    text = _cfg('vmm-user-x2apic-exit', 'irqlab-vmm').replace(
        '@ready', HIST.rstrip('\n') + '\n@ready')
    one = read(text, 'a.out')
    assert one.case('ipi_wake').hist == {
        'unit': 'ns', 'buckets': {3670016: 20, 4194304: 25, 8388608: 5}}
    row = report.results_json([one], HOST)['results'][0]
    assert row['hist'] == {'unit': 'ns', 'buckets': [
        [3670016, 20], [4194304, 25], [8388608, 5]]}
    m = report.merge([one, read(text, 'b.out')])[0]
    assert m.case('ipi_wake').hist['buckets'][4194304] == 50
    xs, ys = plots.hist_cdf(row['hist']['buckets'])
    assert xs == [3670016, 4194304, 8388608] and ys == [0.4, 0.9, 1.0]


def test_a_histogram_without_its_case_is_a_problem(read):
    c = read('@config name=x kind=qemu-tcg\n' + HIST +
             '@config_end status=ok rc=0 wall_ms=1 cpu_ms=1\n', 'c.out')
    assert any('@bench_hist without its @bench' in e for e in c.errors)


def test_publish_run_names_the_file_and_the_markers(tmp_path, monkeypatch):
    """A tool's run: docs/results/KIND-DATE-TAG.md under the root, listed
    between '<!-- MARKER:begin -->' and its end in the doc named."""
    (tmp_path / 'docs').mkdir()
    doc = tmp_path / 'docs' / 'X.md'
    doc.write_text('a\n<!-- x-results:begin -->\n<!-- x-results:end -->\n')
    monkeypatch.setattr(markdown, 'ROOT', str(tmp_path))
    path = markdown.publish_run('| r |\n', 'amd-nested-rig', 'docs/X.md',
                                'make x', '-x', 'x-results',
                                '2026-12-07T04:00:00Z')
    assert path == str(tmp_path / 'docs/results/'
                       'amd-nested-rig-2026-12-07T0400Z-x.md')
    assert '# make x on amd-nested-rig' in open(path).read()
    assert '(results/amd-nested-rig-2026-12-07T0400Z-x.md)' in \
        doc.read_text()
