/*
 * fuzz_text.c -- the escaping layer (lib/text.c) on any bytes.
 *
 * What each printing context must never let through, whatever the text:
 *  - every context: the output is valid UTF-8 with no control character
 *    and no character that shows nothing (bg_text__invalid_name finds
 *    nothing in it but Markdown's word joiner after '@');
 *  - HTML: no raw < > " ', and & only as one of the entities it writes;
 *  - Markdown: no raw < >, & only as an entity, every character that has a
 *    meaning (\ ` * _ [ ] | ~) escaped, and '@' followed by a word joiner;
 *  - a Markdown code span: a fence no run of backticks inside can close,
 *    and every '|' escaped (a GFM table splits cells even in code spans);
 *    text with < > & is <code> around Markdown-escaped text instead;
 *  - terminal / CI log: never starting with "::" (a workflow command); the
 *    log form keeps line breaks, and then no line starts with "::".
 * Text that is already printable (fit for a name) comes back unchanged once
 * unescaped, so escaping never loses what the name was.  bg_text__json writes any json-c
 * tree, strings and keys with stray bytes included, as valid UTF-8 JSON
 * that parses back, with non-finite numbers as null and printable strings
 * kept byte for byte.
 */
#include <math.h>

#include <json-c/json.h>

#include "fuzz.h"
#include "internal.h"

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	(void)argc;
	(void)argv;
	return 0;
}

static const char *const where_names[] = { "HTML", "MD", "MD_CODE", "TERM", "LOG" };

static void check_invalid(const uint8_t *d, size_t n)
{
	size_t at = (size_t)-1, i;
	const char *why = bg_text__invalid((const char *)d, n, &at);

	if (why) {
		if (at >= n)
			fuzz_fail("bg_text__invalid: \"%s\" at %zu of %zu bytes", why, at, n);
		if (bg_text__invalid((const char *)d, at, NULL))
			fuzz_fail("bg_text__invalid: the first fault is before %zu", at);
		return;
	}
	if (!fuzz_utf8_valid(d, n))
		fuzz_fail("bg_text__invalid passed invalid UTF-8");
	for (i = 0; i < n; i++)
		if (d[i] < 0x20 || d[i] == 0x7f)
			fuzz_fail("bg_text__invalid passed byte 0x%02x at %zu", d[i], i);
	/* A name is free text that holds no invisible character either:
	 * the zero-width space (U+200B) is one. */
	if ((why = bg_text__invalid_name((const char *)d, n, &at)) != NULL) {
		if (at >= n || bg_text__invalid_name((const char *)d, at, NULL))
			fuzz_fail("bg_text__invalid_name: \"%s\" at %zu of %zu bytes", why, at, n);
		return;
	}
	if (memmem(d, n, "\xE2\x80\x8B", 3))
		fuzz_fail("bg_text__invalid_name passed U+200B");
}

/* Appends one byte to a decoded copy (no bound needed: never longer than out). */
#define PUT(c) (dec[nd++] = (char)(c))

/* HTML: the entities text.c writes, and nothing else that markup could read. */
static void check_html(const char *out, char *dec, size_t *ndec)
{
	static const char *const ent[] = { "&amp;", "&lt;", "&gt;", "&quot;", "&#39;" };
	size_t i = 0, nd = 0, k;

	while (out[i]) {
		if (strchr("<>\"'", out[i]))
			fuzz_fail("HTML: a raw '%c' at %zu", out[i], i);
		if (out[i] != '&') {
			PUT(out[i++]);
			continue;
		}
		for (k = 0; k < BG_ARRAY_SIZE(ent); k++)
			if (!strncmp(out + i, ent[k], strlen(ent[k])))
				break;
		if (k == BG_ARRAY_SIZE(ent))
			fuzz_fail("HTML: a raw '&' at %zu", i);
		PUT("&<>\"'"[k]);
		i += strlen(ent[k]);
	}
	*ndec = nd;
}

