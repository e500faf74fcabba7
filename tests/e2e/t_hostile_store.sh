# t_hostile_store.sh -- a results database that is odd, locked away or full
# of extreme values: a schema version no benchguard writes (negative) or a
# later one's, or tables without a version (another program's database),
# is refused with exit 2 and a sentence naming the file, which stays byte
# for byte as it was; a database in a folder the user may not
# write serves history, report, check and baseline export, and `run` says
# it is read-only (exit 3); samples near 1e308 and near 1e-300 are judged
# like the same data at 1.0 by check, ci and report, and every JSON output
# stays JSON (no Infinity).
. "$(dirname "$0")/lib.sh"

new_repo "$T/r" >/dev/null
cd "$T/r" || exit 1
cat >benchguard.json <<'J'
{ "baseline": { "branch": "main", "window": 20, "min_runs": 4 },
  "thresholds": { "alpha": 0.01, "fdr": true, "min_change": 0.02, "min_effect": 0.8 },
  "defaults": { "warmup": 0, "samples": 3 },
  "benchmarks": [ { "name": "t", "command": "cat \"$BG_CUR\"", "format": "lines" } ] }
J
git add benchguard.json && git commit -qm "suite"
export BENCHGUARD_DB="$T/db/results.db"

# One run of series t:lat (ms), t:big (s, near 1e308) and t:tiny (s, near
# 1e-300) at a new commit: the same relative data, FACTOR apart per run.
write_run() { # FILE FACTOR...
	local f=$1 v
	shift
	: >"$f"
	for v in "$@"; do
		echo "BENCHGUARD lat $v ms" >>"$f"
		echo "BENCHGUARD big ${v}e308 s" >>"$f"
		echo "BENCHGUARD tiny ${v}e-300 s" >>"$f"
	done
}
store() {
	echo "$1" >>log.txt && git add log.txt && git commit -qm "run $1" || return 1
	shift
	write_run "$T/s.txt" "$@"
	"$BG" import "$T/s.txt" --format lines --name t --machine m1 >/dev/null
}
# Main's history: six commits around 1.0, a little spread.
i=0
for v in 1.00 1.01 0.99 1.02 0.98 1.00; do
	i=$((i + 1))
	store "main $i" "$v" "$v" || not_ok "storing run $i"
done
# A JSON document with no Infinity or NaN in it.
strict_json() {
	python3 -c '
import json, sys
def bad(c): raise ValueError("not JSON: " + c)
json.load(open(sys.argv[1]), parse_constant=bad)' "$1"
}
verdicts() { # FILE -> "series verdict" lines, sorted
	python3 -c '
import json, sys
for r in sorted(json.load(open(sys.argv[1]))["results"], key=lambda r: r["series"]):
    print(r["series"], r["verdict"])' "$1"
}

# ---------------------------------------------------------------- extremes
check "samples near 1e308 are stored with a finite median and spread" test \
	"$(sqlite3 "$BENCHGUARD_DB" "SELECT count(*) FROM results r JOIN series s ON s.id = r.series_id
	   WHERE s.metric = 'big' AND abs(median) < 1.8e308 AND abs(stddev) < 1.8e308 AND median > 1e307")" = 6
check "history --json of the 1e308 series is JSON (no Infinity)" bash -c \
	"\"$BG\" history t:big --json >$T/h.json && python3 -c '
import json, sys
def bad(c): raise ValueError(c)
json.load(open(sys.argv[1]), parse_constant=bad)' $T/h.json"

echo "same" >>log.txt && git add log.txt && git commit -qm same
write_run "$T/s.txt" 1.00 1.00
"$BG" import "$T/s.txt" --format lines --name t --machine m1 >/dev/null
check "check over a 1e308 history: exit 0" expect_rc 0 "$BG" check --machine m1 --json
cp "$T/out" "$T/check.json"
check "... JSON without Infinity" strict_json "$T/check.json"
check "... every series judged, the 1e308 and 1e-300 ones like the 1.0 one" test \
	"$(verdicts "$T/check.json" | tr '\n' ' ')" = "t:big unchanged t:lat unchanged t:tiny unchanged "
