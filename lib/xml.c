/*
 * xml.c -- XML in and out, the one module that uses libxml2: reading
 * Catch2's XML reporter (a result format, registered in formats.c) and
 * writing a document element by element over xmlTextWriter (the JUnit
 * report of a verdict, check_render.c).
 *
 * Every document read comes from memory, never from a URL, and libxml2 is held
 * to what an outside file may ask of it: no network, no DTD loaded, no
 * entity substituted.  Its messages go to a handler set on each parser
 * context, never to stderr or to libxml2's process-wide handlers, so two
 * threads can parse at once and the library stays silent.
 *
 * libxml2 is loaded when a document is first read or written (lib/dl.c),
 * not linked: Debian's brings ICU and liblzma, eight libraries that every
 * run, `benchguard --version` included, mapped and relocated for nothing
 * (2.3 ms became 3.3 ms).  The parse and the writer each hold the handle
 * and the table of the functions they call.
 */
#include <limits.h>
#include <locale.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <libxml/parser.h>
#include <libxml/tree.h>
#include <libxml/xmlerror.h>
#include <libxml/xmlwriter.h>

#include "xml.h"

/* The library by its soname, the name of its ABI, which the runtime
 * package installs (Debian's libxml2): the bare libxml2.so is only there
 * with the development package. */
#define XML_SONAME "libxml2.so.2"
#define XML_LIBRARY "the XML library"

/* The libxml2 functions used here; their types are the headers'.  xmlFree
 * is a variable holding the deallocator: its slot is that variable's
 * address, called as (*x->xmlFree)(p). */
#if LIBXML_VERSION >= 21300
#define XML_SET_ERROR_HANDLER(X) X(xmlCtxtSetErrorHandler)
#else
#define XML_SET_ERROR_HANDLER(X)
#endif
#define XML_FUNCTIONS(X)                                                                           \
	X(xmlBufferContent)                                                                        \
	X(xmlBufferCreate)                                                                         \
	X(xmlBufferFree)                                                                           \
	X(xmlCtxtReadMemory)                                                                       \
	X(xmlDocGetRootElement)                                                                    \
	X(xmlFree)                                                                                 \
	X(xmlFreeDoc)                                                                              \
	X(xmlFreeNode)                                                                             \
	X(xmlFreeParserCtxt)                                                                       \
	X(xmlFreeTextWriter)                                                                       \
	X(xmlGetLineNo)                                                                            \
	X(xmlGetNoNsProp)                                                                          \
	X(xmlNewParserCtxt)                                                                        \
	X(xmlNewTextWriterMemory)                                                                  \
	X(xmlNodeGetContent)                                                                       \
	X(xmlStopParser)                                                                           \
	X(xmlTextWriterEndDocument)                                                                \
	X(xmlTextWriterEndElement)                                                                 \
	X(xmlTextWriterFlush)                                                                      \
	X(xmlTextWriterSetIndent)                                                                  \
	X(xmlTextWriterSetIndentString)                                                            \
	X(xmlTextWriterStartDocument)                                                              \
	X(xmlTextWriterStartElement)                                                               \
	X(xmlTextWriterWriteAttribute)                                                             \
	X(xmlTextWriterWriteString)                                                                \
	X(xmlUnlinkNode)                                                                           \
	XML_SET_ERROR_HANDLER(X)

typedef struct {
	void *dl; /* NULL: not loaded */
#define XML_POINTER(f) __typeof__(&f) f;
	XML_FUNCTIONS(XML_POINTER)
#undef XML_POINTER
} xml_lib;

/* libxml2 into x, or an error that names it (and how the loader failed). */
static int xml_load(bg_ctx *ctx, xml_lib *x)
{
#define XML_NAME(f) #f,
#define XML_SLOT(f) &x->f,
	static const char *const names[] = { XML_FUNCTIONS(XML_NAME) };
	void *const slots[] = { XML_FUNCTIONS(XML_SLOT) };
#undef XML_NAME
#undef XML_SLOT

	return bg_dl__load(ctx, XML_SONAME, XML_LIBRARY, names, slots, BG_ARRAY_SIZE(names),
	                   &x->dl);
}

