# t_run_sh.sh -- tests/run.sh itself, on a scratch tree of fake tests: it
# runs tests side by side (BG_TEST_JOBS at a time), runs a script marked
# "# run.sh: alone" with nothing beside it (unless BG_STAT_SIZE=small; one
# marked "# run.sh: alone at every size" even then),
# counts a script that dies without a "not ok" as failed, names the failing
# files and ends with the count line; BG_TEST_SKIP leaves files out.
. "$(dirname "$0")/lib.sh"

R=$T/tree
mkdir -p "$R/tests/e2e" "$R/build/tests" "$T/marks"
cp "$BG_ROOT/tests/run.sh" "$R/tests/"
# meet NAME: marks NAME as running; if $MEET_NAME names a partner, waits up
# to 5 s for it to be running too.  Logs "NAME met|missed PARTNER" and, for
# NAME, the others running when it started.
cat >"$R/tests/meet.sh" <<'SH'
name=$1 m=$MARKS
: >"$m/$name.running"
others=$(cd "$m" && ls *.running | grep -vx "$name.running" | tr '\n' ' ')
echo "$name saw: $others" >>"$m/log"
var=MEET_$name partner=${!var:-}
if [ -n "$partner" ]; then
	for _ in $(seq 50); do [ -e "$m/$partner.running" ] || [ -e "$m/$partner.ran" ] && break; sleep 0.1; done
	if [ -e "$m/$partner.running" ] || [ -e "$m/$partner.ran" ]; then echo "$name met $partner" >>"$m/log"; else echo "$name missed $partner" >>"$m/log"; fi
fi
mv "$m/$name.running" "$m/$name.ran"
echo "ok 1 - $name"
echo "1..1"
SH
for n in a b c d; do printf 'bash "$(dirname "$0")/../meet.sh" %s\n' "$n" >"$R/tests/e2e/t_$n.sh"; done
sed -i '1i # run.sh: alone' "$R/tests/e2e/t_c.sh"
sed -i '1i # run.sh: alone at every size' "$R/tests/e2e/t_d.sh"
printf 'echo "not ok 1 - broken"; echo "1..1"; exit 1\n' >"$R/tests/e2e/t_fail.sh"
printf 'echo "ok 1 - started"; exit 3\n' >"$R/tests/e2e/t_die.sh"
printf '#!/bin/sh\necho "ok 1 - unit"\necho "ok 2 - later # SKIP not here"\necho "1..2"\n' >"$R/build/tests/test_u"
chmod +x "$R/build/tests/test_u"
export MARKS=$T/marks

# runs [VAR=VAL...]: tests/run.sh on the tree, with only these of its
# settings (not the ones this test runs under), output in $T/run.out.
runs() {
	rm -f "$MARKS"/*
	env -u BG_TEST_FILTER -u BG_TEST_SKIP -u BG_STAT_SIZE -u BG_TEST_JOBS "$@" bash "$R/tests/run.sh" build >"$T/run.out" 2>&1
}

runs BG_TEST_JOBS=2 MEET_a=b MEET_b=a
rc=$?
check "a failing test makes run.sh exit 1 ($rc)" test "$rc" = 1
check "two tests ran side by side with BG_TEST_JOBS=2" \
	bash -c "grep -qx 'a met b' '$MARKS/log' && grep -qx 'b met a' '$MARKS/log'"
check "the test marked alone ran with nothing beside it" grep -qx 'c saw: ' "$MARKS/log"
check "... and the one marked alone at every size" grep -qx 'd saw: ' "$MARKS/log"
check "... after every other test" \
	bash -c "tail -n 2 '$MARKS/log' | sort | tr '\n' , | grep -qx 'c saw: ,d saw: ,'"
check "a script that exits non-zero without 'not ok' fails" grep -q 'not ok - e2e/t_die exited 3' "$T/run.out"
check "the failing files are named" grep -qx 'failing: .*e2e/t_die.*' "$T/run.out"
check "... t_fail among them" grep -qx 'failing: .*e2e/t_fail.*' "$T/run.out"
check "the last line counts every test: 6 passed, 2 failed, 1 skipped" \
	test "$(tail -n 1 "$T/run.out")" = "6 passed, 2 failed, 1 skipped"
check "a skip is shown with its reason" grep -q 'ok 2 - later # SKIP not here' "$T/run.out"

runs BG_TEST_JOBS=1 MEET_a=b BG_TEST_FILTER='t_a|t_b'
rc=$?
check "BG_TEST_JOBS=1 runs one test at a time" \
	bash -c "[ $rc = 0 ] && grep -qx 'a missed b' '$MARKS/log' && ! grep -q 'met' '$MARKS/log'"
check "BG_TEST_FILTER picks files: 2 passed" test "$(tail -n 1 "$T/run.out")" = "2 passed, 0 failed, 0 skipped"

runs BG_TEST_JOBS=2 BG_STAT_SIZE=small MEET_c=b MEET_b=c BG_TEST_FILTER='t_b|t_c'
check "sized small, the test marked alone runs beside the others" \
	bash -c "grep -qx 'c met b' '$MARKS/log' && grep -qx 'b met c' '$MARKS/log'"

runs BG_TEST_JOBS=2 BG_STAT_SIZE=small MEET_b=d BG_TEST_FILTER='t_b|t_d'
check "... but not the one marked alone at every size" \
	bash -c "grep -qx 'b missed d' '$MARKS/log' && grep -qx 'd saw: ' '$MARKS/log'"

runs BG_TEST_JOBS=1 BG_TEST_SKIP='t_(a|c|d|fail|die)$'
rc=$?
check "BG_TEST_SKIP leaves files out: the unit test and t_b run ($rc)" \
	bash -c "[ $rc = 0 ] && test \"\$(tail -n 1 '$T/run.out')\" = '2 passed, 0 failed, 1 skipped'"
check "... and says which" grep -qx 'left out (BG_TEST_SKIP): e2e/t_a e2e/t_c e2e/t_d e2e/t_die e2e/t_fail' "$T/run.out"
check "... none of them ran" bash -c "! grep -Eq '^(a|c|d) ' '$MARKS/log' && grep -q '^b ' '$MARKS/log'"

runs BG_TEST_JOBS=0
rc=$?
check "BG_TEST_JOBS=0 is refused (exit 2)" \
	bash -c "[ $rc = 2 ] && grep -q 'BG_TEST_JOBS must be a positive number' '$T/run.out'"
finish
