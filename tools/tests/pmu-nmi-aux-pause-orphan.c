// SPDX-License-Identifier: GPL-2.0
/*
 * aux-pause-orphan with cycles samplers, whose overflow is an NMI: the
 * orphaned aux_pause and aux_resume samplers call perf_event_aux_pause()
 * without an AUX event from NMI context, which must not WARN either.
 *
 * A program of its own so that init, which runs /tests in name order,
 * runs it after aux-sample-steady: NMIs make perf core lower
 * kernel.perf_event_max_sample_rate, which aux-sample-steady must find
 * untouched. See aux-pause-orphan.c.
 */
#define AUX_PAUSE_ORPHAN_CYCLES
#include "aux-pause-orphan.c"
