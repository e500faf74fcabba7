/*
 * report.c -- `benchguard report`: the nightly trend view (SPEC "Reports").
 *
 * bg_report_build gathers the clean runs of a period in two queries (the
 * runs, then every result of them series by series), puts them in commit
 * order (the first-parent history of the branch when there is a
 * repository, else run time), and works out per series what a reader needs:
 * run means with their confidence intervals, the levels between detected
 * change points (lib/changepoint.c) with their spread, the runs the
 * rolling-baseline check would have flagged at each commit (the verdict of
 * lib/check.c replayed along the history), the baseline window the newest
 * commit is judged against, and the run-to-run noise.  One model, three
 * renderings: self-contained HTML with inline SVG charts, Markdown for an
 * issue or a PR comment, and JSON (json-c) for dashboards, so that all three
 * carry the same numbers.
 */
#include <math.h>
#include <regex.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <json-c/json.h>

#include "internal.h"

/* One run in commit order. */
typedef struct {
	bg_run_row row;
	size_t commit; /* index of its commit in order (runs of a commit are adjacent) */
	char date[24]; /* started_at, "YYYY-MM-DD HH:MM" UTC */
} rep_run;

/* The runs of one commit within a series, judged as check would judge them. */
typedef struct {
	size_t from, to; /* points [from, to) */
	size_t commit;
	bg_verdict verdict; /* regression, improvement, unchanged or no-baseline */
	bg_test test;
	double p_adjusted; /* of the verdict's direction; NAN when untested */
	size_t base_from;  /* the baseline it was judged against: points [base_from, from) */
} rep_group;

typedef struct {
	size_t from, to;       /* points [from, to) */
	double mean, sd, band; /* band: half-width of the 95% range of a run mean */
} rep_level;

typedef struct {
	int64_t series_id;
	char *name, *benchmark, *metric, *unit, *machine;
	bg_direction direction;
	size_t n, cap;
	size_t *run;   /* index into report->runs, in order */
	double *mean;  /* the run summary the verdict uses (robust mean) */
	double *ci;    /* half-width of the 95% CI of the run mean; NAN below 2 samples */
	size_t *count; /* samples */
	bg_verdict *flag;
	unsigned char *outlier; /* replaced by the change-point filter */
	bg_changepoints cps;
	rep_level *levels;
	size_t nlevels;
	rep_group *groups;
	size_t ngroups;
	double cv; /* run-to-run SD within levels / |mean| */
} rep_series;

struct bg_report {
	int64_t since, now;
	char *branch, *machine, *project;
	int by_git;
	bg_thresholds th;
	int window, min_runs;
	size_t min_segment;
	rep_run *runs;
	size_t nruns, ncommits, excluded;
	rep_series *series;
	size_t nseries;
	char **machines; /* distinct, sorted */
	char **cpus;     /* the CPU model of each (or NULL) */
	size_t nmachines;
	size_t steps[2];                 /* change points: [0] regressions, [1] improvements */
	size_t latest[BG_VERDICT_COUNT]; /* verdicts of each series' newest commit */
};

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

static int grow(void **arr, size_t *cap, size_t n, size_t size)
{
	void *p;
	size_t ncap;

	if (n < *cap)
		return 0;
	ncap = *cap ? *cap * 2 : 16;
	if (!(p = realloc(*arr, ncap * size)))
		return BG_ENOMEM;
	*arr = p;
	*cap = ncap;
	return 0;
}

static void series_clear(rep_series *s)
{
	free(s->name);
	free(s->benchmark);
	free(s->metric);
	free(s->unit);
	free(s->machine);
	free(s->run);
	free(s->mean);
	free(s->ci);
	free(s->count);
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
	free(r);
}

size_t bg_report_series_count(const bg_report *r)
{
	return r->nseries;
}

size_t bg_report_run_count(const bg_report *r)
{
	return r->nruns;
}

size_t bg_report_excluded_runs(const bg_report *r)
{
	return r->excluded;
}

/* Oriented like the verdict: positive is worse. */
static double oriented(double change, bg_direction dir)
{
	return dir == BG_DIR_HIGHER ? -change : change;
}

static bg_verdict step_verdict(const rep_series *s, const bg_changepoint *c)
{
	return oriented(c->change, s->direction) > 0 ? BG_VERDICT_REGRESSION
	                                             : BG_VERDICT_IMPROVEMENT;
}

static void fmt_date(char *buf, size_t len, int64_t t, const char *fmt)
{
	time_t tt = (time_t)t;
	struct tm tm;

	if (gmtime_r(&tt, &tm))
		strftime(buf, len, fmt, &tm);
	else
		snprintf(buf, len, "%lld", (long long)t);
}

/* ------------------------------------------------------------ commit order */

typedef struct {
	const char *sha;
	size_t idx;
} sha_ref;

typedef struct {
	sha_ref *by_sha; /* the runs sorted by sha */
	size_t n;
	int64_t *depth; /* per run: first-parent distance from the tip; -1 unplaced */
	size_t shas, seen;
	int64_t d;
} order_walk;

static int cmp_sha_ref(const void *a, const void *b)
{
	return strcmp(((const sha_ref *)a)->sha, ((const sha_ref *)b)->sha);
}

static int on_commit(const char *sha, void *data)
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
	if (lo < w->n && !strcmp(w->by_sha[lo].sha, sha))
		w->seen++;
	for (; lo < w->n && !strcmp(w->by_sha[lo].sha, sha); lo++)
		w->depth[w->by_sha[lo].idx] = w->d;
	w->d++;
	/* Every commit with runs placed: nothing older can add any. */
	return w->seen == w->shas ? 1 : 0;
}

typedef struct {
	int64_t key1, key2;
	size_t idx;
} order_key;

static int cmp_order(const void *a, const void *b)
{
	const order_key *x = a, *y = b;

	if (x->key1 != y->key1)
		return x->key1 < y->key1 ? -1 : 1;
	if (x->key2 != y->key2)
		return x->key2 < y->key2 ? -1 : 1;
	return 0;
}

/*
 * Puts r->runs in commit order: oldest commit first along the first-parent
 * history of the branch (runs elsewhere are left out and counted), or by
 * start time without a repository; a commit's runs by id.
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
	}
	if (repo && r->branch) {
		r->by_git = 1;
		qsort(w.by_sha, n, sizeof(sha_ref), cmp_sha_ref);
		for (i = 0; i < n; i++)
			w.shas += !i || strcmp(w.by_sha[i].sha, w.by_sha[i - 1].sha) != 0;
		w.n = n;
		if (n && ((error = bg_repo_branch_tip(ctx, repo, r->branch, tip)) < 0 ||
		          (error = bg_repo_walk_first_parent(ctx, repo, tip, on_commit, &w)) < 0))
			goto cleanup;
	}
	for (i = k = 0; i < n; i++) {
		if (r->by_git && w.depth[i] < 0)
			continue;
		keys[k].key1 = r->by_git ? -w.depth[i] : runs[i].row.started_at;
		keys[k].key2 = runs[i].row.id;
		keys[k].idx = i;
		k++;
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
		fmt_date(r->runs[i].date, sizeof(r->runs[i].date), r->runs[i].row.started_at,
		         "%Y-%m-%d %H:%M");
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
		if (!strcmp(r->series[i].machine, machine))
			return &r->series[i];
	if (grow((void **)&r->series, &g->cap, r->nseries, sizeof(*r->series)) < 0)
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
	if (!s->name || !s->benchmark || !s->metric || !s->unit || !s->machine)
		return NULL;
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
	if (!g->cur_match || !isfinite(row->summary.robust_mean))
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
		size_t ncap = s->cap ? 2 * s->cap : 32;
		size_t *run = realloc(s->run, ncap * sizeof(size_t));
		double *mean = run ? realloc(s->mean, ncap * sizeof(double)) : NULL;
		double *ci = mean ? realloc(s->ci, ncap * sizeof(double)) : NULL;
		size_t *count = ci ? realloc(s->count, ncap * sizeof(size_t)) : NULL;

		if (run)
			s->run = run;
		if (mean)
			s->mean = mean;
		if (ci)
			s->ci = ci;
		if (!count)
			return bg_error_oom(g->ctx);
		s->count = count;
		s->cap = ncap;
	}
	s->run[s->n] = at;
	s->mean[s->n] = row->summary.robust_mean;
	s->count[s->n] = row->summary.n;
	s->ci[s->n] = row->summary.n >= 2 ? q975(g->qc, row->summary.n - 1) * row->summary.stddev /
	                                            sqrt((double)row->summary.n)
	                                  : NAN;
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
 * Levels between change points: mean, SD and the 95% range of a run mean,
 * and the noise of the series (SD within levels over the mean), all without
 * the runs the change-point filter called outliers: one run a neighbour
 * slowed is an accident, not the benchmark's noise.
 */
