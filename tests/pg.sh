#!/usr/bin/env bash
# tests/pg.sh -- a throwaway PostgreSQL server for the tests and `make bench`.
#
# The PostgreSQL backend of the store is tested against a real server, not a
# mock: each test script starts its own cluster in a fresh folder, on a Unix
# socket only (nothing listens on TCP), with fsync off, and stops it when it
# ends (tests/e2e/lib.sh's pg_start does both).  Usage:
#
#   tests/pg.sh available           exit 0 when initdb, pg_ctl and psql are
#                                   found (and, as root, a way to run them as
#                                   `nobody`); else prints why, exits 1
#   tests/pg.sh start DIR           a new cluster in DIR (a fresh, empty
#                                   folder the caller made), started and
#                                   accepting connections; prints nothing;
#                                   on failure the server log's end on
#                                   stderr and exit 1
#   tests/pg.sh url DIR [DB [USER]] the libpq URI of database DB (default
#                                   bgtest) as USER (default bgtest)
#   tests/pg.sh createdb DIR NAME [OWNER]
#                                   creates database NAME owned by OWNER
#                                   (default bgtest), prints its URI as OWNER
#   tests/pg.sh password DIR        prints role bgpass's password
#   tests/pg.sh stop DIR            stops the server (immediate shutdown) and
#                                   waits until the postmaster is gone; fine
#                                   when it is not running or DIR is missing
#   tests/pg.sh restart DIR         starts the stopped server in DIR again,
#                                   its databases as they were (an outage
#                                   ends); stop it as before
#
# Roles: bgtest, the superuser, logs in without a password (trust).  bgpass
# (LOGIN, not a superuser) must give its password (scram-sha-256): the one in
# $BG_PG_TEST_PASSWORD when `start` runs, else a random one that `password`
# prints.  pg_hba.conf has "local all bgpass scram-sha-256" first, then
# "local all all trust", so any role a test creates without a password gets
# in too.  A database bgpass may create tables in: `createdb DIR NAME bgpass`.
#
# Layout: DIR/data the cluster, DIR/server.log its log, DIR/sock the socket
# folder, or, when DIR is too long for a socket path (107 bytes), a folder
# mktemp makes under /tmp, named in DIR/sockdir and removed by `stop`.
#
# postgres refuses to run as root: run as root, the cluster belongs to
# `nobody` (DIR is chowned to it and its parents must let it through; /tmp's
# mktemp folders do) and the server programs run through setpriv or runuser.
# The binaries: those in $BG_PG_BINDIR if set (and none if it has none),
# else `pg_config --bindir` if initdb is there, else the newest
# /usr/lib/postgresql/*/bin, else initdb on $PATH.
set -u
# The caller's PGHOST, PGPORT, PGDATA... must not steer this server or its
# clients: everything below is named explicitly.
# shellcheck disable=SC2046 # one word a name
unset $(compgen -e | grep '^PG') 2>/dev/null
PORT=5432 # each cluster has its own socket folder, so the port may repeat

die() { echo "tests/pg.sh: $*" >&2; exit 1; }

bindir() {
	local d
	if [ -n "${BG_PG_BINDIR:-}" ]; then # this one or none
		[ -x "$BG_PG_BINDIR/initdb" ] && [ -x "$BG_PG_BINDIR/pg_ctl" ] && echo "$BG_PG_BINDIR"
		return
	fi
	for d in "$(pg_config --bindir 2>/dev/null)" \
		$(ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -V -r); do
		[ -n "$d" ] && [ -x "$d/initdb" ] && [ -x "$d/pg_ctl" ] && { echo "$d"; return 0; }
	done
	d=$(command -v initdb 2>/dev/null) && [ -x "$(dirname "$d")/pg_ctl" ] &&
		{ dirname "$d"; return 0; }
	return 1
}
psql_bin() {
	if [ -x "$BIN/psql" ]; then echo "$BIN/psql"; else command -v psql; fi
}

# as_owner CMD...: runs a server program as the cluster's owner, from /
# (the caller's folder may be closed to that user).
as_owner() {
	if [ "$(id -u)" -ne 0 ]; then
		(cd / && "$@")
	elif command -v setpriv >/dev/null; then
		(cd / && setpriv --reuid=nobody --regid="$(id -gn nobody)" --init-groups "$@")
	else
		(cd / && runuser -u nobody -- "$@")
	fi
}

