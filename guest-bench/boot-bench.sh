#!/bin/bash
# Boot benchmark (issue 2): irqlab-vmm against QEMU, both on the same KVM.
#
#   guest-bench/boot-bench.sh [-r RUNS] [-R REV]
#
# What is measured: revision REV (default HEAD) exported with git archive
# into build/bench/src and built there (make all, and a static irqlab-vmm),
# so the numbers belong to one commit even while the working tree changes;
# -R . measures the working tree as it is (the rig runs make in it).
#
# This host has no /dev/kvm, so both run in the nested guest of
# tests/nested/run-in-kvm.sh (Debian's Linux 6.1 with kvm_amd, under QEMU
# TCG with an emulated SVM CPU), in ONE boot of it, interleaved:
#
#   irqlab-vmm --stats-json F build/bench/kernel/irqlab.elf
#   qemu-system-x86_64 -cpu MODEL -accel kvm -m 64 -kernel build/bench/kernel/irqlab32.elf \
#       -device isa-debug-exit,iobase=0xf4,iosize=4 -serial stdio \
#       -display none -nodefaults -no-reboot
#
# MODEL: QEMU 7.2's -cpu host does not start on every KVM, so the guest
# first tries scripts/qemu-kvm-cpu's list in its order (host, ...) on its
# own KVM and takes the first that boots the kernel to @ready and exits
# through isa-debug-exit within 60 s: that tool's rule, in sh (the guest
# has no python3).  boot.json's qemu_kvm_cpu says which, and what each
# try did; when none starts, the benchmark is a SKIP (status 77).
#
# Both get 64 MiB, and both print the kernel's UART lines on stdout, which
# goes to a file in the guest's tmpfs.  Each runs once to warm up; then
# RUNS rounds of (irqlab-vmm, QEMU) with the tracepoint off, timed; then
# RUNS rounds with kvm:kvm_userspace_exit on, the trace buffer emptied
# before each run and its events counted after it: the exit count,
# measured the same way for both.  build/bench/timeit (guest-bench/
# timeit.c, linked static) times each run: CLOCK_MONOTONIC around fork +
# exec + wait4; and it gives the child's ru_maxrss.  irqlab-vmm's own
# --stats-json (exits.total, wall_ns, memory) is kept for each run too.
# A run still going after 60 s is stuck: where its threads are is printed
# ("@diag" lines), it is killed, run once more, and counted as a problem.
#
# Then, on this host, without nesting: QEMU with -accel tcg on the same
# kernel, RUNS runs under hyperfine, as the non-nested reference.
#
# Output: a summary on stdout, bench-results/boot.json (every run's
# numbers, medians, the host), and the guest's raw output in
# bench-results/boot-guest.out.  Exit status 0, or 1 if a run failed
# (wrong status, tracepoint lost events), 77/125 from the rig.
set -u
cd "$(dirname "$0")/.." || exit 125
RUNS=10
REV=HEAD
while [ $# -gt 0 ]; do
	case $1 in
	-r) RUNS=${2:?}; shift 2 ;;
	-R) REV=${2:?}; shift 2 ;;
	*) sed -n '2,/^set -u/{/^set -u/d;s/^# \{0,1\}//;p}' "$0" >&2; exit 2 ;;
	esac
done
OUT=bench-results
W=build/bench
mkdir -p $OUT $W || exit 125
for t in gcc python3 hyperfine qemu-system-x86_64; do
	command -v $t >/dev/null || { echo "boot-bench: $t is not installed" >&2; exit 77; }
done

gcc -static -O2 -Wall -Wextra -Werror -o $W/timeit guest-bench/native/timeit.c ||
	{ echo "boot-bench: cannot build timeit" >&2; exit 125; }
# The images: REV built in build/bench/src, copied to build/bench/.
if [ "$REV" = . ]; then
	make --no-print-directory -s all || { echo "boot-bench: make failed" >&2; exit 125; }
	git_rev=$(git rev-parse HEAD) git_describe=$(git describe --always --dirty)
	git_dirty=$(git status --porcelain -- vmm kernel include calib Makefile Kbuild | tr '\n' ';')
	KSRC=build/kernel
	VMM_STATIC=build/nested/irqlab-vmm	# the rig makes it
	VMM_ENV=()
