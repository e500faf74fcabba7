/*
 * verdict.c -- the verdict's rule, once.
 *
 * Every command that judges hands run summaries to bg_judge: check and ci
 * (a rolling baseline of earlier runs), compare, bisect's ends and ci's
 * confirmation (interleaved pairs), report (the check replayed along a
 * history).  Here the test is chosen by the design, the p-values of a
 * family are adjusted together (Benjamini-Hochberg, regressions and
 * improvements apart), the thresholds are applied, the change is labelled
 * one way whatever the metric's direction, and a series that the data
 * cannot yet decide is marked so that ci can measure it again: the worse
 * way when a regression of min_change is not excluded (the 90% upper
 * bound reaches it), the better way when it moved by min_change.  The looks
 * of a sequential measurement, and the share of alpha each one gets, are
 * here too, so that ci, compare and bisect look at the same points.
 *
 * Near-deterministic series.  A simulated instruction count repeats to a
 * few parts per million: the t-test has (almost) no variance to work with,
 * and calls any systematic shift of a few instructions certain, while a
 * suite-wide min_change of 2% is far too coarse for it.  So each series
 * has its own min_change (bg_thresholds_min_change: 0.1% for instructions)
 * and a noise floor f, relative to the baseline mean:
 *
 *   f = max(resolution / |baseline mean|, observed spread)
 *
 * where the spread is, rolling, the larger range (max - min) of the
 * baseline's and the candidate's run means over |baseline mean|, and,
 * paired, the range of the pairs' log ratios; the resolution is the
 * instrument's smallest step (1 for a count).  A range, not an SD: it is
 * the whole of what was seen, and no distribution is assumed for what is
 * mostly rounding.  When f <= min_change / 4 (every zero-variance series
 * among them), over at least 4 pairs or 6 runs in all unless f is the
 * spread of identical values (floor_trusted: a few values' range is often
 * small by chance), the series is near-deterministic and the threshold alone
 * decides: regression iff the oriented change (mean against mean, or the
 * geometric mean ratio of the pairs) is >= min_change, improvement iff it
 * is <= -min_change (and moved at all, for a min_change of 0), else
 * unchanged; its bounds are change -/+ f, so it is undecided only when
 * change + f reaches min_change above a change that does not.  A change
 * of min_change is then at least four noise floors: no A/A run can reach
 * it, and min_effect (a change over an SD that is at most the range) is
 * met by construction.  Such a series has no p-values (NAN) and is left
 * out of the Benjamini-Hochberg family, so the others' adjusted p are as
 * if it were absent.  Every other series takes the t-test, as before.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "internal.h"

double bg_change_oriented(double d, bg_direction dir)
{
	return (dir == BG_DIR_HIGHER ? -d : d) + 0.0;
}

double bg_change_from_log(double m, bg_direction dir)
{
	/* m is oriented: the value's own log ratio is -m for higher-is-better. */
	return bg_change_oriented(expm1(dir == BG_DIR_HIGHER ? -m : m), dir);
}

size_t bg_looks(size_t first, size_t max, size_t *sizes)
{
	size_t n = 0, k = first ? first : 1;

	if (max < k)
		max = k;
	while (k < max && n + 1 < BG_MAX_LOOKS) {
		if (sizes)
			sizes[n] = k;
		n++;
		k *= 2;
	}
	if (sizes)
		sizes[n] = max;
	return n + 1;
}

size_t bg_verdict__reach(int window)
{
	return (size_t)window + (size_t)window / 4 + 1;
}

int bg_verdict__baseline(bg_ctx *ctx, double *base, size_t *n, int window, size_t *removed)
{
	size_t w = window > 0 && *n > (size_t)window ? (size_t)window : *n;
	int error;

	/* One run far outside the others (a neighbour's burst on a shared
	 * machine) is left out of the estimate and reported, not silently
	 * kept or lost.  Only the window is screened: the spare runs behind it
	 * are read to refill it after a removal and are otherwise no part of
	 * the baseline, so a far run among them neither shields a far run in
	 * the window (as the second of two, a tail) nor counts as left out.
	 * The run that refills the window is not screened in turn, which could
	 * leave out a second run; it is held to the rule instead: when it lies
	 * far from the others too, there are two far runs, a tail, and the
	 * window stays as it was. */
	if ((error = bg_stats__drop_outliers_window(ctx, base, n, w, BG_OUTLIER_SIGMAS, removed)) <
	    0)
		return error;
	if (*n > w)
		*n = w;
	return 0;
}

