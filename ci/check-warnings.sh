#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# sparse (C=2) and W=1 on what the series touches, at git ref $1 (base or
# series). Run it for base, then for series: the second run fails on any
# warning that the base tree does not have. Line numbers are left out of
# the comparison, as the series moves code around.
#
# What is checked: the .c files the series changes, plus every built .c
# file of drivers/hwtracing/coresight (the series changes its headers)
# and of kernel/events (the series changes include/linux/perf_event.h).
set -euo pipefail
. "$(dirname "$0")/lib.sh"

ref=$1
sparse=$(bash "$CI_DIR/build-sparse.sh")
git -C "$KSRC" checkout -q "$ref"

objs=$(
	{
		git -C "$KSRC" diff --name-only base series -- '*.c'
		(cd "$KSRC" && ls drivers/hwtracing/coresight/*.c kernel/events/*.c)
	} | sort -u | sed 's/\.c$/.o/' |
	while read -r o; do if [ -f "$KOUT/$o" ]; then echo "$o"; fi; done
)
[ -n "$objs" ] || die "nothing to check: build the kernel first"

log "W=1 C=2 at $ref on $(echo "$objs" | wc -l) files"
# shellcheck disable=SC2086
kmake W=1 C=2 CHECK="$sparse" $objs > "$LOGS/warnings-$ref.raw" 2>&1 ||
	{ tail -20 "$LOGS/warnings-$ref.raw"; die "W=1 C=2 build failed at $ref"; }

# "file: kind: message", one per warning, without line and column
sed -nE "s#^$KSRC/##; s#^\.\./linux/##; s#^([^ :]+):[0-9]+:[0-9]+: (warning|error): (.*)#\1: \2: \3#p" \
	"$LOGS/warnings-$ref.raw" | sort > "$LOGS/warnings-$ref.txt"
log "$(wc -l < "$LOGS/warnings-$ref.txt") warnings at $ref"

[ "$ref" = base ] && exit 0
new=$(comm -13 "$LOGS/warnings-base.txt" "$LOGS/warnings-$ref.txt")
if [ -n "$new" ]; then
	echo "$new"
	die "the series adds $(echo "$new" | wc -l) sparse/W=1 warning(s)"
fi
log "no new sparse or W=1 warnings"
