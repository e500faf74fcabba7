/*
 * util.c -- the context handle, error and log plumbing, and small string
 * utilities that every module uses, and the two directory walks (remove,
 * measure) that never follow a symbolic link out of the tree they were given.
 *
 * The context keeps one error message.  Modules set it where the failure is
 * first seen (copying any third-party message immediately) and return a
 * negative code; callers up the stack just pass the code on.  A failure a
 * module recovers from leaves the message as the call found it
 * (bg_ctx__save_error, internal.h).
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <langinfo.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "internal.h"

struct bg_ctx {
	char msg[BG_CTX_MSG_MAX];
	bg_log_cb log;
	void *log_data;
	int muted; /* bg_ctx__mute: nothing logged while above 0 */
	const volatile sig_atomic_t *cancel;
	const volatile sig_atomic_t *continued;
	char **secrets; /* bg_ctx__add_secret's */
	size_t nsecrets, secrets_cap;
};

int bg_error_exit_code(int error)
{
	switch (error) {
	case BG_OK:
		return 0;
	case BG_EINPUT:
	case BG_ENOTFOUND:
		return 2;
	default:
		return 3;
	}
}

int bg_ctx_new(bg_ctx **out)
{
	BG_NEED(NULL, out);
	*out = calloc(1, sizeof(bg_ctx));
	return *out ? 0 : BG_ENOMEM;
}

void bg_ctx_free(bg_ctx *ctx)
{
	size_t i;

	if (!ctx)
		return;
	/* Secrets do not linger in freed memory. */
	for (i = 0; i < ctx->nsecrets; i++) {
		memset(ctx->secrets[i], 0, strlen(ctx->secrets[i]));
		free(ctx->secrets[i]);
	}
	free(ctx->secrets);
	free(ctx);
}

const char *bg_ctx_error(const bg_ctx *ctx)
{
	return ctx ? ctx->msg : "";
}

void bg_ctx_clear_error(bg_ctx *ctx)
{
	if (ctx)
		ctx->msg[0] = '\0';
}

void bg_ctx__save_error(const bg_ctx *ctx, bg_saved_error *saved)
{
	const char *msg = bg_ctx_error(ctx);

	/* Up to its NUL: the rest of the buffer is unused. */
	memcpy(saved->msg, msg, strlen(msg) + 1);
}

void bg_ctx__restore_error(bg_ctx *ctx, const bg_saved_error *saved)
{
	if (ctx)
		memcpy(ctx->msg, saved->msg, strlen(saved->msg) + 1);
}

int bg_ctx__add_secret(bg_ctx *ctx, const char *s, size_t n)
{
	size_t i;
	char *copy;

	if (!ctx || !s || n < BG_SECRET_MIN || memchr(s, '\0', n))
		return 0;
	for (i = 0; i < ctx->nsecrets; i++)
		if (strlen(ctx->secrets[i]) == n && !memcmp(ctx->secrets[i], s, n))
			return 0;
	if (bg_grow((void **)&ctx->secrets, &ctx->secrets_cap, ctx->nsecrets, sizeof(char *)) < 0 ||
	    !(copy = strndup(s, n)))
		return BG_ENOMEM;
	ctx->secrets[ctx->nsecrets++] = copy;
	return 0;
}

/* Marks in `hit` the bytes of text[0..len) that the context's secret s
 * covers: each whole occurrence, and with `cut` a part at the text's start
 * (the end of s) or at its end (the start of s), from BG_SECRET_PART_MIN
 * bytes, the longest that fits. */
static void secret_mark(const char *s, const char *text, size_t len, int cut, unsigned char *hit)
{
	size_t n = strlen(s), i, k;
	const char *at;

	for (i = 0; i + n <= len && (at = memmem(text + i, len - i, s, n)) != NULL;
	     i = (size_t)(at - text) + 1)
		memset(hit + (at - text), 1, n);
	if (cut & BG_SCRUB_CUT_START)
		for (k = n - 1; k >= BG_SECRET_PART_MIN; k--)
			if (k <= len && !memcmp(text, s + n - k, k)) {
				memset(hit, 1, k);
				break;
			}
	if (cut & BG_SCRUB_CUT_END)
		for (k = n - 1; k >= BG_SECRET_PART_MIN; k--)
			if (k <= len && !memcmp(text + len - k, s, k)) {
				memset(hit + len - k, 1, k);
				break;
			}
}

