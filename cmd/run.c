/*
 * run.c -- `benchguard run`: build, run the suite at the working tree, store
 * every sample under HEAD's commit and this machine's fingerprint, print a
 * summary.  With --commit REV the suite (the user's config, so commits older
 * than it can be measured) runs in REV's cached, built worktree instead and
 * is stored under REV's SHA.  Each of --runs K runs is stored as it goes, so a run killed
 * half-way stays marked incomplete and the earlier ones are kept.
 */
#include <regex.h>
#include <stdlib.h>
#include <string.h>

#include <json-c/json.h>

#include "cli.h"
#include "internal.h"

typedef struct {
	cli_state *st;
	int index, total; /* benchmark k of n */
	int run, runs;
} progress_state;

static void on_progress(const char *benchmark, int done, int total, void *data)
{
	progress_state *p = data;

	if (p->runs > 1)
		cli_progress(p->st, "run %d/%d  [%d/%d] %s  %d/%d", p->run, p->runs, p->index,
		             p->total, benchmark, done, total);
	else
		cli_progress(p->st, "[%d/%d] %s  %d/%d", p->index, p->total, benchmark, done,
		             total);
}

/* Moves one benchmark's series and outcome from `from` into the run's set. */
static int merge(bg_ctx *ctx, bg_results *into, const bg_results *from)
{
	size_t i, j;
	int rc;

	for (i = 0; i < bg_results_series_count(from); i++) {
		const bg_series *s = bg_results_series(from, i);
		for (j = 0; j < s->n; j++)
			if ((rc = bg_results_add(ctx, into, s->benchmark, s->metric, s->unit,
			                         s->values[j])) < 0)
				return rc;
		bg_results_set_direction(into, s->benchmark, s->metric, s->direction);
	}
	for (i = 0; i < bg_results_outcome_count(from); i++) {
		const bg_outcome *o = bg_results_outcome(from, i);
		if ((rc = bg_results_set_outcome(ctx, into, o->benchmark, o->status, o->message)) <
		    0)
			return rc;
	}
	return 0;
}

/* One line on stderr per benchmark as it finishes. */
static void report_benchmark(cli_state *st, const bg_benchmark *b, const bg_results *res)
{
	const bg_outcome *o = bg_results_find_outcome(res, b->name);
	size_t i;

	if (o && o->status == BG_BENCH_FAILED) {
		cli_progress_done(st);
		fprintf(stderr, "%s: FAILED: %s\n", b->name, o->message ? o->message : "");
		return;
	}
	if (o && o->status == BG_BENCH_SKIPPED) {
		cli_info(st, "%s: skipped: %s", b->name, o->message ? o->message : "");
		return;
	}
	for (i = 0; i < bg_results_series_count(res); i++) {
		const bg_series *s = bg_results_series(res, i);
		bg_summary sum;
		char v[64];

		if (bg_stats_summarize(NULL, s->values, s->n, &sum) < 0)
			continue;
		cli_fmt_value(v, sizeof(v), sum.mean, s->unit);
		if (st->verbose || i == 0)
			cli_info(st, "%s:%s  %s  (n=%zu, cv %.1f%%)", s->benchmark, s->metric, v,
			         sum.n, cli_cv_percent(&sum));
	}
}

/*
 * The compiler that builds the benchmarks is a volatile fact of the run: it
 * explains a step in a chart without splitting baselines.  Asked only when
 * there is a build (it costs a process).
 */
static void record_compiler(cli_state *st, cli_env *env)
{
	bg_exec_opts o = { 0 };
	bg_exec_result r;
	size_t n;

	memset(&r, 0, sizeof(r));
	o.cwd = bg_repo_workdir(env->repo);
	o.timeout = 10;
	o.capture_stdout = 1;
	o.out_limit = 4096;
	if (bg_exec(st->ctx, "${CC:-cc} --version", &o, &r) == 0 && r.exited &&
	    r.exit_status == 0 && r.out_len) {
		n = strcspn(r.out, "\n");
		r.out[n] = '\0';
		bg_machine_set_fact(env->machine, "compiler", r.out, 1);
	}
	bg_ctx_clear_error(st->ctx);
	bg_exec_result_clear(&r);
}

