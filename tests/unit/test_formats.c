/*
 * test_formats.c -- the output parsers behind `run` and `import`: `lines`
 * and Google Benchmark JSON, their error messages, and the promise that a
 * failed parse appends nothing.
 *
 * The gbench fixtures gbench-5reps.json, gbench-ms.json, gbench-error.json
 * and gbench-aggregates-only.json are real output of
 * tests/fixtures/formats/gbench-gen.cc (see the README there); the tests
 * read their expected values back from the files with json-c.
 */
#include <math.h>

#include <json-c/json.h>

#include "unit.h"

/* Relative tolerance: the parser multiplies by the same power of ten the
 * test does, so anything beyond rounding noise is a real difference. */
static int near(double a, double b)
{
	return fabs(a - b) <= 1e-12 * fmax(fabs(a), fabs(b)) + 1e-300;
}

static char *fixture(const char *name, size_t *len)
{
	char path[512];
	char *data = NULL;

	snprintf(path, sizeof(path), "%s/formats/%s", bg_test_fixtures(), name);
	assert_int_equal(bg_read_file(NULL, path, &data, len), 0);
	return data;
}

static int parse_fixture(bg_ctx *ctx, bg_format format, const char *name, const char *benchmark,
                         bg_results *into)
{
	size_t len;
	char *data = fixture(name, &len);
	int rc = bg_format_parse(ctx, format, name, benchmark, data, len, into);

	free(data);
	return rc;
}

static int parse_str(bg_ctx *ctx, bg_format format, const char *benchmark, const char *text,
                     bg_results *into)
{
	return bg_format_parse(ctx, format, "out.txt", benchmark, text, strlen(text), into);
}

static const bg_series *find(const bg_results *r, const char *benchmark, const char *metric)
{
	size_t i;

	for (i = 0; i < bg_results_series_count(r); i++) {
		const bg_series *s = bg_results_series(r, i);
		if (!strcmp(s->benchmark, benchmark) && !strcmp(s->metric, metric))
			return s;
	}
	return NULL;
}

/* A results set holding one series, "keep:m" = {1.0}, to show a failed
 * parse leaves what was there alone. */
static bg_results *prefilled(void)
{
	bg_results *r = NULL;

	assert_int_equal(bg_results_new(&r), 0);
	assert_int_equal(bg_results_add(NULL, r, "keep", "m", "s", 1.0), 0);
	return r;
}

static void assert_untouched(const bg_results *r)
{
	assert_int_equal(bg_results_series_count(r), 1);
	assert_string_equal(bg_results_series(r, 0)->benchmark, "keep");
	assert_int_equal(bg_results_series(r, 0)->n, 1);
}

static double unit_scale(const char *unit)
{
	if (!strcmp(unit, "ns"))
		return 1e-9;
	if (!strcmp(unit, "us"))
		return 1e-6;
	if (!strcmp(unit, "ms"))
		return 1e-3;
	assert_string_equal(unit, "s");
	return 1.0;
}

static json_object *member(json_object *o, const char *key)
{
	json_object *v = NULL;

	return json_object_object_get_ex(o, key, &v) ? v : NULL;
}

/*
 * Checks every "iteration" entry of a real gbench fixture against the
 * parsed series: the k-th repetition of a run is the k-th sample, in
 * seconds, for real_time, cpu_time and the rate counters.  Returns how
 * many entries were samples.
 */
