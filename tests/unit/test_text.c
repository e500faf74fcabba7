/*
 * test_text.c -- lib/text.c: which text ingest refuses, how text from
 * outside reads in each place it is printed (HTML, Markdown, a terminal or
 * CI log, JSON), and how many terminal columns it takes.
 */
#include <locale.h>
#include <math.h>

#include <json-c/json.h>

#include "unit.h"

static char *esc(bg_esc where, const char *s)
{
	char *out = bg_text__escaped(where, s);

	assert_non_null(out);
	return out;
}

#define assert_esc(where, in, want)                                                                \
	do {                                                                                       \
		char *got_ = esc(where, in);                                                       \
		assert_string_equal(got_, want);                                                   \
		free(got_);                                                                        \
	} while (0)

static void test_invalid(void **state)
{
	size_t at = 99;

	(void)state;
	assert_null(bg_text__invalid("sort/1M", 7, NULL));
	assert_null(bg_text__invalid("µs ünïcode 日本", strlen("µs ünïcode 日本"), NULL));
	assert_string_equal(bg_text__invalid("a\x1b[31m", 6, &at), "a control character");
	assert_int_equal(at, 1);
	assert_non_null(bg_text__invalid("a\nb", 3, NULL));
	assert_non_null(bg_text__invalid("tab\there", 8, NULL));
	assert_non_null(bg_text__invalid("del\x7f", 4, NULL));
	/* C1 (U+009B is a CSI on some terminals), bidi overrides, line separators. */
	assert_non_null(bg_text__invalid("c1\xC2\x9B", 4, NULL));
	assert_non_null(bg_text__invalid("rlo\xE2\x80\xAE", 6, NULL));
	assert_non_null(bg_text__invalid("iso\xE2\x81\xA6", 6, NULL));
	assert_non_null(bg_text__invalid("ls\xE2\x80\xA8", 5, NULL));
	/* Invalid UTF-8: a stray continuation, a truncated sequence, an overlong
	 * '/', a surrogate, past U+10FFFF. */
	assert_string_equal(bg_text__invalid("x\x80", 2, &at), "invalid UTF-8");
	assert_int_equal(at, 1);
	assert_non_null(bg_text__invalid("\xE6\x97", 2, NULL));
	assert_non_null(bg_text__invalid("\xC0\xAF", 2, NULL));
	assert_non_null(bg_text__invalid("\xED\xA0\x80", 3, NULL));
	assert_non_null(bg_text__invalid("\xF4\x90\x80\x80", 4, NULL));
	/* An embedded NUL is a control character, not the end. */
	assert_non_null(bg_text__invalid("a\0b", 3, NULL));
	assert_true(bg_text__ok("ok"));
	assert_false(bg_text__ok(NULL));
}

/* Characters that show nothing: free text may hold them, a name may not
 * ("pa<U+200B>rse" would read as "parse"). */
