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
finish