/* What libxml2 allocated, freed by its own deallocator. */
static void xml_free(const xml_lib *x, void *p)
{
	if (p)
		(*x->xmlFree)(p);
}

/* ---------------------------------------- reading: Catch2's XML reporter */

/*
 * Catch2's XML reporter (`-r xml`), v2 and v3 alike:
 *
 *   <Catch> (v2) or <Catch2TestRun> (v3)
 *     [<Group>]                       v2 only
 *       <TestCase name=...>
 *         <Section name=...>          nested as the SECTIONs are
 *           <BenchmarkResults name=... samples=...>
 *             <mean value=... lowerBound=... upperBound=... ci=.../>
 *             <standardDeviation .../> <outliers .../>
 *           or <failed message=.../>  the benchmark threw
 *         <Expression success="false">, <Exception>, <Skip> (v3) ...
 *         <OverallResult success=... [skips=...]/>
 *
 * Values are in nanoseconds (the reporter's own comment says so).  The
 * file has summaries only, no samples: each benchmark's mean is the run's
 * one sample, as for nvbench without --jsonbin; the run is the unit of
 * replication, so the verdict does not depend on the samples inside it.
 *
 * A benchmark that threw, or a test case that failed after its benchmarks
 * ran, rejects the whole file, as a failed Google Benchmark run or a
 * "--- FAIL" of go test does: what was measured may not be what the
 * benchmark meant to measure.  A test case that SKIPped is a skipped
 * outcome.
 */

/* Catch2 nests a few elements per SECTION level; deeper is no report of its. */
#define C2_DEPTH 64
/* The part of a failure's text or libxml2's message quoted back. */
#define C2_QUOTE 160

typedef struct {
	bg_ctx *ctx;
	const xml_lib *x;
	const char *source;
	const char *benchmark; /* the caller's prefix, or NULL */
	bg_results *out;
	locale_t c_locale;
	bg_buf series; /* "<benchmark>/<test case>/<section>/..." */
	bg_buf path;   /* `TestCase "x"/Section "y"/...` for messages */
	size_t nresults, nskipped;
	/* The first error libxml2 reported, and where a DOCTYPE began. */
	int xml_failed;
	long xml_line;
	char xml_msg[256];
	long doctype_line;
	/* Test cases are judged as their end tag is read, then freed: the
	 * first error among them, and libxml2's own end-of-element handler. */
	int rc;
	endElementNsSAX2Func sax_end;
} c2_state;

static int c2_error(c2_state *st, const xmlNode *at, const char *fmt, ...) BG_PRINTF(3, 4);

/* BG_EINPUT "<source>:<line>: <element path>: <what>". */
static int c2_error(c2_state *st, const xmlNode *at, const char *fmt, ...)
{
	char what[768];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(what, sizeof(what), fmt, ap);
	va_end(ap);
	if (st->path.len)
		return bg_error_set(st->ctx, BG_EINPUT, "%s:%ld: %s: %s", st->source,
		                    st->x->xmlGetLineNo(at), st->path.ptr, what);
	return bg_error_set(st->ctx, BG_EINPUT, "%s:%ld: %s", st->source, st->x->xmlGetLineNo(at),
	                    what);
}

static int c2_is(const xmlNode *node, const char *name)
{
	return node && node->type == XML_ELEMENT_NODE && !strcmp((const char *)node->name, name);
}

static const xmlNode *c2_child(const xmlNode *parent, const char *name)
{
	const xmlNode *c;

	for (c = parent->children; c; c = c->next)
		if (c2_is(c, name))
			return c;
	return NULL;
}

/* An attribute's value (the caller xmlFree()s it), or NULL when absent. */
static char *c2_attr(const xml_lib *x, const xmlNode *node, const char *name)
{
	return (char *)x->xmlGetNoNsProp(node, (const xmlChar *)name);
}

