/*
 * config.c -- loading and checking benchguard.json.
 *
 * json-c parses the file (its non-strict mode accepts // and slash-star
 * comments), but it keeps no positions and silently keeps the last of two
 * equal keys.  A small scanner therefore walks the raw text once more and
 * builds a position tree: for every object member and array element, the
 * line where its key (or the element) starts and the bytes of its value.
 * Checking then walks json-c's objects and the position tree side by side,
 * so that every complaint names "<file>:<line>: <key path>: <what is wrong>".
 *
 * Everything a bg_config hands out lives in one arena that bg_config_free
 * releases at once; strings of alert targets are kept as written (${VAR} is
 * expanded at use by bg_config_expand).  Their secrets, expanded once, go
 * to the context, which replaces them in what the suite prints
 * (register_secrets).
 */
#include <ctype.h>
#include <limits.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <json-c/json.h>

#include "internal.h"

/* Counts larger than this are typos (1e6 samples of a benchmark is not a plan). */
#define MAX_COUNT 1000000
/* Room for a key path in a message, e.g. "benchmarks[3].metrics.wall_time.direction". */
#define PATH_SIZE 256
/* A configuration is a few kilobytes; a file far larger is not one. */
#define CONFIG_MAX ((size_t)4 << 20)

/* ------------------------------------------------------------------ arena */

struct chunk {
	struct chunk *next;
	size_t cap, used; /* in units of max_align_t */
	max_align_t data[];
};

static void *arena_alloc(struct chunk **head, size_t size)
{
	size_t units = size / sizeof(max_align_t) + 1, cap;
	struct chunk *c = *head;
	void *p;

	if (size > SIZE_MAX / 2)
		return NULL;
	if (!c || c->cap - c->used < units) {
		cap = units > 256 ? units : 256;
		c = calloc(1, sizeof(*c) + cap * sizeof(max_align_t));
		if (!c)
			return NULL;
		c->cap = cap;
		c->next = *head;
		*head = c;
	}
	p = c->data + c->used;
	c->used += units;
	return p;
}

static void *arena_array(struct chunk **head, size_t n, size_t size)
{
	if (n && size > SIZE_MAX / 4 / n)
		return NULL;
	return arena_alloc(head, n * size);
}

static char *arena_strdup(struct chunk **head, const char *s)
{
	size_t n = strlen(s) + 1;
	char *p = arena_alloc(head, n);

	if (p)
		memcpy(p, s, n);
	return p;
}

static void arena_free(struct chunk *c)
{
	while (c) {
		struct chunk *next = c->next;
		free(c);
		c = next;
	}
}

/* ------------------------------------------------------------------ types */

struct bg_config {
	const char *path;
	const char *project, *build;
	const char *database; /* as written: ${VAR} is expanded when opened */
	bg_baseline_cfg baseline;
	bg_thresholds thresholds;
	bg_confirm_cfg confirm;
	bg_benchmark *benchmarks;
	size_t nbenchmarks;
	bg_alert_cfg *alerts;
	size_t nalerts;
	struct chunk *mem;
};

/* Where a value sits in the text: one node per object member / array element. */
struct pos {
	char *key;         /* the member's key, decoded; NULL for the root and elements */
	int line;          /* where the key (or the element) starts */
	size_t start, end; /* the value's bytes */
	struct pos *kids;  /* members in file order, or elements */
	size_t nkids, cap;
};

struct scan {
	const char *s;
	size_t len, i;
	int line;
	int diag;  /* json-c already failed: we only look for a better explanation */
	int depth; /* containers open around the current value: at most BG_JSON_DEPTH */
	int eline; /* the first problem found */
	int eterm; /* it is an unterminated string/comment/container */
	char emsg[512];
};

struct loader {
	bg_ctx *ctx;
	const char *name; /* the file, as messages show it */
	const char *text;
	size_t len;
	bg_config *cfg;
};

/* The "defaults" object, resolved; benchmarks start from it. */
struct run_defaults {
	int warmup, samples;
	double timeout;
	const bg_measure *measure; /* NULL: time alone */
	size_t nmeasure;
	const char *const *events; /* NULL: the default counters */
	size_t nevents;
	int kernel;
};

/* --------------------------------------------------------- message pieces */

/* s as a one-line quoted string for a message, shortened when long. */
static const char *quote(char *buf, size_t n, const char *s)
{
	size_t o = 0;

	buf[o++] = '"';
	for (; *s; s++) {
		unsigned char c = (unsigned char)*s;

		if (o + 10 >= n) {
			memcpy(buf + o, "...", 3);
			o += 3;
			break;
		}
		if (c == '"' || c == '\\') {
			buf[o++] = '\\';
			buf[o++] = (char)c;
		} else if (c == '\n') {
			buf[o++] = '\\';
			buf[o++] = 'n';
		} else if (c == '\t') {
			buf[o++] = '\\';
			buf[o++] = 't';
		} else if (c < 0x20 || c == 0x7f) {
			o += (size_t)snprintf(buf + o, n - o, "\\x%02x", c);
		} else {
			buf[o++] = (char)c;
		}
	}
	buf[o++] = '"';
	buf[o] = '\0';
	return buf;
}

/* Object keys that read well after a dot; anything else is shown as ["key"]. */
static int plain_key(const char *k)
{
	if (!*k || isdigit((unsigned char)*k))
		return 0;
	for (; *k; k++)
		if (!isalnum((unsigned char)*k) && *k != '_' && *k != '-')
			return 0;
	return 1;
}

/* Paths only go into messages: a very long one is cut short, which is harmless. */
static void path_join(char *dst, size_t n, const char *parent, const char *sep, const char *part,
                      const char *end)
{
	const char *pieces[4];
	size_t o = 0, i;

	pieces[0] = parent;
	pieces[1] = sep;
	pieces[2] = part;
	pieces[3] = end;
	for (i = 0; i < 4; i++) {
		const char *c = pieces[i];

		for (; *c && o + 1 < n; c++)
			dst[o++] = *c;
	}
	dst[o] = '\0';
}

static void path_key(char *dst, size_t n, const char *parent, const char *key)
{
	char q[96];

	if (plain_key(key))
		path_join(dst, n, parent, *parent ? "." : "", key, "");
	else
		path_join(dst, n, parent, "[", quote(q, sizeof(q), key), "]");
}

static void path_index(char *dst, size_t n, const char *parent, size_t i)
{
	char num[32];

	snprintf(num, sizeof(num), "%zu", i);
	path_join(dst, n, parent, "[", num, "]");
}

/* Optimal string alignment distance (a swap of two letters counts once). */
static size_t edit_distance(const char *a, const char *b)
{
	size_t la = strlen(a), lb = strlen(b), i, j, d = 0;
	size_t *rows;

	if (la > 64 || lb > 64)
		return SIZE_MAX;
	rows = malloc(3 * (lb + 1) * sizeof(*rows));
	if (!rows)
		return SIZE_MAX;
	/* rows: [0] two rows back, [1] previous row, [2] current row */
	for (j = 0; j <= lb; j++)
		rows[lb + 1 + j] = j;
	for (i = 1; i <= la; i++) {
		size_t *pp = rows, *prev = rows + lb + 1, *cur = rows + 2 * (lb + 1);

		cur[0] = i;
		for (j = 1; j <= lb; j++) {
			size_t cost = a[i - 1] != b[j - 1], best = prev[j - 1] + cost;

			if (prev[j] + 1 < best)
				best = prev[j] + 1;
			if (cur[j - 1] + 1 < best)
				best = cur[j - 1] + 1;
			if (i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1] &&
			    pp[j - 2] + 1 < best)
				best = pp[j - 2] + 1;
			cur[j] = best;
		}
		memmove(pp, prev, 2 * (lb + 1) * sizeof(*rows));
	}
	d = rows[lb + 1 + lb];
	free(rows);
	return d;
}

/* The known key closest to an unknown one, when it is close enough to be a typo. */
static const char *suggest(const char *key, const char *const *known, size_t n)
{
	const char *best = NULL;
	size_t bestd = 3, i;

	for (i = 0; i < n; i++) {
		size_t d = edit_distance(key, known[i]);
		size_t longest = strlen(key) > strlen(known[i]) ? strlen(key) : strlen(known[i]);

		/* Two edits turn any two-letter word into any other: not a typo. */
		if (d < bestd && 2 * d <= longest) {
			best = known[i];
			bestd = d;
		}
	}
	return best;
}

/* -------------------------------------------------------------- scanner */

static void pos_free(struct pos *p)
{
	size_t i;

	for (i = 0; i < p->nkids; i++)
		pos_free(&p->kids[i]);
	free(p->kids);
	free(p->key);
	memset(p, 0, sizeof(*p));
}

static struct pos *pos_add(struct pos *p)
{
	if (bg_grow((void **)&p->kids, &p->cap, p->nkids, sizeof(*p->kids)) < 0)
		return NULL;
	memset(&p->kids[p->nkids], 0, sizeof(p->kids[0]));
	return &p->kids[p->nkids++];
}

static const struct pos *pos_member(const struct pos *p, const char *key)
{
	size_t i;

	for (i = 0; i < p->nkids; i++)
		if (p->kids[i].key && !strcmp(p->kids[i].key, key))
			return &p->kids[i];
	return NULL;
}

static void scan_init(struct scan *sc, const char *s, size_t len, int diag)
{
	memset(sc, 0, sizeof(*sc));
	sc->s = s;
	sc->len = len;
	sc->line = 1;
	sc->diag = diag;
}

static int scan_fail(struct scan *sc, int line, int term, const char *fmt, ...) BG_PRINTF(4, 5);

static int scan_fail(struct scan *sc, int line, int term, const char *fmt, ...)
{
	va_list ap;

	sc->eline = line;
	sc->eterm = term;
	va_start(ap, fmt);
	vsnprintf(sc->emsg, sizeof(sc->emsg), fmt, ap);
	va_end(ap);
	return -1;
}

/* The line of the last character that is not blank: where "end of file" is. */
static int last_line(const char *s, size_t len)
{
	while (len > 0 && isspace((unsigned char)s[len - 1]))
		len--;
	return bg_line_of(s, len, len ? len - 1 : 0);
}

static int scan_eof(struct scan *sc, char open, int open_line)
{
	return scan_fail(sc, last_line(sc->s, sc->len), 1,
	                 "unexpected end of file (\"%c\" at line %d is not closed)", open,
	                 open_line);
}

static int scan_unexpected(struct scan *sc, const char *where)
{
	unsigned char c = (unsigned char)sc->s[sc->i];

	if (isgraph(c))
		return scan_fail(sc, sc->line, 0, "unexpected '%c' %s", c, where);
	return scan_fail(sc, sc->line, 0, "unexpected byte 0x%02x %s", c, where);
}

/* Whitespace and both kinds of comment, as json-c's non-strict mode takes them. */
static int skip_space(struct scan *sc)
{
	while (sc->i < sc->len) {
		char c = sc->s[sc->i];
		char next = sc->i + 1 < sc->len ? sc->s[sc->i + 1] : '\0';

		if (c == '\n') {
			sc->line++;
			sc->i++;
		} else if (c == ' ' || c == '\t' || c == '\r' || c == '\f' || c == '\v') {
			sc->i++;
		} else if (c == '/' && next == '/') {
			while (sc->i < sc->len && sc->s[sc->i] != '\n')
				sc->i++;
		} else if (c == '/' && next == '*') {
			int start = sc->line;

			sc->i += 2;
			for (;;) {
				if (sc->i + 1 >= sc->len)
					return scan_fail(sc, start, 1, "unterminated comment");
				if (sc->s[sc->i] == '*' && sc->s[sc->i + 1] == '/')
					break;
				if (sc->s[sc->i] == '\n')
					sc->line++;
				sc->i++;
			}
			sc->i += 2;
		} else {
			break;
		}
	}
	return 0;
}

/*
 * A string in either quote.  json-c takes a raw newline inside a string, so a
 * valid file may have one; when json-c has failed, a raw newline is far more
 * likely a missing closing quote, and saying so beats json-c's complaint
 * about some later line.
 */
