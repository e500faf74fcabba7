/*
 * calibrate.c -- `benchguard calibrate`: run the suite N times at one commit
 * and say, per series, how noisy it is (run-to-run and within-run CV), the
 * smallest change the configured baseline can detect, and where measuring
 * time is best spent: more samples per run, or more runs in the window.
 * The runs are stored (tagged calibrate=1) like any other; the numbers come
 * from lib/calibrate.c.  Each series also says which of the verdict's rules
 * it gets (bg_judge_rule): the t-test, or, for a near-deterministic one (a
 * simulated instruction count), its threshold alone, and why.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include <json-c/json.h>

#include "cli.h"
#include "internal.h"
#include "jsonx.h"

enum { OPT_CHANGE = CLI_OPT_BASE + 300 };

static const struct option calibrate_options[] = {
	CLI_RUN_LONG_OPTIONS,
	{ "change", required_argument, NULL, OPT_CHANGE },
	{ 0, 0, 0, 0 },
};

/* One series over the calibration runs. */
typedef struct {
	const bg_series *first; /* names and unit */
	bg_summary *runs;       /* one summary per run that measured it */
	size_t nruns;
	bg_calibration cal;
	int has_rule; /* rule is known (2 runs or more, finite values) */
	bg_rule rule;
} cal_series;

static int cmp_series(const void *a, const void *b)
{
	const bg_series *x = ((const cal_series *)a)->first, *y = ((const cal_series *)b)->first;
	int c = strcmp(x->benchmark, y->benchmark);

	return c ? c : strcmp(x->metric, y->metric);
}

static void series_free(cal_series *s, size_t n)
{
	size_t i;

	for (i = 0; s && i < n; i++)
		free(s[i].runs);
	free(s);
}

/* Gathers each series' run summaries from the runs just made, sorted by name. */
static int gather(cli_state *st, const bg_suite_output *out, cal_series **list, size_t *n)
{
	cal_series *s = NULL;
	size_t ns = 0, cap = 0, i, j, k;
	int rc;

	*list = NULL;
	*n = 0;
	for (k = 0; k < out->nruns; k++) {
		for (i = 0; i < bg_results_series_count(out->res[k]); i++) {
			const bg_series *ser = bg_results_series(out->res[k], i);
			cal_series *c = NULL;

			for (j = 0; j < ns && !c; j++)
				if (!strcmp(s[j].first->benchmark, ser->benchmark) &&
				    !strcmp(s[j].first->metric, ser->metric))
					c = &s[j];
			if (!c) {
				if (bg_grow((void **)&s, &cap, ns, sizeof(*s)) < 0)
					goto oom;
				c = &s[ns++];
				memset(c, 0, sizeof(*c));
				c->first = ser;
				if (!(c->runs = calloc((size_t)out->nruns, sizeof(*c->runs))))
					goto oom;
			}
			if ((rc = bg_stats_summarize(st->ctx, ser->values, ser->n,
			                             &c->runs[c->nruns])) < 0) {
				series_free(s, ns);
				return rc;
			}
			c->nruns++;
		}
	}
	if (ns)
		qsort(s, ns, sizeof(*s), cmp_series);
	*list = s;
	*n = ns;
	return 0;
oom:
	series_free(s, ns);
	return bg_error_oom(st->ctx);
}

/* Which rule the verdict applies to a series, from its run means as the
 * verdict reads them (robust means), its own min_change and its
 * instrument's resolution. */
static int series_rule(cli_state *st, const bg_thresholds *th, cal_series *s)
{
	const bg_series *f = s->first;
	double *v = malloc(s->nruns * sizeof(double));
	size_t k;
	int rc;

	if (!v)
		return bg_error_oom(st->ctx);
	for (k = 0; k < s->nruns; k++)
		v[k] = s->runs[k].robust_mean;
	rc = bg_judge_rule(st->ctx, v, s->nruns,
	                   bg_thresholds_min_change(th, f->benchmark, f->metric, f->instrument),
	                   bg_instrument__resolution(f->instrument, f->metric), &s->rule);
	free(v);
	s->has_rule = rc == 0;
	return rc;
}

