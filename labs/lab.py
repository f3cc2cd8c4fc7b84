#!/usr/bin/python3
# SPDX-License-Identifier: MIT
"""labs/lab.py: the irqlab course (docs/labs/README.md).

    lab.py list                      the labs: name, side, files, points, hours
    lab.py make LAB DIR [--solution] a student tree for LAB in DIR
    lab.py grade [LAB...|all]        build, run the checks, print the points
    lab.py handin [-o FILE]          in a student tree: the tarball to hand in
    lab.py refs [LAB...]             each handout's reference numbers,
                                     measured 5 times (make lab-refs)

A lab's reference code sits in the sources between two markers:

    /* LAB ipi: begin
     * What to write, what to read (SDM section), which checks grade it.
     * stub: return false;
     */
    ... the reference ...
    /* LAB ipi: end */

`make` copies the project's files (git ls-files, or every file if DIR's
source is no git checkout) and, in LAB's regions, puts the stub where the
reference was, under the text of the begin marker.  The markers of every
other lab go, their code stays.  --solution keeps LAB's reference too
(every marker goes).  The tree starts as a git repository of one commit,
so that `git diff` shows the student's own work, and `make grade` there
grades LAB.

The tree also gets answers-LAB.md: the handout's "Measure and explain"
questions, for the student's answers.  `handin` packs handin-LAB.tar.gz:
LAB.diff (the tree against its first commit, new files included), the
answers file and build/grade/LAB/result.json; it refuses while the
answers are still the template or no grade was made.

`grade` builds (make all and the Criterion binary), then runs each check
of the lab in labs/catalog.toml: a Criterion filter, all of whose tests
must pass, or a boot of the irqlab kernel in irqlab-vmm whose records
labs/checks.py judges.  Boots go to /dev/kvm, or to the nested rig
(tests/nested) where there is none.  A check that cannot run here is
SKIPPED with its reason and earns nothing.  It writes build/grade/LAB/
result.json and results.json, the latter in the format of Gradescope's
autograder (tests[] with name, score, max_score, output, status; the
total score), also into /autograder/results/ when that folder exists.
Exit status: 0 with full marks, 1 below, 2 on bad usage.
"""
import argparse
import json
import os
import re
import shutil
import subprocess
import sys
import time
import tomllib

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(ROOT, 'guest-bench'))
sys.path.insert(0, os.path.join(ROOT, 'labs'))

CATALOG = os.path.join(ROOT, 'labs/catalog.toml')
LAB_FILE = '.lab'               # in a student tree: the lab it is for
BEGIN = re.compile(r'^(\s*)/\* LAB ([a-z0-9-]+): begin$')
END = re.compile(r'^\s*/\* LAB ([a-z0-9-]+): end \*/$')
UNIT = 'build/tests/unit'


class LabError(Exception):
    pass


def catalog():
    with open(CATALOG, 'rb') as f:
        labs = tomllib.load(f)['lab']
    return {lab['name']: lab for lab in labs}


def points(lab):
    return sum(c['points'] for c in lab['check'])


# ---- the markers ----------------------------------------------------------

def regions(text):
    """Every marked region of @text: (lab, first line, last line) indices
    of its begin and end markers.  Raises LabError on a broken pair."""
    lines, out, open_ = text.split('\n'), [], None
    for i, line in enumerate(lines):
        b, e = BEGIN.match(line), END.match(line)
        if b:
            if open_:
                raise LabError('line %d: LAB %s begins inside LAB %s' %
                               (i + 1, b.group(2), open_[0]))
            open_ = (b.group(2), i)
        elif e:
            if not open_ or open_[0] != e.group(1):
                raise LabError('line %d: LAB %s ends, but did not begin' %
                               (i + 1, e.group(1)))
            out.append((open_[0], open_[1], i))
            open_ = None
    if open_:
        raise LabError('LAB %s begins at line %d and never ends' %
                       (open_[0], open_[1] + 1))
    return out


