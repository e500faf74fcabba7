/*
 * fuzz_perfstat.c -- bg_format_parse_at on `perf stat -x,` CSV output.
 * The promises checked are in format.h.
 */
#define FUZZ_FORMAT BG_FORMAT_PERFSTAT
#define FUZZ_BENCH "perf"
#define FUZZ_SOURCE "fuzz.csv"
#include "format.h"
