// SPDX-License-Identifier: GPL-2.0
/*
 * A perf_fuzzer-style fuzzer of the cs_etm PMU and AUX sampling, through
 * the bare perf ABI: for a bounded time, worker processes (two threads
 * each) open random cs_etm events and groups with random samplers
 * (PERF_SAMPLE_AUX, aux_pause/aux_resume, aux_start_paused; software
 * events, or PMUv3 cycles and instructions, whose overflow is an NMI in
 * the CI's boots, so that AUX samples, pauses and resumes run in NMI
 * context), map ring
 * buffers and AUX areas of random sizes and protections, issue random
 * ioctls, read, drain, close, fork children that inherit events, and
 * migrate between CPUs; the main process takes CPUs offline and online
 * again when the kernel has CPU hotplug.
 *
 * usage: cs-etm-fuzz [-t SECONDS] [-s SEED] [-w WORKERS] [-m MIN_ITERATIONS] [-n] [-H]
 * (-n: no CPU hotplug; -H: hardware samplers too; -c MS is for its own
 * children, see op_fork())
 *
 * Prints KTAP: the seed, the iteration count, an errno histogram per
 * call and what the ring buffers held as diagnostics, then eight results,
 * the first two of which are:
 * "fuzz: N iterations, no splat", which fails when the kernel log shows
 * a splat (the patterns of ci/check-boot-log.py, which also checks the
 * whole console log), the kernel got tainted, or a worker could not be
 * stopped; and whether a plain cs_etm event still traces on every CPU
 * afterwards, so that nothing the fuzz did left a source or sink taken.
 * The others make sure that the fuzz did what it claims: at least
 * MIN_ITERATIONS iterations (default 5000 for 90 s, in proportion for a
 * shorter fuzz: the 90 s of the CI's debug boot on 2 cores make 26000 to
 * 102000), and at least once each: a cs_etm
 * leader, a PERF_SAMPLE_AUX sampler, an aux_pause or aux_resume sampler
 * and a hardware (cycles or instructions) sampler opened in an AUX
 * sampling group, and an AUX sample with trace in it.
 * The plan comes first: a crash of the fuzzer leaves it short.
 * The same seed gives each thread the same sequence of choices; what the
 * kernel answers, and so the run as a whole, also depends on timing.
 *
 * It cannot wedge the boot: the workers stop at the deadline, get
 * SIGKILL (their process group, children included) a grace period later,
 * and the fuzzer gives up on a worker stuck in the kernel and says so.
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <linux/perf_event.h>
#include <poll.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "cpu-online.h"
#include "kmsg-util.h"
#include "watchdog.h"

#define MAX_EVENTS	24	/* open events per thread */
#define MAX_CHILDREN	4	/* forked children per thread */
#define MAX_FIELDS	32	/* cs_etm format fields */
#define MAX_SINKS	16
#define NR_ERRNO	134	/* errno values counted one by one; above: "other" */
#define GRACE_SECONDS	20	/* after the deadline, before SIGKILL */
#define STUCK_SECONDS	10	/* after SIGKILL, before giving up on a worker */
/* The default minimum of iterations for 90 s or more, less for a shorter fuzz */
#define MIN_ITERATIONS	5000
#define MIN_ITERATIONS_SECONDS	90
/* After the fuzz: hotplug back, the statistics, traces_on() on each CPU */
#define AFTER_SECONDS	60

/* The calls of the histogram */
enum call {
	C_OPEN, C_MMAP_RB, C_MMAP_AUX, C_MUNMAP, C_CLOSE, C_READ, C_POLL,
	C_IOC_ENABLE, C_IOC_DISABLE, C_IOC_REFRESH, C_IOC_RESET, C_IOC_PERIOD,
	C_IOC_SET_OUTPUT, C_IOC_SET_FILTER, C_IOC_ID, C_IOC_PAUSE_OUTPUT,
	C_IOC_MODIFY_ATTRIBUTES, C_IOC_BAD, C_PRCTL, C_FORK, C_AFFINITY,
	C_HOTPLUG, NR_CALLS
};

static const char *const call_names[NR_CALLS] = {
	"perf_event_open", "mmap ring buffer", "mmap AUX", "munmap", "close",
	"read", "poll", "ioctl ENABLE", "ioctl DISABLE", "ioctl REFRESH",
	"ioctl RESET", "ioctl PERIOD", "ioctl SET_OUTPUT", "ioctl SET_FILTER",
	"ioctl ID", "ioctl PAUSE_OUTPUT", "ioctl MODIFY_ATTRIBUTES",
	"ioctl (bad cmd)", "prctl perf", "fork", "sched_setaffinity",
	"CPU hotplug",
};

#define NR_RECORD_TYPES	32

/* Shared by all processes: MAP_SHARED */
struct stats {
	unsigned long iterations;
	unsigned long bad_records;	/* ring buffer records of an impossible size */
	unsigned long records[NR_RECORD_TYPES];	/* drained, by PERF_RECORD_ type */
	unsigned long aux_samples;	/* PERF_RECORD_SAMPLE with AUX data */
	unsigned long aux_samples_with_trace;	/* ... not all zeros */
	/*
	 * Opened in op_group(): cs_etm leaders, PERF_SAMPLE_AUX and
	 * aux_pause/resume samplers, and of those the hardware ones
	 */
	unsigned long opened_leaders, opened_aux_samplers, opened_pause_samplers;
	unsigned long opened_hw_samplers;
	unsigned long aux_flags[4];	/* PERF_RECORD_AUX: TRUNCATED, OVERWRITE, PARTIAL, COLLISION */
	unsigned long calls[NR_CALLS][NR_ERRNO + 1];
};

struct field {
	int config;		/* 0: config, 1: config1, 2: config2, 3: config3 */
	int lo, hi;
};

struct event {
	int fd;
	int cs_etm;
	void *rb;
	size_t rb_len;
	int rb_writable;
	void *aux;
	size_t aux_len;
};

struct thread {
	uint64_t rng;
	pid_t tid;
	struct thread *sibling;
	struct event ev[MAX_EVENTS];
	int nr_ev;
	pid_t children[MAX_CHILDREN];
};

static struct stats *stats;
static int cs_etm_type, nr_cpus;
static long page_size;
static struct field fields[MAX_FIELDS];
static int nr_fields;
static uint32_t sink_ids[MAX_SINKS];
static int nr_sinks;
static uint32_t config_ids[MAX_SINKS];
static int nr_config_ids;
static char self_path[256] = "/fuzz/cs-etm-fuzz";

/* xorshift64*: a stream per thread, from the seed */
static uint64_t rnd(struct thread *t)
{
	t->rng ^= t->rng >> 12;
	t->rng ^= t->rng << 25;
	t->rng ^= t->rng >> 27;
	return t->rng * 0x2545f4914f6cdd1dULL;
}

/* A stream from @seed: warmed up, as small seeds give similar first numbers */
static void seed_stream(struct thread *t, uint64_t seed)
{
	t->rng = seed ? seed : 1;
	for (int i = 0; i < 16; i++)
		rnd(t);
}

