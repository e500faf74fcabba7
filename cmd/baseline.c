/*
 * baseline.c -- `benchguard baseline export|import`: a machine's baseline
 * runs moved through a JSON file meant to be committed under baselines/, so
 * that a CI job whose database starts empty still judges against history.
 * The selection, the format and the checks are the library's
 * (lib/baseline.c); this file parses flags, finds the files and reports.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <json-c/json.h>

#include "cli.h"
#include "internal.h"

enum { OPT_MACHINE = CLI_OPT_BASE + 200, OPT_FORCE };

static const struct option baseline_options[] = {
	{ "output", required_argument, NULL, 'o' },
	{ "machine", required_argument, NULL, OPT_MACHINE },
	{ "force", no_argument, NULL, OPT_FORCE },
	{ "baseline-branch", required_argument, NULL, CLI_OPT_BASELINE_BRANCH },
	{ "window", required_argument, NULL, CLI_OPT_WINDOW },
	{ 0, 0, 0, 0 },
};

typedef struct {
	const char *output, *machine, *branch;
	int window; /* -1: config */
	int force;
} baseline_flags;

static int do_export(cli_state *st, const baseline_flags *fl)
{
	const bg_baseline_cfg *cfg;
	bg_baseline_export_opts o;
	char *json = NULL;
	size_t nruns = 0, nex = 0;
	cli_env env;
	int rc;

	memset(&env, 0, sizeof(env));
	if ((rc = cli_open_repo(st, &env)) < 0 || (rc = cli_load_config(st, &env)) < 0 ||
	    (rc = cli_detect_machine(st, &env, fl->machine)) < 0 ||
	    (rc = cli_read_store(st, &env)) < 0)
		goto cleanup;
	cfg = bg_config_baseline(env.config);
	memset(&o, 0, sizeof(o));
	o.machine = bg_machine_fingerprint(env.machine);
	o.branch = fl->branch ? fl->branch : cfg->branch;
	o.window = fl->window > 0 ? fl->window : cfg->window;
	/* This machine's facts describe the runs only when they are its own. */
	o.facts = fl->machine ? NULL : env.machine;
	if ((rc = cli_branch_hint(
	             st, bg_baseline_export(st->ctx, env.store, env.repo, &o, &json, &nruns),
	             "--baseline-branch")) < 0)
		goto cleanup;
	if (!fl->output || !strcmp(fl->output, "-")) {
		/* Flushed now: "exported" is said only of what was written (a full
		 * disk is main()'s error to report, not a success before it). */
		fputs(json, stdout);
		if (fflush(stdout) != 0 || ferror(stdout))
			goto cleanup;
	} else if ((rc = cli_write_file(st, fl->output, json, strlen(json))) < 0) {
		goto cleanup;
	}
	if (nruns == 0 && bg_store_excluded_count(st->ctx, env.store, o.machine, 0, &nex) == 0 &&
	    nex)
		cli_warn(st,
		         "no complete, clean run of machine %s along %s's history to export but "
		         "%zu excluded ones (exclude --list)",
		         o.machine, o.branch, nex);
	else if (nruns == 0)
		cli_warn(st, "no complete, clean run of machine %s along %s's history to export",
		         o.machine, o.branch);
	cli_info(st, "exported %zu run%s of machine %s (branch %s, window %d)%s%s", nruns,
	         nruns == 1 ? "" : "s", o.machine, o.branch, o.window,
	         fl->output && strcmp(fl->output, "-") ? " to " : "",
	         fl->output && strcmp(fl->output, "-") ? fl->output : "");
	rc = 0;

cleanup:
	free(json);
	cli_env_clear(&env);
	return rc;
}

/* The refusal of one file of another machine: what differs, and the ways on. */
static int refuse_other(cli_state *st, const char *file, const bg_baseline *b, bg_machine *here)
{
	const char *fp = bg_machine_fingerprint(here);
	bg_machine *there = NULL;
	bg_buf diff = BG_BUF_INIT;
	int rc;

	/* A file with no facts (written by hand) would differ in all of them. */
	if ((rc = bg_baseline__facts(b, &there)) < 0 ||
	    (bg_machine_fact_count(there) && (rc = bg_machine__differ(there, here, &diff)) < 0))
		rc = bg_error_oom(st->ctx);
	else
		rc = bg_error_set(st->ctx, BG_EINPUT,
		                  "%s was exported on machine %s, but this machine is %s%s%s "
		                  "(pass --machine %s to store it under that name, or --force "
		                  "to import it as %s)",
		                  file, bg_baseline_machine(b), fp,
		                  diff.ptr ? "; facts that differ, file -> here: " : "",
		                  diff.ptr ? diff.ptr : "", bg_baseline_machine(b), fp);
	bg_machine_free(there);
	bg_buf_clear(&diff);
	return rc;
}

