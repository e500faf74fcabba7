/*
 * test_results.c -- the in-memory results set: series lookup, unit
 * canonicalisation, outcomes, and the summary statistics.
 */
#include <math.h>

#include "unit.h"

static void test_add_and_lookup(void **state)
{
	bg_results *r = NULL;
	char name[32];
	size_t i;

	(void)state;
	assert_int_equal(bg_results_new(&r), 0);
	for (i = 0; i < 3000; i++) {
		snprintf(name, sizeof(name), "s%zu", i % 1000);
		assert_int_equal(bg_results_add(NULL, r, "b", name, "ms", (double)i), 0);
	}
	assert_int_equal(bg_results_series_count(r), 1000);
	for (i = 0; i < 1000; i++) {
		const bg_series *s = bg_results_series(r, i);
		assert_int_equal(s->n, 3);
		assert_string_equal(s->unit, "s");
		/* 3 samples per series, in measured order, converted from ms. */
		assert_true(fabs(s->values[2] - (double)(i + 2000) / 1000.0) < 1e-12);
	}
	bg_results_free(r);
}

static void test_rejects_bad_samples(void **state)
{
	bg_ctx *ctx = NULL;
	bg_results *r = NULL;

	(void)state;
	assert_int_equal(bg_ctx_new(&ctx), 0);
	assert_int_equal(bg_results_new(&r), 0);
	assert_int_equal(bg_results_add(ctx, r, "b", "m", "s", NAN), BG_EINPUT);
	/* Finite as given, infinite once converted to seconds. */
	assert_int_equal(bg_results_add(ctx, r, "b", "big", "min", 1e307), BG_EINPUT);
	assert_non_null(strstr(bg_ctx_error(ctx), "too large"));
	assert_int_equal(bg_results_add(ctx, r, "b", "m", "s", INFINITY), BG_EINPUT);
	assert_int_equal(bg_results_add(ctx, r, "b", "m", "", 1.0), BG_EINPUT);
	assert_int_equal(bg_results_add(ctx, r, "b", "m", "s", 1.0), 0);
	assert_int_equal(bg_results_add(ctx, r, "b", "m", "B", 1.0), BG_EINPUT);
	assert_non_null(strstr(bg_ctx_error(ctx), "differs"));
	assert_int_equal(bg_results_add(ctx, r, "b", "m", "ns", 5.0), 0);
	assert_int_equal(bg_results_series(r, 0)->n, 2);
	/* A time is never negative, in any unit of time; a value in a unit of
	 * the program's own may be, and -0 is no negative time. */
	assert_int_equal(bg_results_add(ctx, r, "b", "m", "ms", -10.1), BG_EINPUT);
	if (!strstr(bg_ctx_error(ctx), "b:m: value -0.0101 s is negative, not a time"))
		fail_msg("%s", bg_ctx_error(ctx));
	assert_int_equal(bg_results_add(ctx, r, "b", "new", "us", -1.0), BG_EINPUT);
	assert_int_equal(bg_results_add(ctx, r, "b", "m", "s", -0.0), 0);
	assert_int_equal(bg_results_add(ctx, r, "b", "delta", "pt", -3.0), 0);
	assert_int_equal(bg_results_series(r, 0)->n, 3);
	assert_int_equal(bg_results_series_count(r), 2);
	bg_results_free(r);
	bg_ctx_free(ctx);
}

/*
 * U+FFFD in a name is what a decoder left for a character it could not
 * read (json-c for a lone "\ud800"): two names that lost different
 * characters would be one series, their samples mixed.  Refused in a
 * benchmark, metric or unit; free text (a tag's value) keeps it.
 */
static void test_replacement_character(void **state)
{
	static const char *const names[][3] = { { "BM_\xEF\xBF\xBD", "t", "s" },
		                                { "b", "x\xEF\xBF\xBDy", "s" },
		                                { "b", "t", "\xEF\xBF\xBDs" } };
	bg_ctx *ctx = NULL;
	bg_results *r = NULL;
	size_t i;
	int bad;

	(void)state;
	assert_int_equal(bg_ctx_new(&ctx), 0);
	assert_int_equal(bg_results_new(&r), 0);
	for (i = 0; i < 3; i++) {
		assert_int_equal(bg_results_add(ctx, r, names[i][0], names[i][1], names[i][2], 1.0),
		                 BG_EINPUT);
		if (!strstr(bg_ctx_error(ctx), "holds U+FFFD"))
			fail_msg("%zu: %s", i, bg_ctx_error(ctx));
	}
	assert_int_equal(bg_results_series_count(r), 0);
	/* Other characters outside ASCII are names like any. */
	assert_int_equal(bg_results_add(ctx, r, "tri\xC3\xA9", "\xE2\x88\x91", "s", 1.0), 0);
	assert_null(bg_results__bad_name("\xEF\xBF\xBD", 3, 1));
	assert_null(bg_results__bad_pair("k", 1, "a\xEF\xBF\xBD", 4, &bad));
	assert_non_null(bg_results__bad_pair("k\xEF\xBF\xBD", 4, "v", 1, &bad));
	bg_results_free(r);
	bg_ctx_free(ctx);
}

