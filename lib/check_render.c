/*
 * check_render.c -- a verdict as documents: the JSON of `check --json` and
 * `ci --json` (the run, its baseline, one result per series and the count
 * of each verdict; ci's results add the confirmation of each series
 * measured again), the Markdown table that goes to $GITHUB_STEP_SUMMARY
 * and the pull-request comment, and the JUnit XML that GitLab, Jenkins and
 * Azure Pipelines show as test reports (written through lib/xml.h).  In
 * the library so that a program using it prints what `benchguard ci`
 * prints, and the alerts carry the same text.  Also the one reader of that
 * JSON back: a check that disagrees with what ci recorded says so.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <json-c/json.h>

#include "internal.h"
#include "jsonx.h"
#include "xml.h"

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

	BG_NEED(ctx, res);
	BG_NEED(ctx, out);

	*out = NULL;
	json_object_object_add(run, "id", json_object_new_int64(res->run_id));
	json_object_object_add(run, "commit", json_object_new_string(res->sha));
	json_object_object_add(run, "branch", bg_json__str(NULL, res->branch));
	json_object_object_add(run, "machine", bg_json__str(NULL, res->machine));
	json_object_object_add(run, "dirty", json_object_new_boolean(res->dirty));
	json_object_object_add(base, "branch", bg_json__str(NULL, res->baseline_branch));
	json_object_object_add(base, "window", json_object_new_int(res->window));
	json_object_object_add(base, "from", json_object_new_string(res->baseline_from));
	if (res->other_machine) {
		json_object *om = json_object_new_object();

		json_object_object_add(om, "machine", bg_json__str(NULL, res->other_machine));
		json_object_object_add(om, "runs",
		                       json_object_new_int64((int64_t)res->other_machine_runs));
		json_object_object_add(om, "differs",
		                       bg_json__str(NULL, res->other_machine_differs));
		json_object_object_add(base, "other_machine", om);
	} else {
		json_object_object_add(base, "other_machine", NULL);
	}
	if (res->stale_commits) {
		json_object *st = json_object_new_object();

		json_object_object_add(st, "commits",
		                       json_object_new_int64((int64_t)res->stale_commits));
		json_object_object_add(st, "reference", json_object_new_string(res->reference));
		json_object_object_add(base, "stale", st);
	} else {
		json_object_object_add(base, "stale", NULL);
	}
	if (res->missing_runs) {
		json_object *mc = json_object_new_object();

		json_object_object_add(mc, "runs",
		                       json_object_new_int64((int64_t)res->missing_runs));
		json_object_object_add(mc, "stored_runs",
		                       json_object_new_int64((int64_t)res->stored_runs));
		json_object_object_add(base, "missing_commits", mc);
	} else {
		json_object_object_add(base, "missing_commits", NULL);
	}
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
		/* Without it "pairs": 4 would claim pairs that were never made
		 * when the reference did not build and ci ran the series alone. */
		json_object_object_add(c, "alone", json_object_new_boolean(res->confirm_alone));
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
		bg_unit__pct(buf, len, change, 2);
	else
		snprintf(buf, len, "-");
}

void bg_check__delta(char *buf, size_t len, const bg_test *t)
{
	/* No relative change from a zero mean: say where it moved from. */
	if (bg_verdict__from_zero(t->delta, t->base_mean, t->cur_mean))
		snprintf(buf, len, "from 0");
	else
		bg_check__pct(buf, len, t->delta);
}

const char *bg_check__moved(char *buf, size_t len, const bg_test *t)
{
	if (bg_verdict__from_zero(t->delta, t->base_mean, t->cur_mean))
		snprintf(buf, len, "from 0");
	else if (!isfinite(t->delta))
		snprintf(buf, len, "n/a");
	else
		bg_unit__pct(buf, len, t->delta, 1);
	return buf;
}