static int levels(bg_ctx *ctx, rep_series *s, qcache *qc)
{
	size_t i, k, from = 0, dof = 0, all = 0;
	double ss = 0.0, total = 0.0;

	if (!(s->levels = calloc(s->cps.npoints + 1, sizeof(*s->levels))))
		return bg_error_oom(ctx);
	for (k = 0; k <= s->cps.npoints; k++) {
		size_t to = k < s->cps.npoints ? s->cps.points[k].index : s->n, m = 0;
		rep_level *l = &s->levels[s->nlevels++];
		double sum = 0.0, v = 0.0;

		l->from = from;
		l->to = to;
		for (i = from; i < to; i++)
			if (!s->outlier[i]) {
				sum += s->mean[i];
				m++;
			}
		l->mean = m ? sum / (double)m : NAN;
		for (i = from; i < to; i++)
			if (!s->outlier[i])
				v += (s->mean[i] - l->mean) * (s->mean[i] - l->mean);
		l->sd = m > 1 ? sqrt(v / (double)(m - 1)) : 0.0;
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

/* Runs of the window before `from` that check reads: the window and a few spare. */
static size_t reach(int window)
{
	return (size_t)window + (size_t)window / 4 + 1;
}

/*
 * The rolling-baseline check replayed: the runs of each commit against the
 * last `window` runs of earlier commits (an outlier run left out), as
 * bg_check_run judges a commit on the branch.  The p-values wait for
 * Benjamini-Hochberg across the series of each commit (judge_commits).
 */
static int replay(bg_ctx *ctx, const bg_report *r, rep_series *s, double *base,
                  bg_stats_cache *cache)
{
	size_t from = 0;
	int error;

	if (!(s->groups = calloc(s->n ? s->n : 1, sizeof(*s->groups))))
		return bg_error_oom(ctx);
	while (from < s->n) {
		rep_group *g = &s->groups[s->ngroups++];
		size_t to = from + 1, nb = 0, removed = 0, k;

		while (to < s->n && r->runs[s->run[to]].commit == r->runs[s->run[from]].commit)
			to++;
		g->from = from;
		g->to = to;
		g->commit = r->runs[s->run[from]].commit;
		g->verdict = BG_VERDICT_NO_BASELINE;
		g->p_adjusted = NAN;
		for (k = from; k > 0 && nb < reach(r->window); k--)
			base[nb++] = s->mean[k - 1];
		g->base_from = from - nb;
		if ((error = bg_stats_drop_outliers(ctx, base, &nb, BG_OUTLIER_SIGMAS, &removed)) <
		    0)
			return error;
		if (nb > (size_t)r->window) {
			g->base_from = from - (size_t)r->window - removed;
			nb = (size_t)r->window;
		}
		if (nb >= (size_t)r->min_runs) {
			if ((error = bg_stats_compare_cached(ctx, base, nb, s->mean + from,
			                                     to - from, s->direction, r->th.alpha,
			                                     cache, &g->test)) < 0)
				return error;
			g->verdict = BG_VERDICT_UNCHANGED;
		}
		from = to;
	}
	return 0;
}

typedef struct {
	size_t commit, series, group;
} test_ref;

static int cmp_test_ref(const void *a, const void *b)
{
	const test_ref *x = a, *y = b;

	if (x->commit != y->commit)
		return x->commit < y->commit ? -1 : 1;
	return (x->series > y->series) - (x->series < y->series);
}

/* Each commit's tests adjusted together (as one check of the suite), then
 * the verdict rule of check: p, change and effect size. */
static int judge_commits(bg_ctx *ctx, bg_report *r)
{
	test_ref *t = NULL;
	double *pw = NULL, *pb = NULL, *aw = NULL, *ab = NULL;
	size_t n = 0, cap = 0, i, j, k;
	int error = 0;

	for (i = 0; i < r->nseries; i++)
		for (k = 0; k < r->series[i].ngroups; k++) {
			if (r->series[i].groups[k].verdict != BG_VERDICT_UNCHANGED)
				continue;
			if (grow((void **)&t, &cap, n, sizeof(*t)) < 0) {
				error = bg_error_oom(ctx);
				goto cleanup;
			}
			t[n].commit = r->series[i].groups[k].commit;
			t[n].series = i;
			t[n].group = k;
			n++;
		}
	if (!n)
		goto cleanup;
	qsort(t, n, sizeof(*t), cmp_test_ref);
	pw = malloc(n * sizeof(double));
	pb = malloc(n * sizeof(double));
	aw = malloc(n * sizeof(double));
	ab = malloc(n * sizeof(double));
	if (!pw || !pb || !aw || !ab) {
		error = bg_error_oom(ctx);
		goto cleanup;
	}
	for (i = 0; i < n; i++) {
		const bg_test *x = &r->series[t[i].series].groups[t[i].group].test;
		pw[i] = x->p_worse;
		pb[i] = x->p_better;
	}
	for (i = 0; i < n; i = j) {
		for (j = i; j < n && t[j].commit == t[i].commit; j++)
			;
		if (r->th.fdr) {
			if ((error = bg_stats_bh(ctx, pw + i, j - i, aw + i)) < 0 ||
			    (error = bg_stats_bh(ctx, pb + i, j - i, ab + i)) < 0)
				goto cleanup;
		} else {
			memcpy(aw + i, pw + i, (j - i) * sizeof(double));
			memcpy(ab + i, pb + i, (j - i) * sizeof(double));
		}
	}
	for (i = 0; i < n; i++) {
		rep_series *s = &r->series[t[i].series];
		rep_group *g = &s->groups[t[i].group];
		const bg_test *x = &g->test;

		g->p_adjusted = x->change >= 0 ? aw[i] : ab[i];
		if (aw[i] < r->th.alpha && x->change >= r->th.min_change &&
		    x->effect >= r->th.min_effect)
			g->verdict = BG_VERDICT_REGRESSION;
		else if (ab[i] < r->th.alpha && x->change <= -r->th.min_change &&
		         x->effect <= -r->th.min_effect)
			g->verdict = BG_VERDICT_IMPROVEMENT;
	}
	for (i = 0; i < r->nseries; i++) {
		rep_series *s = &r->series[i];

		for (k = 0; k < s->ngroups; k++)
			for (j = s->groups[k].from; j < s->groups[k].to; j++)
				s->flag[j] = s->groups[k].verdict;
		if (s->ngroups)
			r->latest[s->groups[s->ngroups - 1].verdict]++;
	}
cleanup:
	free(t);
	free(pw);
	free(pb);
	free(aw);
	free(ab);
	return error;
}

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
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
	size_t *where = NULL, nrows = 0, i, k, maxn = 1;
	double *base = NULL;
	regex_t re;
	int have_re = 0, error = 0;
	qcache *qc = NULL;
	bg_stats_cache cache;
	gather g;

	*out = NULL;
	memset(&cache, 0, sizeof(cache));
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
	    (opts->project && !(r->project = bg_strdup(opts->project)))) {
		error = bg_error_oom(ctx);
		goto cleanup;
	}

	if ((error = bg_store_runs_since(ctx, store, opts->since, opts->machine, &rows, &nrows)) <
	    0)
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
	if (r->nruns && (error = bg_store_each_result(ctx, store, opts->since, opts->machine,
	                                              on_result, &g)) < 0)
		goto cleanup;
	if (r->nseries)
		qsort(r->series, r->nseries, sizeof(*r->series), cmp_series);

	for (i = 0; i < r->nseries; i++)
		if (r->series[i].n > maxn)
			maxn = r->series[i].n;
	if (!(base = malloc((maxn + reach(r->window)) * sizeof(double)))) {
		error = bg_error_oom(ctx);
		goto cleanup;
	}
	for (i = 0; i < r->nseries; i++) {
		rep_series *s = &r->series[i];
		bg_changepoint_opts co = { r->min_segment, r->th.alpha, r->th.min_change };

		if (sort_points(s) < 0) {
			error = bg_error_oom(ctx);
			goto cleanup;
		}
		if ((error = bg_changepoints_find(ctx, s->mean, s->n, &co, &s->cps)) < 0)
			goto cleanup;
		for (k = 0; k < s->cps.noutliers; k++)
			s->outlier[s->cps.outliers[k]] = 1;
		if ((error = levels(ctx, s, qc)) < 0 ||
		    (error = replay(ctx, r, s, base, &cache)) < 0)
			goto cleanup;
		for (k = 0; k < s->cps.npoints; k++)
			r->steps[step_verdict(s, &s->cps.points[k]) == BG_VERDICT_IMPROVEMENT]++;
	}
	if ((error = judge_commits(ctx, r)) < 0 || (error = machines(ctx, r, store)) < 0)
		goto cleanup;
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
	free(base);
	free(qc);
	bg_report_free(r);
	return error;
}

/* --------------------------------------------------------------- rendering */

/* A series' values in a readable unit: a factor and its name. */
typedef struct {
	double scale;
	const char *unit;
} disp_unit;

