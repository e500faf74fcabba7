/*
 * check.c -- the verdict: candidate runs judged against their rolling
 * baseline (SPEC "Statistics").
 *
 * The baseline of a series is the last `window` complete, clean runs on the
 * candidate's machine whose commits lie on the first-parent history of
 * merge-base(candidate, baseline branch tip), the candidate's own commit
 * left out.  The store lists the machine's clean runs once; the git walk
 * orders them by ancestry, newest first; run means are then read run by run
 * only until every series has its window (and a few spare runs, so that an
 * outlier run left out of the estimate does not shorten it), so a check
 * reads about `window` runs' summaries however long the history is.  The run, not the sample, is
 * the unit of replication: the test sees one mean per run.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "internal.h"

/* A baseline run mean this many SDs of the other runs away is an outlier. */

static const char *const verdict_names[BG_VERDICT_COUNT] = {
	"regression", "improvement", "unchanged", "no-baseline", "skipped", "failed",
};

/* Order of rows in a report: what needs attention first. */
static const int verdict_rank[BG_VERDICT_COUNT] = {
	[BG_VERDICT_REGRESSION] = 0, [BG_VERDICT_FAILED] = 1,      [BG_VERDICT_IMPROVEMENT] = 2,
	[BG_VERDICT_UNCHANGED] = 3,  [BG_VERDICT_NO_BASELINE] = 4, [BG_VERDICT_SKIPPED] = 5,
};

const char *bg_verdict_name(bg_verdict v)
{
	return (unsigned)v < BG_VERDICT_COUNT ? verdict_names[v] : "?";
}

/* A series of the candidate runs while it is being judged. */
typedef struct {
	int64_t series_id;
	const bg_run_series *info; /* names, unit, direction (from the first run having it) */
	double *cur;               /* one summary (robust mean) per candidate run */
	size_t ncur, samples, outliers;
	double *base; /* up to window + spare baseline run means, newest first */
	size_t nbase;
	double *cur_ord; /* paired checks: one per candidate run, in run order (NAN: none) */
} cand_series;

typedef struct {
	bg_ctx *ctx;
	bg_store *store;
	const char *exclude_sha;
	bg_run_ref *refs; /* the machine's clean runs, sorted by sha then newest first */
	size_t nrefs, used;
	cand_series *series; /* sorted by series_id */
	size_t nseries, full;
	size_t window;
	char *reference; /* set to the first commit that gives runs */
	int error;
} walk_state;

static int cmp_ref(const void *a, const void *b)
{
	const bg_run_ref *x = a, *y = b;
	int c = strcmp(x->sha, y->sha);

	if (c)
		return c;
	return (x->id < y->id) - (x->id > y->id); /* newest first */
}

/* Adds one baseline run's means to every series that still needs values. */
static int take_run(walk_state *w, int64_t run_id)
{
	int64_t *ids = NULL;
	double *means = NULL;
	size_t n = 0, i = 0, j = 0;
	int error;

	if ((error = bg_store_run_means(w->ctx, w->store, run_id, &ids, &means, &n)) < 0)
		return error;
	/* Both sides are sorted by series id: a merge. */
	while (i < n && j < w->nseries) {
		cand_series *cs = &w->series[j];

		if (ids[i] < cs->series_id) {
			i++;
		} else if (ids[i] > cs->series_id) {
			j++;
		} else {
			if (cs->nbase < w->window && isfinite(means[i])) {
				cs->base[cs->nbase++] = means[i];
				if (cs->nbase == w->window)
					w->full++;
			}
			i++;
			j++;
		}
	}
	free(ids);
	free(means);
	return 0;
}

