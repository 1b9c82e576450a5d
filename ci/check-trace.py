#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Decode the trace buffers that cs-trace-record printed in a boot log.

Each buffer is a "CSTRACE-BEGIN key=value..." line, hex lines and a
"CSTRACE-END" line (tools/trace/cs-trace-record.c). The buffer is written
to OUTDIR/NAME.bin and decoded with etedec (libopencsd): format=etr is a
TMC-ETR buffer of formatter frames with ETMv4 trace (etedec -f), format=ete
the raw ETE trace of TRBEs. A buffer passes when:
  - it decodes with 0 errors,
  - the context IDs in it, the PIDs the kernel wrote to CONTEXTIDR_EL1, are
    the traced process only (per-thread), or else idle (0), its children
    or tasks that were alive (CPU-wide); and the traced process is in the
    trace of the recording (of one of its buffers, one per TRBE),
  - there is unsynchronized trace (before the first A-Sync, or where the
    decoder lost sync) only where perf said that the buffer lost trace
    (TRUNCATED), on either path;
  - for an ETR: its trace IDs are the ones perf gave the CPUs (from
    PERF_RECORD_AUX_OUTPUT_HW_ID), only the traced CPU's for a CPU-wide
    recording and all of them for one on all CPUs;
  - if only user space was traced (user=1) and PROGRAM, the static ELF of
    cs-trace-record, is given: it decodes instruction by instruction with
    PROGRAM's text, every direct branch lands where the trace continues.
Prints KTAP: one result per recording (the buffers of a name before its
first "."), cs_trace.NAME (NAME in snake_case); a log without any buffer
is one failed result.
Usage: check-trace.py ETEDEC LOG OUTDIR [PROGRAM]
"""
import contextlib
import io
import os
import re
import struct
import subprocess
import sys

HEX = re.compile(r"^[0-9a-f]+$")
ID_LINE = re.compile(r"^etedec: id 0x([0-9a-f]+): (\d+) bytes, (\d+) unsynced, "
                     r"\d+ packets, (\d+) errors.*context IDs:(.*)$")
# The raw ETE trace of a TRBE (etedec without -f)
UNSYNC_LINE = re.compile(r"^etedec: unsynchronized: (\d+) bytes before the first "
                         r"A-Sync, (\d+) times out of sync$")


def pid_list(value):
    return {int(p) for p in value.split(",") if p}


def trace_ids(value):
    """"0x10:0,0x12:1," -> {0x10: 0, 0x12: 1}"""
    ids = {}
    for item in value.split(","):
        if item:
            trace_id, cpu = item.split(":")
            ids[int(trace_id, 16)] = int(cpu)
    return ids


def buffers(log):
    """Yield (header dict, data bytes, problems) for each buffer."""
    header, hexdata, problems = None, [], []
    with open(log, errors="replace") as f:
        for line in f:
            line = line.strip()
            if line.startswith("CSTRACE-BEGIN"):
                header = dict(kv.split("=", 1) for kv in line.split()[1:])
                hexdata, problems = [], []
            elif line.startswith("CSTRACE-END") and header is not None:
                data = bytes.fromhex("".join(hexdata))
                if len(data) != int(header["size"]):
                    problems.append(f"{len(data)} bytes in the log, "
                                    f"{header['size']} recorded")
                yield header, data, problems
                header = None
            elif header is not None:
                if HEX.match(line) and len(line) % 2 == 0:
                    hexdata.append(line)
                else:
                    problems.append(f"not trace: {line[:60]!r}")


def image_base(elf):
    """The address a static ELF's file is mapped at: its first PT_LOAD."""
    with open(elf, "rb") as f:
        data = f.read(4096)
    phoff, = struct.unpack_from("<Q", data, 0x20)
    phentsize, phnum = struct.unpack_from("<HH", data, 0x36)
    for i in range(phnum):
        p_type, _, p_offset, p_vaddr = struct.unpack_from(
            "<IIQQ", data, phoff + i * phentsize)
        if p_type == 1:
            return p_vaddr - p_offset
    raise ValueError(f"{elf}: no PT_LOAD")


def decode(etedec, path, header, program):
    """Run the decoder; returns (exit code, output)."""
    cfg = [header.get(k, "") for k in ("configr", "idr0", "idr1", "idr2")]
    if header["format"] == "etr":
        cmd = [etedec, "-f", path] + cfg + [header.get("idr8", "0")]
    else:
        first_id = min(trace_ids(header["traceids"]) or {0x10: 0})
        cmd = [etedec, path, hex(first_id)] + cfg + [header.get("devarch", "")]
    if "" in cmd:
        cmd = cmd[:cmd.index("")]
    if program and header.get("user") == "1":
        cmd += ["-m", hex(image_base(program)), program]
    res = subprocess.run(cmd, capture_output=True, text=True)
    return res.returncode, res.stdout + res.stderr


def check_context_ids(header, cids):
    """Problems with the context IDs found in a buffer."""
    pid = int(header["pid"])
    if header["cpu"] == "-1":
        expected = {pid}
    else:
        expected = {0, pid} | pid_list(header["children"]) | \
            pid_list(header.get("alive", ""))
    unexpected = sorted(cids - expected)
    return [f"unexpected context IDs {unexpected}"] if unexpected else []


