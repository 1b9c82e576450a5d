#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# usage: add-idle-states.sh IN.dtb OUT.dtb NR_CPUS
#
# Give each CPU of a QEMU virt device tree a PSCI idle state: a retention
# state, which QEMU's CPU_SUSPEND enters as a WFI. cpuidle-psci then runs
# the CPU PM notifiers around each idle period, as on real systems, and
# CoreSight saves and restores the trace path of the CPU's perf session
# there. The latencies are small, so that the governor picks the state
# for nearly every idle period.
set -euo pipefail

[ $# -eq 3 ] || { echo "usage: $0 IN.dtb OUT.dtb NR_CPUS" >&2; exit 1; }
in=$1 out=$2 nr_cpus=$3
state=/cpus/idle-states/cpu-retention
phandle=0x7fff	# QEMU numbers its own phandles from 0x8000 up

cp "$in" "$out"
fdtput -c "$out" /cpus/idle-states "$state"
fdtput -t s "$out" /cpus/idle-states entry-method psci
fdtput -t s "$out" "$state" compatible arm,idle-state
fdtput -t x "$out" "$state" arm,psci-suspend-param 0
fdtput -t u "$out" "$state" entry-latency-us 10
fdtput -t u "$out" "$state" exit-latency-us 10
fdtput -t u "$out" "$state" min-residency-us 20
fdtput -t x "$out" "$state" phandle $phandle
for ((cpu = 0; cpu < nr_cpus; cpu++)); do
	fdtput -t x "$out" "/cpus/cpu@$cpu" cpu-idle-states $phandle
done
