/*
 * report_html.c -- the trend report as one self-contained HTML page with an
 * inline SVG chart per series.
 *
 * Self-contained (style and a small script inline, nothing fetched), so
 * that the page opens from a CI artifact or a mail attachment, offline.
 * Each chart draws a series' commit points (their runs pooled) with their
 * CIs, the levels between steps with their 95% bands, the steps, the
 * outlier points and the baseline window the newest commit is judged
 * against.
 *
 * A thousand series of two hundred commits are 200,000 points: an SVG
 * element with a <title> each made a 40 MB page.  So an ordinary point is a
 * vertex of its series' trend line, drawn by a marker; what its tooltip
 * says (commit, date, subject, value, runs) comes from the series' values in
 * data attributes and the period's commits, written once as JSON, read by
 * the script (textContent only: nothing in a name or a subject becomes
 * markup).  Flagged and outlier points keep an element and a <title> of
 * their own, readable without the script.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include "report_model.h"

/* Text from outside, for HTML text and quoted attributes (lib/text.c). */
static int html_esc(bg_buf *b, const char *text)
{
	return bg_text__escape(b, BG_ESC_HTML, text);
}

/* The first n characters of a commit id, escaped: a baseline file may
 * have held anything where a hexadecimal id belongs. */
/* A verdict's adjusted p, or a dash for a near-deterministic series,
 * which its threshold judges without one. */
static const char *p_text(char *buf, size_t n, double p)
{
	if (isnan(p))
		return "—";
	snprintf(buf, n, "%.2g", p);
	return buf;
}

static int html_sha(bg_buf *b, const char *sha, int n)
{
	char s[41];

	snprintf(s, sizeof(s), "%.*s", n, sha ? sha : "");
	return html_esc(b, s);
}

static const char html_head[] =
        "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n"
        "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n"
        "<title>%s</title>\n<style>\n"
        ":root{--fg:#1f2328;--muted:#59636e;--line:#d1d9e0;--bg:#fff;--panel:#f6f8fa;"
        "--reg:#cf222e;--imp:#1a7f37;--blue:#0969da;--band:#54aeff}\n"
        "*{box-sizing:border-box}\n"
        "body{margin:0;font:14px/1.5 system-ui,-apple-system,\"Segoe UI\",Roboto,"
        "\"Helvetica Neue\",Arial,sans-serif;color:var(--fg);background:var(--bg)}\n"
        "main{max-width:1100px;margin:0 auto;padding:24px 20px 64px}\n"
        "h1{font-size:24px;margin:0 0 4px}h2{font-size:18px;margin:32px 0 8px;"
        "padding-bottom:4px;border-bottom:1px solid var(--line)}\n"
        "h3{font-size:15px;margin:0;display:flex;gap:8px;align-items:baseline;flex-wrap:wrap}\n"
        "code,.mono{font-family:ui-monospace,SFMono-Regular,Menlo,Consolas,monospace;"
        "font-size:12.5px}\n"
        ".muted{color:var(--muted)}\n"
        ".cards{display:grid;grid-template-columns:repeat(auto-fit,minmax(170px,1fr));"
        "gap:12px;margin:16px 0}\n"
        ".card{border:1px solid var(--line);border-radius:8px;padding:10px 14px;"
        "background:var(--panel)}\n"
        ".card b{display:block;font-size:24px;line-height:1.2}\n"
        ".card.reg b{color:var(--reg)}.card.imp b{color:var(--imp)}\n"
        "table{border-collapse:collapse;width:100%%;margin:8px 0 4px;font-size:13px}\n"
        "th,td{text-align:left;padding:4px 8px;border-bottom:1px solid var(--line);"
        "vertical-align:top}\n"
        "th{font-weight:600;color:var(--muted);font-size:12px}\n"
        "td.num,th.num{text-align:right;font-variant-numeric:tabular-nums;white-space:nowrap}\n"
        ".badge{font-size:11.5px;font-weight:600;padding:1px 8px;border-radius:10px;"
        "border:1px solid var(--line);color:var(--muted);background:var(--panel)}\n"
        ".badge.regression{color:#fff;background:var(--reg);border-color:var(--reg)}\n"
        ".badge.improvement{color:#fff;background:var(--imp);border-color:var(--imp)}\n"
        "td.regression{color:var(--reg);font-weight:600}"
        "td.improvement{color:var(--imp);font-weight:600}\n"
        "section.series{border:1px solid var(--line);border-radius:8px;padding:14px 16px;"
        "margin:14px 0}\n"
        "section.series p.meta{margin:2px 0 6px;color:var(--muted);font-size:12.5px}\n"
        "svg.chart{display:block;width:100%%;height:auto;overflow:visible}\n"
        ".chart text{font-size:11px;fill:var(--muted);font-family:inherit}\n"
        ".chart .plot{fill:#fff;stroke:var(--line)}\n"
        ".chart .grid{stroke:#eaeef2;stroke-width:1}\n"
        ".chart .base{fill:#ddf4ff;opacity:.8}\n"
        ".chart .base-label{fill:var(--blue);font-weight:600}\n"
        ".chart .band{fill:var(--band);opacity:.22}\n"
        ".chart .level{stroke:var(--blue);stroke-width:2}\n"
        ".chart .ci{stroke:#8c959f;stroke-width:1;opacity:.7}\n"
        ".chart .trend{fill:none;stroke:#8c959f;stroke-width:1;stroke-opacity:.6}\n"
        ".chart .pt{fill:var(--fg);opacity:.85}\n"
        ".chart .pt:hover{opacity:1;stroke:var(--fg);stroke-width:4}\n"
        ".chart .trend{marker:url(#bg-dot)}\n"
        ".tip{position:absolute;z-index:9;white-space:pre-line;max-width:520px;"
        "background:#fff;border:1px solid var(--line);border-radius:6px;padding:6px 10px;"
        "font-size:12.5px;box-shadow:0 2px 8px rgba(31,35,40,.15);pointer-events:none}\n"
        ".chart .pt.outlier{fill:#fff;stroke:#bc4c00;stroke-width:1.5;opacity:1}\n"
        ".chart .pt.regression{fill:var(--reg);opacity:1}\n"
        ".chart .pt.improvement{fill:var(--imp);opacity:1}\n"
        ".chart .pt.unconfirmed{fill:#fff;stroke:var(--reg);stroke-width:1.5;"
        "stroke-dasharray:2 1.5;opacity:1}\n"
        "td.unconfirmed{color:#9a6700}\n"
        ".chart .clip{fill:#bc4c00;font-weight:600}\n"
        ".chart .cp line{stroke-width:1.5;stroke-dasharray:4 3}\n"
        ".chart .cp.regression line{stroke:var(--reg)}"
        ".chart .cp.improvement line{stroke:var(--imp)}\n"
        ".chart .cp text{font-weight:700;font-size:12px}\n"
        ".chart .cp.regression text{fill:var(--reg)}.chart .cp.improvement text{fill:var(--imp)}\n"
        ".legend{display:flex;flex-wrap:wrap;gap:14px;font-size:12.5px;color:var(--muted);"
        "margin:6px 0 0}\n"
        ".legend i{display:inline-block;width:12px;height:12px;border-radius:2px;"
        "margin-right:5px;vertical-align:-1px}\n"
        "a{color:var(--blue);text-decoration:none}a:hover{text-decoration:underline}\n"
        "footer{margin-top:40px;color:var(--muted);font-size:12px}\n"
        "</style>\n</head>\n<body>\n";

