#!/usr/bin/env python3
"""The fault campaign (issue 20): every tool of a sanitizer build on mutated
copies of each kind of file Kafka wrote, and on special files, with a time
and a peak-RSS bound per run. A run fails the campaign if it crashes (a
signal, a sanitizer report, an exit status outside kseg's 0-3), hangs (past
the time bound) or passes the RSS bound.

Usage: campaign.py BUILD_DIR [--runs N] [--seed S] [--rss-mib M] [--timeout S]
Prints the figures (runs, crashes, hangs, RSS max) and exits 1 on any failure.
"""
import argparse
import os
import random
import shutil
import signal
import subprocess
import sys
import tempfile
import threading
import time

TOP = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
CORPUS = os.path.join(TOP, "testdata", "kafka")

# (case, partition, file): one file of each kind Kafka writes.
SAMPLES = [
    ("v2-zstd", "orders-0", "00000000000000000000.log"),
    ("v1-gzip", "orders-0", "00000000000000000000.log"),
    ("v0-snappy", "orders-0", "00000000000000000000.log"),
    ("transactions", "ledger-0", "00000000000000000091.log"),
    ("v2-none", "orders-0", "00000000000000000000.index"),
    ("v2-none", "orders-0", "00000000000000000000.timeindex"),
    ("transactions", "ledger-0", "00000000000000000091.txnindex"),
    ("idempotent", "payments-0", "00000000000000000104.snapshot"),
    ("v2-none", "orders-0", "leader-epoch-checkpoint"),
    ("v2-none", "orders-0", "partition.metadata"),
    ("cluster-metadata", "__cluster_metadata-0", None),  # its KRaft .checkpoint, found below
]


def mutate(data: bytearray, rnd: random.Random) -> tuple[bytearray, str]:
    n = len(data)
    kind = rnd.choice(["flip", "zero", "truncate", "garbage", "absurd", "empty", "repeat"])
    if n == 0 or kind == "empty":
        return bytearray(), "emptied"
    if kind == "flip":
        k = rnd.choice([1, 2, 8])
        for _ in range(k):
            i = rnd.randrange(n)
            data[i] ^= 1 << rnd.randrange(8)
        return data, f"{k} bit flips"
    if kind == "zero":
        at = rnd.randrange(n)
        ln = rnd.choice([1, 4, 64, n])
        data[at:at + ln] = bytes(len(data[at:at + ln]))
        return data, f"zeroed [{at}, {at + ln})"
    if kind == "truncate":
        at = rnd.randrange(n)
        return data[:at], f"truncated to {at}"
    if kind == "garbage":
        extra = bytes(rnd.randrange(256) for _ in range(rnd.choice([1, 7, 100, 5000])))
        return data + extra, f"{len(extra)} garbage bytes appended"
    if kind == "absurd":
        at = rnd.randrange(max(1, n - 4))
        value = rnd.choice([b"\x7f\xff\xff\xff", b"\xff\xff\xff\xff", b"\x80\x00\x00\x00", b"\x00\x00\x00\x00"])
        data[at:at + 4] = value
        return data, f"4 bytes at {at} set to {value.hex()}"
    # repeat: the file twice (offsets and entries going back)
    return data + data, "doubled"


