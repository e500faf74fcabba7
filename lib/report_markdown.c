/*
 * report_markdown.c -- the trend report as Markdown, for an issue or a PR
 * comment.
 *
 * Tables only, no charts: a comment box shows neither SVG nor scripts.  The
 * summary, the steps worst first, what the newest commit is flagged for and
 * the noisiest series come first, since a comment is read from the top and
 * seldom to the end.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include "report_model.h"

/* Text from outside, as inline Markdown and as a code span (lib/text.c). */
static int md_cell(bg_buf *b, const char *text)
{
	return bg_text__escape(b, BG_ESC_MD, text);
}

static int md_code(bg_buf *b, const char *text)
{
	return bg_text__escape(b, BG_ESC_MD_CODE, text);
}

/* A commit's short id as a code span (a baseline file may have held anything). */
static int md_sha(bg_buf *b, const char *sha)
{
	char s[8];

	snprintf(s, sizeof(s), "%.7s", sha ? sha : "");
	return md_code(b, s);
}

/* Two commits' short ids as one code span, "before..after". */
static int md_range(bg_buf *b, const char *from, const char *to)
{
	char s[24];

	snprintf(s, sizeof(s), "%.7s..%.7s", from ? from : "", to ? to : "");
	return md_code(b, s);
}

/* A series as a table names it: with several machines, which one too
 * (the report has a series per machine, alike in name). */
static int md_series(bg_buf *b, const bg_report *r, const rep_series *s)
{
	int e = md_code(b, s->name);

	if (r->nmachines > 1) {
		e |= bg_buf_puts(b, " on ");
		e |= md_code(b, s->machine);
	}
	return e;
}

static int md_summary_line(const bg_report *r, bg_buf *b)
{
	char from[32], to[32];
	size_t i;
	int e = 0;

	bg_report__fmt_since(from, sizeof(from), r->since);
	bg_report__fmt_date(to, sizeof(to), r->now, "%Y-%m-%d %H:%M UTC");
	e |= bg_buf_printf(b, "Runs from %s to %s", r->since ? from : "the first run", to);
	if (r->by_git) {
		e |= bg_buf_puts(b, " on the first-parent history of ");
		e |= md_code(b, r->branch);
	} else
		e |= bg_buf_puts(b, " in run-time order");
	e |= bg_buf_printf(b, ": %zu series, %zu run%s, %zu commit%s.", r->nseries, r->shown_runs,
	                   r->shown_runs == 1 ? "" : "s", r->shown_commits,
	                   r->shown_commits == 1 ? "" : "s");
	if (r->excluded)
		e |= bg_buf_printf(b, " %zu run%s on other branches left out.", r->excluded,
		                   r->excluded == 1 ? "" : "s");
	e |= bg_buf_puts(b, "\nMachine");
	e |= bg_buf_puts(b, r->nmachines == 1 ? ": " : "s: ");
	for (i = 0; i < r->nmachines; i++) {
		e |= bg_buf_puts(b, i ? ", " : "");
		e |= md_code(b, r->machines[i]);
		if (r->cpus[i]) {
			e |= bg_buf_puts(b, " (");
			e |= md_cell(b, r->cpus[i]);
			e |= bg_buf_puts(b, ")");
		}
	}
	if (!r->nmachines)
		e |= bg_buf_puts(b, "none");
	e |= bg_buf_printf(
	        b,
	        ".\n\n**Steps in the period:** %zu regression%s, %zu improvement%s. "
	        "**Newest commit** (ci's verdict where ci judged it, else the "
	        "check replayed): %zu regression%s, %zu improvement%s, %zu unchanged "
	        "(%zu flagged, not confirmed), %zu without a baseline. "
	        "**Flagged by a first run, not confirmed** in the period: %zu.\n\n",
	        r->steps[0], r->steps[0] == 1 ? "" : "s", r->steps[1], r->steps[1] == 1 ? "" : "s",
	        r->latest[BG_VERDICT_REGRESSION], r->latest[BG_VERDICT_REGRESSION] == 1 ? "" : "s",
	        r->latest[BG_VERDICT_IMPROVEMENT],
	        r->latest[BG_VERDICT_IMPROVEMENT] == 1 ? "" : "s", r->latest[BG_VERDICT_UNCHANGED],
	        r->latest_unconfirmed, r->latest[BG_VERDICT_NO_BASELINE], r->unconfirmed);
	return e ? BG_ENOMEM : 0;
}

/* A commit flagged at the newest commit: the replayed figures when the
 * replay had a baseline, and whose verdict it is. */
