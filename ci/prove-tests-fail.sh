#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Show that the tests can fail, by running them where the series is not:
#  - the base kernel: the KUnit suites of the series are absent, and the
#    boot tests of AUX sampling fail, the decoding of AUX samples and the
#    tests of the TRBE fault boot too, a TRBE event whose AUX area is
#    mapped again oopses in trbe_pad_buf() (patches 4 and 7), and so do
#    aux-group-sibling (a sibling that joins a running cs_etm group stays
#    inactive, patch 2; pmu-nmi, which tests the config, passes) and
#    sibling-open-error (a refused AUX sibling keeps its leader, patch
#    42), and of
#    the series' kselftests, the variants of aux_sample_open (patch 39)
#    where an AUX sampler must open and the first of aux_pause_orphan
#    (patch 40: a perf core WARN that patch 1 removes; the others pass, as
#    the WARN is once per boot); on the ETR
#    (ci/etr-share.sh), two threads of one session mix their trace in one
#    buffer or lose it with a WARN, a busy ETR is never a COLLISION,
#    AUX sampling is refused, a per-thread session that ends just before
#    a CPU-wide one of its process makes that one lose its trace with a
#    WARN, and every test of the kselftest sink_share
#    (patch 42) fails; on TRBEs with errata
#    (ci/boot-trbe-errata.sh) the snapshot mode restarts WARN in both
#    work-arounds of trbe_apply_work_around_before_enable(), which patch 9
#    fixes;
#  - the series with the sink sharing rule of the base tree put back
#    (ci/negative/owner-pid-sink-rule.patch): the KUnit table fails on the
#    cases the series fixes, and only on those, and so do the two threads
#    of one session on the ETR, in etr-share and in sink_share; with v2's rule, which compares buffers
#    across kinds of events (ci/negative/sink-rule-buffer-address.patch),
#    the three KUnit cases of a buffer at a CPU-bound claimer's address;
#  - the series with the sink checked at setup_aux() time, the design the
#    review rejected (ci/negative/setup-aux-sink-rule.patch): the two
#    sessions that take turns on the ETR fail; with a busy ETR reported at
#    every retry of the refused event, not once
#    (ci/negative/collision-every-retry.patch), the two tests of that in
#    etr-share and the two of sink_share;
#  - mutations of the series (ci/negative/*.patch, each says what it
#    breaks), built incrementally in one output directory: AUX samples
#    with the padding at the back, the whole ring copied for an empty
#    snapshot (the kselftest), a sample one byte short, up to a page too long (the KUnit
#    layout suite), trace from before the last restart; perf_output_copy_aux()
#    not wrapping the AUX ring, or copying nothing for equal offsets
#    (the KUnit suite perf_aux_copy); a fatal TRBE fault
#    not reported by update_buffer() (patch 8 undone); the shared-sink
#    refusal removed (etr-share and sink_share); an AUX sample that restarts the sink by disabling and
#    enabling the whole path (ci/negative/snapshot-restarts-path.patch, the
#    design of v2): the check of what the NMI paths call fails; throttling
#    that stops the AUX event (ci/negative/throttle-stops-aux.patch, patch
#    5 undone): no splat, and only tests of trace under throttling fail,
#    and with patch 23 undone too (ci/negative/throttle-tears-down-path.patch)
#    the WARN of a nested AUX transaction in perf_aux_output_begin();
#    throttling decided by has_aux() (ci/negative/throttle-skips-aux-pmus.patch):
#    the two cases of an overflowing AUX PMU of the KUnit suite
#    perf_throttle; the PMUv3
#    overflow NMI starting a PMU that perf core disabled
#    (ci/negative/pmu-irq-starts-disabled-pmu.patch, patch 43 undone):
#    pmu-nmi-group-enable stops the model or fails; freeing a per-thread
#    ETR buffer that takes a CPU-wide session's buffer out of the IDR
#    (ci/negative/etr-free-removes-session-buffer.patch, patch 18
#    undone): the two etr-share tests of that; the hrtimer of a
#    throttled cpu-clock event left queued on the CPU the event leaves
#    (ci/negative/throttled-hrtimer-left-queued.patch, patch 44 undone):
#    cpu-clock-throttle-migrate WARNs; the series booted without idle
#    states: pmu-nmi-aux-sample-cpu-pm's check that CPU PM ran; CPU PM
#    restoring the path without its sink
#    (ci/negative/cpu-pm-no-sink-restore.patch): its check that samples
#    carry trace; a refused AUX sibling that keeps its leader alive
#    (ci/negative/aux-sibling-error-keeps-leader.patch, patch 45 undone):
#    every case of sibling-open-error. The tests of what each breaks must
#    fail;
#  - perf as it is before the perf patches of the series: the perf tests
#    of AUX samples fail (ci/perf-sample-test.sh has the list), and so
#    does the series' perf test, as it does on the base kernel.
# Each boot must fail exactly as listed below, or this stage fails.
set -euo pipefail
. "$(dirname "$0")/lib.sh"

# $1: what was run; $2...: its KTAP logs; stdin: the tests that must fail,
# one per line
expect_failures() {
	local name=$1 want got
	shift
	want=$(sort)
	got=$({ bounded 300 "ktap-results.py on $*" python3 "$CI_DIR/ktap-results.py" --allow-skip "no CPU hotplug" \
		--allow-skip "$KSELFTEST_NO_HOTPLUG" --allow-skip "$KSELFTEST_NO_SINK" \
		--allow-skip "$KSELFTEST_NO_SHARED_SINK" "$@" || true; } |
	      sed -n 's/^FAILED: //p' | sort)
	if [ "$want" != "$got" ]; then
		diff <(echo "$want") <(echo "$got") | sed 's/^/  /'
		die "$name: the failures are not the expected ones (< expected, > got)"
	fi
	log "$name: $(echo "$got" | wc -l) tests fail, as expected"
}