static unsigned int below(struct thread *t, unsigned int n)
{
	return n ? rnd(t) % n : 0;
}

/* True with a probability of @percent % */
static int chance(struct thread *t, unsigned int percent)
{
	return below(t, 100) < percent;
}

static void count(enum call call, long ret)
{
	int e = ret < 0 ? errno : 0;

	if (e < 0 || e >= NR_ERRNO)
		e = NR_ERRNO;
	__atomic_add_fetch(&stats->calls[call][e], 1, __ATOMIC_RELAXED);
}

static int perf_event_open(struct perf_event_attr *attr, pid_t pid, int cpu,
			   int group_fd, unsigned long flags)
{
	return syscall(__NR_perf_event_open, attr, pid, cpu, group_fd, flags);
}

/* The format fields of cs_etm ("config2:0-31") and its sinks and configurations */
static void read_pmu(void)
{
	const char *dir = "/sys/bus/event_source/devices/cs_etm";
	char path[512], buf[128];
	struct dirent *d;
	DIR *dp;
	FILE *f;

	snprintf(path, sizeof(path), "%s/type", dir);
	f = fopen(path, "r");
	if (!f || fscanf(f, "%d", &cs_etm_type) != 1)
		cs_etm_type = -1;
	if (f)
		fclose(f);

	snprintf(path, sizeof(path), "%s/format", dir);
	dp = opendir(path);
	while (dp && (d = readdir(dp)) && nr_fields < MAX_FIELDS) {
		struct field *fl = &fields[nr_fields];
		char *p;

		if (d->d_name[0] == '.')
			continue;
		snprintf(path, sizeof(path), "%s/format/%s", dir, d->d_name);
		f = fopen(path, "r");
		if (!f)
			continue;
		if (fgets(buf, sizeof(buf), f) && (p = strchr(buf, ':'))) {
			fl->config = strncmp(buf, "config", 6) ? 0 :
				     buf[6] >= '1' && buf[6] <= '3' ? buf[6] - '0' : 0;
			if (sscanf(p + 1, "%d-%d", &fl->lo, &fl->hi) == 1)
				fl->hi = fl->lo;
			nr_fields++;
		}
		fclose(f);
	}
	if (dp)
		closedir(dp);

	snprintf(path, sizeof(path), "%s/sinks", dir);
	dp = opendir(path);
	while (dp && (d = readdir(dp)) && nr_sinks < MAX_SINKS) {
		if (d->d_name[0] == '.')
			continue;
		snprintf(path, sizeof(path), "%s/sinks/%s", dir, d->d_name);
		f = fopen(path, "r");
		if (f && fscanf(f, "%x", &sink_ids[nr_sinks]) == 1)
			nr_sinks++;
		if (f)
			fclose(f);
	}
	if (dp)
		closedir(dp);

	/* events/autofdo: "configid=0x...": a configuration that exists */
	snprintf(path, sizeof(path), "%s/events", dir);
	dp = opendir(path);
	while (dp && (d = readdir(dp)) && nr_config_ids < MAX_SINKS) {
		char *p;

		if (d->d_name[0] == '.')
			continue;
		snprintf(path, sizeof(path), "%s/events/%s", dir, d->d_name);
		f = fopen(path, "r");
		if (f && fgets(buf, sizeof(buf), f) && (p = strstr(buf, "configid=")))
			config_ids[nr_config_ids++] = strtoul(p + 9, NULL, 0);
		if (f)
			fclose(f);
	}
	if (dp)
		closedir(dp);
}

static uint64_t *config_word(struct perf_event_attr *attr, int n)
{
	switch (n) {
	case 1:
		return (uint64_t *)&attr->config1;
	case 2:
		return (uint64_t *)&attr->config2;
	case 3:
		return (uint64_t *)&attr->config3;
	default:
		return (uint64_t *)&attr->config;
	}
}

/* Random bits: mostly in the format fields, sometimes anywhere */
static void random_config(struct thread *t, struct perf_event_attr *attr)
{
	int i;

	for (i = 0; i < nr_fields; i++) {
		struct field *fl = &fields[i];
		int width = fl->hi - fl->lo + 1;
		uint64_t v = rnd(t), mask = width >= 64 ? ~0ULL : (1ULL << width) - 1;

		if (!chance(t, 25))
			continue;
		/* Small values are the interesting ones: 1, the maximum, a few bits */
		switch (below(t, 3)) {
		case 0:
			v = 1;
			break;
		case 1:
			v = mask;
			break;
		}
		*config_word(attr, fl->config) |= (v & mask) << fl->lo;
	}

	/* The sink: default, one that exists, or one that does not */
	attr->config2 &= ~0xffffffffULL;
	switch (below(t, 5)) {
	case 0:
	case 1:
		if (nr_sinks)
			attr->config2 |= sink_ids[below(t, nr_sinks)];
		break;
	case 2:
		attr->config2 |= (uint32_t)rnd(t);
		break;
	}
	/* The configuration: none, one that exists, or one that does not */
	attr->config2 &= 0xffffffffULL;
	if (chance(t, 10) && nr_config_ids)
		attr->config2 |= (uint64_t)config_ids[below(t, nr_config_ids)] << 32;
	else if (chance(t, 3))
		attr->config2 |= rnd(t) << 32;

	for (i = 0; i < 4; i++)
		if (chance(t, 4))
			*config_word(attr, i) ^= 1ULL << below(t, 64);
}

static struct event *random_event(struct thread *t)
{
	return t->nr_ev ? &t->ev[below(t, t->nr_ev)] : NULL;
}

static int random_group(struct thread *t, int prefer_cs_etm)
{
	int i, start;

	if (!t->nr_ev || chance(t, 20))
		return -1;
	start = below(t, t->nr_ev);
	for (i = 0; i < t->nr_ev; i++) {
		struct event *e = &t->ev[(start + i) % t->nr_ev];

		if (!prefer_cs_etm || e->cs_etm)
			return e->fd;
	}
	return t->ev[start].fd;
}

static pid_t random_pid(struct thread *t)
{
	pid_t child;

	switch (below(t, 10)) {
	case 0:
	case 1:
		return t->sibling ? __atomic_load_n(&t->sibling->tid, __ATOMIC_RELAXED) : 0;
	case 2:
		child = t->children[below(t, MAX_CHILDREN)];
		return child > 0 ? child : 0;
	case 3:
		return -1;
	default:
		return 0;
	}
}

static void random_excludes(struct thread *t, struct perf_event_attr *attr)
{
	attr->exclude_user = chance(t, 15);
	attr->exclude_kernel = chance(t, 25);
	attr->exclude_hv = chance(t, 15);
	attr->exclude_idle = chance(t, 10);
	attr->exclude_host = chance(t, 10);
	attr->exclude_guest = chance(t, 10);
}

static const uint32_t aux_sample_sizes[] = {
	0, 8, 64, 4096, 4097, 8192, 65536, 65535, 1 << 20, 0xffffffff,
};

