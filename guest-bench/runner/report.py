# SPDX-License-Identifier: MIT
"""The runner's output read back: one Config per config file, the passes
of a config merged, and results.json.

A config file (guest-bench/run writes them in DIR/raw/) is a header
`@config name=... kind=...`, the guest's lines (a knob config's boots,
one after the other, each case's followed by `@host_cpu`), and a trailer
`@config_end status=ok|failed|skipped rc=N wall_ms=N [cpu_ms=N] [reason=...]`
(cpu_ms: the boots' host CPU time, user + system, from getrusage)
(docs/BENCHMARKS.md "Host runner").  A file that is missing or
malformed is not an error of the tool: it becomes a failed config, its
problems listed.
"""
import os
import platform
import subprocess
import time

from . import ROOT, records, stats

MAX_ERRORS = 16         # problems listed per config; the rest counted
MAX_WOKEUP = 8          # the guest's Wokeup lines kept per config
REF = 'qemu-kvm-on'     # the config the ratios are to
METHOD = ('percentiles are nearest-rank (the ceil(p/100*n)-th smallest '
          'sample), computed by the kernel (or native-futex); with several '
          'passes of a config each field is the median over the passes '
          '(p50_ns_min/max: the spread); ratio = p50_ns / p50_ns of '
          '%s, same case, same run')


class Case:
    def __init__(self, name, rec=None, skipped=False, reason=''):
        self.name, self.rec = name, rec
        self.skipped, self.reason = skipped, reason
        self.hist = None        # @bench_hist: {'unit', 'buckets': {lo: n}}


def parse_hist(r):
    """@bench_hist's buckets=LO:N,... as {'unit', 'buckets': {lo: n}}, or
    None if they do not parse."""
    out = {}
    try:
        for part in r.get('buckets', '').split(','):
            lo, n = part.split(':')
            out[int(lo)] = out.get(int(lo), 0) + int(n)
    except ValueError:
        return None
    return {'unit': r.get('unit', 'ns'), 'buckets': out} if out else None


def merge_hists(hists):
    """Passes' histograms of one case summed (the same unit only)."""
    hists = [h for h in hists if h]
    if not hists or any(h['unit'] != hists[0]['unit'] for h in hists):
        return None
    out = {}
    for h in hists:
        for lo, n in h['buckets'].items():
            out[lo] = out.get(lo, 0) + n
    return {'unit': hists[0]['unit'], 'buckets': out}


class Config:
    """One config file, or (merge()) all the passes of one config."""

    def __init__(self, name, path=''):
        self.name, self.file = name, path
        self.hdr = None                 # the @config record
        self.status, self.reason = 'failed', 'truncated'
        self.rc = self.wall_ms = self.cpu_ms = 0
        self.cases = {}                 # name -> Case, in order
        self.tsc_sync = self.calib = self.native = None
        self.perf = None                # perf bench futex wake's summary
        self.wokeup = []                # the guest's own summaries
        self.errors, self.more_errors = [], 0
        self.passes, self.passes_ok = 1, 0

    def param(self, key, default='?'):
        return self.hdr.get(key, default) if self.hdr else default

    def case(self, name):
        return self.cases.get(name)

    def problem(self, text):
        if len(self.errors) == MAX_ERRORS:
            self.more_errors += 1
        else:
            self.errors.append(text)

    def problem_at(self, n, what, detail=None):
        self.problem('line %d: %s%s' % (n, what, ': %.80s' % detail
                                        if detail is not None else ''))

    def _new_case(self, n, name):
        if not name:
            self.problem_at(n, '@bench without a usable case=')
        elif name in self.cases:
            self.problem_at(n, 'a second record for case', name)
        else:
            self.cases[name] = Case(name)
            return self.cases[name]
        return None

    def take(self, r, n, in_perf):
        """Record @r of line @n; returns whether perf's output follows."""
        if r.name == 'config':
            if self.hdr is not None:
                self.problem_at(n, 'a second @config')
            else:
                self.hdr = r
        elif r.name == 'config_end':
            s = r.get('status')
            # ok, skipped (cannot run here), anything else failed
            self.status = s if s in ('ok', 'skipped') else 'failed'
            self.reason = r.get('reason', '' if self.status == 'ok'
                                else 'unknown')
            self.rc = int(r.num('rc', 0))
            self.wall_ms = int(r.num('wall_ms', 0))
            self.cpu_ms = int(r.num('cpu_ms', 0))
        elif r.name in ('bench', 'bench_skip'):
            k = self._new_case(n, r.get('case'))
            if k and r.name == 'bench':
                k.rec = r
            elif k:
                k.skipped, k.reason = True, r.get('reason', 'none-given')
        elif r.name == 'bench_hist':
            k = self.cases.get(r.get('case'))
            h = parse_hist(r)
            if k and k.rec is not None and h:
                k.hist = h
            else:
                self.problem_at(n, '@bench_hist without its @bench, or '
                                'with buckets that do not parse',
                                r.get('case'))
        elif r.name == 'host_cpu':
            # the knob configs' (matrix.py): into its case's record
            k = self.cases.get(r.get('case'))
            if k and k.rec is not None and 'per_op_us' in r:
                k.rec['host_cpu_us_per_op'] = r['per_op_us']
            else:
                self.problem_at(n, '@host_cpu without its @bench',
                                r.get('case'))
        elif r.name in ('tsc_sync', 'calib'):
            setattr(self, r.name, r)
        elif r.name == 'native_futex':
            self.native = r
        elif r.name == 'perf':
            return True
        elif r.name == 'perf_failed':
            self.problem_at(n, 'perf bench futex wake failed',
                            r.get('reason', r.get('rc')))
        elif r.name == 'panic':
            self.problem_at(n, 'kernel @panic', r.get('reason'))
        elif r.name == 'fault':
            # docs/RECORDS.md: the hypervisor broke STI's shadow
            self.problem_at(n, 'kernel @fault', r.get('kind'))
        return in_perf


