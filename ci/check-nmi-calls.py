#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""What the NMI paths of the cs_etm PMU call, from the built objects.

Usage: check-nmi-calls.py [--objdump PROG] [--nm PROG] OBJECT...

The OBJECTs are the built objects of drivers/hwtracing/coresight (CoreSight
built in, so each .o is one source file). An AUX sample (snapshot_aux) and
AUX pause and resume (stop with PERF_EF_PAUSE, start with PERF_EF_RESUME)
run from the overflow handler of a sampling event, which is NMI context on
arm64 with pseudo-NMIs. There they must take no lock (irqsave does not
mask a pseudo-NMI), not sleep or allocate, and touch nothing of the trace
path but this CPU's source and per-CPU sink: no coresight_enable_path()
or coresight_disable_path(), no helper (CTI) code.

How: `objdump -dr` of the objects gives every direct call: `bl` and tail
calls (`b` to another function), resolved in the object or by their
R_AARCH64_CALL26/JUMP26 relocation. From each root the calls are followed
through the functions of these objects (the "own" functions; CoreSight
is built in, so the calls between its files are relocations to names
these objects define). A call to a function the objects do not define
leaves the own set and is not followed: it must be on ALLOWED below, with
the reason it is NMI-safe. A forbidden function anywhere in the closure,
an external call not on ALLOWED, or an indirect call not on INDIRECT
fails the root.

The roots take their flags: etm_event_stop() and etm_event_start() also
run in normal context for a full stop and start, which enable and disable
the path. So within a function, the argument registers a root or a call
sets to constants are tracked, and a tbz/tbnz/cbz/cbnz on a register of
known value follows its one taken side only. Anything the tracking does
not understand follows both sides: the check can only see more calls than
run, never fewer. Code that the kernel patches at boot (alternatives,
static keys) is followed on both of its ways.

