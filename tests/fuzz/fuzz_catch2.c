/*
 * fuzz_catch2.c -- bg_format_parse_at on Catch2's XML reporter output,
 * through libxml2 (lib/xml.c).  The promises checked are in format.h.
 */
#define FUZZ_FORMAT BG_FORMAT_CATCH2
#define FUZZ_BENCH "c2"
#define FUZZ_SOURCE "fuzz.xml"
#include "format.h"
