# tests/e2e/lib.sh -- sourced by every end-to-end script.
#
# Gives a scratch directory ($T, removed on exit), the binary ($BG), TAP
# reporting (ok / not_ok / skip / check / finish) and helpers to build real
# git repositories for benchguard to measure.
set -u
BG=${BG_BIN:?run through tests/run.sh or set BG_BIN}
FIX=${BG_FIXTURES:?}
T=$(mktemp -d "${TMPDIR:-/tmp}/bg-e2e.XXXXXX")
_noise_pid=
PG_DIR=
_cleanup() {
	noise_stop
	pg_stop
	[ -n "${BG_KEEP_TMP:-}" ] || rm -rf "$T" # BG_KEEP_TMP=1 keeps it for a post-mortem
}
trap _cleanup EXIT
# _cleanup runs however the script ends but SIGKILL: bash runs the EXIT
# trap when SIGTERM or SIGHUP kills it, at once, even while a command runs
# (trapping them would wait for that command); SIGINT alone would not end
# a script whose running command survives it, so it ends through exit.  A
# script that replaces the EXIT trap must call _cleanup from its own.
trap 'exit 130' INT
export GIT_AUTHOR_NAME="Test Author" GIT_AUTHOR_EMAIL=author@example.com
export GIT_COMMITTER_NAME="Test Author" GIT_COMMITTER_EMAIL=author@example.com
export GIT_CONFIG_NOSYSTEM=1 HOME="$T/home" NO_COLOR=1
mkdir -p "$HOME"
unset BENCHGUARD_DB
_n=0 _failed=0

ok() { _n=$((_n + 1)); echo "ok $_n - $*"; }
not_ok() { _n=$((_n + 1)); _failed=$((_failed + 1)); echo "not ok $_n - $*"; }
skip() { _n=$((_n + 1)); echo "ok $_n - $1 # SKIP $2"; }
# check NAME CMD...: ok when CMD succeeds.
check() { local name=$1; shift; if "$@"; then ok "$name"; else not_ok "$name"; fi; }
# expect_rc RC CMD...: runs CMD, keeps stdout/stderr in $T/out, $T/err; true if rc matches.
expect_rc() {
	local want=$1 rc; shift
	"$@" >"$T/out" 2>"$T/err"; rc=$?
	if [ "$rc" -ne "$want" ]; then
		echo "# expected exit $want, got $rc: $*"; sed 's/^/# err: /' "$T/err" | head -20
		return 1
	fi
}
finish() { echo "1..$_n"; [ "$_failed" -eq 0 ]; }

# new_repo DIR: a git repository with one commit on main.
new_repo() {
	mkdir -p "$1" && git -C "$1" init -q -b main && echo "# test" >"$1/README.md" &&
		git -C "$1" add README.md && git -C "$1" commit -qm "initial commit"
}

# level_suite DIR N: a repository in DIR (the working directory afterwards)
# whose suite's values are set, not timed: three samples around the number
# in its file `level` (100 at first) times a ~1% wobble from a counter in
# $T/ctr, so that two runs from the same counter measure the same numbers;
# while $T/spike exists, one run is 25% higher.  Then N commits, each
# measured by `benchguard ci` into $BENCHGUARD_DB, exported as $T/db; the
# baseline's window is N.
level_suite() {
	local dir=$1 n=$2 i
	new_repo "$dir" >/dev/null && cd "$dir" || return 1
	cat >bench.sh <<S
n=\$(cat "$T/ctr" 2>/dev/null || echo 0); n=\$((n + 1)); echo \$n >"$T/ctr"
k=1; if [ -f "$T/spike" ]; then rm -f "$T/spike"; k=1.25; fi
awk -v n=\$n -v l=\$(cat level) -v k=\$k 'BEGIN { m = l * k * (1 + 0.01 * sin(2.3 * n))
	for (d = -1; d <= 1; d++) printf "BENCHGUARD v %.6f ms\n", m * (1 + 0.001 * d) }'
