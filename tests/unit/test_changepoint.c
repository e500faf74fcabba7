/*
 * test_changepoint.c -- change-point detection on generated histories with
 * known steps: steps are found within one run of the truth, flat histories
 * give on average far fewer than one false step per ten series, and one far
 * run is never a step.  The histories come from
 * a small seeded generator (splitmix64 and Box-Muller), so every run of the
 * test sees the same numbers.
 */
#include <math.h>

#include "unit.h"

typedef struct {
	uint64_t s;
	int have;
	double spare;
} rng;

static uint64_t splitmix64(rng *r)
{
	uint64_t z = (r->s += 0x9E3779B97F4A7C15ull);

	z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
	z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
	return z ^ (z >> 31);
}

/* Uniform in (0, 1). */
static double uniform(rng *r)
{
	return ((double)(splitmix64(r) >> 11) + 0.5) / 9007199254740992.0;
}

static double gauss(rng *r)
{
	double u, v;

	if (r->have) {
		r->have = 0;
		return r->spare;
	}
	u = uniform(r);
	v = uniform(r);
	r->spare = sqrt(-2.0 * log(u)) * sin(2.0 * M_PI * v);
	r->have = 1;
	return sqrt(-2.0 * log(u)) * cos(2.0 * M_PI * v);
}

/* n run means of level 1 with run-to-run CV `cv`, the level multiplied by
 * (1 + step[k]) from run at[k] on. */
static void history(uint64_t seed, double *x, size_t n, double cv, const size_t *at,
                    const double *step, size_t nsteps)
{
	rng r = { seed * 0x2545F4914F6CDD1Dull + 1, 0, 0.0 };
	double level = 1.0;
	size_t i, k = 0;

	for (i = 0; i < n; i++) {
		while (k < nsteps && at[k] == i)
			level *= 1.0 + step[k++];
		x[i] = level * (1.0 + cv * gauss(&r));
	}
}

static const bg_changepoint_opts opts = { 5, 0.01, 0.02 };

static void find(const double *x, size_t n, bg_changepoints *cp)
{
	bg_ctx *ctx = NULL;

	assert_int_equal(bg_ctx_new(&ctx), 0);
	assert_int_equal(bg_changepoints_find(ctx, x, n, &opts, cp), 0);
	bg_ctx_free(ctx);
}

/*
 * Steps: +5% at run 40, -3% at run 90, CV 1%: in every one of 200
 * histories both steps and no third, each within one run of the truth in at
 * least 97% of them and never farther than 3.  (No estimator does better:
 * for a 3-sigma step, two neighbouring runs' noise outweighs the step about
 * once in a hundred; 2,000 seeds gave 98.0%.)
 */
static void test_known_steps(void **state)
{
	static const size_t at[] = { 40, 90 };
	static const double step[] = { 0.05, -0.03 };
	double x[200];
	uint64_t seed;
	size_t within = 0, exact = 0;

	(void)state;
	for (seed = 1; seed <= 200; seed++) {
		bg_changepoints cp;
		long e0, e1;

		history(seed, x, 200, 0.01, at, step, 2);
		find(x, 200, &cp);
		if (cp.npoints != 2)
			fail_msg("seed %llu: %zu steps found", (unsigned long long)seed,
			         cp.npoints);
		e0 = (long)cp.points[0].index - 40;
		e1 = (long)cp.points[1].index - 90;
		if (labs(e0) > 3 || labs(e1) > 3)
			fail_msg("seed %llu: steps at %zu and %zu, not 40 and 90",
			         (unsigned long long)seed, cp.points[0].index, cp.points[1].index);
		within += labs(e0) <= 1 && labs(e1) <= 1;
		exact += !e0 && !e1;
		/* The sizes are the levels' own. */
		assert_true(fabs(cp.points[0].change - 0.05) < 0.01);
		assert_true(fabs(cp.points[1].change + 0.03) < 0.01);
		assert_true(cp.points[0].p < 1e-6 && cp.points[1].p < 1e-6);
		bg_changepoints_clear(&cp);
	}
	print_message("# steps: %zu of 200 within one run, %zu exact\n", within, exact);
	assert_true(within >= 194);
	assert_true(exact >= 150);
}

