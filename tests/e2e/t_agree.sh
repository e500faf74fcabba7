# t_agree.sh -- one verdict: on every commit of a history judged by
# `benchguard ci`, the verdict that `report` (JSON, Markdown and HTML),
# `history` and the step summary show is the one ci returned.
#
# Two series whose values are set, not timed (a level from the commit
# times a fixed ~1% wobble), so the history is the same on every machine:
# commits that change nothing, one whose first run a "neighbour" slows by
# 25% (ci flags it, its pairs do not confirm it), a real 10% regression, the
# commits after it (the rolling baseline still mixes the two levels, so
# first runs are flagged and pairs clear them), a 20% improvement, a
# regression on a pull-request branch, and a commit measured by `run` only
# (the report replays the check there, and says so).
. "$(dirname "$0")/lib.sh"

new_repo "$T/r" >/dev/null
cd "$T/r" || exit 1
cat >bench.sh <<S
n=\$(cat "$T/ctr" 2>/dev/null || echo 0); n=\$((n + 1)); echo \$n >"$T/ctr"
k=1; if [ -f "$T/spike" ]; then rm -f "$T/spike"; k=1.25; fi
awk -v n=\$n -v l=\$(cat \$1) -v k=\$k 'BEGIN { m = l * k * (1 + 0.01 * sin(2.3 * n))
	for (d = -1; d <= 1; d++) printf "BENCHGUARD v %.6f ms\n", m * (1 + 0.001 * d) }'
S
cat >benchguard.json <<'J'
{ "project": "agree",
  "baseline": { "window": 6, "min_runs": 5 },
  "defaults": { "warmup": 0, "samples": 1 },
  "benchmarks": [ { "name": "set", "format": "lines", "command": "sh bench.sh level" },
                  { "name": "flat", "format": "lines", "command": "sh bench.sh flat" } ] }
J
printf '.benchguard/\n' >.gitignore
echo 100 >level
echo 50 >flat
git add -A && git commit -qm "suite"
export BENCHGUARD_DB="$T/db" GITHUB_STEP_SUMMARY="$T/summary.md"
: >"$GITHUB_STEP_SUMMARY"
mkdir -p "$T/ci"
k=0
# step MESSAGE [spike]: a commit on the current branch, judged by ci.
step() {
	k=$((k + 1))
	git add -A && git commit -qm "$1" --allow-empty
	[ -n "${2:-}" ] && touch "$T/spike"
	"$BG" -q ci --json >"$T/ci/$k.json" 2>"$T/ci/$k.err"
	echo $? >"$T/ci/$k.rc"
}
for i in $(seq 1 8); do echo "$i" >notes.txt; step "history $i"; done
step "a neighbour slows the first run" spike
echo 110 >level; step "set 10% slower"
for i in 1 2 3; do echo "after $i" >notes.txt; step "after the step $i"; done
echo 88 >level; step "set 20% faster"
for i in 1 2; do echo "later $i" >notes.txt; step "later $i"; done
git checkout -q -b feature
echo 120 >level; step "feature: set slower"
git checkout -q main
echo run >notes.txt && git add notes.txt && git commit -qm "measured by run only"
"$BG" -q run >/dev/null 2>&1
"$BG" -q report --format json -o "$T/report.json" 2>"$T/report.err"
"$BG" -q report --format markdown -o "$T/report.md" 2>>"$T/report.err"
"$BG" -q report --format html -o "$T/report.html" 2>>"$T/report.err"
for s in set:v flat:v; do "$BG" -q history "$s" --limit 0 --json >"$T/history.$s.json"; done

/usr/bin/python3 - "$T" "$k" <<'P'
import json, re, sys
T, n = sys.argv[1], int(sys.argv[2])
# What ci returned, per (commit, series): verdict and whether it was flagged
# first and not confirmed; and ci's run id per commit.
ci, run_of, counts = {}, {}, {}
for i in range(1, n + 1):
    d = json.load(open(f"{T}/ci/{i}.json"))
    sha = d["run"]["commit"]
    run_of[d["run"]["id"]] = sha
    for r in d["results"]:
        c = (r.get("confirmation") or {}).get("status", "none")
        ci[(sha, r["series"])] = (r["verdict"], c == "not-confirmed" and r["verdict"] == "unchanged")
        counts[(r["verdict"], c)] = counts.get((r["verdict"], c), 0) + 1
print("# ci's verdicts over the history:", ", ".join(f"{v}/{c} {k}" for (v, c), k in sorted(counts.items())))
bad = []

# report JSON: every commit of main that ci judged, with ci's verdict.
rep = json.load(open(f"{T}/report.json"))
seen = 0
for s in rep["series"]:
    for c in s["commits"]:
        key = (c["commit"], s["series"])
        if key not in ci:
            if c["source"] != "replayed":
                bad.append(("report: not judged by ci yet says", key, c["source"]))
            continue
        seen += 1
        want, unconf = ci[key]
        if c["source"] != "ci" or c["verdict"] != want or bool(c.get("flagged_not_confirmed")) != unconf:
            bad.append(("report", key, c, want, unconf))
