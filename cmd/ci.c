/*
 * ci.c -- `benchguard ci`: the CI step.  Runs the suite (as `run`), judges
 * the runs it just made (as `check`), appends the Markdown verdict to
 * $GITHUB_STEP_SUMMARY and, under GitHub Actions, prints workflow-command
 * annotations so regressions show up on the pull request.  A failure
 * (exit 3) outranks a regression (exit 1).
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "internal.h"

/* GitHub workflow commands: '%', CR and LF are escaped in the message,
 * and ':' and ',' too in property values. */
static void gh_escape(FILE *f, const char *s, int property)
{
	for (; s && *s; s++) {
		if (*s == '%')
			fputs("%25", f);
		else if (*s == '\r')
			fputs("%0D", f);
		else if (*s == '\n')
			fputs("%0A", f);
		else if (property && *s == ':')
			fputs("%3A", f);
		else if (property && *s == ',')
			fputs("%2C", f);
		else
			fputc(*s, f);
	}
}

static void annotate(const char *level, const char *title, const char *msg)
{
	printf("::%s title=", level);
	gh_escape(stdout, title, 1);
	fputs("::", stdout);
	gh_escape(stdout, msg, 0);
	fputc('\n', stdout);
}

static void annotations(const bg_check_result *res)
{
	size_t i;

	for (i = 0; i < res->nrows; i++) {
		const bg_verdict_row *r = &res->rows[i];
		char msg[1024];

		if (r->verdict == BG_VERDICT_REGRESSION) {
			snprintf(msg, sizeof(msg),
			         "%s got %.1f%% worse than the %s baseline (p=%.2g adjusted, "
			         "g=%.2f, "
			         "%zu baseline runs)",
			         r->series, 100.0 * r->test.change, res->baseline_branch,
			         r->p_adjusted, r->test.effect, r->baseline_runs);
			annotate("error", "benchguard: performance regression", msg);
		} else if (r->verdict == BG_VERDICT_FAILED) {
			snprintf(msg, sizeof(msg), "%s did not run: %s", r->series,
			         r->message ? r->message : "failed");
			annotate("error", "benchguard: benchmark failed", msg);
		}
	}
}

/* Appends to the step summary; a file that cannot be written is a warning,
 * never a reason to hide the verdict. */
static FILE *open_summary(cli_state *st)
{
	const char *path = getenv("GITHUB_STEP_SUMMARY");
	FILE *f;

	if (!path || !*path)
		return NULL;
	if (!(f = fopen(path, "a")))
		cli_warn(st, "cannot write the step summary %s", path);
	return f;
}

/*
 * The reference for confirmation: the newest commit of the baseline, checked
 * out and built in its cached worktree.  0 with *ok = 0 when there is none
 * to use (no baseline commit, the candidate itself, or it does not build).
 */
static int prepare_reference(cli_state *st, cli_env *env, const bg_check_result *res, char **names,
                             bg_commit *commit, bg_worktree *wt, bg_config **cfg, int *ok)
{
	const bg_config *suite;
	size_t i, j;
	int rc;

	*ok = 0;
	if (!res->reference[0] || !strcmp(res->reference, res->sha))
		return 0;
	if ((rc = cli_prepare_commit_soft(st, env, res->reference, 0, commit, wt)) < 0)
		return rc;
	if (wt->failed) {
		cli_warn(st, "the baseline commit %.12s does not build: confirming without it",
		         res->reference);
		return 0;
	}
	/* Measured as it was: with the suite of its own checkout (a benchmark's
	 * parameters may be what changed), or the user's under --config. */
	if ((rc = cli_checkout_config(st, env, wt->path, cfg)) < 0)
		return rc;
	if (!*cfg && !st->config_path) {
		cli_info(st,
		         "the baseline commit %.12s has no benchguard.json: confirming without it",
		         res->reference);
		return 0;
	}
	/* Pairs are possible only for benchmarks the reference's suite has. */
	suite = *cfg ? *cfg : env->config;
	for (i = 0; names[i]; i++)
		for (j = 0; j < bg_config_benchmark_count(suite); j++)
			if (!strcmp(bg_config_benchmark(suite, j)->name, names[i]))
				*ok = 1;
	return 0;
}