# Build the series with ci/negative/$1 applied, as Image-$2, incrementally
# in one output directory of its own, a copy of the series' build made
# once: only what the mutation touches is rebuilt. The tree is clean again
# afterwards, also when the build fails.
NEG_KOUT=$WORK/kernel-negative
build_negative() {
	local rc=0 start=$SECONDS

	git -C "$KSRC" checkout -q series
	[ -d "$NEG_KOUT" ] || cp -a "$KOUT" "$NEG_KOUT"
	git -C "$KSRC" apply "$CI_DIR/negative/$1"
	{ KOUT=$NEG_KOUT kmake Image > "$LOGS/build-$2.log" 2>&1 &&
	  cp "$NEG_KOUT/arch/arm64/boot/Image" "$WORK/images/Image-$2"; } || rc=$?
	git -C "$KSRC" checkout -q -- .
	[ $rc -eq 0 ] || die "$1 does not build, see $LOGS/build-$2.log"
	log "built Image-$2 with $1 in $((SECONDS - start))s"
}

# The KUnit part of the boot log of kernel $1, before init's boot tests,
# as $LOGS/kunit-$1.log: for mutations whose boot test failures vary
kunit_part() {
	sed '/# boot tests: start/,$d' "$LOGS/boot-$1.log" > "$LOGS/kunit-$1.log"
}

# An initramfs $WORK/$2.cpio.gz whose init runs only the boot test
# tools/tests/$1.c, for a mutation whose boot must fail in that test
one_test_initramfs() {
	local dir=$WORK/$2-src

	rm -rf "$dir"
	mkdir -p "$dir"
	ln -sf "$TOP/tools/tests/$1.c" "$dir/"
	bash "$CI_DIR/make-initramfs.sh" "$dir" "$2"
}

# Every case of sibling-open-error: where a refused AUX sibling keeps its
# leader (the base kernel, patch 45 undone), the first case leaks it and
# the later ones cannot even start
SIBLING_OPEN_ERROR_FAILURES="a refused aux_pause sibling leaves no CPU-wide cs_etm leader behind
a refused aux_resume sibling leaves no CPU-wide cs_etm leader behind
a refused aux_sample_size sibling leaves no CPU-wide cs_etm leader behind"

# Base kernel: built by test.sh before the series
bash "$CI_DIR/boot.sh" base
# fails, as it must: its results are compared below
bash "$CI_DIR/check-aux-samples.sh" base || true
bash "$CI_DIR/boot-trbe-fault.sh" base
# An AUX area mapped again: the base kernel pads past its end in
# trbe_pad_buf() and oopses (oops=panic) before the test reports
BOOT_TIMEOUT=180 bash "$CI_DIR/boot-aux-remap.sh" base &&
	die "aux-remap: the base kernel passed its boot"
remap_log=$LOGS/boot-aux-remap-base.log
grep -q 'Unable to handle kernel' "$remap_log" && grep -q 'trbe_pad_buf' "$remap_log" ||
	die "aux-remap: no oops in trbe_pad_buf() on the base kernel, see $remap_log"
! grep -q '^ok 1 ' "$remap_log" || die "aux-remap: the test passed on the base kernel"
log "base: aux-remap oopses in trbe_pad_buf(), as it must"
for suite in coresight_etm_perf_aux_sample coresight_perf_sink_sharing perf_aux_copy perf_throttle; do
	! grep -q "# Subtest: $suite" "$LOGS/boot-base.log" ||
		die "KUnit suite $suite runs on the base kernel"
done
log "base: the KUnit suites of the series are absent"

# The series' kselftests (patches 39 to 42, built from the series) on
# the base kernel with TRBEs (sink_share skips, for want of a shared sink): perf core refuses an aux_sample_size under
# a cs_etm leader, which has no snapshot_aux, so every variant of
# aux_sample_open where the sampler must open fails, and the refusals
# pass (the regression guard); every test of aux_sample_trbe fails, as
# its sampler cannot be opened (these also run in the base TRBE errata
# boot below); the first orphaned aux_pause sampler of aux_pause_orphan
# makes perf_event_aux_pause() WARN, which patch 1 removes: let that WARN
# pass the boot, the test fails.
BASE_AUX_SAMPLE_TRBE_FAILURES="sample_size.cpu_clock_4096_bytes_16_aux_pages.expected_size_with_trace
sample_size.cpu_clock_16384_bytes_16_aux_pages.expected_size_with_trace
sample_size.cpu_clock_65536_bytes_32_aux_pages.expected_size_with_trace
sample_size.cpu_clock_1mib_32_aux_pages.expected_size_with_trace
sample_size.cycles_4096_bytes_16_aux_pages.expected_size_with_trace
sample_size.cycles_65536_bytes_32_aux_pages.expected_size_with_trace
sampler.cpu_clock.small_aux_buffer_across_trbe_interrupts
sampler.cpu_clock.enable_disable_racing_samples_on_4_cpus
sampler.cpu_clock.sched_out_and_in_migrating_over_4_cpus
sampler.cpu_clock.aux_pause_and_aux_resume_samplers
sampler.cycles.small_aux_buffer_across_trbe_interrupts
sampler.cycles.enable_disable_racing_samples_on_4_cpus
sampler.cycles.sched_out_and_in_migrating_over_4_cpus
sampler.cycles.aux_pause_and_aux_resume_samplers
cpu_clock.paused_cs_etm_event_gives_all_zero_samples
cycles.throttled_50khz_samples_hold_trace"
KSELFTEST=series ALLOW_WARNING=' at perf_event_aux_pause\+' bash "$CI_DIR/kselftest.sh" base on
expect_failures "base, kselftest" "$LOGS/boot-kselftest-base-on.log" <<EOT
$BASE_AUX_SAMPLE_TRBE_FAILURES
aux_pause_orphan.cpu_clock_aux_pause.overflows_after_its_leader_closed_without_a_warning
aux_sample.4kib_samples_under_a_cs_etm_leader_are_accepted.open
aux_sample.64kib_samples_under_a_cs_etm_leader_are_accepted.open
aux_sample.1mib_samples_are_accepted_perf_core_caps_them.open
aux_sample.a_size_that_is_not_a_multiple_of_8_is_accepted.open
aux_sample.the_sampler_opened_before_the_aux_buffer_is_mapped_4096_bytes_with_trace.open
aux_sample.the_sampler_opened_after_the_aux_buffer_is_mapped_4096_bytes_with_trace.open
aux_sample.4100_byte_samples_are_cut_to_4096_bytes_with_trace.open
aux_sample.32kib_samples_from_a_4_page_aux_buffer_are_cut_to_16384_bytes_with_trace.open
aux_sample.1mib_samples_from_a_32_page_aux_buffer_are_cut_to_the_record_limit_with_trace.open
aux_sample.a_normal_mode_aux_buffer_prot_read_prot_write_gives_all_zero_samples.open
aux_sample.without_an_aux_buffer_the_group_does_not_run_no_samples.open
aux_sample.a_sinkid_of_no_sink_falls_back_to_the_default_sink_4096_bytes_with_trace.open
aux_sample.a_per_thread_event_with_the_sink_of_cpu_1_all_zero_samples_on_cpu_0.open
aux_sample.a_per_thread_event_with_the_sink_of_cpu_1_4096_bytes_with_trace_on_cpu_1.open
aux_sample.a_cpu_wide_group_on_cpu_2_4096_bytes_with_trace.open
aux_sample.config_and_config3_bits_outside_the_format_are_ignored_4096_bytes_with_trace.open
aux_sample.contextid2_with_the_kernel_at_el1_the_aux_output_is_truncated_no_samples.open
aux_sample.branch_broadcast_without_ete_support_the_aux_output_is_truncated_no_samples.open
aux_sample.all_exclude_bits_4096_byte_samples.open
EOT

