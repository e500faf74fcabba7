# t_steps.sh -- bisect in both directions, from the report's steps, and one
# change figure in every command, on a real repository.
#
# A benchmark of set values (the `lines` format) reports a time (ms, lower
# is better) and a throughput (MB/s, higher is better) from one run, with
# about 1% noise from a shared counter.  Its history has 64 commits: at S22
# the time grows 2.5x (the throughput falls 60%, 5,268 -> 2,107 MB/s), at
# S42 it comes back to the start.  The nightly runs are every fourth commit.
#   - bisect over the slowdown names S22, a regression; over the recovery
#     S42, an improvement; over the whole range it says the ends do not
#     differ, with the figures of both series;
#   - the report finds both steps, and `bisect --step` from each finds its
#     commit; the paired runs the bisects leave (20 and more on a commit)
#     stay out of the trend, and with --include-paired are one point each;
#   - on the same two commits, check, compare, bisect and report print the
#     same change for both series, within 0.1 percentage points;
#   - over a slowdown in 40 small steps, bisect says that the change at the
#     commit it names is not significant (JSON, stderr and text).
. "$(dirname "$0")/lib.sh"

commit() { git add -A && git commit -qm "$1" && git rev-parse HEAD; }

new_repo "$T/r" >/dev/null
cd "$T/r" || exit 1
echo 0.01 >"$T/noise"
# One run: three samples of each series around LEVEL (ms) times the noise.
cat >bench.sh <<S
n=\$(cat "$T/ctr" 2>/dev/null || echo 0); n=\$((n + 1)); echo \$n >"$T/ctr"
awk -v n=\$n -v l=\$(cat level) -v a=\$(cat "$T/noise") 'BEGIN {
	m = l * (1 + a * sin(2.3 * n))
	for (d = -1; d <= 1; d++) {
		t = m * (1 + a / 10 * d)
		printf "BENCHGUARD time %.6f ms\n", t
		printf "BENCHGUARD tp %.6f MB/s\n", 52680 / t
	} }'
S
cat >benchguard.json <<'J'
{ "baseline": { "branch": "main", "window": 5, "min_runs": 5 },
  "thresholds": { "alpha": 0.01, "min_change": 0.02, "min_effect": 0.8 },
  "defaults": { "warmup": 0, "samples": 1 },
  "benchmarks": [ { "name": "set", "format": "lines", "command": "sh bench.sh" } ] }
J
echo '.benchguard/' >.gitignore
echo 10 >level
declare -a S
S[0]=$(commit "S0: 10 ms, 5268 MB/s")
for i in $(seq 1 63); do
	case $i in
	22) echo 25 >level; msg="S$i: the slowdown (2.5x the time, -60% throughput)" ;;
	42) echo 10 >level; msg="S$i: the recovery" ;;
	*) echo "$i" >notes.txt; msg="S$i: nothing" ;;
	esac
	S[$i]=$(commit "$msg")
done
export BENCHGUARD_DB="$T/steps.db"

# The nightly runs: every fourth commit, one run each.
for i in $(seq 0 4 63); do
	"$BG" -q run --commit "${S[$i]}" >/dev/null 2>"$T/err" || { cat "$T/err"; break; }
done
check "16 nightly runs stored" test "$(sqlite3 "$BENCHGUARD_DB" "SELECT count(*) FROM runs")" = 16

expect_rc 0 "$BG" report --since all --format json
cp "$T/out" "$T/report.json"
check "the report finds the slowdown and the recovery in both series, in their ranges" \
	/usr/bin/python3 - "$T/report.json" "${S[20]}" "${S[24]}" "${S[40]}" "${S[44]}" <<'P'
import json, sys
d = json.load(open(sys.argv[1]))
b20, a24, b40, a44 = sys.argv[2:]
steps = {s["series"]: s["change_points"] for s in d["series"]}
for name, down, up in (("set:time", 1.5, -0.6), ("set:tp", -0.6, 1.5)):
    st = steps[name]
    print("#", name, [(x["last_before"][:7], x["first_after"][:7], round(x["change"], 4), x["verdict"]) for x in st])
    assert len(st) == 2, st
    assert (st[0]["last_before"], st[0]["first_after"]) == (b20, a24), st[0]
    assert (st[1]["last_before"], st[1]["first_after"]) == (b40, a44), st[1]
    assert abs(st[0]["change"] - down) < 0.05 and st[0]["verdict"] == "regression", st[0]
    assert abs(st[1]["change"] - up) < 0.05 and st[1]["verdict"] == "improvement", st[1]
