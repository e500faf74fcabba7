# t_ci.sh -- `benchguard ci` as a CI step on real runs: a real regression
# exits 1, appends the Markdown verdict table to $GITHUB_STEP_SUMMARY and
# prints a GitHub ::error annotation; no regression exits 0; a failed
# benchmark or build exits 3, even beside a regression.
. "$(dirname "$0")/lib.sh"

cc -O2 -o "$T/spin" "$FIX/bench/spin.c" || { not_ok "building spin"; finish; exit 1; }
new_repo "$T/r" >/dev/null
cd "$T/r" || exit 1
suite() { # ROUNDS [extra benchmark JSON]
	cat >benchguard.json <<J
{ "baseline": { "branch": "main", "window": 20, "min_runs": 5 },
  "defaults": { "warmup": 1, "samples": 5 },
  "benchmarks": [ { "name": "spin", "command": "$T/spin $1" } ${2:+, $2} ] }
J
}
suite 3000000
git add benchguard.json && git commit -qm suite
export BENCHGUARD_DB="$T/ci.db" GITHUB_STEP_SUMMARY="$T/summary.md"
for i in 1 2 3 4 5 6; do
	echo "$i" >notes.txt && git add notes.txt && git commit -qm "commit $i"
	"$BG" -q ci >/dev/null 2>&1
done
# (A noise-level flag would add confirmation runs, tagged, beside them.)
check "six commits of history stored" test "$(sqlite3 "$BENCHGUARD_DB" \
	"SELECT count(*) FROM runs WHERE id NOT IN (SELECT run_id FROM run_tags WHERE key IN ('confirm', 'confirm-reference'))")" = 6

