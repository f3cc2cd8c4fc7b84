# SPDX-License-Identifier: MIT
"""make bench-pir: the PIR fold's cost on the host (build/pir-bench,
guest-bench/native/pir_bench.c), published.

    guest-bench/pir-bench [--no-doc] [BINARY]

Runs BINARY (default build/pir-bench) once: irqlab's checked fold
against one that exchanges every word, empty and with one vector, each
the median of 21 rounds of 2^20 folds in one process.  Prints its table
and writes it, with the host, the revision and the load average, to
docs/results/HOST-DATE-pir.md, listed in docs/BENCHMARKS.md "The other
tools" (--no-doc: not).  Exit status: the binary's, 2 if it is missing.
"""
import argparse
import os
import subprocess
import sys

from . import ROOT, markdown, records, report

BIN = os.path.join(ROOT, 'build/pir-bench')


def report_md(out, cpu, rev, load0, load1):
    """The binary's output in markdown, the host and method first."""
    rec = records.find(records.parse_text(out), 'bench_pir')
    head = ('Host: %s, %d CPUs; git %s; load average %.1f before, %.1f '
            'after.  One process, both folds over the same cases, host '
            'CLOCK_MONOTONIC (docs/BENCHMARKS.md "The other tools").' % (
                cpu, os.cpu_count() or 0, rev, load0, load1))
    table = ['| case | checked, ns | always exchange, ns | checked / always |',
             '|---|---:|---:|---:|']
    if rec:
        for case in ('empty', 'one'):
            c = float(rec['%s_checked_ns' % case])
            x = float(rec['%s_always_ns' % case])
            table.append('| %s | %.2f | %.2f | %.3fx |' % (case, c, x,
                                                           c / x))
        table.append('')
        table.append('`one` has the post alone (%s ns) subtracted.' %
                     rec['post_ns'])
    return '\n'.join([head, ''] + table + ['', '```', out.rstrip(), '```']) \
        + '\n'


def main(argv=None):
    ap = argparse.ArgumentParser(prog='guest-bench/pir-bench',
                                 description=__doc__.split('\n\n')[0],
                                 formatter_class=argparse.
                                 RawDescriptionHelpFormatter,
                                 epilog=__doc__.split('\n\n', 2)[2])
    ap.add_argument('--no-doc', action='store_true',
                    help='write no docs/results/ file')
    ap.add_argument('binary', nargs='?', default=BIN)
    a = ap.parse_args(sys.argv[1:] if argv is None else argv)
    if not os.access(a.binary, os.X_OK):
        print('pir-bench: %s is missing: make bench-pir builds it' %
              a.binary, file=sys.stderr)
        return 2
    load0 = os.getloadavg()[0]
    p = subprocess.run([a.binary], capture_output=True, text=True)
    sys.stdout.write(p.stdout)
    sys.stderr.write(p.stderr)
    if p.returncode or a.no_doc:
        return p.returncode
    h = report.host_info()
    md = report_md(p.stdout, h['host']['cpu_model'], h['git']['describe'],
                   load0, os.getloadavg()[0])
    path = markdown.publish_run(md, markdown.host_kind(), 'docs/BENCHMARKS.md',
                                'make bench-pir', '-pir', 'pir-results')
    print('pir-bench: wrote %s' % os.path.relpath(path, ROOT),
          file=sys.stderr)
    return 0
