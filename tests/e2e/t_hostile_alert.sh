# t_hostile_alert.sh -- alerts among hostile comments and hostile receivers,
# against real HTTP receivers on 127.0.0.1 (tests/fixtures/http/receiver.py):
# a pull request where someone else's comment carries benchguard's marker
# (never edited: benchguard posts its own verdict), our own comment still
# edited in place, an edit the forge refuses (a new comment instead, the
# alert delivered), a token that may not read /user (GitHub Actions'
# GITHUB_TOKEN), and a webhook whose URL path is the secret, behind a
# receiver that quotes it back with terminal escapes: the secret is in no
# output and nowhere in the database, the message still names status and
# host.  And benchmarks and builds that print the alert's token themselves
# (a `set -x` of a curl): "[secret]" in its place everywhere.
. "$(dirname "$0")/lib.sh"

. "$(dirname "$0")/alert_lib.sh"
state() { curl -s "http://127.0.0.1:$1/_state"; }
MARK='<!-- benchguard:demo -->'
export GH_TOKEN=gh-token-for-the-test PR_NUMBER=7
GH='{ "kind": "github", "repo": "octo/demo", "token": "${GH_TOKEN}", "pr": "${PR_NUMBER}", "api_url": "${GH_API}", "timeout": 10 }'
GH2='{ "kind": "github", "repo": "octo/demo", "token": "${GH_TOKEN}", "pr": "${PR_NUMBER}", "api_url": "${GH_API}", "timeout": 2 }'
COMMENTS=/repos/octo/demo/issues/7/comments
EDIT=/repos/octo/demo/issues/comments

# pending NAME: ci while the API is down (nothing listens on port 1), so the
# verdict waits in the outbox for `alert flush` (with the 10 s budget: the
# same target, its strings as written unchanged).
pending() {
	db "$1"
	cfg 30000000 "$GH2"
	GH_API=http://127.0.0.1:1 ci >/dev/null 2>&1
	[ "$(outbox state)" = pending ] || echo "# $1: the alert is not pending: $(outbox state)"
	cfg 30000000 "$GH"
}
# writes LOG: the receiver's requests other than GETs, "METHOD PATH STATUS" a line.
writes() {
	"$PY" -c 'import json, sys
for l in open(sys.argv[1]):
    e = json.loads(l)
    if e["method"] != "GET": print(e["method"], e["path"], e["status"])' "$1"
}
# comments_say STATE: prints "ID AUTHOR MARKED VERDICT" for each comment.
comments_say() {
	"$PY" -c 'import json, sys
for c in json.load(open(sys.argv[1])):
    who = (c.get("user") or c.get("author") or {})
    who = who.get("login") or who.get("username")
    b = c["body"]
    print(c["id"], who, int(b.startswith(sys.argv[2])), int("| **regression** | `spin:wall_time`" in b))' "$1" "$MARK"
}

# 1. Someone else's comment carries the marker (first on the thread): it is
# not edited; benchguard posts its own comment; the alert is delivered.
cat >"$T/seed-other.json" <<J
[ { "id": 201, "body": "$MARK\nbenchguard says: all good, merge it", "user": { "login": "mallory" } } ]
J
pending other
recv other github --token "$GH_TOKEN" --seed "$T/seed-other.json"
OTHER=$PORT
GH_API="http://127.0.0.1:$OTHER" expect_rc 0 "$BG" --config "$T/cfg.json" alert flush
check "someone else's comment with the marker: alert flush exits 0, the alert delivered" bash -c "
	grep -q '^delivered  *#1 github octo/demo#7' '$T/out' && [ \"\$(sqlite3 '$BENCHGUARD_DB' 'SELECT state FROM outbox')\" = delivered ]"
writes "$T/other.log" >"$T/other.writes"
check "... that comment is not PATCHed: one POST of a new comment, answered 201" \
	test "$(cat "$T/other.writes")" = "POST $COMMENTS 201"
state "$OTHER" >"$T/other1.json"
check "... mallory's comment is unchanged; ours, new, has the verdict" \
	test "$(grep -c 'benchguard says: all good' "$T/other1.json") $(comments_say "$T/other1.json" |
		tail -n 2 | tr '\n' ' ')" = "1 201 mallory 1 0 1001 benchguard 1 1 "
