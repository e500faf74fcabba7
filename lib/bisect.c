/*
 * bisect.c -- the search behind `benchguard bisect`.
 *
 * A binary search over a first-parent range whose ends are known good and
 * bad, where "good" and "bad" are statistical claims, not exit codes: each
 * probed commit is measured (by the caller's callback, which builds, runs
 * and stores) and compared with both ends.  A probe that is clearly like one
 * end is classified at once; one that is not gets more runs, up to a cap, as
 * Chromium's Pinpoint does, before it is given to the nearer end.  Commits
 * that cannot be built are skipped like `git bisect skip`, and when the
 * culprit hides among them the answer is the range, never a guess.
 */
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

size_t bg_bisect_estimate(size_t n)
{
	size_t k = 0;

	while (((size_t)1 << k) < n)
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

static double mean_of(const double *v, size_t n)
{
	double s = 0;
	size_t i;

	for (i = 0; i < n; i++)
		s += v[i];
	return n ? s / (double)n : NAN;
}

typedef struct {
	bg_ctx *ctx;
	const bg_bisect_opts *o;
	double **vals; /* per index, once measured (the ends point at the caller's) */
	size_t *nvals;
	char *skip; /* per index: cannot be built */
	bg_bisect_result *res;
	size_t cap;
} search;

static int add_step(search *s, const bg_bisect_step *st)
{
	bg_bisect_result *r = s->res;

	if (r->nsteps == s->cap) {
		size_t ncap = s->cap * 2 + 8;
		bg_bisect_step *p = realloc(r->steps, ncap * sizeof(*p));
		if (!p)
			return bg_error_oom(s->ctx);
		r->steps = p;
		s->cap = ncap;
	}
	r->steps[r->nsteps++] = *st;
	return 0;
}

/*
 * Measures and classifies c[i].  Returns 0 with the step filled, or < 0.
 */
static int probe(search *s, size_t i, bg_bisect_step *st)
{
	const bg_bisect_opts *o = s->o;
	size_t runs = o->runs, max_runs = o->max_runs;
	double mg = mean_of(o->good, o->ngood), mb = mean_of(o->bad, o->nbad);
	int all_reused = 1;

	memset(st, 0, sizeof(*st));
	st->index = i;
	st->mean = st->p_good = st->p_bad = NAN;
	for (;;) {
		double *v = NULL;
		size_t n = 0;
		int reused = 0, rc, worse, better;
		bg_test tg, tb;

		rc = o->measure(s->ctx, i, runs, o->data, &v, &n, &reused);
		if (rc < 0) {
			free(v);
			return rc;
		}
		if (rc == 1) {
			free(v);
			s->skip[i] = 1;
			st->verdict = BG_PROBE_SKIP;
			st->reused = reused;
			return 0;
		}
		free(s->vals[i]);
		s->vals[i] = v;
		s->nvals[i] = n;
		all_reused &= reused;
		if (n == 0)
			return bg_error_set(
			        s->ctx, BG_ERROR,
			        "commit %zu of the range produced no value for the series", i);
		if ((rc = bg_stats_compare(s->ctx, o->good, o->ngood, v, n, o->direction, o->alpha,
		                           &tg)) < 0 ||
		    (rc = bg_stats_compare(s->ctx, o->bad, o->nbad, v, n, o->direction, o->alpha,
		                           &tb)) < 0)
			return rc;
		st->runs = n;
		st->reused = all_reused;
		st->mean = mean_of(v, n);
		st->p_good = tg.p_worse;
		st->p_bad = tb.p_better;
		worse = tg.p_worse < o->alpha;
		better = tb.p_better < o->alpha;
		if (worse && !better) {
			st->verdict = BG_PROBE_BAD;
			return 0;
		}
		if (better && !worse) {
			st->verdict = BG_PROBE_GOOD;
			return 0;
		}
		if (n >= max_runs) {
			/* Still like both ends, or like neither (a step in two
			 * parts): the nearer end is the best guess there is, and
			 * the step says it was one. */
			st->by_distance = 1;
			st->verdict = fabs(st->mean - mg) <= fabs(st->mean - mb) ? BG_PROBE_GOOD
			                                                         : BG_PROBE_BAD;
			return 0;
		}
		runs = n + o->runs;
		if (runs > max_runs)
			runs = max_runs;
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

static const double *values_at(const search *s, size_t i, size_t *n)
{
	if (i == 0) {
		*n = s->o->ngood;
		return s->o->good;
	}
	if (i == s->o->n) {
		*n = s->o->nbad;
		return s->o->bad;
	}
	*n = s->nvals[i];
	return s->vals[i];
}

/* More runs at a decided commit (not an end), for the final estimate. */
static int top_up(search *s, size_t i)
{
	size_t want = s->o->ngood > s->o->nbad ? s->o->ngood : s->o->nbad;
	double *v = NULL;
	size_t n = 0;
	int reused = 0, rc;

	if (i == 0 || i == s->o->n || s->nvals[i] >= want)
		return 0;
	rc = s->o->measure(s->ctx, i, want, s->o->data, &v, &n, &reused);
	if (rc < 0 || rc == 1 || n == 0) {
		free(v);
		return rc < 0 ? rc
		              : bg_error_set(s->ctx, BG_ERROR,
		                             "commit %zu of the range could not be measured again",
		                             i);
	}
	free(s->vals[i]);
	s->vals[i] = v;
	s->nvals[i] = n;
	return 0;
}

int bg_bisect_search(bg_ctx *ctx, const bg_bisect_opts *opts, bg_bisect_result *out)
{
	bg_bisect_opts o = *opts;
	search s;
	size_t lo = 0, hi, i, k = 0, nlo, nhi;
	const double *vlo, *vhi;
	int error = 0;

	memset(out, 0, sizeof(*out));
	memset(&s, 0, sizeof(s));
	if (o.n < 1 || !o.measure || !o.good || !o.bad || o.ngood < 2 || o.nbad < 2)
		return bg_error_set(ctx, BG_EINPUT,
		                    "bisect needs a range of at least one commit and two runs at "
		                    "each end");
	if (!(o.alpha > 0 && o.alpha < 1))
		return bg_error_set(ctx, BG_EINPUT, "alpha must be between 0 and 1");
	if (!o.runs)
		o.runs = BISECT_RUNS;
	if (!o.max_runs)
		o.max_runs = BISECT_MAX_RUNS;
	if (o.max_runs < o.runs)
		o.max_runs = o.runs;
	s.ctx = ctx;
	s.o = &o;
	s.res = out;
	s.vals = calloc(o.n + 1, sizeof(*s.vals));
	s.nvals = calloc(o.n + 1, sizeof(*s.nvals));
	s.skip = calloc(o.n + 1, 1);
	if (!s.vals || !s.nvals || !s.skip) {
		error = bg_error_oom(ctx);
		goto cleanup;
	}

	hi = o.n;
	while (hi - lo > 1) {
		bg_bisect_step st;
		size_t at = pick(&s, lo, hi);

		if (!at)
			break; /* everything between is unbuildable */
		if ((error = probe(&s, at, &st)) < 0 || (error = add_step(&s, &st)) < 0)
			goto cleanup;
		if (st.verdict == BG_PROBE_GOOD)
			lo = at;
		else if (st.verdict == BG_PROBE_BAD)
			hi = at;
		if (o.progress) {
			size_t left = 0;
			for (i = lo + 1; i < hi; i++)
				left += !s.skip[i];
			k++;
			o.progress(&st, k, k + bg_bisect_estimate(left + 1), o.data);
		}
	}
	/* The culprit's change, on at least as many runs as the ends have:
	 * three runs a side decide a probe but leave its size uncertain. */
	if ((error = top_up(&s, lo)) < 0 || (error = top_up(&s, hi)) < 0)
		goto cleanup;
	out->found = hi - lo == 1;
	out->first_bad = hi;
	out->lo = out->found ? hi : lo + 1;
	out->hi = hi;
	out->last_good = lo;
	vlo = values_at(&s, lo, &nlo);
	vhi = values_at(&s, hi, &nhi);
	error = bg_stats_compare(ctx, vlo, nlo, vhi, nhi, o.direction, o.alpha, &out->change);

cleanup:
	for (i = 0; s.vals && i <= o.n; i++)
		free(s.vals[i]);
	free(s.vals);
	free(s.nvals);
	free(s.skip);
	if (error < 0)
		bg_bisect_result_clear(out);
	return error;
}
