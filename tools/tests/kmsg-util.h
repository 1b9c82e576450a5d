/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Splats in the kernel log since a point, for the boot tests and the
 * fuzzer that must say themselves whether the kernel complained (the CI
 * also checks the whole console log with ci/check-boot-log.py).
 */
#ifndef KMSG_UTIL_H
#define KMSG_UTIL_H

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

/* What the kernel prints when something went wrong: see ci/check-boot-log.py */
static const char *const kmsg_splat_patterns[] = {
	"------------[ cut here ]------------", "WARNING: ", "BUG: ", "kernel BUG at",
	"Internal error: ", "Unable to handle kernel", "Kernel panic - not syncing",
	"possible recursive locking detected", "possible circular locking dependency",
	"inconsistent lock state", "suspicious RCU usage", "blocked for more than",
	"soft lockup", "detected stalls", "UBSAN: ", "KASAN: ", "Call trace:",
};

/* /dev/kmsg, positioned at the end of the log; -1 if there is none */
static inline int kmsg_open(void)
{
	int fd;

	/* The initramfs has no devtmpfs on /dev */
	if (access("/dev/kmsg", F_OK))
		mknod("/dev/kmsg", S_IFCHR | 0600, makedev(1, 11));
	fd = open("/dev/kmsg", O_RDONLY | O_NONBLOCK);
	if (fd >= 0)
		lseek(fd, 0, SEEK_END);
	return fd;
}

/*
 * Whether a message of the whole kernel log (from its first record still
 * in the buffer) holds @what and, unless NULL, @and_what; the first such
 * message goes to @line. *@wrapped tells whether the buffer has lost its
 * first records, which may have held it.
 */
static inline int kmsg_has(const char *what, const char *and_what, char *line,
			   size_t len, int *wrapped)
{
	char rec[8192];
	int fd, first = 1, found = 0;
	ssize_t n;

	*wrapped = 0;
	if (access("/dev/kmsg", F_OK))
		mknod("/dev/kmsg", S_IFCHR | 0600, makedev(1, 11));
	fd = open("/dev/kmsg", O_RDONLY | O_NONBLOCK);
	if (fd < 0)
		return -1;
	while (!found) {
		char *msg, *nl;

		n = read(fd, rec, sizeof(rec) - 1);
		if (n < 0 && errno == EPIPE) {
			*wrapped = 1;	/* overwritten while read */
			continue;
		}
		if (n <= 0)
			break;
		rec[n] = 0;
		/* "PRIO,SEQ,TIME,FLAGS;MESSAGE\n": the first SEQ is 0 unless it wrapped */
		if (first && strtoull(strchr(rec, ',') ? strchr(rec, ',') + 1 : rec, NULL, 10))
			*wrapped = 1;
		first = 0;
		msg = strchr(rec, ';');
		msg = msg ? msg + 1 : rec;
		nl = strchr(msg, '\n');
		if (nl)
			*nl = 0;
		if (strstr(msg, what) && (!and_what || strstr(msg, and_what))) {
			strncpy(line, msg, len - 1);
			line[len - 1] = 0;
			found = 1;
		}
	}
	close(fd);
	return found;
}

/*
 * The splat lines logged since kmsg_open() or the last call, printed as
 * KTAP diagnostics up to @show of them
 */
static inline int kmsg_splats(int fd, int show)
{
	char rec[8192];
	int nr = 0;
	ssize_t n;

	while (fd >= 0) {
		n = read(fd, rec, sizeof(rec) - 1);
		if (n < 0 && errno == EPIPE)
			continue;	/* overwritten records: go on with the next */
		if (n <= 0)
			break;
		rec[n] = 0;
		for (size_t i = 0; i < sizeof(kmsg_splat_patterns) / sizeof(kmsg_splat_patterns[0]); i++) {
			char *msg, *nl;

			if (!strstr(rec, kmsg_splat_patterns[i]))
				continue;
			msg = strchr(rec, ';');
			msg = msg ? msg + 1 : rec;
			nl = strchr(msg, '\n');
			if (nl)
				*nl = 0;
			if (nr++ < show)
				printf("# kernel: %s\n", msg);
			break;
		}
	}
	return nr;
}

#endif