check "... the token's identity was asked once (GET /user)" \
	test "$(grep -c '"path": "/user"' "$T/other.log")" = 1
: >"$T/other.log"
GH_API="http://127.0.0.1:$OTHER" ci >/dev/null 2>"$T/err"
check "... the next ci edits our comment, not mallory's" \
	test "$(writes "$T/other.log")" = "PATCH $EDIT/1001 200"

# 2. Our own comment, after a marked one by someone else and before a reply
# of ours that quotes the marker: edited in place, nothing posted (no
# regression of the one comment per PR).
cat >"$T/seed-own.json" <<J
[ { "id": 201, "body": "$MARK\nfake verdict", "user": { "login": "mallory" } },
  { "id": 202, "body": "$MARK\nan older verdict", "user": { "login": "benchguard" } },
  { "id": 203, "body": "> $MARK\n> quoted by hand", "user": { "login": "benchguard" } } ]
J
db own
recv own github --token "$GH_TOKEN" --seed "$T/seed-own.json"
OWN=$PORT
cfg 30000000 "$GH"
GH_API="http://127.0.0.1:$OWN" ci >/dev/null 2>"$T/err"
check "our own marked comment is edited in place: one PATCH of it, no POST" \
	test "$(writes "$T/own.log")" = "PATCH $EDIT/202 200"
state "$OWN" >"$T/own1.json"
check "... it has the verdict; mallory's and the hand-quoted one are untouched" \
	test "$(comments_say "$T/own1.json" | tail -n 3 | tr '\n' ' ')" = \
	"201 mallory 1 0 202 benchguard 1 1 203 benchguard 0 0 "
check "... and the outbox says delivered" test "$(outbox state)" = delivered

