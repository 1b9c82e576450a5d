#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Finish the mbox of one posting of the series for the mailing list.

Reads the output of `git format-patch --stdout --cover-letter --thread`
for the patches of one posting on stdin and writes the mbox on stdout,
with
 - the cover letter's subject and text taken from COVER_LETTER: its
   introduction (the text before the first "Subject: " line), which
   every posting gets, then cover letter INDEX (1 for the first), from
   its line "Subject: [PATCH vN 0/N] title", which must agree with what
   git format-patch numbered, to the next "Subject: " line;
 - Message-IDs of our own, <DATE.NAME.vN-k-n@DOMAIN>, with DATE the
   author date of the last patch and DOMAIN the author's: git makes them
   from the time of the run, which changes from run to run and, for the
   cover letters of postings made in the same second, is the same;
 - header lines unfolded: git folds a long From: header, which b4 0.12
   copies as it is into a new message and then crashes on ("Header values
   may not contain linefeed"). An unfolded header is as valid (RFC 5322
   allows 998 characters), and a list server may unfold it too.

Usage: make-mbox.py COVER_LETTER INDEX NAME < format-patch-output > NAME.mbox
"""
import email.utils
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


def strip_blank(lines):
    """Drop the blank lines at both ends."""
    while lines and lines[0] == "":
        lines.pop(0)
    while lines and lines[-1] == "":
        lines.pop()
    return lines


def fill_cover(lines, cover_path, index, nr_patches):
    """Put the subject and text of COVER_LETTER into the cover template."""
    with open(cover_path) as f:
        cover = f.read().splitlines()
    starts = [i for i, line in enumerate(cover) if line.startswith("Subject: ")]
    if index > len(starts):
        die(f"{cover_path} has {len(starts)} cover letters, not {index}")
    start = starts[index - 1]
    end = starts[index] if index < len(starts) else len(cover)
    m = COVER_SUBJECT.match(cover[start])
    if not m:
        die(f"{cover_path}: '{cover[start]}' is not 'Subject: [PATCH vN 0/N] title'")
    tag, total, title = m.group(1), int(m.group(2)), m.group(3)
    if total != nr_patches:
        die(f"{cover_path}: {tag} says {total} patches, the posting has {nr_patches}")
    intro = strip_blank(cover[:starts[0]])
    body = intro + [""] * bool(intro) + strip_blank(cover[start + 1:end])

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


def header(message, name):
    """The value of the first header NAME of a message, or None."""
    for line in message:
        if line == "":
            return None
        if line.lower().startswith(name.lower() + ": "):
            return line.split(": ", 1)[1]
    return None


def set_message_ids(messages, name):
    """Give each message a Message-ID that depends only on the posting."""
    m = re.search(r"\[[^\]]* v(\d+) ", header(messages[0], "Subject"))
    version = m.group(1) if m else "1"
    date = email.utils.parsedate_to_datetime(header(messages[-1], "Date"))
    domain = email.utils.parseaddr(header(messages[0], "From"))[1].split("@")[-1]
    total = len(messages) - 1
    new_ids = {}
    for k, message in enumerate(messages):
        old = header(message, "Message-ID")
        if not old:
            die(f"git format-patch gave message {k} no Message-ID")
        new_ids[old] = f"<{date:%Y%m%d%H%M%S}.{name}.v{version}-{k}-{total}@{domain}>"
    for message in messages:
        for i, line in enumerate(message):
            if line == "":
                break
            key, _, value = line.partition(": ")
            if key.lower() in ("message-id", "in-reply-to", "references"):
                message[i] = f"{key}: " + " ".join(new_ids.get(v, v) for v in value.split())


def main(argv):
    if len(argv) != 3 or not argv[1].isdigit():
        die("usage: make-mbox.py COVER_LETTER INDEX NAME < format-patch-output")
    messages = [unfold_headers(m) for m in split_messages(sys.stdin.read())]
    if len(messages) < 2:
        die("no patches in the input")
    messages[0] = fill_cover(messages[0], argv[0], int(argv[1]), len(messages) - 1)
    set_message_ids(messages, argv[2])
    for m in messages:
        sys.stdout.write("\n".join(m) + "\n")


if __name__ == "__main__":
    main(sys.argv[1:])
