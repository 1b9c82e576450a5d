#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Check the perf record runs of tools/perf-aux-sample with the host's perf.

Takes the perf.data files that the boot wrote to the console in base64,
saves them in OUTDIR, and checks each with PERF (built with libopencsd):
perf evlist for the attributes of the sampling event, perf report -D for
the ETE packets of every AUX sample, perf script for branches of the
workload decoded from the samples, each right before the sample that
carried it, perf report for its functions; with --itrace=L the branch
stacks of the samples in perf script, perf report -b, --branch-history
and a file of perf inject, with --itrace=G their call chains. SYMFS is
the root of the boot's initramfs, where the workload's binary is.

From the perf.data of the aux-sample run it also makes files that the
QEMU model cannot record, and checks what perf makes of them: an AUX
sample whose zero padding is followed by a 0x80 byte that does not start
an A-Sync packet, a sample from a CPU without trace metadata,
PERF_RECORD_AUX records of a formatted sink (ETR), a zero-size
PERF_RECORD_AUX with COLLISION, and what a shared sink records (formatted
trace, all-zero samples). Prints KTAP; exits 1 if a test failed.

With --refused, the boot was of a kernel that cannot take AUX samples of
cs_etm: perf record must say so in every run.

Usage: check-perf-sample.py [--refused] PERF SYMFS BOOTLOG OUTDIR
"""
import base64
import re
import struct
import subprocess
import sys

WORKLOAD = "perf-aux-sample"
WORKLOAD_FUNCTIONS = ("workload_step", "workload_leaf")
SNAPSHOT_ERROR = ("Snapshot mode (-S option) and AUX area sampling "
                  "(--aux-sample option) cannot be used together with cs_etm")
# perf record, when the kernel refuses an event with aux_sample_size
REFUSED_ERROR = "The kernel cannot take AUX area samples of the group leader"
# perf record, for a sample size at or below the trace's sync period (4KiB),
# with its line breaks as spaces
SMALL_SAMPLE_WARNING = "may be too small for the synchronisation period"
# perf script and perf report, for AUX samples of a formatted sink
FORMATTED_WARNING = "AUX samples of formatted trace, which cannot"
# perf script and perf report, when no AUX sample holds trace
NO_TRACE_WARNING = "AUX samples holds trace"
# perf script and perf report, for AUX samples of a CPU without metadata
NO_METADATA_WARNING = "AUX samples from CPUs without trace metadata"

# The runs of tools/perf-aux-sample/perf-aux-sample.c: name -> sample size
RUNS = {
    "aux-sample": 4096,
    "default-size": 8192,     # perf's default for cs_etm
    "size-term": 16384,
    "wrap": 8192,             # a 16KiB AUX area, which wraps
    "per-thread": 4096,
    "rate-1khz": 8192,        # a sample every 1ms
}
# Runs whose trace may restart after the TRBE wrapped: a padded sample
# need not start with an A-Sync packet
WRAPS = {"wrap"}
# More zeros than an A-Sync packet has (11): padding by the kernel
PADDED = 12
# Runs without timestamps in the trace: the decoded samples have the
# time of the AUX sample they come from
TIMELESS = {"size-term"}
# Per-thread runs: perf record does not ask for the time of samples
UNTIMED = {"per-thread"}
# --itrace=L: of the cpu-clock samples in the workload's functions, the
# share that must have a branch stack, and its most entries (perf's
# default). A sample may hold no trace or end before the sampled
# instruction: 0.5% to 2% of them on the model (one run in
# ci/MEASUREMENTS.md had 97.9% at 1 kHz), so that with some 40 samples a
# run 5% would fail one CI run in a few; 15% is a margin that random
# misses do not reach, and a decoder that loses stacks does
BRSTACK_SHARE = 0.85
BRSTACK_MAX = 64
# --itrace=G: the caller of each function of the workload, the share of
# the samples in them whose call chain must name it: a sample's trace
# may start after the call (2.6% to 6.5% missed on the model)
CALLERS = {"workload_leaf": ("workload_step",), "workload_step": ("workload", "main")}
CALLCHAIN_SHARE = 0.75

results = []


def result(ok, name, diag=None):
    results.append((ok, name, diag))


def test_name(run, check):
    """perf_aux_sample.RUN.CHECK, RUN in snake_case"""
    return f"perf_aux_sample.{run.replace('-', '_')}.{check}"


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
               test_name(run, "sample_type"),
               f"sample_type {'|'.join(types)}, aux_sample_size {got}")
        return
    result(False, test_name(run, "sample_type"),
           "no event with aux_sample_size")


def dump_samples(out):
    """The AUX samples of perf report -D: (size, padding, first packets)."""
    samples = []
    for i, line in enumerate(out):
        m = re.search(r"CoreSight AUX sample: size (\w+) bytes, "
                      r"padding (\w+) bytes", line)
        if m:
            packets = [x for x in out[i + 1:i + 6] if "Idx:" in x]
            samples.append((int(m.group(1), 0), int(m.group(2), 0), packets))
    return samples


def at_async(packets):
    """The trace starts with an A-Sync packet."""
    return len(packets) > 0 and re.search(r"Idx:0;.*I_ASYNC", packets[0])


def false_async(packets):
    """The trace starts with an A-Sync packet that no TraceInfo follows."""
    return (at_async(packets) and
            not (len(packets) > 1 and re.search(r"Idx:12;.*I_TRACE_INFO", packets[1])))


def check_dump(run, path, size):
    """perf report -D dumps every AUX sample; padded ones start with A-Sync.

    perf skips the zeros at the front of a sample, but those of an A-Sync
    packet that starts the trace. A sample whose trace does not start with
    an A-Sync then has as padding all its zeros: PADDED of them or more
    are the kernel's padding, fewer may be trace (a sample full of trace
    starts anywhere in the trace stream). After the TRBE wrapped (WRAPS),
    the trace of a padded sample starts where the sink restarted, and
    need not start with an A-Sync: some sample must be such. In no run may
    the trace start with an A-Sync that no TraceInfo follows.
    """
    out = perf(f"{run}.dump", "report", "-D", "-i", path).splitlines()
    samples = dump_samples(out)
    decoded, restarted, bad = 0, 0, []
    # The TRBE driver reports a wrap of the AUX area as a COLLISION
    wraps = sum(1 for line in out
                if "PERF_RECORD_AUX " in line and re.search(r"\[\w*C\w*\]", line))
    if wraps and run not in WRAPS:
        bad.append(f"the AUX area wrapped {wraps} times: make it larger")
    for got, padding, packets in samples:
        if got != size:
            bad.append(f"size {got:#x}")
        if padding == got:
            continue
        if packets:
            decoded += 1
        if not padding:
            continue
        if false_async(packets):
            bad.append(f"padded sample at an A-Sync without TraceInfo: {packets[:2]}")
        elif not at_async(packets) and padding >= PADDED:
            restarted += 1
            # Zero padding ends where the trace starts, with an A-Sync
            if run not in WRAPS:
                bad.append(f"padded sample not at an A-Sync: {packets[:1]}")
    result(len(samples) > 0 and decoded > 0 and not bad,
           test_name(run, "report_dump"),
           f"{len(samples)} AUX samples, {decoded} with packets, "
           f"{restarted} padded not at an A-Sync, {wraps} wraps; {bad[:3]}")
    if run in WRAPS:
        result(restarted > 0,
               test_name(run, "padded_restart"),
               f"{restarted} padded samples not at an A-Sync")


def script_lines(out):
    """The samples of perf script -F tid,cpu,time,event,ip,sym output:
    (tid, cpu, time, event, sym), time None where not printed."""
    lines = []
    for line in out:
        m = re.match(r"\s*(\d+)\s+\[(\d+)\]\s+(?:([\d.]+):\s+)?(\S+):\s+\S+\s+(\S+)", line)
        if m:
            lines.append(m.groups())
    return lines


def check_script(run, path):
    """perf script decodes the samples into branches of the workload.
    Returns the lines of script_lines(), for check_order()."""
    fields = "tid,cpu,event,ip,sym" if run in UNTIMED else "tid,cpu,time,event,ip,sym"
    lines = script_lines(perf(f"{run}.script", "script", "-i", path, "--symfs", SYMFS,
                              "-F", fields).splitlines())
    samples, branches = [], []
    for tid, cpu, time, event, sym in lines:
        if event.startswith("branches"):
            branches.append((tid, cpu, time, sym))
        elif event.startswith("cpu-clock"):
            samples.append((tid, cpu, time))
    in_workload = [b for b in branches if b[3] in WORKLOAD_FUNCTIONS]
    # Each branch has the thread and CPU of a sample that carried it
    threads = {(tid, cpu) for tid, cpu, _ in samples}
    strangers = [b for b in branches if (b[0], b[1]) not in threads]
    result(len(samples) > 0 and len(in_workload) > 0 and not strangers,
           test_name(run, "script_branches"),
           f"{len(samples)} cpu-clock samples, {len(branches)} branches, "
           f"{len(in_workload)} in {'/'.join(WORKLOAD_FUNCTIONS)}, "
           f"{len(strangers)} on another thread or CPU")
    if run in TIMELESS:
        times = {time for _, _, time in samples}
        late = [b for b in branches if b[2] not in times]
        result(len(branches) > 0 and not late,
               test_name(run, "branch_times"),
               f"{len(late)} of {len(branches)} branches at another time")
    return lines


def check_order(run, lines):
    """Each sample's trace is decoded when the sample is processed: its
    branches come right before it, with its thread and CPU, and with its
    time where the trace has no timestamps (TIMELESS); none after the
    last sample. @lines: check_script()'s perf script lines."""
    pending, branches, bad = [], 0, []
    for tid, cpu, time, event, _ in lines:
        if event.startswith("branches"):
            pending.append((tid, cpu, time))
            branches += 1
        elif event.startswith("cpu-clock"):
            want = (tid, cpu, time) if run in TIMELESS else (tid, cpu)
            bad += [b for b in pending if b[:len(want)] != want][:1]
            pending = []
    result(branches > 0 and not bad and not pending,
           test_name(run, "decoded_in_order"),
           f"{branches} branches, {len(pending)} after the last sample; "
           f"not of the next sample: {bad[:2]}")


