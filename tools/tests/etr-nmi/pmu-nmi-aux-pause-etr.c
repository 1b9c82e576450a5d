// SPDX-License-Identifier: GPL-2.0
/*
 * AUX pause and resume of a cs_etm event whose sink is the ETR, a sink
 * that all CPUs share, from cpu-clock samplers (interrupt context) and
 * from cycles samplers, whose overflow is an NMI in the CI's boots (see
 * pmu-nmi.c).
 *
 * Pausing a cs_etm event with a shared sink updates the AUX buffer from
 * the sink (etm_event_pause() calls the sink's update_buffer()), and the
 * ETR, ETF and ETB drivers take their drvdata->spinlock there. An NMI
 * can come in while its CPU holds that lock (raw_spin_lock_irqsave()
 * does not mask a pseudo-NMI), so the update must be left out of a pause
 * in NMI: the trace stays in the sink until the next update. A
 * PROVE_LOCKING kernel reports the lock taken in NMI as a usage bug
 * ("inconsistent {INITIAL USE} -> {IN-NMI} usage"): this program fails on
 * a kernel that takes it, in the debug boot (ci/boot-etr-nmi.sh) where
 * lockdep is on. A pause in interrupt context still updates the buffer.
 *
 * Each case, on every CPU in turn: a per-thread cs_etm event on this
 * thread (pinned to that CPU) with the ETR as its sink (config2 sinkid),
 * an AUX buffer, and an aux_pause and an aux_resume sampler of drifting
 * periods in its group; it must give trace, the samplers must have
 * overflowed many times, and the kernel log must stay free of splats.
 */
#define _GNU_SOURCE
#include <stdint.h>
#include <sys/ioctl.h>

#include "aux-session.h"
#include "kmsg-util.h"
#include "watchdog.h"

#define AUX_PAGES	64
#define RUN_MS		500
#define MIN_OVERFLOWS	20
#define WATCHDOG_SECONDS	60

static int cs_etm_type;
static unsigned int etr_sink_id;

struct pause_case {
	const char *name;
	int cycles;
	unsigned long period;	/* of the aux_pause sampler; 5/4 of it to resume */
};

static const struct pause_case cases[] = {
	/*
	 * cpu-clock (cycles, in NMI) aux_pause and aux_resume samplers of an
	 * event on the ETR, on every CPU: trace, no splat
	 */
	{ "pmu_nmi_aux_pause_etr.cpu_clock", 0, 200000 },	/* 200us of cpu-clock */
	{ "pmu_nmi_aux_pause_etr.cycles", 1, 2000000 },	/* 2ms of QEMU's 1GHz cycles */
};

static void pause_sampler_attr(struct perf_event_attr *attr, const struct pause_case *c,
			       int resume)
{
	aux_sampler_attr(attr, 0);
	if (c->cycles)
		cycles_sampler(attr);
	attr->sample_type = 0;
	attr->sample_period = resume ? c->period * 5 / 4 : c->period;
	attr->aux_pause = !resume;
	attr->aux_resume = resume;
}

/* The events a sampler counted, over its period: how often it overflowed */
static uint64_t overflows(int fd, unsigned long period)
{
	uint64_t count = 0;

	if (read(fd, &count, sizeof(count)) != sizeof(count))
		return 0;
	return count / period;
}

/* One session of @c on @cpu: whether it traced, paused and resumed, no splat */
static int pause_on_cpu(const struct pause_case *c, int cpu, int kmsg)
{
	struct perf_event_attr leader, samplers[2];
	uint64_t head, paused, resumed;
	struct aux_session s;
	int splats;

	pin_to_cpu(cpu);
	watchdog_step("%s: open on CPU %d", c->name, cpu);
	cs_etm_leader_attr(&leader, cs_etm_type);
	leader.config2 = etr_sink_id;
	pause_sampler_attr(&samplers[0], c, 0);
	pause_sampler_attr(&samplers[1], c, 1);
	if (aux_session_open(&s, &leader, samplers, 2, AUX_PAGES))
		return 0;
	watchdog_step("%s: run on CPU %d", c->name, cpu);
	aux_session_enable(&s);
	spin_ms(RUN_MS);
	aux_session_disable(&s);
	head = __atomic_load_n(&s.pc->aux_head, __ATOMIC_ACQUIRE);
	paused = overflows(s.siblings[0], samplers[0].sample_period);
	resumed = overflows(s.siblings[1], samplers[1].sample_period);
	aux_session_close(&s);
	splats = kmsg_splats(kmsg, 10);
	ktap_diag("CPU %d: %llu bytes of trace, %llu pauses and %llu resumes in %d ms, %d splats",
		  cpu, (unsigned long long)head, (unsigned long long)paused,
		  (unsigned long long)resumed, RUN_MS, splats);
	return head > 0 && paused >= MIN_OVERFLOWS && resumed >= MIN_OVERFLOWS && !splats;
}

static void test_pause(const struct pause_case *c, int cpus, int kmsg)
{
	int ok = cpus > 0;

	for (int cpu = 0; cpu < cpus; cpu++)
		ok &= pause_on_cpu(c, cpu, kmsg);
	ktap_result(ok, c->name);
}

int main(void)
{
	int nr = sizeof(cases) / sizeof(cases[0]), kmsg;
	int cpus = sysconf(_SC_NPROCESSORS_ONLN);

	ktap_plan("pmu_nmi_aux_pause_etr", nr);
	watchdog_start(WATCHDOG_SECONDS);
	cs_etm_type = pmu_type("cs_etm");
	etr_sink_id = cs_etm_sink_id("tmc_etr0");
	if (cs_etm_type < 0 || !etr_sink_id || !have_cycles()) {
		/* This boot has the ETR and the PMU by design: their absence fails */
		ktap_diag("no cs_etm PMU, no tmc_etr0 sink or no cycles: %d, %#x, %d",
			  cs_etm_type, etr_sink_id, have_cycles());
		for (int i = 0; i < nr; i++)
			ktap_result(0, cases[i].name);
		return 1;
	}
	kmsg = kmsg_open();
	for (int i = 0; i < nr; i++)
		test_pause(&cases[i], cpus, kmsg);
	return 0;
}
