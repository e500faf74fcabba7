/*
 * check_render.c -- a verdict as documents: the JSON of `check --json` and
 * `ci --json` (the run, its baseline, one result per series and the count
 * of each verdict; ci's results add the confirmation of each series
 * measured again), and the Markdown table that goes to $GITHUB_STEP_SUMMARY and the
 * pull-request comment.  In the library so that a program using it prints
 * what `benchguard ci` prints, and the alerts carry the same text.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <json-c/json.h>

#include "internal.h"
#include "jsonx.h"

static int tested(const bg_verdict_row *r)
{
	return r->verdict == BG_VERDICT_REGRESSION || r->verdict == BG_VERDICT_IMPROVEMENT ||
	       r->verdict == BG_VERDICT_UNCHANGED;
}

static json_object *confirm_json(const bg_verdict_row *r)
{
	const bg_confirmation *c = &r->confirm;
	json_object *o = json_object_new_object();

	json_object_object_add(o, "status", bg_json__str(NULL, bg_confirm_status_name(c->status)));
	json_object_object_add(o, "first_verdict", bg_json__str(NULL, bg_verdict_name(c->first)));
	json_object_object_add(
	        o, "design",
	        bg_json__str(NULL, c->design == BG_DESIGN_PAIRED ? "paired" : "rolling"));
	json_object_object_add(o, "reference",
	                       c->reference[0] ? bg_json__str(NULL, c->reference) : NULL);
	json_object_object_add(o, "pairs", json_object_new_int64((int64_t)c->pairs));
	json_object_object_add(o, "look", json_object_new_int64((int64_t)c->look));
	json_object_object_add(o, "looks", json_object_new_int64((int64_t)c->looks));
	json_object_object_add(o, "level", bg_json__double(NULL, c->level));
	json_object_object_add(o, "change", bg_json__double(NULL, c->test.change));
	json_object_object_add(o, "delta", bg_json__double(NULL, c->test.delta));
	json_object_object_add(o, "p_value",
	                       bg_json__double(NULL, r->verdict == BG_VERDICT_IMPROVEMENT
	                                                     ? c->test.p_better
	                                                     : c->test.p_worse));
	json_object_object_add(o, "p_adjusted", bg_json__double(NULL, c->p_adjusted));
	json_object_object_add(o, "effect_size", bg_json__double(NULL, c->test.effect));
	return o;
}

int bg_check_json(bg_ctx *ctx, const bg_check_result *res, char **out)
{
	json_object *top = json_object_new_object(), *run = json_object_new_object();
	json_object *base = json_object_new_object(), *results = json_object_new_array();
	json_object *summary = json_object_new_object();
	const char *text;
	size_t i;
	int v;

	*out = NULL;
	json_object_object_add(run, "id", json_object_new_int64(res->run_id));
	json_object_object_add(run, "commit", json_object_new_string(res->sha));
	json_object_object_add(run, "branch", bg_json__str(NULL, res->branch));
	json_object_object_add(run, "machine", bg_json__str(NULL, res->machine));
	json_object_object_add(run, "dirty", json_object_new_boolean(res->dirty));
	json_object_object_add(base, "branch", bg_json__str(NULL, res->baseline_branch));
	json_object_object_add(base, "window", json_object_new_int(res->window));
	json_object_object_add(base, "from", json_object_new_string(res->baseline_from));
	for (i = 0; i < res->nrows; i++) {
		const bg_verdict_row *r = &res->rows[i];
		json_object *o = json_object_new_object();
		int t = tested(r);

		json_object_object_add(o, "series", bg_json__str(NULL, r->series));
		json_object_object_add(o, "benchmark", bg_json__str(NULL, r->benchmark));
		json_object_object_add(o, "metric", bg_json__str(NULL, r->metric));
		json_object_object_add(o, "unit", bg_json__str(NULL, r->unit));
		json_object_object_add(
		        o, "direction",
		        r->metric ? bg_json__str(NULL, bg_direction_name(r->direction)) : NULL);
		json_object_object_add(o, "verdict",
		                       bg_json__str(NULL, bg_verdict_name(r->verdict)));
		json_object_object_add(o, "baseline_mean",
		                       t ? bg_json__double(NULL, r->test.base_mean) : NULL);
		json_object_object_add(o, "baseline_ci",
		                       t ? bg_json__double(NULL, r->test.base_ci) : NULL);
		json_object_object_add(o, "current_mean",
		                       t ? bg_json__double(NULL, r->test.cur_mean) : NULL);
		json_object_object_add(o, "change",
		                       t ? bg_json__double(NULL, r->test.change) : NULL);
		json_object_object_add(o, "delta", t ? bg_json__double(NULL, r->test.delta) : NULL);
		json_object_object_add(o, "p_value",
		                       t ? bg_json__double(NULL, r->test.p_worse) : NULL);
		json_object_object_add(o, "p_adjusted",
		                       t ? bg_json__double(NULL, r->p_adjusted) : NULL);
		json_object_object_add(o, "p_improvement",
		                       t ? bg_json__double(NULL, r->test.p_better) : NULL);
		json_object_object_add(o, "p_improvement_adjusted",
		                       t ? bg_json__double(NULL, r->p_better_adjusted) : NULL);
		json_object_object_add(o, "effect_size",
		                       t ? bg_json__double(NULL, r->test.effect) : NULL);
		json_object_object_add(o, "mde", t ? bg_json__double(NULL, r->test.mde) : NULL);
		json_object_object_add(o, "undecided", json_object_new_boolean(r->undecided));
		/* Which rule judged it (lib/verdict.c): the t-test, or the
		 * threshold alone for a near-deterministic series. */
		json_object_object_add(
		        o, "rule",
		        t ? bg_json__str(NULL, r->deterministic ? "near-deterministic" : "t-test")
		          : NULL);
		json_object_object_add(o, "noise_floor",
		                       t ? bg_json__double(NULL, r->noise_floor) : NULL);
		json_object_object_add(o, "min_change",
		                       t ? bg_json__double(NULL, r->min_change) : NULL);
		json_object_object_add(o, "baseline_runs",
		                       json_object_new_int64((int64_t)r->baseline_runs));
		json_object_object_add(o, "outlier_samples",
		                       json_object_new_int64((int64_t)r->outlier_samples));
		json_object_object_add(o, "baseline_outliers",
		                       json_object_new_int64((int64_t)r->baseline_outliers));
		json_object_object_add(
		        o, "baseline_cv",
		        t && fabs(r->test.base_mean) > 0
		                ? bg_json__double(NULL, r->test.base_sd / fabs(r->test.base_mean))
		                : NULL);
		json_object_object_add(o, "current_runs",
		                       json_object_new_int64((int64_t)r->current_runs));
		json_object_object_add(o, "samples", json_object_new_int64((int64_t)r->samples));
		if (r->confirm.status != BG_CONFIRM_NONE)
			json_object_object_add(o, "confirmation", confirm_json(r));
		if (r->message)
			json_object_object_add(o, "message", bg_json__str(NULL, r->message));
		json_object_array_add(results, o);
	}
	for (v = 0; v < BG_VERDICT_COUNT; v++)
		json_object_object_add(summary, bg_verdict_name((bg_verdict)v),
		                       json_object_new_int64((int64_t)res->count[v]));
	json_object_object_add(top, "run", run);
	json_object_object_add(top, "baseline", base);
	json_object_object_add(top, "results", results);
	json_object_object_add(top, "summary", summary);
	if (res->confirm_max) {
		json_object *c = json_object_new_object();

		json_object_object_add(c, "pairs",
		                       json_object_new_int64((int64_t)res->confirm_pairs));
		json_object_object_add(c, "max_pairs",
		                       json_object_new_int64((int64_t)res->confirm_max));
		json_object_object_add(top, "confirmation", c);
	}
	text = bg_text__json(top, JSON_C_TO_STRING_PRETTY | JSON_C_TO_STRING_SPACED |
	                                  JSON_C_TO_STRING_NOSLASHESCAPE);
	*out = text ? bg_printf("%s\n", text) : NULL;
	json_object_put(top);
	return *out ? 0 : bg_error_oom(ctx);
}

