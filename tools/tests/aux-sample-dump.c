// SPDX-License-Identifier: GPL-2.0
/*
 * AUX samples for the host to decode: threads pinned to CPUs 1 to 3 each
 * trace themselves with their own cs_etm leader (per-thread, overwrite
 * mode, on the TRBE of their CPU) and take cpu-clock samples with
 * PERF_SAMPLE_AUX, all at once. The payloads are then printed on the
 * console, and ci/check-aux-samples.sh decodes each one with OpenCSD:
 * zeros only at the front, the rest decodes from its first A-Sync
 * without errors, and every context ID in it is the sampled thread's.
 * The trace has timestamps, so that the host can also check that each
 * sample of a thread holds only trace newer than its samples before.
 *
 * Console format, one line each, every line starting with "AUXS":
 *   AUXS plan SIZE...               the sample sizes this run takes
 *   AUXS N begin SIZE THREAD_CPU THREAD_TID CPU TID BYTES ZEROS CRC32
 *   AUXS N data BASE64              the payload after its leading zeros
 *   AUXS N end
 * where SIZE is the aux_sample_size asked for, THREAD_* the thread that
 * took sample N, CPU and TID the sample's PERF_SAMPLE_CPU and _TID,
 * BYTES the payload size, ZEROS its leading zero bytes and CRC32 (zlib's)
 * that of the whole payload.
 */
#define _GNU_SOURCE
#include <pthread.h>
#include <stdint.h>
#include <stdlib.h>

#include "aux-session.h"
#include "cs-trace-dump.h"
#include "watchdog.h"

#define NR_THREADS	3	/* pinned to CPUs 1, 2, 3 */
#define NR_SAMPLES	8	/* per thread and size */
#define MAX_SAMPLES	(2 * NR_SAMPLES)
#define MAX_SPIN_MS	2000	/* a bound, in case samples do not come */
/*
 * About 10 s on the model, most of it printing; 120 s for a slow emulated
 * CPU on a busy host, well before the boot's timeout (600 s)
 */
#define WATCHDOG_SECONDS	120
/*
 * 512KiB, which the TRBE does not fill in a test: the first sample after
 * the TRBE interrupt of a full buffer holds the trace since the handler
 * restarted the TRBE, which has no A-Sync in its first 4KiB (the trace unit
 * goes on), so a 4KiB one could not be checked.
 */
#define AUX_PAGES	128

static const unsigned int sizes[] = { 4096, 16384, 65536 };

struct thread_run {
	int cpu;
	unsigned int size;
	int tid;
	int opened;
	int nr, lost, malformed;
	struct aux_sample_rec *samples[MAX_SAMPLES];
};

static int cs_etm_type;
static unsigned int seq;

static void keep_sample(const struct perf_event_header *h, const uint8_t *rec, void *arg)
{
	struct thread_run *t = arg;

	if (h->type == PERF_RECORD_LOST)
		t->lost++;
	if (h->type != PERF_RECORD_SAMPLE)
		return;
	/* header, TID, CPU, the AUX size, then exactly that many bytes */
	if (h->size < sizeof(struct aux_sample_rec) ||
	    h->size != sizeof(struct aux_sample_rec) +
		       ((const struct aux_sample_rec *)rec)->size) {
		t->malformed++;
		return;
	}
	if (t->nr == MAX_SAMPLES) {
		t->lost++;
		return;
	}
	t->samples[t->nr] = malloc(h->size);
	memcpy(t->samples[t->nr++], rec, h->size);
}

/*
 * Take NR_SAMPLES samples, one every millisecond of this thread's CPU time
 * (PERF_EVENT_IOC_REFRESH disables the sampler after them), and read
 * them as they come, so that 64KiB samples do not fill the ring buffer.
 */
