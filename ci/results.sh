#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Count the tests of one stage, or add up stages, for the summary of
# ci/test.sh. The rows of ci/test.sh are those of ci/results.manifest:
# the logs each reads, the tests that may skip there, whether it counts
# in the total.
#
#   results.sh --rows [total]
#       prints the names of the rows of the manifest (those in the total)
#   results.sh --log NAME
#       prints the first log of row NAME, the one to look at when it fails
#   results.sh --row NAME
#       counts row NAME of the manifest, as below
#   results.sh NAME [ktap-results.py options] LOG...
#       reads the stage's logs with ci/ktap-results.py (plans, exit
#       statuses, allowed skips), prints its failures and one row, and
#       keeps the counts in $LOGS/counts/NAME and the names of the tests
#       it counted in $LOGS/counts/NAME.tests; exits 1 on a failure, 2
#       (one failure counted) if the reader crashed or hung
#   results.sh --total [NAME...]
#       prints "N passed, N failed, N skipped" over the kept counts of the
#       stages NAME... (default: the rows of the manifest in the total);
#       fails on a failure, if a stage has no counts, or on a test that
#       two of the stages count
set -euo pipefail
. "$(dirname "$0")/lib.sh"

MANIFEST=$CI_DIR/results.manifest

# A "$NAME" of the manifest is the variable NAME of ci/lib.sh
expand() {
	if [[ $1 == \$* ]]; then
		local var=${1#\$}
		[ -n "${!var:-}" ] || die "$MANIFEST: no $1 in ci/lib.sh"
		printf '%s' "${!var}"
	else
		printf '%s' "$1"
	fi
}

# Fields are separated by tabs: NAME total|apart, one row a line
manifest_rows() {
	awk -F'\t+' '$1 == "row" { print $2, $3 }' "$MANIFEST"
}

# The ktap-results.py arguments of row $1, in ARGS; its first log in ROW_LOG
row_args() {
	local want=$1 key a b in=0 found=0

	ARGS=() ROW_LOG=
	while IFS=$'\t' read -r key a b; do
		case $key in
		''|'#'*) continue ;;
		row) in=0; [ "$a" != "$want" ] || in=1 found=1; continue ;;
		esac
		[ $in -eq 1 ] || continue
		case $key in
		log)
			case $b in
			'') ;;
			kunit) ARGS+=(--require-kunit) ;;
			*) die "$MANIFEST: row $want: log $a: not kunit: $b" ;;
			esac
			ARGS+=("$LOGS/$a")
			ROW_LOG=${ROW_LOG:-$LOGS/$a} ;;
		only|exclude) ARGS+=("--$key" "$(expand "$a")") ;;
		skip)
			[ -n "$b" ] || die "$MANIFEST: row $want: skip $a: no reason"
			ARGS+=(--allow-skip-test "$a" "$(expand "$b")") ;;
		skip-other) ARGS+=(--allow-skip-uncounted "$(expand "$a")") ;;
		*) die "$MANIFEST: row $want: not a line of the manifest: $key" ;;
		esac
	done < "$MANIFEST"
	[ $found -eq 1 ] || die "$MANIFEST: no row $want"
	[ -n "$ROW_LOG" ] || die "$MANIFEST: row $want reads no log"
}

case ${1:-} in
--rows)
	manifest_rows | awk -v want="${2:-}" '!want || $2 == want { print $1 }'
	exit 0 ;;
--log)
	row_args "$2"
	echo "$ROW_LOG"
	exit 0 ;;
--row)
	row_args "$2"
	set -- "$2" "${ARGS[@]}" ;;
esac

mkdir -p "$LOGS/counts"
if [ "${1:-}" != --total ]; then
	name=$1
	shift
	counts=$LOGS/counts/$name
	rm -f "$counts" "$counts.tests"
	rc=0
	out=$(bounded 300 "ktap-results.py on the logs of $name" \
		python3 "$CI_DIR/ktap-results.py" --summary "$counts" --tests "$counts.tests" "$@") || rc=$?
	# Each failure, with the diagnostics the test printed before it
	grep -E '^(FAILED: |    )' <<< "$out" | sed -E "s/^FAILED: /  $name: FAILED: /; s/^    /      /" || true
	# The reader writes its counts last: none if it crashed or hung
	if [ ! -f "$counts" ]; then
		echo "  $name: ktap-results.py exited $rc without counts"
		echo "0 passed, 1 failed, 0 skipped" > "$counts"
		: > "$counts.tests"
		rc=2
	fi
	printf '  %-16s %s\n' "$name" "$(cat "$counts")"
	exit $rc
fi

shift
if [ $# -eq 0 ]; then
	mapfile -t rows < <(manifest_rows | awk '$2 == "total" { print $1 }')
	set -- "${rows[@]}"
fi
passed=0 failed=0 skipped=0
for name in "$@"; do
	if [ ! -f "$LOGS/counts/$name" ] || [ ! -f "$LOGS/counts/$name.tests" ]; then
		echo "  $name: no results"
		failed=$((failed + 1))
		continue
	fi
	read -r p _ f _ s _ < "$LOGS/counts/$name"
	passed=$((passed + p)) failed=$((failed + f)) skipped=$((skipped + s))
done
# Each test counts once: a name that two of the rows counted fails
dups=$(for name in "$@"; do
	[ ! -f "$LOGS/counts/$name.tests" ] ||
		awk -v row="$name" '{ print row "\t" $0 }' "$LOGS/counts/$name.tests"
done | awk -F'\t' '!seen[$0]++ { n[$2]++; rows[$2] = rows[$2] " " $1 }
	END { for (t in n) if (n[t] > 1) print "  counted in" rows[t] ": " t }' | sort)
if [ -n "$dups" ]; then
	echo "$dups"
	failed=$((failed + $(wc -l <<< "$dups")))
fi
echo "$passed passed, $failed failed, $skipped skipped"
[ "$failed" -eq 0 ]
