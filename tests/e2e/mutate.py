#!/usr/bin/env python3
"""tests/e2e/mutate.py -- the mutation sweep of t_hostile_sweep.sh.

Writes deterministic mutants (seeded) of the seed files of each kind of input
benchguard reads -- configs, the four result formats, baseline files -- and
feeds each to the real binary through the command that reads it:

    config    benchguard --config FILE report --format json  (loads the config;
                                                              an empty database)
    results   benchguard import --format F FILE               (a fresh database)
    baseline  benchguard baseline import --force FILE         (a fresh database)

Each input passes when: no signal, no hang, no sanitizer report; exit 0 or 2
(exit 3, a runtime failure such as "out of memory", is not an answer to
malformed input); stdout and stderr hold no control character but line
breaks and tabs; every stderr line starts "benchguard: "; on exit 2 one
line, not a warning, says why; and on exit 0 every name the database got
from the file (benchmarks, metrics, units, tags, machine facts, commit
subjects) is printable text: valid UTF-8 without control characters, the
bidirectional overrides and the line separators included.  Prints "PASS <what>" / "FAIL <what>" lines
and "# ..." comments, which the shell script turns into TAP.

usage: mutate.py BG WORKDIR FIXTURES FUZZ_CORPUS
  BG_SWEEP_SEED (default 1), BG_SWEEP_JOBS (default 2) and BG_SWEEP_SAVE (a
  folder that keeps the failing inputs) change how it runs.
"""
import concurrent.futures
import glob
import os
import random
import re
import shutil
import sqlite3
import subprocess
import sys

BG, WORK, FIX, CORPUS = sys.argv[1:5]
EMPTY_DB = os.path.join(WORK, "empty.db")
SEED = int(os.environ.get("BG_SWEEP_SEED", "1"))
JOBS = int(os.environ.get("BG_SWEEP_JOBS", "2"))
SAVE = os.environ.get("BG_SWEEP_SAVE")
TIMEOUT = 60  # seconds: a hang, not a slow sanitizer build

# How many mutants of each kind: (kind, count, format for import).
PLAN = [("config", 200, None), ("lines", 250, "lines"), ("gbench", 250, "gbench"),
        ("nvbench", 250, "nvbench"), ("hyperfine", 250, "hyperfine"), ("baseline", 100, None)]
MAX_SEED = 16384  # bytes: seeds are kept small so that a run stays short

# Bytes inserted anywhere.
HOSTILE = [b"\x1b[31m", b"\x1b]0;title\x07", b"\n::error::forged\n", b"::warning::x", b"[" * 3000,
           b'{"a":' * 400, b"1e308", b"-1e308", b"-1", b"1e999", b"NaN", b"-0", b"0",
           b"18446744073709551616", b"A" * 3000, b"\xff\xfe", b"\xc0\xaf", b"\xed\xa0\x80",
           b"\x00", b"\\u0000", b"\\ud800", b"\xe2\x80\xae", b"\xc2\x85", b"\r", b'"', b"}",
           b"]", b",", b"\\", b"/*", b"${X}", b"$$", b"\t"]
# The content of a JSON string replaced (valid JSON whatever the bytes mean).
STRINGS = [b"x\\u001b[31m", b"\\n::error::forged", b"a\\u202eb", b"\\u0085", b"\xff", b"\xc3",
           b"\\u001b]0;title\\u0007", b"\\r", b"x\\u2028y", b"\x1b[2J", b"\t",
           b"\\u0000", b"", b" ", b"/dev/zero", b"../../../../etc/hostname", b"/etc/passwd",
           b"A" * 2000, b"\\ud800", b"\\\\", b"${HOME}", b"ns", b"GB/s", b"-", b"=", b"<script>"]
# A JSON or `lines` number replaced.
NUMBERS = [b"1e308", b"1.7976931348623157e308", b"-1e308", b"5e-324", b"-1", b"0", b"-0.0",
           b"1e999", b"NaN", b"Infinity", b"18446744073709551616", b"-9223372036854775809",
           b"2147483648", b"1" * 400, b"0x10", b"1e", b"."]

