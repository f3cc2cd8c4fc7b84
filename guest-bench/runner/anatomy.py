# SPDX-License-Identifier: MIT
"""Where the time of one IPI goes: the per-phase breakdown of a timeline
(irqlab-vmm --timeline FILE, docs/ANATOMY.md).

The file is Chrome Trace Event JSON: a slice ("ph": "X") per phase of
each IPI, with args.ipi (its id), args.from_point and args.to_point (the
points it runs between: POINTS, as vmm/exit/timeline.h's enum tl_point).
The breakdown gives, per phase, the IPIs that have it, its p50, p90 and
p99 in us, and its p50's share of the end-to-end p50: from the send to
the handler's first line, the latency the guest itself measures.

    guest-bench/anatomy [--vector V] FILE [FILE...]

prints one table per file, or, for several, one row per phase and a
column per file (its p50 and share)."""
import argparse
import json
import os
import sys
import time

from runner import stats

POINTS = ('send', 'ICR_HI exit', 'ICR exit', 'posted', 'notified',
          'target out', 'injected', 'entry', 'handler', 'EOI', 'EOI exit')
HANDLER = POINTS.index('handler')
ENTRY = POINTS.index('entry')
DOC_BEGIN = '<!-- anatomy-results:begin -->'
DOC_END = '<!-- anatomy-results:end -->'


class TimelineError(ValueError):
    """A file that is not a timeline irqlab-vmm wrote."""


def load(path):
    """The parsed JSON of @path, checked to be a timeline."""
    try:
        with open(path) as f:
            doc = json.load(f)
    except (OSError, ValueError) as e:
        raise TimelineError('%s: %s' % (path, e)) from e
    if not isinstance(doc, dict) or not isinstance(
            doc.get('traceEvents'), list):
        raise TimelineError('%s: no traceEvents list' % path)
    return doc


def ipis(doc):
    """{ipi id: [slice, ...] in point order} of the phase slices."""
    out = {}
    for e in doc['traceEvents']:
        if e.get('ph') != 'X' or e.get('cat') != 'ipi':
            continue
        out.setdefault(e['args']['ipi'], []).append(e)
    for s in out.values():
        s.sort(key=lambda e: e['args']['to_point'])
    return out


def end_to_end(slices):
    """Send to handler, in us; for a guest that stamps nothing (Linux),
    its first point to the entry that takes it in; None if the IPI lacks
    either."""
    if not slices:
        return None
    first = slices[0]['args']['from_point']
    end = HANDLER if first == 0 else ENTRY
    to = [e for e in slices if e['args']['to_point'] == end]
    if not to:
        return None
    return to[0]['ts'] + to[0]['dur'] - slices[0]['ts']


def breakdown(doc, vector=None):
    """[(phase name, to_point, n, p50, p90, p99, share)] in point order,
    and the end-to-end summary {n, p50, p90, p99}: the IPIs of @vector
    only, if given (a benchmark's own, not the boot's others)."""
    phases, e2e, sends = {}, [], 0
    for slices in ipis(doc).values():
        if vector is not None and slices[0]['args']['vector'] != vector:
            continue
        sends += slices[0]['args']['from_point'] == 0
        t = end_to_end(slices)
        if t is not None:
            e2e.append(t)
        for e in slices:
            key = (e['args']['to_point'], e['name'])
            phases.setdefault(key, []).append(e['dur'])
    total = stats.percentile(e2e, 50) if e2e else None
    rows = []
    for (point, name), d in sorted(phases.items()):
        p50 = stats.percentile(d, 50)
        rows.append((name, point, len(d), p50, stats.percentile(d, 90),
                     stats.percentile(d, 99),
                     p50 / total if total and point <= HANDLER else None))
    summary = None
    if e2e:
        summary = {'n': len(e2e), 'p50': total,
                   'p90': stats.percentile(e2e, 90),
                   'p99': stats.percentile(e2e, 99),
                   'what': 'send to handler' if sends else
                           'ICR exit to entry'}
    return rows, summary