/* The BG_SCREEN_CONFIDENCE quantile of t at df: inputs judged together
 * mostly share their df (the window), and an inversion costs more than a test. */
typedef struct {
	double df, q;
} screen_cache;

static double screen_q(screen_cache *c, double df)
{
	/* df is a count of runs or pairs less one: the same df is the same bits. */
	if (memcmp(&c->df, &df, sizeof(df)) != 0) {
		c->df = df;
		c->q = bg_stats_t_quantile(BG_SCREEN_CONFIDENCE, df);
	}
	return c->q;
}

/* The test of one input, and its one-sided bounds at BG_SCREEN_CONFIDENCE. */
static int test_one(bg_ctx *ctx, const bg_judge_input *in, const bg_thresholds *th,
                    bg_stats_cache *cache, screen_cache *sc, bg_judgement *j)
{
	double q, m;
	int error;

	if (in->design == BG_DESIGN_PAIRED) {
		if ((error = bg_stats_paired_t(ctx, in->cur, in->base, in->n_cur, in->direction,
		                               th->alpha, &j->test)) < 0)
			return error;
		/* The oriented mean log ratio, back from the geometric mean ratio. */
		m = bg_change_oriented(log1p(j->test.delta), in->direction);
		q = screen_q(sc, j->test.df);
		j->lo = bg_change_from_log(m - q * j->test.se, in->direction);
		j->hi = bg_change_from_log(m + q * j->test.se, in->direction);
		j->sd_one = j->test.se * sqrt((double)j->test.n_cur);
		return 0;
	}
	if ((error = bg_stats_compare_cached(ctx, in->base, in->n_base, in->cur, in->n_cur,
	                                     in->direction, th->alpha, cache, &j->test)) < 0)
		return error;
	if (fabs(j->test.base_mean) > 0) {
		double rel = j->test.se / fabs(j->test.base_mean);

		q = screen_q(sc, j->test.df);
		j->lo = j->test.change - q * rel;
		j->hi = j->test.change + q * rel;
		j->sd_one = j->test.base_sd / fabs(j->test.base_mean);
	} else if (!(fabs(j->test.cur_mean) > 0) && !(j->test.base_sd > 0) &&
	           !(j->test.cur_sd > 0)) {
		/* 0 on both sides, every time (0 allocs/op): no change at all,
		 * as sure as it gets; a sequential look clears it. */
		j->lo = j->hi = j->sd_one = 0.0;
	} else {
		j->lo = j->hi = j->sd_one = NAN;
	}
	return 0;
}

double bg_thresholds_min_change(const bg_thresholds *th, const char *benchmark, const char *metric,
                                const char *instrument)
{
	double suite = NAN, parent = NAN, d;
	size_t i, longest = 0;

	if (!th)
		return NAN;
	for (i = 0; metric && i < th->nmetrics; i++) {
		const bg_metric_threshold *m = &th->metrics[i];
		size_t len;

		if (strcmp(m->metric, metric) != 0)
			continue;
		if (!m->benchmark) {
			suite = m->min_change;
			continue;
		}
		if (!benchmark)
			continue;
		if (!strcmp(m->benchmark, benchmark))
			return m->min_change; /* the benchmark's own entry comes first */
		/* The series a parser made for the benchmark ("<name>/<x>", as
		 * its direction override reaches them); the nearest name wins. */
		len = strlen(m->benchmark);
		if (len > longest && !strncmp(benchmark, m->benchmark, len) &&
		    benchmark[len] == '/') {
			parent = m->min_change;
			longest = len;
		}
	}
	if (!isnan(parent))
		return parent;
	if (!isnan(suite))
		return suite;
	d = bg_instrument__min_change(instrument, metric);
	return isnan(d) ? th->min_change : d;
}

