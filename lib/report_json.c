/*
 * report_json.c -- the trend report as JSON (json-c), for dashboards and
 * scripts.
 *
 * Every number of the model goes out in full (the run means, the levels,
 * the change points, each commit's replayed verdict) rather than rounded
 * for a reader as the HTML and Markdown are: a dashboard draws its own
 * charts, and a script comparing two reports must see what the model saw.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include <json-c/json.h>

#include "jsonx.h"
#include "report_model.h"

static json_object *json_step(const bg_report *r, const rep_series *s, const bg_changepoint *c)
{
	json_object *o = json_object_new_object();
	const rep_run *before = bg_report__point_run(r, s, c->index - 1),
	              *after = bg_report__point_run(r, s, c->index);

	json_object_object_add(o, "index", json_object_new_int64((int64_t)c->index));
	json_object_object_add(o, "last_before", bg_json__str(NULL, before->row.sha));
	json_object_object_add(o, "first_after", bg_json__str(NULL, after->row.sha));
	json_object_object_add(o, "first_after_subject", bg_json__str(NULL, after->row.subject));
	json_object_object_add(o, "run_before", json_object_new_int64(before->row.id));
	json_object_object_add(o, "run_after", json_object_new_int64(after->row.id));
	json_object_object_add(o, "mean_before", bg_json__number(NULL, c->before));
	json_object_object_add(o, "mean_after", bg_json__number(NULL, c->after));
	json_object_object_add(o, "change", bg_json__number(NULL, c->change));
	json_object_object_add(o, "p_value", bg_json__number(NULL, c->p));
	json_object_object_add(o, "verdict",
	                       bg_json__str(NULL, bg_verdict_name(bg_report__step_verdict(s, c))));
	return o;
}

/* A commit's verdict: ci's (with its first verdict and confirmation), or
 * the replayed check's. */
static void json_group_verdict(json_object *o, const rep_group *g)
{
	json_object_object_add(o, "verdict", bg_json__str(NULL, bg_verdict_name(g->verdict)));
	json_object_object_add(o, "source", bg_json__str(NULL, g->recorded ? "ci" : "replayed"));
	if (g->recorded) {
		json_object_object_add(o, "first_verdict",
		                       bg_json__str(NULL, bg_verdict_name(g->first)));
		json_object_object_add(o, "confirmation",
		                       bg_json__str(NULL, bg_confirm_status_name(g->confirm)));
	}
	if (bg_report__unconfirmed(g))
		json_object_object_add(o, "flagged_not_confirmed", json_object_new_boolean(1));
}

