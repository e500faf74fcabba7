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

/* Seconds, bytes and bytes per second scaled to the series' typical value:
 * 123 µs reads at a glance where 0.000123 s does not.  Other units as stored. */
disp_unit bg_report__display_unit(const rep_series *s)
{
	static const char *const tu[] = { "s", "ms", "µs", "ns" };
	static const char *const bu[] = { "B", "KiB", "MiB", "GiB", "TiB" };
	static const char *const ru[] = { "B/s", "kB/s", "MB/s", "GB/s", "TB/s" };
	disp_unit d = { 1.0, s->unit };
	double typical = 0.0;
	size_t i = 0;

	for (i = 0; i < s->n; i++)
		typical += fabs(s->mean[i]) / (double)s->n;
	i = 0;
	if (!strcmp(s->unit, "s")) {
		while (i < 3 && typical > 0 && typical * d.scale < 1.0) {
			d.scale *= 1000.0;
			i++;
		}
		d.unit = tu[i];
	} else if (!strcmp(s->unit, "B")) {
		while (i < 4 && typical / d.scale >= 1024.0) {
			d.scale /= 1024.0;
			i++;
		}
		d.unit = bu[i];
	} else if (!strcmp(s->unit, "B/s")) {
		while (i < 4 && typical / d.scale >= 1000.0) {
			d.scale /= 1000.0;
			i++;
		}
		d.unit = ru[i];
	}
	return d;
}

void bg_report__fmt_pct(char *buf, size_t len, double change)
{
	if (isfinite(change))
		snprintf(buf, len, "%+.1f%%", 100.0 * change);
	else
		snprintf(buf, len, "n/a");
}

/* ------------------------------------------------------------------ public */

int bg_report_format_from_name(const char *name, bg_report_format *out)
{
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
