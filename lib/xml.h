/*
 * xml.h -- XML in and out: the one module that uses libxml2 (lib/xml.c).
 * Not in internal.h, so that no other module sees libxml2's headers or
 * grows a second way of handling XML.
 */
#ifndef BG_XML_H
#define BG_XML_H

#include <stddef.h>

#include "internal.h"

/* ---------------------------------------- reading: Catch2's XML reporter */

/*
 * Catch2's `-r xml` output (v2's <Catch>, v3's <Catch2TestRun>): each
 * <BenchmarkResults> is a `time` series named "<benchmark>/<test case>/
 * <section>/.../<benchmark name>" holding its mean as the run's one sample.
 * The signature of formats.c's parsers, and registered in their table.
 */
int bg_xml__parse_catch2(bg_ctx *ctx, const char *source, const char *benchmark, const char *dir,
                         const char *data, size_t len, bg_results *out);

/* ------------------------------------------------------- writing: JUnit */

/*
 * A document written element by element with libxml2's xmlTextWriter, so
 * that escaping and encoding are libxml2's: UTF-8, declared, indented.
 * Element and attribute names are the caller's constants; values and text
 * come from outside and are written as a CI log shows them (BG_ESC_TERM
 * for an attribute, one line; BG_ESC_LOG for text), then as BG_ESC_XML
 * does (lib/text.c), so what XML 1.0 cannot carry (control characters,
 * invalid UTF-8) is shown, never a broken document.  A failure (out of memory, an element
 * ended that was never started) is remembered: the calls go on as no-ops
 * and bg_xml__finish() reports it, so a document is checked once.
 */
typedef struct bg_xml__writer bg_xml__writer;

/* A new document in *out: 0, or < 0 with the message on ctx (out of
 * memory, or libxml2 cannot be loaded). */
int bg_xml__writer_new(bg_ctx *ctx, bg_xml__writer **out);
void bg_xml__start(bg_xml__writer *w, const char *element);
/* An attribute of the element just started; value NULL: left out. */
void bg_xml__attr(bg_xml__writer *w, const char *name, const char *value);
void bg_xml__attrf(bg_xml__writer *w, const char *name, const char *fmt, ...) BG_PRINTF(3, 4);
/* Text inside the element just started. */
void bg_xml__text(bg_xml__writer *w, const char *text);
void bg_xml__end(bg_xml__writer *w);
/* Ends the open elements and the document and frees w: 0 and the document
 * in *out (NUL-terminated, the caller's), or < 0 with the message on ctx
 * and *out NULL. */
int bg_xml__finish(bg_ctx *ctx, bg_xml__writer *w, char **out);

#endif
