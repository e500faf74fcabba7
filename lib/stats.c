/*
 * stats.c -- statistics, the only module that uses GSL.
 *
 * The per-run summary of a series, and the verdict's statistics: Welch's
 * t-test of run means (or, for fewer than BG_WELCH_MIN_RUNS candidate runs,
 * the test with the baseline's variance), Hedges' g, the minimum detectable effect and
 * Benjamini-Hochberg adjustment.  Every distribution function comes from GSL.
 *
 * GSL's default error handler aborts the process, which a library must
 * never do, and swapping the handler would touch process-wide state.  So
 * inputs are checked before they reach GSL, and only functions that do not
 * raise errors on valid input are used (the t CDFs, gsl_cdf_tdist_Qinv).
 */
#include <float.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include <gsl/gsl_cdf.h>
#include <gsl/gsl_sort.h>
#include <gsl/gsl_statistics_double.h>

#include "internal.h"

/*
 * Extreme magnitudes.  The statistics of the verdict (t, p, the relative
 * change, the effect, df) do not change when every value is multiplied by
 * one constant, but their sums and squares do overflow (two values near
 * 1e308) or underflow (squares of 1e-200 are 0, which reads as "no noise").
 * So values whose largest magnitude lies outside [2^-400, 2^400] are first
 * multiplied by a power of two that brings it into [0.5, 1): exact, and
 * nothing of that size can overflow or lose its squares.  Values inside the
 * range, every real measurement, are used as they are, to the bit.
 */
#define SCALE_LIMIT 400

/* The exponent e with the largest |v| of both sides = f * 2^e, f in [0.5, 1);
 * 0 when no scaling is needed. */
static int scale_exponent(const double *a, size_t na, const double *b, size_t nb)
{
	double m = 0.0;
	size_t i;
	int e;

	/* A comparison, not fmax: that is a libm call per value, and every
	 * test of a report's 200,000 comes here.  A NaN is skipped either way. */
	for (i = 0; i < na; i++)
		if (fabs(a[i]) > m)
			m = fabs(a[i]);
	for (i = 0; i < nb; i++)
		if (fabs(b[i]) > m)
			m = fabs(b[i]);
	if (!(m > 0.0))
		return 0;
	frexp(m, &e);
	return e > SCALE_LIMIT || e < -SCALE_LIMIT ? e : 0;
}

/* v[0..n) times 2^-e, malloc'd (NULL when out of memory). */
static double *scaled_copy(const double *v, size_t n, int e)
{
	double *c = malloc((n ? n : 1) * sizeof(double));
	size_t i;

	for (i = 0; c && i < n; i++)
		c[i] = ldexp(v[i], -e);
	return c;
}

