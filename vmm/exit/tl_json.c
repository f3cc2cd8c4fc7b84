// SPDX-License-Identifier: MIT
/*
 * The timeline as Chrome Trace Event JSON, the format Perfetto's UI and
 * chrome://tracing open: a track per vCPU thread, a complete event ("X")
 * per phase, flow events (s, t, f) joining the phases of one IPI, and the
 * run in "otherData" (docs/ANATOMY.md "The file").
 */
#include <inttypes.h>

#include "timeline.h"

/*
 * A phase is named after what happens in it, and ends at its point.
 * docs/ANATOMY.md lists them with the code and the SDM section behind.
 */
const char *tl_phase_name(enum tl_point p, const struct tl_ipi *ipi)
{
	switch (p) {
	case TP_ICR_HI:
		return "ICR_HI exit";
	case TP_EXIT:
		return ipi->t[TP_ICR_HI] ? "ICR_HI to ICR_LO exit" : "ICR exit";
	case TP_POST:
		return "decode and post";
	case TP_NOTIFY:
		return ipi->notify == TL_KICK ? "kick" :
		       ipi->notify == TL_WAKE ? "wake" : "no kick";
	case TP_OUT:
		return ipi->notify == TL_KICK ? "out of KVM_RUN" : "awake";
	case TP_INJECT:
		return "to injection";
	case TP_ENTRY:
		return "KVM_INTERRUPT";
	case TP_HANDLER:
		return ipi->t[TP_ENTRY] ? "entry to handler" :
		       ipi->t[TP_INJECT] ? "injection to handler" :
		       "send to handler (in KVM)";
	case TP_EOI:
		return "handler";
	case TP_EOI_EXIT:
		return "EOI exit";
	default:
		return "send";
	}
}

void tl_json_string(FILE *f, const char *s)
{
	fputc('"', f);
	for (; s && *s; s++) {
		unsigned char ch = (unsigned char)*s;

		if (ch == '"' || ch == '\\')
			fprintf(f, "\\%c", ch);
		else if (ch < 0x20)
			fprintf(f, "\\u%04x", ch);
		else
			fputc(ch, f);
	}
	fputc('"', f);
}

/* the track of a point: the target's from the notify's end on */
static unsigned point_cpu(enum tl_point p, const struct tl_ipi *ipi)
{
	return p >= TP_OUT ? ipi->to : ipi->from;
}

static double us(uint64_t t, uint64_t t0, uint64_t khz)
{
	return (double)(t - t0) * 1000.0 / (double)khz;
}

static void write_ipi(FILE *f, const struct tl_ipi *ipi, uint64_t t0,
		      uint64_t khz)
{
	unsigned p, prev = TP_NR, last = TP_NR, points = 0, nslices = 0;

	for (p = 0; p < TP_NR; p++)
		if (ipi->t[p]) {
			last = p;
			points++;
		}
	for (p = 0; p < TP_NR; p++) {
		double ts, dur;

		if (!ipi->t[p])
			continue;
		if (prev == TP_NR) {
			prev = p;
			continue;
		}
		ts = us(ipi->t[prev], t0, khz);
		dur = us(ipi->t[p], t0, khz) - ts;
		fprintf(f, ",\n{\"ph\":\"X\",\"pid\":1,\"tid\":%u,\"ts\":%.3f,"
			"\"dur\":%.3f,\"cat\":\"ipi\",\"name\":",
			point_cpu(p, ipi), ts, dur);
		tl_json_string(f, tl_phase_name(p, ipi));
		fprintf(f, ",\"args\":{\"ipi\":%u,\"vector\":%u,\"from\":%u,"
			"\"to\":%u,\"from_point\":%u,\"to_point\":%u}}",
			ipi->id, ipi->vector, ipi->from, ipi->to, prev, p);
		/* a flow joins the slices: s, t..., f (bound to the slice
		 * that encloses its ts: the phase just written); one slice
		 * alone has none */
		if (points > 2)
			fprintf(f, ",\n{\"ph\":\"%s\",\"pid\":1,\"tid\":%u,"
				"\"ts\":%.3f,\"cat\":\"ipi\",\"name\":\"ipi\","
				"\"id\":%u%s}",
				nslices == 0 ? "s" : p == last ? "f" : "t",
				point_cpu(p, ipi), ts, ipi->id,
				p == last ? ",\"bp\":\"e\"" : "");
		nslices++;
		prev = p;
	}
}

