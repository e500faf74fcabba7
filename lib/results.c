/*
 * results.c -- the in-memory set of series and outcomes of one run.
 *
 * Parsers and the runner append samples here one at a time; the store then
 * writes the set in one transaction.  Series are found by (benchmark,
 * metric) through a hash index (lib/index.c), because an import of a large
 * file appends a million samples across thousands of series.
 *
 * Every name and unit enters the store through here, so this is where a
 * name that could not be printed safely (a control character, a bidi
 * override, a character that shows nothing, invalid UTF-8, a runaway
 * length) is refused, whatever the
 * parser; the parsers check first only to name the place in their input.
 * Every outcome's message also has the alert targets' secrets replaced
 * (bg_ctx__scrub).
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "internal.h"

typedef struct {
	bg_series s;
	size_t cap;
	/* The unit the last sample was given in, when short, and its scale to
	 * s.unit: a series' samples come in one unit, and a million of them
	 * then pay a strcmp, not the unit table (make bench's ingest). */
	char given[16];
	double scale;
} series_slot;

/* An outcome, and what measured it (bg_config__definition; NULL: not known). */
typedef struct {
	bg_outcome o;
	char *definition;
} outcome_slot;

struct bg_results {
	series_slot *series;
	size_t nseries, capseries;
	bg_index index; /* series by (benchmark, metric) */
	outcome_slot *outcomes;
	size_t noutcomes, capoutcomes;
	/* Outcomes by benchmark, as series are: a file of a million skipped
	 * benchmarks would otherwise compare each name with all before it. */
	bg_index oindex;
};

int bg_results_new(bg_results **out)
{
	BG_NEED(NULL, out);
	*out = calloc(1, sizeof(bg_results));
	return *out ? 0 : BG_ENOMEM;
}

static void series_clear(bg_series *s)
{
	free(s->benchmark);
	free(s->metric);
	free(s->unit);
	free(s->values);
	free(s->instrument);
	memset(s, 0, sizeof(*s));
}

void bg_results_free(bg_results *res)
{
	size_t i;

	if (!res)
		return;
	for (i = 0; i < res->nseries; i++)
		series_clear(&res->series[i].s);
	for (i = 0; i < res->noutcomes; i++) {
		free(res->outcomes[i].o.benchmark);
		free(res->outcomes[i].o.message);
		free(res->outcomes[i].definition);
	}
	free(res->series);
	bg_index__free(&res->index);
	bg_index__free(&res->oindex);
	free(res->outcomes);
	free(res);
}

size_t bg_results_series_count(const bg_results *res)
{
	if (!res)
		return 0;
	return res->nseries;
}

const bg_series *bg_results_series(const bg_results *res, size_t i)
{
	if (!res)
		return NULL;
	return i < res->nseries ? &res->series[i].s : NULL;
}

size_t bg_results_outcome_count(const bg_results *res)
{
	if (!res)
		return 0;
	return res->noutcomes;
}

const bg_outcome *bg_results_outcome(const bg_results *res, size_t i)
{
	if (!res)
		return NULL;
	return i < res->noutcomes ? &res->outcomes[i].o : NULL;
}

/* Series i is (key[0], key[1]). */
static int same_series(const void *set, size_t i, const void *key)
{
	const bg_series *s = &((const bg_results *)set)->series[i].s;
	const char *const *k = key;

	return !strcmp(s->benchmark, k[0]) && !strcmp(s->metric, k[1]);
}

/* The series (benchmark, metric) of hash h, or NULL. */
static series_slot *find(const bg_results *res, const char *benchmark, const char *metric,
                         uint64_t h)
{
	const char *key[2] = { benchmark, metric };
	size_t i = bg_index__find(&res->index, h, same_series, res, key);

	return i == BG_INDEX_NONE ? NULL : &res->series[i];
}

