#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""Checks every #include "..." under lib/, formats/ and tools/ against the layer table of
tools/README.md. Header-only code links whatever it includes, so the CMake targets alone
cannot catch an upward or sideways include; this does. Usage: layers.py SOURCE_DIR"""
import pathlib
import re
import sys

OPS = "tools/ops/"
READ_ONLY = ("dump", "verify", "txn", "info")
WRITERS = ("reindex", "truncate", "compact", "excise")
# The one operation over operations: doctor asks verify's checks and the writers' planners.
COMPOSERS = ("doctor",)


def allowed(folder):
    """The include prefixes a file in `folder` may use (folder is the file's directory)."""
    if folder in ("lib", "lib/fmt_static"):  # fmt_static: fmt's compiled part, static build only
        return ["lib/"]
    if folder == "formats":
        return ["lib/", "formats/"]
    if folder.startswith(OPS):
        name = folder[len(OPS):]
        base = ["lib/", OPS + "common/"]
        if name == "common":
            return base
        base += ["formats/", OPS + "partition/"]
        if name == "partition":
            return base
        if name == "write" or name in WRITERS:
            return base + [OPS + "write/", OPS + name + "/"]
        if name in READ_ONLY:
            return base + [OPS + name + "/"]
        if name in COMPOSERS:
            return base + [OPS + "write/", OPS + name + "/"] + [OPS + o + "/" for o in READ_ONLY + WRITERS]
        return None  # a new folder must be given a row first
    if folder == "tools/cli":
        return ["lib/", "formats/", OPS, "tools/cli/"]
    if folder == "tools":
        return ["tools/cli/", OPS + "common/"]
    return None


def violations(rel_path, includes):
    folder = str(pathlib.PurePosixPath(rel_path).parent)
    prefixes = allowed(folder)
    if prefixes is None:
        return [f"{rel_path}: folder {folder} has no row in the layer table"]
    return [f"{rel_path}: includes \"{inc}\", which {folder}/ may not use"
            for inc in includes if not any(inc.startswith(p) for p in prefixes)]


def self_test():
    # The rule must be able to fail: a read-only operation reaching the write protocol, an
    # operation reaching another, and formats reaching up are each refused.
    bad = [("tools/ops/dump/x.cc", "tools/ops/write/safe_write.h"),
           ("tools/ops/verify/x.cc", "tools/ops/reindex/reindex.h"),
           ("tools/ops/reindex/x.cc", "tools/ops/doctor/doctor.h"),
           ("formats/x.cc", "tools/ops/common/sink.h"),
           ("tools/ops/common/x.h", "formats/batch_v2.h")]
    good = [("tools/ops/reindex/x.cc", "tools/ops/write/safe_write.h"),
            ("tools/cli/x.cc", "tools/ops/dump/dump.h"),
            ("tools/ops/doctor/x.cc", "tools/ops/verify/verify.h")]
    for path, inc in bad:
        assert violations(path, [inc]), (path, inc)
    for path, inc in good:
        assert not violations(path, [inc]), (path, inc)


def main():
    self_test()
    top = pathlib.Path(sys.argv[1])
    include = re.compile(r'^\s*#\s*include\s+"([^"]+)"', re.M)
    problems, files, edges = [], 0, 0
    for root in ("lib", "formats", "tools"):
        for path in sorted((top / root).rglob("*")):
            if path.suffix not in (".h", ".cc"):
                continue
            rel = path.relative_to(top).as_posix()
            incs = include.findall(path.read_text())
            files += 1
            edges += len(incs)
            problems += violations(rel, incs)
            problems += [f"{rel}: includes \"{inc}\", which does not exist"
                         for inc in incs if not (top / inc).is_file()]
    for p in problems:
        print(p)
    print(f"layers: {files} files, {edges} includes, {len(problems)} outside the table")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
