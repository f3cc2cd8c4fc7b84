"""make install and make uninstall into a temporary DESTDIR, and
irqlab-vmm(1): the installed binary answers --version, `man -l` renders
its page without a warning, every option --help lists is in the page,
and the installed irqlab-vmm with no KERNEL boots the installed kernel
(directly on /dev/kvm, else in the nested rig)."""
import os
import re
import shutil
import subprocess

import pytest

import harness
from harness import ROOT, has, line, status

PREFIX = '/usr/local'
DEST = ROOT / harness.OUT / 'test_install' / 'dest'
BIN = DEST / PREFIX.lstrip('/') / 'bin' / 'irqlab-vmm'
DATA = DEST / PREFIX.lstrip('/') / 'share' / 'irqlab'
PAGE = DEST / PREFIX.lstrip('/') / 'share' / 'man' / 'man1' / 'irqlab-vmm.1'


def make(*args):
    p = subprocess.run(['make', '--no-print-directory', *args,
                        'DESTDIR=%s' % DEST, 'PREFIX=%s' % PREFIX],
                       cwd=ROOT, capture_output=True, text=True)
    assert p.returncode == 0, 'make %s: status %d\n%s%s' % (
        ' '.join(args), p.returncode, p.stdout, p.stderr)
    return p


@pytest.fixture(scope='module')
def installed(built):
    for tool in ('help2man', 'man'):
        if not shutil.which(tool):
            pytest.fail('%s is not installed (scripts/test-deps.sh installs '
                        'it)' % tool, pytrace=False)
    shutil.rmtree(DEST, ignore_errors=True)
    make('install')
    return DEST


def test_install_lays_out_the_files(installed):
    for f in (BIN, DATA / 'irqlab.elf', DATA / 'irqlab32.elf',
              DATA / 'irqlab-pvh.elf', PAGE):
        assert f.is_file(), '%s was not installed' % f
    assert os.access(BIN, os.X_OK)
    iso = ROOT / 'build' / 'irqlab.iso'
    assert (DATA / 'irqlab.iso').is_file() == iso.is_file(), \
        'the ISO is installed exactly when make iso built it'


def test_installed_version(installed):
    p = subprocess.run([str(BIN), '--version'], capture_output=True,
                       text=True)
    assert p.returncode == 0 and re.match(r'^irqlab-vmm \S+\n$', p.stdout), \
        '%s --version: status %d: %r' % (BIN, p.returncode, p.stdout)


def render(page):
    p = subprocess.run(['man', '--warnings', '-E', 'UTF-8', '-l', str(page)],
                       capture_output=True, text=True,
                       env=dict(os.environ, MANWIDTH='200', MAN_KEEP_FORMATTING='',
                                MANPAGER='cat', PAGER='cat'))
    return p


def test_man_page_renders_without_warnings(installed):
    p = render(PAGE)
    assert p.returncode == 0, 'man -l: status %d: %s' % (p.returncode,
                                                          p.stderr)
    assert p.stderr.strip() == '', 'man --warnings -l %s warns:\n%s' % (
        PAGE, p.stderr)
    for section in ('NAME', 'SYNOPSIS', 'DESCRIPTION', 'EXAMPLES', 'FILES',
                    'SEE ALSO'):
        assert re.search(r'^%s$' % section, p.stdout, re.M), \
            'the page has no %s section' % section
    assert '%s/share/irqlab/irqlab.elf' % PREFIX in p.stdout


def test_man_page_has_every_option(installed):
    helptext = subprocess.run([str(BIN), '--help'], capture_output=True,
                              text=True).stdout
    opts = set(re.findall(r'^\s+(?:(-[a-zA-Z]), )?(--[a-z0-9-]+)',
                          helptext, re.M))
    assert len(opts) > 20, 'too few options parsed from --help: %s' % opts
    # one line per word, no hyphenation (MANWIDTH=200); a backslash-minus
    # renders as '-' or U+2212
    text = render(PAGE).stdout.replace('\u2212', '-').replace('\u2010', '-')
    missing = [o for pair in opts for o in pair
               if o and not re.search(r'(^|[\s,\[])%s\b' % re.escape(o),
                                      text)]
    assert not missing, 'options in --help but not in irqlab-vmm(1): %s' % (
        ', '.join(sorted(missing)))


@pytest.mark.kvm_or_nested
def test_installed_vmm_boots_the_installed_kernel(installed, boot):
    """No KERNEL: irqlab-vmm finds ../share/irqlab/irqlab.elf beside
    itself (in the rig too: it runs the host's tree)."""
    r = boot.in_kvm('installed', [BIN, '--stats', '-a', 'hello'], 60)
    status(r, 0)
    has(r, r'^@boot ')
    line(r, r'@ready tsc=[0-9]+')
    has(r, r'argv\[0\] ".*share/irqlab/irqlab.elf" \(the kernel path\)')


def test_uninstall_removes_them(installed):
    make('uninstall')
    for f in (BIN, DATA / 'irqlab.elf', DATA / 'irqlab32.elf',
              DATA / 'irqlab-pvh.elf', PAGE,
              DATA / 'irqlab.iso'):
        assert not f.exists(), 'make uninstall left %s' % f
    assert not DATA.exists(), 'make uninstall left %s' % DATA
