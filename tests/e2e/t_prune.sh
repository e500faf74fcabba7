# t_prune.sh -- `benchguard db prune`: old runs deleted with everything
# stored under them, but every run a baseline still reads, whatever its age
# and whatever branch it was stored under: the baseline branch's walk from
# its tip and from the fork point of every branch, spares included.  So
# `check` judges the next run of main, and of a release branch forked long
# ago, exactly as it did before the prune.  --dry-run deletes nothing;
# commits, machines and series stay; a shallow clone, a cutoff within the
# last day and bad options are refused and change nothing.  The same counts
# on PostgreSQL when its server programs are here.
. "$(dirname "$0")/lib.sh"

new_repo "$T/repo" >/dev/null && cd "$T/repo" || exit 1
cat >bench.sh <<'S'
l=$(cat level)
awk -v l="$l" 'BEGIN { printf "BENCHGUARD a %.6f ms\nBENCHGUARD a %.6f ms\n", l, l * 1.001 }'
[ -f two ] && echo "BENCHGUARD b 5 ms"
true
S
cat >benchguard.json <<'J'
{ "baseline": { "window": 2, "min_runs": 2 }, "defaults": { "warmup": 0, "samples": 1 },
  "benchmarks": [ { "name": "s", "format": "lines", "command": "sh bench.sh" } ] }
J
printf '.benchguard/\ntwo\nlevel\n' >.gitignore
git add -A && git commit -qm suite
base=$(git rev-parse HEAD)

commit() { echo "$1" >>notes && git add notes && git commit -qm "$1"; }
# setup DB: main m1..m8 at 10.01 to 10.08 ms, each its own, so that a
# baseline's mean says which runs it took (m1 and m2 also measure s:b; m7
# far out, 30 ms; m7 and m8 run on a detached HEAD, as CI checks out, so they
# name no branch), `release` forked at m4 with r1 (excluded) and r2,
# `feature` off m8 with f1 and f2, m6 run again later by `run --commit`
# (m6b), two runs of another machine at m8, and an incomplete run; then
# every run made 400 days old.
setup() {
	export BENCHGUARD_DB=$1
	git checkout -q main && git branch -q -D release feature 2>/dev/null
	git reset -q --hard "$base"
	echo 10 >level && touch two
	for i in 1 2 3 4 5 6 7 8; do
		[ "$i" = 3 ] && rm -f two
		commit "m$i" || return 1
		echo "10.0$i" >level
		if [ "$i" -ge 7 ]; then
			git checkout -q --detach
			[ "$i" = 7 ] && echo 30 >level
		fi
		"$BG" -q run >/dev/null 2>&1 || return 1
		echo 10 >level
		git checkout -q main
	done
	git checkout -q -b release main~4
	for i in 1 2; do commit "r$i" && "$BG" -q run >/dev/null 2>&1 || return 1; done
	git checkout -q -b feature main
	for i in 1 2; do commit "f$i" && "$BG" -q run >/dev/null 2>&1 || return 1; done
	git checkout -q main
	"$BG" -q run --commit main~2 >/dev/null 2>&1 || return 1
	"$BG" -q run --machine other-runner --runs 2 >/dev/null 2>&1 || return 1
	"$BG" -q exclude "$(db_sql "$1" "SELECT r.id FROM runs r JOIN commits c ON c.id = r.commit_id
		WHERE c.sha = '$(git rev-parse release~1)'")" --reason "bad" >/dev/null || return 1
	db_sql "$1" "INSERT INTO runs(commit_id, machine_id, branch, dirty, status, source, started_at, uid)
		SELECT commit_id, machine_id, branch, 0, 'incomplete', source, started_at, 'incomplete'
		FROM runs WHERE id = (SELECT max(id) FROM runs);
		UPDATE runs SET started_at = started_at - 400 * 86400" || return 1
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
gone() { # the commits' subjects whose runs (of this machine) are gone, sorted
	db_sql "$BENCHGUARD_DB" "SELECT c.subject FROM commits c WHERE NOT EXISTS (SELECT 1 FROM runs r
		WHERE r.commit_id = c.id AND r.status = 'complete') ORDER BY 1" | tr '\n' ' '
}
# verdicts REF: check of a new run of a new commit on REF, as JSON rows
# (series, verdict, baseline runs, baseline mean), without storing it.
verdicts() {
	local db=$BENCHGUARD_DB
	git checkout -q "$1" && commit "probe" >/dev/null && echo 11 >level
	"$BG" -q run >/dev/null 2>&1
	"$BG" --json check | jq -c '[.results[] | [.series, .verdict, .baseline_runs, .baseline_mean]]'
	# The probe's run and commit go again, so that both states judge alike.
	local fk="PRAGMA foreign_keys = ON;"
	case $db in postgres*) fk= ;; esac
	db_sql "$db" "$fk DELETE FROM runs WHERE id = (SELECT max(id) FROM runs);
		DELETE FROM commits WHERE subject = 'probe'" >/dev/null
	git reset -q --hard HEAD~1 && echo 10 >level && git checkout -q main
}

