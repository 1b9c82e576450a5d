#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Read the KTAP results of boot logs and of host checks, strictly.

Usage: ktap-results.py [--allow-skip-test TEST REASON]...
                       [--allow-skip-uncounted REASON]...
                       [--allow-skip REASON]... [--summary FILE]
                       [--tests FILE] [--only REGEX] [--exclude REGEX]
                       [--require-kunit] LOG...

A LOG is a boot log (it has the "# boot tests:" lines of
tools/initramfs/init.c) or a file of KTAP that a host check printed.

Of a boot log it reads the KUnit KTAP that the kernel printed before init
and, one after the other, the KTAP of every program init ran, each closed
by init's line with the program's exit status. Every KTAP document, and
every subtest in it, must have a plan, and as many results as its plan
says. It is a failure when:
  - a plan is missing or does not match the results (a crash, an early
    exit, a hang cut short);
  - a program printed no KTAP, exited non-zero without a failed test,
    was killed by a signal, could not run or did not finish;
  - init could not list its programs, found none, ran a different number
    than it listed (none included), or did not reach its end;
  - the kernel printed no KUnit results in the boot log after
    --require-kunit (the other boots run with kunit.enable=0);
  - a test is skipped, unless --allow-skip-test names that test with
    that reason (a skip is for a machine that lacks something by design;
    the test says which), --allow-skip-uncounted that reason for a test
    that another stage counts (below), or --allow-skip it for any test;
  - one test name is read twice (each test counts once).
Only leaf results count: a result that closes a subtest is not a test of
its own, unless it says "not ok" while none of its subtests failed.

The kselftest runner (run_kselftest.sh) nests each test program's KTAP
under "# " rather than an indent, and closes it with one result per
program: such a nested document is read as a subtest, plan included.

Where one boot runs tests that another stage counts (the kselftests of
a shared sink skip with TRBEs and run on the ETR), --only and --exclude
say which results this stage counts: a passed or skipped test whose name
does not match --only, or matches --exclude, is read but not counted. A
failure always counts.