check "... with the same change" python3 -c "
import json
r = {x['series']: x for x in json.load(open('$T/check.json'))['results']}
for s in ('t:big', 't:tiny'):
    assert abs(r[s]['change'] - r['t:lat']['change']) < 1e-9, (s, r[s]['change'], r['t:lat']['change'])
    assert abs(r[s]['p'] - r['t:lat']['p']) < 1e-9 if 'p' in r[s] else True
"

echo "slow" >>log.txt && git add log.txt && git commit -qm slow
write_run "$T/s.txt" 1.20 1.21 1.19
slow=$("$BG" import "$T/s.txt" --format lines --name t --machine m1 --json |
	python3 -c 'import json,sys; print(json.load(sys.stdin)["run"])')
check "a 20% slower run near 1e308: check exits 1 (a regression)" expect_rc 1 "$BG" check --machine m1 --run "$slow" --json
cp "$T/out" "$T/slow.json"
check "... all three series regress, 1e308 and 1e-300 alike" test \
	"$(verdicts "$T/slow.json" | tr '\n' ' ')" = "t:big regression t:lat regression t:tiny regression "

check "report over the history: exit 0" expect_rc 0 "$BG" report --machine m1 --json -o "$T/rep.json"
check "... its JSON has no Infinity" strict_json "$T/rep.json"
check "... and the HTML report is written" expect_rc 0 "$BG" report --machine m1 -o "$T/rep.html"

# ci measures the working tree: the suite prints a run at the level of main.
git reset -q --hard HEAD~2
write_run "$T/cur.txt" 1.00
export BG_CUR="$T/cur.txt"
check "ci over a 1e308 history: exit 0" expect_rc 0 "$BG" ci --machine m1 --json --confirm 0
cp "$T/out" "$T/ci.json"
check "... JSON without Infinity" strict_json "$T/ci.json"
check "... every series judged unchanged" test \
	"$(verdicts "$T/ci.json" | tr '\n' ' ')" = "t:big unchanged t:lat unchanged t:tiny unchanged "
# ci's run shares its commit with main's last: report pools the two (a sum
# near 2e308), finds steps and levels over them.
check "report with two runs of a commit near 1e308: exit 0" expect_rc 0 "$BG" report --machine m1 \
	--json -o "$T/rep2.json"
check "... its JSON has no Infinity" strict_json "$T/rep2.json"

# ---------------------------------------------------------- schema version
cur=$(sqlite3 "$BENCHGUARD_DB" 'PRAGMA user_version')
for v in -5 -100000 999; do
	cp "$BENCHGUARD_DB" "$T/v.db"
	rm -f "$T/v.db-wal" "$T/v.db-shm"
	sqlite3 "$T/v.db" "PRAGMA journal_mode = DELETE; PRAGMA user_version = $v" >/dev/null
	before=$(sha256sum <"$T/v.db")
	for cmd in history report check run; do
		case $cmd in
		history) args=(history t:lat) ;;
		report) args=(report -o "$T/v.html") ;;
		check) args=(check --machine m1) ;;
		run) args=(run) ;;
		esac
		check "schema version $v: $cmd exits 2" expect_rc 2 "$BG" --db "$T/v.db" "${args[@]}"
		case $v in
		-*) want="$T/v.db: schema version $v is not one benchguard knows" ;;
		*) want="$T/v.db: database schema version $v is newer than this benchguard supports ($cur): a newer benchguard has upgraded it; upgrade this one to use it" ;;
		esac
		check "... saying so, naming the file" grep -qF -- "$want" "$T/err"
	done
	check "schema version $v: the file is untouched" test "$(sha256sum <"$T/v.db")" = "$before"
	check "... no journal files made beside it" bash -c "! ls $T/v.db-* 2>/dev/null | grep -q ."
done

