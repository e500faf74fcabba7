# t_hostile_output.sh -- names, units and subjects written by other people
# are printed, never interpreted: in the HTML report (opened in headless
# Chromium), in Markdown (the PR comment, the step summary, the report), on
# the terminal and in the CI log (no escape sequence, no line of data that
# starts with "::"), and in JSON (valid UTF-8, no Infinity or NaN).
#
# Two ways in: what ingest still accepts (a unit that is an <img> tag, a
# name with '|', backticks, @mentions and "<!--"), and what a database
# written before ingest refused control characters and invisible ones may
# hold (escape and OSC sequences, a forged "::error" line, bidi overrides,
# invalid UTF-8, a zero-width space), put there with sqlite3 as an older
# benchguard would have.  Tables line up by terminal columns: CJK names
# take two a character, combining accents none.
. "$(dirname "$0")/lib.sh"

PY=/usr/bin/python3
HERE=$(cd "$(dirname "$0")" && pwd)
new_repo "$T/r" >/dev/null
cd "$T/r" || exit 1
cat >benchguard.json <<'J'
{ "baseline": { "branch": "main", "window": 20, "min_runs": 3 },
  "benchmarks": [ { "name": "h", "command": "cat ../cur.txt", "format": "lines" } ] }
J
git add benchguard.json && git commit -qm "suite"

IMG='<img/src="http://127.0.0.1:9/x.png"/onerror=console.error("pwned")>'
NAME='pipe|tick`x`@octocat<!--'
for i in 1 2 3 4 5 6 7; do
	git commit -q --allow-empty -m "change $i"
	slow=1.0
	[ "$i" = 7 ] && slow=1.5
	$PY - "$T/run$i.txt" "$slow" "$IMG" "$NAME" <<'P'
import random, sys
out, slow, img, name = sys.argv[1], float(sys.argv[2]), sys.argv[3], sys.argv[4]
rnd = random.Random(int(slow * 100) + len(out))
with open(out, "w") as f:
    for _ in range(10):
        g = lambda: 1 + 0.01 * rnd.gauss(0, 1)
        f.write("BENCHGUARD unit %.6f %s\n" % (2.0 * slow * g(), img))
        f.write("BENCHGUARD %s %.6f ms\n" % (name, 3.0 * slow * g()))
        f.write("BENCHGUARD comment %.6f <!--\n" % (4.0 * slow * g()))
        f.write("BENCHGUARD old %.6f ms\n" % (5.0 * slow * g()))
        # A long name of three-byte characters (1,024 bytes, the most).
        f.write("BENCHGUARD long%s %.6f ms\n" % ("\u65e5" * 340, 6.0 * slow * g()))
        # Wide characters, combining accents; "zw" gets a zero-width space below.
        f.write("BENCHGUARD \u65e5\u672c\u8a9e\u540d\u524d %.6f ms\n" % (7.0 * slow * g()))
        f.write("BENCHGUARD " + "e\u0301" * 4 + " %.6f ms\n" % (8.0 * slow * g()))
        f.write("BENCHGUARD parse %.6f ms\n" % (9.0 * slow * g()))
        f.write("BENCHGUARD zw %.6f ms\n" % (9.0 * slow * g()))
P
	"$BG" -q import "$T/run$i.txt" --format lines --name h --machine e2e >/dev/null ||
		echo "# import $i failed"
done
check "hostile but valid names and units are stored" \
	test "$(sqlite3 .benchguard/results.db "SELECT count(*) FROM series WHERE unit LIKE '<img%' OR metric LIKE '%octocat<!--'")" = 2

# What an older benchguard stored before names were checked at ingest.
DB=.benchguard/results.db
sqlite3 "$DB" "UPDATE series SET metric = 'old' || char(27) || ']0;owned' || char(7) ||
  char(27) || '[31m' || char(10) || '::error title=x::forged' || char(8238) || 'gnp.' ||
  CAST(X'FF' AS TEXT) WHERE metric = 'old';
  UPDATE commits SET subject = 'subject ' || char(27) || '[2J' || char(10) ||
  '::warning::forged too' WHERE subject = 'change 7';
  UPDATE commits SET subject = 'Revert ' || char(8238) || 'evitisoper' || char(8236) ||
  ' slowdown ' || char(155) WHERE subject = 'change 6';
  UPDATE series SET metric = 'pa' || char(8203) || 'rse' WHERE metric = 'zw';"