static void *run_thread(void *arg)
{
	struct thread_run *t = arg;
	struct perf_event_attr leader, sampler;
	struct aux_session s;
	int ms, bit;

	pin_to_cpu(t->cpu);
	t->tid = gettid();
	cs_etm_leader_attr(&leader, cs_etm_type);
	/* For the order of the samples (ci/check-aux-samples.py) */
	bit = cs_etm_format_bit("timestamp");
	if (bit >= 0)
		leader.config |= 1ULL << bit;
	aux_sampler_attr(&sampler, t->size);
	sampler.disabled = 1;
	if (aux_session_open(&s, &leader, &sampler, 1, AUX_PAGES))
		return NULL;
	t->opened = 1;
	ioctl(s.leader, PERF_EVENT_IOC_ENABLE, 0);
	ioctl(s.siblings[0], PERF_EVENT_IOC_REFRESH, NR_SAMPLES);
	for (ms = 0; t->nr < NR_SAMPLES && ms < MAX_SPIN_MS; ms += 2) {
		spin_ms(2);
		aux_session_read(&s, keep_sample, t);
	}
	aux_session_disable(&s);
	aux_session_read(&s, keep_sample, t);
	t->malformed += s.malformed;
	aux_session_close(&s);
	return NULL;
}

static void print_sample(const struct thread_run *t, const struct aux_sample_rec *r)
{
	uint64_t zeros;
	unsigned int n = seq++;

	for (zeros = 0; zeros < r->size && !r->data[zeros]; zeros++)
		;
	printf("AUXS %u begin %u %d %d %u %u %llu %llu %08x\n", n, t->size, t->cpu, t->tid,
	       r->cpu, r->tid, (unsigned long long)r->size, (unsigned long long)zeros,
	       cs_trace_crc32(r->data, r->size));
	cs_trace_print_base64("AUXS", n, r->data + zeros, r->size - zeros);
	printf("AUXS %u end\n", n);
}

static void test_size(unsigned int size)
{
	struct thread_run t[NR_THREADS] = {};
	pthread_t th[NR_THREADS];
	char name[96];
	int i, j, ok = 1, started[NR_THREADS];

	watchdog_step("%u byte samples: take them", size);
	for (i = 0; i < NR_THREADS; i++) {
		t[i].cpu = i + 1;
		t[i].size = size;
		errno = pthread_create(&th[i], NULL, run_thread, &t[i]);
		started[i] = !errno;
		if (errno)
			ktap_diag("pthread_create: %s", strerror(errno));
	}
	for (i = 0; i < NR_THREADS; i++)
		if (started[i])
			pthread_join(th[i], NULL);

	watchdog_step("%u byte samples: print them", size);
	for (i = 0; i < NR_THREADS; i++) {
		ktap_diag("thread %d on CPU %d: %d samples, %d lost, %d malformed", t[i].tid,
			  t[i].cpu, t[i].nr, t[i].lost, t[i].malformed);
		ok &= t[i].opened && t[i].nr == NR_SAMPLES && !t[i].lost && !t[i].malformed;
		for (j = 0; j < t[i].nr; j++) {
			print_sample(&t[i], t[i].samples[j]);
			free(t[i].samples[j]);
		}
	}
	/* samples of NR_THREADS threads, printed for ci/check-aux-samples.py */
	snprintf(name, sizeof(name), "aux_sample_dump.%u_bytes", size);
	ktap_result(ok, name);
}

int main(void)
{
	int nr = sizeof(sizes) / sizeof(sizes[0]), i;
	char name[64];

	watchdog_start(WATCHDOG_SECONDS);
	cs_etm_type = pmu_type("cs_etm");
	ktap_plan("aux_sample_dump", nr);
	printf("AUXS plan");
	for (i = 0; i < nr; i++)
		printf(" %u", sizes[i]);
	printf("\n");
	for (i = 0; i < nr; i++) {
		if (cs_etm_type < 0 || access("/sys/bus/coresight/devices/trbe0", F_OK)) {
			snprintf(name, sizeof(name), "aux_sample_dump.%u_bytes", sizes[i]);
			ktap_skip(name, "no TRBE");
			continue;
		}
		test_size(sizes[i]);
	}
	return 0;
}
