/*
 * stats.c -- statistics, the only module that uses GSL.
 *
 * For now: the per-run summary of a series (mean, median, sample standard
 * deviation, min, max).  The verdict's tests (Welch, Hedges' g, BH) come
 * with the gate issue and live here too.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include <gsl/gsl_sort.h>
#include <gsl/gsl_statistics_double.h>

#include "internal.h"

int bg_stats_summarize(bg_ctx *ctx, const double *values, size_t n, bg_summary *out)
{
	double *sorted;
	size_t i;

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
	out->stddev = n > 1 ? gsl_stats_sd_m(values, 1, n, out->mean) : 0.0;
	out->min = sorted[0];
	out->max = sorted[n - 1];
	free(sorted);
	return 0;
}
