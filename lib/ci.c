/*
 * ci.c -- `benchguard ci` as one library call: the candidate measured, the
 * rolling check, the confirmation, the verdict recorded.
 *
 * The rolling check judges one run against history; on a shared runner
 * that run may have met a neighbour's burst, or the machine's drift since
 * the baseline was measured, and a real 5% change can hide in a 3%
 * run-to-run noise.  So nothing the first run shows is believed or
 * dismissed on its own: every series it flags, and every one it cannot
 * clear (its upper bound reaches min_change: bg_judgement.undecided), is
 * measured again in interleaved pairs beside the baseline's newest commit
 * (bg_pairs_run: sequential looks, alpha split across them), and the pairs
 * decide.  A flag the pairs do not show becomes unchanged, "not
 * confirmed"; a change the first run missed, or saw the other way, is
 * "found".  The final
 * verdict, with the pairs' figures, is stored (bg_store_check_record) so
 * that reports, history and comments show what ci decided.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "internal.h"

void bg_ci_result_clear(bg_ci_result *r)
{
	if (!r)
		return;
	bg_check_result_free(r->result);
	bg_commit_clear(&r->head);
	bg_suite_output_clear(&r->runs);
	memset(r, 0, sizeof(*r));
}

static int flagged(bg_verdict v)
{
	return v == BG_VERDICT_REGRESSION || v == BG_VERDICT_IMPROVEMENT;
}

/* The series the first runs could not settle, and which way each is open. */
static int open_series(bg_ctx *ctx, const bg_check_result *res, bg_pairs_series **out, size_t *n)
{
	size_t i;

	*n = 0;
	if (!(*out = calloc(res->nrows + 1, sizeof(**out))))
		return bg_error_oom(ctx);
	for (i = 0; i < res->nrows; i++) {
		const bg_verdict_row *r = &res->rows[i];
		bg_pairs_series *x = &(*out)[*n];

		if (!r->metric || !(flagged(r->verdict) || r->undecided || r->undecided_better))
			continue;
		x->benchmark = r->benchmark;
		x->metric = r->metric;
		/* The worse way is open whenever a regression is not excluded: a
		 * missed regression is what this tool exists to prevent.  The
		 * better way when the first run moved that way by min_change. */
		x->worse = r->verdict == BG_VERDICT_REGRESSION || r->undecided;
		x->better = r->verdict == BG_VERDICT_IMPROVEMENT || r->undecided_better;
		(*n)++;
	}
	return 0;
}

static bg_verdict_row *find_row(bg_check_result *res, const char *series)
{
	size_t i;

	for (i = 0; i < res->nrows; i++)
		if (!strcmp(res->rows[i].series, series))
			return &res->rows[i];
	return NULL;
}

/* Replaces a row's message (the old one freed). */
static int set_message(bg_ctx *ctx, bg_verdict_row *r, char *msg)
{
	if (!msg)
		return bg_error_oom(ctx);
	free(r->message);
	r->message = msg;
	return 0;
}

/* What backs a verdict of the pairs, for a message: its p, or for a
 * near-deterministic series (no p) the noise floor it beat. */
static const char *evidence(char *buf, size_t len, const bg_verdict_row *q, double p)
{
	if (q->deterministic)
		snprintf(buf, len, "near-deterministic, noise floor %.2g%%",
		         100.0 * q->noise_floor);
	else
		snprintf(buf, len, "p %.2g", p);
	return buf;
}

/*
 * The one rule for a series measured again, whether in pairs or alone:
 * the second measurement's flag stands, confirmed when the first look
 * flagged the same way and found otherwise, even when the first look
 * pointed the other way (a rolling baseline of older commits can show an
 * improvement where the newest one shows a regression: hiding that would
 * let the regression through).  A first-look flag the second measurement
 * does not show is not confirmed, and unchanged.
 */
static bg_confirm_status second_status(bg_verdict first, bg_verdict again)
{
	if (flagged(again))
		return again == first ? BG_CONFIRM_CONFIRMED : BG_CONFIRM_FOUND;
	return flagged(first) ? BG_CONFIRM_NOT_CONFIRMED : BG_CONFIRM_NONE;
}

/* "; the first run showed an improvement of -20.0%" when the first look
 * flagged the other way from what the second measurement found, else "". */
