// SPDX-License-Identifier: GPL-2.0
/*
 * etr-share: who may share the one TMC-ETR of QEMU's -M virt,coresight=etr
 * (an ETMv4 per CPU, a funnel, the ETR), through the perf ABI. Run by
 * ci/etr-share.sh, which decodes the AUX buffers printed here on the host
 * (ci/check-etr-share.py).
 *
 *  - One session (this process opens every event), two threads pinned to
 *    CPUs 1 and 2, each traced by a per-thread cs_etm event with an AUX
 *    buffer of its own, both running: the second event to start finds the
 *    ETR busy (PERF_RECORD_AUX with PERF_AUX_FLAG_COLLISION), once
 *    however often perf retries it, and neither buffer gets the trace of
 *    the other thread. This is run twice, with the thread of the event
 *    that claimed the ETR stopping last and first: with the owner PID
 *    rule of the base tree the two events share the ETR, so the first
 *    gives one buffer the trace of both threads, the second trips
 *    WARN_ON(drvdata->perf_buf != etr_buf).
 *  - Two sessions (two processes, each tracing itself) pinned to CPUs 1
 *    and 2: first both run, and the one that starts second finds the ETR
 *    busy; then they take turns, and each gets its own trace. On the base
 *    tree the busy ETR ends the second session for good (TRUNCATED).
 *  - AUX sampling from a leader on the ETR: the sampler opens, its samples
 *    are all zeros, and the kernel says why, once.
 *  - One process with a per-thread session, then a CPU-wide one: the
 *    sink buffer of the per-thread event is freed once the CPU-wide
 *    session has its own, and the CPU-wide events still share that one.
 *    Freeing the per-thread buffer took the session's buffer out of the
 *    ETR's IDR, with a WARN, and the trace of the session was dropped.
 *
 * The stop order is made certain by waiting until a thread sleeps (its
 * state in /proc), not by timing.
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <sched.h>
#include <stdint.h>
#include <stdlib.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/random.h>
#include <sys/wait.h>

#include "aux-session.h"
#include "cs-trace-dump.h"
#include "kmsg-util.h"
#include "ktap.h"
#include "perf-util.h"
#include "watchdog.h"

#define DATA_PAGES	16		/* ring buffer pages, a power of 2 */
#define AUX_PAGES	64		/* 256KiB, more than a burst of trace */
#define BURST		20000		/* loop iterations: about 25KiB of trace */
#define ROUNDS		2		/* turns of each session */
#define MAX_IDS		16
#define NR_SAMPLES	20
#define SAMPLE_SIZE	4096
/*
 * How long both threads keep running after their bursts: the event that
 * found the ETR busy is retried at every multiplexing tick (a tick, 4 ms
 * at HZ=250) meanwhile, and must report the collision once, not per retry
 */
#define HOLD_MS		20
#define ONCE_MSG	"AUX sampling needs a per-CPU sink"
/*
 * The whole program takes about 10 s on the model; ci/etr-share.sh gives
 * the boot 180 s. The watchdog ends the program well before that, and
 * every wait of one thread or process for another gives up after
 * WAIT_SECONDS, with a diagnostic naming the wait.
 */
#define WATCHDOG_SECONDS	120
#define WAIT_SECONDS		30
#ifndef GRND_INSECURE
#define GRND_INSECURE		0x0004	/* Linux 5.6 */
#endif

/* A per-thread cs_etm event into tmc_etr0, with what its records said */
struct trace_event {
	int fd;
	struct perf_event_mmap_page *pc;
	unsigned char *aux;
	int nr_aux, collisions, truncated, nr_ids;
	int id[MAX_IDS], id_cpu[MAX_IDS];
	uint64_t size;		/* bytes of trace in the AUX buffer */
};

static long page_size;
static unsigned int etr_sink_id;
static volatile unsigned long sink;

static void spin(unsigned long n)
{
	for (unsigned long i = 0; i < n; i++)
		sink += i;
}