static int on_commit(const char *sha, void *data)
{
	walk_state *w = data;
	bg_run_ref key;
	size_t k;

	if (!strcmp(sha, w->exclude_sha))
		return 0;
	memset(&key, 0, sizeof(key));
	memcpy(key.sha, sha, 41);
	key.id = INT64_MAX; /* sorts before every real run of that sha */
	/* The first (newest) run of this commit: a lower bound. */
	{
		size_t lo = 0, hi = w->nrefs;
		while (lo < hi) {
			size_t mid = (lo + hi) / 2;
			if (cmp_ref(&w->refs[mid], &key) < 0)
				lo = mid + 1;
			else
				hi = mid;
		}
		k = lo;
	}
	for (; k < w->nrefs && !strcmp(w->refs[k].sha, sha); k++) {
		if (w->reference && !*w->reference)
			memcpy(w->reference, sha, 41);
		if ((w->error = take_run(w, w->refs[k].id)) < 0)
			return -1;
		w->used++;
		if (w->full == w->nseries)
			return 1;
	}
	/* Every stored run has been placed: nothing older can add values. */
	return w->used == w->nrefs ? 1 : 0;
}

/*
 * Runs read per series: the window and a few spare, so that an outlier run
 * left out of the estimate does not shorten the window.
 */
static size_t reach(int window)
{
	return (size_t)window + (size_t)window / 4 + 1;
}

static int cmp_series_id(const void *a, const void *b)
{
	const bg_run_series *x = *(const bg_run_series *const *)a;
	const bg_run_series *y = *(const bg_run_series *const *)b;

	return (x->series_id > y->series_id) - (x->series_id < y->series_id);
}

static int cmp_rows(const void *a, const void *b)
{
	const bg_verdict_row *x = a, *y = b;
	int c = verdict_rank[x->verdict] - verdict_rank[y->verdict];

	return c ? c : strcmp(x->series, y->series);
}

static void row_clear(bg_verdict_row *r)
{
	free(r->series);
	free(r->benchmark);
	free(r->metric);
	free(r->unit);
	free(r->message);
}

void bg_check_result_free(bg_check_result *res)
{
	size_t i;

	if (!res)
		return;
	for (i = 0; i < res->nrows; i++)
		row_clear(&res->rows[i]);
	free(res->rows);
	free(res->branch);
	free(res->machine);
	free(res->baseline_branch);
	free(res);
}

int bg_check_exit_code(const bg_check_result *res)
{
	if (res->count[BG_VERDICT_FAILED])
		return 3;
	return res->count[BG_VERDICT_REGRESSION] ? 1 : 0;
}

/*
 * An explicit baseline (compare, bisect): the given runs, which must be
 * complete and of one commit on the candidates' machine, in the order given.
 */
static int take_explicit(walk_state *w, const bg_check_opts *o, bg_check_result *res)
{
	size_t k;
	int error = 0;

	for (k = 0; k < o->nbaseline && error == 0; k++) {
		bg_run_row row;

		if ((error = bg_store_run_get(w->ctx, w->store, o->baseline[k], &row)) < 0)
			return error;
		if (!row.complete)
			error = bg_error_set(w->ctx, BG_EINPUT,
			                     "baseline run %lld is incomplete and cannot be used",
			                     (long long)row.id);
		else if (strcmp(row.machine, res->machine))
			error = bg_error_set(w->ctx, BG_EINPUT,
			                     "baseline run %lld was measured on machine %s, not %s",
			                     (long long)row.id, row.machine, res->machine);
		else if (k == 0) {
			memcpy(res->baseline_from, row.sha, sizeof(res->baseline_from));
			memcpy(res->reference, row.sha, sizeof(res->reference));
		} else if (strcmp(row.sha, res->baseline_from))
			error = bg_error_set(w->ctx, BG_EINPUT,
			                     "baseline runs %lld and %lld are of different commits",
			                     (long long)o->baseline[0], (long long)row.id);
		bg_run_row_clear(&row);
		if (error == 0)
			error = take_run(w, o->baseline[k]);
	}
	return error;
}

