#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Check the perf record runs of tools/perf-aux-sample with the host's perf.

Takes the perf.data files that the boot wrote to the console in base64,
saves them in OUTDIR, and checks each with PERF (built with libopencsd):
perf evlist for the attributes of the sampling event, perf report -D for
the ETE packets of every AUX sample, perf script for branches of the
workload decoded from the samples, perf report for its functions. SYMFS
is the root of the boot's initramfs, where the workload's binary is.
Prints KTAP; exits 1 if a test failed.

With --refused, the boot was of a kernel that cannot take AUX samples of
cs_etm: perf record must say so in every run.

Usage: check-perf-sample.py [--refused] PERF SYMFS BOOTLOG OUTDIR
"""
import base64
import re
import subprocess
import sys

WORKLOAD = "perf-aux-sample"
WORKLOAD_FUNCTIONS = ("workload_step", "workload_leaf")
SNAPSHOT_ERROR = ("Snapshot mode (-S option) and AUX area sampling "
                  "(--aux-sample option) cannot be used together with cs_etm")
# perf record, when the kernel refuses an event with aux_sample_size
REFUSED_ERROR = "The kernel cannot take AUX area samples of the group leader"

# The runs of tools/perf-aux-sample/perf-aux-sample.c: name -> sample size
RUNS = {
    "aux-sample": 4096,
    "default-size": 8192,     # perf's default for cs_etm
    "size-term": 16384,
    "per-thread": 4096,
}
# Runs without timestamps in the trace: the decoded samples have the
# time of the AUX sample they come from
TIMELESS = {"size-term"}
# Per-thread runs: perf record does not ask for the time of samples
UNTIMED = {"per-thread"}

results = []


def result(ok, name, diag=None):
    results.append((ok, name, diag))


def perf(save, *args):
    """Run perf, save its output in OUTDIR/save and return it."""
    p = subprocess.run([PERF, *args], capture_output=True, text=True,
                       errors="replace")
    with open(f"{OUTDIR}/{save}", "w") as f:
        f.write(p.stdout + p.stderr)
    return p.stdout


def run_output(text, run):
    """What the boot printed while perf record of @run ran."""
    m = re.search(rf"=== perf run {run}: .*?\n(.*?)=== perf run {run}: exit", text, re.S)
    return m.group(1) if m else ""


def extract(log):
    """Return {run: exit status} and {run: perf.data bytes} from the log."""
    status, files, cur = {}, {}, None
    for line in log:
        line = line.strip()
        m = re.match(r"=== perf run (\S+): exit (\d+)$", line)
        if m:
            status[m.group(1)] = int(m.group(2))
            continue
        m = re.match(r"=== perf\.data (\S+) begin (\d+)$", line)
        if m:
            cur = (m.group(1), int(m.group(2)), [])
            continue
        if cur and line == f"=== perf.data {cur[0]} end":
            data = base64.b64decode("".join(cur[2]))
            if len(data) == cur[1]:
                files[cur[0]] = data
            cur = None
        elif cur and re.fullmatch(r"[A-Za-z0-9+/=]+", line):
            cur[2].append(line)
    return status, files


def check_attr(run, path, size):
    """The sampling event asks for AUX samples and the CPU."""
    for line in perf(f"{run}.evlist", "evlist", "-v", "-i", path).splitlines():
        if "aux_sample_size" not in line:
            continue
        m = re.search(r"sample_type: (\S+),", line)
        types = m.group(1).split("|") if m else []
        m = re.search(r"aux_sample_size: (\d+)", line)
        got = int(m.group(1)) if m else 0
        result("AUX" in types and "CPU" in types and got == size,
               f"{run}: the sampling event takes {size} byte AUX samples and the CPU",
               f"sample_type {'|'.join(types)}, aux_sample_size {got}")
        return
    result(False, f"{run}: the sampling event takes {size} byte AUX samples and the CPU",
           "no event with aux_sample_size")


def check_dump(run, path, size):
    """perf report -D dumps every AUX sample; padded ones start with A-Sync."""
    out = perf(f"{run}.dump", "report", "-D", "-i", path).splitlines()
    dumps, decoded, bad = 0, 0, []
    for i, line in enumerate(out):
        m = re.search(r"CoreSight AUX sample: size (\w+) bytes, "
                      r"padding (\w+) bytes", line)
        if not m:
            continue
        dumps += 1
        got, padding = int(m.group(1), 0), int(m.group(2), 0)
        if got != size:
            bad.append(f"size {got:#x}")
        if padding == got:
            continue
        packets = [x for x in out[i + 1:i + 6] if "Idx:" in x]
        if packets:
            decoded += 1
        # Zero padding ends where the trace starts, with an A-Sync
        if padding and (not packets or not
                        re.search(r"Idx:0;.*I_ASYNC", packets[0])):
            bad.append(f"padded sample not at an A-Sync: {packets[:1]}")
    result(dumps > 0 and decoded > 0 and not bad,
           f"{run}: perf report -D dumps the AUX samples as ETE packets",
           f"{dumps} AUX samples, {decoded} with packets; {bad[:3]}")


def check_script(run, path):
    """perf script decodes the samples into branches of the workload."""
    fields = "tid,cpu,event,ip,sym" if run in UNTIMED else "tid,cpu,time,event,ip,sym"
    out = perf(f"{run}.script", "script", "-i", path, "--symfs", SYMFS,
               "-F", fields).splitlines()
    samples, branches = [], []
    for line in out:
        m = re.match(r"\s*(\d+)\s+\[(\d+)\]\s+(?:([\d.]+):\s+)?(\S+):\s+\S+\s+(\S+)", line)
        if not m:
            continue
        tid, cpu, time, event, sym = m.groups()
        if event.startswith("branches"):
            branches.append((tid, cpu, time, sym))
        elif event.startswith("cpu-clock"):
            samples.append((tid, cpu, time))
    in_workload = [b for b in branches if b[3] in WORKLOAD_FUNCTIONS]
    # Each branch has the thread and CPU of a sample that carried it
    threads = {(tid, cpu) for tid, cpu, _ in samples}
    strangers = [b for b in branches if (b[0], b[1]) not in threads]
    result(len(samples) > 0 and len(in_workload) > 0 and not strangers,
           f"{run}: perf script decodes branches of the workload from the samples",
           f"{len(samples)} cpu-clock samples, {len(branches)} branches, "
           f"{len(in_workload)} in {'/'.join(WORKLOAD_FUNCTIONS)}, "
           f"{len(strangers)} on another thread or CPU")
    if run in TIMELESS:
        times = {time for _, _, time in samples}
        late = [b for b in branches if b[2] not in times]
        result(len(branches) > 0 and not late,
               f"{run}: without timestamps, the branches have the time of their sample",
               f"{len(late)} of {len(branches)} branches at another time")


def check_report(run, path):
    """perf report shows the workload's functions from the trace."""
    out = perf(f"{run}.report", "report", "-i", path, "--symfs", SYMFS, "--stdio",
               "--itrace=i1000", "--sort", "sym")
    section = out.split("of event 'instructions")[-1] if "of event 'instructions" in out else ""
    found = [f for f in WORKLOAD_FUNCTIONS if f in section]
    result(len(found) == len(WORKLOAD_FUNCTIONS),
           f"{run}: perf report shows the workload's functions from the trace",
           f"found {found}")


