/*
 * test_check.c -- the verdict as JUnit XML (bg_check_junit, lib/check_render.c
 * over lib/xml.c) on a verdict built by hand: what each outcome becomes,
 * the counts on every level, the failure's message for a rolling and a
 * paired judgement, and names that XML 1.0 cannot carry as they are.
 * And bg_check_run's rows of failed benchmarks when memory runs out: an
 * error, never a row that lost its message.
 */
#include <errno.h>
#include <math.h>
#include <unistd.h>

#include "unit.h"

/*
 * strdup, as the library and everything it calls sees it in this program:
 * the `fail_at`-th copy of `fail_of` (counting from 1) fails as malloc
 * would when out of memory.  `seen` counts the copies of it made.
 */
static struct {
	const char *fail_of;
	size_t fail_at, seen;
} dup_fault;

char *strdup(const char *s)
{
	size_t n = strlen(s) + 1;
	char *p;

	if (dup_fault.fail_of && strcmp(s, dup_fault.fail_of) == 0 &&
	    ++dup_fault.seen == dup_fault.fail_at) {
		errno = ENOMEM;
		return NULL;
	}
	if ((p = malloc(n)))
		memcpy(p, s, n);
	return p;
}

static void row(bg_verdict_row *r, const char *series, const char *bench, const char *metric,
                bg_verdict v)
{
	memset(r, 0, sizeof(*r));
	r->series = (char *)series;
	r->benchmark = (char *)bench;
	r->metric = (char *)metric;
	r->unit = metric ? "s" : NULL;
	r->verdict = v;
	r->p_adjusted = r->p_better_adjusted = NAN;
	r->noise_floor = r->min_change = NAN;
}

static void tested(bg_verdict_row *r, double base, double cur, double p)
{
	r->test.base_mean = base;
	r->test.base_ci = base / 100;
	r->test.cur_mean = cur;
	r->test.delta = r->test.change = cur / base - 1;
	r->test.effect = 3.5;
	r->p_adjusted = r->p_better_adjusted = p;
	r->baseline_runs = 20;
	r->current_runs = 1;
	r->samples = 5;
}

static void result(bg_check_result *res, bg_verdict_row *rows, size_t n)
{
	size_t i;

	memset(res, 0, sizeof(*res));
	memcpy(res->sha, "0123456789abcdef0123456789abcdef01234567", 41);
	memcpy(res->baseline_from, "89abcdef0123456789abcdef0123456789abcdef", 41);
	res->branch = "feature";
	res->machine = "m1";
	res->baseline_branch = "main";
	res->window = 20;
	res->rows = rows;
	res->nrows = n;
	for (i = 0; i < n; i++)
		res->count[rows[i].verdict]++;
}

static char *junit(const bg_check_result *res)
{
	bg_ctx *ctx = NULL;
	char *xml = NULL;

	assert_int_equal(bg_ctx_new(&ctx), 0);
	assert_int_equal(bg_check_junit(ctx, res, &xml), 0);
	assert_non_null(xml);
	bg_ctx_free(ctx);
	return xml;
}

