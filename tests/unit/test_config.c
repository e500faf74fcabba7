/*
 * test_config.c -- benchguard.json: the full example (every section used,
 * tests/fixtures/config/spec-example.json), every malformed
 * fixture in tests/fixtures/config/bad (each names its expected message on
 * its first line), line numbers through tricky text, defaults and
 * overrides, alerts, ${VAR} expansion and the `init` starter.
 */
#include <dirent.h>
#include <locale.h>
#include <sys/wait.h>
#include <unistd.h>
#include <math.h>

#include "unit.h"

static int near(double a, double b)
{
	return fabs(a - b) < 1e-12;
}

static char *fixture_path(const char *rel)
{
	bg_buf b = BG_BUF_INIT;

	assert_int_equal(bg_buf_printf(&b, "%s/config/%s", bg_test_fixtures(), rel), 0);
	return bg_buf_detach(&b);
}

static char *read_fixture(const char *rel, size_t *len)
{
	char *path = fixture_path(rel), *text = NULL;

	assert_int_equal(bg_read_file(NULL, path, &text, len), 0);
	free(path);
	return text;
}

/* Parses `text` as "t.json" and returns the error message (static storage). */
static const char *parse_error(bg_ctx *ctx, const char *text)
{
	bg_config *cfg = NULL;
	int err;

	bg_ctx_clear_error(ctx);
	err = bg_config_parse(ctx, "t.json", text, strlen(text), &cfg);
	assert_int_equal(err, BG_EINPUT);
	assert_null(cfg);
	return bg_ctx_error(ctx);
}

static bg_config *parse_ok(bg_ctx *ctx, const char *text)
{
	bg_config *cfg = NULL;
	int err = bg_config_parse(ctx, "t.json", text, strlen(text), &cfg);

	if (err < 0)
		fail_msg("unexpected error %d: %s", err, bg_ctx_error(ctx));
	assert_non_null(cfg);
	return cfg;
}

/* Replaces the one occurrence of `from` in `text` (caller frees). */
static char *replace(const char *text, const char *from, const char *to)
{
	const char *at = strstr(text, from);
	bg_buf b = BG_BUF_INIT;

	assert_non_null(at);
	assert_null(strstr(at + 1, from));
	assert_int_equal(bg_buf_put(&b, text, (size_t)(at - text)), 0);
	assert_int_equal(bg_buf_puts(&b, to), 0);
	assert_int_equal(bg_buf_puts(&b, at + strlen(from)), 0);
	return bg_buf_detach(&b);
}

static void test_spec_example(void **state)
{
	bg_ctx *ctx = NULL;
	bg_config *cfg = NULL;
	const bg_benchmark *b;
	const bg_alert_cfg *a;
	char *path = fixture_path("spec-example.json");

	(void)state;
	assert_int_equal(bg_ctx_new(&ctx), 0);
	if (bg_config_load(ctx, path, &cfg) < 0)
		fail_msg("%s", bg_ctx_error(ctx));
	assert_string_equal(bg_config_path(cfg), path);
	assert_string_equal(bg_config_project(cfg), "example");
	assert_string_equal(bg_config_build(cfg), "make -C examples/c");
	assert_string_equal(bg_config_baseline(cfg)->branch, "main");
	assert_int_equal(bg_config_baseline(cfg)->window, 20);
	assert_int_equal(bg_config_baseline(cfg)->min_runs, 5);
	assert_true(near(bg_config_thresholds(cfg)->alpha, 0.01));
	assert_int_equal(bg_config_thresholds(cfg)->fdr, 1);
	assert_true(near(bg_config_thresholds(cfg)->min_change, 0.02));
	assert_true(near(bg_config_thresholds(cfg)->min_effect, 0.8));

	/* Lines: the fixture's "{" is on line 1. */
	assert_int_equal(bg_config_benchmark_count(cfg), 3);
	b = bg_config_benchmark(cfg, 0);
	assert_string_equal(b->name, "sort/1M");
	assert_string_equal(b->command, "./examples/c/sort 1000000");
	assert_int_equal(b->format, BG_FORMAT_TIME);
	assert_int_equal(b->nrequires, 0);
	assert_int_equal(b->warmup, 2);
	assert_int_equal(b->samples, 15);
	assert_true(near(b->timeout, 60.0));
	assert_int_equal(b->nmetrics, 0);
	assert_int_equal(b->line, 8);
	b = bg_config_benchmark(cfg, 1);
	assert_string_equal(b->name, "saxpy");
	assert_string_equal(b->command, "./examples/cuda/saxpy");
	assert_int_equal(b->format, BG_FORMAT_LINES);
	assert_int_equal(b->nrequires, 1);
	assert_string_equal(b->requires[0], "cuda");
	assert_int_equal(b->line, 9);
	b = bg_config_benchmark(cfg, 2);
	assert_string_equal(b->name, "gb");
	assert_string_equal(b->command, "./examples/gbench/bench --benchmark_format=json "
	                                "--benchmark_repetitions=10");
	assert_int_equal(b->format, BG_FORMAT_GBENCH);
	assert_int_equal(b->line, 10);
	assert_null(bg_config_benchmark(cfg, 3));

	/* Alerts keep ${VAR} as written: it is expanded when the alert is sent. */
	assert_int_equal(bg_config_alert_count(cfg), 3);
	a = bg_config_alert(cfg, 0);
	assert_string_equal(a->kind, "slack");
	assert_string_equal(a->url, "${SLACK_WEBHOOK_URL}");
	assert_null(a->secret);
	assert_null(a->token);
	assert_int_equal(a->on, BG_ALERT_ON_REGRESSION);
	assert_int_equal(a->line, 14);
	a = bg_config_alert(cfg, 1);
	assert_string_equal(a->kind, "github");
	assert_string_equal(a->repo, "owner/name");
	assert_string_equal(a->token, "${GITHUB_TOKEN}");
	assert_string_equal(a->pr, "${PR_NUMBER}");
	assert_null(a->url);
	assert_int_equal(a->line, 15);
	a = bg_config_alert(cfg, 2);
	assert_string_equal(a->kind, "webhook");
	assert_string_equal(a->url, "https://hooks.example/bench");
	assert_string_equal(a->secret, "${BENCHGUARD_WEBHOOK_SECRET}");
	assert_int_equal(a->line, 16);
	assert_null(bg_config_alert(cfg, 3));

	bg_config_free(cfg);
	bg_ctx_free(ctx);
	free(path);
}