/*
 * Appends `<element> "<name>"` to the path and "/<name>" to the series,
 * once the name passed the checks every stored name passes; *mark keeps
 * both lengths for c2_pop().
 */
static int c2_push(c2_state *st, const xmlNode *node, size_t mark[2])
{
	char *name = c2_attr(st->x, node, "name");
	char q[C2_QUOTE];
	const char *why;
	int rc = 0;

	mark[0] = st->series.len;
	mark[1] = st->path.len;
	if (!name) {
		rc = c2_error(st, node, "<%s> has no name", (const char *)node->name);
		goto cleanup;
	}
	why = *name ? bg_results__bad_name(name, strlen(name), 0) : "is empty";
	if (why) {
		rc = c2_error(st, node, "%s name %s %s", (const char *)node->name,
		              bg_text__quote(q, sizeof(q), name), why);
		goto cleanup;
	}
	if (bg_buf_printf(&st->path, "%s%s %s", st->path.len ? "/" : "", (const char *)node->name,
	                  bg_text__quote(q, sizeof(q), name)) < 0 ||
	    bg_buf_printf(&st->series, "%s%s", st->series.len ? "/" : "", name) < 0)
		rc = bg_error_oom(st->ctx);

cleanup:
	xml_free(st->x, name);
	return rc;
}

static void c2_pop(c2_state *st, const size_t mark[2])
{
	st->series.len = mark[0];
	st->path.len = mark[1];
	if (st->series.ptr)
		st->series.ptr[mark[0]] = '\0';
	if (st->path.ptr)
		st->path.ptr[mark[1]] = '\0';
}

/*
 * An element's text without the blanks Catch2 indents it with: *text (the
 * caller xmlFree()s it) and *n.  NULL node: "".
 */
static const char *c2_text(const xml_lib *x, const xmlNode *node, char **text, size_t *n)
{
	const char *p;

	*text = node ? (char *)x->xmlNodeGetContent(node) : NULL;
	p = *text ? *text : "";
	p += strspn(p, " \t\r\n");
	*n = strlen(p);
	while (*n && strchr(" \t\r\n", p[*n - 1]))
		(*n)--;
	return p;
}

/* The same, quoted for a message. */
static const char *c2_quote_text(const xml_lib *x, char *buf, size_t size, const xmlNode *node)
{
	char *text;
	size_t n;
	const char *p = c2_text(x, node, &text, &n);

	bg_text__quote_n(buf, size, p, n);
	xml_free(x, text);
	return buf;
}

/*
 * Why a test case failed, in Catch2's words: its first failed assertion,
 * exception, FAIL() or fatal signal, searched depth-first; NULL if none.
 */
static const xmlNode *c2_failure(const xml_lib *x, const xmlNode *parent, int depth)
{
	const xmlNode *c, *f;
	char *ok;
	int failed;

	if (depth > C2_DEPTH)
		return NULL;
	for (c = parent->children; c; c = c->next) {
		if (c->type != XML_ELEMENT_NODE)
			continue;
		if (c2_is(c, "Expression")) {
			ok = c2_attr(x, c, "success");
			failed = ok && !strcmp(ok, "false");
			xml_free(x, ok);
			if (failed)
				return c;
		}
		if (c2_is(c, "Exception") || c2_is(c, "Failure") || c2_is(c, "FatalErrorCondition"))
			return c;
		if (c2_is(c, "Section") && (f = c2_failure(x, c, depth + 1)) != NULL)
			return f;
	}
	return NULL;
}