# The kselftests on the ETR, where those of a per-CPU sink skip. The base
# kernel lets the threads of one process share the sink: no collision,
# and where the claimer stops first the other trips the WARN in
# tmc_update_etr_buffer(); the AUX sampler does not open. aux_pause_orphan
# fails as with TRBEs. Both WARNs pass the boot, the tests fail.
KSELFTEST=series ALLOW_WARNING=' at (perf_event_aux_pause|tmc_update_etr_buffer)\+' \
	bash "$CI_DIR/kselftest.sh" base etr
expect_failures "base, kselftest on the ETR" "$LOGS/boot-kselftest-base-etr.log" <<EOT
aux_pause_orphan.cpu_clock_aux_pause.overflows_after_its_leader_closed_without_a_warning
sink_share.two_threads_the_owner_stops_last
sink_share.two_threads_the_owner_stops_first
sink_share.aux_samples_from_a_shared_sink_are_all_zeros
EOT

# Both base boots below run the AUX sample programs aux-sample-dump and
# aux-sample-latest, and the host decodes their samples: the base kernel
# takes no AUX samples from cs_etm, so all of these fail in both
BASE_AUX_SAMPLE_FAILURES="4096 byte samples of 3 threads printed for decoding
16384 byte samples of 3 threads printed for decoding
65536 byte samples of 3 threads printed for decoding
4096 byte samples of 12 page faults at known stores printed for decoding
16384 byte samples of 12 page faults at known stores printed for decoding
65536 byte samples of 12 page faults at known stores printed for decoding
4096 byte samples decode from their first A-Sync with the sampled thread's context IDs only
4096 byte samples hold only trace newer than the samples of their thread before them
16384 byte samples decode from their first A-Sync with the sampled thread's context IDs only
16384 byte samples hold only trace newer than the samples of their thread before them
65536 byte samples decode from their first A-Sync with the sampled thread's context IDs only
65536 byte samples hold only trace newer than the samples of their thread before them
4096 byte samples taken at page faults end with the trace of the faulting store: its function, iteration and IP
16384 byte samples taken at page faults end with the trace of the faulting store: its function, iteration and IP
65536 byte samples taken at page faults end with the trace of the faulting store: its function, iteration and IP"

# On TRBEs with the Neoverse-N2 errata, the base kernel restarts a snapshot
# buffer where the TRBE cannot write: at an unaligned head (the overwrite
# in fill mode work-around WARNs) and with a page or less left (the write
# out of range one WARNs). Let those WARNs pass the boot, each must be
# there; the tests fail below: the two snapshot mode sessions of
# trbe-errata for want of patch 9, the AUX sampling ones as in the base
# boot above.
errata_boot=$LOGS/boot-trbe-errata-base.log
rm -f "$LOGS/trbe-errata-check-base.log" "$LOGS/aux-samples-trbe-errata-base.log" \
	"$LOGS/aux-latest-trbe-errata-base.log"
ALLOW_WARNING=' at __arm_trbe_enable\+' bash "$CI_DIR/boot-trbe-errata.sh" base || true
[ -f "$LOGS/trbe-errata-check-base.log" ] ||
	die "base: the TRBE errata boot did not get to its checks, see $errata_boot"
for warn in 'WARN_ON(!IS_ALIGNED(buf->trbe_write, PAGE_SIZE))' 'WARN_ON(space <= PAGE_SIZE'; do
	line=$(git -C "$KSRC" show base:drivers/hwtracing/coresight/coresight-trbe.c |
	       grep -nF "$warn" | head -1 | cut -d: -f1)
	grep -q "WARNING: .*coresight-trbe\.c:$line " "$errata_boot" ||
		die "base: no WARN at coresight-trbe.c:${line:-?} ($warn) on TRBEs with errata, see $errata_boot"
