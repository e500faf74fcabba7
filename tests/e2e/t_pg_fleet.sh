#!/usr/bin/env bash
# t_pg_fleet.sh -- many benchguards sharing one PostgreSQL database, on a
# real server this script starts (tests/pg.sh): 8 processes storing 25 runs
# each at once all land, whole; 8 jobs opening a new database migrate it
# once (30 times over: the race lasts milliseconds); 4 concurrent `ci` jobs (and, after a receiver outage, 4 concurrent
# `alert flush`es) deliver each webhook alert exactly once; a run killed
# half-way stays incomplete and never enters a baseline; `db copy` carries
# those 200 runs (and 2 more, for check to judge) PostgreSQL -> SQLite ->
# PostgreSQL -> SQLite with every sample's bits, the same `check --json`
# and `history --json` everywhere, and adds nothing the second time; imports and baseline imports run beside runs, and one
# baseline file imported twice at once is stored once.  Skipped, with the
# reason, where there are no PostgreSQL server binaries.
. "$(dirname "$0")/lib.sh"
unset http_proxy https_proxy HTTP_PROXY HTTPS_PROXY all_proxy ALL_PROXY
PY=/usr/bin/python3

now() { date +%s.%N; }
secs() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.2f", b - a }'; }
# same A B: two values are equal (says both when not).
same() { [ "$1" = "$2" ] || { echo "# got '$1', want '$2'"; return 1; }; }
# empty FILE...: every FILE is empty (prints the first lines of those that
# are not).
empty() {
	local f r=0
	for f in "$@"; do
		[ -s "$f" ] || continue
		r=1
		echo "# $f is not empty:" && head -n 5 "$f" | sed 's/^/#   /'
	done
	return $r
}
# all_rc WANT RCFILE...: each file holds the exit status WANT (the end of
# the job's stderr is shown where not).
all_rc() {
	local want=$1 f r=0
	shift
	for f in "$@"; do
		[ "$(cat "$f" 2>/dev/null)" = "$want" ] && continue
		echo "# $f: exit $(cat "$f" 2>/dev/null), want $want"
		tail -n 3 "${f%.rc}.err" 2>/dev/null | sed 's/^/#   /'
		r=1
	done
	return $r
}
# job NAME CMD...: runs CMD in the background; stdout, stderr and the exit
# status go to $T/jobs/NAME.{out,err,rc}.  jobs_wait waits for those jobs
# (not for the receivers, which run on).
mkdir -p "$T/jobs"
JOB_PIDS=()
job() {
	local name=$1
	shift
	("$@" >"$T/jobs/$name.out" 2>"$T/jobs/$name.err"; echo $? >"$T/jobs/$name.rc") &
	JOB_PIDS+=($!)
}
jobs_wait() {
	wait "${JOB_PIDS[@]}"
	JOB_PIDS=()
}

