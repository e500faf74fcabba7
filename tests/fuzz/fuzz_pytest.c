/*
 * fuzz_pytest.c -- bg_format_parse_at on pytest-benchmark JSON.
 * The promises checked are in format.h.
 */
#define FUZZ_FORMAT BG_FORMAT_PYTEST
#define FUZZ_BENCH NULL
#define FUZZ_SOURCE "fuzz.json"
#include "format.h"
