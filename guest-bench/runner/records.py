# SPDX-License-Identifier: MIT
"""The kernel's records (docs/RECORDS.md), parsed on the host.

A record is one line `@name key=value key=value ...`: the name in
[a-z0-9_.], keys in [A-Za-z0-9_.], values without blanks, blanks spaces
or tabs, no control byte, at most LINE_MAX bytes and MAX_KEYS pairs, no
key twice.  Any other line is a human line.  This module is the one
place that says so; the runner, the reports, calib-bench and the tests
all read records through it:

    from runner import records
    recs = records.parse_text(output)           # every record, in order
    r = records.find(output, 'bench', case='ipi_wake')
    r.name, r['p50_ns'], r.number('p50_ns'), dict(r)

Nothing here trusts its input: a malformed record raises RecordError
(with .code and .where, the offset of the fault), never anything else.
"""
import math
import re

LINE_MAX = 2048         # bytes of one line, its CR LF excluded
MAX_KEYS = 64

# The syntax, in one place: '@' and a name, then blank-separated words
# KEY=VALUE; a byte outside a name's or a key's set is an error.
WORD = re.compile(r'[^ \t]+')
NOT_NAME = re.compile(r'[^a-z0-9_.]')
NOT_KEY = re.compile(r'[^A-Za-z0-9_.]')
CTRL = re.compile(r'[\x00-\x08\x0a-\x1f]')      # control bytes but TAB
# A number: unsigned decimal or 0x hex (u64), or strtod's decimal syntax.
U64 = re.compile(r'0[xX][0-9a-fA-F]+|[0-9]+')
REAL = re.compile(r'[+-]?(?:[0-9]+\.?[0-9]*|\.[0-9]+)(?:[eE][+-]?[0-9]+)?')
# perf bench futex wake's summary line, which the kernel's futex_wake
# prints too: "Wokeup 1 of 1 threads in 0.0130 ms (+-11.25%)"
WOKEUP = re.compile(r'[ \t]*Wokeup ([0-9]+) of ([0-9]+) threads in '
                    r'(%s) ms \(\+-(%s)%%\)' % (REAL.pattern, REAL.pattern))

ERRORS = {
    'not-a-record': "not a record (no '@' first)",
    'too-long': 'line too long',
    'no-name': 'record without a name',
    'bad-name': 'bad byte in the record name',
    'no-eq': "word without '='",
    'empty-key': 'empty key',
    'bad-key': 'bad byte in a key',
    'empty-value': 'empty value',
    'too-many': 'too many key=value pairs',
    'dup-key': 'duplicate key',
    'ctrl': 'control byte in the line',
}


def strerror(code):
    return ERRORS.get(code, 'unknown error')


class RecordError(ValueError):
    """A malformed record: .code (a key of ERRORS), .where (an offset)."""

    def __init__(self, code, where):
        super().__init__('%s at byte %d' % (strerror(code), where))
        self.code = code
        self.where = where


class Record(dict):
    """The pairs of one record, in order, as strings; .name without '@'."""

    def __init__(self, name, pairs=(), line=''):
        super().__init__(pairs)
        self.name = name
        self.line = line

    def __repr__(self):
        return 'Record(%r, %s)' % (self.name, dict.__repr__(self))

    def u64(self, key):
        """The value as an unsigned integer (decimal or 0x hex): None if
        absent or "na" (the kernel's "not available"); ValueError if not
        such a number or not below 2**64."""
        s = self.get(key)
        if s is None or s == 'na':
            return None
        if not U64.fullmatch(s):
            raise ValueError('%s=%s: not an unsigned number' % (key, s))
        v = int(s, 0) if s[:2].lower() == '0x' else int(s)
        if v >= 1 << 64:
            raise ValueError('%s=%s: above 2^64 - 1' % (key, s))
        return v

    def number(self, key):
        """The value as a number (int where it is an integer, else a
        finite float): None if absent or "na"; ValueError if not one."""
        s = self.get(key)
        if s is None or s == 'na':
            return None
        if s[:2].lower() == '0x':
            return self.u64(key)
        if not REAL.fullmatch(s):
            raise ValueError('%s=%s: not a number' % (key, s))
        if s.lstrip('+-').isdigit():
            return int(s)
        v = float(s)
        if not math.isfinite(v):
            raise ValueError('%s=%s: not finite' % (key, s))
        return v

    def num(self, key, default=None):
        """number(), with @default for absent, "na" or not a number."""
        try:
            v = self.number(key)
        except ValueError:
            return default
        return default if v is None else v


def parse(line):
    """One line into a Record.  A trailing LF, CR LF or CR is dropped.
    Raises RecordError: code 'not-a-record' for a human line."""
    line = line.rstrip('\r\n')
    if len(line) > LINE_MAX:
        raise RecordError('too-long', LINE_MAX)
    if not line.startswith('@'):
        raise RecordError('not-a-record', 0)
    m = CTRL.search(line)
    if m:
        raise RecordError('ctrl', m.start())
    words = [(w.start(), w.group()) for w in WORD.finditer(line, 1)]
    if not words or words[0][0] != 1:
        raise RecordError('no-name', 1)
    name = words[0][1]
    bad = NOT_NAME.search(name)
    if bad:
        raise RecordError('bad-name', 1 + bad.start())
    pairs = {}
    for at, w in words[1:]:
        key, eq, val = w.partition('=')
        if not eq:
            raise RecordError('no-eq', at)
        if not key:
            raise RecordError('empty-key', at)
        if not val:
            raise RecordError('empty-value', at)
        bad = NOT_KEY.search(key)
        if bad:
            raise RecordError('bad-key', at + bad.start())
        if key in pairs:
            raise RecordError('dup-key', at)
        if len(pairs) == MAX_KEYS:
            raise RecordError('too-many', at)
        pairs[key] = val
    return Record(name, pairs, line)