static int md_flagged_row(const bg_report *r, const rep_series *x, const rep_group *g, bg_buf *b)
{
	char pct[32] = "-", p[32] = "-", n[24] = "-";
	int e = 0;

	if (g->replayed != BG_VERDICT_NO_BASELINE) {
		bg_report__fmt_delta(pct, sizeof(pct), &g->test);
		/* No p-value: a near-deterministic series is judged by its threshold. */
		snprintf(p, sizeof(p), isnan(g->p_adjusted) ? "—" : "%.2g", g->p_adjusted);
		snprintf(n, sizeof(n), "%zu", g->test.n_base);
	}
	e |= bg_buf_puts(b, "| ");
	e |= md_series(b, r, x);
	e |= bg_buf_puts(b, " | ");
	e |= md_sha(b, bg_report__point_run(r, x, g->from)->row.sha);
	e |= bg_buf_printf(b, " | %s | %s | %s | %s%s |\n", pct, p, n, bg_verdict_name(g->verdict),
	                   g->recorded ? " (ci)" : "");
	return e ? BG_ENOMEM : 0;
}

static int md_step_row(const bg_report *r, const rep_series *s, const bg_changepoint *c,
                       int with_series, bg_buf *b)
{
	const rep_run *before = bg_report__point_run(r, s, c->index - 1),
	              *after = bg_report__point_run(r, s, c->index);
	disp_unit d = bg_report__display_unit(s);
	char pct[32];
	int e = 0;

	bg_report__fmt_pct(pct, sizeof(pct), c->change);
	e |= bg_buf_puts(b, "| ");
	if (with_series) {
		e |= md_series(b, r, s);
		e |= bg_buf_puts(b, " | ");
	}
	e |= md_range(b, before->row.sha, after->row.sha);
	e |= bg_buf_printf(b, " | %.4g ", c->before * d.scale);
	e |= md_cell(b, d.unit);
	e |= bg_buf_printf(b, " | %.4g ", c->after * d.scale);
	e |= md_cell(b, d.unit);
	e |= bg_buf_printf(b, " | %s | %.2g | %s | ", pct, c->p,
	                   bg_verdict_name(bg_report__step_verdict(s, c)));
	e |= md_cell(b, after->row.subject);
	e |= bg_buf_puts(b, " |\n");
	return e ? BG_ENOMEM : 0;
}

static const char md_step_head[] =
        "| commits | before | after | change | p | verdict | first commit after |\n"
        "|---|---:|---:|---:|---:|---|---|\n";
static const char md_step_head_series[] =
        "| series | commits | before | after | change | p | verdict | first commit after |\n"
        "|---|---|---:|---:|---:|---:|---|---|\n";