/* What reads a number in text takes decimals only. */
static void test_decimal(void **state)
{
	static const char *const yes[] = { "1", "-2.5", "1e-9", "+3.E+4", "0.000" };
	static const char *const no[] = {
		"0x10", "0x1p4", "inf", "infinity", "nan", "", "1 ", "1\0"
	};
	size_t i;

	(void)state;
	for (i = 0; i < sizeof(yes) / sizeof(*yes); i++)
		assert_true(bg_text__decimal(yes[i], strlen(yes[i])));
	for (i = 0; i < sizeof(no) / sizeof(*no); i++)
		assert_false(bg_text__decimal(
		        no[i], i + 1 == sizeof(no) / sizeof(*no) ? 3 : strlen(no[i])));
}

/* Rates by any unit of time, in any case; per an operation is no rate. */
static void test_rate_units(void **state)
{
	static const char *const higher[] = {
		"GB/s",       "items/s",   "ops/sec",    "MB/S",        "B/ms",
		"req/min",    "op/Second", "x/us",       "x/\xc2\xb5s", "jobs/h",
		"req/hr",     "req/hour",  "ops/minute", "ops/seconds", "ops/secs",
		"frames/day", "/s",        "Hz",         "FPS",         "ops"
	};
	static const char *const lower[] = { "s",   "ms", "B/op",   "allocs/op", "B/",
		                             "kHz", "B",  "events", "s/op",      "x/hz" };
	size_t i;

	(void)state;
	for (i = 0; i < BG_ARRAY_SIZE(higher); i++)
		if (bg_direction_for_unit(higher[i]) != BG_DIR_HIGHER)
			fail_msg("%s: want higher is better", higher[i]);
	for (i = 0; i < BG_ARRAY_SIZE(lower); i++)
		if (bg_direction_for_unit(lower[i]) != BG_DIR_LOWER)
			fail_msg("%s: want lower is better", lower[i]);
}

static void test_directions(void **state)
{
	bg_results *r = NULL;

	(void)state;
	assert_int_equal(bg_results_new(&r), 0);
	assert_int_equal(bg_results_add(NULL, r, "b", "bw", "GB/s", 900.0), 0);
	assert_int_equal(bg_results_add(NULL, r, "b", "t", "us", 9.0), 0);
	assert_int_equal(bg_results_series(r, 0)->direction, BG_DIR_HIGHER);
	assert_int_equal(bg_results_series(r, 1)->direction, BG_DIR_LOWER);
	assert_int_equal(bg_results_set_direction(r, "b", "t", BG_DIR_HIGHER), 0);
	assert_int_equal(bg_results_series(r, 1)->direction, BG_DIR_HIGHER);
	assert_int_equal(bg_results_set_direction(r, "b", "nope", BG_DIR_HIGHER), BG_ENOTFOUND);
	bg_results_free(r);
}

static void test_outcomes_and_drop(void **state)
{
	bg_results *r = NULL;

	(void)state;
	assert_int_equal(bg_results_new(&r), 0);
	assert_int_equal(bg_results_add(NULL, r, "a", "m", "s", 1.0), 0);
	assert_int_equal(bg_results_add(NULL, r, "b", "m", "s", 2.0), 0);
	assert_int_equal(bg_results_add(NULL, r, "b", "n", "s", 3.0), 0);
	assert_int_equal(bg_results_set_outcome(NULL, r, "b", BG_BENCH_FAILED, "exit 1"), 0);
	assert_int_equal(bg_results_set_outcome(NULL, r, "b", BG_BENCH_FAILED, "exit 2"), 0);
	assert_int_equal(bg_results_outcome_count(r), 1);
	assert_string_equal(bg_results_find_outcome(r, "b")->message, "exit 2");
	bg_results_drop_benchmark(r, "b");
	assert_int_equal(bg_results_series_count(r), 1);
	/* The table still finds what is left and can add again. */
	assert_int_equal(bg_results_add(NULL, r, "a", "m", "s", 1.5), 0);
	assert_int_equal(bg_results_series(r, 0)->n, 2);
	assert_int_equal(bg_results_add(NULL, r, "b", "m", "s", 2.0), 0);
	assert_int_equal(bg_results_series_count(r), 2);
	bg_results_free(r);
	bg_results_free(NULL);
}

static void test_summary(void **state)
{
	/* Expected values: Python statistics.mean/median/stdev on the same data. */
	const double v[] = { 3.0, 1.0, 4.0, 1.0, 5.0, 9.0, 2.0, 6.0 };
	bg_summary s;

	(void)state;
	assert_int_equal(bg_stats_summarize(NULL, v, 8, &s), 0);
	assert_int_equal(s.n, 8);
	assert_true(fabs(s.mean - 3.875) < 1e-12);
	assert_true(fabs(s.median - 3.5) < 1e-12);
	assert_true(fabs(s.stddev - 2.748376143938713) < 1e-12);
	assert_true(fabs(s.min - 1.0) < 1e-12 && fabs(s.max - 9.0) < 1e-12);
	assert_int_equal(bg_stats_summarize(NULL, v, 1, &s), 0);
	assert_true(fabs(s.stddev) < 1e-300 && fabs(s.median - 3.0) < 1e-12);
	assert_int_equal(bg_stats_summarize(NULL, v, 0, &s), BG_EINPUT);
}

