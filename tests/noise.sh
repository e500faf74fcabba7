#!/usr/bin/env bash
# tests/noise.sh -- a bounded noisy neighbour, as shared CI runners have:
# two busy loops that keep this machine's cores busy in bursts (one 300 ms
# on / 200 ms off, the other 300 ms on / 700 ms off), beside a command.
#
#   tests/noise.sh [--max SECONDS] -- COMMAND [ARG...]
#       runs COMMAND with the neighbour busy, stops the neighbour when
#       COMMAND ends (however it ends), exits with COMMAND's status
#   tests/noise.sh [--max SECONDS]
#       the neighbour alone, until SECONDS pass or this script is stopped
#
# Bounded three times over: each loop ends by itself after --max seconds
# (default 1800); the loops die with this script (PR_SET_PDEATHSIG), even
# if it is killed with SIGKILL; and this script stops them on exit, INT and
# TERM.  Nothing is left running.
set -u
max=1800
while [ $# -gt 0 ]; do
	case $1 in
	--max) max=${2:?--max needs seconds}; shift 2 ;;
	--) shift; break ;;
	*) echo "usage: tests/noise.sh [--max SECONDS] [-- COMMAND...]" >&2; exit 2 ;;
	esac
done
here=$(cd "$(dirname "$0")" && pwd)
dir=$(mktemp -d "${TMPDIR:-/tmp}/bg-noise.XXXXXX")
pids=()
stop() {
	[ ${#pids[@]} -gt 0 ] && kill "${pids[@]}" 2>/dev/null && wait "${pids[@]}" 2>/dev/null
	pids=()
	rm -rf "$dir"
}
trap stop EXIT
trap 'exit 130' INT
trap 'exit 143' TERM
cc -O1 -o "$dir/burst" "$here/fixtures/bench/burst.c" || exit 3
"$dir/burst" 300 200 "$max" & pids+=($!)
"$dir/burst" 300 700 "$max" & pids+=($!)
if [ $# -eq 0 ]; then
	wait "${pids[@]}"
	exit 0
fi
"$@"
