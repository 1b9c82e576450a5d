// SPDX-License-Identifier: GPL-2.0
/*
 * An AUX area mapped again starts at the head the old one left, and the
 * first transaction of the TRBE in it must stay inside it (patches 5 and
 * 6 of the series). 7.2.13 keeps the old area's last wakeup boundary
 * (rb->aux_wakeup), so perf core hands the driver a wakeup behind the
 * head, which the TRBE driver takes for one ahead of it: when its offset
 * in the new area is the head's, at a page boundary, the driver pads the
 * whole free space from the head on, past the end of the area (an oops
 * at the guard page, or a KASAN report, in trbe_pad_buf()).
 *
 * With pages of P bytes, the steps make that happen every time:
 *  1. a cs_etm event of this thread traces into a normal mode (writable)
 *     AUX area of 16P, wakeup watermark 8P (the default, half the area),
 *     until it is full: the head is then 16P - 1;
 *  2. the consumer frees all but 2P - 1 bytes (aux_tail = 14P + 1), and
 *     the event fills the area again, up to a head at 30P: the last
 *     watermark boundary crossed is 24P;
 *  3. the AUX area is unmapped and a 4P one (watermark 2P) is mapped, all
 *     of it free (aux_tail = head): the next wakeup would be 24P + 2P =
 *     26P, behind the head, at offset 2P in the new area as the head is.
 *     The event runs again: it must write trace into the new area, no
 *     more than its free space of 4P - 1 bytes.
 */
#define _GNU_SOURCE
#include <sched.h>
#include <stdint.h>
#include <sys/ioctl.h>
#include <sys/mman.h>

#include "ktap.h"
#include "perf-util.h"
#include "watchdog.h"

#define CPU		1
#define DATA_PAGES	8
#define FILL_SECONDS	10	/* bound of each fill, far above the ~0.1 s it takes */
#define WATCHDOG_SECONDS	60

/* A TRBE event traces into an AUX area mapped again, at the old head, and only there */
static const char *name = "aux_remap_wakeup.trace_at_old_head";

static uint64_t page;
static struct perf_event_mmap_page *pc;
static void *aux;
static size_t aux_len;

static uint64_t aux_head(void)
{
	return __atomic_load_n(&pc->aux_head, __ATOMIC_ACQUIRE);
}

static void set_aux_tail(uint64_t tail)
{
	__atomic_store_n(&pc->aux_tail, tail, __ATOMIC_RELEASE);
}

/* Map a normal mode AUX area of @pages right after the ring buffer */
static int map_aux(int fd, int pages)
{
	aux_len = pages * page;
	pc->aux_offset = (DATA_PAGES + 1) * page;
	pc->aux_size = aux_len;
	aux = mmap(NULL, aux_len, PROT_READ | PROT_WRITE, MAP_SHARED, fd, pc->aux_offset);
	if (aux == MAP_FAILED) {
		ktap_diag("AUX area of %d pages: %s", pages, strerror(errno));
		return -1;
	}
	return 0;
}

/*
 * Run the event until the AUX head reaches @head, where a full AUX area
 * stops it: 0, or -1 with a diagnostic when it does not within
 * FILL_SECONDS
 */
static int fill_to(int fd, uint64_t head, const char *step)
{
	struct timespec t0, t;

	watchdog_step("%s", step);
	clock_gettime(CLOCK_MONOTONIC, &t0);
	ioctl(fd, PERF_EVENT_IOC_ENABLE, 0);
	do {
		spin_ms(10);
		clock_gettime(CLOCK_MONOTONIC, &t);
	} while (aux_head() != head && t.tv_sec - t0.tv_sec < FILL_SECONDS);
	ioctl(fd, PERF_EVENT_IOC_DISABLE, 0);
	ktap_diag("%s: AUX head %llu, %s %llu", step, (unsigned long long)aux_head(),
		  aux_head() == head ? "as planned:" : "NOT the planned",
		  (unsigned long long)head);
	return aux_head() == head ? 0 : -1;
}

int main(void)
{
	struct perf_event_attr attr;
	uint64_t head;
	int type, fd, ok;

	ktap_plan("aux_remap_wakeup", 1);
	watchdog_start(WATCHDOG_SECONDS);
	page = sysconf(_SC_PAGESIZE);
	type = pmu_type("cs_etm");
	if (type < 0) {
		/* The boots of this program have the cs_etm PMU by design */
		ktap_diag("no cs_etm PMU");
		ktap_result(0, name);
		return 1;
	}
	pin_to_cpu(CPU);

	watchdog_step("open and map");
	cs_etm_attr(&attr, type);
	fd = perf_event_open(&attr, 0, -1, -1, 0);
	if (fd < 0) {
		ktap_diag("cs_etm event: %s", strerror(errno));
		ktap_result(0, name);
		return 1;
	}
	pc = mmap(NULL, (DATA_PAGES + 1) * page, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	if (pc == MAP_FAILED) {
		ktap_diag("ring buffer: %s", strerror(errno));
		ktap_result(0, name);
		return 1;
	}
	if (map_aux(fd, 16) || fill_to(fd, 16 * page - 1, "fill the 16 page AUX area")) {
		ktap_result(0, name);
		return 1;
	}
	set_aux_tail(14 * page + 1);
	if (fill_to(fd, 30 * page, "fill it again from a tail at 14 pages + 1")) {
		ktap_result(0, name);
		return 1;
	}

	watchdog_step("map a 4 page AUX area");
	munmap(aux, aux_len);
	if (map_aux(fd, 4)) {
		ktap_result(0, name);
		return 1;
	}
	set_aux_tail(aux_head());

	/* Without the fixes, the kernel writes past the new area here */
	watchdog_step("trace into the 4 page AUX area");
	ioctl(fd, PERF_EVENT_IOC_ENABLE, 0);
	spin_ms(20);
	ioctl(fd, PERF_EVENT_IOC_DISABLE, 0);
	head = aux_head();
	ktap_diag("4 page AUX area: AUX head %llu, %llu bytes of trace and padding",
		  (unsigned long long)head, (unsigned long long)(head - 30 * page));
	ok = head > 30 * page && head - 30 * page <= 4 * page - 1;
	ktap_result(ok, name);

	munmap(aux, aux_len);
	munmap(pc, (DATA_PAGES + 1) * page);
	close(fd);
	return 0;
}
