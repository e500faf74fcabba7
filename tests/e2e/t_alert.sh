# t_alert.sh -- alerts from `benchguard ci` against real HTTP receivers on
# 127.0.0.1 (tests/fixtures/http/receiver.py): a signed webhook whose body is
# the check JSON; retries on 500 and 429 (after Retry-After); a receiver that
# never answers abandoned within the target's timeout, the verdict's exit
# code unchanged; the outbox when the receiver is down, delivered exactly
# once by `alert flush` or the next `ci`; a GitHub pull-request comment and
# a GitLab merge-request note created once and then edited in place; no
# secret in any output with -v.
. "$(dirname "$0")/lib.sh"

. "$(dirname "$0")/alert_lib.sh"
# ci_unset VAR: ci with VAR unset; stderr in $T/err, the exit code in $T/rc.
ci_unset() { (unset "$1" && ci >/dev/null 2>"$T/err"; echo $? >"$T/rc"); }
HOOK='{ "kind": "webhook", "url": "${HOOK_URL}", "secret": "${HOOK_SECRET}", "timeout": 10 }'

# 1. The signed webhook: its body is the check result.
db signed
recv hook1 script:200
export HOOK_URL="http://127.0.0.1:$PORT/hook" HOOK_SECRET="shared-secret-for-the-test"
cfg 30000000 "$HOOK"
ci --json >"$T/ci.json" 2>"$T/err"
rc=$?
check "a regression with a webhook: ci exits 1 (got $rc)" test "$rc" = 1
"$BG" --config "$T/cfg.json" check --json >"$T/check.json" 2>/dev/null
check "the receiver got one POST, signed with the shared secret, whose body is the check result" \
	"$PY" - "$T/hook1.log" "$HOOK_SECRET" "$T/ci.json" "$T/check.json" <<'PY'
import hashlib, hmac, json, sys, time
log = [json.loads(l) for l in open(sys.argv[1])]
secret = sys.argv[2].encode()
ci, check = json.load(open(sys.argv[3])), json.load(open(sys.argv[4]))
assert len(log) == 1 and log[0]["method"] == "POST", log
h = {k.lower(): v for k, v in log[0]["headers"].items()}
raw = log[0]["body"].encode()
want = "sha256=" + hmac.new(secret, raw, hashlib.sha256).hexdigest()
assert hmac.compare_digest(h["x-benchguard-signature"], want), "signature does not verify"
ts = h["x-benchguard-timestamp"]
assert abs(time.time() - int(ts)) < 300, ts
want = "sha256=" + hmac.new(secret, ts.encode() + b"." + raw, hashlib.sha256).hexdigest()
assert hmac.compare_digest(h["x-benchguard-timestamp-signature"], want), "timestamped signature"
body = json.loads(raw)
assert h["x-benchguard-delivery"] == body["alert_id"]
assert body["project"] == "demo" and body["event"] == "regression", body
# Exactly the JSON `ci --json` printed, plus the alert's own keys.
extra = {k: body.pop(k) for k in ("project", "event", "subject", "links", "alert_id", "created_at")}
assert body == ci, (body, ci)
assert body["results"] == check["results"] and body["run"] == check["run"], "differs from check --json"
verdicts = {r["series"]: r["verdict"] for r in body["results"]}
assert verdicts["spin:wall_time"] == "regression", verdicts
PY
check "... and it is marked delivered in the outbox after one request" \
	test "$(outbox "state || ' ' || attempts")" = "delivered 1"

# A Slack target: a message one reads in two seconds.
db slack
recv slack script:200
cfg 30000000 '{ "kind": "slack", "url": "${SLACK_URL}" }'
SLACK_URL="http://127.0.0.1:$PORT/services/T0/B0/key" ci >/dev/null 2>&1
check "a Slack message names the series, how much worse, and the commit" \
	"$PY" - "$T/slack.log" "$(git rev-parse --short=12 HEAD)" <<'PY'
import json, re, sys
log = [json.loads(l) for l in open(sys.argv[1])]
assert len(log) == 1, log
text = json.loads(log[0]["body"])["text"]
assert re.match(r":rotating_light: \*benchguard\* `demo`: \d regressions? at ", text), text
assert "`spin:wall_time`" in text, text
assert re.search(r"\d+\.\d% worse", text) and sys.argv[2] in text, text
assert "spin ten times as long" in text, text
PY

