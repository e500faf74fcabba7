# t_hostile_sweep.sh -- hostile input in bulk: deterministic mutants of every
# kind of file benchguard reads (200 configs, 250 result files per import
# format, 100 baseline files; tests/e2e/mutate.py says how they are made
# and judged) fed to the real binary, which is the ASan+UBSan build under
# `make SANITIZE=1 test`.  Every input must end in exit 0 or in exit 2 with
# one line that says why: no crash, no hang, no sanitizer report, no exit
# 3, no raw control character on the terminal.  BG_SWEEP_SAVE=DIR keeps the
# failing inputs; BG_SWEEP_SEED=N makes another set.
. "$(dirname "$0")/lib.sh"

new_repo "$T/r" >/dev/null && cd "$T/r" || exit 1
echo '{ "benchmarks": [ { "name": "b", "command": "true" } ] }' >benchguard.json

start=$SECONDS
while IFS= read -r line; do
	case $line in
	"PASS "*) ok "${line#PASS }" ;;
	"FAIL "*) not_ok "${line#FAIL }" ;;
	*) echo "$line" ;;
	esac
done < <(python3 "$BG_ROOT/tests/e2e/mutate.py" "$BG" "$T/r" "$FIX" "$BG_ROOT/tests/fuzz/corpus")
echo "# the sweep took $((SECONDS - start)) s"
[ "$_n" -gt 0 ] || not_ok "the sweep ran"
finish