P

# ------------------------------------------------------ the two directions
expect_rc 0 "$BG" bisect --good "${S[4]}" --bad "${S[32]}" --json
cp "$T/out" "$T/down.json"
check "bisect over the slowdown names S22 as a regression" \
	/usr/bin/python3 - "$T/down.json" "${S[22]}" "${S[21]}" <<'P'
import json, sys
d = json.load(open(sys.argv[1]))
print("# slowdown:", d["first_changed"][:7], d["verdict"], d["series"], "delta", round(d["delta"], 4), "p", d["p"])
assert d["first_changed"] == sys.argv[2] and d["first_bad"] == sys.argv[2], d
assert d["last_good"] == sys.argv[3]
assert d["verdict"] == "regression", d["verdict"]
want = {"set:time": 1.5, "set:tp": -0.6}[d["series"]]
assert abs(d["delta"] - want) < 0.03, (d["series"], d["delta"])
assert d["change"] > 0 and d["p"] < 0.01 and d["significant"] is True
assert [s["verdict"] for s in d["steps"][:2]] == ["good", "bad"]
assert all(s["verdict"] in ("good", "bad") for s in d["steps"])
P
check "... with a line per step and per phase, no pair lines without -v" bash -c "
	grep -q 'step 1 of about' $T/err && grep -q 'a regression: searching for the first commit where it got worse' $T/err &&
	grep -q 'confirming the culprit: ' $T/err && ! grep -q 'pair [0-9]* of' $T/err &&
	! grep -q 'checking out' $T/err"
echo "# stderr: $(wc -l <"$T/err") lines"

expect_rc 0 "$BG" bisect --good "${S[32]}" --bad "${S[60]}" --json
cp "$T/out" "$T/up.json"
check "bisect over the recovery names S42 as an improvement" \
	/usr/bin/python3 - "$T/up.json" "${S[42]}" "${S[41]}" <<'P'
import json, sys
d = json.load(open(sys.argv[1]))
print("# recovery:", d["first_changed"][:7], d["verdict"], d["series"], "delta", round(d["delta"], 4), "p", d["p"])
assert d["first_changed"] == sys.argv[2], d
assert d["last_good"] == sys.argv[3]
assert d["verdict"] == "improvement", d["verdict"]
want = {"set:time": -0.6, "set:tp": 1.5}[d["series"]]
assert abs(d["delta"] - want) < 0.03, (d["series"], d["delta"])
assert d["change"] < 0 and d["p"] < 0.01 and d["significant"] is True
# Git bisect's own terms for a change that is not a breakage.
assert all(s["verdict"] in ("old", "new") for s in d["steps"]), d["steps"]
# The culprit and the commit before it measured to the ends' pairs at the end.
last = {s["commit"]: s for s in d["steps"][2:]}
assert last[sys.argv[2]]["runs"] >= 7 and last[sys.argv[2]].get("decided_runs", 0) == 3, last[sys.argv[2]]
P
expect_rc 0 "$BG" bisect --good "${S[32]}" --bad "${S[60]}"
check "... and says so in words" bash -c "
	grep -q '^first improved commit: ${S[42]}' $T/out &&
	grep -q 'an improvement (p' $T/out && grep -q 'p better than old' $T/out &&
	grep -q ' 3+5 stored' $T/out"

expect_rc 1 "$BG" bisect --good "${S[4]}" --bad "${S[60]}" --json
cp "$T/out" "$T/flat.json"
check "bisect over the whole range exits 1: the ends do not differ, with both series' figures" \
	/usr/bin/python3 - "$T/flat.json" <<'P'
import json, sys
d = json.load(open(sys.argv[1]))
assert d["first_changed"] is None and d["message"] == "the ends do not differ", d
rows = {r["series"]: r for r in d["ends"]["results"]}
print("# whole range:", {k: (r["verdict"], round(r["delta"], 4), r["p_value"] if "p_value" in r else r.get("p")) for k, r in rows.items()})
assert set(rows) == {"set:time", "set:tp"}, rows
for r in rows.values():
    assert r["verdict"] == "unchanged" and abs(r["delta"]) < 0.02, r
