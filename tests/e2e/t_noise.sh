# t_noise.sh -- the verdict where CI really runs: `benchguard ci` on a
# machine with a noisy neighbour (tests/noise.sh: two busy loops in bursts,
# 300/200 ms and 300/700 ms, on this machine's cores), from the first
# commit to the last.
#
# A real git repository, a real CPU-bound benchmark (spin.c, 20 samples a
# run), window 20.  After 20 commits of history, 100 A/A commits on main
# (the benchmark untouched), each judged by ci as CI would; beside every
# third one, a pull-request branch off main that makes the benchmark 10%
# slower (its time, calibrated on this machine before the neighbour
# starts), judged by ci too: 33 branches.
#
#   A/A:   at most 2 of the 100 ci runs exit 1; none fails (2, 3).
#   power: ci judges the wall_time series a regression on >= 95% of the
#          branches, each on its own verdict (cpu_time cannot rescue it).
#
# The script prints the distribution of ci's wall time per commit (median,
# 95th percentile) and the pairs its confirmation measured.
# BG_STAT_SIZE=small (the sanitizer build in CI) runs 6 A/A commits and 2
# branches after a window of 10 and reports the claims without asserting
# them.
# Its claims are about timing: tests/run.sh runs it with nothing beside it.
# run.sh: alone
. "$(dirname "$0")/lib.sh"

AA=$(stat_n 100 6)
HIST=$(stat_n 20 10) # the window, and the commits of history before it is full
EVERY=3 # a branch beside every third A/A commit: AA / EVERY branches
spin_repo "$HIST" || { not_ok "building spin and its repository"; finish; exit 1; }
SLOW=$(spin_rounds "$T/spin" "$SPIN_ROUNDS" 10)
echo "# spin $SPIN_ROUNDS rounds; $SLOW rounds make its time 10% longer (measured quietly)"
export BENCHGUARD_DB="$T/noise.db"

noise_start 3000
start=$SECONDS
for i in $(seq 1 "$HIST"); do
	echo "h$i" >notes.txt && git add notes.txt && git commit -qm "history $i"
	ci_timed history "$i"
done
branches=0
for i in $(seq 1 "$AA"); do
	git checkout -q main
	echo "$i" >notes.txt && git add notes.txt && git commit -qm "A/A commit $i"
	ci_timed aa "$i"
	if [ $((i % EVERY)) -eq 0 ]; then
		git checkout -q -b "slow$i" main
		spin_suite "$SLOW"
		git commit -qam "spin 10% slower"
		ci_timed slow "$i"
		branches=$((branches + 1))
	fi
done
git checkout -q main
noise_stop
echo "# $AA A/A commits and $branches branches judged by ci in $((SECONDS - start)) s, beside the noisy neighbour"

ci_summary spin:wall_time
read -r _ aa_n _ aa_one aa_bad _ <<<"$(grep '^aa ' "$T/summary.txt")"
read -r _ sl_n _ _ sl_bad sl_wall _ <<<"$(grep '^slow ' "$T/summary.txt")"
check "the history's ci runs all succeeded" bash -c "! awk '\$1 == \"history\" && \$3 != 0' $T/ci.txt | grep -q ."
check "no A/A or branch ci run failed (exit 2 or 3)" test "$((aa_bad + sl_bad))" = 0
if [ "$((aa_bad + sl_bad))" != 0 ]; then
	for f in "$T"/ci/*.err; do grep -l 'benchguard:' "$f" >/dev/null && tail -n 3 "$f" | sed 's/^/# ci: /'; done | head -20
fi
claim "A/A under noise: at most 2 of $aa_n ci runs exit 1 ($aa_one)" test "$aa_one" -le 2
claim "power under noise: wall_time judged a regression on >= 95% of $sl_n branches 10% slower ($sl_wall)" \
	test $((100 * sl_wall)) -ge $((95 * sl_n))
finish
