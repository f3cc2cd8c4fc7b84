# SPDX-License-Identifier: MIT
"""Plots of results.json, as SVG and PNG, with matplotlib:

    cdf-CASE.{svg,png}  latency CDF of one case, one line per config.  The
                        records carry min, p50, p90, p99 and max (nearest
                        rank), not the samples: the CDF is drawn through
                        those five points (fraction 0, .5, .9, .99, 1).
    exits.{svg,png}     exits per operation per irqlab-vmm config, one
                        bar per IPI case.

Without matplotlib (Debian: python3-matplotlib) it says so, loudly, and
draws nothing: the plots are optional.
"""
import os
import sys

CDF_POINTS = (('min', 0), ('p50', .5), ('p90', .9), ('p99', .99),
              ('max', 1))
EXIT_CASES = ('ipi_pingpong', 'ipi_wake', 'self_ipi', 'broadcast.shorthand',
              'broadcast.unicast', 'futex_wake', 'exit_cost.hlt')


def _is_num(v):
    return isinstance(v, (int, float)) and not isinstance(v, bool)


def _pyplot():
    try:
        import matplotlib
    except ImportError:
        return None
    matplotlib.use('Agg')
    import matplotlib.pyplot as plt
    return plt


def _save(plt, fig, out, base):
    for ext in ('svg', 'png'):
        fig.savefig(os.path.join(out, '%s.%s' % (base, ext)), dpi=100,
                    bbox_inches='tight')
    plt.close(fig)


def hist_cdf(hist):
    """A step CDF of @hist (results.json's [[lower bound, n], ...] in
    ns): the x of each step a bucket's lower bound, the y the fraction of
    samples below the next."""
    total = sum(n for _, n in hist)
    xs, ys, acc = [], [], 0
    for lo, n in hist:
        acc += n
        xs.append(max(lo, 1))
        ys.append(acc / total)
    return xs, ys


def _cdf(plt, case, rows, title, out):
    fig, ax = plt.subplots(figsize=(9, 5))
    for cfg, s, hist in rows:
        if hist:    # every sample, from its @bench_hist
            xs, ys = hist_cdf(hist)
            ax.step(xs, ys, where='post', label=cfg)
            continue
        ax.plot([max(s[k + '_ns'], 1) for k, _ in CDF_POINTS],
                [p for _, p in CDF_POINTS], marker='o', label=cfg)
    ax.set_xscale('log')
    ax.set_ylim(0, 1.02)
    ax.set_xlabel('ns (log)')
    ax.set_ylabel('fraction of samples')
    ax.set_title('%s: latency CDF (%s)' % (case, title))
    ax.grid(True)
    ax.legend(loc='center left', bbox_to_anchor=(1, .5), fontsize='small')
    _save(plt, fig, out, 'cdf-' + case)


def _exits(plt, cases, cfgs, rows, title, out):
    fig, ax = plt.subplots(figsize=(9, 5))
    width = .9 / len(cases)
    for j, case in enumerate(cases):
        by_cfg = {cfg: s for cfg, s, _ in rows[case]}
        vals = [by_cfg[c].get('exits_per_op') if c in by_cfg else None
                for c in cfgs]
        ax.bar([i + j * width for i in range(len(cfgs))],
               [v if _is_num(v) else 0 for v in vals], width, label=case)
    ax.set_xticks([i + .45 - width / 2 for i in range(len(cfgs))])
    ax.set_xticklabels(cfgs, rotation=30, ha='right')
    ax.set_ylabel('exits per op')
    ax.set_title('userspace exits per operation (%s)' % title)
    ax.grid(True, axis='y')
    ax.legend(loc='center left', bbox_to_anchor=(1, .5), fontsize='small')
    _save(plt, fig, out, 'exits')


def machines(results):
    """What the plots ran on: this host's CPU, or, for a report of serial
    logs (every config a 'log'), each log's own machine as its kernel
    printed it (@cpuid's vendor/family/model, @boot's hv=)."""
    cfgs = results.get('configs') or []
    if cfgs and all(c['params'].get('kind') == 'log' for c in cfgs):
        return 'serial logs: ' + '; '.join(
            '%s on %s, hv %s' % (c['name'], c['params'].get('cpu', '?'),
                                 c['params'].get('hv', '?'))
            for c in cfgs)
    return results['host']['cpu_model']


def draw(results, out, say=print):
    """Draw @results (results.json, loaded) into @out; the number of
    plots, or None when matplotlib is missing."""
    plt = _pyplot()
    if plt is None:
        say('SKIP: plots: matplotlib is not installed for %s '
            '(apt-get install python3-matplotlib): no plots' % sys.executable)
        return None
    title = 'git %s, %s' % (results['git']['describe'], machines(results))
    rows = {}                   # case -> [(config, stats, hist or None)]
    for r in results['results']:
        s = r['stats']
        h = r.get('hist')
        hist = h['buckets'] if h and h.get('unit') == 'ns' else None
        if all(_is_num(s.get(k + '_ns')) for k, _ in CDF_POINTS):
            rows.setdefault(r['case'], []).append((r['config'], s, hist))
    for case, lst in rows.items():
        _cdf(plt, case, lst, title, out)
    n = len(rows)
    cfgs = []
    for r in results['results']:
        if _is_num(r['stats'].get('exits_per_op')) and r['config'] not in cfgs:
            cfgs.append(r['config'])
    cases = [c for c in EXIT_CASES if c in rows and
             any(_is_num(s.get('exits_per_op')) for _, s, _ in rows[c])]
    if cfgs and cases:
        _exits(plt, cases, cfgs, rows, title, out)
        n += 1
    return n


def breakdown_bars(cols, title, out, base, say=print):
    """A stacked bar per configuration: @cols [(config, [(phase, p50 us),
    ...]), ...], each phase's p50 a segment, in point order (make anatomy,
    docs/ANATOMY.md).  The medians of the parts need not add up to the
    median of the whole; the bar's height is their sum.  Returns the
    files' base path, or None without matplotlib."""
    plt = _pyplot()
    if plt is None:
        say('anatomy: no matplotlib (python3-matplotlib): no plot')
        return None
    phases = []
    for _, rows in cols:
        for name, _ in rows:
            if name not in phases:
                phases.append(name)
    fig, ax = plt.subplots(figsize=(max(6, 1.1 * len(cols) + 3), 5))
    bottom = [0.0] * len(cols)
    cmap = plt.get_cmap('tab20')
    for i, ph in enumerate(phases):
        h = [dict(rows).get(ph, 0) for _, rows in cols]
        ax.bar(range(len(cols)), h, bottom=bottom, label=ph,
               color=cmap(i % 20))
        bottom = [b + x for b, x in zip(bottom, h)]
    ax.set_xticks(range(len(cols)))
    ax.set_xticklabels([c for c, _ in cols], rotation=30, ha='right')
    ax.set_ylabel('p50 us, stacked')
    ax.set_title(title)
    ax.legend(loc='center left', bbox_to_anchor=(1, .5), fontsize='small')
    _save(plt, fig, out, base)
    return os.path.join(out, base)