/* A per-thread event of @tid with @cpu -1, else a CPU-wide one on @cpu */
static int trace_event_open(struct trace_event *ev, pid_t tid, int cpu)
{
	struct perf_event_attr attr;
	int bit = cs_etm_format_bit("contextid");

	memset(ev, 0, sizeof(*ev));
	cs_etm_attr(&attr, pmu_type("cs_etm"));
	if (bit >= 0)
		attr.config |= 1ULL << bit;
	attr.config2 = etr_sink_id;
	/* User space only: this program, which the host decodes with its text */
	attr.exclude_kernel = 1;
	attr.exclude_hv = 1;
	attr.sample_id_all = 1;
	attr.sample_type = PERF_SAMPLE_TID | PERF_SAMPLE_CPU;
	attr.read_format = PERF_FORMAT_TOTAL_TIME_ENABLED | PERF_FORMAT_TOTAL_TIME_RUNNING;
	ev->fd = perf_event_open(&attr, tid, cpu, -1, 0);
	if (ev->fd < 0) {
		ktap_diag("perf_event_open for TID %d, CPU %d: %s", tid, cpu, strerror(errno));
		return -1;
	}
	ev->pc = mmap(NULL, (DATA_PAGES + 1) * page_size, PROT_READ | PROT_WRITE,
		      MAP_SHARED, ev->fd, 0);
	if (ev->pc == MAP_FAILED) {
		ktap_diag("mmap: %s", strerror(errno));
		ev->pc = NULL;
		return -1;
	}
	ev->pc->aux_offset = (DATA_PAGES + 1) * page_size;
	ev->pc->aux_size = AUX_PAGES * page_size;
	ev->aux = mmap(NULL, AUX_PAGES * page_size, PROT_READ | PROT_WRITE,
		       MAP_SHARED, ev->fd, ev->pc->aux_offset);
	if (ev->aux == MAP_FAILED) {
		ktap_diag("mmap of the AUX buffer: %s", strerror(errno));
		ev->aux = NULL;
		return -1;
	}
	return 0;
}

static void trace_event_close(struct trace_event *ev)
{
	if (ev->aux)
		munmap(ev->aux, AUX_PAGES * page_size);
	if (ev->pc)
		munmap(ev->pc, (DATA_PAGES + 1) * page_size);
	if (ev->fd > 0)
		close(ev->fd);
	ev->aux = NULL;
	ev->pc = NULL;
	ev->fd = -1;
}

/*
 * After the event is disabled: the PERF_RECORD_AUX flags and the trace
 * IDs (PERF_RECORD_AUX_OUTPUT_HW_ID, with the CPU in its sample_id) of
 * the data ring, which does not wrap, and the size of the trace
 */
static void trace_event_read(struct trace_event *ev)
{
	uint64_t head = __atomic_load_n(&ev->pc->data_head, __ATOMIC_ACQUIRE);
	unsigned char *data = (unsigned char *)ev->pc + ev->pc->data_offset;
	char seq[160] = "";
	size_t len = 0;

	for (uint64_t off = 0; off < head && off < ev->pc->data_size;) {
		struct perf_event_header *h = (void *)(data + off);
		uint64_t *p = (uint64_t *)(h + 1);

		if (!h->size)
			break;
		if (h->type == PERF_RECORD_AUX) {
			/* The records in order: their sizes, C for COLLISION, T for TRUNCATED */
			if (len < sizeof(seq) - 32)
				len += snprintf(seq + len, sizeof(seq) - len, " %llu%s%s",
						(unsigned long long)p[1],
						p[2] & PERF_AUX_FLAG_COLLISION ? "C" : "",
						p[2] & PERF_AUX_FLAG_TRUNCATED ? "T" : "");
			ev->nr_aux++;
			ev->collisions += !!(p[2] & PERF_AUX_FLAG_COLLISION);
			ev->truncated += !!(p[2] & PERF_AUX_FLAG_TRUNCATED);
		} else if (h->type == PERF_RECORD_AUX_OUTPUT_HW_ID &&
			   ev->nr_ids < MAX_IDS) {
			ev->id[ev->nr_ids] = p[0] & 0xff;
			ev->id_cpu[ev->nr_ids++] = ((uint32_t *)(p + 1))[2];
		}
		off += h->size;
	}
	ev->size = __atomic_load_n(&ev->pc->aux_head, __ATOMIC_ACQUIRE);
	if (ev->size > (uint64_t)AUX_PAGES * page_size)
		ev->size = AUX_PAGES * page_size;
	ktap_diag("  %d AUX records, %d with COLLISION, %d TRUNCATED, %llu bytes of trace, "
		  "trace IDs of %d CPUs", ev->nr_aux, ev->collisions, ev->truncated,
		  (unsigned long long)ev->size, ev->nr_ids);
	ktap_diag("  AUX records:%s", seq);
}

/* Print the AUX buffer of @ev, which traced @tid, for check-trace.py */
static void trace_event_dump(const struct trace_event *ev, const char *name, pid_t tid)
{
	char source[16];

	if (!ev->size)
		return;
	printf("CSTRACE-BEGIN name=%s format=etr pid=%d cpu=-1 user=1 size=%llu "
	       "truncated=%d children= traceids=", name, tid,
	       (unsigned long long)ev->size, ev->truncated);
	for (int i = 0; i < ev->nr_ids; i++)
		printf("0x%x:%d,", ev->id[i], ev->id_cpu[i]);
	/* perf programs every trace unit alike: the config of one will do */
	snprintf(source, sizeof(source), "etm%d", ev->nr_ids ? ev->id_cpu[0] : 1);
	cs_trace_print_config(source);
	cs_trace_print_data(ev->aux, ev->size);
}

/* The state of task @tid of process @pid (R, S, Z, ...), 0 if it is gone */
static char task_state(pid_t pid, pid_t tid)
{
	char path[64], buf[256], *state;

	snprintf(path, sizeof(path), "/proc/%d/task/%d/stat", pid, tid);
	if (cs_read_line(path, buf, sizeof(buf)))
		return 0;
	state = strrchr(buf, ')');
	return state && state[1] == ' ' ? state[2] : 0;
}

