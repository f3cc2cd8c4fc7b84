# SPDX-License-Identifier: MIT
"""guest-bench/runner/linux.py's pure parts: reading a boot's console
into a row, perf stat's CSV, the commonest exits, the table."""
import pytest

from runner import boot, linux, records

CONSOLE = '''[    0.000000] Linux version 6.1.0-57-amd64
@linux kernel=6.1.0-57-amd64 cpus=2 online=0-1 uptime_s=22.11 \
clocksource=acpi_pm clocksources=acpi_pm hv=none apic=default x2apic=0 \
tsc_mhz=na benches=2
@linux_irq phase=init cpu=0 loc=100 res=10 cal=20
@linux_irq phase=init cpu=1 loc=200 res=11 cal=21
@linux_wake n=1 status=0 woken=1 threads=1 ms=0.2210 rse_pct=20.00 \
runs=10 took_s=5.82 cmd=perf,bench,futex,wake,-t,1
@linux_wake n=2 status=0 woken=2 threads=2 ms=1.4977 rse_pct=73.00 \
runs=10 took_s=4.59 cmd=perf,bench,futex,wake,-t,2
@linux_irq phase=end cpu=0 loc=852 res=38 cal=142
@linux_irq phase=end cpu=1 loc=979 res=33 cal=149
@linux_done uptime_s=58.53 failed=0
[   59.928154] reboot: Power down
'''


def result(out, status=0, timed_out=False):
    r = boot.Result(['build/irqlab-vmm'])
    r.out, r.status, r.timed_out, r.wall_ms = out, status, timed_out, 5e3
    return r


def test_a_finished_boot_fills_the_row():
    row = linux.Row('irqlab-user', 'test')
    linux.take_guest(row, result(CONSOLE), 2)
    assert row.state == 'ok', row.why
    assert row.init_s == pytest.approx(22.11)
    assert row.wake[1].ms == pytest.approx(0.221)
    assert row.wake[2].threads == 2
    assert row.irq[0] == {'loc': 752, 'res': 28, 'cal': 122}
    assert row.irq[1]['cal'] == 128
    assert row.clocksource == 'acpi_pm'
    assert row.last_line.endswith('reboot: Power down')
    tab = linux.table([row], 2)
    assert '| irqlab-user | 0.2210 (+-20%)' in tab
    assert '752/28/122 779/22/128' in tab


def test_the_report_and_where_a_full_run_goes(tmp_path, monkeypatch):
    row = linux.Row('irqlab-user', 'irqlab-vmm --irqchip=user, in the '
                    'nested rig')
    linux.take_guest(row, result(CONSOLE), 2)
    md = linux.report_md([row], 2, '6.1.0-57-amd64', 'none',
                         'no usable /dev/kvm')
    assert md.startswith('Host: ')
    assert '/dev/kvm: none (no usable /dev/kvm)' in md
    assert '| irqlab-user | 0.2210 (+-20%)' in md
    assert '- irqlab-user: irqlab-vmm --irqchip=user, in the nested rig' in md
    # only a run of every row at the defaults is published
    assert linux.parse_args([]).full
    assert not linux.parse_args(['--rows', 'native']).full
    assert not linux.parse_args(['--vmm-args=--kvm-pv=on']).full
    assert linux.parse_args([]).matrix_full
    assert not linux.parse_args(['--matrix-apics', 'x2apic']).matrix_full
    assert linux.parse_args([]).profile_full
    assert not linux.parse_args(['--profile-cpus', '4']).profile_full


def test_no_init_is_did_not_boot_with_the_last_line():
    row = linux.Row('qemu-kvm', 'test')
    linux.take_guest(row, result('Probing EDD (edd=off to disable)... ok\n',
                                 status=None, timed_out=True), 2)
    assert row.state == 'did-not-boot'
    assert 'timed out' in row.why
    assert row.why.endswith('Probing EDD (edd=off to disable)... ok')


