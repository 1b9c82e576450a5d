/*
 * cstrace: open a cs_etm perf event on this thread, run a workload that
 * context-switches between processes, and dump the AUX buffer as hex to
 * stdout between markers.
 * usage: cstrace [-o] [-u|-k] [-c CPU] [aux_pages]
 *   -o      map the AUX area PROT_READ only (overwrite/snapshot mode)
 *   -u, -k  trace only user space (exclude_kernel) / only the kernel
 *   -c CPU  per-CPU event on CPU (all tasks), instead of this thread
 */
#define _GNU_SOURCE
#include <errno.h>
#include <sched.h>
#include <fcntl.h>
#include <linux/perf_event.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

static long read_num(const char *path, int base)
{
	char buf[64] = "";
	FILE *f = fopen(path, "r");

	if (!f || !fgets(buf, sizeof(buf), f)) {
		fprintf(stderr, "cannot read %s\n", path);
		exit(1);
	}
	fclose(f);
	return strtol(buf, NULL, base);
}

/* "config:14" -> 14 */
static int format_bit(const char *name)
{
	char path[256], buf[64] = "";
	FILE *f;

	snprintf(path, sizeof(path),
		 "/sys/bus/event_source/devices/cs_etm/format/%s", name);
	f = fopen(path, "r");
	if (!f || !fgets(buf, sizeof(buf), f))
		return -1;
	fclose(f);
	return atoi(strchr(buf, ':') + 1);
}

static volatile unsigned long sink;

static void work(void)
{
	for (int i = 0; i < 4; i++) {
		pid_t p = fork();

		if (p == 0) {
			for (int j = 0; j < 20000; j++)
				sink += j * 3;
			_exit(0);
		}
		waitpid(p, NULL, 0);
		for (int j = 0; j < 20000; j++)
			sink += j;
		syscall(SYS_getpid);
	}
}

int main(int argc, char **argv)
{
	int overwrite = 0, aux_pages = 16, i, cpu = -1, excl_k = 0, excl_u = 0;
	struct perf_event_attr attr;
	struct perf_event_mmap_page *pg;
	long psz = sysconf(_SC_PAGESIZE);
	unsigned char *aux;
	uint64_t head, tail;
	int fd, b;

	for (i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "-o"))
			overwrite = 1;
		else if (!strcmp(argv[i], "-u"))
			excl_k = 1;
		else if (!strcmp(argv[i], "-k"))
			excl_u = 1;
		else if (!strcmp(argv[i], "-c") && i + 1 < argc)
			cpu = atoi(argv[++i]);
		else
			aux_pages = atoi(argv[i]);
	}

	memset(&attr, 0, sizeof(attr));
	attr.size = sizeof(attr);
	attr.type = read_num("/sys/bus/event_source/devices/cs_etm/type", 10);
	b = format_bit("contextid");
	if (b >= 0)
		attr.config |= 1ULL << b;
	b = format_bit("timestamp");
	if (b >= 0)
		attr.config |= 1ULL << b;
	attr.disabled = 1;
	attr.exclude_hv = 1;
	attr.exclude_kernel = excl_k;
	attr.exclude_user = excl_u;
	attr.enable_on_exec = 0;
	attr.inherit = 0;
	attr.sample_type = PERF_SAMPLE_TID | PERF_SAMPLE_TIME;

	if (cpu >= 0) {
		cpu_set_t set;

		/* per-CPU event: trace everything that runs on that CPU */
		CPU_ZERO(&set);
		CPU_SET(cpu, &set);
		sched_setaffinity(0, sizeof(set), &set);
	}
	fd = syscall(SYS_perf_event_open, &attr, cpu >= 0 ? -1 : 0, cpu, -1, 0);
	if (fd < 0) {
		perror("perf_event_open");
		return 1;
	}
	pg = mmap(NULL, psz * 9, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	if (pg == MAP_FAILED) {
		perror("mmap data");
		return 1;
	}
	pg->aux_offset = psz * 9;
	pg->aux_size = psz * aux_pages;
	aux = mmap(NULL, pg->aux_size,
		   overwrite ? PROT_READ : PROT_READ | PROT_WRITE,
		   MAP_SHARED, fd, pg->aux_offset);
	if (aux == MAP_FAILED) {
		perror("mmap aux");
		return 1;
	}

	ioctl(fd, PERF_EVENT_IOC_RESET, 0);
	ioctl(fd, PERF_EVENT_IOC_ENABLE, 0);
	work();
	ioctl(fd, PERF_EVENT_IOC_DISABLE, 0);

	head = __atomic_load_n(&pg->aux_head, __ATOMIC_ACQUIRE);
	tail = pg->aux_tail;
	printf("cstrace: cpu=%d excl_kernel=%d excl_user=%d mode=%s aux_size=%llu aux_head=%llu aux_tail=%llu\n",
	       cpu, excl_k, excl_u, overwrite ? "overwrite" : "normal",
	       (unsigned long long)pg->aux_size, (unsigned long long)head,
	       (unsigned long long)tail);

	/* PERF_RECORD_AUX records in the data ring */
	{
		uint64_t dh = __atomic_load_n(&pg->data_head, __ATOMIC_ACQUIRE);
		unsigned char *data = (unsigned char *)pg + pg->data_offset;
		uint64_t off = 0;

		while (off < dh && off < pg->data_size) {
			struct perf_event_header *h =
				(void *)(data + (off % pg->data_size));
			if (h->size == 0)
				break;
			if (h->type == PERF_RECORD_AUX) {
				uint64_t *p = (uint64_t *)(h + 1);
				printf("cstrace: RECORD_AUX offset=%llu size=%llu flags=0x%llx\n",
				       (unsigned long long)p[0],
				       (unsigned long long)p[1],
				       (unsigned long long)p[2]);
			}
			off += h->size;
		}
	}

	{
		uint64_t n = head > pg->aux_size ? pg->aux_size : head;
		uint64_t start = head > pg->aux_size ? head : 0;

		printf("CSTRACE-BEGIN %llu\n", (unsigned long long)n);
		for (uint64_t k = 0; k < n; k++) {
			printf("%02x", aux[(start + k) % pg->aux_size]);
			if ((k & 31) == 31)
				putchar('\n');
		}
		printf("\nCSTRACE-END\n");
	}
	fflush(stdout);
	return head ? 0 : 2;
}