static disp_unit display_unit(const rep_series *s)
{
	static const char *const tu[] = { "s", "ms", "µs", "ns" };
	static const char *const bu[] = { "B", "KiB", "MiB", "GiB", "TiB" };
	static const char *const ru[] = { "B/s", "kB/s", "MB/s", "GB/s", "TB/s" };
	disp_unit d = { 1.0, s->unit };
	double typical = 0.0;
	size_t i = 0;

	for (i = 0; i < s->n; i++)
		typical += fabs(s->mean[i]) / (double)s->n;
	i = 0;
	if (!strcmp(s->unit, "s")) {
		while (i < 3 && typical > 0 && typical * d.scale < 1.0) {
			d.scale *= 1000.0;
			i++;
		}
		d.unit = tu[i];
	} else if (!strcmp(s->unit, "B")) {
		while (i < 4 && typical / d.scale >= 1024.0) {
			d.scale /= 1024.0;
			i++;
		}
		d.unit = bu[i];
	} else if (!strcmp(s->unit, "B/s")) {
		while (i < 4 && typical / d.scale >= 1000.0) {
			d.scale /= 1000.0;
			i++;
		}
		d.unit = ru[i];
	}
	return d;
}

static const rep_run *point_run(const bg_report *r, const rep_series *s, size_t i)
{
	return &r->runs[s->run[i]];
}

/* A step, in the order every rendering lists them: worst first. */
typedef struct {
	const rep_series *s;
	const bg_changepoint *c;
	double worse; /* oriented change */
} step_ref;

static int cmp_step(const void *a, const void *b)
{
	const step_ref *x = a, *y = b;

	if (x->worse > y->worse)
		return -1;
	if (x->worse < y->worse)
		return 1;
	return strcmp(x->s->name, y->s->name);
}

static step_ref *all_steps(const bg_report *r, size_t *n)
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
			v[*n].worse = oriented(v[*n].c->change, r->series[i].direction);
			(*n)++;
		}
	qsort(v, *n, sizeof(*v), cmp_step);
	return v;
}

/* The noisiest series first (at most `max`). */
static size_t noisiest(const bg_report *r, const rep_series **top, size_t max)
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

static const rep_group *latest_group(const rep_series *s)
{
	return s->ngroups ? &s->groups[s->ngroups - 1] : NULL;
}

/* The newest commit's judgement when it is a regression or improvement. */
static const rep_group *flagged_latest(const rep_series *s)
{
	const rep_group *g = latest_group(s);

	return g && (g->verdict == BG_VERDICT_REGRESSION || g->verdict == BG_VERDICT_IMPROVEMENT)
	               ? g
	               : NULL;
}

static bg_verdict latest_verdict(const rep_series *s)
{
	const rep_group *g = latest_group(s);

	return g ? g->verdict : BG_VERDICT_NO_BASELINE;
}

static const char *order_name(const bg_report *r)
{
	return r->by_git ? "first-parent" : "time";
}

/* ------------------------------------------------------------------- JSON */

static json_object *j_num(double v)
{
	return isfinite(v) ? bg_baseline__json_number(v) : NULL;
}

static json_object *j_str(const char *s)
{
	return s ? json_object_new_string(s) : NULL;
}

static json_object *json_step(const bg_report *r, const rep_series *s, const bg_changepoint *c)
{
	json_object *o = json_object_new_object();
	const rep_run *before = point_run(r, s, c->index - 1), *after = point_run(r, s, c->index);

	json_object_object_add(o, "index", json_object_new_int64((int64_t)c->index));
	json_object_object_add(o, "last_before", j_str(before->row.sha));
	json_object_object_add(o, "first_after", j_str(after->row.sha));
	json_object_object_add(o, "first_after_subject", j_str(after->row.subject));
	json_object_object_add(o, "run_before", json_object_new_int64(before->row.id));
	json_object_object_add(o, "run_after", json_object_new_int64(after->row.id));
	json_object_object_add(o, "mean_before", j_num(c->before));
	json_object_object_add(o, "mean_after", j_num(c->after));
	json_object_object_add(o, "change", j_num(c->change));
	json_object_object_add(o, "p_value", j_num(c->p));
	json_object_object_add(o, "verdict", j_str(bg_verdict_name(step_verdict(s, c))));
	return o;
}

static json_object *json_series(const bg_report *r, const rep_series *s)
{
	json_object *o = json_object_new_object(), *a;
	const rep_group *g = latest_group(s);
	size_t i;

	json_object_object_add(o, "series", j_str(s->name));
	json_object_object_add(o, "benchmark", j_str(s->benchmark));
	json_object_object_add(o, "metric", j_str(s->metric));
	json_object_object_add(o, "unit", j_str(s->unit));
	json_object_object_add(o, "direction", j_str(bg_direction_name(s->direction)));
	json_object_object_add(o, "machine", j_str(s->machine));
	json_object_object_add(o, "cv", j_num(s->cv));
	json_object_object_add(o, "verdict", j_str(bg_verdict_name(latest_verdict(s))));
	if (g) {
		json_object *l = json_object_new_object();

		json_object_object_add(l, "commit", j_str(point_run(r, s, g->from)->row.sha));
		json_object_object_add(l, "runs",
		                       json_object_new_int64((int64_t)(g->to - g->from)));
		json_object_object_add(l, "baseline_runs",
		                       json_object_new_int64((int64_t)g->test.n_base));
		json_object_object_add(l, "baseline_first_index",
		                       json_object_new_int64((int64_t)g->base_from));
		json_object_object_add(l, "baseline_last_index",
		                       json_object_new_int64((int64_t)g->from - 1));
		if (g->verdict != BG_VERDICT_NO_BASELINE) {
			json_object_object_add(l, "baseline_mean", j_num(g->test.base_mean));
			json_object_object_add(l, "current_mean", j_num(g->test.cur_mean));
			json_object_object_add(l, "change", j_num(g->test.change));
			json_object_object_add(l, "p_adjusted", j_num(g->p_adjusted));
			json_object_object_add(l, "effect_size", j_num(g->test.effect));
		}
		json_object_object_add(o, "latest", l);
	}
	a = json_object_new_array();
	for (i = 0; i < s->cps.npoints; i++)
		json_object_array_add(a, json_step(r, s, &s->cps.points[i]));
	json_object_object_add(o, "change_points", a);
	a = json_object_new_array();
	for (i = 0; i < s->nlevels; i++) {
		json_object *l = json_object_new_object();

		json_object_object_add(l, "first_index",
		                       json_object_new_int64((int64_t)s->levels[i].from));
		json_object_object_add(l, "last_index",
		                       json_object_new_int64((int64_t)s->levels[i].to - 1));
		json_object_object_add(l, "mean", j_num(s->levels[i].mean));
		json_object_object_add(l, "sd", j_num(s->levels[i].sd));
		json_object_object_add(l, "band", j_num(s->levels[i].band));
		json_object_array_add(a, l);
	}
	json_object_object_add(o, "levels", a);
	a = json_object_new_array();
	for (i = 0; i < s->n; i++) {
		json_object *p = json_object_new_object();
		const rep_run *run = point_run(r, s, i);

		json_object_object_add(p, "run", json_object_new_int64(run->row.id));
		json_object_object_add(p, "commit", j_str(run->row.sha));
		json_object_object_add(p, "mean", j_num(s->mean[i]));
		json_object_object_add(p, "ci", j_num(s->ci[i]));
		json_object_object_add(p, "samples", json_object_new_int64((int64_t)s->count[i]));
		json_object_object_add(p, "verdict", j_str(bg_verdict_name(s->flag[i])));
		if (s->outlier[i])
			json_object_object_add(p, "outlier", json_object_new_boolean(1));
		json_object_array_add(a, p);
	}
	json_object_object_add(o, "runs", a);
	return o;
}

