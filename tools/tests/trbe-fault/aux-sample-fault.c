// SPDX-License-Identifier: GPL-2.0
/*
 * A fatal TRBE fault in an AUX sampling session ends it: the cs_etm
 * leader's ring buffer gets a PERF_RECORD_AUX with PERF_AUX_FLAG_TRUNCATED,
 * perf core disables the event and no sample after it carries trace.
 *
 * Needs the fault injection of the QEMU model: ci/boot-trbe-fault.sh boots
 * with -cpu max,x-trbe-fault-at-disable=N, so that the TRBE reports a stage
 * 1 fault at every Nth disable of the trace unit of a CPU. Each case makes
 * the trace unit of its CPU be disabled in one way only, so that the fault
 * reaches one path of the drivers:
 *  - AUX samples pause the trace unit, then update_buffer() finds the fault
 *    (etm_event_snapshot_aux(), the snapshot path);
 *  - samples with aux_pause pause the trace unit without update_buffer(),
 *    so the TRBE interrupt handler finds it;
 *  - enable/disable cycles without samples stop the event, and
 *    update_buffer() in etm_event_stop() finds it.
 * The path that handled the fault shows from outside: the TRBE interrupts
 * of the CPU in /proc/interrupts beyond those of the buffer filling up,
 * each of which reports a COLLISION (the kernel is traced too, and how
 * much trace a session makes depends on the speed of the CPU), and the
 * snapshot path puts the TRUNCATED record right after the all-zero
 * sample that found the fault. A session can end on another path if the
 * thread is scheduled out at the faulting disable; each case tries up to
 * three sessions.
 *
 * A session waits for the fault by count, not by time: until the trace
 * unit of the CPU was disabled twice as often as the fault needs (each
 * AUX sample or enable/disable cycle disables it once; a sched out only
 * adds disables), however slowly the CPU takes its samples.
 */
#define _GNU_SOURCE
#include <stdint.h>
#include <stdlib.h>

#include "aux-session.h"
#include "watchdog.h"

#define AUX_PAGES	128	/* 512KiB */
#define FAULT_EVERY	4	/* x-trbe-fault-at-disable of ci/boot-trbe-fault.sh */
#define MAX_DISABLES	(2 * FAULT_EVERY)	/* to wait for the fault */
#define MAX_SESSION_MS	5000	/* for a CPU that takes no sample at all */
#define SESSIONS	3
/*
 * A case takes at most SESSIONS * MAX_SESSION_MS of spinning, 15 s; the
 * watchdog leaves room for a slow CPU, well before the boot's timeout
 * (600 s)
 */
#define WATCHDOG_SECONDS	150

enum fault_path { PATH_NONE, PATH_SNAPSHOT, PATH_IRQ, PATH_STOP };

static const char *const path_names[] = {
	"no fault", "an AUX sample (update_buffer in snapshot_aux)",
	"the TRBE interrupt handler", "the event stop (update_buffer in etm_event_stop)",
};

/* What the leader's ring buffer told, in order */
struct fault_records {
	int samples;		/* AUX samples */
	int with_trace;		/* AUX samples that hold trace */
	int truncated;		/* PERF_RECORD_AUX with TRUNCATED */
	int collisions;		/* ... with COLLISION only: the buffer filled up */
	int after;		/* AUX samples after the TRUNCATED record */
	int after_with_trace;	/* ... that hold trace */
	int last_was_zero;	/* the last record was an all-zero AUX sample */
	int zero_before_truncated; /* ... when the TRUNCATED record came */
};

static int cs_etm_type;

static void note_record(const struct perf_event_header *h, const uint8_t *rec, void *arg)
{
	struct fault_records *r = arg;
	const struct aux_sample_rec *s = (const void *)rec;
	uint64_t flags, i;
	int trace = 0;

	if (h->type == PERF_RECORD_AUX) {
		/* header, aux_offset, aux_size, then flags */
		memcpy(&flags, rec + sizeof(*h) + 16, sizeof(flags));
		if ((flags & PERF_AUX_FLAG_TRUNCATED) && !r->truncated++)
			r->zero_before_truncated = r->last_was_zero;
		else if (flags & PERF_AUX_FLAG_COLLISION)
			r->collisions++;
		r->last_was_zero = 0;
		return;
	}
	r->last_was_zero = 0;
	/* The samples without PERF_SAMPLE_AUX (aux_resume) have no size field */
	if (h->type != PERF_RECORD_SAMPLE || h->size <= sizeof(*s))
		return;
	for (i = 0; i < s->size && !trace; i++)
		trace = s->data[i] != 0;
	r->samples++;
	r->with_trace += trace;
	r->last_was_zero = !trace;
	if (r->truncated) {
		r->after++;
		r->after_with_trace += trace;
	}
}

static uint64_t time_enabled(int fd)
{
	uint64_t v[2] = { 0, 0 };	/* count, time enabled */

	if (read(fd, v, sizeof(v)) != sizeof(v))
		return 0;
	return v[1];
}

