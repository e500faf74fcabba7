/*
 * db.c -- `benchguard db`: the results store itself.  `db copy SRC DST`
 * copies a whole store between two databases of either backend (a cached
 * SQLite file into a fleet's PostgreSQL database, or back); `db info`
 * names the database in use, its backend and schema version; `db prune`
 * deletes old runs but the baselines' newest ones.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <json-c/json.h>

#include "cli.h"
#include "internal.h"

static int db_copy(cli_state *st, const char *from, const char *to)
{
	bg_store *src = NULL, *dst = NULL;
	bg_copy_stats stats;
	int rc;

	if ((rc = bg_store_open_source(st->ctx, from, &src)) < 0)
		goto cleanup;
	cli_say_upgraded(st, src);
	if ((rc = bg_store_open(st->ctx, to, &dst)) < 0)
		goto cleanup;
	cli_say_upgraded(st, dst);
	if ((rc = bg_store_copy(st->ctx, src, dst, &stats)) < 0)
		goto cleanup;
	if (st->format == CLI_JSON) {
		json_object *top = json_object_new_object();

		json_object_object_add(top, "from", json_object_new_string(bg_store_name(src)));
		json_object_object_add(top, "to", json_object_new_string(bg_store_name(dst)));
		json_object_object_add(top, "runs_copied",
		                       json_object_new_int64((int64_t)stats.runs_copied));
		json_object_object_add(top, "runs_present",
		                       json_object_new_int64((int64_t)stats.runs_present));
		json_object_object_add(top, "checks_since",
		                       json_object_new_int64((int64_t)stats.checks_since));
		json_object_object_add(top, "builds", json_object_new_int64((int64_t)stats.builds));
		json_object_object_add(top, "alerts", json_object_new_int64((int64_t)stats.alerts));
		rc = cli_print_json(st, top);
	} else {
		char since[96] = "";
		/* Paths are shown, never interpreted by the terminal. */
		char *from_shown = bg_text__escaped(BG_ESC_TERM, bg_store_name(src));
		char *to_shown = bg_text__escaped(BG_ESC_TERM, bg_store_name(dst));

		/* ci's verdicts on runs copied before, recorded since (a copy
		 * taken while ci measured again in pairs). */
		if (stats.checks_since)
			snprintf(since, sizeof(since), ", ci's verdict on %zu of them added",
			         stats.checks_since);
		printf("copied %zu run%s from %s to %s (%zu already there%s), %zu build%s, "
		       "%zu alert%s\n",
		       stats.runs_copied, stats.runs_copied == 1 ? "" : "s",
		       from_shown ? from_shown : "?", to_shown ? to_shown : "?", stats.runs_present,
		       since, stats.builds, stats.builds == 1 ? "" : "s", stats.alerts,
		       stats.alerts == 1 ? "" : "s");
		free(from_shown);
		free(to_shown);
	}
cleanup:
	bg_store_free(dst);
	bg_store_free(src);
	return rc;
}

static int db_info(cli_state *st)
{
	cli_env env;
	int rc;

	memset(&env, 0, sizeof(env));
	/* The database a command run here would use: --db, $BENCHGUARD_DB,
	 * the config's "database", or the repository's file. */
	if (!st->db_path && (rc = cli_open_repo(st, &env)) < 0)
		goto cleanup;
	/* Peeked, not opened: a report on the database must not upgrade it,
	 * which would lock out the older runners that share it. */
	if ((rc = cli_peek_store(st, &env)) < 0)
		goto cleanup;
	if (st->format == CLI_JSON) {
		json_object *top = json_object_new_object();

		json_object_object_add(top, "database",
		                       json_object_new_string(bg_store_name(env.store)));
		json_object_object_add(top, "backend",
		                       json_object_new_string(bg_store_backend(env.store)));
		json_object_object_add(top, "schema_version",
		                       json_object_new_int(bg_store_schema_version(env.store)));
		json_object_object_add(top, "schema_version_current",
		                       json_object_new_int(bg_store_schema_current()));
		rc = cli_print_json(st, top);
	} else {
		int v = bg_store_schema_version(env.store), cur = bg_store_schema_current();
		char *shown = bg_text__escaped(BG_ESC_TERM, bg_store_name(env.store));

		printf("database        %s\nbackend         %s\nschema version  %d",
		       shown ? shown : "?", bg_store_backend(env.store), v);
		free(shown);
		if (v == 0)
			printf(" (no tables yet: the next command that opens it makes version "
			       "%d)\n",
			       cur);
		else if (v < cur)
			printf(" (this benchguard uses %d: the next command that opens the "
			       "database "
			       "upgrades it, and an older benchguard then refuses it)\n",
			       cur);
		else
			printf("\n");
	}
cleanup:
	cli_env_clear(&env);
	return rc;
}

