/*
 * bisect.c -- the search behind `benchguard bisect`.
 *
 * A binary search over a first-parent range whose ends are known good and
 * bad, where "good" and "bad" are statistical claims, not exit codes, and
 * "bad" is the new end's level whichever way the series moved: each
 * probed commit is measured (by the caller's callback, which builds, runs
 * and stores) and compared with both ends.  A probe that is clearly like one
 * end is classified at once; one that is not gets more runs, up to a cap, as
 * Chromium's Pinpoint does, before it is given to the nearer end.  Commits
 * that cannot be built are skipped like `git bisect skip`, and when the
 * culprit hides among them the answer is the range, never a guess.
 *
 * An improvement is searched as a regression of the opposite direction:
 * every log ratio is oriented the way the ends moved, so the tests and the
 * nearer-end rule are one code path; figures handed back are labelled in
 * the series' own direction.
 */
#include <limits.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "internal.h"

#define BISECT_RUNS 3
#define BISECT_MAX_RUNS 12

const char *bg_probe_verdict_name(bg_probe_verdict v)
{
	switch (v) {
	case BG_PROBE_GOOD:
		return "good";
	case BG_PROBE_BAD:
		return "bad";
	case BG_PROBE_SKIP:
		return "skip";
	}
	return "?";
}

const char *bg_probe_verdict_term(bg_probe_verdict v, int improvement)
{
	if (improvement && v == BG_PROBE_GOOD)
		return "old";
	if (improvement && v == BG_PROBE_BAD)
		return "new";
	return bg_probe_verdict_name(v);
}

size_t bg_bisect_estimate(size_t n)
{
	size_t k = 0, bits = sizeof(size_t) * CHAR_BIT;

	/* Past 2^(bits-1) the answer is `bits`: a shift by `bits` is undefined
	 * (it wrapped to 1 here, and the loop never ended). */
	while (k < bits && ((size_t)1 << k) < n)
		k++;
	return k;
}

void bg_bisect_result_clear(bg_bisect_result *res)
{
	if (!res)
		return;
	free(res->steps);
	memset(res, 0, sizeof(*res));
}

/* Log ratios, oriented so that positive is worse. */
static double lratio(double v, double ref, bg_direction dir)
{
	double l = log(v / ref);

	return dir == BG_DIR_HIGHER ? -l : l;
}

typedef struct {
	double mean, ss; /* mean and sum of squared deviations of the log ratios */
	size_t n;        /* pairs in the estimate */
	size_t measured; /* pairs measured (n, and an outlier left out) */
} lr_stats;

/*
 * Mean and spread of the log ratios v[k] / ref[k].  One pair far outside the
 * others (a run a neighbour slowed by a third) is left out, by the rule
 * checks use for baseline runs (out->measured still counts it).
 */
static int lr_of(bg_ctx *ctx, const double *v, const double *ref, size_t n, bg_direction dir,
                 lr_stats *out)
{
	double *l = malloc((n ? n : 1) * sizeof(double));
	size_t k, removed = 0;
	int error;

	if (!l)
		return bg_error_oom(ctx);
	for (k = 0; k < n; k++)
		l[k] = lratio(v[k], ref[k], dir);
	if ((error = bg_stats_drop_outliers(ctx, l, &n, BG_OUTLIER_SIGMAS, &removed)) < 0) {
		free(l);
		return error;
	}
	out->measured = n + removed;
	out->n = n;
	out->mean = out->ss = 0;
	for (k = 0; k < n; k++)
		out->mean += l[k];
	out->mean = n ? out->mean / (double)n : NAN;
	for (k = 0; k < n; k++)
		out->ss += (l[k] - out->mean) * (l[k] - out->mean);
	free(l);
	return 0;
}

typedef struct {
	bg_ctx *ctx;
	const bg_bisect_opts *o;
	bg_direction dir; /* the search's orientation: the series' own, reversed
	                     when looking for an improvement */
	int flip;         /* 1 when reversed */
	lr_stats ends;    /* log(bad / good) over the ends' pairs */
	lr_stats *lr;     /* per index, once measured */
	char *skip;       /* per index: cannot be built or run */
	bg_bisect_result *res;
	size_t cap;
} search;

