/* SPDX-License-Identifier: GPL-2.0 */
/*
 * A watchdog for the boot test programs: a hung step ends the program
 * with a diagnostic that names the step, and exit status 3, long before
 * the boot's timeout. The CI fails a program that exits non-zero or
 * short of its KTAP plan; a "not ok" line cannot be numbered reliably
 * from a signal handler, so none is printed.
 *
 *	watchdog_start(120);
 *	watchdog_step("mmap of the AUX buffer");
 *
 * The alarm is per process: a child of fork() starts its own. The
 * handler also prints the state, wait channel and kernel stack of every
 * thread of the process, which may be stuck in a system call while
 * another thread runs the handler.
 */
#ifndef WATCHDOG_H
#define WATCHDOG_H

#include <fcntl.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static char watchdog_step_name[128] = "start";
static unsigned int watchdog_seconds;

static inline void watchdog_put(const char *s)
{
	size_t len = strlen(s);

	while (len) {
		ssize_t n = write(STDOUT_FILENO, s, len);

		if (n <= 0)
			return;
		s += n;
		len -= n;
	}
}

/* Decimal @n into the end of @buf: its first digit */
static inline char *watchdog_num(char *buf, size_t len, unsigned long n)
{
	char *p = buf + len;

	*--p = 0;
	do {
		*--p = '0' + n % 10;
		n /= 10;
	} while (n);
	return p;
}

/*
 * Print file @name of /proc/self/task/@tid/ as "# watchdog: ..." lines.
 * The handler runs on one thread while the others may be in the kernel:
 * their state, wait channel and kernel stack say where.
 */
static inline void watchdog_dump(const char *tid, const char *name)
{
	char path[64] = "/proc/self/task/", buf[1024];
	ssize_t n;
	int fd;

	strcat(path, tid);
	strcat(path, "/");
	strcat(path, name);
	fd = open(path, O_RDONLY);
	if (fd < 0)
		return;
	n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	if (n <= 0)
		return;
	buf[n] = 0;
	for (char *line = buf, *nl; *line; line = nl) {
		nl = strchr(line, '\n');
		if (nl)
			*nl++ = 0;
		else
			nl = line + strlen(line);
		watchdog_put("# watchdog: thread ");
		watchdog_put(tid);
		watchdog_put(" ");
		watchdog_put(name);
		watchdog_put(": ");
		watchdog_put(line);
		watchdog_put("\n");
	}
}

/*
 * Dump every thread of the process, from /proc/self/task read with
 * getdents64(): opendir() allocates, which a signal handler must not
 */
static inline void watchdog_dump_threads(void)
{
	struct dirent64_raw {
		unsigned long long ino;
		long long off;
		unsigned short reclen;
		unsigned char type;
		char name[];
	} *d;
	char buf[4096];
	long n;
	int fd = open("/proc/self/task", O_RDONLY | O_DIRECTORY);

	if (fd < 0)
		return;
	while ((n = syscall(SYS_getdents64, fd, buf, sizeof(buf))) > 0) {
		for (long off = 0; off < n; off += d->reclen) {
			d = (struct dirent64_raw *)(buf + off);
			if (d->name[0] == '.')
				continue;
			watchdog_dump(d->name, "stat");
			watchdog_dump(d->name, "wchan");
			watchdog_dump(d->name, "stack");
		}
	}
	close(fd);
}

/* Async-signal-safe: open, read, getdents64, write, close and _exit only */
static inline void watchdog_expired(int sig)
{
	char num[16];

	(void)sig;
	watchdog_put("\n# watchdog: step '");
	watchdog_put(watchdog_step_name);
	watchdog_put("' hung for ");
	watchdog_put(watchdog_num(num, sizeof(num), watchdog_seconds));
	watchdog_put(" s\n");
	watchdog_dump_threads();
	_exit(3);
}

/* Name the step that runs now, for the diagnostic of a hang */
#ifndef __printf
#define __printf(a, b)	__attribute__((format(printf, a, b)))
#endif

static inline void __printf(1, 2) watchdog_step(const char *fmt, ...)
{
	char buf[sizeof(watchdog_step_name)];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(buf, sizeof(buf), fmt, ap);
	va_end(ap);
	/* The handler may run at any time: never leave the name unterminated */
	watchdog_step_name[0] = 0;
	__atomic_signal_fence(__ATOMIC_SEQ_CST);
	memcpy(watchdog_step_name + 1, buf + 1, sizeof(buf) - 1);
	__atomic_signal_fence(__ATOMIC_SEQ_CST);
	watchdog_step_name[0] = buf[0];
}

/* End the process with a diagnostic if it still runs in @seconds */
static inline void watchdog_start(unsigned int seconds)
{
	struct sigaction sa;

	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = watchdog_expired;
	sigaction(SIGALRM, &sa, NULL);
	watchdog_seconds = seconds;
	alarm(seconds);
}

/*
 * Seconds since an arbitrary point, for the deadlines of wait loops.
 * Through the system call, not the vDSO: a traced process must run only
 * code of its program, which the host decodes with the program's text
 * (ci/check-trace.py decodes the parent of cs-trace-record's children).
 */
static inline double watchdog_now(void)
{
	struct timespec t = { 0 };

	syscall(SYS_clock_gettime, CLOCK_MONOTONIC, &t);
	return t.tv_sec + t.tv_nsec / 1e9;
}

/*
 * Poll @cond every millisecond for up to @secs seconds: true when it
 * holds, false with a diagnostic naming the wait @what when time is up
 */
#define watchdog_poll(cond, secs, what)						\
({										\
	double __end = watchdog_now() + (secs);					\
	int __met;								\
										\
	while (!(__met = !!(cond)) && watchdog_now() < __end)			\
		usleep(1000);							\
	if (!__met) {								\
		printf("# timeout: %s, after %d s\n", (what), (int)(secs));	\
		fflush(stdout);							\
	}									\
	__met;									\
})

/* Whether child @pid ended, with its status in *@status (-1 on an error) */
static inline int watchdog_child_ended(pid_t pid, int *status)
{
	pid_t ret = waitpid(pid, status, WNOHANG);

	if (ret < 0)
		*status = -1;
	return ret != 0;
}

/*
 * Wait up to @secs seconds for child @pid to end, then kill it: its wait
 * status, or -1 (with a diagnostic naming the wait @what on a timeout)
 */
static inline int watchdog_reap(pid_t pid, int secs, const char *what)
{
	int status = -1;

	if (watchdog_poll(watchdog_child_ended(pid, &status), secs, what))
		return status;
	kill(pid, SIGKILL);
	waitpid(pid, NULL, 0);
	return -1;
}

#endif
