/*
 * formats.c -- parsers for what a benchmark command prints (`lines`,
 * Google Benchmark JSON), shared by `run` and `import`.
 *
 * Each parser fills a private bg_results; only when the whole input parsed
 * are its samples copied into the caller's set, so a half-read output never
 * leaves half a run behind.  Parsers live in one table: a new format is one
 * function and one entry.
 */
#include <limits.h>
#include <locale.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <json-c/json.h>

#include "internal.h"

typedef int (*format_parse_fn)(bg_ctx *ctx, const char *source, const char *benchmark,
                               const char *data, size_t len, bg_results *out);

static int parse_lines(bg_ctx *ctx, const char *source, const char *benchmark, const char *data,
                       size_t len, bg_results *out);
static int parse_gbench(bg_ctx *ctx, const char *source, const char *benchmark, const char *data,
                        size_t len, bg_results *out);

/* nvbench and hyperfine arrive with the CUDA issue: one entry each here. */
static const struct {
	bg_format format;
	format_parse_fn parse;
} parsers[] = {
	{ BG_FORMAT_LINES, parse_lines },
	{ BG_FORMAT_GBENCH, parse_gbench },
};

/* Longest piece of user data quoted back in a message; keeps it one line. */
#define QUOTE_MAX 64

/*
 * bg_results_add() words its own message ("bench:metric: unit ...
 * differs"); put the input position in front of it.  Out of memory is not
 * about the input and keeps its plain message.
 */
static int prefix_error(bg_ctx *ctx, int rc, const char *source, size_t line)
{
	char what[768];

	if (rc == BG_ENOMEM)
		return rc;
	snprintf(what, sizeof(what), "%s", bg_ctx_error(ctx));
	if (line)
		return bg_error_set(ctx, rc, "%s:%zu: %s", source, line, what);
	return bg_error_set(ctx, rc, "%s: %s", source, what);
}

/* --------------------------------------------------------------- lines */

#define LINES_TAG "BENCHGUARD"
#define LINES_TAG_LEN (sizeof(LINES_TAG) - 1)

static int is_blank(char c)
{
	/* '\r' so that CRLF output parses like LF output. */
	return c == ' ' || c == '\t' || c == '\r';
}

/* Series names are addressed as "benchmark:metric", hence no ':'. */
static const char *bad_name_char(const char *s, size_t n, int allow_colon)
{
	size_t i;

	for (i = 0; i < n; i++) {
		unsigned char c = (unsigned char)s[i];
		if (c < 0x20 || c == 0x7f)
			return "a control character";
		if (c == ':' && !allow_colon)
			return "':'";
	}
	return NULL;
}

/*
 * One "BENCHGUARD <series> <value> <unit>" line, without its newline,
 * known to start with the tag followed by a blank or the end.  `scratch`
 * is reused from line to line so that a million lines allocate nothing.
 */