static const char *first_way(char *buf, size_t len, const bg_verdict_row *r, bg_verdict again)
{
	char pct[32];

	if (!flagged(r->confirm.first) || r->confirm.first == again)
		return "";
	snprintf(buf, len, "; the first run showed %s of %s",
	         r->confirm.first == BG_VERDICT_IMPROVEMENT ? "an improvement" : "a regression",
	         bg_check__moved(pct, sizeof(pct), &r->test));
	return buf;
}

/* Folds what the pairs decided into the first check's rows. */
int bg_ci__merge(bg_ctx *ctx, bg_check_result *res, const bg_check_result *pairs,
                 const bg_pairs_series *open, size_t nopen)
{
	size_t i, k, cap;
	int error;

	for (i = 0; i < nopen; i++) {
		char *name = bg_printf("%s:%s", open[i].benchmark, open[i].metric);
		bg_verdict_row *r = name ? find_row(res, name) : NULL;
		const bg_verdict_row *q = name ? find_row((bg_check_result *)pairs, name) : NULL;
		bg_verdict first;
		bg_confirm_status status;
		char ev[64], fw[96], pct[32], was[32];

		free(name);
		if (!r)
			return bg_error_oom(ctx);
		first = r->verdict;
		if (!q || (q->verdict != BG_VERDICT_UNCHANGED && !flagged(q->verdict))) {
			/* The reference has no such series, it failed in the
			 * pairs, or the pairs' values cannot be judged (skipped):
			 * nothing was measured again, so the first verdict
			 * stands.  Taking the pairs' "skipped" would turn a
			 * regression into a pass, labelled "not confirmed". */
			if ((error = set_message(
			             ctx, r,
			             bg_printf("not measured again beside %.12s (%s): the first "
			                       "run's verdict",
			                       pairs->reference,
			                       !q ? "no pair has it"
			                       : q->verdict == BG_VERDICT_NO_BASELINE
			                               ? "too few pairs have it"
			                       : q->message ? q->message
			                                    : bg_verdict_name(q->verdict)))) < 0)
				return error;
			continue;
		}
		r->confirm = q->confirm;
		r->confirm.first = first;
		r->verdict = q->verdict;
		if ((status = second_status(first, q->verdict)) != BG_CONFIRM_NONE)
			r->confirm.status = status;
		switch (r->confirm.status) {
		case BG_CONFIRM_CONFIRMED:
			error = set_message(
			        ctx, r,
			        bg_printf("confirmed: %s against %.12s in %zu "
			                  "interleaved pairs (%s)",
			                  bg_check__moved(pct, sizeof(pct), &q->test),
			                  pairs->reference, q->confirm.pairs,
			                  evidence(ev, sizeof(ev), q, r->confirm.p_adjusted)));
			break;
		case BG_CONFIRM_NOT_CONFIRMED:
			error = set_message(ctx, r,
			                    bg_printf("%s of %s not confirmed: %s against "
			                              "%.12s in %zu interleaved pairs",
			                              bg_verdict_name(first),
			                              bg_check__moved(was, sizeof(was), &r->test),
			                              bg_check__moved(pct, sizeof(pct), &q->test),
			                              pairs->reference, q->confirm.pairs));
			break;
		case BG_CONFIRM_FOUND:
			error = set_message(
			        ctx, r,
			        bg_printf("%s found by the pairs: %s against %.12s "
			                  "in %zu interleaved pairs (%s)%s",
			                  bg_verdict_name(q->verdict),
			                  bg_check__moved(pct, sizeof(pct), &q->test),
			                  pairs->reference, q->confirm.pairs,
			                  evidence(ev, sizeof(ev), q, r->confirm.p_adjusted),
			                  first_way(fw, sizeof(fw), r, q->verdict)));
			break;
		default:
			error = set_message(ctx, r,
			                    bg_printf("%s: %s against %.12s in %zu interleaved "
			                              "pairs",
			                              r->confirm.status == BG_CONFIRM_CLEARED
			                                      ? "cleared"
			                              : q->confirm.pairs >= pairs->confirm_max
			                                      ? "undecided at the cap"
			                                      : "undecided",
			                              bg_check__moved(pct, sizeof(pct), &q->test),
			                              pairs->reference, q->confirm.pairs));
		}
		if (error < 0)
			return error;
	}
	/* A benchmark that failed during the pairs: failure outranks.  The
	 * rows' room is not kept; taken as their count, they grow at once. */
	cap = res->nrows;
	for (k = 0; k < pairs->nrows; k++) {
		const bg_verdict_row *q = &pairs->rows[k];
		bg_verdict_row *r;

		if (q->verdict != BG_VERDICT_FAILED || find_row(res, q->series))
			continue;
		if (bg_grow((void **)&res->rows, &cap, res->nrows, sizeof(*res->rows)) < 0)
			return bg_error_oom(ctx);
		r = &res->rows[res->nrows];
		memset(r, 0, sizeof(*r));
		r->verdict = BG_VERDICT_FAILED;
		r->p_adjusted = r->p_better_adjusted = NAN;
		r->series = bg_strdup(q->series);
		r->benchmark = bg_strdup(q->benchmark);
		r->message = bg_strdup(q->message);
		res->nrows++;
		if (!r->series || !r->benchmark || (q->message && !r->message))
			return bg_error_oom(ctx);
	}
	res->confirm_pairs = pairs->confirm_pairs;
	res->confirm_seconds = pairs->confirm_seconds;
	bg_check_sort(res);
	return 0;
}

