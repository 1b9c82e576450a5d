// SPDX-License-Identifier: GPL-2.0
/*
 * AUX sampling with the cs_etm PMU through the perf ABI, good and bad
 * input: one table of perf_event_attr and perf_event_open() arguments,
 * each row with the errno of the call that must refuse it or, for the
 * rows that run, what their samples must hold. None may oops: ci/boot.sh
 * fails the boot on any splat.
 *
 * The rows that only open events need the cs_etm PMU. The rows that map
 * an AUX buffer need ETE and TRBE, for example QEMU with the CoreSight
 * model of tools/qemu, and are skipped without them; the row with an
 * offline CPU needs CPU hotplug.
 *
 * Without snapshot_aux in the cs_etm PMU, perf core refuses every
 * sampling event with an aux_sample_size under a cs_etm leader, so the
 * rows where such a sampler opens fail on a kernel without the series
 * (ci/prove-tests-fail.sh lists them).
 *
 * The expected errno of each row comes from the code of the pinned tree,
 * as the comments say: "core.c" is kernel/events/core.c, "etm-perf" is
 * drivers/hwtracing/coresight/coresight-etm-perf.c.
 */
#define _GNU_SOURCE
#include <fcntl.h>
#include <sched.h>
#include <stdint.h>
#include <stdlib.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <time.h>

#include "cpu-online.h"
#include "ktap.h"
#include "perf-util.h"
#include "watchdog.h"

#define DATA_PAGES	64	/* ring buffer pages, a power of 2 */
#define AUX_PAGES	16	/* AUX buffer pages, unless a row says */
#define U16_MAX		65535
#define NO_SINK_ID	0x5eeded00	/* the name hash of no sink */
#define NO_CONFIG_ID	0x5eeded01	/* the name hash of no configuration */
#define ALL_EXCLUDES	0x1f		/* see set_excludes() */

enum leader { CS_ETM_LEADER, NO_LEADER, CPU_CLOCK_LEADER };

/* Where the group is: the calling thread, or CPU-wide on a CPU */
enum target { THIS_THREAD, ON_CPU0, ON_CPU2, ON_CPU_NR_CPU_IDS, ON_OFFLINE_CPU, NO_TARGET };

enum sink { DEFAULT_SINK, NO_SUCH_SINK, TRBE1_SINK };

/* The leader's AUX buffer: not mapped, or mapped before or after the sampler opens */
enum aux_map { NO_AUX, AUX_BEFORE_SAMPLER, AUX_AFTER_SAMPLER };

/* The call that must fail */
enum step { NO_STEP, AT_LEADER, AT_SAMPLER, AT_AUX_MMAP };

/* What the samples of a row that runs must hold */
enum want {
	NO_RUN,
	WANT_TRACE,		/* .bytes bytes each, some of them with trace */
	WANT_ZEROS,		/* .bytes bytes each, all zero */
	WANT_SIZE,		/* .bytes bytes each, whatever they hold */
	WANT_NO_SAMPLES,	/* the group never ran */
	WANT_TRUNCATED,		/* no samples, the leader's AUX output was truncated */
};

/* The sampler's flags */
#define S_AUX_OUTPUT	(1 << 0)
#define S_AUX_PAUSE	(1 << 1)
#define S_AUX_RESUME	(1 << 2)
#define S_INHERIT	(1 << 3)
#define S_NO_GROUP	(1 << 4)	/* PERF_FLAG_FD_NO_GROUP */
#define S_CPU_WIDE	(1 << 5)	/* on CPU 0, whatever the leader is on */
#define S_NOT_PERF_FD	(1 << 6)	/* group_fd is not a perf event */
#define S_CS_ETM	(1 << 7)	/* a cs_etm event, not cpu-clock */

/* The leader's flags */
#define L_AUX_OUTPUT	(1 << 0)
#define L_START_PAUSED	(1 << 1)
#define L_NO_CONFIG	(1 << 2)	/* configid of no configuration */