static int lines_one(bg_ctx *ctx, const char *source, size_t line, const char *benchmark,
                     const char *p, const char *end, locale_t c_locale, bg_buf *scratch,
                     bg_results *out)
{
	const char *field[3];
	size_t flen[3], nfields = 0;
	const char *why;
	char *vend;
	double value;
	int rc;

	p += LINES_TAG_LEN;
	for (;;) {
		while (p < end && is_blank(*p))
			p++;
		if (p == end)
			break;
		if (nfields < 3)
			field[nfields] = p;
		while (p < end && !is_blank(*p))
			p++;
		if (nfields < 3)
			flen[nfields] = (size_t)(p - field[nfields]);
		nfields++;
	}
	if (nfields != 3)
		return bg_error_set(ctx, BG_EINPUT,
		                    "%s:%zu: expected \"" LINES_TAG " <series> <value> <unit>\", "
		                    "found %zu field%s after " LINES_TAG,
		                    source, line, nfields, nfields == 1 ? "" : "s");
	if ((why = bad_name_char(field[0], flen[0], 0)) != NULL)
		return bg_error_set(ctx, BG_EINPUT, "%s:%zu: series name \"%.*s\" contains %s",
		                    source, line, (int)(flen[0] < QUOTE_MAX ? flen[0] : QUOTE_MAX),
		                    field[0], why);
	if ((why = bad_name_char(field[2], flen[2], 1)) != NULL)
		return bg_error_set(ctx, BG_EINPUT, "%s:%zu: unit \"%.*s\" contains %s", source,
		                    line, (int)(flen[2] < QUOTE_MAX ? flen[2] : QUOTE_MAX),
		                    field[2], why);

	/*
	 * strtod_l() may run over the field only into the blank that separates
	 * it from the unit, which stops it, so the input needs no NUL.  The C
	 * locale keeps "1.5" a number whatever locale the program runs in.
	 */
	value = strtod_l(field[1], &vend, c_locale);
	if (vend != field[1] + flen[1])
		return bg_error_set(ctx, BG_EINPUT, "%s:%zu: value \"%.*s\" is not a number",
		                    source, line, (int)(flen[1] < QUOTE_MAX ? flen[1] : QUOTE_MAX),
		                    field[1]);
	if (!isfinite(value))
		return bg_error_set(ctx, BG_EINPUT, "%s:%zu: value \"%.*s\" is not a finite number",
		                    source, line, (int)(flen[1] < QUOTE_MAX ? flen[1] : QUOTE_MAX),
		                    field[1]);

	scratch->len = 0;
	if (bg_buf_put(scratch, field[0], flen[0]) < 0 || bg_buf_put(scratch, "", 1) < 0 ||
	    bg_buf_put(scratch, field[2], flen[2]) < 0)
		return bg_error_oom(ctx);
	rc = bg_results_add(ctx, out, benchmark, scratch->ptr, scratch->ptr + flen[0] + 1, value);
	return rc < 0 ? prefix_error(ctx, rc, source, line) : 0;
}

static int parse_lines(bg_ctx *ctx, const char *source, const char *benchmark, const char *data,
                       size_t len, bg_results *out)
{
	const char *p = data, *end = data + len;
	bg_buf scratch = BG_BUF_INIT;
	locale_t c_locale;
	size_t line = 0, nsamples = 0;
	int rc = 0;

	if (!benchmark || !*benchmark)
		return bg_error_set(ctx, BG_EINPUT,
		                    "%s: format lines needs a benchmark name for its samples",
		                    source);
	c_locale = newlocale(LC_NUMERIC_MASK, "C", (locale_t)0);
	if (!c_locale)
		return bg_error_errno(ctx, BG_ERROR, "cannot create the C locale");

	while (p < end) {
		const char *nl = memchr(p, '\n', (size_t)(end - p));
		const char *eol = nl ? nl : end;

		line++;
		/* Everything but the tag followed by a blank (or nothing) is the
		 * program's own output. */
		if ((size_t)(eol - p) >= LINES_TAG_LEN && !memcmp(p, LINES_TAG, LINES_TAG_LEN) &&
		    ((size_t)(eol - p) == LINES_TAG_LEN || is_blank(p[LINES_TAG_LEN]))) {
			rc = lines_one(ctx, source, line, benchmark, p, eol, c_locale, &scratch,
			               out);
			if (rc < 0)
				goto cleanup;
			nsamples++;
		}
		p = nl ? nl + 1 : end;
	}
	if (!nsamples)
		rc = bg_error_set(ctx, BG_EINPUT, "%s: no " LINES_TAG " lines in output", source);

cleanup:
	bg_buf_clear(&scratch);
	freelocale(c_locale);
	return rc;
}

/* -------------------------------------------------------------- gbench */

/*
 * Google Benchmark's time units (its --benchmark_time_unit and
 * benchmark::TimeUnit); bg_results_add() turns them into seconds.
 */
static const char *const gbench_time_units[] = { "ns", "us", "ms", "s" };