def test_no_done_is_a_failure():
    cut = CONSOLE[:CONSOLE.index('@linux_irq phase=end')]
    row = linux.Row('qemu-tcg', 'test')
    linux.take_guest(row, result(cut), 2)
    assert row.state == 'failed' and 'no @linux_done' in row.why


def test_perf_stat_csv(tmp_path):
    f = tmp_path / 'perf'
    f.write_text('# started on Thu Dec  3 16:51:51 2026\n\n'
                 '0,,kvm:kvm_exit,360105146014,100.00,,\n'
                 '245269,,kvm:kvm_userspace_exit,360105136820,100.00,,\n'
                 '<not counted>,,kvm:kvm_emulate_insn,0,0.00,,\n')
    assert linux.perf_stat_read(str(f)) == {
        'kvm:kvm_exit': 0, 'kvm:kvm_userspace_exit': 245269}
    assert linux.perf_stat_read(str(tmp_path / 'none')) == {}


def test_top_exits():
    ex = {'by_port': {'0x608': 40388, '0x3f8': 18840},
          'by_mmio': {'lapic+0xb0': 10697}, 'by_msr': {'0x1b': 7}}
    assert linux.top_exits(ex, 3) == \
        'pio 0x608 40388, pio 0x3f8 18840, lapic+0xb0 10697'


def test_wake_summaries_parse_as_the_records_module_says():
    run = records.linux_run(CONSOLE)
    assert run.finished() and run.cpus == 2


@pytest.mark.parametrize('own,names,want', [
    ('amd', ['host', 'other'], ['host', 'intel']),
    ('intel', ['host', 'other'], ['host', 'amd']),
    ('amd', ['amd', 'intel', 'other'], ['host', 'intel']),
    ('intel', ['intel'], ['host']),
])
def test_profile_vendors(monkeypatch, own, names, want):
    from runner import linuxmatrix
    monkeypatch.setattr(linuxmatrix, 'guest_vendor', lambda: own)
    assert linuxmatrix.profile_vendors(names) == want


def test_profile_vendors_option():
    a = linux.parse_args(['--profile', '--profile-vendors', 'intel,host'])
    assert a.profile_vendors == ['intel', 'host']
    with pytest.raises(SystemExit):
        linux.parse_args(['--profile', '--profile-vendors', 'via'])


PANIC = '''[   14.1] BUG: ENTRY_TRAMPOLINE stack guard page was hit at (____ptrval____)
[   14.1] RIP: 0010:irqentry_enter+0x9/0x50
[   14.1] RIP: 0010:asm_sysvec_apic_timer_interrupt+0x0/0x20
[   14.1] Kernel panic - not syncing: Fatal exception in interrupt
'''
# the same fault a few instructions later (fault-rate, smp2-default,
# kernel-008): the second delivery on error_entry's first instruction,
# inside the first one's entry, IF=0 in its frame
PANIC_ENTRY = '''[   12.3] BUG: ENTRY_TRAMPOLINE stack guard page was hit at (____ptrval____)
[   12.3]  asm_exc_page_fault+0x22/0x30
[   12.3] RIP: 0010:irqentry_enter+0x9/0x50
[   12.3] Code: 00 65 48 03 05 30 11 5d 7e 8b 00 83 e0 03 83 f8 02 74 e0 0f 0b eb dc
[   12.3] RSP: 0000:fffffe0000002ef8 EFLAGS: 00000046
[   12.3]  sysvec_apic_timer_interrupt+0xa/0x90
[   12.3]  asm_sysvec_apic_timer_interrupt+0x16/0x20
[   12.3] RIP: 0010:error_entry+0x0/0x130
[   12.3] Code: de eb 0a f3 48 0f ae db e9 16 fd ff ff 85 db 0f 85 0e fd ff ff 0f 01
[   12.3] RSP: 0000:fffffe0000002fc8 EFLAGS: 00000006
[   12.3] RAX: 0000000000001000 RBX: 0000000000000000 RCX: 00007f0932b26999
[   12.3]  asm_sysvec_apic_timer_interrupt+0xb/0x20
[   12.3] RIP: 0033:0x7f0932b26407
[   12.3] RSP: 002b:00007fff3918de10 EFLAGS: 00000206
[   12.3] Kernel panic - not syncing: Fatal exception in interrupt
'''
# vCPU0 in the spin-lock slow path (nokaslr: text at 0xffffffff81000000),
# the PIT's vector in service; vCPU1 not started
DUMP = '''irqlab-vmm: --timeout 150: the guest has not ended after 150 s
irqlab-vmm: vcpu0: running, RIP 0xffffffff81a5a170 RFLAGS 0x2 (IF=0), IA32_APIC_BASE 0xfee00900 (xAPIC)
  TPR 0x10 PPR 0x30 SVR 0x1ff ESR 0x00 ID 0x00000000 LDR 0x01000000
  IRR 0x30
  ISR 0x30
irqlab-vmm: vcpu1: waiting for INIT and SIPI, RIP 0xfff0 RFLAGS 0x2 (IF=0), IA32_APIC_BASE 0xfee00800 (xAPIC)
  IRR -
  ISR -
'''
# the same build loaded elsewhere (KASLR): offsets from _text count
SYMS = linux.Kallsyms('''ffffffffb4c00000 T _text
ffffffffb4c00000 T _stext
ffffffffb53a1250 t acpi_pm_read
ffffffffb565a140 T native_queued_spin_lock_slowpath
ffffffffb565a400 T native_queued_spin_lock_slowpath_end
ffffffffb565a500 T default_idle
''')


