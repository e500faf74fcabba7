# t_store.sh -- reliability of the results database through the CLI:
# 4 processes storing 50 runs each at once all land (no "database is
# locked"); a `run` killed with SIGKILL half-way leaves the file intact and
# its run marked incomplete, one interrupted before its run began stores
# none; bad import input stores nothing; `db copy`
# never creates its source.
. "$(dirname "$0")/lib.sh"

new_repo "$T/r" >/dev/null
cd "$T/r" || exit 1
db="$T/shared.db"
for i in $(seq 1 20); do echo "BENCHGUARD lat $i us"; done >"$T/sample.txt"

writer() {
	local w=$1 k
	for k in $(seq 1 50); do
		"$BG" --db "$db" import "$T/sample.txt" --format lines --name "w$w" \
			--tag "k=$k" >/dev/null 2>>"$T/writer$w.err" || echo "writer $w run $k failed" >>"$T/writer$w.err"
	done
}
for w in 1 2 3 4; do writer $w & done
wait
check "4 concurrent writers x 50 runs: no failures" bash -c "! cat $T/writer*.err | grep -q ."
check "... no 'database is locked'" bash -c "! grep -qi locked $T/writer*.err"
check "... all 200 runs present and complete" test \
	"$(sqlite3 "$db" "SELECT count(*) FROM runs WHERE status = 'complete'")" = 200
check "... with all their samples" test "$(sqlite3 "$db" 'SELECT count(*) FROM samples')" = 4000
check "... and integrity_check ok" test "$(sqlite3 "$db" 'PRAGMA integrity_check')" = ok
check "the database is in WAL mode" test "$(sqlite3 "$db" 'PRAGMA journal_mode')" = wal

marker=$((800000 + RANDOM))
cat >benchguard.json <<J
{ "defaults": { "warmup": 0, "samples": 3 },
  "benchmarks": [ { "name": "quick", "command": "true" },
                  { "name": "slow", "command": "sleep $marker.5", "timeout": 600 } ] }
J
"$BG" --db "$T/crash.db" run >/dev/null 2>&1 &
pid=$!
# Wait until the quick benchmark is stored and the slow one is running.
for _ in $(seq 1 100); do
	pgrep -f "sleep $marker.5" >/dev/null && break
	sleep 0.1
done
kill -KILL "$pid"
wait "$pid" 2>/dev/null
pkill -f "sleep $marker.5"
check "after SIGKILL mid-run: integrity_check ok" test "$(sqlite3 "$T/crash.db" 'PRAGMA integrity_check')" = ok
check "... the run is marked incomplete" test "$(sqlite3 "$T/crash.db" 'SELECT status FROM runs')" = incomplete
# 3 samples each of wall_time and cpu_time (`true` has no peak_rss of its own).
check "... the benchmark finished before the kill is kept" test \
	"$(sqlite3 "$T/crash.db" "SELECT count(*) FROM samples")" = 6
check "... and history shows the run as incomplete" bash -c "
	\"$BG\" --db $T/crash.db history quick:wall_time | grep -q incomplete"

# A cancelled CI job (SIGTERM) or Ctrl-C (SIGINT): the benchmark's process
# group dies with it, the run stays incomplete, the exit code is 3.
for sig in TERM INT; do
	m=$((700000 + RANDOM))
	cat >benchguard.json <<J
{ "defaults": { "warmup": 0, "samples": 2 },
  "benchmarks": [ { "name": "slow", "command": "sleep $m.5 & sleep $m.5", "timeout": 600 } ] }
J
	"$BG" --db "$T/sig$sig.db" run >/dev/null 2>"$T/sig.err" &
	pid=$!
	for _ in $(seq 1 100); do pgrep -f "slee[p] $m.5" >/dev/null && break; sleep 0.1; done
	kill -$sig "$pid"
	wait "$pid"
	rc=$?
	sleep 0.2
	check "SIG$sig during run -> exit 3 with a one-line reason" bash -c "
		[ $rc -eq 3 ] && grep -q '^benchguard: interrupted' $T/sig.err"
	check "... the benchmark's whole process group is gone" bash -c "! pgrep -f 'slee[p] $m.5' >/dev/null"
	check "... and the run is marked incomplete" test \
		"$(sqlite3 "$T/sig$sig.db" 'SELECT status FROM runs')" = incomplete
	pkill -f "slee[p] $m.5"
