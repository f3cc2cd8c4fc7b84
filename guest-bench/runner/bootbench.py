# SPDX-License-Identifier: MIT
"""Boot benchmark: irqlab-vmm against QEMU, both on the same KVM.

    guest-bench/boot-bench [-r RUNS] [-R REV]       (make bench-boot)

What is measured: revision REV (default HEAD) exported with git archive
into build/bench/src and built there (make all, and a static irqlab-vmm),
so the numbers belong to one commit even while the working tree changes;
-R . measures the working tree as it is (the rig runs make in it).

Both run in the nested guest of tests/nested/run-in-kvm.sh (Debian's
Linux 6.1 with kvm_amd, under QEMU TCG with an emulated SVM CPU), in ONE
boot of it, interleaved:

    irqlab-vmm --stats-json F build/bench/kernel/irqlab.elf
    qemu-system-x86_64 -cpu MODEL -accel kvm -m 64 -kernel build/bench/kernel/irqlab32.elf \\
        -device isa-debug-exit,iobase=0xf4,iosize=4 -serial stdio \\
        -display none -nodefaults -no-reboot

MODEL: QEMU 7.2's -cpu host does not start on every KVM, so the guest
first tries scripts/qemu-kvm-cpu's list in its order (host, ...) on its
own KVM and takes the first that boots the kernel to @ready and exits
through isa-debug-exit within 60 s: that tool's rule, in sh (the guest
has no python3: runner/bootbench_guest.sh).  boot.json's qemu_kvm_cpu
says which, and what each try did; when none starts, the benchmark is a
SKIP (status 77).

Both get 64 MiB, and both print the kernel's UART lines on stdout, which
goes to a file in the guest's tmpfs.  Each runs once to warm up; then
RUNS rounds of (irqlab-vmm, QEMU) with the tracepoint off, timed; then
RUNS rounds with kvm:kvm_userspace_exit on, the trace buffer emptied
before each run and its events counted after it: the exit count,
measured the same way for both.  build/bench/timeit (guest-bench/native/
timeit.c, linked static) times each run: CLOCK_MONOTONIC around fork +
exec + wait4; and it gives the child's ru_maxrss.  irqlab-vmm's own
--stats-json (exits.total, wall_ns, memory) is kept for each run too.
A run still going after 60 s is stuck: where its threads are is printed
("@diag" lines), it is killed, run once more, and counted as a problem.

Then, on this host, without nesting: QEMU with -accel tcg on the same
kernel, 1 warm-up and RUNS runs timed by the same timeit, as the
non-nested reference.

Output: a summary on stdout, bench-results/boot.json (every run's
numbers, medians, the host), and the guest's raw output in
bench-results/boot-guest.out.  A run of the defaults (-r 10 -R HEAD)
also writes the summary to docs/results/HOST-DATE-boot.md, listed in
docs/BENCHMARKS.md "The other tools" (--no-doc: not).  Exit status 0, or 1 if a run failed
(wrong status, tracepoint lost events), 2 bad usage, 77 a SKIP (a tool
missing, no -cpu model QEMU/KVM starts with in the guest; also the
rig's), 125 the rig or a build failed.
"""
import argparse
import hashlib
import json
import os
import shutil
import subprocess
import sys
import time

from . import ROOT, boot, markdown, report, stats

OUT = os.path.join(ROOT, 'bench-results')
W = 'build/bench'
GUEST_SH = os.path.join(os.path.dirname(os.path.abspath(__file__)),
                        'bootbench_guest.sh')
RIG = 'tests/nested/run-in-kvm.sh'
RIG_LIMIT = 900                 # the guest part's -t
QEMU_ARGS = ('-accel kvm -m 64 -kernel {k}/irqlab32.elf -device '
             'isa-debug-exit,iobase=0xf4,iosize=4 -serial stdio -display '
             'none -nodefaults -no-reboot')
EXPECT_STATUS = {'vmm': 0, 'qemu': boot.QEMU_OK}
# irqlab-vmm's exit names against the tracepoint's reasons: KVM_EXIT_X
# for X, but "restart" for INTR (a KVM_RUN that a signal ended)
REASON = {'INTR': 'restart'}


class Stop(Exception):
    """The benchmark cannot go on: .status and the message."""

    def __init__(self, status, msg):
        super().__init__(msg)
        self.status = status


