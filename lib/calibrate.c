/*
 * calibrate.c -- how noisy a series is, and what it costs to judge it.
 *
 * `calibrate` runs the suite k times at one commit.  A run mean then varies
 * for two reasons: the samples inside a run scatter (within-run variance,
 * which more samples per run average away) and whole runs shift (between-run
 * variance: frequency, placement, page cache, which only more runs average
 * away).  The one-way random-effects decomposition separates the two:
 *
 *   E[var(run means)] = s2_between + s2_within * mean(1 / n_k)
 *
 * (the sample variance of independent means with variances s2_between +
 * s2_within / n_k has as expectation the average of those variances), so
 * s2_between = max(0, var(run means) - s2_within * mean(1 / n_k)), with
 * s2_within pooled over runs weighted by their degrees of freedom.  With
 * equal n this is var(m) - s2_within / n, the textbook ANOVA estimate.
 *
 * The MDE is the one the verdict reports (lib/stats.c): one candidate run
 * against a window of W run means, one-sided alpha, 80% power:
 * (t(1 - alpha, W - 1) + t(0.8, W - 1)) * sd * sqrt(1 + 1/W) / |mean|.
 * The t quantiles come from lib/stats.c (GSL); the rest is arithmetic.
 */
#include <math.h>
#include <string.h>

#include "internal.h"

#define MAX_SUGGESTION 1000

/* MDE factor of a window: (t(1-alpha) + t(0.8)) * sqrt(1 + 1/W), df W - 1. */
static double mde_factor(double alpha, int window)
{
	double df = (double)(window - 1);

	return (bg_stats_t_quantile(1.0 - alpha, df) + bg_stats_t_quantile(0.8, df)) *
	       sqrt(1.0 + 1.0 / (double)window);
}

/*
 * The smallest m with s2_within / m <= s2_between / 4: past it, a run mean's
 * variance is mostly between-run noise and more samples buy little.  The
 * ratio is corrected by comparing the very inequality, so that 4 * 1 / 1
 * rounding to 4.0000000001 still gives 4.
 */
static int suggest_samples(double s2_within, double s2_between)
{
	double ratio;
	int m;

	if (!(s2_within > 0.0))
		return 1;
	if (!(s2_between > 0.0))
		return MAX_SUGGESTION;
	ratio = 4.0 * s2_within / s2_between;
	if (!(ratio < (double)MAX_SUGGESTION))
		return MAX_SUGGESTION;
	m = (int)ceil(ratio);
	if (m < 1)
		m = 1;
	while (m > 1 && s2_within / (double)(m - 1) <= s2_between / 4.0)
		m--;
	while (m < MAX_SUGGESTION && s2_within / (double)m > s2_between / 4.0)
		m++;
	return m;
}

/* The smallest window in [2, 1000] whose MDE is at most `change`; 0 if none. */
static int windows_needed(double alpha, double sd, double mean, double change)
{
	/* At least 3: a window of 2 against one candidate run leaves the
	 * test one degree of freedom, and no effect size at all (Hedges'
	 * correction is 0 there): min_effect could not apply. */
	int lo = 3, hi = MAX_SUGGESTION;

	if (!(sd > 0.0))
		return lo;
	/* The factor falls as the window grows (both quantiles fall with df). */
	if (mde_factor(alpha, hi) * sd / fabs(mean) > change)
		return 0;
	while (lo < hi) {
		int mid = lo + (hi - lo) / 2;

		if (mde_factor(alpha, mid) * sd / fabs(mean) <= change)
			hi = mid;
		else
			lo = mid + 1;
	}
	return lo;
}

int bg_calibrate(bg_ctx *ctx, const bg_summary *runs, size_t nruns, double alpha, int window,
                 double change, bg_calibration *out)
{
	double k = (double)nruns, sum = 0.0, ss = 0.0, pooled = 0.0, df = 0.0, inv_n = 0.0;
	double n_total = 0.0, var_m, var_pred;
	size_t i;

	BG_NEED_N(ctx, runs, nruns);
	BG_NEED(ctx, out);

	memset(out, 0, sizeof(*out));
	if (nruns < 2)
		return bg_error_set(ctx, BG_EINPUT,
		                    "calibration needs at least 2 runs of a series (got %zu)",
		                    nruns);
	if (!(alpha > 0.0 && alpha < 1.0) || window < 2 || !(change > 0.0))
		return bg_error_set(
		        ctx, BG_EINPUT,
		        "calibration needs 0 < alpha < 1, a window >= 2 and a change > 0 "
		        "(got %g, %d, %g)",
		        alpha, window, change);
	for (i = 0; i < nruns; i++) {
		if (runs[i].n < 1 || !isfinite(runs[i].mean) || !isfinite(runs[i].stddev))
			return bg_error_set(ctx, BG_EINPUT,
			                    "run %zu of the calibration has no finite summary", i);
		sum += runs[i].mean;
	}
	out->runs = nruns;
	out->mean = sum / k;
	for (i = 0; i < nruns; i++) {
		double d = runs[i].mean - out->mean, n = (double)runs[i].n;

		ss += d * d;
		n_total += n;
		inv_n += 1.0 / n;
		/* A run of one sample says nothing about within-run scatter. */
		if (runs[i].n >= 2) {
			pooled += (n - 1.0) * runs[i].stddev * runs[i].stddev;
			df += n - 1.0;
		}
	}
	var_m = ss / (k - 1.0);
	out->samples = n_total / k;
	out->s2_within = df > 0.0 ? pooled / df : NAN;
	if (isnan(out->s2_within)) {
		out->s2_between = var_m;
		out->samples_suggested = 0;
		var_pred = var_m;
	} else {
		out->s2_between = fmax(0.0, var_m - out->s2_within * inv_n / k);
		out->samples_suggested = suggest_samples(out->s2_within, out->s2_between);
		/* A run mean's variance once runs take the suggested samples. */
		var_pred = out->s2_between + out->s2_within / (double)out->samples_suggested;
	}
	if (!(fabs(out->mean) > 0.0)) {
		out->run_cv = out->within_cv = out->mde = NAN;
		out->runs_needed = -1;
		return 0;
	}
	out->run_cv = sqrt(var_m) / fabs(out->mean);
	out->within_cv = sqrt(out->s2_within) / fabs(out->mean);
	out->mde = mde_factor(alpha, window) * sqrt(var_m) / fabs(out->mean);
	out->runs_needed = windows_needed(alpha, sqrt(var_pred), out->mean, change);
	return 0;
}