static void test_outcomes(void **state)
{
	bg_verdict_row rows[6];
	bg_check_result res;
	char *xml;

	(void)state;
	row(&rows[0], "b:wall", "b", "wall", BG_VERDICT_REGRESSION);
	tested(&rows[0], 0.1, 0.1123, 0.00031);
	row(&rows[1], "a:rate", "a", "rate", BG_VERDICT_IMPROVEMENT);
	tested(&rows[1], 0.1, 0.08, 0.001);
	row(&rows[2], "b:rss", "b", "rss", BG_VERDICT_UNCHANGED);
	tested(&rows[2], 0.1, 0.1, 0.7);
	row(&rows[3], "c:wall", "c", "wall", BG_VERDICT_NO_BASELINE);
	rows[3].message = "0 baseline runs, 5 needed";
	row(&rows[4], "d", "d", NULL, BG_VERDICT_FAILED);
	rows[4].message = "exited with status 7";
	row(&rows[5], "e", "e", NULL, BG_VERDICT_SKIPPED);
	rows[5].message = "requires gpu";
	result(&res, rows, 6);
	xml = junit(&res);
	assert_non_null(strstr(xml, "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<testsuites "
	                            "name=\"benchguard\" tests=\"6\" failures=\"1\" errors=\"1\" "
	                            "skipped=\"2\" time=\"0\">"));
	/* One suite per benchmark, in name order: a, b, c, d, e. */
	assert_true(strstr(xml, "<testsuite name=\"a\" tests=\"1\" failures=\"0\" errors=\"0\" "
	                        "skipped=\"0\"") < strstr(xml, "<testsuite name=\"b\" tests=\"2\" "
	                                                       "failures=\"1\" errors=\"0\" "
	                                                       "skipped=\"0\""));
	assert_non_null(
	        strstr(xml, "<testsuite name=\"d\" tests=\"1\" failures=\"0\" errors=\"1\""));
	assert_non_null(strstr(xml, "<testsuite name=\"e\" tests=\"1\" failures=\"0\" errors=\"0\" "
	                            "skipped=\"1\""));
	assert_non_null(strstr(xml, "<property name=\"commit\" value=\"0123456789abcdef01234567"
	                            "89abcdef01234567\"/>"));
	/* The regression: change, p, baseline in the message; details as text. */
	assert_non_null(strstr(xml, "<testcase name=\"wall\" classname=\"benchguard.b\" "
	                            "time=\"0\">\n      <failure message=\"regression: +12.30%, "
	                            "p 0.0003 adjusted, baseline 100 ms over 20 runs of main\" "
	                            "type=\"regression\">series: b:wall\nverdict: regression\n"));
	/* Passed: no outcome element, the details in system-out. */
	assert_non_null(strstr(xml, "<testcase name=\"rate\" classname=\"benchguard.a\" "
	                            "time=\"0\">\n      <system-out>series: a:rate\nverdict: "
	                            "improvement\n"));
	assert_non_null(strstr(xml, "<skipped message=\"no-baseline: 0 baseline runs, 5 "
	                            "needed\"/>"));
	/* A failed benchmark is an error (exit 3), named after the benchmark. */
	assert_non_null(strstr(xml, "<testcase name=\"d\" classname=\"benchguard.d\" time=\"0\">\n"
	                            "      <error message=\"failed: exited with status 7\" "
	                            "type=\"failed\">"));
	assert_non_null(strstr(xml, "<skipped message=\"skipped: requires gpu\"/>"));
	free(xml);

	/* Confirmed by pairs: theirs first, beside the reference commit. */
	rows[0].confirm.status = BG_CONFIRM_CONFIRMED;
	rows[0].confirm.design = BG_DESIGN_PAIRED;
	rows[0].confirm.test.delta = 0.118;
	rows[0].confirm.p_adjusted = 0.00002;
	rows[0].confirm.pairs = 8;
	memcpy(rows[0].confirm.reference, "fedcba9876543210fedcba9876543210fedcba98", 41);
	xml = junit(&res);
	assert_non_null(strstr(xml, "<failure message=\"regression: +11.80% in 8 pairs beside "
	                            "commit fedcba987654, p &lt;0.0001 adjusted (first run +12.30% "
	                            "against the baseline 100 ms over 20 runs of main)\""));
	free(xml);

	/* No rows: an empty, counted document. */
	result(&res, rows, 0);
	xml = junit(&res);
	assert_non_null(strstr(xml, "<testsuites name=\"benchguard\" tests=\"0\" failures=\"0\" "
	                            "errors=\"0\" skipped=\"0\" time=\"0\"/>"));
	free(xml);
}

/* Names from a database written before the ingest checks: markup is
 * escaped by libxml2, what XML 1.0 cannot carry at all is shown. */
static void test_hostile_names(void **state)
{
	bg_verdict_row rows[1];
	bg_check_result res;
	char *xml;
	size_t i;

	(void)state;
	row(&rows[0], "x:a<b>&\"c'\x01\xff\xef\xbf\xbe\xc3\xa9", "x",
	    "a<b>&\"c'\x01\xff\xef\xbf\xbe\xc3\xa9", BG_VERDICT_REGRESSION);
	tested(&rows[0], 1.0, 2.0, 0.001);
	rows[0].message = "line one\nline\ttwo ]]> end";
	result(&res, rows, 1);
	xml = junit(&res);
	assert_non_null(strstr(xml, "<testcase name=\"a&lt;b&gt;&amp;&quot;c'\\x01\\xff"
	                            "\\u{fffe}\xc3\xa9\""));
	assert_non_null(strstr(xml, "line one\nline\\x09two ]]&gt; end\n"));
	/* No control character but the line breaks, no U+FFFE, no stray byte. */
	for (i = 0; xml[i]; i++)
		assert_true((unsigned char)xml[i] >= 0x20 || xml[i] == '\n');
	assert_null(strstr(xml, "\xef\xbf\xbe"));
	assert_null(strchr(xml, '\xff'));
	free(xml);
}

/*
 * The verdict table's cells (`check` on a terminal, and its Markdown) hold
 * a whole series name and unit at the 1024-byte bound of each: two series
 * that differ only at their end must not read as one.  A longer message is
 * cut where a character starts.
 */