# HTTP receivers (stopped on exit with the server): each logs one JSON line
# per request when it arrives and answers 200 after DELAY seconds, so that
# every delivery is in flight long enough for the other processes to try
# to take the same alert meanwhile.
RECV_PIDS=()
fleet_exit() {
	local p
	for p in "${RECV_PIDS[@]}"; do kill "$p" 2>/dev/null; done
	_cleanup # lib.sh's: stops the server
}
trap fleet_exit EXIT
cat >"$T/recv.py" <<'PY'
import json, os, sys, threading, time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
portfile, logfile, delay = sys.argv[1], sys.argv[2], float(sys.argv[3])
lock = threading.Lock()
class H(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    def log_message(self, *args):
        pass
    def do_POST(self):
        body = self.rfile.read(int(self.headers.get("Content-Length") or 0)).decode()
        with lock, open(logfile, "a") as f:
            f.write(json.dumps({"t": time.time(), "path": self.path,
                                "headers": dict(self.headers.items()), "body": body}) + "\n")
        time.sleep(delay)
        self.send_response(200)
        self.send_header("Content-Length", "2")
        self.end_headers()
        self.wfile.write(b"ok")
srv = ThreadingHTTPServer(("127.0.0.1", 0), H)
with open(portfile + ".tmp", "w") as f:
    f.write(str(srv.server_port))
os.rename(portfile + ".tmp", portfile)
srv.serve_forever()
PY
# recv NAME DELAY: starts a receiver; sets PORT and RECV_PID; log $T/NAME.log.
recv() {
	local i
	rm -f "$T/$1.port" && : >"$T/$1.log"
	"$PY" "$T/recv.py" "$T/$1.port" "$T/$1.log" "$2" &
	RECV_PID=$!
	RECV_PIDS+=("$RECV_PID")
	for i in $(seq 100); do [ -s "$T/$1.port" ] && break; sleep 0.05; done
	PORT=$(cat "$T/$1.port")
}

pg_start_or_end "benchguard fleets on PostgreSQL"
LOG="$PG_DIR/server.log"
# migrated_db NAME: a new database with benchguard's schema made by one
# process first, so that the concurrent jobs of a point test that point
# (point 2 tests jobs that start together on an empty database).
migrated_db() {
	local u
	u=$(pg_db "$1") && "$BG" --db "$u" exclude --list >/dev/null && echo "$u"
}

new_repo "$T/r" >/dev/null
cd "$T/r" || exit 1
echo '.benchguard/' >.gitignore
# Two series a run, three samples each, every value a full-precision
# double (seeded by the process id, so runs differ and the copies below
# must carry every bit); `lines` runs the program once a run: fast.
cat >"$T/fleet.json" <<'J'
{ "project": "fleet",
  "baseline": { "branch": "main", "window": 30, "min_runs": 5 },
  "defaults": { "warmup": 0, "samples": 3 },
  "benchmarks": [ { "name": "x", "format": "lines",
    "command": "awk -v s=$$ 'BEGIN { srand(s); for (i = 0; i < 3; i++) printf \"BENCHGUARD t %.17g ms\\nBENCHGUARD bw %.17g GB/s\\n\", 1.5 + rand() / 10, 3 + rand() / 5 }'" } ] }
J
git add .gitignore && git commit -qm "suite"
fleet() { "$BG" -q --config "$T/fleet.json" "$@"; }

# 1. Eight writers, 25 runs each, at once, into one database.
F=$(migrated_db fleet)
a=$(now)
for i in 1 2 3 4 5 6 7 8; do
	job "w$i" fleet --db "$F" run --runs 25 --machine "w$i" --tag "writer=$i"
done
jobs_wait
b=$(now)
check "8 writers x 25 runs at once on PostgreSQL: every one exits 0" all_rc 0 "$T"/jobs/w?.rc
check "... with nothing on stderr" empty "$T"/jobs/w?.err
check "... 200 complete runs, none incomplete" \
	same "$(db_sql "$F" "SELECT count(*) FILTER (WHERE status = 'complete'), count(*) FILTER (WHERE status <> 'complete') FROM runs")" "200|0"
check "... 25 under each writer's machine name, each tagged with its writer" \
	same "$(db_sql "$F" "SELECT m.fingerprint || ':' || count(*) || ':' || min(t.value) || ':' || max(t.value)
		FROM runs r JOIN machines m ON m.id = r.machine_id
		JOIN run_tags t ON t.run_id = r.id AND t.key = 'writer'
		GROUP BY m.fingerprint ORDER BY m.fingerprint" | tr '\n' ' ')" \
	"w1:25:1:1 w2:25:2:2 w3:25:3:3 w4:25:4:4 w5:25:5:5 w6:25:6:6 w7:25:7:7 w8:25:8:8 "
check "... every run has both series' results, each with n = 3 and its 3 samples" \
	same "$(db_sql "$F" "SELECT
		(SELECT count(*) FROM runs r WHERE (SELECT count(*) FROM results s WHERE s.run_id = r.id) <> 2),
		(SELECT count(*) FROM results r WHERE r.n <> 3 OR (SELECT count(*) FROM samples s WHERE s.result_id = r.id) <> 3),
		(SELECT count(*) FROM results), (SELECT count(*) FROM samples),
		(SELECT count(*) FROM outcomes WHERE status = 'ok')")" "0|0|400|1200|200"
# The ids each writer printed: 25 each, 200 distinct, the database's own.
cat "$T"/jobs/w?.out | awk '$1 ~ /^[0-9]+$/ && $2 == "x:t" { print $1 }' | sort -n >"$T/printed-ids"
db_sql "$F" "SELECT id FROM runs ORDER BY id" >"$T/db-ids"
check "... the writers printed 200 distinct run ids, the database's" \
	bash -c "[ \$(sort -u '$T/printed-ids' | wc -l) = 200 ] && cmp -s '$T/printed-ids' '$T/db-ids'"
echo "# figure: t_pg_fleet: 8 writers x 25 runs on PostgreSQL: $(db_sql "$F" "SELECT count(*) FROM runs WHERE status = 'complete'") complete," \
	"$(cat "$T"/jobs/w?.rc | grep -cv '^0$') errors in $(secs "$a" "$b") s"

# 2. Eight jobs opening new databases at once: one migration each (a
# command that only reads, as a nightly report is; db info would not: it
# upgrades nothing).
V=$("$BG" --json db info --db "$F" | "$PY" -c 'import json, sys; print(json.load(sys.stdin)["schema_version"])')
check "db info --json gives the schema version ($V)" [ "${V:-0}" -gt 0 ]
# A job that reads the version while another commits the migration is
# the race, and it lasts milliseconds: 30 new databases, 8 jobs each.
logsz=$(stat -c %s "$LOG")
tables=$(db_sql "$F" "SELECT count(*) FROM pg_tables WHERE schemaname = 'public'")
MIG_ROUNDS=30
bad=0 failed_jobs=0
a=$(now)
for ((d = 1; d <= MIG_ROUNDS; d++)); do
	U=$(pg_db "mig$d")
	for i in 1 2 3 4 5 6 7 8; do job "mig$d-$i" "$BG" --json --db "$U" exclude --list; done
	jobs_wait
	v=$("$BG" --json db info --db "$U" | "$PY" -c 'import json, sys; print(json.load(sys.stdin)["schema_version"])')
	for i in 1 2 3 4 5 6 7 8; do
		[ "$(cat "$T/jobs/mig$d-$i.rc")" = 0 ] && [ ! -s "$T/jobs/mig$d-$i.err" ] && [ "$v" = "$V" ] && continue
		failed_jobs=$((failed_jobs + 1))
		[ "$bad" = 1 ] || echo "# mig$d job $i: exit $(cat "$T/jobs/mig$d-$i.rc"), version '$v': $(head -c 300 "$T/jobs/mig$d-$i.err")"
		bad=1
	done
	same "$(db_sql "$U" 'SELECT version FROM benchguard_schema')" "$V" || bad=1
	same "$(db_sql "$U" "SELECT count(*) FROM pg_tables WHERE schemaname = 'public'")" "$tables" || bad=1
done
b=$(now)
echo "# figure: t_pg_fleet: 8 jobs opening a new database at once, $MIG_ROUNDS times: $failed_jobs of $((MIG_ROUNDS * 8)) jobs failed, $(secs "$a" "$b") s"
check "8 jobs opening a new database at once ($MIG_ROUNDS times): all exit 0 and print nothing on stderr, the database at version $V, one version row, every table made" \
	[ "$bad" = 0 ]
tail -c +"$((logsz + 1))" "$LOG" | grep -E 'ERROR|FATAL|PANIC' >"$T/mig-errors"
check "... and no statement failed on the server while they migrated (no CREATE collided)" empty "$T/mig-errors"

# 3. Four concurrent ci jobs with a webhook: each alert arrives once.
new_repo "$T/a" >/dev/null
cd "$T/a" || exit 1
echo '.benchguard/' >.gitignore
printf 'BENCHGUARD t 1.0 ms\nBENCHGUARD t 1.02 ms\nBENCHGUARD t 0.98 ms\n' >value.txt
git add .gitignore value.txt && git commit -qm "value 1.0"
# alert_cfg TIMEOUT: the suite, out of the tree, with a webhook target.
alert_cfg() {
	cat >"$T/alert.json" <<J
{ "project": "fleet",
  "baseline": { "branch": "main", "window": 20, "min_runs": 5 },
  "defaults": { "warmup": 0, "samples": 3 },
  "benchmarks": [ { "name": "v", "format": "lines", "command": "cat value.txt" } ],
  "alerts": [ { "kind": "webhook", "url": "\${HOOK_URL}", "secret": "\${HOOK_SECRET}", "timeout": $1 } ] }
J
}
export HOOK_SECRET=fleet-secret-for-the-test
alert_cfg 20
"$BG" -q --config "$T/alert.json" --db "$T/alert-base.db" run --runs 6 >/dev/null 2>&1
sed -i 's/ 1\.0 / 2.0 /; s/ 1\.02 / 2.02 /; s/ 0\.98 / 1.98 /' value.txt
git commit -qam "value 2.0"
check "the alert history: 6 runs at value 1.0 before a commit making it 2.0" \
	same "$(sqlite3 "$T/alert-base.db" "SELECT count(*) FROM runs WHERE status = 'complete'")" 6
ci4() { # DB PREFIX: 4 ci jobs at once
	local i
	for i in 1 2 3 4; do job "$2$i" "$BG" -q --config "$T/alert.json" --db "$1" ci --confirm 0; done
	jobs_wait
}
# delivered_once LOG DB [ATTEMPTS]: the receiver got one request per outbox
# row, each row's uid exactly once (X-Benchguard-Delivery = the body's
# alert_id), and every row is delivered (after ATTEMPTS tries, when given).
delivered_once() {
	db_sql "$2" "SELECT uid || ' ' || state || ' ' || attempts FROM outbox ORDER BY id" >"$T/outbox.txt"
	"$PY" - "$1" "$T/outbox.txt" "${3:-any}" <<'PY'
import collections, json, sys
log = [json.loads(l) for l in open(sys.argv[1])]
rows = [l.split() for l in open(sys.argv[2])]
if sys.argv[3] == "any":
    rows = [r[:2] + ["any"] for r in rows]
uids = [r[0] for r in rows]
ids = [e["headers"]["X-Benchguard-Delivery"] for e in log]
for e in log:
    assert json.loads(e["body"])["alert_id"] == e["headers"]["X-Benchguard-Delivery"], e
dup = {k: n for k, n in collections.Counter(ids).items() if n > 1}
assert not dup, "delivered more than once: %s" % dup
assert len(set(uids)) == len(uids), "outbox uids repeat: %s" % uids
assert sorted(ids) == sorted(uids), "requests %s, outbox %s" % (ids, uids)
assert all(r[1:] == ["delivered", sys.argv[3]] for r in rows), rows
print("# %d outbox rows, %d distinct uids, %d requests" % (len(rows), len(set(uids)), len(ids)))
PY
}

A1=$(pg_db alerts_up)
A2=$(pg_db alerts_down)
check "db copy puts the alert history into two PostgreSQL databases" bash -c \
	"'$BG' -q db copy '$T/alert-base.db' '$A1' >/dev/null && '$BG' -q db copy '$T/alert-base.db' '$A2' >/dev/null"
recv up 0.3
export HOOK_URL="http://127.0.0.1:$PORT/hook"
a=$(now)
ci4 "$A1" ci
b=$(now)
check "4 concurrent ci jobs, a regression each: all exit 1" all_rc 1 "$T"/jobs/ci?.rc
grep -h 'warning\|error' "$T"/jobs/ci?.err >"$T/ci-warnings"
check "... with no warning or error" empty "$T/ci-warnings"
check "... each stored its run: 4 runs at the new commit" \
	same "$(db_sql "$A1" "SELECT count(*) FROM runs r JOIN commits c ON c.id = r.commit_id WHERE c.sha = '$(git rev-parse HEAD)' AND r.status = 'complete'")" 4
check "... 4 alerts in the outbox, 4 distinct" \
	same "$(db_sql "$A1" 'SELECT count(*), count(DISTINCT uid) FROM outbox')" "4|4"
check "... the receiver got each exactly once, every row delivered after one request" \
	delivered_once "$T/up.log" "$A1" 1
echo "# figure: t_pg_fleet: 4 concurrent ci with a webhook: $(wc -l <"$T/up.log") requests for" \
	"$(db_sql "$A1" 'SELECT count(DISTINCT uid) FROM outbox') alerts in $(secs "$a" "$b") s"

# The receiver down during the 4 ci jobs; then 4 `alert flush` at once.
recv down 0.3
kill "$RECV_PID" && wait "$RECV_PID" 2>/dev/null
export HOOK_URL="http://127.0.0.1:$PORT/hook" # nothing listens there now
alert_cfg 2
ci4 "$A2" cid
check "receiver down: 4 concurrent ci jobs exit 1" all_rc 1 "$T"/jobs/cid?.rc
check "... and leave 4 distinct alerts pending" \
	same "$(db_sql "$A2" "SELECT count(*), count(DISTINCT uid), count(*) FILTER (WHERE state = 'pending') FROM outbox")" "4|4|4"
recv back 0.3
export HOOK_URL="http://127.0.0.1:$PORT/hook"
for i in 1 2 3 4; do job "flush$i" "$BG" --config "$T/alert.json" --db "$A2" alert flush; done
jobs_wait
check "4 concurrent alert flush: all exit 0" all_rc 0 "$T"/jobs/flush?.rc
check "... between them they report 4 delivered" \
	same "$(cat "$T"/jobs/flush?.out | grep -c '^delivered ')" 4
check "... the receiver got each pending alert exactly once, every row delivered (after the ci jobs' tries)" \
	delivered_once "$T/back.log" "$A2"
cd "$T/r" || exit 1

# 4. A run killed half-way stays incomplete and is never a baseline.
K=$(pg_db killed)
cat >"$T/kill.json" <<'J'
{ "project": "fleet",
  "baseline": { "branch": "main", "window": 20, "min_runs": 3 },
  "defaults": { "warmup": 0, "samples": 2 },
  "benchmarks": [ { "name": "nap", "command": "true" },
                  { "name": "slow", "command": "exec sleep ${BG_SLEEP:-0}", "samples": 1 } ] }
J
kill_run() { "$BG" -q --config "$T/kill.json" --db "$K" "$@"; }
kill_run run --runs 5 >/dev/null 2>"$T/kill.err"
check "5 complete runs of nap and slow" \
	same "$(db_sql "$K" "SELECT count(*) FROM runs WHERE status = 'complete'")" 5
BG_SLEEP=60 "$BG" -q --config "$T/kill.json" --db "$K" run >/dev/null 2>&1 &
victim=$!
rid=
for i in $(seq 200); do # until nap's samples are stored and slow sleeps
	rid=$(db_sql "$K" "SELECT DISTINCT r.id FROM runs r JOIN results s ON s.run_id = r.id WHERE r.status = 'incomplete'")
	[ -n "$rid" ] && break
	sleep 0.05
done
kill -KILL "$victim"
wait "$victim" 2>/dev/null
check "a run killed (SIGKILL) while its second benchmark runs: stored as incomplete (run ${rid:-none})" \
	same "$(db_sql "$K" "SELECT status, finished_at IS NULL FROM runs WHERE id = ${rid:-0}")" "incomplete|t"
check "... keeping the benchmark it had finished (nap: its series, 2 samples each), nothing of slow" \
	same "$(db_sql "$K" "SELECT count(*) FILTER (WHERE e.benchmark = 'nap') > 0,
		bool_and(s.n = 2 AND (SELECT count(*) FROM samples v WHERE v.result_id = s.id) = 2),
		count(*) FILTER (WHERE e.benchmark <> 'nap')
		FROM results s JOIN series e ON e.id = s.series_id WHERE s.run_id = ${rid:-0}")" "t|t|0"
git commit -q --allow-empty -m "next"
kill_run run >/dev/null 2>>"$T/kill.err"
kill_run check --json >"$T/kill-check.json" 2>>"$T/kill.err"
check "... check at the next commit: a baseline of 5 runs for every series, not 6" "$PY" - "$T/kill-check.json" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
# A baseline run set aside as an outlier (cpu_time of `true` ticks) still counts.
got = {r["series"]: r["baseline_runs"] + r["baseline_outliers"] for r in d["results"]}
assert "nap:wall_time" in got and "slow:wall_time" in got and set(got.values()) == {5}, got
PY
check "... history shows the killed run as incomplete" bash -c \
	"'$BG' --config '$T/kill.json' --db '$K' --json history nap:wall_time --limit 0 | '$PY' -c '
import json, sys
rows = json.load(sys.stdin)
assert [r for r in rows if r[\"run\"] == ${rid:-0} and r[\"complete\"] is False], rows'"

# 5. db copy, PostgreSQL -> SQLite -> PostgreSQL -> SQLite, of the fleet's
# history plus 2 runs of w1 at a later commit (so check judges something).
git commit -q --allow-empty -m "candidate"
fleet --db "$F" run --runs 2 --machine w1 >/dev/null 2>"$T/cand.err"
n_runs=$(db_sql "$F" "SELECT count(*) FROM runs")
C1=$(pg_db copy1)
a=$(now)
"$BG" --json db copy "$F" "$T/A.db" >"$T/copy0.json" 2>&1 &&
	"$BG" --json db copy "$T/A.db" "$C1" >"$T/copy1.json" 2>&1 &&
	"$BG" --json db copy "$C1" "$T/B.db" >"$T/copy2.json" 2>&1
rc=$?
b=$(now)
copied() { "$PY" -c 'import json, sys; d = json.load(open(sys.argv[1])); print(d["runs_copied"], d["runs_present"])' "$1"; }
check "db copy fleet -> A.db -> PostgreSQL -> B.db: $n_runs runs each time" \
	same "$rc $(copied "$T/copy0.json") $(copied "$T/copy1.json") $(copied "$T/copy2.json")" "0 $n_runs 0 $n_runs 0 $n_runs 0"
counts() {
	db_sql "$1" "SELECT (SELECT count(*) FROM runs), (SELECT count(*) FROM results),
		(SELECT count(*) FROM samples), (SELECT count(*) FROM run_tags),
		(SELECT count(*) FROM outcomes), (SELECT count(*) FROM machines)"
}
want=$(counts "$F")
check "... the same rows everywhere: runs, results, samples, tags, outcomes, machines ($want)" \
	bash -c "[ '$(counts "$T/A.db")' = '$want' ] && [ '$(counts "$C1")' = '$want' ] && [ '$(counts "$T/B.db")' = '$want' ]"
# samples_of DB: every sample, "uid|machine|start|series|index|value" with
# the value as a hexadecimal float (its exact bits: sqlite3 and psql print
# doubles with different digits, so SQLite's are read through Python's
# module and PostgreSQL's shortest round-trip text converted).
samples_of() {
	local q="SELECT r.uid, m.fingerprint, r.started_at, e.benchmark || ':' || e.metric, v.idx, v.value
		FROM runs r JOIN machines m ON m.id = r.machine_id JOIN results s ON s.run_id = r.id
		JOIN series e ON e.id = s.series_id JOIN samples v ON v.result_id = s.id
		ORDER BY r.uid, 4, v.idx"
	if [[ $1 == postgresql://* ]]; then
		db_sql "$1" "$q"
	else
		"$PY" -c 'import sqlite3, sys
for r in sqlite3.connect(sys.argv[1]).execute(sys.argv[2]):
    print("|".join(map(str, r[:-1])) + "|" + repr(r[-1]))' "$1" "$q"
	fi | "$PY" -c 'import sys
for l in sys.stdin:
    a, _, v = l.rstrip("\n").rpartition("|")
    print(a + "|" + float(v).hex())'
}
# views DB NAME: check --json (w1 at the candidate, against its 25 runs),
# history --json of the benchmark's series, and every sample, for DB.
views() {
	fleet --db "$1" --json check --machine w1 >"$T/$2.check" 2>/dev/null
	fleet --db "$1" --json history x --limit 0 >"$T/$2.history" 2>/dev/null
	samples_of "$1" >"$T/$2.samples"
}
views "$F" F && views "$T/A.db" A && views "$C1" C && views "$T/B.db" B
"$PY" - "$T/F.check" <<'PY' >"$T/check-shape" 2>&1
import json, sys
d = json.load(open(sys.argv[1]))
assert len(d["results"]) == 2 and all(r["baseline_runs"] == 25 and r["current_runs"] == 2 for r in d["results"]), d
PY
check "... check --json on the fleet judges w1's 2 candidate runs against its 25" empty "$T/check-shape"
check "... check --json identical byte for byte on all four" \
	bash -c "cmp '$T/F.check' '$T/A.check' && cmp '$T/F.check' '$T/C.check' && cmp '$T/F.check' '$T/B.check'"
check "... history --json (all $n_runs runs of both series) identical on all four" \
	bash -c "[ \$(grep -c '\"run\"' '$T/F.history') -ge $n_runs ] && cmp '$T/F.history' '$T/A.history' &&
		cmp '$T/F.history' '$T/C.history' && cmp '$T/F.history' '$T/B.history'"
check "... every sample of every run, by uid, bit for bit on all four" \
	bash -c "[ \$(wc -l <'$T/F.samples') = $((n_runs * 6)) ] && cmp '$T/F.samples' '$T/A.samples' &&
		cmp '$T/F.samples' '$T/C.samples' && cmp '$T/F.samples' '$T/B.samples'"
"$BG" --json db copy "$T/A.db" "$C1" >"$T/copy3.json" 2>&1
"$BG" --json db copy "$C1" "$T/B.db" >"$T/copy4.json" 2>&1
check "... copied again: runs_copied 0 both ways" \
	same "$(copied "$T/copy3.json") $(copied "$T/copy4.json")" "0 $n_runs 0 $n_runs"
check "... and the row counts do not change" \
	bash -c "[ '$(counts "$C1")' = '$want' ] && [ '$(counts "$T/B.db")' = '$want' ]"
# Three copies of A.db at once into another database: each run lands once.
C2=$(migrated_db copy2)
for i in 1 2 3; do job "cc$i" "$BG" --json db copy "$T/A.db" "$C2"; done
jobs_wait
check "3 db copies of A.db at once into another PostgreSQL database: all exit 0" all_rc 0 "$T"/jobs/cc?.rc
check "... $n_runs runs copied between them" \
	same "$(for i in 1 2 3; do copied "$T/jobs/cc$i.out"; done | awk '{ c += $1 } END { print c }')" "$n_runs"
check "... each run once: the same rows as the source" same "$(counts "$C2")" "$want"
echo "# figure: t_pg_fleet: db copy of $n_runs runs ($(db_sql "$F" 'SELECT count(*) FROM samples') samples)" \
	"PostgreSQL -> SQLite -> PostgreSQL -> SQLite in $(secs "$a" "$b") s"

# 6. Imports, baseline imports and gc beside runs in one database; one
# baseline file imported twice at once, there and alone in 2 other ones.
M=$(migrated_db mixed)
fleet --db "$F" baseline export --machine w3 --window 25 -o "$T/w3.json" 2>"$T/export.err"
nb=$("$PY" -c 'import json, sys; print(len(json.load(open(sys.argv[1]))["runs"]))' "$T/w3.json" 2>/dev/null)
check "baseline export of writer 3's runs: 25 runs" same "$nb" 25
for i in $(seq 1 20); do echo "BENCHGUARD lat $i us"; done >"$T/lat.txt"
bimport() { "$BG" --db "$1" baseline import "$T/w3.json" --machine w3; }
a=$(now)
for i in 1 2; do job "mrun$i" fleet --db "$M" run --runs 10 --machine "m$i"; done
for i in 1 2 3; do job "mimp$i" "$BG" -q --db "$M" import "$T/lat.txt" --format lines --name imp --machine imp --tag "k=$i"; done
job bi0a bimport "$M"
job bi0b bimport "$M"
job mgc "$BG" -q --config "$T/fleet.json" --db "$M" gc --max-age 0d
jobs_wait
b=$(now)
BI=("$M")
for d in 1 2; do
	BI+=("$(migrated_db "bimport$d")")
	job "bi${d}a" bimport "${BI[$d]}"
	job "bi${d}b" bimport "${BI[$d]}"
	jobs_wait
done
check "2 writers x 10 runs, 3 imports and gc beside 2 baseline imports: all exit 0" \
	all_rc 0 "$T"/jobs/mrun?.rc "$T"/jobs/mimp?.rc "$T/jobs/mgc.rc"
check "... with nothing on stderr" empty "$T"/jobs/mrun?.err "$T"/jobs/mimp?.err "$T/jobs/mgc.err"
check "... the runs and the imports all stored: 10 runs a writer, 3 imported runs, 20 samples each" \
	same "$(db_sql "$M" "SELECT m.fingerprint || ':' || count(*) || ':' || sum((SELECT sum(n) FROM results s WHERE s.run_id = r.id))
		FROM runs r JOIN machines m ON m.id = r.machine_id WHERE m.fingerprint <> 'w3' AND r.status = 'complete'
		GROUP BY m.fingerprint ORDER BY m.fingerprint" | tr '\n' ' ')" "imp:3:60 m1:10:60 m2:10:60 "
grep -h '^benchguard:' "$T"/jobs/bi??.err | sed 's/^/# /' | sort | uniq -c | sort -rn | head -n 5
check "one baseline file imported twice at once (3 times: beside the runs, then alone in 2 other databases): both exit 0 each time" \
	all_rc 0 "$T"/jobs/bi??.rc
# shellcheck disable=SC2016 # expanded by the inner bash
check "... each time, the two say 25 imported and 25 already present between them" bash -c '
	for d in 0 1 2; do
		cat "$1/jobs/bi${d}a.out" "$1/jobs/bi${d}b.out" |
			sed -n "s/^imported \([0-9]*\) runs\{0,1\} (\([0-9]*\) already present).*/\1 \2/p" |
			awk "{ i += \$1; p += \$2 } END { if (i != 25 || p != 25) { print \"# round $d: \" i \" imported, \" p \" present\"; exit 1 } }" || exit 1
	done' - "$T"
db_sql "$F" "SELECT r.uid FROM runs r JOIN machines m ON m.id = r.machine_id WHERE m.fingerprint = 'w3' ORDER BY 1" >"$T/w3-uids"
bad=0
for d in 0 1 2; do
	db_sql "${BI[$d]}" "SELECT r.uid FROM runs r JOIN machines m ON m.id = r.machine_id
		WHERE m.fingerprint = 'w3' AND r.status = 'complete' ORDER BY 1" >"$T/bi$d-uids"
	cmp -s "$T/w3-uids" "$T/bi$d-uids" || { echo "# round $d: $(wc -l <"$T/bi$d-uids") complete runs"; bad=1; }
	same "$(db_sql "${BI[$d]}" "SELECT count(*), count(DISTINCT r.uid), (SELECT count(*) FROM samples)
		FROM runs r JOIN machines m ON m.id = r.machine_id WHERE m.fingerprint = 'w3'")" "25|25|$((25 * 6 + (d == 0 ? 20 * 6 + 60 : 0)))" || bad=1
done
check "... each time its 25 runs are stored once (by uid), complete, with every sample" [ "$bad" = 0 ]
echo "# figure: t_pg_fleet: 20 runs, 3 imports, 2 baseline imports (25 runs) and gc at once in $(secs "$a" "$b") s"

# What the server logged as failed statements over the whole script (kept
# for a post-mortem; the assertions above are what counts).
grep -E 'ERROR|FATAL|PANIC' "$LOG" | head -n 10 | sed 's/^/# server: /'
finish
