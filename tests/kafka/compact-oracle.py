#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""kseg-compact against Kafka 4.4.0's own log cleaner (a few JVM runs in all).

For each case (a partition written by Kafka: in-process corpus cases, the live 4.4 broker's, the
2.8 broker's, the coordinators' __consumer_offsets and __transaction_state, two after Kafka's own
DeleteRecords to a segment base, which leaves a producer snapshot exactly at the log start:
oracle_common.DELETE_RECORDS), prepared as a broker's clean shutdown leaves it (Truncate prepare), and for each run (a list of rounds, each at
its own clock, with one topic config and one offset map size):
  - Kafka's cleaner (Compact: LogCleanerManager.cleanableOffsets, Cleaner.doClean, the cleaner
    checkpoint advanced) cleans one copy, kseg-compact the other, round by round;
  - the partitions are compared: the same files; .timeindex, .txnindex, leader epochs and the
    cleaner-offset-checkpoint line identical; snapshots with the same entries; each .log either
    byte-identical (then its .index too) or, where a compressed batch was rebuilt and the codec
    library's bytes differ, the same batches with the same header fields and records (Compact
    digest) and an .index with the same offsets; the same .log mtimes;
  - Kafka loads both (LoadCheck) with the same digest;
  - a second kseg run at the last clock changes no file when the first left nothing dirty.
