/*
 * bisect.c -- `benchguard bisect --good A --bad B`: the first commit on the
 * first-parent history A..B where a series moved to B's level, whether it
 * got worse there or better.
 *
 * The ends are measured first, in interleaved pairs, and judged like
 * `compare`; the surest change among the series (--series names one,
 * --filter narrows the benchmarks) is the one bisected, and its direction
 * is the search's.  `--step SERIES[@REV]` takes the ends and the series
 * from a change point of the trend report instead.  The search itself
 * (lib/bisect.c) asks for runs at commits, each made in a pair with a run
 * of the good end; this file answers with the pairs the database already
 * holds for (commit, machine) -- tagged `bisect-good=<sha>` on the probe's
 * run and `bisect-probe=<sha>` on the good end's -- and, when they are too
 * few, builds the commit once in a worktree and has bg_pairs_make run the
 * rest.  A commit that does not build is skipped.
 *
 * stderr gets a line per look at the ends, per step and per phase; pairs
 * and runs draw a progress line on a terminal, and a line each only with -v.
 */
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <json-c/json.h>

#include "cli.h"
#include "internal.h"

#define BISECT_END_RUNS 8

enum { OPT_GOOD = CLI_OPT_BASE + 300, OPT_BAD, OPT_MAX_RUNS, OPT_SERIES, OPT_STEP };

typedef struct {
	cli_state *st;
	cli_env *env;
	const cli_run_flags *rflags;
	char (*shas)[41]; /* c[0] good .. c[n] bad */
	size_t n;
	char *benchmark, *metric; /* the series bisected */
	bg_direction direction;   /* its direction: what a change is printed as */
	char *only[2];
	size_t builds; /* build commands run in this session */
	bg_commit good;
	bg_worktree good_wt; /* prepared once, kept for the probes' pairs */
	int good_ready;
	int improvement; /* searching where the series got better */
	char doing[160]; /* what the runs under way are for, for the progress line */
	int confirming;  /* the culprit's confirmation is under way: */
	size_t confirm_done, confirm_runs; /* its runs made, and to make */
	size_t probe;                      /* the commit whose pairs are being made */
} bisect_state;

/* What a pair or run is for: a line of its own with -v, else the progress
 * line of a terminal (the suite's progress events draw it with their count). */
