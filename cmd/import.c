/*
 * import.c -- `benchguard import FILE --format F`: store results that were
 * produced elsewhere (a Google Benchmark, nvbench, hyperfine or
 * pytest-benchmark JSON file, `go test -bench` output, Catch2's XML,
 * `perf stat -x,` CSV, a log of BENCHGUARD lines) as one run, under a
 * commit and a machine.  The file is parsed completely before anything is
 * written, so bad input stores nothing.
 */
#include <libgen.h>
#include <stdlib.h>
#include <string.h>

#include <json-c/json.h>

#include "cli.h"
#include "internal.h"

enum { OPT_FORMAT_IN = CLI_OPT_BASE, OPT_COMMIT, OPT_MACHINE, OPT_NAME, OPT_TAG };

static const struct option import_options[] = {
	/* Here --format names the input format; it shadows the global one
	 * (a command's own options are matched first), so output takes --json. */
	{ "format", required_argument, NULL, OPT_FORMAT_IN },
	{ "commit", required_argument, NULL, OPT_COMMIT },
	{ "machine", required_argument, NULL, OPT_MACHINE },
	{ "name", required_argument, NULL, OPT_NAME },
	{ "tag", required_argument, NULL, OPT_TAG },
	{ 0, 0, 0, 0 },
};

/* "dir/r.json" -> "dir": where the files an nvbench JSON names lie. */
static char *parent_dir(const char *path)
{
	char *copy = strdup(path), *out;

	if (!copy)
		return NULL;
	out = strdup(dirname(copy));
	free(copy);
	return out;
}

/* "dir/sort-results.txt" -> "sort-results". */
static char *stem(const char *path)
{
	char *copy = strdup(path), *base, *dot, *out;

	if (!copy)
		return NULL;
	base = basename(copy);
	dot = strrchr(base, '.');
	if (dot && dot != base)
		*dot = '\0';
	out = strdup(base);
	free(copy);
	return out;
}

