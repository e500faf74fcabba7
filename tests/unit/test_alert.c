/*
 * test_alert.c -- the parts of alerting that need no network: HMAC-SHA256
 * against RFC 4231's vectors, Retry-After and backoff, which answers are
 * retried, URL redaction, Link pagination, the comment marker, the Slack
 * text, the outbox's claim and settle in a real database, and the alert
 * keys of the config.  Delivery itself is tested against real receivers
 * in tests/e2e/t_alert.sh.
 */
#include <math.h>
#include <time.h>
#include <unistd.h>

#include "unit.h"

static void test_hmac_rfc4231(void **state)
{
	unsigned char key1[20], key6[131];
	char hex[65];

	(void)state;
	memset(key1, 0x0b, sizeof(key1));
	memset(key6, 0xaa, sizeof(key6));
	/* Test case 1 */
	assert_int_equal(bg_hmac_sha256_hex(key1, sizeof(key1), "Hi There", 8, hex), 0);
	assert_string_equal(hex,
	                    "b0344c61d8db38535ca8afceaf0bf12b881dc200c9833da726e9376c2e32cff7");
	/* Test case 2: a key shorter than the output */
	assert_int_equal(bg_hmac_sha256_hex("Jefe", 4, "what do ya want for nothing?", 28, hex), 0);
	assert_string_equal(hex,
	                    "5bdcc146bf60754e6a042426089575c75a003f089d2739839dec58b964ec3843");
	/* Test case 6: a key longer than the block, hashed first */
	assert_int_equal(bg_hmac_sha256_hex(
	                         key6, sizeof(key6),
	                         "Test Using Larger Than Block-Size Key - Hash Key First", 54, hex),
	                 0);
	assert_string_equal(hex,
	                    "60e431591ee0b67f0d8a26aacbf5b77f8e0bc6213728c5140546040f0ee37f54");
}

static void expect_wait(double got, double want)
{
	assert_true(fabs(got - want) < 1e-9);
}

static void test_retry_after(void **state)
{
	/* Wed, 21 Oct 2015 07:28:00 GMT */
	const int64_t date = 1445412480;

	(void)state;
	expect_wait(bg_alert__retry_after("1", 0), 1.0);
	expect_wait(bg_alert__retry_after(" 120 ", 0), 120.0);
	expect_wait(bg_alert__retry_after("0", 0), 0.0);
	expect_wait(bg_alert__retry_after("Wed, 21 Oct 2015 07:28:00 GMT", date - 30), 30.0);
	/* The obsolete forms RFC 9110 still asks receivers to read. */
	expect_wait(bg_alert__retry_after("Wednesday, 21-Oct-15 07:28:00 GMT", date - 5), 5.0);
	expect_wait(bg_alert__retry_after("Wed Oct 21 07:28:00 2015", date - 7), 7.0);
	/* A date in the past: now. */
	expect_wait(bg_alert__retry_after("Wed, 21 Oct 2015 07:28:00 GMT", date + 60), 0.0);
	assert_true(bg_alert__retry_after("soon", 0) < 0);
	assert_true(bg_alert__retry_after("", 0) < 0);
	assert_true(bg_alert__retry_after("-5", 0) < 0);
	assert_true(bg_alert__retry_after(NULL, 0) < 0);
}

static void test_backoff(void **state)
{
	static const double want[] = { 0.5, 1, 2, 4, 8, 8, 8 };
	size_t i;

	(void)state;
	for (i = 0; i < BG_ARRAY_SIZE(want); i++)
		assert_true(fabs(bg_alert__backoff((int)i + 1) - want[i]) < 1e-12);
	assert_true(fabs(bg_alert__backoff(1000) - 8) < 1e-12);
}

static void test_classify(void **state)
{
	static const long ok[] = { 200, 201, 202, 204 };
	static const long retry[] = { 408, 429, 500, 502, 503, 504 };
	static const long refused[] = { 301, 302, 400, 401, 403, 404, 410, 413, 422 };
	size_t i;

	(void)state;
	for (i = 0; i < BG_ARRAY_SIZE(ok); i++)
		assert_int_equal(bg_alert__classify(ok[i]), BG_ALERT__OK);
	for (i = 0; i < BG_ARRAY_SIZE(retry); i++)
		assert_int_equal(bg_alert__classify(retry[i]), BG_ALERT__RETRY);
	for (i = 0; i < BG_ARRAY_SIZE(refused); i++)
		assert_int_equal(bg_alert__classify(refused[i]), BG_ALERT__REFUSED);
}

