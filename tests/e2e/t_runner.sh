# t_runner.sh -- the runner through `benchguard run`: a benchmark that hangs
# with a forked child is killed at its timeout with its whole process group;
# a crashing one is `failed` (exit 3) while the others are stored; output
# larger than the bound does not exhaust memory.
. "$(dirname "$0")/lib.sh"

new_repo "$T/r" >/dev/null
cd "$T/r" || exit 1
marker=$((900000 + RANDOM))
# The memory benchmarks hold 32 MiB more than the margin peak_rss needs over
# benchguard's own peak (how far the kernel's per-CPU counts can be off:
# twice CPUs x max(32, 2 x CPUs) pages, docs/configuration.md), so that they
# keep their peak_rss on a machine with many CPUs too.
cpus=$(getconf _NPROCESSORS_CONF) page=$(getconf PAGESIZE)
batch=$((cpus * 2 > 32 ? cpus * 2 : 32))
pages=$((cpus * batch > 64 ? cpus * batch : 64))
hold=$((32 * 1024 * 1024 + 2 * pages * page))
cat >benchguard.json <<J
{
  "defaults": { "warmup": 0, "samples": 3, "timeout": 30 },
  "benchmarks": [
    { "name": "before", "command": "true" },
    { "name": "mem-first", "samples": 2,
      "command": "x=\$(head -c $hold /dev/zero | tr '\\\\000' a); test \${#x} -eq $hold" },
    { "name": "hang", "command": "sleep $marker & sleep $marker", "timeout": 1, "samples": 1 },
    { "name": "crash", "command": "echo about to crash >&2; kill -SEGV \$\$" },
    { "name": "fails", "command": "echo 'bad input: no such file' >&2; exit 4" },
    { "name": "flood", "format": "lines", "samples": 1,
      "command": "yes 'BENCHGUARD flood 1 s' | head -c 400000000" },
    { "name": "after", "command": "true" },
    { "name": "mem", "samples": 2,
      "command": "x=\$(head -c $hold /dev/zero | tr '\\\\000' a); test \${#x} -eq $hold" }
  ]
}
J
git add benchguard.json && git commit -qm suite
start=$SECONDS
# ASan keeps up to 256 MB of freed memory resident (its quarantine), which
# would be counted as benchguard's; a small quarantine keeps the measure
# about benchguard's own buffers under the sanitizers too.
asan=${ASAN_OPTIONS:-}
case $BG in *sanitize*) asan="${asan:+$asan:}quarantine_size_mb=16" ;; esac
ASAN_OPTIONS=$asan python3 - "$BG" "$T" <<'P' >"$T/rss" 2>"$T/err"
import resource, subprocess, sys
bg, t = sys.argv[1], sys.argv[2]
p = subprocess.run([bg, "run"], stdout=open(t + "/out", "w"), stderr=sys.stderr)
print(p.returncode, resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss)
P
read -r rc rss_kib <"$T/rss"
elapsed=$((SECONDS - start))
check "run with failed benchmarks exits 3" test "$rc" = 3
check "the hanging benchmark is reported as timed out" grep -q '^hang: FAILED: timed out after 1' "$T/err"
check "it was killed at its timeout (the whole run took ${elapsed}s)" test "$elapsed" -lt 20
sleep 0.2
# "slee[p]" so that pgrep does not match the shell that runs it.
check "no process of the hanging benchmark is left behind" bash -c "! pgrep -f 'slee[p] $marker' >/dev/null"
check "the crash is failed with its signal and stderr tail" \
	grep -q '^crash: FAILED: killed by signal 11 (Segmentation fault); stderr: about to crash' "$T/err"
check "a nonzero exit is failed with its status and stderr tail" \
	grep -q '^fails: FAILED: exit status 4; stderr: bad input: no such file' "$T/err"
check "output past the bound fails the benchmark" grep -q '^flood: FAILED: output exceeded' "$T/err"
check "benchguard's memory stayed bounded while 400 MB were printed (${rss_kib} KiB peak)" \
	test "$rss_kib" -lt 262144
check "the other benchmarks were stored" bash -c "
	\"$BG\" history before:wall_time --json | python3 -c 'import json,sys; r=json.load(sys.stdin); assert len(r)==1 and r[0][\"n\"]==3' &&
	\"$BG\" history after:wall_time --json | python3 -c 'import json,sys; r=json.load(sys.stdin); assert len(r)==1 and r[0][\"n\"]==3'"
