/*
 * compare.c -- `benchguard compare A B`: both commits checked out and built
 * in cached worktrees, then measured side by side on this machine by the
 * library's sequential pairs (bg_pairs_run): ABBA order, so that a drift of
 * the machine's speed lands on both sides alike; looks at K pairs, 2K, ...
 * up to --max-runs, alpha split across the looks, each series decided at
 * the first look that can.  Only this session's runs are judged: runs of
 * the same commits from other times would bring back the drift that
 * interleaving is there to cancel.
 */
#include <stdlib.h>
#include <string.h>

#include <json-c/json.h>

#include "cli.h"
#include "internal.h"

#define COMPARE_RUNS 8

enum { OPT_MAX_RUNS = CLI_OPT_BASE + 400 };

typedef struct {
	bg_commit commit;
	bg_worktree wt;
} side;

static void side_clear(side *s)
{
	bg_commit_clear(&s->commit);
	bg_worktree_clear(&s->wt);
	memset(s, 0, sizeof(*s));
}

static void on_pair(size_t k, size_t of, int ref_first, void *data)
{
	cli_info(data, "compare: pair %zu of %zu (%s first)", k, of, ref_first ? "A" : "B");
}

static void on_look(size_t look, size_t looks, size_t pairs, size_t open, double seconds,
                    void *data)
{
	cli_info(data, "compare: look %zu of %zu at %zu pairs: %zu series still open (%.1f s)",
	         look, looks, pairs, open, seconds);
}

static int print(cli_state *st, const bg_check_result *res, const side *a, const side *b)
{
	json_object *top, *cmp;
	char *json = NULL;
	int rc;

	if (st->format != CLI_JSON)
		return cli_check_print(st, res);
	if ((rc = bg_check_json(st->ctx, res, &json)) < 0)
		return rc;
	top = json_tokener_parse(json);
	free(json);
	if (!top)
		return bg_error_oom(st->ctx);
	cmp = json_object_new_object();
	json_object_object_add(cmp, "a", json_object_new_string(a->commit.sha));
	json_object_object_add(cmp, "b", json_object_new_string(b->commit.sha));
	json_object_object_add(cmp, "runs", json_object_new_int(res->window));
	json_object_object_add(cmp, "order", json_object_new_string("ABBA"));
	json_object_object_add(top, "compare", cmp);
	return cli_print_json(st, top);
}

/* Options of the shared tables that compare has no use for. */
static int unused_option(cli_state *st, const char *cmd, int opt)
{
	if (opt == CLI_OPT_BASELINE_BRANCH)
		return cli_not_an_option(st, cmd, "--baseline-branch",
		                         "it judges B against A, not against a baseline");
	return cli_pinned_unused_option(st, cmd, opt);
}

int cmd_compare(cli_state *st, int argc, char **argv)
{
	static const struct option options[] = { CLI_RUN_LONG_OPTIONS,
		                                 CLI_CHECK_LONG_OPTIONS,
		                                 { "max-runs", required_argument, NULL,
		                                   OPT_MAX_RUNS },
		                                 { 0, 0, 0, 0 } };
	const cli_command *self = cli_find_command("compare");
	bg_check_result *res = NULL;
	cli_run_flags rflags;
	cli_check_flags cflags;
	bg_check_opts co;
	bg_pairs_opts po;
	char tag[128];
	side a, b;
	cli_env env;
	int opt, rc = 0, n, k, max_runs = -1;
	size_t nbench = 0;

	memset(&env, 0, sizeof(env));
	memset(&a, 0, sizeof(a));
	memset(&b, 0, sizeof(b));
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
		if (opt == OPT_MAX_RUNS) {
			if ((rc = cli_parse_count(st, "--max-runs", optarg, 2, &max_runs)) < 0)
				goto cleanup;
			continue;
		}
		if ((rc = unused_option(st, "compare", opt)) < 0)
			goto cleanup;
		if ((n = cli_run_option(st, &rflags, argc, opt, optarg)) == 0)
			n = cli_check_option(st, &cflags, opt, optarg);
		if (n < 0) {
			rc = n;
			goto cleanup;
		}
	}
	rc = 0;
	if (argc - optind != 2) {
		rc = cli_usage_error(st, "compare needs two commits: benchguard compare A B");
		goto cleanup;
	}
	if (rflags.commit) {
		rc = cli_usage_error(st, "compare takes its commits as arguments, not --commit");
		goto cleanup;
	}
	if (rflags.nruns < 0)
		rflags.nruns = COMPARE_RUNS;
	if (rflags.nruns < 2) {
		rc = cli_usage_error(st, "compare needs --runs of at least 2 (got %d)",
		                     rflags.nruns);
		goto cleanup;
	}
	k = rflags.nruns;
	/* By default an undecided comparison may double its pairs once. */
	if (max_runs < 0)
		max_runs = 2 * k;
	if (max_runs < k) {
		rc = cli_usage_error(st, "--max-runs %d is less than --runs %d", max_runs, k);
		goto cleanup;
	}
	if ((rc = cli_open_repo(st, &env)) < 0 || (rc = cli_load_config(st, &env)) < 0 ||
	    (rc = cli_detect_machine(st, &env, rflags.machine)) < 0 ||
	    (rc = cli_open_store(st, &env)) < 0 || (rc = bg_store_writable(st->ctx, env.store)) < 0)
		goto cleanup;
	/* A bad --filter or window is a usage error before anything is checked
	 * out or built. */
	if ((rc = cli_check_opts(st, &cflags, env.config, &co)) < 0)
		goto cleanup;
	cli_suite_opts(st, &env, &rflags, &po.run);
	if ((rc = bg_suite_count(st->ctx, &po.run, &nbench)) < 0)
		goto cleanup;
	if (!nbench) {
		rc = cli_usage_error(st, "--filter \"%s\" matches no benchmark", rflags.filter);
		goto cleanup;
	}
	if ((rc = cli_prepare_commit(st, &env, argv[optind], rflags.retry_build, &a.commit,
	                             &a.wt)) < 0 ||
	    (rc = cli_prepare_commit(st, &env, argv[optind + 1], rflags.retry_build, &b.commit,
	                             &b.wt)) < 0)
		goto cleanup;

	/* Every run is tagged with the comparison it belongs to. */
	snprintf(tag, sizeof(tag), "compare=%.12s..%.12s", a.commit.sha, b.commit.sha);
	memset(&po, 0, sizeof(po));
	cli_suite_opts(st, &env, &rflags, &po.run);
	po.run.event = cli_quiet_events();
	po.ref.commit = &a.commit;
	po.ref.cwd = a.wt.path;
	po.ref.tag = tag;
	po.cand.commit = &b.commit;
	po.cand.cwd = b.wt.path;
	po.cand.tag = tag;
	po.first = (size_t)k;
	po.max = (size_t)max_runs;
	po.thresholds = co.thresholds;
	po.look = on_look;
	po.pair = on_pair;
	po.look_data = st;
	if ((rc = bg_pairs_run(st->ctx, env.store, &po, &res)) < 0)
		goto cleanup;
	if ((rc = print(st, res, &a, &b)) < 0)
		goto cleanup;
	rc = bg_check_exit_code(res);

cleanup:
	bg_check_result_free(res);
	side_clear(&a);
	side_clear(&b);
	cli_run_flags_clear(&rflags);
	cli_env_clear(&env);
	return rc;
}
