# t_lazy_libs.sh -- libpq, libcurl and libxml2 are loaded when they are
# needed, not linked, so that a run that never opens a PostgreSQL database,
# sends an alert or reads or writes XML never maps them and the dozens of
# libraries they bring:
#   - neither benchguard nor libbenchguard.so has them in its NEEDED list;
#   - `--version`, `--help` and a SQLite store leave them unmapped (the
#     loader's LD_DEBUG=files log), while a postgresql:// database maps
#     libpq, `alert test` libcurl and a Catch2 import libxml2 (so the log is
#     read right);
#   - a library that cannot be loaded (a bogus libpq.so.5, libcurl.so.4 or
#     libxml2.so.2 first in LD_LIBRARY_PATH), or one without a function
#     benchguard calls, is an error that names it, exit 3, never a crash;
#   - the sonames in lib/store_pg.c, lib/alert.c and lib/xml.c are those of
#     the libpq.so, libcurl.so and libxml2.so the headers were installed
#     with;
#   - where libgit2 uses mbedTLS, the system's CA bundle it would parse at
#     start-up is read only before a submodule is cloned over https (under
#     strace: a `run` never opens it, the clone reads it before it
#     connects), and only the benchguard binary, not libbenchguard.so,
#     exports the function that defers it.
. "$(dirname "$0")/lib.sh"
unset http_proxy https_proxy HTTP_PROXY HTTPS_PROXY all_proxy ALL_PROXY

build=${BG_BUILD:?}
ver=$(sed -n 's/^#define BG_VERSION "\(.*\)"$/\1/p' "$BG_ROOT/lib/benchguard.h")
so="$build/libbenchguard.so.$ver"
PQ_SONAME=$(sed -n 's/^#define PG_SONAME "\(.*\)"$/\1/p' "$BG_ROOT/lib/store_pg.c")
CURL_SONAME=$(sed -n 's/^#define ALERT_CURL_SONAME "\(.*\)"$/\1/p' "$BG_ROOT/lib/alert.c")
XML_SONAME=$(sed -n 's/^#define XML_SONAME "\(.*\)"$/\1/p' "$BG_ROOT/lib/xml.c")
check "the sources name the sonames (${PQ_SONAME:-none}, ${CURL_SONAME:-none}, ${XML_SONAME:-none})" \
	test "$PQ_SONAME" = libpq.so.5 -a "$CURL_SONAME" = libcurl.so.4 -a "$XML_SONAME" = libxml2.so.2

# ------------------------------------------------------------ not linked
# needed FILE: the sonames FILE's dynamic section asks the loader for.
needed() { readelf -d "$1" 2>/dev/null | sed -n 's/.*(NEEDED).*\[\(.*\)\].*/\1/p'; }
for f in "$BG" "$so"; do
	n=$(needed "$f")
	check "$(basename "$f") needs libgit2 and libsqlite3 (readelf -d reads it)" \
		sh -c "echo '$n' | grep -q '^libgit2' && echo '$n' | grep -q '^libsqlite3'"
	bad=$(echo "$n" | grep -E '^lib(pq|curl|xml2)' | xargs)
	check "$(basename "$f") needs neither libpq, libcurl nor libxml2${bad:+ (it needs $bad)}" test -z "$bad"
done

# ------------------------------------------- mapped only when needed
new_repo "$T/r" >/dev/null
cd "$T/r" || exit 1
cat >"$T/cfg.json" <<J
{ "benchmarks": [ { "name": "x", "command": "true" } ],
  "alerts": [ { "kind": "webhook", "url": "http://127.0.0.1:1/hook", "timeout": 0.2 } ] }
