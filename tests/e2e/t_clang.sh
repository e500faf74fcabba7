# t_clang.sh -- every C source passes clang's warnings as well as gcc's.
# `make fuzz` builds the library with clang and -Werror, and clang warns
# where gcc does not: a struct initialised with `{ NULL }` once broke that
# build while every gcc build stayed green.  `make clang-check` runs clang
# over the library, the CLI, the unit tests, the fuzz harnesses and the API
# example, syntax only; this script runs it, and shows it fails on that
# initialiser (a copy of lib/xml.c with it put back).
. "$(dirname "$0")/lib.sh"

if ! command -v "${CLANG:-clang}" >/dev/null 2>&1; then
	skip "make clang-check passes" "skipped: clang not installed (make deps installs it)"
	skip "make clang-check fails on a { NULL } initialiser" "skipped: clang not installed"
	finish
	exit
fi

out=$(make -s -C "$BG_ROOT" clang-check 2>&1)
rc=$?
if [ "$rc" -eq 0 ]; then
	ok "make clang-check passes"
else
	not_ok "make clang-check passes (exit $rc): $(echo "$out" | grep -m 3 -E 'error|warning')"
fi

# The initialiser that broke `make fuzz`, back in a copy of its file: the
# copy's quoted includes come from lib/ through -Ilib.
grep -q 'xml_lib x = { .dl = NULL };' "$BG_ROOT/lib/xml.c" &&
	sed 's/xml_lib x = { .dl = NULL };/xml_lib x = { NULL };/' "$BG_ROOT/lib/xml.c" >"$T/xml.c"
if [ -s "$T/xml.c" ]; then
	out=$(make -s -C "$BG_ROOT" clang-check CLANG_CHECK="$T/xml.c" 2>&1)
	rc=$?
	check "make clang-check fails on a { NULL } initialiser (exit $rc)" \
		sh -c '[ "$1" -ne 0 ] && echo "$2" | grep -q "missing-field-initializers"' _ "$rc" "$out"
else
	not_ok "make clang-check fails on a { NULL } initialiser: lib/xml.c no longer has the line this test edits"
fi
finish
