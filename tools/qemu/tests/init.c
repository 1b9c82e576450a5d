/* Minimal /init: mount, list CoreSight devices, run cstrace, power off. */
#include <dirent.h>
#include <linux/perf_event.h>
#include <sys/syscall.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/reboot.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

static void run(char *const argv[])
{
	pid_t p = fork();
	int st;

	if (p == 0) {
		execv(argv[0], argv);
		perror("execv");
		_exit(127);
	}
	waitpid(p, &st, 0);
	printf("init: %s %s exited %d\n", argv[0], argv[1] ? argv[1] : "",
	       WIFEXITED(st) ? WEXITSTATUS(st) : -1);
}

static void ls(const char *path)
{
	DIR *d = opendir(path);
	struct dirent *e;

	printf("init: ls %s:", path);
	if (!d) {
		printf(" (missing)\n");
		return;
	}
	while ((e = readdir(d)))
		if (e->d_name[0] != '.')
			printf(" %s", e->d_name);
	printf("\n");
	closedir(d);
}

static void cat(const char *path)
{
	char buf[256];
	FILE *f = fopen(path, "r");

	if (!f)
		return;
	while (fgets(buf, sizeof(buf), f))
		printf("init: %s: %s", path, buf);
	fclose(f);
}

int main(void)
{
	char cmdline[512] = "";
	FILE *f;

	mount("proc", "/proc", "proc", 0, NULL);
	mount("sysfs", "/sys", "sysfs", 0, NULL);
	mount("devtmpfs", "/dev", "devtmpfs", 0, NULL);
	setvbuf(stdout, NULL, _IOLBF, 0);

	ls("/sys/bus/coresight/devices");
	ls("/sys/bus/event_source/devices/cs_etm");
	cat("/sys/bus/event_source/devices/cs_etm/type");
	cat("/sys/bus/coresight/devices/ete0/mgmt/trcdevarch");
	cat("/sys/bus/coresight/devices/ete0/trcidr/trcidr0");
	cat("/sys/bus/coresight/devices/ete0/trcidr/trcidr2");
	cat("/sys/bus/coresight/devices/ete0/mgmt/trcconfigr");
	cat("/sys/bus/coresight/devices/ete0/mgmt/trctraceid");
	cat("/proc/interrupts");

	f = fopen("/proc/cmdline", "r");
	if (f) {
		fgets(cmdline, sizeof(cmdline), f);
		fclose(f);
	}
	if (!strstr(cmdline, "notrace")) {
		char *a1[] = { "/cstrace", "16", NULL };
		char *a2[] = { "/cstrace", "-o", "16", NULL };
		char *a3[] = { "/cstrace", "2", NULL };
		char *a4[] = { "/cstrace", "-c", "1", "64", NULL };
		char *a5[] = { "/cstrace", "-u", "16", NULL };
		char *a6[] = { "/cstrace", "-k", "16", NULL };

		run(a1);
		run(a2);
		run(a3);
		run(a4);
		run(a5);
		run(a6);
		cat("/proc/interrupts");
	}
	if (strstr(cmdline, "memwait")) {
		/*
		 * Keep a per-task perf event open while the host saves the
		 * kernel text, so that the perf static keys (jump labels) are
		 * patched as they were while the trace was recorded.
		 */
		struct perf_event_attr attr = {
			.size = sizeof(attr),
			.type = PERF_TYPE_SOFTWARE,
			.config = PERF_COUNT_SW_DUMMY,
		};

		syscall(SYS_perf_event_open, &attr, 0, -1, -1, 0);
		printf("INIT-WAIT\n");
		sleep(300);
	}
	sync();
	reboot(RB_POWER_OFF);
	return 0;
}