static int scan_string(struct scan *sc)
{
	char q = sc->s[sc->i];
	int start = sc->line;

	for (sc->i++; sc->i < sc->len; sc->i++) {
		char c = sc->s[sc->i];

		if (c == q) {
			sc->i++;
			return 0;
		}
		if (c == '\\' && sc->i + 1 < sc->len)
			c = sc->s[++sc->i];
		if (c == '\n') {
			if (sc->diag)
				return scan_fail(sc, start, 1, "unterminated string");
			sc->line++;
		}
	}
	return scan_fail(sc, start, 1, "unterminated string");
}

/*
 * The decoded text of the string at [start, end): json-c does the escapes.
 * *nul is set when the text holds a NUL (`\u0000`, or the byte itself),
 * which a C string would cut short: "build\u0000x" read as "build".
 */
static char *decode_string(const char *s, size_t start, size_t end, int *nul)
{
	struct json_tokener *tok;
	json_object *o;
	char *out = NULL;

	*nul = 0;
	if (s[start] == '"' && !memchr(s + start, '\\', end - start)) {
		if (memchr(s + start, '\0', end - start)) {
			*nul = 1;
			return NULL;
		}
		out = malloc(end - start - 1);
		if (out) {
			memcpy(out, s + start + 1, end - start - 2);
			out[end - start - 2] = '\0';
		}
		return out;
	}
	tok = json_tokener_new_ex(BG_JSON_DEPTH);
	if (!tok)
		return NULL;
	o = json_tokener_parse_ex(tok, s + start, (int)(end - start));
	if (o && json_object_is_type(o, json_type_string)) {
		const char *text = json_object_get_string(o);
		size_t len = (size_t)json_object_get_string_len(o);

		if (memchr(text, '\0', len))
			*nul = 1;
		else
			out = strdup(text);
	}
	json_object_put(o);
	json_tokener_free(tok);
	return out;
}

static int scan_value(struct scan *sc, struct pos *p, const char *path);

/* Member i of the object is `key`. */
static int same_key(const void *set, size_t i, const void *key)
{
	return !strcmp(((const struct pos *)set)->kids[i].key, key);
}

/*
 * 1 when `key` is a member of p already; else 0, and it will be the next
 * one (p->nkids); -1 out of memory.  The keys are indexed by hash: a walk
 * over the members before each new key would be quadratic, and a 4 MiB
 * config of one object with 300,000 keys took minutes.
 */
static int key_seen(bg_index *ks, const struct pos *p, const char *key)
{
	uint64_t h = bg_index__hash(key, NULL);

	if (bg_index__find(ks, h, same_key, p, key) != BG_INDEX_NONE)
		return 1;
	return bg_index__add(ks, h, p->nkids) < 0 ? -1 : 0;
}

static int scan_object_in(struct scan *sc, struct pos *p, const char *path, bg_index *ks);

static int scan_object(struct scan *sc, struct pos *p, const char *path)
{
	bg_index ks = { 0 };
	int rc = scan_object_in(sc, p, path, &ks);

	bg_index__free(&ks);
	return rc;
}

static int scan_object_in(struct scan *sc, struct pos *p, const char *path, bg_index *ks)
{
	int open_line = sc->line;
	char kpath[PATH_SIZE], q[96];

	sc->i++;
	for (;;) {
		struct pos *kid;
		size_t kstart;
		int kline;
		char *key = NULL;

		if (skip_space(sc) < 0)
			return -1;
		if (sc->i >= sc->len)
			return scan_eof(sc, '{', open_line);
		if (sc->s[sc->i] == '}')
			break;
		if (sc->s[sc->i] != '"' && sc->s[sc->i] != '\'')
			return scan_unexpected(sc, "where a quoted key was expected");
		kstart = sc->i;
		kline = sc->line;
		if (scan_string(sc) < 0)
			return -1;
		if (!sc->diag) {
			int seen, nul;

			key = decode_string(sc->s, kstart, sc->i, &nul);
			if (!key && nul)
				return scan_fail(sc, kline, 0,
				                 "%s%sa key must not contain a NUL character", path,
				                 *path ? ": " : "");
			if (!key)
				return scan_fail(sc, kline, 0, "cannot decode this key");
			if ((seen = key_seen(ks, p, key)) != 0) {
				if (seen < 0)
					scan_fail(sc, kline, 0, "out of memory");
				else
					scan_fail(sc, kline, 0, "%s%sduplicate key %s", path,
					          *path ? ": " : "", quote(q, sizeof(q), key));
				free(key);
				return -1;
			}
		}
		kid = pos_add(p);
		if (!kid) {
			free(key);
			return scan_fail(sc, kline, 0, "out of memory");
		}
		kid->key = key;
		kid->line = kline;
		if (skip_space(sc) < 0)
			return -1;
		if (sc->i >= sc->len)
			return scan_eof(sc, '{', open_line);
		if (sc->s[sc->i] != ':')
			return scan_unexpected(sc, "where ':' was expected after a key");
		sc->i++;
		if (skip_space(sc) < 0)
			return -1;
		path_key(kpath, sizeof(kpath), path, key ? key : "?");
		if (scan_value(sc, kid, kpath) < 0)
			return -1;
		if (skip_space(sc) < 0)
			return -1;
		if (sc->i >= sc->len)
			return scan_eof(sc, '{', open_line);
		if (sc->s[sc->i] == ',') {
			sc->i++;
			continue;
		}
		if (sc->s[sc->i] == '}')
			break;
		return scan_unexpected(sc, "where ',' or '}' was expected");
	}
	sc->i++;
	return 0;
}

static int scan_array(struct scan *sc, struct pos *p, const char *path)
{
	int open_line = sc->line;
	char epath[PATH_SIZE];

	sc->i++;
	for (;;) {
		struct pos *kid;

		if (skip_space(sc) < 0)
			return -1;
		if (sc->i >= sc->len)
			return scan_eof(sc, '[', open_line);
		if (sc->s[sc->i] == ']')
			break;
		kid = pos_add(p);
		if (!kid)
			return scan_fail(sc, sc->line, 0, "out of memory");
		kid->line = sc->line;
		path_index(epath, sizeof(epath), path, p->nkids - 1);
		if (scan_value(sc, kid, epath) < 0)
			return -1;
		if (skip_space(sc) < 0)
			return -1;
		if (sc->i >= sc->len)
			return scan_eof(sc, '[', open_line);
		if (sc->s[sc->i] == ',') {
			sc->i++;
			continue;
		}
		if (sc->s[sc->i] == ']')
			break;
		return scan_unexpected(sc, "where ',' or ']' was expected");
	}
	sc->i++;
	return 0;
}

/* A byte that ends a bare word (number or literal). */
static int delimiter(char c)
{
	return isspace((unsigned char)c) || strchr(",:[]{}\"'/", c) != NULL;
}

/*
 * The scanner recurses once per container, so nesting is bounded as json-c's
 * is (the same BG_JSON_DEPTH levels): 50,000 '[' must be a message, not a
 * stack overflow.
 */
static int scan_value(struct scan *sc, struct pos *p, const char *path)
{
	int r = 0;

	p->start = sc->i;
	if (sc->i >= sc->len)
		return scan_fail(sc, last_line(sc->s, sc->len), 1, "unexpected end of file");
	switch (sc->s[sc->i]) {
	case '{':
	case '[':
		/* Not "unterminated" (0): json-c, which stops at the same depth,
		 * failed on something before it, and its message says what. */
		if (sc->depth >= BG_JSON_DEPTH)
			return scan_fail(sc, sc->line, 0, "nesting deeper than %d levels",
			                 BG_JSON_DEPTH);
		sc->depth++;
		r = sc->s[sc->i] == '{' ? scan_object(sc, p, path) : scan_array(sc, p, path);
		sc->depth--;
		break;
	case '"':
	case '\'':
		r = scan_string(sc);
		break;
	default:
		while (sc->i < sc->len && !delimiter(sc->s[sc->i]))
			sc->i++;
		if (sc->i == p->start)
			return scan_unexpected(sc, "where a value was expected");
	}
	p->end = sc->i;
	return r;
}

/* The whole text: blanks, one value, blanks. */
static int scan_document(struct scan *sc, struct pos *root)
{
	if (skip_space(sc) < 0)
		return -1;
	root->line = sc->line;
	if (scan_value(sc, root, "") < 0)
		return -1;
	if (skip_space(sc) < 0)
		return -1;
	if (sc->i < sc->len)
		return scan_fail(sc, sc->line, 0, "unexpected text after the top-level value");
	return 0;
}

/* ---------------------------------------------------------------- errors */

static int fail(struct loader *ld, int line, const char *fmt, ...) BG_PRINTF(3, 4);

static int fail(struct loader *ld, int line, const char *fmt, ...)
{
	char msg[768];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	return bg_error_set(ld->ctx, BG_EINPUT, "%s:%d: %s", ld->name, line, msg);
}

/* The same, naming the key path first: "baseline.window: must be ...". */
static int failp(struct loader *ld, int line, const char *path, const char *fmt, ...)
        BG_PRINTF(4, 5);

static int failp(struct loader *ld, int line, const char *path, const char *fmt, ...)
{
	char msg[768];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	if (!*path)
		return fail(ld, line, "%s", msg);
	return fail(ld, line, "%s: %s", path, msg);
}

static int oom(struct loader *ld)
{
	return bg_error_oom(ld->ctx);
}

/* ------------------------------------------------------------ JSON parse */

/*
 * json-c parses; on failure the scanner looks again, because for a string or
 * comment that never ends json-c can only say "unexpected end of data" at the
 * end of the file (or trip over some later line), while the scanner knows
 * where the unterminated thing began.
 */
static int parse_json(struct loader *ld, json_object **out)
{
	struct json_tokener *tok;
	enum json_tokener_error jerr;
	json_object *obj;
	struct scan sc;
	struct pos root;
	size_t off;
	int jline;

	*out = NULL;
	tok = json_tokener_new_ex(BG_JSON_DEPTH);
	if (!tok)
		return oom(ld);
	json_tokener_set_flags(tok, JSON_TOKENER_VALIDATE_UTF8);
	obj = json_tokener_parse_ex(tok, ld->text, (int)ld->len);
	jerr = json_tokener_get_error(tok);
	off = json_tokener_get_parse_end(tok);
	if (jerr == json_tokener_continue) {
		/* A number or a line comment at the very end waits for more: there is none. */
		obj = json_tokener_parse_ex(tok, "", 1);
		jerr = json_tokener_get_error(tok);
		off = ld->len;
	}
	json_tokener_free(tok);
	if (jerr == json_tokener_success) {
		*out = obj;
		return 0;
	}
	json_object_put(obj);
	jline = off >= ld->len ? last_line(ld->text, ld->len) : bg_line_of(ld->text, ld->len, off);
	if (jerr == json_tokener_error_depth)
		return fail(ld, jline, "nesting deeper than %d levels", BG_JSON_DEPTH);

	memset(&root, 0, sizeof(root));
	scan_init(&sc, ld->text, ld->len, 1);
	if (scan_document(&sc, &root) < 0 && sc.eterm && sc.eline <= jline) {
		pos_free(&root);
		return fail(ld, sc.eline, "%s", sc.emsg);
	}
	pos_free(&root);
	return fail(ld, jline, "invalid JSON: %s", json_tokener_error_desc(jerr));
}

/* --------------------------------------------------------- value readers */

static const char *type_name(json_object *v)
{
	switch (json_object_get_type(v)) {
	case json_type_null:
		return "null";
	case json_type_boolean:
		return "boolean";
	case json_type_double:
	case json_type_int:
		return "number";
	case json_type_string:
		return "string";
	case json_type_object:
		return "object";
	case json_type_array:
		return "array";
	}
	return "?";
}

/* The value as written, for "(got 1.5)": numbers keep the writer's spelling. */
static int raw_len(const struct pos *p)
{
	size_t n = p->end - p->start;

	return n > 40 ? 40 : (int)n;
}

#define RAW(ld, p) raw_len(p), (ld)->text + (p)->start

static int want(struct loader *ld, const struct pos *p, const char *path, json_object *v,
                json_type type, const char *what)
{
	if (json_object_is_type(v, type))
		return 0;
	return failp(ld, p->line, path, "expected %s, got %s", what, type_name(v));
}

