#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""The fault campaign (issue 20): every tool of a sanitizer build on mutated
copies of each kind of file Kafka wrote, and on special files, with a time
and a peak-RSS bound per run. A run fails the campaign if it crashes (a
signal, a sanitizer report, an exit status outside kseg's 0-3), hangs (past
the time bound) or passes the RSS bound.

Usage: campaign.py BUILD_DIR [--runs N] [--seed S] [--rss-mib M] [--timeout S] [--jobs J]
Prints the figures (runs, crashes, hangs, RSS max) and exits 1 on any failure.
"""
import argparse
import concurrent.futures
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
        self.last_rc = None
        self.rss_max = 0
        self.failures = []
        self.lock = threading.Lock()  # the mutation runs count from --jobs threads

    def run(self, argv, cwd, what):
        """Runs one tool under /usr/bin/time; records crashes, hangs and RSS."""
        rss_file = os.path.join(cwd, ".rss")
        cmd = ["/usr/bin/time", "-f", "%M", "-o", rss_file, os.path.join(self.build, argv[0])] + argv[1:]
        env = dict(os.environ, ASAN_OPTIONS="detect_leaks=1:abort_on_error=0:exitcode=99",
                   UBSAN_OPTIONS="halt_on_error=1:exitcode=98")
        with self.lock:
            self.runs += 1
        try:
            p = subprocess.run(cmd, cwd=cwd, env=env, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
                               stderr=subprocess.PIPE, timeout=self.timeout)
        except subprocess.TimeoutExpired:
            with self.lock:
                self.last_rc = None
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
        rc = p.returncode
        # /usr/bin/time exits with the child's status; a killed child: "Command terminated by signal N".
        crashed = rc not in (0, 1, 2, 3) or "terminated by signal" in timed
        if "AddressSanitizer" in err or "runtime error:" in err or "LeakSanitizer" in err:
            crashed = True
        with self.lock:
            self.rss_max = max(self.rss_max, rss)
            self.last_rc = rc  # read by the writer cases, which run one at a time
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
        self.run(["kseg-doctor", "--format", "json", part], work, what)
        self.run(["kseg-doctor", "."], work, what)
        # The filters seek with a (possibly damaged) .index and .timeindex.
        self.run(["kseg-dump", "--deep-iteration", "--from-offset", "20", "--to-offset", "60", part], work, what)
        self.run(["kseg-dump", "--format", "jsonl", "--from-time", "1700000000100", "--key", "k", part], work, what)
        self.run(["kseg-reindex", "--dry-run", "--producer-state", part], work, what)
        self.run(["kseg-truncate", "--dry-run", "--json", "--to-time", "0", part], work, what)
        self.run(["kseg-truncate", "--dry-run", "--retention-bytes", "0", part], work, what)
        self.run(["kseg-truncate", "--no-backup", "--to-offset", "50", part], work, what)
        self.run(["kseg-compact", "--dry-run", "--json", "--config", "cleanup.policy=compact", part], work, what)
        self.run(["kseg-compact", "--no-backup", "--offset-map-bytes", "2400", "--rounds", "5", "--config",
                  "cleanup.policy=compact", part], work, what)
        self.run(["kseg-excise", "--dry-run", "--format", "json", "--offsets", "0..", part], work, what)
        self.run(["kseg-excise", "--yes", "--no-backup", "--key", "[0-9]$", "--header", "h0", part], work, what)
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
                 ["kseg-info", "big-0"], ["kseg-doctor", "big-0"],
                 ["kseg-excise", "--yes", "--no-backup", "--offsets", "1", "big-0"]):
        with open(log, "wb") as f:
            for _ in range((64 << 20) // len(seg)):
                f.write(seg)
        t = threading.Timer(0.02, lambda: os.truncate(log, 1 << 20))
        t.start()
        c.run(argv, big, "shrinking .log")
        t.join()


def digest(root):
    """path -> (kind, bytes or link target) of everything under root but the campaign's own .rss."""
    out = {}
    for d, dirs, files in os.walk(root):
        for n in dirs + files:
            p = os.path.join(d, n)
            if n == ".rss":
                continue
            if os.path.islink(p):
                out[p] = ("link", os.readlink(p))
            elif os.path.isfile(p):
                out[p] = ("file", open(p, "rb").read())
            elif not os.path.isdir(p):
                out[p] = ("special", b"")
    return out


