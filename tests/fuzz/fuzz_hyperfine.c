/*
 * fuzz_hyperfine.c -- bg_format_parse_at on hyperfine --export-json.
 * The promises checked are in format.h.
 */
#define FUZZ_FORMAT BG_FORMAT_HYPERFINE
#define FUZZ_BENCH NULL
#define FUZZ_SOURCE "fuzz.json"
#include "format.h"
