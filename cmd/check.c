/*
 * check.c -- `benchguard check`: judge stored runs against their rolling
 * baseline and print the verdict table (table, Markdown or SPEC's JSON).
 * The flags, the choice of candidate runs and the printers are shared with
 * `ci`, which runs the suite first.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include <json-c/json.h>

#include "cli.h"
#include "internal.h"

enum { OPT_RUN = CLI_OPT_BASE + 100, OPT_COMMIT, OPT_MACHINE };

static const struct option check_options[] = {
	{ "run", required_argument, NULL, OPT_RUN },
	{ "commit", required_argument, NULL, OPT_COMMIT },
	{ "machine", required_argument, NULL, OPT_MACHINE },
	CLI_CHECK_LONG_OPTIONS,
	{ 0, 0, 0, 0 },
};

void cli_check_flags_init(cli_check_flags *f)
{
	memset(f, 0, sizeof(*f));
	f->window = f->min_runs = -1;
	f->alpha = f->min_change = f->min_effect = NAN;
	f->fdr = -1;
}

static int parse_number(cli_state *st, const char *opt, const char *arg, double lo, double hi,
                        double *out)
{
	char *end;
	double v = strtod(arg, &end);

	if (end == arg || *end || !(v >= lo && v <= hi))
		return cli_usage_error(st, "%s needs a number from %g to %g (got \"%s\")", opt, lo,
		                       hi, arg);
	*out = v;
	return 0;
}

int cli_check_option(cli_state *st, cli_check_flags *f, int opt, const char *arg)
{
	switch (opt) {
	case CLI_OPT_BASELINE_BRANCH:
		f->baseline_branch = arg;
		return 1;
	case CLI_OPT_WINDOW:
		return cli_parse_count(st, "--window", arg, 2, &f->window) < 0 ? BG_EINPUT : 1;
	case CLI_OPT_MIN_RUNS:
		return cli_parse_count(st, "--min-runs", arg, 2, &f->min_runs) < 0 ? BG_EINPUT : 1;
	case CLI_OPT_ALPHA:
		if (parse_number(st, "--alpha", arg, 1e-12, 0.5, &f->alpha) < 0)
			return BG_EINPUT;
		return 1;
	case CLI_OPT_MIN_CHANGE:
		if (parse_number(st, "--min-change", arg, 0, 1e6, &f->min_change) < 0)
			return BG_EINPUT;
		return 1;
	case CLI_OPT_MIN_EFFECT:
		if (parse_number(st, "--min-effect", arg, 0, 1e6, &f->min_effect) < 0)
			return BG_EINPUT;
		return 1;
	case CLI_OPT_NO_FDR:
		f->fdr = 0;
		return 1;
	case CLI_OPT_FDR:
		f->fdr = 1;
		return 1;
	default:
		return 0;
	}
}

int cli_check_ambiguous(const bg_check_result *res, double min_change, int worse_only)
{
	size_t i;

	for (i = 0; i < res->nrows; i++) {
		double c = res->rows[i].test.change;

		if (res->rows[i].verdict == BG_VERDICT_UNCHANGED &&
		    (c >= min_change || (!worse_only && -c >= min_change)))
			return 1;
	}
	return 0;
}

void cli_check_opts(const cli_check_flags *f, const bg_config *cfg, bg_check_opts *o)
{
	const bg_baseline_cfg *b = bg_config_baseline(cfg);
	const bg_thresholds *t = bg_config_thresholds(cfg);

	memset(o, 0, sizeof(*o));
	o->baseline_branch = f->baseline_branch ? f->baseline_branch : b->branch;
	o->window = f->window > 0 ? f->window : b->window;
	o->min_runs = f->min_runs > 0 ? f->min_runs : b->min_runs;
	/* A window smaller than the configured min_runs lowers min_runs with it. */
	if (o->min_runs > o->window)
		o->min_runs = o->window;
	o->thresholds = *t;
	if (!isnan(f->alpha))
		o->thresholds.alpha = f->alpha;
	if (!isnan(f->min_change))
		o->thresholds.min_change = f->min_change;
	if (!isnan(f->min_effect))
		o->thresholds.min_effect = f->min_effect;
	if (f->fdr >= 0)
		o->thresholds.fdr = f->fdr;
}

/* ---------------------------------------------------------------- output */

static json_object *num(double v)
{
	/* JSON has no NaN or infinity: an undefined number is null. */
	return isfinite(v) ? json_object_new_double(v) : NULL;
}

static json_object *str(const char *s)
{
	return s ? json_object_new_string(s) : NULL;
}