def brstack_samples(run, path):
    """perf script --itrace=L of the cpu-clock samples: [(ip, sym,
    [(from, to)], [(from symbol, to symbol)])]. perf script prints the
    fields ip and brstacksym without a space between them, so the
    symbols come from a second run without ip."""
    def entries(text):
        return re.findall(r"(\S+?)/(\S+?)/\S*", text)
    args = ("script", "-i", path, "--symfs", SYMFS, "--itrace=L", "-F")
    addrs = perf(f"{run}.brstack", *args, "event,ip,sym,brstack").splitlines()
    syms = perf(f"{run}.brstacksym", *args, "event,brstacksym").splitlines()
    samples = []
    for a, n in zip((x for x in addrs if "cpu-clock" in x), (x for x in syms if "cpu-clock" in x)):
        m = re.match(r"\s*cpu-clock\S*:\s+([0-9a-f]+)\s+(\S+)(.*)", a)
        if m:
            samples.append((int(m.group(1), 16), m.group(2),
                            [(int(f, 16), int(t, 16)) for f, t in entries(m.group(3))],
                            [(f.partition("+0x")[0], t.partition("+0x")[0])
                             for f, t in entries(n.partition(":")[2])]))
    return samples


def check_brstack(run, path):
    """--itrace=L: a branch stack on most samples of the workload, of
    BRSTACK_MAX entries at most, newest first, ending at the sample: its
    newest branch goes to the sampled function, at or before the sampled
    instruction. After the TRBE wrapped (WRAPS), a sample may hold too
    little trace for a branch."""
    samples, stacks, entries, bad = 0, 0, 0, []
    for ip, sym, raw, named in brstack_samples(run, path):
        if sym not in WORKLOAD_FUNCTIONS:
            continue
        samples += 1
        if not raw:
            continue
        stacks += 1
        entries += len(raw)
        to = raw[0][1]
        if (len(raw) > BRSTACK_MAX or len(named) != len(raw) or to > ip or
                named[0][1] != sym):
            bad.append(f"{ip:#x} {sym}: {len(raw)} entries, newest to {to:#x} "
                       f"{named[0][1] if named else '?'}")
    share = 0 if run in WRAPS else BRSTACK_SHARE
    result(samples > 0 and stacks > 0 and stacks >= share * samples and not bad,
           test_name(run, "brstack"),
           f"{stacks} of {samples} samples in {'/'.join(WORKLOAD_FUNCTIONS)} with a branch "
           f"stack, {entries / max(stacks, 1):.1f} entries each; "
           f"not ending at the sample: {len(bad)} {bad[:2]}")


