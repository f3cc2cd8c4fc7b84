"""The README stays true: its first screen shows what irqlab is and the
two commands, and its excerpt of `make run` is made of records the one
parser reads (records.py), with the records that `make run` prints.  Its
make targets, options, paths and records are test_docs.py's, as every
doc's."""
import re
import subprocess

from harness import ROOT, records

README = (ROOT / 'README.md').read_text()


def test_first_screen():
    first = README.splitlines()[:25]
    text = '\n'.join(first)
    assert first[0] == '# irqlab'
    assert 'virtual machine' in text and 'kernel' in text
    for cmd in ('make run', 'make test'):
        assert re.search(r'^    %s\b' % cmd, text, re.M), \
            'the first screen does not show `%s` as a command' % cmd


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