def _marker(lines, first):
    """The begin marker's comment: its text lines, its stub lines, the
    index of its last line."""
    text, stub = [], []
    for j in range(first + 1, len(lines)):
        s = lines[j].strip()
        if s == '*/':
            return text, stub, j
        s = lines[j].lstrip()
        s = s[1:] if s.startswith('*') else s
        s = s[1:] if s.startswith(' ') else s
        if s.startswith('stub:'):
            # "stub: CODE": the code keeps its own tabs
            stub.append(s[6:] if s.startswith('stub: ') else s[5:])
        else:
            text.append(s.strip())
    raise LabError('line %d: the LAB comment never ends' % (first + 1))


def transform(text, lab, solution=False):
    """@text with @lab's regions stubbed (or kept, with @solution) and
    every marker gone."""
    lines = text.split('\n')
    out, i = [], 0
    spans = {first: (name, last) for name, first, last in regions(text)}
    while i < len(lines):
        if i not in spans:
            out.append(lines[i])
            i += 1
            continue
        name, last = spans[i]
        indent = BEGIN.match(lines[i]).group(1)
        words, stub, end_comment = _marker(lines, i)
        if name == lab and not solution:
            out.append(indent + '/*')
            out.append(indent + ' * LAB %s: your code here.' % lab)
            out += [(indent + ' * ' + w).rstrip() for w in words]
            out.append(indent + ' */')
            out += [indent + s for s in stub]
        else:
            out += lines[end_comment + 1:last]
        i = last + 1
    return '\n'.join(out)


# ---- make: a student tree ----------------------------------------------------

def project_files():
    try:
        p = subprocess.run(['git', 'ls-files', '-z'], cwd=ROOT,
                           capture_output=True, check=True)
        return [f for f in p.stdout.decode().split('\0') if f]
    except (OSError, subprocess.CalledProcessError):
        files = []
        for d, subs, names in os.walk(ROOT):
            subs[:] = [s for s in subs if s not in ('.git', 'build')]
            files += [os.path.relpath(os.path.join(d, n), ROOT)
                      for n in names]
        return files


def make_tree(lab, dest, solution=False):
    labs = catalog()
    if lab not in labs:
        raise LabError('no lab %r (make labs lists them)' % lab)
    if os.path.exists(dest) and os.listdir(dest):
        raise LabError('%s exists and is not empty' % dest)
    stubbed = 0
    for f in project_files():
        src, dst = os.path.join(ROOT, f), os.path.join(dest, f)
        if not os.path.isfile(src):
            continue        # a deleted file git still lists
        os.makedirs(os.path.dirname(dst), exist_ok=True)
        if f.endswith(('.c', '.h', '.S')):
            with open(src) as fh:
                text = fh.read()
            if 'LAB ' in text:
                try:
                    new = transform(text, lab, solution)
                except LabError as e:
                    raise LabError('%s: %s' % (f, e))
                stubbed += new != text and not solution and any(
                    n == lab for n, _, _ in regions(text))
                with open(dst, 'w') as fh:
                    fh.write(new)
                shutil.copymode(src, dst)
                continue
        shutil.copy2(src, dst)
    if not stubbed and not solution:
        raise LabError('lab %s has no marked region in the sources' % lab)
    with open(os.path.join(dest, LAB_FILE), 'w') as fh:
        fh.write(lab + '\n')
    with open(os.path.join(dest, answers_name(lab)), 'w') as fh:
        fh.write(answers_template(labs[lab]))
    # the rig's kernel and busybox, if this tree has them: no download
    cache = os.path.join(ROOT, 'build/nested/cache')
    if os.path.isdir(cache):
        shutil.copytree(cache, os.path.join(dest, 'build/nested/cache'),
                        copy_function=os.link)
    git = ['git', '-c', 'user.name=irqlab lab', '-c',
           'user.email=lab@irqlab.invalid']
    for argv in (['git', 'init', '-q'], ['git', 'add', '-A'],
                 git + ['commit', '-q', '-m', 'irqlab lab %s: the starting '
                        'tree%s' % (lab, ' (the reference)' if solution
                                    else '')]):
        subprocess.run(argv, cwd=dest, check=True, capture_output=True)
    return stubbed


# ---- the answers and the hand-in ---------------------------------------------

