#!/usr/bin/env bash
# tests/demo.sh BIN -- `make demo`: what benchguard is for, in a couple of
# minutes.  In a scratch git repository (a copy of the C examples, removed at
# the end unless BG_KEEP_DEMO=1) with a results database of its own, it
#   1. builds a rolling baseline: seven commits on main, one `benchguard run`
#      each (baseline.min_runs is 5, and a run far out of the others, one
#      that a neighbour's burst slowed, is set aside: with five, that left
#      four and no verdict);
#   2. pushes five more commits, one of which makes examples/c/sort sort 30%
#      more integers, and shows `benchguard ci` failing on them (exit 1) with
#      the Markdown summary a CI job would show;
#   3. has `benchguard bisect` name that commit among the five;
#   4. writes the HTML trend report to build/demo/report.html in this
#      checkout (BG_DEMO_REPORT=FILE writes it there instead).
# Nothing else here is touched: not this checkout's .benchguard/, not
# $BENCHGUARD_DB or $BENCHGUARD_CACHE, not a CI step summary, not your git
# configuration (the scratch repository has a HOME of its own).
#
# BG_STAT_SIZE=small (the sanitizer build's tests) takes fewer samples and
# pairs.  Exit 0 when ci caught the slowdown and bisect named its commit;
# 1 when either did not, or a step failed (the last line says which).
set -u
bin=${1:-build/release/benchguard}
case $bin in /*) ;; *) bin=$PWD/$bin ;; esac
root=$(cd "$(dirname "$0")/.." && pwd)
report=${BG_DEMO_REPORT:-$root/build/demo/report.html}
case $report in /*) ;; *) report=$PWD/$report ;; esac
die() {
	echo "demo: $*" >&2
	exit 1
}
[ -x "$bin" ] || die "no benchguard binary at $bin (run make first)"
for f in Makefile sort.c hashing.c; do
	[ -f "$root/examples/c/$f" ] || die "$root/examples/c/$f is missing"
done

# Few samples: the slowdown is 30%, and ci's and bisect's interleaved pairs,
# not the samples, are what make its verdict hold on a noisy machine.
# (bisect's ends: 8 pairs unless --runs says otherwise.)
if [ "${BG_STAT_SIZE:-full}" = small ]; then
	samples=3 bisect_opts=(--runs 4)
else
	samples=5 bisect_opts=()
fi

demo=$(mktemp -d "${TMPDIR:-/tmp}/benchguard-demo.XXXXXX") || die "cannot make a scratch directory"
cleanup() {
	if [ "${BG_KEEP_DEMO:-0}" = 1 ]; then
		echo "kept the scratch repository: $demo/repo (BG_KEEP_DEMO=1)"
	else
		rm -rf "$demo"
	fi
}
trap cleanup EXIT
trap 'exit 130' INT
trap 'exit 143' TERM HUP

# The scratch repository's world: its own database (the default one, in its
# .benchguard/), its own worktree cache, no CI environment, and a HOME
# without the user's git configuration (hooks, signing, templates).
unset BENCHGUARD_DB BENCHGUARD_CACHE GITHUB_STEP_SUMMARY GITHUB_ACTIONS XDG_CONFIG_HOME \
	GIT_DIR GIT_WORK_TREE GIT_INDEX_FILE GIT_CONFIG_GLOBAL GIT_CONFIG_PARAMETERS
export HOME="$demo/home" GIT_CONFIG_NOSYSTEM=1
export GIT_AUTHOR_NAME="Demo Author" GIT_AUTHOR_EMAIL=demo@example.com
export GIT_COMMITTER_NAME="Demo Author" GIT_COMMITTER_EMAIL=demo@example.com
mkdir -p "$HOME" "$demo/repo/examples/c" && cd "$demo/repo" || die "cannot make $demo/repo"

# show ARGS...: the command as a shell would take it back.
show() {
	local a out=
	for a in "$@"; do
		case $a in
		*\'*) a="\"$a\"" ;; # (no $, ` or " in what the demo shows)
		'' | *[!A-Za-z0-9_./:=@%+,~^-]*) a="'$a'" ;;
		esac
		out+=" $a"
	done
	printf '$%s\n' "$out"
}
# bg ARGS...: benchguard ARGS, shown first.
bg() {
	show benchguard "$@"
	"$bin" "$@"
}
# commit SUBJECT: commits the changes to tracked files, shown first.
commit() {
	show git commit -qam "$1"
	git commit -qam "$1"
}
note() { # commit SUBJECT with a line added to NOTES.md
	echo "- $1" >>NOTES.md
	commit "$1"
}
section() { printf '\n== %s ==\n\n' "$*"; }
failed=

echo "benchguard demo: a scratch git repository, $demo/repo,"
echo "holding a copy of examples/c and a suite of two benchmarks; its results go to"
echo "its own .benchguard/results.db. Your checkout is not touched."

section "1/4  A baseline: seven commits on main, one run each"
cp "$root"/examples/c/{Makefile,sort.c,hashing.c} examples/c/ || die "cannot copy examples/c"
printf '.benchguard/\nexamples/c/sort\nexamples/c/hashing\n' >.gitignore
cat >benchguard.json <<J
// The demo's suite: the C examples of examples/benchguard.json, $samples samples a run.
{
  "project": "benchguard-demo",
  "build": "make -s -C examples/c",
  "baseline": { "branch": "main", "window": 20, "min_runs": 5 },
  "thresholds": { "alpha": 0.01, "fdr": true, "min_change": 0.02, "min_effect": 0.8 },
  "defaults": { "warmup": 1, "samples": $samples, "timeout": 60 },
  "benchmarks": [
    { "name": "sort/1M", "command": "./examples/c/sort 1000000" },
    { "name": "hash/8M", "command": "./examples/c/hashing 8388608", "format": "lines" }
  ]
}
J
echo "# Demo notes" >NOTES.md
show git init -q
# (main whatever the git version's default branch)
git init -q && git symbolic-ref HEAD refs/heads/main || die "git init failed"
show git add -A
git add -A || die "git add failed"
commit "examples: sort and hash, and their benchguard suite" || die "git commit failed"
bg run || die "benchguard run failed"
for i in 2 3 4 5 6 7; do
	case $i in
	2) note "notes: how to build the examples" ;;
	3) note "notes: what sort measures" ;;
	4) note "notes: what hash measures" ;;
	5) note "notes: the machine the demo ran on" ;;
	6) note "notes: how long a run takes" ;;
	7) note "notes: what the baseline is" ;;
	esac || die "git commit failed"
	bg -q run || die "benchguard run failed"
done
bg history sort/1M:wall_time || die "benchguard history failed"

section "2/4  Five more commits, one of them slow; the CI step catches it"
note "notes: a word on noise" || die "git commit failed"
# The slowdown: sort gets 30% more integers than it is asked for, so it does
# about a third more work (n log n).  A change to the program, not to the
# suite: bisect measures every commit with the same benchguard.json.
sed -i 's|^\tv = malloc(|\tn += n * 3 / 10; /* 30% more integers: the slowdown to catch */\n&|' \
	examples/c/sort.c