static int tested(const bg_verdict_row *r)
{
	return r->verdict == BG_VERDICT_REGRESSION || r->verdict == BG_VERDICT_IMPROVEMENT ||
	       r->verdict == BG_VERDICT_UNCHANGED;
}

json_object *cli_check_json(const bg_check_result *res)
{
	json_object *top = json_object_new_object(), *run = json_object_new_object();
	json_object *base = json_object_new_object(), *results = json_object_new_array();
	json_object *summary = json_object_new_object();
	size_t i;
	int v;

	json_object_object_add(run, "id", json_object_new_int64(res->run_id));
	json_object_object_add(run, "commit", json_object_new_string(res->sha));
	json_object_object_add(run, "branch", str(res->branch));
	json_object_object_add(run, "machine", str(res->machine));
	json_object_object_add(run, "dirty", json_object_new_boolean(res->dirty));
	json_object_object_add(base, "branch", str(res->baseline_branch));
	json_object_object_add(base, "window", json_object_new_int(res->window));
	json_object_object_add(base, "from", json_object_new_string(res->baseline_from));
	for (i = 0; i < res->nrows; i++) {
		const bg_verdict_row *r = &res->rows[i];
		json_object *o = json_object_new_object();
		int t = tested(r);

		json_object_object_add(o, "series", str(r->series));
		json_object_object_add(o, "benchmark", str(r->benchmark));
		json_object_object_add(o, "metric", str(r->metric));
		json_object_object_add(o, "unit", str(r->unit));
		json_object_object_add(o, "direction",
		                       r->metric ? str(bg_direction_name(r->direction)) : NULL);
		json_object_object_add(o, "verdict", str(bg_verdict_name(r->verdict)));
		json_object_object_add(o, "baseline_mean", t ? num(r->test.base_mean) : NULL);
		json_object_object_add(o, "baseline_ci", t ? num(r->test.base_ci) : NULL);
		json_object_object_add(o, "current_mean", t ? num(r->test.cur_mean) : NULL);
		json_object_object_add(o, "change", t ? num(r->test.change) : NULL);
		json_object_object_add(o, "p_value", t ? num(r->test.p_worse) : NULL);
		json_object_object_add(o, "p_adjusted", t ? num(r->p_adjusted) : NULL);
		json_object_object_add(o, "p_improvement", t ? num(r->test.p_better) : NULL);
		json_object_object_add(o, "p_improvement_adjusted",
		                       t ? num(r->p_better_adjusted) : NULL);
		json_object_object_add(o, "effect_size", t ? num(r->test.effect) : NULL);
		json_object_object_add(o, "mde", t ? num(r->test.mde) : NULL);
		json_object_object_add(o, "baseline_runs",
		                       json_object_new_int64((int64_t)r->baseline_runs));
		json_object_object_add(o, "outlier_samples",
		                       json_object_new_int64((int64_t)r->outlier_samples));
		json_object_object_add(o, "baseline_outliers",
		                       json_object_new_int64((int64_t)r->baseline_outliers));
		json_object_object_add(o, "baseline_cv",
		                       t && fabs(r->test.base_mean) > 0
		                               ? num(r->test.base_sd / fabs(r->test.base_mean))
		                               : NULL);
		json_object_object_add(o, "current_runs",
		                       json_object_new_int64((int64_t)r->current_runs));
		json_object_object_add(o, "samples", json_object_new_int64((int64_t)r->samples));
		if (r->message)
			json_object_object_add(o, "message", str(r->message));
		json_object_array_add(results, o);
	}
	for (v = 0; v < BG_VERDICT_COUNT; v++)
		json_object_object_add(summary, bg_verdict_name((bg_verdict)v),
		                       json_object_new_int64((int64_t)res->count[v]));
	json_object_object_add(top, "run", run);
	json_object_object_add(top, "baseline", base);
	json_object_object_add(top, "results", results);
	json_object_object_add(top, "summary", summary);
	return top;
}

static void fmt_p(char *buf, size_t n, double p)
{
	if (!isfinite(p))
		snprintf(buf, n, "-");
	else if (p < 1e-4)
		snprintf(buf, n, "<0.0001");
	else
		snprintf(buf, n, "%.4f", p);
}