/* Where task @tid of process @pid sleeps in the kernel, for a diagnostic */
static void task_wchan(pid_t pid, pid_t tid, char *buf, size_t len)
{
	char path[64];

	snprintf(path, sizeof(path), "/proc/%d/task/%d/wchan", pid, tid);
	if (cs_read_line(path, buf, len))
		snprintf(buf, len, "?");
}

static int task_alive(pid_t pid, pid_t tid)
{
	char state = task_state(pid, tid);

	return state && state != 'Z' && state != 'X';
}

/* Whether task @tid sleeps or is gone, with its state in *@state */
static int task_sleeps(pid_t pid, pid_t tid, char *state)
{
	*state = task_state(pid, tid);
	return !*state || *state == 'Z' || *state == 'X' || *state == 'S';
}

/*
 * Wait until task @tid sleeps, so that its events are stopped, or ends:
 * 0, or -1 with a diagnostic after WAIT_SECONDS
 */
static int wait_sleeping(pid_t pid, pid_t tid, const char *what)
{
	char state = '?', wchan[64];

	watchdog_step("%s: wait until task %d sleeps", what, tid);
	if (watchdog_poll(task_sleeps(pid, tid, &state), WAIT_SECONDS, watchdog_step_name))
		return 0;
	task_wchan(pid, tid, wchan, sizeof(wchan));
	ktap_diag("%s: task %d of PID %d is in state %c, wchan %s", what, tid, pid, state, wchan);
	return -1;
}

/*
 * Seconds of CLOCK_MONOTONIC through the system call, not the vDSO: the
 * traced threads must run only code of this program, which the host
 * decodes with its text (ci/check-etr-share.py)
 */
static long traced_now(void)
{
	struct timespec t = { 0 };

	syscall(SYS_clock_gettime, CLOCK_MONOTONIC, &t);
	return t.tv_sec;
}

/*
 * Keep the CPU until *@flag is set: 0, or -1 after WAIT_SECONDS. The time
 * goes to getrandom() calls of 64KiB, in the kernel, which the events do
 * not trace: a wait of any length makes little trace, where a loop in user
 * space or around a short system call would fill the AUX buffer in a
 * tenth of a second. The task does not sleep, so its event stays on.
 */
static char wait_buf[64 * 1024];

static int busy_in_kernel_until(volatile int *flag)
{
	long end = traced_now() + WAIT_SECONDS;

	while (!*flag) {
		if (getrandom(wait_buf, sizeof(wait_buf), GRND_INSECURE) < 0 ||
		    traced_now() > end)
			return -1;
	}
	return 0;
}

/*
 * Fault in the pages of wait_buf (after a fork: copy them) before the
 * waits, so that no wait can sleep in a page fault: a sleep would stop
 * the task's event and hand the ETR to the other one
 */
static void prefault_wait_buf(void)
{
	memset(wait_buf, 0, sizeof(wait_buf));
}

/* Read a byte of @fd into @c, waiting up to @secs seconds: 1, 0 or -1 */
static int read_byte(int fd, char *c, int secs)
{
	struct pollfd p = { .fd = fd, .events = POLLIN };

	if (poll(&p, 1, secs * 1000) != 1)
		return -1;
	return read(fd, c, 1);
}

/* ---- one session, two threads ---- */

struct worker {
	int cpu;
	volatile pid_t tid;
	int wake[2];			/* a pipe: a byte ends a sleep */
	volatile int ready, running, go, done, stop;
	volatile int failed;		/* a wait of the thread timed out */
	long switches;			/* context switches from running to stop */
	int created;
	pthread_t thread;
};

static void *worker_fn(void *arg)
{
	struct worker *w = arg;
	char c;

	w->tid = gettid();
	pin_to_cpu(w->cpu);
	/*
	 * No kworker (such as the one that mixes interrupt randomness every
	 * second) takes the CPU, so the event that claimed the ETR keeps it
	 * until its thread sleeps, and the other event is refused for one
	 * stretch of time
	 */
	if (run_sched_fifo())
		ktap_diag("thread on CPU %d: SCHED_FIFO: %s", w->cpu, strerror(errno));
	prefault_wait_buf();
	__atomic_store_n(&w->ready, 1, __ATOMIC_RELEASE);
	/*
	 * Sleep while the main thread opens and maps the events: that can
	 * wait for kernel work queued on this CPU, which a SCHED_FIFO thread
	 * spinning here would starve until the scheduler preempted it (seen
	 * in about 1 in 20 first rounds: both threads preempted once, and the
	 * ETR handed from one event to the other)
	 */
	if (read_byte(w->wake[0], &c, WAIT_SECONDS) != 1) {
		w->failed = 1;
		return NULL;
	}
	/* From here the thread must not leave its CPU until it stops */
	w->switches = thread_context_switches();
	__atomic_store_n(&w->running, 1, __ATOMIC_RELEASE);
	if (busy_in_kernel_until(&w->go)) {
		w->failed = 1;
		return NULL;
	}
	spin(BURST);
	w->done = 1;
	if (busy_in_kernel_until(&w->stop)) {
		w->failed = 1;
		return NULL;
	}
	w->switches = thread_context_switches() - w->switches;
	/*
	 * Sleep: the event stops. The main thread prints the trace before it
	 * ends the sleep, which may take long: the watchdog bounds this wait.
	 */
	if (read_byte(w->wake[0], &c, WATCHDOG_SECONDS) != 1)
		w->failed = 1;
	return NULL;
}

