/*
 * worktree.c -- pinned commits: each SHA checked out once into a cache
 * directory, built there once per machine and build command, reused after,
 * and the cache kept within an age and a size (gc).
 *
 * The cache directory holds, per commit:
 *   <sha>/             the checkout (bg_repo_checkout), where the build runs
 *   <sha>.build.log    the last build's whole output, stdout and stderr
 *   <sha>.built        the build whose output this very checkout holds, one
 *                      line: SHA-256 of its machine and command; none while
 *                      a build runs (it overwrites the last one's output)
 *   <sha>.lock         flock: exclusive while the commit is checked out,
 *                      built or removed; shared while a benchguard uses it
 *   .tmp-<sha>-XXXXXX  a checkout being written, renamed into place whole,
 *                      or one gc moved out of its place whole to remove it
 *
 * The database remembers outcomes (a failed build is not retried; bisect
 * skips it), but whether *this* checkout holds a build is the .built file's
 * to say: gc may have removed the checkout the database's "ok" was for, or
 * another database may share the cache.
 *
 * gc lists a build log or stamp whose checkout is gone (removed by hand, or
 * by a gc killed half-way) as an entry of its own, and removes it under the
 * commit's lock like a checkout, unless the checkout was made again since.
 *
 * The lock file of a removed checkout is unlinked while gc holds it; whoever
 * was waiting on it finds the path now names another file (or none) and
 * locks again, so two processes never hold "the" lock on different inodes.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "internal.h"

/* How much of a build's output the database keeps, and a failure shows. */
#define LOG_TAIL 4096
/* Between tries of a lock another benchguard holds (cancellation is seen). */
#define LOCK_POLL_NS 100000000L

static int is_sha(const char *s)
{
	size_t i;

	for (i = 0; i < 40; i++)
		if (!((s[i] >= '0' && s[i] <= '9') || (s[i] >= 'a' && s[i] <= 'f')))
			return 0;
	return s[40] == '\0';
}

/* "<dir>/<name><suffix>", or NULL when out of memory. */
static char *cache_file(const char *dir, const char *name, const char *suffix)
{
	bg_buf b = BG_BUF_INIT;

	if (bg_buf_printf(&b, "%s/%s%s", dir, name, suffix) < 0) {
		bg_buf_clear(&b);
		return NULL;
	}
	return bg_buf_detach(&b);
}

/* mkdir -p */
static int make_dirs(bg_ctx *ctx, const char *path)
{
	char *p = strdup(path), *s;
	int err = 0;

	if (!p)
		return bg_error_oom(ctx);
	for (s = p + 1; !err; s++) {
		if (*s != '/' && *s != '\0')
			continue;
		char c = *s;
		*s = '\0';
		if (mkdir(p, 0777) < 0 && errno != EEXIST)
			err = bg_error_errno(ctx, BG_EIO, "cannot create %s", p);
		*s = c;
		if (c == '\0')
			break;
	}
	free(p);
	return err;
}

/* ------------------------------------------------------------------ locks */

/*
 * Locks `path` with `op` (LOCK_EX or LOCK_SH): 0 with *fd when locked, 1 when
 * another process holds it and `wait` is 0, 2 when the file does not exist
 * and `create` is 0 (so nobody can hold it), < 0 on failure.  With `wait`,
 * polls until it is free, and says once that it waits.
 */
static int lock_file(bg_ctx *ctx, const char *path, int op, int create, int wait, int *fd)
{
	struct stat a, b;
	int said = 0;

	*fd = -1;
	for (;;) {
		int f = open(path, O_RDWR | O_CLOEXEC | (create ? O_CREAT : 0), 0666);

		if (f < 0) {
			if (!create && errno == ENOENT)
				return 2;
			return bg_error_errno(ctx, BG_EIO, "cannot open the lock %s", path);
		}
		while (flock(f, op | LOCK_NB) < 0) {
			struct timespec ts = { 0, LOCK_POLL_NS };

			if (errno != EWOULDBLOCK && errno != EINTR) {
				close(f);
				return bg_error_errno(ctx, BG_EIO, "cannot lock %s", path);
			}
			if (!wait) {
				close(f);
				return 1;
			}
			if (bg_ctx_cancelled(ctx)) {
				close(f);
				return bg_error_set(ctx, BG_ERROR, "interrupted");
			}
			if (!said++)
				bg_log(ctx, BG_LOG_INFO,
				       "waiting for another benchguard to finish with %s", path);
			nanosleep(&ts, NULL);
		}
		/* Still the file at that path (gc unlinks it under the lock)? */
		if (fstat(f, &a) == 0 && stat(path, &b) == 0 && a.st_dev == b.st_dev &&
		    a.st_ino == b.st_ino) {
			*fd = f;
			return 0;
		}
		close(f);
		if (!create)
			return 2;
	}
}

