#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Run the series' kselftests with run_kselftest.sh in a QEMU boot of
# kernel $1 on the model $2 (on: TRBEs; etr: no per-CPU sink), as a lab
# runs them (tools/kselftest/kselftest.c): the tests of
# $WORK/kselftest-${KSELFTEST:-series} (ci/build-kselftests.sh), busybox
# as the runner's shell and tools, but coreutils' timeout, which the
# runner runs with --foreground. The log is $LOGS/boot-kselftest-$1-$2.log.
#
# On the series, the result reader must pass it: with TRBEs only the
# variant that takes a CPU offline may skip (the kernel has no CPU
# hotplug), none in the debug kernel, and sink_share, for want of a
# shared sink; on the ETR, without a per-CPU sink, aux_sample_open and
# aux_sample_trbe skip every test, saying so, and sink_share runs. Other
# kernels are for ci/prove-tests-fail.sh, which reads the log itself.
set -euo pipefail
. "$(dirname "$0")/lib.sh"

kernel=${1:?usage: kselftest.sh KERNEL on|etr}
model=${2:?usage: kselftest.sh KERNEL on|etr}
tests=$WORK/kselftest-${KSELFTEST:-series}
arm64_root=$WORK/arm64-root
busybox=$arm64_root/bin/busybox
name=kselftest-$kernel-$model
[ -x "$tests/run_kselftest.sh" ] || die "no $tests: run ci/build-kselftests.sh first"
[ -x "$busybox" ] || die "no $busybox: run ci/fetch-arm64-debs.sh first"

bash "$CI_DIR/make-initramfs.sh" "$TOP/tools/kselftest" "$name"
files=$WORK/$name-files
rm -rf "$files"
mkdir -p "$files"/{bin,sbin,usr/bin,usr/sbin,tmp,dev,lib/aarch64-linux-gnu}
# The kernel log, which aux_pause_orphan reads: no devtmpfs here
mknod -m 600 "$files/dev/kmsg" c 1 11
# The runner writes to its log file, /dev/stdout by default
ln -s /proc/self/fd "$files/dev/fd"
ln -s /proc/self/fd/1 "$files/dev/stdout"
ln -s /proc/self/fd/2 "$files/dev/stderr"
cp "$busybox" "$files/bin/busybox"
cp "$arm64_root/usr/bin/timeout" "$files/usr/bin/timeout"
cp -a "$arm64_root/lib/ld-linux-aarch64.so.1" "$files/lib/"
cp "$arm64_root"/lib/aarch64-linux-gnu/{ld-linux-aarch64.so.1,libc.so.6} "$files/lib/aarch64-linux-gnu/"
cp -a "$tests" "$files/kselftest"
initramfs_append "$name" "$files"

KUNIT=0 CORESIGHT=$model INITRAMFS=$name bash "$CI_DIR/boot.sh" "$kernel" "$name"
log_file=$LOGS/boot-$name.log

case "$kernel" in
series) skip=$KSELFTEST_NO_HOTPLUG ;;
series-debug) skip= ;;          # it has CPU hotplug: nothing may skip
*) exit 0 ;;
esac
if [ "$model" = on ]; then
	bounded 300 "ktap-results.py on $log_file" python3 "$CI_DIR/ktap-results.py" ${skip:+--allow-skip "$skip"} \
		--allow-skip "$KSELFTEST_NO_SHARED_SINK" "$log_file" ||
		die "the kselftests fail on $kernel with TRBEs, see $log_file"
else
	grep -qF "# SKIP $KSELFTEST_NO_SINK" "$log_file" ||
		die "the kselftests do not skip for want of a per-CPU sink on the ETR, see $log_file"
	bounded 300 "ktap-results.py on $log_file" \
		python3 "$CI_DIR/ktap-results.py" --allow-skip "$KSELFTEST_NO_SINK" "$log_file"
fi
