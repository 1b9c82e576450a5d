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
 */
#define _GNU_SOURCE
#include <stdint.h>
#include <sys/ioctl.h>
#include <time.h>

#include "kmsg-util.h"
#include "ktap.h"
#include "perf-util.h"
#include "watchdog.h"

/* Returns how long the orphaned sampler ran, in ns */
static uint64_t run_orphan(int type, int resume)
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
	if (read(sampler, &ns, sizeof(ns)) != sizeof(ns))
		ns = 0;
	close(sampler);
	return ns;
}

int main(void)
{
	const char *name = "aux_pause and aux_resume samplers enabled again after their leader closed: no WARN";
	int type = pmu_type("cs_etm"), kmsg, splats;
	uint64_t pause_ns, resume_ns;

	/*
	 * A few seconds on the model; 120 s for a slow emulated CPU on a busy
	 * host, well before the boot's timeout (600 s)
	 */
	watchdog_start(120);
	ktap_plan("aux_pause_orphan", 1);
	if (type < 0) {
		ktap_skip(name, "no cs_etm PMU");
		return 0;
	}

	kmsg = kmsg_open();
	watchdog_step("aux_pause sampler");
	pause_ns = run_orphan(type, 0);
	watchdog_step("aux_resume sampler");
	resume_ns = run_orphan(type, 1);
	splats = kmsg_splats(kmsg, 5);

	/* Each must have run, for 200 overflows or so */
	if (pause_ns < 1000000 || resume_ns < 1000000)
		ktap_diag("the samplers ran for %llu and %llu ns only",
			  (unsigned long long)pause_ns, (unsigned long long)resume_ns);
	if (kmsg < 0)
		ktap_diag("no /dev/kmsg");
	ktap_result(pause_ns >= 1000000 && resume_ns >= 1000000 && kmsg >= 0 && !splats, name);
	return 0;
}