/* ----------------------------------------------------------------- builds */

/* Does the .built file name this machine and command? */
static int stamp_has(const char *stamp, const char *line)
{
	char buf[256];
	FILE *f = fopen(stamp, "r");
	int found = 0;

	if (!f)
		return 0;
	while (!found && fgets(buf, sizeof(buf), f)) {
		buf[strcspn(buf, "\n")] = '\0';
		found = !strcmp(buf, line);
	}
	fclose(f);
	return found;
}

/* Names the build the checkout now holds: the last one, not every one
 * (-O0, then -O2, then -O0 again left -O2's output under a stamp that still
 * listed -O0). */
static int stamp_set(bg_ctx *ctx, const char *stamp, const char *line)
{
	FILE *f = fopen(stamp, "w");

	if (!f || fprintf(f, "%s\n", line) < 0 || fclose(f) != 0) {
		int err = bg_error_errno(ctx, BG_EIO, "cannot write %s", stamp);
		if (f)
			fclose(f);
		return err;
	}
	return 0;
}

/* The last LOG_TAIL bytes of the log, from a line start when one is near,
 * with the context's secrets replaced (bg_ctx__scrub): the build wrote the
 * log itself, and its tail is stored and printed.  NULL: no log, or no
 * memory. */
static char *log_tail(const bg_ctx *ctx, const char *path)
{
	char *buf = NULL, *nl;
	FILE *f = fopen(path, "rb");
	long size, from;
	size_t n, i;

	if (!f)
		return NULL;
	if (fseek(f, 0, SEEK_END) == 0 && (size = ftell(f)) >= 0) {
		from = size > LOG_TAIL ? size - LOG_TAIL : 0;
		if (fseek(f, from, SEEK_SET) == 0 && (buf = malloc(LOG_TAIL + 1))) {
			n = fread(buf, 1, LOG_TAIL, f);
			buf[n] = '\0';
			/* Before the cut to a line start, which may fall inside one. */
			if (bg_ctx__scrub(ctx, &buf, &n, from > 0) < 0) {
				free(buf);
				buf = NULL;
			} else if (from > 0 && (nl = strchr(buf, '\n')) && nl[1]) {
				memmove(buf, nl + 1, strlen(nl + 1) + 1);
			}
			/* No line start near: a character start, not half of one. */
			if (buf && from > 0) {
				i = bg_text__char_next(buf, 0, strlen(buf));
				memmove(buf, buf + i, strlen(buf + i) + 1);
			}
		}
	}
	fclose(f);
	return buf;
}

/* A build log benchguard reads whole to replace secrets in (the biggest file it reads). */
#define LOG_SCRUB_MAX ((size_t)256 << 20)

/*
 * The build wrote its log itself, and benchguard names the file in its
 * messages: it is rewritten with the context's secrets replaced
 * (bg_ctx__scrub), as the tail that is stored and printed is.  One too big
 * to read is left as it is, with a warning.
 */
