/*
 * bisect.c -- `benchguard bisect --good A --bad B`: the first commit on the
 * first-parent history A..B where a series got worse.
 *
 * The ends are measured first (or their stored runs reused) and judged like
 * `compare`; the worst regression among the series (--filter narrows the
 * benchmarks) is the one bisected.  The search itself (lib/bisect.c) asks
 * for runs at commits; this file answers by reusing what the database
 * already holds for (commit, machine) and running the rest, in worktrees
 * built once per commit.  A commit that does not build is skipped.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include <json-c/json.h>

#include "cli.h"
#include "internal.h"

#define BISECT_END_RUNS 5

enum { OPT_GOOD = CLI_OPT_BASE + 300, OPT_BAD, OPT_MAX_RUNS };

typedef struct {
	cli_state *st;
	cli_env *env;
	const cli_run_flags *rflags;
	char (*shas)[41]; /* c[0] good .. c[n] bad */
	size_t n;
	char *benchmark, *metric; /* the series bisected */
	char *only[2];
	size_t builds; /* build commands run in this session */
} bisect_state;

/* The run summaries of the series in the stored clean runs of `sha`. */
static int stored_values(bisect_state *b, const char *sha, int64_t **ids_out, size_t *nids_out,
                         double **values, size_t *n)
{
	int64_t *ids = NULL;
	size_t nids = 0, i, j;
	int rc;

	*values = NULL;
	*n = 0;
	if ((rc = bg_store_runs_at(b->st->ctx, b->env->store, sha,
	                           bg_machine_fingerprint(b->env->machine), 0, &ids, &nids)) < 0)
		return rc;
	if (!(*values = malloc((nids ? nids : 1) * sizeof(double)))) {
		free(ids);
		return bg_error_oom(b->st->ctx);
	}
	for (i = 0; i < nids; i++) {
		bg_run_series *rows = NULL;
		size_t nrows = 0;

		if ((rc = bg_store_run_series(b->st->ctx, b->env->store, ids[i], &rows, &nrows)) <
		    0) {
			free(ids);
			return rc;
		}
		for (j = 0; j < nrows; j++)
			if (!strcmp(rows[j].benchmark, b->benchmark) &&
			    !strcmp(rows[j].metric, b->metric) &&
			    isfinite(rows[j].summary.robust_mean))
				(*values)[(*n)++] = rows[j].summary.robust_mean;
		bg_run_series_free(rows, nrows);
	}
	if (ids_out) {
		*ids_out = ids;
		*nids_out = nids;
	} else {
		free(ids);
	}
	return 0;
}

/*
 * Checks out and builds c[index] (once), then runs the suite there until it
 * has `runs` runs in all, stored ones included.  1: it cannot be built.
 */
static int prepare(bisect_state *b, size_t index, bg_commit *commit, bg_worktree *wt)
{
	int rc = cli_prepare_commit_soft(b->st, b->env, b->shas[index], 0, commit, wt);

	if (rc < 0)
		return rc;
	b->builds += wt->built;
	if (wt->failed) {
		cli_info(b->st, "bisect: %.12s does not build: skipped", b->shas[index]);
		return 1;
	}
	return 0;
}

static int run_at(bisect_state *b, const bg_commit *commit, const char *cwd, int nruns, char **only)
{
	cli_run_flags f = *b->rflags;
	cli_run_output out;
	int rc;

	f.nruns = nruns;
	f.at = commit;
	f.cwd = cwd;
	f.no_build = 1;
	if (only)
		f.only = only;
	rc = cli_run_suite(b->st, b->env, &f, &out);
	cli_run_output_clear(&out);
	return rc;
}

static int measure(bg_ctx *ctx, size_t index, size_t runs, void *data, double **values, size_t *n,
                   int *reused)
{
	bisect_state *b = data;
	bg_commit commit;
	bg_worktree wt;
	int rc;

	(void)ctx;
	memset(&commit, 0, sizeof(commit));
	memset(&wt, 0, sizeof(wt));
	if ((rc = stored_values(b, b->shas[index], NULL, NULL, values, n)) < 0)
		return rc;
	*reused = *n >= runs;
	if (*n >= runs)
		return 0;
	if ((rc = prepare(b, index, &commit, &wt)) != 0)
		goto cleanup;
	if ((rc = run_at(b, &commit, wt.path, (int)(runs - *n), b->only)) < 0)
		goto cleanup;
	free(*values);
	if ((rc = stored_values(b, b->shas[index], NULL, NULL, values, n)) < 0)
		goto cleanup;
	if (*n < runs) {
		/* The benchmark failed there: as good as unbuildable for this search. */
		cli_warn(b->st, "bisect: %s did not run at %.12s: skipped", b->benchmark,
		         b->shas[index]);
		rc = 1;
	}
cleanup:
	bg_commit_clear(&commit);
	bg_worktree_clear(&wt);
	return rc;
}