static int by_name(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/*
 * Every file in bad/ starts with "// expect: <line>: <message>"; loading it
 * must fail with exactly "<path>:<line>: <message>".
 */
static void test_bad_fixtures(void **state)
{
	char *dir = fixture_path("bad"), *names[256];
	size_t n = 0, i, late = 0;
	struct dirent *e;
	bg_ctx *ctx = NULL;
	DIR *d;

	(void)state;
	assert_int_equal(bg_ctx_new(&ctx), 0);
	d = opendir(dir);
	assert_non_null(d);
	while ((e = readdir(d)) != NULL) {
		size_t len = strlen(e->d_name);

		if (len > 5 && !strcmp(e->d_name + len - 5, ".json")) {
			assert_true(n < BG_ARRAY_SIZE(names));
			names[n++] = strdup(e->d_name);
		}
	}
	closedir(d);
	assert_true(n >= 12);
	qsort(names, n, sizeof(names[0]), by_name);
	for (i = 0; i < n; i++) {
		bg_buf path = BG_BUF_INIT, want = BG_BUF_INIT;
		bg_config *cfg = NULL;
		char *text = NULL;
		size_t len = 0, first;
		const char *prefix = "// expect: ";

		assert_int_equal(bg_buf_printf(&path, "%s/%s", dir, names[i]), 0);
		assert_int_equal(bg_read_file(NULL, path.ptr, &text, &len), 0);
		assert_memory_equal(text, prefix, strlen(prefix));
		first = strcspn(text, "\n");
		assert_int_equal(bg_buf_printf(&want, "%s:%.*s", path.ptr,
		                               (int)(first - strlen(prefix)),
		                               text + strlen(prefix)),
		                 0);
		if (atoi(text + strlen(prefix)) > 3)
			late++;
		bg_ctx_clear_error(ctx);
		assert_int_equal(bg_config_load(ctx, path.ptr, &cfg), BG_EINPUT);
		assert_null(cfg);
		assert_string_equal(bg_ctx_error(ctx), want.ptr);
		/* One line, as the CLI prints it. */
		assert_null(strchr(bg_ctx_error(ctx), '\n'));
		free(text);
		free(names[i]);
		bg_buf_clear(&path);
		bg_buf_clear(&want);
	}
	/* Most errors sit past the first lines, so the line numbers are really tested. */
	assert_true(late * 4 >= n * 3);
	free(dir);
	bg_ctx_free(ctx);
}

static void test_lines_through_tricky_text(void **state)
{
	bg_ctx *ctx = NULL;
	bg_config *cfg;
	bg_buf crlf = BG_BUF_INIT;
	char *text, *bad;
	size_t len, i;

	(void)state;
	assert_int_equal(bg_ctx_new(&ctx), 0);
	text = read_fixture("lines.json", &len);
	cfg = parse_ok(ctx, text);
	/* Expected lines read off tests/fixtures/config/lines.json. */
	assert_string_equal(bg_config_project(cfg), "a \"quoted\" // not a comment /* nor this");
	assert_int_equal(bg_config_benchmark_count(cfg), 3);
	assert_string_equal(bg_config_benchmark(cfg, 0)->command, "echo '}' \\ \"]\" '{'");
	assert_int_equal(bg_config_benchmark(cfg, 0)->line, 7);
	assert_int_equal(bg_config_benchmark(cfg, 1)->line, 9);
	assert_string_equal(bg_config_benchmark(cfg, 1)->command,
	                    "single quotes are json-c non-strict syntax");
	assert_int_equal(bg_config_benchmark(cfg, 2)->line, 12);
	assert_int_equal(bg_config_benchmark(cfg, 2)->nrequires, 2);
	assert_string_equal(bg_config_benchmark(cfg, 2)->requires[1], "nvcc");
	assert_int_equal(bg_config_alert_count(cfg), 2);
	assert_int_equal(bg_config_alert(cfg, 0)->line, 17);
	assert_int_equal(bg_config_alert(cfg, 1)->line, 18);
	bg_config_free(cfg);

	/* The same with CRLF line ends. */
	for (i = 0; i < len; i++)
		assert_int_equal(
		        bg_buf_puts(&crlf, text[i] == '\n' ? "\r\n" : (char[]){ text[i], 0 }), 0);
	cfg = parse_ok(ctx, crlf.ptr);
	assert_int_equal(bg_config_benchmark(cfg, 2)->line, 12);
	assert_int_equal(bg_config_alert(cfg, 1)->line, 18);
	bg_config_free(cfg);
	bg_buf_clear(&crlf);

	/* Errors late in the file land on the right line. */
	bad = replace(text, "\"nvcc\" ] }", "\"nvcc\" ], \"sampels\": 3 }");
	assert_string_equal(parse_error(ctx, bad),
	                    "t.json:14: benchmarks[2]: unknown key \"sampels\" (did you mean "
	                    "\"samples\"?)");
	free(bad);
	bad = replace(text, "\"${U}\" }", "\"${U}\", \"on\": [\"always\", 7] }");
	assert_string_equal(parse_error(ctx, bad),
	                    "t.json:19: alerts[1].on[1]: expected a string, got number");
	free(bad);
	bad = replace(text, "'command': 'single", "'command': 'single', 'name': 'single");
	assert_string_equal(parse_error(ctx, bad),
	                    "t.json:11: benchmarks[1]: duplicate key \"name\"");
	free(bad);
	free(text);
	bg_ctx_free(ctx);
}

static void test_defaults_applied(void **state)
{
	bg_ctx *ctx = NULL;
	bg_config *cfg;
	const bg_benchmark *b;

	(void)state;
	assert_int_equal(bg_ctx_new(&ctx), 0);
	cfg = parse_ok(ctx, "{\"benchmarks\": [{\"name\": \"a\", \"command\": \"true\"}]}");
	assert_string_equal(bg_config_path(cfg), "t.json");
	assert_null(bg_config_project(cfg));
	assert_null(bg_config_build(cfg));
	/* The defaults: main/20/5, 0.01/fdr/0.02/0.8, 2/15/60. */
	assert_string_equal(bg_config_baseline(cfg)->branch, "main");
	assert_int_equal(bg_config_baseline(cfg)->window, 20);
	assert_int_equal(bg_config_baseline(cfg)->min_runs, 5);
	assert_true(near(bg_config_thresholds(cfg)->alpha, 0.01));
	assert_int_equal(bg_config_thresholds(cfg)->fdr, 1);
	assert_true(near(bg_config_thresholds(cfg)->min_change, 0.02));
	assert_true(near(bg_config_thresholds(cfg)->min_effect, 0.8));
	assert_int_equal(bg_config_confirm(cfg)->pairs, 4);
	assert_int_equal(bg_config_confirm(cfg)->max_pairs, 32);
	b = bg_config_benchmark(cfg, 0);
	assert_int_equal(b->format, BG_FORMAT_TIME);
	assert_int_equal(b->warmup, 2);
	assert_int_equal(b->samples, 15);
	assert_true(near(b->timeout, 60.0));
	assert_int_equal(b->nrequires, 0);
	assert_int_equal(b->nmetrics, 0);
	assert_int_equal(b->line, 1);
	assert_int_equal(bg_config_alert_count(cfg), 0);
	bg_config_free(cfg);

	/* Objects that are present but partial keep the defaults of what they leave out. */
	cfg = parse_ok(ctx, "{\"baseline\": {\"window\": 7}, \"thresholds\": {\"fdr\": false},\n"
	                    " \"defaults\": {\"samples\": 3},\n"
	                    " \"benchmarks\": [{\"name\": \"a\", \"command\": \"true\"}],\n"
	                    " \"alerts\": []}");
	assert_int_equal(bg_config_baseline(cfg)->window, 7);
	assert_int_equal(bg_config_baseline(cfg)->min_runs, 5);
	assert_int_equal(bg_config_thresholds(cfg)->fdr, 0);
	assert_true(near(bg_config_thresholds(cfg)->alpha, 0.01));
	assert_int_equal(bg_config_benchmark(cfg, 0)->samples, 3);
	assert_int_equal(bg_config_benchmark(cfg, 0)->warmup, 2);
	assert_int_equal(bg_config_alert_count(cfg), 0);
	bg_config_free(cfg);

	/* confirm: 0 pairs turns it off; a first look above the default cap
	 * raises the cap with it. */
	cfg = parse_ok(ctx, "{\"confirm\": {\"pairs\": 0},\n"
	                    " \"benchmarks\": [{\"name\": \"a\", \"command\": \"true\"}]}");
	assert_int_equal(bg_config_confirm(cfg)->pairs, 0);
	bg_config_free(cfg);
	cfg = parse_ok(ctx, "{\"confirm\": {\"pairs\": 40},\n"
	                    " \"benchmarks\": [{\"name\": \"a\", \"command\": \"true\"}]}");
	assert_int_equal(bg_config_confirm(cfg)->pairs, 40);
	assert_int_equal(bg_config_confirm(cfg)->max_pairs, 40);
	bg_config_free(cfg);
	bg_ctx_free(ctx);
}

static void test_overrides_and_metrics(void **state)
{
	bg_ctx *ctx = NULL;
	bg_config *cfg;
	const bg_benchmark *b;

	(void)state;
	assert_int_equal(bg_ctx_new(&ctx), 0);
	cfg = parse_ok(
	        ctx, "{\n"
	             "  \"defaults\": {\"warmup\": 1, \"samples\": 10, \"timeout\": 2.5},\n"
	             "  \"benchmarks\": [\n"
	             "    {\"name\": \"a\", \"command\": \"x\", \"samples\": 30, \"warmup\": 0},\n"
	             "    {\"name\": \"b\", \"command\": \"y\", \"timeout\": 600,\n"
	             "     \"format\": \"lines\", \"metrics\": {\n"
	             "        \"throughput\": {\"direction\": \"higher\"},\n"
	             "        \"GB/s\": {\"direction\": \"lower\"}}}\n"
	             "  ]\n"
	             "}\n");
	b = bg_config_benchmark(cfg, 0);
	assert_int_equal(b->samples, 30);
	assert_int_equal(b->warmup, 0);
	assert_true(near(b->timeout, 2.5));
	b = bg_config_benchmark(cfg, 1);
	assert_int_equal(b->samples, 10);
	assert_int_equal(b->warmup, 1);
	assert_true(near(b->timeout, 600.0));
	assert_int_equal(b->line, 5);
	assert_int_equal(b->nmetrics, 2);
	assert_string_equal(b->metrics[0].metric, "throughput");
	assert_int_equal(b->metrics[0].direction, BG_DIR_HIGHER);
	/* A rate unit would be higher-is-better; the override turns it round. */
	assert_string_equal(b->metrics[1].metric, "GB/s");
	assert_int_equal(b->metrics[1].direction, BG_DIR_LOWER);
	bg_config_free(cfg);

	assert_string_equal(parse_error(ctx,
	                                "{\"benchmarks\": [{\"name\": \"a\", \"command\": \"x\",\n"
	                                "  \"metrics\": {\"GB/s\": {\"direction\": \"up\"}}}]}"),
	                    "t.json:2: benchmarks[0].metrics[\"GB/s\"].direction: expected "
	                    "\"lower\" or \"higher\", got \"up\"");
	assert_string_equal(
	        parse_error(ctx, "{\"benchmarks\": [{\"name\": \"a\", \"command\": \"x\",\n"
	                         "  \"metrics\": {\"t\": {}}}]}"),
	        "t.json:2: benchmarks[0].metrics.t: missing required key \"direction\" (or "
	        "\"min_change\")");
	bg_ctx_free(ctx);
}

/* Values, types and ranges, each error with its path and line. */
/*
 * Per-metric min_change: suite-wide in thresholds.metrics, per benchmark in
 * its metrics object (where direction becomes optional), and what
 * bg_thresholds_min_change resolves: the benchmark's own, then the
 * suite's metric, then the instrument's default, then thresholds.min_change.
 */
static void test_metric_thresholds(void **state)
{
	static const struct {
		const char *text, *msg;
	} bad[] = {
		{ "{\"thresholds\": {\"metrics\": {\"instructions\": {\"min_change\": 0}}},\n"
		  " \"benchmarks\": [{\"name\": \"a\", \"command\": \"x\"}]}",
		  "t.json:1: thresholds.metrics.instructions.min_change: must be a relative change "
		  "above 0 and below 1, e.g. 0.001 for 0.1% (got 0)" },
		{ "{\"thresholds\": {\"metrics\": {\"instructions\": {\"min_change\": 1}}},\n"
		  " \"benchmarks\": [{\"name\": \"a\", \"command\": \"x\"}]}",
		  "t.json:1: thresholds.metrics.instructions.min_change: must be a relative change "
		  "above 0 and below 1, e.g. 0.001 for 0.1% (got 1)" },
		{ "{\"thresholds\": {\"metrics\": {\"x\": {\"min_change\": -0.5}}}}",
		  "t.json:1: thresholds.metrics.x.min_change: must be a relative change above 0 "
		  "and below 1, e.g. 0.001 for 0.1% (got -0.5)" },
		{ "{\"thresholds\": {\"metrics\": {\"x\": {\"min_change\": \"0.1\"}}}}",
		  "t.json:1: thresholds.metrics.x.min_change: expected a number, got string" },
		{ "{\"thresholds\": {\n\"metrics\": {\"x\": {}}}}",
		  "t.json:2: thresholds.metrics.x: missing required key \"min_change\"" },
		{ "{\"thresholds\": {\"metrics\": {\"x\": {\"direction\": \"lower\"}}}}",
		  "t.json:1: thresholds.metrics.x: unknown key \"direction\"" },
		{ "{\"thresholds\": {\"metrics\": {\"x\": {\"min_chang\": 0.1}}}}",
		  "t.json:1: thresholds.metrics.x: unknown key \"min_chang\" (did you mean "
		  "\"min_change\"?)" },
		{ "{\"thresholds\": {\"metrics\": [1]}}",
		  "t.json:1: thresholds.metrics: expected an object, got array" },
		{ "{\"thresholds\": {\"metrics\": {\"\": {\"min_change\": 0.1}}}}",
		  "t.json:1: thresholds.metrics: metric name must not be empty" },
		/* A name no series can have overrides nothing, silently. */
		{ "{\"thresholds\": {\"metrics\": {\"a:b\": {\"min_change\": 0.1}}}}",
		  "t.json:1: thresholds.metrics: metric name \"a:b\" contains ':' (series are "
		  "named benchmark:metric)" },
		{ "{\"benchmarks\": [{\"name\": \"a\", \"command\": \"x\",\n"
		  "  \"metrics\": {\"x:y\": {\"direction\": \"higher\"}}}]}",
		  "t.json:2: benchmarks[0].metrics: metric name \"x:y\" contains ':' (series are "
		  "named benchmark:metric)" },
		{ "{\"benchmarks\": [{\"name\": \"a\", \"command\": \"x\",\n"
		  "  \"metrics\": {\"x y\\u0007\": {\"direction\": \"higher\"}}}]}",
		  "t.json:2: benchmarks[0].metrics: metric name \"x y\\x07\" has a control "
		  "character" },
		{ "{\"benchmarks\": [{\"name\": \"a\", \"command\": \"x\",\n"
		  "  \"metrics\": {\"t\": {\"min_change\": 1.5}}}]}",
		  "t.json:2: benchmarks[0].metrics.t.min_change: must be a relative change above 0 "
		  "and below 1, e.g. 0.001 for 0.1% (got 1.5)" },
		{ "{\"benchmarks\": [{\"name\": \"a\", \"command\": \"x\",\n"
		  "  \"metrics\": {\"t\": {\"min_change\": null}}}]}",
		  "t.json:2: benchmarks[0].metrics.t.min_change: expected a number, got null" },
	};
	const char *sim = "simulate callgrind valgrind-3.19.0";
	const bg_thresholds *th;
	const bg_benchmark *b;
	bg_ctx *ctx = NULL;
	bg_config *cfg;
	size_t i;

	(void)state;
	assert_int_equal(bg_ctx_new(&ctx), 0);
	cfg = parse_ok(ctx, "{\n"
	                    "  \"thresholds\": {\"min_change\": 0.03, \"metrics\": {\n"
	                    "    \"cycles\": {\"min_change\": 0.01},\n"
	                    "    \"instructions\": {\"min_change\": 0.002}}},\n"
	                    "  \"benchmarks\": [\n"
	                    "    {\"name\": \"a\", \"command\": \"x\", \"metrics\": {\n"
	                    "       \"instructions\": {\"min_change\": 0.0005},\n"
	                    "       \"GB/s\": {\"direction\": \"lower\", \"min_change\": 0.05},\n"
	                    "       \"wall_time\": {\"direction\": \"higher\"}}},\n"
	                    "    {\"name\": \"b\", \"command\": \"y\"}\n"
	                    "  ]\n"
	                    "}\n");
	th = bg_config_thresholds(cfg);
	/* The direction overrides are only the metrics that have one. */
	b = bg_config_benchmark(cfg, 0);
	assert_int_equal(b->nmetrics, 2);
	assert_string_equal(b->metrics[0].metric, "GB/s");
	assert_int_equal(b->metrics[0].direction, BG_DIR_LOWER);
	assert_string_equal(b->metrics[1].metric, "wall_time");
	assert_int_equal(b->metrics[1].direction, BG_DIR_HIGHER);
	assert_int_equal(th->nmetrics, 4);
	/* The benchmark's own entry first, even over an instrument's default. */
	assert_true(near(bg_thresholds_min_change(th, "a", "instructions", sim), 0.0005));
	assert_true(near(bg_thresholds_min_change(th, "a", "GB/s", NULL), 0.05));
	/* Then the suite's per-metric entry, over the instrument's default. */
	assert_true(near(bg_thresholds_min_change(th, "b", "instructions", sim), 0.002));
	assert_true(near(bg_thresholds_min_change(th, "b", "cycles", "counters user"), 0.01));
	assert_true(near(bg_thresholds_min_change(th, NULL, "instructions", NULL), 0.002));
	/* Then the instrument's default; then thresholds.min_change. */
	assert_true(near(bg_thresholds_min_change(th, "b", "est_cycles", sim), 0.001));
	assert_true(near(bg_thresholds_min_change(th, "a", "wall_time", NULL), 0.03));
	assert_true(near(bg_thresholds_min_change(th, "b", "GB/s", NULL), 0.03));
	/* A counted cycle moves like time: no default of its own. */
	assert_true(
	        near(bg_thresholds_min_change(th, "b", "branch_misses", "counters user"), 0.03));
	bg_config_free(cfg);

	/* The series a parser makes for a benchmark ("g/BenchmarkX" from Go's
	 * output) take its threshold, as they take its direction; a benchmark
	 * named "g/x" keeps its own and is nearer for what lies under it. */
	cfg = parse_ok(ctx, "{\"benchmarks\": [\n"
	                    "  {\"name\": \"g\", \"command\": \"x\", \"format\": \"go\",\n"
	                    "   \"metrics\": {\"time\": {\"min_change\": 0.5}}},\n"
	                    "  {\"name\": \"g/x\", \"command\": \"x\",\n"
	                    "   \"metrics\": {\"time\": {\"min_change\": 0.2}}}]}\n");
	th = bg_config_thresholds(cfg);
	assert_true(near(bg_thresholds_min_change(th, "g", "time", NULL), 0.5));
	assert_true(near(bg_thresholds_min_change(th, "g/BenchmarkX", "time", NULL), 0.5));
	assert_true(near(bg_thresholds_min_change(th, "g/a/b", "time", NULL), 0.5));
	assert_true(near(bg_thresholds_min_change(th, "g/x", "time", NULL), 0.2));
	assert_true(near(bg_thresholds_min_change(th, "g/x/sub", "time", NULL), 0.2));
	assert_true(near(bg_thresholds_min_change(th, "gg/x", "time", NULL), 0.02));
	assert_true(near(bg_thresholds_min_change(th, "g/BenchmarkX", "allocs", NULL), 0.02));
	bg_config_free(cfg);

	/* Without any entry: the instrument's default, else the suite's. */
	cfg = parse_ok(ctx, "{\"benchmarks\": [{\"name\": \"a\", \"command\": \"x\"}]}");
	th = bg_config_thresholds(cfg);
	assert_null(th->metrics);
	assert_int_equal(th->nmetrics, 0);
	assert_true(near(bg_instrument__min_change(sim, "instructions"), 0.001));
	assert_true(near(bg_thresholds_min_change(th, "a", "instructions", sim), 0.001));
	assert_true(near(bg_thresholds_min_change(th, "a", "instructions", NULL), 0.02));
	assert_true(near(bg_thresholds_min_change(th, "a", "wall_time", NULL), 0.02));
	bg_config_free(cfg);

	/* Many benchmarks with entries: each resolves to its own. */
	{
		bg_buf t = BG_BUF_INIT;
		char name[16];

		assert_int_equal(bg_buf_puts(&t, "{\"benchmarks\": ["), 0);
		for (i = 0; i < 40; i++)
			assert_int_equal(
			        bg_buf_printf(&t,
			                      "%s{\"name\": \"b%zu\", \"command\": \"x\", "
			                      "\"metrics\": {\"m\": {\"min_change\": %g}}}",
			                      i ? "," : "", i, 0.001 * (double)(i + 1)),
			        0);
		assert_int_equal(bg_buf_puts(&t, "]}"), 0);
		cfg = parse_ok(ctx, t.ptr);
		th = bg_config_thresholds(cfg);
		assert_int_equal(th->nmetrics, 40);
		for (i = 0; i < 40; i++) {
			snprintf(name, sizeof(name), "b%zu", i);
			assert_true(near(bg_thresholds_min_change(th, name, "m", NULL),
			                 0.001 * (double)(i + 1)));
			assert_int_equal(bg_config_benchmark(cfg, i)->nmetrics, 0);
		}
		bg_config_free(cfg);
		bg_buf_clear(&t);
	}

	for (i = 0; i < BG_ARRAY_SIZE(bad); i++)
		assert_string_equal(parse_error(ctx, bad[i].text), bad[i].msg);
	bg_ctx_free(ctx);
}

static void test_value_errors(void **state)
{
	static const struct {
		const char *text, *msg;
	} cases[] = {
		{ "", "t.json:1: empty configuration" },
		{ "  \n\n // nothing\n", "t.json:1: empty configuration" },
		{ "null", "t.json:1: the configuration must be a JSON object, got null" },
		{ "\n\n\"benchmarks\"",
		  "t.json:3: the configuration must be a JSON object, got string" },
		{ "{\"benchmarks\": 3}", "t.json:1: benchmarks: expected an array, got number" },
		{ "{\"benchmarks\": [\"a\"]}",
		  "t.json:1: benchmarks[0]: expected an object, got string" },
		{ "{\"colour\": 1}", "t.json:1: unknown key \"colour\"" },
		{ "{\n\"a\\nb\": 1}", "t.json:2: unknown key \"a\\nb\"" },
		{ "{\"project\": \"\", \"benchmarks\": []}",
		  "t.json:1: project: must not be empty" },
		{ "{\"build\": 5}", "t.json:1: build: expected a string, got number" },
		{ "{\"baseline\": {\"window\": 1}}",
		  "t.json:1: baseline.window: must be at least 2 (got 1)" },
		{ "{\"baseline\": {\"window\": 3}}",
		  "t.json:1: baseline.window: must be at least baseline.min_runs (3 < 5)" },
		{ "{\"baseline\": {\"branch\": \" \"}}",
		  "t.json:1: baseline.branch: must not be empty" },
		{ "{\"baseline\": []}", "t.json:1: baseline: expected an object, got array" },
		{ "{\"thresholds\": {\"alpha\": 0}}",
		  "t.json:1: thresholds.alpha: must be from 1e-12 to 0.5 (got 0)" },
		/* As --alpha takes it: 0.9 was taken here and refused there. */
		{ "{\"thresholds\": {\"alpha\": 0.9}}",
		  "t.json:1: thresholds.alpha: must be from 1e-12 to 0.5 (got 0.9)" },
		{ "{\"thresholds\": {\"alpha\": 1e-13}}",
		  "t.json:1: thresholds.alpha: must be from 1e-12 to 0.5 (got 1e-13)" },
		{ "{\"thresholds\": {\"alpha\": NaN}}",
		  "t.json:1: thresholds.alpha: must be a finite number (got NaN)" },
		{ "{\"thresholds\": {\"alpha\": \"0.01\"}}",
		  "t.json:1: thresholds.alpha: expected a number, got string" },
		{ "{\"thresholds\": {\"min_change\": -0.1}}",
		  "t.json:1: thresholds.min_change: must be a relative change from 0 to below 1, "
		  "e.g. 0.05 for 5% (got -0.1)" },
		/* 5 meant as 5%: a rate could never fall that far, so none would be flagged. */
		{ "{\"thresholds\": {\"min_change\": 5}}",
		  "t.json:1: thresholds.min_change: must be a relative change from 0 to below 1, "
		  "e.g. 0.05 for 5% (got 5)" },
		{ "{\"thresholds\": {\"min_change\": 1}}",
		  "t.json:1: thresholds.min_change: must be a relative change from 0 to below 1, "
		  "e.g. 0.05 for 5% (got 1)" },
		{ "{\"thresholds\": {\"min_effect\": -1}}",
		  "t.json:1: thresholds.min_effect: must be at least 0 (got -1)" },
		{ "{\"thresholds\": {\"fdr\": 1}}",
		  "t.json:1: thresholds.fdr: expected true or false, got number" },
		{ "{\"defaults\": {\"samples\": 0}}",
		  "t.json:1: defaults.samples: must be at least 1 (got 0)" },
		{ "{\"defaults\": {\"warmup\": -1}}",
		  "t.json:1: defaults.warmup: must be at least 0 (got -1)" },
		{ "{\"defaults\": {\"samples\": 99999999999}}",
		  "t.json:1: defaults.samples: must be at most 1000000 (got 99999999999)" },
		{ "{\"defaults\": {\"samples\": 1e3}}",
		  "t.json:1: defaults.samples: expected an integer, got 1e3" },
		{ "{\"defaults\": {\"timeout\": 1e400}}",
		  "t.json:1: defaults.timeout: must be a finite number (got 1e400)" },
		{ "{\"defaults\": {\"timeout\": -5}}",
		  "t.json:1: defaults.timeout: must be greater than 0 (got -5)" },
		{ "{\"defaults\": {\"timout\": 5}}",
		  "t.json:1: defaults: unknown key \"timout\" (did you mean \"timeout\"?)" },
		{ "{\"benchmarks\": [{\"name\": \"a:b\", \"command\": \"x\"}]}",
		  "t.json:1: benchmarks[0].name: must not contain whitespace or ':' (got "
		  "\"a:b\")" },
		{ "{\"benchmarks\": [{\"command\": \"x\"}]}",
		  "t.json:1: benchmarks[0]: missing required key \"name\"" },
		{ "{\"benchmarks\": [{\"name\": \"a\", \"command\": \"  \"}]}",
		  "t.json:1: benchmarks[0].command: must not be empty" },
		{ "{\"benchmarks\": [{\"name\": \"a\", \"command\": \"x\", \"requires\": [\"\"]}]}",
		  "t.json:1: benchmarks[0].requires[0]: must not be empty" },
		{ "{\"benchmarks\": [{\"name\": \"a\", \"command\": \"x\", \"format\": 2}]}",
		  "t.json:1: benchmarks[0].format: expected a string, got number" },
		{ "{\"benchmarks\": [{\"name\": \"a\\u0000b\", \"command\": \"x\"}]}",
		  "t.json:1: benchmarks[0].name: must not contain a NUL character" },
		{ "{\"project\": \"a\", \"proj\\u0065ct\": \"b\"}",
		  "t.json:1: duplicate key \"project\"" },
		/* A key's NUL cut it short: "build\u0000evil" was taken as "build",
		 * and a metric "m\u0000x" overrode metric "m". */
		{ "{\"build\\u0000evil\": \"make\"}",
		  "t.json:1: a key must not contain a NUL character" },
		{ "{\"benchmarks\": [{\"name\": \"a\", \"command\": \"x\",\n"
		  "  \"metrics\": {\"m\\u0000x\": {\"direction\": \"higher\"}}}]}",
		  "t.json:2: benchmarks[0].metrics: a key must not contain a NUL character" },
		{ "{\"confirm\": {\"pairs\": 1}}",
		  "t.json:1: confirm.pairs: must be 0 (no confirmation) or at least 2: one pair "
		  "has no spread to judge" },
		{ "{\"confirm\": {\"pairs\": 8, \"max_pairs\": 4}}",
		  "t.json:1: confirm.max_pairs: must be at least confirm.pairs (4 < 8)" },
		{ "{\"confirm\": {\"pairs\": 2000}}",
		  "t.json:1: confirm.pairs: must be at most 1000 (got 2000)" },
		{ "{\"confirm\": {\"max_pair\": 8}}",
		  "t.json:1: confirm: unknown key \"max_pair\" (did you mean \"max_pairs\"?)" },
	};
	bg_ctx *ctx = NULL;
	size_t i;

	(void)state;
	assert_int_equal(bg_ctx_new(&ctx), 0);
	for (i = 0; i < BG_ARRAY_SIZE(cases); i++)
		assert_string_equal(parse_error(ctx, cases[i].text), cases[i].msg);
	bg_ctx_free(ctx);
}

/* Broken JSON: json-c's message, or the scanner's when it knows better. */
static void test_syntax_errors(void **state)
{
	static const struct {
		const char *text, *msg;
	} cases[] = {
		{ "{\n\"benchmarks\": [],\n\"project\": \"x", "t.json:3: unterminated string" },
		{ "{\n\"benchmarks\": []\n}\n/* trailing", "t.json:4: unterminated comment" },
		{ "{\n\"benchmarks\": [\n{\"name\": \"a\",\n", "t.json:3: unexpected end of file "
		                                               "(\"{\" at line 3 is not closed)" },
		{ "{\n\"defaults\": {\"samples\": 15,,}\n}",
		  "t.json:2: invalid JSON: quoted object property name expected" },
		{ "{\n\n\"defaults\" {}\n}",
		  "t.json:3: invalid JSON: object property name separator ':' expected" },
		{ "{\n\"project\": \"\\x\"}", "t.json:2: invalid JSON: invalid string sequence" },
		{ "{\n\"project\": \"\xff\"}", "t.json:2: invalid JSON: invalid utf-8 string" },
		{ "{\"benchmarks\": []}\n\n[]",
		  "t.json:3: unexpected text after the top-level value" },
	};
	static const char with_nul[] = "{\n\"project\": \"a\0b\"}";
	bg_ctx *ctx = NULL;
	bg_config *cfg = NULL;
	size_t i;

	(void)state;
	assert_int_equal(bg_ctx_new(&ctx), 0);
	for (i = 0; i < BG_ARRAY_SIZE(cases); i++)
		assert_string_equal(parse_error(ctx, cases[i].text), cases[i].msg);
	assert_int_equal(bg_config_parse(ctx, "t.json", with_nul, sizeof(with_nul) - 1, &cfg),
	                 BG_EINPUT);
	assert_string_equal(bg_ctx_error(ctx),
	                    "t.json:2: unexpected NUL byte (is this a JSON file?)");

	/* What json-c's non-strict mode allows is allowed: a byte-order mark, trailing
	 * commas, and a line comment that ends the file without a newline. */
	cfg = parse_ok(ctx,
	               "\xef\xbb\xbf{\"benchmarks\": [{\"name\": \"a\", \"command\": \"x\",},],} "
	               "// end");
	assert_int_equal(bg_config_benchmark_count(cfg), 1);
	bg_config_free(cfg);
	bg_ctx_free(ctx);
}

/* before, `open` '[', `close` ']', after (caller frees). */
static char *nested(const char *before, size_t open, size_t close, const char *after)
{
	bg_buf b = BG_BUF_INIT;

	assert_int_equal(bg_buf_puts(&b, before), 0);
	while (open--)
		assert_int_equal(bg_buf_put(&b, "[", 1), 0);
	while (close--)
		assert_int_equal(bg_buf_put(&b, "]", 1), 0);
	assert_int_equal(bg_buf_puts(&b, after), 0);
	return bg_buf_detach(&b);
}

static void test_nesting_bounded(void **state)
{
	bg_ctx *ctx = NULL;
	char *text;

	(void)state;
	assert_int_equal(bg_ctx_new(&ctx), 0);
	/* 50,000 '[' once overflowed the stack of the position scanner. */
	text = nested("{\"project\": ", 50000, 0, "");
	assert_string_equal(parse_error(ctx, text), "t.json:1: nesting deeper than 64 levels");
	free(text);
	/* Closed, on the third line: 65 levels (with the object's) are too many. */
	text = nested("{\n\"project\": \"p\",\n\"x\": ", 64, 64, "}");
	assert_string_equal(parse_error(ctx, text), "t.json:3: nesting deeper than 64 levels");
	free(text);
	/* 64 are read: what is wrong then is the key, not the depth. */
	text = nested("{\"x\": ", 63, 63, "}");
	assert_non_null(strstr(parse_error(ctx, text), "t.json:1: unknown key \"x\""));
	assert_null(strstr(bg_ctx_error(ctx), "nesting"));
	free(text);
	/*
	 * json-c failing early (a bad escape) sends the scanner over the whole
	 * text to explain it: the deep part after it must not crash the scanner,
	 * and json-c's message, about the first problem, stands.
	 */
	text = nested("{\"project\": \"\\x\", \"b\": ", 50000, 0, "");
	assert_string_equal(parse_error(ctx, text),
	                    "t.json:1: invalid JSON: invalid string sequence");
	free(text);
	bg_ctx_free(ctx);
}

static void test_hostile_names(void **state)
{
	static const struct {
		const char *text, *msg;
	} cases[] = {
		{ "{\"benchmarks\": [{\"name\": \"a\\u001b[31m\", \"command\": \"x\"}]}",
		  "t.json:1: benchmarks[0].name: must not contain whitespace or ':' (got "
		  "\"a\\x1b[31m\")" },
		/* Past the byte check: a bidi override and a C1 control. */
		{ "{\"benchmarks\": [{\"name\": \"a\\u202ecod\", \"command\": \"x\"}]}",
		  "t.json:1: benchmarks[0].name: \"a\\u{202e}cod\" has a control character" },
		{ "{\"benchmarks\": [{\"name\": \"a\\u009b31m\", \"command\": \"x\"}]}",
		  "t.json:1: benchmarks[0].name: \"a\\u{009b}31m\" has a control character" },
		{ "{\n\"project\": \"p\\n::error::x\"}",
		  "t.json:2: project: \"p\\x0a::error::x\" has a control character" },
	};
	bg_ctx *ctx = NULL;
	size_t i;

	(void)state;
	assert_int_equal(bg_ctx_new(&ctx), 0);
	for (i = 0; i < BG_ARRAY_SIZE(cases); i++)
		assert_string_equal(parse_error(ctx, cases[i].text), cases[i].msg);
	bg_ctx_free(ctx);
}

static int warnings;

static void count_warnings(bg_log_level level, const char *msg, void *data)
{
	(void)data;
	if (level == BG_LOG_WARN && strstr(msg, "written out"))
		warnings++;
}

/* An alert target, and the error that parsing a file with it gives. */
struct alert_case {
	const char *alert, *msg;
};

static void expect_alert_errors(bg_ctx *ctx, const struct alert_case *cases, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++) {
		bg_buf text = BG_BUF_INIT, want = BG_BUF_INIT;

		assert_int_equal(bg_buf_printf(&text,
		                               "{\"benchmarks\": [{\"name\": \"a\", \"command\": "
		                               "\"x\"}],\n\"alerts\": [\n%s]}",
		                               cases[i].alert),
		                 0);
		assert_int_equal(bg_buf_printf(&want, "t.json:3: %s", cases[i].msg), 0);
		assert_string_equal(parse_error(ctx, text.ptr), want.ptr);
		bg_buf_clear(&text);
		bg_buf_clear(&want);
	}
}

