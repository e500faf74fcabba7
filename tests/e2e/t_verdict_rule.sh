# t_verdict_rule.sh -- near-deterministic series end to end: an
# instruction count that repeats exactly, stored with `import`, judged by
# `check` against its own min_change (thresholds.metrics, or the
# benchmark's metrics entry) and no t-test: +0.5% is a regression, +0.05%
# and A/A are unchanged; check's JSON and table say which rule judged it
# and against what noise floor; `calibrate` reports the rule per series.
. "$(dirname "$0")/lib.sh"

new_repo "$T/r" >/dev/null
cd "$T/r" || exit 1
# spread.sh: 4 samples around 10, 11, 12 ms by run (a time with a 18% range).
cat >spread.sh <<S
n=\$(cat "$T/counter" 2>/dev/null || echo 0); n=\$((n + 1)); echo \$n >"$T/counter"
awk -v b=\$((10 + n % 3)) 'BEGIN { for (d = -3; d <= 3; d += 2) printf "BENCHGUARD lat %.1f ms\n", b + d / 10 }'
S
cat >benchguard.json <<'J'
{ "baseline": { "branch": "main", "window": 20, "min_runs": 5 },
  "thresholds": { "min_change": 0.02,
                  "metrics": { "instructions": { "min_change": 0.001 } } },
  "defaults": { "warmup": 0, "samples": 3 },
  "benchmarks": [
    { "name": "sim", "format": "lines", "command": "echo BENCHGUARD instructions 1000000 instr" },
    { "name": "coarse", "format": "lines", "command": "echo BENCHGUARD instructions 1000000 instr",
      "metrics": { "instructions": { "min_change": 0.01 } } },
    { "name": "spread", "format": "lines", "command": "sh spread.sh" } ] }
J
git add . && git commit -qm "suite"
export BENCHGUARD_DB="$T/db"

commit() { echo "$1" >>log.txt && git add log.txt && git commit -qm "$1"; }
# store BENCH VALUE: one run at HEAD on machine m1, series BENCH:instructions.
store() {
	echo "BENCHGUARD instructions $2 instr" >"$T/s.txt"
	"$BG" import "$T/s.txt" --format lines --name "$1" --machine m1 --json |
		python3 -c 'import json,sys; print(json.load(sys.stdin)["run"])'
}
# row RUN: check --json of the run -> $T/v.json, exit status in $T/v.rc.
row() {
	"$BG" check --run "$1" --machine m1 --json >"$T/v.json" 2>"$T/v.err"
	echo $? >"$T/v.rc"
}
# is KEY=VALUE...: the first result's fields (python literals).
is() {
	python3 - "$T/v.json" "$@" <<'P'
import json, sys
r = json.load(open(sys.argv[1]))["results"][0]
for kv in sys.argv[2:]:
    k, v = kv.split("=", 1)
    assert r[k] == eval(v), (k, r[k], v, r)
P
}

for i in 1 2 3 4 5 6; do
	commit "main $i"
	store sim 1000000000 >/dev/null
	store coarse 1000000000 >/dev/null
done
commit candidate

row "$(store sim 1000000000)"
check "A/A of an exact count: unchanged, exit 0" is verdict="'unchanged'"
check "... judged near-deterministic: noise floor 0, min_change 0.1%, no p" \
	is rule="'near-deterministic'" noise_floor=0 min_change=0.001 p_value=None p_adjusted=None
check "... exit 0" test "$(cat "$T/v.rc")" = 0

id=$(store sim 1005000000)
row "$id"
check "+0.5% of a count (min_change 0.1%): regression" is verdict="'regression'" rule="'near-deterministic'"
check "... exit 1" test "$(cat "$T/v.rc")" = 1
check "the table says it had no p: the noise floor instead" bash -c "
	\"$BG\" check --run $id --machine m1 >$T/t.txt; grep -q '^regression  *sim:instructions .*+0.50%  *floor 0%' $T/t.txt"

row "$(store sim 1000500000)"
check "+0.05%: unchanged" is verdict="'unchanged'" undecided=False
row "$(store sim 995000000)"
check "-0.5%: improvement" is verdict="'improvement'"