/*
 * @owner_last: the thread of the event that claimed the ETR (the first
 * enabled) stops last, else first
 */
static void two_threads(int owner_last)
{
	const char *round = owner_last ? "threads-owner-last" : "threads-owner-first";
	const char *id = owner_last ? "threads_owner_last" : "threads_owner_first";
	struct worker w[2] = {
		{ .cpu = 1, .wake = { -1, -1 } }, { .cpu = 2, .wake = { -1, -1 } }
	};
	struct trace_event ev[2] = { { .fd = -1 }, { .fd = -1 } };
	int kmsg = kmsg_open(), ok = 1, collisions = 0, truncated = 0, splats;
	char name[160];

	ktap_diag("%s: one session, threads on CPUs 1 and 2, event 0 enabled first, "
		  "its thread stops %s", round, owner_last ? "last" : "first");
	for (int i = 0; ok && i < 2; i++) {
		watchdog_step("%s: start thread %d", round, i);
		if (pipe(w[i].wake)) {
			ktap_diag("pipe: %s", strerror(errno));
			w[i].wake[0] = w[i].wake[1] = -1;
			ok = 0;
			break;
		}
		errno = pthread_create(&w[i].thread, NULL, worker_fn, &w[i]);
		if (errno) {
			ktap_diag("pthread_create: %s", strerror(errno));
			ok = 0;
			break;
		}
		w[i].created = 1;
		snprintf(name, sizeof(name), "%s: thread %d pinned to CPU %d", round, i, w[i].cpu);
		ok = watchdog_poll(__atomic_load_n(&w[i].ready, __ATOMIC_ACQUIRE),
				   WAIT_SECONDS, name);
	}
	for (int i = 0; ok && i < 2; i++) {
		watchdog_step("%s: open event %d for thread %d", round, i, w[i].tid);
		ok = !trace_event_open(&ev[i], w[i].tid, -1);
	}
	/* Both threads run when their events start; a created one waits for this byte */
	for (int i = 0; i < 2 && w[i].created; i++) {
		if (write(w[i].wake[1], "r", 1) != 1)
			ok = 0;
		snprintf(name, sizeof(name), "%s: thread %d runs", round, i);
		watchdog_step("%s", name);
		if (ok && !watchdog_poll(__atomic_load_n(&w[i].running, __ATOMIC_ACQUIRE) ||
					 w[i].failed, WAIT_SECONDS, name))
			ok = 0;
	}
	for (int i = 0; ok && i < 2; i++) {
		watchdog_step("%s: enable event %d", round, i);
		if (ioctl(ev[i].fd, PERF_EVENT_IOC_ENABLE, 0)) {
			ktap_diag("enable event %d: %s", i, strerror(errno));
			ok = 0;
		}
	}
	/* Without the events, the threads run and end all the same */
	for (int i = 0; i < 2; i++)
		w[i].go = 1;
	for (int i = 0; i < 2 && w[i].created; i++) {
		snprintf(name, sizeof(name), "%s: thread %d runs its burst", round, i);
		watchdog_step("%s", name);
		if (!watchdog_poll(w[i].done || w[i].failed, WAIT_SECONDS, name) || w[i].failed)
			ok = 0;
	}
	/* The threads are still running (in the kernel): the events stay on */
	usleep(HOLD_MS * 1000);
	for (int n = 0; n < 2; n++) {
		int i = owner_last ? 1 - n : n;

		if (!w[i].created)
			continue;
		w[i].stop = 1;
		if (wait_sleeping(getpid(), w[i].tid, round))
			ok = 0;
	}
	for (int i = 0; i < 2; i++) {
		watchdog_step("%s: disable event %d", round, i);
		if (ev[i].fd >= 0)
			ioctl(ev[i].fd, PERF_EVENT_IOC_DISABLE, 0);
	}
	for (int i = 0; ok && i < 2; i++) {
		ktap_diag("%s: event %d, thread %d on CPU %d, %ld context switches while on:",
			  round, i, w[i].tid, w[i].cpu, w[i].switches);
		trace_event_read(&ev[i]);
		collisions += ev[i].collisions;
		truncated += ev[i].truncated;
		snprintf(name, sizeof(name), "%s-t%d", round, i);
		trace_event_dump(&ev[i], name, w[i].tid);
	}
	for (int i = 0; i < 2; i++) {
		watchdog_step("%s: end thread %d", round, i);
		if (w[i].created) {
			if (write(w[i].wake[1], "x", 1) != 1)
				ok = 0;
			/* Every wait of the thread is bounded, and so is this */
			pthread_join(w[i].thread, NULL);
			if (w[i].failed) {
				ktap_diag("%s: thread %d timed out in a wait", round, i);
				ok = 0;
			}
		}
		trace_event_close(&ev[i]);
		if (w[i].wake[0] >= 0) {
			close(w[i].wake[0]);
			close(w[i].wake[1]);
		}
	}
	splats = kmsg_splats(kmsg, 10);
	close(kmsg);

	/*
	 * For ci/check-etr-share.py, which decides with the trace whether
	 * the round went right: a sink shared by the two events would mix
	 * their trace, or lose it (TRUNCATED) with a WARN or an error
	 */
	printf("ETRSHARE-ROUND name=%s splats=%d truncated=%d\n", round, splats, truncated);
	/* The second event finds the ETR busy: PERF_RECORD_AUX with COLLISION */
	snprintf(name, sizeof(name), "etr_share.%s.collision", id);
	ktap_result(ok && collisions >= 1, name);
	/*
	 * One event finds the ETR busy for one stretch of time, on one CPU:
	 * event 1, unless a preemption of event 0's thread let event 1 take
	 * the ETR first (see worker_fn()), so both are counted
	 */
	/* The refused event reports the busy ETR once, not at every retry */
	snprintf(name, sizeof(name), "etr_share.%s.one_collision", id);
	ktap_result(ok && collisions == 1, name);
}

