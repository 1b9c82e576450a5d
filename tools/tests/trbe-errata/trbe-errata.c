// SPDX-License-Identifier: GPL-2.0
/*
 * Snapshot mode (overwrite AUX buffer, perf record -S) on a TRBE with the
 * alignment and the errata of a real part: the restarts of the buffer at
 * unaligned heads and after FILL events must keep the TRBE where it can
 * write, without a WARN.
 *
 * Needs the boot of ci/boot-trbe-errata.sh: -cpu max with the MIDR of a
 * Neoverse-N2 (so that the kernel enables the TRBE work-arounds for errata
 * 2139208 and 2253138), TRBIDR_EL1.Align of 256 bytes and the two errata
 * in the QEMU model (x-trbe-align=8, x-trbe-overwrite-fill-mode,
 * x-trbe-write-out-of-range, see tools/qemu/README.md). Without the
 * work-arounds the model's stray writes corrupt trace or fault; without
 * patch 8 of the series the restart at an unaligned head hits the
 * WARN_ON(!IS_ALIGNED(buf->trbe_write, PAGE_SIZE)) of
 * trbe_apply_work_around_before_enable(), and the restart after a FILL
 * with a page or less left its WARN_ON(space <= PAGE_SIZE ...).
 *
 * The tests (with aux-sample-dump and aux-sample-latest, symlinks to the
 * boot tests of the series boot, whose samples ci/check-aux-samples.sh
 * decodes, and the series' kselftest aux_sample_trbe):
 *  - each TRBE reports the model's alignment (the sysfs align attribute);
 *  - a session disabled and enabled again many times, each time at the
 *    head where the trace ended, which is seldom page aligned: no splat,
 *    trace after every restart, and pages that start with the 256 bytes
 *    of ETE_IGNORE_PACKET that the overwrite-in-fill-mode work-around
 *    skips: the driver took that path;
 *  - a session with more trace than its buffer holds: the TRBE fills it
 *    again and again (FILL events, where the model's errata write), the
 *    interrupt handler restarts it, no splat.
 * Neither session may end with a fault (a PERF_RECORD_AUX with TRUNCATED),
 * as one does when the driver lets the TRBE write past the buffer.
 *
 * The fill session runs SCHED_FIFO: a sched out before the first FILL
 * would restart the buffer from the event's start at an unaligned head
 * (the first session's case) instead of from the interrupt handler at
 * the page-aligned head the FILL leaves, the path this session is for.
 * Its diagnostic says how many context switches it took.
 */
#define _GNU_SOURCE
#include <stdint.h>
#include <sched.h>
#include <stdlib.h>

#include "aux-session.h"
#include "kmsg-util.h"
#include "watchdog.h"

/*
 * Each session on a TRBE of its own: on the base kernel, whose restarts
 * fail, the state the failed restarts of one session leave behind on its
 * TRBE must not change the path the next session takes.
 */
#define RESTART_CPU	1
#define FILL_CPU	2
#define EXPECT_ALIGN	"100"	/* x-trbe-align=8: 256 bytes, in hex as sysfs */
#define RESTARTS	64
#define RESTART_PAGES	16	/* fewer pages than restarts: the buffer wraps */
#define FILL_PAGES	4	/* the least the work-arounds leave room in */
#define FILL_IRQS	32	/* FILL events: 30 to 50 ms of trace on the model */
#define FILL_MAX_MS	5000
#define ETE_IGNORE	0x70
#define SKIP_BYTES	256	/* TRBE_WORKAROUND_OVERWRITE_FILL_MODE_SKIP_BYTES */
/* The sessions take a few seconds on the model */
#define WATCHDOG_SECONDS	120

static int cs_etm_type;

static const char *const names[] = {
	/* Every TRBE reports TRBIDR_EL1.Align of 256 bytes */
	"trbe_errata.align_256_bytes",
	/* Snapshot mode: restarts at unaligned heads, no fault, no splat */
	"trbe_errata.unaligned_restarts",
	/* Snapshot mode: the TRBE fills its buffer again and again, no fault, no splat */
	"trbe_errata.repeated_fills",
};

static void test_align(void)
{
	const char *name = names[0];
	int cpus = sysconf(_SC_NPROCESSORS_ONLN), ok = cpus > 0;

	for (int cpu = 0; cpu < cpus; cpu++) {
		char path[128], align[32] = "", flag[32] = "";
		FILE *f;

		snprintf(path, sizeof(path), "/sys/bus/coresight/devices/trbe%d/align", cpu);
		f = fopen(path, "r");
		if (!f || !fgets(align, sizeof(align), f))
			ok = 0;
		if (f)
			fclose(f);
		align[strcspn(align, "\n")] = 0;
		snprintf(path, sizeof(path), "/sys/bus/coresight/devices/trbe%d/flag", cpu);
		f = fopen(path, "r");
		if (f && fgets(flag, sizeof(flag), f))
			flag[strcspn(flag, "\n")] = 0;
		if (f)
			fclose(f);
		ktap_diag("trbe%d: align %s, flag %s", cpu, align, flag);
		if (strcmp(align, EXPECT_ALIGN))
			ok = 0;
	}
	ktap_result(ok, name);
}

