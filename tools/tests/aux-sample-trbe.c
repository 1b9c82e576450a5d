// SPDX-License-Identifier: GPL-2.0
/*
 * AUX sampling through the perf ABI on a per-CPU sink (TRBE): a cs_etm
 * leader tracing this thread into an overwrite mode AUX buffer, and a
 * cpu-clock sampler with PERF_SAMPLE_AUX. Needs ETE and TRBE, for
 * example QEMU with the CoreSight model of tools/qemu; without them the
 * tests are skipped.
 *
 * The "cycles:" tests sample PMUv3 CPU cycles instead (PERF_TYPE_HARDWARE),
 * whose overflow is an NMI in the CI's boots (pmu-nmi checks it): the
 * AUX samples, pauses and resumes then run in NMI context, and perf core
 * lowers kernel.perf_event_max_sample_rate when they take long, after
 * which every overflow throttles the group. This test leaves that on.
 * Without a PMU that counts cycles they are skipped.
 *
 * In every sample, the zeros are at the front only: trace followed by a
 * run of TRAILING_ZEROS zero bytes or more, which ends no ETE packet
 * (the longest legitimate run is the top bytes of a context ID or of a
 * 64-bit user address), fails the test.
 *
 * A sample has the size perf core promises, or no AUX data at all: an
 * overflow that comes while the group is scheduled out, after its AUX
 * event went inactive, takes none (perf_prepare_sample_aux()). Those
 * are counted apart ("without AUX data") and fail nothing; the
 * requirement of samples with trace stays.
 */
#define _GNU_SOURCE
#include <pthread.h>
#include <sched.h>
#include <stdint.h>
#include <stdlib.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <time.h>

#include "kmsg-util.h"
#include "ktap.h"
#include "perf-util.h"
#include "watchdog.h"

#define DATA_PAGES	256	/* ring buffer pages, a power of 2 */
#define U16_MAX		65535
/*
 * Each test takes a few seconds on the model, up to about 30 s in the
 * debug kernel, where a cycles NMI costs milliseconds; 120 s per test
 * leaves room for a slow emulated CPU on a busy host and still ends a
 * hang well before the boot's timeout (600 s).
 */
#define WATCHDOG_SECONDS	120
#define RACE_ROUNDS	200
#define MIGRATE_ROUNDS	48
#define TEST_CPUS		4
/* A run of zeros this long at the end of a sample's trace is no ETE packet */
#define TRAILING_ZEROS	16
#define MIN_TRACE_PERCENT	95

/* The sampler of a session */
#define CYCLES		(1 << 0)	/* PMUv3 cycles, not cpu-clock */
#define PAUSE_RESUME	(1 << 1)	/* aux_pause and aux_resume samplers too */

struct session {
	int leader, sampler, pause, resume;
	struct perf_event_mmap_page *pc;
	void *aux;
	size_t aux_size;
};

struct sample_stats {
	int nr, bad_size, with_trace, all_zero, bad_tid, bad_cpu, malformed, trailing;
	int throttle, no_aux;
};

static long page_size;
static int cs_etm_type;

/*
 * A sampler in the group of @leader, with its output in the leader's ring
 * buffer once that is mapped; -1 with a diagnostic
 */
static int sampler_open(struct perf_event_attr *attr, int flags, unsigned long period,
			int leader, const char *what)
{
	int fd;

	if (flags & CYCLES)
		cycles_sampler(attr);
	attr->sample_period = period;
	attr->disabled = 1;
	fd = perf_event_open(attr, 0, -1, leader, 0);
	if (fd < 0)
		ktap_diag("%s: %s", what, strerror(errno));
	return fd;
}

/*
 * Open the group on this thread: the cs_etm leader and a sampler with
 * PERF_SAMPLE_AUX of @period, of cpu-clock or of cycles (@flags CYCLES);
 * with PAUSE_RESUME, also one with aux_pause of 3/2 @period and one with
 * aux_resume of 5/4 @period, so that the trace is paused and resumed at
 * times that drift against each other and the samples (without a ring
 * buffer: their samples go nowhere). Returns 0, or -1 with a diagnostic.
 */