/* ---- two sessions ---- */

/* What a session's process hands back, in memory shared with the parent */
struct session {
	int cpu;
	pid_t pid;
	int go[2];			/* the parent writes a byte per turn */
	volatile int bursts;		/* bursts begun */
	volatile int release;		/* ends the wait after an 'h' or 'b' burst */
	volatile int failed;		/* a wait of the child timed out */
	struct trace_event ev;		/* copied out, pointers invalid */
	unsigned char aux[AUX_PAGES * 4096];
};

/*
 * Whether the event of @ev runs: its running time grows while this task
 * spins. An event that found the ETR busy is not running until a retry
 * (its task's next sched in, or a multiplexing tick) finds it free.
 */
static int trace_event_running(struct trace_event *ev)
{
	uint64_t v[2][3];	/* value, time enabled, time running */

	if (read(ev->fd, v[0], sizeof(v[0])) != sizeof(v[0]))
		return 0;
	spin(1000);
	if (read(ev->fd, v[1], sizeof(v[1])) != sizeof(v[1]))
		return 0;
	return v[1][2] > v[0][2];
}

static void session_child(struct session *s)
{
	struct trace_event ev;
	char c;

	/* alarm() is not inherited: the child has a watchdog of its own */
	watchdog_start(WATCHDOG_SECONDS);
	watchdog_step("session on CPU %d: open", s->cpu);
	pin_to_cpu(s->cpu);
	/* As the threads above: the first session keeps the ETR while it waits */
	if (run_sched_fifo())
		ktap_diag("session on CPU %d: SCHED_FIFO: %s", s->cpu, strerror(errno));
	prefault_wait_buf();
	if (trace_event_open(&ev, 0, -1))
		_exit(1);
	ioctl(ev.fd, PERF_EVENT_IOC_ENABLE, 0);
	/*
	 * One burst per byte: 'h' to take and hold the ETR (then wait on the
	 * CPU for the parent), 'b' while the other session holds it (the
	 * same), 't' for a turn of its own. The parent writes a byte at least
	 * every few seconds: a read that times out, or a pipe without a
	 * writer, ends the session.
	 */
	watchdog_step("session on CPU %d: bursts", s->cpu);
	for (;;) {
		int n = read_byte(s->go[0], &c, WAIT_SECONDS);

		if (n != 1) {
			ktap_diag("session on CPU %d: no word from the parent in %d s",
				  s->cpu, WAIT_SECONDS);
			s->failed = 1;
			break;
		}
		if (c == 'q')
			break;
		/*
		 * 'h' or a turn: the other task sleeps (its state in /proc says
		 * so before it leaves the CPU), but may not have left its CPU
		 * yet, and so the ETR, when this one came in. A sleep brings
		 * this one in again, which retries the ETR.
		 */
		for (int i = 0; c != 'b' && !trace_event_running(&ev) && i < 1000; i++)
			usleep(1000);
		s->bursts++;
		spin(BURST);
		if (c != 't' && busy_in_kernel_until(&s->release)) {
			ktap_diag("session on CPU %d: not released in %d s", s->cpu,
				  WAIT_SECONDS);
			s->failed = 1;
			break;
		}
	}
	ioctl(ev.fd, PERF_EVENT_IOC_DISABLE, 0);
	ktap_diag("session of PID %d on CPU %d:", getpid(), s->cpu);
	trace_event_read(&ev);
	memcpy(s->aux, ev.aux, ev.size);
	s->ev = ev;
	trace_event_close(&ev);
	_exit(s->failed ? 2 : 0);
}

