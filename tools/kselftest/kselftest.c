// SPDX-License-Identifier: GPL-2.0
/*
 * The series' kselftests (tools/testing/selftests/coresight), run as a
 * lab runs them: installed by the selftests build system in KSELFTEST
 * (ci/build-kselftests.sh) and started with the kernel's runner,
 * run_kselftest.sh, in busybox's shell, in the QEMU boot of
 * ci/kselftest.sh. The kernel has no binfmt_script, hence this program.
 *
 * The runner's KTAP goes to the console as it prints it: a plan of one
 * result per test program, each program's own KTAP nested under "# ",
 * which ci/ktap-results.py reads with its plan. Exits with the runner's
 * status; a runner still running after RUNNER_SECONDS is killed and the
 * watchdog names it (the runner's own timeout, from the test's settings
 * file, is shorter).
 */
#include <stdio.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "watchdog.h"

#define KSELFTEST	"/kselftest"
#define RUNNER_SECONDS	600

/* Run @argv, output to the console; its wait status, or -1 */
static int run(const char *const argv[], int secs, const char *what)
{
	pid_t pid;

	fflush(stdout);
	pid = fork();
	if (pid == 0) {
		execv(argv[0], (char *const *)argv);
		_exit(127);
	}
	if (pid < 0)
		return -1;
	return watchdog_reap(pid, secs, what);
}

/* A KTAP document of its own for a failure before the runner started */
static int not_run(const char *why)
{
	printf("TAP version 13\n1..1\n# %s\nnot ok 1 run_kselftest.sh\n", why);
	return 1;
}

int main(void)
{
	static const char *const install[] = {
		"/bin/busybox", "--install", "-s", NULL };
	static const char *const runner[] = {
		"/bin/sh", KSELFTEST "/run_kselftest.sh", NULL };
	int status;

	setvbuf(stdout, NULL, _IOLBF, 0);
	watchdog_start(RUNNER_SECONDS + 60);

	/* The shell and the tools of the runner (timeout): busybox's applets */
	mkdir("/tmp", 01777);
	status = run(install, 30, "busybox --install");
	if (status != 0)
		return not_run("busybox --install failed");
	setenv("PATH", "/usr/bin:/bin:/usr/sbin:/sbin", 1);

	status = run(runner, RUNNER_SECONDS, "run_kselftest.sh");
	if (status == -1)
		return 1;
	if (WIFSIGNALED(status)) {
		printf("# run_kselftest.sh: killed by signal %d\n", WTERMSIG(status));
		return 1;
	}
	return WEXITSTATUS(status);
}