/* A non-empty string without NUL bytes, copied into the config. */
static int read_string(struct loader *ld, const struct pos *p, const char *path, json_object *v,
                       const char **out)
{
	const char *s;
	size_t i, n;
	int blank = 1;
	char *copy;

	if (want(ld, p, path, v, json_type_string, "a string") < 0)
		return BG_EINPUT;
	s = json_object_get_string(v);
	n = (size_t)json_object_get_string_len(v);
	if (strlen(s) != n)
		return failp(ld, p->line, path, "must not contain a NUL character");
	for (i = 0; i < n && blank; i++)
		blank = isspace((unsigned char)s[i]);
	if (blank)
		return failp(ld, p->line, path, "must not be empty");
	copy = arena_strdup(&ld->cfg->mem, s);
	if (!copy)
		return oom(ld);
	*out = copy;
	return 0;
}

static int read_int(struct loader *ld, const struct pos *p, const char *path, json_object *v,
                    int min, int max, int *out)
{
	int64_t x;

	if (json_object_is_type(v, json_type_double))
		return failp(ld, p->line, path, "expected an integer, got %.*s", RAW(ld, p));
	if (want(ld, p, path, v, json_type_int, "an integer") < 0)
		return BG_EINPUT;
	x = json_object_get_int64(v);
	if (x < min)
		return failp(ld, p->line, path, "must be at least %d (got %.*s)", min, RAW(ld, p));
	if (x > max)
		return failp(ld, p->line, path, "must be at most %d (got %.*s)", max, RAW(ld, p));
	*out = (int)x;
	return 0;
}

static int read_number(struct loader *ld, const struct pos *p, const char *path, json_object *v,
                       double *out)
{
	if (!json_object_is_type(v, json_type_int) && !json_object_is_type(v, json_type_double))
		return failp(ld, p->line, path, "expected a number, got %s", type_name(v));
	*out = json_object_get_double(v);
	if (!isfinite(*out))
		return failp(ld, p->line, path, "must be a finite number (got %.*s)", RAW(ld, p));
	return 0;
}

/* Only true and false as JSON spells them (json-c would also take "True"). */
static int read_bool(struct loader *ld, const struct pos *p, const char *path, json_object *v,
                     int *out)
{
	size_t n = p->end - p->start;
	const char *raw = ld->text + p->start;

	if (!json_object_is_type(v, json_type_boolean))
		return failp(ld, p->line, path, "expected true or false, got %s", type_name(v));
	if (!(n == 4 && !memcmp(raw, "true", 4)) && !(n == 5 && !memcmp(raw, "false", 5)))
		return failp(ld, p->line, path, "expected true or false, got %.*s", RAW(ld, p));
	*out = json_object_get_boolean(v);
	return 0;
}

/* Reports the first key of an object that is not in `known`. */
static int check_keys(struct loader *ld, const struct pos *p, const char *path,
                      const char *const *known, size_t n)
{
	size_t i, k;
	char q[96], q2[96];

	for (i = 0; i < p->nkids; i++) {
		const char *key = p->kids[i].key, *near;

		for (k = 0; k < n && strcmp(key, known[k]); k++)
			;
		if (k < n)
			continue;
		near = suggest(key, known, n);
		if (near)
			return failp(ld, p->kids[i].line, path, "unknown key %s (did you mean %s?)",
			             quote(q, sizeof(q), key), quote(q2, sizeof(q2), near));
		return failp(ld, p->kids[i].line, path, "unknown key %s", quote(q, sizeof(q), key));
	}
	return 0;
}

/*
 * Looks a member up on both sides.  Returns 1 when the key is there (its
 * value may be JSON null, which json-c gives as NULL), 0 when absent.
 */
static int member(const struct pos *p, json_object *obj, const char *key, const char *path,
                  const struct pos **kp, json_object **kv, char *kpath, size_t kpath_size)
{
	*kp = pos_member(p, key);
	*kv = NULL;
	if (!*kp)
		return 0;
	json_object_object_get_ex(obj, key, kv);
	path_key(kpath, kpath_size, path, key);
	return 1;
}

/* The i-th element's position; the scanner and json-c agree on the count. */
static const struct pos *element(const struct pos *p, size_t i)
{
	return i < p->nkids ? &p->kids[i] : p;
}

/* --------------------------------------------------------------- ${VAR} */

static int var_name_ok(const char *s, size_t n)
{
	size_t i;

	if (n == 0 || isdigit((unsigned char)s[0]))
		return 0;
	for (i = 0; i < n; i++)
		if (!isalnum((unsigned char)s[i]) && s[i] != '_')
			return 0;
	return 1;
}

/*
 * Expands `in` into `b`, or only checks its syntax when b is NULL; with
 * `encode`, each variable's value goes in percent-encoded (a password in a
 * URI's user information).  Returns
 * 0, BG_EINPUT (syntax), BG_ENOTFOUND (unset variable) or BG_ENOMEM, with
 * the reason in msg.  The input itself never goes into msg: it may hold a
 * secret.
 */
static int expand_vars(const char *in, size_t len, bg_buf *b, int encode, char *msg, size_t msgsize)
{
	const char *p = in, *end = in + len;
	char q[96];

	while (p < end) {
		const char *dollar = memchr(p, '$', (size_t)(end - p)), *name, *close;
		char *var;
		const char *val;

		if (!dollar) {
			if (b && bg_buf_put(b, p, (size_t)(end - p)) < 0)
				goto nomem;
			break;
		}
		if (b && bg_buf_put(b, p, (size_t)(dollar - p)) < 0)
			goto nomem;
		if (dollar + 1 >= end || dollar[1] != '{') {
			/* "$$" is one "$"; a "$" before anything else stays as it is. */
			if (b && bg_buf_put(b, "$", 1) < 0)
				goto nomem;
			p = dollar + (dollar + 1 < end && dollar[1] == '$' ? 2 : 1);
			continue;
		}
		name = dollar + 2;
		close = name < end ? memchr(name, '}', (size_t)(end - name)) : NULL;
		if (!close) {
			snprintf(msg, msgsize, "unterminated \"${\" (missing \"}\")");
			return BG_EINPUT;
		}
		var = malloc((size_t)(close - name) + 1);
		if (!var)
			goto nomem;
		memcpy(var, name, (size_t)(close - name));
		var[close - name] = '\0';
		if (!var_name_ok(var, strlen(var)) || strlen(var) != (size_t)(close - name)) {
			snprintf(msg, msgsize, "invalid variable name %s in \"${...}\"",
			         quote(q, sizeof(q), var));
			free(var);
			return BG_EINPUT;
		}
		if (b) {
			val = getenv(var);
			if (!val || !*val) {
				snprintf(msg, msgsize, "environment variable %s is not set", var);
				free(var);
				return BG_ENOTFOUND;
			}
			for (; *val; val++) {
				unsigned char c = (unsigned char)*val;
				int plain = !encode || isalnum(c) || strchr("-._~", c);

				if ((plain ? bg_buf_put(b, val, 1)
				           : bg_buf_printf(b, "%%%02X", c)) < 0) {
					free(var);
					goto nomem;
				}
			}
		}
		free(var);
		p = close + 1;
	}
	return 0;
nomem:
	snprintf(msg, msgsize, "out of memory");
	return BG_ENOMEM;
}

int bg_config_expand(bg_ctx *ctx, const char *in, char **out)
{
	bg_buf b = BG_BUF_INIT;
	char msg[256];
	int err;

	BG_NEED(ctx, out);

	*out = NULL;
	if (!in)
		return bg_error_set(ctx, BG_EINPUT, "nothing to expand");
	err = expand_vars(in, strlen(in), &b, 0, msg, sizeof(msg));
	if (err < 0) {
		bg_buf_clear(&b);
		return bg_error_set(ctx, err, "%s", msg);
	}
	*out = bg_buf_detach(&b);
	return *out ? 0 : bg_error_oom(ctx);
}

/* ---------------------------------------------------------------- secrets */

/* A webhook URL's path segment this long is a key on its own ("services"
 * of Slack's is not): lib/alert.c scrubs receivers' answers alike. */
#define SECRET_SEGMENT_MIN 16

/* `in` expanded, or NULL: unset variables (the alert says so when it is
 * sent), a bad ${...} (the loader refused it already) or no memory (*oom). */
static char *secret_expand(const char *in, int *oom)
{
	bg_buf b = BG_BUF_INIT;
	char msg[256];
	int err;

	if (!in)
		return NULL;
	if ((err = expand_vars(in, strlen(in), &b, 0, msg, sizeof(msg))) < 0) {
		*oom |= err == BG_ENOMEM;
		bg_buf_clear(&b);
		return NULL;
	}
	return bg_buf_detach(&b); /* NULL for "": no secret */
}

int bg_config__each_secret_var(const char *in, const char *shown,
                               int (*fn)(void *data, const char *value), void *data)
{
	const char *p = in, *close;
	int err = 0;

	while (p && !err && (p = strchr(p, '$')) != NULL) {
		const char *val;
		char *name;

		if (p[1] != '{') {
			p += p[1] == '$' ? 2 : 1;
			continue;
		}
		if (!(close = strchr(p + 2, '}')))
			break;
		if (!(name = strndup(p + 2, (size_t)(close - p - 2))))
			return BG_ENOMEM;
		val = getenv(name);
		if (val && !(shown && strstr(shown, val)))
			err = fn(data, val);
		free(name);
		p = close + 1;
	}
	return err;
}

static int add_secret_var(void *ctx, const char *value)
{
	return bg_ctx__add_secret(ctx, value, strlen(value));
}

/* The value behind each ${VAR} in `in`, but one that `shown` holds (the
 * host of a webhook URL, which messages name). */
static int secrets_of_vars(bg_ctx *ctx, const char *in, const char *shown)
{
	return bg_config__each_secret_var(in, shown, add_secret_var, ctx);
}

/* A webhook's URL whole, and its parts that may be keys: the user
 * information, the path (many webhooks' key) and its longer segments, and
 * the query.  *shown: "scheme://host:port", what messages name it by. */
static int secrets_of_url(bg_ctx *ctx, const char *url, char **shown)
{
	const char *auth = strstr(url, "://"), *end, *at = NULL, *p, *seg;
	int err = bg_ctx__add_secret(ctx, url, strlen(url));
	size_t n;

	if (err < 0 || !auth)
		return err;
	auth += 3;
	end = auth + strcspn(auth, "/?#");
	for (p = auth; p < end; p++)
		if (*p == '@')
			at = p;
	if (!(*shown = bg_printf("%.*s%.*s", (int)(auth - url), url,
	                         (int)(end - (at ? at + 1 : auth)), at ? at + 1 : auth)))
		return BG_ENOMEM;
	if (at) {
		const char *colon = memchr(auth, ':', (size_t)(at - auth));

		err |= bg_ctx__add_secret(ctx, auth, (size_t)(at - auth));
		if (colon)
			err |= bg_ctx__add_secret(ctx, colon + 1, (size_t)(at - colon - 1));
	}
	n = strcspn(end, "?#");
	if (n > 1) {
		err |= bg_ctx__add_secret(ctx, end, n);
		err |= bg_ctx__add_secret(ctx, end + 1, n - 1);
		for (seg = end + 1; seg < end + n; seg += strcspn(seg, "/?#") + 1)
			if (strcspn(seg, "/?#") >= SECRET_SEGMENT_MIN)
				err |= bg_ctx__add_secret(ctx, seg, strcspn(seg, "/?#"));
	}
	if (end[n] == '?')
		err |= bg_ctx__add_secret(ctx, end + n + 1, strcspn(end + n + 1, "#"));
	return err ? BG_ENOMEM : 0;
}

/*
 * The alert targets' secrets, for the context to replace in what the
 * suite prints (bg_ctx__scrub): as lib/alert.c takes them out of
 * receivers' answers, the token and the secret whole, the values of the
 * ${VAR}s in url, secret and token, and a webhook's or Slack URL whole
 * with its parts that may be keys.  Not repo, pr nor api_url: they name
 * what alerts are about, and are no keys.
 */
