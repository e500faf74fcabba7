# t_gbench.sh -- a real Google Benchmark program, built here against
# Debian's libbenchmark-dev and run with --benchmark_repetitions=5
# --benchmark_format=json, imports as one run with 5 samples per benchmark
# and both time metrics, values converted from the unit the file states.
. "$(dirname "$0")/lib.sh"

new_repo "$T/r" >/dev/null
cd "$T/r" || exit 1
cat >"$T/g.cc" <<'C'
#include <benchmark/benchmark.h>
#include <cstring>
static void BM_Spin(benchmark::State &s) { volatile unsigned x = 0; for (auto _ : s) for (int i = 0; i < 1000; i++) x = x + i; }
BENCHMARK(BM_Spin)->Unit(benchmark::kMicrosecond);
static void BM_Copy(benchmark::State &s) { static char a[4096], b[4096]; for (auto _ : s) { std::memcpy(a, b, sizeof a); benchmark::ClobberMemory(); } }
BENCHMARK(BM_Copy);
static void BM_Slow(benchmark::State &s) { volatile double x = 1; for (auto _ : s) for (int i = 0; i < 200000; i++) x = x * 1.0000001; }
BENCHMARK(BM_Slow)->Unit(benchmark::kMillisecond);
BENCHMARK_MAIN();
C
if ! c++ -O2 -o "$T/g" "$T/g.cc" $(pkg-config --libs benchmark 2>/dev/null || echo -lbenchmark -lpthread) 2>"$T/cc.err"; then
	not_ok "building the Google Benchmark program"; cat "$T/cc.err"; finish; exit 1
fi
"$T/g" --benchmark_repetitions=5 --benchmark_format=json --benchmark_min_time=0.01 >"$T/g.json" 2>/dev/null
check "import exits 0" expect_rc 0 "$BG" import "$T/g.json" --format gbench
check "... and stores one run" test "$(sqlite3 .benchguard/results.db 'SELECT count(*) FROM runs')" = 1
check "5 samples per benchmark, both metrics, converted to seconds" python3 - "$BG" "$T/g.json" <<'P'
import json, subprocess, sys
bg, path = sys.argv[1], sys.argv[2]
data = json.load(open(path))
scale = {"ns": 1e-9, "us": 1e-6, "ms": 1e-3, "s": 1.0}
rows = [b for b in data["benchmarks"] if b.get("run_type", "iteration") == "iteration"]
names = sorted({b["run_name"] for b in rows})
assert names == ["BM_Copy", "BM_Slow", "BM_Spin"], names
units = {b["run_name"]: b["time_unit"] for b in rows}
assert units == {"BM_Copy": "ns", "BM_Slow": "ms", "BM_Spin": "us"}, units
for name in names:
    for metric in ("real_time", "cpu_time"):
        hist = json.loads(subprocess.check_output([bg, "history", f"{name}:{metric}", "--json"]))
        assert len(hist) == 1, hist
        h = hist[0]
        want = [b[metric] * scale[b["time_unit"]] for b in rows if b["run_name"] == name]
        assert h["n"] == 5 == len(want), (name, metric, h["n"])
        assert h["unit"] == "s"
        mean = sum(want) / len(want)
        assert abs(h["mean"] - mean) <= 1e-9 * abs(mean), (name, metric, h["mean"], mean)
        assert abs(h["min"] - min(want)) <= 1e-9 * abs(mean) and abs(h["max"] - max(want)) <= 1e-9 * abs(mean)
P
check "aggregate rows are not samples" test \
	"$(sqlite3 .benchguard/results.db 'SELECT count(*) FROM samples')" = 30
check "--name prefixes the benchmark names" bash -c "
	\"$BG\" import $T/g.json --format gbench --name suite >/dev/null && \"$BG\" history suite/BM_Copy:real_time >/dev/null"

# SkipWithMessage(): a skipped outcome with its reason, as go test's and
# nvbench's skips are.  A run where every benchmark skipped itself failed,
# "no benchmark results in output", exit 3.
new_repo "$T/skip" >/dev/null && cd "$T/skip" || exit 1
echo '{"benchmarks":[{"name":"BM_S","run_name":"BM_S","run_type":"iteration","skipped":true,"skip_message":"needs a GPU"}]}' >out.json
echo '{"benchmarks":[{"name":"g","command":"cat out.json","format":"gbench"}]}' >benchguard.json
git add -A && git commit -qm skip
"$BG" --db "$T/skip.db" --json run >"$T/out" 2>"$T/err"
rc=$?
check "a gbench run where every benchmark skipped itself: exit 0 (got $rc), g/BM_S skipped with its reason" \
	python3 -c "
import json; o = {x['benchmark']: x for x in json.load(open('$T/out'))['runs'][0]['outcomes']}
assert $rc == 0 and o['g/BM_S']['status'] == 'skipped' and o['g/BM_S']['message'] == 'needs a GPU', o"
# Its report: one run of one commit, counted in the singular, and a
# sentence for why it has no series (Markdown printed only zeros).
"$BG" --db "$T/skip.db" report --format markdown >"$T/rep.md" 2>/dev/null
check "... the report: \"0 series, 1 run, 1 commit\" and why it has no series" bash -c "
	grep -q ': 0 series, 1 run, 1 commit\.' '$T/rep.md' &&
	grep -q '^No series in this period: its 1 run measured none\.' '$T/rep.md'"
finish
