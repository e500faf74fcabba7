# t_api.sh -- a C program linked against libbenchguard (examples/api/ci_json.c)
# gets the verdict `benchguard ci` gives: on two copies of one database, the
# same commit judged by `benchguard ci --json` and by the program prints the
# same JSON, byte for byte, and exits the same.
#
# The benchmark's values are set, not timed (a level from the commit, times
# a fixed ~1% wobble from a counter that both sides start alike), so the
# two runs measure the same numbers.  Three commits after a history: one
# that changes nothing, one whose first run a "neighbour" slows by 25%
# (flagged, then not confirmed by the pairs), and one 10% slower for real
# (flagged and confirmed): the confirmation, with its interleaved pairs
# beside the baseline commit, runs in the library for both.
. "$(dirname "$0")/lib.sh"

API=${BG_BUILD:?}/examples/ci_json
[ -x "$API" ] || { not_ok "the example is built ($API)"; finish; exit 1; }
level_suite "$T/r" 8 || exit 1

# both NAME: the commit at HEAD judged by ci and by the program, each on its
# own copy of the database and cache, from the same counter.
both() {
	local name=$1 spike=${2:-}
	cp "$T/db" "$T/db.api"
	cp "$T/ctr" "$T/ctr.saved"
	[ -n "$spike" ] && touch "$T/spike"
	BENCHGUARD_CACHE="$T/cache.cli" "$BG" -q ci --json >"$T/$name.cli.json" 2>"$T/$name.cli.err"
	echo $? >"$T/$name.cli.rc"
	cp "$T/ctr.saved" "$T/ctr"
	[ -n "$spike" ] && touch "$T/spike"
	BENCHGUARD_DB="$T/db.api" BENCHGUARD_CACHE="$T/cache.api" "$API" \
		>"$T/$name.api.json" 2>"$T/$name.api.err"
	echo $? >"$T/$name.api.rc"
}
# verdict NAME: "verdict/confirmation" of set:v in the ci JSON.
verdict() {
	/usr/bin/python3 -c 'import json, sys
r = json.load(open(sys.argv[1]))["results"][0]
print(r["verdict"] + "/" + (r.get("confirmation") or {}).get("status", "none"))' "$T/$1.cli.json"
}

echo 9 >notes.txt && git add notes.txt && git commit -qm "nothing changes"
both aa
echo 10 >notes.txt && git add notes.txt && git commit -qm "a neighbour slows the first run"
both spike yes
echo 110 >level && git add level && git commit -qm "10% slower"
both slow
for name in aa spike slow; do
	echo "# $name: ci exit $(cat "$T/$name.cli.rc"), $(verdict "$name"); the program exit $(cat "$T/$name.api.rc")"
	check "$name: the program prints ci's verdict JSON, byte for byte" cmp "$T/$name.cli.json" "$T/$name.api.json"
	check "$name: ... and exits as ci does" cmp "$T/$name.cli.rc" "$T/$name.api.rc"
done
check "the commits were what they say: unchanged, flagged and not confirmed, confirmed" \
	bash -c "[[ '$(verdict aa) $(verdict spike) $(verdict slow)' =~ \
	^unchanged/(none|cleared)\ unchanged/not-confirmed\ regression/confirmed$ ]]"
check "... the regression exits 1" test "$(cat "$T/slow.api.rc")" = 1
check "both recorded the verdict they printed" bash -c "
	test \"\$(sqlite3 $T/db 'SELECT json FROM checks ORDER BY id DESC LIMIT 1')\" = \
	     \"\$(sqlite3 $T/db.api 'SELECT json FROM checks ORDER BY id DESC LIMIT 1')\""
finish