static const char *const session_results[] = {
	/* The second to start while both run finds the ETR busy: COLLISION */
	"etr_share.two_sessions.collision",
	/* Two sessions taking turns: both get trace, neither is truncated */
	"etr_share.two_sessions.both_traced",
};

static void two_sessions(int *splats)
{
	struct session *s;
	int kmsg = kmsg_open(), ok = 1, status;
	char name[160];
	pid_t pid;

	s = mmap(NULL, 2 * sizeof(*s), PROT_READ | PROT_WRITE,
		 MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	if (s == MAP_FAILED || AUX_PAGES * page_size > (long)sizeof(s->aux)) {
		ktap_diag("two sessions: cannot set up the shared memory");
		ktap_result(0, session_results[0]);
		ktap_result(0, session_results[1]);
		close(kmsg);
		return;
	}
	memset(s, 0, 2 * sizeof(*s));
	ktap_diag("sessions: two processes on CPUs 1 and 2, each tracing itself");
	for (int i = 0; i < 2; i++) {
		s[i].cpu = i + 1;
		s[i].pid = -1;
		if (pipe(s[i].go)) {
			ktap_diag("pipe: %s", strerror(errno));
			ok = 0;
			break;
		}
		/* Not fork() into s[i].pid: the child would write its 0 there */
		pid = fork();
		if (pid == 0)
			session_child(&s[i]);
		if (pid < 0) {
			ktap_diag("fork: %s", strerror(errno));
			ok = 0;
			break;
		}
		s[i].pid = pid;
	}
	/* Both run: session 1 starts while session 0 holds the ETR */
	for (int i = 0; ok && i < 2; i++)
		ok = !wait_sleeping(s[i].pid, s[i].pid, "sessions: opened");
	for (int i = 0; ok && i < 2; i++) {
		if (write(s[i].go[1], i ? "b" : "h", 1) != 1)
			ok = 0;
		snprintf(name, sizeof(name), "sessions: session %d begins its burst", i);
		watchdog_step("%s", name);
		if (!watchdog_poll(s[i].bursts || !task_alive(s[i].pid, s[i].pid),
				   WAIT_SECONDS, name))
			ok = 0;
	}
	s[0].release = s[1].release = 1;
	/* Then turns: each runs while the other sleeps */
	for (int r = 0; ok && r < 2 * ROUNDS; r++) {
		int i = r % 2;

		snprintf(name, sizeof(name), "sessions: before turn %d", r);
		if (wait_sleeping(s[0].pid, s[0].pid, name) ||
		    wait_sleeping(s[1].pid, s[1].pid, name) ||
		    write(s[i].go[1], "t", 1) != 1)
			ok = 0;
	}
	for (int i = 0; i < 2 && s[i].pid > 0; i++) {
		if (wait_sleeping(s[i].pid, s[i].pid, "sessions: before the end") ||
		    write(s[i].go[1], "q", 1) != 1)
			ok = 0;
	}
	for (int i = 0; i < 2 && s[i].pid > 0; i++) {
		watchdog_step("sessions: wait for PID %d to exit", s[i].pid);
		status = watchdog_reap(s[i].pid, WAIT_SECONDS, watchdog_step_name);
		if (status < 0 || !WIFEXITED(status) || WEXITSTATUS(status)) {
			ktap_diag("session %d (PID %d) failed: status %#x", i, s[i].pid, status);
			ok = 0;
		}
	}
	for (int i = 0; ok && i < 2; i++) {
		s[i].ev.aux = s[i].aux;
		snprintf(name, sizeof(name), "sessions-p%d", i);
		trace_event_dump(&s[i].ev, name, s[i].pid);
	}
	for (int i = 0; i < 2; i++) {
		if (s[i].go[1] > 0) {
			close(s[i].go[0]);
			close(s[i].go[1]);
		}
	}
	*splats = kmsg_splats(kmsg, 10);
	close(kmsg);

	ktap_result(ok && s[1].ev.collisions >= 1, session_results[0]);
	ktap_result(ok && s[0].ev.size && s[1].ev.size && !s[0].ev.truncated &&
		    !s[1].ev.truncated, session_results[1]);
	munmap(s, 2 * sizeof(*s));
}

/* ---- AUX sampling from a shared sink ---- */

struct sample_count {
	int samples, bad_size, nonzero;
};

static void count_sample(const struct perf_event_header *h, const uint8_t *rec, void *arg)
{
	const struct aux_sample_rec *r = (const void *)rec;
	struct sample_count *c = arg;

	if (h->type != PERF_RECORD_SAMPLE)
		return;
	c->samples++;
	if (r->size != SAMPLE_SIZE || h->size != sizeof(*r) + r->size) {
		c->bad_size++;
		return;
	}
	for (uint64_t i = 0; i < r->size && i < SAMPLE_SIZE; i++)
		if (r->data[i]) {
			c->nonzero++;
			break;
		}
}

/* How many lines of the kernel log, from its start, contain @msg */
static int kmsg_count(const char *msg)
{
	char rec[8192];
	int fd, nr = 0;
	ssize_t n;

	fd = open("/dev/kmsg", O_RDONLY | O_NONBLOCK);
	while (fd >= 0) {
		n = read(fd, rec, sizeof(rec) - 1);
		if (n < 0 && errno == EPIPE)
			continue;
		if (n <= 0)
			break;
		rec[n] = 0;
		nr += strstr(rec, msg) != NULL;
	}
	if (fd >= 0)
		close(fd);
	return nr;
}

static void aux_sampling(void)
{
	struct perf_event_attr leader, sampler;
	struct sample_count c = { 0 };
	struct aux_session s = { .leader = -1 };
	int opened, msgs;

	cs_etm_leader_attr(&leader, pmu_type("cs_etm"));
	leader.config2 = etr_sink_id;
	aux_sampler_attr(&sampler, SAMPLE_SIZE);
	pin_to_cpu(1);
	watchdog_step("AUX sampling: open");
	opened = !aux_session_open(&s, &leader, &sampler, 1, 16);
	/* With an overwrite mode AUX buffer */
	ktap_result(opened, "etr_share.aux_sampling.opens");
	if (opened) {
		aux_session_enable(&s);
		watchdog_step("AUX sampling: take %d samples", NR_SAMPLES);
		for (int i = 0; i < 1000 && c.samples < NR_SAMPLES; i++) {
			spin_ms(10);
			aux_session_read(&s, count_sample, &c);
		}
		aux_session_disable(&s);
		aux_session_read(&s, count_sample, &c);
		aux_session_close(&s);
	}
	ktap_diag("%d samples, %d not of %d bytes, %d with a byte that is not zero",
		  c.samples, c.bad_size, SAMPLE_SIZE, c.nonzero);
	/* NR_SAMPLES or more, of SAMPLE_SIZE bytes, all zeros */
	ktap_result(c.samples >= NR_SAMPLES && !c.bad_size && !c.nonzero && !s.malformed,
		    "etr_share.aux_sampling.zero_filled");
	watchdog_step("AUX sampling: read the kernel log");
	msgs = kmsg_count(ONCE_MSG);
	ktap_diag("\"%s\" in the kernel log: %d times", ONCE_MSG, msgs);
	/* The kernel log says once why the samples hold no trace */
	ktap_result(msgs == 1, "etr_share.aux_sampling.logged_once");
}

/* ---- a per-thread and a CPU-wide session of one owner ---- */

/*
 * The per-thread event that the main thread opened, unmapped and closed
 * on CPU 3 by a SCHED_FIFO thread, which then keeps CPU 3 until it is
 * released: the work item that frees the event's sink buffer (queued by
 * etm_free_aux() on CPU 3) runs only then, when the CPU-wide session of
 * the same owner (the main thread) has its buffer in the IDR. perf
 * refuses a per-thread and a CPU-wide cs_etm event at once (-EBUSY, the
 * PMU is exclusive), but the sink buffer outlives the event: this is a
 * per-thread session that ends just before a CPU-wide one of the same
 * process begins, as perf sessions run one after another.
 */
struct closer {
	struct trace_event pt;
	volatile int closed, release;
	pthread_t thread;
};

static void *closer_fn(void *arg)
{
	struct closer *c = arg;
	double end;

	pin_to_cpu(3);
	if (run_sched_fifo())
		ktap_diag("owner: SCHED_FIFO on CPU 3: %s", strerror(errno));
	trace_event_close(&c->pt);
	__atomic_store_n(&c->closed, 1, __ATOMIC_RELEASE);
	/*
	 * The main thread opens an event meanwhile, which takes milliseconds.
	 * A release later than RT throttling (0.95 s) may let the work item
	 * run too early, which only a kernel without the fix would notice.
	 */
	end = watchdog_now() + 0.9;
	while (!c->release && watchdog_now() < end)
		;
	if (!c->release)
		ktap_diag("owner: CPU 3 held for 0.9 s: the buffer may be freed too early");
	return NULL;
}

/*
 * Whether the formatted trace of @ev (16-byte frames: an even byte with
 * bit 0 set is a trace ID) holds a frame that switches to trace ID @id
 */
static int trace_has_id(const struct trace_event *ev, int id)
{
	for (uint64_t f = 0; f + 16 <= ev->size; f += 16)
		for (int i = 0; i < 16; i += 2)
			if ((ev->aux[f + i] & 1) && ev->aux[f + i] >> 1 == id)
				return 1;
	return 0;
}

/*
 * The ETR's IDR holds the etr_buf of each CPU-wide session under the PID
 * of its owner; per-thread buffers are not in it. The sink buffer of a
 * per-thread event is freed once a CPU-wide event on CPU 1 has set up its
 * buffer, then a CPU-wide event on CPU 2 is opened: both CPU-wide events
 * must get the one buffer of the session, so that the one that stops last
 * gets the trace of both CPUs. Without the fix, freeing the per-thread
 * buffer WARNs and takes the session's buffer out of the IDR; the event
 * on CPU 2 then gets a buffer of its own, which the ETR does not write,
 * and the session's trace is dropped (TRUNCATED).
 */
static void owner_per_thread_then_cpu_wide(void)
{
	struct trace_event cw[2] = { { .fd = -1 }, { .fd = -1 } };
	struct closer c = { .pt = { .fd = -1 } };
	int kmsg = kmsg_open(), ok, created, has_id[2] = { 0, 0 }, splats;

	ktap_diag("owner: a per-thread event closed on CPU 3, a CPU-wide event on CPU 1, "
		  "the per-thread sink buffer freed, a CPU-wide event on CPU 2");
	watchdog_step("owner: open and close the per-thread event");
	ok = !trace_event_open(&c.pt, 0, -1);
	created = ok && !pthread_create(&c.thread, NULL, closer_fn, &c);
	ok = created && watchdog_poll(c.closed, WAIT_SECONDS, watchdog_step_name);
	watchdog_step("owner: open the CPU-wide events");
	ok = ok && !trace_event_open(&cw[0], -1, 1);
	c.release = 1;
	if (created)
		pthread_join(c.thread, NULL);
	else
		trace_event_close(&c.pt);
	/* The work item runs at once on CPU 3, now idle: give it half a second */
	usleep(500 * 1000);
	ok = ok && !trace_event_open(&cw[1], -1, 2);
	for (int i = 0; ok && i < 2; i++)
		ok = !ioctl(cw[i].fd, PERF_EVENT_IOC_ENABLE, 0);
	watchdog_step("owner: trace on CPUs 1 and 2");
	for (int cpu = 1; ok && cpu <= 2; cpu++) {
		pin_to_cpu(cpu);
		spin(BURST);
	}
	pin_to_cpu(0);
	/* The event on CPU 2 stops last: its AUX buffer gets the ETR's trace */
	for (int i = 0; i < 2; i++) {
		if (cw[i].fd < 0)
			continue;
		ioctl(cw[i].fd, PERF_EVENT_IOC_DISABLE, 0);
		ktap_diag("owner: CPU-wide event on CPU %d:", i + 1);
		trace_event_read(&cw[i]);
	}
	/* The trace IDs of CPUs 1 and 2, each in the records of its event */
	for (int i = 0; ok && i < 2; i++)
		for (int j = 0; j < cw[i].nr_ids; j++)
			if (cw[i].id_cpu[j] == i + 1)
				has_id[i] = trace_has_id(&cw[1], cw[i].id[j]);
	ktap_diag("owner: the trace of CPU 1 %s, of CPU 2 %s, in the buffer of the last event",
		  has_id[0] ? "is" : "is not", has_id[1] ? "is" : "is not");
	/*
	 * A per-thread session, then a CPU-wide one of the same owner: the
	 * CPU-wide event that stops last gets the trace of both CPUs
	 */
	ktap_result(ok && has_id[0] && has_id[1] && !cw[0].truncated && !cw[1].truncated,
		    "etr_share.owner_cpu_wide.both_cpus_traced");
	for (int i = 0; i < 2; i++)
		trace_event_close(&cw[i]);
	watchdog_step("owner: let the buffers be freed");
	usleep(500 * 1000);
	splats = kmsg_splats(kmsg, 10);
	close(kmsg);
	ktap_result(!splats, "etr_share.owner_cpu_wide.no_splat");
}

int main(void)
{
	int nr_cpus, splats = 0;

	setvbuf(stdout, NULL, _IOLBF, 0);
	watchdog_start(WATCHDOG_SECONDS);
	page_size = sysconf(_SC_PAGESIZE);
	nr_cpus = sysconf(_SC_NPROCESSORS_ONLN);
	etr_sink_id = cs_etm_sink_id("tmc_etr0");
	ktap_plan("etr_share", 13);
	/* cs_etm with the sink tmc_etr0, an ETM per CPU, 4 or more CPUs */
	if (!ktap_result(nr_cpus >= 4 && etr_sink_id && pmu_type("cs_etm") >= 0 &&
			 !access(CS_DEVICES "/etm1", F_OK), "etr_share.devices")) {
		ktap_diag("needs -M virt,coresight=etr and -smp 4 or more");
		return 1;
	}
	pin_to_cpu(0);
	two_threads(1);
	two_threads(0);
	pin_to_cpu(0);
	two_sessions(&splats);
	ktap_result(!splats, "etr_share.two_sessions.no_splat");
	aux_sampling();
	owner_per_thread_then_cpu_wide();
	return 0;
}
