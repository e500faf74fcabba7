/*
 * text.c -- what text from outside may be, and how it is written out.
 *
 * Series names, units, projects, branches, commit subjects and receivers'
 * answers are written by other people and end up in a browser (the HTML
 * report), on a pull request (Markdown), in a CI log (where a line that
 * starts with "::", even after blanks, or holds "##[" is a workflow
 * command), on a terminal and in JSON.  The ingest side refuses what cannot
 * be a name (bg_text__invalid); the output side escapes everything for the
 * place it is printed (bg_text__escape), because a database written before
 * the ingest checks may hold anything.
 * The store binds what no check refused (a commit's subject, a benchmark's
 * stderr) as valid UTF-8 (bg_text__utf8_repair, from lib/store.c).
 *
 * Control characters are shown, never interpreted: "\x1b" for C0 and DEL,
 * "\u{202e}" for the C1 range, the bidirectional overrides and the Unicode
 * line separators; an invalid UTF-8 byte is shown as "\xNN" too.  So are
 * the characters that show nothing ("\u{200b}"): "pa<U+200B>rse" and "parse"
 * are two series and must not read as one.  A name may hold neither
 * (bg_text__invalid_name); free text, a commit's subject, may hold the
 * invisible ones (an emoji's U+FE0F), and they are shown all the same.
 *
 * Tables measure what they print in terminal columns (bg_text__columns).
 */
#include <locale.h>
#include <math.h>
#include <stdio.h>
#include <string.h>
#include <wchar.h>

#include <json-c/json.h>

#include "internal.h"

/*
 * Decodes one UTF-8 sequence at s[0..n); returns its length and the code
 * point, or 0 when the bytes are not well-formed (overlong forms,
 * surrogates and values past U+10FFFF are not).
 */
static size_t utf8_decode(const unsigned char *s, size_t n, uint32_t *cp)
{
	size_t len, i;
	uint32_t c, min;

	if (s[0] < 0x80) {
		*cp = s[0];
		return 1;
	}
	if ((s[0] & 0xE0) == 0xC0)
		len = 2, c = s[0] & 0x1F, min = 0x80;
	else if ((s[0] & 0xF0) == 0xE0)
		len = 3, c = s[0] & 0x0F, min = 0x800;
	else if ((s[0] & 0xF8) == 0xF0)
		len = 4, c = s[0] & 0x07, min = 0x10000;
	else
		return 0;
	if (len > n)
		return 0;
	for (i = 1; i < len; i++) {
		if ((s[i] & 0xC0) != 0x80)
			return 0;
		c = (c << 6) | (s[i] & 0x3F);
	}
	if (c < min || c > 0x10FFFF || (c >= 0xD800 && c <= 0xDFFF))
		return 0;
	*cp = c;
	return len;
}

/*
 * Code points that change how the text around them is shown: C0, DEL, C1,
 * the line and paragraph separators, and the bidirectional embeddings,
 * overrides and isolates (which can make a name read as another).
 */
static int is_control(uint32_t c)
{
	return c < 0x20 || (c >= 0x7F && c <= 0x9F) || c == 0x2028 || c == 0x2029 ||
	       (c >= 0x202A && c <= 0x202E) || (c >= 0x2066 && c <= 0x2069) || c == 0x200E ||
	       c == 0x200F || c == 0x061C;
}

/*
 * Code points that show nothing of their own, so that two names that differ
 * only in them read the same: Unicode's Default_Ignorable_Code_Point
 * (DerivedCoreProperties.txt: the soft hyphen, the combining grapheme
 * joiner, Hangul fillers, Khmer's inherent vowels, Mongolian and other
 * variation selectors, the zero-width space and joiners, the word joiner
 * and invisible operators, the byte order mark, tag characters, and the
 * blocks Unicode keeps for more of them), the interlinear annotation marks
 * (U+FFF9..U+FFFB) and the noncharacters.  glibc has no class for them, and
 * wcwidth()'s zero columns take in the combining accents a name may hold.
 * The emoji joiners (U+200D, U+FE0F) are among them: a name is an
 * identifier, and "a<U+FE0F>" must not pass for "a".
 */