static int add_step(search *s, const bg_bisect_step *st)
{
	bg_bisect_result *r = s->res;

	if (bg_grow((void **)&r->steps, &s->cap, r->nsteps, sizeof(*r->steps)) < 0)
		return bg_error_oom(s->ctx);
	r->steps[r->nsteps++] = *st;
	return 0;
}

/* Pooled SD of two groups of log ratios, and its degrees of freedom. */
static double pooled_sd(const lr_stats *a, const lr_stats *b, double *df)
{
	double dfa = a->n ? (double)a->n - 1 : 0, dfb = b->n ? (double)b->n - 1 : 0;

	*df = dfa + dfb;
	return *df > 0 ? sqrt((a->ss + b->ss) / *df) : NAN;
}

/* One-sided p that `diff` (estimated with standard error se) is above 0. */
static double p_above(double diff, double se, double df)
{
	if (se > 0)
		return bg_stats_t_upper(diff / se, df);
	return diff > 0 ? 0.0 : 1.0;
}

/* Measures c[i] (more pairs until at least `runs`); 1 if it cannot be. */
static int measure(search *s, size_t i, size_t runs, int *reused)
{
	double *v = NULL, *g = NULL;
	size_t n = 0, k;
	int rc;

	rc = s->o->measure(s->ctx, i, runs, s->o->data, &v, &g, &n, reused);
	if (rc == 0) {
		for (k = 0; k < n; k++)
			if (!(v[k] > 0) || !(g[k] > 0) || !isfinite(v[k]) || !isfinite(g[k]))
				rc = bg_error_set(
				        s->ctx, BG_EINPUT,
				        "commit %zu of the range: run summaries must be finite "
				        "and positive",
				        i);
		if (rc == 0 && n == 0)
			rc = 1;
		if (rc == 0)
			rc = lr_of(s->ctx, v, g, n, s->dir, &s->lr[i]);
	}
	free(v);
	free(g);
	if (rc == 1)
		s->skip[i] = 1;
	return rc;
}

/* The log ratio of the search's orientation, labelled in the series' own. */
static double labelled(const search *s, double m)
{
	return bg_change_from_log(s->flip ? -m : m, s->o->direction);
}

/* A measured commit's figures against both ends, from its pairs so far. */
static void figures(const search *s, size_t i, bg_bisect_step *st)
{
	const lr_stats *p = &s->lr[i];
	double df, sd = pooled_sd(&s->ends, p, &df);

	st->runs = st->decided_runs = p->n;
	st->change = labelled(s, p->mean);
	st->p_good = p_above(p->mean, sd / sqrt((double)p->n), df);
	st->p_bad = p_above(s->ends.mean - p->mean,
	                    sd * sqrt(1.0 / (double)p->n + 1.0 / (double)s->ends.n), df);
}

/*
 * Measures and classifies c[i].  Returns 0 with the step filled, or < 0.
 */
static int probe(search *s, size_t i, bg_bisect_step *st)
{
	const bg_bisect_opts *o = s->o;
	size_t runs = o->runs;
	/* A probe is looked at after runs, 2 runs, ... pairs, up to max_runs:
	 * each look at alpha / looks, so that the decision as a whole is
	 * wrong at most alpha of the time, whatever the looks' correlation
	 * (Bonferroni, as bg_pairs_run splits alpha across its looks). */
	double level = o->alpha / (double)((o->max_runs + o->runs - 1) / o->runs);
	int all_reused = 1;

	memset(st, 0, sizeof(*st));
	st->index = i;
	st->change = st->p_good = st->p_bad = NAN;
	for (;;) {
		const lr_stats *p;
		int reused = 0, rc, worse, better;

		if ((rc = measure(s, i, runs, &reused)) < 0)
			return rc;
		if (rc == 1) {
			st->verdict = BG_PROBE_SKIP;
			st->reused = reused;
			return 0;
		}
		p = &s->lr[i];
		all_reused &= reused;
		figures(s, i, st);
		st->reused = all_reused;
		worse = st->p_good < level;
		better = st->p_bad < level;
		if (worse && !better) {
			st->verdict = BG_PROBE_BAD;
			return 0;
		}
		if (better && !worse) {
			st->verdict = BG_PROBE_GOOD;
			return 0;
		}
		if (p->measured >= o->max_runs) {
			/* Still like both ends, or like neither (a step in two
			 * parts): the nearer end is the best guess there is, and
			 * the step says it was one. */
			st->by_distance = 1;
			st->verdict = fabs(p->mean) <= fabs(s->ends.mean - p->mean) ? BG_PROBE_GOOD
			                                                            : BG_PROBE_BAD;
			return 0;
		}
		runs = p->measured + o->runs;
		if (runs > o->max_runs)
			runs = o->max_runs;
	}
}

