/*
 * run.c -- `benchguard run`: build, run the suite at the working tree, store
 * every sample under HEAD's commit and this machine's fingerprint, print a
 * summary.  With --commit REV the suite (the user's config, so commits older
 * than it can be measured) runs in REV's cached, built worktree instead and
 * is stored under REV's SHA.  The running is the library's (bg_suite_run);
 * this file turns its events into progress lines and prints the runs.
 */
#include <stdlib.h>
#include <string.h>

#include <json-c/json.h>

#include "cli.h"
#include "internal.h"
#include "jsonx.h"

/* One line on stderr per benchmark as it finishes. */
static void report_benchmark(cli_state *st, const bg_benchmark *b, const bg_results *res)
{
	const bg_outcome *o = bg_results_find_outcome(res, b->name);
	size_t i;

	if (o && o->status == BG_BENCH_FAILED) {
		char *msg = bg_printf("%s: FAILED: %s", b->name, o->message ? o->message : "");

		cli_progress_done(st);
		cli_put_message(stderr, "", msg ? msg : "FAILED");
		free(msg);
		return;
	}
	if (o && o->status == BG_BENCH_SKIPPED) {
		cli_info(st, "%s: skipped: %s", b->name, o->message ? o->message : "");
		return;
	}
	/* An instrument this machine does not have: "<name>:counters". */
	for (i = 0; i < bg_results_outcome_count(res); i++) {
		const bg_outcome *io = bg_results_outcome(res, i);
		size_t n = strlen(b->name);

		if (io->status == BG_BENCH_SKIPPED && !strncmp(io->benchmark, b->name, n) &&
		    io->benchmark[n] == ':')
			cli_info(st, "%s: skipped: %s", io->benchmark,
			         io->message ? io->message : "");
	}
	for (i = 0; i < bg_results_series_count(res); i++) {
		const bg_series *s = bg_results_series(res, i);
		const bg_series *prev = i ? bg_results_series(res, i - 1) : NULL;
		bg_summary sum;
		char v[64], cv[32];

		if (bg_stats_summarize(NULL, s->values, s->n, &sum) < 0)
			continue;
		bg_unit_format(v, sizeof(v), sum.mean, s->unit);
		/* The first series of each instrument: the clock's, the simulation's. */
		if (st->verbose || i == 0 || !bg_streq_null(prev->instrument, s->instrument))
			cli_info(st, "%s:%s  %s  (n=%zu, cv %s)", s->benchmark, s->metric, v, sum.n,
			         cli_fmt_cv(cv, sizeof(cv), &sum));
	}
}

int cli_build(cli_state *st, cli_env *env, const char *cwd)
{
	bg_build_result br;
	int rc;

	if ((rc = bg_suite_build(st->ctx, env->config, cwd, env->machine, &br)) < 0)
		return rc;
	if (br.ran && !br.ok) {
		/* The log's tail goes to stderr before the one-line error. */
		cli_progress_done(st);
		if (br.out_tail)
			cli_put_tail(stderr, "--- build stdout (tail) ---", br.out_tail);
		if (br.err_tail)
			cli_put_tail(stderr, "--- build stderr (tail) ---", br.err_tail);
		rc = bg_error_set(st->ctx, BG_EBUILD, "build failed (%s): %s",
		                  br.why ? br.why : "?", bg_config_build(env->config));
	}
	bg_build_result_clear(&br);
	return rc;
}

static void add_series_json(json_object *arr, const bg_series *s)
{
	json_object *o = json_object_new_object();
	bg_summary sum;
	char name[CLI_SERIES_MAX];

	if (bg_stats_summarize(NULL, s->values, s->n, &sum) < 0) {
		json_object_put(o);
		return;
	}
	snprintf(name, sizeof(name), "%s:%s", s->benchmark, s->metric);
	json_object_object_add(o, "series", json_object_new_string(name));
	json_object_object_add(o, "benchmark", json_object_new_string(s->benchmark));
	json_object_object_add(o, "metric", json_object_new_string(s->metric));
	json_object_object_add(o, "unit", json_object_new_string(s->unit));
	json_object_object_add(o, "direction",
	                       json_object_new_string(bg_direction_name(s->direction)));
	json_object_object_add(o, "n", json_object_new_int64((int64_t)sum.n));
	json_object_object_add(o, "mean", json_object_new_double(sum.mean));
	json_object_object_add(o, "median", json_object_new_double(sum.median));
	json_object_object_add(o, "stddev", json_object_new_double(sum.stddev));
	json_object_object_add(o, "min", json_object_new_double(sum.min));
	json_object_object_add(o, "max", json_object_new_double(sum.max));
	json_object_array_add(arr, o);
}