static int is_invisible(uint32_t c)
{
	static const struct {
		uint32_t lo, hi;
	} ranges[] = {
		{ 0x00AD, 0x00AD },   { 0x034F, 0x034F },   { 0x061C, 0x061C },
		{ 0x115F, 0x1160 },   { 0x17B4, 0x17B5 },   { 0x180B, 0x180F },
		{ 0x200B, 0x200F },   { 0x202A, 0x202E },   { 0x2060, 0x206F },
		{ 0x3164, 0x3164 },   { 0xFE00, 0xFE0F },   { 0xFEFF, 0xFEFF },
		{ 0xFFA0, 0xFFA0 },   { 0xFFF0, 0xFFFB },   { 0x1BCA0, 0x1BCA3 },
		{ 0x1D173, 0x1D17A }, { 0xE0000, 0xE0FFF },
	};
	size_t i;

	/* Noncharacters: U+FDD0..U+FDEF and the last two of every plane. */
	if ((c >= 0xFDD0 && c <= 0xFDEF) || (c & 0xFFFE) == 0xFFFE)
		return 1;
	for (i = 0; i < BG_ARRAY_SIZE(ranges); i++)
		if (c >= ranges[i].lo && c <= ranges[i].hi)
			return 1;
	return 0;
}

/* What every place text is printed shows as "\u{...}" or "\xNN". */
static int is_hidden(uint32_t c)
{
	return is_control(c) || is_invisible(c);
}

/* The first fault in s[0..n): invalid UTF-8, a control character, and for
 * a name an invisible one. */
static const char *invalid(const char *s, size_t n, int name, size_t *at)
{
	const unsigned char *u = (const unsigned char *)s;
	size_t i = 0, len;
	const char *why = NULL;
	uint32_t c;

	while (i < n && !why) {
		if (!(len = utf8_decode(u + i, n - i, &c)))
			why = "invalid UTF-8";
		else if (is_control(c))
			why = "a control character";
		else if (name && is_invisible(c))
			why = "an invisible character";
		else
			i += len;
	}
	if (why && at)
		*at = i;
	return why;
}

const char *bg_text__invalid(const char *s, size_t n, size_t *at)
{
	return invalid(s, n, 0, at);
}

const char *bg_text__invalid_name(const char *s, size_t n, size_t *at)
{
	return invalid(s, n, 1, at);
}

int bg_text__ok(const char *s)
{
	return s && !bg_text__invalid_name(s, strlen(s), NULL);
}

/* The visible form of a control or invisible character, or of a stray byte. */
static int put_visible(bg_buf *b, uint32_t c, int byte)
{
	if (byte || c < 0x80)
		return bg_buf_printf(b, "\\x%02x", (unsigned)c);
	return bg_buf_printf(b, "\\u{%04x}", (unsigned)c);
}

/*
 * What .NET's TrimStart() takes off a line before the GitHub Actions runner
 * looks for "::" (Char.IsWhiteSpace, less the control characters, which are
 * shown and so are no longer blank): "  ::error::x" is a workflow command too.
 */
static int is_blank_cp(uint32_t c)
{
	return c == ' ' || c == 0xA0 || c == 0x1680 || c == 0x180E ||
	       (c >= 0x2000 && c <= 0x200A) || c == 0x202F || c == 0x205F || c == 0x3000 ||
	       c == 0xFEFF;
}

/* Markdown: what a backslash must make literal in inline text that never
 * starts a line (a table cell, a list item's tail). */
static int md_punct(unsigned char c)
{
	return c && strchr("\\`*_[]|~", c) != NULL;
}

/* The longest run of backticks in s (a code span's fence must be longer). */
static size_t longest_backticks(const char *s)
{
	size_t best = 0, run = 0;

	for (; *s; s++) {
		run = *s == '`' ? run + 1 : 0;
		if (run > best)
			best = run;
	}
	return best;
}

