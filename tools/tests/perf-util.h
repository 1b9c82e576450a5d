/* SPDX-License-Identifier: GPL-2.0 */
/*
 * perf_event_open() helpers for the boot tests. Include it with
 * _GNU_SOURCE defined first, for sched_setaffinity().
 */
#ifndef PERF_UTIL_H
#define PERF_UTIL_H

#include <errno.h>
#include <linux/perf_event.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

static inline int perf_event_open(struct perf_event_attr *attr, pid_t pid,
				  int cpu, int group_fd, unsigned long flags)
{
	return syscall(__NR_perf_event_open, attr, pid, cpu, group_fd, flags);
}

/* The type of a dynamic PMU, or -1 if the PMU is not registered */
static inline int pmu_type(const char *pmu)
{
	char path[128];
	FILE *f;
	int type;

	snprintf(path, sizeof(path), "/sys/bus/event_source/devices/%s/type", pmu);
	f = fopen(path, "r");
	if (!f)
		return -1;
	if (fscanf(f, "%d", &type) != 1)
		type = -1;
	fclose(f);
	return type;
}

/*
 * The lowest bit of format field @name of the cs_etm PMU ("config:14"),
 * or -1 if the PMU has no such field
 */
static inline int cs_etm_format_bit(const char *name)
{
	char path[160], buf[64] = "";
	FILE *f;

	snprintf(path, sizeof(path), "/sys/bus/event_source/devices/cs_etm/format/%s", name);
	f = fopen(path, "r");
	if (!f)
		return -1;
	if (!fgets(buf, sizeof(buf), f))
		buf[0] = 0;
	fclose(f);
	return strchr(buf, ':') ? atoi(strchr(buf, ':') + 1) : -1;
}

/* The sink id (config2 sinkid) of sink @name of the cs_etm PMU, or 0 */
static inline unsigned int cs_etm_sink_id(const char *name)
{
	char path[160];
	unsigned int id = 0;
	FILE *f;

	snprintf(path, sizeof(path), "/sys/bus/event_source/devices/cs_etm/sinks/%s", name);
	f = fopen(path, "r");
	if (!f)
		return 0;
	if (fscanf(f, "%x", &id) != 1)
		id = 0;
	fclose(f);
	return id;
}

/* A disabled cs_etm event tracing the calling thread */
static inline void cs_etm_attr(struct perf_event_attr *attr, int type)
{
	memset(attr, 0, sizeof(*attr));
	attr->size = sizeof(*attr);
	attr->type = type;
	attr->disabled = 1;
	attr->exclude_kernel = 0;
}

/* A cpu-clock event that samples the AUX area of its group leader */
static inline void aux_sampler_attr(struct perf_event_attr *attr,
				    unsigned int aux_sample_size)
{
	memset(attr, 0, sizeof(*attr));
	attr->size = sizeof(*attr);
	attr->type = PERF_TYPE_SOFTWARE;
	attr->config = PERF_COUNT_SW_CPU_CLOCK;
	attr->sample_period = 1000000;
	attr->sample_type = PERF_SAMPLE_TID | PERF_SAMPLE_CPU | PERF_SAMPLE_AUX;
	attr->aux_sample_size = aux_sample_size;
}

/*
 * Make sampler @attr count CPU cycles, a PMUv3 event, instead of cpu-clock:
 * its overflow is the PMU interrupt, an NMI with pseudo-NMIs, so AUX
 * samples, pauses and resumes run in NMI context. The period stays: QEMU's
 * cycle counter runs at 1GHz of virtual time, so that a period in cycles
 * takes as long as the same period of cpu-clock in ns.
 */
static inline void cycles_sampler(struct perf_event_attr *attr)
{
	attr->type = PERF_TYPE_HARDWARE;
	attr->config = PERF_COUNT_HW_CPU_CYCLES;
}