static void expect_redact(const char *url, int hide, const char *want)
{
	char *got = bg_alert__redact(url, hide);

	if (!want) {
		assert_null(got);
		return;
	}
	assert_non_null(got);
	assert_string_equal(got, want);
	free(got);
}

static void test_redact(void **state)
{
	(void)state;
	expect_redact("https://user:pw@hooks.example.com:8443/a/b?token=x#frag", 0,
	              "https://hooks.example.com:8443/a/b");
	expect_redact("https://user:pw@hooks.example.com:8443/a/b?token=x#frag", 1,
	              "https://hooks.example.com:8443/***");
	expect_redact("https://hooks.slack.com/services/T000/B000/XXXXSECRET", 1,
	              "https://hooks.slack.com/***");
	expect_redact("http://127.0.0.1:4000", 1, "http://127.0.0.1:4000");
	expect_redact("https://api.github.com/", 0, "https://api.github.com");
	expect_redact("no scheme here", 0, NULL);
	expect_redact(NULL, 0, NULL);
}

static void test_next_link(void **state)
{
	const char *gh = "<https://api.github.com/repositories/1/issues/7/comments?page=1>; "
	                 "rel=\"prev\", "
	                 "<https://api.github.com/repositories/1/issues/7/comments?page=3>; "
	                 "rel=\"next\", "
	                 "<https://api.github.com/repositories/1/issues/7/comments?page=9>; "
	                 "rel=\"last\"";
	char *next;

	(void)state;
	next = bg_alert__next_link(gh, "https://api.github.com");
	assert_non_null(next);
	assert_string_equal(next, "https://api.github.com/repositories/1/issues/7/comments?page=3");
	free(next);
	next = bg_alert__next_link(gh, "https://api.github.com/");
	assert_non_null(next);
	free(next);
	/* The token goes along: never to a host that merely starts the same. */
	assert_null(bg_alert__next_link(gh, "https://api.github.co"));
	assert_null(bg_alert__next_link(gh, "https://ghe.example.com/api/v3"));
	assert_null(bg_alert__next_link("<https://api.github.com/x?page=1>; rel=\"prev\"",
	                                "https://api.github.com"));
	assert_null(bg_alert__next_link("garbage", "https://api.github.com"));
}

static void expect_page_url(const char *url, int size, const char *want)
{
	char *got = bg_alert__page_url(url, size);

	if (want) {
		assert_non_null(got);
		assert_string_equal(got, want);
	} else {
		assert_null(got);
	}
	free(got);
}

/* A page too long to read is asked for again in shorter pages that start
 * at the same comment; the rest of the URL stays as it was. */
static void test_page_url(void **state)
{
	(void)state;
	expect_page_url("https://api.github.com/repos/o/n/issues/7/comments?per_page=100", 10,
	                "https://api.github.com/repos/o/n/issues/7/comments?per_page=10&page=1");
	expect_page_url(
	        "https://api.github.com/repositories/9/issues/7/comments?per_page=100&page=3", 10,
	        "https://api.github.com/repositories/9/issues/7/comments?per_page=10&page=21");
	expect_page_url("http://h/api/v4/projects/g%2Fn/merge_requests/7/"
	                "notes?id=8&page=2&per_page=10&sort=asc",
	                1,
	                "http://h/api/v4/projects/g%2Fn/merge_requests/7/"
	                "notes?id=8&sort=asc&per_page=1&page=11");
	/* Where the page starts is not said, or is not on a page's boundary. */
	expect_page_url("https://h/x?page=2", 10, NULL);
	expect_page_url("https://h/x?per_page=15&page=2", 10, NULL);
	expect_page_url("https://h/x?per_page=100&page=0", 10, NULL);
	expect_page_url("https://h/x?per_page=100&page=", 10, NULL);
	expect_page_url("https://h/x?per_page=100&page=1x", 10, NULL);
	expect_page_url("https://h/x?per_page=100&page=99999999999", 10, NULL);
	expect_page_url("https://h/x?per_page=100#f", 10, NULL);
	expect_page_url("https://h/x?per_page=100", 0, NULL);
}

static void test_marker(void **state)
{
	char *m;

	(void)state;
	m = bg_alert__marker("demo");
	assert_string_equal(m, "<!-- benchguard:demo -->");
	free(m);
	/* Nothing in a project's name can end the HTML comment. */
	m = bg_alert__marker("a-->b c");
	assert_string_equal(m, "<!-- benchguard:a%2D%2D%3Eb%20c -->");
	free(m);
	m = bg_alert__marker(NULL);
	assert_string_equal(m, "<!-- benchguard:default -->");
	free(m);
}

