/*
 * compare.c -- `benchguard compare A B`: both commits checked out and built
 * in cached worktrees, then run interleaved on this machine in one session,
 * in ABBA order (A B, B A, A B, ...) so that a drift of the machine's speed
 * lands on both sides alike, and B judged against A with the statistics of
 * `check` (K runs a side: the full Welch form).  Only this session's runs
 * are judged: runs of the same commits from other times would bring back
 * the machine's slow drift that interleaving is there to cancel.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include <json-c/json.h>

#include "cli.h"
#include "internal.h"

#define COMPARE_RUNS 8

typedef struct {
	bg_commit commit;
	bg_worktree wt;
	int64_t *ids;
	size_t nids;
} side;

static void side_clear(side *s)
{
	bg_commit_clear(&s->commit);
	bg_worktree_clear(&s->wt);
	free(s->ids);
	memset(s, 0, sizeof(*s));
}

static int print(cli_state *st, const bg_check_result *res, const side *a, const side *b, int k)
{
	json_object *top, *cmp;

	if (st->format != CLI_JSON)
		return cli_check_print(st, res);
	top = cli_check_json(res);
	cmp = json_object_new_object();
	json_object_object_add(cmp, "a", json_object_new_string(a->commit.sha));
	json_object_object_add(cmp, "b", json_object_new_string(b->commit.sha));
	json_object_object_add(cmp, "runs", json_object_new_int(k));
	json_object_object_add(cmp, "order", json_object_new_string("ABBA"));
	json_object_object_add(top, "compare", cmp);
	return cli_print_json(st, top);
}

int cmd_compare(cli_state *st, int argc, char **argv)
{
	static const struct option options[] = { CLI_RUN_LONG_OPTIONS,
		                                 CLI_CHECK_LONG_OPTIONS,
		                                 { 0, 0, 0, 0 } };
	const cli_command *self = cli_find_command("compare");
	bg_check_result *res = NULL;
	cli_run_flags rflags;
	cli_check_flags cflags;
	bg_check_opts o;
	char tag[128];
	side a, b;
	cli_env env;
	int opt, rc = 0, n, k, want, failed = 0;

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
	if ((rc = cli_open_repo(st, &env)) < 0 || (rc = cli_load_config(st, &env)) < 0 ||
	    (rc = cli_detect_machine(st, &env, rflags.machine)) < 0 ||
	    (rc = cli_open_store(st, &env)) < 0)
		goto cleanup;
	if ((rc = cli_prepare_commit(st, &env, argv[optind], 0, &a.commit, &a.wt)) < 0 ||
	    (rc = cli_prepare_commit(st, &env, argv[optind + 1], 0, &b.commit, &b.wt)) < 0)
		goto cleanup;

	a.ids = calloc(2 * (size_t)k, sizeof(*a.ids));
	b.ids = calloc(2 * (size_t)k, sizeof(*b.ids));
	if (!a.ids || !b.ids) {
		rc = bg_error_oom(st->ctx);
		goto cleanup;
	}
	/*
	 * Every run is tagged with the pair it belongs to.  K pairs, judged; a
	 * series that moved by min_change or more without significance leaves
	 * the comparison undecided, as a bisect probe can be, and K more pairs
	 * are run and everything judged again (a noisy moment of a shared
	 * machine can hide a real 10% in 8 pairs).
	 */
	snprintf(tag, sizeof(tag), "compare=%.12s..%.12s", a.commit.sha, b.commit.sha);
	cli_check_opts(&cflags, env.config, &o);
	for (want = k;; want = 2 * k) {
		cli_run_side sa = { &rflags, &a.commit, a.wt.path, tag };
		cli_run_side sb = { &rflags, &b.commit, b.wt.path, tag };

		for (n = (int)a.nids; n < want; n++) {
			cli_info(st, "compare: pair %d of %d (%s first)", n + 1, want,
			         n % 2 ? "B" : "A");
			if ((rc = cli_run_pair(st, &env, n, &sa, &sb, &a.ids[n], &b.ids[n],
			                       &failed)) < 0)
				goto cleanup;
			a.nids = b.nids = (size_t)n + 1;
		}
		o.baseline_branch = NULL;
		o.window = o.min_runs = 2;
		o.paired = 1;
		o.baseline = a.ids;
		o.nbaseline = a.nids;
		o.runs = b.ids;
		o.nruns = b.nids;
		bg_check_result_free(res);
		res = NULL;
		if ((rc = bg_check_run(st->ctx, env.store, env.repo, &o, &res)) < 0)
			goto cleanup;
		if (want > k || !cli_check_ambiguous(res, o.thresholds.min_change, 0))
			break;
		cli_info(st,
		         "compare: a change of at least %.1f%% is not significant in %d pairs; "
		         "running %d more",
		         100 * o.thresholds.min_change, k, k);
	}
	if ((rc = print(st, res, &a, &b, (int)a.nids)) < 0)
		goto cleanup;
	rc = bg_check_exit_code(res);
	/* A benchmark that failed at A alone is not in B's verdict, yet the
	 * comparison is incomplete all the same. */
	if (failed && rc == 0)
		rc = 3;

cleanup:
	bg_check_result_free(res);
	side_clear(&a);
	side_clear(&b);
	cli_run_flags_clear(&rflags);
	cli_env_clear(&env);
	return rc;
}