struct open_case {
	const char *name;
	enum leader leader;
	enum target target;
	unsigned int lflags;
	const char *format;	/* a cs_etm format field to set to 1 */
	uint64_t config, config3;	/* more cs_etm config bits */
	unsigned int excludes;
	enum sink sink;
	enum aux_map aux;
	int aux_pages, aux_writable;
	unsigned int aux_sample_size;
	unsigned int sflags;
	int run_cpu;		/* the CPU to run on, for the rows that run */
	enum step fail;		/* the call that must fail, with errno .err */
	int err;
	enum want want;
	unsigned int bytes;	/* AUX bytes in each sample */
};

/* header, TID, CPU and the AUX size field: see perf_prepare_sample() */
#define CAPPED_64K	((U16_MAX - 4 * 8) & ~7)

static const struct open_case cases[] = {
	/* Opening a sampler under a cs_etm leader, without AUX buffer */
	{ "4KiB samples under a cs_etm leader are accepted", .aux_sample_size = 4096 },
	{ "64KiB samples under a cs_etm leader are accepted", .aux_sample_size = 65536 },
	/* core.c perf_prepare_sample() caps the sample when it is taken */
	{ "1MiB samples are accepted, perf core caps them", .aux_sample_size = 1 << 20 },
	{ "a size that is not a multiple of 8 is accepted", .aux_sample_size = 4097 },
	/* core.c has_aux_action() is false: no link to the leader at all */
	{ "aux_sample_size 0 takes no AUX sample and is accepted", .aux_sample_size = 0 },
	/* core.c perf_event_open(): perf_get_aux_event() fails without group_leader */
	{ "aux_sample_size without a group leader is refused", .leader = NO_LEADER,
	  .aux_sample_size = 4096, .fail = AT_SAMPLER, .err = EINVAL },
	/* perf_get_aux_event(): the leader's PMU has no snapshot_aux */
	{ "aux_sample_size under a non-AUX leader is refused", .leader = CPU_CLOCK_LEADER,
	  .aux_sample_size = 4096, .fail = AT_SAMPLER, .err = EINVAL },
	/* core.c perf_event_alloc(): aux_output needs PERF_PMU_CAP_AUX_OUTPUT, checked first */
	{ "aux_sample_size with aux_output is refused", .aux_sample_size = 4096,
	  .sflags = S_AUX_OUTPUT, .fail = AT_SAMPLER, .err = EOPNOTSUPP },
	/* perf_event_open(): PERF_FLAG_FD_NO_GROUP drops group_leader, as above */
	{ "aux_sample_size with PERF_FLAG_FD_NO_GROUP is refused", .aux_sample_size = 4096,
	  .sflags = S_NO_GROUP, .fail = AT_SAMPLER, .err = EINVAL },
	/* perf_event_open(): group_leader->cpu != event->cpu */
	{ "a CPU-wide sampler under a per-thread cs_etm leader is refused", .aux_sample_size = 4096,
	  .sflags = S_CPU_WIDE, .fail = AT_SAMPLER, .err = EINVAL },
	/* perf_event_open(): group_leader->attr.inherit != attr.inherit */
	{ "an inherited sampler under a leader that is not is refused", .aux_sample_size = 4096,
	  .sflags = S_INHERIT, .fail = AT_SAMPLER, .err = EINVAL },
	/* perf_event_open(): !is_perf_file(group) */
	{ "a group_fd that is not a perf event is refused", .aux_sample_size = 4096,
	  .sflags = S_NOT_PERF_FD, .fail = AT_SAMPLER, .err = EBADF },
	/* cs_etm is PERF_PMU_CAP_EXCLUSIVE: core.c exclusive_event_installable() */
	{ "a cs_etm sibling of a cs_etm leader is refused", .sflags = S_CS_ETM,
	  .fail = AT_SAMPLER, .err = EBUSY },
	/* etm-perf sets PERF_PMU_CAP_AUX_PAUSE, in the base tree too */
	{ "aux_pause under a cs_etm leader is accepted", .sflags = S_AUX_PAUSE },
	/* perf_get_aux_event(): the leader has no PERF_PMU_CAP_AUX_PAUSE */
	{ "aux_pause under a cpu-clock leader is refused", .leader = CPU_CLOCK_LEADER,
	  .sflags = S_AUX_PAUSE, .fail = AT_SAMPLER, .err = EINVAL },
	/* perf_event_alloc(): aux_pause && aux_resume */
	{ "aux_pause with aux_resume is refused", .sflags = S_AUX_PAUSE | S_AUX_RESUME,
	  .fail = AT_SAMPLER, .err = EINVAL },
	/* perf_event_alloc(): aux_start_paused without PERF_PMU_CAP_AUX_PAUSE */
	{ "aux_start_paused on a cpu-clock event is refused", .leader = CPU_CLOCK_LEADER,
	  .lflags = L_START_PAUSED, .fail = AT_LEADER, .err = EOPNOTSUPP },
	/* perf_event_alloc(): cs_etm has no PERF_PMU_CAP_AUX_OUTPUT */
	{ "aux_output on a cs_etm event is refused", .lflags = L_AUX_OUTPUT,
	  .fail = AT_LEADER, .err = EOPNOTSUPP },
	/* perf_event_alloc(): (unsigned)cpu >= nr_cpu_ids */
	{ "a cs_etm event on CPU nr_cpu_ids is refused", .target = ON_CPU_NR_CPU_IDS,
	  .fail = AT_LEADER, .err = EINVAL },
	/* perf_event_alloc(): cpu -1 needs a task */
	{ "a cs_etm event with neither a task nor a CPU is refused", .target = NO_TARGET,
	  .fail = AT_LEADER, .err = EINVAL },
	/* perf_event_open(): !cpuctx->online */
	{ "a cs_etm event on an offline CPU is refused", .target = ON_OFFLINE_CPU,
	  .fail = AT_LEADER, .err = ENODEV },
	/* etm_event_init() checks only the type; etm4_parse_event_config() maps them */
	{ "exclude_user, _kernel, _hv, _host and _guest together are accepted",
	  .excludes = ALL_EXCLUDES },

	/* The AUX buffer, and samples */
	{ "the sampler opened before the AUX buffer is mapped: 4096 bytes with trace",
	  .aux = AUX_AFTER_SAMPLER, .aux_sample_size = 4096, .run_cpu = 1,
	  .want = WANT_TRACE, .bytes = 4096 },
	{ "the sampler opened after the AUX buffer is mapped: 4096 bytes with trace",
	  .aux = AUX_BEFORE_SAMPLER, .aux_sample_size = 4096, .run_cpu = 1,
	  .want = WANT_TRACE, .bytes = 4096 },
	/* core.c perf_prepare_sample(): rounddown(size, 8) */
	{ "4100 byte samples are cut to 4096 bytes, with trace",
	  .aux = AUX_BEFORE_SAMPLER, .aux_sample_size = 4100, .run_cpu = 1,
	  .want = WANT_TRACE, .bytes = 4096 },
	/* core.c perf_prepare_sample_aux(): min(size, perf_aux_size(rb)) */
	{ "32KiB samples from a 4 page AUX buffer are cut to 16384 bytes, with trace",
	  .aux = AUX_BEFORE_SAMPLER, .aux_pages = 4, .aux_sample_size = 32768, .run_cpu = 1,
	  .want = WANT_TRACE, .bytes = 16384 },
	/* perf_prepare_sample(): U16_MAX less the rest of the record */
	{ "1MiB samples from a 32 page AUX buffer are cut to the record limit, with trace",
	  .aux = AUX_BEFORE_SAMPLER, .aux_pages = 32, .aux_sample_size = 1 << 20, .run_cpu = 1,
	  .want = WANT_TRACE, .bytes = CAPPED_64K },
	/*
	 * etm_event_snapshot_aux(): no snapshot unless event_data->overwrite.
	 * Nothing reads the normal mode buffer: once full, the TRBE truncates
	 * the session and the group stops. 16 pages filled on the model about
	 * as fast as the first 1ms sample came (no sample, in 2 of 4 debug
	 * boots); 512 pages last many samples.
	 */
	{ "a normal mode AUX buffer (PROT_READ|PROT_WRITE) gives all-zero samples",
	  .aux = AUX_BEFORE_SAMPLER, .aux_writable = 1, .aux_pages = 512,
	  .aux_sample_size = 4096, .run_cpu = 1, .want = WANT_ZEROS, .bytes = 4096 },
	/* core.c perf_output_sample(): PERF_SAMPLE_AUX writes a zero size */
	{ "aux_sample_size 0 with PERF_SAMPLE_AUX: samples without AUX data",
	  .aux = AUX_BEFORE_SAMPLER, .aux_sample_size = 0, .run_cpu = 1,
	  .want = WANT_SIZE, .bytes = 0 },
	/*
	 * perf_aux_output_begin() finds no AUX buffer, so etm_event_add()
	 * fails and the group is not scheduled in
	 */
	{ "without an AUX buffer the group does not run: no samples",
	  .aux_sample_size = 4096, .run_cpu = 1, .want = WANT_NO_SAMPLES },
	/* arm_trbe_alloc_buffer() needs 2 pages: etm_setup_aux() fails, rb_alloc_aux() -ENOMEM */
	{ "a 1 page AUX buffer is refused by the TRBE", .aux = AUX_BEFORE_SAMPLER, .aux_pages = 1,
	  .aux_sample_size = 4096, .fail = AT_AUX_MMAP, .err = ENOMEM },
	/* etm_setup_aux(): cscfg_activate_config() fails, rb_alloc_aux() -ENOMEM */
	{ "a configid of no configuration is refused at the AUX mmap", .lflags = L_NO_CONFIG,
	  .aux = AUX_BEFORE_SAMPLER, .aux_sample_size = 4096, .fail = AT_AUX_MMAP, .err = ENOMEM },
	/*
	 * etm_setup_aux(): coresight_get_sink_by_id() finds no sink, so
	 * user_sink is NULL and the default sink of each CPU is used
	 */
	{ "a sinkid of no sink falls back to the default sink: 4096 bytes with trace",
	  .sink = NO_SUCH_SINK, .aux = AUX_BEFORE_SAMPLER, .aux_sample_size = 4096,
	  .run_cpu = 1, .want = WANT_TRACE, .bytes = 4096 },
	/* etm_event_build_path() finds no path from CPU 0 to TRBE 1: an empty mask */
	{ "a CPU-bound event whose CPU cannot reach the sink is refused at the AUX mmap",
	  .target = ON_CPU0, .sink = TRBE1_SINK, .aux = AUX_BEFORE_SAMPLER,
	  .aux_sample_size = 4096, .fail = AT_AUX_MMAP, .err = ENOMEM },
	/*
	 * CPU 0 is not in the event's mask: etm_event_start() runs the event
	 * without a path, and etm_event_snapshot_aux() pads with zeros
	 */
	{ "a per-thread event with the sink of CPU 1: all-zero samples on CPU 0",
	  .sink = TRBE1_SINK, .aux = AUX_BEFORE_SAMPLER, .aux_sample_size = 4096,
	  .run_cpu = 0, .want = WANT_ZEROS, .bytes = 4096 },
	{ "a per-thread event with the sink of CPU 1: 4096 bytes with trace on CPU 1",
	  .sink = TRBE1_SINK, .aux = AUX_BEFORE_SAMPLER, .aux_sample_size = 4096,
	  .run_cpu = 1, .want = WANT_TRACE, .bytes = 4096 },
	{ "a CPU-wide group on CPU 2: 4096 bytes with trace",
	  .target = ON_CPU2, .aux = AUX_BEFORE_SAMPLER, .aux_sample_size = 4096,
	  .run_cpu = 2, .want = WANT_TRACE, .bytes = 4096 },
	/*
	 * etm_event_init() takes any config; etm4_parse_event_config() only
	 * looks at the format fields
	 */
	{ "config and config3 bits outside the format are ignored: 4096 bytes with trace",
	  .config = 1ULL << 40, .config3 = 1ULL << 40, .aux = AUX_BEFORE_SAMPLER,
	  .aux_sample_size = 4096, .run_cpu = 1, .want = WANT_TRACE, .bytes = 4096 },
	/*
	 * etm4_parse_event_config() refuses contextid2 with the kernel at EL1,
	 * and branch_broadcast without TRCIDR0.TRCBB (the model has neither):
	 * etm_event_start() truncates the AUX output, perf core disables the
	 * leader, and the group never samples
	 */
	{ "contextid2 with the kernel at EL1: the AUX output is truncated, no samples",
	  .format = "contextid2", .aux = AUX_BEFORE_SAMPLER, .aux_sample_size = 4096,
	  .run_cpu = 1, .want = WANT_TRUNCATED },
	{ "branch_broadcast without ETE support: the AUX output is truncated, no samples",
	  .format = "branch_broadcast", .aux = AUX_BEFORE_SAMPLER, .aux_sample_size = 4096,
	  .run_cpu = 1, .want = WANT_TRUNCATED },
	{ "all exclude_ bits: 4096 byte samples",
	  .excludes = ALL_EXCLUDES, .aux = AUX_BEFORE_SAMPLER, .aux_sample_size = 4096,
	  .run_cpu = 1, .want = WANT_SIZE, .bytes = 4096 },
};