double bg_check__shown_p(const bg_test *t, double p_worse, double p_better)
{
	double side = isnan(t->change) ? t->t : t->change;

	return side < 0 ? p_better : p_worse;
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

/* What a confirmation stood on: "p 0.0003", or, where it has no p (a
 * near-deterministic series, judged by its threshold), "its noise floor";
 * it read "p -". */
static const char *confirm_evidence(char *buf, size_t len, double p_adj)
{
	char p[24];

	if (!isfinite(p_adj))
		snprintf(buf, len, "its noise floor");
	else {
		bg_check__p(p, sizeof(p), p_adj);
		snprintf(buf, len, "p %s", p);
	}
	return buf;
}

void bg_check__confirm_text(const bg_verdict_row *r, char *buf, size_t len)
{
	const bg_confirmation *c = &r->confirm;
	const char *what = c->design == BG_DESIGN_PAIRED ? "pair" : "more run";
	char p[32], pct[32];

	if (c->status == BG_CONFIRM_NONE) {
		snprintf(buf, len, "%s", r->undecided ? "undecided" : "");
		return;
	}
	confirm_evidence(p, sizeof(p), c->p_adjusted);
	snprintf(buf, len, "%s: %s in %zu %s%s (%s)",
	         c->status == BG_CONFIRM_NOT_CONFIRMED ? "not confirmed"
	                                               : bg_confirm_status_name(c->status),
	         bg_check__moved(pct, sizeof(pct), &c->test), c->pairs, what,
	         c->pairs == 1 ? "" : "s", p);
}

/* s as a cell, cut where a character starts, with an ellipsis, if longer
 * than a cell holds (a message; a name from a database before the bound). */
static void cell_text(char cell[BG_CHECK_CELL], const char *s)
{
	size_t n = strlen(s);

	if (n < BG_CHECK_CELL) {
		memcpy(cell, s, n + 1);
		return;
	}
	n = bg_text__char_start(s, BG_CHECK_CELL - 4);
	memcpy(cell, s, n);
	memcpy(cell + n, "\xE2\x80\xA6", 4);
}

int bg_check__row_cells(const bg_verdict_row *r, int md, char cells[9][BG_CHECK_CELL])
{
	/* A value and its unit, the unit as long as a name may be. */
	char a[BG_NAME_MAX + 48], b[BG_NAME_MAX + 48];

	snprintf(cells[0], BG_CHECK_CELL,
	         md && r->verdict == BG_VERDICT_REGRESSION ? "**%s**" : "%s",
	         bg_verdict_name(r->verdict));
	if (md)
		snprintf(cells[1], BG_CHECK_CELL, "`%s`", r->series);
	else
		cell_text(cells[1], r->series);
	cells[2][0] = cells[3][0] = cells[4][0] = cells[5][0] = cells[6][0] = '\0';
	if (tested(r)) {
		bg_unit_format(a, sizeof(a), r->test.base_mean, r->unit);
		bg_unit_format(b, sizeof(b), r->test.base_ci, r->unit);
		snprintf(cells[2], BG_CHECK_CELL, "%s ± %s", a, b);
		bg_unit_format(cells[3], BG_CHECK_CELL, r->test.cur_mean, r->unit);
		/* The mean's own movement; the verdict says whether that is good. */
		bg_check__delta(cells[4], BG_CHECK_CELL, &r->test);
		if (r->deterministic)
			/* No p: the threshold judged it, against this floor. */
			snprintf(cells[5], BG_CHECK_CELL, "floor %.2g%%", 100.0 * r->noise_floor);
		else
			bg_check__p(
			        cells[5], BG_CHECK_CELL,
			        bg_check__shown_p(&r->test, r->p_adjusted, r->p_better_adjusted));
		if (isfinite(r->test.effect))
			snprintf(cells[6], BG_CHECK_CELL, "%.2f", r->test.effect);
		else if (isnan(r->test.effect))
			snprintf(cells[6], BG_CHECK_CELL, "-"); /* too few runs to size */
		else
			snprintf(cells[6], BG_CHECK_CELL, "%s",
			         r->test.effect > 0 ? "inf" : "-inf");
	} else if (r->message) {
		cell_text(cells[2], r->message);
	}
	snprintf(cells[7], BG_CHECK_CELL, "%zu/%zu", r->baseline_runs, r->current_runs);
	bg_check__confirm_text(r, cells[8], BG_CHECK_CELL);
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

/* The counts in words, as the trend report writes them ("2 regressions,
 * 1 without a baseline"), not the verdicts' names (JSON's, the table's). */
int bg_check__summary_line(const bg_check_result *res, bg_buf *b)
{
	/* Each verdict's count, of one and of several. */
	static const char *const words[BG_VERDICT_COUNT][2] = {
		[BG_VERDICT_REGRESSION] = { "regression", "regressions" },
		[BG_VERDICT_IMPROVEMENT] = { "improvement", "improvements" },
		[BG_VERDICT_UNCHANGED] = { "unchanged", "unchanged" },
		[BG_VERDICT_NO_BASELINE] = { "without a baseline", "without a baseline" },
		[BG_VERDICT_SKIPPED] = { "skipped", "skipped" },
		[BG_VERDICT_FAILED] = { "failed", "failed" },
	};
	int v, first = 1, e = 0;

	for (v = 0; v < BG_VERDICT_COUNT; v++) {
		if (!res->count[v])
			continue;
		e |= bg_buf_printf(b, "%s%zu %s", first ? "" : ", ", res->count[v],
		                   words[v][res->count[v] != 1]);
		first = 0;
	}
	e |= bg_buf_puts(b, "\n");
	return e ? BG_ENOMEM : 0;
}

/* The Markdown verdict with the table's first `nshow` rows (the most
 * important: rows are sorted regressions and failures first) and, when
 * that leaves some out, a line saying how many. */
static int markdown(bg_ctx *ctx, const bg_check_result *res, size_t nshow, char **out)
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
	for (i = 0; i < res->nrows && i < nshow && !e; i++) {
		char cells[9][BG_CHECK_CELL];
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
	if (nshow < res->nrows)
		e |= bg_buf_printf(&b,
		                   "%zu more row%s not shown here, to stay within the size "
		                   "limit; the command's own output lists every row.\n\n",
		                   res->nrows - nshow, res->nrows - nshow == 1 ? "" : "s");
	e |= bg_check__summary_line(res, &b);
	if (res->other_machine) {
		bg_buf opt = BG_BUF_INIT;

		e |= bg_buf_puts(
		        &b, "\n**No run of this machine to judge against.** The database has ");
		e |= bg_buf_printf(&b, "%zu run%s of machine ", res->other_machine_runs,
		                   res->other_machine_runs == 1 ? "" : "s");
		e |= bg_text__escape(&b, BG_ESC_MD_CODE, res->other_machine);
		if (res->other_machine_differs) {
			e |= bg_buf_puts(&b, " (facts that differ, there -> here: ");
			e |= bg_text__escape(&b, BG_ESC_MD, res->other_machine_differs);
			e |= bg_buf_puts(&b, ")");
		}
		e |= bg_buf_puts(&b, ", so a regression in this run would pass. If that is this "
		                     "runner class, judge against it with ");
		e |= bg_buf_printf(&opt, "--machine %s", res->other_machine);
		e |= bg_text__escape(&b, BG_ESC_MD_CODE, opt.ptr ? opt.ptr : "");
		e |= bg_buf_puts(&b, ".\n");
		bg_buf_clear(&opt);
	}
	if (res->stale_commits) {
		e |= bg_buf_puts(&b, "\n**The baseline is older than ");
		e |= bg_text__escape(&b, BG_ESC_MD_CODE, res->baseline_branch);
		e |= bg_buf_printf(&b, ".** %zu commit%s of it, back from ", res->stale_commits,
		                   res->stale_commits == 1 ? "" : "s");
		e |= md_sha(&b, res->baseline_from);
		e |= bg_buf_printf(&b,
		                   " where this commit's history meets it, %s no run of this "
		                   "machine, and the baseline's newest run is of commit ",
		                   res->stale_commits == 1 ? "has" : "have");
		e |= md_sha(&b, res->reference);
		e |= bg_buf_printf(&b,
		                   ", so a change made in %s is judged as this commit's. A "
		                   "results database restored from an older CI cache than the "
		                   "branch's newest lacks their runs.\n",
		                   res->stale_commits == 1 ? "it" : "them");
	}
	if (res->missing_runs) {
		e |= bg_buf_puts(&b, "\n**No run of this machine on the history of ");
		e |= bg_text__escape(&b, BG_ESC_MD_CODE, res->baseline_branch);
		e |= bg_buf_printf(
		        &b,
		        ".** %zu of its %zu stored runs are of commits this repository "
		        "does not have (a history rewritten by a force-push or rebase?), "
		        "so a regression in this run would pass. Its baseline starts "
		        "again with runs of the branch's commits as they are now.\n",
		        res->missing_runs, res->stored_runs);
	}
	if (res->confirm_pairs && res->confirm_alone)
		e |= bg_buf_printf(&b,
		                   "\nMeasured again alone: %zu more run%s (no reference to pair "
		                   "with) in %.1f s.\n",
		                   res->confirm_pairs, res->confirm_pairs == 1 ? "" : "s",
		                   res->confirm_seconds);
	else if (res->confirm_pairs)
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

int bg_check_markdown(bg_ctx *ctx, const bg_check_result *res, char **out)
{
	BG_NEED(ctx, res);
	BG_NEED(ctx, out);
	return markdown(ctx, res, res->nrows, out);
}

int bg_check_markdown_max(bg_ctx *ctx, const bg_check_result *res, size_t max, char **out)
{
	size_t lo = 0, hi;
	int error;

	BG_NEED(ctx, res);
	BG_NEED(ctx, out);
	hi = res->nrows;
	if ((error = markdown(ctx, res, res->nrows, out)) < 0 || strlen(*out) <= max)
		return error;
	/* The most rows that fit: the table pads every row to its widest
	 * cells, so its size is found by rendering, halving the range. */
	while (lo < hi) {
		size_t mid = lo + (hi - lo + 1) / 2;

		free(*out);
		if ((error = markdown(ctx, res, mid, out)) < 0)
			return error;
		if (strlen(*out) <= max)
			lo = mid;
		else
			hi = mid - 1;
	}
	free(*out);
	return markdown(ctx, res, lo, out);
}

/* ------------------------------------------------------------------ JUnit */

/* The baseline a row was judged against, in words: "100 ms over 20 runs of
 * main" (rolling), "100 ms over 8 runs of commit 0123456789ab" (explicit). */
static int junit_baseline(bg_buf *b, const bg_check_result *res, const bg_verdict_row *r)
{
	char mean[48];

	bg_unit_format(mean, sizeof(mean), r->test.base_mean, r->unit);
	if (res->baseline_branch)
		return bg_buf_printf(b, "baseline %s over %zu run%s of %s", mean, r->baseline_runs,
		                     r->baseline_runs == 1 ? "" : "s", res->baseline_branch);
	return bg_buf_printf(b, "baseline %s over %zu run%s of commit %.12s", mean,
	                     r->baseline_runs, r->baseline_runs == 1 ? "" : "s",
	                     res->baseline_from);
}

/* The evidence of a tested row's first judgement: "p 0.0003 adjusted", or
 * the noise floor a near-deterministic series was judged against. */
static int junit_p(bg_buf *b, const bg_verdict_row *r, double p_adj)
{
	char p[24];

	if (r->deterministic)
		return bg_buf_printf(b, "near-deterministic, noise floor %.2g%%",
		                     100.0 * r->noise_floor);
	bg_check__p(p, sizeof(p), p_adj);
	return bg_buf_printf(b, "p %s adjusted", p);
}

/*
 * The one line a dashboard shows for a regression: the change, its p and
 * what it was compared with.  Measured again, the pairs (or more runs)
 * decided: theirs first, then the first run's against the baseline.
 */
static int junit_message(bg_buf *b, const bg_check_result *res, const bg_verdict_row *r)
{
	const bg_confirmation *c = &r->confirm;
	char pct[32], p[32];
	int e = 0;

	e |= bg_buf_printf(b, "%s: ", bg_verdict_name(r->verdict));
	if (c->status == BG_CONFIRM_CONFIRMED || c->status == BG_CONFIRM_FOUND) {
		bg_check__delta(pct, sizeof(pct), &c->test);
		confirm_evidence(p, sizeof(p), c->p_adjusted);
		if (isfinite(c->p_adjusted))
			strcat(p, " adjusted");
		if (c->design == BG_DESIGN_PAIRED)
			e |= bg_buf_printf(b, "%s in %zu pair%s beside commit %.12s, %s", pct,
			                   c->pairs, c->pairs == 1 ? "" : "s", c->reference, p);
		else
			e |= bg_buf_printf(b, "%s in %zu more run%s, %s", pct, c->pairs,
			                   c->pairs == 1 ? "" : "s", p);
		bg_check__delta(pct, sizeof(pct), &r->test);
		e |= bg_buf_printf(b, " (first run %s against the ", pct);
		e |= junit_baseline(b, res, r);
		e |= bg_buf_puts(b, ")");
		return e ? BG_ENOMEM : 0;
	}
	bg_check__delta(pct, sizeof(pct), &r->test);
	e |= bg_buf_printf(b, "%s, ", pct);
	e |= junit_p(b, r, bg_check__shown_p(&r->test, r->p_adjusted, r->p_better_adjusted));
	e |= bg_buf_puts(b, ", ");
	e |= junit_baseline(b, res, r);
	return e ? BG_ENOMEM : 0;
}

/* A name from outside on one line of the details: a line break it holds
 * (an older or edited database) is shown, not a line of its own. */
static int junit_name(bg_buf *b, const char *s)
{
	return bg_text__escape(b, BG_ESC_TERM, s ? s : "");
}

/* What a row's testcase says in full (a failure's text, a pass's system-out). */
static int junit_details(bg_buf *b, const bg_check_result *res, const bg_verdict_row *r)
{
	char a[48], ci[48], cur[48], pct[32], p[24], conf[256];
	int e = 0;

	e |= bg_buf_puts(b, "series: ");
	e |= junit_name(b, r->series);
	e |= bg_buf_printf(b, "\nverdict: %s\n", bg_verdict_name(r->verdict));
	if (r->metric) {
		e |= bg_buf_puts(b, "unit: ");
		e |= junit_name(b, r->unit);
		e |= bg_buf_printf(b, " (%s is better)\n", bg_direction_name(r->direction));
	}
	if (tested(r)) {
		bg_unit_format(a, sizeof(a), r->test.base_mean, r->unit);
		bg_unit_format(ci, sizeof(ci), r->test.base_ci, r->unit);
		bg_unit_format(cur, sizeof(cur), r->test.cur_mean, r->unit);
		bg_check__delta(pct, sizeof(pct), &r->test);
		e |= bg_buf_printf(b, "baseline: %s ± %s over %zu runs\n", a, ci, r->baseline_runs);
		e |= bg_buf_printf(b, "current: %s over %zu run%s (%zu samples)\nchange: %s\n", cur,
		                   r->current_runs, r->current_runs == 1 ? "" : "s", r->samples,
		                   pct);
		if (r->deterministic) {
			e |= bg_buf_printf(b, "rule: near-deterministic, noise floor %.2g%%\n",
			                   100.0 * r->noise_floor);
		} else {
			bg_check__p(
			        p, sizeof(p),
			        bg_check__shown_p(&r->test, r->p_adjusted, r->p_better_adjusted));
			e |= bg_buf_printf(b, "p (adjusted): %s\n", p);
			if (isfinite(r->test.effect))
				e |= bg_buf_printf(b, "effect size g: %.2f\n", r->test.effect);
		}
	}
	bg_check__confirm_text(r, conf, sizeof(conf));
	if (*conf)
		e |= bg_buf_printf(b, "confirmation: %s\n", conf);
	if (r->message)
		e |= bg_buf_printf(b, "%s\n", r->message);
	e |= bg_buf_printf(b, "commit: %s", res->sha);
	if (res->branch) {
		e |= bg_buf_puts(b, " (");
		e |= junit_name(b, res->branch);
		e |= bg_buf_puts(b, ")");
	}
	e |= bg_buf_puts(b, " on machine ");
	e |= junit_name(b, res->machine);
	e |= bg_buf_puts(b, "\n");
	if (res->baseline_branch) {
		e |= bg_buf_puts(b, "baseline: ");
		e |= junit_name(b, res->baseline_branch);
		e |= bg_buf_printf(b, ", window %d, from %.12s\n", res->window, res->baseline_from);
	} else
		e |= bg_buf_printf(b, "baseline: commit %.12s\n", res->baseline_from);
	return e ? BG_ENOMEM : 0;
}

static const char *bench_of(const bg_verdict_row *r)
{
	return r->benchmark ? r->benchmark : r->series ? r->series : "";
}

/* Rows by benchmark (one <testsuite> each, in name order), report order
 * (regressions first) within one: qsort is not stable, the index is.
 * qsort_r: no global, as a program may render from several threads. */
static int by_benchmark(const void *a, const void *b, void *data)
{
	const bg_verdict_row *rows = data;
	size_t i = *(const size_t *)a, j = *(const size_t *)b;
	int c = strcmp(bench_of(&rows[i]), bench_of(&rows[j]));

	return c ? c : (i > j) - (i < j);
}

static void junit_property(bg_xml__writer *w, const char *name, const char *value)
{
	if (!value || !*value)
		return;
	bg_xml__start(w, "property");
	bg_xml__attr(w, "name", name);
	bg_xml__attr(w, "value", value);
	bg_xml__end(w);
}

/* <failure> or <error>: its message and type, the details as its text. */
static void junit_outcome(bg_xml__writer *w, const char *element, const char *message,
                          const char *type, const char *text)
{
	bg_xml__start(w, element);
	bg_xml__attr(w, "message", message);
	bg_xml__attr(w, "type", type);
	bg_xml__text(w, text);
	bg_xml__end(w);
}

/* One <testcase>: what its outcome element says comes first, for the
 * dashboards that show the first line. */
static int junit_case(bg_xml__writer *w, const bg_check_result *res, const bg_verdict_row *r)
{
	bg_buf msg = BG_BUF_INIT, text = BG_BUF_INIT;
	char *classname = bg_printf("benchguard.%s", bench_of(r));
	int e = !classname;

	e |= junit_details(&text, res, r) < 0;
	bg_xml__start(w, "testcase");
	bg_xml__attr(w, "name", r->metric ? r->metric : bench_of(r));
	bg_xml__attr(w, "classname", classname);
	bg_xml__attr(w, "time", "0");
	switch (r->verdict) {
	case BG_VERDICT_REGRESSION:
		e |= junit_message(&msg, res, r) < 0;
		junit_outcome(w, "failure", msg.ptr, "regression", text.ptr);
		break;
	case BG_VERDICT_FAILED:
		/* The benchmark did not run: an error, as exit 3 is not exit 1. */
		e |= bg_buf_printf(&msg, "failed: %s", r->message ? r->message : "did not run") < 0;
		junit_outcome(w, "error", msg.ptr, "failed", text.ptr);
		break;
	case BG_VERDICT_NO_BASELINE:
	case BG_VERDICT_SKIPPED:
		e |= bg_buf_printf(&msg, "%s: %s", bg_verdict_name(r->verdict),
		                   r->message ? r->message
		                   : r->verdict == BG_VERDICT_SKIPPED
		                           ? "not run on this machine"
		                           : "too few baseline runs") < 0;
		bg_xml__start(w, "skipped");
		bg_xml__attr(w, "message", msg.ptr);
		bg_xml__end(w);
		bg_xml__start(w, "system-out");
		bg_xml__text(w, text.ptr);
		bg_xml__end(w);
		break;
	default: /* improvement, unchanged: passed */
		bg_xml__start(w, "system-out");
		bg_xml__text(w, text.ptr);
		bg_xml__end(w);
	}
	bg_xml__end(w);
	bg_buf_clear(&msg);
	bg_buf_clear(&text);
	free(classname);
	return e ? BG_ENOMEM : 0;
}

typedef struct {
	size_t tests, failures, errors, skipped;
} junit_counts;

static void junit_count(junit_counts *n, const bg_verdict_row *r)
{
	n->tests++;
	n->failures += r->verdict == BG_VERDICT_REGRESSION;
	n->errors += r->verdict == BG_VERDICT_FAILED;
	n->skipped += r->verdict == BG_VERDICT_NO_BASELINE || r->verdict == BG_VERDICT_SKIPPED;
}

static void junit_counts_attrs(bg_xml__writer *w, const junit_counts *n)
{
	bg_xml__attrf(w, "tests", "%zu", n->tests);
	bg_xml__attrf(w, "failures", "%zu", n->failures);
	bg_xml__attrf(w, "errors", "%zu", n->errors);
	bg_xml__attrf(w, "skipped", "%zu", n->skipped);
	/* No series has a duration of its own: the runs are the benchmarks'. */
	bg_xml__attr(w, "time", "0");
}

int bg_check_junit(bg_ctx *ctx, const bg_check_result *res, char **out)
{
	bg_xml__writer *w = NULL;
	junit_counts all = { 0, 0, 0, 0 };
	size_t *idx = NULL, i, j, k;
	char window[24];
	int e = 0;

	BG_NEED(ctx, res);
	BG_NEED(ctx, out);

	*out = NULL;
	if ((e = bg_xml__writer_new(ctx, &w)) < 0)
		return e;
	if (res->nrows && !(idx = malloc(res->nrows * sizeof(*idx)))) {
		bg_xml__finish(ctx, w, out);
		return bg_error_oom(ctx);
	}
	for (i = 0; i < res->nrows; i++) {
		idx[i] = i;
		junit_count(&all, &res->rows[i]);
	}
	if (res->nrows)
		qsort_r(idx, res->nrows, sizeof(*idx), by_benchmark, res->rows);
	snprintf(window, sizeof(window), "%d", res->window);
	bg_xml__start(w, "testsuites");
	bg_xml__attr(w, "name", "benchguard");
	junit_counts_attrs(w, &all);
	for (i = 0; i < res->nrows && !e; i = j) {
		const char *bench = bench_of(&res->rows[idx[i]]);
		junit_counts n = { 0, 0, 0, 0 };

		for (j = i; j < res->nrows && !strcmp(bench_of(&res->rows[idx[j]]), bench); j++)
			junit_count(&n, &res->rows[idx[j]]);
		bg_xml__start(w, "testsuite");
		bg_xml__attr(w, "name", bench);
		junit_counts_attrs(w, &n);
		bg_xml__start(w, "properties");
		junit_property(w, "commit", res->sha);
		junit_property(w, "branch", res->branch);
		junit_property(w, "machine", res->machine);
		junit_property(w, "baseline.branch", res->baseline_branch);
		junit_property(w, "baseline.from", res->baseline_from);
		junit_property(w, "baseline.window", window);
		bg_xml__end(w);
		for (k = i; k < j && !e; k++)
			e |= junit_case(w, res, &res->rows[idx[k]]) < 0;
		bg_xml__end(w);
	}
	bg_xml__end(w);
	free(idx);
	if (e) {
		bg_xml__finish(ctx, w, out);
		free(*out);
		*out = NULL;
		return bg_error_oom(ctx);
	}
	return bg_xml__finish(ctx, w, out);
}

/* For the index of a result's rows by series. */
static int same_series(const void *set, size_t entry, const void *key)
{
	const bg_check_result *res = set;

	return res->rows[entry].series && !strcmp(res->rows[entry].series, key);
}

/* At most this many series named when ci recorded other verdicts. */
#define BG_RECORDED_SHOWN 5

/*
 * A warning when ci recorded, for run `run_id`, verdicts other than those
 * this check reached: a plain check judges the stored runs alone, and a
 * series ci measured again in pairs and did not confirm is a regression
 * here.  A CI step that ran `check --format junit` after `ci` failed the
 * build ci had passed, with no word of why.  The recorded check is read
 * back as the JSON ci stored; one it cannot read is no reason to fail.
 */
int bg_check__warn_recorded(bg_ctx *ctx, bg_store *store, const bg_check_result *res,
                            int64_t run_id)
{
	char *text = NULL;
	json_object *top = NULL, *rows;
	bg_buf list = BG_BUF_INIT;
	bg_index ix = { 0 };
	size_t i, k, n, differ = 0;
	int error;

	if ((error = bg_store_recorded_json(ctx, store, run_id, &text)) < 0 || !text)
		return error;
	/* By series: a check of 1,000 series against ci's 1,000 rows. */
	for (k = 0; k < res->nrows; k++)
		if (res->rows[k].series &&
		    bg_index__add(&ix, bg_index__hash(res->rows[k].series, NULL), k) < 0) {
			error = bg_error_oom(ctx);
			goto cleanup;
		}
	if (!(top = json_tokener_parse(text)) ||
	    !json_object_object_get_ex(top, "results", &rows) ||
	    !json_object_is_type(rows, json_type_array))
		goto cleanup;
	n = json_object_array_length(rows);
	for (i = 0; i < n; i++) {
		json_object *row = json_object_array_get_idx(rows, i), *s, *v, *c, *st;
		bg_verdict recorded;
		const char *status = NULL;

		if (!json_object_object_get_ex(row, "series", &s) ||
		    !json_object_object_get_ex(row, "verdict", &v) ||
		    bg_verdict_from_name(json_object_get_string(v), &recorded) < 0)
			continue;
		if (json_object_object_get_ex(row, "confirmation", &c) &&
		    json_object_object_get_ex(c, "status", &st))
			status = json_object_get_string(st);
		k = bg_index__find(&ix, bg_index__hash(json_object_get_string(s), NULL),
		                   same_series, res, json_object_get_string(s));
		if (k == BG_INDEX_NONE || res->rows[k].verdict == recorded)
			continue;
		if (differ++ < BG_RECORDED_SHOWN &&
		    bg_buf_printf(&list, "%s%s %s%s%s%s here %s", differ > 1 ? "; " : "",
		                  res->rows[k].series, bg_verdict_name(recorded),
		                  status ? " (" : "", status ? status : "", status ? ")," : ",",
		                  bg_verdict_name(res->rows[k].verdict)) < 0) {
			error = bg_error_oom(ctx);
			goto cleanup;
		}
	}
	if (differ)
		bg_log(ctx, BG_LOG_WARN,
		       "ci recorded other verdicts for run %lld: %s%s; check judges the stored "
		       "runs "
		       "against the baseline alone, without ci's pairs (`benchguard history` shows "
		       "ci's)",
		       (long long)run_id, list.ptr ? list.ptr : "",
		       differ > BG_RECORDED_SHOWN ? "; and more" : "");
cleanup:
	json_object_put(top);
	free(text);
	bg_buf_clear(&list);
	bg_index__free(&ix);
	return error;
}
