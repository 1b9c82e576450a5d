#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Finish the mbox of the series for the mailing list.

Reads the output of `git format-patch --stdout --cover-letter --thread`
on stdin and writes the mbox on stdout, with
 - the cover letter's subject and text taken from COVER_LETTER, whose
   first line is "Subject: [PATCH vN 00/NN] title" and must agree with
   what git format-patch numbered;
 - header lines unfolded: git folds a long From: header, which b4 0.12
   copies as it is into a new message and then crashes on ("Header values
   may not contain linefeed"). An unfolded header is as valid (RFC 5322
   allows 998 characters), and a list server may unfold it too.

Usage: make-mbox.py COVER_LETTER < format-patch-output > series.mbox
"""
import re
import sys

MBOX_FROM = re.compile(r"^From [0-9a-f]{40} Mon Sep 17 00:00:00 2001$")
COVER_SUBJECT = re.compile(r"^Subject: (\[[^\]]* 0+/(\d+)\]) (.+)$")


def die(msg):
    sys.exit(f"make-mbox: {msg}")


def split_messages(text):
    """Split an mbox into its messages, each a list of lines."""
    messages = []
    for line in text.splitlines():
        if MBOX_FROM.match(line):
            messages.append([])
        if not messages:
            die("input does not start with a git format-patch message")
        messages[-1].append(line)
    return messages


def unfold_headers(lines):
    """Join the continuation lines of the header block of one message."""
    out = []
    for i, line in enumerate(lines):
        if line == "":
            return out + lines[i:]
        if line[0] in " \t" and len(out) > 1:
            out[-1] += " " + line.strip()
        else:
            out.append(line)
    return out


def fill_cover(lines, cover_path, nr_patches):
    """Put the subject and text of COVER_LETTER into the cover template."""
    with open(cover_path) as f:
        cover = f.read().splitlines()
    m = COVER_SUBJECT.match(cover[0]) if cover else None
    if not m:
        die(f"{cover_path}: the first line must be 'Subject: [PATCH vN 00/NN] title'")
    tag, total, title = m.group(1), int(m.group(2)), m.group(3)
    if total != nr_patches:
        die(f"{cover_path} says {total} patches, the series has {nr_patches}")
    body = cover[1:]
    while body and body[0] == "":
        body.pop(0)

    out = []
    for line in lines:
        if line.startswith("Subject: ") and "*** SUBJECT HERE ***" in line:
            if not line.startswith(f"Subject: {tag} "):
                die(f"{cover_path} has {tag}, git format-patch made: {line}")
            out.append(f"Subject: {tag} {title}")
        elif line == "*** BLURB HERE ***":
            out.extend(body)
        else:
            out.append(line)
    return out


def main(argv):
    if len(argv) != 1:
        die("usage: make-mbox.py COVER_LETTER < format-patch-output")
    messages = [unfold_headers(m) for m in split_messages(sys.stdin.read())]
    if len(messages) < 2:
        die("no patches in the input")
    messages[0] = fill_cover(messages[0], argv[0], len(messages) - 1)
    for m in messages:
        sys.stdout.write("\n".join(m) + "\n")


if __name__ == "__main__":
    main(sys.argv[1:])