def say(msg):
    print('boot-bench: ' + msg, file=sys.stderr, flush=True)


def sh(cmd, log=None, **kw):
    """Run @cmd from the root; its output (stdout and stderr) in @log or
    returned.  Raises Stop(125) when it fails."""
    p = subprocess.run(cmd, cwd=kw.pop('cwd', ROOT), text=True,
                       stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                       **kw)
    if log:
        with open(log, 'w') as f:
            f.write(p.stdout)
    if p.returncode:
        sys.stderr.write(p.stdout)
        raise Stop(125, '%s failed (status %d)' % (cmd[0] if isinstance(
            cmd, list) else cmd, p.returncode))
    return p.stdout


def git(*args):
    return sh(['git'] + list(args)).strip()


def build(rev):
    """The images to measure: a dict of the kernel folder, the static
    irqlab-vmm, the rig's environment and the revision."""
    if rev == '.':
        sh(['make', '--no-print-directory', '-s', 'all'])
        return {'ksrc': 'build/kernel', 'vmm': 'build/nested/irqlab-vmm',
                'env': {}, 'rev': git('rev-parse', 'HEAD'),
                'describe': git('describe', '--always', '--dirty'),
                'dirty': ';'.join(git('status', '--porcelain', '--', 'vmm',
                                      'kernel', 'include', 'calib',
                                      'Makefile', 'Kbuild').splitlines())}
    try:
        full = git('rev-parse', '--verify', rev + '^{commit}')
    except Stop:
        raise Stop(2, 'no revision %s' % rev)
    desc = git('describe', '--always', full)
    src = os.path.join(W, 'src')
    say('building %s in %s' % (desc, src))
    shutil.rmtree(os.path.join(ROOT, src), ignore_errors=True)
    os.makedirs(os.path.join(ROOT, src, 'build/nested'))
    tar = subprocess.run(['git', 'archive', full], cwd=ROOT,
                         capture_output=True)
    if tar.returncode:
        raise Stop(125, 'git archive %s failed' % rev)
    subprocess.run(['tar', '-x', '-C', src], cwd=ROOT, input=tar.stdout,
                   check=True)
    log = os.path.join(ROOT, W, 'make.log')
    sh('make --no-print-directory -s VERSION=%s all && make '
       '--no-print-directory -s VERSION=%s VMM=build/nested/irqlab-vmm '
       "HOST_LDFLAGS='-pthread -static' build/nested/irqlab-vmm" %
       (desc, desc), log, shell=True, cwd=os.path.join(ROOT, src))
    os.makedirs(os.path.join(ROOT, W, 'kernel'), exist_ok=True)
    for f in ('irqlab.elf', 'irqlab32.elf'):
        shutil.copy(os.path.join(ROOT, src, 'build/kernel', f),
                    os.path.join(ROOT, W, 'kernel'))
    vmm = os.path.join(W, 'irqlab-vmm-static')
    shutil.copy(os.path.join(ROOT, src, 'build/nested/irqlab-vmm'),
                os.path.join(ROOT, vmm))
    return {'ksrc': os.path.join(W, 'kernel'), 'vmm': vmm,
            'env': {'NESTED_VMM': vmm}, 'rev': full, 'describe': desc,
            'dirty': ''}


def guest_script(runs, qemu_args, ksrc):
    """build/bench/guest.sh: its settings, then bootbench_guest.sh."""
    cands = sh([boot.PROBE, '--candidates']).split()
    path = os.path.join(W, 'guest.sh')
    with open(GUEST_SH) as f:
        body = f.read()
    with open(os.path.join(ROOT, path), 'w') as f:
        f.write('#!/bin/sh\n# Written by guest-bench/runner/bootbench.py; '
                'runs as /cmd in the nested guest.\n')
        f.write('RUNS=%d\nQEMU_ARGS="%s"\nCPU_CANDIDATES="%s"\n'
                'VMM_KERNEL=%s/irqlab.elf\nTI=./%s/timeit\n' % (
                    runs, qemu_args, ' '.join(cands), ksrc, W))
        f.write(body.split('\n', 1)[1])     # without its #! line
    return path