def answers_name(lab):
    return 'answers-%s.md' % lab


def questions(lab):
    """The handout's "Measure and explain" section, without the reference
    numbers that follow its questions."""
    with open(os.path.join(ROOT, lab['handout'])) as f:
        text = f.read()
    m = re.search(r'^## Measure and explain\n(.*?)(?=^## |\Z)', text,
                  re.M | re.S)
    if not m:
        raise LabError('%s has no "Measure and explain" section' %
                       lab['handout'])
    q = m.group(1)
    return q.split('\nReference')[0].strip()


def answers_template(lab):
    quoted = '\n'.join(('> ' + l).rstrip() for l in
                        questions(lab).splitlines())
    return ('# Lab %d, %s: your answers\n\n'
            'The questions (%s, "Measure and explain"):\n\n%s\n\n'
            '## Your answers\n\n'
            'Replace this line with your measurements (the commands you ran '
            'and what they printed) and your explanations.  make handin '
            'refuses while this file is the template.\n' % (
                lab['number'], lab['name'], lab['handout'], quoted))


def git_out(argv, cwd, env=None):
    p = subprocess.run(['git'] + argv, cwd=cwd, capture_output=True,
                       env=env)
    if p.returncode:
        raise LabError('git %s: %s' % (' '.join(argv),
                                       p.stderr.decode().strip()))
    return p.stdout


def handin(out=None):
    """In a student tree: handin-LAB.tar.gz with LAB.diff, the answers and
    the last grade's result.json.  Returns the tarball's path."""
    import tarfile
    import tempfile
    try:
        with open(os.path.join(ROOT, LAB_FILE)) as f:
            lab = f.read().strip()
    except OSError:
        raise LabError('this is no student tree (no %s): make lab '
                       'LAB=NAME DIR=PATH makes one' % LAB_FILE)
    answers = answers_name(lab)
    base = git_out(['rev-list', '--max-parents=0', 'HEAD'],
                   ROOT).decode().split()[-1]
    ans = os.path.join(ROOT, answers)
    if not os.path.isfile(ans):
        raise LabError('%s is missing: write your answers there' % answers)
    with open(ans) as f:
        if f.read() == git_out(['show', '%s:%s' % (base, answers)],
                               ROOT).decode():
            raise LabError('%s is still the template: write your '
                           'measurements and explanations in it first' %
                           answers)
    result = os.path.join(ROOT, 'build/grade', lab, 'result.json')
    if not os.path.isfile(result):
        raise LabError('no %s: run make grade first, so that the hand-in '
                       'carries your grade' % os.path.relpath(result, ROOT))
    with tempfile.TemporaryDirectory() as tmp:
        # every change since the starting tree, new files too, without
        # touching the student's own index
        env = dict(os.environ, GIT_INDEX_FILE=os.path.join(tmp, 'index'))
        git_out(['read-tree', base], ROOT, env)
        git_out(['add', '-A', '.'], ROOT, env)
        diff = git_out(['diff', '--cached', base, '--', '.',
                        ':!' + answers, ':!handin-*.tar.gz'], ROOT, env)
        dpath = os.path.join(tmp, '%s.diff' % lab)
        with open(dpath, 'wb') as f:
            f.write(diff)
        out = out or os.path.join(ROOT, 'handin-%s.tar.gz' % lab)
        with tarfile.open(out, 'w:gz') as t:
            t.add(dpath, arcname='handin-%s/%s.diff' % (lab, lab))
            t.add(ans, arcname='handin-%s/%s' % (lab, answers))
            t.add(result, arcname='handin-%s/result.json' % lab)
    return out


def gradescope(lab, results, got, secs, where):
    """Gradescope's autograder results.json: tests[] with name, score,
    max_score, output and status, and the total score."""
    return {'score': got, 'execution_time': round(secs, 1),
            'output': 'lab %s: %s (boots on %s)' % (lab['name'],
                                                   lab['title'], where),
            'tests': [{'name': r.check['name'], 'score': r.earned,
                       'max_score': r.check['points'],
                       'status': 'passed' if r.state == 'ok' else 'failed',
                       'output': r.state + (': ' + r.detail
                                            if r.detail else '')}
                      for r in results]}