static int scrub_log(bg_ctx *ctx, const char *path)
{
	bg_saved_error saved;
	char *text = NULL, *was;
	size_t len = 0;
	FILE *f;
	int err = 0, bad;

	if (!bg_ctx__has_secrets(ctx))
		return 0;
	bg_ctx__save_error(ctx, &saved);
	if ((err = bg_read_file_max(ctx, path, LOG_SCRUB_MAX, &text, &len)) < 0) {
		if (err != BG_ENOMEM) {
			bg_log(ctx, BG_LOG_WARN,
			       "the build log is not checked for the alert targets' secrets: %s",
			       bg_ctx_error(ctx));
			bg_ctx__restore_error(ctx, &saved);
			err = 0;
		}
		goto cleanup;
	}
	was = text;
	if ((err = bg_ctx__scrub(ctx, &text, &len, 0)) < 0) {
		err = bg_error_oom(ctx);
		goto cleanup;
	}
	if (text == was)
		goto cleanup;
	if (!(f = fopen(path, "wb"))) {
		err = bg_error_errno(ctx, BG_EIO, "cannot write %s", path);
		goto cleanup;
	}
	bad = fwrite(text, 1, len, f) != len;
	if ((fclose(f) != 0 || bad) && !err)
		err = bg_error_errno(ctx, BG_EIO, "cannot write %s", path);
cleanup:
	free(text);
	return err;
}

/* Runs the build in the checkout; the outcome is in *wt, the log beside it. */
static int run_build(bg_ctx *ctx, const char *command, double timeout, bg_worktree *wt)
{
	char env_commit[64], fence[PATH_MAX + 64];
	const char *env[] = { env_commit, NULL, BG_GIT_UNSET, NULL };
	bg_exec_opts eo;
	bg_exec_result r;
	FILE *f;
	int err;

	memset(&eo, 0, sizeof(eo));
	memset(&r, 0, sizeof(r));
	snprintf(env_commit, sizeof(env_commit), "BENCHGUARD_COMMIT=%s", wt->sha);
	/* git in the build stays in the checkout (bg_exec__git_fence). */
	if (bg_exec__git_fence(wt->path, fence, sizeof(fence)))
		env[1] = fence;
	else
		env[1] = NULL;
	/* The checkout path reaches the build as its working directory only:
	 * never as text in a shell command. */
	eo.cwd = wt->path;
	eo.timeout = timeout;
	eo.env = env;
	eo.log_path = wt->log_path;
	bg_log(ctx, BG_LOG_INFO, "building %.12s: %s", wt->sha, command);
	if ((err = bg_exec(ctx, command, &eo, &r)) < 0 ||
	    (err = scrub_log(ctx, wt->log_path)) < 0) {
		bg_exec_result_clear(&r);
		return err;
	}
	wt->built = 1;
	wt->build_seconds = r.wall;
	if (!(r.exited && r.exit_status == 0)) {
		wt->failed = 1;
		wt->why = bg_exec_describe(&r, timeout);
		if (!wt->why)
			err = bg_error_oom(ctx);
		/* The reason ends the log, so a remembered tail says it too. */
		else if ((f = fopen(wt->log_path, "a"))) {
			fprintf(f, "\n[build of %.12s failed: %s after %.1f s]\n", wt->sha, wt->why,
			        wt->build_seconds);
			fclose(f);
		}
		if (!err && !(wt->log_tail = log_tail(ctx, wt->log_path)))
			wt->log_tail = strdup("");
		if (!err && !wt->log_tail)
			err = bg_error_oom(ctx);
	}
	bg_exec_result_clear(&r);
	return err;
}

/* --------------------------------------------------------------- checkout */

/*
 * Writes the commit into a temporary directory and renames it into place.
 * The checkout is a folder made inside mkdtemp's, with mkdir's 0777 less
 * the umask, as any folder of the user's: mkdtemp's own 0700 would make it
 * private, and a fixed 0755 ignored a umask of 077.
 */
