# SPDX-License-Identifier: MIT
"""Boot paths: the same kernel and command line (check=ipi, 2 CPUs,
128 MiB) from irqlab-vmm, QEMU's -kernel, and GRUB (build/irqlab.iso)
under SeaBIOS and OVMF.

    guest-bench/grub-bench [-r RUNS] [--kvm-firmware]     (make bench-grub)

Each path boots RUNS times (default 5), one after another, and
runner/boot.py times each from the process's start: to the kernel's first
line (kernel_ms: what firmware and loader took) and to @ready (ready_ms),
and to the process's exit (wall_ms).  From the records: the calibration
source (@calib use=1), where the RSDP came from (@smp rsdp=), CPUs online.
A boot that does not reach @ready with both CPUs, a passing @ipi_check and
its exit status is a failure: it is reported, not timed.

Paths (QEMU TCG, and KVM where the host has a usable /dev/kvm and
scripts/qemu-kvm-cpu finds a -cpu model):
    vmm-kvm                irqlab-vmm --cpus 2 --mem 128 -a check=ipi
    qemu-kernel-{tcg,kvm}  qemu -kernel irqlab32.elf -append check=ipi
    grub-seabios-{mb2,mb1}-tcg, grub-ovmf-{mb2,mb1}-tcg
                           qemu -cdrom the ISO (its default entry mb2, or
                           the same image with mb1 the default)
    grub-{seabios,ovmf}-mb1-kvm   only with --kvm-firmware, one run each
                           (on kvm_pvm: SeaBIOS 70-90 s, OVMF dies)
    vmm-rig, qemu-kernel-rig
                           where /dev/kvm is missing: the first and the
                           KVM -kernel path in the nested rig (-cpu host
                           there), said so; their time is the whole
                           command's in the rig, with no to-kernel time

Output: a table on stdout, bench-results/grub.json; a run of the
defaults (-r 5) also writes the table to docs/results/HOST-DATE-grub.md,
listed in docs/BOOT.md "Results" (--no-doc: not).  Exit status 0, 1 if
a boot failed, 2 bad usage, 77 a SKIP (scripts/mkiso's tools, OVMF or
QEMU missing).
"""
import argparse
import json
import os
import platform
import shutil
import subprocess
import sys
import time

from . import ROOT, boot, markdown, report, rigserver, stats

OUT = os.path.join(ROOT, 'bench-results')
ISO_DIR = os.path.join(ROOT, 'build/bench-grub')
APPEND = 'check=ipi'
OVMF = [('/usr/share/OVMF/OVMF_CODE_4M.fd', '/usr/share/OVMF/OVMF_VARS_4M.fd'),
        ('/usr/share/OVMF/OVMF_CODE.fd', '/usr/share/OVMF/OVMF_VARS.fd')]
LIMIT = {'tcg': 300, 'kvm': 300, 'rig': 300}
RIG = []        # the nested rig's server, once started (no /dev/kvm here)


def rig():
    if not RIG:
        r = rigserver.RigServer(ROOT)
        say('note: no usable /dev/kvm here: vmm-rig and qemu-kernel-rig run '
            'in the nested rig (%s)' % r.log)
        try:
            r.start()
        except rigserver.RigError as e:
            raise SystemExit('SKIP: the nested rig cannot run here: %s' % e)
        RIG.append(r)
    return RIG[0]


def say(msg):
    print(msg, flush=True)


def mkiso(entry):
    """scripts/mkiso's image with @entry the default (mb2: make iso's)."""
    os.makedirs(ISO_DIR, exist_ok=True)
    out = os.path.join(ISO_DIR, 'irqlab-%s.iso' % entry)
    argv = [os.path.join(ROOT, 'scripts/mkiso')] + \
        ([] if entry == 'mb2' else ['-d', entry]) + [boot.KERNEL, out]
    p = subprocess.run(argv, cwd=ROOT, capture_output=True, text=True)
    if p.returncode == 3:
        raise SystemExit('SKIP: ' + p.stderr.strip()) from None
    if p.returncode:
        sys.exit('grub-bench: %s: %s' % (' '.join(argv), p.stderr.strip()))
    return out


def ovmf():
    for code, vars_ in OVMF:
        if os.path.isfile(code) and os.path.isfile(vars_):
            return code, vars_
    return None, None


