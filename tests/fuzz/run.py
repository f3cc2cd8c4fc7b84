#!/usr/bin/python3
"""Run the libFuzzer harnesses built by `make fuzz` and summarise them.

For each harness NAME (build/fuzz/fuzz_NAME):
  1. replay every file of tests/fuzz/regress/NAME/ once (a fixed crash must
     stay fixed);
  2. copy the seed corpus tests/fuzz/corpus/NAME/ into BUILD/corpus/NAME/
     (the working copy libFuzzer adds to; the tree is never written) and
     fuzz for --seconds, one process (-jobs=1: other work shares the CPUs);
  3. read executions and coverage (cov:, ft:) from libFuzzer's output.
A crash, leak, timeout or out-of-memory fails the run; the message names
the reproducer libFuzzer wrote under BUILD/crash/NAME/ and how to replay it.
tests/fuzz/NAME.options, if present, adds libFuzzer flags (one a line).
The table goes to stdout, a one-line summary to BUILD/summary (make test
prints it).  A run of every harness for at least 60 s each (make fuzz)
also writes the table as docs/results/HOST-DATE-fuzz.md, listed in
docs/FUZZING.md "Results" (--no-doc: not).  docs/FUZZING.md.
"""
import argparse
import os
import re
import shutil
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
DOC_SECONDS = 60        # a run this long, of every harness, is published

STATUS_RE = re.compile(r'^#(\d+)\s+\S+\s+cov: (\d+) ft: (\d+)'
                       r'(?: corp: (\d+)/)?', re.M)
EXECS_RE = re.compile(r'^stat::number_of_executed_units: (\d+)', re.M)
ARTIFACT_RE = re.compile(r'Test unit written to (\S+)')
# what a crash was, most telling first: a harness's invariant, UBSan,
# a sanitizer's report, libFuzzer's own
REASONS = [re.compile(r, re.M) for r in (
    r'^(fuzz_\w+: invariant failed: .*)$',
    r'^(\S+:\d+:\d+: runtime error: .*)$',
    r'^(?:==\d+==\s*)?(ERROR: (?!libFuzzer)\S+: .*)$',
    r'^(?:==\d+==\s*)?(ERROR: libFuzzer: .*)$')]


def harness_flags(name):
    path = os.path.join(HERE, name + '.options')
    if not os.path.exists(path):
        return []
    with open(path) as f:
        return [ln.strip() for ln in f
                if ln.strip() and not ln.lstrip().startswith('#')]


def files_in(d):
    if not os.path.isdir(d):
        return []
    return sorted(os.path.join(d, f) for f in os.listdir(d)
                  if os.path.isfile(os.path.join(d, f))
                  and not f.startswith('.') and f != 'README')


def reason(log):
    for r in REASONS:
        m = r.findall(log)
        if m:
            return m[0].strip()
    return 'exit status non-zero, no sanitizer report'


def replay(binary, name, logdir):
    """Run each regression file once; (count, error or None)."""
    files = files_in(os.path.join(HERE, 'regress', name))
    if not files:
        return 0, None
    log = os.path.join(logdir, name + '.regress.log')
    with open(log, 'w') as f:
        rc = subprocess.run([binary, '-timeout=30'] + files, stdout=f,
                            stderr=subprocess.STDOUT).returncode
    if rc != 0:
        with open(log, errors='replace') as f:
            text = f.read()
        ran = re.findall(r'^Running: (\S+)', text, re.M)
        which = ran[-1] if ran else files[0]
        return len(files), ('regression %s: %s (log %s; replay: %s %s)'
                            % (which, reason(text), log, binary, which))
    return len(files), None


def seed(name, work):
    os.makedirs(work, exist_ok=True)
    n = 0
    for src in files_in(os.path.join(HERE, 'corpus', name)):
        dst = os.path.join(work, 'seed-' + os.path.basename(src))
        if not os.path.exists(dst):
            shutil.copyfile(src, dst)
        n += 1
    return n


def fuzz(binary, name, build, seconds):
    work = os.path.join(build, 'corpus', name)
    crashdir = os.path.join(build, 'crash', name)
    logdir = os.path.join(build, 'log')
    os.makedirs(crashdir, exist_ok=True)
    seeds = seed(name, work)
    log = os.path.join(logdir, name + '.log')
    cmd = [binary, '-max_total_time=%d' % seconds, '-print_final_stats=1',
           '-timeout=30', '-rss_limit_mb=2048',
           '-artifact_prefix=%s/' % crashdir] + harness_flags(name) + [work]
    t0 = time.monotonic()
    with open(log, 'w') as f:
        f.write(' '.join(cmd) + '\n')
        f.flush()
        # libFuzzer stops itself at max_total_time; the margin covers
        # loading a large corpus first.
        try:
            rc = subprocess.run(cmd, stdout=f, stderr=subprocess.STDOUT,
                                timeout=seconds * 3 + 120).returncode
        except subprocess.TimeoutExpired:
            rc = -1
            f.write('\nrun.py: ERROR: timed out after %ds\n'
                    % (seconds * 3 + 120))
    wall = time.monotonic() - t0
    with open(log, errors='replace') as f:
        text = f.read()
    st = STATUS_RE.findall(text)
    ex = EXECS_RE.findall(text)
    res = {
        'name': name, 'seconds': wall, 'seeds': seeds,
        'execs': int(ex[-1]) if ex else (int(st[-1][0]) if st else 0),
        'cov': int(st[-1][1]) if st else 0,
        'ft': int(st[-1][2]) if st else 0,
        'corpus': len(files_in(work)), 'log': log, 'error': None,
    }
    if rc != 0:
        art = ARTIFACT_RE.findall(text)
        res['error'] = reason(text)
        if art:
            res['error'] += ('; reproducer %s (replay: %s %s)'
                             % (art[-1], binary, art[-1]))
        res['error'] += '; log ' + log
    return res


