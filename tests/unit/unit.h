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

/*
 * Shell helpers for tests that build real repositories with git in a scratch
 * directory `dir`: run a command there quietly (the test fails if it does),
 * read the first line a command prints, and name a path inside it (a static
 * buffer, valid until the next call).
 */
static inline void bg_test_sh(const char *dir, const char *fmt, ...) BG_PRINTF(2, 3);

static inline void bg_test_sh(const char *dir, const char *fmt, ...)
{
	char cmd[4096];
	int n, rc;
	va_list ap;

	n = snprintf(cmd, sizeof(cmd), "cd '%s' && (", dir);
	va_start(ap, fmt);
	n += vsnprintf(cmd + n, sizeof(cmd) - (size_t)n, fmt, ap);
	va_end(ap);
	snprintf(cmd + n, sizeof(cmd) - (size_t)n, ") >/dev/null 2>&1");
	rc = system(cmd);
	if (rc != 0)
		fail_msg("command failed (%d): %s", rc, cmd);
}

static inline void bg_test_capture(const char *dir, char *out, size_t size, const char *cmd)
{
	char full[16384];
	FILE *f;

	snprintf(full, sizeof(full), "cd '%s' && %s", dir, cmd);
	f = popen(full, "r");
	assert_non_null(f);
	if (!fgets(out, (int)size, f))
		out[0] = '\0';
	out[strcspn(out, "\n")] = '\0';
	assert_int_equal(pclose(f), 0);
}

static inline char *bg_test_path(const char *dir, const char *rel)
{
	static char buf[4096];

	snprintf(buf, sizeof(buf), "%s/%s", dir, rel);
	return buf;
}

#endif
