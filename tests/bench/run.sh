#!/usr/bin/env bash
# tests/bench/run.sh BUILD -- `make bench`: benchguard against peers measured
# in the same run (timings on shared machines drift, ratios hold better).
#
#  1. Runner overhead: 1,000 executions of /bin/true through `benchguard run`
#     vs a bare posix_spawn+wait4 loop (tests/bench/spawnloop.c) vs Debian's
#     `hyperfine -N --runs 1000 true`, into a database that exists (as in
#     CI after the first job).  Goal: <= 1.02x the loop, <= hyperfine.
#
#  1b. Startup: `benchguard --version`, 1,000 executions through the same
#     loop, vs /bin/true.  Goal: <= 5 ms per execution.
#  2. Ingest: importing 1,000,000 samples (1,000 series x 1,000, lines format)
#     vs the sqlite3 tool's `.import` of the same rows from CSV into a plain
#     table.  Goal: <= 2x.
#
#  2b. formats: importing 100,000 results in each result format of another
#      tool (`go test -bench`, pytest-benchmark, Catch2, `perf stat -x,`) vs
#      importing the same samples in the `lines` format
#      (tests/bench/formats_gen.py makes both).  Goal: <= 2x.
#
#  3. Check: one run of 1,000 series against 20-run baselines in a database
#     of 200 runs each (4,000,000 samples) vs a bare SELECT of the same rows
#     with the sqlite3 tool.  Goal: < 100 ms and < 50 MB.  Then the same
#     run with one more series, which no stored run has, against it: <= 1.5x.
#     And `history --limit 1` of those 1,000 series against the SELECT of
#     one run's results: <= 10x.
#
#  4. Report: `benchguard report --format html` over 1,000 series x 200 runs
#     (first-parent order from git, change points, the replayed check) vs
#     the sqlite3 tool reading the same result rows.  Goal: < 2 s.  And the
#     JSON form's peak memory against its own size: <= 3x.
#
#  4b. Change points over long histories: the change-point search
#      (bg_changepoints_find, tests/bench/cpscale.c) over 8,000 runs with a
#      step every 6 against the same search over 64,000.  Goal: <= 12x for
#      8x the runs (n log n), every step found.
#
#  5. History: `check` in a repository of 100,000 commits (git fast-import)
#     with 21 runs of 1,000 series on its newest commits and 5 runs on a
#     pull-request branch off it, against the same runs in a repository of
#     200 commits.  Goal: <= 1.5x (the cost follows the runs, not the age).
#
#  5b. prune: section 3's database with its 170 oldest runs aged 400 days,
#      `db prune --before 365d` vs the sqlite3 tool's DELETE of the same runs
#      with the same cascades.  Goal: <= 2x.
#
#  6. pg-ingest: section 2's import into a fresh PostgreSQL database vs
#     psql's `\copy` of the same CSV into a plain table of a fresh database.
#     Goal: <= 2x.
#
#  7. pg-check: section 3's check on PostgreSQL (the same database, copied
#     there with `benchguard db copy`) vs psql's SELECT of the same rows.
#     Goal: <= 2x and < 150 ms.  Then `history b --limit 1` there, vs psql's
#     SELECT of one run's results (goal <= 10x, as on SQLite).
#
#  8. pg-copy: section 3's database copied whole with `benchguard db copy`
#     into a fresh PostgreSQL database and back into a new SQLite file, vs
#     loading the same results and samples rows from CSV into plain tables
#     (psql's `\copy` there, the sqlite3 shell's `.import` back).  Goal:
#     <= 6x each way (the copy also keeps every index, key and check).
#
#     Sections 6 to 8 share one throwaway server (tests/pg.sh, a folder
#     under /tmp, stopped on exit); without PostgreSQL's server programs they
#     print "pg sections skipped: WHY" and the bench goes on.
#
# Each contender runs REPS times, interleaved; the median is reported.
# The project's own suite (benchguard.json, tests/bench/self.sh) measures
# sections 1 to 4 at a smaller size at every commit, judged by benchguard.
#
# BENCH_ONLY=runner,startup,ingest,check,report,changepoints,history,prune,pg-ingest,pg-check,pg-copy,formats picks
# sections (default: all).
set -eu
build=${1:-build/release}
root=$(cd "$(dirname "$0")/../.." && pwd)
bg="$root/$build/benchguard"
reps=${BENCH_REPS:-5}
T=$(mktemp -d "${TMPDIR:-/tmp}/bg-bench.XXXXXX")
pgdir='' # the PostgreSQL server's folder, once started
cleanup() {
	if [ -n "$pgdir" ]; then
		bash "$root/tests/pg.sh" stop "$pgdir" || true
		rm -rf "$pgdir"
	fi
	rm -rf "$T"
}
trap cleanup EXIT

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
# timeit_verdict CMD...: the same for a verdict command (exit 0 or 1 is success).
timeit_verdict() {
	local a b rc
	a=$(now)
	"$@" >/dev/null 2>&1
	rc=$?
	b=$(now)
	[ "$rc" -le 1 ] || { echo "bench: command failed ($rc): $*" >&2; exit 1; }
	awk -v a="$a" -v b="$b" 'BEGIN { printf "%.6f\n", b - a }'
}
median() { sort -g | awk '{ v[NR] = $1 } END { print (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }'; }
want() { [ -z "${BENCH_ONLY:-}" ] || [[ ",$BENCH_ONLY," == *",$1,"* ]]; }
rss() { # CMD...: peak RSS of CMD in KiB
	python3 -c 'import resource, subprocess, sys
subprocess.run(sys.argv[1:], stdout=subprocess.DEVNULL)
print(resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss)' "$@"
}
ratio() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.3f", a / b }'; }
gen() { # SEED: 1,000 series x 20 samples, ~1% noise
	awk -v seed="$1" 'BEGIN { srand(seed); for (s = 0; s < 1000; s++) for (i = 0; i < 20; i++)
		printf "BENCHGUARD s%04d %.9f ms\n", s, (1 + s / 1000) * (1 + 0.01 * (rand() - 0.5)) }'
}

