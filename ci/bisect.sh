#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Build the kernel after each patch of the series, like
# `git rebase -x make`: every patch must build on its own. The last build
# is the whole series, saved as Image-series.
set -euo pipefail
. "$(dirname "$0")/lib.sh"

n=0
total=$(git -C "$KSRC" rev-list --count base..series)
for commit in $(git -C "$KSRC" rev-list --reverse base..series); do
	n=$((n + 1))
	start=$SECONDS
	bash "$CI_DIR/build-kernel.sh" "$commit" "patch-$n" > "$LOGS/bisect-$n.log" 2>&1 ||
		{ cat "$LOGS/bisect-$n.log"; die "patch $n/$total does not build: $(git -C "$KSRC" log -1 --format=%s "$commit")"; }
	log "patch $n/$total builds ($((SECONDS - start))s): $(git -C "$KSRC" log -1 --format=%s "$commit")"
	[ $n -eq "$total" ] || rm -f "$WORK/images/Image-patch-$n"
done
mv "$WORK/images/Image-patch-$total" "$WORK/images/Image-series"
