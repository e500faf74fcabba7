#!/usr/bin/env bash
# t_pg_harness.sh -- the PostgreSQL server the tests start for themselves
# (tests/pg.sh and lib.sh's pg_start / pg_db / db_sql): it starts, serves
# several databases, runs as an unprivileged user when the tests run as
# root, makes bgpass give its password, and is always stopped and removed,
# whether the script that started it ends well, fails or is killed.
. "$(dirname "$0")/lib.sh"
PGSH="$BG_ROOT/tests/pg.sh"

# running PID: PID is a live postgres (a zombie not yet reaped is gone).
running() {
	ps -o stat=,comm= -p "$1" 2>/dev/null | awk '$1 !~ /^Z/ && $2 == "postgres" { f = 1 } END { exit !f }'
}
gone() { ! running "$1"; }
# exited PID: our child PID has ended (a zombie until we wait for it).
exited() {
	local st
	st=$(ps -o stat= -p "$1")
	[ -z "$st" ] || [[ $st == Z* ]]
}
now() { date +%s.%N; }
nopw() { (unset PGPASSWORD && "$@"); }
withpw() { (export PGPASSWORD=$1 && shift && "$@"); }
secs() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.2f", b - a }'; }

check "tests/pg.sh available says why when there are no server binaries" \
	expect_rc 1 env BG_PG_BINDIR=/nonexistent "$PGSH" available
check "... naming them" grep -q 'no PostgreSQL server binaries' "$T/out"

a=$(now)
pg_start
rc=$?
b=$(now)
if [ "$rc" -eq 1 ]; then
	skip "a PostgreSQL server for the tests" "skipped: $PG_SKIP_REASON"
	finish
	exit
fi
if [ "$rc" -ne 0 ]; then
	not_ok "pg_start starts a server (exit $rc)"
	finish
	exit
fi
ok "pg_start starts a server in $PG_DIR"
echo "# figure: t_pg_harness: pg_start (initdb + start + roles) $(secs "$a" "$b") s"
pid=$(head -n 1 "$PG_DIR/data/postmaster.pid")
check "its postmaster runs" running "$pid"

# Databases, and db_sql printing what sqlite3 prints.
A=$(pg_db alpha) && B=$(pg_db beta)
check "pg_db makes two databases" [ -n "$A" -a -n "$B" ]
check "db_sql runs SELECT 1" [ "$(db_sql "$A" 'SELECT 1')" = 1 ]
check "the URIs name their databases" \
	[ "$(db_sql "$A" 'SELECT current_database()') $(db_sql "$B" 'SELECT current_database()')" = "alpha beta" ]
check "the default URI is database bgtest as bgtest" \
	[ "$(db_sql "$("$PGSH" url "$PG_DIR")" 'SELECT current_database(), current_user')" = "bgtest|bgtest" ]
check "nothing listens on TCP" [ "$(db_sql "$A" 'SHOW listen_addresses')" = "" ]
check "at least 60 connections" [ "$(db_sql "$A" 'SHOW max_connections')" -ge 60 ]
rows="CREATE TABLE t (a INTEGER, b TEXT); INSERT INTO t VALUES (1, 'x y'), (2, NULL), (3, '');
SELECT 42; SELECT a, b FROM t ORDER BY a;"
db_sql "$A" "$rows" >"$T/pg.txt"
db_sql "$T/lite.db" "$rows" >"$T/lite.txt"
check "db_sql prints PostgreSQL rows as sqlite3 does" cmp -s "$T/pg.txt" "$T/lite.txt"
printf '42\n1|x y\n2|\n3|\n' >"$T/want.txt"
check "... columns joined by |, NULL empty" cmp -s "$T/pg.txt" "$T/want.txt"
check "the databases are apart" [ "$(db_sql "$B" "SELECT count(*) FROM pg_tables WHERE tablename = 't'")" = 0 ]
check "db_sql fails on bad SQL (PostgreSQL)" expect_rc 3 db_sql "$A" 'SELECT * FROM nowhere'
check "db_sql fails on bad SQL (SQLite)" expect_rc 1 db_sql "$T/lite.db" 'SELECT * FROM nowhere'
kv="host=$(awk -F'host=|&' '{ print $2 }' <<<"$A") port=5432 dbname=alpha user=bgtest"
check "db_sql takes libpq key=value strings" [ "$(db_sql "$kv" 'SELECT count(*) FROM t')" = 3 ]

owner=$(ps -o user= -p "$pid")
if [ "$(id -u)" -eq 0 ]; then
	check "run as root, the server runs as an unprivileged user ($owner)" [ -n "$owner" -a "$owner" != root ]
else
	check "the server runs as the tests' user ($owner)" [ "$owner" = "$(id -un)" ]
fi

# bgpass must give its password; bgtest needs none.
C=$(pg_db gamma bgpass)
pw=$("$PGSH" password "$PG_DIR")
check "bgpass's password is not empty" [ -n "$pw" ]
check "bgpass without a password is refused" expect_rc 2 nopw db_sql "$C" 'SELECT 1'
check "... saying a password is needed" grep -q 'no password supplied' "$T/err"
check "bgpass with a wrong password is refused" expect_rc 2 withpw "x$pw" db_sql "$C" 'SELECT 1'
check "... saying it failed" grep -q 'password authentication failed' "$T/err"
check "bgpass with PGPASSWORD gets in, and may create tables in its database" \
	[ "$(PGPASSWORD=$pw db_sql "$C" 'CREATE TABLE mine (x int); SELECT current_user')" = bgpass ]
