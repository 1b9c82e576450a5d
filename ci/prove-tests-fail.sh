#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Show that the tests can fail: run them where the series, or a part of
# it, is not, and check that exactly the expected tests fail. Each case is
# ci/negative/NAME.expect, with ci/negative/NAME.patch beside it when the
# case is a mutation of the series (its header says what it breaks); a
# case without a patch runs the base kernel or the series under another
# setup. The base-* cases run first, perf-* (which rebuild perf) last;
# CASES="NAME..." runs only those.
#
# A .expect file is read line by line (lines that start with '#' are
# comments):
#   kernel: base|series    no patch: the kernel the case runs (%k below)
#   build: debug           the mutation is built on the debug kernel (the
#                          series with ci/debug.config), not the series
#   initramfs: NAME TEST... $WORK/NAME.cpio.gz with only these boot tests
#   run: [VAR=VALUE...] SCRIPT ARG...
#                          bash ci/SCRIPT.sh ARG..., which must pass
#   run-any: ...           the same, whatever its exit status
#   run-fails: ...         the same, and it must fail
#   logs: LOG...           the logs (in $LOGS) that the fail: lines are
#                          read from; kunit-K.log is the KUnit part of
#                          boot-K.log
#   fail: TEST             a test that must fail there: the fail: lines of
#                          a logs: line are exactly the failures
#   may-fail: REGEX        a failure that may be there too (stated why)
#   allow-skip: REASON     a skip with this reason (or $NAME, one of
#                          ci/lib.sh) is not a failure there
#   skipped: N             and exactly N tests skip there
#   no-splat: LOG          no oops, BUG, WARN or other splat in LOG
#   log-has: LOG REGEX     an extended regex that LOG must match
#   log-lacks: LOG REGEX   ... and one it must not
# In the values, %k is the kernel (the mutation's kernel is named after
# it), %o its output directory.
set -euo pipefail
. "$(dirname "$0")/lib.sh"

# Build the series with ci/negative/$1.patch applied, as Image-$1,
# incrementally in one output directory of its own, a copy of the
# series' build (of the debug kernel's, with $2 = debug) made once: only
# what the mutation touches is rebuilt.
NEG_KOUT=$WORK/kernel-negative
build_negative() {
	local start=$SECONDS from=$KOUT

	if [ "${2:-}" = debug ]; then
		from=$WORK/kernel-debug
		NEG_KOUT=$WORK/kernel-negative-debug
	fi
	[ -d "$NEG_KOUT" ] || cp -a "$from" "$NEG_KOUT"
	KOUT=$NEG_KOUT with_mutation "$1" kmake Image > "$LOGS/build-$1.log" 2>&1 ||
		die "$1 does not build, see $LOGS/build-$1.log"
	cp "$NEG_KOUT/arch/arm64/boot/Image" "$WORK/images/Image-$1"
	log "built Image-$1 in $((SECONDS - start))s"
}

# An initramfs $WORK/$1.cpio.gz with only the boot tests tools/tests/$2...
one_test_initramfs() {
	local dir=$WORK/$1-src test

	rm -rf "$dir"
	mkdir -p "$dir"
	for test in "${@:2}"; do
		ln -sf "$TOP/tools/tests/$test.c" "$dir/"
	done
	bash "$CI_DIR/make-initramfs.sh" "$dir" "$1" > /dev/null
}

