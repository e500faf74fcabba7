/*
 * test_util.c -- lib/util.c's growth helpers, the one place arrays and byte
 * buffers grow: room for any element asked for (not only the next one), and
 * a size that would overflow refused with the array left as it was.
 */
#include "unit.h"

static void test_grow(void **state)
{
	int *a = NULL, *before;
	size_t cap = 0, i;

	(void)state;
	assert_int_equal(bg_grow((void **)&a, &cap, 0, sizeof(*a)), 0);
	assert_non_null(a);
	assert_true(cap >= 1);
	for (i = 0; i < 1000; i++) {
		assert_int_equal(bg_grow((void **)&a, &cap, i, sizeof(*a)), 0);
		assert_true(i < cap);
		a[i] = (int)i;
	}
	for (i = 0; i < 1000; i++)
		assert_int_equal(a[i], (int)i);

	/* Room for an element far past twice the capacity, in one call. */
	assert_int_equal(bg_grow((void **)&a, &cap, 10 * cap + 3, sizeof(*a)), 0);
	assert_true(cap > 10 * 1024 + 3);
	a[cap - 1] = 7;
	assert_int_equal(a[999], 999);

	/* An element whose place cannot be counted in bytes: refused, the
	 * array and its capacity unchanged. */
	before = a;
	i = cap;
	assert_int_equal(bg_grow((void **)&a, &cap, cap, SIZE_MAX / 2), BG_ENOMEM);
	assert_ptr_equal(a, before);
	assert_int_equal(cap, i);
	assert_int_equal(bg_grow((void **)&a, &cap, SIZE_MAX, sizeof(*a)), BG_ENOMEM);
	assert_int_equal(bg_grow((void **)&a, &cap, SIZE_MAX / 2, sizeof(*a)), BG_ENOMEM);
	assert_ptr_equal(a, before);
	assert_int_equal(cap, i);
	assert_int_equal(a[999], 999);
	free(a);
}

static void test_buf(void **state)
{
	bg_buf b = BG_BUF_INIT;
	char *s;
	size_t i;

	(void)state;
	for (i = 0; i < 5000; i++)
		assert_int_equal(bg_buf_puts(&b, "ab"), 0);
	assert_int_equal(b.len, 10000);
	assert_true(b.cap > b.len);
	assert_int_equal(b.ptr[b.len], '\0');
	/* More than memory can count: refused, the buffer unchanged. */
	assert_int_equal(bg_buf_grow(&b, SIZE_MAX), BG_ENOMEM);
	assert_int_equal(bg_buf_grow(&b, SIZE_MAX - b.len), BG_ENOMEM);
	assert_int_equal(b.len, 10000);
	assert_int_equal(bg_buf_printf(&b, "%d", 42), 0);
	assert_int_equal(b.len, 10002);
	s = bg_buf_detach(&b);
	assert_string_equal(s + 9998, "ab42");
	free(s);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_grow),
		cmocka_unit_test(test_buf),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