static int check_out(bg_ctx *ctx, bg_repo *repo, const char *cache_dir, bg_worktree *wt,
                     const char *stamp)
{
	char *tmp = cache_file(cache_dir, ".tmp-", wt->sha);
	bg_buf b = BG_BUF_INIT;
	char *tree = NULL;
	int err = 0;

	if (!tmp || bg_buf_printf(&b, "%s-XXXXXX", tmp) < 0) {
		free(tmp);
		bg_buf_clear(&b);
		return bg_error_oom(ctx);
	}
	free(tmp);
	if (!mkdtemp(b.ptr)) {
		err = bg_error_errno(ctx, BG_EIO, "cannot create a directory in %s", cache_dir);
		bg_buf_clear(&b);
		return err;
	}
	if (!(tree = bg_printf("%s/tree", b.ptr))) {
		err = bg_error_oom(ctx);
		goto cleanup;
	}
	if (mkdir(tree, 0777) < 0) {
		err = bg_error_errno(ctx, BG_EIO, "cannot create %s", tree);
		goto cleanup;
	}
	bg_log(ctx, BG_LOG_INFO, "checking out %.12s into %s", wt->sha, wt->path);
	if ((err = bg_repo_checkout(ctx, repo, wt->sha, tree)) < 0)
		goto cleanup;
	/* A new checkout holds no build, whatever the stale stamp said. */
	if (unlink(stamp) < 0 && errno != ENOENT) {
		err = bg_error_errno(ctx, BG_EIO, "cannot remove %s", stamp);
		goto cleanup;
	}
	if (rename(tree, wt->path) < 0) {
		err = bg_error_errno(ctx, BG_EIO, "cannot move the checkout into %s", wt->path);
		goto cleanup;
	}
	wt->checked_out = 1;
	rmdir(b.ptr);
cleanup:
	if (err < 0)
		bg_rmtree(NULL, b.ptr);
	free(tree);
	bg_buf_clear(&b);
	return err;
}

void bg_worktree_clear(bg_worktree *wt)
{
	if (!wt)
		return;
	if (wt->lock_fd > 0)
		close(wt->lock_fd - 1);
	free(wt->path);
	free(wt->log_tail);
	free(wt->log_path);
	free(wt->why);
	memset(wt, 0, sizeof(*wt));
}

