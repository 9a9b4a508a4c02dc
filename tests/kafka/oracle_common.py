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