int bg_ctx__has_secrets(const bg_ctx *ctx)
{
	return ctx && ctx->nsecrets > 0;
}

int bg_scrub__list(char *const *secrets, size_t nsecrets, const char *text, size_t len, int cut,
                   bg_buf *out)
{
	unsigned char *hit = NULL;
	size_t i, k, start;

	if (!nsecrets || !len)
		return 0;
	/* Every byte a secret covers, then each run of such bytes replaced
	 * once: a secret that starts inside another's occurrence and runs on
	 * past it leaves no tail. */
	if (!(hit = calloc(len, 1)))
		return BG_ENOMEM;
	for (k = 0; k < nsecrets; k++)
		secret_mark(secrets[k], text, len, cut, hit);
	if (!memchr(hit, 1, len)) {
		free(hit);
		return 0;
	}
	for (i = 0, start = 0; i <= len; i++) {
		if (i < len && !hit[i])
			continue;
		if (bg_buf_put(out, text + start, i - start) < 0)
			goto oom;
		if (i == len)
			break;
		while (i < len && hit[i])
			i++;
		if (bg_buf_puts(out, BG_SECRET_MARK) < 0)
			goto oom;
		start = i--;
	}
	free(hit);
	return 1;
oom:
	free(hit);
	bg_buf_clear(out);
	return BG_ENOMEM;
}

int bg_ctx__scrub(const bg_ctx *ctx, char **text, size_t *len, int cut)
{
	bg_buf b = BG_BUF_INIT;
	int r;

	if (!ctx || !text || !*text)
		return 0;
	if ((r = bg_scrub__list(ctx->secrets, ctx->nsecrets, *text, *len, cut, &b)) <= 0)
		return r; /* nothing replaced: the text stays as it is */
	memset(*text, 0, *len);
	free(*text);
	*len = b.len;
	*text = bg_buf_detach(&b);
	return 0;
}

void bg_ctx_set_log(bg_ctx *ctx, bg_log_cb cb, void *data)
{
	if (!ctx)
		return;
	ctx->log = cb;
	ctx->log_data = data;
}

void bg_ctx_set_cancel(bg_ctx *ctx, const volatile sig_atomic_t *flag)
{
	if (!ctx)
		return;
	ctx->cancel = flag;
}

const volatile sig_atomic_t *bg_ctx__cancel_flag(const bg_ctx *ctx)
{
	return ctx ? ctx->cancel : NULL;
}

void bg_ctx_set_continued(bg_ctx *ctx, const volatile sig_atomic_t *counter)
{
	if (!ctx)
		return;
	ctx->continued = counter;
}

sig_atomic_t bg_ctx__continued(const bg_ctx *ctx)
{
	return ctx && ctx->continued ? *ctx->continued : 0;
}

int bg_ctx_cancelled(const bg_ctx *ctx)
{
	return ctx && ctx->cancel && *ctx->cancel;
}

/*
 * Sets the message, `suffix` after it.  Through a copy: callers pass the
 * message itself on ("%s", bg_ctx_error(ctx)).  A message longer than the
 * context holds keeps its start and its end around "...": the end says
 * why (a 2,000-byte path is followed by "no such file"), so it is not
 * the part to lose.  The cuts fall between UTF-8 characters.
 */
static void set_msg(bg_ctx *ctx, const char *suffix, const char *fmt, va_list ap)
{
	enum { KEEP = (sizeof(ctx->msg) - 4) / 2 };
	char small[sizeof(ctx->msg)], *big = NULL;
	size_t head, tail, slen = strlen(suffix);
	va_list copy;
	int n;

	va_copy(copy, ap);
	n = vsnprintf(small, sizeof(small), fmt, ap);
	if (n >= 0 && (size_t)n + slen < sizeof(small)) {
		memcpy(small + n, suffix, slen + 1);
		memcpy(ctx->msg, small, sizeof(small));
		va_end(copy);
		return;
	}
	if (n < 0 || !(big = malloc((size_t)n + slen + 1))) {
		/* Nothing better to do than the start. */
		memcpy(ctx->msg, small, sizeof(small));
		va_end(copy);
		return;
	}
	vsnprintf(big, (size_t)n + 1, fmt, copy);
	va_end(copy);
	memcpy(big + n, suffix, slen + 1);
	head = bg_text__char_start(big, KEEP);
	tail = bg_text__char_next(big, (size_t)n + slen - KEEP, (size_t)n + slen);
	memcpy(ctx->msg, big, head);
	memcpy(ctx->msg + head, "...", 3);
	memcpy(ctx->msg + head + 3, big + tail, (size_t)n + slen - tail + 1);
	free(big);
}

