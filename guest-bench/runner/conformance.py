# SPDX-License-Identifier: MIT
"""make conformance (guest-bench/conformance): boot the kernel with
check=lapic,ioapic,pic,timer,ipi,hpet onfail=go under every configuration
this host can run, and write one matrix: a row per check step, a column
per configuration, each cell ok, FAILED, HOST or SKIPPED with its reason
in a footnote (docs/CONFORMANCE.md, and a JSON file).

onfail=go: a check that fails prints @check_failed and the next one runs
(docs/RECORDS.md), so one boot gives every check.  A step a boot never
reached (it hung, crashed or panicked before it) is FAILED, with how the
boot ended.  A configuration that cannot run here is a column of
SKIPPED, with the reason.  --log adds a column from a serial log
captured on another machine (guest-bench/report reads it the same way).

Exit status: 0 when every configuration ran or was skipped (FAILED
cells are findings, not errors of the tool), 1 when a boot could not be
made or an output not written, 2 on bad usage.
"""
import json
import os
import re
import shutil
import signal
import subprocess
import sys
import time

from . import (ROOT, arg_parser, boot, markdown, records, report, rigserver,
               serial)

APPEND = 'check=lapic,ioapic,pic,timer,ipi,hpet onfail=go'
CHECKS = ('ipi', 'timer', 'ioapic', 'pic', 'lapic', 'hpet')  # kernel's order
CONFIGS = ['vmm-%s-%s' % (c, a) for c in ('user', 'split', 'kernel')
           for a in ('xapic', 'x2apic')]
CONFIGS += ['qemu-tcg', 'qemu-kvm', 'bochs', 'bochs-xapic']
# "<check>_check: <step>: ok" or "...: FAILED (<what>)" or "...: SKIPPED:
# <why>" or "...: HOST: <evidence>" (docs/CONFORMANCE.md)
STEP = re.compile(r'^(%s)_check: (.+?): (ok|FAILED|SKIPPED|HOST)'
                  r'(?:$|: | )(.*)$' % '|'.join(CHECKS))
VERDICTS = ('ok', 'FAILED', 'HOST', 'SKIPPED')
LIMIT = 300             # s: one boot (the rig and Bochs are slow)
BOCHS_DIR = '/usr/share/bochs'
BOCHSRC = '''megs: 128
cpu: model=%(model)s, count=2, ips=50000000
romimage: file=%(bios)s/BIOS-bochs-latest
vgaromimage: file=%(vga)s
ata0-master: type=cdrom, path=%(iso)s, status=inserted
boot: cdrom
com1: enabled=1, mode=file, dev=%(serial)s
clock: sync=none
display_library: rfb, options="timeout=0"
sound: driver=dummy
speaker: enabled=0
log: %(log)s
'''
BOCHS_CPU = 'corei7_haswell_4770'       # x2APIC and TSC-deadline


def say(msg):
    print('conformance: ' + msg, file=sys.stderr, flush=True)


class Column:
    """One configuration: how it ran and what each step gave."""

    def __init__(self, name, what):
        self.name, self.what = name, what
        self.ran = 'here'               # or 'nested-rig', 'log'
        self.status = 'skipped'         # ran, skipped, failed
        self.reason = ''
        self.ended = ''                 # how the boot ended
        self.seconds = 0.0
        self.cmd = ''
        self.steps = {}                 # row -> (verdict, detail)
        self.skipped_checks = {}        # check -> why (@X_check skipped=)
        self.parts = {}                 # 'lapic: window' -> why (all: SKIPPED)
        self.seen = set()               # parts with a step line: 'lapic: dest'
        self.reached = set()            # checks whose record printed

    def cell(self, row):
        """(verdict, detail) of @row in this column."""
        if self.status != 'ran':
            return 'SKIPPED', self.reason
        if row in self.steps:
            return self.steps[row]
        check, part = part_of(row)
        if check == 'pit':              # @ioapic_check's pit fields
            check = 'ioapic'
        if part in self.parts:
            return 'SKIPPED', self.parts[part]
        # a SKIPPED step that stands for the steps under it ("lapic:
        # dest: physical alias" for "lapic: dest: physical alias: ...")
        for r, (v, d) in self.steps.items():
            if v == 'SKIPPED' and row.startswith(r + ': '):
                return v, d
        if check in self.skipped_checks:
            return 'SKIPPED', self.skipped_checks[check]
        if check in self.reached or part in self.seen or \
                self.ended == 'ready':
            # its part ran without it: a step of another APIC mode,
            # another CPU count, a feature the CPU lacks
            return 'SKIPPED', 'not a step of this configuration'
        return 'FAILED', 'the boot ended before this step: %s' % self.ended