done
log "base: both TRBE errata work-arounds WARN at a snapshot mode restart"
expect_failures base-trbe-errata "$errata_boot" "$LOGS/trbe-errata-check-base.log" \
	"$LOGS/aux-samples-trbe-errata-base.log" "$LOGS/aux-latest-trbe-errata-base.log" <<EOT
snapshot mode: restarts at unaligned heads, no fault, no splat
snapshot mode: the TRBE fills its buffer again and again, no fault, no splat
$BASE_AUX_SAMPLE_FAILURES
$BASE_AUX_SAMPLE_TRBE_FAILURES
EOT
expect_failures base "$LOGS/boot-base.log" "$LOGS/aux-samples-base.log" \
	"$LOGS/aux-latest-base.log" "$LOGS/boot-trbe-fault-base.log" <<EOT
$SIBLING_OPEN_ERROR_FAILURES
thread 0: 200 or more CPU hops, AUX samples, throttles
thread 1: 200 or more CPU hops, AUX samples, throttles
thread 2: 200 or more CPU hops, AUX samples, throttles
thread 3: 200 or more CPU hops, AUX samples, throttles
each CPU entered its PSCI idle state 20 or more times with its CPU-wide cs_etm session on
on each CPU, two thirds or more of the AUX samples of cycles samplers carry trace across idle periods
every AUX sample taken across idle periods is well formed and has the size asked for
a cpu-clock sibling opened enabled into a running cs_etm group runs at once
a cpu-clock sibling enabled in a running cs_etm group runs at once
a cs_etm group enabled with PERF_IOC_FLAG_GROUP: its cpu-clock sibling runs at once
cpu-clock, 128KiB AUX buffers on 4 CPUs: 95% or more of the samples hold trace
cpu-clock, 128KiB AUX buffers on 4 CPUs: no trace followed by zeros
cpu-clock, 2MiB AUX buffers on 4 CPUs: 95% or more of the samples hold trace
cpu-clock, 2MiB AUX buffers on 4 CPUs: no trace followed by zeros
cycles, 128KiB AUX buffers on 4 CPUs: 95% or more of the samples hold trace
cycles, 128KiB AUX buffers on 4 CPUs: no trace followed by zeros
cycles, 2MiB AUX buffers on 4 CPUs: 95% or more of the samples hold trace
cycles, 2MiB AUX buffers on 4 CPUs: no trace followed by zeros
cpu-clock again, 128KiB AUX buffers on 4 CPUs: 95% or more of the samples hold trace
cpu-clock again, 128KiB AUX buffers on 4 CPUs: no trace followed by zeros
cpu-clock again, 2MiB AUX buffers on 4 CPUs: 95% or more of the samples hold trace
cpu-clock again, 2MiB AUX buffers on 4 CPUs: no trace followed by zeros
cycles at a throttling rate, 128KiB AUX buffers on 4 CPUs: 95% or more of the samples hold trace
cycles at a throttling rate, 128KiB AUX buffers on 4 CPUs: no trace followed by zeros
cycles at a throttling rate, 2MiB AUX buffers on 4 CPUs: 95% or more of the samples hold trace
cycles at a throttling rate, 2MiB AUX buffers on 4 CPUs: no trace followed by zeros
a TRBE fault found by an AUX sample ends the session TRUNCATED and disabled
a TRBE fault while AUX samples pause the trace ends the session in the TRBE interrupt
a TRBE fault found when the event stops is reported TRUNCATED
CPU 0: 100 or more group enables, AUX samples
CPU 1: 100 or more group enables, AUX samples
CPU 2: 100 or more group enables, AUX samples
CPU 3: 100 or more group enables, AUX samples
$BASE_AUX_SAMPLE_FAILURES
EOT

# The tests of etr-share that patch 18 makes pass: a per-thread session
# that ends just before a CPU-wide one of the same process
ETR_IDR_FAILURES="a per-thread session, then a CPU-wide one of the same owner: the CPU-wide event that stops last gets the trace of both CPUs
a per-thread session, then a CPU-wide one of the same owner: no WARN or other splat"

# The ETR shared through perf on the base kernel. The threads of one
# session share the ETR there: when the claimer stops first, the other
# stops last and trips the WARN in tmc_update_etr_buffer(); let it pass
# the boot, the test fails below. The two sessions get trace on the base
# kernel too, and their buffers decode (a regression guard), but the
# second one, finding the ETR busy, is TRUNCATED and loses trace. The
# per-thread session that ends before a CPU-wide one of its process
# takes that session's buffer out of the IDR, with the WARN in
# tmc_free_etr_buffer() that patch 18 removes, and the trace is lost.
ALLOW_WARNING=' at (tmc_update_etr_buffer|tmc_free_etr_buffer)\+' \
	bash "$CI_DIR/etr-share.sh" base || true
expect_failures "base, ETR" "$LOGS/boot-etr-share-base.log" "$LOGS/etr-share-check-base.log" <<EOT
threads-owner-last: the second event finds the ETR busy: PERF_RECORD_AUX with COLLISION
threads-owner-first: the second event finds the ETR busy: PERF_RECORD_AUX with COLLISION
threads-owner-last: the refused event reports the busy ETR once, not at every retry
threads-owner-first: the refused event reports the busy ETR once, not at every retry
two sessions: the second to start while both run finds the ETR busy: PERF_RECORD_AUX with COLLISION
two sessions taking turns: both get trace, neither is truncated
a PERF_SAMPLE_AUX sampler opens under a cs_etm leader on tmc_etr0 with an overwrite mode AUX buffer
AUX samples from the shared ETR: 20 or more, 4096 bytes, all zeros
the kernel log says once why the samples hold no trace
$ETR_IDR_FAILURES
one session, two threads, the ETR's claimer stops last: each AUX buffer holds its own thread's trace only, none lost, no WARN
one session, two threads, the ETR's claimer stops first: each AUX buffer holds its own thread's trace only, none lost, no WARN
EOT