def check_callchain(run, path):
    """--itrace=G: the samples of the workload's functions get call chains
    from the calls and returns of their trace, which name the caller
    (perf report's folded call chains, callee first, with counts): most of
    them, as a sample's trace may start after the call."""
    out = perf(f"{run}.callchain", "report", "-i", path, "--symfs", SYMFS, "--itrace=G",
               "--stdio", "--no-children", "-n", "-g", "folded,0,callee,function,count",
               "--sort", "sym")
    sampled, called, sym = 0, 0, None
    for line in out.splitlines():
        m = re.match(r"\s+[\d.]+%\s+(\d+)\s+\[.\] (\S+)", line)
        if m:
            sym = m.group(2) if m.group(2) in CALLERS else None
            sampled += int(m.group(1)) if sym else 0
            continue
        m = re.match(r"(\d+) ([^;\s]+)", line)
        if m and sym and m.group(2) in CALLERS[sym]:
            called += int(m.group(1))
    # After the TRBE wrapped (WRAPS), a sample may hold too little trace
    # for the call
    share = 0 if run in WRAPS else CALLCHAIN_SHARE
    result(sampled > 0 and called > 0 and called >= share * sampled,
           test_name(run, "callchain"),
           f"{called} of {sampled} samples in {'/'.join(CALLERS)} with their caller "
           f"first in the call chain")


