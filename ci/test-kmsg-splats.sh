#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Test kmsg_splats() of the series' kselftests (cs_etm_util.h at tag
# series), which decides whether a splat in the kernel log fails a test:
# it must count the splats of CoreSight and perf code, and not those of
# the rest of a board (an LKDTM WARN, a hung kworker). ci/kmsg-splats/cases
# gives each file of /dev/kmsg records and the count; read-splats.c feeds
# the records to kmsg_splats() one a read(), as /dev/kmsg does. Prints
# KTAP, also to $LOGS/kmsg-splats.ktap (or $LOGS/kmsg-splats-NAME.ktap
# with MUTATION=NAME, ci/negative/NAME.patch applied to the header).
set -euo pipefail
. "$(dirname "$0")/lib.sh"

dir=$CI_DIR/kmsg-splats
util=$WORK/kmsg-splats-util
header=tools/testing/selftests/coresight/cs_etm_util.h
out=$LOGS/kmsg-splats${MUTATION:+-$MUTATION}.ktap
# cs_etm_util.h of the series, and the uapi headers of its tree
rm -rf "$util" "$out"
mkdir -p "$util/${header%/*}"
git -C "$KSRC" show "series:$header" > "$util/$header"
if [ -n "${MUTATION:-}" ]; then
	# Outside of any git tree: $WORK may be inside the CI's clone, where
	# git apply would take the paths from the clone's top and apply nothing
	cp "$util/$header" "$util/unmutated.h"
	(cd "$util" && GIT_DIR=/nonexistent git apply --include="$header" \
		"$CI_DIR/negative/$MUTATION.patch") ||
		die "ci/negative/$MUTATION.patch does not apply to $header"
	! cmp -s "$util/$header" "$util/unmutated.h" ||
		die "ci/negative/$MUTATION.patch changes nothing in $header"
fi
gcc -O2 -Wall -Werror -Wno-unused-function -isystem "$WORK/kselftest-out/usr/include" \
	-I"$KSRC/tools/testing/selftests" -I"$util/${header%/*}" -o "$util/read-splats" \
	"$dir/read-splats.c" || die "cannot build $dir/read-splats.c"

cases=$(grep -v '^#' "$dir/cases" | grep .)
{
	echo "KTAP version 1"
	echo "1..$(grep -c . <<< "$cases")"
	n=0
	while read -r file want; do
		n=$((n + 1))
		got=$(bounded 60 "read-splats on $file" "$util/read-splats" "$dir/$file" \
			2> "$LOGS/kmsg-splats-$file.log") || got=
		echo "# $file: ${got:-no count}, $want wanted"
		[ "$got" = "$want splats" ] && echo -n "ok" || echo -n "not ok"
		echo " $n kmsg_splats.${file%.kmsg}" | tr - _
	done <<< "$cases"
} | tee "$out"
! grep -q '^not ok' "$out"
