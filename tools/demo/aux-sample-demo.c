// SPDX-License-Identifier: GPL-2.0
/*
 * AUX sampling with a cs_etm group leader, through the bare perf ABI:
 * trace this thread with cs_etm into an overwrite mode AUX buffer, take
 * a cpu-clock sample every millisecond with 4KiB of the latest trace, and
 * print what each sample holds.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <time.h>

#include "../tests/perf-util.h"
#include "../tests/watchdog.h"

#define DATA_PAGES	64	/* ring buffer pages, a power of 2 */
#define AUX_PAGES	64
#define SAMPLE_SIZE	4096

struct sample {
	struct perf_event_header header;
	uint32_t pid, tid;
	uint32_t cpu, res;
	uint64_t size;
	uint8_t data[];
};

static void spin(int ms)
{
	struct timespec t0, t;
	volatile unsigned long x = 0;

	clock_gettime(CLOCK_MONOTONIC, &t0);
	do {
		x++;
		clock_gettime(CLOCK_MONOTONIC, &t);
	} while ((t.tv_sec - t0.tv_sec) * 1000 + (t.tv_nsec - t0.tv_nsec) / 1000000 < ms);
}

int main(void)
{
	long page = sysconf(_SC_PAGESIZE);
	struct perf_event_attr attr;
	struct perf_event_mmap_page *pc;
	int type, leader, sampler, shown = 0;
	uint64_t head, off;
	uint8_t *data;
	void *aux;

	/* Well under a second on the model; 120 s for a slow emulated CPU */
	watchdog_start(120);
	type = pmu_type("cs_etm");
	if (type < 0) {
		printf("aux-sample-demo: no cs_etm PMU: the kernel has no CoreSight support\n");
		return 1;
	}

	cs_etm_attr(&attr, type);
	attr.exclude_kernel = 1;
	leader = perf_event_open(&attr, 0, -1, -1, 0);
	if (leader < 0) {
		printf("aux-sample-demo: cs_etm event: %s\n", strerror(errno));
		return 1;
	}

	aux_sampler_attr(&attr, SAMPLE_SIZE);
	sampler = perf_event_open(&attr, 0, -1, leader, 0);
	if (sampler < 0) {
		printf("aux-sample-demo: AUX sampling event: %s%s\n", strerror(errno),
		       errno == EINVAL ? " (no snapshot_aux in cs_etm: kernel without the series?)" : "");
		return 1;
	}

	pc = mmap(NULL, (DATA_PAGES + 1) * page, PROT_READ | PROT_WRITE, MAP_SHARED, leader, 0);
	if (pc == MAP_FAILED) {
		printf("aux-sample-demo: ring buffer: %s\n", strerror(errno));
		return 1;
	}
	if (ioctl(sampler, PERF_EVENT_IOC_SET_OUTPUT, leader)) {
		printf("aux-sample-demo: SET_OUTPUT: %s\n", strerror(errno));
		return 1;
	}
	pc->aux_offset = (DATA_PAGES + 1) * page;
	pc->aux_size = AUX_PAGES * page;
	/* PROT_READ only: the AUX buffer is in overwrite mode */
	aux = mmap(NULL, pc->aux_size, PROT_READ, MAP_SHARED, leader, pc->aux_offset);
	if (aux == MAP_FAILED) {
		printf("aux-sample-demo: AUX buffer: %s (no CoreSight sink reachable from this CPU?)\n",
		       strerror(errno));
		return 1;
	}

	ioctl(leader, PERF_EVENT_IOC_ENABLE, PERF_IOC_FLAG_GROUP);
	spin(50);
	ioctl(leader, PERF_EVENT_IOC_DISABLE, PERF_IOC_FLAG_GROUP);

	data = (uint8_t *)pc + page;
	head = __atomic_load_n(&pc->data_head, __ATOMIC_ACQUIRE);
	for (off = pc->data_tail; off < head;) {
		struct perf_event_header *h = (void *)(data + off % (DATA_PAGES * page));
		struct sample *s = (void *)h;
		uint64_t zeros = 0;

		if (h->size < sizeof(*h) || off + h->size > head) {
			printf("aux-sample-demo: malformed ring buffer: size %u\n", h->size);
			return 1;
		}
		if (h->type == PERF_RECORD_SAMPLE && off % (DATA_PAGES * page) + h->size <=
		    (uint64_t)DATA_PAGES * page) {
			while (zeros < s->size && !s->data[zeros])
				zeros++;
			if (shown++ < 10)
				printf("sample: cpu %u tid %u: %llu bytes, %llu zeros, then %llu bytes of trace\n",
				       s->cpu, s->tid, (unsigned long long)s->size,
				       (unsigned long long)zeros,
				       (unsigned long long)(s->size - zeros));
		}
		off += h->size;
	}
	printf("aux-sample-demo: %d samples\n", shown);
	return shown ? 0 : 1;
}