J
PGURI='postgresql://nobody@127.0.0.1:1/none?connect_timeout=2'
# maps NAME CMD...: runs CMD with the loader's log of what it maps; prints
# the files it mapped whose name starts with NAME.  CMD's exit status is
# left in $T/maps.rc, its output in $T/maps.out and $T/maps.err.
maps() {
	local name=$1
	shift
	LD_DEBUG=files LD_DEBUG_OUTPUT="$T/ld" "$@" >"$T/maps.out" 2>"$T/maps.err"
	echo $? >"$T/maps.rc"
	cat "$T"/ld.* 2>/dev/null | sed -n 's/.*file=\([^ ]*\).*/\1/p' | sort -u |
		grep -E "(^|/)$name" | xargs
	rm -f "$T"/ld.*
}
libs=$(LD_DEBUG=files LD_DEBUG_OUTPUT="$T/ld" "$BG" --version >/dev/null 2>&1 &&
	cat "$T"/ld.* | sed -n 's/.*file=\([^ ]*\).*/\1/p' | sort -u | wc -l)
rm -f "$T"/ld.*
echo "# figure: benchguard --version maps $libs shared libraries"
for args in "--version" "--help" "--db $T/lite.db db info"; do
	# shellcheck disable=SC2086
	m=$(maps 'lib(pq|curl|xml2)\.' "$BG" $args)
	check "benchguard $args maps neither libpq, libcurl nor libxml2${m:+ (it maps $m)}" test -z "$m"
done
# Nothing listens there: each fails as it would have with the library linked
# (exit 3), not at the exit that follows (a sanitizer's scan, handlers).
m=$(maps 'libpq\.' "$BG" --db "$PGURI" db info)
check "a postgresql:// database maps libpq (${m:-nothing})" test -n "$m"
check "... and no server there: exit 3 ($(cat "$T/maps.rc")), \"cannot connect\"" \
	sh -c "test \"\$(cat '$T/maps.rc')\" = 3 && grep -q 'cannot connect' '$T/maps.err'"
m=$(maps 'libcurl\.' "$BG" --config "$T/cfg.json" alert test)
check "alert test maps libcurl (${m:-nothing})" test -n "$m"
check "... and no receiver there: exit 3 ($(cat "$T/maps.rc")), \"Couldn't connect\"" \
	sh -c "test \"\$(cat '$T/maps.rc')\" = 3 && grep -q \"Couldn't connect\" '$T/maps.err' '$T/maps.out' 2>/dev/null"
C2="$BG_ROOT/tests/fixtures/formats/catch2/v3.xml"
m=$(maps 'libxml2\.' "$BG" --db "$T/lite.db" import "$C2" --format catch2)
check "import --format catch2 maps libxml2 (${m:-nothing}) and stores (exit $(cat "$T/maps.rc"))" \
	sh -c "test -n '$m' && test \"\$(cat '$T/maps.rc')\" = 0"

# ------------------------------------ a library that cannot be used
mkdir -p "$T/bogus" "$T/empty"
echo 'not a shared library' >"$T/bogus/libpq.so.5"
echo 'not a shared library' >"$T/bogus/libcurl.so.4"
echo 'not a shared library' >"$T/bogus/libxml2.so.2"
# Real shared libraries with the sonames, and none of the functions.
for l in libpq.so.5 libcurl.so.4 libxml2.so.2; do
	echo 'int bg_lazy_libs_test;' | cc -shared -fPIC -Wl,-soname,$l -o "$T/empty/$l" -x c - ||
		not_ok "building an empty $l"
done

LD_LIBRARY_PATH="$T/bogus" expect_rc 3 "$BG" --db "$PGURI" db info
check "a bogus libpq.so.5: exit 3, \"cannot load libpq.so.5 (PostgreSQL's client library): <the loader's words>\"" \
	grep -qF "cannot load libpq.so.5 (PostgreSQL's client library): $T/bogus/libpq.so.5: " "$T/err"
LD_LIBRARY_PATH="$T/empty" expect_rc 3 "$BG" --db "$PGURI" db info
check "a libpq.so.5 without PQclear: exit 3, says which function it lacks" \
	grep -qE "cannot use libpq.so.5 \(PostgreSQL's client library\): .*undefined symbol: PQ" "$T/err"

