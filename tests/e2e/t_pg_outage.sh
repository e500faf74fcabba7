#!/usr/bin/env bash
# t_pg_outage.sh -- benchguard when the PostgreSQL server is away or mute,
# on a real server this script starts (tests/pg.sh): a server that stops
# between two benchmarks of a `run` ends it with exit 3 and one line, keeps
# the runs committed before and the incomplete run's first benchmark, and
# a rerun once it is back stores a whole run; a server that restarts, or
# closes the connection after idle_session_timeout, while a benchmark
# runs is connected to again and the run is whole; a server that accepts the
# connection and never answers (as an address behind a firewall that drops
# packets keeps libpq waiting) ends a command after the default connect
# timeout, or the one the string or PGCONNECT_TIMEOUT gives, instead of
# hanging the CI job.  Skipped, with the reason, where there are no
# PostgreSQL server binaries.
. "$(dirname "$0")/lib.sh"

now() { date +%s.%N; }
# within A B LO HI: B - A seconds lie in [LO, HI] (says how long when not).
within() {
	awk -v a="$1" -v b="$2" -v lo="$3" -v hi="$4" \
		'BEGIN { d = b - a; if (d < lo || d > hi) { printf "# took %.1f s, want %s..%s\n", d, lo, hi; exit 1 } }'
}

# 1. A server that accepts connections and never says a word (no server
# binaries needed).
cat >"$T/mute.py" <<'PY'
import socket, sys
s = socket.socket()
s.bind(("127.0.0.1", 0))
s.listen(64)
with open(sys.argv[1] + ".tmp", "w") as f:
    f.write(str(s.getsockname()[1]))
import os
os.rename(sys.argv[1] + ".tmp", sys.argv[1])
held = []
while True:
    held.append(s.accept()[0])
PY
python3 "$T/mute.py" "$T/mute.port" &
MUTE=$!
mute_exit() {
	kill "$MUTE" 2>/dev/null
	_cleanup
}
trap mute_exit EXIT
for _ in $(seq 100); do [ -s "$T/mute.port" ] && break; sleep 0.05; done
MP=$(cat "$T/mute.port")
# mute_db EXPECTED-LO EXPECTED-HI DB [ENV...]: db info on DB exits 3 with
# "cannot connect" within the bounds; `timeout` ends a hang after 60 s
# (with SIGKILL at last: libpq waits on through SIGTERM).
mute_db() {
	local lo=$1 hi=$2 db=$3 a b rc
	shift 3
	a=$(now)
	env "$@" timeout -k 5 60 "$BG" --db "$db" db info >"$T/out" 2>"$T/err"
	rc=$?
	b=$(now)
	[ "$rc" -eq 3 ] || { echo "# exit $rc, want 3"; sed 's/^/# err: /' "$T/err"; return 1; }
	grep -q 'cannot connect' "$T/err" || { sed 's/^/# err: /' "$T/err"; return 1; }
	within "$a" "$b" "$lo" "$hi"
}
check "a server that never answers: no connect_timeout given, exit 3 after the default 10 s" \
	mute_db 9 30 "postgresql://bench@127.0.0.1:$MP/bench"
check "... in key=value words too" \
	mute_db 9 30 "host=127.0.0.1 port=$MP dbname=bench user=bench"
check "... the string's connect_timeout=2 is kept: 2 s" \
	mute_db 1.5 8 "postgresql://bench@127.0.0.1:$MP/bench?connect_timeout=2"
check "... PGCONNECT_TIMEOUT=2 is kept: 2 s" \
	mute_db 1.5 8 "postgresql://bench@127.0.0.1:$MP/bench" PGCONNECT_TIMEOUT=2