static series_slot *create(bg_results *res, const char *benchmark, const char *metric,
                           const char *unit, uint64_t h)
{
	series_slot *sl;

	if (bg_grow((void **)&res->series, &res->capseries, res->nseries, sizeof(*res->series)) < 0)
		return NULL;
	sl = &res->series[res->nseries];
	memset(sl, 0, sizeof(*sl));
	sl->s.benchmark = strdup(benchmark);
	sl->s.metric = strdup(metric);
	sl->s.unit = strdup(unit);
	sl->s.direction = bg_direction_for_unit(unit);
	if (!sl->s.benchmark || !sl->s.metric || !sl->s.unit ||
	    bg_index__add(&res->index, h, res->nseries) < 0) {
		series_clear(&sl->s);
		return NULL;
	}
	res->nseries++;
	return sl;
}

const char *bg_results__bad_name(const char *s, size_t n, int text)
{
	const char *why;

	if (n > (text ? BG_TEXT_MAX : BG_NAME_MAX))
		return text ? "is longer than 65536 bytes" : "is longer than 1024 bytes";
	/* A name is an identifier: one that holds a character that shows
	 * nothing (U+200B) would read as another.  Free text only shows it. */
	why = text ? bg_text__invalid(s, n, NULL) : bg_text__invalid_name(s, n, NULL);
	if (why && !strcmp(why, "invalid UTF-8"))
		return "is not valid UTF-8";
	if (why && !strcmp(why, "an invisible character"))
		return "has an invisible character";
	if (why)
		return "has a control character";
	/* U+FFFD is what a decoder leaves for a character it could not read:
	 * json-c for a lone UTF-16 surrogate ("\ud800").  Two names that lost
	 * different characters would be one series, their samples mixed.
	 * Free text (a subject) keeps it, as it keeps its own repairs. */
	if (!text && memmem(s, n, "\xEF\xBF\xBD", 3))
		return "holds U+FFFD, a character lost before it got here (a lone UTF-16 "
		       "surrogate in JSON is one)";
	return NULL;
}

const char *bg_results__bad_pair(const char *key, size_t keylen, const char *value, size_t vlen,
                                 int *bad)
{
	const char *why;

	*bad = BG_PAIR_KEY_SHAPE;
	/* "K=V" and the fingerprint's text split at the first '='. */
	if (!keylen || memchr(key, '=', keylen))
		return "a key must be non-empty and hold no '='";
	*bad = BG_PAIR_KEY;
	if ((why = bg_results__bad_name(key, keylen, 0)) != NULL)
		return why;
	*bad = BG_PAIR_VALUE;
	return bg_results__bad_name(value, vlen, 1);
}

int bg_tag__paired_key(const char *key, size_t keylen)
{
	static const char *const keys[] = { "compare", "confirm", "confirm-reference" };
	size_t i;

	for (i = 0; i < BG_ARRAY_SIZE(keys); i++)
		if (keylen == strlen(keys[i]) && !memcmp(key, keys[i], keylen))
			return 1;
	/* Step 6 matched with SQLite's LIKE, blind to ASCII case. */
	return keylen >= 7 && !strncasecmp(key, "bisect-", 7);
}

/* A name or unit that may be stored: BG_EINPUT naming it otherwise. */
static int check_name(bg_ctx *ctx, const char *what, const char *s)
{
	const char *why = bg_results__bad_name(s, strlen(s), 0);
	char q[320];

	if (!why)
		return 0;
	return bg_error_set(ctx, BG_EINPUT, "%s %s %s", what, bg_text__quote(q, sizeof(q), s), why);
}