LD_LIBRARY_PATH="$T/bogus" expect_rc 3 "$BG" --config "$T/cfg.json" alert test
check "a bogus libcurl.so.4: alert test exits 3, \"cannot load libcurl.so.4 (...): <the loader's words>\"" \
	grep -qF "cannot load libcurl.so.4 (the HTTP client library alerts are sent with): $T/bogus/libcurl.so.4: " "$T/err"
LD_LIBRARY_PATH="$T/empty" expect_rc 3 "$BG" --config "$T/cfg.json" alert test
check "a libcurl.so.4 without curl_easy_cleanup: exit 3, says which function it lacks" \
	grep -qE "cannot use libcurl.so.4 \(the HTTP client library alerts are sent with\): .*undefined symbol: curl_" "$T/err"
LD_LIBRARY_PATH="$T/bogus" expect_rc 3 "$BG" --db "$T/lite.db" import "$C2" --format catch2
check "a bogus libxml2.so.2: import --format catch2 exits 3, \"cannot load libxml2.so.2 (the XML library): <the loader's words>\"" \
	grep -qF "cannot load libxml2.so.2 (the XML library): $T/bogus/libxml2.so.2: " "$T/err"
LD_LIBRARY_PATH="$T/empty" expect_rc 3 "$BG" --db "$T/lite.db" import "$C2" --format catch2
check "a libxml2.so.2 without xmlBufferContent: exit 3, says which function it lacks" \
	grep -qE "cannot use libxml2.so.2 \(the XML library\): .*undefined symbol: xml" "$T/err"
# An outbox with nothing pending: nothing to send, no libcurl to load.
if LD_LIBRARY_PATH="$T/bogus" expect_rc 0 "$BG" --db "$T/lite.db" --config "$T/cfg.json" \
	alert flush && ! grep -q libcurl "$T/err"; then
	ok "alert flush with nothing pending: exit 0, a bogus libcurl.so.4 never loaded"
else
	not_ok "alert flush with nothing pending: exit 0, a bogus libcurl.so.4 never loaded"
fi

# ---------------------------------------- the CA bundle, only for https
# libgit2 built with mbedTLS (Debian's) parses the system's whole CA bundle
# when it starts.  The benchguard binary leaves that to the one thing that
# needs it, a submodule cloned over https (lib/git.c says how).
gitlib=$(ldd "$BG" | awk '/libgit2/ { print $3; exit }')
bundle=$(strings -a "$gitlib" 2>/dev/null | grep -m1 -E '^/.*\.(crt|pem)$')
if ! ldd "$BG" | grep -q 'libmbedtls'; then
	skip "the CA bundle is parsed only for https" "libgit2 here does not use mbedTLS"
elif [ -z "$bundle" ] || [ ! -f "$bundle" ]; then
	skip "the CA bundle is parsed only for https" "libgit2 names no CA bundle that exists (${bundle:-none})"
elif ! command -v strace >/dev/null || ! strace -f -o /dev/null true 2>/dev/null; then
	skip "the CA bundle is parsed only for https" "strace cannot trace here"