# Another program's database: tables, no benchguard schema version.
sqlite3 "$T/other.db" "CREATE TABLE notes(body TEXT); INSERT INTO notes VALUES ('mine')"
before=$(sha256sum <"$T/other.db")
for cmd in "db info" "history t:lat" run; do
	# shellcheck disable=SC2086 # the command's words
	check "another program's database: $cmd exits 2" expect_rc 2 "$BG" --db "$T/other.db" $cmd
	check "... saying it is not benchguard's, naming the file" \
		grep -qF "$T/other.db: not a benchguard database (it has tables but no schema version)" "$T/err"
done
check "another program's database: the file is untouched" test "$(sha256sum <"$T/other.db")" = "$before"

# A file that is not a database at all: the wrong --db, bad input too.
printf 'notes, not a database\n%.0s' $(seq 1 200) >"$T/notes.txt"
before=$(sha256sum <"$T/notes.txt")
for cmd in "db info" "history t:lat" run; do
	# shellcheck disable=SC2086 # the command's words
	check "a text file as the database: $cmd exits 2" expect_rc 2 "$BG" --db "$T/notes.txt" $cmd
	check "... saying so, naming the file" \
		grep -qF "$T/notes.txt: the file is not a SQLite database" "$T/err"
done
check "a text file as the database: the file is untouched" test "$(sha256sum <"$T/notes.txt")" = "$before"

# A database that is not there: the commands that only read it refuse it
# (exit 2) and make nothing, neither the file nor its folders, where they
# used to create an empty one and answer "nothing stored" (a mistyped --db
# in a nightly report job).  The default file in the repository too.
for cmd in "db info" "history t:lat" "report -o $T/none.html" check "baseline export -o $T/none.json"; do
	# shellcheck disable=SC2086 # the command's words
	check "no database there: $cmd exits 2" expect_rc 2 "$BG" --db "$T/none/sub/results.db" $cmd
	check "... saying no such file" \
		grep -qF "$T/none/sub/results.db: no such file (a command that only reads never creates one" "$T/err"
done
check "... and nothing was made" bash -c "! ls -d $T/none $T/none.html $T/none.json 2>/dev/null | grep -q ."
# An empty file (`touch`, a copy that failed, a full disk): SQLite takes it
# for an empty database, and a reading command used to write the schema into
# it, 120 KB, and answer "nothing stored".  It says what the file is instead,
# and leaves it as it was; a command that writes sets it up as before.
: >"$T/empty.db"
for cmd in "db info" "history t:lat" "report -o $T/empty.html" check "alert flush" "db copy $T/empty.db $T/copy.db"; do
	# shellcheck disable=SC2086 # the command's words
	check "an empty file as the database: $cmd exits 2" expect_rc 2 "$BG" --db "$T/empty.db" $cmd
	check "... saying it is empty" grep -qF "$T/empty.db: not a benchguard database (it is empty); " "$T/err"
	check "... and leaving it empty" test ! -s "$T/empty.db"
done
check "... nothing made beside it" bash -c "! ls -d $T/empty.db-* $T/empty.html $T/copy.db 2>/dev/null | grep -q ."
check "an empty file as the database: run sets it up" expect_rc 0 "$BG" -q --db "$T/empty.db" run
check "... and history reads it then" expect_rc 0 "$BG" --db "$T/empty.db" history t:lat
new_repo "$T/fresh" >/dev/null
cp benchguard.json "$T/fresh/"
(cd "$T/fresh" && env -u BENCHGUARD_DB "$BG" history t:lat >"$T/out" 2>"$T/err")
check "the repository's default database not there yet: history exits 2 ($?)" test "$?" = 2
check "... and makes no .benchguard folder" test ! -e "$T/fresh/.benchguard"