int bg_stats_summarize(bg_ctx *ctx, const double *values, size_t n, bg_summary *out)
{
	double *sorted;
	size_t i;

	BG_NEED_N(ctx, values, n);
	BG_NEED(ctx, out);

	memset(out, 0, sizeof(*out));
	if (n == 0)
		return bg_error_set(ctx, BG_EINPUT, "no samples to summarize");
	for (i = 0; i < n; i++)
		if (!isfinite(values[i]))
			return bg_error_set(ctx, BG_EINPUT, "sample %zu is not finite", i);
	sorted = malloc(n * sizeof(double));
	if (!sorted)
		return bg_error_oom(ctx);
	memcpy(sorted, values, n * sizeof(double));
	gsl_sort(sorted, 1, n);
	out->n = n;
	out->mean = gsl_stats_mean(values, 1, n);
	out->median = gsl_stats_median_from_sorted_data(sorted, 1, n);
	/* Two middle values near DBL_MAX overflow their sum: halve each first. */
	if (!isfinite(out->median))
		out->median = sorted[(n - 1) / 2] / 2.0 + sorted[n / 2] / 2.0;
	out->stddev = n > 1 ? gsl_stats_sd_m(values, 1, n, out->mean) : 0.0;
	{
		/* GSL's variance of values near 1e308 overflows on its way back to
		 * a double, and that of values near 1e-300 underflows to 0. */
		int e = scale_exponent(values, n, NULL, 0);
		double *c;

		if (e != 0) {
			if (!(c = scaled_copy(values, n, e))) {
				free(sorted);
				return bg_error_oom(ctx);
			}
			out->mean = ldexp(gsl_stats_mean(c, 1, n), e);
			out->stddev = n > 1 ? ldexp(gsl_stats_sd(c, 1, n), e) : 0.0;
			free(c);
		}
	}
	out->min = sorted[0];
	out->max = sorted[n - 1];
	out->robust_mean = out->mean;
	if (n >= 4) {
		/*
		 * Tukey's outer fences: only "far out" values, and only a few of
		 * them, at most one in BG_FAR_SAMPLES_PER (one at least).  More
		 * are a mode of the benchmark itself (cache misses, a collector's
		 * pauses): left out, a slow mode growing from 0% to 20% of the
		 * samples (a mean 181% higher) read as unchanged, and a quantised
		 * timer's equal quartiles, which put every other value outside,
		 * read 10 and 11 us as 10 where a fifth were 11 and as 10.3 where
		 * three tenths were.
		 */
		double q1 = gsl_stats_quantile_from_sorted_data(sorted, 1, n, 0.25);
		double q3 = gsl_stats_quantile_from_sorted_data(sorted, 1, n, 0.75);
		double lo = q1 - 3.0 * (q3 - q1), hi = q3 + 3.0 * (q3 - q1), sum = 0.0;
		size_t kept = 0, most = n / BG_FAR_SAMPLES_PER ? n / BG_FAR_SAMPLES_PER : 1;

		for (i = 0; i < n; i++) {
			if (sorted[i] < lo || sorted[i] > hi)
				continue;
			sum += sorted[i];
			kept++;
		}
		/* kept > 0 always: the quartiles themselves lie inside the fences. */
		out->outliers = n - kept;
		if (out->outliers > most)
			out->outliers = 0;
		if (out->outliers)
			out->robust_mean = sum / (double)kept;
		/* The kept values are a run of `sorted`; GSL's running mean of
		 * them cannot overflow where their sum did. */
		if (!isfinite(out->robust_mean)) {
			for (i = 0; sorted[i] < lo; i++)
				;
			out->robust_mean = gsl_stats_mean(sorted + i, 1, kept);
		}
	}
	free(sorted);
	return 0;
}

double bg_stats_t_quantile(double prob, double df)
{
	if (!(prob >= 0.0 && prob <= 1.0) || !(df > 0.0) || isinf(df))
		return NAN;
	/*
	 * gsl_cdf_tdist_Pinv raises GSL's (aborting) error when its Newton
	 * iteration misses its tolerance, which happens for tails below ~1e-43
	 * (df 468, p 3e-44, for one).  gsl_cdf_tdist_Qinv is the same
	 * algorithm without that check, and Pinv(p) = -Qinv(p) by symmetry.
	 */
	return prob < 0.5 ? -gsl_cdf_tdist_Qinv(prob, df) : gsl_cdf_tdist_Qinv(1.0 - prob, df);
}

/*
 * Both one-sided p-values of t: the small tail computed, the other its
 * complement.  Each CDF costs more than the rest of a test (a report
 * replays 200,000), and the complement of a tail near 0 loses nothing a p
 * near 1 is shown or compared with.
 */
static void tails(double t, double df, double *worse, double *better)
{
	if (t >= 0) {
		*worse = gsl_cdf_tdist_Q(t, df);
		*better = 1.0 - *worse;
	} else {
		*better = gsl_cdf_tdist_P(t, df);
		*worse = 1.0 - *better;
	}
}