int bg_text__escape(bg_buf *b, bg_esc where, const char *s)
{
	const unsigned char *u = (const unsigned char *)(s ? s : "");
	size_t n = strlen((const char *)u), i = 0, len, fence = 0, k;
	/* Only blanks so far on a line that the data starts (terminal, log). */
	int e = 0, bol = where == BG_ESC_TERM || where == BG_ESC_LOG;
	uint32_t c;

	/*
	 * In CommonMark an HTML tag outranks a code span: "`<a href="`">`"
	 * is a link.  Text with '<', '>' or '&' is set as <code> around
	 * escaped inline text instead, where entities keep the markup inert.
	 */
	if (where == BG_ESC_MD_CODE && s && strpbrk(s, "<>&")) {
		e |= bg_buf_puts(b, "<code>");
		e |= bg_text__escape(b, BG_ESC_MD, s);
		e |= bg_buf_puts(b, "</code>");
		return e ? BG_ENOMEM : 0;
	}

	if (where == BG_ESC_MD_CODE && !n)
		return bg_buf_put(b, "", 0) ? BG_ENOMEM : 0;
	if (where == BG_ESC_MD_CODE) {
		/* A fence longer than any run inside; a space pads a backtick at either end. */
		fence = longest_backticks((const char *)u) + 1;
		for (k = 0; k < fence; k++)
			e |= bg_buf_puts(b, "`");
		if (n && (u[0] == '`' || u[n - 1] == '`' || u[0] == ' '))
			e |= bg_buf_puts(b, " ");
	}
	while (i < n && !e) {
		/*
		 * A CI log line that data starts must not read as a workflow
		 * command: the runner takes "::" after leading blanks, and the
		 * legacy "##[error]" (or "##[stop-commands]") anywhere in a line.
		 */
		if (bol && u[i] == ':' && u[i + 1] == ':') {
			e |= bg_buf_puts(b, "\\x3a");
			bol = 0;
			i++;
			continue;
		}
		if ((where == BG_ESC_TERM || where == BG_ESC_LOG) && u[i] == '#' &&
		    u[i + 1] == '#' && u[i + 2] == '[') {
			e |= bg_buf_puts(b, "\\x23");
			bol = 0;
			i++;
			continue;
		}
		if ((where == BG_ESC_LOG || where == BG_ESC_XML) && u[i] == '\n') {
			e |= bg_buf_puts(b, "\n");
			bol = where == BG_ESC_LOG;
			i++;
			continue;
		}
		if (!(len = utf8_decode(u + i, n - i, &c))) {
			e |= put_visible(b, u[i], 1);
			bol = 0;
			i++;
			continue;
		}
		/* A blank shown as "\u{feff}" is no longer one. */
		bol = bol && !is_hidden(c) && is_blank_cp(c);
		/* The noncharacters take in U+FFFE and U+FFFF, which XML 1.0
		 * cannot carry even as references. */
		if (is_hidden(c)) {
			e |= put_visible(b, c, 0);
		} else if (where == BG_ESC_HTML && c && c < 0x80 && strchr("&<>\"'", (int)c)) {
			/* c < 0x80: strchr compares one byte, and U+2626 is not '&'. */
			static const char *const ent[] = { "&amp;", "&lt;", "&gt;", "&quot;",
				                           "&#39;" };
			e |= bg_buf_puts(b, ent[strchr("&<>\"'", (int)c) - "&<>\"'"]);
		} else if (where == BG_ESC_MD && (c == '<' || c == '>' || c == '&')) {
			e |= bg_buf_puts(b, c == '<' ? "&lt;" : c == '>' ? "&gt;" : "&amp;");
		} else if (where == BG_ESC_MD && c < 0x80 && md_punct((unsigned char)c)) {
			e |= bg_buf_printf(b, "\\%c", (char)c);
		} else if (where == BG_ESC_MD && c == '@') {
			/* A word joiner after '@' keeps "@user" from notifying anyone. */
			e |= bg_buf_put(b, u + i, 1);
			e |= bg_buf_puts(b, "\xE2\x81\xA0");
		} else if (where == BG_ESC_MD_CODE && c == '|') {
			/* GFM tables split cells at '|' even inside a code span. */
			e |= bg_buf_puts(b, "\\|");
		} else {
			e |= bg_buf_put(b, u + i, len);
		}
		i += len;
	}
	if (where == BG_ESC_MD_CODE) {
		if (n && (u[0] == '`' || u[n - 1] == '`' || u[0] == ' '))
			e |= bg_buf_puts(b, " ");
		for (k = 0; k < fence; k++)
			e |= bg_buf_puts(b, "`");
	}
	if (!b->ptr && !e)
		e |= bg_buf_put(b, "", 0);
	return e ? BG_ENOMEM : 0;
}

char *bg_text__escaped(bg_esc where, const char *s)
{
	bg_buf b = BG_BUF_INIT;

	if (bg_text__escape(&b, where, s) < 0) {
		bg_buf_clear(&b);
		return NULL;
	}
	return bg_buf_detach(&b);
}