static int build(cli_state *st, cli_env *env)
{
	const char *cmd = bg_config_build(env->config);
	bg_exec_opts o = { 0 };
	bg_exec_result r;
	char *why;
	int rc;

	if (!cmd)
		return 0;
	record_compiler(st, env);
	memset(&r, 0, sizeof(r));
	o.cwd = bg_repo_workdir(env->repo);
	o.timeout = 3600;
	o.capture_stdout = 1;
	o.out_limit = 1 << 20;
	cli_info(st, "build: %s", cmd);
	if ((rc = bg_exec(st->ctx, cmd, &o, &r)) < 0)
		return rc;
	if (r.exited && r.exit_status == 0) {
		bg_exec_result_clear(&r);
		return 0;
	}
	/* The log's tail goes to stderr before the one-line error. */
	if (r.out_len)
		fprintf(stderr, "--- build stdout (tail) ---\n%s\n",
		        r.out_len > 2000 ? r.out + r.out_len - 2000 : r.out);
	if (r.err_len)
		fprintf(stderr, "--- build stderr (tail) ---\n%s\n", r.err_tail);
	why = bg_exec_describe(&r, o.timeout);
	rc = bg_error_set(st->ctx, BG_EBUILD, "build failed (%s): %s", why ? why : "?", cmd);
	free(why);
	bg_exec_result_clear(&r);
	return rc;
}

