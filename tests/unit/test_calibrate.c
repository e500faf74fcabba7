/*
 * test_calibrate.c -- the numbers `calibrate` prints: variance components,
 * MDE, samples per run and runs worth spending, on hand-checked summaries;
 * and which of the verdict's rules a series gets (bg_judge_rule), in words.
 * t quantiles quoted below are scipy.stats.t.ppf (Debian python3-scipy
 * 1.10.1), an implementation independent of the GSL one under test.
 */
#include <math.h>

#include "unit.h"

static bg_summary run(size_t n, double mean, double sd)
{
	bg_summary s;

	memset(&s, 0, sizeof(s));
	s.n = n;
	s.mean = mean;
	s.stddev = sd;
	return s;
}

static void assert_close(double got, double want, double rel)
{
	if (!(fabs(got - want) <= rel * fabs(want))) {
		print_error("got %.17g, want %.17g\n", got, want);
		fail();
	}
}

/*
 * Three runs of 4 samples, means 10, 11, 12, each with SD 1:
 *   M = 11; var(means) = ((-1)^2 + 0 + 1^2) / 2 = 1
 *   s2_within = 1 (pooled: 3*1 + 3*1 + 3*1 over 9 df)
 *   s2_between = 1 - 1 * mean(1/4) = 0.75
 *   run CV = 1/11, within CV = 1/11
 *   samples: smallest m with 1/m <= 0.75/4 = 0.1875 -> m = 6 (1/5 = 0.2 is not)
 *   MDE (alpha 0.01, W 20) = (t(.99,19) + t(.8,19)) * 1 * sqrt(1.05) / 11
 *     = (2.539483190622288 + 0.8609505502689289) * 1.02469507659596 / 11
 *     = 0.31676433750745564
 */
static void test_components(void **state)
{
	bg_summary r[3];
	bg_calibration c;

	(void)state;
	r[0] = run(4, 10.0, 1.0);
	r[1] = run(4, 11.0, 1.0);
	r[2] = run(4, 12.0, 1.0);
	assert_int_equal(bg_calibrate(NULL, r, 3, 0.01, 20, 0.5, &c), 0);
	assert_int_equal(c.runs, 3);
	assert_close(c.mean, 11.0, 1e-15);
	assert_close(c.samples, 4.0, 1e-15);
	assert_close(c.s2_within, 1.0, 1e-15);
	assert_close(c.s2_between, 0.75, 1e-15);
	assert_close(c.run_cv, 1.0 / 11.0, 1e-15);
	assert_close(c.within_cv, 1.0 / 11.0, 1e-15);
	assert_int_equal(c.samples_suggested, 6);
	assert_close(c.mde, 0.31676433750745564, 1e-9);
}

/*
 * Windows needed, same runs.  With 6 samples per run a run mean's variance
 * is predicted as 0.75 + 1/6 = 0.91666..., sd 0.9574271077563381.  MDE(W) =
 * (t(.99,W-1) + t(.8,W-1)) * sqrt(1 + 1/W) * 0.9574271077563381 / 11 (scipy):
 *   W=4: (4.540702858698419 + 0.9784723118282999) * 1.118033988749895 -> 0.537084
 *   W=5: (3.7469473879811366 + 0.94096457719753) * 1.0954451150103321 -> 0.446975
 *   W=6: -> 0.402795
 * so a 50% or 45% change needs W = 5, a 44.6% one W = 6.  However many runs,
 * the MDE stays above its normal limit (z(.99) + z(.8)) * 0.957427 / 11 =
 * 0.27574: 5% is out of reach (0).
 */
