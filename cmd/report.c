/*
 * report.c -- `benchguard report`: the nightly trend report of a period as
 * HTML (one self-contained file with charts), Markdown or JSON, written to
 * standard output or, whole or not at all, to -o FILE.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>
#include <unistd.h>

#include "cli.h"
#include "internal.h"

enum { OPT_SINCE = CLI_OPT_BASE, OPT_FILTER, OPT_BRANCH, OPT_MACHINE, OPT_FORMAT_OUT, OPT_PAIRED };

static const struct option report_options[] = {
	{ "since", required_argument, NULL, OPT_SINCE },
	{ "filter", required_argument, NULL, OPT_FILTER },
	{ "branch", required_argument, NULL, OPT_BRANCH },
	{ "machine", required_argument, NULL, OPT_MACHINE },
	{ "include-paired", no_argument, NULL, OPT_PAIRED },
	/* Here --format names the report's form; it shadows the global one. */
	{ "format", required_argument, NULL, OPT_FORMAT_OUT },
	{ "output", required_argument, NULL, 'o' },
	{ 0, 0, 0, 0 },
};

/* The form: --format, else the global --json/--format, else -o's extension, else HTML. */
static int pick_format(cli_state *st, const char *name, const char *out, bg_report_format *f)
{
	const char *dot = out ? strrchr(out, '.') : NULL;

	if (name) {
		if (bg_report_format_from_name(name, f) < 0)
			return cli_usage_error(
			        st, "--format must be html, markdown or json (got \"%s\")", name);
		return 0;
	}
	*f = BG_REPORT_HTML;
	if (st->format == CLI_JSON)
		*f = BG_REPORT_JSON;
	else if (st->format == CLI_MARKDOWN)
		*f = BG_REPORT_MARKDOWN;
	else if (dot && (!strcasecmp(dot, ".md") || !strcasecmp(dot, ".markdown")))
		*f = BG_REPORT_MARKDOWN;
	else if (dot && !strcasecmp(dot, ".json"))
		*f = BG_REPORT_JSON;
	return 0;
}

int cmd_report(cli_state *st, int argc, char **argv)
{
	const cli_command *self = cli_find_command("report");
	const char *since_arg = "30d", *filter = NULL, *branch = NULL, *machine = NULL;
	const char *format = NULL, *output = NULL;
	const bg_config *cfg = NULL;
	bg_config *defaults = NULL;
	bg_report *report = NULL;
	bg_report_format fmt;
	size_t nex = 0;
	bg_report_opts o;
	char *text = NULL;
	size_t len = 0;
	cli_env env;
	int opt, rc = 0;

	memset(&env, 0, sizeof(env));
	memset(&o, 0, sizeof(o));
	o.now = (int64_t)time(NULL);
	while ((opt = cli_getopt(st, argc, argv, "o:", report_options, self)) != -1) {
		switch (opt) {
		case 'h':
			return 0;
		case '?':
			return BG_EINPUT;
		case OPT_SINCE:
			since_arg = optarg;
			break;
		case OPT_FILTER:
			filter = optarg;
			break;
		case OPT_BRANCH:
			branch = optarg;
			break;
		case OPT_MACHINE:
			machine = optarg;
			break;
		case OPT_FORMAT_OUT:
			format = optarg;
			break;
		case OPT_PAIRED:
			o.include_paired = 1;
			break;
		case 'o':
			if (!*optarg)
				return cli_usage_error(st, "-o needs a file name");
			output = optarg;
			break;
		}
	}
	if (optind < argc)
		return cli_usage_error(st, "report takes no arguments (got \"%s\")", argv[optind]);
	if ((rc = cli_parse_when(st, "--since", since_arg, o.now, &o.since)) < 0 ||
	    (rc = pick_format(st, format, output, &fmt)) < 0)
		return rc;

	/* With --db alone no repository is needed: runs go in time order then. */
	if ((rc = cli_open_repo(st, &env)) < 0) {
		if (!st->db_path)
			goto cleanup;
		bg_ctx_clear_error(st->ctx);
		rc = 0;
	}
	if ((rc = cli_config_or_defaults(st, &env, &defaults, &cfg)) < 0)
		goto cleanup;
	if (!machine) {
		if ((rc = cli_detect_machine(st, &env, NULL)) < 0)
			goto cleanup;
		machine = bg_machine_fingerprint(env.machine);
	} else if (!strcmp(machine, "all")) {
		machine = NULL;
	}
	if ((rc = cli_read_store(st, &env)) < 0)
		goto cleanup;
	o.filter = filter;
	o.branch = branch ? branch : bg_config_baseline(cfg)->branch;
	o.machine = machine;
	o.project = bg_config_project(cfg);
	o.window = bg_config_baseline(cfg)->window;
	o.min_runs = bg_config_baseline(cfg)->min_runs;
	o.thresholds = *bg_config_thresholds(cfg);
	if ((rc = cli_branch_hint(st, bg_report_build(st->ctx, env.store, env.repo, &o, &report),
	                          "--branch")) < 0)
		goto cleanup;
	if (bg_report_excluded_runs(report))
		cli_info(st, "%zu run%s of commits off the first-parent history of %s left out",
		         bg_report_excluded_runs(report),
		         bg_report_excluded_runs(report) == 1 ? "" : "s", o.branch);
	if (!bg_report_series_count(report) && filter && bg_report_period_run_count(report))
		cli_warn(st, "no series matches --filter \"%s\" (%zu run%s in this period)", filter,
		         bg_report_period_run_count(report),
		         bg_report_period_run_count(report) == 1 ? "" : "s");
	else if (!bg_report_series_count(report) && o.since > o.now)
		/* A date ahead of this clock (a typo, or another time zone's
		 * today): the period, not the machine, is why there is nothing. */
		cli_warn(st, "no runs%s%s in this period: --since %s starts after now",
		         machine ? " of machine " : "", machine ? machine : "", since_arg);
	else if (!bg_report_series_count(report)) {
		/* Runs there are, all set aside: said, or they would seem lost. */
		if ((rc = bg_store_excluded_count(st->ctx, env.store, machine, o.since, &nex)) < 0)
			goto cleanup;
		if (nex)
			cli_warn(st,
			         "no runs%s%s in this period (--since %s) but %zu excluded ones "
			         "(exclude --list)",
			         machine ? " of machine " : "", machine ? machine : "", since_arg,
			         nex);
		else
			cli_warn(st, "no runs%s%s in this period (--since %s)%s",
			         machine ? " of machine " : "", machine ? machine : "", since_arg,
			         machine ? "; --machine all reports every machine" : "");
	}
	if ((rc = bg_report_render(st->ctx, report, fmt, &text, &len)) < 0)
		goto cleanup;
	if (output) {
		if ((rc = cli_write_file(st, output, text, len)) < 0)
			goto cleanup;
		cli_info(st, "wrote %s: %zu series, %zu runs of %zu commits", output,
		         bg_report_series_count(report), bg_report_run_count(report),
		         bg_report_commit_count(report));
	} else {
		/* main() flushes stdout and judges a write error, as for every
		 * command: a reader that stopped early (EPIPE) is no failure. */
		fwrite(text, 1, len, stdout);
	}
cleanup:
	free(text);
	bg_report_free(report);
	bg_config_free(defaults);
	cli_env_clear(&env);
	return rc;
}
