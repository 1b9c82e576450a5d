// SPDX-License-Identifier: GPL-2.0
/*
 * Which AUX sampling configurations perf_event_open() accepts with the
 * cs_etm PMU, and the errno of each one it refuses. Needs no CoreSight
 * hardware: the cs_etm PMU registers with the CoreSight core, and no
 * AUX buffer is mapped.
 *
 * Without snapshot_aux in the cs_etm PMU, perf core refuses every
 * sampling event with an aux_sample_size under a cs_etm leader, so the
 * "accepted" cases fail on a kernel without the series.
 */
#include <stdlib.h>

#include "ktap.h"
#include "perf-util.h"

enum leader { NO_LEADER, CS_ETM_LEADER, CPU_CLOCK_LEADER };

struct open_case {
	const char *name;
	enum leader leader;
	unsigned int aux_sample_size;
	int aux_output;
	int expect_errno;	/* 0: the event opens */
};

static const struct open_case cases[] = {
	{ "4KiB samples under a cs_etm leader are accepted", CS_ETM_LEADER, 4096, 0, 0 },
	{ "64KiB samples under a cs_etm leader are accepted", CS_ETM_LEADER, 65536, 0, 0 },
	{ "1MiB samples are accepted, perf core caps them", CS_ETM_LEADER, 1 << 20, 0, 0 },
	{ "a size that is not a multiple of 8 is accepted", CS_ETM_LEADER, 4097, 0, 0 },
	{ "aux_sample_size 0 takes no AUX sample and is accepted", CS_ETM_LEADER, 0, 0, 0 },
	{ "aux_sample_size without a group leader is refused", NO_LEADER, 4096, 0, EINVAL },
	{ "aux_sample_size under a non-AUX leader is refused", CPU_CLOCK_LEADER, 4096, 0, EINVAL },
	/* perf core refuses aux_output of a PMU without PERF_PMU_CAP_AUX_OUTPUT first */
	{ "aux_sample_size with aux_output is refused", CS_ETM_LEADER, 4096, 1, EOPNOTSUPP },
};

static int open_leader(enum leader leader, int cs_etm_type)
{
	struct perf_event_attr attr;

	switch (leader) {
	case CS_ETM_LEADER:
		cs_etm_attr(&attr, cs_etm_type);
		break;
	case CPU_CLOCK_LEADER:
		aux_sampler_attr(&attr, 0);
		attr.sample_type = PERF_SAMPLE_TID;
		attr.disabled = 1;
		break;
	default:
		return -1;
	}
	return perf_event_open(&attr, 0, -1, -1, 0);
}

static int run_case(const struct open_case *c, int cs_etm_type)
{
	struct perf_event_attr attr;
	int leader_fd = -1, fd, err = 0, ok;

	if (c->leader != NO_LEADER) {
		leader_fd = open_leader(c->leader, cs_etm_type);
		if (leader_fd < 0) {
			ktap_diag("leader: %s", strerror(errno));
			return ktap_result(0, c->name);
		}
	}

	aux_sampler_attr(&attr, c->aux_sample_size);
	attr.aux_output = c->aux_output;
	fd = perf_event_open(&attr, 0, -1, leader_fd, 0);
	if (fd < 0)
		err = errno;
	else
		close(fd);
	if (leader_fd >= 0)
		close(leader_fd);

	ok = err == c->expect_errno;
	if (!ok)
		ktap_diag("expected %s, got %s",
			  c->expect_errno ? strerror(c->expect_errno) : "success",
			  err ? strerror(err) : "success");
	return ktap_result(ok, c->name);
}

int main(void)
{
	int nr = sizeof(cases) / sizeof(cases[0]);
	int type = pmu_type("cs_etm");
	int i, failed = 0;

	ktap_plan("aux_sample_open", nr + 1);
	if (!ktap_result(type >= 0, "the cs_etm PMU is registered")) {
		for (i = 0; i < nr; i++)
			ktap_skip(cases[i].name, "no cs_etm PMU");
		return 1;
	}

	for (i = 0; i < nr; i++)
		failed += !run_case(&cases[i], type);

	return failed ? 1 : 0;
}