/*
 * Far-out samples: a real run (suite50.c, series w02) with one sample hit by
 * an interrupt.  Q1 = Q3 = 181 (GSL's interpolated quartiles of the sorted
 * 181 181 181 181 214), so the outer fences are 181..181 and 214 is far out:
 * the robust mean is 181 while the plain mean is 187.6.  A spread sample has
 * none: 1..5 gives Q1 2, Q3 4, fences -4..10.
 */
static void test_far_out_samples(void **state)
{
	const double hit[] = { 181, 181, 181, 214, 181 };
	const double spread[] = { 1, 2, 3, 4, 5 };
	const double three[] = { 1, 1, 100 };
	bg_summary s;

	(void)state;
	assert_int_equal(bg_stats_summarize(NULL, hit, 5, &s), 0);
	assert_true(fabs(s.mean - 187.6) < 1e-9);
	assert_true(fabs(s.robust_mean - 181.0) < 1e-12);
	assert_int_equal(s.outliers, 1);
	assert_int_equal(bg_stats_summarize(NULL, spread, 5, &s), 0);
	assert_true(fabs(s.robust_mean - 3.0) < 1e-12);
	assert_int_equal(s.outliers, 0);
	/* Under 4 samples nothing is judged far out. */
	assert_int_equal(bg_stats_summarize(NULL, three, 3, &s), 0);
	assert_true(fabs(s.robust_mean - 34.0) < 1e-12);
	assert_int_equal(s.outliers, 0);
	/* A slow mode in a fifth of the samples (cache misses at 10x) is the
	 * benchmark's own: all of it counts (it read 100, unchanged from a run
	 * without misses).  One far sample in 20 is still left out. */
	{
		double v[20];
		size_t i;

		for (i = 0; i < 20; i++)
			v[i] = i % 5 == 2 ? 1000.0 : 100.0 + 0.1 * (double)(i % 3);
		assert_int_equal(bg_stats_summarize(NULL, v, 20, &s), 0);
		assert_int_equal(s.outliers, 0);
		assert_true(fabs(s.robust_mean - s.mean) < 1e-12 && s.robust_mean > 270.0);
		for (i = 0; i < 20; i++)
			v[i] = i == 7 ? 1000.0 : 100.0 + 0.1 * (double)(i % 3);
		assert_int_equal(bg_stats_summarize(NULL, v, 20, &s), 0);
		assert_int_equal(s.outliers, 1);
		assert_true(s.robust_mean < 100.2);
		/* A quantised timer, 10 or 11 us, 11 in a fifth: equal quartiles
		 * put every 11 outside the fences, and the run read 10.0. */
		for (i = 0; i < 20; i++)
			v[i] = i % 5 == 0 ? 11.0 : 10.0;
		assert_int_equal(bg_stats_summarize(NULL, v, 20, &s), 0);
		assert_int_equal(s.outliers, 0);
		assert_true(fabs(s.robust_mean - 10.2) < 1e-12);
	}
}

static void test_units(void **state)
{
	const char *c;
	double k;
	bg_format f;

	(void)state;
	assert_int_equal(bg_unit_canonical("us", &c, &k), 0);
	assert_string_equal(c, "s");
	assert_true(fabs(k - 1e-6) < 1e-18);
	/* Both micro signs: U+00B5 (µ) and the Greek letter U+03BC (μ),
	 * which Julia's BenchmarkTools, among others, prints. */
	assert_int_equal(bg_unit_canonical("\xc2\xb5s", &c, &k), 0);
	assert_string_equal(c, "s");
	assert_true(fabs(k - 1e-6) < 1e-18);
	assert_int_equal(bg_unit_canonical("\xce\xbcs", &c, &k), 0);
	assert_string_equal(c, "s");
	assert_true(fabs(k - 1e-6) < 1e-18);
	assert_int_equal(bg_unit_canonical("GB/s", &c, &k), 0);
	assert_string_equal(c, "GB/s");
	assert_int_equal(bg_format_from_name("gbench", &f), 0);
	assert_int_equal(f, BG_FORMAT_GBENCH);
	assert_int_equal(bg_format_from_name("csv", &f), BG_EINPUT);
	assert_int_equal(bg_error_exit_code(BG_EINPUT), 2);
	assert_int_equal(bg_error_exit_code(BG_ENOTFOUND), 2);
	assert_int_equal(bg_error_exit_code(BG_ERROR), 3);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_add_and_lookup),
		cmocka_unit_test(test_rejects_bad_samples),
		cmocka_unit_test(test_directions),
		cmocka_unit_test(test_rate_units),
		cmocka_unit_test(test_outcomes_and_drop),
		cmocka_unit_test(test_summary),
		cmocka_unit_test(test_far_out_samples),
		cmocka_unit_test(test_units),
		cmocka_unit_test(test_replacement_character),
		cmocka_unit_test(test_decimal),
	};
	return cmocka_run_group_tests_name("results", tests, NULL, NULL);
}