static void test_invisible(void **state)
{
	static const char *const hidden[] = {
		"\xE2\x80\x8B",     /* U+200B zero-width space */
		"\xE2\x80\x8C",     /* U+200C zero-width non-joiner */
		"\xE2\x80\x8D",     /* U+200D zero-width joiner */
		"\xE2\x81\xA0",     /* U+2060 word joiner */
		"\xE2\x81\xA4",     /* U+2064 invisible plus */
		"\xEF\xBB\xBF",     /* U+FEFF byte order mark */
		"\xC2\xAD",         /* U+00AD soft hyphen */
		"\xCD\x8F",         /* U+034F combining grapheme joiner */
		"\xE1\xA0\x8E",     /* U+180E Mongolian vowel separator */
		"\xE1\x85\x9F",     /* U+115F Hangul choseong filler */
		"\xE1\x85\xA0",     /* U+1160 Hangul jungseong filler */
		"\xE3\x85\xA4",     /* U+3164 Hangul filler */
		"\xEF\xBE\xA0",     /* U+FFA0 halfwidth Hangul filler */
		"\xF3\xA0\x80\x81", /* U+E0001 language tag */
		"\xF3\xA0\x81\x81", /* U+E0041 tag latin capital A */
		"\xEF\xB8\x8F",     /* U+FE0F variation selector 16 */
		"\xE1\x9E\xB4",     /* U+17B4 Khmer vowel inherent aq */
		"\xEF\xBF\xB9",     /* U+FFF9 interlinear annotation anchor */
		"\xEF\xB7\x90",     /* U+FDD0 noncharacter */
		"\xEF\xBF\xBE",     /* U+FFFE noncharacter */
		"\xF0\x9F\xBF\xBF", /* U+1FFFF noncharacter */
	};
	char name[16];
	size_t i, at = 99;

	(void)state;
	for (i = 0; i < BG_ARRAY_SIZE(hidden); i++) {
		snprintf(name, sizeof(name), "pa%srse", hidden[i]);
		assert_null(bg_text__invalid(name, strlen(name), NULL));
		assert_non_null(bg_text__invalid_name(name, strlen(name), &at));
		assert_string_equal(bg_text__invalid_name(name, strlen(name), NULL),
		                    "an invisible character");
		assert_int_equal(at, 2);
		assert_false(bg_text__ok(name));
	}
	/* What a name may hold: accents (combining too), CJK, an emoji alone. */
	assert_true(bg_text__ok("e\xCC\x81t\xC3\xA9 \xE6\x97\xA5\xE6\x9C\xAC \xF0\x9F\x91\xA8"));
	/* Control characters are still said to be that. */
	assert_string_equal(bg_text__invalid_name("a\x1b", 2, NULL), "a control character");

	/* Shown, wherever it is printed; Markdown's own word joiner after '@'
	 * is not data and stays. */
	assert_esc(BG_ESC_TERM, "pa\xE2\x80\x8Brse", "pa\\u{200b}rse");
	assert_esc(BG_ESC_LOG,
	           "\xEF\xBB\xBF"
	           "a\xC2\xAD"
	           "b",
	           "\\u{feff}a\\u{00ad}b");
	assert_esc(BG_ESC_HTML, "x\xF3\xA0\x81\x81", "x\\u{e0041}");
	assert_esc(BG_ESC_MD_CODE, "h:pa\xE2\x80\x8Brse", "`h:pa\\u{200b}rse`");
	assert_esc(BG_ESC_MD, "@a\xE2\x81\xA0",
	           "@\xE2\x81\xA0"
	           "a\\u{2060}");
	assert_esc(BG_ESC_XML, "\xEF\xB7\x90\xEF\xBF\xBF", "\\u{fdd0}\\u{ffff}");
	assert_esc(BG_ESC_TERM,
	           "\xF0\x9F\x91\xA8\xE2\x80\x8D\xF0\x9F\x91\xA9\xE2\x9D\xA4\xEF\xB8\x8F",
	           "\xF0\x9F\x91\xA8\\u{200d}\xF0\x9F\x91\xA9\xE2\x9D\xA4\\u{fe0f}");
	/* A byte order mark before "::" is shown, and is no blank the runner
	 * would trim: the line starts "\u{feff}", no workflow command. */
	assert_esc(BG_ESC_TERM, "\xEF\xBB\xBF::error::x", "\\u{feff}::error::x");
}

/*
 * Terminal columns by display width, whatever the program's locale (the
 * tests run under "C", as a CLI under LANG=C does), and the locale left as
 * it was.
 */
/* Cuts that leave no half character: "a日b" is a, then 3 bytes of 日, then b. */
static void test_char_cuts(void **state)
{
	const char *s = "a\xe6\x97\xa5"
	                "b";

	(void)state;
	assert_int_equal(bg_text__char_start(s, 0), 0);
	assert_int_equal(bg_text__char_start(s, 1), 1);
	assert_int_equal(bg_text__char_start(s, 2), 1);
	assert_int_equal(bg_text__char_start(s, 3), 1);
	assert_int_equal(bg_text__char_start(s, 4), 4);
	assert_int_equal(bg_text__char_next(s, 2, 5), 4);
	assert_int_equal(bg_text__char_next(s, 1, 5), 1);
	assert_int_equal(bg_text__char_next(s, 3, 3), 3); /* never past len */
	assert_int_equal(bg_text__char_next(s + 2, 0, 3), 2);
}

static void test_columns(void **state)
{
	const char *s[] = {
		"abc",
		"\xE6\x97\xA5\xE6\x9C\xAC\xE8\xAA\x9E",      /* 日本語: two columns each */
		"e\314\201e\314\201",                        /* e + U+0301, twice */
		"@\xE2\x81\xA0octocat",                      /* Markdown's word joiner */
		"\xF0\x9F\x91\xA8\\u{200d}\xF0\x9F\x91\xA9", /* two emoji, a joiner shown */
		"",
		"\xC2\xB1 \xC2\xB5s", /* ± µs */
	};
	size_t cols[BG_ARRAY_SIZE(s)];
	const char *before = setlocale(LC_CTYPE, NULL);
	char was[64];
	locale_t thread = uselocale((locale_t)0);

	(void)state;
	snprintf(was, sizeof(was), "%s", before ? before : "");
	bg_text__columns(s, BG_ARRAY_SIZE(s), cols);
	assert_int_equal(cols[0], 3);
	assert_int_equal(cols[1], 6);
	assert_int_equal(cols[2], 2);
	assert_int_equal(cols[3], 8);
	assert_int_equal(cols[4], 2 + 8 + 2);
	assert_int_equal(cols[5], 0);
	assert_int_equal(cols[6], 4);
	assert_string_equal(setlocale(LC_CTYPE, NULL), was);
	assert_true(uselocale((locale_t)0) == thread);
}