/*
 * Two targets with the same kind, url, api_url and repo as written are one
 * target in the outbox, which stores no secret: an alert one queued was
 * sent with the other's token.  Refused, whatever else differs; a target
 * that differs in any of the four strings is another target.
 */
static void test_alert_twins(void)
{
#define TWIN_WHY                                                                                   \
	"make them one entry: an alert waiting in the outbox names its target by these, and "      \
	"could be sent with the other's token or secret"
	static const struct {
		const char *alerts, *msg;
	} cases[] = {
		{ "{\"kind\": \"github\", \"repo\": \"o/n\", \"token\": \"${A}\", \"pr\": 1},\n"
		  "{\"kind\": \"github\", \"repo\": \"o/n\", \"token\": \"${B}\", \"pr\": 1}",
		  "t.json:4: alerts[1]: the same kind, url, api_url and repo as alerts[0] (line "
		  "3); " TWIN_WHY },
		{ "{\"kind\": \"webhook\", \"url\": \"${U}\", \"secret\": \"${A}\"},\n"
		  "{\"kind\": \"slack\", \"url\": \"${U}\"},\n"
		  "{\"kind\": \"webhook\", \"url\": \"${U}\", \"secret\": \"${B}\", "
		  "\"on\": [\"improvement\"]}",
		  "t.json:5: alerts[2]: the same kind, url, api_url and repo as alerts[0] (line "
		  "3); " TWIN_WHY },
	};
#undef TWIN_WHY
	bg_ctx *ctx = NULL;
	bg_config *cfg;
	size_t i;

	assert_int_equal(bg_ctx_new(&ctx), 0);
	for (i = 0; i < BG_ARRAY_SIZE(cases); i++) {
		bg_buf text = BG_BUF_INIT;

		assert_int_equal(bg_buf_printf(&text,
		                               "{\"benchmarks\": [{\"name\": \"a\", \"command\": "
		                               "\"x\"}],\n\"alerts\": [\n%s]}",
		                               cases[i].alerts),
		                 0);
		assert_string_equal(parse_error(ctx, text.ptr), cases[i].msg);
		bg_buf_clear(&text);
	}
	/* Another repo, api_url or kind: another target. */
	cfg = parse_ok(ctx, "{\"benchmarks\": [{\"name\": \"a\", \"command\": \"x\"}],\n"
	                    " \"alerts\": [\n"
	                    "  {\"kind\": \"github\", \"repo\": \"o/n\", \"token\": \"${A}\", "
	                    "\"pr\": 1},\n"
	                    "  {\"kind\": \"github\", \"repo\": \"o/m\", \"token\": \"${A}\", "
	                    "\"pr\": 1},\n"
	                    "  {\"kind\": \"github\", \"repo\": \"o/n\", \"token\": \"${B}\", "
	                    "\"pr\": 1,\n"
	                    "   \"api_url\": \"https://ghe.example/api/v3\"},\n"
	                    "  {\"kind\": \"gitlab\", \"repo\": \"o/n\", \"token\": \"${B}\", "
	                    "\"pr\": 1}\n"
	                    " ]}");
	assert_int_equal(bg_config_alert_count(cfg), 4);
	bg_config_free(cfg);
	bg_ctx_free(ctx);
}

