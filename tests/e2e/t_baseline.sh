# t_baseline.sh -- `baseline export` / `baseline import` end to end: the runs
# a check would use are exported as stable JSON; imported into an empty
# database they give the same verdicts and p-values for the same candidate;
# a second import stores nothing; files of other machines, and broken
# files, are refused with exit 2 and store nothing; among several files
# (baselines/*.json), other machines' are skipped.
. "$(dirname "$0")/lib.sh"

new_repo "$T/r" >/dev/null
cd "$T/r" || exit 1
# Deterministic but varying samples: a counter outside the tree drives them.
cat >bench.sh <<S
n=\$(cat "$T/counter" 2>/dev/null || echo 0); n=\$((n + 1)); echo \$n >"$T/counter"
echo "BENCHGUARD lat 1.\$((n % 7))\$((n * 3 % 10)) ms"
echo "BENCHGUARD lat 1.\$((n * 5 % 7))\$((n % 10)) ms"
S
cat >benchguard.json <<'J'
{
  "project": "t",
  "baseline": { "branch": "main", "window": 5, "min_runs": 3 },
  "defaults": { "warmup": 0, "samples": 2, "timeout": 20 },
  "benchmarks": [
    { "name": "emit", "format": "lines", "command": "sh bench.sh" },
    { "name": "old", "format": "lines", "command": "sh bench.sh" }
  ]
}
J
git add . && git commit -qm "add suite"

# History on main: c1..c6 measure both benchmarks, c7..c14 only "emit"
# (so "old" must be found further back), c13 twice, c14 with a tag.
ok_runs=1
for i in $(seq 1 14); do
	echo "$i" >f && git add f && git commit -qm "c$i"
	args=()
	[ "$i" -ge 7 ] && args+=(--filter '^emit$')
	[ "$i" -eq 13 ] && args+=(--runs 2)
	[ "$i" -eq 14 ] && args+=(--tag ci=yes)
	"$BG" -q run "${args[@]}" >/dev/null 2>"$T/run.err" || { ok_runs=0; cat "$T/run.err"; }
done
check "14 commits measured" [ "$ok_runs" = 1 ]
fp=$("$BG" fingerprint --json | python3 -c 'import json,sys; print(json.load(sys.stdin)["fingerprint"])')
git rev-list --first-parent --reverse main >"$T/main.txt"

check "export -o writes baselines/x.json" expect_rc 0 "$BG" baseline export -o baselines/x.json
if [ -w /dev/full ]; then
	check "export to a full disk: exit 3, saying so, and not that it exported" bash -c "
		\"$BG\" baseline export >/dev/full 2>'$T/full.err'; [ \$? = 3 ] &&
		grep -q '^benchguard: cannot write to standard output: No space left on device' '$T/full.err' &&
		! grep -q exported '$T/full.err'"
else
	skip "export to a full disk" "no writable /dev/full"
fi
check "... and says how many runs" grep -q "exported 14 runs of machine $fp" "$T/err"
check "the JSON has the documented shape, runs oldest first" python3 - baselines/x.json "$T/main.txt" "$fp" <<'P'
import json, re, sys
doc = json.load(open(sys.argv[1]))
order = [l.strip() for l in open(sys.argv[2])]
fp = sys.argv[3]
assert list(doc)[:3] == ["format", "version", "machine"], list(doc)
assert doc["format"] == "benchguard-baseline" and doc["version"] == 1, doc
assert doc["machine"] == fp and doc["branch"] == "main" and doc["window"] == 5, doc
assert isinstance(doc["facts"], dict) and "cpu_model" in doc["facts"], doc["facts"]
runs = doc["runs"]
# As check reads a window of 5: 5 runs and 2 spares (to refill the window
# when a far-out run is left out) of each series.  c1..c6 (all 6 with
# "old"), c8..c13 (7 "emit" runs, c13 twice), c14 the tip; not c7.
subjects = [r["commit"]["subject"] for r in runs]
assert subjects == ["c1", "c2", "c3", "c4", "c5", "c6", "c8", "c9", "c10", "c11", "c12",
                    "c13", "c13", "c14"], subjects
pos = [order.index(r["commit"]["sha"]) for r in runs]
assert pos == sorted(pos), pos
assert runs[-1]["tags"] == {"ci": "yes"}, runs[-1]
for r in runs:
    assert re.fullmatch(r"[0-9a-f]{32}", r["uid"]), r
    assert list(r) == ["uid", "commit", "branch", "started_at", "source", "tags", "series"], list(r)
    assert r["branch"] == "main" and r["source"] == "run" and r["started_at"] > 0, r
    names = [(s["benchmark"], s["metric"]) for s in r["series"]]
    assert names == sorted(names) and names, names
    for s in r["series"]:
        assert s["unit"] == "s" and s["direction"] == "lower", s
        assert s["samples"] and all(isinstance(x, float) for x in s["samples"]), s