/*
 * The counters kept besides real_time and cpu_time: the two rates Google
 * Benchmark itself names (SetBytesProcessed, SetItemsProcessed).  Other user
 * counters are ignored: the JSON gives a counter's value but not its unit or
 * flags, so neither its unit nor whether higher is better can be known.
 */
static const struct {
	const char *key, *unit;
} gbench_counters[] = {
	{ "bytes_per_second", "B/s" },
	{ "items_per_second", "items/s" },
};

/* Statistics that versions before run_type (< 1.5) append to the name. */
static const char *const gbench_old_aggregates[] = { "_mean", "_median", "_stddev" };

typedef struct {
	bg_ctx *ctx;
	const char *source;
	const char *benchmark; /* the caller's prefix, or NULL */
	bg_results *out;
	bg_buf series;   /* "<benchmark>/<gbench name>", reused */
	bg_buf previous; /* name of the last sample entry (old-format aggregates) */
	size_t nsamples, naggregates, nskipped;
} gbench_state;

static int is_json_space(char c)
{
	return c == ' ' || c == '\t' || c == '\r' || c == '\n';
}

/* BG_EINPUT "<source>: benchmark "<name>": <what>". */
static int gbench_error(gbench_state *st, const char *name, const char *fmt, ...) BG_PRINTF(3, 4);

static int gbench_error(gbench_state *st, const char *name, const char *fmt, ...)
{
	char what[512];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(what, sizeof(what), fmt, ap);
	va_end(ap);
	return bg_error_set(st->ctx, BG_EINPUT, "%s: benchmark \"%.*s\": %s", st->source, QUOTE_MAX,
	                    name, what);
}

static int gbench_number(gbench_state *st, json_object *entry, const char *name, const char *key,
                         int required, int *found, double *out)
{
	json_object *v;

	*found = 0;
	if (!json_object_object_get_ex(entry, key, &v) || !v) {
		if (!required)
			return 0;
		return gbench_error(st, name, "missing \"%s\"", key);
	}
	if (!json_object_is_type(v, json_type_double) && !json_object_is_type(v, json_type_int))
		return gbench_error(st, name, "\"%s\" is not a number", key);
	*out = json_object_get_double(v);
	if (!isfinite(*out))
		return gbench_error(st, name, "\"%s\" is not a finite number", key);
	*found = 1;
	return 0;
}

/* A string member, or NULL when absent; BG_EINPUT when not a string. */
static int gbench_string(gbench_state *st, json_object *entry, const char *name, const char *key,
                         const char **out)
{
	json_object *v;

	*out = NULL;
	if (!json_object_object_get_ex(entry, key, &v) || !v)
		return 0;
	if (!json_object_is_type(v, json_type_string)) {
		if (!name)
			return bg_error_set(st->ctx, BG_EINPUT,
			                    "%s: \"%s\" of a benchmark is not a string", st->source,
			                    key);
		return gbench_error(st, name, "\"%s\" is not a string", key);
	}
	*out = json_object_get_string(v);
	return 0;
}

static int gbench_flag(json_object *entry, const char *key)
{
	json_object *v;

	return json_object_object_get_ex(entry, key, &v) && json_object_get_boolean(v);
}

/*
 * Whether an entry is a statistic over repetitions rather than a
 * measurement.  Since 1.5 run_type says so; older versions only named them
 * "<name>_mean" etc. right after the repetitions they summarise, and
 * complexity fits ("_BigO", "_RMS") carry big_o / rms instead of times.
 */