enum { OPT_BEFORE = CLI_OPT_BASE, OPT_WINDOW, OPT_BRANCH, OPT_DRY_RUN };

/* `db prune`'s options, given or not. */
typedef struct {
	const char *before;
	int window;            /* -1: the config's baseline window */
	const char **branches; /* --baseline-branch, each; none: the config's */
	size_t nbranches;
	int dry_run;
} prune_flags;

static int db_prune(cli_state *st, const prune_flags *f)
{
	bg_config *defaults = NULL;
	const bg_config *cfg = NULL;
	bg_prune_policy p;
	bg_prune_stats stats;
	char when[32], name[CLI_TERM_MAX];
	const char *config_branch;
	bg_buf names = BG_BUF_INIT;
	cli_env env;
	size_t i;
	int rc;

	memset(&env, 0, sizeof(env));
	memset(&p, 0, sizeof(p));
	p.now = (int64_t)time(NULL);
	p.dry_run = f->dry_run;
	if ((rc = cli_parse_when(st, "--before", f->before, p.now, &p.before)) < 0)
		return rc;
	if (p.before == 0)
		return cli_usage_error(st,
		                       "--before needs a span or a date: \"all\" keeps everything");
	/* The repository (its branches say what baselines read) and its
	 * config: the baseline branch and window. */
	if ((rc = cli_open_repo(st, &env)) < 0) {
		if (f->window != 0)
			goto cleanup;
		/* --window 0 keeps nothing for baselines: no history needed. */
		bg_ctx_clear_error(st->ctx);
	}
	if ((rc = cli_config_or_defaults(st, &env, &defaults, &cfg)) < 0)
		goto cleanup;
	p.window = f->window >= 0 ? f->window : bg_config_baseline(cfg)->window;
	config_branch = bg_config_baseline(cfg)->branch;
	p.branches = f->nbranches ? f->branches : &config_branch;
	p.nbranches = f->nbranches ? f->nbranches : 1;
	for (i = 0; i < p.nbranches; i++)
		if (bg_buf_printf(&names, "%s%s", i ? ", " : "",
		                  cli_term(name, sizeof(name), p.branches[i])) < 0) {
			rc = bg_error_oom(st->ctx);
			goto cleanup;
		}
	if ((rc = cli_read_store(st, &env)) < 0)
		goto cleanup;
	rc = bg_prune(st->ctx, env.store, env.repo, &p, &stats);
	cli_fmt_time(when, sizeof(when), p.before);
	if (rc < 0) {
		/* What is gone is gone: said before the error main() prints. */
		if (stats.runs)
			cli_warn(st, "deleted %zu run%s before the error", stats.runs,
			         stats.runs == 1 ? "" : "s");
		goto cleanup;
	}
	if (st->format == CLI_JSON) {
		json_object *top = json_object_new_object();

		json_object_object_add(top, "database",
		                       json_object_new_string(bg_store_name(env.store)));
		json_object_object_add(top, "before", json_object_new_int64(p.before));
		json_object_object_add(top, "window", json_object_new_int(p.window));
		json_object *arr = json_object_new_array();

		for (i = 0; i < p.nbranches; i++)
			json_object_array_add(arr, json_object_new_string(p.branches[i]));
		json_object_object_add(top, "baseline_branches", arr);
		json_object_object_add(top, "dry_run", json_object_new_boolean(p.dry_run));
		json_object_object_add(top, "runs", json_object_new_int64((int64_t)stats.runs));
		json_object_object_add(top, "results",
		                       json_object_new_int64((int64_t)stats.results));
		json_object_object_add(top, "samples",
		                       json_object_new_int64((int64_t)stats.samples));
		json_object_object_add(top, "kept", json_object_new_int64((int64_t)stats.kept));
		json_object_object_add(top, "machines",
		                       json_object_new_int64((int64_t)stats.machines));
		json_object_object_add(top, "baselines",
		                       json_object_new_int64((int64_t)stats.starts));
		rc = cli_print_json(st, top);
	} else {
		printf("%s %zu run%s started before %s (%zu result%s, %zu sample%s)",
		       p.dry_run ? "would delete" : "deleted", stats.runs,
		       stats.runs == 1 ? "" : "s", when, stats.results,
		       stats.results == 1 ? "" : "s", stats.samples, stats.samples == 1 ? "" : "s");
		if (p.window > 0)
			printf("; kept %zu older run%s that the baselines of %s read from %zu "
			       "commit%s (branch tips and fork points), on %zu machine%s "
			       "(window %d)\n",
			       stats.kept, stats.kept == 1 ? "" : "s", names.ptr ? names.ptr : "",
			       stats.starts, stats.starts == 1 ? "" : "s", stats.machines,
			       stats.machines == 1 ? "" : "s", p.window);
		else
			printf("; none kept for baselines (--window 0)\n");
	}
cleanup:
	bg_buf_clear(&names);
	bg_config_free(defaults);
	cli_env_clear(&env);
	return rc;
}

