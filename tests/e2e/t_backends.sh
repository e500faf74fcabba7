# t_backends.sh -- the same history, the same answers, on both backends.
#
# One scenario is played twice, step by step, into a SQLite file and into a
# PostgreSQL database on a real server this script starts (tests/pg.sh):
# runs of a deterministic benchmark on six commits, a seventh that makes
# one series 30% slower, then every command that touches the store:
# run/import (store), check, ci with its confirmation pairs and a webhook
# alert through the outbox, history, baseline export and import, report,
# bisect, alert flush and db copy.  Each command's JSON (and the alert the
# receiver got) must be the same from both, once the fields that say when
# or how long (timestamps, durations, uids, the database's name) are set
# aside; the exit codes must match too.  The benchmark prints fixed
# values kept in the repository, so each commit measures the same on
# both backends.  Numbers read back with every bit from a PostgreSQL
# database that sets extra_float_digits to 0.  Text that is not UTF-8 (a
# Latin-1 commit, a stray byte in a failing benchmark's stderr and in a
# build's log) is stored alike on both, and db copy carries a SQLite file
# that holds such text raw into PostgreSQL.
. "$(dirname "$0")/lib.sh"

pg_start_or_end "both backends"
ok "a PostgreSQL server of this test's own is up"
PG=$(pg_db backends) || {
	not_ok "creating the database"
	finish
	exit 1
}
LITE="$T/backends.db"
PY=/usr/bin/python3
unset http_proxy https_proxy HTTP_PROXY HTTPS_PROXY all_proxy ALL_PROXY

# A webhook receiver for each backend, stopped on exit with the rest.
_recv_pids=()
trap 'kill "${_recv_pids[@]}" 2>/dev/null; _cleanup' EXIT
recv() { # NAME: not in $(...), which would wait for the receiver to end
	rm -f "$T/$1.port" && : >"$T/$1.log"
	"$PY" "$FIX/http/receiver.py" script:200 "$T/$1.port" "$T/$1.log" >/dev/null 2>&1 &
	_recv_pids+=($!)
	for _ in $(seq 100); do [ -s "$T/$1.port" ] && break; sleep 0.1; done
}
recv lite
recv pg
PORT_LITE=$(cat "$T/lite.port")
PORT_PG=$(cat "$T/pg.port")

new_repo "$T/r" >/dev/null
cd "$T/r" || exit 1
# data.txt: 12 samples of two series, fixed by the commit's number; the
# seventh commit is 30% slower in calc/x.
data() { # N SCALE
	awk -v n="$1" -v k="$2" 'BEGIN { srand(n); for (i = 0; i < 12; i++) {
		printf "BENCHGUARD calc/x %.6f ms\n", k * (10 + n * 0.01 + rand() * 0.2);
		printf "BENCHGUARD calc/y %.6f B\n", 4096 + int(rand() * 8) } }'
}
cfg() { # NAME PORT
	cat >"$T/$1.json" <<J
{ "project": "backends",
  "baseline": { "branch": "main", "window": 20, "min_runs": 5 },
  "defaults": { "warmup": 0, "samples": 1 },
  "benchmarks": [ { "name": "calc", "command": "cat data.txt", "format": "lines" } ],
  "alerts": [ { "kind": "webhook", "url": "http://127.0.0.1:$2/hook" } ] }
J
}
cfg lite "$PORT_LITE"
cfg pg "$PORT_PG"
# both NAME ARGS...: the command on each backend; JSON (stdout) in
# $T/NAME.lite and $T/NAME.pg, exit codes in $T/NAME.rc.
both() {
	local name=$1 rc1 rc2
	shift
	"$BG" --db "$LITE" --config "$T/lite.json" "$@" >"$T/$name.lite" 2>"$T/$name.lite.err"
	rc1=$?
	"$BG" --db "$PG" --config "$T/pg.json" "$@" >"$T/$name.pg" 2>"$T/$name.pg.err"
	rc2=$?
	echo "$rc1 $rc2" >"$T/$name.rc"
}
# same NAME: the two outputs agree once volatile fields are set aside.
same() {
	"$PY" - "$T/$1.lite" "$T/$1.pg" "$LITE" "$PG" <<'P'
import json, re, sys
VOLATILE = {"started_at", "finished_at", "generated_at", "since", "created_at", "date",
            "seconds", "uid", "alert_id", "database", "delivered_at", "elapsed",
            "time", "duration"}
def norm(v):
    if isinstance(v, dict):
        return {k: (None if k in VOLATILE else norm(x)) for k, x in v.items()}
    if isinstance(v, list):
        return [norm(x) for x in v]
    if isinstance(v, str):
        v = v.replace(sys.argv[3], "DB").replace(sys.argv[4], "DB")
        # Dates and times written into text (report titles, alert bodies).
        v = re.sub(r"\d{4}-\d\d-\d\d[T ]\d\d:\d\d(:\d\d)?Z?", "DATE", v)
    return v
def load(path):
    text = open(path).read()
    try:
        return norm(json.loads(text))
    except ValueError:
        return norm(text)
a, b = load(sys.argv[1]), load(sys.argv[2])
if a != b:
    sa = json.dumps(a, indent=1, sort_keys=True).splitlines()
    sb = json.dumps(b, indent=1, sort_keys=True).splitlines()
    import difflib
    for line in list(difflib.unified_diff(sa, sb, "sqlite", "postgresql", lineterm=""))[:40]:
        print("# " + line)
    sys.exit(1)
P
}
rc_is() { [ "$(cat "$T/$1.rc")" = "$2 $2" ] || { echo "# exit codes (sqlite pg): $(cat "$T/$1.rc")"; cat "$T/$1.lite.err" "$T/$1.pg.err" | sed 's/^/# /' | head -10; return 1; }; }
# compare NAME RC ARGS...: run on both; same exit code RC and same JSON.
compare() {
	local name=$1 rc=$2
	shift 2
	both "$name" "$@"
	check "$name: exit $rc on both backends" rc_is "$name" "$rc"
	check "$name: the same JSON from SQLite and PostgreSQL" same "$name"
}

