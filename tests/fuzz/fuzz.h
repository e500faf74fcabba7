/*
 * fuzz.h -- what every harness in tests/fuzz/ shares.
 *
 * A harness is one LLVMFuzzerTestOneInput() over one parser or the escaping
 * layer.  The same file is linked two ways: with clang's libFuzzer for
 * `make fuzz` (which finds new inputs), and with tests/fuzz/replay.c as an
 * ordinary test that feeds every stored input once under whatever build is
 * being tested (release, or ASan+UBSan).  A harness calls fuzz_fail() when
 * the code under test breaks a promise it makes for any input, so that both
 * ways stop there with the reason.
 */
#ifndef BG_FUZZ_H
#define BG_FUZZ_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "benchguard.h"

int LLVMFuzzerInitialize(int *argc, char ***argv);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* A broken promise: said on stderr, then abort() so libFuzzer keeps the input. */
#define fuzz_fail(...)                                                                             \
	do {                                                                                       \
		fprintf(stderr, "fuzz: %s:%d: ", __FILE__, __LINE__);                              \
		fprintf(stderr, __VA_ARGS__);                                                      \
		fputc('\n', stderr);                                                               \
		abort();                                                                           \
	} while (0)

/*
 * A parser that refuses input must say so as an input error (exit 2 in the
 * CLI, not 3) with a message that names the input first.  Malformed input is
 * never "out of memory" or a runtime failure.
 */
static inline void fuzz_check_refusal(const bg_ctx *ctx, int rc, const char *name)
{
	const char *msg = bg_ctx_error(ctx);

	if (rc != BG_EINPUT)
		fuzz_fail("refused with %d, not BG_EINPUT: %s", rc, msg);
	if (strncmp(msg, name, strlen(name)) != 0)
		fuzz_fail("the message does not start with \"%s\": %s", name, msg);
}

/* Strict UTF-8, as lib/text.c reads it (no overlong forms, no surrogates). */
static inline int fuzz_utf8_valid(const unsigned char *s, size_t n)
{
	size_t i = 0, len, k;
	uint32_t c, min;

	while (i < n) {
		if (s[i] < 0x80) {
			i++;
			continue;
		}
		if ((s[i] & 0xE0) == 0xC0)
			len = 2, c = s[i] & 0x1F, min = 0x80;
		else if ((s[i] & 0xF0) == 0xE0)
			len = 3, c = s[i] & 0x0F, min = 0x800;
		else if ((s[i] & 0xF8) == 0xF0)
			len = 4, c = s[i] & 0x07, min = 0x10000;
		else
			return 0;
		if (len > n - i)
			return 0;
		for (k = 1; k < len; k++) {
			if ((s[i + k] & 0xC0) != 0x80)
				return 0;
			c = (c << 6) | (s[i + k] & 0x3F);
		}
		if (c < min || c > 0x10FFFF || (c >= 0xD800 && c <= 0xDFFF))
			return 0;
		i += len;
	}
	return 1;
}

#endif