check "bgtest needs no password" expect_rc 0 nopw db_sql "$(pg_db delta)" 'SELECT 1'

# A folder too long for a socket path (107 bytes): the socket goes under
# /tmp and stop removes it; stop is fine twice and with no folder.
long=$(mktemp -d /tmp/bgpg.XXXXXX)/$(printf 'long%.0s' {1..25})
mkdir -p "$long" && chmod 755 "$(dirname "$long")" # open to nobody
a=$(now)
"$PGSH" start "$long"
rc=$?
b=$(now)
check "tests/pg.sh start works in a ${#long}-byte folder" [ "$rc" -eq 0 ]
sock=$(cat "$long/sockdir" 2>/dev/null)
check "... with its socket in a short folder" [ -n "$sock" -a -S "$sock/.s.PGSQL.5432" ]
check "... and serves" [ "$(db_sql "$("$PGSH" url "$long")" 'SELECT 1')" = 1 ]
lpid=$(head -n 1 "$long/data/postmaster.pid")
c=$(now)
"$PGSH" stop "$long"
rc=$?
d=$(now)
check "tests/pg.sh stop stops it" [ "$rc" -eq 0 ]
check "... its postmaster is gone" gone "$lpid"
check "... and removes its socket folder" [ ! -e "$sock" ]
check "tests/pg.sh stop again is fine" "$PGSH" stop "$long"
rm -rf "$(dirname "$long")"
check "tests/pg.sh stop with no folder is fine" "$PGSH" stop "$long"
echo "# figure: t_pg_harness: tests/pg.sh start $(secs "$a" "$b") s, stop $(secs "$c" "$d") s"

# Always stopped: scripts that source lib.sh, start a server, then are
# killed or fail.  Each writes "PG_DIR T POSTMASTER_PID" to READY when its
# server serves.
cat >"$T/child.sh" <<'S'
. "$BG_ROOT/tests/e2e/lib.sh"
pg_start || exit 9
PGPASSWORD=$BG_PG_TEST_PASSWORD db_sql "$(pg_db kid bgpass)" 'SELECT 1' >/dev/null || exit 8
echo "$PG_DIR $T $(head -n 1 "$PG_DIR/data/postmaster.pid")" >"$1.tmp" && mv "$1.tmp" "$1"
[ "$2" = fail ] && exit 3
while :; do sleep 0.1; done
S
# child MODE SIGNAL WANT_RC: runs the child, signals it (unless MODE is
# fail), checks its exit status, its postmaster, its folders.
child() {
	local mode=$1 sig=$2 want=$3 ready="$T/ready.$1" cpid rc i dir='' tdir='' ppid=''
	# With job control the child is its own process group and does not
	# ignore SIGINT, as a plain background job of a script would.
	set -m
	# A signal ignored when a shell starts cannot be trapped, and a script
	# run in the background (by `&` here, or under nohup) starts with INT
	# or HUP ignored: env gives the child the defaults a terminal's would.
	BG_PG_TEST_PASSWORD="pw-$mode" env --default-signal=INT,HUP,TERM \
		bash "$T/child.sh" "$ready" "$mode" >"$T/child.$mode.log" 2>&1 &
	cpid=$!
	set +m
	for ((i = 0; i < 300; i++)); do
		[ -s "$ready" ] && break
		kill -0 "$cpid" 2>/dev/null || break
		sleep 0.1
	done
	read -r dir tdir ppid <"$ready" 2>/dev/null
	if [ -z "$ppid" ]; then
		not_ok "a child ($mode) started its server"
		sed 's/^/# child: /' "$T/child.$mode.log"
		kill -KILL "$cpid" 2>/dev/null
		wait "$cpid"
		[ -z "$dir" ] || { "$PGSH" stop "$dir"; rm -rf "$dir"; }
		return
	fi
	if [ "$mode" != fail ]; then
		check "a child ($mode) has its server running" running "$ppid"
		check "... whose bgpass has \$BG_PG_TEST_PASSWORD" \
			[ "$(PGPASSWORD="pw-$mode" db_sql "$("$PGSH" url "$dir" kid bgpass)" 'SELECT current_user')" = bgpass ]
		kill -"$sig" "$cpid"
	fi
	for ((i = 0; i < 300; i++)); do # 30 s for it to end
		exited "$cpid" && break
		sleep 0.1
	done
	exited "$cpid" || { echo "# the child ($mode) did not end: killed"; kill -KILL "$cpid"; }
	wait "$cpid"
	rc=$?
	check "the child ($mode) ended with exit $want (got $rc)" [ "$rc" -eq "$want" ]
	check "... and its postmaster $ppid is gone" gone "$ppid"
	check "... and its server's folder is removed" [ ! -e "$dir" ]
	check "... and its scratch folder is removed" [ ! -e "$tdir" ]
	# If anything was left, do not leave it to the next test.
	running "$ppid" && "$PGSH" stop "$dir"
	rm -rf "$dir" "$tdir"
}
child term TERM 143
child int INT 130
child hup HUP 129
child fail - 3

finish
