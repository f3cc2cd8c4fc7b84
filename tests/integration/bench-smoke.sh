#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
#
# Smoke run of the host runner (guest-bench/run --quick, as make bench
# QUICK=1) on a few configs: every config ran, every guest config has a
# record for every case any config reported (@bench with the statistics
# as numbers, irqlab-vmm also with the exit counts, or @bench_skip with a
# reason), the native row has its two cases, results.json and results.md
# exist.  First, with no KVM needed: bench-report turns a truncated and
# a garbage config file into failed configs, without crashing.
# Outcomes only: no value is checked.
#
# QEMU is a peer, not ours: a qemu-kvm config that cannot start here (no
# QEMU, or no -cpu model QEMU/KVM starts with: scripts/qemu-kvm-cpu) is
# a loud "SKIP: qemu-kvm-on: ..." and the rest must still pass; one that
# started and then failed is a failure.  BENCH_SMOKE_CONFIGS picks the
# configs; QEMU_KVM_CPU_CANDIDATES='nosuch' simulates a host where no
# model starts.
#
# Integration test conventions: run from the repo root; exit 0 = pass,
# 77 = skip (after "SKIP: <reason>"), anything else = fail ("FAIL: ...").
set -u

OUT=build/tests/integration/bench-smoke
CONFIGS=${BENCH_SMOKE_CONFIGS:-vmm-user-x2apic-exit,vmm-kernel-xapic-guest,qemu-kvm-on,native}
REPORT=build/bench-report

for f in "$REPORT" build/native-futex build/irqlab-vmm build/kernel/irqlab.elf; do
	[ -e "$f" ] || { echo "FAIL: $f is missing (make all $REPORT build/native-futex)"; exit 1; }
done
command -v python3 >/dev/null 2>&1 || { echo "SKIP: python3 is not installed"; exit 77; }
rm -rf "$OUT"
mkdir -p "$OUT/bad" || { echo "FAIL: cannot create $OUT"; exit 1; }

# ---- bench-report on broken input ----
printf '@config name=cut kind=irqlab-vmm iters=5\n@bench case=x n=5 p50_ns=1\n' >"$OUT/bad/cut.out"
printf '\x01\x02garbage\n@bench case=\n@bench =3 x\n@@@\n' >"$OUT/bad/junk.out"
if ! "$REPORT" -o "$OUT/bad" "$OUT/bad/cut.out" "$OUT/bad/junk.out" \
	"$OUT/bad/missing.out" 2>"$OUT/bad/err"; then
	echo "FAIL: bench-report failed on broken input:"; cat "$OUT/bad/err"; exit 1
fi
python3 - "$OUT/bad/results.json" <<'PY' || exit 1
import json, sys
d = json.load(open(sys.argv[1]))
st = {c["name"]: (c["status"], c["reason"], len(c["errors"])) for c in d["configs"]}
want = {"cut": ("failed", "truncated"), "junk": ("failed", "truncated"),
        "missing": ("failed", "unreadable")}
for k, v in want.items():
    if k not in st or st[k][:2] != v:
        sys.exit("FAIL: bench-report: %s is %s, want %s" % (k, st.get(k), v))
if st["junk"][2] < 3:
    sys.exit("FAIL: bench-report: junk.out gave only %d errors" % st["junk"][2])
PY

# ---- the runner ----
if ! [ -c /dev/kvm ] || ! [ -r /dev/kvm ] || ! [ -w /dev/kvm ]; then
	echo "SKIP: no usable /dev/kvm (bench-report's broken-input part passed)"
	exit 77
fi
guest-bench/run --quick -n 20 -c "$CONFIGS" -o "$OUT" --no-doc 2>"$OUT/run.err"
rc=$?
cat "$OUT/run.err"
[ -s "$OUT/results.md" ] || { echo "FAIL: no $OUT/results.md"; exit 1; }
python3 - "$OUT/results.json" "$rc" <<'PY'
import json, os, re, sys
d = json.load(open(sys.argv[1]))
bad = []
if sys.argv[2] != "0":
    bad.append("guest-bench/run exited %s" % sys.argv[2])
for k in ("git", "host", "configs", "results"):
    if k not in d:
        bad.append("results.json has no %s" % k)