done

# Interrupted before a run begins (here while `run --commit` asks the
# compiler its version, once the worktree is built): no run is stored, not
# even an empty incomplete one, and the next run is stored as run 1.
cat >"$T/fakecc" <<'S'
#!/bin/sh
p=$PPID
[ "$(cat /proc/$p/comm)" = benchguard ] || p=$(awk '{ print $4 }' /proc/$p/stat)
kill -INT "$p"
echo "fakecc 1.0"
S
chmod +x "$T/fakecc"
cat >benchguard.json <<J
{ "build": "true", "defaults": { "warmup": 0, "samples": 2 },
  "benchmarks": [ { "name": "quick", "command": "true" } ] }
J
git add benchguard.json && git commit -qm "build step"
check "SIGINT before the first benchmark of run --commit -> exit 3" \
	expect_rc 3 env CC="$T/fakecc" "$BG" --db "$T/early.db" run --commit HEAD
check "... saying it was interrupted" grep -q '^benchguard: interrupted' "$T/err"
check "... with no run stored, not even an empty one" \
	test "$(sqlite3 "$T/early.db" 'SELECT count(*) FROM runs')" = 0
check "the next run --commit is stored whole" bash -c "
	\"$BG\" --db $T/early.db run --commit HEAD >/dev/null 2>&1 &&
	[ \"\$(sqlite3 $T/early.db \"SELECT group_concat(status) FROM runs\")\" = complete ]"

printf 'BENCHGUARD lat 1 us\nBENCHGUARD lat oops us\n' >"$T/bad.txt"
check "import of a malformed file -> exit 2 naming file and line" bash -c "
	\"$BG\" --db $T/bad.db import $T/bad.txt --format lines 2>$T/e; [ \$? -eq 2 ] && grep -q 'bad.txt:2:' $T/e"
check "... and stores nothing" bash -c "[ ! -e $T/bad.db ] || [ \"\$(sqlite3 $T/bad.db 'SELECT count(*) FROM runs')\" = 0 ]"
check "import at an unknown --commit -> exit 2" expect_rc 2 "$BG" --db "$T/c.db" import "$T/sample.txt" --format lines --commit deadbeef
check "import of a missing file -> exit 2" expect_rc 2 "$BG" --db "$T/c.db" import "$T/nope.txt" --format lines

# db copy reads its source and never makes it: a mistyped path is exit 2
# saying so, with neither it, its folders nor the destination created; an
# empty file is refused alike and stays empty; a store of the current
# schema is copied without a byte of it changing.
check "db copy from a path that is not there -> exit 2" \
	expect_rc 2 "$BG" db copy "$T/nowhere/dir/typo.db" "$T/dst.db"
check "... saying the source does not exist" grep -qF "database $T/nowhere/dir/typo.db: no such file" "$T/err"
check "... creating neither it, its folders nor the destination" bash -c "[ ! -e $T/nowhere ] && [ ! -e $T/dst.db ]"
: >"$T/empty.db"
check "db copy from an empty file -> exit 2" expect_rc 2 "$BG" db copy "$T/empty.db" "$T/dst.db"
check "... saying it is empty, which it stays" bash -c "grep -q 'it is empty' $T/err && [ ! -s $T/empty.db ] && [ ! -e $T/dst.db ]"
before=$(sha256sum <"$db")
check "db copy of the writers' store: exit 0" expect_rc 0 "$BG" db copy "$db" "$T/dst.db"
check "... all 200 runs" grep -q "^copied 200 runs" "$T/out"
check "... the source left byte for byte as it was, nothing beside it" \
	bash -c "[ \"\$(sha256sum <$db)\" = '$before' ] && [ ! -e $db-wal ] && [ ! -e $db-shm ]"

# Ctrl-C or SIGTERM while a command waits for another writer's lock (a
# long write of another job on the same file): it stops at once, exit 3
# "interrupted", and stores nothing.  import, baseline import and db copy
# went on and exited 0 once the lock was free; run stored an empty,
# incomplete run.
# hold DB SECONDS: another process holds DB's write lock that long.
hold() {
	(echo 'BEGIN IMMEDIATE; UPDATE runs SET branch = branch;'; sleep "$2"; echo 'ROLLBACK;') |
		sqlite3 "$1" &
	HOLDER=$!
	sleep 0.5
}
# interrupted NAME SIGNAL CMD...: CMD, stopped by SIGNAL 1 s after it began
# waiting: its exit code and seconds from the signal to its end in $T/NAME.rc.
# CMD starts with the signals' defaults, as from a terminal: under nohup
# (the tests run so) it would inherit SIGHUP ignored, and keep it so.
interrupted() {
	local name=$1 sig=$2 pid t0
	shift 2
	env --default-signal=INT,HUP,TERM "$@" >"$T/$name.out" 2>"$T/$name.err" &
	pid=$!
	sleep 1
	t0=$(date +%s%N)
	kill "-$sig" "$pid"
	wait "$pid"
	echo "$? $((($(date +%s%N) - t0) / 1000000))" >"$T/$name.rc"
}
stopped() { # NAME: exit 3 within 2 s, saying it was interrupted
	read -r rc ms <"$T/$1.rc"
	[ "$rc" = 3 ] && [ "$ms" -lt 2000 ] && grep -q '^benchguard: interrupted' "$T/$1.err"
}
runs_in() { sqlite3 "$1" "SELECT count(*) || '/' || coalesce(sum(status = 'complete'), 0) FROM runs"; }
lockdb="$T/locked.db"
cp "$T/early.db" "$lockdb"
n0=$(runs_in "$lockdb")
"$BG" --db "$db" baseline export -o "$T/base.json" >/dev/null 2>&1
# Each behind a lock held 8 s: one that ignores the signal ends after it.
hold "$lockdb" 8
interrupted run INT "$BG" --db "$lockdb" run --commit HEAD
wait "$HOLDER"
hold "$lockdb" 8
interrupted import TERM "$BG" --db "$lockdb" import "$T/sample.txt" --format lines --name w
wait "$HOLDER"
hold "$lockdb" 8
interrupted bimport HUP "$BG" --db "$lockdb" baseline import "$T/base.json"
wait "$HOLDER"
hold "$lockdb" 8
interrupted copy TERM "$BG" db copy "$db" "$lockdb"
wait "$HOLDER"
check "run waiting for the lock, Ctrl-C: exit 3 at once ($(cat "$T/run.rc"))" stopped run
check "import waiting for the lock, SIGTERM: exit 3 at once ($(cat "$T/import.rc"))" stopped import
check "baseline import waiting for the lock, SIGHUP: exit 3 at once ($(cat "$T/bimport.rc"))" stopped bimport
check "db copy waiting for the lock, SIGTERM: exit 3 at once ($(cat "$T/copy.rc"))" stopped copy
check "... and none of them stored a run, not even an empty one" test "$(runs_in "$lockdb")" = "$n0"
check "... the file intact" test "$(sqlite3 "$lockdb" 'PRAGMA integrity_check')" = ok

# Signals outside the waits above.
new_repo "$T/sig" >/dev/null
cd "$T/sig" || exit 1
cat >benchguard.json <<'J'
{ "defaults": { "warmup": 0, "samples": 1 },
  "benchmarks": [ { "name": "s", "command": "sleep 1; echo BENCHGUARD t 5 ms", "format": "lines" } ] }
J
git add -A && git commit -qm suite
# Under nohup (SIGHUP ignored from the start) a hangup stops nothing: it
# left the run incomplete at exit 3, so a terminal closing killed it.
(trap '' HUP; exec "$BG" --db "$T/sig.db" run) >"$T/out" 2>"$T/err" &
pid=$!
sleep 0.4
kill -HUP "$pid"
wait "$pid"
rc=$?
check "SIGHUP to a nohup'd run: it goes on, exit $rc (0), the run complete" bash -c "
	[ $rc = 0 ] && [ \"\$(sqlite3 $T/sig.db 'SELECT status FROM runs')\" = complete ]"
# Ctrl-C while import waits on a pipe or FIFO: interrupted, exit 3; it was
# exit 2, "Interrupted system call" or "no BENCHGUARD lines in output".
rm -f "$T/fifo" && mkfifo "$T/fifo"
"$BG" --db "$T/sig2.db" import "$T/fifo" --format lines --name f >"$T/out" 2>"$T/err" &
pid=$!
exec 7>"$T/fifo"
sleep 0.4
kill -INT "$pid"
wait "$pid"
rc=$?
exec 7>&-
check "SIGINT to import reading a FIFO: exit $rc (3), interrupted, nothing stored" bash -c "
	[ $rc = 3 ] && grep -qx 'benchguard: interrupted; nothing stored' $T/err && [ ! -s $T/sig2.db ]"
# stdin_stop ARGS...: benchguard ARGS reading a pipe with nothing in it
# yet, sent SIGINT; its exit status in $T/rc, its stderr in $T/err.
stdin_stop() {
	local pat="sig2.db $1"
	{ sleep 3 | "$BG" --db "$T/sig2.db" "$@" 2>"$T/err"; echo $? >"$T/rc"; } &
	for _ in $(seq 1 50); do pgrep -f "$pat" >/dev/null && break; sleep 0.1; done
	sleep 0.3
	pkill -INT -f "$pat"
	wait
}
stdin_stop import - --format lines --name f
check "SIGINT to import - waiting for input: exit $(cat "$T/rc") (3), interrupted" bash -c "
	[ \"\$(cat $T/rc)\" = 3 ] && grep -qx 'benchguard: interrupted; nothing stored' $T/err"
stdin_stop baseline import /dev/stdin
check "SIGINT to baseline import /dev/stdin: exit $(cat "$T/rc") (3), interrupted" bash -c "
	[ \"\$(cat $T/rc)\" = 3 ] && grep -qx 'benchguard: interrupted; nothing imported' $T/err"
# A command that has no more to stop when the signal comes (export writing
# into a pipe its reader has not drained yet) says it was interrupted,
# exit 3: it exited 0, which tells a CI step's timeout that all went well.
cat >benchguard.json <<'J'
{ "benchmarks": [ { "name": "s", "command": "seq 1 20000 | sed 's/.*/BENCHGUARD t & ms/'", "format": "lines" } ] }
J
git commit -qam many && "$BG" -q --db "$T/sig3.db" run >/dev/null 2>&1
{ "$BG" --db "$T/sig3.db" baseline export 2>"$T/err"; echo $? >"$T/rc"; } | { sleep 2; cat >"$T/export.json"; } &
sleep 1
pkill -INT -f "sig3.db baseline export"
wait
check "SIGINT to export blocked on its reader: exit $(cat "$T/rc") (3), saying so, the document whole" bash -c "
	[ \"\$(cat $T/rc)\" = 3 ] && grep -qx 'benchguard: interrupted (the command had finished its work)' $T/err &&
	python3 -c 'import json; json.load(open(\"$T/export.json\"))'"

# A rate stored lower-is-better (as an older release stored ops/sec) takes
# the direction its unit gives at the next import, as at the next run: the
# import was refused for the stored direction, for good.
printf 'BENCHGUARD tput %s ops/sec\n' 100 101 99 >"$T/rate.txt"
"$BG" -q --db "$T/rate.db" import "$T/rate.txt" --format lines --name b >/dev/null 2>&1
sqlite3 "$T/rate.db" "UPDATE series SET direction = 'lower' WHERE metric = 'tput'"
check "an ops/sec series stored lower-is-better: the next import stores (exit 0)" \
	expect_rc 0 "$BG" --db "$T/rate.db" import "$T/rate.txt" --format lines --name b
check "... and the series is higher-is-better now" \
	test "$(sqlite3 "$T/rate.db" "SELECT direction FROM series WHERE metric = 'tput'")" = higher
finish