# ---- grade ------------------------------------------------------------------

class Result:
    def __init__(self, check, state, detail=''):
        self.check, self.state, self.detail = check, state, detail

    @property
    def earned(self):
        return self.check['points'] if self.state == 'ok' else 0


def build(log):
    """make all and the Criterion binary; None, or why it failed."""
    p = subprocess.run(['make', '-j2', 'all', UNIT], cwd=ROOT,
                       stdout=log, stderr=subprocess.STDOUT)
    return None if p.returncode == 0 else \
        'the tree does not build (make all %s: status %d; %s)' % (
            UNIT, p.returncode, os.path.relpath(log.name, ROOT))


def run_unit(check, out):
    """Criterion's tests that @check['unit'] (a --filter glob) selects:
    all must pass."""
    p = subprocess.run([os.path.join(ROOT, UNIT), '--filter=' +
                        check['unit'], '--jobs=1'], cwd=ROOT,
                       capture_output=True, text=True, timeout=600)
    with open(out, 'w') as f:
        f.write(p.stdout + p.stderr)
    m = re.search(r'Tested: (\d+) \| Passing: (\d+) \| Failing: (\d+) \| '
                  r'Crashing: (\d+)', p.stdout + p.stderr)
    if not m:
        return 'FAILED', 'no Criterion summary (status %d)' % p.returncode
    n, ok = int(m.group(1)), int(m.group(2))
    if n == 0:
        return 'FAILED', 'no test matches %s' % check['unit']
    if ok == n and p.returncode == 0:
        return 'ok', '%d of %d tests pass' % (ok, n)
    fails = re.findall(r'\[FAIL\] (\S+?):? ',
                       p.stdout + p.stderr)
    names = sorted(set(fails))
    return 'FAILED', '%d of %d tests pass%s' % (
        ok, n, '; failing: ' + ', '.join(names[:3]) +
        (' ...' if len(names) > 3 else '') if names else '')


class Machine:
    """Where the boots run: /dev/kvm here, or the nested rig's server."""

    def __init__(self):
        from runner import boot
        self.boot, self.rig, self.why = boot, None, None
        self.direct = boot.kvm_usable()

    def run(self, argv, timeout, out):
        if self.direct:
            r = self.boot.run(argv, timeout, err_path=out + '.err')
        else:
            if self.why:
                return None
            if self.rig is None:
                from runner import rigserver
                # two rig CPUs, so that two vCPUs run at once (the
                # TSC check of ipi_wake needs it); every lab boot uses
                # irqlab's own LAPIC, not KVM's (tests/nested/README.md)
                self.rig = rigserver.RigServer(ROOT)
                try:
                    self.rig.start()
                except rigserver.RigError as e:
                    self.rig, self.why = None, ('no /dev/kvm, and the '
                                                'nested rig cannot run: %s'
                                                % e)
                    return None
            r = self.boot.run_in_rig(self.rig, argv, timeout,
                                     err_path=out + '.err')
        with open(out + '.out', 'w') as f:
            f.write(r.out)
        return r

    def where(self):
        return '/dev/kvm' if self.direct else 'the nested rig'

    def stop(self):
        if self.rig:
            self.rig.stop()


# boots more when a case refused to measure for the host's sake: a host
# whose TSC is unstable gives skewed vCPU TSCs in many boots (the nested
# rig did in ~40% before it booted with tsc=reliable: tests/nested/
# README.md "The rig's TSC"; 6 in a row at that rate is ~0.4%)
UNMEASURED_TRIES = 5