def describe(doc):
    """One line: the run's configuration from otherData."""
    o = doc.get('otherData', {})
    knobs = [k for k in ('pv_eoi', 'pv_ipi') if o.get(k)]
    if o.get('hlt') == 'guest':
        knobs.append('hlt=guest')
    if o.get('halt_poll_us'):
        knobs.append('halt-poll %s us' % o['halt_poll_us'])
    return '%s irqchip, %s vCPUs%s' % (
        o.get('irqchip', '?'), o.get('cpus', '?'),
        ', ' + ', '.join(knobs) if knobs else '')


def table(doc, vector=None):
    """The breakdown of one timeline as a markdown table."""
    rows, s = breakdown(doc, vector)
    out = ['| phase | ends at | IPIs | p50 us | p90 us | p99 us | '
           'share of p50 |', '|---|---|---:|---:|---:|---:|---:|']
    for name, point, n, p50, p90, p99, share in rows:
        out.append('| %s | %s | %d | %.2f | %.2f | %.2f | %s |' % (
            name, POINTS[point], n, p50, p90, p99,
            '%.0f%%' % (100 * share) if share is not None else '-'))
    if s:
        out.append('| **%s** | | %d | %.2f | %.2f | %.2f | 100%% |' % (
            s['what'], s['n'], s['p50'], s['p90'], s['p99']))
    return '\n'.join(out)


def side_by_side(docs, names, vector=None):
    """One row per phase, a column per timeline: p50 us (share)."""
    cols = [dict(((r[1], r[0]), r) for r in breakdown(d, vector)[0])
            for d in docs]
    sums = [breakdown(d, vector)[1] for d in docs]
    keys = sorted(set(k for c in cols for k in c))
    out = ['| phase | ' + ' | '.join(names) + ' |',
           '|---|' + '---:|' * len(names)]
    for k in keys:
        cells = []
        for c in cols:
            r = c.get(k)
            cells.append('-' if r is None else '%.2f%s' % (
                r[3], ' (%.0f%%)' % (100 * r[6]) if r[6] is not None
                else ''))
        out.append('| %s | %s |' % (k[1], ' | '.join(cells)))
    what = next((x['what'] for x in sums if x), 'send to handler')
    out.append('| **%s** | %s |' % (what, ' | '.join(
        '%.2f' % s['p50'] if s else '-' for s in sums)))
    return '\n'.join(out)


# make anatomy's configurations: (name, irqchip, apic, irqlab-vmm args,
# kernel words).  User mode with each latency knob (docs/BENCHMARKS.md
# "Latency knobs"; --pv-ipi changes only multicasts, so ipi_wake's IPIs
# keep their phases there), xAPIC also as Linux sends (icr_hi=always: the
# ICR_HI exit every time), and KVM's LAPIC with and without PV EOI (the
# host's points from KVM's tracepoints, where tracefs is readable).
KNOBS = (('base', [], ''), ('pveoi', ['--pv-eoi=on'], ''),
         ('pvipi', ['--pv-ipi=on'], ''),
         ('hp200', ['--halt-poll', '200'], ''),
         ('hltguest', ['--hlt=guest'], ''))
TRIES = 5       # boots of a configuration whose ipi_wake skipped itself
PROBE_PAIRS = 5  # the probe effect's boots, on and off, alternating


def configs(quick=False):
    out = []
    for apic in ('x2apic', 'xapic'):
        for knob, args, words in KNOBS:
            if quick and knob not in ('base', 'pveoi'):
                continue
            out.append(('user-%s-%s' % (apic, knob), 'user', apic, args,
                        words))
        if apic == 'xapic':
            out.append(('user-xapic-linuxicr', 'user', apic, [],
                        'icr_hi=always'))
        for chip in ('split', 'kernel'):
            for knob, args, words in KNOBS[:1 if quick else 2]:
                out.append(('%s-%s-%s' % (chip, apic, knob), chip, apic,
                            args, words))
    return out


def say(msg):
    print(msg, file=sys.stderr, flush=True)