else
	git_rev=$(git rev-parse --verify "$REV^{commit}") ||
		{ echo "boot-bench: no revision $REV" >&2; exit 2; }
	git_describe=$(git describe --always "$git_rev") git_dirty=
	echo "boot-bench: building $git_describe in $W/src" >&2
	rm -rf $W/src && mkdir -p $W/src && git archive "$git_rev" | tar -x -C $W/src ||
		{ echo "boot-bench: git archive $REV failed" >&2; exit 125; }
	(cd $W/src && mkdir -p build/nested && make --no-print-directory -s VERSION="$git_describe" all &&
		make --no-print-directory -s VERSION="$git_describe" VMM=build/nested/irqlab-vmm \
			HOST_LDFLAGS='-pthread -static' build/nested/irqlab-vmm) >$W/make.log 2>&1 ||
		{ cat $W/make.log >&2; echo "boot-bench: make of $git_describe failed" >&2; exit 125; }
	mkdir -p $W/kernel && cp $W/src/build/kernel/irqlab.elf $W/src/build/kernel/irqlab32.elf $W/kernel/ &&
		cp $W/src/build/nested/irqlab-vmm $W/irqlab-vmm-static || exit 125
	KSRC=$W/kernel
	VMM_STATIC=$W/irqlab-vmm-static
	VMM_ENV=(NESTED_VMM=$VMM_STATIC)
fi

CPU_CANDIDATES=$(scripts/qemu-kvm-cpu --candidates | tr '\n' ' ')
QEMU_ARGS="-accel kvm -m 64 -kernel $KSRC/irqlab32.elf -device isa-debug-exit,iobase=0xf4,iosize=4 -serial stdio -display none -nodefaults -no-reboot"

# ---- the guest's part ----------------------------------------------------
cat >$W/guest.sh <<EOF
#!/bin/sh
# Written by guest-bench/boot-bench.sh; runs as /cmd in the nested guest.
RUNS=$RUNS
QEMU_ARGS="$QEMU_ARGS"
CPU_CANDIDATES="$CPU_CANDIDATES"
VMM_KERNEL=$KSRC/irqlab.elf
TI=./$W/timeit
EOF
cat >>$W/guest.sh <<'EOF'
T=/sys/kernel/tracing
fail=0
mount -t tracefs nodev $T || { echo "@error cannot mount tracefs"; exit 1; }
echo 0 >$T/tracing_on
echo 32768 >$T/buffer_size_kb
echo 1 >$T/events/kvm/kvm_userspace_exit/enable || { echo "@error no kvm_userspace_exit"; exit 1; }
echo "@guest uname=$(uname -r) cpus=$(grep -c ^processor /proc/cpuinfo) npt=$(cat /sys/module/kvm_amd/parameters/npt) nested=$(cat /sys/module/kvm_amd/parameters/nested) avic=$(cat /sys/module/kvm_amd/parameters/avic) buffer_size_kb=$(cat $T/buffer_size_kb)"
echo "@guest_cpu $(grep -m1 '^model name' /proc/cpuinfo | cut -d: -f2- | sed 's/^ //')"
echo "@qemu_version $(qemu-system-x86_64 --version | head -1)"

# The -cpu model QEMU/KVM starts with on this KVM (scripts/qemu-kvm-cpu's
# rule): @ready, and status 1 (the kernel's 0 through isa-debug-exit).
QEMU_CPU=
for m in $CPU_CANDIDATES; do
	timeout -s KILL 60 qemu-system-x86_64 -cpu $m $QEMU_ARGS </dev/null >/tmp/probe.out 2>/tmp/probe.err
	rc=$?
	ready=$(grep -c '^@ready' /tmp/probe.out)
	echo "@qemu_cpu_try $m status=$rc ready=$ready $(grep -m1 . /tmp/probe.err)"
	if [ $rc = 1 ] && [ "$ready" != 0 ]; then
		QEMU_CPU=$m
		break
	fi
done
if [ -z "$QEMU_CPU" ]; then
	echo "@skip QEMU/KVM starts with no CPU model in the guest (tried: $CPU_CANDIDATES)"
	exit 77