/* The dot every trend line's vertices wear, defined once for every chart. */
static const char html_marker[] =
        "<svg width=\"0\" height=\"0\" style=\"position:absolute\" aria-hidden=\"true\">"
        "<marker id=\"bg-dot\" viewBox=\"0 0 6 6\" refX=\"3\" refY=\"3\" markerWidth=\"6\" "
        "markerHeight=\"6\" markerUnits=\"userSpaceOnUse\"><circle cx=\"3\" cy=\"3\" r=\"2.6\" "
        "fill=\"#1f2328\" opacity=\".85\"/></marker></svg>\n<main>\n";

/* What a hover over a chart shows: the nearest point's commit and value. */
static const char html_script[] =
        "<script>\n(function () {\n"
        "  var d = document.getElementById('bg-commits');\n"
        "  if (!d) return;\n"
        "  var commits = JSON.parse(d.textContent), tip = document.createElement('div');\n"
        "  tip.className = 'tip';\n  tip.hidden = true;\n  document.body.appendChild(tip);\n"
        "  document.querySelectorAll('svg.chart[data-v]').forEach(function (svg) {\n"
        "    var ds = svg.dataset, v = ds.v.split(','), c = ds.c ? ds.c.split(',') : null,\n"
        "        k = ds.k ? ds.k.split(',') : null, x0 = +ds.x0, dx = +ds.dx;\n"
        "    svg.addEventListener('mousemove', function (e) {\n"
        "      var r = svg.getBoundingClientRect(), w = svg.viewBox.baseVal.width;\n"
        "      var i = Math.round(((e.clientX - r.left) * w / r.width - x0) / dx);\n"
        "      if (i < 0 || i >= v.length) { tip.hidden = true; return; }\n"
        "      var m = commits[c ? +c[i] : i] || ['?', '', ''];\n"
        "      tip.textContent = m[0] + ' \\u00b7 ' + m[1] + '\\n' + m[2] + '\\n' + v[i] + ' ' +\n"
        "          ds.unit + (k ? ' (' + k[i] + ' runs)' : '');\n"
        "      tip.style.left = (e.pageX + 14) + 'px';\n"
        "      tip.style.top = (e.pageY + 14) + 'px';\n"
        "      tip.hidden = false;\n    });\n"
        "    svg.addEventListener('mouseleave', function () { tip.hidden = true; });\n"
        "  });\n})();\n</script>\n";

/* Chart geometry, in SVG user units. */
#define CH_W 1000.0
#define CH_H 250.0
#define CH_L 72.0
#define CH_R 16.0
#define CH_T 26.0
#define CH_B 34.0

typedef struct {
	double lo, hi, dx;
	size_t n;
	disp_unit d;
} chart_geo;

/* A coordinate with one decimal, without printf: a chart of a thousand
 * series has a million of them. */
static int put_num(bg_buf *b, double v, int tenths)
{
	char tmp[32], *p = tmp + sizeof(tmp);
	long long t = isfinite(v) && fabs(v) < 1e12 ? llround(tenths ? v * 10.0 : v) : 0;
	int neg = t < 0;
	unsigned long long u = neg ? (unsigned long long)(-t) : (unsigned long long)t;

	if (tenths) {
		*--p = (char)('0' + u % 10);
		*--p = '.';
		u /= 10;
	}
	do
		*--p = (char)('0' + u % 10);
	while ((u /= 10) > 0);
	if (neg)
		*--p = '-';
	return bg_buf_put(b, p, (size_t)(tmp + sizeof(tmp) - p));
}

static int put_coord(bg_buf *b, double v)
{
	return put_num(b, v, 1);
}

/* A point's height to the unit: the chart is 250 units tall, so that is its
 * pixel, and the tenths cost a megabyte in a report of 200,000 points. */
static int put_y(bg_buf *b, double v)
{
	return put_num(b, v, 0);
}

static double cx(const chart_geo *g, double i)
{
	return CH_L + (i + 0.5) * g->dx;
}

static double cy(const chart_geo *g, double v)
{
	return CH_T + (g->hi - v) / (g->hi - g->lo) * (CH_H - CH_T - CH_B);
}

/* cy kept inside the plot (outliers beyond the scale sit at its edge). */
static double cy_in(const chart_geo *g, double v)
{
	return fmin(fmax(cy(g, v), CH_T + 3.0), CH_H - CH_B - 3.0);
}

/* A round tick step near range / 4. */
static double tick_step(double range)
{
	double raw = range / 4.0, mag = pow(10.0, floor(log10(raw))), f = raw / mag;

	return mag * (f < 1.5 ? 1.0 : f < 3.5 ? 2.0 : f < 7.5 ? 5.0 : 10.0);
}

