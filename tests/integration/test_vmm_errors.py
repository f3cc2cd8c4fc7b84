"""irqlab-vmm's handling of bad input: options, missing and malformed
kernels and modules, files that are not files (a directory, a FIFO, a
device), segments that do not fit, each a documented status and a clear
line on stderr (docs/VMM.md, docs/LOADER.md).  Nothing may crash (the
status is the documented one, never a signal), hang (a FIFO with no
writer: each run has 30 s) or leave a file behind.  The image is loaded
before /dev/kvm is opened, so all of this but the last test runs on any
host."""
import os
import re
import struct

import pytest

from harness import KERNEL as K, ROOT, VMM, has, status

T = 'build/tests/test_vmm_errors'
IMG = T + '/img'


@pytest.mark.parametrize('pattern', [
    '--stats-json', '--timeout SECONDS',
    '--no-seccomp', "20  a vCPU or the PIT's timer thread made a system call",
    '18  --timeout ran out', '--kernel FILE'])
def test_help(boot, pattern):
    r = boot.run('help', [VMM, '--help'], 30)
    has(r, pattern)


def test_version(boot):
    r = boot.run('version', [VMM, '--version'], 30)
    has(r, '^irqlab-vmm ')


# (status, a stderr line matching, the arguments)
BAD = [
    (2, "a KERNEL and --kernel: give one; unexpected '%s'" % K,
     ['--kernel', K, K]),
    (2, '--kernel needs a file name, or irqlab', ['--kernel=']),
    (4, 'kernel /nonexistent', ['--kernel', '/nonexistent']),
    (2, "unknown option '--bogus'", ['--bogus', K]),
    (2, 'needs an argument', [K, '--cpus']),
    (2, "--cpus must be a number from 1 to 64, not '0'", ['--cpus', '0', K]),
    (2, '--cpus must be a number', ['--cpus', '2x', K]),
    (2, '--mem must be MiB', ['--mem', '1', K]),
    (2, '--multiboot must be 1 or 2', ['--multiboot', '3', K]),
    (2, '--irqchip must be user, kernel or split', ['--irqchip=both', K]),
    (2, "--trace: unknown class 'pci'", ['--trace=pit,pci', K]),
    (2, 'one KERNEL only', [K, K]),
    (2, "--halt-poll must be microseconds from 0 to 10000, not '10001'",
     ['--halt-poll', '10001', K]),
    (2, '--halt-poll is for --irqchip=user',
     ['--halt-poll', '50', '--irqchip=split', K]),
    (2, "--timeout must be whole seconds from 1 to 1000000, not '0'",
     ['--timeout', '0', K]),
    (2, "--timeout must be whole seconds from 1 to 1000000, not '1000001'",
     ['--timeout', '1000001', K]),
    (2, "--timeout must be whole seconds from 1 to 1000000, not '2s'",
     ['--timeout', '2s', K]),
    (2, "--timeout must be whole seconds from 1 to 1000000, not '-1'",
     ['--timeout=-1', K]),
    (2, "--timeout must be whole seconds from 1 to 1000000, not '1.5'",
     ['--timeout', '1.5', K]),
    (2, "--timeout must be whole seconds from 1 to 1000000, not ''",
     ['--timeout=', K]),
    (2, "option '--timeout' needs an argument", [K, '--timeout']),
    (2, 'stats-json /nonexistent/x.json: No such file',
     ['--stats-json', '/nonexistent/x.json', K]),
    (2, '--stats-json /tmp: a directory', ['--stats-json', '/tmp', K]),
    (2, "option '--x2apic=1' takes no argument", ['--x2apic=1', K]),
    (2, "option '--no-seccomp=yes' takes no argument",
     ['--no-seccomp=yes', K]),
    (2, "unknown option '-z'", ['-z', K]),
    (2, "--cpus must be a number from 1 to 64, not '65'", ['--cpus', '65', K]),
    (2, "--mem must be MiB from 4 to 65536, not '99999999999999999999'",
     ['--mem', '99999999999999999999', K]),
    (2, "--apic-mhz must be MHz from 1 to 10000, not '0'",
     ['--apic-mhz', '0', K]),
    (2, "--hlt must be exit or guest, not 'never'", ['--hlt', 'never', K]),
    (2, "--cpuid-freq must be on, off, 16 or hv, not 'x'",
     ['--cpuid-freq', 'x', K]),
    (2, "--cpu-vendor must be host, intel or amd, not 'via'",
     ['--cpu-vendor', 'via', K]),
    (2, "--ioapic must be optimized or naive, not 'fast'",
     ['--ioapic', 'fast', K]),
    (2, '--trace needs a class', ['--trace=', K]),
    (2, '--module needs a file name', ['--module', ',initrd', K]),
    (2, 'too many --module options', ['--module', K] * 17 + [K]),
    (4, 'kernel /nonexistent: No such file', ['/nonexistent']),
    (4, 'not a regular file', ['/tmp']),
    (4, 'module /nonexistent', ['--module', '/nonexistent', K]),
]


