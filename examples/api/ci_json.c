/*
 * ci_json.c -- `benchguard ci --json` written against libbenchguard: a
 * program that runs a repository's suite at its working tree, judges it
 * against the rolling baseline, confirms what the first run flags or cannot
 * clear in interleaved pairs beside the baseline's commit, records the
 * verdict, and prints the verdict's JSON.  On the same database it prints
 * what `benchguard ci --json` prints: the protocol is the library's, the
 * command line only parses options and prints.
 *
 * usage: ci_json [REPO]     (the database: $BENCHGUARD_DB, else
 *                            REPO/.benchguard/results.db)
 * exit:  0 no regression, 1 a regression, 3 a benchmark failed; 2 or 3 with
 *        a message on stderr when the library says so.
 */
#define _POSIX_C_SOURCE 200809L /* strdup */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <benchguard.h>

/* Progress and warnings, one line each on stderr. */
static void log_line(bg_log_level level, const char *msg, void *data)
{
	(void)data;
	if (level >= BG_LOG_INFO)
		fprintf(stderr, "%s%s\n", level == BG_LOG_WARN ? "warning: " : "", msg);
}

/* "$BENCHGUARD_DB", else "<repo>/.benchguard/<name>" (caller frees). */
static char *in_repo(const char *env, const bg_repo *repo, const char *name)
{
	const char *v = env ? getenv(env) : NULL;
	size_t n;
	char *p;

	if (v && *v)
		return strdup(v);
	n = strlen(bg_repo_workdir(repo)) + strlen(name) + 16;
	if ((p = malloc(n)))
		snprintf(p, n, "%s/.benchguard/%s", bg_repo_workdir(repo), name);
	return p;
}

int main(int argc, char **argv)
{
	bg_ctx *ctx = NULL;
	bg_repo *repo = NULL;
	bg_config *cfg = NULL;
	bg_machine *machine = NULL;
	bg_store *store = NULL;
	bg_build_result build;
	bg_ci_result out;
	bg_ci_opts o;
	bg_suite_opts run = BG_SUITE_OPTS_INIT;
	char *config_path = NULL, *db = NULL, *cache = NULL, *json = NULL;
	int rc;

	memset(&build, 0, sizeof(build));
	memset(&out, 0, sizeof(out));
	if (bg_ctx_new(&ctx) < 0)
		return 3;
	bg_ctx_set_log(ctx, log_line, NULL);
	if ((rc = bg_repo_open(ctx, argc > 1 ? argv[1] : ".", &repo)) < 0)
		goto fail;
	config_path = malloc(strlen(bg_repo_workdir(repo)) + 32);
	db = in_repo("BENCHGUARD_DB", repo, "results.db");
	cache = in_repo("BENCHGUARD_CACHE", repo, "worktrees");
	if (!config_path || !db || !cache) {
		rc = BG_ENOMEM;
		goto fail;
	}
	sprintf(config_path, "%s/benchguard.json", bg_repo_workdir(repo));
	if ((rc = bg_config_load(ctx, config_path, &cfg)) < 0 ||
	    (rc = bg_machine_detect(ctx, "/", &machine)) < 0 ||
	    (rc = bg_store_open(ctx, db, &store)) < 0)
		goto fail;

	/* Everything else is the suite's configuration, as `ci` reads it. */
	memset(&o, 0, sizeof(o));
	run.config = cfg;
	run.machine = machine;
	o.repo = repo;
	o.store = store;
	o.config = cfg;
	o.machine = machine;
	o.cache_dir = cache;
	o.run = run;
	o.check.baseline_branch = bg_config_baseline(cfg)->branch;
	o.check.window = bg_config_baseline(cfg)->window;
	o.check.min_runs = bg_config_baseline(cfg)->min_runs;
	o.check.thresholds = *bg_config_thresholds(cfg);
	o.confirm_first = (size_t)bg_config_confirm(cfg)->pairs;
	o.confirm_max = (size_t)bg_config_confirm(cfg)->max_pairs;

	/* Whether the check can judge at all (the baseline branch, the
	 * history in the clone), before a build that may take minutes. */
	if ((rc = bg_ci_probe(ctx, &o)) < 0)
		goto fail;

	/* The build, as `ci` does; its log's end when it fails. */
	if ((rc = bg_suite_build(ctx, cfg, bg_repo_workdir(repo), machine, &build)) < 0)
		goto fail;
	if (build.ran && !build.ok) {
		fprintf(stderr, "build failed (%s)\n%s%s", build.why ? build.why : "?",
		        build.out_tail ? build.out_tail : "", build.err_tail ? build.err_tail : "");
		rc = BG_EBUILD;
		goto done;
	}

	if ((rc = bg_ci_run(ctx, &o, &out)) < 0 || (rc = bg_check_json(ctx, out.result, &json)) < 0)
		goto fail;
	fputs(json, stdout);
	rc = bg_check_exit_code(out.result);
	goto done;
fail:
	fprintf(stderr, "ci_json: %s\n", bg_ctx_error(ctx));
	rc = bg_error_exit_code(rc);
done:
	free(json);
	bg_ci_result_clear(&out);
	bg_build_result_clear(&build);
	bg_store_free(store);
	bg_machine_free(machine);
	bg_config_free(cfg);
	bg_repo_free(repo);
	bg_ctx_free(ctx);
	free(config_path);
	free(db);
	free(cache);
	return rc == BG_EBUILD ? 3 : rc;
}