static int c2_benchmark(c2_state *st, const xmlNode *node)
{
	const xmlNode *failed, *mean;
	char *msg = NULL, *value = NULL, *end, q[C2_QUOTE];
	size_t mark[2];
	double v;
	int rc;

	if ((rc = c2_push(st, node, mark)) < 0)
		return rc;
	if ((failed = c2_child(node, "failed")) != NULL) {
		msg = c2_attr(st->x, failed, "message");
		rc = c2_error(st, failed,
		              "failed: %s; benchguard stores no results of a run with a failed "
		              "benchmark",
		              bg_text__quote(q, sizeof(q), msg ? msg : ""));
		goto cleanup;
	}
	if (!(mean = c2_child(node, "mean"))) {
		rc = c2_error(st, node, "no <mean>");
		goto cleanup;
	}
	if (!(value = c2_attr(st->x, mean, "value"))) {
		rc = c2_error(st, mean, "<mean> has no value");
		goto cleanup;
	}
	v = strtod_l(value, &end, st->c_locale);
	if (end == value || *end || !isfinite(v)) {
		rc = c2_error(st, mean, "mean value %s is not a finite number",
		              bg_text__quote(q, sizeof(q), value));
		goto cleanup;
	}
	/* Catch2 writes decimals; "0x10" read as 16 ns would be a made-up time. */
	if (!bg_text__decimal(value, strlen(value))) {
		rc = c2_error(st, mean, "mean value %s is not a decimal number",
		              bg_text__quote(q, sizeof(q), value));
		goto cleanup;
	}
	if (v < 0) {
		rc = c2_error(st, mean, "mean value %s is negative, not a time",
		              bg_text__quote(q, sizeof(q), value));
		goto cleanup;
	}
	if ((rc = bg_results_add(st->ctx, st->out, st->series.ptr, "time", "ns", v)) < 0) {
		if (rc != BG_ENOMEM)
			rc = c2_error(st, mean, "%s", bg_ctx_error(st->ctx));
		goto cleanup;
	}
	/* One sample per benchmark and run, or a second would count as a
	 * replicate of the first.  Catch2 runs a test case once per leaf
	 * SECTION, and so a BENCHMARK outside the sections once per section.
	 * Every series has one sample: one more series than results, or a
	 * name came twice (no lookup per benchmark). */
	if (bg_results_series_count(st->out) != ++st->nresults)
		rc = c2_error(st, node,
		              "a second benchmark of this name in this place (a BENCHMARK "
		              "outside the SECTIONs of its test case runs once per section)");

cleanup:
	xml_free(st->x, msg);
	xml_free(st->x, value);
	c2_pop(st, mark);
	return rc;
}

static int c2_walk(c2_state *st, const xmlNode *parent, int depth);

/* A failed test case fails the file when it measured something. */
static int c2_test_case(c2_state *st, const xmlNode *node, int depth)
{
	size_t mark[2], before = st->nresults;
	const xmlNode *result, *why, *skip;
	char *success = NULL, *skips = NULL, *type = NULL, *text = NULL;
	char q[C2_QUOTE], q2[C2_QUOTE], what[2 * C2_QUOTE + 64];
	const char *reason, *why_bad;
	size_t n;
	bg_buf msg = BG_BUF_INIT;
	int rc;

	if ((rc = c2_push(st, node, mark)) < 0)
		return rc;
	if ((rc = c2_walk(st, node, depth + 1)) < 0)
		goto cleanup;
	if (!(result = c2_child(node, "OverallResult"))) {
		rc = c2_error(st, node, "no <OverallResult>: cannot tell whether it passed");
		goto cleanup;
	}
	success = c2_attr(st->x, result, "success");
	if (success && !strcmp(success, "false") && st->nresults > before) {
		if (!(why = c2_failure(st->x, node, 0))) {
			rc = c2_error(st, result,
			              "failed; benchguard stores no results of a run with a failed "
			              "benchmark");
			goto cleanup;
		}
		if (c2_is(why, "Expression")) {
			type = c2_attr(st->x, why, "type");
			snprintf(what, sizeof(what), "%s %s, expanded %s", type ? type : "CHECK",
			         c2_quote_text(st->x, q, sizeof(q), c2_child(why, "Original")),
			         c2_quote_text(st->x, q2, sizeof(q2), c2_child(why, "Expanded")));
		} else {
			snprintf(what, sizeof(what), "%s %s", (const char *)why->name,
			         c2_quote_text(st->x, q, sizeof(q), why));
		}
		rc = c2_error(st, why,
		              "failed after its benchmarks ran: %s; benchguard stores no results "
		              "of a run with a failed benchmark",
		              what);
		goto cleanup;
	}
	/* v3's SKIP(): skips="1" and a <Skip> with the reason, kept as the
	 * outcome's message once it passed the checks of stored text. */
	skips = c2_attr(st->x, result, "skips");
	if (skips && strcmp(skips, "0") != 0) {
		skip = c2_child(node, "Skip");
		reason = c2_text(st->x, skip, &text, &n);
		if ((why_bad = bg_results__bad_name(reason, n, 1)) != NULL) {
			rc = c2_error(st, skip ? skip : result, "SKIP reason %s %s",
			              bg_text__quote_n(q, sizeof(q), reason, n), why_bad);
			goto cleanup;
		}
		if (bg_buf_puts(&msg, "skipped by Catch2 (SKIP)") < 0 ||
		    (n && bg_buf_printf(&msg, ": %.*s", (int)n, reason) < 0)) {
			rc = bg_error_oom(st->ctx);
			goto cleanup;
		}
		st->nskipped++;
		rc = bg_results_set_outcome(st->ctx, st->out, st->series.ptr, BG_BENCH_SKIPPED,
		                            msg.ptr);
	}

cleanup:
	xml_free(st->x, success);
	xml_free(st->x, skips);
	xml_free(st->x, type);
	xml_free(st->x, text);
	bg_buf_clear(&msg);
	c2_pop(st, mark);
	return rc;
}