# The series with the owner PID rule of the base tree
build_negative owner-pid-sink-rule.patch owner-pid-rule
bash "$CI_DIR/boot.sh" owner-pid-rule
expect_failures owner-pid-rule "$LOGS/boot-owner-pid-rule.log" <<EOT
coresight_perf_sink_sharing.test_perf_sink_use.per-thread, one owner, two targets
coresight_perf_sink_sharing.test_perf_sink_use.CPU-wide, then per-thread of one owner
coresight_perf_sink_sharing.test_perf_sink_use.per-thread, then CPU-wide of one owner
coresight_perf_sink_sharing.test_perf_sink_use.CPU-bound, then per-thread of one owner, one buffer address
EOT
# The ETR: the threads of one session share it again (their trace mixed,
# or dropped with "ETR writes to another perf buffer"); the two sessions,
# of two owners, still may not.
bash "$CI_DIR/etr-share.sh" owner-pid-rule || true
expect_failures "owner-pid-rule, ETR" "$LOGS/boot-etr-share-owner-pid-rule.log" \
	"$LOGS/etr-share-check-owner-pid-rule.log" <<EOT
threads-owner-last: the second event finds the ETR busy: PERF_RECORD_AUX with COLLISION
threads-owner-first: the second event finds the ETR busy: PERF_RECORD_AUX with COLLISION
threads-owner-last: the refused event reports the busy ETR once, not at every retry
threads-owner-first: the refused event reports the busy ETR once, not at every retry
one session, two threads, the ETR's claimer stops last: each AUX buffer holds its own thread's trace only, none lost, no WARN
one session, two threads, the ETR's claimer stops first: each AUX buffer holds its own thread's trace only, none lost, no WARN
EOT
bash "$CI_DIR/kselftest.sh" owner-pid-rule etr
expect_failures "owner-pid-rule, kselftest on the ETR" "$LOGS/boot-kselftest-owner-pid-rule-etr.log" <<EOT
sink_share.two_threads_the_owner_stops_last
sink_share.two_threads_the_owner_stops_first
EOT

# The series with the design that the review rejected: the sink checked
# when the AUX buffer is set up (ci/negative/setup-aux-sink-rule.patch),
# which takes away two sessions that take turns on the ETR: the AUX
# buffer of the second cannot be mapped, so the sessions end without
# trace to decode
build_negative setup-aux-sink-rule.patch setup-aux-rule
bash "$CI_DIR/etr-share.sh" setup-aux-rule || true
expect_failures "setup-aux-rule, ETR" "$LOGS/boot-etr-share-setup-aux-rule.log" \
	"$LOGS/etr-share-check-setup-aux-rule.log" <<EOT
two sessions: the second to start while both run finds the ETR busy: PERF_RECORD_AUX with COLLISION
two sessions taking turns: both get trace, neither is truncated
two sessions: each AUX buffer decodes with 0 errors and has its own PID only
EOT

# The series with a busy ETR reported at every retry of the refused
# event (ci/negative/collision-every-retry.patch, the bound of patch 24
# undone): the refused event of the two threads is retried for 20 ms
build_negative collision-every-retry.patch collision-every-retry
bash "$CI_DIR/etr-share.sh" collision-every-retry || true
expect_failures "collision-every-retry, ETR" "$LOGS/boot-etr-share-collision-every-retry.log" \
	"$LOGS/etr-share-check-collision-every-retry.log" <<EOT
threads-owner-last: the refused event reports the busy ETR once, not at every retry
threads-owner-first: the refused event reports the busy ETR once, not at every retry
EOT
bash "$CI_DIR/kselftest.sh" collision-every-retry etr
expect_failures "collision-every-retry, kselftest on the ETR" \
	"$LOGS/boot-kselftest-collision-every-retry-etr.log" <<EOT
sink_share.two_threads_the_owner_stops_last
sink_share.two_threads_the_owner_stops_first
EOT

# The series with patch 18 undone
# (ci/negative/etr-free-removes-session-buffer.patch): freeing a
# per-thread buffer takes the buffer of a CPU-wide session of the same
# owner out of the IDR again, with the WARN; only the etr-share tests of
# that fail
build_negative etr-free-removes-session-buffer.patch etr-free-removes-session-buffer
ALLOW_WARNING=' at tmc_free_etr_buffer\+' \
	bash "$CI_DIR/etr-share.sh" etr-free-removes-session-buffer || true
expect_failures "etr-free-removes-session-buffer, ETR" \
	"$LOGS/boot-etr-share-etr-free-removes-session-buffer.log" \
	"$LOGS/etr-share-check-etr-free-removes-session-buffer.log" <<EOT
$ETR_IDR_FAILURES
EOT

# Mutations of the series that take AUX samples with wrong content
# (ci/negative/aux-sample-*.patch, see the header of each): the checks of
# the content must catch each one. $1: mutation, $2: name of the kernel;
# boots it with KUnit, the programs whose samples the host decodes
# (aux-sample-dump, aux-sample-latest), then decodes the samples. The
# other boot tests check sample content too (trailing zeros, sizes), but how many of their cases a mutation fails
# depends on how much trace each sample happens to hold: exact lists of
# them would flake.
samples_src=$WORK/samples-only-src
rm -rf "$samples_src"
mkdir -p "$samples_src"
ln -sf "$TOP/tools/tests/aux-sample-dump.c" "$TOP/tools/tests/aux-sample-latest.c" "$samples_src/"
bash "$CI_DIR/make-initramfs.sh" "$samples_src" samples-only
boot_samples() {
	build_negative "$1" "$2"
	INITRAMFS=samples-only bash "$CI_DIR/boot.sh" "$2"
	bash "$CI_DIR/check-aux-samples.sh" "$2" || true
}