static void test_slack_text(void **state)
{
	bg_verdict_row rows[8];
	char names[8][32];
	bg_check_result res;
	bg_alert_event ev;
	char *text;
	size_t i;

	(void)state;
	memset(&res, 0, sizeof(res));
	memset(rows, 0, sizeof(rows));
	for (i = 0; i < 8; i++) {
		snprintf(names[i], sizeof(names[i]), "bench%zu:wall_time", i);
		rows[i].series = names[i];
		rows[i].unit = "s";
		rows[i].verdict = i < 7 ? BG_VERDICT_REGRESSION : BG_VERDICT_UNCHANGED;
		rows[i].test.base_mean = 0.1;
		rows[i].test.cur_mean = 0.125;
		rows[i].test.change = 0.25;
	}
	memcpy(res.sha, "0123456789abcdef0123456789abcdef01234567", 41);
	res.branch = "feature";
	res.rows = rows;
	res.nrows = 8;
	res.count[BG_VERDICT_REGRESSION] = 7;
	res.count[BG_VERDICT_UNCHANGED] = 1;
	memset(&ev, 0, sizeof(ev));
	ev.project = "demo";
	ev.result = &res;
	ev.subject = "make <it> fast & small";
	ev.run_url = "https://ci.example/run/1";
	text = bg_alert__slack_text(&ev);
	assert_non_null(text);
	/* A headline, five series, how many more, the link. */
	assert_non_null(strstr(text, ":rotating_light: *benchguard* `demo`: 7 regressions at "
	                             "`0123456789ab` (feature) \xE2\x80\x94 make &lt;it&gt; fast "
	                             "&amp; small\n"));
	assert_non_null(strstr(text,
	                       "\xE2\x80\xA2 `bench0:wall_time`: 25.0% worse (0.1 s \xE2\x86\x92 "
	                       "0.125 s)"));
	assert_non_null(strstr(text, "bench4:wall_time"));
	assert_null(strstr(text, "bench5:wall_time"));
	assert_non_null(strstr(text, "\xE2\x80\xA6 and 2 more\n<https://ci.example/run/1|CI run>"));
	free(text);

	/* A unit that would notify the channel, a name that would close its
	 * code span, a control character: all shown as text. */
	rows[0].series = "b`x`:t\x1b[31m";
	rows[0].unit = "<!channel>";
	text = bg_alert__slack_text(&ev);
	assert_non_null(text);
	assert_null(strstr(text, "<!channel>"));
	assert_null(strchr(text, '\x1b'));
	assert_non_null(strstr(text, "\xE2\x80\xA2 `b\xCB\x8Bx\xCB\x8B:t\\x1b[31m`: 25.0% worse "
	                             "(0.1 &lt;!channel&gt; \xE2\x86\x92 0.125 &lt;!channel&gt;)"));
	free(text);
	rows[0].series = names[0];
	rows[0].unit = "s";

	res.count[BG_VERDICT_REGRESSION] = 0;
	res.count[BG_VERDICT_UNCHANGED] = 8;
	for (i = 0; i < 8; i++)
		rows[i].verdict = BG_VERDICT_UNCHANGED;
	ev.sample = 1;
	ev.subject = NULL;
	ev.run_url = NULL;
	text = bg_alert__slack_text(&ev);
	assert_string_equal(text, "[test alert] :white_check_mark: *benchguard* `demo`: no "
	                          "regression at `0123456789ab` (feature)");
	free(text);
}

