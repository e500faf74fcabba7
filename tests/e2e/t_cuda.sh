# t_cuda.sh -- the CUDA side of benchguard on whatever machine runs it:
# the CUDA examples compile with nvcc (when there is one), the CUDA suite
# is skipped with its reason on a machine without a GPU and exits 0 (and
# runs and produces its series on one with a GPU), the harness header
# drives a C program through `benchguard run`, the fingerprint is the same
# from process to process, and `check` warns about a run stored with a
# throttling GPU.
. "$(dirname "$0")/lib.sh"
ROOT=${BG_ROOT:?run through tests/run.sh}

NVCC=$(command -v nvcc 2>/dev/null || { test -x /usr/local/cuda/bin/nvcc && echo /usr/local/cuda/bin/nvcc; })

# Does this machine have a GPU?  benchguard's own `requires: cuda` check says.
new_repo "$T/probe" >/dev/null
cat >"$T/probe/benchguard.json" <<'J'
{ "benchmarks": [ { "name": "gpu", "command": "true", "requires": ["cuda"] } ] }
J
(cd "$T/probe" && "$BG" --json run --no-build --samples 1 --warmup 0 >"$T/probe.json" 2>/dev/null)
GPU=$(python3 -c 'import json,sys; print(int(json.load(open(sys.argv[1]))["runs"][0]["outcomes"][0]["status"] == "ok"))' "$T/probe.json" 2>/dev/null || echo 0)
echo "# nvcc: ${NVCC:-none}; GPU: $GPU"

# A repository holding the CUDA examples and the harness they include.
new_repo "$T/r" >/dev/null
mkdir -p "$T/r/examples/cuda" "$T/r/lib"
cp "$ROOT"/examples/cuda/*.cu "$ROOT"/examples/cuda/Makefile "$ROOT"/examples/cuda/benchguard.json \
	"$T/r/examples/cuda/"
cp "$ROOT/lib/benchguard_harness.h" "$ROOT/lib/benchguard_region.h" "$T/r/lib/"
printf 'examples/cuda/saxpy\nexamples/cuda/reduce\nexamples/cuda/sgemm\n.benchguard/\n' >"$T/r/.gitignore"
git -C "$T/r" add -A && git -C "$T/r" commit -qm "CUDA examples"
cd "$T/r" || exit 1

# 1. The examples compile (every architecture the Makefile names).
if [ -n "$NVCC" ]; then
	if make -s -C examples/cuda NVCC="$NVCC" >"$T/nvcc.out" 2>&1; then
		ok "the CUDA examples compile with $NVCC"
	else
		not_ok "the CUDA examples compile with $NVCC"
		sed 's/^/# /' "$T/nvcc.out" | tail -30
	fi
	check "... into saxpy, reduce and sgemm" test -x examples/cuda/saxpy -a -x examples/cuda/reduce \
		-a -x examples/cuda/sgemm
	# Compiler output only: make's own notes (e.g. clock skew on a loaded
	# machine) are not warnings about the code.
	grep -v '^make\(\[[0-9]*\]\)\?: ' "$T/nvcc.out" >"$T/nvcc.warn"
	sed 's/^/# nvcc: /' "$T/nvcc.out" | head -20
	check "... with no warnings" test ! -s "$T/nvcc.warn"
else
	skip "the CUDA examples compile" "skipped: nvcc not found"
	check "without nvcc, make in examples/cuda says so and succeeds" \
		bash -c "make -s -C examples/cuda NVCC= | grep -q 'skipped (nvcc not found)'"
fi

# 2. The CUDA suite through `benchguard run`.
run_suite() {
	"$BG" --json --config examples/cuda/benchguard.json run --samples 3 --warmup 1 >"$T/suite.json" 2>"$T/suite.err"
}
if [ "$GPU" = 0 ]; then
	check "without a GPU the CUDA suite runs and exits 0" expect_rc 0 run_suite
	check "... every CUDA benchmark skipped with the reason, no series" python3 - "$T/suite.json" <<'P'
import json, sys
run = json.load(open(sys.argv[1]))["runs"][0]
o = {x["benchmark"]: x for x in run["outcomes"]}
assert sorted(o) == ["reduce", "saxpy", "sgemm"], o
for b in o.values():
    assert b["status"] == "skipped", b
    assert "CUDA" in b["message"], b
assert run["results"] == [], run["results"]
P
	check "... and said on stderr" grep -q "saxpy: skipped: no CUDA" "$T/suite.err"
	skip "the CUDA suite produces its series" "skipped: no GPU"
elif [ -z "$NVCC" ]; then
	skip "the CUDA suite produces its series" "skipped: nvcc not found (a GPU is present)"
else
	check "with a GPU the CUDA suite runs and exits 0" expect_rc 0 run_suite
	check "... and every series has its 3 samples, rates higher-is-better" python3 - "$T/suite.json" <<'P'
import json, sys
run = json.load(open(sys.argv[1]))["runs"][0]
assert all(x["status"] == "ok" for x in run["outcomes"]), run["outcomes"]
r = {x["series"]: x for x in run["results"]}
want = {"saxpy:saxpy/time": "s", "saxpy:saxpy/bandwidth": "GB/s", "saxpy:saxpy/throughput": "GFLOP/s",
        "saxpy:memcpy_d2d/bandwidth": "GB/s", "reduce:reduce/bandwidth": "GB/s",
        "sgemm:sgemm/throughput": "GFLOP/s", "sgemm:sgemm/time": "s"}
for name, unit in want.items():
    assert name in r, (name, sorted(r))
    assert r[name]["unit"] == unit and r[name]["n"] == 3 and r[name]["mean"] > 0, r[name]
    assert r[name]["direction"] == ("lower" if unit == "s" else "higher"), r[name]
P
	check "... and the fingerprint names the GPU" bash -c "\"$BG\" fingerprint --json | grep -q gpu0_name"
fi

# 3. The harness header in a C program, through `benchguard run`.
cat >"$T/prog.c" <<'C'
#include "benchguard_harness.h"
static long calls;
static void spin(void *arg)
{
	volatile double x = 1.0;
	int i, n = *(int *)arg;
	for (i = 0; i < n; i++)
		x = x * 1.0000001;
	calls++;
}
int main(int argc, char **argv)
{
	int n = 20000;
	bgh_opts o = bgh_opts_default("spin");
	FILE *f;
	o.iters = 5;
	o.bytes = 8.0 * n;
	o.flops = (double)n;
	if (bgh_run(&o, spin, &n))
		return 1;
	/* How many calls the harness made, for the test to compare. */
	if (argc > 1 && (f = fopen(argv[1], "w"))) {
		fprintf(f, "%ld\n", calls);
		fclose(f);
	}
	return 0;
}
C
if cc -std=c11 -O2 -Wall -Wextra -Wpedantic -Werror -I"$ROOT/lib" -o "$T/prog" "$T/prog.c" 2>"$T/cc.err"; then
	ok "a C program using benchguard_harness.h compiles with -std=c11 -Wpedantic -Werror"
