# t_hostile_input.sh -- input written to hurt, through the real binary:
# a configuration nested 50,000 deep (`check`, `run`), names that carry
# terminal escapes, CI workflow commands, bidi overrides, characters that
# show nothing (U+200B) or invalid UTF-8 (`import` of every format, `run`, `baseline import`), a go result line
# that repeats its unit 200,000 times, 200,000 skipped go benchmarks, perf stat lines and event counts
# without end, nvbench side files
# that name /dev/zero, a FIFO, a path out of the folder or a symlink out of
# it, and a baseline whose machine facts hold a newline.  Each is refused
# with exit 2 and one line naming the file and the place, stores nothing,
# never hangs (every command runs under `timeout 10`, longer under the
# sanitizers) and never prints the hostile bytes themselves.
. "$(dirname "$0")/lib.sh"

PY=/usr/bin/python3
new_repo "$T/r" >/dev/null
cd "$T/r" || exit 1
runs() { sqlite3 .benchguard/results.db 'SELECT count(*) FROM runs' 2>/dev/null || echo 0; }
# refused CMD...: exit 2 within 10 s (the sanitizer build: `bound`).
refused() { expect_rc 2 timeout "$(bound 10)" "$@"; }
# err_has TEXT: stderr holds TEXT (fixed string).
err_has() { grep -qF -- "$1" "$T/err" || { sed 's/^/# err: /' "$T/err"; return 1; }; }
# err_clean: stderr is one line of printable text (no ESC, BEL, CR or other control).
err_clean() {
	[ "$(wc -l <"$T/err")" -eq 1 ] && ! LC_ALL=C grep -q $'[\x01-\x09\x0b-\x1f\x7f]' "$T/err" ||
		{ od -c "$T/err" | head -5 | sed 's/^/# /'; return 1; }
}

# ------------------------------------------------- row 1: deep nesting
$PY -c 'import sys; sys.stdout.write("{\"project\": " + "[" * 50000)' >benchguard.json
check "check: a config nested 50,000 deep is exit 2, not a crash" refused "$BG" check
check "... saying where and why" err_has "benchguard.json:1: nesting deeper than 64 levels"
check "run: the same" refused "$BG" run
check "... the same message" err_has "benchguard.json:1: nesting deeper than 64 levels"
# Closed, so json-c's own limit and the scanner's must agree on where 64 ends.
$PY -c 'import sys; sys.stdout.write("{\"project\": \"p\", \"x\": " + "[" * 70 + "]" * 70 + "}")' >benchguard.json
check "a closed document 71 deep: the same message" refused "$BG" check
check "... naming the line" err_has "benchguard.json:1: nesting deeper than 64 levels"
$PY -c 'import sys; sys.stdout.write("{\"project\": \"p\", \"benchmarks\": " + "[" * 63 + "]" * 63 + "}")' >benchguard.json
check "64 levels are still read (the error is about the key, not the depth)" bash -c "
	timeout $(bound 10) \"$BG\" check >/dev/null 2>\"$T/err\"; ! grep -q nesting \"$T/err\" && grep -q benchmarks \"$T/err\""
# Wide, not deep: 250,000 keys in one object (3.5 MB, under the 4 MiB bound)
# are checked for duplicates in one pass, not each against all before it.
$PY -c 'import sys; sys.stdout.write("{\"project\": \"p\", \"defaults\": {" + ", ".join("\"k%d\": 0" % i for i in range(250000)) + "}}\n")' >benchguard.json
check "a config object of 250,000 keys: exit 2 within $(bound 10) s" refused "$BG" check
check "... for its first unknown key" err_has 'defaults: unknown key "k0"'
$PY -c 'import sys; sys.stdout.write("{\"project\": \"p\", \"defaults\": {" + ", ".join("\"k%d\": 0" % (i % 200000) for i in range(200001)) + "}}\n")' >benchguard.json
check "... and one key there twice, at its end: found" refused "$BG" check
check "... as a duplicate" err_has 'defaults: duplicate key "k0"'
rm -f benchguard.json

# Result files and baselines nested deep: the same bound, exit 2.
$PY -c 'import sys; sys.stdout.write("{\"benchmarks\": " + "[" * 50000)' >"$T/deep.json"
for fmt in gbench nvbench hyperfine pytest; do
	check "import --format $fmt of a 50,000-deep file: exit 2" refused "$BG" import "$T/deep.json" --format $fmt
	check "... nesting deeper than 64 levels" err_has "deep.json:1: nesting deeper than 64 levels"
