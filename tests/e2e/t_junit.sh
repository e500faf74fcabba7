# t_junit.sh -- the verdict as JUnit XML for CI dashboards, on real runs of
# a real repository: a series that regresses by 25%, one that does not, one
# with no baseline yet and one whose name has characters XML must escape.
# `check --format junit` and `ci --junit FILE` are valid against
# tests/fixtures/junit/junit.xsd (what GitLab and Jenkins read), the
# regression is a <failure> whose message has the change, p and the
# baseline, the counts add up, ci's exit code is the verdict's; a failed
# benchmark is an <error>; other commands refuse --format junit.
. "$(dirname "$0")/lib.sh"

XSD="${BG_ROOT:?}/tests/fixtures/junit/junit.xsd"
# The name a lines benchmark may give a metric (no blank, no control
# character) with everything XML has to escape, and more than ASCII.
HOSTILE='a<b>&"c'"'"'d]]>é→'
export HOSTILE

new_repo "$T/r" >/dev/null && cd "$T/r" || exit 1
# Values set, not timed (as level_suite's): the number in `level` (set:v)
# or 50 (steady:v and the hostile metric, named in hostile.txt) times a ~1%
# wobble from a counter.
cat >bench.sh <<S
n=\$(cat "$T/ctr" 2>/dev/null || echo 0); n=\$((n + 1)); echo \$n >"$T/ctr"
l=\$(cat "\$1" 2>/dev/null || echo "\$1") name=\$(cat "\$2" 2>/dev/null || echo "\$2")
awk -v n=\$n -v l=\$l -v name="\$name" 'BEGIN { m = l * (1 + 0.01 * sin(2.3 * n))
	for (d = -1; d <= 1; d++) printf "BENCHGUARD %s %.6f ms\n", name, m * (1 + 0.001 * d) }'
S
suite() { # [extra benchmark JSON]
	cat >benchguard.json <<J
{ "baseline": { "window": 6, "min_runs": 5 },
  "defaults": { "warmup": 0, "samples": 1 },
  "benchmarks": [ { "name": "set", "format": "lines", "command": "sh bench.sh level v" },
                  { "name": "steady", "format": "lines",
                    "command": "sh bench.sh 50 v && sh bench.sh 50 hostile.txt" } ${1:+, $1} ] }
J
}
suite
printf '.benchguard/\n' >.gitignore
printf '%s' "$HOSTILE" >hostile.txt
echo 100 >level
git add -A && git commit -qm "suite, level 100"
export BENCHGUARD_DB="$T/db"
for i in 1 2 3 4 5 6; do
	echo "$i" >notes.txt && git add notes.txt && git commit -qm "history $i"
	"$BG" -q ci >/dev/null 2>&1
done
check "six commits of history stored" test "$(sqlite3 "$BENCHGUARD_DB" \
	"SELECT count(DISTINCT commit_id) FROM runs")" -ge 6

# The candidate: set:v 25% slower, a new benchmark with no baseline yet.
echo 125 >level
suite '{ "name": "fresh", "format": "lines", "command": "sh bench.sh 10 v" }'
git commit -qam "slower, and a new benchmark"
ref=$(git rev-parse HEAD~1 | cut -c1-12)
# Under GitHub Actions too: the annotations go to stderr, where the runner
# reads them as well, and stdout stays one JSON document.
GITHUB_ACTIONS=true "$BG" -q ci --json >"$T/plain.json" 2>"$T/plain.err"
plain_rc=$?
check "ci --json under GITHUB_ACTIONS: stdout is valid JSON" python3 -m json.tool "$T/plain.json" /dev/null
check "... the ::error annotation is on stderr" grep -q '^::error title=benchguard%3A performance regression::set:v got' "$T/plain.err"
"$BG" -q ci --junit "$T/rep/ci.xml" >"$T/ci.out" 2>"$T/ci.err"
rc=$?
check "ci --junit FILE: exit 1 on the regression (got $rc), as without it ($plain_rc)" \
	test "$rc" = 1 -a "$plain_rc" = 1
