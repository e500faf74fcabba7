# t_simulate.sh -- the `simulate` instrument where users meet it: `benchguard
# run`, `history` and `ci` on a real git repository, the benchmark run
# under Valgrind's callgrind (spin.c, a fixed CPU-bound workload).
#
#   stability: over 20 runs the instructions series' run-to-run CV is at
#              most 0.05%.
#   A/A:       100 A/A commits on main judged by ci beside the noisy
#              neighbour (tests/noise.sh, bursts on both cores): no ci run
#              exits 1.
#   power:     20 pull-request branches that make the work 0.5% larger,
#              judged by ci beside the neighbour: all 20 flagged, on
#              spin:instructions.
#   a step:    a commit on main with 0.5% more work is flagged by ci,
#              found by bisect and shown as a change point by report.
#   identity:  a run under another Valgrind is not compared with the
#              baseline (no-baseline, not a regression).
#
# BG_STAT_SIZE=small (CI) runs 6 A/A commits and 2 branches after a window
# of 5.  The claims are asserted at both sizes: an instruction count does
# not move with the neighbour (CV 0% over 20 runs), so none of 6 A/A
# commits may exit 1 and both branches must, as at full size.
. "$(dirname "$0")/lib.sh"

if ! command -v valgrind >/dev/null 2>&1; then
	skip "the simulate instrument" "skipped: valgrind not installed (make deps installs it)"
	finish
	exit 0
fi

RUNS=20
AA=$(stat_n 100 6)
BR=$(stat_n 20 2)
HIST=$(stat_n 20 5)
ROUNDS=2000000
MORE=$((ROUNDS * 1005 / 1000)) # 0.5% more work
cc -O2 -o "$T/spin" "$FIX/bench/spin.c" || { not_ok "building spin"; finish; exit 1; }
new_repo "$T/r" >/dev/null && cd "$T/r" || exit 1
echo '.benchguard/' >.gitignore
# The work is in the repository (rounds.txt, which spin reads itself: no
# shell simulated beside it), as code would be: compare and bisect measure
# each commit's checkout with the current suite.
cat >benchguard.json <<J
{ "baseline": { "branch": "main", "window": $HIST, "min_runs": $HIST },
  "defaults": { "measure": ["simulate"], "timeout": 60 },
  "benchmarks": [ { "name": "spin", "command": "$T/spin @rounds.txt" } ] }
J
suite() { echo "$1" >rounds.txt; }
suite "$ROUNDS"
git add .gitignore benchguard.json rounds.txt && git commit -qm "suite"
export BENCHGUARD_DB="$T/sim.db"

# Stability: 20 runs of one commit.
expect_rc 0 "$BG" run --runs "$RUNS"
check "run under simulate stores spin:instructions" grep -q "spin:instructions" "$T/err"
"$BG" history spin:instructions --json --limit "$RUNS" >"$T/hist.json"
cv=$(python3 - "$T/hist.json" <<'P'
import json, statistics, sys
rows = json.load(open(sys.argv[1]))
rows = rows.get("rows", rows) if isinstance(rows, dict) else rows
v = [r["mean"] for r in rows]
print(f"{len(v)} {statistics.stdev(v) / statistics.mean(v) * 100:.6f} {min(v):.0f} {max(v):.0f}")
P
)
read -r cv_n cv_pct cv_min cv_max <<<"$cv"
echo "# figure: t_simulate: $cv_n runs of spin under callgrind: instructions CV $cv_pct% (min $cv_min, max $cv_max)"
check "20 runs stored" test "$cv_n" = "$RUNS"
check "instructions CV over 20 runs <= 0.05% ($cv_pct%)" \
	python3 -c "import sys; sys.exit(0 if float('$cv_pct') <= 0.05 else 1)"