static json_object *json_series(const bg_report *r, const rep_series *s)
{
	json_object *o = json_object_new_object(), *a;
	const rep_group *g = bg_report__latest_group(s);
	size_t i;

	json_object_object_add(o, "series", bg_json__str(NULL, s->name));
	json_object_object_add(o, "benchmark", bg_json__str(NULL, s->benchmark));
	json_object_object_add(o, "metric", bg_json__str(NULL, s->metric));
	json_object_object_add(o, "unit", bg_json__str(NULL, s->unit));
	json_object_object_add(o, "direction", bg_json__str(NULL, bg_direction_name(s->direction)));
	json_object_object_add(o, "machine", bg_json__str(NULL, s->machine));
	if (s->instrument)
		json_object_object_add(o, "instrument", bg_json__str(NULL, s->instrument));
	json_object_object_add(o, "cv", bg_json__number(NULL, s->cv));
	json_object_object_add(o, "verdict",
	                       bg_json__str(NULL, bg_verdict_name(bg_report__latest_verdict(s))));
	if (g) {
		json_object *l = json_object_new_object();

		json_object_object_add(
		        l, "commit",
		        bg_json__str(NULL, bg_report__point_run(r, s, g->from)->row.sha));
		/* The newest commit's runs, not its points (one: its runs pooled). */
		json_object_object_add(
		        l, "runs",
		        json_object_new_int64((int64_t)(s->rfirst[g->to] - s->rfirst[g->from])));
		json_object_object_add(l, "baseline_runs",
		                       json_object_new_int64((int64_t)g->test.n_base));
		json_object_object_add(l, "baseline_first_index",
		                       json_object_new_int64((int64_t)g->base_from));
		json_object_object_add(l, "baseline_last_index",
		                       json_object_new_int64((int64_t)g->from - 1));
		json_group_verdict(l, g);
		if (g->replayed != BG_VERDICT_NO_BASELINE) {
			json_object_object_add(l, "baseline_mean",
			                       bg_json__number(NULL, g->test.base_mean));
			json_object_object_add(l, "current_mean",
			                       bg_json__number(NULL, g->test.cur_mean));
			json_object_object_add(l, "change", bg_json__number(NULL, g->test.change));
			json_object_object_add(l, "delta", bg_json__number(NULL, g->test.delta));
			json_object_object_add(l, "p_adjusted",
			                       bg_json__number(NULL, g->p_adjusted));
			json_object_object_add(l, "effect_size",
			                       bg_json__number(NULL, g->test.effect));
		}
		json_object_object_add(o, "latest", l);
	}
	/* Every commit's verdict: what a reader compares with ci's. */
	a = json_object_new_array();
	for (i = 0; i < s->ngroups; i++) {
		const rep_group *x = &s->groups[i];
		json_object *c = json_object_new_object();

		json_object_object_add(
		        c, "commit",
		        bg_json__str(NULL, bg_report__point_run(r, s, x->from)->row.sha));
		json_object_object_add(c, "first_index", json_object_new_int64((int64_t)x->from));
		json_object_object_add(c, "last_index", json_object_new_int64((int64_t)x->to - 1));
		json_group_verdict(c, x);
		json_object_array_add(a, c);
	}
	json_object_object_add(o, "commits", a);
	a = json_object_new_array();
	for (i = 0; i < s->cps.npoints; i++)
		json_object_array_add(a, json_step(r, s, &s->cps.points[i]));
	json_object_object_add(o, "change_points", a);
	a = json_object_new_array();
	for (i = 0; i < s->nlevels; i++) {
		json_object *l = json_object_new_object();

		json_object_object_add(l, "first_index",
		                       json_object_new_int64((int64_t)s->levels[i].from));
		json_object_object_add(l, "last_index",
		                       json_object_new_int64((int64_t)s->levels[i].to - 1));
		json_object_object_add(l, "mean", bg_json__number(NULL, s->levels[i].mean));
		json_object_object_add(l, "sd", bg_json__number(NULL, s->levels[i].sd));
		json_object_object_add(l, "band", bg_json__number(NULL, s->levels[i].band));
		json_object_array_add(a, l);
	}
	json_object_object_add(o, "levels", a);
	a = json_object_new_array();
	for (i = 0; i < s->n; i++) {
		json_object *p = json_object_new_object(), *ids = json_object_new_array();
		const rep_run *run = bg_report__point_run(r, s, i);
		size_t k;

		/* One point per commit: the mean of its runs, and which they are. */
		json_object_object_add(p, "commit", bg_json__str(NULL, run->row.sha));
		for (k = s->rfirst[i]; k < s->rfirst[i + 1]; k++)
			json_object_array_add(ids,
			                      json_object_new_int64(r->runs[s->rrun[k]].row.id));
		json_object_object_add(p, "runs", json_object_new_int64((int64_t)s->nruns[i]));
		json_object_object_add(p, "run_ids", ids);
		json_object_object_add(p, "mean", bg_json__number(NULL, s->mean[i]));
		json_object_object_add(p, "ci", bg_json__number(NULL, s->ci[i]));
		json_object_object_add(p, "samples", json_object_new_int64((int64_t)s->count[i]));
		json_object_object_add(p, "verdict",
		                       bg_json__str(NULL, bg_verdict_name(s->flag[i])));
		if (bg_report__unconfirmed(bg_report__point_group(s, i)))
			json_object_object_add(p, "flagged_not_confirmed",
			                       json_object_new_boolean(1));
		if (s->outlier[i])
			json_object_object_add(p, "outlier", json_object_new_boolean(1));
		json_object_array_add(a, p);
	}
	json_object_object_add(o, "points", a);
	return o;
}