Runs: two rounds (the second past the delete horizon the first stamps; kseg with its own map, as
users run it, Kafka with a map of 128 MiB), the same with kseg's map of 7 keys (--memory 256: the
keys spill, compact_spill.h, and the one round must still be Kafka's), the same with a 1 MiB
segment size (groups merge), a map of 4 keys and of 16 keys run until clean (many rounds; one
spilled round of kseg's must keep the records Kafka's rounds of 4 keys keep), and
min.compaction.lag.ms holding back the newer half.
Crash injection: KSEG_CRASH_AT=<step>:<n> at every step of the swap and of the checkpoint write
for a few runs; Kafka loads what the crash left with every record Kafka's own result has and no
record the input did not have, and a re-run ends with Kafka's digest.
Usage: compact-oracle.py KSEG_COMPACT      Prints "N passed, M failed"; exits 1 on failure.
"""
import json
import os
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

CASES = [
    ("v2-none", "orders-0"), ("v2-gzip", "orders-0"), ("v2-snappy", "orders-0"), ("v2-lz4", "orders-0"),
    ("v2-zstd", "orders-0"), ("v1-none", "orders-0"), ("v1-gzip", "orders-0"), ("v0-none", "orders-0"),
    ("v0-snappy", "orders-0"), ("mixed-magic", "upgrade-0"), ("transactions", "ledger-0"),
    ("transactions-tv2", "ledger-0"), ("idempotent", "payments-0"), ("compacted", "accounts-0"),
    ("cleaned-transactions", "balances-0"), ("log-append-time", "clicks-0"), ("binary-values", "bytes-0"),
    ("consumer-offsets", "__consumer_offsets-0"), ("transaction-state", "__transaction_state-0"),
    ("live-broker", "ledger-0"), ("live-broker", "accounts-0"), ("live-broker", "idempotent-0"),
    ("live-broker", "kcat-zstd-0"), ("live-broker", "codec-gzip-0"), ("live-broker", "__consumer_offsets-0"),
    ("live-broker", "__transaction_state-0"), ("legacy-broker", "v0-gzip-0"), ("legacy-broker", "v1-lz4-0"),
    ("legacy-broker", "compacted-v1-0"), ("legacy-broker", "__consumer_offsets-0"),
    ("transactions" + DELETE_RECORDS, "ledger-0"), ("transactions-tv2" + DELETE_RECORDS, "ledger-0"),
]
KSEG_KEYS = ("delete.retention.ms", "min.compaction.lag.ms", "segment.bytes", "internal.segment.bytes",
             "segment.index.bytes", "index.interval.bytes", "cleanup.policy")
CRASH_STEPS = ["cleaned-partial", "cleaned-written", "swap-partial", "swapped", "backup-partial", "backup-done",
               "remove-partial", "removed", "group-done", "tmp-written", "rename-partial", "renamed", "done",
               "round-done"]
HOUR = 3_600_000
MAP = 128 << 20










def case_config(case, part):
    try:
        with open(os.path.join(CORPUS, case, "case.json")) as f:
            for p in json.load(f).get("partitions", []):
                if p.get("dir") == part:
                    return {k: str(v) for k, v in p.get("topic_config", {}).items()}
    except (OSError, ValueError):
        pass
    return {}






def read(p):
    with open(p, "rb") as f:
        return f.read()


def cleaner_line(log_dir, tp):
    return truncate_compare.line(log_dir, "cleaner-offset-checkpoint", tp)




def run_kseg(kseg, part_dir, r, env=None, check=True, changed=None, spilled=None):
    """Every round of run `r` on part_dir; the exit code of the first that fails (or 0). Appends
    to `changed` whether each run changed the partition (its JSON status), to `spilled` whether
    its keys went through the spill files."""
    for now, until in r["rounds"]:
        args = [kseg, part_dir, "--now", str(now), "--json"]
        # Kafka's map size, or (none) kseg's own map within --memory: one round for the whole
        # dirty section, spilled when its keys do not fit.
        args += ["--memory", str(r["memory"])] if r.get("memory") else [] if r.get("one_pass") else \
            ["--offset-map-bytes", str(r["map"])]
        args += [f"--config={k}={v}" for k, v in r["cfg"].items() if k in KSEG_KEYS]
        if until:
            # Until clean, bounded as Kafka's side is (200 rounds, each clean round ends the run):
            # --until-clean refuses a map smaller than a segment's keys, which these runs use on purpose.
            args += ["--rounds", "200"]
        p = subprocess.run(args, capture_output=True, text=True, env=env)
        if p.returncode != 0:
            return p.returncode, p.stderr
        if changed is not None:
            parts = json.loads(p.stdout)["partitions"]
            changed.append(any(x.get("status") != "unchanged" for x in parts))
            if spilled is not None:
                spilled.append(any((x["offset_map"].get("spill") or {}).get("records", 0) > 0
                                   for q in parts for x in q.get("rounds", [])))
    return 0, ""


def main():
    kseg = os.path.abspath(sys.argv[1])
    cp = classpath()
    tmp = tempfile.mkdtemp(prefix="kseg-compact-oracle-")
    try:
        prepare(cp, CORPUS, tmp, CASES, lambda case, part: [f"{k}={v}" for k, v in case_config(case, part).items()])

        runs = []
        for i, (case, part) in enumerate(CASES):
            if not os.path.isdir(os.path.join(tmp, "in", str(i))):
                continue
            with open(os.path.join(tmp, "in", str(i), "batches.txt")) as f:
                lines = [l.split() for l in f]
            ts = sorted(int(l[3]) for l in lines[:-1] if int(l[3]) >= 0) or [1_700_000_000_000]
            t = ts[-1] + HOUR
            base = case_config(corpus_case(case), part)
            base.update({"cleanup.policy": "compact", "delete.retention.ms": str(HOUR)})
            big = dict(base, **{"internal.segment.bytes": "1048576"})
            lag = dict(base, **{"min.compaction.lag.ms": str(t - ts[len(ts) // 2])})
            # kseg as users run it (its own map, one round each) against Kafka's map of 128 MiB.
            runs.append(dict(case=i, name="two rounds", cfg=base, map=MAP, one_pass=True,
                             rounds=[(t, False), (t + 2 * HOUR, False)]))
            # kseg's map of 7 keys: every partition of more keys spills them (compact_spill.h), and
            # the one round must still be Kafka's round with a map that holds them all.
            runs.append(dict(case=i, name="one pass, spilled", cfg=base, map=MAP, memory=256,
                             rounds=[(t, False), (t + 2 * HOUR, False)]))
            runs.append(dict(case=i, name="1 MiB segments", cfg=big, map=MAP, rounds=[(t, False), (t + 2 * HOUR, False)]))
            runs.append(dict(case=i, name="map of 4 keys", cfg=base, map=24 * 5, rounds=[(t, True)]))
            runs.append(dict(case=i, name="map of 16 keys", cfg=big, map=24 * 18, rounds=[(t, True), (t + 2 * HOUR, True)]))
            runs.append(dict(case=i, name="min.compaction.lag.ms", cfg=lag, map=MAP, rounds=[(t, False)]))
        kafka_jobs = []
        for k, r in enumerate(runs):
            r["id"] = k
            d = os.path.join(tmp, "r", str(k))
            for side in ("kseg", "kafka", "input"):
                shutil.copytree(os.path.join(tmp, "in", str(r["case"])), os.path.join(d, side), symlinks=True)
                os.remove(os.path.join(d, side, "batches.txt"))
            nows = ",".join(f"{200 if until else 1}*{now}" for now, until in r["rounds"])
            part = CASES[r["case"]][1]
            kafka_jobs.append("\t".join(["clean", os.path.join(d, "kafka", part), nows, str(r["map"]),
                                         os.path.join(d, "kafka.result")] + [f"{a}={b}" for a, b in r["cfg"].items()]))
        with open(os.path.join(tmp, "kafka.tsv"), "w") as f:
            f.write("\n".join(kafka_jobs) + "\n")
        java(cp, "kseg.oracle.Compact", os.path.join(tmp, "kafka.tsv"), heap="2g")

        digest_jobs, load_jobs = [], []
        for r in runs:
            d = os.path.join(tmp, "r", str(r["id"]))
            part = CASES[r["case"]][1]
            kres = open(os.path.join(d, "kafka.result")).read()
            r["kafka_refused"] = "refused" in kres
            r["kafka_rounds"] = kres.count("round ")
            r["changed"], r["spilled"] = [], []
            rc, err = run_kseg(kseg, os.path.join(d, "kseg", part), r, changed=r["changed"], spilled=r["spilled"])
            r["rc"], r["err"] = rc, err
            if r["name"] == "map of 4 keys":
                # The same records as Kafka's rounds of 4 keys, from one spilled round of kseg's.
                shutil.copytree(os.path.join(d, "input"), os.path.join(d, "onepass"), symlinks=True)
                r["onepass_rc"], r["onepass_err"] = run_kseg(kseg, os.path.join(d, "onepass", part),
                                                             dict(r, rounds=[(r["rounds"][0][0], False)], memory=256))
                load_jobs.append("\t".join([os.path.join(d, "onepass.load"), os.path.join(d, "onepass", part)]))
            for side in ("kseg", "kafka"):
                digest_jobs.append("\t".join(["digest", os.path.join(d, side, part), os.path.join(d, side + ".digest")]))
                load_jobs.append("\t".join([os.path.join(d, side + ".load"), os.path.join(d, side, part)]))
            load_jobs.append("\t".join([os.path.join(d, "input.load"), os.path.join(d, "input", part)]))
        with open(os.path.join(tmp, "digest.tsv"), "w") as f:
            f.write("\n".join(digest_jobs) + "\n")
        java(cp, "kseg.oracle.Compact", os.path.join(tmp, "digest.tsv"))
        with open(os.path.join(tmp, "load.tsv"), "w") as f:
            f.write("\n".join(load_jobs) + "\n")
        java(cp, "kseg.oracle.LoadCheckBatch", os.path.join(tmp, "load.tsv"))

        identical_logs = differing_logs = rounds_total = spilled_runs = onepass_same = 0
        for r in runs:
            d = os.path.join(tmp, "r", str(r["id"]))
            case, part = CASES[r["case"]]
            what = f"{case}/{part} ({r['name']})"
            rounds_total += r["kafka_rounds"]
            if r["kafka_refused"]:
                if r["rc"] == 0:
                    bad(f"{what}: Kafka's cleaner refused ({open(os.path.join(d, 'kafka.result')).read().strip()}), kseg did not")
                else:
                    ok()
                continue
            if r["rc"] != 0:
                bad(f"{what}: kseg-compact failed (exit {r['rc']}): {r['err'].strip()}")
                continue
            spilled_runs += any(r["spilled"])
            if "onepass_rc" in r:
                if r["onepass_rc"] != 0:
                    bad(f"{what}: kseg-compact --memory 256 failed (exit {r['onepass_rc']}): {r['onepass_err'].strip()}")
                elif records(os.path.join(d, "onepass.load")) != records(os.path.join(d, "kafka.load")):
                    bad(f"{what}: one spilled round of kseg's keeps other records than Kafka's {r['kafka_rounds']} rounds")
                else:
                    ok()
                    onepass_same += 1
            k, j = os.path.join(d, "kseg", part), os.path.join(d, "kafka", part)
            diffs = []
            fk, fj = truncate_compare.files(k), truncate_compare.files(j)
            start = truncate_compare.line(os.path.dirname(k), "log-start-offset-checkpoint", part) or \
                min(int(n[:20]) for n in fk if n.endswith(".log"))
            for n in sorted(fk ^ fj):
                # A run that cleans nothing changes no file, so a snapshot at the log start stays where
                # Kafka's own load (before it cleans) deleted it: its next load deletes it.
                if n in fk and n.endswith(".snapshot") and int(n[:20]) <= start and not any(r["changed"]):
                    continue
                diffs.append(f"{n}: only in {'kseg' if n in fk else 'Kafka'}'s result")
            same_log = {}
            for n in sorted(fk & fj):
                a, b = read(os.path.join(k, n)), read(os.path.join(j, n))
                if n.endswith(".log"):
                    same_log[n[:-4]] = a == b
                    if int(os.stat(os.path.join(k, n)).st_mtime * 1000) != int(os.stat(os.path.join(j, n)).st_mtime * 1000):
                        diffs.append(f"{n}: mtime differs")
            for n in sorted(fk & fj):
                a, b = read(os.path.join(k, n)), read(os.path.join(j, n))
                if n.endswith(".log"):
                    if a == b:
                        identical_logs += 1
                    else:
                        differing_logs += 1
                    continue
                if n.endswith(".index") and not same_log.get(n[:-6], True):
                    same = [a[i:i + 4] for i in range(0, len(a), 8)] == [b[i:i + 4] for i in range(0, len(b), 8)]
                elif n.endswith(".snapshot"):
                    same = a[:2] == b[:2] and truncate_compare.snapshot_entries(a) == truncate_compare.snapshot_entries(b)
                else:
                    same = a == b
                if not same:
                    diffs.append(f"{n}: differs ({len(a)} bytes from kseg, {len(b)} from Kafka)")
            if read(os.path.join(d, "kseg.digest")) != read(os.path.join(d, "kafka.digest")):
                diffs.append("batches or records differ (Compact digest)")
            lk, lj = cleaner_line(os.path.join(d, "kseg"), part), cleaner_line(os.path.join(d, "kafka"), part)
            if lk != lj:
                diffs.append(f"cleaner-offset-checkpoint: {lk} from kseg, {lj} from Kafka")
            if body(os.path.join(d, "kseg.load")) != body(os.path.join(d, "kafka.load")):
                diffs.append("Kafka's load digests differ")
            if diffs:
                bad(f"{what}: " + "; ".join(diffs))
                continue
            ok()
            # nothing dirty left: a second run changes nothing
            before = tree_sum(os.path.join(d, "kseg"), mtimes=True)
            last = dict(r, rounds=[r["rounds"][-1]])
            rc, err = run_kseg(kseg, k, last)
            if rc != 0 or tree_sum(os.path.join(d, "kseg"), mtimes=True) != before:
                if "map of" not in r["name"]:
                    bad(f"{what}: a second run changed the partition (exit {rc}) {err.strip()}")
                else:
                    ok()
            else:
                ok()
        print(f"runs: {len(runs)} over {len(CASES)} partitions, {rounds_total} cleaning rounds by Kafka; .log files "
              f"{identical_logs} byte-identical, {differing_logs} with the same batches and records only; "
              f"{spilled_runs} runs spilled their keys (one pass, --memory 256: a map of 7 keys); "
              f"{onepass_same} single spilled rounds keep the records of Kafka's rounds of 4 keys")
        many = [r for r in runs if r["name"] == "one pass, spilled" and r["rc"] == 0 and not r["kafka_refused"]]
        if sum(any(r["spilled"]) for r in many) * 2 < len(many):
            bad(f"only {sum(any(r['spilled']) for r in many)} of {len(many)} runs with --memory 256 spilled")

        # A JVM holding the log dir's .lock as a broker does: refused, nothing changed.
        w = os.path.join(tmp, "locked")
        shutil.copytree(os.path.join(tmp, "in", "0"), w, symlinks=True)
        check_refused_while_jvm_holds_lock(cp, w, [kseg, os.path.join(w, CASES[0][1]), "--config=cleanup.policy=compact"])

        # A full disk (a small tmpfs, filled up to a few KiB): exit 3 naming the file, nothing changed
        # and nothing left behind. Needs mount(2) (root); skipped, and said so, without it.
        full = os.path.join(tmp, "full")
        os.makedirs(full)
        if subprocess.run(["mount", "-t", "tmpfs", "-o", "size=1m", "tmpfs", full], capture_output=True).returncode == 0:
            try:
                shutil.copytree(os.path.join(tmp, "in", "0"), os.path.join(full, "d"), symlinks=True)
                st = os.statvfs(full)
                with open(os.path.join(full, "filler"), "wb") as f:
                    f.write(b"\0" * max(0, st.f_bavail * st.f_frsize - 4096))
                d = os.path.join(full, "d")
                before = tree_sum(os.path.join(d, CASES[0][1]), mtimes=True)
                p = subprocess.run([kseg, os.path.join(d, CASES[0][1]), "--config=cleanup.policy=compact", "--now",
                                    "1800000000000"], capture_output=True, text=True)
                after = tree_sum(os.path.join(d, CASES[0][1]), mtimes=True)
                if p.returncode == 3 and "No space left on device" in p.stderr and before == after:
                    ok()
                    print("full disk: " + p.stderr.strip().splitlines()[-1])
                else:
                    bad(f"full disk: exit {p.returncode}, partition {'unchanged' if before == after else 'changed'}: "
                        f"{p.stderr.strip()}")
            finally:
                subprocess.run(["umount", full])
        else:
            print("full disk: skipped (mount -t tmpfs refused: not root)")

        # crash injection
        crash_runs = [r for r in runs if r["name"] == "two rounds" and not r["kafka_refused"]
                      and CASES[r["case"]][0] in ("compacted", "transactions", "v2-zstd", "consumer-offsets")]
        crash_loads, states = [], []
        for r in crash_runs:
            d = os.path.join(tmp, "r", str(r["id"]))
            part = CASES[r["case"]][1]
            for step in CRASH_STEPS:
                for n in (1, 2):
                    c = os.path.join(tmp, "c", f"{r['id']}-{step}-{n}")
                    shutil.copytree(os.path.join(d, "input"), c, symlinks=True)
                    env = dict(os.environ, KSEG_CRASH_AT=f"{step}:{n}")
                    rc, _ = run_kseg(kseg, os.path.join(c, part), r, env=env)
                    states.append((r, c, step, n, rc))
                    crash_loads.append("\t".join([os.path.join(c, "crash.load"), os.path.join(c, part)]))
        with open(os.path.join(tmp, "crash.tsv"), "w") as f:
            f.write("\n".join(crash_loads) + "\n")
        java(cp, "kseg.oracle.LoadCheckBatch", os.path.join(tmp, "crash.tsv"))
        crashed = 0
        rerun_loads = []
        for r, c, step, n, rc in states:
            d = os.path.join(tmp, "r", str(r["id"]))
            part = CASES[r["case"]][1]
            what = f"{CASES[r['case']][0]}/{part} crash at {step}:{n}"
            crashed += rc == 86
            got = set(records(os.path.join(c, "crash.load")))
            want = set(records(os.path.join(d, "kafka.load")))
            had = set(records(os.path.join(d, "input.load")))
            if not got or not want <= got or not got <= had:
                bad(f"{what}: Kafka's load lost records or found new ones ({len(want - got)} missing, {len(got - had)} new)"
                    + (" " + open(os.path.join(c, "crash.load")).read()[:200] if not got else ""))
                continue
            ok()
            rc2, err = run_kseg(kseg, os.path.join(c, part), r)
            if rc2 != 0:
                bad(f"{what}: the re-run failed: {err.strip()}")
                continue
            rerun_loads.append((r, c, what))
        with open(os.path.join(tmp, "rerun.tsv"), "w") as f:
            f.write("\n".join("\t".join([os.path.join(c, "rerun.load"), os.path.join(c, CASES[r["case"]][1])])
                              for r, c, _ in rerun_loads) + "\n")
        java(cp, "kseg.oracle.LoadCheckBatch", os.path.join(tmp, "rerun.tsv"))
        for r, c, what in rerun_loads:
            d = os.path.join(tmp, "r", str(r["id"]))
            if records(os.path.join(c, "rerun.load")) != records(os.path.join(d, "kafka.load")):
                bad(f"{what}: after the re-run, Kafka's load differs from Kafka's own cleaning")
            else:
                ok()
        print(f"crash injection: {len(states)} runs ({len(crash_runs)} runs x {len(CRASH_STEPS)} steps x their 1st and "
              f"2nd time), {crashed} crashed there; Kafka loads every state with every record its own cleaning keeps "
              f"and none the input lacked, and re-runs end with Kafka's records")
    finally:
        if os.environ.get("KSEG_KEEP_TMP"):
            print("kept", tmp)
        else:
            shutil.rmtree(tmp, ignore_errors=True)
    print(f"{tally['passed']} passed, {tally['failed']} failed")
    return 1 if tally["failed"] else 0


if __name__ == "__main__":
    sys.exit(main())
