# SPDX-License-Identifier: Apache-2.0
"""What the Kafka oracles (truncate-oracle.py, compact-oracle.py) share: the tally, the
harness's JVM, and digests of directory trees and of LoadCheck output."""
import hashlib
import os
import subprocess

HERE = os.path.dirname(os.path.abspath(__file__))
tally = {"passed": 0, "failed": 0}


def ok():
    tally["passed"] += 1


def bad(msg):
    tally["failed"] += 1
    print("FAIL: " + msg)


def classpath():
    return subprocess.run(["bash", "-c", f"source {HERE}/lib.sh; oracle_classpath"], check=True,
                          capture_output=True, text=True).stdout.strip()


def java(cp, cls, *args, heap="1g"):
    flags = [f"-Xmx{heap}", "-XX:+UseSerialGC", "-XX:TieredStopAtLevel=1", "-Xshare:auto"]
    if subprocess.run(["java", *flags, "-cp", cp, cls, *args]).returncode != 0:
        raise SystemExit(f"{cls} {' '.join(args)}: the JVM failed")


def tree_sum(d, mtimes=False):
    """One hash of every file under d (names, bytes, and ms mtimes if asked), backups left out."""
    h = hashlib.sha256()
    for root, dirs, files in os.walk(d):
        dirs[:] = sorted(x for x in dirs if not x.startswith(".kseg-backup-"))
        for n in sorted(files):
            p = os.path.join(root, n)
            h.update(os.path.relpath(p, d).encode())
            if mtimes:
                h.update(str(int(os.stat(p).st_mtime * 1000)).encode())
            with open(p, "rb") as f:
                h.update(f.read())
    return h.hexdigest()


def body(path):
    """A LoadCheck digest without its comment lines."""
    with open(path) as f:
        return [l for l in f if not l.startswith("#")]


def records(path):
    return [l for l in body(path) if l.startswith("offset=")]


def check_refused_while_jvm_holds_lock(cp, log_dir, argv):
    """Runs argv while a JVM holds log_dir/.lock as a broker does (HoldLock): it must exit 3,
    name the holder, and change nothing."""
    flags = ["-Xmx256m", "-XX:+UseSerialGC", "-XX:TieredStopAtLevel=1"]
    hold = subprocess.Popen(["java", *flags, "-cp", cp, "kseg.oracle.HoldLock", log_dir], stdin=subprocess.PIPE,
                            stdout=subprocess.PIPE, text=True)
    line = hold.stdout.readline().strip()
    before = tree_sum(log_dir, mtimes=True)
    p = subprocess.run(argv, capture_output=True, text=True)
    hold.stdin.close()
    hold.wait()
    if line == "locked" and p.returncode == 3 and "is locked by process" in p.stderr and tree_sum(log_dir, mtimes=True) == before:
        ok()
        print("lock: refused while a JVM held .lock: " + p.stderr.strip().splitlines()[0])
    else:
        bad(f"lock: exit {p.returncode} with a JVM holding .lock ({line}): {p.stderr.strip()}")


# A case named <corpus case>+delete-records is that corpus case after Kafka's own DeleteRecords
# to its second segment's base (maybeIncrementLogStartOffset, deleteOldSegments, then a broker's
# shutdown): Kafka leaves the producer snapshot at the new log start on disk and deletes it at
# its next load, so the producers only it holds are gone. Every loader of kseg must agree.
DELETE_RECORDS = "+delete-records"


def corpus_case(case):
    return case.split("+")[0]


def prepare(cp, corpus, tmp, cases, config):
    """Truncate prepare of every (case, part) into tmp/in/<i> as a broker's clean shutdown leaves
    it (config(case, part): its key=value strings), then the +delete-records cases' DeleteRecords
    by Kafka (batches.txt keeps the batches of the segments left)."""
    jobs = []
    for i, (case, part) in enumerate(cases):
        src = os.path.join(corpus, corpus_case(case), part)
        if not os.path.isdir(src):
            bad(f"{case}/{part}: not in the corpus")
            continue
        jobs.append("\t".join(["prepare", src, os.path.join(tmp, "in", str(i))] + config(corpus_case(case), part)))
    with open(os.path.join(tmp, "prepare.tsv"), "w") as f:
        f.write("\n".join(jobs) + "\n")
    java(cp, "kseg.oracle.Truncate", os.path.join(tmp, "prepare.tsv"))
    jobs, kept = [], {}
    for i, (case, part) in enumerate(cases):
        d = os.path.join(tmp, "in", str(i))
        if not case.endswith(DELETE_RECORDS) or not os.path.isdir(d):
            continue
        with open(os.path.join(d, "batches.txt")) as f:
            lines = f.read().splitlines()
        bases = sorted({int(l.split()[0]) for l in lines[:-1]})
        if len(bases) < 2 or not os.path.exists(os.path.join(d, part, f"{bases[1]:020d}.snapshot")):
            bad(f"{case}/{part}: no second segment with a producer snapshot to delete records up to")
            continue
        kept[i] = [l for l in lines[:-1] if int(l.split()[0]) >= bases[1]] + lines[-1:]
        jobs.append("\t".join(["log-start", os.path.join(d, part), str(bases[1]), "0", d + ".deleted.txt"]
                              + config(corpus_case(case), part)))
    if jobs:
        with open(os.path.join(tmp, "delete-records.tsv"), "w") as f:
            f.write("\n".join(jobs) + "\n")
        java(cp, "kseg.oracle.Truncate", os.path.join(tmp, "delete-records.tsv"))
    for i, lines in kept.items():
        d = os.path.join(tmp, "in", str(i))
        with open(os.path.join(d, "batches.txt"), "w") as f:
            f.write("\n".join(lines) + "\n")
        part = cases[i][1]
        base = int(lines[0].split()[0])
        if not os.path.exists(os.path.join(d, part, f"{base:020d}.snapshot")):
            bad(f"{cases[i][0]}/{part}: Kafka's DeleteRecords left no snapshot at the log start {base}")
