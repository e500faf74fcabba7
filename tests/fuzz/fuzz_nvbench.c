/*
 * fuzz_nvbench.c -- bg_format_parse_at on nvbench JSON, with side files.
 * The promises checked are in format.h.
 */
#define FUZZ_FORMAT BG_FORMAT_NVBENCH
#define FUZZ_BENCH NULL
#define FUZZ_SOURCE "fuzz.json"
#include "format.h"
