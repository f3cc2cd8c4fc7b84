"""The irqlab kernel in irqlab-vmm: banner, records, exit status, the
--stats table and JSON, calibration, SMP and IPIs in every irqchip and
APIC mode, the guest failures (panic, triple fault, cli; hlt) and
--halt-poll.  The IOAPIC, PIT and PIC boots are test_vmm_irq.py.
Without /dev/kvm every boot goes through tests/nested/run-in-kvm.sh."""
import re
import statistics
import struct

import pytest

from harness import (KERNEL as K, ROOT, has, kvm_usable, rig_dup_ipi,
                     rig_rule, status)
from runner import boot as boot_rt  # noqa: E402 (harness: the path)

pytestmark = pytest.mark.kvm_or_nested


def test_mb2(boot):
    r = boot.vmm('mb2', '-a', 'hello world', K)
    status(r, 0)
    has(r, '^irqlab kernel')
    has(r, '^@cpuid vendor=[^ ]+ ')
    has(r, '^@boot proto=mb2 hv=[^ ]+ pv=1 .*argc=3 path=1 ignored=2$')
    has(r, '^@ready ')
    assert r.has('irqlab-vmm exits:', 'err'), 'no --stats table on stderr'
    e = r.exits
    for k in ('total', 'by_reason', 'by_port', 'by_mmio', 'by_msr',
              'by_phase'):
        assert k in e, k
    assert e['total'] == sum(e['by_reason'].values()), \
        'total != sum of reasons'
    assert e['by_reason'].get('IO', 0) > 0
    assert '0xed4' in e['by_port'], 'no power-off exit counted'
    # 48 exits, + 2: the 8259s masked at boot (kernel/dev/pic.c); of them
    # the calibration's 10 a try, and a loaded host's CPU away during a
    # window makes another try (docs/CALIB.md): @calib says how many
    c = r.rec('calib')
    tries, cal = int(c['tries']), int(c['exits'])
    assert cal <= 10 * tries, c.line
    assert e['total'] - cal < 42, 'boot took %d exits, %d of them the ' \
        'calibration\'s (%d tries)' % (e['total'], cal, tries)
    print('stats ok: %d exits' % e['total'])
    # Calibration (docs/CALIB.md): with the CPUID frequency leaves (the
    # default) it takes no port I/O at all
    has(r, '^@calib source=cpuid15 tsc_khz=[1-9][0-9]* .* polls=0 '
        'exits=[0-9]+ pio_exits=0 .*cpuid_bus_khz=1000000 ')


def test_calib_off(boot):
    """With the leaves zeroed calibration falls back to the PIT, and
    irqlab's count of port-I/O exits in the calib phase is the kernel's
    own count of its port accesses, exactly."""
    r = boot.vmm('calib-off', '--cpuid-freq=off', K)
    status(r, 0)
    has(r, '^@calib source=pit tsc_khz=[1-9][0-9]* lapic_khz=[1-9][0-9]* ')
    kv = r.rec('calib')
    assert int(kv['polls']) > 0 and \
        int(kv['pio_exits']) == int(kv['pio']) > int(kv['polls']), kv.line
    print("calib-off: %s polls, %s port-I/O exits = the kernel's %s "
          'accesses' % (kv['polls'], kv['pio_exits'], kv['pio']))
    # the bound drives the window (docs/CALIB.md): widened until the bound
    # is within 1%, or said to be missed; either way the true rate is
    # within it
    b, t = int(kv['lapic_err_ppm']), int(kv['target_ppm'])
    assert t == 10000 and kv['bound'] in ('met', 'missed'), kv.line
    assert (kv['bound'] == 'met') == (b <= t), kv.line
    assert int(kv['start_us']) <= int(kv['window_us']) <= \
        int(kv['max_us']), kv.line
    assert (int(kv['widened']) > 0) == \
        (int(kv['window_us']) > int(kv['start_us'])), kv.line
    e = abs(int(kv['lapic_khz']) - 1000000) * 1e6 / 1000000
    assert e <= b + 1, ('APIC timer %d ppm off, outside its bound' % e,
                        kv.line)
    print('calib-off: window %s us (widened %s times), APIC timer %d ppm '
          'off, bound %d ppm: %s' % (kv['window_us'], kv['widened'], e, b,
                                     kv['bound']))


