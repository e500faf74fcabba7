/*
 * test_util.c -- lib/util.c's growth helpers, the one place arrays and byte
 * buffers grow: room for any element asked for (not only the next one), and
 * a size that would overflow refused with the array left as it was; the
 * error message, whose end (the reason) survives a huge argument;
 * lib/index.c's hash index, which every lookup by name goes through; and
 * the context's secrets, replaced in what a command printed.
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

/* FNV-1a over n bytes, to hold bg_index__hash to the function it names. */
static uint64_t fnv1a(const char *s, size_t n)
{
	uint64_t h = 14695981039346656037ULL;

	while (n--)
		h = (h ^ (unsigned char)*s++) * 1099511628211ULL;
	return h;
}

static void test_index_hash(void **state)
{
	(void)state;
	assert_true(bg_index__hash("", NULL) == 0xcbf29ce484222325ULL);
	assert_true(bg_index__hash("a", NULL) == 0xaf63dc4c8601ec8cULL);
	assert_true(bg_index__hash("bench", NULL) == fnv1a("bench", 5));
	/* A pair is "a\0b": where one string ends and the other starts counts. */
	assert_true(bg_index__hash("bench", "ns") == fnv1a("bench\0ns", 8));
	assert_true(bg_index__hash("ab", "c") != bg_index__hash("a", "bc"));
	assert_true(bg_index__hash("a", "") != bg_index__hash("a", NULL));
	/* Over bytes: a slice of a longer string, a NUL among them, none. */
	assert_true(bg_index__hash_n("", 0) == 0xcbf29ce484222325ULL);
	assert_true(bg_index__hash_n("a", 1) == 0xaf63dc4c8601ec8cULL);
	assert_true(bg_index__hash_n("benchmark", 5) == bg_index__hash("bench", NULL));
	assert_true(bg_index__hash_n("bench\0ns", 8) == bg_index__hash("bench", "ns"));
	assert_true(bg_index__hash_n("BenchmarkSort-8", 13) == fnv1a("BenchmarkSort", 13));
	assert_true(bg_index__hash_n("ab", 1) != bg_index__hash_n("ab", 2));
}

/* Entry i of the string array `set` is `key`. */
static int same_name(const void *set, size_t i, const void *key)
{
	return !strcmp(((char *const *)set)[i], key);
}

#define NAMES 5000

static void test_index(void **state)
{
	bg_index ix = { 0 }, none = { 0 };
	char **names = calloc(NAMES, sizeof(*names));
	size_t i, cap;

	(void)state;
	assert_non_null(names);
	/* An empty index finds nothing, and frees (twice) as one that never was. */
	assert_int_equal(bg_index__find(&ix, 1, same_name, names, "x"), BG_INDEX_NONE);
	bg_index__reset(&none);
	bg_index__free(&none);
	bg_index__free(&none);
	assert_null(none.slot);

	/* Growth across many doublings: every entry is found where it was
	 * filed, and the table stays a power of two at most half full. */
	for (i = 0; i < NAMES; i++) {
		assert_non_null(names[i] = bg_printf("bench/%zu", i));
		assert_int_equal(bg_index__find(&ix, bg_index__hash(names[i], NULL), same_name,
		                                names, names[i]),
		                 BG_INDEX_NONE);
		assert_int_equal(bg_index__add(&ix, bg_index__hash(names[i], NULL), i), 0);
		assert_int_equal(ix.n, i + 1);
		assert_true(ix.cap >= 2 * ix.n && (ix.cap & (ix.cap - 1)) == 0);
	}
	assert_true(ix.cap >= 8192);
	for (i = 0; i < NAMES; i++)
		assert_int_equal(bg_index__find(&ix, bg_index__hash(names[i], NULL), same_name,
		                                names, names[i]),
		                 i);
	/* Absent keys: a new name, and a known name under another's hash. */
	assert_int_equal(bg_index__find(&ix, bg_index__hash("bench/5000", NULL), same_name, names,
	                                "bench/5000"),
	                 BG_INDEX_NONE);
	assert_int_equal(
	        bg_index__find(&ix, bg_index__hash(names[1], NULL), same_name, names, names[2]),
	        BG_INDEX_NONE);

	/* reset: empty, its room kept, and as many entries go back in. */
	cap = ix.cap;
	bg_index__reset(&ix);
	assert_int_equal(ix.n, 0);
	assert_int_equal(ix.cap, cap);
	assert_int_equal(
	        bg_index__find(&ix, bg_index__hash(names[7], NULL), same_name, names, names[7]),
	        BG_INDEX_NONE);

	/* Colliding hashes: every entry under one hash, and under hashes equal
	 * modulo any capacity; each is still told apart by same(). */
	for (i = 0; i < 300; i++) {
		uint64_t h = i % 2 ? 42 : 42 + ((uint64_t)1 << 40);

		assert_int_equal(bg_index__add(&ix, h, i), 0);
	}
	assert_int_equal(ix.cap, cap);
	for (i = 0; i < 300; i++) {
		uint64_t h = i % 2 ? 42 : 42 + ((uint64_t)1 << 40);

		assert_int_equal(bg_index__find(&ix, h, same_name, names, names[i]), i);
	}
	assert_int_equal(bg_index__find(&ix, 42, same_name, names, names[300]), BG_INDEX_NONE);
	assert_int_equal(bg_index__find(&ix, 42, same_name, names, names[0]), BG_INDEX_NONE);
	bg_index__free(&ix);
	assert_int_equal(ix.cap, 0);
	assert_int_equal(bg_index__find(&ix, 42, same_name, names, names[1]), BG_INDEX_NONE);

	/* From empty again, under one hash, across doublings. */
	for (i = 0; i < 1000; i++)
		assert_int_equal(bg_index__add(&ix, 7, i), 0);
	for (i = 0; i < 1000; i++)
		assert_int_equal(bg_index__find(&ix, 7, same_name, names, names[i]), i);
	bg_index__free(&ix);
	for (i = 0; i < NAMES; i++)
		free(names[i]);
	free(names);
}