# ---------------------------------------------------------------- 1. runner
if want runner; then
mkdir -p "$T/repo" && cd "$T/repo"
git init -q -b main && git -c user.name=b -c user.email=b@b commit -q --allow-empty -m bench
cat >benchguard.json <<'J'
{ "benchmarks": [ { "name": "true", "command": "/bin/true", "warmup": 0, "samples": 1000 } ] }
J
: >"$T/loop" >"$T/bgrun" >"$T/hf" >"$T/loop1" >"$T/bgrun1"
"$bg" -q --db "$T/run.db" run >/dev/null # the database exists, as in CI
for i in $(seq 1 "$reps"); do
	# One execution each: what is paid once per run, apart from the executions.
	timeit "$T/spawnloop" 1 /bin/true >>"$T/loop1"
	timeit "$bg" -q --db "$T/run.db" run --samples 1 >>"$T/bgrun1"
	timeit "$T/spawnloop" 1000 /bin/true >>"$T/loop"
	timeit "$bg" -q --db "$T/run.db" run >>"$T/bgrun"
	timeit hyperfine -N --runs 1000 --style none --export-json "$T/hf.json" true >>"$T/hf"
done
loop=$(median <"$T/loop") bgrun=$(median <"$T/bgrun") hf=$(median <"$T/hf")
loop1=$(median <"$T/loop1") bgrun1=$(median <"$T/bgrun1")
# The ratios are medians of each round's own ratio: a round's commands run
# seconds apart and share the machine's drift, which the ratio cancels.
vs_loop=$(paste "$T/bgrun" "$T/loop" | awk '{ print $1 / $2 }' | median)
vs_hf=$(paste "$T/bgrun" "$T/hf" | awk '{ print $1 / $2 }' | median)
per_exec=$(paste "$T/bgrun" "$T/bgrun1" "$T/loop" "$T/loop1" | awk '{ print ($1 - $2) / ($3 - $4) }' | median)
n=$(sqlite3 "$T/run.db" 'SELECT count(*) FROM samples s JOIN results r ON r.id = s.result_id JOIN series x ON x.id = r.series_id WHERE x.metric = "wall_time" AND r.run_id = (SELECT max(id) FROM runs)')
echo "runner overhead: 1,000 executions of /bin/true (median of $reps rounds; ratios: median of the rounds' own)"
printf '  bare posix_spawn+wait4 loop   %8.3f s\n' "$loop"
printf '  benchguard run (%s samples) %8.3f s   %.3fx the loop  (goal <= 1.02)\n' "$n" "$bgrun" "$vs_loop"
printf '  hyperfine -N --runs 1000 true %8.3f s   benchguard/hyperfine = %.3f  (goal <= 1)\n' "$hf" "$vs_hf"
# The same split in two: per execution ((1,000 - 1) / 999) and once per run.
awk -v l="$loop" -v b="$bgrun" -v l1="$loop1" -v b1="$bgrun1" -v r="$vs_loop" -v pe="$per_exec" 'BEGIN {
	printf "  per execution: benchguard %.1f us, the loop %.1f us (%.3fx); once per run: benchguard %.1f ms, the loop %.1f ms\n",
		(b - b1) / 999 * 1e6, (l - l1) / 999 * 1e6, pe, b1 * 1e3, l1 * 1e3
	# Said, not hidden: what this machine cannot do (docs/development.md says why).
	if (r > 1.02)
		printf "  not met here: 1.02x leaves %.1f ms over the loop; once per run alone takes %.1f ms (%.1f%%)\n",
			0.02 * l * 1e3, (b1 - l1) * 1e3, (b1 - l1) / l * 100 }'

fi

# --------------------------------------------------------------- 1b. startup
if want startup; then
: >"$T/ver" >"$T/true"
for i in $(seq 1 "$reps"); do
	timeit "$T/spawnloop" 1000 "$bg" --version >>"$T/ver"
	timeit "$T/spawnloop" 1000 /bin/true >>"$T/true"
done
ver=$(median <"$T/ver") tru=$(median <"$T/true")
echo "startup: benchguard --version, 1,000 executions (median of $reps)"
printf '  /bin/true                      %8.3f ms each\n' "$(awk -v t="$tru" 'BEGIN { print t }')"
printf '  benchguard --version           %8.3f ms each  (%d shared libraries; goal <= 5 ms)\n' \
	"$(awk -v t="$ver" 'BEGIN { print t }')" "$(ldd "$bg" | grep -c '=>')"