/* The commit nearest the middle of (lo, hi) not known to be unbuildable; 0 if none. */
static size_t pick(const search *s, size_t lo, size_t hi)
{
	size_t mid = lo + (hi - lo) / 2, d;

	for (d = 0; d < hi - lo; d++) {
		if (mid + d < hi && mid + d > lo && !s->skip[mid + d])
			return mid + d;
		if (d && mid >= lo + d + 1 && !s->skip[mid - d])
			return mid - d;
	}
	return 0;
}

/* Pairs a decided commit (not an end) lacks for the final estimate. */
static size_t short_of(const search *s, size_t i)
{
	if (i == 0 || i == s->o->n || s->lr[i].measured >= s->ends.measured)
		return 0;
	return s->ends.measured - s->lr[i].measured;
}

/* More pairs at a decided commit, for the final estimate; its last step's
 * figures then say what they show (the decision stands as it was made). */
static int top_up(search *s, size_t i)
{
	size_t k, decided;
	int reused = 0, rc;

	if (!short_of(s, i))
		return 0;
	/* measure() asks for pairs measured, the estimate may hold one fewer. */
	rc = measure(s, i, s->ends.measured, &reused);
	if (rc == 1)
		return bg_error_set(s->ctx, BG_ERROR,
		                    "commit %zu of the range could not be measured again", i);
	if (rc < 0)
		return rc;
	for (k = s->res->nsteps; k > 0; k--) {
		bg_bisect_step *st = &s->res->steps[k - 1];

		if (st->index != i)
			continue;
		decided = st->decided_runs;
		figures(s, i, st);
		st->decided_runs = decided;
		st->reused &= reused;
		break;
	}
	return 0;
}

/* The log-ratio summary of c[i]: the ends are 0 (good) and the ends' ratio (bad). */
static lr_stats at(const search *s, size_t i)
{
	lr_stats none = { 0, 0, 0, 0 };

	if (i == 0) {
		/* The good end against itself: its pairs' spread is the ends'. */
		none.n = s->ends.n;
		return none;
	}
	if (i == s->o->n)
		return s->ends;
	return s->lr[i];
}

