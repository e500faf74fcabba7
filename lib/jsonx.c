/*
 * jsonx.c -- building JSON with json-c (lib/jsonx.h): values that are null
 * where there is nothing to write, numbers in the form that reads back
 * exactly, and members added without losing track of memory running out.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "jsonx.h"

json_object *bg_json__check(int *oom, json_object *o)
{
	if (!o && oom)
		*oom = 1;
	return o;
}

json_object *bg_json__str(int *oom, const char *s)
{
	return s ? bg_json__check(oom, json_object_new_string(s)) : NULL;
}

json_object *bg_json__int(int *oom, int64_t v)
{
	return bg_json__check(oom, json_object_new_int64(v));
}

json_object *bg_json__double(int *oom, double v)
{
	return isfinite(v) ? bg_json__check(oom, json_object_new_double(v)) : NULL;
}

/*
 * The shortest of %.15g, %.16g, %.17g that reads back as the same double:
 * exact, and "0.0015" rather than json-c's "0.0015000000000000000".
 */
json_object *bg_json__number(int *oom, double v)
{
	char buf[40];
	int prec;

	if (!isfinite(v))
		return NULL;
	for (prec = 15; prec < 17; prec++) {
		double back;

		snprintf(buf, sizeof(buf), "%.*g", prec, v);
		back = strtod(buf, NULL);
		if (!(back < v) && !(back > v))
			break;
	}
	if (prec == 17)
		snprintf(buf, sizeof(buf), "%.17g", v);
	/* "-0" would read back as the integer 0, losing the sign. */
	if (!strcmp(buf, "-0"))
		snprintf(buf, sizeof(buf), "-0.0");
	return bg_json__check(oom, json_object_new_double_s(v, buf));
}

void bg_json__add(int *oom, json_object *obj, const char *key, json_object *val)
{
	if (!obj || json_object_object_add(obj, key, val) < 0) {
		json_object_put(val);
		if (oom)
			*oom = 1;
	}
}

int bg_json__clamped(json_object *x)
{
	return json_object_is_type(x, json_type_int) &&
	       (json_object_get_int64(x) == INT64_MIN || json_object_get_uint64(x) == UINT64_MAX);
}

void bg_json__push(int *oom, json_object *arr, json_object *val)
{
	if (!arr || json_object_array_add(arr, val) < 0) {
		json_object_put(val);
		if (oom)
			*oom = 1;
	}
}