static void test_runs_needed(void **state)
{
	bg_summary r[3];
	bg_calibration c;

	(void)state;
	r[0] = run(4, 10.0, 1.0);
	r[1] = run(4, 11.0, 1.0);
	r[2] = run(4, 12.0, 1.0);
	assert_int_equal(bg_calibrate(NULL, r, 3, 0.01, 20, 0.5, &c), 0);
	assert_int_equal(c.runs_needed, 5);
	assert_int_equal(bg_calibrate(NULL, r, 3, 0.01, 20, 0.45, &c), 0);
	assert_int_equal(c.runs_needed, 5); /* MDE(5) = 0.446975 <= 0.45 ... */
	assert_int_equal(bg_calibrate(NULL, r, 3, 0.01, 20, 0.446, &c), 0);
	assert_int_equal(c.runs_needed, 6); /* ... but > 0.446: MDE(6) = 0.402795 */
	assert_int_equal(bg_calibrate(NULL, r, 3, 0.01, 20, 0.05, &c), 0);
	assert_int_equal(c.runs_needed, 0);
	/* A change so large any window detects it: never below 3. */
	assert_int_equal(bg_calibrate(NULL, r, 3, 0.01, 20, 5.0, &c), 0);
	assert_int_equal(c.runs_needed, 3);
}

/*
 * Unequal samples per run: (n 2, mean 1, sd 1), (n 5, mean 5, sd 2),
 * (n 1, mean 3): M = 3, var(means) = (4 + 4 + 0) / 2 = 4;
 * s2_within pooled over the runs with 2+ samples = (1*1 + 4*4) / (1 + 4) = 3.4
 * (the one-sample run has no within-run information);
 * mean(1/n) = (1/2 + 1/5 + 1) / 3 = 0.5666...;
 * s2_between = 4 - 3.4 * 0.5666... = 2.0733...;
 * samples: 4 * 3.4 / 2.0733... = 6.56 -> 7 (3.4/7 = 0.486 <= 0.518; 3.4/6 = 0.567 is not).
 */
static void test_unequal_samples(void **state)
{
	bg_summary r[3];
	bg_calibration c;

	(void)state;
	r[0] = run(2, 1.0, 1.0);
	r[1] = run(5, 5.0, 2.0);
	r[2] = run(1, 3.0, 0.0);
	assert_int_equal(bg_calibrate(NULL, r, 3, 0.01, 20, 0.05, &c), 0);
	assert_close(c.mean, 3.0, 1e-15);
	assert_close(c.samples, 8.0 / 3.0, 1e-15);
	assert_close(c.s2_within, 3.4, 1e-15);
	assert_close(c.s2_between, 4.0 - 3.4 * (1.7 / 3.0), 1e-12);
	assert_close(c.run_cv, 2.0 / 3.0, 1e-15);
	assert_close(c.within_cv, sqrt(3.4) / 3.0, 1e-15);
	assert_int_equal(c.samples_suggested, 7);
}

/*
 * The suggestion at an exact boundary, and at its limits.  Means 10, 13, 10
 * of 4 samples with SD 2: var(means) = (1 + 4 + 1) / 2 = 3, s2_within = 4,
 * s2_between = 3 - 4/4 = 2; 4 * 4 / 2 = 8 exactly, and 4/8 <= 2/4 holds with
 * equality: 8, not 9.
 */
static void test_samples_boundaries(void **state)
{
	bg_summary r[3];
	bg_calibration c;

	(void)state;
	r[0] = run(4, 10.0, 2.0);
	r[1] = run(4, 13.0, 2.0);
	r[2] = run(4, 10.0, 2.0);
	assert_int_equal(bg_calibrate(NULL, r, 3, 0.01, 20, 0.05, &c), 0);
	assert_close(c.s2_between, 2.0, 1e-15);
	assert_int_equal(c.samples_suggested, 8);

	/* Run means closer than within-run noise explains: no between-run
	 * variance left, so only more samples help: the cap.  var(means) of
	 * 10 and 10.5 = 0.125 < s2_within / n = 4 / 4. */
	r[0] = run(4, 10.0, 2.0);
	r[1] = run(4, 10.5, 2.0);
	assert_int_equal(bg_calibrate(NULL, r, 2, 0.01, 20, 0.05, &c), 0);
	assert_true(c.s2_between >= 0.0 && c.s2_between <= 0.0);
	assert_int_equal(c.samples_suggested, 1000);

	/* No within-run scatter at all: one sample per run is enough. */
	r[0] = run(4, 10.0, 0.0);
	r[1] = run(4, 11.0, 0.0);
	assert_int_equal(bg_calibrate(NULL, r, 2, 0.01, 20, 0.05, &c), 0);
	assert_int_equal(c.samples_suggested, 1);
	assert_close(c.s2_between, 0.5, 1e-15);

	/* Identical runs: nothing to detect against, any window that can
	 * flag will do: 3, since against a window of 2 and one run the
	 * effect size (Hedges' g) is 0 whatever the change. */
	r[0] = run(4, 10.0, 0.0);
	r[1] = run(4, 10.0, 0.0);
	assert_int_equal(bg_calibrate(NULL, r, 2, 0.01, 20, 0.05, &c), 0);
	assert_int_equal(c.runs_needed, 3);
	assert_true(c.mde >= 0.0 && c.mde <= 0.0);
}