static json_object *json_report(const bg_report *r)
{
	json_object *top = json_object_new_object(), *o, *a;
	const rep_series *top5[5];
	size_t i, n;
	step_ref *steps;

	json_object_object_add(top, "project", j_str(r->project));
	json_object_object_add(top, "generated_at", json_object_new_int64(r->now));
	json_object_object_add(top, "since", json_object_new_int64(r->since));
	json_object_object_add(top, "branch", j_str(r->branch));
	json_object_object_add(top, "order", j_str(order_name(r)));
	o = json_object_new_object();
	json_object_object_add(o, "alpha", j_num(r->th.alpha));
	json_object_object_add(o, "fdr", json_object_new_boolean(r->th.fdr));
	json_object_object_add(o, "min_change", j_num(r->th.min_change));
	json_object_object_add(o, "min_effect", j_num(r->th.min_effect));
	json_object_object_add(o, "window", json_object_new_int(r->window));
	json_object_object_add(o, "min_runs", json_object_new_int(r->min_runs));
	json_object_object_add(o, "min_segment", json_object_new_int64((int64_t)r->min_segment));
	json_object_object_add(top, "thresholds", o);
	a = json_object_new_array();
	for (i = 0; i < r->nmachines; i++) {
		o = json_object_new_object();
		json_object_object_add(o, "fingerprint", j_str(r->machines[i]));
		json_object_object_add(o, "cpu_model", j_str(r->cpus[i]));
		json_object_array_add(a, o);
	}
	json_object_object_add(top, "machines", a);

	o = json_object_new_object();
	json_object_object_add(o, "series", json_object_new_int64((int64_t)r->nseries));
	json_object_object_add(o, "runs", json_object_new_int64((int64_t)r->nruns));
	json_object_object_add(o, "commits", json_object_new_int64((int64_t)r->ncommits));
	json_object_object_add(o, "runs_off_branch", json_object_new_int64((int64_t)r->excluded));
	json_object_object_add(o, "step_regressions", json_object_new_int64((int64_t)r->steps[0]));
	json_object_object_add(o, "step_improvements", json_object_new_int64((int64_t)r->steps[1]));
	{
		json_object *v = json_object_new_object();
		for (i = 0; i < BG_VERDICT_COUNT; i++)
			if (i != BG_VERDICT_SKIPPED && i != BG_VERDICT_FAILED)
				json_object_object_add(
				        v, bg_verdict_name((bg_verdict)i),
				        json_object_new_int64((int64_t)r->latest[i]));
		json_object_object_add(o, "latest", v);
	}
	a = json_object_new_array();
	n = noisiest(r, top5, BG_ARRAY_SIZE(top5));
	for (i = 0; i < n; i++) {
		json_object *x = json_object_new_object();
		json_object_object_add(x, "series", j_str(top5[i]->name));
		json_object_object_add(x, "machine", j_str(top5[i]->machine));
		json_object_object_add(x, "cv", j_num(top5[i]->cv));
		json_object_array_add(a, x);
	}
	json_object_object_add(o, "noisiest", a);
	a = json_object_new_array();
	if ((steps = all_steps(r, &n)) != NULL) {
		for (i = 0; i < n; i++) {
			json_object *x = json_step(r, steps[i].s, steps[i].c);
			json_object_object_add(x, "series", j_str(steps[i].s->name));
			json_object_object_add(x, "machine", j_str(steps[i].s->machine));
			json_object_array_add(a, x);
		}
		free(steps);
	}
	json_object_object_add(o, "change_points", a);
	json_object_object_add(top, "summary", o);

	a = json_object_new_array();
	for (i = 0; i < r->nruns; i++) {
		const rep_run *run = &r->runs[i];
		o = json_object_new_object();
		json_object_object_add(o, "id", json_object_new_int64(run->row.id));
		json_object_object_add(o, "commit", j_str(run->row.sha));
		json_object_object_add(o, "subject", j_str(run->row.subject));
		json_object_object_add(o, "started_at", json_object_new_int64(run->row.started_at));
		json_object_object_add(o, "machine", j_str(run->row.machine));
		json_object_array_add(a, o);
	}
	json_object_object_add(top, "runs", a);
	a = json_object_new_array();
	for (i = 0; i < r->nseries; i++)
		json_object_array_add(a, json_series(r, &r->series[i]));
	json_object_object_add(top, "series", a);
	return top;
}

static int render_json(bg_ctx *ctx, const bg_report *r, bg_buf *b)
{
	json_object *top = json_report(r);
	const char *text;
	int error;

	if (!top)
		return bg_error_oom(ctx);
	text = json_object_to_json_string_ext(top, JSON_C_TO_STRING_PRETTY |
	                                                   JSON_C_TO_STRING_SPACED |
	                                                   JSON_C_TO_STRING_NOSLASHESCAPE);
	error = text && bg_buf_puts(b, text) == 0 && bg_buf_puts(b, "\n") == 0 ? 0
	                                                                       : bg_error_oom(ctx);
	json_object_put(top);
	return error;
}

/* --------------------------------------------------------------- Markdown */

/* Text for a table cell: no pipes or line breaks. */
static int md_cell(bg_buf *b, const char *text)
{
	const char *p;
	int error = 0;

	for (p = text ? text : ""; *p && !error; p++) {
		if (*p == '|')
			error = bg_buf_puts(b, "\\|");
		else if (*p == '<')
			error = bg_buf_puts(b, "&lt;");
		else if (*p == '>')
			error = bg_buf_puts(b, "&gt;");
		else if (*p == '\n' || *p == '\r')
			error = bg_buf_puts(b, " ");
		else
			error = bg_buf_put(b, p, 1);
	}
	return error;
}

static void fmt_pct(char *buf, size_t len, double change)
{
	if (isfinite(change))
		snprintf(buf, len, "%+.1f%%", 100.0 * change);
	else
		snprintf(buf, len, "n/a");
}

static int md_summary_line(const bg_report *r, bg_buf *b)
{
	char from[32], to[32];
	size_t i;
	int e = 0;

	fmt_date(from, sizeof(from), r->since, "%Y-%m-%d");
	fmt_date(to, sizeof(to), r->now, "%Y-%m-%d %H:%M UTC");
	e |= bg_buf_printf(b, "Runs from %s to %s", r->since ? from : "the first run", to);
	if (r->by_git)
		e |= bg_buf_printf(b, " on the first-parent history of `%s`", r->branch);
	else
		e |= bg_buf_puts(b, " in run-time order");
	e |= bg_buf_printf(b, ": %zu series, %zu runs, %zu commits.", r->nseries, r->nruns,
	                   r->ncommits);
	if (r->excluded)
		e |= bg_buf_printf(b, " %zu runs on other branches left out.", r->excluded);
	e |= bg_buf_puts(b, "\nMachine");
	e |= bg_buf_puts(b, r->nmachines == 1 ? ": " : "s: ");
	for (i = 0; i < r->nmachines; i++)
		e |= bg_buf_printf(b, "%s`%s`%s%s%s", i ? ", " : "", r->machines[i],
		                   r->cpus[i] ? " (" : "", r->cpus[i] ? r->cpus[i] : "",
		                   r->cpus[i] ? ")" : "");
	if (!r->nmachines)
		e |= bg_buf_puts(b, "none");
	e |= bg_buf_printf(b,
	                   ".\n\n**Steps in the period:** %zu regression%s, %zu improvement%s. "
	                   "**Newest commit** (check against the rolling baseline): %zu "
	                   "regression%s, %zu improvement%s, %zu unchanged, %zu without a "
	                   "baseline.\n\n",
	                   r->steps[0], r->steps[0] == 1 ? "" : "s", r->steps[1],
	                   r->steps[1] == 1 ? "" : "s", r->latest[BG_VERDICT_REGRESSION],
	                   r->latest[BG_VERDICT_REGRESSION] == 1 ? "" : "s",
	                   r->latest[BG_VERDICT_IMPROVEMENT],
	                   r->latest[BG_VERDICT_IMPROVEMENT] == 1 ? "" : "s",
	                   r->latest[BG_VERDICT_UNCHANGED], r->latest[BG_VERDICT_NO_BASELINE]);
	return e ? BG_ENOMEM : 0;
}

static int md_step_row(const bg_report *r, const rep_series *s, const bg_changepoint *c,
                       int with_series, bg_buf *b)
{
	const rep_run *before = point_run(r, s, c->index - 1), *after = point_run(r, s, c->index);
	disp_unit d = display_unit(s);
	char pct[32];
	int e = 0;

	fmt_pct(pct, sizeof(pct), c->change);
	e |= bg_buf_puts(b, "| ");
	if (with_series)
		e |= bg_buf_printf(b, "`%s` | ", s->name);
	e |= bg_buf_printf(b, "`%.7s..%.7s` | %.4g %s | %.4g %s | %s | %.2g | %s | ",
	                   before->row.sha, after->row.sha, c->before * d.scale, d.unit,
	                   c->after * d.scale, d.unit, pct, c->p,
	                   bg_verdict_name(step_verdict(s, c)));
	e |= md_cell(b, after->row.subject);
	e |= bg_buf_puts(b, " |\n");
	return e ? BG_ENOMEM : 0;
}

static const char md_step_head[] =
        "| commits | before | after | change | p | verdict | first commit after |\n"
        "|---|---:|---:|---:|---:|---|---|\n";
static const char md_step_head_series[] =
        "| series | commits | before | after | change | p | verdict | first commit after |\n"
        "|---|---|---:|---:|---:|---:|---|---|\n";

