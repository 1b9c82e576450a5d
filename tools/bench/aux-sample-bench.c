// SPDX-License-Identifier: GPL-2.0
/*
 * The cost of an AUX sample with a cs_etm group leader on a per-CPU sink
 * (TRBE), through the bare perf ABI. ci/bench.sh runs it in the QEMU boot
 * with the CoreSight model; it prints a table, a summary line, and the
 * raw numbers (lines starting "raw:") for the log.
 *
 * Part 1, the per-sample cost of the two ways etm_event_snapshot_aux()
 * fills a sample, for each aux_sample_size:
 *  - the copy path: the sink has collected more than a sample's worth of
 *    trace, and the latest is copied out of the AUX buffer;
 *  - the padding path: the cs_etm event is paused (aux_start_paused), so
 *    the sample is all zeros.
 *
 * How: the sampler is a software page fault event with sample_period 1.
 * A read of a fresh anonymous page faults (and maps the zero page: no
 * allocation, no zeroing), so a sample is taken synchronously, in task
 * context, inside that one load, and each load is timed on its own. The
 * same loads are timed with the same group, except that the sampler does
 * not ask for PERF_SAMPLE_AUX. Everything else is the same in both: the
 * fault, the sample record, the timer reads, the ring buffer, and the
 * trace made before each load. The difference of the two medians is what
 * PERF_SAMPLE_AUX adds to a sample: its sizing in perf core, and
 * snapshot_aux(): pause the source, update_buffer(), copy or pad, restart
 * the sink, resume the source.
 *
 * For the copy path this thread runs, before each timed load and untimed,
 * a loop of indirect calls that makes more trace than a sample takes
 * (calibrated at the start from a sample), so that every sample is all
 * trace. The leader traces user space only, so the fault and the sample
 * run untraced. After each load, untimed, the ring buffer is read, so it
 * never fills, and the load counts only if it gave one sample of the kind
 * expected (all trace, or all zeros); the others (a TRBE wrap interrupt
 * restarted the sink in between, an extra fault) are counted, left out.
 *
 * References, measured in the same boot: memcpy() and memset() of glibc
 * in user space, on buffers touched beforehand, one call per timing, with
 * no perf event open; and, for the copy path, a sample that copies as
 * many bytes of the user stack (PERF_SAMPLE_STACK_USER) after the same
 * trace making loop: a copy by perf core into the same ring buffer, in
 * the same state of the machine. The last matters under QEMU, where the
 * kernel runs several times slower right after the model has written a
 * lot of trace: the column "fault after trace" shows the fault alone.
 *
 * Part 2, the slowdown of a workload: a loop of arithmetic and branches
 * (traced by the cs_etm event) that reads a fresh page every 1000us or
 * 100us of its own run time (with the cs_etm event alone, calibrated at
 * the start), which takes a sample at 1kHz or 10kHz. Each
 * period of work plus its fault is timed; the median with a sampler
 * taking 16KiB AUX samples, and with a sampler without PERF_SAMPLE_AUX,
 * is given as a ratio to the median with the cs_etm event alone (faults,
 * no sampler), in the same round. A fault stands in for the timer
 * interrupt of a cpu-clock sampler: QEMU's timers follow the host's wall
 * clock, so on a busy host a timer period is not a period of guest work.
 *
 * Every sample read is checked: its AUX payload is never larger than
 * aux_sample_size, and its record is exactly as long as its fields. The
 * kernel's automatic lowering of the sample rate is switched off
 * (perf_cpu_time_max_percent = 0) so that slow samples are not dropped.
 *
 * Rounds repeat all of it; the table gives the median of the per-round
 * results and their range. The benchmark runs on CPU 0 only (ci/bench.sh
 * boots one vCPU). Times are wall time of the emulated CPU: under QEMU
 * TCG only ratios measured in the same boot mean something.
 */
#define _GNU_SOURCE
#include <alloca.h>
#include <sched.h>
#include <stdint.h>
#include <stdlib.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <time.h>

#include "../tests/perf-util.h"
#include "../tests/watchdog.h"

