#!/usr/bin/env bash
# tests/gpu/acceptance.sh -- the GPU claims of docs/gpu.md in one go, on a machine
# with an NVIDIA GPU.  From the repository root:
#
#     tests/gpu/acceptance.sh            (outputs in a temp dir, or in $OUT if set)
#
#  1. builds benchguard (`make`) and the CUDA examples (nvcc), saying plainly
#     what is missing when either cannot be built;
#  2. runs examples/cuda/benchguard.json with `benchguard run --json` in a
#     scratch repository and database (20 samples after 3 warm-up per
#     benchmark) and reads the series back;
#  3. memory-bound check: saxpy/bandwidth against memcpy_d2d/bandwidth (a
#     device-to-device cudaMemcpy of the same traffic, same process, same
#     run); fails under 0.80;
#  4. timing check: the CUDA-event time of the saxpy kernel against
#     `ncu --metrics gpu__time_duration.sum` (when ncu exists and may
#     profile) and against the kernel's own %globaltimer span
#     (`saxpy --selfcheck`); fails when they differ by more than 5%;
#  5. runs the GPU side of the test suite (t_cuda, test_fingerprint);
#  6. prints a table, writes everything under $OUT, exits 0 only if all passed.
set -u
cd "$(dirname "$0")/../.." || exit 2
ROOT=$(pwd)
OUT=${OUT:-$(mktemp -d "${TMPDIR:-/tmp}/bg-gpu-acceptance.XXXXXX")}
mkdir -p "$OUT"
WORK=$(mktemp -d "${TMPDIR:-/tmp}/bg-gpu-work.XXXXXX")
trap 'rm -rf "$WORK"' EXIT
exec > >(tee "$OUT/acceptance.log") 2>&1
PY=python3
[ -x /usr/bin/python3 ] && PY=/usr/bin/python3
SAMPLES=${BG_ACCEPT_SAMPLES:-20}
WARMUP=${BG_ACCEPT_WARMUP:-3}
fails=0
results=() # "check|value|verdict"
note() { printf '== %s\n' "$*"; }
record() { results+=("$1|$2|$3"); [ "$3" = FAIL ] && fails=$((fails + 1)); return 0; }

