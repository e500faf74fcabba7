/*
 * db.c -- `benchguard db`: the results store itself.  `db copy SRC DST`
 * copies a whole store between two databases of either backend (a cached
 * SQLite file into a fleet's PostgreSQL database, or back); `db info`
 * names the database in use, its backend and schema version.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <json-c/json.h>

#include "cli.h"
#include "internal.h"

static int db_copy(cli_state *st, const char *from, const char *to)
{
	bg_store *src = NULL, *dst = NULL;
	bg_copy_stats stats;
	int rc;

	if ((rc = bg_store_open_source(st->ctx, from, &src)) < 0 ||
	    (rc = bg_store_open(st->ctx, to, &dst)) < 0 ||
	    (rc = bg_store_copy(st->ctx, src, dst, &stats)) < 0)
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

		/* ci's verdicts on runs copied before, recorded since (a copy
		 * taken while ci measured again in pairs). */
		if (stats.checks_since)
			snprintf(since, sizeof(since), ", ci's verdict on %zu of them added",
			         stats.checks_since);
		printf("copied %zu run%s from %s to %s (%zu already there%s), %zu build%s, "
		       "%zu alert%s\n",
		       stats.runs_copied, stats.runs_copied == 1 ? "" : "s", bg_store_name(src),
		       bg_store_name(dst), stats.runs_present, since, stats.builds,
		       stats.builds == 1 ? "" : "s", stats.alerts, stats.alerts == 1 ? "" : "s");
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
	if ((rc = cli_read_store(st, &env)) < 0)
		goto cleanup;
	if (st->format == CLI_JSON) {
		json_object *top = json_object_new_object();

		json_object_object_add(top, "database",
		                       json_object_new_string(bg_store_name(env.store)));
		json_object_object_add(top, "backend",
		                       json_object_new_string(bg_store_backend(env.store)));
		json_object_object_add(top, "schema_version",
		                       json_object_new_int(bg_store_schema_version(env.store)));
		rc = cli_print_json(st, top);
	} else {
		printf("database        %s\nbackend         %s\nschema version  %d\n",
		       bg_store_name(env.store), bg_store_backend(env.store),
		       bg_store_schema_version(env.store));
	}
cleanup:
	cli_env_clear(&env);
	return rc;
}

int cmd_db(cli_state *st, int argc, char **argv)
{
	static const struct option none[] = { { 0, 0, 0, 0 } };
	const cli_command *self = cli_find_command("db");
	int opt;

	while ((opt = cli_getopt(st, argc, argv, "", none, self)) != -1) {
		if (opt == 'h')
			return 0;
		if (opt == '?')
			return BG_EINPUT;
	}
	if (optind >= argc)
		return cli_usage_error(st, "db needs a subcommand: copy or info");
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
	return cli_usage_error(st, "unknown db subcommand \"%s\" (copy or info)", argv[optind]);
}
