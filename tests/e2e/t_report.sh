# t_report.sh -- `benchguard report` end to end: a generated
# history with known steps is imported run by run at the commits of a real
# repository; the report finds the steps at the right commits, leaves a
# single far run alone, and HTML, Markdown and JSON carry the same change
# points and verdicts.  The HTML opens in headless Chromium (chromedriver,
# W3C WebDriver): one chart per series, no network request, no console
# error.  Bad flags exit 2; -o never leaves a partial file.
. "$(dirname "$0")/lib.sh"

PY=/usr/bin/python3
HERE=$(cd "$(dirname "$0")" && pwd)
new_repo "$T/r" >/dev/null
cd "$T/r" || exit 1

# 120 commits on main; one subject with characters every format must escape.
for i in $(seq 1 120); do
	if [ "$i" = 41 ]; then msg="speed <b>up</b> & \"tune\" | sort"; else msg="change $i"; fi
	git commit -q --allow-empty -m "$msg"
done
git rev-list --reverse HEAD | tail -n 120 >"$T/shas"

# The history (seeded): step +5% at run 40 and -3% at run 90; flat with one
# run +30% at 60; bw (GB/s, higher is better) +8% at 70; late flat but 15%
# slower at the newest commit.  Run-to-run CV 0.5%, so that every step's
# commit is certain here: how close steps are found at CV 1% is the unit
# test's (test_changepoint); this one follows them through the store, git
# and the three renderings.
$PY - "$T" <<'P'
import random, sys
T = sys.argv[1]
rnd = random.Random(7)
for k in range(120):
    g = lambda: 1 + 0.005 * rnd.gauss(0, 1)
    step = (1.05 if k >= 40 else 1.0) * (0.97 if k >= 90 else 1.0) * g()
    flat = 2.0 * g() * (1.3 if k == 60 else 1.0)
    bw = 10.0 * (1.08 if k >= 70 else 1.0) * g()
    late = 3.0 * g() * (1.15 if k == 119 else 1.0)
    with open("%s/run%d.txt" % (T, k), "w") as f:
        for _ in range(5):
            w = lambda v: v * (1 + 0.002 * rnd.gauss(0, 1))
            f.write("BENCHGUARD step %.6f ms\n" % w(step))
            f.write("BENCHGUARD flat %.6f ms\n" % w(flat))
            f.write("BENCHGUARD bw %.6f GB/s\n" % w(bw))
            f.write("BENCHGUARD late %.6f ms\n" % w(late))
P
k=0 bad=0
while read -r sha; do
	"$BG" -q import "$T/run$k.txt" --format lines --name demo --commit "$sha" --machine e2e >/dev/null || bad=1
	k=$((k + 1))
done <"$T/shas"
check "120 generated runs import at their commits" test "$bad" = 0
# A run on a side branch is no part of main's trend.
git checkout -q -b side HEAD~5 && git commit -q --allow-empty -m "side work" &&
	"$BG" -q import "$T/run3.txt" --format lines --name demo --machine e2e >/dev/null
git checkout -q main