check "... wrote FILE, making its folder" test -s "$T/rep/ci.xml"
check "... and left no temporary file beside it" test "$(ls "$T/rep")" = ci.xml
check "... its stdout is still the verdict table" grep -q '^regression  *set:v' "$T/ci.out"
expect_rc 1 "$BG" check --commit HEAD --format junit
cp "$T/out" "$T/check.xml"
check "check --format junit: exit 1, XML on stdout" head -c 5 "$T/check.xml" | grep -q '^<?xml'

if command -v xmllint >/dev/null; then
	for f in "$T/rep/ci.xml" "$T/check.xml"; do
		check "$(basename "$f") is valid against junit.xsd" \
			xmllint --noout --schema "$XSD" "$f"
	done
else
	skip "the JUnit XML is valid against junit.xsd" "no xmllint (Debian: libxml2-utils)"
fi

# READ FILE: what the dashboards read, checked with python3's parser.
read_junit() {
	python3 - "$1" <<'P'
import os, re, sys
import xml.etree.ElementTree as ET

root = ET.parse(sys.argv[1]).getroot()
assert root.tag == "testsuites", root.tag
def outcome(tc):
    kids = [k.tag for k in tc if k.tag in ("failure", "error", "skipped")]
    assert len(kids) <= 1, kids
    return kids[0] if kids else "passed"
cases = {}
totals = dict(tests=0, failures=0, errors=0, skipped=0)
for ts in root.findall("testsuite"):
    tcs = ts.findall("testcase")
    n = dict(tests=len(tcs), failures=0, errors=0, skipped=0)
    for tc in tcs:
        o = outcome(tc)
        key = {"failure": "failures", "error": "errors", "skipped": "skipped"}.get(o)
        if key:
            n[key] += 1
        assert tc.get("classname") == "benchguard." + ts.get("name"), tc.attrib
        assert float(tc.get("time")) >= 0
        cases[(ts.get("name"), tc.get("name"))] = (o, tc)
    for k, v in n.items():
        assert int(ts.get(k)) == v, (ts.get("name"), k, ts.get(k), v)
        totals[k] += v
for k, v in totals.items():
    assert int(root.get(k)) == v, (k, root.get(k), v)

o, tc = cases[("set", "v")]
assert o == "failure", o
f = tc.find("failure")
assert f.get("type") == "regression", f.attrib
m = f.get("message")
# The change (+2x.xx%), p (adjusted), the baseline: its value and runs, or
# the commit the pairs were measured beside.
assert re.search(r"\+2[0-9]\.[0-9]{2}%", m), m
assert re.search(r"\bp (<0\.0001|[0-9.]+) adjusted", m) or "noise floor" in m, m
assert re.search(r"baseline [0-9.]+ ms over [0-9]+ runs of main", m), m
assert "series: set:v" in f.text and "verdict: regression" in f.text, f.text
o, tc = cases[("steady", "v")]
assert o == "passed", o
assert "verdict: unchanged" in tc.find("system-out").text
o, tc = cases[("fresh", "v")]
assert o == "skipped", o
assert tc.find("skipped").get("message").startswith("no-baseline: "), tc.find("skipped").attrib
# The hostile name reads back as it was written.
o, tc = cases[("steady", os.environ["HOSTILE"])]
assert o == "passed", o
assert totals == dict(tests=4, failures=1, errors=0, skipped=1), totals
print("ok")
P
}
check "ci's JUnit: set:v a failure with change, p and baseline; steady:v passed; fresh:v skipped; counts add up" \
	read_junit "$T/rep/ci.xml"
check "check's JUnit: the same" read_junit "$T/check.xml"
check "... ci's message: the pairs, beside the baseline's newest commit ($ref), then the first run" \
	grep -qE "message=\"regression: \\+2[0-9.]*% in [0-9]+ pairs beside commit $ref, p (&lt;)?[0-9.]+ adjusted \\(first run \\+2[0-9.]*% against the baseline" "$T/rep/ci.xml"
check "the hostile name is escaped in the raw XML" \
	grep -qF 'name="a&lt;b&gt;&amp;&quot;c'"'"'d]]&gt;é→"' "$T/check.xml"