# U+200B in UTF-8, for the checks below (bash's $'\u200b' needs a UTF-8 locale).
ZWSP=$(printf '\342\200\213')
export ZWSP
check "an older database's control characters are in place" \
	test "$(sqlite3 "$DB" "SELECT count(*) FROM series WHERE instr(metric, char(27)) > 0")" = 1

# --------------------------------------------------------------- terminal
# clean FILE: no escape, BEL, backspace or CR; no line starting with "::"
# except the workflow commands benchguard itself writes (annotations).
cat >"$T/clean.py" <<'P'
import re, sys
data = open(sys.argv[1], "rb").read()
bad = [c for c in (0x1b, 0x07, 0x08, 0x0d, 0x9b) if bytes([c]) in data]
text = data.decode("utf-8", "replace")
forged = [l for l in text.split("\n") if l.startswith("::")
          and not re.match(r"::(error|warning|notice) title=benchguard[^:]*::", l)]
if "\u202e" in text:
    bad.append("U+202E")
# A character that shows nothing: "pa<U+200B>rse" would read as "parse".
if "\u200b" in text:
    bad.append("U+200B")
for b in bad:
    print("# raw control or invisible character %r in %s" % (b, sys.argv[1]))
for l in forged:
    print("# a line of data reads as a workflow command: %r" % l)
sys.exit(1 if bad or forged else 0)
P
"$BG" check --machine e2e >"$T/check.out" 2>"$T/check.err"
check "check: exit 1 on the regression" test $? = 1
check "check's table: control characters shown, not sent" $PY "$T/clean.py" "$T/check.out"
check "... and shown visibly" grep -qF 'old\x1b]0;owned\x07\x1b[31m\x0a::error title=x::forged\u{202e}gnp.\xff' "$T/check.out"
check "check's stderr is clean too" $PY "$T/clean.py" "$T/check.err"
check "... an invisible character too" grep -qF 'h:pa\u{200b}rse' "$T/check.out"
"$BG" history h --limit 3 >"$T/hist.out" 2>&1
check "history's table is clean" $PY "$T/clean.py" "$T/hist.out"
# columns.py FILE REGEX: the regex's first match ends at one terminal
# column in every line that has it (wide characters take two, combining
# and invisible ones none, as a terminal shows them).
cat >"$T/columns.py" <<'P'
import re, sys, unicodedata as u
def width(s):
    return sum(0 if u.combining(c) or u.category(c) in ("Cf", "Mn", "Me")
               else 2 if u.east_asian_width(c) in "WF" else 1 for c in s)
at = {}
for line in open(sys.argv[1], encoding="utf-8").read().split("\n"):
    m = re.search(sys.argv[2], line)
    if m:
        at.setdefault(width(line[:m.end()]), []).append(line[:40])
if len(at) != 1:
    for col, lines in sorted(at.items()):
        print("# column %d: %r" % (col, lines[:3]))
sys.exit(0 if len(at) == 1 else 1)
P
check "check's table lines up: CJK, combining accents, a shown joiner" \
	$PY "$T/columns.py" "$T/check.out" '\u00b1 \S+ \S+'
check "history's table lines up" $PY "$T/columns.py" "$T/hist.out" '  [0-9a-f]{12}  '
# Under GitHub Actions, `ci`: annotations on stdout, the summary in a file.
cp "$T/run7.txt" "$T/cur.txt"
GITHUB_ACTIONS=true GITHUB_STEP_SUMMARY="$T/summary.md" "$BG" ci --machine e2e \
	>"$T/gh.out" 2>&1
check "ci wrote its step summary and annotations" grep -q '^::error title=benchguard' "$T/gh.out"
check "GitHub Actions log: no forged workflow command, no escape sequence" $PY "$T/clean.py" "$T/gh.out"
check "a long series name's annotation keeps its numbers, in valid UTF-8" $PY - "$T/gh.out" <<'P'
import re, sys
lines = [l for l in open(sys.argv[1], "rb").read().split(b"\n") if b"h:long" in l and l.startswith(b"::error")]
assert len(lines) == 1, lines
l = lines[0].decode("utf-8")  # raises on a character cut in two
assert "\u65e5" * 340 + " got " in l, l[-200:]
# Its baseline runs are alike (one seed): judged by the noise floor, no p
# ("%" is "%25" in a workflow command).
assert re.search(r" worse than the main baseline \(near-deterministic, noise floor \S+%25, \d+ baseline runs\)(; .*)?$", l), l[-200:]
assert "nan" not in l and "inf" not in l, l[-200:]
P
# A message naming a hostile series: one line, shown.
"$BG" history "h:old$(printf '\033')[31m" >"$T/msg.out" 2>"$T/msg.err"
check "an error message quoting a name is clean" $PY "$T/clean.py" "$T/msg.err"

