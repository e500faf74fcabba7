#!/usr/bin/env bash
# tests/fuzz/run.sh BUILD SECONDS HARNESS... -- what `make fuzz` runs: each
# harness's libFuzzer binary (BUILD/fuzz/fuzz_<h>) for SECONDS, starting from
# tests/fuzz/corpus/<h>/.  New inputs land in a scratch corpus under BUILD
# and only those that add coverage are merged back into the stored corpus,
# so it stays small; crashes, leaks, hangs and out-of-memory inputs are
# written to tests/fuzz/crashes/<h>/ and fuzzing goes on (fork mode), one
# file per distinct failure (fork mode writes every input that failed: a
# bug that is easy to hit would leave hundreds).  Exit 1 when any harness
# left a new file in crashes/.
set -u
build=$1 seconds=$2
shift 2
root=$(cd "$(dirname "$0")/../.." && pwd)
cd "$root" || exit 2
failed=()

# What failed, as a line that is the same for every input hitting the same
# bug: the harness's check (file:line), else the sanitizer's summary and the
# first frame in the library, else libFuzzer's own verdict (timeout, OOM).
signature() { # binary file
	"$1" -runs=1 -timeout=10 -rss_limit_mb=2048 -malloc_limit_mb=1024 "$2" 2>&1 | awk '
		/^fuzz: / { split($2, a, ":"); print "check " a[1] ":" a[2]; done = 1; exit }
		/ in [A-Za-z_0-9]+ .*\/lib\/[a-z_]+\.c/ && !frame { frame = $4 }
		/^SUMMARY: / { sub(/[0-9]+ byte\(s\) leaked in [0-9]+ allocation\(s\)\./, "leak"); sum = $0 }
		/ERROR: libFuzzer: (timeout|out-of-memory|deadly signal)/ && !lf { lf = $0; sub(/.*ERROR: /, "", lf) }
		END { if (!done) print (sum ? sum : lf) " " frame }'
}

# Inputs are capped per harness: results files can be long, names are short.
max_len() {
	case $1 in
	text | lines) echo 4096 ;;
	config | baseline) echo 8192 ;;
	*) echo 16384 ;;
	esac
}

for h in "$@"; do
	bin=$build/fuzz/fuzz_$h corpus=tests/fuzz/corpus/$h crashes=tests/fuzz/crashes/$h
	work=$build/fuzz/corpus-$h
	dict=tests/fuzz/$h.dict
	mkdir -p "$corpus" "$crashes" "$work"
	old=$(ls "$crashes" | tr '\n' ' ')
	before=$(ls "$crashes" | wc -l)
	opts=(-max_len="$(max_len "$h")" -timeout=10 -rss_limit_mb=2048 -malloc_limit_mb=1024
		-artifact_prefix="$crashes/" -print_final_stats=1)
	[ -f "$dict" ] && opts+=(-dict="$dict")
	echo "fuzz: $h for ${seconds}s"
	# Fork mode goes on after a crash, a leak, a timeout or an OOM.
	"$bin" "${opts[@]}" -fork=1 -ignore_crashes=1 -ignore_timeouts=1 -ignore_ooms=1 \
		-max_total_time="$seconds" "$work" "$corpus" >"$build/fuzz/$h.log" 2>&1
	grep -aE '^#[0-9]+: cov' "$build/fuzz/$h.log" | tail -n 1
	# Only what adds coverage to the stored corpus joins it.
	"$bin" "${opts[@]}" -merge=1 "$corpus" "$work" >>"$build/fuzz/$h.log" 2>&1
	# One file per distinct failure, known ones (named or not) included.
	declare -A seen=()
	new=0
	for f in "$crashes"/*; do
		[ -f "$f" ] || continue
		case " $old " in *" ${f##*/} "*) ;; *) continue ;; esac
		seen[$(signature "$bin" "$f")]=1
	done
	for f in "$crashes"/*; do
		[ -f "$f" ] || continue
		case " $old " in *" ${f##*/} "*) continue ;; esac
		sig=$(signature "$bin" "$f")
		if [ -n "${seen[$sig]:-}" ]; then
			rm -f "$f"
		else
			seen[$sig]=1
			new=$((new + 1))
			echo "fuzz: $h: new: $f: $sig"
		fi
	done
	unset seen
	after=$((before + new))
	echo "fuzz: $h: corpus $(ls "$corpus" | wc -l) inputs, $((after - before)) new in $crashes"
	[ "$after" -eq "$before" ] || failed+=("$h")
done
if [ ${#failed[@]} -gt 0 ]; then
	echo "fuzz: new crashes for: ${failed[*]} (tests/fuzz/README.md says what to do)"
	exit 1
fi
echo "fuzz: no new crash"
