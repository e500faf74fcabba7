# t_hostile_proc.sh -- what a benchmark starts does not outlive it: a daemon
# that left the benchmark's process group with setsid is killed when the
# benchmark ends (holding its output or fully detached, at an exit or at a
# timeout), and the run says so, once per benchmark; a benchmark does not
# outlive a benchguard killed with SIGKILL; a benchmark that leaves nothing
# running gets no such warning.
. "$(dirname "$0")/lib.sh"

# alive PID: a process that has not exited (a zombie has, and in a
# container init may be slow to reap it).
alive() {
	local s
	s=$(sed 's/.*) //' "/proc/$1/stat" 2>/dev/null | cut -c1) || return 1
	[ -n "$s" ] && [ "$s" != Z ]
}
# gone_within SECONDS PID...: true once none of them is alive.
gone_within() {
	local end=$((SECONDS + $1)) p left
	shift
	while :; do
		left=
		for p in "$@"; do alive "$p" && left=1; done
		[ -z "$left" ] && return 0
		[ "$SECONDS" -ge "$end" ] && return 1
		sleep 0.1
	done
}
# Whatever the old behaviour left running is killed when the script ends.
started=()
_reap_leftovers() {
	local p
	for p in "${started[@]}"; do # only if the pid is still one of our sleepers
		[ "$(tr '\0' ' ' <"/proc/$p/cmdline" 2>/dev/null)" = "sleep 300 " ] && kill -9 "$p"
	done
	_cleanup
}
trap _reap_leftovers EXIT

new_repo "$T/r" >/dev/null
cd "$T/r" || exit 1
D="$T/pids"
mkdir -p "$D"
# "held": the daemon keeps the benchmark's stdout and stderr; "detached":
# it lets go of them too, so nothing waits for it; "hang": the benchmark
# starts one and then times out.  Each waits until its daemon is the one
# process left, asleep: the pid file alone was not enough (its .tmp matched
# the pattern, and the daemon's mv could still be running), and a benchmark
# that ended then had left two processes behind.
daemon() { # NAME: a shell command that starts a setsid'd sleeper, pid in $D/NAME.PID
	echo "setsid sh -c 'echo \$\$ > $D/$1.tmp && mv $D/$1.tmp $D/$1.\$\$; exec sleep 300' $2 & until f=\$(ls $D/$1.[0-9]* 2>/dev/null) && [ x\$(cat /proc/\${f##*.}/comm 2>/dev/null) = xsleep ]; do sleep 0.01; done"
}
cat >benchguard.json <<J
{ "defaults": { "warmup": 0, "samples": 1, "timeout": 30 },
  "benchmarks": [
    { "name": "held", "command": "$(daemon held "")" },
    { "name": "detached", "command": "$(daemon detached ">/dev/null 2>&1 </dev/null")" },
    { "name": "hang", "command": "$(daemon hang "") ; sleep 300", "timeout": 1 },
    { "name": "plain", "command": "true" }
  ]
}
J
git add benchguard.json && git commit -qm suite
start=$SECONDS
"$BG" run >"$T/out" 2>"$T/err"
rc=$? elapsed=$((SECONDS - start))
pids=()
for f in "$D"/*.[0-9]*; do
	[ -e "$f" ] || continue
	pids+=("$(cat "$f")")
done
started+=("${pids[@]}")
sed 's/^/# err: /' "$T/err"
check "the three daemons wrote their pids (${#pids[@]})" test "${#pids[@]}" = 3
check "run exits 3 for the timed-out benchmark only (exit $rc)" test "$rc" = 3
check "no daemon is left running after run returns" bash -c "
	for p in ${pids[*]}; do
		s=\$(sed 's/.*) //' /proc/\$p/stat 2>/dev/null | cut -c1)
		[ -z \"\$s\" ] || [ \"\$s\" = Z ] || exit 1
	done"
check "nothing waited for the daemon holding the output (${elapsed}s)" test "$elapsed" -lt 10
for b in held detached hang; do
	check "the run says the daemon of \"$b\" was killed" \
		grep -qxF "benchguard: warning: bench \"$b\": killed 1 process it left running (a daemon?)" "$T/err"
done
check "the benchmark that left nothing running gets no such warning" \
	bash -c "! grep -q 'bench \"plain\"' '$T/err'"
check "held and detached are stored as ok" bash -c "
	[ \"\$(sqlite3 .benchguard/results.db \"SELECT group_concat(benchmark || '=' || status, ',') FROM (SELECT * FROM outcomes ORDER BY benchmark)\")\" = 'detached=ok,hang=failed,held=ok,plain=ok' ]"

# Several samples, each leaving a daemon: all killed, one line for them.
rm -f "$D"/*
cat >benchguard.json <<J
{ "benchmarks": [ { "name": "many", "warmup": 1, "samples": 3,
    "command": "n=\$(cat $D/many 2>/dev/null | wc -l); setsid sh -c 'echo \$\$ >> $D/many; exec sleep 300' >/dev/null 2>&1 </dev/null & while [ \$(cat $D/many | wc -l) -le \$n ]; do sleep 0.01; done" } ] }
J
"$BG" run >"$T/out" 2>"$T/err"
rc=$?
sed 's/^/# err: /' "$T/err"
mapfile -t pids <"$D/many"
started+=("${pids[@]}")
check "4 executions wrote 4 daemon pids (${#pids[@]}), run exits 0 ($rc)" \
	test "${#pids[@]}" = 4 -a "$rc" = 0
check "all four were killed" gone_within 2 "${pids[@]}"
check "one warning for the benchmark, counting them all" bash -c "
	[ \$(grep -c 'left running' '$T/err') = 1 ] &&
	grep -qxF 'benchguard: warning: bench \"many\": killed 4 processes it left running (a daemon?)' '$T/err'"

# benchguard killed with SIGKILL: nothing is left to kill the benchmark but
# the kernel (PR_SET_PDEATHSIG).
rm -f "$D"/*
cat >benchguard.json <<J
{ "benchmarks": [ { "name": "long", "warmup": 0, "samples": 1, "timeout": 600,
    "command": "echo \$\$ > $D/long.tmp && mv $D/long.tmp $D/long; exec sleep 300" } ] }
J
"$BG" run >"$T/out" 2>"$T/err" &
bgpid=$!
for _ in $(seq 1 100); do
	[ -s "$D/long" ] && break
	sleep 0.05
done
bench=$(cat "$D/long" 2>/dev/null)
[ -n "$bench" ] && started+=("$bench")
check "the long benchmark started (pid ${bench:-none})" test -n "$bench"
check "... and runs while benchguard does" alive "${bench:-0}"
kill -9 "$bgpid"
wait "$bgpid" 2>/dev/null
check "after kill -9 of benchguard, the benchmark is gone within 2 s" gone_within 2 "${bench:-0}"
finish