static void test_html(void **state)
{
	(void)state;
	assert_esc(BG_ESC_HTML, "<img src=x onerror='a()'>&\"",
	           "&lt;img src=x onerror=&#39;a()&#39;&gt;&amp;&quot;");
	assert_esc(BG_ESC_HTML, "esc\x1b[2Jbidi\xE2\x80\xAE bad\xFF",
	           "esc\\x1b[2Jbidi\\u{202e} bad\\xff");
	assert_esc(BG_ESC_HTML, "µs", "µs");
	/* Code points whose low byte is '&' or NUL are themselves. */
	assert_esc(BG_ESC_HTML, "\xE2\x98\xA6 \xE2\x98\x80", "\xE2\x98\xA6 \xE2\x98\x80");
	assert_esc(BG_ESC_HTML, NULL, "");
	/* What a page's script shows (textContent): controls shown the same
	 * way, markup left to the script. */
	assert_esc(BG_ESC_TEXT, "<b>&\"x\xE2\x80\xAEy\xE2\x81\xA6\xC2\x9B\n\xFF",
	           "<b>&\"x\\u{202e}y\\u{2066}\\u{009b}\\x0a\\xff");
	assert_esc(BG_ESC_TEXT, " ::a ##[b", " ::a ##[b");
}

static void test_markdown(void **state)
{
	(void)state;
	/* Inline text: a cell cannot be split, emphasis and links cannot form,
	 * tags and comments are entities, @mentions do not notify. */
	assert_esc(BG_ESC_MD, "a|b *c* [d](e) <!-- `f` @octocat",
	           "a\\|b \\*c\\* \\[d\\](e) &lt;!-- \\`f\\` @\xE2\x81\xA0octocat");
	assert_esc(BG_ESC_MD, "line\nbreak", "line\\x0abreak");
	/* A code span: a fence longer than any backtick run, padded where a
	 * backtick touches it; '|' escaped for GFM tables. */
	assert_esc(BG_ESC_MD_CODE, "sort/1M:wall_time", "`sort/1M:wall_time`");
	assert_esc(BG_ESC_MD_CODE, "a`b``c", "```a`b``c```");
	assert_esc(BG_ESC_MD_CODE, "`x", "`` `x ``");
	assert_esc(BG_ESC_MD_CODE, "p|q", "`p\\|q`");
	/* '<' outranks a code span in CommonMark: <code> and entities instead. */
	assert_esc(BG_ESC_MD_CODE, "x<!--", "<code>x&lt;!--</code>");
	assert_esc(BG_ESC_MD_CODE, "@a<b>",
	           "<code>@\xE2\x81\xA0"
	           "a&lt;b&gt;</code>");
}

static void test_terminal(void **state)
{
	(void)state;
	assert_esc(BG_ESC_TERM, "osc\x1b]0;t\x07 csi\x1b[31m", "osc\\x1b]0;t\\x07 csi\\x1b[31m");
	assert_esc(BG_ESC_TERM, "a\n::error::forged", "a\\x0a::error::forged");
	/* Data that starts a line never reads as a workflow command. */
	assert_esc(BG_ESC_TERM, "::error title=x::forged", "\\x3a:error title=x::forged");
	assert_esc(BG_ESC_TERM, "std::sort", "std::sort");
	/* The runner trims leading blanks before it looks for "::", and reads
	 * the legacy "##[command]" anywhere in a line. */
	assert_esc(BG_ESC_TERM, "  ::error::forged", "  \\x3a:error::forged");
	assert_esc(BG_ESC_TERM, "\xE3\x80\x80::warning::x", "\xE3\x80\x80\\x3a:warning::x");
	assert_esc(BG_ESC_TERM, "a ::b", "a ::b");
	assert_esc(BG_ESC_TERM, "h:##[error]forged", "h:\\x23#[error]forged");
	assert_esc(BG_ESC_TERM, "x##[stop-commands]tok", "x\\x23#[stop-commands]tok");
	assert_esc(BG_ESC_TERM, "issue #12 ##1 #[x]", "issue #12 ##1 #[x]");
	assert_esc(BG_ESC_LOG, "one\n \t::error::x\n  ::warning::y\nz ##[error]w",
	           "one\n \\x09::error::x\n  \\x3a:warning::y\nz \\x23#[error]w");
	assert_esc(BG_ESC_HTML, " ::a ##[b", " ::a ##[b");
	assert_esc(BG_ESC_TERM,
	           "\xC2\x9B"
	           "2J\xFF",
	           "\\u{009b}2J\\xff");
	/* Messages keep their lines; none of them starts with "::". */
	assert_esc(BG_ESC_LOG, "one\n::error::x\r\ntwo", "one\n\\x3a:error::x\\x0d\ntwo");
	assert_esc(BG_ESC_TERM, "", "");
}