static int render_markdown(bg_ctx *ctx, const bg_report *r, bg_buf *b)
{
	const rep_series *top5[5];
	step_ref *steps = NULL;
	size_t i, k, n;
	int e = 0;

	e |= bg_buf_printf(b, "## benchguard report%s%s\n\n", r->project ? ": " : "",
	                   r->project ? r->project : "");
	e |= md_summary_line(r, b);
	if (!(steps = all_steps(r, &n)))
		return bg_error_oom(ctx);
	if (n) {
		e |= bg_buf_puts(b, "### Steps in the period\n\n");
		e |= bg_buf_puts(b, md_step_head_series);
		for (i = 0; i < n; i++)
			e |= md_step_row(r, steps[i].s, steps[i].c, 1, b);
		e |= bg_buf_puts(b, "\n");
	}
	free(steps);
	if (r->latest[BG_VERDICT_REGRESSION] + r->latest[BG_VERDICT_IMPROVEMENT]) {
		e |= bg_buf_puts(b,
		                 "### Flagged at the newest commit\n\n| series | commit | change | "
		                 "p (adjusted) | baseline runs | verdict |\n"
		                 "|---|---|---:|---:|---:|---|\n");
		for (i = 0; i < r->nseries; i++) {
			const rep_series *x = &r->series[i];
			const rep_group *g = flagged_latest(x);

			if (!g)
				continue;
			e |= bg_buf_printf(b, "| `%s` | `%.7s` | %+.1f%% | %.2g | %zu | %s |\n",
			                   x->name, point_run(r, x, g->from)->row.sha,
			                   100.0 * g->test.change, g->p_adjusted, g->test.n_base,
			                   bg_verdict_name(g->verdict));
		}
		e |= bg_buf_puts(b, "\n");
	}
	n = noisiest(r, top5, BG_ARRAY_SIZE(top5));
	if (n) {
		e |= bg_buf_puts(b, "### Noisiest series\n\n| series | noise (run-to-run CV) |\n"
		                    "|---|---:|\n");
		for (i = 0; i < n; i++)
			e |= bg_buf_printf(b, "| `%s` | %.2f%% |\n", top5[i]->name,
			                   100.0 * top5[i]->cv);
		e |= bg_buf_puts(b, "\n");
	}
	if (r->nseries) {
		e |= bg_buf_puts(b, "### Series\n\n| series | runs | newest commit | change | "
		                    "noise (CV) | steps |\n|---|---:|---|---:|---:|---:|\n");
		for (i = 0; i < r->nseries; i++) {
			const rep_series *s = &r->series[i];
			const rep_group *g = latest_group(s);
			char pct[32] = "";

			if (g && g->verdict != BG_VERDICT_NO_BASELINE)
				fmt_pct(pct, sizeof(pct), g->test.change);
			e |= bg_buf_printf(b, "| `%s` | %zu | %s | %s | %.2f%% | %zu |\n", s->name,
			                   s->n, bg_verdict_name(latest_verdict(s)), pct,
			                   100.0 * s->cv, s->cps.npoints);
		}
		e |= bg_buf_puts(b, "\n");
	}
	for (i = 0; i < r->nseries; i++) {
		const rep_series *s = &r->series[i];

		e |= bg_buf_printf(b, "#### `%s`", s->name);
		if (r->nmachines > 1)
			e |= bg_buf_printf(b, " on `%s`", s->machine);
		e |= bg_buf_printf(b, " (%s, %s is better)\n\n", display_unit(s).unit,
		                   bg_direction_name(s->direction));
		if (!s->cps.npoints) {
			e |= bg_buf_puts(b, "No steps.\n\n");
			continue;
		}
		e |= bg_buf_puts(b, md_step_head);
		for (k = 0; k < s->cps.npoints; k++)
			e |= md_step_row(r, s, &s->cps.points[k], 0, b);
		e |= bg_buf_puts(b, "\n");
	}
	return e ? bg_error_oom(ctx) : 0;
}

/* ------------------------------------------------------------------- HTML */

static int html_esc(bg_buf *b, const char *text)
{
	const char *p, *start;
	int error = 0;

	for (p = start = text ? text : ""; *p && !error; p++) {
		const char *rep = *p == '&'   ? "&amp;"
		                  : *p == '<' ? "&lt;"
		                  : *p == '>' ? "&gt;"
		                  : *p == '"' ? "&quot;"
		                              : NULL;
		if (!rep)
			continue;
		error = bg_buf_put(b, start, (size_t)(p - start)) || bg_buf_puts(b, rep);
		start = p + 1;
	}
	return error || bg_buf_puts(b, start) ? BG_ENOMEM : 0;
}

static const char html_head[] =
        "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n"
        "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n"
        "<title>%s</title>\n<style>\n"
        ":root{--fg:#1f2328;--muted:#59636e;--line:#d1d9e0;--bg:#fff;--panel:#f6f8fa;"
        "--reg:#cf222e;--imp:#1a7f37;--blue:#0969da;--band:#54aeff}\n"
        "*{box-sizing:border-box}\n"
        "body{margin:0;font:14px/1.5 system-ui,-apple-system,\"Segoe UI\",Roboto,"
        "\"Helvetica Neue\",Arial,sans-serif;color:var(--fg);background:var(--bg)}\n"
        "main{max-width:1100px;margin:0 auto;padding:24px 20px 64px}\n"
        "h1{font-size:24px;margin:0 0 4px}h2{font-size:18px;margin:32px 0 8px;"
        "padding-bottom:4px;border-bottom:1px solid var(--line)}\n"
        "h3{font-size:15px;margin:0;display:flex;gap:8px;align-items:baseline;flex-wrap:wrap}\n"
        "code,.mono{font-family:ui-monospace,SFMono-Regular,Menlo,Consolas,monospace;"
        "font-size:12.5px}\n"
        ".muted{color:var(--muted)}\n"
        ".cards{display:grid;grid-template-columns:repeat(auto-fit,minmax(170px,1fr));"
        "gap:12px;margin:16px 0}\n"
        ".card{border:1px solid var(--line);border-radius:8px;padding:10px 14px;"
        "background:var(--panel)}\n"
        ".card b{display:block;font-size:24px;line-height:1.2}\n"
        ".card.reg b{color:var(--reg)}.card.imp b{color:var(--imp)}\n"
        "table{border-collapse:collapse;width:100%%;margin:8px 0 4px;font-size:13px}\n"
        "th,td{text-align:left;padding:4px 8px;border-bottom:1px solid var(--line);"
        "vertical-align:top}\n"
        "th{font-weight:600;color:var(--muted);font-size:12px}\n"
        "td.num,th.num{text-align:right;font-variant-numeric:tabular-nums;white-space:nowrap}\n"
        ".badge{font-size:11.5px;font-weight:600;padding:1px 8px;border-radius:10px;"
        "border:1px solid var(--line);color:var(--muted);background:var(--panel)}\n"
        ".badge.regression{color:#fff;background:var(--reg);border-color:var(--reg)}\n"
        ".badge.improvement{color:#fff;background:var(--imp);border-color:var(--imp)}\n"
        "td.regression{color:var(--reg);font-weight:600}"
        "td.improvement{color:var(--imp);font-weight:600}\n"
        "section.series{border:1px solid var(--line);border-radius:8px;padding:14px 16px;"
        "margin:14px 0}\n"
        "section.series p.meta{margin:2px 0 6px;color:var(--muted);font-size:12.5px}\n"
        "svg.chart{display:block;width:100%%;height:auto;overflow:visible}\n"
        ".chart text{font-size:11px;fill:var(--muted);font-family:inherit}\n"
        ".chart .plot{fill:#fff;stroke:var(--line)}\n"
        ".chart .grid{stroke:#eaeef2;stroke-width:1}\n"
        ".chart .base{fill:#ddf4ff;opacity:.8}\n"
        ".chart .base-label{fill:var(--blue);font-weight:600}\n"
        ".chart .band{fill:var(--band);opacity:.22}\n"
        ".chart .level{stroke:var(--blue);stroke-width:2}\n"
        ".chart .ci{stroke:#8c959f;stroke-width:1;opacity:.7}\n"
        ".chart .trend{fill:none;stroke:#8c959f;stroke-width:1;opacity:.6}\n"
        ".chart .pt{fill:var(--fg);opacity:.85}\n"
        ".chart .pt:hover{opacity:1;stroke:var(--fg);stroke-width:4}\n"
        ".chart .pt.outlier{fill:#fff;stroke:#bc4c00;stroke-width:1.5;opacity:1}\n"
        ".chart .pt.regression{fill:var(--reg);opacity:1}\n"
        ".chart .pt.improvement{fill:var(--imp);opacity:1}\n"
        ".chart .clip{fill:#bc4c00;font-weight:600}\n"
        ".chart .cp line{stroke-width:1.5;stroke-dasharray:4 3}\n"
        ".chart .cp.regression line{stroke:var(--reg)}"
        ".chart .cp.improvement line{stroke:var(--imp)}\n"
        ".chart .cp text{font-weight:700;font-size:12px}\n"
        ".chart .cp.regression text{fill:var(--reg)}.chart .cp.improvement text{fill:var(--imp)}\n"
        ".legend{display:flex;flex-wrap:wrap;gap:14px;font-size:12.5px;color:var(--muted);"
        "margin:6px 0 0}\n"
        ".legend i{display:inline-block;width:12px;height:12px;border-radius:2px;"
        "margin-right:5px;vertical-align:-1px}\n"
        "a{color:var(--blue);text-decoration:none}a:hover{text-decoration:underline}\n"
        "footer{margin-top:40px;color:var(--muted);font-size:12px}\n"
        "</style>\n</head>\n<body>\n<main>\n";

