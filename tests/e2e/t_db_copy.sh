# t_db_copy.sh -- `db copy` between two SQLite files keeps one history:
# what the source recorded about a run after a first copy took it (ci's
# verdict, once its pairs end; the run's pair) reaches the copy with the
# next one, once; and a series whose unit or direction the destination
# holds otherwise stops the copy (exit 2), nothing of it stored, as
# `baseline import` refuses such a file.
. "$(dirname "$0")/lib.sh"

new_repo "$T/r" >/dev/null && cd "$T/r" || exit 1
printf '.benchguard/\n' >.gitignore
cat >benchguard.json <<'J'
{ "baseline": { "window": 3, "min_runs": 2 }, "defaults": { "warmup": 0, "samples": 3 },
  "benchmarks": [ { "name": "b", "format": "lines", "command": "echo BENCHGUARD v 1 ms" } ] }
J
git add -A && git commit -qm suite
src="$T/src.db" dst="$T/dst.db"
for i in 1 2 3; do
	echo "$i" >n && git add n && git commit -qm "c$i"
	BENCHGUARD_DB=$src "$BG" -q ci >/dev/null 2>&1
done
check "three ci runs, three verdicts recorded" test "$(sqlite3 "$src" 'SELECT count(*) FROM checks')" = 3
"$BG" db copy "$src" "$dst" >/dev/null 2>&1
check "db copy: the three runs and their verdicts" \
	test "$(sqlite3 "$dst" 'SELECT count(*) FROM runs; SELECT count(*) FROM checks' | tr '\n' ' ')" = "3 3 "

# The copy as it stands when it was taken while ci measured the newest run
# again in pairs: the run complete, its verdict and pair not yet recorded.
last=$(sqlite3 "$src" 'SELECT uid FROM runs ORDER BY id DESC LIMIT 1')
sqlite3 "$dst" "DELETE FROM verdicts WHERE check_id IN (SELECT k.id FROM checks k JOIN runs r ON r.id = k.run_id WHERE r.uid = '$last');
	DELETE FROM checks WHERE run_id = (SELECT id FROM runs WHERE uid = '$last')"
sqlite3 "$src" "UPDATE runs SET pair_ref = uid WHERE uid = '$last'"
verdicts() { sqlite3 "$1" "SELECT r.uid, k.source, k.created_at, v.series, v.verdict FROM verdicts v JOIN checks k ON k.id = v.check_id JOIN runs r ON r.id = k.run_id ORDER BY 1, 4"; }
check "(the copy lacks the newest run's verdict)" test "$(verdicts "$src")" != "$(verdicts "$dst")"
"$BG" db copy "$src" "$dst" >"$T/out" 2>&1
rc=$?
check "db copy again: exit 0, saying the verdict was added (got $rc)" \
	grep -qx "copied 0 runs from $src to $dst (3 already there, ci's verdict on 1 of them added), 0 builds, 0 alerts" "$T/out"