int bg_error_vset(bg_ctx *ctx, int code, const char *fmt, va_list ap)
{
	if (ctx)
		set_msg(ctx, "", fmt, ap);
	return code;
}

int bg_error_set(bg_ctx *ctx, int code, const char *fmt, ...)
{
	va_list ap;

	if (!ctx)
		return code;
	va_start(ap, fmt);
	set_msg(ctx, "", fmt, ap);
	va_end(ap);
	return code;
}

int bg_error_errno(bg_ctx *ctx, int code, const char *fmt, ...)
{
	char suffix[256];
	va_list ap;

	if (!ctx)
		return code;
	snprintf(suffix, sizeof(suffix), ": %s", strerror(errno));
	va_start(ap, fmt);
	set_msg(ctx, suffix, fmt, ap);
	va_end(ap);
	return code;
}

int bg_numbers_c(bg_ctx *ctx)
{
	/* The thread's locale (uselocale), read-only: localeconv() fills a
	 * static struct two threads would share. */
	const char *dp = nl_langinfo(RADIXCHAR);

	/* Numbers go to and from text (the configuration's JSON, PostgreSQL's
	 * parameters and answers, reports) through strtod and printf, which
	 * follow LC_NUMERIC: under a locale with a decimal comma, "0.05" read
	 * as 0 and a stored mean came back as 0, silently. */
	if (dp && !strcmp(dp, "."))
		return 0;
	return bg_error_set(ctx, BG_EINPUT,
	                    "the program's numeric locale (LC_NUMERIC) writes decimals with "
	                    "\"%s\": benchguard reads and writes numbers as C does; set "
	                    "LC_NUMERIC to \"C\" (setlocale, or uselocale around the calls)",
	                    dp ? dp : "");
}

int bg_error_oom(bg_ctx *ctx)
{
	return bg_error_set(ctx, BG_ENOMEM, "out of memory");
}

void bg_ctx__mute(bg_ctx *ctx, int on)
{
	if (ctx)
		ctx->muted += on ? 1 : -1;
}

void bg_log(bg_ctx *ctx, bg_log_level level, const char *fmt, ...)
{
	char line[1024];
	va_list ap;

	if (!ctx || !ctx->log || ctx->muted > 0)
		return;
	va_start(ap, fmt);
	vsnprintf(line, sizeof(line), fmt, ap);
	va_end(ap);
	ctx->log(level, line, ctx->log_data);
}

int bg_buf_grow(bg_buf *b, size_t extra)
{
	size_t need, cap;
	char *p;

	if (extra > SIZE_MAX - 1 - b->len)
		return BG_ENOMEM;
	need = b->len + extra + 1;
	if (need <= b->cap)
		return 0;
	cap = b->cap ? b->cap : 64;
	while (cap < need)
		cap = cap > SIZE_MAX / 2 ? need : cap * 2;
	p = realloc(b->ptr, cap);
	if (!p)
		return BG_ENOMEM;
	b->ptr = p;
	b->cap = cap;
	return 0;
}

int bg_buf_put(bg_buf *b, const void *data, size_t len)
{
	if (bg_buf_grow(b, len) < 0)
		return BG_ENOMEM;
	if (len)
		memcpy(b->ptr + b->len, data, len);
	b->len += len;
	b->ptr[b->len] = '\0';
	return 0;
}

int bg_buf_puts(bg_buf *b, const char *s)
{
	return bg_buf_put(b, s, strlen(s));
}

