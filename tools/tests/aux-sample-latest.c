// SPDX-License-Identifier: GPL-2.0
/*
 * AUX samples hold the latest trace: a thread on CPU 1 traces its user
 * space with a cs_etm leader (per-thread, overwrite mode, on the TRBE)
 * and samples PERF_COUNT_SW_PAGE_FAULTS with a period of 1 and
 * PERF_SAMPLE_IP | PERF_SAMPLE_AUX, so that a sample is taken at a known
 * point: the store of touch_a() or touch_b(), alternately, to a page it
 * never touched. Each call gets the number of its iteration, whose low 8
 * bits touch_*() turn into 8 TBNZ instructions before the store, traced
 * as E (bit set) or N atoms; after the fault, after_a() or after_b() runs,
 * the latter long enough that the 4KiB samples after it are cut.
 *
 * The samples are printed on the console, and ci/check-aux-samples.py
 * --latest decodes each one: the trace must end with the trace unit's
 * Exception packet for the fault, whose return address is the store (the
 * sample's IP), right after the address of the touch_*() of the sample's
 * iteration and the 8 atoms of its number; the last after_*() called before
 * it, if the sample goes back that far, must be that of the previous
 * iteration. Trace from anywhere but the end of the buffer ends elsewhere.
 *
 * Console format, every line starting with "AUXL":
 *   AUXL plan FAULTS SIZE...        faults (samples) per size, the sizes
 *   AUXL functions NAME=ADDR...     touch_a, touch_a_store, touch_b, ...
 *   AUXL N begin SIZE ITER IP THREAD_CPU THREAD_TID CPU TID BYTES ZEROS CRC32
 *   AUXL N data BASE64
 *   AUXL N end
 * as aux-sample-dump prints, with ITER the iteration whose fault took the
 * sample and IP its PERF_SAMPLE_IP.
 */
#define _GNU_SOURCE
#include <signal.h>
#include <stdint.h>
#include <stdlib.h>

#include "aux-session.h"
#include "cs-trace-dump.h"

#define CPU		1
#define NR_FAULTS	12	/* per size: 12 64KiB samples fit the ring buffer */
#define AUX_PAGES	128
#define TIMEOUT_S	120

/* No inlining, cloning or merging of identical functions: known addresses */
#define noipa		__attribute__((noipa))

static const unsigned int sizes[] = { 4096, 16384, 65536 };

/* One TBNZ per bit of @n, to the next instruction: traced as E if it is set */
#define TBNZ(bit)	"	tbnz	%1, #" #bit ", 1f\n1:\n"
#define TOUCH(name)							\
extern const char name##_store[];					\
static noipa void name(char *page, unsigned long n)			\
{									\
	asm volatile(TBNZ(0) TBNZ(1) TBNZ(2) TBNZ(3)			\
		     TBNZ(4) TBNZ(5) TBNZ(6) TBNZ(7)			\
		     "	.globl	" #name "_store\n"			\
		     #name "_store:\n"					\
		     "	strb	wzr, [%0]\n"				\
		     : : "r"(page), "r"(n) : "memory");			\
}

TOUCH(touch_a)
TOUCH(touch_b)

static volatile unsigned long work;

static noipa void after_a(void)
{
	int i;

	for (i = 0; i < 40; i++)
		work++;
}

/*
 * About 6KiB of trace, one atom per loop: a 4KiB sample at the next fault
 * is all trace, its front cut, with the trace unit's second A-Sync (one
 * every 4KiB) in the middle of it.
 */
static noipa void after_b(void)
{
	int i;

	for (i = 0; i < 6000; i++)
		work += 3;
}

/* Called through pointers: BLR, whose target the trace unit traces */
static void (*volatile touch[2])(char *, unsigned long) = { touch_a, touch_b };
static void (*volatile after[2])(void) = { after_a, after_b };
static const char *const store[2] = { touch_a_store, touch_b_store };

/* The layout of a sample: IP, TID, CPU, then the AUX size and data */
struct latest_sample {
	struct perf_event_header header;
	uint64_t ip;
	uint32_t pid, tid;
	uint32_t cpu, res;
	uint64_t size;
	uint8_t data[];
};

struct run {
	int nr, lost, other;
	struct latest_sample *samples[NR_FAULTS];
};

static int cs_etm_type;
static unsigned int seq;

static void keep_sample(const struct perf_event_header *h, const uint8_t *rec, void *arg)
{
	struct run *r = arg;

	if (h->type == PERF_RECORD_LOST)
		r->lost++;
	if (h->type != PERF_RECORD_SAMPLE)
		return;
	if (r->nr == NR_FAULTS) {
		r->other++;
		return;
	}
	r->samples[r->nr] = malloc(h->size);
	memcpy(r->samples[r->nr++], rec, h->size);
}