static int session_open(struct session *s, unsigned int sample_size,
			int aux_pages, int start_paused, unsigned long period, int flags)
{
	struct perf_event_attr attr;
	int bit;

	s->pause = s->resume = -1;
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
	s->sampler = sampler_open(&attr, flags, period, s->leader, "sampling event");
	if (s->sampler < 0) {
		close(s->leader);
		return -1;
	}
	if (flags & PAUSE_RESUME) {
		aux_sampler_attr(&attr, 0);
		attr.sample_type = 0;
		attr.aux_pause = 1;
		s->pause = sampler_open(&attr, flags, period * 3 / 2, s->leader, "aux_pause sampler");
		aux_sampler_attr(&attr, 0);
		attr.sample_type = 0;
		attr.aux_resume = 1;
		s->resume = sampler_open(&attr, flags, period * 5 / 4, s->leader, "aux_resume sampler");
		if (s->pause < 0 || s->resume < 0) {
			if (s->pause >= 0)
				close(s->pause);
			if (s->resume >= 0)
				close(s->resume);
			close(s->sampler);
			close(s->leader);
			return -1;
		}
	}

	s->pc = mmap(NULL, (DATA_PAGES + 1) * page_size, PROT_READ | PROT_WRITE,
		     MAP_SHARED, s->leader, 0);
	/* The aux_pause and aux_resume samplers have no output: no records */
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
	if (s->pause >= 0)
		close(s->pause);
	if (s->resume >= 0)
		close(s->resume);
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

static void add_stats(struct sample_stats *to, const struct sample_stats *st)
{
	to->nr += st->nr;
	to->bad_size += st->bad_size;
	to->with_trace += st->with_trace;
	to->all_zero += st->all_zero;
	to->bad_tid += st->bad_tid;
	to->bad_cpu += st->bad_cpu;
	to->malformed += st->malformed;
	to->trailing += st->trailing;
	to->throttle += st->throttle;
	to->no_aux += st->no_aux;
}

/* Samples well formed, of this size, thread and CPU, the zeros in front */
static int stats_ok(const struct sample_stats *st)
{
	return st->nr > 0 && !st->bad_size && !st->malformed && !st->bad_tid && !st->bad_cpu &&
	       !st->trailing;
}

/*
 * Read the new records of the ring buffer: the samples must be of @want
 * bytes, thread @tid and CPU @cpu (or @cpu2, where the thread migrated
 * from while they were taken)
 */
static struct sample_stats session_samples2(struct session *s, unsigned long want,
					    int tid, int cpu, int cpu2)
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
		st.throttle += h.type == PERF_RECORD_THROTTLE;
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
		st.bad_tid += (int)rtid != tid;
		st.bad_cpu += (int)rcpu != cpu && (int)rcpu != cpu2;
		/*
		 * No AUX data at all: the overflow came while the group was
		 * scheduled out, its AUX event already inactive (see
		 * perf_prepare_sample_aux())
		 */
		if (!size) {
			st.no_aux++;
			continue;
		}
		st.bad_size += size != want;
		for (zeros = 0; zeros < size && !rec[32 + zeros]; zeros++)
			;
		if (zeros == size) {
			st.all_zero++;
			continue;
		}
		st.with_trace++;
		for (zeros = 0; !rec[32 + size - 1 - zeros]; zeros++)
			;
		if (zeros >= TRAILING_ZEROS && st.trailing++ < 3)
			ktap_diag("a sample of %llu bytes: its trace is followed by %llu zero bytes",
				  (unsigned long long)size, (unsigned long long)zeros);
	}
	s->pc->data_tail = head;
	free(rec);
	return st;
}

static struct sample_stats session_samples(struct session *s, unsigned long want,
					   int tid, int cpu)
{
	return session_samples2(s, want, tid, cpu, cpu);
}

static void print_stats(const char *what, const struct sample_stats *st)
{
	ktap_diag("%s%d samples: %d of a wrong size, %d without AUX data, %d malformed, %d with trace, %d all zeros, %d with trace followed by zeros, %d of another thread, %d of another CPU; %d throttle records",
		  what, st->nr, st->bad_size, st->no_aux, st->malformed, st->with_trace,
		  st->all_zero, st->trailing, st->bad_tid, st->bad_cpu, st->throttle);
}

static const char *sampler_name(int flags)
{
	return flags & CYCLES ? "cycles: " : "";
}