static int check_opts(bg_ctx *ctx, const bg_check_opts *o)
{
	if (!o->runs || !o->nruns)
		return bg_error_set(ctx, BG_EINPUT, "no run to check");
	if (o->nbaseline) {
		if (!o->baseline)
			return bg_error_set(ctx, BG_EINPUT, "no baseline runs given");
		if (o->min_runs < 2)
			return bg_error_set(ctx, BG_EINPUT, "min_runs %d: need at least 2",
			                    o->min_runs);
	} else if (o->window < 2 || o->min_runs < 2 || o->min_runs > o->window)
		return bg_error_set(
		        ctx, BG_EINPUT,
		        "baseline window %d and min_runs %d: need 2 <= min_runs <= window",
		        o->window, o->min_runs);
	if (!(o->thresholds.alpha > 0 && o->thresholds.alpha < 1))
		return bg_error_set(ctx, BG_EINPUT, "alpha must be between 0 and 1 (got %g)",
		                    o->thresholds.alpha);
	if (!(o->thresholds.min_change >= 0) || !(o->thresholds.min_effect >= 0))
		return bg_error_set(ctx, BG_EINPUT, "min_change and min_effect must be >= 0");
	return 0;
}

/* Reads the candidate runs: they must be complete and share commit and machine. */
static int load_candidates(bg_ctx *ctx, bg_store *store, const bg_check_opts *o,
                           bg_check_result *res, bg_run_series ***all, size_t *nall,
                           bg_run_series **blocks, size_t *nblock)
{
	size_t k, i, total = 0;
	int error;

	for (k = 0; k < o->nruns; k++) {
		bg_run_row row;

		if ((error = bg_store_run_get(ctx, store, o->runs[k], &row)) < 0)
			return error;
		if (!row.complete) {
			error = bg_error_set(
			        ctx, BG_EINPUT,
			        "run %lld is incomplete (it was interrupted) and cannot be "
			        "judged",
			        (long long)row.id);
		} else if (k == 0) {
			res->run_id = row.id;
			memcpy(res->sha, row.sha, sizeof(res->sha));
			res->branch = row.branch;
			res->machine = row.machine;
			res->dirty = row.dirty;
			row.branch = row.machine = NULL;
		} else if (strcmp(row.sha, res->sha) || strcmp(row.machine, res->machine)) {
			error = bg_error_set(
			        ctx, BG_EINPUT,
			        "runs %lld and %lld are of different commits or machines",
			        (long long)res->run_id, (long long)row.id);
		}
		bg_run_row_clear(&row);
		if (error < 0)
			return error;
		if ((error = bg_store_run_series(ctx, store, o->runs[k], &blocks[k], &nblock[k])) <
		    0)
			return error;
		total += nblock[k];
	}
	if (!(*all = malloc((total ? total : 1) * sizeof(**all))))
		return bg_error_oom(ctx);
	for (k = 0; k < o->nruns; k++)
		for (i = 0; i < nblock[k]; i++)
			(*all)[(*nall)++] = &blocks[k][i];
	qsort(*all, *nall, sizeof(**all), cmp_series_id);
	return 0;
}

/* Groups the candidate runs' series by id: one mean per run each. */
static int group_series(bg_ctx *ctx, bg_run_series **all, size_t nall, size_t nruns, size_t window,
                        cand_series **out, size_t *nout)
{
	cand_series *cs;
	size_t i, n = 0;

	*out = cs = calloc(nall ? nall : 1, sizeof(*cs));
	if (!cs)
		return bg_error_oom(ctx);
	for (i = 0; i < nall; i++) {
		cand_series *c;

		if (!n || cs[n - 1].series_id != all[i]->series_id) {
			c = &cs[n++];
			c->series_id = all[i]->series_id;
			c->info = all[i];
			c->cur = malloc(nruns * sizeof(double));
			c->base = malloc(window * sizeof(double));
			if (!c->cur || !c->base) {
				*nout = n;
				return bg_error_oom(ctx);
			}
		}
		c = &cs[n - 1];
		c->cur[c->ncur++] = all[i]->summary.robust_mean;
		c->samples += all[i]->summary.n;
		c->outliers += all[i]->summary.outliers;
	}
	*nout = n;
	return 0;
}

/* For a paired check: each series' candidate values in run order (qsort
 * does not keep the runs' order within a series). */
