/*
 * exclude.c -- `benchguard exclude`: sets stored runs aside, by number or
 * every run of a commit, with a reason, takes that back (--undo), and lists
 * what is set aside (--list).  An excluded run stays in the database and in
 * history; the store leaves it out of every baseline, report and reused pair.
 */
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <json-c/json.h>

#include "cli.h"
#include "internal.h"
#include "jsonx.h"

enum { OPT_REASON = CLI_OPT_BASE, OPT_COMMIT, OPT_MACHINE, OPT_UNDO, OPT_LIST };

static const struct option exclude_options[] = {
	{ "reason", required_argument, NULL, OPT_REASON },
	{ "commit", required_argument, NULL, OPT_COMMIT },
	{ "machine", required_argument, NULL, OPT_MACHINE },
	{ "undo", no_argument, NULL, OPT_UNDO },
	{ "list", no_argument, NULL, OPT_LIST },
	{ 0, 0, 0, 0 },
};

static json_object *run_json(const bg_run_row *r)
{
	json_object *o = json_object_new_object();

	json_object_object_add(o, "run", json_object_new_int64(r->id));
	json_object_object_add(o, "commit", json_object_new_string(r->sha));
	json_object_object_add(o, "branch", bg_json__str(NULL, r->branch));
	json_object_object_add(o, "machine", bg_json__str(NULL, r->machine));
	json_object_object_add(o, "started_at", json_object_new_int64(r->started_at));
	json_object_object_add(o, "excluded", json_object_new_boolean(r->excluded != NULL));
	json_object_object_add(o, "exclude_reason", bg_json__str(NULL, r->excluded));
	json_object_object_add(o, "excluded_at",
	                       r->excluded ? json_object_new_int64(r->excluded_at) : NULL);
	return o;
}

static int print_list(cli_state *st, const bg_run_row *rows, size_t n)
{
	static const char *const head[] = { "run",     "commit",   "branch", "date",
		                            "machine", "excluded", "reason" };
	bg_table *t;
	size_t i;

	if (st->format == CLI_JSON) {
		json_object *arr = json_object_new_array();

		for (i = 0; i < n; i++)
			json_object_array_add(arr, run_json(&rows[i]));
		return cli_print_json(st, arr);
	}
	if (!(t = bg_table_new(7, head, "rllllll")))
		return bg_error_oom(st->ctx);
	for (i = 0; i < n; i++) {
		char id[24], sha[13], date[32], when[32];
		const char *cells[7];

		snprintf(id, sizeof(id), "%lld", (long long)rows[i].id);
		snprintf(sha, sizeof(sha), "%.12s", rows[i].sha);
		cli_fmt_time(date, sizeof(date), rows[i].started_at);
		cli_fmt_time(when, sizeof(when), rows[i].excluded_at);
		cells[0] = id;
		cells[1] = sha;
		cells[2] = rows[i].branch ? rows[i].branch : "-";
		cells[3] = date;
		cells[4] = rows[i].machine;
		cells[5] = when;
		cells[6] = rows[i].excluded;
		bg_table_add(t, cells);
	}
	cli_table_print(st, t, stdout);
	bg_table_free(t);
	return 0;
}

/* The runs named on the command line, each once, in the order given: an
 * unknown one stops the command before anything changes. */
static int runs_by_id(cli_state *st, cli_env *env, int argc, char **argv, bg_run_row **rows,
                      size_t *n)
{
	bg_run_row *r;
	size_t len = 0, j;
	int64_t id;
	int i, rc;

	*rows = NULL;
	*n = 0;
	if (!(r = calloc((size_t)argc, sizeof(*r))))
		return bg_error_oom(st->ctx);
	for (i = 0; i < argc; i++) {
		if ((rc = cli_parse_id(st, "exclude", argv[i], &id)) < 0)
			goto fail;
		for (j = 0; j < len && r[j].id != id; j++)
			;
		if (j < len)
			continue;
		if ((rc = bg_store_run_get(st->ctx, env->store, id, &r[len])) < 0)
			goto fail;
		len++;
	}
	*rows = r;
	*n = len;
	return 0;
fail:
	bg_run_rows_free(r, len);
	return rc;
}

/* Every complete run of REV on the machine (--undo: the excluded ones). */
static int runs_of_commit(cli_state *st, cli_env *env, const char *rev, const char *machine,
                          int undo, bg_run_row **rows, size_t *n)
{
	char name[CLI_TERM_MAX];
	const char *fp;
	bg_commit c;
	int rc;

	memset(&c, 0, sizeof(c));
	if ((rc = cli_open_repo(st, env)) < 0 || (rc = cli_detect_machine(st, env, machine)) < 0)
		goto cleanup;
	/* A whole SHA this clone lacks still names runs another clone stored. */
	if ((rc = bg_repo_lookup(st->ctx, env->repo, rev, &c)) < 0) {
		if (strlen(rev) != 40 || strspn(rev, "0123456789abcdef") != 40)
			goto cleanup;
		bg_ctx_clear_error(st->ctx);
		memcpy(c.sha, rev, 41);
		rc = 0;
	}
	fp = bg_machine_fingerprint(env->machine);
	if ((rc = bg_store_runs_list(st->ctx, env->store, c.sha, fp, undo, rows, n)) < 0)
		goto cleanup;
	if (*n == 0)
		rc = bg_error_set(st->ctx, BG_ENOTFOUND, "no %s run of commit %.12s on machine %s",
		                  undo ? "excluded" : "complete", c.sha,
		                  cli_term(name, sizeof(name), fp));
cleanup:
	bg_commit_clear(&c);
	return rc;
}

