// SPDX-License-Identifier: GPL-2.0
/*
 * cs-trace-record: record CoreSight trace through perf's cs_etm PMU on the
 * trace path the machine has, and print every AUX buffer on the console
 * for the host to decode (ci/trace.sh, ci/check-trace.py).
 *
 * Two topologies, as QEMU's -M virt,coresight= describes them:
 *  - etr: a memory-mapped ETMv4 per CPU, a funnel and a TMC-ETR; the
 *    events name the ETR with the sinkid config, and record per-thread
 *    into a flat and a scatter-gather ETR buffer, CPU-wide, and with more
 *    trace than the AUX buffer holds (the ETR wraps, the record is
 *    TRUNCATED);
 *  - trbe: an ETE and a TRBE per CPU; per-thread and CPU-wide.
 * Each buffer is printed between a "CSTRACE-BEGIN key=value..." line,
 * which says what the host must find in it (the traced PID, the trace IDs
 * perf gave each CPU, the trace unit configuration for the decoder,
 * whether only user space, this program, was traced), and
 * a "CSTRACE-END" line, as hex.  KTAP results say whether the devices are
 * there and each recording produced trace.
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <fcntl.h>
#include <sched.h>
#include <stdint.h>
#include <stdlib.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/wait.h>

#include "cs-trace-dump.h"
#include "ktap.h"
#include "perf-util.h"
#include "watchdog.h"

#define DATA_PAGES	64		/* ring buffer pages, a power of 2 */
#define AUX_PAGES	256		/* 1MB: the whole trace of a recording */
#define SMALL_AUX_PAGES	16		/* 64KB: less than the ETR buffer */
#define NR_CHILDREN	3
#define MAX_IDS		16		/* CPUs */
/*
 * The recordings take about 20 s on the model; 300 s for a slow emulated
 * CPU on a busy host (printing 1MB AUX buffers in hex is slow), well
 * before the boot's timeout (600 s). A child must end within CHILD_SECONDS.
 */
#define WATCHDOG_SECONDS	300
#define CHILD_SECONDS		60
#define ARRAY_SIZE(a)	(sizeof(a) / sizeof((a)[0]))

#define CS_ETM_PMU	"/sys/bus/event_source/devices/cs_etm"
/* PERF_RECORD_AUX_OUTPUT_HW_ID payload of cs_etm: the trace ID */
#define HW_ID_TRACE_ID(hw_id)	((hw_id) & 0xff)

enum topology { TOPO_NONE, TOPO_ETR, TOPO_TRBE };

enum kind {
	PER_THREAD,	/* this process, moving from CPU to CPU */
	ONE_CPU,	/* CPU-wide on CPU 1, the workload pinned to it */
	ALL_CPUS,	/* CPU-wide on every CPU, user space of children
			 * running at once: the sources interleave */
	WRAP,		/* per-thread, more trace than the AUX buffer */
};

struct recording {
	const char *name;
	const char *etr_buf_mode;	/* ETR only: flat, tmc-sg or auto */
	enum kind kind;
	int aux_pages;
};

/* One cs_etm event and its ring buffer */
struct event {
	int fd, cpu;
	struct perf_event_mmap_page *pc;
	unsigned char *aux;
	size_t aux_size;
};

struct result {
	int nr_aux, truncated, nr_ids, malformed, lost_children;
	int id[MAX_IDS], id_cpu[MAX_IDS];
	pid_t children[NR_CHILDREN];
};

static long page_size;
static int nr_cpus;
static volatile unsigned long sink;

static int write_str(const char *path, const char *s)
{
	int fd = open(path, O_WRONLY), ok;

	if (fd < 0)
		return -1;
	ok = write(fd, s, strlen(s)) == (ssize_t)strlen(s);
	close(fd);
	return ok ? 0 : -1;
}

static int device_exists(const char *fmt, int n)
{
	char path[160], name[32];

	snprintf(name, sizeof(name), fmt, n);
	snprintf(path, sizeof(path), CS_DEVICES "/%s", name);
	return access(path, F_OK) == 0;
}

/* How many devices named PREFIX<n> there are */
static int count_devices(const char *prefix)
{
	DIR *d = opendir(CS_DEVICES);
	struct dirent *e;
	int n = 0;

	if (!d)
		return 0;
	while ((e = readdir(d)))
		if (!strncmp(e->d_name, prefix, strlen(prefix)))
			n++;
	closedir(d);
	return n;
}

