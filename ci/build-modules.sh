#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Build the series with CoreSight and its KUnit tests as modules
# (modules.config): modpost fails on a symbol that the drivers use but
# the kernel or another module does not export. Then the UltraSoc SMB,
# a shared sink that the series changes, as an external module against
# that tree: its Kconfig entry needs ACPI or COMPILE_TEST, and either
# would change options that most of the kernel depends on.
#
# The tree starts as a copy of the debug kernel's (ci/debug.config has
# module support for this), so only what depends on the CoreSight
# options compiles again: about a minute instead of a whole kernel.
set -euo pipefail
. "$(dirname "$0")/lib.sh"

debug=$WORK/kernel-debug
modules=$WORK/kernel-modules
smb=$WORK/smb-module

[ -f "$debug/vmlinux" ] || die "no debug kernel in $debug: build-debug runs first"
rm -rf "$modules"
cp -a "$debug" "$modules"
KOUT=$modules KCONFIG_EXTRA="$CI_DIR/debug.config $CI_DIR/modules.config" \
	KTARGETS="Image modules" bash "$CI_DIR/build-kernel.sh" series series-modules
rm -f "$WORK/images/Image-series-modules"

# The modules of the options of modules.config
for m in coresight coresight-tmc coresight-etb10 coresight-funnel coresight-replicator \
	 coresight-etm4x coresight-trbe coresight-dummy coresight-kunit-tests; do
	[ -f "$modules/drivers/hwtracing/coresight/$m.ko" ] || die "no $m.ko"
done

rm -rf "$smb"
mkdir -p "$smb"
cp "$KSRC/drivers/hwtracing/coresight/ultrasoc-smb.c" "$smb/"
cat > "$smb/Kbuild" <<EOT
obj-m := ultrasoc-smb.o
ccflags-y := -I\$(srctree)/drivers/hwtracing/coresight
EOT
if ! make -C "$KSRC" O="$modules" M="$smb" CC="$KERNEL_CC" W=1 modules \
		> "$LOGS/build-smb-module.log" 2>&1; then
	cat "$LOGS/build-smb-module.log"
	die "the UltraSoc SMB does not build as a module"
fi
if grep -E 'warning:|WARNING:' "$LOGS/build-smb-module.log"; then
	die "the UltraSoc SMB module builds with warnings"
fi
[ -f "$smb/ultrasoc-smb.ko" ] || die "no ultrasoc-smb.ko"
log "9 CoreSight modules and ultrasoc-smb.ko built, modpost clean"
