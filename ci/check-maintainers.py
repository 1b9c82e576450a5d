#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Check MAINTAINERS-snippet against the kernel tree and the series.

- Every section of the snippet is in the tree's MAINTAINERS, word for
  word, so that the snippet is not stale.
- get_maintainer.pl runs on every patch; its output goes to the log, and
  every section it names (but THE REST) must be in the snippet, so that
  the snippet covers everything the series touches.
- Every file a patch adds has a maintainer in a section other than THE
  REST (get_maintainer.pl -f), so that it needs no new MAINTAINERS entry:
  ci/check-patches.sh lets checkpatch's "does MAINTAINERS need updating?"
  pass on that ground.

Usage: check-maintainers.py KSRC SNIPPET PATCH...
"""
import re
import subprocess
import sys

ROLE = re.compile(r"\((?:[^():]*):([^()]*)\)$")


def sections(text):
    """The sections of a MAINTAINERS text: {name: [lines]}."""
    out, name = {}, None
    for line in text.splitlines():
        if not line.strip():
            name = None
        elif line.startswith("#"):
            continue
        elif name is None:
            name = line
            out[name] = []
        else:
            out[name].append(line)
    return out


def added_files(patch):
    """The files that @patch adds."""
    with open(patch) as f:
        lines = f.read().splitlines()
    return [re.match(r"diff --git a/\S+ b/(\S+)", prev).group(1)
            for prev, line in zip(lines, lines[1:])
            if line.startswith("new file mode") and prev.startswith("diff --git ")]


def maintained(ksrc, path):
    """The sections but THE REST that name a maintainer of @path."""
    out = subprocess.run(["perl", "scripts/get_maintainer.pl", "--no-git",
                          "--no-git-fallback", "--nol", "-f", path], cwd=ksrc,
                         check=True, capture_output=True, text=True).stdout
    return {m.group(1) for m in map(ROLE.search, out.splitlines())
            if m and m.group(1) != "THE REST"}


def main(ksrc, snippet_path, patches):
    with open(snippet_path) as f:
        snippet = sections(f.read())
    with open(f"{ksrc}/MAINTAINERS") as f:
        tree = sections(f.read())
    bad = 0
    for name, lines in snippet.items():
        if tree.get(name) != lines:
            print(f"MAINTAINERS-snippet: section '{name}' differs from the tree's MAINTAINERS")
            bad += 1

    for patch in patches:
        out = subprocess.run(["perl", "scripts/get_maintainer.pl", "--no-git",
                              "--no-git-fallback", patch], cwd=ksrc, check=True,
                             capture_output=True, text=True).stdout
        print(f"--- get_maintainer.pl {patch.rsplit('/', 1)[-1]}")
        print(out, end="")
        named = {m.group(1) for m in map(ROLE.search, out.splitlines()) if m}
        for name in sorted(named - snippet.keys()):
            print(f"MAINTAINERS-snippet: misses '{name}', named for {patch}")
            bad += 1
        for path in added_files(patch):
            covered = maintained(ksrc, path)
            print(f"new file {path}: {', '.join(sorted(covered)) or 'no section'}")
            if not covered:
                print(f"MAINTAINERS: no section maintains {path}, added by {patch}")
                bad += 1
    if bad:
        sys.exit(f"check-maintainers: {bad} problem(s)")
    print(f"check-maintainers: {len(snippet)} sections, all in MAINTAINERS; "
          f"they cover all {len(patches)} patches")


if __name__ == "__main__":
    if len(sys.argv) < 4:
        sys.exit(__doc__)
    main(sys.argv[1], sys.argv[2], sys.argv[3:])
