# tests/e2e/alert_lib.sh -- sourced after lib.sh by the alert tests: real
# HTTP receivers on 127.0.0.1 (tests/fixtures/http/receiver.py), stopped on
# exit, and a repository with six runs of a spinning benchmark, then a
# commit that spins ten times as long, for `ci` to judge and alert on.
unset http_proxy https_proxy HTTP_PROXY HTTPS_PROXY all_proxy ALL_PROXY
PY=/usr/bin/python3
RECV="$FIX/http/receiver.py"
PIDS=()
stop_all() { local p; for p in "${PIDS[@]}"; do kill "$p" 2>/dev/null; done; }
trap 'stop_all; [ -n "${BG_KEEP_TMP:-}" ] || rm -rf "$T"' EXIT

# recv NAME MODE [OPTIONS...]: starts a receiver; sets PORT; log in $T/NAME.log.
recv() {
	local name=$1 i
	shift
	rm -f "$T/$name.port" && : >"$T/$name.log"
	"$PY" "$RECV" "$1" "$T/$name.port" "$T/$name.log" "${@:2}" &
	PIDS+=($!)
	eval "PID_$name=$!"
	for i in $(seq 100); do [ -s "$T/$name.port" ] && break; sleep 0.1; done
	PORT=$(cat "$T/$name.port")
}
# requests NAME: how many requests the receiver NAME got.
requests() { wc -l <"$T/$1.log"; }

cc -O2 -o "$T/spin" "$FIX/bench/spin.c" || { not_ok "building spin"; finish; exit 1; }
new_repo "$T/r" >/dev/null
cd "$T/r" || exit 1
# cfg ROUNDS ALERT...: the suite, out of the tree, with these alert targets.
cfg() {
	local rounds=$1 alerts
	shift
	alerts=$(IFS=,; echo "$*")
	cat >"$T/cfg.json" <<J
{ "project": "demo",
  "baseline": { "branch": "main", "window": 20, "min_runs": 5 },
  "defaults": { "warmup": 1, "samples": 5 },
  "benchmarks": [ { "name": "spin", "command": "$T/spin $rounds" } ],
  "alerts": [ $alerts ] }
J
}
cfg 3000000
export BENCHGUARD_DB="$T/history.db"
for i in 1 2 3 4 5 6; do
	echo "$i" >notes.txt && git add notes.txt && git commit -qm "commit $i"
	"$BG" -q --config "$T/cfg.json" run >/dev/null 2>&1
done
git commit -q --allow-empty -m "spin ten times as long"
# Each scenario starts from this history, with an outbox of its own.
db() { cp "$T/history.db" "$T/$1.db" && export BENCHGUARD_DB="$T/$1.db"; }
ci() { "$BG" --config "$T/cfg.json" ci --confirm 0 "$@"; }
outbox() { sqlite3 "$BENCHGUARD_DB" "SELECT $1 FROM outbox ORDER BY id"; }