class Campaign:
    def __init__(self, build, timeout, rss_mib):
        self.build = build
        self.timeout = timeout
        self.rss_kib = rss_mib * 1024
        self.runs = self.crashes = self.hangs = self.over_rss = 0
        self.rss_max = 0
        self.failures = []

    def run(self, argv, cwd, what):
        """Runs one tool under /usr/bin/time; records crashes, hangs and RSS."""
        rss_file = os.path.join(cwd, ".rss")
        cmd = ["/usr/bin/time", "-f", "%M", "-o", rss_file, os.path.join(self.build, argv[0])] + argv[1:]
        env = dict(os.environ, ASAN_OPTIONS="detect_leaks=1:abort_on_error=0:exitcode=99",
                   UBSAN_OPTIONS="halt_on_error=1:exitcode=98")
        self.runs += 1
        try:
            p = subprocess.run(cmd, cwd=cwd, env=env, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
                               stderr=subprocess.PIPE, timeout=self.timeout)
        except subprocess.TimeoutExpired:
            self.hangs += 1
            self.failures.append(f"HANG {what}: {' '.join(argv)}")
            return
        err = p.stderr.decode("utf-8", "replace")
        try:
            timed = open(rss_file).read()
        except OSError:
            timed = ""
        words = timed.split()
        rss = int(words[-1]) if words and words[-1].isdigit() else 0
        self.rss_max = max(self.rss_max, rss)
        rc = p.returncode
        # /usr/bin/time exits with the child's status; a killed child: "Command terminated by signal N".
        crashed = rc not in (0, 1, 2, 3) or "terminated by signal" in timed
        if "AddressSanitizer" in err or "runtime error:" in err or "LeakSanitizer" in err:
            crashed = True
        if crashed:
            self.crashes += 1
            self.failures.append(f"CRASH {what}: {' '.join(argv)} exit {rc}: {err.strip()[-400:]}")
        if rss > self.rss_kib:
            self.over_rss += 1
            self.failures.append(f"RSS {what}: {' '.join(argv)}: {rss} KiB")

    def tools_on(self, work, part, name, what):
        """Every tool, read-only and writing, on one (damaged) partition."""
        rel = os.path.join(part, name)
        self.run(["kseg-dump", "--deep-iteration", "--print-data-log", rel], work, what)
        self.run(["kseg-dump", "--format", "json", rel], work, what)
        self.run(["kseg-verify", "--deep", part], work, what)
        self.run(["kseg-verify", "--format", "json", rel], work, what)
        self.run(["kseg-reindex", "--dry-run", "--salvage", part], work, what)
        self.run(["kseg-txn", "--format", "json", part], work, what)
        self.run(["kseg-info", "--format", "json", part], work, what)
        # The filters seek with a (possibly damaged) .index and .timeindex.
        self.run(["kseg-dump", "--deep-iteration", "--from-offset", "20", "--to-offset", "60", part], work, what)
        self.run(["kseg-dump", "--format", "jsonl", "--from-time", "1700000000100", "--key", "k", part], work, what)
        self.run(["kseg-reindex", "--dry-run", "--producer-state", part], work, what)
        self.run(["kseg-truncate", "--dry-run", "--json", "--to-time", "0", part], work, what)
        self.run(["kseg-truncate", "--dry-run", "--retention-bytes", "0", part], work, what)
        self.run(["kseg-truncate", "--no-backup", "--to-offset", "50", part], work, what)
        self.run(["kseg-compact", "--dry-run", "--json", "--config", "cleanup.policy=compact", part], work, what)
        self.run(["kseg-compact", "--no-backup", "--offset-map-bytes", "2400", "--until-clean", "--config",
                  "cleanup.policy=compact", part], work, what)
        self.run(["kseg-reindex", "--no-backup", "--recover", part], work, what)


def sample_path(case, part, name):
    d = os.path.join(CORPUS, case, part)
    if name is None:
        name = sorted(f for f in os.listdir(d) if f.endswith(".checkpoint"))[0]
    return d, name