/* The threshold of one input: its own, else the thresholds'. */
static double input_min_change(const bg_judge_input *in, const bg_thresholds *th)
{
	return in->min_change > 0 ? in->min_change : th->min_change;
}

/*
 * The relative noise floor from an observed relative spread: at least the
 * resolution over |mean|; NAN when the mean is 0 or the spread unknown.
 */
static double noise_floor(double spread, double resolution, double mean)
{
	double r;

	if (!(fabs(mean) > 0) || isnan(spread))
		return NAN;
	r = resolution / fabs(mean);
	return spread > r ? spread : r;
}

/* max - min of v[0..n), n >= 1 (inf when it overflows). */
static double range_of(const double *v, size_t n)
{
	double lo = v[0], hi = v[0];
	size_t i;

	for (i = 1; i < n; i++) {
		if (v[i] < lo)
			lo = v[i];
		if (v[i] > hi)
			hi = v[i];
	}
	return hi - lo;
}

/* The range of the pairs' log ratios (values positive, as the test needs). */
static double log_ratio_range(const double *cur, const double *ref, size_t n)
{
	double lo = INFINITY, hi = -INFINITY;
	size_t k;

	for (k = 0; k < n; k++) {
		double r = cur[k] / ref[k];
		/* As the paired test takes it: past the doubles' range, logs apart. */
		double l = isfinite(r) && r > 0 ? log(r) : log(cur[k]) - log(ref[k]);

		if (l < lo)
			lo = l;
		if (l > hi)
			hi = l;
	}
	return hi - lo;
}

/*
 * Whether the spread an input shows is evidence enough to call it
 * near-deterministic.  The range of a few values is often small by chance:
 * where the noise is far above min_change, the change reaches four ranges
 * in 8% of paired judgements of 2 pairs and in 14% of rolling ones of 2
 * runs against 1 (normal noise, simulated), flags the t-test would not
 * raise.  From 4 pairs, or 6 runs on the two sides together, it is under
 * 0.1%, a tenth of the default alpha.  A spread of exactly 0, a series
 * with no variance to test, is what the rule is for, whatever the count.
 */
static int floor_trusted(const bg_judge_input *in)
{
	/* A range is >= 0: "not above 0" is exactly 0, without comparing
	 * doubles for equality. */
	if (in->design == BG_DESIGN_PAIRED)
		return in->n_cur >= 4 || !(log_ratio_range(in->cur, in->base, in->n_cur) > 0);
	return in->n_base + in->n_cur >= 6 ||
	       (!(range_of(in->base, in->n_base) > 0) && !(range_of(in->cur, in->n_cur) > 0));
}

/* The noise floor of a tested input (j->test filled by test_one). */
static double input_floor(const bg_judge_input *in, const bg_judgement *j)
{
	double mean = j->test.base_mean, spread;

	if (!(fabs(mean) > 0))
		return NAN;
	if (in->design == BG_DESIGN_PAIRED) {
		spread = log_ratio_range(in->cur, in->base, in->n_cur);
	} else {
		double rb = range_of(in->base, in->n_base), rc = range_of(in->cur, in->n_cur);

		spread = (rb > rc ? rb : rc) / fabs(mean);
	}
	return noise_floor(spread, in->resolution, mean);
}

int bg_judge_rule(bg_ctx *ctx, const double *v, size_t n, double min_change, double resolution,
                  bg_rule *out)
{
	double mean = 0.0;
	size_t i;

	BG_NEED_N(ctx, v, n);
	BG_NEED(ctx, out);

	memset(out, 0, sizeof(*out));
	out->noise_floor = NAN;
	out->min_change = min_change;
	if (n < 2)
		return bg_error_set(ctx, BG_EINPUT, "the rule needs at least 2 runs (got %zu)", n);
	if (!(min_change >= 0) || !(resolution >= 0) || !isfinite(resolution))
		return bg_error_set(ctx, BG_EINPUT,
		                    "min_change and resolution must be >= 0 (got %g, %g)",
		                    min_change, resolution);
	for (i = 0; i < n; i++) {
		if (!isfinite(v[i]))
			return bg_error_set(ctx, BG_EINPUT, "run %zu's value is not finite (%g)", i,
			                    v[i]);
		/* Each share apart: values near DBL_MAX would overflow the sum. */
		mean += v[i] / (double)n;
	}
	out->noise_floor =
	        noise_floor(fabs(mean) > 0 ? range_of(v, n) / fabs(mean) : NAN, resolution, mean);
	out->deterministic = out->noise_floor <= min_change / 4;
	return 0;
}

