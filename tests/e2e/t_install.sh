# t_install.sh -- `make install` gives a library people can link:
#   - libbenchguard.so.VERSION with soname libbenchguard.so.0 and the links
#     libbenchguard.so.0 and libbenchguard.so, libbenchguard.a, the three
#     public headers (and no internal one), benchguard.pc, and the man page
#     and completions when the tree has them, under PREFIX; DESTDIR stages
#     the same files with PREFIX still written in benchguard.pc;
#   - the header compiles alone, in C and C++;
#   - the shared library exports exactly the functions benchguard.h
#     declares: none of the store's rows or the git plumbing, though the
#     archive has them;
#   - benchguard.pc gives BG_VERSION, the flags for the shared library,
#     and with --static every library libbenchguard links (not libpq nor
#     libcurl, which it loads when it needs them);
#   - examples/api/ci_json.c, compiled against the installed header alone
#     with pkg-config's flags, links against the installed libbenchguard.so.0
#     (ldd), or with --static against libbenchguard.a (no libbenchguard.so
#     needed), and examples/api/Makefile does both; each program prints, on
#     its own copy of one database, the verdict JSON `benchguard ci --json`
#     prints, byte for byte, and exits as it does (t_api.sh's setup);
#   - `make uninstall` leaves no file behind.
# A build made with SANITIZE=1 is installed and tested the same way; only
# the programs are then compiled with the same -fsanitize flags, since the
# library's code calls the sanitizers' runtimes, which must be loaded first
# (examples/api/README.md says so to users).
. "$(dirname "$0")/lib.sh"

