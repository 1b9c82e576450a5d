#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Boot $WORK/images/Image-$1 on TRBEs with what real ones have and the
# default model has not: the MIDR of a Neoverse-N2 r0p0, whose TRBE errata
# 2139208 (overwrite in fill mode) and 2253138 (write out of range) the
# kernel works around, both errata in the QEMU model, and a write pointer
# alignment (TRBIDR_EL1.Align) of 256 bytes. Runs the programs of
# tools/tests/trbe-errata: aux-sample-dump and aux-sample-latest of the
# series boot (symlinks), and the snapshot mode sessions of trbe-errata,
# and the kselftest aux_sample_trbe of the series (patch 43, from
# $WORK/kselftest-series, ci/build-kselftests.sh); then decodes the AUX
# samples with ci/check-aux-samples.sh ($LOGS/aux-{samples,latest}-trbe-errata-$1.log).
# The console goes to $LOGS/boot-trbe-errata-$1.log. Fails like
# ci/boot.sh, on any splat (without patch 9, a restart of a snapshot
# buffer WARNs in trbe_apply_work_around_before_enable()) or a hang.
#
# A test on a TRBE without the work-arounds passes without exercising
# them: the kernel must also say that it enabled both, which is checked
# in the boot log and printed as KTAP to $LOGS/trbe-errata-check-$1.log
# (trbe-errata checks the alignment in sysfs).
set -euo pipefail
. "$(dirname "$0")/lib.sh"

name=$1
boot_log=$LOGS/boot-trbe-errata-$name.log
check_log=$LOGS/trbe-errata-check-$name.log
# Neoverse-N2 r0p0: in trbe_overwrite_fill_mode_cpus and
# trbe_write_out_of_range_cpus of arch/arm64/kernel/cpu_errata.c
MIDR=0x410fd490
# Align 8 (256 bytes): at most TRBE_WORKAROUND_OVERWRITE_FILL_MODE_SKIP_BYTES,
# the offset from a page the work-around programs TRBPTR_EL1 at
CPU_PROPS="midr=$MIDR,x-trbe-align=8,x-trbe-overwrite-fill-mode=on,x-trbe-write-out-of-range=on"

kselftest=$WORK/kselftest-series/coresight/aux_sample_trbe
[ -x "$kselftest" ] || die "no $kselftest: run ci/build-kselftests.sh first"
bash "$CI_DIR/make-initramfs.sh" "$TOP/tools/tests/trbe-errata" initramfs-trbe-errata
files=$WORK/initramfs-trbe-errata-files
rm -rf "$files"
mkdir -p "$files"/{tests,tmp,dev}
cp "$kselftest" "$files/tests/"
# The kernel log, which aux_sample_trbe reads for splats
mknod -m 600 "$files/dev/kmsg" c 1 11
initramfs_append initramfs-trbe-errata "$files"
KUNIT=${KUNIT:-0} CPU_PROPS=$CPU_PROPS INITRAMFS=initramfs-trbe-errata \
	bash "$CI_DIR/boot.sh" "$name" "trbe-errata-$name"

# What the kernel enabled: cpufeature prints each erratum capability it
# detects ("CPU features: detected: <desc>", desc of cpu_errata.c)
errata=("2119858 or 2139208:the overwrite in fill mode work-around"
	"2253138 or 2224489:the write out of range work-around")
{
	echo "KTAP version 1"
	echo "# trbe-errata: the work-arounds the kernel enabled"
	echo "1..${#errata[@]}"
	i=0
	for e in "${errata[@]}"; do
		i=$((i + 1))
		if grep -q "CPU features: detected: ARM erratum ${e%%:*}" "$boot_log"; then
			echo "ok $i trbe_errata_check.erratum_${e%% *}"
		else
			echo "# ${e#*:} (ARM erratum ${e%%:*}): not enabled"
			echo "# no 'detected: ARM erratum ${e%%:*}' line in the boot log"
			echo "not ok $i trbe_errata_check.erratum_${e%% *}"
		fi
	done
} > "$check_log"
grep -E '^(not )?ok |detected: ARM erratum|^# trbe[0-9]' "$boot_log" "$check_log" | sed "s|^$LOGS/||"

# The samples of aux-sample-dump and aux-sample-latest, decoded: whole
# trace, with the stray writes of the errata kept out of it
rc=0
bash "$CI_DIR/check-aux-samples.sh" "trbe-errata-$name" || rc=$?
bounded 300 "ktap-results.py on $boot_log" python3 "$CI_DIR/ktap-results.py" "$boot_log" "$check_log" \
	"$LOGS/aux-samples-trbe-errata-$name.log" "$LOGS/aux-latest-trbe-errata-$name.log" ||
	die "trbe-errata on $name failed, see $boot_log and $check_log"
[ $rc -eq 0 ] || die "the AUX samples of the trbe-errata boot of $name do not decode"
log "$name: the TRBE errata work-arounds ran, no splat, the samples decode"