else
	not_ok "a C program using benchguard_harness.h compiles"; sed 's/^/# /' "$T/cc.err"
fi
check "... and as C++" bash -c "c++ -std=c++11 -fsyntax-only -Wall -Wextra -pedantic -Werror -x c++ -I\"$ROOT/lib\" \"$T/prog.c\""
cat >"$T/harness.json" <<J
{ "benchmarks": [ { "name": "prog", "command": "$T/prog $T/calls", "format": "lines" } ] }
J
check "benchguard run parses the harness's lines" expect_rc 0 \
	"$BG" --json --config "$T/harness.json" run --no-build --samples 4 --warmup 2
cp "$T/out" "$T/harness.out"
check "... 4 samples of time, bandwidth and throughput, with their units and directions" \
	python3 - "$T/harness.out" <<'P'
import json, sys
r = {x["series"]: x for x in json.load(open(sys.argv[1]))["runs"][0]["results"]}
assert sorted(r) == ["prog:spin/bandwidth", "prog:spin/throughput", "prog:spin/time"], sorted(r)
t, bw, fl = r["prog:spin/time"], r["prog:spin/bandwidth"], r["prog:spin/throughput"]
assert (t["unit"], t["direction"], t["n"]) == ("s", "lower", 4), t
assert (bw["unit"], bw["direction"], bw["n"]) == ("GB/s", "higher", 4), bw
assert (fl["unit"], fl["direction"], fl["n"]) == ("GFLOP/s", "higher", 4), fl
# bytes = 8 n and flops = n per call: the rates are those over the mean time.
assert 0 < t["min"] and t["max"] < 1, t
assert abs(bw["mean"] / fl["mean"] - 8) < 1e-3, (bw["mean"], fl["mean"])
P
check "... honouring BENCHGUARD_WARMUP and BENCHGUARD_SAMPLES: (2 + 4) x 5 calls" \
	test "$(cat "$T/calls" 2>/dev/null)" = 30