int bg_results_add(bg_ctx *ctx, bg_results *res, const char *benchmark, const char *metric,
                   const char *unit, double value)
{
	const char *canon;
	double scale;
	uint64_t h;
	series_slot *sl;
	int rc, memo;

	/* A NULL name or unit gets the sentence a parser's caller shows. */
	BG_NEED(ctx, res);
	if (!benchmark || !*benchmark || !metric || !*metric)
		return bg_error_set(ctx, BG_EINPUT, "a sample needs a benchmark and a metric name");
	h = bg_index__hash(benchmark, metric);
	sl = find(res, benchmark, metric, h);
	/* Checked once per series: a million samples of it pay nothing more. */
	if (!sl && ((rc = check_name(ctx, "benchmark name", benchmark)) < 0 ||
	            (rc = check_name(ctx, "metric name", metric)) < 0))
		return rc;
	/* A series is named "benchmark:metric", split at its last ':': a
	 * metric "x:y" of b would be read back as metric "y" of "b:x". */
	if (!sl && strchr(metric, ':')) {
		char q[320];

		return bg_error_set(
		        ctx, BG_EINPUT,
		        "metric name %s contains ':' (series are named benchmark:metric)",
		        bg_text__quote(q, sizeof(q), metric));
	}
	if ((memo = sl && sl->given[0] && unit && !strcmp(sl->given, unit))) {
		canon = sl->s.unit;
		scale = sl->scale;
	} else if (bg_unit_canonical(unit, &canon, &scale) < 0) {
		return bg_error_set(ctx, BG_EINPUT, "%s:%s: missing unit", benchmark, metric);
	}
	if (!isfinite(value))
		return bg_error_set(ctx, BG_EINPUT, "%s:%s: value is not a finite number",
		                    benchmark, metric);
	/* A time is never negative; every format that names its times already
	 * refuses one, and so does a unit that says it is one (lines, a
	 * baseline file, b.ReportMetric's "ms"). */
	if (value < 0 && !strcmp(canon, "s"))
		return bg_error_set(ctx, BG_EINPUT, "%s:%s: value %g s is negative, not a time",
		                    benchmark, metric, value * scale);
	value *= scale;
	/* 1e307 min is finite; in seconds it is not. */
	if (!isfinite(value))
		return bg_error_set(ctx, BG_EINPUT, "%s:%s: value is too large in %s", benchmark,
		                    metric, canon);
	if (!sl) {
		if ((rc = check_name(ctx, "unit", unit)) < 0)
			return rc;
		sl = create(res, benchmark, metric, canon, h);
		if (!sl)
			return bg_error_oom(ctx);
	} else if (strcmp(sl->s.unit, canon) != 0) {
		char q[320];

		return bg_error_set(ctx, BG_EINPUT, "%s:%s: unit %s differs from earlier \"%s\"",
		                    benchmark, metric, bg_text__quote(q, sizeof(q), unit),
		                    sl->s.unit);
	}
	if (bg_grow((void **)&sl->s.values, &sl->cap, sl->s.n, sizeof(*sl->s.values)) < 0)
		return bg_error_oom(ctx);
	sl->s.values[sl->s.n++] = value;
	if (!memo && strlen(unit) < sizeof(sl->given)) {
		strcpy(sl->given, unit);
		sl->scale = scale;
	}
	return 0;
}

const bg_series *bg_results__find(const bg_results *res, const char *benchmark, const char *metric)
{
	series_slot *sl = find(res, benchmark, metric, bg_index__hash(benchmark, metric));

	return sl ? &sl->s : NULL;
}

int bg_results_set_direction(bg_results *res, const char *benchmark, const char *metric,
                             bg_direction dir)
{
	series_slot *sl;

	BG_NEED(NULL, res);
	BG_NEED(NULL, benchmark);
	BG_NEED(NULL, metric);
	sl = find(res, benchmark, metric, bg_index__hash(benchmark, metric));
	if (!sl)
		return BG_ENOTFOUND;
	sl->s.direction = dir;
	return 0;
}

int bg_results_set_instrument(bg_ctx *ctx, bg_results *res, const char *benchmark,
                              const char *metric, const char *instrument)
{
	series_slot *sl;
	char *copy = NULL;
	int rc;

	BG_NEED(ctx, res);
	BG_NEED(ctx, benchmark);
	BG_NEED(ctx, metric);
	sl = find(res, benchmark, metric, bg_index__hash(benchmark, metric));
	if (!sl)
		return bg_error_set(ctx, BG_ENOTFOUND, "%s:%s: no such series", benchmark, metric);
	if (instrument && (rc = check_name(ctx, "instrument", instrument)) < 0)
		return rc;
	if (instrument && !(copy = strdup(instrument)))
		return bg_error_oom(ctx);
	free(sl->s.instrument);
	sl->s.instrument = copy;
	return 0;
}

/* Outcome i is of benchmark `key`. */
static int same_outcome(const void *set, size_t i, const void *key)
{
	return !strcmp(((const bg_results *)set)->outcomes[i].o.benchmark, key);
}