# ---------------------------------------------------------------- read-only
# A folder the user may not write, the file read-only too.  As root the
# permissions do not bind: the commands then run as `nobody`, in a copy of
# the repository that user owns.
ro="$T/ro"
mkdir -p "$ro"
cp "$BENCHGUARD_DB" "$ro/results.db"
sqlite3 "$ro/results.db" "PRAGMA wal_checkpoint(TRUNCATE)" >/dev/null
rm -f "$ro/results.db-wal" "$ro/results.db-shm"
as=()
work="$T/r"
if [ "$(id -u)" = 0 ]; then
	if command -v setpriv >/dev/null && id nobody >/dev/null 2>&1; then
		cp -r "$T/r" "$T/rn" && mkdir -p "$T/nhome" && chown -R nobody "$T/rn" "$T/nhome"
		chmod 755 "$T"
		as=(setpriv --reuid=nobody --regid="$(id -g nobody)" --clear-groups env HOME="$T/nhome")
		work="$T/rn"
	else
		as=(skip)
	fi
fi
chmod 444 "$ro/results.db"
chmod 555 "$ro"
before=$(sha256sum <"$ro/results.db")
if [ "${as[0]:-}" = skip ]; then
	skip "read-only database" "running as root without setpriv or a nobody user to drop to"
