# t_calibrate.sh -- `calibrate` end to end: N runs at HEAD, stored and
# tagged calibrate=1; per series the run-to-run and within-run CV, MDE,
# samples and runs worth spending, checked against Python's statistics
# module on the stored samples and against hand-worked values for a
# benchmark whose spread is known.
. "$(dirname "$0")/lib.sh"

new_repo "$T/r" >/dev/null
cd "$T/r" || exit 1
# Run k prints 4 samples base_k + (-0.3, -0.1, 0.1, 0.3) ms, base 11, 12, 10 ms
# for k = 1, 2, 3: within-run variance 0.2/3 ms^2, run means 11, 12, 10 ms.
cat >spread.sh <<S
n=\$(cat "$T/counter" 2>/dev/null || echo 0); n=\$((n + 1)); echo \$n >"$T/counter"
awk -v b=\$((10 + n % 3)) 'BEGIN { for (d = -3; d <= 3; d += 2) printf "BENCHGUARD lat %.1f ms\n", b + d / 10 }'
S
cat >benchguard.json <<'J'
{
  "project": "t",
  "defaults": { "warmup": 0, "samples": 3, "timeout": 20 },
  "benchmarks": [
    { "name": "spread", "format": "lines", "command": "sh spread.sh" },
    { "name": "noop", "command": "true" }
  ]
}
J
git add . && git commit -qm "suite"

check "calibrate --runs 3 --change 0.4 --json exits 0" bash -c "
	\"$BG\" calibrate --runs 3 --change 0.4 --json >$T/cal.json 2>$T/cal.err"
check "the three runs are stored, complete and tagged calibrate=1" [ \
	"$(sqlite3 .benchguard/results.db "SELECT count(*) FROM runs r JOIN run_tags t ON t.run_id = r.id
	   WHERE t.key = 'calibrate' AND t.value = '1' AND r.status = 'complete'")" = 3 ]
check "the known spread gives the hand-worked figures" python3 - "$T/cal.json" <<'P'
import json, math, sys
d = json.load(open(sys.argv[1]))
assert d["runs"] == 3 and d["window"] == 20 and d["change"] == 0.4 and len(d["run_ids"]) == 3, d
s = {x["series"]: x for x in d["series"]}["spread:lat"]
close = lambda a, b: abs(a - b) <= 1e-9 * abs(b)
# run means 11, 12, 10 ms: SD 1 ms; within-run SD sqrt(0.2/3) ms.
assert close(s["mean"], 0.011) and s["runs"] == 3 and s["samples_per_run"] == 4, s
assert close(s["run_cv"], 1 / 11), s
assert close(s["within_cv"], math.sqrt(0.2 / 3) / 11), s
# s2_between = 1 - (0.2/3)/4 ms^2; samples worth it: 4 * (0.2/3) / s2_between < 1 -> 1.
assert close(s["s2_between"], (1 - 0.2 / 12) * 1e-6), s
assert s["samples_suggested"] == 1, s
# MDE = (t(.99,19) + t(.8,19)) * sqrt(1 + 1/20) * 1/11, quantiles from scipy.stats.t.ppf:
# (2.539483190622288 + 0.8609505502689289) * 1.02469507659596 = 3.484407712582012.
assert abs(s["mde"] - 3.484407712582012 / 11) <= 1e-8, s
# With 1 sample per run a run mean's variance is 1 - 0.2/12 + 0.2/3 = 1.05 ms^2;
# MDE(W) = factor(W) * sqrt(1.05) / 11 (scipy): W=7 0.40316 > 0.4, W=8 0.38474.
assert s["runs_needed"] == 8, s
P
check "every series matches the statistics module on the stored samples" python3 - "$T/cal.json" .benchguard/results.db <<'P'
import json, math, sqlite3, statistics as st, sys
d = json.load(open(sys.argv[1]))
db = sqlite3.connect(sys.argv[2])
assert {"spread:lat", "noop:wall_time"} <= {x["series"] for x in d["series"]}, d
for s in d["series"]:
    runs = []
    for rid in d["run_ids"]:
        v = [x for (x,) in db.execute(
            "SELECT p.value FROM samples p JOIN results x ON x.id = p.result_id"
            " JOIN series s ON s.id = x.series_id WHERE x.run_id = ? AND s.benchmark = ?"
            " AND s.metric = ? ORDER BY p.idx", (rid, s["benchmark"], s["metric"]))]
        runs.append(v)
    # A series some runs did not measure (calibrate warns) counts the others.
    runs = [v for v in runs if v]
    assert len(runs) == s["runs"], (s, [len(v) for v in runs])
    if len(runs) < 2:
        assert s["mean"] is None and s["run_cv"] is None, s
        continue
    means = [st.mean(v) for v in runs]
    m = st.mean(means)
    if m == 0:
        assert s["run_cv"] is None and s["runs_needed"] is None, s
        continue
    close = lambda a, b: abs(a - b) <= 1e-9 * abs(b) + 1e-300
    assert close(s["mean"], m), (s, m)
    assert close(s["run_cv"], st.stdev(means) / abs(m)), s
    n = [len(v) for v in runs]
    if min(n) >= 2:
        w = sum((len(v) - 1) * st.variance(v) for v in runs) / sum(k - 1 for k in n)
        assert close(s["within_cv"], math.sqrt(w) / abs(m)), s
        b = max(0.0, st.variance(means) - w * st.mean([1 / k for k in n]))
        assert abs(s["s2_between"] - b) <= 1e-9 * st.variance(means) + 1e-300, (s, b)
        want = 1000 if b == 0 and w > 0 else max(1, min(1000, math.ceil(4 * w / b - 1e-12))) if w > 0 else 1
        assert s["samples_suggested"] == want, (s, want)
    assert abs(s["mde"] - 3.484407712582012 * st.stdev(means) / abs(m)) <= 1e-8 * s["mde"] + 1e-300, s