class Booter:
    """irqlab-vmm boots with ipi_wake and ipi_pingpong, here or in the
    nested rig (a server with a CPU per vCPU, started at the first)."""

    def __init__(self, out_dir, iters, rig):
        self.out_dir, self.iters, self.rig = out_dir, iters, rig
        self.server = None
        os.makedirs(out_dir, exist_ok=True)

    def boot(self, name, chip, apic, args, words, timeline=True):
        """(ok, timeline path or None, why): its output in NAME.out,
        NAME.err; booted again (up to TRIES) while ipi_wake skips itself
        for skewed TSCs (@tsc_sync)."""
        from runner import boot, rigserver
        base = os.path.join(self.out_dir, name)
        tl = base + '.json'
        on = ['--timeline', os.path.relpath(tl, boot.ROOT)] if timeline \
            else []
        cmd = boot.vmm_cmd(
            append='bench=ipi_wake,ipi_pingpong iters=%d apic=%s%s' % (
                self.iters, apic, ' ' + words if words else ''),
            cpus=2, irqchip=chip, args=on + args)
        if os.path.exists(tl):
            os.unlink(tl)
        for _ in range(TRIES):
            if self.rig:
                if self.server is None:
                    self.server = rigserver.RigServer(boot.ROOT, smp=2)
                    say('anatomy: the nested rig, 2 CPUs (%s)' %
                        self.server.log)
                    self.server.start()
                res = boot.run_in_rig(self.server, cmd, 300,
                                      err_path=base + '.err')
            else:
                res = boot.run(cmd, 300, err_path=base + '.err')
            skip = res.find('bench_skip', case='ipi_wake')
            if res.status != 0 or not skip:
                break
            say('anatomy: %s: ipi_wake skipped itself (%s), booting again'
                % (name, skip.get('reason')))
        with open(base + '.out', 'w') as f:
            f.write(res.out)
        ok = res.status == 0 and (not timeline or os.path.exists(tl))
        why = '' if ok else 'status %s' % res.status
        say('anatomy: %-22s %s' % (name, 'ok' if ok else why))
        return ok, tl if ok and timeline else None, why

    def stop(self):
        if self.server:
            self.server.stop()


def run(out_dir, quick=False, rig=False, only=None):
    """A boot to warm up (not reported), each configuration with the
    timeline on, then the probe effect's pairs: user-x2apic-base with the
    timeline on and off, alternating.  [(name, timeline or None, why)]
    and the pairs' names [(on, off)]."""
    b = Booter(out_dir, 100 if quick else 500, rig)
    done, pairs = [], []
    try:
        b.boot('warmup', 'user', 'x2apic', [], '', timeline=False)
        for name, chip, apic, args, words in configs(quick):
            if only and name not in only:
                continue
            ok, tl, why = b.boot(name, chip, apic, args, words)
            done.append((name, tl, why))
        for k in range(1 if quick or only else PROBE_PAIRS):
            names = ('probe-on-%d' % k, 'probe-off-%d' % k)
            if b.boot(names[0], 'user', 'x2apic', [], '')[0] and \
                    b.boot(names[1], 'user', 'x2apic', [], '',
                           timeline=False)[0]:
                pairs.append(names)
    finally:
        b.stop()
    return done, pairs


# Linux's reschedule IPI (arch/x86/include/asm/irq_vectors.h
# RESCHEDULE_VECTOR): what a futex wake sends to a CPU whose task it woke
LINUX_RESCHED = 0xfd
LINUX_CHIPS = ('user', 'kernel', 'split')


def run_linux(out_dir, rig):
    """The Linux guest (make linux-guest) with perf bench futex wake, as
    make bench-linux boots it, with --timeline, per irqchip: [(name,
    timeline or None, why)], or None without a Linux guest."""
    from types import SimpleNamespace
    from runner import linux
    if not os.path.exists(linux.BZIMAGE) or not os.path.exists(linux.INITRD):
        return None
    a = SimpleNamespace(vmm_limit=900, irqlab='nested' if rig else 'auto')
    how = linux.irqlab_how(a)
    done = []
    for chip in LINUX_CHIPS:
        name = 'linux-' + chip
        tl = os.path.join(out_dir, name + '.json')
        js = os.path.join(out_dir, name + '.stats.json')
        for f in (tl, js):
            if os.path.exists(f):
                os.unlink(f)
        res, _ = linux.boot_irqlab_linux(
            a, name, how, chip, 2, linux.APPEND + ' quiet', js,
            ['--timeline', os.path.relpath(tl, linux.ROOT)])
        with open(os.path.join(out_dir, name + '.out'), 'w') as f:
            f.write(res.out)
        ok = res.status == 0 and os.path.exists(tl)
        why = '' if ok else 'status %s' % res.status
        say('anatomy: %-22s %s' % (name, 'ok' if ok else why))
        done.append((name, tl if ok else None, why))
    return done