static void test_long_names(void **state)
{
	static char bench[BG_NAME_MAX + 1], series[2 * BG_NAME_MAX + 2], unit[BG_NAME_MAX + 1],
	        message[3 * BG_CHECK_CELL];
	char cells[9][BG_CHECK_CELL], *md;
	bg_verdict_row rows[2];
	bg_check_result res;
	bg_ctx *ctx = NULL;
	size_t i, n;

	(void)state;
	/* "日" is 3 bytes: no cut of a fixed width lands between characters. */
	for (i = 0; i + 3 <= BG_NAME_MAX - 1; i += 3)
		memcpy(bench + i, "\xe6\x97\xa5", 3);
	bench[i] = 'x';
	for (i = 0; i < BG_NAME_MAX; i++)
		unit[i] = 'u';
	snprintf(series, sizeof(series), "%s:%s", bench, unit);
	row(&rows[0], series, bench, unit, BG_VERDICT_REGRESSION);
	rows[0].unit = unit;
	tested(&rows[0], 1.0, 2.0, 0.001);
	assert_int_equal(bg_check__row_cells(&rows[0], 0, cells), 0);
	assert_string_equal(cells[1], series);
	assert_non_null(strstr(cells[2], unit));
	assert_non_null(strstr(strstr(cells[2], unit) + 1, unit));
	assert_string_equal(cells[3] + strlen(cells[3]) - BG_NAME_MAX, unit);
	/* A message longer than a cell: cut before a character, then "…". */
	for (i = 0; i + 3 < sizeof(message); i += 3)
		memcpy(message + i, "\xe6\x97\xa5", 3);
	message[i] = '\0';
	row(&rows[1], "b:m", "b", "m", BG_VERDICT_SKIPPED);
	rows[1].message = message;
	assert_int_equal(bg_check__row_cells(&rows[1], 0, cells), 0);
	n = strlen(cells[2]);
	assert_true(n < BG_CHECK_CELL && n > BG_CHECK_CELL - 8);
	assert_string_equal(cells[2] + n - 3, "\xe2\x80\xa6");
	assert_true(bg_text__ok(cells[2]));
	assert_memory_equal(cells[2], message, n - 3);
	/* The Markdown has the whole name too. */
	result(&res, rows, 1);
	assert_int_equal(bg_ctx_new(&ctx), 0);
	assert_int_equal(bg_check_markdown(ctx, &res, &md), 0);
	assert_non_null(strstr(md, bench));
	free(md);
	bg_ctx_free(ctx);
}

/* Stores a run of `res` at a commit whose SHA is 40 copies of `c`. */
static int64_t store_run(bg_ctx *ctx, bg_store *st, bg_machine *m, char c, const bg_results *res)
{
	bg_commit commit;
	bg_run_info info = { .commit = &commit, .machine = m, .source = "run" };
	int64_t id = 0;

	memset(&commit, 0, sizeof(commit));
	memset(commit.sha, c, 40);
	commit.branch = "main";
	commit.author_time = 1700000000;
	commit.author = "A U Thor <author@example.com>";
	commit.subject = "a commit";
	assert_int_equal(bg_store_run_begin(ctx, st, &info, &id), 0);
	assert_int_equal(bg_store_run_add(ctx, st, id, res), 0);
	assert_int_equal(bg_store_run_finish(ctx, st, id), 0);
	return id;
}

/* A run whose benchmarks `x` and `y` have the given outcomes. */
static int64_t outcome_run(bg_ctx *ctx, bg_store *st, bg_machine *m, char c, bg_bench_status x,
                           const char *why_x, bg_bench_status y, const char *why_y)
{
	bg_results *res = NULL;
	int64_t id;
	int i;

	assert_int_equal(bg_results_new(&res), 0);
	for (i = 0; i < 5; i++)
		assert_int_equal(bg_results_add(ctx, res, "ok", "wall_time", "s", 1.0 + i / 100.0),
		                 0);
	assert_int_equal(bg_results_set_outcome(ctx, res, "x", x, why_x), 0);
	assert_int_equal(bg_results_set_outcome(ctx, res, "y", y, why_y), 0);
	id = store_run(ctx, st, m, c, res);
	bg_results_free(res);
	return id;
}

/*
 * Each copy of a failed benchmark's message check makes fails in turn:
 * bg_check_run says out of memory, where it used to return the row without
 * its message.  `x` fails in the first candidate run (a row of its own);
 * `y` is skipped there and fails in the second (failed wins, the message
 * replaced).
 */