static int register_secrets(bg_ctx *ctx, const bg_config *cfg)
{
	size_t i;
	int err = 0, oom = 0;

	for (i = 0; i < cfg->nalerts && !err && !oom; i++) {
		const bg_alert_cfg *a = &cfg->alerts[i];
		int hook = !strcmp(a->kind, "webhook") || !strcmp(a->kind, "slack");
		char *url = hook ? secret_expand(a->url, &oom) : NULL, *shown = NULL;
		char *secret = secret_expand(a->secret, &oom),
		     *token = secret_expand(a->token, &oom);

		if (url)
			err = secrets_of_url(ctx, url, &shown);
		if (!err && secret)
			err = bg_ctx__add_secret(ctx, secret, strlen(secret));
		if (!err && token)
			err = bg_ctx__add_secret(ctx, token, strlen(token));
		if (!err)
			err = secrets_of_vars(ctx, a->url, shown);
		if (!err)
			err = secrets_of_vars(ctx, a->secret, NULL);
		if (!err)
			err = secrets_of_vars(ctx, a->token, NULL);
		if (url)
			memset(url, 0, strlen(url));
		if (secret)
			memset(secret, 0, strlen(secret));
		if (token)
			memset(token, 0, strlen(token));
		free(url);
		free(shown);
		free(secret);
		free(token);
	}
	return err < 0 || oom ? bg_error_oom(ctx) : 0;
}

int bg_config__expand_uri(bg_ctx *ctx, const char *in, char **out)
{
	bg_buf b = BG_BUF_INIT;
	const char *auth, *auth_end, *at = NULL, *p;
	char msg[256];
	int err = 0;

	BG_NEED(ctx, in);
	BG_NEED(ctx, out);
	*out = NULL;
	if (strncmp(in, "postgresql://", 13) && strncmp(in, "postgres://", 11))
		return bg_config_expand(ctx, in, out);
	/* The user information: from "://" to the authority's last '@'. */
	auth = strstr(in, "://") + 3;
	auth_end = auth + strcspn(auth, "/?#");
	for (p = auth; p < auth_end; p++)
		if (*p == '@')
			at = p;
	if (!at)
		return bg_config_expand(ctx, in, out);
	if ((err = expand_vars(in, (size_t)(auth - in), &b, 0, msg, sizeof(msg))) == 0 &&
	    (err = expand_vars(auth, (size_t)(at - auth), &b, 1, msg, sizeof(msg))) == 0)
		err = expand_vars(at, strlen(at), &b, 0, msg, sizeof(msg));
	if (err < 0) {
		bg_buf_clear(&b);
		return bg_error_set(ctx, err, "%s", msg);
	}
	*out = bg_buf_detach(&b);
	return *out ? 0 : bg_error_oom(ctx);
}

/* ---------------------------------------------------------------- checks */

static const char *const root_keys[] = { "project",  "database",   "build",
	                                 "baseline", "thresholds", "confirm",
	                                 "defaults", "benchmarks", "alerts" };
static const char *const confirm_keys[] = { "pairs", "max_pairs" };
static const char *const baseline_keys[] = { "branch", "window", "min_runs" };
static const char *const threshold_keys[] = { "alpha", "fdr", "min_change", "min_effect",
	                                      "metrics" };
/* An entry of thresholds.metrics. */
static const char *const threshold_metric_keys[] = { "min_change" };
static const char *const defaults_keys[] = { "warmup", "samples", "timeout", "measure",
	                                     "counters" };
static const char *const bench_keys[] = { "name",    "command", "format",  "requires", "warmup",
	                                  "samples", "timeout", "metrics", "measure",  "counters" };
static const char *const counters_keys[] = { "events", "kernel" };
static const char *const metric_keys[] = { "direction", "min_change" };
static const char *const alert_keys[] = { "kind", "url",     "secret",  "repo", "token",
	                                  "pr",   "api_url", "timeout", "on" };

/* Per alert kind: the keys it takes besides kind and on, and those it needs. */
static const struct alert_kind {
	const char *name;
	const char *takes[6];
	const char *needs[4];
	const char *needs_text;
	const char *thread; /* what "pr" numbers */
	int deep_repo;      /* repo may be "group/sub/name" or a numeric id */
} alert_kinds[] = {
	{ "webhook", { "url", "secret", "timeout" }, { "url" }, "a url", NULL, 0 },
	{ "slack", { "url", "timeout" }, { "url" }, "a url", NULL, 0 },
	{ "github",
	  { "repo", "token", "pr", "api_url", "timeout" },
	  { "repo", "token", "pr" },
	  "repo, token and pr",
	  "pull-request",
	  0 },
	{ "gitlab",
	  { "repo", "token", "pr", "api_url", "timeout" },
	  { "repo", "token", "pr" },
	  "repo, token and pr",
	  "merge-request",
	  1 },
};

static int has_key(const char *const *list, size_t n, const char *key)
{
	size_t i;

	for (i = 0; i < n && list[i]; i++)
		if (!strcmp(list[i], key))
			return 1;
	return 0;
}

/* An object member that must itself be an object; 0 with *kp NULL when absent. */
static int sub_object(struct loader *ld, const struct pos *p, json_object *obj, const char *key,
                      const char *const *known, size_t nknown, const struct pos **kp,
                      json_object **kv, char *kpath, size_t kpath_size)
{
	if (!member(p, obj, key, "", kp, kv, kpath, kpath_size)) {
		*kp = NULL;
		return 0;
	}
	if (want(ld, *kp, kpath, *kv, json_type_object, "an object") < 0)
		return BG_EINPUT;
	return check_keys(ld, *kp, kpath, known, nknown);
}

static int load_baseline(struct loader *ld, const struct pos *root, json_object *obj)
{
	bg_baseline_cfg *b = &ld->cfg->baseline;
	const struct pos *p, *kp, *runs_pos = NULL;
	json_object *o, *v;
	char path[PATH_SIZE], kpath[PATH_SIZE];
	int err;

	err = sub_object(ld, root, obj, "baseline", baseline_keys, BG_ARRAY_SIZE(baseline_keys), &p,
	                 &o, path, sizeof(path));
	if (err < 0 || !p)
		return err;
	if (member(p, o, "branch", path, &kp, &v, kpath, sizeof(kpath)) &&
	    (err = read_string(ld, kp, kpath, v, &b->branch)) < 0)
		return err;
	if (member(p, o, "window", path, &kp, &v, kpath, sizeof(kpath)) &&
	    (err = read_int(ld, kp, kpath, v, 2, MAX_COUNT, &b->window)) < 0)
		return err;
	if (member(p, o, "min_runs", path, &kp, &v, kpath, sizeof(kpath))) {
		if ((err = read_int(ld, kp, kpath, v, 2, MAX_COUNT, &b->min_runs)) < 0)
			return err;
		runs_pos = kp;
	}
	if (b->min_runs > b->window) {
		/* Blame min_runs if it was written, else window (the default min_runs is 5). */
		if (runs_pos)
			return failp(ld, runs_pos->line, kpath,
			             "must not exceed baseline.window (%d > %d)", b->min_runs,
			             b->window);
		kp = pos_member(p, "window");
		return fail(ld, kp->line,
		            "baseline.window: must be at least baseline.min_runs (%d < %d)",
		            b->window, b->min_runs);
	}
	return 0;
}

/* ci's confirmation: pairs at the first look (0: none), and the cap. */
static int load_confirm(struct loader *ld, const struct pos *root, json_object *obj)
{
	bg_confirm_cfg *c = &ld->cfg->confirm;
	const struct pos *p, *kp;
	json_object *o, *v;
	char path[PATH_SIZE], kpath[PATH_SIZE];
	int err;

	err = sub_object(ld, root, obj, "confirm", confirm_keys, BG_ARRAY_SIZE(confirm_keys), &p,
	                 &o, path, sizeof(path));
	if (err < 0 || !p)
		return err;
	if (member(p, o, "pairs", path, &kp, &v, kpath, sizeof(kpath))) {
		if ((err = read_int(ld, kp, kpath, v, 0, BG_MAX_PAIRS, &c->pairs)) < 0)
			return err;
		if (c->pairs == 1)
			return failp(ld, kp->line, kpath,
			             "must be 0 (no confirmation) or at least 2: one pair has no "
			             "spread to judge");
	}
	if (member(p, o, "max_pairs", path, &kp, &v, kpath, sizeof(kpath))) {
		if ((err = read_int(ld, kp, kpath, v, 2, BG_MAX_PAIRS, &c->max_pairs)) < 0)
			return err;
		if (c->pairs && c->max_pairs < c->pairs)
			return failp(ld, kp->line, kpath,
			             "must be at least confirm.pairs (%d < %d)", c->max_pairs,
			             c->pairs);
	} else if (c->pairs > c->max_pairs) {
		c->max_pairs = c->pairs;
	}
	return 0;
}

/*
 * A metric's min_change: a relative change above 0 and below 1.  0 is
 * refused: a series whose threshold is 0 would flag any change at all,
 * and 0 is what leaves a judgement to thresholds.min_change.
 */
static int read_metric_min_change(struct loader *ld, const struct pos *p, const char *path,
                                  json_object *v, double *out)
{
	int err;

	if ((err = read_number(ld, p, path, v, out)) < 0)
		return err;
	if (!(*out > 0.0 && *out < 1.0))
		return failp(ld, p->line, path,
		             "must be a relative change above 0 and below 1, e.g. 0.001 for "
		             "0.1%% (got %.*s)",
		             RAW(ld, p));
	return 0;
}

/*
 * Appends to thresholds.metrics.  The array lives in the arena, which does
 * not reallocate: it is copied into one twice as large when the count
 * passes a power of two, so the copies stay linear in the entries.
 */
static int add_metric_threshold(struct loader *ld, const char *benchmark, const char *metric,
                                double min_change)
{
	bg_thresholds *t = &ld->cfg->thresholds;
	size_t n = t->nmetrics;
	bg_metric_threshold *m = (bg_metric_threshold *)t->metrics;

	if (n == 0 || (n & (n - 1)) == 0) {
		/* n is 0 or a power of two: the array is full. */
		if (!(m = arena_array(&ld->cfg->mem, n ? 2 * n : 4, sizeof(*m))))
			return oom(ld);
		if (n)
			memcpy(m, t->metrics, n * sizeof(*m));
	}
	m[n].benchmark = benchmark;
	m[n].metric = metric;
	m[n].min_change = min_change;
	t->metrics = m;
	t->nmetrics = n + 1;
	return 0;
}

/* A metric name the metrics objects key by: one a series could have (what
 * no name may hold, and no ':', which splits "benchmark:metric"). */
static int check_metric_name(struct loader *ld, const struct pos *mp, const char *path)
{
	const char *why;
	char qn[96];

	if (!*mp->key)
		return failp(ld, mp->line, path, "metric name must not be empty");
	why = bg_results__bad_name(mp->key, strlen(mp->key), 0);
	if (!why && strchr(mp->key, ':'))
		why = "contains ':' (series are named benchmark:metric)";
	if (why)
		return failp(ld, mp->line, path, "metric name %s %s",
		             bg_text__quote(qn, sizeof(qn), mp->key), why);
	return 0;
}