static void chart_range(const rep_series *s, chart_geo *g)
{
	size_t i;

	g->lo = INFINITY;
	g->hi = -INFINITY;
	/* Outlier runs do not set the scale: one run twice as slow would
	 * flatten every level; they are drawn at the edge with their value. */
	for (i = 0; i < s->n; i++) {
		double h = isfinite(s->ci[i]) ? s->ci[i] : 0.0;
		if (s->outlier[i])
			continue;
		g->lo = fmin(g->lo, s->mean[i] - h);
		g->hi = fmax(g->hi, s->mean[i] + h);
	}
	for (i = 0; i < s->nlevels; i++) {
		g->lo = fmin(g->lo, s->levels[i].mean - s->levels[i].band);
		g->hi = fmax(g->hi, s->levels[i].mean + s->levels[i].band);
	}
	/* A flat series, or one whose spread is rounding alone (runs that
	 * measured the same values give a spread of 1e-19 s, not 0): a
	 * scale that narrow had tick steps below the values' precision, and
	 * the tick loop never moved. */
	if (!(g->hi - g->lo > fmax(fabs(g->hi), fabs(g->lo)) * 1e-9)) {
		double mid = isfinite(g->hi) && isfinite(g->lo) ? (g->hi + g->lo) / 2 : 0.0;
		double pad = fabs(mid) > 0 ? fabs(mid) * 0.01 : 1.0;
		g->lo = mid - pad;
		g->hi = mid + pad;
	}
	{
		double pad = (g->hi - g->lo) * 0.08;
		g->lo -= pad;
		g->hi += pad;
	}
	g->n = s->n;
	g->dx = (CH_W - CH_L - CH_R) / (double)(s->n ? s->n : 1);
	g->d = bg_report__display_unit(s);
}

static int chart_axes(const rep_series *s, const bg_report *r, const chart_geo *g, bg_buf *b)
{
	double step = tick_step((g->hi - g->lo) * g->d.scale), v;
	size_t i, nt = s->n < 6 ? s->n : 6, ticks = 0;
	int e = 0;

	e |= bg_buf_printf(
	        b, "<rect class=\"plot\" x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" height=\"%.1f\"/>",
	        CH_L, CH_T, CH_W - CH_L - CH_R, CH_H - CH_T - CH_B);
	/* About four ticks; the count bounds the loop whatever the floats do. */
	for (v = ceil(g->lo * g->d.scale / step) * step; v <= g->hi * g->d.scale && ticks < 16;
	     v += step, ticks++) {
		double y = cy(g, v / g->d.scale);
		e |= bg_buf_printf(b,
		                   "<line class=\"grid\" x1=\"%.1f\" x2=\"%.1f\" y1=\"%.1f\" "
		                   "y2=\"%.1f\"/><text x=\"%.1f\" y=\"%.1f\" "
		                   "text-anchor=\"end\">%.4g</text>",
		                   CH_L, CH_W - CH_R, y, y, CH_L - 6, y + 4,
		                   fabs(v) < step * 1e-9 ? 0.0 : v);
	}
	e |= bg_buf_printf(b,
	                   "<text x=\"12\" y=\"%.1f\" transform=\"rotate(-90 12 %.1f)\" "
	                   "text-anchor=\"middle\">",
	                   (CH_T + CH_H - CH_B) / 2, (CH_T + CH_H - CH_B) / 2);
	e |= html_esc(b, g->d.unit);
	e |= bg_buf_puts(b, "</text>");
	/* Commits along the bottom: the first, the last and a few between. */
	for (i = 0; i < nt; i++) {
		size_t k = nt > 1 ? i * (s->n - 1) / (nt - 1) : 0;
		e |= bg_buf_printf(b,
		                   "<text class=\"mono\" x=\"%.1f\" y=\"%.1f\" text-anchor=\"%s\">",
		                   cx(g, (double)k), CH_H - CH_B + 16,
		                   nt > 1 && i == 0        ? "start"
		                   : nt > 1 && i + 1 == nt ? "end"
		                                           : "middle");
		e |= html_sha(b, bg_report__point_run(r, s, k)->row.sha, 7);
		e |= bg_buf_puts(b, "</text>");
	}
	e |= bg_buf_printf(b,
	                   "<text x=\"%.1f\" y=\"%.1f\" text-anchor=\"middle\">commits, oldest to "
	                   "newest (%s order)</text>",
	                   (CH_L + CH_W - CH_R) / 2, CH_H - 4, bg_report__order_name(r));
	return e ? BG_ENOMEM : 0;
}

/* A point that needs a word of its own (flagged, not confirmed, an outlier):
 * an element with its own <title>.  The others are the trend line's dots. */