/* Markdown inline text: escapes, entities and the word joiner after '@'. */
static void check_md(const char *out, char *dec, size_t *ndec)
{
	size_t i = 0, nd = 0;

	while (out[i]) {
		char c = out[i];

		if (c == '\\' && out[i + 1] && strchr("\\`*_[]|~", out[i + 1])) {
			PUT(out[i + 1]);
			i += 2;
		} else if (c == '\\' && (out[i + 1] == 'x' || out[i + 1] == 'u')) {
			/* The visible form of a control character: a literal backslash. */
			PUT(out[i++]);
		} else if (c == '\\' || strchr("`*_[]|~<>", c)) {
			fuzz_fail("MD: an unescaped '%c' at %zu", c, i);
		} else if (c == '&') {
			if (!strncmp(out + i, "&lt;", 4))
				PUT('<'), i += 4;
			else if (!strncmp(out + i, "&gt;", 4))
				PUT('>'), i += 4;
			else if (!strncmp(out + i, "&amp;", 5))
				PUT('&'), i += 5;
			else
				fuzz_fail("MD: a raw '&' at %zu", i);
		} else if (c == '@') {
			if (strncmp(out + i + 1, "\xE2\x81\xA0", 3))
				fuzz_fail("MD: an '@' without a word joiner at %zu", i);
			PUT('@');
			i += 4;
		} else {
			PUT(out[i++]);
		}
	}
	*ndec = nd;
}

/* A Markdown code span fit for a table cell. */
static void check_md_code(const char *s, const char *out, char *dec, size_t *ndec)
{
	size_t n = strlen(s), len = strlen(out), fence = 0, i, run = 0, nd = 0, end;

	if (strpbrk(s, "<>&")) {
		char *mid;

		if (strncmp(out, "<code>", 6) || len < 13 || strcmp(out + len - 7, "</code>"))
			fuzz_fail("MD_CODE: text with < > & is not set as <code>: %s", out);
		if (!(mid = strndup(out + 6, len - 13)))
			abort();
		check_md(mid, dec, ndec);
		free(mid);
		return;
	}
	/* Nothing is shown as nothing: "``" would read as two backticks. */
	if (!n) {
		if (len)
			fuzz_fail("MD_CODE: empty text shown as %s", out);
		*ndec = 0;
		return;
	}
	/* The fence is one backtick longer than the longest run in the text. */
	for (i = 0; s[i]; i++) {
		run = s[i] == '`' ? run + 1 : 0;
		if (run >= fence)
			fence = run + 1;
	}
	if (!fence)
		fence = 1;
	run = 0;
	if (len < 2 * fence || strspn(out, "`") < fence || strspn(out + len - fence, "`") != fence)
		fuzz_fail("MD_CODE: not fenced with %zu backticks: %s", fence, out);
	i = fence;
	end = len - fence;
	if (n && (s[0] == '`' || s[n - 1] == '`' || s[0] == ' ')) {
		if (end - i < 2 || out[i] != ' ' || out[end - 1] != ' ')
			fuzz_fail("MD_CODE: a backtick or space at an end is not padded: %s", out);
		i++, end--;
	}
	for (; i < end; i++) {
		run = out[i] == '`' ? run + 1 : 0;
		if (run >= fence)
			fuzz_fail("MD_CODE: a run of %zu backticks closes the span early", run);
		if (out[i] == '|' && (i == 0 || out[i - 1] != '\\'))
			fuzz_fail("MD_CODE: an unescaped '|' at %zu", i);
		if (out[i] == '\\' && out[i + 1] == '|' && i + 1 < end)
			continue; /* the escape of the '|' that follows */
		PUT(out[i]);
	}
	*ndec = nd;
}

/*
 * The length of the blank that starts s, as the GitHub Actions runner
 * trims it before it looks for "::" (a space, or U+00A0, U+1680, U+180E,
 * U+2000..U+200A, U+202F, U+205F, U+3000, U+FEFF in UTF-8); 0 if none.
 */
static size_t blank_len(const char *s)
{
	const unsigned char *u = (const unsigned char *)s;

	if (u[0] == ' ')
		return 1;
	if (u[0] == 0xC2 && u[1] == 0xA0)
		return 2;
	if ((u[0] == 0xE1 && u[1] == 0x9A && u[2] == 0x80) ||
	    (u[0] == 0xE1 && u[1] == 0xA0 && u[2] == 0x8E) ||
	    (u[0] == 0xE2 && u[1] == 0x80 && ((u[2] >= 0x80 && u[2] <= 0x8A) || u[2] == 0xAF)) ||
	    (u[0] == 0xE2 && u[1] == 0x81 && u[2] == 0x9F) ||
	    (u[0] == 0xE3 && u[1] == 0x80 && u[2] == 0x80) ||
	    (u[0] == 0xEF && u[1] == 0xBB && u[2] == 0xBF))
		return 3;
	return 0;
}

/* Whether the line at s (up to a '\n' or the end) is a workflow command:
 * "::" after blanks only, or "##[" anywhere. */
