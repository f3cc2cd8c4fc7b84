"""The lab course stays honest (docs/labs/README.md): for every lab of
labs/catalog.toml,

- a student tree (labs/lab.py make) builds, keeps no marker, and its
  untouched stubs score below full marks, with every core check at 0: a
  grader that cannot fail is caught;
- the reference, this tree, scores full marks (one `lab.py grade all`).

The student trees go to build/tests/labs/; each starts from a copy of
this tree's objects, so only what the lab changed is compiled.  Boots go
to /dev/kvm or the nested rig, as `make grade` does; a check that cannot
run here is SKIPPED by the grader, and the reference test then skips,
saying which."""
import json
import os
import re
import shlex
import shutil
import subprocess
import sys
import tomllib

import pytest

from harness import ROOT

PY = sys.executable
LAB = str(ROOT / 'labs/lab.py')
OUT = ROOT / 'build/tests/labs'
with open(ROOT / 'labs/catalog.toml', 'rb') as _f:
    CATALOG = {l['name']: l for l in tomllib.load(_f)['lab']}
LABS = sorted(CATALOG, key=lambda n: CATALOG[n]['number'])


def result(root, lab):
    with open(os.path.join(root, 'build/grade', lab, 'result.json')) as f:
        return json.load(f)


def table(res):
    return '\n'.join('  %-7s %d/%d %s: %s' % (c['state'], c['earned'],
                                               c['points'], c['name'],
                                               c['detail'])
                     for c in res['checks'])


@pytest.fixture(scope='module')
def reference():
    """`lab.py grade all` in this tree: its output."""
    p = subprocess.run([PY, LAB, 'grade', 'all'], cwd=ROOT,
                       capture_output=True, text=True, timeout=1800)
    return p


def test_labs_listed():
    p = subprocess.run([PY, LAB, 'list'], capture_output=True, text=True,
                       timeout=60)
    assert p.returncode == 0, p.stderr
    assert len(LABS) >= 8, LABS
    for n in LABS:
        assert (ROOT / CATALOG[n]['handout']).is_file(), \
            '%s: no handout %s' % (n, CATALOG[n]['handout'])
        assert any(c.get('core') for c in CATALOG[n]['check']), \
            '%s has no core check' % n
        assert n in p.stdout


@pytest.mark.parametrize('lab', LABS)
def test_reference_scores_full(reference, lab):
    res = result(ROOT, lab)
    skipped = [c for c in res['checks'] if c['state'] == 'SKIPPED']
    if skipped:
        pytest.skip('%s: %d check(s) cannot run here: %s' % (
            lab, len(skipped), skipped[0]['detail']))
    assert res['score'] == res['total'], \
        '%s: the reference scores %d/%d\n%s\n%s' % (
            lab, res['score'], res['total'], table(res),
            reference.stdout[-3000:])


def seed_build(tree):
    """This tree's objects into the student tree, times kept: make then
    compiles only the files the lab changed."""
    for d in ('host', 'guest', 'pure-include'):
        src = ROOT / 'build' / d
        if src.is_dir():
            shutil.copytree(src, tree / 'build' / d, dirs_exist_ok=True)
    if (ROOT / 'build/version.h').exists():
        shutil.copy2(ROOT / 'build/version.h', tree / 'build/version.h')


FOREIGN_PROJECT = re.compile(r"Linux|bhyve|KVM's|QEMU|Xen|kvm/|arch/x86")


def handout_functions(text):
    """`name()` in the handout, but those on a line naming another
    project (Linux's __kvm_apic_update_irr(), bhyve's vioapic_write())."""
    names = set()
    for line in text.splitlines():
        if FOREIGN_PROJECT.search(line):
            continue
        names |= set(re.findall(r'`([A-Za-z_][A-Za-z0-9_]*)\(\)`', line))
    return sorted(names)


def defined_in_tree(tree, name):
    pat = re.compile(r'\b%s\s*\(' % re.escape(name))
    for d in ('vmm', 'kernel', 'calib', 'guest-bench', 'include', 'tests'):
        for p in (tree / d).rglob('*'):
            if p.suffix in ('.c', '.h') and pat.search(
                    p.read_text(errors='replace')):
                return True
    return False