static void list_devices(void)
{
	char line[1024] = "";
	DIR *d = opendir(CS_DEVICES);
	struct dirent *e;

	while (d && (e = readdir(d)))
		if (e->d_name[0] != '.' &&
		    strlen(line) + strlen(e->d_name) + 2 < sizeof(line)) {
			strcat(line, " ");
			strcat(line, e->d_name);
		}
	if (d)
		closedir(d);
	ktap_diag("coresight devices:%s", line);
}

/*
 * The trace path the machine describes: one trace source per CPU, and
 * either their own TRBEs or a funnel and an ETR, never both.
 */
static enum topology detect_topology(void)
{
	int etm = 0, ete = 0, trbe = 0;

	for (int cpu = 0; cpu < nr_cpus; cpu++) {
		etm += device_exists("etm%d", cpu);
		ete += device_exists("ete%d", cpu);
		trbe += device_exists("trbe%d", cpu);
	}
	if (etm == nr_cpus && !count_devices("ete") && !count_devices("trbe") &&
	    count_devices("funnel") == 1 && device_exists("tmc_etr%d", 0))
		return TOPO_ETR;
	if (ete == nr_cpus && trbe == nr_cpus && !count_devices("etm") &&
	    !count_devices("funnel") && !count_devices("tmc_etr"))
		return TOPO_TRBE;
	return TOPO_NONE;
}

/* The bit offset of a cs_etm format, "config:14" -> 14 */
static int format_bit(const char *name)
{
	char path[160], buf[64];

	snprintf(path, sizeof(path), CS_ETM_PMU "/format/%s", name);
	if (cs_read_line(path, buf, sizeof(buf)) || !strchr(buf, ':'))
		return -1;
	return atoi(strchr(buf, ':') + 1);
}

/* The sinkid of a sink, for config2 (format "config2:0-31") */
static uint64_t sink_id(const char *sink)
{
	char path[160], buf[64];

	snprintf(path, sizeof(path), CS_ETM_PMU "/sinks/%s", sink);
	if (cs_read_line(path, buf, sizeof(buf)))
		return 0;
	return strtoull(buf, NULL, 0);
}

static void pin_to_cpu_or_all(int cpu)
{
	cpu_set_t set;

	CPU_ZERO(&set);
	if (cpu < 0) {
		for (int i = 0; i < nr_cpus; i++)
			CPU_SET(i, &set);
	} else {
		CPU_SET(cpu, &set);
	}
	sched_setaffinity(0, sizeof(set), &set);
}

static void spin(unsigned long n)
{
	for (unsigned long i = 0; i < n; i++)
		sink += i;
}

/*
 * The traced work: children that run and exit, system calls and loops, so
 * that the trace has user and kernel code, exceptions and context
 * switches.  Per-thread, the process moves to another CPU for each child;
 * on all CPUs, the children run at once, each on a CPU of its own, so
 * that every CPU traces user space.
 */
/* Wait up to CHILD_SECONDS for child @pid, then kill it: 0, or -1 */
static int reap(pid_t pid)
{
	if (pid <= 0)
		return 0;
	watchdog_step("wait for child %d", pid);
	return watchdog_reap(pid, CHILD_SECONDS, watchdog_step_name) < 0 ? -1 : 0;
}

static void workload(const struct recording *rec, struct result *r)
{
	if (rec->kind == WRAP) {
		spin(1500000);
		return;
	}
	/* On all CPUs: this process on CPU 0, the children on the others */
	if (rec->kind == ALL_CPUS)
		pin_to_cpu_or_all(0);
	for (int i = 0; i < NR_CHILDREN; i++) {
		if (rec->kind == PER_THREAD)
			pin_to_cpu_or_all(i % nr_cpus);
		r->children[i] = fork();
		if (r->children[i] == 0) {
			if (rec->kind == ALL_CPUS) {
				pin_to_cpu_or_all((i + 1) % nr_cpus);
				spin(30000);
			}
			spin(3000);
			_exit(0);
		}
		if (r->children[i] < 0)
			ktap_diag("fork: %s", strerror(errno));
		if (rec->kind != ALL_CPUS)
			r->lost_children += reap(r->children[i]) < 0;
		spin(3000);
		syscall(SYS_getppid);
	}
	if (rec->kind == ALL_CPUS)
		for (int i = 0; i < NR_CHILDREN; i++)
			r->lost_children += reap(r->children[i]) < 0;
	for (int i = 0; i < NR_CHILDREN; i++)
		r->lost_children += r->children[i] < 0;
}

