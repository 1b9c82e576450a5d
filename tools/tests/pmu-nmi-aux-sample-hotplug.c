// SPDX-License-Identifier: GPL-2.0
/*
 * AUX samples in NMI context while CPUs go offline and online.
 *
 * A CPU-wide cs_etm session on each CPU, each with a cycles sampler (its
 * overflow is an NMI with pseudo-NMIs) that takes AUX samples, and busy
 * threads to trace, while CPUs 1-3 go offline and online in a loop. A CPU
 * going offline tears its TRBE down before perf removes the CPU's events,
 * so a sample in between must leave the TRBE alone; CPU PM and hotplug
 * state are checked under the AUX action guard. The boot log check (no
 * splat) is the main result; this program checks that the samples kept
 * coming, with trace, and that every sample is well formed.
 *
 * Needs CPU hotplug (the debug kernel): without it, it skips. Its name
 * puts it after aux-sample-steady, which needs the sample rate limit that
 * these cycles samplers lower.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "cpu-online.h"
#include "cpu-wide-session.h"
#include "watchdog.h"

#define NR_CPUS		4
#define LOOPS		6	/* offline and online of CPUs 1-3 */

static struct aux_session sessions[NR_CPUS];
static struct sample_counts counts[NR_CPUS];
static volatile int stop;

static int set_online(int cpu, int online)
{
	if (!set_cpu_online(cpu, online))
		return 0;
	ktap_diag("CPU %d %s: %s", cpu, online ? "online" : "offline", strerror(errno));
	return -1;
}

static void *busy(void *arg)
{
	(void)arg;
	while (!stop)
		spin_ms(10);
	return NULL;
}

int main(void)
{
	const char *names[] = {
		/*
		 * Cycles samplers of CPU-wide sessions take AUX samples with trace while
		 * CPUs 1-3 go offline and online
		 */
		"pmu_nmi_aux_sample_hotplug.samples_hold_trace",
		/* Every AUX sample taken across CPU hotplug is well formed and has the size asked for */
		"pmu_nmi_aux_sample_hotplug.samples_well_formed",
		/* CPUs 1-3 go offline and come back online under the sessions */
		"pmu_nmi_aux_sample_hotplug.cpus_back_online",
	};
	int type, cpu, loop, online_ok = 1, malformed = 0, i;
	pthread_t threads[NR_CPUS];
	struct sample_counts total = {};

	ktap_plan("pmu_nmi_aux_sample_hotplug", 3);
	watchdog_start(120);
	type = pmu_type("cs_etm");
	if (access("/sys/devices/system/cpu/cpu1/online", W_OK)) {
		for (i = 0; i < 3; i++)
			ktap_skip(names[i], "no CPU hotplug");
		return 0;
	}
	if (type < 0) {
		ktap_diag("no cs_etm PMU");
		for (i = 0; i < 3; i++)
			ktap_result(0, names[i]);
		return 1;
	}

	watchdog_step("opening a CPU-wide session on each CPU");
	for (cpu = 0; cpu < NR_CPUS; cpu++) {
		if (cpu_wide_session_open(&sessions[cpu], cpu, type)) {
			for (i = 0; i < 3; i++)
				ktap_result(0, names[i]);
			return 1;
		}
		aux_session_enable(&sessions[cpu]);
	}
	for (i = 0; i < NR_CPUS; i++)
		pthread_create(&threads[i], NULL, busy, NULL);

	for (loop = 0; loop < LOOPS && online_ok; loop++) {
		for (cpu = 1; cpu < NR_CPUS && online_ok; cpu++) {
			watchdog_step("CPU %d offline, loop %d", cpu, loop);
			if (set_online(cpu, 0))
				online_ok = 0;
			spin_ms(50);
			cpu_wide_sessions_read(sessions, counts, NR_CPUS);
			watchdog_step("CPU %d online, loop %d", cpu, loop);
			if (set_online(cpu, 1))
				online_ok = 0;
			spin_ms(100);
			cpu_wide_sessions_read(sessions, counts, NR_CPUS);
		}
	}

	watchdog_step("stopping the sessions");
	stop = 1;
	for (i = 0; i < NR_CPUS; i++)
		pthread_join(threads[i], NULL);
	for (cpu = 0; cpu < NR_CPUS; cpu++)
		aux_session_disable(&sessions[cpu]);
	cpu_wide_sessions_read(sessions, counts, NR_CPUS);
	for (cpu = 0; cpu < NR_CPUS; cpu++) {
		ktap_diag("CPU %d: %lu samples, %lu with trace, %lu without AUX data, %lu of a wrong size",
			  cpu, counts[cpu].samples, counts[cpu].with_trace, counts[cpu].no_aux,
			  counts[cpu].bad_size);
		total.samples += counts[cpu].samples;
		total.with_trace += counts[cpu].with_trace;
		total.bad_size += counts[cpu].bad_size;
		malformed += sessions[cpu].malformed;
		aux_session_close(&sessions[cpu]);
	}
	/* CPU 0 never goes offline: its samples must carry trace throughout */
	ktap_result(counts[0].samples > 0 && counts[0].with_trace > 0 && total.with_trace > 0,
		    names[0]);
	ktap_result(total.samples > 0 && !total.bad_size && !malformed, names[1]);
	ktap_result(online_ok, names[2]);
	watchdog_step("done");
	return 0;
}