static int workflow_command(const char *s)
{
	const char *p = s;
	size_t k;

	while ((k = blank_len(p)) != 0)
		p += k;
	if (!strncmp(p, "::", 2))
		return 1;
	for (p = s; *p && *p != '\n'; p++)
		if (!strncmp(p, "##[", 3))
			return 1;
	return 0;
}

/*
 * What bg_text__invalid_name finds in a line of output, or NULL: Markdown
 * writes a word joiner (U+2060) after each '@' itself, and that one is no
 * fault.
 */
static const char *shown_fault(bg_esc where, const char *line, size_t n)
{
	size_t at, skip = 0;
	const char *why;

	while ((why = bg_text__invalid_name(line + skip, n - skip, &at)) != NULL) {
		if ((where != BG_ESC_MD && where != BG_ESC_MD_CODE) || skip + at == 0 ||
		    line[skip + at - 1] != '@' || strncmp(line + skip + at, "\xE2\x81\xA0", 3))
			return why;
		skip += at + 3;
	}
	return NULL;
}

/*
 * Every line of the output printable (TERM has one line; LOG keeps the
 * line breaks of the text and nothing else) and none a workflow command.
 */
static void check_lines(bg_esc where, const char *out, size_t len)
{
	const char *line = out, *nl, *why;

	for (;; line = nl + 1) {
		nl = memchr(line, '\n', len - (size_t)(line - out));
		if (nl && where != BG_ESC_LOG)
			fuzz_fail("%s: a line break in the output", where_names[where]);
		if ((why = shown_fault(where, line, nl ? (size_t)(nl - line) : strlen(line))))
			fuzz_fail("%s: the output has %s", where_names[where], why);
		if ((where == BG_ESC_TERM || where == BG_ESC_LOG) && workflow_command(line))
			fuzz_fail("%s: a line of the output is a workflow command",
			          where_names[where]);
		if (!nl)
			break;
	}
}

/* TERM and LOG: printable text itself, but "\\x3a" for the ':' of a "::"
 * that only blanks come before in it (TERM) or in a line of it (LOG), and
 * "\\x23" for the '#' of every "##[". */
static void check_log(bg_esc where, const char *s, const char *out, int printable)
{
	bg_buf want = BG_BUF_INIT;
	size_t i, k;
	int bol = 1;

	if (!printable)
		return;
	for (i = 0; s[i];) {
		if (bol && s[i] == ':' && s[i + 1] == ':') {
			bg_buf_puts(&want, "\\x3a");
			bol = 0;
			i++;
		} else if (s[i] == '#' && s[i + 1] == '#' && s[i + 2] == '[') {
			bg_buf_puts(&want, "\\x23");
			bol = 0;
			i++;
		} else if (s[i] == '\n') {
			bg_buf_put(&want, s + i, 1);
			bol = where == BG_ESC_LOG;
			i++;
		} else if (bol && (k = blank_len(s + i)) != 0) {
			bg_buf_put(&want, s + i, k);
			i += k;
		} else {
			bg_buf_put(&want, s + i, 1);
			bol = 0;
			i++;
		}
	}
	if (strcmp(want.ptr ? want.ptr : "", out))
		fuzz_fail("%s: printable text came out as %s", where_names[where], out);
	bg_buf_clear(&want);
}

static void check_escape(bg_esc where, const char *s)
{
	char *out = bg_text__escaped(where, s), *dec;
	size_t n = strlen(s), nd = 0, len;
	int printable = !bg_text__invalid_name(s, n, NULL);

	/* The log form keeps line breaks: text printable line by line comes back. */
	if (where == BG_ESC_LOG) {
		const char *line, *nl;

		for (printable = 1, line = s;; line = nl + 1) {
			nl = strchr(line, '\n');
			if (bg_text__invalid_name(line, nl ? (size_t)(nl - line) : strlen(line),
			                          NULL))
				printable = 0;
			if (!nl)
				break;
		}
	}

	if (!out)
		fuzz_fail("%s: no output", where_names[where]);
	len = strlen(out);
	check_lines(where, out, len);
	if (!(dec = malloc(len + 1)))
		abort();
	switch (where) {
	case BG_ESC_HTML:
		check_html(out, dec, &nd);
		break;
	case BG_ESC_MD:
		check_md(out, dec, &nd);
		break;
	case BG_ESC_MD_CODE:
		check_md_code(s, out, dec, &nd);
		break;
	default:
		check_log(where, s, out, printable);
		nd = n;
		memcpy(dec, s, n);
		break;
	}
	if (printable && (nd != n || memcmp(dec, s, n)))
		fuzz_fail("%s: printable text does not come back from its escaped form: %s",
		          where_names[where], out);
	free(dec);
	free(out);
}

