/*
 * gc.c -- `benchguard gc`: reclaims the worktree cache of pinned commits.
 * Checkouts unused for longer than --max-age go, then the least recently
 * used until the cache fits in --max-size; those a running benchguard uses
 * stay.  Prints each checkout (or build log left without one) and what
 * became of it.
 */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include <json-c/json.h>

#include "cli.h"
#include "internal.h"

enum { OPT_MAX_AGE = CLI_OPT_BASE, OPT_MAX_SIZE, OPT_DRY_RUN };

static const struct option gc_options[] = {
	{ "max-age", required_argument, NULL, OPT_MAX_AGE },
	{ "max-size", required_argument, NULL, OPT_MAX_SIZE },
	{ "dry-run", no_argument, NULL, OPT_DRY_RUN },
	{ 0, 0, 0, 0 },
};

/* "14d", "14" (days), "12h", "0d" -> seconds. */
static int parse_age(cli_state *st, const char *arg, int64_t *out)
{
	char *end;
	double v;

	errno = 0;
	v = cli_strtod_plain(arg, &end);
	if (end == arg || errno || !(v >= 0) || v > 1e6)
		goto bad;
	if (!strcmp(end, "") || !strcmp(end, "d"))
		v *= 86400;
	else if (!strcmp(end, "h"))
		v *= 3600;
	else
		goto bad;
	*out = (int64_t)v;
	return 0;
bad:
	return cli_usage_error(st, "--max-age needs days like 14d (or hours, 12h), got \"%s\"",
	                       arg);
}

/* "20G", "512M", "100K", "1024" (bytes); a trailing "B" or "iB" is fine. */
static int parse_size(cli_state *st, const char *arg, uint64_t *out)
{
	static const char units[] = "KMGT";
	const char *u = NULL;
	char *end;
	double v;

	errno = 0;
	v = cli_strtod_plain(arg, &end);
	if (end == arg || errno || !(v >= 0))
		goto bad;
	if (*end && (u = strchr(units, *end)) != NULL) {
		v *= pow(1024.0, (double)(u - units + 1));
		end++;
		if (!strcmp(end, "iB") || !strcmp(end, "B"))
			end += strlen(end);
	} else if (!strcmp(end, "B")) {
		end++;
	}
	/* 1.5G is a size; 1.5 bytes is not, and was taken as 1. */
	if (*end || v >= 1.8e19 || (!u && v > floor(v)))
		goto bad;
	*out = (uint64_t)v;
	return 0;
bad:
	return cli_usage_error(st, "--max-size needs a size like 20G, 512M or 100K (got \"%s\")",
	                       arg);
}

typedef struct {
	cli_state *st;
	bg_table *table;
	json_object *list;
	int dry_run;
} gc_print;

static const char *fate_name(bg_gc_fate fate, int dry_run)
{
	if (fate == BG_GC_REMOVED)
		return dry_run ? "would remove" : "removed";
	return fate == BG_GC_IN_USE ? "in use" : "kept";
}

static void on_entry(const char *sha, int64_t last_used, uint64_t bytes, bg_gc_fate fate,
                     void *data)
{
	gc_print *p = data;
	char used[32], size[32], commit[16];

	cli_fmt_time(used, sizeof(used), last_used);
	if (p->list) {
		json_object *o = json_object_new_object();
		json_object_object_add(o, "commit", json_object_new_string(sha));
		json_object_object_add(o, "last_used", json_object_new_string(used));
		json_object_object_add(o, "bytes", json_object_new_int64((int64_t)bytes));
		json_object_object_add(o, "action",
		                       json_object_new_string(fate_name(fate, p->dry_run)));
		json_object_array_add(p->list, o);
		return;
	}
	bg_unit_format(size, sizeof(size), (double)bytes, "B");
	snprintf(commit, sizeof(commit), "%.12s", sha);
	{
		const char *row[] = { commit, used, size, fate_name(fate, p->dry_run) };
		bg_table_add(p->table, row);
	}
}