available() {
	BIN=$(bindir) || { echo "no PostgreSQL server binaries (initdb, pg_ctl): install Debian's postgresql"; return 1; }
	psql_bin >/dev/null || { echo "no psql: install Debian's postgresql-client"; return 1; }
	if [ "$(id -u)" -eq 0 ]; then
		id nobody >/dev/null 2>&1 || { echo "running as root and no user nobody to run postgres as"; return 1; }
		command -v setpriv >/dev/null || command -v runuser >/dev/null ||
			{ echo "running as root and neither setpriv nor runuser to run postgres as nobody"; return 1; }
	fi
}

sockdir() { # DIR: the socket folder of the cluster in DIR
	if [ -f "$1/sockdir" ]; then cat "$1/sockdir"; else echo "$1/sock"; fi
}

# urlenc S: percent-encodes S for a URI (slashes kept: libpq reads them).
urlenc() {
	local LC_ALL=C s=$1 out='' c i
	for ((i = 0; i < ${#s}; i++)); do
		c=${s:i:1}
		case $c in
		[A-Za-z0-9._~/-]) out+=$c ;;
		*) out+=$(printf '%%%02X' "'$c") ;;
		esac
	done
	echo "$out"
}
url() { # DIR DB USER
	echo "postgresql://$(urlenc "$3")@/$(urlenc "$2")?host=$(urlenc "$(sockdir "$1")")&port=$PORT"
}

# sql DIR DB SQL [-v NAME=VALUE...]: runs SQL as bgtest, read from stdin
# so that :'NAME' and :"NAME" interpolate the variables, quoted.
sql() {
	local dir=$1 db=$2 q=$3
	shift 3
	"$(psql_bin)" -X -q -w -v ON_ERROR_STOP=1 "$@" "$(url "$dir" "$db" bgtest)" <<<"$q"
}

tail_log() {
	echo "tests/pg.sh: the server did not start; the end of $1/server.log:" >&2
	tail -n 25 "$1/server.log" >&2 2>/dev/null
}

start() {
	local dir=$1 sock pw
	local why
	why=$(available) || die "$why"
	BIN=$(bindir)
	[ -d "$dir" ] || die "$dir: no such folder (make it first)"
	[ -z "$(ls -A "$dir")" ] || die "$dir: not empty (give a fresh folder)"
	dir=$(cd "$dir" && pwd)
	sock="$dir/sock"
	# sun_path holds 107 bytes plus the NUL: "$sock/.s.PGSQL.5432" must fit.
	if [ $((${#sock} + 16)) -gt 100 ]; then
		sock=$(mktemp -d /tmp/bgpg-s.XXXXXX) || die "cannot make a socket folder under /tmp"
		echo "$sock" >"$dir/sockdir"
	else
		mkdir "$sock" || die "cannot make $sock"
	fi
	if [ "$(id -u)" -eq 0 ]; then
		chown -R nobody: "$dir" "$sock" || die "cannot give $dir to nobody"
		as_owner test -w "$dir" -a -x "$dir" ||
			die "$dir: user nobody cannot reach it (a parent folder is closed to it); use a folder under /tmp"
	fi
	as_owner "$BIN/initdb" -D "$dir/data" -U bgtest --auth=trust --encoding=UTF8 --no-locale \
		--no-sync --no-instructions >"$dir/initdb.log" 2>&1 ||
		{ echo "tests/pg.sh: initdb failed:" >&2; tail -n 25 "$dir/initdb.log" >&2; exit 1; }
	cat >>"$dir/data/postgresql.conf" <<C
# tests/pg.sh: a throwaway test server
listen_addresses = ''
port = $PORT
unix_socket_directories = '$sock'
fsync = off
synchronous_commit = off
full_page_writes = off
shared_buffers = 16MB
max_connections = 100
max_wal_size = 256MB
log_min_messages = warning
C
	cat >"$dir/data/pg_hba.conf" <<H
# tests/pg.sh: bgpass proves its password; every other local role is trusted.
local all bgpass scram-sha-256
local all all trust
H
	as_owner "$BIN/pg_ctl" -D "$dir/data" -l "$dir/server.log" -w -t 60 -s start >/dev/null 2>&1 ||
		{ tail_log "$dir"; exit 1; }
	pw=${BG_PG_TEST_PASSWORD:-$(head -c 18 /dev/urandom | base64 | tr '+/' '._')}
	(umask 077 && printf '%s\n' "$pw" >"$dir/bgpass.password")
	# The password goes through a psql variable (:'pw' quotes it), never
	# into the command line or the server log.
	sql "$dir" postgres "CREATE ROLE bgpass LOGIN PASSWORD :'pw';" -v pw="$pw" >/dev/null ||
		{ tail_log "$dir"; exit 1; }
	sql "$dir" postgres "CREATE DATABASE bgtest;" || { tail_log "$dir"; exit 1; }
}

createdb() { # DIR NAME [OWNER]
	local dir=$1 name=$2 owner=${3:-bgtest}
	sql "$dir" postgres 'CREATE DATABASE :"db" OWNER :"owner";' -v db="$name" -v owner="$owner" ||
		die "cannot create database $name"
	url "$dir" "$name" "$owner"
}

# running PID: PID is a live postgres (a zombie, whose parent has not yet
# reaped it, is gone: it holds nothing).
running() {
	ps -o stat=,comm= -p "$1" 2>/dev/null | awk '$1 !~ /^Z/ && $2 == "postgres" { f = 1 } END { exit !f }'
}

stop() {
	local dir=$1 pid sock i
	[ -d "$dir" ] || return 0
	BIN=$(bindir)
	if [ -f "$dir/data/postmaster.pid" ]; then
		pid=$(head -n 1 "$dir/data/postmaster.pid")
		[ -n "$BIN" ] && as_owner "$BIN/pg_ctl" -D "$dir/data" -m immediate -w -t 30 -s stop >/dev/null 2>&1
		# pg_ctl waits for postmaster.pid to go; wait for the process too,
		# and kill it outright if it is still a postgres after 10 s.
		for ((i = 0; i < 200; i++)); do
			running "$pid" || break
			[ "$i" -eq 100 ] && kill -KILL "$pid" 2>/dev/null
			sleep 0.05
		done
		! running "$pid" || die "postmaster $pid would not stop"
	fi
	if [ -f "$dir/sockdir" ]; then
		sock=$(cat "$dir/sockdir")
		case $sock in /tmp/bgpg-s.*) rm -rf "$sock" ;; esac
		rm -f "$dir/sockdir"
	fi
	return 0
}

restart() {
	local dir=$1
	BIN=$(bindir) || die "no PostgreSQL server binaries"
	[ -f "$dir/data/PG_VERSION" ] || die "$dir: no cluster (start one first)"
	if [ ! -d "$(sockdir "$dir")" ]; then # stop removed a folder under /tmp
		die "$dir: its socket folder is gone"
	fi
	as_owner "$BIN/pg_ctl" -D "$dir/data" -l "$dir/server.log" -w -t 60 -s start >/dev/null 2>&1 ||
		{ tail_log "$dir"; exit 1; }
}

cmd=${1:-}
case $cmd in
available) available ;;
start)
	[ $# -eq 2 ] || die "usage: tests/pg.sh start DIR"
	start "$2"
	;;
url)
	[ $# -ge 2 ] && [ $# -le 4 ] || die "usage: tests/pg.sh url DIR [DB [USER]]"
	url "$(cd "$2" && pwd)" "${3:-bgtest}" "${4:-bgtest}"
	;;
createdb)
	[ $# -ge 3 ] && [ $# -le 4 ] || die "usage: tests/pg.sh createdb DIR NAME [OWNER]"
	BIN=$(bindir)
	createdb "$(cd "$2" && pwd)" "$3" "${4:-}"
	;;
password)
	[ $# -eq 2 ] || die "usage: tests/pg.sh password DIR"
	cat "$2/bgpass.password"
	;;
stop)
	[ $# -eq 2 ] || die "usage: tests/pg.sh stop DIR"
	stop "$2"
	;;
restart)
	[ $# -eq 2 ] || die "usage: tests/pg.sh restart DIR"
	restart "$(cd "$2" && pwd)"
	;;
*) die "usage: tests/pg.sh available|start DIR|url DIR [DB [USER]]|createdb DIR NAME [OWNER]|password DIR|stop DIR|restart DIR" ;;
esac
