# t_harness.sh -- benchguard_harness.h and benchguard_region.h as a user's
# benchmark program includes them, without benchguard itself: they compile
# cleanly as C and as C++ under strict warnings, and bgh_run's counts hold
# whatever the numbers it is given.  Needs a C compiler; the C++ checks are
# skipped where there is no C++ compiler.
. "$(dirname "$0")/lib.sh"
ROOT=${BG_ROOT:?run through tests/run.sh}
CC=${CC:-cc}
CXX_BIN=$(command -v c++ 2>/dev/null || command -v g++ 2>/dev/null || true)

# A program that counts its calls and stops, successfully, at `stop` calls:
# the warm-up and the samples of a huge count need not run to the end.
cat >"$T/count.c" <<'C'
#include "benchguard_harness.h"
static long calls, stop;
static void work(void *arg)
{
	(void)arg;
	if (++calls == stop) {
		printf("stopped after %ld calls\n", calls);
		exit(0);
	}
}
int main(int argc, char **argv)
{
	bgh_opts o = bgh_opts_default("count");
	o.iters = argc > 1 ? atoi(argv[1]) : 1;
	stop = argc > 2 ? atol(argv[2]) : -1;
	if (bgh_run(&o, work, &stop))
		return 1;
	printf("calls %ld\n", calls);
	return 0;
}
C

# 1. Warm-up samples times calls per sample beyond INT_MAX: the warm-up
# runs (the first million calls are made) and no signed int overflows.
if "$CC" -std=c11 -O1 -fsanitize=signed-integer-overflow -fno-sanitize-recover=all \
	-I"$ROOT/lib" -o "$T/count_ub" "$T/count.c" 2>"$T/cc.err"; then
	BENCHGUARD_WARMUP=3 BENCHGUARD_SAMPLES=1 "$T/count_ub" 1073741824 1000000 >"$T/out" 2>"$T/err"
	check "warm-up x iters past INT_MAX: no overflow, the warm-up runs" \
		grep -qx 'stopped after 1000000 calls' "$T/out"
	sed 's/^/# /' "$T/err" | head -5
else
	skip "warm-up x iters past INT_MAX" "skipped: $CC has no -fsanitize=signed-integer-overflow"
fi

# 2. Both headers compile without a warning under the strict flags a
# project may build its benchmarks with: C99 and C11 with -pedantic, and
# C++ (a benchmark is often C++) with -Wold-style-cast and the conversion
# warnings besides.
cat >"$T/region.c" <<'C'
#include "benchguard_region.h"
int main(void)
{
	bg_region_begin();
	bg_region_end();
	return 0;
}
C
STRICT="-Wall -Wextra -Werror -pedantic -Wconversion -Wsign-conversion -Wshadow -Wcast-qual -Wdouble-promotion"
for std in c99 c11; do
	for f in count region; do
		check "$f.c compiles as -std=$std with $STRICT" \
			"$CC" -std=$std $STRICT -Wstrict-prototypes -I"$ROOT/lib" -fsyntax-only "$T/$f.c"
	done
done
if [ -n "$CXX_BIN" ]; then
	for f in count region; do
		"$CXX_BIN" -std=c++11 $STRICT -Wold-style-cast -Wzero-as-null-pointer-constant -x c++ \
			-I"$ROOT/lib" -fsyntax-only "$T/$f.c" >"$T/cxx.out" 2>&1
		check "$f.c compiles as C++11 with -Wold-style-cast -Wzero-as-null-pointer-constant" \
			test $? -eq 0
		sed 's/^/# /' "$T/cxx.out" | head -5
	done
else
	skip "the headers compile as C++" "skipped: no C++ compiler"
fi