#define DATA_PAGES	128	/* ring buffer pages, a power of 2 */
#define AUX_PAGES	512	/* 2MiB: TRBE wrap interrupts stay rare */
#define ROUNDS		11
#define TRIGGERS	40	/* timed loads per run */
#define WARMUP		4	/* untimed loads before them */
#define COPIES		40	/* timed memcpy()/memset() calls per round */
#define ASYNC_ZEROS	16	/* trace may start with an A-Sync packet's zeros */
#define STACK_MAX	65528	/* the largest sample_stack_user */
#define WL_ROUNDS	7
#define WL_PERIODS	100	/* timed work periods per run */
#define ARENA_PAGES	(WARMUP + WL_PERIODS)	/* the most loads of a run */

struct session {
	int leader, sampler;
	struct perf_event_mmap_page *pc;
	void *aux;
};

/* What the page fault sampler puts in a sample after the pid/tid */
struct sampler {
	unsigned int aux_size;	/* PERF_SAMPLE_AUX of this many bytes */
	unsigned int stack_size; /* PERF_SAMPLE_STACK_USER of this many bytes */
};

/* The samples of a ring buffer read */
struct sample_info {
	int nr;
	uint64_t size, zeros;	/* of the last one's AUX or stack payload */
};

/* What all the samples read looked like */
static struct {
	unsigned long samples, too_big, malformed, lost, throttled, short_stack;
	uint64_t largest;
} checks;

static long page_size;
static int cs_etm_type;
static uint8_t *rec;		/* one record, copied out of the ring */
static uint8_t *arena;		/* fresh pages: one load of each is one sample */

static uint64_t now_ns(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return t.tv_sec * 1000000000ULL + t.tv_nsec;
}

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

static double median_u64(uint64_t *v, int n)
{
	qsort(v, n, sizeof(*v), cmp_u64);
	return n ? (n & 1 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2.0) : 0;
}

/* Sorts @v: the range is then v[0] to v[n - 1] */
static double median_double(double *v, int n)
{
	qsort(v, n, sizeof(*v), cmp_double);
	return n ? (n & 1 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2) : 0;
}

static void fault_in(int i)
{
	(void)*(volatile uint8_t *)(arena + i * page_size);
}

/* Trace: indirect calls and returns between two targets */
static void __attribute__((noinline)) target_a(void)
{
	__asm__ volatile("" ::: "memory");
}

static void __attribute__((noinline)) target_b(void)
{
	__asm__ volatile("" ::: "memory");
}

static void (*volatile targets[2])(void) = { target_a, target_b };

static void make_trace(unsigned long iters)
{
	unsigned long i;

	for (i = 0; i < iters; i++)
		targets[i & 1]();
}

/* The workload of part 2: arithmetic, conditional and indirect branches */
static unsigned long work(unsigned long iters, unsigned long x)
{
	unsigned long i;

	for (i = 0; i < iters; i++) {
		x = x * 6364136223846793005UL + 1442695040888963407UL;
		if ((x >> 60) == 3)
			targets[(x >> 40) & 1]();
	}
	return x;
}

static void ring_read(struct session *s, uint64_t off, void *to, size_t len)
{
	uint64_t ring = DATA_PAGES * page_size;
	uint8_t *data = (uint8_t *)s->pc + page_size;
	size_t first = ring - off % ring;

	if (first > len)
		first = len;
	memcpy(to, data + off % ring, first);
	memcpy((uint8_t *)to + first, data, len - first);
}

/*
 * Read the ring buffer up to its head and check every sample: header,
 * pid/tid, then the AUX size and payload, or the stack size, payload and
 * dynamic size. With @inspect, count the leading zeros of the last
 * sample's payload.
 */
static struct sample_info drain(struct session *s, const struct sampler *sm, int inspect)
{
	uint64_t head = __atomic_load_n(&s->pc->data_head, __ATOMIC_ACQUIRE);
	uint64_t off = s->pc->data_tail, size = 0, dyn = 0, last = 0;
	unsigned int limit = sm->aux_size ? sm->aux_size : sm->stack_size;
	struct sample_info si = {};
	struct perf_event_header h;