static const char *status_name(bg_bench_status s)
{
	return s == BG_BENCH_FAILED ? "failed" : s == BG_BENCH_SKIPPED ? "skipped" : "ok";
}

static int print_json(cli_state *st, cli_env *env, const bg_commit *c, const bg_suite_output *out)
{
	json_object *top = json_object_new_object(), *arr = json_object_new_array();
	size_t i, k;

	for (k = 0; k < out->nruns; k++) {
		json_object *r = json_object_new_object(), *series = json_object_new_array(),
		            *outs = json_object_new_array();
		json_object_object_add(r, "id", json_object_new_int64(out->ids[k]));
		json_object_object_add(r, "commit", json_object_new_string(c->sha));
		json_object_object_add(r, "branch", bg_json__str(NULL, c->branch));
		json_object_object_add(r, "dirty", json_object_new_boolean(c->dirty));
		json_object_object_add(
		        r, "machine", json_object_new_string(bg_machine_fingerprint(env->machine)));
		for (i = 0; i < bg_results_series_count(out->res[k]); i++)
			add_series_json(series, bg_results_series(out->res[k], i));
		for (i = 0; i < bg_results_outcome_count(out->res[k]); i++) {
			const bg_outcome *o = bg_results_outcome(out->res[k], i);
			json_object *oj = json_object_new_object();
			json_object_object_add(oj, "benchmark",
			                       json_object_new_string(o->benchmark));
			json_object_object_add(oj, "status",
			                       json_object_new_string(status_name(o->status)));
			json_object_object_add(oj, "message",
			                       o->message ? json_object_new_string(o->message)
			                                  : NULL);
			json_object_array_add(outs, oj);
		}
		json_object_object_add(r, "results", series);
		json_object_object_add(r, "outcomes", outs);
		json_object_array_add(arr, r);
	}
	json_object_object_add(top, "runs", arr);
	return cli_print_json(st, top);
}

static int print_table(cli_state *st, const bg_suite_output *out)
{
	static const char *const head[] = { "run",    "series", "n",   "mean", "median",
		                            "stddev", "cv",     "min", "max",  "status" };
	bg_table *t = bg_table_new(10, head, "lllrrrrrrl");
	char mean[48], med[48], sd[48], cv[24], mn[48], mx[48], n[24], id[24], name[CLI_SERIES_MAX];
	size_t i, k;

	if (!t)
		return bg_error_oom(st->ctx);
	for (k = 0; k < out->nruns; k++) {
		bg_results *res = out->res[k];
		snprintf(id, sizeof(id), "%lld", (long long)out->ids[k]);
		for (i = 0; i < bg_results_series_count(res); i++) {
			const bg_series *s = bg_results_series(res, i);
			bg_summary sum;
			if (bg_stats_summarize(NULL, s->values, s->n, &sum) < 0)
				continue;
			snprintf(name, sizeof(name), "%s:%s", s->benchmark, s->metric);
			snprintf(n, sizeof(n), "%zu", sum.n);
			bg_unit_format(mean, sizeof(mean), sum.mean, s->unit);
			bg_unit_format(med, sizeof(med), sum.median, s->unit);
			bg_unit_format(sd, sizeof(sd), sum.stddev, s->unit);
			bg_unit_format(mn, sizeof(mn), sum.min, s->unit);
			bg_unit_format(mx, sizeof(mx), sum.max, s->unit);
			cli_fmt_cv(cv, sizeof(cv), &sum);
			{
				const char *row[] = {
					id, name, n, mean, med, sd, cv, mn, mx, "ok"
				};
				bg_table_add(t, row);
			}
		}
		for (i = 0; i < bg_results_outcome_count(res); i++) {
			const bg_outcome *o = bg_results_outcome(res, i);
			if (o->status == BG_BENCH_OK)
				continue;
			{
				const char *row[] = {
					id, o->benchmark, "", "", "",
					"", "",           "", "", status_name(o->status)
				};
				bg_table_add(t, row);
			}
		}
	}
	cli_table_print(st, t, stdout);
	bg_table_free(t);
	return 0;
}

void cli_run_flags_init(cli_run_flags *f)
{
	memset(f, 0, sizeof(*f));
	f->samples = f->warmup = -1;
	f->nruns = 1;
}

void cli_run_flags_clear(cli_run_flags *f)
{
	free(f->tags);
	memset(f, 0, sizeof(*f));
}

