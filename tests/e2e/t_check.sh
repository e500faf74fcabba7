# t_check.sh -- the verdict logic end to end on a real git repository, with
# run values chosen exactly (stored with `import --commit`): no history ->
# no-baseline (exit 0); dirty runs and other machines' runs never enter a
# baseline; a feature branch is judged against the merge-base's first-parent
# history of main; an unknown baseline branch is exit 2; the keys of the
# verdict's JSON.
. "$(dirname "$0")/lib.sh"

new_repo "$T/r" >/dev/null
cd "$T/r" || exit 1
cat >benchguard.json <<'J'
{ "baseline": { "branch": "main", "window": 20, "min_runs": 5 },
  "thresholds": { "alpha": 0.01, "fdr": true, "min_change": 0.02, "min_effect": 0.8 },
  "benchmarks": [ { "name": "t", "command": "true" } ] }
J
git add benchguard.json && git commit -qm "suite"
export BENCHGUARD_DB="$T/db"

commit() { echo "$1" >>log.txt && git add log.txt && git commit -qm "$1" && git rev-parse HEAD; }
# store NAME MS... at HEAD (or --commit) on machine m1: one run whose series
# "t:lat" has the given samples (ms)
store() {
	local args=() f="$T/s.txt"
	: >"$f"
	while [ $# -gt 0 ] && [ "${1#--}" != "$1" ]; do args+=("$1" "$2"); shift 2; done
	for v in "$@"; do echo "BENCHGUARD lat $v ms" >>"$f"; done
	"$BG" import "$f" --format lines --name t --machine m1 "${args[@]}" --json |
		python3 -c 'import json,sys; print(json.load(sys.stdin)["run"])'
}
verdict() { # RUN_ID [check flags...] -> prints verdict of t:lat; keeps JSON in $T/v.json
	local id=$1; shift
	"$BG" check --run "$id" --machine m1 --json "$@" >"$T/v.json" 2>"$T/v.err"
	echo $? >"$T/v.rc"
	python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); print(d["results"][0]["verdict"])' "$T/v.json" 2>/dev/null
}
field() { python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); r=d["results"][0]; print(r[sys.argv[2]])' "$T/v.json" "$1"; }
# `check NAME bash -c "..."` runs in a child shell: give it the helpers.
export -f verdict field
export T BG

c0=$(commit first)
id=$(store 1.00 1.01 0.99)
check "no history -> no-baseline" test "$(verdict "$id")" = no-baseline
check "... and exit 0" test "$(cat "$T/v.rc")" = 0
check "... saying how many runs it has and needs" bash -c "[ \"\$(field message)\" = '0 baseline runs, 5 needed' ]"

# Main's history: 8 commits, run means ~1.00 ms with a little spread.
vals=(1.00 1.01 0.99 1.02 0.98 1.00 1.01 0.99)
for i in "${!vals[@]}"; do
	commit "main $i" >/dev/null
	v=${vals[$i]}
	store "$v" "$v" "$v" >/dev/null
done
fork=$(git rev-parse HEAD)

cand=$(commit candidate)
same=$(store 1.00 1.00 1.00)
check "an unchanged candidate -> unchanged, exit 0" bash -c "[ \"\$(verdict $same)\" = unchanged ] && [ \"\$(cat $T/v.rc)\" = 0 ]"
# 9 = the first commit's run + main's 8; the candidate commit's own runs never count.
check "... against 9 baseline runs (its own commit left out)" test "$(field baseline_runs)" = 9
slow=$(store 1.20 1.20 1.20)
check "a 20% slower candidate -> regression, exit 1" bash -c "[ \"\$(verdict $slow)\" = regression ] && [ \"\$(cat $T/v.rc)\" = 1 ]"
check "... its own commit's other run is not in the baseline" test "$(field baseline_runs)" = 9
check "... change is +20%" python3 -c "import json; r=json.load(open('$T/v.json'))['results'][0]; assert abs(r['change'] - 0.2) < 1e-9, r"
check "the verdict's JSON has its keys" python3 - "$T/v.json" <<'P'
import json, sys
d = json.load(open(sys.argv[1]))
assert set(d) >= {"run", "baseline", "results", "summary"}, d.keys()
assert set(d["run"]) >= {"id", "commit", "branch", "machine"} and len(d["run"]["commit"]) == 40
assert d["baseline"]["branch"] == "main" and d["baseline"]["window"] == 20
r = d["results"][0]
keys = {"series", "benchmark", "metric", "unit", "direction", "verdict", "baseline_mean",
        "current_mean", "change", "p_value", "p_adjusted", "effect_size", "mde",
        "baseline_runs", "current_runs", "samples"}
assert keys <= set(r), keys - set(r)
assert r["series"] == "t:lat" and r["unit"] == "s" and r["direction"] == "lower"
assert r["current_runs"] == 1 and r["samples"] == 3
assert set(d["summary"]) == {"regression", "improvement", "unchanged", "no-baseline", "skipped", "failed"}
assert d["summary"]["regression"] == 1
P
fast=$(store 0.80 0.80 0.80)
check "a 20% faster candidate -> improvement, exit 0" bash -c "[ \"\$(verdict $fast)\" = improvement ] && [ \"\$(cat $T/v.rc)\" = 0 ]"
check "--min-change 0.5 keeps 20% below the bar -> unchanged" test "$(verdict "$slow" --min-change 0.5)" = unchanged
check "--min-runs 10 with 9 runs -> no-baseline" test "$(verdict "$slow" --min-runs 10)" = no-baseline
check "--window 3 uses the last 3 runs" bash -c "[ \"\$(verdict $slow --window 3 --min-runs 3)\" = regression ] && [ \"\$(field baseline_runs)\" = 3 ]"