static void note_trace_id(struct result *r, int id, int cpu)
{
	for (int i = 0; i < r->nr_ids; i++)
		if (r->id[i] == id)
			return;
	if (r->nr_ids < MAX_IDS) {
		r->id[r->nr_ids] = id;
		r->id_cpu[r->nr_ids++] = cpu;
	}
}

/*
 * The records of the data ring: PERF_RECORD_AUX (flags) and
 * PERF_RECORD_AUX_OUTPUT_HW_ID (the trace ID of the CPU in its sample_id:
 * pid, tid, cpu, res with PERF_SAMPLE_TID | PERF_SAMPLE_CPU).
 */
static void read_records(struct perf_event_mmap_page *pc, struct result *r)
{
	uint64_t head = __atomic_load_n(&pc->data_head, __ATOMIC_ACQUIRE);
	unsigned char *data = (unsigned char *)pc + pc->data_offset;

	for (uint64_t off = 0; off < head && off < pc->data_size;) {
		struct perf_event_header *h = (void *)(data + off);
		uint64_t *p = (uint64_t *)(h + 1);

		if (h->size < sizeof(*h) || off + h->size > head) {
			ktap_diag("malformed ring buffer: type %u size %u at %llu, head %llu",
				  h->type, h->size, (unsigned long long)off,
				  (unsigned long long)head);
			r->malformed++;
			break;
		}
		if (h->type == PERF_RECORD_AUX) {
			r->nr_aux++;
			if (p[2] & PERF_AUX_FLAG_TRUNCATED)
				r->truncated++;
			ktap_diag("aux record: offset %llu size %llu flags 0x%llx",
				  (unsigned long long)p[0],
				  (unsigned long long)p[1],
				  (unsigned long long)p[2]);
		} else if (h->type == PERF_RECORD_AUX_OUTPUT_HW_ID) {
			uint32_t *sample_id = (uint32_t *)(p + 1);

			note_trace_id(r, HW_ID_TRACE_ID(p[0]), sample_id[2]);
		}
		off += h->size;
	}
}

/* The PIDs in /proc: the tasks a CPU-wide recording may have seen */
static void print_pids(void)
{
	DIR *d = opendir("/proc");
	struct dirent *e;

	printf(" alive=");
	while (d && (e = readdir(d)))
		if (e->d_name[0] >= '0' && e->d_name[0] <= '9')
			printf("%s,", e->d_name);
	if (d)
		closedir(d);
}

/*
 * User space only for the long loop, and on all CPUs, where the idle CPUs
 * would fill the buffer with their kernel trace.  The host can then
 * decode it instruction by instruction with this program's text.
 */
static int user_only(const struct recording *rec)
{
	return rec->kind == WRAP || rec->kind == ALL_CPUS;
}

static const char *recording_cpu(const struct recording *rec)
{
	return rec->kind == ONE_CPU ? "1" : rec->kind == ALL_CPUS ? "all" : "-1";
}

/* Print the AUX buffer of @ev, @size bytes, for ci/check-trace.py */
static void dump(const struct recording *rec, enum topology topo,
		 const struct event *ev, uint64_t size, const struct result *r)
{
	char source[16];

	printf("CSTRACE-BEGIN name=%s", rec->name);
	if (rec->kind == ALL_CPUS && topo == TOPO_TRBE)
		printf(".cpu%d", ev->cpu);
	printf(" format=%s pid=%d cpu=%s user=%d size=%llu truncated=%d "
	       "children=", topo == TOPO_ETR ? "etr" : "ete", getpid(),
	       recording_cpu(rec), user_only(rec), (unsigned long long)size,
	       r->truncated);
	for (int i = 0; i < NR_CHILDREN; i++)
		printf("%d,", r->children[i]);
	printf(" traceids=");
	for (int i = 0; i < r->nr_ids; i++)
		printf("0x%x:%d,", r->id[i], r->id_cpu[i]);
	/* The trace unit of a CPU that traced: perf programmed them alike */
	snprintf(source, sizeof(source), "%s%d",
		 topo == TOPO_ETR ? "etm" : "ete", r->nr_ids ? r->id_cpu[0] : 0);
	cs_trace_print_config(source);
	if (rec->kind == ONE_CPU || rec->kind == ALL_CPUS)
		print_pids();
	cs_trace_print_data(ev->aux, size);
}

