"""kernel/boot/cmdline.c's table of known keys against the code that reads
them: a key read but not in the table works, yet every boot that passes
it reports it ignored (@boot ignored=, docs/RECORDS.md); a key in the
table that nothing reads is never ignored, though it does nothing.  No
boot: the sources only."""
import re

from harness import ROOT

READ = re.compile(r'cmdline_(?:get|uint|parse_uint)\("([A-Za-z0-9_.]+)"')
DIRS = ('kernel', 'guest-bench/cases', 'calib')


def keys_read():
    found = {}
    for d in DIRS:
        for f in sorted((ROOT / d).rglob('*.c')):
            for k in READ.findall(f.read_text()):
                found.setdefault(k, str(f.relative_to(ROOT)))
    return found


def keys_known():
    text = (ROOT / 'kernel/boot/cmdline.c').read_text()
    table = re.search(r'known_keys\[\] = \{(.*?)\};', text, re.S)
    assert table, 'no known_keys[] in kernel/boot/cmdline.c'
    return set(re.findall(r'"([^"]+)"', table.group(1)))


def test_every_key_read_is_known():
    read, known = keys_read(), keys_known()
    assert read, 'no cmdline_get/cmdline_uint call found'
    missing = {k: f for k, f in read.items() if k not in known}
    assert not missing, ('read but not in known_keys[] of kernel/boot/cmdline.c '
                         '(a boot would call them ignored): %s' % missing)


def test_every_known_key_is_read():
    unread = keys_known() - set(keys_read())
    assert not unread, ('in known_keys[] but read nowhere: %s' %
                        sorted(unread))


def test_docs_list_the_keys():
    """docs/RECORDS.md's @boot section lists the same keys."""
    text = (ROOT / 'docs/RECORDS.md').read_text()
    m = re.search(r'The keys: (.*?)\.\n', text, re.S)
    assert m, 'no "The keys: ..." in docs/RECORDS.md'
    listed = set(re.findall(r'`([a-z0-9_]+)`', m.group(1)))
    assert listed == keys_known(), (sorted(listed), sorted(keys_known()))