def test_calib_hv(boot):
    r = boot.vmm('calib-hv', '--cpuid-freq=hv', '--irqchip=kernel', K)
    status(r, 0)
    has(r, '^@calib source=hv .* pio_exits=0 ')


@pytest.mark.parametrize('vendor,sig', [('intel', 'GenuineIntel'),
                                        ('amd', 'AuthenticAMD')])
def test_cpu_vendor(boot, vendor, sig):
    """--cpu-vendor: the kernel reads the string from leaf 0, and the
    frequency leaves stay (calibration takes 0x15 whatever the vendor);
    irqlab-vmm says when the string is not the host's."""
    r = boot.vmm('vendor-' + vendor, '--cpu-vendor', vendor, K)
    status(r, 0)
    has(r, '^@cpuid vendor=%s ' % sig)
    has(r, '^@calib source=cpuid15 ')
    host = open('/proc/cpuinfo').read()
    if 'vendor_id\t: %s' % sig not in host and not boot.nested:
        has(r, '^irqlab-vmm: --cpu-vendor: the guest sees %s on this ' % sig,
            'err')


@pytest.mark.parametrize('chip', ['user', 'kernel'])
def test_calib_accuracy(boot, chip):
    """The APIC timer measured against the CPUID-given TSC: within 0.1% of
    the true 1 GHz (--apic-mhz's default, and KVM's).  A boot whose vCPU
    thread is descheduled inside one of the timed reads is off by more
    (docs/CALIB.md), so the median of 5 boots is held to 0.1%; every boot
    must lie within its own reported bound, and APIC exits stay at the
    RDTSC method's 8 accesses plus the timer setup."""
    errs = []
    for i in range(1, 6):
        r = boot.vmm('calib-acc-%s-%d' % (chip, i), '--irqchip=' + chip, K)
        status(r, 0)
        kv = r.rec('calib')
        assert kv['source'] == 'cpuid15' and kv['pio_exits'] == '0', kv.line
        # 10 per try (2 arms, 2 x 3 reads); a window the vCPU was away
        # for is timed again (kernel/sys/calib_hw.c)
        assert kv['apic_exits'] == 'na' or \
            int(kv['apic_exits']) <= 10 * int(kv['tries']), kv.line
        e = abs(int(kv['lapic_khz']) - 1000000) * 1e6 / 1000000
        assert e <= int(kv['lapic_err_ppm']), (r.name, e, kv.line)
        errs.append(e)
    m = statistics.median(errs)
    print('calib-acc-%s: APIC timer error %s ppm, median %d' % (
        chip, [int(e) for e in errs], m))
    if kvm_usable() and boot_rt.kvm_hypercalls_loop():     # kvm_pvm
        # kvm_pvm traps RDTSC and every APIC read (15-50 us each): the
        # median wanders past 0.1% there (1327 ppm once, idle), while each
        # boot's own bound holds, which is what the kernel claims
        pytest.skip('calib-acc-%s: on kvm_pvm RDTSC and the APIC reads trap '
                    '(median %d ppm); each boot within its bound' % (chip, m))
    if not kvm_usable():
        # the nested rig's CPU is QEMU TCG's: a 1 ms window is at the mercy
        # of its scheduling (9127, 1060, 119, 2910, 5215 ppm in one run),
        # which says nothing of irqlab; each boot's own bound still holds
        pytest.skip('calib-acc-%s: accuracy under the nested rig is TCG '
                    'timing (median %d ppm); each boot within its bound' %
                    (chip, m))
    assert m <= 1000, m


def test_mb1(boot):
    r = boot.vmm('mb1', '--multiboot', '1', K)
    status(r, 0)
    has(r, '^@boot proto=mb1 .*pv=1')


def smp_boot(boot, name, args):
    """The boot, under the nested rig's rule (harness.rig_rule): with
    KVM's LAPIC in the rig, an IPI received twice (and none lost) is the
    rig's second delivery, booted again once."""
    r = rig_rule(boot, name, lambda n: boot.vmm(n, *args), rig_dup_ipi)
    status(r, 0)
    return r


def pairs(r):
    return ' | '.join(r.grep(r'^(@ipi_check|ipi_check: cpu [0-9]+ ->)'))


