#!/usr/bin/python3
"""Write the loader harness's seed corpus, tests/fuzz/corpus/loader/.

From build/kernel/irqlab.elf and irqlab32.elf (make all) and two of the tiny
long-mode test guests (tests/integration/*.S, built here like harness.py
builds them): each stripped, then padded with zeros so that its length
picks a protocol (fuzz_loader.c: len % 3; 8 MiB RAM); plus truncated
and edited variants (the headers only, the program headers cut off, a huge
bss, an entry point outside the image, a segment in the BIOS area, one
low in RAM).
Run from the top of the tree:  /usr/bin/python3 tests/fuzz/seeds_loader.py
"""
import os
import struct
import subprocess
import sys
import tempfile

OUT = 'tests/fuzz/corpus/loader'


def stripped(path):
    with tempfile.NamedTemporaryFile(suffix='.elf') as t:
        subprocess.run(['strip', '--strip-all', '-o', t.name, path],
                       check=True)
        with open(t.name, 'rb') as f:
            return f.read()


def guest(src):
    with tempfile.TemporaryDirectory() as d:
        obj, elf = os.path.join(d, 'g.o'), os.path.join(d, 'g.elf')
        subprocess.run(['gcc', '-Itests/integration', '-c', src, '-o', obj],
                       check=True)
        subprocess.run(['ld', '-m', 'elf_x86_64', '-Ttext', '0x100000', '-N',
                        '-e', 'start', '--no-warn-rwx-segments', '-o', elf,
                        obj], check=True)
        return stripped(elf)


def pad(data, proto):
    """Zeros after the image so len % 6 == proto (big RAM)."""
    return data + bytes((proto - len(data)) % 6)


def phdr_fmt(data):
    """(offset of program header 0, entry size, struct format of one)."""
    if data[4] == 2:
        return struct.unpack_from('<Q', data, 32)[0], 56, '<IIQQQQQQ'
    return struct.unpack_from('<I', data, 28)[0], 32, '<IIIIIIII'


def edit_phdr(data, i, field, value):
    """Set p_<field> of program header i (ELF32 or ELF64)."""
    off, size, fmt = phdr_fmt(data)
    names = (['type', 'flags', 'offset', 'vaddr', 'paddr', 'filesz',
              'memsz', 'align'] if data[4] == 2 else
             ['type', 'offset', 'vaddr', 'paddr', 'filesz', 'memsz',
              'flags', 'align'])
    v = list(struct.unpack_from(fmt, data, off + i * size))
    v[names.index(field)] = value
    b = bytearray(data)
    struct.pack_into(fmt, b, off + i * size, *v)
    return bytes(b)


def write(name, data):
    with open(os.path.join(OUT, name), 'wb') as f:
        f.write(data)
    print('%-32s %7d bytes' % (name, len(data)))


def main():
    os.makedirs(OUT, exist_ok=True)
    k64 = stripped('build/kernel/irqlab.elf')
    k32 = stripped('build/kernel/irqlab32.elf')
    # the kernel as irqlab-vmm and QEMU load it, one protocol each
    write('irqlab.elf.p0', pad(k64, 0))
    write('irqlab.elf.p2', pad(k64, 2))
    write('irqlab32.elf.p1', pad(k32, 1))
    write('irqlab.elf.header', pad(k64[:0x1400], 0))
    off, size, _ = phdr_fmt(k64)
    write('irqlab.elf.cut-phdrs', pad(k64[:off + size + 8], 0))
    # the tiny guests, each protocol, and edited
    for g in ('timeout-spin', 'pit-irq'):
        img = guest('tests/integration/%s.S' % g)
        for proto in range(3):
            write('%s.elf.p%d' % (g, proto), pad(img, proto))
    img = guest('tests/integration/timeout-spin.S')
    write('spin.huge-bss', pad(edit_phdr(img, 0, 'memsz', 1 << 40), 0))
    write('spin.bios-seg', pad(edit_phdr(img, 0, 'paddr', 0x9f000), 1))
    write('spin.low-seg', pad(edit_phdr(img, 0, 'paddr', 0x1000), 1))
    e = bytearray(img)
    struct.pack_into('<Q', e, 24, 0x7fff0000)
    write('spin.bad-entry', pad(bytes(e), 0))
    return 0


if __name__ == '__main__':
    sys.exit(main())