# 3. A label that would not come back as one series name is refused before
# anything runs: blanks (a carriage return splits the line for benchguard,
# as a space does), other control characters, and ':'.
cat >"$T/label.c" <<'C'
#include "benchguard_harness.h"
static void work(void *arg) { (void)arg; }
int main(int argc, char **argv)
{
	bgh_opts o = bgh_opts_default(argc > 1 ? argv[1] : "");
	return bgh_run(&o, work, argv) ? 1 : 0;
}
C
"$CC" -std=c11 -I"$ROOT/lib" -o "$T/label" "$T/label.c"
for label in 'a b' $'a\rb' $'a\tb' $'a\x01b' $'a\x7fb' 'a:b' ''; do
	q=$(printf '%q' "$label")
	BENCHGUARD_SAMPLES=1 "$T/label" "$label" >"$T/out" 2>"$T/err"
	check "label $q: refused (exit 1, nothing printed, one sentence)" \
		test $? -eq 1 -a ! -s "$T/out" -a "$(wc -l <"$T/err")" -eq 1
done
BENCHGUARD_SAMPLES=1 "$T/label" 'sort/1M-é_x.y' >"$T/out" 2>"$T/err"
check "label with '/', '-', '.', '_' and UTF-8: accepted" grep -q '^BENCHGUARD sort/1M-é_x.y/time ' "$T/out"

