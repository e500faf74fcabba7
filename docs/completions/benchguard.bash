# bash completion for benchguard(1).
#
# Completes the commands, the global options (accepted before or after the
# command), each command's options, the subcommands of baseline, db and
# alert, the values of --format (each command's own), revisions where a
# revision is asked for, and file names for options that take a path.
# Self-contained: works with or without the bash-completion package.
# `make install` puts it in share/bash-completion/completions/benchguard;
# tests/e2e/t_manpage.sh checks it offers every option `--help` names.
# COMPREPLY=($(compgen ...)) splits on purpose: the words hold no blanks
# or glob characters (file names go through _benchguard_files).
# shellcheck disable=SC2207

_benchguard_commands='init run check ci compare bisect import baseline calibrate history
	exclude fingerprint gc db alert report help'
_benchguard_globals='--db --config --format --json -q --quiet -v --verbose --no-color --help'
# Options that take a value (the next word, or after "=").
_benchguard_valued='--db --config --format --commit --filter --samples --warmup --runs
	--timeout --machine --tag --run --baseline-branch --window --min-runs --alpha
	--min-change --min-effect --confirm --max-pairs --max-runs --good --old --bad --new
	--series --step --name -o --output --change --limit --max-age --max-size --since --branch
	--junit --reason --before'

# _benchguard_options CMD SUB: the options of CMD (SUB: its subcommand).
_benchguard_options()
{
	local run='--filter --samples --warmup --runs --timeout --machine --tag --no-build'
	local check='--baseline-branch --window --min-runs --alpha --min-change --min-effect
		--no-fdr --fdr'
	case $1 in
	init) echo --force ;;
	run) echo --commit --retry-build "$run" ;;
	check) echo --run --commit --machine "$check" ;;
	ci) echo "$run" "$check" --confirm --max-pairs --junit ;;
	compare)
		echo --runs --max-runs --retry-build --filter --samples --warmup --timeout --machine \
			--tag --alpha --min-change --min-effect --no-fdr --fdr
		;;
	bisect)
		echo --good --old --bad --new --series --step --filter --runs --max-runs \
			--retry-build --baseline-branch --samples --warmup --timeout --machine --tag \
			--alpha --min-change --min-effect --no-fdr --fdr
		;;
	import) echo --format --commit --machine --name --tag ;;
	baseline)
		case $2 in
		export) echo -o --output --machine --baseline-branch --window ;;
		import) echo --machine --force ;;
		*) echo -o --output --machine --baseline-branch --window --force ;;
		esac
		;;
	calibrate) echo --runs --change --filter --samples --warmup --timeout --machine --tag --no-build ;;
	history) echo --limit ;;
	db) [[ $2 == prune || -z $2 ]] && echo --before --window --baseline-branch --dry-run ;;
	exclude) echo --reason --commit --machine --undo --list ;;
	fingerprint) echo --machine ;;
	gc) echo --max-age --max-size --dry-run ;;
	report) echo --since --filter --branch --machine --include-paired --format -o --output ;;
	esac
}

# Branches, tags and HEAD of the repository here, if any.
_benchguard_revs()
{
	COMPREPLY=($(compgen -W "HEAD $(git for-each-ref --format='%(refname:short)' \
		refs/heads refs/tags refs/remotes 2>/dev/null)" -- "$1"))
}

_benchguard_files()
{
	local IFS=$'\n'
	COMPREPLY=($(compgen -f -- "$1"))
	# Folders get a "/" where bash-completion's own helpers are missing.
	compopt -o filenames 2>/dev/null
}