/* Flat histories of 200 runs, CV 1%: on average fewer than one
 * false step per ten series (measured over 500). */
static void test_flat_histories(void **state)
{
	static const bg_changepoint_opts any_size = { 5, 0.01, 0.0 };
	double x[200];
	uint64_t seed;
	size_t steps = 0, sig = 0;
	bg_ctx *ctx = NULL;

	(void)state;
	assert_int_equal(bg_ctx_new(&ctx), 0);
	for (seed = 1000; seed < 1500; seed++) {
		bg_changepoints cp;

		history(seed, x, 200, 0.01, NULL, NULL, 0);
		find(x, 200, &cp);
		steps += cp.npoints;
		bg_changepoints_clear(&cp);
		/* The significance test alone, without the size floor, holds too. */
		assert_int_equal(bg_changepoints_find(ctx, x, 200, &any_size, &cp), 0);
		sig += cp.npoints;
		bg_changepoints_clear(&cp);
	}
	bg_ctx_free(ctx);
	print_message("# flat: %zu false steps in 500 series of 200 runs (%zu without "
	              "min_change)\n",
	              steps, sig);
	assert_true(steps * 10 < 500);
	assert_true(sig * 10 < 500);
}

/* Outliers: one run far out (2% to 100% away, either way, anywhere) is
 * not a step; the filter names it. */
static void test_single_outlier(void **state)
{
	static const double sizes[] = { 0.03, 0.05, 0.1, 0.3, 1.0, -0.05, -0.3 };
	static const size_t where[] = { 0, 3, 5, 100, 194, 199 };
	double x[200];
	size_t i, j;

	(void)state;
	for (i = 0; i < BG_ARRAY_SIZE(sizes); i++)
		for (j = 0; j < BG_ARRAY_SIZE(where); j++) {
			bg_changepoints cp;
			uint64_t seed = 7 + i * 31 + j;

			history(seed, x, 200, 0.01, NULL, NULL, 0);
			x[where[j]] *= 1.0 + sizes[i];
			find(x, 200, &cp);
			if (cp.npoints)
				fail_msg("outlier %+.0f%% at run %zu: step at %zu", 100 * sizes[i],
				         where[j], cp.points[0].index);
			if (fabs(sizes[i]) >= 0.1) {
				size_t k, named = 0;
				for (k = 0; k < cp.noutliers; k++)
					named |= cp.outliers[k] == where[j];
				assert_true(named);
			}
			bg_changepoints_clear(&cp);
		}
}

/* Values that repeat (a cycle of three, counts that rarely move) give a
 * median successive difference of zero: runs off their neighbours' median
 * are not outliers for that, and a run far out still is. */
static void test_quantized(void **state)
{
	double x[40];
	bg_changepoints cp;
	size_t i;

	(void)state;
	for (i = 0; i < 12; i++)
		x[i] = 10.0 + 0.1 * (double)(i % 3);
	find(x, 12, &cp);
	assert_int_equal(cp.noutliers, 0);
	assert_int_equal(cp.npoints, 0);
	bg_changepoints_clear(&cp);

	for (i = 0; i < 40; i++)
		x[i] = 1000.0;
	x[7] = x[23] = 1001.0; /* a count one off, twice */
	x[30] = 1500.0;        /* and one run far out */
	find(x, 40, &cp);
	assert_int_equal(cp.npoints, 0);
	assert_int_equal(cp.noutliers, 1);
	assert_int_equal(cp.outliers[0], 30);
	bg_changepoints_clear(&cp);
}

/* A far run next to a real step changes neither the step nor its place. */
static void test_outlier_beside_step(void **state)
{
	static const size_t at[] = { 60 };
	static const double step[] = { 0.05 };
	double x[120];
	bg_changepoints cp;

	(void)state;
	history(42, x, 120, 0.01, at, step, 1);
	x[58] *= 1.5;
	find(x, 120, &cp);
	assert_int_equal(cp.npoints, 1);
	assert_true(cp.points[0].index >= 59 && cp.points[0].index <= 61);
	bg_changepoints_clear(&cp);
}