static int load_thresholds(struct loader *ld, const struct pos *root, json_object *obj)
{
	bg_thresholds *t = &ld->cfg->thresholds;
	const struct pos *p, *kp;
	json_object *o, *v;
	char path[PATH_SIZE], kpath[PATH_SIZE];
	int err;

	err = sub_object(ld, root, obj, "thresholds", threshold_keys, BG_ARRAY_SIZE(threshold_keys),
	                 &p, &o, path, sizeof(path));
	if (err < 0 || !p)
		return err;
	if (member(p, o, "alpha", path, &kp, &v, kpath, sizeof(kpath))) {
		if ((err = read_number(ld, kp, kpath, v, &t->alpha)) < 0)
			return err;
		if (!(t->alpha >= BG_ALPHA_MIN && t->alpha <= BG_ALPHA_MAX))
			return failp(ld, kp->line, kpath, "must be from 1e-12 to 0.5 (got %.*s)",
			             RAW(ld, kp));
	}
	if (member(p, o, "fdr", path, &kp, &v, kpath, sizeof(kpath)) &&
	    (err = read_bool(ld, kp, kpath, v, &t->fdr)) < 0)
		return err;
	if (member(p, o, "min_change", path, &kp, &v, kpath, sizeof(kpath))) {
		if ((err = read_number(ld, kp, kpath, v, &t->min_change)) < 0)
			return err;
		if (!(t->min_change >= 0.0 && t->min_change < BG_MIN_CHANGE_LIMIT))
			return failp(
			        ld, kp->line, kpath,
			        "must be a relative change from 0 to below 1, e.g. 0.05 for 5%% "
			        "(got %.*s)",
			        RAW(ld, kp));
	}
	if (member(p, o, "min_effect", path, &kp, &v, kpath, sizeof(kpath))) {
		if ((err = read_number(ld, kp, kpath, v, &t->min_effect)) < 0)
			return err;
		if (t->min_effect < 0.0)
			return failp(ld, kp->line, kpath, "must be at least 0 (got %.*s)",
			             RAW(ld, kp));
	}
	/* "metrics": { "instructions": { "min_change": 0.001 } }: per metric,
	 * every benchmark's. */
	if (member(p, o, "metrics", path, &kp, &v, kpath, sizeof(kpath))) {
		const struct pos *mp, *cp;
		json_object *mo, *cv;
		char mpath[PATH_SIZE], cpath[PATH_SIZE];
		const char *name;
		double mc;
		size_t i;

		if (want(ld, kp, kpath, v, json_type_object, "an object") < 0)
			return BG_EINPUT;
		for (i = 0; i < kp->nkids; i++) {
			mp = &kp->kids[i];
			mo = NULL;
			if (check_metric_name(ld, mp, kpath) < 0)
				return BG_EINPUT;
			json_object_object_get_ex(v, mp->key, &mo);
			path_key(mpath, sizeof(mpath), kpath, mp->key);
			if (want(ld, mp, mpath, mo, json_type_object, "an object") < 0 ||
			    check_keys(ld, mp, mpath, threshold_metric_keys,
			               BG_ARRAY_SIZE(threshold_metric_keys)) < 0)
				return BG_EINPUT;
			if (!member(mp, mo, "min_change", mpath, &cp, &cv, cpath, sizeof(cpath)))
				return failp(ld, mp->line, mpath,
				             "missing required key \"min_change\"");
			if ((err = read_metric_min_change(ld, cp, cpath, cv, &mc)) < 0)
				return err;
			if (!(name = arena_strdup(&ld->cfg->mem, mp->key)))
				return oom(ld);
			if ((err = add_metric_threshold(ld, NULL, name, mc)) < 0)
				return err;
		}
	}
	return 0;
}

static int read_timeout(struct loader *ld, const struct pos *p, const char *path, json_object *v,
                        double *out)
{
	int err = read_number(ld, p, path, v, out);

	if (err < 0)
		return err;
	if (!(*out > 0.0))
		return failp(ld, p->line, path, "must be greater than 0 (got %.*s)", RAW(ld, p));
	if (*out > BG_TIMEOUT_MAX)
		return failp(ld, p->line, path, "must be at most %.0f seconds (got %.*s)",
		             BG_TIMEOUT_MAX, RAW(ld, p));
	return 0;
}

/* "time, counters or simulate" */
static void instrument_list(char *buf, size_t n)
{
	snprintf(buf, n, "\"%s\", \"%s\" or \"%s\"", bg_instrument_name(BG_INSTR_TIME),
	         bg_instrument_name(BG_INSTR_COUNTERS), bg_instrument_name(BG_INSTR_SIMULATE));
}

static int read_instrument(struct loader *ld, const struct pos *p, const char *path, json_object *v,
                           bg_instrument *out)
{
	char q[96], names[96];
	const char *s;
	int err;

	if ((err = read_string(ld, p, path, v, &s)) < 0)
		return err;
	if (bg_instrument_from_name(s, out) < 0) {
		instrument_list(names, sizeof(names));
		return failp(ld, p->line, path, "unknown instrument %s (expected %s)",
		             quote(q, sizeof(q), s), names);
	}
	return 0;
}

/*
 * "measure": ["time", ["counters", "simulate"]]: each entry an instrument,
 * or a list of alternatives of which the first this machine has is used.
 * An instrument is named once; counters and simulate both count
 * instructions (the same series), so they may only be alternatives.
 */
static int load_measure(struct loader *ld, const struct pos *p, json_object *a, const char *path,
                        struct run_defaults *d)
{
	bg_measure *m;
	size_t n, i, k;
	int seen[BG_INSTR_COUNT] = { 0 }, seen_entry[BG_INSTR_COUNT], err;

	if (want(ld, p, path, a, json_type_array, "an array") < 0)
		return BG_EINPUT;
	n = json_object_array_length(a);
	if (n == 0)
		return failp(ld, p->line, path, "must not be empty");
	if (!(m = arena_array(&ld->cfg->mem, n, sizeof(*m))))
		return oom(ld);
	for (i = 0; i < n; i++) {
		const struct pos *ep = element(p, i);
		json_object *e = json_object_array_get_idx(a, i);
		char epath[PATH_SIZE], apath[PATH_SIZE];

		path_index(epath, sizeof(epath), path, i);
		memset(seen_entry, 0, sizeof(seen_entry));
		if (json_object_is_type(e, json_type_array)) {
			size_t na = json_object_array_length(e);

			if (na == 0 || na > BG_INSTR_COUNT)
				return failp(ld, ep->line, epath,
				             "a list of alternatives holds 1 to %d instruments",
				             BG_INSTR_COUNT);
			for (k = 0; k < na; k++) {
				path_index(apath, sizeof(apath), epath, k);
				if ((err = read_instrument(ld, element(ep, k), apath,
				                           json_object_array_get_idx(e, k),
				                           &m[i].alt[k])) < 0)
					return err;
				if (seen_entry[m[i].alt[k]]++)
					return failp(ld, element(ep, k)->line, apath,
					             "\"%s\" is listed twice",
					             bg_instrument_name(m[i].alt[k]));
			}
			m[i].nalt = na;
		} else {
			if ((err = read_instrument(ld, ep, epath, e, &m[i].alt[0])) < 0)
				return err;
			m[i].nalt = 1;
			seen_entry[m[i].alt[0]] = 1;
		}
		for (k = 0; k < BG_INSTR_COUNT; k++) {
			if (!seen_entry[k])
				continue;
			if (seen[k])
				return failp(ld, ep->line, epath, "\"%s\" is measured twice",
				             bg_instrument_name((bg_instrument)k));
		}
		for (k = 0; k < BG_INSTR_COUNT; k++)
			seen[k] |= seen_entry[k];
		/* Only this entry can complete the pair (each instrument is listed
		 * once): by one of them beside the other in an earlier entry.  An
		 * entry holding neither, after an entry holding both, is fine. */
		if (seen[BG_INSTR_COUNTERS] && seen[BG_INSTR_SIMULATE] &&
		    seen_entry[BG_INSTR_COUNTERS] != seen_entry[BG_INSTR_SIMULATE])
			return failp(ld, ep->line, epath,
			             "\"counters\" and \"simulate\" both give the series "
			             "\"instructions\": list them as alternatives, "
			             "[\"counters\", \"simulate\"]");
	}
	d->measure = m;
	d->nmeasure = n;
	return 0;
}

/* "counters": { "events": ["instructions", ...], "kernel": false } */
static int load_counters(struct loader *ld, const struct pos *p, json_object *o, const char *path,
                         struct run_defaults *d)
{
	const struct pos *kp;
	json_object *v;
	char kpath[PATH_SIZE], q[96], known[512];
	const char *const *names = bg_counter_events();
	const char **ev;
	size_t n, i, k, len = 0;
	int err;

	if (want(ld, p, path, o, json_type_object, "an object") < 0)
		return BG_EINPUT;
	if ((err = check_keys(ld, p, path, counters_keys, BG_ARRAY_SIZE(counters_keys))) < 0)
		return err;
	if (member(p, o, "kernel", path, &kp, &v, kpath, sizeof(kpath)) &&
	    (err = read_bool(ld, kp, kpath, v, &d->kernel)) < 0)
		return err;
	if (!member(p, o, "events", path, &kp, &v, kpath, sizeof(kpath)))
		return 0;
	if (want(ld, kp, kpath, v, json_type_array, "an array") < 0)
		return BG_EINPUT;
	n = json_object_array_length(v);
	if (n == 0)
		return failp(ld, kp->line, kpath, "must not be empty");
	if (!(ev = arena_array(&ld->cfg->mem, n, sizeof(*ev))))
		return oom(ld);
	for (i = 0; i < n; i++) {
		char epath[PATH_SIZE];
		const struct pos *ep = element(kp, i);

		path_index(epath, sizeof(epath), kpath, i);
		if ((err = read_string(ld, ep, epath, json_object_array_get_idx(v, i), &ev[i])) < 0)
			return err;
		for (k = 0; names[k] && strcmp(names[k], ev[i]); k++)
			;
		if (!names[k]) {
			known[0] = '\0';
			for (k = 0; names[k] && len + 32 < sizeof(known); k++)
				len += (size_t)snprintf(known + len, sizeof(known) - len, "%s%s",
				                        k ? ", " : "", names[k]);
			return failp(ld, ep->line, epath, "unknown counter %s (known: %s)",
			             quote(q, sizeof(q), ev[i]), known);
		}
		for (k = 0; k < i; k++)
			if (!strcmp(ev[k], ev[i]))
				return failp(ld, ep->line, epath, "%s is listed twice",
				             quote(q, sizeof(q), ev[i]));
	}
	d->events = ev;
	d->nevents = n;
	return 0;
}

/* warmup, samples, timeout, measure and counters: in "defaults" and in
 * each benchmark. */
static int read_run_settings(struct loader *ld, const struct pos *p, json_object *o,
                             const char *path, struct run_defaults *d)
{
	const struct pos *kp;
	json_object *v;
	char kpath[PATH_SIZE];
	int err;

	if (member(p, o, "measure", path, &kp, &v, kpath, sizeof(kpath)) &&
	    (err = load_measure(ld, kp, v, kpath, d)) < 0)
		return err;
	if (member(p, o, "counters", path, &kp, &v, kpath, sizeof(kpath)) &&
	    (err = load_counters(ld, kp, v, kpath, d)) < 0)
		return err;

	if (member(p, o, "warmup", path, &kp, &v, kpath, sizeof(kpath)) &&
	    (err = read_int(ld, kp, kpath, v, 0, MAX_COUNT, &d->warmup)) < 0)
		return err;
	if (member(p, o, "samples", path, &kp, &v, kpath, sizeof(kpath)) &&
	    (err = read_int(ld, kp, kpath, v, 1, MAX_COUNT, &d->samples)) < 0)
		return err;
	if (member(p, o, "timeout", path, &kp, &v, kpath, sizeof(kpath)) &&
	    (err = read_timeout(ld, kp, kpath, v, &d->timeout)) < 0)
		return err;
	return 0;
}

static int load_defaults(struct loader *ld, const struct pos *root, json_object *obj,
                         struct run_defaults *d)
{
	const struct pos *p;
	json_object *o;
	char path[PATH_SIZE];
	int err;

	err = sub_object(ld, root, obj, "defaults", defaults_keys, BG_ARRAY_SIZE(defaults_keys), &p,
	                 &o, path, sizeof(path));
	if (err < 0 || !p)
		return err;
	return read_run_settings(ld, p, o, path, d);
}

/*
 * A benchmark's "metrics": per metric, a direction (bg_benchmark.metrics,
 * only the metrics that have one) and a min_change (into
 * thresholds.metrics under the benchmark's name); at least one of them.
 */
