"""Every reference doc stays true (README.md, docs/*.md, docs/labs/*.md):
each `make TARGET` it shows is a target of the Makefile; each `--option`
is in the --help of irqlab-vmm or of the repository's tool it belongs to
(or, for another program's option, listed in FOREIGN with that program);
each repository path it names exists; each @record it shows has its
section in docs/RECORDS.md; and no doc names a path outside the
repository."""
import glob
import re
import subprocess

import pytest

from harness import ROOT, VMM

DOCS = sorted(['README.md'] +
              [str(p.relative_to(ROOT)) for p in (ROOT / 'docs').glob('*.md')] +
              [str(p.relative_to(ROOT))
               for p in (ROOT / 'docs' / 'labs').glob('*.md')])
# words after `make` that are prose, not targets
PROSE = {'and', 'sure', 'it', 'the', 'a', 'them', 'that', 'this', 'its',
         'one', 'no', 'up', 'use', 'every', 'each', 'with', 'what', 'any',
         'how', 'all', 'is'}
# the repository's tools whose --help lists their options
TOOLS = ['guest-bench/run', 'guest-bench/anatomy', 'guest-bench/report', 'guest-bench/conformance',
         'guest-bench/linux-bench', 'guest-bench/calib-bench.py',
         'guest-bench/boot-bench', 'guest-bench/grub-bench',
         'scripts/qemu-kvm-cpu', 'scripts/mkiso', 'scripts/build-deps.sh',
         'tests/nested/run-in-kvm.sh', 'tests/nested/fault-rate']
# other programs' options that the docs show, with the program
FOREIGN = {
    '--filter': 'Criterion (build/tests/unit)',
    '--id': "GRUB's menuentry",
    '--recurse': 'apt-cache depends',
    '--args': 'gdb',
    '--durations': 'pytest',
    '--no-api': 'firecracker', '--config-file': 'firecracker',
    '--kernel': 'cloud-hypervisor', '--cmdline': 'cloud-hypervisor',
    '--cpus': 'cloud-hypervisor', '--memory': 'cloud-hypervisor',
    '--serial': 'cloud-hypervisor', '--console': 'cloud-hypervisor',
    '--name': 'VBoxManage', '--ostype': 'VBoxManage',
    '--register': 'VBoxManage', '--uart1': 'VBoxManage',
    '--uartmode1': 'VBoxManage', '--add': 'VBoxManage',
    '--storagectl': 'VBoxManage', '--port': 'VBoxManage',
    '--device': 'VBoxManage', '--type': 'VBoxManage',
    '--medium': 'VBoxManage', '--firmware': 'VBoxManage',
}
# the repository's top folders: a path that starts with one is checked
TOP = ('vmm', 'kernel', 'include', 'calib', 'guest-bench', 'tests', 'labs',
       'scripts', 'docs', '.ci')
PATH = re.compile(r'(?<![\w./-])((?:%s)/[A-Za-z0-9_./*{},\[\]-]*'
                  r'[A-Za-z0-9_*}\]])(?![<\w])'
                  % '|'.join(re.escape(t) for t in TOP))


def text(doc):
    return (ROOT / doc).read_text()


def makefile_targets():
    p = subprocess.run(['make', '-pRrq', '-f', 'Makefile', ':'], cwd=ROOT,
                       capture_output=True, text=True)
    return set(re.findall(r'^([a-zA-Z0-9_.-]+):', p.stdout, re.M))


def known_options():
    out = subprocess.run([str(ROOT / VMM), '--help'], capture_output=True,
                         text=True).stdout
    for tool in TOOLS:
        p = subprocess.run([str(ROOT / tool), '--help'], cwd=ROOT,
                           capture_output=True, text=True, timeout=60)
        out += p.stdout + p.stderr
    return set(re.findall(r'(--[a-z][a-z0-9-]*)', out))


