// SPDX-License-Identifier: GPL-2.0
/*
 * Threads that hop from CPU to CPU, each with a cs_etm AUX sampling
 * group of two cpu-clock samplers that the kernel throttles, and fail on
 * any splat.
 *
 * A throttle stops every sampler of the group, but the stop of a
 * cpu-clock event leaves its hrtimer queued when the event is throttled
 * (it can run in NMI, perf_swevent_cancel_hrtimer()). Without the series'
 * patch "perf/core: Cancel the hrtimer of a throttled software event that
 * leaves its CPU", the event then left its CPU with the timer still queued
 * there; when the timer fired while the event was being started on the
 * next CPU, its handler sampled the event on the old CPU and forwarded a
 * timer that the new CPU had just queued: the WARN about the AUX event's
 * CPU in perf_prepare_sample_aux() and the one in hrtimer_forward(), seen
 * first in the fuzzer of the debug boot (1 boot in 2 of 20 s with CPU
 * hotplug) and here within 20 s (5 of 5 boots).
 *
 * One sampler has a period of 20us and throttles the group (the maximum
 * sample rate is set to 500 for the test and put back after, and the
 * thread runs 500us on each CPU); the other has a period of 2ms, so that
 * its timer is queued when the group is throttled and is still queued
 * when the thread hops.
 *
 * Result per thread: 200 or more hops, AUX samples and throttles (the
 * debug kernel hops about 800 times, the other 4400); then one for the
 * kernel log: no splat since the start.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

#include "aux-session.h"
#include "kmsg-util.h"
#include "ktap.h"
#include "perf-util.h"
#include "watchdog.h"

#define NR_THREADS	4
#define SECONDS		20
#define THROTTLER_NS	20000
#define SLOW_NS		2000000
#define RATE		500
#define STAY_US		500	/* run on each CPU, long enough to throttle */
#define MIN_HOPS	200

struct worker {
	int id, cs_etm, nr_cpus;
	long hops, samples, throttles;
	int error;
};

static double now_us(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return t.tv_sec * 1e6 + t.tv_nsec / 1e3;
}

static void count_record(const struct perf_event_header *h, const uint8_t *rec, void *arg)
{
	struct worker *w = arg;

	(void)rec;
	if (h->type == PERF_RECORD_SAMPLE)
		w->samples++;
	else if (h->type == PERF_RECORD_THROTTLE)
		w->throttles++;
}

static void *work(void *arg)
{
	struct worker *w = arg;
	struct perf_event_attr leader, samplers[2];
	struct aux_session s;
	double start, end;
	int i, cpu = w->id % w->nr_cpus;

	pin_to_cpu(cpu);
	cs_etm_leader_attr(&leader, w->cs_etm);
	for (i = 0; i < 2; i++)
		aux_sampler_attr(&samplers[i], 4096);
	samplers[0].sample_period = THROTTLER_NS;
	samplers[1].sample_period = SLOW_NS;
	if (aux_session_open(&s, &leader, samplers, 2, 64)) {
		w->error = 1;
		return NULL;
	}
	aux_session_enable(&s);
	start = now_us();
	do {
		cpu = (cpu + 1) % w->nr_cpus;
		pin_to_cpu(cpu);
		w->hops++;
		end = now_us() + STAY_US;
		while (now_us() < end)
			;
		/* Every 64 hops: the hops, not the reading, should take the time */
		if (!(w->hops % 64) && aux_session_read(&s, count_record, w) < 0)
			w->error = 1;
	} while (now_us() - start < SECONDS * 1e6);
	aux_session_disable(&s);
	if (aux_session_read(&s, count_record, w) < 0)
		w->error = 1;
	aux_session_close(&s);
	return NULL;
}

int main(void)
{
	struct worker workers[NR_THREADS];
	pthread_t threads[NR_THREADS];
	int cs_etm, kmsg, rate, nr_cpus, failed = 0, i;
	char name[96];

	watchdog_start(SECONDS + 60);
	ktap_plan("cpu_clock_throttle_migrate", NR_THREADS + 1);
	cs_etm = pmu_type("cs_etm");
	kmsg = kmsg_open();
	rate = perf_max_sample_rate();
	nr_cpus = sysconf(_SC_NPROCESSORS_ONLN);
	if (cs_etm < 0 || kmsg < 0 || rate < 0 || nr_cpus < 2) {
		ktap_diag("cs_etm PMU %d, /dev/kmsg %d, max sample rate %d, %d CPUs",
			  cs_etm, kmsg, rate, nr_cpus);
		for (i = 0; i < NR_THREADS; i++) {
			snprintf(name, sizeof(name), "cpu_clock_throttle_migrate.thread_%d", i);
			ktap_result(0, name);
		}
		ktap_result(0, "cpu_clock_throttle_migrate.no_splat");
		return 1;
	}
	watchdog_step("lowering the sample rate from %d", rate);
	if (set_perf_max_sample_rate(RATE))
		ktap_diag("cannot lower the sample rate: %s", strerror(errno));

	watchdog_step("hopping between %d CPUs for %ds", nr_cpus, SECONDS);
	for (i = 0; i < NR_THREADS; i++) {
		workers[i] = (struct worker){ .id = i, .cs_etm = cs_etm, .nr_cpus = nr_cpus };
		if (pthread_create(&threads[i], NULL, work, &workers[i])) {
			workers[i].error = 1;
			threads[i] = 0;
		}
	}
	for (i = 0; i < NR_THREADS; i++)
		if (threads[i])
			pthread_join(threads[i], NULL);

	watchdog_step("restoring the sample rate to %d", rate);
	if (set_perf_max_sample_rate(rate))
		ktap_diag("cannot restore the sample rate %d: %s", rate, strerror(errno));

	for (i = 0; i < NR_THREADS; i++) {
		struct worker *w = &workers[i];

		ktap_diag("thread %d: %ld CPU hops, %ld samples, %ld throttles", i, w->hops,
			  w->samples, w->throttles);
		/* MIN_HOPS or more CPU hops, AUX samples, throttles */
		snprintf(name, sizeof(name), "cpu_clock_throttle_migrate.thread_%d", i);
		failed |= !ktap_result(!w->error && w->hops >= MIN_HOPS && w->samples > 0 &&
				       w->throttles > 0, name);
	}
	failed |= !ktap_result(kmsg_splats(kmsg, 10) == 0, "cpu_clock_throttle_migrate.no_splat");
	return failed;
}