static int order_candidates(bg_ctx *ctx, const bg_check_opts *o, bg_run_series **blocks,
                            const size_t *nblock, cand_series *cs, size_t n)
{
	size_t i, k, lo, hi;

	for (i = 0; i < n; i++) {
		if (!(cs[i].cur_ord = malloc(o->nruns * sizeof(double))))
			return bg_error_oom(ctx);
		for (k = 0; k < o->nruns; k++)
			cs[i].cur_ord[k] = NAN;
	}
	for (k = 0; k < o->nruns; k++)
		for (i = 0; i < nblock[k]; i++) {
			int64_t id = blocks[k][i].series_id;

			for (lo = 0, hi = n; lo < hi;) {
				size_t mid = (lo + hi) / 2;
				if (cs[mid].series_id < id)
					lo = mid + 1;
				else
					hi = mid;
			}
			if (lo < n && cs[lo].series_id == id)
				cs[lo].cur_ord[k] = blocks[k][i].summary.robust_mean;
		}
	return 0;
}

/* Paired only when every run on both sides has the series. */
static int can_pair(const bg_check_opts *o, const cand_series *c)
{
	size_t k;

	if (!o->paired || !c->cur_ord || o->nbaseline != o->nruns || c->nbase != o->nruns ||
	    o->nruns < 2)
		return 0;
	for (k = 0; k < o->nruns; k++)
		if (!isfinite(c->cur_ord[k]) || !(c->cur_ord[k] > 0) || !(c->base[k] > 0))
			return 0;
	return 1;
}

static char *join_series(const char *benchmark, const char *metric)
{
	bg_buf b = BG_BUF_INIT;

	if (bg_buf_printf(&b, "%s:%s", benchmark, metric) < 0)
		return NULL;
	return bg_buf_detach(&b);
}

static int add_outcome_rows(bg_ctx *ctx, bg_store *store, const bg_check_opts *o,
                            bg_check_result *res, size_t *cap)
{
	size_t k, i, j;
	int error;

	for (k = 0; k < o->nruns; k++) {
		bg_outcome *out = NULL;
		size_t n = 0;

		if ((error = bg_store_run_outcomes(ctx, store, o->runs[k], &out, &n)) < 0)
			return error;
		for (i = 0; i < n; i++) {
			bg_verdict v = out[i].status == BG_BENCH_SKIPPED ? BG_VERDICT_SKIPPED
			                                                 : BG_VERDICT_FAILED;
			bg_verdict_row *r = NULL;

			for (j = 0; j < res->nrows; j++)
				if (!res->rows[j].metric &&
				    !strcmp(res->rows[j].benchmark, out[i].benchmark))
					r = &res->rows[j];
			if (r) {
				/* Failed in one run, skipped in another: failed wins. */
				if (v == BG_VERDICT_FAILED && r->verdict != BG_VERDICT_FAILED) {
					r->verdict = v;
					free(r->message);
					r->message = bg_strdup(out[i].message);
				}
				r->current_runs++;
				continue;
			}
			if (res->nrows == *cap) {
				size_t ncap = *cap * 2 + 8;
				bg_verdict_row *p = realloc(res->rows, ncap * sizeof(*p));
				if (!p) {
					bg_outcomes_free(out, n);
					return bg_error_oom(ctx);
				}
				res->rows = p;
				*cap = ncap;
			}
			r = &res->rows[res->nrows++];
			memset(r, 0, sizeof(*r));
			r->verdict = v;
			r->series = bg_strdup(out[i].benchmark);
			r->benchmark = bg_strdup(out[i].benchmark);
			r->message = bg_strdup(out[i].message);
			r->p_adjusted = r->p_better_adjusted = NAN;
			r->current_runs = 1;
			if (!r->series || !r->benchmark) {
				bg_outcomes_free(out, n);
				return bg_error_oom(ctx);
			}
		}
		bg_outcomes_free(out, n);
	}
	return 0;
}