check "... the copy's verdicts are the source's" test "$(verdicts "$src")" = "$(verdicts "$dst")"
check "... and the run's pair" test "$(sqlite3 "$dst" "SELECT pair_ref FROM runs WHERE uid = '$last'")" = "$last"
check "... so history shows ci's verdict there" bash -c "
	[ \"\$(BENCHGUARD_DB='$src' '$BG' history 2>/dev/null)\" = \"\$(BENCHGUARD_DB='$dst' '$BG' history 2>/dev/null)\" ]"
"$BG" --json db copy "$src" "$dst" >"$T/out.json" 2>&1
check "a third copy adds nothing: no verdict twice" bash -c "
	grep -q '\"checks_since\": 0' '$T/out.json' && [ \"\$(sqlite3 '$dst' 'SELECT count(*) FROM checks')\" = 3 ]"

# A series the destination holds in another unit, or with the other
# direction: the copied run would be read on the destination's terms.
new_repo "$T/u" >/dev/null && cd "$T/u" || exit 1
printf '*.db*\n' >.gitignore
suite() { printf '{ "defaults": { "warmup": 0, "samples": 2 }, "benchmarks": [ { "name": "t", "format": "lines", "command": "echo BENCHGUARD v 1 %s"%s } ] }\n' "$1" "$2" >benchguard.json; git add -A; git commit -qm "$1$2"; }
suite ms ''
"$BG" -q --db "$T/lower.db" run >/dev/null
suite B ''
"$BG" -q --db "$T/bytes.db" run >/dev/null
suite ms ', "metrics": { "v": { "direction": "higher" } }'
"$BG" -q --db "$T/higher.db" run >/dev/null
"$BG" db copy "$T/lower.db" "$T/higher.db" >/dev/null 2>"$T/err"
rc=$?
check "db copy of a lower-is-better series into one stored higher-is-better: exit 2 (got $rc)" test "$rc" = 2
check "... saying so" grep -qx "benchguard: series \"t:v\" is higher is better in $T/higher.db but lower is better in $T/lower.db; nothing more copied" "$T/err"
check "... nothing of it stored" test "$(sqlite3 "$T/higher.db" 'SELECT count(*) FROM runs; SELECT direction FROM series' | tr '\n' ' ')" = "1 higher "
"$BG" db copy "$T/bytes.db" "$T/lower.db" >/dev/null 2>"$T/err"
rc=$?
check "db copy of a series in bytes into one stored in seconds: exit 2 (got $rc)" test "$rc" = 2
check "... saying so" grep -qx "benchguard: series \"t:v\" is in unit \"s\" in $T/lower.db but \"B\" in $T/bytes.db; nothing more copied" "$T/err"
check "... nothing of it stored" test "$(sqlite3 "$T/lower.db" 'SELECT count(*) FROM runs')" = 1

# history is newest first by when a run was made: a copy stores an older
# run after a newer one (ordered by id, the older one was listed first and
# was the one --limit 1 kept).
echo 'BENCHGUARD t 1 ms' >"$T/old.txt"
echo 'BENCHGUARD t 2 ms' >"$T/new.txt"
"$BG" -q --db "$T/h1.db" import "$T/old.txt" --format lines --name h >/dev/null
sleep 1.1
"$BG" -q --db "$T/h2.db" import "$T/new.txt" --format lines --name h >/dev/null
"$BG" -q db copy "$T/h1.db" "$T/h2.db" >/dev/null 2>&1
check "history after a copy: the newer run first, and the one --limit 1 keeps" bash -c "
	\"$BG\" --db '$T/h2.db' --json history h:t >'$T/h.json' &&
	\"$BG\" --db '$T/h2.db' --json history h:t --limit 1 >'$T/h1.json' &&
	python3 -c \"
import json
def means(f):
    d = json.load(open(f))
    rows = d if isinstance(d, list) else d.get('runs', d.get('history', []))
    return [r['mean'] for r in rows]
a, b = means('$T/h.json'), means('$T/h1.json')
assert a == [0.002, 0.001] and b == [0.002], (a, b)\""

# Runs of more results than db copy writes in one statement (and a rest),
# with results older benchguards left: each result arrives whole, with its
# own samples in order, and in the order the source stored them.
many_series_db "$T/many.db"
check "(the source: 3 runs of 150 results, 1 to 5 samples each, one result with none)" \
	test "$(sqlite3 "$T/many.db" 'SELECT count(*) FROM results; SELECT count(*) FROM samples' | tr '\n' ' ')" = "450 1344 "
"$BG" db copy "$T/many.db" "$T/many-copy.db" >"$T/out" 2>&1
check "db copy of runs of 150 results: exit 0" grep -q '^copied 3 runs' "$T/out"
check "... every result, column and sample as the source's" \
	test "$(results_dump "$T/many.db")" = "$(results_dump "$T/many-copy.db")"
"$BG" db copy "$T/many.db" "$dst" >"$T/out" 2>&1
check "... and into a database holding other series" \
	test "$(results_dump "$T/many.db")" = "$(results_dump "$dst" | grep "|m|s")"

# Series are matched once a copy, and each run's directions checked again
# inside its transaction: another writer that turns a series to higher is
# better while the copy runs (here a trigger, on the second run) stops it,
# as a direction that differed from the start does.
cp "$T/many.db" "$T/flip-src.db"
"$BG" db copy "$T/many.db" "$T/flip.db" >/dev/null 2>&1 && sqlite3 "$T/flip.db" "PRAGMA foreign_keys = ON; DELETE FROM runs WHERE id > 1"
sqlite3 "$T/flip.db" "CREATE TRIGGER flip AFTER INSERT ON runs WHEN NEW.id = 3 BEGIN
	UPDATE series SET direction = 'higher' WHERE benchmark = 'm' AND metric = 's077'; END"
"$BG" db copy "$T/flip-src.db" "$T/flip.db" >"$T/out" 2>"$T/err"
rc=$?
check "a series turned to higher is better by another writer during the copy: exit 2 (got $rc)" test "$rc" = 2
check "... saying so" grep -qx "benchguard: series \"m:s077\" is higher is better in $T/flip.db but lower is better in $T/flip-src.db; nothing more copied" "$T/err"
check "... the run it was found in not stored" test "$(sqlite3 "$T/flip.db" 'SELECT count(*) FROM runs')" = 2

# Two series of the source whose names differ only in bytes that are not
# UTF-8 are one series in the destination (each such byte is stored as
# U+FFFD): exit 2 naming it, nothing of the run stored.
cp "$T/many.db" "$T/bytes-src.db"
sqlite3 "$T/bytes-src.db" "UPDATE series SET metric = CAST(x'78ff' AS TEXT) WHERE benchmark = 'm' AND metric = 's010';
	UPDATE series SET metric = CAST(x'78fe' AS TEXT) WHERE benchmark = 'm' AND metric = 's011'"
"$BG" db copy "$T/bytes-src.db" "$T/utf8-dst.db" >"$T/out" 2>"$T/err"
rc=$?
check "two source series that are one in UTF-8: exit 2 (got $rc)" test "$rc" = 2
check "... saying so" grep -q "^benchguard: series \"m:x.*\" of $T/bytes-src.db is the same series in $T/utf8-dst.db as another of $T/bytes-src.db (their names differ only in bytes that are not valid UTF-8); nothing more copied" "$T/err"
check "... nothing of the run stored" test "$(sqlite3 "$T/utf8-dst.db" "SELECT count(*) FROM runs; SELECT count(*) FROM results" | tr "\n" " ")" = "0 0 "

# import on a dirty tree says the run is dirty, as run does: it is never a
# baseline, and import said nothing.
new_repo "$T/dirty" >/dev/null && echo change >>"$T/dirty/README.md"
(cd "$T/dirty" && "$BG" --db "$T/d.db" import "$T/new.txt" --format lines --name h >/dev/null 2>"$T/err")
check "import on a dirty tree warns that the run is never a baseline" \
	grep -q '^benchguard: warning: the working tree has uncommitted changes: this run is stored as dirty and never used as a baseline' "$T/err"
# --commit HEAD is the branch's commit, as a plain import says: the run is
# on main (it was on no branch, so never a baseline of main's).
(cd "$T/dirty" && git stash -q && "$BG" --db "$T/h.db" import "$T/new.txt" --format lines --name h --commit HEAD >/dev/null 2>&1 &&
	"$BG" --db "$T/h.db" import "$T/new.txt" --format lines --name h >/dev/null 2>&1)
check "import --commit HEAD records the branch, as a plain import does" \
	test "$(sqlite3 "$T/h.db" "SELECT group_concat(coalesce(branch, '-') || dirty, ' ') FROM (SELECT * FROM runs ORDER BY id)")" = "main0 main0"
finish
