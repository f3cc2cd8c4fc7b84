# SPDX-License-Identifier: MIT
"""irqlab's host tooling for benchmarks, in one package.

    records    the kernel's `@name key=value` records: the one parser
    stats      nearest-rank percentiles, medians (the statistics module)
    boot       one boot of irqlab-vmm or QEMU: command, time limit, status;
               the QEMU/KVM -cpu probe (scripts/qemu-kvm-cpu)
    matrix     make bench: every config, the raw files (guest-bench/run)
    report     the raw files read back, passes merged, results.json
    markdown   results.md and docs/BENCHMARKS.md's results part
    plots      the plots, with matplotlib
    calib      make bench-calib (guest-bench/calib-bench.py)
    bootbench  make bench-boot, irqlab-vmm's boot against QEMU's on nested
               KVM (guest-bench/boot-bench; in the guest: bootbench_guest.sh)
    grubbench  make bench-grub, boot-to-@ready from irqlab-vmm, QEMU -kernel
               and GRUB on SeaBIOS and OVMF (guest-bench/grub-bench)

The entry points are the scripts in guest-bench/; run them with
/usr/bin/python3 (Debian's, which has python3-matplotlib and
python3-pytest).  To import the package, put guest-bench/ on sys.path:

    sys.path.insert(0, os.path.join(REPO, 'guest-bench'))
    from runner import records, boot
"""
import argparse
import os

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(
    os.path.abspath(__file__))))


def arg_parser(prog, doc):
    """An entry point's parser: @doc's first paragraph for --help's
    description, the rest as its epilog, kept as written."""
    head, _, rest = doc.partition('\n\n')
    return argparse.ArgumentParser(
        prog=prog, description=head, epilog=rest or None,
        formatter_class=argparse.RawDescriptionHelpFormatter)
