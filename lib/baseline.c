/*
 * baseline.c -- baseline files (`baseline export` and `baseline import`):
 * a machine's baseline runs written as JSON to be committed with the
 * project under baselines/, and read back into another database, so a CI
 * job whose database starts empty still judges against history.
 *
 * Export picks runs the way the verdict does (lib/check.c): walking the
 * first-parent history from the baseline branch tip, a run is kept while one
 * of its series still has fewer than the runs check reads for a window
 * (bg_verdict__reach: the window and the spare runs that refill it when a
 * far-out run is left out).  So every run that
 * `check` would draw for a commit on top of the tip is in the file, and since
 * runs keep their order (oldest first, and so their relative ids on import)
 * and their exact samples, a database built from the file gives the same
 * baselines, means and p-values.  The tip's own runs are written besides and
 * do not count toward the window: a check of the tip itself leaves them out
 * and needs `window` older ones.
 *
 * The text is meant for version control: keys in a fixed order, runs oldest
 * first and series by name, numbers in the shortest form that reads back to
 * the same double, nothing that changes when nothing was measured (no export
 * time, no tip SHA).  Import checks the whole file before it stores anything,
 * and keeps each run's uid, so importing a file twice stores nothing twice.
 */
#include <ctype.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <json-c/json.h>

#include "internal.h"
#include "jsonx.h"

#define BASELINE_FORMAT "benchguard-baseline"
#define BASELINE_VERSION 1

/* ------------------------------------------------------------------ export */

typedef struct {
	int64_t series_id;
	size_t count;
	size_t target; /* the runs there are for it, up to the window */
} series_count;

typedef struct {
	bg_ctx *ctx;
	bg_store *store;
	const char *tip;
	const bg_run_ref *refs; /* the machine's clean runs, by sha, newest first within one */
	size_t nrefs, placed;
	series_count *counts; /* sorted by series id */
	size_t ncounts, capcounts;
	int64_t *chosen; /* in walk order: newest first */
	size_t nchosen, capchosen;
	size_t window;
	const char *machine;
	int targeted;         /* each series' target counted (set_targets) */
	size_t nshort;        /* once targeted: series below their target */
	bg_walk_bound bound;  /* when no stored commit is left behind the walk */
	const int64_t *mixed; /* series measured by more than one instrument, ascending */
	size_t nmixed;
	int error;
} export_walk;

/* A series the walk takes every run of (bg_baseline__walk's `mixed`). */
static int is_mixed(const export_walk *w, int64_t id)
{
	return w->nmixed && bsearch(&id, w->mixed, w->nmixed, sizeof(*w->mixed), bg_cmp_int64);
}

static int cmp_ref(const void *a, const void *b)
{
	const bg_run_ref *x = a, *y = b;
	int c = strcmp(x->sha, y->sha);

	if (c)
		return c;
	return (x->id < y->id) - (x->id > y->id); /* newest first */
}

/* The count slot of a series, created at 0 on first sight; NULL: out of memory. */
static series_count *count_slot(export_walk *w, int64_t id)
{
	size_t lo = 0, hi = w->ncounts;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (w->counts[mid].series_id < id)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (lo < w->ncounts && w->counts[lo].series_id == id)
		return &w->counts[lo];
	if (bg_grow((void **)&w->counts, &w->capcounts, w->ncounts, sizeof(*w->counts)) < 0)
		return NULL;
	memmove(&w->counts[lo + 1], &w->counts[lo], (w->ncounts - lo) * sizeof(*w->counts));
	w->ncounts++;
	w->counts[lo].series_id = id;
	w->counts[lo].count = 0;
	/* A window per instrument is more than a window: all of them, and
	 * the walk goes on to the oldest run. */
	w->counts[lo].target = is_mixed(w, id) ? SIZE_MAX : w->window;
	if (w->targeted)
		w->nshort++;
	return &w->counts[lo];
}

static void on_avail(int64_t series_id, size_t count, void *data)
{
	export_walk *w = data;
	series_count *c;

	if (!count || w->error < 0 || is_mixed(w, series_id))
		return;
	if (!(c = count_slot(w, series_id))) {
		w->error = bg_error_oom(w->ctx);
		return;
	}
	c->target = count < w->window ? count : w->window;
}

/*
 * How many runs each series can get: the machine's runs (the tip's left
 * out) that measured it, up to the window.  Counted once the walk has
 * placed a window's worth of runs; from then on it stops when every
 * series has its count, where it went on to the oldest stored run (every
 * run's means read: 10,000 of them to export 27).  A series measured only
 * long ago still gets its window, and runs off the walk's path still
 * count, so a series measured only there lets the walk run to its end.
 */
static int set_targets(export_walk *w)
{
	size_t i;
	int error;

	w->targeted = 1;
	if ((error = bg_store_machine_avail(w->ctx, w->store, w->machine, w->tip, w->window,
	                                    on_avail, w)) < 0)
		return error;
	if (w->error < 0)
		return w->error;
	w->nshort = 0;
	for (i = 0; i < w->ncounts; i++)
		if (w->counts[i].count < w->counts[i].target)
			w->nshort++;
	return 0;
}

static int choose(export_walk *w, int64_t run_id)
{
	if (bg_grow((void **)&w->chosen, &w->capchosen, w->nchosen, sizeof(*w->chosen)) < 0)
		return bg_error_oom(w->ctx);
	w->chosen[w->nchosen++] = run_id;
	return 0;
}

/* Keeps the run if one of its series still needs runs; counts it for those. */
static int consider(export_walk *w, int64_t run_id)
{
	int64_t *ids = NULL;
	double *means = NULL;
	size_t n = 0, i;
	int error, needed = 0;

	if ((error = bg_store_run_means(w->ctx, w->store, run_id, &ids, &means, NULL, &n)) < 0)
		return error;
	for (i = 0; i < n; i++) {
		series_count *c;

		if (!isfinite(means[i]))
			continue;
		if (!(c = count_slot(w, ids[i]))) {
			error = bg_error_oom(w->ctx);
			goto cleanup;
		}
		if (c->target == SIZE_MAX) {
			needed = 1;
		} else if (c->count < w->window) {
			c->count++;
			needed = 1;
			if (w->targeted && c->count == c->target)
				w->nshort--;
		}
	}
	if (needed)
		error = choose(w, run_id);
cleanup:
	free(ids);
	free(means);
	return error;
}