int cmd_gc(cli_state *st, int argc, char **argv)
{
	static const char *const headers[] = { "commit", "last used", "size", "action" };
	const cli_command *self = cli_find_command("gc");
	int64_t max_age = 14 * 86400;
	uint64_t max_size = (uint64_t)20 << 30;
	int opt, rc = 0, dry_run = 0;
	char *cache = NULL;
	bg_gc_stats stats;
	gc_print p;
	cli_env env;

	memset(&env, 0, sizeof(env));
	memset(&p, 0, sizeof(p));
	while ((opt = cli_getopt(st, argc, argv, "", gc_options, self)) != -1) {
		if (opt == 'h')
			goto cleanup;
		if (opt == '?') {
			rc = BG_EINPUT;
			goto cleanup;
		}
		if (opt == OPT_MAX_AGE && (rc = parse_age(st, optarg, &max_age)) < 0)
			goto cleanup;
		if (opt == OPT_MAX_SIZE && (rc = parse_size(st, optarg, &max_size)) < 0)
			goto cleanup;
		if (opt == OPT_DRY_RUN)
			dry_run = 1;
	}
	if (optind < argc) {
		rc = cli_usage_error(st, "gc takes no arguments (got \"%s\")", argv[optind]);
		goto cleanup;
	}
	/* Outside a repository, $BENCHGUARD_CACHE alone says where the cache is. */
	if ((!getenv("BENCHGUARD_CACHE") || !*getenv("BENCHGUARD_CACHE")) &&
	    (rc = cli_open_repo(st, &env)) < 0)
		goto cleanup;
	if (!(cache = cli_cache_dir(st, &env))) {
		rc = bg_error_oom(st->ctx);
		goto cleanup;
	}
	p.st = st;
	p.dry_run = dry_run;
	if (st->format == CLI_JSON)
		p.list = json_object_new_array();
	else
		p.table = bg_table_new(4, headers, "llrl");
	if (!p.list && !p.table) {
		rc = bg_error_oom(st->ctx);
		goto cleanup;
	}
	if ((rc = bg_worktree_gc_each(st->ctx, cache, max_age, max_size, dry_run, on_entry, &p,
	                              &stats)) < 0)
		goto cleanup;
	if (p.list) {
		json_object *top = json_object_new_object();
		json_object_object_add(top, "cache", json_object_new_string(cache));
		json_object_object_add(top, "dry_run", json_object_new_boolean(dry_run));
		json_object_object_add(top, "removed",
		                       json_object_new_int64((int64_t)stats.removed));
		json_object_object_add(top, "kept", json_object_new_int64((int64_t)stats.kept));
		json_object_object_add(top, "bytes_freed",
		                       json_object_new_int64((int64_t)stats.bytes_freed));
		json_object_object_add(top, "bytes_kept",
		                       json_object_new_int64((int64_t)stats.bytes_kept));
		json_object_object_add(top, "worktrees", p.list);
		p.list = NULL;
		rc = cli_print_json(st, top);
	} else {
		char freed[32], kept[32];
		char *shown = bg_text__escaped(BG_ESC_TERM, cache);

		if (stats.removed + stats.kept)
			cli_table_print(st, p.table, stdout);
		bg_unit_format(freed, sizeof(freed), (double)stats.bytes_freed, "B");
		bg_unit_format(kept, sizeof(kept), (double)stats.bytes_kept, "B");
		printf("%s %zu worktree%s (%s), kept %zu (%s) in %s\n",
		       dry_run ? "would remove" : "removed", stats.removed,
		       stats.removed == 1 ? "" : "s", freed, stats.kept, kept, shown ? shown : "?");
		free(shown);
	}
cleanup:
	json_object_put(p.list);
	bg_table_free(p.table);
	free(cache);
	cli_env_clear(&env);
	return rc;
}