# Six commits with runs (store), two runs each.
for n in 1 2 3 4 5 6; do
	data "$n" 1 >data.txt && git add data.txt && git commit -qm "commit $n"
	for k in 1 2; do
		both "run$n$k" --json run
		rc_is "run$n$k" 0 || not_ok "run at commit $n"
	done
done
ok "twelve runs stored on each backend"
compare check-clean 0 --json check
compare history 0 --json history calc --limit 0
compare history-limit 0 --json history calc --limit 2
compare export 0 baseline export

# import: an outside result file as one more run of the sixth commit.
data 60 1 >"$T/outside.txt"
compare import 0 --json import "$T/outside.txt" --format lines --name outside --tag src=ext

# The regression: ci runs, judges against the rolling baseline, confirms in
# pairs, records its verdict and alerts through the outbox.
data 7 1.3 >data.txt && git commit -qam "calc 30% slower"
compare ci 1 --json ci
check "ci found the regression" grep -q '"verdict": "regression"' "$T/ci.lite"
for b in lite pg; do
	[ "$(wc -l <"$T/$b.log")" -eq 1 ] || not_ok "one alert reached the $b receiver ($(wc -l <"$T/$b.log"))"
	"$PY" -c 'import json,sys; print(json.loads(open(sys.argv[1]).readline())["body"])' \
		"$T/$b.log" >"$T/alert.$b"
done
check "the alert each backend sent is the same" same alert
compare flush 0 alert flush
compare check-regressed 1 --json check
compare history-after 0 --json history calc:calc/x --limit 0
# With a limit, PostgreSQL reads every series' newest runs in one statement
# (LATERAL), SQLite one series at a time: the same rows, verdicts included.
compare history-after-limit 0 --json history calc --limit 1
compare history-after-metric 0 --json history calc:calc/x --limit 3
compare report 0 --json report --since 30d
compare report-md 0 --format markdown report --since 30d
compare bisect 0 --json bisect --good HEAD~6 --bad HEAD --series calc:calc/x --runs 3
check "bisect names the slow commit on both" grep -q "$(git rev-parse HEAD)" "$T/bisect.pg"
# Each pair of runs it made is recorded as one (runs.pair_ref), alike.
pairs_in() {
	db_sql "$1" "SELECT count(*) FROM runs a JOIN runs b ON b.pair_ref = a.uid AND b.id <> a.id
		WHERE a.pair_ref = a.uid"
}
pairs_alike() { # [DB]: DB (SQLite's by default) has as many pairs as PostgreSQL's, some
	local l p
	l=$(pairs_in "${1:-$LITE}") && p=$(pairs_in "$PG") && [ "$l" = "$p" ] && [ "$p" -gt 0 ] ||
		{ echo "# pairs recorded: ${1:-sqlite} ${l:-?}, postgresql ${p:-?}"; return 1; }
}
check "bisect recorded its pairs, as many on both" pairs_alike
# A database of schema 8 (its runs name no pair) is migrated on both; its
# runs pair with nothing, so the same bisect measures its pairs again.
V=$(db_sql "$PG" "SELECT version FROM benchguard_schema")
undo14="ALTER TABLE runs DROP COLUMN exclude_reason; ALTER TABLE runs DROP COLUMN excluded_at;"
db_sql "$PG" "ALTER TABLE runs DROP COLUMN pair_ref; ALTER TABLE outcomes DROP COLUMN definition;
	DROP INDEX runs_started; $undo14 UPDATE benchguard_schema SET version = 8"
db_sql "$LITE" "DROP INDEX runs_pair_ref; ALTER TABLE runs DROP COLUMN pair_ref;
	ALTER TABLE outcomes DROP COLUMN definition; DROP INDEX runs_started; $undo14 PRAGMA user_version = 8"