@pytest.mark.parametrize('apic', ['x2apic', 'xapic'])
@pytest.mark.parametrize('chip', ['user', 'kernel', 'split'])
def test_smp(boot, chip, apic):
    """SMP in every irqchip and both APIC modes: INIT/SIPI from the MADT,
    then check=ipi's fixed, self and broadcast IPIs, every one counted
    exactly.  In user mode every IPI is handled by irqlab: one EOI write
    per interrupt received (the check's, the one wake-up IPI the BSP sends
    each AP to start it, and check=timer's), and the ICR writes are counted
    as sends."""
    trace = ['--trace=lapic'] if (chip, apic) == ('user', 'x2apic') else []
    if chip != 'user':
        # KVM's LAPIC: a rig of one CPU, where its second delivery did not
        # come in 50 boots (tests/nested/README.md "Fault rate")
        boot.rig_smp = 1
    r = smp_boot(boot, 'smp-%s-%s' % (chip, apic),
                 ['--irqchip=' + chip] + trace +
                 ['--cpus', '4', '-a', 'check=ipi,timer apic=' + apic, K])
    has(r, 'fwcfg_cpus=4')
    has(r, '^@smp online=4 apic=%s cpus=4 ' % apic)
    has(r, r'^@ipi_check sent=([0-9]+) received=\1 lost=0 dup=0 ')
    # irqlab offers TSC-deadline; KVM 6.1's LAPIC does too only when the
    # CPUID bit is set, which KVM lists as emulated, not supported
    tdl = 'ok' if chip == 'user' else '(ok|absent)'
    has(r, '^@timer_check oneshot=ok periodic=10 tsc_deadline=%s early=0 '
        'irqs=' % tdl)
    if trace:
        has(r, r'^t=[0-9]+\.[0-9]{6} vcpu=0 IPI start-up vector 0x8 '
            'physical dest 0x3$', 'err')
        has(r, '^t=[0-9.]+ vcpu=[0-3] wrmsr EOI = 0$', 'err')
    if chip != 'user':
        return
    c = r.exits['classes']
    recv = int(re.search(r'@ipi_check sent=\d+ received=(\d+)',
                         r.out).group(1))
    recv += 3 + int(re.search(r'@timer_check .* irqs=(\d+)', r.out).group(1))
    assert c['apic_eoi'] == recv, ('one EOI per interrupt', c['apic_eoi'],
                                   recv)
    assert c['apic_send'] > 0 and \
        c['apic'] >= c['apic_send'] + c['apic_eoi'], c
    # sends and EOIs are MMIO in xAPIC mode, MSR in x2APIC mode
    # (IA32_APIC_BASE and IA32_TSC_DEADLINE are MSR exits in both)
    key = 'msr' if apic == 'x2apic' else 'mmio'
    assert c[key] >= c['apic_send'] + c['apic_eoi'], (
        'LAPIC accesses are %s exits' % key, c)
    assert c['mmio'] + c['msr'] >= c['apic'], c
    print('%s: %d EOIs for %d interrupts, %d sends' % (
        apic, c['apic_eoi'], recv, c['apic_send']))


def test_split_pit(boot):
    """--irqchip=split: KVM's LAPIC, irqlab's PIT: the PIT calibration
    polls irqlab's channel 2 through port 0x61, every access an exit it
    counts."""
    r = boot.vmm('split-pit', '--irqchip=split', '--trace=pit',
                 '--cpuid-freq=off', '--cpus', '2', '-a', 'calib=pit', K)
    status(r, 0)
    has(r, '^@calib source=pit tsc_khz=[1-9][0-9]* lapic_khz=[1-9][0-9]* ')
    assert r.has(r'^t=[0-9]+\.[0-9]{6} vcpu=0 pit: ch2 control '
                 '0x[0-9a-f]{2}: mode [0-5] rw [1-3]', 'err') and \
        r.has('^t=[0-9.]+ vcpu=0 pit: read port 0x61 = 0x[0-9a-f]{2}: '
              'gate2 1 speaker [01] out2 [01] refresh [01]$', 'err'), \
        '--trace=pit: no decoded control word or port 0x61 line\n' + \
        r.report()
    has(r, '^ irqchip split: route_commits [0-9]+ for [0-9]+ IOAPIC '
        'redirection writes', 'err')
    kv = r.rec('calib')
    assert int(kv['polls']) > 0 and int(kv['pio_exits']) == int(kv['pio']), \
        kv.line
    print('split-pit: %s polls, %s port-I/O exits' % (kv['polls'],
                                                       kv['pio_exits']))