static int chart_point(const bg_report *r, const rep_series *s, const chart_geo *g, size_t i,
                       bg_buf *b)
{
	const rep_run *run = bg_report__point_run(r, s, i);
	const rep_group *grp = bg_report__point_group(s, i);
	int unconfirmed = grp && bg_report__unconfirmed(grp);
	int flagged = s->flag[i] == BG_VERDICT_REGRESSION || s->flag[i] == BG_VERDICT_IMPROVEMENT ||
	              unconfirmed;
	int e = 0;

	if (!flagged && !s->outlier[i])
		return 0;

	e |= bg_buf_puts(b, "<circle class=\"pt");
	if (s->outlier[i])
		e |= bg_buf_puts(b, " outlier");
	if (unconfirmed)
		e |= bg_buf_puts(b, " unconfirmed");
	else if (flagged) {
		e |= bg_buf_puts(b, " ");
		e |= bg_buf_puts(b, bg_verdict_name(s->flag[i]));
	}
	e |= bg_buf_puts(b, "\" cx=\"");
	e |= put_coord(b, cx(g, (double)i));
	e |= bg_buf_puts(b, "\" cy=\"");
	e |= put_coord(b, cy_in(g, s->mean[i]));
	e |= bg_buf_puts(b, "\" r=\"4\"><title>");
	e |= html_sha(b, run->row.sha, 12);
	e |= bg_buf_puts(b, " · ");
	e |= html_esc(b, run->date);
	e |= bg_buf_puts(b, "\n");
	e |= html_esc(b, run->row.subject);
	e |= bg_buf_printf(b, "\nmean %.4g ", s->mean[i] * g->d.scale);
	e |= html_esc(b, g->d.unit);
	if (isfinite(s->ci[i]))
		e |= bg_buf_printf(b, " ± %.3g (95%% CI)", s->ci[i] * g->d.scale);
	e |= bg_buf_printf(b, ", %zu run%s, %zu samples", s->nruns[i], s->nruns[i] == 1 ? "" : "s",
	                   s->count[i]);
	if (unconfirmed)
		e |= bg_buf_printf(b, "\nci: %s first, not confirmed by its pairs: unchanged",
		                   bg_verdict_name(grp->first));
	else if (flagged)
		e |= bg_buf_printf(b, "\n%s: %s", grp && grp->recorded ? "ci" : "check",
		                   bg_verdict_name(s->flag[i]));
	if (s->outlier[i])
		e |= bg_buf_puts(b, "\noutlier: not used to find steps");
	e |= bg_buf_puts(b, "</title></circle>");
	if (fabs(cy(g, s->mean[i]) - cy_in(g, s->mean[i])) > 0.5) {
		int up = cy(g, s->mean[i]) < CH_T;
		double x = cx(g, (double)i);
		int left = x > CH_W * 0.8;

		e |= bg_buf_printf(b,
		                   "<text class=\"clip\" x=\"%.1f\" y=\"%.1f\" "
		                   "text-anchor=\"%s\">%s %.4g ",
		                   x + (left ? -7.0 : 7.0),
		                   cy_in(g, s->mean[i]) + (up ? 9.0 : -2.0), left ? "end" : "start",
		                   up ? "▲" : "▼", s->mean[i] * g->d.scale);
		e |= html_esc(b, g->d.unit);
		e |= bg_buf_puts(b, "</text>");
	}
	return e ? BG_ENOMEM : 0;
}

static int chart_step(const bg_report *r, const rep_series *s, const chart_geo *g,
                      const bg_changepoint *c, bg_buf *b)
{
	const rep_run *before = bg_report__point_run(r, s, c->index - 1),
	              *after = bg_report__point_run(r, s, c->index);
	const char *v = bg_verdict_name(bg_report__step_verdict(s, c));
	double x = cx(g, (double)c->index - 0.5);
	char pct[32];
	int e = 0;

	bg_report__fmt_pct(pct, sizeof(pct), c->change);
	e |= bg_buf_printf(b, "<g class=\"cp %s\" data-from=\"", v);
	e |= html_sha(b, before->row.sha, 40);
	e |= bg_buf_puts(b, "\" data-to=\"");
	e |= html_sha(b, after->row.sha, 40);
	/* A step from zero has no relative change: no attribute, not "nan". */
	if (isfinite(c->change))
		e |= bg_buf_printf(b, "\" data-change=\"%.6f", c->change);
	e |= bg_buf_printf(b,
	                   "\">"
	                   "<line x1=\"%.1f\" x2=\"%.1f\" y1=\"%.1f\" y2=\"%.1f\"/>"
	                   "<text x=\"%.1f\" y=\"%.1f\" text-anchor=\"%s\">%s</text><title>",
	                   x, x, CH_T - 4, CH_H - CH_B, x + (x > CH_W * 0.85 ? -4.0 : 4.0),
	                   CH_T - 8, x > CH_W * 0.85 ? "end" : "start", pct);
	e |= bg_buf_printf(b, "%s of %s: ", v, pct);
	e |= html_sha(b, before->row.sha, 12);
	e |= bg_buf_puts(b, "..");
	e |= html_sha(b, after->row.sha, 12);
	e |= bg_buf_printf(b, " (p %.2g)\nfirst commit after: ", c->p);
	e |= html_esc(b, after->row.subject);
	e |= bg_buf_puts(b, "</title></g>");
	return e ? BG_ENOMEM : 0;
}

/* A value as the tooltip shows it: 4 significant digits, no exponent padding. */
static int put_value(bg_buf *b, double v)
{
	char num[32];

	snprintf(num, sizeof(num), "%.4g", v);
	return bg_buf_puts(b, num);
}

/*
 * What the tooltips read, as attributes of the chart (the last one left
 * open for its caller's quote): data-x0 and data-dx place point i at x0 +
 * i dx; data-v, each point's mean in the display unit; data-c, each
 * point's commit in the report's list, only when the series skips some;
 * data-k, each point's runs, only when a commit has more than one.
 */
static int chart_data(const bg_report *r, const rep_series *s, const chart_geo *g, bg_buf *b)
{
	size_t i;
	int e = 0, skips = 0, pooled = 0;

	for (i = 0; i < s->n; i++) {
		skips |= r->runs[s->run[i]].commit != i;
		pooled |= s->nruns[i] > 1;
	}
	e |= bg_buf_printf(b, "\" data-x0=\"%.3f\" data-dx=\"%.4f\" data-v=\"", cx(g, 0), g->dx);
	for (i = 0; i < s->n; i++) {
		e |= bg_buf_puts(b, i ? "," : "");
		e |= put_value(b, s->mean[i] * g->d.scale);
	}
	if (skips) {
		e |= bg_buf_puts(b, "\" data-c=\"");
		for (i = 0; i < s->n; i++)
			e |= bg_buf_printf(b, i ? ",%zu" : "%zu", r->runs[s->run[i]].commit);
	}
	if (pooled) {
		e |= bg_buf_puts(b, "\" data-k=\"");
		for (i = 0; i < s->n; i++)
			e |= bg_buf_printf(b, i ? ",%zu" : "%zu", s->nruns[i]);
	}
	return e ? BG_ENOMEM : 0;
}