def linux_report(done, out_dir):
    """The Linux section: perf's wake per row and the reschedule IPIs'
    phases side by side."""
    from runner import records
    out = ['## The Linux guest: perf bench futex wake', '',
           'Debian\'s Linux (make linux-guest) on `irqlab-vmm --cpus 2 '
           '--timeline FILE`, as make bench-linux boots it; the phases of '
           'its reschedule IPIs (vector 0x%x), which a futex wake sends to '
           'the woken task\'s CPU.  Linux stamps nothing: the points are '
           'the host\'s alone, so a share is of the ICR exit to the entry '
           'that takes the IPI in.' % LINUX_RESCHED, '',
           '| irqchip | wake -t 1 ms | reschedule IPIs | host points |',
           '|---|---:|---:|---|']
    ok = []
    for n, p, why in done:
        wake = '-'
        try:
            with open(os.path.join(out_dir, n + '.out'),
                      errors='replace') as f:
                w = records.find(records.parse_text(f.read()), 'linux_wake',
                                 threads='1')
            wake = w.get('ms', '-') if w else '-'
        except OSError:
            pass
        if not p:
            out.append('| %s | %s | - | not run: %s |' % (
                n[6:], wake, why))
            continue
        d = load(p)
        ok.append((n, d))
        n_ipi = len([1 for sl in ipis(d).values()
                     if sl[0]['args']['vector'] == LINUX_RESCHED])
        out.append('| %s | %s | %d | %s |' % (
            n[6:], wake, n_ipi, d['otherData'].get('host_points', '?')))
    if ok:
        out += ['', side_by_side([d for _, d in ok], [n[6:] for n, _ in ok],
                                 LINUX_RESCHED), '']
    return '\n'.join(out)


def hot_path():
    """build/tl-bench's figures (make anatomy builds it): the timeline
    hook on irqlab-vmm's hot path, off and on; markdown, or None."""
    from runner import boot, records
    exe = os.path.join(boot.BUILD, 'tl-bench')
    if not os.path.exists(exe):
        return None
    res = boot.run([exe], 120)
    r = records.find(records.parse_text(res.out), 'tl_bench')
    if res.status != 0 or not r:
        return '## Hot path\n\n%s failed: status %s\n' % (exe, res.status)
    return ('## Hot path\n\nThe hook each exit and entry passes '
            '(`if (tl_on(t)) tl_add(...)`, guest-bench/native/tl_bench.c, '
            'on this host natively, no VM): the median of %s rounds of %s '
            'hooks.\n\n| no hook | timeline off | timeline on |\n'
            '|---:|---:|---:|\n| %s ns | %s ns | %s ns |\n' % (
                r['rounds'], r['hooks'], r['bare_ns'], r['off_ns'],
                r['on_ns']))


def bench_records(out_path):
    """{case: @bench record} of a boot's output file."""
    from runner import records
    try:
        with open(out_path, errors='replace') as f:
            recs = records.parse_text(f.read())
    except OSError:
        return {}
    return {r.get('case'): r for r in records.find_all(recs, 'bench')}


def _p50_us(rec):
    return int(rec['p50_ns']) / 1000 if rec and 'p50_ns' in rec else None


PATH_EXITS = ('send_exits', 'eoi_exits', 'hlt_exits')


def path_exits(rec):
    """The exits of the IPI's own path per operation, which are exact:
    send/EOI/HLT (docs/RECORDS.md @bench).  kick_exits and other_exits
    are not: a kick depends on where the host had the target, and the
    window counts every stray exit (a timer, the rig's host)."""
    return '/'.join(rec.get(k, '-') for k in PATH_EXITS)