P
expect_rc 1 "$BG" bisect --good "${S[4]}" --bad "${S[60]}"
check "... in words, with the table of what was measured" bash -c "
	grep -q 'nothing to bisect: no series differs between' $T/out &&
	grep -q 'set:time' $T/out && grep -q 'set:tp' $T/out"
check "a named series that moved the other way is bisected that way" \
	expect_rc 0 "$BG" bisect --good "${S[32]}" --bad "${S[60]}" --series set:tp --json
check "... (set:tp, an improvement)" bash -c "grep -q '\"series\": \"set:tp\"' $T/out &&
	grep -q '\"verdict\": \"improvement\"' $T/out"
check "--series needs BENCHMARK:METRIC" expect_rc 2 "$BG" bisect --good "${S[4]}" --bad "${S[8]}" --series set

# ----------------------------------------------------- from the report's steps
expect_rc 0 "$BG" bisect --step "set:time@${S[24]}" --json
cp "$T/out" "$T/step1.json"
check "bisect --step SERIES@COMMIT searches the report's step S20..S24 and finds S22" \
	/usr/bin/python3 - "$T/step1.json" "${S[22]}" "${S[20]}" <<'P'
import json, sys
d = json.load(open(sys.argv[1]))
print("# --step:", d["first_changed"][:7], d["verdict"], d["series"], d["commits"], "commits")
assert d["first_changed"] == sys.argv[2] and d["series"] == "set:time", d
assert d["verdict"] == "regression" and d["commits"] == 4
assert d["steps"][0]["commit"] == sys.argv[3]
P
check "... saying where the step came from" grep -q 'the report shows set:time moving +1[45][0-9]\.[0-9]%' "$T/err"
expect_rc 0 "$BG" bisect --step set:tp --json
check "bisect --step SERIES takes the newest step (the recovery, S42, an improvement)" bash -c "
	grep -q '\"first_changed\": \"${S[42]}\"' $T/out && grep -q '\"verdict\": \"improvement\"' $T/out &&
	grep -q 'set:tp has 2 steps' $T/err"
check "--step with a commit outside every step exits 2, listing the steps" bash -c "
	'$BG' bisect --step 'set:tp@${S[10]}' >$T/out 2>$T/err; test \$? -eq 2 &&
	grep -q 'no step of set:tp holds' $T/err && grep -q '\.\.' $T/err"
check "--step of a series without steps exits 2" expect_rc 2 "$BG" bisect --step set:nosuch
check "--step with --good is refused" expect_rc 2 "$BG" bisect --step set:tp --good "${S[0]}"

# The bisects above left many paired runs on their commits (S4, the good
# end of two of them, has 20 or more): kept out of the trend, and pooled
# into one point per commit when asked for.
expect_rc 0 "$BG" report --since all --include-paired --format json
cp "$T/out" "$T/paired.json"
check "with every paired run bisect left: one point per commit, no step within one, the same two steps" \
	/usr/bin/python3 - "$T/paired.json" "$T/report.json" "${S[4]}" <<'P'
import json, sys
d, before = (json.load(open(f)) for f in sys.argv[1:3])
for s in d["series"]:
    pts = s["points"]
    commits = [p["commit"] for p in pts]
    assert len(commits) == len(set(commits)), "a commit drawn twice"
    busy = {p["commit"]: p["runs"] for p in pts}
    print("# figure: with paired runs,", s["series"], len(pts), "points; runs at S4:", busy[sys.argv[3]], "most:", max(busy.values()))
    assert busy[sys.argv[3]] >= 20, busy[sys.argv[3]]
    assert len(s["change_points"]) == 2, s["change_points"]
    for c in s["change_points"]:
        assert c["last_before"] != c["first_after"], c
    # The paired runs are not in the report without --include-paired.
    plain = [x for x in before["series"] if x["series"] == s["series"]][0]
    assert all(p["runs"] == 1 for p in plain["points"]) and len(plain["points"]) == 16
P

# ------------------------------------------- one change, four commands
# Nearly exact values (0.02% noise): every command must print the same
# change for the same two commits, S21 (last fast) and S22 (first slow).
echo 0.0002 >"$T/noise"
export BENCHGUARD_DB="$T/agree.db"
for i in 17 18 19 20 21 22 23 24 25 26; do
	"$BG" -q run --commit "${S[$i]}" >/dev/null 2>"$T/err" || cat "$T/err"