awk -v t="$ver" 'BEGIN { exit !(t <= 5.0) }' || { echo "bench: benchguard --version took $ver ms (goal <= 5 ms)" >&2; exit 1; }
fi

# ---------------------------------------------------------------- 2. ingest
# ingest_data: $T/lines.txt, 1,000 series x 1,000 samples for `import`, and
# $T/rows.csv, the same rows for the peers (once for sections 2 and 6).
ingest_data() {
	[ -f "$T/rows.csv" ] && return
	(cd "$T" && awk 'BEGIN { for (s = 0; s < 1000; s++) for (i = 0; i < 1000; i++) {
		v = 1 + ((s * 7919 + i * 104729) % 100000) / 1e6
		printf "BENCHGUARD series_%04d %.9f ms\n", s, v > "lines.txt"
		printf "series_%04d,%d,%.9f\n", s, i, v > "rows.csv" } }')
}
# import_repo: $T/repo, the repository `import` runs in (section 1 makes it
# when it runs).
import_repo() {
	[ -d "$T/repo/.git" ] && return
	mkdir -p "$T/repo"
	(cd "$T/repo" && git init -q -b main && git -c user.name=b -c user.email=b@b commit -q --allow-empty -m bench)
}
if want ingest; then
ingest_data
import_repo
cd "$T"
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
fi

# --------------------------------------------------------------- 2b. formats
# Each format's 100,000 results and the same samples as `lines`, imported
# REPS times each, interleaved, into fresh databases.
if want formats; then
import_repo
fail=0
for fmt in go pytest catch2 perfstat; do
	mkdir -p "$T/fmt-$fmt"
	python3 "$root/tests/bench/formats_gen.py" "$fmt" "$T/fmt-$fmt"
	: >"$T/fmt-$fmt/t.fmt" >"$T/fmt-$fmt/t.lines"
	for i in $(seq 1 "$reps"); do
		rm -f "$T/fmt.db"* "$T/lin.db"*
		(cd "$T/repo" && timeit "$bg" -q --db "$T/fmt.db" import "$T/fmt-$fmt/in.$fmt" --format "$fmt" --name f) >>"$T/fmt-$fmt/t.fmt"
		(cd "$T/repo" && timeit "$bg" -q --db "$T/lin.db" import "$T/fmt-$fmt/in.lines" --format lines --name f) >>"$T/fmt-$fmt/t.lines"
	done
	a=$(sqlite3 "$T/fmt.db" 'SELECT count(*) FROM samples') b=$(sqlite3 "$T/lin.db" 'SELECT count(*) FROM samples')
	[ "$a" = "$b" ] || { echo "bench: $fmt stored $a samples, lines $b" >&2; exit 1; }
	tf=$(median <"$T/fmt-$fmt/t.fmt") tl=$(median <"$T/fmt-$fmt/t.lines")
	r=$(ratio "$tf" "$tl")
	[ "$fmt" = go ] && echo "formats: importing 100,000 results vs the same samples as lines (median of $reps)"
	printf '  %-8s %8.3f s  lines %8.3f s  (%s samples)  %sx  (goal <= 2: %s)\n' "$fmt" "$tf" "$tl" "$a" "$r" \
		"$(awk -v r="$r" 'BEGIN { print (r <= 2) ? "PASS" : "FAIL" }')"
	awk -v r="$r" 'BEGIN { exit !(r > 2) }' && fail=1
	rm -rf "$T/fmt-$fmt"
done
[ "$fail" = 0 ] || { echo "bench: a format's import took more than 2x lines" >&2; exit 1; }
fi

# ------------------------------------------------------------------ 3. check
# big_data: $T/big, a repository of 201 commits, and $T/big.db, 200 runs of
# 1,000 series x 20 samples on its first 200 and the candidate on the last
# (once for sections 3 and 7); $T/big.json, the config `check` reads.
big_data() {
	local sha k=0
	[ -f "$T/big.json" ] && return
	mkdir -p "$T/big"
	(
		cd "$T/big"
		git init -q -b main
		for i in $(seq 1 201); do git -c user.name=b -c user.email=b@b commit -q --allow-empty -m "c$i"; done
		for sha in $(git rev-list --reverse HEAD); do
			k=$((k + 1))
			gen "$k" | "$bg" -q --db "$T/big.db" import - --format lines --name b --commit "$sha" --machine bench >/dev/null
		done
	)
	echo '{ "benchmarks": [ { "name": "b", "command": "true" } ] }' >"$T/big.json"
}
if want check; then
# One run of 1,000 series judged against 20-run baselines, in a database of
# 200 runs of each (4,000,000 samples), next to a bare SELECT of the same
# baseline rows with the sqlite3 tool.  Goal: < 100 ms and < 50 MB.
big_data
cd "$T/big"
cand=$(sqlite3 "$T/big.db" 'SELECT max(id) FROM runs')
samples=$(sqlite3 "$T/big.db" 'SELECT count(*) FROM samples')
cfg="$T/big.json"
: >"$T/chk" >"$T/sel"
for i in $(seq 1 "$reps"); do
	timeit_verdict "$bg" --db "$T/big.db" --config "$cfg" check --run "$cand" --machine bench --json >>"$T/chk"
	timeit sqlite3 "$T/big.db" "SELECT series_id, mean FROM results WHERE run_id IN
		(SELECT id FROM runs WHERE id < $cand ORDER BY id DESC LIMIT 20)" >>"$T/sel"