# Three times the work on a branch: a real regression.
git checkout -q -b slow
suite 9000000
git commit -qam "spin three times as long"
# An earlier step's text whose last line has no newline: the heading still
# starts a line of its own (it was glued to that line, shown as text).
printf 'an earlier step' >"$GITHUB_STEP_SUMMARY"
GITHUB_ACTIONS=true "$BG" -q ci >"$T/out" 2>"$T/err"
rc=$?
check "a real regression: ci exits 1 (got $rc)" test "$rc" = 1
check "... the step summary holds the Markdown verdict table" bash -c "
	[ \"\$(head -n 1 $T/summary.md)\" = 'an earlier step' ] &&
	grep -q '^### benchguard: performance regression' $T/summary.md &&
	grep -q '^| verdict  *| series  *|  *baseline' $T/summary.md &&
	grep -q '^| \*\*regression\*\* | \`spin:wall_time\`' $T/summary.md"
# Workflow commands escape '%' as %25 and ':' in properties as %3A.
check "... and a GitHub ::error annotation names the series" \
	grep -q '^::error title=benchguard%3A performance regression::spin:wall_time got [0-9.]*%25 worse' "$T/out"
check "... the verdict table is on stdout too" grep -q '^regression  *spin:wall_time' "$T/out"
check "... confirmed by pairs beside the baseline commit, said in the summary" bash -c "
	grep -q '^| \*\*regression\*\* | \`spin:wall_time\`.*| confirmed: +[0-9.]*% in [0-9]* pairs' $T/summary.md &&
	grep -q '^Measured again: [0-9]* interleaved pairs (at most 32) in [0-9.]* s\.' $T/summary.md"
check "... and recorded in the database" test "$(sqlite3 "$BENCHGUARD_DB" \
	"SELECT v.verdict || '/' || v.first || '/' || v.confirmation FROM verdicts v JOIN checks k ON k.id = v.check_id
	 WHERE v.series = 'spin:wall_time' ORDER BY k.id DESC LIMIT 1")" = regression/regression/confirmed
for bad in "--confirm 1" "--max-pairs 1" "--confirm 8 --max-pairs 4"; do
	# shellcheck disable=SC2086
	check "ci $bad is refused with exit 2 and a sentence" bash -c "
		\"$BG\" ci $bad >/dev/null 2>$T/e; [ \$? = 2 ] && grep -q '^benchguard: .*pairs' $T/e"
done
# The range a refusal names is the range taken (it said "from 0 to
# 1000000", then "at most 1000 pairs").
for bad in "--confirm -1" "--confirm 2000" "--max-pairs 1001"; do
	# shellcheck disable=SC2086
	check "ci $bad is refused with exit 2, naming the range it takes" bash -c "
		\"$BG\" ci $bad >/dev/null 2>$T/e; [ \$? = 2 ] && grep -q '^benchguard: --[a-z-]* needs a whole number from [02] to 1000 (got ' $T/e"
done

# A crashing benchmark beside the regression: failure outranks it.
suite 9000000 '{ "name": "crash", "command": "kill -SEGV $$" }'
git commit -qam "add a crashing benchmark"
: >"$GITHUB_STEP_SUMMARY"
GITHUB_ACTIONS=true "$BG" -q ci >"$T/out" 2>"$T/err"
rc=$?
check "a failed benchmark beside a regression: exit 3 (got $rc)" test "$rc" = 3
check "... reported as failed in the summary and an annotation" bash -c "
	grep -q '^| failed  *| \`crash\`' $T/summary.md && grep -q '^::error title=benchguard%3A benchmark failed::crash did not run' $T/out"

# Back on main: the same work as the history, no regression.
git checkout -q main
echo 7 >notes.txt && git add notes.txt && git commit -qm "commit 7"
: >"$GITHUB_STEP_SUMMARY"
# A 50% bar: unchanged work never gets near it, however noisy the machine.
"$BG" -q ci --min-change 0.5 >"$T/out" 2>"$T/err"
rc=$?
check "no regression: ci exits 0 (got $rc)" test "$rc" = 0
check "... and the summary says so" grep -q '^### benchguard: no regression' "$GITHUB_STEP_SUMMARY"
check "without GITHUB_ACTIONS no annotations are printed" bash -c "! grep -q '^::' $T/out"

suite 3000000
sed -i 's/"baseline"/"build": "echo cc: error: oops >\&2; exit 1", "baseline"/' benchguard.json
git commit -qam "broken build"
# After an earlier step's text without its newline, as the verdict is.
printf 'an earlier step' >"$GITHUB_STEP_SUMMARY"
"$BG" -q ci >"$T/out" 2>"$T/err"
rc=$?
check "a failing build: ci exits 3 (got $rc)" test "$rc" = 3
check "... and the summary says the build failed, on a line of its own" bash -c "
	[ \"\$(head -n 1 $T/summary.md)\" = 'an earlier step' ] &&
	grep -q '^### benchguard: build failed' '$GITHUB_STEP_SUMMARY'"
# A summary at GitHub's 1 MiB already: more would make GitHub drop it whole.
head -c 1048570 /dev/zero | tr '\0' x >"$T/big.md" && echo >>"$T/big.md"
GITHUB_STEP_SUMMARY="$T/big.md" "$BG" -q ci >"$T/out" 2>"$T/err"
rc=$?
check "... a summary already full: exit 3 (got $rc), the failure not added, a warning" bash -c "
	[ \$(wc -c <'$T/big.md') = 1048571 ] &&
	grep -q '^benchguard: warning: the step summary $T/big.md is full (GitHub takes 1 MiB): the failure is not added to it' '$T/err'"
check "an unwritable step summary is a warning, not a failure" bash -c "
	git checkout -q HEAD~1 -- benchguard.json && GITHUB_STEP_SUMMARY=/nonexistent/dir/s.md \"$BG\" -q ci --min-change 0.5 >/dev/null 2>$T/e; rc=\$?; git checkout -q HEAD -- benchguard.json; [ \$rc -le 1 ] && grep -q 'cannot write the step summary' $T/e"
# The baseline's newest commit dropped a benchmark that older commits and
# the candidate run: it cannot be measured beside that commit, so its pairs
# have nothing to pair; ci keeps the first look's verdict and says why,
# rather than failing.
new_repo "$T/r2" >/dev/null
cd "$T/r2" || exit 1
cat >bench.sh <<'S'
awk -v l="$(cat "$1")" 'BEGIN { printf "BENCHGUARD v %.6f ms\n", l }'
S
suite2() { # BENCHMARKS...
	local b first=1
	printf '{ "baseline": { "window": 5, "min_runs": 3 }, "defaults": { "warmup": 0, "samples": 1 },\n  "benchmarks": [' >benchguard.json
	for b in "$@"; do
		[ $first = 1 ] || printf ', ' >>benchguard.json
		printf '{ "name": "%s", "format": "lines", "command": "sh bench.sh %s" }' "$b" "$b" >>benchguard.json
		first=0
	done
	printf '] }\n' >>benchguard.json
}
printf '.benchguard/\n' >.gitignore
echo 10 >keep && echo 20 >gone
suite2 keep gone
git add -A && git commit -qm "two benchmarks"
export BENCHGUARD_DB="$T/ci2.db"
for i in 1 2 3 4; do echo "$i" >notes.txt; git add -A; git commit -qm "history $i"; "$BG" -q ci >/dev/null 2>&1; done
suite2 keep
git commit -qam "drop gone"
"$BG" -q ci >/dev/null 2>&1
suite2 keep gone
echo 30 >gone
git commit -qam "gone is back, 50% slower"
"$BG" -q ci --json >"$T/out" 2>"$T/err"
rc=$?
check "a benchmark the baseline commit's suite lacks: ci still judges (exit $rc)" test "$rc" = 1
check "... keeps the first look's verdict and says it could not pair it" /usr/bin/python3 -c "
import json
r = {x['series']: x for x in json.load(open('$T/out'))['results']}['gone:v']
assert r['verdict'] == 'regression' and 'confirmation' not in r, r
assert 'not measured again beside' in r['message'], r['message']"

# From zero: a benchmark that did not allocate and now does (0 -> 2
# allocs/op, as go test -benchmem prints it) has no relative change, and
# is a regression for that, not "unchanged"; a higher-is-better count from
# 0 an improvement.
new_repo "$T/zero" >/dev/null && cd "$T/zero" || exit 1
cat >benchguard.json <<'J'
{ "baseline": { "branch": "main", "window": 10, "min_runs": 5 },
  "benchmarks": [ { "name": "g", "command": "cat cur.txt", "format": "lines" } ] }
J
echo '.benchguard/' >.gitignore
export BENCHGUARD_DB="$T/zero.db"
for i in 1 2 3 4 5 6; do
	printf 'BENCHGUARD allocs 0 allocs/op\nBENCHGUARD done 0 items/s\nBENCHGUARD t 1.0%d ms\n' "$i" >cur.txt
	git add -A && git commit -qm "history $i" && "$BG" -q ci >/dev/null 2>&1
done
printf 'BENCHGUARD allocs 2 allocs/op\nBENCHGUARD done 5 items/s\nBENCHGUARD t 1.03 ms\n' >cur.txt
git commit -qam "allocates now"
GITHUB_ACTIONS=true "$BG" ci >"$T/out" 2>"$T/err"
rc=$?
check "0 -> 2 allocs/op: ci exits 1 (got $rc)" test "$rc" = 1
check "... the table says regression, from 0" grep -qE '^regression +g:allocs .* from 0 ' "$T/out"
check "... a higher-is-better count from 0 is an improvement" grep -qE '^improvement +g:done .* from 0 ' "$T/out"
# Confirmed in pairs, judged as two samples (a ratio needs values above 0).
check "... the annotation says so, confirmed in pairs, with no nan" bash -c "grep -q '^::error title=benchguard%3A performance regression::g:allocs got worse from 0 when measured again; confirmed: from 0 against [0-9a-f]* in [0-9]* interleaved pairs' '$T/out' && ! grep -qi 'nan' '$T/out'"
# The p each surface shows is the verdict's own side's, also where the
# change is NAN (it was chosen by the change's sign: the improvement read
# p 1.0000, and the report's regression p 1).
check "... the table's p of both is the side they moved to (<0.0001, not 1.0000)" bash -c "
	grep -qE '^regression +g:allocs .* from 0 +<0\.0001 ' '$T/out' &&
	grep -qE '^improvement +g:done .* from 0 +<0\.0001 ' '$T/out'"
"$BG" check --format junit >"$T/junit.xml" 2>/dev/null
check "... JUnit's p of the improvement too" bash -c "
	grep -A8 'series: g:done' '$T/junit.xml' | grep -q 'p (adjusted): &lt;0\.0001'"
"$BG" report --format markdown >"$T/rep.md" 2>"$T/err"
check "... the report's newest-commit rows say from 0 with a p below 0.01, no nan" bash -c "
	! grep -qi nan '$T/rep.md' &&
	grep -E '^\| .*g:allocs.* \| from 0 \| ' '$T/rep.md' | grep -qE '\| (0|0\.00[0-9]*|[0-9.]+e-[0-9]+) \| [0-9]+ \| regression' &&
	grep -E '^\| .*g:done.* \| from 0 \| ' '$T/rep.md' | grep -qE '\| (0|0\.00[0-9]*|[0-9.]+e-[0-9]+) \| [0-9]+ \| improvement'"
# compare measures in pairs and judges by their ratios, which 0 has not:
# such a series is judged as two samples.  It was "no baseline, fewer than
# 2 pairs have it (0)", and compare exited 0 over 0 -> 2 allocs/op.
"$BG" compare HEAD~1 HEAD --max-runs 8 >"$T/out" 2>"$T/err"
rc=$?
check "compare over 0 -> 2 allocs/op: exit 1 (got $rc)" test "$rc" = 1
check "... regression from 0 and improvement from 0, found in pairs, no nan" bash -c "
	grep -qE '^regression +g:allocs .* from 0 .* found: from 0 in [0-9]+ pairs' '$T/out' &&
	grep -qE '^improvement +g:done .* from 0 .* found: from 0 in [0-9]+ pairs' '$T/out' &&
	! grep -qi nan '$T/out'"
# bisect follows ratios to the good end: it says it cannot search such a
# series, and how to, rather than "bisect needs a range of ... two pairs";
# of several that moved it searches one it can (g:t is -2.8% here).
git commit -q --allow-empty -m "after"
"$BG" bisect --good HEAD~2 --bad HEAD >"$T/out" 2>"$T/err"
rc=$?
check "bisect of the same ends searches g:t, the series it can (exit $rc)" bash -c "
	[ $rc = 0 ] && grep -q '^bisect: g:t is -2.8% at the new end' '$T/err'"
"$BG" bisect --good HEAD~2 --bad HEAD --series g:allocs >"$T/out" 2>"$T/err"
rc=$?
check "bisect --series g:allocs: exit 2 (got $rc), saying why and what judges it" bash -c "
	[ $rc = 2 ] && grep -q 'moved from 0 between the ends (a [a-z]*), but it has values at or below 0 there' '$T/err' &&
	grep -q 'benchguard compare [0-9a-f]* [0-9a-f]*. judges the ends as two samples' '$T/err'"

# A build that rewrites a tracked file (a version stamp): ci takes the
# tree as it was checked out, before the build, as run does.  It took it
# after: every ci run was dirty where run's were clean, so ci on the
# baseline branch never grew a baseline.
new_repo "$T/stamp" >/dev/null && cd "$T/stamp" || exit 1
echo old >version.txt
echo '{ "build": "date +%N >version.txt", "defaults": { "warmup": 0, "samples": 1 },
  "benchmarks": [ { "name": "b", "format": "lines", "command": "echo BENCHGUARD t 1 ms" } ] }' >benchguard.json
echo .benchguard/ >.gitignore
git add -A && git commit -qm stamp
check "a build that rewrites a tracked file: ci stores its run clean, as run does" bash -c "
	\"$BG\" --db $T/stamp.db -q ci --confirm 0 >/dev/null 2>&1; [ \$? -le 1 ] &&
	git checkout -q -- version.txt && \"$BG\" --db $T/stamp.db -q run >/dev/null 2>&1 &&
	[ \"\$(sqlite3 $T/stamp.db 'SELECT group_concat(dirty) FROM runs')\" = 0,0 ]"
check "... and ci's run keeps its branch" \
	[ "$(sqlite3 "$T/stamp.db" "SELECT branch FROM runs WHERE id = 1")" = main ]
cd "$T" || exit 1
# level_repo DIR DB MACHINE: a repository in DIR (and cd there) whose one
# benchmark prints the number in `level` (10), and 6 commits after its
# first that ci measured on MACHINE into DB.
level_repo() {
	new_repo "$1" >/dev/null && cd "$1" || return 1
	echo 10 >level
	echo '{ "defaults": { "warmup": 0, "samples": 3 }, "baseline": { "min_runs": 5 },
  "benchmarks": [ { "name": "b", "format": "lines",
    "command": "for i in 1 2 3; do echo BENCHGUARD t $(cat level) ms; done" } ] }' >benchguard.json
	echo .benchguard/ >.gitignore
	git add -A && git commit -qm suite
	for i in 1 2 3 4 5 6; do
		git commit -q --allow-empty -m "c$i"
		"$BG" --db "$2" -q ci --machine "$3" >/dev/null 2>&1
	done
}
# ci on a machine with no runs while the database holds another's: the
# warning on stderr and under the step summary's table (check's, which ci
# runs), once; with the other machine's name the regression is caught.
level_repo "$T/moved" "$T/moved.db" runner-old || exit 1
echo 15 >level && git commit -qam "50% slower"
: >"$T/moved.md"
check "ci on a new machine beside 6 runs of another: exit 0, nothing to judge against" bash -c "
	GITHUB_STEP_SUMMARY=$T/moved.md \"$BG\" --db $T/moved.db ci --machine runner-new >$T/out 2>$T/err"
check "... stderr says so once, naming runner-old and the --machine to use" bash -c "
	[ \"\$(grep -c 'no run of machine runner-new is stored' $T/err)\" = 1 ] &&
	grep -q 'the database has 6 runs of machine runner-old.*judge against it with --machine runner-old' $T/err"
check "... and so does the step summary" \
	grep -q '^\*\*No run of this machine to judge against.\*\* The database has 6 runs of machine `runner-old`' "$T/moved.md"
check "... on GitHub Actions, a ::warning annotation says it too" bash -c "
	GITHUB_ACTIONS=true \"$BG\" --db $T/moved.db ci --machine runner-new >$T/out 2>$T/err;
	grep -q '^::warning title=benchguard%3A no baseline on this machine::no run of machine runner-new is stored, so nothing was judged and a regression would pass; the database has 6 runs of machine runner-old. If that is this runner class, run with --machine runner-old\$' $T/out"
check "... ci --machine runner-old catches the regression (exit 1)" bash -c "
	\"$BG\" --db $T/moved.db ci --machine runner-old >$T/out 2>$T/err; [ \$? = 1 ]"
cd "$T" || exit 1
# A pull request whose job restored an older database than main's newest
# (GitHub's restore-keys find a pull request's own cache first): main's
# newest commits have no run in it, and ci said nothing of it while it
# "confirmed" a docs-only change 30% slower.  Now the baseline's age is
# said as the other machine's runs are: stderr, step summary, ::warning.
level_repo "$T/old" "$T/old.db" runner || exit 1
measured=$(git rev-parse HEAD)
git commit -q --allow-empty -m "landed, measured in a cache this job did not restore"
git commit -q --allow-empty -m "landed too"
tip=$(git rev-parse HEAD)
git checkout -q -b docs && git commit -q --allow-empty -m "docs only"
: >"$T/old.md"
check "ci of a pull request off 2 commits of main with no run: exit 0" bash -c "
	GITHUB_ACTIONS=true GITHUB_STEP_SUMMARY=$T/old.md \"$BG\" --db $T/old.db ci --machine runner >$T/out 2>$T/err"
check "... stderr says so once" bash -c "
	[ \"\$(grep -c 'the baseline is older than main: 2 commits of it' $T/err)\" = 1 ]"
check "... and so does the step summary" \
	grep -q "^\*\*The baseline is older than \`main\`.\*\* 2 commits of it, back from \`${tip:0:12}\` .*newest run is of commit \`${measured:0:12}\`" "$T/old.md"
check "... and a ::warning annotation" \
	grep -q "^::warning title=benchguard%3A baseline older than the branch::the baseline is older than main: 2 commits of it, back from ${tip:0:12} where this commit's history meets it, have no run of machine runner, and the baseline's newest run is of commit ${measured:0:12}, so a change made in them is judged as this commit's" "$T/out"
# main rewritten by a force-push, checked out afresh: the machine's 7 runs
# (main's 6 and the pull request's) are of commits the clone lacks (its
# branch, which holds the old history, deleted), and nothing is judged.
git checkout -q main && git branch -q -D docs
FILTER_BRANCH_SQUELCH_WARNING=1 git filter-branch -f --msg-filter 'sed s/^c/r/' main >/dev/null 2>&1
rm -rf "$T/old-clone" && git clone -q "file://$T/old" "$T/old-clone" && cd "$T/old-clone" || exit 1
git checkout -q -b slower && echo 15 >level && git commit -qam "50% slower"
: >"$T/old.md"
check "ci of a 50% slower pull request on a rewritten main: exit 0, nothing judged" bash -c "
	GITHUB_ACTIONS=true GITHUB_STEP_SUMMARY=$T/old.md \"$BG\" --db $T/old.db ci --machine runner >$T/out 2>$T/err"
check "... stderr says the machine's runs are of commits the repository does not have" \
	grep -q 'warning: no stored run of machine runner is on the history of main, so no series has a baseline and a regression would pass; 7 of its 7 stored runs are of commits this repository does not have' "$T/err"
check "... and so does the step summary" \
	grep -q '^\*\*No run of this machine on the history of `main`.\*\* 7 of its 7 stored runs' "$T/old.md"
check "... and a ::warning annotation" \
	grep -q '^::warning title=benchguard%3A no baseline on this history::no stored run of machine runner is on the history of main, so no series has a baseline and a regression would pass; 7 of its 7 stored runs are of commits this repository does not have' "$T/out"
cd "$T" || exit 1
finish