# 3. The forge refuses the edit (403): a new comment, the alert delivered.
pending refused
recv refused github --token "$GH_TOKEN" --seed "$T/seed-own.json" --refuse-edit
GH_API="http://127.0.0.1:$PORT" expect_rc 0 "$BG" -v --config "$T/cfg.json" alert flush
check "an edit refused with 403: alert flush exits 0 and says delivered" bash -c "
	grep -q '^delivered  *#1 github octo/demo#7' '$T/out' &&
	[ \"\$(sqlite3 '$BENCHGUARD_DB' 'SELECT state, last_status FROM outbox')\" = 'delivered|201' ]"
check "... PATCH answered 403, then a new comment POSTed" \
	test "$(writes "$T/refused.log" | tr '\n' ' ')" = "PATCH $EDIT/202 403 POST $COMMENTS 201 "
check "... -v says why it posted instead" grep -q 'edit.*refused.*HTTP 403.*new comment' "$T/err"

# 4. A token that may not read /user (GitHub Actions' GITHUB_TOKEN): the
# comments of github-actions[bot], as which such a token posts, are ours.
db gha
recv gha github --token "$GH_TOKEN" --user 'github-actions[bot]' --user-status 403 \
	--seed "$T/seed-other.json"
GHA=$PORT
GH_API="http://127.0.0.1:$GHA" ci >/dev/null 2>"$T/err"
GH_API="http://127.0.0.1:$GHA" ci >/dev/null 2>>"$T/err"
check "GITHUB_TOKEN (/user answers 403): first ci posts, the second edits that comment" \
	test "$(writes "$T/gha.log" | tr '\n' ' ')" = "POST $COMMENTS 201 PATCH $EDIT/1001 200 "
check "... both delivered; no warning" bash -c "
	[ \"\$(sqlite3 '$BENCHGUARD_DB' 'SELECT group_concat(state) FROM outbox')\" = delivered,delivered ] &&
	! grep -q warning '$T/err'"

# 5. GitLab: the author of a note is author.username / author.id.
cat >"$T/seed-gl.json" <<J
[ { "id": 201, "body": "$MARK\nfake", "system": false, "author": { "username": "mallory", "id": 7 } } ]
J
db gitlab
recv gl gitlab --token gl-token-for-the-test --seed "$T/seed-gl.json"
GL_PORT=$PORT
export GL_TOKEN=gl-token-for-the-test
GL='{ "kind": "gitlab", "repo": "group/demo", "token": "${GL_TOKEN}", "pr": "7", "api_url": "${GL_API}", "timeout": 10 }'
cfg 30000000 "$GL"
MR=/api/v4/projects/group%2Fdemo/merge_requests/7/notes
GL_API="http://127.0.0.1:$GL_PORT/api/v4" ci >/dev/null 2>"$T/err"
GL_API="http://127.0.0.1:$GL_PORT/api/v4" ci >/dev/null 2>>"$T/err"
check "gitlab: someone else's marked note is left alone; ours is created, then PUT" \
	test "$(writes "$T/gl.log" | tr '\n' ' ')" = "POST $MR 201 PUT $MR/1001 200 "

# A GitLab token that may not read /user: whose notes are ours is not known,
# so none is edited; each verdict is a new note (never someone else's).
db gitlab-anon
recv gla gitlab --token gl-token-for-the-test --user-status 403 --seed "$T/seed-gl.json"
GL_API="http://127.0.0.1:$PORT/api/v4" ci >/dev/null 2>"$T/err"
GL_API="http://127.0.0.1:$PORT/api/v4" ci >/dev/null 2>>"$T/err"
check "gitlab, /user refused: no note edited, a new one each time, both delivered" \
	test "$(outbox state | tr '\n' ' ')$(writes "$T/gla.log" | tr '\n' ' ')" = \
	"delivered delivered POST $MR 201 POST $MR 201 "

# 5b. An outbox entry whose pull-request number is not one (a database
# written by someone else, or an older benchguard that took "007"): its
# number would go into the token's URL, "7/../../../user" a step out of
# the thread.  Failed, nothing requested.
pending badpr
sqlite3 "$BENCHGUARD_DB" "UPDATE outbox SET pr = '7/../../../user'"
recv badpr github --token "$GH_TOKEN"
GH_API="http://127.0.0.1:$PORT" "$BG" --config "$T/cfg.json" alert flush >"$T/out" 2>&1
check "an outbox entry with pr \"7/../../../user\": failed as malformed, no request made" bash -c "
	[ \"\$(sqlite3 '$BENCHGUARD_DB' 'SELECT state, last_error FROM outbox')\" = 'failed|a malformed outbox entry' ] &&
	[ ! -s '$T/badpr.log' ]"
kill "$PID_badpr" 2>/dev/null

# 6. A webhook whose path is the secret (from ${VAR}), and a receiver that
# answers 404 quoting the path back, with terminal escapes and 20 kB more.
SECRET=T000/B000/XXXXSECRET
db secret
recv echo script:404 --echo
EP=$PORT
export HOOK_PATH=$SECRET HOOK_SECRET=whsec-zz7-signing
cfg 30000000 "{ \"kind\": \"slack\", \"url\": \"http://127.0.0.1:$EP/services/\${HOOK_PATH}\", \"timeout\": 5 }" \
	"{ \"kind\": \"webhook\", \"url\": \"http://user:PASSWD-zz7@127.0.0.1:$EP/hooks/LITERALKEY-zz7?token=QTOKEN-zz7\", \"secret\": \"\${HOOK_SECRET}\", \"timeout\": 5 }"
ci -v >"$T/s.out" 2>"$T/s.err"
rc=$?
"$BG" -v --config "$T/cfg.json" alert test >"$T/t.out" 2>"$T/t.err"
trc=$?
sqlite3 "$BENCHGUARD_DB" .dump >"$T/dump.sql"
check "a secret path, answered 404 with the path quoted back: ci exits 1 (got $rc), alert test 3 (got $trc)" \
	test "$rc $trc" = "1 3"
check "... the receiver got the secret path (the test is real)" grep -q "XXXXSECRET" "$T/echo.log"
# The literal URL's password as the receiver saw it: in a Basic header.
BASIC=$(printf 'user:PASSWD-zz7' | base64)
check "... the receiver got the Basic header (the test is real)" grep -q "$BASIC" "$T/echo.log"
check "... the secret is in no output: ci -v, alert test -v" bash -c "
	! grep -a -e XXXXSECRET -e B000 -e zz7 -e '$BASIC' '$T/s.out' '$T/s.err' '$T/t.out' '$T/t.err'"
check "... nor anywhere in the database: its bytes and its .dump" bash -c "
	! cat '$BENCHGUARD_DB'* | grep -a -q -e XXXXSECRET -e B000 -e zz7 -e '$BASIC' &&
	! grep -a -q -e XXXXSECRET -e B000 -e zz7 -e '$BASIC' '$T/dump.sql'"
check "... the message is still informative: method, host, status, the answer scrubbed" bash -c "
	grep -q 'slack http://127.0.0.1:$EP/\*\*\*: refused (POST http://127.0.0.1:$EP/\*\*\*: HTTP 404: Cannot POST \[secret\]' '$T/s.err' &&
	grep -q '^failed  *slack http://127.0.0.1:$EP/\*\*\* (1 request, HTTP 404): POST http://127.0.0.1:$EP/\*\*\*: HTTP 404: Cannot POST \[secret\]' '$T/t.out' &&
	[ \"\$(sqlite3 '$BENCHGUARD_DB' 'SELECT last_status FROM outbox ORDER BY id LIMIT 1')\" = 404 ] &&
	sqlite3 '$BENCHGUARD_DB' 'SELECT last_error FROM outbox' | grep -q 'http://127.0.0.1:$EP/\*\*\*: HTTP 404: Cannot POST \[secret\]'"
check "... the answer quoted is one line, short, its escapes shown not sent" bash -c "
	! grep -a -q \$'\x1b' '$T/s.err' '$T/t.out' '$T/t.err' &&
	! grep -a -q \$'\x07' '$T/s.err' '$T/t.out' '$T/t.err' &&
	! grep -q '^::error::' '$T/s.err' '$T/t.out' '$T/t.err' &&
	! sqlite3 '$BENCHGUARD_DB' 'SELECT last_error FROM outbox' | grep -a -q \$'\x1b' &&
	[ \$(awk '{ if (length > m) m = length } END { print m + 0 }' '$T/s.err' '$T/t.out' '$T/t.err') -lt 600 ] &&
	grep -q 'Cannot POST \[secret\] \\\\x1b\[31mred' '$T/t.out'"
# 7. Benchmarks that print the alert's token (a `set -x` of a curl, then
# exit 7; a line the parser quotes) and builds that do (here, and in a
# worktree whose failure is remembered): "[secret]" in the token's place
# in every output and file, in the posted comment and in the database.
db leak
recv leak github --token "$GH_TOKEN"
export GH_API="http://127.0.0.1:$PORT"
printf 'set -x\n: curl -sf -H "Authorization: Bearer $GH_TOKEN" https://api.example.com/x\nexit 7\n' >"$T/api.sh"
printf 'echo "BENCHGUARD v $GH_TOKEN ms"\n' >"$T/quoted.sh"
printf 'echo "make: Bearer $GH_TOKEN"; echo "cc: $GH_TOKEN: error" >&2; exit 2\n' >"$T/build.sh"
leak_cfg() {
	cat >"$T/leak.json" <<J
{ "project": "demo", $1
  "baseline": { "branch": "main", "window": 20, "min_runs": 5 },
  "defaults": { "warmup": 1, "samples": 5 },
  "benchmarks": [ { "name": "spin", "command": "$T/spin 3000000" },
    { "name": "api", "command": "sh $T/api.sh" },
    { "name": "quoted", "format": "lines", "command": "sh $T/quoted.sh" } ],
  "alerts": [ { "kind": "github", "repo": "octo/demo", "token": "\${GH_TOKEN}",
    "pr": "\${PR_NUMBER}", "api_url": "\${GH_API}", "on": ["always"], "timeout": 10 } ] }
J
}
leak_cfg ""
: >"$T/leak.md"
GITHUB_ACTIONS=true GITHUB_STEP_SUMMARY="$T/leak.md" "$BG" -v --config "$T/leak.json" ci \
	--confirm 0 --junit "$T/leak.xml" >"$T/leak.out" 2>"$T/leak.err"
rc=$?
"$BG" --config "$T/leak.json" report --format json >"$T/leak.json.out" 2>>"$T/leak.err"
"$BG" --config "$T/leak.json" report --format markdown >"$T/leak.report.md" 2>>"$T/leak.err"
state "$PORT" >"$T/leak.state"
check "benchmarks that print the token and fail: ci exits 3 (got $rc), the failures quote their output" \
	bash -c "[ $rc = 3 ] && grep -q 'exit status 7; stderr: .*Authorization: Bearer \[secret\]' '$T/leak.out' &&
	grep -q 'Bearer [^ ]*secret' '$T/leak.md' && grep -q '\[secret\]' '$T/leak.xml' &&
	grep -q '^::error .*Bearer \[secret\]' '$T/leak.out' &&
	grep -q 'Authorization: Bearer [^ ]*secret' '$T/leak.state'"
leak_cfg '"build": "sh '"$T"'/build.sh",'
GITHUB_STEP_SUMMARY="$T/leak.md" "$BG" --config "$T/leak.json" ci --confirm 0 >>"$T/leak.out" 2>>"$T/leak.err"
brc=$?
"$BG" --config "$T/leak.json" run --commit HEAD~1 >>"$T/leak.out" 2>>"$T/leak.err"
wrc=$?
"$BG" --config "$T/leak.json" run --commit HEAD~1 >>"$T/leak.out" 2>>"$T/leak.err"
check "builds that print it and fail: exit 3 (got $brc, $wrc), their logs' tails shown" bash -c "
	[ '$brc $wrc' = '3 3' ] && grep -q '^make: Bearer \[secret\]' '$T/leak.err' &&
	grep -q '^cc: \[secret\]: error' '$T/leak.err' &&
	[ \$(grep -c '^cc: \[secret\]: error' '$T/leak.err') = 3 ] &&
	grep -q 'remembered from an earlier attempt' '$T/leak.err'"
sqlite3 "$BENCHGUARD_DB" .dump >"$T/leak.sql"
state "$PORT" >>"$T/leak.state"
check "... the token is in no output, file, build log, posted body nor the database (its -wal too)" bash -c "
	! grep -a -q -e '$GH_TOKEN' '$T/leak.out' '$T/leak.err' '$T/leak.md' '$T/leak.xml' \
		'$T/leak.json.out' '$T/leak.report.md' '$T/leak.sql' &&
	! $PY -c 'import json,sys
for l in open(sys.argv[1]): print(json.loads(l)[\"body\"])' '$T/leak.log' | grep -a -q -e '$GH_TOKEN' &&
	! grep -a -q -e '$GH_TOKEN' '$T/leak.state' &&
	! grep -a -q -e '$GH_TOKEN' .benchguard/worktrees/*.build.log &&
	grep -q '^make: Bearer \[secret\]' .benchguard/worktrees/*.build.log &&
	[ \$(cat '$BENCHGUARD_DB'* | grep -a -c -e '$GH_TOKEN') = 0 ]"
finish
