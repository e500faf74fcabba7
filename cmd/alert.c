/*
 * alert.c -- `benchguard alert test|flush`, and the alerts `ci` sends.
 *
 * The library does the sending (lib/alert.c); this file turns a verdict
 * into the event it sends (the check JSON, the Markdown verdict, links to
 * the CI run and the commit read from the CI's environment) and reports
 * what became of each alert.  Delivery trouble is a warning: it never
 * changes `ci`'s exit code.
 */
#include <ctype.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "internal.h"

/* Links to the CI run and the commit, where the CI's environment says. */
static void event_links(const char *sha, char **run_url, char **commit_url)
{
	const char *server = getenv("GITHUB_SERVER_URL"), *repo = getenv("GITHUB_REPOSITORY");
	const char *run = getenv("GITHUB_RUN_ID"), *pipeline = getenv("CI_PIPELINE_URL");
	const char *project = getenv("CI_PROJECT_URL");

	*run_url = *commit_url = NULL;
	if (server && *server && repo && *repo) {
		if (run && *run &&
		    asprintf(run_url, "%s/%s/actions/runs/%s", server, repo, run) < 0)
			*run_url = NULL;
		if (asprintf(commit_url, "%s/%s/commit/%s", server, repo, sha) < 0)
			*commit_url = NULL;
	} else if (project && *project) { /* GitLab CI */
		if (pipeline && *pipeline)
			*run_url = strdup(pipeline);
		if (asprintf(commit_url, "%s/-/commit/%s", project, sha) < 0)
			*commit_url = NULL;
	}
}

typedef struct {
	bg_alert_event ev;
	char *json, *markdown, *run_url, *commit_url;
} cli_alert_event;

static void event_clear(cli_alert_event *e)
{
	free(e->json);
	free(e->markdown);
	free(e->run_url);
	free(e->commit_url);
	memset(e, 0, sizeof(*e));
}

static int event_make(cli_state *st, const bg_config *cfg, const bg_check_result *res,
                      const char *subject, int sample, cli_alert_event *e)
{
	int rc;

	memset(e, 0, sizeof(*e));
	if ((rc = bg_check_json(st->ctx, res, &e->json)) < 0 ||
	    (rc = bg_check_markdown(st->ctx, res, &e->markdown)) < 0)
		return rc;
	event_links(res->sha, &e->run_url, &e->commit_url);
	e->ev.project = bg_config_project(cfg);
	e->ev.result = res;
	e->ev.check_json = e->json;
	e->ev.markdown = e->markdown;
	e->ev.subject = subject;
	e->ev.run_url = e->run_url;
	e->ev.commit_url = e->commit_url;
	e->ev.sample = sample;
	return 0;
}

static void describe(char *buf, size_t size, const bg_alert_report *r)
{
	char status[32] = "";

	if (r->status)
		snprintf(status, sizeof(status), ", HTTP %d", r->status);
	snprintf(buf, size, "%d request%s%s", r->attempts, r->attempts == 1 ? "" : "s", status);
}

/* During `ci`: a line per alert on stderr; trouble as a warning. */
static void ci_report(const bg_alert_report *r, void *data)
{
	cli_state *st = data;
	char how[64];

	describe(how, sizeof(how), r);
	if (!strcmp(r->outcome, "delivered"))
		cli_info(st, "alert %s %s: delivered (%s)", r->kind, r->target, how);
	else if (!strcmp(r->outcome, "pending"))
		cli_warn(st,
		         "alert %s %s: not delivered (%s), kept in the outbox for the next ci or "
		         "`benchguard alert flush`",
		         r->kind, r->target, r->why ? r->why : how);
	else if (!strcmp(r->outcome, "failed"))
		cli_warn(st, "alert %s %s: refused (%s); kept in the outbox as failed, not retried",
		         r->kind, r->target, r->why ? r->why : how);
}

