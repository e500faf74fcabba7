/*
 * test_ci.c -- how ci folds what it measured again into the first look's
 * verdict (bg_ci__merge, lib/ci.c), on results built by hand: a series the
 * pairs could not judge keeps the first look's verdict, so that a
 * regression is never hidden behind a second measurement that did not
 * happen.
 */
#include <math.h>

#include "unit.h"

static bg_check_result *one_row(const char *reference, bg_verdict v, const char *message)
{
	bg_check_result *res = calloc(1, sizeof(*res));
	bg_verdict_row *r;

	assert_non_null(res);
	assert_non_null(res->rows = calloc(1, sizeof(*res->rows)));
	snprintf(res->reference, sizeof(res->reference), "%s", reference);
	res->nrows = 1;
	r = &res->rows[0];
	r->series = bg_strdup("b:v");
	r->benchmark = bg_strdup("b");
	r->metric = bg_strdup("v");
	r->unit = bg_strdup("ms");
	r->message = message ? bg_strdup(message) : NULL;
	r->verdict = v;
	r->p_adjusted = r->p_better_adjusted = v == BG_VERDICT_REGRESSION ? 0.001 : NAN;
	r->test.delta = r->test.change = v == BG_VERDICT_REGRESSION ? 0.25 : NAN;
	r->current_runs = r->baseline_runs = 4;
	res->count[v] = 1;
	return res;
}

/* A first-look regression whose pairs' values cannot be judged: the
 * regression stands (exit 1), not "skipped, not confirmed" (exit 0). */
static void test_skipped_pairs_keep_the_regression(void **state)
{
	bg_pairs_series open = { "b", "v", 1, 0 };
	bg_check_result *res = one_row("", BG_VERDICT_REGRESSION, NULL);
	bg_check_result *pairs =
	        one_row("0123456789abcdef0123456789abcdef01234567", BG_VERDICT_SKIPPED,
	                "cannot be judged: a value is not finite");
	bg_ctx *ctx = NULL;

	(void)state;
	assert_int_equal(bg_ctx_new(&ctx), 0);
	assert_int_equal(bg_ci__merge(ctx, res, pairs, &open, 1), 0);
	assert_int_equal(res->nrows, 1);
	assert_int_equal(res->rows[0].verdict, BG_VERDICT_REGRESSION);
	assert_int_equal(res->rows[0].confirm.status, BG_CONFIRM_NONE);
	assert_int_equal(res->count[BG_VERDICT_REGRESSION], 1);
	assert_int_equal(res->count[BG_VERDICT_SKIPPED], 0);
	assert_int_equal(bg_check_exit_code(res), 1);
	assert_non_null(strstr(res->rows[0].message, "not measured again beside 0123456789ab"));
	assert_non_null(strstr(res->rows[0].message, "a value is not finite"));
	bg_check_result_free(res);
	bg_check_result_free(pairs);
	bg_ctx_free(ctx);
}

/* The pairs' message says "at the cap" only when the cap was reached: a
 * series left undecided after 4 of 32 pairs (its closed direction shown
 * by the pairs, or a futility stop) reads "undecided", and at 32 of 32
 * "undecided at the cap". */
static void test_undecided_says_where(void **state)
{
	static const size_t made[] = { 4, 32 };
	static const char *const said[] = { "undecided: +5.9% against 0123456789ab in 4 ",
		                            "undecided at the cap: +5.9% against "
		                            "0123456789ab in 32 " };
	bg_pairs_series open = { "b", "v", 0, 1 };
	bg_ctx *ctx = NULL;
	size_t k;

	(void)state;
	assert_int_equal(bg_ctx_new(&ctx), 0);
	for (k = 0; k < 2; k++) {
		bg_check_result *res = one_row("", BG_VERDICT_UNCHANGED, NULL);
		bg_check_result *pairs = one_row("0123456789abcdef0123456789abcdef01234567",
		                                 BG_VERDICT_UNCHANGED, NULL);

		pairs->confirm_max = 32;
		pairs->rows[0].test.delta = pairs->rows[0].test.change = 0.059;
		pairs->rows[0].confirm.status = BG_CONFIRM_UNDECIDED;
		pairs->rows[0].confirm.pairs = made[k];
		assert_int_equal(bg_ci__merge(ctx, res, pairs, &open, 1), 0);
		assert_int_equal(res->rows[0].verdict, BG_VERDICT_UNCHANGED);
		assert_non_null(res->rows[0].message);
		if (!strstr(res->rows[0].message, said[k]))
			fail_msg("message: %s", res->rows[0].message);
		bg_check_result_free(res);
		bg_check_result_free(pairs);
	}
	bg_ctx_free(ctx);
}

/* Benchmarks that failed while measured again join the verdict as
 * failures, however many: 40, past the rows' first growth. */
static void test_failed_in_pairs_added(void **state)
{
	bg_pairs_series open = { "b", "v", 1, 0 };
	bg_check_result *res = one_row("", BG_VERDICT_REGRESSION, NULL);
	bg_check_result *pairs =
	        one_row("0123456789abcdef0123456789abcdef01234567", BG_VERDICT_REGRESSION, NULL);
	bg_ctx *ctx = NULL;
	size_t i, failed = 0;

	(void)state;
	assert_int_equal(bg_ctx_new(&ctx), 0);
	assert_non_null(pairs->rows = realloc(pairs->rows, 41 * sizeof(*pairs->rows)));
	for (i = 1; i <= 40; i++) {
		bg_verdict_row *q = &pairs->rows[i];
		char name[32];

		memset(q, 0, sizeof(*q));
		snprintf(name, sizeof(name), "f%zu", i);
		q->benchmark = bg_strdup(name);
		q->series = bg_strdup(name);
		q->message = bg_strdup("exit status 3");
		q->verdict = BG_VERDICT_FAILED;
	}
	pairs->nrows = 41;
	assert_int_equal(bg_ci__merge(ctx, res, pairs, &open, 1), 0);
	assert_int_equal(res->nrows, 41);
	assert_int_equal(res->count[BG_VERDICT_FAILED], 40);
	for (i = 0; i < res->nrows; i++) {
		if (res->rows[i].verdict != BG_VERDICT_FAILED)
			continue;
		failed++;
		assert_true(res->rows[i].series[0] == 'f');
		assert_string_equal(res->rows[i].message, "exit status 3");
	}
	assert_int_equal(failed, 40);
	assert_int_equal(bg_check_exit_code(res), 3);
	bg_check_result_free(res);
	bg_check_result_free(pairs);
	bg_ctx_free(ctx);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_skipped_pairs_keep_the_regression),
		cmocka_unit_test(test_undecided_says_where),
		cmocka_unit_test(test_failed_in_pairs_added),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