# The series with v2's sink sharing rule, which compares buffers across
# kinds of events: a buffer at the address of a CPU-bound claimer's,
# which may be freed, shares the sink. The KUnit table catches it (the
# programs of this boot, on the TRBE, pass); no boot test can, as nothing
# makes an allocator return one address.
build_negative sink-rule-buffer-address.patch sink-rule-buffer-address
INITRAMFS=samples-only bash "$CI_DIR/boot.sh" sink-rule-buffer-address
expect_failures sink-rule-buffer-address "$LOGS/boot-sink-rule-buffer-address.log" <<EOT
coresight_perf_sink_sharing.test_perf_sink_use.per-thread, buffer at the address of a CPU-bound one's
coresight_perf_sink_sharing.test_perf_sink_use.CPU-bound, buffer at the address of another owner's
coresight_perf_sink_sharing.test_perf_sink_use.CPU-bound, then per-thread of one owner, one buffer address
EOT

# The decoding of the samples of aux-sample-dump, one result per size
decode_failures="\
4096 byte samples decode from their first A-Sync with the sampled thread's context IDs only
16384 byte samples decode from their first A-Sync with the sampled thread's context IDs only
65536 byte samples decode from their first A-Sync with the sampled thread's context IDs only"

# The padding at the back: zeros after the trace, which does not decode
boot_samples aux-sample-pad-at-back.patch aux-pad-at-back
expect_failures aux-pad-at-back "$LOGS/boot-aux-pad-at-back.log" \
	"$LOGS/aux-samples-aux-pad-at-back.log" <<< "$decode_failures"

# The whole AUX ring copied for an empty snapshot: only the sampler whose
# trace unit traces nothing (all exclude_ bits) has empty snapshots, and
# 64KiB written past each of its samples overrun the ring buffer: the
# kselftest of its attribute table (patch 39) runs it until the ring is
# nearly full, so that the last overrun wraps onto the first records,
# which it then finds malformed (the bytes copied are mostly zeros, so
# only the wrap shows it)
build_negative aux-sample-empty-copies-ring.patch aux-empty-copies-ring
bash "$CI_DIR/kselftest.sh" aux-empty-copies-ring on
expect_failures "aux-empty-copies-ring, kselftest" "$LOGS/boot-kselftest-aux-empty-copies-ring-on.log" <<EOT
aux_sample.all_exclude_bits_4096_byte_samples.open
EOT

# A sample one byte short: it ends inside a packet
boot_samples aux-sample-one-byte-short.patch aux-one-byte-short
expect_failures aux-one-byte-short "$LOGS/boot-aux-one-byte-short.log" \
	"$LOGS/aux-samples-aux-one-byte-short.log" <<< "$decode_failures"

# Up to a page more than asked for: the layout of the KUnit suite. The
# bytes written past the samples also make boot tests fail, but which ones
# depends on how much trace each sample finds: compare KUnit only.
boot_samples aux-sample-page-too-long.patch aux-page-too-long
kunit_part aux-page-too-long
expect_failures "aux-page-too-long, KUnit" "$LOGS/kunit-aux-page-too-long.log" <<EOT
coresight_etm_perf_aux_sample.test_aux_sample_layout.more trace: the latest only
coresight_etm_perf_aux_sample.test_aux_sample_layout.empty sample
EOT

# perf_output_copy_aux(), with which the snapshot copies the latest trace
# (ci/negative/copy-aux-*.patch): a copy that stops at the end of the AUX
# ring, and equal offsets that copy nothing rather than the whole ring.
# The KUnit suite perf_aux_copy (patch 31) must catch each; compare KUnit
# only, as above (AUX samples that wrap come out short, which the boot
# tests may or may not meet).
boot_copy_aux() {
	build_negative "$1.patch" "$1"
	INITRAMFS=samples-only bash "$CI_DIR/boot.sh" "$1" || true
	kunit_part "$1"
}
boot_copy_aux copy-aux-stops-at-ring-end
expect_failures "copy-aux-stops-at-ring-end, KUnit" "$LOGS/kunit-copy-aux-stops-at-ring-end.log" <<EOT
perf_aux_copy.test_copy_latest_aux.wrapping the ring
perf_aux_copy.test_copy_latest_aux.the whole ring, wrapping
EOT
boot_copy_aux copy-aux-equal-offsets-copy-nothing
expect_failures "copy-aux-equal-offsets-copy-nothing, KUnit" "$LOGS/kunit-copy-aux-equal-offsets-copy-nothing.log" <<EOT
perf_aux_copy.test_copy_latest_aux.the whole ring
perf_aux_copy.test_copy_latest_aux.the whole ring, wrapping
EOT

# Throttling decided by has_aux(), as in v3 of patch 5
# (ci/negative/throttle-skips-aux-pmus.patch): an overflowing PMU with an
# AUX area (s390's cpum_sf) is no longer stopped. No such PMU runs here:
# the KUnit suite perf_throttle (patch 6) must catch it, in exactly its
# two cases of such a PMU.
boot_copy_aux throttle-skips-aux-pmus
expect_failures "throttle-skips-aux-pmus, KUnit" "$LOGS/kunit-throttle-skips-aux-pmus.log" <<EOT
perf_throttle.test_throttle_group.an overflowing AUX PMU without PERF_PMU_CAP_ITRACE stops
perf_throttle.test_throttle_group.an overflowing AUX PMU without PERF_PMU_CAP_ITRACE in an instruction trace group stops
EOT

# Trace from before the last restart (ci/negative/stale-trace.patch): each
# sample of aux-sample-latest ends at the fault before its own. Only its
# decoding is compared: which other samples of the boot are caught
# depends on how much trace each finds.
boot_samples stale-trace.patch stale-trace
expect_failures stale-trace "$LOGS/aux-latest-stale-trace.log" <<EOT
4096 byte samples taken at page faults end with the trace of the faulting store: its function, iteration and IP
16384 byte samples taken at page faults end with the trace of the faulting store: its function, iteration and IP
65536 byte samples taken at page faults end with the trace of the faulting store: its function, iteration and IP
EOT