/* Benjamini-Hochberg (or nothing) over the tested rows, then the verdicts. */
static int decide(bg_ctx *ctx, const bg_check_opts *o, bg_check_result *res)
{
	const bg_thresholds *th = &o->thresholds;
	double *pw = malloc((res->nrows + 1) * sizeof(double));
	double *pb = malloc((res->nrows + 1) * sizeof(double));
	double *aw = malloc((res->nrows + 1) * sizeof(double));
	double *ab = malloc((res->nrows + 1) * sizeof(double));
	size_t i;
	int error = 0;

	if (!pw || !pb || !aw || !ab) {
		error = bg_error_oom(ctx);
		goto cleanup;
	}
	for (i = 0; i < res->nrows; i++) {
		int tested = res->rows[i].verdict == BG_VERDICT_UNCHANGED;
		pw[i] = tested ? res->rows[i].test.p_worse : NAN;
		pb[i] = tested ? res->rows[i].test.p_better : NAN;
	}
	/* Regressions and improvements are separate families, each controlled
	 * at alpha: a suite's improvements never make a regression easier. */
	if (th->fdr) {
		if ((error = bg_stats_bh(ctx, pw, res->nrows, aw)) < 0 ||
		    (error = bg_stats_bh(ctx, pb, res->nrows, ab)) < 0)
			goto cleanup;
	} else {
		memcpy(aw, pw, res->nrows * sizeof(double));
		memcpy(ab, pb, res->nrows * sizeof(double));
	}
	for (i = 0; i < res->nrows; i++) {
		bg_verdict_row *r = &res->rows[i];

		if (r->verdict != BG_VERDICT_UNCHANGED)
			continue;
		r->p_adjusted = aw[i];
		r->p_better_adjusted = ab[i];
		/* NAN change (a zero baseline mean) fails every comparison: unchanged. */
		if (aw[i] < th->alpha && r->test.change >= th->min_change &&
		    r->test.effect >= th->min_effect)
			r->verdict = BG_VERDICT_REGRESSION;
		else if (ab[i] < th->alpha && r->test.change <= -th->min_change &&
		         r->test.effect <= -th->min_effect)
			r->verdict = BG_VERDICT_IMPROVEMENT;
	}
cleanup:
	free(pw);
	free(pb);
	free(aw);
	free(ab);
	return error;
}