S
	cat >benchguard.json <<J
{ "baseline": { "window": $n, "min_runs": 5 },
  "defaults": { "warmup": 0, "samples": 1 },
  "benchmarks": [ { "name": "set", "format": "lines", "command": "sh bench.sh" } ] }
J
	printf '.benchguard/\n' >.gitignore
	echo 100 >level
	git add -A && git commit -qm "suite, level 100"
	export BENCHGUARD_DB="$T/db"
	for i in $(seq 1 "$n"); do
		echo "$i" >notes.txt && git add notes.txt && git commit -qm "history $i"
		"$BG" -q ci >/dev/null 2>&1
	done
}

# noise_start [MAX_SECONDS]: the noisy neighbour (tests/noise.sh) busy
# beside the rest of the script until noise_stop or the script's end.
noise_start() {
	"${BG_ROOT:?}/tests/noise.sh" --max "${1:-1800}" &
	_noise_pid=$!
}
noise_stop() {
	if [ -n "$_noise_pid" ]; then
		kill "$_noise_pid" 2>/dev/null
		wait "$_noise_pid" 2>/dev/null
		_noise_pid=
	fi
}

# A PostgreSQL server of this script's own (tests/pg.sh), on a Unix socket
# in a short folder under /tmp ($PG_DIR; $T may be too long for a socket's
# path and, when run as root, closed to the server's user nobody).
# pg_start: starts it; _cleanup stops it and removes $PG_DIR whatever way
# the script ends (but SIGKILL).  Returns 1 with the reason in
# $PG_SKIP_REASON when there are no server binaries (skip the tests), 2 when
# the server would not start (a failure: the log's end is on stderr).
#   pg_start || { skip "the PostgreSQL tests" "$PG_SKIP_REASON"; finish; exit; }
pg_start() {
	[ -z "$PG_DIR" ] || return 0 # one server a script
	PG_SKIP_REASON=$("${BG_ROOT:?}/tests/pg.sh" available) || return 1
	PG_DIR=$(mktemp -d /tmp/bgpg.XXXXXX) || return 2
	"$BG_ROOT/tests/pg.sh" start "$PG_DIR" || return 2
}
# pg_start_or_end WHAT: pg_start, or the script ends there: WHAT skipped
# when this machine has no server binaries, a failure when it would not start.
pg_start_or_end() {
	pg_start
	case $? in
	0) return 0 ;;
	1) skip "$1" "skipped: $PG_SKIP_REASON" ;;
	*) not_ok "the PostgreSQL server starts" ;;
	esac
	finish
	exit
}
# pg_db NAME [OWNER]: creates database NAME (owner bgtest, or OWNER, e.g.
# bgpass, whose password is `tests/pg.sh password "$PG_DIR"` or
# $BG_PG_TEST_PASSWORD if set before pg_start) and prints its URI.
pg_db() { "$BG_ROOT/tests/pg.sh" createdb "${PG_DIR:?pg_start first}" "$@"; }
pg_stop() {
	[ -n "$PG_DIR" ] || return 0
	"$BG_ROOT/tests/pg.sh" stop "$PG_DIR"
	[ -n "${BG_KEEP_TMP:-}" ] || rm -rf "$PG_DIR"
	PG_DIR=
}
# db_sql DB SQL: runs SQL on DB, a SQLite file or a PostgreSQL connection
# string (postgresql://, postgres:// or libpq key=value), printing rows as
# the sqlite3 shell does: columns joined by '|', one row a line, NULL empty.
# (PostgreSQL prints booleans t/f where SQLite has 1/0.)
db_sql() {
	if [[ $1 =~ ^(postgresql|postgres):// || $1 =~ ^[[:space:]]*(host|hostaddr|port|dbname|user|service)[[:space:]]*= ]]; then
		psql -X -A -t -q -w -v ON_ERROR_STOP=1 -d "$1" -f - <<<"$2"
	else
		sqlite3 "$1" "$2"
	fi
}

# many_series_lines R: 150 series in `lines` (s000 to s149, 1 to 5 samples
# each, by R), each sample of series sN between N + 1 and N + 2 ms and
# rising.  many_series_sql: the rows of such runs' samples that break this
# (none), in SQL both backends speak.
many_series_lines() {
	awk -v r="$1" 'BEGIN { for (s = 0; s < 150; s++) for (k = 0; k <= (s + r) % 5; k++)
		printf "BENCHGUARD s%03d %d.%d%d ms\n", s, s + 1, k, r }'
}
many_series_sql="SELECT count(*) FROM results x JOIN series s ON s.id = x.series_id
	JOIN samples v ON v.result_id = x.id
	WHERE v.value * 1000 < CAST(substr(s.metric, 2) AS INT) + 1
	OR v.value * 1000 >= CAST(substr(s.metric, 2) AS INT) + 2
	OR EXISTS (SELECT 1 FROM samples w WHERE w.result_id = v.result_id AND w.idx = v.idx + 1
		AND w.value <= v.value)
	OR x.n != (SELECT count(*) FROM samples u WHERE u.result_id = x.id)"
# many_series_db DB: a SQLite file of 3 runs, in a repository of its own,
# of 150 series each with 1 to 5 samples (more than one batch of db copy's
# writes, and a rest), as older benchguards may have left them too: one
# result without a robust mean, one with an instrument, one with no samples.
many_series_db() {
	local repo="$1.repo" i
	new_repo "$repo" >/dev/null || return 1
	for i in 1 2 3; do
		(cd "$repo" && git commit -q --allow-empty -m "c$i" && many_series_lines "$i" |
			"$BG" -q --db "$1" import - --format lines --name m >/dev/null) || return 1
	done
	sqlite3 "$1" "UPDATE results SET robust_mean = NULL WHERE series_id = (SELECT id FROM series WHERE benchmark = 'm' AND metric = 's007');
		UPDATE results SET instrument = 'callgrind' WHERE series_id = (SELECT id FROM series WHERE benchmark = 'm' AND metric = 's042');
		DELETE FROM samples WHERE result_id IN (SELECT x.id FROM results x JOIN series s ON s.id = x.series_id
			WHERE s.benchmark = 'm' AND s.metric = 's099')"
}
# results_dump DB: every run's results in a SQLite file, in the order they
# were stored, with every column and every sample: equal for a database and
# its copies.
results_dump() {
	sqlite3 "$1" "SELECT r.uid, s.benchmark, s.metric, s.unit, s.direction, x.n,
		printf('%.17g|%.17g|%.17g|%.17g|%.17g', x.mean, x.median, x.stddev, x.min, x.max),
		iif(x.robust_mean IS NULL, 'NULL', printf('%.17g', x.robust_mean)), x.outliers, x.instrument,
		(SELECT count(*) FROM samples v WHERE v.result_id = x.id),
		(SELECT group_concat(printf('%.17g', value)) FROM
			(SELECT value FROM samples v WHERE v.result_id = x.id ORDER BY v.idx))
		FROM results x JOIN runs r ON r.id = x.run_id JOIN series s ON s.id = x.series_id
		ORDER BY r.started_at, r.uid, x.id"
}

# bound SECONDS: a time bound on one command (a hang guard, or a guard
# that a size is handled in linear time, where quadratic took minutes), for
# this build.  The sanitizer build runs benchguard 3 to 10 times slower
# (measured: 0.8 s release, 8.6 s sanitizer for one import) and in CI beside
# another test, so its bound is 6 times the release build's, which keeps the
# stated one: still far below what the quadratic code took.
bound() { case $BG in *sanitize*) echo $(($1 * 6)) ;; *) echo "$1" ;; esac; }