def special_files(c: Campaign, tmp):
    """Special files where Kafka keeps regular ones."""
    src = os.path.join(CORPUS, "v2-none", "orders-0")
    cases = []

    def fresh(tag):
        work = os.path.join(tmp, "special-" + tag)
        shutil.rmtree(work, ignore_errors=True)
        shutil.copytree(src, os.path.join(work, "orders-0"))
        return work, os.path.join(work, "orders-0")

    work, p = fresh("fifo")
    os.remove(os.path.join(p, "00000000000000000000.index"))
    os.mkfifo(os.path.join(p, "00000000000000000000.index"))
    cases.append((work, "FIFO .index", "00000000000000000000.index"))
    work, p = fresh("loop")
    os.symlink("loop-b", os.path.join(p, "loop-a"))
    os.symlink("loop-a", os.path.join(p, "loop-b"))
    cases.append((work, "symlink loop", "00000000000000000000.log"))
    work, p = fresh("dangling")
    os.remove(os.path.join(p, "00000000000000000000.timeindex"))
    os.symlink("/nonexistent/kseg", os.path.join(p, "00000000000000000000.timeindex"))
    cases.append((work, "dangling .timeindex", "00000000000000000000.timeindex"))
    work, p = fresh("devzero")
    os.remove(os.path.join(p, "leader-epoch-checkpoint"))
    os.symlink("/dev/zero", os.path.join(p, "leader-epoch-checkpoint"))
    cases.append((work, "/dev/zero checkpoint", "leader-epoch-checkpoint"))
    work, p = fresh("dir")
    os.remove(os.path.join(p, "00000000000000000000.index"))
    os.mkdir(os.path.join(p, "00000000000000000000.index"))
    cases.append((work, "directory .index", "00000000000000000000.index"))
    for work, what, name in cases:
        c.tools_on(work, "orders-0", name, what)
    # A .log truncated while each tool reads it (a live broker truncating it).
    big = os.path.join(tmp, "special-shrink")
    os.makedirs(os.path.join(big, "big-0"), exist_ok=True)
    seg = open(os.path.join(src, "00000000000000000000.log"), "rb").read()
    log = os.path.join(big, "big-0", "00000000000000000000.log")
    for argv in (["kseg-dump", "--deep-iteration", "big-0/00000000000000000000.log"], ["kseg-verify", "--deep", "big-0"],
                 ["kseg-reindex", "--no-backup", "big-0"], ["kseg-truncate", "--no-backup", "--to-offset", "1", "big-0"],
                 ["kseg-compact", "--no-backup", "--config", "cleanup.policy=compact", "big-0"], ["kseg-txn", "big-0"],
                 ["kseg-info", "big-0"]):
        with open(log, "wb") as f:
            for _ in range((64 << 20) // len(seg)):
                f.write(seg)
        t = threading.Timer(0.02, lambda: os.truncate(log, 1 << 20))
        t.start()
        c.run(argv, big, "shrinking .log")
        t.join()


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("build")
    ap.add_argument("--runs", type=int, default=40, help="mutations per sample file")
    ap.add_argument("--seed", type=int, default=int(time.time()))
    ap.add_argument("--rss-mib", type=int, default=512, help="peak RSS bound per run (a sanitizer build's)")
    ap.add_argument("--timeout", type=float, default=60)
    a = ap.parse_args()
    if not os.path.exists("/usr/bin/time"):
        sys.exit("campaign: needs /usr/bin/time (tests/deps.sh installs it)")
    build = os.path.abspath(a.build)
    rnd = random.Random(a.seed)
    c = Campaign(build, a.timeout, a.rss_mib)
    start = time.time()
    with tempfile.TemporaryDirectory(prefix="kseg-campaign-") as tmp:
        for case, part, name in SAMPLES:
            d, name = sample_path(case, part, name)
            original = open(os.path.join(d, name), "rb").read()
            for i in range(a.runs):
                work = os.path.join(tmp, "w")
                shutil.rmtree(work, ignore_errors=True)
                shutil.copytree(d, os.path.join(work, part))
                data, how = mutate(bytearray(original), rnd)
                with open(os.path.join(work, part, name), "wb") as f:
                    f.write(data)
                c.tools_on(work, part, name, f"{case}/{part}/{name} {how}")
        special_files(c, tmp)
    print(f"campaign: seed {a.seed}, {c.runs} runs in {time.time() - start:.0f} s: {c.crashes} crashes, "
          f"{c.hangs} hangs, {c.over_rss} over the RSS bound; RSS max {c.rss_max / 1024:.1f} MiB "
          f"(bound {a.rss_mib} MiB, time bound {a.timeout:.0f} s)")
    for f in c.failures[:30]:
        print(f)
    sys.exit(1 if c.failures else 0)


if __name__ == "__main__":
    main()