int cli_run_option(cli_state *st, cli_run_flags *f, int argc, int opt, const char *arg)
{
	int rc = 0;

	switch (opt) {
	case CLI_OPT_FILTER:
		f->filter = arg;
		break;
	case CLI_OPT_SAMPLES:
		rc = cli_parse_count(st, "--samples", arg, 1, &f->samples);
		break;
	case CLI_OPT_WARMUP:
		rc = cli_parse_count(st, "--warmup", arg, 0, &f->warmup);
		break;
	case CLI_OPT_RUNS:
		rc = cli_parse_count(st, "--runs", arg, 1, &f->nruns);
		break;
	case CLI_OPT_TIMEOUT: {
		char *end;
		f->timeout = cli_strtod(arg, &end);
		/* As the config's `timeout`: decimal, above 0, at most the bound. */
		if (end == arg || *end || !(f->timeout > 0) || f->timeout > BG_TIMEOUT_MAX ||
		    strpbrk(arg, "xXpP"))
			rc = cli_usage_error(
			        st,
			        "--timeout needs seconds above 0 and at most %.0f (got "
			        "\"%s\")",
			        BG_TIMEOUT_MAX, arg);
		break;
	}
	case CLI_OPT_MACHINE:
		f->machine = arg;
		break;
	case CLI_OPT_TAG:
		/* argc bounds how many tags there can be. */
		if (!f->tags && !(f->tags = calloc((size_t)argc + 1, sizeof(char *))))
			return bg_error_oom(st->ctx);
		rc = cli_add_tag(st, arg, f->tags, &f->ntags);
		break;
	case CLI_OPT_NO_BUILD:
		f->no_build = 1;
		break;
	case CLI_OPT_COMMIT:
		if (!*arg)
			return cli_usage_error(st, "--commit needs a revision");
		f->commit = arg;
		break;
	case CLI_OPT_RETRY_BUILD:
		f->retry_build = 1;
		break;
	default:
		return 0;
	}
	return rc < 0 ? rc : 1;
}

static void on_suite_event(const bg_suite_event *ev, void *data)
{
	cli_state *st = data;

	switch (ev->kind) {
	case BG_SUITE_RUN_BEGIN:
		if (ev->runs > 1)
			cli_info(st, "run %d of %d (id %lld)", ev->run, ev->runs,
			         (long long)ev->run_id);
		break;
	case BG_SUITE_PROGRESS:
		if (!cli_progress_due(st, ev->done, ev->of))
			break;
		if (ev->runs > 1)
			cli_progress(st, "run %d/%d  [%d/%d] %s  %d/%d", ev->run, ev->runs,
			             ev->index, ev->total, ev->benchmark->name, ev->done, ev->of);
		else
			cli_progress(st, "[%d/%d] %s  %d/%d", ev->index, ev->total,
			             ev->benchmark->name, ev->done, ev->of);
		break;
	case BG_SUITE_BENCH_DONE:
		report_benchmark(st, ev->benchmark, ev->results);
		break;
	case BG_SUITE_RUN_DONE:
		break;
	}
}

/* The progress bar alone: paired runs are many, their lines would drown the rest. */
static void on_quiet_event(const bg_suite_event *ev, void *data)
{
	cli_state *st = data;

	if (ev->kind == BG_SUITE_PROGRESS) {
		if (cli_progress_due(st, ev->done, ev->of))
			cli_progress(st, "[%d/%d] %s  %d/%d", ev->index, ev->total,
			             ev->benchmark->name, ev->done, ev->of);
	} else if (ev->kind == BG_SUITE_BENCH_DONE) {
		const bg_outcome *o = bg_results_find_outcome(ev->results, ev->benchmark->name);

		if (o && o->status == BG_BENCH_FAILED) {
			char *msg = bg_printf("%s: FAILED: %s", ev->benchmark->name,
			                      o->message ? o->message : "");

			cli_progress_done(st);
			cli_put_message(stderr, "", msg ? msg : "FAILED");
			free(msg);
		}
	}
}

void cli_suite_opts(cli_state *st, cli_env *env, const cli_run_flags *f, bg_suite_opts *o)
{
	bg_suite_opts init = BG_SUITE_OPTS_INIT;

	*o = init;
	o->config = f->config ? f->config : env->config;
	o->machine = env->machine;
	o->filter = f->filter;
	o->only = f->only;
	o->samples = f->samples;
	o->warmup = f->warmup;
	o->timeout = f->timeout;
	o->runs = f->nruns > 0 ? f->nruns : 1;
	o->tags = (const char *const *)f->tags;
	o->event = on_suite_event;
	o->data = st;
}

bg_suite_event_cb cli_quiet_events(void)
{
	return on_quiet_event;
}

void cli_warn_dirty(cli_state *st, const bg_commit *head)
{
	if (head->dirty)
		cli_warn(st, "the working tree has uncommitted changes: this run is stored as "
		             "dirty and never used as a baseline");
}