# stopped SIG CMD...: CMD (with the signals' defaults, as from a terminal),
# sent SIG 1 s after it began, exits 3 within 2 s saying it was interrupted.
# libpq's own waits went on through every signal: the whole 10 s here.
stopped() {
	local sig=$1 pid a b rc
	shift
	env --default-signal=INT,HUP,TERM "$@" >"$T/out" 2>"$T/err" &
	pid=$!
	sleep 1
	a=$(now)
	kill "-$sig" "$pid"
	wait "$pid"
	rc=$?
	b=$(now)
	[ "$rc" -eq 3 ] || { echo "# exit $rc, want 3"; sed 's/^/# err: /' "$T/err"; return 1; }
	grep -q '^benchguard: interrupted' "$T/err" || { sed 's/^/# err: /' "$T/err"; return 1; }
	within "$a" "$b" 0 2
}
check "Ctrl-C while it connects to a server that never answers: exit 3 at once" \
	stopped INT "$BG" --db "postgresql://bench@127.0.0.1:$MP/bench" db info
check "... SIGTERM too" stopped TERM "$BG" --db "postgresql://bench@127.0.0.1:$MP/bench" db info
kill "$MUTE" 2>/dev/null

# 2. The server stops between two benchmarks of a run, and comes back.
pg_start_or_end "a PostgreSQL server that stops mid-run"
PG=$(pg_db outage) || {
	not_ok "creating the database"
	finish
	exit 1
}
# tests/pg.sh's server commits asynchronously and stops with an immediate
# shutdown, which loses the last commits: this database commits for real.
db_sql "$PG" "ALTER DATABASE outage SET synchronous_commit = on" >/dev/null
new_repo "$T/r" >/dev/null
cd "$T/r" || exit 1
echo '.benchguard/' >.gitignore
cat >benchguard.json <<J
{ "project": "outage", "defaults": { "warmup": 0, "samples": 3 },
  "benchmarks": [
    { "name": "a", "format": "lines", "command": "printf 'BENCHGUARD t 1 ms\\\\n%.0s' 1 2 3" },
    { "name": "b", "format": "lines",
      "command": "if [ -f '$T/stop' ]; then rm -f '$T/stop'; '$BG_ROOT/tests/pg.sh' stop '$PG_DIR' >/dev/null; fi; printf 'BENCHGUARD t 2 ms\\\\n%.0s' 1 2 3" },
    { "name": "c", "format": "lines", "command": "printf 'BENCHGUARD t 3 ms\\\\n%.0s' 1 2 3" } ] }
J
git add . && git commit -qm suite
check "a run into the database: exit 0" expect_rc 0 "$BG" -q --db "$PG" run
touch "$T/stop"
check "the server stops after the run's first benchmark: exit 3" expect_rc 3 "$BG" -q --db "$PG" run
check "... with one line that says the database, not a password, and why" \
	bash -c "[ \$(wc -l <'$T/err') = 1 ] && grep -q '^benchguard: database postgresql://bgtest@/outage?host=.*: .*the connection was lost (.*), and connecting again failed: ' '$T/err'"
"$BG_ROOT/tests/pg.sh" restart "$PG_DIR"
check "... back up: the first run complete with 3 results, the second incomplete with the first benchmark's" \
	bash -c "[ \"\$(db_sql() { psql -X -A -t -q -w -d \"\$1\" -c \"\$2\"; }; db_sql '$PG' \"SELECT r.status || ':' || (SELECT count(*) FROM results s WHERE s.run_id = r.id) FROM runs r ORDER BY r.id\" | tr '\n' ' ')\" = 'complete:3 incomplete:1 ' ]"
check "a rerun once it is back: exit 0" expect_rc 0 "$BG" -q --db "$PG" run
check "... history of c: the two complete runs" \
	bash -c "[ \$('$BG' --json --db '$PG' history c:t | grep -c '\"run\"') = 2 ]"

# A server that closes the connection while benchmarks run and takes new
# ones (a restart; idle_session_timeout, which a managed server may set
# shorter than a benchmark takes): the run went on to its next write and
# ended there, exit 3, its last benchmarks lost.  The next command sent
# outside a transaction connects again, and the run is whole.
# The benchmark stops the server and waits for it; the script starts it
# again (a server started by a benchmark would be its leftover, ended
# with it).
jq --arg T "$T" --arg pg "$BG_ROOT/tests/pg.sh" --arg dir "$PG_DIR" '.benchmarks[1].command =
	"\($pg) stop \($dir) >/dev/null; touch \($T)/down; while [ -e \($T)/down ]; do sleep 0.1; done; printf \"BENCHGUARD t 2 ms\\n\""' \
	benchguard.json >"$T/restart.json"