static size_t check_against_fixture(const bg_results *r, const char *name, const char *prefix,
                                    const char *series_name_of_fill)
{
	static const char *const rates[][2] = { { "bytes_per_second", "B/s" },
		                                { "items_per_second", "items/s" } };
	size_t len, i, j, samples = 0;
	char *data = fixture(name, &len);
	json_object *root = json_tokener_parse(data), *list;

	assert_non_null(root);
	list = member(root, "benchmarks");
	assert_non_null(list);
	for (i = 0; i < json_object_array_length(list); i++) {
		json_object *e = json_object_array_get_idx(list, i);
		const char *run_name = json_object_get_string(member(e, "run_name"));
		double scale = unit_scale(json_object_get_string(member(e, "time_unit")));
		size_t rep = (size_t)json_object_get_int(member(e, "repetition_index"));
		char bench[256];
		const bg_series *s;

		if (strcmp(json_object_get_string(member(e, "run_type")), "iteration") != 0)
			continue;
		samples++;
		if (!strncmp(run_name, "BM_Fill/repeats:", 16))
			run_name = series_name_of_fill;
		snprintf(bench, sizeof(bench), "%s%s%s", prefix ? prefix : "", prefix ? "/" : "",
		         run_name);
		s = find(r, bench, "real_time");
		assert_non_null(s);
		assert_string_equal(s->unit, "s");
		assert_true(rep < s->n);
		assert_true(near(s->values[rep],
		                 json_object_get_double(member(e, "real_time")) * scale));
		s = find(r, bench, "cpu_time");
		assert_non_null(s);
		assert_true(near(s->values[rep],
		                 json_object_get_double(member(e, "cpu_time")) * scale));
		for (j = 0; j < 2; j++) {
			json_object *v = member(e, rates[j][0]);
			if (!v)
				continue;
			s = find(r, bench, rates[j][0]);
			assert_non_null(s);
			assert_string_equal(s->unit, rates[j][1]);
			assert_int_equal(s->direction, BG_DIR_HIGHER);
			assert_true(near(s->values[rep], json_object_get_double(v)));
		}
	}
	json_object_put(root);
	free(data);
	return samples;
}

/* ------------------------------------------------------------- gbench */

static void test_gbench_real_repetitions(void **state)
{
	bg_ctx *ctx = NULL;
	bg_results *r = NULL;
	const bg_series *s;
	size_t i;

	(void)state;
	assert_int_equal(bg_ctx_new(&ctx), 0);
	assert_int_equal(bg_results_new(&r), 0);
	assert_int_equal(parse_fixture(ctx, BG_FORMAT_GBENCH, "gbench-5reps.json", "gb", r), 0);

	/*
	 * 4 runs x 5 repetitions; BM_Sort has items_per_second and BM_Memcpy
	 * bytes_per_second; BM_Memcpy's "custom" counter is not kept.  Every
	 * series has exactly the 5 repetitions: the mean/median/stddev/cv rows
	 * are not samples.
	 */
	assert_int_equal(bg_results_series_count(r), 3 + 3 + 3 + 2);
	for (i = 0; i < bg_results_series_count(r); i++) {
		s = bg_results_series(r, i);
		assert_int_equal(s->n, 5);
		assert_true(strcmp(s->metric, "custom") != 0);
		assert_true(!strncmp(s->benchmark, "gb/BM_", 6));
	}
	/* ->Repetitions(5) names the run "BM_Fill/repeats:5"; the series is
	 * "BM_Fill", as --benchmark_repetitions=5 would have named it. */
	assert_non_null(find(r, "gb/BM_Fill", "real_time"));
	assert_int_equal(check_against_fixture(r, "gbench-5reps.json", "gb", "BM_Fill"), 20);

	/* Two values read off the fixture by hand: line 25, the first
	 * BM_Sort/1024 real_time 5.7205753415786876e+03 ns, and line 451, the
	 * first BM_Fill real_time 7.1778811268188702e-03 ms. */
	s = find(r, "gb/BM_Sort/1024", "real_time");
	assert_true(near(s->values[0], 5.7205753415786876e-06));
	assert_int_equal(s->direction, BG_DIR_LOWER);
	s = find(r, "gb/BM_Fill", "real_time");
	assert_true(near(s->values[0], 7.1778811268188702e-06));
	/* And not the BM_Sort/1024_mean row's 5.9644095059241981e+03 ns. */
	s = find(r, "gb/BM_Sort/1024", "real_time");
	for (i = 0; i < s->n; i++)
		assert_false(near(s->values[i], 5.9644095059241981e-06));

	bg_results_free(r);
	bg_ctx_free(ctx);
}