done
$PY -c 'import sys; sys.stdout.write("<Catch2TestRun>\n" + "<Section name=\"s\">" * 50000)' >"$T/deep.xml"
check "import --format catch2 of a 50,000-deep file: exit 2" refused "$BG" import "$T/deep.xml" --format catch2
check "... libxml2's depth bound, on line 2" err_has "deep.xml:2: Excessive depth in document: 256"
check "baseline import of it: exit 2" refused "$BG" baseline import "$T/deep.json"
check "... nesting deeper than 64 levels" err_has "deep.json:1: nesting deeper than 64 levels"

# --------------------------------------- row 4: hostile names at ingest
gb() { # FILE NAME-as-JSON-string: a gbench file with one measured entry named so
	printf '{"benchmarks": [{"name": %s, "run_type": "iteration", "real_time": 1, "cpu_time": 1, "time_unit": "ns"}]}\n' "$2" >"$1"
}
gb "$T/esc.json" '"BM_x\u001b[31m"'
check "gbench: a name with ESC [31m is exit 2" refused "$BG" import "$T/esc.json" --format gbench
check "... naming the file, the JSON path and the name, escaped" \
	err_has 'esc.json: benchmarks[0].name: "BM_x\x1b[31m" has a control character'
check "... on one printable line" err_clean
gb "$T/wf.json" '"BM_a\n::error title=x::forged"'
check "gbench: a name that forges a workflow command is exit 2" refused "$BG" import "$T/wf.json" --format gbench
check "... shown as \\x0a, so no log line starts with ::" err_has 'benchmarks[0].name: "BM_a\x0a::error title=x::forged" has a control character'
check "... on one printable line" err_clean
gb "$T/osc.json" '"BM_t\u001b]0;title\u0007"'
check "gbench: an OSC title sequence is exit 2" refused "$BG" import "$T/osc.json" --format gbench
check "... escaped in the message" err_has '"BM_t\x1b]0;title\x07" has a control character'
gb "$T/bidi.json" '"BM_\u202egnp.exe"'
check "gbench: a bidi override is exit 2" refused "$BG" import "$T/bidi.json" --format gbench
check "... shown as \\u{202e}" err_has '"BM_\u{202e}gnp.exe" has a control character'
printf '{"benchmarks": [{"name": "BM_\xff\xfe", "run_type": "iteration", "real_time": 1, "cpu_time": 1, "time_unit": "ns"}]}\n' >"$T/utf.json"
check "gbench: invalid UTF-8 in a name is exit 2" refused "$BG" import "$T/utf.json" --format gbench
check "... said so" err_has 'benchmarks[0].name: "BM_\xff\xfe" is not valid UTF-8'
gb "$T/long.json" "\"BM_$(printf 'x%.0s' $(seq 1 2000))\""
check "gbench: a 2,000-byte name is exit 2" refused "$BG" import "$T/long.json" --format gbench
check "... longer than 1024 bytes, quoted cut short" bash -c "
	grep -qF 'is longer than 1024 bytes' \"$T/err\" && [ \$(wc -c <\"$T/err\") -lt 400 ]"

printf '{"results": [{"command": "sleep \\u001b]0;title\\u0007", "times": [0.1, 0.2]}]}\n' >"$T/hf.json"
check "hyperfine: a command with an OSC sequence is exit 2" refused "$BG" import "$T/hf.json" --format hyperfine
check "... naming results[0].command" err_has 'hf.json: results[0].command: "sleep \x1b]0;title\x07" has a control character'
check "... on one printable line" err_clean
printf '{"results": [{"command": "sleep 1", "parameters": {"n": "1\\n::error::x"}, "times": [0.1]}]}\n' >"$T/hfp.json"
check "hyperfine: a parameter value with a newline is exit 2" refused "$BG" import "$T/hfp.json" --format hyperfine
check "... naming the parameter" err_has '.parameters.n: "1\x0a::error::x" has a control character'