static json_object *json_report(const bg_report *r)
{
	json_object *top = json_object_new_object(), *o, *a;
	const rep_series *top5[5];
	size_t i, n;
	step_ref *steps;

	json_object_object_add(top, "project", bg_json__str(NULL, r->project));
	json_object_object_add(top, "generated_at", json_object_new_int64(r->now));
	json_object_object_add(top, "since", json_object_new_int64(r->since));
	json_object_object_add(top, "branch", bg_json__str(NULL, r->branch));
	json_object_object_add(top, "order", bg_json__str(NULL, bg_report__order_name(r)));
	o = json_object_new_object();
	json_object_object_add(o, "alpha", bg_json__number(NULL, r->th.alpha));
	json_object_object_add(o, "fdr", json_object_new_boolean(r->th.fdr));
	json_object_object_add(o, "min_change", bg_json__number(NULL, r->th.min_change));
	json_object_object_add(o, "min_effect", bg_json__number(NULL, r->th.min_effect));
	json_object_object_add(o, "window", json_object_new_int(r->window));
	json_object_object_add(o, "min_runs", json_object_new_int(r->min_runs));
	json_object_object_add(o, "min_segment", json_object_new_int64((int64_t)r->min_segment));
	json_object_object_add(top, "thresholds", o);
	a = json_object_new_array();
	for (i = 0; i < r->nmachines; i++) {
		o = json_object_new_object();
		json_object_object_add(o, "fingerprint", bg_json__str(NULL, r->machines[i]));
		json_object_object_add(o, "cpu_model", bg_json__str(NULL, r->cpus[i]));
		json_object_array_add(a, o);
	}
	json_object_object_add(top, "machines", a);

	o = json_object_new_object();
	json_object_object_add(o, "series", json_object_new_int64((int64_t)r->nseries));
	json_object_object_add(o, "runs", json_object_new_int64((int64_t)r->shown_runs));
	json_object_object_add(o, "commits", json_object_new_int64((int64_t)r->shown_commits));
	json_object_object_add(o, "runs_off_branch", json_object_new_int64((int64_t)r->excluded));
	json_object_object_add(o, "step_regressions", json_object_new_int64((int64_t)r->steps[0]));
	json_object_object_add(o, "step_improvements", json_object_new_int64((int64_t)r->steps[1]));
	{
		json_object *v = json_object_new_object();
		for (i = 0; i < BG_VERDICT_COUNT; i++)
			if (i != BG_VERDICT_SKIPPED && i != BG_VERDICT_FAILED)
				json_object_object_add(
				        v, bg_verdict_name((bg_verdict)i),
				        json_object_new_int64((int64_t)r->latest[i]));
		json_object_object_add(v, "flagged_not_confirmed",
		                       json_object_new_int64((int64_t)r->latest_unconfirmed));
		json_object_object_add(o, "latest", v);
	}
	json_object_object_add(o, "recorded_verdicts", json_object_new_int64((int64_t)r->recorded));
	json_object_object_add(o, "flagged_not_confirmed",
	                       json_object_new_int64((int64_t)r->unconfirmed));
	a = json_object_new_array();
	n = bg_report__noisiest(r, top5, BG_ARRAY_SIZE(top5));
	for (i = 0; i < n; i++) {
		json_object *x = json_object_new_object();
		json_object_object_add(x, "series", bg_json__str(NULL, top5[i]->name));
		json_object_object_add(x, "machine", bg_json__str(NULL, top5[i]->machine));
		json_object_object_add(x, "cv", bg_json__number(NULL, top5[i]->cv));
		json_object_array_add(a, x);
	}
	json_object_object_add(o, "noisiest", a);
	a = json_object_new_array();
	if ((steps = bg_report__all_steps(r, &n)) != NULL) {
		for (i = 0; i < n; i++) {
			json_object *x = json_step(r, steps[i].s, steps[i].c);
			json_object_object_add(x, "series", bg_json__str(NULL, steps[i].s->name));
			json_object_object_add(x, "machine",
			                       bg_json__str(NULL, steps[i].s->machine));
			json_object_array_add(a, x);
		}
		free(steps);
	}
	json_object_object_add(o, "change_points", a);
	json_object_object_add(top, "summary", o);

	a = json_object_new_array();
	for (i = 0; i < r->nruns; i++) {
		const rep_run *run = &r->runs[i];
		o = json_object_new_object();
		json_object_object_add(o, "id", json_object_new_int64(run->row.id));
		json_object_object_add(o, "commit", bg_json__str(NULL, run->row.sha));
		json_object_object_add(o, "subject", bg_json__str(NULL, run->row.subject));
		json_object_object_add(o, "started_at", json_object_new_int64(run->row.started_at));
		json_object_object_add(o, "machine", bg_json__str(NULL, run->row.machine));
		json_object_array_add(a, o);
	}
	json_object_object_add(top, "runs", a);
	/* Left empty: its members are written one by one (see below). */
	json_object_object_add(top, "series", json_object_new_array());
	return top;
}