static void test_gbench_time_units(void **state)
{
	bg_results *r = NULL;
	const bg_series *s;

	(void)state;
	/* --benchmark_time_unit=ms, no prefix: names are gbench's own. */
	assert_int_equal(bg_results_new(&r), 0);
	assert_int_equal(parse_fixture(NULL, BG_FORMAT_GBENCH, "gbench-ms.json", NULL, r), 0);
	assert_int_equal(bg_results_series_count(r), 3 + 3);
	assert_int_equal(find(r, "BM_Sort/1024", "real_time")->n, 3);
	assert_int_equal(check_against_fixture(r, "gbench-ms.json", NULL, NULL), 6);
	bg_results_free(r);

	/* Hand-written, in the format before run_type existed (< 1.5). */
	assert_int_equal(bg_results_new(&r), 0);
	assert_int_equal(parse_fixture(NULL, BG_FORMAT_GBENCH, "gbench-units.json", "u", r), 0);
	/* BM_Ns_mean/_stddev, the _BigO/_RMS fits and the skipped run are not
	 * samples: 5 benchmarks x (real_time, cpu_time). */
	assert_int_equal(bg_results_series_count(r), 10);
	s = find(r, "u/BM_Ns", "real_time");
	assert_int_equal(s->n, 2);
	assert_true(near(s->values[0], 1.5e-6) && near(s->values[1], 1.6e-6));
	assert_true(near(find(r, "u/BM_Us", "real_time")->values[0], 1.5e-6));
	assert_true(near(find(r, "u/BM_Ms", "real_time")->values[0], 0.0015));
	assert_true(near(find(r, "u/BM_Ms", "cpu_time")->values[0], 0.00125));
	assert_true(near(find(r, "u/BM_S", "real_time")->values[0], 1.5));
	/* No time_unit: Google Benchmark's default, ns. */
	assert_true(near(find(r, "u/BM_Default", "cpu_time")->values[0], 2.5e-6));
	assert_null(find(r, "u/BM_Skipped", "real_time"));
	assert_null(find(r, "u/BM_Complexity_BigO", "real_time"));
	bg_results_free(r);
}

static void test_gbench_bad_files(void **state)
{
	static const struct {
		const char *file, *message;
	} cases[] = {
		{ "gbench-error.json",
		  "gbench-error.json: benchmark \"BM_Err\": failed: disk on fire" },
		/* `head -c 5000` of gbench-5reps.json: 176 newlines, cut inside line 177. */
		{ "gbench-truncated.json", "gbench-truncated.json:177: JSON ends too early" },
		/* The missing ',' is noticed at the next key, line 9. */
		{ "gbench-syntax.json", "gbench-syntax.json:9: " },
		{ "gbench-no-benchmarks.json",
		  "gbench-no-benchmarks.json: no \"benchmarks\" list" },
		{ "gbench-bad-type.json",
		  "gbench-bad-type.json: benchmark \"BM_B\": \"real_time\" is not a number" },
		{ "gbench-nan.json",
		  "gbench-nan.json: benchmark \"BM_A\": \"cpu_time\" is not a finite number" },
		{ "gbench-aggregates-only.json",
		  "gbench-aggregates-only.json: only aggregate rows" },
	};
	bg_ctx *ctx = NULL;
	bg_results *r = prefilled();
	size_t i;

	(void)state;
	assert_int_equal(bg_ctx_new(&ctx), 0);
	for (i = 0; i < BG_ARRAY_SIZE(cases); i++) {
		bg_ctx_clear_error(ctx);
		assert_int_equal(parse_fixture(ctx, BG_FORMAT_GBENCH, cases[i].file, "gb", r),
		                 BG_EINPUT);
		if (strncmp(bg_ctx_error(ctx), cases[i].message, strlen(cases[i].message)) != 0)
			fail_msg("%s: got \"%s\"", cases[i].file, bg_ctx_error(ctx));
		assert_untouched(r);
	}
	bg_results_free(r);
	bg_ctx_free(ctx);
}