assert len({r["uid"] for r in runs}) == len(runs)
P
check "exported samples are the stored ones, bit for bit" python3 - baselines/x.json .benchguard/results.db <<'P'
import json, sqlite3, sys
doc = json.load(open(sys.argv[1]))
db = sqlite3.connect(sys.argv[2])
for r in doc["runs"]:
    for s in r["series"]:
        got = [v for (v,) in db.execute(
            "SELECT p.value FROM samples p JOIN results x ON x.id = p.result_id"
            " JOIN series s ON s.id = x.series_id JOIN runs r ON r.id = x.run_id"
            " WHERE r.uid = ? AND s.benchmark = ? AND s.metric = ? ORDER BY p.idx",
            (r["uid"], s["benchmark"], s["metric"]))]
        assert got == s["samples"], (got, s["samples"])
P
check "export is byte-identical when run again" bash -c "
	\"$BG\" -q baseline export -o $T/again.json && cmp baselines/x.json $T/again.json &&
	\"$BG\" -q baseline export | cmp - baselines/x.json"
check "--window 2 exports fewer runs" bash -c "
	\"$BG\" -q baseline export --window 2 | python3 -c 'import json,sys; d=json.load(sys.stdin); assert d[\"window\"] == 2 and [r[\"commit\"][\"subject\"] for r in d[\"runs\"]] == [\"c4\", \"c5\", \"c6\", \"c12\", \"c13\", \"c13\", \"c14\"], d[\"runs\"]'"
check "--machine NAME exports that machine's runs (none here), without facts" bash -c "
	\"$BG\" -q baseline export --machine fleet-x 2>/dev/null | python3 -c 'import json,sys; d=json.load(sys.stdin); assert d[\"machine\"] == \"fleet-x\" and d[\"runs\"] == [] and \"facts\" not in d'"