static void test_alerts(void **state)
{
	static const struct alert_case cases[] = {
		{ "{\"url\": \"https://x\"}", "alerts[0]: missing required key \"kind\"" },
		{ "{\"kind\": \"webhook\"}",
		  "alerts[0]: missing required key \"url\" (webhook alerts need a url)" },
		{ "{\"kind\": \"github\", \"repo\": \"o/n\", \"token\": \"${T}\", \"pr\": 0}",
		  "alerts[0].pr: must be a pull-request number (got 0)" },
		/* Past int64: json-c would hold INT64_MAX, another pull request. */
		{ "{\"kind\": \"github\", \"repo\": \"o/n\", \"token\": \"${T}\", "
		  "\"pr\": 99999999999999999999}",
		  "alerts[0].pr: must be a pull-request number (got 99999999999999999999)" },
		{ "{\"kind\": \"github\", \"repo\": \"o/n\", \"token\": \"${T}\", \"pr\": \"abc\"}",
		  "alerts[0].pr: expected a pull-request number or \"${VAR}\", got \"abc\"" },
		/* The same number as a string: refused as the integer is. */
		{ "{\"kind\": \"github\", \"repo\": \"o/n\", \"token\": \"${T}\", "
		  "\"pr\": \"99999999999999999999\"}",
		  "alerts[0].pr: expected a pull-request number or \"${VAR}\", got "
		  "\"99999999999999999999\"" },
		{ "{\"kind\": \"github\", \"repo\": \"o/n\", \"token\": \"${T}\", \"pr\": true}",
		  "alerts[0].pr: expected a string or an integer, got boolean" },
		{ "{\"kind\": \"github\", \"repo\": \"myrepo\", \"token\": \"${T}\", \"pr\": 1}",
		  "alerts[0].repo: expected \"owner/name\", got \"myrepo\"" },
		/* In the API's URL, ".." would be a step up: the token elsewhere. */
		{ "{\"kind\": \"github\", \"repo\": \"../..\", \"token\": \"${T}\", \"pr\": 1}",
		  "alerts[0].repo: expected \"owner/name\", got \"../..\"" },
		{ "{\"kind\": \"github\", \"repo\": \"o/..\", \"token\": \"${T}\", \"pr\": 1}",
		  "alerts[0].repo: expected \"owner/name\", got \"o/..\"" },
		{ "{\"kind\": \"github\", \"repo\": \"./n\", \"token\": \"${T}\", \"pr\": 1}",
		  "alerts[0].repo: expected \"owner/name\", got \"./n\"" },
		{ "{\"kind\": \"slack\", \"url\": \"${U}\", \"on\": []}",
		  "alerts[0].on: must name at least one of regression, improvement or always" },
		{ "{\"kind\": \"slack\", \"url\": \"${U}\", \"on\": [\"regresion\"]}",
		  "alerts[0].on[0]: unknown event \"regresion\" (expected regression, improvement "
		  "or "
		  "always)" },
		{ "{\"kind\": \"slack\", \"url\": \"${}\"}",
		  "alerts[0].url: invalid variable name \"\" in \"${...}\"" },
		{ "{\"kind\": \"slack\", \"url\": \"${U}\", \"secert\": \"${S}\"}",
		  "alerts[0]: unknown key \"secert\" (did you mean \"secret\"?)" },
	};
	bg_ctx *ctx = NULL;
	bg_config *cfg;
	const bg_alert_cfg *a;

	(void)state;
	assert_int_equal(bg_ctx_new(&ctx), 0);
	bg_ctx_set_log(ctx, count_warnings, NULL);
	warnings = 0;
	cfg = parse_ok(ctx, "{\"benchmarks\": [{\"name\": \"a\", \"command\": \"x\"}],\n"
	                    " \"alerts\": [\n"
	                    "  {\"kind\": \"github\", \"repo\": \"o/n\", \"token\": \"${T}\",\n"
	                    "   \"pr\": 42, \"on\": [\"improvement\", \"always\"]},\n"
	                    "  {\"kind\": \"webhook\", \"url\": \"http://h:8080/$x$$\",\n"
	                    "   \"secret\": \"s3cret\", \"on\": [\"regression\", \"regression\"]}\n"
	                    " ]}");
	assert_int_equal(bg_config_alert_count(cfg), 2);
	a = bg_config_alert(cfg, 0);
	assert_string_equal(a->pr, "42");
	assert_int_equal(a->on, BG_ALERT_ON_IMPROVEMENT | BG_ALERT_ON_ALWAYS);
	assert_int_equal(a->line, 3);
	a = bg_config_alert(cfg, 1);
	assert_string_equal(a->url, "http://h:8080/$x$$");
	assert_int_equal(a->on, BG_ALERT_ON_REGRESSION);
	assert_int_equal(a->line, 5);
	/* The literal secret is allowed but warned about; the ${T} token is not. */
	assert_int_equal(warnings, 1);
	bg_config_free(cfg);

	expect_alert_errors(ctx, cases, BG_ARRAY_SIZE(cases));
	bg_ctx_free(ctx);
	test_alert_twins();
	/* Dots within a name are fine; "." and ".." alone are no names, also
	 * where a ${VAR} gives the repo at delivery. */
	assert_true(bg_config__valid_repo("o/.github", 0));
	assert_true(bg_config__valid_repo("o.x/n..js", 0));
	assert_true(bg_config__valid_repo("g/sub/n.js", 1));
	assert_false(bg_config__valid_repo("o/..", 0));
	assert_false(bg_config__valid_repo("g/./n", 1));
	assert_false(bg_config__valid_repo("../g/n", 1));
	/* The rule for "pr", written out or from a ${VAR} at delivery. */
	assert_true(bg_config__valid_pr("1"));
	assert_true(bg_config__valid_pr("4711"));
	assert_true(bg_config__valid_pr("9223372036854775807"));
	assert_true(bg_config__valid_pr("999999999999999999"));
	assert_false(bg_config__valid_pr(""));
	assert_false(bg_config__valid_pr("0"));
	assert_false(bg_config__valid_pr("007"));
	assert_false(bg_config__valid_pr("+7"));
	assert_false(bg_config__valid_pr("7 "));
	assert_false(bg_config__valid_pr("7/../../user"));
	assert_false(bg_config__valid_pr("9223372036854775808"));
	assert_false(bg_config__valid_pr("10000000000000000000"));
	assert_false(bg_config__valid_pr("123456789012345678901234567890"));
}