static int print_json(cli_state *st, const cli_env *env, const bg_commit *head,
                      const bg_suite_output *out, const cal_series *s, size_t n, double alpha,
                      int window, double change)
{
	json_object *top = json_object_new_object(), *arr = json_object_new_array();
	json_object *ids = json_object_new_array();
	size_t i, k;

	for (k = 0; k < out->nruns; k++)
		json_object_array_add(ids, json_object_new_int64(out->ids[k]));
	json_object_object_add(top, "commit", json_object_new_string(head->sha));
	json_object_object_add(top, "machine",
	                       json_object_new_string(bg_machine_fingerprint(env->machine)));
	json_object_object_add(top, "runs", json_object_new_int64((int64_t)out->nruns));
	json_object_object_add(top, "run_ids", ids);
	json_object_object_add(top, "alpha", json_object_new_double(alpha));
	json_object_object_add(top, "window", json_object_new_int(window));
	json_object_object_add(top, "change", json_object_new_double(change));
	for (i = 0; i < n; i++) {
		const bg_calibration *c = &s[i].cal;
		json_object *o = json_object_new_object();
		char name[CLI_SERIES_MAX];

		snprintf(name, sizeof(name), "%s:%s", s[i].first->benchmark, s[i].first->metric);
		json_object_object_add(o, "series", json_object_new_string(name));
		json_object_object_add(o, "benchmark",
		                       json_object_new_string(s[i].first->benchmark));
		json_object_object_add(o, "metric", json_object_new_string(s[i].first->metric));
		json_object_object_add(o, "unit", json_object_new_string(s[i].first->unit));
		json_object_object_add(o, "runs", json_object_new_int64((int64_t)c->runs));
		json_object_object_add(o, "mean", bg_json__double(NULL, c->mean));
		json_object_object_add(o, "run_cv", bg_json__double(NULL, c->run_cv));
		json_object_object_add(o, "within_cv", bg_json__double(NULL, c->within_cv));
		json_object_object_add(o, "s2_between", bg_json__double(NULL, c->s2_between));
		json_object_object_add(o, "s2_within", bg_json__double(NULL, c->s2_within));
		json_object_object_add(o, "mde", bg_json__double(NULL, c->mde));
		json_object_object_add(o, "samples_per_run", bg_json__double(NULL, c->samples));
		json_object_object_add(o, "samples_suggested",
		                       c->samples_suggested > 0
		                               ? json_object_new_int(c->samples_suggested)
		                               : NULL);
		json_object_object_add(o, "runs_needed",
		                       c->runs_needed > 0 ? json_object_new_int(c->runs_needed)
		                                          : NULL);
		json_object_object_add(
		        o, "rule",
		        s[i].has_rule
		                ? json_object_new_string(
		                          s[i].rule.deterministic ? "near-deterministic" : "t-test")
		                : NULL);
		json_object_object_add(o, "noise_floor",
		                       s[i].has_rule ? bg_json__double(NULL, s[i].rule.noise_floor)
		                                     : NULL);
		json_object_object_add(o, "min_change",
		                       s[i].has_rule ? bg_json__double(NULL, s[i].rule.min_change)
		                                     : NULL);
		json_object_array_add(arr, o);
	}
	json_object_object_add(top, "series", arr);
	return cli_print_json(st, top);
}

static void fmt_pct(char *buf, size_t n, double v)
{
	if (isfinite(v))
		snprintf(buf, n, "%.2f%%", 100.0 * v);
	else
		snprintf(buf, n, "-");
}

