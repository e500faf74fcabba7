# t_suite.sh -- suite-level control on real runs: a benchmark program that
# reports 50 real series per run (tests/fixtures/bench/suite50.c), judged by
# `benchguard ci` at 100 A/A commits after a 20-commit history.  With "fdr"
# on (Benjamini-Hochberg across the suite) at most 5 of the 100 checks may
# raise any alert; the script prints how many would with fdr off.
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
git add benchguard.json && git commit -qm suite
export BENCHGUARD_DB="$T/suite.db"

mkdir -p "$T/ci"
start=$SECONDS
for i in $(seq 1 120); do
	echo "$i" >notes.txt
	git add notes.txt && git commit -qm "A/A commit $i"
	"$BG" -q ci --json >"$T/ci/$i.json" 2>>"$T/ci.err"
	echo $? >"$T/ci/$i.rc"
	if [ "$i" -gt 20 ]; then
		id=$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["run"]["id"])' "$T/ci/$i.json")
		"$BG" check --run "$id" --no-fdr --json >"$T/ci/$i.nofdr.json" 2>>"$T/ci.err"
	fi
done
echo "# 120 commits x 50 series measured and judged in $((SECONDS - start)) s"

python3 - "$T/ci" <<'P' >"$T/suite.txt"
import json, sys
d = sys.argv[1]
def alerts(path):
    r = json.load(open(path))["results"]
    assert len(r) == 50, len(r)
    return sum(x["verdict"] in ("regression", "improvement") for x in r), \
           sum(x["verdict"] == "regression" for x in r)
fdr = [alerts(f"{d}/{i}.json") for i in range(21, 121)]
nofdr = [alerts(f"{d}/{i}.nofdr.json") for i in range(21, 121)]
print("fdr", sum(a > 0 for a, _ in fdr), sum(r > 0 for _, r in fdr), sum(a for a, _ in fdr))
print("nofdr", sum(a > 0 for a, _ in nofdr), sum(r > 0 for _, r in nofdr), sum(a for a, _ in nofdr))
first = [json.load(open(f"{d}/{i}.json"))["summary"]["no-baseline"] for i in range(1, 21)]
print("history", sum(x == 50 for x in first))
P
read -r _ fdr_any fdr_reg fdr_series <<<"$(grep '^fdr ' "$T/suite.txt")"
read -r _ raw_any raw_reg raw_series <<<"$(grep '^nofdr ' "$T/suite.txt")"
echo "# fdr on:  $fdr_any of 100 checks raised an alert ($fdr_reg a regression; $fdr_series series flagged in all)"
echo "# fdr off: $raw_any of 100 checks would have ($raw_reg a regression; $raw_series series flagged in all)"
check "the first 20 commits build history (all 50 series no-baseline)" grep -q '^history 20$' "$T/suite.txt"
check "with fdr on, at most 5 of 100 A/A checks raise any alert ($fdr_any)" test "$fdr_any" -le 5
check "no ci run failed" bash -c "! grep -qv '^[01]$' $T/ci/*.rc"
finish
