#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
#
# guest-bench/plot.sh DIR: plots of DIR/results.json (bench-report's),
# as SVG and PNG in DIR:
#   cdf-CASE.{svg,png}  latency CDF of one case, one line per config.  The
#                       records carry min, p50, p90, p99 and max (nearest
#                       rank), not the samples: the CDF is drawn through
#                       those five points (fraction 0, .5, .9, .99, 1).
#   exits.{svg,png}     exits per operation per irqlab-vmm config, one
#                       bar per IPI case.
# Without gnuplot it says so and exits 0: the plots are optional.
set -u
dir=${1:?usage: guest-bench/plot.sh DIR}
json=$dir/results.json
if ! command -v gnuplot >/dev/null 2>&1; then
	echo "plot: gnuplot is not installed: no plots (apt-get install gnuplot-nox)" >&2
	exit 0
fi
command -v python3 >/dev/null 2>&1 || { echo "plot: needs python3" >&2; exit 1; }
[ -f "$json" ] || { echo "plot: no $json" >&2; exit 1; }
dat=$dir/plot
rm -rf "$dat"
mkdir -p "$dat" || exit 1

# the data files and a gnuplot script per plot
python3 - "$json" "$dat" <<'PY' || exit 1
import json, os, sys
d = json.load(open(sys.argv[1]))
out = sys.argv[2]
cases, rows = [], {}
for r in d["results"]:
    s = r["stats"]
    if not all(isinstance(s.get(k + "_ns"), (int, float)) for k in ("min", "p50", "p90", "p99", "max")):
        continue
    if r["case"] not in cases:
        cases.append(r["case"])
    rows.setdefault(r["case"], []).append((r["config"], s))
title = "git %s, %s" % (d["git"]["describe"], d["host"]["cpu_model"])
def esc(s):
    return s.replace("_", "\\\\_")
for case in cases:
    f = os.path.join(out, "cdf-%s" % case)
    plots = []
    with open(f + ".dat", "w") as o:
        for i, (cfg, s) in enumerate(rows[case]):
            o.write("# %s\n" % cfg)
            for k, p in (("min", 0), ("p50", .5), ("p90", .9), ("p99", .99), ("max", 1)):
                o.write("%g %g\n" % (max(s[k + "_ns"], 1), p))
            o.write("\n\n")
            plots.append("'%s.dat' index %d with linespoints title '%s'" % (f, i, esc(cfg)))
    with open(f + ".gp", "w") as g:
        g.write("set title '%s: latency CDF (%s)' noenhanced\n" % (case, title))
        g.write("set xlabel 'ns (log)'\nset ylabel 'fraction of samples'\n")
        g.write("set logscale x\nset key outside right\nset grid\nset yrange [0:1.02]\n")
        g.write("plot " + ", \\\n  ".join(plots) + "\n")
# exits per op: irqlab-vmm configs x IPI cases
ex_cases = [c for c in ("ipi_pingpong", "ipi_wake", "self_ipi", "broadcast.shorthand",
                        "broadcast.unicast", "futex_wake", "exit_cost.hlt") if c in rows]
cfgs = []
for r in d["results"]:
    if isinstance(r["stats"].get("exits_per_op"), (int, float)) and r["config"] not in cfgs:
        cfgs.append(r["config"])
def has_exits(case):
    return any(isinstance(s.get("exits_per_op"), (int, float)) for _, s in rows[case])
ex_cases = [c for c in ex_cases if has_exits(c)]
if cfgs and ex_cases:
    f = os.path.join(out, "exits")
    with open(f + ".dat", "w") as o:
        o.write("config " + " ".join(ex_cases) + "\n")
        for cfg in cfgs:
            vals = []
            for case in ex_cases:
                s = dict(rows.get(case, [])).get(cfg)
                v = s.get("exits_per_op") if s else None
                vals.append("%g" % v if isinstance(v, (int, float)) else "NaN")
            o.write("%s %s\n" % (cfg, " ".join(vals)))
    with open(f + ".gp", "w") as g:
        g.write("set title 'userspace exits per operation (%s)' noenhanced\n" % title)
        g.write("set style data histograms\nset style histogram clustered gap 1\n")
        g.write("set style fill solid 0.8 border -1\nset boxwidth 0.9\n")
        g.write("set xtics rotate by -30 noenhanced\nset ylabel 'exits per op'\n")
        g.write("set key outside right noenhanced\nset grid ytics\nset yrange [0:*]\n")
        g.write("plot " + ", ".join("'%s.dat' using %d:xtic(1) title columnheader(%d)" % (f, i + 2, i + 2)
                                    for i in range(len(ex_cases))) + "\n")
PY

n=0
for gp in "$dat"/*.gp; do
	[ -e "$gp" ] || continue
	base=$(basename "$gp" .gp)
	if gnuplot -e "set terminal svg size 900,500 dynamic; set output '$dir/$base.svg'" "$gp" 2>"$dat/$base.err" &&
		gnuplot -e "set terminal png size 900,500; set output '$dir/$base.png'" "$gp" 2>>"$dat/$base.err"; then
		n=$((n + 1))
	else
		echo "plot: $base failed:" >&2
		cat "$dat/$base.err" >&2
	fi
done
echo "plot: $n plots (SVG and PNG) in $dir" >&2