#define JSON_FLAGS                                                                                 \
	(JSON_C_TO_STRING_PRETTY | JSON_C_TO_STRING_SPACED | JSON_C_TO_STRING_NOSLASHESCAPE)

/* `text` as a member of the top object's "series" array: every line after
 * the first indented two levels deeper, as json-c would have printed it
 * there. */
static int put_member(bg_buf *b, const char *text)
{
	const char *nl;

	while ((nl = strchr(text, '\n')) != NULL) {
		if (bg_buf_put(b, text, (size_t)(nl - text + 1)) < 0 || bg_buf_puts(b, "    ") < 0)
			return -1;
		text = nl + 1;
	}
	return bg_buf_puts(b, text);
}

/*
 * The whole report as one json-c tree took 9 times its text: 900 MB for a
 * report of 1,000 series x 200 runs (99 MB).  The series, nearly all of
 * it, are built and printed one at a time into the array the rest of the
 * report ends with, in the layout json-c gives the whole tree.
 */
int bg_report__render_json(bg_ctx *ctx, const bg_report *r, bg_buf *b)
{
	static const char tail[] = "\"series\": [\n  ]\n}";
	json_object *top = json_report(r);
	const char *text, *end;
	size_t i;
	int error = 0;

	if (!top || !(text = bg_text__json(top, JSON_FLAGS))) {
		json_object_put(top);
		return bg_error_oom(ctx);
	}
	/* The empty array is the last member: the text up to its "[". */
	end = strstr(text, tail);
	if (!end || end[sizeof(tail) - 1]) {
		json_object_put(top);
		return bg_error_set(ctx, BG_ERROR, "the JSON report's layout is not json-c's");
	}
	if (bg_buf_put(b, text, (size_t)(end - text) + strlen("\"series\": [")) < 0)
		error = bg_error_oom(ctx);
	json_object_put(top);
	for (i = 0; error == 0 && i < r->nseries; i++) {
		json_object *one = json_series(r, &r->series[i]);

		if (!one || !(text = bg_text__json(one, JSON_FLAGS)) ||
		    bg_buf_puts(b, i ? ",\n    " : "\n    ") < 0 || put_member(b, text) < 0)
			error = bg_error_oom(ctx);
		json_object_put(one);
	}
	if (error == 0 && bg_buf_puts(b, "\n  ]\n}\n") < 0)
		error = bg_error_oom(ctx);
	return error;
}