def iso_cmd(iso, firmware, accel, cpu):
    """QEMU booting @iso from CD through @firmware, as the tests do."""
    cmd = [boot.qemu_binary(), '-accel', accel]
    if cpu:
        cmd += ['-cpu', cpu]
    if firmware == 'ovmf':
        code, vars_ = ovmf()
        copy = os.path.join(ISO_DIR, 'vars.fd')
        shutil.copyfile(vars_, copy)        # a fresh variable store
        cmd += ['-machine', 'q35',
                '-drive', 'if=pflash,format=raw,unit=0,readonly=on,file=' +
                code, '-drive', 'if=pflash,format=raw,unit=1,file=' + copy]
    return cmd + ['-m', '128', '-smp', '2', '-cdrom', iso,
                  '-device', 'isa-debug-exit,iobase=0xf4,iosize=0x04',
                  '-serial', 'stdio', '-display', 'none', '-no-reboot',
                  '-nodefaults']


def paths(a):
    """(name, accel, a function giving the command, expected status)."""
    if not shutil.which(boot.qemu_binary()):
        raise SystemExit('SKIP: %s is not installed' % boot.qemu_binary())
    kvm = boot.kvm_usable()
    cpu = boot.probe_cpu() if kvm else None
    kcpu = cpu.used if cpu and cpu.used else None
    isos = {e: mkiso(e) for e in ('mb2', 'mb1')}
    if not ovmf()[0]:
        raise SystemExit('SKIP: no OVMF (apt-get install ovmf)')
    out = []
    if kvm:
        out.append(('vmm-kvm', 'kvm', lambda: boot.vmm_cmd(
            append=APPEND, args=('--mem', '128')), 0))
    else:
        out.append(('vmm-rig', 'rig', lambda: boot.vmm_cmd(
            append=APPEND, args=('--mem', '128')), 0))
        out.append(('qemu-kernel-rig', 'rig', lambda: boot.qemu_cmd(
            append=APPEND, mem=128, accel='kvm', cpu='host'), boot.QEMU_OK))
    out.append(('qemu-kernel-tcg', 'tcg', lambda: boot.qemu_cmd(
        append=APPEND, mem=128), boot.QEMU_OK))
    if kcpu:
        out.append(('qemu-kernel-kvm', 'kvm', lambda: boot.qemu_cmd(
            append=APPEND, mem=128, accel='kvm', cpu=kcpu), boot.QEMU_OK))
    for fw in ('seabios', 'ovmf'):
        for e in ('mb2', 'mb1'):
            out.append(('grub-%s-%s-tcg' % (fw, e), 'tcg',
                        lambda fw=fw, e=e: iso_cmd(isos[e], fw, 'tcg', None),
                        boot.QEMU_OK))
    if a.kvm_firmware and kcpu:
        for fw in ('seabios', 'ovmf'):
            out.append(('grub-%s-mb1-kvm' % fw, 'kvm',
                        lambda fw=fw: iso_cmd(isos['mb1'], fw, 'kvm', kcpu),
                        boot.QEMU_OK))
    return out


def check(r, want):
    """Why the boot is not a good one, or None."""
    if r.timed_out or r.status != want:
        return r.describe()
    smp = r.find('smp')
    ipi = r.find('ipi_check')
    if not r.ready() or not smp or smp.get('online') != '2':
        return 'no @ready, or not 2 CPUs online'
    if not ipi or ipi.get('lost') != '0' or ipi.get('dup') != '0':
        return 'no passing @ipi_check'
    return None


def one(name, cmd, want, accel, log):
    if accel == 'rig':
        r = boot.run_in_rig(rig(), cmd, LIMIT[accel], out_file=log)
    else:
        r = boot.run(cmd, LIMIT[accel], out_file=log)
    calib = r.find('calib', use='1')
    smp = r.find('smp')
    return {'ok': check(r, want) is None, 'why': check(r, want),
            'kernel_ms': r.kernel_ms, 'ready_ms': r.ready_ms,
            'wall_ms': r.wall_ms,
            'calib': calib.get('source') if calib else None,
            'rsdp': smp.get('rsdp') if smp else None,
            'online': smp.get('online') if smp else None}