static void progress(const bg_bisect_step *s, size_t k, size_t total, void *data)
{
	bisect_state *b = data;

	if (s->verdict == BG_PROBE_SKIP)
		cli_info(b->st,
		         "bisect: step %zu of about %zu: %.12s skipped (does not build or run)", k,
		         total, b->shas[s->index]);
	else
		cli_info(b->st, "bisect: step %zu of about %zu: %.12s is %s (%zu runs%s%s)", k,
		         total, b->shas[s->index], bg_probe_verdict_name(s->verdict), s->runs,
		         s->reused ? ", stored" : "", s->by_distance ? ", nearer end" : "");
}

/* The ends: at least `runs` runs of the (filtered) suite each, stored ones counted. */
static int measure_end(bisect_state *b, size_t index, int runs, int64_t **ids, size_t *nids,
                       int *reused)
{
	bg_commit commit;
	bg_worktree wt;
	int rc;

	memset(&commit, 0, sizeof(commit));
	memset(&wt, 0, sizeof(wt));
	/* Complete clean runs that measured anything count. */
	if ((rc = bg_store_runs_at(b->st->ctx, b->env->store, b->shas[index],
	                           bg_machine_fingerprint(b->env->machine), 0, ids, nids)) < 0)
		goto cleanup;
	*reused = *nids >= (size_t)runs;
	if (*reused)
		goto cleanup;
	if ((rc = prepare(b, index, &commit, &wt)) != 0) {
		if (rc == 1)
			rc = bg_error_set(b->st->ctx, BG_EBUILD, "the %s end %.12s does not build",
			                  index ? "bad" : "good", b->shas[index]);
		goto cleanup;
	}
	if ((rc = run_at(b, &commit, wt.path, runs - (int)*nids, NULL)) < 0)
		goto cleanup;
	free(*ids);
	*ids = NULL;
	rc = bg_store_runs_at(b->st->ctx, b->env->store, b->shas[index],
	                      bg_machine_fingerprint(b->env->machine), 0, ids, nids);
cleanup:
	bg_commit_clear(&commit);
	bg_worktree_clear(&wt);
	return rc;
}

static json_object *step_json(const bisect_state *b, size_t index, const char *verdict, size_t runs,
                              int reused, double mean, double p_good, double p_bad, int by_distance)
{
	json_object *o = json_object_new_object();

	json_object_object_add(o, "commit", json_object_new_string(b->shas[index]));
	json_object_object_add(o, "verdict", json_object_new_string(verdict));
	json_object_object_add(o, "runs", json_object_new_int64((int64_t)runs));
	json_object_object_add(o, "reused", json_object_new_boolean(reused));
	json_object_object_add(o, "position", json_object_new_int64((int64_t)index));
	if (isfinite(mean))
		json_object_object_add(o, "mean", json_object_new_double(mean));
	if (isfinite(p_good))
		json_object_object_add(o, "p_good", json_object_new_double(p_good));
	if (isfinite(p_bad))
		json_object_object_add(o, "p_bad", json_object_new_double(p_bad));
	if (by_distance)
		json_object_object_add(o, "by_distance", json_object_new_boolean(1));
	return o;
}

typedef struct {
	size_t ngood, nbad;
	int good_reused, bad_reused;
	double good_mean, bad_mean;
} ends_info;