/* s scrubbed with the context's secrets: a new string the test frees. */
static char *scrubbed(const bg_ctx *ctx, const char *s, int cut)
{
	char *t = strdup(s), *was = t;
	size_t n = strlen(s);

	assert_non_null(t);
	assert_int_equal(bg_ctx__scrub(ctx, &t, &n, cut), 0);
	assert_int_equal(n, strlen(t));
	/* Untouched text is the caller's string still: no copy per output. */
	if (!strcmp(t, s))
		assert_ptr_equal(t, was);
	return t;
}

#define assert_scrubbed(ctx, in, cut, want)                                                        \
	do {                                                                                       \
		char *got_ = scrubbed(ctx, in, cut);                                               \
		assert_string_equal(got_, want);                                                   \
		free(got_);                                                                        \
	} while (0)

static void test_scrub(void **state)
{
	bg_ctx *ctx = NULL;
	char *t = NULL;
	size_t n = 0;

	(void)state;
	assert_int_equal(bg_ctx_new(&ctx), 0);
	/* No secrets: nothing is looked at. */
	assert_scrubbed(ctx, "Bearer ghs_SuperSecretToken", 0, "Bearer ghs_SuperSecretToken");
	assert_int_equal(bg_ctx__scrub(ctx, &t, &n, 1), 0);
	assert_null(t);

	/* Too short to be a key, or empty: not taken (it would garble
	 * every message it occurs in). */
	assert_int_equal(bg_ctx__add_secret(ctx, "1", 1), 0);
	assert_int_equal(bg_ctx__add_secret(ctx, "s3cr3t7", 7), 0);
	assert_int_equal(bg_ctx__add_secret(ctx, "", 0), 0);
	assert_scrubbed(ctx, "exit 1: s3cr3t7", 0, "exit 1: s3cr3t7");

	assert_int_equal(bg_ctx__add_secret(ctx, "ghs_SuperSecretToken", 20), 0);
	assert_int_equal(bg_ctx__add_secret(ctx, "ghs_SuperSecretToken", 20), 0); /* once */
	assert_int_equal(bg_ctx__add_secret(ctx, "ghs_Super", 9), 0);
	assert_int_equal(bg_ctx__add_secret(ctx, "hooks/T0/B0/XYZXYZ-and-more", 18), 0);

	assert_scrubbed(ctx, "+ curl -H 'Authorization: Bearer ghs_SuperSecretToken' x", 0,
	                "+ curl -H 'Authorization: Bearer [secret]' x");
	/* The longest that matches: no tail of the longer one is left; two
	 * side by side are one run of secret bytes. */
	assert_scrubbed(ctx, "ghs_SuperSecretTokenghs_Super ghs_Supe", 0, "[secret] ghs_Supe");
	assert_scrubbed(ctx, "ghs_SuperSecretToken ghs_Super", 0, "[secret] [secret]");
	/* Only the n bytes given were a secret. */
	assert_scrubbed(ctx, "at hooks/T0/B0/XYZXYZ end", 0, "at [secret] end");
	/* A tail that starts inside one: its end goes too, from 4 bytes. */
	assert_scrubbed(ctx, "retToken | exit 7", 1, "[secret] | exit 7");
	assert_scrubbed(ctx, "retToken | exit 7", 0, "retToken | exit 7");
	assert_scrubbed(ctx, "oken | exit 7", 1, "[secret] | exit 7");
	assert_scrubbed(ctx, "ken | exit 7", 1, "ken | exit 7");
	assert_scrubbed(ctx, "ghs_SuperSecretToken", 1, "[secret]");
	/* Output cut after its start (stdout past its limit): the start of
	 * one at its end goes, from 4 bytes. */
	assert_scrubbed(ctx, "exit 7 | ghs_SuperSecretTo", BG_SCRUB_CUT_END, "exit 7 | [secret]");
	assert_scrubbed(ctx, "exit 7 | ghs_", BG_SCRUB_CUT_END, "exit 7 | [secret]");
	assert_scrubbed(ctx, "exit 7 | ghs", BG_SCRUB_CUT_END, "exit 7 | ghs");
	assert_scrubbed(ctx, "exit 7 | ghs_SuperSecretTo", 0, "exit 7 | [secret]SecretTo");
	/* Two that overlap, the second running on past the first: no tail of
	 * either is left. */
	assert_int_equal(bg_ctx__add_secret(ctx, "abcdefgh", 8), 0);
	assert_int_equal(bg_ctx__add_secret(ctx, "cdefghijkl", 10), 0);
	assert_scrubbed(ctx, "<abcdefghijkl>", 0, "<[secret]>");

	/* Bytes past a NUL are output too. */
	t = malloc(32);
	assert_non_null(t);
	memcpy(t, "a\0ghs_SuperSecretToken!", 24);
	n = 23;
	assert_int_equal(bg_ctx__scrub(ctx, &t, &n, 0), 0);
	assert_int_equal(n, 11);
	assert_memory_equal(t, "a\0[secret]!", 12);
	free(t);
	bg_ctx_free(ctx);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_grow),         cmocka_unit_test(test_buf),
		cmocka_unit_test(test_long_message), cmocka_unit_test(test_index_hash),
		cmocka_unit_test(test_index),        cmocka_unit_test(test_scrub),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