/* gitlab: repo may be a nested group path or a project id; pr is the MR's IID. */
static void test_gitlab_alert(void **state)
{
	static const struct alert_case cases[] = {
		{ "{\"kind\": \"gitlab\", \"token\": \"${T}\", \"pr\": 1}",
		  "alerts[0]: missing required key \"repo\" (gitlab alerts need repo, token and "
		  "pr)" },
		{ "{\"kind\": \"gitlab\", \"repo\": \"g/n\", \"token\": \"${T}\"}",
		  "alerts[0]: missing required key \"pr\" (gitlab alerts need repo, token and "
		  "pr)" },
		{ "{\"kind\": \"gitlab\", \"repo\": \"g/n\", \"pr\": 1}",
		  "alerts[0]: missing required key \"token\" (gitlab alerts need repo, token and "
		  "pr)" },
		{ "{\"kind\": \"gitlab\", \"repo\": \"g/n\", \"token\": \"${T}\", \"pr\": 0}",
		  "alerts[0].pr: must be a merge-request number (got 0)" },
		{ "{\"kind\": \"gitlab\", \"repo\": \"g/n\", \"token\": \"${T}\", \"pr\": \"!7\"}",
		  "alerts[0].pr: expected a merge-request number or \"${VAR}\", got \"!7\"" },
		{ "{\"kind\": \"gitlab\", \"repo\": \"demo\", \"token\": \"${T}\", \"pr\": 1}",
		  "alerts[0].repo: expected \"group/name\" or a project id, got \"demo\"" },
		{ "{\"kind\": \"gitlab\", \"repo\": \"g//n\", \"token\": \"${T}\", \"pr\": 1}",
		  "alerts[0].repo: expected \"group/name\" or a project id, got \"g//n\"" },
		{ "{\"kind\": \"gitlab\", \"repo\": \"g/n/\", \"token\": \"${T}\", \"pr\": 1}",
		  "alerts[0].repo: expected \"group/name\" or a project id, got \"g/n/\"" },
		{ "{\"kind\": \"gitlab\", \"repo\": \"g/../n\", \"token\": \"${T}\", \"pr\": 1}",
		  "alerts[0].repo: expected \"group/name\" or a project id, got \"g/../n\"" },
		/* Nested groups are GitLab's; GitHub's repo is still owner/name. */
		{ "{\"kind\": \"github\", \"repo\": \"g/s/n\", \"token\": \"${T}\", \"pr\": 1}",
		  "alerts[0].repo: expected \"owner/name\", got \"g/s/n\"" },
		{ "{\"kind\": \"gitlab\", \"url\": \"${U}\", \"repo\": \"g/n\", \"token\": "
		  "\"${T}\","
		  " \"pr\": 1}",
		  "alerts[0]: key \"url\" does not apply to gitlab alerts" },
		{ "{\"kind\": \"gitlub\"}", "alerts[0].kind: unknown alert kind \"gitlub\" "
		                            "(expected webhook, slack, github or "
		                            "gitlab)" },
	};
	bg_ctx *ctx = NULL;
	bg_config *cfg;
	const bg_alert_cfg *a;

	(void)state;
	assert_int_equal(bg_ctx_new(&ctx), 0);
	cfg = parse_ok(ctx,
	               "{\"benchmarks\": [{\"name\": \"a\", \"command\": \"x\"}],\n"
	               " \"alerts\": [\n"
	               "  {\"kind\": \"gitlab\", \"repo\": \"group/sub/name\",\n"
	               "   \"token\": \"${GITLAB_TOKEN}\", \"pr\": \"${CI_MERGE_REQUEST_IID}\",\n"
	               "   \"api_url\": \"https://git.example/api/v4\", \"timeout\": 5},\n"
	               "  {\"kind\": \"gitlab\", \"repo\": \"278964\", \"token\": \"${T}\",\n"
	               "   \"pr\": 12, \"on\": [\"always\"]}\n"
	               " ]}");
	assert_int_equal(bg_config_alert_count(cfg), 2);
	a = bg_config_alert(cfg, 0);
	assert_string_equal(a->kind, "gitlab");
	assert_string_equal(a->repo, "group/sub/name");
	assert_string_equal(a->token, "${GITLAB_TOKEN}");
	assert_string_equal(a->pr, "${CI_MERGE_REQUEST_IID}");
	assert_string_equal(a->api_url, "https://git.example/api/v4");
	assert_int_equal(a->on, BG_ALERT_ON_REGRESSION);
	a = bg_config_alert(cfg, 1);
	assert_string_equal(a->repo, "278964");
	assert_string_equal(a->pr, "12");
	assert_null(a->api_url);
	assert_int_equal(a->on, BG_ALERT_ON_ALWAYS);
	bg_config_free(cfg);

	expect_alert_errors(ctx, cases, BG_ARRAY_SIZE(cases));
	bg_ctx_free(ctx);
}

