# t_ci_contradict.sh -- `benchguard ci` when the second measurement points
# the other way from the first look.  The rolling baseline (an average of
# older commits) can show an improvement where the baseline's newest commit,
# measured beside the candidate, shows a regression: the regression the
# second measurement made must stand (exit 1, "found"), and the first look's
# flag must not read as confirmed.  Both ways of measuring again are driven:
# interleaved pairs beside the reference, and more runs alone when the
# reference does not build.
. "$(dirname "$0")/lib.sh"

# setup DIR: a repository whose one benchmark prints, exactly, the number in
# `val` (ignored by git, so a fresh checkout has none and prints 5), or once
# `val2` exists the number there; `next`, when present, becomes `val2` after
# the first invocation.  Four commits of history at 10 are measured by ci.
setup() {
	new_repo "$1" >/dev/null && cd "$1" || exit 1
	cat >bench.sh <<'S'
v=$(cat val 2>/dev/null || echo 5); [ -f val2 ] && v=$(cat val2); [ -f next ] && mv next val2
awk -v l="$v" 'BEGIN { printf "BENCHGUARD v %.6f ms\n", l }'
S
	printf '.benchguard/\nval\nval2\nnext\n' >.gitignore
	cat >benchguard.json <<J
{ ${2:-} "baseline": { "window": 5, "min_runs": 3 }, "defaults": { "warmup": 0, "samples": 1 },
  "benchmarks": [ { "name": "b", "format": "lines", "command": "sh bench.sh" } ] }
J
	echo 10 >val
	git add -A && git commit -qm suite
	for i in 1 2 3 4; do
		echo "$i" >notes && git add -A && git commit -qm "history $i"
		"$BG" -q ci >/dev/null 2>&1
	done
	git checkout -q -b cand && echo x >notes && git commit -qam candidate
}
recorded() {
	sqlite3 "$BENCHGUARD_DB" "SELECT verdict || '/' || first || '/' || confirmation
		FROM verdicts WHERE series = 'b:v' ORDER BY check_id DESC LIMIT 1"
}

# Pairs: 8 against the rolling 10 is an improvement; beside the reference's
# checkout (5) it is +60%.
export BENCHGUARD_DB="$T/pairs.db" GITHUB_STEP_SUMMARY="$T/summary.md"
setup "$T/pairs"
echo 8 >val
GITHUB_ACTIONS=true "$BG" -q ci >"$T/out" 2>"$T/err"
rc=$?
check "pairs show a regression the first look called an improvement: exit 1 (got $rc)" test "$rc" = 1
check "... recorded as a regression found, not as not-confirmed ($(recorded))" \
	test "$(recorded)" = regression/improvement/found
check "... the table says the pairs found it and what the first run showed" \
	grep -q '^regression .*b:v.*found: +60.0% in 4 pairs' "$T/out"
check "... the annotation says so" \
	grep -q '^::error title=benchguard%3A performance regression::.*regression found by the pairs: +60.0%25.*the first run showed an improvement of -20.0%25' "$T/out"
check "... and states the change the pairs measured, not the first look's" \
	grep -q '^::error title=benchguard%3A performance regression::b:v got 60.0%25 worse when measured again' "$T/out"
# The reference side of the pairs is main's newest commit, on main's
# line: its runs are stored on main, as a run --commit of it is.
check "... the reference's pair runs stored on main, not on no branch" test "$(sqlite3 "$BENCHGUARD_DB" \
	"SELECT group_concat(DISTINCT r.branch) FROM runs r JOIN commits c ON c.id = r.commit_id
	WHERE r.role = 'paired' AND c.sha = '$(git rev-parse main)'")" = main
# A plain check of the same run replays the first look alone (improvement,
# exit 0) where ci failed the step: it says that ci recorded otherwise.
"$BG" check >"$T/cout" 2>"$T/cerr"
rc=$?
check "check of that run: the first look's improvement, exit 0 (got $rc)" test "$rc" = 0
check "... with a warning that ci recorded a regression found for it" \
	grep -q "^benchguard: warning: ci recorded other verdicts for run [0-9]*: b:v regression (found), here improvement; check judges the stored runs against the baseline alone, without ci's pairs" "$T/cerr"
"$BG" check --commit main >/dev/null 2>"$T/cerr"
check "... and none for a run where ci agreed" bash -c "! grep -q 'ci recorded' '$T/cerr'"
# The same on a tree with uncommitted changes: ci's candidate side of the
# pairs is both paired and dirty, and history says both.
echo y >>notes
"$BG" -q ci >/dev/null 2>&1
check "history: ci's candidate pairs on a dirty tree read \"paired, dirty\"" bash -c "
	\"$BG\" history b:v --limit 40 | grep -q 'paired, dirty'"