Prints "FAILED: NAME" for every failure, under it the last diagnostic
lines ("# ...") the test printed before its result, and, last, "N passed, N failed,
N skipped"; exits 1 on a failure. --summary FILE also writes that line
to FILE, for ci/results.sh to add up, and --tests FILE the names of the
tests counted, one a line, for ci/results.sh to find a test counted in
two rows. The summary is written last: no summary, a crash.
"""
import re
import sys

DIAG_SHOWN = 8         # diagnostic lines shown under a failure
TIME = re.compile(r"^\[\s*\d+\.\d+\] ?")
VERSION = re.compile(r"^(KTAP|TAP) version \d+$")
PLAN = re.compile(r"^1\.\.(\d+)$")
# A result; after "#" a directive (SKIP, TODO) with its reason, or a
# comment such as kselftest's "# exit=1"
RESULT = re.compile(r"^(not ok|ok) (\d+)(?: -)? ?([^#]*?)\s*(?:#\s*(?:(SKIP|TODO)\b\s*)?(.*))?$")
SUBTEST = re.compile(r"^# Subtest: (.*)$")
NESTED_VERSION = re.compile(r"^# (KTAP|TAP) version \d+$")
# tools/initramfs/init.c
INIT_START = "# boot tests: start"
INIT_COUNT = re.compile(r"^# boot tests: (\d+) programs$")
INIT_CANNOT = "# boot tests: cannot list"
INIT_DONE = "# boot tests: done"
PROG_START = re.compile(r"^# boot test: (\S+)$")
PROG_END = re.compile(r"^# boot test: (\S+) (exit (\d+)|killed by signal (\d+)|could not run)$")


class Results:
    def __init__(self, allow_skip, only=None, exclude=None, allow_skip_test=None,
                 allow_skip_uncounted=()):
        self.allow_skip = allow_skip
        self.allow_skip_test = allow_skip_test or {}
        self.allow_skip_uncounted = allow_skip_uncounted
        self.only, self.exclude = only, exclude
        self.counts = {"passed": 0, "failed": 0, "skipped": 0}
        self.seen = set()
        self.tests = []         # the names of the tests counted, in order
        self.failures = []
        self.diagnostics = {}   # failure: the last diagnostic lines before it

    def add(self, name, status, why="", diag=()):
        if name in self.seen:
            status, why = "failed", "counted twice"
        self.seen.add(name)
        if status == "skipped" and not self.may_skip(name, why):
            if name in self.allow_skip_test:
                why = f"skipped ({why}), but it may skip only with: {self.allow_skip_test[name]}"
            else:
                why = f"skipped ({why}), but this boot must run it"
            status = "failed"
        if status != "failed" and not self.counted(name):
            return      # another stage counts it; a failure always counts
        self.counts[status] += 1
        self.tests.append(name)
        if status == "failed":
            failure = f"{name}: {why}" if why else name
            self.failures.append(failure)
            self.diagnostics[failure] = list(diag)[-DIAG_SHOWN:]

    def may_skip(self, name, why):
        if why in self.allow_skip_uncounted and not self.counted(name):
            return True
        return why in self.allow_skip or self.allow_skip_test.get(name) == why

    def counted(self, name):
        if self.only and not self.only.search(name):
            return False
        return not (self.exclude and self.exclude.search(name))

    def fail(self, what, why):
        """A failure of the run itself rather than of a test"""
        self.counts["failed"] += 1
        self.failures.append(f"{what}: {why}")


def split_indent(line):
    """(indent, text) of a KTAP line; KUnit nests by 4 spaces (or a tab)"""
    text = line.lstrip(" \t")
    ws = line[:len(line) - len(text)].replace("\t", "    ")
    return len(ws), text


def unnest_kselftest(lines):
    """Indent the KTAP that kselftest's runner nests under "# " by 4 spaces.

    A nested document starts at "# TAP version N" and ends at the next
    result, plan or version line without the "# " (the runner's result of
    the program), or at a line of init; kernel messages in between keep
    their place.
    """
    out, nested = [], False
    for line in lines:
        if not nested:
            nested = bool(NESTED_VERSION.match(line))
        elif (RESULT.match(line) or PLAN.match(line) or VERSION.match(line) or
              line.startswith("# boot test")):
            nested = False
        if nested and line.startswith("#"):
            line = "    " + line[2:]
        out.append(line)
    return out


def parse_doc(lines, pos, indent, prefix, results, label=None):
    """Parse the KTAP document or subtest at @indent from lines[pos].

    Returns (position after it, whether a result in it failed, how many
    leaf results it had). Lines that are not KTAP at this indent (kernel
    messages, diagnostics) are skipped.
    """
    plan = None
    count = 0           # results at this level
    leaves = 0
    failed = False
    pending = None      # (failed, leaves) of the subtest before its closing result
    diag = []           # diagnostic lines since the last result
    name = prefix
    while pos < len(lines):
        ind, text = split_indent(lines[pos])
        if ind > indent and (VERSION.match(text) or SUBTEST.match(text)):
            pos, sub_failed, sub_leaves = parse_doc(lines, pos, ind, name, results, label)
            pending = (sub_failed, sub_leaves)
            continue
        if ind < indent and (RESULT.match(text) or VERSION.match(text)):
            break       # the result that closes this subtest, or a new document
        if ind != indent:
            pos += 1
            continue
        if VERSION.match(text):
            if plan is not None or count:
                break   # the next document
            pos += 1
            continue
        m = SUBTEST.match(text)
        if m and plan is None and not count:
            name = f"{prefix}.{m.group(1)}" if prefix else m.group(1)
            pos += 1
            continue
        m = PLAN.match(text)
        if m and plan is None and not count:
            plan = int(m.group(1))
            pos += 1
            continue
        m = RESULT.match(text)
        if not m:
            if text.startswith("#"):
                diag.append(text)
            pos += 1
            continue
        pos += 1
        count += 1
        ok, test, directive, why = m.group(1) == "ok", m.group(3), m.group(4), m.group(5)
        full = f"{name}.{test}" if name else test
        if pending and pending[1]:
            # closes a subtest whose own results have been counted
            if not ok and not pending[0]:
                results.fail(full, "not ok, but none of its subtests failed")
            failed |= not ok
            leaves += pending[1]
        else:
            if directive == "SKIP":
                results.add(full, "skipped", why.strip())
            else:
                results.add(full, "passed" if ok else "failed", diag=diag)
            failed |= not ok
            leaves += 1
        pending = None
        diag = []
    if pending:
        leaves += pending[1]    # a subtest cut short, never closed
    where = f"{label}: {name}" if label and name else label or name or "KTAP"
    if plan is None and indent == 0:
        # KUnit prints no plan for the cases of a parameterised test, as
        # KTAP allows for a subtest; a document must have one
        results.fail(where, "no plan (1..N)")
        failed = True
    elif plan is not None and count != plan:
        results.fail(where, f"plan 1..{plan}, but {count} results")
        failed = True
    return pos, failed, leaves


def parse_docs(lines, results, label, none="no KTAP document"):
    """Parse every KTAP document in @lines; (documents, leaf results, failed).

    A failure @none of @label if there is no document (unless @none is
    None), "no results" if the documents have no result.
    """
    docs = leaves = 0
    failed = False
    pos = 0
    while pos < len(lines):
        ind, text = split_indent(lines[pos])
        if ind == 0 and VERSION.match(text):
            pos, doc_failed, doc_leaves = parse_doc(lines, pos, 0, "", results, label)
            docs += 1
            leaves += doc_leaves
            failed |= doc_failed
        else:
            pos += 1
    if not docs and none:
        results.fail(label, none)
    elif docs and not leaves:
        results.fail(label, "no results")
    return docs, leaves, failed


def parse_kunit(lines, results, require):
    """The KUnit KTAP the kernel printed before init started"""
    parse_docs(lines, results, "KUnit",
               "the kernel printed no KUnit results" if require else None)


def parse_boot(lines, results, require_kunit):
    start = lines.index(INIT_START)
    parse_kunit(lines[:start], results, require_kunit)
    listed = None
    ran = 0
    prog = None
    body = []
    for line in lines[start + 1:]:
        if prog is None:
            m = INIT_COUNT.match(line)
            if m:
                listed = int(m.group(1))
            elif line.startswith(INIT_CANNOT):
                results.fail("init", line[2:])
            elif PROG_START.match(line):
                prog = PROG_START.match(line).group(1)
                body = []
            elif line == INIT_DONE:
                break
            continue
        m = PROG_END.match(line)
        if m and m.group(1) == prog:
            check_program(prog, body, m, results)
            ran += 1
            prog = None
        else:
            body.append(line)
    else:
        if prog is not None:
            check_program(prog, body, None, results)
            ran += 1
        results.fail("init", "did not reach the end of the boot tests")
    if listed is None:
        results.fail("init", "did not say how many programs it found")
    elif listed == 0:
        results.fail("init", "found no boot test programs")
    elif listed != ran:
        results.fail("init", f"listed {listed} programs, ran {ran}")


def check_program(prog, body, end, results):
    """One program's KTAP, then the exit status init saw"""
    name = prog.rsplit("/", 1)[-1]
    _, _, failed = parse_docs(body, results, name, "printed no KTAP")
    if end is None:
        results.fail(name, "did not finish (the boot ended or hung)")
    elif end.group(4):
        results.fail(name, f"killed by signal {end.group(4)}")
    elif end.group(3) is None:
        results.fail(name, "could not run")
    elif end.group(3) != "0" and not failed:
        results.fail(name, f"exit {end.group(3)} without a failed test")