static int print_table(cli_state *st, const cal_series *s, size_t n, double alpha, int window,
                       double change)
{
	char head_runs[48];
	const char *head[8] = { "series", "runs",        "run-to-run cv", "within-run cv",
		                "mde",    "samples/run", head_runs,       "rule" };
	bg_table *t;
	size_t i;

	snprintf(head_runs, sizeof(head_runs), "runs for %g%%", 100.0 * change);
	if (!(t = bg_table_new(8, head, "lrrrrrrl")))
		return bg_error_oom(st->ctx);
	for (i = 0; i < n; i++) {
		const bg_calibration *c = &s[i].cal;
		char name[CLI_SERIES_MAX], runs[24], rcv[24], wcv[24], mde[24], samples[48],
		        need[24], rule[160];
		const char *cells[8];
		double now = c->samples;

		snprintf(name, sizeof(name), "%s:%s", s[i].first->benchmark, s[i].first->metric);
		snprintf(runs, sizeof(runs), "%zu", c->runs);
		fmt_pct(rcv, sizeof(rcv), c->run_cv);
		fmt_pct(wcv, sizeof(wcv), c->within_cv);
		fmt_pct(mde, sizeof(mde), c->mde);
		if (isnan(now)) /* measured in one run: no figures, as the warning says */
			snprintf(samples, sizeof(samples), "-");
		else if (c->samples_suggested <= 0)
			snprintf(samples, sizeof(samples), "%.3g -> ?", now);
		else if (fabs(now - c->samples_suggested) < 0.5)
			snprintf(samples, sizeof(samples), "%.3g =", now);
		else
			snprintf(samples, sizeof(samples), "%.3g -> %d", now, c->samples_suggested);
		if (c->runs_needed > 0)
			snprintf(need, sizeof(need), "%d", c->runs_needed);
		else
			snprintf(need, sizeof(need), "%s", c->runs_needed == 0 ? "> 1000" : "-");
		cells[0] = name;
		cells[1] = runs;
		cells[2] = rcv;
		cells[3] = wcv;
		cells[4] = mde;
		cells[5] = samples;
		cells[6] = need;
		if (s[i].has_rule)
			bg_rule_text(rule, sizeof(rule), &s[i].rule);
		else
			snprintf(rule, sizeof(rule), "-");
		cells[7] = rule;
		if (bg_table_add(t, cells) < 0) {
			bg_table_free(t);
			return bg_error_oom(st->ctx);
		}
	}
	cli_table_print(st, t, stdout);
	bg_table_free(t);
	if (st->format == CLI_MARKDOWN)
		fputc('\n', stdout);
	printf("mde: the smallest change one run detects against a window of %d runs "
	       "(alpha %g, 80%% power).\n"
	       "samples/run: now -> worth spending (past it, within-run noise is under a fifth "
	       "of a run mean's variance).\n"
	       "runs for %g%%: the window that detects a %g%% change at the suggested samples "
	       "per run.\n"
	       "rule: how a verdict judges the series.  Near-deterministic when its noise floor "
	       "(the range of these runs, or the instrument's resolution, over the mean) is at "
	       "most a quarter of its min_change: the change against min_change alone, no "
	       "t-test.\n",
	       window, alpha, 100.0 * change, 100.0 * change);
	return 0;
}