done
chk=$(median <"$T/chk") sel=$(median <"$T/sel")
kib=$(rss "$bg" --db "$T/big.db" --config "$cfg" check --run "$cand" --machine bench --json)
rows=$("$bg" --db "$T/big.db" --config "$cfg" check --run "$cand" --machine bench --json |
	python3 -c 'import json,sys; d=json.load(sys.stdin); print(len(d["results"]), d["results"][0]["baseline_runs"])')
echo "check: 1 run x 1,000 series against 20-run baselines, database of $samples samples (median of $reps)"
printf '  sqlite3 SELECT of the baseline rows %8.3f s\n' "$sel"
printf '  benchguard check (%s series, %s baseline runs) %8.3f s  peak %d MB  (goal < 0.100 s, < 50 MB)\n' \
	"${rows% *}" "${rows#* }" "$chk" $((kib / 1024))
# The same check where the run also measured a series no stored run has:
# the walk stops once every series has all the runs there are for it.
cp "$T/big.db" "$T/bignew.db"
{ gen 202; for i in 1 2 3 4 5; do echo "BENCHGUARD new/series 1.0$i ms"; done; } |
	"$bg" -q --db "$T/bignew.db" import - --format lines --name b --commit "$(git rev-parse HEAD)" --machine bench >/dev/null
candnew=$(sqlite3 "$T/bignew.db" 'SELECT max(id) FROM runs')
: >"$T/chknew" >"$T/chkold"
for i in $(seq 1 "$reps"); do
	timeit_verdict "$bg" --db "$T/big.db" --config "$cfg" check --run "$cand" --machine bench --json >>"$T/chkold"
	timeit_verdict "$bg" --db "$T/bignew.db" --config "$cfg" check --run "$candnew" --machine bench --json >>"$T/chknew"
done
chknew=$(paste "$T/chknew" "$T/chkold" | awk '{ print $1 / $2 }' | median)
printf '  the same run with one series more, never stored %8.3f s   %.3fx  (goal <= 1.5x)\n' "$(median <"$T/chknew")" "$chknew"
awk -v r="$chknew" 'BEGIN { exit !(r <= 1.5) }' ||
	{ echo "bench: check with a new series took ${chknew}x (goal <= 1.5x)" >&2; exit 1; }
# `history b --limit 1`: the newest run of each of the 1,000 series, against
# the sqlite3 tool's SELECT of the newest run's 1,000 results.
: >"$T/hist1" >"$T/histsel"
for i in $(seq 1 "$reps"); do
	timeit "$bg" --db "$T/big.db" history b --limit 1 >>"$T/hist1"
	timeit sqlite3 "$T/big.db" "SELECT s.metric, x.n, x.mean, x.stddev FROM results x
		JOIN series s ON s.id = x.series_id WHERE x.run_id = (SELECT max(id) FROM runs)" >>"$T/histsel"
done
hist1=$(paste "$T/hist1" "$T/histsel" | awk '{ print $1 / $2 }' | median)
printf '  benchguard history b --limit 1 (1,000 series) %8.3f s   %.3fx the SELECT of one run  (goal <= 10x)\n' \
	"$(median <"$T/hist1")" "$hist1"
awk -v r="$hist1" 'BEGIN { exit !(r <= 10) }' ||
	{ echo "bench: history --limit 1 took ${hist1}x the SELECT (goal <= 10x)" >&2; exit 1; }
fi

# ----------------------------------------------------------------- 4. report
if want report; then
# 1,000 series x 200 runs on 200 commits of a real repository, written with
# the sqlite3 tool straight into benchguard's schema (the report reads run
# summaries, not samples).  Every tenth series steps up 5% after run 100;
# run-to-run noise is ~1% (awk's seeded rand, so every bench sees the same).
mkdir -p "$T/rep" && cd "$T/rep"
git init -q -b main
for i in $(seq 1 200); do git -c user.name=b -c user.email=b@b commit -q --allow-empty -m "change $i"; done
git rev-list --reverse HEAD | awk '{ print NR - 1 "," $1 }' >"$T/shas.csv"
echo "BENCHGUARD x 1 ms" | "$bg" -q --db "$T/rep.db" import - --format lines --name seed --machine bench >/dev/null
now=$(date +%s)
awk 'BEGIN { srand(42); for (r = 1; r <= 200; r++) for (s = 1; s <= 1000; s++) {
	z = 0; for (k = 0; k < 12; k++) z += rand(); z -= 6 # ~N(0, 1)
	printf "%d,%d,%.9g\n", r, s, (1 + s / 1000) * ((s % 10 == 0 && r > 100) ? 1.05 : 1) * (1 + 0.01 * z) } }' >"$T/vals.csv"
sqlite3 "$T/rep.db" <<SQL
DELETE FROM results; DELETE FROM runs; DELETE FROM series; DELETE FROM commits;
CREATE TEMP TABLE shas(k INTEGER, sha TEXT);
CREATE TEMP TABLE vals(r INTEGER, s INTEGER, v REAL);
.mode csv
.import $T/shas.csv shas
.import $T/vals.csv vals
INSERT INTO commits(id, sha, author_time, author, subject)
  SELECT k + 1, sha, $now - (200 - k) * 600, 'b <b@b>', 'change ' || (k + 1) FROM shas;