/* Open a cs_etm event with its ring and AUX buffers; 0 or -1 */
static int event_open(struct event *ev, const struct recording *rec,
		      enum topology topo, int cpu)
{
	struct perf_event_attr attr;
	int bit;

	memset(ev, 0, sizeof(*ev));
	ev->cpu = cpu;
	ev->aux_size = (size_t)rec->aux_pages * page_size;
	cs_etm_attr(&attr, pmu_type("cs_etm"));
	bit = format_bit("contextid");
	if (bit >= 0)
		attr.config |= 1ULL << bit;
	bit = format_bit("timestamp");
	if (bit >= 0)
		attr.config |= 1ULL << bit;
	if (topo == TOPO_ETR)
		attr.config2 = sink_id("tmc_etr0");
	attr.exclude_kernel = user_only(rec);
	attr.exclude_hv = 1;
	attr.sample_id_all = 1;
	attr.sample_type = PERF_SAMPLE_TID | PERF_SAMPLE_CPU;

	ev->fd = perf_event_open(&attr, cpu >= 0 ? -1 : 0, cpu, -1, 0);
	if (ev->fd < 0) {
		ktap_diag("%s: perf_event_open on CPU %d: %s", rec->name, cpu,
			  strerror(errno));
		return -1;
	}
	ev->pc = mmap(NULL, (DATA_PAGES + 1) * page_size,
		      PROT_READ | PROT_WRITE, MAP_SHARED, ev->fd, 0);
	if (ev->pc == MAP_FAILED) {
		ktap_diag("%s: mmap: %s", rec->name, strerror(errno));
		ev->pc = NULL;
		return -1;
	}
	ev->pc->aux_offset = (DATA_PAGES + 1) * page_size;
	ev->pc->aux_size = ev->aux_size;
	ev->aux = mmap(NULL, ev->aux_size, PROT_READ | PROT_WRITE, MAP_SHARED,
		       ev->fd, ev->pc->aux_offset);
	if (ev->aux == MAP_FAILED) {
		ktap_diag("%s: mmap aux: %s", rec->name, strerror(errno));
		ev->aux = NULL;
		return -1;
	}
	return 0;
}

static void event_close(struct event *ev)
{
	if (ev->aux)
		munmap(ev->aux, ev->aux_size);
	if (ev->pc)
		munmap(ev->pc, (DATA_PAGES + 1) * page_size);
	if (ev->fd > 0)
		close(ev->fd);
}

/*
 * Record the workload: one per-thread event, or CPU-wide events, then
 * print every AUX buffer that has trace.  Returns the bytes of trace.
 */
static uint64_t record(const struct recording *rec, enum topology topo,
		       struct result *r)
{
	struct event ev[MAX_IDS];
	int nev = rec->kind == ALL_CPUS ? nr_cpus : 1, opened = 0;
	uint64_t total = 0, head;

	memset(r, 0, sizeof(*r));
	for (; opened < nev; opened++) {
		int cpu = rec->kind == ALL_CPUS ? opened :
			rec->kind == ONE_CPU ? 1 : -1;

		if (event_open(&ev[opened], rec, topo, cpu)) {
			event_close(&ev[opened]);
			goto out;
		}
	}
	if (rec->kind == ONE_CPU)
		pin_to_cpu_or_all(1);
	for (int i = 0; i < nev; i++)
		ioctl(ev[i].fd, PERF_EVENT_IOC_ENABLE, 0);
	workload(rec, r);
	for (int i = 0; i < nev; i++)
		ioctl(ev[i].fd, PERF_EVENT_IOC_DISABLE, 0);
	pin_to_cpu_or_all(-1);

	for (int i = 0; i < nev; i++)
		read_records(ev[i].pc, r);
	for (int i = 0; i < nev; i++) {
		head = __atomic_load_n(&ev[i].pc->aux_head, __ATOMIC_ACQUIRE);
		if (head > ev[i].aux_size) {
			ktap_diag("%s: aux_head %llu beyond the buffer",
				  rec->name, (unsigned long long)head);
			total = 0;
			goto out;
		}
		if (head)
			dump(rec, topo, &ev[i], head, r);
		total += head;
	}
out:
	while (opened--)
		event_close(&ev[opened]);
	return total;
}

