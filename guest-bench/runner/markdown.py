# SPDX-License-Identifier: MIT
"""results.md: the configs, one row per case x config, the futex_wake
summaries, the notes; and docs/BENCHMARKS.md's results part, between
its markers."""
import os
import re
import time

from . import ROOT, report

DOC_BEGIN = '<!-- bench-results:begin -->'
DOC_END = '<!-- bench-results:end -->'
EXIT_PARTS = ('send_exits', 'kick_exits', 'eoi_exits', 'hlt_exits',
              'other_exits')


def describe(c):
    kind = c.param('kind')
    if kind == 'irqlab-vmm':
        s = 'irqlab-vmm --irqchip=%s --hlt=%s' % (c.param('irqchip'),
                                                  c.param('hlt'))
        poll = c.param('halt_poll', None)
        if poll and poll != '0':
            s += ' --halt-poll ' + poll
        if c.param('pv_eoi', 'off') == 'on':
            s += ' --pv-eoi=on'
        return s + ', apic=' + c.param('apic')
    if kind == 'qemu-kvm' and c.param('cpu') == 'none':
        return 'QEMU KVM kernel_irqchip=%s, no -cpu model' % c.param('irqchip')
    if kind == 'qemu-kvm':
        return 'QEMU KVM kernel_irqchip=%s, -cpu %s' % (c.param('irqchip'),
                                                        c.param('cpu'))
    if kind == 'qemu-tcg':
        return 'QEMU TCG, -cpu %s (xAPIC)' % c.param('cpu')
    if kind == 'native':
        return 'host, pthreads + futex (native-futex)'
    if kind == 'log':
        return 'serial log `%s`: %s, %s CPUs (%s), CPU %s, kernel %s' % (
            c.param('file'), 'bare metal or no hypervisor bit'
            if c.param('hv') == 'none' else 'hypervisor ' + c.param('hv'),
            c.param('cpus'), c.param('apic'), c.param('cpu'),
            c.param('version'))
    return kind


def num(r, key, fmt):
    v = r.num(key) if r is not None else None
    return '-' if v is None else fmt % v


def exits(r):
    if r.num('exits_per_op') is None:
        return 'not measured'
    return '%.2f (%s)' % (r.num('exits_per_op'),
                          '/'.join(num(r, k, '%.2f') for k in EXIT_PARTS))


def wake(w):
    return 'Wokeup %d of %d threads in %.4f ms (+-%.2f%%)' % (
        w.woken, w.threads, w.ms, w.rse_pct)


# why a configuration ran time-shared (@config time_shared=WHY)
SHARED = {'vcpus': 'more vCPUs than this host has CPUs',
          'kvm-lapic-rig': "KVM's LAPIC in the nested rig runs on one CPU, "
                           "where the rig's own fault with it does not come "
                           '(tests/nested/README.md)'}


def configs_table(configs):
    out = ['| config | what | status | passes | wall s | host CPU s |',
           '|---|---|---|---|---|---|']
    for c in configs:
        if c.status == 'skipped':
            st = '**SKIPPED** (%s)' % c.reason
        elif c.status != 'ok':
            st = '**FAILED** (%s)' % c.reason
        else:
            st = 'ok (%s)' % c.reason if c.reason else 'ok'
        if report.time_shared(c):
            st += ', **time-shared**: %s, no ratios' % SHARED.get(
                c.param('time_shared'), 'more vCPUs than CPUs')
        t = ('-', '-') if c.param('kind') == 'log' else (
            '%.1f' % (c.wall_ms / 1000), '%.1f' % (c.cpu_ms / 1000))
        out.append('| %s | %s | %s | %d/%d | %s | %s |' % (
            c.name, describe(c), st, c.passes_ok, c.passes, t[0], t[1]))
    return out


def case_rows(configs, name, ref, ref_name=report.REF):
    out = []
    for c in configs:
        k = c.case(name)
        if not k or k.skipped:
            continue
        r = k.rec
        p50 = num(r, 'p50_ns', '%.0f')
        lo, hi = r.num('p50_ns_min'), r.num('p50_ns_max')
        if lo is not None and hi is not None and r.num('passes', 0) > 1:
            p50 += ' (%.0f-%.0f)' % (lo, hi)
        q = report.ratio(c, name, ref)
        out.append('| %s | %s | %s | %s | %s | %s |' % (
            name, c.name, p50, num(r, 'p99_ns', '%.0f'), exits(r),
            'time-shared' if report.time_shared(c) else
            '-' if q is None else '%.2fx' % q if q >= .1 else
            '%.2gx' % q))
    return out