enum fault_case { CASE_SNAPSHOT, CASE_IRQ, CASE_STOP };

/*
 * Run one session of @c on @cpu until the fault ends it, and tell which
 * path handled the fault. Returns PATH_NONE if the session did not end
 * as it must (no TRUNCATED record, not disabled, trace after it).
 */
static enum fault_path run_session(enum fault_case c, int cpu)
{
	struct perf_event_attr leader, sib[2];
	struct fault_records r = {};
	struct aux_session s;
	enum fault_path path;
	struct timespec start;
	long irqs;
	uint64_t t0, t1;
	int i, nr = 0, ok, disables;

	pin_to_cpu(cpu);
	cs_etm_leader_attr(&leader, cs_etm_type);
	leader.read_format = PERF_FORMAT_TOTAL_TIME_ENABLED;
	switch (c) {
	case CASE_SNAPSHOT:
		aux_sampler_attr(&sib[nr++], 4096);
		break;
	case CASE_IRQ:
		/* Pause the trace for each sample, resume it right after */
		aux_sampler_attr(&sib[nr], 4096);
		sib[nr++].aux_pause = 1;
		aux_sampler_attr(&sib[nr], 0);
		sib[nr].sample_type = PERF_SAMPLE_TID | PERF_SAMPLE_CPU;
		sib[nr++].aux_resume = 1;
		break;
	case CASE_STOP:
		/* No sampler: the leader alone */
		break;
	}
	if (aux_session_open(&s, &leader, sib, nr, AUX_PAGES))
		return PATH_NONE;

	irqs = trbe_interrupts(cpu);
	if (c != CASE_STOP)
		aux_session_enable(&s);
	clock_gettime(CLOCK_MONOTONIC, &start);
	for (i = 0, disables = 0; disables < MAX_DISABLES && !r.truncated; i++) {
		if (c == CASE_STOP) {
			aux_session_enable(&s);
			spin_ms(1);
			aux_session_disable(&s);
		} else {
			spin_ms(1);
		}
		aux_session_read(&s, note_record, &r);
		disables = c == CASE_STOP ? i + 1 : r.samples;
		if (ms_since(&start, MAX_SESSION_MS))
			break;
	}
	/* The event must be off now: no time enabled, no more trace */
	t0 = time_enabled(s.leader);
	spin_ms(20);
	t1 = time_enabled(s.leader);
	aux_session_read(&s, note_record, &r);
	irqs = trbe_interrupts(cpu) - irqs;
	aux_session_disable(&s);
	aux_session_close(&s);
	if (s.malformed)
		ktap_diag("CPU %d: malformed ring buffer", cpu);

	if (!r.truncated)
		path = PATH_NONE;
	else if (irqs > r.collisions)
		path = PATH_IRQ;
	else if (r.zero_before_truncated)
		path = PATH_SNAPSHOT;
	else
		path = PATH_STOP;
	ktap_diag("CPU %d: %d rounds, %d AUX samples (%d with trace), %d TRUNCATED, then %d samples (%d with trace), time enabled %s, %ld TRBE interrupts, %d COLLISION records of a full buffer: fault handled by %s",
		  cpu, i, r.samples, r.with_trace, r.truncated, r.after, r.after_with_trace,
		  t0 == t1 ? "stopped" : "still running", irqs, r.collisions, path_names[path]);
	ok = r.truncated && !r.after_with_trace && t0 == t1 && !s.malformed;
	return ok ? path : PATH_NONE;
}

static void test_case(enum fault_case c, int cpu, enum fault_path want, const char *name)
{
	enum fault_path path = PATH_NONE;
	int i, ok = 1;

	for (i = 0; i < SESSIONS && path != want; i++) {
		watchdog_step("%s: session %d on CPU %d", name, i, cpu);
		path = run_session(c, cpu);
		ok &= path != PATH_NONE;
	}
	ktap_result(ok && path == want, name);
}

int main(void)
{
	static const char *const names[] = {
		/* A TRBE fault found by an AUX sample ends the session TRUNCATED and disabled */
		"aux_sample_fault.in_snapshot",
		/* A TRBE fault while AUX samples pause the trace ends the session in the TRBE interrupt */
		"aux_sample_fault.in_trbe_irq",
		/* A TRBE fault found when the event stops is reported TRUNCATED */
		"aux_sample_fault.at_event_stop",
	};
	int i;

	watchdog_start(WATCHDOG_SECONDS);
	cs_etm_type = pmu_type("cs_etm");
	ktap_plan("aux_sample_fault", 3);
	if (cs_etm_type < 0 || access("/sys/bus/coresight/devices/trbe0", F_OK)) {
		for (i = 0; i < 3; i++)
			ktap_skip(names[i], "no TRBE");
		return 0;
	}
	test_case(CASE_SNAPSHOT, 1, PATH_SNAPSHOT, names[0]);
	test_case(CASE_IRQ, 2, PATH_IRQ, names[1]);
	test_case(CASE_STOP, 3, PATH_STOP, names[2]);
	return 0;
}
