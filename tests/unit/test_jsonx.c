/*
 * test_jsonx.c -- lib/jsonx.c, the JSON helpers every writer shares: null
 * for a missing string or a number JSON cannot hold (without counting it as
 * out of memory), numbers in json-c's form or the shortest exact one, and
 * members added to an object or array that was never made.
 */
#include <math.h>

#include "unit.h"
#include "jsonx.h"

static void assert_text(json_object *o, const char *want)
{
	assert_non_null(o);
	assert_string_equal(json_object_to_json_string_ext(o, JSON_C_TO_STRING_PLAIN), want);
	json_object_put(o);
}

static void test_values(void **state)
{
	int oom = 0;

	(void)state;
	assert_null(bg_json__str(&oom, NULL));
	assert_null(bg_json__double(&oom, NAN));
	assert_null(bg_json__double(&oom, INFINITY));
	assert_null(bg_json__number(&oom, -INFINITY));
	assert_null(bg_json__number(NULL, NAN));
	assert_int_equal(oom, 0); /* null by design is not out of memory */

	assert_text(bg_json__str(&oom, "µs \"q\""), "\"µs \\\"q\\\"\"");
	assert_text(bg_json__int(&oom, -42), "-42");
	assert_text(bg_json__int(&oom, INT64_MAX), "9223372036854775807");
	/* json-c's own form: 17 significant digits. */
	assert_text(bg_json__double(&oom, 0.1), "0.10000000000000001");
	/* The shortest that reads back as the same double. */
	assert_text(bg_json__number(&oom, 0.1), "0.1");
	assert_text(bg_json__number(&oom, 0.0015), "0.0015");
	assert_text(bg_json__number(&oom, 1.0 / 3), "0.3333333333333333");
	assert_text(bg_json__number(&oom, 2.0), "2");
	assert_text(bg_json__number(&oom, -0.0), "-0.0");
	assert_int_equal(oom, 0);
}

static void test_building(void **state)
{
	json_object *o = bg_json__check(NULL, json_object_new_object());
	json_object *a = json_object_new_array();
	int oom = 0;

	(void)state;
	bg_json__add(&oom, o, "s", bg_json__str(&oom, "x"));
	bg_json__add(&oom, o, "none", bg_json__str(&oom, NULL));
	bg_json__push(&oom, a, bg_json__number(&oom, 1.5));
	bg_json__push(&oom, a, bg_json__double(&oom, NAN));
	bg_json__add(&oom, o, "a", a);
	assert_int_equal(oom, 0);
	assert_text(o, "{\"s\":\"x\",\"none\":null,\"a\":[1.5,null]}");

	/* Out of memory is remembered: a container that was not made, and the
	 * value meant for it released (ASan would see a leak otherwise). */
	assert_null(bg_json__check(&oom, NULL));
	assert_int_equal(oom, 1);
	oom = 0;
	bg_json__add(&oom, NULL, "k", bg_json__str(NULL, "lost"));
	assert_int_equal(oom, 1);
	oom = 0;
	bg_json__push(&oom, NULL, bg_json__int(NULL, 1));
	assert_int_equal(oom, 1);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_values),
		cmocka_unit_test(test_building),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