# A failing build's output (compiler errors quote the code being built,
# a pull request's): its tail on stderr is escaped as a benchmark's stderr
# is, and starts at a character even where 2,000 bytes of stdout cut one.
new_repo "$T/b" >/dev/null
cd "$T/b" || exit 1
cat >benchguard.json <<'J'
{ "build": "sh build.sh", "benchmarks": [ { "name": "b", "command": "true" } ] }
J
cat >build.sh <<'S'
printf 'x'; i=0; while [ $i -lt 700 ]; do printf '\346\227\245'; i=$((i + 1)); done
printf '\nerror: \033]0;pwned\007\033[2J\302\2332J \342\200\256gnp.exe\n'
printf '::error file=x::forged\n ##[error]forged too\n'
printf 'stderr: \033[31mred\n::warning::forged as well\n' >&2
exit 1
S
printf '.benchguard/\n' >.gitignore
git add -A && git commit -qm "a failing build"
"$BG" run >/dev/null 2>"$T/build.err"
check "a failing build's tail on stderr: control characters and workflow commands shown" \
	$PY "$T/clean.py" "$T/build.err"
check "... in valid UTF-8" $PY -c 'open(__import__("sys").argv[1], "rb").read().decode("utf-8")' "$T/build.err"
check "... and shown visibly" bash -c "grep -qF 'error: \x1b]0;pwned\x07\x1b[2J\u{009b}2J \u{202e}gnp.exe' '$T/build.err' &&
	grep -qxF '\x3a:error file=x::forged' '$T/build.err' && grep -qxF ' \x23#[error]forged too' '$T/build.err' &&
	grep -qxF '\x3a:warning::forged as well' '$T/build.err'"
"$BG" run --commit HEAD >/dev/null 2>"$T/pinned.err"
check "run --commit: the build log's tail is shown the same way" bash -c "
	grep -q '^--- build log of' '$T/pinned.err' && $PY '$T/clean.py' '$T/pinned.err' &&
	grep -qxF '\x3a:error file=x::forged' '$T/pinned.err'"
check "... in valid UTF-8" $PY -c 'open(__import__("sys").argv[1], "rb").read().decode("utf-8")' "$T/pinned.err"

# A path is written by whoever named the directories: `db info`, `db copy`,
# `init`, `gc` and `baseline import` show it as the error messages do.
D="$T/dir$(printf '\033]0;pwned\007\302\23331m\342\200\256')x"
new_repo "$D" >/dev/null
cd "$D" || exit 1
"$BG" init >"$T/paths.out" 2>&1
cat >benchguard.json <<'J'
{ "benchmarks": [ { "name": "b", "command": "echo BENCHGUARD v 1 ms", "format": "lines" } ] }
J
printf '.benchguard/\n' >.gitignore
git add -A && git commit -qm "suite"
"$BG" -q run --machine e2e >/dev/null 2>&1
{
	"$BG" db info
	"$BG" db copy .benchguard/results.db "$D/copy.db"
	"$BG" baseline export --machine e2e -o "$D/base.json"
	"$BG" --db "$D/other.db" baseline import "$D/base.json" --machine e2e
	"$BG" gc --dry-run
} >>"$T/paths.out" 2>&1
check "a path with control characters: init, db info, db copy, baseline import and gc show it" \
	$PY "$T/clean.py" "$T/paths.out"
check "... visibly, on each line that names it" bash -c "
	test \$(grep -cF 'dir\x1b]0;pwned\x07\u{009b}31m\u{202e}x' '$T/paths.out') = 7"
cd "$T/r" || exit 1