int cmd_import(cli_state *st, int argc, char **argv)
{
	const cli_command *self = cli_find_command("import");
	const char *format = NULL, *rev = NULL, *machine = NULL, *name = NULL, *file = NULL;
	const char **tags = NULL;
	char *data = NULL, *bench = NULL, *dir = NULL, formats[128];
	size_t len = 0, ntags = 0, i, nsamples = 0, nskipped = 0;
	bg_format fmt;
	bg_results *res = NULL;
	bg_commit commit;
	cli_env env;
	int64_t run_id = 0;
	int opt, rc = 0;

	memset(&env, 0, sizeof(env));
	memset(&commit, 0, sizeof(commit));
	tags = calloc((size_t)argc + 1, sizeof(char *));
	if (!tags)
		return bg_error_oom(st->ctx);
	while ((opt = cli_getopt(st, argc, argv, "", import_options, self)) != -1) {
		switch (opt) {
		case 'h':
			goto cleanup;
		case '?':
			rc = BG_EINPUT;
			goto cleanup;
		case OPT_FORMAT_IN:
			format = optarg;
			break;
		case OPT_COMMIT:
			rev = optarg;
			break;
		case OPT_MACHINE:
			machine = optarg;
			break;
		case OPT_NAME:
			name = optarg;
			break;
		case OPT_TAG:
			if ((rc = cli_add_tag(st, optarg, tags, &ntags)) < 0)
				goto cleanup;
			break;
		}
	}
	if (optind + 1 != argc) {
		rc = cli_usage_error(st, optind >= argc ? "import needs a FILE"
		                                        : "import takes one FILE");
		goto cleanup;
	}
	file = argv[optind];
	if (!format) {
		rc = cli_usage_error(st, "import needs --format, one of %s",
		                     bg_format__list(BG_FORMAT_LINES, formats, sizeof(formats)));
		goto cleanup;
	}
	if (bg_format_from_name(format, &fmt) < 0 || fmt == BG_FORMAT_TIME) {
		rc = cli_usage_error(st, "--format: unknown input format \"%s\" (expected %s)",
		                     format,
		                     bg_format__list(BG_FORMAT_LINES, formats, sizeof(formats)));
		goto cleanup;
	}
	if (name)
		bench = strdup(name);
	else if (fmt == BG_FORMAT_LINES || fmt == BG_FORMAT_PERFSTAT)
		bench = stem(strcmp(file, "-") ? file : "stdin");
	if (strcmp(file, "-") != 0)
		dir = parent_dir(file);
	if (((name || fmt == BG_FORMAT_LINES || fmt == BG_FORMAT_PERFSTAT) && !bench) ||
	    (strcmp(file, "-") != 0 && !dir)) {
		rc = bg_error_oom(st->ctx);
		goto cleanup;
	}

	/* Everything that can reject the input happens before the store opens. */
	if ((rc = cli_read_input(st, file, &data, &len)) < 0) {
		/* A file that cannot be read is bad input; Ctrl-C is not. */
		if (bg_ctx_cancelled(st->ctx))
			rc = bg_error_set(st->ctx, BG_ERROR, "interrupted; nothing stored");
		else
			rc = bg_error_set(st->ctx, BG_EINPUT, "%s", bg_ctx_error(st->ctx));
		goto cleanup;
	}
	if ((rc = bg_results_new(&res)) < 0 ||
	    (rc = bg_format_parse_at(st->ctx, fmt, file, bench, dir, data, len, res)) < 0)
		goto cleanup;
	/* The suite's config, where there is one: its benchmarks' metric
	 * directions judge what is imported for them, as they judge a run. */
	if ((rc = cli_open_repo(st, &env)) < 0 || (rc = cli_load_config_if_any(st, &env)) < 0)
		goto cleanup;
	bg_config__apply_directions(env.config, res);
	/* A commit named is stored as a run at it would be: never as dirty,
	 * on HEAD's branch for HEAD, on the baseline branch for a SHA on its
	 * line. */
	rc = rev ? cli_lookup_commit(st, &env, rev, &commit)
	         : bg_repo_head(st->ctx, env.repo, &commit);
	if (rc < 0 || (rc = cli_detect_machine(st, &env, machine)) < 0 ||
	    (rc = cli_open_store(st, &env)) < 0)
		goto cleanup;
	/* As run says it: a dirty run is never a baseline, and the user who
	 * imported results measured elsewhere may not know the tree is. */
	cli_warn_dirty(st, &commit);
	{
		bg_run_info info = {
			.commit = &commit, .machine = env.machine, .source = "import", .tags = tags
		};
		const bg_results *one = res;

		/* One transaction: a series the store refuses leaves no run behind. */
		if ((rc = bg_store_runs_put(st->ctx, env.store, &info, &one, 1, 0, &run_id, NULL)) <
		    0)
			goto cleanup;
	}
	for (i = 0; i < bg_results_series_count(res); i++)
		nsamples += bg_results_series(res, i)->n;
	for (i = 0; i < bg_results_outcome_count(res); i++)
		nskipped += bg_results_outcome(res, i)->status == BG_BENCH_SKIPPED;
	if (st->format == CLI_JSON) {
		json_object *o = json_object_new_object();

		json_object_object_add(o, "run", json_object_new_int64(run_id));
		json_object_object_add(o, "commit", json_object_new_string(commit.sha));
		json_object_object_add(o, "machine",
		                       json_object_new_string(bg_machine_fingerprint(env.machine)));
		json_object_object_add(
		        o, "series", json_object_new_int64((int64_t)bg_results_series_count(res)));
		json_object_object_add(o, "samples", json_object_new_int64((int64_t)nsamples));
		json_object_object_add(o, "skipped", json_object_new_int64((int64_t)nskipped));
		rc = cli_print_json(st, o);
	} else {
		char skipped[48] = "";

		if (nskipped)
			snprintf(skipped, sizeof(skipped), ", %zu skipped", nskipped);
		printf("imported run %lld: %zu series, %zu sample%s%s (commit %.12s, machine %s)\n",
		       (long long)run_id, bg_results_series_count(res), nsamples,
		       nsamples == 1 ? "" : "s", skipped, commit.sha,
		       bg_machine_fingerprint(env.machine));
	}

cleanup:
	free(tags);
	free(data);
	free(bench);
	free(dir);
	bg_results_free(res);
	bg_commit_clear(&commit);
	cli_env_clear(&env);
	return rc;
}
