"""irqlab-vmm and Linux images it must refuse (docs/LOADER.md "Linux",
"PVH"): each a clear line on stderr and status 4, on any host (the image
is loaded before /dev/kvm is opened).  The images are synthetic: a
setup header as boot.rst describes, in a few KiB."""
import struct

import pytest

from harness import KERNEL as K, ROOT, VMM, has, status

T = 'build/tests/test_vmm_linux_image'


def bzimage(version=0x020f, xloadflags=1, magic=b'HdrS', init_size=0x300000,
            loadflags=1, size=0x3000):
    """A bzImage as Debian's is, in small: 3 setup sectors, the
    protected-mode kernel after them, pref_address 4 MiB."""
    d = bytearray(size)
    d[0x1f1] = 3
    struct.pack_into('<H', d, 0x1fe, 0xaa55)
    d[0x200:0x202] = b'\xeb\x66'
    d[0x202:0x206] = magic
    struct.pack_into('<H', d, 0x206, version)
    d[0x211] = loadflags
    struct.pack_into('<III', d, 0x22c, 0x7fffffff, 0x200000, 0)
    d[0x234] = 1
    struct.pack_into('<HI', d, 0x236, xloadflags, 2047)
    struct.pack_into('<QI', d, 0x258, 0x400000, init_size)
    return bytes(d)


def image(name, data):
    path = ROOT / T / name
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(data)
    return '%s/%s' % (T, name)


def expect(boot, name, want, pattern, args):
    r = boot.run(name, [VMM] + args, 30)
    status(r, want)
    has(r, pattern, 'err')


BAD = [
    ('truncated', bzimage()[:0x204], [],
     'truncated file: Linux setup header'),
    ('no-kernel', bzimage()[:0x800], [], 'no protected-mode kernel'),
    ('magic', bzimage(magic=b'HdrZ'), [], 'without the "HdrS" magic'),
    ('old', bzimage(version=0x020b), [],
     'Linux boot protocol 2.11 is too old: irqlab-vmm needs 2.12'),
    ('32bit', bzimage(xloadflags=0), [], 'no 64-bit entry point'),
    ('zimage', bzimage(loadflags=0), [], 'zImage'),
    ('large', bzimage(init_size=64 << 20), ['--mem', '16'],
     'Linux kernel too large for guest RAM'),
    ('cmdline', bzimage(), ['-a', 'x' * 3000],
     "longer than the kernel's cmdline_size 2047"),
    ('module', bzimage(), ['--module', K],
     '--module is for multiboot kernels'),
]


@pytest.mark.parametrize('name, data, args, pattern', BAD,
                         ids=[b[0] for b in BAD])
def test_bad_bzimage(boot, name, data, args, pattern):
    expect(boot, name, 4, pattern, args + [image(name + '.bz', data)])


def test_initrd_too_large(boot):
    big = image('big.initrd', bytes(20 << 20))
    expect(boot, 'initrd', 4, 'initrd of 20971520 bytes does not fit',
           ['--mem', '16', '--initrd', big, image('ok.bz', bzimage())])


def test_initrd_missing(boot):
    expect(boot, 'initrd-missing', 4, 'initrd /nonexistent: No such file',
           ['--initrd', '/nonexistent', image('ok.bz', bzimage())])


def test_initrd_for_multiboot(boot):
    expect(boot, 'initrd-mb', 4, '--initrd is for a Linux kernel',
           ['--initrd', K, K])


@pytest.mark.parametrize('args, pattern', [
    (['--kvm-pv', 'maybe'], "--kvm-pv must be off, on, sig, on,base or sig,base, not 'maybe'"),
    (['--initrd='], '--initrd needs a file name'),
])
def test_bad_linux_option(boot, args, pattern):
    expect(boot, 'bad-option', 2, pattern, args + [K])
