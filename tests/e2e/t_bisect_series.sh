# t_bisect_series.sh -- bisect of one series, then of another, over the same
# range: the pairs the first stored ran only its own benchmark, so the
# second must measure its own, not read the first's as "no difference".  And
# a range of one commit prints no empty table.  A small C program in two
# benchmarks that takes twice as long from C5 on.
# The bisects judge wall time: tests/run.sh runs it with nothing beside it,
# at both sizes (on two CPUs loaded with another test and a compiler, the
# first named another commit).
# run.sh: alone at every size
. "$(dirname "$0")/lib.sh"

new_repo "$T/r" >/dev/null
cd "$T/r" || exit 1
cat >benchguard.json <<J
{ "build": "cc -O2 -o prog prog.c",
  "thresholds": { "alpha": 0.01, "min_change": 0.02, "min_effect": 0.8 },
  "defaults": { "warmup": 1, "samples": 5 },
  "benchmarks": [ { "name": "a", "command": "./prog" }, { "name": "b", "command": "./prog" } ] }
J
cat >prog.c <<'C'
/* The benchmark: a CPU-bound loop of WORK steps. */
#include "work.h"
int main(void)
{
	volatile unsigned long x = 0;
	for (unsigned long i = 0; i < WORK; i++)
		x += i * i;
	return 0;
}
C
echo '.benchguard/' >.gitignore
echo '#define WORK 5000000UL' >work.h
git add -A && git commit -qm "C0: the benchmark"
for i in 1 2 3 4 5 6 7 8; do
	if [ "$i" = 5 ]; then echo '#define WORK 10000000UL' >work.h; else echo "$i" >notes.txt; fi
	git add -A && git commit -qm "C$i"
done
culprit=$(git rev-parse HEAD~3)
export BENCHGUARD_DB="$T/db"
# names_culprit: the JSON answer in $T/out names C5; if not, what it named
# and the steps that led there (a wrong answer must say why in CI's log).
names_culprit() {
	grep -q "\"first_changed\": \"$culprit\"" "$T/out" && return 0
	echo "# want $culprit (C5); the answer and its steps:"
	/usr/bin/python3 - "$T/out" "$T/r" <<'P2'
import json, subprocess, sys
d = json.load(open(sys.argv[1]))
name = lambda s: subprocess.run(["git", "-C", sys.argv[2], "log", "-1", "--format=%s", s],
                                capture_output=True, text=True).stdout.strip() if s else None
print("# first_changed %s (%s), verdict %s" % (d.get("first_changed"), name(d.get("first_changed")), d.get("verdict")))
for s in d.get("steps", []):
    print("#   %s %s" % (name(s.get("commit")), json.dumps({k: v for k, v in s.items() if k != "commit"})))
P2
	sed 's/^/# err: /' "$T/err" | tail -20
	return 1
}

check "bisect of a:wall_time names C5" \
	expect_rc 0 "$BG" bisect --good HEAD~8 --bad HEAD --series a:wall_time --json
check "... (the commit)" names_culprit
check "then bisect of b:wall_time over the same range names C5 too" \
	expect_rc 0 "$BG" bisect --good HEAD~8 --bad HEAD --series b:wall_time --json
check "... (the commit)" names_culprit
check "... measured b itself, not a's pairs" /usr/bin/python3 - "$T/out" <<'P'
import json, sys
d = json.load(open(sys.argv[1]))
assert d["series"] == "b:wall_time", d["series"]
assert d["builds"] == 0, d["builds"]  # the worktrees of the first are reused
assert not d["steps"][0]["reused"], d["steps"][0]
P
check "and again: b's own pairs are reused, nothing runs" \
	expect_rc 0 "$BG" bisect --good HEAD~8 --bad HEAD --series b:wall_time --json
check "... every step reused" /usr/bin/python3 - "$T/out" <<'P'
import json, sys
d = json.load(open(sys.argv[1]))
assert all(s["reused"] for s in d["steps"]), d["steps"]
P
# A range of one commit: the bad end is the culprit, found with no probe.
check "bisect of C4..C5 names C5" \
	expect_rc 0 "$BG" bisect --good HEAD~4 --bad HEAD~3 --series a:wall_time
check "... (the commit)" grep -q "^first bad commit: $culprit" "$T/out"
check "... says 1 commit, 0 probes" grep -q "^1 commit, 0 probes, 0 builds in this session" "$T/out"
check "... and prints no empty table of steps" eval '! grep -q "^step " "$T/out"'
finish