nvdoc() { # FILE BENCH-NAME STATE-NAME [SIDE-FILE SIZE]: a one-state nvbench file
	$PY - "$@" <<'P'
import json, sys
out, bench, state = sys.argv[1], json.loads(sys.argv[2]), json.loads(sys.argv[3])
summ = [{"tag": "nv/cold/time/gpu/mean", "data": [{"name": "value", "type": "float64", "value": "0.001"}]}]
if len(sys.argv) > 4:
    summ.append({"tag": "nv/json/bin:nv/cold/sample_times",
                 "data": [{"name": "filename", "type": "string", "value": sys.argv[4]},
                          {"name": "size", "type": "int64", "value": sys.argv[5]}]})
json.dump({"benchmarks": [{"name": bench, "states": [
    {"name": state, "is_skipped": False, "summaries": summ}]}]}, open(out, "w"))
P
}
nvdoc "$T/nvb.json" '"copy\u001b[2J"' '"Device=0"'
check "nvbench: a benchmark name with ESC [2J is exit 2" refused "$BG" import "$T/nvb.json" --format nvbench
check "... naming benchmarks[0].name" err_has 'nvb.json: benchmarks[0].name: "copy\x1b[2J" has a control character'
nvdoc "$T/nvs.json" '"copy"' '"D=0\r::warning::x"'
check "nvbench: a state name with CR is exit 2" refused "$BG" import "$T/nvs.json" --format nvbench
check "... naming benchmarks[0].states[0].name" err_has 'benchmarks[0].states[0].name: "D=0\x0d::warning::x" has a control character'