	for (; off < head; off += h.size) {
		ring_read(s, off, &h, sizeof(h));
		if (h.size < sizeof(h) || off + h.size > head) {
			/* A malformed ring buffer: count it, read no further */
			printf("aux-sample-bench: malformed ring buffer: type %u size %u\n",
			       h.type, h.size);
			checks.malformed++;
			break;
		}
		checks.lost += h.type == PERF_RECORD_LOST;
		checks.throttled += h.type == PERF_RECORD_THROTTLE;
		if (h.type != PERF_RECORD_SAMPLE)
			continue;
		si.nr++;
		checks.samples++;
		last = off;
		if (!limit) {
			checks.malformed += h.size != 16;
			continue;
		}
		ring_read(s, off + 16, &size, sizeof(size));
		checks.too_big += size > limit;
		if (size > checks.largest)
			checks.largest = size;
		checks.malformed += h.size != 24 + size + (sm->stack_size ? 8 : 0);
		if (sm->stack_size) {
			ring_read(s, off + 24 + size, &dyn, sizeof(dyn));
			checks.short_stack += dyn != size;	/* the reference is off */
		}
	}
	if (si.nr && limit && inspect) {
		ring_read(s, last + 16, &size, sizeof(size));
		if (size > 65536)
			size = 65536;
		ring_read(s, last + 24, rec, size);
		si.size = size;
		while (si.zeros < size && !rec[si.zeros])
			si.zeros++;
	}
	__atomic_store_n(&s->pc->data_tail, head, __ATOMIC_RELEASE);
	return si;
}

static void touch_pages(const void *p, size_t len)
{
	size_t i;

	for (i = 0; i < len; i += page_size)
		(void)*(const volatile uint8_t *)((const uint8_t *)p + i);
}

/*
 * A cs_etm leader tracing this thread's user space into an overwrite mode
 * AUX buffer and, unless @sm is NULL, a sampler in its group. Exits on
 * failure: the benchmark has nothing to measure then.
 */
static void session_open(struct session *s, int start_paused, const struct sampler *sm)
{
	struct perf_event_attr attr;

	cs_etm_attr(&attr, cs_etm_type);
	attr.exclude_kernel = 1;
	attr.aux_start_paused = start_paused;
	s->leader = perf_event_open(&attr, 0, -1, -1, 0);
	if (s->leader < 0) {
		printf("aux-sample-bench: cs_etm event: %s\n", strerror(errno));
		exit(1);
	}

	s->sampler = -1;
	if (sm) {
		memset(&attr, 0, sizeof(attr));
		attr.size = sizeof(attr);
		attr.type = PERF_TYPE_SOFTWARE;
		attr.config = PERF_COUNT_SW_PAGE_FAULTS;
		attr.sample_period = 1;
		attr.sample_type = PERF_SAMPLE_TID;
		if (sm->aux_size)
			attr.sample_type |= PERF_SAMPLE_AUX;
		attr.aux_sample_size = sm->aux_size;
		if (sm->stack_size)
			attr.sample_type |= PERF_SAMPLE_STACK_USER;
		attr.sample_stack_user = sm->stack_size;
		attr.disabled = 1;
		s->sampler = perf_event_open(&attr, 0, -1, s->leader, 0);
		if (s->sampler < 0) {
			printf("aux-sample-bench: sampling event: %s\n", strerror(errno));
			exit(1);
		}
	}

	s->pc = mmap(NULL, (DATA_PAGES + 1) * page_size, PROT_READ | PROT_WRITE,
		     MAP_SHARED, s->leader, 0);
	if (s->pc == MAP_FAILED || (sm && ioctl(s->sampler, PERF_EVENT_IOC_SET_OUTPUT, s->leader))) {
		printf("aux-sample-bench: ring buffer: %s\n", strerror(errno));
		exit(1);
	}
	s->pc->aux_offset = (DATA_PAGES + 1) * page_size;
	s->pc->aux_size = AUX_PAGES * page_size;
	/* PROT_READ only: overwrite mode, as AUX sampling needs */
	s->aux = mmap(NULL, AUX_PAGES * page_size, PROT_READ, MAP_SHARED, s->leader,
		      s->pc->aux_offset);
	if (s->aux == MAP_FAILED) {
		printf("aux-sample-bench: AUX buffer: %s\n", strerror(errno));
		exit(1);
	}
	/* No fault of ours may land in a timed load but its own */
	touch_pages(s->pc, (DATA_PAGES + 1) * page_size);
	touch_pages(s->aux, AUX_PAGES * page_size);
	madvise(arena, ARENA_PAGES * page_size, MADV_DONTNEED);
	ioctl(s->leader, PERF_EVENT_IOC_ENABLE, PERF_IOC_FLAG_GROUP);
}