# A log of the case: $LOGS/$1, or the KUnit part of a boot log
case_log() {
	local log=$LOGS/$1 boot

	if [[ $1 == kunit-* ]]; then
		boot=$LOGS/boot-${1#kunit-}
		[ -f "$boot" ] || die "$case: no $boot"
		sed '/# boot tests: start/,$d' "$boot" > "$log"
	fi
	[ -f "$log" ] || die "$case: no $log"
	echo "$log"
}

# The fail: lines of the last logs: line against the failures in its logs
check_failures() {
	local got unexpected missing

	[ ${#logs[@]} -gt 0 ] || return 0
	rm -f "$LOGS/negative-$case.counts"
	got=$(failed_tests "${skips[@]}" --summary "$LOGS/negative-$case.counts" "${logs[@]}")
	if [ -n "$skipped" ]; then
		# "N passed, N failed, N skipped", written last: none, a crash
		read -r _ _ _ _ n _ < "$LOGS/negative-$case.counts" ||
			die "$case: the reader of ${logs[*]##*/} crashed"
		[ "$n" = "$skipped" ] ||
			die "$case: $n tests skip in ${logs[*]##*/}, not $skipped"
	fi
	missing=$(comm -23 <(printf '%s' "$want" | sort -u) <(echo "$got"))
	unexpected=$(comm -13 <(printf '%s' "$want" | sort -u) <(echo "$got") |
		     { [ -z "$may_fail" ] && cat || grep -vE "$may_fail"; } || true)
	if [ -n "$missing$unexpected" ]; then
		[ -z "$missing" ] || sed 's/^/  does not fail: /' <<< "$missing"
		[ -z "$unexpected" ] || sed 's/^/  fails too: /' <<< "$unexpected"
		die "$case: the failures in ${logs[*]##*/} are not the expected ones"
	fi
	log "$case: $(grep -c . <<< "$got") tests fail in ${logs[*]##*/}, as expected"
	logs=() skips=() want='' may_fail='' skipped=''
}

# Run one case, ci/negative/$1.expect
run_case() {
	local case=$1 expect kernel line key value rc words vars log
	local -a logs=() skips=()
	local want='' may_fail='' skipped='' NEG_KOUT=$NEG_KOUT

	expect=$CI_DIR/negative/$case.expect
	value=$(sed -n 's/^kernel:[[:space:]]*//p' "$expect")
	kernel=${value:-$case}
	# No log of an earlier run stands in for one of this run
	rm -f "$LOGS/negative-$case.out"
	for value in $(sed -En 's/^(logs|no-splat):(.*)/\2/p; s/^log-(has|lacks):[[:space:]]*([^ ]*).*/\2/p' \
			"$expect"); do
		rm -f "$LOGS/${value//%k/$kernel}"
	done
	# A mutation of the kernel, not only of tools/ (perf-mutation.sh
	# builds perf)
	if [ -f "$CI_DIR/negative/$case.patch" ] &&
	   grep '^+++ b/' "$CI_DIR/negative/$case.patch" | grep -qv '^+++ b/tools/'; then
		build_negative "$case" "$(sed -n 's/^build:[[:space:]]*//p' "$expect")"
	fi
	while IFS= read -r line || [ -n "$line" ]; do
		[[ $line =~ ^[[:space:]]*# ]] && continue
		[[ $line =~ ^([a-z-]+):[[:space:]]*(.*[^[:space:]])[[:space:]]*$ ]] || continue
		key=${BASH_REMATCH[1]}
		value=${BASH_REMATCH[2]//%k/$kernel}
		value=${value//%o/$NEG_KOUT}
		case $key in
		kernel | build) ;;
		initramfs) # shellcheck disable=SC2086 # a name and boot tests
			one_test_initramfs $value ;;
		run | run-any | run-fails)
			check_failures
			eval "words=($value)"
			vars=()
			while [[ ${words[0]} == *=* ]]; do
				vars+=("${words[0]}")
				words=("${words[@]:1}")
			done
			log "$case: ${vars[*]:+${vars[*]} }${words[*]}"
			rc=0
			env "${vars[@]}" bash "$CI_DIR/${words[0]}.sh" "${words[@]:1}" > \
				"$LOGS/negative-$case.out" 2>&1 || rc=$?
			tail -3 "$LOGS/negative-$case.out"
			case $key in
			run) [ $rc -eq 0 ] || die "$case: ${words[0]} failed, see $LOGS/negative-$case.out" ;;
			run-fails) [ $rc -ne 0 ] || die "$case: ${words[0]} passed" ;;
			esac
			;;
		logs)
			check_failures
			for value in $value; do
				log=$(case_log "$value")
				logs+=("$log")
			done
			;;
		fail) want+="$value"$'\n' ;;
		may-fail) may_fail+="${may_fail:+|}$value" ;;
		allow-skip) # a reason of ci/lib.sh by its name, or the reason
			[[ $value =~ ^\$([A-Z_]+)$ ]] && value=${!BASH_REMATCH[1]}
			skips+=(--allow-skip "$value")
			;;
		skipped) skipped=$value ;;
		no-splat)
			log=$(case_log "$value")
			bounded 300 "check-boot-log.py on $value" python3 "$CI_DIR/check-boot-log.py" "$log" ||
				die "$case: a splat in $value"
			;;
		log-has | log-lacks)
			log=$(case_log "${value%% *}")
			rc=0
			grep -qE -- "${value#* }" "$log" || rc=$?
			[ $rc -le 1 ] || die "$case: grep failed on ${value%% *}"
			if [ "$key" = log-has ] && [ $rc -ne 0 ]; then
				die "$case: ${value%% *} does not match ${value#* }"
			elif [ "$key" = log-lacks ] && [ $rc -eq 0 ]; then
				die "$case: ${value%% *} matches ${value#* }"
			fi
			;;
		*) die "$case.expect: unknown line $key:" ;;
		esac
	done < "$expect"
	check_failures
}

for f in "$CI_DIR"/negative/*.patch; do
	[ -f "${f%.patch}.expect" ] || die "$f has no .expect"
done
# CASES="NAME..." runs only these cases, in this order
if [ -n "${CASES:-}" ]; then
	read -ra cases <<< "$CASES"
else
	cd "$CI_DIR/negative"
	cases=(base-*.expect)
	for f in *.expect; do
		[[ $f == base-* || $f == perf-* ]] || cases+=("$f")
	done
	cases+=(perf-*.expect)
	cases=("${cases[@]%.expect}")
	cd - > /dev/null
fi
for name in "${cases[@]}"; do
	[ -f "$CI_DIR/negative/$name.expect" ] || die "no ci/negative/$name.expect"
	run_case "$name"
done
log "${#cases[@]} cases, each failing as expected"
