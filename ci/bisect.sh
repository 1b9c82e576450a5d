#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Build the kernel after each patch of the series, like
# `git rebase -x make`: every patch must build on its own. A patch that
# changes perf (tools/perf) but not the kernel builds perf instead, for
# the host and for arm64; one that changes the kselftests builds them
# (ci/build-kselftests.sh), and the kernel only if it changes the kernel
# too; one that changes only documentation builds nothing. The last
# kernel build is the whole series, saved as Image-series. The first
# kernel build and any after a patch that changes a Kconfig file
# configure the tree; the others keep its .config.
set -euo pipefail
. "$(dirname "$0")/lib.sh"

# Whether $1 changes files outside the paths $2...
changes_outside() {
	local commit=$1 pathspec=()

	shift
	for p in "$@"; do
		pathspec+=(":!$p")
	done
	[ -n "$(git -C "$KSRC" diff --name-only "$commit^" "$commit" -- . "${pathspec[@]}")" ]
}

# Whether $1 changes a Kconfig file
changes_kconfig() {
	git -C "$KSRC" diff --name-only "$1^" "$1" | grep -q '\(^\|/\)Kconfig'
}

n=0
keep_config=0
total=$(git -C "$KSRC" rev-list --count base..series)
image=
for commit in $(git -C "$KSRC" rev-list --reverse base..series); do
	n=$((n + 1))
	start=$SECONDS
	subject=$(git -C "$KSRC" log -1 --format=%s "$commit")
	what=
	if changes_outside "$commit" tools/perf tools/testing/selftests Documentation; then
		changes_kconfig "$commit" && keep_config=0
		KEEP_CONFIG=$keep_config bash "$CI_DIR/build-kernel.sh" "$commit" "patch-$n" \
			> "$LOGS/bisect-$n.log" 2>&1 ||
			{ cat "$LOGS/bisect-$n.log"; die "patch $n/$total does not build: $subject"; }
		[ -z "$image" ] || rm -f "$image"
		image=$WORK/images/Image-patch-$n
		keep_config=1
		what=builds
	elif changes_outside "$commit" tools/testing/selftests Documentation; then
		git -C "$KSRC" checkout -q "$commit"
		{ bash "$CI_DIR/build-perf.sh" host && bash "$CI_DIR/build-perf.sh" arm64; } \
			> "$LOGS/bisect-$n.log" 2>&1 ||
			{ cat "$LOGS/bisect-$n.log"; die "patch $n/$total does not build perf: $subject"; }
		what="builds perf"
	fi
	if [ -n "$(git -C "$KSRC" diff --name-only "$commit^" "$commit" -- tools/testing/selftests)" ]; then
		bash "$CI_DIR/build-kselftests.sh" "$commit" > "$LOGS/bisect-$n-kselftests.log" 2>&1 ||
			{ cat "$LOGS/bisect-$n-kselftests.log"; die "patch $n/$total does not build its kselftests: $subject"; }
		rm -rf "$WORK/kselftest-$commit"
		what+="${what:+, }builds its kselftests"
	fi
	[ -n "$what" ] || what="changes documentation only"
	log "patch $n/$total $what ($((SECONDS - start))s): $subject"
done
[ -n "$image" ] || die "no patch of the series changes the kernel"
# The patches after the last kernel build do not change the kernel
mv "$image" "$WORK/images/Image-series"
git -C "$KSRC" checkout -q series
