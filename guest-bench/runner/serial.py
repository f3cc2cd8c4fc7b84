# SPDX-License-Identifier: MIT
"""guest-bench/report: the irqlab kernel's serial logs, captured on any
machine (bare metal, QEMU, bhyve, Hyper-V, Firecracker, ...: docs/
HYPERVISORS.md), turned into the report make bench writes: results.json,
results.md and the plots, one configuration per log, side by side.

Each log is one boot of the kernel, its COM1 output as the serial console
gave it: CR LF line ends, a boot loader's lines and terminal escapes
before the kernel's are fine.  A configuration is named after the log's
file name and its @boot hv= (the hypervisor's CPUID signature; none on
bare metal).  Numbers that only irqlab-vmm can give (exits per
operation) are "not measured" for a log from elsewhere, never zero.

A log that cannot be read as one whole boot of this kernel is an error
that names the file and the line: an empty file, a truncated record or
log, a log of a kernel with another records format (@kernel records=,
docs/RECORDS.md), or two boots in one file.  Exit status: 0, 1 if a
report could not be written, 2 on bad usage or a bad log.
"""
import os
import re
import sys

from . import arg_parser, matrix, records, report

RECORDS_FORMAT = 1      # kernel/main.c's RECORDS_FORMAT, which we read
# the keys a reader here relies on, per record (a log from a kernel that
# lacks one is from another version, whatever its @kernel says)
NEEDED = {
    'boot': ('proto', 'hv'),
    'cpuid': ('vendor', 'family', 'model', 'hv'),
    'bench': ('case', 'cpus', 'apic', 'n', 'p50_cyc', 'p99_cyc'),
    'bench_skip': ('case', 'reason'),
    'calib': ('source', 'tsc_khz'),
    'smp': ('online', 'apic'),
}
# the records that end a boot: after one of them the log is whole
LAST = ('ready', 'panic')
# a terminal's escape sequences (CSI and two-byte ESC x), as GRUB and
# OVMF write them to the serial console before the kernel runs
ESCAPE = re.compile(r'\x1b\[[0-9;?]*[ -/]*[@-~]|\x1b[@-Z\\-_]')


class LogError(Exception):
    """A log that is not one whole boot of this kernel: FILE:LINE: why."""

    def __init__(self, path, line, why):
        super().__init__('%s:%d: %s' % (path, line, why) if line else
                         '%s: %s' % (path, why))


def _lines(path):
    try:
        with open(path, 'rb') as f:
            data = f.read()
    except OSError as e:
        raise LogError(path, 0, 'cannot read it: %s' % e.strerror)
    if not data.strip():
        raise LogError(path, 0, 'empty: no serial output at all')
    text = data.decode('utf-8', errors='replace')
    return [ESCAPE.sub('', line).rstrip('\r')
            for line in text.replace('\r\n', '\n').split('\n')]


def _record(path, n, line, last_line=False):
    """The record on line @n (the kernel's lines start with '@', maybe
    after a boot loader's text on the same line), or None."""
    at = line.find('@')
    if at < 0 or not re.match(r'@[a-z]', line[at:]):
        return None
    if at and not line[at - 1] in ' \t':
        # "...text@x": GRUB's last line without its newline, or a word
        if not re.match(r'@(kernel|cpuid|boot) ', line[at:]):
            return None
    cut = ' (the log ends inside it: truncated)' if last_line else ''
    try:
        r = records.parse(line[at:])
    except records.RecordError as e:
        raise LogError(path, n, 'a malformed record (%s)%s: %.60s' % (
            e, cut, line[at:]))
    for key in NEEDED.get(r.name, ()):
        if key not in r:
            raise LogError(path, n, '@%s has no %s=%s' % (
                r.name, key, cut or ': a record from another kernel '
                'version (this report reads records format %d)' %
                RECORDS_FORMAT))
    return r


def name_of(path, boot):
    """The configuration's name: the file's, and the hypervisor the
    kernel found (@boot hv=; 'none': no hypervisor bit, bare metal)."""
    stem = os.path.basename(path)
    for ext in ('.log', '.txt', '.out', '.serial'):
        if stem.endswith(ext) and len(stem) > len(ext):
            stem = stem[:-len(ext)]
            break
    hv = boot.get('hv', '?')
    return '%s [%s]' % (stem, 'no hypervisor' if hv == 'none' else hv)