/* Chart geometry, in SVG user units. */
#define CH_W 1000.0
#define CH_H 250.0
#define CH_L 72.0
#define CH_R 16.0
#define CH_T 26.0
#define CH_B 34.0

typedef struct {
	double lo, hi, dx;
	size_t n;
	disp_unit d;
} chart_geo;

/* A coordinate with one decimal, without printf: a chart of a thousand
 * series has a million of them. */
static int put_coord(bg_buf *b, double v)
{
	char tmp[32], *p = tmp + sizeof(tmp);
	long long t = isfinite(v) && fabs(v) < 1e12 ? llround(v * 10.0) : 0;
	int neg = t < 0;
	unsigned long long u = neg ? (unsigned long long)(-t) : (unsigned long long)t;

	*--p = (char)('0' + u % 10);
	*--p = '.';
	u /= 10;
	do
		*--p = (char)('0' + u % 10);
	while ((u /= 10) > 0);
	if (neg)
		*--p = '-';
	return bg_buf_put(b, p, (size_t)(tmp + sizeof(tmp) - p));
}

static double cx(const chart_geo *g, double i)
{
	return CH_L + (i + 0.5) * g->dx;
}

static double cy(const chart_geo *g, double v)
{
	return CH_T + (g->hi - v) / (g->hi - g->lo) * (CH_H - CH_T - CH_B);
}

/* cy kept inside the plot (outliers beyond the scale sit at its edge). */
static double cy_in(const chart_geo *g, double v)
{
	return fmin(fmax(cy(g, v), CH_T + 3.0), CH_H - CH_B - 3.0);
}

/* A round tick step near range / 4. */
static double tick_step(double range)
{
	double raw = range / 4.0, mag = pow(10.0, floor(log10(raw))), f = raw / mag;

	return mag * (f < 1.5 ? 1.0 : f < 3.5 ? 2.0 : f < 7.5 ? 5.0 : 10.0);
}

static void chart_range(const rep_series *s, chart_geo *g)
{
	size_t i;

	g->lo = INFINITY;
	g->hi = -INFINITY;
	/* Outlier runs do not set the scale: one run twice as slow would
	 * flatten every level; they are drawn at the edge with their value. */
	for (i = 0; i < s->n; i++) {
		double h = isfinite(s->ci[i]) ? s->ci[i] : 0.0;
		if (s->outlier[i])
			continue;
		g->lo = fmin(g->lo, s->mean[i] - h);
		g->hi = fmax(g->hi, s->mean[i] + h);
	}
	for (i = 0; i < s->nlevels; i++) {
		g->lo = fmin(g->lo, s->levels[i].mean - s->levels[i].band);
		g->hi = fmax(g->hi, s->levels[i].mean + s->levels[i].band);
	}
	if (!(g->hi > g->lo)) {
		double pad = fabs(g->hi) > 0 ? fabs(g->hi) * 0.01 : 1.0;
		g->lo -= pad;
		g->hi += pad;
	}
	{
		double pad = (g->hi - g->lo) * 0.08;
		g->lo -= pad;
		g->hi += pad;
	}
	g->n = s->n;
	g->dx = (CH_W - CH_L - CH_R) / (double)(s->n ? s->n : 1);
	g->d = display_unit(s);
}

static int chart_axes(const rep_series *s, const bg_report *r, const chart_geo *g, bg_buf *b)
{
	double step = tick_step((g->hi - g->lo) * g->d.scale), v;
	size_t i, nt = s->n < 6 ? s->n : 6;
	int e = 0;

	e |= bg_buf_printf(
	        b, "<rect class=\"plot\" x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" height=\"%.1f\"/>",
	        CH_L, CH_T, CH_W - CH_L - CH_R, CH_H - CH_T - CH_B);
	for (v = ceil(g->lo * g->d.scale / step) * step; v <= g->hi * g->d.scale; v += step) {
		double y = cy(g, v / g->d.scale);
		e |= bg_buf_printf(b,
		                   "<line class=\"grid\" x1=\"%.1f\" x2=\"%.1f\" y1=\"%.1f\" "
		                   "y2=\"%.1f\"/><text x=\"%.1f\" y=\"%.1f\" "
		                   "text-anchor=\"end\">%.4g</text>",
		                   CH_L, CH_W - CH_R, y, y, CH_L - 6, y + 4,
		                   fabs(v) < step * 1e-9 ? 0.0 : v);
	}
	e |= bg_buf_printf(b,
	                   "<text x=\"12\" y=\"%.1f\" transform=\"rotate(-90 12 %.1f)\" "
	                   "text-anchor=\"middle\">",
	                   (CH_T + CH_H - CH_B) / 2, (CH_T + CH_H - CH_B) / 2);
	e |= html_esc(b, g->d.unit);
	e |= bg_buf_puts(b, "</text>");
	/* Commits along the bottom: the first, the last and a few between. */
	for (i = 0; i < nt; i++) {
		size_t k = nt > 1 ? i * (s->n - 1) / (nt - 1) : 0;
		e |= bg_buf_printf(
		        b,
		        "<text class=\"mono\" x=\"%.1f\" y=\"%.1f\" text-anchor=\"%s\">%.7s</text>",
		        cx(g, (double)k), CH_H - CH_B + 16,
		        nt > 1 && i == 0        ? "start"
		        : nt > 1 && i + 1 == nt ? "end"
		                                : "middle",
		        point_run(r, s, k)->row.sha);
	}
	e |= bg_buf_printf(b,
	                   "<text x=\"%.1f\" y=\"%.1f\" text-anchor=\"middle\">commits, oldest to "
	                   "newest (%s order)</text>",
	                   (CH_L + CH_W - CH_R) / 2, CH_H - 4, order_name(r));
	return e ? BG_ENOMEM : 0;
}

static int chart_point(const bg_report *r, const rep_series *s, const chart_geo *g, size_t i,
                       bg_buf *b)
{
	const rep_run *run = point_run(r, s, i);
	int flagged = s->flag[i] == BG_VERDICT_REGRESSION || s->flag[i] == BG_VERDICT_IMPROVEMENT;
	int e = 0;

	e |= bg_buf_puts(b, "<circle class=\"pt");
	if (s->outlier[i])
		e |= bg_buf_puts(b, " outlier");
	if (flagged) {
		e |= bg_buf_puts(b, " ");
		e |= bg_buf_puts(b, bg_verdict_name(s->flag[i]));
	}
	e |= bg_buf_puts(b, "\" cx=\"");
	e |= put_coord(b, cx(g, (double)i));
	e |= bg_buf_puts(b, "\" cy=\"");
	e |= put_coord(b, cy_in(g, s->mean[i]));
	e |= bg_buf_puts(b, flagged || s->outlier[i] ? "\" r=\"4\"><title>run "
	                                             : "\" r=\"2.6\"><title>run ");
	e |= bg_buf_printf(b, "%lld · %.12s · %s\n", (long long)run->row.id, run->row.sha,
	                   run->date);
	e |= html_esc(b, run->row.subject);
	e |= bg_buf_printf(b, "\nmean %.4g %s", s->mean[i] * g->d.scale, g->d.unit);
	if (isfinite(s->ci[i]))
		e |= bg_buf_printf(b, " ± %.3g (95%% CI, %zu samples)", s->ci[i] * g->d.scale,
		                   s->count[i]);
	if (flagged)
		e |= bg_buf_printf(b, "\ncheck: %s", bg_verdict_name(s->flag[i]));
	if (s->outlier[i])
		e |= bg_buf_puts(b, "\noutlier: not used to find steps");
	e |= bg_buf_puts(b, "</title></circle>");
	if (fabs(cy(g, s->mean[i]) - cy_in(g, s->mean[i])) > 0.5) {
		int up = cy(g, s->mean[i]) < CH_T;
		double x = cx(g, (double)i);
		int left = x > CH_W * 0.8;

		e |= bg_buf_printf(b,
		                   "<text class=\"clip\" x=\"%.1f\" y=\"%.1f\" "
		                   "text-anchor=\"%s\">%s %.4g %s</text>",
		                   x + (left ? -7.0 : 7.0),
		                   cy_in(g, s->mean[i]) + (up ? 9.0 : -2.0), left ? "end" : "start",
		                   up ? "▲" : "▼", s->mean[i] * g->d.scale, g->d.unit);
	}
	return e ? BG_ENOMEM : 0;
}

