# t_fingerprint_modules.sh -- a machine's facts are one list that the
# modules finding them share: lib/gpu.c and lib/fingerprint.c call nothing
# of each other (each object's undefined symbols against the other's
# definitions), both add their facts through lib/machine.c, and
# bg_machine_detect (lib/host.c) is where they meet.
. "$(dirname "$0")/lib.sh"

O="${BG_BUILD:?}/lib"
defined() { nm --defined-only -g "$O/$1.o" | awk '{print $3}' | sort -u; }
undefined() { nm -u "$O/$1.o" | awk '{print $2}' | sort -u; }
# calls A B: the functions of B that A's object calls.
calls() { comm -12 <(undefined "$1") <(defined "$2"); }

for f in gpu fingerprint machine host; do
	check "lib/$f.o is built" test -f "$O/$f.o"
done
check "gpu.c calls nothing of fingerprint.c" test -z "$(calls gpu fingerprint)"
check "fingerprint.c calls nothing of gpu.c" test -z "$(calls fingerprint gpu)"
check "machine.c calls neither" test -z "$(calls machine gpu; calls machine fingerprint)"
# has NAME LIST: NAME is one of the lines of LIST.
has() { grep -qx "$1" <<<"$2"; }
check "gpu.c adds its facts through machine.c" has bg_machine_set_fact "$(calls gpu machine)"
check "fingerprint.c adds its facts through machine.c" \
	has bg_machine_set_fact "$(calls fingerprint machine)"
check "bg_machine_detect asks fingerprint.c for the system's facts" \
	has bg_fingerprint__system "$(calls host fingerprint)"
check "... and gpu.c for the GPUs'" has bg_gpu_detect "$(calls host gpu)"

# The host is still detected whole (fixture trees' hashes: test_fingerprint).
host_fp() {
	"$BG" fingerprint --json >"$T/fp" &&
		python3 -c 'import json, sys
d = json.load(open(sys.argv[1]))
assert len(d["fingerprint"]) == 16 and d["facts"], d' "$T/fp"
}
check "benchguard fingerprint prints this host's" host_fp
finish