struct group {
	int leader, sampler;
	struct perf_event_mmap_page *pc;
	void *aux;
	size_t aux_size;
};

struct sample_stats {
	int nr, bad_size, with_trace, all_zero, bad_tid, bad_cpu, truncated, malformed;
};

static long page_size;
static int cs_etm_type, have_trbe;

static int nr_cpu_ids(void)
{
	int first, last = -1;
	FILE *f = fopen("/sys/devices/system/cpu/possible", "r");

	if (f) {
		if (fscanf(f, "%d-%d", &first, &last) == 1)
			last = first;
		fclose(f);
	}
	return last + 1;
}

#define CPU3_ONLINE	"/sys/devices/system/cpu/cpu3/online"

/* CPU 3 offline or online: 0 if done, -1 with a diagnostic if not */
static int set_cpu3_online(int online)
{
	if (!set_cpu_online(3, online))
		return 0;
	ktap_diag("write %d to %s: %s", online, CPU3_ONLINE, strerror(errno));
	return -1;
}

static int target_cpu(const struct open_case *c)
{
	switch (c->target) {
	case ON_CPU0:
		return 0;
	case ON_CPU2:
		return 2;
	case ON_CPU_NR_CPU_IDS:
		return nr_cpu_ids();
	case ON_OFFLINE_CPU:
		return 3;
	default:
		return -1;
	}
}