int bg_check_run(bg_ctx *ctx, bg_store *store, bg_repo *repo, const bg_check_opts *opts,
                 bg_check_result **out)
{
	bg_check_result *res = NULL;
	bg_run_series **blocks = NULL, **all = NULL;
	size_t *nblock = NULL, nall = 0, nseries = 0, cap, i, k;
	cand_series *cs = NULL;
	bg_stats_cache qcache;
	walk_state w;
	char tip[41];
	int error;

	*out = NULL;
	memset(&w, 0, sizeof(w));
	memset(&qcache, 0, sizeof(qcache));
	if ((error = check_opts(ctx, opts)) < 0)
		return error;
	res = calloc(1, sizeof(*res));
	blocks = calloc(opts->nruns, sizeof(*blocks));
	nblock = calloc(opts->nruns, sizeof(*nblock));
	if (!res || !blocks || !nblock ||
	    (opts->baseline_branch && !(res->baseline_branch = bg_strdup(opts->baseline_branch)))) {
		error = bg_error_oom(ctx);
		goto cleanup;
	}
	res->window = opts->nbaseline ? (int)opts->nbaseline : opts->window;
	w.window = reach(opts->window);
	if (opts->nbaseline > w.window)
		w.window = opts->nbaseline;
	if ((error = load_candidates(ctx, store, opts, res, &all, &nall, blocks, nblock)) < 0 ||
	    (error = group_series(ctx, all, nall, opts->nruns, w.window, &cs, &nseries)) < 0 ||
	    (opts->paired &&
	     (error = order_candidates(ctx, opts, blocks, nblock, cs, nseries)) < 0))
		goto cleanup;
	w.ctx = ctx;
	w.store = store;
	w.exclude_sha = res->sha;
	w.series = cs;
	w.nseries = nseries;
	w.reference = res->reference;

	if (opts->nbaseline) {
		if ((error = take_explicit(&w, opts, res)) < 0)
			goto cleanup;
	} else {
		/* Where the baseline history starts. */
		if ((error = bg_repo_branch_tip(ctx, repo, opts->baseline_branch, tip)) < 0)
			goto cleanup;
		if ((error = bg_repo_merge_base(ctx, repo, res->sha, tip, res->baseline_from)) <
		    0) {
			if (error == BG_ENOTFOUND)
				error = bg_error_set(
				        ctx, BG_ENOTFOUND,
				        "run %lld measured commit %.12s, which is not in this "
				        "repository (fetch its history, e.g. fetch-depth: 0)",
				        (long long)res->run_id, res->sha);
			goto cleanup;
		}

		/* Walk it, taking run means until every series has its window. */
		if ((error = bg_store_baseline_runs(ctx, store, res->machine, &w.refs, &w.nrefs)) <
		    0)
			goto cleanup;
		if (w.nrefs)
			qsort(w.refs, w.nrefs, sizeof(*w.refs), cmp_ref);
		if (nseries && w.nrefs) {
			error = bg_repo_walk_first_parent(ctx, repo, res->baseline_from, on_commit,
			                                  &w);
			if (w.error < 0)
				error = w.error;
			if (error < 0)
				goto cleanup;
		}
	}

	/* One row per series, tested where the baseline is long enough. */
	cap = nseries + 8;
	if (!(res->rows = calloc(cap, sizeof(*res->rows)))) {
		error = bg_error_oom(ctx);
		goto cleanup;
	}
	for (i = 0; i < nseries; i++) {
		bg_verdict_row *r = &res->rows[res->nrows++];
		const bg_run_series *info = cs[i].info;

		r->series = join_series(info->benchmark, info->metric);
		r->benchmark = bg_strdup(info->benchmark);
		r->metric = bg_strdup(info->metric);
		r->unit = bg_strdup(info->unit);
		r->direction = info->direction;
		r->current_runs = cs[i].ncur;
		r->samples = cs[i].samples;
		r->outlier_samples = cs[i].outliers;
		r->p_adjusted = r->p_better_adjusted = NAN;
		if (!r->series || !r->benchmark || !r->metric || !r->unit) {
			error = bg_error_oom(ctx);
			goto cleanup;
		}
		/* A run far outside the others (a neighbour's burst on a shared
		 * machine) is reported and left out of the estimate, not silently
		 * kept or lost. */
		if (can_pair(opts, &cs[i])) {
			r->baseline_runs = cs[i].nbase;
			if ((error = bg_stats_paired_t(ctx, cs[i].cur_ord, cs[i].base, cs[i].nbase,
			                               info->direction, opts->thresholds.alpha,
			                               &r->test)) < 0)
				goto cleanup;
			r->verdict = BG_VERDICT_UNCHANGED;
			continue;
		}
		if ((error = bg_stats_drop_outliers(ctx, cs[i].base, &cs[i].nbase,
		                                    BG_OUTLIER_SIGMAS, &r->baseline_outliers)) < 0)
			goto cleanup;
		/* The newest `window` of what is left. */
		if (!opts->nbaseline && cs[i].nbase > (size_t)opts->window)
			cs[i].nbase = (size_t)opts->window;
		r->baseline_runs = cs[i].nbase;
		if (cs[i].nbase < (size_t)opts->min_runs) {
			bg_buf b = BG_BUF_INIT;
			r->verdict = BG_VERDICT_NO_BASELINE;
			if (bg_buf_printf(&b, "%zu baseline run%s, %d needed", cs[i].nbase,
			                  cs[i].nbase == 1 ? "" : "s", opts->min_runs) < 0 ||
			    !(r->message = bg_buf_detach(&b))) {
				bg_buf_clear(&b);
				error = bg_error_oom(ctx);
				goto cleanup;
			}
			continue;
		}
		if (r->baseline_outliers) {
			bg_buf b = BG_BUF_INIT;
			if (bg_buf_printf(&b, "%zu outlier run%s left out of the baseline",
			                  r->baseline_outliers,
			                  r->baseline_outliers == 1 ? "" : "s") < 0 ||
			    !(r->message = bg_buf_detach(&b))) {
				bg_buf_clear(&b);
				error = bg_error_oom(ctx);
				goto cleanup;
			}
		}
		if ((error = bg_stats_compare_cached(
		             ctx, cs[i].base, cs[i].nbase, cs[i].cur, cs[i].ncur, info->direction,
		             opts->thresholds.alpha, &qcache, &r->test)) < 0)
			goto cleanup;
		r->verdict = BG_VERDICT_UNCHANGED;
	}
	if ((error = add_outcome_rows(ctx, store, opts, res, &cap)) < 0 ||
	    (error = decide(ctx, opts, res)) < 0)
		goto cleanup;
	qsort(res->rows, res->nrows, sizeof(*res->rows), cmp_rows);
	for (i = 0; i < res->nrows; i++)
		res->count[res->rows[i].verdict]++;
	*out = res;
	res = NULL;

cleanup:
	for (i = 0; cs && i < nseries; i++) {
		free(cs[i].cur);
		free(cs[i].base);
		free(cs[i].cur_ord);
	}
	free(cs);
	free(all);
	for (k = 0; blocks && k < opts->nruns; k++)
		bg_run_series_free(blocks[k], nblock[k]);
	free(blocks);
	free(nblock);
	free(w.refs);
	bg_check_result_free(res);
	return error;
}