static void test_gbench_bad_documents(void **state)
{
#define ENTRY(fields) "{\"benchmarks\": [{\"name\": \"BM_A\", \"real_time\": 1, " fields "}]}"
	static const struct {
		const char *json, *message;
	} cases[] = {
		{ "", "out.txt: no JSON in output" },
		{ " \n\t\n", "out.txt: no JSON in output" },
		{ "[1, 2]", "out.txt: no \"benchmarks\" list: not Google Benchmark JSON "
		            "(--benchmark_format=json)" },
		{ "{\"benchmarks\": 5}", "out.txt: \"benchmarks\" is not an array" },
		{ "{\"benchmarks\": []}", "out.txt: no benchmark results in output" },
		{ "{\"benchmarks\": [7]}", "out.txt: benchmarks[0] is not an object" },
		{ "{\"benchmarks\": [{\"real_time\": 1}]}",
		  "out.txt: benchmarks[0] has no \"name\"" },
		{ "{\"benchmarks\": [{\"name\": 3}]}",
		  "out.txt: \"name\" of a benchmark is not a string" },
		{ ENTRY("\"cpu_time\": 1, \"time_unit\": \"fortnight\""),
		  "out.txt: benchmark \"BM_A\": unknown time_unit \"fortnight\"" },
		{ ENTRY("\"cpu_time\": 1, \"run_type\": \"warmup\""),
		  "out.txt: benchmark \"BM_A\": unknown run_type \"warmup\"" },
		{ ENTRY("\"time_unit\": \"ns\""),
		  "out.txt: benchmark \"BM_A\": missing \"cpu_time\"" },
		{ ENTRY("\"cpu_time\": Infinity"),
		  "out.txt: benchmark \"BM_A\": \"cpu_time\" is not a finite number" },
		{ ENTRY("\"cpu_time\": 1, \"items_per_second\": \"many\""),
		  "out.txt: benchmark \"BM_A\": \"items_per_second\" is not a number" },
		{ ENTRY("\"cpu_time\": 1, \"error_occurred\": true"),
		  "out.txt: benchmark \"BM_A\": failed: error_occurred" },
		{ ENTRY("\"cpu_time\": 1") "\n\nBENCHGUARD x 1 s\n",
		  "out.txt:3: unexpected text after the JSON document" },
		{ "{\"benchmarks\": [\n{\"name\": \"BM_S\", \"skipped\": true}]}",
		  "out.txt: no benchmark results in output (every benchmark skipped itself)" },
	};
#undef ENTRY
	bg_ctx *ctx = NULL;
	bg_results *r = prefilled();
	size_t i;

	(void)state;
	assert_int_equal(bg_ctx_new(&ctx), 0);
	for (i = 0; i < BG_ARRAY_SIZE(cases); i++) {
		bg_ctx_clear_error(ctx);
		assert_int_equal(parse_str(ctx, BG_FORMAT_GBENCH, "gb", cases[i].json, r),
		                 BG_EINPUT);
		if (strcmp(bg_ctx_error(ctx), cases[i].message) != 0)
			fail_msg("case %zu: got \"%s\"", i, bg_ctx_error(ctx));
		assert_untouched(r);
	}
	bg_results_free(r);
	bg_ctx_free(ctx);
}

static void test_gbench_appends_and_unit_conflict(void **state)
{
	const char *doc = "{\"benchmarks\": [{\"name\": \"BM_A\", \"real_time\": 2000, "
	                  "\"cpu_time\": 1000, \"time_unit\": \"ns\"}]}";
	bg_ctx *ctx = NULL;
	bg_results *r = NULL;
	const bg_series *s;

	(void)state;
	assert_int_equal(bg_ctx_new(&ctx), 0);
	assert_int_equal(bg_results_new(&r), 0);
	/* A second output of the same benchmark adds samples after the first. */
	assert_int_equal(parse_str(ctx, BG_FORMAT_GBENCH, "gb", doc, r), 0);
	assert_int_equal(parse_str(ctx, BG_FORMAT_GBENCH, "gb", doc, r), 0);
	s = find(r, "gb/BM_A", "real_time");
	assert_int_equal(s->n, 2);
	assert_true(near(s->values[1], 2e-6));
	bg_results_free(r);

	/* `into` has gb/BM_A:cpu_time in bytes: the real_time samples that
	 * parsed before it must not be appended either. */
	assert_int_equal(bg_results_new(&r), 0);
	assert_int_equal(bg_results_add(NULL, r, "gb/BM_A", "cpu_time", "B", 5.0), 0);
	assert_int_equal(parse_str(ctx, BG_FORMAT_GBENCH, "gb", doc, r), BG_EINPUT);
	assert_string_equal(bg_ctx_error(ctx),
	                    "out.txt: gb/BM_A:cpu_time: unit \"s\" differs from earlier \"B\"");
	assert_int_equal(bg_results_series_count(r), 1);
	assert_int_equal(bg_results_series(r, 0)->n, 1);
	bg_results_free(r);
	bg_ctx_free(ctx);
}

