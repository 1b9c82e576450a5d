// SPDX-License-Identifier: GPL-2.0
/*
 * init of the CI boot: mount the pseudo file systems, run every program
 * in /tests in name order, then power off. KUnit has already run, built
 * in, before init; its KTAP is on the console.
 *
 * ci/ktap-results.py reads what init prints: how many programs it found,
 * then for each "# boot test: PATH", the program's own KTAP, and
 * "# boot test: PATH exit N" (or "killed by signal N"), and at the end
 * "# boot tests: done". A program that crashes, exits non-zero without a
 * failed test or prints fewer results than its plan fails there.
 *
 * With cs_etm_fuzz=SECONDS on the kernel command line (and maybe
 * cs_etm_fuzz_seed=SEED), init also runs the fuzzer /fuzz/cs-etm-fuzz
 * for that long, after the tests, with hardware samplers (-H): ci/test.sh
 * asks for it in the debug boot only.
 */
#include <dirent.h>
#include <linux/perf_event.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/reboot.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

static int by_name(const struct dirent **a, const struct dirent **b)
{
	return strcmp((*a)->d_name, (*b)->d_name);
}

static int not_hidden(const struct dirent *d)
{
	return d->d_name[0] != '.';
}

static void run(char *const argv[])
{
	const char *path = argv[0];
	pid_t pid;
	int status;

	printf("# boot test: %s\n", path);
	fflush(stdout);
	pid = fork();
	if (pid == 0) {
		execv(path, argv);
		perror(path);
		_exit(127);
	}
	if (pid < 0 || waitpid(pid, &status, 0) < 0) {
		printf("# boot test: %s could not run\n", path);
		return;
	}
	if (WIFEXITED(status))
		printf("# boot test: %s exit %d\n", path, WEXITSTATUS(status));
	else
		printf("# boot test: %s killed by signal %d\n", path, WTERMSIG(status));
	fflush(stdout);
}

/* The value of kernel command line parameter @name, or NULL */
static const char *cmdline_param(const char *name, char *buf, size_t len)
{
	static char cmdline[4096];
	size_t n = strlen(name);
	char *p, *save;
	FILE *f;

	f = fopen("/proc/cmdline", "r");
	if (!f)
		return NULL;
	if (!fgets(cmdline, sizeof(cmdline), f))
		cmdline[0] = 0;
	fclose(f);
	for (p = strtok_r(cmdline, " \n", &save); p; p = strtok_r(NULL, " \n", &save)) {
		if (!strncmp(p, name, n) && p[n] == '=') {
			snprintf(buf, len, "%s", p + n + 1);
			return buf;
		}
	}
	return NULL;
}

static int fuzzer_asked(void)
{
	char seconds[32];

	return cmdline_param("cs_etm_fuzz", seconds, sizeof(seconds)) != NULL;
}

static void run_fuzzer(void)
{
	char seconds[32], seed[32];
	char *argv[] = { "/fuzz/cs-etm-fuzz", "-H", "-t", seconds, NULL, NULL, NULL };

	if (!cmdline_param("cs_etm_fuzz", seconds, sizeof(seconds)))
		return;
	if (cmdline_param("cs_etm_fuzz_seed", seed, sizeof(seed))) {
		argv[4] = "-s";
		argv[5] = seed;
	}
	run(argv);
}

/*
 * Keep perf's scheduler hooks patched in for the whole boot: open a
 * disabled per-task event of init and never close it. perf enables the
 * static key perf_sched_events when the first per-task event opens and
 * disables it a second after the last one closes, and each flip patches
 * the scheduler's text while the other CPUs run it. QEMU 7.2's TCG can
 * go on running a stale translation of such text (see
 * tools/qemu/tests/smc-race): a skipped perf_event_task_sched_out() left
 * a task's perf context scheduled in on a CPU it had left, and perf core
 * warned (event_function(), ctx_sched_in()). Held on, the key flips once,
 * here, before any test; on real hardware flipping it is safe, and the
 * tests mean to test the events, not the key.
 */
static void hold_perf_sched_events(void)
{
	struct perf_event_attr attr = {
		.size = sizeof(attr),
		.type = PERF_TYPE_SOFTWARE,
		.config = PERF_COUNT_SW_DUMMY,
		.disabled = 1,
	};
	long fd = syscall(SYS_perf_event_open, &attr, 0, -1, -1, PERF_FLAG_FD_CLOEXEC);

	if (fd < 0)
		printf("# init: cannot hold perf's scheduler hooks on: %m\n");
}

int main(void)
{
	struct dirent **tests;
	char path[300];
	int i, n;

	mount("proc", "/proc", "proc", 0, NULL);
	mount("sysfs", "/sys", "sysfs", 0, NULL);
	mount("debugfs", "/sys/kernel/debug", "debugfs", 0, NULL);
	setvbuf(stdout, NULL, _IOLBF, 0);
	hold_perf_sched_events();

	printf("# boot tests: start\n");
	n = scandir("/tests", &tests, not_hidden, by_name);
	if (n < 0)
		printf("# boot tests: cannot list /tests: %m\n");
	else
		printf("# boot tests: %d programs\n", n + fuzzer_asked());
	for (i = 0; i < n; i++) {
		snprintf(path, sizeof(path), "/tests/%s", tests[i]->d_name);
		run((char *[]){ path, NULL });
	}
	run_fuzzer();
	printf("# boot tests: done\n");
	fflush(stdout);

	sync();
	reboot(RB_POWER_OFF);
	return 0;
}