def test_kallsyms_names_a_nokaslr_rip():
    assert SYMS.name(0xffffffff81a5a170) == \
        'native_queued_spin_lock_slowpath+0x30'
    assert SYMS.name(0xffffffff807a1250) is None
    assert SYMS.name(0xfff0) is None


def test_rig_fault_reads_both_faces():
    assert 'again on its handler' in linux.rig_fault(22, PANIC, '')
    stall = linux.rig_fault(18, '', DUMP, SYMS)
    assert 'native_queued_spin_lock_slowpath+0x30 with IF=0, vector 0x30 ' \
        'in service' in stall
    # alone: vCPU1 never started, nothing in service (a lock taken with
    # interrupts off, then an interrupt)
    alone = DUMP.replace('  ISR 0x30', '  ISR -')
    assert 'the only CPU online' in linux.rig_fault(18, '', alone, SYMS)
    # not the rig's: a clean end, a stall with IF=1, elsewhere than the
    # spin-lock slow path, with nothing in service and another CPU up, no
    # symbols to tell; a panic elsewhere
    assert linux.rig_fault(0, PANIC, DUMP, SYMS) is None
    assert linux.rig_fault(18, '', DUMP.replace('(IF=0)', '(IF=1)'),
                           SYMS) is None
    assert linux.rig_fault(18, '', DUMP.replace('81a5a170', '81a5a510'),
                           SYMS) is None
    up = alone.replace('waiting for INIT and SIPI', 'halted')
    assert linux.rig_fault(18, '', up, SYMS) is None
    assert linux.rig_fault(18, '', DUMP) is None
    assert linux.rig_fault(22, PANIC.replace('+0x0/', '+0x16/'), '') is None
    # inside the first delivery's entry: the interrupted frame's IF=0
    why = linux.rig_fault(22, PANIC_ENTRY, '')
    assert 'again inside its own entry (at error_entry+0x0/0x130), with ' \
        'IF=0' in why, why
    # the same frames with IF=1 there: an interrupt the CPU may take
    assert linux.rig_fault(22, PANIC_ENTRY.replace(
        'EFLAGS: 00000006', 'EFLAGS: 00000206'), '') is None
    # no stack guard page: not this panic
    assert linux.rig_fault(22, PANIC_ENTRY.replace(
        'stack guard page was hit', 'kernel BUG'), '') is None
    assert linux.rig_fault(124, '', DUMP, SYMS) is None


