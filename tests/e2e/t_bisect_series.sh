# t_bisect_series.sh -- bisect of one series, then of another, over the same
# range: the pairs the first stored ran only its own benchmark, so the
# second must measure its own, not read the first's as "no difference".
# Pairs are reused only while the benchmark is what measured them: after
# its command, its samples or the build change it is measured again, a
# benchmark left alone keeps its pairs, db copy keeps what measured each
# run, and runs that do not say (an older benchguard's) are measured
# again.  And a range of one commit prints no empty table.  Two benchmarks
# whose values are set, not timed: the level the build copies from the commit (100, then
# 200 from C5 on), times a fixed noise of about 1% from a shared counter.
# What is tested is which pairs bisect reads, not its power: with a 5 ms
# timed program on a busy host (run means moving by a third within
# seconds) a probe before the step measured +34% in 12 pairs and the first
# bisect named C4.
. "$(dirname "$0")/lib.sh"

new_repo "$T/r" >/dev/null
cd "$T/r" || exit 1
cat >bench.sh <<S
n=\$(cat "$T/ctr" 2>/dev/null || echo 0); n=\$((n + 1)); echo \$n >"$T/ctr"
awk -v n=\$n -v l=\$(cat level.built) 'BEGIN { m = l * (1 + 0.012 * sin(2.3 * n))
	for (d = -1; d <= 1; d++) printf "BENCHGUARD v %.6f ms\n", m * (1 + 0.001 * d) }'
S
cat >benchguard.json <<J
{ "build": "cp level level.built",
  "thresholds": { "alpha": 0.01, "min_change": 0.02, "min_effect": 0.8 },
  "defaults": { "warmup": 0, "samples": 1 },
  "benchmarks": [ { "name": "a", "format": "lines", "command": "sh bench.sh" },
                  { "name": "b", "format": "lines", "command": "sh bench.sh" } ] }
J
printf '.benchguard/\nlevel.built\n' >.gitignore
echo 100 >level
git add -A && git commit -qm "C0: the benchmark"
for i in 1 2 3 4 5 6 7 8; do
	if [ "$i" = 5 ]; then echo 200 >level; else echo "$i" >notes.txt; fi
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

check "bisect of a:v names C5" \
	expect_rc 0 "$BG" bisect --good HEAD~8 --bad HEAD --series a:v --json
check "... (the commit)" names_culprit
check "then bisect of b:v over the same range names C5 too" \
	expect_rc 0 "$BG" bisect --good HEAD~8 --bad HEAD --series b:v --json
check "... (the commit)" names_culprit
check "... measured b itself, not a's pairs" /usr/bin/python3 - "$T/out" <<'P'
import json, sys
d = json.load(open(sys.argv[1]))
assert d["series"] == "b:v", d["series"]
assert d["builds"] == 0, d["builds"]  # the worktrees of the first are reused
assert not d["steps"][0]["reused"], d["steps"][0]
P
check "and again: b's own pairs are reused, nothing runs" \
	expect_rc 0 "$BG" bisect --good HEAD~8 --bad HEAD --series b:v --json
check "... every step reused" /usr/bin/python3 - "$T/out" <<'P'
import json, sys
d = json.load(open(sys.argv[1]))
assert all(s["reused"] for s in d["steps"]), d["steps"]
P
# Stored pairs are reused only while the benchmark is what measured them.
# steps_reused all|none: every step of the JSON answer in $T/out was (or
# none was) read from stored pairs, and the answer is C5.
steps_reused() {
	/usr/bin/python3 - "$T/out" "$1" <<'P2' && names_culprit
import json, sys
d = json.load(open(sys.argv[1]))
r = [s["reused"] for s in d["steps"]]
assert r and (all(r) if sys.argv[2] == "all" else not any(r)), r
P2
}
# b's command changed, the program it runs the same: the file says so.
sed 's|"name": "b", "format": "lines", "command": "sh bench.sh"|"name": "b", "format": "lines", "command": "sh ./bench.sh"|' \
	benchguard.json >"$T/changed.json"
check "(b's command changed in the copy of the config)" eval '! cmp -s benchguard.json "$T/changed.json"'
check "b's command changed: bisect of b:v measures again" \
	expect_rc 0 "$BG" bisect --good HEAD~8 --bad HEAD --series b:v --json --config "$T/changed.json"
check "... no step read from the pairs of the old command" steps_reused none
check "and again: the new pairs are reused" \
	expect_rc 0 "$BG" bisect --good HEAD~8 --bad HEAD --series b:v --json --config "$T/changed.json"
check "... every step reused" steps_reused all
check "a, unchanged, keeps its pairs" \
	expect_rc 0 "$BG" bisect --good HEAD~8 --bad HEAD --series a:v --json --config "$T/changed.json"
check "... every step reused" steps_reused all
check "--samples 2 measures a again (its runs had 1 sample)" \
	expect_rc 0 "$BG" bisect --good HEAD~8 --bad HEAD --series a:v --json --samples 2
check "... no step reused" steps_reused none
sed 's|"build": "cp level level.built"|"build": "cp level level.built \&\& :"|' \
	benchguard.json >"$T/build.json"
check "(the build command changed in another copy)" eval '! cmp -s benchguard.json "$T/build.json"'
check "the build command changed: a is measured again" \
	expect_rc 0 "$BG" bisect --good HEAD~8 --bad HEAD --series a:v --json --config "$T/build.json"
check "... no step reused" steps_reused none
check "db copy keeps what measured each run: the copy reuses them" \
	expect_rc 0 "$BG" db copy "$T/db" "$T/copy.db"
check "... (bisect over the copy)" expect_rc 0 env BENCHGUARD_DB="$T/copy.db" \
	"$BG" bisect --good HEAD~8 --bad HEAD --series a:v --json --samples 2
check "... every step reused" steps_reused all
# Runs an older benchguard stored say nothing of what measured them.
sqlite3 "$T/copy.db" "UPDATE outcomes SET definition = NULL"
check "runs stored without a definition are measured again" \
	expect_rc 0 env BENCHGUARD_DB="$T/copy.db" \
	"$BG" bisect --good HEAD~8 --bad HEAD --series a:v --json --samples 2
check "... no step reused" steps_reused none
# A range of one commit: the bad end is the culprit, found with no probe.
check "bisect of C4..C5 names C5" \
	expect_rc 0 "$BG" bisect --good HEAD~4 --bad HEAD~3 --series a:v
check "... (the commit)" grep -q "^first bad commit: $culprit" "$T/out"
check "... says 1 commit, 0 probes" grep -q "^1 commit, 0 probes, 0 builds in this session" "$T/out"
check "... and prints no empty table of steps" eval '! grep -q "^step " "$T/out"'
finish