/*
 * No reference to pair with (none in the baseline, or it does not build):
 * the open benchmarks run `first` more times alone, judged on those runs
 * only against the rolling baseline at alpha (one look), and a verdict
 * stands only when they reach it too.
 */
static int confirm_alone(bg_ctx *ctx, const bg_ci_opts *o, bg_check_result *res,
                         const bg_commit *head, const char *cwd, const bg_pairs_series *open,
                         size_t nopen)
{
	bg_suite_opts so = o->run;
	bg_suite_output more;
	bg_check_opts co = o->check;
	bg_check_result *again = NULL;
	const char **tags = NULL;
	char **only = NULL;
	size_t i, k, n = 0, nt = 0;
	double t0 = bg_now();
	int error;

	memset(&more, 0, sizeof(more));
	for (i = 0; o->run.tags && o->run.tags[i]; i++)
		nt++;
	tags = calloc(nt + 2, sizeof(char *));
	only = calloc(nopen + 1, sizeof(char *));
	if (!tags || !only) {
		error = bg_error_oom(ctx);
		goto cleanup;
	}
	for (i = 0; i < nt; i++)
		tags[i] = o->run.tags[i];
	tags[nt] = "confirm=1";
	for (i = 0; i < nopen; i++) {
		for (k = 0; k < n && strcmp(only[k], open[i].benchmark); k++)
			;
		if (k == n)
			only[n++] = (char *)open[i].benchmark;
	}
	so.config = o->config;
	so.commit = head;
	so.cwd = cwd;
	so.tags = tags;
	so.only = only;
	so.filter = NULL;
	so.runs = (int)o->confirm_first;
	so.paired = 1;
	so.event = o->pair_event;
	if ((error = bg_suite_run(ctx, o->store, &so, &more)) < 0)
		goto cleanup;
	co.runs = more.ids;
	co.nruns = more.nruns;
	/* The first look said what there was to say about the baseline. */
	bg_ctx__mute(ctx, 1);
	error = bg_check_run(ctx, o->store, o->repo, &co, &again);
	bg_ctx__mute(ctx, 0);
	if (error < 0)
		goto cleanup;
	for (i = 0; i < nopen; i++) {
		char *name = bg_printf("%s:%s", open[i].benchmark, open[i].metric);
		bg_verdict_row *r = name ? find_row(res, name) : NULL;
		const bg_verdict_row *q = name ? find_row(again, name) : NULL;
		bg_verdict first;
		char fw[96], pct[32];

		free(name);
		if (!r) {
			error = bg_error_oom(ctx);
			goto cleanup;
		}
		if (!q || (q->verdict != BG_VERDICT_UNCHANGED && !flagged(q->verdict)))
			continue;
		first = r->verdict;
		r->confirm.first = first;
		r->confirm.design = BG_DESIGN_ROLLING;
		r->confirm.test = q->test;
		r->confirm.p_adjusted =
		        q->verdict == BG_VERDICT_IMPROVEMENT ? q->p_better_adjusted : q->p_adjusted;
		r->confirm.level = o->check.thresholds.alpha;
		r->confirm.pairs = q->current_runs;
		r->confirm.look = r->confirm.looks = 1;
		r->confirm.status = second_status(first, q->verdict);
		if (r->confirm.status == BG_CONFIRM_NONE)
			r->confirm.status =
			        q->undecided ? BG_CONFIRM_UNDECIDED : BG_CONFIRM_CLEARED;
		r->verdict = flagged(q->verdict) ? q->verdict : BG_VERDICT_UNCHANGED;
		if ((error = set_message(ctx, r,
		                         bg_printf("%s by %zu more run%s alone (no reference to "
		                                   "pair with): %s%s",
		                                   bg_confirm_status_name(r->confirm.status),
		                                   q->current_runs, q->current_runs == 1 ? "" : "s",
		                                   bg_check__moved(pct, sizeof(pct), &q->test),
		                                   first_way(fw, sizeof(fw), r, q->verdict)))) < 0)
			goto cleanup;
	}
	res->confirm_pairs = more.nruns;
	res->confirm_alone = 1;
	res->confirm_seconds = bg_now() - t0;
	bg_check_sort(res);
cleanup:
	bg_check_result_free(again);
	bg_suite_output_clear(&more);
	free(tags);
	free(only);
	return error;
}

