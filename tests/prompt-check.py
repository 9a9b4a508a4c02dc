#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""The question the writing tools ask on a terminal, asked on a real one (a pty).

kseg-excise lists what it would remove and asks: "n" writes nothing; "y" removes exactly what it
listed; when the records chosen change between the listing and the answer (another run removed
one), it refuses and writes nothing. kseg-doctor --fix shows its plan and asks: "n" applies
nothing; "y" applies it. Usage: prompt-check.py BUILD_DIR      Exits 1 on a failure.
"""
import hashlib
import json
import os
import pty
import select
import shutil
import signal
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
SAMPLE = os.path.join(HERE, "..", "testdata", "kafka", "v2-none", "orders-0")
failed = 0


def check(ok, what):
    global failed
    print(("ok   " if ok else "FAIL ") + what)
    failed += not ok


def tree(d):
    h = hashlib.sha256()
    for root, dirs, files in sorted(os.walk(d)):
        dirs.sort()
        for f in sorted(files):
            p = os.path.join(root, f)
            h.update(p.encode())
            with open(p, "rb") as fh:
                h.update(fh.read())
    return h.hexdigest()


def on_terminal(argv, answer, meanwhile=None):
    """Runs argv on a pty; at the question runs `meanwhile`, then answers. (exit code, output);
    a run that hangs is killed after 30 s (exit -9)."""
    pid, fd = pty.fork()
    if pid == 0:
        os.execv(argv[0], argv)
    out, asked = b"", False
    deadline = time.time() + 30
    while time.time() < deadline:
        if not asked and b"[y/N]" in out:
            asked = True
            if meanwhile:
                meanwhile()
            os.write(fd, answer.encode() + b"\n")
        ready, _, _ = select.select([fd], [], [], max(0.0, deadline - time.time()))
        if not ready:
            break
        try:
            chunk = os.read(fd, 4096)
        except OSError:  # the child exited and closed the pty
            break
        if not chunk:
            break
        out += chunk
    if time.time() >= deadline:
        os.kill(pid, signal.SIGKILL)
    _, status = os.waitpid(pid, 0)
    return os.waitstatus_to_exitcode(status), out.decode(errors="replace")


def offsets(build, part):
    r = subprocess.run([os.path.join(build, "kseg-dump"), "--deep-iteration", "--format", "jsonl", part],
                       capture_output=True, text=True, check=True)
    return [j["offset"] for j in map(json.loads, r.stdout.splitlines()) if j["type"] == "record"]


def fresh(tmp, tag):
    d = os.path.join(tmp, tag)
    shutil.copytree(SAMPLE, os.path.join(d, "orders-0"))
    open(os.path.join(d, ".lock"), "w").close()
    return os.path.join(d, "orders-0")


def main(build):
    excise, doctor = os.path.join(build, "kseg-excise"), os.path.join(build, "kseg-doctor")
    with tempfile.TemporaryDirectory() as tmp:
        part = fresh(tmp, "no")
        before, all_offsets = tree(part), offsets(build, part)
        rc, out = on_terminal([excise, "--offsets", "3..5", part], "n")
        check(rc == 1 and "[y/N]" in out and "offset 4 " in out and tree(part) == before,
              f"kseg-excise, answered n: lists the three, exits 1, writes nothing (exit {rc})")

        part = fresh(tmp, "yes")
        rc, out = on_terminal([excise, "--offsets", "3..5", part], "y")
        left = offsets(build, part)
        check(rc == 0 and left == [o for o in all_offsets if o not in (3, 4, 5)],
              f"kseg-excise, answered y: removes exactly the three listed (exit {rc}, {len(left)} records left)")

        part = fresh(tmp, "changed")
        other = lambda: subprocess.run([excise, "--yes", "--offsets", "4", part], capture_output=True, check=True)  # noqa: E731
        rc, out = on_terminal([excise, "--offsets", "3..5", part], "y", meanwhile=other)
        left = offsets(build, part)
        check(rc == 3 and "not those listed" in out and 3 in left and 5 in left and 4 not in left,
              f"kseg-excise, the chosen records changed before the answer: refused, nothing written (exit {rc})")

        part = fresh(tmp, "doctor-no")
        index = os.path.join(part, "00000000000000000000.index")
        os.remove(index)
        before = tree(os.path.dirname(part))
        rc, out = on_terminal([doctor, "--fix", os.path.dirname(part)], "n")
        check(rc == 0 and "[y/N]" in out and "nothing applied" in out and tree(os.path.dirname(part)) == before,
              f"kseg-doctor --fix, answered n: nothing applied (exit {rc})")
        rc, out = on_terminal([doctor, "--fix", os.path.dirname(part)], "y")
        check(rc == 0 and "[y/N]" in out and os.path.exists(index),
              f"kseg-doctor --fix, answered y: the missing .index rebuilt (exit {rc})")
    print(f"prompt-check: {'all passed' if not failed else f'{failed} failed'}")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1]))