@pytest.mark.parametrize('lab', LABS)
def test_student_tree(lab):
    tree = OUT / lab
    shutil.rmtree(tree, ignore_errors=True)
    p = subprocess.run([PY, LAB, 'make', lab, str(tree)],
                       capture_output=True, text=True, timeout=300)
    assert p.returncode == 0, p.stderr
    # no marker is left, and the lab's files say where to write
    for f in CATALOG[lab]['files']:
        text = (tree / f).read_text()
        assert 'LAB %s: your code here.' % lab in text, f
        assert ': begin\n' not in text and ': end */' not in text, f
    log = subprocess.run(['git', 'log', '--oneline'], cwd=tree,
                         capture_output=True, text=True)
    assert len(log.stdout.splitlines()) == 1, log.stdout
    seed_build(tree)
    g = subprocess.run([PY, 'labs/lab.py', 'grade'], cwd=tree,
                       capture_output=True, text=True, timeout=1800)
    res = result(tree, lab)
    assert res['built'], '%s: the student tree does not build\n%s' % (
        lab, (tree / 'build/grade' / lab / 'build.log').read_text()[-3000:])
    assert g.returncode == 1 and res['score'] < res['total'], \
        '%s: the stubs score %d/%d (status %d)\n%s' % (
            lab, res['score'], res['total'], g.returncode, table(res))
    core = [c for c in res['checks'] if c['core']]
    assert core and all(c['earned'] == 0 for c in core), \
        '%s: a core check earns points on the stubs\n%s' % (lab, table(res))
    # the handout's "Getting started" shows this grade's checks
    handout = (tree / CATALOG[lab]['handout']).read_text()
    start = handout.split('## Getting started', 1)[1].split('\n## ', 1)[0]
    for c in res['checks']:
        assert c['name'] in start, '%s: the handout\'s Getting started ' \
            'lacks the check %r' % (lab, c['name'])
    assert 'Score: %d/%d' % (res['score'], res['total']) in start or \
        '/%d ' % res['total'] in start, start
    # every function the handout names is in the student's tree: none of
    # them is one the lab's region deletes (another project's, named with
    # its project, aside)
    missing = [f for f in handout_functions(handout)
               if not defined_in_tree(tree, f)]
    assert not missing, '%s: the handout names functions the student ' \
        'tree lacks: %s' % (lab, ', '.join(missing))


def test_solution_tree_is_the_source(tmp_path):
    """--solution: the reference kept, only the markers gone."""
    tree = tmp_path / 'ipi'
    p = subprocess.run([PY, LAB, 'make', 'ipi', str(tree), '--solution'],
                       capture_output=True, text=True, timeout=300)
    assert p.returncode == 0, p.stderr
    for lab in LABS:
        for f in CATALOG[lab]['files']:
            src = (ROOT / f).read_text().split('\n')
            got = (tree / f).read_text().split('\n')
            kept = [l for l in got if 'your code here' not in l]
            assert kept == got, f
            # every source line is there but the markers' comments
            assert set(got) <= set(src), f
            assert len(got) < len(src), '%s: no marker removed' % f


def test_handin(tmp_path):
    """make lab puts the handout's questions in answers-LAB.md; make handin
    refuses the template and a tree never graded, then packs the diff
    against the starting tree (new files too), the answers and the grade."""
    import tarfile
    tree = tmp_path / 'pir'
    p = subprocess.run([PY, LAB, 'make', 'pir', str(tree)],
                       capture_output=True, text=True, timeout=300)
    assert p.returncode == 0, p.stderr
    answers = tree / 'answers-pir.md'
    text = answers.read_text()
    assert text.startswith('# Lab 6, pir: your answers'), text[:200]
    assert '> ' in text and 'make bench-pir' in text, text
    assert 'Reference' not in text, 'the reference numbers are given away'

    def handin():
        return subprocess.run(['make', '--no-print-directory', 'handin'],
                              cwd=tree, capture_output=True, text=True,
                              timeout=120)
    h = handin()
    assert h.returncode != 0 and 'still the template' in h.stderr, h
    answers.write_text(text + '\nThe fold costs one load when empty.\n')
    h = handin()
    assert h.returncode != 0 and 'make grade first' in h.stderr, h
    res = tree / 'build/grade/pir/result.json'
    res.parent.mkdir(parents=True)
    res.write_text('{"lab": "pir", "score": 0, "total": 100}\n')
    (tree / 'vmm/irqchip/pir.c').write_text(
        (tree / 'vmm/irqchip/pir.c').read_text() + '/* mine */\n')
    (tree / 'notes.txt').write_text('a new file\n')
    h = handin()
    assert h.returncode == 0, h
    with tarfile.open(tree / 'handin-pir.tar.gz') as t:
        names = sorted(t.getnames())
        assert names == ['handin-pir/answers-pir.md', 'handin-pir/pir.diff',
                         'handin-pir/result.json'], names
        diff = t.extractfile('handin-pir/pir.diff').read().decode()
    assert '+/* mine */' in diff and 'notes.txt' in diff, diff
    assert 'answers-pir.md' not in diff, 'the answers are a file of their own'
    # the student's own index is untouched
    st = subprocess.run(['git', 'status', '--porcelain'], cwd=tree,
                        capture_output=True, text=True).stdout
    assert '?? notes.txt' in st, st


