# SPDX-License-Identifier: MIT
"""What a QEMU's vCPUs are doing, asked through its QMP monitor, and
guest-bench/qemu-limit, which runs a QEMU under a time limit and asks
that before it ends it (so a boot that hangs says where):

    guest-bench/qemu-limit SECS QEMU [ARGS...]

qemu-limit adds a QMP monitor of its own to QEMU's arguments (an abstract
Unix socket: it works on a read-only or 9p tree, as in the nested rig),
passes QEMU's stdout and stderr through, and returns QEMU's status; past
SECS it writes `info registers -a` and each CPU's `info lapic` on stderr
(dump()), stops QEMU (SIGTERM, SIGKILL 5 s later) and returns 124, as
timeout(1) does.  HMP's commands go inside QMP's human-monitor-command.
"""
import json
import os
import re
import socket
import subprocess
import sys

TIMEOUT_STATUS = 124


def hmp(path, commands, timeout=10):
    """The text of each HMP command in @commands, asked through the QMP
    socket @path (a leading NUL: an abstract socket); a failed command's
    text is 'QMP error: ...'.  Raises OSError or ValueError."""
    out = []
    with socket.socket(socket.AF_UNIX) as c:
        c.settimeout(timeout)
        c.connect(path)
        f = c.makefile('rw')
        f.readline()                            # the greeting
        cmds = [{'execute': 'qmp_capabilities'}] + [
            {'execute': 'human-monitor-command',
             'arguments': {'command-line': cmd}} for cmd in commands]
        for n, cmd in enumerate(cmds):
            f.write(json.dumps(cmd) + '\n')
            f.flush()
            while True:                         # skip events
                line = f.readline()
                if not line:
                    raise ValueError('QMP closed the socket')
                r = json.loads(line)
                if 'return' in r or 'error' in r:
                    break
            if n:
                out.append('QMP error: %s\n' % r['error'] if 'error' in r
                           else r['return'])
    return out


def dump(path, why):
    """'info registers -a' and every CPU's 'info lapic', headed by
    @why, as text for a stderr file; says so when QMP gave nothing."""
    head = '\n--- %s; its vCPUs then (QMP "info registers -a", ' \
        '"info lapic N"):\n' % why
    try:
        regs = hmp(path, ['info registers -a'])[0]
        cpus = [int(n) for n in re.findall(r'^CPU#([0-9]+)', regs, re.M)]
        return head + regs + ''.join(
            'CPU#%d LAPIC:\n%s' % (n, t)
            for n, t in zip(cpus, hmp(path, ['info lapic %d' % n
                                             for n in cpus])))
    except (OSError, ValueError) as err:
        return head + 'none: QMP gave nothing (%s)\n' % err


# 'info registers -a': a block per CPU, its RIP, RFLAGS and halt state
# (EIP and EFL in a CPU below long mode)
CPU_REGS = re.compile(r'^CPU#([0-9]+)\n(?:.*\n)*?[RE]IP=([0-9a-f]+) '
                      r'[RE]FL=([0-9a-f]+) .*HLT=([01])', re.M)
# 'info lapic': ISR's vectors in decimal, '(level)' after a level one
LAPIC_ISR = re.compile(r'^CPU#([0-9]+) LAPIC:\n(?:.*\n)*?ISR\s+(.*)', re.M)


def cpus(text):
    """[(cpu, state, rip, if_, isr)] from dump()'s text, as
    runner.linux.vcpu_dump() reads irqlab-vmm's: state 'running' or
    'halted', isr the vectors in service as hex strings."""
    isr = {int(m.group(1)): ['0x%x' % int(v) for v in
                             re.findall(r'\b([0-9]+)', m.group(2))]
           for m in LAPIC_ISR.finditer(text)}
    return [(int(m.group(1)), 'halted' if m.group(4) == '1' else 'running',
             int(m.group(2), 16), bool(int(m.group(3), 16) & 0x200),
             isr.get(int(m.group(1)), []))
            for m in CPU_REGS.finditer(text)]


def main(argv=None):
    argv = sys.argv[1:] if argv is None else argv
    if argv[:1] in (['-h'], ['--help']):
        sys.stdout.write(__doc__)
        return 0
    if len(argv) < 2 or not argv[0].isdigit():
        sys.stderr.write('usage: qemu-limit SECS QEMU [ARGS...]\n')
        return 2
    limit, cmd = int(argv[0]), argv[1:]
    name = 'irqlab-qemu-limit-%d' % os.getpid()
    cmd = cmd[:1] + ['-chardev', 'socket,id=qemulimit,path=%s,abstract=on,'
                     'server=on,wait=off' % name,
                     '-mon', 'chardev=qemulimit,mode=control'] + cmd[1:]
    try:
        p = subprocess.Popen(cmd)
    except OSError as e:
        sys.stderr.write('qemu-limit: cannot run %s: %s\n' % (cmd[0], e))
        return 127
    try:
        return p.wait(limit)
    except subprocess.TimeoutExpired:
        sys.stderr.write(dump('\0' + name, 'qemu-limit: QEMU ran past %d s'
                              % limit))
        sys.stderr.flush()
        p.terminate()
        try:
            p.wait(5)
        except subprocess.TimeoutExpired:
            p.kill()
            p.wait()
        return TIMEOUT_STATUS
    except KeyboardInterrupt:
        p.terminate()
        p.wait()
        return 130
