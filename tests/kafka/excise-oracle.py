#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""kseg-excise against Kafka 4.4.0 (three JVM runs in all).

For each case (a partition Kafka wrote: every v2 codec, transactional, idempotent, compacted,
LogAppendTime, headers, v0/v1 uncompressed, v1 upgraded to v2, the coordinators' topics, the
live 4.4 broker's and the 2.8 broker's) Kafka loads the original (LoadCheck) and its records
are the reference. Three selections are made from Kafka's own records (offsets: one record and
a run of three; a key, as --key ^...$ or --key-hex; a timestamp window, a header, a value's
bytes or a producer id), and which records each takes is worked out here, from Kafka's lines,
independently of kseg. On a copy, `kseg-excise --yes` removes them; then:
  - the records kseg says it removes (--dry-run --format json) are exactly those;
  - Kafka loads the copy (clean) with every other record, at its offset, with its bytes, and the
    same log start, log end, producers, aborted transactions and leader epochs;
  - Kafka's recovery (RebuildIndexes) of the copy rebuilds the .index and .timeindex kseg wrote;
  - kseg-verify --deep finds nothing; a second run selects nothing and changes nothing;
  - the same run on a second copy gives the same digest (--digest: replicas excised alike).
Crash injection on one case: KSEG_CRASH_AT at every step of the write; Kafka's loads (clean and
unclean) keep every record but the chosen, in order, and lose no other (a crash between two
segments leaves some chosen ones), and a re-run finishes the job.
Usage: excise-oracle.py KSEG_EXCISE      Prints "N passed, M failed"; exits 1 on failure.
"""
import base64
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
CORPUS = os.path.join(HERE, "..", "..", "testdata", "kafka")
sys.path.insert(0, HERE)
from oracle_common import bad, body, classpath, java, ok, records, tally, tree_sum  # noqa: E402

CASES = [
    ("v2-none", "orders-0"), ("v2-gzip", "orders-0"), ("v2-snappy", "orders-0"), ("v2-lz4", "orders-0"),
    ("v2-zstd", "orders-0"), ("v1-none", "orders-0"), ("v0-none", "orders-0"), ("v1-gzip", "orders-0"),
    ("v1-lz4", "orders-0"), ("v0-snappy", "orders-0"), ("v0-gzip", "orders-0"), ("mixed-magic", "upgrade-0"),
    ("transactions", "ledger-0"), ("transactions-tv2", "ledger-0"), ("idempotent", "payments-0"),
    ("compacted", "accounts-0"), ("cleaned-transactions", "balances-0"), ("log-append-time", "clicks-0"),
    ("binary-values", "bytes-0"), ("consumer-offsets", "__consumer_offsets-0"),
    ("transaction-state", "__transaction_state-0"), ("live-broker", "ledger-0"), ("live-broker", "idempotent-0"),
    ("live-broker", "kcat-zstd-0"), ("live-broker", "codec-gzip-0"), ("legacy-broker", "compacted-v1-0"),
    ("legacy-broker", "v0-gzip-0"), ("legacy-broker", "v1-lz4-0"),
]
CRASH_CASE = ("transactions", "ledger-0")
CRASH_STEPS = ["tmp-partial", "tmp-written", "backup-partial", "backup-done", "hidden", "rename-partial", "renamed",
               "done"]
LINE = re.compile(r"offset=(\d+) (\w+)=(-?\d+) magic=(\d)(?: pid=(-?\d+) epoch=-?\d+ seq=-?\d+ txn=\w+)?"
                  r"( control=\S+)? key=(\S*) value=(\S*) headers=\[(.*)\]$")


def parse(line):
    m = LINE.match(line.rstrip("\n"))
    if not m:
        raise SystemExit(f"LoadCheck line not understood: {line}")
    dec = lambda s: None if s == "-" else base64.b64decode(s)  # noqa: E731
    headers = []
    if m.group(9):
        for h in m.group(9).split(","):
            k, v = h.rsplit(":", 1)
            headers.append((k, dec(v)))
    return {"offset": int(m.group(1)), "ts": int(m.group(3)), "pid": int(m.group(5) or -1),
            "control": bool(m.group(6)), "key": dec(m.group(7)), "value": dec(m.group(8)), "headers": headers,
            "line": line}


def selections(recs):
    """Three selections from Kafka's records: (argv for kseg-excise, predicate on a record)."""
    data = [r for r in recs if not r["control"]]
    if len(data) < 6:
        return []
    out = []
    a, b = data[1]["offset"], data[len(data) // 2]["offset"]
    run = [r["offset"] for r in data[len(data) // 2:len(data) // 2 + 3]]
    out.append((["--offsets", f"{a},{run[0]}..{run[-1]}"],
                lambda r, a=a, lo=run[0], hi=run[-1]: r["offset"] == a or lo <= r["offset"] <= hi))
    keyed = [r for r in data if r["key"]]
    if keyed:
        k = keyed[len(keyed) * 2 // 3]["key"]
        if all(0x20 <= c < 0x7f for c in k):
            argv = ["--key", "^" + re.sub(r"([\\^$.|?*+()\[\]{}])", r"\\\1", k.decode()) + "$"]
        else:
            argv = ["--key-hex", k.hex()]
        out.append((argv, lambda r, k=k: r["key"] == k))
    else:
        v = data[len(data) // 3]["value"] or b""
        needle = v[len(v) // 2:len(v) // 2 + 6] if len(v) >= 6 else v
        if needle and all(0x20 <= c < 0x7f for c in needle):
            out.append((["--value-contains", needle.decode()],
                        lambda r, n=needle: r["value"] is not None and n in r["value"]))
    with_headers = [r for r in data if r["headers"]]
    pids = sorted({r["pid"] for r in data if r["pid"] >= 0})
    if with_headers:
        name = with_headers[len(with_headers) // 2]["headers"][0][0]
        out.append((["--header", name, "--offsets", f"{data[len(data) // 4]['offset']}.."],
                    lambda r, n=name, lo=data[len(data) // 4]["offset"]: r["offset"] >= lo and
                    any(h[0] == n for h in r["headers"])))
    elif len(pids) > 1:
        out.append((["--producer-id", str(pids[-1])], lambda r, p=pids[-1]: r["pid"] == p))
    elif data[0]["ts"] >= 0:
        t = data[len(data) * 3 // 4]["ts"]
        out.append((["--from-time", str(t), "--to-time", str(t + 5)], lambda r, t=t: t <= r["ts"] <= t + 5))
    else:  # v0: no timestamps
        v = next(r["value"] for r in data[len(data) // 3:] + data if r["value"] and len(r["value"]) >= 6)
        needle = v[len(v) // 2:len(v) // 2 + 6]
        out.append((["--value-contains", needle.decode("latin-1")],
                    lambda r, n=needle: r["value"] is not None and n in r["value"]))
    return out


def topic_config(case, part, path):
    with open(os.path.join(CORPUS, case, "case.json")) as f:
        doc = json.load(f)
    conf = next(p["topic_config"] for p in doc["partitions"] if p["dir"] == part)
    with open(path, "w") as f:
        for k, v in conf.items():
            f.write(f"{k}={v}\n")
    return doc, conf


def copy_case(case, part, dest):
    """A private log dir holding the partition and the case's root files."""
    os.makedirs(dest)
    for n in os.listdir(os.path.join(CORPUS, case)):
        src = os.path.join(CORPUS, case, n)
        if os.path.isfile(src) and n.endswith("-checkpoint") or n in ("meta.properties", ".kafka_cleanshutdown"):
            shutil.copy2(src, dest)
    shutil.copytree(os.path.join(CORPUS, case, part), os.path.join(dest, part), symlinks=True)
    return os.path.join(dest, part)


def run(argv, **kw):
    return subprocess.run(argv, capture_output=True, text=True, **kw)


def main():
    kseg = os.path.abspath(sys.argv[1])
    verify = os.path.join(os.path.dirname(kseg), "kseg-verify")
    cp = classpath()
    tmp = tempfile.mkdtemp(prefix="kseg-excise-oracle-")
    try:
        # 1. Kafka reads every original.
        jobs = []
        for i, (case, part) in enumerate(CASES):
            d = copy_case(case, part, os.path.join(tmp, "orig", str(i)))
            jobs.append(f"{tmp}/orig/{i}.load\t{d}")
        with open(f"{tmp}/jobs1.tsv", "w") as f:
            f.write("\n".join(jobs) + "\n")
        java(cp, "kseg.oracle.LoadCheckBatch", f"{tmp}/jobs1.tsv")
        # 2. kseg excises each selection on two copies.
        runs, jobs = [], []
        os.makedirs(f"{tmp}/corpus")
        for i, (case, part) in enumerate(CASES):
            recs = [parse(l) for l in records(f"{tmp}/orig/{i}.load")]
            sels = selections(recs)
            if len(sels) < 3:
                bad(f"{case}/{part}: {len(sels)} selections from its {len(recs)} records (3 wanted)")
            for j, (argv, pred) in enumerate(sels):
                name = f"{case}.{part}.{j}"
                props = f"{tmp}/{name}.properties"
                doc, conf = topic_config(case, part, props)
                d = copy_case(case, part, f"{tmp}/corpus/{name}")
                d2 = copy_case(case, part, f"{tmp}/replica/{name}")
                want = sorted(r["offset"] for r in recs if not r["control"] and pred(r))
                base = [kseg, "--no-backup", "--topic-config", props] + argv
                dry = run(base + ["--dry-run", "--format", "json", d])
                said = json.loads(dry.stdout)["partitions"][0] if dry.stdout else {}
                got = run(base + ["--yes", "--digest", "--format", "json", d])
                got2 = run(base + ["--yes", "--digest", "--format", "json", d2])
                again = run(base + ["--yes", d])
                with open(f"{tmp}/corpus/{name}/case.json", "w") as f:
                    json.dump({"partitions": [{"dir": part, "topic_config": conf}]}, f)
                jobs.append(f"{tmp}/{name}.load\t{d}")
                runs.append((i, case, part, j, argv, want, d, dry, said, got, got2, again, recs))
        with open(f"{tmp}/jobs2.tsv", "w") as f:
            f.write("\n".join(jobs) + "\n")
        java(cp, "kseg.oracle.LoadCheckBatch", f"{tmp}/jobs2.tsv")
        java(cp, "kseg.oracle.RebuildIndexes", f"{tmp}/corpus", f"{tmp}/rebuilt")
        table = []
        for i, case, part, j, argv, want, d, dry, said, got, got2, again, recs in runs:
            what = f"{case}/{part} {' '.join(argv)}"
            listed = sorted(r["offset"] for r in said.get("records", []))
            if dry.returncode == (1 if want else 0) and listed == want and said.get("records_listed_all"):
                ok()
            else:
                bad(f"{what}: --dry-run exit {dry.returncode}, lists {listed[:10]}; Kafka's records give {want[:10]} "
                    f"{dry.stderr.strip()}")
            if got.returncode != 0:
                bad(f"{what}: exit {got.returncode}: {got.stderr.strip()}")
                continue
            name = f"{case}.{part}.{j}"
            load = f"{tmp}/{name}.load"
            orig = f"{tmp}/orig/{i}.load"
            kept = [l for l in records(orig) if int(l.split()[0][7:]) not in set(want)]
            rest = lambda p: [l for l in body(p) if not l.startswith("offset=")]  # noqa: E731
            if any(l.startswith("# load failed") for l in open(load)):
                bad(f"{what}: Kafka's load failed: {open(load).read().strip()}")
            elif records(load) == kept and rest(load) == rest(orig):
                ok()
            else:
                bad(f"{what}: Kafka reads {len(records(load))} records, {len(kept)} expected "
                    f"(first different: {next((a for a, b in zip(records(load), kept) if a != b), '-')})")
            segs = 0
            for seg in said.get("segments", []):
                stem = seg["file"][:-4]
                for ext in (".index", ".timeindex"):
                    mine, kafkas = f"{d}/{stem}{ext}", f"{tmp}/rebuilt/{name}/{part}/{stem}{ext}"
                    if os.path.exists(kafkas) and open(mine, "rb").read() == open(kafkas, "rb").read():
                        segs += 1
                    else:
                        bad(f"{what}: {stem}{ext} differs from Kafka's recovery of the excised segment")
            if segs == 2 * len(said.get("segments", [])) and segs > 0:
                ok()
            v = run([verify, "--deep", d])
            if v.returncode == 0:
                ok()
            else:
                bad(f"{what}: kseg-verify --deep: {v.stdout.strip()[-400:]}")
            digests = [json.loads(g.stdout)["partitions"][0].get("digest") for g in (got, got2)]
            if digests[0] and digests[0] == digests[1]:
                ok()
            else:
                bad(f"{what}: digests of two copies excised alike: {digests}")
            if again.returncode == 0 and "no record selected" in again.stdout:
                ok()
            else:
                bad(f"{what}: a second run: exit {again.returncode}: {again.stdout.strip()} {again.stderr.strip()}")
            table.append((f"{case}/{part}", " ".join(argv), len(want), len(records(load)), records(load) == kept))
        # 3. crash injection.
        case, part = CRASH_CASE
        i = CASES.index(CRASH_CASE)
        recs = [parse(l) for l in records(f"{tmp}/orig/{i}.load")]
        argv, pred = selections(recs)[0]
        want = {r["offset"] for r in recs if not r["control"] and pred(r)}
        all_lines = records(f"{tmp}/orig/{i}.load")
        jobs, crashed = [], []
        for s in CRASH_STEPS:
            d = copy_case(case, part, f"{tmp}/crash/{s}")
            p = run([kseg, "--yes"] + argv + [d], env=dict(os.environ, KSEG_CRASH_AT=s))
            shutil.copytree(os.path.dirname(d), f"{tmp}/crash/{s}.rerun", symlinks=True)
            r2 = run([kseg, "--yes"] + argv + [f"{tmp}/crash/{s}.rerun/{part}"])
            jobs += [f"{tmp}/crash/{s}.clean\t{d}", f"{tmp}/crash/{s}.unclean\t{d}\t--unclean",
                     f"{tmp}/crash/{s}.rerun.load\t{tmp}/crash/{s}.rerun/{part}"]
            crashed.append((s, p.returncode, r2.returncode))
        with open(f"{tmp}/jobs3.tsv", "w") as f:
            f.write("\n".join(jobs) + "\n")
        java(cp, "kseg.oracle.LoadCheckBatch", f"{tmp}/jobs3.tsv")
        kept = [l for l in all_lines if int(l.split()[0][7:]) not in want]
        for s, rc, rc2 in crashed:
            loads = [records(f"{tmp}/crash/{s}.{k}") for k in ("clean", "unclean")]
            if rc not in (0, 86):
                bad(f"crash at {s}: exit {rc}")
            elif any(not set(kept) <= set(l) <= set(all_lines) or l != sorted(l, key=all_lines.index) for l in loads):
                bad(f"crash at {s}: Kafka loads a record lost or changed: {[len(l) for l in loads]} of "
                    f"{len(all_lines)}, {len(kept)} kept")
            elif records(f"{tmp}/crash/{s}.rerun.load") != kept or rc2 != 0:
                bad(f"crash at {s}: a re-run (exit {rc2}) did not finish the job")
            else:
                ok()
        print(f"crash injection {case}/{part}: {len(CRASH_STEPS)} steps, "
              f"{sum(1 for _, rc, _ in crashed if rc == 86)} crashed there; Kafka loads every record but some chosen, "
              f"re-runs finish")
        w = [max(len(str(r[k])) for r in table + [("case", "selector", "removed", "served", "equal")]) for k in range(5)]
        print("  ".join(h.ljust(w[k]) for k, h in enumerate(("case", "selector", "removed", "served", "equal"))))
        for r in table:
            print("  ".join(str(x).ljust(w[k]) for k, x in enumerate(r)))
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    print(f"{tally['passed']} passed, {tally['failed']} failed")
    sys.exit(1 if tally["failed"] else 0)


if __name__ == "__main__":
    main()