static int chart_step(const bg_report *r, const rep_series *s, const chart_geo *g,
                      const bg_changepoint *c, bg_buf *b)
{
	const rep_run *before = point_run(r, s, c->index - 1), *after = point_run(r, s, c->index);
	const char *v = bg_verdict_name(step_verdict(s, c));
	double x = cx(g, (double)c->index - 0.5);
	char pct[32];
	int e = 0;

	fmt_pct(pct, sizeof(pct), c->change);
	e |= bg_buf_printf(
	        b,
	        "<g class=\"cp %s\" data-from=\"%s\" data-to=\"%s\" data-change=\"%.6f\">"
	        "<line x1=\"%.1f\" x2=\"%.1f\" y1=\"%.1f\" y2=\"%.1f\"/>"
	        "<text x=\"%.1f\" y=\"%.1f\" text-anchor=\"%s\">%s</text><title>",
	        v, before->row.sha, after->row.sha, c->change, x, x, CH_T - 4, CH_H - CH_B,
	        x + (x > CH_W * 0.85 ? -4.0 : 4.0), CH_T - 8, x > CH_W * 0.85 ? "end" : "start",
	        pct);
	e |= bg_buf_printf(b, "%s of %s: %.12s..%.12s (p %.2g)\nfirst commit after: ", v, pct,
	                   before->row.sha, after->row.sha, c->p);
	e |= html_esc(b, after->row.subject);
	e |= bg_buf_puts(b, "</title></g>");
	return e ? BG_ENOMEM : 0;
}

static int html_chart(const bg_report *r, const rep_series *s, bg_buf *b)
{
	const rep_group *lg = latest_group(s);
	chart_geo g;
	size_t i;
	int e = 0;

	chart_range(s, &g);
	e |= bg_buf_puts(b, "<svg class=\"chart\" data-series=\"");
	e |= html_esc(b, s->name);
	e |= bg_buf_printf(b,
	                   "\" viewBox=\"0 0 %.0f %.0f\" role=\"img\" "
	                   "xmlns=\"http://www.w3.org/2000/svg\"><title>",
	                   CH_W, CH_H);
	e |= html_esc(b, s->name);
	e |= bg_buf_puts(b, ": run means in commit order</title>");
	e |= chart_axes(s, r, &g, b);
	/* The window the newest commit is judged against. */
	if (lg && lg->from > lg->base_from) {
		double x0 = cx(&g, (double)lg->base_from) - g.dx / 2,
		       x1 = cx(&g, (double)lg->from) - g.dx / 2;
		e |= bg_buf_printf(b,
		                   "<rect class=\"base\" x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" "
		                   "height=\"%.1f\"><title>baseline of the newest commit: %zu "
		                   "runs</title></rect><text class=\"base-label\" x=\"%.1f\" "
		                   "y=\"%.1f\" text-anchor=\"end\">baseline</text>",
		                   x0, CH_T, x1 - x0, CH_H - CH_T - CH_B, lg->from - lg->base_from,
		                   x1 - 3, CH_H - CH_B - 5);
	}
	for (i = 0; i < s->nlevels; i++) {
		const rep_level *l = &s->levels[i];
		double x0 = cx(&g, (double)l->from) - g.dx / 2,
		       x1 = cx(&g, (double)l->to) - g.dx / 2;

		e |= bg_buf_printf(b,
		                   "<rect class=\"band\" x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" "
		                   "height=\"%.1f\"/><line class=\"level\" x1=\"%.1f\" x2=\"%.1f\" "
		                   "y1=\"%.1f\" y2=\"%.1f\"><title>level: %.4g %s ± %.3g (95%% of "
		                   "runs)</title></line>",
		                   x0, cy(&g, l->mean + l->band), x1 - x0,
		                   cy(&g, l->mean - l->band) - cy(&g, l->mean + l->band), x0, x1,
		                   cy(&g, l->mean), cy(&g, l->mean), l->mean * g.d.scale, g.d.unit,
		                   l->band * g.d.scale);
	}
	e |= bg_buf_puts(b, "<path class=\"ci\" d=\"");
	for (i = 0; i < s->n; i++)
		if (isfinite(s->ci[i])) {
			e |= bg_buf_puts(b, "M");
			e |= put_coord(b, cx(&g, (double)i));
			e |= bg_buf_puts(b, " ");
			e |= put_coord(b, cy_in(&g, s->mean[i] + s->ci[i]));
			e |= bg_buf_puts(b, "V");
			e |= put_coord(b, cy_in(&g, s->mean[i] - s->ci[i]));
		}
	e |= bg_buf_puts(b, "\"/><polyline class=\"trend\" points=\"");
	for (i = 0; i < s->n; i++) {
		e |= bg_buf_puts(b, i ? " " : "");
		e |= put_coord(b, cx(&g, (double)i));
		e |= bg_buf_puts(b, ",");
		e |= put_coord(b, cy_in(&g, s->mean[i]));
	}
	e |= bg_buf_puts(b, "\"/>");
	for (i = 0; i < s->n; i++)
		e |= chart_point(r, s, &g, i, b);
	for (i = 0; i < s->cps.npoints; i++)
		e |= chart_step(r, s, &g, &s->cps.points[i], b);
	e |= bg_buf_puts(b, "</svg>\n");
	return e ? BG_ENOMEM : 0;
}

static int html_step_row(const bg_report *r, const rep_series *s, const bg_changepoint *c,
                         int with_series, bg_buf *b)
{
	const rep_run *before = point_run(r, s, c->index - 1), *after = point_run(r, s, c->index);
	const char *v = bg_verdict_name(step_verdict(s, c));
	disp_unit d = display_unit(s);
	char pct[32];
	int e = 0;

	fmt_pct(pct, sizeof(pct), c->change);
	e |= bg_buf_puts(b, "<tr>");
	if (with_series) {
		e |= bg_buf_printf(b, "<td><a href=\"#s%zu\"><code>", (size_t)(s - r->series));
		e |= html_esc(b, s->name);
		e |= bg_buf_puts(b, "</code></a></td>");
	}
	e |= bg_buf_printf(
	        b,
	        "<td><code title=\"%s..%s\">%.7s..%.7s</code></td><td class=\"num\">%.4g "
	        "%s</td><td class=\"num\">%.4g %s</td><td class=\"num %s\">%s</td>"
	        "<td class=\"num\">%.2g</td><td class=\"%s\">%s</td><td>",
	        before->row.sha, after->row.sha, before->row.sha, after->row.sha,
	        c->before * d.scale, d.unit, c->after * d.scale, d.unit, v, pct, c->p, v, v);
	e |= html_esc(b, after->row.subject);
	e |= bg_buf_puts(b, "</td></tr>\n");
	return e ? BG_ENOMEM : 0;
}

static const char html_step_head[] =
        "<th>commits</th><th class=\"num\">before</th><th class=\"num\">after</th>"
        "<th class=\"num\">change</th><th class=\"num\">p</th><th>verdict</th>"
        "<th>first commit after</th></tr>\n";

