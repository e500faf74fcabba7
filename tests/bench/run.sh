#!/usr/bin/env bash
# tests/bench/run.sh BUILD -- `make bench`: benchguard against peers measured
# in the same run (timings on shared machines drift, ratios hold better).
#
#  1. Runner overhead: 1,000 executions of /bin/true through `benchguard run`
#     vs a bare posix_spawn+wait4 loop (tests/bench/spawnloop.c) vs Debian's
#     `hyperfine -N --runs 1000 true`.  Goal: <= 1.05x the loop, <= hyperfine.
#  2. Ingest: importing 1,000,000 samples (1,000 series x 1,000, lines format)
#     vs the sqlite3 tool's `.import` of the same rows from CSV into a plain
#     table.  Goal: <= 2x.
#
# Each contender runs REPS times, interleaved; the median is reported.
set -eu
build=${1:-build/release}
root=$(cd "$(dirname "$0")/../.." && pwd)
bg="$root/$build/benchguard"
reps=${BENCH_REPS:-5}
T=$(mktemp -d "${TMPDIR:-/tmp}/bg-bench.XXXXXX")
trap 'rm -rf "$T"' EXIT

cc -O2 -std=c11 -D_GNU_SOURCE -o "$T/spawnloop" "$root/tests/bench/spawnloop.c"

now() { date +%s.%N; }
# timeit CMD...: prints elapsed seconds of CMD (stdout/stderr discarded).
timeit() {
	local a b
	a=$(now)
	"$@" >/dev/null 2>&1 || { echo "bench: command failed: $*" >&2; exit 1; }
	b=$(now)
	awk -v a="$a" -v b="$b" 'BEGIN { printf "%.6f\n", b - a }'
}
median() { sort -g | awk '{ v[NR] = $1 } END { print (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }'; }
ratio() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.3f", a / b }'; }

# ---------------------------------------------------------------- 1. runner
mkdir -p "$T/repo" && cd "$T/repo"
git init -q -b main && git -c user.name=b -c user.email=b@b commit -q --allow-empty -m bench
cat >benchguard.json <<'J'
{ "benchmarks": [ { "name": "true", "command": "/bin/true", "warmup": 0, "samples": 1000 } ] }
J
: >"$T/loop" >"$T/bgrun" >"$T/hf"
for i in $(seq 1 "$reps"); do
	timeit "$T/spawnloop" 1000 /bin/true >>"$T/loop"
	rm -f "$T/run.db"*
	timeit "$bg" -q --db "$T/run.db" run >>"$T/bgrun"
	timeit hyperfine -N --runs 1000 --style none --export-json "$T/hf.json" true >>"$T/hf"
done
loop=$(median <"$T/loop") bgrun=$(median <"$T/bgrun") hf=$(median <"$T/hf")
n=$(sqlite3 "$T/run.db" 'SELECT count(*) FROM samples s JOIN results r ON r.id = s.result_id JOIN series x ON x.id = r.series_id WHERE x.metric = "wall_time"')
echo "runner overhead: 1,000 executions of /bin/true (median of $reps)"
printf '  bare posix_spawn+wait4 loop   %8.3f s\n' "$loop"
printf '  benchguard run (%s samples) %8.3f s   %sx the loop  (goal <= 1.05)\n' "$n" "$bgrun" "$(ratio "$bgrun" "$loop")"
printf '  hyperfine -N --runs 1000 true %8.3f s   benchguard/hyperfine = %s  (goal <= 1)\n' "$hf" "$(ratio "$bgrun" "$hf")"

# ---------------------------------------------------------------- 2. ingest
cd "$T"
awk 'BEGIN { for (s = 0; s < 1000; s++) for (i = 0; i < 1000; i++) {
	v = 1 + ((s * 7919 + i * 104729) % 100000) / 1e6
	printf "BENCHGUARD series_%04d %.9f ms\n", s, v > "lines.txt"
	printf "series_%04d,%d,%.9f\n", s, i, v > "rows.csv" } }'
: >"$T/imp" >"$T/sq"
for i in $(seq 1 "$reps"); do
	rm -f "$T/imp.db"* "$T/sq.db"*
	(cd "$T/repo" && timeit "$bg" -q --db "$T/imp.db" import "$T/lines.txt" --format lines --name ingest) >>"$T/imp"
	timeit sqlite3 "$T/sq.db" 'CREATE TABLE samples(series TEXT, idx INTEGER, value REAL)' \
		'.mode csv' '.import rows.csv samples' >>"$T/sq"
done
stored=$(sqlite3 "$T/imp.db" 'SELECT count(*) FROM samples')
imp=$(median <"$T/imp") sq=$(median <"$T/sq")
echo "ingest: 1,000 series x 1,000 samples, lines format (median of $reps)"
printf '  sqlite3 .import of the CSV     %8.3f s\n' "$sq"
printf '  benchguard import (%s stored) %8.3f s   %sx sqlite3  (goal <= 2)\n' "$stored" "$imp" "$(ratio "$imp" "$sq")"
