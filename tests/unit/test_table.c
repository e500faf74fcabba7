/*
 * test_table.c -- lib/table.c: columns line up on a terminal and in a raw
 * Markdown table whatever the names in them: CJK (two columns a
 * character), combining accents (none) and invisible characters (shown).
 */
#include <locale.h>

#include "unit.h"

static char *render(int markdown, const char *const *rows, size_t nrows)
{
	static const char *const head[] = { "series", "mean" };
	bg_table *t = bg_table_new(2, head, "lr");
	bg_buf b = BG_BUF_INIT;
	size_t i;

	assert_non_null(t);
	for (i = 0; i < nrows; i++) {
		const char *row[] = { rows[i], "1 ms" };

		assert_int_equal(bg_table_add(t, row), 0);
	}
	assert_int_equal(bg_table_render(t, markdown, 0, &b), 0);
	bg_table_free(t);
	return bg_buf_detach(&b);
}

/* The tests run under the "C" locale, as the CLI does under LANG=C. */
static void test_terminal_width(void **state)
{
	static const char *const rows[] = {
		"h:plain",
		"h:\xE6\x97\xA5\xE6\x9C\xAC\xE8\xAA\x9E", /* h:日本語, 8 columns */
		"h:e\314\201e\314\201",                   /* h:éé decomposed, 4 columns */
		"h:plain_at_most",
		"h:pa\xE2\x80\x8Brse", /* shown as h:pa\u{200b}rse, as wide */
	};
	char *out = render(0, rows, BG_ARRAY_SIZE(rows));

	(void)state;
	assert_string_equal(out, "series           mean\n"
	                         "h:plain          1 ms\n"
	                         "h:\xE6\x97\xA5\xE6\x9C\xAC\xE8\xAA\x9E         1 ms\n"
	                         "h:e\314\201e\314\201             1 ms\n"
	                         "h:plain_at_most  1 ms\n"
	                         "h:pa\\u{200b}rse  1 ms\n");
	free(out);
	/* The process's locale is as it was. */
	assert_string_equal(setlocale(LC_CTYPE, NULL), "C");
}

/* Markdown: '@' gets a word joiner, which takes no column. */
static void test_markdown_width(void **state)
{
	static const char *const rows[] = { "@ab", "abcd" };
	char *out = render(1, rows, BG_ARRAY_SIZE(rows));

	(void)state;
	assert_string_equal(out, "| series | mean |\n"
	                         "|:-------|-----:|\n"
	                         "| @\xE2\x81\xA0"
	                         "ab    | 1 ms |\n"
	                         "| abcd   | 1 ms |\n");
	free(out);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_terminal_width),
		cmocka_unit_test(test_markdown_width),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