static void test_run_out_of_memory(void **state)
{
	static const char *const messages[] = { "x: exit status 1", "y: exit status 2" };
	char dir[] = "/tmp/bg-check-XXXXXX", path[64];
	bg_check_opts o = { .window = 20, .min_runs = 2 };
	bg_check_result *res = NULL;
	bg_machine *m = NULL;
	bg_store *st = NULL;
	bg_ctx *ctx = NULL;
	int64_t base, runs[2];
	size_t k, i, n;
	int rc;

	(void)state;
	assert_non_null(mkdtemp(dir));
	snprintf(path, sizeof(path), "%s/results.db", dir);
	assert_int_equal(bg_ctx_new(&ctx), 0);
	assert_int_equal(bg_store_open(ctx, path, &st), 0);
	assert_int_equal(bg_machine_new(&m), 0);
	assert_int_equal(bg_machine_set_fact(m, "cpu_model", "Test CPU", 0), 0);
	base = outcome_run(ctx, st, m, 'a', BG_BENCH_OK, NULL, BG_BENCH_OK, NULL);
	runs[0] = outcome_run(ctx, st, m, 'b', BG_BENCH_FAILED, messages[0], BG_BENCH_SKIPPED,
	                      "no GPU");
	runs[1] = outcome_run(ctx, st, m, 'b', BG_BENCH_FAILED, messages[0], BG_BENCH_FAILED,
	                      messages[1]);
	o.thresholds.alpha = 0.01;
	o.thresholds.fdr = 1;
	o.thresholds.min_change = 0.02;
	o.thresholds.min_effect = 0.8;
	o.runs = runs;
	o.nruns = 2;
	o.baseline = &base;
	o.nbaseline = 1;
	for (k = 0; k < BG_ARRAY_SIZE(messages); k++) {
		/* How many copies of the message a check makes... */
		memset(&dup_fault, 0, sizeof(dup_fault));
		dup_fault.fail_of = messages[k];
		assert_int_equal(bg_check_run(ctx, st, NULL, &o, &res), 0);
		bg_check_result_free(res);
		n = dup_fault.seen;
		assert_true(n > 0);
		/* ... and each of them failing. */
		for (i = 1; i <= n; i++) {
			dup_fault.seen = 0;
			dup_fault.fail_at = i;
			res = NULL;
			rc = bg_check_run(ctx, st, NULL, &o, &res);
			if (rc != BG_ENOMEM)
				fail_msg("copy %zu of %zu of \"%s\" failed: bg_check_run returned "
				         "%d",
				         i, n, messages[k], rc);
			assert_null(res);
		}
	}
	memset(&dup_fault, 0, sizeof(dup_fault));
	bg_store_free(st);
	bg_machine_free(m);
	bg_ctx_free(ctx);
	bg_test_sh(dir, "rm -f results.db* && cd / && rmdir %s", dir);
}

/* A change that rounds to zero reads "+0.00%" from either side: a constant
 * series' means may differ in their last bit. */
static void test_zero_change_sign(void **state)
{
	char buf[32];

	(void)state;
	bg_check__pct(buf, sizeof(buf), -1e-17);
	assert_string_equal(buf, "+0.00%");
	bg_check__pct(buf, sizeof(buf), -0.0);
	assert_string_equal(buf, "+0.00%");
	bg_check__pct(buf, sizeof(buf), -0.00004);
	assert_string_equal(buf, "+0.00%");
	bg_check__pct(buf, sizeof(buf), -0.0001);
	assert_string_equal(buf, "-0.01%");
	bg_check__pct(buf, sizeof(buf), 0.0);
	assert_string_equal(buf, "+0.00%");
	bg_check__pct(buf, sizeof(buf), NAN);
	assert_string_equal(buf, "-");
}

/* The count line in words: one or many, and no verdict's JSON name. */
static void test_summary_line(void **state)
{
	bg_check_result res;
	bg_buf b = BG_BUF_INIT;

	(void)state;
	memset(&res, 0, sizeof(res));
	res.count[BG_VERDICT_REGRESSION] = 1;
	res.count[BG_VERDICT_IMPROVEMENT] = 2;
	res.count[BG_VERDICT_UNCHANGED] = 3;
	res.count[BG_VERDICT_NO_BASELINE] = 1;
	res.count[BG_VERDICT_FAILED] = 2;
	assert_int_equal(bg_check__summary_line(&res, &b), 0);
	assert_string_equal(b.ptr, "1 regression, 2 improvements, 3 unchanged, 1 without a "
	                           "baseline, 2 failed\n");
	bg_buf_clear(&b);
	memset(&res, 0, sizeof(res));
	res.count[BG_VERDICT_REGRESSION] = 2;
	res.count[BG_VERDICT_IMPROVEMENT] = 1;
	res.count[BG_VERDICT_NO_BASELINE] = 4;
	res.count[BG_VERDICT_SKIPPED] = 1;
	assert_int_equal(bg_check__summary_line(&res, &b), 0);
	assert_string_equal(b.ptr,
	                    "2 regressions, 1 improvement, 4 without a baseline, 1 skipped\n");
	bg_buf_clear(&b);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_outcomes),         cmocka_unit_test(test_hostile_names),
		cmocka_unit_test(test_long_names),       cmocka_unit_test(test_run_out_of_memory),
		cmocka_unit_test(test_zero_change_sign), cmocka_unit_test(test_summary_line),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
