# t_formats.sh -- the hyperfine, nvbench, go, pytest and perfstat formats end
# to end: a real hyperfine run imports with every time as a sample; a
# benchmark whose command runs hyperfine (--export-json /dev/stdout) and one
# that prints nvbench JSON are measured by `run`; the nvbench fixtures import
# with their series, side-file samples and skipped states; perf stat -x,
# files import one series per event, and perf itself runs as a benchmark
# where it may count; malformed files exit 2 with one line and store nothing.
. "$(dirname "$0")/lib.sh"

PY=/usr/bin/python3
NV="$FIX/formats/nvbench"
new_repo "$T/r" >/dev/null
cd "$T/r" || exit 1
runs() { sqlite3 .benchguard/results.db 'SELECT count(*) FROM runs' 2>/dev/null || echo 0; }

# samples_match JSON SERIES...: the stored samples of each SERIES:wall_time,
# latest run, are results[i].times of the last JSON document in the file.
cat >"$T/match.py" <<'P'
import json, sqlite3, sys
path, names = sys.argv[1], sys.argv[2:]
text, dec, pos, doc = open(path).read(), json.JSONDecoder(), 0, None
while pos < len(text.rstrip()):
    while text[pos].isspace():
        pos += 1
    doc, pos = dec.raw_decode(text, pos)
results = doc["results"]
assert len(results) == len(names), (len(results), names)
db = sqlite3.connect(".benchguard/results.db")
for r, name in zip(results, names):
    got = [v for (v,) in db.execute(
        "SELECT x.value FROM samples x JOIN results r ON r.id = x.result_id "
        "JOIN series s ON s.id = r.series_id WHERE s.benchmark = ? AND s.metric = 'wall_time' "
        "AND s.unit = 's' AND r.run_id = (SELECT max(id) FROM runs) ORDER BY x.idx", (name,))]
    want = r["times"]
    assert len(got) == len(want) and len(want) > 0, (name, len(got), len(want))
    for g, w in zip(got, want):
        assert abs(g - w) <= 1e-12 * abs(w), (name, g, w)
P

# ---------------------------------------------------------------- hyperfine
if ! command -v hyperfine >/dev/null; then
	skip "hyperfine import" "hyperfine is not installed (apt-get install hyperfine)"
