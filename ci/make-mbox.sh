#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Make the mbox that goes to the mailing list, $WORK/mbox/series.mbox:
# COVER_LETTER and the applied series, as git format-patch threads them
# ([PATCH vN k/n] subjects, a Message-ID each, In-Reply-To and References
# to the cover letter). The prefix and version come from the subject line
# of COVER_LETTER, e.g. "Subject: [PATCH v2 00/18] ...".
set -euo pipefail
. "$(dirname "$0")/lib.sh"

# "[RFC PATCH v2 00/18] title" -> prefix "RFC PATCH", version 2
tag=$(sed -nE '1s/^Subject: \[([^]]*) [0-9]+\/[0-9]+\] .*/\1/p' "$TOP/COVER_LETTER")
[ -n "$tag" ] || die "COVER_LETTER must start with 'Subject: [PATCH vN 00/NN] title'"
prefix=$tag version=
if [[ $tag =~ ^(.*)\ v([0-9]+)$ ]]; then
	prefix=${BASH_REMATCH[1]} version=${BASH_REMATCH[2]}
fi

# The cover letter and the Message-IDs are the author's, not the CI's
author=$(git -C "$KSRC" log -1 --format=%an series)
email=$(git -C "$KSRC" log -1 --format=%ae series)

mkdir -p "$WORK/mbox"
GIT_COMMITTER_NAME=$author GIT_COMMITTER_EMAIL=$email \
	git -C "$KSRC" format-patch --stdout --cover-letter --thread=shallow \
	--subject-prefix="$prefix" ${version:+-v "$version"} base..series |
	python3 "$CI_DIR/make-mbox.py" "$TOP/COVER_LETTER" > "$WORK/mbox/series.mbox"
log "$WORK/mbox/series.mbox: $(grep -ci '^Message-ID: ' "$WORK/mbox/series.mbox") messages, [$tag]"
