#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Test the result reader, ci/ktap-results.py, on the logs of
# ci/ktap-tests: a short plan, a crash, a hang, no tests, a skip where none
# is allowed, a test read twice ... must each fail it, with the failures
# and counts in the .expect file of the case. UPDATE=1 rewrites the .expect
# files from what the reader prints (then review the diff).
set -euo pipefail
. "$(dirname "$0")/lib.sh"

dir=$CI_DIR/ktap-tests
bad=0
n=0
while read -r log args; do
	case "$log" in ''|'#'*) continue ;; esac
	eval "argv=($args)"
	n=$((n + 1))
	expect=$dir/case-$n.expect
	got=$(cd "$dir" && { bounded 300 "ktap-results.py on $log" \
		python3 "$CI_DIR/ktap-results.py" "${argv[@]}" "$log"; echo "exit $?"; })
	if [ "${UPDATE:-0}" = 1 ]; then
		printf '# %s %s\n%s\n' "$log" "$args" "$got" > "$expect"
	elif [ "$got" != "$(tail -n +2 "$expect")" ]; then
		echo "case $n ($log $args): the reader printed"
		diff <(tail -n +2 "$expect") <(echo "$got") | sed 's/^/  /'
		bad=1
	fi
done < "$dir/cases"
[ $bad -eq 0 ] || die "the result reader does not read the logs of ci/ktap-tests as it must"
log "the result reader reads all $n logs of ci/ktap-tests as it must"