/*
 * Mean and sample SD (0 for one value) of v[0..n), n >= 1, in two plain
 * passes: the sum, then the squared deviations from its mean, so values far
 * from zero lose nothing to cancellation.  gsl_stats_mean/sd_m keep a
 * running mean with a division per value, a dependent chain that made them
 * most of a test's cost when a report replays 200,000 of them; the results
 * agree to the last few bits.  Equal values are exact: their mean is the
 * value and their SD 0.  Summed, ten runs of 0.1 s (100 ms) came to a mean
 * a bit below 0.1 and an SD of 1.5e-17, which took the baseline for a
 * noisy one, and the same runs in another unit for a constant one.
 */
static void mean_sd(const double *v, size_t n, double *mean, double *sd)
{
	double sum = 0.0, ss = 0.0, m;
	size_t i, same = 1;

	for (i = 0; i < n; i++) {
		sum += v[i];
		same += i > 0 && !(v[i] < v[0]) && !(v[i] > v[0]);
	}
	if (same == n) {
		*mean = v[0];
		*sd = 0.0;
		return;
	}
	m = sum / (double)n;
	for (i = 0; i < n; i++)
		ss += (v[i] - m) * (v[i] - m);
	*mean = m;
	*sd = n > 1 ? sqrt(ss / (double)(n - 1)) : 0.0;
}

/* -1, 0 or +1: the sign of x, without comparing doubles for equality. */
static int sign_of(double x)
{
	return (x > 0.0) - (x < 0.0);
}

/* x turned so that positive is worse; + 0.0 makes a -0.0 print as 0. */
static double oriented(double x, bg_direction dir)
{
	return (dir == BG_DIR_HIGHER ? -x : x) + 0.0;
}

static int check_finite(bg_ctx *ctx, const char *side, const double *v, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++)
		if (!isfinite(v[i]))
			return bg_error_set(ctx, BG_EINPUT, "%s value %zu is not finite (%g)", side,
			                    i, v[i]);
	return 0;
}

/*
 * Hedges' g from summaries: pooled SD over both sides (a side of one value
 * adds no variance term), times the small-sample correction
 * J = 1 - 3 / (4 (n_a + n_b) - 9) (Hedges 1981; Hedges & Olkin 1985, eq. 5.4.10).
 * With no variance at all the standardized difference is infinite, or 0 when
 * the means agree.  Needs n_a + n_b >= 3; NAN at exactly 3 with any spread.
 */
static double hedges_g(double mean_a, double sd_a, size_t n_a, double mean_b, double sd_b,
                       size_t n_b)
{
	double dfp = (double)(n_a + n_b - 2);
	double diff = mean_b - mean_a;
	/* hypot keeps tiny or huge SDs from under- or overflowing when squared. */
	double sp =
	        hypot(sd_a * sqrt((double)(n_a - 1) / dfp), sd_b * sqrt((double)(n_b - 1) / dfp));
	double j = 1.0 - 3.0 / (4.0 * (double)(n_a + n_b) - 9.0);

	if (!(sp > 0.0))
		return sign_of(diff) ? sign_of(diff) * INFINITY : 0.0;
	/* Three values leave one degree of freedom, where J is 0: not an
	 * effect of 0 (which would veto any change, +895% included), but no
	 * estimate at all. */
	if (!(j > 0.0))
		return NAN;
	return j * (diff / sp);
}

