#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# checkpatch --strict on every patch of the series.
#
# UNKNOWN_COMMIT_ID is ignored: the base tree comes from a tarball with no
# upstream history, so checkpatch cannot look up the commits named in
# Fixes: tags and commit messages. FILE_PATH_CHANGES ("does MAINTAINERS
# need updating?") is checkpatch's question for every added file, answered
# by ci/check-maintainers.sh: each file the series adds has a maintainer in
# an existing section.
set -euo pipefail
. "$(dirname "$0")/lib.sh"

# From the kernel tree, as checkpatch expects to be run
cd "$KSRC"
failed=0
while read -r patch; do
	case "$patch" in ''|'#'*) continue ;; esac
	if out=$(bounded 600 "checkpatch.pl on $patch" \
			perl "$KSRC/scripts/checkpatch.pl" --strict --quiet --no-tree \
			--ignore UNKNOWN_COMMIT_ID,FILE_PATH_CHANGES "$TOP/patches/$patch" 2>&1); then
		log "clean: $patch"
	else
		echo "$out"
		log "FAILED: $patch"
		failed=$((failed + 1))
	fi
done < "$TOP/series"
[ $failed -eq 0 ] || die "checkpatch --strict complains about $failed patch(es)"