# 2. Retries: 500 twice then 200; 429 with Retry-After: 1; never answered.
db retry
recv flaky script:500,500,200
cfg 30000000 "$HOOK"
HOOK_URL="http://127.0.0.1:$PORT/hook" ci >/dev/null 2>"$T/err"
rc=$?
check "500, 500, 200: ci still exits with the verdict's code 1 (got $rc)" test "$rc" = 1
check "... three requests of one alert, the third answered 200: delivered once" "$PY" - "$T/flaky.log" <<'PY'
import json, sys
log = [json.loads(l) for l in open(sys.argv[1])]
assert [e["status"] for e in log] == [500, 500, 200], log
assert len({e["headers"]["X-Benchguard-Delivery"] for e in log}) == 1
assert log[1]["t"] - log[0]["t"] >= 0.4 and log[2]["t"] - log[1]["t"] >= 0.9, "no backoff"
PY
check "... the outbox says delivered after 3 requests" \
	test "$(outbox "state || ' ' || attempts || ' ' || last_status")" = "delivered 3 200"

db ratelimit
recv slow script:429ra1,200
HOOK_URL="http://127.0.0.1:$PORT/hook" ci >/dev/null 2>"$T/err"
check "429 with Retry-After: 1: retried after at least a second, then delivered" "$PY" - "$T/slow.log" <<'PY'
import json, sys
log = [json.loads(l) for l in open(sys.argv[1])]
assert [e["status"] for e in log] == [429, 200], log
gap = log[1]["t"] - log[0]["t"]
print("# Retry-After gap: %.3f s" % gap)
assert gap >= 1.0, gap
PY
check "... delivered" test "$(outbox state)" = delivered