static void test_gbench_names(void **state)
{
	/* ->Repetitions(3)->Threads(2) names a run "BM_R/repeats:3/threads:2"
	 * (seen in real 1.7.1 output); the repetition count is dropped, the
	 * thread count kept, and "repeats:" without a count is not touched. */
	const char *doc = "{\"benchmarks\": ["
	                  "{\"name\": \"BM_R/repeats:3/threads:2\", \"run_name\": "
	                  "\"BM_R/repeats:3/threads:2\", \"run_type\": \"iteration\", "
	                  "\"real_time\": 1, \"cpu_time\": 2},"
	                  "{\"name\": \"BM_X/repeats:many\", \"real_time\": 1, \"cpu_time\": 2},"
	                  "{\"name\": \"BM_Y/repeats:7\", \"real_time\": 1, \"cpu_time\": 2}]}";
	bg_results *r = NULL;

	(void)state;
	assert_int_equal(bg_results_new(&r), 0);
	assert_int_equal(parse_str(NULL, BG_FORMAT_GBENCH, "gb", doc, r), 0);
	assert_int_equal(bg_results_series_count(r), 6);
	assert_non_null(find(r, "gb/BM_R/threads:2", "real_time"));
	assert_non_null(find(r, "gb/BM_X/repeats:many", "cpu_time"));
	assert_non_null(find(r, "gb/BM_Y", "cpu_time"));
	bg_results_free(r);
}

/* -------------------------------------------------------------- lines */

static void test_lines_good(void **state)
{
	bg_results *r = NULL;
	const bg_series *s;

	(void)state;
	assert_int_equal(bg_results_new(&r), 0);
	assert_int_equal(parse_fixture(NULL, BG_FORMAT_LINES, "lines-good.txt", "app", r), 0);
	/* Noise lines, "BENCHGUARDS" and a tag in mid-line are not samples. */
	assert_int_equal(bg_results_series_count(r), 3);

	/* Repeated lines are repeated samples, in order, converted to seconds
	 * whatever time unit each line used. */
	s = find(r, "app", "parse");
	assert_non_null(s);
	assert_string_equal(s->unit, "s");
	assert_int_equal(s->n, 3);
	assert_true(near(s->values[0], 0.0015));
	assert_true(near(s->values[1], 0.00125));
	assert_true(near(s->values[2], 0.002));

	/* Tab-separated; a rate is better when higher. */
	s = find(r, "app", "bandwidth");
	assert_string_equal(s->unit, "GB/s");
	assert_int_equal(s->direction, BG_DIR_HIGHER);
	assert_int_equal(s->n, 2);
	assert_true(near(s->values[0], 900.25) && near(s->values[1], 910.0));

	/* Extra blanks around and after fields. */
	s = find(r, "app", "rss");
	assert_string_equal(s->unit, "KiB");
	assert_int_equal(s->n, 1);
	assert_true(near(s->values[0], 4096.0));
	bg_results_free(r);
}