compare bisect-migrated 0 --json bisect --good HEAD~6 --bad HEAD --series calc:calc/x --runs 3
versions() { echo "$(db_sql "$PG" "SELECT version FROM benchguard_schema") $(db_sql "$LITE" "PRAGMA user_version")"; }
check "... schema 8 migrated to $V on both" test "$(versions)" = "$V $V"
unpaired() { db_sql "$1" "SELECT count(*) FROM runs WHERE pair_ref IS NULL AND role = 'paired'"; }
old_runs_apart() {
	[ "$(unpaired "$PG")" -gt 0 ] && [ "$(unpaired "$PG")" = "$(unpaired "$LITE")" ] ||
		{ echo "# runs in no pair: sqlite $(unpaired "$LITE"), postgresql $(unpaired "$PG")"; return 1; }
}
check "... the runs stored before in no pair, as many on both" old_runs_apart
check "... the new pairs recorded, as many on both" pairs_alike

# Baselines across backends: the SQLite export into fresh databases of
# both kinds judges the same.
PG2=$(pg_db imported)
LITE2="$T/imported.db"
m=$("$BG" --db "$LITE" --json fingerprint | "$PY" -c 'import json,sys; print(json.load(sys.stdin)["fingerprint"])')
"$BG" --db "$LITE2" baseline import "$T/export.lite" --machine "$m" >/dev/null 2>"$T/e1" &&
	"$BG" --db "$PG2" baseline import "$T/export.lite" --machine "$m" >/dev/null 2>"$T/e2"
check "baseline import into both backends" test $? -eq 0
"$BG" --db "$LITE2" --config "$T/lite.json" --json check >"$T/imp.lite" 2>/dev/null
"$BG" --db "$PG2" --config "$T/pg.json" --json check >"$T/imp.pg" 2>/dev/null
check "check against the imported baseline: the same on both" same imp
# The same runs under new uids twice: one file as they are, the other with
# a series in another unit.  Both files are refused on both backends (one
# transaction), the databases as they were.
"$PY" - "$T/export.lite" "$T/good.json" "$T/clash.json" <<'P'
import json, sys
for k, out in enumerate(sys.argv[2:]):
    doc = json.load(open(sys.argv[1]))
    name = None
    for i, r in enumerate(doc["runs"]):
        r["uid"] = "%032x" % (0xc1a5000 + 1000 * k + i)
        for s in r["series"]:
            name = name or (s["benchmark"], s["metric"])
            if k and (s["benchmark"], s["metric"]) == name:
                s["unit"] = "B"
    json.dump(doc, open(out, "w"))
P
for d in "$LITE2" "$PG2"; do
	before=$(db_sql "$d" "SELECT count(*) FROM runs")
	"$BG" --db "$d" baseline import "$T/good.json" "$T/clash.json" --machine "$m" >/dev/null 2>"$T/clash.err"
	rc=$?
	check "baseline files, one with a unit the database contradicts: exit 2 on $(case $d in postgresql*) echo PostgreSQL ;; *) echo SQLite ;; esac)" \
		test "$rc" = 2
	check "... nothing of either file stored there" test "$(db_sql "$d" "SELECT count(*) FROM runs")" = "$before"
done

# db copy: PostgreSQL into a new SQLite file and back into a new database
# answers as the original does; a second copy adds nothing.
PG3=$(pg_db copied)
"$BG" db copy "$PG" "$T/copy.db" >/dev/null 2>"$T/c1" && "$BG" db copy "$T/copy.db" "$PG3" >/dev/null 2>>"$T/c1"
check "db copy PostgreSQL -> SQLite -> PostgreSQL" test $? -eq 0
for d in "$T/copy.db" "$PG3"; do
	"$BG" --db "$d" --config "$T/pg.json" --json check >"$T/cp.out" 2>/dev/null
	cp "$T/check-regressed.pg" "$T/cpa.lite" && cp "$T/cp.out" "$T/cpa.pg"
	check "check --json after db copy into $(case $d in postgresql*) echo PostgreSQL ;; *) echo SQLite ;; esac)" same cpa
done
check "db copy keeps the pairs: as many in the SQLite copy" pairs_alike "$T/copy.db"
check "... and in the PostgreSQL copy of that" pairs_alike "$PG3"
"$BG" --json db copy "$PG" "$T/copy.db" >"$T/again.json" 2>&1
check "a second db copy adds nothing" grep -q '"runs_copied": 0' "$T/again.json"
# Runs of more results than db copy writes to PostgreSQL in one statement
# (and a rest), with results older benchguards left, there and back: each
# result whole, with its own samples in order, in the order stored.
many_series_db "$T/many.db"
PGM=$(pg_db many)
"$BG" db copy "$T/many.db" "$PGM" >/dev/null 2>"$T/c2" && "$BG" db copy "$PGM" "$T/many-back.db" >/dev/null 2>>"$T/c2"
check "db copy of runs of 150 results SQLite -> PostgreSQL -> SQLite" test $? -eq 0
check "... every result, column and sample as the source's" \
	test "$(results_dump "$T/many.db")" = "$(results_dump "$T/many-back.db")"
check "... 3 runs, 450 results and 1,344 samples in PostgreSQL" test "$(db_sql "$PGM" \
	"SELECT count(*) FROM runs; SELECT count(*) FROM results; SELECT count(*) FROM samples" | tr '\n' ' ')" = "3 450 1344 "