void bg_check__pct(char *buf, size_t len, double change)
{
	if (isfinite(change))
		snprintf(buf, len, "%+.2f%%", 100.0 * change);
	else
		snprintf(buf, len, "-");
}

void bg_check__p(char *buf, size_t len, double p)
{
	if (!isfinite(p))
		snprintf(buf, len, "-");
	else if (p < 1e-4)
		snprintf(buf, len, "<0.0001");
	else
		snprintf(buf, len, "%.4f", p);
}

void bg_check__confirm_text(const bg_verdict_row *r, char *buf, size_t len)
{
	const bg_confirmation *c = &r->confirm;
	const char *what = c->design == BG_DESIGN_PAIRED ? "pair" : "more run";
	char p[24];

	if (c->status == BG_CONFIRM_NONE) {
		snprintf(buf, len, "%s", r->undecided ? "undecided" : "");
		return;
	}
	bg_check__p(p, sizeof(p), c->p_adjusted);
	snprintf(buf, len, "%s: %+.1f%% in %zu %s%s (p %s)",
	         c->status == BG_CONFIRM_NOT_CONFIRMED ? "not confirmed"
	                                               : bg_confirm_status_name(c->status),
	         100.0 * c->test.delta, c->pairs, what, c->pairs == 1 ? "" : "s", p);
}