def is_record(line):
    return line.startswith('@')


def parse_text(text, errors=None):
    """Every well-formed record of @text (a string or lines), in order.
    Human lines are skipped; a malformed record too, or, when @errors is
    a list, appended to it as (line number, RecordError)."""
    lines = text.splitlines() if isinstance(text, str) else text
    out = []
    for n, line in enumerate(lines, 1):
        if not is_record(line):
            continue
        try:
            out.append(parse(line))
        except RecordError as e:
            if errors is not None:
                errors.append((n, e))
    return out


def _records(src):
    return parse_text(src) if isinstance(src, str) else src


def find_all(src, name, **match):
    """The records named @name (of a text or a list of Records) whose
    fields equal @match's, e.g. find_all(out, 'bench', case='self_ipi')."""
    return [r for r in _records(src) if r.name == name and
            all(r.get(k) == str(v) for k, v in match.items())]


def find(src, name, **match):
    """The first record find_all() would give, or None."""
    found = find_all(src, name, **match)
    return found[0] if found else None


def sti_shadow(src):
    """The kernel's @fault kind=sti_shadow record (docs/RECORDS.md: an
    interrupt its hypervisor injected inside STI's shadow), or None."""
    return find(src, 'fault', kind='sti_shadow')


class WakeSummary:
    """perf bench futex wake's summary: woken, threads, ms, rse_pct."""

    def __init__(self, woken, threads, ms, rse_pct):
        self.woken, self.threads = woken, threads
        self.ms, self.rse_pct = ms, rse_pct

    def as_dict(self):
        return {'woken': self.woken, 'threads': self.threads,
                'ms': self.ms, 'rse_pct': self.rse_pct}


def parse_wokeup(line):
    """perf's summary line into a WakeSummary, or None if it is not one
    (perf's per-run "[Run N]: Wokeup ..." lines are not)."""
    m = WOKEUP.match(line)
    if not m:
        return None
    ms, rse = float(m.group(3)), float(m.group(4))
    if not math.isfinite(ms) or not math.isfinite(rse):
        return None
    return WakeSummary(int(m.group(1)), int(m.group(2)), ms, rse)


class LinuxRun:
    """The Linux guest's records (docs/RECORDS.md "Linux guest"), of one
    boot: .boot (the @linux Record or None), .wakes (@linux_wake Records,
    in order), .irqs {phase: {cpu: {'loc': n, 'res': n, 'cal': n}}},
    .done (@linux_done or None).  Values that are not numbers are None."""

    IRQ_KEYS = ('loc', 'res', 'cal')

    def __init__(self, src):
        recs = _records(src)
        self.boot = find(recs, 'linux')
        self.wakes = find_all(recs, 'linux_wake')
        self.done = find(recs, 'linux_done')
        self.irqs = {}
        for r in find_all(recs, 'linux_irq'):
            cpu = r.num('cpu')
            if cpu is None or 'phase' not in r:
                continue
            self.irqs.setdefault(r['phase'], {})[cpu] = {
                k: r.num(k) for k in self.IRQ_KEYS}

    @property
    def cpus(self):
        return self.boot.num('cpus') if self.boot else None

    @property
    def init_s(self):
        """The guest's uptime when /init started, in seconds."""
        return self.boot.num('uptime_s') if self.boot else None

    @property
    def clocksource(self):
        return self.boot.get('clocksource') if self.boot else None

    @property
    def clockevent(self):
        """CPU 0's clock event device, and the broadcast one after a /
        (lapic-deadline/None), or None"""
        if not self.boot or self.boot.get('clockevent') is None:
            return None
        return '%s/%s' % (self.boot['clockevent'],
                          self.boot.get('broadcast', 'na'))

    def wake(self, threads):
        """The first @linux_wake whose summary has @threads threads (a
        WakeSummary, with .n and .status added), or None."""
        for r in self.wakes:
            if r.num('threads') == threads and r.num('ms') is not None:
                w = WakeSummary(r.num('woken'), r.num('threads'),
                                r.num('ms'), r.num('rse_pct'))
                w.n, w.status = r.num('n'), r.num('status')
                return w
        return None

    def irq(self, phase, cpu, key):
        return self.irqs.get(phase, {}).get(cpu, {}).get(key)

    def irq_delta(self, cpu, key):
        """@key's count on @cpu at the end less at /init, or None."""
        a, b = self.irq('init', cpu, key), self.irq('end', cpu, key)
        return None if a is None or b is None else b - a

    def finished(self):
        """@linux_done came, and no benchmark line failed."""
        return self.done is not None and self.done.num('failed') == 0


def linux_run(src):
    """The Linux guest's records of a text or a list of Records."""
    return LinuxRun(src)
