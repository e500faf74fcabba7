#!/usr/bin/env bash
# tests/bench/self.sh WHAT -- one of benchguard's own hot paths, measured
# for the project's benchguard.json (format "lines"), which gates every
# commit of benchguard with benchguard itself.  WHAT is one of:
#
#   runner   `benchguard run` of 200 executions of /bin/true, and the same
#            200 through a bare posix_spawn+wait4 loop beside it
#            (tests/bench/spawnloop.c): run_200 (time) and vs_spawn_loop
#            (the ratio, what benchguard adds per execution)
#   startup  `benchguard --version`, 50 executions: version (per execution)
#   ingest   `benchguard import` of 100,000 samples (100 series x 1,000,
#            lines format) into a new database, and the sqlite3 tool's
#            .import of the same rows from CSV: import_100k and vs_sqlite3
#   check    `benchguard check` of one run of 1,000 series against 20-run
#            baselines: check_1000
#   report   `benchguard report --format html` over the same 1,000 series
#            x 21 runs: html_1000
#
# The binary is the one this commit builds (build/release/benchguard, the
# suite's "build" makes it), so that a run at any commit measures that
# commit.  Each sample is one timed pass; BENCHGUARD_WARMUP passes first are
# not printed.  Data is made once per invocation, before the first pass.
# `make bench` measures the same paths at full size against the same peers.
set -euo pipefail
what=${1:?usage: tests/bench/self.sh runner|startup|ingest|check|report}
root=$(cd "$(dirname "$0")/../.." && pwd)
bg="$root/build/release/benchguard"
samples=${BENCHGUARD_SAMPLES:-10}
warmup=${BENCHGUARD_WARMUP:-1}
[ -x "$bg" ] || { echo "self.sh: $bg is not built (make all)" >&2; exit 2; }
T=$(mktemp -d "${TMPDIR:-/tmp}/bg-self.XXXXXX")
trap 'rm -rf "$T"' EXIT
unset BENCHGUARD_DB
export NO_COLOR=1 GIT_CONFIG_NOSYSTEM=1 HOME="$T"

# A repository with one commit, for the commands that store runs.
repo() {
	mkdir -p "$T/repo"
	git -C "$T/repo" init -q -b main
	git -C "$T/repo" -c user.name=b -c user.email=b@b commit -q --allow-empty -m self
}

# pass CMD...: runs CMD, its output discarded, and sets $took to the
# microseconds it took (exit 0 and 1, a verdict, are both success).
took=0
pass() {
	local t0 t1 rc=0
	t0=${EPOCHREALTIME/./}
	"$@" >/dev/null 2>"$T/err" || rc=$?
	t1=${EPOCHREALTIME/./}
	if [ "$rc" -gt 1 ]; then
		echo "self.sh $what: exit $rc: $*" >&2
		cat "$T/err" >&2
		exit 3
	fi
	took=$((t1 - t0))
}

# sample NAME VALUE UNIT, only after the warm-up passes.
i=0
sample() { [ "$i" -lt "$warmup" ] || echo "BENCHGUARD $1 $2 $3"; }
ratio() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.4f", a / b }'; }

case $what in
runner)
	cc -O2 -std=c11 -D_GNU_SOURCE -o "$T/spawnloop" "$root/tests/bench/spawnloop.c"
	repo
	cat >"$T/repo/benchguard.json" <<'J'
{ "benchmarks": [ { "name": "true", "command": "/bin/true", "warmup": 0, "samples": 200 } ] }
J
	cd "$T/repo"
	"$bg" -q --db "$T/run.db" run >/dev/null # the database exists, as in CI
	for ((i = 0; i < warmup + samples; i++)); do
		pass "$bg" -q --db "$T/run.db" run
		b=$took
		pass "$T/spawnloop" 200 /bin/true
		sample run_200 "$b" us
		sample vs_spawn_loop "$(ratio "$b" "$took")" x
	done
	;;
startup)
	cc -O2 -std=c11 -D_GNU_SOURCE -o "$T/spawnloop" "$root/tests/bench/spawnloop.c"
	for ((i = 0; i < warmup + samples; i++)); do
		pass "$T/spawnloop" 50 "$bg" --version
		sample version "$(awk -v t="$took" 'BEGIN { printf "%.1f", t / 50 }')" us
	done
	;;
ingest)
	repo
	awk 'BEGIN { for (s = 0; s < 100; s++) for (i = 0; i < 1000; i++) {
		v = 1 + ((s * 7919 + i * 104729) % 100000) / 1e6
		printf "BENCHGUARD series_%03d %.9f ms\n", s, v > "'"$T"'/lines.txt"
		printf "series_%03d,%d,%.9f\n", s, i, v > "'"$T"'/rows.csv" } }'
	cd "$T/repo"
	for ((i = 0; i < warmup + samples; i++)); do
		rm -f "$T"/imp.db* "$T"/sq.db*
		pass "$bg" -q --db "$T/imp.db" import "$T/lines.txt" --format lines --name ingest
		b=$took
		pass sqlite3 "$T/sq.db" 'CREATE TABLE samples(series TEXT, idx INTEGER, value REAL)' \
			'.mode csv' ".import $T/rows.csv samples"
		sample import_100k "$b" us
		sample vs_sqlite3 "$(ratio "$b" "$took")" x
	done
	;;
check | report)
	# 21 commits, a run of 1,000 series x 5 samples on each (~1% noise).
	repo
	cd "$T/repo"
	for c in $(seq 2 21); do git -c user.name=b -c user.email=b@b commit -q --allow-empty -m "c$c"; done
	k=0
	for sha in $(git rev-list --reverse HEAD); do
		k=$((k + 1))
		awk -v seed="$k" 'BEGIN { srand(seed); for (s = 0; s < 1000; s++) for (i = 0; i < 5; i++)
			printf "BENCHGUARD s%04d %.9f ms\n", s, (1 + s / 1000) * (1 + 0.01 * (rand() - 0.5)) }' |
			"$bg" -q --db "$T/big.db" import - --format lines --name b --commit "$sha" --machine self >/dev/null
	done
	echo '{ "benchmarks": [ { "name": "b", "command": "true" } ] }' >"$T/big.json"
	cand=$(sqlite3 "$T/big.db" 'SELECT max(id) FROM runs')
	for ((i = 0; i < warmup + samples; i++)); do
		if [ "$what" = check ]; then
			pass "$bg" --db "$T/big.db" --config "$T/big.json" check --run "$cand" --machine self --json
			sample check_1000 "$took" us
		else
			pass "$bg" --db "$T/big.db" --config "$T/big.json" report --since all --machine self \
				--branch main --format html -o "$T/report.html"
			sample html_1000 "$took" us
		fi
	done
	;;
*)
	echo "self.sh: no hot path \"$what\" (runner, startup, ingest, check, report)" >&2
	exit 2
	;;
esac