static void cs_etm_random_attr(struct thread *t, struct perf_event_attr *attr)
{
	attr->type = cs_etm_type;
	random_config(t, attr);
	random_excludes(t, attr);
	attr->disabled = chance(t, 50);
	attr->inherit = chance(t, 15);
	attr->enable_on_exec = chance(t, 3);
	attr->aux_start_paused = chance(t, 20);
	attr->aux_output = chance(t, 2);
	attr->aux_watermark = chance(t, 20) ? below(t, 1 << 20) : 0;
	attr->sample_id_all = chance(t, 30);
	attr->sample_type = chance(t, 30) ? PERF_SAMPLE_TID | PERF_SAMPLE_TIME |
					    PERF_SAMPLE_CPU | PERF_SAMPLE_IDENTIFIER : 0;
	if (chance(t, 5))
		attr->sample_period = below(t, 100000);
}

/*
 * Make @attr a hardware sampler: PMUv3 cycles mostly, or instructions
 * (which QEMU counts only with -icount: it then never overflows). A
 * period of cycles takes as long as that many ns in QEMU (1GHz); none
 * below 2us, so that an overflow leaves the CPU time to get anywhere
 * before perf core throttles the storm.
 */
/*
 * Hardware samplers only with -H, which the CI's init passes: without
 * the series' arm_pmuv3 fix (patch 43) they hit "Invalid PMEV* index"
 * (see ci/README.md)
 */
static int hw_samplers;

static void hw_sampler(struct thread *t, struct perf_event_attr *attr)
{
	attr->type = PERF_TYPE_HARDWARE;
	attr->config = chance(t, 80) ? PERF_COUNT_HW_CPU_CYCLES : PERF_COUNT_HW_INSTRUCTIONS;
	if (!attr->freq && attr->sample_period < 2000)
		attr->sample_period = 2000 + below(t, 20000);
}

/* A sampling event, maybe with PERF_SAMPLE_AUX and AUX actions */
static void sampler_random_attr(struct thread *t, struct perf_event_attr *attr)
{
	static const uint64_t configs[] = {
		PERF_COUNT_SW_CPU_CLOCK, PERF_COUNT_SW_TASK_CLOCK, PERF_COUNT_SW_DUMMY,
		PERF_COUNT_SW_CONTEXT_SWITCHES, PERF_COUNT_SW_CPU_MIGRATIONS,
	};
	static const uint64_t sample_types[] = {
		PERF_SAMPLE_IP, PERF_SAMPLE_TID, PERF_SAMPLE_TIME, PERF_SAMPLE_ID,
		PERF_SAMPLE_CPU, PERF_SAMPLE_PERIOD, PERF_SAMPLE_READ,
		PERF_SAMPLE_CALLCHAIN, PERF_SAMPLE_STREAM_ID, PERF_SAMPLE_IDENTIFIER,
		PERF_SAMPLE_DATA_SRC, PERF_SAMPLE_PHYS_ADDR, PERF_SAMPLE_WEIGHT,
	};
	unsigned int i;

	attr->type = PERF_TYPE_SOFTWARE;
	attr->config = configs[below(t, chance(t, 70) ? 2 : 5)];
	if (chance(t, 15)) {
		attr->freq = 1;
		attr->sample_freq = 100 + below(t, 200000);
	} else {
		attr->sample_period = chance(t, 10) ? below(t, 100) :
				      20000 + below(t, 2000000);
	}
	attr->sample_type = chance(t, 80) ? PERF_SAMPLE_AUX : 0;
	for (i = 0; i < sizeof(sample_types) / sizeof(sample_types[0]); i++)
		if (chance(t, 20))
			attr->sample_type |= sample_types[i];
	attr->read_format = chance(t, 20) ? PERF_FORMAT_GROUP | PERF_FORMAT_ID : 0;
	attr->aux_sample_size = chance(t, 10) ? (uint32_t)rnd(t) :
				aux_sample_sizes[below(t, sizeof(aux_sample_sizes) / 4)];
	attr->aux_pause = chance(t, 15);
	attr->aux_resume = chance(t, 15);
	attr->aux_output = chance(t, 3);
	attr->disabled = chance(t, 50);
	attr->inherit = chance(t, 15);
	attr->sample_id_all = chance(t, 50);
	attr->wakeup_events = below(t, 4);
	if (chance(t, 10))
		random_excludes(t, attr);
	if (chance(t, 30) && hw_samplers)
		hw_sampler(t, attr);
}

static void op_open(struct thread *t)
{
	struct perf_event_attr attr;
	unsigned long flags = 0;
	int group = -1, cpu = -1, fd, cs_etm = 0;
	pid_t pid = random_pid(t);

	memset(&attr, 0, sizeof(attr));
	attr.size = sizeof(attr);
	switch (below(t, 10)) {
	case 0 ... 3:
		cs_etm_random_attr(t, &attr);
		cs_etm = 1;
		/* Rarely a cs_etm sibling, which the PMU's exclusivity refuses */
		if (chance(t, 5))
			group = random_group(t, 1);
		break;
	case 4 ... 7:
		sampler_random_attr(t, &attr);
		group = random_group(t, 1);
		break;
	case 8:
		/* Random bytes, as a cs_etm event */
		for (size_t i = 0; i < sizeof(attr); i += 8) {
			uint64_t v = rnd(t);

			memcpy((char *)&attr + i, &v, sizeof(attr) - i < 8 ? sizeof(attr) - i : 8);
		}
		attr.type = cs_etm_type;
		/* 0 is PERF_ATTR_SIZE_VER0; a size past the struct reads the stack after it */
		attr.size = chance(t, 80) ? sizeof(attr) : below(t, sizeof(attr) + 64);
		cs_etm = 1;
		group = random_group(t, 0);
		break;
	default:
		sampler_random_attr(t, &attr);
		attr.type = cs_etm_type;
		attr.config = 0;
		random_config(t, &attr);
		cs_etm = 1;
		group = random_group(t, 0);
		break;
	}
	/* A signal on another task, or on init, is not ours to send */
	attr.sigtrap = 0;
	attr.remove_on_exec = chance(t, 3);
	attr.enable_on_exec = attr.remove_on_exec ? 0 : attr.enable_on_exec;

	if (pid == -1 || chance(t, 25))
		cpu = chance(t, 95) ? (int)below(t, nr_cpus) : (int)below(t, 3) - 1 + nr_cpus;
	if (chance(t, 3))
		cpu = -1 - (int)below(t, 3);
	flags = chance(t, 50) ? PERF_FLAG_FD_CLOEXEC : 0;
	if (chance(t, 4))
		flags |= PERF_FLAG_FD_NO_GROUP;
	if (chance(t, 4))
		flags |= PERF_FLAG_FD_OUTPUT;
	if (chance(t, 1))
		flags |= 1UL << below(t, 64);

	fd = perf_event_open(&attr, pid, cpu, group, flags);
	count(C_OPEN, fd);
	if (fd < 0)
		return;
	if (t->nr_ev == MAX_EVENTS) {
		close(fd);
		return;
	}
	t->ev[t->nr_ev++] = (struct event){ .fd = fd, .cs_etm = cs_etm };
}

/*
 * A well-formed AUX sampling group, which random attributes seldom make:
 * a cs_etm leader with a ring buffer and an AUX buffer, and samplers with
 * PERF_SAMPLE_AUX, aux_pause or aux_resume writing into its ring buffer.
 * The other operations then take it apart at random.
 */