def part_of(row):
    """'lapic: dest: logical flat: both' -> ('lapic', 'lapic: dest')"""
    check, rest = row.split(': ', 1)
    return check, '%s: %s' % (check, rest.split(': ')[0])


# ---- reading a boot's output ----

def _pit_stopped(r):
    """No interrupt after the control word and, where the kernel read it
    (pit_stop_moved, since the count decides), a count that did not move:
    a counter that runs on moves whatever the host's load, an interrupt
    in a 2 ms window does not always come."""
    n = lambda k: r.num(k, -1)
    moved = n('pit_stop_moved') if r.get('pit_stop_moved') is not None else 0
    return n('pit_after_stop') == 0 and moved == 0


def _pit_steps(r):
    """The 8254 rows from @ioapic_check's pit fields (docs/RECORDS.md)."""
    if r.get('pit') in (None, 'no-pin'):
        return []
    n = lambda k: r.num(k, -1)
    return [
        ('pit: mode 2 on channel 0 interrupts', n('pit_periodic') > 0,
         '%s interrupts in 20 ms' % r.get('pit_periodic')),
        ('pit: a control word stops channel 0', _pit_stopped(r),
         '%s interrupts in the 2 ms after it, the count moved by %s (8254: '
         '"all Control Logic is immediately reset")' % (
             r.get('pit_after_stop'), r.get('pit_stop_moved', 'unread'))),
        ('pit: mode 0 fires once', n('pit_oneshot') == 1,
         '%s interrupts from one count' % r.get('pit_oneshot')),
        ('pit: channel 2 OUT through port 0x61', r.get('pit_ch2') == 'ok',
         'bit 5 %s' % r.get('pit_ch2'))]


def read_output(col, text):
    """The step lines and records of one boot's output into @col."""
    for line in text.replace('\r', '').split('\n'):
        m = STEP.match(line)
        if m:
            check, step, verdict, detail = m.groups()
            row = '%s: %s' % (check, step)
            col.seen.add(part_of(row)[1])
            if step.endswith(': all') and verdict == 'SKIPPED':
                col.parts[row[:-len(': all')]] = detail
            col.steps.setdefault(row, (verdict, detail.strip()))
            continue
        if not records.is_record(line):
            continue
        try:
            r = records.parse(line)
        except records.RecordError:
            continue
        name = r.name[:-len('_check')] if r.name.endswith('_check') else ''
        if name in CHECKS:
            col.reached.add(name)
            if 'skipped' in r:
                col.skipped_checks[name] = '@%s skipped=%s' % (
                    r.name, r['skipped'])
            if name == 'ioapic':
                for row, good, what in _pit_steps(r):
                    col.steps[row] = ('ok', '') if good else ('FAILED', what)
        elif r.name == 'ready':
            col.ended = 'ready'
        elif r.name == 'panic' and r.get('reason') == 'checks':
            col.ended = 'ready'         # onfail=go's end: all checks ran
        elif r.name == 'panic':
            col.ended = '@panic %s' % ' '.join(
                '%s=%s' % kv for kv in list(r.items())[:4])


# ---- running one configuration ----

