// SPDX-License-Identifier: GPL-2.0
/*
 * The boot runs with pseudo-NMIs (CONFIG_ARM64_PSEUDO_NMI and
 * irqchip.gicv3_pseudo_nmi=1, see ci/boot.sh), so that the overflow of a
 * hardware sampler (PMUv3 cycles) is an NMI, and perf core takes AUX
 * samples, pauses and resumes of the cs_etm PMU in NMI context, as on
 * arm64 servers. The tests with cycles samplers (aux_sample_trbe,
 * aux-sample-steady, the fuzzer, the kselftest aux_pause_orphan) mean
 * that only if this holds, so it is a test of its own:
 *
 *  - the GICv3 driver enabled pseudo-NMIs: gic_enable_nmi_support()
 *    logs "GICv3: Pseudo-NMIs enabled using ... ICC_PMR_EL1
 *    synchronisation" (drivers/irqchip/irq-gic-v3.c);
 *  - the PMU driver got its overflow interrupt as an NMI:
 *    armpmu_register() logs "hw perfevents: enabled with NAME PMU
 *    driver, N (...) counters available, using NMIs" when
 *    armpmu_request_irq() got request_percpu_nmi() or request_nmi()
 *    (drivers/perf/arm_pmu.c); without an NMI it falls back to a normal
 *    interrupt and leaves ", using NMIs" out;
 *  - the overflow of a cycles sampler is delivered: on each CPU, a
 *    sampler of this thread with a period of 1ms of cycles gets samples of
 *    this thread and CPU, and the PMU's interrupt line in /proc/interrupts
 *    ("arm-pmu") counts on that CPU.
 *
 * The kernel log is read from its start through /dev/kmsg: a log that
 * lost its first records (printk buffer wrapped) is said as the cause.
 * The cycles test is skipped only when the CPU has no PMU to count cycles
 * (perf_event_open() of PERF_COUNT_HW_CPU_CYCLES fails).
 */
#define _GNU_SOURCE
#include <stdint.h>
#include <stdlib.h>
#include <sys/ioctl.h>
#include <sys/mman.h>

#include "kmsg-util.h"
#include "ktap.h"
#include "perf-util.h"
#include "watchdog.h"

#define TEST_CPUS		4
#define DATA_PAGES	16	/* ring buffer pages, a power of 2 */
#define SPIN_MS		100	/* 100 periods of 1ms */
/* A second or two on the model; 120 s for a slow emulated CPU on a busy host */
#define WATCHDOG_SECONDS	120

/* The samples of this thread and CPU in the ring buffer behind @pc */
static int own_samples(struct perf_event_mmap_page *pc, long page, int tid, int cpu,
		       int *others)
{
	uint8_t *data = (uint8_t *)pc + page;
	uint64_t head = __atomic_load_n(&pc->data_head, __ATOMIC_ACQUIRE);
	uint64_t off, ring = DATA_PAGES * page;
	int nr = 0;

	*others = 0;
	for (off = pc->data_tail; off < head;) {
		struct {
			struct perf_event_header h;
			uint32_t pid, tid, cpu, res;
		} rec;
		uint64_t i;

		for (i = 0; i < sizeof(rec); i++)
			((uint8_t *)&rec)[i] = data[(off + i) % ring];
		if (rec.h.size < sizeof(rec.h)) {
			ktap_diag("malformed ring buffer: type %u size %u", rec.h.type, rec.h.size);
			(*others)++;
			break;
		}
		off += rec.h.size;
		if (rec.h.type != PERF_RECORD_SAMPLE)
			continue;
		if (rec.h.size == sizeof(rec) && (int)rec.tid == tid && (int)rec.cpu == cpu)
			nr++;
		else
			(*others)++;
	}
	__atomic_store_n(&pc->data_tail, head, __ATOMIC_RELEASE);
	return nr;
}

/* The PMU's interrupts on @cpu so far; -1 if none */
static long pmu_interrupts(int cpu)
{
	return cpu_interrupts("arm-pmu", cpu);
}