def futex_table(configs):
    """perf bench futex wake's summary: the guest's own, the host's perf."""
    out = []
    for c in configs:
        ws = c.wokeup or ([c.perf] if c.perf else [])
        if not ws:
            continue
        if not out:
            out = ['`futex_wake` as `perf bench futex wake` prints it (the '
                   "guest's own case; native: `perf bench futex wake -t 1` "
                   'on the host), and the wake-to-run p50.  With several '
                   "passes: the median pass's line, and the range:", '',
                   '| config | Wokeup | ms (+-RSE) | range over passes, ms | '
                   'wake-to-run p50 ns |', '|---|---|---|---|---|']
        w, span = ws[0], '-'
        if len(ws) > 1:
            v = sorted(x.ms for x in ws)
            # the (lower) median pass: the last with that time
            w = [x for x in ws if x.ms == v[(len(v) - 1) // 2]][-1]
            span = '%.4f-%.4f (%d)' % (v[0], v[-1], len(v))
        k = c.case('futex_wake')
        p50 = num(k.rec, 'p50_ns', '%.0f') if k and not k.skipped else '-'
        out.append('| %s | %d of %d | %.4f (+-%.2f%%) | %s | %s |' % (
            c.name, w.woken, w.threads, w.ms, w.rse_pct, span, p50))
    return out + [''] if out else []


def notes(configs):
    out = []
    for c in configs:
        out += ['- %s: `%s` skipped (%s)' % (c.name, k.name, k.reason)
                for k in c.cases.values() if k.skipped]
        if c.tsc_sync is not None:
            out.append('- %s: `@tsc_sync` skew_cyc=%s ok=%s' % (
                c.name, c.tsc_sync.get('skew_cyc', '?'),
                c.tsc_sync.get('ok', '?')))
        out += ['- %s: %s' % (c.name, wake(w)) for w in c.wokeup]
        if c.perf:
            out.append('- %s: `perf bench futex wake -t 1`: %s' % (
                c.name, wake(c.perf)))
        out += ['- %s: problem: %s' % (c.name, e) for e in c.errors]
        if c.more_errors:
            out.append('- %s: %d more problems' % (c.name, c.more_errors))
    return out


def results_md(configs, host, ref_name=report.REF, source=None):
    """The whole results.md, as a string.  @source: where the configs
    came from when not from make bench's boots here."""
    ref = report.ref_config(configs, ref_name)
    h = host['host']
    iters = configs[0].param('iters') if configs else '?'
    cpu = report.qemu_kvm_cpu(configs)
    if source:
        out = ['Generated by %s on %s, git `%s`.  Each log ran wherever '
               'it was captured: its machine is in its row below (the '
               'kernel\'s @cpuid and @boot), not this host.' % (
                   source, host['date'], host['git']['describe']), '']
    else:
        out = ['Generated by `make bench` (guest-bench/run) on %s: git '
               '`%s`; host %s, %d CPUs, %s %s; `bench=all iters=%s`, 2 '
               'CPUs everywhere%s.' % (
                   host['date'], host['git']['describe'], h['cpu_model'],
                   h['cpus'], h['sysname'], h['kernel_release'], iters,
                   '; QEMU/KVM -cpu model `%s` (probed by '
                   'scripts/qemu-kvm-cpu)' % cpu if cpu else ''), '']
    rig = [c.name for c in configs if c.param('host') == 'nested-rig']
    if rig:
        out += ['In the nested rig (`--rig`: QEMU TCG\'s emulated SVM and a '
                'Linux KVM inside it, tests/nested/README.md), not on this '
                'host\'s CPU: %s.  Their exit counts are exact; their times '
                'are the rig\'s, not comparable with a real host\'s.' %
                ', '.join(rig), '']
    out += configs_table(configs)
    out += ['', 'p50 and p99 in ns (nearest rank; with several passes the '
            'median over them, and the p50s\' range in brackets).  Exits '
            'per operation, irqlab-vmm only (elsewhere: not measured): '
            'total (send/kick/eoi/hlt/other), userspace exits over all '
            'vCPUs.  Last column: p50 over %s\'s p50 for the case%s%s.' % (
                ref_name, '' if source else ', same run',
                '' if ref else ' (%s did not run: no ratios)' % ref_name),
            '', '| case | config | p50 ns | p99 ns | exits/op '
            '(send/kick/eoi/hlt/other) | p50 / %s |' % ref_name,
            '|---|---|---|---|---|---|']
    seen = []
    for c in configs:
        for name in c.cases:
            if name not in seen:
                seen.append(name)
                out += case_rows(configs, name, ref)
    out.append('')
    out += futex_table(configs)
    out += notes(configs)
    return '\n'.join(out) + '\n'


def host_kind(rig=False):
    """The host's kind in a results file's name: the CPU's vendor and what
    ran the KVM configs (kvm_pvm, kvm, the nested rig, or none)."""
    vendor = 'cpu'
    try:
        with open('/proc/cpuinfo') as f:
            v = next((l.split(':', 1)[1].strip() for l in f
                      if l.startswith('vendor_id')), '')
        vendor = {'AuthenticAMD': 'amd', 'GenuineIntel': 'intel'}.get(
            v, vendor)
    except OSError:
        pass
    if rig:
        kind = 'nested-rig'
    elif not os.path.exists('/dev/kvm'):
        kind = 'no-kvm'
    elif os.path.exists('/sys/module/kvm_pvm') and not any(
            os.path.exists('/sys/module/' + m)
            for m in ('kvm_intel', 'kvm_amd')):
        kind = 'kvm_pvm'
    else:
        kind = 'kvm'
    return '%s-%s' % (vendor, kind)


# a results file's name: KIND-DATE.md, or KIND-DATE-TAG.md for a tool
# other than make bench (make anatomy: -anatomy)
RESULT_NAME = re.compile(r'-(\d{4}-\d\d-\d\dT\d{4})Z(-[a-z]+)?\.md$')


def publish(md, date, kind, results_dir, doc, what='make bench', tag='',
            begin=DOC_BEGIN, end=DOC_END):
    """A full run's report: @md into @results_dir/KIND-DATE[TAG].md (named
    by host and date; history is in git), then @doc's list of the results
    files of that @tag, newest first, between its markers.  Returns the
    new file."""
    os.makedirs(results_dir, exist_ok=True)
    stamp = date.replace(':', '')[:15]          # 2026-12-06T1952
    path = os.path.join(results_dir, '%s-%sZ%s.md' % (kind, stamp, tag))
    with open(path, 'w') as f:
        f.write('# %s on %s, %s\n\n' % (what, kind, date) + md)
    found = [(m.group(1), n) for n, m in
             ((n, RESULT_NAME.search(n)) for n in os.listdir(results_dir))
             if m and (m.group(2) or '') == tag]
    names = [n for _, n in sorted(found, reverse=True)]
    rel = os.path.relpath(results_dir, os.path.dirname(doc) or '.')
    listing = '\n'.join('- [%s](%s/%s)' % (n[:-3], rel, n) for n in names)
    update_doc(doc, 'The results of every full `%s` run, newest first, as '
               'the runner wrote them:\n\n' % what + listing + '\n',
               begin, end)
    return path


def publish_run(md, kind, doc, what, tag, marker, date=None):
    """A tool's full run (make bench-calib, bench-pir, fuzz, ...): publish()
    into the repository's docs/results/, listed in @doc (a path from the
    repository's root) between '<!-- @marker:begin -->' and its end, dated
    now unless @date is given."""
    if date is None:
        date = time.strftime('%Y-%m-%dT%H:%M:%SZ', time.gmtime())
    return publish(md, date, kind, os.path.join(ROOT, 'docs/results'),
                   os.path.join(ROOT, doc), what, tag,
                   '<!-- %s:begin -->' % marker, '<!-- %s:end -->' % marker)


def update_doc(doc, md, begin=DOC_BEGIN, end=DOC_END):
    """Put @md between @doc's markers; raises OSError or ValueError."""
    with open(doc) as f:
        text = f.read()
    b = text.find(begin)
    e = text.find(end, b) if b >= 0 else -1
    if b < 0 or e < 0:
        raise ValueError("%s has no '%s' ... '%s' markers: not changed" %
                         (doc, begin, end))
    b += len(begin)
    tmp = doc + '.tmp'
    with open(tmp, 'w') as f:
        f.write(text[:b] + '\n' + md + text[e:])
    os.replace(tmp, doc)
