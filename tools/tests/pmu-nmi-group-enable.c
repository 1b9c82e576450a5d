// SPDX-License-Identifier: GPL-2.0
/*
 * Enable and disable AUX sampling groups with PMUv3 cycles samplers, on
 * every CPU at once, while other cycles samplers of the same threads
 * overflow every few microseconds, and fail on any splat.
 *
 * Enabling a group reschedules the task context with its PMUs disabled
 * (perf_ctx_disable() in ctx_resched()), then adds the cs_etm leader and
 * its cycles samplers one after another. An overflow NMI of a background
 * sampler can come in that section: it was raised before PMCR_EL0.E was
 * cleared (the model keeps the interrupt line up until the overflow flag
 * is cleared, hardware may deliver it late). Without the series' patch
 * "perf: arm_pmuv3: Keep the PMU disabled across an overflow NMI",
 * armv8pmu_handle_irq() set PMCR_EL0.E again on its way out, so the
 * samplers already added counted in the middle of the group's
 * scheduling. One kselftest-debug boot in 8 then hit "Invalid PMEV*
 * index" (a throttle in NMI stopped a sampler that armpmu_add() had not
 * given a counter yet); this test hangs the model within seconds: the
 * vCPUs keep taking the PMU interrupt, and the boot's timeout fails it.
 *
 * The samplers count cycles with a period of 5000 (5us of the model's
 * 1GHz cycle counter), and kernel.perf_event_max_sample_rate is set to
 * 1000 for the test, so that the groups throttle (4 overflows per event
 * and tick); the kernel lowers it further on its own, and the test puts
 * back the value it found.
 *
 * Result per CPU: the thread enabled its group at least 100 times and
 * its AUX samplers wrote samples; then one result for the kernel log: no
 * splat since the start.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <string.h>

#include "aux-session.h"
#include "kmsg-util.h"
#include "ktap.h"
#include "perf-util.h"
#include "watchdog.h"

#define NR_CPUS_TESTED	4
#define SECONDS		20
#define NR_BACKGROUND	3
#define PERIOD		5000
#define RATE		1000

struct worker {
	int cpu;
	int cs_etm;
	long enables;
	long samples;
	int error;
};

static void count_sample(const struct perf_event_header *h, const uint8_t *rec, void *arg)
{
	struct worker *w = arg;

	(void)rec;
	if (h->type == PERF_RECORD_SAMPLE)
		w->samples++;
}

static int open_background(int *fds)
{
	struct perf_event_attr attr;
	int i;

	memset(&attr, 0, sizeof(attr));
	attr.size = sizeof(attr);
	cycles_sampler(&attr);
	attr.sample_period = PERIOD;
	attr.sample_type = PERF_SAMPLE_TID;
	for (i = 0; i < NR_BACKGROUND; i++) {
		fds[i] = perf_event_open(&attr, 0, -1, -1, 0);
		if (fds[i] < 0) {
			ktap_diag("background cycles sampler %d: %s", i, strerror(errno));
			while (i--)
				close(fds[i]);
			return -1;
		}
	}
	return 0;
}

static void *work(void *arg)
{
	struct worker *w = arg;
	struct perf_event_attr leader, samplers[2];
	struct aux_session s;
	struct timespec t0, t;
	int background[NR_BACKGROUND], i;

	pin_to_cpu(w->cpu);
	if (open_background(background)) {
		w->error = 1;
		return NULL;
	}
	cs_etm_leader_attr(&leader, w->cs_etm);
	for (i = 0; i < 2; i++) {
		aux_sampler_attr(&samplers[i], 4096);
		cycles_sampler(&samplers[i]);
		samplers[i].sample_period = PERIOD;
	}
	if (aux_session_open(&s, &leader, samplers, 2, 64)) {
		w->error = 1;
		goto out;
	}
	clock_gettime(CLOCK_MONOTONIC, &t0);
	do {
		aux_session_enable(&s);
		aux_session_disable(&s);
		w->enables++;
		if (aux_session_read(&s, count_sample, w) < 0)
			w->error = 1;
		clock_gettime(CLOCK_MONOTONIC, &t);
	} while (t.tv_sec - t0.tv_sec < SECONDS);
	aux_session_close(&s);
out:
	for (i = 0; i < NR_BACKGROUND; i++)
		close(background[i]);
	return NULL;
}

int main(void)
{
	struct worker workers[NR_CPUS_TESTED];
	pthread_t threads[NR_CPUS_TESTED];
	int cs_etm, kmsg, rate, cycles, failed = 0, i;
	char name[64];

	watchdog_start(SECONDS + 60);
	ktap_plan("pmu_nmi_group_enable", NR_CPUS_TESTED + 1);
	cs_etm = pmu_type("cs_etm");
	kmsg = kmsg_open();
	rate = perf_max_sample_rate();
	cycles = have_cycles();
	if (cs_etm < 0 || kmsg < 0 || rate < 0 || !cycles) {
		ktap_diag("cs_etm PMU %d, /dev/kmsg %d, max sample rate %d, cycles %d",
			  cs_etm, kmsg, rate, cycles);
		for (i = 0; i < NR_CPUS_TESTED; i++) {
			snprintf(name, sizeof(name), "pmu_nmi_group_enable.cpu_%d", i);
			ktap_result(0, name);
		}
		ktap_result(0, "pmu_nmi_group_enable.no_splat");
		return 1;
	}
	watchdog_step("lowering the sample rate from %d", rate);
	if (set_perf_max_sample_rate(RATE))
		ktap_diag("cannot lower the sample rate: %s", strerror(errno));

	watchdog_step("enabling and disabling the groups for %ds", SECONDS);
	for (i = 0; i < NR_CPUS_TESTED; i++) {
		workers[i] = (struct worker){ .cpu = i, .cs_etm = cs_etm };
		pthread_create(&threads[i], NULL, work, &workers[i]);
	}
	for (i = 0; i < NR_CPUS_TESTED; i++)
		pthread_join(threads[i], NULL);

	watchdog_step("restoring the sample rate to %d", rate);
	if (set_perf_max_sample_rate(rate))
		ktap_diag("cannot restore the sample rate %d: %s", rate, strerror(errno));

	for (i = 0; i < NR_CPUS_TESTED; i++) {
		struct worker *w = &workers[i];

		ktap_diag("CPU %d: %ld group enables, %ld samples", w->cpu, w->enables, w->samples);
		/* 100 or more group enables, AUX samples */
		snprintf(name, sizeof(name), "pmu_nmi_group_enable.cpu_%d", w->cpu);
		failed |= !ktap_result(!w->error && w->enables >= 100 && w->samples > 0, name);
	}
	failed |= !ktap_result(kmsg_splats(kmsg, 10) == 0, "pmu_nmi_group_enable.no_splat");
	return failed;
}