/*
 * The reference: the baseline's newest commit, checked out and built in the
 * worktree cache, with its own suite (a benchmark's parameters may be what
 * changed) unless the user's config stands for every commit.  0 with *ok =
 * 0 when there is none to use; a warning says why.
 */
static int prepare_reference(bg_ctx *ctx, const bg_ci_opts *o, const bg_check_result *res,
                             bg_commit *commit, bg_worktree *wt, bg_config **cfg, int *ok)
{
	bg_worktree_opts wo;
	bg_saved_error saved;
	char *path = NULL;
	int error;

	*ok = 0;
	if (!res->reference[0] || !strcmp(res->reference, res->sha) || !o->cache_dir)
		return 0;
	/* On the baseline branch's line, as a run --commit of it is: history
	 * shows its runs on that branch, not on none. */
	if ((error = bg_repo_lookup_on(ctx, o->repo, res->reference, o->check.baseline_branch,
	                               commit)) < 0)
		return error;
	commit->dirty = 0;
	memset(&wo, 0, sizeof(wo));
	wo.cache_dir = o->cache_dir;
	wo.build = bg_config_build(o->config);
	wo.machine = bg_machine_fingerprint(o->machine);
	bg_ctx__save_error(ctx, &saved);
	if ((error = bg_worktree_prepare(ctx, o->repo, o->store, commit->sha, &wo, 0, wt)) < 0) {
		/*
		 * A checkout that cannot be made (a submodule the job never
		 * fetched, at a URL it may not reach: a private one without
		 * credentials) leaves the first look's verdict standing, as a
		 * commit that does not build does; it ended the job with exit 3
		 * and no verdict.  Memory, an interrupt and bad input still stop.
		 */
		if ((error != BG_ERROR && error != BG_EIO) || bg_ctx_cancelled(ctx))
			return error;
		bg_log(ctx, BG_LOG_WARN,
		       "the baseline commit %.12s cannot be checked out (%s): confirming without "
		       "it",
		       commit->sha, bg_ctx_error(ctx));
		bg_ctx__restore_error(ctx, &saved);
		return 0;
	}
	if (wt->failed) {
		bg_log(ctx, BG_LOG_WARN,
		       "the baseline commit %.12s does not build: confirming without it",
		       commit->sha);
		return 0;
	}
	if (!o->same_suite) {
		if (!(path = bg_printf("%s/benchguard.json", wt->path)))
			return bg_error_oom(ctx);
		if (access(path, F_OK) != 0) {
			bg_log(ctx, BG_LOG_INFO,
			       "the baseline commit %.12s has no benchguard.json: confirming "
			       "without "
			       "it",
			       commit->sha);
			free(path);
			return 0;
		}
		bg_ctx__save_error(ctx, &saved);
		error = bg_config_load(ctx, path, cfg);
		free(path);
		if (error == BG_ENOMEM)
			return error;
		if (error < 0) {
			bg_log(ctx, BG_LOG_WARN, "%s: confirming without the baseline commit",
			       bg_ctx_error(ctx));
			bg_ctx__restore_error(ctx, &saved);
			return 0;
		}
	}
	*ok = 1;
	return 0;
}