class Runner:
    def __init__(self, a):
        self.out, self.rig_mode, self.rig = a.o, False, None
        self.qemu = boot.qemu_binary()
        self.kvm = boot.kvm_usable()
        if not self.kvm and not a.no_rig:
            self.rig_mode = True

    def rig_server(self):
        if self.rig is None:
            self.rig = rigserver.RigServer(ROOT, smp=2)
            say('no /dev/kvm here: booting the nested rig for the KVM '
                'configurations (%s)' % self.rig.log)
            self.rig.start()
        return self.rig

    def close(self):
        if self.rig:
            self.rig.stop()

    def raw(self, name, ext):
        return os.path.join(self.out, 'raw', name + ext)

    def run(self, col, cmd, kvm):
        """@cmd's output into @col; in the rig when it needs KVM here."""
        col.cmd = ' '.join(os.path.relpath(c, ROOT) if c.startswith(ROOT)
                           else c for c in cmd)
        if kvm and not self.kvm:
            if not self.rig_mode:
                raise Skip('no usable /dev/kvm (and --no-rig)')
            col.ran = 'nested-rig'
            try:
                res = boot.run_in_rig(self.rig_server(), cmd, LIMIT,
                                      err_path=self.raw(col.name, '.err'))
            except rigserver.RigSkip as e:
                raise Skip('the nested rig cannot run here: %s' % e)
        else:
            res = boot.run(cmd, LIMIT, err_path=self.raw(col.name, '.err'))
        col.seconds = res.wall_ms / 1000
        with open(self.raw(col.name, '.out'), 'w') as f:
            f.write(res.out)
        if res.timed_out:
            col.ended = 'no end in %d s' % LIMIT
        elif not col.ended:
            col.ended = boot.status_text(res.status, qemu=cmd[0] == self.qemu)
        return res.out

    def vmm(self, col):
        chip, apic = col.name.split('-')[1:]
        cmd = boot.vmm_cmd('%s apic=%s' % (APPEND, apic), cpus=2,
                           irqchip=chip, args=['--hpet=on'])
        read_output(col, self.run(col, cmd, True))

    def qemu_tcg(self, col):
        if not boot.have(self.qemu):
            raise Skip('%s is not installed' % self.qemu)
        cmd = boot.qemu_cmd(APPEND, mem=128, args=['-device', 'pc-testdev'],
                            qemu=self.qemu)
        read_output(col, self.run(col, cmd, False))

    def qemu_kvm(self, col):
        if not boot.have(self.qemu):
            raise Skip('%s is not installed' % self.qemu)
        if self.kvm:
            cpu = boot.probe_cpu('+x2apic,+tsc-deadline', self.qemu,
                                 self.raw(col.name, '.probe'))
            if cpu.skip:
                raise Skip(cpu.why)
            model = cpu.used
        elif self.rig_mode:
            model = 'host,+x2apic,+tsc-deadline'   # the rig's: SVM on TCG
        else:
            raise Skip('no usable /dev/kvm (and --no-rig)')
        cmd = boot.qemu_cmd(APPEND, accel='kvm',
                            machine='pc,kernel_irqchip=on', cpu=model,
                            mem=128, args=['-device', 'pc-testdev'],
                            qemu=self.qemu)
        read_output(col, self.run(col, cmd, True))

    def bochs(self, col):
        exe = shutil.which('bochs')
        vga = os.path.join(BOCHS_DIR, 'VGABIOS-lgpl-latest')
        if not exe or not os.path.exists(os.path.join(BOCHS_DIR,
                                                      'BIOS-bochs-latest')):
            raise Skip('Bochs is not installed (apt-get install bochs '
                       'bochsbios vgabios)')
        if not os.path.exists(vga):
            raise Skip('no %s (apt-get install vgabios)' % vga)
        entry = 'conformance' + col.name[len('bochs'):]
        iso = os.path.join(ROOT, 'build', entry + '.iso')
        p = subprocess.run([os.path.join(ROOT, 'scripts/mkiso'), '-d',
                            entry, boot.KERNEL, iso],
                           capture_output=True, text=True)
        if p.returncode == 3:
            raise Skip('no GRUB image tools: %s' % p.stderr.strip())
        if p.returncode:
            raise Failed('scripts/mkiso failed: %s' % p.stderr.strip()[-200:])
        serial_log = self.raw(col.name, '.out')
        rc = self.raw(col.name, '.bochsrc')
        with open(rc, 'w') as f:
            f.write(BOCHSRC % {'model': BOCHS_CPU, 'bios': BOCHS_DIR,
                               'vga': vga, 'iso': iso, 'serial': serial_log,
                               'log': self.raw(col.name, '.log')})
        col.cmd = 'bochs -q -f %s (the ISO\'s %s entry)' % (
            os.path.relpath(rc, ROOT), entry)
        if os.path.exists(serial_log):
            os.remove(serial_log)
        col.seconds, text = run_bochs(exe, rc, serial_log)
        read_output(col, text)
        if not col.ended:
            col.ended = 'no end in %d s' % LIMIT

    def column(self, name):
        col = Column(name, WHAT[name])
        kind = ('vmm' if name.startswith('vmm-') else 'bochs'
                if name.startswith('bochs') else name.replace('-', '_'))
        try:
            getattr(self, kind)(col)
            col.status = 'ran'
            say('%s: %s, %.1f s, %d steps (%s)' % (
                name, col.ended, col.seconds, len(col.steps),
                ', '.join('%d %s' % (n, v) for v, n in
                          count(col, col.steps) if n)))
        except Skip as s:
            col.status, col.reason = 'skipped', str(s)
            say('%s: SKIPPED: %s' % (name, s))
        except (Failed, rigserver.RigError) as e:
            col.status, col.reason = 'failed', str(e)
            say('%s: FAILED to run: %s' % (name, e))
        return col