static void session_close(struct session *s, const struct sampler *sm)
{
	ioctl(s->leader, PERF_EVENT_IOC_DISABLE, PERF_IOC_FLAG_GROUP);
	if (sm)
		drain(s, sm, 0);
	munmap(s->aux, AUX_PAGES * page_size);
	munmap(s->pc, (DATA_PAGES + 1) * page_size);
	if (s->sampler >= 0)
		close(s->sampler);
	close(s->leader);
}

static struct sampler fault_sampler(unsigned int aux_size, unsigned int stack_size)
{
	return (struct sampler){ .aux_size = aux_size, .stack_size = stack_size };
}

/* Part 1 */

static unsigned long trace_x16;	/* bytes of trace of 16 make_trace() iterations */

static unsigned long fill_iters(unsigned int size)
{
	/* no sample holds more than 64KiB, see perf_prepare_sample() */
	if (size > 65536)
		size = 65536;
	/* a quarter more than a sample, for the sync packets of a restart */
	return (size + size / 4 + 1024) * 16UL / trace_x16 + 1;
}

enum path { COPY, PAD };

/*
 * The median time of TRIGGERS loads that each take a sample of @sm, through
 * @path, with trace for a @fill byte sample made before each. Sets
 * *@delivered to the payload size and adds the loads left out to *@dropped.
 */
static double time_loads(const struct sampler *sm, enum path path, unsigned int fill,
			 uint64_t *delivered, int *dropped)
{
	uint64_t t[TRIGGERS], t0, t1;
	struct sample_info si;
	struct session s;
	int i, n = 0;

	session_open(&s, path == PAD, sm);
	for (i = 0; i < WARMUP + TRIGGERS; i++) {
		if (path == COPY)
			make_trace(fill_iters(fill));
		t0 = now_ns();
		fault_in(i);
		t1 = now_ns();

		si = drain(&s, sm, 1);
		if (i < WARMUP)
			continue;
		if (si.nr != 1 ||
		    (sm->aux_size && path == COPY && si.zeros > ASYNC_ZEROS) ||
		    (sm->aux_size && path == PAD && si.zeros != si.size)) {
			(*dropped)++;
			continue;
		}
		if (si.size)
			*delivered = si.size;
		t[n++] = t1 - t0;
	}
	session_close(&s, sm);
	return median_u64(t, n);
}

/* Bytes of trace per 16 make_trace() iterations, from a sample */
static void calibrate_trace(void)
{
	struct sampler sm = fault_sampler(65536, 0);
	unsigned long iters = 4000, trace = 0;
	struct sample_info si;
	struct session s;
	int i;

	session_open(&s, 0, &sm);
	for (i = 0; i < 8 && iters; i++) {
		/* the first sample restarts the sink, the second holds the trace */
		fault_in(2 * i);
		drain(&s, &sm, 0);
		make_trace(iters);
		fault_in(2 * i + 1);
		si = drain(&s, &sm, 1);
		if (si.nr != 1)
			continue;
		trace = si.size - si.zeros;
		if (si.zeros > ASYNC_ZEROS)
			break;
		iters /= 2;	/* the sample was full: make less */
	}
	session_close(&s, &sm);
	if (!trace || !iters) {
		printf("aux-sample-bench: no trace in the samples: cannot calibrate\n");
		exit(1);
	}
	trace_x16 = trace * 16 / iters ? trace * 16 / iters : 1;
	printf("raw: calibration: %lu bytes of trace for %lu loop iterations\n", trace, iters);
}

static uint8_t *copy_src, *copy_dst;

static void time_copies(size_t size, double *cpy, double *set)
{
	uint64_t t[COPIES], t0;
	int i;

	for (i = 0; i < COPIES; i++) {
		t0 = now_ns();
		memcpy(copy_dst, copy_src, size);
		__asm__ volatile("" ::: "memory");
		t[i] = now_ns() - t0;
	}
	*cpy = median_u64(t, COPIES);
	for (i = 0; i < COPIES; i++) {
		t0 = now_ns();
		memset(copy_dst, 0, size);
		__asm__ volatile("" ::: "memory");
		t[i] = now_ns() - t0;
	}
	*set = median_u64(t, COPIES);
}