int bg_worktree_prepare(bg_ctx *ctx, bg_repo *repo, bg_store *store, const char *sha,
                        const bg_worktree_opts *opts, int retry_failed, bg_worktree *out)
{
	const char *machine, *build;
	double timeout;
	char hash[65], stamp_line[65];
	bg_buf key = BG_BUF_INIT;
	char *lock = NULL, *stamp = NULL;
	bg_build_row row;
	bg_worktree wt;
	struct stat sb;
	int fd = -1, err = 0, pass, said = 0;

	BG_NEED(ctx, repo);
	BG_NEED(ctx, opts);
	BG_NEED(ctx, out);
	machine = opts->machine && *opts->machine ? opts->machine : "-";
	build = opts->build && *opts->build ? opts->build : NULL;
	timeout = opts->build_timeout > 0 ? opts->build_timeout : BG_BUILD_TIMEOUT;
	memset(out, 0, sizeof(*out));
	memset(&wt, 0, sizeof(wt));
	memset(&row, 0, sizeof(row));
	if (!sha || strlen(sha) != 40 || !is_sha(sha))
		return bg_error_set(ctx, BG_EINPUT, "not a full commit SHA: \"%s\"",
		                    sha ? sha : "");
	if (!opts->cache_dir || !*opts->cache_dir)
		return bg_error_set(ctx, BG_EINPUT, "no worktree cache directory");
	memcpy(wt.sha, sha, 41);
	if (build && bg_sha256_hex(build, strlen(build), hash) < 0)
		return bg_error_set(ctx, BG_ERROR, "cannot hash the build command");
	/* One fixed-size line per (machine, command), whatever their length. */
	if (bg_buf_printf(&key, "%s\n%s", machine, build ? build : "") < 0 ||
	    bg_sha256_hex(key.ptr, key.len, stamp_line) < 0) {
		bg_buf_clear(&key);
		return bg_error_oom(ctx);
	}
	bg_buf_clear(&key);
	if ((err = make_dirs(ctx, opts->cache_dir)) < 0)
		return err;
	wt.path = cache_file(opts->cache_dir, sha, "");
	wt.log_path = cache_file(opts->cache_dir, sha, ".build.log");
	lock = cache_file(opts->cache_dir, sha, ".lock");
	stamp = cache_file(opts->cache_dir, sha, ".built");
	if (!wt.path || !wt.log_path || !lock || !stamp) {
		err = bg_error_oom(ctx);
		goto cleanup;
	}
	/*
	 * Shared first: a commit that is ready (built, or remembered broken)
	 * needs no more, and a process that already holds it (compare A A)
	 * must not wait for itself.  Only work takes the lock exclusively, and
	 * never waits for it: whoever did the work holds the lock shared for
	 * as long as it uses the commit, so a wait for it would last that
	 * whole use.  While the lock is busy, the shared look is taken again,
	 * and finds the work done once it is.
	 */
	for (pass = 0;; pass++) {
		int exclusive = pass % 2;

		if (fd >= 0)
			close(fd);
		fd = -1;
		bg_build_row_clear(&row);
		if ((err = lock_file(ctx, lock, exclusive ? LOCK_EX : LOCK_SH, 1, !exclusive,
		                     &fd)) < 0)
			goto cleanup;
		if (err == 1) {
			struct timespec ts = { 0, LOCK_POLL_NS };

			err = 0;
			if (bg_ctx_cancelled(ctx)) {
				err = bg_error_set(ctx, BG_ERROR, "interrupted");
				goto cleanup;
			}
			if (!said++)
				bg_log(ctx, BG_LOG_INFO,
				       "waiting for another benchguard to finish with %s", lock);
			nanosleep(&ts, NULL);
			continue;
		}
		if (build && store &&
		    (err = bg_store_build_get(ctx, store, sha, machine, hash, &row)) < 0)
			goto cleanup;
		if (row.found && !row.ok && !retry_failed) {
			/* Remembered: a broken commit stays broken; bisect skips it. */
			wt.failed = 1;
			wt.build_seconds = row.seconds;
			wt.log_tail = row.log_tail;
			row.log_tail = NULL;
			/* Stored by a benchguard that did not replace secrets yet. */
			if (wt.log_tail) {
				size_t n = strlen(wt.log_tail);

				if (bg_ctx__scrub(ctx, &wt.log_tail, &n, 1) < 0) {
					err = bg_error_oom(ctx);
					goto cleanup;
				}
			}
			if (!wt.log_tail && !(wt.log_tail = strdup(""))) {
				err = bg_error_oom(ctx);
				goto cleanup;
			}
			goto done;
		}
		if (lstat(wt.path, &sb) == 0 && S_ISDIR(sb.st_mode) &&
		    (!build || stamp_has(stamp, stamp_line)))
			goto ready;
		if (exclusive)
			break;
	}
	if (lstat(wt.path, &sb) == 0 && !S_ISDIR(sb.st_mode) &&
	    (err = bg_rmtree(ctx, wt.path)) < 0) /* not ours: a link or a file */
		goto cleanup;
	if (lstat(wt.path, &sb) != 0 &&
	    (err = check_out(ctx, repo, opts->cache_dir, &wt, stamp)) < 0)
		goto cleanup;
	if (build && !stamp_has(stamp, stamp_line)) {
		/* Whatever the checkout held is being overwritten: a build that
		 * fails or is killed half-way leaves it named by no stamp. */
		if (unlink(stamp) != 0 && errno != ENOENT) {
			err = bg_error_errno(ctx, BG_EIO, "cannot remove %s", stamp);
			goto cleanup;
		}
		if ((err = run_build(ctx, build, timeout, &wt)) < 0)
			goto cleanup;
		if (!wt.failed && (err = stamp_set(ctx, stamp, stamp_line)) < 0)
			goto cleanup;
		if (store && (err = bg_store_build_put(ctx, store, sha, machine, hash, !wt.failed,
		                                       wt.log_tail, wt.build_seconds)) < 0)
			goto cleanup;
	}
ready:
	if (!build) {
		free(wt.log_path);
		wt.log_path = NULL;
	}
done:
	/* The directory's time is its last use: gc removes the least recent. */
	if (lstat(wt.path, &sb) == 0)
		utimensat(AT_FDCWD, wt.path, NULL, AT_SYMLINK_NOFOLLOW);
	/* From here on only in use: others may use it too, gc may not remove it. */
	if (flock(fd, LOCK_SH) < 0) {
		err = bg_error_errno(ctx, BG_EIO, "cannot lock %s", lock);
		goto cleanup;
	}
	wt.lock_fd = fd + 1;
	fd = -1;
	if (wt.checked_out || wt.built) {
		bg_gc_stats gs;
		bg_saved_error saved;
		uint64_t max = opts->max_bytes ? opts->max_bytes : BG_WORKTREE_MAX_BYTES;

		/* A trim is best effort: the commit is ready, the call succeeds. */
		bg_ctx__save_error(ctx, &saved);
		if (bg_worktree_gc(ctx, opts->cache_dir, -1, max, 0, &gs) < 0) {
			bg_log(ctx, BG_LOG_WARN, "worktree cache not trimmed: %s",
			       bg_ctx_error(ctx));
			bg_ctx__restore_error(ctx, &saved);
		} else if (gs.removed) {
			bg_log(ctx, BG_LOG_INFO,
			       "removed %zu least recently used worktree%s to keep the cache under "
			       "%llu MiB",
			       gs.removed, gs.removed == 1 ? "" : "s",
			       (unsigned long long)(max >> 20));
		}
	}
	*out = wt;
	memset(&wt, 0, sizeof(wt));
cleanup:
	if (fd >= 0)
		close(fd);
	bg_worktree_clear(&wt);
	bg_build_row_clear(&row);
	free(lock);
	free(stamp);
	return err;
}