def probe_effect(out_dir, pairs):
    """Rows (case, pairs, median p50 on, median p50 off, ratio, path exits
    on, path exits off, exits/op on, exits/op off) over the pairs of boots
    with the timeline on and off; the exits per operation as the set of
    what the boots gave."""
    rows = []
    for case in ('ipi_wake', 'ipi_pingpong'):
        on, off = [], []
        pon, poff, eon, eoff = set(), set(), set(), set()
        for a, b in pairs:
            x = bench_records(os.path.join(out_dir, a + '.out')).get(case)
            y = bench_records(os.path.join(out_dir, b + '.out')).get(case)
            if not x or not y:
                continue        # skipped itself in one of them
            on.append(_p50_us(x))
            off.append(_p50_us(y))
            pon.add(path_exits(x))
            poff.add(path_exits(y))
            eon.add(x.get('exits_per_op'))
            eoff.add(y.get('exits_per_op'))
        m_on = stats.median(on) if on else None
        m_off = stats.median(off) if off else None
        rows.append((case, len(on), m_on, m_off,
                     m_on / m_off if m_on and m_off else None,
                     ', '.join(sorted(pon)) or '-',
                     ', '.join(sorted(poff)) or '-',
                     '/'.join(sorted(eon)) or '-',
                     '/'.join(sorted(eoff)) or '-'))
    return rows


def _f(x, fmt='%.2f'):
    return '-' if x is None else fmt % x


def report(done, pairs, host, rig, out_dir):
    """The run in markdown: the probe effect, the latency and exits of
    each configuration, and the phases side by side."""
    ok = [(n, load(p)) for n, p, _ in done if p]
    out = ['Host: %s%s.  Each configuration is one boot of `irqlab-vmm '
           '--cpus 2 --timeline FILE` with `bench=ipi_wake,ipi_pingpong` '
           '(docs/ANATOMY.md "make anatomy").' % (
               host, ' (the nested rig: Linux\'s KVM under QEMU TCG; the '
               'times are QEMU\'s, the exit counts exact)' if rig else ''),
           '']
    if pairs:
        out += ['## Probe effect', '',
                '`user-x2apic-base` booted %d times with the timeline on '
                'and as often without, alternating: the median of the '
                'boots\' p50 in us; the send/EOI/HLT exits per operation '
                'the boots gave, exact, which must be the same on and off; '
                'and all exits per operation, which also count what the '
                'host did meanwhile (a kick, a timer).' % len(pairs),
                '', '| case | pairs | p50 on | p50 off | on / off | '
                'send/EOI/HLT on | send/EOI/HLT off | exits/op on | '
                'exits/op off |',
                '|---|---:|---:|---:|---:|---:|---:|---:|---:|']
        for row in probe_effect(out_dir, pairs):
            case, n, x, y, ratio = row[:5]
            out.append('| %s | %d | %s | %s | %s | %s | %s | %s | %s |' % (
                (case, n, _f(x), _f(y), _f(ratio, '%.3f')) + row[5:]))
        out.append('')
    out += ['## Latency and exits per configuration', '',
            'ipi_wake\'s p50 as the guest measured it (its handler\'s TSC '
            'less the sender\'s) beside the timeline\'s send-to-handler '
            'p50 of the same IPIs: the timeline\'s handler point is '
            'trap_dispatch()\'s first line, a little before the case\'s '
            'own read, so the guest\'s is the longer by that and by one '
            'stamp.', '',
            '| config | ipi_wake p50 us | timeline send to handler p50 us '
            '| exits/op | ipi_pingpong p50 us | exits/op |',
            '|---|---:|---:|---:|---:|---:|']
    for n, p, _ in done:
        if not p:
            continue
        r = bench_records(os.path.join(out_dir, n + '.out'))
        w, g = r.get('ipi_wake'), r.get('ipi_pingpong')
        e2e = breakdown(load(p), 0xd2)[1]
        out.append('| %s | %s | %s | %s | %s | %s |' % (
            n, _f(_p50_us(w)), _f(e2e['p50'] if e2e and w else None),
            (w or {}).get('exits_per_op', '-'),
            _f(_p50_us(g)), (g or {}).get('exits_per_op', '-')))
    src = sorted(set('%s: %s' % (n.split('-')[0], d['otherData'].get(
        'host_points', '?')) for n, d in ok))
    out += ['', 'A cell of the phase tables is the phase\'s p50 in us and '
            'its share of the send-to-handler p50.  The host\'s points '
            'came from (docs/ANATOMY.md): %s.' % ', '.join(src), '']
    for title, vec in (('ipi_wake (vector 0xd2)', 0xd2),
                       ('ipi_pingpong, ping (vector 0xd0)', 0xd0)):
        for chip in ('user', 'split', 'kernel'):
            cols = [(n, d) for n, d in ok if n.startswith(chip + '-')]
            if not cols:
                continue
            out += ['## %s, %s irqchip' % (title, chip), '',
                    side_by_side([d for _, d in cols],
                                 [n[len(chip) + 1:] for n, _ in cols], vec),
                    '']
    bad = [(n, why) for n, p, why in done if not p]
    if bad:
        out += ['Not run: ' + ', '.join('%s (%s)' % b for b in bad), '']
    return '\n'.join(out)