static int c2_walk(c2_state *st, const xmlNode *parent, int depth)
{
	const xmlNode *c;
	size_t mark[2];
	int rc = 0;

	for (c = parent->children; c && rc == 0; c = c->next) {
		if (c->type != XML_ELEMENT_NODE)
			continue;
		/* Without the path, which would be as long as the nesting is deep. */
		if (depth >= C2_DEPTH)
			return bg_error_set(st->ctx, BG_EINPUT,
			                    "%s:%ld: elements nested deeper than %d levels",
			                    st->source, st->x->xmlGetLineNo(c), C2_DEPTH);
		if (c2_is(c, "Group") && depth == 1)
			rc = c2_walk(st, c, depth + 1);
		else if (c2_is(c, "TestCase"))
			rc = c2_test_case(st, c, depth);
		else if (c2_is(c, "Section")) {
			if ((rc = c2_push(st, c, mark)) < 0)
				return rc;
			rc = c2_walk(st, c, depth + 1);
			c2_pop(st, mark);
		} else if (c2_is(c, "BenchmarkResults"))
			rc = c2_benchmark(st, c);
	}
	return rc;
}

/*
 * libxml2's messages, kept rather than printed: the first error says
 * where the document went wrong, what follows it is mostly consequence.
 */
static void c2_keep_error(c2_state *st, const xmlError *err)
{
	size_t n;

	if (!err || err->level < XML_ERR_ERROR || st->xml_failed)
		return;
	st->xml_failed = 1;
	st->xml_line = err->line;
	snprintf(st->xml_msg, sizeof(st->xml_msg), "%s",
	         err->message ? err->message : "not well-formed XML");
	n = strlen(st->xml_msg);
	while (n && (st->xml_msg[n - 1] == '\n' || st->xml_msg[n - 1] == ' '))
		st->xml_msg[--n] = '\0';
}

#if LIBXML_VERSION >= 21300
static void c2_on_error(void *data, const xmlError *err)
{
	c2_keep_error(data, err);
}
#else
/* Before 2.13 the parser hands its context's userData (the context itself). */
#if LIBXML_VERSION >= 21200
static void c2_on_error(void *data, const xmlError *err)
#else
static void c2_on_error(void *data, xmlErrorPtr err)
#endif
{
	c2_keep_error(((xmlParserCtxtPtr)data)->_private, err);
}
#endif

