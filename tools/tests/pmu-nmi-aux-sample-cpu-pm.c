// SPDX-License-Identifier: GPL-2.0
/*
 * AUX samples, pauses and resumes in NMI context while CPUs go in and out
 * of an idle state.
 *
 * ci/boot.sh gives every CPU a PSCI idle state in the device tree, so
 * cpuidle-psci runs the CPU PM notifiers around each idle period, as on
 * real systems: CoreSight saves and disables the trace path of the CPU's
 * perf session on the way in and restores it on the way out (the series
 * makes CPU PM hold the AUX action guard meanwhile). A CPU-wide cs_etm
 * session on each CPU has three cycles samplers, whose overflows are
 * NMIs: one takes AUX samples, one pauses the trace, one resumes it. One
 * thread per CPU alternates short busy periods and sleeps, so that each
 * CPU goes idle thousands of times with its session active, and NMIs
 * come in on both sides of the save and the restore.
 *
 * The boot log check (no splat) is the main result. This program checks
 * that the CPUs did enter the idle state while the sessions ran, that
 * samples kept coming with trace, and that every sample is well formed.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "aux-session.h"
#include "watchdog.h"

#define NR_CPUS		4
#define SAMPLE_SIZE	4096
#define RUN_MS		6000
#define MIN_IDLE	20	/* idle entries per CPU while the sessions run */

struct counts {
	unsigned long samples, with_trace, bad_size, no_aux;
};

static struct aux_session sessions[NR_CPUS];
static int pause_fd[NR_CPUS] = { -1, -1, -1, -1 };
static int resume_fd[NR_CPUS] = { -1, -1, -1, -1 };
static struct counts counts[NR_CPUS];
static volatile int stop;

/* How often @cpu entered its idle state 1 (the PSCI one), or -1 */
static long idle_entries(int cpu)
{
	char path[96];
	long n = -1;
	FILE *f;

	snprintf(path, sizeof(path), "/sys/devices/system/cpu/cpu%d/cpuidle/state1/usage", cpu);
	f = fopen(path, "r");
	if (!f)
		return -1;
	if (fscanf(f, "%ld", &n) != 1)
		n = -1;
	fclose(f);
	return n;
}