def run_boot(check, machine, out):
    import checks
    b = check['boot']
    js = out + '.json'
    # irqlab-vmm's own --timeout stops a guest that hangs (a stub's)
    limit = b.get('timeout', 30)
    argv = [os.path.join(ROOT, 'build/irqlab-vmm'), '--stats-json', js,
            '--timeout', str(limit)] + b.get('args', []) + \
        ['-a', b['append'], os.path.join(ROOT, 'build/kernel/irqlab.elf')]
    r = machine.run(argv, limit + 60, out)
    if r is None:
        return 'SKIPPED', machine.why
    state, detail = checks.judge(b['expect'], r, js)
    if state != 'ok' and not machine.direct and checks.rig_fault(r):
        # tests/nested/README.md "The rule": once more, loudly
        print('  (the nested rig\'s fault: %s; booting again)' %
              checks.rig_fault(r), flush=True)
        r = machine.run(argv, limit + 60, out)
        state, detail = checks.judge(b['expect'], r, js)
    for _ in range(UNMEASURED_TRIES):
        # a busy host can make two vCPUs' TSCs look skewed: the case
        # then refuses to measure, and make bench boots it again too
        why = checks.unmeasured(r) if state != 'ok' else None
        if not why:
            break
        print('  (%s; booting again)' % why, flush=True)
        r = machine.run(argv, limit + 60, out)
        state, detail = checks.judge(b['expect'], r, js)
    return state, detail


def grade_one(lab, machine_box):
    """Build, then each check of @lab; the Results, printed as a table,
    and written to build/grade/LAB/result.json.  @machine_box: a list
    holding the Machine shared by every lab graded in this run."""
    logs = os.path.join(ROOT, 'build/grade', lab['name'])
    os.makedirs(logs, exist_ok=True)
    t0 = time.monotonic()
    print('lab %s: %s (%s)' % (lab['name'], lab['title'], lab['handout']),
          flush=True)
    with open(os.path.join(logs, 'build.log'), 'w') as log:
        broken = build(log)
    results = []
    for i, c in enumerate(lab['check']):
        out = os.path.join(logs, 'check%d' % (i + 1))
        if broken:
            state, detail = 'FAILED', broken
        elif 'unit' in c:
            state, detail = run_unit(c, out + '.out')
        else:
            if not machine_box:
                machine_box.append(Machine())
            state, detail = run_boot(c, machine_box[0], out)
        results.append(Result(c, state, detail))
        print('  %-7s %3d/%-3d %s%s' % (
            state, results[-1].earned, c['points'], c['name'],
            ': ' + detail if detail else ''), flush=True)
    got, total = sum(r.earned for r in results), points(lab)
    secs = time.monotonic() - t0
    where = machine_box[0].where() if machine_box else 'none'
    print('Score: %d/%d  (%.0f s; boots on %s; logs in %s)' % (
        got, total, secs, where, os.path.relpath(logs, ROOT)), flush=True)
    with open(os.path.join(logs, 'result.json'), 'w') as f:
        json.dump({'lab': lab['name'], 'score': got, 'total': total,
                   'built': not broken, 'seconds': round(secs, 1),
                   'boots_on': where,
                   'checks': [{'name': r.check['name'],
                               'points': r.check['points'],
                               'core': r.check.get('core', False),
                               'state': r.state, 'earned': r.earned,
                               'detail': r.detail} for r in results]},
                  f, indent=1)
    gs = gradescope(lab, results, got, secs, where)
    for d in (logs, '/autograder/results'):
        if os.path.isdir(d):
            with open(os.path.join(d, 'results.json'), 'w') as f:
                json.dump(gs, f, indent=1)
    return got == total


def grade(names):
    """Grade the labs @names in one run (one rig boot for all); 0 when
    every one has full marks."""
    labs = catalog()
    for n in names:
        if n not in labs:
            raise LabError('no lab %r (make labs lists them)' % n)
    box, full = [], True
    try:
        for n in names:
            full = grade_one(labs[n], box) and full
    finally:
        if box:
            box[0].stop()
    return 0 if full else 1


# ---- list -------------------------------------------------------------------

