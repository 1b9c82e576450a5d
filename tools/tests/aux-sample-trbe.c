// SPDX-License-Identifier: GPL-2.0
/*
 * AUX sampling through the perf ABI on a per-CPU sink (TRBE): a cs_etm
 * leader tracing this thread into an overwrite mode AUX buffer, and a
 * cpu-clock sampler with PERF_SAMPLE_AUX. Needs ETE and TRBE, for
 * example QEMU with the CoreSight model of tools/qemu; without them the
 * tests are skipped.
 */
#define _GNU_SOURCE
#include <pthread.h>
#include <sched.h>
#include <stdint.h>
#include <stdlib.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <time.h>

#include "ktap.h"
#include "perf-util.h"
#include "watchdog.h"

#define DATA_PAGES	256	/* ring buffer pages, a power of 2 */
#define U16_MAX		65535
/*
 * The tests take a few seconds on the model; 120 s leaves room for a slow
 * emulated CPU on a busy host and still ends a hang well before the boot's
 * timeout (600 s).
 */
#define WATCHDOG_SECONDS	120
#define RACE_ROUNDS	200

struct session {
	int leader, sampler;
	struct perf_event_mmap_page *pc;
	void *aux;
	size_t aux_size;
};

struct sample_stats {
	int nr, bad_size, with_trace, all_zero, bad_tid, bad_cpu, malformed;
};

static long page_size;
static int cs_etm_type;

/* Open the group on this thread; returns 0, or -1 with a diagnostic */
static int session_open(struct session *s, unsigned int sample_size,
			int aux_pages, int start_paused, unsigned long period)
{
	struct perf_event_attr attr;
	int bit;

	cs_etm_attr(&attr, cs_etm_type);
	attr.aux_start_paused = start_paused;
	bit = cs_etm_format_bit("contextid");
	if (bit >= 0)
		attr.config |= 1ULL << bit;
	s->leader = perf_event_open(&attr, 0, -1, -1, 0);
	if (s->leader < 0) {
		ktap_diag("cs_etm event: %s", strerror(errno));
		return -1;
	}

	aux_sampler_attr(&attr, sample_size);
	attr.sample_period = period;
	attr.disabled = 1;
	s->sampler = perf_event_open(&attr, 0, -1, s->leader, 0);
	if (s->sampler < 0) {
		ktap_diag("sampling event: %s", strerror(errno));
		close(s->leader);
		return -1;
	}

	s->pc = mmap(NULL, (DATA_PAGES + 1) * page_size, PROT_READ | PROT_WRITE,
		     MAP_SHARED, s->leader, 0);
	if (s->pc == MAP_FAILED || ioctl(s->sampler, PERF_EVENT_IOC_SET_OUTPUT, s->leader)) {
		ktap_diag("ring buffer: %s", strerror(errno));
		return -1;
	}
	s->aux_size = aux_pages * page_size;
	s->pc->aux_offset = (DATA_PAGES + 1) * page_size;
	s->pc->aux_size = s->aux_size;
	/* PROT_READ only: overwrite mode, as AUX sampling needs */
	s->aux = mmap(NULL, s->aux_size, PROT_READ, MAP_SHARED, s->leader, s->pc->aux_offset);
	if (s->aux == MAP_FAILED) {
		ktap_diag("AUX buffer: %s", strerror(errno));
		return -1;
	}
	return 0;
}

static void session_close(struct session *s)
{
	munmap(s->aux, s->aux_size);
	munmap(s->pc, (DATA_PAGES + 1) * page_size);
	close(s->sampler);
	close(s->leader);
}

static void session_run(struct session *s, int ms)
{
	ioctl(s->leader, PERF_EVENT_IOC_ENABLE, PERF_IOC_FLAG_GROUP);
	spin_ms(ms);
	ioctl(s->leader, PERF_EVENT_IOC_DISABLE, PERF_IOC_FLAG_GROUP);
}

/* What perf core puts in a sample: see perf_prepare_sample() */
static unsigned long expected_size(unsigned int sample_size, size_t aux_size)
{
	/* header, TID, CPU and the AUX size field */
	unsigned long max = (U16_MAX - 4 * sizeof(uint64_t)) & ~7UL;
	unsigned long size = sample_size < max ? sample_size : max;

	size &= ~7UL;
	return size < aux_size ? size : aux_size;
}