static int html_chart(const bg_report *r, const rep_series *s, bg_buf *b)
{
	const rep_group *lg = bg_report__latest_group(s);
	chart_geo g;
	size_t i;
	int e = 0;

	chart_range(s, &g);
	e |= bg_buf_puts(b, "<svg class=\"chart\" data-series=\"");
	e |= html_esc(b, s->name);
	e |= bg_buf_puts(b, "\" data-unit=\"");
	e |= html_esc(b, g.d.unit);
	e |= chart_data(r, s, &g, b);
	e |= bg_buf_printf(b,
	                   "\" viewBox=\"0 0 %.0f %.0f\" role=\"img\" "
	                   "xmlns=\"http://www.w3.org/2000/svg\"><title>",
	                   CH_W, CH_H);
	e |= html_esc(b, s->name);
	e |= bg_buf_puts(b, ": commit means in commit order</title>");
	e |= chart_axes(s, r, &g, b);
	/* The window the newest commit is judged against. */
	if (lg && lg->from > lg->base_from) {
		double x0 = cx(&g, (double)lg->base_from) - g.dx / 2,
		       x1 = cx(&g, (double)lg->from) - g.dx / 2;
		e |= bg_buf_printf(b,
		                   "<rect class=\"base\" x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" "
		                   "height=\"%.1f\"><title>baseline of the newest commit: %zu "
		                   "commits</title></rect><text class=\"base-label\" x=\"%.1f\" "
		                   "y=\"%.1f\" text-anchor=\"end\">baseline</text>",
		                   x0, CH_T, x1 - x0, CH_H - CH_T - CH_B, lg->from - lg->base_from,
		                   x1 - 3, CH_H - CH_B - 5);
	}
	for (i = 0; i < s->nlevels; i++) {
		const rep_level *l = &s->levels[i];
		double x0 = cx(&g, (double)l->from) - g.dx / 2,
		       x1 = cx(&g, (double)l->to) - g.dx / 2;

		e |= bg_buf_printf(b,
		                   "<rect class=\"band\" x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" "
		                   "height=\"%.1f\"/><line class=\"level\" x1=\"%.1f\" x2=\"%.1f\" "
		                   "y1=\"%.1f\" y2=\"%.1f\"><title>level: %.4g ",
		                   x0, cy(&g, l->mean + l->band), x1 - x0,
		                   cy(&g, l->mean - l->band) - cy(&g, l->mean + l->band), x0, x1,
		                   cy(&g, l->mean), cy(&g, l->mean), l->mean * g.d.scale);
		e |= html_esc(b, g.d.unit);
		e |= bg_buf_printf(b, " ± %.3g (95%% of commits)</title></line>",
		                   l->band * g.d.scale);
	}
	e |= bg_buf_puts(b, "<path class=\"ci\" d=\"");
	for (i = 0; i < s->n; i++)
		if (isfinite(s->ci[i])) {
			double top = round(cy_in(&g, s->mean[i] + s->ci[i]));

			e |= bg_buf_puts(b, "M");
			e |= put_coord(b, cx(&g, (double)i));
			e |= bg_buf_puts(b, " ");
			e |= put_y(b, top);
			e |= bg_buf_puts(b, "v");
			e |= put_y(b, round(cy_in(&g, s->mean[i] - s->ci[i])) - top);
		}
	e |= bg_buf_puts(b, "\"/><polyline class=\"trend\" points=\"");
	for (i = 0; i < s->n; i++) {
		e |= bg_buf_puts(b, i ? " " : "");
		e |= put_coord(b, cx(&g, (double)i));
		e |= bg_buf_puts(b, ",");
		e |= put_y(b, cy_in(&g, s->mean[i]));
	}
	e |= bg_buf_puts(b, "\"/>");
	for (i = 0; i < s->n; i++)
		e |= chart_point(r, s, &g, i, b);
	for (i = 0; i < s->cps.npoints; i++)
		e |= chart_step(r, s, &g, &s->cps.points[i], b);
	e |= bg_buf_puts(b, "</svg>\n");
	return e ? BG_ENOMEM : 0;
}

/* A table's series cell: a link to its chart, and with several machines
 * which one (the report has a series per machine, alike in name). */
static int html_series_cell(const bg_report *r, const rep_series *s, bg_buf *b)
{
	int e = bg_buf_printf(b, "<td><a href=\"#s%zu\"><code>", (size_t)(s - r->series));

	e |= html_esc(b, s->name);
	e |= bg_buf_puts(b, "</code></a>");
	if (r->nmachines > 1) {
		e |= bg_buf_puts(b, " on <code>");
		e |= html_esc(b, s->machine);
		e |= bg_buf_puts(b, "</code>");
	}
	return e | bg_buf_puts(b, "</td>");
}

static int html_step_row(const bg_report *r, const rep_series *s, const bg_changepoint *c,
                         int with_series, bg_buf *b)
{
	const rep_run *before = bg_report__point_run(r, s, c->index - 1),
	              *after = bg_report__point_run(r, s, c->index);
	const char *v = bg_verdict_name(bg_report__step_verdict(s, c));
	disp_unit d = bg_report__display_unit(s);
	char pct[32];
	int e = 0;

	bg_report__fmt_pct(pct, sizeof(pct), c->change);
	e |= bg_buf_puts(b, "<tr>");
	if (with_series)
		e |= html_series_cell(r, s, b);
	e |= bg_buf_puts(b, "<td><code title=\"");
	e |= html_sha(b, before->row.sha, 40);
	e |= bg_buf_puts(b, "..");
	e |= html_sha(b, after->row.sha, 40);
	e |= bg_buf_puts(b, "\">");
	e |= html_sha(b, before->row.sha, 7);
	e |= bg_buf_puts(b, "..");
	e |= html_sha(b, after->row.sha, 7);
	e |= bg_buf_printf(b, "</code></td><td class=\"num\">%.4g ", c->before * d.scale);
	e |= html_esc(b, d.unit);
	e |= bg_buf_printf(b, "</td><td class=\"num\">%.4g ", c->after * d.scale);
	e |= html_esc(b, d.unit);
	e |= bg_buf_printf(b,
	                   "</td><td class=\"num %s\">%s</td>"
	                   "<td class=\"num\">%.2g</td><td class=\"%s\">%s</td><td>",
	                   v, pct, c->p, v, v);
	e |= html_esc(b, after->row.subject);
	e |= bg_buf_puts(b, "</td></tr>\n");
	return e ? BG_ENOMEM : 0;
}

