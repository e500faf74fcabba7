# t_pinned.sh -- `run --commit REV` and `gc` end to end, in a repository
# whose path holds spaces, quotes and `;`: REV is checked out into a cached
# worktree and built there once (a build log outside the repository counts
# the builds), the run is stored under REV's SHA and measures REV's code; an
# unknown REV is exit 2; a broken build is exit 3 with its log's tail, and is
# remembered; a hostile branch name is data; the run records the baseline
# branch when REV is a SHA on it, the branch REV names, else none; gc removes (or, dry run, only
# lists) worktrees, after which REV is checked out and built again; and the
# user's working tree is never touched.
. "$(dirname "$0")/lib.sh"

R="$T/my repo 'q' \"d\"; touch pwned"
new_repo "$R" >/dev/null
cd "$R" || exit 1
BUILDS="$T/builds.log"
# The program reports which version of it runs: v1, v2, v3 at c1, c2, c3.
write_prog() {
	cat >prog.c <<C
#include <stdio.h>
int main(void) { printf("BENCHGUARD version $1 count\\n"); return 0; }
C
}
cat >benchguard.json <<J
{
  "project": "t",
  "build": "echo \"\$BENCHGUARD_COMMIT\" >>$BUILDS && cc -O2 -o prog prog.c",
  "defaults": { "warmup": 0, "samples": 2, "timeout": 20 },
  "benchmarks": [ { "name": "prog", "format": "lines", "command": "./prog" } ]
}
J
printf 'prog\n' >.gitignore
for v in 1 2 3; do
	write_prog $v && git add . && git commit -qm "c$v"
done
c1=$(git rev-parse HEAD~2)
c3=$(git rev-parse HEAD)
builds() { if [ -f "$BUILDS" ]; then grep -c "^$1\$" "$BUILDS"; else echo 0; fi; }
clean_tree() { [ -z "$(git status --porcelain)" ]; }
version_of() { # the mean of prog:version in the run JSON on stdin ($T/out)
	python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); r=d["runs"][0]
print(r["commit"], [s["mean"] for s in r["results"] if s["series"] == "prog:version"][0], r["dirty"])' "$T/out"
}
W=.benchguard/worktrees

# --- run --commit: checked out, built once, stored under the SHA --------------
check "run --commit HEAD~2 succeeds" expect_rc 0 "$BG" run --commit HEAD~2 --json
check "... the run is stored under HEAD~2's SHA, clean, and measured its code (v1)" \
	[ "$(version_of)" = "$c1 1.0 False" ]
check "... said it checked out and built" grep -q "checking out ${c1:0:12}" "$T/err"
check "... the checkout is in the worktree cache, at c1" grep -q '"BENCHGUARD version 1 ' "$W/$c1/prog.c"
check "... built exactly once, with BENCHGUARD_COMMIT set" [ "$(builds "$c1")" = 1 ]
check "... the full build log is beside the checkout" [ -f "$W/$c1.build.log" ]
check "... the checkout's folder is 0777 less the umask ($(umask)), as its files are" \
	[ "$(stat -c %a "$W/$c1")" = "$(printf '%o' $((0777 & ~$(umask))))" ]
check "history shows the run under that commit" \
	sh -c "'$BG' history prog:version --json | grep -q '\"commit\": \"$c1\"'"

check "a second run --commit of the same SHA (by SHA) succeeds" expect_rc 0 "$BG" run --commit "$c1" --json
check "... and builds nothing" [ "$(builds "$c1")" = 1 ]
check "... nor checks out again" eval '! grep -q "checking out" "$T/err"'
check "... still measures v1" [ "$(version_of)" = "$c1 1.0 False" ]
runs=$("$BG" history prog:version --json | python3 -c "import json,sys; print(sum(r['commit'] == '$c1' for r in json.load(sys.stdin)))")
check "two runs are stored under c1" [ "$runs" = 2 ]

# A plain run still measures the working tree, builds in it, and is HEAD's.
check "plain run still works on the working tree" expect_rc 0 "$BG" run --json
check "... at HEAD, v3" [ "$(version_of)" = "$c3 3.0 False" ]