int bg_buf_printf(bg_buf *b, const char *fmt, ...)
{
	va_list ap;
	size_t room;
	int n;

	/* Formatted once into the room there is, and again only when it did
	 * not fit: reports format millions of numbers. */
	if (bg_buf_grow(b, 64) < 0)
		return BG_ENOMEM;
	room = b->cap - b->len;
	va_start(ap, fmt);
	n = vsnprintf(b->ptr + b->len, room, fmt, ap);
	va_end(ap);
	if (n < 0)
		return BG_ENOMEM;
	if ((size_t)n >= room) {
		if (bg_buf_grow(b, (size_t)n) < 0)
			return BG_ENOMEM;
		va_start(ap, fmt);
		vsnprintf(b->ptr + b->len, (size_t)n + 1, fmt, ap);
		va_end(ap);
	}
	b->len += (size_t)n;
	return 0;
}

char *bg_buf_detach(bg_buf *b)
{
	char *p;

	if (!b->ptr && bg_buf_grow(b, 0) < 0)
		return NULL;
	b->ptr[b->len] = '\0';
	p = b->ptr;
	b->ptr = NULL;
	b->len = b->cap = 0;
	return p;
}

void bg_buf_clear(bg_buf *b)
{
	free(b->ptr);
	b->ptr = NULL;
	b->len = b->cap = 0;
}

char *bg_printf(const char *fmt, ...)
{
	bg_buf b = BG_BUF_INIT;
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vsnprintf(NULL, 0, fmt, ap);
	va_end(ap);
	if (n < 0 || bg_buf_grow(&b, (size_t)n + 1) < 0)
		return NULL;
	va_start(ap, fmt);
	vsnprintf(b.ptr, (size_t)n + 1, fmt, ap);
	va_end(ap);
	b.len = (size_t)n;
	return bg_buf_detach(&b);
}

int bg_grow(void **arr, size_t *cap, size_t n, size_t size)
{
	void *p;
	size_t ncap = *cap ? *cap : 16;

	if (n < *cap)
		return 0;
	/* Doubled until element n fits: a caller that makes room for a few
	 * elements at once may ask for one past twice the capacity. */
	while (ncap <= n) {
		if (ncap > SIZE_MAX / 2)
			return BG_ENOMEM;
		ncap *= 2;
	}
	if (!size || ncap > SIZE_MAX / size || !(p = realloc(*arr, ncap * size)))
		return BG_ENOMEM;
	*arr = p;
	*cap = ncap;
	return 0;
}

int bg_cmp_int64(const void *a, const void *b)
{
	int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;

	return (x > y) - (x < y);
}

double bg_now(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return (double)t.tv_sec + (double)t.tv_nsec / 1e9;
}

char *bg_strdup(const char *s)
{
	return s ? strdup(s) : NULL;
}

int bg_read_file(bg_ctx *ctx, const char *path, char **data, size_t *len)
{
	return bg_read_file_max(ctx, path, BG_READ_MAX, data, len);
}

/*
 * A regular file larger than `max` is refused before a byte is read; a
 * pipe or a device (an import from a FIFO, /dev/zero) is read only until
 * it passes `max`, so no input can take more memory than that.
 */
int bg_read_file_max(bg_ctx *ctx, const char *path, size_t max, char **data, size_t *len)
{
	bg_buf b = BG_BUF_INIT;
	char chunk[65536];
	struct stat st;
	size_t n;
	FILE *f;

	*data = NULL;
	*len = 0;
	f = fopen(path, "rb");
	if (!f)
		return bg_error_errno(ctx, BG_EIO, "%s", path);
	if (fstat(fileno(f), &st) == 0 && S_ISREG(st.st_mode) && (uint64_t)st.st_size > max)
		goto too_large;
	for (;;) {
		if ((n = fread(chunk, 1, sizeof(chunk), f)) == 0) {
			/* A signal while a pipe or FIFO waits for its writer: read
			 * on, unless it was the one that stops benchguard. */
			if (!ferror(f) || errno != EINTR || bg_ctx_cancelled(ctx))
				break;
			clearerr(f);
			continue;
		}
		if (b.len + n > max)
			goto too_large;
		if (bg_buf_put(&b, chunk, n) < 0) {
			fclose(f);
			bg_buf_clear(&b);
			return bg_error_oom(ctx);
		}
	}
	if (ferror(f)) {
		int cancelled = errno == EINTR && bg_ctx_cancelled(ctx);

		fclose(f);
		bg_buf_clear(&b);
		if (cancelled)
			return bg_error_set(ctx, BG_ERROR, "interrupted while reading %s", path);
		return bg_error_errno(ctx, BG_EIO, "%s", path);
	}
	fclose(f);
	*len = b.len;
	*data = bg_buf_detach(&b);
	return *data ? 0 : bg_error_oom(ctx);
too_large:
	fclose(f);
	bg_buf_clear(&b);
	if (max >= (1 << 20) && max % (1 << 20) == 0)
		return bg_error_set(ctx, BG_EINPUT,
		                    "%s: larger than %zu MiB, more than benchguard reads", path,
		                    max >> 20);
	return bg_error_set(ctx, BG_EINPUT, "%s: larger than %zu bytes, more than benchguard reads",
	                    path, max);
}

