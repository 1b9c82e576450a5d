#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Make the mboxes that go to the mailing lists, one per posting of
# ./series ("# posting: NAME" lines), $WORK/mbox/NAME.mbox: the posting's
# cover letter from COVER_LETTER and its patches, as git format-patch
# threads them ([PATCH vN k/n] subjects numbered within the posting,
# In-Reply-To and References to its cover letter). The prefix and version
# come from the posting's "Subject: [PATCH v2 0/3] ..." line in
# COVER_LETTER; make-mbox.py gives every message a stable Message-ID.
set -euo pipefail
. "$(dirname "$0")/lib.sh"

mapfile -t files < <(grep -v -e '^#' -e '^$' "$TOP/series")
mapfile -t commits < <(git -C "$KSRC" rev-list --reverse base..series)
[ ${#files[@]} = ${#commits[@]} ] ||
	die "series lists ${#files[@]} patches, $KSRC has ${#commits[@]}: run ci/apply-series.sh"

# git am drops what is under the '---' line of a patch: put each patch's
# changelog (format-patch --notes, "Notes:" and indented lines) back as a
# note of its commit, so that the posting has it too. The default notes
# ref, as git labels any other one ("Notes (ref):"); KSRC is the CI's
# tree, made from patches/, so its notes are too.
git -C "$KSRC" update-ref -d refs/notes/commits
for i in "${!files[@]}"; do
	notes=$(awk '/^---$/ {cut = 1; next}
		     !cut {next}
		     /^Notes:$/ {n = 1; next}
		     n && /^    / {print substr($0, 5); next}
		     /^$/ {if (n) print ""; next}
		     {exit}' "$TOP/patches/${files[i]}")
	[ -z "$notes" ] || git -C "$KSRC" notes add -m "$notes" "${commits[i]}"
done

# The cover letter and the Message-IDs are the author's, not the CI's
author=$(git -C "$KSRC" log -1 --format=%an series)
email=$(git -C "$KSRC" log -1 --format=%ae series)

rm -rf "$WORK/mbox"
mkdir -p "$WORK/mbox"
i=0 first=0
while read -r name nr; do
	[ "$name" != - ] || die "series: $nr patch(es) before the first '# posting: NAME' line"
	[ "$nr" -gt 0 ] || die "series: posting $name has no patches"
	i=$((i + 1))
	# "Subject: [RFC PATCH v2 0/3] title" -> prefix "RFC PATCH", version 2
	tag=$(grep '^Subject: ' "$TOP/COVER_LETTER" | sed -nE "${i}s/^Subject: \[([^]]*) [0-9]+\/[0-9]+\] .*/\1/p")
	[ -n "$tag" ] || die "COVER_LETTER has no cover letter $i ('Subject: [PATCH vN 0/N] title') for $name"
	prefix=$tag version=
	if [[ $tag =~ ^(.*)\ v([0-9]+)$ ]]; then
		prefix=${BASH_REMATCH[1]} version=${BASH_REMATCH[2]}
	fi
	range=${commits[first]}^..${commits[first + nr - 1]}
	GIT_COMMITTER_NAME=$author GIT_COMMITTER_EMAIL=$email \
		git -C "$KSRC" format-patch --stdout --cover-letter --thread=shallow \
		--notes --subject-prefix="$prefix" ${version:+-v "$version"} "$range" |
		bounded 300 "make-mbox.py for $name" \
			python3 "$CI_DIR/make-mbox.py" "$TOP/COVER_LETTER" "$i" "$name" > "$WORK/mbox/$name.mbox"
	log "$WORK/mbox/$name.mbox: $(grep -ci '^Message-ID: ' "$WORK/mbox/$name.mbox") messages," \
		"$(grep -m1 '^Subject: ' "$WORK/mbox/$name.mbox" | cut -c10-)"
	first=$((first + nr))
done < <(series_postings)
[ $i -eq "$(grep -c '^Subject: ' "$TOP/COVER_LETTER")" ] ||
	die "COVER_LETTER has $(grep -c '^Subject: ' "$TOP/COVER_LETTER") cover letters, series $i postings"
