/*
 * unit.h -- what every unit test includes: cmocka and the library's
 * internal header, plus a helper to make a scratch directory.
 */
#ifndef BG_UNIT_H
#define BG_UNIT_H

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "internal.h"

/* Path of the fixtures directory (tests/fixtures), from the environment set
 * by tests/run.sh, else relative to the repository root. */
static inline const char *bg_test_fixtures(void)
{
	const char *d = getenv("BG_FIXTURES");
	return d ? d : "tests/fixtures";
}

#endif