def test_qemu_status_tells_a_panic_from_a_power_off():
    # QEMU -no-reboot exits 0 on the panic's reset as on the power-off
    assert linux.qemu_status(result(CONSOLE)) == 0
    assert linux.qemu_status(result(PANIC)) == 'panic'
    assert linux.qemu_status(result('[ 1.0] reboot: Restarting')) == 'reset'
    assert linux.qemu_status(result('', status=1)) == 1
    # so a QEMU/KVM boot in the rig that panicked of the rig's fault is
    # booted again, and one that finished is not
    assert 'again on its handler' in linux.rig_fault(
        linux.qemu_status(result(PANIC)), PANIC, '')
    assert linux.rig_fault(linux.qemu_status(result(CONSOLE)), CONSOLE,
                           '') is None


@pytest.mark.parametrize('kvm,qemu_kvm,irqlab,want', [
    ('none', 'auto', 'auto', 'nested'),
    ('kvm_pvm', 'auto', 'auto', 'nested'),
    ('real', 'auto', 'auto', 'direct'),
    ('real', 'auto', 'nested', 'nested'),     # make bench-linux RIG=1
    ('kvm_pvm', 'direct', 'auto', 'direct'),
    ('real', 'nested', 'auto', 'nested'),
])
def test_the_qemu_kvm_rows_go_where_irqlab_vmms_do(monkeypatch, kvm,
                                                   qemu_kvm, irqlab, want):
    monkeypatch.setattr(linux, 'host_kvm', lambda: (kvm, 'test'))
    a = linux.parse_args(['--qemu-kvm', qemu_kvm, '--irqlab', irqlab])
    assert linux.qemu_kvm_how(a) == want


# guest-bench/qemu-limit's dump (runner/qmp.py) of a QEMU that hung in
# the rig: QEMU's own text for 'info registers -a' and 'info lapic N'
QEMU_DUMP = '''
--- qemu-limit: QEMU ran past 240 s; its vCPUs then (QMP "info registers -a", "info lapic N"):

CPU#0
RAX=0000000000000001 RBX=ffffffff82a13e40 RCX=0000000000000001 RDX=0000000000000000
RIP=ffffffff81a5a170 RFL=00000002 [-------] CPL=0 II=0 A20=1 SMM=0 HLT=0
ES =0000 0000000000000000 00000000 00000000

CPU#1
EAX=00000000 EBX=00000000 ECX=00000000 EDX=00060fb1
EIP=0000fff0 EFL=00000002 [-------] CPL=0 II=0 A20=1 SMM=0 HLT=1
CPU#0 LAPIC:
dumping local APIC state for CPU 0

LVT0\t 0x00010700 active-hi edge  masked                      ExtINT (vec 0)
ISR\t 48
IRR\t 48 236(level)

CPU#1 LAPIC:
dumping local APIC state for CPU 1

ISR\t (none)
IRR\t (none)
'''


def test_qmp_reads_qemus_dump():
    from runner import qmp
    assert qmp.cpus(QEMU_DUMP) == [
        (0, 'running', 0xffffffff81a5a170, False, ['0x30']),
        (1, 'halted', 0xfff0, False, [])]
    assert qmp.cpus('none: QMP gave nothing') == []


def test_a_qemu_stall_in_the_rig_is_the_rigs_fault():
    # qemu-limit stopped it ('limit'): the same rule as irqlab-vmm's dump
    why = linux.rig_fault('limit', '', QEMU_DUMP, SYMS)
    assert 'vCPU0 spinning for good in native_queued_spin_lock_slowpath' \
        '+0x30 with IF=0, vector 0x30 in service' in why
    assert "qemu-limit's dump" in why
    assert linux.rig_fault('limit', '', QEMU_DUMP.replace(
        'RFL=00000002', 'RFL=00000202'), SYMS) is None
    assert linux.rig_fault('limit', '', QEMU_DUMP) is None     # no kallsyms
    r = result('', status=None, timed_out=True)
    assert linux.qemu_status(r) == 'limit'