/* After the options: which subcommand, with what. */
static int db_dispatch(cli_state *st, int argc, char **argv, int any, const prune_flags *pf)
{
	if (optind >= argc)
		return cli_usage_error(st, "db needs a subcommand: copy, info or prune");
	if (strcmp(argv[optind], "copy") && strcmp(argv[optind], "info") &&
	    strcmp(argv[optind], "prune"))
		return cli_usage_error(st, "unknown db subcommand \"%s\" (copy, info or prune)",
		                       argv[optind]);
	if (strcmp(argv[optind], "prune") && any)
		return cli_usage_error(st, "--before, --window, --baseline-branch and --dry-run go "
		                           "with db prune");
	if (!strcmp(argv[optind], "copy")) {
		if (argc - optind != 3)
			return cli_usage_error(st,
			                       "db copy needs a source and a destination "
			                       "database (got %d argument%s)",
			                       argc - optind - 1,
			                       argc - optind - 1 == 1 ? "" : "s");
		return db_copy(st, argv[optind + 1], argv[optind + 2]);
	}
	if (!strcmp(argv[optind], "info")) {
		if (argc - optind != 1)
			return cli_usage_error(st, "db info takes no arguments");
		return db_info(st);
	}
	if (argc - optind != 1)
		return cli_usage_error(st, "db prune takes no arguments");
	if (!pf->before)
		return cli_usage_error(st, "db prune needs --before SPAN: how old a run may be "
		                           "(e.g. 180d)");
	return db_prune(st, pf);
}

int cmd_db(cli_state *st, int argc, char **argv)
{
	static const struct option db_options[] = {
		{ "before", required_argument, NULL, OPT_BEFORE },
		{ "window", required_argument, NULL, OPT_WINDOW },
		{ "baseline-branch", required_argument, NULL, OPT_BRANCH },
		{ "dry-run", no_argument, NULL, OPT_DRY_RUN },
		{ 0, 0, 0, 0 },
	};
	const cli_command *self = cli_find_command("db");
	prune_flags pf = { NULL, -1, NULL, 0, 0 };
	const char **b;
	int opt, rc = 0, any = 0, done = 0;

	while (!done && (opt = cli_getopt(st, argc, argv, "", db_options, self)) != -1) {
		any = 1;
		switch (opt) {
		case 'h':
			done = 1;
			break;
		case '?':
			rc = BG_EINPUT;
			done = 1;
			break;
		case OPT_BEFORE:
			pf.before = optarg;
			break;
		case OPT_WINDOW:
			if ((rc = cli_parse_count(st, "--window", optarg, 0, &pf.window)) < 0)
				done = 1;
			break;
		case OPT_BRANCH:
			if (!(b = realloc(pf.branches, (pf.nbranches + 1) * sizeof(*b)))) {
				rc = bg_error_oom(st->ctx);
				done = 1;
				break;
			}
			pf.branches = b;
			pf.branches[pf.nbranches++] = optarg;
			break;
		case OPT_DRY_RUN:
			pf.dry_run = 1;
			break;
		}
	}
	if (!done)
		rc = db_dispatch(st, argc, argv, any, &pf);
	free(pf.branches);
	return rc;
}