static int gbench_is_aggregate(gbench_state *st, json_object *entry, const char *name,
                               const char *run_type, int *aggregate)
{
	json_object *v;
	size_t i, plen = st->previous.len;

	*aggregate = 0;
	if (run_type) {
		if (!strcmp(run_type, "aggregate"))
			*aggregate = 1;
		else if (strcmp(run_type, "iteration") != 0)
			return gbench_error(st, name, "unknown run_type \"%.*s\"", QUOTE_MAX,
			                    run_type);
		return 0;
	}
	if (json_object_object_get_ex(entry, "aggregate_name", &v) ||
	    json_object_object_get_ex(entry, "big_o", &v) ||
	    json_object_object_get_ex(entry, "rms", &v)) {
		*aggregate = 1;
		return 0;
	}
	if (!plen || strncmp(name, st->previous.ptr, plen) != 0)
		return 0;
	for (i = 0; i < BG_ARRAY_SIZE(gbench_old_aggregates); i++)
		if (!strcmp(name + plen, gbench_old_aggregates[i]))
			*aggregate = 1;
	return 0;
}

/*
 * The series' benchmark name.  "/repeats:N" is dropped: the repetition
 * count is how a benchmark is sampled, not what it measures, and
 * --benchmark_repetitions leaves it out while ->Repetitions(N) puts it in;
 * either way the samples belong to one series.
 */
static int gbench_series_name(gbench_state *st, const char *name)
{
	const char *p = name, *cut;
	bg_buf *b = &st->series;

	b->len = 0;
	if (st->benchmark && (bg_buf_puts(b, st->benchmark) < 0 || bg_buf_put(b, "/", 1) < 0))
		return bg_error_oom(st->ctx);
	while ((cut = strstr(p, "/repeats:")) != NULL) {
		const char *q = cut + strlen("/repeats:");
		size_t digits = strspn(q, "0123456789");

		if (!digits || (q[digits] != '\0' && q[digits] != '/')) {
			if (bg_buf_put(b, p, (size_t)(q - p)) < 0)
				return bg_error_oom(st->ctx);
			p = q;
			continue;
		}
		if (bg_buf_put(b, p, (size_t)(cut - p)) < 0)
			return bg_error_oom(st->ctx);
		p = q + digits;
	}
	if (bg_buf_puts(b, p) < 0)
		return bg_error_oom(st->ctx);
	return 0;
}

static int gbench_add(gbench_state *st, const char *metric, const char *unit, double value)
{
	int rc = bg_results_add(st->ctx, st->out, st->series.ptr, metric, unit, value);

	return rc < 0 ? prefix_error(st->ctx, rc, st->source, 0) : 0;
}

static int gbench_entry(gbench_state *st, json_object *entry, size_t idx)
{
	const char *name, *run_name, *run_type, *unit, *msg;
	double real_time, cpu_time, v;
	int rc, aggregate, found;
	size_t i;

	if (!json_object_is_type(entry, json_type_object))
		return bg_error_set(st->ctx, BG_EINPUT, "%s: benchmarks[%zu] is not an object",
		                    st->source, idx);
	if ((rc = gbench_string(st, entry, NULL, "name", &name)) < 0)
		return rc;
	if (!name)
		return bg_error_set(st->ctx, BG_EINPUT, "%s: benchmarks[%zu] has no \"name\"",
		                    st->source, idx);
	if ((rc = gbench_string(st, entry, name, "run_name", &run_name)) < 0 ||
	    (rc = gbench_string(st, entry, name, "run_type", &run_type)) < 0)
		return rc;

	if (gbench_flag(entry, "error_occurred")) {
		if ((rc = gbench_string(st, entry, name, "error_message", &msg)) < 0)
			return rc;
		return gbench_error(st, name, "failed: %s", msg && *msg ? msg : "error_occurred");
	}
	/* SkipWithMessage(): the benchmark chose not to run here. */
	if (gbench_flag(entry, "skipped")) {
		st->nskipped++;
		return 0;
	}
	if ((rc = gbench_is_aggregate(st, entry, name, run_type, &aggregate)) < 0)
		return rc;
	if (aggregate) {
		st->naggregates++;
		return 0;
	}

	if ((rc = gbench_string(st, entry, name, "time_unit", &unit)) < 0)
		return rc;
	if (!unit)
		unit = "ns"; /* what Google Benchmark uses unless told otherwise */
	for (i = 0; i < BG_ARRAY_SIZE(gbench_time_units); i++)
		if (!strcmp(unit, gbench_time_units[i]))
			break;
	if (i == BG_ARRAY_SIZE(gbench_time_units))
		return gbench_error(st, name, "unknown time_unit \"%.*s\"", QUOTE_MAX, unit);
	if ((rc = gbench_number(st, entry, name, "real_time", 1, &found, &real_time)) < 0 ||
	    (rc = gbench_number(st, entry, name, "cpu_time", 1, &found, &cpu_time)) < 0)
		return rc;

	if ((rc = gbench_series_name(st, run_name ? run_name : name)) < 0 ||
	    (rc = gbench_add(st, "real_time", unit, real_time)) < 0 ||
	    (rc = gbench_add(st, "cpu_time", unit, cpu_time)) < 0)
		return rc;
	for (i = 0; i < BG_ARRAY_SIZE(gbench_counters); i++) {
		if ((rc = gbench_number(st, entry, name, gbench_counters[i].key, 0, &found, &v)) <
		    0)
			return rc;
		if (found &&
		    (rc = gbench_add(st, gbench_counters[i].key, gbench_counters[i].unit, v)) < 0)
			return rc;
	}

	st->previous.len = 0;
	if (bg_buf_puts(&st->previous, name) < 0)
		return bg_error_oom(st->ctx);
	st->nsamples++;
	return 0;
}