int bg_line_of(const char *text, size_t len, size_t offset)
{
	int line = 1;
	size_t i;

	if (offset > len)
		offset = len;
	for (i = 0; i < offset; i++)
		if (text[i] == '\n')
			line++;
	return line;
}

/* ------------------------------------------------------------ directory trees */

/*
 * Both walks go through directory descriptors (openat with O_NOFOLLOW,
 * fstatat without following): a symlink inside the tree, even one swapped in
 * for a directory while we walk, is removed or counted as the link itself and
 * never entered.
 */
static int rm_at(int parent, const char *name)
{
	struct stat sb;
	struct dirent *e;
	DIR *d;
	int fd, err = 0;

	if (fstatat(parent, name, &sb, AT_SYMLINK_NOFOLLOW) < 0)
		return errno == ENOENT ? 0 : -1;
	if (!S_ISDIR(sb.st_mode))
		return unlinkat(parent, name, 0) < 0 && errno != ENOENT ? -1 : 0;
	/* Build trees may hold read-only directories (Go's module cache does). */
	if ((sb.st_mode & 0700) != 0700)
		fchmodat(parent, name, (sb.st_mode & 07777) | 0700, 0);
	fd = openat(parent, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (fd < 0)
		return -1;
	if (!(d = fdopendir(fd))) {
		close(fd);
		return -1;
	}
	while (!err && (e = readdir(d)) != NULL) {
		if (strcmp(e->d_name, ".") != 0 && strcmp(e->d_name, "..") != 0)
			err = rm_at(dirfd(d), e->d_name);
	}
	closedir(d);
	if (err)
		return err;
	return unlinkat(parent, name, AT_REMOVEDIR) < 0 && errno != ENOENT ? -1 : 0;
}

int bg_rmtree(bg_ctx *ctx, const char *path)
{
	if (rm_at(AT_FDCWD, path) < 0)
		return bg_error_errno(ctx, BG_EIO, "cannot remove %s", path);
	return 0;
}

static void du_at(int parent, const char *name, uint64_t *bytes)
{
	struct stat sb;
	struct dirent *e;
	DIR *d;
	int fd;

	if (fstatat(parent, name, &sb, AT_SYMLINK_NOFOLLOW) < 0)
		return;
	*bytes += (uint64_t)sb.st_blocks * 512;
	if (!S_ISDIR(sb.st_mode))
		return;
	fd = openat(parent, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (fd < 0)
		return;
	if (!(d = fdopendir(fd))) {
		close(fd);
		return;
	}
	while ((e = readdir(d)) != NULL)
		if (strcmp(e->d_name, ".") != 0 && strcmp(e->d_name, "..") != 0)
			du_at(dirfd(d), e->d_name, bytes);
	closedir(d);
}

uint64_t bg_disk_usage(const char *path)
{
	uint64_t bytes = 0;

	du_at(AT_FDCWD, path, &bytes);
	return bytes;
}

void bg_strings_free(char **v, size_t n)
{
	size_t i;

	if (!v)
		return;
	for (i = 0; i < n; i++)
		free(v[i]);
	free(v);
}

int bg_streq_null(const char *a, const char *b)
{
	return a == b || (a && b && !strcmp(a, b));
}
