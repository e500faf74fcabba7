/*
 * check.c -- `benchguard check`: judge stored runs against their rolling
 * baseline and print the verdict table (table, Markdown, the verdict's JSON
 * or JUnit XML).
 * The flags, the choice of candidate runs and the printers are shared with
 * `ci`, which runs the suite first.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

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
	double v = cli_strtod(arg, &end);

	if (end == arg || *end || !(v >= lo && v <= hi))
		return cli_usage_error(st, "%s needs a number from %g to %g (got \"%s\")", opt, lo,
		                       hi, arg);
	*out = v;
	return 0;
}

/* A relative change, below 1: 5 meant as 5% would never flag a rate's fall. */
static int parse_min_change(cli_state *st, const char *arg, double *out)
{
	char *end;
	double v = cli_strtod(arg, &end);

	if (end == arg || *end || !(v >= 0 && v < BG_MIN_CHANGE_LIMIT))
		return cli_usage_error(st,
		                       "--min-change needs a relative change from 0 to below 1, "
		                       "e.g. 0.05 for 5%% (got \"%s\")",
		                       arg);
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
		if (parse_number(st, "--alpha", arg, BG_ALPHA_MIN, BG_ALPHA_MAX, &f->alpha) < 0)
			return BG_EINPUT;
		return 1;
	case CLI_OPT_MIN_CHANGE:
		return parse_min_change(st, arg, &f->min_change) < 0 ? BG_EINPUT : 1;
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

int cli_check_opts(cli_state *st, const cli_check_flags *f, const bg_config *cfg, bg_check_opts *o)
{
	const bg_baseline_cfg *b = bg_config_baseline(cfg);
	const bg_thresholds *t = bg_config_thresholds(cfg);

	memset(o, 0, sizeof(*o));
	o->baseline_branch = f->baseline_branch ? f->baseline_branch : b->branch;
	o->window = f->window > 0 ? f->window : b->window;
	o->min_runs = f->min_runs > 0 ? f->min_runs : b->min_runs;
	/* Judging on fewer runs than min_runs is what min_runs forbids: a
	 * `--window 2` under the config's 5 judged on 2 runs, and `--min-runs
	 * 10 --window 3` on 3.  Refused as baseline.min_runs > window is. */
	if (o->min_runs > o->window) {
		if (f->min_runs > 0)
			return cli_usage_error(st, "--min-runs %d must not exceed the window (%d)",
			                       o->min_runs, o->window);
		return cli_usage_error(st,
		                       "--window %d is smaller than baseline.min_runs (%d); give "
		                       "--min-runs N too",
		                       o->window, o->min_runs);
	}
	o->thresholds = *t;
	if (!isnan(f->alpha))
		o->thresholds.alpha = f->alpha;
	if (!isnan(f->min_change))
		o->thresholds.min_change = f->min_change;
	if (!isnan(f->min_effect))
		o->thresholds.min_effect = f->min_effect;
	if (f->fdr >= 0)
		o->thresholds.fdr = f->fdr;
	return 0;
}

/* ---------------------------------------------------------------- output */

/* The verdict table for a terminal: the Markdown's cells, aligned. */
static bg_table *verdict_table(const bg_check_result *res, int with_confirm)
{
	static const char *const head[] = { "verdict", "series", "baseline",
		                            "current", "change", "p",
		                            "g",       "runs",   "confirmation" };
	size_t ncols = with_confirm ? 9 : 8, i, k;
	bg_table *t = bg_table_new(ncols, head, "llrrrrrrl");

	if (!t)
		return NULL;
	for (i = 0; i < res->nrows; i++) {
		char cells[9][BG_CHECK_CELL];
		const char *row[9];

		bg_check__row_cells(&res->rows[i], 0, cells);
		for (k = 0; k < 9; k++)
			row[k] = cells[k];
		if (bg_table_add(t, row) < 0) {
			bg_table_free(t);
			return NULL;
		}
	}
	return t;
}

int cli_check_markdown(cli_state *st, const bg_check_result *res, FILE *f)
{
	char *md = NULL;
	int rc;

	if ((rc = bg_check_markdown(st->ctx, res, &md)) < 0)
		return rc;
	fputs(md, f);
	free(md);
	return 0;
}

int cli_check_print(cli_state *st, const bg_check_result *res)
{
	bg_buf line = BG_BUF_INIT;
	char *json = NULL;
	bg_table *t;
	size_t i;
	int rc, confirmed = 0;

	if (st->format == CLI_JSON || st->format == CLI_JUNIT) {
		rc = st->format == CLI_JSON ? bg_check_json(st->ctx, res, &json)
		                            : bg_check_junit(st->ctx, res, &json);
		if (rc < 0)
			return rc;
		fputs(json, stdout);
		free(json);
		return 0;
	}
	if (st->format == CLI_MARKDOWN)
		return cli_check_markdown(st, res, stdout);
	for (i = 0; i < res->nrows; i++)
		confirmed |=
		        res->rows[i].confirm.status != BG_CONFIRM_NONE || res->rows[i].undecided;
	if (!(t = verdict_table(res, confirmed)))
		return bg_error_oom(st->ctx);
	char branch[CLI_TERM_MAX], machine[CLI_TERM_MAX], base[CLI_TERM_MAX];

	cli_term(machine, sizeof(machine), res->machine);
	if (res->baseline_branch)
		printf("commit %.12s%s%s%s on %s, baseline %s (window %d, from %.12s)\n", res->sha,
		       res->branch ? " (" : "",
		       res->branch ? cli_term(branch, sizeof(branch), res->branch) : "",
		       res->branch ? ")" : "", machine,
		       cli_term(base, sizeof(base), res->baseline_branch), res->window,
		       res->baseline_from);
	else
		printf("commit %.12s against %.12s on %s (%d pairs)\n", res->sha,
		       res->baseline_from, machine, res->window);
	cli_table_print(st, t, stdout);
	bg_table_free(t);
	if (bg_check__summary_line(res, &line) < 0) {
		bg_buf_clear(&line);
		return bg_error_oom(st->ctx);
	}
	fputs(line.ptr, stdout);
	bg_buf_clear(&line);
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
		/* Asked for by number: judged even when set aside, and said so. */
		if ((error = bg_store_run_get(st->ctx, env->store, run_id, &row)) < 0)
			return error;
		if (row.excluded) {
			char why[CLI_TERM_MAX];

			cli_warn(st, "run %lld is excluded (%s); judging it as asked",
			         (long long)run_id, cli_term(why, sizeof(why), row.excluded));
		}
		bg_run_row_clear(&row);
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
		if (error == 0 && *n == 0) {
			bg_run_row *ex = NULL;
			size_t nex = 0;

			/* Only excluded ones: say so, or the runs seem lost. */
			if ((error = bg_store_runs_list(st->ctx, env->store, c.sha, fp, 1, &ex,
			                                &nex)) == 0)
				error = bg_error_set(
				        st->ctx, BG_ENOTFOUND,
				        nex ? "no complete run of commit %.12s on machine %s that "
				              "is not "
				              "excluded (exclude --list)"
				            : "no complete run of commit %.12s on machine %s",
				        c.sha, fp);
			bg_run_rows_free(ex, nex);
		}
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
			if ((rc = cli_parse_id(st, "--run", optarg, &run_id)) < 0)
				return rc;
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
	    (rc = cli_read_store(st, &env)) < 0 ||
	    (rc = pick_runs(st, &env, run_id, rev, &ids, &nids)) < 0)
		goto cleanup;
	if ((rc = cli_check_opts(st, &flags, env.config, &o)) < 0)
		goto cleanup;
	cli_warn_throttled_runs(st, env.store, ids, nids);
	o.runs = ids;
	o.nruns = nids;
	if ((rc = cli_branch_hint(st, bg_check_run(st->ctx, env.store, env.repo, &o, &res),
	                          "--baseline-branch")) < 0 ||
	    (rc = cli_check_print(st, res)) < 0)
		goto cleanup;
	rc = bg_check_exit_code(res);
cleanup:
	bg_check_result_free(res);
	free(ids);
	cli_env_clear(&env);
	return rc;
}
