/* SPDX-License-Identifier: GPL-2.0 */
/*
 * A CPU-wide cs_etm session on one CPU with a cycles sampler, whose
 * overflow is an NMI with pseudo-NMIs, taking AUX samples into the
 * leader's ring buffer; and the count of what its samples hold. For the
 * boot tests that take such samples across CPU hotplug and idle periods.
 */
#ifndef CPU_WIDE_SESSION_H
#define CPU_WIDE_SESSION_H

#include <errno.h>
#include <string.h>

#include "aux-session.h"

#define CPU_WIDE_SAMPLE_SIZE	4096
#define CPU_WIDE_AUX_PAGES	64

struct sample_counts {
	unsigned long samples, with_trace, bad_size, no_aux;
};

/* aux_session_read() callback: count a sample of @arg's session */
static inline void count_sample(const struct perf_event_header *h, const uint8_t *rec,
				void *arg)
{
	const struct aux_sample_rec *s = (const void *)rec;
	struct sample_counts *c = arg;
	uint64_t i;

	if (h->type != PERF_RECORD_SAMPLE)
		return;
	c->samples++;
	/*
	 * An overflow that comes in while the group is being scheduled out,
	 * after the AUX event, takes no AUX data (see aux_sample_trbe)
	 */
	if (!s->size) {
		c->no_aux++;
		return;
	}
	if (s->size != CPU_WIDE_SAMPLE_SIZE) {
		c->bad_size++;
		return;
	}
	for (i = 0; i < s->size; i++) {
		if (s->data[i]) {
			c->with_trace++;
			break;
		}
	}
}

/*
 * Open a disabled CPU-wide cs_etm leader of PMU @type on @cpu, with a cycles
 * sampler taking AUX samples, and map its ring buffer and an overwrite mode
 * AUX buffer. Returns 0, or -1 with a diagnostic and nothing open.
 */
static inline int cpu_wide_session_open(struct aux_session *s, int cpu, int type)
{
	struct perf_event_attr leader, sampler;
	long page = aux_page_size();

	memset(s, 0, sizeof(*s));
	cs_etm_leader_attr(&leader, type);
	s->leader = perf_event_open(&leader, -1, cpu, -1, 0);
	if (s->leader < 0) {
		ktap_diag("cs_etm event on CPU %d: %s", cpu, strerror(errno));
		return -1;
	}
	aux_sampler_attr(&sampler, CPU_WIDE_SAMPLE_SIZE);
	cycles_sampler(&sampler);
	s->siblings[0] = perf_event_open(&sampler, -1, cpu, s->leader, 0);
	if (s->siblings[0] < 0) {
		ktap_diag("cycles sampler on CPU %d: %s", cpu, strerror(errno));
		aux_session_close(s);
		return -1;
	}
	s->nr_siblings = 1;
	s->pc = mmap(NULL, (AUX_SESSION_DATA_PAGES + 1) * page, PROT_READ | PROT_WRITE,
		     MAP_SHARED, s->leader, 0);
	if (s->pc == MAP_FAILED) {
		ktap_diag("ring buffer of CPU %d: %s", cpu, strerror(errno));
		aux_session_close(s);
		return -1;
	}
	if (ioctl(s->siblings[0], PERF_EVENT_IOC_SET_OUTPUT, s->leader)) {
		ktap_diag("sampler output of CPU %d: %s", cpu, strerror(errno));
		aux_session_close(s);
		return -1;
	}
	s->aux_size = CPU_WIDE_AUX_PAGES * page;
	s->pc->aux_offset = (AUX_SESSION_DATA_PAGES + 1) * page;
	s->pc->aux_size = s->aux_size;
	s->aux = mmap(NULL, s->aux_size, PROT_READ, MAP_SHARED, s->leader, s->pc->aux_offset);
	if (s->aux == MAP_FAILED) {
		ktap_diag("AUX buffer of CPU %d: %s", cpu, strerror(errno));
		aux_session_close(s);
		return -1;
	}
	return 0;
}

/* Count the new samples of each of the @nr sessions @s in @c */
static inline void cpu_wide_sessions_read(struct aux_session *s, struct sample_counts *c,
					  int nr)
{
	int i;

	for (i = 0; i < nr; i++)
		aux_session_read(&s[i], count_sample, &c[i]);
}

#endif