def listing():
    """What irqlab-vmm could leave behind: the tree's top level and the
    images' folder (the runs' own .out/.err live beside it)."""
    return (set(os.listdir(ROOT)),
            set(os.listdir(ROOT / IMG)) if (ROOT / IMG).exists() else set())


def expect(boot, name, want, pattern, args):
    before = listing()
    r = boot.run(name, [VMM] + args, 30)
    status(r, want)
    has(r, pattern, 'err')
    assert listing() == before, '%s: files left behind: %s' % (
        name, [sorted(a - b) for a, b in zip(listing(), before)])
    return r


@pytest.mark.parametrize('want, pattern, args', BAD,
                         ids=[' '.join('K' if x == K else x for x in a)
                              or 'none' for _, _, a in BAD])
def test_bad_option(boot, want, pattern, args):
    expect(boot, 'bad-option', want, pattern, args)


def test_no_kernel_found(boot):
    """No KERNEL and no irqlab kernel where irqlab-vmm looks (a copy of
    the binary with no kernel beside it): a usage error naming where it
    looked.  Skipped where make install put a kernel in the compiled-in
    place, which the copy would find."""
    lone = ROOT / T / 'lone'
    lone.mkdir(parents=True, exist_ok=True)
    vmm = lone / 'irqlab-vmm'
    vmm.write_bytes((ROOT / VMM).read_bytes())
    vmm.chmod(0o755)
    r = boot.run('no-kernel', [vmm], 30)
    if r.status != 2 and 'no irqlab kernel found' not in r.err:
        pytest.skip('an installed irqlab kernel is on this host: %s' %
                    r.report())
    status(r, 2)
    has(r, r'no KERNEL given, and no irqlab kernel found \(looked at '
        r'%s/../share/irqlab/irqlab.elf, %s/kernel/irqlab.elf, '
        r'/.*/share/irqlab/irqlab.elf; make install puts it there\)' % (
            re.escape(str(lone)), re.escape(str(lone))), 'err')


def image(name, data):
    path = ROOT / IMG / name
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(data)
    return '%s/%s' % (IMG, name)


def test_empty_image(boot):
    expect(boot, 'empty', 4, 'no multiboot header', [image('empty', b'')])


def test_random_image(boot):
    expect(boot, 'random', 4, 'multiboot',
           [image('random', os.urandom(4096))])


def test_truncated_image(boot):
    # the headers intact (they sit at 0x1000), the segments cut off
    cut = (ROOT / K).read_bytes()[:6000]
    expect(boot, 'cut', 4, ': .*(truncated|past the end)',
           [image('cut.elf', cut)])


def test_bad_mb2_checksum(boot):
    # the multiboot2 header's checksum is its 4th dword
    d = bytearray((ROOT / K).read_bytes())
    for off in range(0, 32768, 8):
        if struct.unpack_from('<I', d, off)[0] == 0xe85250d6:
            d[off + 12] ^= 0xff
            break
    else:
        pytest.fail('no multiboot2 header in the kernel')
    expect(boot, 'badsum', 4, 'checksum',
           ['--multiboot', '2', image('badsum', bytes(d))])


def test_no_kvm(boot):
    """A good kernel on a host without KVM: a clear error, not a crash."""
    if os.path.exists('/dev/kvm'):
        pytest.skip('the no-KVM error: this host has a /dev/kvm')
    expect(boot, 'no-kvm', 6,
           '/dev/kvm: .*KVM is not available on this host: (the kernel has '
           'KVM|the CPU shows|the kvm module).*; make run-nested', [K])


# ---- files that are not images, and images that do not fit -----------------

def fifo(name):
    """A FIFO nobody writes: opening it blocking would hang."""
    path = ROOT / IMG / name
    path.parent.mkdir(parents=True, exist_ok=True)
    if not path.exists():
        os.mkfifo(path)
    return '%s/%s' % (IMG, name)


def folder(name):
    (ROOT / IMG / name).mkdir(parents=True, exist_ok=True)
    return '%s/%s' % (IMG, name)


def sparse(name, size):
    """A file of @size bytes that takes no disk space."""
    path = ROOT / IMG / name
    path.parent.mkdir(parents=True, exist_ok=True)
    with open(path, 'wb') as f:
        f.truncate(size)
    return '%s/%s' % (IMG, name)


def patched(name, seg, **fields):
    """The kernel with PT_LOAD number @seg's fields changed (ELF64
    program header: p_type p_flags p_offset p_vaddr p_paddr p_filesz
    p_memsz p_align)."""
    d = bytearray((ROOT / K).read_bytes())
    phoff, = struct.unpack_from('<Q', d, 0x20)
    phentsize, phnum = struct.unpack_from('<HH', d, 0x36)
    names = ('type', 'flags', 'offset', 'vaddr', 'paddr', 'filesz', 'memsz',
             'align')
    loads = [phoff + i * phentsize for i in range(phnum)
             if struct.unpack_from('<I', d, phoff + i * phentsize)[0] == 1]
    ph = dict(zip(names, struct.unpack_from('<IIQQQQQQ', d, loads[seg])))
    ph.update(fields)
    struct.pack_into('<IIQQQQQQ', d, loads[seg], *(ph[n] for n in names))
    return image(name, bytes(d))