/* A quote cut short for its buffer ends where a character starts, with
 * its ellipsis and closing quote, whatever the buffer's size. */
static void test_quote(void **state)
{
	static const char cjk[] = "\xe6\x97\xa5\xe6\x97\xa5\xe6\x97\xa5\xe6\x97\xa5\xe6\x97\xa5"
	                          "\xe6\x97\xa5\xe6\x97\xa5\xe6\x97\xa5\xe6\x97\xa5\xe6\x97\xa5";
	char big[320], small[16], name[400];
	size_t i;

	(void)state;
	assert_string_equal(bg_text__quote(big, sizeof(big), "a\x1b"), "\"a\\x1b\"");
	assert_string_equal(bg_text__quote(small, sizeof(small), "abc"), "\"abc\"");
	/* 30 bytes do not fit in 16: 9 bytes, three whole characters, then "…". */
	assert_string_equal(bg_text__quote(small, sizeof(small), cjk),
	                    "\"\xe6\x97\xa5\xe6\x97\xa5\xe6\x97\xa5\xe2\x80\xa6\"");
	/* 80 three-byte characters in the 160 bytes of a Catch2 message. */
	for (i = 0; i < 80; i++)
		memcpy(name + 3 * i, "\xe6\x97\xa5", 3);
	name[240] = '\0';
	assert_non_null(bg_text__quote(big, 160, name));
	assert_true(bg_text__ok(big));
	assert_int_equal(big[strlen(big) - 1], '"');
	assert_non_null(strstr(big, "\xe2\x80\xa6\""));
	assert_true(strlen(big) < 160);
}

static void test_json(void **state)
{
	json_object *o = json_object_new_object(), *a = json_object_new_array(), *back;
	const char *text;

	(void)state;
	json_object_object_add(o, "inf", json_object_new_double(INFINITY));
	json_object_object_add(o, "nan", json_object_new_double(NAN));
	json_object_object_add(o, "ok", json_object_new_double(1.5));
	json_object_object_add(o, "name", json_object_new_string("bad\xFF\xC0 \x1b end"));
	json_object_array_add(a, json_object_new_double(-INFINITY));
	json_object_array_add(a, json_object_new_string("fine µs"));
	json_object_object_add(o, "list", a);
	text = bg_text__json(o, JSON_C_TO_STRING_PLAIN);
	assert_non_null(text);
	assert_null(strstr(text, "Infinity"));
	assert_null(strstr(text, "NaN"));
	assert_null(bg_text__invalid(text, strlen(text), NULL));
	assert_non_null(back = json_tokener_parse(text));
	assert_true(json_object_get_type(json_object_object_get(back, "inf")) == json_type_null);
	assert_true(json_object_get_type(json_object_array_get_idx(
	                    json_object_object_get(back, "list"), 0)) == json_type_null);
	assert_string_equal(json_object_get_string(json_object_object_get(back, "name")),
	                    "bad\xEF\xBF\xBD\xEF\xBF\xBD \x1b end");
	assert_true(fabs(json_object_get_double(json_object_object_get(back, "ok")) - 1.5) < 1e-12);
	json_object_put(back);
	json_object_put(o);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_invalid),   cmocka_unit_test(test_html),
		cmocka_unit_test(test_markdown),  cmocka_unit_test(test_terminal),
		cmocka_unit_test(test_quote),     cmocka_unit_test(test_json),
		cmocka_unit_test(test_invisible), cmocka_unit_test(test_columns),
		cmocka_unit_test(test_char_cuts),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