static const char html_step_head[] =
        "<th>commits</th><th class=\"num\">before</th><th class=\"num\">after</th>"
        "<th class=\"num\">change</th><th class=\"num\">p</th><th>verdict</th>"
        "<th>first commit after</th></tr>\n";

static int html_summary(const bg_report *r, bg_buf *b)
{
	const rep_series *top5[5];
	char from[32], to[32], pbuf[32], pct[32];
	step_ref *steps;
	size_t i, k, n;
	int e = 0;

	bg_report__fmt_since(from, sizeof(from), r->since);
	bg_report__fmt_date(to, sizeof(to), r->now, "%Y-%m-%d %H:%M UTC");
	e |= bg_buf_puts(b, "<header><h1>Performance report");
	if (r->project) {
		e |= bg_buf_puts(b, ": ");
		e |= html_esc(b, r->project);
	}
	e |= bg_buf_printf(b, "</h1><p class=\"muted\">Runs from %s to %s",
	                   r->since ? from : "the first run", to);
	if (r->by_git) {
		e |= bg_buf_puts(b, " on the first-parent history of <code>");
		e |= html_esc(b, r->branch);
		e |= bg_buf_puts(b, "</code>");
	} else {
		e |= bg_buf_puts(b, " in run-time order");
	}
	e |= bg_buf_printf(b, ". Machine%s: ", r->nmachines == 1 ? "" : "s");
	for (i = 0; i < r->nmachines; i++) {
		e |= bg_buf_printf(b, "%s<code>", i ? ", " : "");
		e |= html_esc(b, r->machines[i]);
		e |= bg_buf_puts(b, "</code>");
		if (r->cpus[i]) {
			e |= bg_buf_puts(b, " (");
			e |= html_esc(b, r->cpus[i]);
			e |= bg_buf_puts(b, ")");
		}
	}
	if (!r->nmachines)
		e |= bg_buf_puts(b, "none");
	e |= bg_buf_puts(b, ".</p></header>\n<div class=\"cards\">");
	e |= bg_buf_printf(
	        b,
	        "<div class=\"card\"><b>%zu</b>series over %zu run%s of %zu commit%s</div>"
	        "<div class=\"card reg\"><b>%zu</b>step%s to worse</div>"
	        "<div class=\"card imp\"><b>%zu</b>step%s to better</div>"
	        "<div class=\"card reg\"><b>%zu</b>regression%s at the newest commit</div>"
	        "<div class=\"card imp\"><b>%zu</b>improvement%s at the newest commit</div>"
	        "<div class=\"card\"><b>%zu</b>flagged by a first run, not confirmed</div>",
	        r->nseries, r->shown_runs, r->shown_runs == 1 ? "" : "s", r->shown_commits,
	        r->shown_commits == 1 ? "" : "s", r->steps[0], r->steps[0] == 1 ? "" : "s",
	        r->steps[1], r->steps[1] == 1 ? "" : "s", r->latest[BG_VERDICT_REGRESSION],
	        r->latest[BG_VERDICT_REGRESSION] == 1 ? "" : "s", r->latest[BG_VERDICT_IMPROVEMENT],
	        r->latest[BG_VERDICT_IMPROVEMENT] == 1 ? "" : "s", r->unconfirmed);
	e |= bg_buf_puts(b, "</div>\n");
	if (r->excluded)
		e |= bg_buf_printf(b,
		                   "<p class=\"muted\">%zu run%s of commits off this branch's "
		                   "first-parent history %s left out.</p>\n",
		                   r->excluded, r->excluded == 1 ? "" : "s",
		                   r->excluded == 1 ? "is" : "are");
	if (!(steps = bg_report__all_steps(r, &n)))
		return BG_ENOMEM;
	if (n) {
		e |= bg_buf_puts(b, "<h2>Steps in the period</h2>\n<table "
		                    "class=\"steps-all\"><tr><th>series</th>");
		e |= bg_buf_puts(b, html_step_head);
		for (i = 0; i < n; i++)
			e |= html_step_row(r, steps[i].s, steps[i].c, 1, b);
		e |= bg_buf_puts(b, "</table>\n");
	}
	free(steps);
	if (r->latest[BG_VERDICT_REGRESSION] + r->latest[BG_VERDICT_IMPROVEMENT]) {
		e |= bg_buf_puts(b,
		                 "<h2>Flagged at the newest commit</h2>\n<table><tr><th>series</th>"
		                 "<th>commit</th><th class=\"num\">change</th><th "
		                 "class=\"num\">p (adjusted)</th><th class=\"num\">baseline "
		                 "runs</th><th>verdict</th></tr>\n");
		for (i = 0; i < r->nseries; i++) {
			const rep_series *x = &r->series[i];
			const rep_group *g = bg_report__flagged_latest(x);
			const char *v = bg_verdict_name(bg_report__latest_verdict(x));

			if (!g)
				continue;
			e |= bg_buf_puts(b, "<tr>");
			e |= html_series_cell(r, x, b);
			e |= bg_buf_puts(b, "<td><code>");
			e |= html_sha(b, bg_report__point_run(r, x, g->from)->row.sha, 7);
			e |= bg_buf_puts(b, "</code></td>");
			if (g->replayed != BG_VERDICT_NO_BASELINE)
				e |= bg_buf_printf(
				        b,
				        "<td class=\"num %s\">%s</td><td "
				        "class=\"num\">%s</td><td class=\"num\">%zu</td>",
				        v, bg_report__fmt_delta(pct, sizeof(pct), &g->test),
				        p_text(pbuf, sizeof(pbuf), g->p_adjusted), g->test.n_base);
			else
				e |= bg_buf_puts(b,
				                 "<td class=\"num\">-</td><td class=\"num\">-</td>"
				                 "<td class=\"num\">-</td>");
			e |= bg_buf_printf(b, "<td class=\"%s\">%s%s</td></tr>\n", v, v,
			                   g->recorded ? " (ci)" : "");
		}
		e |= bg_buf_puts(b, "</table>\n");
	}
	if (r->unconfirmed) {
		e |= bg_buf_puts(b,
		                 "<h2>Flagged, not confirmed</h2>\n<p class=\"muted\">A first "
		                 "run flagged these; measured again in pairs beside the baseline "
		                 "commit, they did not show it, and ci judged them unchanged."
		                 "</p>\n<table><tr><th>series</th><th>commit</th><th>first "
		                 "verdict</th><th>verdict</th><th>subject</th></tr>\n");
		for (i = 0; i < r->nseries; i++) {
			const rep_series *x = &r->series[i];

			for (k = 0; k < x->ngroups; k++) {
				const rep_group *g = &x->groups[k];
				const rep_run *run = bg_report__point_run(r, x, g->from);

				if (!bg_report__unconfirmed(g))
					continue;
				e |= bg_buf_puts(b, "<tr>");
				e |= html_series_cell(r, x, b);
				e |= bg_buf_puts(b, "<td><code>");
				e |= html_sha(b, run->row.sha, 7);
				e |= bg_buf_printf(
				        b,
				        "</code></td><td class=\"unconfirmed\">%s</td><td>%s</td>"
				        "<td>",
				        bg_verdict_name(g->first), bg_verdict_name(g->verdict));
				e |= html_esc(b, run->row.subject);
				e |= bg_buf_puts(b, "</td></tr>\n");
			}
		}
		e |= bg_buf_puts(b, "</table>\n");
	}
	n = bg_report__noisiest(r, top5, BG_ARRAY_SIZE(top5));
	if (n) {
		e |= bg_buf_puts(b, "<h2>Noisiest series</h2>\n<table><tr><th>series</th><th "
		                    "class=\"num\">noise (CV between commits)</th><th "
		                    "class=\"num\">commits</th></tr>\n");
		for (i = 0; i < n; i++) {
			e |= bg_buf_puts(b, "<tr>");
			e |= html_series_cell(r, top5[i], b);
			e |= bg_buf_printf(b,
			                   "<td class=\"num\">%.2f%%</td><td "
			                   "class=\"num\">%zu</td></tr>\n",
			                   100.0 * top5[i]->cv, top5[i]->n);
		}
		e |= bg_buf_puts(b, "</table>\n");
	}
	return e ? BG_ENOMEM : 0;
}