int bg_stats_hedges_g(bg_ctx *ctx, const double *a, size_t n_a, const double *b, size_t n_b,
                      double *g)
{
	double ma, mb, sa, sb;
	int error, e;

	BG_NEED_N(ctx, a, n_a);
	BG_NEED_N(ctx, b, n_b);
	BG_NEED(ctx, g);

	*g = NAN;
	if (n_a == 0 || n_b == 0 || n_a + n_b < 3)
		return bg_error_set(
		        ctx, BG_EINPUT,
		        "Hedges' g needs at least 3 values and 1 per side (got %zu and %zu)", n_a,
		        n_b);
	if ((error = check_finite(ctx, "first sample", a, n_a)) < 0 ||
	    (error = check_finite(ctx, "second sample", b, n_b)) < 0)
		return error;
	/* g is a ratio: the same for the values scaled into range. */
	if ((e = scale_exponent(a, n_a, b, n_b)) != 0) {
		double *sa_ = scaled_copy(a, n_a, e), *sb_ = scaled_copy(b, n_b, e);

		if (sa_ && sb_)
			error = bg_stats_hedges_g(ctx, sa_, n_a, sb_, n_b, g);
		else
			error = bg_error_oom(ctx);
		free(sa_);
		free(sb_);
		return error;
	}
	ma = gsl_stats_mean(a, 1, n_a);
	mb = gsl_stats_mean(b, 1, n_b);
	sa = n_a > 1 ? gsl_stats_sd_m(a, 1, n_a, ma) : 0.0;
	sb = n_b > 1 ? gsl_stats_sd_m(b, 1, n_b, mb) : 0.0;
	if (!isfinite(sa) || !isfinite(sb) || !isfinite(mb - ma))
		return bg_error_set(ctx, BG_EINPUT, "values too large for Hedges' g");
	*g = hedges_g(ma, sa, n_a, mb, sb, n_b);
	return 0;
}

/*
 * The baseline's t quantiles for the MDE and the CI.  They depend only on
 * alpha and the baseline's size, and each costs an iterative inversion,
 * more than the whole test: a check of a suite reuses them.
 */
static void quantiles(bg_stats_cache *c, double alpha, double df)
{
	if (c->valid && !memcmp(&c->alpha, &alpha, sizeof(alpha)) &&
	    !memcmp(&c->df, &df, sizeof(df)))
		return;
	c->alpha = alpha;
	c->df = df;
	c->q_detect = gsl_cdf_tdist_Qinv(alpha, df) + gsl_cdf_tdist_Qinv(0.2, df);
	c->q_ci = gsl_cdf_tdist_Qinv(alpha / 2.0, df);
	c->valid = 1;
}

int bg_stats_compare(bg_ctx *ctx, const double *base, size_t n_base, const double *cur,
                     size_t n_cur, bg_direction dir, double alpha, bg_test *out)
{
	bg_stats_cache cache;

	memset(&cache, 0, sizeof(cache));
	return bg_stats_compare_cached(ctx, base, n_base, cur, n_cur, dir, alpha, &cache, out);
}