# A dirty run with a wild value, and another machine's runs: neither may count.
commit "before dirty" >/dev/null
echo scratch >>README.md
store 9.00 9.00 9.00 >/dev/null
git checkout -q README.md
for i in 1 2 3; do
	"$BG" import /dev/stdin --format lines --name t --machine m2 <<<"BENCHGUARD lat 7.0 ms" >/dev/null
done
cand2=$(commit "candidate 2")
c2=$(store 1.50 1.50 1.50)
check "the dirty run was stored as dirty" test \
	"$(sqlite3 "$BENCHGUARD_DB" "SELECT count(*) FROM runs WHERE dirty = 1")" = 1
# The first candidate's three runs (1.0, 1.2, 0.8) are on main's history now
# and widen the baseline; a 50% step still stands out, unless the 9 ms or
# 7 ms runs had been let in.
check "with a dirty 9 ms run and another machine's 7 ms runs stored, still a regression" \
	test "$(verdict "$c2")" = regression
check "... the baseline has only the clean runs of this machine (9 + 3 at the first candidate)" \
	test "$(field baseline_runs)" = 12

# A feature branch: main moves on to 2.0 ms after the fork; the branch is
# judged against history up to the merge-base, where runs were ~1.0 ms.
git checkout -q -b feature "$fork"
commit "feature work" >/dev/null
fb=$(store 1.00 1.00 1.00)
git checkout -q main
for v in 2.00 2.02 1.98 2.01 1.99 2.00; do commit "main after fork $v" >/dev/null; store $v $v $v >/dev/null; done
git checkout -q feature
commit "more feature work" >/dev/null
fc=$(store 1.01 1.01 1.01)
check "a feature branch run is judged against the merge-base's history: unchanged" \
	test "$(verdict "$fc")" = unchanged
check "... from the merge-base commit" python3 -c "import json; d=json.load(open('$T/v.json')); assert d['baseline']['from'] == '$fork', d['baseline']"
check "... with main's 9 runs up to the fork, not the feature branch's own run" test "$(field baseline_runs)" = 9
check "... and not main's later 2 ms runs (the mean is ~1 ms)" python3 -c "import json; r=json.load(open('$T/v.json'))['results'][0]; assert abs(r['baseline_mean'] - 0.001) < 0.00002, r"
git checkout -q main
m=$(commit "main again")
mm=$(store 1.00 1.00 1.00)
check "on main, the later 2 ms runs are the baseline: 1 ms is an improvement" test "$(verdict "$mm" --window 6)" = improvement

check "an unknown baseline branch -> exit 2 with a clear message" bash -c "
	\"$BG\" check --run $mm --machine m1 --baseline-branch nope 2>$T/e; [ \$? -eq 2 ] &&
	grep -q 'unknown baseline branch \"nope\"' $T/e"
# Its runs were 1.0, 1.2 and 0.8 ms: together (the full Welch form) unchanged.
check "check --commit judges all of that commit's runs together" bash -c "
	\"$BG\" check --commit $cand --machine m1 --json >$T/c.json; [ \$? -eq 0 ] &&
	python3 -c 'import json; r=json.load(open(\"$T/c.json\"))[\"results\"][0]; assert r[\"current_runs\"] == 3, r'"
check "check --run of an unknown run -> exit 2" expect_rc 2 "$BG" check --run 99999 --machine m1
check "--run and --commit together -> exit 2" expect_rc 2 "$BG" check --run 1 --commit HEAD
check "the table shows verdict, baseline ± CI, current, change" bash -c "
	\"$BG\" check --run $slow --machine m1 >$T/t.txt; [ \$? -eq 1 ] &&
	grep -q '^verdict  *series  *baseline  *current  *change' $T/t.txt &&
	grep -q '^regression  *t:lat  *1.* ms ± .* µs  *1.2 ms  *+20.00%' $T/t.txt"
check "markdown output is a table with the regression in bold" bash -c "
	\"$BG\" check --run $slow --machine m1 --format markdown | grep -q '^| \*\*regression\*\* | \`t:lat\`'"

# The baseline walk stops once no stored commit can lie further back, judged
# by the stored commits' author times.  A history of commits a week apart,
# runs on five old commits (one made much later, with import --commit), runs
# on a pull-request branch newer than all of them, and 40 commits without
# runs in between: the check at main's tip still finds all five.
new_repo "$T/w" >/dev/null
cd "$T/w" || exit 1
echo '{ "benchmarks": [ { "name": "t", "command": "true" } ] }' >benchguard.json
git add benchguard.json && git commit -qm suite
day=86400 t0=$((1600000000))
for i in $(seq 1 60); do
	echo "$i" >n.txt && git add n.txt &&
		GIT_AUTHOR_DATE="$((t0 + i * 7 * day)) +0000" GIT_COMMITTER_DATE="$((t0 + i * 7 * day)) +0000" \
			git commit -qm "week $i"
done
git checkout -q -b pr HEAD~3
for i in 1 2; do echo "pr $i" >p.txt && git add p.txt && git commit -qm "pr $i"; done
git checkout -q main
export BENCHGUARD_DB="$T/w.db"
lat() { printf 'BENCHGUARD lat %s ms\n' "$1" | "$BG" -q import - --format lines --name t --machine m1 --commit "$2" >/dev/null; }
for k in 50 51 52 53; do lat 1.0$k "main~$k"; done
for k in 1 2; do lat 1.1 "pr~$((k - 1))"; done
lat 1.054 main~55 # an old commit measured last
lat 1.01 main
tip=$("$BG" check --commit main --machine m1 --window 20 --min-runs 2 --json)
check "a walk past 40 commits without runs, and beside a branch's newer runs, finds all 5 old runs" \
	/usr/bin/python3 -c "import json, sys; r = json.loads(sys.argv[1])['results'][0]; assert r['baseline_runs'] == 5, r" "$tip"