static int html_summary(const bg_report *r, bg_buf *b)
{
	const rep_series *top5[5];
	char from[32], to[32];
	step_ref *steps;
	size_t i, n;
	int e = 0;

	fmt_date(from, sizeof(from), r->since, "%Y-%m-%d");
	fmt_date(to, sizeof(to), r->now, "%Y-%m-%d %H:%M UTC");
	e |= bg_buf_puts(b, "<header><h1>Performance report");
	if (r->project) {
		e |= bg_buf_puts(b, ": ");
		e |= html_esc(b, r->project);
	}
	e |= bg_buf_printf(b, "</h1><p class=\"muted\">Runs from %s to %s",
	                   r->since ? from : "the first run", to);
	if (r->by_git) {
		e |= bg_buf_puts(b, " on the first-parent history of <code>");
		e |= html_esc(b, r->branch);
		e |= bg_buf_puts(b, "</code>");
	} else {
		e |= bg_buf_puts(b, " in run-time order");
	}
	e |= bg_buf_printf(b, ". Machine%s: ", r->nmachines == 1 ? "" : "s");
	for (i = 0; i < r->nmachines; i++) {
		e |= bg_buf_printf(b, "%s<code>", i ? ", " : "");
		e |= html_esc(b, r->machines[i]);
		e |= bg_buf_puts(b, "</code>");
		if (r->cpus[i]) {
			e |= bg_buf_puts(b, " (");
			e |= html_esc(b, r->cpus[i]);
			e |= bg_buf_puts(b, ")");
		}
	}
	if (!r->nmachines)
		e |= bg_buf_puts(b, "none");
	e |= bg_buf_puts(b, ".</p></header>\n<div class=\"cards\">");
	e |= bg_buf_printf(
	        b,
	        "<div class=\"card\"><b>%zu</b>series over %zu runs of %zu commits</div>"
	        "<div class=\"card reg\"><b>%zu</b>step%s to worse</div>"
	        "<div class=\"card imp\"><b>%zu</b>step%s to better</div>"
	        "<div class=\"card reg\"><b>%zu</b>regression%s at the newest commit</div>"
	        "<div class=\"card imp\"><b>%zu</b>improvement%s at the newest commit</div>",
	        r->nseries, r->nruns, r->ncommits, r->steps[0], r->steps[0] == 1 ? "" : "s",
	        r->steps[1], r->steps[1] == 1 ? "" : "s", r->latest[BG_VERDICT_REGRESSION],
	        r->latest[BG_VERDICT_REGRESSION] == 1 ? "" : "s", r->latest[BG_VERDICT_IMPROVEMENT],
	        r->latest[BG_VERDICT_IMPROVEMENT] == 1 ? "" : "s");
	e |= bg_buf_puts(b, "</div>\n");
	if (r->excluded)
		e |= bg_buf_printf(b,
		                   "<p class=\"muted\">%zu run%s of commits off this branch's "
		                   "first-parent history %s left out.</p>\n",
		                   r->excluded, r->excluded == 1 ? "" : "s",
		                   r->excluded == 1 ? "is" : "are");
	if (!(steps = all_steps(r, &n)))
		return BG_ENOMEM;
	if (n) {
		e |= bg_buf_puts(b, "<h2>Steps in the period</h2>\n<table "
		                    "class=\"steps-all\"><tr><th>series</th>");
		e |= bg_buf_puts(b, html_step_head);
		for (i = 0; i < n; i++)
			e |= html_step_row(r, steps[i].s, steps[i].c, 1, b);
		e |= bg_buf_puts(b, "</table>\n");
	}
	free(steps);
	if (r->latest[BG_VERDICT_REGRESSION] + r->latest[BG_VERDICT_IMPROVEMENT]) {
		e |= bg_buf_puts(b,
		                 "<h2>Flagged at the newest commit</h2>\n<table><tr><th>series</th>"
		                 "<th>commit</th><th class=\"num\">change</th><th "
		                 "class=\"num\">p (adjusted)</th><th class=\"num\">baseline "
		                 "runs</th><th>verdict</th></tr>\n");
		for (i = 0; i < r->nseries; i++) {
			const rep_series *x = &r->series[i];
			const rep_group *g = flagged_latest(x);
			const char *v = bg_verdict_name(latest_verdict(x));

			if (!g)
				continue;
			e |= bg_buf_printf(b, "<tr><td><a href=\"#s%zu\"><code>", i);
			e |= html_esc(b, x->name);
			e |= bg_buf_printf(
			        b,
			        "</code></a></td><td><code>%.7s</code></td><td class=\"num "
			        "%s\">%+.1f%%</td><td class=\"num\">%.2g</td><td "
			        "class=\"num\">%zu</td><td class=\"%s\">%s</td></tr>\n",
			        point_run(r, x, g->from)->row.sha, v, 100.0 * g->test.change,
			        g->p_adjusted, g->test.n_base, v, v);
		}
		e |= bg_buf_puts(b, "</table>\n");
	}
	n = noisiest(r, top5, BG_ARRAY_SIZE(top5));
	if (n) {
		e |= bg_buf_puts(b, "<h2>Noisiest series</h2>\n<table><tr><th>series</th><th "
		                    "class=\"num\">noise (run-to-run CV)</th><th "
		                    "class=\"num\">runs</th></tr>\n");
		for (i = 0; i < n; i++) {
			e |= bg_buf_printf(b, "<tr><td><a href=\"#s%zu\"><code>",
			                   (size_t)(top5[i] - r->series));
			e |= html_esc(b, top5[i]->name);
			e |= bg_buf_printf(b,
			                   "</code></a></td><td class=\"num\">%.2f%%</td><td "
			                   "class=\"num\">%zu</td></tr>\n",
			                   100.0 * top5[i]->cv, top5[i]->n);
		}
		e |= bg_buf_puts(b, "</table>\n");
	}
	return e ? BG_ENOMEM : 0;
}

static int html_series(const bg_report *r, size_t idx, bg_buf *b)
{
	const rep_series *s = &r->series[idx];
	const rep_group *g = latest_group(s);
	bg_verdict v = latest_verdict(s);
	size_t i;
	int e = 0;

	e |= bg_buf_printf(b,
	                   "<section class=\"series\" id=\"s%zu\" data-verdict=\"%s\"><h3><code>",
	                   idx, bg_verdict_name(v));
	e |= html_esc(b, s->name);
	e |= bg_buf_puts(b, "</code><span class=\"muted\">");
	e |= html_esc(b, display_unit(s).unit);
	e |= bg_buf_printf(b, ", %s is better</span><span class=\"badge %s\">%s</span></h3>\n",
	                   bg_direction_name(s->direction), bg_verdict_name(v), bg_verdict_name(v));
	e |= bg_buf_printf(b, "<p class=\"meta\">%zu runs · noise (run-to-run CV) %.2f%% · ", s->n,
	                   100.0 * s->cv);
	if (s->cps.noutliers)
		e |= bg_buf_printf(b, "%zu outlier run%s · ", s->cps.noutliers,
		                   s->cps.noutliers == 1 ? "" : "s");
	if (g && v != BG_VERDICT_NO_BASELINE)
		e |= bg_buf_printf(b,
		                   "newest commit <code>%.7s</code>: %+.1f%% against a baseline of "
		                   "%zu runs (p %.2g)",
		                   point_run(r, s, g->from)->row.sha, 100.0 * g->test.change,
		                   g->test.n_base, g->p_adjusted);
	else
		e |= bg_buf_printf(b, "newest commit: fewer than %d baseline runs", r->min_runs);
	if (r->nmachines > 1) {
		e |= bg_buf_puts(b, " · machine <code>");
		e |= html_esc(b, s->machine);
		e |= bg_buf_puts(b, "</code>");
	}
	e |= bg_buf_puts(b, "</p>\n");
	e |= html_chart(r, s, b);
	if (s->cps.npoints) {
		e |= bg_buf_puts(b, "<table class=\"steps\"><tr>");
		e |= bg_buf_puts(b, html_step_head);
		for (i = 0; i < s->cps.npoints; i++)
			e |= html_step_row(r, s, &s->cps.points[i], 0, b);
		e |= bg_buf_puts(b, "</table>\n");
	}
	e |= bg_buf_puts(b, "</section>\n");
	return e ? BG_ENOMEM : 0;
}

static const char html_legend[] =
        "<div class=\"legend\"><span><i style=\"background:#1f2328\"></i>run mean (whisker: "
        "95% CI of its samples)</span><span><i style=\"background:#54aeff;opacity:.4\"></i>"
        "level between steps, ±95% of runs</span><span><i style=\"background:#ddf4ff\"></i>"
        "baseline of the newest commit</span><span><i style=\"background:#cf222e\"></i>"
        "step or run flagged worse</span><span><i style=\"background:#1a7f37\"></i>"
        "step or run flagged better</span><span><i style=\"background:#fff;border:1.5px "
        "solid #bc4c00\"></i>outlier run</span></div>\n";

static int render_html(bg_ctx *ctx, const bg_report *r, bg_buf *b)
{
	bg_buf title = BG_BUF_INIT;
	size_t i;
	int e = 0;

	e |= bg_buf_puts(&title, "Performance report");
	if (r->project) {
		e |= bg_buf_puts(&title, ": ");
		e |= html_esc(&title, r->project);
	}
	if (!e)
		e |= bg_buf_printf(b, html_head, title.ptr);
	bg_buf_clear(&title);
	e |= html_summary(r, b);
	e |= bg_buf_printf(b,
	                   "<h2>Series</h2>\n<p class=\"muted\">Hover a point for its run, commit "
	                   "and subject. Steps need %zu runs on each side and p &lt; %.2g after "
	                   "adjustment; a flagged run is one the rolling-baseline check "
	                   "(window %d) judges a regression or improvement.</p>\n",
	                   r->min_segment, r->th.alpha, r->window);
	e |= bg_buf_puts(b, html_legend);
	for (i = 0; i < r->nseries && !e; i++)
		e |= html_series(r, i, b);
	if (!r->nseries)
		e |= bg_buf_puts(b, "<p>No runs in this period.</p>\n");
	e |= bg_buf_printf(b, "<footer>benchguard %s</footer>\n</main>\n</body>\n</html>\n",
	                   BG_VERSION);
	return e ? bg_error_oom(ctx) : 0;
}

/* ------------------------------------------------------------------ public */

int bg_report_format_from_name(const char *name, bg_report_format *out)
{
	if (!strcmp(name, "html"))
		*out = BG_REPORT_HTML;
	else if (!strcmp(name, "markdown") || !strcmp(name, "md"))
		*out = BG_REPORT_MARKDOWN;
	else if (!strcmp(name, "json"))
		*out = BG_REPORT_JSON;
	else
		return BG_EINPUT;
	return 0;
}

int bg_report_render(bg_ctx *ctx, const bg_report *r, bg_report_format format, char **text,
                     size_t *len)
{
	bg_buf b = BG_BUF_INIT;
	int error;

	*text = NULL;
	*len = 0;
	switch (format) {
	case BG_REPORT_HTML:
		error = render_html(ctx, r, &b);
		break;
	case BG_REPORT_MARKDOWN:
		error = render_markdown(ctx, r, &b);
		break;
	case BG_REPORT_JSON:
		error = render_json(ctx, r, &b);
		break;
	default:
		error = bg_error_set(ctx, BG_EINPUT, "unknown report format");
	}
	if (error < 0) {
		bg_buf_clear(&b);
		return error;
	}
	*len = b.len;
	if (!(*text = bg_buf_detach(&b)))
		return bg_error_oom(ctx);
	return 0;
}