/*
 * Replication of a regression or improvement before it is believed.  The
 * flagged benchmarks run `confirm` more times here, interleaved with as many
 * runs at the reference commit (the baseline's newest, in its worktree) in
 * ABBA order.  A verdict stands only if (1) the new runs, judged alone
 * against the rolling baseline, reach it too (bg_check_confirm) and (2) the
 * pairs show it against the reference (bg_check_confirm_paired).  A shared
 * machine's slowdown that lasts seconds hits the first runs and the
 * confirmation runs alike, so (1) alone does not see through it; it hits
 * both sides of a pair, so (2) does.  *res becomes the judgement of all
 * candidate runs.
 */
static int confirm_verdicts(cli_state *st, cli_env *env, const cli_run_flags *rflags,
                            const bg_check_opts *base_opts, const cli_run_output *first,
                            int confirm, bg_check_result **res)
{
	bg_check_result *again = NULL, *all = NULL;
	char **names = NULL;
	cli_run_flags cf = *rflags, rf;
	cli_run_side here, there;
	bg_check_opts o = *base_opts;
	int64_t *ids = NULL, *more = NULL, *refs = NULL;
	bg_config *ref_cfg = NULL;
	bg_commit ref;
	bg_worktree wt;
	size_t n;
	int rc, k, paired = 0;

	memset(&ref, 0, sizeof(ref));
	memset(&wt, 0, sizeof(wt));
	if ((rc = bg_check_flagged(st->ctx, *res, &names)) < 0)
		return rc;
	for (n = 0; names[n]; n++)
		;
	ids = calloc((size_t)first->nruns + (size_t)confirm, sizeof(int64_t));
	more = calloc((size_t)confirm, sizeof(int64_t));
	refs = calloc((size_t)confirm, sizeof(int64_t));
	if (!ids || !more || !refs) {
		rc = bg_error_oom(st->ctx);
		goto cleanup;
	}
	cf.no_build = 1;
	cf.filter = NULL;
	cf.only = names;
	rf = cf;

	if ((rc = prepare_reference(st, env, *res, names, &ref, &wt, &ref_cfg, &paired)) < 0)
		goto cleanup;
	rf.config = ref_cfg;
	here = (cli_run_side){ &cf, NULL, NULL, "confirm=1" };
	there = (cli_run_side){ &rf, &ref, wt.path, "confirm-reference=1" };
	if (paired)
		cli_info(
		        st,
		        "confirming %zu flagged benchmark%s: %d more run%s, interleaved with %.12s",
		        n, n == 1 ? "" : "s", confirm, confirm == 1 ? "" : "s", ref.sha);
	else
		cli_info(st, "confirming %zu flagged benchmark%s with %d more run%s", n,
		         n == 1 ? "" : "s", confirm, confirm == 1 ? "" : "s");
	for (k = 0; k < confirm; k++)
		if ((rc = paired ? cli_run_pair(st, env, k, &here, &there, &more[k], &refs[k], NULL)
		                 : cli_run_once(st, env, &here, &more[k], NULL)) < 0)
			goto cleanup;

	o.runs = more;
	o.nruns = (size_t)confirm;
	if ((rc = bg_check_run(st->ctx, env->store, env->repo, &o, &again)) < 0)
		goto cleanup;
	memcpy(ids, first->ids, (size_t)first->nruns * sizeof(int64_t));
	memcpy(ids + first->nruns, more, (size_t)confirm * sizeof(int64_t));
	o.runs = ids;
	o.nruns = (size_t)(first->nruns + confirm);
	if ((rc = bg_check_run(st->ctx, env->store, env->repo, &o, &all)) < 0 ||
	    (rc = bg_check_confirm_first(st->ctx, all, *res)) < 0 ||
	    (rc = bg_check_confirm(st->ctx, all, again)) < 0)
		goto cleanup;
	if (paired && (rc = bg_check_confirm_paired(st->ctx, env->store, all, more, refs,
	                                            (size_t)confirm, &base_opts->thresholds)) < 0)
		goto cleanup;
	bg_check_result_free(*res);
	*res = all;
	all = NULL;
cleanup:
	bg_check_result_free(again);
	bg_check_result_free(all);
	bg_config_free(ref_cfg);
	bg_commit_clear(&ref);
	bg_worktree_clear(&wt);
	bg_strv_free(names);
	free(ids);
	free(more);
	free(refs);
	return rc;
}