if not d["host"].get("cpu_model") or not d["host"].get("kernel_release"):
    bad.append("no host description")
if "qemu_kvm_cpu" not in d:
    bad.append("results.json has no qemu_kvm_cpu")
stats = ["n"] + ["%s_%s" % (p, u) for u in ("cyc", "ns")
                 for p in ("min", "p50", "p90", "p99", "max", "mean")]
exits = ["exits_per_op", "send_exits", "kick_exits", "eoi_exits",
         "hlt_exits", "other_exits"]
def summary(cfg, case):
    """A case whose result is its own record: @PARENT mode=SUB ..."""
    parent, _, sub = case.partition(".")
    try:
        text = open(os.path.join(raw, cfg + ".out"), errors="replace").read()
    except OSError:
        return False
    return re.search(r"^@%s mode=%s \S" % (re.escape(parent), re.escape(sub)),
                     text, re.M) is not None
rows = {}
for r in d["results"]:
    rows[(r["config"], r["case"])] = r["stats"]
raw = os.path.join(os.path.dirname(sys.argv[1]), "raw")
skips = []
for c in d["configs"]:
    kind = c["params"].get("kind")
    if c["status"] == "skipped" and kind == "qemu-kvm" and \
            c["reason"] in ("no-cpu-model", "no-qemu"):
        # a peer that cannot start here: loud, not a failure
        try:
            why = open(os.path.join(raw, c["name"] + ".err")).read().strip()
        except OSError:
            why = c["reason"]
        print("SKIP: %s: %s" % (c["name"], why or c["reason"]))
        skips.append(c["name"])
    elif c["status"] != "ok":
        bad.append("%s: %s (%s)" % (c["name"], c["status"], c["reason"]))
    elif kind == "qemu-kvm":
        # it ran on the probed model, recorded as such
        cpu = d.get("qemu_kvm_cpu")
        if not cpu or not c["params"].get("cpu", "").startswith(cpu):
            bad.append("%s: -cpu %r is not the probed qemu_kvm_cpu %r" %
                       (c["name"], c["params"].get("cpu"), cpu))
        else:
            print("note: %s ran with -cpu %s" % (c["name"], c["params"]["cpu"]))
guest = [c for c in d["configs"] if c["params"].get("kind") != "native"
         and c["name"] not in skips]
cases = sorted({case for (cfg, case) in rows if cfg != "native"} |
               {s["case"] for c in guest for s in c["skipped"]})
for c in guest:
    skipped = {s["case"]: s["reason"] for s in c["skipped"]}
    for case in cases:
        parent = case.split(".")[0]
        if case not in skipped and parent != case and parent in skipped:
            continue    # ipi_wake.send comes only with ipi_wake
        if case in skipped:
            print("note: %s: %s skipped (%s)" % (c["name"], case, skipped[case]))
            if not skipped[case]:
                bad.append("%s: %s skipped without a reason" % (c["name"], case))
            continue
        s = rows.get((c["name"], case))
        if s is None and summary(c["name"], case):
            continue    # ioapic_rotate.level: its record is @ioapic_rotate
        if s is None:
            bad.append("%s: no record for %s" % (c["name"], case))
            continue
        want = stats + (exits if c["params"].get("kind") == "irqlab-vmm" else [])
        for k in want:
            if not isinstance(s.get(k), (int, float)):
                bad.append("%s %s: %s is %r" % (c["name"], case, k, s.get(k)))
for case in ("futex_wake", "futex_wake.waker"):
    s = rows.get(("native", case))
    if s is None:
        bad.append("native: no %s" % case)
    elif not all(isinstance(s.get(k), (int, float)) for k in stats):
        bad.append("native %s: fields missing: %s" % (case, s))
if len(cases) < 5:
    bad.append("only %d guest cases: %s" % (len(cases), cases))
for b in bad:
    print("FAIL: bench-smoke: " + b)
if bad:
    sys.exit(1)
print("bench-smoke: %d configs, %d guest cases, %d rows%s" %
      (len(d["configs"]), len(cases), len(d["results"]),
       "; SKIPPED (cannot start here): " + ", ".join(skips) if skips else ""))
PY
[ $? = 0 ] || exit 1
echo "PASS: bench-smoke ($CONFIGS)"
exit 0