struct size_row {
	unsigned int size;
	uint64_t delivered, stack_delivered;
	double copy_us[ROUNDS], copy_x_memcpy[ROUNDS], copy_x_stack[ROUNDS], fault_us[ROUNDS];
	double pad_us[ROUNDS], pad_x_memset[ROUNDS], memcpy_us[ROUNDS], memset_us[ROUNDS];
	int dropped;
};

/* The median and [range] of @v, in a column */
static void print_stat(double *v, int n, const char *unit)
{
	char buf[64];
	double med = median_double(v, n);

	snprintf(buf, sizeof(buf), "%.2f%s [%.2f, %.2f]", med, unit, v[0], v[n - 1]);
	printf(" %-24s", buf);
}

/* What the summary line gives */
static struct {
	uint64_t delivered;
	double fixed_us, copy4k_x_memcpy, copy_x_memcpy, copy_x_stack, pad_x_memset, slowdown_1k, slowdown_10k;
} summary;

static void bench_sizes(void)
{
	/* 64 bytes: a copy that costs next to nothing, for the fixed cost */
	static struct size_row rows[] = {
		{ .size = 64 }, { .size = 4096 }, { .size = 16384 }, { .size = 65536 },
		{ .size = 262144 },
	};
	enum { NR = sizeof(rows) / sizeof(rows[0]) };
	struct sampler none = fault_sampler(0, 0), aux, stack;
	double base, with_aux, with_stack, base_pad, pad, cpy, set;
	uint64_t unused;
	int r, i;

	for (r = 0; r < ROUNDS; r++) {
		for (i = 0; i < NR; i++) {
			struct size_row *p = &rows[i];
			unsigned int size = p->size;

			aux = fault_sampler(size, 0);
			stack = fault_sampler(0, size < STACK_MAX ? size : STACK_MAX);
			base = time_loads(&none, COPY, size, &unused, &p->dropped);
			with_aux = time_loads(&aux, COPY, size, &p->delivered, &p->dropped);
			with_stack = time_loads(&stack, COPY, size, &p->stack_delivered, &p->dropped);
			base_pad = time_loads(&none, PAD, size, &unused, &p->dropped);
			pad = time_loads(&aux, PAD, size, &p->delivered, &p->dropped);
			time_copies(p->delivered, &cpy, &set);

			p->copy_us[r] = (with_aux - base) / 1000;
			p->copy_x_memcpy[r] = (with_aux - base) / cpy;
			p->copy_x_stack[r] = (with_aux - base) / (with_stack - base);
			p->fault_us[r] = base / 1000;
			p->pad_us[r] = (pad - base_pad) / 1000;
			p->pad_x_memset[r] = (pad - base_pad) / set;
			p->memcpy_us[r] = cpy / 1000;
			p->memset_us[r] = set / 1000;
			printf("raw: round %d size %u (%llu, stack %llu): median load ns: copy path %.0f, stack copy %.0f, without AUX %.0f; padding path %.0f, without AUX %.0f; memcpy %.0f, memset %.0f\n",
			       r, size, (unsigned long long)p->delivered,
			       (unsigned long long)p->stack_delivered, with_aux, with_stack,
			       base, pad, base_pad, cpy, set);
		}
	}

	printf("aux-sample-bench: cost of PERF_SAMPLE_AUX per sample: median [range] of %d rounds\n",
	       ROUNDS);
	printf("aux-sample-bench: %6s %6s | %-24s %-24s %-24s %-24s | %-24s %-24s\n",
	       "asked", "bytes", "copy path us", "x memcpy", "x stack copy",
	       "fault after trace us", "padding path us", "x memset");
	for (i = 0; i < NR; i++) {
		struct size_row *p = &rows[i];

		printf("aux-sample-bench: %6u %6llu |", p->size, (unsigned long long)p->delivered);
		print_stat(p->copy_us, ROUNDS, "");
		print_stat(p->copy_x_memcpy, ROUNDS, "x");
		print_stat(p->copy_x_stack, ROUNDS, "x");
		print_stat(p->fault_us, ROUNDS, "");
		printf(" |");
		print_stat(p->pad_us, ROUNDS, "");
		print_stat(p->pad_x_memset, ROUNDS, "x");
		printf("\n");
	}
	for (i = 0; i < NR; i++) {
		struct size_row *p = &rows[i];

		printf("aux-sample-bench: %6llu bytes: memcpy %.2fus, memset %.2fus, stack copy of %llu bytes; %d of %d loads left out\n",
		       (unsigned long long)p->delivered, median_double(p->memcpy_us, ROUNDS),
		       median_double(p->memset_us, ROUNDS),
		       (unsigned long long)p->stack_delivered, p->dropped, 5 * ROUNDS * TRIGGERS);
	}
	summary.fixed_us = median_double(rows[0].copy_us, ROUNDS);
	summary.copy4k_x_memcpy = median_double(rows[1].copy_x_memcpy, ROUNDS);
	summary.delivered = rows[3].delivered;	/* the 64KiB row */
	summary.copy_x_memcpy = median_double(rows[3].copy_x_memcpy, ROUNDS);
	summary.copy_x_stack = median_double(rows[3].copy_x_stack, ROUNDS);
	summary.pad_x_memset = median_double(rows[3].pad_x_memset, ROUNDS);
}