# (name, status, a stderr line matching, a function giving the arguments)
FILES = [
    ('kernel-missing', 4, 'kernel %s/none: No such file or directory$' % IMG,
     lambda: [IMG + '/none']),
    ('kernel-empty', 4, 'no multiboot header', lambda: [image('empty', b'')]),
    ('kernel-directory', 4, ': a directory, not a regular file$',
     lambda: [folder('dir')]),
    ('kernel-fifo', 4, ': a FIFO, not a regular file$',
     lambda: [fifo('fifo')]),
    ('kernel-chardev', 4,
     '^irqlab-vmm: kernel /dev/null: a character device, not a regular file$',
     lambda: ['/dev/null']),
    ('module-missing', 4, 'module %s/none: No such file' % IMG,
     lambda: ['--module', IMG + '/none', K]),
    ('module-directory', 4, '^irqlab-vmm: module .*: a directory, not a',
     lambda: ['--module', folder('dir') + ',initrd', K]),
    ('module-fifo', 4, '^irqlab-vmm: module .*: a FIFO, not a regular file$',
     lambda: ['--module', fifo('fifo'), K]),
    # p_memsz of the bss segment near 4 GiB, and so large paddr + memsz
    # wraps: neither fits in 64 MiB of RAM
    ('segment-huge', 4, r'segment \[0x[0-9a-f]+, \+0xfff00000\) outside guest '
     'RAM', lambda: [patched('huge.elf', 1, memsz=0xfff00000)]),
    ('segment-wraps', 4, r'segment \[0x[0-9a-f]+, \+0xffffffffffffffff\) '
     'outside guest RAM',
     lambda: [patched('wrap.elf', 1, memsz=(1 << 64) - 1)]),
    # the ACPI tables live at 0xe0000 (docs/ACPI.md)
    ('segment-in-acpi', 4, r'segment \[0xf0000, \+0x1000\) in the reserved '
     r'BIOS area \[0x9fc00, 0x100000\): .*ACPI tables',
     lambda: [patched('acpi.elf', 1, paddr=0xf0000, memsz=0x1000)]),
    ('segment-into-acpi', 4, 'in the reserved BIOS area',
     lambda: [patched('acpi2.elf', 1, paddr=0xdf000, memsz=0x2000)]),
    ('kernel-past-ram', 4, 'outside guest RAM', lambda: ['--mem', '4', K]),
    ('module-past-ram', 4, 'not enough guest memory for modules/boot info',
     lambda: ['--module', sparse('initrd-80m', 80 << 20) + ',initrd', K]),
    ('modules-past-ram', 4, 'not enough guest memory for modules/boot info',
     lambda: ['--mem', '16'] + ['--module', sparse('mod-6m', 6 << 20)] * 3
     + [K]),
]


@pytest.mark.parametrize('name, want, pattern, args', FILES,
                         ids=[f[0] for f in FILES])
def test_bad_file(boot, name, want, pattern, args):
    r = expect(boot, name, want, pattern, args())
    assert r.seconds < 25, '%s: took %.1f s' % (name, r.seconds)
    assert len(r.lines('err')) == 1, '%s: more than one line\n%s' % (
        name, r.report())


@pytest.mark.kvm_or_nested('the JSON is written when the guest has ended')
def test_stats_json_fifo(boot):
    """--stats-json to a FIFO nobody reads: a warning, not a hang; the
    guest's status stays.  In the rig the FIFO is made in its own /tmp:
    one on the 9p share would be opened by QEMU's 9p server, not by
    irqlab-vmm."""
    if boot.nested:
        r = boot.in_kvm('json-fifo', [
            'sh', '-c', 'mkfifo /tmp/json-fifo && exec "$@"', 'sh', VMM,
            '--stats-json', '/tmp/json-fifo', K], 60)
    else:
        r = boot.run('json-fifo', [VMM, '--stats-json', fifo('json-fifo'),
                                   K], 60)
    status(r, 0)
    has(r, r'^irqlab-vmm: --stats-json .*json-fifo: .*\(a FIFO nobody '
        r'reads\)$', 'err')


def test_stats_json_not_left(boot):
    """--stats-json is created only for the report: a run that fails
    before it (here, on the kernel) leaves no file."""
    path = ROOT / IMG / 'late.json'
    path.unlink(missing_ok=True)
    expect(boot, 'json-not-left', 4, 'no multiboot header',
           ['--stats-json', str(path), image('empty', b'')])
    assert not path.exists(), 'json-not-left: %s left behind' % path


@pytest.mark.kvm_or_nested('the JSON is written when the guest has ended')
def test_stats_json_made(boot):
    path = ROOT / IMG / 'made.json'
    path.unlink(missing_ok=True)
    r = boot.in_kvm('json-made', [VMM, '--stats-json', str(path), K], 60)
    status(r, 0)
    assert path.read_text().startswith('{'), path


def test_pvh_without_note(boot):
    """--pvh on an image with no Xen PVH note (irqlab32.elf: an ELF32)."""
    expect(boot, 'pvh-no-note', 4, 'no Xen PVH entry',
           ['--pvh', 'build/kernel/irqlab32.elf'])