def report_has_branches(out):
    """perf report -b --stdio output shows a branch between the workload's
    functions: a row with one as source and one as target symbol."""
    funcs = "|".join(WORKLOAD_FUNCTIONS)
    return re.search(rf"\] ({funcs})\s.*\] ({funcs})\s", out) is not None


def check_report_branches(run, path):
    """perf report -b and --branch-history with --itrace=L show the
    workload's branches; perf inject --itrace=L writes a file whose branch
    stacks perf report -b reads without --itrace."""
    args = ("-i", path, "--symfs", SYMFS, "--stdio", "--itrace=L")
    out = perf(f"{run}.report-b", "report", "-b", *args, "--sort", "symbol_from,symbol_to")
    result(report_has_branches(out), test_name(run, "report_branch_stack"),
           f"{len(out.splitlines())} lines")
    # Call chains of branches: "symbol +offset" entries under each sample
    out = perf(f"{run}.report-history", "report", "--branch-history", *args)
    found = [f for f in WORKLOAD_FUNCTIONS if re.search(rf"--{f} \+\d+", out)]
    result(len(found) == len(WORKLOAD_FUNCTIONS),
           test_name(run, "report_branch_history"), f"found {found}")
    # perf inject has no --symfs: it finds the workload, whose code the
    # decoder reads, in a build-id cache, as a user's perf archive has it
    buildid = ("--buildid-dir", f"{OUTDIR}/buildid")
    perf(f"{run}.buildid-cache", *buildid, "buildid-cache", "-a", f"{SYMFS}/tests/{WORKLOAD}")
    injected = f"{OUTDIR}/{run}-injected.data"
    perf(f"{run}.inject", *buildid, "inject", "--itrace=L", "-i", path, "-o", injected)
    out = perf(f"{run}.injected-report-b", *buildid, "report", "-b", "-i", injected,
               "--stdio", "--sort", "symbol_from,symbol_to")
    result(report_has_branches(out), test_name(run, "inject_branch_stack"),
           f"{len(out.splitlines())} lines of perf report -b of the injected file")


