// SPDX-License-Identifier: MIT
/* guest-bench/report_read.c: bench-report's reader of config files. */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "../guest-bench/report.h"

static struct bconfig c;

/* @text into a temporary file; its path (static) */
static const char *file_of(const char *text)
{
	static char path[64];
	FILE *f;
	int fd;

	snprintf(path, sizeof(path), "/tmp/irqlab-test-report-XXXXXX");
	fd = mkstemp(path);
	cr_assert(fd >= 0);
	f = fdopen(fd, "w");
	cr_assert(f);
	fputs(text, f);
	fclose(f);
	return path;
}

static void read_text(const char *text)
{
	const char *p = file_of(text);

	cr_assert_eq(report_read(p, &c), 0);
	unlink(p);
}

Test(report, a_good_config)
{
	const struct bcase *k;
	double d;

	read_text("@config name=vmm-user-x2apic-exit kind=irqlab-vmm "
		  "irqchip=user apic=x2apic hlt=exit cpus=2 iters=50\n"
		  "irqlab kernel v1\r\n"
		  "@calib source=cpuid15 tsc_khz=2299998\n"
		  "@bench case=ipi_pingpong cpus=2 apic=x2apic n=50 p50_ns=10 "
		  "exits_per_op=3.00\n"
		  "@tsc_sync cpus=0,1 skew_cyc=-12 ok=1\n"
		  "@bench_skip case=ipi_wake reason=tsc-skew\n"
		  "Wokeup 4 of 4 threads in 0.5000 ms (+-1.50%)\n"
		  "@ready tsc=1\n"
		  "@config_end status=ok rc=0 wall_ms=1234\n");
	cr_expect_str_eq(c.name, "vmm-user-x2apic-exit");
	cr_expect_str_eq(c.status, "ok");
	cr_expect_str_eq(c.reason, "");
	cr_expect_eq(c.rc, 0);
	cr_expect_eq(c.wall_ms, 1234);
	cr_expect_eq(c.ncases, 2);
	cr_expect_eq(c.nerrors, 0, "%s", c.errors[0]);
	k = report_case(&c, "ipi_pingpong");
	cr_assert(k);
	cr_expect_eq(k->skipped, 0);
	cr_expect_eq(rec_get_double(&k->rec, "p50_ns", &d), 0);
	cr_expect_float_eq(d, 10, 0);
	k = report_case(&c, "ipi_wake");
	cr_assert(k);
	cr_expect_eq(k->skipped, 1);
	cr_expect_str_eq(k->reason, "tsc-skew");
	cr_expect_str_eq(rec_get(&c.tsc_sync, "skew_cyc"), "-12");
	cr_expect_str_eq(rec_get(&c.hdr, "apic"), "x2apic");
	cr_expect_eq(c.nwokeup, 1);
	cr_expect_eq(c.wokeup[0].threads, 4);
	cr_expect_eq(c.have_perf, 0);
	cr_expect_null(report_case(&c, "self_ipi"));
}

Test(report, perf_line_and_a_failed_config)
{
	read_text("@config name=native kind=native iters=5\n"
		  "@bench case=futex_wake n=5 p50_ns=3\n"
		  "@perf cmd=x\n"
		  "[Run 1]: Wokeup 1 of 1 threads in 0.0070 ms\n"
		  "Wokeup 1 of 1 threads in 0.0359 ms (+-28.70%)\n"
		  "@config_end status=failed rc=124 wall_ms=9 reason=timeout\n");
	cr_expect_str_eq(c.status, "failed");
	cr_expect_str_eq(c.reason, "timeout");
	cr_expect_eq(c.rc, 124);
	cr_expect_eq(c.have_perf, 1);
	cr_expect_float_eq(c.perf.ms, 0.0359, 1e-12);
	cr_expect_eq(c.nwokeup, 0);
}

Test(report, truncated_and_malformed_are_failed_with_problems)
{
	read_text("@config name=cut kind=qemu-kvm\n"
		  "@bench case=a n=1\n"
		  "@bench case=a n=2\n"		/* a second record */
		  "@bench n=3\n"			/* no case */
		  "@bench case=b n=1 n=2\n"		/* duplicate key */
		  "@bench case=c x\x01y=1\n"		/* control byte */
		  "@panic reason=ipi-check\n");	/* and no @config_end */
	cr_expect_str_eq(c.name, "cut");
	cr_expect_str_eq(c.status, "failed");
	cr_expect_str_eq(c.reason, "truncated");
	cr_expect_eq(c.ncases, 1);
	cr_expect_eq(c.nerrors, 5);
	cr_expect(strstr(c.errors[0], "line 3: a second record"), "%s",
		  c.errors[0]);
	cr_expect(strstr(c.errors[2], "duplicate key"), "%s", c.errors[2]);
	cr_expect(strstr(c.errors[4], "@panic"), "%s", c.errors[4]);
}