def test_kernel_irqchip_kick(boot):
    """KVM_RUN returns EAGAIN once per AP when its SIPI arrives; only EINTR
    is a kick, and the teardown kick must not be counted at all."""
    r = boot.vmm('kirq', '--irqchip=kernel', '--hlt=guest', '--cpus', '2', K)
    status(r, 0)
    has(r, '^@boot proto=mb2 hv=irqlab pv=1 .*fwcfg_cpus=2')
    assert r.exits['classes']['kick'] == 0, \
        'the teardown kick was counted as an exit: %s' % r.exits


def test_halt_poll(boot):
    """--halt-poll (docs/VMM.md): the wake-up comes while the target spins,
    and the exits are the same 3 per wake.  A 10 ms bound, so that the
    window reaches the ~100 us between ipi_wake's HLT and its IPI however
    slow the host is; whether it is faster is for docs/BENCHMARKS.md.
    ipi_wake refuses to run where the TSCs look skewed (@bench_skip
    reason=tsc-skew: where RDTSC traps and the host is loaded, the round
    trip of tsc_sync can look like skew); then no HLT is polled at all, so
    the boot is tried again, and after 3 such boots the test skips."""
    for t in (1, 2, 3):
        r = boot.vmm('halt-poll-%d' % t, '--cpus', '2', '--stats',
                     '--halt-poll', '10000', '-a', 'bench=ipi_wake iters=200',
                     K)
        status(r, 0)
        skipped = r.grep('^@bench_skip case=ipi_wake ')
        if not skipped:
            break
        print('%s: %s' % (r.name, skipped[0]))
    else:
        pytest.skip('halt-poll: ipi_wake skipped itself in 3 boots: %s' %
                    skipped[0])
    has(r, r'^@bench case=ipi_wake .* send_exits=1\.00 '
        r'kick_exits=[0-9.]+ eoi_exits=1\.00 hlt_exits=1\.00 ')
    # beside those, at most a stray exit (an interrupt window) in 200,
    # and a kick only where the host kept CPU1 from its HLT for the 100 us
    # CPU0 waits (labs/checks.py KICK_MAX)
    rec = r.rec('bench', case='ipi_wake')
    assert float(rec['other_exits']) <= 0.01, rec.line
    assert float(rec['kick_exits']) <= 0.05, rec.line
    has(r, '^ halt-poll 10000 us: [1-9][0-9]* of [1-9][0-9]* polled HLTs '
        'woken while spinning$', 'err')


def test_crash(boot):
    r = boot.vmm('crash', '-a', 'crash=ud', K)
    status(r, 49)
    has(r, '^@panic vector=6 ')


def mkimage(name, code):
    """A tiny a.out-kludge multiboot image: code at 1 MiB + 0x20."""
    flags = 0x00010000                  # a.out kludge: address fields valid
    hdr = struct.pack('<8I', 0x1badb002, flags,
                      (-(0x1badb002 + flags)) & 0xffffffff,
                      0x100000, 0x100000, 0, 0, 0x100020)
    path = ROOT / 'build/tests/test_vmm_boot' / name
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(hdr + bytes.fromhex(code))
    return str(path.relative_to(ROOT))


def test_triple_fault(boot):
    """ud2 with no IDT escalates to a triple fault."""
    r = boot.vmm('triple', mkimage('triple.bin', '0f0b'))
    status(r, 8)
    has(r, 'vcpu0: triple fault', 'err')
    # Intel keeps the faulting state; AMD's KVM resets the vCPU first, and
    # says so
    has(r, 'RIP=0+100020 |these are reset values', 'err')


def test_cli_hlt(boot):
    """cli; hlt can never be woken."""
    r = boot.vmm('halt', mkimage('halt.bin', 'faf4'))
    status(r, 16)
    has(r, 'HLT with interrupts disabled', 'err')
