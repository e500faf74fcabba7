/*
 * report.c -- `benchguard report`: the nightly trend view of a period's
 * runs, its model.
 *
 * bg_report_build gathers the clean runs of a period in two queries (the
 * runs, then every result of them series by series), puts them in commit
 * order (the first-parent history of the branch when there is a
 * repository, else run time), and works out per series what a reader needs:
 * run means with their confidence intervals, the levels between detected
 * change points (lib/changepoint.c) with their spread, each commit's
 * verdict (what `ci` recorded where ci judged it, confirmation included;
 * elsewhere the rolling check replayed along the history through the same
 * rule, bg_judge), the baseline window the newest commit is judged against,
 * and the run-to-run noise.  One model, three
 * renderings (report_html.c, report_markdown.c, report_json.c, chosen in
 * report_render.c), so that all three carry the same numbers; the
 * questions they all ask of the model (the steps worst first, the noisiest
 * series, the newest commit's verdict) are answered here, once.
 */
#include <math.h>
#include <regex.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "report_model.h"

/* ------------------------------------------------------------ small helpers */

/* t quantiles by degrees of freedom, computed once each (GSL inversions are
 * dear next to everything else a report does per run). */
typedef struct {
	double q[256];
	unsigned char have[256];
} qcache;

static double q975(qcache *c, size_t df)
{
	if (df == 0)
		return NAN;
	if (df >= BG_ARRAY_SIZE(c->q))
		return bg_stats_t_quantile(0.975, (double)df);
	if (!c->have[df]) {
		c->q[df] = bg_stats_t_quantile(0.975, (double)df);
		c->have[df] = 1;
	}
	return c->q[df];
}

/* x * 2^e.  ldexp is a call into libm even for e = 0, the exponent of every
 * real measurement (stats.c says why), and a report's pooling and levels
 * make over a million of them. */
static double scaled(double x, int e)
{
	return e ? ldexp(x, e) : x;
}

static void series_clear(rep_series *s)
{
	free(s->name);
	free(s->benchmark);
	free(s->metric);
	free(s->unit);
	free(s->machine);
	free(s->instrument);
	free(s->run);
	free(s->mean);
	free(s->ci);
	free(s->count);
	free(s->nruns);
	free(s->rfirst);
	free(s->rmean);
	free(s->rrun);
	free(s->flag);
	free(s->outlier);
	free(s->levels);
	free(s->groups);
	bg_changepoints_clear(&s->cps);
}

void bg_report_free(bg_report *r)
{
	size_t i;

	if (!r)
		return;
	for (i = 0; i < r->nruns; i++)
		bg_run_row_clear(&r->runs[i].row);
	free(r->runs);
	for (i = 0; i < r->nseries; i++)
		series_clear(&r->series[i]);
	free(r->series);
	for (i = 0; i < r->nmachines; i++) {
		free(r->machines[i]);
		free(r->cpus[i]);
	}
	free(r->machines);
	free(r->cpus);
	free(r->branch);
	free(r->machine);
	free(r->project);
	free(r->filter);
	free(r);
}

size_t bg_report_series_count(const bg_report *r)
{
	if (!r)
		return 0;
	return r->nseries;
}

size_t bg_report_commit_count(const bg_report *r)
{
	return r ? r->shown_commits : 0;
}

size_t bg_report_run_count(const bg_report *r)
{
	if (!r)
		return 0;
	return r->shown_runs;
}

size_t bg_report_period_run_count(const bg_report *r)
{
	return r ? r->nruns : 0;
}

size_t bg_report_excluded_runs(const bg_report *r)
{
	if (!r)
		return 0;
	return r->excluded;
}

/* Oriented like the verdict: positive is worse. */
static double oriented(double change, bg_direction dir)
{
	return dir == BG_DIR_HIGHER ? -change : change;
}

/* A step's relative move; from a level of zero (where change is NAN) an
 * unbounded one the way the value went. */
static double step_move(const bg_changepoint *c)
{
	return isnan(c->change) ? copysign(INFINITY, c->after - c->before) : c->change;
}

bg_verdict bg_report__step_verdict(const rep_series *s, const bg_changepoint *c)
{
	return oriented(step_move(c), s->direction) > 0 ? BG_VERDICT_REGRESSION
	                                                : BG_VERDICT_IMPROVEMENT;
}

void bg_report__fmt_date(char *buf, size_t len, int64_t t, const char *fmt)
{
	time_t tt = (time_t)t;
	struct tm tm;

	if (gmtime_r(&tt, &tm))
		strftime(buf, len, fmt, &tm);
	else
		snprintf(buf, len, "%lld", (long long)t);
}

/* A report's first day, or its first minute when the window does not
 * start at midnight (--since 12h): a date alone would claim the whole day. */
void bg_report__fmt_since(char *buf, size_t len, int64_t t)
{
	bg_report__fmt_date(buf, len, t, t % 86400 ? "%Y-%m-%d %H:%M UTC" : "%Y-%m-%d");
}

/* ------------------------------------------------------------ commit order */

typedef struct {
	const char *sha;
	size_t idx;
	int64_t author_time;
} sha_ref;

typedef struct {
	sha_ref *by_sha; /* the runs sorted by sha */
	size_t n;
	int64_t *depth; /* per run: first-parent distance from the tip; -1 unplaced */
	size_t shas, seen;
	int64_t d;
	bg_walk_bound bound; /* when no commit with runs is left behind the walk */
} order_walk;

static int cmp_sha_ref(const void *a, const void *b)
{
	return strcmp(((const sha_ref *)a)->sha, ((const sha_ref *)b)->sha);
}