static int c2_check_root(c2_state *st, const xmlNode *root)
{
	char q[C2_QUOTE];

	if (c2_is(root, "Catch") || c2_is(root, "Catch2TestRun"))
		return 0;
	return c2_error(st, root,
	                "root element %s is not Catch2's <Catch> or <Catch2TestRun> (-r xml)",
	                bg_text__quote(q, sizeof(q), (const char *)root->name));
}

/*
 * The end of an element: a test case of the root (or of v2's <Group>) is
 * complete, so it is judged now and its subtree freed.  A report of a
 * large suite then never stands in memory whole: 100,000 benchmarks took
 * 650 MB as one tree.  An error stops the parser.
 */
static void c2_on_end(void *data, const xmlChar *localname, const xmlChar *prefix,
                      const xmlChar *uri)
{
	xmlParserCtxtPtr pctx = data;
	c2_state *st = pctx->_private;
	xmlNodePtr node = pctx->node, parent;
	int depth;

	st->sax_end(data, localname, prefix, uri);
	if (st->rc < 0 || !node || !c2_is(node, "TestCase") || !(parent = node->parent) ||
	    parent->type != XML_ELEMENT_NODE)
		return;
	if (parent->parent && parent->parent->type == XML_DOCUMENT_NODE)
		depth = 1;
	else if (c2_is(parent, "Group") && parent->parent &&
	         parent->parent->type == XML_ELEMENT_NODE && parent->parent->parent &&
	         parent->parent->parent->type == XML_DOCUMENT_NODE)
		depth = 2;
	else
		return; /* not where Catch2 writes a test case: left to c2_walk() */
	if ((st->rc = c2_check_root(st, depth == 1 ? parent : parent->parent)) == 0)
		st->rc = c2_test_case(st, node, depth);
	st->x->xmlUnlinkNode(node);
	st->x->xmlFreeNode(node);
	/*
	 * libxml2 appends the next text to the parent's last child in place
	 * when that is a text node, trusting its record of that node's length
	 * and room (nodelen, nodemem): a record of the last text node it made,
	 * which may have been inside the subtree just freed.  With the test
	 * case gone, text written before it (`<Catch2TestRun>x<TestCase>`) is
	 * the last child again, so that record would have libxml2 write past
	 * its buffer.  0: no record, and libxml2 measures the node first.
	 */
	pctx->nodelen = 0;
	pctx->nodemem = 0;
	if (st->rc < 0)
		st->x->xmlStopParser(pctx);
}

/*
 * A DOCTYPE stops the parse where it starts, before its internal subset is
 * read: Catch2 writes none, and entity declarations (billion laughs,
 * external entities) are only ever in one.
 */
static void c2_on_doctype(void *data, const xmlChar *name, const xmlChar *external_id,
                          const xmlChar *system_id)
{
	xmlParserCtxtPtr pctx = data;
	c2_state *st = pctx->_private;

	(void)name;
	(void)external_id;
	(void)system_id;
	st->doctype_line = pctx->input ? pctx->input->line : 1;
	st->x->xmlStopParser(pctx);
}

