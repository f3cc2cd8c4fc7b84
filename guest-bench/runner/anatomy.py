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
import sys

from runner import stats

POINTS = ('send', 'ICR_HI exit', 'ICR exit', 'posted', 'notified',
          'target out', 'injected', 'entry', 'handler', 'EOI', 'EOI exit')
HANDLER = POINTS.index('handler')


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
    """Send to handler, in us, or None if the IPI lacks either point."""
    if not slices or slices[0]['args']['from_point'] != 0:
        return None
    to = [e for e in slices if e['args']['to_point'] == HANDLER]
    if not to:
        return None
    return to[0]['ts'] + to[0]['dur'] - slices[0]['ts']


def breakdown(doc, vector=None):
    """[(phase name, to_point, n, p50, p90, p99, share)] in point order,
    and the end-to-end summary {n, p50, p90, p99}: the IPIs of @vector
    only, if given (a benchmark's own, not the boot's others)."""
    phases, e2e = {}, []
    for slices in ipis(doc).values():
        if vector is not None and slices[0]['args']['vector'] != vector:
            continue
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
                   'p99': stats.percentile(e2e, 99)}
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
        out.append('| **send to handler** | | %d | %.2f | %.2f | %.2f | '
                   '100%% |' % (s['n'], s['p50'], s['p90'], s['p99']))
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
    out.append('| **send to handler** | %s |' % ' | '.join(
        '%.2f' % s['p50'] if s else '-' for s in sums))
    return '\n'.join(out)


def main(argv=None):
    ap = argparse.ArgumentParser(
        prog='guest-bench/anatomy',
        description='The per-phase breakdown of irqlab-vmm --timeline '
                    'files (docs/ANATOMY.md).')
    ap.add_argument('files', nargs='+', metavar='FILE')
    ap.add_argument('--vector', type=lambda v: int(v, 0),
                    help='only the IPIs of this vector (0xd2: ipi_wake)')
    a = ap.parse_args(argv)
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