def log_dir_copy(tmp, tag, case="v2-zstd", part="orders-0", end=253):
    """A log dir holding one corpus partition and the root files a broker leaves."""
    work = os.path.join(tmp, "writer-" + tag)
    shutil.rmtree(work, ignore_errors=True)
    shutil.copytree(os.path.join(CORPUS, case, part), os.path.join(work, part))
    topic = part.rsplit("-", 1)[0]
    for name in ("recovery-point-offset-checkpoint", "replication-offset-checkpoint"):
        with open(os.path.join(work, name), "w") as f:
            f.write(f"0\n1\n{topic} 0 {end}\n")
    open(os.path.join(work, ".lock"), "w").close()
    return work, os.path.join(work, part)


def writers(c: Campaign, tmp, rnd: random.Random):
    """The writers' cases of issue 44: links planted at the names they create, numbers
    Kafka would not read, unreadable files, a FIFO as .lock, a kill and a re-run. Each
    checks its outcome, not only that nothing crashed."""
    def expect(ok, what):
        if not ok:
            c.failures.append(f"WRONG {what}")

    drop = lambda p, ext: [os.remove(os.path.join(p, f)) for f in os.listdir(p) if f.endswith(ext)]
    commands = [
        (["kseg-truncate", "--to-offset", "120"], None), (["kseg-truncate", "--full", "500"], None),
        (["kseg-truncate", "--log-start", "200"], None),
        (["kseg-reindex"], lambda p: drop(p, ".index")), (["kseg-reindex", "--producer-state"], lambda p: drop(p, ".snapshot")),
        (["kseg-reindex", "--recover"], lambda p: open(os.path.join(p, "00000000000000000159.log"), "ab").write(bytes(64))),
    ]
    # 1. A link to a file outside at one name the writer creates (a seeded sample of them).
    for argv, prepare in commands:
        work, p = log_dir_copy(tmp, "probe")
        if prepare:
            prepare(p)
        names = [os.path.join(p, f + ".kseg-tmp") for f in os.listdir(p)]
        names += [os.path.join(work, f + ".kseg-tmp") for f in os.listdir(work) if not f.startswith(".")]
        names += [os.path.join(p, f"{b:020d}{k}.kseg-tmp") for b in (0, 120, 159, 200, 253, 500)
                  for k in (".log", ".index", ".timeindex", ".snapshot")] + [os.path.join(p, "truncate.kseg-journal.kseg-tmp")]
        for planted in rnd.sample(sorted(set(names)), 4):
            work, p = log_dir_copy(tmp, "link")
            if prepare:
                prepare(p)
            outside = os.path.join(tmp, "outside")
            shutil.rmtree(outside, ignore_errors=True)
            os.makedirs(outside)
            with open(os.path.join(outside, "victim"), "w") as f:
                f.write("victim\n")
            planted = planted.replace(os.path.join(tmp, "writer-probe"), work)
            os.symlink(os.path.join(outside, "victim"), planted)
            c.run(argv + [os.path.basename(p)], work, f"link at {os.path.basename(planted)}")
            expect(open(os.path.join(outside, "victim"), "rb").read() == b"victim\n",
                   f"{' '.join(argv)}: wrote through a link at {os.path.basename(planted)}")
            for d in (work, p):
                for f in os.listdir(d):
                    path = os.path.join(d, f)
                    expect(not os.path.islink(path) or path == planted,
                           f"{' '.join(argv)}: {f} is a link after a link was planted at {os.path.basename(planted)}")
    # 2. Numbers Kafka would not read, empty filters: exit 2, nothing changed.
    for argv in (["--to-offset", ""], ["--to-offset", "0x10"], ["--to-offset", "1e3"], ["--to-offset", "-1"],
                 ["--full", ""], ["--to-time", ""], ["--retention-bytes", ""], ["--retention-ms", ""],
                 ["--to-offset", "99999999999999999999"], ["--to-offset", "10", "--partition", "-1"],
                 ["--to-offset", "10", "--topic", ""]):
        work, p = log_dir_copy(tmp, "number")
        before = digest(work)
        c.run(["kseg-truncate"] + argv + [work], work, f"kseg-truncate {argv}")
        expect(c.last_rc == 2 and digest(work) == before, f"kseg-truncate {argv}: exit {c.last_rc}, expected 2 and no change")
    # 3. A .log no writer can read: exit 3, nothing changed.
    for kind in ("fifo", "dir", "dangling", "loop"):
        for argv in (["kseg-truncate", "--log-start", "1"], ["kseg-truncate", "--retention-bytes", "0"],
                     ["kseg-reindex"], ["kseg-compact", "--config", "cleanup.policy=compact"],
                     ["kseg-excise", "--yes", "--offsets", "0.."]):
            work, p = log_dir_copy(tmp, "unreadable")
            log = os.path.join(p, "00000000000000000000.log")
            os.remove(log)
            {"fifo": lambda: os.mkfifo(log), "dir": lambda: os.mkdir(log),
             "dangling": lambda: os.symlink("/nonexistent/kseg", log), "loop": lambda: os.symlink(log, log)}[kind]()
            before = digest(work)
            c.run(argv + [os.path.basename(p)], work, f"{kind} .log")
            expect(c.last_rc == 3 and digest(work) == before, f"{' '.join(argv)} on a {kind} .log: exit {c.last_rc}, expected 3, no change")
    # 4. A FIFO as the log dir's .lock: refused at once in every mode, never waited on.
    for argv in (["kseg-reindex", "--dry-run"], ["kseg-reindex"], ["kseg-truncate", "--dry-run", "--to-offset", "120"],
                 ["kseg-compact", "--dry-run", "--config", "cleanup.policy=compact"],
                 ["kseg-excise", "--dry-run", "--offsets", "1"], ["kseg-excise", "--yes", "--offsets", "1"]):
        work, p = log_dir_copy(tmp, "fifo-lock")
        os.remove(os.path.join(work, ".lock"))
        os.mkfifo(os.path.join(work, ".lock"))
        c.run(argv + [os.path.basename(p)], work, "FIFO .lock")
        expect(c.last_rc == 3, f"{' '.join(argv)} with a FIFO .lock: exit {c.last_rc}, expected 3")
    # 5. Killed at a random moment, then run again: the same files as an uninterrupted run.
    want_work, want_p = log_dir_copy(tmp, "want")
    c.run(["kseg-truncate", "--no-backup", "--to-offset", "120", "orders-0"], want_work, "uninterrupted cut")
    want = {os.path.basename(k): v for k, v in digest(want_p).items()}
    for i in range(3):
        work, p = log_dir_copy(tmp, "kill")
        argv = [os.path.join(c.build, "kseg-truncate"), "--no-backup", "--to-offset", "120", "orders-0"]
        proc = subprocess.Popen(argv, cwd=work, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        time.sleep(rnd.uniform(0, 0.3))
        proc.kill()
        proc.wait()
        c.run(["kseg-truncate", "--no-backup", "--to-offset", "120", "orders-0"], work, "re-run after a kill")
        got = {os.path.basename(k): v for k, v in digest(p).items()}
        expect(c.last_rc == 0 and got == want, f"kill and re-run {i}: exit {c.last_rc}, files equal: {got == want}")


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("build")
    ap.add_argument("--runs", type=int, default=40, help="mutations per sample file")
    ap.add_argument("--seed", type=int, default=int(time.time()))
    ap.add_argument("--rss-mib", type=int, default=512, help="peak RSS bound per run (a sanitizer build's)")
    ap.add_argument("--timeout", type=float, default=60)
    ap.add_argument("--jobs", type=int, default=os.cpu_count() or 1, help="mutated copies examined at once")
    a = ap.parse_args()
    if not os.path.exists("/usr/bin/time"):
        sys.exit("campaign: needs /usr/bin/time (tests/deps.sh installs it)")
    build = os.path.abspath(a.build)
    rnd = random.Random(a.seed)
    c = Campaign(build, a.timeout, a.rss_mib)
    start = time.time()
    with tempfile.TemporaryDirectory(prefix="kseg-campaign-") as tmp:
        # The mutations are drawn in order from the seed's generator (a seed gives the same copies
        # whatever --jobs is), then examined --jobs at a time, each copy in its own directory.
        mutations = []
        for case, part, name in SAMPLES:
            d, name = sample_path(case, part, name)
            original = open(os.path.join(d, name), "rb").read()
            for i in range(a.runs):
                data, how = mutate(bytearray(original), rnd)
                mutations.append((d, part, name, data, f"{case}/{part}/{name} {how}"))

        def examine(k):
            d, part, name, data, what = mutations[k]
            work = os.path.join(tmp, f"w{k}")
            shutil.copytree(d, os.path.join(work, part))
            with open(os.path.join(work, part, name), "wb") as f:
                f.write(data)
            c.tools_on(work, part, name, what)
            shutil.rmtree(work, ignore_errors=True)

        with concurrent.futures.ThreadPoolExecutor(max_workers=max(1, a.jobs)) as pool:
            list(pool.map(examine, range(len(mutations))))
        special_files(c, tmp)
        writers(c, tmp, rnd)
    print(f"campaign: seed {a.seed}, {c.runs} runs in {time.time() - start:.0f} s: {c.crashes} crashes, "
          f"{c.hangs} hangs, {c.over_rss} over the RSS bound; RSS max {c.rss_max / 1024:.1f} MiB "
          f"(bound {a.rss_mib} MiB, time bound {a.timeout:.0f} s)")
    for f in c.failures[:30]:
        print(f)
    sys.exit(1 if c.failures else 0)


if __name__ == "__main__":
    main()