else
	hyperfine --style none --export-json "$T/f.json" --runs 7 --warmup 1 'sleep 0.01' >/dev/null 2>&1
	check "a real hyperfine run imports" expect_rc 0 "$BG" import "$T/f.json" --format hyperfine
	check "... as 1 series of 7 samples" grep -q '^imported run 1: 1 series, 7 samples' "$T/out"
	check "... each sample one of hyperfine's times, in order" $PY "$T/match.py" "$T/f.json" "sleep 0.01"
	check "--name names the series" bash -c "
		\"$BG\" import \"$T/f.json\" --format hyperfine --name nap >/dev/null &&
		$PY \"$T/match.py\" \"$T/f.json\" nap"

	# The same program as a benchmark: hyperfine times, benchguard stores.
	cat >benchguard.json <<'J'
{
  "defaults": { "warmup": 1, "samples": 4 },
  "benchmarks": [
    { "name": "hf", "format": "hyperfine",
      "command": "hyperfine -N --style none --runs $BENCHGUARD_SAMPLES --warmup $BENCHGUARD_WARMUP --export-json /dev/stdout 'sleep 0.01'" },
    { "name": "hfscan", "format": "hyperfine",
      "command": "hyperfine -N --style none --runs 3 -L s 0.001,0.04 --export-json /dev/stdout 'sleep {s}'" },
    { "name": "hffail", "format": "hyperfine",
      "command": "hyperfine -N --style none --runs 2 -i --export-json /dev/stdout false" }
  ]
}
J
	git add benchguard.json && git commit -qm suite
	"$BG" run --filter '^hf(scan)?$' --json >"$T/run.json" 2>"$T/run.err"
	rc=$?
	check "run of hyperfine benchmarks exits 0" test "$rc" = 0
	check "... one series per benchmark, samples = BENCHGUARD_SAMPLES runs" \
		test "$(sqlite3 .benchguard/results.db "SELECT r.n FROM results r JOIN series s ON s.id = r.series_id WHERE s.benchmark = 'hf' AND r.run_id = (SELECT max(id) FROM runs)")" = 4
	check "a parameter scan (one JSON document per command on the pipe) gives a series per value" \
		test "$(sqlite3 .benchguard/results.db "SELECT group_concat(s.benchmark || '=' || r.n, ',') FROM (SELECT * FROM results ORDER BY id) r JOIN series s ON s.id = r.series_id WHERE s.benchmark LIKE 'hfscan%' AND r.run_id = (SELECT max(id) FROM runs)")" = "hfscan/s=0.001=3,hfscan/s=0.04=3"
	check "... 1 ms sleeps measured shorter than 40 ms ones" test "$(sqlite3 .benchguard/results.db "SELECT (SELECT r.mean FROM results r JOIN series s ON s.id = r.series_id WHERE s.benchmark = 'hfscan/s=0.001') < (SELECT r.mean FROM results r JOIN series s ON s.id = r.series_id WHERE s.benchmark = 'hfscan/s=0.04')")" = 1
	check "failing runs that hyperfine -i kept fail the benchmark" bash -c "
		! \"$BG\" run --filter hffail 2>\"$T/fail.err\" >/dev/null &&
		grep -q '^hffail: FAILED: hffail: results\[0\] (\"false\"): run 1 of 2 exited with code 1' \"$T/fail.err\" &&
		[ \"\$(sqlite3 .benchguard/results.db \"SELECT status FROM outcomes WHERE benchmark = 'hffail'\")\" = failed ]"
fi

# ------------------------------------------------------------------ nvbench
before=$(runs)
check "nvbench JSON imports" expect_rc 0 "$BG" import "$NV/good.json" --format nvbench --name nv
check "... 6 series, one value each, and the skipped state" \
	grep -q '^imported run [0-9]*: 6 series, 6 samples, 1 skipped' "$T/out"
check "... gpu_time in seconds, bandwidth in B/s (higher is better), as in the file" $PY - <<'P'
import sqlite3
db = sqlite3.connect(".benchguard/results.db")
run = db.execute("SELECT max(id) FROM runs").fetchone()[0]
got = {(b, m): (u, d, v) for b, m, u, d, v in db.execute(
    "SELECT s.benchmark, s.metric, s.unit, s.direction, x.value FROM samples x "
    "JOIN results r ON r.id = x.result_id JOIN series s ON s.id = r.series_id WHERE r.run_id = ?", (run,))}
i32, f64 = "nv/copy/Device=0 T=I32 Elements=2^20", "nv/copy/Device=0 T=F64 Elements=2^20"
want = {(i32, "gpu_time"): ("s", "lower", 0.00012345), (i32, "bandwidth"): ("B/s", "higher", 67966000000.0),
        (i32, "item_rate"): ("items/s", "higher", 8493974508.0), (f64, "gpu_time"): ("s", "lower", 0.00025),
        (f64, "bandwidth"): ("B/s", "higher", 67108864000.0), ("nv/reduce/Device=0", "gpu_time"): ("s", "lower", 0.0015)}
assert got == want, got
assert db.execute("SELECT benchmark, status, message FROM outcomes WHERE run_id = ? AND status != 'ok'", (run,)).fetchall() == \
    [("nv/copy/Device=0 T=I8 Elements=2^20", "skipped", "int8_t is not supported by this kernel.")]
P

check "check gives the skipped state a skipped verdict, with nvbench's reason" bash -c "
	\"$BG\" check --json 2>/dev/null | $PY -c '
import json, sys
rows = [r for r in json.load(sys.stdin)[\"results\"] if r[\"verdict\"] == \"skipped\"]
assert [(r[\"series\"], r[\"message\"]) for r in rows] == [(\"nv/copy/Device=0 T=I8 Elements=2^20\", \"int8_t is not supported by this kernel.\")], rows'"

# --jsonbin: the side file holds the samples; its name is relative to the JSON.
mkdir -p "$T/elsewhere" && cp -r "$NV/samples.json" "$NV/samples.json-bin" "$T/elsewhere/"
check "nvbench JSON with a sample-times file imports from another directory" \
	expect_rc 0 "$BG" import "$T/elsewhere/samples.json" --format nvbench
check "... the file's float32 samples, in order; the state without its file keeps the mean" $PY - "$T/elsewhere/samples.json-bin/0.bin" <<'P'
import sqlite3, struct, sys
raw = open(sys.argv[1], "rb").read()
want = [v for (v,) in struct.iter_unpack("<f", raw)]
db = sqlite3.connect(".benchguard/results.db")
def samples(name):
    return [v for (v,) in db.execute(
        "SELECT x.value FROM samples x JOIN results r ON r.id = x.result_id JOIN series s ON s.id = r.series_id "
        "WHERE s.benchmark = ? AND s.metric = 'gpu_time' AND r.run_id = (SELECT max(id) FROM runs) ORDER BY x.idx", (name,))]
assert samples("scan/Device=0 Elements=2^20") == want and len(want) == 7, samples("scan/Device=0 Elements=2^20")
assert samples("scan/Device=0 Elements=2^21") == [0.0005]
P
check "... and says which file it did not find" grep -q 'samples.json-bin/1.bin not found' "$T/err"

# An nvbench program as a benchmark: its side files lie where it ran.
cp -r "$NV/samples.json-bin" .
cat >benchguard.json <<J
{
  "defaults": { "warmup": 0, "samples": 1 },
  "benchmarks": [ { "name": "gpu", "format": "nvbench", "command": "cat '$NV/samples.json'" } ]
}
J
check "run reads an nvbench benchmark's sample file from its working directory" bash -c "
	\"$BG\" run --filter gpu >/dev/null 2>&1 &&
	[ \"\$(sqlite3 .benchguard/results.db \"SELECT r.n FROM results r JOIN series s ON s.id = r.series_id WHERE s.benchmark = 'gpu/scan/Device=0 Elements=2^20' AND s.metric = 'gpu_time'\")\" = 7 ]"

# Malformed files: one clear line, exit 2, nothing stored.
for f in "$NV"/bad-*.json "$FIX"/formats/hyperfine/bad-*.json "$FIX"/formats/hyperfine/failed.json; do
	case $f in */hyperfine/*) fmt=hyperfine ;; *) fmt=nvbench ;; esac
	before=$(runs)
	name=${f#"$FIX"/formats/}
	check "$name: exit 2 with one line naming the file" bash -c "
		\"$BG\" import \"$f\" --format $fmt >\"$T/out\" 2>\"$T/err\"; [ \$? = 2 ] &&
		[ \"\$(wc -l <\"$T/err\")\" = 1 ] && grep -q '^benchguard: $f' \"$T/err\" && [ ! -s \"$T/out\" ]"
	check "$name: ... and stores nothing" test "$(runs)" = "$before"
done
check "the message names the JSON path of the bad value" grep -qF \
	'benchguard: '"$NV"'/bad-nan.json: benchmarks[0].states[0].summaries[3] ("nv/cold/time/gpu/mean"): value "nan" is not a finite number' \
	<("$BG" import "$NV/bad-nan.json" --format nvbench 2>&1)
check "an unknown --format lists the eight" bash -c "
	\"$BG\" import \"$NV/good.json\" --format csv 2>&1 | grep -q 'expected lines, gbench, nvbench, hyperfine, go, pytest, catch2 or perfstat'"
# An empty --name: every format names its series "<name>/..." or "<name>",
# and "/BenchmarkX" is no benchmark's.
for fi in "gbench $FIX/formats/gbench-ms.json" "nvbench $NV/good.json" "go $FIX/formats/go/go-bench.txt" \
	"pytest $FIX/formats/pytest/saved.json" "catch2 $FIX/formats/catch2/v3.xml" \
	"lines $FIX/formats/lines-good.txt" "hyperfine $FIX/formats/hyperfine/one.json" "perfstat $FIX/formats/perfstat/default.csv"; do
	set -- $fi
	before=$(runs)
	check "import --format $1 --name '': exit 2, the name is empty" bash -c "
		\"$BG\" import \"$2\" --format $1 --name '' >/dev/null 2>\"$T/err\"; [ \$? = 2 ] &&
		grep -q 'the benchmark name is empty' \"$T/err\""
	check "... and stores nothing" test "$(runs)" = "$before"
done
# A benchmark's metrics.<m>.direction judges what is imported for it, as it
# judges a run: its own series and the "<name>/<x>" its parser makes.
new_repo "$T/dir" >/dev/null
cat >"$T/dir/benchguard.json" <<'J'
{ "benchmarks": [
  { "name": "b", "command": "true", "format": "lines",
    "metrics": { "t": { "direction": "higher" }, "r": { "direction": "lower" } } },
  { "name": "g", "command": "true", "format": "gbench",
    "metrics": { "real_time": { "direction": "higher" } } } ] }
J
printf 'BENCHGUARD t 100 ms\nBENCHGUARD r 100 MB/s\nBENCHGUARD u 1 ms\n' >"$T/dir/r.txt"
(cd "$T/dir" && git add -A && git commit -qm suite &&
	"$BG" --db "$T/dir.db" import r.txt --format lines --name b >/dev/null 2>&1 &&
	"$BG" --db "$T/dir.db" import "$FIX/formats/gbench-ms.json" --format gbench --name g --commit "$(git rev-parse HEAD)" >/dev/null 2>&1)
check "import: the benchmark's metric directions are the series' (t higher, r lower, u by its unit)" \
	test "$(sqlite3 "$T/dir.db" "SELECT group_concat(metric || '=' || direction, ' ') FROM (SELECT * FROM series WHERE benchmark = 'b' ORDER BY metric)")" = "r=lower t=higher u=lower"
check "... and the series its parser made (g/BM_Sort/1024 real_time higher, cpu_time lower)" \
	test "$(sqlite3 "$T/dir.db" "SELECT group_concat(metric || '=' || direction, ' ') FROM (SELECT * FROM series WHERE benchmark = 'g/BM_Sort/1024' ORDER BY metric)")" = "cpu_time=lower items_per_second=higher real_time=higher"
check "import --commit SHA on main, with a config: stored on main" \
	test "$(sqlite3 "$T/dir.db" "SELECT group_concat(branch, ' ') FROM (SELECT * FROM runs ORDER BY id)")" = "main main"
check "import --config missing.json: exit 2, naming it" bash -c "
	cd '$T/dir' && \"$BG\" --db '$T/dir.db' --config missing.json import r.txt --format lines --name b >/dev/null 2>'$T/err'
	[ \$? = 2 ] && grep -q 'missing.json' '$T/err'"
check "import without --format: exit 2, naming the eight" bash -c "
	out=\$(\"$BG\" import \"$NV/good.json\" 2>&1); [ \$? = 2 ] &&
	echo \"\$out\" | grep -q 'import needs --format, one of lines, gbench, nvbench, hyperfine, go, pytest, catch2 or perfstat'"

# ----------------------------------------------------------------------- go
GO="$FIX/formats/go"
check "go test -bench output imports" expect_rc 0 "$BG" import "$GO/go-bench.txt" --format go --name go
check "... 19 series, 3 samples each (-count 3)" \
	grep -q '^imported run [0-9]*: 19 series, 57 samples' "$T/out"
check "... ns/op as seconds, B/op, allocs/op, MB/s (higher is better), a ReportMetric unit" $PY - <<'P'
import sqlite3
db = sqlite3.connect(".benchguard/results.db")
run = db.execute("SELECT max(id) FROM runs").fetchone()[0]
got = {}
for b, m, u, d, v in db.execute(
        "SELECT s.benchmark, s.metric, s.unit, s.direction, x.value FROM samples x JOIN results r ON r.id = x.result_id "
        "JOIN series s ON s.id = r.series_id WHERE r.run_id = ? ORDER BY r.id, x.idx", (run,)):
    got.setdefault((b, m, u, d), []).append(v)
def near(a, b):
    return len(a) == len(b) and all(abs(x - y) <= 1e-12 * abs(y) for x, y in zip(a, b))
assert near(got[("go/BenchmarkSort", "time", "s", "lower")], [38405e-9, 38816e-9, 39730e-9]), got
assert got[("go/BenchmarkSort", "B/op", "B/op", "lower")] == [8216] * 3
assert got[("go/BenchmarkSort", "allocs/op", "allocs/op", "lower")] == [2] * 3
assert near(got[("go/BenchmarkHash", "MB/s", "MB/s", "higher")], [506.70, 506.26, 516.17])
assert got[("go/BenchmarkHash", "blocks/op", "blocks/op", "lower")] == [2] * 3
assert near(got[("go/BenchmarkHash_Sizes/size=1024", "time", "s", "lower")], [2095e-9, 2137e-9, 2116e-9])
assert not [k for k in got if k[0].endswith("-2")], got
P
check "-cpu 1,2: one series per GOMAXPROCS" bash -c "
	\"$BG\" import \"$GO/go-cpu.txt\" --format go >/dev/null &&
	[ \"\$(sqlite3 .benchguard/results.db \"SELECT group_concat(s.benchmark || '=' || r.n, ',') FROM (SELECT * FROM results ORDER BY id) r JOIN series s ON s.id = r.series_id WHERE s.metric = 'time' AND r.run_id = (SELECT max(id) FROM runs)\")\" = 'BenchmarkSort/gomaxprocs=1=2,BenchmarkSort/gomaxprocs=2=2,BenchmarkHash/gomaxprocs=1=2,BenchmarkHash/gomaxprocs=2=2' ]"
before=$(runs)
check "a failed benchmark (--- FAIL) is exit 2, naming the line, and stores nothing" bash -c "
	\"$BG\" import \"$GO/go-fail.txt\" --format go >\"$T/out\" 2>\"$T/err\"; [ \$? = 2 ] &&
	[ \"\$(cat \"$T/err\")\" = 'benchguard: $GO/go-fail.txt:6: BenchmarkFail failed; benchguard stores no results of a run with a failed benchmark' ] &&
	[ \"\$(sqlite3 .benchguard/results.db 'SELECT count(*) FROM runs')\" = $before ]"

check "a benchmark that prints to stdout keeps its figures (without -v, they follow its output)" bash -c "
	\"$BG\" import \"$GO/go-prints.txt\" --format go --name pr >/dev/null &&
	[ \"\$(sqlite3 .benchguard/results.db \"SELECT group_concat(s.benchmark || '=' || r.n, ',') FROM (SELECT * FROM results ORDER BY id) r JOIN series s ON s.id = r.series_id WHERE r.run_id = (SELECT max(id) FROM runs)\")\" = 'pr/BenchmarkSort=2,pr/BenchmarkPrints=2' ]"
before=$(runs)
check "output without a final newline glues the name into its line: exit 2, stores nothing" bash -c "
	\"$BG\" import \"$GO/go-prints-partial.txt\" --format go >\"$T/out\" 2>\"$T/err\"; [ \$? = 2 ] &&
	grep -qF 'go-prints-partial.txt:5: \"BenchmarkPrints-2\" shares its line with what the benchmark printed' \"$T/err\" &&
	[ \"\$(sqlite3 .benchguard/results.db 'SELECT count(*) FROM runs')\" = $before ]"

# --------------------------------------------------------------------- pytest
PT="$FIX/formats/pytest"
check "pytest-benchmark JSON imports" expect_rc 0 "$BG" import "$PT/rounds.json" --format pytest --name py
check "... every round of stats.data is a sample of <name>/<node id>" $PY - "$PT/rounds.json" <<'P'
import json, sqlite3, sys
doc = json.load(open(sys.argv[1]))
db = sqlite3.connect(".benchguard/results.db")
for b in doc["benchmarks"]:
    name = "py/" + b["fullname"].replace("::", "/")
    got = [v for (v,) in db.execute(
        "SELECT x.value FROM samples x JOIN results r ON r.id = x.result_id JOIN series s ON s.id = r.series_id "
        "WHERE s.benchmark = ? AND s.metric = 'time' AND s.unit = 's' AND r.run_id = (SELECT max(id) FROM runs) "
        "ORDER BY x.idx", (name,))]
    assert got == b["stats"]["data"] and len(got) >= 5, (name, len(got))
P
check "a saved file without stats.data imports its means, with a warning" bash -c "
	\"$BG\" import \"$PT/saved.json\" --format pytest >\"$T/out\" 2>\"$T/err\" &&
	grep -q '^imported run [0-9]*: 4 series, 4 samples' \"$T/out\" &&
	grep -q 'no per-round times' \"$T/err\""

# --------------------------------------------------------------------- catch2
C2="$FIX/formats/catch2"
for v in v2 v3; do
	check "Catch2 $v -r xml imports" expect_rc 0 "$BG" import "$C2/$v.xml" --format catch2 --name c2
	check "... five series, each mean as the run's one sample" \
		grep -q "^imported run [0-9]*: 5 series, 5 samples" "$T/out"
	check "... <name>/<test case>/<section>.../<benchmark>, nanoseconds as seconds" $PY - "$C2/$v.xml" <<'P'
import sqlite3, sys, xml.etree.ElementTree as ET
want = {}
def walk(e, path):
    for c in e:
        if c.tag == "Group":
            walk(c, path)
        elif c.tag in ("TestCase", "Section"):
            walk(c, path + [c.get("name")])
        elif c.tag == "BenchmarkResults":
            want["/".join(path + [c.get("name")])] = float(c.find("mean").get("value")) * 1e-9
walk(ET.parse(sys.argv[1]).getroot(), ["c2"])
db = sqlite3.connect(".benchguard/results.db")
got = {b: v for b, v in db.execute(
    "SELECT s.benchmark, x.value FROM samples x JOIN results r ON r.id = x.result_id JOIN series s ON s.id = r.series_id "
    "WHERE s.metric = 'time' AND s.unit = 's' AND r.run_id = (SELECT max(id) FROM runs)")}
assert len(want) == 5 and "c2/sort/large/inner/std::sort 1000" in want, want
assert set(got) == set(want), (got, want)
assert all(abs(got[k] - want[k]) <= 1e-12 * want[k] for k in want), (got, want)
P
done
check "a Catch2 SKIP is a skipped outcome with its reason" bash -c "
	[ \"\$(sqlite3 .benchguard/results.db \"SELECT benchmark || '|' || status || '|' || message FROM outcomes WHERE run_id = (SELECT max(id) FROM runs)\")\" = 'c2/skipped benchmark|skipped|skipped by Catch2 (SKIP): no GPU here' ]"
before=$(runs)
# catch2_err FILE: the one line import --format catch2 prints on stderr, exit 2.
catch2_err() { "$BG" import "$1" --format catch2 >/dev/null 2>"$T/err"; [ $? = 2 ] && cat "$T/err"; }
check "a test case that failed after its benchmark: exit 2 with Catch2's reason" test \
	"$(catch2_err "$C2/v2-fail.xml")" = "benchguard: $C2/v2-fail.xml:11: TestCase \"fails after its benchmark\": failed after its benchmarks ran: REQUIRE \"1 + 1 == 3\", expanded \"2 == 3\"; benchguard stores no results of a run with a failed benchmark"
check "a benchmark that threw: exit 2 naming it" test \
	"$(catch2_err "$C2/v3-throw.xml")" = "benchguard: $C2/v3-throw.xml:5: TestCase \"throws in its benchmark\"/BenchmarkResults \"allocate\": failed: \"out of buffers\"; benchguard stores no results of a run with a failed benchmark"
check "a truncated file: exit 2 with libxml2's line and message" test \
	"$(catch2_err "$C2/v3-truncated.xml")" = "benchguard: $C2/v3-truncated.xml:20: expected '>'"
sed 's/<mean value="6892.8"/<mean value="abc"/' "$C2/v2.xml" >"$T/bad-mean.xml"
check "a mean that is not a number: exit 2 with the line and the element path" test \
	"$(catch2_err "$T/bad-mean.xml")" = "benchguard: $T/bad-mean.xml:18: TestCase \"sort\"/Section \"large\"/Section \"inner\"/BenchmarkResults \"std::sort 1000\": mean value \"abc\" is not a finite number"
check "... and none of them stored anything" test "$(runs)" = "$before"
cat >benchguard.json <<J
{
  "defaults": { "warmup": 0, "samples": 1 },
  "benchmarks": [ { "name": "cpp", "format": "catch2", "command": "cat '$C2/v3.xml'" } ]
}
J
check "run reads a catch2 benchmark's standard output" bash -c "
	\"$BG\" run --filter cpp >/dev/null 2>&1 &&
	[ \"\$(sqlite3 .benchguard/results.db \"SELECT count(*) FROM results r JOIN series s ON s.id = r.series_id WHERE s.benchmark LIKE 'cpp/%' AND r.n = 1 AND r.run_id = (SELECT max(id) FROM runs)\")\" = 5 ]"
rm -f benchguard.json

# The real tools as benchmarks, when they are installed.
if ! command -v go >/dev/null; then
	skip "a go benchmark runs" "go is not installed (apt-get install golang-go)"
elif ! $PY -c 'import pytest_benchmark' 2>/dev/null; then
	skip "a go and a pytest benchmark run" "pytest-benchmark is not installed (apt-get install python3-pytest-benchmark)"
else
	cp -r "$GO" "$T/gopkg" && cp -r "$PT" "$T/pypkg"
	cat >benchguard.json <<J
{
  "defaults": { "warmup": 0, "samples": 2 },
  "benchmarks": [
    { "name": "gob", "format": "go",
      "command": "cd '$T/gopkg' && GOCACHE='$T/gocache' GOPATH='$T/gopath' GOFLAGS=-mod=mod go test -run '^\$' -bench 'Sort|Hash\$' -benchmem -benchtime 100x -count \$BENCHGUARD_SAMPLES" },
    { "name": "pyb", "format": "pytest",
      "command": "cd '$T/pypkg' && $PY -m pytest -p no:terminal -p no:cacheprovider test_fixture.py -k sort --benchmark-json=/dev/stdout --benchmark-max-time=0.0001 --benchmark-min-rounds=3" }
  ]
}
J
	check "run measures a go and a pytest benchmark" expect_rc 0 "$BG" run --filter '^(gob|pyb)$'
	check "... go: BENCHGUARD_SAMPLES lines, pytest: every round" bash -c "
		[ \"\$(sqlite3 .benchguard/results.db \"SELECT group_concat(s.benchmark || ':' || s.metric || '=' || (r.n >= 3 OR s.benchmark LIKE 'gob/%' AND r.n = 2), ',') FROM (SELECT * FROM results ORDER BY id) r JOIN series s ON s.id = r.series_id WHERE s.metric = 'time' AND r.run_id = (SELECT max(id) FROM runs)\")\" = 'gob/BenchmarkSort:time=1,gob/BenchmarkHash:time=1,pyb/test_fixture.py/test_sort:time=1' ]"
fi
# ------------------------------------------------------------------ perfstat
PS="$FIX/formats/perfstat"
check "perf stat -x, --append output imports" expect_rc 0 "$BG" import "$PS/append.csv" --format perfstat --name ps
check "... one series per event, one sample per invocation" \
	grep -q '^imported run [0-9]*: 2 series, 6 samples' "$T/out"
check "... the uncounted event is a warning naming the line" \
	grep -q "append.csv:5: perf could not count \"instructions\" (<not supported>): no sample of ps:instructions" "$T/err"
check "... task-clock in seconds, page-faults as faults, lower is better" $PY - <<'P'
import sqlite3
db = sqlite3.connect(".benchguard/results.db")
run = db.execute("SELECT max(id) FROM runs").fetchone()[0]
got = {}
for b, m, u, d, v in db.execute(
        "SELECT s.benchmark, s.metric, s.unit, s.direction, x.value FROM samples x JOIN results r ON r.id = x.result_id "
        "JOIN series s ON s.id = r.series_id WHERE r.run_id = ? ORDER BY r.id, x.idx", (run,)):
    got.setdefault((b, m, u, d), []).append(v)
def near(a, b):
    return len(a) == len(b) and all(abs(x - y) <= 1e-12 * abs(y) for x, y in zip(a, b))
assert near(got[("ps", "task-clock", "s", "lower")], [15.21e-3, 15.14e-3, 15.08e-3]), got
assert got[("ps", "page-faults", "faults", "lower")] == [62, 64, 64], got
assert len(got) == 2, got
P
check "history addresses an event as benchmark:event" bash -c "
	\"$BG\" history ps:task-clock 2>&1 | grep -q '^ *[0-9]*  ps:task-clock '"
check "without --name the file name is the benchmark; ':' of a modifier is '/'" bash -c "
	\"$BG\" import \"$PS/modifiers.csv\" --format perfstat >/dev/null 2>&1 &&
	\"$BG\" history 'modifiers:task-clock/u' 2>&1 | grep -q '^ *[0-9]*  modifiers:task-clock/u ' &&
	\"$BG\" history 'modifiers:syscalls/sys_enter_read' 2>&1 | grep -q ' 1 events '"
check "perf stat -r: the mean is one sample, with a warning" bash -c "
	\"$BG\" import \"$PS/repeat.csv\" --format perfstat >\"$T/out\" 2>\"$T/err\" &&
	grep -q '^imported run [0-9]*: 2 series, 2 samples' \"$T/out\" &&
	grep -q 'repeat.csv:3: perf stat -r: a line with a variance is perf.s mean' \"$T/err\""
printf '# started on today\n\n15.2,msec,task-clock,15200000,100.00,0.9,CPUs utilized\nabc,,page-faults,15200000,100.00,,\n' >"$T/bad.csv"
printf '1,,cycles\x1b]0;x\x07,1,100.00,,\n' >"$T/hostile.csv"
for f in "$PS/interval.csv" "$PS/per-core.csv" "$PS/per-cpu.csv" "$PS/metric-only.csv" "$T/bad.csv" "$T/hostile.csv"; do
	before=$(runs)
	check "perfstat $(basename "$f"): exit 2 with one line naming the file, nothing stored" bash -c "
		\"$BG\" import \"$f\" --format perfstat >\"$T/out\" 2>\"$T/err\"; [ \$? = 2 ] &&
		[ \"\$(wc -l <\"$T/err\")\" = 1 ] && grep -q '^benchguard: $f' \"$T/err\" && [ ! -s \"$T/out\" ] &&
		[ \"\$(sqlite3 .benchguard/results.db 'SELECT count(*) FROM runs')\" = $before ]"
done
check "... a bad value names its line" grep -qxF "benchguard: $T/bad.csv:4: value \"abc\" is not a finite number" \
	<("$BG" import "$T/bad.csv" --format perfstat 2>&1)
check "... an interval file says why it is refused" grep -qF "interval.csv:3: interval output (perf stat -I)" \
	<("$BG" import "$PS/interval.csv" --format perfstat 2>&1)
check "... a control character in an event is escaped" bash -c "
	\"$BG\" import \"$T/hostile.csv\" --format perfstat 2>&1 | grep -qF 'event \"cycles\\x1b]0;x\\x07\" has a control character'"

# perf itself as a benchmark, where it is installed and may count.
if ! command -v perf >/dev/null; then
	skip "a perf stat benchmark runs" "perf is not installed (apt-get install linux-perf)"
elif ! perf stat -x, -e task-clock -o /dev/null -- true >/dev/null 2>&1; then
	skip "a perf stat benchmark runs" "perf stat may not count here (perf_event_paranoid, seccomp)"
else
	cat >benchguard.json <<'J'
{
  "defaults": { "warmup": 0, "samples": 3 },
  "benchmarks": [
    { "name": "pst", "format": "perfstat",
      "command": "perf stat -x, -e task-clock -o /dev/stdout -- true" },
    { "name": "psn", "format": "perfstat",
      "command": "for i in $(seq $BENCHGUARD_SAMPLES); do perf stat -x, --log-fd 3 -e task-clock,page-faults -- sh -c 'echo own output' 3>&1 >/dev/null; done" }
  ]
}
J
	check "run measures perf stat benchmarks" expect_rc 0 "$BG" run --filter '^ps[tn]$'
	check "... one task-clock sample per perf stat, page-faults as faults" bash -c "
		[ \"\$(sqlite3 .benchguard/results.db \"SELECT group_concat(s.benchmark || ':' || s.metric || '=' || s.unit || '/' || r.n, ',') FROM (SELECT * FROM results ORDER BY id) r JOIN series s ON s.id = r.series_id WHERE r.run_id = (SELECT max(id) FROM runs) AND s.benchmark LIKE 'ps%'\")\" = 'pst:task-clock=s/1,psn:task-clock=s/3,psn:page-faults=faults/3' ]"
fi
finish