static void doing(bisect_state *b, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void doing(bisect_state *b, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(b->doing, sizeof(b->doing), fmt, ap);
	va_end(ap);
	if (b->st->verbose)
		cli_info(b->st, "bisect: %s", b->doing);
	else
		cli_progress(b->st, "bisect: %s", b->doing);
}

/* The suite's events for paired runs: progress under the phase's words;
 * failures as everywhere else. */
static void on_run_event(const bg_suite_event *ev, void *data)
{
	bisect_state *b = data;

	if (ev->kind == BG_SUITE_PROGRESS) {
		if (cli_progress_due(b->st, ev->done, ev->of))
			cli_progress(b->st, "bisect: %s  [%d/%d] %s %d/%d", b->doing, ev->index,
			             ev->total, ev->benchmark->name, ev->done, ev->of);
	} else
		cli_quiet_events()(ev, b->st);
}

typedef struct {
	size_t npairs;
	int good_reused, bad_reused;
} ends_info;

/* The robust mean of the bisected series in a run (NAN if it has none). */
static int run_value(bisect_state *b, int64_t run_id, double *v)
{
	return bg_store_run_mean(b->st->ctx, b->env->store, run_id, b->benchmark, b->metric, v);
}

/*
 * 1 when row r's values at the ends are all above 0 (or missing), 0 when one
 * is 0 or below, < 0 on error.  The search follows log ratios to the good
 * end, which 0 allocs/op or a score below 0 does not have; compare and the
 * ends' check judge such a series as two samples, the search cannot.
 */
static int positive_at_ends(bisect_state *b, const bg_verdict_row *r, const int64_t *gids,
                            const int64_t *bids, size_t n)
{
	char *benchmark = b->benchmark, *metric = b->metric;
	size_t i;
	int rc = 1;

	b->benchmark = r->benchmark;
	b->metric = r->metric;
	for (i = 0; i < n && rc == 1; i++) {
		double x, y;

		if (run_value(b, gids[i], &x) < 0 || run_value(b, bids[i], &y) < 0)
			rc = BG_ERROR;
		else if ((isfinite(x) && !(x > 0)) || (isfinite(y) && !(y > 0)))
			rc = 0;
	}
	b->benchmark = benchmark;
	b->metric = metric;
	return rc;
}

/*
 * The pairs stored on this machine of a complete clean run of the good end
 * tagged key=c[cand] with one of c[cand] tagged key2=c[0], oldest first:
 * only runs recorded as one pair, so that a run whose partner was
 * interrupted shifts no later pair, and only pairs that ran what this
 * bisect runs (a probe: the bisected benchmark; the ends: the selection),
 * so that an earlier bisect of another series is not read as this one's.
 */
static int tagged_pairs(bisect_state *b, const char *key, size_t cand, const char *key2, int probe,
                        int64_t **ref_ids, int64_t **cand_ids, size_t *n)
{
	bg_commit ref_commit, cand_commit;
	bg_pairs_opts po;
	char tag[128], tag2[128];

	memset(&ref_commit, 0, sizeof(ref_commit));
	memset(&cand_commit, 0, sizeof(cand_commit));
	memcpy(ref_commit.sha, b->shas[0], sizeof(ref_commit.sha));
	memcpy(cand_commit.sha, b->shas[cand], sizeof(cand_commit.sha));
	snprintf(tag, sizeof(tag), "%s=%s", key, b->shas[cand]);
	snprintf(tag2, sizeof(tag2), "%s=%s", key2, b->shas[0]);
	memset(&po, 0, sizeof(po));
	cli_suite_opts(b->st, b->env, b->rflags, &po.run);
	if (b->benchmark)
		po.run.only = b->only;
	if (probe)
		po.run.filter = NULL;
	po.ref.commit = &ref_commit;
	po.ref.tag = tag;
	po.cand.commit = &cand_commit;
	po.cand.tag = tag2;
	return bg_pairs_stored(b->st->ctx, b->env->store, &po, ref_ids, cand_ids, n);
}

/* Checks out and builds c[index] (once).  1: it does not build. */
static int prepare(bisect_state *b, size_t index, bg_commit *commit, bg_worktree *wt)
{
	int rc = cli_prepare_commit_soft(b->st, b->env, b->shas[index], b->rflags->retry_build,
	                                 commit, wt);

	if (rc < 0)
		return rc;
	b->builds += wt->built;
	if (wt->failed) {
		cli_info(b->st, "bisect: %.12s does not build: skipped", b->shas[index]);
		return 1;
	}
	return 0;
}

/*
 * Checks out and builds an end, c[index]: one that does not build stops the
 * bisect, with what `run --commit` says of it (its log's end on stderr, or
 * that the failure is remembered and --retry-build tries again).
 */
static int prepare_end(bisect_state *b, size_t index, const char *which, bg_commit *commit,
                       bg_worktree *wt)
{
	char why[1024];
	int rc = cli_prepare_commit(b->st, b->env, b->shas[index], b->rflags->retry_build, commit,
	                            wt);

	b->builds += wt->built;
	if (rc != BG_EBUILD)
		return rc;
	snprintf(why, sizeof(why), "%s", bg_ctx_error(b->st->ctx));
	return bg_error_set(b->st->ctx, BG_EBUILD, "the %s end %.12s does not build: %s", which,
	                    b->shas[index], why);
}

static int prepare_good(bisect_state *b)
{
	int rc;

	if (b->good_ready)
		return 0;
	if ((rc = prepare_end(b, 0, "good", &b->good, &b->good_wt)) != 0)
		return rc;
	b->good_ready = 1;
	return 0;
}

/* The pairs of c[index] with the good end: probe runs and the good runs made beside them. */
static int probe_pairs(bisect_state *b, size_t index, int64_t **p, int64_t **g, size_t *n)
{
	return tagged_pairs(b, "bisect-probe", index, "bisect-good", 1, g, p, n);
}

/* Pairs of the good end (prepared) and `cand` checked out at `cwd`, each
 * side's runs tagged so that a rerun finds them, with the session's flags. */
static void pairs_opts(bisect_state *b, const bg_commit *cand, const char *cwd, const char *ref_tag,
                       const char *cand_tag, bg_pairs_opts *po)
{
	memset(po, 0, sizeof(*po));
	cli_suite_opts(b->st, b->env, b->rflags, &po->run);
	po->run.event = on_run_event;
	po->run.data = b;
	po->ref.commit = &b->good;
	po->ref.cwd = b->good_wt.path;
	po->ref.tag = ref_tag;
	po->cand.commit = cand;
	po->cand.cwd = cwd;
	po->cand.tag = cand_tag;
	po->reuse = 1;
}

/* Before each pair of a probe: what it is for, on stderr or the progress line. */
static void on_probe_pair(size_t k, size_t of, int ref_first, void *data)
{
	bisect_state *b = data;

	(void)ref_first;
	if (b->confirming)
		doing(b, "confirming the culprit: %zu of %zu runs (%.12s, pair %zu of %zu)",
		      b->confirm_done, b->confirm_runs, b->shas[b->probe], k, of);
	else
		doing(b, "%.12s, pair %zu of %zu", b->shas[b->probe], k, of);
	b->confirm_done += 2 * (size_t)b->confirming;
}

static int measure(bg_ctx *ctx, size_t index, size_t runs, void *data, double **values,
                   double **good, size_t *n, int *reused)
{
	bisect_state *b = data;
	int64_t *p = NULL, *g = NULL;
	size_t np = 0, k;
	bg_commit commit;
	bg_worktree wt;
	int rc;

	(void)ctx;
	memset(&commit, 0, sizeof(commit));
	memset(&wt, 0, sizeof(wt));
	*values = *good = NULL;
	*n = 0;
	if ((rc = probe_pairs(b, index, &p, &g, &np)) < 0)
		goto cleanup;
	*reused = np >= runs;
	if (np < runs) {
		bg_pairs_opts po;
		char good_tag[128], probe_tag[128];

		if ((rc = prepare_good(b)) < 0 || (rc = prepare(b, index, &commit, &wt)) != 0)
			goto cleanup;
		free(p);
		free(g);
		p = g = NULL;
		/* The probe's runs are tagged with the good end, and the good
		 * end's with the probe, so that a rerun finds these pairs. */
		snprintf(good_tag, sizeof(good_tag), "bisect-good=%s", b->shas[0]);
		snprintf(probe_tag, sizeof(probe_tag), "bisect-probe=%s", b->shas[index]);
		pairs_opts(b, &commit, wt.path, probe_tag, good_tag, &po);
		po.run.only = b->only;
		po.run.filter = NULL;
		po.pair = on_probe_pair;
		po.look_data = b;
		b->probe = index;
		if ((rc = bg_pairs_make(b->st->ctx, b->env->store, &po, runs, &g, &p, &np)) < 0)
			goto cleanup;
	}
	/* The first `runs` pairs: a later search over these results sees what
	 * this one saw, and repeats its decisions. */
	if (np > runs)
		np = runs;
	*values = malloc((np ? np : 1) * sizeof(double));
	*good = malloc((np ? np : 1) * sizeof(double));
	if (!*values || !*good) {
		rc = bg_error_oom(b->st->ctx);
		goto cleanup;
	}
	for (k = 0; k < np; k++) {
		double pv, gv;

		if ((rc = run_value(b, p[k], &pv)) < 0 || (rc = run_value(b, g[k], &gv)) < 0)
			goto cleanup;
		if (isfinite(pv) && isfinite(gv) && pv > 0 && gv > 0) {
			(*values)[*n] = pv;
			(*good)[*n] = gv;
			(*n)++;
		}
	}
	rc = 0;
	if (*n < runs) {
		/* The benchmark failed there: as good as unbuildable for this search. */
		cli_warn(b->st, "bisect: %s did not run at %.12s: skipped", b->benchmark,
		         b->shas[index]);
		rc = 1;
	}
cleanup:
	free(p);
	free(g);
	bg_commit_clear(&commit);
	bg_worktree_clear(&wt);
	return rc;
}

static void progress(const bg_bisect_step *s, size_t k, size_t total, void *data)
{
	bisect_state *b = data;
	char pct[32];

	if (s->verdict == BG_PROBE_SKIP)
		cli_info(b->st,
		         "bisect: step %zu of about %zu: %.12s skipped (does not build or run)", k,
		         total, b->shas[s->index]);
	else
		cli_info(
		        b->st, "bisect: step %zu of about %zu: %.12s is %s (%s, %zu pairs%s%s)", k,
		        total, b->shas[s->index], bg_probe_verdict_term(s->verdict, b->improvement),
		        isfinite(s->change)
		                ? bg_unit__pct(pct, sizeof(pct),
		                               bg_change_oriented(s->change, b->direction), 1)
		                : "from 0",
		        s->runs, s->reused ? ", stored" : "", s->by_distance ? ", nearer end" : "");
}

/* The last phase: the culprit and the commit before it measured to as many
 * pairs as the ends, so that the change printed rests on more than the
 * three pairs that decided each step. */
static void on_confirm(size_t lo, size_t hi, size_t pairs, size_t more, void *data)
{
	bisect_state *b = data;
	size_t side[2] = { lo, hi }, k, stored;
	int64_t *p = NULL, *g = NULL;

	(void)more;
	b->confirm_runs = b->confirm_done = 0;
	for (k = 0; k < 2; k++) {
		if (side[k] == 0 || side[k] == b->n)
			continue;
		stored = 0;
		if (probe_pairs(b, side[k], &p, &g, &stored) < 0)
			stored = 0;
		free(p);
		free(g);
		p = g = NULL;
		if (stored < pairs)
			b->confirm_runs += 2 * (pairs - stored);
	}
	b->confirming = 1;
	if (b->confirm_runs)
		cli_info(
		        b->st,
		        "bisect: confirming the culprit: %zu runs at %.12s and %.12s, to %zu pairs "
		        "each",
		        b->confirm_runs, b->shas[lo], b->shas[hi], pairs);
	else
		cli_info(b->st,
		         "bisect: confirming the culprit: %zu pairs each at %.12s and %.12s, all "
		         "stored",
		         pairs, b->shas[lo], b->shas[hi]);
}

static void on_pair(size_t k, size_t of, int ref_first, void *data)
{
	doing(data, "the ends, pair %zu of %zu (%s first)", k, of, ref_first ? "good" : "bad");
}

static void on_look(size_t look, size_t looks, size_t pairs, size_t open, double seconds,
                    void *data)
{
	bisect_state *b = data;

	cli_info(b->st,
	         "bisect: the ends, look %zu of %zu at %zu pairs: %zu series still open "
	         "(%.1f s)",
	         look, looks, pairs, open, seconds);
}

/* The ends' checkouts, when bg_pairs_run must make a pair: a bisect whose
 * end pairs are all stored checks out and builds neither (after gc too). */
typedef struct {
	bisect_state *b;
	bg_commit bad;
	bg_worktree bad_wt;
} ends_checkout;

static int prepare_ends(void *data, const char **good_cwd, const char **bad_cwd)
{
	ends_checkout *ec = data;
	int rc;

	if ((rc = prepare_good(ec->b)) < 0)
		return rc;
	bg_commit_clear(&ec->bad);
	if ((rc = prepare_end(ec->b, ec->b->n, "bad", &ec->bad, &ec->bad_wt)) != 0)
		return rc;
	*good_cwd = ec->b->good_wt.path;
	*bad_cwd = ec->bad_wt.path;
	return 0;
}

/*
 * The ends, judged like `compare` (bg_pairs_run): pairs of the (filtered)
 * suite tagged `bisect-end=<the other end>`, good and bad in ABBA order, so
 * that a machine that speeds up or slows down for a while does not land on
 * one end only; sequential looks from `runs` pairs up to `cap`.  Pairs
 * already stored are reused, so a rerun reaches the same verdict at once.
 */
static int measure_ends(bisect_state *b, const bg_check_opts *co, int runs, int cap,
                        bg_check_result **res, int64_t **gids, int64_t **bids, ends_info *e)
{
	ends_checkout ec;
	bg_commit good;
	bg_pairs_opts po;
	bg_pairs_series one;
	char gtag[128], btag[128];
	size_t np = 0;
	int rc;

	memset(&ec, 0, sizeof(ec));
	memset(&good, 0, sizeof(good));
	ec.b = b;
	if ((rc = tagged_pairs(b, "bisect-end", b->n, "bisect-end", 0, gids, bids, &np)) < 0)
		return rc;
	e->good_reused = e->bad_reused = np >= (size_t)runs;
	free(*gids);
	free(*bids);
	*gids = *bids = NULL;
	/* The ends as the runs store them; checked out only if pairs are made. */
	if ((rc = cli_lookup_commit(b->st, b->env, b->shas[0], &good)) < 0 ||
	    (rc = cli_lookup_commit(b->st, b->env, b->shas[b->n], &ec.bad)) < 0)
		goto cleanup;
	snprintf(gtag, sizeof(gtag), "bisect-end=%s", b->shas[b->n]);
	snprintf(btag, sizeof(btag), "bisect-end=%s", b->shas[0]);
	pairs_opts(b, &ec.bad, NULL, gtag, btag, &po);
	po.ref.commit = &good;
	po.ref.cwd = b->good_ready ? b->good_wt.path : NULL;
	po.prepare = prepare_ends;
	po.prepare_data = &ec;
	if (b->benchmark) {
		/* One series named: only its benchmark runs, only it is decided. */
		po.run.only = b->only;
		po.series = &one;
		po.nseries = 1;
		one.benchmark = b->benchmark;
		one.metric = b->metric;
		one.worse = one.better = 1;
	}
	po.first = (size_t)runs;
	po.max = (size_t)cap;
	po.thresholds = co->thresholds;
	po.look = on_look;
	po.pair = on_pair;
	po.look_data = b;
	if ((rc = bg_pairs_run(b->st->ctx, b->env->store, &po, res)) < 0)
		goto cleanup;
	if ((rc = tagged_pairs(b, "bisect-end", b->n, "bisect-end", 0, gids, bids, &np)) < 0)
		goto cleanup;
	/* The pairs the verdict used (later ones belong to no decision). */
	e->npairs = (size_t)(*res)->window;
	if (e->npairs > np)
		e->npairs = np;
	rc = 0;
cleanup:
	bg_commit_clear(&good);
	bg_commit_clear(&ec.bad);
	bg_worktree_clear(&ec.bad_wt);
	return rc;
}

static json_object *step_json(const bisect_state *b, size_t index, const char *verdict, size_t runs,
                              size_t decided, int reused, double change, double p_good,
                              double p_bad, int by_distance)
{
	json_object *o = json_object_new_object();

	json_object_object_add(o, "commit", json_object_new_string(b->shas[index]));
	json_object_object_add(o, "verdict", json_object_new_string(verdict));
	json_object_object_add(o, "runs", json_object_new_int64((int64_t)runs));
	if (decided != runs)
		json_object_object_add(o, "decided_runs", json_object_new_int64((int64_t)decided));
	json_object_object_add(o, "reused", json_object_new_boolean(reused));
	json_object_object_add(o, "position", json_object_new_int64((int64_t)index));
	if (isfinite(change)) {
		json_object_object_add(o, "change", json_object_new_double(change));
		json_object_object_add(
		        o, "delta",
		        json_object_new_double(bg_change_oriented(change, b->direction)));
	}
	if (isfinite(p_good))
		json_object_object_add(o, "p_good", json_object_new_double(p_good));
	if (isfinite(p_bad))
		json_object_object_add(o, "p_bad", json_object_new_double(p_bad));
	if (by_distance)
		json_object_object_add(o, "by_distance", json_object_new_boolean(1));
	return o;
}

static int print_result(cli_state *st, bisect_state *b, const ends_info *e,
                        const bg_bisect_result *r)
{
	const char *kind = r->improvement ? "improvement" : "regression";
	double p = r->improvement ? r->change.p_better : r->change.p_worse;
	bg_commit c;
	size_t i;
	int rc;
	char series[CLI_SERIES_MAX], shown[CLI_TERM_MAX];

	snprintf(series, sizeof(series), "%s:%s", b->benchmark, b->metric);
	memset(&c, 0, sizeof(c));
	if ((rc = bg_repo_lookup(st->ctx, b->env->repo, b->shas[r->first_bad], &c)) < 0)
		return rc;
	if (st->format == CLI_JSON) {
		json_object *top = json_object_new_object(), *steps = json_object_new_array();

		json_object_object_add(top, "first_changed",
		                       r->found ? json_object_new_string(c.sha) : NULL);
		/* The same commit: the name older scripts read. */
		json_object_object_add(top, "first_bad",
		                       r->found ? json_object_new_string(c.sha) : NULL);
		json_object_object_add(top, "verdict", json_object_new_string(kind));
		json_object_object_add(top, "subject",
		                       r->found && c.subject ? json_object_new_string(c.subject)
		                                             : NULL);
		json_object_object_add(top, "author",
		                       r->found && c.author ? json_object_new_string(c.author)
		                                            : NULL);
		json_object_object_add(top, "series", json_object_new_string(series));
		json_object_object_add(top, "change", json_object_new_double(r->change.change));
		json_object_object_add(top, "delta", json_object_new_double(r->change.delta));
		json_object_object_add(top, "p", json_object_new_double(p));
		json_object_object_add(top, "significant", json_object_new_boolean(r->significant));
		json_object_object_add(top, "pairs",
		                       json_object_new_int64((int64_t)r->change.n_cur));
		json_object_object_add(top, "step", json_object_new_double(r->step));
		json_object_object_add(
		        top, "step_delta",
		        json_object_new_double(bg_change_oriented(r->step, b->direction)));
		json_object_object_add(top, "last_good",
		                       json_object_new_string(b->shas[r->last_good]));
		if (!r->found) {
			json_object *range = json_object_new_array();
			for (i = r->lo; i <= r->hi; i++)
				json_object_array_add(range, json_object_new_string(b->shas[i]));
			json_object_object_add(top, "range", range);
		}
		json_object_array_add(
		        steps, step_json(b, 0, bg_probe_verdict_term(BG_PROBE_GOOD, r->improvement),
		                         e->npairs, e->npairs, e->good_reused, 0.0, NAN, NAN, 0));
		json_object_array_add(
		        steps,
		        step_json(b, b->n, bg_probe_verdict_term(BG_PROBE_BAD, r->improvement),
		                  e->npairs, e->npairs, e->bad_reused, r->step, NAN, NAN, 0));
		for (i = 0; i < r->nsteps; i++) {
			const bg_bisect_step *s = &r->steps[i];
			json_object_array_add(
			        steps, step_json(b, s->index,
			                         bg_probe_verdict_term(s->verdict, r->improvement),
			                         s->runs, s->decided_runs, s->reused, s->change,
			                         s->p_good, s->p_bad, s->by_distance));
		}
		json_object_object_add(top, "steps", steps);
		json_object_object_add(top, "builds", json_object_new_int64((int64_t)b->builds));
		json_object_object_add(top, "commits", json_object_new_int64((int64_t)b->n));
		bg_commit_clear(&c);
		return cli_print_json(st, top);
	}
	{
		static const char *const worse_head[] = { "step",
			                                  "commit",
			                                  "verdict",
			                                  "pairs",
			                                  "against good end",
			                                  "p worse than good",
			                                  "p better than bad" };
		static const char *const better_head[] = { "step",
			                                   "commit",
			                                   "verdict",
			                                   "pairs",
			                                   "against old end",
			                                   "p better than old",
			                                   "p worse than new" };
		bg_table *t = bg_table_new(7, r->improvement ? better_head : worse_head, "rllrrrr");
		char cells[7][64], delta[32], step[32];
		const char *row[7];
		size_t k;

		if (!t) {
			bg_commit_clear(&c);
			return bg_error_oom(st->ctx);
		}
		for (i = 0; i < r->nsteps; i++) {
			const bg_bisect_step *s = &r->steps[i];
			snprintf(cells[0], 64, "%zu", i + 1);
			snprintf(cells[1], 64, "%.12s", b->shas[s->index]);
			snprintf(cells[2], 64, "%s%s",
			         bg_probe_verdict_term(s->verdict, r->improvement),
			         s->by_distance ? " (nearer)" : "");
			/* Decided in d pairs, then e more to confirm the culprit: "d+e". */
			if (s->runs > s->decided_runs)
				snprintf(cells[3], 64, "%zu+%zu%s", s->decided_runs,
				         s->runs - s->decided_runs, s->reused ? " stored" : "");
			else
				snprintf(cells[3], 64, "%zu%s", s->runs,
				         s->reused ? " stored" : "");
			if (isfinite(s->change))
				bg_unit__pct(cells[4], 64,
				             bg_change_oriented(s->change, b->direction), 1);
			else
				snprintf(cells[4], 64, "-");
			snprintf(cells[5], 64, isfinite(s->p_good) ? "%.2g" : "-", s->p_good);
			snprintf(cells[6], 64, isfinite(s->p_bad) ? "%.2g" : "-", s->p_bad);
			for (k = 0; k < 7; k++)
				row[k] = cells[k];
			bg_table_add(t, row);
		}
		if (r->found) {
			char subj[CLI_TERM_MAX], author[CLI_TERM_MAX];

			printf("first %s commit: %s\n", r->improvement ? "improved" : "bad", c.sha);
			printf("  %s\n  author: %s\n", cli_term(subj, sizeof(subj), c.subject),
			       cli_term(author, sizeof(author), c.author));
		} else {
			printf("the first %s commit is one of these %zu (the others between do not "
			       "build):\n",
			       r->improvement ? "improved" : "bad", r->hi - r->lo + 1);
			for (i = r->lo; i <= r->hi; i++)
				printf("  %s\n", b->shas[i]);
		}
		printf("  %s: %s against %.12s, %s (p %.2g, %zu pairs); %s from %s "
		       "to %s end\n",
		       cli_term(shown, sizeof(shown), series),
		       bg_check__moved(delta, sizeof(delta), &r->change), b->shas[r->last_good],
		       !r->significant  ? "not significant"
		       : r->improvement ? "an improvement"
		                        : "a regression",
		       p, r->change.n_cur,
		       bg_unit__pct(step, sizeof(step), bg_change_oriented(r->step, b->direction),
		                    1),
		       r->improvement ? "old" : "good", r->improvement ? "new" : "bad");
		printf("%zu commit%s, %zu probe%s, %zu build%s in this session\n", b->n,
		       b->n == 1 ? "" : "s", r->nsteps, r->nsteps == 1 ? "" : "s", b->builds,
		       b->builds == 1 ? "" : "s");
		/* A range of one commit has nothing to probe: no table of no steps. */
		if (r->nsteps) {
			printf("\n");
			cli_table_print(st, t, stdout);
		}
		bg_table_free(t);
	}
	bg_commit_clear(&c);
	return 0;
}

/* "benchmark:metric" into its parts (the metric after the last colon). */
static int split_series(cli_state *st, const char *opt, const char *name, char **benchmark,
                        char **metric)
{
	const char *colon = strrchr(name, ':');

	if (!colon || colon == name || !colon[1])
		return cli_usage_error(st,
		                       "%s needs a series BENCHMARK:METRIC, e.g. loop:wall_time "
		                       "(got \"%s\")",
		                       opt, name);
	if (!(*benchmark = strndup(name, (size_t)(colon - name))) || !(*metric = strdup(colon + 1)))
		return bg_error_oom(st->ctx);
	return 0;
}

/*
 * --step SERIES[@REV]: the change point of SERIES in the trend report of
 * the baseline branch (every stored run of this machine) whose range holds
 * REV, or its newest step; its ends become good and bad.
 */
static int step_ends(bisect_state *b, const bg_check_opts *co, const char *spec, const char *branch,
                     char **series, char good[41], char bad[41])
{
	cli_state *st = b->st;
	const char *colon = strrchr(spec, ':'), *at = colon ? strchr(colon, '@') : NULL;
	bg_report *rep = NULL;
	bg_report_step *steps = NULL;
	bg_report_opts ro;
	bg_commit rev;
	bg_buf list = BG_BUF_INIT;
	char(*range)[41] = NULL, pct[32];
	size_t i, k, n = 0, nrange = 0, mine = 0;
	const bg_report_step *pick = NULL;
	int rc = 0;

	memset(&rev, 0, sizeof(rev));
	if (!(*series = at ? strndup(spec, (size_t)(at - spec)) : strdup(spec)))
		return bg_error_oom(st->ctx);
	if (at && !at[1])
		return cli_usage_error(st, "--step %s: a revision is needed after '@'", spec);
	if (at && (rc = bg_repo_lookup(st->ctx, b->env->repo, at + 1, &rev)) < 0)
		return rc == BG_ENOTFOUND ? BG_EINPUT : rc;
	memset(&ro, 0, sizeof(ro));
	ro.now = (int64_t)time(NULL);
	ro.since = 0;
	ro.branch = branch;
	ro.machine = bg_machine_fingerprint(b->env->machine);
	ro.window = co->window;
	ro.min_runs = co->min_runs;
	ro.thresholds = co->thresholds;
	if ((rc = cli_branch_hint(st,
	                          bg_report_build(st->ctx, b->env->store, b->env->repo, &ro, &rep),
	                          "--baseline-branch")) < 0 ||
	    (rc = bg_report_steps(st->ctx, rep, &steps, &n)) < 0)
		goto cleanup;
	for (i = 0; i < n; i++) {
		if (strcmp(steps[i].series, *series) != 0)
			continue;
		mine++;
		bg_buf_printf(&list, "%s %.12s..%.12s (%s)", mine > 1 ? "," : "", steps[i].before,
		              steps[i].after, bg_unit__pct(pct, sizeof(pct), steps[i].delta, 1));
		if (!at) {
			pick = &steps[i]; /* oldest first: the newest wins */
			continue;
		}
		if (!strcmp(rev.sha, steps[i].after) || !strcmp(rev.sha, steps[i].before)) {
			pick = &steps[i];
			continue;
		}
		free(range);
		range = NULL;
		if ((rc = bg_repo_first_parent_range(st->ctx, b->env->repo, steps[i].before,
		                                     steps[i].after, &range, &nrange)) < 0)
			goto cleanup;
		for (k = 0; k < nrange; k++)
			if (!strcmp(range[k], rev.sha))
				pick = &steps[i];
	}
	if (!mine) {
		rc = cli_usage_error(st,
		                     "--step: the report of %s on this machine shows no step in %s "
		                     "(benchguard report --filter lists the steps it finds)",
		                     branch, *series);
		goto cleanup;
	}
	if (!pick) {
		rc = cli_usage_error(st, "--step: no step of %s holds %.12s; its steps:%s", *series,
		                     rev.sha, list.ptr ? list.ptr : "");
		goto cleanup;
	}
	if (mine > 1 && !at)
		cli_info(st,
		         "bisect: %s has %zu steps (%s); bisecting the newest (name one with "
		         "--step %s@REV)",
		         *series, mine, list.ptr ? list.ptr + 1 : "", *series);
	memcpy(good, pick->before, 41);
	memcpy(bad, pick->after, 41);
	cli_info(st,
	         "bisect: the report shows %s moving %s (%s, p %.2g) between %.12s and "
	         "%.12s",
	         *series, bg_unit__pct(pct, sizeof(pct), pick->delta, 1),
	         bg_verdict_name(pick->verdict), pick->p, pick->before, pick->after);
cleanup:
	free(range);
	bg_buf_clear(&list);
	bg_commit_clear(&rev);
	bg_report_steps_free(steps, n);
	bg_report_free(rep);
	return rc;
}

/*
 * The benchmarks a bisect measures are in the suite: a --filter that
 * matches none, or a series (`opt`: --series or --step) whose benchmark
 * the suite lacks or the filter leaves out, is a usage error, as it is for
 * run, before anything is built (the ends' pairs would otherwise hold
 * nothing to judge).
 */
static int check_selection(bisect_state *b, const char *opt, const char *series)
{
	bg_suite_opts so;
	size_t n;
	int rc;

	cli_suite_opts(b->st, b->env, b->rflags, &so);
	if (b->benchmark) {
		const char *filter = so.filter;

		so.only = b->only;
		so.filter = NULL;
		if ((rc = bg_suite_count(b->st->ctx, &so, &n)) < 0)
			return rc;
		if (!n)
			return cli_usage_error(b->st, "%s %s: the suite has no benchmark \"%s\"",
			                       opt, series, b->benchmark);
		so.filter = filter;
	}
	if ((rc = bg_suite_count(b->st->ctx, &so, &n)) < 0)
		return rc;
	if (!n && b->benchmark)
		return cli_usage_error(b->st, "%s %s: --filter \"%s\" leaves its benchmark out",
		                       opt, series, so.filter);
	if (!n && so.filter)
		return cli_usage_error(b->st, "--filter \"%s\" matches no benchmark", so.filter);
	return 0;
}

/*
 * After the ends: a series named (`opt`: --series or --step) that their
 * runs do not have although its benchmark ran is a metric the benchmark
 * does not measure; a usage error that lists those it does.  0 when the
 * series was judged, its benchmark failed (the table says why), or the
 * pairs did not run it.
 */
static int check_series_measured(bisect_state *b, const bg_check_result *res, const char *opt,
                                 const char *series, const int64_t *bids, size_t npairs)
{
	bg_run_series *rs = NULL;
	bg_buf have = BG_BUF_INIT;
	size_t i, n = 0;
	int rc = 0;

	for (i = 0; i < res->nrows; i++)
		if (!strcmp(res->rows[i].series, series) ||
		    (res->rows[i].verdict == BG_VERDICT_FAILED &&
		     !strcmp(res->rows[i].benchmark, b->benchmark)))
			return 0;
	if (npairs && (rc = bg_store_run_series(b->st->ctx, b->env->store, bids[0], &rs, &n)) < 0)
		return rc;
	for (i = 0; i < n && rc == 0; i++)
		if (!strcmp(rs[i].benchmark, b->benchmark) &&
		    bg_buf_printf(&have, "%s%s", have.len ? ", " : "", rs[i].metric) < 0)
			rc = bg_error_oom(b->st->ctx);
	if (rc == 0 && have.len)
		rc = cli_usage_error(b->st, "%s %s: %s has no metric \"%s\" (it measures %s)", opt,
		                     series, b->benchmark, b->metric, have.ptr);
	bg_buf_clear(&have);
	bg_run_series_free(rs, n);
	return rc;
}

/* Nothing to bisect: what the ends' pairs showed, series by series. */
static int print_no_difference(cli_state *st, const bg_check_result *res, const char *good,
                               const char *bad, const char *series, size_t pairs, size_t builds,
                               int failed)
{
	char *json = NULL, shown[CLI_TERM_MAX];
	int rc;

	if (st->format == CLI_JSON) {
		json_object *top = json_object_new_object(), *ends;

		if ((rc = bg_check_json(st->ctx, res, &json)) < 0) {
			json_object_put(top);
			return rc;
		}
		ends = json_tokener_parse(json);
		free(json);
		json_object_object_add(top, "first_changed", NULL);
		json_object_object_add(top, "first_bad", NULL);
		json_object_object_add(top, "good", json_object_new_string(good));
		json_object_object_add(top, "bad", json_object_new_string(bad));
		json_object_object_add(
		        top, "message",
		        json_object_new_string(failed ? "a benchmark failed at an end"
		                                      : "the ends do not differ"));
		json_object_object_add(top, "pairs", json_object_new_int64((int64_t)pairs));
		json_object_object_add(top, "ends", ends);
		json_object_object_add(top, "steps", json_object_new_array());
		json_object_object_add(top, "builds", json_object_new_int64((int64_t)builds));
		return cli_print_json(st, top);
	}
	if (failed)
		printf("nothing to bisect: a benchmark failed at an end, %.12s or %.12s (%zu "
		       "pairs):\n\n",
		       good, bad, pairs);
	else if (series)
		printf("nothing to bisect: %s does not differ between %.12s and %.12s (%zu "
		       "pairs):\n\n",
		       cli_term(shown, sizeof(shown), series), good, bad, pairs);
	else
		printf("nothing to bisect: no series differs between %.12s and %.12s, worse or "
		       "better (%zu pairs):\n\n",
		       good, bad, pairs);
	return cli_check_print(st, res);
}

int cmd_bisect(cli_state *st, int argc, char **argv)
{
	static const struct option options[] = { CLI_RUN_LONG_OPTIONS,
		                                 CLI_CHECK_LONG_OPTIONS,
		                                 { "good", required_argument, NULL, OPT_GOOD },
		                                 { "old", required_argument, NULL, OPT_GOOD },
		                                 { "bad", required_argument, NULL, OPT_BAD },
		                                 { "new", required_argument, NULL, OPT_BAD },
		                                 { "series", required_argument, NULL, OPT_SERIES },
		                                 { "step", required_argument, NULL, OPT_STEP },
		                                 { "max-runs", required_argument, NULL,
		                                   OPT_MAX_RUNS },
		                                 { 0, 0, 0, 0 } };
	const cli_command *self = cli_find_command("bisect");
	const char *good = NULL, *bad = NULL, *series_arg = NULL, *step_arg = NULL;
	bg_check_result *res = NULL;
	bg_bisect_result br;
	bg_bisect_opts bo;
	bisect_state b;
	ends_info e;
	cli_run_flags rflags;
	cli_check_flags cflags;
	bg_check_opts o;
	bg_commit cg, cb;
	char(*range)[41] = NULL;
	char step_good[41], step_bad[41];
	char *series = NULL, *want_benchmark = NULL, *want_metric = NULL;
	int64_t *gids = NULL, *bids = NULL;
	size_t nrange = 0, i, np = 0;
	double *gv = NULL, *bv = NULL;
	const bg_verdict_row *target = NULL, *unsearchable = NULL;
	int opt, rc = 0, n, end_runs, end_cap, max_runs = 12;

	memset(&b, 0, sizeof(b));
	memset(&br, 0, sizeof(br));
	memset(&e, 0, sizeof(e));
	memset(&cg, 0, sizeof(cg));
	memset(&cb, 0, sizeof(cb));
	cli_run_flags_init(&rflags);
	cli_check_flags_init(&cflags);
	rflags.nruns = -1;
	while ((opt = cli_getopt(st, argc, argv, "", options, self)) != -1) {
		if (opt == 'h')
			goto cleanup;
		if (opt == '?') {
			rc = BG_EINPUT;
			goto cleanup;
		}
		if (opt == OPT_GOOD || opt == OPT_BAD) {
			*(opt == OPT_GOOD ? &good : &bad) = optarg;
			continue;
		}
		if (opt == OPT_SERIES || opt == OPT_STEP) {
			*(opt == OPT_SERIES ? &series_arg : &step_arg) = optarg;
			continue;
		}
		if (opt == OPT_MAX_RUNS) {
			if ((rc = cli_parse_count(st, "--max-runs", optarg, 2, &max_runs)) < 0)
				goto cleanup;
			continue;
		}
		if ((rc = cli_pinned_unused_option(st, "bisect", opt)) < 0)
			goto cleanup;
		if ((n = cli_run_option(st, &rflags, argc, opt, optarg)) == 0)
			n = cli_check_option(st, &cflags, opt, optarg);
		if (n < 0) {
			rc = n;
			goto cleanup;
		}
	}
	rc = 0;
	if (optind < argc || (!step_arg && (!good || !bad))) {
		rc = cli_usage_error(st, "usage: benchguard bisect --good A --bad B [--series S] "
		                         "[--filter RE], or --step SERIES[@REV]");
		goto cleanup;
	}
	if (step_arg && (good || bad || series_arg)) {
		rc = cli_usage_error(st, "--step takes the ends and the series from the report: "
		                         "not with --good, --bad or --series");
		goto cleanup;
	}
	if (rflags.commit) {
		rc = cli_usage_error(st, "bisect takes --good and --bad, not --commit");
		goto cleanup;
	}
	if (cflags.baseline_branch && !step_arg) {
		rc = cli_usage_error(st, "--baseline-branch goes with --step: it names the branch "
		                         "whose trend report has the step");
		goto cleanup;
	}
	end_runs = rflags.nruns < 0 ? BISECT_END_RUNS : rflags.nruns;
	if (end_runs < 2) {
		rc = cli_usage_error(st, "bisect needs --runs of at least 2 at each end");
		goto cleanup;
	}
	end_cap = 2 * end_runs > max_runs ? 2 * end_runs : max_runs;
	b.st = st;
	b.rflags = &rflags;
	if (!(b.env = calloc(1, sizeof(*b.env)))) {
		rc = bg_error_oom(st->ctx);
		goto cleanup;
	}
	if ((rc = cli_open_repo(st, b.env)) < 0 || (rc = cli_load_config(st, b.env)) < 0 ||
	    (rc = cli_detect_machine(st, b.env, rflags.machine)) < 0 ||
	    (rc = cli_open_store(st, b.env)) < 0 ||
	    (rc = bg_store_writable(st->ctx, b.env->store)) < 0)
		goto cleanup;
	if ((rc = cli_check_opts(st, &cflags, b.env->config, &o)) < 0)
		goto cleanup;
	/* Checkouts and builds are steps' details here: lines of their own with -v. */
	st->info_verbose = 1;
	if (step_arg) {
		if ((rc = step_ends(&b, &o, step_arg,
		                    cflags.baseline_branch
		                            ? cflags.baseline_branch
		                            : bg_config_baseline(b.env->config)->branch,
		                    &series, step_good, step_bad)) < 0)
			goto cleanup;
		good = step_good;
		bad = step_bad;
		series_arg = series;
	}
	if (series_arg) {
		if ((rc = split_series(st, step_arg ? "--step" : "--series", series_arg,
		                       &want_benchmark, &want_metric)) < 0)
			goto cleanup;
		b.benchmark = want_benchmark;
		b.metric = want_metric;
		b.only[0] = want_benchmark;
	}
	if ((rc = check_selection(&b, step_arg ? "--step" : "--series", series_arg)) < 0)
		goto cleanup;
	/* Unknown revisions and a good end that is not behind the bad one are usage errors. */
	if ((rc = bg_repo_lookup(st->ctx, b.env->repo, good, &cg)) < 0 ||
	    (rc = bg_repo_lookup(st->ctx, b.env->repo, bad, &cb)) < 0) {
		if (rc == BG_ENOTFOUND)
			rc = BG_EINPUT;
		goto cleanup;
	}
	if ((rc = bg_repo_first_parent_range(st->ctx, b.env->repo, cg.sha, cb.sha, &range,
	                                     &nrange)) < 0)
		goto cleanup;
	if (nrange == 0) {
		rc = cli_usage_error(st, "--good and --bad are the same commit %.12s", cg.sha);
		goto cleanup;
	}
	/* c[0] = good, then the range oldest first: c[n] = bad. */
	if (!(b.shas = malloc((nrange + 1) * sizeof(*b.shas)))) {
		rc = bg_error_oom(st->ctx);
		goto cleanup;
	}
	memcpy(b.shas[0], cg.sha, 41);
	memcpy(b.shas + 1, range, nrange * sizeof(*range));
	b.n = nrange;
	cli_info(st, "bisect: %zu commit%s from %.12s (good) to %.12s (bad), about %zu step%s", b.n,
	         b.n == 1 ? "" : "s", cg.sha, cb.sha, bg_bisect_estimate(b.n),
	         bg_bisect_estimate(b.n) == 1 ? "" : "s");

	/* The ends, judged like `compare`: sequential pairs up to end_cap. */
	if ((rc = measure_ends(&b, &o, end_runs, end_cap, &res, &gids, &bids, &e)) < 0 ||
	    (series_arg && (rc = check_series_measured(&b, res, step_arg ? "--step" : "--series",
	                                               series_arg, bids, e.npairs)) < 0))
		goto cleanup;
	/* The surest change, either way: the smallest p of its direction; a
	 * near-deterministic one (an instruction count, no p) is surest. */
	for (i = 0; i < res->nrows; i++) {
		const bg_verdict_row *r = &res->rows[i];
		double p, tp;
		int ok;

		if (r->verdict != BG_VERDICT_REGRESSION && r->verdict != BG_VERDICT_IMPROVEMENT)
			continue;
		if (series_arg && strcmp(r->series, series_arg) != 0)
			continue;
		if ((ok = positive_at_ends(&b, r, gids, bids, e.npairs)) < 0) {
			rc = ok;
			goto cleanup;
		}
		if (!ok) {
			if (!unsearchable)
				unsearchable = r;
			continue;
		}
		p = r->deterministic                      ? 0
		    : r->verdict == BG_VERDICT_REGRESSION ? r->p_adjusted
		                                          : r->p_better_adjusted;
		tp = !target                                    ? 1
		     : target->deterministic                    ? 0
		     : target->verdict == BG_VERDICT_REGRESSION ? target->p_adjusted
		                                                : target->p_better_adjusted;
		if (!target || p < tp ||
		    (!(p > tp) && fabs(r->test.change) > fabs(target->test.change)))
			target = r;
	}
	if (!target && unsearchable) {
		char pct[32];

		rc = bg_error_set(st->ctx, BG_EINPUT,
		                  "bisect: %s moved %s between the ends (a %s), but it has values "
		                  "at or below 0 there, and the search follows ratios to the good "
		                  "end: `benchguard compare %.12s %.12s` judges the ends as two "
		                  "samples, and compare of the commits between them finds the step",
		                  unsearchable->series,
		                  bg_check__moved(pct, sizeof(pct), &unsearchable->test),
		                  bg_verdict_name(unsearchable->verdict), cg.sha, cb.sha);
		goto cleanup;
	}
	if (!target) {
		/* A benchmark that failed at an end may be the one that moved:
		 * a run failure, not "the ends do not differ". */
		int failed = bg_check_exit_code(res) == 3;

		if ((rc = print_no_difference(st, res, cg.sha, cb.sha, series_arg, e.npairs,
		                              b.builds, failed)) < 0)
			goto cleanup;
		if (failed) {
			rc = bg_error_set(st->ctx, BG_ERROR,
			                  "bisect: a benchmark failed at an end of the range: "
			                  "nothing else differs to bisect");
			goto cleanup;
		}
		cli_info(st, "bisect: the ends do not differ significantly");
		rc = 1;
		goto cleanup;
	}
	b.benchmark = target->benchmark;
	b.direction = target->direction;
	b.metric = target->metric;
	b.only[0] = target->benchmark;
	b.improvement = target->verdict == BG_VERDICT_IMPROVEMENT;
	{
		double tp = b.improvement ? target->p_better_adjusted : target->p_adjusted;
		char how[64], pct[32];

		if (target->deterministic)
			snprintf(how, sizeof(how), "near-deterministic");
		else
			snprintf(how, sizeof(how), "p %.2g", tp);
		cli_info(st,
		         "bisect: %s is %s at the %s end (%s), %s: searching for the first "
		         "commit where it got %s",
		         target->series, bg_check__moved(pct, sizeof(pct), &target->test),
		         b.improvement ? "new" : "bad", how,
		         b.improvement ? "an improvement" : "a regression",
		         b.improvement ? "better" : "worse");
	}

	/* The ends' pairs of the series: good[k] beside bad[k]. */
	if (!(gv = malloc(e.npairs * sizeof(double) + 1)) ||
	    !(bv = malloc(e.npairs * sizeof(double) + 1))) {
		rc = bg_error_oom(st->ctx);
		goto cleanup;
	}
	for (i = 0; i < e.npairs; i++) {
		double x, y;
		if ((rc = run_value(&b, gids[i], &x)) < 0 || (rc = run_value(&b, bids[i], &y)) < 0)
			goto cleanup;
		if (isfinite(x) && isfinite(y) && x > 0 && y > 0) {
			gv[np] = x;
			bv[np++] = y;
		}
	}
	memset(&bo, 0, sizeof(bo));
	bo.n = b.n;
	bo.good = gv;
	bo.bad = bv;
	bo.npairs = np;
	bo.direction = target->direction;
	bo.want = b.improvement ? BG_BISECT_BETTER : BG_BISECT_WORSE;
	bo.alpha = o.thresholds.alpha;
	bo.runs = 3;
	bo.max_runs = (size_t)max_runs;
	bo.measure = measure;
	bo.progress = progress;
	bo.confirm = on_confirm;
	bo.data = &b;
	if ((rc = bg_bisect_search(st->ctx, &bo, &br)) < 0)
		goto cleanup;
	cli_progress_done(st);
	if (!br.significant)
		cli_warn(st,
		         "bisect: the change at %.12s is not significant on its own (p %.2g, alpha "
		         "%g): the series may have moved in several small steps, or noise misled a "
		         "step; `benchguard compare %.12s %.12s` measures the two again",
		         b.shas[br.first_bad],
		         br.improvement ? br.change.p_better : br.change.p_worse,
		         o.thresholds.alpha, b.shas[br.last_good], b.shas[br.first_bad]);
	if ((rc = print_result(st, &b, &e, &br)) < 0)
		goto cleanup;
	rc = 0;

cleanup:
	cli_progress_done(st);
	st->info_verbose = 0;
	bg_bisect_result_clear(&br);
	bg_check_result_free(res);
	free(gv);
	free(bv);
	free(gids);
	free(bids);
	free(range);
	free(b.shas);
	free(series);
	free(want_benchmark);
	free(want_metric);
	bg_commit_clear(&cg);
	bg_commit_clear(&cb);
	bg_commit_clear(&b.good);
	bg_worktree_clear(&b.good_wt);
	if (b.env) {
		cli_env_clear(b.env);
		free(b.env);
	}
	cli_run_flags_clear(&rflags);
	return rc;
}