int cmd_calibrate(cli_state *st, int argc, char **argv)
{
	const cli_command *self = cli_find_command("calibrate");
	const bg_thresholds *th;
	cli_run_flags flags;
	bg_suite_output out;
	bg_commit head;
	cal_series *series = NULL;
	size_t nseries = 0, i;
	double change = 0.05;
	cli_env env;
	int opt, rc = 0, window;

	memset(&env, 0, sizeof(env));
	memset(&out, 0, sizeof(out));
	memset(&head, 0, sizeof(head));
	cli_run_flags_init(&flags);
	flags.nruns = 10;
	/* Room for every --tag plus calibrate=1 (cli_run_option sizes it only when absent). */
	if (!(flags.tags = calloc((size_t)argc + 2, sizeof(char *))))
		return bg_error_oom(st->ctx);
	while ((opt = cli_getopt(st, argc, argv, "", calibrate_options, self)) != -1) {
		if (opt == 'h') {
			rc = 0; /* not a run option's 1 */
			goto cleanup;
		}
		if (opt == '?') {
			rc = BG_EINPUT;
			goto cleanup;
		}
		if (opt == CLI_OPT_COMMIT || opt == CLI_OPT_RETRY_BUILD) {
			rc = cli_not_an_option(st, "calibrate",
			                       opt == CLI_OPT_COMMIT ? "--commit" : "--retry-build",
			                       "it measures the working tree at HEAD");
			goto cleanup;
		}
		if (opt == CLI_OPT_RUNS) {
			if ((rc = cli_parse_count(st, "--runs", optarg, 2, &flags.nruns)) < 0)
				goto cleanup;
			continue;
		}
		if (opt == OPT_CHANGE) {
			char *end;

			change = cli_strtod(optarg, &end);
			if (end == optarg || *end || !(change > 0 && change <= 10)) {
				rc = cli_usage_error(
				        st,
				        "--change needs a relative change above 0 and at most 10, "
				        "e.g. 0.05 for 5%% (got \"%s\")",
				        optarg);
				goto cleanup;
			}
			continue;
		}
		if ((rc = cli_run_option(st, &flags, argc, opt, optarg)) < 0)
			goto cleanup;
	}
	rc = 0;
	if (optind < argc) {
		rc = cli_usage_error(st, "calibrate takes no arguments (got \"%s\")", argv[optind]);
		goto cleanup;
	}
	flags.tags[flags.ntags++] = "calibrate=1";
	if ((rc = cli_open_repo(st, &env)) < 0 || (rc = cli_load_config(st, &env)) < 0 ||
	    (rc = cli_detect_machine(st, &env, flags.machine)) < 0 ||
	    (rc = cli_open_store(st, &env)) < 0 ||
	    (rc = bg_store_writable(st->ctx, env.store)) < 0 ||
	    (rc = cli_run_worktree(st, &env, &flags, &head, &out)) < 0)
		goto cleanup;
	th = bg_config_thresholds(env.config);
	window = bg_config_baseline(env.config)->window;
	if ((rc = gather(st, &out, &series, &nseries)) < 0)
		goto cleanup;
	for (i = 0; i < nseries; i++) {
		/* A series that failed in all but one run cannot be calibrated. */
		if (series[i].nruns < 2) {
			cli_warn(st, "%s:%s was measured in %zu run%s only: no run-to-run figures",
			         series[i].first->benchmark, series[i].first->metric,
			         series[i].nruns, series[i].nruns == 1 ? "" : "s");
			memset(&series[i].cal, 0, sizeof(series[i].cal));
			series[i].cal.runs = series[i].nruns;
			series[i].cal.mean = series[i].cal.samples = NAN;
			series[i].cal.run_cv = series[i].cal.within_cv = series[i].cal.mde = NAN;
			series[i].cal.s2_within = series[i].cal.s2_between = NAN;
			series[i].cal.runs_needed = -1;
			continue;
		}
		if ((rc = bg_calibrate(st->ctx, series[i].runs, series[i].nruns, th->alpha, window,
		                       change, &series[i].cal)) < 0 ||
		    (rc = series_rule(st, th, &series[i])) < 0)
			goto cleanup;
	}
	rc = st->format == CLI_JSON
	             ? print_json(st, &env, &head, &out, series, nseries, th->alpha, window, change)
	             : print_table(st, series, nseries, th->alpha, window, change);
	if (rc == 0 && out.failed)
		rc = 3;

cleanup:
	series_free(series, nseries);
	bg_suite_output_clear(&out);
	bg_commit_clear(&head);
	cli_run_flags_clear(&flags);
	cli_env_clear(&env);
	return rc;
}