row "$(store coarse 1005000000)"
check "the benchmark's own min_change (1%) comes first: +0.5% unchanged" \
	is verdict="'unchanged'" min_change=0.01 rule="'near-deterministic'"
row "$(store coarse 1020000000)"
check "... +2% is its regression" is verdict="'regression'"

# A time that moves by percents: the t-test, with the suite's min_change.
for v in 1.00 1.03 0.98 1.01 0.97 1.02; do
	echo "BENCHGUARD lat $v ms" >"$T/t.txt"
	"$BG" import "$T/t.txt" --format lines --name t --machine m1 --commit HEAD~1 >/dev/null
done
echo "BENCHGUARD lat 1.00 ms" >"$T/t.txt"
row "$("$BG" import "$T/t.txt" --format lines --name t --machine m1 --json |
	python3 -c 'import json,sys; print(json.load(sys.stdin)["run"])')"
check "a time with a 6% range takes the t-test" is rule="'t-test'" min_change=0.02 verdict="'unchanged'"
check "... with its p and its noise floor" python3 -c "
import json; r = json.load(open('$T/v.json'))['results'][0]
assert r['p_value'] is not None and abs(r['noise_floor'] - 0.06 / 1.00) < 0.01, r"

check "calibrate --runs 3 --json exits 0" bash -c "
	\"$BG\" calibrate --runs 3 --json >$T/cal.json 2>$T/cal.err"
check "calibrate reports the rule of each series" python3 - "$T/cal.json" <<'P'
import json, sys
s = {x["series"]: x for x in json.load(open(sys.argv[1]))["series"]}
a, c, t = s["sim:instructions"], s["coarse:instructions"], s["spread:lat"]
assert a["rule"] == "near-deterministic" and a["noise_floor"] == 0 and a["min_change"] == 0.001, a
assert c["rule"] == "near-deterministic" and c["min_change"] == 0.01, c
# run means 11, 12, 10 ms (the counter starts at 1): range 2 ms over 11 ms.
assert t["rule"] == "t-test" and abs(t["noise_floor"] - 2 / 11) < 1e-9 and t["min_change"] == 0.02, t
P
check "... and says it in words in the table" bash -c "
	\"$BG\" calibrate --runs 2 >$T/cal.txt 2>/dev/null &&
	grep -q 'sim:instructions .*near-deterministic: noise floor 0%, min_change 0.1%' $T/cal.txt &&
	grep -q 'spread:lat .*t-test: noise floor [0-9.]*% > min_change 2% / 4' $T/cal.txt"

# A benchmark's own min_change reaches the series its parser makes
# ("g/BenchmarkX" from Go's output), as its direction does: +20% on a 50%
# threshold is unchanged.  Before, the suite's 2% judged them.
new_repo "$T/go" >/dev/null
cd "$T/go" || exit 1
cat >benchguard.json <<'J'
{ "baseline": { "branch": "main", "window": 20, "min_runs": 5 },
  "benchmarks": [ { "name": "g", "command": "cat go.txt", "format": "go",
    "metrics": { "time": { "min_change": 0.5 } } } ] }
J
for v in 1000 1010 990 1005 995 1002 1200; do
	printf 'BenchmarkX-8 100 %s ns/op\n' "$v" >go.txt
	git add -A && git commit -qm "v$v" && "$BG" --db "$T/go.db" run -q >/dev/null
done
"$BG" --db "$T/go.db" check --json >"$T/go.json"
check "a Go benchmark's series g/BenchmarkX takes the benchmark's min_change (+20% unchanged, exit $?)" \
	python3 -c "
import json; r = [x for x in json.load(open('$T/go.json'))['results'] if x['series'] == 'g/BenchmarkX:time'][0]
assert r['min_change'] == 0.5 and r['verdict'] == 'unchanged' and r['change'] > 0.15, r"