static void test_expand(void **state)
{
	bg_ctx *ctx = NULL;
	char *out = (char *)"untouched";

	(void)state;
	assert_int_equal(bg_ctx_new(&ctx), 0);
	assert_int_equal(setenv("BG_T_A", "alpha", 1), 0);
	assert_int_equal(setenv("BG_T_EMPTY", "", 1), 0);
	assert_int_equal(unsetenv("BG_T_UNSET"), 0);

	assert_int_equal(bg_config_expand(ctx, "x${BG_T_A}y${BG_T_A}", &out), 0);
	assert_string_equal(out, "xalphayalpha");
	free(out);
	assert_int_equal(bg_config_expand(ctx, "", &out), 0);
	assert_string_equal(out, "");
	free(out);
	/* "$$" is a "$"; so "$${X}" is the literal text "${X}". */
	assert_int_equal(bg_config_expand(ctx, "a$$b $${BG_T_A}", &out), 0);
	assert_string_equal(out, "a$b ${BG_T_A}");
	free(out);
	/* A "$" not followed by "{" stays. */
	assert_int_equal(bg_config_expand(ctx, "$5 $BG_T_A $", &out), 0);
	assert_string_equal(out, "$5 $BG_T_A $");
	free(out);

	assert_int_equal(bg_config_expand(ctx, "x${BG_T_UNSET}", &out), BG_ENOTFOUND);
	assert_null(out);
	assert_string_equal(bg_ctx_error(ctx), "environment variable BG_T_UNSET is not set");
	assert_int_equal(bg_config_expand(ctx, "${BG_T_EMPTY}", &out), BG_ENOTFOUND);
	assert_null(out);
	assert_string_equal(bg_ctx_error(ctx), "environment variable BG_T_EMPTY is not set");

	/* Malformed: an input error; the input (maybe a secret) stays out of the message. */
	assert_int_equal(bg_config_expand(ctx, "hunter2${BG_T_A", &out), BG_EINPUT);
	assert_null(out);
	assert_string_equal(bg_ctx_error(ctx), "unterminated \"${\" (missing \"}\")");
	assert_int_equal(bg_config_expand(ctx, "hunter2${BG T}", &out), BG_EINPUT);
	assert_string_equal(bg_ctx_error(ctx), "invalid variable name \"BG T\" in \"${...}\"");
	assert_null(strstr(bg_ctx_error(ctx), "hunter2"));
	assert_int_equal(bg_config_expand(ctx, "${}", &out), BG_EINPUT);
	assert_int_equal(bg_config_expand(ctx, "${1X}", &out), BG_EINPUT);
	unsetenv("BG_T_A");
	unsetenv("BG_T_EMPTY");
	bg_ctx_free(ctx);
}