def lab_refs(names, no_doc=False):
    """make lab-refs (labs/refs.py): the measurements, the report on
    stdout and, for every lab, docs/results/HOST-DATE-labrefs.md listed
    in docs/labs/README.md."""
    import refs
    from runner import markdown
    labs = names or list(refs.REFS)
    bad = [n for n in labs if n not in refs.REFS]
    if bad:
        print('lab-refs: no such lab: %s (make labs lists them)' %
              ', '.join(bad), file=sys.stderr)
        return 2
    m = Machine()
    out = os.path.join(ROOT, 'build/lab-refs')
    os.makedirs(out, exist_ok=True)
    try:
        results = {n: refs.measure(n, m, out, say=lambda s: print(
            s, file=sys.stderr, flush=True)) for n in labs}
    finally:
        m.stop()
    host = markdown.host_kind(rig=not m.direct)
    md = refs.report(results, host)
    print(md)
    if not no_doc and not names:
        date = time.strftime('%Y-%m-%dT%H:%M:%SZ', time.gmtime())
        path = markdown.publish_run(md, host, 'docs/labs/README.md',
                                    'make lab-refs', '-labrefs', 'labrefs',
                                    date)
        print('lab-refs: wrote %s' % os.path.relpath(path, ROOT),
              file=sys.stderr)
    empty = [n for n, got in results.items() if not any(got.values())]
    return 1 if empty else 0


def list_labs():
    labs = sorted(catalog().values(), key=lambda l: l['number'])
    print('%-3s %-12s %-6s %6s %5s  %s' % ('#', 'lab', 'side', 'points',
                                           'hours', 'files'))
    for lab in labs:
        print('%-3d %-12s %-6s %6d %5s  %s' % (
            lab['number'], lab['name'], lab['side'], points(lab),
            lab['hours'], ' '.join(lab['files'])))
    print('\nmake lab LAB=NAME DIR=PATH: a student tree; make grade there.  '
          'Handouts: docs/labs/.')


def main(argv=None):
    ap = argparse.ArgumentParser(
        prog='labs/lab.py', description=__doc__.split('\n\n')[0],
        formatter_class=argparse.RawDescriptionHelpFormatter,
        epilog='\n\n'.join(__doc__.split('\n\n')[1:]))
    sub = ap.add_subparsers(dest='cmd', required=True)
    sub.add_parser('list', help='the labs')
    m = sub.add_parser('make', help='a student tree')
    m.add_argument('lab')
    m.add_argument('dir')
    m.add_argument('--solution', action='store_true',
                   help='keep the reference code (a teacher\'s tree)')
    g = sub.add_parser('grade', help='build and grade')
    g.add_argument('lab', nargs='*',
                   help='the labs, or all (default: the tree\'s own, from '
                   '.lab)')
    r = sub.add_parser('refs', help='each handout\'s reference numbers, '
                       'measured (make lab-refs)')
    r.add_argument('labs', nargs='*', metavar='LAB')
    r.add_argument('--no-doc', action='store_true',
                   help='print only: no file under docs/results/')
    h = sub.add_parser('handin', help='in a student tree: the tarball to '
                       'hand in')
    h.add_argument('-o', metavar='FILE',
                   help='where (default: handin-LAB.tar.gz here)')
    a = ap.parse_args(argv)
    try:
        if a.cmd == 'list':
            list_labs()
            return 0
        if a.cmd == 'handin':
            out = handin(a.o and os.path.abspath(a.o))
            print('%s: hand this in (the diff, the answers and the last '
                  'grade; tar tzf lists it)' % os.path.relpath(out))
            return 0
        if a.cmd == 'refs':
            return lab_refs(a.labs, a.no_doc)
        if a.cmd == 'make':
            dest = os.path.abspath(os.path.expanduser(a.dir))
            make_tree(a.lab, dest, a.solution)
            print('%s: lab %s%s; cd there, read %s, then make grade' % (
                dest, a.lab, ' with the reference' if a.solution else '',
                catalog()[a.lab]['handout']))
            return 0
        names = a.lab
        if names == ['all']:
            names = [l['name'] for l in sorted(catalog().values(),
                                               key=lambda l: l['number'])]
        if not names:
            try:
                with open(os.path.join(ROOT, LAB_FILE)) as f:
                    names = [f.read().strip()]
            except OSError:
                ap.error('which lab?  make grade LAB=NAME here (this is '
                         'no student tree: no %s)' % LAB_FILE)
        return grade(names)
    except LabError as e:
        print('lab: %s' % e, file=sys.stderr)
        return 2


if __name__ == '__main__':
    sys.exit(main())