static void add_series_json(json_object *arr, const bg_series *s)
{
	json_object *o = json_object_new_object();
	bg_summary sum;
	char name[512];

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

static int print_json(cli_state *st, cli_env *env, const cli_run_output *out)
{
	json_object *top = json_object_new_object(), *arr = json_object_new_array();
	int k;
	size_t i;

	const bg_commit *c = &out->head;

	for (k = 0; k < out->nruns; k++) {
		json_object *r = json_object_new_object(), *series = json_object_new_array(),
		            *outs = json_object_new_array();
		json_object_object_add(r, "id", json_object_new_int64(out->ids[k]));
		json_object_object_add(r, "commit", json_object_new_string(c->sha));
		json_object_object_add(r, "branch",
		                       c->branch ? json_object_new_string(c->branch) : NULL);
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

static int print_table(cli_state *st, const cli_run_output *out)
{
	static const char *const head[] = { "run",    "series", "n",   "mean", "median",
		                            "stddev", "cv",     "min", "max",  "status" };
	cli_table *t = cli_table_new(10, head, "lllrrrrrrl");
	char mean[48], med[48], sd[48], cv[24], mn[48], mx[48], n[24], id[24], name[512];
	int k;
	size_t i;

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
			cli_fmt_value(mean, sizeof(mean), sum.mean, s->unit);
			cli_fmt_value(med, sizeof(med), sum.median, s->unit);
			cli_fmt_value(sd, sizeof(sd), sum.stddev, s->unit);
			cli_fmt_value(mn, sizeof(mn), sum.min, s->unit);
			cli_fmt_value(mx, sizeof(mx), sum.max, s->unit);
			snprintf(cv, sizeof(cv), "%.1f%%", cli_cv_percent(&sum));
			{
				const char *row[] = {
					id, name, n, mean, med, sd, cv, mn, mx, "ok"
				};
				cli_table_add(t, row);
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
				cli_table_add(t, row);
			}
		}
	}
	cli_table_print(st, t, stdout);
	cli_table_free(t);
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
		f->timeout = strtod(arg, &end);
		if (end == arg || *end || !(f->timeout > 0))
			rc = cli_usage_error(st, "--timeout needs seconds > 0 (got \"%s\")", arg);
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

void cli_run_output_clear(cli_run_output *out)
{
	int k;

	for (k = 0; out->res && k < out->nruns; k++)
		bg_results_free(out->res[k]);
	free(out->res);
	free(out->ids);
	bg_commit_clear(&out->head);
	memset(out, 0, sizeof(*out));
}

/*
 * The GPUs' clocks, temperature and throttle reasons are read again once
 * the suite has run, while a GPU that ran hot still shows it, and stored
 * with the run in place of those read before it.
 */
static int gpu_state_after(cli_state *st, cli_env *env, int64_t run_id)
{
	int rc;

	if (!bg_machine_get(env->machine, "gpu0_name"))
		return 0;
	if ((rc = bg_gpu_refresh(st->ctx, env->machine)) < 0 ||
	    (rc = bg_store_run_set_facts(st->ctx, env->store, run_id, env->machine)) < 0)
		return rc;
	cli_warn_throttling(st, run_id, env->machine);
	return 0;
}

/* Is benchmark `name` one this run measures (--filter, and the `only` list)? */
static int selected(const cli_run_flags *f, const regex_t *re, const char *name)
{
	char *const *p;

	if (re && regexec(re, name, 0, NULL, 0))
		return 0;
	if (!f->only)
		return 1;
	for (p = f->only; *p; p++)
		if (!strcmp(*p, name))
			return 1;
	return 0;
}

int cli_run_suite(cli_state *st, cli_env *env, const cli_run_flags *f, cli_run_output *out)
{
	const bg_config *cfg = f->config ? f->config : env->config;
	regex_t re;
	int have_re = 0, rc = 0, k, total = 0, idx;
	size_t i;

	memset(out, 0, sizeof(*out));
	if (f->filter) {
		int e = regcomp(&re, f->filter, REG_EXTENDED | REG_NOSUB);
		if (e) {
			char why[256];
			regerror(e, &re, why, sizeof(why));
			return cli_usage_error(st, "--filter: bad regular expression \"%s\": %s",
			                       f->filter, why);
		}
		have_re = 1;
	}
	if (f->at) {
		/* A pinned checkout is the commit exactly: never dirty. */
		memcpy(out->head.sha, f->at->sha, sizeof(out->head.sha));
		out->head.author_time = f->at->author_time;
		if ((f->at->branch && !(out->head.branch = strdup(f->at->branch))) ||
		    (f->at->author && !(out->head.author = strdup(f->at->author))) ||
		    (f->at->subject && !(out->head.subject = strdup(f->at->subject)))) {
			rc = bg_error_oom(st->ctx);
			goto cleanup;
		}
	} else if ((rc = bg_repo_head(st->ctx, env->repo, &out->head)) < 0) {
		goto cleanup;
	}
	for (i = 0; i < bg_config_benchmark_count(cfg); i++)
		if (selected(f, have_re ? &re : NULL, bg_config_benchmark(cfg, i)->name))
			total++;
	if (total == 0) {
		rc = cli_usage_error(st, "--filter \"%s\" matches no benchmark", f->filter);
		goto cleanup;
	}
	if (out->head.dirty)
		cli_warn(st, "the working tree has uncommitted changes: this run is stored as "
		             "dirty and never used as a baseline");
	if (f->at && bg_config_build(env->config))
		record_compiler(st, env);
	else if (!f->at && !f->no_build && (rc = build(st, env)) < 0)
		goto cleanup;

	out->ids = calloc((size_t)f->nruns, sizeof(*out->ids));
	out->res = calloc((size_t)f->nruns, sizeof(*out->res));
	if (!out->ids || !out->res) {
		rc = bg_error_oom(st->ctx);
		goto cleanup;
	}
	for (k = 0; k < f->nruns; k++) {
		bg_run_info info = { .commit = &out->head,
			             .machine = env->machine,
			             .source = "run",
			             .tags = f->tags };
		progress_state ps = { st, 0, total, k + 1, f->nruns };
		bg_run_opts ro = BG_RUN_OPTS_INIT;

		ro.cwd = f->at ? f->cwd : bg_repo_workdir(env->repo);
		ro.samples = f->samples;
		ro.warmup = f->warmup;
		ro.timeout = f->timeout;
		ro.progress = on_progress;
		ro.progress_data = &ps;
		if ((rc = bg_results_new(&out->res[k])) < 0)
			goto cleanup;
		out->nruns = k + 1;
		if ((rc = bg_store_run_begin(st->ctx, env->store, &info, &out->ids[k])) < 0)
			goto cleanup;
		if (f->nruns > 1)
			cli_info(st, "run %d of %d (id %lld)", k + 1, f->nruns,
			         (long long)out->ids[k]);
		idx = 0;
		for (i = 0; i < bg_config_benchmark_count(cfg); i++) {
			const bg_benchmark *b = bg_config_benchmark(cfg, i);
			bg_results *one = NULL;
			const bg_outcome *o;

			if (!selected(f, have_re ? &re : NULL, b->name))
				continue;
			if (bg_ctx_cancelled(st->ctx)) {
				rc = bg_error_set(st->ctx, BG_ERROR,
				                  "interrupted: run %lld left incomplete",
				                  (long long)out->ids[k]);
				goto cleanup;
			}
			ps.index = ++idx;
			if ((rc = bg_results_new(&one)) < 0)
				goto cleanup;
			rc = bg_runner_run(st->ctx, b, &ro, one);
			if (rc == 0)
				rc = bg_store_run_add(st->ctx, env->store, out->ids[k], one);
			if (rc == 0)
				rc = merge(st->ctx, out->res[k], one);
			if (rc == 0) {
				report_benchmark(st, b, one);
				o = bg_results_find_outcome(one, b->name);
				out->failed += o && o->status == BG_BENCH_FAILED;
			}
			bg_results_free(one);
			if (rc < 0)
				goto cleanup;
		}
		if ((rc = gpu_state_after(st, env, out->ids[k])) < 0 ||
		    (rc = bg_store_run_finish(st->ctx, env->store, out->ids[k])) < 0)
			goto cleanup;
	}
	cli_progress_done(st);
	cli_info(st, "stored %d run%s at %.12s%s on machine %s in %s", f->nruns,
	         f->nruns > 1 ? "s" : "", out->head.sha, out->head.dirty ? " (dirty)" : "",
	         bg_machine_fingerprint(env->machine), env->db_path);
cleanup:
	if (have_re)
		regfree(&re);
	return rc;
}

int cli_run_once(cli_state *st, cli_env *env, const cli_run_side *side, int64_t *id, int *failed)
{
	cli_run_flags f = *side->flags;
	cli_run_output out;
	const char **tags = NULL;
	size_t i;
	int rc;

	if (side->tag) {
		if (!(tags = calloc(side->flags->ntags + 2, sizeof(*tags))))
			return bg_error_oom(st->ctx);
		for (i = 0; i < side->flags->ntags; i++)
			tags[i] = side->flags->tags[i];
		tags[i] = side->tag;
		f.tags = tags;
		f.ntags = side->flags->ntags + 1;
	}
	f.nruns = 1;
	f.at = side->at;
	f.cwd = side->cwd;
	if (side->at)
		f.no_build = 1;
	if ((rc = cli_run_suite(st, env, &f, &out)) == 0) {
		*id = out.ids[0];
		if (failed)
			*failed += out.failed;
	}
	cli_run_output_clear(&out);
	free(tags);
	return rc;
}

int cli_run_pair(cli_state *st, cli_env *env, int k, const cli_run_side *a, const cli_run_side *b,
                 int64_t *id_a, int64_t *id_b, int *failed)
{
	int rc;

	if (k % 2)
		return (rc = cli_run_once(st, env, b, id_b, failed)) < 0
		               ? rc
		               : cli_run_once(st, env, a, id_a, failed);
	return (rc = cli_run_once(st, env, a, id_a, failed)) < 0
	               ? rc
	               : cli_run_once(st, env, b, id_b, failed);
}

int cmd_run(cli_state *st, int argc, char **argv)
{
	static const struct option run_options[] = { CLI_RUN_LONG_OPTIONS, { 0, 0, 0, 0 } };
	const cli_command *self = cli_find_command("run");
	cli_run_flags flags;
	cli_run_output out;
	bg_commit commit;
	bg_worktree wt;
	cli_env env;
	int opt, rc = 0;

	memset(&env, 0, sizeof(env));
	memset(&out, 0, sizeof(out));
	memset(&commit, 0, sizeof(commit));
	memset(&wt, 0, sizeof(wt));
	cli_run_flags_init(&flags);
	while ((opt = cli_getopt(st, argc, argv, "", run_options, self)) != -1) {
		if (opt == 'h')
			goto cleanup;
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
	    (rc = cli_open_store(st, &env)) < 0)
		goto cleanup;
	if (flags.commit) {
		if ((rc = cli_prepare_commit(st, &env, flags.commit, flags.retry_build, &commit,
		                             &wt)) < 0)
			goto cleanup;
		flags.at = &commit;
		flags.cwd = wt.path;
	}
	if ((rc = cli_run_suite(st, &env, &flags, &out)) < 0)
		goto cleanup;
	rc = st->format == CLI_JSON ? print_json(st, &env, &out) : print_table(st, &out);
	if (rc == 0 && out.failed)
		rc = 3;

cleanup:
	cli_run_output_clear(&out);
	cli_run_flags_clear(&flags);
	bg_worktree_clear(&wt);
	bg_commit_clear(&commit);
	cli_env_clear(&env);
	return rc;
}