def run_guest(img, guest_sh):
    """One boot of the nested guest: (status, seconds)."""
    say('booting the nested guest (QEMU TCG + SVM; ~1 min)')
    env = dict(os.environ, NESTED_WITH_QEMU='1', **img['env'])
    t0 = time.monotonic()
    with open(os.path.join(OUT, 'boot-guest.out'), 'w') as f:
        r = boot.run([RIG, '-t', str(RIG_LIMIT), '-c', 'sh ' + guest_sh,
                      guest_sh, os.path.join(W, 'timeit'),
                      os.path.join(img['ksrc'], 'irqlab.elf'),
                      os.path.join(img['ksrc'], 'irqlab32.elf')],
                     RIG_LIMIT + 600, out_file=f,
                     err_path=os.path.join(ROOT, W, 'rig.err'), env=env)
    return r.rc, int(time.monotonic() - t0), r.err


def host_tcg(runs, qemu_args):
    """QEMU -accel tcg on this host, no nesting: 1 warm-up, @runs timed."""
    say('QEMU -accel tcg on the host (%d runs)' % runs)
    cmd = ['qemu-system-x86_64'] + qemu_args.replace(
        '-accel kvm', '-accel tcg').split()
    out = sh([os.path.join(W, 'timeit'), '-n', str(runs), '-w', '1', '-o',
              os.path.join(W, 'host-tcg.out'), '-t', '60', '--'] + cmd)
    timed = [json.loads(l) for l in out.splitlines() if l.startswith('{')]
    timed = [t for t in timed if not t['warmup']]
    ms = [t['wall_ns'] / 1e6 for t in timed]
    codes = [t['status'] for t in timed]
    return {'command': ' '.join(cmd), 'wall_ms': summary(ms),
            'times_ms': ms, 'exit_codes': codes,
            'status_check': codes[-1] if codes else None,
            'timing': 'timeit, as the nested runs (1 warm-up)'}


def summary(xs):
    """n, median, min, max, p90 (nearest rank), mean; None if empty."""
    s = stats.summary(xs)
    return s and {k: s[k] for k in ('n', 'median', 'min', 'max', 'p90',
                                    'mean')}


# ---- the guest's output ----

class GuestOut:
    """bench-results/boot-guest.out read back: runs[(kind, mode)] (dicts
    of timeit's fields, plus i), vmmjson[(mode, i)], guest (what the
    guest said of itself), outputs[kind] (the last run's lines), the
    timed-out runs and the errors."""

    def __init__(self, path):
        self.runs, self.vmmjson, self.guest = {}, {}, {}
        self.outputs = {'vmm': [], 'qemu': []}
        self.errors, self.timeouts, self.skip = [], [], None
        self.path = path
        with open(path, errors='replace') as f:
            for line in f:
                self.take(line.rstrip('\n'))

    def take(self, line):
        word, _, rest = line.partition(' ')
        if word == '@run':
            kind, mode, i, js = rest.split(' ', 3)
            d = dict(json.loads(js), i=int(i))
            self.runs.setdefault((kind, mode), []).append(d)
        elif word == '@vmmjson':
            mode, i, js = rest.split(' ', 2)
            self.vmmjson[(mode, int(i))] = json.loads(js)
        elif word == '@guest':
            self.guest.update(kv.split('=', 1) for kv in rest.split())
        elif word == '@guest_cpu':
            self.guest['cpu'] = rest
        elif word == '@qemu_version':
            self.guest['qemu'] = rest
        elif word == '@qemu_cpu':
            self.guest['qemu_cpu'] = rest
        elif word == '@qemu_cpu_try':
            self.guest.setdefault('qemu_cpu_tries', []).append(rest)
        elif word == '@skip':
            self.skip = self.skip or rest
        elif word == '@out':
            kind, _, text = rest.partition(' ')
            self.outputs[kind].append(text)
        elif word.startswith('@error'):
            self.errors.append(line)
        elif word == '@timeout':
            kind, mode, i, attempt, js = rest.split(' ', 4)
            d = dict(json.loads(js), i=int(i), attempt=int(attempt),
                     kind=kind, mode=mode)
            self.timeouts.append(d)
            self.errors.append('%s %s run %s attempt %s: stuck, killed '
                               'after %.0f s (the @diag lines of %s say '
                               'where)' % (kind, mode, i, attempt,
                                           d['wall_ns'] / 1e9, self.path))

    def join_vmmjson(self):
        """irqlab-vmm's own --stats-json into its runs."""
        for mode in ('plain', 'traced'):
            for d in self.runs.get(('vmm', mode), []):
                j = self.vmmjson.get((mode, d['i']))
                if j:
                    d['vmm_wall_ns'] = j['wall_ns']
                    d['vmm_exits_total'] = j['exits']['total']
                    d['vmm_exits_by_reason'] = j['exits']['by_reason']
                    d['vmm_memory'] = j['memory']


