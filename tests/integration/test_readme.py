"""The README stays true: its first screen shows what irqlab is and the
two commands; every `make TARGET` it shows is a target of the Makefile;
every `--option` it shows is one irqlab-vmm's --help lists; its excerpt
of `make run` is made of records the one parser reads (records.py), with
the records that `make run` prints."""
import re
import subprocess

from harness import ROOT, VMM, records

README = (ROOT / 'README.md').read_text()
# words after `make` that are prose, not targets
PROSE = {'and', 'sure', 'it', 'the'}


def makefile_targets():
    """Every target GNU make knows from the Makefile (its database)."""
    p = subprocess.run(['make', '-pRrq', '-f', 'Makefile', ':'], cwd=ROOT,
                       capture_output=True, text=True)
    return set(re.findall(r'^([a-zA-Z0-9_.-]+):', p.stdout, re.M))


def test_first_screen():
    first = README.splitlines()[:25]
    text = '\n'.join(first)
    assert first[0] == '# irqlab'
    assert 'virtual machine' in text and 'kernel' in text
    for cmd in ('make run', 'make test'):
        assert re.search(r'^    %s\b' % cmd, text, re.M), \
            'the first screen does not show `%s` as a command' % cmd


def test_make_targets_exist():
    targets = makefile_targets()
    assert {'all', 'run', 'test'} <= targets, 'cannot read the Makefile\'s ' \
        'targets: %s' % sorted(targets)[:20]
    shown = set(re.findall(r'\bmake ([a-z][a-z0-9-]*)', README)) - PROSE
    missing = sorted(shown - targets)
    assert not missing, 'README shows make targets the Makefile lacks: %s' % (
        ', '.join(missing))


def test_vmm_options_exist():
    helptext = subprocess.run([str(ROOT / VMM), '--help'],
                              capture_output=True, text=True).stdout
    known = set(re.findall(r'(--[a-z][a-z0-9-]*)', helptext))
    shown = set(re.findall(r'(--[a-z][a-z0-9-]*)', README))
    missing = sorted(shown - known)
    assert not missing, 'README shows options irqlab-vmm --help lacks: %s' % (
        ', '.join(missing))


def test_make_run_excerpt_is_real_records():
    m = re.search(r'^```\n\$ make run\n(.*?)^```$', README, re.M | re.S)
    assert m, 'README has no ```$ make run``` excerpt'
    bad = []
    recs = records.parse_text(m.group(1), bad)
    assert not bad, 'malformed records in the README\'s excerpt: %s' % bad
    names = {r.name for r in recs}
    for want in ('calib', 'smp', 'ipi_check', 'bench', 'ready'):
        assert want in names, 'the excerpt has no @%s record' % want
    assert re.search(r'^irqlab-vmm exits: \d+ total', m.group(1), re.M), \
        'the excerpt has no exit table'
    # the command it shows is the one make run runs
    run = subprocess.run(['make', '-n', '--no-print-directory', 'run-nested'],
                         cwd=ROOT, capture_output=True, text=True).stdout
    assert 'check=ipi bench=ipi_pingpong,ipi_wake' in run