def write_json(done, pairs, out_dir, host, linux=None):
    """OUT/anatomy.json: breakdown_json()'s; returns its path."""
    path = os.path.join(out_dir, 'anatomy.json')
    with open(path, 'w') as f:
        json.dump(breakdown_json(done, pairs, out_dir, host, linux), f,
                  indent=1)
    return path


def breakdown_json(done, pairs, out_dir, host, linux=None):
    """Each configuration's breakdown (the phases, their p50/p90/p99 in
    us and share) for ipi_wake and ipi_pingpong's ping, the Linux guest's
    reschedule IPIs, and the probe effect."""
    def one(p, vec):
        rows, s = breakdown(load(p), vec)
        return {'end_to_end': s, 'phases': [
            {'phase': r[0], 'ends_at': POINTS[r[1]], 'ipis': r[2],
             'p50_us': r[3], 'p90_us': r[4], 'p99_us': r[5],
             'share': r[6]} for r in rows]}
    doc = {'host': host, 'configs': {}, 'linux': {}, 'probe_effect': [
        dict(zip(('case', 'pairs', 'p50_on_us', 'p50_off_us', 'ratio',
                  'path_exits_on', 'path_exits_off',
                  'exits_per_op_on', 'exits_per_op_off'), r))
        for r in probe_effect(out_dir, pairs)] if pairs else []}
    for n, p, why in done:
        doc['configs'][n] = {'ipi_wake': one(p, 0xd2),
                             'ipi_pingpong': one(p, 0xd0)} if p else \
            {'not_run': why}
    for n, p, why in linux or []:
        doc['linux'][n] = one(p, LINUX_RESCHED) if p else {'not_run': why}
    return doc


# make bench's breakdown (matrix.py): the base of each irqchip and APIC
# mode, and PV EOI, beside its latency results
BENCH_CONFIGS = ('user-x2apic-base', 'user-xapic-base', 'user-x2apic-pveoi',
                 'split-x2apic-base', 'kernel-x2apic-base')


def for_bench(out, quick, rig):
    """make bench's part: the timelines of BENCH_CONFIGS (and one probe
    pair) into OUT/anatomy/, the stacked bars into OUT; (markdown, JSON)
    for results.md and results.json."""
    from runner import markdown
    tl_dir = os.path.join(out, 'anatomy')
    done, pairs = run(tl_dir, quick, rig, only=BENCH_CONFIGS)
    host = markdown.host_kind(rig)
    md = ('## Where the time of one IPI goes\n\n'
          '`irqlab-vmm --timeline` boots (docs/ANATOMY.md; `make anatomy` '
          'has every knob), apart from the boots above, so that their '
          'latencies carry no probe effect.\n\n' +
          report(done, pairs, host, rig, tl_dir).replace('\n## ', '\n### '))
    draw(done, out, host)
    return md, breakdown_json(done, pairs, tl_dir, host)


def draw(done, out_dir, host, linux=None):
    """The stacked bars: ipi_wake per configuration, and the Linux
    guest's reschedule IPIs per irqchip."""
    from runner import plots
    made = []
    for title, vec, runs, base in (
            ('ipi_wake: p50 of each phase (%s)' % host, 0xd2, done,
             'anatomy-ipi_wake'),
            ('Linux, futex wake\'s reschedule IPIs (%s)' % host,
             LINUX_RESCHED, linux or [], 'anatomy-linux')):
        cols = [(n, [(r[0], r[3]) for r in breakdown(load(p), vec)[0]
                     if r[1] <= HANDLER])
                for n, p, _ in runs if p]
        if cols:
            b = plots.breakdown_bars(cols, title, out_dir, base, say)
            if b:
                made.append(b)
    return made