STRING_RE = re.compile(rb'"(?:[^"\\\n]|\\.)*"')
NUMBER_RE = re.compile(rb"-?\d+(?:\.\d+)?(?:[eE][+-]?\d+)?")


def mutate(rng, data, kind):
    """One to three random edits of data, mostly ones that keep JSON JSON (a
    string's or a number's content), so that many mutants get past the
    syntax to what benchguard makes of the values."""
    for _ in range(rng.choice([1] * 6 + [2] * 3 + [3])):
        op = rng.choice([0, 0, 1, 2, 2, 3, 3, 3, 4, 4, 4, 4, 4, 5, 5, 5, 5, 5, 6, 7])
        n = len(data)
        if op == 0 and n:  # flip bits
            b = bytearray(data)
            for _ in range(rng.randint(1, 4)):
                i = rng.randrange(n)
                b[i] ^= 1 << rng.randrange(8)
            data = bytes(b)
        elif op == 1 and n:  # truncate
            data = data[:rng.randrange(n)]
        elif op == 2 and n:  # duplicate a chunk
            a = rng.randrange(n)
            chunk = data[a:a + rng.randint(1, 200)]
            c = rng.randrange(n + 1)
            data = data[:c] + chunk + data[c:]
        elif op == 3:  # insert a hostile token
            c = rng.randrange(n + 1)
            data = data[:c] + rng.choice(HOSTILE) + data[c:]
        elif op == 4:  # a string's content
            ms = list(STRING_RE.finditer(data))
            if ms:
                m = rng.choice(ms)
                data = data[:m.start() + 1] + rng.choice(STRINGS) + data[m.end() - 1:]
        elif op == 5:  # a number
            ms = list(NUMBER_RE.finditer(data))
            if ms:
                m = rng.choice(ms)
                data = data[:m.start()] + rng.choice(NUMBERS) + data[m.end():]
        elif op == 6 and kind == "lines":  # a line benchguard reads, made hostile
            c = rng.randrange(n + 1)
            line = b"BENCHGUARD " + rng.choice([b"lat", b"x\x1b[31m", b"a\xffb", b"\xe2\x80\xae",
                                                 b"n" * 2000, b"::error::x"]) + b" " + \
                rng.choice(NUMBERS) + b" " + rng.choice([b"ms", b"GB/s", b"\x1b[0m", b"\xff", b"s"])
            data = data[:c] + b"\n" + line + b"\n" + data[c:]
        elif op == 7 and n:  # nest a value deeply
            c = rng.randrange(n + 1)
            depth = rng.choice([64, 200, 2000] + ([50000] if kind == "config" else []))
            data = data[:c] + b"[" * depth + b"1" + b"]" * depth + data[c:]
    return data


def seeds(kind):
    pats = {
        "config": [f"{FIX}/config/*.json", f"{FIX}/config/bad/*.json"],
        "lines": [f"{FIX}/formats/lines-*.txt"],
        "gbench": [f"{FIX}/formats/gbench-*.json"],
        "nvbench": [f"{FIX}/formats/nvbench/*.json"],
        "hyperfine": [f"{FIX}/formats/hyperfine/*.json"],
        "baseline": [f"{CORPUS}/baseline/seed-*"],
    }[kind]
    files = sorted(f for p in pats for f in glob.glob(p) if os.path.getsize(f) <= MAX_SEED)
    if not files:
        sys.exit(f"mutate.py: no seeds for {kind}")
    return [open(f, "rb").read() for f in files]


def split_seeds(kind, fmt, pool):
    """The seeds benchguard accepts as they are, and the others: mutants are
    drawn mostly from the first, which otherwise are few among many broken
    fixtures, so that the sweep reaches what is done with accepted input."""
    good, bad = [], []
    for i, data in enumerate(pool):
        path = f"m/seed-{kind}-{i}"
        with open(os.path.join(WORK, path), "wb") as f:
            f.write(data)
        _, rc, _, _ = run_one((kind, fmt, path, os.path.join(WORK, path + ".db")))
        (good if rc == 0 else bad).append(data)
    return good or bad, bad or good


