/*
 * test_report.c -- the report's store queries (the runs of a period and all
 * their results in one pass) and bg_report_build/render on a store filled
 * through the API: the period, machine and filter select what they should,
 * dirty and unfinished runs stay out, a step is found at its run, and the
 * three renderings carry it.
 */
#include <ftw.h>
#include <math.h>
#include <unistd.h>

#include <json-c/json.h>

#include <time.h>

#include "unit.h"
#include "units.h"

static int rm_entry(const char *path, const struct stat *sb, int flag, struct FTW *ftw)
{
	(void)sb;
	(void)flag;
	(void)ftw;
	return remove(path);
}

typedef struct {
	char dir[256];
	bg_ctx *ctx;
	bg_store *st;
} fixture;

/* Stores one run of series x (1.0, then 1.2 from run 6 on) and y (flat). */
static void put_run(fixture *f, bg_machine *m, int i, int dirty, int finish, int64_t started)
{
	bg_results *res = NULL;
	bg_commit c;
	bg_run_info info;
	int64_t id;
	double wobble = 1.0 + 0.004 * (double)((i * 7) % 5 - 2) / 2.0;
	int k;

	memset(&c, 0, sizeof(c));
	snprintf(c.sha, sizeof(c.sha), "%040d", i);
	c.subject = "a subject";
	c.dirty = dirty;
	memset(&info, 0, sizeof(info));
	info.commit = &c;
	info.machine = m;
	info.source = "run";
	info.started_at = started;
	assert_int_equal(bg_results_new(&res), 0);
	for (k = 0; k < 3; k++) {
		assert_int_equal(bg_results_add(f->ctx, res, "x", "wall_time", "s",
		                                (i >= 6 ? 1.2 : 1.0) * wobble * (1 + 0.001 * k)),
		                 0);
		assert_int_equal(bg_results_add(f->ctx, res, "y", "wall_time", "s",
		                                2.0 * wobble * (1 + 0.001 * k)),
		                 0);
	}
	assert_int_equal(bg_store_run_begin(f->ctx, f->st, &info, &id), 0);
	assert_int_equal(bg_store_run_add(f->ctx, f->st, id, res), 0);
	if (finish)
		assert_int_equal(bg_store_run_finish(f->ctx, f->st, id), 0);
	bg_results_free(res);
}