# A crashing benchmark: an <error>, exit 3 as ci's own (failure outranks a regression).
suite '{ "name": "crash", "command": "exit 7" }'
git commit -qam "a benchmark that fails"
"$BG" -q ci --confirm 0 --junit "$T/crash.xml" >/dev/null 2>&1
rc=$?
check "a failed benchmark: ci exits 3 (got $rc)" test "$rc" = 3
check "... and its testcase is an <error type=\"failed\">, counted" python3 - "$T/crash.xml" <<'P'
import sys
import xml.etree.ElementTree as ET
root = ET.parse(sys.argv[1]).getroot()
ts = [s for s in root.findall("testsuite") if s.get("name") == "crash"][0]
tc = ts.find("testcase")
e = tc.find("error")
assert tc.get("name") == "crash" and e is not None and e.get("type") == "failed", tc.attrib
assert e.get("message").startswith("failed: "), e.attrib
assert ts.get("errors") == "1" and int(root.get("errors")) >= 1, root.attrib
P
if command -v xmllint >/dev/null; then
	check "... valid against junit.xsd" xmllint --noout --schema "$XSD" "$T/crash.xml"
fi

# A database edited (or written by an older benchguard) to hold line breaks
# and a workflow command in a metric and the branch: `check --format junit`
# prints into the CI log, so no line of its data starts with "::" and none
# holds "##[", in attributes (libxml2's &#10;) or in the text (raw before).
cp "$BENCHGUARD_DB" "$T/edited.db"
sqlite3 "$T/edited.db" "UPDATE series SET metric = 'v' || char(10) || '::error::forged' || char(10) || '##[error]x' WHERE benchmark = 'steady' AND metric = 'v';
UPDATE runs SET branch = 'main' || char(10) || '::warning::forged' WHERE branch IS NOT NULL" 2>"$T/e" ||
	sed 's/^/# sqlite3: /' "$T/e"
"$BG" --db "$T/edited.db" check --format junit >"$T/edited.xml" 2>/dev/null
check "an edited database: check --format junit still writes the document" grep -q '</testsuites>' "$T/edited.xml"
check "... no line starts with :: and none holds ##[" bash -c "
	! grep -nE '^[[:space:]]*::|##\\[' '$T/edited.xml'"
check "... the line breaks shown as \\x0a, in the name and in the details" bash -c "
	grep -qF 'name=\"v\\x0a::error::forged\\x0a\\x23#[error]x\"' '$T/edited.xml' &&
	grep -qF 'series: steady:v\\x0a::error::forged\\x0a\\x23#[error]x' '$T/edited.xml' &&
	grep -qF '(main\\x0a::warning::forged) on machine' '$T/edited.xml' &&
	grep -qF 'name=\"branch\" value=\"main\\x0a::warning::forged\"' '$T/edited.xml'"
check "... valid against junit.xsd" xmllint --noout --schema "$XSD" "$T/edited.xml"

# An unwritable FILE: a warning; the exit code stays the verdict's.
"$BG" -q ci --confirm 0 --junit /proc/nope/x.xml >/dev/null 2>"$T/err"
rc=$?
check "an unwritable --junit FILE: a warning, exit still 3 (got $rc)" \
	bash -c "[ $rc = 3 ] && grep -q 'cannot write the JUnit report' '$T/err'"

for c in "run" "history set:v" "report"; do
	# shellcheck disable=SC2086
	check "benchguard --format junit $c: exit 2 with a sentence" bash -c "
		\"$BG\" --format junit $c >/dev/null 2>'$T/e'; [ \$? = 2 ] &&
		grep -q '^benchguard: .* cannot print JUnit XML: --format junit is for check' '$T/e'"
done
check "benchguard --format junit help run: the help, exit 0, as --help" bash -c "
	\"$BG\" --format junit help run >'$T/o' 2>'$T/e' && grep -q '^usage: benchguard run' '$T/o' && [ ! -s '$T/e' ]"
check "ci --format junit points at --junit FILE" bash -c "
	\"$BG\" ci --format junit >/dev/null 2>'$T/e'; [ \$? = 2 ] && grep -q 'with --junit FILE' '$T/e'"
check "ci --junit without a file name: exit 2" bash -c "\"$BG\" ci --junit '' >/dev/null 2>&1; [ \$? = 2 ]"

finish
