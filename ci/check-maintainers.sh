#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# MAINTAINERS-snippet: its sections are the tree's, they cover every patch
# (get_maintainer.pl runs on each, its output is in the log), and
# get_maintainer.pl --self-test finds nothing wrong with them. The
# self-test runs in a scratch worktree whose MAINTAINERS is the snippet:
# on the whole MAINTAINERS file it takes far too long.
set -euo pipefail
. "$(dirname "$0")/lib.sh"

patches=()
while read -r p; do
	case "$p" in ''|'#'*) continue ;; esac
	patches+=("$TOP/patches/$p")
done < "$TOP/series"
git -C "$KSRC" checkout -q series
bounded 1800 "check-maintainers.py on MAINTAINERS-snippet" \
	python3 "$CI_DIR/check-maintainers.py" "$KSRC" "$TOP/MAINTAINERS-snippet" "${patches[@]}"

scratch=$WORK/maintainers-selftest
git -C "$KSRC" worktree prune
rm -rf "$scratch"
git -C "$KSRC" worktree add -q --no-checkout --detach "$scratch" series
# The index lists every file of the tree for the pattern test; get_maintainer.pl
# wants the top-level files and directories of a kernel tree around it.
git -C "$scratch" reset -q
git -C "$scratch" checkout -q series -- COPYING CREDITS Kbuild Makefile README scripts/get_maintainer.pl
mkdir -p "$scratch"/{Documentation,arch,include,drivers,fs,init,ipc,kernel,lib}
grep -v '^#' "$TOP/MAINTAINERS-snippet" > "$scratch/MAINTAINERS"
out=$(cd "$scratch" && bounded 600 "get_maintainer.pl --self-test on MAINTAINERS-snippet" \
	perl scripts/get_maintainer.pl --self-test=sections,patterns)
git -C "$KSRC" worktree remove --force "$scratch"
if [ -n "$out" ]; then
	echo "$out"
	die "get_maintainer.pl --self-test complains about MAINTAINERS-snippet"
fi
log "get_maintainer.pl --self-test=sections,patterns: no warning for the snippet"
