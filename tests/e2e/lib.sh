# tests/e2e/lib.sh -- sourced by every end-to-end script.
#
# Gives a scratch directory ($T, removed on exit), the binary ($BG), TAP
# reporting (ok / not_ok / skip / check / finish) and helpers to build real
# git repositories for benchguard to measure.
set -u
BG=${BG_BIN:?run through tests/run.sh or set BG_BIN}
FIX=${BG_FIXTURES:?}
T=$(mktemp -d "${TMPDIR:-/tmp}/bg-e2e.XXXXXX")
[ -n "${BG_KEEP_TMP:-}" ] || trap 'rm -rf "$T"' EXIT # BG_KEEP_TMP=1 keeps it for a post-mortem
export GIT_AUTHOR_NAME="Test Author" GIT_AUTHOR_EMAIL=author@example.com
export GIT_COMMITTER_NAME="Test Author" GIT_COMMITTER_EMAIL=author@example.com
export GIT_CONFIG_NOSYSTEM=1 HOME="$T/home" NO_COLOR=1
mkdir -p "$HOME"
unset BENCHGUARD_DB
_n=0 _failed=0

ok() { _n=$((_n + 1)); echo "ok $_n - $*"; }
not_ok() { _n=$((_n + 1)); _failed=$((_failed + 1)); echo "not ok $_n - $*"; }
skip() { _n=$((_n + 1)); echo "ok $_n - $1 # SKIP $2"; }
# check NAME CMD...: ok when CMD succeeds.
check() { local name=$1; shift; if "$@"; then ok "$name"; else not_ok "$name"; fi; }
# expect_rc RC CMD...: runs CMD, keeps stdout/stderr in $T/out, $T/err; true if rc matches.
expect_rc() {
	local want=$1 rc; shift
	"$@" >"$T/out" 2>"$T/err"; rc=$?
	if [ "$rc" -ne "$want" ]; then
		echo "# expected exit $want, got $rc: $*"; sed 's/^/# err: /' "$T/err" | head -20
		return 1
	fi
}
finish() { echo "1..$_n"; [ "$_failed" -eq 0 ]; }

# new_repo DIR: a git repository with one commit on main.
new_repo() {
	mkdir -p "$1" && git -C "$1" init -q -b main && echo "# test" >"$1/README.md" &&
		git -C "$1" add README.md && git -C "$1" commit -qm "initial commit"
}
