/*
 * formats.c -- parsers for what a benchmark command prints (`lines`,
 * Google Benchmark JSON, nvbench JSON, hyperfine --export-json, `go test
 * -bench` text, pytest-benchmark JSON, `perf stat -x,` CSV; Catch2's XML
 * in xml.c, which alone uses libxml2), shared by `run` and `import`.
 *
 * Each parser fills a private bg_results; only when the whole input parsed
 * are its samples copied into the caller's set, so a half-read output never
 * leaves half a run behind.  Parsers live in one table: a new format is one
 * function and one entry.
 *
 * The input is anybody's: a name or unit that could not be printed safely
 * is refused where it is read, naming the place; JSON nests at most
 * BG_JSON_DEPTH levels; files the input names (nvbench's sample times) are
 * read only from the results' own folder, only when regular, and only after
 * their size matched; and every input error is escaped for a terminal.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <locale.h>
#include <math.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <json-c/json.h>

#include "internal.h"
#include "jsonx.h"
#include "xml.h"

/* `dir`: where files named by the input lie (nvbench's sample times), or NULL. */
typedef int (*format_parse_fn)(bg_ctx *ctx, const char *source, const char *benchmark,
                               const char *dir, const char *data, size_t len, bg_results *out);

static int parse_lines(bg_ctx *ctx, const char *source, const char *benchmark, const char *dir,
                       const char *data, size_t len, bg_results *out);
static int parse_gbench(bg_ctx *ctx, const char *source, const char *benchmark, const char *dir,
                        const char *data, size_t len, bg_results *out);
static int parse_nvbench(bg_ctx *ctx, const char *source, const char *benchmark, const char *dir,
                         const char *data, size_t len, bg_results *out);
static int parse_hyperfine(bg_ctx *ctx, const char *source, const char *benchmark, const char *dir,
                           const char *data, size_t len, bg_results *out);
static int parse_go(bg_ctx *ctx, const char *source, const char *benchmark, const char *dir,
                    const char *data, size_t len, bg_results *out);
static int parse_pytest(bg_ctx *ctx, const char *source, const char *benchmark, const char *dir,
                        const char *data, size_t len, bg_results *out);
static int parse_perfstat(bg_ctx *ctx, const char *source, const char *benchmark, const char *dir,
                          const char *data, size_t len, bg_results *out);