def check_report(run, path):
    """perf report shows the workload's functions from the trace."""
    out = perf(f"{run}.report", "report", "-i", path, "--symfs", SYMFS, "--stdio",
               "--itrace=i1000", "--sort", "sym")
    section = out.split("of event 'instructions")[-1] if "of event 'instructions" in out else ""
    found = [f for f in WORKLOAD_FUNCTIONS if f in section]
    result(len(found) == len(WORKLOAD_FUNCTIONS),
           test_name(run, "report_functions"),
           f"found {found}")


# perf.data, as far as the crafted files need it
PERF_RECORD_AUX = 11
PERF_RECORD_SAMPLE = 9
PERF_RECORD_AUXTRACE = 71
PERF_AUX_FLAG_COLLISION = 0x08
PERF_AUX_FLAG_CORESIGHT_FORMAT_RAW = 0x100
# The sample_type bits that the samples may have, in the order of their
# fields; any other bit, except AUX (the last field), is refused
SAMPLE_FIELDS = [(1 << 16, "identifier"), (1 << 0, "ip"), (1 << 1, "tid"),
                 (1 << 2, "time"), (1 << 3, "addr"), (1 << 6, "id"),
                 (1 << 9, "stream_id"), (1 << 7, "cpu"), (1 << 8, "period")]
SAMPLE_BITS = {name: bit for bit, name in SAMPLE_FIELDS}
SAMPLE_AUX = 1 << 20
SAMPLE_ID_FIELDS = ("tid", "time", "id", "stream_id", "cpu", "identifier")


