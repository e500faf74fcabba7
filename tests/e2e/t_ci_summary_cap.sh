# t_ci_summary_cap.sh -- `benchguard ci`'s step summary when many series
# regress: GitHub drops a step summary over 1 MiB whole, so ci keeps what it
# appends within what is left of that 1 MiB, the regressions first, and says
# how many rows it left out; GitHub shows only 10 error annotations a step,
# so ci prints at most 10, the last saying how many more there are; and a summary that cannot be written (a full
# disk) is a warning that leaves the exit code the verdict's.
. "$(dirname "$0")/lib.sh"

new_repo "$T/r" >/dev/null && cd "$T/r" || exit 1
# 1500 metrics with 900-byte names, each the number in `val`, exactly.
cat >bench.sh <<'S'
awk -v l="$(cat val)" 'BEGIN { pad = sprintf("%0900d", 0); for (i = 0; i < 1500; i++) printf "BENCHGUARD m%04d_%s %.6f ms\n", i, pad, l }'
S
printf '.benchguard/\nval\n' >.gitignore
cat >benchguard.json <<'J'
{ "baseline": { "window": 5, "min_runs": 3 }, "defaults": { "warmup": 0, "samples": 1 },
  "benchmarks": [ { "name": "b", "format": "lines", "command": "sh bench.sh" } ] }
J
echo 10 >val
git add -A && git commit -qm suite
export BENCHGUARD_DB="$T/ci.db" GITHUB_STEP_SUMMARY="$T/summary.md"
for i in 1 2 3; do
	echo "$i" >notes && git add -A && git commit -qm "history $i"
	"$BG" -q ci --confirm 0 >/dev/null 2>&1
done
git checkout -q -b slow && echo x >notes && git commit -qam slow
echo 20 >val
# An earlier step's 100 KiB already in the summary counts against the cap.
head -c 102400 /dev/zero | tr '\0' 'x' >"$GITHUB_STEP_SUMMARY"
echo >>"$GITHUB_STEP_SUMMARY"
GITHUB_ACTIONS=true "$BG" -q ci --confirm 0 >"$T/out" 2>"$T/err"
rc=$?
size=$(wc -c <"$GITHUB_STEP_SUMMARY")
check "1500 regressions: ci exits 1 (got $rc)" test "$rc" = 1
check "... the step summary stays within GitHub's 1 MiB ($size bytes)" test "$size" -le 1048576
check "... and still holds the table's first rows" \
	grep -q '^| \*\*regression\*\* | `b:m0000_' "$GITHUB_STEP_SUMMARY"
check "... says how many rows it left out" \
	grep -Eq '^[0-9]+ more rows? not shown' "$GITHUB_STEP_SUMMARY"
check "... and counts all 1500 in its last line" grep -q '^1500 regressions$' "$GITHUB_STEP_SUMMARY"
shown=$(grep -c '^| \*\*regression\*\*' "$GITHUB_STEP_SUMMARY")
more=$(sed -n 's/^\([0-9]*\) more rows\{0,1\} not shown.*/\1/p' "$GITHUB_STEP_SUMMARY")
check "... rows shown ($shown) and left out (${more:-?}) add up to 1500" test "$((shown + ${more:-0}))" = 1500
# GitHub shows 10 error annotations a step and drops the rest unseen.
nerr=$(grep -c '^::error ' "$T/out")
check "... at most 10 ::error annotations (got $nerr)" test "$nerr" -le 10
check "... the first ones name the first regressions" \
	grep -q '^::error title=benchguard%3A performance regression::b:m0000_' "$T/out"
check "... and the last says how many more there are and where to see them" \
	grep -q '^::error title=benchguard::1491 more regressions or failed benchmarks are not annotated.*step summary.*table' "$T/out"

# A full disk: the summary's bytes are lost at its close.
if [ -w /dev/full ]; then
	echo y >notes && git commit -qam again
	GITHUB_STEP_SUMMARY=/dev/full "$BG" -q ci --confirm 0 >/dev/null 2>"$T/err"
	rc=$?
	check "a step summary on a full disk: the verdict's exit 1 (got $rc)" test "$rc" = 1
	check "... and a warning says the summary was not written" \
		grep -q '^benchguard: warning: cannot write the step summary /dev/full' "$T/err"
else
	skip "a step summary on a full disk" "no writable /dev/full"
fi
finish
