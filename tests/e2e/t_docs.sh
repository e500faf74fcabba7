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
#     every option the README names is one some help names;
#   - docs/configuration.md's key table names every key the loader takes
#     and no other, its defaults are accepted, and those a run and a report
#     show are the ones used.
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
	# Its usage lines (up to the first blank line) name every option its
	# list below names: the list's lines that start "  -", up to two
	# spaces; "-o, --output FILE" are one option, "--no-fdr / --fdr" either
	# way of one, and "[run options]" stands for the "run options:" below.
	awk 'NR == 1, /^$/' "$T/h.$c" >"$T/use.$c"
	not_in_usage=
	while IFS= read -r head; do
		case $head in
		-[a-zA-Z],*) alts=("${head%%,*}" "$(echo "$head" | grep -o -- '--[a-z][a-z0-9-]*' | head -1)") ;;
		*) alts=() ;;
		esac
		if [ ${#alts[@]} -gt 0 ]; then
			groups=("${alts[*]}")
		else
			mapfile -t groups < <(echo "$head" | sed 's/, /\n/g' | grep -- '--' |
				while IFS= read -r item; do echo "$item" | grep -o -- '--[a-z][a-z0-9-]*' | tr '\n' ' '; echo; done)
		fi
		for g in "${groups[@]}"; do
			named=
			for o in $g; do
				grep -qE -- "(^|[^a-z-])$o\b([^-]|\$)" "$T/use.$c" && named=1
			done
			[ -n "$named" ] || not_in_usage="$not_in_usage ${g%% *}"
		done
	done < <(grep -E '^  -' "$T/h.$c" | sed -E 's/^  //; s/  .*//')
	for g in $(grep -oE '^  [a-z]+ options:' "$T/h.$c" | awk '{ print $1 }'); do
		grep -q "\[$g options\]" "$T/use.$c" || not_in_usage="$not_in_usage [$g options]"
	done
	check "$c: its usage line names every option its help lists${not_in_usage:+ (missing:$not_in_usage)}" \
		test -z "$not_in_usage"
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
# The configuration keys (docs/configuration.md, "## Keys"), against the
# loader's key lists in lib/config.c: every key the loader takes is named in
# the row of the object that holds it, every row is a top-level key the
# loader takes and every top-level key has a row; each key the table shows
# with a JSON default, as "`key` (VALUE)", is accepted where the table puts
# it, and the defaults a run and a report can show are the documented ones.
CONF="$BG_ROOT/docs/configuration.md"
/usr/bin/python3 - "$CONF" "$BG_ROOT/lib/config.c" "$T/keys" >"$T/keys.problems" <<'PY'
import json, re, sys
conf, src, out = sys.argv[1:]
text = open(conf, encoding="utf-8").read()
keys = text.split("\n## Keys\n", 1)[1].split("\n## ", 1)[0]
rows = {}
for line in keys.splitlines():
    m = re.match(r"\| `([a-z_]+)(\[\])?` \| (.*) \|$", line)
    if m:
        rows[m.group(1)] = m.group(3)
lists = {m.group(1): re.findall(r'"([^"]+)"', m.group(2)) for m in re.finditer(
    r"static const char \*const (\w+)_keys\[\] = \{([^}]*)\}", open(src).read())}
# Where each of the loader's lists is documented: the row of its object.
where = {"baseline": "baseline", "threshold": "thresholds", "threshold_metric": "thresholds",
         "confirm": "confirm", "defaults": "defaults", "counters": "defaults",
         "bench": "benchmarks", "metric": "benchmarks", "alert": "alerts"}
if "root" not in lists or len(lists) < 5:
    print("lib/config.c: the key lists (static const char *const X_keys[]) are not found")
for name, ks in sorted(lists.items()):
    if name == "root":
        for k in ks:
            if k not in rows:
                print(f"top-level key {k!r} has no row")
        for r in rows:
            if r not in ks:
                print(f"row {r!r} is not a key the loader takes")
        continue
    if name not in where:
        print(f"lib/config.c: {name}_keys: tell t_docs.sh which row documents it")
        continue
    for k in ks:
        # `key`, or "key" inside a JSON value of the row ({"events": [...]})
        if f"`{k}`" not in rows.get(where[name], "") and f'"{k}"' not in rows.get(where[name], ""):
            print(f"{where[name]}: key {k!r} is not in its row")
with open(out, "w") as f:
    for r, meaning in rows.items():
        for k, v in re.findall(r"`([a-z_]+)`(?: in [a-z]+)? \(([^()]*)\)", meaning):
            try:
                value = json.loads(v.replace("`", ""))
            except ValueError:
                continue
            f.write(f"{r}\t{k}\t{json.dumps(value)}\n")
PY
check "configuration.md names every key the loader takes, and no other$(sed 's/^/; /' "$T/keys.problems" | tr -d '\n')" \
	test ! -s "$T/keys.problems"
check "... and shows some defaults" test "$(wc -l <"$T/keys" 2>/dev/null || echo 0)" -ge 10

new_repo "$T/cfg" >/dev/null && cd "$T/cfg" || exit 1
export BENCHGUARD_DB="$T/cfg.db"
bench='{ "name": "env", "format": "lines", "command": "echo BENCHGUARD warmup $BENCHGUARD_WARMUP n; echo BENCHGUARD samples $BENCHGUARD_SAMPLES n" }'
echo "{ \"benchmarks\": [ $bench ] }" >"$T/env.json"
"$BG" -q --config "$T/env.json" run >/dev/null 2>"$T/env.err"
check "a suite without settings runs" test ! -s "$T/env.err"
refused=
while IFS=$'\t' read -r row key value; do
	case $row in
	benchmarks) cfg="{ \"benchmarks\": [ { \"name\": \"x\", \"command\": \"true\", \"$key\": $value } ] }" ;;
	alerts) cfg="{ \"benchmarks\": [ $bench ], \"alerts\": [ { \"kind\": \"webhook\", \"url\": \"https://example.invalid/h\", \"$key\": $value } ] }" ;;
	*) cfg="{ \"benchmarks\": [ $bench ], \"$row\": { \"$key\": $value } }" ;;
	esac
	echo "$cfg" >"$T/one.json"
	"$BG" --config "$T/one.json" report --format json >/dev/null 2>"$T/one.err" ||
		refused="$refused $row.$key=$value ($(head -1 "$T/one.err"))"
