/*
 * jsonx.h -- the one set of helpers the modules that write JSON with json-c
 * share: the verdict (check_render.c), the trend report (report_json.c),
 * baseline files (baseline.c) and the CLI's --json output.  Not in
 * internal.h, which does not pull in json-c for every module.
 *
 * A NULL json_object is JSON null: the values below are NULL for a NULL
 * string or a number that is not finite, as JSON has no NaN.  `oom` is
 * where running out of memory is remembered (set to 1, never cleared), so
 * a document is checked once when it is complete rather than at every
 * member; NULL where a caller does not track it, and such a value is then
 * null.
 */
#ifndef BG_JSONX_H
#define BG_JSONX_H

#include <stdint.h>

#include <json-c/json.h>

/* A string; NULL: null. */
json_object *bg_json__str(int *oom, const char *s);
json_object *bg_json__int(int *oom, int64_t v);
/* A number as json-c writes it (17 significant digits); not finite: null. */
json_object *bg_json__double(int *oom, double v);
/* A number in the shortest form that reads back as the same double
 * ("0.0015", not json-c's 17 digits); not finite: null. */
json_object *bg_json__number(int *oom, double v);
/* o, a new object or array: NULL (out of memory) is remembered. */
json_object *bg_json__check(int *oom, json_object *o);
/* Adds val to an object or an array; on failure val is released and the
 * failure remembered.  obj or arr NULL (not made) counts as a failure. */
void bg_json__add(int *oom, json_object *obj, const char *key, json_object *val);
void bg_json__push(int *oom, json_object *arr, json_object *val);

/*
 * Whether a whole number read lies past what json-c holds: it keeps int64
 * and uint64 and clamps anything beyond to the nearest bound without a
 * word, so 123456789012345678901234567890 would read as 1.8e19 and a time
 * of 1e20 as INT64_MAX.  The bounds themselves cannot be told from a
 * clamped number, and no sample, time or code is one of them: refused
 * alike, by every reader of JSON from outside (baseline files, imports).
 */
int bg_json__clamped(json_object *x);
#define BG_JSON_CLAMPED_MSG                                                                        \
	"whole number out of range (past 64 bits; write it with an exponent, as 1.5e+30)"

#endif
