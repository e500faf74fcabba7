# t_config.sh -- every malformed configuration under tests/fixtures/config/bad
# gives exit 2 and exactly one line "benchguard: <file>:<line>: <what>", as
# the first line of the fixture says ("// expect: <line>: <message>").
. "$(dirname "$0")/lib.sh"

new_repo "$T/r" >/dev/null
cd "$T/r" || exit 1
n=0
for f in "$FIX"/config/bad/*.json; do
	n=$((n + 1))
	want="benchguard: $f:$(sed -n '1s|^// expect: ||p' "$f")"
	"$BG" --config "$f" run >"$T/out" 2>"$T/err"
	rc=$?
	got=$(cat "$T/err")
	if [ "$rc" -eq 2 ] && [ "$got" = "$want" ] && [ "$(wc -l <"$T/err")" -eq 1 ] && [ ! -s "$T/out" ]; then
		ok "$(basename "$f"): exit 2, one line with the right line number"
	else
		not_ok "$(basename "$f")"
		echo "# rc=$rc"; echo "# want: $want"; echo "# got:  $got"
	fi
done
check "at least 10 malformed configs were tried" test "$n" -ge 10
check "nothing was stored by a bad config" bash -c "[ ! -e .benchguard/results.db ]"

# The full example (every section used) parses: with --filter matching
# nothing run stops after loading it, with the filter's error (not a config error).
check "the full example config loads" bash -c "
	\"$BG\" --config \"$FIX/config/spec-example.json\" run --filter '^nothing$' 2>$T/e; [ \$? -eq 2 ] && grep -q 'matches no benchmark' $T/e"

# A benchmark's metrics entry that none of its series has (a typo) overrides
# nothing: run says so once, naming it, and measures as ever; a name its
# series have says nothing.
cat >"$T/typo.json" <<'J'
{ "defaults": { "warmup": 0, "samples": 2 },
  "benchmarks": [ { "name": "a", "command": "true",
    "metrics": { "wal_time": { "direction": "higher" }, "cpu_time": { "min_change": 0.1 } } } ] }
J
"$BG" --config "$T/typo.json" --db "$T/typo.db" run --runs 2 >"$T/out" 2>"$T/err"
rc=$?
check "metrics.wal_time, which no series has: exit $rc, one warning naming it, once in 2 runs" bash -c "
	[ $rc = 0 ] && [ \$(grep -c 'overrides nothing' '$T/err') = 1 ] &&
	grep -q '^benchguard: warning: $T/typo.json:2: benchmark \"a\": metrics.wal_time overrides nothing: none of its series has that metric' '$T/err'"
finish