suite() {
	local b=$1 before main_before rel_before
	before=$(counts)
	check "$b: 16 runs to begin with: $before" test "${before%% *}" = 16
	main_before=$(verdicts main)
	rel_before=$(verdicts release)
	check "$b: a release run is judged against main's runs at the fork: $rel_before" \
		grep -q '"s:a","[a-z]*",2,0.01004' <<<"$rel_before"
	expect_rc 0 "$BG" --json db prune --before 365d --dry-run
	check "$b: --dry-run counts: 6 runs, 5 results, 10 samples, 10 kept, 2 machines, 2 baselines" \
		test "$(jq -c '[.dry_run, .runs, .results, .samples, .kept, .machines, .baselines, .window]' "$T/out")" = "[true,6,5,10,10,2,2,2]"
	check "$b: ... and deletes nothing" test "$(counts)" = "$before"

	# A release branch judged against itself (its config's baseline branch)
	# keeps its own runs when named too: r2, its tip.
	expect_rc 0 "$BG" --json db prune --before 365d --dry-run --baseline-branch main --baseline-branch release
	check "$b: with release a baseline branch too: 5 runs go, 11 kept, from 3 commits" \
		test "$(jq -c '[.runs, .kept, .baselines, .baseline_branches]' "$T/out")" = '[5,11,3,["main","release"]]'

	expect_rc 0 "$BG" db prune --before 365d
	check "$b: prune: exit 0, said" grep -q '^deleted 6 runs started before .* (5 results, 10 samples); kept 10 older runs that the baselines of main read from 2 commits (branch tips and fork points), on 2 machines (window 2)$' "$T/out"
	# Gone: m5 (main's walk from m8 has its window of s:a at m7, m6 and
	# m6b, and the walk from release's fork starts at m4), r1 (excluded),
	# r2, f1 and f2 (no baseline reads a branch's own runs) and the
	# incomplete run.  Kept whatever their branch: m7 and m8 (detached),
	# m6 and m6b, m1 and m2 (the only runs of s:b), m3 and m4 (release's).
	check "$b: the runs gone: $(gone)" test "$(gone)" = "f1 f2 m5 r1 r2 "
	check "$b: the incomplete run went too" test "$(db_sql "$BENCHGUARD_DB" "SELECT count(*) FROM runs WHERE status = 'incomplete'")" = 0
	check "$b: nothing stored under a deleted run is left" test "$(orphans)" = 0
	check "$b: commits and series stay" test "$(counts | cut -d' ' -f4-)" = "$(cut -d' ' -f4- <<<"$before")"
	check "$b: main's next run is judged as before the prune" test "$(verdicts main)" = "$main_before"
	check "$b: so is the release branch's, forked long ago" test "$(verdicts release)" = "$rel_before"
	expect_rc 0 "$BG" db prune --before 365d
	check "$b: again: nothing more" grep -q '^deleted 0 runs' "$T/out"

	for bad in "" "--before all" "--before 2099-01-01" "--before 0d" "--before 12h" \
		"--before 30d --window -1" "--before yesterday" "--before 30d extra"; do
		# shellcheck disable=SC2086
		expect_rc 2 "$BG" db prune $bad
		check "$b: db prune $bad: exit 2 ($(head -c 90 "$T/err"))" test $? = 0
	done
	expect_rc 2 "$BG" db info --before 30d
	check "$b: --before on db info: exit 2" grep -q 'go with db prune' "$T/err"
	expect_rc 2 "$BG" db --window 3 bogus
	check "$b: an unknown subcommand is named first" grep -q 'unknown db subcommand "bogus"' "$T/err"
	check "$b: ... nothing deleted by them" test "$(gone)" = "f1 f2 m5 r1 r2 "

	# --window 0: nothing kept for baselines (a repository not needed).
	expect_rc 0 "$BG" db prune --before 365d --window 0
	check "$b: --window 0 deletes every old run" test "$(db_sql "$BENCHGUARD_DB" "SELECT count(*) FROM runs")" = 0
	check "$b: ... saying none were kept" grep -q 'none kept for baselines (--window 0)' "$T/out"
}

setup "$T/p.db" || { not_ok "the scenario is set up"; finish; exit; }
suite sqlite
expect_rc 2 "$BG" --db "$T/none.db" db prune --before 30d
check "a database that is not there: exit 2, not created" test ! -e "$T/none.db"
# A series one machine measured with two instruments: check takes a window
# of the candidate's (here the clock's, NULL), so every run of it stays.
setup "$T/i.db" >/dev/null || not_ok "the scenario is set up for instruments"
db_sql "$T/i.db" "UPDATE results SET instrument = 'counters' WHERE run_id IN (SELECT r.id FROM runs r
	JOIN commits c ON c.id = r.commit_id WHERE c.subject IN ('m5', 'm6', 'm7', 'm8'))"
inst_before=$(verdicts main)
check "two instruments: the clock's candidate has a baseline of clock runs: $inst_before" \
	grep -q '"s:a","[a-z]*",2,' <<<"$inst_before"
expect_rc 0 "$BG" db prune --before 365d
check "... prune keeps every run of that series" test "$(gone)" = "f1 f2 r1 r2 "
check "... and the candidate is judged as before" test "$(verdicts main)" = "$inst_before"
export BENCHGUARD_DB="$T/p.db"

# A shallow clone cannot tell what its baselines read.
setup "$T/s.db" >/dev/null || not_ok "the scenario is set up again"
git clone -q --depth 3 "file://$T/repo" "$T/shallow"
cd "$T/shallow" || exit 1
expect_rc 2 "$BG" --db "$T/s.db" db prune --before 365d
check "a shallow clone is refused (exit 2), saying why" grep -q 'shallow.*fetch the whole history' "$T/err"
check "... nothing deleted" test "$(BENCHGUARD_DB="$T/s.db" counts | cut -d" " -f1)" = 16
cd "$T/repo" || exit 1

pg_start_or_end "db prune on PostgreSQL"
setup "$(pg_db prune)" || { not_ok "the scenario is set up on PostgreSQL"; finish; exit; }
suite postgresql
finish