git checkout -q notes

# Alone: the reference does not build (no `val` in its checkout), so the
# benchmark runs 4 more times alone; the first run measured 8, the next
# ones 12 against the rolling 10.
export BENCHGUARD_DB="$T/alone.db"
setup "$T/alone" '"build": "test -f val",'
echo 8 >val && echo 12 >next
: >"$GITHUB_STEP_SUMMARY"
GITHUB_ACTIONS=true "$BG" ci >"$T/out" 2>"$T/err"
rc=$?
check "more runs alone show a regression the first look called an improvement: exit 1 (got $rc)" test "$rc" = 1
check "... recorded as a regression found ($(recorded))" \
	test "$(recorded)" = regression/improvement/found
check "... and the annotation says what the first run showed" \
	grep -q '^::error .*found by 4 more runs alone (no reference to pair with): +20.0%25; the first run showed an improvement of -20.0%25' "$T/out"
check "... and states the change the runs alone measured, not the first look's" \
	grep -q '^::error title=benchguard%3A performance regression::b:v got 20.0%25 worse when measured again' "$T/out"
# No pairs were made: the lines that count what was measured again say so.
check "... stderr says 4 more runs alone, not pairs" \
	grep -q '^measured again alone: 4 more runs (no reference to pair with) in [0-9.]* s' "$T/err"
check "... and so does the step summary" \
	grep -q '^Measured again alone: 4 more runs (no reference to pair with) in [0-9.]* s\.' "$GITHUB_STEP_SUMMARY"
check "... which speaks of no pairs" bash -c "! grep -qi 'pairs (at most\|interleaved pair' '$T/err' '$GITHUB_STEP_SUMMARY'"

# Alone, the reference's checkout impossible: a submodule this clone never
# fetched (actions/checkout's default) at a URL it cannot reach, as a
# private one is without credentials.  The first look's flag is measured
# again alone, as for a reference that does not build; the job ended in
# exit 3 with no verdict.
export BENCHGUARD_DB="$T/nosub.db"
git init -q "$T/subsrc" && (cd "$T/subsrc" && echo lib >lib.txt && git add . && git commit -qm lib)
setup "$T/nosub"
git checkout -q main
git -c protocol.file.allow=always submodule -q add "$T/subsrc" vendor/lib
git config -f .gitmodules submodule.vendor/lib.url https://127.0.0.1:9/private/lib.git
git add -A && git commit -qm "vendor lib"
"$BG" -q ci >/dev/null 2>&1
git checkout -q cand && git rebase -q main
git submodule -q deinit -f vendor/lib && rm -rf .git/modules/vendor
echo 8 >val && echo 12 >next
"$BG" ci >"$T/out" 2>"$T/err"
rc=$?
check "a reference whose submodule cannot be fetched: measured again alone, exit 1 (got $rc)" test "$rc" = 1
check "... saying why it confirms without the reference" \
	grep -q "^benchguard: warning: the baseline commit [0-9a-f]\{12\} cannot be checked out (submodule \"vendor/lib\" (vendor/lib): cannot clone https://127.0.0.1:9/private/lib.git.*): confirming without it" "$T/err"
check "... recorded as a regression found ($(recorded))" \
	test "$(recorded)" = regression/improvement/found

# The same with --json: its confirmation says the 4 were more runs alone.
export BENCHGUARD_DB="$T/alone_json.db"
setup "$T/alone_json" '"build": "test -f val",'
echo 8 >val && echo 12 >next
"$BG" ci --json >"$T/out" 2>"$T/err"
rc=$?
check "ci --json, measured again alone: exit 1 (got $rc)" test "$rc" = 1
check "... its confirmation says alone, and counts the 4 more runs" /usr/bin/python3 -c '
import json, sys
c = json.load(open(sys.argv[1]))["confirmation"]
sys.exit(c != {"pairs": 4, "max_pairs": 32, "alone": True})' "$T/out"
# and in pairs it says not alone.
export BENCHGUARD_DB="$T/pairs_json.db"
setup "$T/pairs_json"
echo 8 >val
"$BG" ci --json >"$T/out" 2>"$T/err"
check "ci --json, measured again in pairs: its confirmation says not alone" /usr/bin/python3 -c '
import json, sys
c = json.load(open(sys.argv[1]))["confirmation"]
sys.exit(c["alone"] is not False or c["pairs"] < 4)' "$T/out"
finish