def problems(g, want_runs):
    """What went wrong in the guest's runs, one line each."""
    bad = list(g.errors)
    for kind in ('vmm', 'qemu'):
        for mode in ('plain', 'traced'):
            lst = g.runs.get((kind, mode), [])
            if len(lst) != want_runs:
                bad.append('%s %s: %d of %d runs' % (kind, mode, len(lst),
                                                     want_runs))
            for d in lst:
                if d['status'] != EXPECT_STATUS[kind]:
                    bad.append('%s %s run %d: status %d' % (
                        kind, mode, d['i'], d['status']))
                t = d.get('trace')
                if t and t['in_buffer'] != t['written']:
                    bad.append('%s run %d: trace buffer lost events (%d of '
                               '%d)' % (kind, d['i'], t['in_buffer'],
                                        t['written']))
                if t and t['events'] != t['in_buffer']:
                    bad.append('%s run %d: %d trace lines, header says %d' %
                               (kind, d['i'], t['events'], t['in_buffer']))
    return bad


def mode_summary(kind, mode, lst):
    s = {'wall_ms': summary([d['wall_ns'] / 1e6 for d in lst]),
         'maxrss_kb': summary([d['maxrss_kb'] for d in lst])}
    if kind == 'vmm':
        mem = [d['vmm_memory'] for d in lst if 'vmm_memory' in d]
        s['vmm_wall_ms'] = summary([d['vmm_wall_ns'] / 1e6 for d in lst
                                    if 'vmm_wall_ns' in d])
        s['vmm_exits_total'] = summary([d['vmm_exits_total'] for d in lst
                                        if 'vmm_exits_total' in d])
        for k in ('vmm_own_kb', 'rss_peak_kb', 'guest_resident_kb'):
            s[k] = summary([m[k] for m in mem])
    if mode == 'traced':
        s['trace_exits'] = summary([d['trace']['events'] for d in lst])
        reasons = {}
        for d in lst:
            for r, c in d['trace']['by_reason'].items():
                reasons.setdefault(r, []).append(c)
        s['trace_by_reason'] = {r: summary(c)
                                for r, c in sorted(reasons.items())}
    return s


def agreement(g):
    """The tracepoint against irqlab-vmm's own count, run by run."""
    agree = []
    for d in g.runs.get(('vmm', 'traced'), []):
        if 'vmm_exits_total' not in d:
            continue
        own = {REASON.get(r, 'KVM_EXIT_' + r): c
               for r, c in d['vmm_exits_by_reason'].items() if c}
        agree.append({'run': d['i'], 'trace': d['trace']['events'],
                      'vmm': d['vmm_exits_total'],
                      'diff': d['trace']['events'] - d['vmm_exits_total'],
                      'trace_by_reason': d['trace']['by_reason'],
                      'vmm_by_reason': d['vmm_exits_by_reason'],
                      'by_reason_agree': own == d['trace']['by_reason']})
    return agree


def ratios(g, sm):
    vm, qm = sm['vmm']['plain']['wall_ms'], sm['qemu']['plain']['wall_ms']
    sm['ratio_qemu_over_vmm_median'] = (qm['median'] / vm['median']
                                        if vm and qm else None)
    # per round (the two runs of a round are back to back): drift in
    # the host's load moves both
    pv = {d['i']: d['wall_ns'] for d in g.runs.get(('vmm', 'plain'), [])}
    sm['ratio_qemu_over_vmm_paired'] = summary(
        [d['wall_ns'] / pv[d['i']] for d in g.runs.get(('qemu', 'plain'), [])
         if d['i'] in pv])
    vt = sm['vmm']['traced'].get('trace_exits')
    qt = sm['qemu']['traced'].get('trace_exits')
    sm['ratio_exits_qemu_over_vmm'] = (qt['median'] / vt['median']
                                       if vt and qt else None)


# ---- boot.json and the summary ----