# The statistical tests' sizes: BG_STAT_SIZE=full (the default, what `make
# test` and CI run: the sizes the claims are made at) or small (a smoke
# run of the same code paths, e.g. under the sanitizers; the claims are
# then reported, not asserted).
stat_full() { [ "${BG_STAT_SIZE:-full}" = full ]; }
# stat_n FULL SMALL: the count for this size.
stat_n() { if stat_full; then echo "$1"; else echo "$2"; fi; }
# claim NAME CMD...: asserted at full size; at small size only reported.
claim() {
	local name=$1
	shift
	if stat_full; then
		check "$name" "$@"
	elif "$@"; then
		skip "$name" "sized small (BG_STAT_SIZE=small): held, not asserted"
	else
		skip "$name" "sized small (BG_STAT_SIZE=small): did not hold, not asserted"
	fi
}

# spin_rounds ROUNDS PCT: the rounds that make spin's *time* PCT% longer
# (its process start does not grow with the rounds), from medians of
# quiet executions: ROUNDS * (1 + PCT/100 * t(ROUNDS) / (t(ROUNDS) - t(1))).
spin_rounds() {
	local spin=$1 rounds=$2 pct=$3
	python3 - "$spin" "$rounds" "$pct" <<'P'
import statistics, subprocess, sys, time
spin, rounds, pct = sys.argv[1], int(sys.argv[2]), float(sys.argv[3])
def med(n):
    t = []
    for _ in range(41):
        a = time.perf_counter(); subprocess.run([spin, str(n)]); t.append(time.perf_counter() - a)
    return statistics.median(t)
full, base = med(rounds), med(1)
print(round(rounds * (1 + pct / 100 * full / (full - base))))
P
}