/* Part 2 */

struct wl_config {
	const char *name;
	unsigned int aux_size;
	int sampler;		/* 0: the cs_etm event alone */
};

/* Median time of WL_PERIODS periods of @iters iterations and a fault */
static double run_workload(const struct wl_config *c, unsigned long iters,
			   uint64_t *zeros, uint64_t *inspected)
{
	struct sampler sm = fault_sampler(c->aux_size, 0);
	uint64_t t[WL_PERIODS], t0;
	struct sample_info si;
	unsigned long x = 1;
	struct session s;
	int i, n = 0;

	session_open(&s, 0, c->sampler ? &sm : NULL);
	for (i = 0; i < WARMUP + WL_PERIODS; i++) {
		t0 = now_ns();
		x = work(iters, x);
		fault_in(i);
		if (i >= WARMUP)
			t[n++] = now_ns() - t0;
		if (c->sampler) {
			si = drain(&s, &sm, !(i % 8));
			*zeros += si.zeros;
			*inspected += si.size;
		}
	}
	session_close(&s, c->sampler ? &sm : NULL);
	targets[x & 1]();	/* keep the result */
	return median_u64(t, n);
}

static void bench_workload(void)
{
	static const struct wl_config cfg[] = {
		{ .name = "cs_etm alone" },
		{ .name = "no AUX", .sampler = 1 },
		{ .name = "16KiB AUX", .aux_size = 16384, .sampler = 1 },
	};
	static const unsigned int period_us[] = { 1000, 100 };
	enum { NR = sizeof(cfg) / sizeof(cfg[0]), NP = 2 };
	double ratio[NP][NR][WL_ROUNDS], alone, t, per_us;
	uint64_t zeros[NP][NR] = {}, inspected[NP][NR] = {};
	struct wl_config probe = { .name = "probe" };
	unsigned long iters[NP];
	int r, p, i;

	/* iterations per microsecond of work with the cs_etm event alone */
	per_us = 2000 / (run_workload(&probe, 2000, &zeros[0][0], &inspected[0][0]) / 1000);
	for (p = 0; p < NP; p++)
		iters[p] = per_us * period_us[p];
	printf("raw: workload: %.1f iterations per us\n", per_us);

	for (r = 0; r < WL_ROUNDS; r++) {
		for (p = 0; p < NP; p++) {
			alone = run_workload(&cfg[0], iters[p], &zeros[p][0], &inspected[p][0]);
			for (i = 1; i < NR; i++) {
				t = run_workload(&cfg[i], iters[p], &zeros[p][i], &inspected[p][i]);
				ratio[p][i][r] = t / alone;
				printf("raw: workload round %d: %uus period: %s %.0fns, cs_etm alone %.0fns\n",
				       r, period_us[p], cfg[i].name, t, alone);
			}
		}
	}

	printf("aux-sample-bench: workload time with a sample per period of work, as a ratio to the cs_etm event alone: median [range] of %d rounds\n",
	       WL_ROUNDS);
	for (p = 0; p < NP; p++) {
		for (i = 1; i < NR; i++) {
			printf("aux-sample-bench: %5.0fHz, %-10s", 1e6 / period_us[p], cfg[i].name);
			print_stat(ratio[p][i], WL_ROUNDS, "x");
			if (inspected[p][i])
				printf(", %.0f%% of the AUX bytes inspected are padding",
				       100.0 * zeros[p][i] / inspected[p][i]);
			printf("\n");
		}
	}
	summary.slowdown_1k = median_double(ratio[0][2], WL_ROUNDS);
	summary.slowdown_10k = median_double(ratio[1][2], WL_ROUNDS);
}

