# t_modes.sh -- what a run's summary and a window's screen leave out, judged
# end to end by `check` on runs stored with `import`: a slow mode that grows
# from none to a fifth of the samples (cache misses at 10x) is a regression,
# where Tukey's fences once left the whole mode out and called it unchanged;
# a quantised timer (10 or 11 us) whose share of 11s moves by a tenth is
# unchanged at its min_change of 2%, where the fences once read the baseline
# as exactly 10 and called +1% a +3% regression; and in a window of 7 a run 6 SDs from the
# others stays (7 normal runs put their farthest there often), where it was
# once left out and a +1% candidate turned significant.
. "$(dirname "$0")/lib.sh"

new_repo "$T/r" >/dev/null
cd "$T/r" || exit 1
cat >benchguard.json <<'J'
{ "baseline": { "branch": "main", "window": 7, "min_runs": 5 },
  "thresholds": { "alpha": 0.01, "fdr": false, "min_change": 0.005, "min_effect": 0.5,
                  "metrics": { "q": { "min_change": 0.02 } } },
  "benchmarks": [ { "name": "x", "command": "true" } ] }
J
git add benchguard.json && git commit -qm "suite"
export BENCHGUARD_DB="$T/db"

# store SLOW ELEVENS RUNMEAN: one run at a new commit on machine m1 with
#  x:m, 20 samples near 100 us of which SLOW are 1000 us (misses);
#  x:q, 20 samples of 10 us of which ELEVENS are 11 us;
#  x:w, 3 samples of RUNMEAN us.
store() {
	echo "$*" >>log.txt && git add log.txt && git commit -qm "run $*" || return 1
	awk -v slow="$1" -v el="$2" -v w="$3" 'BEGIN {
		for (i = 0; i < 20; i++) printf "BENCHGUARD m %.1f us\n", i < slow ? 1000 : 100 + (i % 3) / 10
		for (i = 0; i < 20; i++) printf "BENCHGUARD q %d us\n", i < el ? 11 : 10
		for (i = 0; i < 3; i++) printf "BENCHGUARD w %s us\n", w }' >"$T/s.txt"
	"$BG" import "$T/s.txt" --format lines --name x --machine m1 --json |
		python3 -c 'import json,sys; print(json.load(sys.stdin)["run"])'
}
# Seven baseline runs: no misses; a fifth of q's samples 11 us; w's run
# means 99.46 100.07 101.46 100.17 99.81 99.76 100.15 (101.46 is 6 SDs of
# the others from their mean).
for w in 99.46 100.07 101.46 100.17 99.81 99.76 100.15; do
	store 0 4 "$w" >/dev/null || echo "# store failed"
done
# The candidate: a fifth of m's samples miss; three tenths of q's are 11 us
# (+0.98%); w at 101 (+0.9% on the window, p 0.12 with all seven runs).
id=$(store 4 6 101)
"$BG" check --run "$id" --machine m1 --json >"$T/v.json" 2>"$T/v.err"
echo $? >"$T/v.rc"
# verdict SERIES: its verdict, rule, change and left-out counts.
verdict() {
	python3 - "$T/v.json" "$1" <<'P'
import json, sys
d = json.load(open(sys.argv[1]))
r = [r for r in d["results"] if r["series"] == sys.argv[2]][0]
print(r["verdict"], r.get("rule"), "%.4f" % r["change"], r.get("outlier_samples"), r.get("baseline_outliers"))
P
}
m=$(verdict x:m) q=$(verdict x:q) w=$(verdict x:w)
echo "# x:m $m; x:q $q; x:w $w"
check "a slow mode grown to a fifth of the samples is a regression" test "${m%% *}" = regression
check "... of its whole change (+180%, not the fences' +0.2%)" \
	python3 -c 'import sys; c = float(sys.argv[1]); sys.exit(not 1.7 < c < 1.9)' "$(echo "$m" | cut -d' ' -f3)"
check "... none of its samples left out" test "$(echo "$m" | cut -d' ' -f4)" = 0
check "a quantised timer's share of 11s up a tenth is unchanged" test "${q%% *}" = unchanged
check "... at its own +0.98%, not +3%" \
	python3 -c 'import sys; c = float(sys.argv[1]); sys.exit(not 0.0095 < c < 0.0100)' "$(echo "$q" | cut -d' ' -f3)"
check "a run 6 SDs out in a window of 7 stays: +1% is unchanged" test "${w%% *}" = unchanged
check "... and no baseline run was left out" test "$(echo "$w" | cut -d' ' -f5)" = 0
check "check exits 1 for the regression" test "$(cat "$T/v.rc")" = 1

# A database of the release before (schema 14), whose results were
# summarised with every far-out sample left out: x:q's baseline runs read
# 10 us there.  Opening it sums them again, and the verdict is the one above,
# not a regression of a baseline summarised one way against a candidate
# summarised the other.
cp "$T/db" "$T/old.db"
sqlite3 "$T/old.db" "UPDATE results SET robust_mean = 1.0e-5, outliers = 4
	WHERE series_id = (SELECT id FROM series WHERE benchmark = 'x' AND metric = 'q')
	  AND run_id <> $id; PRAGMA user_version = 14"
"$BG" --db "$T/old.db" check --run "$id" --machine m1 --json >"$T/v.json" 2>"$T/v.err"
q2=$(verdict x:q)
echo "# from schema 14: x:q $q2"
check "a schema-14 database's summaries are made again: x:q unchanged" test "$q2" = "$q"
check "... its baseline runs read 10.2 again" test "$(sqlite3 "$T/old.db" "SELECT count(*) FROM results
	WHERE series_id = (SELECT id FROM series WHERE benchmark = 'x' AND metric = 'q')
	  AND abs(robust_mean - 1.02e-5) < 1e-15 AND outliers = 0")" = 7
check "... and the upgrade is said" grep -q 'upgraded from schema version 14 to 15' "$T/v.err"

finish