Test(report, no_header_many_errors_long_lines)
{
	char *text = malloc(200000), *p = text;
	unsigned i;

	cr_assert(text);
	for (i = 0; i < 40; i++)
		p += sprintf(p, "@bad-name %u\n", i);
	memset(p, 'x', 100000);			/* one huge line */
	p += 100000;
	p += sprintf(p, "\n@config_end status=ok rc=0 wall_ms=1\n");
	read_text(text);
	free(text);
	/* named after its file, problems capped and counted */
	cr_expect(!strncmp(c.name, "irqlab-test-report-", 19), "%s", c.name);
	cr_expect_str_eq(c.status, "ok");
	cr_expect_eq(c.nerrors, REPORT_MAX_ERRORS);
	cr_expect_eq(c.nerrors + c.more_errors, 40 + 1 + 1);
}

Test(report, unreadable_file)
{
	cr_expect_eq(report_read("/nonexistent/x.out", &c), -1);
	cr_expect_str_eq(c.status, "failed");
	cr_expect_str_eq(c.reason, "unreadable");
	cr_expect_str_eq(c.name, "x");
}

Test(report, reference_config)
{
	static struct bconfig two[2];

	snprintf(two[0].name, sizeof(two[0].name), "qemu-kvm-split");
	snprintf(two[0].status, sizeof(two[0].status), "ok");
	snprintf(two[1].name, sizeof(two[1].name), "qemu-kvm-on");
	snprintf(two[1].status, sizeof(two[1].status), "failed");
	cr_expect_null(report_ref(two, 2));
	snprintf(two[1].status, sizeof(two[1].status), "ok");
	cr_expect_eq(report_ref(two, 2), &two[1]);
}

Test(report, passes_merge_into_medians)
{
	static struct bconfig in[4], out[4];
	const char *pass[] = {
		"@config name=a iters=5\n@bench case=x n=5 p50_ns=10 apic=x2apic\n"
		"@bench_skip case=y reason=tsc-skew\n"
		"Wokeup 1 of 1 threads in 0.2 ms (+-1.00%)\n"
		"@config_end status=ok rc=0 wall_ms=1\n",
		"@config name=b\n@config_end status=failed rc=124 wall_ms=5 "
		"reason=timeout\n",
		"@config name=a iters=5\n@bench case=x n=5 p50_ns=30 apic=x2apic\n"
		"@bench_skip case=y reason=tsc-skew\n"
		"Wokeup 1 of 1 threads in 0.4 ms (+-2.00%)\n"
		"@config_end status=ok rc=0 wall_ms=2\n",
		"@config name=a iters=5\n@bench case=x n=5\n"
		"@config_end status=failed rc=124 wall_ms=4 reason=timeout\n",
	};
	const struct bcase *k;
	unsigned i, n;
	double d;

	for (i = 0; i < 4; i++) {
		const char *p = file_of(pass[i]);

		cr_assert_eq(report_read(p, &in[i]), 0);
		unlink(p);
	}
	n = report_merge(in, 4, out);
	cr_assert_eq(n, 2);
	cr_expect_str_eq(out[0].name, "a");
	cr_expect_str_eq(out[0].status, "ok");
	cr_expect_eq(out[0].passes, 3);
	cr_expect_eq(out[0].passes_ok, 2);
	cr_expect(strstr(out[0].reason, "1 of 3 passes failed: timeout"), "%s",
		  out[0].reason);
	cr_expect_eq(out[0].wall_ms, 7);
	k = report_case(&out[0], "x");
	cr_assert(k);
	cr_expect_eq(rec_get_double(&k->rec, "p50_ns", &d), 0);
	cr_expect_float_eq(d, 20, 0);
	cr_expect_eq(rec_get_double(&k->rec, "p50_ns_min", &d), 0);
	cr_expect_float_eq(d, 10, 0);
	cr_expect_eq(rec_get_double(&k->rec, "p50_ns_max", &d), 0);
	cr_expect_float_eq(d, 30, 0);
	cr_expect_eq(rec_get_double(&k->rec, "passes", &d), 0);
	cr_expect_float_eq(d, 2, 0);
	cr_expect_str_eq(rec_get(&k->rec, "apic"), "x2apic");
	k = report_case(&out[0], "y");
	cr_assert(k);
	cr_expect_eq(k->skipped, 1);
	cr_expect_str_eq(k->reason, "tsc-skew");
	cr_expect_eq(out[0].nwokeup, 2);
	cr_expect_str_eq(out[1].name, "b");
	cr_expect_str_eq(out[1].status, "failed");
	cr_expect_str_eq(out[1].reason, "timeout");
	cr_expect_eq(out[1].passes_ok, 0);
}

/*
 * A config that cannot run here (guest-bench/run's unavailable: no
 * /dev/kvm, no QEMU, no -cpu model QEMU/KVM starts with) is skipped, not
 * failed, when every pass was; the probed model comes from the header.
 */
