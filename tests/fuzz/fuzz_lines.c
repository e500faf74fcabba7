/*
 * fuzz_lines.c -- bg_format_parse_at on `lines` output ("BENCHGUARD <series> <value> <unit>").
 * The promises checked are in format.h.
 */
#define FUZZ_FORMAT BG_FORMAT_LINES
#define FUZZ_BENCH "fz"
#define FUZZ_SOURCE "fuzz.txt"
#include "format.h"
