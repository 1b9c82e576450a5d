/* SPDX-License-Identifier: GPL-2.0 */
/*
 * An AUX sampling session for the boot tests: a cs_etm leader tracing the
 * calling thread into an overwrite mode AUX buffer, optional siblings
 * (a PERF_SAMPLE_AUX sampler, ...) writing into the leader's ring buffer,
 * and a reader of that ring buffer.
 */
#ifndef AUX_SESSION_H
#define AUX_SESSION_H

/* Needs _GNU_SOURCE, defined before any include, for sched_setaffinity() */
#include <sched.h>
#include <stdint.h>
#include <stdlib.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <time.h>

#include "ktap.h"
#include "perf-util.h"

#define AUX_SESSION_DATA_PAGES	256	/* ring buffer pages, a power of 2 */
#define AUX_SESSION_MAX_SIBLINGS	2

struct aux_session {
	int leader;
	int siblings[AUX_SESSION_MAX_SIBLINGS];
	int nr_siblings;
	struct perf_event_mmap_page *pc;
	void *aux;
	size_t aux_size;
	int malformed;		/* records that did not fit the ring buffer */
};

static inline long aux_page_size(void)
{
	return sysconf(_SC_PAGESIZE);
}

/* A disabled cs_etm leader tracing this thread, with its context IDs */
static inline void cs_etm_leader_attr(struct perf_event_attr *attr, int type)
{
	int bit = cs_etm_format_bit("contextid");

	cs_etm_attr(attr, type);
	if (bit >= 0)
		attr->config |= 1ULL << bit;
}

static inline void aux_session_close(struct aux_session *s)
{
	long page = aux_page_size();

	if (s->aux && s->aux != MAP_FAILED)
		munmap(s->aux, s->aux_size);
	if (s->pc && s->pc != MAP_FAILED)
		munmap(s->pc, (AUX_SESSION_DATA_PAGES + 1) * page);
	while (s->nr_siblings)
		close(s->siblings[--s->nr_siblings]);
	if (s->leader >= 0)
		close(s->leader);
	s->leader = -1;
}

/*
 * Open @leader on this thread, then each of the @nr siblings in its group
 * with its output in the leader's ring buffer, and map the ring buffer and
 * an AUX buffer of @aux_pages in overwrite mode (PROT_READ), as AUX
 * sampling needs. Returns 0, or -1 with a diagnostic and nothing open.
 */
static inline int aux_session_open(struct aux_session *s, struct perf_event_attr *leader,
				   struct perf_event_attr *siblings, int nr, int aux_pages)
{
	long page = aux_page_size();
	int i;

	memset(s, 0, sizeof(*s));
	s->leader = perf_event_open(leader, 0, -1, -1, 0);
	if (s->leader < 0) {
		ktap_diag("cs_etm event: %s", strerror(errno));
		return -1;
	}
	for (i = 0; i < nr && i < AUX_SESSION_MAX_SIBLINGS; i++) {
		int fd = perf_event_open(&siblings[i], 0, -1, s->leader, 0);

		if (fd < 0) {
			ktap_diag("group sibling %d (sample_type %#llx): %s", i,
				  (unsigned long long)siblings[i].sample_type, strerror(errno));
			aux_session_close(s);
			return -1;
		}
		s->siblings[s->nr_siblings++] = fd;
	}

	s->pc = mmap(NULL, (AUX_SESSION_DATA_PAGES + 1) * page, PROT_READ | PROT_WRITE,
		     MAP_SHARED, s->leader, 0);
	if (s->pc == MAP_FAILED) {
		ktap_diag("ring buffer: %s", strerror(errno));
		aux_session_close(s);
		return -1;
	}
	for (i = 0; i < s->nr_siblings; i++) {
		if (ioctl(s->siblings[i], PERF_EVENT_IOC_SET_OUTPUT, s->leader)) {
			ktap_diag("sibling output: %s", strerror(errno));
			aux_session_close(s);
			return -1;
		}
	}
	s->aux_size = aux_pages * page;
	s->pc->aux_offset = (AUX_SESSION_DATA_PAGES + 1) * page;
	s->pc->aux_size = s->aux_size;
	s->aux = mmap(NULL, s->aux_size, PROT_READ, MAP_SHARED, s->leader, s->pc->aux_offset);
	if (s->aux == MAP_FAILED) {
		ktap_diag("AUX buffer: %s", strerror(errno));
		aux_session_close(s);
		return -1;
	}
	return 0;
}

static inline void aux_session_enable(struct aux_session *s)
{
	ioctl(s->leader, PERF_EVENT_IOC_ENABLE, PERF_IOC_FLAG_GROUP);
}

static inline void aux_session_disable(struct aux_session *s)
{
	ioctl(s->leader, PERF_EVENT_IOC_DISABLE, PERF_IOC_FLAG_GROUP);
}

/*
 * Copy @len bytes at offset @off of the ring of @ring bytes at @data, which
 * may wrap around its end: two memcpy() at most, not a loop per byte, which
 * the trace unit would trace branch by branch (a reader of 4KiB samples at
 * 1kHz could not keep up in the model)
 */
static inline void ring_copy(void *to, const uint8_t *data, uint64_t ring, uint64_t off,
			     size_t len)
{
	size_t start = off % ring, first = len < ring - start ? len : ring - start;

	memcpy(to, data + start, first);
	memcpy((uint8_t *)to + first, data, len - first);
}

/*
 * Call @fn for each new record in the ring buffer, in order, with the
 * record copied out (records may wrap around the end of the ring), then
 * consume them. Returns the number of records, or -1 for a malformed ring
 * buffer (a record shorter than its header or past data_head): it is
 * reported, counted in s->malformed, and the rest of the ring is skipped.
 */
static inline int aux_session_read(struct aux_session *s,
				   void (*fn)(const struct perf_event_header *h,
					      const uint8_t *rec, void *arg),
				   void *arg)
{
	long page = aux_page_size();
	uint8_t *data = (uint8_t *)s->pc + page;
	uint64_t head = __atomic_load_n(&s->pc->data_head, __ATOMIC_ACQUIRE);
	uint64_t off, ring = AUX_SESSION_DATA_PAGES * page;
	uint8_t *rec = malloc(65536);
	int nr = 0;

	for (off = s->pc->data_tail; off < head; nr++) {
		struct perf_event_header h;

		ring_copy(&h, data, ring, off, sizeof(h));
		if (h.size < sizeof(h) || off + h.size > head) {
			ktap_diag("malformed ring buffer: type %u size %u at %llu, head %llu",
				  h.type, h.size, (unsigned long long)off,
				  (unsigned long long)head);
			s->malformed++;
			nr = -1;
			break;
		}
		ring_copy(rec, data, ring, off, h.size);
		off += h.size;
		fn(&h, rec, arg);
	}
	__atomic_store_n(&s->pc->data_tail, head, __ATOMIC_RELEASE);
	free(rec);
	return nr;
}

/*
 * The layout of a sample of aux_sampler_attr() (perf-util.h): header, TID,
 * CPU, then the AUX size and data.
 */
struct aux_sample_rec {
	struct perf_event_header header;
	uint32_t pid, tid;
	uint32_t cpu, res;
	uint64_t size;
	uint8_t data[];
};

#endif