check "a baseline branch that does not exist: exit 2" \
	expect_rc 2 "$BG" check --commit main --machine m1 --baseline-branch trunk
check "... naming the branches there are and --baseline-branch" \
	grep -q 'unknown baseline branch "trunk".*branches there: main, pr; name one with --baseline-branch' "$T/err"
# The list names origin's branches as git does (origin/main); one who
# copies that is told the name benchguard takes.
git update-ref refs/remotes/origin/main main
check "--baseline-branch origin/main: exit 2" \
	expect_rc 2 "$BG" check --commit main --machine m1 --baseline-branch origin/main
check "... saying to name it main, which reads refs/remotes/origin/main" \
	grep -q 'unknown baseline branch "origin/main": name it "main" (benchguard reads refs/remotes/origin/main when there is no local main)' "$T/err"
git update-ref -d refs/remotes/origin/main

# The baseline's far-out run: five runs on main, one of them 5x the others.
# It is left out of the estimate, and the verdict says so, in its message and
# its JSON, whether what is left is enough (seven runs) or not (five).
new_repo "$T/o" >/dev/null
cd "$T/o" || exit 1
echo '{ "baseline": { "branch": "main", "window": 20, "min_runs": 5 }, "benchmarks": [ { "name": "t", "command": "true" } ] }' >benchguard.json
git add benchguard.json && git commit -qm suite
export BENCHGUARD_DB="$T/o.db"
for v in 1.00 1.01 0.99 5.00 1.00; do
	commit "main $v" >/dev/null
	store "$v" "$v" "$v" >/dev/null
done
commit candidate >/dev/null
cur=$(store 1.00 1.00 1.00)
check "5 runs, one far out: no-baseline, 4 runs used" \
	bash -c "[ \"\$(verdict $cur)\" = no-baseline ] && [ \"\$(field baseline_runs)\" = 4 ] && [ \"\$(field baseline_outliers)\" = 1 ]"
check "... saying the run it left out" \
	bash -c "[ \"\$(field message)\" = '4 baseline runs (and 1 far-out run left out), 5 needed' ]"
git checkout -q HEAD~1
for v in 1.02 0.98; do
	commit "main $v" >/dev/null
	store "$v" "$v" "$v" >/dev/null
done
git branch -qf main HEAD && git checkout -q main
commit candidate >/dev/null
cur=$(store 1.00 1.00 1.00)
check "7 runs, one far out: judged on 6" \
	bash -c "[ \"\$(verdict $cur)\" = unchanged ] && [ \"\$(field baseline_runs)\" = 6 ] && [ \"\$(field baseline_outliers)\" = 1 ]"
check "... saying it left one out" \
	bash -c "[ \"\$(field message)\" = '1 outlier run left out of the baseline' ]"

# Only the window is screened; the spare runs behind it (check reads
# window + window/4 + 1 = 7 for a window of 5) only refill it after a
# removal.  The report replays the same baseline for a commit ci did not
# judge: same runs, same mean, same verdict.
new_repo "$T/sp" >/dev/null
cd "$T/sp" || exit 1
echo '{ "baseline": { "branch": "main", "window": 5, "min_runs": 4 }, "benchmarks": [ { "name": "t", "command": "true" } ] }' >benchguard.json
git add benchguard.json && git commit -qm suite
export BENCHGUARD_DB="$T/sp.db"
# main's runs, oldest first (report's points 0-6); the candidate is point 7.
for v in 1.60 1.01 0.99 1.005 0.995 1.50 1.002; do
	commit "main $v" >/dev/null
	store "$v" "$v" "$v" >/dev/null
done
commit candidate >/dev/null
cur=$(store 1.00 1.00 1.00)
# same RUN: report's replayed verdict of the newest commit is check's.
same() {
	"$BG" report --machine m1 --since all --format json -o "$T/sp.json" 2>/dev/null &&
		python3 - "$T/v.json" "$T/sp.json" "$@" <<'P'
import json, sys
c = json.load(open(sys.argv[1]))["results"][0]
s = [x for x in json.load(open(sys.argv[2]))["series"] if x["series"] == "t:lat"][0]
r, first = s["latest"], int(sys.argv[3])
got = (r["verdict"], r["baseline_runs"], r["baseline_first_index"], r["baseline_last_index"])
want = (c["verdict"], c["baseline_runs"], first, 6)
close = all(abs(r[k] - c[k]) <= 1e-12 * abs(c[k]) for k in ("baseline_mean", "change"))
if got != want or not close:
    sys.exit("# report %s %s, check %s %s" % (got, [r[k] for k in ("baseline_mean", "change")],
                                              want, [c[k] for k in ("baseline_mean", "change")]))
P
}
export -f same
check "a far run in the window, another among the spares: the first left out, the window refilled" \
	bash -c "[ \"\$(verdict $cur)\" = unchanged ] && [ \"\$(field baseline_runs)\" = 5 ] && [ \"\$(field baseline_outliers)\" = 1 ]"
check "... and report replays that baseline: the runs of points 1-6, one left out" same 1
git checkout -q main~3
for v in 1.00 1.002; do
	commit "main $v" >/dev/null
	store "$v" "$v" "$v" >/dev/null
done
git branch -qf main HEAD && git checkout -q main
commit candidate >/dev/null
cur=$(store 1.00 1.00 1.00)
check "a far run among the spares only: the window as it is, nothing left out" \
	bash -c "[ \"\$(verdict $cur)\" = unchanged ] && [ \"\$(field baseline_runs)\" = 5 ] && [ \"\$(field baseline_outliers)\" = 0 ]"