P
check "the table says it in words" bash -c "
	\"$BG\" calibrate --runs 3 --filter spread >$T/table 2>/dev/null &&
	grep -q 'spread:lat' $T/table && grep -q 'run-to-run cv' $T/table && grep -q 'runs for 5%' $T/table &&
	grep -q '9.09%' $T/table && grep -q '4 -> 1' $T/table"
check "--runs 1: exit 2" expect_rc 2 "$BG" calibrate --runs 1
check "... with a message" grep -q -- '--runs needs a whole number from 2 to 1000000' "$T/err"
check "--change 0: exit 2" expect_rc 2 "$BG" calibrate --change 0
check "--change 11: exit 2, naming both limits" bash -c "
	\"$BG\" calibrate --change 11 2>&1 >/dev/null | grep -q 'above 0 and at most 10' && [ \${PIPESTATUS[0]} = 2 ]"
# calibrate measures HEAD's working tree: run's --commit and --retry-build
# are refused, never taken and ignored.
for o in "--commit HEAD" "--retry-build"; do
	check "calibrate $o: exit 2" expect_rc 2 "$BG" calibrate --runs 2 $o
	check "... not an option of calibrate" grep -q -- "^benchguard: ${o%% *} is not an option of calibrate" "$T/err"
done
cat >"$T/failing.json" <<'J'
{ "benchmarks": [ { "name": "bad", "command": "false" }, { "name": "noop", "command": "true" } ] }
J
check "a failing benchmark: exit 3" expect_rc 3 "$BG" --config "$T/failing.json" calibrate --runs 2 --json
check "... the others still calibrated" python3 -c "
import json; d = json.load(open('$T/out')); assert [s['series'] for s in d['series'] if s['series'].startswith('noop:')], d"
# A series printed in one run only: no figures, and the table says '-' for
# each of them (samples/run read 'nan -> ?').
cat >"$T/once.sh" <<'S'
#!/bin/sh
n=$(cat "$0.n" 2>/dev/null || echo 0); n=$((n + 1)); echo "$n" >"$0.n"
echo "BENCHGUARD t 1$n ms"
[ "$n" = 1 ] && echo "BENCHGUARD rare 5 ms"
exit 0
S
chmod +x "$T/once.sh"
echo "{ \"benchmarks\": [ { \"name\": \"x\", \"command\": \"$T/once.sh\", \"format\": \"lines\" } ] }" >"$T/once.json"
"$BG" --config "$T/once.json" calibrate --runs 3 >"$T/table" 2>"$T/err"
check "a series in one run of three: exit $?, warned, every figure '-', no nan" bash -c "
	grep -q 'x:rare was measured in 1 run only' $T/err &&
	grep -qE '^x:rare +1 +- +- +- +- +- +-\$' $T/table && ! grep -qi nan $T/table"
finish