INSERT INTO runs(id, commit_id, machine_id, branch, dirty, status, source, started_at, finished_at, uid)
  SELECT k + 1, k + 1, (SELECT id FROM machines WHERE fingerprint = 'bench'), 'main', 0,
         'complete', 'import', $now - (200 - k) * 600, $now - (200 - k) * 600,
         lower(hex(randomblob(16))) FROM shas;
WITH RECURSIVE s(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM s WHERE i < 1000)
INSERT INTO series(id, benchmark, metric, unit, direction)
  SELECT i, printf('bench/s%04d', i), 'wall_time', 's', 'lower' FROM s;
INSERT INTO results(run_id, series_id, n, mean, median, stddev, min, max, robust_mean, outliers)
  SELECT r, s, 10, v, v, v * 0.01, v * 0.98, v * 1.02, v, 0 FROM vals;
SQL
rows=$(sqlite3 "$T/rep.db" 'SELECT count(*) FROM results')
: >"$T/rep.times" >"$T/repsel"
for i in $(seq 1 "$reps"); do
	timeit "$bg" --db "$T/rep.db" report --since all --machine bench --branch main --format html -o "$T/rep.html" >>"$T/rep.times"
	timeit sqlite3 "$T/rep.db" "SELECT x.run_id, s.benchmark, s.metric, s.unit, x.n, x.mean, x.stddev
		FROM results x JOIN series s ON s.id = x.series_id JOIN runs r ON r.id = x.run_id
		ORDER BY s.id, x.run_id" >>"$T/repsel"
done
rep=$(median <"$T/rep.times") repsel=$(median <"$T/repsel")
charts=$(grep -o '<svg class="chart"' "$T/rep.html" | wc -l)
steps=$("$bg" --db "$T/rep.db" report --since all --machine bench --branch main --format json |
	python3 -c 'import json,sys; d=json.load(sys.stdin); print(d["summary"]["step_regressions"], d["summary"]["step_improvements"])')
size=$(stat -c %s "$T/rep.html")
echo "report: 1,000 series x 200 runs ($rows run summaries), HTML (median of $reps)"
printf '  sqlite3 SELECT of the same rows %8.3f s\n' "$repsel"
printf '  benchguard report --format html  %8.3f s   %sx sqlite3   %s charts, %s MB, steps up/down: %s  (goal <= 2x, <= 10 MB, < 2 s)\n' \
	"$rep" "$(ratio "$rep" "$repsel")" "$charts" "$(awk -v b="$size" 'BEGIN { printf "%.1f", b / 1048576 }')" "$steps"
awk -v t="$rep" 'BEGIN { exit !(t < 2.0) }' || { echo "bench: report took $rep s (goal < 2 s)" >&2; exit 1; }
awk -v t="$rep" -v s="$repsel" 'BEGIN { exit !(t <= 2 * s) }' ||
	{ echo "bench: report took $(ratio "$rep" "$repsel")x the SELECT (goal <= 2x)" >&2; exit 1; }
[ "$size" -le $((10 * 1048576)) ] || { echo "bench: the HTML report is $size bytes (goal <= 10 MB)" >&2; exit 1; }
# The same report as JSON: its peak memory against the size of its text.
jkib=$(rss "$bg" -q --db "$T/rep.db" report --since all --machine bench --branch main --format json -o "$T/rep.json")
jsize=$(stat -c %s "$T/rep.json")
printf '  benchguard report --format json  peak %d MB for %d MB of JSON, %sx  (goal <= 3x)\n' \
	$((jkib / 1024)) $((jsize / 1048576)) "$(ratio $((jkib * 1024)) "$jsize")"
[ $((jkib * 1024)) -le $((3 * jsize)) ] ||
	{ echo "bench: the JSON report took $((jkib / 1024)) MB for $((jsize / 1048576)) MB (goal <= 3x)" >&2; exit 1; }
fi

# ----------------------------------------------------------- 4b. changepoints
if want changepoints; then
cc -O2 -std=c11 -D_GNU_SOURCE -I"$root/lib" -o "$T/cpscale" "$root/tests/bench/cpscale.c" \
	"$root/$build/libbenchguard.so" -Wl,-rpath,"$root/$build" -lm
"$T/cpscale" 8000 "$reps" >"$T/cp.out"
read -r n1 s1 w1 t1 < <(sed -n 1p "$T/cp.out")
read -r n8 s8 w8 t8 < <(sed -n 2p "$T/cp.out")
echo "change points: one series, a step every 6 runs (median of $reps)"
printf '  %6d runs  %8.3f s   %5d of %5d steps\n' "$n1" "$t1" "$s1" "$w1"
printf '  %6d runs  %8.3f s   %5d of %5d steps   %sx the time for 8x the runs  (goal <= 12x)\n' \
	"$n8" "$t8" "$s8" "$w8" "$(ratio "$t8" "$t1")"
[ "$s1" = "$w1" ] && [ "$s8" = "$w8" ] || { echo "bench: the change-point search missed steps" >&2; exit 1; }
awk -v a="$t8" -v b="$t1" 'BEGIN { exit !(a <= 12 * b) }' ||
	{ echo "bench: the change-point search took $(ratio "$t8" "$t1")x for 8x the runs (goal <= 12x)" >&2; exit 1; }