@pytest.fixture(scope='module')
def targets():
    t = makefile_targets()
    assert {'all', 'run', 'test'} <= t, sorted(t)[:20]
    return t


@pytest.fixture(scope='module')
def options():
    return known_options()


def code(doc):
    """The doc's code: inline spans, fenced blocks, indented lines."""
    t = text(doc)
    parts = re.findall(r'^```[^\n]*\n(.*?)^```', t, re.M | re.S)
    t = re.sub(r'^```.*?^```', '', t, flags=re.M | re.S)
    parts += re.findall(r'`([^`\n]+)`', t)
    parts += re.findall(r'^(?: {4}|\t)(.*)$', t, re.M)
    return '\n'.join(parts)


@pytest.mark.parametrize('doc', DOCS)
def test_make_targets_exist(doc, targets):
    shown = set(re.findall(r'\bmake ([a-z][a-z0-9/._-]*)', code(doc)))
    # a file target under build/ is the Makefile's too (make build/x)
    shown = {t for t in shown if not t.startswith('build/')}
    missing = sorted(shown - PROSE - targets)
    assert not missing, '%s shows make targets the Makefile lacks: %s' % (
        doc, ', '.join(missing))


@pytest.mark.parametrize('doc', DOCS)
def test_options_exist(doc, options):
    shown = set(re.findall(r'(?<![\w-])(--[a-z][a-z0-9-]*)', text(doc)))
    missing = sorted(shown - options - set(FOREIGN))
    assert not missing, ('%s shows options that no --help of irqlab-vmm or '
                         'of the repository\'s tools lists: %s' % (
                             doc, ', '.join(missing)))


def exists(path):
    if path.endswith('.o'):         # an object: Kbuild names it by source
        return exists(path[:-2] + '.c') or exists(path[:-2] + '.S')
    if any(c in path for c in '*{['):
        # a pattern: braces as alternatives, then a glob
        alts = [path]
        while any('{' in a for a in alts):
            a = next(a for a in alts if '{' in a)
            alts.remove(a)
            m = re.search(r'\{([^{}]*)\}', a)
            alts += [a[:m.start()] + x + a[m.end():]
                     for x in m.group(1).split(',')]
        return all(glob.glob(str(ROOT / a)) for a in alts)
    return (ROOT / path).exists()


@pytest.mark.parametrize('doc', DOCS)
def test_paths_exist(doc):
    bad = []
    for p in sorted(set(PATH.findall(text(doc)))):
        p = p.rstrip('.,')
        # a placeholder (docs/results/HOST-DATE.md, build/grade/LAB/):
        # a part in capitals (HOST-DATE.md, HOST-DATE-anatomy.md) is not a
        # file's name
        if re.search(r'(^|/)[A-Z][A-Z0-9_-]*(\.|/|$|-[a-z])', p) or \
                p.startswith('docs/results/') and not p.endswith('.md'):
            continue
        if not exists(p):
            bad.append(p)
    assert not bad, '%s names paths the repository lacks: %s' % (
        doc, ', '.join(bad))


@pytest.mark.parametrize('doc', DOCS)
def test_records_are_in_records_md(doc):
    rec = text('docs/RECORDS.md')
    shown = set(re.findall(r'`@([a-z][a-z0-9_]*)', text(doc))) - {'name'}
    missing = sorted(n for n in shown if not re.search(
        r'^#+ .*@%s\b' % n, rec, re.M))
    assert not missing, '%s shows records RECORDS.md has no section for: ' \
        '%s' % (doc, ', '.join('@' + n for n in missing))


@pytest.mark.parametrize('doc', DOCS)
def test_no_path_outside_the_repository(doc):
    # the steering folder beside a checkout, which a clone does not have
    bad = re.findall(r'\.\./shared\b[\w./-]*', text(doc))
    assert not bad, '%s names paths outside the repository: %s' % (
        doc, ', '.join(sorted(set(bad))))