def command(kind, fmt, path, db):
    if kind == "config":
        return [BG, "-q", "--db", db, "--config", path, "report", "--format", "json"]
    if kind == "baseline":
        return [BG, "-q", "--db", db, "baseline", "import", "--force", path]
    return [BG, "-q", "--db", db, "import", "--format", fmt, path]


CONTROL = re.compile(rb"[\x00-\x08\x0b-\x1f\x7f]")


def judge(rc, out, err):
    """None when the run passed, else why not."""
    if rc is None:
        return f"still running after {TIMEOUT} s"
    if rc < 0 or rc >= 128:
        return f"killed by signal {-rc if rc < 0 else rc - 128}"
    if b"Sanitizer" in err or b"runtime error:" in err:
        return "a sanitizer's report"
    if rc not in (0, 2):
        return f"exit {rc}"
    for name, text in (("stdout", out), ("stderr", err)):
        m = CONTROL.search(text)
        if m:
            return f"a raw control character {m.group()!r} on {name}"
    lines = err.decode("utf-8", "replace").splitlines()
    for line in lines:
        if not line.startswith("benchguard: "):
            return f"a stderr line that is not benchguard's: {line[:80]!r}"
    said = [l for l in lines if not l.startswith("benchguard: warning: ")]
    if rc == 2 and (len(said) != 1 or said[0] != lines[-1] or len(said[0]) <= len("benchguard: ")):
        return "exit 2 without one line that says why"
    if rc == 0 and said:
        return f"exit 0 with an error line: {said[0][:80]!r}"
    return None


# What the database holds that came from the file.
# Names: no control character, and none that shows nothing (a zero-width
# space would make two series print alike).
STORED_NAMES = ["SELECT CAST(benchmark AS BLOB), CAST(metric AS BLOB), CAST(unit AS BLOB) FROM series",
                "SELECT CAST(benchmark AS BLOB) FROM outcomes",
                "SELECT CAST(key AS BLOB) FROM run_tags",
                "SELECT CAST(key AS BLOB) FROM machine_facts"]
# Values: no control character.
STORED = STORED_NAMES + ["SELECT CAST(value AS BLOB) FROM run_tags",
                         "SELECT CAST(value AS BLOB) FROM machine_facts"]
# Git's text (subjects, authors, branches) is stored as git holds it, controls
# too (git allows them, and export must import again), and escaped where it
# is printed: it must only be UTF-8 without NUL.
STORED_GIT = ["SELECT CAST(subject AS BLOB), CAST(author AS BLOB) FROM commits",
              "SELECT CAST(branch AS BLOB) FROM runs"]
CONTROL_CP = re.compile("[\x00-\x1f\x7f-\x9f\u2028\u2029\u202a-\u202e\u2066-\u2069\u200e\u200f\u061c]")
INVISIBLE_CP = re.compile("[\u00ad\u034f\u115f\u1160\u17b4\u17b5\u180b-\u180f\u200b-\u200f"
                          "\u2060-\u206f\u3164\ufe00-\ufe0f\ufeff\uffa0\ufff0-\ufffb\ufdd0-\ufdef"
                          "\ufffe\uffff\U000e0000-\U000e0fff]")


def unprintable_stored(db):
    """The first stored name that is not printable text, or None."""
    try:
        con = sqlite3.connect(f"file:{db}?mode=ro", uri=True)
        try:
            for q in STORED + STORED_GIT:
                for row in con.execute(q):
                    for v in row:
                        if v is None:
                            continue
                        try:
                            text = bytes(v).decode("utf-8")
                        except UnicodeDecodeError:
                            return bytes(v)
                        if "\0" in text or (q in STORED and CONTROL_CP.search(text)) or \
                                (q in STORED_NAMES and INVISIBLE_CP.search(text)):
                            return bytes(v)
        finally:
            con.close()
    except sqlite3.Error as e:
        return f"the database cannot be read: {e}".encode()
    return None