/*
 * glibc's wcwidth() knows East Asian wide characters (two columns) and
 * combining marks (none) only under a UTF-8 LC_CTYPE, which the program may
 * not have set (LANG=C, or a library host that never calls setlocale).
 * C.UTF-8 is taken for this thread alone, for the time of the measurement:
 * a library does not change its host's locale.  Where there is no such
 * locale, wcwidth() knows ASCII only and every other character counts one
 * column, as it did before.
 */
void bg_text__columns(const char *const *s, size_t n, size_t *cols)
{
	locale_t utf8 = newlocale(LC_CTYPE_MASK, "C.UTF-8", (locale_t)0), prev = (locale_t)0;
	size_t k, i, len;
	uint32_t c;
	int w;

	if (utf8)
		prev = uselocale(utf8);
	for (k = 0; k < n; k++) {
		const unsigned char *u = (const unsigned char *)(s[k] ? s[k] : "");
		size_t left = strlen((const char *)u);

		cols[k] = 0;
		for (i = 0; i < left; i += len) {
			/* A stray byte is shown as one character where it is shown at all. */
			if (!(len = utf8_decode(u + i, left - i, &c))) {
				len = 1;
				cols[k]++;
				continue;
			}
			/* -1: not printable here (unassigned, or no UTF-8 locale). */
			w = wcwidth((wchar_t)c);
			cols[k] += w < 0 ? 1 : (size_t)w;
		}
	}
	if (utf8) {
		uselocale(prev);
		freelocale(utf8);
	}
}

/* Bytes of s escaped at most, and characters of the escaped form shown. */
#define QUOTE_IN 256
#define QUOTE_OUT 64

size_t bg_text__char_start(const char *s, size_t n)
{
	while (n > 0 && ((unsigned char)s[n] & 0xC0) == 0x80)
		n--;
	return n;
}

size_t bg_text__char_next(const char *s, size_t i, size_t len)
{
	while (i < len && ((unsigned char)s[i] & 0xC0) == 0x80)
		i++;
	return i;
}

const char *bg_text__quote(char *buf, size_t size, const char *s)
{
	return bg_text__quote_n(buf, size, s, strlen(s));
}

const char *bg_text__quote_n(char *buf, size_t size, const char *s, size_t n)
{
	char in[QUOTE_IN + 1];
	bg_buf b = BG_BUF_INIT;
	size_t cut, chars = 0, i, k;
	int more = 0, e = 0;

	/* A prefix, cut where a character starts, is all a message shows. */
	if (n > QUOTE_IN) {
		n = bg_text__char_start(s, QUOTE_IN);
		more = 1;
	}
	memcpy(in, s, n);
	in[n] = '\0';
	/* NUL bytes (a JSON "\u0000") end the pieces bg_text__escape sees. */
	for (k = 0; k <= n && !e; k += strlen(in + k) + 1) {
		if (k)
			e |= bg_buf_puts(&b, "\\x00");
		e |= bg_text__escape(&b, BG_ESC_TERM, in + k);
	}
	if (e || !b.ptr) {
		bg_buf_clear(&b);
		snprintf(buf, size, "\"...\"");
		return buf;
	}
	/* The escaped text is valid UTF-8: count characters, not bytes. */
	for (i = 0; i < b.len; i++) {
		if (((unsigned char)b.ptr[i] & 0xC0) != 0x80 && chars++ == QUOTE_OUT)
			break;
	}
	cut = i;
	if (cut < b.len)
		more = 1;
	/* And what fits in buf with its quotes (and "…"): cut where a
	 * character starts, not where snprintf would stop. */
	if (size >= 6 && cut + 3 + (more ? 3 : 0) > size) {
		more = 1;
		cut = bg_text__char_start(b.ptr, size - 6);
	}
	snprintf(buf, size, "\"%.*s%s\"", (int)cut, b.ptr, more ? "\u2026" : "");
	bg_buf_clear(&b);
	return buf;
}

/* Whether s[0..n) is well-formed UTF-8 (NUL and control characters are:
 * JSON escapes those). */
int bg_text__utf8_valid(const char *s, size_t n)
{
	size_t i = 0, len;
	uint32_t c;

	while (i < n) {
		if (!(len = utf8_decode((const unsigned char *)s + i, n - i, &c)))
			return 0;
		i += len;
	}
	return 1;
}