static int load_metrics(struct loader *ld, const struct pos *p, json_object *o, const char *path,
                        bg_benchmark *b)
{
	bg_metric_override *m;
	size_t i, n = 0;
	int err;

	if (want(ld, p, path, o, json_type_object, "an object") < 0)
		return BG_EINPUT;
	m = arena_array(&ld->cfg->mem, p->nkids, sizeof(*m));
	if (!m)
		return oom(ld);
	for (i = 0; i < p->nkids; i++) {
		const struct pos *mp = &p->kids[i], *dp, *cp;
		json_object *mo = NULL, *dv, *cv;
		char mpath[PATH_SIZE], dpath[PATH_SIZE], cpath[PATH_SIZE], q[96];
		const char *dir, *name;
		int has_dir, has_change;
		double mc;

		if (check_metric_name(ld, mp, path) < 0)
			return BG_EINPUT;
		json_object_object_get_ex(o, mp->key, &mo);
		path_key(mpath, sizeof(mpath), path, mp->key);
		if (want(ld, mp, mpath, mo, json_type_object, "an object") < 0)
			return BG_EINPUT;
		if (check_keys(ld, mp, mpath, metric_keys, BG_ARRAY_SIZE(metric_keys)) < 0)
			return BG_EINPUT;
		has_dir = member(mp, mo, "direction", mpath, &dp, &dv, dpath, sizeof(dpath));
		has_change = member(mp, mo, "min_change", mpath, &cp, &cv, cpath, sizeof(cpath));
		if (!has_dir && !has_change)
			return failp(ld, mp->line, mpath,
			             "missing required key \"direction\" (or \"min_change\")");
		if (!(name = arena_strdup(&ld->cfg->mem, mp->key)))
			return oom(ld);
		if (has_dir) {
			if (want(ld, dp, dpath, dv, json_type_string, "a string") < 0)
				return BG_EINPUT;
			dir = json_object_get_string(dv);
			if (bg_direction_from_name(dir, &m[n].direction) < 0)
				return failp(ld, dp->line, dpath,
				             "expected \"lower\" or \"higher\", got %s",
				             quote(q, sizeof(q), dir));
			/* Only metrics with a direction: the runner overrides those. */
			m[n++].metric = name;
		}
		if (has_change) {
			if ((err = read_metric_min_change(ld, cp, cpath, cv, &mc)) < 0 ||
			    (err = add_metric_threshold(ld, b->name, name, mc)) < 0)
				return err;
		}
	}
	b->metrics = m;
	b->nmetrics = n;
	return 0;
}

static int load_requires(struct loader *ld, const struct pos *p, json_object *a, const char *path,
                         bg_benchmark *b)
{
	const char **req;
	size_t n, i;
	int err;

	if (want(ld, p, path, a, json_type_array, "an array") < 0)
		return BG_EINPUT;
	n = json_object_array_length(a);
	req = arena_array(&ld->cfg->mem, n, sizeof(*req));
	if (!req)
		return oom(ld);
	for (i = 0; i < n; i++) {
		char epath[PATH_SIZE];

		path_index(epath, sizeof(epath), path, i);
		err = read_string(ld, element(p, i), epath, json_object_array_get_idx(a, i),
		                  &req[i]);
		if (err < 0)
			return err;
	}
	b->requires = req;
	b->nrequires = n;
	return 0;
}

static int load_benchmark(struct loader *ld, const struct pos *p, json_object *o, const char *path,
                          const struct run_defaults *d, bg_benchmark *b, int *name_line)
{
	struct run_defaults own = *d;
	const struct pos *kp;
	json_object *v;
	char kpath[PATH_SIZE], q[96], qn[320], formats[128];
	const char *s, *c, *why;
	int err;

	if (want(ld, p, path, o, json_type_object, "an object") < 0)
		return BG_EINPUT;
	if ((err = check_keys(ld, p, path, bench_keys, BG_ARRAY_SIZE(bench_keys))) < 0)
		return err;
	b->line = p->line;
	b->format = BG_FORMAT_TIME;

	if (!member(p, o, "name", path, &kp, &v, kpath, sizeof(kpath)))
		return failp(ld, p->line, path, "missing required key \"name\"");
	if ((err = read_string(ld, kp, kpath, v, &b->name)) < 0)
		return err;
	for (c = b->name; *c; c++)
		if ((unsigned char)*c <= ' ' || *c == 0x7f || *c == ':')
			return failp(ld, kp->line, kpath,
			             "must not contain whitespace or ':' (got %s)",
			             quote(q, sizeof(q), b->name));
	/* It names series: what a series name may not hold (a bidi override...). */
	if ((why = bg_results__bad_name(b->name, strlen(b->name), 0)) != NULL)
		return failp(ld, kp->line, kpath, "%s %s", bg_text__quote(qn, sizeof(qn), b->name),
		             why);
	*name_line = kp->line;

	if (!member(p, o, "command", path, &kp, &v, kpath, sizeof(kpath)))
		return failp(ld, p->line, path, "missing required key \"command\"");
	if ((err = read_string(ld, kp, kpath, v, &b->command)) < 0)
		return err;

	if (member(p, o, "format", path, &kp, &v, kpath, sizeof(kpath))) {
		if ((err = read_string(ld, kp, kpath, v, &s)) < 0)
			return err;
		if (bg_format_from_name(s, &b->format) < 0) {
			bg_format__list(BG_FORMAT_TIME, formats, sizeof(formats));
			return failp(ld, kp->line, kpath, "unknown format %s (expected %s)",
			             quote(q, sizeof(q), s), formats);
		}
	}
	if (member(p, o, "requires", path, &kp, &v, kpath, sizeof(kpath)) &&
	    (err = load_requires(ld, kp, v, kpath, b)) < 0)
		return err;
	if ((err = read_run_settings(ld, p, o, path, &own)) < 0)
		return err;
	b->warmup = own.warmup;
	b->samples = own.samples;
	b->timeout = own.timeout;
	b->measure = own.measure;
	b->nmeasure = own.nmeasure;
	b->events = own.events;
	b->nevents = own.nevents;
	b->kernel = own.kernel;
	if (member(p, o, "metrics", path, &kp, &v, kpath, sizeof(kpath)) &&
	    (err = load_metrics(ld, kp, v, kpath, b)) < 0)
		return err;
	return 0;
}

static int load_benchmarks(struct loader *ld, const struct pos *root, json_object *obj,
                           const struct run_defaults *d)
{
	const struct pos *p;
	json_object *a;
	char path[PATH_SIZE], q[96];
	int *name_lines = NULL, err = 0;
	size_t n, i, j;

	if (!member(root, obj, "benchmarks", "", &p, &a, path, sizeof(path)))
		return fail(ld, root->line, "missing required key \"benchmarks\"");
	if (want(ld, p, path, a, json_type_array, "an array") < 0)
		return BG_EINPUT;
	n = json_object_array_length(a);
	if (n == 0)
		return failp(ld, p->line, path, "must not be empty");
	ld->cfg->benchmarks = arena_array(&ld->cfg->mem, n, sizeof(bg_benchmark));
	name_lines = calloc(n, sizeof(*name_lines));
	if (!ld->cfg->benchmarks || !name_lines) {
		err = oom(ld);
		goto cleanup;
	}
	for (i = 0; i < n; i++) {
		bg_benchmark *b = &ld->cfg->benchmarks[i];
		char epath[PATH_SIZE];

		path_index(epath, sizeof(epath), path, i);
		err = load_benchmark(ld, element(p, i), json_object_array_get_idx(a, i), epath, d,
		                     b, &name_lines[i]);
		if (err < 0)
			goto cleanup;
		for (j = 0; j < i; j++) {
			if (!strcmp(ld->cfg->benchmarks[j].name, b->name)) {
				err = fail(
				        ld, name_lines[i],
				        "%s.name: duplicate benchmark name %s (first at line %d)",
				        epath, quote(q, sizeof(q), b->name), name_lines[j]);
				goto cleanup;
			}
		}
		ld->cfg->nbenchmarks = i + 1;
	}
cleanup:
	free(name_lines);
	return err;
}

/* Alert strings: checked for ${...} syntax now, expanded only when sent. */
static int read_alert_string(struct loader *ld, const struct pos *p, const char *path,
                             json_object *v, const char **out)
{
	char msg[256];
	int err;

	if ((err = read_string(ld, p, path, v, out)) < 0)
		return err;
	if ((err = expand_vars(*out, strlen(*out), NULL, 0, msg, sizeof(msg))) < 0)
		return err == BG_ENOMEM ? oom(ld) : failp(ld, p->line, path, "%s", msg);
	return 0;
}

/* An alert URL: http(s), or a ${VAR} that will hold one. */
static int read_alert_url(struct loader *ld, const struct pos *p, const char *path, json_object *v,
                          const char **out)
{
	int err = read_alert_string(ld, p, path, v, out);

	if (err < 0)
		return err;
	if (strncmp(*out, "https://", 8) && strncmp(*out, "http://", 7) && strncmp(*out, "${", 2))
		return failp(ld, p->line, path, "must start with https:// or http://");
	/* Written out, it can be judged now rather than at every ci: a blank
	 * or a control character, or no host, is no URL a request can use. */
	if (!strchr(*out, '$')) {
		const char *host = strstr(*out, "://") + 3, *c;

		for (c = *out; *c; c++)
			if ((unsigned char)*c <= 0x20 || *c == 0x7f)
				return failp(ld, p->line, path,
				             "must not hold a blank or a control character");
		if (!*host || *host == '/' || *host == '?' || *host == '#' || *host == ':')
			return failp(ld, p->line, path, "names no host");
	}
	return 0;
}

static int only_digits(const char *s)
{
	if (*s < '1' || *s > '9')
		return 0;
	for (; *s; s++)
		if (!isdigit((unsigned char)*s))
			return 0;
	return 1;
}

static int load_alert_on(struct loader *ld, const struct pos *p, json_object *a, const char *path,
                         unsigned *mask)
{
	static const char *const events[] = { "regression", "improvement", "always" };
	size_t n, i, k;
	char q[96];

	if (want(ld, p, path, a, json_type_array, "an array") < 0)
		return BG_EINPUT;
	n = json_object_array_length(a);
	if (n == 0)
		return failp(ld, p->line, path,
		             "must name at least one of regression, improvement or always");
	*mask = 0;
	for (i = 0; i < n; i++) {
		const struct pos *ep = element(p, i);
		json_object *e = json_object_array_get_idx(a, i);
		char epath[PATH_SIZE];
		const char *s;

		path_index(epath, sizeof(epath), path, i);
		if (want(ld, ep, epath, e, json_type_string, "a string") < 0)
			return BG_EINPUT;
		s = json_object_get_string(e);
		for (k = 0; k < BG_ARRAY_SIZE(events) && strcmp(s, events[k]); k++)
			;
		if (k == BG_ARRAY_SIZE(events))
			return failp(
			        ld, ep->line, epath,
			        "unknown event %s (expected regression, improvement or always)",
			        quote(q, sizeof(q), s));
		*mask |= 1u << k; /* events[] is in BG_ALERT_ON_* bit order */
	}
	return 0;
}

int bg_config__valid_pr(const char *pr)
{
	size_t n = strlen(pr);

	/* Written out as the forge writes it: no sign, no leading zero, and
	 * within int64 (GitHub's and GitLab's numbers are), which json-c's
	 * integers would saturate at. */
	return only_digits(pr) && (n < 19 || (n == 19 && strcmp(pr, "9223372036854775807") <= 0));
}

int bg_config__valid_repo(const char *repo, int deep)
{
	const char *p = repo;

	if (deep && only_digits(repo))
		return 1;
	if (!strchr(repo, '/'))
		return 0;
	for (;;) {
		size_t n = strspn(
		        p, "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789._-");
		if (!n || (p[n] && p[n] != '/'))
			return 0;
		/* "." and ".." are no names: in a URL's path they are steps
		 * elsewhere ("o/.." would be the API's root). */
		if (p[0] == '.' && (n == 1 || (n == 2 && p[1] == '.')))
			return 0;
		if (!p[n])
			return 1;
		p += n + 1;
		if (!deep && strchr(p, '/'))
			return 0;
	}
}

/* A token or secret written out in the file ends up in the repository. */
static void warn_literal_secret(struct loader *ld, const struct pos *p, const char *path,
                                const char *value)
{
	if (value && !strstr(value, "${"))
		bg_log(ld->ctx, BG_LOG_WARN,
		       "%s:%d: %s is written out in the file; use \"${VAR}\" to keep the secret "
		       "out of the repository",
		       ld->name, p->line, path);
}