/* --------------------------------------------------------------------- gc */

typedef struct {
	char sha[41];
	int64_t used; /* mtime of the checkout: its last use */
	uint64_t bytes;
	bg_gc_fate fate;
	int orphan; /* a build log or stamp without its checkout; used: when last written */
} gc_entry;

static int by_use(const void *a, const void *b)
{
	const gc_entry *x = a, *y = b;

	return x->used < y->used ? -1 : x->used > y->used ? 1 : strcmp(x->sha, y->sha);
}

/* <dir>/<sha> plus its log and stamp: the bytes the entry frees. */
static uint64_t entry_bytes(const char *dir, const char *sha)
{
	static const char *const suffixes[] = { "", ".build.log", ".built" };
	uint64_t n = 0;
	size_t i;

	for (i = 0; i < BG_ARRAY_SIZE(suffixes); i++) {
		char *p = cache_file(dir, sha, suffixes[i]);
		if (p)
			n += bg_disk_usage(p);
		free(p);
	}
	return n;
}

/*
 * Moves the checkout <dir>/<sha>, when it is a directory, to a new
 * .tmp-<sha>-XXXXXX beside it (*scratch, to be removed; NULL when there was
 * nothing to move).  A link or a file at <sha> stays: it is removed at once.
 */
static int set_aside(bg_ctx *ctx, const char *dir, const char *sha, char **scratch)
{
	char *checkout = cache_file(dir, sha, ""), *tmp = cache_file(dir, ".tmp-", sha);
	bg_buf b = BG_BUF_INIT;
	struct stat sb;
	int err = 0;

	*scratch = NULL;
	if (!checkout || !tmp || bg_buf_printf(&b, "%s-XXXXXX", tmp) < 0) {
		err = bg_error_oom(ctx);
		goto cleanup;
	}
	if (lstat(checkout, &sb) != 0 || !S_ISDIR(sb.st_mode))
		goto cleanup;
	/* rename() replaces the empty directory mkdtemp made, in one step. */
	if (!mkdtemp(b.ptr)) {
		err = bg_error_errno(ctx, BG_EIO, "cannot create a directory in %s", dir);
		goto cleanup;
	}
	if (rename(checkout, b.ptr) < 0) {
		err = bg_error_errno(ctx, BG_EIO, "cannot move %s aside to remove it", checkout);
		rmdir(b.ptr);
		goto cleanup;
	}
	*scratch = bg_buf_detach(&b);
cleanup:
	bg_buf_clear(&b);
	free(checkout);
	free(tmp);
	return err;
}

/*
 * Removes one entry unless a benchguard uses it: 1 removed (or, dry run,
 * removable), 0 in use, 2 kept (an orphan's checkout was made since it was
 * listed), < 0 on failure.
 */
