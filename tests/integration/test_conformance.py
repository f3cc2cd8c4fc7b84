"""make conformance's quick column (guest-bench/conformance,
docs/CONFORMANCE.md): irqlab-vmm --irqchip=user in x2APIC mode, booted
once with check=lapic,ioapic,pic,timer,ipi,hpet onfail=go (through the nested
rig without /dev/kvm), must give ok on every step it has (or HOST where
the host breaks a rule, with its evidence: harness.user_lapic_host()),
and none may be missing; and a column from a serial log captured elsewhere (QEMU TCG's
COM1, as a user of another hypervisor would hand it in) sits beside it,
its known departures FAILED, the boot going on past them."""
import json
import subprocess
import sys

import pytest

from harness import KERNEL32, QEMU, ROOT, qemu_status, user_lapic_host

TOOL = str(ROOT / 'guest-bench/conformance')


def conformance(tmp_path, *args):
    out = tmp_path / 'conf'
    p = subprocess.run([sys.executable, TOOL, '--no-doc', '-o', str(out)] +
                       list(args), capture_output=True, text=True,
                       timeout=900, cwd=ROOT)
    print(p.stderr)
    return p, out


@pytest.mark.kvm_or_nested
def test_user_column(tmp_path):
    p, out = conformance(tmp_path, '-c', 'vmm-user-x2apic')
    assert p.returncode == 0, p.stderr
    j = json.loads((out / 'conformance.json').read_text())
    c = j['configs'][0]
    assert (c['name'], c['status'], c['ended']) == (
        'vmm-user-x2apic', 'ran', 'ready'), c
    cells = {s['step']: s['cells']['vmm-user-x2apic'] for s in j['steps']}
    # ok, or HOST where the host is at fault, with its evidence (a KVM
    # with no KVM_EXIT_SET_TPR: kvm_pvm), as test_lapic_check allows
    bad = {k: v for k, v in cells.items() if v['verdict'] != 'ok' and not (
        v['verdict'] == 'HOST' and k.startswith('lapic: ') and
        user_lapic_host(k[len('lapic: '):], v['detail']))}
    assert not bad, bad
    # every check gave its steps: 13 + 37-odd lapic, 22 ioapic, 4 pit,
    # 20 pic, 5 timer (TSC-deadline offered), 1 ipi, 7 hpet (--hpet=on)
    for check, least in (('lapic', 40), ('ioapic', 22), ('pit', 4),
                         ('pic', 20), ('timer', 6), ('ipi', 1), ('hpet', 7)):
        n = sum(1 for k in cells if k.startswith(check + ': '))
        assert n >= least, '%s: %d steps, want %d or more' % (check, n,
                                                              least)
    md = (out / 'conformance.md').read_text()
    assert ('| vmm-user-x2apic | irqlab-vmm --irqchip=user --hpet=on, '
            'apic=x2apic |') in md


@pytest.mark.qemu
def test_log_column(boot, tmp_path):
    r = boot.run('tcg-conformance', [
        QEMU, '-accel', 'tcg', '-smp', '2', '-m', '128', '-kernel',
        KERNEL32, '-append',
        'check=lapic,ioapic,pic,timer,ipi,hpet onfail=go',
        '-device', 'pc-testdev', '-device',
        'isa-debug-exit,iobase=0xf4,iosize=0x04', '-serial', 'stdio',
        '-display', 'none', '-no-reboot', '-nodefaults'], 180)
    # QEMU 7.2 TCG breaks some rules (docs/LAPIC.md): onfail=go ends in
    # @panic reason=checks, status 0x31, after every check ran
    qemu_status(r, 0x63, 'kernel exit status 0x31')
    assert r.has('^@panic reason=checks failed=')
    log = tmp_path / 'qemu-tcg.log'
    log.write_text(r.out)
    p, out = conformance(tmp_path, '--log', str(log))
    assert p.returncode == 0, p.stderr
    j = json.loads((out / 'conformance.json').read_text())
    c = j['configs'][0]
    assert (c['name'], c['ran'], c['ended']) == (
        'qemu-tcg [TCGTCGTCGTCG]', 'log', 'ready'), c
    cells = {s['step']: s['cells'][c['name']]['verdict'] for s in j['steps']}
    assert cells['ipi: every IPI once'] == 'ok'
    assert cells['pic: edge: rising edge delivers base+line'] == 'ok'
    # QEMU 7.2's PIT goes on counting after a control word (8254: no)
    assert cells['pit: a control word stops channel 0'] == 'FAILED'
    # no x2APIC in QEMU 7.2 TCG: its steps were none of this boot's
    assert cells.get('lapic: dest: x2APIC logical: both', 'SKIPPED') == \
        'SKIPPED'
    bad = tmp_path / 'empty.log'
    bad.write_text('')
    p, _ = conformance(tmp_path, '--log', str(bad))
    assert p.returncode == 2 and 'empty' in p.stderr
