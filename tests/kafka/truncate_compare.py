#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""Compares what kseg-truncate and Kafka left of one partition (truncate-oracle.py).

Usage: truncate_compare.py KSEG_PARTITION_DIR KAFKA_PARTITION_DIR
Prints nothing and exits 0 when they agree: .log and leader-epoch-checkpoint bytes identical;
.index/.timeindex/.txnindex identical but for the zeros Kafka preallocates after the entries
(kseg writes them trimmed, as a broker's shutdown leaves them); the same producer snapshot files
with the same entries (in any order: Kafka writes them in hash order); the partition's lines in
recovery-point-, replication- and log-start-offset-checkpoint equal. Else one line per difference.
"""
import os
import struct
import sys


def files(d):
    return {n for n in os.listdir(d) if os.path.isfile(os.path.join(d, n))
            and not n.endswith((".deleted", ".kseg-tmp")) and n != "partition.metadata"}


def read(p):
    with open(p, "rb") as f:
        return f.read()


def snapshot_entries(b):
    n = struct.unpack(">i", b[6:10])[0]
    return sorted(b[10 + 46 * i:10 + 46 * (i + 1)] for i in range(n))


def line(log_dir, name, tp):
    p = os.path.join(log_dir, name)
    if not os.path.exists(p):
        return None
    for l in read(p).decode().splitlines()[2:]:
        f = l.split()
        if len(f) == 3 and f"{f[0]}-{f[1]}" == tp:
            return int(f[2])
    return None


def main(k, j):
    diffs = []
    fk, fj = files(k), files(j)
    for n in sorted(fk ^ fj):
        diffs.append(f"{n}: only in {'kseg' if n in fk else 'Kafka'}'s result")
    for n in sorted(fk & fj):
        a, b = read(os.path.join(k, n)), read(os.path.join(j, n))
        if n.endswith((".index", ".timeindex", ".txnindex")):
            same = b[:len(a)] == a and not any(b[len(a):])
        elif n.endswith(".snapshot"):
            same = a[:2] == b[:2] and snapshot_entries(a) == snapshot_entries(b)
        else:
            same = a == b
        if not same:
            diffs.append(f"{n}: differs ({len(a)} bytes from kseg, {len(b)} from Kafka)")
    tp = os.path.basename(os.path.normpath(k))
    for c in ("recovery-point-offset-checkpoint", "replication-offset-checkpoint", "log-start-offset-checkpoint"):
        a, b = line(os.path.dirname(os.path.normpath(k)), c, tp), line(os.path.dirname(os.path.normpath(j)), c, tp)
        if a != b:
            diffs.append(f"{c}: {tp} is {a} from kseg, {b} from Kafka")
    for d in diffs:
        print(d)
    return 1 if diffs else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1], sys.argv[2]))
