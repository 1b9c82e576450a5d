#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Read the KUnit results of boot log $LOGS/boot-$1.log with the kernel
# tree's own KTAP parser (tools/testing/kunit/kunit.py parse, which checks
# plans and crashes) as well as with ci/ktap-results.py, and fail unless
# both pass and count the same. kunit.py reads one KTAP document, the
# kernel's, so it gets the log up to the start of the boot tests; the
# boot tests' KTAP (a document per program, and init's exit statuses) is
# for ci/ktap-results.py alone.
set -euo pipefail
. "$(dirname "$0")/lib.sh"

name=$1
kunit_log=$LOGS/kunit-$name.log
sed '/# boot tests: start/,$d' "$LOGS/boot-$name.log" > "$kunit_log"

out=$(bounded 300 "kunit.py parse on $kunit_log" \
	python3 "$KSRC/tools/testing/kunit/kunit.py" parse --summary "$kunit_log") ||
	{ echo "$out"; die "kunit.py parse: the KUnit results of $name fail"; }
echo "$out" | tail -n 3
# "Testing complete. Ran 17 tests: passed: 17" (, failed: N, skipped: N)
theirs=$(echo "$out" | sed -n 's/.*Ran [0-9]* tests: //p' | tail -n 1)
# kunit.py leaves out the counts that are 0
passed=$(grep -o 'passed: [0-9]*' <<< "$theirs" | cut -d' ' -f2 || true)
skipped=$(grep -o 'skipped: [0-9]*' <<< "$theirs" | cut -d' ' -f2 || true)
ours=$(bounded 300 "ktap-results.py on $kunit_log" python3 "$CI_DIR/ktap-results.py" "$kunit_log" | tail -n 1)
[ "$ours" = "${passed:-0} passed, 0 failed, ${skipped:-0} skipped" ] ||
	die "ci/ktap-results.py reads \"$ours\" where kunit.py reads \"$theirs\""
log "$name: kunit.py and ci/ktap-results.py agree: $ours"
