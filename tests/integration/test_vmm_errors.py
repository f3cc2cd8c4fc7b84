"""irqlab-vmm's handling of bad input: options, missing and malformed
kernels, each a documented status and a clear line on stderr
(docs/VMM.md).  The image is loaded before /dev/kvm is opened, so all of
this runs on any host."""
import os
import struct

import pytest

from harness import KERNEL as K, ROOT, VMM, has, status

T = 'build/tests/test_vmm_errors'


@pytest.mark.parametrize('pattern', [
    '--stats-json', '--timeout SECONDS', '18 --timeout ran out'])
def test_help(boot, pattern):
    r = boot.run('help', [VMM, '--help'], 30)
    has(r, pattern)


def test_version(boot):
    r = boot.run('version', [VMM, '--version'], 30)
    has(r, '^irqlab-vmm ')


# (status, a stderr line matching, the arguments)
BAD = [
    (2, 'no KERNEL given', []),
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
    (2, 'stats-json /nonexistent/x.json',
     ['--stats-json', '/nonexistent/x.json', K]),
    (4, 'kernel /nonexistent: No such file', ['/nonexistent']),
    (4, 'not a regular file', ['/tmp']),
    (4, 'module /nonexistent', ['--module', '/nonexistent', K]),
]


def expect(boot, name, want, pattern, args):
    r = boot.run(name, [VMM] + args, 30)
    status(r, want)
    has(r, pattern, 'err')


@pytest.mark.parametrize('want, pattern, args', BAD,
                         ids=[' '.join('K' if x == K else x for x in a)
                              or 'none' for _, _, a in BAD])
def test_bad_option(boot, want, pattern, args):
    expect(boot, 'bad-option', want, pattern, args)


def image(name, data):
    path = ROOT / T / name
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(data)
    return '%s/%s' % (T, name)


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
    expect(boot, 'no-kvm', 6, '/dev/kvm: .*KVM is not available', [K])
