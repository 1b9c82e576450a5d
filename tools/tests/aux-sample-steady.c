// SPDX-License-Identifier: GPL-2.0
/*
 * AUX samples in a steady state, one sampler configuration after the
 * other in one boot: four threads, pinned to CPUs 0 to 3, each trace
 * themselves (user and kernel, context IDs) with their own per-thread
 * cs_etm leader into an overwrite mode AUX buffer on the TRBE of their
 * CPU, and take 4096 byte PERF_SAMPLE_AUX samples with a sampler in the
 * group, all at once, for RUN_MS each run. The configurations, in this
 * order, each with AUX buffers of 128KiB and of 2MiB:
 *
 *  - cpu-clock, a period of 1ms (a software event, hrtimer);
 *  - cycles, a period of 1ms (PMUv3, whose overflow is an NMI: see
 *    pmu-nmi.c);
 *  - cpu-clock again: the state the cycles runs left behind must not
 *    change what a software sampler gets. The cycles samplers make perf
 *    core lower kernel.perf_event_max_sample_rate ("perf: interrupt took
 *    too long"), to HZ at the end, for the rest of the boot: from then on
 *    each overflow of any sampler throttles its group;
 *  - cycles at a rate that throttles on purpose (a period of 20us), which
 *    must log a PERF_RECORD_THROTTLE.
 *
 * The kernel's lowering of the sample rate and its throttling stay on:
 * this test writes neither perf_cpu_time_max_percent nor
 * perf_event_max_sample_rate. The first run must find the rate as the
 * kernel booted with it: no program that init runs before this one (in
 * name order) has a hardware sampler.
 *
 * Each run passes when (1) every thread opened its group and got
 * samples, each well formed, of 4096 bytes (or without AUX data, taken
 * while the group was scheduled out, see the kselftest aux_sample_trbe),
 * of its own thread and CPU, and at least 95% of all samples hold
 * trace (not all zeros), and (2) no sample has its trace followed by
 * zeros: a sample
 * is zero-padded at the front only, its trace ends with the latest
 * packet, and no packet of the ETE ends with TRAILING_ZEROS zero bytes
 * (the longest legitimate run is the top bytes of a context ID or a
 * 64-bit user address: 5 bytes the longest measured). Throttling that
 * paused the cs_etm leader before the sample was taken gave all-zero
 * samples, and samples whose trace was followed by 700 to 4000 zero
 * bytes; those are what the two results catch.
 *
 * Printed as KTAP diagnostics per run: samples, samples with trace, their
 * share, the bytes of trace they hold on average and how many hold
 * nothing but trace, samples with trace followed by zeros (and the
 * longest such run), the AUX bytes reported by PERF_RECORD_AUX, the
 * records lost (PERF_RECORD_LOST) and the PERF_RECORD_THROTTLE and
 * _UNTHROTTLE; per thread the same. A run without samples with trace
 * fails the second result too: it checked nothing. The pass marks are
 * not timing: every number but the sample counts is a share or a count
 * that must be zero.
 *
 * Needs ETE and TRBE (skipped without, "no TRBE"); the cycles runs need a
 * PMU that counts CPU cycles (skipped without, "no PMU counts CPU cycles").
 */
#define _GNU_SOURCE
#include <pthread.h>
#include <stdint.h>
#include <stdlib.h>

#include "aux-session.h"
#include "watchdog.h"

#define NR_THREADS	4	/* pinned to CPUs 0 to 3 */
#define SAMPLE_SIZE	4096
#define RUN_MS		3000
#define READ_EVERY_MS	5	/* drain the ring buffer of 1MiB this often */
#define MIN_TRACE_PERCENT	95
/* A run of zeros this long at the end of a sample's trace is no ETE packet */
#define TRAILING_ZEROS	16
/*
 * 8 runs of 3 s, each with its setup and a last read: about 30 s on the
 * model; 180 s for a slow emulated CPU on a busy host, well before the
 * boot's timeout (600 s)
 */
#define WATCHDOG_SECONDS	180

struct config {
	const char *name;	/* in test names */
	int cycles;		/* PMUv3 cycles, or cpu-clock */
	unsigned long period;	/* ns of cpu-clock, or cycles */
	int throttles;		/* must log a PERF_RECORD_THROTTLE */
};

static const struct config configs[] = {
	{ "cpu_clock", 0, 1000000, 0 },
	{ "cycles", 1, 1000000, 0 },
	{ "cpu_clock_again", 0, 1000000, 0 },
	{ "cycles_throttled", 1, 20000, 1 },
};

static const struct {
	const char *name;
	int pages;
} buffers[] = {
	{ "128kib", 32 },
	{ "2mib", 512 },
};

struct stats {
	unsigned long nr, with_trace, trailing, bad_size, bad_tid, bad_cpu, malformed, no_aux;
	unsigned long lost, aux_records, aux_bytes, truncated, throttle, unthrottle;
	unsigned long longest_trailing;
	unsigned long trace_bytes, full;	/* after the leading zeros; samples without any */
};