sqlite3 "$BENCHGUARD_DB" "SELECT DISTINCT instrument FROM results r JOIN series s ON s.id = r.series_id WHERE s.metric = 'instructions'" >"$T/inst"
check "the instrument and Valgrind's version are stored with the results" \
	grep -qx "simulate callgrind valgrind-[0-9.]*" "$T/inst"

noise_start 3000
start=$SECONDS
for i in $(seq 1 "$HIST"); do
	echo "h$i" >notes.txt && git add notes.txt && git commit -qm "history $i"
	ci_timed history "$i"
done
for i in $(seq 1 "$AA"); do
	git checkout -q main
	echo "$i" >notes.txt && git add notes.txt && git commit -qm "A/A commit $i"
	ci_timed aa "$i"
	if [ "$i" -le "$BR" ]; then
		git checkout -q -b "more$i" main
		suite "$MORE"
		git commit -qam "spin does 0.5% more work"
		ci_timed slow "$i"
	fi
done
git checkout -q main
noise_stop
echo "# $AA A/A commits and $BR branches judged by ci in $((SECONDS - start)) s, beside the noisy neighbour"

ci_summary spin:instructions
read -r _ aa_n _ aa_one aa_bad _ <<<"$(grep '^aa ' "$T/summary.txt")"
read -r _ sl_n _ sl_one sl_bad sl_flag _ <<<"$(grep '^slow ' "$T/summary.txt")"
check "the history's ci runs all succeeded" bash -c "! awk '\$1 == \"history\" && \$3 != 0' $T/ci.txt | grep -q ."
check "no A/A or branch ci run failed (exit 2 or 3)" test "$((aa_bad + sl_bad))" = 0
check "simulate A/A under noise: 0 of $aa_n ci runs exit 1 ($aa_one)" test "$aa_one" = 0
check "simulate power under noise: +0.5% work flagged on $sl_flag of $sl_n branches (all)" \
	test "$sl_flag" = "$sl_n"
check "every +0.5% branch exits 1 ($sl_one of $sl_n)" test "$sl_one" = "$sl_n"
python3 - "$T/ci/slow-1.json" <<'P' >"$T/rule" || true
import json, sys
d = json.load(open(sys.argv[1]))
for r in d["results"]:
    if r.get("series") == "spin:instructions":
        print(r.get("verdict"), r.get("rule", ""), r.get("change"))
P
echo "# spin:instructions on branch 1: $(cat "$T/rule")"

# A real step on main, between two commits of no change: bisect finds it
# and the trend report shows it, as for any series.
git checkout -q main
good=$(git rev-parse HEAD)
echo a >notes.txt && git commit -qam "before the step"
ci_timed main 1
suite "$MORE" && git commit -qam "the step: spin does 0.5% more work"
step=$(git rev-parse HEAD)
ci_timed main 2
for k in 3 4 5 6 7; do
	echo "a$k" >notes.txt && git commit -qam "after the step $k"
	ci_timed main "$k"
done
bad=$(git rev-parse HEAD)
check "ci flagged the step on main (exit 1)" bash -c "grep -q '^main 2 1 ' $T/ci.txt"
expect_rc 0 "$BG" bisect --good "$good" --bad "$bad" --json
cp "$T/out" "$T/bisect.json"
check "bisect names the step's commit on spin:instructions" python3 - "$T/bisect.json" "$step" <<'P'
import json, sys
d = json.load(open(sys.argv[1]))
print("# bisect:", d.get("first_bad", "")[:12], d.get("verdict"), d.get("change"), d.get("series"))
assert d["first_bad"] == sys.argv[2], d["first_bad"]
P
"$BG" report --format json -o "$T/rep.json" 2>"$T/rep.err"
"$BG" report --format markdown -o "$T/rep.md" 2>>"$T/rep.err"
"$BG" report -o "$T/rep.html" 2>>"$T/rep.err"
check "the trend report has the step in spin:instructions, with its instrument" \
	python3 - "$T/rep.json" "$step" <<'P'
