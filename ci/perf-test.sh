#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# The series' perf test of AUX area sampling (the patch that adds
# tools/perf/tests/shell/coresight/aux_sample.sh), run by perf test in
# the QEMU boot: tools/perf-test runs "perf test -vv" with the static
# arm64 perf of ci/build-perf.sh (PERF, by default $WORK/perf-arm64/perf),
# the shell tests of the kernel tree where an installed perf has them,
# and busybox as the shell and tools.
#
#   perf-test.sh KERNEL on [NAME]   the model's TRBEs: with the series
#                                   and its perf the test must pass
#   perf-test.sh KERNEL etr [NAME]  the model's ETR only: the test must
#                                   skip, for want of a per-CPU sink
#
# The console goes to $LOGS/boot-NAME.log (default NAME:
# perf-test-KERNEL-MODEL). Only the series with its own perf is judged
# here; ci/prove-tests-fail.sh boots the base kernel, and perf before the
# perf patches, and judges them.
set -euo pipefail
. "$(dirname "$0")/lib.sh"

kernel=${1:?usage: perf-test.sh KERNEL on|etr}
model=${2:?usage: perf-test.sh KERNEL on|etr}
perf=${PERF:-$WORK/perf-arm64/perf}
busybox=$WORK/arm64-root/bin/busybox
name=${3:-perf-test-$kernel-$model}
[ -x "$perf" ] || die "no $perf: run ci/build-perf.sh arm64 first"
[ -x "$busybox" ] || die "no $busybox: run ci/fetch-arm64-debs.sh first"

# The runner, and a second cpio archive with perf as a user installs it
bash "$CI_DIR/make-initramfs.sh" "$TOP/tools/perf-test" "$name"
files=$WORK/$name-files
rm -rf "$files"
mkdir -p "$files"/{bin,sbin,usr/bin,usr/sbin,tmp,usr/libexec/perf-core/tests}
cp "$busybox" "$files/bin/busybox"
# perf keeps its symbols: perf script resolves those of its own workload
"${CROSS_COMPILE}strip" --strip-debug -o "$files/usr/bin/perf" "$perf"
git -C "$KSRC" checkout -q series
cp -r "$KSRC/tools/perf/tests/shell" "$files/usr/libexec/perf-core/tests/"
[ -x "$files/usr/libexec/perf-core/tests/shell/coresight/aux_sample.sh" ] ||
	die "the series has no tools/perf/tests/shell/coresight/aux_sample.sh"
initramfs_append "$name" "$files"

KUNIT=0 CORESIGHT=$model INITRAMFS=$name bash "$CI_DIR/boot.sh" "$kernel" "$name"
log_file=$LOGS/boot-$name.log
# The runner's part of the console (which ends lines with CR LF)
tr -d '\r' < "$log_file" | sed -n '/^# boot test: \/tests\/perf-test$/,/^# boot test: .* exit/p'


[ "$kernel" = series ] && [ -z "${PERF:-}" ] || exit 0
if [ "$model" = on ]; then
	bounded 300 "ktap-results.py on $log_file" python3 "$CI_DIR/ktap-results.py" "$log_file" ||
		die "the perf test fails on the series with TRBEs, see $log_file"
else
	grep -qF "# SKIP $PERF_TEST_NO_SINK" "$log_file" ||
		die "the perf test does not skip for want of a per-CPU sink on the ETR, see $log_file"
	bounded 300 "ktap-results.py on $log_file" \
		python3 "$CI_DIR/ktap-results.py" --allow-skip "$PERF_TEST_NO_SINK" "$log_file"
fi