def loadavg():
    with open('/proc/loadavg') as f:
        return ' '.join(f.read().split()[:3])


def sha16(path):
    with open(os.path.join(ROOT, path), 'rb') as f:
        return hashlib.sha256(f.read()).hexdigest()[:16]


def results(a, img, g, rig, tcg, load_before, date):
    """boot.json's content."""
    g.join_vmmjson()
    bad = problems(g, a.r)
    if rig['status'] != 0:
        bad.append('the guest part ended with status %s (see %s, '
                   'build/nested/last/)' % (rig['status'], g.path))
    if any(c != boot.QEMU_OK for c in tcg['exit_codes']):
        bad.append('host TCG QEMU exit codes %s' % tcg['exit_codes'])
    sm = {kind: {mode: mode_summary(kind, mode, g.runs.get((kind, mode), []))
                 for mode in ('plain', 'traced')} for kind in ('vmm', 'qemu')}
    sm['vmm_trace_vs_own'] = agreement(g)
    sm['host_tcg'] = tcg
    ratios(g, sm)
    h = report.host_info()['host']
    env = os.environ.get
    guest = g.guest
    qemu_args = QEMU_ARGS.format(k=img['ksrc'])
    return {
        'bench': 'boot', 'date': date, 'runs': a.r,
        'host': {'uname_r': h['kernel_release'], 'cpu': h['cpu_model'],
                 'cpus': h['cpus'], 'loadavg_before': load_before,
                 'loadavg_after': loadavg(),
                 'qemu': sh(['qemu-system-x86_64', '--version'])
                 .splitlines()[0]},
        'nested': {'description': 'nested: QEMU 7.2 TCG + emulated SVM, '
                   'guest Linux 6.1, kvm_amd npt=%s' % guest.get('npt', '?'),
                   'outer_qemu': '-accel %s -cpu %s -smp %s -m %s' % (
                       env('NESTED_ACCEL', 'tcg,thread=single'),
                       env('NESTED_CPU', 'qemu64,+svm,+npt'),
                       env('NESTED_SMP', '2'), env('NESTED_MEM', '512')),
                   'guest': guest, 'rig_status': rig['status'],
                   'guest_seconds': rig['seconds']},
        'git': {'rev': img['rev'], 'describe': img['describe'],
                'asked': a.R,
                'built_from': 'working tree' if a.R == '.' else
                'git archive of the revision',
                'dirty_build_inputs': img['dirty']},
        'binaries_sha256_16': {
            'irqlab-vmm (static)': sha16(img['vmm']),
            'irqlab.elf': sha16(os.path.join(img['ksrc'], 'irqlab.elf')),
            'irqlab32.elf': sha16(os.path.join(img['ksrc'], 'irqlab32.elf'))},
        'commands': {
            'vmm': 'irqlab-vmm --stats-json F %s/irqlab.elf' % img['ksrc'],
            'qemu': 'qemu-system-x86_64 -cpu %s %s' % (
                guest.get('qemu_cpu', '?'), qemu_args),
            'timing': 'timeit: CLOCK_MONOTONIC around fork+exec+wait4, '
                      'stdout to a tmpfs file; p90 = nearest rank'},
        'qemu_kvm_cpu': {'model': guest.get('qemu_cpu'),
                         'tries': guest.get('qemu_cpu_tries', []),
                         'where': "the nested guest's KVM (probed there, "
                         "scripts/qemu-kvm-cpu's list and rule)"},
        'summary': sm,
        'raw': dict({'%s_%s' % k: v for k, v in sorted(g.runs.items())},
                    timed_out=g.timeouts),
        'outputs_last_run': g.outputs,
        'problems': bad}


def fmt(s, unit='ms', f='%.1f'):
    if not s:
        return '-'
    return 'median %s %s (min %s, p90 %s, max %s; n=%d)' % (
        f % s['median'], unit, f % s['min'], f % s['p90'], f % s['max'],
        s['n'])


def by_reason(s):
    return ', '.join('%s %d' % (r, x['median'])
                     for r, x in s.get('trace_by_reason', {}).items())