# A run's results are stored 64 to a statement: an import of 150 series
# stores each one's samples under its own series, in order, on both.
PGI=$(pg_db manyimport)
for d in "$T/many-import.db" "$PGI"; do
	many_series_lines 2 | (cd "$T/many.db.repo" && "$BG" -q --db "$d" import - --format lines --name m >/dev/null)
	check "import of 150 series into $(case $d in postgresql*) echo PostgreSQL ;; *) echo SQLite ;; esac): 150 results, 450 samples" \
		test "$(db_sql "$d" "SELECT count(*) FROM results; SELECT count(*) FROM samples" | tr '\n' ' ')" = "150 450 "
	check "... each sample under its own series, in order" test "$(db_sql "$d" "$many_series_sql")" = 0
done

# PostgreSQL's view of the samples (what queries of one's own read) takes
# each array once.  As schema 12 left it, it took each sample by its
# subscript, and an array of more than 2 kB, stored compressed out of
# line, was unpacked again for each one: 10 results of 40,000 samples took
# some 45 s to read.  Opening the database (schema 13) replaces the view.
PGL=$(pg_db longarrays)
awk 'BEGIN { for (s = 0; s < 10; s++) for (i = 0; i < 40000; i++) printf "BENCHGUARD s%d %d.%05d us\n", s, s + 1, i }' |
	(cd "$T/many.db.repo" && "$BG" -q --db "$PGL" import - --format lines --name long >/dev/null)
db_sql "$PGL" "DROP VIEW samples; CREATE VIEW samples(result_id, idx, value) AS
	SELECT a.result_id, s.i - 1, a.vals[s.i] FROM sample_arrays a, generate_subscripts(a.vals, 1) AS s(i);
	$undo14 UPDATE benchguard_schema SET version = 12"
"$BG" --db "$PGL" history long --limit 1 >/dev/null 2>"$T/err"
check "a PostgreSQL database of schema 12 opened: schema $V" test "$(db_sql "$PGL" "SELECT version FROM benchguard_schema")" = "$V"
t0=$(date +%s%N)
got=$(timeout 60 psql -X -A -t -q -w -d "$PGL" -c "SELECT count(*), sum(idx), min(value), max(value) FROM samples")
ms=$((($(date +%s%N) - t0) / 1000000))
check "... its samples view reads 400,000 samples of 40,000-sample arrays whole, in order" \
	test "$got" = "400000|7999800000|1e-06|1.039999e-05"
check "... in under 5 s, each array read once (${ms} ms)" test "$ms" -lt 5000
# db copy from PostgreSQL reads a run's samples a range of series at a
# time: libpq holds a statement's whole answer in memory, so this run's
# 400,000 samples read at once took 23 MB more.
rss_of() { python3 -c 'import resource, subprocess, sys
p = subprocess.run(sys.argv[1:], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
print(p.returncode, resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss)' "$@"; }
read -r rc base_kib < <(rss_of "$BG" --db "$PGL" history long --limit 1)
read -r rc copy_kib < <(rss_of "$BG" db copy "$PGL" "$T/long.db")
check "db copy of 10 results of 40,000 samples from PostgreSQL: exit 0 (got $rc), every sample" \
	test "$rc:$(sqlite3 "$T/long.db" 'SELECT count(*), sum(idx) FROM samples')" = "0:400000|7999800000"
# The release build's memory: the sanitizers' allocator keeps freed
# blocks and pads each one (43 MB more here read a chunk at a time, 63 MB
# the whole run at once), which says nothing of benchguard's.
case $BG in
*sanitize*) skip "db copy's memory from PostgreSQL ($((copy_kib / 1024)) MB against $((base_kib / 1024)) MB)" \
	"measured in the release build" ;;
*) check "... in at most 12 MB more than history needs ($((copy_kib / 1024)) MB against $((base_kib / 1024)) MB; 23 MB more read whole)" \
	test $((copy_kib - base_kib)) -lt $((12 * 1024)) ;;
esac
# A database without benchguard's tables is no source: nothing to copy,
# and no tables made in it (nor the destination made).
EMPTY=$(pg_db empty)
check "db copy from an empty PostgreSQL database -> exit 2" \
	expect_rc 2 "$BG" db copy "$EMPTY" "$T/from-empty.db"
tables=$(db_sql "$EMPTY" "SELECT count(*) FROM information_schema.tables WHERE table_schema = 'public'")
check "... saying so, creating nothing" bash -c "grep -q 'it is empty' '$T/err' && [ ! -e '$T/from-empty.db' ] &&
	[ '$tables' = 0 ]"
# Another program's database (tables, no benchguard_schema) is refused as
# bad input, as a SQLite file of another program is.
OTHER=$(pg_db other) && db_sql "$OTHER" "CREATE TABLE notes(body TEXT)"
for d in "$OTHER" "$T/other.db"; do
	case $d in postgresql*) ;; *) sqlite3 "$d" "CREATE TABLE notes(body TEXT)" ;; esac
	check "another program's database ($(case $d in postgresql*) echo PostgreSQL ;; *) echo SQLite ;; esac)): exit 2" \
		expect_rc 2 "$BG" --db "$d" db info
	check "... saying so" grep -q "not a benchguard database (it has tables but no schema version)" "$T/err"