static void print_sample(unsigned int size, unsigned long iter, int tid,
			 const struct latest_sample *r)
{
	unsigned int n = seq++;
	uint64_t zeros;

	for (zeros = 0; zeros < r->size && !r->data[zeros]; zeros++)
		;
	printf("AUXL %u begin %u %lu %#llx %d %d %u %u %llu %llu %08x\n", n, size, iter,
	       (unsigned long long)r->ip, CPU, tid, r->cpu, r->tid,
	       (unsigned long long)r->size, (unsigned long long)zeros,
	       cs_trace_crc32(r->data, r->size));
	cs_trace_print_base64("AUXL", n, r->data + zeros, r->size - zeros);
	printf("AUXL %u end\n", n);
}

/*
 * NR_FAULTS page faults at the stores of touch_a() and touch_b(), with
 * nothing else that faults while the group is enabled: the ring buffer,
 * the code and the stack are touched before.
 */
static void test_size(int idx, unsigned int size)
{
	struct perf_event_attr leader, sampler;
	unsigned long first = idx * NR_FAULTS, i;
	long page = aux_page_size();
	struct aux_session s;
	struct run r = {};
	char name[128], *pages;
	int tid = gettid(), ok = 1;

	cs_etm_leader_attr(&leader, cs_etm_type);
	leader.exclude_kernel = 1;
	leader.exclude_hv = 1;
	memset(&sampler, 0, sizeof(sampler));
	sampler.size = sizeof(sampler);
	sampler.type = PERF_TYPE_SOFTWARE;
	sampler.config = PERF_COUNT_SW_PAGE_FAULTS;
	sampler.sample_period = 1;
	sampler.sample_type = PERF_SAMPLE_IP | PERF_SAMPLE_TID | PERF_SAMPLE_CPU |
			      PERF_SAMPLE_AUX;
	sampler.aux_sample_size = size;
	sampler.disabled = 1;

	/* samples at NR_FAULTS page faults, printed for ci/check-aux-samples.py */
	snprintf(name, sizeof(name), "aux_sample_latest.%u_bytes", size);
	pages = mmap(NULL, (NR_FAULTS + 1) * page, PROT_READ | PROT_WRITE,
		     MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (pages == MAP_FAILED) {
		ktap_diag("mmap: %s", strerror(errno));
		ktap_result(0, name);
		return;
	}
	/* One fault per page: no huge page */
	madvise(pages, (NR_FAULTS + 1) * page, MADV_NOHUGEPAGE);
	if (aux_session_open(&s, &leader, &sampler, 1, AUX_PAGES)) {
		ktap_result(0, name);
		munmap(pages, (NR_FAULTS + 1) * page);
		return;
	}
	for (i = 0; i <= AUX_SESSION_DATA_PAGES; i++)
		work += ((volatile uint8_t *)s.pc)[i * page];
	/* The last page is the scratch page of a run of the loop's code */
	for (i = 0; i < 2; i++) {
		touch[i](pages + NR_FAULTS * page, i);
		after[i]();
	}

	aux_session_enable(&s);
	for (i = first; i < first + NR_FAULTS; i++) {
		touch[i & 1](pages + (i - first) * page, i);
		after[i & 1]();
	}
	aux_session_disable(&s);

	aux_session_read(&s, keep_sample, &r);
	ktap_diag("%d samples, %d more, %d lost", r.nr, r.other, r.lost);
	ok = r.nr == NR_FAULTS && !r.other && !r.lost;
	for (i = 0; i < (unsigned long)r.nr; i++) {
		struct latest_sample *x = r.samples[i];
		const char *want = store[(first + i) & 1];

		if (x->ip != (uintptr_t)want || x->tid != (uint32_t)tid || x->cpu != CPU) {
			ktap_diag("sample %lu: ip %#llx tid %u cpu %u, not %p %d %d", i,
				  (unsigned long long)x->ip, x->tid, x->cpu, want, tid, CPU);
			ok = 0;
		}
		print_sample(size, first + i, tid, x);
		free(x);
	}
	ktap_result(ok, name);
	aux_session_close(&s);
	munmap(pages, (NR_FAULTS + 1) * page);
}

static void timeout(int sig)
{
	(void)sig;
	printf("# aux-sample-latest: timed out after %ds\n", TIMEOUT_S);
	_exit(1);
}

int main(void)
{
	int nr = sizeof(sizes) / sizeof(sizes[0]), i;
	char name[64];

	signal(SIGALRM, timeout);
	alarm(TIMEOUT_S);
	cs_etm_type = pmu_type("cs_etm");
	ktap_plan("aux_sample_latest", nr);
	printf("AUXL plan %d", NR_FAULTS);
	for (i = 0; i < nr; i++)
		printf(" %u", sizes[i]);
	printf("\nAUXL functions touch_a=%p touch_a_store=%p", touch_a, touch_a_store);
	printf(" touch_b=%p touch_b_store=%p", touch_b, touch_b_store);
	printf(" after_a=%p after_b=%p\n", after_a, after_b);
	pin_to_cpu(CPU);
	for (i = 0; i < nr; i++) {
		if (cs_etm_type < 0 || access("/sys/bus/coresight/devices/trbe0", F_OK)) {
			snprintf(name, sizeof(name), "aux_sample_latest.%u_bytes", sizes[i]);
			ktap_skip(name, "no TRBE");
			continue;
		}
		test_size(i, sizes[i]);
	}
	return 0;
}
