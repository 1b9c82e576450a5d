#!/usr/bin/env python3
# extract.py LOG PREFIX: write each CSTRACE-BEGIN..END block to PREFIX-N.bin
import sys
log, prefix = sys.argv[1], sys.argv[2]
n, cur = 0, None
for line in open(log, errors='replace'):
    line = line.strip()
    if line.startswith('CSTRACE-BEGIN'):
        cur = []
    elif line.startswith('CSTRACE-END'):
        open('%s-%d.bin' % (prefix, n), 'wb').write(bytes.fromhex(''.join(cur)))
        print('%s-%d.bin: %d bytes' % (prefix, n, len(''.join(cur)) // 2))
        n, cur = n + 1, None
    elif cur is not None:
        cur.append(line)