/* One sample per run: within-run noise is unknown, not zero. */
static void test_single_samples(void **state)
{
	bg_summary r[2];
	bg_calibration c;

	(void)state;
	r[0] = run(1, 10.0, 0.0);
	r[1] = run(1, 12.0, 0.0);
	assert_int_equal(bg_calibrate(NULL, r, 2, 0.01, 20, 0.05, &c), 0);
	assert_true(isnan(c.s2_within));
	assert_true(isnan(c.within_cv));
	assert_int_equal(c.samples_suggested, 0);
	/* var(means) = 2, all of it counted as run-to-run. */
	assert_close(c.s2_between, 2.0, 1e-15);
	assert_close(c.run_cv, sqrt(2.0) / 11.0, 1e-15);
}

static void test_zero_mean_and_errors(void **state)
{
	bg_ctx *ctx = NULL;
	bg_summary r[2];
	bg_calibration c;

	(void)state;
	assert_int_equal(bg_ctx_new(&ctx), 0);
	r[0] = run(2, -1.0, 1.0);
	r[1] = run(2, 1.0, 1.0);
	assert_int_equal(bg_calibrate(ctx, r, 2, 0.01, 20, 0.05, &c), 0);
	assert_true(isnan(c.run_cv) && isnan(c.within_cv) && isnan(c.mde));
	assert_int_equal(c.runs_needed, -1);

	assert_int_equal(bg_calibrate(ctx, r, 1, 0.01, 20, 0.05, &c), BG_EINPUT);
	assert_non_null(strstr(bg_ctx_error(ctx), "at least 2 runs"));
	assert_int_equal(bg_calibrate(ctx, r, 2, 0.0, 20, 0.05, &c), BG_EINPUT);
	assert_int_equal(bg_calibrate(ctx, r, 2, 0.01, 1, 0.05, &c), BG_EINPUT);
	assert_int_equal(bg_calibrate(ctx, r, 2, 0.01, 20, 0.0, &c), BG_EINPUT);
	r[1] = run(0, 1.0, 0.0);
	assert_int_equal(bg_calibrate(ctx, r, 2, 0.01, 20, 0.05, &c), BG_EINPUT);
	r[1] = run(2, NAN, 0.0);
	assert_int_equal(bg_calibrate(ctx, r, 2, 0.01, 20, 0.05, &c), BG_EINPUT);
	bg_ctx_free(ctx);
}

/*
 * The rule `calibrate` reports: a simulated count repeating to 4 parts in a
 * million is near-deterministic against its 0.1% (noise floor 0.0004%), a
 * time with a 10% range takes the t-test; the floor is at least the
 * resolution; and the rule agrees with bg_judge's on the same runs.
 */