_benchguard()
{
	local cur prev valopt= cmd= sub= i w nargs=0
	local valued=" ${_benchguard_valued//$'\n'/ } "
	valued=${valued//$'\t'/}
	COMPREPLY=()
	cur=${COMP_WORDS[COMP_CWORD]}
	prev=
	((COMP_CWORD > 0)) && prev=${COMP_WORDS[COMP_CWORD - 1]}
	# The option whose value is being typed: "--opt value", or "--opt=value",
	# which bash splits into "--opt" "=" "value" where "=" is a word break.
	if [[ $cur == = ]]; then
		valopt=$prev cur=
	elif [[ $prev == = ]] && ((COMP_CWORD > 1)); then
		valopt=${COMP_WORDS[COMP_CWORD - 2]}
	elif [[ $cur == --*=* ]]; then
		valopt=${cur%%=*} cur=${cur#*=}
	elif [[ $valued == *" $prev "* ]]; then
		valopt=$prev
	fi

	# The command, its subcommand and how many arguments precede the cursor.
	for ((i = 1; i < COMP_CWORD; i++)); do
		w=${COMP_WORDS[i]}
		case $w in
		=) ;;
		-*)
			# A value follows: skip it (and the "=" bash split off).
			if [[ $w != *=* && $valued == *" $w "* ]]; then
				[[ ${COMP_WORDS[i + 1]} == = ]] && i=$((i + 1))
				i=$((i + 1))
			fi
			;;
		*)
			if [[ -z $cmd ]]; then
				cmd=$w
			elif [[ -z $sub && $cmd =~ ^(baseline|db|alert)$ ]]; then
				sub=$w
			else
				nargs=$((nargs + 1))
			fi
			;;
		esac
	done

	if [[ -n $valopt ]]; then
		case $valopt in
		--format)
			case $cmd in
			report) COMPREPLY=($(compgen -W 'html markdown json' -- "$cur")) ;;
			import) COMPREPLY=($(compgen -W 'lines gbench nvbench hyperfine go pytest catch2 perfstat' -- "$cur")) ;;
			check) COMPREPLY=($(compgen -W 'table json markdown junit' -- "$cur")) ;;
			*) COMPREPLY=($(compgen -W 'table json markdown' -- "$cur")) ;;
			esac
			;;
		--db | --config | -o | --output | --junit) _benchguard_files "$cur" ;;
		--commit | --good | --bad | --old | --new | --baseline-branch | --branch)
			_benchguard_revs "$cur"
			;;
		--machine) [[ $cmd == report ]] && COMPREPLY=($(compgen -W 'all' -- "$cur")) ;;
		--since) COMPREPLY=($(compgen -W '30d 7d 12h 2w all' -- "$cur")) ;;
		--max-age) COMPREPLY=($(compgen -W '14d 12h 0d' -- "$cur")) ;;
		--max-size) COMPREPLY=($(compgen -W '20G 512M' -- "$cur")) ;;
		esac
		return 0
	fi

	if [[ -z $cmd ]]; then
		if [[ $cur == -* ]]; then
			COMPREPLY=($(compgen -W "$_benchguard_globals --version" -- "$cur"))
		else
			COMPREPLY=($(compgen -W "$_benchguard_commands" -- "$cur"))
		fi
		return 0
	fi
	if [[ $cur == -* ]]; then
		local globals=$_benchguard_globals
		# import and report have a --format of their own.
		[[ $cmd == import || $cmd == report ]] && globals=${globals/--format /}
		COMPREPLY=($(compgen -W "$(_benchguard_options "$cmd" "$sub") $globals" -- "$cur"))
		return 0
	fi

	# Words that are not options: subcommands, files, revisions, commands.
	case $cmd in
	baseline)
		if [[ -z $sub ]]; then
			COMPREPLY=($(compgen -W 'export import' -- "$cur"))
		elif [[ $sub == import ]]; then
			_benchguard_files "$cur" # FILE...: every one
		fi
		;;
	db)
		if [[ -z $sub ]]; then
			COMPREPLY=($(compgen -W 'copy info prune' -- "$cur"))
		elif [[ $sub == copy && $nargs -lt 2 ]]; then
			_benchguard_files "$cur"
		fi
		;;
	alert) [[ -z $sub ]] && COMPREPLY=($(compgen -W 'test flush drop' -- "$cur")) ;;
	help) ((nargs == 0)) && COMPREPLY=($(compgen -W "$_benchguard_commands" -- "$cur")) ;;
	import) ((nargs == 0)) && _benchguard_files "$cur" ;;
	compare) ((nargs < 2)) && _benchguard_revs "$cur" ;;
	esac
	return 0
}

complete -F _benchguard benchguard