static void test_outbox(void **state)
{
	char dir[] = "/tmp/bg-test-alert-XXXXXX", path[64];
	bg_outbox_row row, *rows = NULL;
	bg_store *st = NULL;
	bg_ctx *ctx = NULL;
	int64_t id = 0, id2 = 0;
	size_t n = 0;
	int64_t until = 0;
	int claimed = 0;

	(void)state;
	assert_non_null(mkdtemp(dir));
	snprintf(path, sizeof(path), "%s/r.db", dir);
	assert_int_equal(bg_ctx_new(&ctx), 0);
	assert_int_equal(bg_store_open(ctx, path, &st), 0);
	memset(&row, 0, sizeof(row));
	assert_int_equal(bg_random_hex(row.uid), 0);
	assert_int_equal(strlen(row.uid), 32);
	row.kind = "webhook";
	row.target = "webhook:0123";
	row.label = "https://hooks.example/***";
	row.mode = "send";
	row.body = "{\"a\":1}";
	row.run_id = 3;
	assert_int_equal(bg_store_outbox_add(ctx, st, &row, &id), 0);
	assert_true(id > 0);
	/* The same uid twice is refused: an alert is stored once. */
	assert_true(bg_store_outbox_add(ctx, st, &row, &id2) < 0);
	assert_int_equal(bg_random_hex(row.uid), 0);
	assert_int_equal(bg_store_outbox_add(ctx, st, &row, &id2), 0);

	assert_int_equal(bg_store_outbox_list(ctx, st, "pending", &rows, &n), 0);
	assert_int_equal(n, 2);
	assert_string_equal(rows[0].body, "{\"a\":1}");
	assert_string_equal(rows[0].state, "pending");
	assert_null(rows[0].pr);
	assert_int_equal(rows[0].run_id, 3);
	bg_outbox_rows_free(rows, n);

	/* Pending and held by nobody: claimable now (a time long past). */
	assert_int_equal(bg_store_outbox_held(ctx, st, id, &until), 0);
	assert_true(until > 0 && until <= (int64_t)time(NULL));
	/* One claim wins; the second finds it taken, until when it is held. */
	assert_int_equal(bg_store_outbox_claim(ctx, st, id, (int64_t)time(NULL) + 100, &claimed),
	                 0);
	assert_int_equal(claimed, 1);
	assert_int_equal(bg_store_outbox_claim(ctx, st, id, (int64_t)time(NULL) + 100, &claimed),
	                 0);
	assert_int_equal(claimed, 0);
	assert_int_equal(bg_store_outbox_held(ctx, st, id, &until), 0);
	assert_true(until > (int64_t)time(NULL));
	/* Given back as pending, it can be claimed again: held by nobody, not
	 * settled (a waiter took it for settled, and the entry stayed). */
	assert_int_equal(bg_store_outbox_settle(ctx, st, id, "pending", 2, 503, "HTTP 503"), 0);
	assert_int_equal(bg_store_outbox_held(ctx, st, id, &until), 0);
	assert_true(until > 0 && until <= (int64_t)time(NULL));
	assert_int_equal(bg_store_outbox_claim(ctx, st, id, (int64_t)time(NULL) + 100, &claimed),
	                 0);
	assert_int_equal(claimed, 1);
	assert_int_equal(bg_store_outbox_settle(ctx, st, id, "delivered", 1, 200, NULL), 0);
	/* Delivered: never claimed again, and held by nobody (0). */
	assert_int_equal(bg_store_outbox_claim(ctx, st, id, (int64_t)time(NULL) + 100, &claimed),
	                 0);
	assert_int_equal(claimed, 0);
	assert_int_equal(bg_store_outbox_held(ctx, st, id, &until), 0);
	assert_int_equal(until, 0);
	assert_true(bg_store_outbox_settle(ctx, st, id, "lost", 0, 0, NULL) < 0);

	assert_int_equal(bg_store_outbox_list(ctx, st, NULL, &rows, &n), 0);
	assert_int_equal(n, 2);
	assert_string_equal(rows[0].state, "delivered");
	assert_int_equal(rows[0].attempts, 3);
	assert_int_equal(rows[0].last_status, 200);
	assert_null(rows[0].last_error);
	assert_true(rows[0].delivered_at > 0);
	assert_string_equal(rows[1].state, "pending");
	bg_outbox_rows_free(rows, n);

	/* Pruning forgets delivered entries only. */
	assert_int_equal(bg_store_outbox_prune(ctx, st, (int64_t)time(NULL) + 10), 0);
	assert_int_equal(bg_store_outbox_list(ctx, st, NULL, &rows, &n), 0);
	assert_int_equal(n, 1);
	assert_int_equal(rows[0].id, id2);
	bg_outbox_rows_free(rows, n);
	bg_outbox_rows_free(NULL, 0);
	bg_outbox_row_clear(NULL);

	bg_store_free(st);
	bg_ctx_free(ctx);
	unlink(path);
	snprintf(path, sizeof(path), "%s/r.db-wal", dir);
	unlink(path);
	snprintf(path, sizeof(path), "%s/r.db-shm", dir);
	unlink(path);
	rmdir(dir);
}