static int flagged(bg_verdict v)
{
	return v == BG_VERDICT_REGRESSION || v == BG_VERDICT_IMPROVEMENT;
}

/* Demotes flagged rows of res whose verdict `other` does not share. */
static int require(bg_ctx *ctx, bg_check_result *res, const bg_check_result *other, int first)
{
	size_t i, j;

	for (i = 0; i < res->nrows; i++) {
		bg_verdict_row *r = &res->rows[i];
		const bg_verdict_row *c = NULL;
		bg_buf b = BG_BUF_INIT;
		int err;

		if (!flagged(r->verdict))
			continue;
		for (j = 0; j < other->nrows && !c; j++)
			if (!strcmp(other->rows[j].series, r->series))
				c = &other->rows[j];
		if (c && c->verdict == r->verdict)
			continue;
		if (first)
			err = bg_buf_printf(
			        &b,
			        "%s of %+.1f%% only with the confirmation runs added: the "
			        "first run%s did not show it",
			        bg_verdict_name(r->verdict), 100.0 * r->test.change,
			        c && c->current_runs == 1 ? "" : "s");
		else
			err = bg_buf_printf(
			        &b, "%s of %+.1f%% not reproduced by %zu confirmation run%s",
			        bg_verdict_name(r->verdict), 100.0 * r->test.change,
			        c ? c->current_runs : 0, c && c->current_runs == 1 ? "" : "s");
		if (err < 0) {
			bg_buf_clear(&b);
			return bg_error_oom(ctx);
		}
		free(r->message);
		r->message = bg_buf_detach(&b);
		res->count[r->verdict]--;
		r->verdict = BG_VERDICT_UNCHANGED;
		res->count[r->verdict]++;
	}
	qsort(res->rows, res->nrows, sizeof(*res->rows), cmp_rows);
	return 0;
}

int bg_check_confirm(bg_ctx *ctx, bg_check_result *res, const bg_check_result *confirm)
{
	return require(ctx, res, confirm, 0);
}

int bg_check_confirm_first(bg_ctx *ctx, bg_check_result *res, const bg_check_result *first)
{
	return require(ctx, res, first, 1);
}

/* The run summary of one series in each run (NAN where a run lacks it). */
static int series_values(bg_ctx *ctx, bg_store *store, const int64_t *runs, size_t n,
                         const char *benchmark, const char *metric, double *out)
{
	size_t k;
	int error;

	for (k = 0; k < n; k++)
		if ((error = bg_store_run_mean(ctx, store, runs[k], benchmark, metric, &out[k])) <
		    0)
			return error;
	return 0;
}