check "... and says nothing of one" \
	python3 -c 'import json, sys; sys.exit("message" in json.load(open(sys.argv[1]))["results"][0])' "$T/v.json"
check "... and report replays that baseline: the runs of points 2-6" same 2
# Run ids are int64: a database past a million runs is judged like any other.
sqlite3 "$BENCHGUARD_DB" "INSERT INTO runs (id, commit_id, machine_id, dirty, status, source, started_at)
	SELECT 5000000000, commit_id, machine_id, 0, 'incomplete', source, started_at FROM runs ORDER BY id DESC LIMIT 1"
commit candidate >/dev/null
cur=$(store 1.00 1.00 1.00)
check "a run id past 2^32 is stored" test "$cur" = 5000000001
check "check --run 5000000001 judges it" bash -c "[ \"\$(verdict $cur)\" = unchanged ] && [ \$(cat $T/v.rc) = 0 ]"
check "check --run of an id not stored: exit 2, no run in the database" bash -c "
	\"$BG\" check --run 1000001 --machine m1 2>$T/e; [ \$? = 2 ] && grep -q 'no run 1000001' $T/e"
check "a count over its cap names the cap" bash -c "
	\"$BG\" run --samples 1000001 2>$T/e; [ \$? = 2 ] &&
	[ \"\$(cat $T/e)\" = 'benchguard: --samples needs a whole number from 1 to 1000000 (got \"1000001\")' ]"

# Git's dates out of order.  The walk along main stops where no stored
# commit can lie further back, judged by dates; it stopped too early when
# the commits with runs had author dates 2 days ahead of their commit
# dates (a fast clock, then a rebase), or when one commit between them
# was dated years back (a clock reset): the 5 runs at 10 ms left the
# baseline, and a 50% slower tip passed (exit 0).
dated() { # DIR SKEW OLD: 7 commits an hour apart, author dates SKEW s ahead;
	# the 4th committed in 2001 if OLD; runs at 10 ms on all but it and the
	# tip, 15 ms on the tip
	local t=1700000000 i ct
	export BENCHGUARD_DB="$1.db"
	rm -rf "$1" "$1.db" && new_repo "$1" >/dev/null && cd "$1" || return 1
	echo '{ "benchmarks": [ { "name": "b", "command": "true" } ], "baseline": { "min_runs": 2 } }' >benchguard.json
	echo .benchguard/ >.gitignore
	git add -A && git commit -qm suite
	for i in 1 2 3 4 5 6 7; do
		ct=$((t + i * 3600))
		[ "$3" = old ] && [ "$i" = 4 ] && ct=1000000000
		GIT_AUTHOR_DATE="@$((t + i * 3600 + $2)) +0000" GIT_COMMITTER_DATE="@$ct +0000" \
			git commit -q --allow-empty -m "c$i"
	done
	for i in 6 5 4 2 1; do
		printf 'BENCHGUARD t %s ms\n' 10 10.1 9.9 10.2 9.8 |
			"$BG" -q import - --format lines --name b --commit "HEAD~$i" >/dev/null || return 1
	done
	printf 'BENCHGUARD t %s ms\n' 15 15.1 14.9 15.2 14.8 | "$BG" -q import - --format lines --name b >/dev/null
}
# A bare check judges the newest run's commit, newest by when it started
# (as history orders runs): after `db copy` or `baseline import` brought in
# an older run, it judged that one, the run with the highest id.
export BENCHGUARD_DB="$T/latest.db"
rm -rf "$T/latest" && new_repo "$T/latest" >/dev/null && cd "$T/latest" || exit 1
echo '{ "benchmarks": [ { "name": "b", "command": "true" } ] }' >benchguard.json
git add -A && git commit -qm suite && git commit -q --allow-empty -m two
printf 'BENCHGUARD t 10 ms\n' | "$BG" -q import - --format lines --name b >/dev/null
printf 'BENCHGUARD t 10 ms\n' | "$BG" -q import - --format lines --name b --commit HEAD~1 >/dev/null
sqlite3 "$BENCHGUARD_DB" "UPDATE runs SET started_at = started_at - 864000 WHERE id = (SELECT max(id) FROM runs)"
check "a bare check judges the run that started last, not the one stored last" bash -c "
	\"$BG\" check --json 2>/dev/null | python3 -c 'import json, sys; sys.exit(json.load(sys.stdin)[\"run\"][\"commit\"] != sys.argv[1])' $(git rev-parse HEAD)"
cd "$T" || exit 1

for how in "172800 new" "0 old"; do
	set -- $how
	what="author dates 2 days ahead of commit dates"
	[ "$2" = old ] && what="one commit dated 2001 among them"
	dated "$T/dated-$1" "$1" "$2"
	check "$what: check finds the 5 runs along main, regression (exit 1)" bash -c "
		\"$BG\" check >$T/out 2>$T/err; [ \$? = 1 ] && grep -qE '^regression +b:t .* 5/1\$' $T/out"
	check "... the report has all 6 runs, none off the branch" bash -c "
		\"$BG\" report --since all --format json 2>/dev/null |
			python3 -c 'import json, sys; s = json.load(sys.stdin)[\"summary\"]; sys.exit(not (s[\"runs\"] == 6 and s[\"runs_off_branch\"] == 0))'"
	check "... baseline export writes the 6" bash -c "
		\"$BG\" baseline export -o $T/dated.json >/dev/null 2>&1 &&
		python3 -c 'import json, sys; sys.exit(len(json.load(open(\"$T/dated.json\"))[\"runs\"]) != 6)'"
	check "... and each run is labelled with the branch" bash -c "
		[ \"\$(\"$BG\" history b:t | awk 'NR > 1 { print \$4 }' | sort -u)\" = main ]"
	cd "$T" || exit 1
done
# A series few stored runs measured (a benchmark added late, then dropped,
# then added again): its baseline has every run there is, however far back
# the walk has to go for them, while the series every run measured fills
# its window.  Runs of other machines, dirty runs and the candidate's own
# commit's runs measured it too; none may count, on either backend.
export BENCHGUARD_DB="$T/rare.db"
rm -rf "$T/rare" && new_repo "$T/rare" >/dev/null && cd "$T/rare" || exit 1
echo '{ "benchmarks": [ { "name": "b", "command": "true" } ] }' >benchguard.json
git add -A && git commit -qm suite
# rare_run [import flags...] < lines
rare_run() { "$BG" -q import - --format lines --name b --machine m1 "$@" >/dev/null; }
for i in $(seq 1 14); do
	git commit -q --allow-empty -m "c$i"
	{
		printf 'BENCHGUARD common %s ms\n' 10 10.1 9.9
		[ "$i" -gt 3 ] || printf 'BENCHGUARD rare %s ms\n' 20 20.2 19.8
	} | rare_run
	[ "$i" -lt 12 ] || printf 'BENCHGUARD rare %s ms\n' 90 90 90 | "$BG" -q import - --format lines --name b --machine m2 >/dev/null
done
printf 'BENCHGUARD rare %s ms\n' 80 80 80 | rare_run
sqlite3 "$BENCHGUARD_DB" "UPDATE runs SET dirty = 1 WHERE id = (SELECT max(id) FROM runs)"
printf 'BENCHGUARD rare %s ms\n' 70 70 70 | rare_run
cand=$(printf 'BENCHGUARD %s ms\n' 'common 10' 'common 10.1' 'rare 20.1' 'rare 20' |
	"$BG" import - --format lines --name b --machine m1 --json | python3 -c 'import json,sys; print(json.load(sys.stdin)["run"])')
# rare_check DB: prints "SERIES BASELINE_RUNS VERDICT" a line
rare_check() {
	"$BG" --db "$1" check --run "$cand" --machine m1 --window 5 --min-runs 2 --json 2>"$T/rare.err" |
		python3 -c 'import json,sys; [print(r["series"], r["baseline_runs"], r["verdict"]) for r in sorted(json.load(sys.stdin)["results"], key=lambda r: r["series"])]'
}
rare_want=$'b:common 5 unchanged\nb:rare 3 unchanged'
check "a series only the 3 oldest of 14 runs measured: all 3 in its baseline, the other 5" \
	test "$(rare_check "$BENCHGUARD_DB")" = "$rare_want"
pg_start
case $? in
0)
	rare_pg=$(pg_db bgrare)
	"$BG" -q db copy "$BENCHGUARD_DB" "$rare_pg" >/dev/null
	check "... the same on PostgreSQL" test "$(rare_check "$rare_pg")" = "$rare_want"
	pg_stop
	;;
1) skip "... the same on PostgreSQL" "skipped: $PG_SKIP_REASON" ;;
*) not_ok "the PostgreSQL server starts" ;;
esac
cd "$T" || exit 1
# A machine with no stored run judges nothing, and a regression passes
# (exit 0).  When the database holds another machine's runs (a fingerprint
# that changed under the same runner class: memory rounded the other way
# after a kernel update), check says so on stderr, in its Markdown and its
# JSON, with the facts that differ and the --machine that judges against
# them; with that --machine the regression is caught.
# six_runs NAME [import flags...]: repository $T/NAME, database $T/NAME.db
# (exported), 6 commits with a run each of b:t at ~10 ms; cd there.
six_runs() {
	local name=$1 i
	shift
	export BENCHGUARD_DB="$T/$name.db"
	rm -rf "${T:?}/$name" && new_repo "$T/$name" >/dev/null && cd "$T/$name" || exit 1
	echo '{ "benchmarks": [ { "name": "b", "command": "true" } ] }' >benchguard.json
	git add -A && git commit -qm suite
	for i in 1 2 3 4 5 6; do
		git commit -q --allow-empty -m "c$i"
		printf 'BENCHGUARD t %s ms\n' 10 10.1 9.9 | "$BG" -q import - --format lines --name b "$@" >/dev/null
	done
}
six_runs moved --machine m-old
sqlite3 "$BENCHGUARD_DB" "UPDATE machine_facts SET value = '512 GiB' WHERE key = 'mem_total'
	AND machine_id = (SELECT id FROM machines WHERE fingerprint = 'm-old')"
