/*
 * fuzz_gbench.c -- bg_format_parse_at on Google Benchmark JSON.
 * The promises checked are in format.h.
 */
#define FUZZ_FORMAT BG_FORMAT_GBENCH
#define FUZZ_BENCH NULL
#define FUZZ_SOURCE "fuzz.json"
#include "format.h"
