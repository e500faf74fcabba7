/*
 * fuzz_go.c -- bg_format_parse_at on `go test -bench` text output.
 * The promises checked are in format.h.
 */
#define FUZZ_FORMAT BG_FORMAT_GO
#define FUZZ_BENCH NULL
#define FUZZ_SOURCE "fuzz.txt"
#include "format.h"