# Patch 7 undone: a fatal TRBE fault found by update_buffer() is not
# reported, on the AUX sample and event stop paths; the interrupt handler
# still reports its own
build_negative trbe-fault-not-truncated.patch trbe-fault-not-truncated
bash "$CI_DIR/boot-trbe-fault.sh" trbe-fault-not-truncated
expect_failures trbe-fault-not-truncated "$LOGS/boot-trbe-fault-trbe-fault-not-truncated.log" <<EOT
a TRBE fault found by an AUX sample ends the session TRUNCATED and disabled
a TRBE fault found when the event stops is reported TRUNCATED
EOT

# The shared-sink refusal removed: the ETR gives samples with trace, and
# the kernel log does not say why they would not. The mutation is in the
# sampling path only: the results of the boot are compared, not the
# decoding of the sessions' AUX buffers (etr-share-check), which have no
# sampler.
build_negative shared-sink-sampled.patch shared-sink-sampled
bash "$CI_DIR/etr-share.sh" shared-sink-sampled || true
expect_failures "shared-sink-sampled, ETR" "$LOGS/boot-etr-share-shared-sink-sampled.log" <<EOT
AUX samples from the shared ETR: 20 or more, 4096 bytes, all zeros
the kernel log says once why the samples hold no trace
EOT
bash "$CI_DIR/kselftest.sh" shared-sink-sampled etr
expect_failures "shared-sink-sampled, kselftest on the ETR" \
	"$LOGS/boot-kselftest-shared-sink-sampled-etr.log" <<EOT
sink_share.aux_samples_from_a_shared_sink_are_all_zeros
EOT

# An AUX sample that restarts the sink with the whole path, helpers
# included, as v2 of the series did: the check of what the NMI paths call
# must fail on etm_event_snapshot_aux, and name coresight_enable_path
build_negative snapshot-restarts-path.patch snapshot-restarts-path
KOUT=$NEG_KOUT bash "$CI_DIR/check-nmi-calls.sh" snapshot-restarts-path 2> "$LOGS/nmi-calls-snapshot-restarts-path.err" ||
	true
cat "$LOGS/nmi-calls-snapshot-restarts-path.err"
grep -q '^etm_event_snapshot_aux: etm_event_snapshot_aux -> coresight_enable_path: forbidden' \
	"$LOGS/nmi-calls-snapshot-restarts-path.err" ||
	die "snapshot-restarts-path: check-nmi-calls does not name coresight_enable_path"
expect_failures "snapshot-restarts-path, NMI calls" "$LOGS/nmi-calls-snapshot-restarts-path.ktap" <<EOT
etm_event_snapshot_aux: no path, helper, lock, sleep or allocation
EOT

# Throttling stops the cs_etm leader again (patch 5 undone, as in 7.2.13),
# which the CoreSight postings must survive: every boot test of the series
# runs (the NMI, throttle, pause/resume and CPU PM ones with them), with
# no splat, and only tests that need trace while a group is throttled may
# fail. Once the cycles samplers of aux-sample-steady have made perf lower
# the sample rate, the samples of the throttled groups carry no trace
# (cs_etm pauses the trace for the throttle, patch 23): at least one
# configuration fails the 95% check. Which ones fail depends on when the
# rate is lowered.
THROTTLE_MAY_FAIL='^FAILED: (.*AUX buffers on 4 CPUs: (95% or more of the samples hold trace|no trace followed by zeros)|on each CPU, two thirds or more of the AUX samples of cycles samplers carry trace across idle periods)$'
build_negative throttle-stops-aux.patch throttle-stops-aux
KUNIT=0 bash "$CI_DIR/boot.sh" throttle-stops-aux || true
throttle_log=$LOGS/boot-throttle-stops-aux.log
bounded 300 "check-boot-log.py on $throttle_log" python3 "$CI_DIR/check-boot-log.py" "$throttle_log" ||
	die "throttle-stops-aux: a throttled cs_etm event broke the kernel, see $throttle_log"
throttle_failures=$({ bounded 300 "ktap-results.py on $throttle_log" \
				python3 "$CI_DIR/ktap-results.py" --allow-skip "no CPU hotplug" "$throttle_log" || true; } |
		    grep '^FAILED: ' || true)
others=$(grep -vE "$THROTTLE_MAY_FAIL" <<< "$throttle_failures" || true)
[ -z "$others" ] ||
	die "throttle-stops-aux: tests that do not need trace under throttling fail: $others"
grep -q ': 95% or more of the samples hold trace$' <<< "$throttle_failures" ||
	die "throttle-stops-aux: aux-sample-steady passed with throttling stopping the AUX event, see $throttle_log"
log "throttle-stops-aux: $(grep -c . <<< "$throttle_failures") tests of trace under throttling fail, no other test fails, no splat"

# The same with cs_etm handling the throttle stop as 7.2.13 does
# (ci/negative/throttle-tears-down-path.patch, patch 23 undone too): it
# tears down the path from the overflow NMI and keeps the AUX transaction
# open, and aux-sample-steady, alone in a boot, must hit the WARN of the
# nested AUX transaction that the unthrottle begins, in
# perf_aux_output_begin(), which the boot above must not.
build_negative throttle-tears-down-path.patch throttle-tears-down-path
one_test_initramfs aux-sample-steady steady-only
KUNIT=0 INITRAMFS=steady-only bash "$CI_DIR/boot.sh" throttle-tears-down-path &&
	die "throttle-tears-down-path: its boot passed"
grep -q 'WARNING: .* at perf_aux_output_begin+' "$LOGS/boot-throttle-tears-down-path.log" ||
	die "throttle-tears-down-path: no WARN in perf_aux_output_begin(), see $LOGS/boot-throttle-tears-down-path.log"