done
check "db info names the backend" bash -c "'$BG' --db '$PG' db info | grep -q 'backend *postgresql'"

# Numbers read back exactly whatever extra_float_digits the server, the
# database or the role sets: at 0 (the default before PostgreSQL 12)
# float8's text has 15 significant digits.  Values that need 17.
PG_MAIN=$PG LITE_MAIN=$LITE
PG=$(pg_db exact) && db_sql "$PG" "ALTER DATABASE exact SET extra_float_digits = 0"
LITE="$T/exact.db"
check "the database 'exact' rounds floats for its clients" \
	test "$(db_sql "$PG" 'SELECT 1.2345678901234567::float8')" = 1.23456789012346
printf 'BENCHGUARD v %s s\n' 1.2345678901234567 0.30000000000000004 123456.78901234567 \
	2.2250738585072014e-308 >"$T/exact.txt"
compare exact-import 0 --json import "$T/exact.txt" --format lines --name exact --machine exact
compare exact-history 0 --json history exact:v --limit 0
compare exact-export 0 baseline export --machine exact
"$BG" db copy "$PG" "$T/exact-copy.db" >/dev/null 2>"$T/exact-copy.err"
check "db copy of such a database: exit 0" test $? -eq 0
check "... every sample keeps its bits" "$PY" - "$T/exact-copy.db" "$T/exact.txt" <<'P'
import sqlite3, sys
got = [v for (v,) in sqlite3.connect(sys.argv[1]).execute("SELECT value FROM samples ORDER BY idx")]
want = [float(line.split()[2]) for line in open(sys.argv[2])]
if got != want:
    print("# got %r, want %r" % (got, want))
    sys.exit(1)
P
# -0 is one number, 0, on both: SQLite stores a REAL -0.0 as 0, so the
# same sample must not come back as -0 from PostgreSQL alone (JSON's -0.0
# equals 0 for `same`: the files are compared byte for byte).
PG=$(pg_db negzero) LITE="$T/negzero.db"
printf 'BENCHGUARD v %s s\n' -0.0 1.5 -0 >"$T/negzero.txt"
compare negzero-import 0 --json import "$T/negzero.txt" --format lines --name nz --machine nz
both negzero-export baseline export --machine nz
# The two imports made their own run (uid, start time): the rest is the same text.
unvolatile() { grep -Ev '"(uid|started_at)":' "$1"; }
check "a sample of -0 exports alike from both backends" \
	cmp <(unvolatile "$T/negzero-export.lite") <(unvolatile "$T/negzero-export.pg")
both negzero-history history nz:v
# Each import is stamped with its own second: the date column is set aside.
undated() { sed -E 's/[0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9]{2}:[0-9]{2}:[0-9]{2}Z/DATE/' "$1"; }
check "... and history shows it alike" \
	cmp <(undated "$T/negzero-history.lite") <(undated "$T/negzero-history.pg")
check "... a row with the date set aside" grep -q 'nz:v .*DATE' <(undated "$T/negzero-history.pg")
check "... stored as 0 in PostgreSQL too, summaries and samples" \
	test "$(db_sql "$PG" "SELECT min FROM results UNION ALL SELECT value FROM samples" | tr '\n' ' ')" = "0 0 1.5 0 "
PG=$PG_MAIN LITE=$LITE_MAIN

# Credentials: a role that must give its password, from PGPASSWORD, from a
# ${VAR} in the URI, and written in the URI itself.  The password is in no
# output, no message and nothing stored.
PW=$("$BG_ROOT/tests/pg.sh" password "$PG_DIR")
SECRET=$(pg_db secret bgpass)
withpw() { # URI ARGS...
	local uri=$1
	shift
	"$BG" --db "$uri" --config "$T/pg.json" "$@"
}
: >"$T/pw.out"
PGPASSWORD=$PW withpw "$SECRET" run >>"$T/pw.out" 2>&1
r1=$?
BG_T_DBPW=$PW withpw "${SECRET/bgpass@/bgpass:\$\{BG_T_DBPW\}@}" --json check >>"$T/pw.out" 2>&1
r2=$?
withpw "${SECRET/bgpass@/bgpass:$PW@}" --json history calc >>"$T/pw.out" 2>&1
r3=$?
check "the password role works from PGPASSWORD, a \${VAR} and the URI" test "$r1 $r2 $r3" = "0 0 0"
# ~/.pgpass, libpq's file (lib.sh's $HOME is the scratch one).
printf '*:*:*:bgpass:%s\n' "$PW" >"$HOME/.pgpass" && chmod 600 "$HOME/.pgpass"
withpw "$SECRET" --json history calc >>"$T/pw.out" 2>&1
check "the password role works from ~/.pgpass" test $? -eq 0
rm -f "$HOME/.pgpass"
withpw "${SECRET/bgpass@/bgpass:wrong-$PW@}" history calc >>"$T/pw.out" 2>&1
check "a wrong password: exit 3" test $? -eq 3
check "a wrong password says why" grep -q "password authentication failed" "$T/pw.out"
check "the password is in no output or message" bash -c "! grep -qF -- '$PW' '$T/pw.out'"
check "the database's name in messages has no password" grep -q "postgresql://bgpass@/secret?host=" "$T/pw.out"
db_sql "$PG" "SELECT 1" >/dev/null # the server still answers
PGPASSWORD=$PW psql -X -A -t -q -d "$SECRET" -c "COPY (SELECT * FROM runs) TO STDOUT" >"$T/dump" 2>&1
for t in run_facts run_tags machine_facts outcomes outbox builds checks commits; do
	PGPASSWORD=$PW psql -X -A -t -q -d "$SECRET" -c "COPY $t TO STDOUT" >>"$T/dump" 2>&1
