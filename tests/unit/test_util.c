/*
 * test_util.c -- lib/util.c's growth helpers, the one place arrays and byte
 * buffers grow: room for any element asked for (not only the next one), and
 * a size that would overflow refused with the array left as it was; and the
 * error message, whose end (the reason) survives a huge argument.
 */
#include <errno.h>

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

/* Whether `s` is valid UTF-8 (the cuts of a long message keep it so). */
static int utf8_ok(const char *s)
{
	const unsigned char *p = (const unsigned char *)s;
	int more = 0;

	for (; *p; p++) {
		if (more) {
			if ((*p & 0xc0) != 0x80)
				return 0;
			more--;
		} else if (*p >= 0xf0) {
			more = 3;
		} else if (*p >= 0xe0) {
			more = 2;
		} else if (*p >= 0xc0) {
			more = 1;
		} else if (*p >= 0x80) {
			return 0;
		}
	}
	return more == 0;
}

static void test_long_message(void **state)
{
	char arg[3001], *big = NULL;
	const char *m;
	bg_ctx *ctx = NULL;
	size_t i;

	(void)state;
	assert_int_equal(bg_ctx_new(&ctx), 0);
	memset(arg, 'a', sizeof(arg) - 1);
	arg[sizeof(arg) - 1] = '\0';
	assert_int_equal(bg_error_set(ctx, BG_EINPUT, "database %s: no such file", arg), BG_EINPUT);
	m = bg_ctx_error(ctx);
	assert_true(strlen(m) < 1024);
	assert_true(!strncmp(m, "database aaaa", 13));
	assert_non_null(strstr(m, "a...a"));
	assert_true(strlen(m) > 16 && !strcmp(m + strlen(m) - 14, ": no such file"));

	/* The reason of bg_error_errno, after the message, survives too. */
	errno = ENOENT;
	assert_int_equal(bg_error_errno(ctx, BG_EIO, "%s", arg), BG_EIO);
	m = bg_ctx_error(ctx);
	assert_true(strlen(m) < 1024);
	assert_non_null(strstr(m, strerror(ENOENT)));

	/* A message that fits is left whole; one passed on from the context
	 * itself is read before it is overwritten. */
	bg_error_set(ctx, BG_ERROR, "short: %d", 42);
	assert_string_equal(bg_ctx_error(ctx), "short: 42");
	bg_error_set(ctx, BG_ERROR, "%s", bg_ctx_error(ctx));
	assert_string_equal(bg_ctx_error(ctx), "short: 42");

	/* Two-byte characters: the cuts do not split one. */
	assert_non_null(big = malloc(2 * 1500 + 1));
	for (i = 0; i < 1500; i++)
		memcpy(big + 2 * i, "\xc3\xa9", 2);
	big[3000] = '\0';
	bg_error_set(ctx, BG_EINPUT, "x%s", big);
	assert_true(utf8_ok(bg_ctx_error(ctx)));
	bg_error_set(ctx, BG_EINPUT, "%sxy", big);
	assert_true(utf8_ok(bg_ctx_error(ctx)));
	assert_true(strlen(bg_ctx_error(ctx)) < 1024);
	free(big);
	bg_ctx_free(ctx);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_grow),
		cmocka_unit_test(test_buf),
		cmocka_unit_test(test_long_message),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