log "throttle-tears-down-path: the unthrottle begins a nested AUX transaction (WARN)"

# The PMUv3 overflow NMI starts the PMU again when perf core had it
# disabled (patch 43 undone, as in 7.2.13): pmu-nmi-group-enable, alone
# in a boot, must not finish (the model stops in the PMU interrupt, and
# the boot times out) or must fail. A boot where it exits 0 fails this
# stage.
build_negative pmu-irq-starts-disabled-pmu.patch pmu-irq-starts-disabled-pmu
one_test_initramfs pmu-nmi-group-enable group-enable-only
KUNIT=0 INITRAMFS=group-enable-only BOOT_TIMEOUT=150 \
	bash "$CI_DIR/boot.sh" pmu-irq-starts-disabled-pmu &&
	die "pmu-irq-starts-disabled-pmu: its boot passed"
group_log=$LOGS/boot-pmu-irq-starts-disabled-pmu.log
# The console's lines end in \r\n
grep -q '^# boot test: /tests/pmu-nmi-group-enable' "$group_log" ||
	die "pmu-irq-starts-disabled-pmu: pmu-nmi-group-enable did not start, see $group_log"
! grep -qE '^# boot test: /tests/pmu-nmi-group-enable exit 0[[:space:]]*$' "$group_log" ||
	die "pmu-irq-starts-disabled-pmu: pmu-nmi-group-enable passed, see $group_log"
if grep -q '^# boot test: /tests/pmu-nmi-group-enable exit' "$group_log"; then
	log "pmu-irq-starts-disabled-pmu: pmu-nmi-group-enable fails"
else
	log "pmu-irq-starts-disabled-pmu: the boot stops in pmu-nmi-group-enable"
fi

# The series with the hrtimer of a throttled cpu-clock event left queued
# on the CPU that the event leaves (patch 44 undone, as in 7.2.13):
# cpu-clock-throttle-migrate, alone in a boot, gets the two WARNs (the
# AUX event on another CPU than the sample, and hrtimer_forward() of a
# queued timer), which the boot lets pass; its "no splat" result fails
build_negative throttled-hrtimer-left-queued.patch throttled-hrtimer-left-queued
one_test_initramfs cpu-clock-throttle-migrate throttle-migrate-only
KUNIT=0 INITRAMFS=throttle-migrate-only \
	ALLOW_WARNING=' at (perf_prepare_sample|hrtimer_forward)\+' \
	bash "$CI_DIR/boot.sh" throttled-hrtimer-left-queued || true
expect_failures throttled-hrtimer-left-queued "$LOGS/boot-throttled-hrtimer-left-queued.log" <<EOT
CPU hops: no splat in the kernel log
EOT

# The series booted without idle states (IDLE_STATES=0), so CPU PM never
# runs: pmu-nmi-aux-sample-cpu-pm, alone in a boot, fails its check that
# the CPUs went idle, and only that
one_test_initramfs pmu-nmi-aux-sample-cpu-pm cpu-pm-only
IDLE_STATES=0 KUNIT=0 INITRAMFS=cpu-pm-only bash "$CI_DIR/boot.sh" series no-idle-states || true
expect_failures no-idle-states "$LOGS/boot-no-idle-states.log" <<EOT
each CPU entered its PSCI idle state 20 or more times with its CPU-wide cs_etm session on
EOT

# CPU PM restores the path without its sink
# (ci/negative/cpu-pm-no-sink-restore.patch): the trace made after an
# idle period is lost until a sample restarts the TRBE, and
# pmu-nmi-aux-sample-cpu-pm, alone in a boot, fails its check of how many
# samples carry trace, and only that
build_negative cpu-pm-no-sink-restore.patch cpu-pm-no-sink-restore
KUNIT=0 INITRAMFS=cpu-pm-only bash "$CI_DIR/boot.sh" cpu-pm-no-sink-restore || true
expect_failures cpu-pm-no-sink-restore "$LOGS/boot-cpu-pm-no-sink-restore.log" <<EOT
on each CPU, two thirds or more of the AUX samples of cycles samplers carry trace across idle periods
EOT

# Patch 42 undone (ci/negative/aux-sibling-error-keeps-leader.patch, as in
# 7.2.13): a refused AUX sibling keeps its CPU-wide cs_etm leader alive,
# and per-task cs_etm events no longer open. sibling-open-error, alone in
# a boot, fails every case (the later ones already before they start)
build_negative aux-sibling-error-keeps-leader.patch aux-sibling-error-keeps-leader
one_test_initramfs sibling-open-error sibling-only
KUNIT=0 INITRAMFS=sibling-only bash "$CI_DIR/boot.sh" aux-sibling-error-keeps-leader || true
expect_failures aux-sibling-error-keeps-leader "$LOGS/boot-aux-sibling-error-keeps-leader.log" \
	<<< "$SIBLING_OPEN_ERROR_FAILURES"

# The series' perf test, run by perf test (ci/perf-test.sh), on the base
# kernel, which refuses the AUX samples (before perf-sample-test.sh
# without-perf-patches, which leaves no series perf behind)
bash "$CI_DIR/perf-test.sh" base on
expect_failures "perf test, base kernel" "$LOGS/boot-perf-test-base-on.log" <<EOT
perf test with TRBEs: CoreSight AUX area sampling with a per-CPU sink
EOT

# perf without the perf patches, on the series kernel
bash "$CI_DIR/perf-sample-test.sh" without-perf-patches

# The series' perf test with perf before the perf patches (built above),
# which cannot record the samples
PERF=$WORK/perf-arm64-noperf/perf bash "$CI_DIR/perf-test.sh" series on perf-test-noperf
expect_failures "perf test, perf before its patches" "$LOGS/boot-perf-test-noperf.log" <<EOT
perf test with TRBEs: CoreSight AUX area sampling with a per-CPU sink
EOT
