# t_suite.sh -- suite-level control on real runs: a benchmark program that
# reports 50 real series per run (tests/fixtures/bench/suite50.c), judged by
# `benchguard ci` (its confirmation included) at 100 A/A commits after a
# 20-commit history, with the noisy neighbour (tests/noise.sh) busy from
# the first commit to the last.  With "fdr" on (Benjamini-Hochberg across
# the suite, in the first check and at every look of the confirmation) at
# most 5 of the 100 ci runs may raise any alert; the script prints how many
# series the first check alone, without fdr, would have flagged.
# BG_STAT_SIZE=small: 5 A/A commits, the claim reported, not asserted.
# Its claims are about timing: tests/run.sh runs it with nothing beside it.
# run.sh: alone
. "$(dirname "$0")/lib.sh"

cc -O2 -o "$T/suite50" "$FIX/bench/suite50.c" || { not_ok "building suite50"; finish; exit 1; }
new_repo "$T/r" >/dev/null
cd "$T/r" || exit 1
cat >benchguard.json <<J
{ "baseline": { "branch": "main", "window": 20, "min_runs": 20 },
  "thresholds": { "alpha": 0.01, "fdr": true, "min_change": 0.02, "min_effect": 0.8 },
  "defaults": { "warmup": 1, "samples": 5 },
  "benchmarks": [ { "name": "suite", "command": "$T/suite50", "format": "lines" } ] }
J
echo '.benchguard/' >.gitignore
git add .gitignore benchguard.json && git commit -qm suite
export BENCHGUARD_DB="$T/suite.db"
AA=$(stat_n 100 5)
noise_start 3000

mkdir -p "$T/ci"
start=$SECONDS
for i in $(seq 1 $((20 + AA))); do
	echo "$i" >notes.txt
	git add notes.txt && git commit -qm "A/A commit $i"
	"$BG" -q ci --json >"$T/ci/$i.json" 2>>"$T/ci.err"
	echo $? >"$T/ci/$i.rc"
	if [ "$i" -gt 20 ]; then
		id=$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["run"]["id"])' "$T/ci/$i.json")
		"$BG" check --run "$id" --no-fdr --json >"$T/ci/$i.nofdr.json" 2>>"$T/ci.err"
	fi
done
noise_stop
echo "# $((20 + AA)) commits x 50 series measured and judged in $((SECONDS - start)) s, beside the noisy neighbour"

python3 - "$T/ci" "$AA" <<'P' >"$T/suite.txt"
import json, sys
d, last = sys.argv[1], 20 + int(sys.argv[2])
def alerts(path):
    r = json.load(open(path))["results"]
    assert len(r) == 50, len(r)
    return sum(x["verdict"] in ("regression", "improvement") for x in r), \
           sum(x["verdict"] == "regression" for x in r)
fdr = [alerts(f"{d}/{i}.json") for i in range(21, last + 1)]
nofdr = [alerts(f"{d}/{i}.nofdr.json") for i in range(21, last + 1)]
print("fdr", sum(a > 0 for a, _ in fdr), sum(r > 0 for _, r in fdr), sum(a for a, _ in fdr))
print("nofdr", sum(a > 0 for a, _ in nofdr), sum(r > 0 for _, r in nofdr), sum(a for a, _ in nofdr))
first = [json.load(open(f"{d}/{i}.json"))["summary"]["no-baseline"] for i in range(1, 21)]
print("history", sum(x == 50 for x in first))
P
read -r _ fdr_any fdr_reg fdr_series <<<"$(grep '^fdr ' "$T/suite.txt")"
read -r _ raw_any raw_reg raw_series <<<"$(grep '^nofdr ' "$T/suite.txt")"
echo "# figure: t_suite: ci, fdr on: $fdr_any of $AA runs raised an alert ($fdr_reg a regression; $fdr_series series flagged in all)"
echo "# figure: t_suite: the first check alone, fdr off: $raw_any of $AA would have ($raw_reg a regression; $raw_series series flagged in all)"
check "the first 20 commits build history (all 50 series no-baseline)" grep -q '^history 20$' "$T/suite.txt"
claim "with fdr on, at most 5 of $AA A/A ci runs raise any alert ($fdr_any)" test "$((100 * fdr_any))" -le "$((5 * AA))"
check "no ci run failed" bash -c "! grep -qv '^[01]$' $T/ci/*.rc"
finish