/* What the "database" key opens: a file with its ${VAR}s expanded, under
 * the repository when relative; a PostgreSQL string as written, or held by
 * a variable, with a "$" of its value kept through the store's expansion. */
/* A configuration whose "database" is `db` (as JSON string text). */
static bg_config *with_database(bg_ctx *ctx, const char *db)
{
	char *text = bg_printf("{ \"database\": \"%s\", \"benchmarks\": [ { \"name\": \"b\", "
	                       "\"command\": \"true\" } ] }",
	                       db);
	bg_config *cfg;

	assert_non_null(text);
	cfg = parse_ok(ctx, text);
	free(text);
	return cfg;
}

static void test_database_spec(void **state)
{
	static const char *const suite =
	        "\"benchmarks\": [ { \"name\": \"b\", \"command\": \"true\" } ] }";
	bg_ctx *ctx = NULL;
	bg_config *cfg = NULL;
	char *text = NULL, *out = NULL, *back = NULL;

	(void)state;
	assert_int_equal(bg_ctx_new(&ctx), 0);
	assert_int_equal(setenv("BG_T_DB", "nightly", 1), 0);
	assert_int_equal(setenv("BG_T_PG", "postgresql://bench:pa$$w$0rd@db.example/bench", 1), 0);
	assert_int_equal(unsetenv("BG_T_UNSET"), 0);

	/* No "database" key: nothing to open from it. */
	assert_non_null(text = bg_printf("{ %s", suite));
	cfg = parse_ok(ctx, text);
	free(text);
	assert_int_equal(bg_config_database_spec(ctx, cfg, "/repo", &out), 0);
	assert_null(out);
	bg_config_free(cfg);

	cfg = with_database(ctx, "dbs/${BG_T_DB}.db");
	assert_int_equal(bg_config_database_spec(ctx, cfg, "/repo", &out), 0);
	assert_string_equal(out, "/repo/dbs/nightly.db");
	free(out);
	assert_int_equal(bg_config_database_spec(ctx, cfg, NULL, &out), 0);
	assert_string_equal(out, "dbs/nightly.db");
	free(out);
	bg_config_free(cfg);

	cfg = with_database(ctx, "/var/${BG_T_DB}.db");
	assert_int_equal(bg_config_database_spec(ctx, cfg, "/repo", &out), 0);
	assert_string_equal(out, "/var/nightly.db");
	free(out);
	bg_config_free(cfg);

	/* A variable holding the URI: what the store expands gives it back. */
	cfg = with_database(ctx, "${BG_T_PG}");
	assert_int_equal(bg_config_database_spec(ctx, cfg, "/repo", &out), 0);
	assert_int_equal(bg_config_expand(ctx, out, &back), 0);
	assert_string_equal(back, "postgresql://bench:pa$$w$0rd@db.example/bench");
	free(back);
	free(out);
	bg_config_free(cfg);

	/* A PostgreSQL string as written: the store expands it. */
	cfg = with_database(ctx, "postgresql://h/${BG_T_DB}");
	assert_int_equal(bg_config_database_spec(ctx, cfg, "/repo", &out), 0);
	assert_string_equal(out, "postgresql://h/${BG_T_DB}");
	free(out);
	bg_config_free(cfg);

	cfg = with_database(ctx, "${BG_T_UNSET}");
	assert_int_equal(bg_config_database_spec(ctx, cfg, "/repo", &out), BG_ENOTFOUND);
	assert_null(out);
	assert_string_equal(bg_ctx_error(ctx),
	                    "t.json: \"database\": environment variable BG_T_UNSET is not set");
	bg_config_free(cfg);

	/* Malformed ${...}: refused when the configuration loads. */
	assert_non_null(text = bg_printf("{ \"database\": \"x${BG_T_DB\", %s", suite));
	assert_non_null(strstr(parse_error(ctx, text), "unterminated"));
	free(text);
	unsetenv("BG_T_DB");
	unsetenv("BG_T_PG");
	bg_ctx_free(ctx);
}

static void test_starter(void **state)
{
	const char *s = bg_config_starter(), *line;
	bg_buf on = BG_BUF_INIT;
	bg_ctx *ctx = NULL;
	bg_config *cfg;
	int in_alerts = 0;

	(void)state;
	assert_int_equal(bg_ctx_new(&ctx), 0);
	cfg = parse_ok(ctx, s);
	assert_string_equal(bg_config_project(cfg), "myproject");
	assert_non_null(bg_config_build(cfg));
	assert_int_equal(bg_config_benchmark_count(cfg), 2);
	assert_int_equal(bg_config_benchmark(cfg, 0)->format, BG_FORMAT_TIME);
	assert_int_equal(bg_config_benchmark(cfg, 1)->format, BG_FORMAT_LINES);
	assert_int_equal(bg_config_benchmark(cfg, 1)->nmetrics, 1);
	assert_string_equal(bg_config_benchmark(cfg, 1)->metrics[0].metric, "cache_hits");
	assert_int_equal(bg_config_benchmark(cfg, 1)->metrics[0].direction, BG_DIR_HIGHER);
	assert_int_equal(bg_config_alert_count(cfg), 0);
	bg_config_free(cfg);

	/* Lines fit 100 columns, and the commented-out alerts are valid once uncommented
	 * as the starter says (strip "// ", add a comma after the benchmarks). */
	for (line = s; *line;) {
		size_t n = strcspn(line, "\n");

		assert_true(n <= 100);
		if (!strncmp(line, "  // \"alerts\"", 13))
			in_alerts = 1;
		if (in_alerts && !strncmp(line, "  // ", 5)) {
			assert_int_equal(bg_buf_puts(&on, "  "), 0);
			assert_int_equal(bg_buf_put(&on, line + 5, n - 5), 0);
			if (!strncmp(line, "  // ]", 6))
				in_alerts = 0;
		} else if (n == 3 && !strncmp(line, "  ]", 3)) {
			assert_int_equal(bg_buf_puts(&on, "  ],"), 0);
		} else {
			assert_int_equal(bg_buf_put(&on, line, n), 0);
		}
		assert_int_equal(bg_buf_puts(&on, "\n"), 0);
		line += n + (line[n] == '\n');
	}
	cfg = parse_ok(ctx, on.ptr);
	assert_int_equal(bg_config_alert_count(cfg), 2);
	assert_string_equal(bg_config_alert(cfg, 0)->kind, "slack");
	assert_string_equal(bg_config_alert(cfg, 1)->kind, "github");
	assert_int_equal(bg_config_alert(cfg, 1)->on,
	                 BG_ALERT_ON_REGRESSION | BG_ALERT_ON_IMPROVEMENT);
	bg_config_free(cfg);
	bg_buf_clear(&on);
	bg_ctx_free(ctx);
}

/* The definition of benchmark "b" in a config whose benchmarks are
 * `benchmarks`, with `build` (JSON text, NULL: none) for its build. */
static void definition_of(bg_ctx *ctx, const char *build, const char *benchmarks,
                          const bg_suite_opts *o, char out[65])
{
	char text[1024];
	bg_config *cfg;
	const bg_benchmark *b;

	snprintf(text, sizeof(text), "{ %s%s%s\"benchmarks\": [ %s ] }", build ? "\"build\": " : "",
	         build ? build : "", build ? ", " : "", benchmarks);
	cfg = parse_ok(ctx, text);
	b = bg_config_benchmark(cfg, bg_config_benchmark_count(cfg) - 1);
	assert_string_equal(b->name, "b");
	assert_int_equal(bg_config__definition(cfg, b, o, out), 0);
	assert_int_equal(strlen(out), 64);
	bg_config_free(cfg);
}

/*
 * What measured a benchmark: every field that changes its samples changes
 * the definition (a stored pair is then measured again), its name, line and
 * metrics' directions do not, and an option given as in the file is the same.
 */