def summary_text(res, path):
    """The readable summary."""
    lines = []

    def P(s=''):
        lines.append(s)

    sm, guest, h, k = res['summary'], res['nested']['guest'], res['host'], \
        res['commands']['vmm'].split()[-1].rsplit('/', 1)[0]
    v, q = sm['vmm'], sm['qemu']
    P('== Boot benchmark: irqlab-vmm against QEMU -accel kvm ==')
    P('host:    %s, %d CPUs, Linux %s, loadavg before %s, after %s' % (
        h['cpu'], h['cpus'], h['uname_r'], h['loadavg_before'],
        h['loadavg_after']))
    P(res['nested']['description'])
    P('         outer QEMU %s; guest %s, %s CPUs (%s)' % (
        res['nested']['outer_qemu'], guest.get('uname'), guest.get('cpus'),
        guest.get('cpu')))
    P('         guest QEMU: %s' % guest.get('qemu'))
    gi = res['git']
    P('git:     %s (%s), built from %s%s' % (
        gi['rev'][:12], gi['describe'], gi['built_from'],
        ('; uncommitted build inputs: ' + gi['dirty_build_inputs'])
        if gi['dirty_build_inputs'] else ''))
    P('runs:    1 warm-up + %d timed (tracepoint off) + %d counted '
      '(tracepoint on), interleaved' % (res['runs'], res['runs']))
    P('')
    P('irqlab-vmm %s/irqlab.elf (-m 64, multiboot2)' % k)
    P('  wall, timeit (fork..wait4):     %s' % fmt(v['plain']['wall_ms']))
    P('  wall, its own JSON wall_ns:     %s' % fmt(v['plain']['vmm_wall_ms']))
    P('  wall, tracepoint on:            %s' % fmt(v['traced']['wall_ms']))
    P('  exits, tracepoint:              %s' % fmt(
        v['traced']['trace_exits'], '', '%d'))
    P('  exits, its own exits.total:     %s' % fmt(
        v['traced']['vmm_exits_total'], '', '%d'))
    P('  peak RSS, wait4 ru_maxrss:      %s' % fmt(
        v['plain']['maxrss_kb'], 'KiB', '%d'))
    P('  its report: rss_peak / guest resident / vmm_own:  %s / %s / %s '
      'KiB (medians)' % tuple(
          '%d' % v['plain'][x]['median'] if v['plain'][x] else '-'
          for x in ('rss_peak_kb', 'guest_resident_kb', 'vmm_own_kb')))
    P('  tracepoint by reason (median):  %s' % by_reason(v['traced']))
    P('')
    P('qemu-system-x86_64 -accel kvm -cpu %s %s/irqlab32.elf (-m 64, '
      'multiboot1 via SeaBIOS)' % (guest.get('qemu_cpu', '?'), k))
    P('  -cpu, probed in the guest:      %s' % '; '.join(
        guest.get('qemu_cpu_tries', [])))
    P('  wall, timeit (fork..wait4):     %s' % fmt(q['plain']['wall_ms']))
    P('  wall, tracepoint on:            %s' % fmt(q['traced']['wall_ms']))
    P('  exits, tracepoint:              %s' % fmt(
        q['traced']['trace_exits'], '', '%d'))
    P('  peak RSS, wait4 ru_maxrss:      %s' % fmt(
        q['plain']['maxrss_kb'], 'KiB', '%d'))
    P('  tracepoint by reason (median):  %s' % by_reason(q['traced']))
    P('')
    P('ratios (same nested guest): wall QEMU/irqlab-vmm %.1fx (of the '
      'medians), per round %s;' % (sm['ratio_qemu_over_vmm_median'] or 0,
                                   fmt(sm['ratio_qemu_over_vmm_paired'],
                                       'x')))
    P('                             userspace exits QEMU/irqlab-vmm %.1fx' %
      (sm['ratio_exits_qemu_over_vmm'] or 0))
    P('')
    P("tracepoint against irqlab-vmm's exits.total, per counted run:")
    for x in sm['vmm_trace_vs_own']:
        P('  run %2d: tracepoint %d, exits.total %d, diff %+d; by reason %s'
          % (x['run'], x['trace'], x['vmm'], x['diff'],
             'the same' if x['by_reason_agree'] else
             'DIFFERENT: %s against %s' % (x['trace_by_reason'],
                                           x['vmm_by_reason'])))
    P('')
    t = sm['host_tcg']
    P('host, no nesting: %s' % t['command'])
    P('  wall, timeit:                   %s; exit codes %s' % (
        fmt(t['wall_ms']), sorted(set(t['exit_codes']))))
    P('')
    out = res['outputs_last_run']
    P('output (last run): irqlab-vmm %d lines, QEMU %d lines' % (
        len(out['vmm']), len(out['qemu'])))
    for kind in ('vmm', 'qemu'):
        for line in out[kind][:4]:
            P('  %-4s| %s' % (kind, line))
    P('')
    P('problems: %s' % ('; '.join(res['problems']) or 'none'))
    P('raw numbers: %s' % path)
    return '\n'.join(lines) + '\n'