def bench(a):
    res = {'host': {'machine': platform.node(), 'kernel': platform.release(),
                    'loadavg_before': os.getloadavg()[0],
                    'kvm_pvm': os.path.isdir('/sys/module/kvm_pvm')},
           'date': time.strftime('%Y-%m-%dT%H:%M:%SZ', time.gmtime()),
           'iso_bytes': None, 'paths': {}}
    todo = paths(a)
    table = [HEAD]
    make_iso = os.path.join(ISO_DIR, 'irqlab-mb2.iso')
    res['iso_bytes'] = os.path.getsize(make_iso)
    os.makedirs(OUT, exist_ok=True)
    bad = 0
    with open(os.path.join(OUT, 'grub-boots.out'), 'w') as log:
        for name, accel, cmd, want in todo:
            n = 1 if name.startswith('grub-') and accel == 'kvm' else a.runs
            runs = []
            for i in range(n):
                c = cmd()
                log.write('==== %s run %d: %s\n' % (name, i, ' '.join(c)))
                runs.append(one(name, c, want, accel, log))
                if not runs[-1]['ok']:
                    bad += 1
                    say('%s run %d: %s' % (name, i, runs[-1]['why']))
            good = [x for x in runs if x['ok']]
            res['paths'][name] = {
                'runs': runs,
                'kernel_ms': stats.summary([x['kernel_ms'] for x in good]),
                'ready_ms': stats.summary([x['ready_ms'] for x in good]),
                'calib': sorted({x['calib'] for x in runs if x['calib']}),
                'rsdp': sorted({x['rsdp'] for x in runs if x['rsdp']}),
            }
            table.append(row(name, res['paths'][name], n))
            say(table[-1])
    res['host']['loadavg_after'] = os.getloadavg()[0]
    with open(os.path.join(OUT, 'grub.json'), 'w') as f:
        json.dump(res, f, indent=1)
    say('ISO (make iso): %d bytes; every run: %s' % (
        res['iso_bytes'], os.path.join(OUT, 'grub.json')))
    if a.runs == 5 and not a.kvm_firmware and not a.no_doc:
        publish(res, table, a.runs)
    return 1 if bad else 0


def publish(res, table, runs):
    """docs/results/HOST-DATE-grub.md, listed in docs/BOOT.md."""
    h = res['host']
    md = ('Host: %s, %d CPUs, Linux %s; load average %.1f before, %.1f '
          'after.  Each path booted %d times, one after another, timed from '
          'the process\'s start (docs/BOOT.md "Results")%s.\n\n' % (
              report.host_info()['host']['cpu_model'], os.cpu_count() or 0,
              h['kernel'], h['loadavg_before'], h['loadavg_after'], runs,
              '; the -rig paths ran in the nested rig, their time is the '
              'whole command\'s there' if RIG else '') +
          '\n'.join(table) + '\n')
    path = markdown.publish_run(md, markdown.host_kind(), 'docs/BOOT.md',
                                'make bench-grub', '-grub', 'grub-results',
                                res['date'])
    say('wrote %s' % os.path.relpath(path, ROOT))


HEAD = ('| path | to kernel, ms (median) | to @ready, ms (median, min-max) '
        '| calib | rsdp | good runs |\n|---|---|---|---|---|---|')


def ms(s, key):
    return '%.0f' % s[key] if s else '-'


def row(name, p, n):
    k, r = p['kernel_ms'], p['ready_ms']
    return '| %s | %s | %s (%s-%s) | %s | %s | %d/%d |' % (
        name, ms(k, 'median'), ms(r, 'median'), ms(r, 'min'), ms(r, 'max'),
        ','.join(p['calib']) or '-', ','.join(p['rsdp']) or '-',
        r['n'] if r else 0, n)


def parse_args(argv):
    ap = argparse.ArgumentParser(
        prog='grub-bench', description=__doc__.split('\n\n')[0],
        formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument('-r', '--runs', type=int, default=5,
                    help='boots per path (default 5)')
    ap.add_argument('--kvm-firmware', action='store_true',
                    help='also GRUB under QEMU/KVM, one run each')
    ap.add_argument('--no-doc', action='store_true',
                    help='write no docs/results/ file')
    a = ap.parse_args(argv)
    if a.runs < 1:
        ap.error('--runs must be at least 1')
    return a


def main(argv=None):
    a = parse_args(sys.argv[1:] if argv is None else argv)
    say(HEAD)
    try:
        return bench(a)
    except SystemExit as e:
        if isinstance(e.code, str) and e.code.startswith('SKIP: '):
            say(e.code)
            return 77
        raise
    finally:
        for r in RIG:
            r.stop()