int bg_stats_compare_cached(bg_ctx *ctx, const double *base, size_t n_base, const double *cur,
                            size_t n_cur, bg_direction dir, double alpha, bg_stats_cache *cache,
                            bg_test *out)
{
	double nb = (double)n_base, nc = (double)n_cur;
	double diff, se, se0, q;
	bg_test r;
	int error, e;

	BG_NEED(ctx, out);
	BG_NEED_N(ctx, base, n_base);
	BG_NEED_N(ctx, cur, n_cur);
	BG_NEED(ctx, cache);
	/* Filled in `r` and copied at the end: a failed call leaves *out zeroed. */
	memset(out, 0, sizeof(*out));
	memset(&r, 0, sizeof(r));
	if (n_base < 2)
		return bg_error_set(ctx, BG_EINPUT,
		                    "the baseline has %zu run(s); at least 2 are needed", n_base);
	if (n_cur < 1)
		return bg_error_set(ctx, BG_EINPUT, "no candidate run to compare");
	if (!(alpha > 0.0 && alpha < 1.0))
		return bg_error_set(ctx, BG_EINPUT, "alpha %g is not between 0 and 1", alpha);
	if ((error = check_finite(ctx, "baseline", base, n_base)) < 0 ||
	    (error = check_finite(ctx, "candidate", cur, n_cur)) < 0)
		return error;
	if ((e = scale_exponent(base, n_base, cur, n_cur)) != 0) {
		double *sb = scaled_copy(base, n_base, e), *sc = scaled_copy(cur, n_cur, e);

		if (sb && sc)
			error = bg_stats_compare_cached(ctx, sb, n_base, sc, n_cur, dir, alpha,
			                                cache, out);
		else
			error = bg_error_oom(ctx);
		free(sb);
		free(sc);
		if (error < 0)
			return error;
		/* Back to the values' own units; the rest is scale-free. */
		out->base_mean = ldexp(out->base_mean, e);
		out->cur_mean = ldexp(out->cur_mean, e);
		out->base_sd = ldexp(out->base_sd, e);
		out->cur_sd = ldexp(out->cur_sd, e);
		out->se = ldexp(out->se, e);
		out->base_ci = ldexp(out->base_ci, e);
		/* Only values of both signs near DBL_MAX spread wider than a
		 * double reaches: refused, not reported as infinite. */
		if (!isfinite(out->base_sd) || !isfinite(out->cur_sd) || !isfinite(out->se)) {
			memset(out, 0, sizeof(*out));
			return bg_error_set(ctx, BG_EINPUT,
			                    "values too large to compare (their spread is "
			                    "beyond the range of a double)");
		}
		return 0;
	}

	r.n_base = n_base;
	r.n_cur = n_cur;
	mean_sd(base, n_base, &r.base_mean, &r.base_sd);
	mean_sd(cur, n_cur, &r.cur_mean, &r.cur_sd);
	diff = r.cur_mean - r.base_mean;
	if (!isfinite(r.base_sd) || !isfinite(r.cur_sd) || !isfinite(diff))
		return bg_error_set(ctx, BG_EINPUT, "values too large to compare");

	if (n_cur == 1 || (n_cur < BG_WELCH_MIN_RUNS && r.base_sd > 0.0)) {
		/*
		 * One run has no variance of its own, and two to four runs estimate
		 * it so poorly that Welch's test turns liberal (simulated A/A false
		 * alarms at alpha 0.01: 4.4% with 2 runs, 2.2% with 3, 1.3% with 5
		 * against 20): borrow the baseline's run-to-run variance, as the
		 * prediction-interval form does.
		 */
		se = r.base_sd * sqrt(1.0 / nc + 1.0 / nb);
		r.df = nb - 1.0;
	} else {
		double eb = r.base_sd / sqrt(nb), ec = r.cur_sd / sqrt(nc);

		se = hypot(eb, ec);
		if (se > 0.0) {
			/* Welch-Satterthwaite, in shares of the variance so it cannot overflow. */
			double rb = (eb / se) * (eb / se), rc = (ec / se) * (ec / se);

			r.df = 1.0 / (rb * rb / (nb - 1.0) + rc * rc / (nc - 1.0));
		} else {
			/* No variance to weigh: report Student's df; p does not use it. */
			r.df = nb + nc - 2.0;
		}
	}

	r.delta = fabs(r.base_mean) > 0.0 ? diff / fabs(r.base_mean) + 0.0 : NAN;
	r.change = oriented(r.delta, dir);
	r.se = se;
	r.effect = oriented(hedges_g(r.base_mean, r.base_sd, n_base, r.cur_mean, r.cur_sd, n_cur),
	                    dir);
	if (se > 0.0) {
		r.t = oriented(diff / se, dir);
		tails(r.t, r.df, &r.p_worse, &r.p_better);
	} else {
		/* Constant data: any difference at all is certain. */
		int s = sign_of(oriented(diff, dir));

		r.t = s ? s * INFINITY : 0.0;
		r.p_worse = s > 0 ? 0.0 : 1.0;
		r.p_better = s < 0 ? 0.0 : 1.0;
	}

	/* Power analysis uses the baseline's own noise, whatever the candidate's. */
	quantiles(cache, alpha, nb - 1.0);
	q = cache->q_detect;
	se0 = r.base_sd * sqrt(1.0 / nc + 1.0 / nb);
	if (!(fabs(r.base_mean) > 0.0))
		r.mde = NAN;
	else if (!(r.base_sd > 0.0))
		r.mde = 0.0;
	else
		r.mde = q * se0 / fabs(r.base_mean);
	r.base_ci = cache->q_ci * r.base_sd / sqrt(nb);
	*out = r;
	return 0;
}

