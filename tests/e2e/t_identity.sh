# t_identity.sh -- end to end in a real git repository: two runs show up in
# history with the commit's SHA and the machine fingerprint; a run in a dirty
# tree is marked dirty; --runs, --tag, --machine, --filter, --samples.
. "$(dirname "$0")/lib.sh"

new_repo "$T/r" >/dev/null
cd "$T/r" || exit 1
cat >benchguard.json <<'J'
{
  "project": "t",
  "defaults": { "warmup": 1, "samples": 4, "timeout": 20 },
  "benchmarks": [
    { "name": "noop", "command": "true" },
    { "name": "emit", "format": "lines",
      "command": "printf 'BENCHGUARD lat 1.5 ms\\nBENCHGUARD lat 2.5 ms\\nBENCHGUARD bw 9 GB/s\\n'" }
  ]
}
J
git add benchguard.json && git commit -qm "add suite"
sha=$(git rev-parse HEAD)
fp=$("$BG" fingerprint --json | python3 -c 'import json,sys; print(json.load(sys.stdin)["fingerprint"])')

check "first run exits 0" expect_rc 0 "$BG" run
check "second run exits 0" expect_rc 0 "$BG" run
check "run prints a summary table" grep -q 'noop:wall_time' "$T/out"
"$BG" history noop:wall_time --json >"$T/h.json"
check "history shows two runs" python3 - "$T/h.json" <<'P'
import json, sys
rows = json.load(open(sys.argv[1]))
assert len(rows) == 2, rows
P
check "with the commit's SHA and the machine fingerprint" python3 - "$T/h.json" "$sha" "$fp" <<'P'
import json, sys
rows = json.load(open(sys.argv[1]))
for r in rows:
    assert r["commit"] == sys.argv[2], r
    assert r["machine"] == sys.argv[3], r
    assert r["branch"] == "main" and r["complete"] and not r["dirty"], r
    assert r["n"] == 4 and r["unit"] == "s", r
assert rows[0]["run"] > rows[1]["run"]
P
check "lines samples stored in canonical units" python3 - <<P
import json, subprocess
rows = json.loads(subprocess.check_output(["$BG", "history", "emit:lat", "--json"]))
assert len(rows) == 2 and abs(rows[0]["mean"] - 0.002) < 1e-12 and rows[0]["n"] == 2, rows
bw = json.loads(subprocess.check_output(["$BG", "history", "emit:bw", "--json"]))
assert bw[0]["direction"] == "higher" and bw[0]["unit"] == "GB/s", bw
P
check "history of a benchmark lists all its metrics" bash -c "
	\"$BG\" history noop >$T/h && grep -q noop:wall_time $T/h && grep -q noop:cpu_time $T/h"
check "history of an unknown series -> exit 2" expect_rc 2 "$BG" history nope:wall_time

echo "# changed" >>README.md
check "run in a dirty tree exits 0" expect_rc 0 "$BG" run --filter '^noop$'
check "... and warns that it is dirty" grep -q 'uncommitted changes' "$T/err"
check "... and is marked dirty in history" python3 - <<P
import json, subprocess
rows = json.loads(subprocess.check_output(["$BG", "history", "noop:wall_time", "--json"]))
assert len(rows) == 3 and rows[0]["dirty"] and not rows[1]["dirty"], rows
P
git checkout -q README.md
check "untracked files do not make a run dirty" bash -c "
	touch scratch.txt && \"$BG\" run --filter '^noop$' --json | python3 -c 'import json,sys; assert not json.load(sys.stdin)[\"runs\"][0][\"dirty\"]'"

check "--runs 3 --samples 2 --tag --machine store three tagged runs" bash -c "
	\"$BG\" run --runs 3 --samples 2 --warmup 0 --filter noop --tag pr=42 --machine fleet-a >/dev/null 2>&1"