static int target_pid(const struct open_case *c)
{
	return c->target == THIS_THREAD ? 0 : -1;
}

static void set_excludes(struct perf_event_attr *attr, unsigned int excludes)
{
	attr->exclude_user = !!(excludes & 1);
	attr->exclude_kernel = !!(excludes & 2);
	attr->exclude_hv = !!(excludes & 4);
	attr->exclude_host = !!(excludes & 8);
	attr->exclude_guest = !!(excludes & 16);
}

static int open_leader(const struct open_case *c)
{
	struct perf_event_attr attr;
	int bit;

	if (c->leader == CPU_CLOCK_LEADER) {
		aux_sampler_attr(&attr, 0);
		attr.sample_type = PERF_SAMPLE_TID;
		attr.disabled = 1;
	} else {
		cs_etm_attr(&attr, cs_etm_type);
		if (c->format) {
			bit = cs_etm_format_bit(c->format);
			if (bit < 0) {
				ktap_diag("no cs_etm format field %s", c->format);
				errno = ENOENT;
				return -1;
			}
			attr.config |= 1ULL << bit;
		}
		attr.config |= c->config;
		attr.config3 |= c->config3;
		if (c->sink == NO_SUCH_SINK)
			attr.config2 |= NO_SINK_ID;
		else if (c->sink == TRBE1_SINK)
			attr.config2 |= cs_etm_sink_id("trbe1");
		if (c->lflags & L_NO_CONFIG)
			attr.config2 |= (uint64_t)NO_CONFIG_ID << 32;
	}
	set_excludes(&attr, c->excludes);
	attr.aux_output = !!(c->lflags & L_AUX_OUTPUT);
	attr.aux_start_paused = !!(c->lflags & L_START_PAUSED);
	return perf_event_open(&attr, target_pid(c), target_cpu(c), -1, 0);
}