# --- bad input ----------------------------------------------------------------
check "unknown SHA: exit 2" expect_rc 2 "$BG" run --commit 0123456789abcdef0123456789abcdef01234567
check "... naming it" grep -q 'unknown revision "0123456789abcdef0123456789abcdef01234567"' "$T/err"
check "unknown branch: exit 2" expect_rc 2 "$BG" run --commit no-such-branch
check "--commit with --no-build: exit 2" expect_rc 2 "$BG" run --commit HEAD --no-build
check "ci refuses --commit: exit 2" expect_rc 2 "$BG" ci --commit HEAD
check "... saying it is an option of run" grep -q "option of run\|options of run" "$T/err"
check "nothing was checked out for them" [ "$(ls "$W" | grep -c '^[0-9a-f]\{40\}$')" = 1 ]

# --- a commit whose build fails -------------------------------------------------
printf 'this is not C\n' >>prog.c && git commit -qam "broken"
bad=$(git rev-parse HEAD)
check "broken build: exit 3" expect_rc 3 "$BG" run --commit HEAD
check "... the build log's tail on stderr" grep -q "error: unknown type name" "$T/err"
check "... and one line saying so" grep -q "^benchguard: build of ${bad:0:12} failed (exit status 1)" "$T/err"
check "... built once" [ "$(builds "$bad")" = 1 ]
check "... nothing stored for it" \
	sh -c "! '$BG' history prog:version --json | grep -q '$bad'"
check "second attempt: exit 3 again" expect_rc 3 "$BG" run --commit "$bad"
check "... says the failure is remembered" grep -q "failed (remembered from an earlier attempt" "$T/err"
check "... shows the tail again" grep -q "error: unknown type name" "$T/err"
check "... without building" [ "$(builds "$bad")" = 1 ]
check "--retry-build builds again (and fails again)" expect_rc 3 "$BG" run --commit "$bad" --retry-build
check "... once more" [ "$(builds "$bad")" = 2 ]
git reset -q --hard HEAD~1

# --- hostile refs and paths are data -------------------------------------------
HOSTILE="x';touch\${IFS}pwned;'"
if git check-ref-format --branch "$HOSTILE" >/dev/null 2>&1; then
	git branch "$HOSTILE" HEAD~1
	c2=$(git rev-parse HEAD~1)
	check "a branch named $HOSTILE works as REV" expect_rc 0 "$BG" run --commit "$HOSTILE" --json
	check "... and measures its commit (v2)" [ "$(version_of)" = "$c2 2.0 False" ]
else
	skip "a branch named $HOSTILE works as REV" "git refuses that branch name here"
	skip "... and measures its commit (v2)" "no such branch"
fi
check "no pwned file appeared anywhere" \
	[ -z "$(find "$T" /tmp -maxdepth 8 -name pwned 2>/dev/null | head -1)" ] && [ ! -e /pwned ]

# --- gc ---------------------------------------------------------------------------
n_before=$(ls "$W" | grep -c '^[0-9a-f]\{40\}$')
check "gc --dry-run succeeds" expect_rc 0 "$BG" gc --dry-run --max-age 0d
check "... lists what it would remove" grep -q "would remove $n_before worktrees" "$T/out"
check "... and removes nothing" [ "$(ls "$W" | grep -c '^[0-9a-f]\{40\}$')" = "$n_before" ]
check "gc with the defaults keeps fresh worktrees" expect_rc 0 "$BG" gc --json
check "... all of them" python3 -c "import json,sys; d=json.load(open('$T/out')); assert d['removed'] == 0 and d['kept'] == $n_before, d"
# One last used "3 days from now" (a clock stepped back, a cache restored
# from a runner whose clock ran fast) is used now: 0d removes it too.
touch -d "@$(($(date +%s) + 3 * 86400))" "$W/$(ls "$W" | grep -m1 '^[0-9a-f]\{40\}$')"
check "gc --max-age 0d removes every worktree" expect_rc 0 "$BG" gc --max-age 0d --json
check "... says which" python3 -c "import json,sys; d=json.load(open('$T/out')); assert d['removed'] == $n_before and d['bytes_freed'] > 0 and d['worktrees'][0]['action'] == 'removed', d"
check "... the cache is empty" [ -z "$(ls "$W")" ]
check "gc --max-size takes sizes; bad ones are exit 2" expect_rc 2 "$BG" gc --max-size 12X
check "gc --max-age bad value: exit 2" expect_rc 2 "$BG" gc --max-age soon
check "run --commit after gc checks out again" expect_rc 0 "$BG" run --commit "$c1" --json
check "... and rebuilds, since the checkout was gone" [ "$(builds "$c1")" = 2 ]
check "... measuring v1" [ "$(version_of)" = "$c1 1.0 False" ]