cmp -s examples/c/sort.c "$root/examples/c/sort.c" &&
	die "examples/c/sort.c no longer has the line the demo slows down (v = malloc)"
show git diff
git --no-pager diff
{ commit "sort: 30% more integers per run" && note "notes: where the input of sort comes from" &&
	note "notes: the buffer size of hash" && note "notes: links"; } || die "git commit failed"
show git log --oneline -7
git --no-pager log --oneline -7
culprit=$(git rev-parse HEAD~3)
echo
bg ci --format markdown | tee "$demo/ci.md"
ci_rc=${PIPESTATUS[0]}
printf '$ echo $?\n%s\n' "$ci_rc"
[ "$ci_rc" = 1 ] || failed+="ci exited $ci_rc, not 1 (a regression); "

section "3/4  Which of the five commits? bisect finds it"
bg bisect --good HEAD~5 --bad HEAD "${bisect_opts[@]}" | tee "$demo/bisect.txt"
bisect_rc=${PIPESTATUS[0]}
found=$(sed -n 's/^first bad commit: \([0-9a-f]*\).*/\1/p' "$demo/bisect.txt")
subject=$(sed -n '/^first bad commit: /{n;s/^ *//;p;q}' "$demo/bisect.txt")
[ "$bisect_rc" = 0 ] && [ "$found" = "$culprit" ] ||
	failed+="bisect (exit $bisect_rc) named ${found:-no commit}, not $culprit; "

section "4/4  The trend report"
bg report --format html -o "$report" || failed+="report failed; "

section "Summary"
# The regressions of ci's Markdown table, | **regression** | `series` |
# baseline | current | change | p | g | runs | confirmation |, as text:
# the change of the first run and what the pairs said.  (The p column of a
# near-deterministic series such as a CPU time holds its noise floor, the
# confirmation always a p.)
caught=$(awk -F' *[|] *' '$2 == "**regression**" {
	gsub(/`/, "", $3); printf "  %s %s, %s\n", $3, $6, $10 != "" ? $10 : "p " $7 }' "$demo/ci.md" |
	sed 's/&lt;/</g; s/&gt;/>/g; s/&amp;/\&/g')
if [ "$ci_rc" = 1 ] && [ -n "$caught" ]; then
	echo "benchguard ci failed the push (exit 1) on a regression:"
	echo "$caught"
else
	echo "benchguard ci did not report the slowdown (exit $ci_rc)."
fi
if [ -n "$found" ]; then
	echo "benchguard bisect named the commit that made it: ${found:0:12} $subject"
else
	echo "benchguard bisect named no commit (exit $bisect_rc)."
fi
[ -f "$report" ] && echo "the HTML trend report is $report (open it in a browser)"
if [ -n "$failed" ]; then
	echo "demo: the demo did not show what it should: ${failed%; }" >&2
	exit 1
fi
exit 0