/* A double from the input's bytes: any bit pattern, NaN and infinities too. */
static double bytes_double(const uint8_t *d, size_t n)
{
	double v = 0;

	memcpy(&v, d, n < sizeof(v) ? n : sizeof(v));
	return v;
}

static int same_double(double a, double b)
{
	return !(a < b) && !(a > b);
}

static void check_json(const uint8_t *d, size_t n, const char *s)
{
	json_object *root = json_object_new_object(), *arr = json_object_new_array(), *back = NULL,
	            *v, *inner, *parsed;
	json_tokener *tok;
	double dv = bytes_double(d, n);
	const char *out;
	int flags = JSON_C_TO_STRING_PLAIN;
	size_t depth = n ? d[0] % 48 : 0, i;

	if (!root || !arr)
		abort();
	if (n && (d[n - 1] & 1))
		flags = JSON_C_TO_STRING_PRETTY;
	if (n && (d[n - 1] & 2))
		flags |= JSON_C_TO_STRING_NOSLASHESCAPE;
	json_object_object_add(root, "s", json_object_new_string_len((const char *)d, (int)n));
	json_object_object_add(root, "d", json_object_new_double(dv));
	json_object_array_add(arr, json_object_new_double(-dv));
	json_object_array_add(
	        arr, json_object_new_string_len((const char *)d + n / 2, (int)(n - n / 2)));
	json_object_object_add(root, "a", arr);
	/* The input as a key too (baseline export writes facts and tags as keys). */
	v = json_object_new_object();
	json_object_object_add(v, s, json_object_new_string(s));
	json_object_object_add(root, "k", v);
	/* Nested, as far as a report goes and beyond. */
	inner = json_object_new_string_len((const char *)d, (int)n);
	for (i = 0; i < depth; i++) {
		v = i % 2 ? json_object_new_array() : json_object_new_object();
		if (i % 2)
			json_object_array_add(v, inner);
		else
			json_object_object_add(v, s, inner);
		inner = v;
	}
	json_object_object_add(root, "n", inner);
	/* The input read as JSON, keys and strings unchecked, if it is JSON. */
	if ((tok = json_tokener_new_ex(40))) {
		parsed = json_tokener_parse_ex(tok, (const char *)d, (int)n);
		if (parsed)
			json_object_object_add(root, "j", parsed);
		json_tokener_free(tok);
	}

	if (!(out = bg_text__json(root, flags)))
		fuzz_fail("JSON: no output");
	if (!fuzz_utf8_valid((const unsigned char *)out, strlen(out)))
		fuzz_fail("JSON: the output is not valid UTF-8: %s", out);
	if (!(tok = json_tokener_new_ex(128)))
		abort();
	back = json_tokener_parse_ex(tok, out, (int)strlen(out));
	if (!back || json_tokener_get_parse_end(tok) != strlen(out))
		fuzz_fail("JSON: the output does not parse back: %s",
		          json_tokener_error_desc(json_tokener_get_error(tok)));
	json_tokener_free(tok);

	if (!json_object_object_get_ex(back, "d", &v))
		fuzz_fail("JSON: \"d\" is gone");
	if (isfinite(dv) ? !same_double(json_object_get_double(v), dv) : v != NULL)
		fuzz_fail("JSON: the number %g came back as %s", dv, json_object_to_json_string(v));
	if (!json_object_object_get_ex(back, "s", &v) || !json_object_is_type(v, json_type_string))
		fuzz_fail("JSON: \"s\" is gone");
	if (fuzz_utf8_valid(d, n) &&
	    ((size_t)json_object_get_string_len(v) != n || memcmp(json_object_get_string(v), d, n)))
		fuzz_fail("JSON: a valid UTF-8 string did not come back byte for byte");
	json_object_put(back);
	json_object_put(root);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *s = malloc(size + 1);
	int where;

	if (!s)
		abort();
	memcpy(s, data, size);
	s[size] = '\0';
	check_invalid(data, size);
	for (where = BG_ESC_HTML; where <= BG_ESC_LOG; where++)
		check_escape((bg_esc)where, s);
	check_json(data, size, s);
	free(s);
	return 0;
}