static void test_lines_bad_files(void **state)
{
	static const struct {
		const char *file, *message;
	} cases[] = {
		{ "lines-bad-value.txt", "lines-bad-value.txt:3: value \"fast\" is not a number" },
		{ "lines-bad-fields.txt",
		  "lines-bad-fields.txt:4: expected \"BENCHGUARD <series> <value> <unit>\", "
		  "found 2 fields after BENCHGUARD" },
		{ "lines-nan.txt", "lines-nan.txt:2: value \"nan\" is not a finite number" },
		{ "lines-none.txt", "lines-none.txt: no BENCHGUARD lines in output" },
	};
	bg_ctx *ctx = NULL;
	bg_results *r = prefilled();
	size_t i;

	(void)state;
	assert_int_equal(bg_ctx_new(&ctx), 0);
	for (i = 0; i < BG_ARRAY_SIZE(cases); i++) {
		bg_ctx_clear_error(ctx);
		assert_int_equal(parse_fixture(ctx, BG_FORMAT_LINES, cases[i].file, "app", r),
		                 BG_EINPUT);
		assert_string_equal(bg_ctx_error(ctx), cases[i].message);
		/* The good lines before the bad one were not appended. */
		assert_untouched(r);
	}
	bg_results_free(r);
	bg_ctx_free(ctx);
}

static void test_lines_bad_lines(void **state)
{
	static const struct {
		const char *text, *message;
	} cases[] = {
		{ "BENCHGUARD a:b 1 s\n", "out.txt:1: series name \"a:b\" contains ':'" },
		{ "BENCHGUARD a\x01 1 s\n",
		  "out.txt:1: series name \"a\x01\" contains a control character" },
		{ "x\nBENCHGUARD a 1 s extra\n", "out.txt:2: expected \"BENCHGUARD <series> "
		                                 "<value> <unit>\", found 4 fields after "
		                                 "BENCHGUARD" },
		{ "x\ny\nBENCHGUARD\n", "out.txt:3: expected \"BENCHGUARD <series> <value> "
		                        "<unit>\", found 0 fields after "
		                        "BENCHGUARD" },
		{ "BENCHGUARD a 1 s\nBENCHGUARD a\n",
		  "out.txt:2: expected \"BENCHGUARD <series> <value> <unit>\", found 1 field after "
		  "BENCHGUARD" },
		{ "BENCHGUARD a inf s\n", "out.txt:1: value \"inf\" is not a finite number" },
		{ "BENCHGUARD a -Infinity s\n",
		  "out.txt:1: value \"-Infinity\" is not a finite number" },
		{ "BENCHGUARD a 1e999 s\n", "out.txt:1: value \"1e999\" is not a finite number" },
		{ "BENCHGUARD a 1.5x s\n", "out.txt:1: value \"1.5x\" is not a number" },
		{ "BENCHGUARD a 1,5 s\n", "out.txt:1: value \"1,5\" is not a number" },
		{ "BENCHGUARD a 1 s\n\nBENCHGUARD a 2 B\n",
		  "out.txt:3: app:a: unit \"B\" differs from earlier \"s\"" },
		{ "", "out.txt: no BENCHGUARD lines in output" },
	};
	bg_ctx *ctx = NULL;
	bg_results *r = prefilled();
	size_t i;

	(void)state;
	assert_int_equal(bg_ctx_new(&ctx), 0);
	for (i = 0; i < BG_ARRAY_SIZE(cases); i++) {
		bg_ctx_clear_error(ctx);
		assert_int_equal(parse_str(ctx, BG_FORMAT_LINES, "app", cases[i].text, r),
		                 BG_EINPUT);
		if (strcmp(bg_ctx_error(ctx), cases[i].message) != 0)
			fail_msg("case %zu: got \"%s\"", i, bg_ctx_error(ctx));
		assert_untouched(r);
	}
	/* lines puts every series under the caller's benchmark: it needs one. */
	assert_int_equal(parse_str(ctx, BG_FORMAT_LINES, NULL, "BENCHGUARD a 1 s\n", r), BG_EINPUT);
	assert_string_equal(bg_ctx_error(ctx),
	                    "out.txt: format lines needs a benchmark name for its samples");
	assert_untouched(r);
	bg_results_free(r);
	bg_ctx_free(ctx);
}