static struct sample_stats session_samples(struct session *s, unsigned long want,
					   int tid, int cpu)
{
	struct sample_stats st = {};
	uint8_t *data = (uint8_t *)s->pc + page_size;
	uint64_t head = __atomic_load_n(&s->pc->data_head, __ATOMIC_ACQUIRE);
	uint64_t off, ring = DATA_PAGES * page_size;
	uint8_t *rec = malloc(U16_MAX + 1);

	for (off = s->pc->data_tail; off < head;) {
		struct perf_event_header h;
		uint64_t i, size, zeros;
		uint32_t rtid, rcpu;

		/* Records may wrap around the end of the ring: copy them out */
		for (i = 0; i < sizeof(h); i++)
			((uint8_t *)&h)[i] = data[(off + i) % ring];
		if (h.size < sizeof(h) || off + h.size > head) {
			/* A malformed ring buffer: report it, read no further */
			ktap_diag("malformed ring buffer: type %u size %u at %llu, head %llu",
				  h.type, h.size, (unsigned long long)off,
				  (unsigned long long)head);
			st.malformed++;
			break;
		}
		for (i = 0; i < h.size; i++)
			rec[i] = data[(off + i) % ring];
		off += h.size;
		if (h.type != PERF_RECORD_SAMPLE)
			continue;

		st.nr++;
		/* header, TID, CPU, the AUX size, then exactly that many bytes */
		if (h.size < 32) {
			st.malformed++;
			continue;
		}
		memcpy(&rtid, rec + 12, 4);
		memcpy(&rcpu, rec + 16, 4);
		memcpy(&size, rec + 24, 8);
		if (h.size != 32 + size) {
			st.malformed++;
			continue;
		}
		st.bad_size += size != want;
		st.bad_tid += (int)rtid != tid;
		st.bad_cpu += (int)rcpu != cpu;
		for (zeros = 0; zeros < size && !rec[32 + zeros]; zeros++)
			;
		if (zeros == size)
			st.all_zero++;
		else
			st.with_trace++;
	}
	s->pc->data_tail = head;
	free(rec);
	return st;
}

static void test_sample_size(unsigned int sample_size, int aux_pages)
{
	struct session s;
	struct sample_stats st;
	unsigned long want = expected_size(sample_size, aux_pages * page_size);
	char name[128];
	int ok;

	snprintf(name, sizeof(name), "%u byte samples from a %d page AUX buffer: %lu bytes each, with trace",
		 sample_size, aux_pages, want);
	pin_to_cpu(1);
	if (session_open(&s, sample_size, aux_pages, 0, 1000000)) {
		ktap_result(0, name);
		return;
	}
	session_run(&s, 100);
	st = session_samples(&s, want, gettid(), 1);
	ok = st.nr > 0 && !st.bad_size && st.with_trace > 0 && !st.bad_tid && !st.bad_cpu &&
	     !st.malformed;
	if (!ok)
		ktap_diag("%d samples: %d of a wrong size, %d with trace, %d of another thread, %d of another CPU, %d malformed",
			  st.nr, st.bad_size, st.with_trace, st.bad_tid, st.bad_cpu, st.malformed);
	ktap_result(ok, name);
	session_close(&s);
}

static void test_paused(void)
{
	const char *name = "a paused cs_etm event gives all-zero samples";
	struct session s;
	struct sample_stats st;
	int ok;

	pin_to_cpu(2);
	if (session_open(&s, 4096, 16, 1, 1000000)) {
		ktap_result(0, name);
		return;
	}
	session_run(&s, 50);
	st = session_samples(&s, 4096, gettid(), 2);
	ok = st.nr > 0 && st.all_zero == st.nr && !st.bad_size && !st.malformed;
	if (!ok)
		ktap_diag("%d samples, %d all zeros, %d of a wrong size, %d malformed", st.nr,
			  st.all_zero, st.bad_size, st.malformed);
	ktap_result(ok, name);
	session_close(&s);
}