static void expect_config(const char *alert, const char *msg)
{
	char text[1024];
	bg_config *cfg = NULL;
	bg_ctx *ctx = NULL;
	int err;

	snprintf(text, sizeof(text),
	         "{\"benchmarks\": [{\"name\": \"a\", \"command\": \"x\"}],\n\"alerts\": [\n%s]}",
	         alert);
	assert_int_equal(bg_ctx_new(&ctx), 0);
	err = bg_config_parse(ctx, "t.json", text, strlen(text), &cfg);
	if (msg) {
		assert_int_equal(err, BG_EINPUT);
		assert_string_equal(bg_ctx_error(ctx), msg);
	} else {
		const bg_alert_cfg *a;
		assert_int_equal(err, 0);
		a = bg_config_alert(cfg, 0);
		assert_string_equal(a->api_url, "http://127.0.0.1:9");
		assert_true(fabs(a->timeout - 2.5) < 1e-12);
	}
	bg_config_free(cfg);
	bg_ctx_free(ctx);
}

static void test_config_keys(void **state)
{
	bg_config *cfg = NULL;
	bg_ctx *ctx = NULL;
	const char *text = "{\"benchmarks\": [{\"name\": \"a\", \"command\": \"x\"}],"
	                   " \"alerts\": [{\"kind\": \"slack\", \"url\": \"${U}\"}]}";

	(void)state;
	expect_config("{\"kind\": \"github\", \"repo\": \"o/n\", \"token\": \"${T}\", \"pr\": 1,"
	              " \"api_url\": \"http://127.0.0.1:9\", \"timeout\": 2.5}",
	              NULL);
	expect_config("{\"kind\": \"webhook\", \"url\": \"${U}\", \"timeout\": 0}",
	              "t.json:3: alerts[0].timeout: must be greater than 0 (got 0)");
	expect_config("{\"kind\": \"webhook\", \"url\": \"${U}\", \"timeout\": 601}",
	              "t.json:3: alerts[0].timeout: must be at most 600 seconds (got 601)");
	/* No request is begun in a budget's last 0.05 s: such a target never
	 * sent anything, and its alerts stayed pending for ever. */
	expect_config("{\"kind\": \"webhook\", \"url\": \"${U}\", \"timeout\": 0.04}",
	              "t.json:3: alerts[0].timeout: must be from 0.1 to 600 seconds (got 0.04): "
	              "less leaves no time to send an alert in");
	expect_config("{\"kind\": \"slack\", \"url\": \"${U}\", \"timeout\": 1e-9}",
	              "t.json:3: alerts[0].timeout: must be from 0.1 to 600 seconds (got 1e-9): "
	              "less leaves no time to send an alert in");
	expect_config("{\"kind\": \"github\", \"repo\": \"o/n\", \"token\": \"${T}\", \"pr\": 1,"
	              " \"timeout\": 0.099}",
	              "t.json:3: alerts[0].timeout: must be from 0.1 to 600 seconds (got 0.099): "
	              "less leaves no time to send an alert in");
	expect_config("{\"kind\": \"webhook\", \"url\": \"${U}\", \"api_url\": \"http://x\"}",
	              "t.json:3: alerts[0]: key \"api_url\" does not apply to webhook alerts");
	expect_config("{\"kind\": \"github\", \"repo\": \"o/n\", \"token\": \"${T}\", \"pr\": 1,"
	              " \"api_url\": \"ftp://x\"}",
	              "t.json:3: alerts[0].api_url: must start with https:// or http://");
	/* A URL written out is judged at load, not warned about at every ci. */
	expect_config("{\"kind\": \"webhook\", \"url\": \"http://exa mple.com/x\"}",
	              "t.json:3: alerts[0].url: must not hold a blank or a control character");
	expect_config("{\"kind\": \"webhook\", \"url\": \"http://x/\\ny\"}",
	              "t.json:3: alerts[0].url: must not hold a blank or a control character");
	expect_config("{\"kind\": \"slack\", \"url\": \"https://\"}",
	              "t.json:3: alerts[0].url: names no host");
	expect_config("{\"kind\": \"webhook\", \"url\": \"http:///path\"}",
	              "t.json:3: alerts[0].url: names no host");
	expect_config("{\"kind\": \"gitlab\", \"repo\": \"g/n\", \"token\": \"${T}\", \"pr\": 1,"
	              " \"api_url\": \"http://:80/api\"}",
	              "t.json:3: alerts[0].api_url: names no host");
	expect_config("{\"kind\": \"slack\", \"url\": \"${U}\", \"timeuot\": 3}",
	              "t.json:3: alerts[0]: unknown key \"timeuot\" (did you mean \"timeout\"?)");
	/* Without the keys: GitHub's API, and the default budget. */
	assert_int_equal(bg_ctx_new(&ctx), 0);
	assert_int_equal(bg_config_parse(ctx, "t.json", text, strlen(text), &cfg), 0);
	assert_null(bg_config_alert(cfg, 0)->api_url);
	assert_true(fabs(bg_config_alert(cfg, 0)->timeout - BG_ALERT_TIMEOUT) < 1e-12);
	bg_config_free(cfg);
	/* A URL with a ${VAR} is judged once expanded, at delivery. */
	text = "{\"benchmarks\": [{\"name\": \"a\", \"command\": \"x\"}],"
	       " \"alerts\": [{\"kind\": \"webhook\", \"url\": \"https://h.example/${K} x\"}]}";
	assert_int_equal(bg_config_parse(ctx, "t.json", text, strlen(text), &cfg), 0);
	bg_config_free(cfg);
	/* The least budget taken. */
	text = "{\"benchmarks\": [{\"name\": \"a\", \"command\": \"x\"}],"
	       " \"alerts\": [{\"kind\": \"slack\", \"url\": \"${U}\", \"timeout\": 0.1}]}";
	assert_int_equal(bg_config_parse(ctx, "t.json", text, strlen(text), &cfg), 0);
	assert_true(fabs(bg_config_alert(cfg, 0)->timeout - BG_ALERT_MIN_TIMEOUT) < 1e-12);
	bg_config_free(cfg);
	bg_ctx_free(ctx);
}