struct thread_run {
	const struct config *config;
	int aux_pages, cpu, tid, opened;
	struct stats st;
};

static int cs_etm_type;
static pthread_barrier_t start;

static void add_stats(struct stats *to, const struct stats *st)
{
	to->nr += st->nr;
	to->with_trace += st->with_trace;
	to->trailing += st->trailing;
	to->bad_size += st->bad_size;
	to->bad_tid += st->bad_tid;
	to->bad_cpu += st->bad_cpu;
	to->malformed += st->malformed;
	to->no_aux += st->no_aux;
	to->lost += st->lost;
	to->aux_records += st->aux_records;
	to->aux_bytes += st->aux_bytes;
	to->truncated += st->truncated;
	to->throttle += st->throttle;
	to->unthrottle += st->unthrottle;
	to->trace_bytes += st->trace_bytes;
	to->full += st->full;
	if (st->longest_trailing > to->longest_trailing)
		to->longest_trailing = st->longest_trailing;
}

static void count_record(const struct perf_event_header *h, const uint8_t *rec, void *arg)
{
	struct thread_run *t = arg;
	struct stats *st = &t->st;
	const struct aux_sample_rec *r = (const void *)rec;
	uint64_t lead, trail;

	switch (h->type) {
	case PERF_RECORD_LOST: {
		uint64_t lost;

		/* header, then id and lost */
		if (h->size < sizeof(*h) + 16) {
			st->malformed++;
			return;
		}
		memcpy(&lost, rec + sizeof(*h) + 8, 8);
		st->lost += lost;
		return;
	}
	case PERF_RECORD_THROTTLE:
		st->throttle++;
		return;
	case PERF_RECORD_UNTHROTTLE:
		st->unthrottle++;
		return;
	case PERF_RECORD_AUX: {
		uint64_t size, flags;

		/* header, then aux_offset, aux_size and flags */
		if (h->size < sizeof(*h) + 24) {
			st->malformed++;
			return;
		}
		memcpy(&size, rec + sizeof(*h) + 8, 8);
		memcpy(&flags, rec + sizeof(*h) + 16, 8);
		st->aux_records++;
		st->aux_bytes += size;
		st->truncated += !!(flags & PERF_AUX_FLAG_TRUNCATED);
		return;
	}
	case PERF_RECORD_SAMPLE:
		break;
	default:
		return;
	}

	st->nr++;
	/* header, TID, CPU, the AUX size, then exactly that many bytes */
	if (h->size < sizeof(*r) || h->size != sizeof(*r) + r->size) {
		st->malformed++;
		return;
	}
	st->bad_tid += (int)r->tid != t->tid;
	st->bad_cpu += (int)r->cpu != t->cpu;
	/* No AUX data: taken while the group was scheduled out (see aux_sample_trbe) */
	if (!r->size) {
		st->no_aux++;
		return;
	}
	st->bad_size += r->size != SAMPLE_SIZE;
	for (lead = 0; lead < r->size && !r->data[lead]; lead++)
		;
	if (lead == r->size)
		return;		/* all zeros: no trace */
	st->with_trace++;
	st->trace_bytes += r->size - lead;
	st->full += !lead;
	for (trail = 0; !r->data[r->size - 1 - trail]; trail++)
		;
	if (trail >= TRAILING_ZEROS && !st->trailing++) {
		/* The first one of the thread: the last bytes of trace, to decode */
		size_t end = r->size - trail, from = end - lead > 32 ? end - 32 : lead, i;
		char hex[3 * 32 + 1] = "";

		for (i = from; i < end; i++)
			snprintf(hex + 3 * (i - from), 4, " %02x", r->data[i]);
		/* One printf: ktap_diag()'s three would interleave with other threads' */
		printf("# CPU %d: trace followed by %zu zero bytes, %zu bytes of trace; its last bytes:%s\n",
		       t->cpu, trail, end - lead, hex);
		fflush(stdout);
	}
	if (trail > st->longest_trailing)
		st->longest_trailing = trail;
}

static void *run_thread(void *arg)
{
	struct thread_run *t = arg;
	struct perf_event_attr leader, sampler;
	struct aux_session s;
	double end;

	pin_to_cpu(t->cpu);
	t->tid = gettid();
	cs_etm_leader_attr(&leader, cs_etm_type);
	aux_sampler_attr(&sampler, SAMPLE_SIZE);
	if (t->config->cycles)
		cycles_sampler(&sampler);
	sampler.sample_period = t->config->period;
	sampler.disabled = 1;
	t->opened = !aux_session_open(&s, &leader, &sampler, 1, t->aux_pages);
	/* All threads, opened or not, start together */
	pthread_barrier_wait(&start);
	if (!t->opened)
		return NULL;

	aux_session_enable(&s);
	for (end = watchdog_now() + RUN_MS / 1000.0; watchdog_now() < end;) {
		spin_ms(READ_EVERY_MS);
		aux_session_read(&s, count_record, t);
	}
	aux_session_disable(&s);
	aux_session_read(&s, count_record, t);
	t->st.malformed += s.malformed;
	aux_session_close(&s);
	return NULL;
}