int bg_check_confirm_paired(bg_ctx *ctx, bg_store *store, bg_check_result *res, const int64_t *cur,
                            const int64_t *ref, size_t pairs, const bg_thresholds *th)
{
	double alpha = th->alpha;
	double *c = NULL, *r = NULL;
	size_t i, k, n;
	int error = 0;

	if (!pairs)
		return bg_error_set(ctx, BG_EINPUT, "no confirmation pairs");
	c = malloc(pairs * sizeof(double));
	r = malloc(pairs * sizeof(double));
	if (!c || !r) {
		error = bg_error_oom(ctx);
		goto cleanup;
	}
	for (i = 0; i < res->nrows; i++) {
		bg_verdict_row *row = &res->rows[i];
		bg_paired_test pt;
		bg_buf b = BG_BUF_INIT;
		int kept;

		if (!flagged(row->verdict))
			continue;
		if ((error = series_values(ctx, store, cur, pairs, row->benchmark, row->metric,
		                           c)) < 0 ||
		    (error = series_values(ctx, store, ref, pairs, row->benchmark, row->metric,
		                           r)) < 0)
			goto cleanup;
		/* Pairs where either side lacks the series (it failed there) drop out. */
		for (k = n = 0; k < pairs; k++)
			if (isfinite(c[k]) && isfinite(r[k]) && c[k] > 0 && r[k] > 0) {
				c[n] = c[k];
				r[n] = r[k];
				n++;
			}
		/* The reference has no such series (a benchmark it did not have):
		 * nothing to pair with, so the verdict stands as it was. */
		if (!n)
			continue;
		kept = 0;
		memset(&pt, 0, sizeof(pt));
		if (fabs(row->test.base_mean) > 0) {
			if ((error = bg_stats_paired(ctx, c, r, n,
			                             row->test.base_sd / fabs(row->test.base_mean),
			                             row->test.n_base, row->direction, &pt)) < 0)
				goto cleanup;
			kept = row->verdict == BG_VERDICT_REGRESSION
			               ? pt.p_worse < alpha && pt.change > 0
			               : pt.p_better < alpha && pt.change < 0;
			/* And in every pair, by at least min_change: a run that a
			 * neighbour slowed by half makes one pair look like a
			 * regression, and would carry the mean of two with it; a
			 * real regression is in each. */
			for (k = 0; kept && k < n; k++) {
				double ch = c[k] / r[k] - 1.0;

				if (row->direction == BG_DIR_HIGHER)
					ch = r[k] / c[k] - 1.0;
				kept = row->verdict == BG_VERDICT_REGRESSION
				               ? ch >= th->min_change
				               : ch <= -th->min_change;
			}
		}
		if (kept)
			error = bg_buf_printf(
			        &b,
			        "confirmed: %+.1f%% against %.12s in %zu interleaved "
			        "pair%s (p %.2g)",
			        100.0 * pt.change, res->reference, n, n == 1 ? "" : "s",
			        row->verdict == BG_VERDICT_REGRESSION ? pt.p_worse : pt.p_better);
		else
			error = bg_buf_printf(
			        &b,
			        "%s of %+.1f%% not reproduced next to %.12s: %+.1f%% in "
			        "%zu interleaved pair%s",
			        bg_verdict_name(row->verdict), 100.0 * row->test.change,
			        res->reference, 100.0 * pt.change, n, n == 1 ? "" : "s");
		if (error < 0) {
			bg_buf_clear(&b);
			error = bg_error_oom(ctx);
			goto cleanup;
		}
		free(row->message);
		row->message = bg_buf_detach(&b);
		if (!kept) {
			res->count[row->verdict]--;
			row->verdict = BG_VERDICT_UNCHANGED;
			res->count[row->verdict]++;
		}
	}
	qsort(res->rows, res->nrows, sizeof(*res->rows), cmp_rows);
cleanup:
	free(c);
	free(r);
	return error;
}

int bg_check_flagged(bg_ctx *ctx, const bg_check_result *res, char ***benchmarks)
{
	char **v = calloc(res->nrows + 1, sizeof(char *));
	size_t i, j, n = 0;

	*benchmarks = NULL;
	if (!v)
		return bg_error_oom(ctx);
	for (i = 0; i < res->nrows; i++) {
		int seen = 0;

		if (!flagged(res->rows[i].verdict))
			continue;
		for (j = 0; j < n; j++)
			seen |= !strcmp(v[j], res->rows[i].benchmark);
		if (seen)
			continue;
		if (!(v[n++] = bg_strdup(res->rows[i].benchmark))) {
			bg_strv_free(v);
			return bg_error_oom(ctx);
		}
	}
	*benchmarks = v;
	return 0;
}