def read_log(path):
    """One serial log into a report.Config (kind=log); LogError if it is
    not one whole boot of this kernel."""
    lines = _lines(path)
    whole = lines[-1] == ''     # the last line has its end
    if whole:
        lines.pop()
    kernel = boot = cpuid = smp = last = None
    recs = []
    for n, line in enumerate(lines, 1):
        if len(line) > records.LINE_MAX:
            raise LogError(path, n, 'a line of %d bytes: not a serial log '
                           'of this kernel' % len(line))
        r = _record(path, n, line, n == len(lines) and not whole)
        if r is None:
            recs.append((n, line, None))
            continue
        if r.name == 'kernel':
            if kernel is not None:
                raise LogError(path, n, 'a second boot (the first at line '
                               '%d): one boot per log, split the file' %
                               kernel[0])
            fmt = r.num('records')
            if fmt != RECORDS_FORMAT:
                raise LogError(path, n, 'records format %s (kernel %s); '
                               'this report reads format %d' % (
                                   r.get('records', '?'),
                                   r.get('version', '?'), RECORDS_FORMAT))
            kernel = (n, r)
        elif kernel is None and r.name in ('cpuid', 'boot'):
            raise LogError(path, n, '@%s before any @kernel record: a '
                           'kernel older than records format %d' % (
                               r.name, RECORDS_FORMAT))
        if r.name == 'boot':
            boot = r
        elif r.name == 'cpuid':
            cpuid = r
        elif r.name == 'smp':
            smp = r
        if r.name in LAST:
            last = r
        recs.append((n, line, r))
    if kernel is None:
        raise LogError(path, 0, 'no @kernel record in %d lines: not a '
                       'serial log of the irqlab kernel' % len(lines))
    if boot is None:
        raise LogError(path, len(lines), 'the log ends before @boot: '
                       'truncated')
    if last is None:
        raise LogError(path, len(lines), 'the log ends before @ready (or '
                       '@panic): truncated, or the kernel hung')
    c = report.Config(name_of(path, boot), path)
    in_perf = False
    for n, line, r in recs:
        if r is None:
            w = records.parse_wokeup(line)
            if w and len(c.wokeup) < report.MAX_WOKEUP:
                c.wokeup.append(w)
        else:
            in_perf = c.take(r, n, in_perf)
    c.hdr = records.Record('config', [
        ('name', c.name), ('kind', 'log'), ('file', path),
        ('version', kernel[1].get('version', '?')),
        ('proto', boot.get('proto')), ('hv', boot.get('hv')),
        ('cpu', '%s/%s/%s' % (cpuid.get('vendor'), cpuid.get('family'),
                              cpuid.get('model')) if cpuid else '?'),
        ('cpus', smp.get('online') if smp else '?'),
        ('apic', smp.get('apic') if smp else '?')])
    c.status = 'ok' if last.name == 'ready' else 'failed'
    c.reason = '' if c.status == 'ok' else 'panic: %s' % last.get('reason',
                                                                  '?')
    c.passes_ok = int(c.status == 'ok')
    return c


def parse_args(argv):
    ap = arg_parser('guest-bench/report', __doc__)
    ap.add_argument('logs', nargs='+', metavar='LOG',
                    help='a serial log of one boot of the kernel')
    ap.add_argument('-o', metavar='DIR', default='bench-results/logs',
                    help='output folder (default: bench-results/logs)')
    ap.add_argument('--ref', metavar='N',
                    help='the LOG (1-based, or its configuration\'s name) '
                    'the ratios are to (default: the first)')
    ap.add_argument('--no-plots', action='store_true',
                    help='results.json and results.md only')
    return ap.parse_args(argv)


def main(argv=None):
    a = parse_args(sys.argv[1:] if argv is None else argv)
    configs = []
    try:
        for path in a.logs:
            configs.append(read_log(path))
    except LogError as e:
        print('report: %s' % e, file=sys.stderr)
        return 2
    names = [c.name for c in configs]
    dup = sorted({n for n in names if names.count(n) > 1})
    if dup:
        print('report: two logs make the same configuration %s: rename '
              'one of the files' % dup[0], file=sys.stderr)
        return 2
    ref = configs[0]
    if a.ref:
        ref = next((c for i, c in enumerate(configs, 1)
                    if a.ref in (str(i), c.name)), None)
        if ref is None:
            print('report: --ref %s: no such log (1 to %d, or one of: %s)'
                  % (a.ref, len(configs), ', '.join(names)),
                  file=sys.stderr)
            return 2
    for c in configs:
        print('report: %s: %s, %d cases%s' % (
            c.file, c.name, len(c.cases),
            '' if c.status == 'ok' else ', %s' % c.reason), file=sys.stderr)
    ok = matrix.write_configs(a.o, configs, ref=ref.name,
                              source='guest-bench/report, from %d serial '
                              'log(s)' % len(configs), draw=not a.no_plots,
                              say=lambda m: print('report: ' + m,
                                                  file=sys.stderr))
    return 0 if ok else 1


if __name__ == '__main__':
    sys.exit(main())