/* The verdict table; `md` selects Markdown (with emphasis on what failed). */
static cli_table *verdict_table(const bg_check_result *res, int md)
{
	static const char *const head[] = { "verdict", "series", "baseline", "current",
		                            "change",  "p",      "g",        "runs" };
	cli_table *t = cli_table_new(8, head, "llrrrrrr");
	size_t i;

	if (!t)
		return NULL;
	for (i = 0; i < res->nrows; i++) {
		const bg_verdict_row *r = &res->rows[i];
		char verdict[48], series[512], base[160], cur[48], change[32], p[24], g[24],
		        runs[32];
		char a[48], b[48];
		const char *cells[8];

		snprintf(verdict, sizeof(verdict),
		         md && r->verdict == BG_VERDICT_REGRESSION ? "**%s**" : "%s",
		         bg_verdict_name(r->verdict));
		snprintf(series, sizeof(series), md ? "`%s`" : "%s", r->series);
		base[0] = cur[0] = change[0] = p[0] = g[0] = '\0';
		if (tested(r)) {
			cli_fmt_value(a, sizeof(a), r->test.base_mean, r->unit);
			cli_fmt_value(b, sizeof(b), r->test.base_ci, r->unit);
			snprintf(base, sizeof(base), "%s ± %s", a, b);
			cli_fmt_value(cur, sizeof(cur), r->test.cur_mean, r->unit);
			/* Shown as the raw direction of the mean; the verdict says good or bad. */
			if (isfinite(r->test.change))
				snprintf(change, sizeof(change), "%+.2f%%",
				         100.0 * r->test.change *
				                 (r->direction == BG_DIR_HIGHER ? -1 : 1));
			fmt_p(p, sizeof(p),
			      r->test.change < 0 ? r->p_better_adjusted : r->p_adjusted);
			if (isfinite(r->test.effect))
				snprintf(g, sizeof(g), "%.2f", r->test.effect);
			else
				snprintf(g, sizeof(g), "%s", r->test.effect > 0 ? "inf" : "-inf");
		} else if (r->message) {
			snprintf(base, sizeof(base), "%s", r->message);
		}
		snprintf(runs, sizeof(runs), "%zu/%zu", r->baseline_runs, r->current_runs);
		cells[0] = verdict;
		cells[1] = series;
		cells[2] = base;
		cells[3] = cur;
		cells[4] = change;
		cells[5] = p;
		cells[6] = g;
		cells[7] = runs;
		if (cli_table_add(t, cells) < 0) {
			cli_table_free(t);
			return NULL;
		}
	}
	return t;
}

static void summary_line(FILE *f, const bg_check_result *res)
{
	int v, first = 1;

	for (v = 0; v < BG_VERDICT_COUNT; v++) {
		if (!res->count[v])
			continue;
		fprintf(f, "%s%zu %s", first ? "" : ", ", res->count[v],
		        bg_verdict_name((bg_verdict)v));
		first = 0;
	}
	fputc('\n', f);
}

int cli_check_markdown(cli_state *st, const bg_check_result *res, FILE *f)
{
	cli_state md = *st;
	cli_table *t = verdict_table(res, 1);

	if (!t)
		return bg_error_oom(st->ctx);
	md.format = CLI_MARKDOWN;
	md.color = 0;
	fprintf(f, "### benchguard: %s\n\n",
	        res->count[BG_VERDICT_FAILED]       ? "benchmarks failed"
	        : res->count[BG_VERDICT_REGRESSION] ? "performance regression"
	                                            : "no regression");
	if (res->baseline_branch)
		fprintf(f,
		        "Commit `%.12s`%s%s%s on machine `%s`, against `%s` (window %d, from "
		        "`%.12s`).\n\n",
		        res->sha, res->branch ? " (" : "", res->branch ? res->branch : "",
		        res->branch ? ")" : "", res->machine, res->baseline_branch, res->window,
		        res->baseline_from);
	else
		fprintf(f,
		        "Commit `%.12s` against commit `%.12s` on machine `%s` (%d runs each).\n\n",
		        res->sha, res->baseline_from, res->machine, res->window);
	cli_table_print(&md, t, f);
	fputc('\n', f);
	summary_line(f, res);
	cli_table_free(t);
	return 0;
}

int cli_check_print(cli_state *st, const bg_check_result *res)
{
	cli_table *t;

	if (st->format == CLI_JSON)
		return cli_print_json(st, cli_check_json(res));
	if (st->format == CLI_MARKDOWN)
		return cli_check_markdown(st, res, stdout);
	if (!(t = verdict_table(res, 0)))
		return bg_error_oom(st->ctx);
	if (res->baseline_branch)
		printf("commit %.12s%s%s%s on %s, baseline %s (window %d, from %.12s)\n", res->sha,
		       res->branch ? " (" : "", res->branch ? res->branch : "",
		       res->branch ? ")" : "", res->machine, res->baseline_branch, res->window,
		       res->baseline_from);
	else
		printf("commit %.12s against %.12s on %s (%d runs each)\n", res->sha,
		       res->baseline_from, res->machine, res->window);
	cli_table_print(st, t, stdout);
	summary_line(stdout, res);
	cli_table_free(t);
	return 0;
}