static void test_rule(void **state)
{
	const double count[] = { 1000000000.0, 1000004000.0, 1000002000.0, 1000001000.0 };
	const double times[] = { 0.010, 0.011, 0.0105, 0.0102 };
	const double flat[] = { 1000.0, 1000.0, 1000.0 };
	const double zero[] = { -1.0, 1.0 };
	const double bad[] = { 1.0, NAN };
	bg_ctx *ctx = NULL;
	bg_rule r;
	char text[160];

	(void)state;
	assert_int_equal(bg_ctx_new(&ctx), 0);
	assert_int_equal(bg_judge_rule(ctx, count, 4, 0.001, 1.0, &r), 0);
	assert_true(r.deterministic);
	assert_close(r.noise_floor, 4000.0 / 1000001750.0, 1e-12);
	assert_close(r.min_change, 0.001, 0);
	bg_rule_text(text, sizeof(text), &r);
	assert_string_equal(text, "near-deterministic: noise floor 0.0004%, min_change 0.1%");

	/* The same runs against a min_change of 0.001% are noise: the t-test. */
	assert_int_equal(bg_judge_rule(ctx, count, 4, 0.00001, 1.0, &r), 0);
	assert_false(r.deterministic);
	bg_rule_text(text, sizeof(text), &r);
	assert_string_equal(text, "t-test: noise floor 0.0004% > min_change 0.001% / 4");

	assert_int_equal(bg_judge_rule(ctx, times, 4, 0.02, 0.0, &r), 0);
	assert_false(r.deterministic);
	assert_close(r.noise_floor, 0.001 / 0.010425, 1e-12);
	bg_rule_text(text, sizeof(text), &r);
	assert_string_equal(text, "t-test: noise floor 9.6% > min_change 2% / 4");

	/* No spread at all: the resolution is the floor (1 in 1000 = 0.1%). */
	assert_int_equal(bg_judge_rule(ctx, flat, 3, 0.02, 1.0, &r), 0);
	assert_true(r.deterministic);
	assert_close(r.noise_floor, 0.001, 1e-15);
	assert_int_equal(bg_judge_rule(ctx, flat, 3, 0.002, 1.0, &r), 0);
	assert_false(r.deterministic);
	assert_int_equal(bg_judge_rule(ctx, flat, 3, 0.02, 0.0, &r), 0);
	assert_true(r.deterministic);
	assert_close(r.noise_floor + 1.0, 1.0, 0);

	/* A zero mean has no relative floor. */
	assert_int_equal(bg_judge_rule(ctx, zero, 2, 0.02, 0.0, &r), 0);
	assert_false(r.deterministic);
	assert_true(isnan(r.noise_floor));
	bg_rule_text(text, sizeof(text), &r);
	assert_string_equal(text, "t-test: no noise floor (a zero mean), min_change 2%");

	assert_int_equal(bg_judge_rule(ctx, count, 1, 0.001, 1.0, &r), BG_EINPUT);
	assert_int_equal(bg_judge_rule(ctx, bad, 2, 0.001, 1.0, &r), BG_EINPUT);
	assert_int_equal(bg_judge_rule(ctx, count, 4, -1.0, 1.0, &r), BG_EINPUT);
	assert_int_equal(bg_judge_rule(ctx, count, 4, 0.001, -1.0, &r), BG_EINPUT);

	/* What bg_judge decides for the same runs as baseline and again as
	 * the candidate (8 runs in all, enough to trust a floor): the same
	 * rule and floor. */
	{
		static const bg_thresholds th = { 0.01, 1, 0.02, 0.8, NULL, 0 };
		bg_judge_input in;
		bg_judgement j;
		const double *sets[2] = { count, times };
		const double mcs[2] = { 0.001, 0.02 };
		size_t k;

		for (k = 0; k < 2; k++) {
			memset(&in, 0, sizeof(in));
			in.design = BG_DESIGN_ROLLING;
			in.base = sets[k];
			in.n_base = 4;
			in.cur = sets[k];
			in.n_cur = 4;
			in.min_change = mcs[k];
			in.resolution = 1.0;
			assert_int_equal(bg_judge(ctx, &in, 1, &th, th.alpha, &j), 0);
			assert_int_equal(bg_judge_rule(ctx, sets[k], 4, mcs[k], 1.0, &r), 0);
			assert_int_equal(j.deterministic, r.deterministic);
			assert_close(j.noise_floor, r.noise_floor, 1e-12);
		}
	}
	bg_ctx_free(ctx);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_components),
		cmocka_unit_test(test_runs_needed),
		cmocka_unit_test(test_unequal_samples),
		cmocka_unit_test(test_samples_boundaries),
		cmocka_unit_test(test_single_samples),
		cmocka_unit_test(test_zero_mean_and_errors),
		cmocka_unit_test(test_rule),
	};
	return cmocka_run_group_tests_name("calibrate", tests, NULL, NULL);
}