static int open_sampler(const struct open_case *c, int leader)
{
	struct perf_event_attr attr;
	int pid = target_pid(c), cpu = target_cpu(c), group = leader, fd;
	unsigned long flags = 0;

	if (c->sflags & S_CS_ETM) {
		cs_etm_attr(&attr, cs_etm_type);
	} else {
		/* No excludes: a cpu-clock event excluding everything never samples */
		aux_sampler_attr(&attr, c->aux_sample_size);
		attr.disabled = 1;
	}
	attr.aux_output = !!(c->sflags & S_AUX_OUTPUT);
	attr.aux_pause = !!(c->sflags & S_AUX_PAUSE);
	attr.aux_resume = !!(c->sflags & S_AUX_RESUME);
	attr.inherit = !!(c->sflags & S_INHERIT);
	if (c->sflags & S_NO_GROUP)
		flags |= PERF_FLAG_FD_NO_GROUP;
	if (c->sflags & S_CPU_WIDE) {
		pid = -1;
		cpu = 0;
	}
	if (c->sflags & S_NOT_PERF_FD) {
		group = open("/proc/self/stat", O_RDONLY);
		if (group < 0)
			return -1;
	}
	fd = perf_event_open(&attr, pid, cpu, group, flags);
	if (c->sflags & S_NOT_PERF_FD) {
		int err = errno;

		close(group);
		errno = err;
	}
	return fd;
}

