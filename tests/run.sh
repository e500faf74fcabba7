#!/usr/bin/env bash
# tests/run.sh BUILD -- runs every unit test (cmocka, TAP output) and every
# end-to-end script (tests/e2e/t_*.sh, TAP output) and ends with one line
# "N passed, N failed, N skipped".  Exit status 1 if anything failed.  A
# test's lines "# figure: ..." (what it measured) are shown whether it
# passed or not.
#
# Tests run side by side, BG_TEST_JOBS at a time (default: the number of
# CPUs), each printed when it ends.  A script whose header has the line
# "# run.sh: alone" makes timing claims (A/A, power) that other tests
# running beside it would bend: at full size it runs after the others, with
# nothing beside it.  Sized small (BG_STAT_SIZE=small) its claims are only
# reported, so it joins the others.  "# run.sh: alone at every size" is for
# a script whose timing claims are asserted at both sizes (a slowdown far
# above the noise, which ci must catch and bisect name): it runs alone in
# either.
#
# BG_TEST_FILTER=regex limits the run to matching test files;
# BG_TEST_SKIP=regex leaves matching ones out, and says which.
set -u
build=${1:-build/release}
root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root" || exit 2
export BG_BIN="$root/$build/benchguard" BG_BUILD="$root/$build" BG_FIXTURES="$root/tests/fixtures"
export BG_ROOT="$root" CMOCKA_MESSAGE_OUTPUT=TAP NO_COLOR=1
unset BENCHGUARD_DB

jobs_max=${BG_TEST_JOBS:-$(nproc 2>/dev/null || echo 1)}
[[ $jobs_max =~ ^[1-9][0-9]*$ ]] || { echo "tests/run.sh: BG_TEST_JOBS must be a positive number" >&2; exit 2; }

passed=0 failed=0 skipped=0 failed_files=()
log=$(mktemp -d)
trap 'rm -rf "$log"' EXIT
names=() cmds=() alone=() running=() left_out=()

add() { # name, command...
	local name=$1
	if [ -n "${BG_TEST_FILTER:-}" ] && ! [[ $name =~ $BG_TEST_FILTER ]]; then return; fi
	if [ -n "${BG_TEST_SKIP:-}" ] && [[ $name =~ $BG_TEST_SKIP ]]; then
		left_out+=("$name")
		return
	fi
	shift
	names+=("$name")
	cmds+=("$(printf '%q ' "$@")")
	if [[ ${!#} == *.sh ]] && { grep -qx '# run.sh: alone at every size' "${!#}" ||
		{ [ "${BG_STAT_SIZE:-full}" != small ] && grep -qx '# run.sh: alone' "${!#}"; }; }; then
		alone+=(1)
	else
		alone+=(0)
	fi
}

# start ID: runs test ID in the background; its TAP output goes to
# $log/ID.tap and "exit-status seconds" to $log/ID.done when it ends.
start() {
	(
		s=$SECONDS
		eval "${cmds[$1]}" >"$log/$1.tap" 2>&1 </dev/null
		echo "$? $((SECONDS - s))" >"$log/$1.tmp" && mv "$log/$1.tmp" "$log/$1.done"
	) &
	running+=("$1")
}

# report ID: counts and prints test ID's results.
report() {
	local id=$1 name=${names[$1]} out="$log/$1.tap" rc secs p f s
	read -r rc secs <"$log/$id.done"
	s=$(grep -cE '^ok [0-9]+.*# (SKIP|skip)' "$out")
	p=$(grep -E '^ok [0-9]+' "$out" | grep -cvE '# (SKIP|skip)')
	f=$(grep -cE '^not ok [0-9]+' "$out")
	# A script that dies without reporting a failure still fails.
	if [ "$rc" -ne 0 ] && [ "$f" -eq 0 ]; then f=1; echo "not ok - $name exited $rc" >>"$out"; fi
	passed=$((passed + p)) failed=$((failed + f)) skipped=$((skipped + s))
	printf '%-40s %3d passed %3d failed %3d skipped  (%ds)\n' "$name" "$p" "$f" "$s" "$secs"
	if [ "$f" -gt 0 ]; then
		failed_files+=("$name")
		grep -E '^not ok|^#' "$out" | sed 's/^/    /' | head -80
		tail -n 15 "$out" | sed 's/^/    | /'
	fi
	grep -E '^ok [0-9]+.*# (SKIP|skip)' "$out" | sed 's/^/    /'
	# What a test measured, passed or not (the statistical tests' figures).
	grep -E '^# figure: ' "$out" | sed 's/^# figure: /    /'
}

# reap: waits for one running test to end and reports every one that has.
reap() {
	local id left=()
	wait -n 2>/dev/null
	for id in "${running[@]}"; do
		if [ -f "$log/$id.done" ]; then report "$id"; else left+=("$id"); fi
	done
	running=("${left[@]}")
}

for t in "$build"/tests/test_*; do
	[ -x "$t" ] || continue
	add "unit/$(basename "$t")" "$t"
done
for t in tests/e2e/t_*.sh; do
	[ -f "$t" ] || continue
	add "e2e/$(basename "$t" .sh)" bash "$t"
done
[ ${#left_out[@]} -eq 0 ] || echo "left out (BG_TEST_SKIP): ${left_out[*]}"

for i in "${!names[@]}"; do
	[ "${alone[$i]}" = 0 ] || continue
	while [ "${#running[@]}" -ge "$jobs_max" ]; do reap; done
	start "$i"
done
while [ "${#running[@]}" -gt 0 ]; do reap; done
for i in "${!names[@]}"; do
	[ "${alone[$i]}" = 1 ] || continue
	start "$i"
	while [ "${#running[@]}" -gt 0 ]; do reap; done
done

[ ${#failed_files[@]} -eq 0 ] || echo "failing: ${failed_files[*]}"
echo "$passed passed, $failed failed, $skipped skipped"
[ "$failed" -eq 0 ]