static int record(bg_ctx *ctx, const bg_ci_opts *o, bg_ci_result *out)
{
	const bg_check_result *res = out->result;
	bg_verdict_record *rows = calloc(res->nrows + 1, sizeof(*rows));
	bg_check_record rec;
	char *json = NULL;
	size_t i;
	int error;

	if (!rows)
		return bg_error_oom(ctx);
	for (i = 0; i < res->nrows; i++) {
		const bg_verdict_row *r = &res->rows[i];

		rows[i].series = r->series;
		rows[i].benchmark = r->benchmark;
		rows[i].metric = r->metric;
		rows[i].verdict = r->verdict;
		rows[i].confirm = r->confirm.status;
		rows[i].first =
		        r->confirm.status == BG_CONFIRM_NONE ? r->verdict : r->confirm.first;
	}
	if ((error = bg_check_json(ctx, res, &json)) == 0) {
		memset(&rec, 0, sizeof(rec));
		rec.run_id = res->run_id;
		rec.source = "ci";
		rec.json = json;
		rec.pairs = res->confirm_pairs;
		rec.seconds = out->seconds;
		rec.rows = rows;
		rec.nrows = res->nrows;
		error = bg_store_check_record(ctx, o->store, &rec, &out->check_id);
	}
	free(json);
	free(rows);
	return error;
}

/*
 * The baseline's start, found as the check will find it: a baseline branch
 * that does not exist, or a shallow clone that lacks where this commit left
 * it, or the commits before it that hold the baseline's runs (a depth-1
 * checkout of a push to the branch), is exit 2 before the suite is built and
 * runs for minutes, and stores a run that no check can judge.  A baseline
 * given as runs needs none of it.
 */
static int probe(bg_ctx *ctx, const bg_ci_opts *o, const char *sha)
{
	const bg_check_opts *co = &o->check;
	char tip[41], base[41];
	int error;

	if (co->nbaseline)
		return 0;
	if ((error = bg_repo_branch_tip(ctx, o->repo, co->baseline_branch, tip)) < 0 ||
	    (error = bg_repo_merge_base(ctx, o->repo, sha, tip, base)) < 0)
		return error;
	return bg_check__probe_history(ctx, o->store, o->repo, bg_machine_fingerprint(o->machine),
	                               base, sha, co->window > 0 ? (size_t)co->window : 0);
}

int bg_ci_probe(bg_ctx *ctx, const bg_ci_opts *opts)
{
	bg_commit head;
	int error;

	BG_NEED(ctx, opts);
	if (!opts->repo || !opts->store || !opts->machine)
		return bg_error_set(ctx, BG_EINPUT, "ci needs a repository, a store and a machine");
	if (opts->run.commit)
		return probe(ctx, opts, opts->run.commit->sha);
	memset(&head, 0, sizeof(head));
	if ((error = bg_repo_head(ctx, opts->repo, &head)) == 0)
		error = probe(ctx, opts, head.sha);
	bg_commit_clear(&head);
	return error;
}