/*
 * Whether this thread can count CPU cycles: a PMU that the kernel drives.
 * Without one, perf_event_open() fails with ENOENT (no PMU takes the
 * event) or EOPNOTSUPP (it cannot sample); errno tells.
 */
static inline int have_cycles(void)
{
	struct perf_event_attr attr;
	int fd;

	memset(&attr, 0, sizeof(attr));
	attr.size = sizeof(attr);
	cycles_sampler(&attr);
	attr.sample_period = 1000000;
	attr.disabled = 1;
	fd = perf_event_open(&attr, 0, -1, -1, 0);
	if (fd < 0)
		return 0;
	close(fd);
	return 1;
}

/* Run on CPU @cpu only */
static inline void pin_to_cpu(int cpu)
{
	cpu_set_t set;

	CPU_ZERO(&set);
	CPU_SET(cpu, &set);
	sched_setaffinity(0, sizeof(set), &set);
}

/*
 * Make the calling thread SCHED_FIFO: no SCHED_OTHER task, kworkers
 * included, preempts it, so that its per-thread events stay scheduled in
 * while it runs. 0, or -1 with errno set.
 */
static inline int run_sched_fifo(void)
{
	struct sched_param fifo = { .sched_priority = 1 };

	return sched_setscheduler(0, SCHED_FIFO, &fifo);
}

/* The context switches of the calling thread so far, voluntary or not */
static inline long thread_context_switches(void)
{
	struct rusage ru;

	if (getrusage(RUSAGE_THREAD, &ru))
		return -1;
	return ru.ru_nvcsw + ru.ru_nivcsw;
}

/*
 * The interrupts taken by @cpu so far of the interrupt whose line in
 * /proc/interrupts names @name; -1 if there is none
 */
static inline long cpu_interrupts(const char *name, int cpu)
{
	char line[512];
	long n = -1;
	FILE *f = fopen("/proc/interrupts", "r");

	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f)) {
		char *p = line;
		int i;

		if (!strstr(line, name))
			continue;
		strtol(p, &p, 10);	/* the IRQ number */
		p++;			/* its colon */
		for (i = 0; i <= cpu; i++)
			n = strtol(p, &p, 10);
	}
	fclose(f);
	return n;
}

/* The TRBE maintenance interrupts taken by @cpu so far; -1 if none */
static inline long trbe_interrupts(int cpu)
{
	return cpu_interrupts("trbe", cpu);
}

#define PERF_MAX_SAMPLE_RATE "/proc/sys/kernel/perf_event_max_sample_rate"

/* kernel.perf_event_max_sample_rate, which perf core lowers under load; -1 if unreadable */
static inline int perf_max_sample_rate(void)
{
	FILE *f = fopen(PERF_MAX_SAMPLE_RATE, "r");
	int rate = -1;

	if (f) {
		if (fscanf(f, "%d", &rate) != 1)
			rate = -1;
		fclose(f);
	}
	return rate;
}

/* Set kernel.perf_event_max_sample_rate: 0, or -1 with errno set */
static inline int set_perf_max_sample_rate(int rate)
{
	FILE *f = fopen(PERF_MAX_SAMPLE_RATE, "w");
	int ok;

	if (!f)
		return -1;
	ok = fprintf(f, "%d\n", rate) > 0;
	return fclose(f) == 0 && ok ? 0 : -1;
}

/* Whether @ms milliseconds have passed since @t0 (CLOCK_MONOTONIC) */
static inline int ms_since(const struct timespec *t0, int ms)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return (t.tv_sec - t0->tv_sec) * 1000 + (t.tv_nsec - t0->tv_nsec) / 1000000 >= ms;
}

/* Busy loop for @ms milliseconds: code for the trace unit to trace */
static inline void spin_ms(int ms)
{
	struct timespec t0;
	static volatile unsigned long x;

	clock_gettime(CLOCK_MONOTONIC, &t0);
	do {
		x++;
	} while (!ms_since(&t0, ms));
}
#endif