fi
echo "@qemu_cpu $QEMU_CPU"

# run KIND MODE INDEX [timeit options]: one run of irqlab-vmm or QEMU
run() {
	kind=$1 mode=$2 i=$3
	shift 3
	case $kind in
	vmm) set -- "$@" -o /tmp/vmm.out -e /tmp/vmm.err -- \
		irqlab-vmm --stats-json /tmp/vmm.json $VMM_KERNEL ;;
	qemu) set -- "$@" -o /tmp/qemu.out -e /tmp/qemu.err -- \
		qemu-system-x86_64 -cpu $QEMU_CPU $QEMU_ARGS ;;
	esac
	# A run that has not ended after 60 s is stuck (they take ~0.1 and
	# ~2 s): timeit prints where its threads are, kills it, and it is run
	# again, once.
	for attempt in 1 2; do
		rm -f /tmp/vmm.json
		line=$($TI -n 1 -t 60 "$@" 2>/tmp/diag) || { echo "@error timeit failed"; fail=1; }
		sed "s/^/@diag $kind $mode $i $attempt /" /tmp/diag
		case $line in
		*'"timeout":1'*)
			echo "@timeout $kind $mode $i $attempt $line"
			[ "$mode" = traced ] && tail -5 $T/trace | sed "s/^/@diag $kind $mode $i $attempt trace: /"
			continue ;;
		esac
		echo "@run $kind $mode $i $line"
		[ -f /tmp/vmm.json ] && echo "@vmmjson $mode $i $(cat /tmp/vmm.json)"
		return
	done
	fail=1
}

# Warm-up, then interleaved: timed with the tracepoint off, then counted
# with it on.
run vmm warmup 0
run qemu warmup 0
i=1
while [ $i -le $RUNS ]; do
	run vmm plain $i
	run qemu plain $i
	i=$((i + 1))
done
echo 1 >$T/tracing_on
i=1
while [ $i -le $RUNS ]; do
	run vmm traced $i -T $T
	run qemu traced $i -T $T
	i=$((i + 1))
done
echo 0 >$T/tracing_on
for k in vmm qemu; do
	echo "@output $k $(wc -l </tmp/$k.out) lines"
	sed "s/^/@out $k /" /tmp/$k.out
	sed "s/^/@err $k /" /tmp/$k.err
done
exit $fail
EOF

load_before=$(cut -d' ' -f1-3 /proc/loadavg) bench_date=$(date -u +%Y-%m-%dT%H:%M:%SZ)
echo "boot-bench: booting the nested guest (QEMU TCG + SVM; ~1 min)" >&2
t0=$(date +%s)
env "${VMM_ENV[@]}" NESTED_WITH_QEMU=1 tests/nested/run-in-kvm.sh -t 900 -c "sh $W/guest.sh" \
	$W/guest.sh $W/timeit $KSRC/irqlab.elf $KSRC/irqlab32.elf \
	>$OUT/boot-guest.out 2>$W/rig.err
grc=$?
t1=$(date +%s)
if grep -q '^@skip ' $OUT/boot-guest.out; then
	echo "SKIP: boot-bench: $(sed -n 's/^@skip //p' $OUT/boot-guest.out | head -1)"
	grep '^@qemu_cpu_try ' $OUT/boot-guest.out | sed 's/^@qemu_cpu_try /  tried -cpu /'
	exit 77
fi
if [ $grc = 77 ] || [ $grc = 125 ]; then
	cat $W/rig.err >&2
	exit $grc
fi

# ---- the host's part: QEMU TCG, no nesting --------------------------------
echo "boot-bench: QEMU -accel tcg on the host ($RUNS runs)" >&2
hyperfine -N -i -w 1 -r "$RUNS" --export-json $W/host-tcg.json \
	"qemu-system-x86_64 ${QEMU_ARGS/-accel kvm/-accel tcg}" >$W/hyperfine.out 2>&1 ||
	{ cat $W/hyperfine.out >&2; echo "boot-bench: hyperfine failed" >&2; exit 125; }
qemu-system-x86_64 ${QEMU_ARGS/-accel kvm/-accel tcg} >$W/host-tcg.out 2>&1
host_tcg_status=$?

