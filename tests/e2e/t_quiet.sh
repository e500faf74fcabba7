# t_quiet.sh -- the verdict's power on a quiet machine, through `benchguard
# ci`: a real git repository, a real CPU-bound benchmark (spin.c, 20
# samples a run), window 20.  After 20 commits of history, 20 rounds of:
# an A/A commit on main judged by ci, then a pull-request branch off main
# that makes the benchmark 5% slower (its time, calibrated on this machine
# first), judged by ci.
#
#   power: ci judges wall_time a regression on >= 90% of the branches,
#          each series on its own verdict.
#   A/A:   none of the main commits exits 1 more than twice (as under noise).
#
# On this VM a single run's CV is about 3%, so one run cannot tell 0 from
# +5%; ci's confirmation (pairs beside the baseline commit) decides.  The
# script prints ci's seconds per commit (median, 95th percentile).
# BG_STAT_SIZE=small: 3 rounds after a window of 10, claims reported, not
# asserted.
# Its claims are about timing: tests/run.sh runs it with nothing beside it.
# run.sh: alone
. "$(dirname "$0")/lib.sh"

ROUNDS_N=$(stat_n 20 3)
HIST=$(stat_n 20 10) # the window, and the commits of history before it is full
spin_repo "$HIST" || { not_ok "building spin and its repository"; finish; exit 1; }
SLOW=$(spin_rounds "$T/spin" "$SPIN_ROUNDS" 5)
echo "# spin $SPIN_ROUNDS rounds; $SLOW rounds make its time 5% longer"
export BENCHGUARD_DB="$T/quiet.db"

start=$SECONDS
for i in $(seq 1 "$HIST"); do
	echo "h$i" >notes.txt && git add notes.txt && git commit -qm "history $i"
	ci_timed history "$i"
done
for i in $(seq 1 "$ROUNDS_N"); do
	git checkout -q main
	echo "$i" >notes.txt && git add notes.txt && git commit -qm "A/A commit $i"
	ci_timed aa "$i"
	git checkout -q -b "slow$i" main
	spin_suite "$SLOW"
	git commit -qam "spin 5% slower"
	ci_timed slow "$i"
done
git checkout -q main
echo "# $ROUNDS_N A/A commits and $ROUNDS_N branches judged by ci in $((SECONDS - start)) s"

ci_summary spin:wall_time
read -r _ aa_n _ aa_one aa_bad _ <<<"$(grep '^aa ' "$T/summary.txt")"
read -r _ sl_n _ _ sl_bad sl_wall _ <<<"$(grep '^slow ' "$T/summary.txt")"
check "no ci run failed (exit 2 or 3)" bash -c "! awk '\$3 > 1' $T/ci.txt | grep -q ."
claim "quiet power: wall_time judged a regression on >= 90% of $sl_n branches 5% slower ($sl_wall)" \
	test $((100 * sl_wall)) -ge $((90 * sl_n))
claim "quiet A/A: at most 2 of $aa_n ci runs exit 1 ($aa_one)" test "$aa_one" -le 2
finish