int bg_xml__parse_catch2(bg_ctx *ctx, const char *source, const char *benchmark, const char *dir,
                         const char *data, size_t len, bg_results *out)
{
	c2_state st = { .ctx = ctx,
		        .source = source,
		        .benchmark = benchmark,
		        .out = out,
		        .series = BG_BUF_INIT,
		        .path = BG_BUF_INIT };
	xml_lib x = { .dl = NULL };
	xmlParserCtxtPtr pctx = NULL;
	xmlDocPtr doc = NULL;
	const xmlNode *root;
	size_t blank;
	int rc = 0;

	(void)dir;
	st.x = &x;
	for (blank = 0; blank < len && data[blank] && strchr(" \t\r\n", data[blank]); blank++)
		;
	if (blank == len)
		return bg_error_set(ctx, BG_EINPUT, "%s: no XML in output (Catch2 -r xml)", source);
	if (len > BG_READ_MAX || len > INT_MAX)
		return bg_error_set(ctx, BG_EINPUT, "%s: XML output larger than %zu MiB", source,
		                    BG_READ_MAX >> 20);
	if ((rc = xml_load(ctx, &x)) < 0)
		return rc;
	if (!(st.c_locale = newlocale(LC_NUMERIC_MASK, "C", (locale_t)0))) {
		rc = bg_error_errno(ctx, BG_ERROR, "cannot create the C locale");
		goto cleanup;
	}
	if (!(pctx = x.xmlNewParserCtxt())) {
		rc = bg_error_oom(ctx);
		goto cleanup;
	}
	pctx->_private = &st;
#if LIBXML_VERSION >= 21300
	x.xmlCtxtSetErrorHandler(pctx, c2_on_error, &st);
#else
	pctx->sax->serror = c2_on_error;
#endif
	pctx->sax->internalSubset = c2_on_doctype;
	if (st.benchmark && bg_buf_puts(&st.series, st.benchmark) < 0) {
		rc = bg_error_oom(ctx);
		goto cleanup;
	}
	st.sax_end = pctx->sax->endElementNs;
	pctx->sax->endElementNs = c2_on_end;
	/* No NOENT, DTDLOAD or DTDATTR: nothing outside the text is read or
	 * expanded.  Without HUGE, libxml2 keeps its own bounds on depth and
	 * on the size of a name or text node.  BIG_LINES: lines past 65535. */
	doc = x.xmlCtxtReadMemory(pctx, data, (int)len, NULL, NULL,
	                          XML_PARSE_NONET | XML_PARSE_NOERROR | XML_PARSE_NOWARNING |
	                                  XML_PARSE_BIG_LINES | XML_PARSE_NOBLANKS |
	                                  XML_PARSE_COMPACT);
	if (st.doctype_line) {
		rc = bg_error_set(ctx, BG_EINPUT,
		                  "%s:%ld: a DOCTYPE: Catch2 writes none, and benchguard reads no "
		                  "DTD or entity declarations",
		                  source, st.doctype_line);
		goto cleanup;
	}
	if (st.rc < 0) {
		rc = st.rc;
		goto cleanup;
	}
	if (!doc || st.xml_failed) {
		rc = bg_error_set(ctx, BG_EINPUT, "%s:%ld: %s", source,
		                  st.xml_failed ? st.xml_line : 1L,
		                  st.xml_failed ? st.xml_msg : "not well-formed XML");
		goto cleanup;
	}
	root = x.xmlDocGetRootElement(doc);
	if (!root) {
		rc = bg_error_set(ctx, BG_EINPUT, "%s: no XML element in output", source);
		goto cleanup;
	}
	if ((rc = c2_check_root(&st, root)) < 0 || (rc = c2_walk(&st, root, 1)) < 0)
		goto cleanup;
	if (!st.nresults && !st.nskipped)
		rc = bg_error_set(ctx, BG_EINPUT,
		                  "%s: no benchmark results in output (Catch2 -r xml)", source);

cleanup:
	if (doc)
		x.xmlFreeDoc(doc);
	if (pctx)
		x.xmlFreeParserCtxt(pctx);
	bg_dl__close(x.dl);
	bg_buf_clear(&st.series);
	bg_buf_clear(&st.path);
	if (st.c_locale)
		freelocale(st.c_locale);
	return rc;
}

/* ------------------------------------------------------- writing: JUnit */

struct bg_xml__writer {
	xml_lib x;
	xmlBufferPtr buf;
	xmlTextWriterPtr tw;
	int failed;
};