enum { OPT_CONFIRM = CLI_OPT_BASE + 200 };

int cmd_ci(cli_state *st, int argc, char **argv)
{
	static const struct option ci_options[] = { CLI_RUN_LONG_OPTIONS,
		                                    CLI_CHECK_LONG_OPTIONS,
		                                    { "confirm", required_argument, NULL,
		                                      OPT_CONFIRM },
		                                    { 0, 0, 0, 0 } };
	const cli_command *self = cli_find_command("ci");
	const char *gha = getenv("GITHUB_ACTIONS");
	int github = gha && !strcmp(gha, "true");
	bg_check_result *res = NULL;
	cli_run_flags rflags;
	cli_check_flags cflags;
	cli_run_output out;
	bg_check_opts o;
	cli_env env;
	FILE *summary;
	int opt, rc = 0, n, confirm = 2;

	memset(&env, 0, sizeof(env));
	memset(&out, 0, sizeof(out));
	cli_run_flags_init(&rflags);
	cli_check_flags_init(&cflags);
	while ((opt = cli_getopt(st, argc, argv, "", ci_options, self)) != -1) {
		if (opt == 'h')
			goto cleanup;
		if (opt == '?') {
			rc = BG_EINPUT;
			goto cleanup;
		}
		if (opt == OPT_CONFIRM) {
			if ((rc = cli_parse_count(st, "--confirm", optarg, 0, &confirm)) < 0)
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
	if (optind < argc) {
		rc = cli_usage_error(st, "ci takes no arguments (got \"%s\")", argv[optind]);
		goto cleanup;
	}
	if (rflags.commit || rflags.retry_build) {
		rc = cli_usage_error(st, "ci judges the working tree: --commit and --retry-build "
		                         "are options of run");
		goto cleanup;
	}
	if ((rc = cli_open_repo(st, &env)) < 0 || (rc = cli_load_config(st, &env)) < 0 ||
	    (rc = cli_detect_machine(st, &env, rflags.machine)) < 0 ||
	    (rc = cli_open_store(st, &env)) < 0)
		goto cleanup;

	if ((rc = cli_run_suite(st, &env, &rflags, &out)) < 0) {
		/* Say so where CI users look, then fail as `run` would. */
		if ((summary = open_summary(st))) {
			fprintf(summary, "### benchguard: %s\n\n%s\n\n",
			        rc == BG_EBUILD ? "build failed" : "run failed",
			        bg_ctx_error(st->ctx));
			fclose(summary);
		}
		if (github)
			annotate("error", "benchguard", bg_ctx_error(st->ctx));
		goto cleanup;
	}

	cli_check_opts(&cflags, env.config, &o);
	o.runs = out.ids;
	o.nruns = (size_t)out.nruns;
	if ((rc = bg_check_run(st->ctx, env.store, env.repo, &o, &res)) < 0)
		goto cleanup;
	if (confirm > 0 &&
	    (res->count[BG_VERDICT_REGRESSION] || res->count[BG_VERDICT_IMPROVEMENT]) &&
	    (rc = confirm_verdicts(st, &env, &rflags, &o, &out, confirm, &res)) < 0)
		goto cleanup;
	if ((rc = cli_check_print(st, res)) < 0)
		goto cleanup;
	if ((summary = open_summary(st))) {
		rc = cli_check_markdown(st, res, summary);
		fclose(summary);
		if (rc < 0)
			goto cleanup;
	}
	if (github)
		annotations(res);
	/* Delivery trouble is a warning: it never changes the exit code. */
	cli_alert_ci(st, &env, res, out.head.subject);
	rc = bg_check_exit_code(res);

cleanup:
	bg_check_result_free(res);
	cli_run_output_clear(&out);
	cli_run_flags_clear(&rflags);
	cli_env_clear(&env);
	return rc;
}