# ci_timed KIND I: `benchguard ci --json` at HEAD; its JSON and stderr kept
# as $T/ci/KIND-I.*, "KIND I EXIT SECONDS" appended to $T/ci.txt.
ci_timed() {
	local a b rc
	mkdir -p "$T/ci"
	a=$(date +%s.%N)
	"$BG" -q ci --json >"$T/ci/$1-$2.json" 2>"$T/ci/$1-$2.err"
	rc=$?
	b=$(date +%s.%N)
	echo "$1 $2 $rc $(awk -v a="$a" -v b="$b" 'BEGIN { printf "%.2f", b - a }')" >>"$T/ci.txt"
}
# ci_summary SERIES: tests/e2e/ci_summary.py's lines into $T/summary.txt,
# printed as TAP comments.
ci_summary() {
	/usr/bin/python3 "$BG_ROOT/tests/e2e/ci_summary.py" "$T/ci.txt" "$T/ci" "$1" >"$T/summary.txt"
	while read -r kind n ok one bad flagged med p95 mx pairs maxp; do
		[ "$kind" = detail ] && continue
		echo "# figure: $(basename "$0" .sh) $kind: $n ci runs: exit 0 $ok, exit 1 $one, other $bad;" \
			"$1 regression $flagged; ci seconds median $med, 95th percentile $p95, max $mx;" \
			"pairs per run mean $pairs, max $maxp"
	done <"$T/summary.txt"
	grep '^detail' "$T/summary.txt" | cut -c1-3000 | sed 's/^/# /'
}

# The CPU-bound benchmark of the statistical tests: tests/fixtures/bench/
# spin.c built as $T/spin, in a new repository $T/r (the current directory
# afterwards) whose benchguard.json runs it with 20 samples a run against a
# window of WINDOW runs (min_runs the same).  spin_suite ROUNDS rewrites the
# suite for another workload.  SPIN_ROUNDS is the workload of main.
SPIN_ROUNDS=6000000
spin_repo() {
	SPIN_WINDOW=$1
	cc -O2 -o "$T/spin" "$FIX/bench/spin.c" || return 1
	new_repo "$T/r" >/dev/null && cd "$T/r" || return 1
	echo '.benchguard/' >.gitignore
	spin_suite "$SPIN_ROUNDS"
	git add .gitignore benchguard.json && git commit -qm "suite"
}
spin_suite() {
	cat >benchguard.json <<J
{ "baseline": { "branch": "main", "window": $SPIN_WINDOW, "min_runs": $SPIN_WINDOW },
  "thresholds": { "alpha": 0.01, "fdr": true, "min_change": 0.02, "min_effect": 0.8 },
  "defaults": { "warmup": 1, "samples": 20, "timeout": 60 },
  "benchmarks": [ { "name": "spin", "command": "$T/spin $1" } ] }
J
}