static void op_group(struct thread *t)
{
	static const uint32_t sizes[] = { 8, 4096, 4100, 16384, 65536, 1 << 20 };
	struct perf_event_attr attr;
	struct event *leader;
	size_t rb_pages = (1U << below(t, 5)) + 1, aux_pages = 1U << (1 + below(t, 6));
	int nr = 1 + below(t, 3), cpu = -1, fd, i;
	pid_t pid = chance(t, 80) ? 0 : random_pid(t);
	void *p;

	if (t->nr_ev + 1 + nr > MAX_EVENTS)
		return;
	if (pid == -1 || chance(t, 15)) {
		pid = -1;
		cpu = below(t, nr_cpus);
	}
	memset(&attr, 0, sizeof(attr));
	attr.size = sizeof(attr);
	attr.type = cs_etm_type;
	if (chance(t, 30))
		random_config(t, &attr);
	attr.disabled = 1;
	attr.exclude_kernel = chance(t, 30);
	attr.aux_start_paused = chance(t, 20);
	fd = perf_event_open(&attr, pid, cpu, -1, PERF_FLAG_FD_CLOEXEC);
	count(C_OPEN, fd);
	if (fd < 0)
		return;
	leader = &t->ev[t->nr_ev++];
	*leader = (struct event){ .fd = fd, .cs_etm = 1 };
	__atomic_add_fetch(&stats->opened_leaders, 1, __ATOMIC_RELAXED);

	p = mmap(NULL, rb_pages * page_size, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	count(C_MMAP_RB, p == MAP_FAILED ? -1 : 0);
	if (p == MAP_FAILED)
		return;
	leader->rb = p;
	leader->rb_len = rb_pages * page_size;
	leader->rb_writable = 1;
	((struct perf_event_mmap_page *)p)->aux_offset = leader->rb_len;
	((struct perf_event_mmap_page *)p)->aux_size = aux_pages * page_size;
	p = mmap(NULL, aux_pages * page_size, chance(t, 80) ? PROT_READ : PROT_READ | PROT_WRITE,
		 MAP_SHARED, fd, leader->rb_len);
	count(C_MMAP_AUX, p == MAP_FAILED ? -1 : 0);
	if (p != MAP_FAILED) {
		leader->aux = p;
		leader->aux_len = aux_pages * page_size;
	}

	for (i = 0; i < nr; i++) {
		memset(&attr, 0, sizeof(attr));
		attr.size = sizeof(attr);
		attr.type = PERF_TYPE_SOFTWARE;
		attr.config = chance(t, 70) ? PERF_COUNT_SW_CPU_CLOCK : PERF_COUNT_SW_TASK_CLOCK;
		attr.sample_period = 20000 + below(t, 1000000);
		if (chance(t, 30) && hw_samplers)
			hw_sampler(t, &attr);
		attr.disabled = 1;
		switch (below(t, 4)) {
		case 0:
			attr.aux_pause = 1;
			break;
		case 1:
			attr.aux_resume = 1;
			break;
		default:
			attr.sample_type = PERF_SAMPLE_TID | PERF_SAMPLE_CPU | PERF_SAMPLE_AUX;
			attr.aux_sample_size = sizes[below(t, sizeof(sizes) / sizeof(sizes[0]))];
		}
		fd = perf_event_open(&attr, pid, cpu, leader->fd, PERF_FLAG_FD_CLOEXEC);
		count(C_OPEN, fd);
		if (fd < 0)
			continue;
		__atomic_add_fetch(attr.aux_sample_size ? &stats->opened_aux_samplers :
				   &stats->opened_pause_samplers, 1, __ATOMIC_RELAXED);
		if (attr.type == PERF_TYPE_HARDWARE)
			__atomic_add_fetch(&stats->opened_hw_samplers, 1, __ATOMIC_RELAXED);
		t->ev[t->nr_ev++] = (struct event){ .fd = fd };
		count(C_IOC_SET_OUTPUT, ioctl(fd, PERF_EVENT_IOC_SET_OUTPUT, leader->fd));
	}
	if (chance(t, 70))
		count(C_IOC_ENABLE, ioctl(leader->fd, PERF_EVENT_IOC_ENABLE, PERF_IOC_FLAG_GROUP));
}

static void op_mmap_rb(struct thread *t)
{
	struct event *e = random_event(t);
	size_t pages;
	int prot;
	void *p;

	if (!e || e->rb)
		return;
	pages = chance(t, 90) ? (1U << below(t, 7)) + 1 : below(t, 70);
	prot = chance(t, 85) ? PROT_READ | PROT_WRITE : PROT_READ;
	p = mmap(NULL, pages * page_size, prot, MAP_SHARED, e->fd, 0);
	count(C_MMAP_RB, p == MAP_FAILED ? -1 : 0);
	if (p == MAP_FAILED)
		return;
	e->rb = p;
	e->rb_len = pages * page_size;
	e->rb_writable = !!(prot & PROT_WRITE);
}

/* PROT_READ maps the AUX buffer in overwrite mode, PROT_WRITE in normal mode */
static void op_mmap_aux(struct thread *t)
{
	struct event *e = random_event(t);
	struct perf_event_mmap_page *pc;
	size_t pages, offset;
	int prot;
	void *p;

	if (!e || !e->rb || e->aux || !e->rb_len)
		return;
	pc = e->rb;
	pages = chance(t, 85) ? 1U << below(t, 8) : 1 + below(t, 40);
	offset = chance(t, 90) ? e->rb_len : below(t, 8) * (size_t)page_size;
	prot = chance(t, 60) ? PROT_READ : PROT_READ | PROT_WRITE;
	/* Only the user page of a writable ring buffer takes the AUX offset and size */
	if (e->rb_writable) {
		pc->aux_offset = offset;
		pc->aux_size = chance(t, 95) ? pages * page_size : rnd(t) % (1 << 24);
	}
	p = mmap(NULL, pages * page_size, prot, MAP_SHARED, e->fd, offset);
	count(C_MMAP_AUX, p == MAP_FAILED ? -1 : 0);
	if (p == MAP_FAILED)
		return;
	e->aux = p;
	e->aux_len = pages * page_size;
}

static void unmap_aux(struct event *e)
{
	if (!e->aux)
		return;
	count(C_MUNMAP, munmap(e->aux, e->aux_len));
	e->aux = NULL;
}

static void unmap_rb(struct event *e)
{
	if (!e->rb)
		return;
	count(C_MUNMAP, munmap(e->rb, e->rb_len));
	e->rb = NULL;
}

static void op_munmap(struct thread *t)
{
	struct event *e = random_event(t);

	if (!e)
		return;
	/* The AUX buffer first, mostly: the ring buffer may go while the AUX one stays */
	if (e->aux && chance(t, 70))
		unmap_aux(e);
	else
		unmap_rb(e);
}

static void close_event(struct thread *t, int i, int unmap_first)
{
	struct event *e = &t->ev[i];

	if (unmap_first) {
		unmap_aux(e);
		unmap_rb(e);
	}
	count(C_CLOSE, close(e->fd));
	/* Then the mappings keep the event until they go */
	unmap_aux(e);
	unmap_rb(e);
	t->ev[i] = t->ev[--t->nr_ev];
}

static void op_close(struct thread *t)
{
	if (t->nr_ev)
		close_event(t, below(t, t->nr_ev), chance(t, 70));
}

static void op_read(struct thread *t)
{
	struct event *e = random_event(t);
	char buf[512];

	if (e)
		count(C_READ, read(e->fd, buf, below(t, sizeof(buf) + 1)));
}

static void op_poll(struct thread *t)
{
	struct event *e = random_event(t);
	struct pollfd pfd;

	if (!e)
		return;
	pfd.fd = e->fd;
	pfd.events = POLLIN | POLLHUP;
	count(C_POLL, poll(&pfd, 1, below(t, 3)));
}

static void random_filter(struct thread *t, char *buf, size_t len)
{
	static const char *const kinds[] = { "filter", "start", "stop", "tracestop", "bogus" };
	const char *paths[] = { self_path, "/init", "/nonexistent" };
	size_t n = 0;
	int i, nr = 1 + below(t, 4);

	buf[0] = 0;
	for (i = 0; i < nr && n < len; i++) {
		uint64_t addr, size = below(t, 0x10000);
		const char *kind = kinds[below(t, chance(t, 90) ? 3 : 5)];

		switch (below(t, 3)) {
		case 0:
			addr = (uintptr_t)&rnd & ~0xfffULL;
			break;
		case 1:
			addr = 0xffff800080000000ULL + below(t, 0x1000000);
			break;
		default:
			addr = rnd(t);
		}
		if (!strcmp(kind, "filter") || chance(t, 10))
			n += snprintf(buf + n, len - n, "%s 0x%llx/0x%llx", kind,
				      (unsigned long long)addr, (unsigned long long)size);
		else
			n += snprintf(buf + n, len - n, "%s 0x%llx", kind, (unsigned long long)addr);
		if (n < len && chance(t, 50))
			n += snprintf(buf + n, len - n, "@%s", paths[below(t, 3)]);
		if (n < len && i + 1 < nr)
			n += snprintf(buf + n, len - n, "%s", chance(t, 50) ? "," : " ");
	}
}

static void op_ioctl(struct thread *t)
{
	struct event *e = random_event(t), *o;
	unsigned long flag = chance(t, 40) ? PERF_IOC_FLAG_GROUP : 0;
	struct perf_event_attr attr;
	char filter[256];
	uint64_t v;
	int ret;

	if (!e)
		return;
	switch (below(t, 12)) {
	case 0:
	case 1:
		count(C_IOC_ENABLE, ioctl(e->fd, PERF_EVENT_IOC_ENABLE, flag));
		break;
	case 2:
	case 3:
		count(C_IOC_DISABLE, ioctl(e->fd, PERF_EVENT_IOC_DISABLE, flag));
		break;
	case 4:
		count(C_IOC_REFRESH, ioctl(e->fd, PERF_EVENT_IOC_REFRESH, below(t, 4)));
		break;
	case 5:
		count(C_IOC_RESET, ioctl(e->fd, PERF_EVENT_IOC_RESET, flag));
		break;
	case 6:
		v = chance(t, 80) ? 10000 + below(t, 5000000) : rnd(t);
		count(C_IOC_PERIOD, ioctl(e->fd, PERF_EVENT_IOC_PERIOD, &v));
		break;
	case 7:
		o = random_event(t);
		count(C_IOC_SET_OUTPUT, ioctl(e->fd, PERF_EVENT_IOC_SET_OUTPUT,
					      chance(t, 80) ? o->fd : -1));
		break;
	case 8:
		random_filter(t, filter, sizeof(filter));
		count(C_IOC_SET_FILTER, ioctl(e->fd, PERF_EVENT_IOC_SET_FILTER, filter));
		break;
	case 9:
		count(C_IOC_ID, ioctl(e->fd, PERF_EVENT_IOC_ID, &v));
		break;
	case 10:
		count(C_IOC_PAUSE_OUTPUT, ioctl(e->fd, PERF_EVENT_IOC_PAUSE_OUTPUT, below(t, 2)));
		break;
	default:
		if (chance(t, 50)) {
			memset(&attr, 0, sizeof(attr));
			attr.size = sizeof(attr);
			attr.type = chance(t, 50) ? (uint32_t)cs_etm_type : PERF_TYPE_BREAKPOINT;
			attr.config = rnd(t);
			count(C_IOC_MODIFY_ATTRIBUTES,
			      ioctl(e->fd, PERF_EVENT_IOC_MODIFY_ATTRIBUTES, &attr));
		} else {
			ret = ioctl(e->fd, _IO('$', 12 + below(t, 20)), 0);
			count(C_IOC_BAD, ret);
		}
	}
}

static void count_aux_flags(uint64_t flags)
{
	for (int i = 0; i < 4; i++)
		if (flags & (1ULL << i))
			__atomic_add_fetch(&stats->aux_flags[i], 1, __ATOMIC_RELAXED);
}

/* Consume the records of a writable ring buffer, and a normal mode AUX buffer */
static void op_drain(struct thread *t)
{
	struct event *e = random_event(t);
	struct perf_event_mmap_page *pc;
	uint64_t head, tail, size;
	uint8_t *data;

	if (!e || !e->rb || !e->rb_writable || e->rb_len < 2 * (size_t)page_size)
		return;
	pc = e->rb;
	data = (uint8_t *)e->rb + page_size;
	size = e->rb_len - page_size;
	head = __atomic_load_n(&pc->data_head, __ATOMIC_ACQUIRE);
	for (tail = pc->data_tail; tail < head;) {
		struct perf_event_header *h = (void *)(data + tail % size);

		/* A record is 8 byte aligned, so its header never wraps */
		if (h->size < sizeof(*h) || h->size % 8) {
			__atomic_add_fetch(&stats->bad_records, 1, __ATOMIC_RELAXED);
			break;
		}
		if (h->type < NR_RECORD_TYPES)
			__atomic_add_fetch(&stats->records[h->type], 1, __ATOMIC_RELAXED);
		/* The samplers of op_group(): TID, CPU, then the AUX size and data */
		if (h->type == PERF_RECORD_SAMPLE && h->size > 32 &&
		    *(uint64_t *)(data + (tail + 24) % size) == h->size - 32u) {
			uint64_t i = 32;

			__atomic_add_fetch(&stats->aux_samples, 1, __ATOMIC_RELAXED);
			while (i < h->size && !data[(tail + i) % size])
				i++;
			if (i < h->size)
				__atomic_add_fetch(&stats->aux_samples_with_trace, 1,
						   __ATOMIC_RELAXED);
		}
		/* PERF_RECORD_AUX: offset, size, flags */
		if (h->type == PERF_RECORD_AUX && h->size >= 32)
			count_aux_flags(*(uint64_t *)(data + (tail + 24) % size));
		tail += h->size;
	}
	__atomic_store_n(&pc->data_tail, head, __ATOMIC_RELEASE);
	if (e->aux && chance(t, 80))
		__atomic_store_n(&pc->aux_tail, __atomic_load_n(&pc->aux_head, __ATOMIC_ACQUIRE),
				 __ATOMIC_RELEASE);
}

static void spin_us(unsigned int us)
{
	struct timespec t0, t1;
	static volatile unsigned long x;

	clock_gettime(CLOCK_MONOTONIC, &t0);
	do {
		x++;
		clock_gettime(CLOCK_MONOTONIC, &t1);
	} while ((t1.tv_sec - t0.tv_sec) * 1000000 + (t1.tv_nsec - t0.tv_nsec) / 1000 < us);
}

static void op_affinity(struct thread *t)
{
	cpu_set_t set;
	int cpu;

	CPU_ZERO(&set);
	if (chance(t, 25)) {
		for (cpu = 0; cpu < nr_cpus; cpu++)
			CPU_SET(cpu, &set);
	} else {
		CPU_SET(below(t, nr_cpus), &set);
	}
	count(C_AFFINITY, sched_setaffinity(0, sizeof(set), &set));
}

static void reap_children(struct thread *t, int kill_them)
{
	int i;

	for (i = 0; i < MAX_CHILDREN; i++) {
		if (t->children[i] <= 0)
			continue;
		if (kill_them)
			kill(t->children[i], SIGKILL);
		if (waitpid(t->children[i], NULL, kill_them ? 0 : WNOHANG) != 0)
			t->children[i] = 0;
	}
}

/* A child inherits the events that have inherit set; it runs a little, maybe execs */
static void op_fork(struct thread *t)
{
	int slot, ms = below(t, 20), do_exec = chance(t, 30), migrate = chance(t, 50);
	pid_t pid;

	for (slot = 0; slot < MAX_CHILDREN && t->children[slot] > 0; slot++)
		;
	if (slot == MAX_CHILDREN)
		return;
	pid = fork();
	count(C_FORK, pid);
	if (pid == 0) {
		prctl(PR_SET_PDEATHSIG, SIGKILL);
		if (do_exec) {
			char arg[16];

			snprintf(arg, sizeof(arg), "%d", ms);
			execl(self_path, self_path, "-c", arg, (char *)NULL);
		}
		if (migrate) {
			cpu_set_t set;

			CPU_ZERO(&set);
			CPU_SET(ms % nr_cpus, &set);
			sched_setaffinity(0, sizeof(set), &set);
		}
		spin_us(ms * 1000);
		_exit(0);
	}
	if (pid > 0)
		t->children[slot] = pid;
}

/* Results 3 to 8: what the fuzz must have done; 7 only with -H */
#define NR_RESULTS	8
#define HW_CLAIM	4	/* the claim of the hardware samplers */
static const char *const claim_names[NR_RESULTS - 2] = {
	"cs_etm_fuzz.min_iterations",		/* the minimum number of iterations ran */
	"cs_etm_fuzz.leader_opened",		/* a cs_etm leader opened */
	"cs_etm_fuzz.aux_sampler_opened",	/* a PERF_SAMPLE_AUX sampler, under a cs_etm leader */
	"cs_etm_fuzz.pause_sampler_opened",	/* an aux_pause or aux_resume sampler, too */
	"cs_etm_fuzz.hw_sampler_opened",	/* a cycles or instructions sampler, too */
	"cs_etm_fuzz.aux_sample_with_trace",	/* an AUX sample with trace */
};

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

static double deadline_mono;

static void *fuzz_thread(void *arg)
{
	struct thread *t = arg;
	unsigned long iterations = 0;
	int i;

	__atomic_store_n(&t->tid, (pid_t)syscall(SYS_gettid), __ATOMIC_RELAXED);
	while (now() < deadline_mono) {
		unsigned int op = below(t, 100);

		if (op < 4)
			op_group(t);
		else if (op < 16)
			op_open(t);
		else if (op < 25)
			op_mmap_rb(t);
		else if (op < 35)
			op_mmap_aux(t);
		else if (op < 39)
			op_munmap(t);
		else if (op < 45)
			op_close(t);
		else if (op < 49)
			op_read(t);
		else if (op < 51)
			op_poll(t);
		else if (op < 73)
			op_ioctl(t);
		else if (op < 81)
			op_drain(t);
		else if (op < 89)
			spin_us(below(t, 3000));
		else if (op < 94)
			op_affinity(t);
		else if (op < 96)
			op_fork(t);
		else if (op < 97)
			count(C_PRCTL, prctl(chance(t, 50) ? PR_TASK_PERF_EVENTS_DISABLE :
						 PR_TASK_PERF_EVENTS_ENABLE, 0, 0, 0, 0));
		else
			/* Leave some events running a while */
			spin_us(below(t, 10000));

		reap_children(t, 0);
		if (++iterations % 64 == 0) {
			__atomic_add_fetch(&stats->iterations, 64, __ATOMIC_RELAXED);
			iterations = 0;
		}
	}
	__atomic_add_fetch(&stats->iterations, iterations, __ATOMIC_RELAXED);
	reap_children(t, 1);
	for (i = t->nr_ev - 1; i >= 0; i--)
		close_event(t, i, 1);
	return NULL;
}

static void worker(uint64_t seed)
{
	static struct thread threads[2];
	pthread_t other;

	prctl(PR_SET_PDEATHSIG, SIGKILL);
	seed_stream(&threads[0], seed * 2 + 1);
	seed_stream(&threads[1], seed * 2 + 2);
	threads[0].sibling = &threads[1];
	threads[1].sibling = &threads[0];
	if (pthread_create(&other, NULL, fuzz_thread, &threads[1])) {
		perror("pthread_create");
		_exit(1);
	}
	fuzz_thread(&threads[0]);
	pthread_join(other, NULL);
	_exit(0);
}

static void sleep_ms(unsigned int ms)
{
	struct timespec ts = { ms / 1000, (ms % 1000) * 1000000L };

	nanosleep(&ts, NULL);
}

static unsigned long tainted(void)
{
	unsigned long v = 0;
	FILE *f = fopen("/proc/sys/kernel/tainted", "r");

	if (f) {
		if (fscanf(f, "%lu", &v) != 1)
			v = 0;
		fclose(f);
	}
	return v;
}

static void print_histogram(void)
{
	for (int c = 0; c < NR_CALLS; c++) {
		unsigned long total = 0;
		char line[1024];
		size_t n = 0;

		for (int e = 0; e <= NR_ERRNO; e++)
			total += stats->calls[c][e];
		if (!total)
			continue;
		n += snprintf(line + n, sizeof(line) - n, "%s: %lu calls", call_names[c], total);
		for (int e = 0; e <= NR_ERRNO && n < sizeof(line); e++) {
			const char *name;

			if (!stats->calls[c][e])
				continue;
			name = e == 0 ? "ok" : e == NR_ERRNO ? "other" : strerrorname_np(e);
			if (name)
				n += snprintf(line + n, sizeof(line) - n, "%s %s %lu",
					      e ? "," : ":", name, stats->calls[c][e]);
			else
				n += snprintf(line + n, sizeof(line) - n, "%s errno %d %lu",
					      e ? "," : ":", e, stats->calls[c][e]);
		}
		printf("# %s\n", line);
	}
}

/* kernel.perf_event_max_sample_rate: read it, or write it if @rate > 0 */
static int max_sample_rate(int rate)
{
	const char *path = "/proc/sys/kernel/perf_event_max_sample_rate";
	FILE *f = fopen(path, rate > 0 ? "w" : "r");
	int v = rate;

	if (!f)
		return -1;
	if (rate > 0)
		fprintf(f, "%d\n", rate);
	else if (fscanf(f, "%d", &v) != 1)
		v = -1;
	fclose(f);
	return v;
}

static void show_stuck(pid_t pid)
{
	char path[64], buf[4096];
	ssize_t n;
	int fd;

	snprintf(path, sizeof(path), "/proc/%d/wchan", pid);
	fd = open(path, O_RDONLY);
	n = fd >= 0 ? read(fd, buf, sizeof(buf) - 1) : -1;
	if (fd >= 0)
		close(fd);
	buf[n > 0 ? n : 0] = 0;
	printf("# worker %d does not die after SIGKILL, waiting in %s\n", pid, buf);
}

/*
 * After the fuzz, a plain cs_etm event must still trace on @cpu: no
 * source, sink, trace ID or exclusive count left taken by what the
 * workers did. Returns 0, or -1 with a diagnostic.
 */
static int traces_on(int cpu)
{
	size_t rb_len = 9 * page_size, aux_len = 16 * page_size;
	struct perf_event_attr attr;
	struct perf_event_mmap_page *pc;
	uint64_t tail, flags = 0;
	int fd, ret = -1;
	cpu_set_t set;
	void *aux;

	CPU_ZERO(&set);
	CPU_SET(cpu, &set);
	if (sched_setaffinity(0, sizeof(set), &set)) {
		printf("# CPU %d: sched_setaffinity: %s\n", cpu, strerror(errno));
		return -1;
	}
	memset(&attr, 0, sizeof(attr));
	attr.size = sizeof(attr);
	attr.type = cs_etm_type;
	attr.disabled = 1;
	fd = perf_event_open(&attr, 0, -1, -1, PERF_FLAG_FD_CLOEXEC);
	if (fd < 0) {
		printf("# CPU %d: cs_etm event: %s\n", cpu, strerror(errno));
		return -1;
	}
	pc = mmap(NULL, rb_len, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	if (pc == MAP_FAILED) {
		printf("# CPU %d: ring buffer: %s\n", cpu, strerror(errno));
		close(fd);
		return -1;
	}
	pc->aux_offset = rb_len;
	pc->aux_size = aux_len;
	/*
	 * Overwrite mode, which never runs out of room: only a failure to
	 * start truncates the AUX output. The TRBE driver flags a wrap of
	 * the buffer as a collision, so that flag says nothing here.
	 */
	aux = mmap(NULL, aux_len, PROT_READ, MAP_SHARED, fd, rb_len);
	if (aux == MAP_FAILED) {
		printf("# CPU %d: AUX buffer: %s\n", cpu, strerror(errno));
		goto out;
	}
	ioctl(fd, PERF_EVENT_IOC_ENABLE, 0);
	spin_us(20000);
	ioctl(fd, PERF_EVENT_IOC_DISABLE, 0);

	for (tail = 0; tail < pc->data_head;) {
		struct perf_event_header *h = (void *)((char *)pc + page_size + tail % (rb_len - page_size));

		if (h->size < sizeof(*h))
			break;
		if (h->type == PERF_RECORD_AUX)
			flags |= ((uint64_t *)h)[3];
		tail += h->size;
	}
	if (!pc->aux_head || (flags & PERF_AUX_FLAG_TRUNCATED))
		printf("# CPU %d: %llu bytes of trace, AUX flags 0x%llx\n", cpu,
		       (unsigned long long)pc->aux_head, (unsigned long long)flags);
	else
		ret = 0;
	munmap(aux, aux_len);
out:
	munmap(pc, rb_len);
	close(fd);
	return ret;
}

int main(int argc, char **argv)
{
	int seconds = 60, nr_workers = 4, hotplug = 1, opt, kmsg, splat_lines, stuck = 0;
	long min_iterations = -1;
	uint64_t seed = 0;
	unsigned long taint0;
	pid_t *pids;
	double end;
	int live, i, nr, broken = 0, old_rate, unclaimed = 0;
	ssize_t n;

	while ((opt = getopt(argc, argv, "t:s:w:m:c:nH")) != -1) {
		switch (opt) {
		case 't':
			seconds = atoi(optarg);
			break;
		case 's':
			seed = strtoull(optarg, NULL, 0);
			break;
		case 'w':
			nr_workers = atoi(optarg);
			break;
		case 'm':
			min_iterations = strtol(optarg, NULL, 0);
			break;
		case 'n':
			hotplug = 0;
			break;
		case 'H':
			hw_samplers = 1;
			break;
		case 'c':
			/* A child that exec'd: run a little, keep the inherited events busy */
			spin_us(atoi(optarg) * 1000);
			return 0;
		default:
			fprintf(stderr, "usage: %s [-t SECONDS] [-s SEED] [-w WORKERS] [-m MIN_ITERATIONS] [-n] [-H]\n",
				argv[0]);
			return 2;
		}
	}
	n = readlink("/proc/self/exe", self_path, sizeof(self_path) - 1);
	if (n > 0)
		self_path[n] = 0;
	if (!seed)
		seed = (uint64_t)time(NULL) ^ ((uint64_t)getpid() << 32);
	if (nr_workers < 1)
		nr_workers = 1;
	if (min_iterations < 0 && seconds >= MIN_ITERATIONS_SECONDS)
		min_iterations = MIN_ITERATIONS;
	else if (min_iterations < 0)
		min_iterations = (long)MIN_ITERATIONS * seconds / MIN_ITERATIONS_SECONDS;

	setvbuf(stdout, NULL, _IOLBF, 0);
	page_size = sysconf(_SC_PAGESIZE);
	nr_cpus = sysconf(_SC_NPROCESSORS_CONF);
	read_pmu();

	printf("KTAP version 1\n# cs_etm_fuzz\n1..%d\n", NR_RESULTS - !hw_samplers);
	if (cs_etm_type < 0) {
		printf("ok 1 cs_etm_fuzz.no_splat # SKIP no cs_etm PMU\n");
		printf("ok 2 cs_etm_fuzz.traces_after # SKIP no cs_etm PMU\n");
		for (i = 0, nr = 3; i < NR_RESULTS - 2; i++)
			if (i != HW_CLAIM || hw_samplers)
				printf("ok %d %s # SKIP no cs_etm PMU\n", nr++, claim_names[i]);
		return 0;
	}
	/*
	 * The fuzz, the grace period and the wait for stuck workers, then
	 * what comes after: a fuzzer hung past that says where
	 */
	watchdog_start(seconds + GRACE_SECONDS + STUCK_SECONDS + AFTER_SECONDS);
	watchdog_step("set up");
	if (hotplug && access("/sys/devices/system/cpu/cpu1/online", W_OK))
		hotplug = 0;
	printf("# seed %llu: %d s, %d workers of 2 threads, %d CPUs, CPU hotplug %s; "
	       "%d format fields, %d sinks, %d configurations\n",
	       (unsigned long long)seed, seconds, nr_workers, nr_cpus, hotplug ? "on" : "off",
	       nr_fields, nr_sinks, nr_config_ids);
	printf("# reproduce: cs-etm-fuzz -t %d -s %llu -w %d%s (kernel command line: cs_etm_fuzz=%d cs_etm_fuzz_seed=%llu)\n",
	       seconds, (unsigned long long)seed, nr_workers,
	       hotplug ? (hw_samplers ? " -H" : "") : (hw_samplers ? " -n -H" : " -n"),
	       seconds, (unsigned long long)seed);

	stats = mmap(NULL, sizeof(*stats), PROT_READ | PROT_WRITE,
		     MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	if (stats == MAP_FAILED) {
		printf("# no memory for the statistics\nnot ok 1 cs_etm_fuzz.no_splat\n");
		return 1;	/* short of the plan: the CI fails it */
	}
	/*
	 * A low sample rate limit throttles the samplers, and perf core
	 * throttles their group with them, the cs_etm leader included
	 */
	old_rate = max_sample_rate(0);
	{
		static const int rates[] = { 0, 0, 5000, 1000 };
		struct thread t;
		int rate;

		seed_stream(&t, seed ^ 0xca7e);
		rate = rates[below(&t, 4)];

		if (rate && old_rate > 0 && max_sample_rate(rate) == rate)
			printf("# perf_event_max_sample_rate %d, was %d\n", rate, old_rate);
		else
			old_rate = -1;
	}
	kmsg = kmsg_open();
	taint0 = tainted();
	deadline_mono = now() + seconds;

	pids = calloc(nr_workers, sizeof(*pids));
	for (i = 0; i < nr_workers; i++) {
		pids[i] = fork();
		if (pids[i] == 0) {
			setpgid(0, 0);
			/*
			 * The last resort, if the worker misses its deadline:
			 * SIGALRM kills it, not the watchdog of the main process
			 */
			signal(SIGALRM, SIG_DFL);
			alarm(seconds + GRACE_SECONDS + 5);
			worker(seed + 1000003ULL * i);
		}
		if (pids[i] > 0)
			setpgid(pids[i], pids[i]);
	}

	/* Hotplug until the deadline, then wait for the workers */
	watchdog_step("fuzz");
	{
		struct thread t;

		seed_stream(&t, seed ^ 0x5eed);

		/* CPU hotplug: one CPU (never CPU 0) offline at a time */
		while (hotplug && now() < deadline_mono) {
			int cpu = 1 + below(&t, nr_cpus - 1);

			sleep_ms(500 + below(&t, 2000));
			count(C_HOTPLUG, set_cpu_online(cpu, 0));
			sleep_ms(100 + below(&t, 800));
			count(C_HOTPLUG, set_cpu_online(cpu, 1));
		}
	}
	end = deadline_mono + GRACE_SECONDS;
	for (live = nr_workers; live;) {
		live = 0;
		for (i = 0; i < nr_workers; i++) {
			if (pids[i] > 0 && waitpid(pids[i], NULL, WNOHANG) == pids[i])
				pids[i] = 0;
			live += pids[i] > 0;
		}
		if (!live)
			break;
		if (now() > end + STUCK_SECONDS) {
			for (i = 0; i < nr_workers; i++)
				if (pids[i] > 0)
					show_stuck(pids[i]);
			stuck = live;
			break;
		}
		if (now() > end)
			for (i = 0; i < nr_workers; i++)
				if (pids[i] > 0)
					kill(-pids[i], SIGKILL);
		sleep_ms(100);
	}
	watchdog_step("CPUs online again");
	for (i = 1; i < nr_cpus; i++)
		set_cpu_online(i, 1);
	if (old_rate > 0)
		max_sample_rate(old_rate);

	printf("# %lu iterations in %d s\n", stats->iterations, seconds);
	print_histogram();
	printf("# drained: %lu samples (%lu with AUX data), %lu AUX records (%lu truncated, %lu overwrite, %lu partial, %lu collision), %lu lost, %lu throttle, %lu unthrottle, %lu itrace start, %lu AUX output hw id\n",
	       stats->records[PERF_RECORD_SAMPLE], stats->aux_samples,
	       stats->records[PERF_RECORD_AUX], stats->aux_flags[0], stats->aux_flags[1],
	       stats->aux_flags[2], stats->aux_flags[3], stats->records[PERF_RECORD_LOST],
	       stats->records[PERF_RECORD_THROTTLE], stats->records[PERF_RECORD_UNTHROTTLE],
	       stats->records[PERF_RECORD_ITRACE_START],
	       stats->records[PERF_RECORD_AUX_OUTPUT_HW_ID]);
	if (stats->bad_records)
		printf("# %lu ring buffer records with a bad size\n", stats->bad_records);
	splat_lines = kmsg_splats(kmsg, 10);
	if (kmsg < 0)
		printf("# cannot read /dev/kmsg: the console log check alone decides\n");
	if (tainted() != taint0)
		printf("# the kernel got tainted: %lu, was %lu\n", tainted(), taint0);

	/* A result name that is the same in every run: the counts are diagnostics */
	printf("# %lu iterations, %d splat lines, %d stuck workers\n",
	       stats->iterations, splat_lines, stuck);
	/* No splat, no stuck worker */
	printf("%sok 1 cs_etm_fuzz.no_splat\n",
	       splat_lines || stuck || tainted() != taint0 ? "not " : "");

	for (i = 0; i < nr_cpus; i++) {
		watchdog_step("cs_etm traces on CPU %d", i);
		broken += traces_on(i) != 0;
	}
	/* cs_etm traces on every CPU after the fuzz */
	printf("%sok 2 cs_etm_fuzz.traces_after\n", broken ? "not " : "");

	/* The fuzz did what it claims */
	{
		const unsigned long have[NR_RESULTS - 2] = {
			stats->iterations >= (unsigned long)min_iterations, stats->opened_leaders,
			stats->opened_aux_samplers, stats->opened_pause_samplers,
			stats->opened_hw_samplers, stats->aux_samples_with_trace,
		};

		printf("# %lu iterations, at least %ld asked; opened in AUX sampling groups: %lu cs_etm leaders, %lu PERF_SAMPLE_AUX samplers, %lu aux_pause/aux_resume samplers, %lu of them hardware; %lu AUX samples with trace\n",
		       stats->iterations, min_iterations, stats->opened_leaders,
		       stats->opened_aux_samplers, stats->opened_pause_samplers,
		       stats->opened_hw_samplers, stats->aux_samples_with_trace);
		for (i = 0, nr = 3; i < NR_RESULTS - 2; i++) {
			if (i == HW_CLAIM && !hw_samplers)
				continue;
			printf("%sok %d %s\n", have[i] ? "" : "not ", nr++, claim_names[i]);
			unclaimed += !have[i];
		}
	}
	return splat_lines || stuck || broken || unclaimed;
}