def main(argv=None):
    ap = argparse.ArgumentParser(
        prog='guest-bench/anatomy',
        description='The per-phase breakdown of irqlab-vmm --timeline '
                    'files (docs/ANATOMY.md); with --run, make anatomy: '
                    'boot every configuration first.')
    ap.add_argument('files', nargs='*', metavar='FILE')
    ap.add_argument('--vector', type=lambda v: int(v, 0),
                    help='only the IPIs of this vector (0xd2: ipi_wake)')
    ap.add_argument('--run', action='store_true',
                    help='boot user/split/kernel x xAPIC/x2APIC x the '
                    'latency knobs with the timeline on, print the tables '
                    'side by side and write docs/results/HOST-DATE-'
                    'anatomy.md')
    ap.add_argument('--quick', action='store_true',
                    help='with --run: 100 iterations, the base and PV EOI '
                    'configurations only, nothing written to docs/')
    ap.add_argument('--rig', action='store_true',
                    help='with --run: boot in the nested rig (where there '
                    'is no /dev/kvm)')
    ap.add_argument('--only', action='append', metavar='CONFIG',
                    help='with --run: just this configuration (again for '
                    'more): ' + ', '.join(c[0] for c in configs()))
    ap.add_argument('--no-linux', action='store_true',
                    help='with --run: leave the Linux guest out (by '
                    'default a full run boots make linux-guest\'s guest, '
                    'if built, under each irqchip)')
    ap.add_argument('--out', default=os.path.join('build', 'anatomy'),
                    help='with --run: where the timelines go (default '
                    'build/anatomy)')
    a = ap.parse_args(argv)
    if a.run:
        from runner import markdown
        rig = a.rig
        done, pairs = run(a.out, a.quick, rig, a.only)
        host = markdown.host_kind(rig)
        md = report(done, pairs, host, rig, a.out)
        hot = hot_path()
        if hot:
            md += '\n' + hot
        lx = None
        if not (a.quick or a.only or a.no_linux):
            lx = run_linux(a.out, rig)
            md += '\n' + (linux_report(lx, a.out) if lx is not None else
                          '## The Linux guest\n\nNot run: no Linux guest '
                          '(make linux-guest builds it).\n')
        say('anatomy: %s' % write_json(done, pairs, a.out, host, lx))
        for b in draw(done, a.out, host, lx):
            say('anatomy: %s.svg, .png' % b)
        print(md)
        if not any(p for _, p, _ in done):
            print('anatomy: no configuration ran', file=sys.stderr)
            return 1
        if not a.quick and not a.only:
            root = os.path.dirname(os.path.dirname(os.path.dirname(
                os.path.abspath(__file__))))
            date = time.strftime('%Y-%m-%dT%H:%M:%SZ', time.gmtime())
            path = markdown.publish(
                md, date, host, os.path.join(root, 'docs', 'results'),
                os.path.join(root, 'docs', 'ANATOMY.md'), 'make anatomy',
                '-anatomy', DOC_BEGIN, DOC_END)
            print('anatomy: wrote %s' % os.path.relpath(path),
                  file=sys.stderr)
        return 0 if all(p for _, p, _ in done) and pairs else 1
    if not a.files:
        ap.error('a FILE, or --run')
    try:
        docs = [load(f) for f in a.files]
    except TimelineError as e:
        print('anatomy: %s' % e, file=sys.stderr)
        return 2
    if len(docs) == 1:
        print('%s: %s\n' % (a.files[0], describe(docs[0])))
        print(table(docs[0], a.vector))
    else:
        for f, d in zip(a.files, docs):
            print('- %s: %s' % (f, describe(d)))
        print()
        print(side_by_side(docs, [describe(d) for d in docs], a.vector))
    return 0


if __name__ == '__main__':
    sys.exit(main())