done
check "nothing stored holds the password" bash -c "[ -s '$T/dump' ] && ! grep -qF -- '$PW' '$T/dump'"
# A generated password with a '/' and an '@' (base64 and friends): as a
# ${VAR} in the URI, libpq read what came before the '/' as the port, and
# the error quoted it; in a URI held whole by a variable, the database's
# name in every message held the part after the '@'.
SLASH='Xk9vQ2/Lm7@Rt+Wd8=='
db_sql "$PG" "ALTER ROLE bgpass PASSWORD '$SLASH'" >/dev/null
: >"$T/slash.out"
BG_T_DBPW=$SLASH withpw "${SECRET/bgpass@/bgpass:\$\{BG_T_DBPW\}@}" --json history calc >>"$T/slash.out" 2>&1
check "a password with '/' and '@' in a \${VAR} of the URI: it connects ($?)" test $? -eq 0
raw="${SECRET/bgpass@/bgpass:$SLASH@}"
BG_T_URL=$raw "$BG" --db '${BG_T_URL}' --config "$T/pg.json" history calc >>"$T/slash.out" 2>&1
check "... written unencoded in a URI a variable holds: exit 2" test $? -eq 2
"$BG" --db "$raw" --config "$T/pg.json" history calc >>"$T/slash.out" 2>&1
check "... or in --db itself: exit 2" test $? -eq 2
check "... saying to percent-encode it" grep -q "holds a '/', '@', '?' or '#' that is not percent-encoded" "$T/slash.out"
check "... and no part of it in any message" bash -c "
	! grep -qF -e 'Xk9vQ2' -e 'Lm7' -e 'Rt+Wd8' '$T/slash.out'"
db_sql "$PG" "ALTER ROLE bgpass PASSWORD '$PW'" >/dev/null

# Text that is not UTF-8, which a UTF-8 PostgreSQL database refuses: a
# commit whose subject and author are Latin-1 without saying so, a failing
# benchmark that writes a stray byte to stderr, a failed build's log with
# one.  Both backends store it with each stray byte as U+FFFD, and answer
# alike.  A commit that declares Latin-1 is stored converted, as written.
FFFD=$(printf '\357\277\275')
PG=$(pg_db text) LITE="$T/text.db"
new_repo "$T/u8" >/dev/null
cd "$T/u8" || exit 1
printf '.benchguard/\n' >.gitignore && git add .gitignore
# git itself would convert such a message (it guesses Latin-1): the commit
# object is written as another tool could have written it.
sha=$(printf 'tree %s\nparent %s\nauthor Jos\351 <author@example.com> 1700000000 +0000\ncommitter Jos\351 <author@example.com> 1700000000 +0000\n\ncaf\351 fix\n' \
	"$(git write-tree)" "$(git rev-parse HEAD)" | git hash-object -t commit -w --stdin) &&
	git update-ref HEAD "$sha" && git reset -q
