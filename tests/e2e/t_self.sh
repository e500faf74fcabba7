# t_self.sh -- benchguard gates itself.  From a fresh clone of this
# repository (its committed HEAD):
#   - `benchguard baseline import baselines/*.json` into an empty database
#     stores the committed baseline runs;
#   - `benchguard run` measures the project's own suite (benchguard.json at
#     the root: tests/bench/self.sh's hot paths, built by the suite itself),
#     and `benchguard check` judges every one of its series against them;
#   - ci/github-actions.yml, the workflow the project runs on itself,
#     imports the same way.
# A baseline is per machine: where this machine is not the one the
# committed baseline was made on, import must refuse it, and the rest runs
# with --force, which the figures say (its verdicts then compare two
# machines).
. "$(dirname "$0")/lib.sh"
# The suite's build is a plain `make all`, as a user would run it; under
# `make SANITIZE=1 test` the variables make exports would build the
# sanitizer's folder instead.
unset MAKEFLAGS MFLAGS MAKELEVEL MAKEOVERRIDES SANITIZE BUILD

git clone -q "${BG_ROOT:?}" "$T/clone" || { not_ok "git clone of the repository"; finish; }
cd "$T/clone" || exit 1
shopt -s nullglob
files=(baselines/*.json)
check "the clone has a committed baseline in baselines/" test "${#files[@]}" -ge 1
check "... and the suite it belongs to, benchguard.json" test -f benchguard.json
[ "${#files[@]}" -ge 1 ] || finish

fp=$("$BG" fingerprint 2>/dev/null | head -n 1)
theirs=$(python3 -c 'import json, sys; print(" ".join(sorted({json.load(open(f))["machine"] for f in sys.argv[1:]})))' "${files[@]}")
min_runs=$(python3 -c '
import json, re, sys
text = re.sub(r"^\s*//.*$", "", open("benchguard.json").read(), flags=re.M)
print(json.loads(text)["baseline"]["min_runs"])')
DB=$T/fresh.db
force=()
if [[ " $theirs " == *" $fp "* ]]; then
	check "baseline import baselines/*.json into an empty database" \
		expect_rc 0 "$BG" --db "$DB" baseline import "${files[@]}"
else
	check "a baseline of another machine is refused (exit 2)" \
		expect_rc 2 "$BG" --db "$DB" baseline import "${files[@]}"
	echo "# figure: t_self: this machine ($fp) is not the one the committed baseline was made on ($theirs): imported with --force, so the verdicts below compare two machines"
	force=(--force)
	check "baseline import --force baselines/*.json into an empty database" \
		expect_rc 0 "$BG" --db "$DB" baseline import "${force[@]}" "${files[@]}"
fi
n=$(sqlite3 "$DB" 'SELECT count(*) FROM runs' 2>/dev/null || echo 0)
check "... stores at least min_runs ($min_runs) runs ($n)" test "$n" -ge "$min_runs"

check "run: the project's own suite builds and measures (exit 0)" \
	expect_rc 0 "$BG" --db "$DB" -q run
"$BG" --db "$DB" --json check >"$T/check.json" 2>"$T/check.err"
rc=$?
check "check gives a verdict (exit $rc: 0 or 1)" \
	bash -c "[ $rc -le 1 ] || { sed 's/^/# check: /' '$T/check.err'; exit 1; }"
check "... for every series of the suite, each against at least $min_runs baseline runs" \
	python3 - "$T/check.json" "$min_runs" <<'P'
import json, sys
d = json.load(open(sys.argv[1]))
need = int(sys.argv[2])
res = d["results"]
series = {r["series"] for r in res}
want = {"runner:run_200", "runner:vs_spawn_loop", "startup:version", "ingest:import_100k",
        "ingest:vs_sqlite3", "check:check_1000", "report:html_1000"}
assert want <= series, sorted(want - series)
bad = [(r["series"], r["verdict"], r["baseline_runs"]) for r in res
       if r["verdict"] == "no-baseline" or r["baseline_runs"] < need]
assert not bad, bad
for r in res:
    change = "%+.1f%%" % (100 * r["change"]) if r["change"] is not None else "-"
    p = "p %.3g" % r["p_value"] if r["p_value"] is not None else "no p"
    print("# figure: t_self: %-22s %-12s %s (%s, %d baseline runs)" % (
        r["series"], r["verdict"], change, p, r["baseline_runs"]))
P

# The workflow the project runs on itself imports the same files.
check "ci/github-actions.yml imports baselines/*.json into an empty cache" \
	grep -q 'benchguard baseline import baselines/\*\.json' ci/github-actions.yml
finish