/* s[0..n) with each stray byte replaced by U+FFFD. */
int bg_text__utf8_repair(bg_buf *b, const char *s, size_t n)
{
	size_t i = 0, len;
	uint32_t c;
	int e = 0;

	while (i < n && !e) {
		if (!(len = utf8_decode((const unsigned char *)s + i, n - i, &c))) {
			e |= bg_buf_puts(b, "\xEF\xBF\xBD");
			i++;
		} else {
			e |= bg_buf_put(b, s + i, len);
			i += len;
		}
	}
	return e || bg_buf_put(b, "", 0) ? BG_ENOMEM : 0;
}

/* Deeper than any tree benchguard builds; a deeper one is refused. */
#define JSON_TIDY_DEPTH 256

static int json_tidy(json_object *o, int depth);

/* A member or element as JSON may hold it: NULL for a non-finite number. */
static int json_tidy_value(json_object *val, int depth, int *drop)
{
	*drop = json_object_is_type(val, json_type_double) &&
	        !isfinite(json_object_get_double(val));
	return *drop ? 0 : json_tidy(val, depth + 1);
}

/* An object's keys as valid UTF-8: a key with stray bytes is re-added
 * under its repaired name (after the loop: foreach must not see it). */
static int json_tidy_keys(json_object *o)
{
	char **bad = NULL;
	size_t n = 0, cap = 0, i;
	int e = 0;

	json_object_object_foreach(o, key, val)
	{
		(void)val;
		if (!bg_text__utf8_valid(key, strlen(key))) {
			if (bg_grow((void **)&bad, &cap, n + 1, sizeof(*bad)) < 0 ||
			    !(bad[n] = strdup(key))) {
				e = 1;
				break;
			}
			n++;
		}
	}
	for (i = 0; i < n && !e; i++) {
		json_object *v = json_object_get(json_object_object_get(o, bad[i]));
		bg_buf fixed = BG_BUF_INIT;

		json_object_object_del(o, bad[i]);
		if (bg_text__utf8_repair(&fixed, bad[i], strlen(bad[i])) < 0 ||
		    json_object_object_add(o, fixed.ptr, v) < 0) {
			json_object_put(v);
			e = 1;
		}
		bg_buf_clear(&fixed);
	}
	for (i = 0; i < n; i++)
		free(bad[i]);
	free(bad);
	return e ? BG_ENOMEM : 0;
}

/*
 * JSON out: keys and strings as valid UTF-8 (a stray byte becomes U+FFFD),
 * numbers finite (null otherwise), whatever the tree was built from.
 */
static int json_tidy(json_object *o, int depth)
{
	int drop;

	if (depth > JSON_TIDY_DEPTH)
		return BG_EINPUT;
	switch (json_object_get_type(o)) {
	case json_type_object: {
		if (json_tidy_keys(o) < 0)
			return BG_ENOMEM;
		json_object_object_foreach(o, key, val)
		{
			int e = json_tidy_value(val, depth, &drop);

			if (e < 0)
				return e;
			/* Replacing a member's value in place leaves the table as is. */
			if (drop && json_object_object_add(o, key, NULL) < 0)
				return BG_ENOMEM;
		}
		return 0;
	}
	case json_type_array: {
		size_t i, n = json_object_array_length(o);

		for (i = 0; i < n; i++) {
			int e = json_tidy_value(json_object_array_get_idx(o, i), depth, &drop);

			if (e < 0)
				return e;
			if (drop && json_object_array_put_idx(o, i, NULL) < 0)
				return BG_ENOMEM;
		}
		return 0;
	}
	case json_type_string: {
		const char *s = json_object_get_string(o);
		size_t n = (size_t)json_object_get_string_len(o);
		bg_buf b = BG_BUF_INIT;
		int e;

		if (bg_text__utf8_valid(s, n))
			return 0;
		e = bg_text__utf8_repair(&b, s, n);
		if (!e && !json_object_set_string_len(o, b.ptr, (int)b.len))
			e = BG_ENOMEM;
		bg_buf_clear(&b);
		return e;
	}
	default:
		return 0;
	}
}

const char *bg_text__json(json_object *o, int flags)
{
	if (json_tidy(o, 0) < 0)
		return NULL;
	return json_object_to_json_string_ext(o, flags);
}

int bg_text__decimal(const char *s, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++)
		if (!strchr("0123456789+-.eE", s[i]) || !s[i])
			return 0;
	return n > 0;
}