def main():
    ap = argparse.ArgumentParser(description=__doc__.split('\n')[0])
    ap.add_argument('--build', default='build/fuzz')
    ap.add_argument('--seconds', type=int, default=60)
    ap.add_argument('--no-doc', action='store_true',
                    help='write no docs/results/ file')
    ap.add_argument('names', nargs='+')
    a = ap.parse_args()
    load0 = os.getloadavg()[0]
    os.makedirs(os.path.join(a.build, 'log'), exist_ok=True)
    rows, fails, nreg = [], [], 0
    for name in a.names:
        binary = os.path.join(a.build, 'fuzz_' + name)
        if not os.access(binary, os.X_OK):
            fails.append('%s: no harness %s (make %s)' % (name, binary, binary))
            continue
        n, err = replay(binary, name, os.path.join(a.build, 'log'))
        nreg += n
        if err:
            fails.append('%s: %s' % (name, err))
        print('fuzz_%s: %d regression file(s) %s; fuzzing %d s'
              % (name, n, 'FAILED' if err else 'ok', a.seconds), flush=True)
        r = fuzz(binary, name, a.build, a.seconds)
        r['regress'] = n
        rows.append(r)
        if r['error']:
            fails.append('%s: %s' % (name, r['error']))

    hdr = ('harness', 'regress', 'seeds', 'corpus', 'execs', 'exec/s',
           'cov', 'ft', 'result')
    fmt = '%-12s %7s %6s %7s %11s %8s %6s %7s  %s'
    print()
    print(fmt % hdr)
    for r in rows:
        print(fmt % ('fuzz_' + r['name'], r['regress'], r['seeds'],
                     r['corpus'], r['execs'],
                     int(r['execs'] / max(r['seconds'], 1e-3)),
                     r['cov'], r['ft'], 'CRASH' if r['error'] else 'ok'))
    for f in fails:
        print('FAIL fuzz_' + f, file=sys.stderr)
    bad = {f.split(':')[0] for f in fails}
    line = ('fuzz (libFuzzer, %d s each): %d harnesses, %d failed, '
            '%d regression files replayed, %d executions'
            % (a.seconds, len(a.names), len(bad), nreg,
               sum(r['execs'] for r in rows)))
    with open(os.path.join(a.build, 'summary'), 'w') as f:
        f.write(line + '\n')
    print(line)
    if not a.no_doc and a.seconds >= DOC_SECONDS and \
            sorted(a.names) == all_harnesses():
        publish(rows, fails, line, a.seconds, load0)
    return 1 if fails else 0


def all_harnesses():
    return sorted(f[len('fuzz_'):-2] for f in os.listdir(HERE)
                  if f.startswith('fuzz_') and f.endswith('.c'))


def report_md(rows, fails, line, seconds, load0, load1, clang, rev, cpu):
    """The run in markdown: the host, the table, the failures."""
    out = ['Host: %s, %d CPUs; %s; git %s; load average %.1f before, %.1f '
           'after.  `make fuzz FUZZ_SECONDS=%d`: one fuzzer at a time, each '
           'on the corpus earlier runs left in build/fuzz/corpus/, so the '
           'coverage builds on them (docs/FUZZING.md "Running").' % (
               cpu, os.cpu_count() or 0, clang, rev, load0, load1, seconds),
           '', '| harness | regress | seeds | corpus | executions | exec/s '
           '| cov | ft | result |',
           '| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | --- |']
    for r in rows:
        out.append('| %s | %d | %d | %d | %s | %s | %d | %s | %s |' % (
            r['name'], r['regress'], r['seeds'], r['corpus'],
            '{:,}'.format(r['execs']),
            '{:,}'.format(int(r['execs'] / max(r['seconds'], 1e-3))),
            r['cov'], '{:,}'.format(r['ft']),
            'CRASH' if r['error'] else 'ok'))
    out += ['', line + '.']
    out += ['- FAIL %s' % f for f in fails]
    return '\n'.join(out) + '\n'


def publish(rows, fails, line, seconds, load0):
    sys.path.insert(0, os.path.join(ROOT, 'guest-bench'))
    from runner import markdown, report
    h = report.host_info()
    try:
        clang = subprocess.run(['clang', '--version'], capture_output=True,
                               text=True).stdout.splitlines()[0]
    except (OSError, IndexError):
        clang = 'clang'
    kind = markdown.host_kind()
    md = report_md(rows, fails, line, seconds, load0, os.getloadavg()[0],
                   clang, h['git']['describe'], h['host']['cpu_model'])
    path = markdown.publish_run(md, kind, 'docs/FUZZING.md', 'make fuzz',
                                '-fuzz', 'fuzz-results')
    print('wrote %s' % os.path.relpath(path, ROOT))


if __name__ == '__main__':
    sys.exit(main())