check "failed benchmarks are stored as outcomes, without samples" bash -c "
	[ \"\$(sqlite3 .benchguard/results.db \"SELECT group_concat(benchmark || '=' || status, ',') FROM (SELECT * FROM outcomes WHERE status != 'ok' ORDER BY benchmark)\")\" = 'crash=failed,fails=failed,flood=failed,hang=failed' ] &&
	[ \"\$(sqlite3 .benchguard/results.db \"SELECT count(*) FROM results r JOIN series s ON s.id = r.series_id WHERE s.benchmark IN ('hang','crash','fails','flood')\")\" = 0 ]"
check "the run itself is complete" test "$(sqlite3 .benchguard/results.db "SELECT status FROM runs")" = complete
check "wall_time and cpu_time are measured" bash -c "
	\"$BG\" history before --json | python3 -c '
import json,sys
r = {x[\"series\"]: x for x in json.load(sys.stdin)}
assert r[\"before:wall_time\"][\"unit\"] == \"s\" and 0 < r[\"before:wall_time\"][\"mean\"] < 1
assert r[\"before:cpu_time\"][\"unit\"] == \"s\" and r[\"before:cpu_time\"][\"mean\"] >= 0
# true peaks below benchguard itself, whose peak Linux reports as the floor.
assert \"before:peak_rss\" not in r, r'"
peak_ok() { # SERIES: 2 samples in bytes, at least the 32 MiB the shell held
	"$BG" history "$1" --json | python3 -c '
import json,sys
r = json.load(sys.stdin)[0]
assert r["unit"] == "B" and r["n"] == 2 and 32 * 2**20 <= r["min"] < 2**30, r'
}
check "peak_rss of a benchmark holding 32 MiB is measured in bytes" peak_ok mem-first:peak_rss
# After "flood", benchguard itself held 64 MiB of captured output; its peak is
# reset before each benchmark so the floor drops again.  ASan's quarantine
# keeps freed memory resident, so there the floor cannot drop.
case "${BG_BUILD:-}" in
*sanitize*) skip "peak_rss after a benchmark with large output" "ASan keeps freed memory resident" ;;
*) check "peak_rss after a benchmark with large output is still the benchmark's" peak_ok mem:peak_rss ;;
esac

cat >benchguard.json <<'J'
{ "defaults": { "samples": 2, "warmup": 0 },
  "benchmarks": [ { "name": "needs-gpu", "command": "true", "requires": ["cuda"] },
                  { "name": "needs-tool", "command": "true", "requires": ["no-such-tool-xyz"] },
                  { "name": "plain", "command": "true" } ] }
J
gpu=0
ls /dev/nvidia0 >/dev/null 2>&1 && gpu=1
if "$BG" --json run --no-build >"$T/out" 2>"$T/err"; then
	check "unmet requires are skipped with the reason, exit 0" python3 - "$T/out" "$gpu" <<'P'
import json, sys
o = {x["benchmark"]: x for x in json.load(open(sys.argv[1]))["runs"][0]["outcomes"]}
if sys.argv[2] == "1":  # a GPU machine: "cuda" is met
    assert o["needs-gpu"]["status"] == "ok", o
else:
    assert o["needs-gpu"]["status"] == "skipped" and "CUDA" in o["needs-gpu"]["message"], o
assert o["needs-tool"]["status"] == "skipped" and "no-such-tool-xyz" in o["needs-tool"]["message"], o
P
else
	not_ok "unmet requires are skipped (run exited $?)"
fi
# A relative path is looked for where the commands run (the repository's
# root), wherever benchguard is started: from a folder below, ./tool.sh
# was "not found" and the benchmark skipped, exit 0.
cp benchguard.json "$T/suite.keep"
printf '#!/bin/sh\ntrue\n' >tool.sh && chmod +x tool.sh
cat >benchguard.json <<'J'
{ "defaults": { "samples": 1, "warmup": 0 },
  "benchmarks": [ { "name": "tool", "command": "./tool.sh", "requires": ["./tool.sh"] } ] }
J
mkdir -p below
(cd below && "$BG" --json run --no-build >"$T/out" 2>"$T/err")
check "requires ./tool.sh, run from a folder below: met where the command runs (exit $?)" \
	python3 -c "
import json; o = json.load(open('$T/out'))['runs'][0]['outcomes']
assert [x['status'] for x in o] == ['ok'], o"
rm -rf below tool.sh
cp "$T/suite.keep" benchguard.json

# `true` peaks at benchguard's own footprint; read at its exec and again
# after, the kernel's two counts of it differ by a few KiB either way, so
# peak_rss needs a margin over the floor (or it appears now and then).
"$BG" -v -v run --no-build --filter plain >/dev/null 2>"$T/err"
check "peak_rss of a small benchmark is left out with a margin over benchguard's own peak" \
	grep -Eq "plain: peak_rss not recorded: [0-9]+ KiB is not above benchguard's own [0-9]+ KiB .* by more than [1-9][0-9]* KiB" "$T/err"

cat >benchguard.json <<'J'
{ "build": "echo compiling; echo 'error: missing semicolon' >&2; exit 2",
  "benchmarks": [ { "name": "x", "command": "true" } ] }
J
check "a failing build -> exit 3" expect_rc 3 "$BG" run
check "... with the build log's tail on stderr" grep -q 'error: missing semicolon' "$T/err"
check "... and a one-line reason last" bash -c "tail -n 1 $T/err | grep -q '^benchguard: build failed (exit status 2)'"

# A build that prints more than benchguard keeps of its stdout (1 MiB)
# before it fails: the tail shown is the end of what it printed.
cat >benchguard.json <<'J'
{ "build": "seq 1 400000; echo 'error: the real cause'; exit 2",
  "benchmarks": [ { "name": "x", "command": "true" } ] }
J
check "a failing build with 2.6 MB of output -> exit 3" expect_rc 3 "$BG" run
check "... and its tail on stderr is the end of its output" bash -c "
	grep -q 'error: the real cause' $T/err && grep -qx 399999 $T/err"

# A command not even the shell can be started with (an argument list past
# the kernel's limit, E2BIG): that benchmark fails as one the shell cannot
# execute, 126, without the command repeated; the others still run and the
# run is complete.
python3 -c "
import json
json.dump({'defaults': {'samples': 1, 'warmup': 0}, 'benchmarks': [
    {'name': 'first', 'command': 'true'},
    {'name': 'long', 'command': 'true ' + 'x' * 140000 + ' && true'},
    {'name': 'plain', 'command': '/bin/true ' + 'y' * 140000},
    {'name': 'last', 'command': 'true'}]}, open('benchguard.json', 'w'))"
check "an argument list too long: exit 3" expect_rc 3 "$BG" --db "$T/e2big.db" run
check "... those two benchmarks failed with 126, the others stored, the run complete" test \
	"$(sqlite3 "$T/e2big.db" "SELECT group_concat(benchmark || '=' || status, ' ') FROM (SELECT * FROM outcomes ORDER BY benchmark);
		SELECT status FROM runs")" = "first=ok last=ok long=failed plain=failed
complete"
check "... saying why, without the 140 KB command" bash -c "
	grep -q 'long: FAILED: exit status 126; stderr: benchguard: cannot execute the command: Argument list too long' $T/err &&
	[ \$(wc -c <$T/out) -lt 5000 ] && [ \$(wc -c <$T/err) -lt 5000 ]"

# A spread about a mean of 0 (a score in pt, -1 and 1) has no relative
# size: its cv is "-", not a 0.0% that reads as no noise.
cat >benchguard.json <<'J'
{ "benchmarks": [ { "name": "z", "format": "lines",
    "command": "printf 'BENCHGUARD p -1 pt\\nBENCHGUARD p 1 pt\\nBENCHGUARD p -1 pt\\nBENCHGUARD p 1 pt\\n'" } ] }
J
check "a spread about a mean of 0: exit 0" expect_rc 0 "$BG" --db "$T/cv.db" run
check "... its cv is \"-\", in the table and the progress line" bash -c "
	grep -qE '^1 +z:p +4 +0 pt +0 pt +1\\.155 pt +- +-1 pt +1 pt +ok' $T/out && grep -q 'z:p  0 pt  (n=4, cv -)' $T/err"

# A benchmark that prints a stored series in another unit (bytes where it
# printed seconds) fails, saying why; the benchmarks after it still run
# and the run is complete.  It stopped the run at exit 2, left incomplete.
cat >benchguard.json <<'J'
{ "benchmarks": [ { "name": "x", "command": "cat unit.txt", "format": "lines" },
                  { "name": "y", "command": "echo BENCHGUARD m 5 ms", "format": "lines" } ] }
J
echo 'BENCHGUARD t 10 ms' >unit.txt
"$BG" -q --db "$T/unit.db" run >/dev/null 2>&1
echo 'BENCHGUARD t 10 B' >unit.txt
check "a series measured in another unit: exit 3" expect_rc 3 "$BG" --db "$T/unit.db" run
check "... that benchmark failed saying why, the next one stored, the run complete" test \
	"$(sqlite3 "$T/unit.db" "SELECT benchmark || '=' || status || ':' || coalesce(message, '') FROM outcomes WHERE run_id = 2 ORDER BY benchmark;
		SELECT count(*) FROM results WHERE run_id = 2; SELECT status FROM runs WHERE id = 2")" = \
	'x=failed:series "x:t" is stored in unit "s", but this run measured it in "B"
y=ok:
1
complete'
check "... and the run's table says so" grep -q 'x: FAILED: series "x:t" is stored in unit "s"' "$T/err"

# Stopped while it measured (Ctrl-Z, then fg: SIGSTOP, SIGCONT): the
# execution that spanned the stop is measured again.  It was stored with
# the 2 s stop in its wall time, a sample 7 times the others.
cat >benchguard.json <<'J'
{ "benchmarks": [ { "name": "nap", "command": "touch began; sleep 0.3", "warmup": 0, "samples": 3 } ] }
J
rm -f began
"$BG" --db "$T/stop.db" run >"$T/out" 2>"$T/err" &
pid=$!
for i in $(seq 1 100); do [ -e began ] && break; sleep 0.1; done
sleep 0.1
kill -STOP "$pid"
sleep 2
kill -CONT "$pid"
wait "$pid"
rc=$?
check "a run stopped and resumed while it measured: exit $rc (0)" test "$rc" = 0
check "... its 3 samples all under 1 s, the stop in none" test "$(sqlite3 "$T/stop.db" \
	"SELECT count(*) || ' ' || sum(s.value < 1.0) FROM samples s JOIN results x ON x.id = s.result_id
	 JOIN series z ON z.id = x.series_id WHERE z.metric = 'wall_time'")" = "3 3"
check "... saying it measured that execution again" \
	grep -q 'benchguard was stopped while it measured; measuring that execution again' "$T/err"
finish