else
	cd "$work" || exit 1
	export BENCHGUARD_DB="$ro/results.db"
	outdir=$(mktemp -d "$T/outXXXX") && chmod 777 "$outdir"
	check "read-only database: history works" expect_rc 0 "${as[@]}" "$BG" history t:lat
	check "... and lists the runs" grep -q "t:lat" "$T/out"
	check "... history --json too" expect_rc 0 "${as[@]}" "$BG" history t:big --json
	check "... report works" expect_rc 0 "${as[@]}" "$BG" report --machine m1 -o "$outdir/r.html"
	check "... check works" expect_rc 1 "${as[@]}" "$BG" check --machine m1 --run "$slow" --json
	check "... and judges (the 20% run regresses)" bash -c "grep -q regression $T/out"
	check "... baseline export works" expect_rc 0 "${as[@]}" "$BG" baseline export --machine m1 \
		-o "$outdir/b.json"
	echo '{ "benchmarks": [ { "name": "t", "command": "true" } ],
	        "alerts": [ { "kind": "webhook", "url": "http://127.0.0.1:9/hook" } ] }' >"$outdir/alerts.json"
	check "... alert flush with nothing to deliver works (it stopped at pruning the outbox)" \
		expect_rc 0 "${as[@]}" "$BG" --config "$outdir/alerts.json" alert flush
	check "... run says the database is read-only (exit 3)" expect_rc 3 "${as[@]}" "$BG" run
	check "... in plain words" grep -qF "$ro/results.db: the database is read-only (the folder or file may not be written)" "$T/err"
	check "... not SQLite's" bash -c "! grep -qi 'attempt to write' $T/err"
	check "... import says so too" expect_rc 3 "${as[@]}" "$BG" import "$T/s.txt" --format lines --name t --machine m1
	check "... in plain words" grep -qF "the database is read-only" "$T/err"
	check "... the file is untouched" test "$(sha256sum <"$ro/results.db")" = "$before"
	check "... nothing made beside it" test "$(ls "$ro")" = results.db

	# The file read-only in a folder the user may write (restored so from a
	# cache, or another user's in a shared folder): SQLite makes -shm and
	# -wal beside it for the read and leaves them, read-only as the file.
	# Writable again, the database could not be written, and the message
	# blamed "the folder or file", both writable.
	ro2="$T/ro2"
	mkdir -p "$ro2" && cp "$ro/results.db" "$ro2/results.db"
	[ -z "${as[*]}" ] || chown -R nobody "$ro2"
	chmod 444 "$ro2/results.db"
	export BENCHGUARD_DB="$ro2/results.db"
	check "a read-only file in a writable folder: history works" expect_rc 0 "${as[@]}" "$BG" history t:lat
	chmod 644 "$ro2/results.db"
	check "... made writable again, run fails while the -shm left by the read is read-only (exit 3)" \
		expect_rc 3 "${as[@]}" "$BG" run
	check "... naming that file, its mode, and what to remove" grep -qF \
		"$ro2/results.db-shm may not be written by this user (owner uid $("${as[@]}" id -u), mode 0444), left by a command that read the database while it could not write it; remove $ro2/results.db-shm and $ro2/results.db-wal while no benchguard uses the database" "$T/err"
	rm -f "$ro2/results.db-shm" "$ro2/results.db-wal"
	check "... removed, run stores again" expect_rc 0 "${as[@]}" "$BG" run

	# Another user's repository: git refuses it unless safe.directory names
	# it.  libgit2 1.5 said "not a git repository" with no safe.directory
	# set, and with git's usual "*" (which it does not take) gave no hint.
	if [ -n "${as[*]}" ]; then
		gh="$T/githome" && mkdir -p "$gh"
		rnp=$(cd "$work" && pwd -P)
		for sd in none '*'; do
			rm -f "$gh/.gitconfig"
			[ "$sd" = none ] || printf '[safe]\n\tdirectory = %s\n' "$sd" >"$gh/.gitconfig"
			check "another user's repository, safe.directory $sd: run exits 2" \
				expect_rc 2 env HOME="$gh" XDG_CONFIG_HOME="$gh" GIT_CONFIG_NOSYSTEM=1 "$BG" --db "$T/sd.db" run
			check "... naming the owner and the safe.directory to add" grep -qF \
				"$rnp: the repository belongs to another user (uid $(id -u nobody)), and git's safe.directory does not name it: git config --global --add safe.directory $rnp" "$T/err"
		done
		printf '[safe]\n\tdirectory = %s\n' "$rnp" >"$gh/.gitconfig"
		check "... with safe.directory naming it, run works" \
			expect_rc 0 env HOME="$gh" XDG_CONFIG_HOME="$gh" GIT_CONFIG_NOSYSTEM=1 "$BG" --db "$T/sd.db" run
		# A path with a blank and a quote: the command given works pasted
		# into a shell as it is.
		odd="$T/it's odd"
		mkdir -p "$odd" && cp -r "$work" "$odd/r" && chown -R nobody "$odd/r"
		rm -f "$gh/.gitconfig"
		(cd "$odd/r" && env HOME="$gh" XDG_CONFIG_HOME="$gh" GIT_CONFIG_NOSYSTEM=1 "$BG" --db "$T/sd.db" run >/dev/null 2>"$T/odd.err")
		cmd=$(sed -n 's/.*safe.directory does not name it: \(git config .*\) (this libgit2 .*/\1/p' "$T/odd.err")
		(cd "$odd/r" && env HOME="$gh" GIT_CONFIG_NOSYSTEM=1 bash -c "$cmd")
		check "... in a path with a blank and a quote, the git config command it gives, run by a shell, lets run work" \
			bash -c "cd \"\$1\" && env HOME='$gh' XDG_CONFIG_HOME='$gh' GIT_CONFIG_NOSYSTEM=1 '$BG' --db '$T/sd.db' run >/dev/null" _ "$odd/r"
	fi

	# A -wal with commits and no -shm (a writer killed mid-close) in a folder
	# the reader may not write: only a writer can fold them in, so the read
	# is refused rather than made without them, once the -wal has stayed.
	ro4="$T/ro4"
	mkdir -p "$ro4" && cp "$ro/results.db" "$ro4/results.db"
	python3 - "$ro4/results.db" <<'PY'