printf 'BENCHGUARD lat\033[31m 1 ms\n' >"$T/l1.txt"
check "lines: a series name with ESC is exit 2" refused "$BG" import "$T/l1.txt" --format lines
check "... escaped in the message" err_has 'l1.txt:1: series name "lat\x1b[31m" has a control character'
printf 'BENCHGUARD lat 1 m\033]0;x\007s\n' >"$T/l2.txt"
check "lines: a unit with an OSC sequence is exit 2" refused "$BG" import "$T/l2.txt" --format lines
check "... escaped in the message" err_has 'l2.txt:1: unit "m\x1b]0;x\x07s" has a control character'
printf 'BENCHGUARD lat\xc3 1 ms\n' >"$T/l3.txt"
check "lines: invalid UTF-8 in a series name is exit 2" refused "$BG" import "$T/l3.txt" --format lines
check "... said so" err_has 'series name "lat\xc3" is not valid UTF-8'
printf 'goos: linux\nBenchmarkLat\033[31m-2   100   5 ns/op\n' >"$T/g1.txt"
check "go: a benchmark name with ESC is exit 2" refused "$BG" import "$T/g1.txt" --format go
check "... escaped, naming the line" err_has 'g1.txt:2: benchmark name "BenchmarkLat\x1b[31m" has a control character'
check "... on one printable line" err_clean
printf 'BenchmarkLat-2   100   5 m\033]0;x\007s\n' >"$T/g2.txt"
check "go: a b.ReportMetric unit with an OSC sequence is exit 2" refused "$BG" import "$T/g2.txt" --format go
check "... escaped in the message" err_has 'g2.txt:1: unit "m\x1b]0;x\x07s" has a control character'
printf 'BenchmarkLat\xe2\x80\xae-2   100   5 ns/op\n' >"$T/g3.txt"
check "go: a bidi override in a name is exit 2" refused "$BG" import "$T/g3.txt" --format go
check "... shown as \\u{202e}" err_has '"BenchmarkLat\u{202e}" has a control character'
printf 'BenchmarkLat\xc3   100   5 ns/op\n' >"$T/g4.txt"
check "go: invalid UTF-8 in a name is exit 2" refused "$BG" import "$T/g4.txt" --format go
check "... said so" err_has 'g4.txt:1: benchmark name "BenchmarkLat\xc3" is not valid UTF-8'
$PY -c 'import sys; sys.stdout.write("BenchmarkX-2 100 " + "5 ns/op " * 200000 + "\n")' >"$T/g5.txt"
check "go: one line repeating ns/op 200,000 times is exit 2, not 200,000 samples" refused "$BG" import "$T/g5.txt" --format go
check "... said so" err_has 'g5.txt:1: unit "ns/op" twice on one line'
printf '{"benchmarks": [{"fullname": "t.py::test_a\\n::error title=x::forged", "stats": {"data": [0.1]}}]}\n' >"$T/p1.json"
check "pytest: a test id that forges a workflow command is exit 2" refused "$BG" import "$T/p1.json" --format pytest
check "... shown as \\x0a, naming benchmarks[0].fullname" err_has 'p1.json: benchmarks[0].fullname: "t.py::test_a\x0a::error title=x::forged" has a control character'
check "... on one printable line" err_clean
printf '{"benchmarks": [{"name": "test_\\u001b]0;t\\u0007", "stats": {"mean": 0.1}}]}\n' >"$T/p2.json"
check "pytest: a name with an OSC sequence is exit 2" refused "$BG" import "$T/p2.json" --format pytest
check "... escaped, naming benchmarks[0].name" err_has 'p2.json: benchmarks[0].name: "test_\x1b]0;t\x07" has a control character'
printf '1,,cycles\033[31m,1,100.00,,\n' >"$T/p1.csv"
check "perfstat: an event with ESC is exit 2" refused "$BG" import "$T/p1.csv" --format perfstat
check "... escaped in the message" err_has 'p1.csv:1: event "cycles\x1b[31m" has a control character'
check "... on one printable line" err_clean
printf '1,,cycles\r::warning::x,1,100.00,,\n' >"$T/p2.csv"
check "perfstat: an event that forges a workflow command is exit 2" refused "$BG" import "$T/p2.csv" --format perfstat
check "... escaped" err_has 'event "cycles\x0d::warning::x" has a control character'
printf '1,m\033]0;x\007s,task-clock,1,100.00,,\n' >"$T/p3.csv"
check "perfstat: a unit with an OSC sequence is exit 2" refused "$BG" import "$T/p3.csv" --format perfstat
check "... escaped" err_has 'p3.csv:1: unit "m\x1b]0;x\x07s" has a control character'
printf '1,,cyc\xc3,1,100.00,,\n' >"$T/p4.csv"
check "perfstat: invalid UTF-8 in an event is exit 2" refused "$BG" import "$T/p4.csv" --format perfstat
check "... said so" err_has 'event "cyc\xc3" is not valid UTF-8'
$PY -c 'import sys; sys.stdout.write("1,,e,1,100.00,," + "x" * 10000000 + "\n")' >"$T/p5.csv"
check "perfstat: a 10 MB line is exit 2" refused "$BG" import "$T/p5.csv" --format perfstat
check "... said so" err_has 'p5.csv:1: line is longer than 4096 bytes'
$PY -c 'import sys; sys.stdout.write("".join("1,,e%d,1,100.00,,\n" % i for i in range(100000)))' >"$T/p6.csv"
check "perfstat: 100,000 different events are exit 2, at once" refused "$BG" import "$T/p6.csv" --format perfstat
check "... said so" err_has 'p6.csv:1025: more than 1024 different events'
# Catch2's XML: a raw ESC is not XML at all (libxml2 says so, escaped); a
# character reference to a newline, or a bidi override, passes libxml2 and
# is refused as a name.
c2doc() { # FILE BENCHMARK-NAME-as-XML-attribute-text
	printf '<?xml version="1.0" encoding="UTF-8"?>\n<Catch2TestRun name="t">\n  <TestCase name="sort">\n    <BenchmarkResults name="%s">\n      <mean value="1"/>\n    </BenchmarkResults>\n    <OverallResult success="true"/>\n  </TestCase>\n</Catch2TestRun>\n' "$2" >"$1"
}
c2doc "$T/c2esc.xml" $'sort\033[31m'
check "catch2: a name with a raw ESC is exit 2" refused "$BG" import "$T/c2esc.xml" --format catch2
check "... libxml2's line, on one printable line" err_has 'c2esc.xml:4: '
check "... on one printable line" err_clean
c2doc "$T/c2nl.xml" 'a&#10;::error title=x::forged'
check "catch2: a name that forges a workflow command is exit 2" refused "$BG" import "$T/c2nl.xml" --format catch2
check "... naming the line and the element path, escaped" \
	err_has 'c2nl.xml:4: TestCase "sort": BenchmarkResults name "a\x0a::error title=x::forged" has a control character'
check "... on one printable line" err_clean
c2doc "$T/c2bidi.xml" $'sort\u202e'
check "catch2: a bidi override is exit 2" refused "$BG" import "$T/c2bidi.xml" --format catch2
check "... on one printable line" err_clean
# A lone UTF-16 surrogate is a character json-c cannot decode: it leaves
# U+FFFD, and two names that lost different ones were one series, their
# samples mixed (1 ms and 5 ms stored as one 3 ms series).
printf '{"benchmarks": [%s, %s]}\n' \
	'{"name": "BM_\ud800", "run_type": "iteration", "real_time": 1, "cpu_time": 1, "time_unit": "ms"}' \
	'{"name": "BM_\udfff", "run_type": "iteration", "real_time": 5, "cpu_time": 5, "time_unit": "ms"}' >"$T/sur.json"
