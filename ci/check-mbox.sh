#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Take $WORK/mbox/series.mbox the way a maintainer does: `b4 am -m` must
# accept it with every patch of the series and no warning about the
# thread, and the am-ready mbox that b4 writes must apply with git am to
# the pinned base and give exactly the tree of the series.
set -euo pipefail
. "$(dirname "$0")/lib.sh"

dir=$WORK/mbox
nr=$(git -C "$KSRC" rev-list --count base..series)
rm -rf "$dir/b4" "$dir/tree"
mkdir -p "$dir/b4"

# b4 looks for its configuration in a git repo; give it an empty one, offline
(cd "$dir/b4" && git init -q && b4 --offline-mode am -m "$dir/series.mbox" -o . \
	> "$dir/b4.log" 2>&1) || { cat "$dir/b4.log"; die "b4 am failed"; }
cat "$dir/b4.log"
! grep -qiE 'thread incomplete|missing|ERROR' "$dir/b4.log" ||
	die "b4 am complains about the mbox"
grep -q "Total patches: $nr\$" "$dir/b4.log" || die "b4 am did not take all $nr patches"
mbx=$(ls "$dir"/b4/*.mbx)

git -C "$KSRC" worktree prune
git -C "$KSRC" worktree add -q --detach "$dir/tree" base
if ! git -C "$dir/tree" am -q "$mbx" > "$dir/git-am.log" 2>&1; then
	cat "$dir/git-am.log"
	git -C "$KSRC" worktree remove --force "$dir/tree"
	die "the mbox from b4 does not apply to the base with git am"
fi
got=$(git -C "$dir/tree" rev-parse HEAD^{tree})
git -C "$KSRC" worktree remove --force "$dir/tree"
[ "$got" = "$(git -C "$KSRC" rev-parse series^{tree})" ] ||
	die "the mbox from b4 applies, but not to the tree of the series"
log "b4 am takes all $nr patches; git am of its mbox gives the tree of the series"