int bg_report__render_markdown(bg_ctx *ctx, const bg_report *r, bg_buf *b)
{
	const rep_series *top5[5];
	step_ref *steps = NULL;
	size_t i, k, n;
	int e = 0;

	e |= bg_buf_puts(b, "## benchguard report");
	if (r->project) {
		e |= bg_buf_puts(b, ": ");
		e |= md_cell(b, r->project);
	}
	e |= bg_buf_puts(b, "\n\n");
	e |= md_summary_line(r, b);
	if (!(steps = bg_report__all_steps(r, &n)))
		return bg_error_oom(ctx);
	if (n) {
		e |= bg_buf_puts(b, "### Steps in the period\n\n");
		e |= bg_buf_puts(b, md_step_head_series);
		for (i = 0; i < n; i++)
			e |= md_step_row(r, steps[i].s, steps[i].c, 1, b);
		e |= bg_buf_puts(b, "\n");
	}
	free(steps);
	/* Said as the HTML page says it: a nightly issue with only a summary
	 * line of zeros would leave the reader to guess why. */
	switch (bg_report__empty(r)) {
	case REP_EMPTY_FILTER:
		e |= bg_buf_puts(b, "No series matches `--filter` ");
		e |= md_code(b, r->filter);
		e |= bg_buf_printf(b, " (%zu run%s in this period).\n\n", r->nruns,
		                   r->nruns == 1 ? "" : "s");
		break;
	case REP_EMPTY_NO_SERIES:
		e |= bg_buf_printf(b, "No series in this period: its %zu run%s measured none.\n\n",
		                   r->nruns, r->nruns == 1 ? "" : "s");
		break;
	case REP_EMPTY_NO_RUNS:
		e |= bg_buf_puts(b, "No runs in this period.\n\n");
		break;
	case REP_EMPTY_NOT:
		break;
	}
	if (r->latest[BG_VERDICT_REGRESSION] + r->latest[BG_VERDICT_IMPROVEMENT]) {
		e |= bg_buf_puts(b,
		                 "### Flagged at the newest commit\n\n| series | commit | change | "
		                 "p (adjusted) | baseline runs | verdict |\n"
		                 "|---|---|---:|---:|---:|---|\n");
		for (i = 0; i < r->nseries; i++) {
			const rep_series *x = &r->series[i];
			const rep_group *g = bg_report__flagged_latest(x);

			if (!g)
				continue;
			e |= md_flagged_row(r, x, g, b);
		}
		e |= bg_buf_puts(b, "\n");
	}
	if (r->unconfirmed) {
		/* Shown apart from regressions: what a first run flagged and the
		 * pairs beside the baseline commit did not show. */
		e |= bg_buf_puts(b,
		                 "### Flagged, not confirmed\n\n| series | commit | first "
		                 "verdict | verdict | commit subject |\n|---|---|---|---|---|\n");
		for (i = 0; i < r->nseries; i++) {
			const rep_series *x = &r->series[i];

			for (k = 0; k < x->ngroups; k++) {
				const rep_group *g = &x->groups[k];

				if (!bg_report__unconfirmed(g))
					continue;
				e |= bg_buf_puts(b, "| ");
				e |= md_series(b, r, x);
				e |= bg_buf_puts(b, " | ");
				e |= md_sha(b, bg_report__point_run(r, x, g->from)->row.sha);
				e |= bg_buf_printf(b, " | %s | %s | ", bg_verdict_name(g->first),
				                   bg_verdict_name(g->verdict));
				e |= md_cell(b, bg_report__point_run(r, x, g->from)->row.subject);
				e |= bg_buf_puts(b, " |\n");
			}
		}
		e |= bg_buf_puts(b, "\n");
	}
	n = bg_report__noisiest(r, top5, BG_ARRAY_SIZE(top5));
	if (n) {
		e |= bg_buf_puts(b,
		                 "### Noisiest series\n\n| series | noise (CV between commits) |\n"
		                 "|---|---:|\n");
		for (i = 0; i < n; i++) {
			e |= bg_buf_puts(b, "| ");
			e |= md_series(b, r, top5[i]);
			e |= bg_buf_printf(b, " | %.2f%% |\n", 100.0 * top5[i]->cv);
		}
		e |= bg_buf_puts(b, "\n");
	}
	if (r->nseries) {
		e |= bg_buf_puts(b, "### Series\n\n| series | commits | newest commit | change | "
		                    "noise (CV) | steps |\n|---|---:|---|---:|---:|---:|\n");
		for (i = 0; i < r->nseries; i++) {
			const rep_series *s = &r->series[i];
			const rep_group *g = bg_report__latest_group(s);
			char pct[32] = "";

			if (g && g->replayed != BG_VERDICT_NO_BASELINE)
				bg_report__fmt_delta(pct, sizeof(pct), &g->test);
			e |= bg_buf_puts(b, "| ");
			e |= md_series(b, r, s);
			e |= bg_buf_printf(b, " | %zu | %s%s | %s | %.2f%% | %zu |\n", s->n,
			                   g ? bg_report__group_label(g) : "no-baseline",
			                   g && g->recorded ? " (ci)" : "", pct, 100.0 * s->cv,
			                   s->cps.npoints);
		}
		e |= bg_buf_puts(b, "\n");
	}
	for (i = 0; i < r->nseries; i++) {
		const rep_series *s = &r->series[i];

		e |= bg_buf_puts(b, "#### ");
		e |= md_code(b, s->name);
		if (r->nmachines > 1) {
			e |= bg_buf_puts(b, " on ");
			e |= md_code(b, s->machine);
		}
		e |= bg_buf_puts(b, " (");
		e |= md_cell(b, bg_report__display_unit(s).unit);
		e |= bg_buf_printf(b, ", %s is better)\n\n", bg_direction_name(s->direction));
		if (!s->cps.npoints) {
			e |= bg_buf_puts(b, "No steps.\n\n");
			continue;
		}
		e |= bg_buf_puts(b, md_step_head);
		for (k = 0; k < s->cps.npoints; k++)
			e |= md_step_row(r, s, &s->cps.points[k], 0, b);
		e |= bg_buf_puts(b, "\n");
	}
	return e ? bg_error_oom(ctx) : 0;
}