static void set_sysctl(const char *name, const char *val)
{
	char path[128], old[32] = "?";
	FILE *f;

	snprintf(path, sizeof(path), "/proc/sys/kernel/%s", name);
	f = fopen(path, "r");
	if (f) {
		if (!fgets(old, sizeof(old), f))
			strcpy(old, "?");
		old[strcspn(old, "\n")] = 0;
		fclose(f);
	}
	f = fopen(path, "w");
	if (!f || fputs(val, f) < 0 || fclose(f)) {
		printf("aux-sample-bench: cannot set %s\n", path);
		return;
	}
	printf("raw: %s: %s -> %s\n", name, old, val);
}

static int bench(void)
{
	uint64_t t0 = now_ns();

	watchdog_step("calibrate the trace");
	calibrate_trace();
	watchdog_step("sample sizes");
	bench_sizes();
	watchdog_step("workload slowdown");
	bench_workload();
	printf("aux-sample-bench: summary: fixed cost of a snapshot %.2fus (64 byte samples); 4096 byte AUX samples: copy path %.2fx memcpy; %llu byte AUX samples: copy path %.2fx memcpy (%.2fx a stack copy), padding path %.2fx memset; a 16KiB sample per 1ms and per 100us of work takes %.2fx and %.2fx the time; %lu samples checked: %lu larger than asked (largest %llu), %lu malformed, %lu lost records, %lu throttled\n",
	       summary.fixed_us, summary.copy4k_x_memcpy,
	       (unsigned long long)summary.delivered, summary.copy_x_memcpy,
	       summary.copy_x_stack, summary.pad_x_memset, summary.slowdown_1k,
	       summary.slowdown_10k, checks.samples, checks.too_big,
	       (unsigned long long)checks.largest, checks.malformed, checks.lost,
	       checks.throttled);
	printf("raw: %lu stack samples copied less than asked\n", checks.short_stack);
	printf("aux-sample-bench: done in %.0fs\n", (now_ns() - t0) / 1e9);
	/* A benchmark that checked no sample proves nothing: it fails */
	if (!checks.samples)
		printf("aux-sample-bench: FAIL: no sample was checked\n");
	return checks.too_big || checks.malformed || !checks.samples;
}

int main(void)
{
	cpu_set_t set;
	uint8_t *stack;

	page_size = sysconf(_SC_PAGESIZE);
	setvbuf(stdout, NULL, _IOLBF, 0);
	/*
	 * 25 to 80 s measured on 2 busy cores; 400 s for a slower host, still
	 * before the boot's timeout (600 s)
	 */
	watchdog_start(400);
	cs_etm_type = pmu_type("cs_etm");
	if (cs_etm_type < 0 || access("/sys/bus/coresight/devices/trbe0", F_OK)) {
		printf("aux-sample-bench: no cs_etm PMU with a TRBE: nothing to measure\n");
		return 1;
	}

	CPU_ZERO(&set);
	CPU_SET(0, &set);
	if (sched_setaffinity(0, sizeof(set), &set))
		printf("aux-sample-bench: cannot pin to CPU 0: %s\n", strerror(errno));
	set_sysctl("perf_cpu_time_max_percent", "0");

	rec = malloc(65536);
	copy_src = aligned_alloc(4096, 65536);
	copy_dst = aligned_alloc(4096, 65536);
	arena = mmap(NULL, ARENA_PAGES * page_size, PROT_READ, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (!rec || !copy_src || !copy_dst || arena == MAP_FAILED) {
		printf("aux-sample-bench: out of memory\n");
		return 1;
	}
	memset(rec, 0, 65536);
	memset(copy_src, 0x5a, 65536);
	memset(copy_dst, 0, 65536);

	/* Stack for the stack copies, which start at the stack pointer */
	stack = alloca(2 * STACK_MAX);
	memset(stack, 0, 2 * STACK_MAX);
	__asm__ volatile("" : : "r"(stack) : "memory");
	return bench();
}
