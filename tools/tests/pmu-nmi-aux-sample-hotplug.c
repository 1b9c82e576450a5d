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

#include "aux-session.h"
#include "cpu-online.h"
#include "watchdog.h"

#define NR_CPUS		4
#define SAMPLE_SIZE	4096
#define LOOPS		6	/* offline and online of CPUs 1-3 */

struct counts {
	unsigned long samples, with_trace, bad_size, no_aux;
};

static struct aux_session sessions[NR_CPUS];
static struct counts counts[NR_CPUS];
static volatile int stop;

static int set_online(int cpu, int online)
{
	if (!set_cpu_online(cpu, online))
		return 0;
	ktap_diag("CPU %d %s: %s", cpu, online ? "online" : "offline", strerror(errno));
	return -1;
}

static void count_sample(const struct perf_event_header *h, const uint8_t *rec, void *arg)
{
	const struct aux_sample_rec *s = (const void *)rec;
	struct counts *c = arg;
	uint64_t i;

	if (h->type != PERF_RECORD_SAMPLE)
		return;
	c->samples++;
	/*
	 * An overflow that comes in while the group is being scheduled out,
	 * after the AUX event, takes no AUX data (see aux_sample_trbe)
	 */
	if (!s->size) {
		c->no_aux++;
		return;
	}
	if (s->size != SAMPLE_SIZE) {
		c->bad_size++;
		return;
	}
	for (i = 0; i < s->size; i++) {
		if (s->data[i]) {
			c->with_trace++;
			break;
		}
	}
}

/* A CPU-wide cs_etm leader on @cpu with a cycles sampler taking AUX samples */
static int open_cpu_wide(struct aux_session *s, int cpu, int type)
{
	struct perf_event_attr leader, sampler;
	long page = aux_page_size();

	memset(s, 0, sizeof(*s));
	cs_etm_leader_attr(&leader, type);
	s->leader = perf_event_open(&leader, -1, cpu, -1, 0);
	if (s->leader < 0) {
		ktap_diag("cs_etm event on CPU %d: %s", cpu, strerror(errno));
		return -1;
	}
	aux_sampler_attr(&sampler, SAMPLE_SIZE);
	sampler.type = PERF_TYPE_HARDWARE;
	sampler.config = PERF_COUNT_HW_CPU_CYCLES;
	sampler.sample_period = 1000000;
	s->siblings[0] = perf_event_open(&sampler, -1, cpu, s->leader, 0);
	if (s->siblings[0] < 0) {
		ktap_diag("cycles sampler on CPU %d: %s", cpu, strerror(errno));
		aux_session_close(s);
		return -1;
	}
	s->nr_siblings = 1;
	s->pc = mmap(NULL, (AUX_SESSION_DATA_PAGES + 1) * page, PROT_READ | PROT_WRITE,
		     MAP_SHARED, s->leader, 0);
	if (s->pc == MAP_FAILED) {
		ktap_diag("ring buffer of CPU %d: %s", cpu, strerror(errno));
		aux_session_close(s);
		return -1;
	}
	if (ioctl(s->siblings[0], PERF_EVENT_IOC_SET_OUTPUT, s->leader)) {
		ktap_diag("sampler output of CPU %d: %s", cpu, strerror(errno));
		aux_session_close(s);
		return -1;
	}
	s->aux_size = 64 * page;
	s->pc->aux_offset = (AUX_SESSION_DATA_PAGES + 1) * page;
	s->pc->aux_size = s->aux_size;
	s->aux = mmap(NULL, s->aux_size, PROT_READ, MAP_SHARED, s->leader, s->pc->aux_offset);
	if (s->aux == MAP_FAILED) {
		ktap_diag("AUX buffer of CPU %d: %s", cpu, strerror(errno));
		aux_session_close(s);
		return -1;
	}
	return 0;
}

static void *busy(void *arg)
{
	(void)arg;
	while (!stop)
		spin_ms(10);
	return NULL;
}

static void drain(void)
{
	int cpu;

	for (cpu = 0; cpu < NR_CPUS; cpu++)
		aux_session_read(&sessions[cpu], count_sample, &counts[cpu]);
}

int main(void)
{
	const char *names[] = {
		"cycles samplers of CPU-wide sessions take AUX samples with trace while CPUs 1-3 go offline and online",
		"every AUX sample taken across CPU hotplug is well formed and has the size asked for",
		"CPUs 1-3 go offline and come back online under the sessions",
	};
	int type, cpu, loop, online_ok = 1, malformed = 0, i;
	pthread_t threads[NR_CPUS];
	struct counts total = {};

	ktap_plan("pmu-nmi-aux-sample-hotplug", 3);
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
		if (open_cpu_wide(&sessions[cpu], cpu, type)) {
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
			drain();
			watchdog_step("CPU %d online, loop %d", cpu, loop);
			if (set_online(cpu, 1))
				online_ok = 0;
			spin_ms(100);
			drain();
		}
	}

	watchdog_step("stopping the sessions");
	stop = 1;
	for (i = 0; i < NR_CPUS; i++)
		pthread_join(threads[i], NULL);
	for (cpu = 0; cpu < NR_CPUS; cpu++)
		aux_session_disable(&sessions[cpu]);
	drain();
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