/* Whether --machine NAME would take `name` (lib/machine.c says which). */
static int usable_name(const char *name)
{
	bg_machine *m = NULL;
	int ok = bg_machine_new(&m) == 0 && bg_machine_set_name(m, name) == 0;

	bg_machine_free(m);
	return ok;
}

/*
 * Imports FILE... : every file is read and checked before the database is
 * opened, and their runs are stored in one transaction (all or none).  A
 * file exported on another machine is refused when it is the only one;
 * among several (a baselines/ folder with a file per kind of runner) it is
 * skipped with a note, as long as one is this machine's.
 */
static int do_import(cli_state *st, const baseline_flags *fl, char **files, int nfiles)
{
	bg_baseline **b = NULL, **take = NULL;
	char *data = NULL;
	size_t len = 0, *imported = NULL, *present = NULL, ntake = 0, k;
	const char *fp;
	json_object *arr = NULL;
	cli_env env;
	int rc, i, mine = 0;

	memset(&env, 0, sizeof(env));
	if (!(b = calloc((size_t)nfiles, sizeof(*b)))) {
		rc = bg_error_oom(st->ctx);
		goto cleanup;
	}
	for (i = 0; i < nfiles; i++) {
		if ((rc = cli_read_input(st, files[i], &data, &len)) < 0) {
			/* A file that cannot be read is bad input; Ctrl-C is not. */
			if (bg_ctx_cancelled(st->ctx))
				rc = bg_error_set(st->ctx, BG_ERROR,
				                  "interrupted; nothing imported");
			else
				rc = bg_error_set(st->ctx, BG_EINPUT, "%s", bg_ctx_error(st->ctx));
			goto cleanup;
		}
		if ((rc = bg_baseline_parse(st->ctx, files[i], data, len, &b[i])) < 0)
			goto cleanup;
		free(data);
		data = NULL;
	}
	/* The repository only places the default database; git history is not needed. */
	if ((!st->db_path && (rc = cli_open_repo(st, &env)) < 0) ||
	    (rc = cli_detect_machine(st, &env, fl->machine)) < 0)
		goto cleanup;
	fp = bg_machine_fingerprint(env.machine);
	for (i = 0; i < nfiles; i++)
		mine += !strcmp(fp, bg_baseline_machine(b[i]));
	if (!mine && !fl->force) {
		if (nfiles == 1 && !usable_name(bg_baseline_machine(b[0])))
			/* Stored by an older benchguard under a name this one
			 * refuses ("all", which report reads as every machine). */
			rc = bg_error_set(
			        st->ctx, BG_EINPUT,
			        "%s was exported on machine %s, but this machine is %s; "
			        "that name is not one a machine may have now (pass --force to "
			        "import it as %s, or --force --machine NAME to import it under a "
			        "name of your own)",
			        files[0], bg_baseline_machine(b[0]), fp, fp);
		else if (nfiles == 1)
			rc = refuse_other(st, files[0], b[0], env.machine);
		else
			rc = bg_error_set(st->ctx, BG_EINPUT,
			                  "none of the %d files was exported on this machine, %s "
			                  "(%s: %s, ...; pass --machine NAME to import one under "
			                  "its name, or --force to import them as %s)",
			                  nfiles, fp, files[0], bg_baseline_machine(b[0]), fp);
		goto cleanup;
	}
	if ((rc = cli_open_store(st, &env)) < 0)
		goto cleanup;
	if (st->format == CLI_JSON && nfiles > 1 && !(arr = json_object_new_array())) {
		rc = bg_error_oom(st->ctx);
		goto cleanup;
	}
	/* The files to import, stored together: all of them or none. */
	take = calloc((size_t)nfiles, sizeof(*take));
	imported = calloc((size_t)nfiles, sizeof(*imported));
	present = calloc((size_t)nfiles, sizeof(*present));
	if (!take || !imported || !present) {
		rc = bg_error_oom(st->ctx);
		goto cleanup;
	}
	for (i = 0; i < nfiles; i++)
		if (!strcmp(fp, bg_baseline_machine(b[i])) || fl->force)
			take[ntake++] = b[i];
	if ((rc = bg_baseline_import_all(st->ctx, env.store, (const bg_baseline *const *)take,
	                                 ntake, fp, fl->force, imported, present)) < 0)
		goto cleanup;
	for (i = 0, k = 0; i < nfiles; i++) {
		const char *theirs = bg_baseline_machine(b[i]);
		int skip = strcmp(fp, theirs) && !fl->force;
		size_t got = skip ? 0 : imported[k], had = skip ? 0 : present[k];

		k += !skip;
		if (skip)
			cli_info(st, "skipped %s: exported on machine %s, not this one (%s)",
			         files[i], theirs, fp);
		else if (strcmp(fp, theirs) && got)
			cli_warn(st, "runs of machine %s were imported as machine %s (--force)",
			         theirs, fp);
		if (st->format == CLI_JSON) {
			json_object *o = json_object_new_object();

			json_object_object_add(o, "file", json_object_new_string(files[i]));
			json_object_object_add(o, "machine",
			                       json_object_new_string(skip ? theirs : fp));
			json_object_object_add(o, "imported", json_object_new_int64((int64_t)got));
			json_object_object_add(o, "present", json_object_new_int64((int64_t)had));
			json_object_object_add(o, "skipped", json_object_new_boolean(skip));
			if (!arr) {
				rc = cli_print_json(st, o);
				goto cleanup;
			}
			json_object_array_add(arr, o);
		} else if (!skip) {
			char *shown = bg_text__escaped(BG_ESC_TERM, files[i]);

			printf("imported %zu run%s (%zu already present) from %s\n", got,
			       got == 1 ? "" : "s", had, shown ? shown : "?");
			free(shown);
		}
	}
	rc = arr ? cli_print_json(st, arr) : 0;
	arr = NULL;

cleanup:
	json_object_put(arr);
	for (i = 0; b && i < nfiles; i++)
		bg_baseline_free(b[i]);
	free(b);
	free(take);
	free(imported);
	free(present);
	free(data);
	cli_env_clear(&env);
	return rc;
}

