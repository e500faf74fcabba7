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

#endif