/* A plateau of min_segment runs is a level (two steps); a burst of fewer is not. */
static void test_min_segment(void **state)
{
	double x[100];
	bg_changepoints cp;
	size_t i;

	(void)state;
	history(5, x, 100, 0.01, NULL, NULL, 0);
	for (i = 50; i < 54; i++)
		x[i] *= 1.2;
	find(x, 100, &cp);
	assert_int_equal(cp.npoints, 0);
	bg_changepoints_clear(&cp);
	x[54] *= 1.2;
	find(x, 100, &cp);
	assert_int_equal(cp.npoints, 2);
	assert_int_equal(cp.points[0].index, 50);
	assert_int_equal(cp.points[1].index, 55);
	bg_changepoints_clear(&cp);
}

/*
 * A level of 5 to 8 runs between two others, +10% at 0.3% noise, anywhere in
 * a series of 20, 24 or 30 runs, is two steps at its ends.  Intervals laid
 * at half-overlapping starts tried only some split positions: in 20 runs,
 * 10 of the 19 places a level of 7 can lie were missed.
 */
static void test_short_levels_anywhere(void **state)
{
	static const size_t lengths[] = { 20, 24, 30 };
	double x[30];
	size_t li, len, from, i, missed = 0, tried = 0;

	(void)state;
	for (li = 0; li < BG_ARRAY_SIZE(lengths); li++) {
		size_t n = lengths[li];

		for (len = 5; len <= 8; len++) {
			for (from = 5; from + len + 5 <= n; from++) {
				bg_changepoints cp;
				int ok;

				history(n * 100 + len * 10 + from, x, n, 0.003, NULL, NULL, 0);
				for (i = from; i < from + len; i++)
					x[i] *= 1.10;
				find(x, n, &cp);
				ok = cp.npoints == 2 && cp.points[0].index == from &&
				     cp.points[1].index == from + len;
				if (!ok)
					print_message("# missed: n %zu, level of %zu from run %zu "
					              "(%zu steps)\n",
					              n, len, from, cp.npoints);
				missed += !ok;
				tried++;
				bg_changepoints_clear(&cp);
			}
		}
	}
	print_message("# short levels: %zu of %zu placements missed\n", missed, tried);
	assert_int_equal(missed, 0);
}

/*
 * A step fewer than min_segment runs from the end is not there yet: with
 * 4 runs after a tripling, the nearest place with 5 after it (one run
 * early, its range holding no change) was reported.  With 5 after, it is
 * at its place; and a clear step stays when a larger one follows too near
 * the end to be placed.
 */
static void test_step_near_the_end(void **state)
{
	static const size_t at8[] = { 8 }, at12[] = { 12 }, abc[] = { 15, 30 };
	static const double triple[] = { 2.0 }, two[] = { 0.3, 1.0 };
	double x[33];
	bg_changepoints cp;
	uint64_t seed;

	(void)state;
	for (seed = 1; seed <= 50; seed++) {
		history(seed, x, 12, 0.01, at8, triple, 1);
		find(x, 12, &cp);
		if (cp.npoints != 0)
			fail_msg("seed %llu: 4 runs after the step: a step at %zu",
			         (unsigned long long)seed, cp.points[0].index);
		bg_changepoints_clear(&cp);
		history(seed, x, 17, 0.01, at12, triple, 1);
		find(x, 17, &cp);
		assert_int_equal(cp.npoints, 1);
		assert_int_equal(cp.points[0].index, 12);
		bg_changepoints_clear(&cp);
		/* +30% after 15 runs, then x2 with 3 runs left: the first stands. */
		history(seed, x, 33, 0.01, abc, two, 2);
		find(x, 33, &cp);
		assert_int_equal(cp.npoints, 1);
		assert_int_equal(cp.points[0].index, 15);
		bg_changepoints_clear(&cp);
	}
}

/*
 * A level at either end shorter than min_segment (the newest commits'
 * level before five runs follow it, or the oldest one's where a report's
 * period starts inside a level) bounds the level beside it.  Left inside
 * that level, it made its step fail, and each step before it failed in
 * turn: a history stepping +30% and back every 6 runs, with 4 runs of the
 * next level at the end, had no steps at all.  Every phase of the levels
 * and every length of the end, small and long: each step with min_segment
 * runs on both sides is found, at its run.
 */