GRADESCOPE_TEST = {'name', 'score', 'max_score', 'output', 'status'}


def test_gradescope_results(reference):
    """make grade also writes Gradescope's autograder results.json: a
    total score and tests[], each with name, score, max_score, output and
    status (passed or failed), scores that add up."""
    for lab in LABS:
        with open(ROOT / 'build/grade' / lab / 'results.json') as f:
            gs = json.load(f)
        res = result(ROOT, lab)
        assert isinstance(gs['score'], (int, float))
        assert gs['score'] == res['score']
        assert len(gs['tests']) == len(res['checks'])
        for t, c in zip(gs['tests'], res['checks']):
            assert set(t) == GRADESCOPE_TEST, t
            assert t['max_score'] == c['points'] and \
                t['score'] == c['earned'], t
            assert t['status'] in ('passed', 'failed'), t
        assert sum(t['score'] for t in gs['tests']) == gs['score']


def measurement(lab):
    """The first `scripts/vmm ...` command of the lab's "Measure and
    explain", as the handout writes it."""
    text = (ROOT / CATALOG[lab]['handout']).read_text()
    part = text.split('## Measure and explain', 1)[1]
    m = re.search(r'`(scripts/vmm [^`]+)`', part)
    return shlex.split(m.group(1)) if m else None


@pytest.mark.parametrize('lab', LABS)
def test_measurement_runs_on_any_host(lab):
    """Each handout's measurement runs as written through scripts/vmm: on
    /dev/kvm, or in the nested rig where there is none (a laptop VM)."""
    cmd = measurement(lab)
    if cmd is None:
        # lab 6 measures on the host: make bench-pir, no VM
        assert 'make bench-pir' in (ROOT / CATALOG[lab]['handout']).read_text()
        return
    p = subprocess.run(cmd, cwd=ROOT, capture_output=True, text=True,
                       timeout=600)
    if p.returncode == 77:
        pytest.skip('%s: the nested rig cannot run here: %s' % (
            lab, p.stderr.strip()[-300:]))
    assert p.returncode == 0, '%s: %s: status %d\n%s\n%s' % (
        lab, ' '.join(cmd), p.returncode, p.stdout[-2000:], p.stderr[-2000:])
    assert re.search(r'^@ready ', p.stdout, re.M), p.stdout[-2000:]


@pytest.mark.parametrize('lab', LABS)
def test_handout_shape(lab):
    """Each handout: Getting started, every step tagged with its
    difficulty, the questions, and an optional challenge to measure."""
    text = (ROOT / CATALOG[lab]['handout']).read_text()
    for h in ('## Getting started', '## Steps', '## Measure and explain',
              '## Optional challenge (measured, not graded)'):
        assert h in text, '%s: no %r' % (lab, h)
    steps = text.split('## Steps', 1)[1].split('\n## ', 1)[0]
    numbered = re.findall(r'^\d+\. (.*)$', steps, re.M)
    assert numbered, lab
    untagged = [s for s in numbered
                if not re.match(r'\*\((easy|moderate|hard)\)\* ', s)]
    assert not untagged, '%s: steps with no difficulty: %s' % (lab,
                                                                untagged)