def run_bochs(exe, rc, serial_log):
    """Bochs until the kernel's last record (it never powers off: no
    isa-debug-exit), or LIMIT.  Debian's Bochs has its debugger: it waits
    at a prompt for 'c', and stdin must stay open (docs/CONFORMANCE.md)."""
    t0 = time.monotonic()
    p = subprocess.Popen([exe, '-q', '-f', rc], stdin=subprocess.PIPE,
                         stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                         cwd=os.path.dirname(rc), start_new_session=True)
    text = ''
    try:
        p.stdin.write(b'c\n')
        p.stdin.flush()
        while time.monotonic() - t0 < LIMIT and p.poll() is None:
            time.sleep(0.5)
            try:
                with open(serial_log, errors='replace') as f:
                    text = f.read()
            except OSError:
                continue
            if re.search(r'^@(ready|panic)\b.*\n', text, re.M):
                break
    finally:
        try:
            os.killpg(p.pid, signal.SIGKILL)
        except ProcessLookupError:
            pass
        p.wait()
    return time.monotonic() - t0, text


class Skip(Exception):
    pass


class Failed(Exception):
    pass


WHAT = {'vmm-%s-%s' % (c, a): 'irqlab-vmm --irqchip=%s --hpet=on, apic=%s' %
        (c, a)
        for c in ('user', 'split', 'kernel') for a in ('xapic', 'x2apic')}
WHAT.update({'qemu-tcg': 'QEMU TCG, -cpu qemu64 (xAPIC), pc-testdev',
             'qemu-kvm': 'QEMU/KVM, kernel_irqchip=on, pc-testdev',
             'bochs': 'Bochs, %s, from the GRUB ISO (BIOS)' % BOCHS_CPU,
             'bochs-xapic': 'Bochs, the same, apic=xapic'})


def count(col, rows):
    """The verdicts of @col's cells in @rows: its column of the matrix,
    the steps it printed and those it did not (a SKIPPED with why)."""
    n = {v: 0 for v in VERDICTS}
    for r in rows:
        n[col.cell(r)[0]] += 1
    return [(v, n[v]) for v in VERDICTS]


