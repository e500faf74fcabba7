#!/usr/bin/env bash
# tests/run.sh BUILD -- runs every unit test (cmocka, TAP output) and every
# end-to-end script (tests/e2e/t_*.sh, TAP output) and ends with one line
# "N passed, N failed, N skipped".  Exit status 1 if anything failed.  A
# test's lines "# figure: ..." (what it measured) are shown whether it
# passed or not.
#
# BG_TEST_FILTER=regex limits the run to matching test files.
set -u
build=${1:-build/release}
root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root" || exit 2
export BG_BIN="$root/$build/benchguard" BG_BUILD="$root/$build" BG_FIXTURES="$root/tests/fixtures"
export BG_ROOT="$root" CMOCKA_MESSAGE_OUTPUT=TAP NO_COLOR=1
unset BENCHGUARD_DB

passed=0 failed=0 skipped=0 failed_files=()
log=$(mktemp -d)
trap 'rm -rf "$log"' EXIT

run_one() { # name, command...
	local name=$1 out p f s
	shift
	if [ -n "${BG_TEST_FILTER:-}" ] && ! [[ $name =~ $BG_TEST_FILTER ]]; then return; fi
	out="$log/$(basename "$name").tap"
	local start=$SECONDS
	"$@" >"$out" 2>&1
	local rc=$?
	s=$(grep -cE '^ok [0-9]+.*# (SKIP|skip)' "$out")
	p=$(grep -E '^ok [0-9]+' "$out" | grep -cvE '# (SKIP|skip)')
	f=$(grep -cE '^not ok [0-9]+' "$out")
	# A script that dies without reporting a failure still fails.
	if [ "$rc" -ne 0 ] && [ "$f" -eq 0 ]; then f=1; echo "not ok - $name exited $rc" >>"$out"; fi
	passed=$((passed + p)) failed=$((failed + f)) skipped=$((skipped + s))
	printf '%-40s %3d passed %3d failed %3d skipped  (%ds)\n' "$name" "$p" "$f" "$s" $((SECONDS - start))
	if [ "$f" -gt 0 ]; then
		failed_files+=("$name")
		grep -E '^not ok|^#' "$out" | sed 's/^/    /' | head -40
		tail -n 15 "$out" | sed 's/^/    | /'
	fi
	grep -E '^ok [0-9]+.*# (SKIP|skip)' "$out" | sed 's/^/    /'
	# What a test measured, passed or not (the statistical tests' figures).
	grep -E '^# figure: ' "$out" | sed 's/^# figure: /    /'
}

for t in "$build"/tests/test_*; do
	[ -x "$t" ] || continue
	run_one "unit/$(basename "$t")" "$t"
done
for t in tests/e2e/t_*.sh; do
	[ -f "$t" ] || continue
	run_one "e2e/$(basename "$t" .sh)" bash "$t"
done

[ ${#failed_files[@]} -eq 0 ] || echo "failing: ${failed_files[*]}"
echo "$passed passed, $failed failed, $skipped skipped"
[ "$failed" -eq 0 ]