# compare of a count that repeats exactly: its pairs are judged by the noise
# floor, and the confirmation says so (it read "(p -)").
new_repo "$T/det" >/dev/null
cd "$T/det" || exit 1
echo '{ "benchmarks": [ { "name": "b", "command": "cat v.txt", "format": "lines" } ] }' >benchguard.json
echo 'BENCHGUARD ins 1000 instr' >v.txt && git add -A && git commit -qm a
echo 'BENCHGUARD ins 1300 instr' >v.txt && git commit -qam b
"$BG" --db "$T/det.db" compare HEAD~1 HEAD >"$T/out" 2>"$T/err"
rc=$?
check "compare of an exact count +30%: exit $rc, found in pairs against its noise floor, no \"p -\"" bash -c "
	[ $rc = 1 ] && grep -qE '^regression +b:ins .*found: \+30\.0% in [0-9]+ pairs \(its noise floor\)' '$T/out' &&
	! grep -q '(p -)' '$T/out'"

# A series the candidate adds has no pair: decided as no baseline at the
# first look, not measured on to the cap with the others long decided.
printf 'BENCHGUARD ins 1300 instr\nBENCHGUARD new 5 instr\n' >v.txt && git commit -qam c
"$BG" --db "$T/add.db" --json compare HEAD~1 HEAD --max-runs 64 >"$T/add.json" 2>"$T/err"
check "compare of a commit that adds a series: exit $?, one look, no baseline for the new one" python3 -c "
import json; d = json.load(open('$T/add.json'))
rows = {r['series']: r for r in d['results']}
assert rows['b:new']['verdict'] == 'no-baseline', rows['b:new']
assert rows['b:ins']['verdict'] == 'unchanged', rows['b:ins']
assert d['confirmation']['pairs'] <= 8, d['confirmation']
# samples: the candidate's, one a run, in the pairs judged (it read 0)
assert rows['b:ins']['samples'] == rows['b:ins']['current_runs'] == d['confirmation']['pairs'], rows['b:ins']
assert rows['b:new']['samples'] == 0, rows['b:new']"

# Three runs in all (--min-runs 2: two baseline runs, one candidate) leave
# the effect size one degree of freedom, where Hedges' correction is 0: it
# read g 0.00 and vetoed a tenfold slowdown ("unchanged +895%, p 0.0003").
# With no estimate, the p-value and min_change decide.
new_repo "$T/three" >/dev/null
cd "$T/three" || exit 1
echo '{ "benchmarks": [ { "name": "x", "command": "cat v.txt", "format": "lines" } ],
  "baseline": { "window": 2, "min_runs": 2 } }' >benchguard.json
for v in 100 101; do
	echo "BENCHGUARD t $v ms" >v.txt && git add -A && git commit -qm "v$v" &&
		"$BG" --db "$T/three.db" run -q >/dev/null
done
echo "BENCHGUARD t 1000 ms" >v.txt && git commit -qam v1000
GITHUB_ACTIONS=true "$BG" --db "$T/three.db" -q ci --confirm 0 >"$T/ci.out" 2>"$T/err"
rc=$?
check "ci --confirm 0 on it: exit $rc, the annotation says there is no effect size, no nan" bash -c "
	[ $rc = 1 ] && grep -q '^::error title=benchguard%3A performance regression::x:t got 895.0%25 worse .*(p=0.00031 adjusted, no effect size from 3 runs, 2 baseline runs)' '$T/ci.out' &&
	! grep -qi nan '$T/ci.out'"
"$BG" --db "$T/three.db" check >"$T/out" 2>"$T/err"
rc=$?
"$BG" --db "$T/three.db" check --json >"$T/three.json" 2>"$T/err"
check "2 baseline runs, 1 candidate, tenfold: regression, exit $rc, g shown as -" bash -c "
	[ $rc = 1 ] && grep -qE '^regression +x:t .*\+895\.02% +0\.0003 +- +2/1' '$T/out'"
check "... its JSON effect size is null, not 0" python3 -c "
import json; r = json.load(open('$T/three.json'))['results'][0]
assert r['verdict'] == 'regression' and r['effect_size'] is None, r"
echo "BENCHGUARD t 100.5 ms" >v.txt && git commit -qam same && "$BG" --db "$T/three.db" run -q >/dev/null
"$BG" --db "$T/three.db" check >"$T/out" 2>"$T/err"
check "... and a candidate between them is unchanged (exit $?)" grep -qE '^unchanged +x:t ' "$T/out"
finish