def publish(text):
    """docs/results/HOST-DATE-boot.md, listed in docs/BENCHMARKS.md."""
    path = markdown.publish_run(
        'The summary `guest-bench/boot-bench` printed (docs/BENCHMARKS.md '
        '"The other tools"); every number in bench-results/boot.json.\n\n'
        '```\n' + text + '```\n', markdown.host_kind(rig=True),
        'docs/BENCHMARKS.md', 'make bench-boot', '-boot', 'boot-results')
    say('wrote %s' % os.path.relpath(path, ROOT))


# ---- the whole ----

def parse_args(argv):
    ap = argparse.ArgumentParser(
        prog='guest-bench/boot-bench',
        description=__doc__.split('\n\n')[0],
        formatter_class=argparse.RawDescriptionHelpFormatter,
        epilog=__doc__.split('\n\n', 2)[2])
    ap.add_argument('-r', type=int, default=10, metavar='RUNS',
                    help='timed runs of each, and as many counted '
                    '(default 10)')
    ap.add_argument('-R', default='HEAD', metavar='REV',
                    help='the revision to build and measure (default '
                    'HEAD; . for the working tree as it is)')
    ap.add_argument('--no-doc', action='store_true',
                    help='write no docs/results/ file (a run of the '
                    'defaults writes one)')
    a = ap.parse_args(argv)
    if a.r < 1:
        ap.error('-r must be at least 1')
    return a


def bench(a):
    for tool in ('gcc', 'qemu-system-x86_64'):
        if not boot.have(tool):
            raise Stop(77, 'SKIP: boot-bench: %s is not installed' % tool)
    os.makedirs(OUT, exist_ok=True)
    os.makedirs(os.path.join(ROOT, W), exist_ok=True)
    sh(['gcc', '-static', '-O2', '-Wall', '-Wextra', '-Werror', '-o',
        os.path.join(W, 'timeit'), 'guest-bench/native/timeit.c'])
    img = build(a.R)
    qemu_args = QEMU_ARGS.format(k=img['ksrc'])
    guest_sh = guest_script(a.r, qemu_args, img['ksrc'])
    load_before = loadavg()
    date = time.strftime('%Y-%m-%dT%H:%M:%SZ', time.gmtime())
    status, secs, err = run_guest(img, guest_sh)
    g = GuestOut(os.path.join(OUT, 'boot-guest.out'))
    if g.skip:
        tries = ''.join('\n  tried -cpu ' + t
                        for t in g.guest.get('qemu_cpu_tries', []))
        raise Stop(77, 'SKIP: boot-bench: %s%s' % (g.skip, tries))
    if status in (77, 125):
        sys.stderr.write(err)
        raise Stop(status, 'the nested rig said %d' % status)
    tcg = host_tcg(a.r, qemu_args)
    res = results(a, img, g, {'status': status, 'seconds': secs}, tcg,
                  load_before, date)
    path = os.path.join(OUT, 'boot.json')
    with open(path, 'w') as f:
        json.dump(res, f, indent=1)
    text = summary_text(res, os.path.relpath(path, ROOT))
    print(text, end='')
    # a run of the defaults that measured is published; one with problems
    # is a report on stdout, not a result
    if a.r == 10 and a.R == 'HEAD' and not a.no_doc and not res['problems']:
        publish(text)
    elif a.r == 10 and a.R == 'HEAD' and not a.no_doc:
        print('boot-bench: not published: the run had problems')
    return 1 if res['problems'] else 0


def main(argv=None):
    a = parse_args(sys.argv[1:] if argv is None else argv)
    try:
        return bench(a)
    except Stop as e:
        if str(e).startswith('SKIP'):
            print(e)
        else:
            say(str(e))
        return e.status