static void test_sample_size(unsigned int sample_size, int aux_pages, int flags)
{
	struct session s;
	struct sample_stats st;
	unsigned long want = expected_size(sample_size, aux_pages * page_size);
	char name[128];
	int ok;

	snprintf(name, sizeof(name), "%s%u byte samples from a %d page AUX buffer: %lu bytes each, with trace",
		 sampler_name(flags), sample_size, aux_pages, want);
	pin_to_cpu(1);
	if (session_open(&s, sample_size, aux_pages, 0, 1000000, flags)) {
		ktap_result(0, name);
		return;
	}
	session_run(&s, 100);
	st = session_samples(&s, want, gettid(), 1);
	ok = stats_ok(&st) && st.with_trace > 0;
	if (!ok)
		print_stats("", &st);
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
	if (session_open(&s, 4096, 16, 1, 1000000, 0)) {
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
static void test_small_buffer(int flags)
{
	struct session s;
	struct sample_stats st;
	char name[128];
	long irqs;
	int ok;

	snprintf(name, sizeof(name), "%s10kHz samples from a 2 page AUX buffer, across TRBE interrupts",
		 sampler_name(flags));
	pin_to_cpu(3);
	if (session_open(&s, 4096, 2, 0, 100000, flags)) {
		ktap_result(0, name);
		return;
	}
	irqs = trbe_interrupts(3);
	session_run(&s, 200);
	irqs = irqs < 0 ? -1 : trbe_interrupts(3) - irqs;
	st = session_samples(&s, 4096, gettid(), 3);
	/* The samples must have crossed at least one TRBE interrupt */
	ok = stats_ok(&st) && irqs > 0;
	print_stats("", &st);
	ktap_diag("%ld TRBE interrupts on CPU 3", irqs);
	ktap_result(ok, name);
	session_close(&s);
}

struct race {
	int cpu, opened, flags;
	struct sample_stats st;
};

static void *race_thread(void *arg)
{
	struct race *r = arg;
	struct session s;
	int i, tid = gettid();

	pin_to_cpu(r->cpu);
	if (session_open(&s, 8192, 4, 0, 50000, r->flags))
		return NULL;
	r->opened = 1;
	for (i = 0; i < RACE_ROUNDS; i++) {
		struct sample_stats st;

		ioctl(s.leader, PERF_EVENT_IOC_ENABLE, PERF_IOC_FLAG_GROUP);
		spin_ms(1);
		ioctl(s.leader, PERF_EVENT_IOC_DISABLE, PERF_IOC_FLAG_GROUP);
		st = session_samples(&s, expected_size(8192, s.aux_size), tid, r->cpu);
		add_stats(&r->st, &st);
	}
	session_close(&s);
	return NULL;
}

/*
 * Enable and disable while sampling, on every CPU at once: each thread
 * gets samples, each of the exact size, well formed, of its thread and
 * CPU, and some of them with trace
 */
static void test_stop_races(int flags)
{
	struct race r[TEST_CPUS] = {};
	pthread_t t[TEST_CPUS];
	int i, ok = 1, started[TEST_CPUS] = {};
	char name[128];

	for (i = 0; i < TEST_CPUS; i++) {
		r[i].cpu = i;
		r[i].flags = flags;
		errno = pthread_create(&t[i], NULL, race_thread, &r[i]);
		started[i] = !errno;
		if (errno)
			ktap_diag("pthread_create: %s", strerror(errno));
	}
	for (i = 0; i < TEST_CPUS; i++) {
		char what[32];

		if (started[i])
			pthread_join(t[i], NULL);
		snprintf(what, sizeof(what), "CPU %d: ", i);
		print_stats(what, &r[i].st);
		ok &= started[i] && r[i].opened && stats_ok(&r[i].st) && r[i].st.with_trace > 0;
	}
	snprintf(name, sizeof(name), "%senable/disable racing 20kHz samples on 4 CPUs",
		 sampler_name(flags));
	ktap_result(ok, name);
}

struct migrate {
	int flags, opened, tid;
	pthread_barrier_t *start;
	struct sample_stats st;
};

/*
 * Move from CPU to CPU with a session enabled, with the other thread on the
 * same CPU, and sleep now and then: the group is scheduled out and in,
 * on the same CPU after the other thread's group and on the next one.
 * The sampler is off while the samples are read: in the debug kernel a
 * traced reader takes longer for a sample (about 20 ms) than the sampler
 * takes to make one, so a sampled reader would find more at each round,
 * up to a full ring (about 250 samples, 5 s a round).
 */
static void *migrate_thread(void *arg)
{
	struct migrate *m = arg;
	struct session s;
	int i, prev = 0;

	m->tid = gettid();
	pin_to_cpu(0);
	m->opened = !session_open(&s, 4096, 16, 0, 1000000, m->flags);
	pthread_barrier_wait(m->start);
	if (!m->opened)
		return NULL;
	ioctl(s.leader, PERF_EVENT_IOC_ENABLE, PERF_IOC_FLAG_GROUP);
	for (i = 0; i < MIGRATE_ROUNDS; i++) {
		int cpu = i % TEST_CPUS;
		struct sample_stats st;

		pin_to_cpu(cpu);
		spin_ms(3);
		if (i % 3 == 2)
			usleep(1000);
		ioctl(s.sampler, PERF_EVENT_IOC_DISABLE, 0);
		/* Taken here, or on the CPU before while the thread moved */
		st = session_samples2(&s, 4096, m->tid, cpu, prev);
		add_stats(&m->st, &st);
		ioctl(s.sampler, PERF_EVENT_IOC_ENABLE, 0);
		prev = cpu;
	}
	ioctl(s.leader, PERF_EVENT_IOC_DISABLE, PERF_IOC_FLAG_GROUP);
	{
		struct sample_stats st = session_samples2(&s, 4096, m->tid, prev, prev);

		add_stats(&m->st, &st);
	}
	session_close(&s);
	return NULL;
}

/*
 * Two threads, each with its own session, on one CPU at a time and
 * migrating together over the 4 CPUs: the samples are those of their own
 * thread, of the CPU it was on, well formed and some with trace
 */
static void test_migrate(int flags)
{
	struct migrate m[2] = {};
	pthread_barrier_t start;
	pthread_t t[2];
	int i, ok = 1, started[2];
	char name[160];

	pthread_barrier_init(&start, NULL, 2);
	for (i = 0; i < 2; i++) {
		m[i].flags = flags;
		m[i].start = &start;
		errno = pthread_create(&t[i], NULL, migrate_thread, &m[i]);
		started[i] = !errno;
		if (errno) {
			ktap_diag("pthread_create: %s", strerror(errno));
			pthread_barrier_wait(&start);
		}
	}
	for (i = 0; i < 2; i++) {
		char what[32];

		if (started[i])
			pthread_join(t[i], NULL);
		snprintf(what, sizeof(what), "thread %d: ", i);
		print_stats(what, &m[i].st);
		ok &= started[i] && m[i].opened && stats_ok(&m[i].st) && m[i].st.with_trace > 0;
	}
	pthread_barrier_destroy(&start);
	snprintf(name, sizeof(name), "%ssched out and in, two threads sharing a CPU and migrating over 4 CPUs: samples of their own thread, with trace",
		 sampler_name(flags));
	ktap_result(ok, name);
}

/*
 * aux_pause and aux_resume samplers in the group, whose overflows pause
 * and resume the trace between the samples (in NMI context for cycles):
 * samples well formed, some with trace, no splat
 */
static void test_pause_resume(int flags)
{
	struct session s;
	struct sample_stats st;
	char name[160];
	int kmsg, splats, ok;

	snprintf(name, sizeof(name), "%saux_pause and aux_resume samplers pausing and resuming the trace between 1kHz samples: samples with trace, no splat",
		 sampler_name(flags));
	kmsg = kmsg_open();
	pin_to_cpu(1);
	if (session_open(&s, 4096, 16, 0, 1000000, flags | PAUSE_RESUME)) {
		ktap_result(0, name);
		return;
	}
	session_run(&s, 300);
	st = session_samples(&s, 4096, gettid(), 1);
	session_close(&s);
	splats = kmsg_splats(kmsg, 5);
	if (kmsg >= 0)
		close(kmsg);
	ok = stats_ok(&st) && st.with_trace > 0 && kmsg >= 0 && !splats;
	print_stats("", &st);
	ktap_result(ok, name);
}

/*
 * cycles at a period of 20us, which throttles whatever the sample rate
 * limit is: the samples of a throttled group hold trace all the same
 * (the limit is lowered to HZ after the first cycles samples, and from
 * then on each overflow throttles), and a PERF_RECORD_THROTTLE says that
 * it throttled
 */
static void test_throttled(void)
{
	char name[160];
	struct session s;
	struct sample_stats st;
	int ok;

	snprintf(name, sizeof(name), "cycles: throttled 50kHz samples: %d%% or more with trace, well formed, PERF_RECORD_THROTTLE",
		 MIN_TRACE_PERCENT);
	pin_to_cpu(2);
	if (session_open(&s, 4096, 16, 0, 20000, CYCLES)) {
		ktap_result(0, name);
		return;
	}
	session_run(&s, 300);
	st = session_samples(&s, 4096, gettid(), 2);
	ok = stats_ok(&st) && st.with_trace * 100 >= st.nr * MIN_TRACE_PERCENT && st.throttle > 0;
	print_stats("", &st);
	ktap_result(ok, name);
	session_close(&s);
}

/* The tests, in order; cycles marks those that need a PMU counting cycles */
enum test {
	T_4K, T_16K, T_64K, T_1M, T_PAUSED, T_SMALL, T_RACES, T_MIGRATE, T_PAUSE_RESUME,
	T_CYCLES_4K, T_CYCLES_64K, T_CYCLES_SMALL, T_CYCLES_RACES, T_CYCLES_MIGRATE,
	T_CYCLES_PAUSE_RESUME, T_CYCLES_THROTTLED, NR_TESTS
};

static const struct {
	const char *name;
	int cycles;
} tests[NR_TESTS] = {
	[T_4K] = { "4096 byte samples" },
	[T_16K] = { "16384 byte samples" },
	[T_64K] = { "65536 byte samples" },
	[T_1M] = { "1MiB samples" },
	[T_PAUSED] = { "a paused event" },
	[T_SMALL] = { "small buffer" },
	[T_RACES] = { "stop races on 4 CPUs" },
	[T_MIGRATE] = { "sched out and in, migration" },
	[T_PAUSE_RESUME] = { "aux_pause and aux_resume samplers" },
	[T_CYCLES_4K] = { "cycles: 4096 byte samples", 1 },
	[T_CYCLES_64K] = { "cycles: 65536 byte samples", 1 },
	[T_CYCLES_SMALL] = { "cycles: small buffer", 1 },
	[T_CYCLES_RACES] = { "cycles: stop races on 4 CPUs", 1 },
	[T_CYCLES_MIGRATE] = { "cycles: sched out and in, migration", 1 },
	[T_CYCLES_PAUSE_RESUME] = { "cycles: aux_pause and aux_resume samplers", 1 },
	[T_CYCLES_THROTTLED] = { "cycles: throttled samples", 1 },
};

static void run_test(enum test t)
{
	switch (t) {
	case T_4K:
		test_sample_size(4096, 16, 0);
		break;
	case T_16K:
		test_sample_size(16384, 16, 0);
		break;
	case T_64K:
		test_sample_size(65536, 32, 0);
		break;
	case T_1M:
		test_sample_size(1 << 20, 32, 0);
		break;
	case T_PAUSED:
		test_paused();
		break;
	case T_SMALL:
		test_small_buffer(0);
		break;
	case T_RACES:
		test_stop_races(0);
		break;
	case T_MIGRATE:
		test_migrate(0);
		break;
	case T_PAUSE_RESUME:
		test_pause_resume(0);
		break;
	case T_CYCLES_4K:
		test_sample_size(4096, 16, CYCLES);
		break;
	case T_CYCLES_64K:
		test_sample_size(65536, 32, CYCLES);
		break;
	case T_CYCLES_SMALL:
		test_small_buffer(CYCLES);
		break;
	case T_CYCLES_RACES:
		test_stop_races(CYCLES);
		break;
	case T_CYCLES_MIGRATE:
		test_migrate(CYCLES);
		break;
	case T_CYCLES_PAUSE_RESUME:
		test_pause_resume(CYCLES);
		break;
	case T_CYCLES_THROTTLED:
		test_throttled();
		break;
	case NR_TESTS:
		break;
	}
}

int main(void)
{
	int i, trbe, cycles;

	watchdog_start(WATCHDOG_SECONDS);
	page_size = sysconf(_SC_PAGESIZE);
	cs_etm_type = pmu_type("cs_etm");
	ktap_plan("aux_sample_trbe", NR_TESTS);
	trbe = cs_etm_type >= 0 && !access("/sys/bus/coresight/devices/trbe0", F_OK);
	cycles = have_cycles();
	if (!cycles)
		ktap_diag("cycles: %s", strerror(errno));
	for (i = 0; i < NR_TESTS; i++) {
		if (!trbe) {
			ktap_skip(tests[i].name, "no TRBE");
			continue;
		}
		if (tests[i].cycles && !cycles) {
			ktap_skip(tests[i].name, "no PMU counts CPU cycles");
			continue;
		}
		/* A budget per test: the 16 together take longer in the debug kernel */
		watchdog_start(WATCHDOG_SECONDS);
		watchdog_step("%s", tests[i].name);
		run_test(i);
	}
	return 0;
}
