#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""The judging half of excise-broker.sh (which runs the broker and the consumers).

excise_broker.py excise KSEG_EXCISE BROKER_PROPERTIES LOG_DIR READ_DIR OUT_JSON TOPIC...
  For each topic: the selections of excise-oracle.py, made from what the Java consumer read
  (READ_DIR/java-read_uncommitted/TOPIC, every data record); which records each takes is worked
  out here from the consumer's records; `kseg-excise --dry-run --format json` must list exactly
  those, then `kseg-excise --yes` removes them from LOG_DIR/TOPIC-0. The selections run one after
  another on the same partition. Writes {topic: [offsets removed]} to OUT_JSON.
excise_broker.py judge BEFORE_DIR AFTER_DIR REMOVED_JSON
  Every reading after (Java and kcat, read_uncommitted and read_committed) is the reading before
  minus the removed records, line for line (offset, timestamp, key, value, headers); kcat read
  the same offsets and value sizes as the Java consumer.
Each prints FAIL lines and ends with "N passed, M failed".
"""
import base64
import importlib
import json
import os
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
from oracle_common import bad, ok, tally  # noqa: E402

selections = importlib.import_module("excise-oracle").selections
LEVELS = ("read_uncommitted", "read_committed")


def java_lines(path):
    with open(path) as f:
        return [l.rstrip("\n") for l in f]


def record(line):
    off, ts, key, value, headers = (line.split(" ", 4) + [""])[:5]
    dec = lambda s: None if s == "-" else base64.b64decode(s)  # noqa: E731
    hs = [(h.rsplit(":", 1)[0], dec(h.rsplit(":", 1)[1])) for h in headers.split(",")] if headers else []
    return {"offset": int(off), "ts": int(ts), "pid": -1, "control": False, "key": dec(key), "value": dec(value),
            "headers": hs}


def excise(kseg, props, log_dir, read_dir, out_json, topics):
    removed = {}
    for topic in topics:
        recs = [record(l) for l in java_lines(os.path.join(read_dir, "java-read_uncommitted", topic))]
        part = os.path.join(log_dir, topic + "-0")
        gone = set()
        sels = selections(recs)
        if not sels:
            bad(f"{topic}: too few records to choose from ({len(recs)})")
        for argv, pred in sels:
            left = [r for r in recs if r["offset"] not in gone]
            want = [r["offset"] for r in left if pred(r)]
            if len(want) > len(left) // 2:  # a window in which a fast producer wrote most records: a part of it
                lo = want[len(want) // 2]
                argv = argv + ["--offsets", f"{lo}..{lo + 9}"]
                pred = lambda r, p=pred, lo=lo: p(r) and lo <= r["offset"] <= lo + 9  # noqa: E731
                want = [r["offset"] for r in left if pred(r)]
            base = [kseg, "--broker-config", props] + argv + [part]
            dry = subprocess.run(base + ["--dry-run", "--format", "json"], capture_output=True, text=True)
            try:
                doc = json.loads(dry.stdout)["partitions"][0]
                got = [r["offset"] for r in doc.get("records", [])]
            except (ValueError, KeyError, IndexError):
                got = None
            # Records below the log start are on disk still (a DeleteRecords inside a segment), and
            # go too: no consumer reads them, so they are checked to lie below the first it reads.
            start = recs[0]["offset"]
            below = len(got) - len(want) if got is not None and len(got) > len(want) else 0
            if below and all(o < start for o in got[:below]):
                got = got[below:]
            if dry.returncode == 1 and got == want and want:  # 1: records would be removed
                ok()
            else:
                bad(f"{topic} {' '.join(argv)}: kseg-excise --dry-run lists {got} (exit {dry.returncode}: "
                    f"{dry.stderr.strip()[:300]}), the consumer's records {want}")
                continue
            run = subprocess.run(base + ["--yes"], capture_output=True, text=True)
            if run.returncode == 0:
                ok()
                print(f"{topic}: {' '.join(argv)}: {len(want)} removed"
                      f"{f' (and {below} below the log start {start})' if below else ''} ({run.stdout.strip().splitlines()[-1]})")
            else:
                bad(f"{topic} {' '.join(argv)}: kseg-excise --yes exits {run.returncode}: {run.stderr.strip()[:300]}")
            gone.update(want)
        removed[topic] = sorted(gone)
    with open(out_json, "w") as f:
        json.dump(removed, f)


def judge(before, after, removed_json):
    with open(removed_json) as f:
        removed = {t: set(v) for t, v in json.load(f).items()}
    for topic, gone in sorted(removed.items()):
        for level in LEVELS:
            b = java_lines(os.path.join(before, "java-" + level, topic))
            a = java_lines(os.path.join(after, "java-" + level, topic))
            want = [l for l in b if int(l.split(" ", 1)[0]) not in gone]
            if a == want and a:
                ok()
                print(f"{topic} {level}: the Java consumer reads {len(a)} records, {len(b) - len(a)} fewer than before "
                      f"the excision, every other one as it was")
            else:
                extra = sorted({l.split(" ", 1)[0] for l in a} ^ {l.split(" ", 1)[0] for l in want}, key=int)[:10]
                bad(f"{topic} {level}: the Java consumer reads {len(a)} records after, {len(want)} expected "
                    f"(before {len(b)}, removed {len(gone)}); offsets differing: {extra}")
            for when, d in (("before", before), ("after", after)):
                j = [(int(l.split(" ")[0]), len(record(l)["value"] or b"")) for l in java_lines(
                    os.path.join(d, "java-" + level, topic))]
                k = [(int(l.split(" ")[0]), max(int(l.split(" ")[2]), 0)) for l in java_lines(
                    os.path.join(d, "kcat-" + level, topic)) if l.strip()]
                if j == k:
                    ok()
                else:
                    bad(f"{topic} {level} {when}: kcat reads {len(k)} records, the Java consumer {len(j)}; "
                        f"first differing: {next((x for x in zip(k, j) if x[0] != x[1]), None)}")


def main():
    if len(sys.argv) >= 7 and sys.argv[1] == "excise":
        excise(*sys.argv[2:6], sys.argv[6], sys.argv[7:])
    elif len(sys.argv) == 5 and sys.argv[1] == "judge":
        judge(*sys.argv[2:5])
    else:
        sys.exit(__doc__)
    print(f"{tally['passed']} passed, {tally['failed']} failed")


if __name__ == "__main__":
    main()