def log_column(path):
    """A column from a serial log captured elsewhere (serial.read_log's
    checks: one whole boot of this kernel)."""
    c = serial.read_log(path)           # raises serial.LogError
    col = Column(c.name, 'serial log `%s`' % path)
    col.ran, col.status = 'log', 'ran'
    with open(path, errors='replace') as f:
        read_output(col, f.read())
    return col


# ---- the matrix ----

def rows_of(cols):
    """Every step of every column, each column's in its own order: a
    step new to the rows goes right after the one before it there."""
    rows = []
    for c in cols:
        prev = None
        for r in c.steps:
            if r.endswith(': all'):
                continue
            if r not in rows:
                rows.insert(rows.index(prev) + 1 if prev else len(rows), r)
            prev = r
    order = {k: i for i, k in enumerate(('lapic', 'ioapic', 'pit', 'pic',
                                         'timer', 'ipi'))}
    return sorted(rows, key=lambda r: (order.get(r.split(':')[0], 9),
                                       rows.index(r)))


def matrix_json(cols, host):
    rows = rows_of(cols)
    return {'generated': host['date'], 'git': host['git'],
            'host': host['host'], 'append': APPEND,
            'configs': [{'name': c.name, 'what': c.what, 'ran': c.ran,
                         'status': c.status, 'reason': c.reason,
                         'ended': c.ended, 'seconds': round(c.seconds, 1),
                         'cmd': c.cmd,
                         'counts': dict(count(c, rows))} for c in cols],
            'steps': [{'step': r, 'cells': {
                c.name: dict(zip(('verdict', 'detail'), c.cell(r)))
                for c in cols}} for r in rows]}


def disagreements(j):
    """The rows where the columns that checked the step (not SKIPPED) do
    not all give the same verdict."""
    return [s for s in j['steps']
            if len({c['verdict'] for c in s['cells'].values()} -
                   {'SKIPPED'}) > 1]


def matrix_md(j):
    notes, out = [], []
    cols = [c['name'] for c in j['configs']]

    def foot(verdict, detail):
        if verdict == 'ok' or not detail:
            return verdict
        key = '%s: %s' % (verdict, detail)
        if key not in notes:
            notes.append(key)
        return '%s [%d]' % (verdict, notes.index(key) + 1)

    h = j['host']
    out += ['Generated by `make conformance` (guest-bench/conformance) on '
            '%s: git `%s`; host %s, %d CPUs, %s %s.  Every configuration '
            'boots the kernel once with `%s` on 2 CPUs.  The counts are '
            "those of each configuration's column in the table below it: "
            'a step it did not print is a cell there too.' % (
                j['generated'], j['git']['describe'], h['cpu_model'],
                h['cpus'], h['sysname'], h['kernel_release'], j['append']),
            '', '| config | what | ran | boot ended | s | ok | FAILED | '
            'HOST | SKIPPED |', '|---|---|---|---|---|---|---|---|---|']
    for c in j['configs']:
        ran = {'here': 'here', 'nested-rig': 'in the nested rig',
               'log': 'elsewhere (a log)'}[c['ran']]
        if c['status'] != 'ran':
            ran = '**%s**: %s' % (c['status'].upper(), c['reason'])
        n = c['counts']
        out.append('| %s | %s | %s | %s | %.1f | %d | %d | %d | %d |' % (
            c['name'], c['what'], ran, c['ended'] or '-', c['seconds'],
            n['ok'], n['FAILED'], n['HOST'], n['SKIPPED']))
    out += ['', '| step | %s |' % ' | '.join(cols),
            '|---|%s' % ('---|' * len(cols))]
    for s in j['steps']:
        out.append('| %s | %s |' % (s['step'], ' | '.join(
            foot(s['cells'][n]['verdict'], s['cells'][n]['detail'])
            for n in cols)))
    out += ['', 'Notes:', '']
    out += ['%d. %s' % (i, n.replace('|', '\\|'))
            for i, n in enumerate(notes, 1)]
    d = disagreements(j)
    out += ['', 'Steps where the configurations that ran disagree: %d.' %
            len(d), '']
    for s in d:
        out.append('- %s: %s' % (s['step'], ', '.join(
            '%s %s' % (n, s['cells'][n]['verdict']) for n in cols
            if s['cells'][n]['verdict'] != 'SKIPPED')))
    return '\n'.join(out) + '\n'