static int html_series(const bg_report *r, size_t idx, bg_buf *b)
{
	const rep_series *s = &r->series[idx];
	const rep_group *g = bg_report__latest_group(s);
	bg_verdict v = bg_report__latest_verdict(s);
	char pbuf[32], pct[32];
	size_t i;
	int e = 0;

	e |= bg_buf_printf(b,
	                   "<section class=\"series\" id=\"s%zu\" data-verdict=\"%s\"><h3><code>",
	                   idx, bg_verdict_name(v));
	e |= html_esc(b, s->name);
	e |= bg_buf_puts(b, "</code><span class=\"muted\">");
	e |= html_esc(b, bg_report__display_unit(s).unit);
	e |= bg_buf_printf(b, ", %s is better</span><span class=\"badge %s\">%s</span></h3>\n",
	                   bg_direction_name(s->direction), bg_verdict_name(v), bg_verdict_name(v));
	e |= bg_buf_printf(b,
	                   "<p class=\"meta\">%zu commit%s, %zu run%s · noise (CV between "
	                   "commits) %.2f%% · ",
	                   s->n, s->n == 1 ? "" : "s", s->nr, s->nr == 1 ? "" : "s", 100.0 * s->cv);
	if (s->cps.noutliers)
		e |= bg_buf_printf(b, "%zu outlier commit%s · ", s->cps.noutliers,
		                   s->cps.noutliers == 1 ? "" : "s");
	/* The figures are the replayed check's, shown only where it had a
	 * baseline, as Markdown and JSON show them: ci's verdict may stand on
	 * runs before the period, and the replay's zeros are no test. */
	if (g && g->replayed != BG_VERDICT_NO_BASELINE) {
		e |= bg_buf_puts(b, "newest commit <code>");
		e |= html_sha(b, bg_report__point_run(r, s, g->from)->row.sha, 7);
		/* The value's own movement (delta), as every table shows it: a
		 * throughput that fell reads -10%, whatever its direction. */
		e |= bg_buf_printf(b, "</code>: %s against a baseline of %zu runs (p %s)",
		                   bg_report__fmt_delta(pct, sizeof(pct), &g->test), g->test.n_base,
		                   p_text(pbuf, sizeof(pbuf), g->p_adjusted));
	} else if (g && g->recorded) {
		e |= bg_buf_puts(b, "newest commit <code>");
		e |= html_sha(b, bg_report__point_run(r, s, g->from)->row.sha, 7);
		e |= bg_buf_printf(b,
		                   "</code>: %s by ci; fewer than %d baseline runs in this period "
		                   "to show its figures",
		                   bg_report__group_label(g), r->min_runs);
	} else
		e |= bg_buf_printf(b, "newest commit: fewer than %d baseline runs", r->min_runs);
	if (r->nmachines > 1) {
		e |= bg_buf_puts(b, " · machine <code>");
		e |= html_esc(b, s->machine);
		e |= bg_buf_puts(b, "</code>");
	}
	e |= bg_buf_puts(b, "</p>\n");
	e |= html_chart(r, s, b);
	if (s->cps.npoints) {
		e |= bg_buf_puts(b, "<table class=\"steps\"><tr>");
		e |= bg_buf_puts(b, html_step_head);
		for (i = 0; i < s->cps.npoints; i++)
			e |= html_step_row(r, s, &s->cps.points[i], 0, b);
		e |= bg_buf_puts(b, "</table>\n");
	}
	e |= bg_buf_puts(b, "</section>\n");
	return e ? BG_ENOMEM : 0;
}