# ---------------------------------------------------------------- Markdown
"$BG" --format markdown check --machine e2e >"$T/check.md" 2>/dev/null
"$BG" report --machine e2e --format markdown -o "$T/report.md" 2>/dev/null
cat >"$T/md.py" <<'P'
import re, sys
fail = []
for path in sys.argv[1:]:
    text = open(path, encoding="utf-8", errors="replace").read()
    # GFM splits a row at every '|' not escaped by a backslash, code spans included.
    cells = lambda row: len(re.split(r"(?<!\\)\|", row.strip())) - 2
    head = None
    for line in text.split("\n"):
        if not line.startswith("|"):
            head = None
            continue
        if head is None:
            head = cells(line)
        elif cells(line) != head:
            fail.append("%s: row has %d cells, header %d: %r" % (path, cells(line), head, line))
    # <code> around escaped text, then backtick code spans: what they hold is
    # inert, as long as a backtick span holds no '<' (an HTML tag outranks it).
    bare = re.sub(r"<code>.*?</code>", "", text).replace("\\`", "")
    for m in re.finditer(r"(`+)(.*?)(?<!`)\1(?!`)", bare):
        if "<" in m.group(2):
            fail.append("%s: a '<' inside a code span: %r" % (path, m.group(0)))
    bare = re.sub(r"(`+)(?!`).*?(?<!`)\1(?!`)", "", bare)
    if re.search(r"@octocat", bare):
        fail.append("%s: a live @mention" % path)
    if "<!--" in bare.replace("<!-- benchguard:", ""):
        fail.append("%s: a raw <!-- that would hide the rest" % path)
    if "<img" in bare:
        fail.append("%s: a raw <img> tag" % path)
    if "\x1b" in text or "\u202e" in text:
        fail.append("%s: a raw control character" % path)
    # Every code span closes on its line: an even number of fences.
    for line in text.split("\n"):
        runs = re.findall(r"`+", re.sub(r"\\`", "", line))
        if len(runs) % 2:
            fail.append("%s: a code span left open: %r" % (path, line))
for f in fail:
    print("# " + f)
sys.exit(1 if fail else 0)
P
check "check's Markdown: rows keep their cells, no live mention, comment or tag" $PY "$T/md.py" "$T/check.md"
check "... the hostile series is in it" grep -q 'octocat' "$T/check.md"
check "... the zero-width space shown, not printed" bash -c "
	grep -qF '\`h:pa\\u{200b}rse\`' '$T/check.md' && ! grep -qF \"\$ZWSP\" '$T/check.md'"
"$BG" --format junit check --machine e2e >"$T/check.xml" 2>/dev/null
check "JUnit XML: clean, the zero-width space shown" bash -c "
	$PY '$T/clean.py' '$T/check.xml' && grep -qF 'name=\"pa\\u{200b}rse\"' '$T/check.xml'"
check "the step summary too" $PY "$T/md.py" "$T/summary.md"
check "the Markdown report too" $PY "$T/md.py" "$T/report.md"

# -------------------------------------------------------------------- JSON
cat >"$T/strict_json.py" <<'P'
import json, sys
def no_constant(name):
    raise ValueError("non-JSON number " + name)
fail = 0
for path in sys.argv[1:]:
    try:
        text = open(path, "rb").read().decode("utf-8")  # strict: valid UTF-8
        json.loads(text, parse_constant=no_constant)
    except Exception as e:
        print("# %s: %s" % (path, e))
        fail = 1
sys.exit(fail)
P
"$BG" --json check --machine e2e >"$T/check.json" 2>/dev/null
"$BG" --json history h >"$T/hist.json" 2>/dev/null
"$BG" report --machine e2e --format json -o "$T/report.json" 2>/dev/null
check "check, history and report JSON: valid UTF-8, strict JSON" \
	$PY "$T/strict_json.py" "$T/check.json" "$T/hist.json" "$T/report.json"

# -------------------------------------------------------------------- HTML
"$BG" report --machine e2e -o "$T/report.html" 2>/dev/null
cat >"$T/html_tags.py" <<'P'
import sys
from html.parser import HTMLParser
allowed = {"html", "head", "meta", "title", "style", "body", "main", "header", "h1", "h2",
           "h3", "p", "div", "b", "i", "span", "code", "a", "table", "tr", "th", "td", "section",
           "svg", "g", "line", "rect", "path", "polyline", "circle", "text", "title", "footer",
           "script", "sub", "br", "marker", "defs", "ul", "li", "details", "summary", "small", "em", "strong"}
