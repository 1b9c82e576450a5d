#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Boot a kernel on the patched QEMU with -M virt,coresight=on and a tiny
# initramfs that lists /sys/bus/coresight/devices, records cs_etm perf
# AUX buffers (per-thread, per-thread overwrite, small per-thread,
# per-CPU) and dumps them on the console; then decode every buffer with
# OpenCSD, and also fully (instruction level) with the runtime kernel
# text saved through the QEMU monitor.
#
# usage: run.sh QEMU KERNEL_IMAGE OUTDIR
# needs: gcc-aarch64-linux-gnu cpio libopencsd-dev python3 bc
set -euo pipefail

[ $# -eq 3 ] || { echo "usage: $0 QEMU KERNEL_IMAGE OUTDIR" >&2; exit 1; }
Q=$(realpath "$1") K=$(realpath "$2") OUT=$(mkdir -p "$3" && cd "$3" && pwd)
D=$(cd "$(dirname "$0")" && pwd)

echo "run.sh: building test programs in $OUT"
aarch64-linux-gnu-gcc -static -O2 -Wall -o "$OUT/init" "$D/init.c"
aarch64-linux-gnu-gcc -static -O2 -Wall -o "$OUT/cstrace" "$D/cstrace.c"
gcc -O2 -Wall -Wno-unused-function -o "$OUT/etedec" "$D/etedec.c" \
	-lopencsd_c_api -lopencsd
rm -rf "$OUT/root"
mkdir -p "$OUT/root/proc" "$OUT/root/sys" "$OUT/root/dev"
cp "$OUT/init" "$OUT/cstrace" "$OUT/root/"
(cd "$OUT/root" && find . | cpio -o -H newc 2>/dev/null | gzip) > "$OUT/initramfs.cpio.gz"

LOG=$OUT/boot.log SOCK=$OUT/mon.sock
rm -f "$LOG" "$OUT/ktext.bin" "$SOCK"
echo "run.sh: booting $K"
start=$(date +%s.%N)
(cd "$OUT" && exec "$Q" -M virt,gic-version=3,coresight=on -cpu max -smp 4 \
	-m 1G -display none -serial file:"$LOG" -nic none \
	-monitor unix:"$SOCK",server=on,wait=off \
	-kernel "$K" -initrd "$OUT/initramfs.cpio.gz" \
	-append "console=ttyAMA0 panic=-1 rdinit=/init nokaslr memwait" \
	-no-reboot) &
qpid=$!
for i in $(seq 1200); do
	grep -q INIT-WAIT "$LOG" 2>/dev/null && break
	kill -0 $qpid 2>/dev/null || break
	sleep 0.5
done
echo "run.sh: guest finished after $(echo "$(date +%s.%N) - $start" | bc) s"
# Save the kernel's runtime text (alternatives applied) for full decode.
python3 - "$SOCK" <<'PY'
import socket, sys, time
s = socket.socket(socket.AF_UNIX)
s.connect(sys.argv[1])
time.sleep(0.5)
s.send(b'stop\nmemsave 0xffff800080000000 0x3f0000 ktext.bin\n')
time.sleep(2)
s.send(b'quit\n')
time.sleep(0.5)
PY
wait $qpid || true

grep -E "ete[0-9]+: CPU|init: ls /sys/bus/coresight|cstrace:|init: /cstrace|arm_trbe" "$LOG" || true
python3 "$D/extract.py" "$LOG" "$OUT/aux"
rc=0
for f in "$OUT"/aux-*.bin; do
	echo "== $f"
	"$OUT/etedec" "$f" 0x10 0x841 | tail -2 || rc=1
	"$OUT/etedec" "$f" 0x10 0x841 -m 0xffff800080000000 "$OUT/ktext.bin" \
		-m 0x400000 "$OUT/cstrace" | tail -5 || rc=1
done
exit $rc
