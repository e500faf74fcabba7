/*
 * check.c -- the rolling check: candidate runs judged against the baseline
 * of earlier runs (docs/statistics.md, "The rolling baseline"), or against
 * an explicit baseline (compare and bisect's ends, in pairs).
 *
 * The baseline of a series is the last `window` complete, clean runs on the
 * candidate's machine whose commits lie on the first-parent history of
 * merge-base(candidate, baseline branch tip), the candidate's own commit
 * left out, and only runs that stand for a moment of their own (not one
 * side of a paired measurement).  The store lists the machine's clean runs
 * once; the git walk orders them by ancestry, newest first; run means are
 * then read run by run only until every series has its window (and a few
 * spare runs, so that an outlier run left out of the estimate does not
 * shorten it), so a check reads about `window` runs' summaries however long
 * the history is.  The run, not the sample, is the unit of replication: the
 * test sees one mean per run.  The rule itself is bg_judge's (verdict.c).
 */
#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "internal.h"

static const char *const verdict_names[BG_VERDICT_COUNT] = {
	"regression", "improvement", "unchanged", "no-baseline", "skipped", "failed",
};

static const char *const confirm_names[BG_CONFIRM_COUNT] = {
	"none", "confirmed", "not-confirmed", "found", "cleared", "undecided",
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

int bg_verdict_from_name(const char *name, bg_verdict *out)
{
	int v;

	if (!name || !out)
		return BG_EINPUT;

	for (v = 0; v < BG_VERDICT_COUNT; v++)
		if (name && !strcmp(name, verdict_names[v])) {
			*out = (bg_verdict)v;
			return 0;
		}
	return BG_EINPUT;
}

const char *bg_confirm_status_name(bg_confirm_status s)
{
	return (unsigned)s < BG_CONFIRM_COUNT ? confirm_names[s] : "?";
}

/* A series of the candidate runs while it is being judged. */
typedef struct {
	int64_t series_id;
	const bg_run_series *info; /* names, unit, direction (from the first run having it) */
	double *cur;               /* one summary (robust mean) per candidate run */
	size_t ncur, samples, outliers;
	double *base; /* up to window + spare baseline run means, newest first */
	size_t nbase;
	size_t target;   /* the baseline runs there are for it, up to the window */
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
	const int64_t *runs; /* the candidate runs, whose series these are */
	size_t nruns;
	const char *machine;
	bool targeted;  /* each series' target counted, not the window */
	int64_t *taken; /* the runs that gave the baseline a value */
	size_t ntaken, taken_cap;
	char *reference;     /* set to the first commit that gives runs */
	size_t unmeasured;   /* commits walked before it, with no run */
	bg_walk_bound bound; /* when no stored commit is left behind the walk */
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
	char **inst = NULL;
	size_t n = 0, i = 0, j = 0, added = 0;
	int error;

	if ((error = bg_store_run_means(w->ctx, w->store, run_id, &ids, &means, &inst, &n)) < 0)
		return error;
	/* Both sides are sorted by series id: a merge. */
	while (i < n && j < w->nseries) {
		cand_series *cs = &w->series[j];

		if (ids[i] < cs->series_id) {
			i++;
		} else if (ids[i] > cs->series_id) {
			j++;
		} else {
			/* Measured by another instrument (another Valgrind, counters
			 * where it now simulates): not comparable, not a baseline. */
			if (cs->nbase < w->window && isfinite(means[i]) &&
			    bg_streq_null(inst[i], cs->info->instrument)) {
				cs->base[cs->nbase++] = means[i];
				added++;
				if (cs->nbase == cs->target)
					w->full++;
			}
			i++;
			j++;
		}
	}
	free(ids);
	free(means);
	bg_strings_free(inst, n);
	if (added) {
		if (bg_grow((void **)&w->taken, &w->taken_cap, w->ntaken, sizeof(*w->taken)) < 0)
			return bg_error_oom(w->ctx);
		w->taken[w->ntaken++] = run_id;
	}
	return 0;
}

/* The first stored run of commit `sha` in refs (sorted by sha), or nrefs. */
static size_t find_ref(const bg_run_ref *refs, size_t nrefs, const char *sha)
{
	size_t lo = 0, hi = nrefs;

	while (lo < hi) {
		size_t mid = (lo + hi) / 2;
		if (strcmp(refs[mid].sha, sha) < 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo < nrefs && !strcmp(refs[lo].sha, sha) ? lo : nrefs;
}

static int set_targets(walk_state *w);

static int on_commit(const char *sha, int64_t time, void *data)
{
	walk_state *w = data;
	size_t k;

	if (!strcmp(sha, w->exclude_sha))
		return bg_walk_bound_done(&w->bound, time);
	/* The first (newest) run of this commit. */
	k = find_ref(w->refs, w->nrefs, sha);
	if (k < w->nrefs)
		bg_walk_bound_meet(&w->bound, w->refs[k].author_time);
	else if (w->reference && !*w->reference)
		w->unmeasured++;
	for (; k < w->nrefs && !strcmp(w->refs[k].sha, sha); k++) {
		if (w->reference && !*w->reference)
			memcpy(w->reference, sha, 41);
		if ((w->error = take_run(w, w->refs[k].id)) < 0)
			return -1;
		w->used++;
		/* A window's worth of runs taken and a series still short:
		 * count what there is for each, so as not to walk the whole
		 * history for it. */
		if (w->full < w->nseries && !w->targeted && w->used >= w->window &&
		    (w->error = set_targets(w)) < 0)
			return -1;
		if (w->full == w->nseries)
			return 1;
	}
	/* No stored commit left that could lie further back. */
	return bg_walk_bound_done(&w->bound, time);
}

static int find_series_id(const void *key, const void *elem)
{
	int64_t x = *(const int64_t *)key, y = ((const cand_series *)elem)->series_id;

	return (x > y) - (x < y);
}

/* Counting the series' stored runs that a baseline may draw from. */
typedef struct {
	walk_state *w;
	bool *counted; /* by series index */
	size_t left;   /* series not counted yet */
} avail_state;

static void on_avail(int64_t series_id, size_t count, void *data)
{
	avail_state *a = data;
	cand_series *cs = bsearch(&series_id, a->w->series, a->w->nseries, sizeof(*a->w->series),
	                          find_series_id);
	size_t i;

	if (!cs)
		return;
	i = (size_t)(cs - a->w->series);
	if (a->counted[i])
		return;
	a->counted[i] = true;
	a->left--;
	cs->target = count < a->w->window ? count : a->w->window;
}

/*
 * How many baseline runs each series can get: the runs the walk may take
 * that measured it, up to the window.  The walk stops once every series
 * has that many; waiting for a full window instead walked the whole
 * history whenever the candidate measured a series no stored run has
 * (0.8 s against 0.03 s in 8,000 runs of 200 series).  Runs off the
 * walk's path still count, so a series measured only on other branches
 * lets the walk run to its end, as it did.
 *
 * Counted only once the walk has taken a window's worth of runs and a
 * series is still short, which most checks never reach: the count costs
 * a statement over every series (25 ms for 1,000 series on PostgreSQL).
 * A series the candidate runs' statements leave out keeps the window
 * (the walk may go on; it never stops early).
 */
static int set_targets(walk_state *w)
{
	avail_state a = { w, NULL, w->nseries };
	size_t i;
	int error = 0;

	w->targeted = true;
	if (!w->nseries)
		return 0;
	if (!(a.counted = calloc(w->nseries, sizeof(*a.counted))))
		return bg_error_oom(w->ctx);
	for (i = 0; i < w->nruns && a.left && error == 0; i++)
		error = bg_store_series_avail(w->ctx, w->store, w->runs[i], w->machine,
		                              w->exclude_sha, w->window, on_avail, &a);
	w->full = 0;
	for (i = 0; i < w->nseries; i++)
		if (w->series[i].nbase >= w->series[i].target)
			w->full++;
	free(a.counted);
	return error;
}

/* Each stored commit a walk in `repo` may meet (`exclude`, the
 * candidate's own, left out): what bounds it.  refs sorted by sha. */
static int bound_of(bg_ctx *ctx, bg_repo *repo, const bg_run_ref *refs, size_t nrefs,
                    const char *exclude, bg_walk_bound *bound)
{
	bg_walk_point *p = malloc((nrefs ? nrefs : 1) * sizeof(*p));
	size_t i, n = 0;
	int error;

	if (!p)
		return bg_error_oom(ctx);
	for (i = 0; i < nrefs; i++)
		if ((i == 0 || strcmp(refs[i].sha, refs[i - 1].sha)) &&
		    strcmp(refs[i].sha, exclude)) {
			p[n].sha = refs[i].sha;
			p[n++].author_time = refs[i].author_time;
		}
	error = bg_walk_bound_init(bound, repo, p, n);
	free(p);
	return error < 0 ? bg_error_oom(ctx) : 0;
}

typedef struct {
	const bg_run_ref *refs;
	size_t nrefs, met, want;
	const char *exclude;
	bg_walk_bound bound;
} probe_state;

static int on_probe(const char *sha, int64_t time, void *data)
{
	probe_state *p = data;
	size_t k;

	if (strcmp(sha, p->exclude) && (k = find_ref(p->refs, p->nrefs, sha)) < p->nrefs) {
		bg_walk_bound_meet(&p->bound, p->refs[k].author_time);
		if (++p->met >= p->want)
			return 1;
	}
	return bg_walk_bound_done(&p->bound, time);
}

int bg_check__probe_history(bg_ctx *ctx, bg_store *store, bg_repo *repo, const char *machine,
                            const char *from, const char *exclude_sha, size_t window)
{
	bg_run_ref *refs = NULL;
	probe_state p;
	size_t nrefs = 0;
	int error;

	memset(&p, 0, sizeof(p));
	if ((error = bg_store_baseline_runs(ctx, store, machine, &refs, &nrefs)) < 0)
		return error;
	if (nrefs)
		qsort(refs, nrefs, sizeof(*refs), cmp_ref);
	p.refs = refs;
	p.nrefs = nrefs;
	p.want = window ? window : 1;
	p.exclude = exclude_sha;
	if ((error = bound_of(ctx, repo, refs, nrefs, exclude_sha, &p.bound)) == 0 && nrefs)
		error = bg_repo_walk_first_parent(ctx, repo, from, on_probe, &p);
	bg_walk_bound_clear(&p.bound);
	free(refs);
	return error;
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
	free(res->other_machine);
	free(res->other_machine_differs);
	free(res);
}

void bg_check_sort(bg_check_result *res)
{
	size_t i;

	if (!res)
		return;

	qsort(res->rows, res->nrows, sizeof(*res->rows), cmp_rows);
	memset(res->count, 0, sizeof(res->count));
	for (i = 0; i < res->nrows; i++)
		res->count[res->rows[i].verdict]++;
}

int bg_check_exit_code(const bg_check_result *res)
{
	/* No result: nothing was judged, which is no pass. */
	if (!res)
		return 3;
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
	if (!(o->thresholds.min_change >= 0 && o->thresholds.min_change < BG_MIN_CHANGE_LIMIT) ||
	    !(o->thresholds.min_effect >= 0))
		return bg_error_set(ctx, BG_EINPUT,
		                    "min_change must be from 0 to below 1 and min_effect >= 0 "
		                    "(got %g, %g)",
		                    o->thresholds.min_change, o->thresholds.min_effect);
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

/* Row i, an outcome's (metric NULL), is of benchmark `key`. */
static int same_outcome_row(const void *set, size_t i, const void *key)
{
	return !strcmp(((const bg_check_result *)set)->rows[i].benchmark, key);
}

static int add_outcome_rows(bg_ctx *ctx, bg_store *store, const bg_check_opts *o,
                            bg_check_result *res, size_t *cap)
{
	/* Rows of outcomes by benchmark: a run may hold a million skipped
	 * benchmarks, and a walk over the rows for each would be quadratic. */
	bg_index ix = { 0 };
	size_t k, i, j;
	int error = 0;

	/* Rows without a metric may be there already; the last of a name wins,
	 * as the walk over them did: they are filed from the last one on. */
	for (j = res->nrows; j-- > 0;) {
		uint64_t h;

		if (res->rows[j].metric)
			continue;
		h = bg_index__hash(res->rows[j].benchmark, NULL);
		if (bg_index__find(&ix, h, same_outcome_row, res, res->rows[j].benchmark) !=
		    BG_INDEX_NONE)
			continue;
		if (bg_index__add(&ix, h, j) < 0) {
			error = bg_error_oom(ctx);
			goto cleanup;
		}
	}
	for (k = 0; k < o->nruns; k++) {
		bg_outcome *out = NULL;
		size_t n = 0;

		if ((error = bg_store_run_outcomes(ctx, store, o->runs[k], &out, &n)) < 0)
			goto cleanup;
		for (i = 0; i < n; i++) {
			bg_verdict v = out[i].status == BG_BENCH_SKIPPED ? BG_VERDICT_SKIPPED
			                                                 : BG_VERDICT_FAILED;
			uint64_t h = bg_index__hash(out[i].benchmark, NULL);
			bg_verdict_row *r;

			j = bg_index__find(&ix, h, same_outcome_row, res, out[i].benchmark);
			if (j != BG_INDEX_NONE) {
				r = &res->rows[j];
				/* Failed in one run, skipped in another: failed wins. */
				if (v == BG_VERDICT_FAILED && r->verdict != BG_VERDICT_FAILED) {
					r->verdict = v;
					free(r->message);
					r->message = bg_strdup(out[i].message);
					if (out[i].message && !r->message) {
						bg_outcomes_free(out, n);
						error = bg_error_oom(ctx);
						goto cleanup;
					}
				}
				r->current_runs++;
				continue;
			}
			if (bg_grow((void **)&res->rows, cap, res->nrows, sizeof(*res->rows)) < 0) {
				bg_outcomes_free(out, n);
				error = bg_error_oom(ctx);
				goto cleanup;
			}
			r = &res->rows[res->nrows++];
			memset(r, 0, sizeof(*r));
			r->verdict = v;
			r->series = bg_strdup(out[i].benchmark);
			r->benchmark = bg_strdup(out[i].benchmark);
			r->message = bg_strdup(out[i].message);
			r->p_adjusted = r->p_better_adjusted = NAN;
			r->current_runs = 1;
			if (!r->series || !r->benchmark || (out[i].message && !r->message) ||
			    bg_index__add(&ix, h, res->nrows - 1) < 0) {
				bg_outcomes_free(out, n);
				error = bg_error_oom(ctx);
				goto cleanup;
			}
		}
		bg_outcomes_free(out, n);
	}
cleanup:
	bg_index__free(&ix);
	return error;
}

/*
 * A machine with no stored runs judges nothing (every series is
 * no-baseline, exit 0).  Where the database holds runs of other machines,
 * the likeliest reason is a fingerprint that changed under the same
 * runner class (a memory size rounded the other way, a new VM type), and
 * a regression in this run would pass unseen: say so, with what differs
 * and how to judge against them.
 */
static int warn_new_machine(bg_ctx *ctx, bg_store *store, bg_check_result *res, int64_t run_id)
{
	bg_machine_runs *other = NULL;
	bg_machine *here = NULL, *there = NULL;
	bg_buf diff = BG_BUF_INIT;
	size_t n = 0, excluded = 0;
	int error;

	/* This machine has runs, all set aside: another machine is no answer. */
	if ((error = bg_store_excluded_count(ctx, store, res->machine, 0, &excluded)) < 0)
		goto cleanup;
	if (excluded) {
		bg_log(ctx, BG_LOG_WARN,
		       "every stored run of machine %s but this commit's is excluded (%zu: "
		       "exclude --list), so no series has a baseline and a regression would pass",
		       res->machine, excluded);
		goto cleanup;
	}
	if ((error = bg_store_other_machines(ctx, store, res->machine, 2, &other, &n)) < 0 ||
	    n == 0)
		goto cleanup;
	if ((error = bg_store_run_facts(ctx, store, run_id, &here)) < 0 ||
	    (error = bg_store_run_facts(ctx, store, other[0].newest, &there)) < 0)
		goto cleanup;
	if (bg_machine__differ(there, here, &diff) < 0 ||
	    !(res->other_machine = bg_strdup(other[0].machine)) ||
	    (diff.ptr && !(res->other_machine_differs = bg_strdup(diff.ptr)))) {
		error = bg_error_oom(ctx);
		goto cleanup;
	}
	res->other_machine_runs = other[0].runs;
	bg_log(ctx, BG_LOG_WARN,
	       "no run of machine %s is stored but this commit's, so no series has a baseline "
	       "and a regression would pass; the database has %zu run%s of machine %s%s%s%s%s. "
	       "If that is this runner class, judge against it with --machine %s "
	       "(docs/database.md, \"Name each runner class\")",
	       res->machine, other[0].runs, other[0].runs == 1 ? "" : "s", other[0].machine,
	       diff.ptr ? " (facts that differ, there -> here: " : "", diff.ptr ? diff.ptr : "",
	       diff.ptr ? ")" : "", n > 1 ? ", and of other machines" : "", other[0].machine);
cleanup:
	bg_buf_clear(&diff);
	bg_machine_free(here);
	bg_machine_free(there);
	bg_store_machine_runs_free(other, n);
	return error;
}

/*
 * The walk passed commits of the baseline branch with no run of this
 * machine before it met its runs: the baseline is older than the branch
 * where this commit meets it.  A CI cache restored from another job than
 * the branch's newest (a pull request's own, saved at its first push,
 * before main moved on) holds such a database, and a change that landed
 * in between was judged as this commit's: a docs-only pull request was
 * "confirmed" 30% slower.  A commit on the branch itself is left out: its
 * own job measures what its parents, pushed with it, did not.
 */
char *bg_check__stale_text(const bg_check_result *res)
{
	size_t n = res->stale_commits;

	return bg_printf("the baseline is older than %s: %zu commit%s of it, back from %.12s "
	                 "where this commit's history meets it, %s no run of machine %s, and "
	                 "the baseline's newest run is of commit %.12s, so a change made in %s "
	                 "is judged as this commit's (a results database restored from an older "
	                 "CI cache than %s's newest lacks their runs)",
	                 res->baseline_branch, n, n == 1 ? "" : "s", res->baseline_from,
	                 n == 1 ? "has" : "have", res->machine, res->reference,
	                 n == 1 ? "it" : "them", res->baseline_branch);
}

char *bg_check__missing_text(const bg_check_result *res)
{
	return bg_printf("no stored run of machine %s is on the history of %s, so no series has "
	                 "a baseline and a regression would pass; %zu of its %zu stored runs are "
	                 "of commits this repository does not have (a history rewritten by a "
	                 "force-push or rebase?)",
	                 res->machine, res->baseline_branch, res->missing_runs, res->stored_runs);
}

static void warn_stale(bg_ctx *ctx, bg_check_result *res, size_t unmeasured)
{
	char *msg;

	if (!unmeasured || !res->reference[0] || !strcmp(res->baseline_from, res->sha))
		return;
	res->stale_commits = unmeasured;
	/* Out of memory: the warning is lost, the result still says it. */
	if ((msg = bg_check__stale_text(res)) != NULL)
		bg_log(ctx, BG_LOG_WARN, "%s", msg);
	free(msg);
}

/* Commits of a database's runs looked up, at most, to tell a rewritten
 * history: each is one lookup in the object database. */
#define BG_MISSING_LOOKUPS 4096

/*
 * This machine has stored runs, and none lies on the baseline's history:
 * every series is no-baseline, and a regression passes.  When runs are of
 * commits the repository does not have, the history they were measured on
 * is gone (main force-pushed or rebased: every stored SHA rewritten), and
 * the machine's baseline starts again with its next runs: say so.  Up to
 * BG_MISSING_LOOKUPS commits are looked up (in the order of their SHAs);
 * a walk that met none of the stored commits looked up as many for its
 * bound already.
 */
static void warn_missing(bg_ctx *ctx, bg_repo *repo, bg_check_result *res, const bg_run_ref *refs,
                         size_t nrefs, size_t stored, int min_runs)
{
	size_t i, looked = 0, missing = 0;
	char *msg;

	/* A shallow clone lacks commits it never fetched: its walk says so. */
	if (!stored || bg_repo_is_shallow(repo))
		return;
	/* refs: by sha, each commit's runs together. */
	for (i = 0; i < nrefs && looked < BG_MISSING_LOOKUPS;) {
		size_t j = i;

		while (j < nrefs && !strcmp(refs[j].sha, refs[i].sha))
			j++;
		if (strcmp(refs[i].sha, res->sha)) {
			looked++;
			if (!bg_repo_has_commit(repo, refs[i].sha))
				missing += j - i;
		}
		i = j;
	}
	if (!missing)
		return;
	res->missing_runs = missing;
	res->stored_runs = stored;
	if ((msg = bg_check__missing_text(res)) != NULL)
		bg_log(ctx, BG_LOG_WARN,
		       "%s. Its baseline starts again with runs of %s's commits as they are now: "
		       "its next jobs, or benchguard run --commit %.12s --runs %d on this machine",
		       msg, res->baseline_branch, res->baseline_from, min_runs);
	free(msg);
}

/*
 * The run's volatile facts that say how fast the machine ran (not which
 * machine it is: that is the fingerprint), against its baseline runs'.  A
 * run under a CPU quota, or with the governor on powersave, is slower with
 * no change to the code, and the verdict alone does not say why.  So is
 * one of other hardware under the same --machine name ("hardware").
 */
static int warn_conditions(bg_ctx *ctx, bg_store *store, int64_t run_id, const int64_t *taken,
                           size_t ntaken)
{
	static const char *const keys[] = { "hardware", "cpus_usable", "cpu_governor", "turbo",
		                            "smt" };
	enum { NKEYS = sizeof(keys) / sizeof(keys[0]) };
	size_t differ[NKEYS] = { 0 }, known[NKEYS] = { 0 }, i, k;
	bool mixed[NKEYS] = { false }; /* the runs that differ do not agree either */
	char *theirs[NKEYS] = { NULL };
	bg_machine *here = NULL, *there = NULL;
	bg_buf list = BG_BUF_INIT;
	int error = 0;

	if (!ntaken || (error = bg_store_run_facts(ctx, store, run_id, &here)) < 0)
		goto cleanup;
	for (i = 0; i < ntaken; i++) {
		if ((error = bg_store_run_facts(ctx, store, taken[i], &there)) < 0)
			goto cleanup;
		for (k = 0; k < NKEYS; k++) {
			const char *h = bg_machine_get(here, keys[k]),
			           *b = bg_machine_get(there, keys[k]);

			if (!h || !b)
				continue;
			known[k]++;
			if (!strcmp(h, b))
				continue;
			if (differ[k]++ == 0 && !(theirs[k] = bg_strdup(b))) {
				error = bg_error_oom(ctx);
				goto cleanup;
			}
			if (strcmp(theirs[k], b))
				mixed[k] = true;
		}
		bg_machine_free(there);
		there = NULL;
	}
	/* Said when most of the baseline ran otherwise: a pool of runners
	 * under one name mixes them, and the run of the kind most of its
	 * baseline is has nothing to be told. */
	for (k = 0; k < NKEYS; k++)
		if (differ[k] * 2 > known[k] &&
		    bg_buf_printf(&list, "%s%s %s here, %s%s in %zu of %zu baseline runs",
		                  list.ptr ? "; " : "", keys[k], bg_machine_get(here, keys[k]),
		                  theirs[k], mixed[k] ? " and others" : "", differ[k],
		                  known[k]) < 0) {
			error = bg_error_oom(ctx);
			goto cleanup;
		}
	if (list.ptr)
		bg_log(ctx, BG_LOG_WARN,
		       "run %lld ran under other conditions than its baseline (%s): it may be "
		       "slower or faster for that alone",
		       (long long)run_id, list.ptr);
cleanup:
	for (k = 0; k < NKEYS; k++)
		free(theirs[k]);
	bg_machine_free(here);
	bg_machine_free(there);
	bg_buf_clear(&list);
	return error;
}

int bg_check_run(bg_ctx *ctx, bg_store *store, bg_repo *repo, const bg_check_opts *opts,
                 bg_check_result **out)
{
	bg_check_result *res = NULL;
	bg_run_series **blocks = NULL, **all = NULL;
	size_t *nblock = NULL, nall = 0, nseries = 0, cap, i, k;
	cand_series *cs = NULL;
	bg_judge_input *in = NULL;
	bg_judgement *jd = NULL;
	walk_state w;
	char tip[41];
	int error;

	BG_NEED(ctx, store);
	BG_NEED(ctx, opts);
	BG_NEED(ctx, out);

	*out = NULL;
	memset(&w, 0, sizeof(w));
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
	w.window = bg_verdict__reach(opts->window);
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
			/* A shallow clone lacks history.  A full one lacks a
			 * commit not fetched yet, or one made elsewhere: a pull
			 * request's merge commit (the newest run of a shared
			 * database is often one), or one a force-push removed,
			 * which no fetch brings. */
			if (error == BG_ENOTFOUND)
				error = bg_error_set(
				        ctx, BG_ENOTFOUND,
				        "run %lld measured commit %.12s, which is not in this "
				        "repository (%s)",
				        (long long)res->run_id, res->sha,
				        bg_repo_is_shallow(repo)
				                ? "fetch its history, e.g. fetch-depth: 0"
				                : "fetch it (git fetch); if it was made elsewhere, "
				                  "such as a pull request's merge commit or one a "
				                  "force-push removed, judge another run with "
				                  "--commit or --run");
			goto cleanup;
		}

		/* Walk it, taking run means until every series has its window,
		 * or all the runs there are for it. */
		if ((error = bg_store_baseline_runs(ctx, store, res->machine, &w.refs, &w.nrefs)) <
		    0)
			goto cleanup;
		if (w.nrefs)
			qsort(w.refs, w.nrefs, sizeof(*w.refs), cmp_ref);
		if ((error = bound_of(ctx, repo, w.refs, w.nrefs, w.exclude_sha, &w.bound)) < 0)
			goto cleanup;
		/* A full window each until counted (set_targets). */
		for (i = 0; i < nseries; i++)
			cs[i].target = w.window;
		w.runs = opts->runs;
		w.nruns = opts->nruns;
		w.machine = res->machine;
		if (nseries && w.nrefs) {
			error = bg_repo_walk_first_parent(ctx, repo, res->baseline_from, on_commit,
			                                  &w);
			if (w.error < 0)
				error = w.error;
			if (error < 0)
				goto cleanup;
		}
		for (i = 0, k = 0; i < w.nrefs; i++)
			k += strcmp(w.refs[i].sha, w.exclude_sha) != 0;
		/* A warning that cannot be made is no reason to hold back the
		 * verdict (a message on the context would be taken for one). */
		if (nseries && !opts->paired && k == 0 &&
		    warn_new_machine(ctx, store, res, opts->runs[0]) < 0) {
			free(res->other_machine);
			free(res->other_machine_differs);
			res->other_machine = res->other_machine_differs = NULL;
			res->other_machine_runs = 0;
			bg_ctx_clear_error(ctx);
		}
		if (nseries && !opts->paired && k > 0 && !res->reference[0])
			warn_missing(ctx, repo, res, w.refs, w.nrefs, k, opts->min_runs);
		if (nseries && !opts->paired)
			warn_stale(ctx, res, w.unmeasured);
		if (warn_conditions(ctx, store, opts->runs[0], w.taken, w.ntaken) < 0)
			bg_ctx_clear_error(ctx);
	}

	/* One row per series; those with baseline enough judged together, as
	 * one family. */
	cap = nseries + 8;
	if (!(res->rows = calloc(cap, sizeof(*res->rows))) ||
	    !(in = calloc(nseries ? nseries : 1, sizeof(*in))) ||
	    !(jd = calloc(nseries ? nseries : 1, sizeof(*jd)))) {
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
		in[i].direction = info->direction;
		/* The series' own threshold and its instrument's resolution: a
		 * simulated count is judged to 0.1%, not the suite's 2%. */
		in[i].min_change = bg_thresholds_min_change(&opts->thresholds, info->benchmark,
		                                            info->metric, info->instrument);
		in[i].resolution = bg_instrument__resolution(info->instrument, info->metric);
		if (can_pair(opts, &cs[i])) {
			r->baseline_runs = cs[i].nbase;
			in[i].design = BG_DESIGN_PAIRED;
			in[i].base = cs[i].base;
			in[i].n_base = cs[i].nbase;
			in[i].cur = cs[i].cur_ord;
			in[i].n_cur = cs[i].nbase;
			continue;
		}
		if ((error = bg_verdict__baseline(ctx, cs[i].base, &cs[i].nbase,
		                                  opts->nbaseline ? 0 : opts->window,
		                                  &r->baseline_outliers)) < 0)
			goto cleanup;
		r->baseline_runs = cs[i].nbase;
		if (cs[i].nbase < (size_t)opts->min_runs) {
			char left[64] = "";

			/* Say so when the screen made it too few: the user counts
			 * their runs, and finds one more than this. */
			if (r->baseline_outliers)
				snprintf(left, sizeof(left), " (and %zu far-out run%s left out)",
				         r->baseline_outliers,
				         r->baseline_outliers == 1 ? "" : "s");
			if (!(r->message = bg_printf("%zu baseline run%s%s, %d needed", cs[i].nbase,
			                             cs[i].nbase == 1 ? "" : "s", left,
			                             opts->min_runs))) {
				error = bg_error_oom(ctx);
				goto cleanup;
			}
			continue; /* n_base 0: not tested */
		}
		if (r->baseline_outliers &&
		    !(r->message = bg_printf("%zu outlier run%s left out of the baseline",
		                             r->baseline_outliers,
		                             r->baseline_outliers == 1 ? "" : "s"))) {
			error = bg_error_oom(ctx);
			goto cleanup;
		}
		in[i].design = BG_DESIGN_ROLLING;
		in[i].base = cs[i].base;
		in[i].n_base = cs[i].nbase;
		in[i].cur = cs[i].cur;
		in[i].n_cur = cs[i].ncur;
	}
	if ((error = bg_judge(ctx, in, nseries, &opts->thresholds,
	                      opts->level > 0 ? opts->level : opts->thresholds.alpha, jd)) < 0)
		goto cleanup;
	for (i = 0; i < nseries; i++) {
		bg_verdict_row *r = &res->rows[i];

		r->verdict = jd[i].verdict;
		/* A series its values could not judge says why, in place of
		 * anything else it had to say. */
		if (jd[i].verdict == BG_VERDICT_SKIPPED) {
			free(r->message);
			if (!(r->message = bg_strdup(jd[i].reason))) {
				error = bg_error_oom(ctx);
				goto cleanup;
			}
		}
		r->test = jd[i].test;
		r->p_adjusted = jd[i].p_adjusted;
		r->p_better_adjusted = jd[i].p_better_adjusted;
		r->undecided = jd[i].undecided;
		r->undecided_better = jd[i].undecided_better;
		r->deterministic = jd[i].deterministic;
		r->noise_floor = jd[i].noise_floor;
		r->min_change = jd[i].min_change;
	}
	if ((error = add_outcome_rows(ctx, store, opts, res, &cap)) < 0)
		goto cleanup;
	bg_check_sort(res);
	if (!opts->paired)
		for (k = 0; k < opts->nruns && error == 0; k++)
			error = bg_check__warn_recorded(ctx, store, res, opts->runs[k]);
	if (error < 0)
		goto cleanup;
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
	free(in);
	free(jd);
	for (k = 0; blocks && nblock && k < opts->nruns; k++)
		bg_run_series_free(blocks[k], nblock[k]);
	free(blocks);
	free(nblock);
	free(w.refs);
	free(w.taken);
	bg_walk_bound_clear(&w.bound);
	bg_check_result_free(res);
	return error;
}
