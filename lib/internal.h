/*
 * internal.h -- helpers shared by the library's modules and nothing else.
 *
 * Error reporting (bg_error_set), logging to the context's callback, and a
 * small growable byte buffer.  Nothing here is part of the public API; the
 * CLI and the tests may use it, users of the library must not.
 */
#ifndef BG_INTERNAL_H
#define BG_INTERNAL_H

#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include "benchguard.h"

#if defined(__GNUC__)
#define BG_PRINTF(f, a) __attribute__((format(printf, f, a)))
#else
#define BG_PRINTF(f, a)
/*
 * lib/gpu.c with the libraries named: nvml_lib (NULL: not tried) first,
 * then cuda_lib (NULL: not tried) when NVML is absent or fails.  stable: add
 * the GPUs themselves too, not only their volatile facts.  Tests pass names
 * that do not exist, or a fake library.
 */
int bg_gpu__probe(bg_machine *m, const char *nvml_lib, const char *cuda_lib, int stable);
int bg_gpu__cuda_usable(const char *cuda_lib, char **why);

#endif

#define BG_ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))

/* Sets the context's message and returns `code`, so `return bg_error_set(...)` reads well. */
int bg_error_set(bg_ctx *ctx, int code, const char *fmt, ...) BG_PRINTF(3, 4);
/* Same, with ": <strerror(errno)>" appended. */
int bg_error_errno(bg_ctx *ctx, int code, const char *fmt, ...) BG_PRINTF(3, 4);
/* The common out-of-memory failure. */
int bg_error_oom(bg_ctx *ctx);

void bg_log(bg_ctx *ctx, bg_log_level level, const char *fmt, ...) BG_PRINTF(3, 4);

/* A growable byte buffer, always NUL-terminated once anything was added. */
typedef struct {
	char *ptr;
	size_t len, cap;
} bg_buf;

#define BG_BUF_INIT                                                                                \
	{                                                                                          \
		NULL, 0, 0                                                                         \
	}

int bg_buf_grow(bg_buf *b, size_t extra);
int bg_buf_put(bg_buf *b, const void *data, size_t len);
int bg_buf_puts(bg_buf *b, const char *s);
int bg_buf_printf(bg_buf *b, const char *fmt, ...) BG_PRINTF(2, 3);
/* Hands the string over to the caller (never NULL on success: "" if empty). */
char *bg_buf_detach(bg_buf *b);
void bg_buf_clear(bg_buf *b);

/* strdup that accepts NULL. */
char *bg_strdup(const char *s);
/* Reads a whole file; BG_EIO with "<path>: <why>" on failure. */
int bg_read_file(bg_ctx *ctx, const char *path, char **data, size_t *len);
/* Line number (1-based) of byte `offset` in text. */
int bg_line_of(const char *text, size_t len, size_t offset);

/* rm -rf of `path` that never follows a symlink out of it; a missing path is fine. */
int bg_rmtree(bg_ctx *ctx, const char *path);
/* Bytes on disk (allocated blocks) under `path`, symlinks counted, never followed. */
uint64_t bg_disk_usage(const char *path);

/* A run more than this many SDs of the others from their mean is an outlier
 * (bg_stats_drop_outliers): checks' baselines and bisect's pairs. */
#define BG_OUTLIER_SIGMAS 5.0

/* SHA-256 of data as 64 lowercase hex digits + NUL (lib/hash.c, libcrypto). */
int bg_sha256_hex(const void *data, size_t len, char out[65]);

/*
 * lib/gpu.c with the libraries named: nvml_lib (NULL: not tried) first,
 * then cuda_lib (NULL: not tried) when NVML is absent or fails.  stable: add
 * the GPUs themselves too, not only their volatile facts.  Tests pass names
 * that do not exist, or a fake library.
 */
int bg_gpu__probe(bg_machine *m, const char *nvml_lib, const char *cuda_lib, int stable);
int bg_gpu__cuda_usable(const char *cuda_lib, char **why);

#endif