static void count_sample(const struct perf_event_header *h, const uint8_t *rec, void *arg)
{
	const struct aux_sample_rec *s = (const void *)rec;
	struct counts *c = arg;
	uint64_t i;

	if (h->type != PERF_RECORD_SAMPLE)
		return;
	c->samples++;
	/* An overflow while the group is being scheduled out takes no AUX data */
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

/* A cycles event on @cpu in the group of @leader: an NMI every @period cycles */
static int open_cycles(struct perf_event_attr *attr, int cpu, int leader, unsigned long period)
{
	attr->size = sizeof(*attr);
	cycles_sampler(attr);
	attr->sample_period = period;
	return perf_event_open(attr, -1, cpu, leader, 0);
}

/*
 * A CPU-wide cs_etm leader on @cpu with a cycles sampler taking AUX
 * samples, and cycles events that pause and resume the trace
 */
static int open_cpu_wide(int cpu, int type)
{
	struct aux_session *s = &sessions[cpu];
	struct perf_event_attr leader, attr;
	long page = aux_page_size();

	memset(s, 0, sizeof(*s));
	cs_etm_leader_attr(&leader, type);
	s->leader = perf_event_open(&leader, -1, cpu, -1, 0);
	if (s->leader < 0) {
		ktap_diag("cs_etm event on CPU %d: %s", cpu, strerror(errno));
		return -1;
	}
	aux_sampler_attr(&attr, SAMPLE_SIZE);
	s->siblings[0] = open_cycles(&attr, cpu, s->leader, 1000000);
	if (s->siblings[0] < 0) {
		ktap_diag("cycles sampler on CPU %d: %s", cpu, strerror(errno));
		return -1;
	}
	s->nr_siblings = 1;
	/* Periods that are prime to each other: pauses and resumes interleave */
	memset(&attr, 0, sizeof(attr));
	attr.aux_pause = 1;
	pause_fd[cpu] = open_cycles(&attr, cpu, s->leader, 700001);
	memset(&attr, 0, sizeof(attr));
	attr.aux_resume = 1;
	resume_fd[cpu] = open_cycles(&attr, cpu, s->leader, 300007);
	if (pause_fd[cpu] < 0 || resume_fd[cpu] < 0) {
		ktap_diag("aux_pause/aux_resume cycles events on CPU %d: %s", cpu,
			  strerror(errno));
		return -1;
	}
	s->pc = mmap(NULL, (AUX_SESSION_DATA_PAGES + 1) * page, PROT_READ | PROT_WRITE,
		     MAP_SHARED, s->leader, 0);
	if (s->pc == MAP_FAILED) {
		ktap_diag("ring buffer of CPU %d: %s", cpu, strerror(errno));
		return -1;
	}
	if (ioctl(s->siblings[0], PERF_EVENT_IOC_SET_OUTPUT, s->leader)) {
		ktap_diag("sampler output of CPU %d: %s", cpu, strerror(errno));
		return -1;
	}
	s->aux_size = 64 * page;
	s->pc->aux_offset = (AUX_SESSION_DATA_PAGES + 1) * page;
	s->pc->aux_size = s->aux_size;
	s->aux = mmap(NULL, s->aux_size, PROT_READ, MAP_SHARED, s->leader, s->pc->aux_offset);
	if (s->aux == MAP_FAILED) {
		ktap_diag("AUX buffer of CPU %d: %s", cpu, strerror(errno));
		return -1;
	}
	return 0;
}

static void close_cpu_wide(int cpu)
{
	if (pause_fd[cpu] >= 0)
		close(pause_fd[cpu]);
	if (resume_fd[cpu] >= 0)
		close(resume_fd[cpu]);
	pause_fd[cpu] = resume_fd[cpu] = -1;
	aux_session_close(&sessions[cpu]);
}

/* Work and sleep on CPU @arg, so that it goes idle often with its session on */
static void *work_and_sleep(void *arg)
{
	pin_to_cpu((int)(long)arg);
	while (!stop) {
		spin_ms(1);
		usleep(2000);
	}
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
		"each CPU entered its PSCI idle state 20 or more times with its CPU-wide cs_etm session on",
		"cycles samplers of CPU-wide sessions take AUX samples with trace on each CPU across idle periods",
		"every AUX sample taken across idle periods is well formed and has the size asked for",
	};
	long idle_before[NR_CPUS], idle_delta[NR_CPUS];
	int type, cpu, i, ok_idle = 1, ok_trace = 1, malformed = 0, started = 0;
	pthread_t threads[NR_CPUS];
	struct counts total = {};

	ktap_plan("pmu-nmi-aux-sample-cpu-pm", 3);
	watchdog_start(60);
	type = pmu_type("cs_etm");
	if (type < 0)
		ktap_diag("no cs_etm PMU");
	/* Without the idle state, the sessions still run: only the first check fails */
	for (cpu = 0; cpu < NR_CPUS; cpu++) {
		if (idle_entries(cpu) < 0) {
			ktap_diag("CPU %d has no idle state 1: no idle states in the device tree?",
				  cpu);
			ok_idle = 0;
		}
	}

	watchdog_step("opening a CPU-wide session on each CPU");
	for (cpu = 0; cpu < NR_CPUS && type >= 0; cpu++) {
		if (open_cpu_wide(cpu, type)) {
			type = -1;
			break;
		}
	}
	if (type < 0) {
		for (cpu = 0; cpu < NR_CPUS; cpu++)
			close_cpu_wide(cpu);
		for (i = 0; i < 3; i++)
			ktap_result(0, names[i]);
		return 1;
	}
	for (cpu = 0; cpu < NR_CPUS; cpu++) {
		aux_session_enable(&sessions[cpu]);
		idle_before[cpu] = idle_entries(cpu);
	}

	for (i = 0; i < NR_CPUS; i++) {
		if (pthread_create(&threads[i], NULL, work_and_sleep, (void *)(long)i))
			break;
		started++;
	}
	for (i = 0; i < RUN_MS / 100; i++) {
		watchdog_step("working and sleeping on each CPU, %d ms in", i * 100);
		usleep(100000);
		drain();
	}

	watchdog_step("stopping the sessions");
	stop = 1;
	for (i = 0; i < started; i++)
		pthread_join(threads[i], NULL);
	for (cpu = 0; cpu < NR_CPUS; cpu++) {
		idle_delta[cpu] = idle_before[cpu] < 0 ? -1 : idle_entries(cpu) - idle_before[cpu];
		aux_session_disable(&sessions[cpu]);
	}
	drain();
	for (cpu = 0; cpu < NR_CPUS; cpu++) {
		ktap_diag("CPU %d: %ld idle entries, %lu samples, %lu with trace, %lu without AUX data, %lu of a wrong size",
			  cpu, idle_delta[cpu], counts[cpu].samples, counts[cpu].with_trace,
			  counts[cpu].no_aux, counts[cpu].bad_size);
		if (idle_delta[cpu] < MIN_IDLE)
			ok_idle = 0;
		if (!counts[cpu].with_trace)
			ok_trace = 0;
		total.samples += counts[cpu].samples;
		total.bad_size += counts[cpu].bad_size;
		malformed += sessions[cpu].malformed;
		close_cpu_wide(cpu);
	}
	ktap_result(started == NR_CPUS && ok_idle, names[0]);
	ktap_result(ok_trace, names[1]);
	ktap_result(total.samples > 0 && !total.bad_size && !malformed, names[2]);
	watchdog_step("done");
	return 0;
}