/* The outcome of `benchmark`, of hash h, or NULL. */
static bg_outcome *outcome_find(const bg_results *res, const char *benchmark, uint64_t h)
{
	size_t i = bg_index__find(&res->oindex, h, same_outcome, res, benchmark);

	return i == BG_INDEX_NONE ? NULL : &res->outcomes[i].o;
}

const bg_outcome *bg_results_find_outcome(const bg_results *res, const char *benchmark)
{
	if (!res || !benchmark)
		return NULL;
	return outcome_find(res, benchmark, bg_index__hash(benchmark, NULL));
}

int bg_results_set_outcome(bg_ctx *ctx, bg_results *res, const char *benchmark,
                           bg_bench_status status, const char *message)
{
	uint64_t h;
	bg_outcome *o;
	char *msg = NULL;
	int rc;

	BG_NEED(ctx, res);
	BG_NEED(ctx, benchmark);
	h = bg_index__hash(benchmark, NULL);
	o = outcome_find(res, benchmark, h);
	if (!o && (rc = check_name(ctx, "benchmark name", benchmark)) < 0)
		return rc;
	if (message && !(msg = strdup(message)))
		return bg_error_oom(ctx);
	/* Every outcome's message is stored, printed and posted: one that
	 * quotes a file the benchmark wrote (Valgrind's) is scrubbed here, as
	 * what it printed was when it was read (bg_ctx__scrub). */
	if (msg) {
		size_t n = strlen(msg);

		if (bg_ctx__scrub(ctx, &msg, &n, 0) < 0) {
			free(msg);
			return bg_error_oom(ctx);
		}
	}
	if (!o) {
		if (bg_grow((void **)&res->outcomes, &res->capoutcomes, res->noutcomes,
		            sizeof(*res->outcomes)) < 0) {
			free(msg);
			return bg_error_oom(ctx);
		}
		res->outcomes[res->noutcomes].definition = NULL;
		o = &res->outcomes[res->noutcomes].o;
		o->benchmark = strdup(benchmark);
		o->message = NULL;
		if (!o->benchmark || bg_index__add(&res->oindex, h, res->noutcomes) < 0) {
			free(o->benchmark);
			free(msg);
			return bg_error_oom(ctx);
		}
		res->noutcomes++;
	}
	free(o->message);
	o->message = msg;
	o->status = status;
	return 0;
}

/* The slot of an outcome handed out by this set: o is its first member. */
static outcome_slot *outcome_slot_of(const bg_outcome *o)
{
	return (outcome_slot *)(void *)o;
}

int bg_results__set_definition(bg_ctx *ctx, bg_results *res, const char *benchmark,
                               const char *definition)
{
	bg_outcome *o;
	char *copy = NULL;

	BG_NEED(ctx, res);
	BG_NEED(ctx, benchmark);
	if (!(o = outcome_find(res, benchmark, bg_index__hash(benchmark, NULL))))
		return bg_error_set(ctx, BG_EINPUT, "no outcome of \"%s\" to describe", benchmark);
	if (definition && !(copy = strdup(definition)))
		return bg_error_oom(ctx);
	free(outcome_slot_of(o)->definition);
	outcome_slot_of(o)->definition = copy;
	return 0;
}

const char *bg_results__definition(const bg_results *res, size_t i)
{
	return res && i < res->noutcomes ? res->outcomes[i].definition : NULL;
}

void bg_results_drop_benchmark(bg_results *res, const char *benchmark)
{
	size_t i, kept = 0;

	if (!res || !benchmark)
		return;

	for (i = 0; i < res->nseries; i++) {
		if (!strcmp(res->series[i].s.benchmark, benchmark))
			series_clear(&res->series[i].s);
		else
			res->series[kept++] = res->series[i];
	}
	if (kept == res->nseries)
		return;
	res->nseries = kept;
	/* Numbers moved: file the series again.  Fewer than the index held,
	 * so they fit in its room, and adding them allocates nothing. */
	bg_index__reset(&res->index);
	for (i = 0; i < kept; i++)
		(void)bg_index__add(
		        &res->index,
		        bg_index__hash(res->series[i].s.benchmark, res->series[i].s.metric), i);
}