# The candidate: a feature branch off main, its samples imported into both databases.
git checkout -q -b feature && echo x >g && git add g && git commit -qm "feature"
printf 'BENCHGUARD lat 3.1 ms\nBENCHGUARD lat 3.3 ms\n' >"$T/emit.txt"
printf 'BENCHGUARD lat 1.3 ms\nBENCHGUARD lat 1.4 ms\n' >"$T/old.txt"
B=$T/b.db
check "baseline import into an empty database" expect_rc 0 "$BG" --db "$B" baseline import baselines/x.json
check "... says what it stored" grep -qx "imported 14 runs (0 already present) from baselines/x.json" "$T/out"
check "... every run complete, source baseline, under this machine, with its uid and tags" bash -c "
	[ \"\$(sqlite3 $B \"SELECT count(*) FROM runs r JOIN machines m ON m.id = r.machine_id WHERE r.status = 'complete' AND r.source = 'baseline' AND m.fingerprint = '$fp'\")\" = 14 ] &&
	[ \"\$(sqlite3 $B \"SELECT count(*) FROM run_tags WHERE key = 'ci' AND value = 'yes'\")\" = 1 ] &&
	[ \"\$(sqlite3 $B 'SELECT group_concat(uid) FROM (SELECT uid FROM runs ORDER BY id)')\" = \"\$(python3 -c 'import json; print(\",\".join(r[\"uid\"] for r in json.load(open(\"baselines/x.json\"))[\"runs\"]))')\" ] &&
	[ \"\$(sqlite3 $B \"SELECT count(*) FROM machine_facts WHERE key = 'cpu_model'\")\" = 1 ]"
for db in "" "$B"; do
	dbarg=()
	[ -n "$db" ] && dbarg=(--db "$db")
	"$BG" "${dbarg[@]}" -q import "$T/emit.txt" --format lines --name emit --commit feature >/dev/null
	"$BG" "${dbarg[@]}" -q import "$T/old.txt" --format lines --name old --commit feature >/dev/null
done
"$BG" check --commit feature --json >"$T/a.json" 2>"$T/a.err"
echo "# check in A exited $?"
"$BG" --db "$B" check --commit feature --json >"$T/b.json" 2>"$T/b.err"
echo "# check in B exited $?"
"$BG" check --commit main --json >"$T/a-tip.json" 2>/dev/null
"$BG" --db "$B" check --commit main --json >"$T/b-tip.json" 2>/dev/null
check "a candidate gets the same verdicts and p-values from both databases" python3 - "$T/a.json" "$T/b.json" <<'P'
import json, sys
a, b = (json.load(open(p)) for p in sys.argv[1:3])
assert a["results"] == b["results"], (a["results"], b["results"])
assert a["summary"] == b["summary"] and a["baseline"] == b["baseline"], (a, b)
rows = {r["series"]: r for r in a["results"]}
# Both series were tested against a full window: emit from c10..c13 (c14
# too, the merge-base), old from c2..c6, far back along main.
assert rows["emit:lat"]["baseline_runs"] == 5 and rows["old:lat"]["baseline_runs"] == 5, rows
for r in rows.values():
    assert r["p_value"] is not None and r["verdict"] in ("regression", "unchanged", "improvement"), r
assert rows["emit:lat"]["verdict"] == "regression", rows["emit:lat"]
P
check "so does the tip of main, judged against the runs before it" python3 - "$T/a-tip.json" "$T/b-tip.json" <<'P'
import json, sys
a, b = (json.load(open(p)) for p in sys.argv[1:3])
assert a["results"] == b["results"] and a["summary"] == b["summary"], (a, b)
assert a["results"][0]["baseline_runs"] == 5 and a["results"][0]["p_value"] is not None, a
P
check "a second import stores nothing" expect_rc 0 "$BG" --db "$B" baseline import baselines/x.json
check "... and says all were present" grep -qx "imported 0 runs (14 already present) from baselines/x.json" "$T/out"
check "... the run count is unchanged" [ "$(sqlite3 "$B" "SELECT count(*) FROM runs WHERE source = 'baseline'")" = 14 ]
check "--json reports the counts" bash -c "
	\"$BG\" --db $B --json baseline import baselines/x.json | python3 -c 'import json,sys; d=json.load(sys.stdin); assert (d[\"imported\"], d[\"present\"]) == (0, 14), d'"

# Another machine's file.
python3 - baselines/x.json "$T/other.json" <<'P'
import json, sys
d = json.load(open(sys.argv[1]))
d["machine"] = "other-box"
json.dump(d, open(sys.argv[2], "w"), indent=2)
P
C=$T/c.db
check "a file of another machine is refused (exit 2)" expect_rc 2 "$BG" --db "$C" baseline import "$T/other.json"
check "... naming both machines" grep -q "other-box.*$fp" "$T/err"
check "... and, its facts being this machine's, no facts that differ" bash -c "! grep -q 'facts that differ' '$T/err'"
python3 - "$T/other.json" "$T/other-mem.json" <<'P'
import json, sys
d = json.load(open(sys.argv[1]))
d["facts"]["mem_total"] = "512 GiB"
json.dump(d, open(sys.argv[2], "w"), indent=2)
P
check "a file of a machine with other memory: refused, naming the fact that differs" bash -c "
	'$BG' --db '$C' baseline import '$T/other-mem.json' 2>'$T/e'; [ \$? = 2 ] &&
	grep -q 'was exported on machine other-box, but this machine is $fp; facts that differ, file -> here: mem_total 512 GiB -> [0-9]* GiB (pass --machine other-box' '$T/e'"
check "... and nothing is stored" bash -c "[ ! -f $C ] || [ \"\$(sqlite3 $C 'SELECT count(*) FROM runs')\" = 0 ]"
check "--force imports it as this machine" expect_rc 0 "$BG" --db "$C" baseline import --force "$T/other.json"
check "... with a warning, under this machine's fingerprint" bash -c "
	grep -q 'imported as machine $fp' $T/err &&
	[ \"\$(sqlite3 $C \"SELECT count(*) FROM runs r JOIN machines m ON m.id = r.machine_id WHERE m.fingerprint = '$fp'\")\" = 14 ]"
check "--force again: all present, and no warning of runs imported" bash -c "
	\"$BG\" --db $C baseline import --force $T/other.json >$T/f.out 2>$T/f.err &&
	grep -q 'imported 0 runs (14 already present)' $T/f.out && ! grep -q 'were imported as' $T/f.err"
check "--machine NAME imports it under that name" bash -c "
	\"$BG\" --db $T/d.db -q baseline import --machine other-box $T/other.json >/dev/null &&
	[ \"\$(sqlite3 $T/d.db \"SELECT count(*) FROM runs r JOIN machines m ON m.id = r.machine_id WHERE m.fingerprint = 'other-box'\")\" = 14 ]"
# A run is stored once, by its uid: imported under another machine before
# (here this one, with --force), an import as other-box stores nothing, and
# says where the runs are rather than only "already present".
check "runs present under another machine: said, with where they are" bash -c "
	\"$BG\" --db $C baseline import --machine other-box $T/other.json >$T/f.out 2>$T/f.err &&
	grep -q 'imported 0 runs (14 already present)' $T/f.out &&
	grep -qx 'benchguard: warning: 14 of the runs of .*other.json are in the database already under machine $fp, not other-box: a run is stored once, by its uid (--machine $fp judges them there)' $T/f.err"
check "... and not when they are under the machine imported as" bash -c "
	\"$BG\" --db $T/d.db baseline import --machine other-box $T/other.json >$T/f.out 2>$T/f.err &&
	grep -q 'imported 0 runs (14 already present)' $T/f.out && ! grep -q 'already under machine' $T/f.err"

# Several files, a file per kind of runner: this machine's is imported,
# the others are skipped with a note; none of ours, or a broken one among
# them, is exit 2 with nothing stored.
M=$T/m.db
check "several files: this machine's imported, another's skipped (exit 0)" bash -c "
	\"$BG\" --db $M baseline import baselines/x.json $T/other.json >$T/m.out 2>$T/m.err &&
	grep -q 'imported 14 runs (0 already present) from baselines/x.json' $T/m.out &&
	grep -q 'skipped $T/other.json: exported on machine other-box' $T/m.err &&
	[ \"\$(sqlite3 $M \"SELECT count(*) FROM runs r JOIN machines m ON m.id = r.machine_id WHERE m.fingerprint = '$fp'\")\" = 14 ] &&
	[ \"\$(sqlite3 $M 'SELECT count(*) FROM runs')\" = 14 ]"
check "... --json: one object per file, the other one skipped" bash -c "
	\"$BG\" --db $M --json baseline import $T/other.json baselines/x.json | python3 -c 'import json,sys
d = json.load(sys.stdin)
assert [(o[\"skipped\"], o[\"imported\"], o[\"present\"]) for o in d] == [(True, 0, 0), (False, 0, 14)], d'"
python3 - "$T/other.json" "$T/other2.json" <<'P'
import json, sys
d = json.load(open(sys.argv[1]))
d["machine"] = "other-box-2"
json.dump(d, open(sys.argv[2], "w"), indent=2)
P
rm -f "$T/n.db"
check "several files, none of this machine: exit 2" expect_rc 2 "$BG" --db "$T/n.db" baseline import "$T/other.json" "$T/other2.json"
check "... saying so, and nothing is stored" bash -c "
	grep -q 'none of the 2 files was exported on this machine' $T/err &&
	{ [ ! -f $T/n.db ] || [ \"\$(sqlite3 $T/n.db 'SELECT count(*) FROM runs')\" = 0 ]; }"

# Broken files: exit 2, a message naming the place, nothing stored.
broken() { # NAME PYTHON-EDIT EXPECTED-MESSAGE
	python3 - baselines/x.json "$T/$1.json" "$2" <<'P'
import json, sys
d = json.load(open(sys.argv[1]))
exec(sys.argv[3])
json.dump(d, open(sys.argv[2], "w"), indent=2)
P
	rm -f "$T/e.db"
	check "$1: exit 2" expect_rc 2 "$BG" --db "$T/e.db" baseline import "$T/$1.json"
	check "$1: says \"$3\"" grep -qF -- "$3" "$T/err"
	check "$1: nothing stored" bash -c "[ ! -f $T/e.db ] || [ \"\$(sqlite3 $T/e.db 'SELECT count(*) FROM runs')\" = 0 ]"
}
broken version-2 'd["version"] = 2' "version 2 is not supported"
broken nan-string 'd["runs"][3]["series"][0]["samples"][1] = "NaN"' \
	"runs[3].series[0].samples[1]: expected a number, got a string"
broken no-uid 'del d["runs"][10]["uid"]' "runs[10].uid: missing"
broken bad-uid 'd["runs"][0]["uid"] = "XYZ"' "runs[0].uid: \"XYZ\" is not 32 lowercase hex digits"
broken dup-uid 'd["runs"][4]["uid"] = d["runs"][1]["uid"]' "is also the uid of runs[1]"
broken no-samples 'd["runs"][2]["series"][0]["samples"] = []' "runs[2].series[0].samples: no samples"
broken bad-direction 'd["runs"][0]["series"][0]["direction"] = "up"' "must be \"lower\" or \"higher\""
broken not-baseline 'd["format"] = "something-else"' "is not a benchguard baseline"
# A metric with ':' is refused, as every other way in refuses it: stored,
# "b:x:y" was read back as benchmark "b:x", metric "y", and never found.
broken colon-metric 'd["runs"][0]["series"][0]["metric"] = "x:y"' \
	"runs[0].series[0].metric: \"x:y\" contains ':' (series are named benchmark:metric)"
sed 's/"version": 1,/"version": 1,,/' baselines/x.json >"$T/syntax.json"
check "a JSON syntax error: exit 2 with the line" expect_rc 2 "$BG" --db "$T/e.db" baseline import "$T/syntax.json"
check "... naming file and line" grep -q "syntax.json:3: not valid JSON" "$T/err"
rm -f "$T/e.db"
check "a broken file after a good one: exit 2" expect_rc 2 "$BG" --db "$T/e.db" baseline import baselines/x.json "$T/syntax.json"
check "... and the good one is not stored either" bash -c "[ ! -f $T/e.db ] || [ \"\$(sqlite3 $T/e.db 'SELECT count(*) FROM runs')\" = 0 ]"
check "an infinite sample (1e999) is refused" bash -c "
	sed '0,/\"samples\": \[/{s/\"samples\": \[/\"samples\": [ 1e999,/}' baselines/x.json >$T/inf.json &&
	! \"$BG\" --db $T/e.db baseline import $T/inf.json 2>$T/inf.err && grep -q 'samples\[0\]: not a finite number' $T/inf.err"
check "a missing file: exit 2" expect_rc 2 "$BG" --db "$T/e.db" baseline import "$T/nope.json"
check "baseline with no action: exit 2" expect_rc 2 "$BG" baseline
check "baseline import without a file: exit 2" expect_rc 2 "$BG" baseline import
check "--force is not an export option: exit 2" expect_rc 2 "$BG" baseline export --force
check "an unknown baseline branch: exit 2" expect_rc 2 "$BG" baseline export --baseline-branch nope
# All or nothing: a series whose unit contradicts the database, or another
# file's, is refused with nothing stored (not the runs before it, not an
# incomplete run that a second import would take as present).  The
# benchmark has a ':' in its name, which a lookup by "benchmark:metric"
# would split in the wrong place.
sha=$(git rev-parse HEAD)
brun() { # UID BENCH METRIC UNIT [DIRECTION]
	printf '{"uid":"%032x","commit":{"sha":"%s","branch":"main","author_time":1,"author":"a","subject":"s"},"started_at":100,"series":[{"benchmark":"%s","metric":"%s","unit":"%s","direction":"%s","samples":[1,2,3]}]}' \
		"$1" "$sha" "$2" "$3" "$4" "${5:-lower}"
}
bfile() { # FILE RUN...
	local f=$1
	shift
	(IFS=,; printf '{"format":"benchguard-baseline","version":1,"machine":"m1","runs":[%s]}\n' "$*") >"$f"
}
bfile "$T/u1.json" "$(brun 1 bench:x y s)"
bfile "$T/u2.json" "$(brun 2 good m s)" "$(brun 3 bench:x y B)"
U=$T/u.db
runs_of() { sqlite3 "$1" "SELECT count(*) FROM runs"; }
check "a file with a unit the database contradicts: exit 2" bash -c "
	'$BG' -q --db '$U' baseline import --machine m1 '$T/u1.json' >/dev/null &&
	! '$BG' --db '$U' baseline import --machine m1 '$T/u2.json' 2>'$T/u.err'; [ \$? = 0 ] &&
	grep -q 'u2.json: run 0*3: series \"bench:x:y\" is stored in unit \"s\", but this run measured it in \"B\"; nothing imported' '$T/u.err'"
check "... and none of its runs is stored, complete or not" [ "$(runs_of "$U")" = 1 ]
check "... so importing it again is refused again (exit 2)" expect_rc 2 "$BG" --db "$U" baseline import --machine m1 "$T/u2.json"
bfile "$T/u3.json" "$(brun 4 g2 m s)"
bfile "$T/u4.json" "$(brun 5 g2 m B)"
check "two files that disagree on a unit: exit 2" expect_rc 2 "$BG" --db "$T/u2.db" baseline import --machine m1 "$T/u3.json" "$T/u4.json"
check "... naming the second, and neither is stored" bash -c "
	grep -q 'u4.json: run 0*5: .*g2:m.*nothing imported' '$T/err' && [ \"\$(sqlite3 '$T/u2.db' 'SELECT count(*) FROM runs')\" = 0 ]"
check "files that agree are stored together; a run in two files once" bash -c "
	'$BG' --db '$T/u2.db' baseline import --machine m1 '$T/u3.json' '$T/u1.json' '$T/u3.json' >'$T/u.out' &&
	grep -qx 'imported 1 run (0 already present) from $T/u3.json' '$T/u.out' &&
	grep -qx 'imported 0 runs (1 already present) from $T/u3.json' '$T/u.out' &&
	[ \"\$(sqlite3 '$T/u2.db' \"SELECT count(*) FROM runs WHERE status = 'complete'\")\" = 2 ]"
# No run stored: no database made, or one without runs.
no_runs() { [ ! -e "$1" ] || [ "$(sqlite3 "$1" 'SELECT count(*) FROM runs')" = 0 ]; }
export -f no_runs
# A direction is one per series as a unit is: runs or files of one import
# that disagree on it are refused, where the last one used to flip the
# series for everyone.
bfile "$T/d1.json" "$(brun 6 d m s)" "$(brun 7 d m s higher)"
check "two runs of a file that disagree on a direction: exit 2, naming both" bash -c "
	'$BG' --db '$T/dir.db' baseline import --machine m1 '$T/d1.json' 2>'$T/d.err'; [ \$? = 2 ] &&
	grep -qx 'benchguard: .*d1.json: runs\[1\].series\[0\]: direction \"higher\" of d:m differs from \"lower\" in an earlier run' '$T/d.err' &&
	no_runs '$T/dir.db'"
bfile "$T/d2.json" "$(brun 8 d2 m s higher)"
bfile "$T/d3.json" "$(brun 9 g:d2 x s)" "$(brun 10 d2 m s lower)"
check "two files that disagree on a direction: exit 2, naming both" bash -c "
	'$BG' --db '$T/dir.db' baseline import --machine m1 '$T/d2.json' '$T/d3.json' 2>'$T/d.err'; [ \$? = 2 ] &&
	grep -qx 'benchguard: .*d3.json: run 0*a: direction \"lower\" of d2:m differs from \"higher\" in .*d2.json.s run 0*8; nothing imported' '$T/d.err' &&
	no_runs '$T/dir.db'"
check "files that agree on it are stored, higher is better" bash -c "
	'$BG' -q --db '$T/dir.db' baseline import --machine m1 '$T/d2.json' '$T/d2.json' &&
	[ \"\$(sqlite3 '$T/dir.db' \"SELECT direction FROM series WHERE benchmark = 'd2'\")\" = higher ]"
# Nor does a later import turn the stored direction round: a file saying
# "lower" of a series stored "higher" made every stored regression an
# improvement (and check exit 0).  Refused as a unit is, nothing stored.
bfile "$T/d4.json" "$(brun 11 g2 n s)" "$(brun 12 d2 m s lower)"
before=$(runs_of "$T/dir.db")
check "a file whose direction contradicts the database: exit 2, naming the series" bash -c "
	'$BG' --db '$T/dir.db' baseline import --machine m1 '$T/d4.json' 2>'$T/d.err'; [ \$? = 2 ] &&
	grep -qx 'benchguard: .*d4.json: run 0*c: series \"d2:m\" is stored as higher is better, but this run says lower is better; nothing imported' '$T/d.err'"
check "... the stored direction unchanged, none of its runs stored" bash -c "
	[ \"\$(sqlite3 '$T/dir.db' \"SELECT direction FROM series WHERE benchmark = 'd2'\")\" = higher ] &&
	[ \"\$(sqlite3 '$T/dir.db' 'SELECT count(*) FROM runs')\" = $before ]"

# `import` is one transaction too: a unit the store refuses leaves no run.
printf 'BENCHGUARD v 1.0 ms\n' >"$T/i1.txt"
printf 'BENCHGUARD v 1 B\n' >"$T/i2.txt"
check "import of a unit the database contradicts: exit 2" bash -c "
	'$BG' -q --db '$T/i.db' import --format lines --name x '$T/i1.txt' >/dev/null &&
	! '$BG' -q --db '$T/i.db' import --format lines --name x '$T/i2.txt' 2>'$T/i.err'; [ \$? = 0 ] &&
	grep -q 'stored in unit \"s\"' '$T/i.err'"
check "... and leaves no incomplete run behind" \
	[ "$(sqlite3 "$T/i.db" "SELECT group_concat(status) FROM runs")" = complete ]

# A far-out run in the window: check leaves it out and refills the window
# from the spare runs it reads; the export carries those too, so the
# imported database judges the tip the same (not no-baseline for want of
# the spare).
new_repo "$T/o" >/dev/null && cd "$T/o" || exit 1
cat >benchguard.json <<'J'
{ "project": "t", "baseline": { "branch": "main", "window": 5, "min_runs": 5 },
  "benchmarks": [ { "name": "emit", "format": "lines", "command": "true" } ] }
J
git add benchguard.json && git commit -qm suite
for v in 100 101 99 100.5 99.5 100 150 100.2; do
	echo "$v" >f && git add f && git commit -qm "v$v"
	printf 'BENCHGUARD lat %s ms\nBENCHGUARD lat %s ms\n' "$v" "$v" >"$T/o.txt"
	"$BG" -q --db "$T/o1.db" import "$T/o.txt" --format lines --name emit >/dev/null
done
"$BG" -q --db "$T/o1.db" baseline export -o "$T/o.json" &&
	"$BG" -q --db "$T/o2.db" baseline import "$T/o.json" >/dev/null
"$BG" --db "$T/o1.db" --json check --commit main >"$T/o1.out" 2>/dev/null
"$BG" --db "$T/o2.db" --json check --commit main >"$T/o2.out" 2>/dev/null
check "a window with a far-out run: the imported baseline judges the same" python3 - "$T/o1.out" "$T/o2.out" <<'P'
import json, sys
a, b = (json.load(open(p))["results"] for p in sys.argv[1:3])
assert a == b, (a, b)
r = a[0]
assert r["verdict"] == "unchanged" and r["baseline_runs"] == 5 and r["baseline_outliers"] == 1, r
P

# A file written before runs had a role (as benchguard wrote them when it
# started) holds the runs compare, bisect and ci's confirmation made in
# pairs, known by their tags: a database of that time is upgraded with them
# paired, and the file imported them as ordinary runs, in every rolling
# baseline.  Two of the window's runs tagged as compare's and bisect's:
# imported, the window has the 3 others and the spares before them.
python3 - "$T/o.json" "$T/old.json" <<'P'
import json, sys
f = json.load(open(sys.argv[1]))
runs = sorted(f["runs"], key=lambda r: r["started_at"])
runs[-1].setdefault("tags", {})["compare"] = "aaaaaaaaaaaa..bbbbbbbbbbbb"
runs[-2].setdefault("tags", {})["bisect-probe"] = "c" * 40
json.dump(f, open(sys.argv[2], "w"))
P
"$BG" -q --db "$T/o3.db" baseline import "$T/old.json" >/dev/null
check "an old file's paired runs are imported paired, as the upgrade marks them" \
	test "$(sqlite3 "$T/o3.db" "SELECT group_concat(r.role, ',') FROM runs r JOIN run_tags t ON t.run_id = r.id WHERE t.key IN ('compare', 'bisect-probe')")" = "paired,paired"
check "... the rest primary" \
	test "$(sqlite3 "$T/o3.db" "SELECT count(*) FROM runs WHERE role = 'primary'")" = "$(($(sqlite3 "$T/o3.db" "SELECT count(*) FROM runs") - 2))"
check "... and the file's export leaves them out" bash -c "
	'$BG' -q --db '$T/o3.db' baseline export | python3 -c '
import json, sys
runs = json.load(sys.stdin)[\"runs\"]
assert not any(set(r.get(\"tags\", {})) & {\"compare\", \"bisect-probe\"} for r in runs), runs'"
check "--tag compare=x: exit 2, the key is benchguard's own" bash -c "
	'$BG' --db '$T/o3.db' run --tag compare=x 2>'$T/e'; [ \$? -eq 2 ] &&
	grep -q 'the key \"compare\" is benchguard.s own' '$T/e'"
check "... bisect-mine=1 too (import's --tag alike)" bash -c "
	'$BG' --db '$T/o3.db' import --format lines --name emit --tag bisect-mine=1 '$T/o.txt' 2>'$T/e'; [ \$? -eq 2 ] &&
	grep -q 'the key \"bisect-mine\" is benchguard.s own' '$T/e'"

# A file an older benchguard exported from runs stored as `--machine all`,
# a name no machine may have now: the refusal said to pass --machine all,
# which is then refused too.
python3 -c "
import json, sys
f = json.load(open('$T/o.json')); f['machine'] = 'all'
json.dump(f, open('$T/all.json', 'w'))"
# A machine name that is no word, and long: quoted as other refused names
# are, cut short, where the message held the whole name.
python3 -c "
import json
f = json.load(open('$T/o.json')); f['machine'] = 'a b' * 400
json.dump(f, open('$T/long.json', 'w'))"
check "a file whose machine is no word: exit 2, the name quoted cut short" bash -c "
	'$BG' --db '$T/long.db' baseline import '$T/long.json' 2>'$T/e'; [ \$? -eq 2 ] &&
	grep -q '…\" is not a machine name (one word of printable characters' '$T/e' &&
	[ \$(wc -c <'$T/e') -lt 600 ]"
check "a file of machine \"all\": exit 2, saying to choose a name" bash -c "
	'$BG' --db '$T/all.db' baseline import '$T/all.json' 2>'$T/e'; [ \$? -eq 2 ] &&
	grep -q 'that name is not one a machine may have now (pass --force to import it as .*, or --force --machine NAME to import it under a name of your own)' '$T/e' &&
	! grep -q -- '--machine all' '$T/e'"
check "... and --force --machine runner-a imports it under that name" bash -c "
	'$BG' -q --db '$T/all.db' baseline import '$T/all.json' --force --machine runner-a &&
	[ \"\$(sqlite3 '$T/all.db' 'SELECT DISTINCT m.fingerprint FROM runs r JOIN machines m ON m.id = r.machine_id')\" = runner-a ]"

# A tag an older benchguard stored with a control character: the export
# wrote it, and the import refused the whole file for it.
cp "$T/o1.db" "$T/tab.db"
sqlite3 "$T/tab.db" "INSERT INTO run_tags(run_id, key, value) SELECT max(id), 'note', 'a' || char(9) || 'b' FROM runs"
check "export of a run tagged with a tab: exit 0, the tag left out, said" bash -c "
	'$BG' --db '$T/tab.db' baseline export -o '$T/tab.json' 2>'$T/e' &&
	grep -q 'warning: run [0-9a-f]*: tag \"note=a.x09b\" left out of the file: its value has a control character' '$T/e' &&
	! grep -q note '$T/tab.json'"
check "... and the file imports" expect_rc 0 "$BG" -q --db "$T/tab2.db" baseline import "$T/tab.json"
# A series an older benchguard stored under a name that holds a character
# that shows nothing (U+200B): the export wrote it, and the import refused
# the whole file for it.
cp "$T/o1.db" "$T/zw.db"
sqlite3 "$T/zw.db" "UPDATE series SET metric = 'pa' || char(8203) || 'rse'
	WHERE id = (SELECT min(id) FROM series)"
check "export of a run with a series named with U+200B: exit 0, the series left out, said" bash -c "
	'$BG' --db '$T/zw.db' baseline export -o '$T/zw.json' 2>'$T/e' &&
	grep -q 'warning: run [0-9a-f]*: series \".*\":\"pa.u{200b}rse\" left out of the file: its metric has an invisible character' '$T/e' &&
	! grep -q 'rse\"' '$T/zw.json'"
check "... and the file imports" expect_rc 0 "$BG" -q --db "$T/zw2.db" baseline import "$T/zw.json"

# The export's walk stops once every series has the runs there are for it,
# up to the window (a window of 3 reads 3 + 0 + 1 = 4): a series only the 2
# oldest of 10 commits measured still has both in the file.  Runs of
# another machine, a dirty run and the tip's own runs measured it too, and
# none may count, or the walk would stop before the oldest.
rm -rf "$T/rare" && new_repo "$T/rare" >/dev/null && cd "$T/rare" || exit 1
echo '{ "baseline": { "window": 3, "min_runs": 2 }, "benchmarks": [ { "name": "b", "command": "true" } ] }' >benchguard.json
git add -A && git commit -qm suite
for i in $(seq 1 10); do
	git commit -q --allow-empty -m "r$i"
	{
		printf 'BENCHGUARD common %s ms\n' 10 10.1
		[ "$i" -gt 2 ] || printf 'BENCHGUARD rare %s ms\n' 20 20.1
	} | "$BG" -q --db "$T/rare.db" import - --format lines --name b --machine m1 >/dev/null
	[ "$i" -lt 9 ] || printf 'BENCHGUARD rare 30 ms\n' |
		"$BG" -q --db "$T/rare.db" import - --format lines --name b --machine m2 >/dev/null
done
printf 'BENCHGUARD rare 40 ms\n' | "$BG" -q --db "$T/rare.db" import - --format lines --name b --machine m1 >/dev/null
sqlite3 "$T/rare.db" "UPDATE runs SET dirty = 1 WHERE id = (SELECT max(id) FROM runs)"
printf 'BENCHGUARD rare 50 ms\n' | "$BG" -q --db "$T/rare.db" import - --format lines --name b --machine m1 >/dev/null
check "export: a series only the 2 oldest commits measured has both runs in the file, r3-r5 none" bash -c "
	'$BG' --db '$T/rare.db' baseline export --machine m1 -o '$T/rare.json' 2>'$T/e' &&
	python3 -c '
import json, sys
runs = json.load(open(sys.argv[1]))[\"runs\"]
rare = [r[\"commit\"][\"subject\"] for r in runs for s in r[\"series\"] if s[\"metric\"] == \"rare\" and s[\"samples\"][0] == 0.02]
common = [r[\"commit\"][\"subject\"] for r in runs for s in r[\"series\"] if s[\"metric\"] == \"common\"]
sys.exit(not (sorted(rare) == [\"r1\", \"r2\"] and common == [\"r1\", \"r2\", \"r6\", \"r7\", \"r8\", \"r9\", \"r10\"]))' '$T/rare.json'"
# git takes a TAB, an ESC and bidirectional marks in a subject and an
# author's name, and U+202E in a branch name; the store keeps them and
# export writes them (escaped as JSON).  The import refused the file it
# had written, so one such merged commit spoilt every baseline file.
rm -rf "$T/gitdata" && mkdir -p "$T/gitdata" && cd "$T/gitdata" || exit 1
gd_branch=$(printf 'rel\342\200\256esa')
git init -q -b "$gd_branch" && echo x >f && git add f && git commit -qm init
echo '{ "baseline": { "window": 3, "min_runs": 2 }, "benchmarks": [ { "name": "b", "command": "true" } ] }' >benchguard.json
for i in 1 2 3; do
	GIT_AUTHOR_NAME=$(printf 'Ann\033[31m \342\200\217Red') GIT_AUTHOR_EMAIL=ann@example.com git commit -q --allow-empty \
		-m "$(printf 'fix %s:\tparser\342\200\217 \033[2J \342\200\256' "$i")"
	printf 'BENCHGUARD t %s ms\n' 10 "10.$i" |
		"$BG" -q --db "$T/gd.db" import - --format lines --name b --machine m1 >/dev/null
done
check "export writes a subject, author and branch with a TAB, an ESC, U+200F and U+202E" bash -c "
	'$BG' -q --db '$T/gd.db' baseline export --machine m1 --baseline-branch '$gd_branch' -o '$T/gd.json' &&
	grep -qF '\"subject\": \"fix 3:\tparser' '$T/gd.json' && grep -qF 'Ann\u001b[31m' '$T/gd.json'"
check "... and import reads that file back: exit 0, 3 runs" bash -c "
	'$BG' --db '$T/gd2.db' baseline import '$T/gd.json' --machine m1 >'$T/out' 2>&1 &&
	grep -q '^imported 3 runs' '$T/out'"
check "... the same subjects, authors and branches as stored from git, exported again alike" bash -c "
	'$BG' -q --db '$T/gd2.db' baseline export --machine m1 --baseline-branch '$gd_branch' -o '$T/gd2.json' &&
	python3 -c '
import json, sys
a, b = (json.load(open(f)) for f in sys.argv[1:3])
git = [(\"fix %d:\tparser\u200f \x1b[2J \u202e\" % i, \"Ann\x1b[31m \u200fRed <ann@example.com>\") for i in (1, 2, 3)]
def facts(d):
    return d[\"branch\"], [(r[\"commit\"][\"subject\"], r[\"commit\"][\"author\"], r[\"branch\"]) for r in d[\"runs\"]]
br = \"rel\u202eesa\"
sys.exit(not (facts(a) == facts(b) == (br, [(s, au, br) for s, au in git])))' '$T/gd.json' '$T/gd2.json'"
check "... a NUL in a subject is still refused" bash -c "
	sed 's/\"subject\": \"fix 1:/\"subject\": \"fix\\\\u0000 1:/' '$T/gd.json' >'$T/nul.json' && grep -qF 'fix\u0000 1' '$T/nul.json' &&
	'$BG' --db '$T/gd3.db' baseline import '$T/nul.json' --machine m1 2>'$T/e'; [ \$? -eq 2 ] &&
	grep -q 'runs\[0\].commit.subject: .* holds a NUL character' '$T/e'"

cd "$T" || exit 1

finish
