// SPDX-License-Identifier: GPL-2.0
/*
 * Reproducer of the QEMU race of 0101 (see README.md here): the
 * sequence of the kselftest aux_pause_orphan in forked children, four
 * workers at once, 3000 rounds each, until the kernel is tainted. Each
 * child opens the first per-task events after the last ones closed, so
 * perf_sched_events flips while the other vCPUs run the scheduler (a
 * jiffy later with debug-perf-hooks.diff, and only with an init that
 * does not hold a per-task event open, as tools/initramfs/init.c does).
 */
#define _GNU_SOURCE
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <sys/ioctl.h>
#include <sys/wait.h>

#include "aux-session.h"

static int cs_etm_type;

static int tainted(void)
{
	char t[32] = "";
	FILE *f = fopen("/proc/sys/kernel/tainted", "r");

	if (f) {
		if (!fgets(t, sizeof(t), f))
			t[0] = 0;
		fclose(f);
	}
	return strtoul(t, NULL, 10) & (1 << 9);
}

static void child(int cycles)
{
	struct perf_event_attr attr;
	int leader, sampler;
	void *ring;

	memset(&attr, 0, sizeof(attr));
	attr.size = sizeof(attr);
	attr.type = cs_etm_type;
	attr.disabled = 1;
	leader = perf_event_open(&attr, 0, -1, -1, 0);
	if (leader < 0)
		_exit(2);
	memset(&attr, 0, sizeof(attr));
	attr.size = sizeof(attr);
	if (cycles) {
		attr.type = PERF_TYPE_HARDWARE;
		attr.config = PERF_COUNT_HW_CPU_CYCLES;
		attr.sample_period = 1000000;
	} else {
		attr.type = PERF_TYPE_SOFTWARE;
		attr.config = PERF_COUNT_SW_CPU_CLOCK;
		attr.sample_period = 100000;
	}
	attr.sample_type = PERF_SAMPLE_TID;
	attr.disabled = 1;
	attr.aux_pause = 1;
	sampler = perf_event_open(&attr, 0, -1, leader, 0);
	if (sampler < 0)
		_exit(3);
	ring = mmap(NULL, 9 * 4096, PROT_READ | PROT_WRITE, MAP_SHARED, sampler, 0);
	if (ring == MAP_FAILED)
		_exit(4);
	close(leader);
	ioctl(sampler, PERF_EVENT_IOC_ENABLE, 0);
	spin_ms(5);
	ioctl(sampler, PERF_EVENT_IOC_DISABLE, 0);
	munmap(ring, 9 * 4096);
	close(sampler);
	_exit(0);
}

int main(void)
{
	int w, workers = 4, rounds = 3000;

	cs_etm_type = pmu_type("cs_etm");
	printf("# hunt-orphan: cs_etm type %d\n", cs_etm_type);
	for (w = 0; w < workers; w++) {
		if (fork() == 0) {
			for (int i = 0; i < rounds && !tainted(); i++) {
				pid_t p = fork();
				int st;

				if (p == 0)
					child(i & 1);
				waitpid(p, &st, 0);
				if (!WIFEXITED(st) || WEXITSTATUS(st))
					printf("# worker %d round %d: status %#x\n", w, i, st);
			}
			_exit(0);
		}
	}
	while (wait(NULL) > 0)
		;
	printf("# hunt-orphan: done, tainted %d\n", tainted());
	return 0;
}