build=${BG_BUILD:?}
rel=${build#"$BG_ROOT"/}
ver=$(sed -n 's/^#define BG_VERSION "\(.*\)"$/\1/p' "$BG_ROOT/lib/benchguard.h")
so="$build/libbenchguard.so.$ver"
if [ -z "$ver" ] || [ ! -f "$so" ]; then
	not_ok "make built the shared library (${so})"
	finish
	exit 1
fi
san='' sanmake=''
if readelf -d "$so" | grep -q 'NEEDED.*libasan'; then
	san="-fsanitize=address,undefined -fno-omit-frame-pointer"
	sanmake=SANITIZE=1
	echo "# a sanitizer build: the programs are compiled with $san"
fi
# A `make test` above passes its jobserver and flags down: not to this make.
unset MAKEFLAGS MFLAGS MAKELEVEL

# ----------------------------------------------------------- make install
P=$(mktemp -d "$T/prefix.XXXXXX")
L="$P/lib"
if make -s -C "$BG_ROOT" install PREFIX="$P" BUILD="$rel" $sanmake >"$T/install.out" 2>&1; then
	ok "make install PREFIX=... runs"
else
	not_ok "make install PREFIX=... runs"
	sed 's/^/# /' "$T/install.out" | tail -10
fi
check "the shared library is the one built" cmp -s "$so" "$L/libbenchguard.so.$ver"
soname=$(readelf -d "$L/libbenchguard.so.$ver" 2>/dev/null | sed -n 's/.*(SONAME).*\[\(.*\)\].*/\1/p')
check "its soname is libbenchguard.so.0 (readelf -d: ${soname:-none})" test "$soname" = libbenchguard.so.0
check "libbenchguard.so.0 -> libbenchguard.so.$ver, a relative link" \
	test "$(readlink "$L/libbenchguard.so.0")" = "libbenchguard.so.$ver"
check "libbenchguard.so leads to the same file" \
	test "$(readlink -f "$L/libbenchguard.so")" = "$(readlink -f "$L/libbenchguard.so.$ver")" -a -L "$L/libbenchguard.so"
check "libbenchguard.a is installed" cmp -s "$build/libbenchguard.a" "$L/libbenchguard.a"
for h in benchguard.h benchguard_harness.h benchguard_region.h; do
	check "include/$h is lib/$h" cmp -s "$BG_ROOT/lib/$h" "$P/include/$h"
done
check "no internal header is installed (include/: $(ls "$P/include" | tr '\n' ' '))" \
	test "$(ls "$P/include" | tr '\n' ' ')" = "benchguard.h benchguard_harness.h benchguard_region.h "
check "the public header compiles alone (C11, -Wpedantic)" \
	cc -std=c11 -Wall -Wextra -Wpedantic -Werror -fsyntax-only -x c "$P/include/benchguard.h"
if command -v c++ >/dev/null; then
	check "... and in C++ (its extern \"C\")" \
		c++ -std=c++11 -Wall -Wextra -Werror -fsyntax-only -x c++ "$P/include/benchguard.h"
fi
if [ -f "$BG_ROOT/docs/benchguard.1" ]; then
	check "the man page and the bash and zsh completions are installed" test \
		-f "$P/share/man/man1/benchguard.1" -a -f "$P/share/bash-completion/completions/benchguard" \
		-a -f "$P/share/zsh/site-functions/_benchguard"
fi

# ------------------------------------------------- what the library exports
nm -D --defined-only "$L/libbenchguard.so.$ver" | awk 'NF == 3 { print $3 }' | sort -u >"$T/exported"
# The functions benchguard.h declares: a name before "(", comments gone.
cc -E -P "$P/include/benchguard.h" | grep -oE '\<bg_[a-z0-9_]+[[:space:]]*\(' | tr -d ' \t(' |
	sort -u >"$T/public"
extra=$(comm -23 "$T/exported" "$T/public" | head -20 | tr '\n' ' ')
missing=$(comm -13 "$T/exported" "$T/public" | head -20 | tr '\n' ' ')
echo "# figure: t_install: libbenchguard.so exports $(wc -l <"$T/exported") functions; benchguard.h declares $(wc -l <"$T/public")"
check "benchguard.h declares a whole API ($(wc -l <"$T/public") functions)" test "$(wc -l <"$T/public")" -ge 100
check "libbenchguard.so exports nothing benchguard.h does not declare${extra:+ (extra: $extra)}" test -z "$extra"
check "... and every function it declares${missing:+ (missing: $missing)}" test -z "$missing"
check "no internal name (bg_x__y) is public" sh -c "! grep -q __ '$T/public'"
# Moved out of the public header: in the archive for the CLI, not exported.
for f in bg_store_run_begin bg_store_history bg_store_outbox_add bg_repo_checkout \
	bg_repo_first_parent_range bg_error_set; do
	check "$f is in libbenchguard.a, not exported by libbenchguard.so" sh -c "
		nm --defined-only '$L/libbenchguard.a' 2>/dev/null | grep -qE ' T $f\$' &&
		! grep -qx '$f' '$T/exported' && ! grep -qx '$f' '$T/public'"
done

# ------------------------------------------------------------ benchguard.pc
export PKG_CONFIG_PATH="$L/pkgconfig"
check "lib/pkgconfig/benchguard.pc is installed" test -f "$L/pkgconfig/benchguard.pc"
check "pkg-config --modversion: BG_VERSION, what benchguard --version says ($ver)" \
	test "$(pkg-config --modversion benchguard)" = "$ver" -a \
	"$("$BG" --version | awk '{ print $2 }')" = "$ver"
check "its prefix is PREFIX" test "$(pkg-config --variable=prefix benchguard)" = "$P"
# (xargs: pkg-config's words without the blank it may end with.)
libs=$(pkg-config --libs benchguard | xargs)
cflags=$(pkg-config --cflags benchguard | xargs)
echo "# pkg-config --libs: $libs"
check "--libs: -L\$PREFIX/lib -lbenchguard and nothing the shared library brings itself" \
	test "$libs" = "-L$L -lbenchguard"
check "--cflags: -I\$PREFIX/include" sh -c "echo ' $cflags ' | grep -qF -- ' -I$P/include '"
slibs=$(pkg-config --static --libs benchguard)
miss=
for l in -lbenchguard -lgit2 -lsqlite3 -lgsl -ljson-c -lcrypto -ldl -lm; do
	[[ " $slibs " == *" $l "* ]] || miss="$miss $l"
done
check "--static --libs: libbenchguard and every library it links${miss:+ (missing:$miss)}" test -z "$miss"
# libpq and libcurl are loaded when needed (dlopen), never linked.
check "--static --libs: neither -lpq nor -lcurl (loaded at run time): $slibs" \
	sh -c "! echo ' $slibs ' | grep -qE ' -l(pq|curl) '"

# ---------------------------------------------- programs built against it
api="$BG_ROOT/examples/api/ci_json.c"
# $cflags and $libs are split into words on purpose, as $(pkg-config ...) is.
# shellcheck disable=SC2086
if cc -std=c11 -O2 -Wall -Wextra -Werror $san -o "$T/ci_shared" "$api" $cflags $libs 2>"$T/cc.err"; then
	ok "ci_json.c builds with pkg-config's flags, the installed header alone"
else
	not_ok "ci_json.c builds with pkg-config's flags, the installed header alone"
	sed 's/^/# /' "$T/cc.err" | head -20
fi
# ldd LIB PROGRAM: where the loader finds LIB for PROGRAM ("" when not needed).
ldd_of() { LD_LIBRARY_PATH="$L" ldd "$2" 2>/dev/null | awk -v l="$1" '$1 == l { print $3 }'; }
check "it needs libbenchguard.so.0 and the loader finds it in PREFIX ($(ldd_of libbenchguard.so.0 "$T/ci_shared"))" \
	test "$(ldd_of libbenchguard.so.0 "$T/ci_shared")" = "$L/libbenchguard.so.0"
# The archive by name (-l:), where -lbenchguard would take the shared library.
# shellcheck disable=SC2046,SC2086
if cc -std=c11 -O2 -Wall -Wextra -Werror $san -o "$T/ci_static" "$api" $cflags \
	$(echo " $slibs " | sed 's/ -lbenchguard / -l:libbenchguard.a /') 2>"$T/cc.err"; then
	ok "ci_json.c links libbenchguard.a with pkg-config --static's flags"
else
	not_ok "ci_json.c links libbenchguard.a with pkg-config --static's flags"
	sed 's/^/# /' "$T/cc.err" | head -20
fi
check "... and needs no libbenchguard.so" sh -c "
	test -x '$T/ci_static' && ! LD_LIBRARY_PATH='$L' ldd '$T/ci_static' | grep -q libbenchguard"
# examples/api/Makefile as a user runs it: copied out, PKG_CONFIG_PATH unset.
mkdir -p "$T/api" && cp "$BG_ROOT/examples/api/Makefile" "$api" "$T/api/"
env -u PKG_CONFIG_PATH make -s -C "$T/api" PREFIX="$P" SANFLAGS="$san" >"$T/mk.out" 2>&1
check "examples/api/Makefile builds it against PREFIX's libbenchguard.so.0" \
	test "$(ldd_of libbenchguard.so.0 "$T/api/ci_json")" = "$L/libbenchguard.so.0"
env -u PKG_CONFIG_PATH make -s -B -C "$T/api" PREFIX="$P" SANFLAGS="$san" STATIC=1 >>"$T/mk.out" 2>&1
check "... and with STATIC=1 against libbenchguard.a" sh -c "
	test -x '$T/api/ci_json' && ! LD_LIBRARY_PATH='$L' ldd '$T/api/ci_json' | grep -q libbenchguard"
# (PKG_CONFIG_LIBDIR: not a benchguard.pc installed system-wide either.)
mkdir -p "$T/empty"
env -u PKG_CONFIG_PATH PKG_CONFIG_LIBDIR="$T/empty" make -s -B -C "$T/api" PREFIX="$T/nowhere" \
	>"$T/mk.none" 2>&1
check "... and says what to do when PREFIX has no benchguard.pc" grep -q 'make install PREFIX=' "$T/mk.none"
sed 's/^/# make: /' "$T/mk.out" | head -10

# ------------------------------- the programs' verdict is benchguard ci's
# The suite of lib.sh's level_suite: values set, not timed, from a counter
# both sides start alike, so each side measures the same numbers.
level_suite "$T/r" 6 || exit 1
echo 110 >level && git add level && git commit -qm "10% slower"
cp "$T/ctr" "$T/ctr.saved"
# judged NAME CMD...: CMD on its own copy of the database and cache, from
# the same counter; its JSON, stderr and exit status in $T/NAME.*.
judged() {
	local name=$1
	shift
	cp "$T/db.saved" "$T/db.$name" && cp "$T/ctr.saved" "$T/ctr"
	BENCHGUARD_DB="$T/db.$name" BENCHGUARD_CACHE="$T/cache.$name" LD_LIBRARY_PATH="$L" "$@" \
		>"$T/$name.json" 2>"$T/$name.err"
	echo $? >"$T/$name.rc"
}
cp "$T/db" "$T/db.saved"
judged cli "$BG" -q ci --json
judged shared "$T/ci_shared"
judged static "$T/ci_static"
verdict=$(python3 -c 'import json, sys
r = json.load(open(sys.argv[1]))["results"][0]
print(r["verdict"] + "/" + (r.get("confirmation") or {}).get("status", "none"))' "$T/cli.json" 2>/dev/null)
echo "# ci: exit $(cat "$T/cli.rc"), $verdict; shared: exit $(cat "$T/shared.rc"); static: exit $(cat "$T/static.rc")"
check "benchguard ci finds the 10% regression and confirms it (exit 1, $verdict)" \
	test "$(cat "$T/cli.rc")" = 1 -a "$verdict" = regression/confirmed
for name in shared static; do
	check "$name: the program prints ci's verdict JSON, byte for byte" cmp "$T/cli.json" "$T/$name.json"
	cmp -s "$T/cli.json" "$T/$name.json" || sed "s/^/# $name stderr: /" "$T/$name.err" | tail -5
	check "$name: ... and exits as ci does" cmp "$T/cli.rc" "$T/$name.rc"
done

# ------------------------------------------------ DESTDIR, make uninstall
cd "$T" || exit 1
make -s -C "$BG_ROOT" install DESTDIR="$T/stage" PREFIX=/opt/bg BUILD="$rel" $sanmake >"$T/stage.out" 2>&1
check "DESTDIR stages the files, benchguard.pc says PREFIX" sh -c "
	test -f '$T/stage/opt/bg/lib/libbenchguard.so.$ver' -a -L '$T/stage/opt/bg/lib/libbenchguard.so' &&
	grep -qx 'prefix=/opt/bg' '$T/stage/opt/bg/lib/pkgconfig/benchguard.pc'"
make -s -C "$BG_ROOT" uninstall DESTDIR="$T/stage" PREFIX=/opt/bg BUILD="$rel" >>"$T/stage.out" 2>&1
left=$(find "$T/stage" ! -type d 2>/dev/null | head -10 | tr '\n' ' ')
check "make uninstall DESTDIR=... removes them${left:+ (left: $left)}" test -z "$left"
make -s -C "$BG_ROOT" uninstall PREFIX="$P" BUILD="$rel" >"$T/uninstall.out" 2>&1
left=$(find "$P" ! -type d 2>/dev/null | head -10 | tr '\n' ' ')
check "make uninstall PREFIX=... leaves no file, link included${left:+ (left: $left)}" test -z "$left"

# A packager's CPPFLAGS on the command line (dpkg-buildflags') adds to the
# project's, where it replaced them and the build failed (strdup undeclared).
check "make CPPFLAGS=-D_FORTIFY_SOURCE=2 keeps -D_GNU_SOURCE -Ilib" sh -c "
	make -n -B -C '$BG_ROOT' V=1 BUILD='$T/cpp' CPPFLAGS=-D_FORTIFY_SOURCE=2 '$T/cpp/lib/util.o' |
		grep -q -- '-D_FORTIFY_SOURCE=2 -D_GNU_SOURCE -Ilib'"

finish