static int on_commit(const char *sha, int64_t time, void *data)
{
	order_walk *w = data;
	size_t lo = 0, hi = w->n;

	while (lo < hi) {
		size_t mid = (lo + hi) / 2;
		if (strcmp(w->by_sha[mid].sha, sha) < 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (lo < w->n && !strcmp(w->by_sha[lo].sha, sha)) {
		w->seen++;
		bg_walk_bound_meet(&w->bound, w->by_sha[lo].author_time);
	}
	for (; lo < w->n && !strcmp(w->by_sha[lo].sha, sha); lo++)
		w->depth[w->by_sha[lo].idx] = w->d;
	w->d++;
	/* Every commit with runs placed, or none left that could lie further
	 * back (other branches' runs): nothing older can add any. */
	return w->seen == w->shas || bg_walk_bound_done(&w->bound, time);
}

typedef struct {
	int64_t key1, key2, key3;
	size_t idx;
} order_key;

static int cmp_order(const void *a, const void *b)
{
	const order_key *x = a, *y = b;

	if (x->key1 != y->key1)
		return x->key1 < y->key1 ? -1 : 1;
	if (x->key2 != y->key2)
		return x->key2 < y->key2 ? -1 : 1;
	if (x->key3 != y->key3)
		return x->key3 < y->key3 ? -1 : 1;
	return 0;
}

/*
 * Puts r->runs in commit order: oldest commit first along the first-parent
 * history of the branch (runs elsewhere are left out and counted), or
 * without a repository by the start time of each commit's first run, so
 * that a commit measured again later is still one commit; a commit's runs
 * by id.
 */
static int order_runs(bg_ctx *ctx, bg_report *r, bg_repo *repo, rep_run *runs, size_t n)
{
	order_walk w;
	order_key *keys = NULL;
	size_t i, k;
	char tip[41];
	int error = 0;

	memset(&w, 0, sizeof(w));
	keys = malloc((n ? n : 1) * sizeof(*keys));
	w.depth = malloc((n ? n : 1) * sizeof(int64_t));
	w.by_sha = malloc((n ? n : 1) * sizeof(sha_ref));
	if (!keys || !w.depth || !w.by_sha) {
		error = bg_error_oom(ctx);
		goto cleanup;
	}
	for (i = 0; i < n; i++) {
		w.depth[i] = -1;
		w.by_sha[i].sha = runs[i].row.sha;
		w.by_sha[i].idx = i;
		w.by_sha[i].author_time = runs[i].row.author_time;
	}
	qsort(w.by_sha, n, sizeof(sha_ref), cmp_sha_ref);
	if (repo && r->branch) {
		bg_walk_point *t = malloc((n ? n : 1) * sizeof(*t));

		r->by_git = 1;
		for (i = 0; i < n && t; i++)
			if (!i || strcmp(w.by_sha[i].sha, w.by_sha[i - 1].sha) != 0) {
				t[w.shas].sha = w.by_sha[i].sha;
				t[w.shas++].author_time = w.by_sha[i].author_time;
			}
		if (!t || bg_walk_bound_init(&w.bound, repo, t, w.shas) < 0) {
			free(t);
			error = bg_error_oom(ctx);
			goto cleanup;
		}
		free(t);
		w.n = n;
		if (n && ((error = bg_repo_branch_tip(ctx, repo, r->branch, tip)) < 0 ||
		          (error = bg_repo_walk_first_parent(ctx, repo, tip, on_commit, &w)) < 0))
			goto cleanup;
	}
	if (r->by_git) {
		for (i = k = 0; i < n; i++) {
			if (w.depth[i] < 0)
				continue;
			keys[k].key1 = -w.depth[i];
			keys[k].key2 = 0;
			keys[k].key3 = runs[i].row.id;
			keys[k].idx = i;
			k++;
		}
	} else {
		/* Without history a commit goes where its first run started (its
		 * first id breaking ties), its runs together: one point, however
		 * far apart they were made. */
		for (i = 0; i < n; i = k) {
			const bg_run_row *row = &runs[w.by_sha[i].idx].row;
			int64_t first = row->started_at, id = row->id;

			for (k = i; k < n && !strcmp(w.by_sha[k].sha, w.by_sha[i].sha); k++) {
				row = &runs[w.by_sha[k].idx].row;
				if (row->started_at < first ||
				    (row->started_at == first && row->id < id)) {
					first = row->started_at;
					id = row->id;
				}
			}
			for (; i < k; i++) {
				order_key *x = &keys[w.by_sha[i].idx];

				x->key1 = first;
				x->key2 = id;
				x->key3 = runs[w.by_sha[i].idx].row.id;
				x->idx = w.by_sha[i].idx;
			}
		}
		k = n;
	}
	qsort(keys, k, sizeof(*keys), cmp_order);
	if (!(r->runs = calloc(k ? k : 1, sizeof(*r->runs)))) {
		error = bg_error_oom(ctx);
		goto cleanup;
	}
	/* Moved, not copied: the rows not taken are cleared by the caller. */
	for (i = 0; i < k; i++) {
		r->runs[i].row = runs[keys[i].idx].row;
		memset(&runs[keys[i].idx].row, 0, sizeof(runs[keys[i].idx].row));
		bg_report__fmt_date(r->runs[i].date, sizeof(r->runs[i].date),
		                    r->runs[i].row.started_at, "%Y-%m-%d %H:%M");
		r->runs[i].commit =
		        !i ? 0
		           : r->runs[i - 1].commit +
		                        (strcmp(r->runs[i].row.sha, r->runs[i - 1].row.sha) != 0);
	}
	r->nruns = k;
	r->ncommits = k ? r->runs[k - 1].commit + 1 : 0;
	r->excluded = n - k;

cleanup:
	free(keys);
	free(w.depth);
	free(w.by_sha);
	bg_walk_bound_clear(&w.bound);
	return error;
}

/* --------------------------------------------------------------- gathering */

typedef struct {
	bg_ctx *ctx;
	bg_report *r;
	const int64_t *ids; /* run ids sorted, and where each went in r->runs */
	const size_t *where;
	size_t nids;
	regex_t *re;
	int64_t cur_id; /* the series being read, and its verdict on the filter */
	int cur_match;
	size_t cur_first; /* its first entry in r->series */
	size_t cap;
	qcache *qc;
} gather;

static int series_matches(regex_t *re, const char *benchmark, const char *name)
{
	return !re || !regexec(re, benchmark, 0, NULL, 0) || !regexec(re, name, 0, NULL, 0);
}

static rep_series *series_for(gather *g, const bg_result_row *row, const char *machine)
{
	bg_report *r = g->r;
	rep_series *s;
	size_t i;
	bg_buf b = BG_BUF_INIT;

	for (i = g->cur_first; i < r->nseries; i++)
		if (!strcmp(r->series[i].machine, machine) &&
		    bg_streq_null(r->series[i].instrument, row->instrument))
			return &r->series[i];
	if (bg_grow((void **)&r->series, &g->cap, r->nseries, sizeof(*r->series)) < 0)
		return NULL;
	s = &r->series[r->nseries++];
	memset(s, 0, sizeof(*s));
	s->series_id = row->series_id;
	s->direction = row->direction;
	if (bg_buf_printf(&b, "%s:%s", row->benchmark, row->metric) < 0)
		return NULL;
	s->name = bg_buf_detach(&b);
	s->benchmark = bg_strdup(row->benchmark);
	s->metric = bg_strdup(row->metric);
	s->unit = bg_strdup(row->unit);
	s->machine = bg_strdup(machine);
	s->instrument = row->instrument ? bg_strdup(row->instrument) : NULL;
	if (!s->name || !s->benchmark || !s->metric || !s->unit || !s->machine ||
	    (row->instrument && !s->instrument))
		return NULL;
	s->min_change = bg_thresholds_min_change(&g->r->th, s->benchmark, s->metric, s->instrument);
	s->resolution = bg_instrument__resolution(s->instrument, s->metric);
	return s;
}

static int on_result(const bg_result_row *row, void *data)
{
	gather *g = data;
	bg_report *r = g->r;
	size_t lo = 0, hi = g->nids, at;
	rep_series *s;
	bg_buf b = BG_BUF_INIT;

	if (row->series_id != g->cur_id) {
		g->cur_id = row->series_id;
		g->cur_first = r->nseries;
		g->cur_match = 1;
		if (g->re) {
			if (bg_buf_printf(&b, "%s:%s", row->benchmark, row->metric) < 0)
				return bg_error_oom(g->ctx);
			g->cur_match = series_matches(g->re, row->benchmark, b.ptr);
			bg_buf_clear(&b);
		}
	}
	if (!g->cur_match || !isfinite(row->robust_mean))
		return 0;
	while (lo < hi) {
		size_t mid = (lo + hi) / 2;
		if (g->ids[mid] < row->run_id)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (lo == g->nids || g->ids[lo] != row->run_id || g->where[lo] == SIZE_MAX)
		return 0; /* not on the branch's history */
	at = g->where[lo];
	if (!(s = series_for(g, row, r->runs[at].row.machine)))
		return bg_error_oom(g->ctx);
	if (s->n == s->cap) {
		/* Four arrays, one capacity: each grows from it, and it moves
		 * once all four have. */
		size_t c[4] = { s->cap, s->cap, s->cap, s->cap };

		if (bg_grow((void **)&s->run, &c[0], s->n, sizeof(*s->run)) < 0 ||
		    bg_grow((void **)&s->mean, &c[1], s->n, sizeof(*s->mean)) < 0 ||
		    bg_grow((void **)&s->ci, &c[2], s->n, sizeof(*s->ci)) < 0 ||
		    bg_grow((void **)&s->count, &c[3], s->n, sizeof(*s->count)) < 0)
			return bg_error_oom(g->ctx);
		s->cap = c[0];
	}
	s->run[s->n] = at;
	s->mean[s->n] = row->robust_mean;
	s->count[s->n] = row->n;
	s->ci[s->n] =
	        row->n >= 2 ? q975(g->qc, row->n - 1) * row->stddev / sqrt((double)row->n) : NAN;
	s->n++;
	return 0;
}

/* Sorts a series' points by commit order (the store gives them by run id). */
static int sort_points(rep_series *s)
{
	size_t i, j;

	/* Insertion sort: the points are nearly always in order already. */
	for (i = 1; i < s->n; i++)
		for (j = i; j > 0 && s->run[j - 1] > s->run[j]; j--) {
			size_t tr = s->run[j], tc = s->count[j];
			double tm = s->mean[j], tci = s->ci[j];

			s->run[j] = s->run[j - 1];
			s->mean[j] = s->mean[j - 1];
			s->ci[j] = s->ci[j - 1];
			s->count[j] = s->count[j - 1];
			s->run[j - 1] = tr;
			s->mean[j - 1] = tm;
			s->ci[j - 1] = tci;
			s->count[j - 1] = tc;
		}
	return 0;
}

/*
 * The runs of each commit pooled into one point: the mean of their run
 * summaries, the 95% CI of that mean from the runs' spread (from the
 * samples when there is one run), the samples and runs counted.  The runs
 * stay in rmean for the replayed check.
 */
static int pool_commits(const bg_report *r, rep_series *s, qcache *qc)
{
	size_t i, j, p = 0, nr = s->n;
	int e;

	if (!(s->rmean = malloc((nr ? nr : 1) * sizeof(double))) ||
	    !(s->rrun = malloc((nr ? nr : 1) * sizeof(size_t))) ||
	    !(s->rfirst = malloc((nr + 1) * sizeof(size_t))) ||
	    !(s->nruns = malloc((nr ? nr : 1) * sizeof(size_t))))
		return BG_ENOMEM;
	memcpy(s->rmean, s->mean, nr * sizeof(double));
	memcpy(s->rrun, s->run, nr * sizeof(size_t));
	/* Values near 1e308 are summed scaled by 2^-e (stats.c says why). */
	e = bg_stats__scale_exponent(s->rmean, nr);
	for (i = 0; i < nr; i = j) {
		size_t k, t, samples = 0;
		double sum = 0, ss = 0, m;

		for (j = i; j < nr && r->runs[s->rrun[j]].commit == r->runs[s->rrun[i]].commit;
		     j++) {
			sum += scaled(s->rmean[j], -e);
			samples += s->count[j];
		}
		k = j - i;
		m = sum / (double)k;
		for (t = i; t < j; t++)
			ss += (scaled(s->rmean[t], -e) - m) * (scaled(s->rmean[t], -e) - m);
		/* p <= i: what is written here was read already. */
		s->ci[p] = k >= 2 ? scaled(q975(qc, k - 1) * sqrt(ss / (double)(k - 1)) /
		                                   sqrt((double)k),
		                           e)
		                  : s->ci[i];
		s->mean[p] = scaled(m, e);
		s->run[p] = s->rrun[j - 1];
		s->count[p] = samples;
		s->nruns[p] = k;
		s->rfirst[p] = i;
		p++;
	}
	s->rfirst[p] = nr;
	s->nr = nr;
	s->n = p;
	s->flag = malloc((s->n ? s->n : 1) * sizeof(bg_verdict));
	s->outlier = calloc(s->n ? s->n : 1, 1);
	if (!s->flag || !s->outlier)
		return BG_ENOMEM;
	for (i = 0; i < s->n; i++)
		s->flag[i] = BG_VERDICT_NO_BASELINE;
	return 0;
}

/* ---------------------------------------------------------------- analysis */

/*
 * The change points of a series' commit means.  Where are the steps and how
 * far they go does not depend on the unit, but the sums of squares behind
 * them overflow for values near 1e308: those are looked at scaled by 2^-e,
 * and the levels reported back in the values' own units.
 */
static int find_steps(bg_ctx *ctx, rep_series *s, const bg_changepoint_opts *co)
{
	int e = bg_stats__scale_exponent(s->mean, s->n), error;
	double *x;
	size_t i;

	if (!e)
		return bg_changepoints_find(ctx, s->mean, s->n, co, &s->cps);
	if (!(x = malloc((s->n ? s->n : 1) * sizeof(double))))
		return bg_error_oom(ctx);
	for (i = 0; i < s->n; i++)
		x[i] = scaled(s->mean[i], -e);
	error = bg_changepoints_find(ctx, x, s->n, co, &s->cps);
	for (i = 0; error == 0 && i < s->cps.npoints; i++) {
		s->cps.points[i].before = scaled(s->cps.points[i].before, e);
		s->cps.points[i].after = scaled(s->cps.points[i].after, e);
	}
	free(x);
	return error;
}

/*
 * Levels between change points: mean, SD and the 95% range of a run mean,
 * and the noise of the series (SD within levels over the mean), all without
 * the runs the change-point filter called outliers: one run a neighbour
 * slowed is an accident, not the benchmark's noise.
 */
static int levels(bg_ctx *ctx, rep_series *s, qcache *qc)
{
	size_t i, k, from = 0, dof = 0, all = 0;
	double ss = 0.0, total = 0.0;
	int e;

	if (!(s->levels = calloc(s->cps.npoints + 1, sizeof(*s->levels))))
		return bg_error_oom(ctx);
	/* Sums of values near 1e308 are taken scaled by 2^-e (stats.c). */
	e = bg_stats__scale_exponent(s->mean, s->n);
	for (k = 0; k <= s->cps.npoints; k++) {
		size_t to = k < s->cps.npoints ? s->cps.points[k].index : s->n, m = 0;
		rep_level *l = &s->levels[s->nlevels++];
		double sum = 0.0, v = 0.0, lm;

		l->from = from;
		l->to = to;
		for (i = from; i < to; i++)
			if (!s->outlier[i]) {
				sum += scaled(s->mean[i], -e);
				m++;
			}
		lm = m ? sum / (double)m : NAN;
		for (i = from; i < to; i++)
			if (!s->outlier[i])
				v += (scaled(s->mean[i], -e) - lm) * (scaled(s->mean[i], -e) - lm);
		l->mean = scaled(lm, e);
		l->sd = m > 1 ? scaled(sqrt(v / (double)(m - 1)), e) : 0.0;
		l->band = m > 1 ? q975(qc, m - 1) * l->sd * sqrt(1.0 + 1.0 / (double)m) : 0.0;
		if (m) {
			ss += v;
			dof += m - 1;
			total += sum;
			all += m;
		}
		from = to;
	}
	total = all ? total / (double)all : 0.0;
	s->cv = dof && fabs(total) > 0.0 ? sqrt(ss / (double)dof) / fabs(total) : 0.0;
	return 0;
}

/* Each commit's point of a series: its group, not yet judged. */
static int group_series(bg_ctx *ctx, const bg_report *r, rep_series *s)
{
	size_t i;

	if (!(s->groups = calloc(s->n ? s->n : 1, sizeof(*s->groups))))
		return bg_error_oom(ctx);
	for (i = 0; i < s->n; i++) {
		rep_group *g = &s->groups[s->ngroups++];

		g->from = g->base_from = i;
		g->to = i + 1;
		g->commit = r->runs[s->run[i]].commit;
		g->verdict = g->first = g->replayed = BG_VERDICT_NO_BASELINE;
		g->p_adjusted = NAN;
	}
	return 0;
}

/* The point whose runs include run index k of s. */
static size_t point_of_run(const rep_series *s, size_t k)
{
	size_t lo = 0, hi = s->n;

	while (lo + 1 < hi) {
		size_t mid = (lo + hi) / 2;

		if (s->rfirst[mid] <= k)
			lo = mid;
		else
			hi = mid;
	}
	return lo;
}

/*
 * The rolling check replayed, commit by commit: each commit's runs of every
 * series against the last `window` runs of earlier commits (an outlier run
 * left out), the series of one commit on one machine judged together by
 * bg_judge, as bg_check_run judges a run of a commit of the branch.  Not
 * every machine's at once: with --machine all, one machine's flat series
 * would dilute another's regression through the FDR adjustment, and a
 * verdict would depend on which machines the report shows.
 */
static int judge_commits(bg_ctx *ctx, bg_report *r)
{
	size_t reach = bg_verdict__reach(r->window), c, i, k, n;
	size_t *cursor = calloc(r->nseries + 1, sizeof(size_t));
	bg_judge_input *in = calloc(r->nseries + 1, sizeof(*in));
	bg_judgement *jd = calloc(r->nseries + 1, sizeof(*jd));
	rep_group **gs = calloc(r->nseries + 1, sizeof(*gs));
	double *base = malloc((r->nseries + 1) * reach * sizeof(double));
	int error = 0;

	if (!cursor || !in || !jd || !gs || !base) {
		error = bg_error_oom(ctx);
		goto cleanup;
	}
	for (c = 0; c < r->ncommits; c++) {
		/* One pass per machine of the commit: a series judged moves its
		 * cursor past c, so the next pass takes the next machine's. */
		for (;;) {
			const char *machine = NULL;
			int others = 0; /* series of c on another machine: a later pass */

			for (i = n = 0; i < r->nseries; i++) {
				rep_series *s = &r->series[i];
				rep_group *g;
				double *bv = base + n * reach;
				size_t nb = 0, removed = 0, first;

				if (cursor[i] >= s->ngroups || s->groups[cursor[i]].commit != c)
					continue;
				if (machine && strcmp(s->machine, machine) != 0) {
					others = 1;
					continue;
				}
				machine = s->machine;
				g = &s->groups[cursor[i]++];
				first = s->rfirst[g->from];
				/* The runs before this commit's, newest first, as check reads them,
				 * and made into its baseline the way check makes it. */
				for (k = first; k > 0 && nb < reach; k--)
					bv[nb++] = s->rmean[k - 1];
				if ((error = bg_verdict__baseline(ctx, bv, &nb, r->window,
				                                  &removed)) < 0)
					goto cleanup;
				/* The runs it was formed from are the newest nb + removed: the
				 * one left out lies among them, never a spare behind them. */
				g->base_from = point_of_run(s, first - nb - removed);
				memset(&in[n], 0, sizeof(in[n]));
				in[n].design = BG_DESIGN_ROLLING;
				in[n].direction = s->direction;
				in[n].base = bv;
				in[n].n_base = nb >= (size_t)r->min_runs ? nb : 0;
				in[n].cur = s->rmean + first;
				in[n].n_cur = s->nruns[g->from];
				in[n].min_change = s->min_change;
				in[n].resolution = s->resolution;
				gs[n++] = g;
			}
			if (!n)
				break;
			if ((error = bg_judge(ctx, in, n, &r->th, r->th.alpha, jd)) < 0)
				goto cleanup;
			for (k = 0; k < n; k++) {
				gs[k]->verdict = gs[k]->first = gs[k]->replayed = jd[k].verdict;
				gs[k]->test.change = jd[k].test.change;
				gs[k]->test.delta = jd[k].test.delta;
				gs[k]->test.effect = jd[k].test.effect;
				gs[k]->test.base_mean = jd[k].test.base_mean;
				gs[k]->test.cur_mean = jd[k].test.cur_mean;
				gs[k]->test.n_base = jd[k].test.n_base;
				gs[k]->p_adjusted = bg_check__shown_p(&jd[k].test, jd[k].p_adjusted,
				                                      jd[k].p_better_adjusted);
			}
			if (!others)
				break;
		}
	}
cleanup:
	free(cursor);
	free(in);
	free(jd);
	free(gs);
	free(base);
	return error;
}

/* What ci recorded for the period's runs, sorted by run then series. */
typedef struct {
	int64_t check_id, run_id;
	char *series;
	bg_verdict verdict, first;
	bg_confirm_status confirm;
} recorded_row;

typedef struct {
	bg_ctx *ctx;
	recorded_row *rows;
	size_t n, cap;
} recorded_set;

static int on_recorded(const bg_recorded_row *row, void *data)
{
	recorded_set *set = data;
	recorded_row *x;

	if (bg_grow((void **)&set->rows, &set->cap, set->n, sizeof(*set->rows)) < 0)
		return bg_error_oom(set->ctx);
	x = &set->rows[set->n];
	x->check_id = row->check_id;
	x->run_id = row->run_id;
	x->verdict = row->verdict;
	x->first = row->first;
	x->confirm = row->confirm;
	if (!(x->series = bg_strdup(row->series)))
		return bg_error_oom(set->ctx);
	set->n++;
	return 0;
}

/* The recorded verdict of `series` for run `run`, or NULL (rows by run id). */
static const recorded_row *find_recorded(const recorded_set *set, int64_t run, const char *series)
{
	size_t lo = 0, hi = set->n;

	while (lo < hi) {
		size_t mid = (lo + hi) / 2;

		if (set->rows[mid].run_id < run)
			lo = mid + 1;
		else
			hi = mid;
	}
	for (; lo < set->n && set->rows[lo].run_id == run; lo++)
		if (!strcmp(set->rows[lo].series, series))
			return &set->rows[lo];
	return NULL;
}

/*
 * Where ci judged a commit, its verdict is the commit's: the runs it judged
 * carry the verdict it recorded (after confirmation), which the replay of
 * the first runs alone cannot know.  The newest check wins.
 */
static int apply_recorded(bg_ctx *ctx, bg_report *r, bg_store *store, const bg_report_opts *o)
{
	recorded_set set;
	size_t i, k, j;
	int error;

	memset(&set, 0, sizeof(set));
	set.ctx = ctx;
	bg_period period = { o->since, o->machine, o->include_paired };

	if ((error = bg_store_each_recorded(ctx, store, &period, on_recorded, &set)) < 0)
		goto cleanup;
	for (i = 0; i < r->nseries; i++) {
		rep_series *s = &r->series[i];

		for (k = 0; k < s->ngroups; k++) {
			rep_group *g = &s->groups[k];
			const recorded_row *best = NULL;

			for (j = s->rfirst[g->from]; j < s->rfirst[g->to]; j++) {
				const recorded_row *x =
				        find_recorded(&set, r->runs[s->rrun[j]].row.id, s->name);

				if (x && (!best || x->check_id > best->check_id))
					best = x;
			}
			if (!best)
				continue;
			g->recorded = 1;
			g->verdict = best->verdict;
			g->first = best->first;
			g->confirm = best->confirm;
			r->recorded++;
			r->unconfirmed += bg_report__unconfirmed(g);
		}
	}
cleanup:
	for (i = 0; i < set.n; i++)
		free(set.rows[i].series);
	free(set.rows);
	return error;
}

/* Each point takes its commit's verdict; the newest commits are counted. */
static void flag_points(bg_report *r)
{
	size_t i, k, j;

	for (i = 0; i < r->nseries; i++) {
		rep_series *s = &r->series[i];

		for (k = 0; k < s->ngroups; k++)
			for (j = s->groups[k].from; j < s->groups[k].to; j++)
				s->flag[j] = s->groups[k].verdict;
		if (s->ngroups) {
			r->latest[s->groups[s->ngroups - 1].verdict]++;
			r->latest_unconfirmed += bg_report__unconfirmed(&s->groups[s->ngroups - 1]);
		}
	}
}

int bg_report__unconfirmed(const rep_group *g)
{
	return g->recorded && g->confirm == BG_CONFIRM_NOT_CONFIRMED &&
	       g->verdict == BG_VERDICT_UNCHANGED;
}

const char *bg_report__group_label(const rep_group *g)
{
	return bg_report__unconfirmed(g) ? "flagged, not confirmed" : bg_verdict_name(g->verdict);
}

const rep_group *bg_report__point_group(const rep_series *s, size_t i)
{
	size_t lo = 0, hi = s->ngroups;

	while (lo < hi) {
		size_t mid = (lo + hi) / 2;

		if (s->groups[mid].to <= i)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo < s->ngroups ? &s->groups[lo] : NULL;
}

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* The runs and commits the report covers: with --filter, those that hold a
 * selected series, not every run of the period (a filter on one benchmark
 * said "120 runs" of a benchmark measured in 10).  Runs are in commit
 * order, so a commit is counted at its first run held. */
static int shown(bg_ctx *ctx, bg_report *r)
{
	unsigned char *held;
	size_t i, j, last = SIZE_MAX;

	r->shown_runs = r->nruns;
	r->shown_commits = r->ncommits;
	if (!r->filter)
		return 0;
	if (!(held = calloc(r->nruns ? r->nruns : 1, 1)))
		return bg_error_oom(ctx);
	for (i = 0; i < r->nseries; i++)
		for (j = 0; j < r->series[i].nr; j++)
			held[r->series[i].rrun[j]] = 1;
	r->shown_runs = r->shown_commits = 0;
	for (i = 0; i < r->nruns; i++) {
		if (!held[i])
			continue;
		r->shown_runs++;
		if (r->runs[i].commit != last)
			r->shown_commits++;
		last = r->runs[i].commit;
	}
	free(held);
	return 0;
}

/* The machines of the report, each with its CPU model from the stored facts. */
static int machines(bg_ctx *ctx, bg_report *r, bg_store *store)
{
	size_t i, k;
	int error;

	if (!(r->machines = calloc(r->nruns + 1, sizeof(char *))) ||
	    !(r->cpus = calloc(r->nruns + 1, sizeof(char *))))
		return bg_error_oom(ctx);
	for (i = 0; i < r->nruns; i++) {
		int seen = 0;

		for (k = 0; k < r->nmachines && !seen; k++)
			seen = !strcmp(r->machines[k], r->runs[i].row.machine);
		if (seen)
			continue;
		if (!(r->machines[r->nmachines] = bg_strdup(r->runs[i].row.machine)))
			return bg_error_oom(ctx);
		r->nmachines++;
	}
	qsort(r->machines, r->nmachines, sizeof(char *), cmp_str);
	for (k = 0; k < r->nmachines; k++) {
		bg_machine *facts = NULL;
		const char *cpu;

		for (i = 0; i < r->nruns && strcmp(r->runs[i].row.machine, r->machines[k]); i++)
			;
		if ((error = bg_store_run_facts(ctx, store, r->runs[i].row.id, &facts)) < 0)
			return error;
		cpu = bg_machine_get(facts, "cpu_model");
		r->cpus[k] = cpu ? bg_strdup(cpu) : NULL;
		bg_machine_free(facts);
		if (cpu && !r->cpus[k])
			return bg_error_oom(ctx);
	}
	return 0;
}

static int cmp_series(const void *a, const void *b)
{
	const rep_series *x = a, *y = b;
	int c = strcmp(x->name, y->name);

	return c ? c : strcmp(x->machine, y->machine);
}

int bg_report_build(bg_ctx *ctx, bg_store *store, bg_repo *repo, const bg_report_opts *opts,
                    bg_report **out)
{
	bg_report *r = NULL;
	bg_run_row *rows = NULL;
	rep_run *listed = NULL;
	int64_t *ids = NULL;
	size_t *where = NULL, nrows = 0, i, k;
	regex_t re;
	int have_re = 0, error = 0;
	qcache *qc = NULL;
	bg_period period;
	gather g;

	BG_NEED(ctx, store);
	BG_NEED(ctx, opts);
	BG_NEED(ctx, out);
	period = (bg_period){ opts->since, opts->machine, opts->include_paired };

	*out = NULL;
	memset(&g, 0, sizeof(g));
	if (opts->window < 2 || opts->min_runs < 2 || opts->min_runs > opts->window)
		return bg_error_set(ctx, BG_EINPUT,
		                    "baseline window %d and min_runs %d: need 2 <= min_runs <= "
		                    "window",
		                    opts->window, opts->min_runs);
	if (!(opts->thresholds.alpha > 0 && opts->thresholds.alpha < 1))
		return bg_error_set(ctx, BG_EINPUT, "alpha must be between 0 and 1 (got %g)",
		                    opts->thresholds.alpha);
	if (opts->filter) {
		int e = regcomp(&re, opts->filter, REG_EXTENDED | REG_NOSUB);
		if (e) {
			char msg[256];
			regerror(e, &re, msg, sizeof(msg));
			return bg_error_set(ctx, BG_EINPUT, "--filter \"%s\": %s", opts->filter,
			                    msg);
		}
		have_re = 1;
	}
	r = calloc(1, sizeof(*r));
	qc = calloc(1, sizeof(*qc));
	if (!r || !qc) {
		error = bg_error_oom(ctx);
		goto cleanup;
	}
	r->since = opts->since;
	r->now = opts->now;
	r->th = opts->thresholds;
	r->window = opts->window;
	r->min_runs = opts->min_runs;
	r->min_segment = opts->min_segment ? opts->min_segment : 5;
	if ((opts->branch && !(r->branch = bg_strdup(opts->branch))) ||
	    (opts->machine && !(r->machine = bg_strdup(opts->machine))) ||
	    (opts->project && !(r->project = bg_strdup(opts->project))) ||
	    (opts->filter && !(r->filter = bg_strdup(opts->filter)))) {
		error = bg_error_oom(ctx);
		goto cleanup;
	}

	if ((error = bg_store_runs_since(ctx, store, &period, &rows, &nrows)) < 0)
		goto cleanup;
	listed = calloc(nrows ? nrows : 1, sizeof(*listed));
	ids = malloc((nrows ? nrows : 1) * sizeof(int64_t));
	where = malloc((nrows ? nrows : 1) * sizeof(size_t));
	if (!listed || !ids || !where) {
		error = bg_error_oom(ctx);
		goto cleanup;
	}
	for (i = 0; i < nrows; i++) {
		listed[i].row = rows[i];
		ids[i] = rows[i].id;
		where[i] = SIZE_MAX;
	}
	free(rows);
	rows = NULL;
	if ((error = order_runs(ctx, r, repo, listed, nrows)) < 0)
		goto cleanup;
	/* ids are by id (the store's order); where says where each run went. */
	for (i = 0; i < r->nruns; i++) {
		size_t lo = 0, hi = nrows;
		while (lo < hi) {
			size_t mid = (lo + hi) / 2;
			if (ids[mid] < r->runs[i].row.id)
				lo = mid + 1;
			else
				hi = mid;
		}
		where[lo] = i;
	}

	g.ctx = ctx;
	g.r = r;
	g.ids = ids;
	g.where = where;
	g.nids = nrows;
	g.re = have_re ? &re : NULL;
	g.cur_id = -1;
	g.qc = qc;
	if (r->nruns && (error = bg_store_each_result(ctx, store, &period, on_result, &g)) < 0)
		goto cleanup;
	if (r->nseries)
		qsort(r->series, r->nseries, sizeof(*r->series), cmp_series);

	for (i = 0; i < r->nseries; i++) {
		rep_series *s = &r->series[i];
		/* A step of an instruction count is worth 0.1%, not the clock's 2%. */
		bg_changepoint_opts co = { r->min_segment, r->th.alpha, s->min_change };

		if (sort_points(s) < 0 || pool_commits(r, s, qc) < 0) {
			error = bg_error_oom(ctx);
			goto cleanup;
		}
		if ((error = find_steps(ctx, s, &co)) < 0)
			goto cleanup;
		for (k = 0; k < s->cps.noutliers; k++)
			s->outlier[s->cps.outliers[k]] = 1;
		if ((error = levels(ctx, s, qc)) < 0 || (error = group_series(ctx, r, s)) < 0)
			goto cleanup;
		for (k = 0; k < s->cps.npoints; k++)
			r->steps[bg_report__step_verdict(s, &s->cps.points[k]) ==
			         BG_VERDICT_IMPROVEMENT]++;
	}
	if ((error = judge_commits(ctx, r)) < 0 ||
	    (error = apply_recorded(ctx, r, store, opts)) < 0 ||
	    (error = machines(ctx, r, store)) < 0 || (error = shown(ctx, r)) < 0)
		goto cleanup;
	flag_points(r);
	*out = r;
	r = NULL;

cleanup:
	if (have_re)
		regfree(&re);
	for (i = 0; listed && i < nrows; i++)
		bg_run_row_clear(&listed[i].row);
	bg_run_rows_free(rows, nrows);
	free(listed);
	free(ids);
	free(where);
	free(qc);
	bg_report_free(r);
	return error;
}

/* ------------------------------------------------ what the renderings ask */

const rep_run *bg_report__point_run(const bg_report *r, const rep_series *s, size_t i)
{
	return &r->runs[s->run[i]];
}

void bg_report_steps_free(bg_report_step *steps, size_t n)
{
	size_t i;

	if (!steps)
		return;
	for (i = 0; i < n; i++) {
		free(steps[i].series);
		free(steps[i].machine);
	}
	free(steps);
}

int bg_report_steps(bg_ctx *ctx, const bg_report *r, bg_report_step **steps, size_t *n)
{
	bg_report_step *v = NULL;
	size_t i, k, len = 0, total = 0;

	BG_NEED(ctx, r);
	BG_NEED(ctx, steps);
	BG_NEED(ctx, n);

	*steps = NULL;
	*n = 0;
	for (i = 0; i < r->nseries; i++)
		total += r->series[i].cps.npoints;
	if (!(v = calloc(total ? total : 1, sizeof(*v))))
		return bg_error_oom(ctx);
	for (i = 0; i < r->nseries; i++) {
		const rep_series *s = &r->series[i];

		for (k = 0; k < s->cps.npoints; k++) {
			const bg_changepoint *c = &s->cps.points[k];
			bg_report_step *x = &v[len++];

			x->series = bg_strdup(s->name);
			x->machine = bg_strdup(s->machine);
			if (!x->series || !x->machine) {
				bg_report_steps_free(v, len);
				return bg_error_oom(ctx);
			}
			snprintf(x->before, sizeof(x->before), "%s",
			         bg_report__point_run(r, s, c->index - 1)->row.sha);
			snprintf(x->after, sizeof(x->after), "%s",
			         bg_report__point_run(r, s, c->index)->row.sha);
			x->mean_before = c->before;
			x->mean_after = c->after;
			x->delta = step_move(c);
			x->change = oriented(x->delta, s->direction);
			x->p = c->p;
			x->verdict = bg_report__step_verdict(s, c);
		}
	}
	*steps = v;
	*n = len;
	return 0;
}

static int cmp_step(const void *a, const void *b)
{
	const step_ref *x = a, *y = b;

	if (x->worse > y->worse)
		return -1;
	if (x->worse < y->worse)
		return 1;
	return strcmp(x->s->name, y->s->name);
}

step_ref *bg_report__all_steps(const bg_report *r, size_t *n)
{
	step_ref *v = malloc((r->steps[0] + r->steps[1] + 1) * sizeof(*v));
	size_t i, k;

	*n = 0;
	if (!v)
		return NULL;
	for (i = 0; i < r->nseries; i++)
		for (k = 0; k < r->series[i].cps.npoints; k++) {
			v[*n].s = &r->series[i];
			v[*n].c = &r->series[i].cps.points[k];
			v[*n].worse = oriented(step_move(v[*n].c), r->series[i].direction);
			(*n)++;
		}
	qsort(v, *n, sizeof(*v), cmp_step);
	return v;
}

size_t bg_report__noisiest(const bg_report *r, const rep_series **top, size_t max)
{
	size_t i, j, n = 0;

	for (i = 0; i < r->nseries; i++) {
		const rep_series *s = &r->series[i];

		if (s->n < 3 || (n == max && !(s->cv > top[max - 1]->cv)))
			continue;
		j = n < max ? n++ : max - 1;
		for (; j > 0 && top[j - 1]->cv < s->cv; j--)
			top[j] = top[j - 1];
		top[j] = s;
	}
	return n;
}

const rep_group *bg_report__latest_group(const rep_series *s)
{
	return s->ngroups ? &s->groups[s->ngroups - 1] : NULL;
}

const rep_group *bg_report__flagged_latest(const rep_series *s)
{
	const rep_group *g = bg_report__latest_group(s);

	return g && (g->verdict == BG_VERDICT_REGRESSION || g->verdict == BG_VERDICT_IMPROVEMENT)
	               ? g
	               : NULL;
}

bg_verdict bg_report__latest_verdict(const rep_series *s)
{
	const rep_group *g = bg_report__latest_group(s);

	return g ? g->verdict : BG_VERDICT_NO_BASELINE;
}

const char *bg_report__order_name(const bg_report *r)
{
	return r->by_git ? "first-parent" : "time";
}