rm -f "$T/down"
(
	for _ in $(seq 1 300); do [ -e "$T/down" ] && break; sleep 0.1; done
	"$BG_ROOT/tests/pg.sh" restart "$PG_DIR"
	rm -f "$T/down"
) &
check "the server restarts between two benchmarks of a run: exit 0" \
	expect_rc 0 "$BG" -q --db "$PG" --config "$T/restart.json" run
wait
check "... the run complete with its 3 results" bash -c "
	[ \"\$(psql -X -A -t -q -w -d '$PG' -c \"SELECT r.status || ':' || (SELECT count(*) FROM results s WHERE s.run_id = r.id) FROM runs r ORDER BY r.id DESC LIMIT 1\")\" = complete:3 ]"
if [ "$(db_sql "$PG" 'SHOW server_version_num')" -ge 140000 ]; then
	db_sql "$PG" "ALTER DATABASE outage SET idle_session_timeout = '2s'" >/dev/null
	jq '.benchmarks[1].command = "sleep 3; printf \"BENCHGUARD t 2 ms\\n\""' benchguard.json >"$T/idle.json"
	n=$(db_sql "$PG" "SELECT count(*) FROM runs")
	check "idle_session_timeout 2 s, a benchmark of 3 s: exit 0" \
		expect_rc 0 "$BG" -q --db "$PG" --config "$T/idle.json" run
	check "... the run complete with its 3 results" bash -c "
		[ \"\$(psql -X -A -t -q -w -d '$PG' -c \"SELECT r.status || ':' || (SELECT count(*) FROM results s WHERE s.run_id = r.id) FROM runs r ORDER BY r.id DESC LIMIT 1\")\" = complete:3 ] &&
		[ \"\$(psql -X -A -t -q -w -d '$PG' -c 'SELECT count(*) FROM runs')\" = $((n + 1)) ]"
	check "... its last benchmark's samples stored after the new connection, as measured" bash -c "
		id=\$(psql -X -A -t -q -w -d '$PG' -c 'SELECT max(id) FROM runs') &&
		'$BG' --json --db '$PG' history c:t --limit 1 | jq -e --argjson id \$id '.[0].run == \$id and .[0].mean == 0.003' >/dev/null"
	db_sql "$PG" "ALTER DATABASE outage RESET idle_session_timeout" >/dev/null
else
	skip "idle_session_timeout" "skipped: the server is older than PostgreSQL 14"
fi

# The server ends the session while a benchmark runs (pg_terminate_backend,
# as an administrator or a pooler would), and the role may no longer log
# in: the command stops at its next write and says why the connection was
# lost in the server's words, not libpq's "server closed the connection
# unexpectedly".
db_sql "$PG" "CREATE ROLE bgfw LOGIN" >/dev/null
FW=$(pg_db fwdb bgfw)
jq --arg su "$PG" '.benchmarks[1].command =
	"psql -X -q -d \u0027\($su)\u0027 -c \"SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE usename = \u0027bgfw\u0027\" -c \"ALTER ROLE bgfw NOLOGIN\" >/dev/null; printf \"BENCHGUARD t 2 ms\\n\""' \
	benchguard.json >"$T/fw.json"
check "the session ended by the server, the role locked out: exit 3" \
	expect_rc 3 "$BG" -q --db "$FW" --config "$T/fw.json" run
check "... saying why in the server's words" \
	grep -q 'the connection was lost (terminating connection due to administrator command), and connecting again failed: ' "$T/err"

# Another writer holds the write lock (a long import of another job):
# Ctrl-C or SIGTERM stops the wait at once, exit 3, nothing stored.  The
# wait went on in libpq until the other writer committed.
runs() { db_sql "$PG" "SELECT count(*) FROM runs"; }
n0=$(runs)
hold_pg() { # SECONDS: another session holds benchguard's write lock that long
	(echo "BEGIN; SELECT pg_advisory_xact_lock(427869726572); SELECT pg_sleep($1); COMMIT;" |
		psql -X -q -w -d "$PG" >/dev/null 2>&1) &
	HOLDER=$!
	sleep 0.5
}
hold_pg 8
check "a run waiting for another writer's lock, Ctrl-C: exit 3 at once" stopped INT "$BG" -q --db "$PG" run
check "... saying so" grep -q 'interrupted while waiting for database' "$T/err"
wait "$HOLDER"
printf 'BENCHGUARD t 4 ms\n' >"$T/s.txt"
hold_pg 8
check "an import waiting for it, SIGTERM: exit 3 at once" \
	stopped TERM "$BG" --db "$PG" import "$T/s.txt" --format lines --name w
wait "$HOLDER"
check "... and neither stored a run" test "$(runs)" = "$n0"

# A reading statement waits on a table another session has locked (a
# DBA's VACUUM FULL, ALTER TABLE, LOCK TABLE): the prepared statements
# waited inside libpq, and Ctrl-C took effect only when the lock went.
(echo "BEGIN; LOCK TABLE results IN ACCESS EXCLUSIVE MODE; SELECT pg_sleep(8); COMMIT;" |
	psql -X -q -w -d "$PG" >/dev/null 2>&1) &
HOLDER=$!
sleep 0.5
check "history waiting on a locked table, Ctrl-C: exit 3 at once" \
	stopped INT "$BG" --db "$PG" history c:t
check "... saying so" grep -q 'interrupted while waiting for database' "$T/err"
wait "$HOLDER"
# A server that stopped answering mid-command (a frozen backend here; a
# network partition alike) never ends a cancelled statement: benchguard
# gives up on it 5 s after asking, rather than waiting for ever.
(echo "BEGIN; LOCK TABLE results IN ACCESS EXCLUSIVE MODE; SELECT pg_sleep(30); COMMIT;" |
	psql -X -q -w -d "$PG" >/dev/null 2>&1) &
HOLDER=$!
sleep 0.5
env --default-signal=INT,HUP,TERM "$BG" --db "$PG" history c:t >"$T/out" 2>"$T/err" &
pid=$!
sleep 1
bpid=$(db_sql "$PG" "SELECT pid FROM pg_stat_activity WHERE wait_event_type = 'Lock' AND query LIKE '%results%' LIMIT 1")
if [ -n "$bpid" ] && kill -STOP "$bpid" 2>/dev/null; then
	a=$(now)
	kill -INT "$pid"
	wait "$pid"
	rc=$?
	b=$(now)
	kill -CONT "$bpid"
	check "a frozen server, Ctrl-C: exit 3 ($rc) within the 5 s benchguard gives it" \
		within "$a" "$b" 4 8
	check "... saying it was interrupted" grep -q '^benchguard: interrupted' "$T/err"
else
	not_ok "the waiting backend to freeze was found (pid '${bpid}')"
	kill "$pid" 2>/dev/null
	wait "$pid"
fi
db_sql "$PG" "SELECT pg_cancel_backend(pid) FROM pg_stat_activity WHERE query LIKE '%pg_sleep(30)%' AND pid <> pg_backend_pid()" >/dev/null
wait "$HOLDER"

# 3. A role that may log in and create tables but was granted nothing on
# benchguard's tables: the schema is there, at its version, and the role
# is told it may not read it; nothing tries to create the tables again.
db_sql "$PG" "CREATE ROLE peek LOGIN; GRANT CREATE ON SCHEMA public TO peek" >/dev/null
PEEK=${PG/bgtest@/peek@}
check "a role granted nothing on the tables: history exits 3" expect_rc 3 "$BG" --db "$PEEK" history c:t
check "... saying permission denied, not migrating the schema" \
	bash -c "grep -q 'permission denied' '$T/err' && ! grep -q 'migrating' '$T/err'"
check "... run too, before measuring" expect_rc 3 "$BG" --db "$PEEK" run
check "... saying permission denied, not migrating the schema" \
	bash -c "grep -q 'permission denied' '$T/err' && ! grep -q 'migrating' '$T/err' && [ ! -s '$T/out' ]"
finish