def check_refused(text, status):
    """A kernel without AUX sampling for cs_etm: perf record says so.

    perf record leaves out an event that the kernel refuses and records
    the others, so it may still exit 0.
    """
    for run in RUNS:
        result(REFUSED_ERROR in run_output(text, run),
               f"{run}: perf record says that the kernel cannot take the samples",
               f"exit {status.get(run)}")


def check_runs(text, status, files):
    for run, size in RUNS.items():
        ok = status.get(run) == 0 and run in files
        result(ok, f"{run}: perf record exits 0, its perf.data is on the console",
               f"exit {status.get(run)}, {len(files.get(run, b''))} bytes")
        if not ok:
            continue
        path = f"{OUTDIR}/{run}.data"
        with open(path, "wb") as f:
            f.write(files[run])
        check_attr(run, path, size)
        check_dump(run, path, size)
        check_script(run, path)
        if run == "aux-sample":
            check_report(run, path)

    result(status.get("snapshot", 0) != 0 and
           SNAPSHOT_ERROR in run_output(text, "snapshot"),
           "snapshot: -S with --aux-sample is refused, with a message",
           f"exit {status.get('snapshot')}")


def main(argv):
    global PERF, SYMFS, OUTDIR
    refused = argv[:1] == ["--refused"]
    PERF, SYMFS, bootlog, OUTDIR = argv[1:] if refused else argv
    text = open(bootlog, errors="replace").read()
    status, files = extract(text.splitlines())
    if refused:
        check_refused(text, status)
    else:
        check_runs(text, status, files)

    print("KTAP version 1")
    if refused:
        print("# perf-aux-sample: perf record --aux-sample, the kernel cannot take the samples")
    else:
        print("# perf-aux-sample: perf record --aux-sample on the TRBE, decoded on the host")
    print(f"1..{len(results)}")
    for i, (ok, name, diag) in enumerate(results, 1):
        if diag:
            print(f"# {diag}")
        print(f"{'ok' if ok else 'not ok'} {i} {name}")
    return 0 if all(ok for ok, _, _ in results) else 1


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