static int print_result(cli_state *st, bisect_state *b, const ends_info *e,
                        const bg_bisect_result *r, const char *unit)
{
	bg_commit c;
	size_t i;
	int rc;
	char series[512];

	snprintf(series, sizeof(series), "%s:%s", b->benchmark, b->metric);
	memset(&c, 0, sizeof(c));
	if ((rc = bg_repo_lookup(st->ctx, b->env->repo, b->shas[r->first_bad], &c)) < 0)
		return rc;
	if (st->format == CLI_JSON) {
		json_object *top = json_object_new_object(), *steps = json_object_new_array();

		json_object_object_add(top, "first_bad",
		                       r->found ? json_object_new_string(c.sha) : NULL);
		json_object_object_add(top, "subject",
		                       r->found && c.subject ? json_object_new_string(c.subject)
		                                             : NULL);
		json_object_object_add(top, "author",
		                       r->found && c.author ? json_object_new_string(c.author)
		                                            : NULL);
		json_object_object_add(top, "series", json_object_new_string(series));
		json_object_object_add(top, "change", json_object_new_double(r->change.change));
		json_object_object_add(top, "p", json_object_new_double(r->change.p_worse));
		json_object_object_add(top, "last_good",
		                       json_object_new_string(b->shas[r->last_good]));
		if (!r->found) {
			json_object *range = json_object_new_array();
			for (i = r->lo; i <= r->hi; i++)
				json_object_array_add(range, json_object_new_string(b->shas[i]));
			json_object_object_add(top, "range", range);
		}
		json_object_array_add(steps, step_json(b, 0, "good", e->ngood, e->good_reused,
		                                       e->good_mean, NAN, NAN, 0));
		json_object_array_add(steps, step_json(b, b->n, "bad", e->nbad, e->bad_reused,
		                                       e->bad_mean, NAN, NAN, 0));
		for (i = 0; i < r->nsteps; i++) {
			const bg_bisect_step *s = &r->steps[i];
			json_object_array_add(
			        steps,
			        step_json(b, s->index, bg_probe_verdict_name(s->verdict), s->runs,
			                  s->reused, s->mean, s->p_good, s->p_bad, s->by_distance));
		}
		json_object_object_add(top, "steps", steps);
		json_object_object_add(top, "builds", json_object_new_int64((int64_t)b->builds));
		json_object_object_add(top, "commits", json_object_new_int64((int64_t)b->n));
		bg_commit_clear(&c);
		return cli_print_json(st, top);
	}
	{
		static const char *const head[] = { "step",
			                            "commit",
			                            "verdict",
			                            "runs",
			                            "mean",
			                            "p worse than good",
			                            "p better than bad" };
		cli_table *t = cli_table_new(7, head, "rllrrrr");
		char cells[7][64];
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
			snprintf(cells[2], 64, "%s%s", bg_probe_verdict_name(s->verdict),
			         s->by_distance ? " (nearer)" : "");
			snprintf(cells[3], 64, "%zu%s", s->runs, s->reused ? " stored" : "");
			if (isfinite(s->mean))
				cli_fmt_value(cells[4], 64, s->mean, unit);
			else
				snprintf(cells[4], 64, "-");
			snprintf(cells[5], 64, isfinite(s->p_good) ? "%.2g" : "-", s->p_good);
			snprintf(cells[6], 64, isfinite(s->p_bad) ? "%.2g" : "-", s->p_bad);
			for (k = 0; k < 7; k++)
				row[k] = cells[k];
			cli_table_add(t, row);
		}
		if (r->found) {
			printf("first bad commit: %s\n", c.sha);
			printf("  %s\n  author: %s\n", c.subject ? c.subject : "",
			       c.author ? c.author : "");
		} else {
			printf("the first bad commit is one of these %zu (the others between do "
			       "not "
			       "build):\n",
			       r->hi - r->lo + 1);
			for (i = r->lo; i <= r->hi; i++)
				printf("  %s\n", b->shas[i]);
		}
		printf("  %s: %+.1f%% against %.12s (p %.2g)\n", series, 100 * r->change.change,
		       b->shas[r->last_good], r->change.p_worse);
		printf("%zu commits, %zu probes, %zu builds in this session\n\n", b->n, r->nsteps,
		       b->builds);
		cli_table_print(st, t, stdout);
		cli_table_free(t);
	}
	bg_commit_clear(&c);
	return 0;
}

static double mean_of(const double *v, size_t n)
{
	double s = 0;
	size_t i;

	for (i = 0; i < n; i++)
		s += v[i];
	return n ? s / (double)n : NAN;
}

