#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""Turns tests/bench/run.sh's raw timings into a table of medians and ratios
(results.md) and a throughput plot (throughput.svg). Standard library only."""
import statistics
import sys
from collections import defaultdict

raw, out, size = sys.argv[1], sys.argv[2], int(sys.argv[3])
t = defaultdict(list)   # (workload, key) -> seconds
rss = defaultdict(list)  # (workload, key) -> KiB
order = []
for line in open(raw):
    parts = line.split()
    if len(parts) < 3:
        continue
    w, key, sec, kib = parts[0], " ".join(parts[1:-2]), float(parts[-2]), int(parts[-1])
    if w not in order:
        order.append(w)
    t[(w, key)].append(sec)
    rss[(w, key)].append(kib)


def med(w, key):
    v = t.get((w, key))
    return statistics.median(v) if v else None


def ratio(a, b):
    return f"{b / a:.1f}x" if a and b else "-"


def s(v):
    return f"{v:.3f}" if v is not None else "-"


mib = size / (1 << 20)
lines = [
    f"Segment size: {size} bytes ({mib:.0f} MiB). Medians of {len(t[(order[0], 'cat')]) if order else 0} runs, seconds, "
    "output to /dev/null. kafka = Kafka 4.4.0 DumpLogSegments with kafka-run-class.sh's JVM options, "
    "JVM start included (measured separately as 'JVM start', a dump of an empty file). "
    "Ratio = kafka / kseg (higher is better for kseg).",
    "",
    "| workload | cat | codec only | JVM start | dump kseg | dump kafka | ratio | deep+print kseg | deep+print kafka | ratio | "
    "verify-index kseg | verify-index kafka | ratio | verify --deep kseg | kafka --deep-iteration | ratio | "
    "verify time / cat time | verify time / codec time | reindex kseg | reindex kafka (in-process) | ratio | kseg peak RSS (MiB) |",
    "|" + "---|" * 22,
]
for w in order:
    row = [w, s(med(w, "cat")), s(med(w, "codec")), s(med(w, "jvm-start"))]
    for mode in ("default", "deep", "idx", "verify"):
        k, j = med(w, f"{mode} kseg"), med(w, f"{mode} kafka")
        row += [s(k), s(j), ratio(k, j)]
    v = med(w, "verify kseg")
    row += [ratio(med(w, "cat"), v) if v else "-", ratio(med(w, "codec"), v) if v else "-"]
    k, j = med(w, "reindex kseg"), med(w, "reindex kafka")
    row += [s(k), s(j), ratio(k, j)]
    modes = ("default", "deep", "idx", "verify", "reindex")
    peak = max((max(rss[(w, f"{m} kseg")]) for m in modes if rss.get((w, f"{m} kseg"))), default=0)
    row.append(f"{peak / 1024:.1f}")
    lines.append("| " + " | ".join(row) + " |")

# Where per-batch and per-record costs dominate (issue 24): --deep-iteration
# alone, and JSON against kseg's own text of the same content.
small = [w for w in order if med(w, "deepiter kseg") or med(w, "jsonl kseg")]
if small:
    lines += ["", "Per-batch costs: `--deep-iteration` alone, and JSON (jsonl; json for the deep+print document) "
              "against kseg-dump's own text of the same content, written in full to /dev/null:", "",
              "| workload | cat | verify --deep kseg | verify throughput / cat | deep-iter kseg | deep-iter kafka | ratio | "
              "text | jsonl | jsonl / text | text deep+print | jsonl deep+print | / text | json deep+print | / text |",
              "|" + "---|" * 15]
    for w in small:
        c, v = med(w, "cat"), med(w, "verify kseg")
        k, j = med(w, "deepiter kseg"), med(w, "deepiter kafka")
        tx, jl, td, jd, jj = (med(w, f"{m} kseg") for m in ("text", "jsonl", "text-deep", "jsonl-deep", "json-deep"))
        rel = lambda a, b: f"{a / b:.2f}x" if a and b else "-"
        lines.append("| " + " | ".join([w, s(c), s(v), f"{c / v:.2f}x" if c and v else "-", s(k), s(j), ratio(k, j),
                                         s(tx), s(jl), rel(jl, tx), s(td), s(jd), rel(jd, td), s(jj), rel(jj, td)]) + " |")

# The seek of a filter (issue 25): records from near the end of the segment,
# found with the .index, against the same filter reading from byte 0.
seek = [w for w in order if med(w, "seek kseg")]
if seek:
    lines += ["", "Filters: `kseg-dump --deep-iteration --from-offset N` with N the offset of the segment's last "
              ".index entry (the last few KiB of records), seeking with the .index against `--no-seek` (a scan "
              "of the whole segment with the same output):", "",
              "| workload | seek | scan from byte 0 | scan / seek |", "|---|---|---|---|"]
    for w in seek:
        k, n = med(w, "seek kseg"), med(w, "seek-scan kseg")
        lines.append(f"| {w} | {s(k)} | {s(n)} | {ratio(k, n)} |")

# Peak RSS of every command (max over runs, MiB); Kafka's in-process rebuild
# is not measured by /usr/bin/time.
cmds = [("cat", "cat"), ("codec", "codec"), ("jvm-start", "JVM start")] + [
    (f"{m} {side}", f"{label} {side}") for m, label in
    (("default", "dump"), ("deep", "deep+print"), ("idx", "verify-index"), ("verify", "verify --deep"),
     ("reindex", "reindex")) for side in ("kseg", "kafka") if (m, side) != ("reindex", "kafka")]
lines += ["", "Peak RSS per command, MiB (largest of the runs):", "",
          "| workload | " + " | ".join(label for _, label in cmds) + " |", "|" + "---|" * (len(cmds) + 1)]
for w in order:
    cells = [f"{max(rss[(w, k)]) / 1024:.1f}" if rss.get((w, k)) else "-" for k, _ in cmds]
    lines.append("| " + w + " | " + " | ".join(cells) + " |")
open(f"{out}/results.md", "w").write("\n".join(lines) + "\n")
print("\n".join(lines))

# Throughput plot: MB/s per workload for cat, kseg and kafka (default and deep).
series = [("cat", "cat", "#999999"), ("kseg dump", "default kseg", "#1f77b4"),
          ("kafka dump", "default kafka", "#ff7f0e"), ("kseg deep+print", "deep kseg", "#2ca02c"),
          ("kafka deep+print", "deep kafka", "#d62728")]
vals = {(w, k): (size / 1e6) / med(w, k) for w in order for _, k, _ in series if med(w, k)}
top = max(vals.values(), default=1)
bw, gap, h, left = 14, 30, 300, 60
width = left + len(order) * (len(series) * bw + gap) + 200
svg = [f'<svg xmlns="http://www.w3.org/2000/svg" width="{width}" height="{h + 120}" font-family="sans-serif" font-size="11">',
       f'<text x="{left}" y="16" font-size="13">Throughput, MB/s (linear; {mib:.0f} MiB segments)</text>']
for i, w in enumerate(order):
    x0 = left + i * (len(series) * bw + gap)
    for j, (_, k, colour) in enumerate(series):
        v = vals.get((w, k))
        if v is None:
            continue
        bh = h * v / top
        x = x0 + j * bw
        svg.append(f'<rect x="{x}" y="{30 + h - bh:.1f}" width="{bw - 2}" height="{bh:.1f}" fill="{colour}"/>')
    svg.append(f'<text x="{x0}" y="{h + 48}" transform="rotate(30 {x0} {h + 48})">{w}</text>')
for j, (label, _, colour) in enumerate(series):
    y = 40 + j * 16
    svg.append(f'<rect x="{width - 180}" y="{y - 9}" width="10" height="10" fill="{colour}"/>')
    svg.append(f'<text x="{width - 165}" y="{y}">{label}</text>')
svg.append(f'<text x="4" y="{34}">{top:.0f}</text><text x="4" y="{30 + h}">0</text></svg>')
open(f"{out}/throughput.svg", "w").write("\n".join(svg) + "\n")
