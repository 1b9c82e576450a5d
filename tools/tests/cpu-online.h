/* SPDX-License-Identifier: GPL-2.0 */
/* CPU hotplug through sysfs, for the boot tests and the fuzzer */
#ifndef CPU_ONLINE_H
#define CPU_ONLINE_H

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <unistd.h>

/*
 * Write "0" or "1" to the online file of @cpu: 0 if done, -1 with errno
 * set if not. Without the file (ENOENT) the kernel has no CPU hotplug.
 */
static inline int set_cpu_online(int cpu, int online)
{
	char path[64];
	int fd, ret, err;

	snprintf(path, sizeof(path), "/sys/devices/system/cpu/cpu%d/online", cpu);
	fd = open(path, O_WRONLY);
	if (fd < 0)
		return -1;
	ret = write(fd, online ? "1" : "0", 1) == 1 ? 0 : -1;
	err = errno;
	close(fd);
	errno = err;
	return ret;
}

#endif