main_keys = [k for k in ci if k[0] != json.load(open(f"{T}/ci/{n}.json"))["run"]["commit"]]
if seen != len(main_keys):
    bad.append(("report saw", seen, "of", len(main_keys), "ci-judged commit-series of main"))
print(f"# report JSON: {seen} commit-series judged by ci, all with ci's verdict" if not bad else "# report JSON differs")

# history JSON: the run ci judged carries ci's verdict.
hist = 0
for series in ("set:v", "flat:v"):
    for h in json.load(open(f"{T}/history.{series}.json")):
        if h["run"] in run_of:
            want, unconf = ci[(run_of[h["run"]], series)]
            hist += 1
            if h["verdict"] != want or (h.get("confirmation") == "not-confirmed" and h["verdict"] == "unchanged") != unconf:
                bad.append(("history", h["run"], series, h["verdict"], want))
        elif h["verdict"] is not None and not h["paired"]:
            bad.append(("history: a run ci did not judge has a verdict", h["run"]))
print(f"# history: {hist} runs judged by ci, all with ci's verdict")

# The step summary: one section per ci run, in order.
sections = open(f"{T}/summary.md").read().split("### benchguard: ")[1:]
if len(sections) != n:
    bad.append(("step summary sections", len(sections), n))
for i, sec in enumerate(sections, 1):
    sha12 = re.search(r"Commit `([0-9a-f]{12})`", sec).group(1)
    rows = re.findall(r"^\| (\*\*)?([a-z-]+)(\*\*)? +\| `([^`]+)` +\|", sec, re.M)
    d = json.load(open(f"{T}/ci/{i}.json"))
    if d["run"]["commit"][:12] != sha12:
        bad.append(("summary commit", i, sha12))
    got = {series: verdict for _, verdict, _, series in rows}
    want = {r["series"]: r["verdict"] for r in d["results"]}
    if got != want:
        bad.append(("summary", i, got, want))
    for r in d["results"]:
        c = (r.get("confirmation") or {}).get("status")
        if c == "not-confirmed" and not re.search(r"`%s` .*not confirmed:" % re.escape(r["series"]), sec):
            bad.append(("summary does not say not confirmed", i, r["series"]))
print(f"# step summary: {len(sections)} sections, each with ci's verdicts")

# Markdown and HTML reports: the flagged-not-confirmed commits, apart.
unconf = {(sha[:7], s) for (sha, s), (v, u) in ci.items() if u and (sha, s) in {(c["commit"], x["series"]) for x in rep["series"] for c in x["commits"]}}
md = open(f"{T}/report.md").read()
table = md.split("### Flagged, not confirmed")[1].split("###")[0] if "### Flagged, not confirmed" in md else ""
md_rows = set((c, s) for s, c in re.findall(r"^\| `([^`]+)` \| `([0-9a-f]{7})` \|", table, re.M))
if md_rows != unconf:
    bad.append(("markdown flagged-not-confirmed", sorted(md_rows), sorted(unconf)))
html = open(f"{T}/report.html").read()
points = len(re.findall(r'<circle class="pt\b[^"]*\bunconfirmed\b', html))
if points != len(unconf):
    bad.append(("html unconfirmed points", points, len(unconf)))
print(f"# Markdown and HTML reports: {len(unconf)} flagged-not-confirmed commit-series, shown apart")
if rep["summary"]["flagged_not_confirmed"] != len(unconf):
    bad.append(("report summary count", rep["summary"]["flagged_not_confirmed"], len(unconf)))
for b in bad:
    print("# MISMATCH", b)
final = {v: sum(k for (x, _), k in counts.items() if x == v) for v in ("regression", "improvement")}
open(f"{T}/agree.txt", "w").write(f"{len(bad)} {len(unconf)} {final['regression']} {final['improvement']}\n")
P
read -r mismatches unconfirmed regressions improvements <"$T/agree.txt"
check "no ci run failed" bash -c "! grep -qv '^[01]$' $T/ci/*.rc"
check "report, history and the step summary show ci's verdict on every commit ($mismatches differences)" \
	test "$mismatches" = 0
check "the history holds the cases: flagged and not confirmed ($unconfirmed), regressions ($regressions), improvements ($improvements)" \
	test "$unconfirmed" -ge 1 -a "$regressions" -ge 2 -a "$improvements" -ge 1
check "the commit measured by run only is the check replayed, and says so" /usr/bin/python3 -c "
import json, sys
rep = json.load(open('$T/report.json'))
last = [s['commits'][-1] for s in rep['series']]
assert all(c['source'] == 'replayed' for c in last), last"
finish