def read(path):
    """One config file into a Config (never raises for bad input)."""
    base = os.path.basename(path)
    c = Config(base.rsplit('.', 1)[0] if '.' in base else base, path)
    try:
        with open(path, encoding='utf-8', errors='replace',
                  newline='\n') as f:
            lines = f.read().split('\n')
    except OSError as e:
        c.reason = 'unreadable'
        c.problem_at(0, 'cannot open', e.strerror)
        return c
    if lines and lines[-1] == '':
        lines.pop()
    in_perf = False
    for n, line in enumerate(lines, 1):
        if len(line.rstrip('\r')) > records.LINE_MAX:
            c.problem_at(n, 'line too long, skipped')
            continue
        if not records.is_record(line):
            w = records.parse_wokeup(line)
            if w and in_perf:
                c.perf = w
            elif w and len(c.wokeup) < MAX_WOKEUP:
                c.wokeup.append(w)
            continue
        try:
            r = records.parse(line)
        except records.RecordError as e:
            c.problem_at(n, 'malformed record', str(e))
            continue
        in_perf = c.take(r, n, in_perf)
    c.passes_ok = int(c.status == 'ok')
    if c.hdr is None:
        c.problem_at(1, 'no @config header')
    elif 'name' in c.hdr:
        c.name = c.hdr['name']
    return c


def ref_config(configs, ref=REF):
    """The reference for the ratios: QEMU with KVM, kernel_irqchip=on
    (guest-bench/report: the log it is told)."""
    return next((c for c in configs if c.name == ref and c.status == 'ok'),
                None)


def qemu_kvm_cpu(configs):
    """The -cpu model the runner's probe chose for QEMU/KVM, or None."""
    for c in configs:
        cpu = c.param('cpu_probed', 'none')
        if c.param('kind') == 'qemu-kvm' and cpu != 'none':
            return cpu
    return None


def time_shared(c):
    """@c ran with more vCPUs than CPUs under them (@config
    time_shared=WHY): its latencies are the host scheduler's."""
    return c.param('time_shared', '0') != '0'


def ratio(c, case, ref):
    """p50_ns of @case in @c over the reference's, or None; never from a
    time-shared config."""
    if time_shared(c) or (ref and time_shared(ref)):
        return None
    k, rk = c.case(case), ref.case(case) if ref else None
    if not k or k.skipped or not rk or rk.skipped:
        return None
    p, rp = k.rec.num('p50_ns'), rk.rec.num('p50_ns')
    if p is None or not rp or rp <= 0:
        return None
    return p / rp


# ---- the passes of one config into one ----

def _median_field(recs, key):
    """The median of @key over @recs and its range, or None if one of
    them does not have it as a number."""
    v = [r.num(key) for r in recs]
    if any(x is None for x in v):
        return None
    return stats.plain(stats.median(v)), min(v), max(v)


def _merge_case(recs):
    """A @bench record of the medians of @recs' numeric fields (the
    first's value where one lacks it), with the p50s' range and
    passes=K."""
    pairs = {}
    for key, val in recs[0].items():
        m = None if key == 'passes' else _median_field(recs, key)
        pairs[key] = val if m is None else repr(m[0])
    p50 = _median_field(recs, 'p50_ns')
    if p50:
        pairs['p50_ns_min'], pairs['p50_ns_max'] = repr(p50[1]), repr(p50[2])
    pairs['passes'] = str(len(recs))
    return records.Record(recs[0].name, pairs)