# ---- the report ----------------------------------------------------------
export KSRC QEMU_ARGS RUNS grc host_tcg_status guest_secs=$((t1 - t0))
export git_rev git_describe git_dirty REV bench_date
export host_uname=$(uname -r) host_loadavg=$(cut -d' ' -f1-3 /proc/loadavg) load_before
export host_cpu=$(grep -m1 '^model name' /proc/cpuinfo | cut -d: -f2- | sed 's/^ //')
export host_cpus=$(nproc)
export host_qemu=$(qemu-system-x86_64 --version | head -1)
export nested_cpu=${NESTED_CPU:-qemu64,+svm,+npt} nested_accel=${NESTED_ACCEL:-tcg,thread=single}
export nested_smp=${NESTED_SMP:-2} nested_mem=${NESTED_MEM:-512}
export sha_vmm=$(sha256sum $VMM_STATIC | cut -c1-16)
export sha_elf=$(sha256sum $KSRC/irqlab.elf | cut -c1-16)
export sha_elf32=$(sha256sum $KSRC/irqlab32.elf | cut -c1-16)
python3 - $OUT/boot-guest.out $W/host-tcg.json $OUT/boot.json <<'PY'
import json, math, os, sys

guest_out, tcg_json, out_json = sys.argv[1:4]
E = os.environ
runs = {}            # (kind, mode) -> [run dict]
vmmjson = {}         # (mode, i) -> dict
guest = {}
outputs = {"vmm": [], "qemu": []}
errors = []
timeouts = []
for line in open(guest_out, errors="replace"):
    line = line.rstrip("\n")
    if line.startswith("@run "):
        _, kind, mode, i, js = line.split(" ", 4)
        d = json.loads(js)
        d["i"] = int(i)
        runs.setdefault((kind, mode), []).append(d)
    elif line.startswith("@vmmjson "):
        _, mode, i, js = line.split(" ", 3)
        vmmjson[(mode, int(i))] = json.loads(js)
    elif line.startswith("@guest "):
        for kv in line.split()[1:]:
            k, v = kv.split("=", 1)
            guest[k] = v
    elif line.startswith("@guest_cpu "):
        guest["cpu"] = line[len("@guest_cpu "):]
    elif line.startswith("@qemu_version "):
        guest["qemu"] = line[len("@qemu_version "):]
    elif line.startswith("@qemu_cpu "):
        guest["qemu_cpu"] = line[len("@qemu_cpu "):]
    elif line.startswith("@qemu_cpu_try "):
        guest.setdefault("qemu_cpu_tries", []).append(line[len("@qemu_cpu_try "):])
    elif line.startswith("@out "):
        k, _, rest = line[5:].partition(" ")
        outputs[k].append(rest)
    elif line.startswith("@error"):
        errors.append(line)
    elif line.startswith("@timeout "):
        _, kind, mode, i, attempt, js = line.split(" ", 5)
        d = json.loads(js)
        d.update(i=int(i), attempt=int(attempt), kind=kind, mode=mode)
        timeouts.append(d)
        errors.append("%s %s run %s attempt %s: stuck, killed after %.0f s (the @diag lines of %s say where)" %
                      (kind, mode, i, attempt, d["wall_ns"] / 1e9, guest_out))