static void test_short_end_levels(void **state)
{
	static const size_t lengths[] = { 120, 121, 122, 123, 124, 125, 6004 };
	double *x = malloc(6004 * sizeof(*x));
	bg_changepoints cp;
	size_t off, l, i, k, want;
	uint64_t seed;

	(void)state;
	assert_non_null(x);
	for (seed = 1; seed <= 4; seed++)
		for (off = 0; off < 6; off++)
			for (l = 0; l < sizeof(lengths) / sizeof(*lengths); l++) {
				size_t n = lengths[l];
				rng r = { seed * 0x2545F4914F6CDD1Dull + off, 0, 0.0 };

				for (i = 0; i < n; i++)
					x[i] = ((i + off) / 6 % 2 ? 1.3 : 1.0) *
					       (1.0 + 0.005 * gauss(&r));
				find(x, n, &cp);
				for (i = 5, k = 0, want = 0; i + 5 <= n; i++) {
					if ((i + off) % 6)
						continue;
					want++;
					if (k < cp.npoints && cp.points[k].index == i)
						k++;
				}
				if (k != want || cp.npoints != want)
					fail_msg("seed %llu, phase %zu, %zu runs: %zu steps, %zu "
					         "of the %zu "
					         "in place",
					         (unsigned long long)seed, off, n, cp.npoints, k,
					         want);
				bg_changepoints_clear(&cp);
			}
	free(x);
}

/*
 * A level of 6 runs that step 2 misses (its p is corrected for every split
 * position of the series: about 800,000 in 32,000 runs) sat inside the
 * levels beside it.  Their steps failed, and dropping each made the next
 * one fail: this history, stepping +30% and back every 6 runs at 1% noise,
 * lost all of its 5,332 steps (so did 3 of the next 5 seeds).  The levels
 * of a dropped step are searched again on their own, where the missed
 * level is found, and every step stands.
 */
static void test_missed_level(void **state)
{
	const size_t n = 32000;
	double *x = malloc(n * sizeof(*x));
	bg_changepoints cp;
	size_t i, k, want;
	rng r = { 1, 0, 0.0 };

	(void)state;
	assert_non_null(x);
	for (i = 0; i < n; i++)
		x[i] = (i / 6 % 2 ? 1.3 : 1.0) * (1.0 + 0.01 * gauss(&r));
	find(x, n, &cp);
	for (i = 5, k = 0, want = 0; i + 5 <= n; i++) {
		if (i % 6)
			continue;
		want++;
		if (k < cp.npoints && cp.points[k].index == i)
			k++;
	}
	if (k != want || cp.npoints != want)
		fail_msg("%zu steps, %zu of the %zu in place", cp.npoints, k, want);
	bg_changepoints_clear(&cp);
	free(x);
}

/*
 * Noise that grows with the level: a series 10 (or 3) times faster after
 * its 60th run, at 2% noise.  Measured in seconds over the whole history,
 * the noise was mostly the fast level's, and a fifth to a third of the
 * slow runs were replaced as outliers; by logarithms none is, and the one
 * step is found at its run.
 */
static void test_noise_grows_with_level(void **state)
{
	static const size_t at[] = { 60 };
	static const double faster[] = { -0.9, -2.0 / 3.0 };
	double x[200];
	bg_changepoints cp;
	uint64_t seed;
	size_t f;

	(void)state;
	for (f = 0; f < 2; f++)
		for (seed = 1; seed <= 20; seed++) {
			history(seed, x, 200, 0.02, at, &faster[f], 1);
			find(x, 200, &cp);
			if (cp.noutliers != 0 || cp.npoints != 1 || cp.points[0].index != 60)
				fail_msg("seed %llu, %.0fx faster: %zu outliers, %zu steps",
				         (unsigned long long)seed, 1.0 / (1.0 + faster[f]),
				         cp.noutliers, cp.npoints);
			bg_changepoints_clear(&cp);
		}
}