int bg_bisect_search(bg_ctx *ctx, const bg_bisect_opts *opts, bg_bisect_result *out)
{
	bg_bisect_opts o;
	search s;
	size_t lo = 0, hi, i, k = 0;
	lr_stats a, b;
	double sd, df, diff, se;
	int error = 0;

	BG_NEED(ctx, opts);
	BG_NEED(ctx, out);
	o = *opts;
	memset(out, 0, sizeof(*out));
	memset(&s, 0, sizeof(s));
	if (o.n < 1 || !o.measure || !o.good || !o.bad || o.npairs < 2)
		return bg_error_set(ctx, BG_EINPUT,
		                    "bisect needs a range of at least one commit and two pairs of "
		                    "runs of its ends");
	if (!(o.alpha > 0 && o.alpha < 1))
		return bg_error_set(ctx, BG_EINPUT, "alpha must be between 0 and 1");
	for (i = 0; i < o.npairs; i++)
		if (!(o.good[i] > 0) || !(o.bad[i] > 0) || !isfinite(o.good[i]) ||
		    !isfinite(o.bad[i]))
			return bg_error_set(ctx, BG_EINPUT,
			                    "the ends' run summaries must be finite and positive");
	if (!o.runs)
		o.runs = BISECT_RUNS;
	if (!o.max_runs)
		o.max_runs = BISECT_MAX_RUNS;
	if (o.max_runs < o.runs)
		o.max_runs = o.runs;
	s.ctx = ctx;
	s.o = &o;
	s.res = out;
	s.dir = o.direction;
	if ((error = lr_of(ctx, o.bad, o.good, o.npairs, o.direction, &s.ends)) < 0)
		return error;
	/* Looking for an improvement: the same search, the other way up. */
	s.flip = o.want == BG_BISECT_BETTER || (o.want == BG_BISECT_AUTO && s.ends.mean < 0);
	if ((o.want == BG_BISECT_WORSE && s.ends.mean < 0) ||
	    (o.want == BG_BISECT_BETTER && s.ends.mean > 0))
		return bg_error_set(ctx, BG_EINPUT,
		                    "the bad end is %s than the good end: there is no %s to find",
		                    s.ends.mean < 0 ? "better" : "worse",
		                    o.want == BG_BISECT_WORSE ? "regression" : "improvement");
	if (s.flip) {
		s.dir = o.direction == BG_DIR_HIGHER ? BG_DIR_LOWER : BG_DIR_HIGHER;
		if ((error = lr_of(ctx, o.bad, o.good, o.npairs, s.dir, &s.ends)) < 0)
			return error;
	}
	out->improvement = s.flip;
	out->step = labelled(&s, s.ends.mean);
	s.lr = calloc(o.n + 1, sizeof(*s.lr));
	s.skip = calloc(o.n + 1, 1);
	if (!s.lr || !s.skip) {
		error = bg_error_oom(ctx);
		goto cleanup;
	}

	hi = o.n;
	while (hi - lo > 1) {
		bg_bisect_step st;
		size_t next = pick(&s, lo, hi);

		if (!next)
			break; /* everything between is unbuildable */
		if ((error = probe(&s, next, &st)) < 0 || (error = add_step(&s, &st)) < 0)
			goto cleanup;
		if (st.verdict == BG_PROBE_GOOD)
			lo = next;
		else if (st.verdict == BG_PROBE_BAD)
			hi = next;
		if (o.progress) {
			size_t left = 0;
			for (i = lo + 1; i < hi; i++)
				left += !s.skip[i];
			k++;
			o.progress(&st, k, k + bg_bisect_estimate(left + 1), o.data);
		}
	}
	/* The culprit's change, on as many pairs as the ends have: three
	 * pairs decide a probe but leave its size uncertain. */
	if (o.confirm && (short_of(&s, lo) || short_of(&s, hi)))
		o.confirm(lo, hi, s.ends.measured, short_of(&s, lo) + short_of(&s, hi), o.data);
	if ((error = top_up(&s, lo)) < 0 || (error = top_up(&s, hi)) < 0)
		goto cleanup;
	out->found = hi - lo == 1;
	out->first_bad = hi;
	out->lo = out->found ? hi : lo + 1;
	out->hi = hi;
	out->last_good = lo;
	a = at(&s, lo);
	b = at(&s, hi);
	{
		/* The spread of pairs, from every pair seen at the two commits and the ends. */
		lr_stats pool = s.ends;
		if (lo && hi != o.n) {
			pool.ss += a.ss + b.ss;
			pool.n += a.n + b.n - 2;
		} else if (lo) {
			pool.ss += a.ss;
			pool.n += a.n - 1;
		} else if (hi != o.n) {
			pool.ss += b.ss;
			pool.n += b.n - 1;
		}
		df = (double)pool.n - 1.0;
		sd = df > 0 ? sqrt(pool.ss / df) : NAN;
	}
	/* In the series' own orientation (positive is worse) from here on. */
	diff = s.flip ? a.mean - b.mean : b.mean - a.mean;
	/* The good end is the reference of every ratio: exactly 0, no error of its own. */
	se = sd * sqrt((lo ? 1.0 / (double)a.n : 0.0) + 1.0 / (double)b.n);
	out->change.n_base = a.n;
	out->change.n_cur = b.n;
	/* Labelled as bg_judge labels it: the value's own ratio, oriented. */
	out->change.change = bg_change_from_log(diff, o.direction);
	out->change.delta = bg_change_oriented(out->change.change, o.direction);
	out->change.df = df;
	out->change.t = se > 0 ? diff / se : NAN;
	out->change.p_worse = p_above(diff, se, df);
	/* Its own tail: 1 - p_worse would round a strong improvement to 0. */
	out->change.p_better = p_above(-diff, se, df);
	out->change.effect = sd > 0 ? diff / sd : NAN;
	/* Every step can be right and the answer still show no change of its
	 * own: a series that moved in many small steps, or a step that noise
	 * misled.  Said, so that nobody blames a commit on p 0.15. */
	out->significant = (s.flip ? out->change.p_better : out->change.p_worse) < o.alpha;

cleanup:
	free(s.lr);
	free(s.skip);
	if (error < 0)
		bg_bisect_result_clear(out);
	return error;
}
