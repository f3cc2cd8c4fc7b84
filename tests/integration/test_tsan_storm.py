"""The IPI storm under ThreadSanitizer (docs/LAPIC.md "The IPI storm").

irqlab-vmm built with TSan (make TSAN=1 B=build/tsan), --irqchip=user,
8 vCPUs (on however many host CPUs there are), check=ipi ipi_storm=1: every
CPU sends fixed IPIs to every other one, self IPIs and broadcasts without
waiting for each, its LAPIC timer running and its LVT timer entry masked
and moved all along (kernel/check/ipi_storm.c).  Each mode, x2APIC and xAPIC,
must end with no ThreadSanitizer report and @ipi_check exact: nothing
lost, nothing duplicated, no stale timer interrupt, no stall.

A short storm (STORM_K, default 20: 2,400 IPIs a mode); make tsan-storm
runs the full 1,000,080.  The suppressions (tests/tsan.supp) are passed
as make tsan-storm passes them."""
import os
import re
import subprocess

import pytest

from harness import KERNEL as K, ROOT

pytestmark = pytest.mark.kvm_or_nested

STORM_K = int(os.environ.get('STORM_K', '20'))
TSAN_VMM = 'build/tsan/irqlab-vmm'
TSAN_ENV = {'TSAN_OPTIONS': 'suppressions=%s halt_on_error=0 exitcode=66'
            % (ROOT / 'tests/tsan.supp')}
CPUS = 8


@pytest.fixture(scope='module')
def vmm():
    log = ROOT / 'build/tests/test_tsan_storm/tsan-build.log'
    log.parent.mkdir(parents=True, exist_ok=True)
    with open(log, 'w') as f:
        ok = subprocess.run(['make', '-s', 'TSAN=1', 'B=build/tsan',
                             TSAN_VMM], cwd=ROOT, stdout=f,
                            stderr=f).returncode == 0
        ok = ok and subprocess.run([TSAN_VMM, '--version'], cwd=ROOT,
                                   stdout=f, stderr=f,
                                   env=dict(os.environ, **TSAN_ENV)
                                   ).returncode == 0
    if not ok:
        tail = ' | '.join(log.read_text().strip().splitlines()[-3:])
        pytest.skip('SKIP: no ThreadSanitizer build of irqlab-vmm here (%s): '
                    '%s' % (log.relative_to(ROOT), tail))
    return TSAN_VMM


def sent(n, k):
    """check=ipi's count on n CPUs (docs/RECORDS.md)."""
    return n * k * (2 * (n - 1) + 1)


@pytest.mark.parametrize('apic', ['x2apic', 'xapic'])
def test_tsan_storm(boot, vmm, apic):
    r = boot.in_kvm('storm-' + apic,
                 [vmm, '--cpus', CPUS, '--stats', '--timeout', 300, '-a',
                  'check=ipi ipi_storm=1 ipi_k=%d apic=%s' % (STORM_K, apic),
                  K], 330, env=TSAN_ENV)
    if r.has('FATAL: ThreadSanitizer: unexpected memory mapping', 'err'):
        pytest.skip('SKIP: TSan cannot map its shadow on this kernel '
                    '(vm.mmap_rnd_bits too high): %s' % r.grep('FATAL', 'err'))
    warnings = r.grep('WARNING: ThreadSanitizer', 'err')
    assert not warnings, '%s: %d ThreadSanitizer reports\n%s' % (
        r.name, len(warnings), r.report(200))
    assert r.status == 0, r.report()
    n = sent(CPUS, STORM_K)
    m = re.search(r'^@ipi_check sent=%d received=%d lost=0 dup=0 cpus=%d '
                  r'k=%d stalls=0 tsc=\d+ storm=1 bcast=(\d+) timer_us=\d+ '
                  r'timer_irqs=(\d+) lvt_writes=(\d+) stale_timer=0 '
                  r'isr_busy=0 ' % (n, n, CPUS, STORM_K), r.out, re.M)
    assert m, r.report()
    assert int(m.group(1)) == CPUS * (CPUS - 1) * STORM_K, m.group(0)
    print('%s: %d IPIs (%s broadcast) exact, %s timer interrupts, %s LVT '
          'rewrites, no TSan report, %.1f s' % (
              r.name, n, m.group(1), m.group(2), m.group(3), r.seconds))