int cmd_baseline(cli_state *st, int argc, char **argv)
{
	const cli_command *self = cli_find_command("baseline");
	baseline_flags fl;
	const char *action;
	int opt, export_only = 0;

	memset(&fl, 0, sizeof(fl));
	fl.window = -1;
	while ((opt = cli_getopt(st, argc, argv, "o:", baseline_options, self)) != -1) {
		switch (opt) {
		case 'h':
			return 0;
		case '?':
			return BG_EINPUT;
		case 'o':
			if (!*optarg)
				return cli_usage_error(st, "-o needs a file name");
			fl.output = optarg;
			export_only = 1;
			break;
		case OPT_MACHINE:
			fl.machine = optarg;
			break;
		case OPT_FORCE:
			fl.force = 1;
			break;
		case CLI_OPT_BASELINE_BRANCH:
			fl.branch = optarg;
			export_only = 1;
			break;
		case CLI_OPT_WINDOW:
			if (cli_parse_count(st, "--window", optarg, 2, &fl.window) < 0)
				return BG_EINPUT;
			export_only = 1;
			break;
		}
	}
	/* argv[0] is "baseline"; getopt moved the words after the options. */
	if (optind >= argc)
		return cli_usage_error(st, "baseline needs export or import (see benchguard help "
		                           "baseline)");
	action = argv[optind];
	if (!strcmp(action, "export")) {
		if (fl.force)
			return cli_usage_error(st, "--force is an option of baseline import");
		if (optind + 1 < argc)
			return cli_usage_error(st,
			                       "baseline export takes no file (write one with -o "
			                       "FILE; got \"%s\")",
			                       argv[optind + 1]);
		return do_export(st, &fl);
	}
	if (!strcmp(action, "import")) {
		if (export_only)
			return cli_usage_error(st,
			                       "-o, --baseline-branch and --window are options of "
			                       "baseline export");
		if (optind + 1 >= argc)
			return cli_usage_error(st, "baseline import needs a FILE");
		return do_import(st, &fl, argv + optind + 1, argc - optind - 1);
	}
	return cli_usage_error(st, "baseline: unknown action \"%s\" (expected export or import)",
	                       action);
}