note "machine"
uname -a
command -v nvidia-smi >/dev/null && nvidia-smi --query-gpu=name,driver_version,memory.total,clocks.sm,clocks.max.sm,temperature.gpu,power.draw,clocks_throttle_reasons.active --format=csv 2>&1 | tee "$OUT/nvidia-smi.csv"
NVCC=$(command -v nvcc 2>/dev/null || { test -x /usr/local/cuda/bin/nvcc && echo /usr/local/cuda/bin/nvcc; })
NCU=$(command -v ncu 2>/dev/null || { test -x /usr/local/cuda/bin/ncu && echo /usr/local/cuda/bin/ncu; } ||
	ls -d /opt/nvidia/nsight-compute/*/ncu 2>/dev/null | tail -n 1)
echo "nvcc: ${NVCC:-none}"
echo "ncu:  ${NCU:-none}"

# ------------------------------------------------------------- 1. build
note "building benchguard"
# BG_PREBUILT=1: build/release was built on a machine of the same OS and
# carried here (with its libraries on LD_LIBRARY_PATH), for GPU machines
# that lack the -dev packages.
if [ -n "${BG_PREBUILT:-}" ]; then
	[ -x build/release/benchguard ] || { echo "BG_PREBUILT set but build/release/benchguard is missing"; exit 2; }
	echo "using the prebuilt build/release"
else
missing=()
for tool in cc make pkg-config git; do command -v "$tool" >/dev/null || missing+=("$tool (program)"); done
if command -v pkg-config >/dev/null; then
	for pkg in libgit2 sqlite3 gsl json-c libcrypto; do
		pkg-config --exists "$pkg" || missing+=("$pkg (pkg-config; Debian: see DEB_PKGS in the Makefile)")
	done
fi
command -v "$PY" >/dev/null || missing+=("python3")
if [ ${#missing[@]} -gt 0 ]; then
	echo "benchguard cannot be built here; missing:"
	printf '  - %s\n' "${missing[@]}"
	echo "(the device machine has no network: install them into the image, or build elsewhere"
	echo " with the same OS and carry build/release)"
	exit 2
fi
if ! make -s -j"$(nproc)" >"$OUT/make.log" 2>&1; then
	echo "benchguard failed to build; the end of make's output:"
	tail -n 40 "$OUT/make.log"
	exit 2
fi
fi
BG=$ROOT/build/release/benchguard
echo "built $BG"
if [ -z "$NVCC" ]; then
	echo "nvcc not found (not on PATH, not /usr/local/cuda/bin/nvcc): the CUDA examples cannot be built"
	exit 2
fi

# ------------------------------------------------------------- 2. the suite
note "benchguard run of examples/cuda/benchguard.json ($SAMPLES samples, $WARMUP warm-up)"
export GIT_AUTHOR_NAME=acceptance GIT_AUTHOR_EMAIL=a@example.com
export GIT_COMMITTER_NAME=acceptance GIT_COMMITTER_EMAIL=a@example.com
R=$WORK/repo
mkdir -p "$R/examples/cuda" "$R/lib"
cp examples/cuda/*.cu examples/cuda/Makefile examples/cuda/benchguard.json "$R/examples/cuda/"
cp lib/benchguard_harness.h "$R/lib/"
printf 'examples/cuda/saxpy\nexamples/cuda/reduce\nexamples/cuda/sgemm\n' >"$R/.gitignore"
git -C "$R" init -q -b main && git -C "$R" add -A && git -C "$R" commit -qm "CUDA examples"
(cd "$R" && "$BG" --db "$WORK/results.db" --json --config examples/cuda/benchguard.json run \
	--samples "$SAMPLES" --warmup "$WARMUP") >"$OUT/run.json" 2>"$OUT/run.err"
rc=$?
cat "$OUT/run.err"
"$BG" fingerprint --json >"$OUT/fingerprint.json" 2>&1
if [ "$rc" -ne 0 ]; then
	record "benchguard run exits 0" "exit $rc" FAIL
else
	record "benchguard run exits 0" "exit 0" PASS
fi
if grep -q "GPU throttling" "$OUT/run.err"; then
	record "GPU not throttling during the run" "$(grep -m1 'GPU throttling' "$OUT/run.err" | sed 's/.*GPU throttling: //')" WARN
fi

# Series means and medians from the run, one "name mean median n unit" line each.
"$PY" - "$OUT/run.json" >"$OUT/series.txt" 2>&1 <<'P'
import json, sys
try:
    runs = json.load(open(sys.argv[1]))["runs"]
except Exception as e:
    sys.exit(f"no JSON from benchguard run: {e}")
for o in runs[0]["outcomes"]:
    if o["status"] != "ok":
        print(f"# {o['benchmark']}: {o['status']}: {o['message']}")
for r in runs[0]["results"]:
    print(r["series"], repr(r["mean"]), repr(r["median"]), r["n"], r["unit"])
P
cat "$OUT/series.txt"
get() { awk -v s="$1" -v f="$2" '$1 == s { print $f }' "$OUT/series.txt"; }

# ------------------------------------------------------------- 3. bandwidth
saxpy_bw=$(get saxpy:saxpy/bandwidth 3)
copy_bw=$(get saxpy:memcpy_d2d/bandwidth 3)
if [ -n "$saxpy_bw" ] && [ -n "$copy_bw" ]; then
	ratio=$("$PY" -c "print(f'{$saxpy_bw / $copy_bw:.3f}')")
	v=PASS
	"$PY" -c "import sys; sys.exit(0 if $saxpy_bw / $copy_bw >= 0.8 else 1)" || v=FAIL
	record "saxpy GB/s / cudaMemcpy D2D GB/s >= 0.80 (medians)" \
		"$(printf '%.1f / %.1f = %s' "$saxpy_bw" "$copy_bw" "$ratio")" "$v"
else
	record "saxpy and memcpy_d2d bandwidth measured" "missing (see run.err)" FAIL
fi

# ------------------------------------------------------------- 4. timing
note "saxpy --selfcheck (CUDA events vs the kernel's %globaltimer)"
SAXPY=$R/examples/cuda/saxpy
if [ -x "$SAXPY" ]; then
	BENCHGUARD_SAMPLES=$SAMPLES BENCHGUARD_WARMUP=$WARMUP "$SAXPY" --selfcheck >"$OUT/selfcheck.txt" 2>&1
	"$PY" - "$OUT/selfcheck.txt" >"$OUT/selfcheck.summary" <<'P'
import statistics, sys
v = {}
for line in open(sys.argv[1]):
    f = line.split()
    if len(f) == 4 and f[0] == "BENCHGUARD":
        v.setdefault(f[1], []).append(float(f[2]))
med = {k: statistics.median(x) for k, x in v.items()}
print(med.get("saxpy/time", 0), med.get("saxpy_globaltimer/event_time", 0), med.get("saxpy_globaltimer/time", 0))
P
	read -r ev_harness ev_inst gt <"$OUT/selfcheck.summary"
	if "$PY" -c "import sys; sys.exit(0 if $gt > 0 and $ev_inst > 0 else 1)"; then
		d=$("$PY" -c "print(f'{($ev_inst - $gt) / $gt * 100:+.2f}')")
		v=PASS
		"$PY" -c "import sys; sys.exit(0 if abs($ev_inst - $gt) <= 0.05 * $gt else 1)" || v=FAIL
		record "CUDA events vs kernel %globaltimer (same launches)" \
			"$(printf '%.2f us vs %.2f us (%s%%)' "$("$PY" -c "print($ev_inst*1e6)")" "$("$PY" -c "print($gt*1e6)")" "$d")" "$v"
		d=$("$PY" -c "print(f'{($ev_harness - $gt) / $gt * 100:+.2f}')")
		v=PASS
		"$PY" -c "import sys; sys.exit(0 if abs($ev_harness - $gt) <= 0.05 * $gt else 1)" || v=FAIL
		record "harness saxpy/time vs kernel %globaltimer" \
			"$(printf '%.2f us vs %.2f us (%s%%)' "$("$PY" -c "print($ev_harness*1e6)")" "$("$PY" -c "print($gt*1e6)")" "$d")" "$v"
	else
		record "saxpy --selfcheck" "no output (see selfcheck.txt)" FAIL
		tail -n 5 "$OUT/selfcheck.txt"
	fi
	if [ -n "$NCU" ]; then
		note "ncu gpu__time_duration.sum of saxpy_kernel (clocks and caches left alone)"
		BENCHGUARD_SAMPLES=10 BENCHGUARD_WARMUP=1 "$NCU" --metrics gpu__time_duration.sum \
			--clock-control none --cache-control none -k regex:saxpy_kernel --csv "$SAXPY" \
			>"$OUT/ncu.csv" 2>"$OUT/ncu.err"
		ncu_rc=$?
		ncu_s=$("$PY" - "$OUT/ncu.csv" <<'P'
import csv, statistics, sys
scale = {"nsecond": 1e-9, "usecond": 1e-6, "msecond": 1e-3, "second": 1.0,
         "ns": 1e-9, "us": 1e-6, "ms": 1e-3, "s": 1.0}
rows = [r for r in csv.reader(open(sys.argv[1])) if len(r) > 3]
head = next((r for r in rows if "Metric Name" in r), None)
if not head:
    sys.exit(1)
i_name, i_unit, i_val = head.index("Metric Name"), head.index("Metric Unit"), head.index("Metric Value")
v = [float(r[i_val].replace(",", "")) * scale.get(r[i_unit], float("nan"))
     for r in rows if r is not head and r[i_name] == "gpu__time_duration.sum"]
print(statistics.median(v) if v else "")
P
)
		if [ -n "$ncu_s" ]; then
			d=$("$PY" -c "print(f'{($ev_harness - $ncu_s) / $ncu_s * 100:+.2f}')")
			v=PASS
			"$PY" -c "import sys; sys.exit(0 if abs($ev_harness - $ncu_s) <= 0.05 * $ncu_s else 1)" || v=FAIL
			record "harness saxpy/time vs ncu gpu__time_duration" \
				"$(printf '%.2f us vs %.2f us (%s%%)' "$("$PY" -c "print($ev_harness*1e6)")" "$("$PY" -c "print($ncu_s*1e6)")" "$d")" "$v"
		else
			record "ncu gpu__time_duration" "ncu gave no figure (exit $ncu_rc; $(grep -m1 -o 'ERR_[A-Z_]*' "$OUT/ncu.err" "$OUT/ncu.csv" | head -n 1))" WARN
		fi
	else
		record "ncu gpu__time_duration" "ncu not found: %globaltimer used instead" WARN
	fi
else
	record "saxpy built by the run" "missing: $SAXPY" FAIL
fi

# ------------------------------------------------------------- 5. tests
note "GPU side of the test suite (t_cuda, test_fingerprint)"
[ -n "${BG_PREBUILT:-}" ] || make -s unit >>"$OUT/make.log" 2>&1
BG_TEST_FILTER='t_cuda|test_fingerprint' tests/run.sh build/release >"$OUT/tests.txt" 2>&1
trc=$?
cat "$OUT/tests.txt"
record "tests t_cuda + test_fingerprint" "$(tail -n 1 "$OUT/tests.txt")" "$([ $trc -eq 0 ] && echo PASS || echo FAIL)"

# ------------------------------------------------------------- 6. table
note "results"
{
	echo "GPU facts: $("$PY" -c '
import json, sys
d = json.load(open(sys.argv[1]))
f, v = d.get("facts", {}), d.get("volatile", {})
print(", ".join(f"{k}={x}" for k, x in sorted({**f, **v}.items()) if k.startswith("gpu")) or "none")' "$OUT/fingerprint.json")"
	printf '%-52s  %-44s  %s\n' "check" "value" "verdict"
	for r in "${results[@]}"; do
		IFS='|' read -r a b c <<<"$r"
		printf '%-52s  %-44s  %s\n' "$a" "$b" "$c"
	done
	echo
	echo "series (median over $SAMPLES samples):"
	grep -v '^#' "$OUT/series.txt" | awk '{ printf "  %-34s %14.6g %s\n", $1, $3, $5 }'
} | tee "$OUT/summary.txt"
echo "outputs in $OUT"
[ "$fails" -eq 0 ]