static int parse_gbench(bg_ctx *ctx, const char *source, const char *benchmark, const char *data,
                        size_t len, bg_results *out)
{
	gbench_state st = { ctx, source, benchmark, out, BG_BUF_INIT, BG_BUF_INIT, 0, 0, 0 };
	json_tokener *tok = NULL;
	json_object *root = NULL, *list;
	enum json_tokener_error jerr;
	size_t i, n, end;
	int rc = 0;

	for (end = 0; end < len && is_json_space(data[end]); end++)
		;
	if (end == len) {
		rc = bg_error_set(ctx, BG_EINPUT, "%s: no JSON in output", source);
		goto cleanup;
	}
	if (len > INT_MAX) {
		rc = bg_error_set(ctx, BG_EINPUT, "%s: JSON output larger than 2 GiB", source);
		goto cleanup;
	}
	if (!(tok = json_tokener_new())) {
		rc = bg_error_oom(ctx);
		goto cleanup;
	}
	root = json_tokener_parse_ex(tok, data, (int)len);
	jerr = json_tokener_get_error(tok);
	end = json_tokener_get_parse_end(tok);
	if (!root && jerr == json_tokener_continue) {
		/* Name the last line that has anything on it. */
		for (end = len; end > 0 && is_json_space(data[end - 1]); end--)
			;
		rc = bg_error_set(ctx, BG_EINPUT, "%s:%d: JSON ends too early", source,
		                  bg_line_of(data, len, end ? end - 1 : 0));
		goto cleanup;
	}
	if (!root) {
		rc = bg_error_set(ctx, BG_EINPUT, "%s:%d: %s", source, bg_line_of(data, len, end),
		                  json_tokener_error_desc(jerr));
		goto cleanup;
	}
	while (end < len && is_json_space(data[end]))
		end++;
	if (end < len) {
		rc = bg_error_set(ctx, BG_EINPUT, "%s:%d: unexpected text after the JSON document",
		                  source, bg_line_of(data, len, end));
		goto cleanup;
	}

	if (!json_object_is_type(root, json_type_object) ||
	    !json_object_object_get_ex(root, "benchmarks", &list)) {
		rc = bg_error_set(ctx, BG_EINPUT,
		                  "%s: no \"benchmarks\" list: not Google Benchmark JSON "
		                  "(--benchmark_format=json)",
		                  source);
		goto cleanup;
	}
	if (!json_object_is_type(list, json_type_array)) {
		rc = bg_error_set(ctx, BG_EINPUT, "%s: \"benchmarks\" is not an array", source);
		goto cleanup;
	}
	n = json_object_array_length(list);
	for (i = 0; i < n; i++)
		if ((rc = gbench_entry(&st, json_object_array_get_idx(list, i), i)) < 0)
			goto cleanup;

	if (!st.nsamples && st.naggregates)
		rc = bg_error_set(ctx, BG_EINPUT,
		                  "%s: only aggregate rows (mean, median...), no repetitions: "
		                  "drop --benchmark_report_aggregates_only and "
		                  "--benchmark_display_aggregates_only",
		                  source);
	else if (!st.nsamples)
		rc = bg_error_set(ctx, BG_EINPUT, "%s: no benchmark results in output%s", source,
		                  st.nskipped ? " (every benchmark skipped itself)" : "");

cleanup:
	bg_buf_clear(&st.series);
	bg_buf_clear(&st.previous);
	json_object_put(root);
	if (tok)
		json_tokener_free(tok);
	return rc;
}

