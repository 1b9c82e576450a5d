// SPDX-License-Identifier: GPL-2.0
/*
 * The series' perf test of AUX area sampling, run as a user runs it: in
 * the QEMU boot of ci/perf-test.sh, with the static arm64 perf, busybox as
 * the shell and tools, and perf's shell tests where an installed perf
 * has them (PERF_CORE/tests/shell). Runs
 *
 *	perf test -vv "CoreSight AUX area sampling with a per-CPU sink"
 *
 * copies its output to the console as KTAP diagnostics and reports its
 * result as one KTAP test: perf test's "Ok" passes, "Skip" is a skip with
 * the test's own reason, anything else fails. The result's name says
 * whether the machine has TRBEs, so that the boot of each model of
 * ci/perf-test.sh reports a test of its own.
 */
#include <fcntl.h>
#include <glob.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "watchdog.h"

#define TEST		"CoreSight AUX area sampling with a per-CPU sink"
#define PERF_CORE	"/usr/libexec/perf-core"
#define OUTPUT		"/tmp/perf-test.out"
/* The test records for a second and decodes on an emulated CPU */
#define TEST_SECONDS	300
#define WATCHDOG_SECONDS 400

/* Whether the machine has a TRBE, the per-CPU sink the test needs */
static int has_trbe(void)
{
	glob_t g;
	int ret = !glob("/sys/bus/coresight/devices/trbe*", 0, NULL, &g);

	if (ret)
		globfree(&g);
	return ret;
}

/* Run @argv with its output in OUTPUT; its wait status, or -1 */
static int run(const char *const argv[], int secs)
{
	pid_t pid;
	int fd;

	fflush(stdout);
	pid = fork();
	if (pid == 0) {
		fd = open(OUTPUT, O_WRONLY | O_CREAT | O_TRUNC, 0644);
		if (fd < 0 || dup2(fd, 1) < 0 || dup2(fd, 2) < 0)
			_exit(126);
		execv(argv[0], (char *const *)argv);
		_exit(127);
	}
	if (pid < 0)
		return -1;
	return watchdog_reap(pid, secs, watchdog_step_name);
}

int main(void)
{
	static const char *const install[] = {
		"/bin/busybox", "--install", "-s", NULL };
	static const char *const perf_test[] = {
		"/usr/bin/perf", "test", "-vv", TEST, NULL };
	char line[512], result[128] = "", reason[256] = "", name[128];
	int status, results = 0;
	FILE *f;

	setvbuf(stdout, NULL, _IOLBF, 0);
	printf("TAP version 13\n1..1\n");
	/* perf test TEST, on a machine with (without) TRBEs */
	snprintf(name, sizeof(name), "perf_test.aux_sample_%s", has_trbe() ? "trbe" : "no_trbe");
	watchdog_start(WATCHDOG_SECONDS);

	/* The shell and tools of the test: busybox's applets, as links */
	watchdog_step("busybox --install");
	mkdir("/tmp", 01777);
	status = run(install, 30);
	if (status != 0) {
		printf("# busybox --install: status %d\n", status);
		printf("not ok 1 %s\n", name);
		return 0;
	}
	setenv("PATH", "/usr/bin:/bin:/usr/sbin:/sbin", 1);
	/* perf finds its shell tests in ./tests/shell, as in its source tree */
	if (chdir(PERF_CORE)) {
		printf("# cannot enter %s: %m\n", PERF_CORE);
		printf("not ok 1 %s\n", name);
		return 0;
	}

	watchdog_step("perf test");
	status = run(perf_test, TEST_SECONDS);
	printf("# perf test -vv \"%s\": status %d\n", TEST, status);

	f = fopen(OUTPUT, "r");
	while (f && fgets(line, sizeof(line), f)) {
		char *desc = strstr(line, ": " TEST), *p;

		line[strcspn(line, "\n")] = '\0';
		printf("# %s\n", line);
		p = strstr(line, "[Skip] ");
		if (p)
			snprintf(reason, sizeof(reason), "%s", p + 7);
		/* The result line: "NNN: TEST   : Ok" (or FAILED!, Skip) */
		if (!desc || desc == line)
			continue;
		p = desc + 2 + strlen(TEST);
		p += strspn(p, " ");
		if (*p != ':')
			continue;
		p += 1 + strspn(p + 1, " ");
		/* Not the progress line "NNN: TEST : Running (1 active)" */
		if (strncmp(p, "Ok", 2) && strncmp(p, "FAILED", 6) && strncmp(p, "Skip", 4))
			continue;
		snprintf(result, sizeof(result), "%s", p);
		results++;
	}
	if (f)
		fclose(f);

	if (results != 1)
		printf("# %d results of the test, not one\n", results);
	if (results == 1 && !strncmp(result, "Skip", 4))
		printf("ok 1 %s # SKIP %s\n", name, reason);
	else if (results == 1 && !strcmp(result, "Ok") && status == 0)
		printf("ok 1 %s\n", name);
	else
		printf("not ok 1 %s\n", name);
	return 0;
}