static int setup(void **state)
{
	fixture *f = calloc(1, sizeof(*f));
	bg_machine *a = NULL, *b = NULL;
	char path[300];
	int i;

	snprintf(f->dir, sizeof(f->dir), "%s/bg-report-XXXXXX",
	         getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp");
	if (!mkdtemp(f->dir))
		return -1;
	snprintf(path, sizeof(path), "%s/r.db", f->dir);
	if (bg_ctx_new(&f->ctx) < 0 || bg_store_open(f->ctx, path, &f->st) < 0 ||
	    bg_machine_new(&a) < 0 || bg_machine_new(&b) < 0 || bg_machine_set_name(a, "ma") < 0 ||
	    bg_machine_set_name(b, "mb") < 0 ||
	    bg_machine_set_fact(a, "cpu_model", "Test CPU", 0) < 0)
		return -1;
	for (i = 0; i < 12; i++)
		put_run(f, a, i, 0, 1, 1000 + 100 * i);
	put_run(f, b, 3, 0, 1, 1300);  /* another machine */
	put_run(f, a, 20, 1, 1, 5000); /* dirty */
	put_run(f, a, 21, 0, 0, 5000); /* never finished */
	bg_machine_free(a);
	bg_machine_free(b);
	*state = f;
	return 0;
}

static int teardown(void **state)
{
	fixture *f = *state;

	bg_store_free(f->st);
	bg_ctx_free(f->ctx);
	nftw(f->dir, rm_entry, 8, FTW_DEPTH | FTW_PHYS);
	free(f);
	return 0;
}

static void test_runs_since(void **state)
{
	fixture *f = *state;
	bg_run_row *rows = NULL;
	size_t n = 0, i;

	assert_int_equal(bg_store_runs_since(f->ctx, f->st, &(bg_period){ 0, "ma", 0 }, &rows, &n),
	                 0);
	assert_int_equal(n, 12);
	for (i = 0; i < n; i++) {
		char want[41];
		snprintf(want, sizeof(want), "%040d", (int)i);
		assert_string_equal(rows[i].sha, want);
		assert_string_equal(rows[i].machine, "ma");
		assert_string_equal(rows[i].subject, "a subject");
		assert_true(i == 0 || rows[i].id > rows[i - 1].id);
	}
	bg_run_rows_free(rows, n);
	assert_int_equal(
	        bg_store_runs_since(f->ctx, f->st, &(bg_period){ 1600, "ma", 0 }, &rows, &n), 0);
	assert_int_equal(n, 6);
	assert_int_equal(rows[0].started_at, 1600);
	bg_run_rows_free(rows, n);
	assert_int_equal(bg_store_runs_since(f->ctx, f->st, &(bg_period){ 0, NULL, 0 }, &rows, &n),
	                 0);
	assert_int_equal(n, 13);
	bg_run_rows_free(rows, n);
	assert_int_equal(
	        bg_store_runs_since(f->ctx, f->st, &(bg_period){ 0, "nobody", 0 }, &rows, &n), 0);
	assert_int_equal(n, 0);
	bg_run_rows_free(rows, n);
	bg_run_rows_free(NULL, 0);
}

typedef struct {
	size_t n;
	int64_t last_series, last_run;
	int ordered;
	double first_x;
} seen;

static int count_rows(const bg_result_row *row, void *data)
{
	seen *s = data;

	if (row->series_id < s->last_series ||
	    (row->series_id == s->last_series && row->run_id <= s->last_run))
		s->ordered = 0;
	if (s->n == 0) {
		assert_string_equal(row->benchmark, "x");
		assert_string_equal(row->metric, "wall_time");
		assert_string_equal(row->unit, "s");
		assert_int_equal(row->n, 3);
		s->first_x = row->robust_mean;
	}
	s->last_series = row->series_id;
	s->last_run = row->run_id;
	s->n++;
	return s->n == 100 ? BG_EINPUT : 0;
}

static void test_each_result(void **state)
{
	fixture *f = *state;
	seen s = { 0, -1, -1, 1, 0.0 };

	assert_int_equal(
	        bg_store_each_result(f->ctx, f->st, &(bg_period){ 0, "ma", 0 }, count_rows, &s), 0);
	assert_int_equal(s.n, 24); /* 12 runs x 2 series: no dirty, no unfinished */
	assert_true(s.ordered);
	assert_true(fabs(s.first_x - 1.0 * (1 + 0.004 * -1.0) * 1.001) < 1e-9);
	memset(&s, 0, sizeof(s));
	s.last_series = s.last_run = -1;
	s.ordered = 1;
	assert_int_equal(
	        bg_store_each_result(f->ctx, f->st, &(bg_period){ 1600, NULL, 0 }, count_rows, &s),
	        0);
	assert_int_equal(s.n, 12);
}

/* A store of its own in a scratch directory, for a test that needs other
 * series than the fixture's. */
static bg_store *own_store(bg_ctx *ctx, char *dir, size_t size)
{
	bg_store *st = NULL;
	char path[300];

	snprintf(dir, size, "%s/bg-report-XXXXXX", getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp");
	assert_non_null(mkdtemp(dir));
	snprintf(path, sizeof(path), "%s/r.db", dir);
	assert_int_equal(bg_store_open(ctx, path, &st), 0);
	return st;
}

/* A test's context, own store and machine "ma"; close_scratch removes
 * them and the folder. */
static void open_scratch(bg_ctx **ctx, bg_store **st, bg_machine **m, char *dir, size_t size)
{
	assert_int_equal(bg_ctx_new(ctx), 0);
	*st = own_store(*ctx, dir, size);
	assert_int_equal(bg_machine_new(m), 0);
	assert_int_equal(bg_machine_set_name(*m, "ma"), 0);
}

static void close_scratch(bg_ctx *ctx, bg_store *st, bg_machine *m, const char *dir)
{
	bg_machine_free(m);
	bg_store_free(st);
	bg_ctx_free(ctx);
	nftw(dir, rm_entry, 8, FTW_DEPTH | FTW_PHYS);
}

/* Stores a run of commit i started at `started`, of one series: three
 * samples around v. */
static void put_value_at(bg_ctx *ctx, bg_store *st, bg_machine *m, int i, int64_t started,
                         const char *metric, const char *unit, double v)
{
	bg_results *res = NULL;
	bg_commit c;
	bg_run_info info;
	int64_t id;
	int k;

	memset(&c, 0, sizeof(c));
	snprintf(c.sha, sizeof(c.sha), "%040d", i);
	c.subject = "a subject";
	memset(&info, 0, sizeof(info));
	info.commit = &c;
	info.machine = m;
	info.source = "run";
	info.started_at = started;
	assert_int_equal(bg_results_new(&res), 0);
	for (k = 0; k < 3; k++)
		assert_int_equal(bg_results_add(ctx, res, "z", metric, unit,
		                                v * (1 + 0.001 * (k - 1)) * (1 + 0.002 * (i % 3))),
		                 0);
	assert_int_equal(bg_store_run_begin(ctx, st, &info, &id), 0);
	assert_int_equal(bg_store_run_add(ctx, st, id, res), 0);
	assert_int_equal(bg_store_run_finish(ctx, st, id), 0);
	bg_results_free(res);
}

/* Stores run i (commit i, started at 1000 + 100 i) of one series. */
static void put_value(bg_ctx *ctx, bg_store *st, bg_machine *m, int i, const char *metric,
                      const char *unit, double v)
{
	put_value_at(ctx, st, m, i, 1000 + 100 * i, metric, unit, v);
}

static bg_report_opts opts_default(void)
{
	bg_report_opts o;

	memset(&o, 0, sizeof(o));
	o.machine = "ma";
	o.now = 10000;
	o.project = "unit";
	o.window = 20;
	o.min_runs = 5;
	o.thresholds.alpha = 0.01;
	o.thresholds.fdr = 1;
	o.thresholds.min_change = 0.02;
	o.thresholds.min_effect = 0.8;
	return o;
}

static void test_build_and_render(void **state)
{
	fixture *f = *state;
	bg_report_opts o = opts_default();
	bg_report *r = NULL;
	json_object *top, *series, *x, *cps, *cp, *v;
	char *text = NULL;
	size_t len = 0;
	const char *p;
	int charts = 0;

	assert_int_equal(bg_report_build(f->ctx, f->st, NULL, &o, &r), 0);
	assert_int_equal(bg_report_series_count(r), 2);
	assert_int_equal(bg_report_run_count(r), 12);
	assert_int_equal(bg_report_excluded_runs(r), 0);

	assert_int_equal(bg_report_render(f->ctx, r, BG_REPORT_JSON, &text, &len), 0);
	assert_int_equal(strlen(text), len);
	top = json_tokener_parse(text);
	assert_non_null(top);
	assert_true(json_object_object_get_ex(top, "order", &v));
	assert_string_equal(json_object_get_string(v), "time");
	assert_true(json_object_object_get_ex(top, "series", &series));
	assert_int_equal(json_object_array_length(series), 2);
	x = json_object_array_get_idx(series, 0);
	assert_true(json_object_object_get_ex(x, "series", &v));
	assert_string_equal(json_object_get_string(v), "x:wall_time");
	assert_true(json_object_object_get_ex(x, "change_points", &cps));
	assert_int_equal(json_object_array_length(cps), 1);
	cp = json_object_array_get_idx(cps, 0);
	assert_true(json_object_object_get_ex(cp, "index", &v));
	assert_int_equal(json_object_get_int(v), 6);
	assert_true(json_object_object_get_ex(cp, "verdict", &v));
	assert_string_equal(json_object_get_string(v), "regression");
	assert_true(json_object_object_get_ex(cp, "first_after", &v));
	assert_string_equal(json_object_get_string(v), "0000000000000000000000000000000000000006");
	assert_true(json_object_object_get_ex(cp, "change", &v));
	assert_true(fabs(json_object_get_double(v) - 0.2) < 0.01);
	/* The step's own runs are what check flags at that commit. */
	assert_true(json_object_object_get_ex(x, "points", &v));
	assert_true(json_object_object_get_ex(json_object_array_get_idx(v, 6), "verdict", &v));
	assert_string_equal(json_object_get_string(v), "regression");
	/* ... and the fifth run, with 4 before it, had no baseline (5 are needed). */
	assert_true(json_object_object_get_ex(x, "points", &v));
	assert_true(json_object_object_get_ex(json_object_array_get_idx(v, 4), "verdict", &v));
	assert_string_equal(json_object_get_string(v), "no-baseline");
	json_object_put(top);
	free(text);

	assert_int_equal(bg_report_render(f->ctx, r, BG_REPORT_HTML, &text, &len), 0);
	for (p = text; (p = strstr(p, "<svg class=\"chart\"")); p++)
		charts++;
	assert_int_equal(charts, 2);
	assert_non_null(strstr(text, "data-series=\"x:wall_time\""));
	assert_non_null(strstr(text, "<title>Performance report: unit</title>"));
	/* Scripts inline only: nothing is fetched. */
	assert_null(strstr(text, "<script src"));
	assert_null(strstr(text, "<link"));
	assert_non_null(strstr(text, "<script type=\"application/json\" id=\"bg-commits\">"));
	free(text);
	assert_int_equal(bg_report_render(f->ctx, r, BG_REPORT_MARKDOWN, &text, &len), 0);
	assert_non_null(strstr(text, "| `x:wall_time` | `0000000..0000000` |"));
	assert_non_null(strstr(text, "Machine: `ma` (Test CPU)"));
	free(text);
	bg_report_free(r);
	bg_report_free(NULL);
}

static void test_select(void **state)
{
	fixture *f = *state;
	bg_report_opts o = opts_default();
	bg_report *r = NULL;
	bg_report_format fmt;

	o.filter = "^y";
	assert_int_equal(bg_report_build(f->ctx, f->st, NULL, &o, &r), 0);
	assert_int_equal(bg_report_series_count(r), 1);
	bg_report_free(r);
	o.filter = "wall_time$"; /* the series name, benchmark:metric */
	assert_int_equal(bg_report_build(f->ctx, f->st, NULL, &o, &r), 0);
	assert_int_equal(bg_report_series_count(r), 2);
	bg_report_free(r);
	o.filter = NULL;
	o.machine = NULL; /* every machine: a series per machine */
	assert_int_equal(bg_report_build(f->ctx, f->st, NULL, &o, &r), 0);
	assert_int_equal(bg_report_series_count(r), 4);
	assert_int_equal(bg_report_run_count(r), 13);
	bg_report_free(r);
	o.machine = "ma";
	o.since = 1600;
	assert_int_equal(bg_report_build(f->ctx, f->st, NULL, &o, &r), 0);
	assert_int_equal(bg_report_run_count(r), 6);
	bg_report_free(r);
	r = NULL;

	o.filter = "(";
	assert_int_equal(bg_report_build(f->ctx, f->st, NULL, &o, &r), BG_EINPUT);
	assert_non_null(strstr(bg_ctx_error(f->ctx), "--filter \"(\""));
	assert_null(r);
	o.filter = NULL;
	o.min_runs = 30;
	assert_int_equal(bg_report_build(f->ctx, f->st, NULL, &o, &r), BG_EINPUT);

	assert_int_equal(bg_report_format_from_name("html", &fmt), 0);
	assert_int_equal(fmt, BG_REPORT_HTML);
	assert_int_equal(bg_report_format_from_name("md", &fmt), 0);
	assert_int_equal(fmt, BG_REPORT_MARKDOWN);
	assert_int_equal(bg_report_format_from_name("json", &fmt), 0);
	assert_int_equal(fmt, BG_REPORT_JSON);
	assert_int_equal(bg_report_format_from_name("pdf", &fmt), BG_EINPUT);
}

/* Bytes read in KiB to TiB and bytes per second in kB/s to TB/s, each in
 * the step of the series' magnitude: 2 KiB, not 1.9e-09 TiB. */
static void test_display_units(void **state)
{
	double scale;
	bg_ctx *ctx = NULL;
	bg_store *st;
	bg_machine *m = NULL;
	bg_report_opts o = opts_default();
	bg_report *r = NULL;
	char dir[256], *text = NULL;
	size_t len = 0;
	int i;

	(void)state;
	assert_string_equal(bg_unit__display("B", 512.0, &scale), "B");
	assert_true(fabs(scale - 1.0) < 1e-15);
	assert_string_equal(bg_unit__display("B", 2048.0, &scale), "KiB");
	assert_true(fabs(2048.0 * scale - 2.0) < 1e-12);
	assert_string_equal(bg_unit__display("B", 3.0 * 1024 * 1024 * 1024, &scale), "GiB");
	assert_true(fabs(3.0 * 1024 * 1024 * 1024 * scale - 3.0) < 1e-12);
	assert_string_equal(bg_unit__display("B/s", 999.0, &scale), "B/s");
	assert_string_equal(bg_unit__display("B/s", 1e10, &scale), "GB/s");
	assert_true(fabs(1e10 * scale - 10.0) < 1e-9);
	assert_string_equal(bg_unit__display("B/s", 2.5e6, &scale), "MB/s");
	assert_string_equal(bg_unit__display("s", 0.000123, &scale), "\xc2\xb5s");
	assert_true(fabs(0.000123 * scale - 123.0) < 1e-9);

	/* ... and so the report shows them. */
	open_scratch(&ctx, &st, &m, dir, sizeof(dir));
	for (i = 0; i < 12; i++) {
		put_value(ctx, st, m, i, "mem", "B", i < 6 ? 2048.0 : 4096.0);
		put_value(ctx, st, m, i, "bw", "B/s", 1e10);
	}
	assert_int_equal(bg_report_build(ctx, st, NULL, &o, &r), 0);
	assert_int_equal(bg_report_render(ctx, r, BG_REPORT_MARKDOWN, &text, &len), 0);
	assert_non_null(strstr(text, "#### `z:bw` (GB/s, higher is better)"));
	assert_non_null(strstr(text, "#### `z:mem` (KiB, lower is better)"));
	assert_non_null(strstr(text, " | 2.004 KiB | 4.008 KiB | +100.0% | "));
	free(text);
	bg_report_free(r);
	close_scratch(ctx, st, m, dir);
}

/* The newest commit's change reads the way its value moved, as in every
 * table: a throughput 10% down is -9.8% here (a regression), not +9.8%. */
static void test_latest_change_sign(void **state)
{
	bg_ctx *ctx = NULL;
	bg_store *st;
	bg_machine *m = NULL;
	bg_report_opts o = opts_default();
	bg_report *r = NULL;
	char dir[256], *text = NULL;
	const char *p;
	size_t len = 0;
	int i;

	(void)state;
	open_scratch(&ctx, &st, &m, dir, sizeof(dir));
	for (i = 0; i < 12; i++)
		put_value(ctx, st, m, i, "bw", "GB/s", i < 11 ? 10.0 : 9.0);
	assert_int_equal(bg_report_build(ctx, st, NULL, &o, &r), 0);
	assert_int_equal(bg_report_render(ctx, r, BG_REPORT_HTML, &text, &len), 0);
	assert_non_null(strstr(text, "data-verdict=\"regression\""));
	assert_non_null(p = strstr(text, "newest commit <code>0000000</code>: "));
	assert_true(!strncmp(p + strlen("newest commit <code>0000000</code>: "), "-9.8% ", 6));
	free(text);
	assert_int_equal(bg_report_render(ctx, r, BG_REPORT_MARKDOWN, &text, &len), 0);
	assert_non_null(strstr(text, "| `z:bw` | 12 | regression | -9.8% |"));
	free(text);
	bg_report_free(r);
	close_scratch(ctx, st, m, dir);
}

/* A change that rounds to zero reads "+0.0%", not "-0.0%", in every
 * rendering: here the newest commit is 0.03% below its baseline. */
static void test_zero_change_sign(void **state)
{
	bg_ctx *ctx = NULL;
	bg_store *st;
	bg_machine *m = NULL;
	bg_report_opts o = opts_default();
	bg_report *r = NULL;
	char dir[256], *text = NULL;
	size_t len = 0;
	int i;

	(void)state;
	open_scratch(&ctx, &st, &m, dir, sizeof(dir));
	/* put_value's wobble makes runs 0..11 average 1.002 times v. */
	for (i = 0; i < 13; i++)
		put_value(ctx, st, m, i, "t", "s", i < 12 ? 1.0 : 1.0017);
	assert_int_equal(bg_report_build(ctx, st, NULL, &o, &r), 0);
	assert_int_equal(bg_report_render(ctx, r, BG_REPORT_MARKDOWN, &text, &len), 0);
	assert_non_null(strstr(text, "| `z:t` | 13 | unchanged | +0.0% |"));
	assert_null(strstr(text, "-0.0%"));
	free(text);
	assert_int_equal(bg_report_render(ctx, r, BG_REPORT_HTML, &text, &len), 0);
	assert_non_null(strstr(text, "newest commit <code>0000000</code>: +0.0% against"));
	assert_null(strstr(text, "-0.0%"));
	free(text);
	bg_report_free(r);
	close_scratch(ctx, st, m, dir);
}

/* With a filter the report counts the runs and commits that hold a selected
 * series, in every rendering, not every run of the period. */
static void test_filter_counts_runs(void **state)
{
	bg_ctx *ctx = NULL;
	bg_store *st;
	bg_machine *m = NULL;
	bg_report_opts o = opts_default();
	bg_report *r = NULL;
	json_object *top, *sum, *v;
	char dir[256], *text = NULL;
	size_t len = 0;
	int i;

	(void)state;
	open_scratch(&ctx, &st, &m, dir, sizeof(dir));
	for (i = 0; i < 10; i++)
		put_value(ctx, st, m, i, "a", "s", 1.0);
	for (i = 10; i < 15; i++)
		put_value(ctx, st, m, i, "b", "s", 1.0);
	put_value(ctx, st, m, 14, "b", "s", 1.0); /* two runs of the newest commit */

	assert_int_equal(bg_report_build(ctx, st, NULL, &o, &r), 0);
	assert_int_equal(bg_report_run_count(r), 16);
	assert_int_equal(bg_report_commit_count(r), 15);
	bg_report_free(r);

	o.filter = "b$";
	assert_int_equal(bg_report_build(ctx, st, NULL, &o, &r), 0);
	assert_int_equal(bg_report_series_count(r), 1);
	assert_int_equal(bg_report_run_count(r), 6);
	assert_int_equal(bg_report_commit_count(r), 5);
	assert_int_equal(bg_report_period_run_count(r), 16);
	assert_int_equal(bg_report_render(ctx, r, BG_REPORT_MARKDOWN, &text, &len), 0);
	assert_non_null(strstr(text, ": 1 series, 6 runs, 5 commits."));
	free(text);
	assert_int_equal(bg_report_render(ctx, r, BG_REPORT_HTML, &text, &len), 0);
	assert_non_null(strstr(text, "<b>1</b>series over 6 runs of 5 commits<"));
	free(text);
	assert_int_equal(bg_report_render(ctx, r, BG_REPORT_JSON, &text, &len), 0);
	assert_non_null(top = json_tokener_parse(text));
	assert_true(json_object_object_get_ex(top, "summary", &sum));
	assert_true(json_object_object_get_ex(sum, "runs", &v));
	assert_int_equal(json_object_get_int(v), 6);
	assert_true(json_object_object_get_ex(sum, "commits", &v));
	assert_int_equal(json_object_get_int(v), 5);
	json_object_put(top);
	free(text);
	bg_report_free(r);

	/* None selected: nothing covered, the period's runs still counted;
	 * Markdown says why it is empty, as HTML does. */
	o.filter = "^nomatch";
	assert_int_equal(bg_report_build(ctx, st, NULL, &o, &r), 0);
	assert_int_equal(bg_report_run_count(r), 0);
	assert_int_equal(bg_report_commit_count(r), 0);
	assert_int_equal(bg_report_period_run_count(r), 16);
	assert_int_equal(bg_report_render(ctx, r, BG_REPORT_MARKDOWN, &text, &len), 0);
	assert_non_null(strstr(text, ": 0 series, 0 runs, 0 commits."));
	assert_non_null(strstr(text, "\nNo series matches `--filter` `^nomatch` (16 runs in this "
	                             "period).\n"));
	free(text);
	bg_report_free(r);

	/* A period with no runs at all says that instead. */
	o.filter = NULL;
	o.since = (int64_t)time(NULL) + 86400;
	assert_int_equal(bg_report_build(ctx, st, NULL, &o, &r), 0);
	assert_int_equal(bg_report_render(ctx, r, BG_REPORT_MARKDOWN, &text, &len), 0);
	assert_non_null(strstr(text, "\nNo runs in this period.\n"));
	free(text);
	bg_report_free(r);
	close_scratch(ctx, st, m, dir);
}

/* JSON's "latest" counts the runs of the newest commit (pooled into one
 * point), as its "points" do. */
static void test_latest_runs(void **state)
{
	bg_ctx *ctx = NULL;
	bg_store *st;
	bg_machine *m = NULL;
	bg_report_opts o = opts_default();
	bg_report *r = NULL;
	json_object *top, *series, *v;
	char dir[256], *text = NULL;
	size_t len = 0;
	int i;

	(void)state;
	open_scratch(&ctx, &st, &m, dir, sizeof(dir));
	for (i = 0; i < 8; i++)
		put_value(ctx, st, m, i, "t", "s", 1.0);
	put_value(ctx, st, m, 7, "t", "s", 1.0); /* the newest commit, three runs */
	put_value(ctx, st, m, 7, "t", "s", 1.0);
	assert_int_equal(bg_report_build(ctx, st, NULL, &o, &r), 0);
	assert_int_equal(bg_report_render(ctx, r, BG_REPORT_JSON, &text, &len), 0);
	assert_non_null(top = json_tokener_parse(text));
	assert_true(json_object_object_get_ex(top, "series", &series));
	series = json_object_array_get_idx(series, 0);
	assert_true(json_object_object_get_ex(series, "points", &v));
	assert_int_equal(json_object_array_length(v), 8);
	assert_true(json_object_object_get_ex(json_object_array_get_idx(v, 7), "runs", &v));
	assert_int_equal(json_object_get_int(v), 3);
	assert_true(json_object_object_get_ex(series, "latest", &v));
	assert_true(json_object_object_get_ex(v, "runs", &v));
	assert_int_equal(json_object_get_int(v), 3);
	json_object_put(top);
	free(text);
	bg_report_free(r);
	close_scratch(ctx, st, m, dir);
}

/* Without a repository, a commit's runs are one point even when another
 * commit was measured between them: the commits go in the order of their
 * first runs. */
static void test_time_order_pools_commits(void **state)
{
	bg_ctx *ctx = NULL;
	bg_store *st;
	bg_machine *m = NULL;
	bg_report_opts o = opts_default();
	bg_report *r = NULL;
	json_object *top, *v, *pts;
	char dir[256], *text = NULL, sha[41];
	size_t len = 0;
	int i;

	(void)state;
	open_scratch(&ctx, &st, &m, dir, sizeof(dir));
	for (i = 0; i < 6; i++)
		put_value(ctx, st, m, i, "t", "s", 1.0);
	put_value_at(ctx, st, m, 2, 5000, "t", "s", 1.0); /* commit 2 again, later */
	put_value_at(ctx, st, m, 6, 6000, "t", "s", 1.0);
	assert_int_equal(bg_report_build(ctx, st, NULL, &o, &r), 0);
	assert_int_equal(bg_report_run_count(r), 8);
	assert_int_equal(bg_report_commit_count(r), 7);
	assert_int_equal(bg_report_render(ctx, r, BG_REPORT_JSON, &text, &len), 0);
	assert_non_null(top = json_tokener_parse(text));
	assert_true(json_object_object_get_ex(top, "series", &v));
	assert_true(json_object_object_get_ex(json_object_array_get_idx(v, 0), "points", &pts));
	assert_int_equal(json_object_array_length(pts), 7);
	for (i = 0; i < 7; i++) {
		snprintf(sha, sizeof(sha), "%040d", i);
		assert_true(json_object_object_get_ex(json_object_array_get_idx(pts, (size_t)i),
		                                      "commit", &v));
		assert_string_equal(json_object_get_string(v), sha);
		assert_true(json_object_object_get_ex(json_object_array_get_idx(pts, (size_t)i),
		                                      "runs", &v));
		assert_int_equal(json_object_get_int(v), i == 2 ? 2 : 1);
	}
	json_object_put(top);
	free(text);
	bg_report_free(r);
	close_scratch(ctx, st, m, dir);
}

/* With every machine (a series per machine), each table names the machine
 * beside the series: two rows "z:t" that differ only in their numbers say
 * nothing of which machine moved. */
static void test_tables_name_machines(void **state)
{
	bg_ctx *ctx = NULL;
	bg_store *st;
	bg_machine *a = NULL, *b = NULL;
	bg_report_opts o = opts_default();
	bg_report *r = NULL;
	char dir[256], *text = NULL;
	size_t len = 0;
	int i;

	(void)state;
	assert_int_equal(bg_ctx_new(&ctx), 0);
	st = own_store(ctx, dir, sizeof(dir));
	assert_int_equal(bg_machine_new(&a), 0);
	assert_int_equal(bg_machine_set_name(a, "ma"), 0);
	assert_int_equal(bg_machine_new(&b), 0);
	assert_int_equal(bg_machine_set_name(b, "mb"), 0);
	for (i = 0; i < 12; i++) {
		put_value(ctx, st, a, i, "t", "s", i < 6 ? 1.0 : 1.2);
		put_value(ctx, st, b, i, "t", "s", 1.0);
	}
	o.machine = NULL;
	assert_int_equal(bg_report_build(ctx, st, NULL, &o, &r), 0);
	assert_int_equal(bg_report_series_count(r), 2);
	assert_int_equal(bg_report_render(ctx, r, BG_REPORT_MARKDOWN, &text, &len), 0);
	/* The steps, the noisiest and the series tables. */
	assert_non_null(strstr(text, "| `z:t` on `ma` | `0000000..0000000` |"));
	assert_non_null(strstr(text, "| `z:t` on `ma` | 12 | "));
	assert_non_null(strstr(text, "| `z:t` on `mb` | 12 | "));
	assert_non_null(strstr(text, "| `z:t` on `mb` | 0."));
	free(text);
	assert_int_equal(bg_report_render(ctx, r, BG_REPORT_HTML, &text, &len), 0);
	assert_non_null(
	        strstr(text, "<td><a href=\"#s0\"><code>z:t</code></a> on <code>ma</code></td>"));
	assert_non_null(
	        strstr(text, "<td><a href=\"#s1\"><code>z:t</code></a> on <code>mb</code></td>"));
	free(text);
	bg_report_free(r);
	bg_machine_free(a);
	bg_machine_free(b);
	bg_store_free(st);
	bg_ctx_free(ctx);
	nftw(dir, rm_entry, 8, FTW_DEPTH | FTW_PHYS);
}

/* A step away from zero (a benchmark that began to allocate) is a step,
 * and for a lower-is-better count a regression, listed first. */
static void test_step_from_zero(void **state)
{
	bg_ctx *ctx = NULL;
	bg_store *st;
	bg_machine *m = NULL;
	bg_report_opts o = opts_default();
	bg_report *r = NULL;
	bg_report_step *steps = NULL;
	char dir[256], *text = NULL;
	size_t len = 0, n = 0;
	int i;

	(void)state;
	open_scratch(&ctx, &st, &m, dir, sizeof(dir));
	for (i = 0; i < 12; i++) {
		put_value(ctx, st, m, i, "allocs", "allocs/op", i < 6 ? 0.0 : 2.0);
		put_value(ctx, st, m, i, "t", "s", i < 6 ? 1.0 : 1.1);
	}
	assert_int_equal(bg_report_build(ctx, st, NULL, &o, &r), 0);
	assert_int_equal(bg_report_steps(ctx, r, &steps, &n), 0);
	assert_int_equal(n, 2);
	assert_string_equal(steps[0].series, "z:allocs");
	assert_int_equal(steps[0].verdict, BG_VERDICT_REGRESSION);
	assert_true(steps[0].change > 0 && steps[0].delta > 0);
	bg_report_steps_free(steps, n);
	assert_int_equal(bg_report_render(ctx, r, BG_REPORT_MARKDOWN, &text, &len), 0);
	assert_non_null(strstr(text, "**Steps in the period:** 2 regressions, 0 improvements."));
	/* Worst first: the step from zero before the +10% one. */
	assert_non_null(strstr(text, "| `z:allocs` | `0000000..0000000` | 0 allocs/op | "));
	assert_true(strstr(text, "| `z:allocs` | `0000000") < strstr(text, "| `z:t` | `0000000"));
	free(text);
	/* In HTML, no "nan" where the change has no value. */
	assert_int_equal(bg_report_render(ctx, r, BG_REPORT_HTML, &text, &len), 0);
	assert_null(strstr(text, "nan"));
	/* z:t's, +10% exactly: its values cycle by 0.2% (1.000, 1.002, 1.004),
	 * and the filter took 8 of its 12 runs for outliers, which made it
	 * +9.8%; so many are no outliers, and the runs' levels are judged. */
	assert_non_null(strstr(text, "\" data-change=\"0.100000"));
	free(text);
	bg_report_free(r);
	close_scratch(ctx, st, m, dir);
}

/* A verdict ci recorded where the period holds too few runs to replay the
 * check (its baseline lay before --since): the page says whose verdict it
 * is, never "+0.0% against a baseline of 0 runs", the figures of a test
 * that was not made; Markdown and JSON leave them out alike. */
static void test_latest_recorded_without_replay(void **state)
{
	bg_ctx *ctx = NULL;
	bg_store *st;
	bg_machine *m = NULL;
	bg_report_opts o = opts_default();
	bg_report *r = NULL;
	bg_verdict_record vr;
	bg_check_record rec;
	char dir[256], *text = NULL;
	const char *p;
	size_t len = 0;
	int64_t latest = 0;
	int i;

	(void)state;
	open_scratch(&ctx, &st, &m, dir, sizeof(dir));
	for (i = 0; i < 3; i++)
		put_value(ctx, st, m, i, "t", "s", i < 2 ? 1.0 : 1.2);
	assert_int_equal(bg_store_latest_run(ctx, st, "ma", &latest), 0);
	memset(&vr, 0, sizeof(vr));
	vr.series = "z:t";
	vr.benchmark = "z";
	vr.metric = "t";
	vr.verdict = vr.first = BG_VERDICT_REGRESSION;
	vr.confirm = BG_CONFIRM_CONFIRMED;
	memset(&rec, 0, sizeof(rec));
	rec.run_id = latest;
	rec.source = "ci";
	rec.json = "{}";
	rec.rows = &vr;
	rec.nrows = 1;
	assert_int_equal(bg_store_check_record(ctx, st, &rec, NULL), 0);
	assert_int_equal(bg_report_build(ctx, st, NULL, &o, &r), 0);
	assert_int_equal(bg_report_render(ctx, r, BG_REPORT_HTML, &text, &len), 0);
	assert_non_null(strstr(text, "data-verdict=\"regression\""));
	assert_null(strstr(text, "against a baseline of 0 runs"));
	assert_non_null(p = strstr(text, "newest commit <code>0000000</code>: regression by ci"));
	free(text);
	assert_int_equal(bg_report_render(ctx, r, BG_REPORT_MARKDOWN, &text, &len), 0);
	assert_non_null(strstr(text, "| `z:t` | 3 | regression (ci) |  |"));
	free(text);
	bg_report_free(r);
	close_scratch(ctx, st, m, dir);
}

/* The replayed check judges a commit's series on one machine together, as
 * check judges one run: with --machine all, a machine's flat series must not
 * dilute another machine's regression through the FDR adjustment. */
static void test_fdr_per_machine(void **state)
{
	bg_ctx *ctx = NULL;
	bg_store *st;
	bg_machine *a = NULL, *b = NULL;
	bg_report_opts o = opts_default();
	bg_report *r = NULL;
	json_object *top, *series, *x, *v;
	char dir[256], *text = NULL, metric[16];
	size_t len = 0, k;
	int i, j, found = 0;

	(void)state;
	open_scratch(&ctx, &st, &a, dir, sizeof(dir));
	assert_int_equal(bg_machine_new(&b), 0);
	assert_int_equal(bg_machine_set_name(b, "mb"), 0);
	for (i = 0; i < 12; i++) {
		double wob = 1.0 + 0.01 * (double)((i * 7) % 5 - 2) / 2.0;

		put_value(ctx, st, a, i, "t", "s", i < 11 ? wob : 1.03);
		for (j = 0; j < 19; j++) {
			snprintf(metric, sizeof(metric), "f%02d", j);
			put_value(ctx, st, b, i, metric, "s", wob);
		}
	}
	/* Alone, ma's newest commit is a regression ... */
	assert_int_equal(bg_report_build(ctx, st, NULL, &o, &r), 0);
	assert_int_equal(bg_report_render(ctx, r, BG_REPORT_JSON, &text, &len), 0);
	assert_non_null(top = json_tokener_parse(text));
	assert_true(json_object_object_get_ex(top, "series", &series));
	x = json_object_array_get_idx(series, 0);
	assert_true(json_object_object_get_ex(x, "verdict", &v));
	assert_string_equal(json_object_get_string(v), "regression");
	json_object_put(top);
	free(text);
	bg_report_free(r);
	/* ... and so it stays beside mb's nineteen flat series. */
	o.machine = NULL;
	assert_int_equal(bg_report_build(ctx, st, NULL, &o, &r), 0);
	assert_int_equal(bg_report_render(ctx, r, BG_REPORT_JSON, &text, &len), 0);
	assert_non_null(top = json_tokener_parse(text));
	assert_true(json_object_object_get_ex(top, "series", &series));
	for (k = 0; k < json_object_array_length(series); k++) {
		x = json_object_array_get_idx(series, k);
		assert_true(json_object_object_get_ex(x, "machine", &v));
		if (strcmp(json_object_get_string(v), "ma"))
			continue;
		assert_true(json_object_object_get_ex(x, "verdict", &v));
		assert_string_equal(json_object_get_string(v), "regression");
		found++;
	}
	assert_int_equal(found, 1);
	json_object_put(top);
	free(text);
	bg_report_free(r);
	bg_machine_free(b);
	close_scratch(ctx, st, a, dir);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_runs_since),
		cmocka_unit_test(test_each_result),
		cmocka_unit_test(test_build_and_render),
		cmocka_unit_test(test_select),
		cmocka_unit_test(test_display_units),
		cmocka_unit_test(test_latest_change_sign),
		cmocka_unit_test(test_zero_change_sign),
		cmocka_unit_test(test_filter_counts_runs),
		cmocka_unit_test(test_latest_runs),
		cmocka_unit_test(test_time_order_pools_commits),
		cmocka_unit_test(test_tables_name_machines),
		cmocka_unit_test(test_step_from_zero),
		cmocka_unit_test(test_latest_recorded_without_replay),
		cmocka_unit_test(test_fdr_per_machine),
	};

	return cmocka_run_group_tests(tests, setup, teardown);
}