static int map_ring(struct group *g)
{
	g->pc = mmap(NULL, (DATA_PAGES + 1) * page_size, PROT_READ | PROT_WRITE,
		     MAP_SHARED, g->leader, 0);
	if (g->pc == MAP_FAILED) {
		g->pc = NULL;
		return -1;
	}
	return 0;
}

/* PROT_READ alone maps the AUX buffer in overwrite mode, as AUX sampling needs */
static int map_aux(struct group *g, const struct open_case *c)
{
	int prot = PROT_READ | (c->aux_writable ? PROT_WRITE : 0);

	g->aux_size = (c->aux_pages ? c->aux_pages : AUX_PAGES) * page_size;
	g->pc->aux_offset = (DATA_PAGES + 1) * page_size;
	g->pc->aux_size = g->aux_size;
	g->aux = mmap(NULL, g->aux_size, prot, MAP_SHARED, g->leader, g->pc->aux_offset);
	if (g->aux == MAP_FAILED) {
		g->aux = NULL;
		return -1;
	}
	return 0;
}

static void group_close(struct group *g)
{
	if (g->aux)
		munmap(g->aux, g->aux_size);
	if (g->pc)
		munmap(g->pc, (DATA_PAGES + 1) * page_size);
	if (g->sampler >= 0)
		close(g->sampler);
	if (g->leader >= 0)
		close(g->leader);
}