check "gbench: names with lone UTF-16 surrogates are exit 2" refused "$BG" import "$T/sur.json" --format gbench
check "... naming the path and U+FFFD" err_has 'sur.json: benchmarks[0].name: "BM_'
check "... said why" err_has 'holds U+FFFD, a character lost before it got here (a lone UTF-16 surrogate in JSON is one)'
# A time is never negative: gbench, go, pytest, catch2 and nvbench refused
# one; a unit of time in `lines` now says the same.
printf 'BENCHGUARD lat -10.1 ms\n' >"$T/neg.txt"
check "lines: a negative time is exit 2" refused "$BG" import "$T/neg.txt" --format lines
check "... naming the line and the value in seconds" err_has 'neg.txt:1: neg:lat: value -0.0101 s is negative, not a time'
printf 'BENCHGUARD delta -3 pt\n' >"$T/negpt.txt"
check "lines: a negative value in a unit of the program's own is a value" \
	expect_rc 0 "$BG" import "$T/negpt.txt" --format lines --db "$T/negpt.db"
# Catch2 writes decimals; strtod() reads "0x10" as 16, stored as 16 ns.
printf '<?xml version="1.0" encoding="UTF-8"?>\n<Catch2TestRun name="t">\n  <TestCase name="sort">\n    <BenchmarkResults name="b">\n      <mean value="0x10"/>\n    </BenchmarkResults>\n    <OverallResult success="true"/>\n  </TestCase>\n</Catch2TestRun>\n' >"$T/c2hex.xml"
check "catch2: a hexadecimal mean is exit 2" refused "$BG" import "$T/c2hex.xml" --format catch2
check "... as the other formats say it" err_has 'mean value "0x10" is not a decimal number'
# Characters that show nothing: "pa<U+200B>rse" would print as "parse", a
# second series that reads as the first.
printf 'BENCHGUARD pa\xe2\x80\x8brse 1 ms\n' >"$T/zw.txt"
check "lines: a zero-width space in a series name is exit 2" refused "$BG" import "$T/zw.txt" --format lines
check "... shown as \\u{200b}" err_has 'zw.txt:1: series name "pa\u{200b}rse" has an invisible character'
check "... on one printable line" err_clean
printf 'BENCHGUARD lat 1 m\xc2\xads\n' >"$T/shy.txt"
check "lines: a soft hyphen in a unit is exit 2" refused "$BG" import "$T/shy.txt" --format lines
check "... shown as \\u{00ad}" err_has 'unit "m\u{00ad}s" has an invisible character'
gb "$T/tagch.json" '"BM_sort\udb40\udc41"'
check "gbench: a tag character (U+E0041) in a name is exit 2" refused "$BG" import "$T/tagch.json" --format gbench
check "... shown as \\u{e0041}" err_has 'benchmarks[0].name: "BM_sort\u{e0041}" has an invisible character'
gb "$T/bom.json" '"\ufeffBM_sort"'
check "gbench: a byte order mark in a name is exit 2" refused "$BG" import "$T/bom.json" --format gbench
printf 'BenchmarkLat\xe2\x81\xa0-2   100   5 ns/op\n' >"$T/wj.txt"
check "go: a word joiner in a name is exit 2" refused "$BG" import "$T/wj.txt" --format go
check "none of these stored a run" test "$(runs)" -eq 0
# Free text may hold them (an emoji's U+FE0F in a note), shown all the same.
printf 'BENCHGUARD free 1 ms\n' >"$T/free.txt"
check "a tag's value with U+FE0F is free text, stored" \
	expect_rc 0 "$BG" import "$T/free.txt" --format lines --db "$T/free.db" \
	--tag "$(printf 'note=\xe2\x99\xbb\xef\xb8\x8f refactor')"

# `run`: the benchmark printing such a name fails with the message, escaped.
cat >benchguard.json <<'J'
{ "benchmarks": [
  { "name": "g", "format": "gbench", "command": "cat ./esc.json" },
  { "name": "ok", "format": "lines", "command": "echo BENCHGUARD m 1 ms" } ] }
J
cp "$T/esc.json" .
timeout "$(bound 10)" "$BG" run >"$T/out" 2>"$T/err"
check "run: the gbench benchmark with ESC in a name fails, and says why" \
	grep -qF 'benchmarks[0].name: "BM_x\x1b[31m" has a control character' "$T/out" "$T/err"