DOC_BEGIN = '<!-- conformance:begin -->'
DOC_END = '<!-- conformance:end -->'


def parse_args(argv):
    ap = arg_parser('guest-bench/conformance', __doc__)
    ap.add_argument('-c', metavar='LIST',
                    help='only these configurations, comma-separated (%s)'
                    % ','.join(CONFIGS))
    ap.add_argument('--log', action='append', default=[], metavar='FILE',
                    help='add a column from a serial log of the kernel '
                    'booted elsewhere with %r (repeatable)' % APPEND)
    ap.add_argument('-o', metavar='DIR', default=os.path.join(
        ROOT, 'build', 'conformance'),
                    help='conformance.json, conformance.md and the raw '
                    'boots (default: build/conformance)')
    ap.add_argument('--doc', metavar='FILE',
                    help='put the matrix in FILE between its markers '
                    '(default for a full run: docs/CONFORMANCE.md)')
    ap.add_argument('--no-doc', action='store_true', help='leave the docs')
    ap.add_argument('--no-rig', action='store_true',
                    help='without /dev/kvm, skip the KVM configurations '
                    'instead of running them in the nested rig')
    ap.add_argument('--list', action='store_true',
                    help='print the configurations')
    a = ap.parse_args(argv)
    a.configs = a.c.split(',') if a.c else ([] if a.log and not a.c
                                            else CONFIGS)
    bad = [c for c in a.configs if c not in CONFIGS]
    if bad:
        ap.error('unknown configuration %s (known: %s)' % (
            ','.join(bad), ' '.join(CONFIGS)))
    if a.no_doc:
        a.doc = None
    elif a.doc is None and not a.c and not a.log:
        a.doc = os.path.join(ROOT, 'docs', 'CONFORMANCE.md')
    return a


def main(argv=None):
    a = parse_args(sys.argv[1:] if argv is None else argv)
    if a.list:
        print(' '.join(CONFIGS))
        return 0
    for f in (boot.VMM, boot.KERNEL, boot.KERNEL32):
        if not os.path.exists(f):
            say('%s is missing: run make conformance (or make all)' %
                os.path.relpath(f, ROOT))
            return 2
    cols = []
    try:
        for path in a.log:
            cols.append(log_column(path))
    except serial.LogError as e:
        say(str(e))
        return 2
    os.makedirs(os.path.join(a.o, 'raw'), exist_ok=True)
    r = Runner(a)
    t0 = time.monotonic()
    try:
        for i, name in enumerate(a.configs, 1):
            say('[%d/%d] %s' % (i, len(a.configs), name))
            cols.append(r.column(name))
    finally:
        r.close()
    say('%d configurations in %.0f s' % (len(a.configs),
                                         time.monotonic() - t0))
    j = matrix_json(cols, report.host_info())
    md = matrix_md(j)
    try:
        with open(os.path.join(a.o, 'conformance.json'), 'w') as f:
            json.dump(j, f, indent=1)
            f.write('\n')
        with open(os.path.join(a.o, 'conformance.md'), 'w') as f:
            f.write(md)
        if a.doc:
            markdown.update_doc(a.doc, md, DOC_BEGIN, DOC_END)
            shutil.copy(os.path.join(a.o, 'conformance.json'),
                        os.path.splitext(a.doc)[0].lower() + '.json')
            say('%s and its .json: the matrix regenerated' % a.doc)
    except (OSError, ValueError) as e:
        say('cannot write the matrix: %s' % e)
        return 1
    say('%s: %d steps x %d configurations, %d where they disagree' % (
        os.path.join(a.o, 'conformance.md'), len(j['steps']), len(cols),
        len(disagreements(j))))
    return 1 if any(c.status == 'failed' for c in cols) else 0