int cli_alert_ci(cli_state *st, cli_env *env, const bg_check_result *res, const char *subject)
{
	bg_alert_stats stats;
	cli_alert_event e;
	int rc;

	if (!bg_config_alert_count(env->config))
		return 0;
	memset(&stats, 0, sizeof(stats));
	if ((rc = event_make(st, env->config, res, subject, 0, &e)) < 0 ||
	    (rc = bg_alert_queue(st->ctx, env->store, env->config, &e.ev, &stats)) < 0)
		cli_warn(st, "alerts not queued: %s", bg_ctx_error(st->ctx));
	bg_ctx_clear_error(st->ctx);
	/* What earlier runs left in the outbox goes first, then this one. */
	if (bg_alert_flush(st->ctx, env->store, env->config, ci_report, st, &stats) < 0)
		cli_warn(st, "alerts: %s", bg_ctx_error(st->ctx));
	bg_ctx_clear_error(st->ctx);
	event_clear(&e);
	return 0;
}

/* ------------------------------------------------------------- the command */

typedef struct {
	cli_state *st;
	size_t lines;
} report_state;

static void alert_print_report(const bg_alert_report *r, void *data)
{
	report_state *rs = data;
	char how[64], id[32] = "";
	/* The library scrubs and escapes what it reports; shown, never sent to
	 * the terminal as it is, all the same. */
	char *target = bg_text__escaped(BG_ESC_TERM, r->target);
	char *why = r->why ? bg_text__escaped(BG_ESC_TERM, r->why) : NULL;

	describe(how, sizeof(how), r);
	if (r->id)
		snprintf(id, sizeof(id), "#%lld ", (long long)r->id);
	if (!strcmp(r->outcome, "dropped")) /* nothing sent: no requests to count */
		printf("%-10s %s%s %s\n", r->outcome, id, r->kind, target ? target : "?");
	else
		printf("%-10s %s%s %s (%s)%s%s\n", r->outcome, id, r->kind, target ? target : "?",
		       how, r->why ? ": " : "",
		       why      ? why
		       : r->why ? "?"
		                : "");
	free(target);
	free(why);
	rs->lines++;
}

/* A made-up regression, shaped like a real verdict. */
static void sample_result(const bg_commit *head, const char *machine, bg_check_result *res,
                          bg_verdict_row *row)
{
	memset(res, 0, sizeof(*res));
	memset(row, 0, sizeof(*row));
	row->series = "sample/bench:wall_time";
	row->benchmark = "sample/bench";
	row->metric = "wall_time";
	row->unit = "s";
	row->direction = BG_DIR_LOWER;
	row->verdict = BG_VERDICT_REGRESSION;
	row->test.n_base = 20;
	row->test.n_cur = 1;
	row->test.base_mean = 0.1210;
	row->test.base_sd = 0.0012;
	row->test.base_ci = 0.0006;
	row->test.cur_mean = 0.1302;
	row->test.change = 0.076;
	row->test.p_worse = 0.00002;
	row->test.p_better = 0.99998;
	row->test.effect = 4.1;
	row->test.mde = 0.018;
	row->p_adjusted = 0.00008;
	row->p_better_adjusted = 1.0;
	row->baseline_runs = 20;
	row->current_runs = 1;
	row->samples = 15;
	memcpy(res->sha, head->sha, sizeof(res->sha));
	res->branch = head->branch;
	res->machine = (char *)machine;
	res->baseline_branch = "main";
	memcpy(res->baseline_from, head->sha, sizeof(res->baseline_from));
	res->window = 20;
	res->rows = row;
	res->nrows = 1;
	res->count[BG_VERDICT_REGRESSION] = 1;
}

static int alert_test(cli_state *st, cli_env *env, report_state *rs, bg_alert_stats *stats)
{
	bg_check_result res;
	bg_verdict_row row;
	cli_alert_event e;
	bg_commit head;
	int rc;

	memset(&head, 0, sizeof(head));
	memset(&e, 0, sizeof(e));
	if ((rc = bg_repo_head(st->ctx, env->repo, &head)) < 0)
		return rc;
	sample_result(&head, "sample-machine", &res, &row);
	if ((rc = event_make(st, env->config, &res, head.subject, 1, &e)) == 0)
		rc = bg_alert_test(st->ctx, env->config, &e.ev, alert_print_report, rs, stats);
	event_clear(&e);
	bg_commit_clear(&head);
	return rc;
}

static int no_alerts(cli_state *st, cli_env *env)
{
	return bg_error_set(st->ctx, BG_EINPUT, "%s: no \"alerts\" are configured",
	                    bg_config_path(env->config));
}