int bg_stats_bh(bg_ctx *ctx, const double *p, size_t n, double *adjusted)
{
	double *vals = NULL, run;
	size_t *order = NULL, *where = NULL;
	size_t i, m = 0, k;
	int error = 0;

	BG_NEED_N(ctx, p, n);
	BG_NEED_N(ctx, adjusted, n);

	for (i = 0; i < n; i++) {
		if (isnan(p[i]))
			continue;
		if (!(p[i] >= 0.0 && p[i] <= 1.0))
			return bg_error_set(ctx, BG_EINPUT,
			                    "p-value %zu (%g) is not between 0 and 1", i, p[i]);
		m++;
	}
	if (m == 0) {
		for (i = 0; i < n; i++)
			adjusted[i] = NAN;
		return 0;
	}

	vals = malloc(m * sizeof(*vals));
	order = malloc(m * sizeof(*order));
	where = malloc(m * sizeof(*where));
	if (!vals || !order || !where) {
		error = bg_error_oom(ctx);
		goto cleanup;
	}
	for (i = 0, k = 0; i < n; i++) {
		if (isnan(p[i]))
			continue;
		vals[k] = p[i];
		where[k++] = i;
	}
	gsl_sort_index(order, vals, 1, m);

	/* Only now, with the p-values copied: `adjusted` may be `p` itself. */
	for (i = 0; i < n; i++)
		adjusted[i] = NAN;
	/* Step-up: from the largest p down, the running minimum of p * m / rank. */
	run = 1.0;
	for (k = m; k > 0; k--) {
		size_t j = order[k - 1];
		double v = (double)m / (double)k * vals[j];

		if (v < run)
			run = v;
		adjusted[where[j]] = run;
	}

cleanup:
	free(vals);
	free(order);
	free(where);
	return error;
}

/*
 * The value of v[0..n) farthest from the mean of the others, and how many
 * standard deviations of the others it lies away (0 when they do not vary:
 * when their SD is within rounding of their mean, so that seven equal runs
 * of 0.1 s, whose mean rounds, are judged as seven of 0.5 s, whose does not).
 * Two passes over v in place, skipping the candidate: every check and every
 * commit of a report screens its baseline this way, and copying the others
 * out for gsl_stats_mean/sd cost more than the arithmetic.
 */
static double farthest(const double *v, size_t n, size_t *where)
{
	double sum = 0.0, far = -1.0, mean, ss = 0.0, sd;
	size_t i, m = n - 1;

	for (i = 0; i < n; i++)
		sum += v[i];
	*where = 0;
	for (i = 0; i < n; i++) {
		double d = fabs(v[i] - (sum - v[i]) / (double)m);
		if (d > far) {
			far = d;
			*where = i;
		}
	}
	/* The mean of the others, then their squared deviations from it (the
	 * two-pass form: no cancellation for values far from zero). */
	mean = (sum - v[*where]) / (double)m;
	for (i = 0; i < n; i++)
		if (i != *where)
			ss += (v[i] - mean) * (v[i] - mean);
	sd = sqrt(ss / (double)(m - 1));
	return sd > 64.0 * DBL_EPSILON * fabs(mean) ? fabs(v[*where] - mean) / sd : 0.0;
}

/*
 * Whether the farthest of m values, `sds` SDs of the others away, is far:
 * beyond k, and beyond where the farthest of m normal values lies but
 * BG_OUTLIER_CHANCE of the time.  For one value, (x - mean of the others)
 * / (SD of the others) is t with m - 2 df times sqrt(1 + 1/(m - 1)); m
 * values give m chances (Bonferroni, tight this far out).  A fixed k alone
 * let clean data lose a run often where there are few: a tenth of the time
 * at 5 values, doubling the false alarms of a window of 5; this rule needs
 * about 18 SDs there, 6.6 at 10, and k from 20 values on.
 */
