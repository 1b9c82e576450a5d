// SPDX-License-Identifier: GPL-2.0
/*
 * An AUX group sibling that perf_event_open() refuses must not keep its
 * group leader alive. perf core takes a reference on the leader of an
 * event that needs an AUX event (aux_pause, aux_resume, aux_sample_size)
 * before it checks that the event may join the context; a cs_etm event
 * with such an attribute in a CPU-wide cs_etm group on the same CPU is
 * then refused with EBUSY (cs_etm is an exclusive PMU). Before patch 45
 * of the series the reference stayed, and the closed leader with it: its
 * count of CPU-wide events of the exclusive PMU refused every per-task
 * cs_etm event, with EBUSY, until reboot (the fuzzer found it).
 *
 * Each case opens a CPU-wide cs_etm leader on CPU 0 and a cs_etm sibling
 * with the attribute, which must be refused, closes the leader, and then
 * a per-task cs_etm event must open. A leaked leader stays for the rest
 * of the boot, so each case first checks that a per-task event opens, and
 * the program is named to run after the other boot tests. A leak thus
 * fails the later cases of the boot too: SIBLING_OPEN_ERROR_CASE=N in the
 * environment (a kernel command line parameter reaches init's) runs only
 * case N, so that each case can be shown to fail on its own
 * (ci/negative/aux-sibling-error-keeps-leader.expect).
 *
 * The base kernel refuses an aux_sample_size sibling of a cs_etm leader
 * earlier, as cs_etm has no snapshot_aux there: that case passes on it
 * when it runs alone.
 */
#define _GNU_SOURCE
#include "ktap.h"
#include "perf-util.h"
#include "watchdog.h"

#define WATCHDOG_SECONDS	30

static const struct {
	const char *name;
	int aux_pause, aux_resume, aux_sample_size;
} cases[] = {
	/* A refused aux_pause (aux_resume, aux_sample_size) sibling leaves no CPU-wide leader behind */
	{ "sibling_open_error.aux_pause", 1, 0, 0 },
	{ "sibling_open_error.aux_resume", 0, 1, 0 },
	{ "sibling_open_error.aux_sample_size", 0, 0, 4096 },
};

static int cs_etm_type;

static int cs_etm_open(pid_t pid, int cpu, int group, int i)
{
	struct perf_event_attr attr;

	memset(&attr, 0, sizeof(attr));
	attr.size = sizeof(attr);
	attr.type = cs_etm_type;
	attr.disabled = 1;
	if (i >= 0) {
		attr.aux_pause = cases[i].aux_pause;
		attr.aux_resume = cases[i].aux_resume;
		attr.aux_sample_size = cases[i].aux_sample_size;
		if (attr.aux_sample_size)
			attr.sample_type = PERF_SAMPLE_AUX;
	}
	return perf_event_open(&attr, pid, cpu, group, PERF_FLAG_FD_CLOEXEC);
}

/* Whether a per-task cs_etm event of this thread opens */
static int per_task_opens(void)
{
	int fd = cs_etm_open(0, -1, -1, -1);

	if (fd < 0) {
		ktap_diag("per-task cs_etm event: %s", strerror(errno));
		return 0;
	}
	close(fd);
	return 1;
}

static void test_refused_sibling(int i)
{
	int leader, sibling, err;

	watchdog_step("%s: before", cases[i].name);
	if (!per_task_opens()) {
		ktap_diag("not even before the case: an earlier one left a leader behind?");
		ktap_result(0, cases[i].name);
		return;
	}
	watchdog_step("%s: open", cases[i].name);
	leader = cs_etm_open(-1, 0, -1, -1);
	if (leader < 0) {
		ktap_diag("CPU-wide cs_etm leader: %s", strerror(errno));
		ktap_result(0, cases[i].name);
		return;
	}
	sibling = cs_etm_open(-1, 0, leader, i);
	err = errno;
	close(leader);
	if (sibling >= 0) {
		close(sibling);
		ktap_diag("the cs_etm sibling opened, it must be refused");
		ktap_result(0, cases[i].name);
		return;
	}
	ktap_diag("cs_etm sibling: %s", strerror(err));
	watchdog_step("%s: after", cases[i].name);
	ktap_result(per_task_opens(), cases[i].name);
}

int main(void)
{
	int nr = sizeof(cases) / sizeof(cases[0]), first = 0;
	const char *only = getenv("SIBLING_OPEN_ERROR_CASE");

	if (only) {
		first = atoi(only) - 1;
		if (first < 0 || first >= nr) {
			fprintf(stderr, "SIBLING_OPEN_ERROR_CASE=%s: no such case\n", only);
			return 1;
		}
		nr = first + 1;
	}
	ktap_plan("sibling_open_error", nr - first);
	watchdog_start(WATCHDOG_SECONDS);
	cs_etm_type = pmu_type("cs_etm");
	/* The boots of this program have the cs_etm PMU by design */
	if (cs_etm_type < 0)
		ktap_diag("no cs_etm PMU");
	for (int i = first; i < nr; i++) {
		if (cs_etm_type < 0)
			ktap_result(0, cases[i].name);
		else
			test_refused_sibling(i);
	}
	return cs_etm_type < 0;
}
