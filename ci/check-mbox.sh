#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Take each posting's mbox, $WORK/mbox/NAME.mbox, the way a maintainer
# does: `b4 am -m` must accept it with every patch of that posting and no
# warning about the thread, and the am-ready mboxes that b4 writes must
# apply with git am, in the order of the postings, to the pinned base and
# give exactly the tree of the series.
set -euo pipefail
. "$(dirname "$0")/lib.sh"

dir=$WORK/mbox
rm -rf "$dir/b4" "$dir/tree"
mbxs=()
while read -r name nr; do
	[ "$name" != - ] || die "series: $nr patch(es) before the first '# posting: NAME' line"
	[ -f "$dir/$name.mbox" ] || die "no $dir/$name.mbox: run ci/make-mbox.sh"
	out=$dir/b4/$name
	mkdir -p "$out"
	# b4 looks for its configuration in a git repo; give it an empty one,
	# offline. Its stdin is not the list of postings this loop reads.
	(cd "$out" && git init -q &&
	 bounded 600 "b4 am on $name.mbox" b4 --offline-mode am -m "$dir/$name.mbox" -o . \
		< /dev/null > "$dir/b4-$name.log" 2>&1) || { cat "$dir/b4-$name.log"; die "b4 am failed on $name.mbox"; }
	cat "$dir/b4-$name.log"
	! grep -qiE 'thread incomplete|missing|ERROR' "$dir/b4-$name.log" ||
		die "b4 am complains about $name.mbox: $(grep -iE 'thread incomplete|missing|ERROR' "$dir/b4-$name.log" | head -3 | tr '\n' ' ')"
	got=$(sed -n 's/^Total patches: //p' "$dir/b4-$name.log")
	[ "$got" = "$nr" ] || die "b4 am took ${got:-no} patches of $name.mbox, the posting has $nr"
	mbxs+=("$(ls "$out"/*.mbx)")
done < <(series_postings)
[ ${#mbxs[@]} -gt 0 ] || die "series has no '# posting: NAME' line"

git -C "$KSRC" worktree prune
git -C "$KSRC" worktree add -q --detach "$dir/tree" base
for mbx in "${mbxs[@]}"; do
	if ! git -C "$dir/tree" am -q "$mbx" > "$dir/git-am.log" 2>&1; then
		cat "$dir/git-am.log"
		git -C "$KSRC" worktree remove --force "$dir/tree"
		die "b4's $(basename "$mbx") does not apply with git am after the postings before it"
	fi
done
got=$(git -C "$dir/tree" rev-parse HEAD^{tree})
git -C "$KSRC" worktree remove --force "$dir/tree"
[ "$got" = "$(git -C "$KSRC" rev-parse series^{tree})" ] ||
	die "b4's mboxes apply, but not to the tree of the series"
log "b4 am takes every patch of the ${#mbxs[@]} postings; git am of its mboxes, in order, gives the tree of the series"
