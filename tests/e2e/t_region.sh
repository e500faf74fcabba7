# t_region.sh -- the instruction-count example suite (examples/instructions)
# end to end under the `simulate` instrument: the counts are those of the
# harness's region (the timed calls), not of the program's start-up and
# setup; they are the same at every run; and a branch whose sort and hash
# do 0.5% more work is a regression in their instructions, while parse,
# untouched, is unchanged.  Skipped only where valgrind is not installed.
. "$(dirname "$0")/lib.sh"

if ! command -v valgrind >/dev/null; then
	skip "the example suite under simulate" "skipped: valgrind not installed"
	finish
	exit
fi
ROOT=${BG_ROOT:?}
new_repo "$T/r" >/dev/null
cd "$T/r" || exit 1
mkdir -p examples lib
cp -r "$ROOT/examples/instructions" examples/
rm -f examples/instructions/work
cp "$ROOT/lib/benchguard_harness.h" "$ROOT/lib/benchguard_region.h" lib/
# The suite as shipped, with fewer timed samples: the counts are the point.
sed 's/"samples": 10/"samples": 3/' examples/instructions/benchguard.json >benchguard.json
echo '.benchguard/' >.gitignore
git add -A && git commit -qm "suite"

# stat SERIES FIELD: a field of the newest run of SERIES (history --json).
stat() {
	"$BG" --json history "$1" --limit 1 |
		python3 -c 'import json, sys; print("%.0f" % json.load(sys.stdin)[0][sys.argv[1]])' "$2"
}

check "three runs on main" expect_rc 0 "$BG" -q run --runs 3
for s in sort:instructions sort:l1_misses sort:ll_misses sort:est_cycles hash:instructions \
	parse:instructions; do
	n=$(stat "$s" n 2>/dev/null)
	check "$s: one simulated sample a run" test "$n" = 1
done
# FNV-1a is 6 instructions a byte on x86-64 at -O2 (6,000,035 here for
# 1 MB, the region's edges included); the whole program counts three times
# as many, its setup writing the megabyte.  Between 4 and 8 a byte: the
# region's count, whatever the compiler.
hash=$(stat hash:instructions mean)
echo "# figure: hash:instructions $hash for 1,000,000 bytes"
check "hash: the region's count, not the program's" test "$hash" -ge 4000000 -a "$hash" -le 8000000
# The same program gives the same count: min = max over the three runs.
"$BG" --json history sort:instructions --limit 3 >"$T/h.json"
check "sort: the same count at every run" python3 -c '
import json, sys
h = json.load(open(sys.argv[1]))
assert len(h) == 3 and len({r["mean"] for r in h}) == 1, h' "$T/h.json"

# A branch whose sort and hash do 0.5% more.
git checkout -q -b more
sed -i 's#work sort 50000"#work sort 50000 1.005"#; s#work hash 1000000"#work hash 1000000 1.005"#' \
	benchguard.json
git commit -qam "more work"
check "a run on the branch" expect_rc 0 "$BG" -q run
"$BG" --json check --min-runs 3 >"$T/check.json" 2>"$T/check.err"
check "check: exit 1 (regression)" test $? -eq 1
check "instructions +0.5%: sort and hash regress, parse does not" python3 -c '
import json, sys
v = {r["series"]: r for r in json.load(open(sys.argv[1]))["results"]}
for s in ("sort:instructions", "hash:instructions"):
    assert v[s]["verdict"] == "regression", (s, v[s]["verdict"])
    assert 0.004 < v[s]["change"] < 0.006, (s, v[s]["change"])
assert v["parse:instructions"]["verdict"] == "unchanged", v["parse:instructions"]
assert v["parse:instructions"]["change"] == 0, v["parse:instructions"]
' "$T/check.json"
finish
