# t_docs.sh -- `--help` and the docs say the same thing, for every
# command `benchguard help` lists.  The command reference is
# docs/commands.md; the README shows a summary and usage examples.
#   - `benchguard CMD --help` exits 0 and starts with its usage line;
#   - every option the help names (outside `...`, which quotes other
#     commands) is one the command accepts, and docs/commands.md names it;
#   - docs/commands.md has the command's usage line, and every option of
#     the command's usage lines in README.md and docs/*.md (the lines that
#     start `benchguard CMD`) is in the help, and is accepted;
#   - the global options of `benchguard help` are in docs/commands.md, and
#     every option the README names is one some help names.
# An option the command takes but no text names cannot be found from
# outside; what each text promises, and what they say, is tested here.
. "$(dirname "$0")/lib.sh"

README="${BG_ROOT:?}/README.md"
REF="$BG_ROOT/docs/commands.md"
DOCS=("$README" "$BG_ROOT"/docs/*.md)
check "the command reference is there" test -s "$REF"
cd "$T" || exit 1
# Where an option must be named: the reference's text, links' targets left
# out (an anchor such as #bisect---good-a---bad-b names no option).
sed 's/](\([^)]*\))/]/g' "$REF" >"$T/ref.txt"
export BENCHGUARD_DB="$T/docs.db" # nothing may touch a real database

"$BG" help >"$T/help" 2>&1
cmds=$(awk '/^commands:/ { on = 1; next } /^$/ { on = 0 } on && NF { print $1 }' "$T/help")
check "benchguard help lists the commands" test "$(echo "$cmds" | wc -w)" -ge 10

# accepted CMD OPT: the command's parser knows OPT (a bad or missing value
# is fine: that is the parser speaking about a known option).
accepted() {
	"$BG" "$1" "$2=x" --help >"$T/acc.out" 2>"$T/acc.err" </dev/null
	! grep -q "unknown option\|unrecognized option" "$T/acc.err"
}

for c in $cmds; do
	[ "$c" = help ] && continue
	"$BG" "$c" --help >"$T/h.$c" 2>&1
	rc=$?
	check "$c --help exits 0 with its usage line" \
		bash -c "[ $rc -eq 0 ] && head -1 '$T/h.$c' | grep -q '^usage: benchguard $c'"
	# Options inside `...` belong to another command the help points to.
	helpopts=$(sed 's/`[^`]*`//g' "$T/h.$c" | grep -o -- '--[a-z][a-z0-9-]*' | sort -u)
	missing_ref= missing_cmd=
	for o in $helpopts; do
		grep -q -- "$o\b" "$T/ref.txt" || missing_ref="$missing_ref $o"
		accepted "$c" "$o" || missing_cmd="$missing_cmd $o"
	done
	check "$c: every option its help names is in docs/commands.md${missing_ref:+ (missing:$missing_ref)}" \
		test -z "$missing_ref"
	check "$c: every option its help names is accepted${missing_cmd:+ (not:$missing_cmd)}" \
		test -z "$missing_cmd"
	# The usage lines of the command (in code spans or blocks): the
	# reference must have one; those of every doc are checked.
	usage_re="^(\`|\\\$ )?benchguard $c( |\`|\$)"
	check "$c: docs/commands.md has its usage line" grep -qE "$usage_re" "$REF"
	grep -hE "$usage_re" "${DOCS[@]}" >"$T/u.$c"
	readmeopts=$(grep -o -- '--[a-z][a-z0-9-]*' "$T/u.$c" | sort -u)
	not_in_help= not_taken=
	for o in $readmeopts; do
		# Global options are the global help's.
		grep -q -- "$o\b" "$T/help" && ! grep -q -- "$o\b" "$T/h.$c" && continue
		grep -q -- "$o\b" "$T/h.$c" || not_in_help="$not_in_help $o"
		accepted "$c" "$o" || not_taken="$not_taken $o"
	done
	check "$c: every option of its usage lines in the docs is in its help${not_in_help:+ (missing:$not_in_help)}" \
		test -z "$not_in_help"
	check "$c: ... and accepted${not_taken:+ (not:$not_taken)}" test -z "$not_taken"
done

# What each command claims about its method, in words both texts use: a
# help that said "Welch" where the reference says paired would fail here.
claims() { # CMD PHRASE...: both the help and docs/commands.md say every PHRASE (case aside)
	local c=$1 p; shift
	for p in "$@"; do
		grep -qi -- "$p" "$T/h.$c" && grep -qi -- "$p" "$REF" || return 1
	done
}
check "compare: both say it is a paired t-test on log ratios" claims compare "paired" "t-test" "log ratios"
check "compare: both say the order is ABBA" claims compare "ABBA"
check "bisect: both say it finds improvements too" claims bisect "improvement"
check "bisect: both name the culprit's confirmation" claims bisect "culprit and the commit before it"
check "ci: both say the pairs are beside the baseline's newest commit" claims ci "baseline's newest commit"
check "report: both say one point per commit" claims report "one point per commit"
check "report: both say paired runs stay out unless --include-paired" claims report "include-paired"
for c in compare bisect ci; do
	if grep -qi "welch" "$T/h.$c"; then not_ok "$c --help does not say Welch (its test is paired)"; else ok "$c --help does not say Welch (its test is paired)"; fi
done

global_missing=
for o in $(grep -o -- '--[a-z][a-z0-9-]*' "$T/help" | sort -u); do
	grep -q -- "$o\b" "$T/ref.txt" || global_missing="$global_missing $o"
done
check "the global options are in docs/commands.md${global_missing:+ (missing:$global_missing)}" \
	test -z "$global_missing"

# The README names only options that exist: each is in the global help or
# in some command's help, or is --help, which every command took above
# (links' targets left out, as in the reference, pkg-config's own options
# in `$(pkg-config ...)`, and in a table row the other tools' commands, such
# as the result-format table's `go test -bench . -count N`: a code span
# whose first word is a program other than benchguard).
{ cat "$T/help" "$T"/h.*; echo "--help"; } >"$T/allhelp"
readme_unknown=
for o in $(sed -e 's/](\([^)]*\))/]/g' -e 's/\$(pkg-config [^)]*)//g' \
	-e '/^|/s/`benchguard /`BG /g' -e '/^|/s/`\(\.\/\|[a-z]\)[^` ]* [^`]*`//g' "$README" | grep -o -- '--[a-z][a-z0-9-]*' | sort -u); do
	grep -q -- "$o\b" "$T/allhelp" || readme_unknown="$readme_unknown $o"
done
check "every option the README names is in some help${readme_unknown:+ (not:$readme_unknown)}" \
	test -z "$readme_unknown"
check "... and it names some (the global ones at least)" \
	bash -c "grep -q -- '--db' '$README' && grep -q -- '--config' '$README'"
finish