Prints a short report and one KTAP result per root, and one that the
full start and stop (other flags) do reach the path, so that a check
that reads nothing cannot pass; exits 1 on a failure, each one line
"root: caller -> callee: why".
"""
import argparse
import re
import subprocess
import sys
from collections import defaultdict

PERF_EF_PAUSE = 0x08    # include/linux/perf_event.h
PERF_EF_RESUME = 0x10

# The roots, each with the argument registers it is called with from NMI
# context (x1 is the flags argument of ->start() and ->stop()).
#
# - etm_event_snapshot_aux: the ->snapshot_aux() callback, called by perf
#   core from the overflow handler of the sampler.
# - etm_event_stop(event, PERF_EF_PAUSE), etm_event_start(event,
#   PERF_EF_RESUME): perf_event_aux_pause() from the overflow handler. Only
#   these flags come from NMI context (the full start and stop run with IRQs
#   disabled, not from NMI); with them, the AUX action guard
#   (etm_event_aux_begin/etm_event_aux_defer_pause, inlined) and
#   etm_event_aux_end(), which replays a deferred pause or resume through
#   __etm_event_stop(PERF_EF_PAUSE) -> etm_event_pause() and
#   __etm_event_start(PERF_EF_RESUME) -> etm_event_resume(), are followed
#   from here. Rooting at etm_event_pause/etm_event_resume alone is not
#   possible: the compiler inlines etm_event_resume(), the guard helpers and
#   __etm_event_stop(), and etm_event_aux_end() calls __etm_event_start(),
#   whose full start enables the path; following the flags takes exactly
#   the PAUSE and RESUME branches, wherever the compiler put them.
# - The callbacks the NMI paths reach through ops, which cannot be followed
#   from an indirect call (blr), for the per-CPU sink and the source this
#   model has (ETE/ETMv4 and TRBE; a shared sink never gets this far, see
#   etm_event_snapshot_sink() and the per-CPU sink test in
#   etm_event_pause()): source_ops->pause_perf/resume_perf
#   (coresight_pause_source/coresight_resume_source), sink_ops->
#   update_buffer and sink_ops->restart_perf (etm_event_snapshot_aux).
ROOTS = [
    ("etm_event_snapshot_aux", {}),
    ("etm_event_stop", {1: PERF_EF_PAUSE}),
    # the throttle of the group (no flags), from the overflow NMI on a perf
    # core that stops an instruction trace event when throttling (patch 5
    # undone): a pause of the trace, see __etm_event_stop()
    ("etm_event_stop", {1: 0}),
    ("etm_event_start", {1: PERF_EF_RESUME}),
    ("arm_trbe_update_buffer", {}),
    ("arm_trbe_restart_perf", {}),
    ("etm4_pause_perf", {}),
    ("etm4_resume_perf", {}),
    # coresight_timeout_action() polls TRCSTATR through csa->read and calls
    # cb between reads: for the ETE (system register access) these are
    # ete_sysreg_read and etm4x_sys_ins_barrier (etm4x_wait_status()); an
    # ETMv4 with system register access reads with etm4x_sysreg_read
    ("ete_sysreg_read", {}),
    ("etm4x_sysreg_read", {}),
    ("etm4x_sys_ins_barrier", {}),
]

# The full start and stop (no flags, PERF_EF_UPDATE): they must reach the
# path, or the check reads nothing.
CANARIES = [
    ("etm_event_start", {1: 0}, "coresight_enable_path"),
    ("etm_event_stop", {1: 0x04}, "coresight_disable_path"),
]

# The functions of the closure that call through a pointer, and what: each
# target is a root above (or not reached for a per-CPU sink). An indirect
# call anywhere else fails, as the check cannot see where it goes.
INDIRECT = {
    "etm_event_snapshot_aux": "sink_ops->update_buffer, ->restart_perf: TRBE roots",
    # update_buffer of a shared sink (ETR, ETF, ETB) on AUX pause: a
    # per-CPU sink returns before it. Out of the scope of this check, which
    # covers the per-CPU sink; the shared sinks take their drvdata spinlock
    # there (tmc_update_etr_buffer)
    "etm_event_pause": "sink_ops->update_buffer: shared sinks only, a per-CPU sink returns before",
    "coresight_pause_source": "source_ops->pause_perf: etm4_pause_perf",
    "coresight_resume_source": "source_ops->resume_perf: etm4_resume_perf",
    "coresight_timeout_action": "csa->read, cb: ete_sysreg_read/etm4x_sysreg_read, etm4x_sys_ins_barrier",
}

# Never from NMI context: the path and its helpers, locks, sleeping,
# allocation.
FORBIDDEN = re.compile(
    r"^(coresight_(enable|disable)_path(_from_to)?"
    r"|cti_.*|.*helpers?_(enable|disable).*|.*(enable|disable)_helpers?"
    r"|.*spin_lock.*|.*_raw_(read|write)_lock.*|mutex_.*|down.*|up_(read|write)"
    r"|.*kmalloc.*|.*kzalloc.*|.*kcalloc.*|kmem_cache_alloc.*|.*vmalloc.*|__get_free_pages|alloc_pages.*"
    r"|kfree|vfree"
    r"|schedule.*|might_sleep|__might_sleep|__might_resched|msleep.*|usleep_range.*"
    r"|synchronize_.*|wait_for_.*)$")

# Calls out of drivers/hwtracing/coresight that the NMI paths may make,
# each with why it is safe in NMI context.
ALLOWED = {
    # perf core AUX output, made to be called from PMU interrupts, which are
    # NMIs (intel_pt and arm_spe end and begin their handle from their PMI):
    # lockless on the ring buffer, whose only writer is this CPU
    "perf_aux_output_begin": "AUX ring, lockless, this CPU writes (intel_pt/arm_spe PMIs call it)",
    "perf_aux_output_end": "AUX ring, lockless, this CPU writes (intel_pt/arm_spe PMIs call it)",
    "perf_aux_output_skip": "AUX ring, lockless, this CPU writes (a perf_aux_output_end of padding)",
    "perf_aux_output_flag": "sets a bit in the handle's aux_flags",
    "perf_get_aux": "reads handle->event and rb->aux_priv, no side effect",
    # the sample record perf core reserved in the overflow handler (NMI)
    "perf_output_zero": "writes the reserved sample record, no lock (perf_output_sample's helpers)",
    "perf_output_copy_aux": "copies AUX ring to the reserved record; intel_pt's snapshot_aux calls it in NMI",
    # messages: printk stores the record locklessly and defers the console
    # from NMI (printk_deferred/nbcon)
    "_dev_err": "dev_err(): printk, which is NMI-safe (console output deferred)",
    # memory and time only
    "memset": "plain memory (TRBE padding)",
    "__const_udelay": "udelay(): a busy-wait on the counter, no sleep or lock (coresight_timeout polls)",
    # pr_warn_ratelimited() of a system register the sysreg accessors do
    # not know (a driver bug; TRCSTATR is known)
    "_printk": "printk: the record is stored locklessly, the console deferred from NMI",
    "___ratelimit": "raw_spin_trylock only: on contention it falls back to an atomic count, never spins",
}


def run(cmd):
    return subprocess.run(cmd, check=True, capture_output=True, text=True).stdout


INSN = re.compile(r"^\s*([0-9a-f]+):\t(\S+)(?:\t(.*))?$")
RELOC = re.compile(r"^\s*([0-9a-f]+): (R_AARCH64_\w+)\s+(\S+)$")
LABEL = re.compile(r"^([0-9a-f]+) <(.+)>:$")
SECTION = re.compile(r"^Disassembly of section (\S+):$")
FILE = re.compile(r"^(\S+):\s+file format ")
TARGET = re.compile(r"^([0-9a-f]+)(?: <[^>]*>)?$")
SECREF = re.compile(r"^(\.[\w.]+)\+0x([0-9a-f]+)$")
REG = re.compile(r"^[wx](\d+)$")
BRANCHES = ("b", "bl", "cbz", "cbnz", "tbz", "tbnz")
NO_WRITE = {"cmp", "cmn", "tst", "ccmp", "ccmn", "ret", "prfm", "dmb", "dsb", "isb",
            "nop", "hint", "brk", "msr", "sys", "tlbi", "dc", "ic", "bti", "csdb", "sb",
            "yield", "wfe", "wfi", "sev", "sevl", "esb", "udf",
            "paciasp", "autiasp", "pacibsp", "autibsp", "xpaclri", "b", "bl", "br",
            "blr", "cbz", "cbnz", "tbz", "tbnz", ".word", ".inst"}
STORE_STATUS = {"stxr", "stlxr", "stxrb", "stlxrb", "stxrh", "stlxrh", "stxp", "stlxp"}
PAIR_LOAD = {"ldp", "ldnp", "ldpsw", "ldxp", "ldaxp"}
ATOMIC = re.compile(r"^(cas|swp|ld(add|clr|eor|set|smax|smin|umax|umin))")


class Obj:
    def __init__(self, path):
        self.path = path
        self.name = path.rsplit("/", 1)[-1]
        self.insns = defaultdict(dict)   # section -> off -> (mnem, ops)
        self.relocs = defaultdict(dict)  # section -> off -> symbol
        self.funcs = {}                  # name -> (section, start, end)
        self.starts = defaultdict(list)  # section -> sorted [(start, name)]
        self.extra = defaultdict(set)    # (section, off) -> branch targets
        self.fallthrough = set()         # (section, off): a b that may be a nop
        self.alt_code = {}               # (section, off) -> [(section, off)] replacement code

    def func_at(self, sec, off):
        best = None
        for start, name in self.starts[sec]:
            if start > off:
                break
            best = name
        if best is None or off >= self.funcs[best][2]:
            return None
        return best


def parse_disassembly(objs, objdump):
    text = run([objdump, "-dr", "--no-show-raw-insn"] + [o.path for o in objs])
    by_name = {o.path: o for o in objs}
    cur = sec = None
    for line in text.splitlines():
        m = FILE.match(line)
        if m and m.group(1) in by_name:
            cur = by_name[m.group(1)]
            continue
        m = SECTION.match(line)
        if m:
            sec = m.group(1)
            continue
        m = LABEL.match(line)
        if m:
            cur.starts[sec].append((int(m.group(1), 16), m.group(2)))
            continue
        m = RELOC.match(line)
        if m:
            cur.relocs[sec][int(m.group(1), 16)] = m.group(3)
            continue
        m = INSN.match(line)
        if m:
            cur.insns[sec][int(m.group(1), 16)] = (m.group(2), (m.group(3) or "").split("//")[0].strip())
    for o in objs:
        for sec, starts in o.starts.items():
            starts.sort()
            ends = [s for s, _ in starts[1:]] + [max(o.insns[sec], default=0) + 4]
            for (start, name), end in zip(starts, ends):
                o.funcs[name] = (sec, start, end)


def secref(o, ref):
    """(section, offset) of a relocation value like .text+0x25c"""
    m = SECREF.match(ref)
    if m:
        return m.group(1), int(m.group(2), 16)
    if ref in o.funcs:
        return o.funcs[ref][0], o.funcs[ref][1]
    return None


def parse_patch_sites(objs, objdump):
    """Alternatives and static keys: code the kernel rewrites at boot"""
    by_name = {o.path: o for o in objs}
    paths = [o.path for o in objs]
    relocs = defaultdict(lambda: defaultdict(dict))
    data = defaultdict(bytearray)
    cur = sec = None
    # objdump exits 1 when an object lacks a section of -j: read its output
    rel = subprocess.run([objdump, "-r", "-j", ".altinstructions", "-j", "__jump_table"] + paths,
                         capture_output=True, text=True).stdout
    for line in rel.splitlines():
        m = FILE.match(line)
        if m and m.group(1) in by_name:
            cur, sec = by_name[m.group(1)], None
            continue
        m = re.match(r"^RELOCATION RECORDS FOR \[(\S+)\]:", line)
        if m:
            sec = m.group(1)
            continue
        m = re.match(r"^([0-9a-f]+) (R_AARCH64_\w+)\s+(\S+)$", line)
        if m and cur and sec:
            relocs[cur.path][sec][int(m.group(1), 16)] = m.group(3)
    dump = subprocess.run([objdump, "-s", "-j", ".altinstructions"] + paths,
                          capture_output=True, text=True).stdout
    for line in dump.splitlines():
        m = FILE.match(line)
        if m and m.group(1) in by_name:
            cur = by_name[m.group(1)]
            continue
        m = re.match(r"^ ([0-9a-f]{4,}) ((?:[0-9a-f]{2,8} ?){1,4})", line)
        if m and cur:
            data[cur.path] += bytes.fromhex(m.group(2).replace(" ", ""))
    for o in objs:
        relocs_o, data_o = relocs[o.path], data[o.path]
        # struct alt_instr: s32 orig_offset, s32 alt_offset, u16 cpucap,
        # u8 orig_len, u8 alt_len
        for off in range(0, len(data_o) - 11, 12):
            orig = secref(o, relocs_o[".altinstructions"].get(off, ""))
            alt = secref(o, relocs_o[".altinstructions"].get(off + 4, ""))
            orig_len, alt_len = data_o[off + 10], data_o[off + 11]
            if not orig:
                continue
            for i in range(0, orig_len, 4):
                o.fallthrough.add((orig[0], orig[1] + i))
            if alt and alt_len:
                o.alt_code[(orig[0], orig[1])] = [(alt[0], alt[1] + i) for i in range(0, alt_len, 4)]
        # struct jump_entry: s32 code, s32 target, long key
        jt = relocs_o["__jump_table"]
        for off in sorted(jt):
            if off % 16 == 0 and off + 4 in jt:
                code, target = secref(o, jt[off]), secref(o, jt[off + 4])
                if code and target:
                    o.extra[code].add(target)
                    o.fallthrough.add(code)


class Checker:
    def __init__(self, objs, globals_):
        self.objs = objs
        self.globals = globals_           # name -> Obj defining it (global)
        self.memo = {}

    def resolve(self, o, sec, off, ops):
        """The target of a branch at (sec, off): (obj, func, offset) or (None, name, 0)"""
        ref = o.relocs[sec].get(off)
        if ref is not None:
            where = secref(o, ref) if ref.startswith(".") else None
            if where is None:
                name = ref.split("+")[0]
                if name in o.funcs:
                    return o, name, o.funcs[name][1]
                if name in self.globals:
                    g = self.globals[name]
                    return g, name, g.funcs[name][1]
                return None, name, 0
            tsec, toff = where
        else:
            m = TARGET.match(ops.split(", ")[-1])
            if not m:
                return None, "?" + ops, 0
            tsec, toff = sec, int(m.group(1), 16)
        name = o.func_at(tsec, toff)
        if name is None:
            return None, f"{o.name}:{tsec}+{toff:#x}", 0
        return o, name, toff

    def analyse(self, o, fname, args):
        """Calls reachable in fname entered with the known registers args"""
        key = (o.name, fname, tuple(sorted(args.items())))
        if key in self.memo:
            return self.memo[key]
        sec, start, end = o.funcs[fname]
        insns = o.insns[sec]
        calls, indirect = [], 0
        seen = set()
        work = [(start, tuple(sorted(args.items())))]
        whole = False
        while work:
            off, state = work.pop()
            if (off, state) in seen or not start <= off < end or off not in insns:
                continue
            seen.add((off, state))
            regs = dict(state)
            mnem, ops = insns[off]
            nxt = [off + 4]
            alt = o.alt_code.get((sec, off), [])
            for asec, aoff in alt:
                am, aops = o.insns[asec].get(aoff, ("", ""))
                if am in BRANCHES or am.startswith("b."):
                    to, tname, toff = self.resolve(o, asec, aoff, aops)
                    if to is o and tname == fname:
                        nxt.append(toff)
                    else:
                        calls.append((to, tname, {}))
                elif am in ("blr", "br"):
                    indirect += 1
            ops_l = [x.strip() for x in re.split(r",\s*(?![^\[]*\])", ops)] if ops else []
            if mnem in BRANCHES or mnem.startswith("b."):
                to, tname, toff = self.resolve(o, sec, off, ops)
                intra = to is o and tname == fname and mnem != "bl"
                known = {r: v for r, v in regs.items() if r <= 7}
                if not intra:
                    calls.append((to, tname, known))
                if mnem == "bl":
                    pass
                elif mnem == "b":
                    nxt = [toff] if intra else []
                    if (sec, off) in o.fallthrough:
                        nxt.append(off + 4)
                else:
                    taken = self.decide(mnem, ops_l, regs)
                    if intra:
                        nxt = {True: [toff], False: [off + 4], None: [toff, off + 4]}[taken]
            elif mnem == "ret":
                nxt = []
            elif mnem == "blr":
                indirect += 1
            elif mnem == "br":
                # a switch table (adr of the table base just before) goes
                # anywhere in the function; any other br is a tail call
                # through a pointer
                if any(insns.get(off - d, ("",))[0] == "adr" for d in (4, 8, 12)):
                    whole = True
                else:
                    indirect += 1
                nxt = []
            nxt += sorted(o.extra.get((sec, off), ()))
            if mnem in ("bl", "blr", "hvc", "smc", "svc"):
                # what a call (or SMCCC firmware call) leaves: x19-x28
                regs = {r: v for r, v in regs.items() if 19 <= r <= 28}
            else:
                self.writes(mnem, ops_l, regs)
            new = tuple(sorted(regs.items()))
            for n in nxt:
                if isinstance(n, tuple):
                    if n[0] == sec:
                        work.append((n[1], new))
                else:
                    work.append((n, new))
        if whole:
            for off, (mnem, ops) in insns.items():
                if start <= off < end and (mnem in BRANCHES or mnem.startswith("b.")):
                    to, tname, _ = self.resolve(o, sec, off, ops)
                    if not (to is o and tname == fname and mnem != "bl"):
                        calls.append((to, tname, {}))
        res = (calls, indirect, bool(args) and self.pruned(o, fname, seen))
        self.memo[key] = res
        return res

    def pruned(self, o, fname, seen):
        sec, start, end = o.funcs[fname]
        return {off for off, _ in seen} != {x for x in o.insns[sec] if start <= x < end}

    @staticmethod
    def decide(mnem, ops, regs):
        """True/False if the conditional branch is known taken or not"""
        m = REG.match(ops[0]) if ops else None
        if not m or int(m.group(1)) not in regs:
            return None
        v = regs[int(m.group(1))]
        if ops[0].startswith("w"):
            v &= 0xffffffff
        if mnem in ("cbz", "cbnz"):
            return (v == 0) == (mnem == "cbz")
        if mnem in ("tbz", "tbnz"):
            bit = (v >> int(ops[1].lstrip("#"), 0)) & 1
            return (bit == 0) == (mnem == "tbz")
        return None

    @staticmethod
    def writes(mnem, ops, regs):
        """Update the known registers for one instruction"""
        def reg(x):
            m = REG.match(x)
            return int(m.group(1)) if m else None

        def imm(x):
            return int(x.lstrip("#"), 0) if x.startswith("#") and " " not in x else None

        for x in ops:       # writeback to the base register
            if x.endswith("]!") or (x.startswith("[") and x.endswith("]") and ops[-1] != x):
                b = reg(x.strip("[]!").split(",")[0].strip())
                if b is not None:
                    regs.pop(b, None)
        if mnem in NO_WRITE or mnem.startswith("b.") or not ops:
            return
        if mnem.startswith("st") and mnem not in STORE_STATUS:
            return
        d = reg(ops[0])
        if ATOMIC.match(mnem):
            for x in ops:
                r = reg(x)
                if r is not None:
                    regs.pop(r, None)
            return
        if mnem in PAIR_LOAD and len(ops) > 1 and reg(ops[1]) is not None:
            regs.pop(reg(ops[1]), None)
        if d is None:
            return
        value = None
        if mnem == "mov" and len(ops) == 2:
            src = reg(ops[1])
            value = imm(ops[1]) if src is None else regs.get(src)
            if ops[1] in ("wzr", "xzr"):
                value = 0
        elif mnem == "and" and len(ops) == 3 and reg(ops[1]) in regs and imm(ops[2]) is not None:
            value = regs[reg(ops[1])] & imm(ops[2])
        if value is None:
            regs.pop(d, None)
        else:
            regs[d] = value if ops[0].startswith("x") else value & 0xffffffff

    def closure(self, root, args):
        """Own functions reached, external calls, failures"""
        o = next((g for g in [self.globals.get(root)] if g),
                 next((x for x in self.objs if root in x.funcs), None))
        if o is None:
            return None
        reached, external, failures, pruned = set(), set(), [], []
        work = [(o, root, args, "(root)")]
        done = set()
        while work:
            o, fname, a, caller = work.pop()
            if FORBIDDEN.match(fname):
                failures.append(f"{caller} -> {fname}: forbidden in NMI context")
                reached.add(fname)
                continue    # one line for it, not one for each of its calls
            key = (o.name, fname, tuple(sorted(a.items())))
            if key in done:
                continue
            done.add(key)
            reached.add(fname)
            calls, indirect, was_pruned = self.analyse(o, fname, a)
            if was_pruned:
                skipped = ({c for _, c, _ in self.analyse(o, fname, {})[0]}
                           - {c for _, c, _ in calls})
                if skipped:
                    pruned.append(f"{fname}({', '.join(f'x{r}={v:#x}' for r, v in sorted(a.items()))})"
                                  f" does not reach {', '.join(sorted(skipped))}")
            if indirect and fname not in INDIRECT:
                failures.append(f"{fname} -> (indirect call): not on INDIRECT, cannot be followed")
            for to, callee, ca in calls:
                if to is not None:
                    work.append((to, callee, ca, fname))
                    continue
                external.add((fname, callee))
                if FORBIDDEN.match(callee):
                    failures.append(f"{fname} -> {callee}: forbidden in NMI context")
                elif callee not in ALLOWED:
                    failures.append(f"{fname} -> {callee}: leaves drivers/hwtracing/coresight, not on ALLOWED")
        return reached, external, sorted(set(failures)), sorted(set(pruned))


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--objdump", default="aarch64-linux-gnu-objdump")
    ap.add_argument("--nm", default="aarch64-linux-gnu-nm")
    ap.add_argument("objects", nargs="+")
    opts = ap.parse_args()

    objs = [Obj(p) for p in opts.objects]
    parse_disassembly(objs, opts.objdump)
    parse_patch_sites(objs, opts.objdump)
    globals_ = {}
    cur = None
    for line in run([opts.nm, "--defined-only"] + opts.objects).splitlines():
        if line.endswith(":") and not line.startswith(" "):
            cur = next(o for o in objs if o.path == line[:-1])
        parts = line.split()
        if len(parts) == 3 and parts[1] in "TW" and cur and parts[2] in cur.funcs:
            globals_[parts[2]] = cur
    checker = Checker(objs, globals_)

    print("KTAP version 1")
    print(f"# nmi-calls: what the NMI paths of cs_etm call, in {len(objs)} objects")
    print(f"1..{len(ROOTS) + 1}")
    total_reached, total_ext, failed = set(), set(), 0
    for i, (root, args) in enumerate(ROOTS, 1):
        flags = "".join(f", x{r}={v:#x}" for r, v in args.items())
        # No path, helper, lock, sleep or allocation reachable from root
        name = "nmi_calls." + root + "".join(f".x{r}_{v:#x}" for r, v in args.items())
        res = checker.closure(root, args)
        if res is None:
            print(f"# {root}: not in the objects")
            print(f"not ok {i} {name}")
            failed += 1
            continue
        reached, external, failures, pruned = res
        total_reached |= reached
        total_ext |= external
        out = sorted({c for _, c in external})
        print(f"# {root}: {len(reached)} functions ({', '.join(sorted(reached))});"
              f" calls out to {len(out)}: {', '.join(out) or 'none'}")
        for p in pruned:
            print(f"#   by its flags, {p}")
        for f in failures:
            print(f"# {root}: {f}")
            print(f"{root}: {f}", file=sys.stderr)
        print(f"{'not ok' if failures else 'ok'} {i} {name}")
        failed += bool(failures)
    # The check sees what it must: without the NMI flags, the full start
    # and stop reach the path. If they do not, the disassembly was not read
    # right and every root above would pass for nothing.
    canary = []
    for root, args, want in CANARIES:
        res = checker.closure(root, args)
        hits = {f.split(" -> ")[1].split(":")[0] for f in (res[2] if res else [])}
        if want not in hits:
            canary.append(f"{root}({', '.join(f'x{r}={v:#x}' for r, v in args.items())}) does not reach {want}")
    for c in canary:
        print(f"# {c}")
        print(f"canary: {c}", file=sys.stderr)
    print(f"{'not ok' if canary else 'ok'} {len(ROOTS) + 1} nmi_calls.canaries")
    failed += bool(canary)
    print(f"# closure: {len(total_reached)} functions of drivers/hwtracing/coresight: "
          + ", ".join(sorted(total_reached)))
    print(f"# calls out of it ({len(total_ext)} callers and callees):")
    for caller, callee in sorted(total_ext):
        why = ALLOWED.get(callee, "NOT ALLOWED")
        print(f"#   {caller} -> {callee}: {why}")
    unused = sorted(set(ALLOWED) - {c for _, c in total_ext})
    if unused:
        print(f"# on ALLOWED, not called: {', '.join(unused)}")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