def check_etr_ids(header, out):
    """Problems with the trace IDs of an ETR buffer, and its ID lines."""
    problems = []
    perf_ids = trace_ids(header["traceids"])
    seen = {}
    for line in out.splitlines():
        m = ID_LINE.match(line)
        if m:
            seen[int(m.group(1), 16)] = (int(m.group(2)), int(m.group(3)))
    if not seen:
        problems.append("no trace ID has trace")
    if set(seen) - set(perf_ids):
        problems.append(f"trace IDs {sorted(set(seen) - set(perf_ids))} "
                        f"were not given by perf {sorted(perf_ids)}")
    cpu = header["cpu"]
    if cpu == "all" and set(seen) != set(perf_ids):
        problems.append(f"CPU-wide on all CPUs: trace IDs {sorted(seen)}, "
                        f"perf gave {sorted(perf_ids)}")
    elif cpu not in ("-1", "all") and \
            set(seen) != {i for i, c in perf_ids.items() if c == int(cpu)}:
        problems.append(f"CPU-wide on CPU {cpu}: trace IDs {sorted(seen)}")
    unsynced = sum(u for _, u in seen.values())
    if unsynced and header["truncated"] == "0":
        problems.append(f"{unsynced} unsynchronized bytes, nothing was lost")
    return problems


def check_ete_sync(header, out):
    """Problems with the unsynchronized trace of a raw ETE buffer."""
    m = next((UNSYNC_LINE.match(l) for l in out.splitlines()
              if UNSYNC_LINE.match(l)), None)
    if not m:
        return ["etedec did not say how much of the trace is unsynchronized"]
    before, lost = int(m.group(1)), int(m.group(2))
    if (before or lost) and header["truncated"] == "0":
        return [f"{before} bytes before the first A-Sync and {lost} losses "
                "of sync, nothing was lost"]
    return []


def context_ids(out):
    for line in out.splitlines():
        if line.startswith("etedec: context IDs:"):
            return {int(c) for c in line.split("IDs:", 1)[1].split()}
    return set()


def check(etedec, header, data, outdir, program):
    name = header["name"]
    path = os.path.join(outdir, name + ".bin")
    with open(path, "wb") as f:
        f.write(data)
    rc, out = decode(etedec, path, header, program)
    with open(os.path.join(outdir, name + ".txt"), "w") as f:
        f.write(out)
    problems = []
    if rc:
        problems.append(f"etedec exit {rc}")
    problems += [l for l in out.splitlines() if l.startswith("ERROR")][:5]
    cids = context_ids(out)
    problems += check_context_ids(header, cids)
    recording_cids.setdefault(header["name"].split(".")[0], set()).update(cids)
    if header["format"] == "etr":
        problems += check_etr_ids(header, out)
    else:
        problems += check_ete_sync(header, out)
    summary = [l for l in out.splitlines()
               if re.match(r"etedec: (id |\d+ bytes|full decode|direct-branch|unsync)", l)]
    print(f"{name}: {len(data)} bytes, pid {header['pid']}, "
          f"context IDs {sorted(cids)}")
    for line in summary:
        print(f"  {line}")
    return problems


# The context IDs of each recording: of all its buffers (one per TRBE)
recording_cids = {}


def main(etedec, log, outdir, program=None):
    os.makedirs(outdir, exist_ok=True)
    total = failed = 0
    pids = {}
    bad = {}            # recording -> buffers with a problem
    out = io.StringIO()
    # Decode everything first: the plan is the number of recordings
    with contextlib.redirect_stdout(out):
        for header, data, problems in buffers(log):
            total += 1
            rec = header["name"].split(".")[0]
            pids[rec] = int(header["pid"])
            bad.setdefault(rec, 0)
            problems += check(etedec, header, data, outdir, program)
            if problems:
                failed += 1
                bad[rec] += 1
                for p in problems:
                    print(f"  FAILED: {header['name']}: {p}")
    print("KTAP version 1")
    print("# cs-trace decoding")
    for line in out.getvalue().splitlines():
        print(f"# {line}")
    if not pids:
        print("1..1")
        print(f"# no trace buffer in {log}")
        print("not ok 1 cs_trace.buffers_printed")
        return 1
    print(f"1..{len(pids)}")
    for i, (rec, pid) in enumerate(pids.items(), 1):
        ok = not bad[rec]
        if pid not in recording_cids.get(rec, set()):
            failed += 1
            ok = False
            print(f"#   FAILED: {rec}: the traced PID {pid} is not in the trace")
        # The trace of the recording decoded and checked
        print(f"{'ok' if ok else 'not ok'} {i} cs_trace.{rec.replace('-', '_')}")
    print(f"# {total} trace buffers decoded, {failed} failed")
    return 1 if failed or not total else 0


if __name__ == "__main__":
    if len(sys.argv) not in (4, 5):
        sys.exit(__doc__)
    sys.exit(main(*sys.argv[1:]))