int cmd_bisect(cli_state *st, int argc, char **argv)
{
	static const struct option options[] = { CLI_RUN_LONG_OPTIONS,
		                                 CLI_CHECK_LONG_OPTIONS,
		                                 { "good", required_argument, NULL, OPT_GOOD },
		                                 { "bad", required_argument, NULL, OPT_BAD },
		                                 { "max-runs", required_argument, NULL,
		                                   OPT_MAX_RUNS },
		                                 { 0, 0, 0, 0 } };
	const cli_command *self = cli_find_command("bisect");
	const char *good = NULL, *bad = NULL;
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
	int64_t *gids = NULL, *bids = NULL;
	size_t ngids = 0, nbids = 0, nrange = 0, i;
	double *gv = NULL, *bv = NULL;
	const bg_verdict_row *target = NULL;
	int opt, rc = 0, n, end_runs, max_runs = 12;

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
		if (opt == OPT_MAX_RUNS) {
			if ((rc = cli_parse_count(st, "--max-runs", optarg, 2, &max_runs)) < 0)
				goto cleanup;
			continue;
		}
		if ((n = cli_run_option(st, &rflags, argc, opt, optarg)) == 0)
			n = cli_check_option(st, &cflags, opt, optarg);
		if (n < 0) {
			rc = n;
			goto cleanup;
		}
	}
	rc = 0;
	if (optind < argc || !good || !bad) {
		rc = cli_usage_error(st, "usage: benchguard bisect --good A --bad B [--filter RE]");
		goto cleanup;
	}
	if (rflags.commit) {
		rc = cli_usage_error(st, "bisect takes --good and --bad, not --commit");
		goto cleanup;
	}
	end_runs = rflags.nruns < 0 ? BISECT_END_RUNS : rflags.nruns;
	if (end_runs < 2) {
		rc = cli_usage_error(st, "bisect needs --runs of at least 2 at each end");
		goto cleanup;
	}
	b.st = st;
	b.rflags = &rflags;
	if (!(b.env = calloc(1, sizeof(*b.env)))) {
		rc = bg_error_oom(st->ctx);
		goto cleanup;
	}
	if ((rc = cli_open_repo(st, b.env)) < 0 || (rc = cli_load_config(st, b.env)) < 0 ||
	    (rc = cli_detect_machine(st, b.env, rflags.machine)) < 0 ||
	    (rc = cli_open_store(st, b.env)) < 0)
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
	cli_info(st, "bisect: %zu commits from %.12s (good) to %.12s (bad), about %zu steps", b.n,
	         cg.sha, cb.sha, bg_bisect_estimate(b.n));

	/* The ends, judged like `compare`. */
	if ((rc = measure_end(&b, 0, end_runs, &gids, &ngids, &e.good_reused)) != 0 ||
	    (rc = measure_end(&b, b.n, end_runs, &bids, &nbids, &e.bad_reused)) != 0)
		goto cleanup;
	cli_check_opts(&cflags, b.env->config, &o);
	o.baseline_branch = NULL;
	o.window = o.min_runs = 2;
	o.baseline = gids;
	o.nbaseline = ngids;
	o.runs = bids;
	o.nruns = nbids;
	if ((rc = bg_check_run(st->ctx, b.env->store, b.env->repo, &o, &res)) < 0)
		goto cleanup;
	for (i = 0; i < res->nrows; i++) {
		const bg_verdict_row *r = &res->rows[i];
		if (r->verdict != BG_VERDICT_REGRESSION)
			continue;
		if (!target || r->p_adjusted < target->p_adjusted ||
		    (!(r->p_adjusted > target->p_adjusted) && r->test.change > target->test.change))
			target = r;
	}
	if (!target) {
		if (st->format == CLI_JSON) {
			json_object *top = json_object_new_object();
			json_object_object_add(top, "first_bad", NULL);
			json_object_object_add(top, "good", json_object_new_string(cg.sha));
			json_object_object_add(top, "bad", json_object_new_string(cb.sha));
			json_object_object_add(top, "message",
			                       json_object_new_string("no series is significantly "
			                                              "worse at the bad end"));
			json_object_object_add(top, "steps", json_object_new_array());
			json_object_object_add(top, "builds",
			                       json_object_new_int64((int64_t)b.builds));
			cli_print_json(st, top);
		} else {
			printf("nothing to bisect: no series is significantly worse at %.12s than "
			       "at "
			       "%.12s (%zu and %zu runs)\n",
			       cb.sha, cg.sha, nbids, ngids);
		}
		cli_info(st, "bisect: good and bad do not differ significantly");
		rc = 1;
		goto cleanup;
	}
	b.benchmark = target->benchmark;
	b.metric = target->metric;
	b.only[0] = target->benchmark;
	cli_info(st, "bisect: %s is %+.1f%% at the bad end (p %.2g); searching", target->series,
	         100 * target->test.change, target->p_adjusted);

	{
		size_t ng, nb;
		if ((rc = stored_values(&b, b.shas[0], NULL, NULL, &gv, &ng)) < 0 ||
		    (rc = stored_values(&b, b.shas[b.n], NULL, NULL, &bv, &nb)) < 0)
			goto cleanup;
		e.ngood = ng;
		e.nbad = nb;
		e.good_mean = mean_of(gv, ng);
		e.bad_mean = mean_of(bv, nb);
		memset(&bo, 0, sizeof(bo));
		bo.n = b.n;
		bo.good = gv;
		bo.ngood = ng;
		bo.bad = bv;
		bo.nbad = nb;
		bo.direction = target->direction;
		bo.alpha = o.thresholds.alpha;
		bo.runs = 3;
		bo.max_runs = (size_t)max_runs;
		bo.measure = measure;
		bo.progress = progress;
		bo.data = &b;
		if ((rc = bg_bisect_search(st->ctx, &bo, &br)) < 0)
			goto cleanup;
	}
	if ((rc = print_result(st, &b, &e, &br, target->unit)) < 0)
		goto cleanup;
	rc = 0;

cleanup:
	bg_bisect_result_clear(&br);
	bg_check_result_free(res);
	free(gv);
	free(bv);
	free(gids);
	free(bids);
	free(range);
	free(b.shas);
	bg_commit_clear(&cg);
	bg_commit_clear(&cb);
	if (b.env) {
		cli_env_clear(b.env);
		free(b.env);
	}
	cli_run_flags_clear(&rflags);
	return rc;
}
