// SPDX-License-Identifier: GPL-2.0
/*
 * A sibling of a cs_etm group leader runs as soon as it joins the running
 * group: perf core schedules a group through its leader's PMU context,
 * and a cpu-clock sibling of a cs_etm leader keeps a PMU context of its
 * own, so rescheduling the sibling's PMU (as 7.2.13 does when a sibling
 * is enabled, or opened enabled, into a group that runs) leaves it
 * inactive until the task is next scheduled in. That is patch 2 of the
 * series, for __perf_event_enable() and __perf_install_in_context().
 *
 * Each case: this thread, pinned to CPU 1 and SCHED_FIFO (so that no
 * context switch schedules the group in again and hides the bug), runs
 * a cs_etm leader with an AUX buffer and a cpu-clock counting sibling,
 * which must have run (time running) for at least half of the time it
 * was enabled, over 50 ms of busy loop (without the fix it runs 0 ms).
 */
#define _GNU_SOURCE
#include <sched.h>
#include <stdint.h>
#include <sys/ioctl.h>

#include "aux-session.h"
#include "watchdog.h"

#define CPU		1
#define AUX_PAGES	16
#define RUN_MS		50
#define WATCHDOG_SECONDS	30

enum join { OPEN_ENABLED, ENABLE_SIBLING, ENABLE_GROUP };

static const struct {
	const char *name;
	enum join join;
} cases[] = {
	/* A cpu-clock sibling opened enabled into a running cs_etm group runs at once */
	{ "aux_group_sibling.open_enabled", OPEN_ENABLED },
	/* A cpu-clock sibling enabled in a running cs_etm group runs at once */
	{ "aux_group_sibling.enable_sibling", ENABLE_SIBLING },
	/* A cs_etm group enabled with PERF_IOC_FLAG_GROUP: its cpu-clock sibling runs at once */
	{ "aux_group_sibling.enable_group", ENABLE_GROUP },
};

static int cs_etm_type;

static int sibling_open(int leader, int disabled)
{
	struct perf_event_attr attr;

	memset(&attr, 0, sizeof(attr));
	attr.size = sizeof(attr);
	attr.type = PERF_TYPE_SOFTWARE;
	attr.config = PERF_COUNT_SW_CPU_CLOCK;
	attr.read_format = PERF_FORMAT_TOTAL_TIME_ENABLED | PERF_FORMAT_TOTAL_TIME_RUNNING;
	attr.disabled = disabled;
	return perf_event_open(&attr, 0, -1, leader, 0);
}

static void test_join(int i)
{
	const char *name = cases[i].name;
	struct perf_event_attr leader;
	uint64_t v[3] = { 0 };	/* value, time enabled, time running */
	struct aux_session s;
	int sibling = -1, ok;
	long switches;

	watchdog_step("%s: open", name);
	cs_etm_leader_attr(&leader, cs_etm_type);
	if (aux_session_open(&s, &leader, NULL, 0, AUX_PAGES)) {
		ktap_result(0, name);
		return;
	}
	switches = thread_context_switches();
	switch (cases[i].join) {
	case OPEN_ENABLED:
		ioctl(s.leader, PERF_EVENT_IOC_ENABLE, 0);
		spin_ms(5);
		sibling = sibling_open(s.leader, 0);
		break;
	case ENABLE_SIBLING:
		sibling = sibling_open(s.leader, 1);
		ioctl(s.leader, PERF_EVENT_IOC_ENABLE, 0);
		spin_ms(5);
		if (sibling >= 0)
			ioctl(sibling, PERF_EVENT_IOC_ENABLE, 0);
		break;
	case ENABLE_GROUP:
		sibling = sibling_open(s.leader, 1);
		ioctl(s.leader, PERF_EVENT_IOC_ENABLE, PERF_IOC_FLAG_GROUP);
		break;
	}
	if (sibling < 0) {
		ktap_diag("cpu-clock sibling: %s", strerror(errno));
		aux_session_close(&s);
		ktap_result(0, name);
		return;
	}
	watchdog_step("%s: run", name);
	spin_ms(RUN_MS);
	if (read(sibling, v, sizeof(v)) != sizeof(v))
		ktap_diag("read: %s", strerror(errno));
	switches = thread_context_switches() - switches;
	aux_session_disable(&s);
	close(sibling);
	aux_session_close(&s);
	ktap_diag("sibling enabled %llu us, running %llu us; %ld context switches",
		  (unsigned long long)v[1] / 1000, (unsigned long long)v[2] / 1000, switches);
	/*
	 * perf's times come from another clock than spin_ms()'s: enabled
	 * can read a little under RUN_MS (49.8 ms measured), so ask for half
	 */
	ok = v[1] * 2 >= RUN_MS * 1000000ULL && v[2] * 2 >= v[1];
	ktap_result(ok, name);
}

int main(void)
{
	int nr = sizeof(cases) / sizeof(cases[0]);

	ktap_plan("aux_group_sibling", nr);
	watchdog_start(WATCHDOG_SECONDS);
	cs_etm_type = pmu_type("cs_etm");
	if (cs_etm_type < 0) {
		/* The boots of this program have the cs_etm PMU by design */
		ktap_diag("no cs_etm PMU");
		for (int i = 0; i < nr; i++)
			ktap_result(0, cases[i].name);
		return 1;
	}
	pin_to_cpu(CPU);
	if (run_sched_fifo())
		ktap_diag("SCHED_FIFO: %s", strerror(errno));
	for (int i = 0; i < nr; i++)
		test_join(i);
	return 0;
}