static int on_commit(const char *sha, int64_t time, void *data)
{
	export_walk *w = data;
	size_t lo = 0, hi = w->nrefs;

	/* The first (newest) run of this commit: a lower bound on the sha. */
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (strcmp(w->refs[mid].sha, sha) < 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (lo < w->nrefs && !strcmp(w->refs[lo].sha, sha))
		bg_walk_bound_meet(&w->bound, w->refs[lo].author_time);
	for (; lo < w->nrefs && !strcmp(w->refs[lo].sha, sha); lo++) {
		w->placed++;
		if (!strcmp(sha, w->tip))
			w->error = choose(w, w->refs[lo].id);
		else
			w->error = consider(w, w->refs[lo].id);
		if (w->error < 0)
			return -1;
	}
	if (!w->targeted && w->placed >= w->window && (w->error = set_targets(w)) < 0)
		return -1;
	/*
	 * Every stored run placed, every series at its target, or none left
	 * that could lie further back: nothing older can add a run.
	 */
	return w->placed == w->nrefs || (w->targeted && w->nshort == 0) ||
	       bg_walk_bound_done(&w->bound, time);
}

static int cmp_series_name(const void *a, const void *b)
{
	const bg_run_series *x = *(const bg_run_series *const *)a;
	const bg_run_series *y = *(const bg_run_series *const *)b;
	int c = strcmp(x->benchmark, y->benchmark);

	return c ? c : strcmp(x->metric, y->metric);
}

static int find_samples(const void *key, const void *elem)
{
	int64_t x = *(const int64_t *)key, y = ((const bg_series_samples *)elem)->series_id;

	return (x > y) - (x < y);
}

/* One series of a run: names, unit, direction and its raw samples (from
 * the run's, by series id). */
static int series_json(bg_ctx *ctx, const bg_series_samples *all, size_t nall,
                       const bg_run_series *s, json_object **out)
{
	const bg_series_samples *mine =
	        nall ? bsearch(&s->series_id, all, nall, sizeof(*all), find_samples) : NULL;
	const double *values = mine ? mine->values : NULL;
	json_object *o = NULL, *arr = NULL;
	size_t n = mine ? mine->n : 0, i;
	int bad = 0;

	*out = NULL;
	o = bg_json__check(&bad, json_object_new_object());
	arr = bg_json__check(&bad, json_object_new_array());
	if (!bad) {
		bg_json__add(&bad, o, "benchmark", bg_json__str(&bad, s->benchmark));
		bg_json__add(&bad, o, "metric", bg_json__str(&bad, s->metric));
		bg_json__add(&bad, o, "unit", bg_json__str(&bad, s->unit));
		bg_json__add(&bad, o, "direction",
		             bg_json__str(&bad, bg_direction_name(s->direction)));
		/* What measured it (a Valgrind, the counters): check compares a
		 * series only with runs by the same instrument. */
		if (s->instrument)
			bg_json__add(&bad, o, "instrument", bg_json__str(&bad, s->instrument));
		for (i = 0; i < n; i++)
			bg_json__push(&bad, arr, bg_json__number(&bad, values[i]));
		bg_json__add(&bad, o, "samples", arr);
		arr = NULL;
	}
	json_object_put(arr);
	if (bad) {
		json_object_put(o);
		return bg_error_oom(ctx);
	}
	*out = o;
	return 0;
}

/* One run: identity, commit, tags, then its series by name. */
static int run_json(bg_ctx *ctx, bg_store *store, int64_t run_id, json_object **out)
{
	bg_run_row row;
	bg_run_series *rows = NULL, **sorted = NULL;
	bg_series_samples *samples = NULL;
	char **tags = NULL, **t;
	json_object *o = NULL, *commit = NULL, *tobj = NULL, *sarr = NULL, *so;
	size_t n = 0, nsamples = 0, i;
	int error, bad = 0;

	*out = NULL;
	memset(&row, 0, sizeof(row));
	if ((error = bg_store_run_get(ctx, store, run_id, &row)) < 0)
		return error;
	if ((error = bg_store_run_tags(ctx, store, run_id, &tags)) < 0 ||
	    (error = bg_store_run_series(ctx, store, run_id, &rows, &n)) < 0 ||
	    (error = bg_store_run_samples(ctx, store, run_id, &samples, &nsamples)) < 0)
		goto cleanup;
	if (!(sorted = malloc((n ? n : 1) * sizeof(*sorted)))) {
		error = bg_error_oom(ctx);
		goto cleanup;
	}
	for (i = 0; i < n; i++)
		sorted[i] = &rows[i];
	qsort(sorted, n, sizeof(*sorted), cmp_series_name);

	o = bg_json__check(&bad, json_object_new_object());
	commit = bg_json__check(&bad, json_object_new_object());
	tobj = bg_json__check(&bad, json_object_new_object());
	sarr = bg_json__check(&bad, json_object_new_array());
	if (bad) {
		error = bg_error_oom(ctx);
		goto cleanup;
	}
	bg_json__add(&bad, commit, "sha", bg_json__str(&bad, row.sha));
	bg_json__add(&bad, commit, "author_time", bg_json__int(&bad, row.author_time));
	bg_json__add(&bad, commit, "author", bg_json__str(&bad, row.author));
	bg_json__add(&bad, commit, "subject", bg_json__str(&bad, row.subject));
	/* The store gives tags sorted by key, as "K=V". */
	for (t = tags; t && *t; t++) {
		char *eq = strchr(*t, '='), q[320];
		const char *why;
		int which;

		if (!eq)
			continue;
		/* An older benchguard stored tags with control characters; the
		 * file's import refuses them, and with them the whole file,
		 * so such a tag stays out of it, said. */
		if ((why = bg_results__bad_pair(*t, (size_t)(eq - *t), eq + 1, strlen(eq + 1),
		                                &which))) {
			bg_log(ctx, BG_LOG_WARN,
			       "run %s: tag %s left out of the file: its %s %s, which an import "
			       "refuses",
			       row.uid, bg_text__quote(q, sizeof(q), *t),
			       which == BG_PAIR_VALUE ? "value" : "key", why);
			continue;
		}
		*eq = '\0';
		bg_json__add(&bad, tobj, *t, bg_json__str(&bad, eq + 1));
	}
	for (i = 0; i < n; i++) {
		const bg_run_series *x = sorted[i];
		const char *name = NULL, *why = NULL;

		/* A name an older benchguard stored (a control character, or one
		 * that shows nothing) makes the file's import refuse the whole
		 * file: that series stays out of it, said, as such a tag does. */
		if ((why = bg_results__bad_name(x->benchmark, strlen(x->benchmark), 0)))
			name = "benchmark";
		else if ((why = bg_results__bad_name(x->metric, strlen(x->metric), 0)))
			name = "metric";
		else if ((why = bg_results__bad_name(x->unit, strlen(x->unit), 0)))
			name = "unit";
		if (why) {
			char qb[160], qm[160];

			bg_log(ctx, BG_LOG_WARN,
			       "run %s: series %s:%s left out of the file: its %s %s, which an "
			       "import refuses",
			       row.uid, bg_text__quote(qb, sizeof(qb), x->benchmark),
			       bg_text__quote(qm, sizeof(qm), x->metric), name, why);
			continue;
		}
		if ((error = series_json(ctx, samples, nsamples, x, &so)) < 0)
			goto cleanup;
		bg_json__push(&bad, sarr, so);
	}
	bg_json__add(&bad, o, "uid", bg_json__str(&bad, row.uid));
	bg_json__add(&bad, o, "commit", commit);
	commit = NULL;
	bg_json__add(&bad, o, "branch", bg_json__str(&bad, row.branch));
	bg_json__add(&bad, o, "started_at", bg_json__int(&bad, row.started_at));
	bg_json__add(&bad, o, "source", bg_json__str(&bad, row.source));
	bg_json__add(&bad, o, "tags", tobj);
	tobj = NULL;
	bg_json__add(&bad, o, "series", sarr);
	sarr = NULL;
	if (bad) {
		error = bg_error_oom(ctx);
		goto cleanup;
	}
	*out = o;
	o = NULL;

cleanup:
	json_object_put(o);
	json_object_put(commit);
	json_object_put(tobj);
	json_object_put(sarr);
	free(sorted);
	bg_series_samples_free(samples, nsamples);
	bg_run_series_free(rows, n);
	bg_strv_free(tags);
	bg_run_row_clear(&row);
	return error;
}

/* The machine's stable facts, sorted by key (the order bg_machine_fact gives). */
static json_object *facts_json(int *bad, const bg_machine *m)
{
	json_object *o = bg_json__check(bad, json_object_new_object());
	size_t i, n = bg_machine_fact_count(m);

	if (!o)
		return NULL;
	for (i = 0; i < n; i++) {
		const char *key, *value;
		int is_volatile;

		if (bg_machine_fact(m, i, &key, &value, &is_volatile) < 0 || is_volatile)
			continue;
		bg_json__add(bad, o, key, bg_json__str(bad, value ? value : ""));
	}
	return o;
}

int bg_baseline__walk(bg_ctx *ctx, bg_store *store, bg_repo *repo, const char *machine,
                      const char *tip, size_t window, const bg_run_ref *refs, size_t nrefs,
                      const int64_t *mixed, size_t nmixed, int64_t **chosen, size_t *n)
{
	export_walk w;
	bg_walk_point *p = NULL;
	size_t k, np = 0;
	int error = 0;

	*chosen = NULL;
	*n = 0;
	memset(&w, 0, sizeof(w));
	if (!nrefs)
		return 0;
	w.ctx = ctx;
	w.store = store;
	w.tip = tip;
	w.machine = machine;
	w.refs = refs;
	w.nrefs = nrefs;
	w.window = window;
	w.mixed = mixed;
	w.nmixed = nmixed;
	if (!(p = malloc(nrefs * sizeof(*p))))
		return bg_error_oom(ctx);
	for (k = 0; k < nrefs; k++)
		if (k == 0 || strcmp(refs[k].sha, refs[k - 1].sha)) {
			p[np].sha = refs[k].sha;
			p[np++].author_time = refs[k].author_time;
		}
	error = bg_walk_bound_init(&w.bound, repo, p, np);
	free(p);
	if (error < 0) {
		error = bg_error_oom(ctx);
		goto cleanup;
	}
	error = bg_repo_walk_first_parent(ctx, repo, tip, on_commit, &w);
	if (w.error < 0)
		error = w.error;
	if (error < 0)
		goto cleanup;
	*chosen = w.chosen;
	*n = w.nchosen;
	w.chosen = NULL;
cleanup:
	free(w.counts);
	free(w.chosen);
	bg_walk_bound_clear(&w.bound);
	return error;
}

void bg_baseline__sort_refs(bg_run_ref *refs, size_t n)
{
	if (n)
		qsort(refs, n, sizeof(*refs), cmp_ref);
}

int bg_baseline_export(bg_ctx *ctx, bg_store *store, bg_repo *repo,
                       const bg_baseline_export_opts *opts, char **json, size_t *nruns)
{
	bg_run_ref *refs = NULL;
	int64_t *chosen = NULL;
	size_t nrefs = 0, nchosen = 0;
	json_object *top = NULL, *runs = NULL, *r;
	char tip[41];
	const char *text;
	size_t i;
	int error, bad = 0;

	BG_NEED(ctx, store);
	BG_NEED(ctx, repo);
	BG_NEED(ctx, json);
	BG_NEED(ctx, nruns);

	*json = NULL;
	*nruns = 0;
	if (!opts || !opts->machine || !*opts->machine || !opts->branch || !*opts->branch)
		return bg_error_set(ctx, BG_EINPUT,
		                    "a baseline export needs a machine and a branch");
	if (opts->window < 2)
		return bg_error_set(ctx, BG_EINPUT, "baseline window %d: need at least 2",
		                    opts->window);
	if ((error = bg_repo_branch_tip(ctx, repo, opts->branch, tip)) < 0)
		return error;
	if ((error = bg_store_baseline_runs(ctx, store, opts->machine, &refs, &nrefs)) < 0)
		return error;
	bg_baseline__sort_refs(refs, nrefs);
	/* As many as check reads, spares included: with `window` only, a
	 * far-out run left out of an imported baseline had no spare to take its
	 * place, and the same candidate got another verdict there. */
	if ((error = bg_baseline__walk(ctx, store, repo, opts->machine, tip,
	                               bg_verdict__reach(opts->window), refs, nrefs, NULL, 0,
	                               &chosen, &nchosen)) < 0)
		goto cleanup;

	top = bg_json__check(&bad, json_object_new_object());
	runs = bg_json__check(&bad, json_object_new_array());
	if (bad) {
		error = bg_error_oom(ctx);
		goto cleanup;
	}
	/* Oldest first: the walk found them newest first. */
	for (i = nchosen; i-- > 0;) {
		/* A big history takes seconds to read: Ctrl-C stops it here. */
		if (bg_ctx_cancelled(ctx)) {
			error = bg_error_set(ctx, BG_ERROR, "interrupted; nothing written");
			goto cleanup;
		}
		if ((error = run_json(ctx, store, chosen[i], &r)) < 0)
			goto cleanup;
		bg_json__push(&bad, runs, r);
	}
	bg_json__add(&bad, top, "format", bg_json__str(&bad, BASELINE_FORMAT));
	bg_json__add(&bad, top, "version", bg_json__int(&bad, BASELINE_VERSION));
	bg_json__add(&bad, top, "machine", bg_json__str(&bad, opts->machine));
	if (opts->facts)
		bg_json__add(&bad, top, "facts", facts_json(&bad, opts->facts));
	bg_json__add(&bad, top, "branch", bg_json__str(&bad, opts->branch));
	bg_json__add(&bad, top, "window", bg_json__int(&bad, opts->window));
	bg_json__add(&bad, top, "runs", runs);
	runs = NULL;
	text = bad ? NULL
	           : bg_text__json(top, JSON_C_TO_STRING_PRETTY | JSON_C_TO_STRING_SPACED |
	                                        JSON_C_TO_STRING_NOSLASHESCAPE);
	if (!text) {
		error = bg_error_oom(ctx);
		goto cleanup;
	}
	{
		bg_buf b = BG_BUF_INIT;

		if (bg_buf_puts(&b, text) < 0 || bg_buf_puts(&b, "\n") < 0 ||
		    !(*json = bg_buf_detach(&b))) {
			bg_buf_clear(&b);
			error = bg_error_oom(ctx);
			goto cleanup;
		}
	}
	*nruns = nchosen;

cleanup:
	json_object_put(top);
	json_object_put(runs);
	free(refs);
	free(chosen);
	return error;
}

/* ------------------------------------------------------------------ import */

typedef struct {
	char uid[33];
	bg_commit commit; /* sha, branch, author_time, author, subject; never dirty */
	int64_t started_at;
	char **tags; /* "K=V", NULL-terminated */
	bg_results *res;
} baseline_run;

struct bg_baseline {
	char *name;
	char *machine;
	char **facts; /* key, value, key, value..., NULL */
	baseline_run *runs;
	size_t nruns;
	char **units; /* benchmark, metric, unit triples of every series, NULL-terminated */
	size_t nunits;
};

/*
 * What the file has shown so far, by hash: a file may hold a million runs
 * or series, and a lookup among all the earlier ones each took time in the
 * square of that.  uids: runs by uid (entries: indices in bg_baseline.runs);
 * series: the units by (benchmark, metric) (entries: where the triple
 * starts in bg_baseline.units); dirs: each such series' direction (at the
 * triple's start / 3).
 */
typedef struct {
	bg_ctx *ctx;
	const char *name;
	char path[256];
	bg_index uids, series;
	bg_direction *dirs;
	size_t dcap;
	int64_t now; /* this machine's clock: no run started after it */
} validator;

/* Run i has uid `key`. */
static int same_uid(const void *set, size_t i, const void *key)
{
	return !strcmp(((const bg_baseline *)set)->runs[i].uid, key);
}

/* The triple at units[i] is of series (key[0], key[1]). */
static int same_series(const void *set, size_t i, const void *key)
{
	char *const *u = ((const bg_baseline *)set)->units + i;
	const char *const *k = key;

	return !strcmp(u[0], k[0]) && !strcmp(u[1], k[1]);
}

/* BG_EINPUT "<file>: <path>: <what>". */
static int invalid(validator *v, const char *fmt, ...) BG_PRINTF(2, 3);

static int invalid(validator *v, const char *fmt, ...)
{
	char msg[512];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	if (v->path[0])
		return bg_error_set(v->ctx, BG_EINPUT, "%s: %s: %s", v->name, v->path, msg);
	return bg_error_set(v->ctx, BG_EINPUT, "%s: %s", v->name, msg);
}

static void set_path(validator *v, const char *fmt, ...) BG_PRINTF(2, 3);

static void set_path(validator *v, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(v->path, sizeof(v->path), fmt, ap);
	va_end(ap);
}

static const char *type_name(json_object *o)
{
	switch (json_object_get_type(o)) {
	case json_type_null:
		return "null";
	case json_type_boolean:
		return "a boolean";
	case json_type_double:
	case json_type_int:
		return "a number";
	case json_type_string:
		return "a string";
	case json_type_array:
		return "an array";
	case json_type_object:
		return "an object";
	}
	return "?";
}

/*
 * The member `key` of `obj` as a string: *out borrowed from the tree, NULL
 * when absent or null and `optional`.  `prefix` is the path of obj.
 */
static int get_string(validator *v, json_object *obj, const char *prefix, const char *key,
                      int optional, const char **out)
{
	json_object *m = NULL;

	*out = NULL;
	set_path(v, "%s%s%s", prefix, *prefix ? "." : "", key);
	if (!json_object_object_get_ex(obj, key, &m) || !m) {
		if (optional)
			return 0;
		return invalid(v, "missing");
	}
	if (!json_object_is_type(m, json_type_string))
		return invalid(v, "expected a string, got %s", type_name(m));
	*out = json_object_get_string(m);
	if (!optional && !**out)
		return invalid(v, "is empty");
	return 0;
}

/*
 * get_string() for a name benchguard defines that is stored and printed
 * later (a series name, a unit, an instrument): what could not be printed
 * safely is refused here, naming the path.
 */
static int get_text(validator *v, json_object *obj, const char *prefix, const char *key,
                    int optional, const char **out)
{
	json_object *m = NULL;
	const char *why;
	char q[320];
	int error;

	if ((error = get_string(v, obj, prefix, key, optional, out)) < 0 || !*out)
		return error;
	json_object_object_get_ex(obj, key, &m);
	why = bg_results__bad_name(*out, (size_t)json_object_get_string_len(m), 0);
	if (why)
		return invalid(
		        v, "%s %s",
		        bg_text__quote_n(q, sizeof(q), *out, (size_t)json_object_get_string_len(m)),
		        why);
	return 0;
}

/*
 * get_string() for what git gave (a commit's subject and author, a branch
 * name): git takes a TAB, an ESC or a bidirectional override in them, the
 * store keeps them as they are and every output escapes them, so the file
 * export wrote holds them too, and refusing them here would make one such
 * commit spoil every baseline file.  Only what the store itself never
 * holds is refused: invalid UTF-8, a NUL, more than BG_TEXT_MAX bytes.
 * Names benchguard defines go through get_text() (tags: string_map()).
 */
static int get_git_text(validator *v, json_object *obj, const char *prefix, const char *key,
                        const char **out)
{
	json_object *m = NULL;
	size_t n;
	char q[320];
	int error;

	if ((error = get_string(v, obj, prefix, key, 1, out)) < 0 || !*out)
		return error;
	json_object_object_get_ex(obj, key, &m);
	n = (size_t)json_object_get_string_len(m);
	if (n > BG_TEXT_MAX)
		return invalid(v, "is longer than %d bytes", BG_TEXT_MAX);
	if (memchr(*out, '\0', n))
		return invalid(v, "%s holds a NUL character",
		               bg_text__quote_n(q, sizeof(q), *out, n));
	if (!bg_text__utf8_valid(*out, n))
		return invalid(v, "%s is not valid UTF-8", bg_text__quote_n(q, sizeof(q), *out, n));
	return 0;
}

/* The times a date can be written for (years 1 to 9999): a commit's
 * author_time beyond them prints as a bare number, or not at all. */
#define TIME_FIRST (-62135596800LL)
#define TIME_LAST 253402300799LL

static int get_int(validator *v, json_object *obj, const char *prefix, const char *key, int64_t min,
                   int64_t max, int optional, int64_t *out)
{
	json_object *m = NULL;

	set_path(v, "%s%s%s", prefix, *prefix ? "." : "", key);
	if (!json_object_object_get_ex(obj, key, &m) || !m) {
		if (optional)
			return 0;
		return invalid(v, "missing");
	}
	if (!json_object_is_type(m, json_type_int))
		return invalid(v, "expected a whole number, got %s", type_name(m));
	/* A time past int64 is clamped to INT64_MAX, not only to UINT64_MAX. */
	if (bg_json__clamped(m) || json_object_get_int64(m) == INT64_MAX)
		return invalid(v, "%s", BG_JSON_CLAMPED_MSG);
	*out = json_object_get_int64(m);
	if (*out < min)
		return invalid(v, "must be at least %lld (got %lld)", (long long)min,
		               (long long)*out);
	if (*out > max)
		return invalid(v, "must be at most %lld (got %lld)", (long long)max,
		               (long long)*out);
	return 0;
}

static json_object *get_typed(validator *v, json_object *obj, const char *prefix, const char *key,
                              json_type type, int optional, int *error)
{
	json_object *m = NULL;

	*error = 0;
	set_path(v, "%s%s%s", prefix, *prefix ? "." : "", key);
	if (!json_object_object_get_ex(obj, key, &m) || !m) {
		if (!optional)
			*error = invalid(v, "missing");
		return NULL;
	}
	if (!json_object_is_type(m, type)) {
		*error = invalid(v, "expected %s, got %s",
		                 type == json_type_array ? "an array" : "an object", type_name(m));
		return NULL;
	}
	return m;
}

static int is_hex(const char *s, size_t len)
{
	return strlen(s) == len && strspn(s, "0123456789abcdef") == len;
}

static int is_word(const char *s)
{
	if (!*s)
		return 0;
	for (; *s; s++)
		if (!isgraph((unsigned char)*s))
			return 0;
	return 1;
}

static void run_clear(baseline_run *r)
{
	bg_commit_clear(&r->commit);
	bg_strv_free(r->tags);
	bg_results_free(r->res);
}

void bg_baseline_free(bg_baseline *b)
{
	size_t i;

	if (!b)
		return;
	for (i = 0; i < b->nruns; i++)
		run_clear(&b->runs[i]);
	free(b->runs);
	bg_strv_free(b->facts);
	bg_strv_free(b->units);
	free(b->machine);
	free(b->name);
	free(b);
}

const char *bg_baseline_machine(const bg_baseline *b)
{
	if (!b)
		return NULL;
	return b->machine;
}

int bg_baseline__facts(const bg_baseline *b, bg_machine **out)
{
	bg_machine *m = NULL;
	char **f;
	int err;

	*out = NULL;
	if (bg_machine_new(&m) < 0)
		return BG_ENOMEM;
	for (f = b ? b->facts : NULL; f && f[0] && f[1]; f += 2)
		if ((err = bg_machine_set_fact(m, f[0], f[1], 0)) < 0) {
			bg_machine_free(m);
			return err;
		}
	*out = m;
	return 0;
}

size_t bg_baseline_run_count(const bg_baseline *b)
{
	if (!b)
		return 0;
	return b->nruns;
}

/* An object of strings as a NULL-terminated list: "K=V" (tags) or K, V (facts). */
static int string_map(validator *v, json_object *obj, const char *prefix, int as_tags, char ***out)
{
	size_t n = (size_t)json_object_object_length(obj), k = 0;
	char **list = calloc(2 * n + 1, sizeof(char *)), q[320];
	bg_buf b = BG_BUF_INIT;
	const char *why;
	int rc, bad;

	*out = NULL;
	if (!list)
		return bg_error_oom(v->ctx);
	json_object_object_foreach(obj, key, val)
	{
		set_path(v, "%s.%s", prefix, key);
		if (!val || !json_object_is_type(val, json_type_string)) {
			rc = invalid(v, "expected a string, got %s", val ? type_name(val) : "null");
			goto fail;
		}
		/* The rule `--tag` applies too (bg_results__bad_pair). */
		if ((why = bg_results__bad_pair(key, strlen(key), json_object_get_string(val),
		                                (size_t)json_object_get_string_len(val), &bad)) !=
		    NULL) {
			if (bad == BG_PAIR_KEY_SHAPE)
				rc = invalid(v, "%s", why);
			else
				rc = invalid(v, "%s%s %s", bad == BG_PAIR_KEY ? "key " : "",
				             bg_text__quote(q, sizeof(q),
				                            bad == BG_PAIR_KEY
				                                    ? key
				                                    : json_object_get_string(val)),
				             why);
			goto fail;
		}
		if (as_tags) {
			b.len = 0;
			if (bg_buf_printf(&b, "%s=%s", key, json_object_get_string(val)) < 0 ||
			    !(list[k++] = bg_strdup(b.ptr)))
				goto oom;
		} else {
			if (!(list[k++] = bg_strdup(key)) ||
			    !(list[k++] = bg_strdup(json_object_get_string(val))))
				goto oom;
		}
	}
	bg_buf_clear(&b);
	*out = list;
	return 0;
oom:
	rc = bg_error_oom(v->ctx);
fail:
	bg_buf_clear(&b);
	bg_strv_free(list);
	return rc;
}

/* Holds a series to one unit over the whole file (the store would refuse a
 * mix), and to one direction (the store keeps one per series, and the last
 * run's would win). */
static int note_unit(validator *v, bg_baseline *b, size_t *cap, const char *benchmark,
                     const char *metric, const char *unit, bg_direction dir)
{
	const char *key[2] = { benchmark, metric };
	uint64_t h = bg_index__hash(benchmark, metric);
	size_t i, at = bg_index__find(&v->series, h, same_series, b, key);

	if (at != BG_INDEX_NONE) {
		if (strcmp(b->units[at + 2], unit))
			return invalid(v,
			               "unit \"%s\" of %s:%s differs from \"%s\" in an earlier run",
			               unit, benchmark, metric, b->units[at + 2]);
		if (v->dirs[at / 3] != dir)
			return invalid(
			        v,
			        "direction \"%s\" of %s:%s differs from \"%s\" in an earlier "
			        "run",
			        bg_direction_name(dir), benchmark, metric,
			        bg_direction_name(v->dirs[at / 3]));
		return 0;
	}
	at = b->nunits;
	if (bg_grow((void **)&v->dirs, &v->dcap, at / 3 + 1, sizeof(*v->dirs)) < 0)
		return bg_error_oom(v->ctx);
	v->dirs[at / 3] = dir;
	/* Three strings and the NULL after them. */
	if (bg_grow((void **)&b->units, cap, b->nunits + 3, sizeof(*b->units)) < 0)
		return bg_error_oom(v->ctx);
	for (i = 0; i < 3; i++) {
		if (!(b->units[b->nunits] = bg_strdup(i == 0 ? benchmark : i == 1 ? metric : unit)))
			return bg_error_oom(v->ctx);
		b->units[++b->nunits] = NULL;
	}
	if (bg_index__add(&v->series, h, at) < 0)
		return bg_error_oom(v->ctx);
	return 0;
}

static int parse_series(validator *v, bg_baseline *b, size_t *ucap, baseline_run *r, json_object *s,
                        const char *prefix)
{
	const char *bench, *metric, *unit, *dirname, *canon, *inst;
	json_object *samples;
	double scale;
	bg_direction dir;
	size_t i, n, before;
	int error;

	set_path(v, "%s", prefix);
	if (!json_object_is_type(s, json_type_object))
		return invalid(v, "expected an object, got %s", s ? type_name(s) : "null");
	if ((error = get_text(v, s, prefix, "benchmark", 0, &bench)) < 0 ||
	    (error = get_text(v, s, prefix, "metric", 0, &metric)) < 0 ||
	    (error = get_text(v, s, prefix, "unit", 0, &unit)) < 0 ||
	    (error = get_string(v, s, prefix, "direction", 0, &dirname)) < 0 ||
	    (error = get_text(v, s, prefix, "instrument", 1, &inst)) < 0)
		return error;
	if (inst && !*inst) {
		set_path(v, "%s.instrument", prefix);
		return invalid(v, "is empty");
	}
	/* As every other way in refuses it: "b:x:y" would be read as
	 * benchmark "b:x", metric "y", and the series never found again. */
	if (strchr(metric, ':')) {
		char q[320];

		set_path(v, "%s.metric", prefix);
		return invalid(v, "%s contains ':' (series are named benchmark:metric)",
		               bg_text__quote(q, sizeof(q), metric));
	}
	set_path(v, "%s.direction", prefix);
	if (bg_direction_from_name(dirname, &dir) < 0)
		return invalid(v, "must be \"lower\" or \"higher\" (got \"%s\")", dirname);
	if (!(samples = get_typed(v, s, prefix, "samples", json_type_array, 0, &error)))
		return error;
	n = json_object_array_length(samples);
	if (n == 0)
		return invalid(v, "no samples");
	for (i = 0; i < n; i++) {
		json_object *x = json_object_array_get_idx(samples, i);

		set_path(v, "%s.samples[%zu]", prefix, i);
		if (!x || !(json_object_is_type(x, json_type_double) ||
		            json_object_is_type(x, json_type_int)))
			return invalid(v, "expected a number, got %s", x ? type_name(x) : "null");
		if (bg_json__clamped(x))
			return invalid(v, "%s", BG_JSON_CLAMPED_MSG);
		if (!isfinite(json_object_get_double(x)))
			return invalid(v, "not a finite number");
	}
	set_path(v, "%s", prefix);
	/* As the store will see it: "ms" is kept in seconds. */
	if (bg_unit_canonical(unit, &canon, &scale) < 0)
		return invalid(v, "bad unit \"%s\"", unit);
	if ((error = note_unit(v, b, ucap, bench, metric, canon, dir)) < 0)
		return error;
	before = bg_results_series_count(r->res);
	for (i = 0; i < n; i++) {
		double x = json_object_get_double(json_object_array_get_idx(samples, i));

		if ((error = bg_results_add(v->ctx, r->res, bench, metric, unit, x)) < 0)
			return error == BG_ENOMEM ? error : invalid(v, "%s", bg_ctx_error(v->ctx));
		if (i == 0 && bg_results_series_count(r->res) == before)
			return invalid(v, "%s:%s appears twice in this run", bench, metric);
	}
	/* It fails only for a series that is not there (BG_ENOTFOUND), never
	 * for memory: said as what it is, although the samples just added make
	 * the series. */
	if ((error = bg_results_set_direction(r->res, bench, metric, dir)) < 0)
		return bg_error_set(v->ctx, error, "%s:%s: no such series to set the direction of",
		                    bench, metric);
	if (inst && (error = bg_results_set_instrument(v->ctx, r->res, bench, metric, inst)) < 0)
		return error == BG_ENOMEM ? error : invalid(v, "%s", bg_ctx_error(v->ctx));
	return 0;
}

static int parse_run(validator *v, bg_baseline *b, size_t *ucap, json_object *o, size_t idx)
{
	baseline_run *r = &b->runs[idx];
	char prefix[64], cprefix[80];
	const char *uid, *sha, *author, *subject, *branch;
	json_object *commit, *tags, *series;
	uint64_t h;
	int64_t author_time = 0, started_at = 0;
	size_t i, n;
	int error;

	snprintf(prefix, sizeof(prefix), "runs[%zu]", idx);
	snprintf(cprefix, sizeof(cprefix), "%s.commit", prefix);
	set_path(v, "%s", prefix);
	if (!o || !json_object_is_type(o, json_type_object))
		return invalid(v, "expected an object, got %s", o ? type_name(o) : "null");
	if ((error = get_string(v, o, prefix, "uid", 0, &uid)) < 0)
		return error;
	if (!is_hex(uid, 32))
		return invalid(v, "\"%s\" is not 32 lowercase hex digits", uid);
	h = bg_index__hash(uid, NULL);
	if ((i = bg_index__find(&v->uids, h, same_uid, b, uid)) != BG_INDEX_NONE)
		return invalid(v, "\"%s\" is also the uid of runs[%zu]", uid, i);
	memcpy(r->uid, uid, 33);
	if (bg_index__add(&v->uids, h, idx) < 0)
		return bg_error_oom(v->ctx);
	if (!(commit = get_typed(v, o, prefix, "commit", json_type_object, 0, &error)))
		return error;
	if ((error = get_string(v, commit, cprefix, "sha", 0, &sha)) < 0)
		return error;
	if (!is_hex(sha, 40))
		return invalid(v, "\"%s\" is not a full commit SHA (40 lowercase hex digits)", sha);
	if ((error = get_int(v, commit, cprefix, "author_time", TIME_FIRST, TIME_LAST, 1,
	                     &author_time)) < 0 ||
	    (error = get_git_text(v, commit, cprefix, "author", &author)) < 0 ||
	    (error = get_git_text(v, commit, cprefix, "subject", &subject)) < 0 ||
	    (error = get_git_text(v, o, prefix, "branch", &branch)) < 0 ||
	    (error = get_int(v, o, prefix, "started_at", 1, INT64_MAX, 0, &started_at)) < 0)
		return error;
	/* The latest run is the one started last: a run from the future (a
	 * time in milliseconds, a clock gone wrong) would stay the latest and
	 * be what check judges, whatever ran since.  A day allows for clocks. */
	if (started_at > v->now + 86400)
		return invalid(v,
		               "%lld is more than a day past this machine's clock (%lld): "
		               "seconds since 1970 are needed, not milliseconds",
		               (long long)started_at, (long long)v->now);
	memcpy(r->commit.sha, sha, 41);
	r->commit.author_time = author_time;
	r->started_at = started_at;
	if ((author && !(r->commit.author = bg_strdup(author))) ||
	    (subject && !(r->commit.subject = bg_strdup(subject))) ||
	    (branch && *branch && !(r->commit.branch = bg_strdup(branch))))
		return bg_error_oom(v->ctx);
	if (!(tags = get_typed(v, o, prefix, "tags", json_type_object, 1, &error)) && error < 0)
		return error;
	if (tags) {
		char tprefix[80];

		snprintf(tprefix, sizeof(tprefix), "%s.tags", prefix);
		if ((error = string_map(v, tags, tprefix, 1, &r->tags)) < 0)
			return error;
	}
	if (!(series = get_typed(v, o, prefix, "series", json_type_array, 0, &error)))
		return error;
	if ((error = bg_results_new(&r->res)) < 0)
		return bg_error_oom(v->ctx);
	n = json_object_array_length(series);
	for (i = 0; i < n; i++) {
		char sprefix[96];

		snprintf(sprefix, sizeof(sprefix), "%s.series[%zu]", prefix, i);
		if ((error = parse_series(v, b, ucap, r, json_object_array_get_idx(series, i),
		                          sprefix)) < 0)
			return error;
	}
	return 0;
}

/*
 * Messages quote the file (uids, SHAs, units, keys), which is anybody's
 * text: they go out escaped for a terminal.  Escaping twice changes nothing.
 */
static void printable_error(bg_ctx *ctx)
{
	char *msg = bg_text__escaped(BG_ESC_TERM, bg_ctx_error(ctx));

	if (msg)
		bg_error_set(ctx, BG_EINPUT, "%s", msg);
	free(msg);
}

/* The text as JSON: "<name>:<line>: <why>" when it is not. */
static int parse_text(validator *v, const char *text, size_t len, json_object **out)
{
	struct json_tokener *tok;
	enum json_tokener_error jerr;
	json_object *obj;
	size_t off;

	*out = NULL;
	if (len > (size_t)INT32_MAX)
		return invalid(v, "too large to be a baseline file");
	/* json-c stops at the depth bound: no file makes anything recurse further. */
	if (!(tok = json_tokener_new_ex(BG_JSON_DEPTH)))
		return bg_error_oom(v->ctx);
	json_tokener_set_flags(tok, JSON_TOKENER_STRICT | JSON_TOKENER_VALIDATE_UTF8);
	obj = json_tokener_parse_ex(tok, text, (int)len);
	jerr = json_tokener_get_error(tok);
	off = json_tokener_get_parse_end(tok);
	if (jerr == json_tokener_continue) {
		/* Cut short: a number at the very end still waits for its end. */
		obj = json_tokener_parse_ex(tok, "", 1);
		jerr = json_tokener_get_error(tok);
		off = len;
	}
	json_tokener_free(tok);
	if (jerr == json_tokener_error_depth) {
		json_object_put(obj);
		return bg_error_set(v->ctx, BG_EINPUT, "%s:%d: nesting deeper than %d levels",
		                    v->name, bg_line_of(text, len, off < len ? off : len),
		                    BG_JSON_DEPTH);
	}
	if (jerr != json_tokener_success) {
		json_object_put(obj);
		return bg_error_set(v->ctx, BG_EINPUT, "%s:%d: not valid JSON: %s", v->name,
		                    bg_line_of(text, len, off < len ? off : len),
		                    json_tokener_error_desc(jerr));
	}
	while (off < len && isspace((unsigned char)text[off]))
		off++;
	if (off < len) {
		json_object_put(obj);
		return bg_error_set(v->ctx, BG_EINPUT,
		                    "%s:%d: unexpected text after the JSON value", v->name,
		                    bg_line_of(text, len, off));
	}
	*out = obj;
	return 0;
}

int bg_baseline_parse(bg_ctx *ctx, const char *name, const char *text, size_t len,
                      bg_baseline **out)
{
	validator v;
	bg_baseline *b = NULL;
	json_object *top = NULL, *runs, *facts;
	const char *format, *machine, *branch;
	int64_t version = 0, window = 0;
	size_t i, n, ucap = 0;
	int error;

	BG_NEED_N(ctx, text, len);
	BG_NEED(ctx, out);

	*out = NULL;
	memset(&v, 0, sizeof(v));
	v.ctx = ctx;
	v.name = name ? name : "baseline";
	v.now = (int64_t)time(NULL);
	if ((error = parse_text(&v, text, len, &top)) < 0)
		return error;
	if (!json_object_is_type(top, json_type_object)) {
		error = invalid(&v, "expected a JSON object, got %s",
		                top ? type_name(top) : "null");
		goto cleanup;
	}
	if ((error = get_string(&v, top, "", "format", 0, &format)) < 0)
		goto cleanup;
	if (strcmp(format, BASELINE_FORMAT)) {
		error = invalid(&v, "\"%s\" is not a benchguard baseline (expected \"%s\")", format,
		                BASELINE_FORMAT);
		goto cleanup;
	}
	if ((error = get_int(&v, top, "", "version", 1, INT64_MAX, 0, &version)) < 0)
		goto cleanup;
	if (version != BASELINE_VERSION) {
		error = invalid(&v,
		                "version %lld is not supported (this benchguard reads version %d)",
		                (long long)version, BASELINE_VERSION);
		goto cleanup;
	}
	if ((error = get_string(&v, top, "", "machine", 0, &machine)) < 0)
		goto cleanup;
	if (!is_word(machine)) {
		char q[320];

		/* Quoted as every refused name is: escaped and cut short. */
		error = invalid(&v,
		                "%s is not a machine name (one word of printable characters, "
		                "none that shows nothing)",
		                bg_text__quote(q, sizeof(q), machine));
		goto cleanup;
	}
	if ((error = get_git_text(&v, top, "", "branch", &branch)) < 0 ||
	    (error = get_int(&v, top, "", "window", 2, INT64_MAX, 1, &window)) < 0)
		goto cleanup;
	if (!(b = calloc(1, sizeof(*b))) || !(b->name = bg_strdup(v.name)) ||
	    !(b->machine = bg_strdup(machine))) {
		error = bg_error_oom(ctx);
		goto cleanup;
	}
	if (!(facts = get_typed(&v, top, "", "facts", json_type_object, 1, &error)) && error < 0)
		goto cleanup;
	if (facts && (error = string_map(&v, facts, "facts", 0, &b->facts)) < 0)
		goto cleanup;
	if (!(runs = get_typed(&v, top, "", "runs", json_type_array, 0, &error)))
		goto cleanup;
	n = json_object_array_length(runs);
	if (!(b->runs = calloc(n ? n : 1, sizeof(*b->runs)))) {
		error = bg_error_oom(ctx);
		goto cleanup;
	}
	for (i = 0; i < n; i++) {
		b->nruns = i + 1;
		if ((error = parse_run(&v, b, &ucap, json_object_array_get_idx(runs, i), i)) < 0)
			goto cleanup;
	}
	*out = b;
	b = NULL;

cleanup:
	bg_index__free(&v.uids);
	bg_index__free(&v.series);
	free(v.dirs);
	json_object_put(top);
	bg_baseline_free(b);
	if (error == BG_EINPUT)
		printable_error(ctx);
	return error;
}

/* The machine a file's runs are stored under: `machine`, with the file's
 * facts when that is the machine it was exported on. */
static int import_machine(bg_ctx *ctx, const bg_baseline *b, const char *machine, int force,
                          bg_machine **out)
{
	bg_machine *m = NULL;
	char **f;
	int error;

	*out = NULL;
	if (strcmp(machine, b->machine) && !force)
		return bg_error_set(ctx, BG_EINPUT,
		                    "%s: the baseline was exported on machine %s, but this machine "
		                    "is %s (--force imports it as this machine anyway)",
		                    b->name, b->machine, machine);
	if (bg_machine_new(&m) < 0)
		return bg_error_oom(ctx);
	if ((error = bg_machine_set_name(m, machine)) < 0) {
		error = error == BG_ENOMEM
		                ? bg_error_oom(ctx)
		                : bg_error_set(ctx, BG_EINPUT, "\"%s\" is not a valid machine name",
		                               machine);
		goto cleanup;
	}
	/* Facts describe the file's machine: they belong only under its name. */
	if (!strcmp(machine, b->machine))
		for (f = b->facts; f && f[0] && f[1]; f += 2)
			if ((error = bg_machine_set_fact(m, f[0], f[1], 0)) < 0) {
				/* bg_baseline_parse() let only facts through that fit. */
				error = error == BG_ENOMEM
				                ? bg_error_oom(ctx)
				                : bg_error_set(
				                          ctx, BG_EINPUT,
				                          "%s: facts: \"%s\" is not a machine fact",
				                          b->name, f[0]);
				goto cleanup;
			}
	*out = m;
	m = NULL;
cleanup:
	bg_machine_free(m);
	return error;
}

/* The first run of the import to show a series: its file and run. */
typedef struct {
	const bg_series *s;
	size_t file, run;
} first_seen;

/* The series of entry i is (key[0], key[1]). */
static int same_first(const void *set, size_t i, const void *key)
{
	const bg_series *s = ((const first_seen *)set)[i].s;
	const char *const *k = key;

	return !strcmp(s->benchmark, k[0]) && !strcmp(s->metric, k[1]);
}

/*
 * Every file of one import says the same direction for a series, as it
 * says the same unit (within a file, bg_baseline_parse has held it): the store keeps one direction
 * per series and follows the latest run, so a disagreement would let whichever came last flip the
 * series for everyone.  BG_EINPUT naming both.
 */
static int check_directions(bg_ctx *ctx, const bg_baseline *const *b, size_t nb)
{
	first_seen *seen = NULL;
	bg_index ix = { 0 };
	size_t i, r, k, ns, n = 0, cap = 0, at;
	int error = 0;

	for (i = 0; i < nb; i++)
		for (r = 0; r < b[i]->nruns; r++) {
			const bg_results *res = b[i]->runs[r].res;

			ns = bg_results_series_count(res);
			for (k = 0; k < ns; k++) {
				const bg_series *s = bg_results_series(res, k);
				const char *key[2] = { s->benchmark, s->metric };
				uint64_t h = bg_index__hash(s->benchmark, s->metric);
				const first_seen *f;

				at = bg_index__find(&ix, h, same_first, seen, key);
				if (at == BG_INDEX_NONE) {
					if (bg_grow((void **)&seen, &cap, n, sizeof(*seen)) < 0 ||
					    bg_index__add(&ix, h, n) < 0) {
						error = bg_error_oom(ctx);
						goto cleanup;
					}
					seen[n].s = s;
					seen[n].file = i;
					seen[n++].run = r;
					continue;
				}
				f = &seen[at];
				if (f->s->direction == s->direction)
					continue;
				error = bg_error_set(ctx, BG_EINPUT,
				                     "%s: run %s: direction \"%s\" of %s:%s "
				                     "differs from \"%s\" in %s's run %s; nothing "
				                     "imported",
				                     b[i]->name, b[i]->runs[r].uid,
				                     bg_direction_name(s->direction), s->benchmark,
				                     s->metric, bg_direction_name(f->s->direction),
				                     b[f->file]->name,
				                     b[f->file]->runs[f->run].uid);
				goto cleanup;
			}
		}
cleanup:
	bg_index__free(&ix);
	free(seen);
	return error;
}

int bg_baseline_import_all(bg_ctx *ctx, bg_store *store, const bg_baseline *const *b, size_t nb,
                           const char *machine, int force, size_t *imported, size_t *present)
{
	bg_machine **m = NULL;
	bg_run_info *info = NULL;
	const bg_results **res = NULL;
	int64_t *ids = NULL;
	size_t *file_of = NULL, total = 0, n = 0, failed, i, r;
	int error = 0;

	BG_NEED(ctx, store);
	BG_NEED_N(ctx, b, nb);
	BG_NEED(ctx, machine);
	BG_NEED_N(ctx, imported, nb);
	BG_NEED_N(ctx, present, nb);
	for (i = 0; i < nb; i++)
		if (!b[i])
			return bg_error_set(ctx, BG_EINPUT, "%s: baseline %zu is NULL", __func__,
			                    i);

	for (i = 0; i < nb; i++) {
		imported[i] = present[i] = 0;
		total += b[i]->nruns;
	}
	if (!machine || !*machine)
		return bg_error_set(ctx, BG_EINPUT, "no machine to import the baseline as");
	m = calloc(nb + 1, sizeof(*m));
	info = calloc(total + 1, sizeof(*info));
	res = calloc(total + 1, sizeof(*res));
	ids = calloc(total + 1, sizeof(*ids));
	file_of = calloc(total + 1, sizeof(*file_of));
	if (!m || !info || !res || !ids || !file_of) {
		error = bg_error_oom(ctx);
		goto cleanup;
	}
	for (i = 0; i < nb; i++)
		if ((error = import_machine(ctx, b[i], machine, force, &m[i])) < 0)
			goto cleanup;
	if ((error = check_directions(ctx, b, nb)) < 0)
		goto cleanup;
	for (i = 0; i < nb; i++) {
		/* Runs present under another machine (an earlier import with
		 * another --machine): said once per file, since a run is stored
		 * once, by its uid, and "already present" alone hides where. */
		char *other = NULL;
		size_t elsewhere = 0;

		for (r = 0; r < b[i]->nruns; r++) {
			const baseline_run *run = &b[i]->runs[r];
			int64_t id = 0;

			if ((error = bg_store_run_by_uid(ctx, store, run->uid, &id)) < 0) {
				free(other);
				goto cleanup;
			}
			if (id) {
				bg_saved_error saved;
				bg_run_row row;

				present[i]++;
				/* Only for a warning: unread, the run is present all the same. */
				bg_ctx__save_error(ctx, &saved);
				if (bg_store_run_get(ctx, store, id, &row) == 0) {
					if (!row.complete)
						bg_log(ctx, BG_LOG_WARN,
						       "run %s is in the database but incomplete "
						       "(an "
						       "earlier import was interrupted); it is "
						       "never "
						       "used as a baseline",
						       run->uid);
					if (row.machine &&
					    strcmp(row.machine, bg_machine_fingerprint(m[i])) !=
					            0) {
						if (!elsewhere++)
							other = bg_strdup(row.machine);
					}
					bg_run_row_clear(&row);
				} else {
					bg_ctx__restore_error(ctx, &saved);
				}
				continue;
			}
			info[n].commit = &run->commit;
			info[n].machine = m[i];
			info[n].source = "baseline";
			info[n].tags = (const char *const *)run->tags;
			info[n].uid = run->uid;
			info[n].started_at = run->started_at;
			/* A file written before runs had a role holds the runs that
			 * compare, bisect and ci's confirmation made, known by their
			 * tags, as schema step 6 knew them in a database: imported
			 * as ordinary runs, they joined every rolling baseline. */
			for (char **t = run->tags; t && *t && !info[n].paired; t++)
				info[n].paired = bg_tag__paired_key(*t, strcspn(*t, "="));
			res[n] = run->res;
			file_of[n++] = i;
		}
		if (elsewhere)
			bg_log(ctx, BG_LOG_WARN,
			       "%zu of the runs of %s %s in the database already under machine "
			       "%s, not %s: a run is stored once, by its uid (--machine %s "
			       "judges %s there)",
			       elsewhere, b[i]->name, elsewhere == 1 ? "is" : "are",
			       other ? other : "?", bg_machine_fingerprint(m[i]),
			       other ? other : "NAME", elsewhere == 1 ? "it" : "them");
		free(other);
	}
	/*
	 * Every run of every file in one transaction: a series whose unit
	 * contradicts the database, or another file's, is refused with nothing
	 * stored, and an interrupted import leaves no incomplete run.
	 */
	if ((error = bg_store_runs_put(ctx, store, info, res, n, 1, ids, &failed)) < 0) {
		if (failed < n)
			error = bg_error_set(ctx, error, "%s: run %s: %s; nothing imported",
			                     b[file_of[failed]]->name, info[failed].uid,
			                     bg_ctx_error(ctx));
		goto cleanup;
	}
	/* A run another import stored since we looked is present too. */
	for (r = 0; r < n; r++)
		if (ids[r])
			imported[file_of[r]]++;
		else
			present[file_of[r]]++;

cleanup:
	for (i = 0; m && i < nb; i++)
		bg_machine_free(m[i]);
	free(m);
	free(info);
	free(res);
	free(ids);
	free(file_of);
	return error;
}

int bg_baseline_import(bg_ctx *ctx, bg_store *store, const bg_baseline *b, const char *machine,
                       int force, size_t *imported, size_t *present)
{
	return bg_baseline_import_all(ctx, store, &b, 1, machine, force, imported, present);
}