static int gc_remove(bg_ctx *ctx, const char *dir, const char *sha, int orphan, int dry_run)
{
	static const char *const suffixes[] = { "", ".build.log", ".built" };
	char *lock = cache_file(dir, sha, ".lock"), *checkout = cache_file(dir, sha, "");
	char *scratch = NULL;
	struct stat sb;
	size_t i;
	int fd = -1, err;

	if (!lock || !checkout) {
		free(lock);
		free(checkout);
		return bg_error_oom(ctx);
	}
	/* A dry run creates nothing: no lock file means nobody holds it. */
	err = lock_file(ctx, lock, LOCK_EX, !dry_run, 0, &fd);
	/* Under the lock, the orphan is still one: nobody checked it out again. */
	if (err == 0 && orphan && lstat(checkout, &sb) == 0)
		err = 3;
	free(checkout);
	if (err != 0 || dry_run) {
		if (fd >= 0)
			close(fd);
		free(lock);
		return err < 0 ? err : err == 1 ? 0 : err == 3 ? 2 : 1;
	}
	/*
	 * The checkout leaves its place whole before any of its files go: a gc
	 * killed while removing it must not leave half a checkout at <sha>
	 * beside the stamp that says it is built, where the next benchguard
	 * would run the benchmarks.  A scratch directory left instead is the
	 * next gc's to remove (gc_temp).
	 */
	if ((err = set_aside(ctx, dir, sha, &scratch)) < 0)
		goto done;
	for (i = 0; err == 0 && i < BG_ARRAY_SIZE(suffixes); i++) {
		char *p = cache_file(dir, sha, suffixes[i]);
		err = p ? bg_rmtree(ctx, p) : bg_error_oom(ctx);
		free(p);
	}
	if (err == 0 && scratch)
		err = bg_rmtree(ctx, scratch);
	if (err == 0 && unlink(lock) < 0 && errno != ENOENT)
		err = bg_error_errno(ctx, BG_EIO, "cannot remove %s", lock);
done:
	close(fd);
	free(lock);
	free(scratch);
	return err < 0 ? err : 1;
}

/*
 * Whether `name` is the build log or build stamp of a commit whose checkout
 * is not there (removed by hand, or by a gc killed half-way): *sha is
 * the commit, *used when the file was last written.  The checkout's own
 * entry covers them when it is there.
 */
static int orphan_of(int dir, const char *name, char sha[41], int64_t *used)
{
	static const char *const suffixes[] = { ".build.log", ".built" };
	struct stat sb;
	size_t i;

	if (strlen(name) <= 40)
		return 0;
	memcpy(sha, name, 40);
	sha[40] = '\0';
	if (!is_sha(sha))
		return 0;
	for (i = 0; i < BG_ARRAY_SIZE(suffixes) && strcmp(name + 40, suffixes[i]); i++)
		;
	if (i == BG_ARRAY_SIZE(suffixes) || fstatat(dir, sha, &sb, AT_SYMLINK_NOFOLLOW) == 0 ||
	    errno != ENOENT || fstatat(dir, name, &sb, AT_SYMLINK_NOFOLLOW) < 0)
		return 0;
	*used = (int64_t)sb.st_mtime;
	return 1;
}

/* A half-written checkout left by a killed benchguard: removed unless its commit is locked. */
static void gc_temp(bg_ctx *ctx, const char *dir, const char *name)
{
	char sha[41], *p, *lock, *final;
	bg_saved_error saved;
	struct stat sb;
	int fd = -1;

	memcpy(sha, name + 5, 40);
	sha[40] = '\0';
	if (!is_sha(sha))
		return;
	p = cache_file(dir, name, "");
	lock = cache_file(dir, sha, ".lock");
	final = cache_file(dir, sha, "");
	/* Best effort: a lock that cannot be taken leaves it to the next gc. */
	bg_ctx__save_error(ctx, &saved);
	if (p && lock && final && lock_file(ctx, lock, LOCK_EX, 1, 0, &fd) == 0) {
		bg_rmtree(NULL, p);
		if (lstat(final, &sb) != 0)
			unlink(lock);
		close(fd);
	}
	bg_ctx__restore_error(ctx, &saved);
	free(p);
	free(lock);
	free(final);
}

int bg_worktree_gc(bg_ctx *ctx, const char *cache_dir, int64_t max_age, uint64_t max_bytes,
                   int dry_run, bg_gc_stats *out)
{
	return bg_worktree_gc_each(ctx, cache_dir, max_age, max_bytes, dry_run, NULL, NULL, out);
}