check "... each complete, with 2 samples, under the machine name and the tag" bash -c "
	[ \"\$(sqlite3 .benchguard/results.db \"SELECT count(*) FROM runs r JOIN machines m ON m.id = r.machine_id
	   JOIN run_tags t ON t.run_id = r.id WHERE m.fingerprint = 'fleet-a' AND t.key = 'pr' AND t.value = '42'
	   AND r.status = 'complete'\")\" = 3 ] &&
	\"$BG\" history noop:wall_time --json --limit 1 | python3 -c 'import json,sys; r=json.load(sys.stdin)[0]; assert r[\"n\"] == 2 and r[\"machine\"] == \"fleet-a\"'"
check "every sample is stored raw" bash -c "
	[ \"\$(sqlite3 .benchguard/results.db 'SELECT count(*) FROM samples')\" -gt 0 ] &&
	[ \"\$(sqlite3 .benchguard/results.db 'SELECT sum(n) FROM results')\" = \"\$(sqlite3 .benchguard/results.db 'SELECT count(*) FROM samples')\" ]"
check "volatile facts are stored with each run, stable ones with the machine" bash -c "
	[ \"\$(sqlite3 .benchguard/results.db \"SELECT count(DISTINCT run_id) FROM run_facts WHERE key = 'kernel'\")\" = \"\$(sqlite3 .benchguard/results.db 'SELECT count(*) FROM runs')\" ] &&
	[ \"\$(sqlite3 .benchguard/results.db \"SELECT count(*) FROM run_facts WHERE key = 'cpu_model'\")\" = 0 ] &&
	[ \"\$(sqlite3 .benchguard/results.db \"SELECT count(*) FROM machine_facts f JOIN machines m ON m.id = f.machine_id WHERE m.fingerprint = '$fp' AND f.key = 'cpu_model'\")\" = 1 ]"
cp benchguard.json "$T/suite.json"
python3 - "$T/suite.json" >"$T/built.json" <<'P'
import json, re, sys
text = re.sub(r"//.*", "", open(sys.argv[1]).read())
cfg = json.loads(text)
cfg["build"] = "true"
print(json.dumps(cfg))
P
check "with a build configured, the compiler is recorded as a volatile fact" bash -c "
	\"$BG\" --config $T/built.json run --filter noop --samples 1 >/dev/null 2>&1 &&
	sqlite3 .benchguard/results.db \"SELECT value FROM run_facts WHERE key = 'compiler' AND run_id = (SELECT max(id) FROM runs)\" | grep -q ."
check "--filter with a bad regex -> exit 2" expect_rc 2 "$BG" run --filter '('
check "BENCHGUARD_DB is honoured" bash -c "
	BENCHGUARD_DB=$T/other.db \"$BG\" run --filter noop --samples 1 >/dev/null 2>&1 && [ -f $T/other.db ] &&
	BENCHGUARD_DB=$T/other.db \"$BG\" history noop:wall_time --json | python3 -c 'import json,sys; assert len(json.load(sys.stdin)) == 1'"
check "--db wins over BENCHGUARD_DB" bash -c "
	BENCHGUARD_DB=$T/other.db \"$BG\" --db $T/third.db run --filter noop --samples 1 >/dev/null 2>&1 && [ -f $T/third.db ]"

# GIT_DIR naming another repository (git's tools follow it; benchguard
# reads the repository around it): refused, naming it.  It measured this
# repository's suite and stored it under this HEAD, without a word.
new_repo "$T/elsewhere" >/dev/null
check "GIT_DIR naming another repository: exit 2" bash -c "
	GIT_DIR=$T/elsewhere/.git \"$BG\" --db $T/gd.db run --filter noop --samples 1 >/dev/null 2>$T/gd.err; [ \$? = 2 ] &&
	grep -q '^benchguard: GIT_DIR is $T/elsewhere/.git, but benchguard reads the repository around the folder it runs in' $T/gd.err &&
	[ ! -e $T/gd.db ]"
check "... GIT_DIR naming this one (as in a git hook): it runs" bash -c "
	GIT_DIR=.git \"$BG\" --db $T/gd.db run --filter noop --samples 1 >/dev/null 2>&1"
finish