done <"$T/keys"
check "every key the table shows with a default is accepted with it${refused:+ (not:$refused)}" \
	test -z "$refused"
# What a run and a report show without settings: the defaults as used.
"$BG" --config "$T/env.json" --json history env >"$T/env.hist" 2>&1
"$BG" --config "$T/env.json" report --format json >"$T/env.report" 2>&1
differ=$(/usr/bin/python3 - "$T/keys" "$T/env.hist" "$T/env.report" <<'PY'
import json, sys
documented = {}
for line in open(sys.argv[1]):
    row, key, value = line.rstrip("\n").split("\t")
    documented[(row, key)] = json.loads(value)
hist = json.load(open(sys.argv[2]))
rows = hist if isinstance(hist, list) else hist.get("rows", hist.get("runs", []))
used = {("defaults", r["series"].split(":")[1]): r["mean"] for r in rows}
rep = json.load(open(sys.argv[3]))
th = rep["thresholds"]
used[("baseline", "branch")] = rep["branch"]
for k in ("window", "min_runs"):
    used[("baseline", k)] = th[k]
for k in ("alpha", "fdr", "min_change", "min_effect"):
    used[("thresholds", k)] = th[k]
bad = [f"{row}.{key}: documented {want!r}, used {used[(row, key)]!r}"
       for (row, key), want in sorted(documented.items())
       if (row, key) in used and used[(row, key)] != want]
missing = [f"{r}.{k}" for r, k in used if (r, k) not in documented]
if missing:
    bad.append("not shown with a default: " + ", ".join(missing))
print("; ".join(bad))
PY
)
check "the documented defaults are the ones used${differ:+ ($differ)}" test -z "$differ"
finish