db hang
recv hang hang
cfg 30000000 '{ "kind": "webhook", "url": "${HOOK_URL}", "timeout": 3 }'
HOOK_URL="http://127.0.0.1:$PORT/hook" ci >/dev/null 2>"$T/err"
rc=$?
end=$("$PY" -c 'import time; print(time.time())')
check "a receiver that never answers: ci exits with the verdict's code 1 (got $rc)" test "$rc" = 1
check "... abandoned within its 3 s timeout (first request to ci's end)" "$PY" - "$T/hang.log" "$end" <<'PY'
import json, sys
log = [json.loads(l) for l in open(sys.argv[1])]
spent = float(sys.argv[2]) - log[0]["t"]
print("# hang: %.2f s from the first request to the end of ci" % spent)
assert 2.5 <= spent <= 3 + 2.0, spent
PY
check "... kept in the outbox, with a warning that says so" bash -c "
	[ \"\$(sqlite3 '$BENCHGUARD_DB' 'SELECT state FROM outbox')\" = pending ] &&
	grep -q 'not delivered.*kept in the outbox' '$T/err'"
kill "$PID_hang" 2>/dev/null

db refused
recv gone script:404
cfg 30000000 "$HOOK"
HOOK_URL="http://127.0.0.1:$PORT/hook" ci >/dev/null 2>"$T/err"
rc=$?
check "a 404: one request, no retry, kept as failed; ci exits 1 (got $rc)" bash -c "
	[ $rc = 1 ] && [ \$(wc -l <'$T/gone.log') = 1 ] &&
	[ \"\$(sqlite3 '$BENCHGUARD_DB' 'SELECT state, last_status FROM outbox')\" = 'failed|404' ] &&
	grep -q 'refused (POST http://127.0.0.1:[0-9]*/\*\*\*: HTTP 404' '$T/err'"

# A 200 whose body ends early (the connection closed before its
# Content-Length): the POST took effect.  It was retried four times, left
# pending, and sent again by every alert flush and ci.
db cut
recv cut script:200cut
cfg 30000000 "$HOOK"
HOOK_URL="http://127.0.0.1:$PORT/hook" ci -v >/dev/null 2>"$T/err"
rc=$?
check "a 200 with its body cut short: one request, delivered; ci exits 1 (got $rc)" bash -c "
	[ $rc = 1 ] && [ \$(wc -l <'$T/cut.log') = 1 ] &&
	[ \"\$(sqlite3 '$BENCHGUARD_DB' 'SELECT state, attempts, last_status FROM outbox')\" = 'delivered|1|200' ] &&
	grep -q 'try 1: HTTP 200 (the answer cut short: ' '$T/err'"
HOOK_URL="http://127.0.0.1:$PORT/hook" expect_rc 0 "$BG" --config "$T/cfg.json" alert flush
check "... alert flush sends nothing more" bash -c "
	grep -q 'the outbox holds nothing to deliver' '$T/out' && [ \$(wc -l <'$T/cut.log') = 1 ]"

# A garbled status line is the receiver's passing fault: retried, not
# failed for good as "Unsupported protocol" (libcurl's word for it).
db garbled
recv garbled script:502xttp,200
HOOK_URL="http://127.0.0.1:$PORT/hook" ci >/dev/null 2>"$T/err"
check "a garbled status line, then 200: retried and delivered" bash -c "
	[ \$(wc -l <'$T/garbled.log') = 2 ] &&
	[ \"\$(sqlite3 '$BENCHGUARD_DB' 'SELECT state, attempts FROM outbox')\" = 'delivered|2' ]"

# A value from the environment that cannot go into a request: a secret
# pasted with its line break, a URL of another scheme.  The target is left
# out with the reason, the value not shown, nothing sent.
db crlf
recv never script:200
HOOK_SECRET=$'s3cret-zz9\n' HOOK_URL="http://127.0.0.1:$PORT/hook" ci >"$T/out" 2>"$T/err"
rc=$?
check "a secret ending in a line break: nothing sent, ci exits 1 (got $rc)" bash -c "
	[ $rc = 1 ] && [ ! -s '$T/never.log' ] && [ \$(sqlite3 '$BENCHGUARD_DB' 'SELECT count(*) FROM outbox') = 0 ]"
check "... a warning that says why, without the value" bash -c "
	grep -q 'webhook alert not sent: secret holds a control character (a line break: a value pasted with its newline?)' '$T/err' &&
	! grep -q zz9 '$T/out' '$T/err'"
HOOK_URL="ftp://127.0.0.1:$PORT/hook" ci >/dev/null 2>"$T/err"
check "a url of another scheme from the environment: left out, saying so" bash -c "
	grep -q 'webhook alert not sent: url does not start with https:// or http://' '$T/err' &&
	[ ! -s '$T/never.log' ] && [ \$(sqlite3 '$BENCHGUARD_DB' 'SELECT count(*) FROM outbox') = 0 ]"

# A pending alert whose target is gone from the config (its URL, mistyped,
# since fixed): never sent, and every ci warned and every alert flush exited
# 3 for good.  alert flush says how to give it up; alert drop does.
db orphan
cfg 30000000 '{ "kind": "webhook", "url": "http://127.0.0.1:1/hook", "timeout": 1 }'
ci >/dev/null 2>&1
recv fixed script:200
cfg 30000000 "{ \"kind\": \"webhook\", \"url\": \"http://127.0.0.1:$PORT/hook\", \"timeout\": 5 }"
expect_rc 3 "$BG" --config "$T/cfg.json" alert flush
check "an alert whose target is gone: alert flush exits 3, saying how to give it up" \
	grep -q '^pending  *#1 webhook http://127.0.0.1:1/\*\*\* (0 requests): its target is no longer configured; `benchguard alert drop 1` gives it up' "$T/out"
expect_rc 2 "$BG" --config "$T/cfg.json" alert drop 1 x
check "alert drop 1 x: exit 2, nothing dropped" bash -c "
	grep -q 'alert drop takes the ids of pending alerts, the #N that alert flush shows (got \"x\")' '$T/err' &&
	[ \"\$(sqlite3 '$BENCHGUARD_DB' 'SELECT state FROM outbox')\" = pending ]"
expect_rc 0 "$BG" --config "$T/cfg.json" alert drop '#1'
check "alert drop #1: exit 0, the entry kept as failed, dropped by hand" bash -c "
	grep -qx 'dropped    #1 webhook http://127.0.0.1:1/\*\*\*' '$T/out' &&
	[ \"\$(sqlite3 '$BENCHGUARD_DB' 'SELECT state, last_error FROM outbox')\" = 'failed|dropped by hand (benchguard alert drop)' ]"
expect_rc 2 "$BG" --config "$T/cfg.json" alert drop 1
check "... dropping it again: exit 2, it is not pending" grep -q 'no alert #1 is pending in the outbox' "$T/err"
expect_rc 0 "$BG" --config "$T/cfg.json" alert flush
check "... alert flush: nothing to deliver, exit 0, nothing sent" bash -c "
	grep -q 'the outbox holds nothing to deliver' '$T/out' && [ ! -s '$T/fixed.log' ]"
cfg 30000000 '{ "kind": "webhook", "url": "http://127.0.0.1:1/hook", "timeout": 1 }'
ci >/dev/null 2>&1
cfg 30000000
sed -i 's/"alerts": \[  \]/"alerts": []/' "$T/cfg.json"
expect_rc 3 "$BG" --config "$T/cfg.json" alert flush
check "no alerts configured, one pending: alert flush lists it (exit 3)" \
	grep -q '^pending  *#2 webhook .*`benchguard alert drop 2` gives it up' "$T/out"
"$BG" --config "$T/cfg.json" alert drop 2 >/dev/null
expect_rc 2 "$BG" --config "$T/cfg.json" alert flush
check "... none pending: exit 2, no alerts are configured" grep -q 'no "alerts" are configured' "$T/err"
cfg 30000000 "$HOOK"

db unset
ci_unset HOOK_URL
check "a \${VAR} that is not set: a warning, the alert left out, the verdict's exit 1" bash -c "
	[ \$(cat '$T/rc') = 1 ] &&
	grep -q 'warning: $T/cfg.json:[0-9]*: webhook alert not sent: environment variable HOOK_URL is not set' '$T/err' &&
	[ \$(sqlite3 '$BENCHGUARD_DB' 'SELECT count(*) FROM outbox') = 0 ]"

# 3. Receiver down: the outbox; `alert flush`, then the next ci, deliver it once.
db outbox
recv dead script:200
kill "$PID_dead" && wait "$PID_dead" 2>/dev/null
cfg 30000000 '{ "kind": "webhook", "url": "${HOOK_URL}", "timeout": 2 }'
export HOOK_URL="http://127.0.0.1:$PORT/hook"
ci >/dev/null 2>"$T/err"
rc=$?
check "receiver down: ci exits 1 (got $rc) and the alert waits in the outbox" \
	test "$rc $(outbox state)" = "1 pending"
recv up script:200
export HOOK_URL="http://127.0.0.1:$PORT/hook"
# Claimed by a benchguard that died sending it (killed -9 in ci), the
# claim not run out yet: not delivered now, and said so, exit 3.  It said
# "the outbox holds nothing to deliver", exit 0.
sqlite3 "$BENCHGUARD_DB" "UPDATE outbox SET claimed_until = strftime('%s', 'now') + 100"
expect_rc 3 "$BG" --config "$T/cfg.json" alert flush
check "an alert another benchguard claimed: alert flush exits 3, saying it is pending and why" bash -c "
	grep -q '^pending  *#1 webhook .*another benchguard is sending it (or died sending it); it may be sent again from [0-9][0-9]:[0-9][0-9]:[0-9][0-9] UTC' '$T/out' &&
	grep -q '^0 delivered, 1 pending, 0 failed, 0 disabled' '$T/out' && [ ! -s '$T/up.log' ]"
# The claim runs out a second from now, within the flush's 2 s budget,
# and the entry is as an older benchguard wrote it (its target named
# without the project): the flush waits, claims it, and delivers it.
sqlite3 "$BENCHGUARD_DB" "UPDATE outbox SET claimed_until = strftime('%s', 'now') + 1,
	target = substr(target, 1, instr(target, '@') - 1)"
check "(the entry's target is named as an older benchguard named it)" \
	test "$(outbox "instr(target, '@') = 0 AND length(target) > 8")" = 1
expect_rc 0 "$BG" --config "$T/cfg.json" alert flush
check "alert flush with the receiver up: delivered, exit 0" bash -c "
	[ \$(wc -l <'$T/up.log') = 1 ] && grep -q '^delivered  *#1 webhook' '$T/out' &&
	[ \"\$(sqlite3 '$BENCHGUARD_DB' 'SELECT state FROM outbox')\" = delivered ]"
expect_rc 0 "$BG" --config "$T/cfg.json" alert flush
check "... a second flush sends nothing" bash -c "
	[ \$(wc -l <'$T/up.log') = 1 ] && grep -q 'holds nothing to deliver' '$T/out'"
HOOK_URL="http://127.0.0.1:1/hook" ci >/dev/null 2>&1 # nothing listens on port 1
ci >/dev/null 2>"$T/err"
check "down during one ci, up for the next: each alert delivered exactly once, oldest first" \
	"$PY" - "$T/up.log" "$(outbox uid | tr '\n' ' ')" <<'PY'
import json, sys
log = [json.loads(l) for l in open(sys.argv[1])]
ids = [e["headers"]["X-Benchguard-Delivery"] for e in log]
assert ids == sys.argv[2].split(), (ids, sys.argv[2])
PY
check "... and the outbox has nothing pending" test "$(outbox state | sort -u)" = delivered

# edited_in_place STATE1 STATE2 LOG CREATE UPDATE HEADER VALUE: our comment
# is in each state once, the same one, with the verdict table; the writes were
# "POST CREATE" then "UPDATE<its id>"; the list was read past page 1; every
# API request carried "HEADER: VALUE".
edited_in_place() {
	"$PY" - "$@" <<'PY'
import json, sys
s1, s2 = json.load(open(sys.argv[1])), json.load(open(sys.argv[2]))
log = [json.loads(l) for l in open(sys.argv[3])]
ours1 = [c for c in s1 if "<!-- benchguard:demo -->" in c["body"]]
ours2 = [c for c in s2 if "<!-- benchguard:demo -->" in c["body"]]
assert len(ours1) == 1 and len(ours2) == 1, (ours1, ours2)
assert ours1[0]["id"] == ours2[0]["id"] and len(s2) == 4, s2
assert "| **regression** | `spin:wall_time`" in ours2[0]["body"], ours2[0]["body"]
writes = ["%s %s" % (e["method"], e["path"]) for e in log if e["method"] != "GET"]
assert writes == ["POST " + sys.argv[4], sys.argv[5] + str(ours1[0]["id"])], writes
api = [e for e in log if e["path"] != "/_state"]
assert any("page=2" in e["path"] for e in api), "pagination not followed"
assert all(e["headers"].get(sys.argv[6]) == sys.argv[7] for e in api)
PY
}
# no_regression_now STATE: our one comment says there is no regression.
no_regression_now() {
	"$PY" - "$1" <<'PY'
import json, sys
ours = [c for c in json.load(open(sys.argv[1])) if "<!-- benchguard:demo -->" in c["body"]]
assert len(ours) == 1 and "### benchguard: no regression" in ours[0]["body"], ours
PY
}

# 4. A fake GitHub API: one comment created, then edited in place.
db github
recv gh github --token gh-token-for-the-test
export GH_API="http://127.0.0.1:$PORT" GH_TOKEN=gh-token-for-the-test PR_NUMBER=7
GH='{ "kind": "github", "repo": "octo/demo", "token": "${GH_TOKEN}", "pr": "${PR_NUMBER}", "api_url": "${GH_API}", "timeout": 10 }'
cfg 30000000 "$GH"
state() { curl -s "$GH_API/_state"; }
ci >/dev/null 2>"$T/err"
state >"$T/state1.json"
ci >/dev/null 2>"$T/err"
state >"$T/state2.json"
check "first ci creates one comment with the verdict table; the second edits that same comment" \
	edited_in_place "$T/state1.json" "$T/state2.json" "$T/gh.log" \
	/repos/octo/demo/issues/7/comments "PATCH /repos/octo/demo/issues/comments/" \
	Authorization "Bearer gh-token-for-the-test"
cfg 3000000 "$GH"
# The same work again, judged on one run (--confirm 0): its wall time under
# a busy machine or the sanitizers came out +50% and more (+57% in a CI
# rehearsal, cpu_time unchanged).  These checks are about the comment, so
# only a change of 99% or more counts; the regressions above are +900%.
ci --min-change 0.99 >/dev/null 2>"$T/err"
rc=$?
state >"$T/state3.json"
check "no regression (exit $rc) on a later push: the comment is updated, not left saying regression" \
	no_regression_now "$T/state3.json"

# 4b. A fake GitLab API: one merge-request note created, then edited in place
# with PUT, the project path URL-encoded, the token in PRIVATE-TOKEN only.
db gitlab
recv gl gitlab --token gl-token-zz8-for-the-test
GL_PORT=$PORT
export GL_API="http://127.0.0.1:$PORT/api/v4" GL_TOKEN=gl-token-zz8-for-the-test CI_MERGE_REQUEST_IID=7
GL='{ "kind": "gitlab", "repo": "group/sub/demo", "token": "${GL_TOKEN}", "pr": "${CI_MERGE_REQUEST_IID}", "api_url": "${GL_API}", "timeout": 10 }'
MR=/api/v4/projects/group%2Fsub%2Fdemo/merge_requests/7/notes
cfg 30000000 "$GL"
ci -v >"$T/gl.out" 2>"$T/gl.err"
curl -s "http://127.0.0.1:$GL_PORT/_state" >"$T/gl1.json"
ci -v >>"$T/gl.out" 2>>"$T/gl.err"
curl -s "http://127.0.0.1:$GL_PORT/_state" >"$T/gl2.json"
check "gitlab: first ci creates one note with the verdict table; the second PUTs that same note" \
	edited_in_place "$T/gl1.json" "$T/gl2.json" "$T/gl.log" "$MR" "PUT $MR/" \
	PRIVATE-TOKEN gl-token-zz8-for-the-test
check "... the notes listed oldest first, 100 a page; no Authorization header" "$PY" - "$T/gl.log" "$MR" <<'PY'
import json, sys
api = [json.loads(l) for l in open(sys.argv[1])]
api = [e for e in api if e["path"] != "/_state"]
# The first after GET /user (who the token posts as) lists the notes.
notes = [e for e in api if e["path"] != "/api/v4/user"]
assert notes[0]["path"] == sys.argv[2] + "?per_page=100&sort=asc", notes[0]["path"]
assert all(e["status"] < 300 and "Authorization" not in e["headers"] for e in api)
PY
check "... -v logs each request; the token is in no output and not in the database" bash -c "
	grep -q 'alert gitlab: POST http://127.0.0.1:$GL_PORT$MR: try 1: HTTP 201' '$T/gl.err' &&
	grep -q 'alert gitlab: PUT http://127.0.0.1:$GL_PORT$MR/[0-9]*: try 1: HTTP 200' '$T/gl.err' &&
	! grep -q zz8 '$T/gl.out' '$T/gl.err' && ! cat '$BENCHGUARD_DB'* | grep -a -q zz8"
cfg 3000000 "$GL"
ci --min-change 0.99 >/dev/null 2>"$T/err" # as for GitHub above
curl -s "http://127.0.0.1:$GL_PORT/_state" >"$T/gl3.json"
check "... no regression on a later push: the note is updated, still one" no_regression_now "$T/gl3.json"
cfg 30000000 "$GL"
db gitlab-nomr
ci_unset CI_MERGE_REQUEST_IID
check "gitlab without CI_MERGE_REQUEST_IID: a warning, nothing queued, the verdict's exit 1" bash -c "
	[ \$(cat '$T/rc') = 1 ] &&
	grep -q 'gitlab alert not sent: no merge-request number (\${CI_MERGE_REQUEST_IID} is not set or not a number)' '$T/err' &&
	[ \$(sqlite3 '$T/gitlab-nomr.db' 'SELECT count(*) FROM outbox') = 0 ]"
# A number the config would refuse written out is refused from the
# environment too: another merge request than meant, or none at all.  The
# warning names the variable, not its value.
: >"$T/gl.log"
for iid in 0 007 123456789012345678901234567890; do
	db "gitlab-iid${#iid}"
	CI_MERGE_REQUEST_IID=$iid ci >/dev/null 2>"$T/err"
	check "gitlab with CI_MERGE_REQUEST_IID=$iid: a warning naming it, nothing queued or sent" bash -c "
		grep -q 'gitlab alert not sent: \${CI_MERGE_REQUEST_IID} is not a merge-request number (1 to 9223372036854775807, without a leading 0)' '$T/err' &&
		! grep -q -e '[!#/=]007' -e 12345678901234567890 '$T/err' &&
		[ \$(sqlite3 '$BENCHGUARD_DB' 'SELECT count(*) FROM outbox') = 0 ] && [ ! -s '$T/gl.log' ]"
done
CI_MERGE_REQUEST_IID=007 expect_rc 3 "$BG" --config "$T/cfg.json" alert test
check "... alert test says why, and reads nothing" bash -c "
	grep -q '^disabled  *gitlab group/sub/demo .*: \${CI_MERGE_REQUEST_IID} is not a merge-request number' '$T/out' &&
	[ ! -s '$T/gl.log' ]"
cfg 30000000 "$GL"
: >"$T/gl.log"
expect_rc 0 "$BG" -v --config "$T/cfg.json" alert test
check "gitlab alert test: reads the merge request's notes, writes nothing" bash -c "
	grep -q '^delivered  *gitlab group/sub/demo!7 at http://127.0.0.1:$GL_PORT/api/v4 (1 request, HTTP 200)' '$T/out' &&
	[ \$(grep -c . '$T/gl.log') = 1 ] &&
	grep -q '\"GET\", \"path\": \"/api/v4/projects/group%2Fsub%2Fdemo/merge_requests/7/notes?per_page=1\"' '$T/gl.log' &&
	! grep -q zz8 '$T/out' '$T/err'"
: >"$T/gl.log"
GL_API="$GL_API/" expect_rc 0 "$BG" --config "$T/cfg.json" alert test
check "... an api_url written with a trailing slash: the same URLs, no \"//\"" bash -c "
	grep -q '^delivered  *gitlab group/sub/demo!7 at http://127.0.0.1:$GL_PORT/api/v4 (1 request, HTTP 200)' '$T/out' &&
	grep -q '\"path\": \"/api/v4/projects/group%2Fsub%2Fdemo/merge_requests/7/notes?per_page=1\"' '$T/gl.log'"
kill "$PID_gl" 2>/dev/null

# 4c. Two projects (two suites, one database) comment on the same pull request
# through the same target, written alike ("${TP_API}", "${TP_TOKEN}"): each
# project's alert goes out only through its own suite's values, as those may
# differ (another team's Slack channel, another token); one project's ci
# sent the other's pending alert with its own URL and token.  Each comment
# has its own marker, so neither replaces the other's.
db twoproj
recv tp github --token tp-token-for-the-test
TP_PORT=$PORT
export TP_TOKEN=tp-token-for-the-test
TP='{ "kind": "github", "repo": "octo/demo", "token": "${TP_TOKEN}", "pr": "7", "api_url": "${TP_API}", "timeout": 2 }'
cfg 30000000 "$TP"
sed -i 's/"project": "demo"/"project": "other"/' "$T/cfg.json"
cp "$T/cfg.json" "$T/other.json"
TP_API="http://127.0.0.1:1" ci >/dev/null 2>&1 # nothing listens on port 1
cfg 30000000 "$TP"
TP_API="http://127.0.0.1:$TP_PORT" ci >/dev/null 2>"$T/err"
check "two projects, one target: demo's ci posts its comment, not other's pending one" bash -c "
	[ \"\$(sqlite3 '$BENCHGUARD_DB' 'SELECT group_concat(state) FROM (SELECT state FROM outbox ORDER BY id)')\" = pending,delivered ] &&
	! grep -q 'benchguard:other' '$T/tp.log'"
TP_API="http://127.0.0.1:$TP_PORT" expect_rc 0 "$BG" --config "$T/other.json" alert flush
check "... other's alert flush posts other's, and neither comment replaced the other" bash -c "
	[ \"\$(sqlite3 '$BENCHGUARD_DB' 'SELECT group_concat(state) FROM outbox')\" = delivered,delivered ] &&
	curl -s 'http://127.0.0.1:$TP_PORT/_state' | $PY -c '
import json, sys
bodies = [c[\"body\"] for c in json.load(sys.stdin)]
for p in (\"other\", \"demo\"):
    assert sum(b.startswith(\"<!-- benchguard:%s -->\" % p) for b in bodies) == 1, bodies
'"
kill "$PID_tp" 2>/dev/null

# 4d. A busy pull request: a page of 100 comments is longer than the 4 MiB
# benchguard reads of an answer, and was never parsed (the alert pending
# forever).  The same comments are asked for in pages of 10, then of 1;
# one comment longer than that is a definite failure, not retried.
# pages LOG: the per_page of each listing request, in order.
pages() {
	"$PY" -c 'import json, re, sys
for l in open(sys.argv[1]):
    e = json.loads(l)
    m = re.search(r"[?&]per_page=(\d+)", e["path"])
    if e["method"] == "GET" and m: print(m.group(1), end=" ")' "$1"
}
# big_seed FILE WHO SIZE...: other people's comments of these sizes (bytes),
# then an older verdict of ours.
big_seed() {
	"$PY" - "$@" <<'PY'
import json, sys
f, who, sizes = sys.argv[1], json.loads(sys.argv[2]), sys.argv[3:]
seed = [dict(id=300 + i, body="coverage report\n" + "x" * int(n), **who["them"])
        for i, n in enumerate(sizes)]
seed.append(dict(id=400, body="<!-- benchguard:demo -->\nan older verdict", **who["us"]))
json.dump(seed, open(f, "w"))
PY
}
db busy
big_seed "$T/seed-busy.json" '{"them": {"user": {"login": "covbot"}}, "us": {"user": {"login": "benchguard"}}}' \
	1048576 1048576 1048576 1048576 1048576
recv busy github --token gh-token-for-the-test --per-page --seed "$T/seed-busy.json"
cfg 30000000 '{ "kind": "github", "repo": "octo/demo", "token": "${GH_TOKEN}", "pr": "${PR_NUMBER}", "api_url": "${BUSY_API}", "timeout": 60 }'
BUSY_API="http://127.0.0.1:$PORT" ci >/dev/null 2>"$T/err"
check "a busy pull request (5 MiB in a page of 100): our comment found and edited, delivered" \
	test "$(outbox state) $("$PY" -c 'import json, sys
for l in open(sys.argv[1]):
    e = json.loads(l)
    if e["method"] != "GET": print(e["method"], e["path"], e["status"])' "$T/busy.log")" = \
	"delivered PATCH /repos/octo/demo/issues/comments/400 200"
check "... asked again in pages of 10, then of 1 comment" \
	test "$(pages "$T/busy.log")" = "100 10 1 1 1 1 1 1 1 1 1 "
kill "$PID_busy" 2>/dev/null

db huge
big_seed "$T/seed-huge.json" '{"them": {"system": false, "author": {"username": "covbot", "id": 9}}, "us": {"system": false, "author": {"username": "benchguard", "id": 42}}}' \
	5242880
recv huge gitlab --token gl-token-for-the-test --per-page --seed "$T/seed-huge.json"
export GL_TOKEN=gl-token-for-the-test
cfg 30000000 '{ "kind": "gitlab", "repo": "group/demo", "token": "${GL_TOKEN}", "pr": "7", "api_url": "${HUGE_API}", "timeout": 60 }'
export HUGE_API="http://127.0.0.1:$PORT/api/v4"
ci >/dev/null 2>"$T/err"
rc=$?
check "one note longer than 4 MiB: ci exits 1 (got $rc), the alert failed with a sentence, nothing written" bash -c "
	[ $rc = 1 ] && [ \"\$(sqlite3 '$BENCHGUARD_DB' 'SELECT state, last_status FROM outbox')\" = 'failed|200' ] &&
	grep -q 'gitlab group/demo!7 at http://127.0.0.1:$PORT/api/v4: refused (GET http://127.0.0.1:$PORT/api/v4/projects/group%2Fdemo/merge_requests/7/notes (page 6): the answer is longer than the 4 MiB benchguard reads, at 1 comment a page); kept in the outbox as failed, not retried' '$T/err' &&
	! grep -q -v '\"GET\"' '$T/huge.log'"
"$BG" --config "$T/cfg.json" alert flush >"$T/out" 2>&1
check "... asked in pages of 100, 10 and 1; the next alert flush sends nothing" bash -c "
	[ '$(pages "$T/huge.log")' = '100 10 1 1 1 1 ' ] &&
	grep -q 'holds nothing to deliver' '$T/out' && [ \$(grep -c . '$T/huge.log') = 7 ]"
kill "$PID_huge" 2>/dev/null

# 5. -v with a token, a secret and a Slack URL that is a key: none is printed.
db secrets
recv s5hook script:500,200
H5=$PORT
recv s5slack script:200
S5=$PORT
recv s5gh github --token TOKEN-zz9-plural-z-alpha
export S5_SECRET=SECRET-zz9-plural-z-alpha S5_TOKEN=TOKEN-zz9-plural-z-alpha
export S5_HOOK="http://127.0.0.1:$H5/hook?key=QUERYKEY-zz9" S5_API="http://127.0.0.1:$PORT"
export S5_SLACK="http://127.0.0.1:$S5/services/T0/B0/SLACKPATH-zz9"
cfg 30000000 '{ "kind": "webhook", "url": "${S5_HOOK}", "secret": "${S5_SECRET}", "timeout": 10 }' \
	'{ "kind": "slack", "url": "${S5_SLACK}" }' \
	'{ "kind": "github", "repo": "octo/demo", "token": "${S5_TOKEN}", "pr": "7", "api_url": "${S5_API}" }'
ci -v >"$T/v.out" 2>"$T/v.err"
rc=$?
"$BG" -v --config "$T/cfg.json" alert test >>"$T/v.out" 2>>"$T/v.err"
"$BG" -v --config "$T/cfg.json" alert flush >>"$T/v.out" 2>>"$T/v.err"
check "-v: ci exits 1 (got $rc), every target got its alert, the attempts are logged" bash -c "
	[ $rc = 1 ] && [ \$(wc -l <'$T/s5hook.log') = 3 ] && [ \$(wc -l <'$T/s5slack.log') = 2 ] &&
	grep -q 'alert webhook: POST http://127.0.0.1:$H5/\*\*\*: try 1: HTTP 500; retrying in 0.5 s' '$T/v.err' &&
	grep -q 'alert slack: POST http://127.0.0.1:$S5/\*\*\*: try 1: HTTP 200' '$T/v.err'"
check "... no token, secret or key in stdout or stderr" bash -c "
	! grep -E 'zz9|$S5_SECRET|$S5_TOKEN' '$T/v.out' '$T/v.err'"
check "... nor in the database" bash -c "
	! cat '$BENCHGUARD_DB'* | grep -a -q -E 'zz9-plural|QUERYKEY|SLACKPATH'"

# alert test: a sample to each target.
db sample
recv sample script:200
cfg 30000000 "$HOOK"
HOOK_URL="http://127.0.0.1:$PORT/hook" expect_rc 0 "$BG" --config "$T/cfg.json" alert test
check "alert test: a sample, signed, delivered; nothing stored" bash -c "
	grep -q '^delivered  *webhook http://127.0.0.1:$PORT/\*\*\* (1 request, HTTP 200)' '$T/out' &&
	$PY -c 'import json,sys; e=json.loads(open(\"$T/sample.log\").readline()); b=json.loads(e[\"body\"]); assert b[\"sample\"] is True and b[\"results\"][0][\"verdict\"] == \"regression\"' &&
	[ \$(sqlite3 '$BENCHGUARD_DB' 'SELECT count(*) FROM outbox') = 0 ]"
cfg 30000000 '{ "kind": "webhook", "url": "${HOOK_URL}", "timeout": 1 }'
HOOK_URL="http://127.0.0.1:1/hook" expect_rc 3 "$BG" --config "$T/cfg.json" alert test
check "alert test against nothing: exit 3, says why" grep -q '^failed .*Couldn.t connect to server' "$T/out"
finish