check "report --format json" expect_rc 0 "$BG" report --machine e2e --format json -o "$T/r.json"
check "... says the side-branch run was left out" grep -q '^1 run of commits off the first-parent history of main left out' "$T/err"
check "report --format markdown" expect_rc 0 "$BG" report --machine e2e --format markdown -o "$T/r.md"
check "report (HTML by default)" expect_rc 0 "$BG" report --machine e2e -o "$T/r.html"
# A pipe whose reader is gone before the report is written, SIGPIPE ignored
# (as under a runner that ignores it): EPIPE, for a write past stdio's buffer.
check "a reader gone (SIGPIPE ignored): exit 0, no error" $PY -c '
import os, subprocess, sys
r, w = os.pipe(); os.close(r)
p = subprocess.run(sys.argv[1:], stdout=w, stderr=subprocess.PIPE, restore_signals=False)
sys.exit(p.returncode != 0 or b"benchguard:" in p.stderr)' "$BG" report --machine e2e
check "report to a full disk: exit 3, saying why" bash -c "
	\"$BG\" report --machine e2e >/dev/full 2>$T/e; [ \$? -eq 3 ] &&
	[ \"\$(grep -c '^benchguard:' $T/e)\" = 1 ] &&
	grep -q '^benchguard: cannot write to standard output: No space left on device\$' $T/e"
check "... -o FILE.md means Markdown" bash -c "\"$BG\" report --machine e2e -o \"$T/again.md\" 2>/dev/null && diff <(grep -v UTC \"$T/r.md\") <(grep -v UTC \"$T/again.md\")"
check "... in any case: -o FILE.MD too" bash -c "\"$BG\" report --machine e2e -o \"$T/AGAIN.MD\" 2>/dev/null && diff <(grep -v UTC \"$T/r.md\") <(grep -v UTC \"$T/AGAIN.MD\")"
check "JSON numbers in their shortest exact form (0.8, not 0.80000000000000004)" \
	bash -c "grep -Eq '\"min_effect\": *0.8,' \"$T/r.json\" && grep -Eq '\"min_change\": *0.02,' \"$T/r.json\""
check "stdout without -o is the same document" bash -c "\"$BG\" report --machine e2e --format json | $PY -c 'import json,sys; a=json.load(sys.stdin); b=json.load(open(\"$T/r.json\")); [x.pop(k) for x in (a, b) for k in (\"generated_at\", \"since\")]; sys.exit(a != b)'"

# The truth, and the same steps and verdicts in all three forms.
cat >"$T/same.py" <<'P'
import html.parser, json, re, sys
T = sys.argv[1]
J = json.load(open(T + "/r.json"))
fail = []
def want(cond, what):
    if not cond:
        fail.append(what)

# --- JSON against the generated truth
S = {s["series"]: s for s in J["series"]}
want(sorted(S) == ["demo:bw", "demo:flat", "demo:late", "demo:step"], "series %s" % sorted(S))
want(J["order"] == "first-parent" and J["summary"]["runs"] == 120, "order/runs")
want(J["summary"]["runs_off_branch"] == 1, "side-branch run counted")
cp = {n: [(c["index"], c["verdict"], c["change"]) for c in s["change_points"]] for n, s in S.items()}
st = cp["demo:step"]
want(len(st) == 2 and st[0][0] == 40 and st[1][0] == 90, "step steps %s" % st)
want(st and st[0][1] == "regression" and abs(st[0][2] - 0.05) < 0.01, "first step +5%% regression %s" % st)
want(len(st) > 1 and st[1][1] == "improvement" and abs(st[1][2] + 0.03) < 0.01, "second step -3%% improvement %s" % st)
bw = cp["demo:bw"]
want(len(bw) == 1 and bw[0][0] == 70 and bw[0][1] == "improvement", "bw step %s" % bw)
want(cp["demo:flat"] == [], "single outlier is no step: %s" % cp["demo:flat"])
flat_runs = S["demo:flat"]["points"]
want(flat_runs[60].get("outlier") is True, "the far run is marked an outlier")
want(cp["demo:late"] == [], "one slow newest run is no step (yet)")
want(S["demo:late"]["verdict"] == "regression", "late: newest commit judged a regression")
want(S["demo:late"]["points"][-1]["verdict"] == "regression", "late: newest run flagged")
shas = open(T + "/shas").read().split()
c0 = S["demo:step"]["change_points"][0] if st else {}
want(c0.get("last_before") == shas[39] and c0.get("first_after") == shas[40] and
     c0.get("first_after_subject", "").startswith("speed <b>up</b>"), "commit range %s" % c0)
lat = S["demo:late"]["latest"]
want(lat["baseline_runs"] == 20 and lat["baseline_last_index"] == 118 and lat["baseline_first_index"] == 99,
     "baseline window %s" % lat)

def key(series, frm, to, change, verdict):
    return (series, frm[:7], to[:7], "%+.1f" % (100 * change), verdict)
jsteps = sorted(key(n, c["last_before"], c["first_after"], c["change"], c["verdict"])
                for n, s in S.items() for c in s["change_points"])
jverd = {n: s["verdict"] for n, s in S.items()}

# --- HTML
class H(html.parser.HTMLParser):
    def __init__(self):
        super().__init__()
        self.steps, self.verd, self.cur, self.charts = [], {}, None, []
    def handle_starttag(self, tag, a):
        a = dict(a)
        if tag == "section" and "series" in a.get("class", ""):
            self.sec_verdict = a["data-verdict"]
        if tag == "svg" and a.get("class") == "chart":
            self.cur = a["data-series"]
            self.charts.append(self.cur)
            self.verd[self.cur] = self.sec_verdict
        if tag == "g" and a.get("class", "").startswith("cp "):
            self.steps.append(key(self.cur, a["data-from"], a["data-to"],
                                  float(a["data-change"]), a["class"].split()[1]))
h = H()
h.feed(open(T + "/r.html").read())
want(sorted(h.steps) == jsteps, "HTML steps %s != JSON %s" % (sorted(h.steps), jsteps))
want(h.verd == jverd, "HTML verdicts %s != JSON %s" % (h.verd, jverd))
want(h.charts == [s["series"] for s in J["series"]], "one chart per series, in order")
page = open(T + "/r.html").read()
want("speed &lt;b&gt;up&lt;/b&gt; &amp; &quot;tune&quot; | sort" in page, "subject escaped in HTML")
want(not re.search(r"<script[^>]*\ssrc|<link[^>]+href=|<img|@import|url\((?!#)", page), "nothing to fetch")
want("speed <b>up</b>" not in page, "the subject never raw in the page (JSON as \\u003c...)")
want("speed \\u003cb\\u003eup\\u003c/b\\u003e \\u0026" in page, "the subject escaped in the commits' JSON")

# --- Markdown
md = open(T + "/r.md").read()
msteps, mverd, cur = [], {}, None
for line in md.splitlines():
    m = re.match(r"#### `([^`]+)`", line)
    if m:
        cur = m.group(1)
        continue
    m = re.match(r"\| `([^`]+)` \| (\d+) \| (\S+) \|", line)
    if m:
        mverd[m.group(1)] = m.group(3)
    m = re.match(r"\| `([0-9a-f]{7})\.\.([0-9a-f]{7})` \| [^|]+ \| [^|]+ \| ([+-][0-9.]+)% \| [^|]+ \| (\w+) \|", line)
    if m and cur:
        msteps.append((cur, m.group(1), m.group(2), m.group(3), m.group(4)))
want(sorted(msteps) == jsteps, "Markdown steps %s != JSON %s" % (sorted(msteps), jsteps))
want(mverd == jverd, "Markdown verdicts %s != JSON %s" % (mverd, jverd))
want("speed &lt;b&gt;up&lt;/b&gt; &amp; \"tune\" \\| sort" in md, "subject escaped in Markdown")
for f in fail:
    print("# " + f)
sys.exit(1 if fail else 0)
P
check "steps at the generated commits, one far run no step, newest regression judged; HTML, Markdown and JSON agree" $PY "$T/same.py" "$T"

# ------------------------------------------------------------- in a browser
if [ ! -x "${BG_CHROMIUM:-/usr/bin/chromium}" ] || [ ! -x "${BG_CHROMEDRIVER:-/usr/bin/chromedriver}" ]; then
	skip "the HTML report in headless Chromium" "skipped: no chromium (apt-get install chromium chromium-driver)"
	skip "the browser check catches fetches and console errors" "skipped: no chromium"
else
	$PY "$HERE/report_browser.py" "$T/r.html" "$T/shot.png" >"$T/browser.json" 2>"$T/browser.err"
	check "the HTML report opens in headless Chromium" test -s "$T/browser.json"
	sed 's/^/# /' "$T/browser.err" | head -20
	cat >"$T/judge.py" <<'P'
import json, sys
b, j = json.load(open(sys.argv[1])), json.load(open(sys.argv[2]))
names = [s["series"] for s in j["series"]]
runs = sum(len(s["points"]) for s in j["series"])
fail = []
if b["charts"] != len(names) or b["series"] != names:
    fail.append("charts %s, series %s" % (b["charts"], names))
if b["requests"] != [b["page"]]:
    fail.append("requests: %s" % b["requests"])
if b["severe"]:
    fail.append("console errors: %s" % b["severe"])
if b["points"] != runs or b["vertices"] != runs:
    fail.append("points %s, drawn %s, commit points %s" % (b["points"], b["vertices"], runs))
if b["circles"] != b["titled"] or b["circles"] < 1:
    fail.append("flagged and outlier points %s, with their own title %s" % (b["circles"], b["titled"]))
for tip, s in zip(b["tips"], j["series"]):
    p = s["points"][tip["index"]] if tip else None
    want = p and p["commit"][:12]
    if not tip or not tip["text"] or want not in tip["text"]:
        fail.append("hovering %s at point %s showed %r, not commit %s" % (
            s["series"], tip and tip["index"], tip and tip["text"], want))
# Every point of the first chart: its commit, and the subject as text (the
# one with <b> in it among them).
first = next(s for s in j["series"] if s["points"])
for p, text in zip(first["points"], b["first_tips"]):
    if not text or p["commit"][:12] not in text:
        fail.append("hovering %s's point of %s showed %r" % (first["series"], p["commit"][:12], text))
        break
if not any(t and "speed <b>up</b> & \"tune\" | sort" in t for t in b["first_tips"]):
    fail.append("no tooltip showed the subject with its markup as text")
if b["steps"] != sum(len(s["change_points"]) for s in j["series"]):
    fail.append("step marks %s" % b["steps"])
for f in fail:
    print("# " + f)
sys.exit(1 if fail else 0)
P
	check "... one chart per series, one point per commit, a tooltip naming the hovered commit, no network request, no console error" \
		$PY "$T/judge.py" "$T/browser.json" "$T/r.json"
	check "... and a screenshot of it" bash -c "head -c 8 \"$T/shot.png\" | od -An -tx1 | grep -q '89 50 4e 47'"
	[ -z "${BG_REPORT_SHOT:-}" ] || cp "$T/shot.png" "$BG_REPORT_SHOT"
	# The check itself must see what it looks for: a page that fetches an
	# image and logs an error fails it.
	sed 's|<footer>|<img src="http://127.0.0.1:9/x.png" alt=""><script>console.error("boom")</script><footer>|' \
		"$T/r.html" >"$T/bad.html"
	$PY "$HERE/report_browser.py" "$T/bad.html" "$T/bad.png" >"$T/bad.json" 2>/dev/null
	check "the browser check catches fetches and console errors" $PY -c '
import json, sys
b = json.load(open(sys.argv[1]))
sys.exit(not ("http://127.0.0.1:9/x.png" in b["requests"] and any("boom" in m for m in b["severe"])))' "$T/bad.json"
fi

# ------------------------------------------------------------ flags, errors
check "--filter keeps matching series" bash -c "\"$BG\" report --machine e2e --filter '^demo:fl' --json | $PY -c 'import json,sys; d=json.load(sys.stdin); sys.exit([s[\"series\"] for s in d[\"series\"]] != [\"demo:flat\"])'"
# A filter that matches no series: the runs are there, and neither the
# warning nor the page may say there are none (nor send the reader to
# --machine all).
check "--filter matching nothing: exit 0, a warning naming the filter" bash -c "\"$BG\" report --machine e2e --filter '^nomatch' -o \"$T/none.html\" 2>\"$T/none.err\" && grep -q '^benchguard: warning: no series matches --filter \"^nomatch\" (120 runs in this period)' \"$T/none.err\" && ! grep -q 'no runs' \"$T/none.err\""
check "... and the page says so, not that the period has no runs" bash -c "grep -q 'No series matches <code>--filter ^nomatch</code>' \"$T/none.html\" && ! grep -q 'No runs in this period' \"$T/none.html\""
check "--since a future date: no runs, a warning that says why, exit 0" bash -c "\"$BG\" report --machine e2e --since 2099-01-01 --format markdown 2>&1 >/dev/null | grep -qx 'benchguard: warning: no runs of machine e2e in this period: --since 2099-01-01 starts after now'"
check "--since 12h: the window starts at its minute, not at its day" bash -c "\"$BG\" report --machine e2e --since 12h --format markdown 2>/dev/null | grep -qE '^Runs from [0-9]{4}-[0-9]{2}-[0-9]{2} [0-9]{2}:[0-9]{2} UTC to '"
check "--since a date: the day alone" bash -c "\"$BG\" report --machine e2e --since 2020-01-01 --format markdown | grep -q '^Runs from 2020-01-01 to '"
check "--machine all and another machine's runs" bash -c "\"$BG\" report --machine all --json | $PY -c 'import json,sys; d=json.load(sys.stdin); sys.exit(d[\"machines\"][0][\"fingerprint\"] != \"e2e\" or len(d[\"series\"]) != 4)'"
check "outside a repository (--db only): run time order" bash -c "cd \"$T\" && \"$BG\" --db \"$T/r/.benchguard/results.db\" report --machine e2e --since all --json | $PY -c 'import json,sys; d=json.load(sys.stdin); sys.exit(d[\"order\"] != \"time\" or d[\"summary\"][\"runs\"] != 121)'"
cp "$T/r.html" "$T/keep.html"
check "a bad --filter: exit 2, one line" expect_rc 2 "$BG" report --machine e2e --filter '(' -o "$T/keep.html"
check "... naming the flag" grep -q '^benchguard: --filter "(": ' "$T/err"
check "... and -o FILE is left as it was" cmp -s "$T/r.html" "$T/keep.html"
check "--since banana: exit 2" expect_rc 2 "$BG" report --since banana
check "... says what it takes" grep -q '^benchguard: --since needs a span like 30d' "$T/err"
# strptime takes any day to 31, and timegm moved it on: 2023-02-29 read as
# March 1st, exit 0.
for d in 2023-02-29 2024-04-31 2024-02-30T10:00:00Z; do
	check "--since $d, a date that does not exist: exit 2" expect_rc 2 "$BG" report --since "$d"
done
check "--since 2024-02-29, a leap day: exit 0" expect_rc 0 "$BG" report --machine e2e --since 2024-02-29 --format json
check "--format pdf: exit 2" expect_rc 2 "$BG" report --format pdf
check "-o into a new directory makes it" bash -c "\"$BG\" -q report --machine e2e -o \"$T/new/r.html\" && cmp -s <(grep -v UTC \"$T/r.html\") <(grep -v UTC \"$T/new/r.html\")"
check "-o below a regular file: exit 3" expect_rc 3 "$BG" -q report --machine e2e -o "$T/r.json/r.html"
check "... one line naming it, the file as it was" bash -c "grep -q \"^benchguard: $T/r.json\" \"$T/err\" && [ \$(wc -l <\"$T/err\") = 1 ] && [ -f \"$T/r.json\" ]"
check "no temporary files left beside -o" bash -c "! ls \"$T\" | grep -q '\\.tmp\\.'"
# -o over a file keeps its permissions; one that may not be written is
# left as it was (renaming over it needs only its folder's); a link left at
# a temporary name is never written through; a folder's name is refused
# before anything is made.
echo old >"$T/mode.md" && chmod 640 "$T/mode.md"
check "-o over a file keeps its mode (640) and replaces its text" bash -c "
	\"$BG\" -q report --machine e2e -o '$T/mode.md' && [ \$(stat -c %a '$T/mode.md') = 640 ] &&
	! grep -qx old '$T/mode.md'"
echo VICTIM >"$T/victim.txt"
# The old temporary name was "<file>.tmp.<pid>": exec keeps sh's pid.
sh -c 'ln -s "$1/victim.txt" "$1/out.md.tmp.$$" && exec "$2" -q report --machine e2e -o "$1/out.md"' \
	sh "$T" "$BG" 2>/dev/null
check "a link left at a temporary name is not written through" bash -c "
	[ \"\$(cat '$T/victim.txt')\" = VICTIM ] && [ -f '$T/out.md' ] && [ ! -L '$T/out.md' ]"
rm -f "$T"/out.md.tmp.*
check "-o DIR/: exit 2" expect_rc 2 "$BG" -q report --machine e2e -o "$T/sub/"
check "... says to give a file name, and makes no folder" bash -c "
	grep -q '^benchguard: $T/sub/ names a folder: give a file name' '$T/err' && [ ! -e '$T/sub' ]"
mkdir -p "$T/adir"
check "-o DIR (a folder there, no slash): exit 2 as well, the folder left alone" bash -c "
	'$BG' -q report --machine e2e -o '$T/adir' 2>'$T/err'; [ \$? -eq 2 ] &&
	grep -q '^benchguard: $T/adir is a folder: give a file name' '$T/err' && [ -z \"\$(ls '$T/adir')\" ]"
as=() work="$T/r"
if [ "$(id -u)" = 0 ]; then
	if command -v setpriv >/dev/null && id nobody >/dev/null 2>&1; then
		# libgit2 opens only a repository its user owns.
		cp -r "$T/r" "$T/rn" && chown -R nobody "$T/rn" && chmod 755 "$T"
		as=(setpriv --reuid=nobody --regid="$(id -g nobody)" --clear-groups env HOME="$T/rn")
		work="$T/rn"
	else
		as=(skip)
	fi
fi
if [ "${as[0]:-}" = skip ]; then
	skip "-o over a read-only file" "running as root without setpriv or a nobody user to drop to"
else
	echo ORIGINAL >"$work/keep.md" && chmod 444 "$work/keep.md"
	[ -z "${as[*]}" ] || chown nobody "$work/keep.md"
	(cd "$work" && "${as[@]}" "$BG" -q report --machine e2e -o keep.md >"$T/out" 2>"$T/err")
	rc=$?
	check "-o over a read-only file: exit 3 ($rc), the file as it was (text and mode 444)" bash -c "
		[ $rc = 3 ] && [ \"\$(cat '$work/keep.md')\" = ORIGINAL ] &&
		[ \$(stat -c %a '$work/keep.md') = 444 ] && grep -q '^benchguard: keep.md: Permission denied' '$T/err'"
fi

# ------------------------------------------------- one point per commit
# A commit measured 25 times (bisect and compare leave such commits), its
# last 13 runs 5% slower than its first 12, as runs made at two moments of
# a drifting machine are: drawn run by run that was a step within the
# commit; pooled, it is one point, and no step lies within it.
# Paired runs (a real compare) stay out of the trend unless asked for.
new_repo "$T/p" >/dev/null
cd "$T/p" || exit 1
cat >bench.sh <<'S'
awk -v l="$(cat level)" 'BEGIN { printf "BENCHGUARD v %.6f ms\n", l }'
S
cat >benchguard.json <<'J'
{ "baseline": { "window": 5, "min_runs": 5 }, "defaults": { "warmup": 0, "samples": 1 },
  "benchmarks": [ { "name": "set", "format": "lines", "command": "sh bench.sh" } ] }
J
printf '.benchguard/\n' >.gitignore
echo 100 >level && git add -A && git commit -qm suite
export BENCHGUARD_DB="$T/p.db"
for i in $(seq 1 12); do
	echo "$i" >n.txt && git add n.txt && git commit -qm "c$i"
	if [ "$i" = 8 ]; then
		for k in $(seq 1 25); do
			printf 'BENCHGUARD v %s ms\n' "$((k <= 12 ? 100 : 105))" |
				"$BG" -q import - --format lines --name set --machine e2e >/dev/null
		done
	else
		printf 'BENCHGUARD v 100.%s ms\n' "$((i % 3))" | "$BG" -q import - --format lines --name set --machine e2e >/dev/null
	fi
done
"$BG" -q compare HEAD~1 HEAD --runs 2 --machine e2e >/dev/null 2>&1
"$BG" -q report --machine e2e --format json -o "$T/p.json"
"$BG" -q report --machine e2e --include-paired --format json -o "$T/pp.json"
check "25 runs of one commit are one point, and no step lies within it" $PY - "$T/p.json" "$(git rev-parse HEAD~4)" <<'P'
import json, sys
s = json.load(open(sys.argv[1]))["series"][0]
pts = {p["commit"]: p for p in s["points"]}
assert len(s["points"]) == 12 and len(pts) == 12, [p["commit"][:7] for p in s["points"]]
p = pts[sys.argv[2]]
assert p["runs"] == 25 and len(p["run_ids"]) == 25 and abs(p["mean"] - 0.1026) < 1e-4, p
assert not any(c["last_before"] == c["first_after"] for c in s["change_points"]), s["change_points"]
P
check "paired runs (compare's) stay out of the trend unless --include-paired" $PY - "$T/p.json" "$T/pp.json" <<'P'
import json, sys
a, b = (json.load(open(f))["series"][0]["points"] for f in sys.argv[1:])
assert [p["runs"] for p in a][-2:] == [1, 1], [p["runs"] for p in a]
assert [p["runs"] for p in b][-2:] == [3, 3], [p["runs"] for p in b]
P

# A repository whose branch is not main, no config: the error names the
# branches there are and the option that picks one; with it, the report.
new_repo "$T/m" >/dev/null && cd "$T/m" && git branch -q -m main master && git branch dev
echo "BENCHGUARD x 1 ms" | "$BG" -q import - --format lines --name t --machine e2e >/dev/null
check "report on a repository without main exits 2" expect_rc 2 "$BG" report --machine e2e
check "... naming the branches there are and --branch" \
	grep -q 'unknown baseline branch "main".*branches there: dev, master; name one with --branch' "$T/err"
check "... and --branch master makes the report" expect_rc 0 "$BG" report --machine e2e --branch master --format json
# Ten runs at one commit that measured the same values: their spread is
# rounding alone (about 1e-19 s), and the chart's scale was that narrow, a
# tick step below the values' precision: the tick loop never moved, and
# report grew its output until memory ran out.
new_repo "$T/flat" >/dev/null
printf 'BENCHGUARD t 1 ms\nBENCHGUARD t 1 ms\nBENCHGUARD t 1 ms\n' >"$T/flat.txt"
for _ in 1 2 3 4 5 6 7 8 9 10; do
	(cd "$T/flat" && "$BG" -q --db "$T/flat.db" import "$T/flat.txt" --format lines --name a >/dev/null)
done
# (A memory limit keeps a hang from taking the machine; AddressSanitizer's
# shadow memory needs more address space than any such limit.)
case $BG in *sanitize*) vlimit=unlimited ;; *) vlimit=4000000 ;; esac
check "ten identical runs: report --format html ends, exit 0" bash -c "
	cd '$T/flat' && ulimit -v $vlimit && timeout -s KILL 60 '$BG' -q --db '$T/flat.db' report -o '$T/flat.html'"
check "... its scale has ticks around 1 ms" grep -q 'text-anchor="end">1</text>' "$T/flat.html"

# Runs of two modes in a flat history: each nightly run, at random, at one
# of two levels 10% apart (code layout, ASLR), a fifth of them slower.  The
# change-point filter took the slower runs for outliers and replaced them,
# and chance clusters of them became flat levels: this history had 4 false
# steps, 23 of its 120 runs marked outliers and a level SD of 0.3% against
# the runs' 4%.
new_repo "$T/modes" >/dev/null && cd "$T/modes" || exit 1
for i in $(seq 1 120); do git commit -q --allow-empty -m "modes $i"; done
$PY - "$T" <<'P'
import random, sys
rnd = random.Random(5)
for k in range(120):
    v = 2.0 * (1 + 0.003 * rnd.gauss(0, 1)) * (1.10 if rnd.random() < 0.2 else 1.0)
    open("%s/modes%d.txt" % (sys.argv[1], k), "w").write("BENCHGUARD modes %r ms\n" % v)
P
k=0 bad=0
for sha in $(git rev-list --reverse HEAD | tail -n 120); do
	"$BG" -q --db "$T/modes.db" import "$T/modes$k.txt" --format lines --name b --commit "$sha" \
		>/dev/null || bad=1
	k=$((k + 1))
done
check "a flat history of two modes: 120 runs imported" test "$bad" = 0
check "... report: no step, one level whose SD is the runs' spread, few outliers" bash -c "
	'$BG' -q --db '$T/modes.db' report --since all --format json | $PY -c '
import json, sys
s, = json.load(sys.stdin)[\"series\"]
lv, out = s[\"levels\"], sum(1 for p in s[\"points\"] if p.get(\"outlier\"))
print(\"#\", len(s[\"change_points\"]), \"steps,\", out, \"outliers, level SDs\",
      [round(l[\"sd\"] / l[\"mean\"], 4) for l in lv])
sys.exit(not (s[\"change_points\"] == [] and len(lv) == 1 and lv[0][\"sd\"] > 0.03 * lv[0][\"mean\"]
              and out <= 3))'"

finish