def _merge_group(group):
    m = Config(group[0].name)
    ok = [c for c in group if c.passes_ok]
    bad = [c for c in group if not c.passes_ok]
    m.passes, m.passes_ok = len(group), len(ok)
    for i, c in enumerate(group, 1):
        m.wall_ms += c.wall_ms
        m.cpu_ms += c.cpu_ms
        for e in c.errors:
            m.problem('pass %d: %s' % (i, e[:140]))
        m.more_errors += c.more_errors
    # metadata: the last good pass's, else the last one's
    meta = ok[-1] if ok else group[-1]
    m.file, m.hdr, m.rc = meta.file, meta.hdr, meta.rc
    m.calib, m.tsc_sync, m.native = meta.calib, meta.tsc_sync, meta.native
    if ok:
        m.status = 'ok'
        m.reason = ('%d of %d passes failed: %s' %
                    (len(bad), len(group), bad[0].reason[:30])
                    if bad else '')
    else:
        # skipped: no pass could run here (the runner's unavailable)
        skipped = all(c.status == 'skipped' for c in group)
        m.status = 'skipped' if skipped else 'failed'
        m.reason = meta.reason
    for p, c in enumerate(ok):
        for name in c.cases:
            if name in m.cases:
                continue
            found = [q.case(name) for q in ok[p:] if q.case(name)]
            recs = [k.rec for k in found if not k.skipped]
            why = next((k.reason for k in found if k.skipped), '')
            m.cases[name] = (Case(name, _merge_case(recs)) if recs else
                             Case(name, skipped=True, reason=why))
            if recs:
                m.cases[name].hist = merge_hists(
                    [k.hist for k in found if not k.skipped])
    m.wokeup = [c.wokeup[-1] for c in ok if c.wokeup][:MAX_WOKEUP]
    # perf's line: the pass with the (lower) median time
    perfs = [c.perf for c in ok if c.perf]
    if perfs:
        med = sorted(w.ms for w in perfs)[(len(perfs) - 1) // 2]
        m.perf = next(w for w in perfs if w.ms == med)
    return m


def merge(configs):
    """The passes of each config (same name) into one, in order of
    first appearance.  Per case, each numeric field is the median over
    the passes that reported it, plus passes=K and p50_ns_min/max; the
    guest's Wokeup lines are one per pass."""
    groups = {}
    for c in configs:
        groups.setdefault(c.name, []).append(c)
    return [_merge_group(g) for g in groups.values()]


# ---- results.json ----

def _json_record(r):
    """A record's pairs: numbers as numbers, the rest as strings."""
    if r is None:
        return {}
    return {k: stats.plain(r.num(k, v)) for k, v in r.items()}


def _json_config(c):
    return {'name': c.name, 'status': c.status, 'reason': c.reason,
            'time_shared': time_shared(c),
            'rc': c.rc, 'wall_ms': c.wall_ms, 'cpu_ms': c.cpu_ms,
            'passes': c.passes,
            'passes_ok': c.passes_ok, 'file': c.file,
            'params': _json_record(c.hdr), 'calib': _json_record(c.calib),
            'tsc_sync': _json_record(c.tsc_sync),
            'skipped': [{'case': k.name, 'reason': k.reason}
                        for k in c.cases.values() if k.skipped],
            'futex_summaries': [w.as_dict() for w in c.wokeup],
            'perf_futex_wake': c.perf.as_dict() if c.perf else None,
            'errors': c.errors, 'errors_not_listed': c.more_errors}


def _json_rows(configs, ref_name):
    ref = ref_config(configs, ref_name)
    rows = []
    for c in configs:
        for k in c.cases.values():
            if k.skipped:
                continue
            r = ratio(c, k.name, ref)
            row = {'config': c.name, 'case': k.name,
                   'time_shared': time_shared(c),
                   'ratio_p50_to_qemu_kvm_on' if ref_name == REF else
                   'ratio_p50_to_ref':
                   None if r is None else round(r, 4),
                   'stats': _json_record(k.rec)}
            if k.hist:
                # every sample, in log-linear buckets: [lower bound, n]
                row['hist'] = {'unit': k.hist['unit'], 'buckets': [
                    [lo, k.hist['buckets'][lo]]
                    for lo in sorted(k.hist['buckets'])]}
            if k.rec.num('exits_per_op') is None:
                # only irqlab-vmm counts them: absent, never 0
                row['exits_per_op'] = 'not measured'
            rows.append(row)
    return rows


def _first_line(cmd):
    try:
        p = subprocess.run(cmd, capture_output=True, text=True, cwd=ROOT)
    except OSError:
        return 'unknown'
    out = p.stdout.splitlines()
    return out[0] if p.returncode == 0 and out else 'unknown'


def host_info():
    """The host and the revision, as results.json's git and host."""
    model = 'unknown'
    try:
        with open('/proc/cpuinfo') as f:
            model = next((l.split(':', 1)[1].strip() for l in f
                          if l.startswith('model name')), model)
    except OSError:
        pass
    u = os.uname()
    return {'date': time.strftime('%Y-%m-%dT%H:%M:%SZ', time.gmtime()),
            'git': {'rev': _first_line(['git', 'rev-parse', 'HEAD']),
                    'describe': _first_line(['git', 'describe', '--always',
                                             '--dirty'])},
            'host': {'cpu_model': model,
                     'cpus': os.sysconf('SC_NPROCESSORS_ONLN'),
                     'sysname': u.sysname,
                     'kernel_release': u.release or platform.release(),
                     'kernel_version': u.version, 'machine': u.machine}}


def results_json(configs, host, ref=REF):
    return {'generated': host['date'], 'git': host['git'],
            'host': host['host'], 'qemu_kvm_cpu': qemu_kvm_cpu(configs),
            'method': METHOD % ref, 'ratio_to': ref,
            'configs': [_json_config(c) for c in configs],
            'results': _json_rows(configs, ref)}