fail = []
class P(HTMLParser):
    def handle_starttag(self, tag, attrs):
        if tag not in allowed:
            fail.append("element <%s>" % tag)
        for k, v in attrs:
            if k.startswith("on"):
                fail.append("attribute %s on <%s>" % (k, tag))
    def handle_comment(self, data):
        fail.append("comment <!--%s-->" % data[:40])
p = P()
p.feed(open(sys.argv[1], encoding="utf-8", errors="replace").read())
if p.rawdata.strip():  # an unclosed "<!--" from data swallows the rest of the page
    fail.append("the page ends inside markup: %r" % p.rawdata[:60])
for f in fail:
    print("# " + f)
sys.exit(1 if fail else 0)
P
# -o to something that is not a regular file writes into it, never over it
# (as root, renaming over /dev/null would replace the device).
mkfifo "$T/fifo"
timeout 20 cat "$T/fifo" >"$T/from-fifo" &
"$BG" report --machine e2e -o "$T/fifo" >/dev/null 2>&1
wait
check "report -o a FIFO writes through it and leaves it a FIFO" \
	bash -c "test -p '$T/fifo' && grep -q '</html>' '$T/from-fifo'"
check "the HTML report: no element or event handler from data" $PY "$T/html_tags.py" "$T/report.html"
check "... the unit is there as text" grep -qF '&lt;img/src=&quot;http://127.0.0.1:9/x.png&quot;' "$T/report.html"
# The hover tooltip shows a subject from the page's JSON as it is
# (textContent): a bidi override there would be applied, not shown.
check "the tooltips' commits JSON: a subject's controls in their visible form" $PY - "$T/report.html" <<'P'
import json, re, sys
html = open(sys.argv[1], encoding="utf-8").read()
commits = json.loads(re.search(r'<script type="application/json" id="bg-commits">(.*?)</script>', html, re.S).group(1))
subjects = [c[2] for c in commits]
assert "Revert \\u{202e}evitisoper\\u{202c} slowdown \\u{009b}" in subjects, subjects
bad = [s for s in subjects if re.search("[\x00-\x1f\x7f-\x9f\u061c\u200e\u200f\u2028-\u202e\u2066-\u2069]", s)]
assert not bad, bad
P
check "... the zero-width space shown, not printed" bash -c "
	grep -qF 'pa\\u{200b}rse' '$T/report.html' && ! grep -qF \"\$ZWSP\" '$T/report.html'"
if [ ! -x "${BG_CHROMIUM:-/usr/bin/chromium}" ] || [ ! -x "${BG_CHROMEDRIVER:-/usr/bin/chromedriver}" ]; then
	skip "the HTML report in headless Chromium runs nothing from data" "skipped: no chromium"
else
	$PY "$HERE/report_browser.py" "$T/report.html" "$T/shot.png" >"$T/browser.json" 2>"$T/browser.err"
	check "the HTML report in headless Chromium: no request but the page, no script from data" $PY -c '
import json, sys
b = json.load(open(sys.argv[1]))
bad = [r for r in b["requests"] if r != b["page"]] + [m for m in b["severe"]]
for x in bad: print("# " + x)
sys.exit(1 if bad or not b["charts"] else 0)' "$T/browser.json"
	check "... its tooltip shows a subject's bidi override, never applies it" $PY -c '
import json, sys
tips = [t for t in json.load(open(sys.argv[1]))["first_tips"] if t and "Revert" in t]
ok = tips and all("Revert \\u{202e}evitisoper\\u{202c}" in t and "\u202e" not in t for t in tips)
sys.exit(0 if ok else print("# %s" % ascii(tips)) or 1)' "$T/browser.json"
fi
# A branch name longer than a line of the header shows (git takes 722
# bytes): cut where a character starts, and "…" says it was.
B=$($PY -c 'c = "\u65e5" * 80; print(c + "/" + c + "/" + c)')
git checkout -q -b "$B" && git commit -q --allow-empty -m "on a long branch"
"$BG" -q import "$T/run7.txt" --format lines --name h --machine e2e >/dev/null
"$BG" check --machine e2e >"$T/long.out" 2>/dev/null
check "check's header: a long branch name cut at a character, ending in \"…\"" $PY - "$T/long.out" <<'P2'
import sys
head = open(sys.argv[1], "rb").read().split(b"\n")[0].decode("utf-8")  # raises on a cut character
assert "\u65e5" * 80 + "/" in head and "\u2026) on e2e" in head, head
P2
git checkout -q main
finish