# A size bound: the least recently used go first, the one in use never.
"$BG" -q run --commit "$c3" >/dev/null 2>&1
touch -d '2 days ago' "$W/$c1"
check "gc --max-size 1K removes down to the bound" expect_rc 0 "$BG" gc --max-size 1K --json
check "... both, oldest first" python3 -c "import json,sys; d=json.load(open('$T/out')); w=d['worktrees']; assert [x['commit'] for x in w] == ['$c1', '$c3'] and d['removed'] == 2, d"
# A build log and stamp whose checkout is gone (removed by hand, or by a
# gc killed half-way) are an entry like the rest.
"$BG" -q run --commit "$c1" >/dev/null 2>&1
rm -rf "${W:?}/$c1"
check "a checkout removed by hand leaves its build log and stamp" \
	bash -c "[ -f '$W/$c1.build.log' ] && [ -f '$W/$c1.built' ]"
check "gc --dry-run lists them" expect_rc 0 "$BG" gc --dry-run --max-age 0d --json
check "... as the commit's one entry, to remove" python3 -c "import json,sys; d=json.load(open('$T/out')); w=d['worktrees']; assert [x['commit'] for x in w] == ['$c1'] and w[0]['action'] == 'would remove' and w[0]['bytes'] > 0 and d['removed'] == 1, d"
check "gc keeps them while they are young" expect_rc 0 "$BG" gc --json
check "... saying so" python3 -c "import json,sys; d=json.load(open('$T/out')); assert d['kept'] == 1 and d['removed'] == 0, d"
check "gc --max-age 0d removes them" expect_rc 0 "$BG" gc --max-age 0d --json
check "... and the cache is empty" [ -z "$(ls -A "$W")" ]

# --- the user's working tree ----------------------------------------------------
# The branch a pinned run is stored under: the baseline branch when the
# commit is on its first-parent history, the branch REV names, else none.
check "a run pinned by the SHA of a commit on main records branch main" \
	bash -c "'$BG' run --commit '$c1' --json >'$T/out' 2>'$T/err' && test \"\$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))[\"runs\"][0][\"branch\"])' '$T/out')\" = main"
check "... and history shows it (not -)" bash -c "'$BG' history prog:version | grep '${c1:0:12}' | grep -q ' main '"
git branch side "$c1" && git checkout -q side && echo x >side.txt && git add side.txt && git commit -qm side
side=$(git rev-parse HEAD)
git checkout -q main
check "a commit on another branch only, pinned by SHA, records no branch" \
	bash -c "'$BG' run --commit '$side' --json >'$T/out' 2>/dev/null && test \"\$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))[\"runs\"][0][\"branch\"])' '$T/out')\" = None"
check "... pinned by its branch name, records that branch" \
	bash -c "'$BG' run --commit side --json >'$T/out' 2>/dev/null && test \"\$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))[\"runs\"][0][\"branch\"])' '$T/out')\" = side"
git update-ref refs/remotes/origin/side "$side"
git branch -q -D side
check "... pinned by a remote-tracking ref (origin/side), records the remote's branch" \
	bash -c "'$BG' run --commit origin/side --json >'$T/out' 2>/dev/null && test \"\$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))[\"runs\"][0][\"branch\"])' '$T/out')\" = side"