git commit -q --allow-empty -m slower
printf 'BENCHGUARD t %s ms\n' 15 15.1 14.9 | "$BG" -q import - --format lines --name b --machine m-new >/dev/null
check "a new machine beside 6 runs of another: exit 0 (nothing to judge against)" \
	expect_rc 0 "$BG" check --machine m-new
check "... stderr names the other machine, its runs, what differs and the --machine to use" \
	grep -q "warning: no run of machine m-new is stored but this commit's, so no series has a baseline and a regression would pass; the database has 6 runs of machine m-old (facts that differ, there -> here: mem_total 512 GiB -> .*). If that is this runner class, judge against it with --machine m-old" "$T/err"
check "... the JSON's baseline.other_machine says the same" bash -c "
	\"$BG\" check --machine m-new --json 2>/dev/null | python3 -c '
import json, sys
o = json.load(sys.stdin)[\"baseline\"][\"other_machine\"]
sys.exit(not (o[\"machine\"] == \"m-old\" and o[\"runs\"] == 6 and o[\"differs\"].startswith(\"mem_total 512 GiB -> \")))'"
check "... and the Markdown summary" bash -c "
	\"$BG\" check --machine m-new --format markdown 2>/dev/null |
		grep -q '^\*\*No run of this machine to judge against.\*\* The database has 6 runs of machine \`m-old\` .*judge against it with \`--machine m-old\`.\$'"
printf 'BENCHGUARD t %s ms\n' 15 15.1 14.9 | "$BG" -q import - --format lines --name b --machine m-old >/dev/null
check "... with --machine m-old the 50% regression is caught (exit 1)" expect_rc 1 "$BG" check --machine m-old
check "... and nothing is said of other machines there" bash -c "! grep -q 'other machine\|no run of machine' '$T/err'"
check "... nor in its JSON" bash -c "
	\"$BG\" check --machine m-old --json 2>/dev/null | python3 -c 'import json, sys; sys.exit(json.load(sys.stdin)[\"baseline\"][\"other_machine\"] is not None)'"
export BENCHGUARD_DB="$T/first.db"
"$BG" -q import - --format lines --name b --machine m-new >/dev/null <<<'BENCHGUARD t 10 ms'
check "the first machine of a database: no-baseline, and no word of other machines" bash -c "
	\"$BG\" check --machine m-new >$T/out 2>$T/err; [ \$? = 0 ] && grep -q no-baseline $T/out && ! grep -q 'no run of machine' $T/err"
cd "$T" || exit 1

# A baseline older than the branch: the database lacks the runs of main's
# newest commits (a CI cache restored from an older job than main's newest,
# such as a pull request's own first push), so a change that landed there
# is judged as the pull request's.  check says how many commits of main
# have no run and which commit the baseline's newest run is of: on stderr,
# in its Markdown and in its JSON (baseline.stale).
six_runs stale --machine m
measured=$(git rev-parse HEAD)
for i in 1 2 3; do git commit -q --allow-empty -m "unmeasured $i"; done
fork=$(git rev-parse HEAD)
git checkout -q -b pr && git commit -q --allow-empty -m "docs only"
printf 'BENCHGUARD t %s ms\n' 10 10.1 9.9 | "$BG" -q import - --format lines --name b --machine m >/dev/null
check "a pull request off 3 commits of main with no run: judged (exit 0)" \
	expect_rc 0 "$BG" check --machine m
check "... stderr says the baseline is 3 commits older than main, and of which commit" \
	grep -q "warning: the baseline is older than main: 3 commits of it, back from ${fork:0:12} where this commit's history meets it, have no run of machine m, and the baseline's newest run is of commit ${measured:0:12}, so a change made in them is judged as this commit's" "$T/err"
check "... its JSON's baseline.stale says the same" bash -c "
	\"$BG\" check --machine m --json 2>/dev/null | python3 -c '
import json, sys
s = json.load(sys.stdin)[\"baseline\"][\"stale\"]
sys.exit(s != {\"commits\": 3, \"reference\": \"$measured\"})'"
check "... and its Markdown" bash -c "
	\"$BG\" check --machine m --format markdown 2>/dev/null |
		grep -q '^\*\*The baseline is older than \`main\`.\*\* 3 commits of it, back from \`${fork:0:12}\` .*newest run is of commit \`${measured:0:12}\`'"
# A commit on main after commits pushed with it (one push of several):
# its own run measures what they did, and the baseline is main's newest.
git checkout -q main && git commit -q --allow-empty -m "the push's tip"
printf 'BENCHGUARD t %s ms\n' 10 10.1 9.9 | "$BG" -q import - --format lines --name b --machine m >/dev/null
check "a commit of main whose parents have no run: no word of an older baseline" bash -c "
	\"$BG\" check --machine m >$T/out 2>$T/err && ! grep -q 'older than' $T/err &&
	\"$BG\" check --machine m --json 2>/dev/null | python3 -c 'import json, sys; sys.exit(json.load(sys.stdin)[\"baseline\"][\"stale\"] is not None)'"
git checkout -q -b pr2 && git commit -q --allow-empty -m "pr2"
printf 'BENCHGUARD t %s ms\n' 10 10.1 9.9 | "$BG" -q import - --format lines --name b --machine m >/dev/null
check "a pull request off a main whose tip has runs: no word of it either" bash -c "
	\"$BG\" check --machine m >$T/out 2>$T/err && ! grep -q 'older than' $T/err"
cd "$T" || exit 1

# main rewritten (a force-push: every stored commit's SHA changes) and
# checked out afresh: this machine's runs are all of commits the clone does
# not have, and a 50% slower pull request passed as no-baseline, with no
# word.  check says so (stderr, Markdown, JSON baseline.missing_commits).
six_runs rewritten --machine m
FILTER_BRANCH_SQUELCH_WARNING=1 git filter-branch -f --msg-filter 'sed s/^c/r/' main >/dev/null 2>&1
cp "$BENCHGUARD_DB" "$T/rewritten-kept.db" # before the clone's runs, of commits only it has
rm -rf "$T/rewritten-clone" && git clone -q "file://$T/rewritten" "$T/rewritten-clone" && cd "$T/rewritten-clone" || exit 1
check "a fresh clone of the rewritten main has none of the stored commits" bash -c "
	! git cat-file -e \$(sqlite3 '$BENCHGUARD_DB' 'SELECT sha FROM commits LIMIT 1')^{commit} 2>/dev/null"
git checkout -q -b pr && git commit -q --allow-empty -m slower
printf 'BENCHGUARD t %s ms\n' 15 15.1 14.9 | "$BG" -q import - --format lines --name b --machine m >/dev/null
check "a 50% slower pull request on a rewritten main: no-baseline, exit 0" \
	expect_rc 0 "$BG" check --machine m
check "... stderr says this machine's 6 runs are of commits the repository does not have" \
	grep -q "warning: no stored run of machine m is on the history of main, so no series has a baseline and a regression would pass; 6 of its 6 stored runs are of commits this repository does not have (a history rewritten by a force-push or rebase?)" "$T/err"
check "... its JSON's baseline.missing_commits says the same" bash -c "
	\"$BG\" check --machine m --json 2>/dev/null | python3 -c '
import json, sys
m = json.load(sys.stdin)[\"baseline\"][\"missing_commits\"]
sys.exit(m != {\"runs\": 6, \"stored_runs\": 6})'"
check "... and its Markdown" bash -c "
	\"$BG\" check --machine m --format markdown 2>/dev/null |
		grep -q '^\*\*No run of this machine on the history of \`main\`.\*\* 6 of its 6 stored runs are of commits this repository does not have'"
cd "$T/rewritten" || exit 1
export BENCHGUARD_DB="$T/rewritten-kept.db"
git checkout -q -b pr && git commit -q --allow-empty -m slower
printf 'BENCHGUARD t %s ms\n' 15 15.1 14.9 | "$BG" -q import - --format lines --name b --machine m >/dev/null
check "the same where the old commits are still there: no word of missing commits" bash -c "
	\"$BG\" check --machine m >$T/out 2>$T/err; [ \$? = 0 ] && ! grep -q 'does not have' $T/err &&
	\"$BG\" check --machine m --json 2>/dev/null | python3 -c 'import json, sys; sys.exit(json.load(sys.stdin)[\"baseline\"][\"missing_commits\"] is not None)'"
cd "$T" || exit 1

# A run measured under other conditions than its baseline (a CPU quota,
# the governor on powersave) is slower with no change to the code: check
# says which of the run's volatile facts differ from its baseline runs'.
six_runs cond
git commit -q --allow-empty -m slower
printf 'BENCHGUARD t %s ms\n' 15 15.1 14.9 | "$BG" -q import - --format lines --name b >/dev/null
cond_facts() { # VALUE_OF_BASELINES VALUE_OF_CANDIDATE: cpus_usable and cpu_governor
	sqlite3 "$BENCHGUARD_DB" "DELETE FROM run_facts WHERE key IN ('cpus_usable', 'cpu_governor');
		INSERT INTO run_facts(run_id, key, value) SELECT id, 'cpus_usable', '$1' FROM runs WHERE id < (SELECT max(id) FROM runs);
		INSERT INTO run_facts(run_id, key, value) SELECT id, 'cpu_governor', 'performance' FROM runs WHERE id < (SELECT max(id) FROM runs);
		INSERT INTO run_facts(run_id, key, value) SELECT max(id), 'cpus_usable', '$2' FROM runs;
		INSERT INTO run_facts(run_id, key, value) SELECT max(id), 'cpu_governor', '$3' FROM runs"
}
cond_facts 2 2 performance
check "a run under the conditions of its baseline: regression, no word of conditions" bash -c "
	\"$BG\" check >$T/out 2>$T/err; [ \$? = 1 ] && ! grep -q 'other conditions' $T/err"
cond_facts 2 0.25 powersave
check "under a 0.25-CPU quota and powersave: stderr says both, against the 6 baseline runs" bash -c "
	\"$BG\" check >$T/out 2>$T/err; [ \$? = 1 ] &&
	grep -q 'warning: run [0-9]* ran under other conditions than its baseline (cpus_usable 0.25 here, 2 in 6 of 6 baseline runs; cpu_governor powersave here, performance in 6 of 6 baseline runs): it may be slower or faster for that alone' $T/err"
sqlite3 "$BENCHGUARD_DB" "UPDATE run_facts SET value = '4' WHERE key = 'cpus_usable' AND run_id = (SELECT min(id) FROM runs)"
check "... baseline runs that differ among themselves too: 'and others'" bash -c "
	\"$BG\" check >$T/out 2>$T/err; [ \$? = 1 ] &&
	grep -q '(cpus_usable 0.25 here, 2 and others in 6 of 6 baseline runs; cpu_governor' $T/err"
check "the CPUs this process may use are a volatile fact (taskset -c 0: 1)" bash -c "
	taskset -c 0 \"$BG\" fingerprint --json | python3 -c '
import json, sys
d = json.load(sys.stdin)
sys.exit(not (d[\"volatile\"][\"cpus_usable\"] == \"1\" and \"cpus_usable\" not in d[\"facts\"]))'"
cd "$T" || exit 1

# Runners pooled under one --machine name: each run keeps its hardware's
# own fingerprint (the volatile fact "hardware"), and a run of other
# hardware than its baseline's is said to be one.
host_fp=$("$BG" fingerprint --json | python3 -c 'import json,sys; print(json.load(sys.stdin)["fingerprint"])')
six_runs pool --machine pool
git commit -q --allow-empty -m slower
printf 'BENCHGUARD t %s ms\n' 15 15.1 14.9 | "$BG" -q import - --format lines --name b --machine pool >/dev/null
check "--machine pool: each run keeps its hardware's fingerprint; the same as the baseline's: no word of it" bash -c "
	[ \"\$(sqlite3 '$BENCHGUARD_DB' \"SELECT DISTINCT value FROM run_facts WHERE key = 'hardware'\")\" = $host_fp ] &&
	\"$BG\" check --machine pool >$T/out 2>$T/err; [ \$? = 1 ] && ! grep -q 'other conditions' $T/err"
sqlite3 "$BENCHGUARD_DB" "UPDATE run_facts SET value = 'feedfacefeedface' WHERE key = 'hardware' AND run_id = (SELECT max(id) FROM runs)"
check "... a run of other hardware under the name: said, with both fingerprints" bash -c "
	\"$BG\" check --machine pool >$T/out 2>$T/err; [ \$? = 1 ] &&
	grep -q 'other conditions than its baseline (hardware feedfacefeedface here, $host_fp in 6 of 6 baseline runs)' $T/err"
# A pool mixes hardware in one baseline: the run of the kind most of its
# baseline is hears nothing; one of the kind fewer than half are, does.
sqlite3 "$BENCHGUARD_DB" "UPDATE run_facts SET value = 'feedfacefeedface' WHERE key = 'hardware'
	AND run_id IN (SELECT id FROM runs ORDER BY id LIMIT 2)"
check "... 2 of the 6 baseline runs on its hardware: still said (4 of 6 differ)" bash -c "
	\"$BG\" check --machine pool >$T/out 2>$T/err; [ \$? = 1 ] &&
	grep -q 'hardware feedfacefeedface here, $host_fp in 4 of 6 baseline runs' $T/err"
sqlite3 "$BENCHGUARD_DB" "UPDATE run_facts SET value = 'feedfacefeedface' WHERE key = 'hardware'
	AND run_id IN (SELECT id FROM runs ORDER BY id LIMIT 4)"
check "... 4 of the 6 on its hardware: nothing said" bash -c "
	\"$BG\" check --machine pool >$T/out 2>$T/err; [ \$? = 1 ] && ! grep -q 'other conditions' $T/err"
cd "$T" || exit 1

# A local main that origin's has moved past is stale (a runner that keeps
# its workspace between jobs): the baseline is origin's.  Six runs at 10 ms,
# then a slowdown landed on origin's main (three runs at 15 ms) while the
# local main stayed before it; a pull request on top of origin's is as slow
# as origin's main, so unchanged.  A local main ahead of origin's stays the
# tip: it is someone's own work.
six_runs stale --machine st
for i in 1 2 3; do
	git commit -q --allow-empty -m "slow $i"
	printf 'BENCHGUARD t %s ms\n' 15 15.1 14.9 | "$BG" -q import - --format lines --name b --machine st >/dev/null
done
git update-ref refs/remotes/origin/main HEAD && git checkout -q -b pr && git branch -q -f main HEAD~3
git commit -q --allow-empty -m "docs only"
printf 'BENCHGUARD t %s ms\n' 15 15.1 14.9 | "$BG" -q import - --format lines --name b --machine st >/dev/null
check "local main behind origin/main (a kept workspace): judged against origin's, unchanged, exit 0" bash -c "
	\"$BG\" check --machine st --json >$T/out 2>$T/err; rc=\$?
	[ \$rc = 0 ] && python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); r=d[\"results\"][0]
assert r[\"verdict\"] == \"unchanged\" and r[\"baseline_runs\"] == 9, r' $T/out"
check "... -v says so, once" bash -c "
	\"$BG\" -v check --machine st >$T/out 2>$T/err
	[ \$(grep -c 'baseline branch main: origin/main ([0-9a-f]*), which the local main ([0-9a-f]*) is 3 commits behind' $T/err) = 1 ]"
# pr~1 is the slowdown's last commit, pr~4 the last one before it (c6),
# pr~7 three commits earlier (c3).
git update-ref refs/remotes/origin/main pr~4
git branch -q -f main pr~1
check "local main ahead of origin/main: the local one, unchanged, exit 0" bash -c "
	\"$BG\" check --machine st --json >$T/out 2>$T/err; [ \$? = 0 ] &&
	grep -q '\"verdict\": \"unchanged\"' $T/out"
git branch -q -f main pr~7
check "... and behind origin's again, now before the slowdown: origin's 10 ms runs, regression, exit 1" bash -c "
	\"$BG\" check --machine st --json >$T/out 2>$T/err; [ \$? = 1 ] &&
	grep -q '\"verdict\": \"regression\"' $T/out"
# A force-push over origin's main leaves a kept workspace's main off it,
# not behind: the local one is followed, with a warning that says how to
# update it.
git branch -q -f main "$(git commit-tree -p pr~7 -m "pushed over" "pr~7^{tree}")"
check "local main diverged from origin/main: the local one, with a warning naming both" bash -c "
	\"$BG\" check --machine st >$T/out 2>$T/err
	grep -q \"warning: the local main ([0-9a-f]*) and origin/main ([0-9a-f]*) have diverged (1 and 3 commits of their own): the baseline follows the local one; if origin's was pushed over it, update it (git branch -f main origin/main)\" $T/err"
cd "$T" || exit 1

# A shared database's newest run is often of a commit made elsewhere (a
# pull request's merge commit), which no fetch brings: check in a full
# clone without it says to fetch it or to judge another run.
git clone -q "$T/stale" "$T/elsewhere" && cd "$T/elsewhere" || exit 1
git commit -q --allow-empty -m "a pull request's merge"
printf 'BENCHGUARD t %s ms\n' 15 15.1 14.9 | "$BG" -q import - --format lines --name b --machine st >/dev/null
cd "$T/stale" || exit 1
check "check of a run of a commit this clone lacks: exit 2" expect_rc 2 "$BG" check --machine st
check "... saying to fetch it, or, made elsewhere, how to judge another" grep -q "which is not in this repository (fetch it (git fetch); if it was made elsewhere, such as a pull request's merge commit or one a force-push removed, judge another run with --commit or --run)" "$T/err"
# A linked worktree of a shallow clone is shallow too (git keeps the list
# in the common folder, where libgit2 does not look): fetch its history.
git clone -q --depth 1 --no-single-branch "file://$T/stale" "$T/shallow" && git -C "$T/shallow" worktree add -q "$T/shallow-wt" 2>/dev/null
cd "$T/shallow-wt" || exit 1
check "check in a linked worktree of a shallow clone: exit 2" expect_rc 2 "$BG" check --machine st
check "... saying to fetch its history" grep -q "which is not in this repository (fetch its history, e.g. fetch-depth: 0)" "$T/err"
cd "$T/stale" || exit 1
cd "$T" || exit 1

finish