static int load_alert(struct loader *ld, const struct pos *p, json_object *o, const char *path,
                      bg_alert_cfg *al)
{
	const struct alert_kind *kind = NULL;
	const struct pos *kp;
	json_object *v;
	char kpath[PATH_SIZE], q[96];
	size_t i;
	int err;

	if (want(ld, p, path, o, json_type_object, "an object") < 0)
		return BG_EINPUT;
	if ((err = check_keys(ld, p, path, alert_keys, BG_ARRAY_SIZE(alert_keys))) < 0)
		return err;
	al->line = p->line;
	al->on = BG_ALERT_ON_REGRESSION;
	if (!member(p, o, "kind", path, &kp, &v, kpath, sizeof(kpath)))
		return failp(ld, p->line, path, "missing required key \"kind\"");
	if ((err = read_string(ld, kp, kpath, v, &al->kind)) < 0)
		return err;
	for (i = 0; i < BG_ARRAY_SIZE(alert_kinds); i++)
		if (!strcmp(al->kind, alert_kinds[i].name))
			kind = &alert_kinds[i];
	if (!kind)
		return failp(ld, kp->line, kpath,
		             "unknown alert kind %s (expected webhook, slack, github or gitlab)",
		             quote(q, sizeof(q), al->kind));
	/* A key the kind ignores would be a silently ignored setting. */
	for (i = 0; i < p->nkids; i++) {
		const char *key = p->kids[i].key;

		if (strcmp(key, "kind") && strcmp(key, "on") &&
		    !has_key(kind->takes, BG_ARRAY_SIZE(kind->takes), key))
			return failp(ld, p->kids[i].line, path,
			             "key %s does not apply to %s alerts", quote(q, sizeof(q), key),
			             kind->name);
	}

	if (member(p, o, "url", path, &kp, &v, kpath, sizeof(kpath)) &&
	    (err = read_alert_url(ld, kp, kpath, v, &al->url)) < 0)
		return err;
	if (member(p, o, "secret", path, &kp, &v, kpath, sizeof(kpath))) {
		if ((err = read_alert_string(ld, kp, kpath, v, &al->secret)) < 0)
			return err;
		warn_literal_secret(ld, kp, kpath, al->secret);
	}
	if (member(p, o, "repo", path, &kp, &v, kpath, sizeof(kpath))) {
		if ((err = read_alert_string(ld, kp, kpath, v, &al->repo)) < 0)
			return err;
		if (!strchr(al->repo, '$') && !bg_config__valid_repo(al->repo, kind->deep_repo))
			return failp(ld, kp->line, kpath, "expected %s, got %s",
			             kind->deep_repo ? "\"group/name\" or a project id"
			                             : "\"owner/name\"",
			             quote(q, sizeof(q), al->repo));
	}
	if (member(p, o, "token", path, &kp, &v, kpath, sizeof(kpath))) {
		if ((err = read_alert_string(ld, kp, kpath, v, &al->token)) < 0)
			return err;
		warn_literal_secret(ld, kp, kpath, al->token);
	}
	if (member(p, o, "pr", path, &kp, &v, kpath, sizeof(kpath))) {
		if (json_object_is_type(v, json_type_int)) {
			char num[32];
			int64_t n = json_object_get_int64(v);

			snprintf(num, sizeof(num), "%lld", (long long)n);
			/* json-c saturates what int64 cannot hold: the number as
			 * written, or refused. */
			if (n < 1 || strlen(num) != kp->end - kp->start ||
			    memcmp(num, ld->text + kp->start, strlen(num)))
				return failp(ld, kp->line, kpath, "must be a %s number (got %.*s)",
				             kind->thread, RAW(ld, kp));
			if (!(al->pr = arena_strdup(&ld->cfg->mem, num)))
				return oom(ld);
		} else if (!json_object_is_type(v, json_type_string)) {
			return failp(ld, kp->line, kpath, "expected a string or an integer, got %s",
			             type_name(v));
		} else {
			if ((err = read_alert_string(ld, kp, kpath, v, &al->pr)) < 0)
				return err;
			if (!strchr(al->pr, '$') && !bg_config__valid_pr(al->pr))
				return failp(ld, kp->line, kpath,
				             "expected a %s number or \"${VAR}\", got %s",
				             kind->thread, quote(q, sizeof(q), al->pr));
		}
	}
	if (member(p, o, "api_url", path, &kp, &v, kpath, sizeof(kpath)) &&
	    (err = read_alert_url(ld, kp, kpath, v, &al->api_url)) < 0)
		return err;
	al->timeout = BG_ALERT_TIMEOUT;
	if (member(p, o, "timeout", path, &kp, &v, kpath, sizeof(kpath))) {
		if ((err = read_timeout(ld, kp, kpath, v, &al->timeout)) < 0)
			return err;
		if (al->timeout > BG_ALERT_MAX_TIMEOUT)
			return failp(ld, kp->line, kpath, "must be at most %d seconds (got %.*s)",
			             BG_ALERT_MAX_TIMEOUT, RAW(ld, kp));
		/* A budget no request fits in: every alert would wait in the
		 * outbox for ever. */
		if (al->timeout < BG_ALERT_MIN_TIMEOUT)
			return failp(ld, kp->line, kpath,
			             "must be from %g to %d seconds (got %.*s): less leaves no "
			             "time to send an alert in",
			             BG_ALERT_MIN_TIMEOUT, BG_ALERT_MAX_TIMEOUT, RAW(ld, kp));
	}
	if (member(p, o, "on", path, &kp, &v, kpath, sizeof(kpath)) &&
	    (err = load_alert_on(ld, kp, v, kpath, &al->on)) < 0)
		return err;

	for (i = 0; i < BG_ARRAY_SIZE(kind->needs) && kind->needs[i]; i++)
		if (!pos_member(p, kind->needs[i]))
			return failp(ld, p->line, path,
			             "missing required key \"%s\" (%s alerts need %s)",
			             kind->needs[i], kind->name, kind->needs_text);
	return 0;
}

static int same_string(const char *a, const char *b)
{
	return a == b || (a && b && !strcmp(a, b));
}

/*
 * The target alerts[i] is the same as an earlier one: the strings that
 * identify a target in the outbox (lib/alert.c: kind, url, api_url and
 * repo as written; no secret is stored).  Two such entries could not tell
 * whose token or secret an alert waiting for them is sent with.
 */
static const bg_alert_cfg *same_target(const bg_config *cfg, size_t i)
{
	const bg_alert_cfg *a = &cfg->alerts[i];
	size_t k;

	for (k = 0; k < i; k++) {
		const bg_alert_cfg *b = &cfg->alerts[k];
		if (same_string(a->kind, b->kind) && same_string(a->url, b->url) &&
		    same_string(a->api_url, b->api_url) && same_string(a->repo, b->repo))
			return b;
	}
	return NULL;
}

static int load_alerts(struct loader *ld, const struct pos *root, json_object *obj)
{
	const struct pos *p;
	json_object *a;
	char path[PATH_SIZE];
	size_t n, i;
	int err;

	if (!member(root, obj, "alerts", "", &p, &a, path, sizeof(path)))
		return 0;
	if (want(ld, p, path, a, json_type_array, "an array") < 0)
		return BG_EINPUT;
	n = json_object_array_length(a);
	ld->cfg->alerts = arena_array(&ld->cfg->mem, n, sizeof(bg_alert_cfg));
	if (!ld->cfg->alerts)
		return oom(ld);
	for (i = 0; i < n; i++) {
		char epath[PATH_SIZE];
		const bg_alert_cfg *twin;

		path_index(epath, sizeof(epath), path, i);
		err = load_alert(ld, element(p, i), json_object_array_get_idx(a, i), epath,
		                 &ld->cfg->alerts[i]);
		if (err < 0)
			return err;
		ld->cfg->nalerts = i + 1;
		if ((twin = same_target(ld->cfg, i)) != NULL)
			return failp(ld, element(p, i)->line, epath,
			             "the same kind, url, api_url and repo as alerts[%zu] (line "
			             "%d); make them one entry: an alert waiting in the outbox "
			             "names its target by these, and could be sent with the "
			             "other's token or secret",
			             (size_t)(twin - ld->cfg->alerts), twin->line);
	}
	return 0;
}

static int load_root(struct loader *ld, const struct pos *root, json_object *obj)
{
	struct run_defaults d = { 2, 15, 60.0, NULL, 0, NULL, 0, 0 };
	const struct pos *kp;
	json_object *v;
	char kpath[PATH_SIZE], q[320];
	const char *why;
	int err;

	if (!json_object_is_type(obj, json_type_object))
		return fail(ld, root->line, "the configuration must be a JSON object, got %s",
		            type_name(obj));
	if ((err = check_keys(ld, root, "", root_keys, BG_ARRAY_SIZE(root_keys))) < 0)
		return err;
	if (member(root, obj, "project", "", &kp, &v, kpath, sizeof(kpath)) &&
	    (err = read_string(ld, kp, kpath, v, &ld->cfg->project)) < 0)
		return err;
	/* Shown in reports, alerts and CI logs: text that prints as what it is. */
	if (ld->cfg->project &&
	    (why = bg_results__bad_name(ld->cfg->project, strlen(ld->cfg->project), 0)) != NULL)
		return failp(ld, kp->line, kpath, "%s %s",
		             bg_text__quote(q, sizeof(q), ld->cfg->project), why);
	if (member(root, obj, "database", "", &kp, &v, kpath, sizeof(kpath)) &&
	    (err = read_string(ld, kp, kpath, v, &ld->cfg->database)) < 0)
		return err;
	if (ld->cfg->database && !*ld->cfg->database)
		return failp(ld, kp->line, kpath, "is empty (a file path or a postgresql:// URI)");
	if (ld->cfg->database) {
		char msg[256];

		/* Its ${VAR}s are read when it is opened; their syntax now. */
		if (expand_vars(ld->cfg->database, strlen(ld->cfg->database), NULL, 0, msg,
		                sizeof(msg)) < 0)
			return failp(ld, kp->line, kpath, "%s", msg);
	}
	if (member(root, obj, "build", "", &kp, &v, kpath, sizeof(kpath)) &&
	    (err = read_string(ld, kp, kpath, v, &ld->cfg->build)) < 0)
		return err;
	if ((err = load_baseline(ld, root, obj)) < 0 ||
	    (err = load_thresholds(ld, root, obj)) < 0 || (err = load_confirm(ld, root, obj)) < 0 ||
	    (err = load_defaults(ld, root, obj, &d)) < 0 ||
	    (err = load_benchmarks(ld, root, obj, &d)) < 0 ||
	    (err = load_alerts(ld, root, obj)) < 0)
		return err;
	return 0;
}

/* ------------------------------------------------------------ public API */

int bg_config_parse(bg_ctx *ctx, const char *name, const char *text, size_t len, bg_config **out)
{
	struct loader ld;
	struct scan sc;
	struct pos root;
	json_object *obj = NULL;
	bg_config *cfg = NULL;
	const char *nul;
	int err;

	BG_NEED_N(ctx, text, len);
	BG_NEED(ctx, out);
	*out = NULL;
	if ((err = bg_numbers_c(ctx)) < 0)
		return err;

	memset(&root, 0, sizeof(root));
	ld.ctx = ctx;
	ld.name = name ? name : "benchguard.json";
	ld.cfg = NULL;
	if (!text) {
		text = "";
		len = 0;
	}
	/* Editors on Windows like to start files with a byte-order mark. */
	if (len >= 3 && !memcmp(text, "\xef\xbb\xbf", 3)) {
		text += 3;
		len -= 3;
	}
	ld.text = text;
	ld.len = len;

	if (len > INT_MAX / 2)
		return fail(&ld, 1, "file too large");
	nul = memchr(text, '\0', len);
	if (nul)
		return fail(&ld, bg_line_of(text, len, (size_t)(nul - text)),
		            "unexpected NUL byte (is this a JSON file?)");
	scan_init(&sc, text, len, 0);
	if (skip_space(&sc) < 0)
		return fail(&ld, sc.eline, "%s", sc.emsg);
	if (sc.i == len)
		return fail(&ld, 1, "empty configuration");

	if ((err = parse_json(&ld, &obj)) < 0)
		goto cleanup;
	scan_init(&sc, text, len, 0);
	if (scan_document(&sc, &root) < 0) {
		err = fail(&ld, sc.eline, "%s", sc.emsg);
		goto cleanup;
	}

	cfg = calloc(1, sizeof(*cfg));
	if (!cfg || !(cfg->path = arena_strdup(&cfg->mem, ld.name)) ||
	    !(cfg->baseline.branch = arena_strdup(&cfg->mem, "main"))) {
		err = bg_error_oom(ctx);
		goto cleanup;
	}
	cfg->baseline.window = 20;
	cfg->baseline.min_runs = 5;
	cfg->thresholds.alpha = 0.01;
	cfg->thresholds.fdr = 1;
	cfg->thresholds.min_change = 0.02;
	cfg->thresholds.min_effect = 0.8;
	cfg->confirm.pairs = BG_CONFIRM_PAIRS;
	cfg->confirm.max_pairs = BG_CONFIRM_MAX_PAIRS;
	ld.cfg = cfg;
	if ((err = load_root(&ld, &root, obj)) < 0 || (err = register_secrets(ctx, cfg)) < 0)
		goto cleanup;
	*out = cfg;
	cfg = NULL;
cleanup:
	bg_config_free(cfg);
	json_object_put(obj);
	pos_free(&root);
	return err;
}