fi

# ---------------------------------------------------------------- 5. history
if want history; then
# make_history DIR N: a repository of N commits on main, one a minute up to
# now (git fast-import, no files), then a branch `pr` of 5 commits off
# main~30; runs of 1,000 series on main's 21 newest commits and on the 5.
make_history() {
	local dir=$1 n=$2 t0 sha k=0
	mkdir -p "$dir" && cd "$dir" && git init -q -b main
	t0=$(($(date +%s) - n * 60))
	awk -v n="$n" -v t0="$t0" 'BEGIN { for (i = 1; i <= n; i++) {
		printf "commit refs/heads/main\nmark :%d\ncommitter b <b@b> %d +0000\n", i, t0 + 60 * i
		m = "c" i; printf "data %d\n%s\n", length(m), m
		if (i > 1) printf "from :%d\n", i - 1
		printf "\n" } }' | git fast-import --quiet
	git branch -q pr main~30
	git checkout -q pr
	for k in 1 2 3 4 5; do git -c user.name=b -c user.email=b@b commit -q --allow-empty -m "pr $k"; done
	git checkout -q main
	for sha in $(git rev-list --first-parent -n 21 main | tac) $(git rev-list -n 5 pr | tac); do
		k=$((k + 1))
		gen "$k" | "$bg" -q --db "$dir.db" import - --format lines --name b --commit "$sha" --machine bench >/dev/null
	done
}
for n in 200 100000; do make_history "$T/hist$n" "$n"; done
cfg="$T/hist.json"
echo '{ "benchmarks": [ { "name": "b", "command": "true" } ] }' >"$cfg"
: >"$T/h200" >"$T/h100000"
for i in $(seq 1 "$reps"); do
	for n in 200 100000; do
		cd "$T/hist$n"
		cand=$(sqlite3 "$T/hist$n.db" "SELECT r.id FROM runs r JOIN commits c ON c.id = r.commit_id
			WHERE c.sha = '$(git rev-parse main)'")
		timeit_verdict "$bg" --db "$T/hist$n.db" --config "$cfg" check --run "$cand" --machine bench --json >>"$T/h$n"
	done
done
small=$(median <"$T/h200") big=$(median <"$T/h100000")
cd "$T/hist100000"
judged=$("$bg" --db "$T/hist100000.db" --config "$cfg" check --run "$cand" --machine bench --json |
	python3 -c 'import json,sys; d=json.load(sys.stdin); print(len(d["results"]), d["results"][0]["baseline_runs"])')
echo "history: check of 1 run x 1,000 series, 20-run baselines, 5 runs on a pull-request branch (median of $reps)"
printf '  in a repository of 200 commits      %8.3f s\n' "$small"
printf '  in a repository of 100,000 commits  %8.3f s   %sx  (%s series, %s baseline runs; goal <= 1.5x)\n' \
	"$big" "$(ratio "$big" "$small")" "${judged% *}" "${judged#* }"
awk -v a="$big" -v b="$small" 'BEGIN { exit !(a <= 1.5 * b) }' ||
	{ echo "bench: check in 100,000 commits took $(ratio "$big" "$small")x its time in 200 (goal <= 1.5x)" >&2; exit 1; }
fi

# ----------------------------------------------------------------- 5b. prune
if want prune; then
# Section 3's database with its 170 oldest runs made 400 days old: `db prune
# --before 365d` deletes them (main's baseline, 20 runs and 6 spares, reads
# the 27 newest), against the sqlite3 tool deleting the same runs with the
# same cascades.  Goal: <= 2x.
big_data
cd "$T/big"
: >"$T/prune" >"$T/prunepeer"
for i in $(seq 1 "$reps"); do
	for f in prune prunepeer; do
		cp "$T/big.db" "$T/$f.db"
		sqlite3 "$T/$f.db" "UPDATE runs SET started_at = started_at - 400 * 86400 WHERE id <= 170"
	done
	timeit "$bg" -q --db "$T/prune.db" db prune --before 365d >>"$T/prune"
	timeit sqlite3 "$T/prunepeer.db" "PRAGMA foreign_keys = ON;
		DELETE FROM runs WHERE started_at < strftime('%s', 'now') - 365 * 86400" >>"$T/prunepeer"
done
left=$(sqlite3 "$T/prune.db" 'SELECT count(*) || " runs, " || (SELECT count(*) FROM samples) || " samples" FROM runs')
[ "$left" = "$(sqlite3 "$T/prunepeer.db" 'SELECT count(*) || " runs, " || (SELECT count(*) FROM samples) || " samples" FROM runs')" ] ||
	{ echo "bench: db prune left $left, the DELETE something else" >&2; exit 1; }
pr=$(median <"$T/prune") peer=$(median <"$T/prunepeer")
echo "prune: 170 of 201 runs x 1,000 series x 20 samples deleted (median of $reps; $left left)"
printf '  sqlite3 DELETE of the same runs (cascades) %8.3f s\n' "$peer"
printf '  benchguard db prune --before 365d          %8.3f s   %sx  (goal <= 2)\n' "$pr" "$(ratio "$pr" "$peer")"
awk -v a="$pr" -v b="$peer" 'BEGIN { exit !(a <= 2 * b) }' ||
	{ echo "bench: db prune took $(ratio "$pr" "$peer")x the DELETE (goal <= 2x)" >&2; exit 1; }
fi

# ------------------------------------------------------------- PostgreSQL
# One throwaway server for sections 6 and 7 (tests/pg.sh: Unix socket only,
# fsync off), in a short folder under /tmp (the socket path's limit).  The
# peer is the real psql binary of that server, not Debian's Perl wrapper
# in /usr/bin, whose start-up alone (~20 ms) would flatter benchguard.
if want pg-ingest || want pg-check || want pg-copy; then
	if ! why=$(bash "$root/tests/pg.sh" available); then
		echo "pg sections skipped: $why"
	else
		# shellcheck disable=SC2046 # the caller's PGHOST, PGOPTIONS... must not steer it
		unset $(compgen -e | grep '^PG') 2>/dev/null || true
		pgbin=${BG_PG_BINDIR:-$(pg_config --bindir 2>/dev/null || true)}
		[ -x "$pgbin/psql" ] || pgbin=$(ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -V -r | head -n 1)
		psql="$pgbin/psql"
		[ -x "$psql" ] || psql=$(command -v psql)
		pgdir=$(mktemp -d /tmp/bg-bench-pg.XXXXXX)
		if ! bash "$root/tests/pg.sh" start "$pgdir"; then
			echo "pg sections skipped: the server did not start (above)"
			bash "$root/tests/pg.sh" stop "$pgdir" || true
			rm -rf "$pgdir"
			pgdir=''
		fi
	fi
fi
# pgq URI SQL: the single value SQL returns.
pgq() { "$psql" -X -A -t -q -v ON_ERROR_STOP=1 -c "$2" "$1"; }
# pgdb NAME: a fresh database NAME (dropped first if there), its URI.
pgdb() {
	"$psql" -X -q -v ON_ERROR_STOP=1 -c 'SET client_min_messages = warning' \
		-c "DROP DATABASE IF EXISTS \"$1\"" "$(bash "$root/tests/pg.sh" url "$pgdir" postgres)"
	bash "$root/tests/pg.sh" createdb "$pgdir" "$1"
}

# ------------------------------------------------------------- 6. pg-ingest
if want pg-ingest && [ -n "$pgdir" ]; then
ingest_data
import_repo
: >"$T/pgimp" >"$T/pgcp"
for i in $(seq 1 "$reps"); do
	# Fresh databases each time, made (and the last ones dropped) untimed.
	u=$(pgdb bgimp)
	(cd "$T/repo" && timeit "$bg" -q --db "$u" import "$T/lines.txt" --format lines --name ingest) >>"$T/pgimp"
	c=$(pgdb bgcopy)
	timeit "$psql" -X -q -v ON_ERROR_STOP=1 -c 'CREATE TABLE t (series text, idx int, value double precision)' \
		-c "\\copy t FROM '$T/rows.csv' CSV" "$c" >>"$T/pgcp"
done
stored=$(pgq "$u" 'SELECT count(*) FROM samples')
copied=$(pgq "$c" 'SELECT count(*) FROM t')
imp=$(median <"$T/pgimp") cp=$(median <"$T/pgcp")
echo "pg-ingest: 1,000 series x 1,000 samples, lines format, into PostgreSQL $("$psql" -X -A -t -c 'SHOW server_version' "$u" | cut -d' ' -f1) (median of $reps)"
printf '  psql \\copy of the CSV (%s rows)       %8.3f s\n' "$copied" "$cp"
printf '  benchguard import (%s stored) %8.3f s   %sx psql  (goal <= 2: %s)\n' "$stored" "$imp" "$(ratio "$imp" "$cp")" \
	"$(awk -v a="$imp" -v b="$cp" 'BEGIN { print (a <= 2 * b) ? "PASS" : "FAIL" }')"
fi

# -------------------------------------------------------------- 7. pg-check
if want pg-check && [ -n "$pgdir" ]; then
# Section 3's database, copied whole into PostgreSQL, and the same check
# and the same SELECT there.
big_data
pgu=$(pgdb bgcheck)
"$bg" -q db copy "$T/big.db" "$pgu" >/dev/null
# The planner statistics a live database has from autovacuum, for both.
pgq "$pgu" 'VACUUM ANALYZE' >/dev/null
cd "$T/big"
cfg="$T/big.json"
cand=$(pgq "$pgu" 'SELECT max(id) FROM runs')
samples=$(pgq "$pgu" 'SELECT count(*) FROM samples')
: >"$T/pgchk" >"$T/pgsel"
for i in $(seq 1 "$reps"); do
	timeit_verdict "$bg" --db "$pgu" --config "$cfg" check --run "$cand" --machine bench --json >>"$T/pgchk"
	timeit "$psql" -X -A -t -q -o /dev/null -c "SELECT series_id, mean FROM results WHERE run_id IN
		(SELECT id FROM runs WHERE id < $cand ORDER BY id DESC LIMIT 20)" "$pgu" >>"$T/pgsel"
done
chk=$(median <"$T/pgchk") sel=$(median <"$T/pgsel")
rows=$("$bg" --db "$pgu" --config "$cfg" check --run "$cand" --machine bench --json |
	python3 -c 'import json,sys; d=json.load(sys.stdin); print(len(d["results"]), d["results"][0]["baseline_runs"])')
echo "pg-check: 1 run x 1,000 series against 20-run baselines, PostgreSQL database of $samples samples (median of $reps)"
printf '  psql SELECT of the baseline rows %8.3f s\n' "$sel"
printf '  benchguard check (%s series, %s baseline runs) %8.3f s   %sx psql  (goal <= 2x, < 0.150 s: %s)\n' \
	"${rows% *}" "${rows#* }" "$chk" "$(ratio "$chk" "$sel")" \
	"$(awk -v a="$chk" -v b="$sel" 'BEGIN { print (a <= 2 * b && a < 0.150) ? "PASS" : "FAIL" }')"
# `history b --limit 1` on PostgreSQL, against psql's SELECT of the newest
# run's 1,000 results, as section 3 does on SQLite.
: >"$T/pghist1" >"$T/pghistsel"
for i in $(seq 1 "$reps"); do
	timeit "$bg" --db "$pgu" history b --limit 1 >>"$T/pghist1"
	timeit "$psql" -X -A -t -q -o /dev/null -c "SELECT s.metric, x.n, x.mean, x.stddev FROM results x
		JOIN series s ON s.id = x.series_id WHERE x.run_id = (SELECT max(id) FROM runs)" "$pgu" >>"$T/pghistsel"
done
pghist1=$(paste "$T/pghist1" "$T/pghistsel" | awk '{ print $1 / $2 }' | median)
printf '  benchguard history b --limit 1 (1,000 series) %8.3f s   %.3fx psql'"'"'s SELECT of one run  (goal <= 10x)\n' \
	"$(median <"$T/pghist1")" "$pghist1"
fi

# -------------------------------------------------------------- 8. pg-copy
if want pg-copy && [ -n "$pgdir" ]; then
# Section 3's database (201 runs of 1,000 series x 20 samples) both ways,
# against the plain load of the same rows: at most 3 rounds, each copy
# takes seconds.
big_data
sqlite3 -csv "$T/big.db" 'SELECT id, run_id, series_id, n, mean, median, stddev, min, max FROM results' >"$T/results.csv"
sqlite3 -csv "$T/big.db" 'SELECT result_id, idx, value FROM samples' >"$T/samples.csv"
plain='CREATE TABLE results (id bigint, run_id bigint, series_id bigint, n bigint, mean float8,
	median float8, stddev float8, min float8, max float8);
	CREATE TABLE samples (result_id bigint, idx int, value float8);'