/* the PIT timer thread's fires: instants on a track after the vCPUs' */
static void write_pit(FILE *f, const struct tl_cpu *pit, unsigned tid,
		      uint64_t t0, uint64_t khz)
{
	uint32_t i;

	fprintf(f, ",\n{\"ph\":\"M\",\"pid\":1,\"tid\":%u,\"ts\":0,"
		"\"name\":\"thread_name\",\"args\":{\"name\":"
		"\"pit-timer\"}}", tid);
	for (i = 0; i < pit->n; i++) {
		uint64_t t = pit->ev[i].tsc + (uint64_t)pit->tsc_offset;

		if (t < t0)
			continue;	/* before the first IPI's first point */
		fprintf(f, ",\n{\"ph\":\"i\",\"s\":\"t\",\"pid\":1,"
			"\"tid\":%u,\"ts\":%.3f,\"cat\":\"timer\","
			"\"name\":\"PIT timer fires\"}", tid, us(t, t0, khz));
	}
}

void tl_write_json(FILE *f, const struct tl_cpu *cpu, unsigned ncpu,
		   const struct tl_result *r, uint64_t tsc_khz,
		   const char *meta, const struct tl_cpu *pit)
{
	uint64_t t0 = UINT64_MAX, dropped = 0, st_dropped = 0;
	unsigned c, p;
	uint32_t i;

	if (!tsc_khz)
		tsc_khz = 1000000;	/* no rate known: 1 GHz, said below */
	for (i = 0; i < r->n; i++)
		for (p = 0; p < TP_NR; p++)
			if (r->ipi[i].t[p] && r->ipi[i].t[p] < t0)
				t0 = r->ipi[i].t[p];
	if (t0 == UINT64_MAX)
		t0 = 0;
	for (c = 0; c < ncpu; c++) {
		dropped += cpu[c].dropped;
		st_dropped += cpu[c].st_dropped;
	}
	fprintf(f, "{\"displayTimeUnit\":\"ns\",\"otherData\":{%s%s"
		"\"tsc_khz\":%" PRIu64 ",\"t0_tsc\":%" PRIu64 ",\"ipis\":%u,"
		"\"complete\":%u,\"backwards\":%u,\"vmm_dropped\":%" PRIu64
		",\"guest_dropped\":%" PRIu64 ",\"clock_fix_cyc\":[",
		meta ? meta : "", meta && *meta ? "," : "", tsc_khz, t0,
		r->n, r->complete, r->backwards, dropped, st_dropped);
	for (c = 0; c < ncpu; c++)
		fprintf(f, "%s[%" PRId64 ",%" PRId64 "]", c ? "," : "",
			r->fix ? r->fix[c][0] : 0, r->fix ? r->fix[c][1] : 0);
	fputs("],\"clock_unsure\":[", f);
	for (c = 0; c < ncpu; c++)
		fprintf(f, "%s%u", c ? "," : "", r->unsure ? r->unsure[c] : 0);
	fprintf(f, "]},\n\"traceEvents\":[\n"
		"{\"ph\":\"M\",\"pid\":1,\"tid\":0,\"ts\":0,\"name\":\"process_name\","
		"\"args\":{\"name\":\"irqlab-vmm (guest TSC)\"}}");
	for (c = 0; c < ncpu; c++)
		fprintf(f, ",\n{\"ph\":\"M\",\"pid\":1,\"tid\":%u,\"ts\":0,\"name\":"
			"\"thread_name\",\"args\":{\"name\":\"vcpu%u\"}}", c, c);
	for (i = 0; i < r->n; i++)
		write_ipi(f, &r->ipi[i], t0, tsc_khz);
	if (pit)
		write_pit(f, pit, ncpu, t0, tsc_khz);
	fputs("\n]}\n", f);
}
