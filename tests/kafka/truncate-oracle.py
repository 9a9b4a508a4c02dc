#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""kseg-truncate against Kafka 4.4.0's own cuts (three JVM runs in all).

For each case (a partition written by Kafka: in-process corpus cases, the live 4.4 broker's, the
2.8 broker's, two after Kafka's own DeleteRecords to a segment base, which leaves a producer
snapshot exactly at the log start: oracle_common.DELETE_RECORDS), prepared as a broker's clean shutdown leaves it (Truncate prepare: root
checkpoints, .kafka_cleanshutdown, trimmed active indexes), and for each cut:
  - kseg-truncate cuts one copy, Kafka's own code (Truncate: truncateTo, maybeIncrementLogStart-
    Offset + deleteOldSegments, deleteOldSegments under retention, truncateFullyAndStartAt) another;
  - the two partitions are compared file by file (truncate_compare.py: .log and leader epochs
    identical, indexes identical, the same snapshots with the same entries, the same checkpoint
    lines), and the clean-shutdown marker is back, byte for byte, where there was one;
  - Kafka loads both (LoadCheck; unclean where there is no marker) and the digests are equal; for
    --to-offset the records are exactly the original's below the new end;
  - a second kseg run with the same arguments changes no file.
A JVM holding the log dir's .lock as a broker does makes kseg-truncate refuse, changing nothing.
Cuts: every batch boundary of each case (a sample of 120 where there are more), an offset inside
a batch, the first and the last offset, below the first segment; --log-start, --to-time, --full,
--retention-ms and --retention-bytes at several values; some runs without the marker.
Crash injection: KSEG_CRASH_AT=<step>:<n> for every step of the write protocol and n = 1..5 (a run
applies up to five plans: its journal; recovery armed; the cut; the marker back; the journal
gone; n counts the times a step is reached), for seven cuts of every mode; Kafka's load of
what the crash left (unclean where the marker is gone) succeeds with every record that should
remain, a log end no lower and a log start no lower than both the original's and the cut's, and a
re-run ends with Kafka's result and the marker back.
Usage: truncate-oracle.py KSEG_TRUNCATE      Prints "N passed, M failed"; exits 1 on failure.
"""
import contextlib
import io
import json
import os
import random
import shutil
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
CORPUS = os.path.join(HERE, "..", "..", "testdata", "kafka")
sys.path.insert(0, HERE)
import truncate_compare  # noqa: E402
from oracle_common import (DELETE_RECORDS, bad, body, check_refused_while_jvm_holds_lock, classpath,  # noqa: E402
                           corpus_case, java, ok, prepare, records, tally, tree_sum)

CASES = [  # (case, partition dir)
    ("v2-none", "orders-0"), ("v2-gzip", "orders-0"), ("v2-snappy", "orders-0"), ("v2-lz4", "orders-0"),
    ("v2-zstd", "orders-0"), ("v1-none", "orders-0"), ("v1-gzip", "orders-0"), ("v0-none", "orders-0"),
    ("v0-snappy", "orders-0"), ("transactions", "ledger-0"), ("transactions-tv2", "ledger-0"),
    ("idempotent", "payments-0"), ("compacted", "accounts-0"), ("cleaned-transactions", "balances-0"),
    ("leader-epochs-retention", "metrics-0"), ("log-append-time", "clicks-0"),
    ("create-time-out-of-order", "sensors-0"), ("follower-multi-batch", "replica-0"),
    ("live-broker", "ledger-0"), ("live-broker", "accounts-0"), ("live-broker", "idempotent-0"),
    ("live-broker", "kcat-zstd-0"), ("live-broker", "codec-gzip-0"), ("live-broker", "retained-0"),
    ("legacy-broker", "v0-gzip-0"), ("legacy-broker", "v1-lz4-0"), ("legacy-broker", "compacted-v1-0"),
    ("transactions" + DELETE_RECORDS, "ledger-0"), ("idempotent" + DELETE_RECORDS, "payments-0"),
]
STEPS = ["tmp-partial", "tmp-written", "backup-partial", "backup-done", "hidden", "remove-partial", "removed",
         "rename-partial", "renamed", "done"]
HOUR = 3_600_000










def topic_config(case, part):
    try:
        with open(os.path.join(CORPUS, case, "case.json")) as f:
            for p in json.load(f).get("partitions", []):
                if p.get("dir") == part:
                    return [f"{k}={v}" for k, v in p.get("topic_config", {}).items()
                            if k in ("segment.index.bytes", "index.interval.bytes")]
    except (OSError, ValueError):
        pass
    return []








def kseg_args(mode, arg, now):
    if mode == "retention-ms":
        return ["--retention-ms", str(arg), "--now", str(now)]
    if mode == "retention-bytes":
        return ["--retention-bytes", str(arg)]
    return ["--" + mode, str(arg)]


def kafka_job(mode, arg, now, cfg):
    if mode == "retention-ms":
        return ["retention", "-", str(now), ["retention.ms=" + str(arg)] + cfg]
    if mode == "retention-bytes":
        return ["retention", "-", str(now), ["retention.bytes=" + str(arg), "retention.ms=-1"] + cfg]
    return [mode, str(arg), str(now), cfg]


def main():
    kseg = os.path.abspath(sys.argv[1])
    seed = int(os.environ.get("KSEG_ORACLE_SEED", "1"))
    rng = random.Random(seed)
    print(f"seed {seed} (KSEG_ORACLE_SEED: which batch boundaries are sampled)")
    cp = classpath()
    tmp = tempfile.mkdtemp(prefix="kseg-truncate-oracle-")
    try:
        # 1. prepared inputs
        prepare(cp, CORPUS, tmp, CASES, topic_config)

        # 2. the runs
        runs = []  # dicts: id, case index, mode, arg, now, marker
        for i, (case, part) in enumerate(CASES):
            with open(os.path.join(tmp, "in", str(i), "batches.txt")) as f:
                lines = [l.split() for l in f]
            end = int(lines[-1][1])
            batches = [tuple(int(x) for x in l) for l in lines[:-1]]
            if not batches:
                continue
            seg_bases = sorted({b[0] for b in batches})
            bounds = sorted({b[1] for b in batches})
            if len(bounds) > 120:  # every boundary of the in-process cases; a sample of the brokers' large ones
                keep = set(rng.sample(bounds, 120)) | set(seg_bases) | {bounds[0], bounds[-1]}
                bounds = sorted(keep)
            cuts = set(bounds) | {end}
            cuts |= {b[1] + 1 for b in rng.sample(batches, min(6, len(batches))) if b[2] > b[1]}
            if seg_bases[0] > 0:
                cuts.add(seg_bases[0] - 1)
            for n in sorted(cuts):
                runs.append(dict(case=i, mode="to-offset", arg=n, now=0, marker=True))
            for n in sorted(rng.sample(sorted(set(bounds) | {end}), min(6, len(bounds) + 1))):
                runs.append(dict(case=i, mode="log-start", arg=n, now=0, marker=True))
            ts = sorted({b[3] for b in batches if b[3] >= 0})
            for t in ([ts[0], ts[len(ts) // 2], ts[-1] + 1] if ts else []):
                runs.append(dict(case=i, mode="to-time", arg=t, now=0, marker=True))
            for n in sorted({0, seg_bases[0], end, end + 1000}):
                runs.append(dict(case=i, mode="full", arg=n, now=0, marker=True))
            if ts:
                for dt in (-HOUR, 0, 1, HOUR):
                    runs.append(dict(case=i, mode="retention-ms", arg=HOUR, now=ts[len(ts) // 2] + HOUR + dt, marker=True))
                runs.append(dict(case=i, mode="retention-ms", arg=0, now=ts[-1] + 1, marker=True))
            size = sum(os.path.getsize(os.path.join(tmp, "in", str(i), part, n))
                       for n in os.listdir(os.path.join(tmp, "in", str(i), part)) if n.endswith(".log"))
            for b in sorted({0, size // 3, size // 2, size - 1, size}):
                runs.append(dict(case=i, mode="retention-bytes", arg=b, now=0, marker=True))
            for n in rng.sample(sorted(cuts), min(3, len(cuts))):
                runs.append(dict(case=i, mode="to-offset", arg=n, now=0, marker=False))
        kafka_jobs, load_jobs = [], []
        for k, r in enumerate(runs):
            case, part = CASES[r["case"]]
            r["id"] = k
            base = os.path.join(tmp, "r", str(k))
            for side in ("kseg", "kafka"):
                shutil.copytree(os.path.join(tmp, "in", str(r["case"])), os.path.join(base, side), symlinks=True)
                os.remove(os.path.join(base, side, "batches.txt"))
                if not r["marker"]:
                    os.remove(os.path.join(base, side, ".kafka_cleanshutdown"))
            r["before"] = tree_sum(os.path.join(base, "kseg"))
            mode, arg, now, cfg = kafka_job(r["mode"], r["arg"], r["now"], topic_config(corpus_case(case), part))
            kafka_jobs.append("\t".join([mode, os.path.join(base, "kafka", part), arg, now, base + ".kafka.txt"] + cfg))
            p = subprocess.run([kseg, "--no-backup", *kseg_args(r["mode"], r["arg"], r["now"]),
                                os.path.join(base, "kseg", part)], capture_output=True, text=True)
            r["rc"], r["out"] = p.returncode, p.stdout + p.stderr
        with open(os.path.join(tmp, "kafka.tsv"), "w") as f:
            f.write("\n".join(kafka_jobs) + "\n")
        java(cp, "kseg.oracle.Truncate", os.path.join(tmp, "kafka.tsv"))

        # 3. crash injection: four cuts, every step
        crash = []
        picks = [("transactions", "to-offset"), ("v2-none", "log-start"), ("idempotent", "full"),
                 ("live-broker", "to-offset"), ("transactions-tv2", "to-time"), ("v2-zstd", "retention-ms"),
                 ("leader-epochs-retention", "retention-bytes")]
        for case_name, mode in picks:
            cand = [r for r in runs if CASES[r["case"]][0] == case_name and r["mode"] == mode and r["marker"]
                    and r["rc"] == 0 and "nothing to" not in r["out"]]
            if not cand:
                bad(f"crash injection: no {mode} run of {case_name} to crash")
                continue
            r = cand[len(cand) // 2]
            case, part = CASES[r["case"]]
            for s in [f"{st}:{n}" for n in (1, 2, 3, 4, 5) for st in STEPS]:
                w = os.path.join(tmp, "crash", f"{r['id']}-{s.replace(':', '-')}")
                shutil.copytree(os.path.join(tmp, "in", str(r["case"])), w, symlinks=True)
                os.remove(os.path.join(w, "batches.txt"))
                p = subprocess.run([kseg, *kseg_args(r["mode"], r["arg"], r["now"]), os.path.join(w, part)],
                                   capture_output=True, text=True, env=dict(os.environ, KSEG_CRASH_AT=s))
                unclean = not os.path.exists(os.path.join(w, ".kafka_cleanshutdown"))
                shutil.copytree(w, w + ".rerun", symlinks=True)
                subprocess.run([kseg, *kseg_args(r["mode"], r["arg"], r["now"]), os.path.join(w + ".rerun", part)],
                               capture_output=True, text=True)
                load_jobs.append("\t".join([w + ".load", os.path.join(w, part)] + (["--unclean"] if unclean else [])))
                crash.append(dict(run=r, step=s, dir=w, rc=p.returncode, unclean=unclean))

        # A JVM holding the log dir's .lock as a broker does: refused, nothing changed.
        w = os.path.join(tmp, "locked")
        shutil.copytree(os.path.join(tmp, "in", "0"), w, symlinks=True)
        check_refused_while_jvm_holds_lock(cp, w, [kseg, "--to-offset", "1", os.path.join(w, CASES[0][1])])

        # 4. Kafka loads everything
        for i, (case, part) in enumerate(CASES):
            load_jobs.append("\t".join([os.path.join(tmp, "in", f"{i}.load"), os.path.join(tmp, "in", str(i), part)]))
        for r in runs:
            case, part = CASES[r["case"]]
            base = os.path.join(tmp, "r", str(r["id"]))
            for side in ("kseg", "kafka"):
                unclean = not os.path.exists(os.path.join(base, side, ".kafka_cleanshutdown"))
                load_jobs.append("\t".join([f"{base}.{side}.load", os.path.join(base, side, part)] +
                                           (["--unclean"] if unclean else [])))
        with open(os.path.join(tmp, "load.tsv"), "w") as f:
            f.write("\n".join(load_jobs) + "\n")
        java(cp, "kseg.oracle.LoadCheckBatch", os.path.join(tmp, "load.tsv"))

        # 5. verdicts
        cut_points = 0
        for r in runs:
            case, part = CASES[r["case"]]
            base = os.path.join(tmp, "r", str(r["id"]))
            what = f"{case}/{part} {' '.join(kseg_args(r['mode'], r['arg'], r['now']))}" + ("" if r["marker"] else " (no marker)")
            with open(base + ".kafka.txt") as f:
                kafka = dict(l.rstrip("\n").split(" ", 1) for l in f)
            if "refused" in kafka:
                # Kafka refuses (e.g. an offset beyond the high watermark): so must kseg, changing nothing.
                if r["rc"] in (1, 2) and tree_sum(os.path.join(base, "kseg")) == r["before"]:
                    ok()
                else:
                    bad(f"{what}: Kafka refused ({kafka['refused']}), kseg exited {r['rc']}: {r['out'].strip()}")
                continue
            if r["rc"] != 0:
                bad(f"{what}: kseg exited {r['rc']}: {r['out'].strip()}")
                continue
            diffs = []
            kpart, jpart = os.path.join(base, "kseg", part), os.path.join(base, "kafka", part)
            buf = io.StringIO()
            with contextlib.redirect_stdout(buf):
                truncate_compare.main(kpart, jpart)
            diffs += buf.getvalue().splitlines()
            if "nothing to change" in r["out"]:
                # A run with nothing to cut changes no file (a re-run is a no-op), so a snapshot at
                # the log start stays where Kafka's own load deleted it: its next load deletes it.
                start = int(kafka["log_start_offset"])
                diffs = [d for d in diffs if not (d.endswith(".snapshot: only in kseg's result")
                                                  and int(d.split(".")[0]) <= start)]
            marker = os.path.join(base, "kseg", ".kafka_cleanshutdown")
            if r["marker"] and (not os.path.exists(marker) or open(marker, "rb").read()
                                != open(os.path.join(tmp, "in", str(r["case"]), ".kafka_cleanshutdown"), "rb").read()):
                diffs.append("the clean-shutdown marker is not back as it was")
            if not r["marker"] and os.path.exists(marker):
                diffs.append("a clean-shutdown marker appeared")
            kl, jl = base + ".kseg.load", base + ".kafka.load"
            if any(l.startswith("# load failed") for l in open(kl)):
                diffs.append("Kafka cannot load kseg's result: " + [l for l in open(kl) if l.startswith("# load failed")][0].strip())
            elif body(kl) != body(jl):
                diffs.append("Kafka's load digests differ")
            if r["mode"] == "to-offset" and not diffs:
                end = int(kafka["log_end_offset"])
                want = [l for l in records(os.path.join(tmp, "in", f"{r['case']}.load"))
                        if int(l.split()[0][7:]) < end]
                if records(kl) != want:
                    diffs.append(f"the records Kafka loads are not the original's below {end}")
            before = tree_sum(os.path.join(base, "kseg"))
            p = subprocess.run([kseg, "--no-backup", *kseg_args(r["mode"], r["arg"], r["now"]), kpart],
                               capture_output=True, text=True)
            if tree_sum(os.path.join(base, "kseg")) != before or p.returncode not in (0, 2):
                diffs.append(f"a second run changed something (exit {p.returncode}): {p.stdout.strip()}")
            if diffs:
                bad(f"{what}: " + "; ".join(diffs))
            else:
                ok()
                cut_points += 1
        by_mode = {}
        for r in runs:
            by_mode[r["mode"]] = by_mode.get(r["mode"], 0) + 1
        print(f"cuts: {len(runs)} runs over {len(CASES)} partitions ({', '.join(f'{m} {n}' for m, n in sorted(by_mode.items()))}); "
              f"{cut_points} identical to Kafka's own cut and loaded with Kafka's digest")
        crashed = 0
        for c in crash:
            r, s, w = c["run"], c["step"], c["dir"]
            case, part = CASES[r["case"]]
            what = f"crash {case}/{part} {' '.join(kseg_args(r['mode'], r['arg'], r['now']))} at {s}"
            if c["rc"] not in (0, 86):
                bad(f"{what}: exit {c['rc']}")
                continue
            crashed += c["rc"] == 86
            load = open(w + ".load").read().splitlines()
            expected = records(os.path.join(tmp, "r", str(r["id"]) + ".kafka.load"))
            # Offsets are never reused, deleted records never come back: the log end is at least
            # where the cut or the original ends, the log start at least where both start.
            def value(lines, key):
                return next((int(l.split()[1]) for l in lines if l.startswith(key + " ")), None)
            orig = open(os.path.join(tmp, "in", f"{r['case']}.load")).read().splitlines()
            result = open(os.path.join(tmp, "r", str(r["id"]) + ".kafka.load")).read().splitlines()
            leo, lso = value(load, "log_end_offset"), value(load, "log_start_offset")
            got = set(l + "\n" for l in load if l.startswith("offset="))
            if any(l.startswith("# load failed") for l in load):
                bad(f"{what}: Kafka's load failed: {[l for l in load if l.startswith('# load failed')][0]}")
            elif not set(expected) <= got:
                bad(f"{what}: Kafka's {'unclean' if c['unclean'] else 'clean'} load lost records that should remain")
            elif leo < min(value(orig, "log_end_offset"), value(result, "log_end_offset")) or \
                    lso < min(value(orig, "log_start_offset"), value(result, "log_start_offset")):
                bad(f"{what}: Kafka loads the log at [{lso}, {leo}): below both the original and the cut")
            else:
                buf = io.StringIO()
                with contextlib.redirect_stdout(buf):
                    same = truncate_compare.main(os.path.join(w + ".rerun", part),
                                                 os.path.join(tmp, "r", str(r["id"]), "kafka", part)) == 0
                marker = os.path.join(w + ".rerun", ".kafka_cleanshutdown")
                if same and not os.path.exists(os.path.join(w + ".rerun", part, "truncate.kseg-journal")) and \
                        os.path.exists(marker) and open(marker, "rb").read() == \
                        open(os.path.join(tmp, "in", str(r["case"]), ".kafka_cleanshutdown"), "rb").read():
                    ok()
                elif same:
                    bad(f"{what}: the re-run did not put the clean-shutdown marker back or left its journal")
                else:
                    bad(f"{what}: the re-run did not end with Kafka's result: {buf.getvalue().strip()}")
        print(f"crash injection: {len(crash)} runs ({len(picks)} cuts x {len(STEPS)} steps x their 1st to 5th time), "
              f"{crashed} crashed there; Kafka loads every state with the records that should remain and no offset "
              "reused, re-runs end with Kafka's result and the clean-shutdown marker back")
    finally:
        if os.environ.get("KSEG_KEEP_TMP"):
            print("kept " + tmp)
        else:
            shutil.rmtree(tmp, ignore_errors=True)
    print(f"{tally['passed']} passed, {tally['failed']} failed")
    return 1 if tally["failed"] else 0


if __name__ == "__main__":
    sys.exit(main())