int bg_check__row_cells(const bg_verdict_row *r, int md, char cells[9][192])
{
	char a[48], b[48];

	snprintf(cells[0], 192, md && r->verdict == BG_VERDICT_REGRESSION ? "**%s**" : "%s",
	         bg_verdict_name(r->verdict));
	snprintf(cells[1], 192, md ? "`%s`" : "%s", r->series);
	cells[2][0] = cells[3][0] = cells[4][0] = cells[5][0] = cells[6][0] = '\0';
	if (tested(r)) {
		bg_unit_format(a, sizeof(a), r->test.base_mean, r->unit);
		bg_unit_format(b, sizeof(b), r->test.base_ci, r->unit);
		snprintf(cells[2], 192, "%s ± %s", a, b);
		bg_unit_format(cells[3], 192, r->test.cur_mean, r->unit);
		/* The mean's own movement; the verdict says whether that is good. */
		bg_check__pct(cells[4], 192, r->test.delta);
		if (r->deterministic)
			/* No p: the threshold judged it, against this floor. */
			snprintf(cells[5], 192, "floor %.2g%%", 100.0 * r->noise_floor);
		else
			bg_check__p(cells[5], 192,
			            r->test.change < 0 ? r->p_better_adjusted : r->p_adjusted);
		if (isfinite(r->test.effect))
			snprintf(cells[6], 192, "%.2f", r->test.effect);
		else
			snprintf(cells[6], 192, "%s", r->test.effect > 0 ? "inf" : "-inf");
	} else if (r->message) {
		snprintf(cells[2], 192, "%s", r->message);
	}
	snprintf(cells[7], 192, "%zu/%zu", r->baseline_runs, r->current_runs);
	bg_check__confirm_text(r, cells[8], 192);
	return 0;
}

/* A commit's 12-character id as a code span. */
static int md_sha(bg_buf *b, const char *sha)
{
	char s[13];

	snprintf(s, sizeof(s), "%.12s", sha ? sha : "");
	return bg_text__escape(b, BG_ESC_MD_CODE, s);
}

static const char *headline(const bg_check_result *res)
{
	return res->count[BG_VERDICT_FAILED]       ? "benchmarks failed"
	       : res->count[BG_VERDICT_REGRESSION] ? "performance regression"
	                                           : "no regression";
}