def read_log(path, results, require_kunit):
    with open(path, errors="replace") as f:
        lines = unnest_kselftest([TIME.sub("", raw.rstrip("\r\n")) for raw in f])
    if INIT_START in lines:
        parse_boot(lines, results, require_kunit)
        return
    parse_docs(lines, results, path.rsplit("/", 1)[-1])


def main(argv):
    allow, summary, require_kunit, logs = set(), None, False, []
    allow_test, allow_uncounted, tests = {}, set(), None
    only = exclude = None
    while argv:
        arg = argv.pop(0)
        if arg == "--allow-skip":
            allow.add(argv.pop(0))
        elif arg == "--allow-skip-test" and len(argv) >= 2:
            test = argv.pop(0)
            allow_test[test] = argv.pop(0)
        elif arg == "--allow-skip-uncounted":
            allow_uncounted.add(argv.pop(0))
        elif arg == "--tests":
            tests = argv.pop(0)
        elif arg == "--only":
            only = re.compile(argv.pop(0))
        elif arg == "--exclude":
            exclude = re.compile(argv.pop(0))
        elif arg == "--summary":
            summary = argv.pop(0)
        elif arg == "--require-kunit":
            require_kunit = True        # of the next LOG
        elif arg.startswith("--"):
            print(__doc__)
            return 2
        else:
            logs.append((arg, require_kunit))
            require_kunit = False
    if not logs:
        print(__doc__)
        return 2
    results = Results(allow, only, exclude, allow_test, allow_uncounted)
    for path, kunit in logs:
        read_log(path, results, kunit)
    for name in results.failures:
        print(f"FAILED: {name}")
        for line in results.diagnostics.get(name, ()):
            print(f"    {line}")
    c = results.counts
    if not sum(c.values()):
        print("FAILED: no tests at all")
        c["failed"] += 1
    line = f"{c['passed']} passed, {c['failed']} failed, {c['skipped']} skipped"
    if tests:
        with open(tests, "w") as f:
            f.writelines(name + "\n" for name in results.tests)
    if summary:
        with open(summary, "w") as f:
            f.write(line + "\n")
    print(line)
    return 1 if c["failed"] else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
