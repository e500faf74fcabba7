/*
 * report_render.c -- bg_report_render: picks the renderer for a format, and
 * keeps what the human-readable renderings share.
 *
 * The display unit and the percentage format live here rather than in one
 * renderer so that the HTML page and the Markdown comment never disagree on
 * how the same number reads.
 */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "report_model.h"
#include "units.h"

/* Seconds, bytes and bytes per second scaled to the series' typical value
 * (lib/units.c's steps): 123 µs reads at a glance where 0.000123 s does
 * not.  Other units as stored. */
disp_unit bg_report__display_unit(const rep_series *s)
{
	disp_unit d;
	double typical = 0.0;
	size_t i;

	for (i = 0; i < s->n; i++)
		typical += fabs(s->mean[i]) / (double)s->n;
	d.unit = bg_unit__display(s->unit, typical, &d.scale);
	return d;
}

void bg_report__fmt_pct(char *buf, size_t len, double change)
{
	if (isfinite(change))
		bg_unit__pct(buf, len, change, 1);
	else
		snprintf(buf, len, "n/a");
}

const char *bg_report__fmt_delta(char *buf, size_t len, const rep_test *t)
{
	if (bg_verdict__from_zero(t->delta, t->base_mean, t->cur_mean))
		snprintf(buf, len, "from 0");
	else
		bg_report__fmt_pct(buf, len, t->delta);
	return buf;
}

rep_empty bg_report__empty(const bg_report *r)
{
	if (r->nseries)
		return REP_EMPTY_NOT;
	if (r->nruns && r->filter)
		return REP_EMPTY_FILTER;
	return r->nruns ? REP_EMPTY_NO_SERIES : REP_EMPTY_NO_RUNS;
}

/* ------------------------------------------------------------------ public */

int bg_report_format_from_name(const char *name, bg_report_format *out)
{
	if (!name || !out)
		return BG_EINPUT;
	if (!strcmp(name, "html"))
		*out = BG_REPORT_HTML;
	else if (!strcmp(name, "markdown") || !strcmp(name, "md"))
		*out = BG_REPORT_MARKDOWN;
	else if (!strcmp(name, "json"))
		*out = BG_REPORT_JSON;
	else
		return BG_EINPUT;
	return 0;
}

int bg_report_render(bg_ctx *ctx, const bg_report *r, bg_report_format format, char **text,
                     size_t *len)
{
	bg_buf b = BG_BUF_INIT;
	int error;

	BG_NEED(ctx, r);
	BG_NEED(ctx, text);
	BG_NEED(ctx, len);

	*text = NULL;
	*len = 0;
	switch (format) {
	case BG_REPORT_HTML:
		error = bg_report__render_html(ctx, r, &b);
		break;
	case BG_REPORT_MARKDOWN:
		error = bg_report__render_markdown(ctx, r, &b);
		break;
	case BG_REPORT_JSON:
		error = bg_report__render_json(ctx, r, &b);
		break;
	default:
		error = bg_error_set(ctx, BG_EINPUT, "unknown report format");
	}
	if (error < 0) {
		bg_buf_clear(&b);
		return error;
	}
	*len = b.len;
	if (!(*text = bg_buf_detach(&b)))
		return bg_error_oom(ctx);
	return 0;
}