int bg_check__summary_line(const bg_check_result *res, bg_buf *b)
{
	int v, first = 1, e = 0;

	for (v = 0; v < BG_VERDICT_COUNT; v++) {
		if (!res->count[v])
			continue;
		e |= bg_buf_printf(b, "%s%zu %s", first ? "" : ", ", res->count[v],
		                   bg_verdict_name((bg_verdict)v));
		first = 0;
	}
	e |= bg_buf_puts(b, "\n");
	return e ? BG_ENOMEM : 0;
}

int bg_check_markdown(bg_ctx *ctx, const bg_check_result *res, char **out)
{
	static const char *const head[] = { "verdict", "series", "baseline",
		                            "current", "change", "p",
		                            "g",       "runs",   "confirmation" };
	bg_table *t;
	bg_buf b = BG_BUF_INIT;
	size_t i, k, ncols = 8;
	int e = 0;

	*out = NULL;
	/* The confirmation column only when a row has something in it. */
	for (i = 0; i < res->nrows; i++)
		if (res->rows[i].confirm.status != BG_CONFIRM_NONE || res->rows[i].undecided)
			ncols = 9;
	if (!(t = bg_table_new(ncols, head, "llrrrrrrl")))
		return bg_error_oom(ctx);
	/* The cells are Markdown: the verdict's emphasis is ours, the series is
	 * a code span and the rest (units, messages) text escaped as such. */
	bg_table_markup(t);
	for (i = 0; i < res->nrows && !e; i++) {
		char cells[9][192];
		char *md[9] = { NULL };
		const char *row[9];

		bg_check__row_cells(&res->rows[i], 1, cells);
		row[0] = cells[0];
		md[1] = bg_text__escaped(BG_ESC_MD_CODE, res->rows[i].series);
		for (k = 2; k < 9; k++)
			md[k] = bg_text__escaped(BG_ESC_MD, cells[k]);
		for (k = 1; k < 9; k++)
			e |= !(row[k] = md[k]);
		if (!e)
			e |= bg_table_add(t, row);
		for (k = 0; k < 9; k++)
			free(md[k]);
	}
	e |= bg_buf_printf(&b, "### benchguard: %s\n\nCommit ", headline(res));
	e |= md_sha(&b, res->sha);
	if (res->baseline_branch) {
		if (res->branch) {
			e |= bg_buf_puts(&b, " (");
			e |= bg_text__escape(&b, BG_ESC_MD, res->branch);
			e |= bg_buf_puts(&b, ")");
		}
		e |= bg_buf_puts(&b, " on machine ");
		e |= bg_text__escape(&b, BG_ESC_MD_CODE, res->machine);
		e |= bg_buf_puts(&b, ", against ");
		e |= bg_text__escape(&b, BG_ESC_MD_CODE, res->baseline_branch);
		e |= bg_buf_printf(&b, " (window %d, from ", res->window);
		e |= md_sha(&b, res->baseline_from);
		e |= bg_buf_puts(&b, ").\n\n");
	} else {
		e |= bg_buf_puts(&b, " against commit ");
		e |= md_sha(&b, res->baseline_from);
		e |= bg_buf_puts(&b, " on machine ");
		e |= bg_text__escape(&b, BG_ESC_MD_CODE, res->machine);
		e |= bg_buf_printf(&b, " (%d runs each).\n\n", res->window);
	}
	if (!e)
		e |= bg_table_render(t, 1, 0, &b);
	e |= bg_buf_puts(&b, "\n");
	e |= bg_check__summary_line(res, &b);
	if (res->confirm_pairs)
		e |= bg_buf_printf(&b,
		                   "\nMeasured again: %zu interleaved pair%s (at most %zu) in %.1f "
		                   "s.\n",
		                   res->confirm_pairs, res->confirm_pairs == 1 ? "" : "s",
		                   res->confirm_max, res->confirm_seconds);
	bg_table_free(t);
	if (e) {
		bg_buf_clear(&b);
		return bg_error_oom(ctx);
	}
	*out = bg_buf_detach(&b);
	return 0;
}