int bg_xml__writer_new(bg_ctx *ctx, bg_xml__writer **out)
{
	bg_xml__writer *w = calloc(1, sizeof(*w));
	int rc;

	*out = NULL;
	if (!w)
		return bg_error_oom(ctx);
	if ((rc = xml_load(ctx, &w->x)) < 0) {
		free(w);
		return rc;
	}
	if (!(w->buf = w->x.xmlBufferCreate()) ||
	    !(w->tw = w->x.xmlNewTextWriterMemory(w->buf, 0)) ||
	    w->x.xmlTextWriterSetIndent(w->tw, 1) < 0 ||
	    w->x.xmlTextWriterSetIndentString(w->tw, BAD_CAST "  ") < 0 ||
	    w->x.xmlTextWriterStartDocument(w->tw, "1.0", "UTF-8", NULL) < 0) {
		if (w->tw)
			w->x.xmlFreeTextWriter(w->tw);
		if (w->buf)
			w->x.xmlBufferFree(w->buf);
		bg_dl__close(w->x.dl);
		free(w);
		return bg_error_oom(ctx);
	}
	*out = w;
	return 0;
}

/*
 * Text from outside as XML 1.0 can carry it; NULL when out of memory
 * (remembered).  The document is printed into CI logs too (`check
 * --format junit`), so the log's rules come first: an attribute is one line
 * (BG_ESC_TERM: a line break shown as \x0a), text keeps its line breaks
 * (BG_ESC_LOG); neither lets a line start with "::" or hold "##[", which
 * GitHub reads as a workflow command.
 */
static char *shown(bg_xml__writer *w, const char *s, bg_esc log)
{
	char *l = bg_text__escaped(log, s), *t = l ? bg_text__escaped(BG_ESC_XML, l) : NULL;

	free(l);
	if (!t)
		w->failed = 1;
	return t;
}

void bg_xml__start(bg_xml__writer *w, const char *element)
{
	if (w && !w->failed && w->x.xmlTextWriterStartElement(w->tw, BAD_CAST element) < 0)
		w->failed = 1;
}

void bg_xml__attr(bg_xml__writer *w, const char *name, const char *value)
{
	char *v;

	if (!w || w->failed || !value || !(v = shown(w, value, BG_ESC_TERM)))
		return;
	if (w->x.xmlTextWriterWriteAttribute(w->tw, BAD_CAST name, BAD_CAST v) < 0)
		w->failed = 1;
	free(v);
}

void bg_xml__attrf(bg_xml__writer *w, const char *name, const char *fmt, ...)
{
	char *v = NULL;
	va_list ap;

	if (!w || w->failed)
		return;
	va_start(ap, fmt);
	if (vasprintf(&v, fmt, ap) < 0) {
		v = NULL;
		w->failed = 1;
	}
	va_end(ap);
	bg_xml__attr(w, name, v);
	free(v);
}

void bg_xml__text(bg_xml__writer *w, const char *text)
{
	char *t;

	if (!w || w->failed || !text || !(t = shown(w, text, BG_ESC_LOG)))
		return;
	if (w->x.xmlTextWriterWriteString(w->tw, BAD_CAST t) < 0)
		w->failed = 1;
	free(t);
}

void bg_xml__end(bg_xml__writer *w)
{
	if (w && !w->failed && w->x.xmlTextWriterEndElement(w->tw) < 0)
		w->failed = 1;
}

int bg_xml__finish(bg_ctx *ctx, bg_xml__writer *w, char **out)
{
	int failed;

	*out = NULL;
	failed = w->failed;
	/* Ending the document ends the elements still open, and flushes. */
	if (!failed &&
	    (w->x.xmlTextWriterEndDocument(w->tw) < 0 || w->x.xmlTextWriterFlush(w->tw) < 0))
		failed = 1;
	w->x.xmlFreeTextWriter(w->tw);
	if (!failed && !(*out = strdup((const char *)w->x.xmlBufferContent(w->buf))))
		failed = 1;
	w->x.xmlBufferFree(w->buf);
	bg_dl__close(w->x.dl);
	free(w);
	/* libxml2's writer fails for want of memory, or on an element ended
	 * that was never started: ours, not the input's. */
	return failed ? bg_error_set(ctx, BG_ENOMEM,
	                             "cannot write the XML document: out of "
	                             "memory")
	              : 0;
}