void cli_say_stored(cli_state *st, cli_env *env, const bg_commit *head, size_t nruns)
{
	cli_progress_done(st);
	cli_info(st, "stored %zu run%s at %.12s%s on machine %s in %s", nruns, nruns > 1 ? "s" : "",
	         head->sha, head->dirty ? " (dirty)" : "", bg_machine_fingerprint(env->machine),
	         bg_store_name(env->store));
}

int cli_run_worktree(cli_state *st, cli_env *env, const cli_run_flags *f, bg_commit *head,
                     bg_suite_output *out)
{
	bg_suite_opts so;
	size_t n;
	int rc;

	memset(out, 0, sizeof(*out));
	cli_suite_opts(st, env, f, &so);
	/* A bad --filter is a usage error before anything is built. */
	if ((rc = bg_suite_count(st->ctx, &so, &n)) < 0)
		return rc;
	if (!n)
		return cli_usage_error(st, "--filter \"%s\" matches no benchmark", f->filter);
	if ((rc = bg_repo_head(st->ctx, env->repo, head)) < 0)
		return rc;
	so.cwd = bg_repo_workdir(env->repo);
	so.commit = head;
	cli_warn_dirty(st, head);
	if ((!f->no_build && (rc = cli_build(st, env, so.cwd)) < 0) ||
	    (rc = bg_suite_run(st->ctx, env->store, &so, out)) < 0)
		return rc;
	cli_say_stored(st, env, head, out->nruns);
	return 0;
}

int cmd_run(cli_state *st, int argc, char **argv)
{
	static const struct option run_options[] = { CLI_RUN_LONG_OPTIONS, { 0, 0, 0, 0 } };
	const cli_command *self = cli_find_command("run");
	cli_run_flags flags;
	bg_suite_output out;
	bg_suite_opts so;
	bg_commit commit;
	bg_worktree wt;
	cli_env env;
	size_t n;
	int opt, rc = 0;

	memset(&env, 0, sizeof(env));
	memset(&out, 0, sizeof(out));
	memset(&commit, 0, sizeof(commit));
	memset(&wt, 0, sizeof(wt));
	cli_run_flags_init(&flags);
	while ((opt = cli_getopt(st, argc, argv, "", run_options, self)) != -1) {
		if (opt == 'h') {
			rc = 0; /* not a run option's 1 */
			goto cleanup;
		}
		if (opt == '?' || (rc = cli_run_option(st, &flags, argc, opt, optarg)) < 0) {
			rc = BG_EINPUT;
			goto cleanup;
		}
	}
	rc = 0;
	if (optind < argc) {
		rc = cli_usage_error(st, "run takes no arguments (got \"%s\")", argv[optind]);
		goto cleanup;
	}
	if (flags.commit && flags.no_build) {
		rc = cli_usage_error(st, "--no-build does not go with --commit: a pinned commit is "
		                         "built once in its worktree and reused");
		goto cleanup;
	}
	if (flags.retry_build && !flags.commit) {
		rc = cli_usage_error(st, "--retry-build goes with --commit REV");
		goto cleanup;
	}
	if ((rc = cli_open_repo(st, &env)) < 0 || (rc = cli_load_config(st, &env)) < 0 ||
	    (rc = cli_detect_machine(st, &env, flags.machine)) < 0 ||
	    (rc = cli_open_store(st, &env)) < 0 || (rc = bg_store_writable(st->ctx, env.store)) < 0)
		goto cleanup;
	if (flags.commit) {
		cli_suite_opts(st, &env, &flags, &so);
		if ((rc = bg_suite_count(st->ctx, &so, &n)) < 0)
			goto cleanup;
		if (!n) {
			rc = cli_usage_error(st, "--filter \"%s\" matches no benchmark",
			                     flags.filter);
			goto cleanup;
		}
		if ((rc = cli_prepare_commit(st, &env, flags.commit, flags.retry_build, &commit,
		                             &wt)) < 0)
			goto cleanup;
		if (bg_config_build(env.config))
			bg_suite_note_compiler(st->ctx, env.machine, bg_repo_workdir(env.repo));
		so.cwd = wt.path;
		so.commit = &commit;
		if ((rc = bg_suite_run(st->ctx, env.store, &so, &out)) < 0)
			goto cleanup;
		cli_say_stored(st, &env, &commit, out.nruns);
	} else if ((rc = cli_run_worktree(st, &env, &flags, &commit, &out)) < 0) {
		goto cleanup;
	}
	rc = st->format == CLI_JSON ? print_json(st, &env, &commit, &out) : print_table(st, &out);
	if (rc == 0 && out.failed)
		rc = 3;

cleanup:
	bg_suite_output_clear(&out);
	cli_run_flags_clear(&flags);
	bg_worktree_clear(&wt);
	bg_commit_clear(&commit);
	cli_env_clear(&env);
	return rc;
}
