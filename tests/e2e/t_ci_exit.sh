# t_ci_exit.sh -- `benchguard ci`'s exit codes where no verdict of its own
# says regression or failure: the first run of a suite (no baseline yet)
# and a suite whose every benchmark is skipped pass (0, as a skip is no
# failure); Ctrl-C while ci measures again is no pass: exit 3, "interrupted",
# with no verdict recorded and the step summary saying the run failed.
. "$(dirname "$0")/lib.sh"

new_repo "$T/r" >/dev/null && cd "$T/r" || exit 1
# The benchmark prints the number in `val`; in the baseline commit's
# checkout (while ci measures again beside it) it first leaves a mark and
# waits, so that the test can interrupt it there.
cat >bench.sh <<'S'
case $PWD in */worktrees/*) [ -n "$BG_MARK" ] && touch "$BG_MARK" && sleep 30 ;; esac
awk -v l="$(cat val 2>/dev/null || echo 10)" 'BEGIN { printf "BENCHGUARD v %.6f ms\n", l }'
S
printf '.benchguard/\nval\n' >.gitignore
cat >benchguard.json <<'J'
{ "baseline": { "window": 5, "min_runs": 3 }, "defaults": { "warmup": 0, "samples": 1 },
  "benchmarks": [ { "name": "b", "format": "lines", "command": "sh bench.sh" },
                  { "name": "gone", "command": "true", "requires": ["no-such-command-here"] } ] }
J
git add -A && git commit -qm suite
export BENCHGUARD_DB="$T/ci.db" GITHUB_STEP_SUMMARY="$T/summary.md"

"$BG" -q ci --json >"$T/out" 2>"$T/err"
rc=$?
check "no baseline yet: ci passes, exit 0 (got $rc)" test "$rc" = 0
check "... the series is no-baseline and the skipped benchmark skipped" /usr/bin/python3 -c "
import json
r = {x['series']: x['verdict'] for x in json.load(open('$T/out'))['results']}
assert r == {'b:v': 'no-baseline', 'gone': 'skipped'}, r"
check "... and the verdict is recorded" \
	test "$(sqlite3 "$BENCHGUARD_DB" 'SELECT count(*) FROM checks')" = 1

"$BG" -q ci --filter gone --json >"$T/out" 2>"$T/err"
rc=$?
check "every benchmark skipped: ci passes, exit 0 (got $rc)" test "$rc" = 0
check "... with the one benchmark skipped" /usr/bin/python3 -c "
import json
r = [x['verdict'] for x in json.load(open('$T/out'))['results']]
assert r == ['skipped'], r"

for i in 1 2 3; do
	echo "$i" >notes && git add -A && git commit -qm "history $i"
	"$BG" -q ci >/dev/null 2>&1
done
git checkout -q -b slow && echo x >notes && git commit -qam slow
echo 20 >val
: >"$GITHUB_STEP_SUMMARY"
nchecks=$(sqlite3 "$BENCHGUARD_DB" 'SELECT count(*) FROM checks')
BG_MARK="$T/mark" GITHUB_ACTIONS=true "$BG" ci >"$T/out" 2>"$T/err" &
pid=$!
for _ in $(seq 1 200); do [ -f "$T/mark" ] && break; sleep 0.05; done
kill -INT "$pid"
wait "$pid"
rc=$?
check "Ctrl-C while ci measures again: exit 3 (got $rc)" test "$rc" = 3
check "... saying it was interrupted" grep -q '^benchguard: interrupted' "$T/err"
check "... no verdict recorded" \
	test "$(sqlite3 "$BENCHGUARD_DB" 'SELECT count(*) FROM checks')" = "$nchecks"
check "... the candidate's first run kept" \
	test "$(sqlite3 "$BENCHGUARD_DB" "SELECT count(*) FROM runs r JOIN commits c ON c.id = r.commit_id WHERE c.sha = '$(git rev-parse HEAD)' AND r.status = 'complete'")" -ge 1
check "... and the step summary says the run failed" \
	grep -q '^### benchguard: run failed' "$GITHUB_STEP_SUMMARY"

# What no verdict can come of is exit 2 before the suite runs: a baseline
# branch that does not exist (ci measured for as long as the suite takes,
# stored a run, then said so), and a window smaller than min_runs (which
# judged on fewer runs than min_runs).
runs_now() { sqlite3 "$BENCHGUARD_DB" 'SELECT count(*) FROM runs'; }
n=$(runs_now)
check "ci --baseline-branch nope: exit 2 naming the branches there" bash -c "
	\"$BG\" ci --baseline-branch nope >/dev/null 2>'$T/err'; [ \$? = 2 ] &&
	grep -q '^benchguard: unknown baseline branch \"nope\" .*branches there: main, slow' '$T/err'"
check "... before measuring: no run stored" test "$(runs_now)" = "$n"
# ... and before the build, which may take minutes: it ran first, then ci
# said the branch was not there.
jq '.build = "touch built"' benchguard.json >"$T/cfg.json"
rm -f built
: >"$GITHUB_STEP_SUMMARY"
check "ci --baseline-branch nope with a build: exit 2" bash -c "
	\"$BG\" --config '$T/cfg.json' ci --baseline-branch nope >/dev/null 2>'$T/err'; [ \$? = 2 ] &&
	grep -q '^benchguard: unknown baseline branch \"nope\"' '$T/err'"
check "... and nothing built" test ! -e built
check "... and the step summary says the run failed, why" bash -c "
	grep -q '^### benchguard: run failed' '$GITHUB_STEP_SUMMARY' &&
	grep -q 'unknown baseline branch' '$GITHUB_STEP_SUMMARY'"
check "ci --window 2 under min_runs 3: exit 2, nothing measured" bash -c "
	\"$BG\" ci --window 2 >/dev/null 2>'$T/err'; [ \$? = 2 ] && [ \"\$(sqlite3 '$BENCHGUARD_DB' 'SELECT count(*) FROM runs')\" = $n ] &&
	grep -qx 'benchguard: --window 2 is smaller than baseline.min_runs (3); give --min-runs N too' '$T/err'"
check "check --window 3 --min-runs 10: exit 2" bash -c "
	\"$BG\" check --window 3 --min-runs 10 >/dev/null 2>'$T/err'; [ \$? = 2 ] &&
	grep -qx 'benchguard: --min-runs 10 must not exceed the window (3)' '$T/err'"
check "check --window 3 --min-runs 3: judged on 3 runs" bash -c "
	\"$BG\" --json check --commit main --window 3 --min-runs 3 | python3 -c '
import json, sys
r = json.load(sys.stdin)[\"results\"]
assert [x[\"baseline_runs\"] for x in r if x[\"series\"] == \"b:v\"] == [3], r'"

# A pull request checked out at depth 1 (actions/checkout's default): its
# branch and main share no history in the clone.  check and ci said
# "finding the merge base: object not found" (exit 3), after ci had
# measured; now exit 2 with what to do, before anything runs.
git checkout -q main
git clone -q --depth 1 --no-single-branch --branch slow "file://$T/r" "$T/shallow"
(
	cd "$T/shallow" || exit 1
	echo 20 >val
	# libgit2 1.5's git_merge_base leaks 80 bytes of its own when a parent
	# is missing (every frame in libgit2.so): not ours, and LeakSanitizer
	# would turn this exit 2 into 1 in the sanitizer build.
	ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0" "$BG" ci >/dev/null 2>"$T/err"
	echo $? >"$T/rc"
)
check "ci in a depth-1 clone of a branch: exit 2 (got $(cat "$T/rc"))" test "$(cat "$T/rc")" = 2
check "... saying to fetch the whole history" \
	grep -q '^benchguard: this shallow clone lacks the history where the two commits meet, .*git fetch --unshallow; fetch-depth: 0 in actions/checkout' "$T/err"
check "... before measuring: no run stored" test "$(runs_now)" = "$n"

# A push to main checked out at depth 1: the merge base is the commit
# itself, and the stored runs it is judged against lie before it, where
# the clone has nothing.  ci measured the whole suite and stored a run,
# then said so; now it says so first.
git clone -q --depth 1 --branch main "file://$T/r" "$T/shallow-main"
(
	cd "$T/shallow-main" || exit 1
	"$BG" ci >/dev/null 2>"$T/err"
	echo $? >"$T/rc"
)
check "ci in a depth-1 clone of main: exit 2 (got $(cat "$T/rc"))" test "$(cat "$T/rc")" = 2
check "... saying to fetch the whole history" \
	grep -q "^benchguard: this shallow clone's history ends at $(git rev-parse --short=12 main), and benchguard needs the commits before it: fetch the whole history" "$T/err"
check "... before measuring: no run stored" test "$(runs_now)" = "$n"

# compare, bisect and run --commit need no merge base: both commits are in the clone.
# They failed with the shallow-clone sentence all the same, from the walk
# that asks whether a commit named by SHA is on the baseline branch.
(
	cd "$T/shallow" || exit 1
	head=$(git rev-parse HEAD)
	"$BG" -q compare --runs 2 --max-runs 2 origin/main "$head" >"$T/cmp" 2>"$T/cmp.err"
	echo $? >"$T/cmp.rc"
	"$BG" -q bisect --good origin/main --bad "$head" >"$T/bis" 2>"$T/bis.err"
	echo $? >"$T/bis.rc"
	"$BG" -q run --commit "$head" >/dev/null 2>"$T/run.err"
	echo $? >"$T/run.rc"
)
check "compare of two commits a depth-1 clone has: exit 0 (got $(cat "$T/cmp.rc"))" \
	test "$(cat "$T/cmp.rc")" = 0
check "... its table, and no word of the shallow clone" bash -c "
	grep -q '^commit $(git rev-parse --short=12 slow) against $(git rev-parse --short=12 main) ' '$T/cmp' &&
	! grep -q shallow '$T/cmp.err'"
check "bisect of the same two: nothing to bisect, exit 1 (got $(cat "$T/bis.rc"))" bash -c "
	[ \"\$(cat '$T/bis.rc')\" = 1 ] && grep -q '^nothing to bisect: ' '$T/bis' && ! grep -q shallow '$T/bis.err'"
check "run --commit of the branch's tip by SHA: exit 0 (got $(cat "$T/run.rc"))" \
	test "$(cat "$T/run.rc")" = 0

# A pull request as actions/checkout fetches it by default: the merge ref
# alone, at depth 1, and no branch of origin's.  ci said "unknown baseline
# branch "main" ... branches there: pull/1/merge; name one with
# --baseline-branch" of a branch that is there, only never fetched; now it
# says to fetch the whole history with its branches.
n=$(runs_now)
git init -q "$T/shallow-pr" &&
	git -C "$T/shallow-pr" fetch -q --depth 1 "file://$T/r" "+refs/heads/slow:refs/remotes/pull/1/merge" &&
	git -C "$T/shallow-pr" checkout -q refs/remotes/pull/1/merge
(
	cd "$T/shallow-pr" || exit 1
	"$BG" ci >/dev/null 2>"$T/err"
	echo $? >"$T/rc"
)
check "ci in a depth-1 checkout of a pull request's merge ref: exit 2 (got $(cat "$T/rc"))" \
	test "$(cat "$T/rc")" = 2
check "... saying main was not fetched into the shallow clone, and how to fetch it" \
	grep -q '^benchguard: baseline branch "main" was not fetched into this shallow clone (.*branches there: pull/1/merge): fetch the whole history with its branches (fetch-depth: 0 in actions/checkout, GIT_DEPTH: 0 on GitLab' "$T/err"
check "... not to name another branch" bash -c "! grep -q 'name one with' '$T/err'"
check "... before measuring: no run stored" test "$(runs_now)" = "$n"
# GitLab under a GIT_DEPTH above 0 fetches the pipeline's branch alone; a
# history shorter than the depth leaves no shallow clone to tell by, and
# the refs/pipelines/<id> it fetched says whose checkout it is.
git init -q "$T/gitlab" &&
	git -C "$T/gitlab" fetch -q "file://$T/r" "+refs/heads/slow:refs/remotes/origin/slow" "+refs/heads/slow:refs/pipelines/7" &&
	git -C "$T/gitlab" checkout -q refs/pipelines/7
(
	cd "$T/gitlab" || exit 1
	"$BG" ci >/dev/null 2>"$T/err"
	echo $? >"$T/rc"
)
check "ci in a GitLab checkout of one branch: exit 2, saying GitLab fetches the others only with GIT_DEPTH: 0" bash -c "
	[ \"\$(cat '$T/rc')\" = 2 ] &&
	grep -q '^benchguard: unknown baseline branch \"main\" .*branches there: origin/slow (a GitLab job fetches the other branches only with GIT_DEPTH: 0)' '$T/err'"
finish