static const struct {
	bg_format format;
	format_parse_fn parse;
} parsers[] = {
	{ BG_FORMAT_LINES, parse_lines },
	{ BG_FORMAT_GBENCH, parse_gbench },
	{ BG_FORMAT_NVBENCH, parse_nvbench },
	{ BG_FORMAT_HYPERFINE, parse_hyperfine },
	{ BG_FORMAT_GO, parse_go },
	{ BG_FORMAT_PYTEST, parse_pytest },
	{ BG_FORMAT_CATCH2, bg_xml__parse_catch2 },
	{ BG_FORMAT_PERFSTAT, parse_perfstat },
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

/*
 * What makes a field unfit to be a series name or a unit, or NULL: what no
 * name may hold (bg_results__bad_name), and for a series name a ':', since
 * series are addressed as "benchmark:metric".
 */
static const char *bad_field(const char *s, size_t n, int allow_colon)
{
	const char *why = bg_results__bad_name(s, n, 0);

	if (why)
		return why;
	if (!allow_colon && memchr(s, ':', n))
		return "contains ':'";
	return NULL;
}

/*
 * One "BENCHGUARD <series> <value> <unit>" line, without its newline,
 * known to start with the tag followed by a blank or the end.  `scratch`
 * is reused from line to line so that a million lines allocate nothing.
 */
/* The series name and unit of the last line that passed the checks: a
 * series' lines usually come one after another, and a field equal to the
 * one checked before needs no second look (a tenth of an import's time). */
typedef struct {
	const char *series, *unit;
	size_t series_len, unit_len;
} lines_seen;

static int same_field(const char *a, size_t alen, const char *b, size_t blen)
{
	return a && alen == blen && !memcmp(a, b, alen);
}

static int lines_one(bg_ctx *ctx, const char *source, size_t line, const char *benchmark,
                     const char *p, const char *end, locale_t c_locale, bg_buf *scratch,
                     lines_seen *seen, bg_results *out)
{
	const char *field[3];
	size_t flen[3], nfields = 0;
	const char *why;
	char *vend, q[320];
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
	if (!same_field(seen->series, seen->series_len, field[0], flen[0]) &&
	    (why = bad_field(field[0], flen[0], 0)) != NULL)
		return bg_error_set(ctx, BG_EINPUT, "%s:%zu: series name %s %s", source, line,
		                    bg_text__quote_n(q, sizeof(q), field[0], flen[0]), why);
	if (!same_field(seen->unit, seen->unit_len, field[2], flen[2]) &&
	    (why = bad_field(field[2], flen[2], 1)) != NULL)
		return bg_error_set(ctx, BG_EINPUT, "%s:%zu: unit %s %s", source, line,
		                    bg_text__quote_n(q, sizeof(q), field[2], flen[2]), why);
	seen->series = field[0];
	seen->series_len = flen[0];
	seen->unit = field[2];
	seen->unit_len = flen[2];

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
	if (!bg_text__decimal(field[1], flen[1]))
		return bg_error_set(ctx, BG_EINPUT,
		                    "%s:%zu: value \"%.*s\" is not a decimal number", source, line,
		                    (int)(flen[1] < QUOTE_MAX ? flen[1] : QUOTE_MAX), field[1]);

	scratch->len = 0;
	if (bg_buf_put(scratch, field[0], flen[0]) < 0 || bg_buf_put(scratch, "", 1) < 0 ||
	    bg_buf_put(scratch, field[2], flen[2]) < 0)
		return bg_error_oom(ctx);
	rc = bg_results_add(ctx, out, benchmark, scratch->ptr, scratch->ptr + flen[0] + 1, value);
	return rc < 0 ? prefix_error(ctx, rc, source, line) : 0;
}

static int parse_lines(bg_ctx *ctx, const char *source, const char *benchmark, const char *dir,
                       const char *data, size_t len, bg_results *out)
{
	const char *p = data, *end = data + len;
	bg_buf scratch = BG_BUF_INIT;
	lines_seen seen = { NULL, NULL, 0, 0 };
	locale_t c_locale;
	size_t line = 0, nsamples = 0;
	int rc = 0;

	(void)dir;
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
			               &seen, out);
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

/* ---------------------------------------------------------- JSON input */

static int is_json_space(char c)
{
	return c == ' ' || c == '\t' || c == '\r' || c == '\n';
}

static size_t skip_json_space(const char *data, size_t len, size_t pos)
{
	while (pos < len && is_json_space(data[pos]))
		pos++;
	return pos;
}

/*
 * What a JSON format's file is and how its tool writes one: a file that is
 * not JSON at all (the tool's console report, its CSV) is told so in those
 * words, not in json-c's ("number expected", "unexpected character").
 */
typedef struct {
	const char *name; /* "Google Benchmark JSON" */
	const char *how;  /* "run the program with --benchmark_format=json ..." */
} json_want;

static const json_want gbench_want = {
	"Google Benchmark JSON",
	"run the program with --benchmark_format=json, or write the file with "
	"--benchmark_out=FILE --benchmark_out_format=json"
};
static const json_want nvbench_want = { "nvbench JSON",
	                                "run the program with --json FILE (or --json stdout)" };
static const json_want hf_want = {
	"hyperfine JSON",
	"run hyperfine with --export-json FILE (to standard output: --export-json /dev/stdout "
	"--style none)"
};
static const json_want py_want = { "pytest-benchmark JSON",
	                           "run pytest with --benchmark-json FILE" };

/*
 * Parses the JSON document that starts at data[*pos] (after blanks) and
 * moves *pos just past it.  Syntax errors name the line, like the other
 * formats' messages, and what the file should have been.
 */
static int json_next(bg_ctx *ctx, const char *source, const json_want *want, const char *data,
                     size_t len, size_t *pos, json_object **root)
{
	size_t start = skip_json_space(data, len, *pos), end, eol;
	enum json_tokener_error jerr;
	json_tokener *tok;
	char q[320];

	*root = NULL;
	/* Each of these formats' documents is an object: anything else at the
	 * start is some other output, shown as its first line. */
	if (start < len && data[start] != '{' && data[start] != '[') {
		for (eol = start; eol < len && data[eol] != '\n'; eol++)
			;
		if (eol > start && data[eol - 1] == '\r')
			eol--;
		return bg_error_set(ctx, BG_EINPUT, "%s:%d: %s is not %s: %s", source,
		                    bg_line_of(data, len, start),
		                    bg_text__quote_n(q, sizeof(q), data + start, eol - start),
		                    want->name, want->how);
	}
	if (len - start > INT_MAX)
		return bg_error_set(ctx, BG_EINPUT, "%s: JSON output larger than 2 GiB", source);
	/* json-c counts the depth and stops at the bound: no document recurses further. */
	if (!(tok = json_tokener_new_ex(BG_JSON_DEPTH)))
		return bg_error_oom(ctx);
	*root = json_tokener_parse_ex(tok, data + start, (int)(len - start));
	jerr = json_tokener_get_error(tok);
	end = start + json_tokener_get_parse_end(tok);
	json_tokener_free(tok);
	if (!*root && jerr == json_tokener_continue) {
		/* Name the last line that has anything on it. */
		for (end = len; end > 0 && is_json_space(data[end - 1]); end--)
			;
		return bg_error_set(ctx, BG_EINPUT, "%s:%d: JSON ends too early", source,
		                    bg_line_of(data, len, end ? end - 1 : 0));
	}
	if (!*root && jerr == json_tokener_success)
		return bg_error_set(ctx, BG_EINPUT, "%s:%d: the JSON document is null", source,
		                    bg_line_of(data, len, start));
	if (!*root && jerr == json_tokener_error_depth)
		return bg_error_set(ctx, BG_EINPUT, "%s:%d: nesting deeper than %d levels", source,
		                    bg_line_of(data, len, end), BG_JSON_DEPTH);
	if (!*root)
		return bg_error_set(ctx, BG_EINPUT, "%s:%d: not valid %s (json-c: %s): %s", source,
		                    bg_line_of(data, len, end), want->name,
		                    json_tokener_error_desc(jerr), want->how);
	*pos = end;
	return 0;
}

/* Exactly one JSON document, with nothing but blanks around it. */
static int json_document(bg_ctx *ctx, const char *source, const json_want *want, const char *data,
                         size_t len, json_object **root)
{
	size_t pos = skip_json_space(data, len, 0);
	int rc;

	*root = NULL;
	if (pos == len)
		return bg_error_set(ctx, BG_EINPUT, "%s: no JSON in output", source);
	if ((rc = json_next(ctx, source, want, data, len, &pos, root)) < 0)
		return rc;
	pos = skip_json_space(data, len, pos);
	if (pos < len) {
		json_object_put(*root);
		*root = NULL;
		return bg_error_set(ctx, BG_EINPUT,
		                    "%s:%d: unexpected text after the JSON document", source,
		                    bg_line_of(data, len, pos));
	}
	return 0;
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
	bg_buf stats;    /* run_names of statistics rows (mean...), each NUL-ended */
	size_t nsamples, naggregates, nskipped;
} gbench_state;

/* BG_EINPUT "<source>: benchmark "<name>": <what>". */
static int gbench_error(gbench_state *st, const char *name, const char *fmt, ...) BG_PRINTF(3, 4);

static int gbench_error(gbench_state *st, const char *name, const char *fmt, ...)
{
	char what[512], q[320];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(what, sizeof(what), fmt, ap);
	va_end(ap);
	return bg_error_set(st->ctx, BG_EINPUT, "%s: benchmark %s: %s", st->source,
	                    bg_text__quote(q, sizeof(q), name), what);
}

/* benchmarks[idx].<key>, a name that will name a series, may be one. */
static int gbench_check_name(gbench_state *st, size_t idx, const char *key, json_object *entry)
{
	json_object *v;
	const char *why;
	char q[320];

	if (!json_object_object_get_ex(entry, key, &v) || !json_object_is_type(v, json_type_string))
		return 0;
	why = bg_results__bad_name(json_object_get_string(v), (size_t)json_object_get_string_len(v),
	                           0);
	if (!why)
		return 0;
	return bg_error_set(st->ctx, BG_EINPUT, "%s: benchmarks[%zu].%s: %s %s", st->source, idx,
	                    key,
	                    bg_text__quote_n(q, sizeof(q), json_object_get_string(v),
	                                     (size_t)json_object_get_string_len(v)),
	                    why);
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
	if (bg_json__clamped(v))
		return gbench_error(st, name, "\"%s\": %s", key, BG_JSON_CLAMPED_MSG);
	*out = json_object_get_double(v);
	if (!isfinite(*out))
		return gbench_error(st, name, "\"%s\" is not a finite number", key);
	/* Times and the rates of SetBytesProcessed/SetItemsProcessed, all of them. */
	if (*out < 0)
		return gbench_error(st, name, "\"%s\" is %g, negative", key, *out);
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
	/* Before anything quotes them, and whether or not they are measurements. */
	if ((rc = gbench_check_name(st, idx, "name", entry)) < 0 ||
	    (rc = gbench_check_name(st, idx, "run_name", entry)) < 0)
		return rc;
	if ((rc = gbench_string(st, entry, name, "run_name", &run_name)) < 0 ||
	    (rc = gbench_string(st, entry, name, "run_type", &run_type)) < 0)
		return rc;

	if (gbench_flag(entry, "error_occurred")) {
		if ((rc = gbench_string(st, entry, name, "error_message", &msg)) < 0)
			return rc;
		return gbench_error(st, name, "failed: %s", msg && *msg ? msg : "error_occurred");
	}
	/* SkipWithMessage(): the benchmark chose not to run here, an outcome
	 * with its reason, as nvbench's and go test's skips are. */
	if (gbench_flag(entry, "skipped")) {
		json_object *mv = NULL;
		const char *why;

		if ((rc = gbench_string(st, entry, name, "skip_message", &msg)) < 0)
			return rc;
		if (msg && json_object_object_get_ex(entry, "skip_message", &mv) &&
		    (why = bg_results__bad_name(msg, (size_t)json_object_get_string_len(mv), 1)))
			return gbench_error(st, name, "skip_message %s", why);
		if ((rc = gbench_series_name(st, run_name ? run_name : name)) < 0)
			return rc;
		st->nskipped++;
		return bg_results_set_outcome(st->ctx, st->out, st->series.ptr, BG_BENCH_SKIPPED,
		                              msg && *msg ? msg : "skipped by Google Benchmark");
	}
	if ((rc = gbench_is_aggregate(st, entry, name, run_type, &aggregate)) < 0)
		return rc;
	if (aggregate) {
		json_object *fit;

		st->naggregates++;
		/* A statistic (mean, median, a user's) of repetitions, whose
		 * benchmark must then have its repetitions here too.  Not a
		 * complexity fit (BigO, RMS): its family has no series of that
		 * name, only "<name>/<n>"s. */
		if (run_name && !json_object_object_get_ex(entry, "big_o", &fit) &&
		    !json_object_object_get_ex(entry, "rms", &fit) &&
		    bg_buf_put(&st->stats, run_name, strlen(run_name) + 1) < 0)
			return bg_error_oom(st->ctx);
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

static int gbench_cmp_name(const void *a, const void *b)
{
	return strcmp(*(const char *const *)a, *(const char *const *)b);
}

/*
 * A benchmark registered with ReportAggregatesOnly() (or a run with
 * --benchmark_display_aggregates_only writing JSON to stdout) leaves only
 * its statistics rows, which are not samples: among other benchmarks'
 * repetitions it would vanish from the run without a word, and a
 * regression gate would stop watching it.  Refused, as a file of nothing
 * but statistics is.
 */
static int gbench_stats_only(gbench_state *st)
{
	const char **names = NULL, *p, *end = st->stats.ptr + st->stats.len;
	size_t i, n = bg_results_series_count(st->out);
	int rc = 0;

	if (!st->stats.len)
		return 0;
	if (n && !(names = malloc(n * sizeof(*names))))
		return bg_error_oom(st->ctx);
	for (i = 0; i < n; i++)
		names[i] = bg_results_series(st->out, i)->benchmark;
	qsort(names, n, sizeof(*names), gbench_cmp_name);
	for (p = st->stats.ptr; p < end; p += strlen(p) + 1) {
		const char *series;

		if ((rc = gbench_series_name(st, p)) < 0)
			break;
		series = st->series.ptr;
		if ((n && bsearch(&series, names, n, sizeof(*names), gbench_cmp_name)) ||
		    bg_results_find_outcome(st->out, series))
			continue;
		rc = gbench_error(st, p,
		                  "only statistics rows (mean, median...), no repetitions: "
		                  "drop ReportAggregatesOnly() or DisplayAggregatesOnly() from it, "
		                  "and --benchmark_report_aggregates_only");
		break;
	}
	free(names);
	return rc;
}

static int parse_gbench(bg_ctx *ctx, const char *source, const char *benchmark, const char *dir,
                        const char *data, size_t len, bg_results *out)
{
	gbench_state st = { ctx,         source,      benchmark, out, BG_BUF_INIT,
		            BG_BUF_INIT, BG_BUF_INIT, 0,         0,   0 };
	json_object *root = NULL, *list;
	size_t i, n;
	int rc = 0;

	(void)dir;
	if ((rc = json_document(ctx, source, &gbench_want, data, len, &root)) < 0)
		goto cleanup;
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
	else if (!st.nsamples && !st.nskipped)
		rc = bg_error_set(ctx, BG_EINPUT, "%s: no benchmark results in output", source);
	else
		rc = gbench_stats_only(&st);

cleanup:
	bg_buf_clear(&st.series);
	bg_buf_clear(&st.previous);
	bg_buf_clear(&st.stats);
	json_object_put(root);
	return rc;
}

/* ------------------------------------------------- JSON members, by path */

/*
 * nvbench and hyperfine messages name the place in the document the way
 * jq would ("benchmarks[0].states[2].summaries[1]"), since their files are
 * machine-written and a line number says little in them.
 */
static int at_error(bg_ctx *ctx, const char *source, const char *path, const char *fmt, ...)
        BG_PRINTF(4, 5);

static int at_error(bg_ctx *ctx, const char *source, const char *path, const char *fmt, ...)
{
	char what[512];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(what, sizeof(what), fmt, ap);
	va_end(ap);
	if (!path || !*path)
		return bg_error_set(ctx, BG_EINPUT, "%s: %s", source, what);
	return bg_error_set(ctx, BG_EINPUT, "%s: %s: %s", source, path, what);
}

/* json_type_double stands for any number, integer or not. */
static int json_has_type(json_object *v, json_type type)
{
	if (type == json_type_double)
		return json_object_is_type(v, json_type_double) ||
		       json_object_is_type(v, json_type_int);
	return v && json_object_is_type(v, type);
}

static const char *json_type_words(json_type type)
{
	switch (type) {
	case json_type_boolean:
		return "a boolean";
	case json_type_double:
	case json_type_int:
		return "a number";
	case json_type_object:
		return "an object";
	case json_type_array:
		return "an array";
	case json_type_string:
		return "a string";
	default:
		return "null";
	}
}

/*
 * Member `key` of the object at `path`, which must have `type`.  Absent:
 * *out is NULL, an error only when `required`; present with another type
 * (null included): always an error.
 */
static int json_member(bg_ctx *ctx, const char *source, const char *path, json_object *o,
                       const char *key, json_type type, int required, json_object **out)
{
	json_object *v = NULL;

	*out = NULL;
	if (!json_object_object_get_ex(o, key, &v)) {
		if (!required)
			return 0;
		return at_error(ctx, source, path, "missing \"%s\"", key);
	}
	if (!json_has_type(v, type))
		return at_error(ctx, source, path, "\"%s\" is not %s", key, json_type_words(type));
	*out = v;
	return 0;
}

/* The same for element i of the array at `path`. */
static int json_element(bg_ctx *ctx, const char *source, const char *path, json_object *array,
                        size_t i, json_type type, json_object **out)
{
	*out = json_object_array_get_idx(array, i);
	if (!json_has_type(*out, type))
		return at_error(ctx, source, NULL, "%s[%zu] is not %s", path, i,
		                json_type_words(type));
	return 0;
}

/*
 * The string `v`, member `key` of the object at `path`, may be stored as a
 * name (`text`: as free text, a message); else BG_EINPUT naming the place.
 */
static int json_name(bg_ctx *ctx, const char *source, const char *path, const char *key,
                     json_object *v, int text)
{
	const char *why = bg_results__bad_name(json_object_get_string(v),
	                                       (size_t)json_object_get_string_len(v), text);
	char q[320];

	if (!why)
		return 0;
	return at_error(ctx, source, NULL, "%s.%s: %s %s", path, key,
	                bg_text__quote_n(q, sizeof(q), json_object_get_string(v),
	                                 (size_t)json_object_get_string_len(v)),
	                why);
}

/* ------------------------------------------------------------- nvbench */

/*
 * nvbench's JSON, file format 1.x (nvbench/json_printer.cu,
 * docs/json_output.md): benchmarks[].states[], each state a list of
 * summaries {tag, data: [{name, type, value}]} whose numbers are written as
 * strings.  The tags read here are the ones nvbench/detail/measure_cold.cu
 * writes; the other summaries (CPU time, noise, walltime, batch) store
 * nothing and are not checked beyond their tag.
 */
#define NV_GPU_MEAN_TAG "nv/cold/time/gpu/mean"
#define NV_CPU_MEAN_TAG "nv/cpu_only/time/cpu/mean"

/*
 * How a state was measured: on the GPU (measure_cold.cu, the GPU time), or
 * on the CPU alone (measure_cpu_only.cu, a benchmark set_is_cpu_only: the
 * CPU time).  Each gives its mean, its per-sample times in a --jsonbin side
 * file (json_printer.cu), and the rates, one value a run.
 */
static const struct {
	const char *mean_tag, *samples_tag, *metric;
	const char *rate_tags[2];
} nv_kinds[] = {
	{ NV_GPU_MEAN_TAG,
	  "nv/json/bin:nv/cold/sample_times",
	  "gpu_time",
	  { "nv/cold/bw/global/bytes_per_second", "nv/cold/bw/item_rate" } },
	{ NV_CPU_MEAN_TAG,
	  "nv/json/bin:nv/cpu_only/sample_times",
	  "cpu_time",
	  { "nv/cpu_only/bw/global/bytes_per_second", "nv/cpu_only/bw/item_rate" } },
};

/* The rates' series, in rate_tags' order. */
static const struct {
	const char *metric, *unit;
} nvbench_rates[] = {
	{ "bandwidth", "B/s" },
	{ "item_rate", "items/s" },
};

typedef struct {
	bg_ctx *ctx;
	const char *source;
	const char *benchmark; /* the caller's prefix, or NULL */
	const char *dir;       /* where relative sample-file names start, or NULL */
	bg_results *out;
	locale_t c_locale;
	bg_buf series; /* "<benchmark>/<nvbench benchmark>/<state>", reused */
	bg_buf file;   /* resolved sample-times path, reused */
	size_t nmeasured, nskipped;
} nvbench_state;

#define NV_PATH 256

/*
 * The string value of datum `name` in a summary's data list, and its
 * declared type.  Absent: *value NULL, an error only when `required`.
 */
static int nv_datum(nvbench_state *st, json_object *summ, const char *path, const char *name,
                    int required, const char **type, const char **value)
{
	char dpath[NV_PATH + 32];
	json_object *data, *d, *v;
	size_t i, n;
	int rc;

	*type = *value = NULL;
	if ((rc = json_member(st->ctx, st->source, path, summ, "data", json_type_array, required,
	                      &data)) < 0 ||
	    !data)
		return rc;
	n = json_object_array_length(data);
	for (i = 0; i < n; i++) {
		snprintf(dpath, sizeof(dpath), "%s.data", path);
		if ((rc = json_element(st->ctx, st->source, dpath, data, i, json_type_object, &d)) <
		    0)
			return rc;
		snprintf(dpath, sizeof(dpath), "%s.data[%zu]", path, i);
		if ((rc = json_member(st->ctx, st->source, dpath, d, "name", json_type_string, 1,
		                      &v)) < 0)
			return rc;
		if (strcmp(json_object_get_string(v), name) != 0)
			continue;
		if ((rc = json_member(st->ctx, st->source, dpath, d, "type", json_type_string, 1,
		                      &v)) < 0)
			return rc;
		*type = json_object_get_string(v);
		if ((rc = json_member(st->ctx, st->source, dpath, d, "value", json_type_string, 1,
		                      &v)) < 0)
			return rc;
		*value = json_object_get_string(v);
		return 0;
	}
	if (required)
		return at_error(st->ctx, st->source, path, "no \"%s\" in its data", name);
	return 0;
}

/* A numeric datum: type float64 or int64, its value a finite number. */
static int nv_number(nvbench_state *st, json_object *summ, const char *path, const char *name,
                     double *out)
{
	const char *type, *value;
	char *end;
	int rc;

	if ((rc = nv_datum(st, summ, path, name, 1, &type, &value)) < 0)
		return rc;
	if (strcmp(type, "float64") != 0 && strcmp(type, "int64") != 0)
		return at_error(st->ctx, st->source, path,
		                "datum \"%s\" has type \"%.*s\", not float64 or int64", name,
		                QUOTE_MAX, type);
	*out = strtod_l(value, &end, st->c_locale);
	if (end == value || *end)
		return at_error(st->ctx, st->source, path, "%s \"%.*s\" is not a number", name,
		                QUOTE_MAX, value);
	if (!isfinite(*out))
		return at_error(st->ctx, st->source, path, "%s \"%.*s\" is not a finite number",
		                name, QUOTE_MAX, value);
	if (!bg_text__decimal(value, strlen(value)))
		return at_error(st->ctx, st->source, path, "%s \"%.*s\" is not a decimal number",
		                name, QUOTE_MAX, value);
	/* A GPU time, a bandwidth or an item rate, as the sample times are. */
	if (*out < 0)
		return at_error(st->ctx, st->source, path, "%s \"%.*s\" is negative", name,
		                QUOTE_MAX, value);
	return 0;
}

/* Most samples one side file may hold: 64 MiB of float32. */
#define NV_MAX_SAMPLES (1LL << 24)

/*
 * Opens the side file `name` under st->dir (the current directory when
 * NULL) the way a file named by untrusted input must be opened:
 *  - only inside that folder: no absolute name, no "..", and no symbolic
 *    link on the way (each component is opened with O_NOFOLLOW from the
 *    one before, so a link swapped in meanwhile is not followed either);
 *  - only a regular file: checked before the open, so a device is never
 *    opened, and again on the descriptor; O_NONBLOCK keeps a FIFO put in
 *    its place between the two from blocking the open.
 * Messages name the file but say nothing of what lies outside the folder.
 * *fd is -1 (and the result 0) when the file is not there.
 */
static int nv_open_side(nvbench_state *st, const char *path, const char *name, int *fd)
{
	char q[320], comp[256];
	const char *p = name, *slash;
	int dfd = -1, nfd, last = 0, rc = 0;
	struct stat sb;

	*fd = -1;
	bg_text__quote(q, sizeof(q), name);
	if (name[0] == '/')
		return at_error(st->ctx, st->source, path,
		                "sample times file %s is an absolute path; side files are read "
		                "only from the folder of the results",
		                q);
	for (p = name; *p; p = slash ? slash + 1 : p + strlen(p)) {
		size_t n;

		slash = strchr(p, '/');
		n = slash ? (size_t)(slash - p) : strlen(p);
		if (n == 2 && !memcmp(p, "..", 2))
			return at_error(st->ctx, st->source, path,
			                "sample times file %s leads out of the folder of the "
			                "results (\"..\")",
			                q);
		if (n >= sizeof(comp))
			return at_error(st->ctx, st->source, path,
			                "sample times file %s has a name longer than %zu bytes", q,
			                sizeof(comp) - 1);
		if (!slash)
			break;
	}

	dfd = open(st->dir && *st->dir ? st->dir : ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (dfd < 0) {
		if (errno == ENOENT)
			return 0;
		return bg_error_errno(st->ctx, BG_EINPUT, "%s: %s: %s", st->source, path,
		                      st->dir && *st->dir ? st->dir : ".");
	}
	for (p = name; *p;) {
		size_t n;

		slash = strchr(p, '/');
		n = slash ? (size_t)(slash - p) : strlen(p);
		last = !slash || !slash[1 + strspn(slash + 1, "/")];
		memcpy(comp, p, n);
		comp[n] = '\0';
		p = slash ? slash + 1 : p + n;
		if (!n || !strcmp(comp, "."))
			continue;
		if (fstatat(dfd, comp, &sb, AT_SYMLINK_NOFOLLOW) < 0) {
			if (errno == ENOENT || errno == ENOTDIR)
				goto cleanup; /* not there: the caller falls back to the mean */
			rc = bg_error_errno(st->ctx, BG_EINPUT, "%s: %s: sample times file %s",
			                    st->source, path, q);
			goto cleanup;
		}
		if (S_ISLNK(sb.st_mode)) {
			rc = at_error(st->ctx, st->source, path,
			              "sample times file %s is reached through a symbolic link; "
			              "side files are read only from the folder of the results, "
			              "and no link is followed",
			              q);
			goto cleanup;
		}
		if (last ? !S_ISREG(sb.st_mode) : !S_ISDIR(sb.st_mode)) {
			rc = at_error(st->ctx, st->source, path,
			              "sample times file %s is not a regular file", q);
			goto cleanup;
		}
		nfd = openat(dfd, comp,
		             last ? O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_NOCTTY | O_CLOEXEC
		                  : O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
		if (nfd < 0) {
			rc = errno == ENOENT ? 0
			                     : bg_error_errno(st->ctx, BG_EINPUT,
			                                      "%s: %s: sample times file %s",
			                                      st->source, path, q);
			goto cleanup;
		}
		close(dfd);
		dfd = nfd;
		if (last)
			break;
	}
	if (!last || fstat(dfd, &sb) < 0 || !S_ISREG(sb.st_mode)) {
		rc = at_error(st->ctx, st->source, path,
		              "sample times file %s is not a regular file", q);
		goto cleanup;
	}
	*fd = dfd;
	dfd = -1;

cleanup:
	if (dfd >= 0)
		close(dfd);
	return rc;
}

/*
 * Reads the per-sample GPU times of the sample-times summary at `path`.
 * *n stays 0 when there are none to read: nvbench leaves "filename" out when
 * it could not write the file, and a file that is not there (a JSON copied
 * without its "-bin" directory) falls back to the mean, with a warning.  A
 * file that is there must be whole: exactly the 4 bytes a sample that
 * "size" says, which is checked before a byte is read.
 */
static int nv_sample_times(nvbench_state *st, json_object *summ, const char *path, double **values,
                           size_t *n)
{
	const char *type, *name, *value, *why;
	char *raw = NULL, *end, q[320];
	size_t rawlen = 0, i, got;
	long long size;
	struct stat sb;
	int rc, fd = -1;

	*values = NULL;
	*n = 0;
	if ((rc = nv_datum(st, summ, path, "filename", 0, &type, &name)) < 0 || !name)
		return rc;
	if (strcmp(type, "string") != 0 || !*name)
		return at_error(st->ctx, st->source, path, "\"filename\" is not a file name");
	/* The name is printed (the warning below): it must print as what it is. */
	if ((why = bg_results__bad_name(name, strlen(name), 0)) != NULL)
		return at_error(st->ctx, st->source, path, "\"filename\" %s %s",
		                bg_text__quote(q, sizeof(q), name), why);
	if ((rc = nv_datum(st, summ, path, "size", 1, &type, &value)) < 0)
		return rc;
	errno = 0;
	size = strtoll(value, &end, 10);
	if (strcmp(type, "int64") != 0 || end == value || *end || errno || size <= 0)
		return at_error(st->ctx, st->source, path,
		                "size \"%.*s\" is not a positive int64 count of samples", QUOTE_MAX,
		                value);
	if (size > NV_MAX_SAMPLES)
		return at_error(st->ctx, st->source, path,
		                "size %lld is more than the %lld samples benchguard reads from one "
		                "file",
		                size, NV_MAX_SAMPLES);

	/* The name as messages show it: where it was looked for. */
	st->file.len = 0;
	if (st->dir && *st->dir &&
	    (bg_buf_puts(&st->file, st->dir) < 0 || bg_buf_put(&st->file, "/", 1) < 0))
		return bg_error_oom(st->ctx);
	if (bg_buf_puts(&st->file, name) < 0)
		return bg_error_oom(st->ctx);
	if ((rc = nv_open_side(st, path, name, &fd)) < 0)
		return rc;
	if (fd < 0) {
		bg_log(st->ctx, BG_LOG_WARN,
		       "%s: %s: sample times file %s not found: storing nvbench's mean GPU time as "
		       "the run's one sample",
		       st->source, path, st->file.ptr);
		return 0;
	}
	if (fstat(fd, &sb) < 0) {
		rc = bg_error_errno(st->ctx, BG_EINPUT, "%s: %s: sample times file %s", st->source,
		                    path, st->file.ptr);
		goto cleanup;
	}
	if ((unsigned long long)sb.st_size != 4ULL * (unsigned long long)size) {
		rc = at_error(st->ctx, st->source, path,
		              "sample times file %s holds %lld bytes, not the %lld 4-byte samples "
		              "\"size\" says (truncated?)",
		              st->file.ptr, (long long)sb.st_size, size);
		goto cleanup;
	}
	if (!(raw = malloc((size_t)size * 4)) ||
	    !(*values = malloc((size_t)size * sizeof(double)))) {
		rc = bg_error_oom(st->ctx);
		goto cleanup;
	}
	/* Exactly the bytes fstat promised, no more: a file that grows is not read on. */
	for (rawlen = (size_t)size * 4, got = 0; got < rawlen;) {
		ssize_t k = read(fd, raw + got, rawlen - got);

		if (k < 0 && errno == EINTR)
			continue;
		if (k < 0) {
			rc = bg_error_errno(st->ctx, BG_EINPUT, "%s: %s: sample times file %s",
			                    st->source, path, st->file.ptr);
			goto cleanup;
		}
		if (k == 0) {
			rc = at_error(st->ctx, st->source, path,
			              "sample times file %s ended after %zu of %zu bytes "
			              "(truncated while read?)",
			              st->file.ptr, got, rawlen);
			goto cleanup;
		}
		got += (size_t)k;
	}
	for (i = 0; i < (size_t)size; i++) {
		const unsigned char *b = (const unsigned char *)raw + 4 * i;
		/* Little-endian IEEE 754 float32 whatever the host's order. */
		uint32_t u = (uint32_t)b[0] | (uint32_t)b[1] << 8 | (uint32_t)b[2] << 16 |
		             (uint32_t)b[3] << 24;
		float f;

		memcpy(&f, &u, sizeof(f));
		if (!isfinite(f) || f < 0) {
			rc = at_error(st->ctx, st->source, path,
			              "sample times file %s: sample %zu is %g, not a time",
			              st->file.ptr, i, (double)f);
			goto cleanup;
		}
		(*values)[i] = (double)f;
	}
	*n = (size_t)size;

cleanup:
	if (rc < 0) {
		free(*values);
		*values = NULL;
	}
	if (fd >= 0)
		close(fd);
	free(raw);
	return rc;
}

static int nv_add(nvbench_state *st, const char *metric, const char *unit, double value)
{
	int rc = bg_results_add(st->ctx, st->out, st->series.ptr, metric, unit, value);

	return rc < 0 ? prefix_error(st->ctx, rc, st->source, 0) : 0;
}

static int nv_state(nvbench_state *st, json_object *state, const char *bench, const char *spath)
{
	char mpath[NV_PATH + QUOTE_MAX + 48];
	json_object *v, *summaries, *summ;
	const char *name, *tag;
	double mean[2] = { 0, 0 }, rate[2][BG_ARRAY_SIZE(nvbench_rates)] = { { 0 } };
	double *samples[2] = { NULL, NULL };
	int have_mean[2] = { 0, 0 }, have_rate[2][BG_ARRAY_SIZE(nvbench_rates)] = { { 0 } }, rc;
	size_t nsamples[2] = { 0, 0 }, k, n, r, kind, u;

	if ((rc = json_member(st->ctx, st->source, spath, state, "name", json_type_string, 1, &v)) <
	            0 ||
	    (rc = json_name(st->ctx, st->source, spath, "name", v, 0)) < 0)
		return rc;
	name = json_object_get_string(v);
	st->series.len = 0;
	if ((st->benchmark && (bg_buf_puts(&st->series, st->benchmark) < 0 ||
	                       bg_buf_put(&st->series, "/", 1) < 0)) ||
	    bg_buf_puts(&st->series, bench) < 0 ||
	    (*name && (bg_buf_put(&st->series, "/", 1) < 0 || bg_buf_puts(&st->series, name) < 0)))
		return bg_error_oom(st->ctx);

	if ((rc = json_member(st->ctx, st->source, spath, state, "is_skipped", json_type_boolean, 1,
	                      &v)) < 0)
		return rc;
	if (json_object_get_boolean(v)) {
		/* skip() in the benchmark: not measurable here, like an unmet `requires`. */
		if ((rc = json_member(st->ctx, st->source, spath, state, "skip_reason",
		                      json_type_string, 0, &v)) < 0 ||
		    (v && (rc = json_name(st->ctx, st->source, spath, "skip_reason", v, 1)) < 0))
			return rc;
		st->nskipped++;
		return bg_results_set_outcome(st->ctx, st->out, st->series.ptr, BG_BENCH_SKIPPED,
		                              v && *json_object_get_string(v)
		                                      ? json_object_get_string(v)
		                                      : "skipped by nvbench");
	}

	if ((rc = json_member(st->ctx, st->source, spath, state, "summaries", json_type_array, 1,
	                      &summaries)) < 0)
		return rc;
	n = json_object_array_length(summaries);
	for (k = 0; k < n; k++) {
		snprintf(mpath, sizeof(mpath), "%s.summaries", spath);
		if ((rc = json_element(st->ctx, st->source, mpath, summaries, k, json_type_object,
		                       &summ)) < 0)
			goto cleanup;
		snprintf(mpath, sizeof(mpath), "%s.summaries[%zu]", spath, k);
		if ((rc = json_member(st->ctx, st->source, mpath, summ, "tag", json_type_string, 1,
		                      &v)) < 0)
			goto cleanup;
		tag = json_object_get_string(v);
		snprintf(mpath, sizeof(mpath), "%s.summaries[%zu] (\"%.*s\")", spath, k, QUOTE_MAX,
		         tag);
		for (u = 0; u < BG_ARRAY_SIZE(nv_kinds); u++) {
			if (!strcmp(tag, nv_kinds[u].mean_tag)) {
				if ((rc = nv_number(st, summ, mpath, "value", &mean[u])) < 0)
					goto cleanup;
				have_mean[u] = 1;
			} else if (!strcmp(tag, nv_kinds[u].samples_tag)) {
				free(samples[u]);
				samples[u] = NULL;
				if ((rc = nv_sample_times(st, summ, mpath, &samples[u],
				                          &nsamples[u])) < 0)
					goto cleanup;
			}
			for (r = 0; r < BG_ARRAY_SIZE(nvbench_rates); r++) {
				if (strcmp(tag, nv_kinds[u].rate_tags[r]) != 0)
					continue;
				if ((rc = nv_number(st, summ, mpath, "value", &rate[u][r])) < 0)
					goto cleanup;
				have_rate[u][r] = 1;
			}
		}
	}
	/* The GPU's measurement where there is one; else the CPU-only one. */
	kind = nsamples[0] || have_mean[0] ? 0 : 1;
	if (!nsamples[kind] && !have_mean[kind]) {
		rc = at_error(st->ctx, st->source, spath,
		              "no cold GPU time (summary \"" NV_GPU_MEAN_TAG
		              "\") and no CPU-only time (\"" NV_CPU_MEAN_TAG "\")");
		goto cleanup;
	}
	if (bg_results__find(st->out, st->series.ptr, "gpu_time") ||
	    bg_results__find(st->out, st->series.ptr, "cpu_time")) {
		rc = at_error(st->ctx, st->source, spath, "a second state named \"%.*s\" in %.*s",
		              QUOTE_MAX, name, QUOTE_MAX, bench);
		goto cleanup;
	}
	/*
	 * Without the sample file the run contributes nvbench's mean as its one
	 * sample: the verdict compares runs, not samples, so it loses only the
	 * within-run spread.
	 */
	if (!nsamples[kind])
		rc = nv_add(st, nv_kinds[kind].metric, "s", mean[kind]);
	for (k = 0; k < nsamples[kind] && rc == 0; k++)
		rc = nv_add(st, nv_kinds[kind].metric, "s", samples[kind][k]);
	for (r = 0; r < BG_ARRAY_SIZE(nvbench_rates) && rc == 0; r++)
		if (have_rate[kind][r])
			rc = nv_add(st, nvbench_rates[r].metric, nvbench_rates[r].unit,
			            rate[kind][r]);
	if (rc == 0)
		st->nmeasured++;

cleanup:
	free(samples[0]);
	free(samples[1]);
	return rc;
}

/* meta.version.json.major, when the file states one (nvbench >= 0.1 does). */
static int nv_check_version(nvbench_state *st, json_object *root)
{
	json_object *meta, *version, *json, *major;

	if (!json_object_object_get_ex(root, "meta", &meta) ||
	    !json_object_object_get_ex(meta, "version", &version) ||
	    !json_object_object_get_ex(version, "json", &json) ||
	    !json_object_object_get_ex(json, "major", &major))
		return 0;
	if (!json_object_is_type(major, json_type_int))
		return at_error(st->ctx, st->source, "meta.version.json.major", "not an integer");
	if (json_object_get_int64(major) != 1)
		return at_error(st->ctx, st->source, NULL,
		                "nvbench JSON format version %lld; benchguard reads version 1",
		                (long long)json_object_get_int64(major));
	return 0;
}

static int parse_nvbench(bg_ctx *ctx, const char *source, const char *benchmark, const char *dir,
                         const char *data, size_t len, bg_results *out)
{
	nvbench_state st = { ctx,         source,      benchmark,   dir, out,
		             (locale_t)0, BG_BUF_INIT, BG_BUF_INIT, 0,   0 };
	json_object *root = NULL, *list, *b, *v, *states;
	char bpath[64], spath[NV_PATH];
	size_t i, j, n, m;
	int rc;

	if ((rc = json_document(ctx, source, &nvbench_want, data, len, &root)) < 0)
		goto cleanup;
	if (!json_object_is_type(root, json_type_object) ||
	    !json_object_object_get_ex(root, "benchmarks", &list)) {
		rc = bg_error_set(ctx, BG_EINPUT,
		                  "%s: no \"benchmarks\" list: not nvbench JSON (--json)", source);
		goto cleanup;
	}
	if ((rc = nv_check_version(&st, root)) < 0 ||
	    (rc = json_member(ctx, source, NULL, root, "benchmarks", json_type_array, 1, &list)) <
	            0)
		goto cleanup;
	if (!(st.c_locale = newlocale(LC_NUMERIC_MASK, "C", (locale_t)0))) {
		rc = bg_error_errno(ctx, BG_ERROR, "cannot create the C locale");
		goto cleanup;
	}
	n = json_object_array_length(list);
	for (i = 0; i < n; i++) {
		if ((rc = json_element(ctx, source, "benchmarks", list, i, json_type_object, &b)) <
		    0)
			goto cleanup;
		snprintf(bpath, sizeof(bpath), "benchmarks[%zu]", i);
		if ((rc = json_member(ctx, source, bpath, b, "name", json_type_string, 1, &v)) <
		            0 ||
		    (rc = json_name(ctx, source, bpath, "name", v, 0)) < 0 ||
		    (rc = json_member(ctx, source, bpath, b, "states", json_type_array, 1,
		                      &states)) < 0)
			goto cleanup;
		m = json_object_array_length(states);
		for (j = 0; j < m; j++) {
			json_object *state;

			snprintf(spath, sizeof(spath), "%s.states", bpath);
			if ((rc = json_element(ctx, source, spath, states, j, json_type_object,
			                       &state)) < 0)
				goto cleanup;
			snprintf(spath, sizeof(spath), "%s.states[%zu]", bpath, j);
			if ((rc = nv_state(&st, state, json_object_get_string(v), spath)) < 0)
				goto cleanup;
		}
	}
	/* Every state skipped is a result (nothing runs on this GPU); none at all is not. */
	if (!st.nmeasured && !st.nskipped)
		rc = bg_error_set(ctx, BG_EINPUT, "%s: no benchmark states in output", source);

cleanup:
	bg_buf_clear(&st.series);
	bg_buf_clear(&st.file);
	if (st.c_locale)
		freelocale(st.c_locale);
	json_object_put(root);
	return rc;
}

/* ----------------------------------------------------------- hyperfine */

/*
 * hyperfine --export-json: {"results": [{command, times[], exit_codes[],
 * parameters{}, mean, stddev, ...}]}.  `times` (seconds, wall clock, warm-up
 * runs left out by hyperfine) are the samples; the rest summarises them.
 */

#define HF_PATH (48 + 320)

/* "k=v,k2=v2" from a result's "parameters" (-P/-L), or "" when none. */
static int hf_parameters(bg_ctx *ctx, const char *source, const char *path, json_object *result,
                         bg_buf *out)
{
	char ppath[HF_PATH + 16];
	json_object *params;
	int rc;

	out->len = 0;
	if ((rc = bg_buf_puts(out, "")) < 0)
		return bg_error_oom(ctx);
	if ((rc = json_member(ctx, source, path, result, "parameters", json_type_object, 0,
	                      &params)) < 0 ||
	    !params)
		return rc;
	snprintf(ppath, sizeof(ppath), "%s.parameters", path);
	json_object_object_foreach(params, key, val)
	{
		const char *why = bg_results__bad_name(key, strlen(key), 0);
		char q[320];

		/* Keys and values become series names: "<name>/k=v". */
		if (why)
			return at_error(ctx, source, ppath, "key %s %s",
			                bg_text__quote(q, sizeof(q), key), why);
		if (!json_object_is_type(val, json_type_string))
			return at_error(ctx, source, ppath, "\"%s\" is not a string", key);
		if ((rc = json_name(ctx, source, ppath, key, val, 0)) < 0)
			return rc;
		if (bg_buf_printf(out, "%s%s=%s", out->len ? "," : "", key,
		                  json_object_get_string(val)) < 0)
			return bg_error_oom(ctx);
	}
	return 0;
}

/*
 * Checks the times[] and exit_codes[] of results[i]: every run timed, and
 * successful.  `path` is "results[i] (\"<command>\")".
 */
static int hf_check_runs(bg_ctx *ctx, const char *source, size_t i, const char *path,
                         json_object *result, json_object *times)
{
	char tpath[64];
	json_object *codes, *v;
	size_t k, n = json_object_array_length(times);
	int rc;

	if (!n)
		return at_error(ctx, source, path, "\"times\" is empty");
	snprintf(tpath, sizeof(tpath), "results[%zu].times", i);
	for (k = 0; k < n; k++) {
		double t;

		if ((rc = json_element(ctx, source, tpath, times, k, json_type_double, &v)) < 0)
			return rc;
		if (bg_json__clamped(v))
			return at_error(ctx, source, NULL, "%s[%zu]: %s", tpath, k,
			                BG_JSON_CLAMPED_MSG);
		t = json_object_get_double(v);
		if (!isfinite(t) || t < 0)
			return at_error(ctx, source, NULL, "%s[%zu] is %g, not a time", tpath, k,
			                t);
	}
	/* Older hyperfine (< 1.11) writes no exit codes; then it stopped at a failure. */
	if ((rc = json_member(ctx, source, path, result, "exit_codes", json_type_array, 0,
	                      &codes)) < 0 ||
	    !codes)
		return rc;
	if (json_object_array_length(codes) != n)
		return at_error(ctx, source, path, "%zu exit codes for %zu times",
		                json_object_array_length(codes), n);
	for (k = 0; k < n; k++) {
		v = json_object_array_get_idx(codes, k);
		/* A time measures the command only if it ran to success; -i keeps the rest. */
		if (!v)
			return at_error(
			        ctx, source, path,
			        "run %zu of %zu was killed by a signal; benchguard stores no "
			        "times of failed runs",
			        k + 1, n);
		if (!json_object_is_type(v, json_type_int))
			return at_error(ctx, source, path, "exit_codes[%zu] is not an integer", k);
		if (bg_json__clamped(v))
			return at_error(ctx, source, path, "exit_codes[%zu]: %s", k,
			                BG_JSON_CLAMPED_MSG);
		if (json_object_get_int64(v) != 0)
			return at_error(
			        ctx, source, path,
			        "run %zu of %zu exited with code %lld; benchguard stores no "
			        "times of failed runs",
			        k + 1, n, (long long)json_object_get_int64(v));
	}
	return 0;
}

/* Result indices by label, then by index (qsort_r: no global). */
static int hf_by_label(const void *a, const void *b, void *data)
{
	char *const *labels = data;
	size_t i = *(const size_t *)a, j = *(const size_t *)b;
	int c = strcmp(labels[i], labels[j]);

	return c ? c : (i > j) - (i < j);
}

/*
 * Whether two results have one label: then *second is the first result
 * whose label an earlier one has, and *first that earlier one.  Sorted, not
 * compared pairwise: a file of a million results must not take hours.
 */
static int hf_duplicate(char *const *labels, size_t n, size_t *order, size_t *first, size_t *second)
{
	size_t k;
	int found = 0;

	for (k = 0; k < n; k++)
		order[k] = k;
	qsort_r(order, n, sizeof(*order), hf_by_label, (void *)labels);
	/* In a run of one label, the first two are its earliest results. */
	for (k = 1; k < n; k++) {
		if (strcmp(labels[order[k - 1]], labels[order[k]]) != 0 ||
		    (k >= 2 && !strcmp(labels[order[k - 2]], labels[order[k]])))
			continue;
		if (!found || order[k] < *second) {
			*first = order[k - 1];
			*second = order[k];
			found = 1;
		}
	}
	return found;
}

/*
 * Names each result.  With the caller's name B: B alone for a single
 * result; else B/<parameter values> for a parameter scan, or B/<command>
 * (its --command-name when given) without one.  When parameter values do
 * not tell the results apart (several commands scanned), and always without
 * B, the command comes first: "<command>/k=v".
 */
static int hf_labels(bg_ctx *ctx, const char *source, const char *benchmark,
                     const char *const *commands, char *const *params, size_t n, char **labels)
{
	bg_buf b = BG_BUF_INIT;
	size_t *order = malloc((n ? n : 1) * sizeof(*order)), i, j = 0, dup = 0;
	int pass, found = 0;

	if (!order)
		goto oom;
	for (pass = benchmark ? 0 : 1; pass < 2; pass++) {
		for (i = 0; i < n; i++) {
			b.len = 0;
			if ((pass == 1 || !*params[i]) && bg_buf_puts(&b, commands[i]) < 0)
				goto oom;
			if (*params[i] &&
			    bg_buf_printf(&b, "%s%s", b.len ? "/" : "", params[i]) < 0)
				goto oom;
			free(labels[i]);
			if (!(labels[i] = bg_buf_detach(&b)))
				goto oom;
		}
		if (!(found = hf_duplicate(labels, n, order, &j, &dup)))
			break;
	}
	free(order);
	if (found)
		return bg_error_set(ctx, BG_EINPUT,
		                    "%s: results[%zu] and results[%zu] are both \"%.*s\": give "
		                    "each command its own --command-name",
		                    source, j, dup, QUOTE_MAX, labels[dup]);
	return 0;
oom:
	free(order);
	bg_buf_clear(&b);
	return bg_error_oom(ctx);
}

/* Whether hyperfine document `next` holds every result of `prev`, first
 * and as they were: the same run, rewritten after one more command. */
static int hf_extends(json_object *prev, json_object *next)
{
	json_object *a, *b;
	size_t i, n;

	if (!json_object_is_type(prev, json_type_object) ||
	    !json_object_is_type(next, json_type_object) ||
	    !json_object_object_get_ex(prev, "results", &a) ||
	    !json_object_object_get_ex(next, "results", &b) ||
	    !json_object_is_type(a, json_type_array) || !json_object_is_type(b, json_type_array))
		return 0;
	n = json_object_array_length(a);
	if (n > json_object_array_length(b))
		return 0;
	for (i = 0; i < n; i++)
		if (!json_object_equal(json_object_array_get_idx(a, i),
		                       json_object_array_get_idx(b, i)))
			return 0;
	return 1;
}

static int parse_hyperfine(bg_ctx *ctx, const char *source, const char *benchmark, const char *dir,
                           const char *data, size_t len, bg_results *out)
{
	json_object *root = NULL, *doc, *list, *r, *v, *times;
	const char **commands = NULL;
	char **params = NULL, **labels = NULL, path[HF_PATH], q[320];
	bg_buf series = BG_BUF_INIT, pbuf = BG_BUF_INIT;
	size_t pos, i, k, n = 0;
	int rc = 0;

	(void)dir;
	pos = skip_json_space(data, len, 0);
	if (pos == len)
		return bg_error_set(ctx, BG_EINPUT, "%s: no JSON in output", source);
	/*
	 * hyperfine rewrites its export file after each command, so
	 * --export-json /dev/stdout on a pipe gives one growing document per
	 * command: the last one holds every result.  Only when each holds the
	 * one before it: two runs' documents (a command that runs hyperfine
	 * twice, `cat a.json b.json`) would lose all but the last run's.
	 */
	for (k = 1; pos < len; k++) {
		if ((rc = json_next(ctx, source, &hf_want, data, len, &pos, &doc)) < 0)
			goto cleanup;
		if (root && !hf_extends(root, doc)) {
			json_object_put(doc);
			rc = bg_error_set(
			        ctx, BG_EINPUT,
			        "%s: JSON document %zu does not hold the results of the one "
			        "before it: the output of more than one hyperfine run? "
			        "Give each its own benchmark",
			        source, k);
			goto cleanup;
		}
		json_object_put(root);
		root = doc;
		pos = skip_json_space(data, len, pos);
	}
	if (!json_object_is_type(root, json_type_object) ||
	    !json_object_object_get_ex(root, "results", &list)) {
		rc = bg_error_set(ctx, BG_EINPUT,
		                  "%s: no \"results\" list: not hyperfine JSON (--export-json)",
		                  source);
		goto cleanup;
	}
	if ((rc = json_member(ctx, source, NULL, root, "results", json_type_array, 1, &list)) < 0)
		goto cleanup;
	if (!(n = json_object_array_length(list))) {
		rc = bg_error_set(ctx, BG_EINPUT, "%s: no results in output", source);
		goto cleanup;
	}
	commands = calloc(n, sizeof(*commands));
	params = calloc(n, sizeof(*params));
	labels = calloc(n, sizeof(*labels));
	if (!commands || !params || !labels) {
		rc = bg_error_oom(ctx);
		goto cleanup;
	}
	for (i = 0; i < n; i++) {
		if ((rc = json_element(ctx, source, "results", list, i, json_type_object, &r)) < 0)
			goto cleanup;
		snprintf(path, sizeof(path), "results[%zu]", i);
		if ((rc = json_member(ctx, source, path, r, "command", json_type_string, 1, &v)) <
		            0 ||
		    (rc = json_name(ctx, source, path, "command", v, 0)) < 0)
			goto cleanup;
		commands[i] = json_object_get_string(v);
		snprintf(path, sizeof(path), "results[%zu] (%s)", i,
		         bg_text__quote(q, sizeof(q), commands[i]));
		if ((rc = json_member(ctx, source, path, r, "times", json_type_array, 1, &times)) <
		            0 ||
		    (rc = hf_check_runs(ctx, source, i, path, r, times)) < 0)
			goto cleanup;
		if ((rc = hf_parameters(ctx, source, path, r, &pbuf)) < 0)
			goto cleanup;
		if (!(params[i] = bg_strdup(pbuf.ptr))) {
			rc = bg_error_oom(ctx);
			goto cleanup;
		}
	}
	if ((rc = hf_labels(ctx, source, benchmark, commands, params, n, labels)) < 0)
		goto cleanup;
	for (i = 0; i < n; i++) {
		times = json_object_object_get(json_object_array_get_idx(list, i), "times");
		series.len = 0;
		/* A one-value scan (-L n 8) keeps its "/n=8": the series it would
		 * be among more values, so adding one does not rename it. */
		if ((benchmark ? bg_buf_printf(&series, n == 1 && !*params[i] ? "%s" : "%s/%s",
		                               benchmark, labels[i])
		               : bg_buf_puts(&series, labels[i])) < 0) {
			rc = bg_error_oom(ctx);
			goto cleanup;
		}
		for (k = 0; k < json_object_array_length(times); k++) {
			rc = bg_results_add(
			        ctx, out, series.ptr, "wall_time", "s",
			        json_object_get_double(json_object_array_get_idx(times, k)));
			if (rc < 0) {
				rc = prefix_error(ctx, rc, source, 0);
				goto cleanup;
			}
		}
	}

cleanup:
	for (i = 0; i < n; i++) {
		if (params)
			free(params[i]);
		if (labels)
			free(labels[i]);
	}
	free(commands);
	free(params);
	free(labels);
	bg_buf_clear(&series);
	bg_buf_clear(&pbuf);
	json_object_put(root);
	return rc;
}

/* ------------------------------------------------------------------ go */

/*
 * `go test -bench` text, in the Go benchmark data format
 * (golang.org/design/14313-benchmark-format): a result line is
 * "Benchmark<Name>[-<GOMAXPROCS>] <iterations> <value> <unit>...", one
 * sample per line (-count N prints N lines), but for a benchmark that
 * prints to stdout (see go_kind).  Every other line (goos:, pkg:, PASS,
 * ok, the benchmarks' own output) is not a result.  ns/op is
 * the "time" series, stored in seconds; every other unit (B/op, allocs/op,
 * MB/s, b.ReportMetric's) is a series named after the unit.
 */
#define GO_TAG "Benchmark"
#define GO_TAG_LEN (sizeof(GO_TAG) - 1)
#define GO_FAIL "--- FAIL: "
#define GO_SKIP "--- SKIP: "
/* More digits than any GOMAXPROCS: then the "-N" is part of the name. */
#define GO_PROCS_DIGITS 9

/* The next blank-separated field of [*p, end), or 0 when none is left. */
static int go_field(const char **p, const char *end, const char **f, size_t *n)
{
	while (*p < end && is_blank(**p))
		(*p)++;
	if (*p == end)
		return 0;
	*f = *p;
	while (*p < end && !is_blank(**p))
		(*p)++;
	*n = (size_t)(*p - *f);
	return 1;
}

/* A benchmark name: "Benchmark" then nothing, or not a lower-case letter
 * (Go's own rule for what a benchmark function is). */
static int go_is_name(const char *f, size_t n)
{
	return n >= GO_TAG_LEN && !memcmp(f, GO_TAG, GO_TAG_LEN) &&
	       (n == GO_TAG_LEN || f[GO_TAG_LEN] < 'a' || f[GO_TAG_LEN] > 'z');
}

static int go_is_count(const char *f, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++)
		if (f[i] < '0' || f[i] > '9')
			return 0;
	return n > 0;
}

/*
 * Splits "BenchmarkSort-8" into its length without the suffix and the
 * GOMAXPROCS it ran at; go test writes no suffix for 1.  Like benchstat,
 * any final "-<digits>" is taken for the suffix.
 */
static size_t go_base(const char *f, size_t n, unsigned long *procs)
{
	size_t i = n, digits;

	while (i > GO_TAG_LEN && f[i - 1] >= '0' && f[i - 1] <= '9')
		i--;
	digits = n - i;
	*procs = 1;
	if (!digits || digits > GO_PROCS_DIGITS || i <= GO_TAG_LEN || f[i - 1] != '-')
		return n;
	for (*procs = 0; i < n; i++)
		*procs = *procs * 10 + (unsigned long)(f[i] - '0');
	return n - digits - 1;
}

/*
 * The GOMAXPROCS each benchmark name ran at, to tell whether one ran at
 * several (go test -cpu 1,2,4): then each keeps its own series.  The names
 * point into the input (no copies); the shared index (lib/index.c) finds
 * them by a hash of their bytes.
 */
typedef struct {
	const char *name;
	size_t len;
	unsigned long procs;
	int mixed;
	const char *pkg; /* the "pkg:" line's value it first ran under */
	size_t pkg_len, line;
} go_proc;

typedef struct {
	go_proc *e;
	size_t n, cap;
	bg_index ix;
} go_procs;

/* A name to find: not terminated, a slice of the input. */
typedef struct {
	const char *name;
	size_t len;
} go_name;

/* Entry i of the go_proc array `set` is named `key` (a go_name). */
static int same_go_proc(const void *set, size_t i, const void *key)
{
	const go_proc *e = (const go_proc *)set + i;
	const go_name *k = key;

	return e->len == k->len && !memcmp(e->name, k->name, k->len);
}

/* The entry of `name` (whose hash is h), or NULL. */
static go_proc *go_procs_find(const go_procs *t, const char *name, size_t len, uint64_t h)
{
	go_name key = { name, len };
	size_t i = bg_index__find(&t->ix, h, same_go_proc, t->e, &key);

	return i == BG_INDEX_NONE ? NULL : &t->e[i];
}

/*
 * Notes that `name` ran at `procs` in package `pkg` (line `line`): 0, or
 * BG_ENOMEM, or 1 with *first the entry of the same name in another
 * package (go test ./... with one name in two packages).
 */
static int go_procs_note(go_procs *t, const char *name, size_t len, unsigned long procs,
                         const char *pkg, size_t pkg_len, size_t line, const go_proc **first)
{
	uint64_t h = bg_index__hash_n(name, len);
	go_proc *e = go_procs_find(t, name, len, h);

	if (!e) {
		if (bg_grow((void **)&t->e, &t->cap, t->n, sizeof(*t->e)) < 0 ||
		    bg_index__add(&t->ix, h, t->n) < 0)
			return BG_ENOMEM;
		e = &t->e[t->n++];
		e->name = name;
		e->len = len;
		e->procs = procs;
		e->mixed = 0;
		e->pkg = pkg;
		e->pkg_len = pkg_len;
		e->line = line;
		return 0;
	}
	if (e->pkg_len != pkg_len || (pkg_len && memcmp(e->pkg, pkg, pkg_len) != 0)) {
		*first = e;
		return 1;
	}
	if (e->procs != procs)
		e->mixed = 1;
	return 0;
}

typedef struct {
	bg_ctx *ctx;
	const char *source;
	const char *benchmark; /* the caller's prefix, or NULL */
	bg_results *out;
	locale_t c_locale;
	go_procs procs;
	bg_buf series, metric; /* reused from line to line */
	size_t nsamples, nskipped;
} go_state;

/* "<benchmark>/<name>", and "/gomaxprocs=N" when the name ran at several. */
static int go_series(go_state *st, size_t line, const char *f, size_t n)
{
	unsigned long procs;
	size_t base = go_base(f, n, &procs);
	const go_proc *e = go_procs_find(&st->procs, f, base, bg_index__hash_n(f, base));
	const char *why;
	char q[320];

	if ((why = bad_field(f, base, 1)) != NULL)
		return bg_error_set(st->ctx, BG_EINPUT, "%s:%zu: benchmark name %s %s", st->source,
		                    line, bg_text__quote_n(q, sizeof(q), f, base), why);
	st->series.len = 0;
	if ((st->benchmark && bg_buf_printf(&st->series, "%s/", st->benchmark) < 0) ||
	    bg_buf_put(&st->series, f, base) < 0 ||
	    (e && e->mixed && bg_buf_printf(&st->series, "/gomaxprocs=%lu", procs) < 0) ||
	    bg_buf_put(&st->series, "", 1) < 0)
		return bg_error_oom(st->ctx);
	return 0;
}

/* Most "<value> <unit>" pairs on one line: go test writes ns/op, B/op,
 * allocs/op, MB/s and what b.ReportMetric adds, a handful. */
#define GO_PAIRS_MAX 64

/* A unit go test itself writes (ns/op, -benchmem's, SetBytes'). */
static int go_own_unit(const char *f, size_t n)
{
	static const char *const own[] = { "ns/op", "B/op", "allocs/op", "MB/s" };
	size_t i;

	for (i = 0; i < BG_ARRAY_SIZE(own); i++)
		if (strlen(own[i]) == n && !memcmp(f, own[i], n))
			return 1;
	return 0;
}

/*
 * One result: the name `name` (of `nlen` bytes, on line `name_line`) and its
 * figures, [p, end) on line `line` from the iteration count on.  Both are
 * known good; they share a line but for a benchmark that printed to stdout.
 */
static int go_result(go_state *st, size_t name_line, const char *name, size_t nlen, size_t line,
                     const char *p, const char *end)
{
	const char *f, *v, *why, *unit[GO_PAIRS_MAX];
	size_t n, vn, k, pairs = 0, unit_len[GO_PAIRS_MAX];
	char *vend, q[320];
	double value;
	int rc;

	if ((rc = go_series(st, name_line, name, nlen)) < 0)
		return rc;
	(void)go_field(&p, end, &v, &vn); /* the iteration count */
	while (go_field(&p, end, &v, &vn)) {
		if (!go_field(&p, end, &f, &n))
			return bg_error_set(
			        st->ctx, BG_EINPUT, "%s:%zu: value \"%.*s\" has no unit after it",
			        st->source, line, (int)(vn < QUOTE_MAX ? vn : QUOTE_MAX), v);
		/* The unit names a series, addressed as "benchmark:metric". */
		if ((why = bad_field(f, n, 0)) != NULL)
			return bg_error_set(st->ctx, BG_EINPUT, "%s:%zu: unit %s %s", st->source,
			                    line, bg_text__quote_n(q, sizeof(q), f, n), why);
		/* A unit twice on one line would make one line two samples of it. */
		if (pairs == GO_PAIRS_MAX)
			return bg_error_set(
			        st->ctx, BG_EINPUT,
			        "%s:%zu: more than %d \"<value> <unit>\" pairs on one line",
			        st->source, line, GO_PAIRS_MAX);
		for (k = 0; k < pairs; k++)
			if (unit_len[k] == n && !memcmp(unit[k], f, n))
				return bg_error_set(st->ctx, BG_EINPUT,
				                    "%s:%zu: unit %s twice on one line", st->source,
				                    line, bg_text__quote_n(q, sizeof(q), f, n));
		unit[pairs] = f;
		unit_len[pairs] = n;
		/* strtod_l() stops at the blank before the unit at the latest. */
		value = strtod_l(v, &vend, st->c_locale);
		if (vend != v + vn || !isfinite(value))
			return bg_error_set(
			        st->ctx, BG_EINPUT, "%s:%zu: value \"%.*s\" is not a finite number",
			        st->source, line, (int)(vn < QUOTE_MAX ? vn : QUOTE_MAX), v);
		if (!bg_text__decimal(v, vn))
			return bg_error_set(st->ctx, BG_EINPUT,
			                    "%s:%zu: value \"%.*s\" is not a decimal number",
			                    st->source, line,
			                    (int)(vn < QUOTE_MAX ? vn : QUOTE_MAX), v);
		/* go test's own units are a time, sizes, counts and a rate; what
		 * b.ReportMetric reports may be anything. */
		if (value < 0 && go_own_unit(f, n))
			return bg_error_set(st->ctx, BG_EINPUT,
			                    "%s:%zu: value \"%.*s\" of %.*s is negative",
			                    st->source, line,
			                    (int)(vn < QUOTE_MAX ? vn : QUOTE_MAX), v, (int)n, f);
		st->metric.len = 0;
		if (n == 5 && !memcmp(f, "ns/op", 5))
			rc = bg_results_add(st->ctx, st->out, st->series.ptr, "time", "ns", value);
		else if (bg_buf_put(&st->metric, f, n) < 0 || bg_buf_put(&st->metric, "", 1) < 0)
			return bg_error_oom(st->ctx);
		else
			rc = bg_results_add(st->ctx, st->out, st->series.ptr, st->metric.ptr,
			                    st->metric.ptr, value);
		if (rc < 0)
			return prefix_error(st->ctx, rc, st->source, line);
		pairs++;
	}
	if (!pairs)
		return bg_error_set(st->ctx, BG_EINPUT,
		                    "%s:%zu: no \"<value> <unit>\" after the iteration count",
		                    st->source, line);
	st->nsamples++;
	return 0;
}

/* "--- FAIL: BenchmarkX-2" fails the file; "--- SKIP: ..." is an outcome. */
static int go_verdict(go_state *st, size_t line, const char *p, const char *end)
{
	int fail = !memcmp(p, GO_FAIL, sizeof(GO_FAIL) - 1);
	const char *f;
	size_t n;
	int rc;

	p += sizeof(GO_FAIL) - 1;
	if (!go_field(&p, end, &f, &n) || !go_is_name(f, n))
		return 0; /* a test's verdict, not a benchmark's */
	if ((rc = go_series(st, line, f, n)) < 0)
		return rc;
	if (fail)
		return bg_error_set(st->ctx, BG_EINPUT,
		                    "%s:%zu: %s failed; benchguard stores no results of a run "
		                    "with a failed benchmark",
		                    st->source, line, st->series.ptr);
	st->nskipped++;
	return bg_results_set_outcome(st->ctx, st->out, st->series.ptr, BG_BENCH_SKIPPED,
	                              "skipped by go test (b.Skip)");
}

/* The run failed (go_kind 3): nothing of it is stored, as for "--- FAIL:". */
static int go_failed(go_state *st, size_t line, const char *p, const char *end)
{
	char q[200];

	if (end > p && end[-1] == '\r')
		end--;
	return bg_error_set(st->ctx, BG_EINPUT,
	                    "%s:%zu: go test failed (%s): a benchmark panicked or failed, a test "
	                    "failed or it timed out; benchguard stores no results of a failed run",
	                    st->source, line, bg_text__quote_n(q, sizeof(q), p, (size_t)(end - p)));
}

/*
 * What a line is.  go test writes a benchmark's name, padded, and a TAB
 * ("%-*s\t") before running it and its figures ("%8d\t<value> <unit>\t...")
 * after, so without -v whatever the benchmark prints to stdout lands
 * between the two: the name starts one line (GO_PENDING), the figures a
 * later one (GO_FIGURES).  With -v go test writes the name again in front
 * of the figures.  Output that does not end in a newline glues a name, or
 * the figures, into a line of it (GO_GLUED), with or without -v.  A
 * benchmark that panics, a test that fails and a -timeout print no "---
 * FAIL: Benchmark...", but go test ends the package with "FAIL" (alone,
 * then "FAIL\t<pkg>\t<time>"), after "panic: ..." for a panic.
 */
enum {
	GO_OTHER,    /* the benchmarks' own output, goos:, a name -v echoes alone */
	GO_RESULT,   /* "BenchmarkX-2   \t    1000\t        23.08 ns/op" */
	GO_VERDICT,  /* "--- FAIL: BenchmarkX-2", "--- SKIP: ...", at *at */
	GO_FAILED,   /* the end of a failed package */
	GO_PENDING,  /* "BenchmarkX-2   \t<what the benchmark printed>" */
	GO_FIGURES,  /* "    1000\t        23.08 ns/op", the count at *at */
	GO_GLUED,    /* a name and output on one line, the name at *at */
	GO_BOUNDARY, /* what go test writes after a benchmark's figures */
};

/*
 * [p, end) is one "<value> <unit>" of go test's figures, blanks around it.
 * A unit of digits alone is a count printed with the output, not a unit.
 */
static int go_is_pair(locale_t c_locale, const char *p, const char *end)
{
	const char *v, *u, *x;
	size_t vn, un, xn;
	char *vend;

	if (!go_field(&p, end, &v, &vn) || !go_field(&p, end, &u, &un) ||
	    go_field(&p, end, &x, &xn) || go_is_count(u, un))
		return 0;
	/* A blank follows the value: strtod_l() stops there at the latest. */
	(void)strtod_l(v, &vend, c_locale);
	return vend == v + vn;
}

/*
 * Where the figures go test writes after a benchmark end [p, end): the
 * start of their iteration count, or NULL.  Read from the end one
 * TAB-separated "<value> <unit>" at a time, so a long line costs one pass.
 */
static const char *go_figures(locale_t c_locale, const char *p, const char *end)
{
	const char *t, *seg = end, *d;
	size_t pairs = 0;

	while ((t = memrchr(p, '\t', (size_t)(seg - p))) != NULL &&
	       go_is_pair(c_locale, t + 1, seg)) {
		pairs++;
		seg = t;
	}
	for (d = seg; d > p && d[-1] >= '0' && d[-1] <= '9'; d--)
		;
	return pairs && d < seg ? d : NULL;
}

/*
 * The first benchmark name in [p, end) followed by blanks and a TAB, as go
 * test writes one before running it: its start, or NULL.  Each word is
 * looked at once.
 */
static const char *go_mark(const char *p, const char *end)
{
	const char *s, *w, *q;

	while ((s = memmem(p, (size_t)(end - p), GO_TAG, GO_TAG_LEN)) != NULL) {
		for (q = s; q < end && !is_blank(*q); q++)
			;
		for (p = q; p < end && *p == ' '; p++)
			;
		if (p < end && *p == '\t')
			for (w = s; w + GO_TAG_LEN <= q; w++)
				if (!memcmp(w, GO_TAG, GO_TAG_LEN) &&
				    go_is_name(w, (size_t)(q - w)))
					return w;
	}
	return NULL;
}

/* What go test writes once a benchmark's figures are out: the end of the
 * package, the next package's header, or the b.Log lines under them. */
static int go_boundary(const char *p, const char *end)
{
	static const char *const after[] = { "ok  \t",   "pkg: ", "goos: ",
		                             "goarch: ", "cpu: ", "--- BENCH: " };
	size_t i, len = (size_t)(end - p);

	if ((len == 4 && !memcmp(p, "PASS", 4)) || (len == 5 && !memcmp(p, "PASS\r", 5)))
		return 1;
	for (i = 0; i < BG_ARRAY_SIZE(after); i++)
		if (len >= strlen(after[i]) && !memcmp(p, after[i], strlen(after[i])))
			return 1;
	return 0;
}

static int go_kind(const go_state *st, const char *p, const char *end, const char **at)
{
	const char *f, *q = p, *rest;
	size_t n, len = (size_t)(end - p);

	*at = p;
	if ((len == 4 && !memcmp(p, "FAIL", 4)) || (len == 5 && !memcmp(p, "FAIL\r", 5)) ||
	    (len > 5 && !memcmp(p, "FAIL\t", 5)) || (len > 7 && !memcmp(p, "panic: ", 7)))
		return GO_FAILED;
	if (len > sizeof(GO_FAIL) - 1 &&
	    (!memcmp(p, GO_FAIL, sizeof(GO_FAIL) - 1) || !memcmp(p, GO_SKIP, sizeof(GO_SKIP) - 1)))
		return GO_VERDICT;
	if (len >= GO_TAG_LEN && !memcmp(p, GO_TAG, GO_TAG_LEN) && go_field(&q, end, &f, &n) &&
	    go_is_name(f, n)) {
		rest = q;
		/* The iteration count makes a result. */
		if (go_field(&q, end, &f, &n) && go_is_count(f, n))
			return GO_RESULT;
		/* Not a name -v echoes alone: the benchmark's output follows. */
		for (q = rest; q < end && *q == ' '; q++)
			;
		if (q < end && *q == '\t') {
			rest = q + 1;
			/* A benchmark that failed after its first run. */
			if ((size_t)(end - rest) > sizeof(GO_FAIL) - 1 &&
			    !memcmp(rest, GO_FAIL, sizeof(GO_FAIL) - 1)) {
				*at = rest;
				return GO_VERDICT;
			}
			if (go_mark(rest, end) || go_figures(st->c_locale, rest, end))
				return GO_GLUED;
			return GO_PENDING;
		}
		q = rest; /* a name inside what follows is glued to output */
	}
	if ((f = go_mark(q, end)) != NULL) {
		*at = f;
		return GO_GLUED;
	}
	if ((f = go_figures(st->c_locale, p, end)) != NULL) {
		for (q = p; q < f && is_blank(*q); q++)
			;
		*at = f;
		return q == f ? GO_FIGURES : GO_OTHER;
	}
	return go_boundary(p, end) ? GO_BOUNDARY : GO_OTHER;
}

/* Pass 0 on a result of `name`: notes its GOMAXPROCS and package. */
static int go_note_name(go_state *st, size_t line, const char *f, size_t n, const char *pkg,
                        size_t pkg_len)
{
	char qa[320], qb[160], qc[160];
	const go_proc *first;
	unsigned long procs;
	int rc;

	n = go_base(f, n, &procs);
	rc = go_procs_note(&st->procs, f, n, procs, pkg, pkg_len, line, &first);
	if (rc < 0)
		return bg_error_oom(st->ctx);
	if (rc == 0)
		return 0;
	return bg_error_set(
	        st->ctx, BG_EINPUT,
	        "%s:%zu: %s ran in package %s and in %s (line %zu); benchguard "
	        "keeps one series per name: benchmark one package at a time",
	        st->source, line, bg_text__quote_n(qa, sizeof(qa), f, n),
	        bg_text__quote_n(qb, sizeof(qb), pkg_len ? pkg : "", pkg_len),
	        bg_text__quote_n(qc, sizeof(qc), first->pkg_len ? first->pkg : "", first->pkg_len),
	        first->line);
}

/*
 * Pass 0 on one line: a "pkg:" line sets the package of the results after
 * it; a result line notes its name's GOMAXPROCS and package.
 */
static int go_note(go_state *st, size_t line, const char *p, const char *eol, int kind,
                   const char **pkg, size_t *pkg_len)
{
	const char *f;
	size_t n;

	if ((size_t)(eol - p) > 5 && !memcmp(p, "pkg: ", 5)) {
		(void)go_field(&p, eol, &f, &n);
		if (!go_field(&p, eol, pkg, pkg_len))
			*pkg_len = 0;
		return 0;
	}
	if (kind != GO_RESULT)
		return 0;
	(void)go_field(&p, eol, &f, &n);
	return go_note_name(st, line, f, n, *pkg, *pkg_len);
}

/* What to do about a benchmark that prints to stdout. */
#define GO_PRINTS_FIX                                                                              \
	"run go test with -v (which writes the name again in front of the figures) or do "         \
	"not print from benchmarks"

/*
 * A name go test wrote before the benchmark's own output (line `line`),
 * and the lines after it that could be its figures: one is, more than one
 * or none is a guess benchguard does not make.
 */
typedef struct {
	const char *name, *fig, *fig_end;
	size_t len, line, nfig, fig_line, fig_line2;
} go_pending;

/* Settles the name left pending, at the next line that ends its output. */
static int go_resolve(go_state *st, int pass, go_pending *pd, const char *pkg, size_t pkg_len)
{
	const char *name = pd->name;
	char q[320];

	if (!name)
		return 0;
	pd->name = NULL;
	if (pd->nfig == 1)
		return pass == 0 ? go_note_name(st, pd->line, name, pd->len, pkg, pkg_len)
		                 : go_result(st, pd->line, name, pd->len, pd->fig_line, pd->fig,
		                             pd->fig_end);
	if (pass == 0)
		return 0; /* pass 1 says why, in the order of the lines */
	bg_text__quote_n(q, sizeof(q), name, pd->len);
	if (!pd->nfig)
		return bg_error_set(st->ctx, BG_EINPUT,
		                    "%s:%zu: %s printed to standard output and benchguard found "
		                    "no line of its figures after it: " GO_PRINTS_FIX,
		                    st->source, pd->line, q);
	return bg_error_set(st->ctx, BG_EINPUT,
	                    "%s:%zu: %s printed to standard output and lines %zu and %zu after "
	                    "it both look like its figures: " GO_PRINTS_FIX,
	                    st->source, pd->line, q, pd->fig_line, pd->fig_line2);
}

/* A name on one line with output (at `at`): refused, not guessed at. */
static int go_glued(go_state *st, size_t line, const char *at, const char *end)
{
	const char *f;
	size_t n;
	char q[320];

	(void)go_field(&at, end, &f, &n);
	return bg_error_set(st->ctx, BG_EINPUT,
	                    "%s:%zu: %s shares its line with what the benchmark printed to "
	                    "standard output without a final newline, so benchguard cannot "
	                    "tell its figures from that output: end what the benchmark prints "
	                    "with a newline, or do not print from benchmarks",
	                    st->source, line, bg_text__quote_n(q, sizeof(q), f, n));
}

static int parse_go(bg_ctx *ctx, const char *source, const char *benchmark, const char *dir,
                    const char *data, size_t len, bg_results *out)
{
	go_state st = { ctx,         source,
		        benchmark,   out,
		        (locale_t)0, { NULL, 0, 0, { NULL, 0, 0 } },
		        BG_BUF_INIT, BG_BUF_INIT,
		        0,           0 };
	const char *p, *end = data + len, *pkg = NULL;
	size_t line, pkg_len = 0;
	int pass, rc = 0;

	(void)dir;
	if (!(st.c_locale = newlocale(LC_NUMERIC_MASK, "C", (locale_t)0)))
		return bg_error_errno(ctx, BG_ERROR, "cannot create the C locale");
	/* Pass 0 notes the GOMAXPROCS and package of every name; pass 1 stores. */
	for (pass = 0; pass < 2; pass++) {
		go_pending pd = { NULL, NULL, NULL, 0, 0, 0, 0, 0 };

		for (p = data, line = 1; p < end; line++) {
			const char *nl = memchr(p, '\n', (size_t)(end - p));
			const char *eol = nl ? nl : end, *at, *f, *q = p;
			int kind = go_kind(&st, p, eol, &at);
			size_t n;

			if (kind == GO_FIGURES) {
				if (pd.name && pd.nfig++ == 0) {
					pd.fig = at;
					pd.fig_end = eol;
					pd.fig_line = line;
				} else if (pd.name && pd.nfig == 2) {
					pd.fig_line2 = line;
				}
			} else if (kind == GO_FAILED ||
			           (kind == GO_VERDICT &&
			            !strncmp(at, GO_FAIL, sizeof(GO_FAIL) - 1))) {
				/* The failed run, or benchmark, is the reason to give. */
				pd.name = NULL;
			} else if (kind != GO_OTHER &&
			           (rc = go_resolve(&st, pass, &pd, pkg, pkg_len)) < 0) {
				goto cleanup;
			}
			if (pass == 0) {
				rc = go_note(&st, line, p, eol, kind, &pkg, &pkg_len);
			} else if (kind == GO_RESULT) {
				(void)go_field(&q, eol, &f, &n);
				rc = go_result(&st, line, f, n, line, q, eol);
			} else if (kind == GO_VERDICT) {
				rc = go_verdict(&st, line, at, eol);
			} else if (kind == GO_FAILED) {
				rc = go_failed(&st, line, p, eol);
			} else if (kind == GO_GLUED) {
				rc = go_glued(&st, line, at, eol);
			}
			if (rc < 0)
				goto cleanup;
			if (kind == GO_PENDING) {
				(void)go_field(&q, eol, &pd.name, &pd.len);
				pd.line = line;
				pd.nfig = 0;
			}
			p = nl ? nl + 1 : end;
		}
		if ((rc = go_resolve(&st, pass, &pd, pkg, pkg_len)) < 0)
			goto cleanup;
	}
	if (!st.nsamples && !st.nskipped)
		rc = bg_error_set(ctx, BG_EINPUT,
		                  "%s: no benchmark results in output (go test -bench)", source);

cleanup:
	free(st.procs.e);
	bg_index__free(&st.procs.ix);
	bg_buf_clear(&st.series);
	bg_buf_clear(&st.metric);
	freelocale(st.c_locale);
	return rc;
}

/* -------------------------------------------------------------- pytest */

/*
 * pytest-benchmark JSON: {"benchmarks": [{name, fullname, stats: {data,
 * mean, rounds, ...}}]}.  stats.data holds every round's time per
 * iteration in seconds: --benchmark-json always writes it, the files of
 * --benchmark-save and --benchmark-autosave only with --benchmark-save-data.
 * Without it the mean is the run's one sample, as for nvbench.  A series is
 * named after the test's node id, "::" written "/"
 * ("tests/test_sort.py/test_sort[1000]").
 */
#define PY_PATH 64

/* "<benchmark>/" + fullname with each "::" as "/". */
static int py_series(bg_ctx *ctx, const char *benchmark, const char *fullname, bg_buf *out)
{
	const char *p, *sep;

	out->len = 0;
	if (benchmark && bg_buf_printf(out, "%s/", benchmark) < 0)
		return bg_error_oom(ctx);
	for (p = fullname; (sep = strstr(p, "::")) != NULL; p = sep + 2)
		if (bg_buf_put(out, p, (size_t)(sep - p)) < 0 || bg_buf_put(out, "/", 1) < 0)
			return bg_error_oom(ctx);
	if (bg_buf_puts(out, p) < 0)
		return bg_error_oom(ctx);
	return 0;
}

/* A time that pytest-benchmark measured: a finite number, not negative. */
static int py_time(bg_ctx *ctx, const char *source, const char *path, size_t k, json_object *v,
                   double *t)
{
	if (bg_json__clamped(v))
		return k == (size_t)-1
		               ? at_error(ctx, source, NULL, "%s: %s", path, BG_JSON_CLAMPED_MSG)
		               : at_error(ctx, source, NULL, "%s[%zu]: %s", path, k,
		                          BG_JSON_CLAMPED_MSG);
	*t = json_object_get_double(v);
	if (isfinite(*t) && *t >= 0)
		return 0;
	if (k == (size_t)-1)
		return at_error(ctx, source, NULL, "%s is %g, not a time", path, *t);
	return at_error(ctx, source, NULL, "%s[%zu] is %g, not a time", path, k, *t);
}

static int py_benchmark(bg_ctx *ctx, const char *source, const char *benchmark, json_object *b,
                        size_t i, bg_buf *series, int *summary_only, bg_results *out)
{
	char path[PY_PATH], spath[PY_PATH + 16];
	json_object *v, *stats, *data;
	size_t k, n;
	double t;
	int rc;

	snprintf(path, sizeof(path), "benchmarks[%zu]", i);
	/* pytest-benchmark < 3.0 has no fullname: the name stands in. */
	if ((rc = json_member(ctx, source, path, b, "fullname", json_type_string, 0, &v)) < 0 ||
	    (!v && (rc = json_member(ctx, source, path, b, "name", json_type_string, 1, &v)) < 0) ||
	    (rc = json_name(ctx, source, path,
	                    json_object_object_get(b, "fullname") ? "fullname" : "name", v, 0)) < 0)
		return rc;
	if (!json_object_get_string_len(v))
		return at_error(ctx, source, path, "the test's name is empty");
	if ((rc = py_series(ctx, benchmark, json_object_get_string(v), series)) < 0)
		return rc;
	if (bg_results__find(out, series->ptr, "time"))
		return at_error(ctx, source, path, "a second benchmark named %s",
		                bg_text__quote(spath, sizeof(spath), json_object_get_string(v)));
	if ((rc = json_member(ctx, source, path, b, "stats", json_type_object, 1, &stats)) < 0)
		return rc;
	snprintf(spath, sizeof(spath), "%s.stats", path);
	if ((rc = json_member(ctx, source, spath, stats, "data", json_type_array, 0, &data)) < 0)
		return rc;
	if (!data) {
		if ((rc = json_member(ctx, source, spath, stats, "mean", json_type_double, 1, &v)) <
		    0)
			return rc;
		snprintf(spath, sizeof(spath), "%s.stats.mean", path);
		if ((rc = py_time(ctx, source, spath, (size_t)-1, v, &t)) < 0)
			return rc;
		*summary_only = 1;
		rc = bg_results_add(ctx, out, series->ptr, "time", "s", t);
		return rc < 0 ? prefix_error(ctx, rc, source, 0) : 0;
	}
	snprintf(spath, sizeof(spath), "%s.stats.data", path);
	if (!(n = json_object_array_length(data)))
		return at_error(ctx, source, NULL, "%s is empty", spath);
	for (k = 0; k < n; k++) {
		if ((rc = json_element(ctx, source, spath, data, k, json_type_double, &v)) < 0 ||
		    (rc = py_time(ctx, source, spath, k, v, &t)) < 0)
			return rc;
		if ((rc = bg_results_add(ctx, out, series->ptr, "time", "s", t)) < 0)
			return prefix_error(ctx, rc, source, 0);
	}
	return 0;
}

static int parse_pytest(bg_ctx *ctx, const char *source, const char *benchmark, const char *dir,
                        const char *data, size_t len, bg_results *out)
{
	json_object *root = NULL, *list, *b;
	bg_buf series = BG_BUF_INIT;
	size_t i, n;
	int rc, summary_only = 0;

	(void)dir;
	if ((rc = json_document(ctx, source, &py_want, data, len, &root)) < 0)
		goto cleanup;
	if (!json_object_is_type(root, json_type_object) ||
	    !json_object_object_get_ex(root, "benchmarks", &list)) {
		rc = bg_error_set(ctx, BG_EINPUT,
		                  "%s: no \"benchmarks\" list: not pytest-benchmark JSON "
		                  "(--benchmark-json)",
		                  source);
		goto cleanup;
	}
	if ((rc = json_member(ctx, source, NULL, root, "benchmarks", json_type_array, 1, &list)) <
	    0)
		goto cleanup;
	if (!(n = json_object_array_length(list))) {
		rc = bg_error_set(ctx, BG_EINPUT, "%s: no benchmarks in output", source);
		goto cleanup;
	}
	for (i = 0; i < n; i++)
		if ((rc = json_element(ctx, source, "benchmarks", list, i, json_type_object, &b)) <
		            0 ||
		    (rc = py_benchmark(ctx, source, benchmark, b, i, &series, &summary_only, out)) <
		            0)
			goto cleanup;
	if (summary_only)
		bg_log(ctx, BG_LOG_WARN,
		       "%s: no per-round times (stats.data; --benchmark-save-data keeps them): "
		       "storing each benchmark's mean as the run's one sample",
		       source);

cleanup:
	bg_buf_clear(&series);
	json_object_put(root);
	return rc;
}

/* ------------------------------------------------------------ perfstat */

/*
 * `perf stat -x,` CSV (perf-stat(1), "CSV FORMAT"): per event a line
 * "<value>,<unit>,<event>,[<variance>%,]<run time>,<enabled %>,<metric
 * value>,<metric unit>", one sample of the series "<benchmark>:<event>",
 * so the lines of N appended invocations (--append) are N samples.  With
 * -r N the line (the one with a variance) is perf's mean over the N runs:
 * one sample, with a warning.  Comment lines ("# started on ...") and blank
 * lines are skipped, and so are the lines of further derived metrics, whose
 * counter fields are empty.  The derived metric on a count's line ("insn
 * per cycle", "CPUs utilized") is not stored: it is a ratio of counts and
 * times, not a measurement of its own.
 *
 * perf does not quote fields, and an event may hold a ',' ("cpu/event=0x3c,
 * umask=0/"): the event is everything between the unit and the last four
 * (or five) fields.  Its ':' (modifiers, "cycles:u"; tracepoints,
 * "sched:sched_switch") is written '/', since series are addressed as
 * "benchmark:metric" ("cycles/u").  "msec" is a time, stored in seconds;
 * a count without a unit takes lib/counters.c's unit for the same event
 * ("instr", "cycles", "faults", ...) or "events".
 *
 * Output with an interval time stamp (-I) or a CPU, core, socket or thread
 * column (-A, --per-core, --per-thread, ...) is refused: those are slices of
 * one run, not samples of the command.  An event perf could not count
 * ("<not supported>", "<not counted>") has no sample and gets a warning;
 * when no event was counted at all the benchmark is a skipped outcome.
 */
#define PERF_LINE_MAX 4096 /* perf's longest lines are a few hundred bytes */
#define PERF_FIELDS_MAX 64
#define PERF_EVENTS_MAX 1024 /* distinct events in one file */
#define PERF_NUMBER_MAX 64   /* longest field read as a number */
#define PERF_NOT_SUPPORTED "<not supported>"
#define PERF_NOT_COUNTED "<not counted>"

/* The units lib/counters.c gives the same events, by perf's name without
 * its modifiers; an event not here counts "events". */
static const struct {
	const char *event, *unit;
} perf_count_units[] = {
	{ "instructions", "instr" },
	{ "cycles", "cycles" },
	{ "cpu-cycles", "cycles" },
	{ "ref-cycles", "cycles" },
	{ "bus-cycles", "cycles" },
	{ "stalled-cycles-frontend", "cycles" },
	{ "stalled-cycles-backend", "cycles" },
	{ "branches", "branches" },
	{ "branch-instructions", "branches" },
	{ "branch-misses", "misses" },
	{ "cache-misses", "misses" },
	{ "cache-references", "refs" },
	{ "page-faults", "faults" },
	{ "faults", "faults" },
	{ "minor-faults", "faults" },
	{ "major-faults", "faults" },
	{ "context-switches", "switches" },
	{ "cs", "switches" },
	{ "cpu-migrations", "migrations" },
	{ "migrations", "migrations" },
};

/* An event seen in the file: its metric name, and whether its being
 * uncounted was said already (once per file is enough). */
typedef struct {
	char *event, *metric;
	size_t len;
	int warned;
} perf_event;

typedef struct {
	bg_ctx *ctx;
	const char *source;
	const char *benchmark;
	bg_results *out;
	locale_t c_locale;
	perf_event *ev;
	size_t nev, ev_cap;
	bg_buf metric;
	size_t nsamples, nmeans, nuncounted;
	size_t mean_line;
} perf_state;

static int perf_error(perf_state *st, size_t line, const char *fmt, ...) BG_PRINTF(3, 4);

static int perf_error(perf_state *st, size_t line, const char *fmt, ...)
{
	char what[512];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(what, sizeof(what), fmt, ap);
	va_end(ap);
	return bg_error_set(st->ctx, BG_EINPUT, "%s:%zu: %s", st->source, line, what);
}

/* A whole field as a finite number: 1, or 0 when it is none. */
static int perf_number(perf_state *st, const char *f, size_t n, double *v)
{
	char buf[PERF_NUMBER_MAX];
	char *end;

	while (n && is_blank(*f)) {
		f++;
		n--;
	}
	if (!n || n >= sizeof(buf))
		return 0;
	/* A copy: the input has no NUL after its last field. */
	memcpy(buf, f, n);
	buf[n] = '\0';
	*v = strtod_l(buf, &end, st->c_locale);
	return end == buf + n && bg_text__decimal(buf, n) && isfinite(*v);
}

static int perf_uncounted(const char *f, size_t n)
{
	return (n == sizeof(PERF_NOT_SUPPORTED) - 1 && !memcmp(f, PERF_NOT_SUPPORTED, n)) ||
	       (n == sizeof(PERF_NOT_COUNTED) - 1 && !memcmp(f, PERF_NOT_COUNTED, n));
}

static const char *perf_count_unit(const char *event)
{
	size_t base = strcspn(event, ":"), i, n = strlen("-misses");

	for (i = 0; i < BG_ARRAY_SIZE(perf_count_units); i++)
		if (strlen(perf_count_units[i].event) == base &&
		    !memcmp(event, perf_count_units[i].event, base))
			return perf_count_units[i].unit;
	/* The cache events: L1-dcache-load-misses, LLC-store-misses, ... */
	if (base > n && !memcmp(event + base - n, "-misses", n))
		return "misses";
	return "events";
}

/*
 * The entry of event [e, e + n), added on first sight with its metric
 * name; two events whose names differ only in ':' against '/' would be one
 * series, and are refused.
 */
static int perf_find_event(perf_state *st, size_t line, const char *e, size_t n, perf_event **found)
{
	char q[320], q2[320];
	perf_event *grown;
	size_t i;

	for (i = 0; i < st->nev; i++)
		if (st->ev[i].len == n && !memcmp(st->ev[i].event, e, n)) {
			*found = &st->ev[i];
			return 0;
		}
	st->metric.len = 0;
	for (i = 0; i < n; i++)
		if (bg_buf_put(&st->metric, e[i] == ':' ? "/" : e + i, 1) < 0)
			return bg_error_oom(st->ctx);
	if (bg_buf_put(&st->metric, "", 1) < 0)
		return bg_error_oom(st->ctx);
	for (i = 0; i < st->nev; i++)
		if (!strcmp(st->ev[i].metric, st->metric.ptr))
			return perf_error(st, line,
			                  "events %s and %s would both be the series %s:%s "
			                  "(':' is written '/'); measure them in separate files",
			                  bg_text__quote_n(q, sizeof(q), e, n),
			                  bg_text__quote(q2, sizeof(q2), st->ev[i].event),
			                  st->benchmark, st->metric.ptr);
	if (st->nev == PERF_EVENTS_MAX)
		return perf_error(st, line, "more than %d different events", PERF_EVENTS_MAX);
	if (bg_grow((void **)&st->ev, &st->ev_cap, st->nev, sizeof(*st->ev)) < 0)
		return bg_error_oom(st->ctx);
	grown = st->ev + st->nev;
	grown->event = strndup(e, n);
	grown->metric = strdup(st->metric.ptr);
	grown->len = n;
	grown->warned = 0;
	if (!grown->event || !grown->metric) {
		free(grown->event);
		free(grown->metric);
		return bg_error_oom(st->ctx);
	}
	*found = grown;
	st->nev++;
	return 0;
}

/*
 * What a line's first fields say about its layout, for a line that is not
 * "<value>,<unit>,...": an interval time stamp, or an aggregation column.
 */
/* Whether the field is digits alone, past leading blanks (perf pads). */
static int perf_digits(const char *f, size_t n)
{
	size_t i = 0, d;

	while (i < n && f[i] == ' ')
		i++;
	for (d = i; i < n && f[i] >= '0' && f[i] <= '9'; i++)
		;
	return i == n && i > d;
}

/* A number perf wrote as "a,b" under a locale with a decimal comma. */
static int perf_decimal_comma(perf_state *st, size_t line, const char *what, const char *a,
                              size_t an, const char *b, size_t bn)
{
	return perf_error(st, line,
	                  "%s written with a decimal comma (\"%.*s,%.*s\"): perf ran under a "
	                  "locale that writes numbers so, which -x, cannot separate; run perf "
	                  "with LC_ALL=C",
	                  what, (int)an, a, (int)bn, b);
}

static int perf_layout_error(perf_state *st, size_t line, const char *const *f, const size_t *n)
{
	char q[320];
	double v;

	/* "1234,56,msec,...": a locale's decimal comma split the value in
	 * two.  An interval's time always has its point (1.001086672). */
	if (perf_digits(f[0], n[0]) && perf_digits(f[1], n[1]))
		return perf_decimal_comma(st, line, "a value", f[0], n[0], f[1], n[1]);
	if (perf_number(st, f[0], n[0], &v))
		return perf_error(st, line,
		                  "interval output (perf stat -I): its counts are slices of one "
		                  "run, not samples of the command; run perf stat without -I");
	return perf_error(st, line,
	                  "counts of %s alone (perf stat -A, --per-core, --per-socket, "
	                  "--per-thread, ...); benchguard stores the whole command's counts: "
	                  "run perf stat without them",
	                  bg_text__quote_n(q, sizeof(q), f[0], n[0]));
}

static int perf_line(perf_state *st, size_t line, const char *p, const char *end)
{
	const char *f[PERF_FIELDS_MAX], *why, *unit;
	size_t n[PERF_FIELDS_MAX], nf = 0, tail, i, elen;
	perf_event *ev = NULL;
	char q[320];
	double v;
	int rc, mean;

	for (;;) {
		const char *comma = memchr(p, ',', (size_t)(end - p));
		const char *fend = comma ? comma : end;

		if (nf == PERF_FIELDS_MAX)
			return perf_error(st, line, "more than %d fields", PERF_FIELDS_MAX);
		f[nf] = p;
		n[nf++] = (size_t)(fend - p);
		if (!comma)
			break;
		p = comma + 1;
	}
	/* A further derived metric of the count above: nothing but its value
	 * and unit. */
	for (i = 0; i + 2 < nf && !n[i]; i++)
		;
	if (nf >= 3 && i + 2 == nf)
		return 0;
	if (nf < 7)
		return perf_error(st, line,
		                  "expected \"<value>,<unit>,<event>,<run time>,<enabled %%>,"
		                  "<metric value>,<metric unit>\" (perf stat -x,), found %zu "
		                  "field%s",
		                  nf, nf == 1 ? "" : "s");
	if (perf_number(st, f[1], n[1], &v) || perf_uncounted(f[1], n[1]))
		return perf_layout_error(st, line, f, n);
	/*
	 * perf writes the enabled percentage "%.2f": "100.00", or "100,00" under
	 * a decimal comma, two fields that shift the run time into the event's
	 * name ("page-faults,1304052", a new series per run), whatever the value.
	 * (-r's variance, "0,38%", splits the same way, further left.)  A field of
	 * digits alone there is never perf's percentage.
	 */
	if (n[nf - 3] == 2 && perf_digits(f[nf - 3], n[nf - 3]) &&
	    perf_digits(f[nf - 4], n[nf - 4]))
		return perf_decimal_comma(st, line, "an enabled percentage", f[nf - 4], n[nf - 4],
		                          f[nf - 3], n[nf - 3]);
	/* -r N puts the variance, "0.10%", between the event and the run time. */
	tail = 4;
	mean = nf >= 8 && n[nf - 5] > 1 && f[nf - 5][n[nf - 5] - 1] == '%' &&
	       perf_number(st, f[nf - 5], n[nf - 5] - 1, &v);
	if (mean)
		tail = 5;
	if (!perf_number(st, f[nf - 4], n[nf - 4], &v) || v < 0 ||
	    !perf_number(st, f[nf - 3], n[nf - 3], &v) || v < 0)
		return perf_error(st, line,
		                  "the run time and enabled percentage (fields %zu and %zu) are "
		                  "not numbers: not perf stat -x, output",
		                  nf - 3, nf - 2);
	elen = (size_t)(f[nf - tail - 1] + n[nf - tail - 1] - f[2]);
	if (!elen)
		return perf_error(st, line, "no event name");
	if ((why = bad_field(f[2], elen, 1)) != NULL)
		return perf_error(st, line, "event %s %s",
		                  bg_text__quote_n(q, sizeof(q), f[2], elen), why);
	if ((rc = perf_find_event(st, line, f[2], elen, &ev)) < 0)
		return rc;

	if (perf_uncounted(f[0], n[0])) {
		st->nuncounted++;
		if (!ev->warned)
			bg_log(st->ctx, BG_LOG_WARN,
			       "%s:%zu: perf could not count %s (%.*s): no sample of %s:%s",
			       st->source, line, bg_text__quote(q, sizeof(q), ev->event), (int)n[0],
			       f[0], st->benchmark, ev->metric);
		ev->warned = 1;
		return 0;
	}
	if (!perf_number(st, f[0], n[0], &v)) {
		if (!n[0])
			return perf_error(st, line, "no value for %s", ev->metric);
		return perf_error(
		        st, line, "value %s is not a finite number",
		        bg_text__quote_n(q, sizeof(q), f[0], n[0] < QUOTE_MAX ? n[0] : QUOTE_MAX));
	}
	if (v < 0)
		return perf_error(st, line, "value %s of %s is negative",
		                  bg_text__quote_n(q, sizeof(q), f[0], n[0]), ev->metric);
	if (n[1] && (why = bad_field(f[1], n[1], 1)) != NULL)
		return perf_error(st, line, "unit %s %s",
		                  bg_text__quote_n(q, sizeof(q), f[1], n[1]), why);
	/* bg_results_add() takes the unit as a string. */
	st->metric.len = 0;
	if (n[1] && (bg_buf_put(&st->metric, f[1], n[1]) < 0 || bg_buf_put(&st->metric, "", 1) < 0))
		return bg_error_oom(st->ctx);
	unit = n[1] ? st->metric.ptr : perf_count_unit(ev->event);
	if ((rc = bg_results_add(st->ctx, st->out, st->benchmark, ev->metric, unit, v)) < 0)
		return prefix_error(st->ctx, rc, st->source, line);
	st->nsamples++;
	if (mean && !st->nmeans++)
		st->mean_line = line;
	return 0;
}

static int parse_perfstat(bg_ctx *ctx, const char *source, const char *benchmark, const char *dir,
                          const char *data, size_t len, bg_results *out)
{
	perf_state st = { ctx, source,      benchmark, out, (locale_t)0, NULL, 0,
		          0,   BG_BUF_INIT, 0,         0,   0,           0 };
	const char *p = data, *end = data + len;
	size_t line = 0, i;
	int rc = 0;

	(void)dir;
	if (!benchmark || !*benchmark)
		return bg_error_set(ctx, BG_EINPUT,
		                    "%s: format perfstat needs a benchmark name for its samples",
		                    source);
	if (!(st.c_locale = newlocale(LC_NUMERIC_MASK, "C", (locale_t)0)))
		return bg_error_errno(ctx, BG_ERROR, "cannot create the C locale");
	while (p < end) {
		const char *nl = memchr(p, '\n', (size_t)(end - p));
		const char *eol = nl ? nl : end, *s = p;

		line++;
		if ((size_t)(eol - p) > PERF_LINE_MAX) {
			rc = perf_error(&st, line, "line is longer than %d bytes", PERF_LINE_MAX);
			goto cleanup;
		}
		if (eol > p && eol[-1] == '\r')
			eol--;
		while (s < eol && is_blank(*s))
			s++;
		if (s < eol && *s != '#' && (rc = perf_line(&st, line, p, eol)) < 0)
			goto cleanup;
		p = nl ? nl + 1 : end;
	}
	if (!st.nsamples && !st.nuncounted) {
		rc = bg_error_set(ctx, BG_EINPUT, "%s: no event counts in output (perf stat -x,)",
		                  source);
		goto cleanup;
	}
	if (!st.nsamples)
		rc = bg_results_set_outcome(ctx, out, benchmark, BG_BENCH_SKIPPED,
		                            "perf stat could count none of its events "
		                            "(<not supported> or <not counted>)");
	if (st.nmeans)
		bg_log(ctx, BG_LOG_WARN,
		       "%s:%zu: perf stat -r: a line with a variance is perf's mean over its "
		       "runs, stored as one sample",
		       source, st.mean_line);

cleanup:
	for (i = 0; i < st.nev; i++) {
		free(st.ev[i].event);
		free(st.ev[i].metric);
	}
	free(st.ev);
	bg_buf_clear(&st.metric);
	freelocale(st.c_locale);
	return rc;
}

/* -------------------------------------------------------------- driver */

/*
 * Input errors quote the input (names, tags, units, messages, the file's
 * own name), which is anybody's text: the message goes out escaped for a
 * terminal, so a name holding ESC or "\n::error::" reads as what it is.
 * Escaping escaped text changes nothing, so quoting twice is harmless.
 */
static void printable_error(bg_ctx *ctx)
{
	char *msg = bg_text__escaped(BG_ESC_TERM, bg_ctx_error(ctx));

	if (msg)
		bg_error_set(ctx, BG_EINPUT, "%s", msg);
	free(msg);
}

/*
 * Copies every parsed sample and outcome into `into`.  The one input error
 * the copy could meet, a unit that contradicts a series already in `into`,
 * is checked first so that it too leaves `into` untouched.
 */
static int merge(bg_ctx *ctx, const char *source, const bg_results *from, bg_results *into)
{
	size_t i, j, n = bg_results_series_count(from);
	int rc;

	if (bg_results_series_count(into)) {
		for (i = 0; i < n; i++) {
			const bg_series *s = bg_results_series(from, i);
			const bg_series *t = bg_results__find(into, s->benchmark, s->metric);
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
	for (i = 0; i < bg_results_outcome_count(from); i++) {
		const bg_outcome *o = bg_results_outcome(from, i);
		if ((rc = bg_results_set_outcome(ctx, into, o->benchmark, o->status, o->message)) <
		    0)
			return rc;
	}
	return 0;
}

int bg_format_parse(bg_ctx *ctx, bg_format format, const char *source, const char *benchmark,
                    const char *data, size_t len, bg_results *into)
{
	return bg_format_parse_at(ctx, format, source, benchmark, NULL, data, len, into);
}

int bg_format_parse_at(bg_ctx *ctx, bg_format format, const char *source, const char *benchmark,
                       const char *dir, const char *data, size_t len, bg_results *into)
{
	bg_results *parsed = NULL;
	format_parse_fn parse = NULL;
	size_t i;
	int rc;

	BG_NEED_N(ctx, data, len);
	BG_NEED(ctx, into);

	if (!source)
		source = "output";
	for (i = 0; i < BG_ARRAY_SIZE(parsers); i++)
		if (parsers[i].format == format)
			parse = parsers[i].parse;
	if (!parse) {
		if (format == BG_FORMAT_TIME)
			return bg_error_set(ctx, BG_EINPUT, "format time has no output to parse");
		return bg_error_set(ctx, BG_EINPUT, "unknown format %d", (int)format);
	}
	if (!data && len)
		return bg_error_set(ctx, BG_EINPUT, "%s: no data", source);
	if (!data)
		data = "";
	/* Every format names its series "<benchmark>/..." or "<benchmark>":
	 * an empty name would make "/BenchmarkX", no benchmark of the suite's. */
	if (benchmark && !*benchmark)
		return bg_error_set(ctx, BG_EINPUT, "%s: the benchmark name is empty", source);

	if (bg_results_new(&parsed) < 0)
		return bg_error_oom(ctx);
	rc = parse(ctx, source, benchmark, dir, data, len, parsed);
	if (rc == 0)
		rc = merge(ctx, source, parsed, into);
	bg_results_free(parsed);
	if (rc == BG_EINPUT)
		printable_error(ctx);
	return rc;
}