# 3a. The harness and benchguard's reader agree on every label: one the
# harness passes is stored, one it refuses benchguard would refuse (the
# harness passed a C1 control, a bidi override, bytes that are no UTF-8,
# U+FFFD and labels too long, and every run of such a benchmark failed;
# then benchguard began to refuse characters that show nothing, U+200B,
# U+FEFF, U+FE0F and the like, and the harness with it).
# Each label is tried as "<label>/throughput", the longest series printed.
new_repo "$T/lbl" >/dev/null
long1013=$(printf 'a%.0s' $(seq 1013))
for label in $'a\xc2\x85b' $'a\xe2\x80\xaeb' $'a\xe2\x80\xa8b' $'a\xe2\x81\xa6b' $'a\xd8\x9cb' \
	$'a\xffb' $'a\xc3' $'a\xc0\xafb' $'a\xed\xa0\x80b' $'a\xf4\x90\x80\x80b' $'a\xef\xbf\xbdb' \
	"${long1013}b" "$long1013" 'é' $'\xe4\xb8\xad\xe6\x96\x87' $'\xf0\x9f\x9a\x80' $'a\xc2\xa0b' \
	$'a\xef\xbb\xbfb' $'a\xe2\x80\x8bb' $'a\xc2\xadb' $'\xe2\x9d\xa4\xef\xb8\x8f' \
	$'a\xf3\xa0\x81\x81b' $'a\xef\xb7\x90b' $'a\xe2\x81\xa0b' 'a b' 'a:b'; do
	q=$(LC_ALL=C printf '%q' "$label") # bytes past ASCII as escapes, not shown
	[ ${#q} -gt 60 ] && q="a label of $(printf '%s' "$label" | wc -c) bytes"
	BENCHGUARD_SAMPLES=1 "$T/label" "$label" >"$T/out" 2>"$T/err"
	h=$?
	printf 'BENCHGUARD %s/throughput 1 GFLOP/s\n' "$label" >"$T/line"
	(cd "$T/lbl" && "$BG" --db "$T/lbl.db" import "$T/line" --format lines --name x) >/dev/null 2>"$T/ierr"
	i=$?
	if [ "$h" = 0 ]; then
		check "label $q: the harness passes it and benchguard stores it (import exit $i)" \
			test "$i" = 0 -a ! -s "$T/err"
	else
		check "label $q: the harness refuses it in one sentence, as benchguard does (import exit $i)" \
			test "$h" = 1 -a "$i" = 2 -a ! -s "$T/out" -a "$(wc -l <"$T/err")" -eq 1
	fi
done

# 3b. A count from the environment that is none is named on stderr and
# the default used, as for "abc": BENCHGUARD_SAMPLES=0 too, which would
# print nothing, and benchguard would find no series with no word of why.
# BENCHGUARD_WARMUP=0 is a count: no warm-up.
for v in 0 -1 abc; do
	BENCHGUARD_WARMUP=0 BENCHGUARD_SAMPLES=$v "$T/label" z >"$T/out" 2>"$T/err"
	check "BENCHGUARD_SAMPLES=$v: exit 0 with the 10 samples of the default" \
		test $? -eq 0 -a "$(grep -c '^BENCHGUARD z/time ' "$T/out")" -eq 10
	check "... and one line on stderr naming the variable" \
		test "$(grep -c "^benchguard harness: BENCHGUARD_SAMPLES=\"$v\" is not a count.*; using 10\$" "$T/err")" -eq 1 -a "$(wc -l <"$T/err")" -eq 1
done
BENCHGUARD_WARMUP=0 BENCHGUARD_SAMPLES=2 "$T/label" z >"$T/out" 2>"$T/err"
check "BENCHGUARD_WARMUP=0 BENCHGUARD_SAMPLES=2: 2 samples, nothing on stderr" \
	test "$(grep -c '^BENCHGUARD z/time ' "$T/out")" -eq 2 -a ! -s "$T/err"

# 3c. Counts the program sets itself are held to the same: o.samples of 0
# or less, or a negative o.warmup, is refused before anything runs (exit
# 1, nothing on stdout, one sentence naming the label), not a silent run
# that prints nothing.
cat >"$T/counts.c" <<'C'
#include "benchguard_harness.h"
static long calls;
static void work(void *arg) { (void)arg; calls++; }
int main(int argc, char **argv)
{
	bgh_opts o = bgh_opts_default("counts");
	o.samples = atoi(argv[1]);
	o.warmup = atoi(argv[2]);
	if (bgh_run(&o, work, argv))
		return calls ? 3 : 1;
	return 0;
}
C
"$CC" -std=c11 -I"$ROOT/lib" -o "$T/counts" "$T/counts.c"
for sw in "0 0" "-1 1" "1 -1"; do
	"$T/counts" $sw >"$T/out" 2>"$T/err"
	check "o.samples/o.warmup $sw: refused before a call (exit 1, nothing printed)" \
		test $? -eq 1 -a ! -s "$T/out"
	check "... one sentence naming the label and the counts" \
		test "$(grep -c "^benchguard harness: counts: ${sw% *} samples after ${sw#* } warm-up; a run needs" "$T/err")" -eq 1 -a "$(wc -l <"$T/err")" -eq 1
done
"$T/counts" 2 0 >"$T/out" 2>"$T/err"
check "o.samples 2, o.warmup 0: 2 samples, nothing on stderr" \
	test "$(grep -c '^BENCHGUARD counts/time ' "$T/out")" -eq 2 -a ! -s "$T/err"

# 4. Sample times keep their nanoseconds whatever the clock reads.  A C11
# program that includes a system header first gets no CLOCK_MONOTONIC and
# the harness falls back to timespec_get(TIME_UTC), some 1.8e9 s: as one
# double, a reading is a multiple of 2^-22 s (238 ns), and so was every
# sample time, most of them 0.  Times of one call are multiples of 1 ns,
# not of 2^-22 s (%.9g prints them to 1e-3 of that step).
cat >"$T/utc.c" <<'C'
#include <stdio.h>
#include "benchguard_harness.h"
static volatile int sink;
static void work(void *arg) { (void)arg; sink++; }
int main(void)
{
	bgh_opts o = bgh_opts_default("utc");
	return bgh_run(&o, work, &o) ? 1 : 0;
}
C
"$CC" -std=c11 -I"$ROOT/lib" -o "$T/utc" "$T/utc.c"
BENCHGUARD_WARMUP=0 BENCHGUARD_SAMPLES=50 "$T/utc" >"$T/utc.out"
check "with the C11 clock, sample times are not rounded to 238 ns" python3 -c '
import sys
t = [float(l.split()[2]) for l in open(sys.argv[1])]
assert len(t) == 50, t
odd = [x for x in t if x > 0 and abs(x * 2**22 - round(x * 2**22)) > 1e-3]
assert odd, t' "$T/utc.out"

finish