/* A relative figure as a short percentage: 4e-6 -> "0.0004%". */
static void short_pct(char *buf, size_t len, double v)
{
	if (isfinite(v))
		snprintf(buf, len, "%.2g%%", 100.0 * v);
	else
		snprintf(buf, len, "-");
}

void bg_rule_text(char *buf, size_t len, const bg_rule *rule)
{
	char f[32], m[32];

	if (!buf || !len)
		return;
	if (!rule) {
		buf[0] = '\0';
		return;
	}
	short_pct(f, sizeof(f), rule->noise_floor);
	short_pct(m, sizeof(m), rule->min_change);
	if (rule->deterministic)
		snprintf(buf, len, "near-deterministic: noise floor %s, min_change %s", f, m);
	else if (isnan(rule->noise_floor))
		snprintf(buf, len, "t-test: no noise floor (a zero mean), min_change %s", m);
	else
		snprintf(buf, len, "t-test: noise floor %s > min_change %s / 4", f, m);
}

int bg_verdict__from_zero(double rel, double base_mean, double cur_mean)
{
	return isnan(rel) && !(fabs(base_mean) > 0.0) && fabs(cur_mean) > 0.0;
}

/* A move away from a baseline mean of exactly zero: unbounded, so beyond
 * any min_change. */
static int from_zero(const bg_test *t)
{
	return bg_verdict__from_zero(t->change, t->base_mean, t->cur_mean);
}