check "run by hand, it defaults to 10 samples" bash -c \
	"env -u BENCHGUARD_SAMPLES -u BENCHGUARD_WARMUP \"$T/prog\" | grep -c '^BENCHGUARD spin/time ' | grep -qx 10"

# 4. The fingerprint is the same from process to process.
a=$("$BG" fingerprint --json | python3 -c 'import json,sys; print(json.load(sys.stdin)["fingerprint"])')
b=$("$BG" fingerprint --json | python3 -c 'import json,sys; print(json.load(sys.stdin)["fingerprint"])')
check "the fingerprint is the same in two processes ($a)" test -n "$a" -a "$a" = "$b"

# 5. `check` warns about a run whose stored GPU facts show throttling.
id=$(sqlite3 .benchguard/results.db 'SELECT max(id) FROM runs')
sqlite3 .benchguard/results.db "INSERT OR REPLACE INTO run_facts VALUES ($id, 'gpu0_throttle', 'gpu_idle,sw_power_cap,hw_slowdown')"
check "check warns about a run stored with a throttling GPU" expect_rc 0 \
	"$BG" --config "$T/harness.json" check --run "$id"
check "... naming the GPU and the reasons" \
	grep -Eq "warning: run $id: GPU throttling: GPU 0( \([^)]*\))?: sw power cap, hw slowdown" "$T/err"
sqlite3 .benchguard/results.db "INSERT OR REPLACE INTO run_facts VALUES ($id, 'gpu0_throttle', 'gpu_idle')"
"$BG" --config "$T/harness.json" check --run "$id" >/dev/null 2>"$T/err"
check "... and not about an idle one" bash -c "! grep -q 'GPU throttling' \"$T/err\""
# A driver upgraded without a reboot: NVML and the CUDA driver answer
# "version mismatch", no GPU is described, and the fingerprint falls back to
# the CPU-only one.  That is said, once, with the reason; a machine without
# NVIDIA's libraries (or with no GPU) hears nothing.  NVIDIA's libraries are
# played by tests/unit/fake_gpu.c under their names.
F="$T/fakegpu" && mkdir -p "$F"
cp "${BG_BUILD:?}/tests/libfakegpu.so" "$F/libnvidia-ml.so.1"
cp "$BG_BUILD/tests/libfakegpu.so" "$F/libcuda.so.1"
fp_of() { "$BG" fingerprint --json 2>"$T/fp.err" | python3 -c 'import json,sys; print(json.load(sys.stdin)["fingerprint"])'; }
cpu_fp=$(fp_of)
gpu_fp=$(LD_LIBRARY_PATH=$F fp_of)
check "two fake GPUs make another fingerprint, nothing said" bash -c "
	[ '$gpu_fp' != '$cpu_fp' ] && [ ! -s '$T/fp.err' ]"
check "NVML and CUDA in version mismatch: the CPU-only fingerprint, and a warning saying why" bash -c "
	[ \"\$(LD_LIBRARY_PATH='$F' FAKE_GPU_NVML_FAIL=18 FAKE_GPU_CUDA_FAIL=803 \"$BG\" fingerprint --json 2>'$T/mm.err' |
		python3 -c 'import json,sys; print(json.load(sys.stdin)[\"fingerprint\"])')\" = '$cpu_fp' ] &&
	[ \"\$(grep -c warning '$T/mm.err')\" = 1 ] &&
	grep -q 'warning: no CUDA device (CUDA driver error 803: driver/library version mismatch): this machine.s GPUs are left out of its facts, so its fingerprint is another machine.s' '$T/mm.err'"
check "... NVML alone in mismatch while CUDA describes the GPUs: their fingerprint, nothing said" bash -c "
	[ \"\$(LD_LIBRARY_PATH='$F' FAKE_GPU_NVML_FAIL=18 \"$BG\" fingerprint --json 2>'$T/mm.err' |
		python3 -c 'import json,sys; print(json.load(sys.stdin)[\"fingerprint\"])')\" = '$gpu_fp' ] && [ ! -s '$T/mm.err' ]"
check "... a driver that is not loaded and no CUDA device (a machine without a GPU): nothing said" bash -c "
	LD_LIBRARY_PATH='$F' FAKE_GPU_NVML_FAIL=1 FAKE_GPU_CUDA_COUNT=0 \"$BG\" fingerprint >/dev/null 2>'$T/mm.err' && [ ! -s '$T/mm.err' ]"

finish