/*
 * Runs of two modes: each run, at random, at one of two levels 10% apart
 * (code layout, ASLR), 0.3% noise within a mode, a fifth or half of the runs
 * at the slower one.  The filter took the slower mode's runs for outliers
 * and replaced them with their neighbours' median, which turned chance
 * clusters of them into flat levels, judged against one mode's noise: 97
 * of 300 such histories with a fifth slow had false steps (p as low as
 * 1e-110), 160 of 300 with half.  Flat, none is a step and few runs are
 * called outliers; a step of +15% under the same noise is found, within
 * min_segment runs of its place (a slow run or two just before it are as
 * likely the new level's).
 */
static void test_two_modes(void **state)
{
	static const double shares[] = { 0.2, 0.5 };
	const size_t n = 150;
	double x[150];
	size_t si, i, steps = 0, replaced = 0, found = 0, tried = 0;
	uint64_t seed;

	(void)state;
	for (si = 0; si < BG_ARRAY_SIZE(shares); si++)
		for (seed = 1; seed <= 40; seed++) {
			rng r = { seed * 0x2545F4914F6CDD1Dull + si, 0, 0.0 };
			bg_changepoints cp;

			for (i = 0; i < n; i++) {
				x[i] = 1.0 + 0.003 * gauss(&r);
				if (uniform(&r) < shares[si])
					x[i] *= 1.10;
			}
			find(x, n, &cp);
			if (cp.npoints)
				print_message(
				        "# %.0f%% slow, seed %llu: %zu false steps, the first "
				        "at %zu (p %.2g)\n",
				        100 * shares[si], (unsigned long long)seed, cp.npoints,
				        cp.points[0].index, cp.points[0].p);
			steps += cp.npoints;
			replaced += cp.noutliers;
			bg_changepoints_clear(&cp);

			for (i = 75; i < n; i++)
				x[i] *= 1.15;
			find(x, n, &cp);
			found += cp.npoints == 1 && cp.points[0].index >= 70 &&
			         cp.points[0].index <= 80;
			tried++;
			bg_changepoints_clear(&cp);
		}
	print_message("# two modes: %zu false steps in %zu flat series, %zu runs of %zu called "
	              "outliers; +15%% found in %zu\n",
	              steps, tried, replaced, tried * n, found);
	assert_int_equal(steps, 0);
	assert_true(replaced * 50 < tried * n);
	assert_int_equal(found, tried);
}

/*
 * Far runs that are rare are still the filter's: five runs 50% slower at
 * random places (two of them near each other, now and then) in 150 at 1%
 * noise are no step, and a +5% step among them is found at its run.
 */
static void test_rare_spikes(void **state)
{
	static const size_t at[] = { 75 };
	static const double step[] = { 0.05 };
	double x[150];
	size_t k;
	uint64_t seed;

	(void)state;
	for (seed = 1; seed <= 40; seed++) {
		rng r = { seed * 0x9E3779B97F4A7C15ull + 3, 0, 0.0 };
		size_t where[5];
		bg_changepoints cp;

		for (k = 0; k < 5; k++)
			where[k] = (size_t)(uniform(&r) * 150.0);
		history(seed + 500, x, 150, 0.01, NULL, NULL, 0);
		for (k = 0; k < 5; k++)
			x[where[k]] *= 1.5;
		find(x, 150, &cp);
		if (cp.npoints)
			fail_msg("seed %llu: a step at %zu", (unsigned long long)seed,
			         cp.points[0].index);
		bg_changepoints_clear(&cp);

		history(seed + 500, x, 150, 0.01, at, step, 1);
		for (k = 0; k < 5; k++)
			x[where[k]] *= 1.5;
		find(x, 150, &cp);
		if (cp.npoints != 1 || cp.points[0].index < 74 || cp.points[0].index > 76)
			fail_msg("seed %llu: %zu steps, the first at %zu", (unsigned long long)seed,
			         cp.npoints, cp.npoints ? cp.points[0].index : 0);
		bg_changepoints_clear(&cp);
	}
}