# text_cfg [BUILD]: both backends' config; BUILD, a JSON string, its build.
text_cfg() {
	local b
	for b in lite pg; do
		cat >"$T/$b.json" <<J
{ ${1:+\"build\": $1,} "defaults": { "warmup": 0, "samples": 1 },
  "benchmarks": [ { "name": "ok", "command": "echo 'BENCHGUARD v 1 ms'", "format": "lines" },
                  { "name": "bad", "command": "printf 'oops \\\\377\\\\n' >&2; exit 1" } ] }
J
	done
}
text_cfg
compare text-run 3 --json run
compare text-run2 3 --json run
compare text-history 0 --json history ok --limit 0
# stored NAME SQL: the rows SQL reads on each backend, the same on both.
stored() {
	db_sql "$LITE" "$2" >"$T/$1.lite" 2>&1
	db_sql "$PG" "$2" >"$T/$1.pg" 2>&1
	cmp -s "$T/$1.lite" "$T/$1.pg" || { echo "# sqlite: $(cat "$T/$1.lite")"; echo "# postgresql: $(cat "$T/$1.pg")"; return 1; }
}
check "the runs are complete on both, the Latin-1 commit stored" \
	stored text-commits "SELECT r.status, c.author, c.subject FROM runs r JOIN commits c ON c.id = r.commit_id ORDER BY r.id"
check "... as UTF-8 with U+FFFD for each stray byte" \
	test "$(sort -u "$T/text-commits.pg")" = "complete|Jos$FFFD <author@example.com>|caf$FFFD fix"
check "the failed benchmark's outcome is kept on both" \
	stored text-outcomes "SELECT status, message FROM outcomes WHERE benchmark = 'bad' ORDER BY run_id"
line="failed|exit status 1; stderr: oops $FFFD"
check "... with its stderr, the stray byte as U+FFFD" test "$(cat "$T/text-outcomes.pg")" = "$line"$'\n'"$line"
text_cfg '"printf '\''making \\377\\n'\''; exit 2"'
compare text-build 3 --json run --commit HEAD
check "the failed build's log is kept on both" stored text-builds "SELECT ok, log_tail FROM builds"
check "... with its stray byte as U+FFFD" grep -qxF "0|making $FFFD" "$T/text-builds.pg"
GIT_AUTHOR_NAME=$(printf 'Jos\351') git -c i18n.commitEncoding=latin1 commit -q --allow-empty \
	-m "$(printf 'caf\351 declared')"
text_cfg
compare text-declared 3 --json run
check "a commit that declares Latin-1 is stored in UTF-8, as written, on both" \
	stored text-declared "SELECT c.author, c.subject FROM runs r JOIN commits c ON c.id = r.commit_id
		WHERE r.id = (SELECT max(id) FROM runs)"
check "... José, café" test "$(cat "$T/text-declared.pg")" = "$(printf 'Jos\303\251 <author@example.com>|caf\303\251 declared')"

# A SQLite file in which an older benchguard stored such text as it came
# (a unit too, from before units were checked): db copy carries every run
# of it into PostgreSQL, and a second copy adds nothing.
sqlite3 "$LITE" "VACUUM INTO '$T/raw.db'"
sqlite3 "$T/raw.db" "UPDATE commits SET subject = CAST(x'636166e920666978' AS TEXT), author = CAST(x'4a6f73e9' AS TEXT);
	UPDATE outcomes SET message = CAST(x'6f6f707320ff' AS TEXT) WHERE status = 'failed';
	UPDATE builds SET log_tail = CAST(x'6d616b696e6720ff' AS TEXT);
	UPDATE series SET unit = CAST(x'73ff' AS TEXT)"
n=$(sqlite3 "$T/raw.db" "SELECT count(*) FROM runs WHERE status = 'complete'")
check "the raw file holds stray bytes" test "$(sqlite3 "$T/raw.db" "SELECT count(*) FROM outcomes WHERE message = CAST(x'6f6f707320ff' AS TEXT)")" = "$n"
PGC=$(pg_db textcopy)
check "db copy of it into PostgreSQL: exit 0" expect_rc 0 "$BG" --json db copy "$T/raw.db" "$PGC"
check "... every run copied ($n)" grep -qx "  \"runs_copied\": $n," "$T/out"
check "... the build too" grep -qx '  "builds": 1,' "$T/out"
check "... each stray byte as U+FFFD" test "$(db_sql "$PGC" "SELECT DISTINCT c.subject || '|' || o.message || '|' || s.unit
	FROM runs r JOIN commits c ON c.id = r.commit_id JOIN outcomes o ON o.run_id = r.id
	JOIN results x ON x.run_id = r.id JOIN series s ON s.id = x.series_id WHERE o.status = 'failed'")" = \
	"caf$FFFD fix|oops $FFFD|s$FFFD"
check "a second db copy: exit 0" expect_rc 0 "$BG" --json db copy "$T/raw.db" "$PGC"
check "... adding nothing" grep -qx '  "runs_copied": 0,' "$T/out"

# The configuration's "database": ${VAR}s are expanded when it is opened,
# in a file path as in a PostgreSQL string, and a variable may hold the
# whole PostgreSQL URI (a fleet's address in a CI secret).  A relative file
# is the repository's.  An unset variable is exit 2, naming it.
new_repo "$T/cfgdb" >/dev/null
cat >"$T/cfgdb/benchguard.json" <<'J'
{ "database": "${BG_TEST_DB}",
  "benchmarks": [ { "name": "b", "command": "true" } ] }
J
cfg_run() { (cd "$T/cfgdb" && env -u BENCHGUARD_DB "$@" "$BG" -q run --samples 2 --warmup 0 >"$T/out" 2>"$T/err"); }
cfg_run BG_TEST_DB="$T/cfgdb-files/a.db"
check "\"database\": \"\${VAR}\" holding a file: the run is stored there" \
	test "$(sqlite3 "$T/cfgdb-files/a.db" "SELECT count(*) FROM runs WHERE status = 'complete'" 2>/dev/null)" = 1
check "... and no file named after the variable" test ! -e "$T/cfgdb/\${BG_TEST_DB}"
PGV=$(pg_db viavar)
cfg_run BG_TEST_DB="$PGV"
check "\"database\": \"\${VAR}\" holding a PostgreSQL URI: the run is stored there" \
	test "$(db_sql "$PGV" "SELECT count(*) FROM runs WHERE status = 'complete'")" = 1
check "... not in a SQLite file" test ! -e "$T/cfgdb/\${BG_TEST_DB}"
(cd "$T/cfgdb" && env -u BENCHGUARD_DB BG_TEST_DB="$PGV" "$BG" db info >"$T/out" 2>"$T/err")
check "... db info names the PostgreSQL database" grep -q "postgresql" "$T/out"
sed -i 's|"\${BG_TEST_DB}"|"dbs/\${BG_TEST_NAME}.db"|' "$T/cfgdb/benchguard.json"
cfg_run BG_TEST_NAME=nightly
check "a relative \"dbs/\${VAR}.db\": the repository's dbs/nightly.db" \
	test "$(sqlite3 "$T/cfgdb/dbs/nightly.db" "SELECT count(*) FROM runs" 2>/dev/null)" = 1
check "an unset variable: exit 2, naming it" bash -c "[ \"\$(cd $T/cfgdb && env -u BENCHGUARD_DB -u BG_TEST_NAME $BG -q db info >/dev/null 2>$T/err; echo \$?)\" = 2 ] &&
	grep -q '\"database\": environment variable BG_TEST_NAME is not set' $T/err"
sed -i 's|"dbs/\${BG_TEST_NAME}.db"|"dbs/\${BG_TEST_NAME.db"|' "$T/cfgdb/benchguard.json"
(cd "$T/cfgdb" && env -u BENCHGUARD_DB "$BG" -q run >"$T/out" 2>"$T/err")
check "an unterminated \"\${\": exit 2 when the configuration loads ($?)" bash -c "[ $? = 2 ] && grep -q 'database.*unterminated' $T/err"

# --db and $BENCHGUARD_DB take what "database" takes: ${VAR} in a file path,
# or a variable holding the whole PostgreSQL URI; "$$" is one "$".
echo '{ "benchmarks": [ { "name": "b", "command": "true" } ] }' >"$T/cfgdb/benchguard.json"
cli_run() { (cd "$T/cfgdb" && env -u BENCHGUARD_DB "$@" >"$T/out" 2>"$T/err"); }
cli_run BG_TEST_DIR="$T/clidb" "$BG" -q --db '${BG_TEST_DIR}/a.db' run --samples 1 --warmup 0
check "--db '\${VAR}/a.db': exit 0 ($?), the run stored in the expanded path" \
	test "$(sqlite3 "$T/clidb/a.db" "SELECT count(*) FROM runs WHERE status = 'complete'" 2>/dev/null)" = 1
check "... and no file or folder named after the variable" test ! -e "$T/cfgdb/\${BG_TEST_DIR}"
cli_run BENCHGUARD_DB='${BG_TEST_DIR}/b$$.db' BG_TEST_DIR="$T/clidb" "$BG" -q run --samples 1 --warmup 0
check "BENCHGUARD_DB='\${VAR}/b\$\$.db': stored in b\$.db" \
	test "$(sqlite3 "$T/clidb/b\$.db" "SELECT count(*) FROM runs" 2>/dev/null)" = 1
cli_run "$BG" -q --db '${BG_TEST_UNSET}/c.db' run --samples 1 --warmup 0
check "an unset variable in --db: exit 2 ($?), naming it" \
	grep -q 'database ${BG_TEST_UNSET}/c.db: environment variable BG_TEST_UNSET is not set' "$T/err"
check "... nothing made" test ! -e "$T/cfgdb/\${BG_TEST_UNSET}" -a ! -e /c.db
PGW=$(pg_db clivar)
cli_run BG_TEST_URL="$PGW" "$BG" -q --db '${BG_TEST_URL}' run --samples 1 --warmup 0
check "--db '\${VAR}' holding a PostgreSQL URI: the run is stored there ($?)" \
	test "$(db_sql "$PGW" "SELECT count(*) FROM runs WHERE status = 'complete'")" = 1
check "... not in a SQLite file" test ! -e "$T/cfgdb/\${BG_TEST_URL}"
cli_run BENCHGUARD_DB='${BG_TEST_URL}' BG_TEST_URL="$PGW" "$BG" db info
check "BENCHGUARD_DB='\${VAR}': db info names the PostgreSQL database" grep -q "^backend *postgresql" "$T/out"

# init says "created" only of a database it made the tables in: not of a
# fleet's PostgreSQL database that holds runs.
PGI=$(pg_db initfresh)
(cd "$T/cfgdb" && rm -f benchguard.json && env -u BENCHGUARD_DB "$BG" --db "$PGI" init >"$T/out" 2>"$T/err")
check "init on an empty PostgreSQL database: \"created\"" grep -q "^created postgresql://" "$T/out"
check "... which held a run" test "$(db_sql "$PGW" "SELECT count(*) FROM runs")" = 1
(cd "$T/cfgdb" && rm -f benchguard.json && env -u BENCHGUARD_DB "$BG" --db "$PGW" init >"$T/out" 2>"$T/err")
check "init on a PostgreSQL database holding runs: \"kept the results in\", not \"created\"" \
	grep -q "^kept the results in postgresql://" "$T/out"
finish
