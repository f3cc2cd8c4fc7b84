"""Fixtures and markers of the integration tests (harness.py does the work).

Markers, each a need the host may not meet (the test is skipped, with
the reason, in the -rs summary):
    kvm            a usable /dev/kvm
    kvm_or_nested  irqlab-vmm on /dev/kvm, or else on the nested rig
                   (tests/nested/run-in-kvm.sh), skipped if that cannot run
    nested         only on the nested rig: where /dev/kvm is usable the
                   direct boots cover it (IRQLAB_TEST_KVM=nested runs it)
    qemu           QEMU with TCG
    qemu_testdev   QEMU with -device pc-testdev
    perf           perf that counts KVM's tracepoints
Each takes an optional reason, shown after the host's.
"""
import time

import pytest

pytest.register_assert_rewrite('harness')
import harness  # noqa: E402

_T0 = time.monotonic()

MARKERS = {
    'kvm': 'needs a usable /dev/kvm',
    'kvm_or_nested': 'irqlab-vmm on /dev/kvm, else on the nested rig',
    'nested': 'irqlab-vmm on the nested rig only (no /dev/kvm here)',
    'qemu': 'needs QEMU with TCG',
    'qemu_testdev': 'needs QEMU with -device pc-testdev',
    'perf': "needs perf counting KVM's tracepoints",
}


def pytest_configure(config):
    for name, text in MARKERS.items():
        config.addinivalue_line('markers', '%s: %s' % (name, text))


def _why(marker, host):
    extra = marker.args[0] if marker.args else ''
    return host + (': ' + extra if extra else '')


def pytest_runtest_setup(item):
    for m in item.iter_markers():
        if m.name == 'kvm' and not harness.kvm_usable():
            pytest.skip(_why(m, harness.no_kvm_reason()))
        elif m.name == 'nested' and harness.kvm_usable():
            pytest.skip(_why(m, 'this host has a usable /dev/kvm, and the '
                            'direct boots cover it (IRQLAB_TEST_KVM=nested '
                            'runs this)'))
        elif m.name in ('qemu', 'qemu_testdev'):
            why = (harness.qemu_missing() if m.name == 'qemu' else
                   harness.qemu_device_missing('pc-testdev'))
            if why:
                pytest.skip(_why(m, why))
        elif m.name == 'perf' and harness.perf_missing():
            pytest.skip(_why(m, harness.perf_missing()))


@pytest.fixture(scope='session')
def built():
    """The programs `make all` builds; missing ones fail every boot."""
    for f in (harness.VMM, harness.KERNEL, harness.KERNEL32):
        if not (harness.ROOT / f).exists():
            pytest.fail('%s is missing (make all)' % f, pytrace=False)


@pytest.fixture
def boot(request, built):
    """A harness.Booter for this test: .vmm(), .shared_vmm(), .qemu(),
    .run(); irqlab-vmm through the nested rig when the test is marked
    nested, or kvm_or_nested on a host without /dev/kvm."""
    marks = {m.name for m in request.node.iter_markers()}
    nested = 'nested' in marks or (
        'kvm_or_nested' in marks and not harness.kvm_usable())
    module = request.node.module.__name__
    return harness.Booter(module, nested)


@pytest.fixture(autouse=True)
def _runs_of_this_test():
    """harness.RUNS holds this test's commands only."""
    harness.RUNS.clear()
    yield


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_makereport(item, call):
    """A failed test's report carries every boot it ran, whole, and the
    path of the copy kept under build/tests/failed/."""
    rep = (yield).get_result()
    if rep.failed and rep.when in ('setup', 'call') and harness.RUNS:
        for title, text in harness.failure_evidence(item.nodeid):
            rep.sections.append((title, text))


def pytest_sessionfinish(session, exitstatus):
    harness.stop_rig_server()


def pytest_terminal_summary(terminalreporter, exitstatus, config):
    tr = terminalreporter
    if harness.NOTES:
        tr.section('notes: known deviations, flakes, what this host did')
        for n in harness.NOTES:
            tr.write_line(n)
    # one line for `make test` to print beside Criterion's
    parts, _ = tr.build_summary_stats_line()
    line = 'integration (pytest): %s in %.0f s' % (
        ', '.join(text for text, _ in parts),
        time.monotonic() - _T0)
    path = harness.ROOT / harness.OUT / 'integration.summary'
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(line + '\n')
