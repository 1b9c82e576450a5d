#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Count the tests of one stage, or add up stages, for the summary of
# ci/test.sh.
#
#   results.sh NAME [ktap-results.py options] LOG...
#       reads the stage's logs with ci/ktap-results.py (plans, exit
#       statuses, allowed skips), prints its failures and one row, and
#       keeps the counts in $LOGS/counts/NAME; exits 1 on a failure, 2
#       (one failure counted) if the reader crashed or hung
#   results.sh --total NAME...
#       prints "N passed, N failed, N skipped" over the kept counts of the
#       stages NAME...; fails on a failure, or if a stage has no counts
set -euo pipefail
. "$(dirname "$0")/lib.sh"

mkdir -p "$LOGS/counts"
if [ "${1:-}" != --total ]; then
	name=$1
	shift
	counts=$LOGS/counts/$name
	rm -f "$counts"
	rc=0
	out=$(bounded 300 "ktap-results.py on the logs of $name" \
		python3 "$CI_DIR/ktap-results.py" --summary "$counts" "$@") || rc=$?
	grep '^FAILED: ' <<< "$out" | sed "s/^/  $name: /" || true
	# The reader writes its counts last: none if it crashed or hung
	if [ ! -f "$counts" ]; then
		echo "  $name: ktap-results.py exited $rc without counts"
		echo "0 passed, 1 failed, 0 skipped" > "$counts"
		rc=2
	fi
	printf '  %-16s %s\n' "$name" "$(cat "$counts")"
	exit $rc
fi

shift
passed=0 failed=0 skipped=0
for name in "$@"; do
	if [ ! -f "$LOGS/counts/$name" ]; then
		echo "  $name: no results"
		failed=$((failed + 1))
		continue
	fi
	read -r p _ f _ s _ < "$LOGS/counts/$name"
	passed=$((passed + p)) failed=$((failed + f)) skipped=$((skipped + s))
done
echo "$passed passed, $failed failed, $skipped skipped"
[ "$failed" -eq 0 ]
