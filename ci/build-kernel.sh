#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Build an arm64 Image of the tree at git ref $1 (default: series) from
# allnoconfig plus ./kernel-config, and save it as $WORK/images/Image-$2
# (default: the ref). KCONFIG_EXTRA names more fragments to merge. Fails
# if an option of a fragment did not end up set as asked (the last
# fragment that sets it wins), so that a renamed or unmet option cannot go
# unnoticed. Only a tree without the whole series (the base, a bisect step)
# may lack an option, if no Kconfig file of it defines one: the series
# adds it. KTARGETS are the make targets (default: Image).
# KEEP_CONFIG=1 builds with the .config already in KOUT (the bisect does,
# for a patch that changes no Kconfig file): configuring takes ~15 s.
set -euo pipefail
. "$(dirname "$0")/lib.sh"

ref=${1:-series}
name=${2:-$ref}
# shellcheck disable=SC2206
fragments=("$TOP/kernel-config" ${KCONFIG_EXTRA:-})

git -C "$KSRC" checkout -q "$ref"

# Whether the tree is the series or built on it (a mutation)
has_series() {
	git -C "$KSRC" merge-base --is-ancestor series HEAD
}

# Whether a Kconfig file of the tree defines option $1 (CONFIG_FOO)
defined() {
	git -C "$KSRC" grep -qE "^[[:space:]]*(menu)?config ${1#CONFIG_}[[:space:]]*$" -- '*Kconfig*'
}

configure() {
	local bad=0 line

	kmake -s allnoconfig
	"$KSRC/scripts/kconfig/merge_config.sh" -m -O "$KOUT" "$KOUT/.config" \
		"${fragments[@]}" > "$LOGS/merge-config.log"
	kmake -s olddefconfig

	while read -r line; do
		case "$line" in
		CONFIG_*=*)
			grep -qx "$line" "$KOUT/.config" && continue
			if ! has_series && ! defined "${line%%=*}"; then
				log "${line%%=*} is not in this tree, a patch of the series adds it"
				continue
			fi
			echo "kernel-config: $line is not set in .config (got: $(grep "^${line%%=*}=" "$KOUT/.config" || echo unset))"
			bad=1
			;;
		esac
	done < <(cat "${fragments[@]}" |
		 awk -F= '/^CONFIG_/ { if (!($1 in v)) k[n++] = $1; v[$1] = $0 }
			  END { for (i = 0; i < n; i++) print v[k[i]] }')
	[ $bad -eq 0 ] || die "the config fragments did not apply"
}

mkdir -p "$KOUT" "$WORK/images"
if [ "${KEEP_CONFIG:-0}" = 1 ] && [ -f "$KOUT/.config" ]; then
	log "keeping the .config of the last build"
else
	configure
fi

targets=${KTARGETS:-Image}
log "building $targets at $ref ($(git -C "$KSRC" log -1 --format=%s "$ref"))"
# shellcheck disable=SC2086
if ! kmake $targets > "$LOGS/build-$name.log" 2>&1; then
	grep -E 'error|Error|ERROR' "$LOGS/build-$name.log" | head -20
	die "build failed at $ref, see $LOGS/build-$name.log"
fi
cp "$KOUT/arch/arm64/boot/Image" "$WORK/images/Image-$name"
log "built $WORK/images/Image-$name"
