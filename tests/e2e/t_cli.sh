# t_cli.sh -- the CLI's surface: help, version, usage errors and exit codes,
# init, fingerprint stability across processes, JSON output.
. "$(dirname "$0")/lib.sh"

check "--version prints the version" bash -c "\"$BG\" --version | grep -q '^benchguard [0-9]'"
check "--help lists the commands" bash -c "\"$BG\" --help | grep -q '^  history'"
check "help run shows run's options" bash -c "\"$BG\" help run | grep -q -- '--runs K'"
check "run --help shows run's options" bash -c "\"$BG\" run --help | grep -q -- '--filter RE'"
check "no command -> exit 2" expect_rc 2 "$BG"
check "unknown command -> exit 2, one line" bash -c "
	\"$BG\" frobnicate 2>$T/e; [ \$? -eq 2 ] && [ \"\$(cat $T/e)\" = 'benchguard: unknown command \"frobnicate\" (see benchguard --help)' ]"
check "unknown option -> exit 2" expect_rc 2 "$BG" run --frobnicate
check "bad --format -> exit 2" expect_rc 2 "$BG" --format xml fingerprint
check "bad --samples -> exit 2" expect_rc 2 "$BG" run --samples zero
check "--tag without KEY=VALUE -> exit 2" bash -c "
	\"$BG\" run --tag nokey 2>$T/e; [ \$? -eq 2 ] && grep -q 'tag needs KEY=VALUE' $T/e"
# A second value for a key replaced the first without a word.
check "--tag k=1 --tag k=2 -> exit 2, both named" bash -c "
	\"$BG\" run --tag k=1 --tag k=2 2>$T/e; [ \$? -eq 2 ] && grep -q 'tag k given twice (k=1 and k=2)' $T/e"
# strtod reads 0x10 as 16: --min-change 0x10 was 1600%, every change passed.
for c in "check --min-change 0x10:--min-change needs a relative change" "compare --alpha inf HEAD HEAD:--alpha needs a number" \
	"calibrate --change 0x0.1p0:--change needs a relative change" "report --since 0x1d:--since needs a span" \
	"gc --max-age 0x10d:--max-age needs days" "gc --max-size ' 1G':--max-size needs" \
	"check --min-effect nan:--min-effect needs a number" \
	"gc --max-age 1e3d:--max-age needs days" "gc --max-size 1e3G:--max-size needs" \
	"gc --max-size 1.5:--max-size needs" "report --since 1e3d:--since needs a span" \
	"db prune --before 1e3d:--before needs a span"; do
	check "${c%%:*} -> exit 2 (a decimal number only)" bash -c "
		\"$BG\" ${c%%:*} 2>$T/e; [ \$? -eq 2 ] && grep -q -- '${c#*:}' $T/e"
done
# strtol and strptime skip leading blanks: " 5" passed where "5 " did not.
for c in "history t --limit: 5" "check --run: 5" "report --since: 2024-05-01" "alert drop: 5"; do
	check "${c%%:*} '${c#*:}' -> exit 2 (a leading blank)" bash -c "
		\"$BG\" ${c%%:*} '${c#*:}' 2>$T/e; [ \$? -eq 2 ] && grep -q -- '\"${c#*:}\"' $T/e"
done
# ... where a sign stays an id's: "+1" and "#+1" are alert 1.
for id in +1 '#+1'; do
	check "alert drop '$id' is read as alert 1" bash -c "
		\"$BG\" alert drop '$id' 2>$T/e; ! grep -q 'takes the ids of pending alerts' $T/e"
done
# 5 meant as 5%: a rate can never fall by 100% or more, so a min_change of 1
# or more let every throughput regression through as "unchanged".
for c in check ci compare bisect; do
	check "$c --min-change 5 -> exit 2: a relative change below 1" bash -c "
		\"$BG\" $c --min-change 5 2>$T/e; [ \$? -eq 2 ] &&
		grep -q -- '--min-change needs a relative change from 0 to below 1, e.g. 0.05 for 5% (got \"5\")' $T/e"