static void test_definition(void **state)
{
	static const char *const base =
	        "{ \"name\": \"b\", \"command\": \"./x --n 1\", \"format\": \"lines\" }";
	static const char *const changed[] = {
		"{ \"name\": \"b\", \"command\": \"./x --n 2\", \"format\": \"lines\" }",
		"{ \"name\": \"b\", \"command\": \"./x --n 1\", \"format\": \"gbench\" }",
		"{ \"name\": \"b\", \"command\": \"./x --n 1\", \"format\": \"lines\", "
		"\"requires\": [\"sh\"] }",
		"{ \"name\": \"b\", \"command\": \"./x --n 1\", \"format\": \"lines\", "
		"\"samples\": 16 }",
		"{ \"name\": \"b\", \"command\": \"./x --n 1\", \"format\": \"lines\", "
		"\"warmup\": 3 }",
		"{ \"name\": \"b\", \"command\": \"./x --n 1\", \"format\": \"lines\", "
		"\"timeout\": 61 }",
		"{ \"name\": \"b\", \"command\": \"./x --n 1\", \"format\": \"lines\", "
		"\"measure\": [\"counters\"] }",
		"{ \"name\": \"b\", \"command\": \"./x --n 1\", \"format\": \"lines\", "
		"\"measure\": [\"counters\"], \"counters\": { \"kernel\": true } }",
		"{ \"name\": \"b\", \"command\": \"./x --n 1\", \"format\": \"lines\", "
		"\"measure\": [\"counters\"], \"counters\": { \"events\": [\"cycles\"] } }",
	};
	bg_suite_opts o;
	bg_ctx *ctx = NULL;
	char want[65], got[65], other[65];
	size_t i;

	(void)state;
	memset(&o, 0, sizeof(o));
	o.samples = o.warmup = -1;
	assert_int_equal(bg_ctx_new(&ctx), 0);
	definition_of(ctx, NULL, base, &o, want);
	definition_of(ctx, NULL, base, &o, got);
	assert_string_equal(got, want);
	for (i = 0; i < BG_ARRAY_SIZE(changed); i++) {
		definition_of(ctx, NULL, changed[i], &o, got);
		if (!strcmp(got, want))
			fail_msg("same definition as the base: %s", changed[i]);
	}
	/* Not what it measures: where it is, the benchmarks beside it, and the
	 * direction of its metrics. */
	definition_of(ctx, NULL,
	              "{ \"name\": \"a\", \"command\": \"y\" },\n"
	              "{ \"name\": \"b\", \"command\": \"./x --n 1\", \"format\": \"lines\","
	              " \"metrics\": { \"m\": { \"direction\": \"higher\" } } }",
	              &o, got);
	assert_string_equal(got, want);
	/* The suite's build makes what the command runs. */
	definition_of(ctx, "\"make\"", base, &o, got);
	assert_string_not_equal(got, want);
	definition_of(ctx, "\"make CFLAGS=-O3\"", base, &o, other);
	assert_string_not_equal(other, got);
	assert_string_not_equal(other, want);
	/* --samples 15 is the default's 15; --samples 16 is not. */
	o.samples = 15;
	definition_of(ctx, NULL, base, &o, got);
	assert_string_equal(got, want);
	o.samples = 16;
	definition_of(ctx, NULL, base, &o, got);
	definition_of(ctx, NULL, changed[3], &(bg_suite_opts){ .samples = -1, .warmup = -1 },
	              other);
	assert_string_equal(got, other);
	bg_ctx_free(ctx);
}

static void test_load_errors_and_free(void **state)
{
	bg_ctx *ctx = NULL;
	bg_config *cfg = NULL;

	(void)state;
	bg_config_free(NULL);
	assert_int_equal(bg_ctx_new(&ctx), 0);
	assert_int_equal(bg_config_load(ctx, "/nonexistent/benchguard.json", &cfg), BG_EINPUT);
	assert_null(cfg);
	assert_string_equal(bg_ctx_error(ctx),
	                    "/nonexistent/benchguard.json: cannot read: No such file or directory");
	assert_int_equal(bg_config_load(ctx, "/", &cfg), BG_EINPUT);
	assert_string_equal(bg_ctx_error(ctx), "/: cannot read: Is a directory");
	/* Without a context the code still says what kind of failure it was. */
	assert_int_equal(bg_config_load(NULL, "/nonexistent/x.json", &cfg), BG_EINPUT);
	assert_int_equal(bg_config_parse(NULL, "t.json", "{", 1, &cfg), BG_EINPUT);
	assert_null(cfg);
	bg_ctx_free(ctx);
}

/*
 * A program that calls setlocale(LC_ALL, "") under a locale with a decimal
 * comma: json-c's strtod read "0.05" as 0 (alpha 0, nothing ever
 * significant), and PostgreSQL's answers came back as 0.  The library says
 * so instead.  A German locale is compiled into a temporary folder with
 * localedef (Debian's `locales` sources); skipped where there is none.  In
 * a child that leaves with _exit: glibc keeps what newlocale allocated for
 * LOCPATH, which LeakSanitizer would count against the test.
 */
static int decimal_comma_child(const char *dir)
{
	static const char text[] = "{ \"thresholds\": { \"alpha\": 0.05 }, \"benchmarks\": "
	                           "[ { \"name\": \"b\", \"command\": \"true\" } ] }";
	int bad = 0;
	bg_ctx *ctx = NULL;
	bg_config *cfg = NULL;
	bg_store *store = (bg_store *)&bad; /* not NULL: the refusal clears it */
	locale_t de;

	if (setenv("LOCPATH", dir, 1) != 0 ||
	    !(de = newlocale(LC_NUMERIC_MASK, "de_DE.UTF-8", (locale_t)0)))
		return 77;
	if (bg_ctx_new(&ctx) != 0)
		return 1;
	uselocale(de);
	bad |= bg_config_parse(ctx, "c.json", text, sizeof(text) - 1, &cfg) != BG_EINPUT || cfg;
	bad |= !strstr(bg_ctx_error(ctx), "LC_NUMERIC") << 1;
	bad |= (bg_store_open(ctx, ":memory:", &store) != BG_EINPUT || store) << 2;
	uselocale(LC_GLOBAL_LOCALE);
	/* Back in C's: the same text reads, alpha and all. */
	bad |= (bg_config_parse(ctx, "c.json", text, sizeof(text) - 1, &cfg) != 0 || !cfg ||
	        fabs(bg_config_thresholds(cfg)->alpha - 0.05) > 1e-12)
	       << 3;
	if (bad)
		fprintf(stderr, "decimal comma: checks failed: %#x (%s)\n", (unsigned)bad,
		        bg_ctx_error(ctx));
	return bad ? 1 : 0;
}

static void test_decimal_comma_locale(void **state)
{
	char dir[] = "/tmp/bg-locale-XXXXXX", cmd[512];
	pid_t pid;
	int status = 0, made;

	(void)state;
	assert_non_null(mkdtemp(dir));
	snprintf(cmd, sizeof(cmd), "localedef -i de_DE -f UTF-8 %s/de_DE.UTF-8 >/dev/null 2>&1",
	         dir);
	made = system(cmd) == 0;
	if (made) {
		fflush(NULL);
		assert_true((pid = fork()) >= 0);
		if (pid == 0)
			_exit(decimal_comma_child(dir));
		assert_int_equal(waitpid(pid, &status, 0), pid);
	}
	snprintf(cmd, sizeof(cmd), "rm -rf %s", dir);
	(void)!system(cmd);
	if (!made || (WIFEXITED(status) && WEXITSTATUS(status) == 77)) {
		skip();
		return;
	}
	assert_true(WIFEXITED(status));
	assert_int_equal(WEXITSTATUS(status), 0);
}

/* A ${VAR} in a PostgreSQL URI's user information goes in percent-encoded,
 * and nowhere else: a password of '/' and '@' stays the password. */
static void test_expand_uri(void **state)
{
	bg_ctx *ctx = NULL;
	char *out = NULL;

	(void)state;
	assert_int_equal(bg_ctx_new(&ctx), 0);
	assert_int_equal(setenv("BG_T_PW", "a/b@c?d%e f", 1), 0);
	assert_int_equal(setenv("BG_T_HOST", "db.example.com:5433", 1), 0);
	assert_int_equal(
	        bg_config__expand_uri(ctx, "postgresql://u:${BG_T_PW}@${BG_T_HOST}/x$$y", &out), 0);
	assert_string_equal(out, "postgresql://u:a%2Fb%40c%3Fd%25e%20f@db.example.com:5433/x$y");
	free(out);
	/* No user information: as bg_config_expand. */
	assert_int_equal(bg_config__expand_uri(ctx, "postgresql://${BG_T_HOST}/db", &out), 0);
	assert_string_equal(out, "postgresql://db.example.com:5433/db");
	free(out);
	/* key=value words are not a URI. */
	assert_int_equal(bg_config__expand_uri(ctx, "password=${BG_T_PW} host=h", &out), 0);
	assert_string_equal(out, "password=a/b@c?d%e f host=h");
	free(out);
	assert_int_equal(bg_config__expand_uri(ctx, "postgresql://u:${BG_T_UNSET_X}@h/db", &out),
	                 BG_ENOTFOUND);
	assert_null(out);
	unsetenv("BG_T_PW");
	unsetenv("BG_T_HOST");
	bg_ctx_free(ctx);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_spec_example),
		cmocka_unit_test(test_bad_fixtures),
		cmocka_unit_test(test_lines_through_tricky_text),
		cmocka_unit_test(test_defaults_applied),
		cmocka_unit_test(test_overrides_and_metrics),
		cmocka_unit_test(test_metric_thresholds),
		cmocka_unit_test(test_value_errors),
		cmocka_unit_test(test_syntax_errors),
		cmocka_unit_test(test_nesting_bounded),
		cmocka_unit_test(test_hostile_names),
		cmocka_unit_test(test_alerts),
		cmocka_unit_test(test_gitlab_alert),
		cmocka_unit_test(test_expand),
		cmocka_unit_test(test_database_spec),
		cmocka_unit_test(test_starter),
		cmocka_unit_test(test_load_errors_and_free),
		cmocka_unit_test(test_definition),
		cmocka_unit_test(test_decimal_comma_locale),
		cmocka_unit_test(test_expand_uri),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