import json, sys
d = json.load(open(sys.argv[1]))
s = [x for x in d["series"] if x["series"] == "spin:instructions"]
assert len(s) == 1, [x["series"] for x in d["series"]]
s = s[0]
assert s["instrument"].startswith("simulate callgrind valgrind-"), s["instrument"]
cps = [(c["first_after"], round(c["change"], 4), c["verdict"]) for c in s["change_points"]]
print("# report change points:", [(a[:12], b, c) for a, b, c in cps])
assert [c for c in cps if c[0] == sys.argv[2] and c[2] == "regression"], cps
P
check "... and no \"nan\" where a near-deterministic verdict has no p" \
	bash -c "! grep -qiw nan $T/rep.md && ! grep -qiw nan $T/rep.html"

# Another Valgrind is another instrument: the baseline does not carry over.
sqlite3 "$BENCHGUARD_DB" "UPDATE results SET instrument = 'simulate callgrind valgrind-0.0.1' WHERE instrument LIKE 'simulate %'"
git checkout -q main
echo "v" >notes.txt && git commit -qam "after a Valgrind upgrade"
"$BG" -q ci --json >"$T/upgrade.json" 2>"$T/upgrade.err"
rc=$?
check "a new Valgrind version is not a regression (ci exit $rc)" test "$rc" = 0
check "... the series has no baseline yet" python3 - "$T/upgrade.json" <<'P'
import json, sys
d = json.load(open(sys.argv[1]))
rows = [r for r in d["results"] if r.get("series") == "spin:instructions"]
sys.exit(0 if rows and rows[0].get("verdict") == "no-baseline" else 1)
P

# A benchmark that prints a series callgrind measures too fails, saying so:
# its 5 and callgrind's count were one series of two samples, CV 141%.
new_repo "$T/clash" >/dev/null && cd "$T/clash" || exit 1
cat >benchguard.json <<'J'
{ "defaults": { "warmup": 0, "samples": 1 },
  "benchmarks": [ { "name": "l", "format": "lines", "measure": ["time", "simulate"],
                    "command": "echo BENCHGUARD instructions 5 instr" } ] }
J
git add -A && git commit -qm clash
"$BG" --db "$T/clash.db" run >"$T/out" 2>"$T/err"
check "a benchmark printing \"instructions\" under simulate fails, saying why" bash -c "
	grep -q 'l: FAILED: its output reports \"instructions\", which the simulate instrument measures too' '$T/err' &&
	[ \$(sqlite3 '$T/clash.db' \"SELECT count(*) FROM series WHERE metric = 'instructions'\") = 0 ]"

# A benchmark that leaves a process running (a server started with &): it
# is killed once the command ends, as under `time`, and its cut-short
# callgrind file is not counted; the command's own is.  It failed the
# benchmark, and Valgrind's gdbserver FIFOs of the killed process stayed.
new_repo "$T/left" >/dev/null && cd "$T/left" || exit 1
cat >benchguard.json <<'J'
{ "defaults": { "warmup": 0, "samples": 1 },
  "benchmarks": [ { "name": "bg", "measure": ["time", "simulate"],
                    "command": "sleep 5 & sleep 0.5" } ] }
J
git add -A && git commit -qm left && mkdir -p "$T/left-tmp"
TMPDIR="$T/left-tmp" "$BG" --db "$T/left.db" run >"$T/out" 2>"$T/err"
check "a benchmark leaving a process running under simulate: exit $?, its instructions stored" bash -c "
	[ \$(sqlite3 '$T/left.db' \"SELECT count(*) FROM series WHERE metric IN ('instructions', 'wall_time')\") = 2 ]"
check "... saying a process's simulation was not counted" \
	grep -q '"bg": 1 process it started ended before its simulation did' "$T/err"
check "... and leaving no Valgrind FIFO behind" bash -c "! ls '$T/left-tmp' | grep -q vgdb"
finish