class PerfData:
    """The records of a perf.data file, to change and to write out again."""

    def __init__(self, data):
        self.data = bytearray(data)
        assert data[:8] == b"PERFILE2", "not a perf.data file"
        # Each attr is followed by the file section of its ids
        attr_size = self.u64(16) - 16
        attrs_off, attrs_size = self.u64(24), self.u64(32)
        self.data_off, self.data_size = self.u64(40), self.u64(48)
        # attr id -> sample_type
        self.sample_type = {}
        for a in range(attrs_off, attrs_off + attrs_size, attr_size + 16):
            sample_type = self.u64(a + 24)
            ids_off, ids_size = self.u64(a + attr_size), self.u64(a + attr_size + 8)
            for i in range(ids_off, ids_off + ids_size, 8):
                self.sample_type[self.u64(i)] = sample_type
        # (offset, type) of every record in the data section
        self.records = []
        off = self.data_off
        while off < self.data_off + self.data_size:
            rtype, size = struct.unpack_from("<IxxH", self.data, off)
            assert size >= 8 and rtype != PERF_RECORD_AUXTRACE, f"record at {off:#x}"
            self.records.append((off, rtype))
            off += size

    def u64(self, off):
        return struct.unpack_from("<Q", self.data, off)[0]

    def sample(self, off):
        """The fields of the PERF_RECORD_SAMPLE at off: name -> offset."""
        sample_type = self.sample_type[self.u64(off + 8)]
        fields, pos = {}, off + 8
        for bit, name in SAMPLE_FIELDS:
            if sample_type & bit:
                fields[name] = pos
                pos += 8
        assert not sample_type & ~(sum(b for b, _ in SAMPLE_FIELDS) | SAMPLE_AUX)
        if sample_type & SAMPLE_AUX:
            fields["aux_size"] = pos
            fields["aux"] = pos + 8
        return fields

    def aux_samples(self, with_trace=True):
        """The fields of the samples that carry AUX data, with trace unless
        @with_trace is False."""
        samples = []
        for off, rtype in self.records:
            if rtype == PERF_RECORD_SAMPLE and self.u64(off + 8) in self.sample_type:
                f = self.sample(off)
                if "aux" in f and self.u64(f["aux_size"]) and (
                        not with_trace or
                        any(self.data[f["aux"]:f["aux"] + self.u64(f["aux_size"])])):
                    samples.append(f)
        return samples

    def insert(self, off, record):
        """Insert a record before the one at off: the header's feature
        sections, after the data section, move along."""
        n = len(record)
        end = self.data_off + self.data_size
        features = sum(bin(b).count("1") for b in self.data[72:104])
        for i in range(features):
            pos = end + 16 * i
            struct.pack_into("<Q", self.data, pos, self.u64(pos) + n)
        self.data[off:off] = record
        self.data_size += n
        struct.pack_into("<Q", self.data, 48, self.data_size)
        self.records = [(o + n if o >= off else o, t) for o, t in self.records]

    def write(self, path):
        with open(path, "wb") as f:
            f.write(self.data)


def craft_false_async(pd):
    """Zero padding, then a 0x80 byte in the middle of the trace.

    Take a padded sample that starts with an A-Sync and a TraceInfo, zero
    them and the packets after them, and put a 0x80 byte where the zeros
    end, as trace that restarted there would start: the 11 zeros before it
    and the 0x80 look like an A-Sync, but no TraceInfo follows.
    """
    for f in pd.aux_samples():
        aux, size = f["aux"], pd.u64(f["aux_size"])
        data = pd.data[aux:aux + size]
        zeros = len(data) - len(data.lstrip(b"\0"))
        if zeros >= 64 and size - zeros > 256 and data[zeros:zeros + 2] == b"\x80\x01":
            # Not before a TraceInfo header, nor before another zero
            end = zeros + 40
            while data[end + 1] in (0x00, 0x01):
                end += 1
            pd.data[aux + zeros:aux + end] = bytes(end - zeros)
            pd.data[aux + end] = 0x80
            return True
    return False


def craft_foreign_cpu(pd, cpu):
    """The first AUX sample with trace comes from @cpu."""
    f = pd.aux_samples()[0]
    struct.pack_into("<I", pd.data, f["cpu"], cpu)


def insert_aux_records(pd, size, flags):
    """Put a PERF_RECORD_AUX of @size bytes and @flags before the first
    AUX sample for every sampled CPU, with the sample_id of the cs_etm
    event (the event whose samples have no AUX data and which is not the
    dummy event)."""
    samples = pd.aux_samples(with_trace=False)
    cpus = sorted({struct.unpack_from("<I", pd.data, f["cpu"])[0] for f in samples})
    first = samples[0]
    sample_off = first["identifier"] - 8
    fields = {name: bytes(pd.data[off:off + 8]) for name, off in first.items()}
    cs_etm = [i for i, t in pd.sample_type.items()
              if not t & SAMPLE_AUX and t & SAMPLE_BITS["cpu"]]
    ident = cs_etm[0]
    sample_type = pd.sample_type[ident]
    for cpu in cpus:
        sample_id = b""
        for name in SAMPLE_ID_FIELDS:
            if not sample_type & SAMPLE_BITS[name]:
                continue
            if name == "cpu":
                sample_id += struct.pack("<II", cpu, 0)
            elif name in ("identifier", "id"):
                sample_id += struct.pack("<Q", ident)
            elif name == "time":
                time = struct.unpack("<Q", fields["time"])[0]
                sample_id += struct.pack("<Q", time - 1)
            else:
                sample_id += fields.get(name, bytes(8))
        body = struct.pack("<QQQ", 0, size, flags) + sample_id
        record = struct.pack("<IHH", PERF_RECORD_AUX, 0, 8 + len(body)) + body
        pd.insert(sample_off, record)
        sample_off += len(record)