check "... no ESC reaches the terminal" bash -c "! grep -q $'\x1b' \"$T/out\" \"$T/err\""
check "... and nothing of it is stored" bash -c "
	[ \"\$(sqlite3 .benchguard/results.db \"SELECT count(*) FROM series WHERE benchmark LIKE 'g/%'\")\" = 0 ]"
rm -f benchguard.json esc.json

# ------------------------------------------- row 8: nvbench side files
before=$(runs)
mkdir -p "$T/nv/sub"
$PY -c 'import struct, sys; open(sys.argv[1], "wb").write(struct.pack("<4f", 1e-3, 2e-3, 3e-3, 4e-3))' "$T/nv/ok.bin"
nvdoc "$T/nv/ok.json" '"copy"' '"D=0"' ok.bin 4
check "nvbench: a side file inside the folder is read" expect_rc 0 timeout "$(bound 10)" "$BG" import "$T/nv/ok.json" --format nvbench
check "... its 4 samples stored" grep -q '1 series, 4 samples' "$T/out"

nvdoc "$T/nv/zero.json" '"copy"' '"D=0"' /dev/zero 4
check "side file /dev/zero: exit 2 at once" refused "$BG" import "$T/nv/zero.json" --format nvbench
check "... an absolute path is refused" err_has 'sample times file "/dev/zero" is an absolute path'
nvdoc "$T/nv/zerobig.json" '"copy"' '"D=0"' /dev/zero 999999999999
check "side file /dev/zero with a huge size: exit 2, no memory spent" refused "$BG" import "$T/nv/zerobig.json" --format nvbench
mkfifo "$T/nv/fifo"
nvdoc "$T/nv/fifo.json" '"copy"' '"D=0"' fifo 4
check "side file a FIFO: exit 2, does not block" refused "$BG" import "$T/nv/fifo.json" --format nvbench
check "... not a regular file" err_has 'sample times file "fifo" is not a regular file'
nvdoc "$T/nv/up.json" '"copy"' '"D=0"' ../../etc/hostname 4
check "side file ../../etc/hostname: exit 2" refused "$BG" import "$T/nv/up.json" --format nvbench
check "... leads out of the folder" err_has 'sample times file "../../etc/hostname" leads out of the folder'
check "... and the size of /etc/hostname is not told" bash -c "! grep -q 'bytes' \"$T/err\""
nvdoc "$T/nv/abs.json" '"copy"' '"D=0"' /etc/hostname 4
check "side file /etc/hostname (absolute): exit 2" refused "$BG" import "$T/nv/abs.json" --format nvbench
check "... nothing about its size" bash -c "grep -q 'absolute path' \"$T/err\" && ! grep -q 'bytes' \"$T/err\""
ln -s /etc/hostname "$T/nv/link.bin"
nvdoc "$T/nv/link.json" '"copy"' '"D=0"' link.bin 4
check "side file a symlink out of the folder: exit 2" refused "$BG" import "$T/nv/link.json" --format nvbench
check "... the link is not followed, its target's size not told" bash -c "
	grep -qF 'sample times file \"link.bin\" is reached through a symbolic link' \"$T/err\" && ! grep -q 'bytes' \"$T/err\""
ln -s .. "$T/nv/sub/up"
nvdoc "$T/nv/dirlink.json" '"copy"' '"D=0"' sub/up/ok.bin 4
check "side file through a directory symlink: exit 2" refused "$BG" import "$T/nv/dirlink.json" --format nvbench
check "... said so" err_has 'is reached through a symbolic link'
nvdoc "$T/nv/short.json" '"copy"' '"D=0"' ok.bin 5
check "a side file shorter than \"size\" says: exit 2 before reading" refused "$BG" import "$T/nv/short.json" --format nvbench
check "... holds 16 bytes, not 5 samples" err_has 'holds 16 bytes, not the 5 4-byte samples'
nvdoc "$T/nv/esc.json" '"copy"' '"D=0"' $'ok\033[31m.bin' 4
check "a side-file name with ESC: exit 2, escaped" refused "$BG" import "$T/nv/esc.json" --format nvbench
check "... said so" err_has '"filename" "ok\x1b[31m.bin" has a control character'
check "only the good nvbench file stored a run" test "$(runs)" -eq $((before + 1))

# `run`: a benchmark printing nvbench JSON that names /dev/zero fails, fast.
cp "$T/nv/zero.json" zero.json
echo '{ "benchmarks": [ { "name": "nv", "format": "nvbench", "command": "cat zero.json" } ] }' >benchguard.json
timeout "$(bound 10)" "$BG" run >"$T/out" 2>"$T/err"
check "run: a benchmark naming /dev/zero as its side file fails within $(bound 10) s" \
	grep -qF 'sample times file "/dev/zero" is an absolute path' "$T/out" "$T/err"
rm -f benchguard.json zero.json

# -------------------------------------------- row 11: baseline import
# A repository of its own: its export holds only what the mutations change.
new_repo "$T/b" >/dev/null
cd "$T/b" || exit 1
cat >benchguard.json <<'J'
{ "benchmarks": [ { "name": "b", "format": "lines", "command": "echo BENCHGUARD m 1 ms; echo BENCHGUARD m 2 ms" } ] }
J
git add benchguard.json && git commit -qm c1
"$BG" -q run >/dev/null && "$BG" -q baseline export -o "$T/base.json"
bmut() { # OUT PYTHON-STATEMENT-ON-d: a mutated copy of the exported baseline
	$PY - "$T/base.json" "$1" "$2" <<'P'
import json, sys
d = json.load(open(sys.argv[1]))
exec(sys.argv[3])
open(sys.argv[2], "w").write(json.dumps(d))
P
}
bdb() { refused "$BG" --db "$T/fresh.db" baseline import "$1" --force; }
bdb_read() { refused "$BG" --db "$T/fresh.db" baseline import "$1"; }
check "the exported baseline imports (the mutations below are all it lacks)" \
	expect_rc 0 timeout "$(bound 10)" "$BG" --db "$T/fresh.db" baseline import "$T/base.json" --force
rm -f "$T/fresh.db"
bmut "$T/b-fact.json" 'd["facts"]["cpu_model"] = "Intel\nfake=1"'
check "machine facts with a newline: exit 2 (was out of memory, exit 3)" bdb "$T/b-fact.json"
check "... naming the JSON path" err_has 'b-fact.json: facts.cpu_model: "Intel\x0afake=1" has a control character'
bmut "$T/b-fkey.json" 'd["facts"]["a=b"] = "x"'
check "a fact key holding '=': exit 2" bdb "$T/b-fkey.json"
check "... said so" err_has "a key must be non-empty and hold no '='"
bmut "$T/b-nul.json" 'd["runs"][0]["series"][0]["benchmark"] = "b\u0000x"'
check "a series name with NUL (stored cut short before): exit 2" bdb "$T/b-nul.json"
check "... naming runs[0].series[0].benchmark" err_has 'runs[0].series[0].benchmark: "b\x00x" has a control character'
bmut "$T/b-esc.json" 'd["runs"][0]["series"][0]["unit"] = "s\u001b[31m"'
check "a unit with ESC: exit 2" bdb "$T/b-esc.json"
check "... naming runs[0].series[0].unit" err_has 'runs[0].series[0].unit: "s\x1b[31m" has a control character'
# A subject is git's text: git takes a bidi override (see the import of it
# below), but the store never holds a NUL.
bmut "$T/b-subj.json" 'd["runs"][0]["commit"]["subject"] = "fix \u202e txt\u0000.exe"'
check "a commit subject with a NUL: exit 2" bdb "$T/b-subj.json"
check "... naming runs[0].commit.subject" err_has 'runs[0].commit.subject: "fix \u{202e} txt\x00.exe" holds a NUL character'
bmut "$T/b-tag.json" 'd["runs"][0]["tags"] = {"k": "v\n::error::x"}'
check "a tag value with a newline: exit 2" bdb "$T/b-tag.json"
check "... naming runs[0].tags.k" err_has 'runs[0].tags.k: "v\x0a::error::x" has a control character'
$PY - "$T/base.json" "$T/b-utf.json" <<'P'
import sys
t = open(sys.argv[1], "rb").read().replace(b'"benchmark": "b"', b'"benchmark": "b\xff"')
open(sys.argv[2], "wb").write(t)
P
check "invalid UTF-8 in a series name: exit 2" bdb "$T/b-utf.json"
check "... naming the file and line" err_has "b-utf.json:"
check "none of the bad baselines stored a run" \
	bash -c "[ ! -e \"$T/fresh.db\" ] || [ \"\$(sqlite3 \"$T/fresh.db\" 'SELECT count(*) FROM runs')\" = 0 ]"
bmut "$T/b-bidi.json" 'd["runs"][0]["commit"]["subject"] = "fix \u202e txt.exe\u001b[2J"; d["runs"][0]["commit"]["author"] = "A\u001b]0;t\u0007 <a@b>"; d["runs"][0]["branch"] = "rel\u202eesa\t"'
check "git's text with a bidi override, an ESC and a TAB (subject, author, branch) imports" \
	expect_rc 0 "$BG" -q --db "$T/bidi.db" baseline import "$T/b-bidi.json" --force
check "... and history prints its branch escaped" bash -c "
	'$BG' --db '$T/bidi.db' history b >'$T/h.txt' 2>&1 && grep -qF 'rel\u{202e}esa\x09' '$T/h.txt' &&
	! grep -q \$'\xe2\x80\xae' '$T/h.txt'"

# Wide baselines: each series' unit and each run's uid used to be looked for
# among all before it, so these took minutes; every entry is still checked.
# Read whole, then refused for their machine (no --force), so the bound is
# on reading them, not on storing them (slow under the sanitizers).
bmut "$T/b-wide.json" 'd["machine"] = "elsewhere"; r = d["runs"][0]; s = r["series"][0]
r["series"] = [dict(s, metric="m%d" % i) for i in range(150000)]'
check "a baseline run of 150,000 series is read within $(bound 10) s" bdb_read "$T/b-wide.json"
check "... to the end (then refused for its machine)" err_has "exported on machine elsewhere"
bmut "$T/b-runs.json" 'd["machine"] = "elsewhere"; r = d["runs"][0]; r["series"] = r["series"][:1]
d["runs"] = [dict(r, uid="%032x" % (i + 1)) for i in range(100000)]'
check "a baseline of 100,000 runs is read within $(bound 10) s" bdb_read "$T/b-runs.json"
check "... to the end (then refused for its machine)" err_has "exported on machine elsewhere"
rm -f "$T/fresh.db"
bmut "$T/b-uid.json" 'r = d["runs"][0]; r["series"] = r["series"][:1]
d["runs"] = [dict(r, uid="%032x" % (i % 50000 + 1)) for i in range(50001)]'
check "... one uid there twice, at its end: exit 2" bdb "$T/b-uid.json"
check "... naming both runs" err_has 'runs[50000].uid: "00000000000000000000000000000001" is also the uid of runs[0]'
bmut "$T/b-unit.json" 'r = d["runs"][0]; s = r["series"][0]
r["series"] = [dict(s, metric="m%d" % i) for i in range(50000)]
d["runs"].append(dict(r, uid="f" * 32, series=[dict(s, metric="m49999", unit="B")]))'
check "... a unit that changes between runs, at its end: exit 2" bdb "$T/b-unit.json"
check "... said so" err_has 'unit "B" of b:m49999 differs from "s" in an earlier run'
rm -f "$T/fresh.db" "$T/b-wide.json" "$T/b-runs.json" "$T/b-uid.json" "$T/b-unit.json"

# ----------------------------------------------------- size bounds
truncate -s 300M "$T/big.txt"
check "import of a 300 MiB file: exit 2 before reading it" refused "$BG" import "$T/big.txt" --format lines
check "... larger than 256 MiB" err_has "big.txt: larger than 256 MiB"
rm -f "$T/big.txt"
truncate -s 5M benchguard.json
check "a 5 MiB benchguard.json: exit 2" refused "$BG" check
check "... larger than 4 MiB" err_has "larger than 4 MiB"
git checkout -q benchguard.json

# Skipped benchmarks without end: each is an outcome, found again by name
# for every new one, so 200,000 of them (7 MB) took hours; now seconds.
$PY -c '
import sys
out = ["pkg: x", "BenchmarkA-2 100 10 ns/op"]
for i in range(200000): out += ["--- SKIP: BenchmarkS%d" % i, "    skipped"]
sys.stdout.write("\n".join(out + ["PASS"]) + "\n")' >"$T/skips.txt"
before=$(runs)
check "import of 200,000 skipped go benchmarks: stored within $(bound 10) s" \
	expect_rc 0 timeout "$(bound 10)" "$BG" import "$T/skips.txt" --format go
check "... as one run" test "$(runs)" = $((before + 1))
check "... with every outcome" \
	test "$(sqlite3 .benchguard/results.db "SELECT count(*) FROM outcomes WHERE status != 'ok'")" -ge 200000
check "check of that run: within $(bound 10) s, each skip a row" bash -c "
	timeout $(bound 10) \"$BG\" check --run \$(sqlite3 .benchguard/results.db 'SELECT max(id) FROM runs') \
		>\"$T/out\" 2>\"$T/err\"; [ \$? -le 1 ] && grep -q '200000 skipped' \"$T/out\""
rm -f "$T/skips.txt"

finish
