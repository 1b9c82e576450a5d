// SPDX-License-Identifier: GPL-2.0
/*
 * A sampling event with aux_pause or aux_resume acts on the AUX event
 * that leads its group. When that leader is closed, perf core unlinks
 * the sampler from it (perf_put_aux_event() sets event->aux_event to
 * NULL) and puts the sampler into the ERROR state, which
 * PERF_EVENT_IOC_ENABLE clears. The sampler then overflows without an
 * AUX event, and perf_event_aux_pause() must take that calmly: the base
 * tree WARNs (WARN_ON_ONCE(!event)). Found by tools/fuzz/cs-etm-fuzz.
 *
 * Needs only the cs_etm PMU: no AUX buffer is mapped.
 *
 * Built with AUX_PAUSE_ORPHAN_CYCLES (pmu-nmi-aux-pause-orphan.c), the
 * same with cycles samplers (PMUv3), whose overflow is an NMI in the
 * CI's boots (see pmu-nmi.c), so that perf_event_aux_pause() runs for an
 * orphan in NMI context; skipped without a PMU that counts cycles. That
 * is a program of its own, which init runs after aux-sample-steady (in
 * name order): the NMIs of any cycles sampler make perf core lower
 * kernel.perf_event_max_sample_rate, by how much depends on the load of
 * the host (to 37000 or to 1750 measured for these few), and
 * aux-sample-steady must start with it untouched. The base tree's WARN is
 * a WARN_ON_ONCE: it fires for the cpu-clock samplers, which run first,
 * so the cycles result cannot fail there.
 */
#define _GNU_SOURCE
#include <stdint.h>
#include <sys/ioctl.h>
#include <time.h>

#include "kmsg-util.h"
#include "ktap.h"
#include "perf-util.h"
#include "watchdog.h"

/* Returns how long the orphaned sampler (cycles or cpu-clock) ran, in ns */
static uint64_t run_orphan(int type, int resume, int cycles)
{
	struct perf_event_attr attr;
	int leader, sampler;
	uint64_t ns = 0;

	cs_etm_attr(&attr, type);
	leader = perf_event_open(&attr, 0, -1, -1, 0);
	if (leader < 0) {
		ktap_diag("cs_etm event: %s", strerror(errno));
		return 0;
	}
	aux_sampler_attr(&attr, 0);
	attr.sample_type = PERF_SAMPLE_TID;
	attr.sample_period = 100000;	/* 100us of cpu-clock */
	if (cycles) {
		/* 1ms of QEMU's 1GHz cycles: 20 NMIs or so each */
		cycles_sampler(&attr);
		attr.sample_period = 1000000;
		/* The time it ran, as cycles do not count time */
		attr.read_format = PERF_FORMAT_TOTAL_TIME_RUNNING;
	}
	attr.disabled = 1;
	attr.aux_pause = !resume;
	attr.aux_resume = resume;
	sampler = perf_event_open(&attr, 0, -1, leader, 0);
	if (sampler < 0) {
		ktap_diag("sampling event: %s", strerror(errno));
		close(leader);
		return 0;
	}

	close(leader);
	ioctl(sampler, PERF_EVENT_IOC_ENABLE, 0);
	spin_ms(20);
	ioctl(sampler, PERF_EVENT_IOC_DISABLE, 0);
	if (cycles) {
		uint64_t v[2];

		ns = read(sampler, v, sizeof(v)) == sizeof(v) ? v[1] : 0;
	} else if (read(sampler, &ns, sizeof(ns)) != sizeof(ns)) {
		ns = 0;
	}
	close(sampler);
	return ns;
}

/* Run an orphaned aux_pause sampler, then an aux_resume one: no splat */
static void test_orphans(const char *name, int type, int cycles)
{
	int kmsg = kmsg_open(), splats;
	uint64_t pause_ns, resume_ns;

	watchdog_step("%saux_pause sampler", cycles ? "cycles " : "");
	pause_ns = run_orphan(type, 0, cycles);
	watchdog_step("%saux_resume sampler", cycles ? "cycles " : "");
	resume_ns = run_orphan(type, 1, cycles);
	splats = kmsg_splats(kmsg, 5);
	if (kmsg >= 0)
		close(kmsg);

	/* Each must have run, for 200 overflows or so (20 of cycles) */
	if (pause_ns < 1000000 || resume_ns < 1000000)
		ktap_diag("the samplers ran for %llu and %llu ns only",
			  (unsigned long long)pause_ns, (unsigned long long)resume_ns);
	if (kmsg < 0)
		ktap_diag("no /dev/kmsg");
	ktap_result(pause_ns >= 1000000 && resume_ns >= 1000000 && kmsg >= 0 && !splats, name);
}

#ifdef AUX_PAUSE_ORPHAN_CYCLES
#define SUITE		"aux_pause_orphan_nmi"
#define NAME		"cycles: aux_pause and aux_resume samplers enabled again after their leader closed, overflowing in NMI: no WARN"
#define CYCLES		1
#else
#define SUITE		"aux_pause_orphan"
#define NAME		"aux_pause and aux_resume samplers enabled again after their leader closed: no WARN"
#define CYCLES		0
#endif

int main(void)
{
	int type = pmu_type("cs_etm");

	/*
	 * A few seconds on the model; 120 s for a slow emulated CPU on a busy
	 * host, well before the boot's timeout (600 s)
	 */
	watchdog_start(120);
	ktap_plan(SUITE, 1);
	if (type < 0) {
		ktap_skip(NAME, "no cs_etm PMU");
		return 0;
	}
	if (CYCLES && !have_cycles()) {
		ktap_diag("cycles: %s", strerror(errno));
		ktap_skip(NAME, "no PMU counts CPU cycles");
		return 0;
	}
	test_orphans(NAME, type, CYCLES);
	return 0;
}