int bg_worktree_gc_each(bg_ctx *ctx, const char *cache_dir, int64_t max_age, uint64_t max_bytes,
                        int dry_run, bg_gc_cb cb, void *data, bg_gc_stats *out)
{
	gc_entry *list = NULL;
	size_t n = 0, cap = 0, i, norphans = 0;
	uint64_t total = 0;
	struct dirent *e;
	struct stat sb;
	DIR *d;
	int64_t now = (int64_t)time(NULL);
	int err = 0, rc;

	BG_NEED(ctx, cache_dir);
	BG_NEED(ctx, out);

	memset(out, 0, sizeof(*out));
	if (!(d = opendir(cache_dir))) {
		if (errno == ENOENT)
			return 0;
		return bg_error_errno(ctx, BG_EIO, "%s", cache_dir);
	}
	while ((e = readdir(d)) != NULL) {
		const char *name = e->d_name;
		char sha[41];
		int64_t used;
		int orphan = 0;

		if (!strncmp(name, ".tmp-", 5) && strlen(name) > 45 && name[45] == '-') {
			if (!dry_run)
				gc_temp(ctx, cache_dir, name);
			continue;
		}
		if (strlen(name) == 40 && is_sha(name)) {
			if (fstatat(dirfd(d), name, &sb, AT_SYMLINK_NOFOLLOW) < 0)
				continue;
			memcpy(sha, name, 41);
			used = (int64_t)sb.st_mtime;
		} else if (!(orphan = orphan_of(dirfd(d), name, sha, &used)))
			continue;
		/* An orphan's log and stamp are one entry, used when last written;
		 * a checkout made since the first was read takes the entry over. */
		for (i = 0; norphans && i < n && strcmp(list[i].sha, sha); i++)
			;
		if (norphans && i < n) {
			if (orphan && used > list[i].used)
				list[i].used = used;
			if (!orphan && list[i].orphan) {
				list[i].orphan = 0;
				list[i].used = used;
				total -= list[i].bytes;
				list[i].bytes = entry_bytes(cache_dir, sha);
				total += list[i].bytes;
			}
			continue;
		}
		norphans += orphan;
		if (bg_grow((void **)&list, &cap, n, sizeof(*list)) < 0) {
			err = bg_error_oom(ctx);
			goto cleanup;
		}
		memset(&list[n], 0, sizeof(list[n]));
		memcpy(list[n].sha, sha, 41);
		list[n].used = used;
		list[n].orphan = orphan;
		list[n].bytes = entry_bytes(cache_dir, sha);
		total += list[n].bytes;
		n++;
	}
	if (n)
		qsort(list, n, sizeof(*list), by_use);
	/* Oldest first: by age, then while the cache is over its size. */
	for (i = 0; i < n; i++) {
		/* Used "in the future" (a clock stepped back, a cache restored from
		 * a runner whose clock ran fast) is used now: 0d removes it. */
		int64_t age = list[i].used > now ? 0 : now - list[i].used;
		int old = max_age >= 0 && age >= max_age;
		int big = total > max_bytes;

		if (!old && !big)
			continue;
		/* Between entries, never inside one: each goes whole or stays. */
		if (bg_ctx_cancelled(ctx)) {
			size_t k, gone = 0;

			for (k = 0; k < i; k++)
				gone += list[k].fate == BG_GC_REMOVED;
			err = bg_error_set(ctx, BG_ERROR, "interrupted after %s %zu worktree%s",
			                   dry_run ? "listing" : "removing", gone,
			                   gone == 1 ? "" : "s");
			goto cleanup;
		}
		if ((rc = gc_remove(ctx, cache_dir, list[i].sha, list[i].orphan, dry_run)) < 0) {
			err = rc;
			goto cleanup;
		}
		list[i].fate = rc == 1 ? BG_GC_REMOVED : rc == 2 ? BG_GC_KEPT : BG_GC_IN_USE;
		if (rc == 1)
			total -= list[i].bytes;
	}
	for (i = 0; i < n; i++) {
		if (cb)
			cb(list[i].sha, list[i].used, list[i].bytes, list[i].fate, data);
		if (list[i].fate == BG_GC_REMOVED) {
			out->removed++;
			out->bytes_freed += list[i].bytes;
		} else {
			out->kept++;
			out->bytes_kept += list[i].bytes;
		}
	}
cleanup:
	closedir(d);
	free(list);
	return err;
}
