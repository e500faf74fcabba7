# t_prune.sh -- `benchguard db prune`: old runs deleted with everything
# stored under them, but the newest runs a baseline could use of each series
# on each machine and branch, whatever their age; an incomplete run younger
# than a day stays; --dry-run deletes nothing; commits, machines and series
# stay; check still has its baseline afterwards.  Bad options change nothing.
# The same counts on PostgreSQL when its server programs are here.
. "$(dirname "$0")/lib.sh"

new_repo "$T/repo" >/dev/null && cd "$T/repo" || exit 1
cat >bench.sh <<'S'
awk 'BEGIN { printf "BENCHGUARD a %.6f ms\nBENCHGUARD a %.6f ms\n", 10, 10.01 }'
[ -f two ] && echo "BENCHGUARD b 5 ms"
true
S
cat >benchguard.json <<'J'
{ "baseline": { "window": 3, "min_runs": 2 }, "defaults": { "warmup": 0, "samples": 1 },
  "benchmarks": [ { "name": "s", "format": "lines", "command": "sh bench.sh" } ] }
J
printf '.benchguard/\ntwo\n' >.gitignore
git add -A && git commit -qm suite

# setup DB: into DB, on main six commits M1..M6 (M1 to M3 also measure
# series s:b), a branch `feature` of three (F1..F3), two runs of another
# machine on main (O1, O2), M1 excluded, an incomplete run of main started
# 400 days ago and one 2 hours ago.  Then every complete run but M5 and M6
# is made 400 days old.
setup() {
	local m5 m6
	export BENCHGUARD_DB=$1
	git checkout -q main && git branch -D feature >/dev/null 2>&1
	touch two
	for i in 1 2 3 4 5 6; do
		[ "$i" = 4 ] && rm -f two
		echo "$i" >>notes && git add notes && git commit -qm "main $i" && "$BG" -q run >/dev/null 2>&1 || return 1
		[ "$i" = 5 ] && m5=$(db_sql "$1" "SELECT max(id) FROM runs")
	done
	m6=$(db_sql "$1" "SELECT max(id) FROM runs")
	git checkout -q -b feature HEAD~2
	for i in 1 2 3; do
		echo "f$i" >>notes && git add notes && git commit -qm "feature $i" && "$BG" -q run >/dev/null 2>&1 || return 1
	done
	git checkout -q main
	"$BG" -q run --machine other-runner --runs 2 >/dev/null 2>&1 || return 1
	"$BG" -q exclude "$(db_sql "$1" "SELECT min(id) FROM runs")" --reason "bad" >/dev/null || return 1
	db_sql "$1" "INSERT INTO runs(commit_id, machine_id, branch, dirty, status, source, started_at, uid)
		SELECT commit_id, machine_id, branch, 0, 'incomplete', source, started_at - 400 * 86400, 'old-incomplete'
		FROM runs WHERE id = $m6;
		INSERT INTO runs(commit_id, machine_id, branch, dirty, status, source, started_at, uid)
		SELECT commit_id, machine_id, branch, 0, 'incomplete', source, started_at - 7200, 'young-incomplete'
		FROM runs WHERE id = $m6;
		UPDATE runs SET started_at = started_at - 400 * 86400
		WHERE status = 'complete' AND id NOT IN ($m5, $m6)" || return 1
}
counts() { # runs results samples commits series
	db_sql "$BENCHGUARD_DB" "SELECT (SELECT count(*) FROM runs) || ' ' || (SELECT count(*) FROM results)
		|| ' ' || (SELECT count(*) FROM samples) || ' ' || (SELECT count(*) FROM commits)
		|| ' ' || (SELECT count(*) FROM series)"
}
orphans() {
	db_sql "$BENCHGUARD_DB" "SELECT (SELECT count(*) FROM results WHERE run_id NOT IN (SELECT id FROM runs))
		+ (SELECT count(*) FROM samples WHERE result_id NOT IN (SELECT id FROM results))
		+ (SELECT count(*) FROM run_facts WHERE run_id NOT IN (SELECT id FROM runs))
		+ (SELECT count(*) FROM run_tags WHERE run_id NOT IN (SELECT id FROM runs))
		+ (SELECT count(*) FROM outcomes WHERE run_id NOT IN (SELECT id FROM runs))
		+ (SELECT count(*) FROM checks WHERE run_id NOT IN (SELECT id FROM runs))"
}
left() { # the runs left: branch/machine-kind/status, sorted
	db_sql "$BENCHGUARD_DB" "SELECT coalesce(r.branch, '-') || '/' || CASE WHEN m.fingerprint = 'other-runner'
		THEN 'other' ELSE 'this' END || '/' || r.status || CASE WHEN r.exclude_reason IS NULL THEN '' ELSE '/x' END
		FROM runs r JOIN machines m ON m.id = r.machine_id ORDER BY 1" | tr '\n' ' '
}