int bg_config_load(bg_ctx *ctx, const char *path, bg_config **out)
{
	char *text = NULL, why[512] = "";
	const char *msg;
	size_t len = 0, plen;
	int err;

	BG_NEED(ctx, path);
	BG_NEED(ctx, out);
	plen = strlen(path);
	*out = NULL;
	err = bg_read_file_max(ctx, path, CONFIG_MAX, &text, &len);
	if (err == BG_ENOMEM)
		return err;
	if (err < 0) {
		/* bg_read_file says "<path>: <strerror>"; a config that cannot be read is the
		 * user's to fix, so it is an input error. */
		msg = bg_ctx_error(ctx);
		if (!strncmp(msg, path, plen) && !strncmp(msg + plen, ": ", 2))
			msg += plen + 2;
		snprintf(why, sizeof(why), "%s", msg);
		return bg_error_set(ctx, BG_EINPUT, "%s: cannot read: %s", path, why);
	}
	err = bg_config_parse(ctx, path, text, len, out);
	free(text);
	return err;
}

void bg_config_free(bg_config *cfg)
{
	if (!cfg)
		return;
	arena_free(cfg->mem);
	free(cfg);
}

const char *bg_config_path(const bg_config *cfg)
{
	if (!cfg)
		return NULL;
	return cfg->path;
}

const char *bg_config_project(const bg_config *cfg)
{
	if (!cfg)
		return NULL;
	return cfg->project;
}

const char *bg_config_database(const bg_config *cfg)
{
	if (!cfg)
		return NULL;
	return cfg->database;
}

int bg_config_database_spec(bg_ctx *ctx, const bg_config *cfg, const char *workdir, char **out)
{
	char *x = NULL;
	int err = 0;

	BG_NEED(ctx, cfg);
	BG_NEED(ctx, out);

	*out = NULL;
	if (!cfg->database)
		return 0;
	/* A PostgreSQL string as written: the store expands it, and names
	 * the database in messages from what is written, not from a value. */
	if (bg_store_is_url(cfg->database)) {
		*out = bg_strdup(cfg->database);
		return *out ? 0 : bg_error_oom(ctx);
	}
	if ((err = bg_config_expand(ctx, cfg->database, &x)) < 0)
		return bg_error_set(ctx, err, "%s: \"database\": %s", cfg->path, bg_ctx_error(ctx));
	/* A relative file is the repository's, wherever benchguard runs. */
	if (!bg_store_is_url(x) && x[0] != '/' && workdir) {
		char *full = bg_printf("%s/%s", workdir, x);

		free(x);
		if (!(x = full))
			return bg_error_oom(ctx);
	}
	/* The store expands what it is given once more (a "${PGURL}", a file
	 * path), so each "$" of the value (a password's) stays one. */
	*out = bg_config__escape_vars(x);
	free(x);
	return *out ? 0 : bg_error_oom(ctx);
}

char *bg_config__escape_vars(const char *s)
{
	bg_buf b = BG_BUF_INIT;

	for (; *s; s++)
		if ((*s == '$' && bg_buf_put(&b, "$", 1) < 0) || bg_buf_put(&b, s, 1) < 0) {
			bg_buf_clear(&b);
			return NULL;
		}
	return b.ptr ? bg_buf_detach(&b) : bg_strdup("");
}

const char *bg_config_build(const bg_config *cfg)
{
	if (!cfg)
		return NULL;
	return cfg->build;
}

const bg_baseline_cfg *bg_config_baseline(const bg_config *cfg)
{
	if (!cfg)
		return NULL;
	return &cfg->baseline;
}

const bg_confirm_cfg *bg_config_confirm(const bg_config *cfg)
{
	if (!cfg)
		return NULL;
	return &cfg->confirm;
}

const bg_thresholds *bg_config_thresholds(const bg_config *cfg)
{
	if (!cfg)
		return NULL;
	return &cfg->thresholds;
}

size_t bg_config_benchmark_count(const bg_config *cfg)
{
	if (!cfg)
		return 0;
	return cfg->nbenchmarks;
}

void bg_config__apply_directions(const bg_config *cfg, bg_results *res)
{
	size_t i, j, n = bg_results_series_count(res);

	if (!cfg)
		return;
	for (i = 0; i < n; i++) {
		const bg_series *s = bg_results_series(res, i);
		const bg_benchmark *best = NULL;
		size_t longest = 0;

		for (j = 0; j < cfg->nbenchmarks; j++) {
			const bg_benchmark *b = &cfg->benchmarks[j];
			size_t len = strlen(b->name);

			if (!strcmp(s->benchmark, b->name)) {
				best = b;
				break;
			}
			if (len > longest && !strncmp(s->benchmark, b->name, len) &&
			    s->benchmark[len] == '/') {
				best = b;
				longest = len;
			}
		}
		for (j = 0; best && j < best->nmetrics; j++)
			if (!strcmp(best->metrics[j].metric, s->metric))
				bg_results_set_direction(res, s->benchmark, s->metric,
				                         best->metrics[j].direction);
	}
}

const bg_benchmark *bg_config_benchmark(const bg_config *cfg, size_t i)
{
	if (!cfg)
		return NULL;
	return i < cfg->nbenchmarks ? &cfg->benchmarks[i] : NULL;
}

size_t bg_config_alert_count(const bg_config *cfg)
{
	if (!cfg)
		return 0;
	return cfg->nalerts;
}

const bg_alert_cfg *bg_config_alert(const bg_config *cfg, size_t i)
{
	if (!cfg)
		return NULL;
	return i < cfg->nalerts ? &cfg->alerts[i] : NULL;
}

/* ---------------------------------------------------------------- starter */

const char *bg_config_starter(void)
{
	return "// benchguard.json: the benchmarks of this repository, for `benchguard run`,\n"
	       "// `check` and `ci`.  Comments like this one are allowed; unknown keys are an\n"
	       "// error, so a typo never goes unnoticed.\n"
	       "{\n"
	       "  // Shown in reports and alerts.\n"
	       "  \"project\": \"myproject\",\n"
	       "  // Run once per checkout before benchmarking; remove it if nothing needs "
	       "building.\n"
	       "  \"build\": \"make\",\n"
	       "  // A run is judged against the last `window` runs of `branch` on the same\n"
	       "  // machine; with fewer than `min_runs` of them the verdict is \"no-baseline\".\n"
	       "  \"baseline\": { \"branch\": \"main\", \"window\": 20, \"min_runs\": 5 },\n"
	       "  // A regression needs all three: p-value below `alpha` (adjusted across the\n"
	       "  // suite when `fdr` is true), a change of the mean of at least `min_change`\n"
	       "  // (0.02 = 2%), and an effect size (Hedges' g) of at least `min_effect`.\n"
	       "  \"thresholds\": { \"alpha\": 0.01, \"fdr\": true, \"min_change\": 0.02, "
	       "\"min_effect\": 0.8 },\n"
	       "  // `ci` measures what its first run flags, or cannot clear, again in pairs\n"
	       "  // beside the baseline's newest commit: `pairs` at the first look, then\n"
	       "  // twice as many until the data decide, at most `max_pairs`; 0 pairs: none.\n"
	       "  \"confirm\": { \"pairs\": 4, \"max_pairs\": 32 },\n"
	       "  // For every benchmark unless it sets its own: executions thrown away first,\n"
	       "  // samples kept, and seconds before one execution is killed.\n"
	       "  \"defaults\": { \"warmup\": 2, \"samples\": 15, \"timeout\": 60 },\n"
	       "  \"benchmarks\": [\n"
	       "    // \"format\": \"time\" (the default): benchguard times the whole command.\n"
	       "    // Names may not contain spaces or ':'.\n"
	       "    { \"name\": \"startup\", \"command\": \"./build/myprog --version\" },\n"
	       "    // \"format\": \"lines\": the command prints its own samples, one per line:\n"
	       "    //   BENCHGUARD <metric> <value> <unit>      e.g. BENCHGUARD parse 12.5 ms\n"
	       "    // Rates (a unit per unit of time: MB/s, ops/sec) are higher-is-better,\n"
	       "    // others lower; \"metrics\" overrides"
	       " that.  \"requires\" skips the benchmark where a\n"
	       "    // command (or \"cuda\") is missing.\n"
	       "    {\n"
	       "      \"name\": \"parser\",\n"
	       "      \"command\": \"python3 bench/parser.py --quick\",\n"
	       "      \"format\": \"lines\",\n"
	       "      \"requires\": [\"python3\"],\n"
	       "      \"samples\": 5,\n"
	       "      \"timeout\": 120,\n"
	       "      \"metrics\": { \"cache_hits\": { \"direction\": \"higher\" } }\n"
	       "    }\n"
	       "  ]\n"
	       "  // Alerts, sent on a regression by default; ${VAR} is read from the\n"
	       "  // environment when an alert is sent, so secrets stay out of this file.\n"
	       "  // Add a comma after the \"]\" above when you uncomment this.\n"
	       "  // \"alerts\": [\n"
	       "  //   { \"kind\": \"slack\", \"url\": \"${SLACK_WEBHOOK_URL}\" },\n"
	       "  //   { \"kind\": \"github\", \"repo\": \"owner/name\", \"token\": "
	       "\"${GITHUB_TOKEN}\",\n"
	       "  //     \"pr\": \"${PR_NUMBER}\", \"on\": [\"regression\", \"improvement\"] }\n"
	       "  // ]\n"
	       "}\n";
}

/* One field of a definition: its name, then its text with its length, so
 * that no two definitions run together into the same bytes. */
static int definition_put(bg_buf *b, const char *field, const char *text)
{
	return bg_buf_printf(b, "%s %zu:%s\n", field, text ? strlen(text) : 0, text ? text : "");
}

int bg_config__definition(const bg_config *cfg, const bg_benchmark *bench, const bg_suite_opts *o,
                          char out[65])
{
	bg_buf b = BG_BUF_INIT;
	int samples = o->samples >= 0 ? o->samples : bench->samples;
	int warmup = o->warmup >= 0 ? o->warmup : bench->warmup;
	double timeout = o->timeout > 0 ? o->timeout : bench->timeout;
	size_t i, k;
	int error = 0;

	out[0] = '\0';
	/* As the runner resolves them (lib/runner.c). */
	if (samples < 0)
		samples = 0;
	if (warmup < 0)
		warmup = 0;
	if (definition_put(&b, "build", cfg ? bg_config_build(cfg) : NULL) < 0 ||
	    definition_put(&b, "command", bench->command) < 0 ||
	    definition_put(&b, "format", bg_format_name(bench->format)) < 0 ||
	    bg_buf_printf(&b, "samples %d\nwarmup %d\ntimeout %.17g\nkernel %d\n", samples, warmup,
	                  timeout, bench->kernel ? 1 : 0) < 0)
		goto oom;
	for (i = 0; i < bench->nrequires; i++)
		if (definition_put(&b, "requires", bench->requires[i]) < 0)
			goto oom;
	for (i = 0; i < bench->nmeasure; i++) {
		if (bg_buf_printf(&b, "measure %zu\n", bench->measure[i].nalt) < 0)
			goto oom;
		for (k = 0; k < bench->measure[i].nalt; k++)
			if (definition_put(&b, "instrument",
			                   bg_instrument_name(bench->measure[i].alt[k])) < 0)
				goto oom;
	}
	if (bench->events && bg_buf_printf(&b, "events %zu\n", bench->nevents) < 0)
		goto oom;
	for (i = 0; bench->events && i < bench->nevents; i++)
		if (definition_put(&b, "event", bench->events[i]) < 0)
			goto oom;
	error = bg_sha256_hex(b.ptr, b.len, out) < 0 ? BG_ERROR : 0;
	bg_buf_clear(&b);
	return error;
oom:
	bg_buf_clear(&b);
	return BG_ENOMEM;
}