/* The samples of the sampler (TID, CPU, AUX) and the AUX records of the leader */
static struct sample_stats ring_stats(struct group *g, const struct open_case *c)
{
	struct sample_stats st = {};
	uint8_t *data = (uint8_t *)g->pc + page_size;
	uint64_t head = __atomic_load_n(&g->pc->data_head, __ATOMIC_ACQUIRE);
	uint64_t off, ring = DATA_PAGES * page_size;
	uint8_t *rec = malloc(U16_MAX + 1);

	for (off = g->pc->data_tail; rec && off < head;) {
		struct perf_event_header h;
		uint64_t i, size, flags, zeros;
		uint32_t tid, cpu;

		/* Records may wrap around the end of the ring: copy them out */
		for (i = 0; i < sizeof(h); i++)
			((uint8_t *)&h)[i] = data[(off + i) % ring];
		if (h.size < sizeof(h) || off + h.size > head) {
			ktap_diag("malformed ring buffer: type %u size %u at %llu, head %llu",
				  h.type, h.size, (unsigned long long)off,
				  (unsigned long long)head);
			st.malformed++;
			break;
		}
		for (i = 0; i < h.size; i++)
			rec[i] = data[(off + i) % ring];
		off += h.size;

		if (h.type == PERF_RECORD_AUX && h.size >= 32) {
			memcpy(&flags, rec + 24, 8);
			st.truncated += !!(flags & PERF_AUX_FLAG_TRUNCATED);
			continue;
		}
		if (h.type != PERF_RECORD_SAMPLE || h.size < 32)
			continue;

		memcpy(&tid, rec + 12, 4);
		memcpy(&cpu, rec + 16, 4);
		memcpy(&size, rec + 24, 8);
		st.nr++;
		st.bad_size += size != c->bytes || 32 + size != h.size;
		st.bad_tid += c->target == THIS_THREAD && (int)tid != gettid();
		st.bad_cpu += (int)cpu != c->run_cpu;
		if (size > h.size - 32u)
			continue;
		for (zeros = 0; zeros < size && !rec[32 + zeros]; zeros++)
			;
		if (zeros == size)
			st.all_zero++;
		else
			st.with_trace++;
	}
	g->pc->data_tail = head;
	free(rec);
	return st;
}

static int check_samples(struct group *g, const struct open_case *c)
{
	struct sample_stats st;
	int ok;

	/*
	 * The sampler first, then the leader, whose enabling schedules the
	 * group in: PERF_IOC_FLAG_GROUP would depend on the first patch of
	 * the series, without which the sibling waits for the next context
	 * switch (aux-sample-trbe enables the group that way)
	 */
	pin_to_cpu(c->run_cpu);
	ioctl(g->sampler, PERF_EVENT_IOC_ENABLE, 0);
	ioctl(g->leader, PERF_EVENT_IOC_ENABLE, 0);
	spin_ms(100);
	ioctl(g->leader, PERF_EVENT_IOC_DISABLE, PERF_IOC_FLAG_GROUP);
	st = ring_stats(g, c);
	if (st.malformed)
		return 0;

	switch (c->want) {
	case WANT_TRACE:
		ok = st.nr && !st.bad_size && st.with_trace && !st.bad_tid && !st.bad_cpu;
		break;
	case WANT_ZEROS:
		ok = st.nr && !st.bad_size && st.all_zero == st.nr;
		break;
	case WANT_SIZE:
		ok = st.nr && !st.bad_size;
		break;
	case WANT_NO_SAMPLES:
		ok = !st.nr;
		break;
	case WANT_TRUNCATED:
		ok = !st.nr && st.truncated;
		break;
	default:
		ok = 0;
	}
	if (!ok)
		ktap_diag("%d samples: %d of a wrong size, %d with trace, %d all zeros, %d of another thread, %d of another CPU; %d truncated AUX records",
			  st.nr, st.bad_size, st.with_trace, st.all_zero, st.bad_tid,
			  st.bad_cpu, st.truncated);
	return ok;
}

static int needs_trbe(const struct open_case *c)
{
	return c->aux != NO_AUX || c->want != NO_RUN;
}