static void test_lines_edges(void **state)
{
	/* Output is not NUL-terminated: the unit ends where `len` says.  An
	 * exact-size heap copy lets the sanitizer build catch a read past it. */
	static const char line[] = "BENCHGUARD a 2 ms";
	char *exact = malloc(sizeof(line) - 1);
	bg_results *r = NULL;
	const bg_series *s;

	(void)state;
	assert_non_null(exact);
	memcpy(exact, line, sizeof(line) - 1);
	assert_int_equal(bg_results_new(&r), 0);
	assert_int_equal(
	        bg_format_parse(NULL, BG_FORMAT_LINES, "o", "b", exact, sizeof(line) - 1, r), 0);
	free(exact);
	/* CRLF line ends, and no newline after the last line. */
	assert_int_equal(
	        parse_str(NULL, BG_FORMAT_LINES, "b", "BENCHGUARD a 3 ms\r\nBENCHGUARD a 4 ms", r),
	        0);
	/* Appends after the samples already there. */
	s = find(r, "b", "a");
	assert_string_equal(s->unit, "s");
	assert_int_equal(s->n, 3);
	assert_true(near(s->values[0], 0.002) && near(s->values[1], 0.003) &&
	            near(s->values[2], 0.004));
	assert_int_equal(bg_results_series_count(r), 1);
	bg_results_free(r);
}

static void test_lines_many(void **state)
{
	/* 100 series x 200 samples, interleaved: every sample lands in its
	 * series, in order. */
	bg_buf text = BG_BUF_INIT;
	bg_results *r = NULL;
	size_t i, j;

	(void)state;
	for (j = 0; j < 200; j++)
		for (i = 0; i < 100; i++)
			assert_int_equal(
			        bg_buf_printf(&text, "BENCHGUARD s%zu %zu.5 ns\n", i, i * 1000 + j),
			        0);
	assert_int_equal(bg_results_new(&r), 0);
	assert_int_equal(bg_format_parse(NULL, BG_FORMAT_LINES, "big", "b", text.ptr, text.len, r),
	                 0);
	assert_int_equal(bg_results_series_count(r), 100);
	for (i = 0; i < 100; i++) {
		const bg_series *s = bg_results_series(r, i);
		char name[16];

		snprintf(name, sizeof(name), "s%zu", i);
		assert_string_equal(s->metric, name);
		assert_int_equal(s->n, 200);
		for (j = 0; j < 200; j++)
			assert_true(near(s->values[j], ((double)(i * 1000 + j) + 0.5) * 1e-9));
	}
	bg_results_free(r);
	bg_buf_clear(&text);
}

/* ------------------------------------------------------------- others */

static void test_formats_without_parser(void **state)
{
	bg_ctx *ctx = NULL;
	bg_results *r = prefilled();

	(void)state;
	assert_int_equal(bg_ctx_new(&ctx), 0);
	assert_int_equal(parse_str(ctx, BG_FORMAT_TIME, "b", "BENCHGUARD a 1 s\n", r), BG_EINPUT);
	assert_string_equal(bg_ctx_error(ctx), "format time has no output to parse");
	assert_int_equal(parse_str(ctx, BG_FORMAT_NVBENCH, "b", "{}", r), BG_EINPUT);
	assert_string_equal(bg_ctx_error(ctx), "format \"nvbench\" is not supported yet");
	assert_int_equal(parse_str(ctx, BG_FORMAT_HYPERFINE, "b", "{}", r), BG_EINPUT);
	assert_string_equal(bg_ctx_error(ctx), "format \"hyperfine\" is not supported yet");
	assert_untouched(r);
	bg_results_free(r);
	bg_ctx_free(ctx);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_gbench_real_repetitions),
		cmocka_unit_test(test_gbench_time_units),
		cmocka_unit_test(test_gbench_bad_files),
		cmocka_unit_test(test_gbench_bad_documents),
		cmocka_unit_test(test_gbench_appends_and_unit_conflict),
		cmocka_unit_test(test_gbench_names),
		cmocka_unit_test(test_lines_good),
		cmocka_unit_test(test_lines_bad_files),
		cmocka_unit_test(test_lines_bad_lines),
		cmocka_unit_test(test_lines_edges),
		cmocka_unit_test(test_lines_many),
		cmocka_unit_test(test_formats_without_parser),
	};
	return cmocka_run_group_tests_name("formats", tests, NULL, NULL);
}