else
	# traced CMD...: CMD under strace (files opened, connections made) into
	# $T/st; its exit status in $T/st.rc, its stderr in $T/st.err.
	# LeakSanitizer cannot work under ptrace: off for these.
	traced() {
		ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0" strace -f -e trace=open,openat,connect -o "$T/st" "$@" >"$T/st.out" 2>"$T/st.err"
		echo $? >"$T/st.rc"
	}
	check "the benchguard binary exports mbedtls_x509_crt_parse_file, libbenchguard.so does not" \
		sh -c "nm -D --defined-only '$BG' | grep -qw mbedtls_x509_crt_parse_file &&
			! nm -D --defined-only '$so' | grep -qw mbedtls_x509_crt_parse_file"
	# Nor the static archive: a program linked with it would take the
	# binary's deferral (and clash with a static mbedTLS of its own).
	check "libbenchguard.a defines no mbedTLS name" \
		sh -c "[ -f '$build/libbenchguard.a' ] && ! nm --defined-only '$build/libbenchguard.a' 2>/dev/null | grep -q ' mbedtls_'"
	# So that the log is read right: libgit2 alone opens the bundle.
	printf '#include <git2.h>\nint main(void) { return git_libgit2_init() < 0; }\n' >"$T/g2.c"
	# shellcheck disable=SC2046
	if cc -o "$T/g2" "$T/g2.c" $(pkg-config --cflags --libs libgit2); then
		traced "$T/g2"
		check "a program that only starts libgit2 opens $bundle" grep -qF "\"$bundle\"" "$T/st"
	else
		not_ok "building a program that starts libgit2"
	fi
	mkdir -p "$T/ca" && new_repo "$T/ca" >/dev/null && cd "$T/ca" || exit 1
	echo '{ "benchmarks": [ { "name": "t", "command": "true", "samples": 1 } ] }' >benchguard.json
	git add benchguard.json && git commit -qm suite
	traced "$BG" --db "$T/ca.db" run
	check "run (exit $(cat "$T/st.rc")) opens the repository and never $bundle" \
		sh -c "test \"\$(cat '$T/st.rc')\" = 0 && grep -q '/.git/HEAD\"' '$T/st' &&
			! grep -qF '\"$bundle\"' '$T/st'"
	# A submodule only an https URL has: the bundle is read before the
	# connection (nothing listens there, so the clone fails).
	printf '[submodule "sub"]\n\tpath = sub\n\turl = https://127.0.0.1:1/sub.git\n' >.gitmodules
	git add .gitmodules &&
		git update-index --add --cacheinfo "160000,$(git rev-parse HEAD),sub" &&
		git commit -qm 'a submodule over https'
	BENCHGUARD_CACHE="$T/ca-cache" traced "$BG" --db "$T/ca.db" run --commit HEAD
	first_open=$(grep -nF "\"$bundle\"" "$T/st" | head -1 | cut -d: -f1)
	first_conn=$(grep -nE 'connect\(.*sin_port=htons\(1\)' "$T/st" | head -1 | cut -d: -f1)
	check "run --commit cloning https://127.0.0.1:1/sub.git reads $bundle (line ${first_open:-none}) before it connects (line ${first_conn:-none})" \
		sh -c "test -n '$first_open' && test -n '$first_conn' && test '$first_open' -lt '$first_conn'"
	check "... and says it cannot clone (exit $(cat "$T/st.rc"))" \
		sh -c "test \"\$(cat '$T/st.rc')\" != 0 && grep -q 'cannot clone https://127.0.0.1:1/sub.git' '$T/st.err'"
fi

# ------------------------------------ the sonames of the headers' libraries
# PACKAGE FILE SONAME: pkg-config's name, the library's file name.
for p in "libpq libpq $PQ_SONAME" "libcurl libcurl $CURL_SONAME" "libxml-2.0 libxml2 $XML_SONAME"; do
	read -r pkg lib soname <<<"$p"
	dir=$(pkg-config --variable=libdir "$pkg" 2>/dev/null)
	if [ -z "$dir" ] || [ ! -e "$dir/$lib.so" ]; then
		skip "$lib.so's soname" "no $lib.so (pkg-config --variable=libdir $pkg: ${dir:-none})"
		continue
	fi
	got=$(readelf -d "$dir/$lib.so" | sed -n 's/.*(SONAME).*\[\(.*\)\].*/\1/p')
	check "$dir/$lib.so, the headers' library, has the soname benchguard loads ($got = $soname)" \
		test "$got" = "$soname"
done
finish