done

cd "$T" || exit 1
check "outside a repository -> exit 2 with a clear message" bash -c "
	mkdir -p $T/norepo && cd $T/norepo && \"$BG\" run 2>$T/e; [ \$? -eq 2 ] && grep -q 'not a git repository' $T/e"
# --version after the command, as before it: the version, exit 0, and
# the command not run (outside a repository each would fail).
ver=$("$BG" --version)
for c in "run --version --samples 2" "gc --version" "alert --version test" "calibrate --version" \
	"baseline export --version" "check --run 1 --version" "help --version" "db info --version"; do
	check "$c prints the version and runs nothing" bash -c "
		cd $T/norepo && out=\$(\"$BG\" $c 2>$T/e) && [ \"\$out\" = '$ver' ] && [ ! -s $T/e ]"
done
check "run --filter x --help exits 0" bash -c "cd $T/norepo && \"$BG\" run --filter x --help >/dev/null"
check "calibrate --filter x --help exits 0" bash -c "cd $T/norepo && \"$BG\" calibrate --filter x --help >/dev/null"
# A tag baseline import would refuse once exported is refused at --tag.
check "--tag with a control character in its value -> exit 2" bash -c "
	cd $T/norepo && \"$BG\" run --tag \"\$(printf 'note=a\tb')\" 2>$T/e; [ \$? -eq 2 ] &&
	[ \"\$(cat $T/e)\" = 'benchguard: --tag \"note=a\\x09b\": its value has a control character' ]"
check "import --tag with a control character in its key -> exit 2" bash -c "
	cd $T/norepo && \"$BG\" import /dev/null --format lines --tag \"\$(printf 'n\033k=v')\" 2>$T/e; [ \$? -eq 2 ] &&
	grep -q 'its key has a control character' $T/e"

new_repo "$T/r" >/dev/null
cd "$T/r" || exit 1
check "init writes benchguard.json and the database" bash -c "
	\"$BG\" init >/dev/null && [ -s benchguard.json ] && [ -f .benchguard/results.db ]"
check "the default database folder ignores itself" bash -c "! git status --porcelain --untracked-files=all | grep -q '[.]benchguard/'"
check "... says it created the database" bash -c "
	rm -rf .benchguard benchguard.json && \"$BG\" init | grep -qx 'created .*/.benchguard/results.db'"
check "... whose baseline branch is main" grep -q '"branch": "main"' benchguard.json
# A repository on trunk (or master, or a branch of its own) got "main", and
# its first check failed with an unknown baseline branch.
check "init in a repository on trunk names trunk the baseline branch" bash -c "
	git init -q -b trunk $T/trunk && git -C $T/trunk commit -q --allow-empty -m x &&
	cd $T/trunk && \"$BG\" init >/dev/null && grep -q '\"branch\": \"trunk\"' benchguard.json &&
	git checkout -q -b feature && \"$BG\" init --force >/dev/null &&
	grep -q '\"branch\": \"trunk\"' benchguard.json"
check "... and so before its first commit (git init -b trunk, then init)" bash -c "
	git init -q -b trunk $T/unborn && cd $T/unborn && \"$BG\" init >/dev/null &&
	grep -q '\"branch\": \"trunk\"' benchguard.json"
check "init twice refuses to overwrite -> exit 2" expect_rc 2 "$BG" init
check "init --force overwrites" expect_rc 0 "$BG" init --force
check "... and says it kept the database there, not that it created one" \
	grep -qx 'kept the results in .*/.benchguard/results.db' "$T/out"
for v in inf 2e6 0x10 0 -1 5s; do
	check "run --timeout $v: exit 2, as the config's timeout would be" bash -c "
		\"$BG\" run --timeout $v 2>$T/e; [ \$? -eq 2 ] &&
		grep -q '^benchguard: --timeout needs seconds above 0 and at most 1000000 (got \"$v\")\$' $T/e"
done
# A write that fails part way (here: no file may grow) keeps the file there was.
echo '{"benchmarks": [{"name": "mine", "command": "true"}]}' >kept.json
cp kept.json kept.orig
check "init --force whose write fails: exit 3, the old configuration kept" bash -c "
	trap '' XFSZ; ulimit -f 0; \"$BG\" init --force --config kept.json 2>$T/e; [ \$? -eq 3 ] &&
	cmp -s kept.json kept.orig && [ -z \"\$(ls kept.json.tmp* 2>/dev/null)\" ]"
# ... and so with SIGXFSZ at its default, as a file-size limit (systemd's
# LimitFSIZE=, a CI sandbox) leaves it: the signal killed benchguard (exit
# 153, no word) and left the temporary file beside the target.
# A shell started with SIGXFSZ ignored cannot give it back its default
# (`trap -` does not undo what the shell inherited): then there is nothing
# to test here.
ign=$(sed -n 's/^SigIgn:[[:space:]]*//p' /proc/$$/status)
if (((0x${ign:-0} >> 24) & 1)); then
	skip "SIGXFSZ at its default" "skipped: this shell started with SIGXFSZ ignored"
else
	check "... SIGXFSZ at its default: exit 3 saying why, no temporary file left" bash -c "
		( trap - XFSZ; ulimit -f 0; exec \"$BG\" init --force --config kept.json 2>&1 >/dev/null ) | cat >$T/e
		[ \${PIPESTATUS[0]} -eq 3 ] && grep -q '^benchguard: .*kept.json.*: File too large' $T/e &&
		cmp -s kept.json kept.orig && [ -z \"\$(ls kept.json.tmp* 2>/dev/null)\" ]"
fi
cat >"$T/xfsz.json" <<J
{ "benchmarks": [ { "name": "big", "format": "lines",
    "command": "head -c 9000000 /dev/zero >$T/big; echo BENCHGUARD t \$? ms" } ] }
J
check "... and a benchmark under the same limit gets SIGXFSZ's default back" bash -c "
	( trap - XFSZ; ulimit -f 8192; \"$BG\" --json --config $T/xfsz.json --db $T/xfsz.db run --samples 1 --warmup 0 ) >$T/o 2>$T/e
	grep -q '\"mean\": 0.153' $T/o || { cat $T/o $T/e >&2; false; }"
# The database outgrowing `ulimit -f` at a commit: SQLite gives no errno
# there, and the message said only "disk I/O error".
echo '{ "benchmarks": [ { "name": "t", "command": "true" } ] }' >"$T/fsz.json"
"$BG" -q --config "$T/fsz.json" --db "$T/fsz.db" run --samples 2 >/dev/null 2>&1
check "a run on a database already past ulimit -f: exit 3, naming the limit" bash -c "
	( ulimit -f 64; \"$BG\" --config $T/fsz.json --db $T/fsz.db run --samples 300 --warmup 0 ) >/dev/null 2>$T/e
	[ \$? -eq 3 ] && grep -q 'committing: disk I/O error (the file-size limit, ulimit -f, is 65536 bytes' $T/e || { cat $T/e >&2; false; }"
# A huge argument does not push the reason out of the message: its start
# and its end are kept around "...", and the end says why.
long=$(printf 'b%.0s' $(seq 1 1500))
check "a 1,500-byte --filter: exit 2, the reason at the end of one line" bash -c "
	\"$BG\" run --filter $long 2>$T/e; [ \$? -eq 2 ] && [ \$(wc -l <$T/e) = 1 ] &&
	grep -q '^benchguard: --filter \"bbbb.*b[.][.][.]b.*bbbb\" matches no benchmark\$' $T/e &&
	[ \$(wc -c <$T/e) -lt 1100 ]"
deep=$T$(printf '/%s' $(printf 'd%.0s' $(seq 1 100)){,,,,,,,,,,,,,,})
check "a 1,500-byte --db: the reason at the end" bash -c "
	\"$BG\" --db $deep/x.db history t:x 2>$T/e; [ \$? -eq 2 ] &&
	grep -q 'no such file (a command that only reads never creates one; .run., .ci. or .init. does)\$' $T/e"
mkdir -p "$T/r/confdir"
for f in "" --force; do
	check "init $f --config DIRECTORY -> exit 2, it is a directory" bash -c "
		\"$BG\" init $f --config confdir 2>$T/e; [ \$? -eq 2 ] &&
		grep -q '^benchguard: confdir is a directory' $T/e"
done
# A folder that is not there yet is made, as `report -o` and `baseline export
# -o` make theirs: naming a new place is what the user asked for.
for f in "" --force; do
	check "init $f --config new/sub/x.json makes the folders and writes the file" bash -c "
		\"$BG\" init $f --config new$f/sub/x.json >/dev/null 2>$T/e && [ -s new$f/sub/x.json ] &&
		\"$BG\" --config new$f/sub/x.json history --help >/dev/null"
done
check "missing config (--config) -> exit 2 naming the file" bash -c "
	\"$BG\" --config nope.json run 2>$T/e; [ \$? -eq 2 ] && grep -q 'nope.json' $T/e"
# An empty file name is a usage error, never a path to write (an empty -o
# once read past its buffer) or a message with an empty name in it.
for c in "baseline export -o" "report -o" "report --output"; do
	check "$c '' -> exit 2, -o needs a file name" bash -c "
		\"$BG\" $c '' 2>$T/e; [ \$? -eq 2 ] && [ \"\$(cat $T/e)\" = 'benchguard: -o needs a file name' ]"
done
check "--config '' -> exit 2, --config needs a file name" bash -c "
	\"$BG\" run --config '' 2>$T/e; [ \$? -eq 2 ] && [ \"\$(cat $T/e)\" = 'benchguard: --config needs a file name' ]"
for c in "import --format lines" "baseline import"; do
	check "$c '' -> exit 2, the file name is empty" bash -c "
		\"$BG\" $c '' 2>$T/e; [ \$? -eq 2 ] && grep -q '^benchguard: a file name is empty' $T/e"
done

# Output that never reached stdout (a full disk, a closed descriptor) is a
# failure: exit 3 with one line, never exit 0 over an empty verdict file.
# A reader that stops early (| head -1) is no failure.
for c in "fingerprint" "--json fingerprint" "help run"; do
	check "$c >/dev/full -> exit 3, one line on stderr" bash -c "
		\"$BG\" $c >/dev/full 2>$T/e; [ \$? -eq 3 ] && [ \$(wc -l <$T/e) = 1 ] &&
		grep -q '^benchguard: cannot write to standard output: No space left on device\$' $T/e"
done
check "fingerprint with stdout closed -> exit 3" bash -c "
	\"$BG\" fingerprint >&- 2>$T/e; [ \$? -eq 3 ] && grep -q '^benchguard: cannot write to standard output' $T/e"
check "a reader that stops early: exit 0, nothing said (SIGPIPE ignored)" python3 -c "
import signal, subprocess
signal.signal(signal.SIGPIPE, signal.SIG_IGN)
p = subprocess.Popen(['$BG', 'fingerprint'], stdout=subprocess.PIPE, stderr=subprocess.PIPE, restore_signals=False)
p.stdout.close()
err = p.stderr.read(); p.wait()
assert p.returncode == 0 and not err, (p.returncode, err)"
# The same where SIGPIPE has its default disposition, as in a shell's
# pipeline: no death by SIGPIPE (exit 141, which bash's pipefail, GitHub
# Actions' default, turns into a failed step), exit 0.
check "a reader that stops early, SIGPIPE at its default: exit 0" python3 -c "
import subprocess
for args in (['--help'], ['help', 'ci'], ['fingerprint']):
    p = subprocess.Popen(['$BG'] + args, stdout=subprocess.PIPE, stderr=subprocess.PIPE, restore_signals=True)
    p.stdout.close()
    err = p.stderr.read(); p.wait()
    assert p.returncode == 0 and not err, (args, p.returncode, err)"
# benchguard ignores SIGPIPE itself; a benchmark must still get it (`yes |
# head` ends by it), whatever the host ignores.
(
	new_repo "$T/sigpipe" >/dev/null && cd "$T/sigpipe" || exit 1
	cat >benchguard.json <<'J'
{ "defaults": { "warmup": 0, "samples": 1 },
  "benchmarks": [ { "name": "sig", "format": "lines",
    "command": "m=$(awk '/^SigIgn:/ { print $2 }' /proc/self/status); echo BENCHGUARD ignored $(( 0x$m >> 12 & 1 )) pt" } ] }
J
	git add benchguard.json && git commit -qm suite
	"$BG" -q --db "$T/sigpipe.db" run >/dev/null 2>"$T/sp.err" || sed 's/^/# run: /' "$T/sp.err"
)
check "... a benchmark still runs with SIGPIPE at its default" test \
	"$(sqlite3 "$T/sigpipe.db" "SELECT value FROM samples" 2>/dev/null)" = 0.0

fp1=$("$BG" fingerprint --json | python3 -c 'import json,sys; print(json.load(sys.stdin)["fingerprint"])')
fp2=$("$BG" fingerprint --json | python3 -c 'import json,sys; print(json.load(sys.stdin)["fingerprint"])')
check "fingerprint is 16 hex digits" bash -c "[[ '$fp1' =~ ^[0-9a-f]{16}$ ]]"
check "fingerprint is the same across processes" test "$fp1" = "$fp2"
check "fingerprint table shows hashed and volatile facts" bash -c "
	\"$BG\" fingerprint | grep -q 'cpu_model .*hashed' && \"$BG\" fingerprint | grep -q 'volatile'"
check "--machine overrides the fingerprint" bash -c "
	[ \"\$(\"$BG\" fingerprint --machine ci-runner-1 --json | python3 -c 'import json,sys; print(json.load(sys.stdin)[\"fingerprint\"])')\" = ci-runner-1 ]"
check "a bad --machine name -> exit 2" expect_rc 2 "$BG" fingerprint --machine "has space"
check "run --machine all -> exit 2: report --machine all means every machine" bash -c "
	\"$BG\" run --machine all >/dev/null 2>'$T/err'; [ \$? = 2 ] &&
	grep -q 'not \"all\", which report reads as every machine' '$T/err'"
check "a long bad --machine name is quoted cut short, ending in …" bash -c "
	\"$BG\" fingerprint --machine \"\$(printf 'a b%.0s' \$(seq 300))\" >/dev/null 2>'$T/err'; [ \$? = 2 ] &&
	grep -q '^benchguard: --machine: \"a ba ba b.*…\" is not a valid machine name' '$T/err' &&
	[ \$(wc -c <'$T/err') -lt 400 ]"

# A series name as long as a name may be (a metric of 1,020 bytes, in
# characters of three): whole in every table and JSON that names it,
# never cut short, or in the middle of a character.
mkdir -p "$T/long" && cd "$T/long" && new_repo . >/dev/null
longm=$(python3 -c "print('\u65e5' * 340)")
printf '{ "defaults": { "warmup": 0, "samples": 2 },\n  "benchmarks": [ { "name": "b", "format": "lines", "command": "cat m.txt" } ] }\n' >benchguard.json
printf 'BENCHGUARD %s 1.5 ms\n' "$longm" >m.txt
"$BG" --db "$T/long.db" run --runs 2 --json >"$T/long.run" 2>/dev/null
"$BG" --db "$T/long.db" calibrate --runs 2 --json >"$T/long.cal" 2>/dev/null
"$BG" --db "$T/long.db" history b --json >"$T/long.hist" 2>/dev/null
"$BG" --db "$T/long.db" history b >"$T/long.tab" 2>/dev/null
for f in run cal hist; do
	check "a 1 KiB series name is whole in $f --json" python3 - "$T/long.$f" "b:$longm" <<'P2'
import json, sys
want = sys.argv[2]
def names(o):
    if isinstance(o, dict):
        for k, v in o.items():
            if k == "series" and isinstance(v, str):
                yield v
            else:
                yield from names(v)
    elif isinstance(o, list):
        for v in o:
            yield from names(v)
got = list(names(json.load(open(sys.argv[1], encoding="utf-8"))))
assert got and all(g == want for g in got), [len(g) for g in got]
P2
done
check "... and in history's table" grep -qF "b:$longm " "$T/long.tab"

# The progress line on a terminal (a pseudo-terminal here): 300 executions of
# /bin/true counted at most 10 times a second, the first and the last always,
# not redrawn 300 times; and cleared at the end.
mkdir -p "$T/pty" && cd "$T/pty" && new_repo . >/dev/null
cat >benchguard.json <<'J'
{ "benchmarks": [ { "name": "fast", "command": "/bin/true", "warmup": 0, "samples": 300 } ] }
J
check "a terminal's progress line is drawn at most 10 times a second" python3 - "$BG" "$T/pty.db" <<'P'
import os, pty, re, sys, time
bg, db = sys.argv[1], sys.argv[2]
t0 = time.monotonic()
pid, fd = pty.fork()
if pid == 0:
    os.execv(bg, [bg, "--db", db, "run"])
out = b""
while True:
    try:
        chunk = os.read(fd, 65536)
    except OSError:
        break
    if not chunk:
        break
    out += chunk
_, status = os.waitpid(pid, 0)
took = time.monotonic() - t0
counts = [int(m) for m in re.findall(rb"\r\x1b\[K\[1/1\] fast  (\d+)/300", out)]
print(f"# {len(counts)} progress lines in {took:.2f} s: {counts}")
assert os.waitstatus_to_exitcode(status) == 0, status
assert counts and counts[0] == 1 and counts[-1] == 300, counts
assert counts == sorted(set(counts)), counts
# the first and the last, and one per 100 ms of the whole command at most
assert len(counts) <= 2 + 10 * took, (len(counts), took)
last, stored = out.rindex(b"fast  300/300"), out.index(b"stored 1 run")
assert b"\r\x1b[K" in out[last:stored], out[last:stored]
P
# A database an older benchguard made under a path with a '$' in it, which
# it took as written: expanded now, the path names another file, and run
# started a new, empty history beside the old one (ci then found no
# baseline and passed everything).
mkdir -p "$T/dollar"
printf 'BENCHGUARD t 1.5 ms\n' >"$T/dollar/s.txt"
"$BG" -q --db "$T/dollar/real.db" import "$T/dollar/s.txt" --format lines --name d >/dev/null
cp "$T/dollar/real.db" "$T/dollar/bench\$\$cache.db"
check "--db naming a file with '\$\$' as written: exit 2, saying so" bash -c "
	'$BG' --db '$T/dollar/bench\$\$cache.db' history d:t >/dev/null 2>'$T/e'; [ \$? -eq 2 ] &&
	grep -q 'there is a file of that name, but benchguard expands \${VAR} and \$\$ in a database path' '$T/e'"
check "... run too, making no new database beside it" bash -c "
	'$BG' --db '$T/dollar/bench\$\$cache.db' import '$T/dollar/s.txt' --format lines --name d >/dev/null 2>&1; [ \$? -eq 2 ] &&
	[ ! -e '$T/dollar/bench\$cache.db' ]"
check "... and '\$\$\$\$' names it" bash -c "
	'$BG' --db '$T/dollar/bench\$\$\$\$cache.db' history d:t | grep -q '1.5 ms'"

finish