/* -------------------------------------------------------------- driver */

/*
 * Linear: bg_results has no public lookup.  `into` holds one run, so this
 * is at most a few thousand comparisons per parsed series.
 */
static const bg_series *find_series(const bg_results *res, const char *benchmark,
                                    const char *metric)
{
	size_t i, n = bg_results_series_count(res);

	for (i = 0; i < n; i++) {
		const bg_series *s = bg_results_series(res, i);
		if (!strcmp(s->benchmark, benchmark) && !strcmp(s->metric, metric))
			return s;
	}
	return NULL;
}

/*
 * Copies every parsed sample into `into`.  The one input error the copy
 * could meet, a unit that contradicts a series already in `into`, is
 * checked first so that it too leaves `into` untouched.
 */
static int merge(bg_ctx *ctx, const char *source, const bg_results *from, bg_results *into)
{
	size_t i, j, n = bg_results_series_count(from);
	int rc;

	if (bg_results_series_count(into)) {
		for (i = 0; i < n; i++) {
			const bg_series *s = bg_results_series(from, i);
			const bg_series *t = find_series(into, s->benchmark, s->metric);
			if (t && strcmp(t->unit, s->unit) != 0)
				return bg_error_set(
				        ctx, BG_EINPUT,
				        "%s: %s:%s: unit \"%s\" differs from earlier \"%s\"",
				        source, s->benchmark, s->metric, s->unit, t->unit);
		}
	}
	for (i = 0; i < n; i++) {
		const bg_series *s = bg_results_series(from, i);
		/* Values are canonical already: unit scale 1, no rounding. */
		for (j = 0; j < s->n; j++)
			if ((rc = bg_results_add(ctx, into, s->benchmark, s->metric, s->unit,
			                         s->values[j])) < 0)
				return rc;
	}
	return 0;
}

int bg_format_parse(bg_ctx *ctx, bg_format format, const char *source, const char *benchmark,
                    const char *data, size_t len, bg_results *into)
{
	bg_results *parsed = NULL;
	format_parse_fn parse = NULL;
	size_t i;
	int rc;

	if (!source)
		source = "output";
	for (i = 0; i < BG_ARRAY_SIZE(parsers); i++)
		if (parsers[i].format == format)
			parse = parsers[i].parse;
	if (!parse) {
		if (format == BG_FORMAT_TIME)
			return bg_error_set(ctx, BG_EINPUT, "format time has no output to parse");
		return bg_error_set(ctx, BG_EINPUT, "format \"%s\" is not supported yet",
		                    bg_format_name(format));
	}
	if (!data && len)
		return bg_error_set(ctx, BG_EINPUT, "%s: no data", source);
	if (!data)
		data = "";

	if (bg_results_new(&parsed) < 0)
		return bg_error_oom(ctx);
	rc = parse(ctx, source, benchmark, data, len, parsed);
	if (rc == 0)
		rc = merge(ctx, source, parsed, into);
	bg_results_free(parsed);
	return rc;
}