def stats(xs):
    xs = sorted(xs)
    n = len(xs)
    if not n:
        return None
    med = xs[n // 2] if n % 2 else (xs[n // 2 - 1] + xs[n // 2]) / 2
    p90 = xs[max(0, math.ceil(0.9 * n) - 1)]     # nearest rank
    return {"n": n, "median": med, "min": xs[0], "max": xs[-1], "p90": p90,
            "mean": sum(xs) / n}

res = {"issue": 2, "date": E["bench_date"], "runs": int(E["RUNS"])}
for (kind, mode), lst in runs.items():
    for d in lst:
        j = vmmjson.get((mode, d["i"])) if kind == "vmm" else None
        if j:
            d["vmm_wall_ns"] = j["wall_ns"]
            d["vmm_exits_total"] = j["exits"]["total"]
            d["vmm_exits_by_reason"] = j["exits"]["by_reason"]
            d["vmm_memory"] = j["memory"]

expect_status = {"vmm": 0, "qemu": 1}
bad = list(errors)
if int(E["grc"]) != 0:
    bad.append("the guest part ended with status %s (see %s, build/nested/last/)" % (E["grc"], guest_out))
for kind in ("vmm", "qemu"):
    for mode in ("plain", "traced"):
        got = len(runs.get((kind, mode), []))
        if got != int(E["RUNS"]):
            bad.append("%s %s: %d of %s runs" % (kind, mode, got, E["RUNS"]))
summary = {}
for kind in ("vmm", "qemu"):
    s = {}
    for mode in ("plain", "traced"):
        lst = [d for d in runs.get((kind, mode), [])]
        for d in lst:
            if d["status"] != expect_status[kind]:
                bad.append("%s %s run %d: status %d" % (kind, mode, d["i"], d["status"]))
            t = d.get("trace")
            if t and t["in_buffer"] != t["written"]:
                bad.append("%s run %d: trace buffer lost events (%d of %d)" %
                           (kind, d["i"], t["in_buffer"], t["written"]))
            if t and t["events"] != t["in_buffer"]:
                bad.append("%s run %d: %d trace lines, header says %d" %
                           (kind, d["i"], t["events"], t["in_buffer"]))
        s[mode] = {"wall_ms": stats([d["wall_ns"] / 1e6 for d in lst]),
                   "maxrss_kb": stats([d["maxrss_kb"] for d in lst])}
        if kind == "vmm":
            s[mode]["vmm_wall_ms"] = stats([d["vmm_wall_ns"] / 1e6 for d in lst if "vmm_wall_ns" in d])
            s[mode]["vmm_exits_total"] = stats([d["vmm_exits_total"] for d in lst if "vmm_exits_total" in d])
            s[mode]["vmm_own_kb"] = stats([d["vmm_memory"]["vmm_own_kb"] for d in lst if "vmm_memory" in d])
            s[mode]["rss_peak_kb"] = stats([d["vmm_memory"]["rss_peak_kb"] for d in lst if "vmm_memory" in d])
            s[mode]["guest_resident_kb"] = stats([d["vmm_memory"]["guest_resident_kb"] for d in lst if "vmm_memory" in d])
        if mode == "traced":
            s[mode]["trace_exits"] = stats([d["trace"]["events"] for d in lst])
            reasons = {}
            for d in lst:
                for r, c in d["trace"]["by_reason"].items():
                    reasons.setdefault(r, []).append(c)
            s[mode]["trace_by_reason"] = {r: stats(c) for r, c in sorted(reasons.items())}
    summary[kind] = s

# tracepoint against irqlab-vmm's own count, run by run
agree = []
for d in runs.get(("vmm", "traced"), []):
    if "vmm_exits_total" in d:
        agree.append({"run": d["i"], "trace": d["trace"]["events"],
                      "vmm": d["vmm_exits_total"],
                      "diff": d["trace"]["events"] - d["vmm_exits_total"],
                      "trace_by_reason": d["trace"]["by_reason"],
                      "vmm_by_reason": d["vmm_exits_by_reason"]})
summary["vmm_trace_vs_own"] = agree
name = {"IO": "KVM_EXIT_IO", "MMIO": "KVM_EXIT_MMIO", "HLT": "KVM_EXIT_HLT", "SHUTDOWN": "KVM_EXIT_SHUTDOWN",
        "INTR": "restart", "IRQ_WINDOW_OPEN": "KVM_EXIT_IRQ_WINDOW_OPEN", "SYSTEM_EVENT": "KVM_EXIT_SYSTEM_EVENT"}
for a in agree:
    own = {name.get(r, r): c for r, c in a["vmm_by_reason"].items() if c}
    a["by_reason_agree"] = own == a["trace_by_reason"]

tcg = json.load(open(tcg_json))["results"][0]
tcg_ms = [t * 1000 for t in tcg["times"]]
summary["host_tcg"] = {"command": tcg["command"], "wall_ms": stats(tcg_ms),
                       "times_ms": tcg_ms, "exit_codes": tcg.get("exit_codes"),
                       "status_check": int(E["host_tcg_status"])}
if any(c != 1 for c in (tcg.get("exit_codes") or [])):
    bad.append("host TCG QEMU exit codes %s" % tcg.get("exit_codes"))

vm, qm = summary["vmm"]["plain"]["wall_ms"], summary["qemu"]["plain"]["wall_ms"]
summary["ratio_qemu_over_vmm_median"] = qm["median"] / vm["median"] if vm and qm else None
# per round (the two runs of a round are back to back): drift in the
# host's load moves both
pv = {d["i"]: d["wall_ns"] for d in runs.get(("vmm", "plain"), [])}
paired = [d["wall_ns"] / pv[d["i"]] for d in runs.get(("qemu", "plain"), []) if d["i"] in pv]
summary["ratio_qemu_over_vmm_paired"] = stats(paired)
vt, qt = summary["vmm"]["traced"]["trace_exits"], summary["qemu"]["traced"]["trace_exits"]
summary["ratio_exits_qemu_over_vmm"] = qt["median"] / vt["median"] if vt and qt else None

res["host"] = {"uname_r": E["host_uname"], "cpu": E["host_cpu"], "cpus": int(E["host_cpus"]),
               "loadavg_before": E["load_before"], "loadavg_after": E["host_loadavg"], "qemu": E["host_qemu"]}
res["nested"] = {"description": "nested: QEMU 7.2 TCG + emulated SVM, guest Linux 6.1, kvm_amd npt=%s" % guest.get("npt", "?"),
                 "outer_qemu": "-accel %s -cpu %s -smp %s -m %s" % (E["nested_accel"], E["nested_cpu"], E["nested_smp"], E["nested_mem"]),
                 "guest": guest, "rig_status": int(E["grc"]), "guest_seconds": int(E["guest_secs"])}
res["git"] = {"rev": E["git_rev"], "describe": E["git_describe"], "asked": E["REV"],
              "built_from": "working tree" if E["REV"] == "." else "git archive of the revision",
              "dirty_build_inputs": E["git_dirty"]}
res["binaries_sha256_16"] = {"irqlab-vmm (static)": E["sha_vmm"],
                             "irqlab.elf": E["sha_elf"], "irqlab32.elf": E["sha_elf32"]}
res["commands"] = {"vmm": "irqlab-vmm --stats-json F " + E["KSRC"] + "/irqlab.elf",
                   "qemu": "qemu-system-x86_64 -cpu %s %s" % (guest.get("qemu_cpu", "?"), os.environ.get("QEMU_ARGS", "")),
                   "timing": "timeit: CLOCK_MONOTONIC around fork+exec+wait4, stdout to a tmpfs file; p90 = nearest rank"}
res["qemu_kvm_cpu"] = {"model": guest.get("qemu_cpu"), "tries": guest.get("qemu_cpu_tries", []),
                       "where": "the nested guest's KVM (probed there, scripts/qemu-kvm-cpu's list and rule)"}
res["summary"] = summary
res["raw"] = {"%s_%s" % k: v for k, v in sorted(runs.items())}
res["raw"]["timed_out"] = timeouts
res["outputs_last_run"] = outputs
res["problems"] = bad
json.dump(res, open(out_json, "w"), indent=1)

# ---- readable summary ----
def f(s, unit="ms", fmt="%.1f"):
    if not s:
        return "-"
    g = lambda x: fmt % x
    return "median %s %s (min %s, p90 %s, max %s; n=%d)" % (g(s["median"]), unit, g(s["min"]), g(s["p90"]), g(s["max"]), s["n"])
P = print
P("== Boot benchmark (issue 2): irqlab-vmm against QEMU -accel kvm ==")
P("host:    %s, %d CPUs, Linux %s, loadavg before %s, after %s" % (E["host_cpu"], int(E["host_cpus"]), E["host_uname"], E["load_before"], E["host_loadavg"]))
P("%s" % res["nested"]["description"])
P("         outer QEMU %s; guest %s, %s CPUs (%s)" % (res["nested"]["outer_qemu"], guest.get("uname"), guest.get("cpus"), guest.get("cpu")))
P("         guest QEMU: %s" % guest.get("qemu"))
P("git:     %s (%s), built from %s%s" % (E["git_rev"][:12], E["git_describe"], res["git"]["built_from"], ("; uncommitted build inputs: " + E["git_dirty"]) if E["git_dirty"] else ""))
P("runs:    1 warm-up + %s timed (tracepoint off) + %s counted (tracepoint on), interleaved" % (E["RUNS"], E["RUNS"]))
P("")
v, q = summary["vmm"], summary["qemu"]
P("irqlab-vmm %s/irqlab.elf (-m 64, multiboot2)" % E["KSRC"])
P("  wall, timeit (fork..wait4):     %s" % f(v["plain"]["wall_ms"]))
P("  wall, its own JSON wall_ns:     %s" % f(v["plain"]["vmm_wall_ms"]))
P("  wall, tracepoint on:            %s" % f(v["traced"]["wall_ms"]))
P("  exits, tracepoint:              %s" % f(v["traced"]["trace_exits"], "", "%d"))
P("  exits, its own exits.total:     %s" % f(v["traced"]["vmm_exits_total"], "", "%d"))
P("  peak RSS, wait4 ru_maxrss:      %s" % f(v["plain"]["maxrss_kb"], "KiB", "%d"))
P("  its report: rss_peak / guest resident / vmm_own:  %s / %s / %s KiB (medians)" % tuple(
    "%d" % v["plain"][k]["median"] if v["plain"][k] else "-" for k in ("rss_peak_kb", "guest_resident_kb", "vmm_own_kb")))
P("  tracepoint by reason (median):  %s" % ", ".join("%s %d" % (r, s["median"]) for r, s in v["traced"]["trace_by_reason"].items()))
P("")
P("qemu-system-x86_64 -accel kvm -cpu %s %s/irqlab32.elf (-m 64, multiboot1 via SeaBIOS)" % (guest.get("qemu_cpu", "?"), E["KSRC"]))
P("  -cpu, probed in the guest:      %s" % "; ".join(guest.get("qemu_cpu_tries", [])))
P("  wall, timeit (fork..wait4):     %s" % f(q["plain"]["wall_ms"]))
P("  wall, tracepoint on:            %s" % f(q["traced"]["wall_ms"]))
P("  exits, tracepoint:              %s" % f(q["traced"]["trace_exits"], "", "%d"))
P("  peak RSS, wait4 ru_maxrss:      %s" % f(q["plain"]["maxrss_kb"], "KiB", "%d"))
P("  tracepoint by reason (median):  %s" % ", ".join("%s %d" % (r, s["median"]) for r, s in q["traced"]["trace_by_reason"].items()))
P("")
P("ratios (same nested guest): wall QEMU/irqlab-vmm %.1fx (of the medians), per round %s;" % (
    summary["ratio_qemu_over_vmm_median"] or 0, f(summary["ratio_qemu_over_vmm_paired"], "x")))
P("                             userspace exits QEMU/irqlab-vmm %.1fx" % (summary["ratio_exits_qemu_over_vmm"] or 0))
P("")
P("tracepoint against irqlab-vmm's exits.total, per counted run:")
for a in agree:
    P("  run %2d: tracepoint %d, exits.total %d, diff %+d; by reason %s" % (a["run"], a["trace"], a["vmm"], a["diff"],
      "the same" if a["by_reason_agree"] else "DIFFERENT: %s against %s" % (a["trace_by_reason"], a["vmm_by_reason"])))
P("")
P("host, no nesting: %s" % tcg["command"])
P("  wall, hyperfine:                %s; exit codes %s" % (f(summary["host_tcg"]["wall_ms"]), sorted(set(tcg.get("exit_codes") or []))))
P("")
P("output (last run): irqlab-vmm %d lines, QEMU %d lines" % (len(outputs["vmm"]), len(outputs["qemu"])))
for k in ("vmm", "qemu"):
    for l in outputs[k][:4]:
        P("  %-4s| %s" % (k, l))
P("")
P("problems: %s" % ("; ".join(bad) if bad else "none"))
P("raw numbers: %s" % out_json)
sys.exit(1 if bad else 0)
PY