static void note_truncated(const struct perf_event_header *h, const uint8_t *rec, void *arg)
{
	uint64_t flags;

	if (h->type != PERF_RECORD_AUX)
		return;
	/* header, aux_offset, aux_size, then flags */
	memcpy(&flags, rec + sizeof(*h) + 16, sizeof(flags));
	*(int *)arg += !!(flags & PERF_AUX_FLAG_TRUNCATED);
}

/* The PERF_RECORD_AUX records with TRUNCATED (a fault) since the last call */
static int truncated(struct aux_session *s)
{
	int nr = 0;

	aux_session_read(s, note_truncated, &nr);
	return nr;
}

static int open_session(struct aux_session *s, int pages)
{
	struct perf_event_attr leader;

	cs_etm_leader_attr(&leader, cs_etm_type);
	return aux_session_open(s, &leader, NULL, 0, pages);
}

/* Pages of the AUX buffer that start with the work-around's skipped bytes */
static int skip_pages(struct aux_session *s)
{
	long page = aux_page_size();
	const uint8_t *aux = s->aux;
	int nr = 0;

	for (size_t off = 0; off < s->aux_size; off += page) {
		int i = 0;

		while (i < SKIP_BYTES && aux[off + i] == ETE_IGNORE)
			i++;
		/* ... followed by trace, not by more padding */
		nr += i == SKIP_BYTES && aux[off + i] != ETE_IGNORE;
	}
	return nr;
}

static void test_restarts(int kmsg)
{
	const char *name = names[1];
	long page = aux_page_size();
	int unaligned = 0, no_trace = 0, trunc = 0, splats, skips;
	struct aux_session s;
	uint64_t head = 0;

	pin_to_cpu(RESTART_CPU);
	watchdog_step("restarts: open");
	if (open_session(&s, RESTART_PAGES)) {
		ktap_result(0, name);
		return;
	}
	for (int i = 0; i < RESTARTS; i++) {
		uint64_t h;

		watchdog_step("restarts: round %d", i);
		unaligned += head % page != 0;
		aux_session_enable(&s);
		spin_ms(2);
		aux_session_disable(&s);
		h = __atomic_load_n(&s.pc->aux_head, __ATOMIC_ACQUIRE);
		no_trace += h == head;
		head = h;
		trunc += truncated(&s);
	}
	skips = skip_pages(&s);
	splats = kmsg_splats(kmsg, 5);
	ktap_diag("%d restarts, %d of them at an unaligned head, %d without trace after, "
		  "%d pages start with %d bytes of ETE_IGNORE_PACKET, %d TRUNCATED, %d splats",
		  RESTARTS, unaligned, no_trace, skips, SKIP_BYTES, trunc, splats);
	aux_session_close(&s);
	ktap_result(unaligned >= RESTARTS / 2 && !no_trace && skips && !trunc && !splats, name);
}

static void test_fill(int kmsg)
{
	const char *name = names[2];
	long irqs, after, switches;
	struct aux_session s;
	int splats, trunc = 0, ms = 0;
	uint64_t head;

	pin_to_cpu(FILL_CPU);
	if (run_sched_fifo())
		ktap_diag("fill: SCHED_FIFO: %s", strerror(errno));
	irqs = trbe_interrupts(FILL_CPU);
	after = irqs;
	watchdog_step("fill: open");
	if (open_session(&s, FILL_PAGES)) {
		ktap_result(0, name);
		return;
	}
	watchdog_step("fill: trace");
	switches = thread_context_switches();
	aux_session_enable(&s);
	/* Until the TRBE filled the buffer FILL_IRQS times, or it stopped */
	while (irqs >= 0 && after - irqs < FILL_IRQS && ms < FILL_MAX_MS) {
		spin_ms(10);
		ms += 10;
		after = trbe_interrupts(FILL_CPU);
		trunc += truncated(&s);
		if (trunc)
			break;
	}
	aux_session_disable(&s);
	switches = thread_context_switches() - switches;
	head = __atomic_load_n(&s.pc->aux_head, __ATOMIC_ACQUIRE);
	trunc += truncated(&s);
	splats = kmsg_splats(kmsg, 5);
	ktap_diag("%llu bytes of trace in a buffer of %d pages in %d ms, %ld TRBE interrupts on CPU %d, "
		  "%ld context switches, %d TRUNCATED, %d splats", (unsigned long long)head,
		  FILL_PAGES, ms, after - irqs, FILL_CPU, switches, trunc, splats);
	aux_session_close(&s);
	ktap_result(irqs >= 0 && after - irqs >= FILL_IRQS &&
		    head > (unsigned long long)FILL_IRQS * aux_page_size() / 2 &&
		    !trunc && !splats, name);
}

int main(void)
{
	int kmsg;

	ktap_plan("trbe_errata", 3);
	watchdog_start(WATCHDOG_SECONDS);
	cs_etm_type = pmu_type("cs_etm");
	if (cs_etm_type < 0 || access("/sys/bus/coresight/devices/trbe0", F_OK)) {
		/* This boot has the TRBE by design: its absence is a failure */
		ktap_diag("no cs_etm PMU or no trbe0");
		for (int i = 0; i < 3; i++)
			ktap_result(0, names[i]);
		return 1;
	}
	kmsg = kmsg_open();
	test_align();
	test_restarts(kmsg);
	test_fill(kmsg);
	return 0;
}