/* A verdict longer than GitHub takes (65536 characters; a longer comment is
 * refused with 422, and the PR gets none): cut at a row, regressions first
 * kept, the footer kept; GitLab takes it whole. */
static void test_forge_text_cut(void **state)
{
	bg_buf md = BG_BUF_INIT;
	bg_check_result res;
	bg_alert_event ev;
	char *text, *end;
	size_t i;

	(void)state;
	memset(&res, 0, sizeof(res));
	memcpy(res.sha, "0123456789abcdef0123456789abcdef01234567", 41);
	assert_int_equal(bg_buf_puts(&md, "### benchguard: performance regression\n\n"
	                                  "| verdict | series |\n|:--|:--|\n"
	                                  "| **regression** | `first:wall_time` |\n"),
	                 0);
	for (i = 0; i < 2000; i++)
		assert_int_equal(bg_buf_printf(&md, "| unchanged | `bench%04zu:wall_time` |\n", i),
		                 0);
	assert_int_equal(bg_buf_puts(&md, "\n1 regression, 2000 unchanged\n"), 0);
	assert_true(md.len > 65536);
	memset(&ev, 0, sizeof(ev));
	ev.project = "demo";
	ev.result = &res;
	ev.markdown = md.ptr;
	ev.run_url = "https://ci.example/run/1";

	text = bg_alert__forge_text("github", &ev);
	assert_non_null(text);
	assert_true(strlen(text) <= 65536);
	assert_true(!strncmp(
	        text, "<!-- benchguard:demo -->\n### benchguard: performance regression", 63));
	assert_non_null(strstr(text, "| **regression** | `first:wall_time` |\n"));
	assert_non_null(strstr(text, "|\n\n_The table is cut short"));
	assert_null(strstr(text, "2000 unchanged"));
	end = strstr(text, "\n<sub>benchguard \xC2\xB7 [CI run](https://ci.example/run/1)");
	assert_non_null(end);
	assert_string_equal(strstr(end, " updated"), " updated for commit `0123456789ab`</sub>\n");
	free(text);

	text = bg_alert__forge_text("gitlab", &ev);
	assert_non_null(text);
	assert_non_null(strstr(text, "\n1 regression, 2000 unchanged\n"));
	assert_null(strstr(text, "cut short"));
	free(text);
	bg_buf_clear(&md);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_hmac_rfc4231), cmocka_unit_test(test_retry_after),
		cmocka_unit_test(test_backoff),      cmocka_unit_test(test_classify),
		cmocka_unit_test(test_redact),       cmocka_unit_test(test_next_link),
		cmocka_unit_test(test_page_url),     cmocka_unit_test(test_marker),
		cmocka_unit_test(test_slack_text),   cmocka_unit_test(test_outbox),
		cmocka_unit_test(test_config_keys),  cmocka_unit_test(test_forge_text_cut),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