int bg_judge(bg_ctx *ctx, const bg_judge_input *in, size_t n, const bg_thresholds *th, double level,
             bg_judgement *out)
{
	double *p = NULL;
	size_t i;
	int error = 0;

	BG_NEED_N(ctx, in, n);
	BG_NEED(ctx, th);
	BG_NEED(ctx, out);

	if (!(th->alpha > 0 && th->alpha < 1) || !(level > 0 && level < 1))
		return bg_error_set(ctx, BG_EINPUT, "alpha must be between 0 and 1 (got %g, %g)",
		                    th->alpha, level);
	if (!(th->min_change >= 0 && th->min_change < BG_MIN_CHANGE_LIMIT) ||
	    !(th->min_effect >= 0))
		return bg_error_set(ctx, BG_EINPUT,
		                    "min_change must be from 0 to below 1 and min_effect >= 0 "
		                    "(got %g, %g)",
		                    th->min_change, th->min_effect);
	if (!(p = malloc(4 * (n ? n : 1) * sizeof(double))))
		return bg_error_oom(ctx);
	{
		double *pw = p, *pb = p + n, *aw = p + 2 * n, *ab = p + 3 * n;
		bg_stats_cache cache;
		screen_cache sc = { NAN, NAN };
		bg_saved_error saved;

		memset(&cache, 0, sizeof(cache));
		/* A series that cannot be judged gets its reason; the call does
		 * not fail for it, so the caller's message stays. */
		bg_ctx__save_error(ctx, &saved);
		for (i = 0; i < n; i++) {
			bg_judgement *j = &out[i];

			memset(j, 0, sizeof(*j));
			j->verdict = BG_VERDICT_NO_BASELINE;
			j->p_adjusted = j->p_better_adjusted = j->lo = j->hi = j->sd_one = NAN;
			j->min_change = j->noise_floor = NAN;
			j->direction = in[i].direction;
			pw[i] = pb[i] = NAN;
			if (!(isnan(in[i].min_change) || in[i].min_change >= 0) ||
			    !(in[i].resolution >= 0) || !isfinite(in[i].resolution)) {
				error = bg_error_set(ctx, BG_EINPUT,
				                     "input %zu: min_change and resolution must be "
				                     ">= 0 (got %g, %g)",
				                     i, in[i].min_change, in[i].resolution);
				goto cleanup;
			}
			if (!in[i].n_base)
				continue;
			/* The caller's mistake, not values that cannot be judged:
			 * no skipped verdict for it. */
			if (!in[i].base || (!in[i].cur && in[i].n_cur)) {
				error = bg_error_set(ctx, BG_EINPUT, "%s: input %zu: %s is NULL",
				                     __func__, i, in[i].base ? "cur" : "base");
				goto cleanup;
			}
			if (in[i].design == BG_DESIGN_PAIRED && in[i].n_cur != in[i].n_base) {
				error = bg_error_set(
				        ctx, BG_EINPUT,
				        "a paired judgement needs as many runs on each "
				        "side (got %zu and %zu)",
				        in[i].n_base, in[i].n_cur);
				goto cleanup;
			}
			if ((error = test_one(ctx, &in[i], th, &cache, &sc, j)) < 0) {
				if (error != BG_EINPUT)
					goto cleanup;
				/* Values this series cannot be judged on (one not finite,
				 * from a file an older benchguard wrote): its own verdict
				 * and reason, outside the family; the others are judged
				 * as ever.  Every finite value can be (stats.c scales). */
				j->verdict = BG_VERDICT_SKIPPED;
				snprintf(j->reason, sizeof(j->reason), "cannot be judged: %s",
				         bg_ctx_error(ctx));
				bg_ctx__restore_error(ctx, &saved);
				error = 0;
				continue;
			}
			j->verdict = BG_VERDICT_UNCHANGED;
			j->min_change = input_min_change(&in[i], th);
			j->noise_floor = input_floor(&in[i], j);
			if (j->noise_floor <= j->min_change / 4 && floor_trusted(&in[i])) {
				/* Near-deterministic: the threshold decides, outside
				 * the family (pw, pb stay NAN). */
				j->deterministic = 1;
				j->test.p_worse = j->test.p_better = NAN;
				j->lo = j->test.change - j->noise_floor;
				j->hi = j->test.change + j->noise_floor;
				continue;
			}
			pw[i] = j->test.p_worse;
			pb[i] = j->test.p_better;
		}
		/* Regressions and improvements are separate families, each held
		 * at the level: a suite's improvements never make a regression
		 * easier to call. */
		if (th->fdr) {
			if ((error = bg_stats_bh(ctx, pw, n, aw)) < 0 ||
			    (error = bg_stats_bh(ctx, pb, n, ab)) < 0)
				goto cleanup;
		} else {
			memcpy(aw, pw, n * sizeof(double));
			memcpy(ab, pb, n * sizeof(double));
		}
		for (i = 0; i < n; i++) {
			bg_judgement *j = &out[i];
			const bg_test *t = &j->test;
			double mc = j->min_change;

			if (j->verdict != BG_VERDICT_UNCHANGED)
				continue;
			if (j->deterministic) {
				/* "Moved at all" matters only for a min_change of 0. */
				if (t->change >= mc && t->change > 0)
					j->verdict = BG_VERDICT_REGRESSION;
				else if (t->change <= -mc && t->change < 0)
					j->verdict = BG_VERDICT_IMPROVEMENT;
				else {
					j->undecided = j->hi >= mc;
					j->undecided_better = j->lo <= -mc;
				}
				continue;
			}
			j->p_adjusted = aw[i];
			j->p_better_adjusted = ab[i];
			/*
			 * A baseline mean of zero has no relative change (NAN): a
			 * move away from it (0 -> 2 allocs/op) is larger than any
			 * min_change, and the test and the effect, whose sign is
			 * the direction, decide alone.  A NAN change otherwise
			 * fails every comparison.  A NAN effect (three runs in all:
			 * one degree of freedom, no estimate) leaves the p-value
			 * and min_change to decide: an effect of 0 there would
			 * clear any change.
			 */
			if (aw[i] < level && (t->change >= mc || from_zero(t)) &&
			    (t->effect >= th->min_effect || isnan(t->effect)))
				j->verdict = BG_VERDICT_REGRESSION;
			else if (ab[i] < level && (t->change <= -mc || from_zero(t)) &&
			         (t->effect <= -th->min_effect || isnan(t->effect)))
				j->verdict = BG_VERDICT_IMPROVEMENT;
			else {
				j->undecided = j->hi >= mc;
				j->undecided_better = t->change <= -mc;
			}
		}
	}
cleanup:
	free(p);
	return error;
}

