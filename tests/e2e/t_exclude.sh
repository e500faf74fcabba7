# t_exclude.sh -- `benchguard exclude`: runs set aside by hand.  A commit
# measured 30% slow three times and reverted since weighs in every baseline
# of the window: a real +12% regression after the revert reads as nothing.
# Excluded, those runs leave the baseline (the regression is caught), the
# report, the exported baseline and the default target of check; history
# still lists them, a copy of the database carries them set aside, and
# --undo counts them again.  Bad input changes nothing.  The same on
# PostgreSQL when its server programs are here.
. "$(dirname "$0")/lib.sh"

# scenario DB: the level suite (8 runs at 100, by ci into $T/db), copied
# into DB, then a commit at 130 run three times and its revert at 100 run
# once, then a commit at 112.  $slow: the slow commit's SHA; $cand: the
# last commit's.
scenario() {
	rm -rf "$T/repo" "$T/ctr" "$T/db"
	level_suite "$T/repo" 8 || return 1
	"$BG" -q db copy "$T/db" "$1" >/dev/null || return 1
	export BENCHGUARD_DB=$1
	echo 130 >level && git commit -qam "slow" && slow=$(git rev-parse HEAD)
	"$BG" -q run --runs 3 >/dev/null 2>&1 || return 1
	echo 100 >level && git commit -qam "revert slow" && "$BG" -q run >/dev/null 2>&1 || return 1
	echo 112 >level && git commit -qam "a real slowdown" && cand=$(git rev-parse HEAD)
	"$BG" -q run >/dev/null 2>&1
}
ids_of() { db_sql "$BENCHGUARD_DB" "SELECT r.id FROM runs r JOIN commits c ON c.id = r.commit_id
	WHERE c.sha = '$1' AND r.status = 'complete' ORDER BY r.id" | tr '\n' ' ' | sed 's/ $//'; }
excluded_ids() { db_sql "$BENCHGUARD_DB" "SELECT id FROM runs WHERE exclude_reason IS NOT NULL
	ORDER BY id" | tr '\n' ' ' | sed 's/ $//'; }

# Everything that holds on both backends; $1 names the backend.
suite() {
	local b=$1 rc ids first
	expect_rc 0 "$BG" check --commit "$cand"
	check "$b: with the slow runs in the baseline, +12% reads as no regression (exit 0)" test $? = 0
	check "$b: ... judged against a baseline, unchanged" grep -q '^unchanged .*set:v' "$T/out"
	ids=$(ids_of "$slow")
	first=${ids%% *}
	check "$b: the slow commit has three runs ($ids)" test "$(wc -w <<<"$ids")" = 3

	expect_rc 2 "$BG" exclude "$first" 999999 --reason "throttled"
	check "$b: an unknown run among known ones: exit 2" test $? = 0
	check "$b: ... saying which" grep -q 'no run 999999 in the database' "$T/err"
	check "$b: ... and nothing is excluded, not even the known one" test -z "$(excluded_ids)"
	for bad in "" "$(printf 'a\033[2Jb')" "$(printf 'a\342\200\256b')" "$(head -c 501 /dev/zero | tr '\0' x)"; do
		expect_rc 2 "$BG" exclude "$first" --reason "$bad"
		check "$b: reason of ${#bad} characters refused (exit 2): $(head -c 80 "$T/err")" test $? = 0
	done
	check "$b: ... nothing excluded by them" test -z "$(excluded_ids)"
	expect_rc 2 "$BG" exclude "$first"
	check "$b: no --reason: exit 2" test $? = 0

	expect_rc 0 "$BG" exclude --commit "$slow" --reason "measured while the runner throttled"
	check "$b: exclude --commit: exit 0" test $? = 0
	check "$b: ... each run said" test "$(grep -c '^excluded run [0-9]* (commit .* on main)$' "$T/out")" = 3
	check "$b: ... exactly the slow commit's runs set aside" test "$(excluded_ids)" = "$ids"
	expect_rc 1 "$BG" check --commit "$cand"
	check "$b: without them the +12% is a regression (exit 1)" test $? = 0
	check "$b: ... judged against the runs at 100" grep -q '^regression .*set:v' "$T/out"

	expect_rc 0 "$BG" exclude "$first" --reason "another reason"
	check "$b: excluding again: exit 0, the first reason kept" \
		grep -q "^run $first was excluded already: measured while the runner throttled$" "$T/out"
	"$BG" --json exclude "$first" "$first" --reason "another reason" >"$T/d.json"
	check "$b: a run named twice is one run, as stored" test "$(jq -c \
		'[.[] | [.run, .excluded, .exclude_reason, .changed]]' "$T/d.json")" = "[[$first,true,\"measured while the runner throttled\",false]]"
	"$BG" --json history set:v --limit 0 >"$T/h.json"
	check "$b: history still lists the excluded runs, with why" test "$(jq -r \
		"[.[] | select(.excluded and .exclude_reason == \"measured while the runner throttled\") | .run] | sort | map(tostring) | join(\" \")" "$T/h.json")" = "$ids"
	check "$b: ... and no other run as excluded" test "$(jq '[.[] | select(.excluded or .exclude_reason != null)] | length' "$T/h.json")" = 3
	"$BG" history set:v --limit 0 >"$T/h.txt"
	check "$b: ... the table marks them" test "$(grep -c ' excluded  ' "$T/h.txt")" = 3
	"$BG" --json exclude --list >"$T/l.json"
	check "$b: exclude --list: the three, with reason and time" test "$(jq -r \
		'[.[] | select(.excluded and .exclude_reason == "measured while the runner throttled" and .excluded_at > 0) | .run] | map(tostring) | join(" ")' "$T/l.json")" = "$ids"

	# The report's trend leaves them out: the slow commit has no point.
	"$BG" report --since all --format json -o "$T/r.json" 2>/dev/null
	check "$b: the report has no point for the slow commit" \
		test "$(jq "[.. | objects | select(.commit? == \"$slow\" or .sha? == \"$slow\")] | length" "$T/r.json")" = 0
	check "$b: ... but one for the commit after it" \
		test "$(jq "[.. | objects | select(.commit? == \"$cand\" or .sha? == \"$cand\")] | length" "$T/r.json")" -gt 0
	# An exported baseline is what a baseline uses.
	"$BG" baseline export -o "$T/base.json" >/dev/null 2>&1
	check "$b: the exported baseline holds none of them" \
		test "$(grep -c "$slow" "$T/base.json")" = 0

	# check --run of an excluded run judges it, and says it is excluded.
	"$BG" check --run "$first" >"$T/out" 2>"$T/err"
	check "$b: check --run of an excluded run warns" grep -q "run $first is excluded (measured while the runner throttled); judging it as asked" "$T/err"
	# The newest run excluded: plain check judges the newest that counts.
	expect_rc 0 "$BG" exclude "$(ids_of "$cand")" --reason "bad"
	expect_rc 0 "$BG" check
	check "$b: check skips an excluded newest run" grep -q "^commit $(git rev-parse --short=12 HEAD~1) " "$T/out"
	expect_rc 2 "$BG" check --commit "$cand"
	check "$b: check --commit of a commit whose runs are all excluded says so" \
		grep -q 'that is not excluded (exclude --list)' "$T/err"
	expect_rc 0 "$BG" exclude --undo "$(ids_of "$cand")"

	expect_rc 0 "$BG" exclude --undo --commit "$slow"
	check "$b: --undo --commit takes them back" test -z "$(excluded_ids)"
	check "$b: ... each said" test "$(grep -c '^included run' "$T/out")" = 3
	expect_rc 0 "$BG" check --commit "$cand"
	check "$b: ... and the regression is hidden again (exit 0)" grep -q '^unchanged .*set:v' "$T/out"
	expect_rc 2 "$BG" exclude --undo --commit "$slow"
	check "$b: --undo --commit with nothing excluded: exit 2, said" grep -q 'no excluded run of commit' "$T/err"
}

# ------------------------------------------------------------------ SQLite
scenario "$T/x.db" || { not_ok "the scenario is set up"; finish; exit; }
suite sqlite

# A copy carries the exclusion, and a later one in the source follows.
"$BG" -q exclude --commit "$slow" --reason "throttled" >/dev/null
expect_rc 0 "$BG" db copy "$T/x.db" "$T/copy.db"
check "copy: the excluded runs are excluded in the copy" \
	test "$(BENCHGUARD_DB="$T/copy.db" "$BG" --json exclude --list | jq -r '[.[].exclude_reason] | unique | join(",")')/$(BENCHGUARD_DB="$T/copy.db" "$BG" --json exclude --list | jq length)" = throttled/3
"$BG" -q exclude "$(ids_of "$cand")" --reason "later" >/dev/null
expect_rc 0 "$BG" db copy "$T/x.db" "$T/copy.db"
check "copy: an exclusion made since reaches runs already copied" \
	test "$(BENCHGUARD_DB="$T/copy.db" "$BG" --json exclude --list | jq length)" = 4
"$BG" -q exclude --undo --commit "$slow" >/dev/null
expect_rc 0 "$BG" db copy "$T/x.db" "$T/copy.db"
check "copy: ... but a copy never takes one back" \
	test "$(BENCHGUARD_DB="$T/copy.db" "$BG" --json exclude --list | jq length)" = 4

# A stored pair with an excluded side is not reused: bisect measures again.
git checkout -q main
"$BG" --json bisect --good HEAD~1 --bad HEAD >"$T/b1.json" 2>/dev/null
"$BG" --json bisect --good HEAD~1 --bad HEAD >"$T/b2.json" 2>/dev/null
check "bisect again reuses its stored pairs" test "$(jq '[.steps[].reused] | all' "$T/b2.json")" = true
expect_rc 0 "$BG" exclude --commit HEAD --reason "pairs too"
check "exclude --commit takes the commit's paired runs too" test "$(db_sql "$BENCHGUARD_DB" \
	"SELECT count(*) FROM runs WHERE role = 'paired' AND exclude_reason = 'pairs too'")" -gt 0
"$BG" --json bisect --good HEAD~1 --bad HEAD >"$T/b3.json" 2>/dev/null
check "... and bisect measures those pairs again" test "$(jq '[.steps[].reused] | any' "$T/b3.json")" = false
check "... the same answer" test "$(jq -r .first_bad "$T/b3.json")" = "$(jq -r .first_bad "$T/b2.json")"
"$BG" -q exclude --undo --commit HEAD >/dev/null

# Every run of this machine excluded: the messages say so, not that there
# are none, and ci does not send the user to another machine's runs.
"$BG" -q db copy "$T/x.db" "$T/all.db" >/dev/null
export BENCHGUARD_DB="$T/all.db"
for c in $(db_sql "$BENCHGUARD_DB" "SELECT DISTINCT c.sha FROM runs r JOIN commits c ON c.id = r.commit_id"); do
	"$BG" -q exclude --commit "$c" --reason "all of them" >/dev/null 2>&1
done
expect_rc 2 "$BG" check
check "all excluded: plain check says so (exit 2)" grep -q "that is not excluded ([0-9]* excluded: exclude --list)" "$T/err"
"$BG" report --since all --format json -o "$T/r2.json" 2>"$T/err"
check "... report says so" grep -q "in this period (--since all) but [0-9]* excluded ones (exclude --list)" "$T/err"
"$BG" baseline export -o "$T/b2.json" 2>"$T/err"
check "... baseline export says so" grep -q "to export but [0-9]* excluded ones (exclude --list)" "$T/err"
"$BG" -q run --machine other-runner >/dev/null 2>&1
echo 2 >>notes.txt && git commit -qam "after all excluded"
"$BG" ci >"$T/out" 2>"$T/err"
check "... ci warns the runs are excluded" grep -q "but this commit's is excluded ([0-9]*: exclude --list), so no series has a baseline" "$T/err"
check "... and does not point at another machine" test "$(grep -c 'other-runner' "$T/err")" = 0
export BENCHGUARD_DB="$T/x.db"

# The database is never created by exclude.
expect_rc 2 "$BG" --db "$T/none.db" exclude 1 --reason x
check "a database that is not there: exit 2, not created" test ! -e "$T/none.db"
expect_rc 2 "$BG" exclude --list 3
check "--list takes no runs: exit 2" test $? = 0

# A commit this clone lacks, named by its whole SHA, still names the runs
# another clone stored; a short one is refused.
new_repo "$T/other" >/dev/null && cd "$T/other" || exit 1
expect_rc 0 "$BG" --db "$T/x.db" exclude --commit "$slow" --reason "from another clone"
check "exclude --commit of a whole SHA this clone lacks: its runs" test "$(grep -c '^excluded run' "$T/out")" = 3
expect_rc 0 "$BG" --db "$T/x.db" exclude --undo --commit "$slow"
check "... and --undo of it" test "$(grep -c '^included run' "$T/out")" = 3
expect_rc 2 "$BG" --db "$T/x.db" exclude --commit "${slow:0:12}" --reason x
check "... a short SHA this clone lacks: exit 2" grep -q 'revision' "$T/err"
cd "$T/repo" || exit 1

# A schema-13 database (before exclusions) opens, its runs all counted.
"$BG" -q exclude --undo --commit "$cand" >/dev/null 2>&1
cp "$T/x.db" "$T/old.db"
sqlite3 "$T/old.db" "ALTER TABLE runs DROP COLUMN exclude_reason; ALTER TABLE runs DROP COLUMN excluded_at; PRAGMA user_version = 13"
# db info reports the version as found: upgrading the database it reports
# on locked out every older runner that shares it, and showed only 14.
expect_rc 0 "$BG" --db "$T/old.db" db info
check "db info on a schema-13 database: says 13, and what opening it will do" grep -qF \
	"schema version  13 (this benchguard uses 15: the next command that opens the database upgrades it, and an older benchguard then refuses it)" "$T/out"
check "... and leaves it at 13" test "$(sqlite3 "$T/old.db" 'PRAGMA user_version')" = 13
expect_rc 0 "$BG" --json --db "$T/old.db" db info
check "... --json: schema_version 13, schema_version_current 15" grep -q '"schema_version":13,"schema_version_current":15' <(tr -d ' \n' <"$T/out")
expect_rc 0 "$BG" --db "$T/old.db" exclude --list
check "schema 13 migrated: nothing excluded" test "$(sqlite3 "$T/old.db" 'SELECT count(*) FROM runs WHERE exclude_reason IS NOT NULL')" = 0
check "... the command that upgraded it says so, once" bash -c "
	[ \"\$(grep -c 'benchguard: warning: database $T/old.db upgraded from schema version 13 to 15: an older benchguard now refuses it' '$T/err')\" = 1 ]"
expect_rc 0 "$BG" --db "$T/old.db" exclude --list
check "... the next one says nothing" test ! -s "$T/err"
# db copy opens both databases itself: it migrated them without a word.
cp "$T/x.db" "$T/old2.db"
sqlite3 "$T/old2.db" "ALTER TABLE runs DROP COLUMN exclude_reason; ALTER TABLE runs DROP COLUMN excluded_at; PRAGMA user_version = 13"
cp "$T/old2.db" "$T/old3.db"
expect_rc 0 "$BG" db copy "$T/old2.db" "$T/old3.db"
check "db copy between two schema-13 databases says it upgraded each" bash -c "
	grep -q 'warning: database $T/old2.db upgraded from schema version 13 to 15' '$T/err' &&
	grep -q 'warning: database $T/old3.db upgraded from schema version 13 to 15' '$T/err'"

# -------------------------------------------------------------- PostgreSQL
pg_start_or_end "exclude on PostgreSQL"
scenario "$(pg_db ex)" || { not_ok "the scenario is set up on PostgreSQL"; finish; exit; }
suite postgresql
finish