/* A step smaller than min_change is not reported, however sure. */
static void test_min_change(void **state)
{
	static const size_t at[] = { 100 };
	static const double step[] = { 0.01 };
	double x[200];
	bg_changepoints cp;

	(void)state;
	history(9, x, 200, 0.001, at, step, 1);
	find(x, 200, &cp);
	assert_int_equal(cp.npoints, 0);
	bg_changepoints_clear(&cp);
}

static void test_edges(void **state)
{
	double x[12] = { 1, 1, 1, 1, 1, 1, 2, 2, 2, 2, 2, 2 }, bad[3] = { 1, NAN, 1 };
	bg_changepoint_opts o = { 1, 0.01, 0.0 };
	bg_changepoints cp;
	bg_ctx *ctx = NULL;

	(void)state;
	assert_int_equal(bg_ctx_new(&ctx), 0);
	/* Constant levels: certain. */
	assert_int_equal(bg_changepoints_find(ctx, x, 12, NULL, &cp), 0);
	assert_int_equal(cp.npoints, 1);
	assert_int_equal(cp.points[0].index, 6);
	assert_true(!(cp.points[0].p > 0.0) && fabs(cp.points[0].change - 1.0) < 1e-12);
	bg_changepoints_clear(&cp);
	/* Too short for two segments; empty. */
	assert_int_equal(bg_changepoints_find(ctx, x, 9, NULL, &cp), 0);
	assert_int_equal(cp.npoints, 0);
	bg_changepoints_clear(&cp);
	assert_int_equal(bg_changepoints_find(ctx, x, 0, NULL, &cp), 0);
	assert_int_equal(cp.npoints, 0);
	bg_changepoints_clear(&cp);
	assert_int_equal(bg_changepoints_find(ctx, bad, 3, NULL, &cp), BG_EINPUT);
	assert_non_null(strstr(bg_ctx_error(ctx), "value 1 is not finite"));
	assert_int_equal(bg_changepoints_find(ctx, x, 12, &o, &cp), BG_EINPUT);
	bg_changepoints_clear(&cp);
	bg_changepoints_clear(NULL);
	bg_ctx_free(ctx);
}

/* A level that leaves zero (0 allocs/op, then 2) moves by more than any
 * min_change: its relative change is unbounded (NAN), not too small. */
static void test_from_zero(void **state)
{
	double x[20];
	bg_changepoints cp;
	size_t i;

	(void)state;
	for (i = 0; i < 20; i++)
		x[i] = i < 10 ? 0.0 : 2.0;
	find(x, 20, &cp);
	assert_int_equal(cp.npoints, 1);
	assert_int_equal(cp.points[0].index, 10);
	assert_true(fabs(cp.points[0].before) < 1e-12 && fabs(cp.points[0].after - 2.0) < 1e-12);
	assert_true(isnan(cp.points[0].change));
	bg_changepoints_clear(&cp);
	/* ... and back to zero is -100%, as it always was. */
	for (i = 0; i < 20; i++)
		x[i] = i < 10 ? 2.0 : 0.0;
	find(x, 20, &cp);
	assert_int_equal(cp.npoints, 1);
	assert_true(fabs(cp.points[0].change + 1.0) < 1e-12);
	bg_changepoints_clear(&cp);
	/* Zero throughout, or zero with one far run: no step. */
	for (i = 0; i < 20; i++)
		x[i] = i == 12 ? 2.0 : 0.0;
	find(x, 20, &cp);
	assert_int_equal(cp.npoints, 0);
	bg_changepoints_clear(&cp);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_known_steps),
		cmocka_unit_test(test_flat_histories),
		cmocka_unit_test(test_single_outlier),
		cmocka_unit_test(test_outlier_beside_step),
		cmocka_unit_test(test_min_segment),
		cmocka_unit_test(test_short_levels_anywhere),
		cmocka_unit_test(test_step_near_the_end),
		cmocka_unit_test(test_short_end_levels),
		cmocka_unit_test(test_missed_level),
		cmocka_unit_test(test_noise_grows_with_level),
		cmocka_unit_test(test_two_modes),
		cmocka_unit_test(test_rare_spikes),
		cmocka_unit_test(test_min_change),
		cmocka_unit_test(test_edges),
		cmocka_unit_test(test_from_zero),
		cmocka_unit_test(test_quantized),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
