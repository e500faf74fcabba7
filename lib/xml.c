/*
 * xml.c -- everything XML: the one module that uses libxml2 (the others
 * see lib/xml.h).  Writing: a document element by element over
 * xmlTextWriter, for the JUnit report of a verdict (check_render.c).
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <libxml/xmlwriter.h>

#include "xml.h"

/* ------------------------------------------------------- writing: JUnit */

struct bg_xml__writer {
	xmlBufferPtr buf;
	xmlTextWriterPtr tw;
	int failed;
};

bg_xml__writer *bg_xml__writer_new(void)
{
	bg_xml__writer *w = calloc(1, sizeof(*w));

	if (!w)
		return NULL;
	if (!(w->buf = xmlBufferCreate()) || !(w->tw = xmlNewTextWriterMemory(w->buf, 0)) ||
	    xmlTextWriterSetIndent(w->tw, 1) < 0 ||
	    xmlTextWriterSetIndentString(w->tw, BAD_CAST "  ") < 0 ||
	    xmlTextWriterStartDocument(w->tw, "1.0", "UTF-8", NULL) < 0) {
		if (w->tw)
			xmlFreeTextWriter(w->tw);
		if (w->buf)
			xmlBufferFree(w->buf);
		free(w);
		return NULL;
	}
	return w;
}

/* Text from outside as XML 1.0 can carry it; NULL when out of memory
 * (remembered). */
static char *shown(bg_xml__writer *w, const char *s)
{
	char *t = bg_text__escaped(BG_ESC_XML, s);

	if (!t)
		w->failed = 1;
	return t;
}

void bg_xml__start(bg_xml__writer *w, const char *element)
{
	if (w && !w->failed && xmlTextWriterStartElement(w->tw, BAD_CAST element) < 0)
		w->failed = 1;
}

void bg_xml__attr(bg_xml__writer *w, const char *name, const char *value)
{
	char *v;

	if (!w || w->failed || !value || !(v = shown(w, value)))
		return;
	if (xmlTextWriterWriteAttribute(w->tw, BAD_CAST name, BAD_CAST v) < 0)
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

	if (!w || w->failed || !text || !(t = shown(w, text)))
		return;
	if (xmlTextWriterWriteString(w->tw, BAD_CAST t) < 0)
		w->failed = 1;
	free(t);
}

void bg_xml__end(bg_xml__writer *w)
{
	if (w && !w->failed && xmlTextWriterEndElement(w->tw) < 0)
		w->failed = 1;
}

int bg_xml__finish(bg_ctx *ctx, bg_xml__writer *w, char **out)
{
	int failed;

	*out = NULL;
	if (!w)
		return bg_error_oom(ctx);
	failed = w->failed;
	/* Ending the document ends the elements still open, and flushes. */
	if (!failed && (xmlTextWriterEndDocument(w->tw) < 0 || xmlTextWriterFlush(w->tw) < 0))
		failed = 1;
	xmlFreeTextWriter(w->tw);
	if (!failed && !(*out = strdup((const char *)xmlBufferContent(w->buf))))
		failed = 1;
	xmlBufferFree(w->buf);
	free(w);
	/* libxml2's writer fails for want of memory, or on an element ended
	 * that was never started: ours, not the input's. */
	return failed ? bg_error_set(ctx, BG_ENOMEM,
	                             "cannot write the XML document: out of "
	                             "memory")
	              : 0;
}