def craft_formatted(pd):
    """PERF_RECORD_AUX records of a formatted sink, on every sampled CPU.

    The trace of a CPU is formatted if its PERF_RECORD_AUX records say so:
    clear PERF_AUX_FLAG_CORESIGHT_FORMAT_RAW in those of the recording
    (there are some when the TRBE filled the AUX area), and put one
    without it before the first sample for every CPU.
    """
    for off, rtype in pd.records:
        if rtype == PERF_RECORD_AUX:
            flags = pd.u64(off + 24) & ~PERF_AUX_FLAG_CORESIGHT_FORMAT_RAW
            struct.pack_into("<Q", pd.data, off + 24, flags)
    insert_aux_records(pd, 4096, 0)


def craft_collision(pd):
    """A PERF_RECORD_AUX of no trace with COLLISION only, as a sink that
    another event holds reports, before the first sample of every CPU:
    it has no format flag."""
    insert_aux_records(pd, 0, PERF_AUX_FLAG_COLLISION)


def craft_shared_sink(pd):
    """What a shared sink (ETR) records: PERF_RECORD_AUX records of
    formatted trace, and AUX samples that the kernel filled with zeros."""
    for f in pd.aux_samples():
        aux, size = f["aux"], pd.u64(f["aux_size"])
        pd.data[aux:aux + size] = bytes(size)
    craft_formatted(pd)


def check_crafted(path):
    """What perf makes of AUX samples that the QEMU model cannot record."""
    with open(path, "rb") as f:
        orig = f.read()
    # Zeros then a 0x80 byte without TraceInfo do not read as an A-Sync; a
    # sample from a CPU without trace metadata, and samples of a formatted
    # sink, are skipped with one warning; a zero-size PERF_RECORD_AUX with
    # COLLISION does not set the trace format; a file of a shared sink
    # reads, with one warning that no sample holds trace
    for name, check in (("false_async", check_false_async),
                        ("foreign_cpu", check_foreign_cpu),
                        ("formatted_sink", check_formatted),
                        ("collision_only_aux", check_collision),
                        ("shared_sink", check_shared_sink)):
        try:
            ok, diag = check(orig)
        except (AssertionError, KeyError, IndexError, struct.error) as e:
            ok, diag = False, f"cannot craft the file: {e!r}"
        result(ok, f"perf_aux_sample.crafted.{name}", diag)


def check_false_async(orig):
    """Padding and a 0x80 byte that is not an A-Sync: skip all the zeros."""
    pd = PerfData(orig)
    crafted = craft_false_async(pd)
    pd.write(f"{OUTDIR}/false-async.data")
    samples = dump_samples(perf("false-async.dump", "report", "-D", "-i",
                                f"{OUTDIR}/false-async.data").splitlines())
    bad = [p[:2] for _, padding, p in samples if padding and false_async(p)]
    return (crafted and len(samples) > 0 and not bad,
            f"crafted {crafted}, {len(samples)} AUX samples; {bad[:1]}")


def script_crafted(orig, name, craft):
    """perf script of a copy of @orig that @craft edited, saved as NAME.*:
    the completed process and the number of branches it printed."""
    pd = PerfData(orig)
    craft(pd)
    pd.write(f"{OUTDIR}/{name}.data")
    p = subprocess.run([PERF, "script", "-i", f"{OUTDIR}/{name}.data",
                        "--symfs", SYMFS, "-F", "tid,cpu,event,ip,sym"],
                       capture_output=True, text=True, errors="replace")
    with open(f"{OUTDIR}/{name}.script", "w") as f:
        f.write(p.stdout + p.stderr)
    return p, len(re.findall(r"branches", p.stdout))