: >"$T/cpto" >"$T/cptopeer" >"$T/cpback" >"$T/cpbackpeer"
for i in $(seq 1 "$(( reps < 3 ? reps : 3 ))"); do
	u=$(pgdb bgcopyto)
	timeit "$bg" -q db copy "$T/big.db" "$u" >>"$T/cpto"
	c=$(pgdb bgcopypeer)
	timeit "$psql" -X -q -v ON_ERROR_STOP=1 -c "$plain" -c "\\copy results FROM '$T/results.csv' CSV" \
		-c "\\copy samples FROM '$T/samples.csv' CSV" "$c" >>"$T/cptopeer"
	rm -f "$T/back.db" "$T/backpeer.db"
	timeit "$bg" -q db copy "$u" "$T/back.db" >>"$T/cpback"
	timeit sqlite3 "$T/backpeer.db" "$plain" ".import --csv $T/results.csv results" \
		".import --csv $T/samples.csv samples" >>"$T/cpbackpeer"
done
samples=$(sqlite3 "$T/back.db" 'SELECT count(*) FROM samples')
[ "$samples" = "$(sqlite3 "$T/big.db" 'SELECT count(*) FROM samples')" ] ||
	{ echo "bench: db copy lost samples ($samples)" >&2; exit 1; }
to=$(median <"$T/cpto") topeer=$(median <"$T/cptopeer") back=$(median <"$T/cpback") backpeer=$(median <"$T/cpbackpeer")
echo "pg-copy: db copy of 201 runs x 1,000 series x 20 samples ($samples samples), median of $(wc -l <"$T/cpto")"
printf '  psql \\copy of the results and samples rows       %8.3f s\n' "$topeer"
printf '  benchguard db copy SQLite -> PostgreSQL %8.3f s   %sx psql  (goal <= 6: %s)\n' "$to" "$(ratio "$to" "$topeer")" \
	"$(awk -v a="$to" -v b="$topeer" 'BEGIN { print (a <= 6 * b) ? "PASS" : "FAIL" }')"
printf '  sqlite3 .import of the same rows                 %8.3f s\n' "$backpeer"
printf '  benchguard db copy PostgreSQL -> SQLite %8.3f s   %sx sqlite3  (goal <= 6: %s)\n' "$back" "$(ratio "$back" "$backpeer")" \
	"$(awk -v a="$back" -v b="$backpeer" 'BEGIN { print (a <= 6 * b) ? "PASS" : "FAIL" }')"
awk -v a="$to" -v b="$topeer" -v c="$back" -v d="$backpeer" 'BEGIN { exit !(a <= 6 * b && c <= 6 * d) }' ||
	{ echo "bench: db copy took more than 6x the plain load" >&2; exit 1; }
fi
