// SPDX-License-Identifier: GPL-2.0
/*
 * init of the CI boot: mount the pseudo file systems, run every program
 * in /tests in name order, then power off. KUnit has already run, built
 * in, before init; its KTAP is on the console.
 */
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/reboot.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

static int by_name(const struct dirent **a, const struct dirent **b)
{
	return strcmp((*a)->d_name, (*b)->d_name);
}

static void run(const char *path)
{
	pid_t pid;
	int status;

	printf("# boot test: %s\n", path);
	fflush(stdout);
	pid = fork();
	if (pid == 0) {
		execl(path, path, (char *)NULL);
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

int main(void)
{
	struct dirent **tests;
	char path[300];
	int i, n;

	mount("proc", "/proc", "proc", 0, NULL);
	mount("sysfs", "/sys", "sysfs", 0, NULL);
	mount("debugfs", "/sys/kernel/debug", "debugfs", 0, NULL);
	setvbuf(stdout, NULL, _IOLBF, 0);

	printf("# boot tests: start\n");
	n = scandir("/tests", &tests, NULL, by_name);
	for (i = 0; i < n; i++) {
		if (tests[i]->d_name[0] == '.')
			continue;
		snprintf(path, sizeof(path), "/tests/%s", tests[i]->d_name);
		run(path);
	}
	printf("# boot tests: done\n");
	fflush(stdout);

	sync();
	reboot(RB_POWER_OFF);
	return 0;
}