int bg_sequential_decide(const bg_judgement *j, size_t look, size_t looks, size_t max,
                         const bg_thresholds *th, double level, int *worse, int *better,
                         bg_verdict *verdict, bg_confirm_status *status)
{
	double floor_change, q, r;
	double floor_worse, floor_better;

	if (!j || !th || !worse || !better || !verdict || !status)
		return BG_EINPUT;
	floor_change = j->min_change > 0 ? j->min_change : th->min_change;
	if (j->verdict == BG_VERDICT_NO_BASELINE || j->verdict == BG_VERDICT_SKIPPED) {
		/* Fewer than two pairs have the series, or its values cannot be
		 * judged: nothing to decide on. */
		*verdict = j->verdict;
		*status = BG_CONFIRM_NONE;
		return look >= looks;
	}
	if (j->verdict == BG_VERDICT_REGRESSION || j->verdict == BG_VERDICT_IMPROVEMENT) {
		*verdict = j->verdict;
		*status = BG_CONFIRM_FOUND;
		return 1;
	}
	*verdict = BG_VERDICT_UNCHANGED;
	/* A direction the caller closed (the first check, against runs made at
	 * other times, ruled it out) that these pairs show -- their bound lies
	 * beyond min_change on that side -- is not cleared: "cleared" of a
	 * slowdown the pairs measured (+5.9% in 4 pairs) vouches for what the
	 * evidence denies.  Undecided, and no flag: testing the direction now
	 * would pick series by the data it is tested on, and a suite's
	 * false-alarm rate went from 1 to 5 in 100 A/A runs when it did. */
	if ((!*worse && j->lo >= floor_change) || (!*better && j->hi <= -floor_change)) {
		*status = BG_CONFIRM_UNDECIDED;
		return 1;
	}
	/* Cleared: the open directions' bounds lie within min_change. */
	if ((!*worse || j->hi < floor_change) && (!*better || j->lo > -floor_change)) {
		*status = BG_CONFIRM_CLEARED;
		return 1;
	}
	*status = BG_CONFIRM_UNDECIDED;
	/* A near-deterministic series' bounds are its noise floor, a range:
	 * more pairs only widen it.  Undecided now is undecided at the cap. */
	if (look >= looks || j->deterministic)
		return 1;
	/* A change the cap could not show is not worth pursuing: before the
	 * last look the bound is held to the larger of min_change and what
	 * `max` pairs could detect with 90% power at this level, and what
	 * falls below is undecided.  A stop without a flag cannot add a false
	 * alarm, whatever rule decides it.  The reach r is a log ratio,
	 * symmetric; as a change it is not: +r is e^r - 1 worse for a time
	 * but 1 - e^-r worse for a rate, and -r the other way round.  Each
	 * side is mapped as lo and hi were, or a throughput's regression (and
	 * a time's improvement) would be dropped while the cap could show it. */
	floor_worse = floor_better = floor_change;
	if (isfinite(j->sd_one) && max >= 2) {
		q = bg_stats_t_quantile(1.0 - level, (double)max - 1) +
		    bg_stats_t_quantile(BG_SCREEN_CONFIDENCE, (double)max - 1);
		r = q * j->sd_one / sqrt((double)max);
		floor_worse = fmax(floor_change, bg_change_from_log(r, j->direction));
		floor_better = fmax(floor_change, -bg_change_from_log(-r, j->direction));
	}
	if (*worse && j->hi < floor_worse)
		*worse = 0;
	if (*better && j->lo > -floor_better)
		*better = 0;
	return !*worse && !*better;
}