suite() {
	local b=$1 before
	before=$(counts)
	check "$b: 13 runs to begin with: $before" test "${before%% *}" = 13
	expect_rc 0 "$BG" --json db prune --before 365d --keep 2 --dry-run
	check "$b: --dry-run counts: 4 runs, 4 results, 7 samples, 6 kept" test "$(jq -c \
		'[.dry_run, .runs, .results, .samples, .kept, .keep]' "$T/out")" = "[true,4,4,7,6,2]"
	check "$b: ... and deletes nothing" test "$(counts)" = "$before"

	expect_rc 0 "$BG" db prune --before 365d --keep 2
	check "$b: prune: exit 0, said" grep -q '^deleted 4 runs started before .* (4 results, 7 samples); kept 6 older runs' "$T/out"
	# Gone: M1 (excluded: no baseline uses it), M4 (s:a has M5 and M6,
	# which are recent), F1 and the old incomplete run.  Kept: M2 and M3
	# (the newest two that measured s:b), F2 and F3 (feature's newest
	# two), O1 and O2 (the other machine's), the young incomplete run.
	check "$b: what is left: $(left)" test "$(left)" = \
		"feature/this/complete feature/this/complete main/other/complete main/other/complete main/this/complete main/this/complete main/this/complete main/this/complete main/this/incomplete "
	check "$b: nothing stored under a deleted run is left" test "$(orphans)" = 0
	check "$b: commits and series stay" test "$(counts | cut -d' ' -f4-)" = "$(cut -d' ' -f4- <<<"$before")"
	expect_rc 0 "$BG" check
	check "$b: check still judges against a baseline" grep -q '^unchanged .*s:a' "$T/out"
	expect_rc 0 "$BG" db prune --before 365d --keep 2
	check "$b: again: nothing more" grep -q '^deleted 0 runs' "$T/out"

	# Incomplete runs younger than a day stay, whatever --before says.
	expect_rc 0 "$BG" --json db prune --before 1h --keep 0
	check "$b: --before 1h --keep 0 leaves the recent runs and the young incomplete one" \
		test "$(left)" = "main/this/complete main/this/complete main/this/incomplete "

	for bad in "" "--before all" "--before 2099-01-01" "--before 30d --keep -1" "--before yesterday"; do
		# shellcheck disable=SC2086
		expect_rc 2 "$BG" db prune $bad
		check "$b: db prune $bad: exit 2 ($(head -c 90 "$T/err"))" test $? = 0
	done
	expect_rc 2 "$BG" db info --before 30d
	check "$b: --before on db info: exit 2" test $? = 0
	check "$b: ... nothing deleted by them" test "$(left)" = "main/this/complete main/this/complete main/this/incomplete "
}

setup "$T/p.db" || { not_ok "the scenario is set up"; finish; exit; }
suite sqlite
expect_rc 2 "$BG" --db "$T/none.db" db prune --before 30d
check "a database that is not there: exit 2, not created" test ! -e "$T/none.db"

pg_start_or_end "db prune on PostgreSQL"
setup "$(pg_db prune)" || { not_ok "the scenario is set up on PostgreSQL"; finish; exit; }
suite postgresql
finish
