/*
 * history.c -- `benchguard history SERIES`: the run summaries of a series
 * (or of every metric of a benchmark), newest first, with the commit and
 * machine of each run, whether it was dirty, incomplete, one side of a
 * paired measurement or excluded, and the verdict `ci` recorded for it.
 */
#include <stdlib.h>
#include <string.h>

#include <json-c/json.h>

#include "cli.h"
#include "internal.h"
#include "jsonx.h"

enum { OPT_LIMIT = CLI_OPT_BASE };

static const struct option history_options[] = {
	{ "limit", required_argument, NULL, OPT_LIMIT },
	{ 0, 0, 0, 0 },
};

static const char *row_status(const bg_history_row *r, char *buf, size_t len)
{
	const char *s;

	/* Both of a paired run on a dirty tree (ci's candidate side there):
	 * "dirty" says why it is no baseline, "paired" what it was for. */
	if (!r->complete)
		s = "incomplete";
	else if (r->paired)
		s = r->dirty ? "paired, dirty" : "paired";
	else
		s = r->dirty ? "dirty" : "ok";
	/* Set aside by hand (exclude): whatever it was, it counts no more. */
	if (!r->excluded)
		return s;
	if (!strcmp(s, "ok"))
		return "excluded";
	snprintf(buf, len, "%s, excluded", s);
	return buf;
}

/* What ci decided for the run, as the report says it: "-" when no ci judged it. */
static const char *row_verdict(const bg_history_row *r)
{
	if (!r->recorded)
		return "-";
	if (r->confirm == BG_CONFIRM_NOT_CONFIRMED && r->verdict == BG_VERDICT_UNCHANGED)
		return "flagged, not confirmed";
	return bg_verdict_name(r->verdict);
}

static int print_json(cli_state *st, const bg_history_row *rows, size_t n)
{
	json_object *arr = json_object_new_array();
	size_t i;

	for (i = 0; i < n; i++) {
		const bg_history_row *r = &rows[i];
		json_object *o = json_object_new_object();
		char name[CLI_SERIES_MAX];

		snprintf(name, sizeof(name), "%s:%s", r->benchmark, r->metric);
		json_object_object_add(o, "run", json_object_new_int64(r->run_id));
		json_object_object_add(o, "series", json_object_new_string(name));
		json_object_object_add(o, "commit", json_object_new_string(r->sha));
		json_object_object_add(o, "branch", bg_json__str(NULL, r->branch));
		json_object_object_add(o, "subject", bg_json__str(NULL, r->subject));
		json_object_object_add(o, "machine", json_object_new_string(r->machine));
		json_object_object_add(o, "dirty", json_object_new_boolean(r->dirty));
		json_object_object_add(o, "complete", json_object_new_boolean(r->complete));
		json_object_object_add(o, "started_at", json_object_new_int64(r->started_at));
		json_object_object_add(o, "unit", json_object_new_string(r->unit));
		json_object_object_add(o, "direction",
		                       json_object_new_string(bg_direction_name(r->direction)));
		json_object_object_add(o, "n", json_object_new_int64((int64_t)r->summary.n));
		json_object_object_add(o, "mean", json_object_new_double(r->summary.mean));
		json_object_object_add(o, "median", json_object_new_double(r->summary.median));
		json_object_object_add(o, "stddev", json_object_new_double(r->summary.stddev));
		json_object_object_add(o, "min", json_object_new_double(r->summary.min));
		json_object_object_add(o, "max", json_object_new_double(r->summary.max));
		json_object_object_add(o, "paired", json_object_new_boolean(r->paired));
		/* Set aside (exclude), and why (null when it counts). */
		json_object_object_add(o, "excluded", json_object_new_boolean(r->excluded != NULL));
		json_object_object_add(o, "exclude_reason", bg_json__str(NULL, r->excluded));
		/* ci's verdict for this run, when ci judged it. */
		json_object_object_add(
		        o, "verdict",
		        r->recorded ? json_object_new_string(bg_verdict_name(r->verdict)) : NULL);
		if (r->recorded) {
			json_object_object_add(o, "first_verdict",
			                       json_object_new_string(bg_verdict_name(r->first)));
			json_object_object_add(
			        o, "confirmation",
			        json_object_new_string(bg_confirm_status_name(r->confirm)));
		}
		json_object_array_add(arr, o);
	}
	return cli_print_json(st, arr);
}

static int print_table(cli_state *st, const bg_history_row *rows, size_t n)
{
	static const char *const head[] = { "run",     "series", "commit",    "branch", "date",
		                            "machine", "n",      "mean",      "stddev", "min",
		                            "max",     "status", "ci verdict" };
	bg_table *t = bg_table_new(13, head, "rlllllrrrrrll");
	size_t i;

	if (!t)
		return bg_error_oom(st->ctx);
	for (i = 0; i < n; i++) {
		const bg_history_row *r = &rows[i];
		char id[24], name[CLI_SERIES_MAX], sha[13], date[32], cnt[24], mean[48], sd[48],
		        mn[48], mx[48], status[48];
		const char *cells[13];

		snprintf(id, sizeof(id), "%lld", (long long)r->run_id);
		snprintf(name, sizeof(name), "%s:%s", r->benchmark, r->metric);
		snprintf(sha, sizeof(sha), "%.12s", r->sha);
		cli_fmt_time(date, sizeof(date), r->started_at);
		snprintf(cnt, sizeof(cnt), "%zu", r->summary.n);
		bg_unit_format(mean, sizeof(mean), r->summary.mean, r->unit);
		bg_unit_format(sd, sizeof(sd), r->summary.stddev, r->unit);
		bg_unit_format(mn, sizeof(mn), r->summary.min, r->unit);
		bg_unit_format(mx, sizeof(mx), r->summary.max, r->unit);
		cells[0] = id;
		cells[1] = name;
		cells[2] = sha;
		cells[3] = r->branch ? r->branch : "-";
		cells[4] = date;
		cells[5] = r->machine;
		cells[6] = cnt;
		cells[7] = mean;
		cells[8] = sd;
		cells[9] = mn;
		cells[10] = mx;
		cells[11] = row_status(r, status, sizeof(status));
		cells[12] = row_verdict(r);
		bg_table_add(t, cells);
	}
	cli_table_print(st, t, stdout);
	bg_table_free(t);
	return 0;
}

int cmd_history(cli_state *st, int argc, char **argv)
{
	const cli_command *self = cli_find_command("history");
	bg_history_row *rows = NULL;
	size_t n = 0;
	int limit = 20, opt, rc = 0;
	cli_env env;

	memset(&env, 0, sizeof(env));
	while ((opt = cli_getopt(st, argc, argv, "", history_options, self)) != -1) {
		if (opt == 'h')
			return 0;
		if (opt == '?')
			return BG_EINPUT;
		if (opt == OPT_LIMIT &&
		    (rc = cli_parse_count(st, "--limit", optarg, 0, &limit)) < 0)
			return rc;
	}
	if (optind + 1 != argc)
		return cli_usage_error(st,
		                       "history needs one SERIES (benchmark:metric or benchmark)");
	/* --db alone is enough: history needs no repository then. */
	if (!st->db_path && (rc = cli_open_repo(st, &env)) < 0)
		goto cleanup;
	if ((rc = cli_read_store(st, &env)) < 0 ||
	    (rc = bg_store_history(st->ctx, env.store, argv[optind], (size_t)limit, &rows, &n)) < 0)
		goto cleanup;
	rc = st->format == CLI_JSON ? print_json(st, rows, n) : print_table(st, rows, n);
cleanup:
	bg_history_free(rows, n);
	cli_env_clear(&env);
	return rc;
}