static void test_cycles_samples(void)
{
	/*
	 * A cycles sampler's overflows are delivered: samples of its thread on
	 * each CPU, counted as PMU interrupts
	 */
	const char *name = "pmu_nmi.cycles_samples_delivered";
	long page = sysconf(_SC_PAGESIZE);
	struct perf_event_attr attr;
	struct perf_event_mmap_page *pc;
	int cpu, fd, ok = 1;

	if (!have_cycles()) {
		ktap_diag("cycles: %s", strerror(errno));
		ktap_skip(name, "no PMU counts CPU cycles");
		return;
	}
	memset(&attr, 0, sizeof(attr));
	attr.size = sizeof(attr);
	cycles_sampler(&attr);
	attr.sample_period = 1000000;
	attr.sample_type = PERF_SAMPLE_TID | PERF_SAMPLE_CPU;
	attr.disabled = 1;
	fd = perf_event_open(&attr, 0, -1, -1, 0);
	if (fd < 0) {
		ktap_diag("cycles sampler: %s", strerror(errno));
		ktap_result(0, name);
		return;
	}
	pc = mmap(NULL, (DATA_PAGES + 1) * page, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	if (pc == MAP_FAILED) {
		ktap_diag("ring buffer: %s", strerror(errno));
		close(fd);
		ktap_result(0, name);
		return;
	}
	for (cpu = 0; cpu < TEST_CPUS; cpu++) {
		long irqs;
		int nr, others;

		watchdog_step("cycles samples on CPU %d", cpu);
		pin_to_cpu(cpu);
		irqs = pmu_interrupts(cpu);
		ioctl(fd, PERF_EVENT_IOC_ENABLE, 0);
		spin_ms(SPIN_MS);
		ioctl(fd, PERF_EVENT_IOC_DISABLE, 0);
		irqs = irqs < 0 ? -1 : pmu_interrupts(cpu) - irqs;
		nr = own_samples(pc, page, gettid(), cpu, &others);
		ktap_diag("CPU %d: %d samples in %d ms, %d of another thread or CPU or malformed, %ld PMU interrupts",
			  cpu, nr, SPIN_MS, others, irqs);
		ok &= nr > 0 && !others && irqs > 0;
	}
	munmap(pc, (DATA_PAGES + 1) * page);
	close(fd);
	ktap_result(ok, name);
}

static void test_log(const char *name, const char *what, const char *and_what)
{
	char line[512] = "";
	int wrapped, found = kmsg_has(what, and_what, line, sizeof(line), &wrapped);

	if (found > 0)
		ktap_diag("kernel: %s", line);
	else if (found < 0)
		ktap_diag("cannot read /dev/kmsg: %s", strerror(errno));
	else
		ktap_diag("no \"%s%s%s\" in the kernel log%s", what, and_what ? "...\" with \"" : "",
			  and_what ? and_what : "",
			  wrapped ? ", which lost its first records (printk buffer wrapped)" : "");
	/* The message without @and_what, if the log has it, says what happened instead */
	if (!found && and_what && kmsg_has(what, NULL, line, sizeof(line), &wrapped) > 0)
		ktap_diag("kernel: %s", line);
	ktap_result(found > 0, name);
}

int main(void)
{
	char rate[32] = "?";
	FILE *f;

	watchdog_start(WATCHDOG_SECONDS);
	ktap_plan("pmu_nmi", 3);
	watchdog_step("kernel log");
	/* The GICv3 driver enabled pseudo-NMIs */
	test_log("pmu_nmi.gic_pseudo_nmi", "GICv3: Pseudo-NMIs enabled using", NULL);
	/* The PMU driver takes its overflow interrupt as an NMI */
	test_log("pmu_nmi.pmu_irq_is_nmi", "hw perfevents: enabled with", ", using NMIs");
	test_cycles_samples();
	f = fopen("/proc/sys/kernel/perf_event_max_sample_rate", "r");
	if (f && fgets(rate, sizeof(rate), f))
		rate[strcspn(rate, "\n")] = 0;
	if (f)
		fclose(f);
	ktap_diag("kernel.perf_event_max_sample_rate is %s now", rate);
	return 0;
}
