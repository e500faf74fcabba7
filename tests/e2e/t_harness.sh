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
	if (bgh_run(&o, work, NULL))
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

finish