def run_one(job):
    kind, fmt, path, db = job
    if kind == "config":
        # report only reads a database and never creates one (nor takes an
        # empty file for one): a copy of one that holds no runs.
        shutil.copy(EMPTY_DB, db)
    try:
        p = subprocess.run(command(kind, fmt, path, db), cwd=WORK, capture_output=True,
                           timeout=TIMEOUT)
        rc, out, err = p.returncode, p.stdout, p.stderr
    except subprocess.TimeoutExpired as e:
        rc, out, err = None, e.stdout or b"", e.stderr or b""
    why = judge(rc, out, err)
    if not why and rc == 0 and os.path.exists(db):
        bad = unprintable_stored(db)
        if bad is not None:
            why = f"stored a name that is not printable text: {bad[:60]!r}"
    for ext in ("", "-wal", "-shm"):
        if os.path.exists(db + ext):
            os.unlink(db + ext)
    return job, rc, why, err


def main():
    mdir = os.path.join(WORK, "m")
    os.makedirs(mdir, exist_ok=True)
    # A database with the schema and no runs, made by a run of the suite
    # whose run is then deleted.
    subprocess.run([BG, "-q", "--db", EMPTY_DB, "run", "--samples", "1"], cwd=WORK,
                   capture_output=True, check=True)
    con = sqlite3.connect(EMPTY_DB)
    con.execute("PRAGMA foreign_keys = ON")
    con.execute("DELETE FROM runs")
    con.commit()
    con.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    con.close()
    # nvbench's side files lie beside the JSON that names them.
    for side in glob.glob(f"{FIX}/formats/nvbench/*-bin"):
        shutil.copytree(side, os.path.join(mdir, os.path.basename(side)), dirs_exist_ok=True)
    jobs = []
    for kind, count, fmt in PLAN:
        good, bad = split_seeds(kind, fmt, seeds(kind))
        for i in range(count):
            rng = random.Random(f"{SEED}:{kind}:{i}")
            ext = ".txt" if kind == "lines" else ".json"
            path = f"m/{kind}-{i:03d}{ext}"
            with open(os.path.join(WORK, path), "wb") as f:
                f.write(mutate(rng, rng.choice(good if rng.random() < 0.75 else bad), kind))
            jobs.append((kind, fmt, path, os.path.join(WORK, f"m/{kind}-{i:03d}.db")))

    stats = {kind: [0, 0, []] for kind, _, _ in PLAN}  # accepted, rejected, failures
    with concurrent.futures.ThreadPoolExecutor(max_workers=JOBS) as ex:
        for (kind, fmt, path, db), rc, why, err in ex.map(run_one, jobs):
            if why:
                first = err.decode("utf-8", "replace").strip().splitlines()
                stats[kind][2].append((path, why, first[-1][:160] if first else ""))
                if SAVE:
                    os.makedirs(SAVE, exist_ok=True)
                    shutil.copy(os.path.join(WORK, path), SAVE)
            elif rc == 0:
                stats[kind][0] += 1
            else:
                stats[kind][1] += 1

    total = [0, 0, 0]
    for kind, count, fmt in PLAN:
        acc, rej, fails = stats[kind]
        total[0] += acc
        total[1] += rej
        total[2] += len(fails)
        for path, why, line in fails[:8]:
            print(f"# {path}: {why}: {line!r}")
        what = f"{kind}: {count} mutants, {acc} accepted, {rej} rejected (exit 2), {len(fails)} failures"
        print(("FAIL " if fails else "PASS ") + what)
        # A sweep that never gets past the parser, or never trips it, tests little.
        print(("PASS " if acc and rej else "FAIL ") + f"{kind}: the mutants reach both answers")
    nres = sum(c for k, c, f in PLAN if f)
    print(f"# figure: sweep: {PLAN[0][1]} configs, {nres} result files, {PLAN[-1][1]} baselines: "
          f"{total[0]} accepted, {total[1]} rejected (exit 2), {total[2]} failures")


main()