int cmd_exclude(cli_state *st, int argc, char **argv)
{
	const cli_command *self = cli_find_command("exclude");
	const char *reason = NULL, *rev = NULL, *machine = NULL;
	bg_run_row *rows = NULL;
	json_object *arr = NULL;
	size_t n = 0, i;
	int opt, rc = 0, undo = 0, list = 0, changed;
	int64_t now = (int64_t)time(NULL);
	cli_env env;

	memset(&env, 0, sizeof(env));
	while ((opt = cli_getopt(st, argc, argv, "", exclude_options, self)) != -1) {
		if (opt == 'h')
			return 0;
		if (opt == '?')
			return BG_EINPUT;
		if (opt == OPT_REASON)
			reason = optarg;
		else if (opt == OPT_COMMIT)
			rev = optarg;
		else if (opt == OPT_MACHINE)
			machine = optarg;
		else if (opt == OPT_UNDO)
			undo = 1;
		else if (opt == OPT_LIST)
			list = 1;
	}
	if (list && (undo || rev || reason || machine || optind < argc))
		return cli_usage_error(st, "--list takes no runs and no other option");
	if (!list && !rev && optind >= argc)
		return cli_usage_error(st,
		                       "exclude needs runs (numbers from history) or --commit REV");
	if (rev && optind < argc)
		return cli_usage_error(st, "exclude takes runs or --commit REV, not both");
	if (machine && !rev)
		return cli_usage_error(st, "--machine goes with --commit");
	if (!list && !undo && !reason)
		return cli_usage_error(st,
		                       "exclude needs --reason TEXT: why these runs are set aside");
	if (undo && reason)
		return cli_usage_error(st, "--undo takes no --reason");

	/* --db alone is enough for run numbers: no repository needed then. */
	if (!st->db_path && (rc = cli_open_repo(st, &env)) < 0)
		goto cleanup;
	if (list) {
		if ((rc = cli_read_store(st, &env)) < 0 ||
		    (rc = bg_store_runs_list(st->ctx, env.store, NULL, NULL, 1, &rows, &n)) < 0)
			goto cleanup;
		rc = print_list(st, rows, n);
		goto cleanup;
	}
	/* The database must hold the runs: it is never created here. */
	if ((rc = cli_read_store(st, &env)) < 0)
		goto cleanup;
	if ((rc = rev ? runs_of_commit(st, &env, rev, machine, undo, &rows, &n)
	              : runs_by_id(st, &env, argc - optind, argv + optind, &rows, &n)) < 0)
		goto cleanup;
	if (st->format == CLI_JSON && !(arr = json_object_new_array())) {
		rc = bg_error_oom(st->ctx);
		goto cleanup;
	}
	for (i = 0; i < n; i++) {
		bg_run_row *r = &rows[i];
		char sha[13], why[CLI_TERM_MAX], branch[CLI_TERM_MAX];
		int64_t id;

		rc = undo ? bg_store_run_include(st->ctx, env.store, r->id, &changed)
		          : bg_store_run_exclude(st->ctx, env.store, r->id, reason, now, &changed);
		if (rc < 0)
			goto cleanup;
		/* As it is now: another process may have excluded it since it
		 * was read, and its reason is the one that stands. */
		id = r->id;
		bg_run_row_clear(r);
		if ((rc = bg_store_run_get(st->ctx, env.store, id, r)) < 0)
			goto cleanup;
		snprintf(sha, sizeof(sha), "%.12s", r->sha);
		if (arr) {
			json_object *o = run_json(r);

			json_object_object_add(o, "changed", json_object_new_boolean(changed));
			json_object_array_add(arr, o);
		} else if (changed) {
			printf("%s run %lld (commit %s on %s)\n", undo ? "included" : "excluded",
			       (long long)r->id, sha,
			       r->branch ? cli_term(branch, sizeof(branch), r->branch)
			                 : "no branch");
		} else if (undo) {
			printf("run %lld was not excluded\n", (long long)r->id);
		} else {
			/* Taken back by another process since: said as it is now. */
			printf("run %lld was excluded already: %s\n", (long long)r->id,
			       r->excluded ? cli_term(why, sizeof(why), r->excluded)
			                   : "(and included again since)");
		}
	}
	if (arr) {
		rc = cli_print_json(st, arr);
		arr = NULL;
	} else {
		rc = 0;
	}
cleanup:
	json_object_put(arr);
	bg_run_rows_free(rows, n);
	cli_env_clear(&env);
	return rc;
}