# git run in a checkout (by the build, by a benchmark) does not find the
# user's repository above it: `git rev-parse` answered the user's HEAD,
# and a build's `git submodule update --init` changed the user's tree.
back=$PWD
new_repo "$T/fence" >/dev/null && cd "$T/fence" || exit 1
cat >benchguard.json <<'J'
{ "build": "git rev-parse --show-toplevel >where.txt 2>&1; true",
  "defaults": { "warmup": 0, "samples": 1 },
  "benchmarks": [ { "name": "b", "format": "lines",
    "command": "git rev-parse --show-toplevel >where-bench.txt 2>&1; echo BENCHGUARD t 1 ms" } ] }
J
echo .benchguard/ >.gitignore
git add -A && git commit -qm suite && git commit -q --allow-empty -m two
pinned=$(git rev-parse HEAD~1)
check "git in a checkout's build and benchmark: run --commit still succeeds" \
	expect_rc 0 "$BG" run --commit HEAD~1
check "... neither found the user's repository: not a git repository" bash -c "
	grep -q 'not a git repository' .benchguard/worktrees/$pinned/where.txt &&
	grep -q 'not a git repository' .benchguard/worktrees/$pinned/where-bench.txt"
check "... a plain run's benchmark still sees the repository it runs in" bash -c "
	'$BG' -q run >/dev/null 2>&1 && [ \"\$(cat where-bench.txt)\" = '$T/fence' ]"
# A partial clone (--filter=blob:none) lacks the files of commits it has
# not checked out, which git fetches on demand and libgit2 cannot: exit 2
# saying so and how to mend it.  It was exit 3, "object not found".
git config uploadpack.allowFilter true
echo 2 >val && git add val && git commit -qm val && echo 3 >val && git commit -qam val2
git clone -q --filter=blob:none "file://$T/fence" "$T/partial" && cd "$T/partial" || exit 1
# libgit2 1.5's checkout leaks pcre2's match data of its own when an object
# is missing (every frame in libgit2 and libpcre2): not ours, and
# LeakSanitizer would turn this exit 2 into 1 in the sanitizer build.
check "run --commit in a partial clone whose files git has not fetched: exit 2" \
	expect_rc 2 env ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0" \
	"$BG" --db "$T/partial.db" run --commit HEAD~1
check "... saying it is a partial clone and to clone without --filter" \
	grep -q 'this partial clone lacks files of commit [0-9a-f]*, which benchguard cannot fetch.*clone without --filter' "$T/err"
# A depth-1 clone lacks HEAD~1: it said only "unknown revision".
git clone -q --depth 1 "file://$T/fence" "$T/shallow1" && cd "$T/shallow1" || exit 1
check "run --commit HEAD~1 in a depth-1 clone: exit 2, saying it is a shallow clone" bash -c "
	\"$BG\" --db '$T/shallow1.db' run --commit HEAD~1 2>'$T/err'; [ \$? = 2 ] &&
	grep -q 'unknown revision \"HEAD~1\" (this is a shallow clone, which may lack it: fetch the whole history' '$T/err'"
cd "$back" || exit 1
# Under umask 077 the checkout's folder was 0755 all the same (a fixed chmod
# over mkdtemp's 0700), where everything else benchguard made was private.
(umask 077 && BENCHGUARD_CACHE="$T/private-cache" "$BG" --db "$T/private.db" run --commit "$c1" >/dev/null 2>&1)
check "under umask 077 a new checkout's folder is private (700)" \
	[ "$(stat -c %a "$T/private-cache/$c1" 2>/dev/null)" = 700 ]
check "the working tree was never modified" clean_tree
check "HEAD is still main" [ "$(git symbolic-ref --short HEAD)" = main ]
check "help run mentions --commit" sh -c "'$BG' help run | grep -q -- '--commit REV'"
check "help gc explains the options" sh -c "'$BG' help gc | grep -q -- '--max-size SIZE'"
finish