static const struct recording etr_recordings[] = {
	{ "per-thread-flat", "flat", PER_THREAD, AUX_PAGES },
	{ "per-thread-sg", "tmc-sg", PER_THREAD, AUX_PAGES },
	{ "cpu-wide", "auto", ONE_CPU, AUX_PAGES },
	{ "cpu-wide-all", "auto", ALL_CPUS, AUX_PAGES },
	{ "wrap-flat", "flat", WRAP, SMALL_AUX_PAGES },
	{ "wrap-sg", "tmc-sg", WRAP, SMALL_AUX_PAGES },
};

static const struct recording trbe_recordings[] = {
	{ "per-thread", NULL, PER_THREAD, AUX_PAGES },
	{ "cpu-wide", NULL, ONE_CPU, AUX_PAGES },
	{ "cpu-wide-all", NULL, ALL_CPUS, AUX_PAGES },
};

/* The result of @rec: cs_trace_record.NAME, NAME in snake_case */
static const char *result_name(char *name, size_t len, const struct recording *rec)
{
	snprintf(name, len, "cs_trace_record.%s", rec->name);
	for (char *c = name; *c; c++)
		if (*c == '-')
			*c = '_';
	return name;
}

static void run_recording(const struct recording *rec, enum topology topo)
{
	char name[96];
	struct result r;
	uint64_t bytes;
	int ok;

	if (rec->etr_buf_mode &&
	    write_str(CS_DEVICES "/tmc_etr0/buf_mode_preferred",
		      rec->etr_buf_mode)) {
		ktap_diag("%s: cannot set the ETR buffer mode %s", rec->name,
			  rec->etr_buf_mode);
		ktap_result(0, result_name(name, sizeof(name), rec));
		return;
	}
	watchdog_step("%s", rec->name);
	bytes = record(rec, topo, &r);
	if (topo == TOPO_ETR) {
		char sts[32] = "?";

		cs_read_line(CS_DEVICES "/tmc_etr0/mgmt/sts", sts, sizeof(sts));
		ktap_diag("%s: tmc_etr0 STS after the recording: %s", rec->name,
			  sts);
	}
	ok = bytes > 0 && r.nr_aux > 0 && r.nr_ids > 0 && !r.malformed && !r.lost_children;
	if (r.lost_children)
		ktap_diag("%s: %d children not forked or not ended", rec->name, r.lost_children);
	/* Each CPU traced, with a trace ID of its own */
	if (rec->kind == ALL_CPUS)
		ok = ok && r.nr_ids == nr_cpus;
	/* The ETR buffer wrapped: only its latest trace fits */
	if (rec->kind == WRAP)
		ok = ok && r.truncated;
	ktap_diag("%s: %llu bytes of trace from %d CPU(s)%s", rec->name,
		  (unsigned long long)bytes, r.nr_ids, rec->kind == WRAP ? ", truncated" : "");
	ktap_result(ok, result_name(name, sizeof(name), rec));
}

int main(void)
{
	const struct recording *recs;
	enum topology topo;
	char name[96];
	int n;

	setvbuf(stdout, NULL, _IOLBF, 0);
	watchdog_start(WATCHDOG_SECONDS);
	page_size = sysconf(_SC_PAGESIZE);
	nr_cpus = sysconf(_SC_NPROCESSORS_ONLN);
	if (nr_cpus > MAX_IDS)
		nr_cpus = MAX_IDS;
	topo = detect_topology();
	recs = topo == TOPO_ETR ? etr_recordings : trbe_recordings;
	n = topo == TOPO_ETR ? ARRAY_SIZE(etr_recordings) :
		ARRAY_SIZE(trbe_recordings);

	ktap_plan("cs_trace_record", 1 + n);
	list_devices();
	ktap_diag("devices: %s", topo == TOPO_ETR ? "etm per CPU, funnel, tmc_etr" :
		  topo == TOPO_TRBE ? "ete and trbe per CPU" : "no CoreSight trace path");
	if (!ktap_result(topo != TOPO_NONE && nr_cpus >= 2, "cs_trace_record.devices")) {
		for (int i = 0; i < n; i++)
			ktap_skip(result_name(name, sizeof(name), &recs[i]), "no trace path");
		return 1;
	}
	for (int i = 0; i < n; i++)
		run_recording(&recs[i], topo);
	return 0;
}