static const char *step_name(enum step step)
{
	static const char *const names[] = { "no call", "the leader", "the sampler", "the AUX mmap" };

	return names[step];
}

/* Runs the steps of @c up to the first failure; returns the failed step */
static enum step run_steps(const struct open_case *c, struct group *g, int *ok)
{
	int need_ring = c->aux != NO_AUX || c->want != NO_RUN;

	*ok = 1;
	if (c->leader != NO_LEADER) {
		g->leader = open_leader(c);
		if (g->leader < 0)
			return AT_LEADER;
		if (need_ring && map_ring(g)) {
			ktap_diag("ring buffer: %s", strerror(errno));
			*ok = 0;
			return NO_STEP;
		}
	}
	if (c->aux == AUX_BEFORE_SAMPLER && map_aux(g, c))
		return AT_AUX_MMAP;
	g->sampler = open_sampler(c, g->leader);
	if (g->sampler < 0)
		return AT_SAMPLER;
	if (c->aux == AUX_AFTER_SAMPLER && map_aux(g, c))
		return AT_AUX_MMAP;
	if (c->want == NO_RUN)
		return NO_STEP;
	if (ioctl(g->sampler, PERF_EVENT_IOC_SET_OUTPUT, g->leader)) {
		ktap_diag("SET_OUTPUT: %s", strerror(errno));
		*ok = 0;
		return NO_STEP;
	}
	*ok = check_samples(g, c);
	return NO_STEP;
}

static int run_case(const struct open_case *c)
{
	struct group g = { .leader = -1, .sampler = -1 };
	enum step failed;
	int err, ok;

	if (needs_trbe(c) && !have_trbe) {
		ktap_skip(c->name, "no TRBE");
		return 1;
	}
	/* Only a kernel without CPU hotplug may skip: a failed offline fails */
	if (c->target == ON_OFFLINE_CPU && access(CPU3_ONLINE, F_OK) && errno == ENOENT) {
		ktap_skip(c->name, "no CPU hotplug");
		return 1;
	}
	if (c->target == ON_OFFLINE_CPU && set_cpu3_online(0))
		return ktap_result(0, c->name);

	failed = run_steps(c, &g, &ok);
	err = errno;
	group_close(&g);
	if (c->target == ON_OFFLINE_CPU && set_cpu3_online(1)) {
		ktap_diag("cannot bring CPU 3 back online");
		ok = 0;
	}

	if (!ok)
		return ktap_result(0, c->name);
	if (failed != c->fail || (failed && err != c->err)) {
		if (c->fail)
			ktap_diag("expected %s at %s, got %s", strerror(c->err),
				  step_name(c->fail),
				  failed ? strerror(err) : "success");
		else
			ktap_diag("expected success, got %s at %s", strerror(err),
				  step_name(failed));
		return ktap_result(0, c->name);
	}
	return ktap_result(1, c->name);
}

int main(void)
{
	int nr = sizeof(cases) / sizeof(cases[0]);
	int i, failed = 0;

	page_size = sysconf(_SC_PAGESIZE);
	cs_etm_type = pmu_type("cs_etm");
	have_trbe = !access("/sys/bus/coresight/devices/trbe0", F_OK) &&
		    !access("/sys/bus/coresight/devices/trbe1", F_OK);

	/*
	 * A few seconds on the model; 120 s for a slow emulated CPU on a busy
	 * host, well before the boot's timeout (600 s)
	 */
	watchdog_start(120);
	ktap_plan("aux_sample_open", nr + 1);
	if (!ktap_result(cs_etm_type >= 0, "the cs_etm PMU is registered")) {
		for (i = 0; i < nr; i++)
			ktap_skip(cases[i].name, "no cs_etm PMU");
		return 1;
	}

	for (i = 0; i < nr; i++) {
		watchdog_step("%s", cases[i].name);
		failed += !run_case(&cases[i]);
	}

	return failed ? 1 : 0;
}
