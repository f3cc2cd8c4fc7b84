"""The nested rig as a server: one boot of the rig's Linux (tests/nested/
run-in-kvm.sh --serve) runs many commands, one after another, each
chrooted in the host's own tree (shared over 9p), so any host binary
(irqlab-vmm, its sanitizer builds, QEMU) runs on the rig's /dev/kvm, and
the 8-10 s rig boot is paid once, not per command.

    srv = RigServer(ROOT)
    status = srv.run(['build/irqlab-vmm', '--stats', 'build/kernel/irqlab.elf'],
                     out='build/x.out', err='build/x.err', timeout=60)
    srv.stop()

status is the command's, None if it ran past timeout, or RIG_FAILED
(125) if the rig itself broke (its guest died or stopped answering): the
server is then restarted for the next command.
"""
import base64
import os
import shlex
import signal
import socket
import subprocess
import time

RIG = 'tests/nested/run-in-kvm.sh'
RIG_FAILED = 125
# a boot of the rig to its READY line; under load it has taken 40 s
READY_TIMEOUT = 300
PATH = '/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin'


class RigError(Exception):
    pass


class RigSkip(RigError):
    """The rig cannot run here (run-in-kvm.sh's status 77: no QEMU, no
    kernel package to be had)."""


class RigServer:
    def __init__(self, root, smp=None):
        """@smp: the rig's CPUs (NESTED_SMP; None: run-in-kvm.sh's
        default); each setting has files of its own."""
        self.root = str(root)
        self.smp = smp
        self.proc = None
        self.sock = None
        self.buf = b''
        self.n = 0
        self.boots = 0
        name = 'serve' + ('-smp%d' % smp if smp else '')
        self.log = os.path.join(self.root, 'build/nested/%s.log' % name)
        self.console = os.path.join(self.root, 'build/nested/%s-%d-console.log'
                                    % (name, os.getpid()))
        self.path = os.path.join(self.root, 'build/nested/%s-%d.sock' %
                                 (name, os.getpid()))

    # ---- the server's life ----------------------------------------------

    def start(self):
        os.makedirs(os.path.dirname(self.log), exist_ok=True)
        self.boots += 1
        # the Linux guests of test_linux_guest take 512 MiB of the rig's
        env = dict(os.environ)
        env.setdefault('NESTED_MEM', '1536')
        if self.smp:
            env['NESTED_SMP'] = str(self.smp)
        with open(self.log, 'ab') as log:
            log.write(b'---- start %d\n' % self.boots)
            self.proc = subprocess.Popen(
                [RIG, '--serve', self.path], cwd=self.root, env=env,
                stdin=subprocess.DEVNULL, stdout=log, stderr=log,
                start_new_session=True)
        t0 = time.monotonic()
        while not os.path.exists(self.path):
            self._alive_or_raise()
            if time.monotonic() - t0 > READY_TIMEOUT:
                self.stop()
                raise RigError('no control socket after %d s' %
                               READY_TIMEOUT)
            time.sleep(0.2)
        self.sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        for _ in range(50):
            try:
                self.sock.connect(self.path)
                break
            except OSError:
                time.sleep(0.1)
        else:
            self.stop()
            raise RigError('cannot connect to %s' % self.path)
        self.buf = b''
        line = self._line(t0 + READY_TIMEOUT)
        if line is None:
            self._alive_or_raise()
        if line != 'READY':
            self.stop()
            raise RigError('the rig did not get ready (%r)' % line)
        self._kallsyms()

    def _kallsyms(self):
        """The rig kernel's /proc/kallsyms, with the package it came from,
        in build/nested/rig-kallsyms.txt: the names for the RIPs of a
        --timeout dump of the same kernel (guest-bench/runner/linux.py)."""
        out = os.path.join(self.root, 'build/nested/rig-kallsyms.txt')
        if self._run('cat /proc/kallsyms >%s.tmp\n' % out, 60) == 0:
            os.replace(out + '.tmp', out)
            pkg = os.path.join(self.root, 'build/nested/cache/kernel.txt')
            with open(pkg) as f, open(out + '.kernel', 'w') as k:
                k.write(f.read())

    def stop(self):
        if self.sock:
            self.sock.close()
            self.sock = None
        if self.proc and self.proc.poll() is None:
            for sig in (signal.SIGTERM, signal.SIGKILL):
                try:
                    os.killpg(self.proc.pid, sig)
                    self.proc.wait(timeout=10)
                    break
                except (ProcessLookupError, subprocess.TimeoutExpired):
                    pass
        self.proc = None

    def _alive_or_raise(self):
        if self.proc.poll() is None:
            return
        if self.proc.returncode == 77:
            with open(self.log, errors='replace') as f:
                why = [l[6:] for l in f.read().splitlines()
                       if l.startswith('SKIP: ')]
            raise RigSkip(why[-1] if why else 'the rig says it cannot run '
                          'here')
        raise RigError('the rig ended (status %s) before it was ready; '
                       'its log: %s' % (self.proc.returncode, self.tail()))

    def tail(self, n=15):
        try:
            with open(self.log, errors='replace') as f:
                lines = f.read().splitlines()
        except OSError:
            return '(no log)'
        try:
            with open(self.console, errors='replace') as f:
                lines += ['console: ' + l for l in
                          f.read().replace('\r', '').splitlines()[-n:]]
        except OSError:
            pass
        return '\n'.join(lines[-2 * n:])

    def _line(self, deadline):
        while b'\n' not in self.buf:
            left = deadline - time.monotonic()
            if left <= 0:
                return None
            self.sock.settimeout(min(left, 5))
            try:
                data = self.sock.recv(4096)
            except socket.timeout:
                if self.proc.poll() is not None:
                    return None
                continue
            except OSError:
                return None
            if not data:
                return None
            self.buf += data
        line, self.buf = self.buf.split(b'\n', 1)
        return line.decode(errors='replace').strip()

    # ---- one command ------------------------------------------------------

    def run(self, argv, out, err, timeout, env=None):
        """argv at the repository root, inside the rig, with stdout in
        @out and stderr in @err (paths relative to the root or absolute,
        under it); returns its status, None past @timeout, or RIG_FAILED.
        """
        script = 'cd %s || exit 125\nexec env -i PATH=%s HOME=/root %s%s ' \
            '>%s 2>%s\n' % (
                shlex.quote(self.root), PATH,
                ''.join('%s=%s ' % (k, shlex.quote(str(v)))
                        for k, v in (env or {}).items()),
                ' '.join(shlex.quote(str(a)) for a in argv),
                shlex.quote(str(out)), shlex.quote(str(err)))
        for attempt in (1, 2):
            try:
                if self.proc is None or self.proc.poll() is not None:
                    self.start()
                return self._run(script, timeout)
            except RigError as e:
                why = str(e)
                self.stop()
                if attempt == 2:
                    with open(os.path.join(self.root, err), 'a') as f:
                        f.write('RIG: %s\n' % why)
                    return RIG_FAILED

    def _run(self, script, timeout):
        self.n += 1
        secs = max(1, int(timeout))
        msg = 'RUN %d %d %s\n' % (self.n, secs, base64.b64encode(
            script.encode()).decode())
        try:
            self.sock.sendall(msg.encode())
        except OSError as e:
            raise RigError('cannot send the command: %s' % e)
        # timeout(1) ends it after secs (and KILLs 5 s later); the rest
        # is the rig's own slowness
        line = self._line(time.monotonic() + secs + 60)
        if line is None:
            raise RigError('no answer to command %d in %d s; rig log:\n%s' %
                           (self.n, secs + 60, self.tail()))
        parts = line.split()
        if len(parts) != 3 or parts[:2] != ['DONE', str(self.n)]:
            raise RigError('unexpected answer %r to command %d' %
                           (line, self.n))
        st = int(parts[2])
        return None if st in (124, 137) else st