import os, sqlite3, sys
c = sqlite3.connect(sys.argv[1])
c.execute("PRAGMA wal_autocheckpoint = 0")
c.execute("CREATE TABLE later (x)")
c.commit()
os._exit(0)  # no close: no checkpoint, the -wal stays
PY
	rm -f "$ro4/results.db-shm"
	chmod 555 "$ro4"
	check "a -wal with commits and no -shm, the folder read-only: history refuses (exit 3)" \
		expect_rc 3 "${as[@]}" "$BG" --db "$ro4/results.db" history t:lat
	check "... naming the -wal" grep -qF "$ro4/results.db-wal holds changes only a run that may write the folder can fold in" "$T/err"
	chmod 755 "$ro4"

	# A reader that may not write the folder, while another user stores
	# runs there: a writer closing between the reader's look at -shm and
	# its first read took the -shm away, and the read failed with "the
	# database is read-only" (5 reads of 43 in one trial).  As root only:
	# the writer must be a user the reader is not.
	if [ -n "${as[*]}" ]; then
		ro3="$T/ro3"
		mkdir -p "$ro3" && chmod 755 "$ro3"
		printf 'BENCHGUARD s %s ms\n' 1 2 3 >"$T/tiny.txt"
		# The writer in its own repository: root may not use nobody's.
		(cd "$T/r" && "$BG" -q --db "$ro3/results.db" import "$T/tiny.txt" --format lines --name w >/dev/null)
		( cd "$T/r" || exit 1
		for i in $(seq 1 150); do
			"$BG" -q --db "$ro3/results.db" import "$T/tiny.txt" --format lines --name w >/dev/null ||
				echo "writer failed" >>"$T/ro3.log"
		done ) &
		writer=$!
		reads=0 failed=0
		while kill -0 "$writer" 2>/dev/null; do
			if "${as[@]}" "$BG" --db "$ro3/results.db" history w:s --limit 1 >/dev/null 2>"$T/ro3.err"; then
				reads=$((reads + 1))
			else
				failed=$((failed + 1))
				cat "$T/ro3.err" >>"$T/ro3.log"
			fi
		done
		wait "$writer"
		echo "# figure: read-only reader beside a writer: $reads reads, $failed failed"
		check "a reader that may not write the folder, beside a writer: every read works ($failed of $((reads + failed)) failed)" \
			bash -c "[ $failed -eq 0 ] && [ $reads -ge 20 ] && [ ! -s $T/ro3.log ]"
		# A -shm the reader may not read is no race: said at once, not
		# after the 3 s a writer coming or going is given.
		ro5="$T/ro5"
		mkdir -p "$ro5" && chmod 755 "$ro5" && cp "$ro/results.db" "$ro5/results.db"
		chmod 644 "$ro5/results.db" && : >"$ro5/results.db-shm" && chmod 600 "$ro5/results.db-shm"
		check "a -shm the reader may not read: exit 3 at once (within 2 s)" \
			expect_rc 3 timeout 2 "${as[@]}" "$BG" --db "$ro5/results.db" history t:lat
	else
		skip "a read-only reader beside a writer" "needs root, to read as another user"
	fi
	cd "$T" || exit 1
fi
chmod 755 "$ro"

# SQLite opens no database whose absolute path passes 504 bytes (512 with
# "-journal" beside it).  It said "unable to open database file (File
# exists)", an errno left from making the folders, and left them made.
cd "$T/r" || exit 1
deep() { # LENGTH: a path of that many bytes under $T/deep, in folders of 60
	python3 -c 'import sys
base, n = sys.argv[1], int(sys.argv[2]) - len(sys.argv[1])
parts = []
while n > 64:
    parts.append("d" * 59)
    n -= 60
print(base + "/" + "/".join(parts + ["x" * (n - 4) + ".db"]))' "$T/deep" "$1"
}
p504=$(deep 504) p505=$(deep 505)
check "a database path of 504 bytes: run stores there (exit 0)" expect_rc 0 "$BG" --db "$p504" run
rm -rf "$T/deep"
check "a path of 505 bytes: exit 2" expect_rc 2 "$BG" --db "$p505" run
check "... saying SQLite opens none longer than 504, not a stale errno" bash -c "
	grep -q 'its absolute path is 505 bytes long, and SQLite opens none longer than 504' $T/err &&
	! grep -q 'File exists' $T/err"
check "... and no folder made for it" test ! -e "$T/deep"
cd "$T" || exit 1
finish