Test(report, skipped_config_and_the_probed_cpu)
{
	static struct bconfig in[4], out[4];
	const char *pass[] = {
		"@config name=qemu-kvm-on kind=qemu-kvm cpu=none "
		"cpu_probed=none iters=5\n"
		"@config_end status=skipped rc=-1 wall_ms=0 reason=no-cpu-model\n",
		"@config name=qemu-kvm-split kind=qemu-kvm "
		"cpu=max,+x2apic cpu_probed=max iters=5\n"
		"@config_end status=skipped rc=-1 wall_ms=0 reason=no-kvm\n",
		"@config name=qemu-kvm-split kind=qemu-kvm "
		"cpu=max,+x2apic cpu_probed=max iters=5\n"
		"@config_end status=failed rc=124 wall_ms=4 reason=timeout\n",
		"@config name=qemu-kvm-on kind=qemu-kvm cpu=none "
		"cpu_probed=none iters=5\n"
		"@config_end status=skipped rc=-1 wall_ms=0 reason=no-cpu-model\n",
	};
	unsigned i, n;

	for (i = 0; i < 4; i++) {
		const char *p = file_of(pass[i]);

		cr_assert_eq(report_read(p, &in[i]), 0);
		unlink(p);
	}
	cr_expect_str_eq(in[0].status, "skipped");
	cr_expect_eq(in[0].passes_ok, 0);
	cr_expect_null(report_qemu_kvm_cpu(in, 1));
	n = report_merge(in, 4, out);
	cr_assert_eq(n, 2);
	cr_expect_str_eq(out[0].status, "skipped");
	cr_expect_str_eq(out[0].reason, "no-cpu-model");
	cr_expect_str_eq(out[1].status, "failed");
	cr_expect_null(report_ref(out, n));
	cr_expect_str_eq(report_qemu_kvm_cpu(out, n), "max");
}

/*
 * ioapic_rotate cut short by its time budget (the lines irqlab-vmm
 * --cpus 8 --ioapic=naive printed on the kvm_pvm AMD host): the @bench
 * records carry asked=, budget_ms= and ended= at the end, and still read
 * as cases with their statistics.
 */
Test(report, ioapic_rotate_cut_by_its_budget)
{
	const struct bcase *k;
	uint64_t u;

	read_text("@config name=vmm-user-x2apic-exit kind=irqlab-vmm "
		  "irqchip=user apic=x2apic hlt=exit cpus=8 iters=200\n"
		  "@bench case=ioapic_rotate.edge cpus=8 apic=x2apic n=9 "
		  "min_cyc=21077576 p50_cyc=1993773340 p90_cyc=2170322830 "
		  "p99_cyc=2170322830 max_cyc=2170322830 "
		  "mean_cyc=1464116781 min_ns=8118869 p50_ns=767981373 "
		  "p90_ns=835986455 p99_ns=835986455 max_ns=835986455 "
		  "mean_ns=563963011 exits_per_op=4.63 send_exits=0.00 "
		  "kick_exits=2.63 eoi_exits=0.00 hlt_exits=0.00 "
		  "other_exits=2.00 asked=200 budget_ms=5000 ended=budget\n"
		  "@ioapic_rotate mode=edge cpus=8 rotations=9 writes=144 "
		  "ns_per_write=35247687 p50_ns_per_write=47998835 "
		  "read_ns=57195 vs_read=839.21 asked=200 budget_ms=5000 "
		  "ended=budget rte_writes=144 tmr_updates=568 kicks=497\n"
		  "@bench case=ioapic_rotate.level cpus=8 apic=x2apic n=32 "
		  "min_cyc=904202 p50_cyc=370848140 p90_cyc=599898182 "
		  "p99_cyc=666345706 max_cyc=666345706 mean_cyc=403306936 "
		  "min_ns=348289 p50_ns=142846961 p90_ns=231074726 "
		  "p99_ns=256669642 max_ns=256669642 mean_ns=155349762 "
		  "exits_per_op=14.63 send_exits=0.00 kick_exits=7.63 "
		  "eoi_exits=1.00 hlt_exits=0.00 other_exits=6.00 asked=200 "
		  "budget_ms=5000 ended=budget\n"
		  "@config_end status=ok rc=0 wall_ms=12150\n");
	cr_expect_str_eq(c.status, "ok");
	cr_expect_eq(c.nerrors, 0, "%s", c.errors[0]);
	cr_expect_eq(c.ncases, 2);
	k = report_case(&c, "ioapic_rotate.edge");
	cr_assert(k);
	cr_expect_eq(rec_get_u64(&k->rec, "n", &u), 0);
	cr_expect_eq(u, 9);
	cr_expect_eq(rec_get_u64(&k->rec, "asked", &u), 0);
	cr_expect_eq(u, 200);
	cr_expect_str_eq(rec_get(&k->rec, "ended"), "budget");
	cr_expect_eq(rec_get_u64(&k->rec, "p50_ns", &u), 0);
	cr_expect_eq(u, 767981373);
	k = report_case(&c, "ioapic_rotate.level");
	cr_assert(k);
	cr_expect_eq(rec_get_u64(&k->rec, "budget_ms", &u), 0);
	cr_expect_eq(u, 5000);
}
