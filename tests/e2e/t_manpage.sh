# t_manpage.sh -- the man page (docs/benchguard.1) and the bash and zsh
# completions (docs/completions/) know every command and option `--help`
# names, so none of them falls behind when an option is added:
#   - every command `benchguard help` lists has a section (.SS) in the man
#     page, is offered by bash at `benchguard <TAB>`, and is in zsh's list
#     of commands with a branch of its own;
#   - every global option is in the man page's GLOBAL OPTIONS, offered by
#     bash at `benchguard -<TAB>`, and in zsh's global options;
#   - every option `benchguard CMD --help` names (outside `...`, which
#     quotes other commands) is in CMD's man page section, offered by bash
#     after CMD (after each of its subcommands, together), and in CMD's zsh
#     branch (a global option there through $globals);
#   - the same checker, given a help with an option the three do not have
#     (--no-such-option) or a command they do not have, reports it;
#   - the page renders without warnings; bash completes the subcommands,
#     each command's --format values and file names; zsh loads the file
#     with compinit (when zsh is installed);
#   - `make install` puts the page and the completions where man, bash and
#     zsh look, and `make uninstall` removes them.
. "$(dirname "$0")/lib.sh"

MAN="${BG_ROOT:?}/docs/benchguard.1"
BASHC="$BG_ROOT/docs/completions/benchguard.bash"
ZSHC="$BG_ROOT/docs/completions/_benchguard"
cd "$T" || exit 1
export BENCHGUARD_DB="$T/man.db" # nothing may touch a real database

for f in "$MAN" "$BASHC" "$ZSHC"; do
	[ -s "$f" ] || {
		not_ok "$f exists"
		finish
		exit 1
	}
done

# opts FILE: the options a help text names, one a line: --long ones and
# single-letter -x ones standing alone (not the "-" of "first-parent"),
# outside `...`.
opts() {
	sed 's/`[^`]*`//g' "$1" | grep -oE -- '(^|[^[:alnum:]-])--?[[:alpha:]][[:alnum:]-]*' |
		sed 's/^[^-]*//' | grep -E -- '^(--[[:alnum:]-]+|-[[:alpha:]])$' | sort -u
}
# has FILE OPT: FILE names OPT as a word of its own.
has() { grep -qE -- "(^|[^[:alnum:]-])$2([^[:alnum:]-]|\$)" "$1"; }

# The man page's roff with "\-" as "-" and without font changes.
sed -e 's/\\-/-/g' -e 's/\\f[BIRP]//g' "$MAN" >"$T/man.roff"
# man_section CMD: the text of CMD's .SS section.
man_section() {
	awk -v c="$1" '$0 ~ /^\.S[HS]/ { on = ($0 ~ "^\\.SS \"?" c "\"?$") ; next } on' "$T/man.roff"
}
awk '/^\.SH "?GLOBAL OPTIONS"?$/ { on = 1; next } /^\.SH/ { on = 0 } on' "$T/man.roff" >"$T/man.globals"