/* `alert drop ID...`: gives up pending entries whose target is gone. */
static int alert_drop(cli_state *st, int argc, char **argv)
{
	report_state rs = { st, 0 };
	cli_env env;
	int64_t *ids = NULL;
	int i, rc = 0;

	memset(&env, 0, sizeof(env));
	if (argc < 1)
		return cli_usage_error(st, "alert drop needs the id of a pending alert "
		                           "(the #N that alert flush shows)");
	if (!(ids = calloc((size_t)argc, sizeof(*ids))))
		return bg_error_oom(st->ctx);
	/* Every id read before any is dropped: a typo drops nothing. */
	for (i = 0; i < argc && rc == 0; i++) {
		const char *a = argv[i][0] == '#' ? argv[i] + 1 : argv[i];
		char *end;

		errno = 0;
		ids[i] = strtoll(a, &end, 10);
		if (errno || end == a || *end || ids[i] < 1 || isspace((unsigned char)*a))
			rc = cli_usage_error(
			        st,
			        "alert drop takes the ids of pending alerts, the #N that "
			        "alert flush shows (got \"%s\")",
			        argv[i]);
	}
	if (rc < 0 || (rc = cli_open_repo(st, &env)) < 0 || (rc = cli_load_config(st, &env)) < 0 ||
	    (rc = cli_read_store(st, &env)) < 0)
		goto cleanup;
	for (i = 0; i < argc; i++)
		if ((rc = bg_alert_drop(st->ctx, env.store, ids[i], alert_print_report, &rs)) < 0)
			goto cleanup;
cleanup:
	free(ids);
	cli_env_clear(&env);
	return rc;
}

int cmd_alert(cli_state *st, int argc, char **argv)
{
	static const struct option options[] = { { 0, 0, 0, 0 } };
	const cli_command *self = cli_find_command("alert");
	report_state rs = { st, 0 };
	bg_alert_stats stats;
	const char *sub;
	cli_env env;
	int opt, rc;

	memset(&env, 0, sizeof(env));
	memset(&stats, 0, sizeof(stats));
	while ((opt = cli_getopt(st, argc, argv, "", options, self)) != -1) {
		if (opt == 'h')
			return 0;
		if (opt == '?')
			return BG_EINPUT;
	}
	if (optind >= argc)
		return cli_usage_error(st, "alert needs a subcommand: test, flush or drop");
	sub = argv[optind];
	if (strcmp(sub, "test") && strcmp(sub, "flush") && strcmp(sub, "drop"))
		return cli_usage_error(st, "unknown alert subcommand \"%s\" (test, flush or drop)",
		                       sub);
	if (!strcmp(sub, "drop"))
		return alert_drop(st, argc - optind - 1, argv + optind + 1);
	if (optind + 1 < argc)
		return cli_usage_error(st, "alert %s takes no arguments (got \"%s\")", sub,
		                       argv[optind + 1]);
	if ((rc = cli_open_repo(st, &env)) < 0 || (rc = cli_load_config(st, &env)) < 0)
		goto cleanup;
	if (!strcmp(sub, "test")) {
		if (!bg_config_alert_count(env.config)) {
			rc = no_alerts(st, &env);
			goto cleanup;
		}
		if ((rc = alert_test(st, &env, &rs, &stats)) < 0)
			goto cleanup;
	} else {
		/* Without targets too: what the outbox still holds for this
		 * project is listed, each with how to give it up. */
		if ((rc = cli_read_store(st, &env)) < 0 ||
		    (rc = bg_alert_flush(st->ctx, env.store, env.config, alert_print_report, &rs,
		                         &stats)) < 0)
			goto cleanup;
		if (!rs.lines && !bg_config_alert_count(env.config)) {
			rc = no_alerts(st, &env);
			goto cleanup;
		}
		if (!rs.lines)
			printf("the outbox holds nothing to deliver\n");
	}
	if (rs.lines)
		printf("%zu delivered, %zu pending, %zu failed, %zu disabled\n", stats.delivered,
		       stats.pending, stats.failed, stats.disabled);
	/* Here delivery is the whole job: trouble is a runtime failure. */
	rc = stats.pending || stats.failed || stats.disabled ? 3 : 0;
cleanup:
	cli_env_clear(&env);
	return rc;
}
