#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Unpack the base tree into a git repo with one base commit, then git am
# every patch listed in ./series, in order. A patch that does not apply
# stops the run and is named.
set -euo pipefail
. "$(dirname "$0")/lib.sh"
. "$WORK/base.env"

rm -rf "$KSRC"
mkdir -p "$KSRC"
log "unpacking $(basename "$BASE_TARBALL")"
tar -xf "$BASE_TARBALL" -C "$KSRC" --strip-components=1

cd "$KSRC"
export GIT_AUTHOR_NAME=base GIT_AUTHOR_EMAIL=base@localhost
export GIT_COMMITTER_NAME=ci GIT_COMMITTER_EMAIL=ci@localhost
export GIT_AUTHOR_DATE="@0 +0000" GIT_COMMITTER_DATE="@0 +0000"
git init -q
git config user.name ci
git config user.email ci@localhost
# Debian's top-level .gitignore ignores the whole tree: add it by force.
git add -f -A
git commit -q -m "base: $BASE_PACKAGE $BASE_USED_VERSION (sha256 $BASE_USED_SHA256)"
git tag base
unset GIT_AUTHOR_NAME GIT_AUTHOR_EMAIL GIT_AUTHOR_DATE GIT_COMMITTER_DATE

n=0
while read -r patch; do
	case "$patch" in ''|'#'*) continue ;; esac
	[ -f "$TOP/patches/$patch" ] || die "series lists $patch, which is not in patches/"
	if ! git am -q --keep-cr "$TOP/patches/$patch" > "$LOGS/git-am.log" 2>&1; then
		cat "$LOGS/git-am.log"
		git am --abort || true
		die "patch does not apply: $patch"
	fi
	n=$((n + 1))
done < "$TOP/series"
git tag series
log "applied $n patches on $BASE_PACKAGE $BASE_USED_VERSION"
git log --oneline base..series