static int far_enough(double sds, size_t m, double k)
{
	double df = (double)m - 2.0;

	if (!(sds > k))
		return 0;
	return 2.0 * (double)m * gsl_cdf_tdist_Q(sds / sqrt(1.0 + 1.0 / ((double)m - 1.0)), df) <
	       BG_OUTLIER_CHANCE;
}

int bg_stats__drop_outliers_window(bg_ctx *ctx, double *v, size_t *n, size_t m, double k,
                                   size_t *removed)
{
	double x;
	size_t w, w2, rest;

	(void)ctx;
	*removed = 0;
	if (m > *n)
		m = *n;
	if (m < 5 || !far_enough(farthest(v, m, &w), m, k))
		return 0;
	/* One far value is an accident of the machine; two or more are a tail
	 * or a second mode of the benchmark itself, and part of its noise: take
	 * the far one out, and put it back if the rest has another.  The rest
	 * is what would be used in its place: the others, and the first value
	 * behind them moved up to refill v[0..m) where there is one. */
	x = v[w];
	memmove(v + w, v + w + 1, (*n - w - 1) * sizeof(double));
	rest = m < *n ? m : m - 1;
	if (rest < 5 || !far_enough(farthest(v, rest, &w2), rest, k)) {
		(*n)--;
		*removed = 1;
		return 0;
	}
	memmove(v + w + 1, v + w, (*n - w - 1) * sizeof(double));
	v[w] = x;
	return 0;
}

int bg_stats_drop_outliers(bg_ctx *ctx, double *v, size_t *n, double k, size_t *removed)
{
	BG_NEED(ctx, v);
	BG_NEED(ctx, n);
	return bg_stats__drop_outliers_window(ctx, v, n, *n, k, removed);
}

int bg_stats__scale_exponent(const double *v, size_t n)
{
	return scale_exponent(v, n, NULL, 0);
}

double bg_stats__median(double *v, size_t n)
{
	return gsl_stats_median(v, 1, n);
}

double bg_stats_t_upper(double t, double df)
{
	/* GSL's handler prints "domain error" and aborts the process for a df
	 * that is not positive (or NaN); the library must do neither, and
	 * installing our own handler would change the host's GSL. */
	if (isnan(t) || !(df > 0.0))
		return NAN;
	return gsl_cdf_tdist_Q(t, df);
}