done
run22=$(sqlite3 "$BENCHGUARD_DB" "SELECT r.id FROM runs r JOIN commits c ON c.id = r.commit_id WHERE c.sha = '${S[22]}'")
"$BG" check --run "$run22" --json >"$T/check.json" 2>"$T/err"
"$BG" compare "${S[21]}" "${S[22]}" --json >"$T/compare.json" 2>"$T/err"
"$BG" bisect --good "${S[21]}" --bad "${S[22]}" --series set:time --json >"$T/bt.json" 2>"$T/err"
"$BG" bisect --good "${S[21]}" --bad "${S[22]}" --series set:tp --json >"$T/bp.json" 2>"$T/err"
"$BG" report --since all --format json >"$T/agree.json" 2>"$T/err"
check "check, compare, bisect and report print the same change for both series (0.1 pp)" \
	/usr/bin/python3 - "$T" <<'P'
import json, sys, os
t = sys.argv[1]
load = lambda f: json.load(open(os.path.join(t, f)))
chk = {r["series"]: r for r in load("check.json")["results"]}
cmp = {r["series"]: r for r in load("compare.json")["results"]}
bis = {d["series"]: d for d in (load("bt.json"), load("bp.json"))}
rep = {s["series"]: s["change_points"] for s in load("agree.json")["series"]}
for name, want in (("set:time", 1.5), ("set:tp", -0.6)):
    fig = {
        "check": chk[name]["delta"],
        "compare": cmp[name]["delta"],
        "bisect": bis[name]["delta"],
        "report": rep[name][0]["change"],
    }
    print("# figure: one change,", name, {k: "%+.3f%%" % (100 * v) for k, v in fig.items()})
    assert len(rep[name]) == 1, rep[name]
    for k, v in fig.items():
        assert abs(v - want) < 0.001, (name, k, v)
    # Labelled the same way too: worse is positive in every command.
    assert chk[name]["verdict"] == cmp[name]["verdict"] == "regression", (chk[name]["verdict"], cmp[name]["verdict"])
    assert bis[name]["verdict"] == "regression" and rep[name][0]["verdict"] == "regression"
    assert (chk[name]["change"] > 0) and (cmp[name]["change"] > 0) and (bis[name]["change"] > 0)
P

# ------------------------------------------------ a slowdown in small steps
# 40 commits, each 0.25% slower than the one before (+10.5% in all), with
# the same 1% noise: the ends differ, every step of the search can be right,
# and still no single commit shows a change of its own.  bisect names the
# commit the search ends on and says that its change is not significant.
new_repo "$T/g" >/dev/null
cd "$T/g" || exit 1
cp "$T/r/bench.sh" "$T/r/benchguard.json" "$T/r/.gitignore" .
echo 0.01 >"$T/noise"
echo 10 >level
G0=$(commit "G0: 10 ms")
for i in $(seq 1 40); do
	awk -v i="$i" 'BEGIN { printf "%.6f\n", 10 * 1.0025 ^ i }' >level
	G=$(commit "G$i: 0.25% slower")
done
expect_rc 0 "$BG" bisect --good "$G0" --bad "$G" --series set:time --json
cp "$T/out" "$T/drift.json"
cp "$T/err" "$T/drift.err"
check "bisect over a slowdown in 40 small steps says its answer's change is not significant" \
	/usr/bin/python3 - "$T/drift.json" <<'P'
import json, sys
d = json.load(open(sys.argv[1]))
print("# drift:", d["first_changed"][:7], d["verdict"], "delta", round(d["delta"], 4), "p", d["p"],
      "step", round(d["step"], 4), "significant", d["significant"])
assert d["step"] > 0.08, d["step"]
assert d["significant"] is False and d["p"] >= 0.01, (d["significant"], d["p"])
assert abs(d["delta"]) < 0.02, d["delta"]
P
check "... and warns on stderr, naming the compare that measures the two again" \
	grep -q "is not significant on its own (p .*: the series may have moved in several small steps.*benchguard compare" "$T/drift.err"
expect_rc 0 "$BG" bisect --good "$G0" --bad "$G" --series set:time
check "... and the text says \"not significant\", not \"a regression\"" \
	bash -c "grep -q 'against [0-9a-f]*, not significant (p ' $T/out && ! grep -q ', a regression (p' $T/out"
finish