static const char html_legend[] =
        "<div class=\"legend\"><span><i style=\"background:#1f2328\"></i>a commit's mean "
        "(whisker: 95% CI of its runs, or of the samples of its one run)</span><span><i "
        "style=\"background:#54aeff;opacity:.4\"></i>"
        "level between steps, ±95% of commits</span><span><i style=\"background:#ddf4ff\"></i>"
        "baseline of the newest commit</span><span><i style=\"background:#cf222e\"></i>"
        "step or commit flagged worse</span><span><i style=\"background:#1a7f37\"></i>"
        "step or commit flagged better</span><span><i style=\"background:#fff;border:1.5px "
        "dashed #cf222e\"></i>flagged by a first run, not confirmed</span><span><i "
        "style=\"background:#fff;border:1.5px solid #bc4c00\"></i>outlier commit</span></div>\n";

/*
 * A JSON string that stays data inside a <script> block: besides JSON's own
 * escapes, '<', '>' and '&' as \u escapes (no "</script>" or "<!--" can
 * end or bend the block) and U+2028/U+2029, which some parsers take for
 * line ends.  What it holds is shown by the page's script (a tooltip's
 * textContent), so control characters and bidi overrides are written in
 * the visible form the page's text has ("\u{202e}"), never as themselves.
 */
static int json_str(bg_buf *b, const char *text)
{
	bg_buf shown = BG_BUF_INIT;
	const unsigned char *p;
	int e = bg_text__escape(&shown, BG_ESC_TEXT, text);

	if (e) {
		bg_buf_clear(&shown);
		return e;
	}
	p = (const unsigned char *)shown.ptr;
	e = bg_buf_puts(b, "\"");
	for (; *p && !e; p++) {
		if (*p == '"' || *p == '\\')
			e |= bg_buf_printf(b, "\\%c", *p);
		else if (*p < 0x20 || *p == '<' || *p == '>' || *p == '&')
			e |= bg_buf_printf(b, "\\u%04x", *p);
		else if (p[0] == 0xE2 && p[1] == 0x80 && (p[2] == 0xA8 || p[2] == 0xA9)) {
			e |= bg_buf_printf(b, "\\u%04x", p[2] == 0xA8 ? 0x2028 : 0x2029);
			p += 2;
		} else
			e |= bg_buf_put(b, p, 1);
	}
	bg_buf_clear(&shown);
	return e | bg_buf_puts(b, "\"");
}

/* The period's commits, once for every chart: [sha, date, subject] by index. */
static int html_commits(const bg_report *r, bg_buf *b)
{
	size_t i, next = 0;
	int e = 0;

	e |= bg_buf_puts(b, "<script type=\"application/json\" id=\"bg-commits\">[");
	for (i = 0; i < r->nruns; i++) {
		char sha[13];

		if (r->runs[i].commit != next)
			continue;
		snprintf(sha, sizeof(sha), "%.12s", r->runs[i].row.sha);
		e |= bg_buf_puts(b, next ? ",\n[" : "[");
		e |= json_str(b, sha);
		e |= bg_buf_puts(b, ",");
		e |= json_str(b, r->runs[i].date);
		e |= bg_buf_puts(b, ",");
		e |= json_str(b, r->runs[i].row.subject);
		e |= bg_buf_puts(b, "]");
		next++;
	}
	e |= bg_buf_puts(b, "]</script>\n");
	return e ? BG_ENOMEM : 0;
}

int bg_report__render_html(bg_ctx *ctx, const bg_report *r, bg_buf *b)
{
	bg_buf title = BG_BUF_INIT;
	size_t i;
	int e = 0;

	e |= bg_buf_puts(&title, "Performance report");
	if (r->project) {
		e |= bg_buf_puts(&title, ": ");
		e |= html_esc(&title, r->project);
	}
	if (!e)
		e |= bg_buf_printf(b, html_head, title.ptr);
	e |= bg_buf_puts(b, html_marker);
	bg_buf_clear(&title);
	e |= html_summary(r, b);
	e |= bg_buf_printf(b,
	                   "<h2>Series</h2>\n<p class=\"muted\">A point is a commit, its runs "
	                   "pooled; hover a chart for its commit, subject and value. Steps need "
	                   "%zu runs on each side and p &lt; %.2g after "
	                   "adjustment; a flagged run is one the rolling-baseline check "
	                   "(window %d) judges a regression or improvement.</p>\n",
	                   r->min_segment, r->th.alpha, r->window);
	e |= bg_buf_puts(b, html_legend);
	for (i = 0; i < r->nseries && !e; i++)
		e |= html_series(r, i, b);
	/* Runs that a filter left without a series are still runs: the page
	 * says which left it empty. */
	switch (bg_report__empty(r)) {
	case REP_EMPTY_FILTER:
		e |= bg_buf_puts(b, "<p>No series matches <code>--filter ");
		e |= html_esc(b, r->filter);
		e |= bg_buf_printf(b, "</code> (%zu run%s in this period).</p>\n", r->nruns,
		                   r->nruns == 1 ? "" : "s");
		break;
	case REP_EMPTY_NO_SERIES:
		e |= bg_buf_printf(
		        b, "<p>No series in this period: its %zu run%s measured none.</p>\n",
		        r->nruns, r->nruns == 1 ? "" : "s");
		break;
	case REP_EMPTY_NO_RUNS:
		e |= bg_buf_puts(b, "<p>No runs in this period.</p>\n");
		break;
	case REP_EMPTY_NOT:
		break;
	}
	e |= bg_buf_printf(b, "<footer>benchguard %s</footer>\n</main>\n", BG_VERSION);
	e |= html_commits(r, b);
	e |= bg_buf_puts(b, html_script);
	e |= bg_buf_puts(b, "</body>\n</html>\n");
	return e ? bg_error_oom(ctx) : 0;
}