def check_foreign_cpu(orig):
    """A sample from a CPU that perf.data has no metadata of: skipped."""
    p, branches = script_crafted(orig, "foreign-cpu",
                                 lambda pd: craft_foreign_cpu(pd, 8))
    warnings = p.stderr.count(NO_METADATA_WARNING)
    return (p.returncode == 0 and branches > 0 and warnings == 1,
            f"exit {p.returncode}, {branches} branches, {warnings} warnings")


def check_formatted(orig):
    """PERF_RECORD_AUX records of a formatted sink: the samples are
    skipped, and the rest of the file is processed."""
    p, branches = script_crafted(orig, "formatted", craft_formatted)
    warnings = p.stderr.count(FORMATTED_WARNING)
    events = len(p.stdout.splitlines())
    return (p.returncode == 0 and branches == 0 and warnings == 1 and events > 0,
            f"exit {p.returncode}, {branches} branches, {events} lines, {warnings} warnings")


def check_collision(orig):
    """A COLLISION-only PERF_RECORD_AUX on every CPU: still unformatted
    trace, the samples decode."""
    p, branches = script_crafted(orig, "collision", craft_collision)
    formatted = p.stderr.count(FORMATTED_WARNING)
    return (p.returncode == 0 and branches > 0 and not formatted,
            f"exit {p.returncode}, {branches} branches, {formatted} formatted warnings")


def check_shared_sink(orig):
    """All-zero samples and formatted PERF_RECORD_AUX records: perf
    script exits 0 and says once that no sample holds trace."""
    p, branches = script_crafted(orig, "shared-sink", craft_shared_sink)
    no_trace = p.stderr.count(NO_TRACE_WARNING)
    formatted = p.stderr.count(FORMATTED_WARNING)
    events = len(p.stdout.splitlines())
    return (p.returncode == 0 and branches == 0 and no_trace == 1 and not formatted and
            events > 0,
            f"exit {p.returncode}, {branches} branches, {events} lines, {no_trace} no-trace "
            f"and {formatted} formatted warnings")


def check_refused(text, status):
    """A kernel without AUX sampling for cs_etm: perf record says so.

    perf record leaves out an event that the kernel refuses and records
    the others, so it may still exit 0.
    """
    for run in RUNS:
        result(REFUSED_ERROR in run_output(text, run),
               test_name(run, "refused"),
               f"exit {status.get(run)}")


def check_runs(text, status, files):
    for run, size in RUNS.items():
        ok = status.get(run) == 0 and run in files
        result(ok, test_name(run, "recorded"),
               f"exit {status.get(run)}, {len(files.get(run, b''))} bytes")
        if not ok:
            continue
        path = f"{OUTDIR}/{run}.data"
        with open(path, "wb") as f:
            f.write(files[run])
        check_attr(run, path, size)
        check_dump(run, path, size)
        check_order(run, check_script(run, path))
        check_brstack(run, path)
        check_callchain(run, path)
        if run == "aux-sample":
            check_report(run, path)
            check_report_branches(run, path)
            check_crafted(path)

    # A sample that is not larger than the trace's sync period may hold
    # no A-Sync: perf record warns, for 4096 bytes, not for 8192
    for run, size in RUNS.items():
        warned = SMALL_SAMPLE_WARNING in " ".join(run_output(text, run).split())
        result(warned == (size <= 4096),
               test_name(run, "small_sample_warning"),
               f"warned {warned}")

    result(status.get("snapshot", 0) != 0 and
           SNAPSHOT_ERROR in run_output(text, "snapshot"),
           test_name("snapshot", "refused"),
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
