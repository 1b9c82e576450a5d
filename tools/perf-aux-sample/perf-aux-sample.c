// SPDX-License-Identifier: GPL-2.0
/*
 * perf record with AUX area samples from cs_etm, in the QEMU boot of
 * ci/perf-sample-test.sh: run /usr/bin/perf record in each of the ways
 * below, with this program as the workload, and write every perf.data
 * to the console in base64 between markers, for the host's perf to check.
 *
 * Run with the argument "workload", it is the workload: calls through a
 * few functions for WORKLOAD_MS milliseconds, so that the trace has
 * branches with symbols to find.
 */
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "watchdog.h"

#define PERF		"/usr/bin/perf"
#define WORKLOAD_MS	300
/* A cpu-clock sample every 5ms: some 60 samples, so that the base64 stays small */
#define PERIOD		"period=5000000"
/*
 * The AUX area of the runs that must not wrap: the workload makes 4 to
 * 5MiB of trace on the model, more than perf's default of 4MiB, so that
 * the TRBE wrapped in every run, and a sample taken soon after it
 * restarted was padded without an A-Sync after its zeros (1 run in some
 * dozens)
 */
#define NO_WRAP		",32M"
/*
 * A perf record takes a few seconds on the model: one that has not ended
 * in RECORD_SECONDS is killed. The watchdog, above all the runs, ends the
 * program well before the boot's timeout (600 s).
 */
#define RECORD_SECONDS		60
#define WATCHDOG_SECONDS	400

struct run {
	const char *name;
	const char *args[12];
};

/* Each run is: perf record -o /NAME.data ARGS -- /tests/perf-aux-sample workload */
static const struct run runs[] = {
	/* --aux-sample with a size, the sampling event in the group */
	{ "aux-sample", { "-m", NO_WRAP, "-e", "{cs_etm//u,cpu-clock/" PERIOD "/}",
			  "--aux-sample=4096" } },
	/* --aux-sample with the default size */
	{ "default-size", { "-m", NO_WRAP, "-e", "{cs_etm//u,cpu-clock/" PERIOD "/}",
			    "--aux-sample" } },
	/* The aux-sample-size term, which puts the event in the group; no timestamps */
	{ "size-term", { "-m", NO_WRAP, "-e", "cs_etm/timestamp=0/u",
			 "-e", "cpu-clock/" PERIOD ",aux-sample-size=16384/" } },
	/*
	 * A 16KiB AUX area, which the TRBE fills in a few samples: it wraps,
	 * and the trace since it restarted need not start with an A-Sync
	 */
	{ "wrap", { "-m", ",16K", "-e", "{cs_etm//u,cpu-clock/" PERIOD "/}",
		    "--aux-sample=8192" } },
	/* Per-thread events, whose samples tell the CPU in PERF_SAMPLE_CPU only */
	{ "per-thread", { "--per-thread", "-m", NO_WRAP,
			  "-e", "{cs_etm//u,cpu-clock/" PERIOD "/}", "--aux-sample=4096" } },
	/*
	 * Branch stacks at a profiler's rate: a cpu-clock sample every 1ms,
	 * of 8KiB
	 */
	{ "rate-1khz", { "-m", NO_WRAP, "-e", "{cs_etm//u,cpu-clock/period=1000000/}",
			 "--aux-sample=8192" } },
	/* Snapshot mode and AUX area sampling: refused */
	{ "snapshot", { "-S", "-e", "{cs_etm//u,cpu-clock/" PERIOD "/}", "--aux-sample" } },
};

static __attribute__((noinline)) unsigned long workload_leaf(unsigned long x)
{
	return x % 7 ? x * 3 + 1 : x / 7;
}

static __attribute__((noinline)) unsigned long workload_step(unsigned long x)
{
	int i;

	for (i = 0; i < 16; i++)
		x = workload_leaf(x + i);
	return x;
}

static int workload(void)
{
	struct timespec t0, t;
	volatile unsigned long x = 1;

	clock_gettime(CLOCK_MONOTONIC, &t0);
	do {
		x = workload_step(x);
		clock_gettime(CLOCK_MONOTONIC, &t);
	} while ((t.tv_sec - t0.tv_sec) * 1000 +
		 (t.tv_nsec - t0.tv_nsec) / 1000000 < WORKLOAD_MS);
	return 0;
}

static int record(const struct run *run, const char *self, const char *out)
{
	const char *argv[32];
	int argc = 0, i, status;
	pid_t pid;

	argv[argc++] = PERF;
	argv[argc++] = "record";
	argv[argc++] = "-o";
	argv[argc++] = out;
	for (i = 0; run->args[i]; i++)
		argv[argc++] = run->args[i];
	argv[argc++] = "--";
	argv[argc++] = self;
	argv[argc++] = "workload";
	argv[argc] = NULL;

	printf("=== perf run %s:", run->name);
	for (i = 0; i < argc; i++)
		printf(" %s", argv[i]);
	printf("\n");
	fflush(stdout);

	pid = fork();
	if (pid == 0) {
		/* perf's messages go to the console too */
		dup2(1, 2);
		execv(PERF, (char **)argv);
		perror(PERF);
		_exit(127);
	}
	if (pid < 0)
		return -1;
	watchdog_step("perf record %s", run->name);
	status = watchdog_reap(pid, RECORD_SECONDS, watchdog_step_name);
	if (status < 0)
		return -1;
	return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}

/* Write @path to the console in base64, 76 characters a line */
static void dump(const char *name, const char *path)
{
	static const char b64[] =
		"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
	unsigned char in[57];
	char line[80];
	struct stat st;
	size_t n, i, o;
	FILE *f;

	f = fopen(path, "rb");
	if (!f || fstat(fileno(f), &st)) {
		printf("=== perf.data %s: cannot open %s\n", name, path);
		if (f)
			fclose(f);
		return;
	}
	printf("=== perf.data %s begin %lld\n", name, (long long)st.st_size);
	while ((n = fread(in, 1, sizeof(in), f)) > 0) {
		for (i = 0, o = 0; i < n; i += 3) {
			unsigned long v = in[i] << 16;

			v |= (i + 1 < n ? in[i + 1] : 0) << 8;
			v |= i + 2 < n ? in[i + 2] : 0;
			line[o++] = b64[v >> 18 & 63];
			line[o++] = b64[v >> 12 & 63];
			line[o++] = i + 1 < n ? b64[v >> 6 & 63] : '=';
			line[o++] = i + 2 < n ? b64[v & 63] : '=';
		}
		line[o] = '\0';
		puts(line);
	}
	printf("=== perf.data %s end\n", name);
	fflush(stdout);
	fclose(f);
}

int main(int argc, char *argv[])
{
	char out[64];
	size_t i;
	int ret;

	if (argc > 1 && !strcmp(argv[1], "workload"))
		return workload();

	setvbuf(stdout, NULL, _IOLBF, 0);
	watchdog_start(WATCHDOG_SECONDS);
	for (i = 0; i < sizeof(runs) / sizeof(runs[0]); i++) {
		snprintf(out, sizeof(out), "/%s.data", runs[i].name);
		ret = record(&runs[i], argv[0], out);
		printf("=== perf run %s: exit %d\n", runs[i].name, ret);
		if (!ret)
			dump(runs[i].name, out);
		unlink(out);
	}
	return 0;
}