int bg_stats_paired_t(bg_ctx *ctx, const double *cur, const double *ref, size_t n, bg_direction dir,
                      double alpha, bg_test *out)
{
	double *lr = NULL, m, sd, se, mad = 0.0;
	bg_test r;
	size_t k, n_all;
	int error;

	BG_NEED_N(ctx, cur, n);
	BG_NEED_N(ctx, ref, n);
	BG_NEED(ctx, out);

	memset(out, 0, sizeof(*out));
	memset(&r, 0, sizeof(r));
	if (n < 2)
		return bg_error_set(ctx, BG_EINPUT,
		                    "a paired test needs at least 2 pairs (got %zu)", n);
	if (!(alpha > 0.0 && alpha < 1.0))
		return bg_error_set(ctx, BG_EINPUT, "alpha %g is not between 0 and 1", alpha);
	if ((error = check_finite(ctx, "baseline", ref, n)) < 0 ||
	    (error = check_finite(ctx, "candidate", cur, n)) < 0)
		return error;
	if (!(lr = malloc(n * sizeof(double))))
		return bg_error_oom(ctx);
	n_all = n;
	for (k = 0; k < n; k++) {
		if (!(cur[k] > 0.0) || !(ref[k] > 0.0)) {
			free(lr);
			return bg_error_set(ctx, BG_EINPUT, "pair %zu: values must be positive",
			                    k + 1);
		}
		lr[k] = cur[k] / ref[k];
		/* A ratio past the doubles' range (1e300 beside 1e-300): its log
		 * is still one. */
		lr[k] = oriented(isfinite(lr[k]) && lr[k] > 0.0 ? log(lr[k])
		                                                : log(cur[k]) - log(ref[k]),
		                 dir);
	}
	/* One pair far outside the others (a run a neighbour slowed) would make
	 * the SD of five pairs useless: left out, by the baseline's rule. */
	{
		size_t kept = n, removed = 0;

		if ((error = bg_stats_drop_outliers(ctx, lr, &kept, BG_OUTLIER_SIGMAS, &removed)) <
		    0) {
			free(lr);
			return error;
		}
		m = gsl_stats_mean(lr, 1, kept);
		sd = gsl_stats_sd_m(lr, 1, kept, m);
		n = kept;
		/*
		 * The effect's yardstick is the typical spread of a pair, robust
		 * to the pairs a neighbour's burst hit: 1.4826 x the median
		 * absolute deviation (the SD for normal data).  With the plain
		 * SD, two burst-hit pairs in 32 pulled a clear 10% change (p
		 * 5e-4) below min_effect; they do not move the median.
		 */
		{
			double *dev = malloc(n * sizeof(double)), med;
			size_t k2;

			if (!dev) {
				free(lr);
				return bg_error_oom(ctx);
			}
			memcpy(dev, lr, n * sizeof(double));
			gsl_sort(dev, 1, n);
			med = gsl_stats_median_from_sorted_data(dev, 1, n);
			for (k2 = 0; k2 < n; k2++)
				dev[k2] = fabs(lr[k2] - med);
			gsl_sort(dev, 1, n);
			mad = 1.4826 * gsl_stats_median_from_sorted_data(dev, 1, n);
			free(dev);
		}
	}
	free(lr);
	/* The sides as measured, every pair (scaled where GSL's variance would
	 * overflow or vanish). */
	{
		int e = scale_exponent(ref, n_all, cur, n_all);
		double *sr = e ? scaled_copy(ref, n_all, e) : NULL;
		double *sc = e ? scaled_copy(cur, n_all, e) : NULL;

		if (e && (!sr || !sc)) {
			free(sr);
			free(sc);
			return bg_error_oom(ctx);
		}
		r.base_mean = gsl_stats_mean(e ? sr : ref, 1, n_all);
		r.base_sd = ldexp(gsl_stats_sd_m(e ? sr : ref, 1, n_all, r.base_mean), e);
		r.base_mean = ldexp(r.base_mean, e);
		r.cur_mean = gsl_stats_mean(e ? sc : cur, 1, n_all);
		r.cur_sd = ldexp(gsl_stats_sd_m(e ? sc : cur, 1, n_all, r.cur_mean), e);
		r.cur_mean = ldexp(r.cur_mean, e);
		free(sr);
		free(sc);
	}
	r.n_base = r.n_cur = n;
	r.df = (double)n - 1.0;
	/* m is oriented; the value's own geometric mean ratio is exp(+-m). */
	r.delta = expm1(dir == BG_DIR_HIGHER ? -m : m) + 0.0;
	r.change = oriented(r.delta, dir);
	se = sd / sqrt((double)n);
	r.se = se;
	if (se > 0.0) {
		r.t = m / se;
		tails(r.t, r.df, &r.p_worse, &r.p_better);
		r.effect = m / (mad > 0.0 ? mad : sd);
	} else {
		int s = sign_of(m);

		r.t = s ? s * INFINITY : 0.0;
		r.p_worse = s > 0 ? 0.0 : 1.0;
		r.p_better = s < 0 ? 0.0 : 1.0;
		r.effect = s ? s * INFINITY : 0.0;
	}
	r.mde = (gsl_cdf_tdist_Qinv(alpha, r.df) + gsl_cdf_tdist_Qinv(0.2, r.df)) * se;
	r.base_ci = gsl_cdf_tdist_Qinv(alpha / 2.0, r.df) * r.base_sd / sqrt((double)n);
	*out = r;
	return 0;
}
