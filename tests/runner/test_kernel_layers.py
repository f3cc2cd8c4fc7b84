"""The kernel's layer folders include one way only (docs/ARCHITECTURE.md
"The kernel's layers"): a file includes headers of its own folder by
their bare name and those of a lower layer as "layer/name.h", never one
of a layer above it."""
import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
KERNEL = ROOT / 'kernel'
# lowest first; kernel/main.c and guest-bench/cases/ stand above them all
LAYERS = ['lib', 'arch', 'boot', 'dev', 'sys', 'smp', 'check']
INCLUDE = re.compile(r'^\s*#\s*include\s+"([^"]+)"', re.M)


def sources(folder):
    return sorted(p for p in folder.rglob('*')
                  if p.suffix in ('.c', '.h', '.S'))


def test_every_kernel_source_is_in_a_layer():
    top = sorted(p.name for p in KERNEL.iterdir() if p.is_file())
    assert top == ['kernel.ld', 'main.c'], top
    folders = sorted(p.name for p in KERNEL.iterdir() if p.is_dir())
    assert folders == sorted(LAYERS), folders


def test_includes_go_down_only():
    bad = []
    for src in sources(KERNEL):
        rel = src.relative_to(KERNEL)
        mine = LAYERS.index(rel.parts[0]) if len(rel.parts) > 1 else \
            len(LAYERS)
        for inc in INCLUDE.findall(src.read_text()):
            head = inc.split('/')[0]
            if '/' not in inc:
                # a bare name: this folder's own header (or include/'s)
                if not ((src.parent / inc).exists() or
                        (ROOT / 'include' / inc).exists()):
                    bad.append('%s: "%s" is not in its folder' % (rel, inc))
            elif head in LAYERS:
                if not (KERNEL / inc).exists():
                    bad.append('%s: "%s" does not exist' % (rel, inc))
                elif LAYERS.index(head) > mine:
                    bad.append('%s: "%s" is a layer above' % (rel, inc))
                elif LAYERS.index(head) == mine:
                    bad.append('%s: "%s" is its own folder: "%s"' % (
                        rel, inc, inc.split('/', 1)[1]))
    assert not bad, '\n'.join(bad)


def test_the_benchmark_cases_name_kernel_headers_by_layer():
    bad = []
    for src in sources(ROOT / 'guest-bench' / 'cases'):
        for inc in INCLUDE.findall(src.read_text()):
            if not ((src.parent / inc).exists() or
                    (ROOT / 'include' / inc).exists() or
                    (KERNEL / inc).exists()):
                bad.append('%s: "%s"' % (src.relative_to(ROOT), inc))
    assert not bad, '\n'.join(bad)