int bg_ci_run(bg_ctx *ctx, const bg_ci_opts *opts, bg_ci_result *out)
{
	bg_suite_opts so;
	bg_check_opts co;
	bg_pairs_series *open = NULL;
	bg_check_result *pairs = NULL;
	bg_config *ref_cfg = NULL;
	bg_commit ref;
	bg_worktree wt;
	const char *cwd;
	size_t nopen = 0;
	double t0 = bg_now();
	int error, ok = 0;

	BG_NEED(ctx, opts);
	BG_NEED(ctx, out);
	so = opts->run;
	co = opts->check;
	memset(out, 0, sizeof(*out));
	memset(&ref, 0, sizeof(ref));
	memset(&wt, 0, sizeof(wt));
	if (!opts->repo || !opts->store || !opts->config || !opts->machine)
		return bg_error_set(ctx, BG_EINPUT,
		                    "ci needs a repository, a store, a suite and a "
		                    "machine");
	if (opts->confirm_first &&
	    (opts->confirm_first < 2 || opts->confirm_max < opts->confirm_first))
		return bg_error_set(ctx, BG_EINPUT,
		                    "confirmation needs at least 2 pairs at its first look and a "
		                    "cap at least as large (got %zu and %zu)",
		                    opts->confirm_first, opts->confirm_max);
	if (opts->run.commit) {
		if ((error = bg_repo_lookup(ctx, opts->repo, opts->run.commit->sha, &out->head)) <
		    0)
			goto cleanup;
		out->head.dirty = opts->run.commit->dirty;
		/* A SHA names no branch; the commit given may. */
		if (!out->head.branch && opts->run.commit->branch &&
		    !(out->head.branch = bg_strdup(opts->run.commit->branch))) {
			error = bg_error_oom(ctx);
			goto cleanup;
		}
	} else if ((error = bg_repo_head(ctx, opts->repo, &out->head)) < 0) {
		goto cleanup;
	}
	if ((error = probe(ctx, opts, out->head.sha)) < 0)
		goto cleanup;
	cwd = opts->run.cwd ? opts->run.cwd : bg_repo_workdir(opts->repo);
	so.config = opts->config;
	so.commit = &out->head;
	so.cwd = cwd;
	so.paired = 0;
	if (so.runs < 1)
		so.runs = 1;
	if ((error = bg_suite_run(ctx, opts->store, &so, &out->runs)) < 0)
		goto cleanup;
	co.runs = out->runs.ids;
	co.nruns = out->runs.nruns;
	co.paired = 0;
	co.baseline = NULL;
	co.nbaseline = 0;
	if ((error = bg_check_run(ctx, opts->store, opts->repo, &co, &out->result)) < 0)
		goto cleanup;
	out->result->confirm_max = opts->confirm_first ? opts->confirm_max : 0;
	if (!opts->confirm_first || (error = open_series(ctx, out->result, &open, &nopen)) < 0 ||
	    !nopen)
		goto done;
	if ((error = prepare_reference(ctx, opts, out->result, &ref, &wt, &ref_cfg, &ok)) < 0)
		goto cleanup;
	if (!ok) {
		bg_log(ctx, BG_LOG_INFO, "measuring %zu series again alone: %zu more run%s", nopen,
		       opts->confirm_first, opts->confirm_first == 1 ? "" : "s");
		if ((error = confirm_alone(ctx, opts, out->result, &out->head, cwd, open, nopen)) <
		    0)
			goto cleanup;
		goto done;
	}
	{
		bg_pairs_opts po;

		memset(&po, 0, sizeof(po));
		po.ref.commit = &ref;
		po.ref.cwd = wt.path;
		po.ref.config = opts->same_suite ? opts->config : ref_cfg;
		po.ref.tag = "confirm-reference=1";
		po.cand.commit = &out->head;
		po.cand.cwd = cwd;
		po.cand.config = opts->config;
		po.cand.tag = "confirm=1";
		po.run = opts->run;
		po.run.config = opts->config;
		po.run.filter = NULL;
		po.run.only = NULL;
		po.run.event = opts->pair_event;
		po.series = open;
		po.nseries = nopen;
		po.first = opts->confirm_first;
		po.max = opts->confirm_max;
		po.thresholds = opts->check.thresholds;
		po.look = opts->look;
		po.pair = opts->pair;
		po.look_data = opts->look_data;
		bg_log(ctx, BG_LOG_INFO,
		       "measuring %zu series again beside %.12s, in interleaved pairs (at most "
		       "%zu)",
		       nopen, ref.sha, opts->confirm_max);
		if ((error = bg_pairs_run(ctx, opts->store, &po, &pairs)) < 0 ||
		    (error = bg_ci__merge(ctx, out->result, pairs, open, nopen)) < 0)
			goto cleanup;
	}
done:
	out->seconds = bg_now() - t0;
	if (error == 0)
		error = record(ctx, opts, out);
cleanup:
	free(open);
	bg_check_result_free(pairs);
	bg_config_free(ref_cfg);
	bg_commit_clear(&ref);
	bg_worktree_clear(&wt);
	if (error < 0) {
		/* The runs stay stored; what the caller holds is cleared. */
		bg_check_result_free(out->result);
		out->result = NULL;
	}
	return error;
}