# bash_offers WORD...: what bash completes after `benchguard WORD...`, one
# a line (the last WORD is the one being completed).
bash_offers() {
	bash --norc --noprofile -c '. "$1" || exit 1; shift; COMP_WORDS=("$@")
		COMP_CWORD=$(($# - 1)); _benchguard; printf "%s\n" "${COMPREPLY[@]}"' \
		_ "$BASHC" benchguard "$@"
}

# zsh_branch CMD: CMD's branch of the zsh `case` (from "(CMD)" to the
# first line indented no deeper).
zsh_branch() {
	awk -v c="$1" '
		on && NF { match($0, /^[ \t]*/); if (RLENGTH <= ind) exit }
		on { print; next }
		$0 ~ "^[ \t]*\\(" c "\\)[ \t]*$" { match($0, /^[ \t]*/); ind = RLENGTH; on = 1; print }
	' "$ZSHC"
}
# zsh's global options: _benchguard up to its `case`.
awk '/^_benchguard\(\)/ { on = 1 } /case \$words\[1\]/ { on = 0 } on' "$ZSHC" >"$T/zsh.globals"
awk '/^_benchguard_commands\(\)/ { on = 1 } on && /^}/ { on = 0 } on' "$ZSHC" >"$T/zsh.commands"

"$BG" help >"$T/help" 2>&1
cmds=$(awk '/^commands:/ { on = 1; next } /^$/ { on = 0 } on && NF { print $1 }' "$T/help")
check "benchguard help lists the commands" test "$(echo "$cmds" | wc -w)" -ge 10
awk '/^global options:/ { on = 1 } /^$/ { on = 0 } on' "$T/help" >"$T/help.globals"
globals=$(opts "$T/help.globals")
check "benchguard help lists the global options" test "$(echo "$globals" | wc -w)" -ge 6

# check_command CMD: sets miss to where CMD is missing ("man bash zsh").
check_command() {
	miss=
	man_section "$1" | grep -q . || miss="$miss man"
	bash_offers '' | grep -qx -- "$1" || miss="$miss bash"
	{ grep -q "'$1:" "$T/zsh.commands" && zsh_branch "$1" | grep -q .; } || miss="$miss zsh"
}

# check_options CMD HELP: sets miss_man, miss_bash, miss_zsh to the
# options HELP (a file) names that CMD's man section, bash completion or
# zsh branch lacks.
check_options() {
	local c=$1 help=$2 o s subs
	miss_man= miss_bash= miss_zsh=
	man_section "$c" >"$T/m.$c"
	zsh_branch "$c" >"$T/z.$c"
	# Subcommands: the lower-case words after `benchguard CMD` in the usage.
	subs=$(grep -oE "benchguard $c [a-z][a-z-]*" "$help" | awk '{ print $3 }' | sort -u)
	if [ -z "$subs" ]; then
		bash_offers "$c" - >"$T/b.$c"
	else
		for s in $subs; do bash_offers "$c" "$s" -; done >"$T/b.$c"
	fi
	for o in $(opts "$help"); do
		has "$T/m.$c" "$o" || miss_man="$miss_man $o"
		grep -qx -- "$o" "$T/b.$c" || miss_bash="$miss_bash $o"
		if ! has "$T/z.$c" "$o"; then
			# A global option comes through $globals ($globals_nofmt has no --format).
			if echo "$globals" | grep -qx -- "$o" && has "$T/zsh.globals" "$o" &&
				{ grep -qE '\$globals([^_[:alnum:]]|$)' "$T/z.$c" ||
					{ [ "$o" != --format ] && grep -q '\$globals_nofmt' "$T/z.$c"; }; }; then
				:
			else
				miss_zsh="$miss_zsh $o"
			fi
		fi
	done
}

# The checker fails where it should: an option only a help names, and a
# command only `benchguard help` lists.
"$BG" run --help >"$T/fake.help" 2>&1
printf '  --no-such-option  an option the docs do not know\n' >>"$T/fake.help"
check_options run "$T/fake.help"
found() { # LIST...: each LIST has --no-such-option
	local l
	for l in "$@"; do [[ " $l " == *" --no-such-option "* ]] || return 1; done
}
check "the checker finds an option --help alone names (man:$miss_man bash:$miss_bash zsh:$miss_zsh)" \
	found "$miss_man" "$miss_bash" "$miss_zsh"
check_command frobnicate
check "the checker finds a command help alone lists (missing in:$miss)" test "$miss" = " man bash zsh"

for c in $cmds; do
	check_command "$c"
	check "$c: in the man page, bash and zsh${miss:+ (missing in:$miss)}" test -z "$miss"
	[ "$c" = help ] && continue
	"$BG" "$c" --help >"$T/h.$c" 2>&1
	rc=$?
	check "$c --help exits 0 with its usage line" \
		test "$rc" -eq 0 -a "$(head -1 "$T/h.$c" | cut -d' ' -f1-3)" = "usage: benchguard $c"
	check_options "$c" "$T/h.$c"
	check "$c: every option its --help names is in its man page section${miss_man:+ (missing:$miss_man)}" \
		test -z "$miss_man"
	check "$c: ... offered by the bash completion${miss_bash:+ (missing:$miss_bash)}" \
		test -z "$miss_bash"
	check "$c: ... in its zsh completion branch${miss_zsh:+ (missing:$miss_zsh)}" \
		test -z "$miss_zsh"
done

miss_man= miss_bash= miss_zsh=
bash_offers - >"$T/b.globals"
for o in $globals; do
	has "$T/man.globals" "$o" || miss_man="$miss_man $o"
	grep -qx -- "$o" "$T/b.globals" || miss_bash="$miss_bash $o"
	has "$T/zsh.globals" "$o" || miss_zsh="$miss_zsh $o"
done
check "global options in GLOBAL OPTIONS of the man page${miss_man:+ (missing:$miss_man)}" test -z "$miss_man"
check "global options offered by bash at benchguard -${miss_bash:+ (missing:$miss_bash)}" test -z "$miss_bash"
check "global options in zsh's${miss_zsh:+ (missing:$miss_zsh)}" test -z "$miss_zsh"

# The sections a man page has, and the facts of EXIT STATUS and ENVIRONMENT.
for s in NAME SYNOPSIS DESCRIPTION "GLOBAL OPTIONS" COMMANDS ENVIRONMENT FILES "EXIT STATUS" \
	EXAMPLES "SEE ALSO"; do
	check "man page has $s" grep -qE "^\\.SH \"?$s\"?\$" "$T/man.roff"
done
ver=$("$BG" --version | awk '{ print $2 }')
check "the man page's header has this version ($ver)" grep -qE "^\.TH BENCHGUARD 1 .*\"benchguard $ver\"" "$MAN"

# man_sh NAME: the text of the .SH NAME section.
man_sh() {
	awk -v s="$1" '/^\.SH/ { on = ($0 ~ "^\\.SH \"?" s "\"?$"); next } on' "$T/man.roff"
}
man_sh ENVIRONMENT >"$T/man.env"
for v in BENCHGUARD_DB BENCHGUARD_CACHE NO_COLOR PGPASSWORD; do
	check "man page ENVIRONMENT names $v" grep -q "$v" "$T/man.env"
done
# Every variable the code reads is in ENVIRONMENT (getenv in cmd/ and lib/).
vars=$(grep -ho 'getenv("[A-Z_]*")' "$BG_ROOT"/cmd/*.c "$BG_ROOT"/lib/*.c | sed 's/getenv("\(.*\)")/\1/' |
	grep -v '^PATH$' | sort -u)
missing=
for v in $vars; do grep -q "$v" "$T/man.env" || missing="$missing $v"; done
check "man page ENVIRONMENT names every variable cmd/ and lib/ read${missing:+ (missing:$missing)}" \
	test -z "$missing"
check "EXIT STATUS gives 0, 1, 2 and 3" \
	test "$(man_sh "EXIT STATUS" | grep -E '^\.B [0-3]$' | tr '\n' ' ')" = ".B 0 .B 1 .B 2 .B 3 "

# It renders: groff with every warning, and man(1) on the file.
if command -v groff >/dev/null; then
	groff -man -Tutf8 -ww -z "$MAN" >"$T/groff.out" 2>&1
	check "groff -man -ww renders it without a warning" test ! -s "$T/groff.out"
	[ -s "$T/groff.out" ] && sed 's/^/# /' "$T/groff.out" | head -10
else
	skip "groff renders it without a warning" "groff is not installed"
fi
if command -v man >/dev/null; then
	MANWIDTH=80 man -l "$MAN" >"$T/man.txt" 2>"$T/man.err"
	check "man -l renders it (NAME, the commands)" \
		sh -c "grep -q 'benchguard - keep software' '$T/man.txt' && grep -q 'benchguard bisect --good' '$T/man.txt'"
else
	skip "man -l renders it" "man is not installed"
fi

# bash: what a user sees at a few places.
want() { # WANT WORD...: bash offers exactly the words of WANT (any order)
	local w=$1
	shift
	[ "$(bash_offers "$@" | sort | tr '\n' ' ')" = "$(printf '%s\n' $w | sort | tr '\n' ' ')" ]
}
check "bash: baseline completes export import" want "export import" baseline ''
check "bash: db completes copy info prune" want "copy info prune" db ''
check "bash: alert completes test flush drop" want "test flush drop" alert ''
check "bash: --format of the global options: table json markdown" want "table json markdown" --format ''
check "bash: --format after check: table json markdown junit" want "table json markdown junit" check --format ''
check "bash: --format after history: table json markdown (junit is check's)" want "table json markdown" history --format ''
check "bash: report --format: html markdown json" want "html markdown json" report --format ''
check "bash: report --format=: html markdown json" want "html markdown json" report --format = ''
check "bash: import --format: lines gbench nvbench hyperfine go pytest catch2 perfstat" \
	want "lines gbench nvbench hyperfine go pytest catch2 perfstat" import --format ''
check "bash: help completes the commands" want "$cmds" help ''
check "bash: a command after global options and their values" want "report" --db = x.db --json rep
mkdir -p "$T/files" && touch "$T/files/base.json" "$T/files/bench.txt"
check "bash: files after -o, --config, --db, baseline import, import" sh -c "
	cd '$T/files' && for w in 'report -o' 'run --config' 'run --db' 'baseline import' 'import'; do
		bash --norc -c '. \"\$0\"; COMP_WORDS=(benchguard \$1 b); COMP_CWORD=\$((\${#COMP_WORDS[@]} - 1))
			_benchguard; printf \"%s\n\" \"\${COMPREPLY[@]}\"' '$BASHC' \"\$w\" | sort | tr '\n' ' ' |
			grep -qx 'base.json bench.txt ' || { echo \"# not files after: \$w\"; exit 1; }
	done"
check "bash: an option's value is not taken for an option" want "" check --runs ''
check "bash: baseline import FILE...: files after a first file too" sh -c "
	cd '$T/files' && bash --norc -c '. \"\$0\"; COMP_WORDS=(benchguard baseline import base.json b); COMP_CWORD=4
		_benchguard; printf \"%s\n\" \"\${COMPREPLY[@]}\"' '$BASHC' | sort | tr '\n' ' ' | grep -qx 'base.json bench.txt '"
# A zsh _arguments spec is n:message:action: a ':' in the message must be
# written '\:', or the rest is run as the action (a parse error at Tab).
check "zsh: no positional spec's message holds a bare ':'" sh -c "
	! grep -nE \"'[0-9*]+:[^:']*\\([^)']*[^\\\\]:[^)']*\\)\" '$ZSHC'"

# zsh: the syntax, compinit finds the function for benchguard, and what
# a user sees at Tab: a zsh on a pseudo-terminal (zsh/zpty) is given
# `benchguard WORDS` and a Tab; a compadd wrapper writes the matches.
cat >"$T/zcomp.zsh" <<'Z'
# zcomp.zsh FPATH_DIR OUT WORD...: the matches zsh offers after
# `benchguard WORD...` (the last WORD is the one completed), one a line
# in OUT, then DONE.
zmodload zsh/zpty || exit 2
dir=$1 out=$2
shift 2
: >$out
zpty z zsh -f -i || exit 2
zpty -w z "PS1= RPS1=; fpath=(${(q)dir} \$fpath); autoload -Uz compinit; compinit -u -D"
zpty -w z 'compadd() {
	if [[ ${@[1,(i)(-|--)]} == *-(O|A|D)\ * ]]; then builtin compadd "$@"; return; fi
	local -a __m
	builtin compadd -O __m "$@"
	(( $#__m )) && print -rl -- $__m >>'${(q)out}'
	builtin compadd "$@"
}'
zpty -w z "comppostfuncs=(__done); __done() { print DONE >>${(q)out}; }"
zpty -w z "zstyle ':completion:*' insert-tab false; bindkey '^I' complete-word"
zpty -w -n z "benchguard ${(j: :)@}"$'\t'
integer i
for (( i = 0; i < 100; i++ )); do
	grep -qx DONE $out 2>/dev/null && break
	sleep 0.1
done
zpty -d z
grep -qx DONE $out
Z
# zsh_offers WORD...: like bash_offers.
zsh_offers() {
	zsh -f "$T/zcomp.zsh" "$T/zfunc" "$T/zsh.out" "$@" >/dev/null 2>&1 || echo "# zsh gave no answer to: $*" >&2
	grep -vx DONE "$T/zsh.out" | sort -u
}
# zsh_missing CMD HELP: the options HELP names that zsh does not offer
# after `benchguard CMD -` (after each subcommand, together).
zsh_missing() {
	local c=$1 help=$2 s subs
	subs=$(grep -oE "benchguard $c [a-z][a-z-]*" "$help" | awk '{ print $3 }' | sort -u)
	if [ -z "$subs" ]; then
		zsh_offers "$c" - >"$T/zo.$c"
	else
		for s in $subs; do zsh_offers "$c" "$s" -; done >"$T/zo.$c"
	fi
	for o in $(opts "$help"); do grep -qx -- "$o" "$T/zo.$c" || printf ' %s' "$o"; done
}
if command -v zsh >/dev/null; then
	check "zsh -n: the completion parses" zsh -n "$ZSHC"
	mkdir -p "$T/zfunc" && cp "$ZSHC" "$T/zfunc/"
	check "zsh: compinit loads _benchguard for benchguard" zsh -f -c "
		fpath=('$T/zfunc' \$fpath); autoload -Uz compinit && compinit -u -d '$T/zcompdump' &&
		[[ \${_comps[benchguard]} == _benchguard ]] && (( \${+functions[_benchguard]} ))"
fi
if command -v zsh >/dev/null && zsh -f -c 'zmodload zsh/zpty' 2>/dev/null; then
	m=$(zsh_missing run "$T/fake.help")
	check "zsh at Tab: the checker finds an option --help alone names (missing:$m)" \
		found "$m"
	for c in $cmds; do
		[ "$c" = help ] && continue
		m=$(zsh_missing "$c" "$T/h.$c")
		check "zsh at Tab: every option of $c --help is offered${m:+ (missing:$m)}" test -z "$m"
	done
	m=
	zsh_offers - >"$T/zo.globals"
	for o in $globals; do grep -qx -- "$o" "$T/zo.globals" || m="$m $o"; done
	check "zsh at Tab: the global options at benchguard -${m:+ (missing:$m)}" test -z "$m"
	zwant() { # WANT WORD...: zsh offers exactly the words of WANT
		local w=$1
		shift
		[ "$(zsh_offers "$@" | tr '\n' ' ')" = "$(printf '%s\n' $w | sort -u | tr '\n' ' ')" ]
	}
	check "zsh at Tab: the commands" zwant "$cmds" ''
	check "zsh at Tab: baseline export import" zwant "export import" baseline ''
	check "zsh at Tab: db copy info prune" zwant "copy info prune" db ''
	check "zsh at Tab: baseline import FILE...: a second file" sh -c "
		cd '$T/files' && zsh -f '$T/zcomp.zsh' '$T/zfunc' '$T/zsh.files' baseline import base.json '' >/dev/null 2>&1
		grep -qx bench.txt '$T/zsh.files' || grep -qx base.json '$T/zsh.files'"
	check "zsh at Tab: alert test flush drop" zwant "test flush drop" alert ''
	check "zsh at Tab: help, the commands" zwant "$cmds" help ''
	check "zsh at Tab: check --format table json markdown junit" zwant "table json markdown junit" check --format ''
	check "zsh at Tab: history --format table json markdown" zwant "table json markdown" history --format ''
	check "zsh at Tab: report --format html markdown json" zwant "html markdown json" report --format ''
	check "zsh at Tab: import --format= lines gbench nvbench hyperfine go pytest catch2 perfstat" \
		zwant "lines gbench nvbench hyperfine go pytest catch2 perfstat" import --format=
	check "zsh at Tab: report -o, files" sh -c "cd '$T/files' && zsh -f '$T/zcomp.zsh' '$T/zfunc' '$T/zo.files' report -o '' &&
		[ \"\$(grep -vx DONE '$T/zo.files' | sort | tr '\n' ' ')\" = 'base.json bench.txt ' ]"
else
	skip "zsh: the completion parses, loads and completes" "zsh (with zsh/zpty) is not installed; make deps installs it"
fi

# make install / uninstall: the page and the completions where man, bash
# and zsh look.  -o: the binary is taken as built (this test checks the
# install, it does not build).
pfx="$T/prefix"
build=${BG_BUILD:?}
# A `make test` above passes its jobserver and flags down: not to this make.
unset MAKEFLAGS MFLAGS MAKELEVEL
if make -s -C "$BG_ROOT" -o "$build/benchguard" install PREFIX="$pfx" BUILD="$build" \
	>"$T/install.out" 2>&1; then
	ok "make install PREFIX=... runs"
else
	not_ok "make install PREFIX=... runs"
	sed 's/^/# /' "$T/install.out" | tail -10
fi
check "make install: share/man/man1/benchguard.1 is the page" cmp -s "$MAN" "$pfx/share/man/man1/benchguard.1"
check "make install: share/bash-completion/completions/benchguard" \
	cmp -s "$BASHC" "$pfx/share/bash-completion/completions/benchguard"
check "make install: share/zsh/site-functions/_benchguard" \
	cmp -s "$ZSHC" "$pfx/share/zsh/site-functions/_benchguard"
check "make install: the binary" test -x "$pfx/bin/benchguard"
if command -v man >/dev/null; then
	check "man finds the installed page through MANPATH" \
		sh -c "MANPATH='$pfx/share/man' MANWIDTH=80 man benchguard 2>/dev/null | grep -q 'GLOBAL OPTIONS'"
fi
make -s -C "$BG_ROOT" uninstall PREFIX="$pfx" BUILD="$build" >"$T/uninstall.out" 2>&1
left=$(find "$pfx" -type f 2>/dev/null)
check "make uninstall removes them${left:+ (left: $left)}" test -z "$left"

finish