/* The name of result @n (0 or 1) of a run */
static const char *result_name(char *name, size_t len, const struct config *c,
			       const char *buffer, int n)
{
	snprintf(name, len, "aux_sample_steady.%s_%s.%s", c->name, buffer,
		 n ? "no_zeros_after_trace" : "most_samples_hold_trace");
	return name;
}

static void run(const struct config *c, const char *buffer, int aux_pages)
{
	struct thread_run t[NR_THREADS] = {};
	pthread_t th[NR_THREADS];
	struct stats all = {};
	int i, ok = 1, started[NR_THREADS], rate = perf_max_sample_rate();
	char name[160];
	double pct;

	watchdog_step("%s, %s AUX buffers", c->name, buffer);
	pthread_barrier_init(&start, NULL, NR_THREADS);
	for (i = 0; i < NR_THREADS; i++) {
		t[i].config = c;
		t[i].aux_pages = aux_pages;
		t[i].cpu = i;
		errno = pthread_create(&th[i], NULL, run_thread, &t[i]);
		started[i] = !errno;
		if (errno) {
			ktap_diag("pthread_create: %s", strerror(errno));
			/* Wait for the others myself, so that the barrier opens */
			pthread_barrier_wait(&start);
		}
	}
	for (i = 0; i < NR_THREADS; i++) {
		struct stats *st = &t[i].st;

		if (started[i])
			pthread_join(th[i], NULL);
		ktap_diag("  CPU %d: %lu samples, %lu with trace, %lu without AUX data, %lu with trace followed by zeros, %lu malformed, %lu of a wrong size, thread or CPU; %lu AUX bytes in %lu records (%lu truncated), %lu records lost, %lu throttle, %lu unthrottle",
			  t[i].cpu, st->nr, st->with_trace, st->no_aux, st->trailing, st->malformed,
			  st->bad_size + st->bad_tid + st->bad_cpu, st->aux_bytes, st->aux_records,
			  st->truncated, st->lost, st->throttle, st->unthrottle);
		ok &= started[i] && t[i].opened && st->nr > 0 && !st->malformed &&
		      !st->bad_size && !st->bad_tid && !st->bad_cpu;
		add_stats(&all, st);
	}
	pthread_barrier_destroy(&start);

	pct = all.nr ? 100.0 * all.with_trace / all.nr : 0;
	ktap_diag("%s, %s AUX buffers: %lu samples, %lu with trace (%.1f%%, %lu bytes of it on average, %lu all trace), %lu without AUX data, %lu with trace followed by zeros (longest run %lu bytes), %lu AUX bytes in %lu PERF_RECORD_AUX (%lu truncated), %lu records lost, %lu throttle, %lu unthrottle; perf_event_max_sample_rate %d, then %d",
		  c->name, buffer, all.nr, all.with_trace, pct,
		  all.with_trace ? all.trace_bytes / all.with_trace : 0, all.full, all.no_aux,
		  all.trailing,
		  all.longest_trailing, all.aux_bytes, all.aux_records, all.truncated, all.lost,
		  all.throttle, all.unthrottle, rate, perf_max_sample_rate());
	if (c->throttles && !all.throttle)
		ktap_diag("%s: no PERF_RECORD_THROTTLE: the rate did not throttle", c->name);

	ktap_result(ok && pct >= MIN_TRACE_PERCENT && (!c->throttles || all.throttle),
		    result_name(name, sizeof(name), c, buffer, 0));
	ktap_result(ok && all.with_trace && !all.trailing,
		    result_name(name, sizeof(name), c, buffer, 1));
}

int main(void)
{
	int nr_configs = sizeof(configs) / sizeof(configs[0]);
	int nr_buffers = sizeof(buffers) / sizeof(buffers[0]);
	int c, b, trbe, cycles;

	watchdog_start(WATCHDOG_SECONDS);
	cs_etm_type = pmu_type("cs_etm");
	ktap_plan("aux_sample_steady", 2 * nr_configs * nr_buffers);
	trbe = cs_etm_type >= 0 && !access("/sys/bus/coresight/devices/trbe0", F_OK);
	cycles = have_cycles();
	if (!cycles)
		ktap_diag("cycles: %s", strerror(errno));
	for (c = 0; c < nr_configs; c++) {
		for (b = 0; b < nr_buffers; b++) {
			const char *why = !trbe ? "no TRBE" :
					  configs[c].cycles && !cycles ? "no PMU counts CPU cycles" :
					  NULL;
			char name[160];

			if (!why) {
				run(&configs[c], buffers[b].name, buffers[b].pages);
				continue;
			}
			ktap_skip(result_name(name, sizeof(name), &configs[c], buffers[b].name, 0), why);
			ktap_skip(result_name(name, sizeof(name), &configs[c], buffers[b].name, 1), why);
		}
	}
	return 0;
}