/* ------------------------------------------------------------- the command */

/* The runs to judge: --run ID alone, the runs of --commit, or the latest run's commit. */
static int pick_runs(cli_state *st, cli_env *env, int64_t run_id, const char *rev, int64_t **ids,
                     size_t *n)
{
	const char *fp = bg_machine_fingerprint(env->machine);
	bg_run_row row;
	bg_commit c;
	int error;

	*ids = NULL;
	*n = 0;
	if (run_id > 0) {
		if (!(*ids = malloc(sizeof(int64_t))))
			return bg_error_oom(st->ctx);
		(*ids)[0] = run_id;
		*n = 1;
		return 0;
	}
	if (rev) {
		memset(&c, 0, sizeof(c));
		if ((error = bg_repo_lookup(st->ctx, env->repo, rev, &c)) < 0)
			return error;
		error = bg_store_runs_at(st->ctx, env->store, c.sha, fp, 0, ids, n);
		if (error == 0 && *n == 0) {
			free(*ids);
			error = bg_store_runs_at(st->ctx, env->store, c.sha, fp, 1, ids, n);
		}
		if (error == 0 && *n == 0)
			error = bg_error_set(st->ctx, BG_ENOTFOUND,
			                     "no complete run of commit %.12s on machine %s", c.sha,
			                     fp);
		bg_commit_clear(&c);
		return error;
	}
	if ((error = bg_store_latest_run(st->ctx, env->store, fp, &run_id)) < 0)
		return error;
	if ((error = bg_store_run_get(st->ctx, env->store, run_id, &row)) < 0)
		return error;
	/* Every run of that commit in the same state: `run --runs K` is one candidate. */
	error = bg_store_runs_at(st->ctx, env->store, row.sha, fp, row.dirty, ids, n);
	bg_run_row_clear(&row);
	return error;
}

int cmd_check(cli_state *st, int argc, char **argv)
{
	const cli_command *self = cli_find_command("check");
	const char *rev = NULL, *machine = NULL;
	bg_check_result *res = NULL;
	cli_check_flags flags;
	bg_check_opts o;
	int64_t run_id = 0, *ids = NULL;
	size_t nids = 0;
	cli_env env;
	int opt, rc = 0, n;

	memset(&env, 0, sizeof(env));
	cli_check_flags_init(&flags);
	while ((opt = cli_getopt(st, argc, argv, "", check_options, self)) != -1) {
		if (opt == 'h')
			return 0;
		if (opt == '?')
			return BG_EINPUT;
		if ((n = cli_check_option(st, &flags, opt, optarg)) < 0)
			return n;
		if (n)
			continue;
		if (opt == OPT_RUN) {
			int v;
			if ((rc = cli_parse_count(st, "--run", optarg, 1, &v)) < 0)
				return rc;
			run_id = v;
		} else if (opt == OPT_COMMIT) {
			rev = optarg;
		} else if (opt == OPT_MACHINE) {
			machine = optarg;
		}
	}
	if (optind < argc)
		return cli_usage_error(st, "check takes no arguments (got \"%s\")", argv[optind]);
	if (run_id && rev)
		return cli_usage_error(st, "--run and --commit cannot be used together");
	if ((rc = cli_open_repo(st, &env)) < 0 || (rc = cli_load_config(st, &env)) < 0 ||
	    (rc = cli_detect_machine(st, &env, machine)) < 0 ||
	    (rc = cli_open_store(st, &env)) < 0 ||
	    (rc = pick_runs(st, &env, run_id, rev, &ids, &nids)) < 0)
		goto cleanup;
	cli_warn_throttled_runs(st, env.store, ids, nids);
	cli_check_opts(&flags, env.config, &o);
	o.runs = ids;
	o.nruns = nids;
	if ((rc = bg_check_run(st->ctx, env.store, env.repo, &o, &res)) < 0 ||
	    (rc = cli_check_print(st, res)) < 0)
		goto cleanup;
	rc = bg_check_exit_code(res);
cleanup:
	bg_check_result_free(res);
	free(ids);
	cli_env_clear(&env);
	return rc;
}