/* Sample fast from a small buffer, so that the TRBE fills and interrupts */
static void test_small_buffer(void)
{
	const char *name = "10kHz samples from a 2 page AUX buffer, across TRBE interrupts";
	struct session s;
	struct sample_stats st;
	long irqs;
	int ok;

	pin_to_cpu(3);
	if (session_open(&s, 4096, 2, 0, 100000)) {
		ktap_result(0, name);
		return;
	}
	irqs = trbe_interrupts(3);
	session_run(&s, 200);
	irqs = irqs < 0 ? -1 : trbe_interrupts(3) - irqs;
	st = session_samples(&s, 4096, gettid(), 3);
	/* The samples must have crossed at least one TRBE interrupt */
	ok = st.nr > 0 && !st.bad_size && !st.malformed && !st.bad_tid && !st.bad_cpu &&
	     irqs > 0;
	ktap_diag("%d samples: %d of a wrong size, %d malformed, %d with trace, %ld TRBE interrupts on CPU 3",
		  st.nr, st.bad_size, st.malformed, st.with_trace, irqs);
	ktap_result(ok, name);
	session_close(&s);
}

struct race {
	int cpu, opened;
	struct sample_stats st;
};

static void *race_thread(void *arg)
{
	struct race *r = arg;
	struct session s;
	int i, tid = gettid();

	pin_to_cpu(r->cpu);
	if (session_open(&s, 8192, 4, 0, 50000))
		return NULL;
	r->opened = 1;
	for (i = 0; i < RACE_ROUNDS; i++) {
		struct sample_stats st;

		ioctl(s.leader, PERF_EVENT_IOC_ENABLE, PERF_IOC_FLAG_GROUP);
		spin_ms(1);
		ioctl(s.leader, PERF_EVENT_IOC_DISABLE, PERF_IOC_FLAG_GROUP);
		st = session_samples(&s, expected_size(8192, s.aux_size), tid, r->cpu);
		r->st.nr += st.nr;
		r->st.bad_size += st.bad_size;
		r->st.with_trace += st.with_trace;
		r->st.all_zero += st.all_zero;
		r->st.bad_tid += st.bad_tid;
		r->st.bad_cpu += st.bad_cpu;
		r->st.malformed += st.malformed;
	}
	session_close(&s);
	return NULL;
}

/*
 * Enable and disable while sampling, on every CPU at once: each thread
 * gets samples, each of the exact size, well formed, of its thread and
 * CPU, and some of them with trace
 */
static void test_stop_races(void)
{
	struct race r[4] = {};
	pthread_t t[4];
	int i, ok = 1, started[4] = {};

	for (i = 0; i < 4; i++) {
		r[i].cpu = i;
		errno = pthread_create(&t[i], NULL, race_thread, &r[i]);
		started[i] = !errno;
		if (errno)
			ktap_diag("pthread_create: %s", strerror(errno));
	}
	for (i = 0; i < 4; i++) {
		struct sample_stats *st = &r[i].st;

		if (started[i])
			pthread_join(t[i], NULL);
		ktap_diag("CPU %d: %d samples: %d of a wrong size, %d malformed, %d with trace, %d of another thread, %d of another CPU",
			  i, st->nr, st->bad_size, st->malformed, st->with_trace, st->bad_tid,
			  st->bad_cpu);
		ok &= started[i] && r[i].opened && st->nr > 0 && !st->bad_size &&
		      !st->malformed && st->with_trace > 0 && !st->bad_tid && !st->bad_cpu;
	}
	ktap_result(ok, "enable/disable racing 20kHz samples on 4 CPUs");
}

int main(void)
{
	static const char *const names[] = {
		"4096 byte samples", "16384 byte samples", "65536 byte samples",
		"1MiB samples", "a paused event", "small buffer", "stop races",
	};
	int nr = sizeof(names) / sizeof(names[0]), i;

	watchdog_start(WATCHDOG_SECONDS);
	page_size = sysconf(_SC_PAGESIZE);
	cs_etm_type = pmu_type("cs_etm");
	ktap_plan("aux_sample_trbe", nr);
	if (cs_etm_type < 0 || access("/sys/bus/coresight/devices/trbe0", F_OK)) {
		for (i = 0; i < nr; i++)
			ktap_skip(names[i], "no TRBE");
		return 0;
	}

	watchdog_step("4096 byte samples");
	test_sample_size(4096, 16);
	watchdog_step("16384 byte samples");
	test_sample_size(16384, 16);
	watchdog_step("65536 byte samples");
	test_sample_size(65536, 32);
	watchdog_step("1MiB samples");
	test_sample_size(1 << 20, 32);
	watchdog_step("a paused event");
	test_paused();
	watchdog_step("small buffer");
	test_small_buffer();
	watchdog_step("stop races on 4 CPUs");
	test_stop_races();
	return 0;
}
