/*
 * store_sqlite.c -- the store's embedded backend: one SQLite file, the
 * default, and the only module that uses SQLite (lib/db.h).
 *
 * Parallel CI jobs may share the file: WAL lets readers run beside a
 * writer, every write transaction is BEGIN IMMEDIATE so two writers never
 * deadlock upgrading read locks, and a busy timeout (plus a retry loop
 * where SQLite reports "busy" without waiting) makes writers queue rather
 * than fail.  The schema version is PRAGMA user_version.  A file this
 * process may not write is opened read-only, so the commands that only
 * read still work.
 */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include <sqlite3.h>

#include "db.h"

/* How long a writer waits for others before giving up, in milliseconds. */
#define SQLITE_BUSY_MS 60000

typedef struct {
	bg_db base;
	sqlite3 *db;
	sqlite3_stmt *samples; /* the hot loop of an import */
	/* The host's cancel flag (bg_ctx_set_cancel) when the store was opened:
	 * a wait for another writer's lock gives up when it is set. */
	const volatile sig_atomic_t *cancel;
	long long busy_since; /* monotonic ms: the first try of this wait */
} sqlite_db;

typedef struct {
	bg_db_stmt base;
	sqlite3_stmt *stmt;
} sqlite_stmt;

#define SDB(d) ((sqlite_db *)(d))
#define SST(s) (((sqlite_stmt *)(s))->stmt)

/* The error code for a SQLite result code. */
static int sqlite__code(int rc)
{
	switch (rc & 0xff) {
	case SQLITE_NOMEM:
		return BG_ENOMEM;
	case SQLITE_IOERR:
	case SQLITE_FULL:
	case SQLITE_CANTOPEN:
		return BG_EIO;
	default:
		return BG_ERROR;
	}
}

/* 0 when access() says this process may not write `path` (a missing file
 * is no reason: another process may be creating it). */
static int sqlite__may_write(const char *path, int mode)
{
	return access(path, mode) == 0 || (errno != EACCES && errno != EROFS && errno != EPERM);
}

/*
 * Why a database this process may write is read-only all the same: its
 * -shm or -wal file may not be written.  A command that only read the
 * database while it could not write it (another user's, or this user's
 * while the file was read-only) had SQLite make them beside it, and a
 * read-only connection leaves them.  Only a user who may change the
 * folder can remove them; while any benchguard uses the database they
 * are its, so the sentence says when.  0: neither is the reason.
 */
static int sqlite__readonly_aux(bg_db *d, bg_ctx *ctx, const char *what)
{
	static const char *const suffix[] = { "-shm", "-wal" };
	struct stat sb;
	size_t i;

	for (i = 0; i < 2; i++) {
		char *aux = bg_printf("%s%s", d->name, suffix[i]);
		int error;

		if (!aux)
			return bg_error_oom(ctx);
		if (stat(aux, &sb) < 0 || sqlite__may_write(aux, W_OK)) {
			free(aux);
			continue;
		}
		error = bg_error_set(ctx, BG_EIO,
		                     "database %s: %s: %s may not be written by this user (owner "
		                     "uid %ld, mode %04o), left by a command that read the "
		                     "database while it could not write it; remove %s-shm and "
		                     "%s-wal while no benchguard uses the database",
		                     d->name, what, aux, (long)sb.st_uid,
		                     (unsigned)(sb.st_mode & 07777), d->name, d->name);
		free(aux);
		return error;
	}
	return 0;
}

/*
 * Copies SQLite's message for the last failure at once (a ROLLBACK would
 * replace it), prefixed with the path and what was being done.
 */
static int sqlite__fail(bg_db *d, bg_ctx *ctx, const char *what)
{
	sqlite3 *db = SDB(d)->db;
	int rc = sqlite3_extended_errcode(db);

	/* The wait for the lock gave up for Ctrl-C (sqlite__busy): that is
	 * why, not the lock. */
	if (((rc & 0xff) == SQLITE_BUSY || (rc & 0xff) == SQLITE_LOCKED) && SDB(d)->cancel &&
	    *SDB(d)->cancel)
		return bg_error_set(ctx, BG_ERROR, "interrupted while waiting for database %s",
		                    d->name);
	/* A --db that names some other file: bad input, as another program's
	 * database is (store__version), not a failure. */
	if ((rc & 0xff) == SQLITE_NOTADB)
		return bg_error_set(ctx, BG_EINPUT,
		                    "database %s: the file is not a SQLite database", d->name);
	/* A write on a store opened read-only: say so, not SQLite's words. */
	if ((rc & 0xff) == SQLITE_READONLY) {
		int error;

		if (!d->readonly && (error = sqlite__readonly_aux(d, ctx, what)) < 0)
			return error;
		return bg_error_set(ctx, BG_EIO,
		                    "database %s: the database is read-only (the folder or file "
		                    "may not be written): %s",
		                    d->name, what);
	}
	/* "unable to open database file" says nothing of why; errno does. */
	if (((rc & 0xff) == SQLITE_CANTOPEN || (rc & 0xff) == SQLITE_IOERR) &&
	    sqlite3_system_errno(db) != 0)
		return bg_error_set(ctx, sqlite__code(rc), "database %s: %s: %s (%s)", d->name,
		                    what, sqlite3_errmsg(db), strerror(sqlite3_system_errno(db)));
	/* A write past `ulimit -f` at a commit comes back with no errno: the
	 * limit is the likeliest cause, and the user's to see. */
	if ((rc & 0xff) == SQLITE_IOERR) {
		struct rlimit rl;

		if (getrlimit(RLIMIT_FSIZE, &rl) == 0 && rl.rlim_cur != RLIM_INFINITY)
			return bg_error_set(
			        ctx, sqlite__code(rc),
			        "database %s: %s: %s (the file-size limit, ulimit -f, is "
			        "%llu bytes: most likely what stopped the write)",
			        d->name, what, sqlite3_errmsg(db), (unsigned long long)rl.rlim_cur);
	}
	return bg_error_set(ctx, sqlite__code(rc), "database %s: %s: %s", d->name, what,
	                    sqlite3_errmsg(db));
}

static int sqlite__is_busy(int rc)
{
	return (rc & 0xff) == SQLITE_BUSY || (rc & 0xff) == SQLITE_LOCKED;
}

static long long sqlite__now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (long long)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

/*
 * Waits a little before retrying something SQLite called busy.  The busy
 * timeout covers most waits, but some (changing the journal mode of a new
 * file, WAL recovery by another process) report "busy" at once.  Returns 0
 * while time is left before `deadline`.
 */
static int sqlite__backoff(const sqlite_db *d, long long deadline, int *delay_ms)
{
	if (sqlite__now_ms() >= deadline || (d->cancel && *d->cancel))
		return -1;
	sqlite3_sleep(*delay_ms);
	if (*delay_ms < 100)
		*delay_ms *= 2;
	return 0;
}

/*
 * SQLite's wait for another writer's lock: as sqlite3_busy_timeout's, up to
 * SQLITE_BUSY_MS with short sleeps, but it gives up at once when the host
 * is cancelled, so Ctrl-C or SIGTERM stops a command queued behind another
 * (sqlite__fail then says "interrupted").  1: try again; 0: give up.
 */
static int sqlite__busy(void *data, int count)
{
	sqlite_db *d = data;
	long long now = sqlite__now_ms();
	int ms = count < 4 ? 1 << count : 10;

	if (count == 0)
		d->busy_since = now;
	if ((d->cancel && *d->cancel) || now - d->busy_since >= SQLITE_BUSY_MS)
		return 0;
	sqlite3_sleep(ms);
	return 1;
}

/*
 * Runs SQL that returns no rows.  Outside a transaction it is retried while
 * the database is busy; inside one, SQL may have half run, so never.
 */
static int sqlite__exec(bg_db *d, const char *sql)
{
	sqlite3 *db = SDB(d)->db;
	long long deadline = sqlite__now_ms() + SQLITE_BUSY_MS;
	int retry = sqlite3_get_autocommit(db), delay = 1, rc;

	while ((rc = sqlite3_exec(db, sql, NULL, NULL, NULL)) != SQLITE_OK) {
		if (!retry || !sqlite__is_busy(rc) || sqlite__backoff(SDB(d), deadline, &delay) < 0)
			return -1;
	}
	return 0;
}

/*
 * Runs a query and copies the first column of its first row into buf
 * ("" when it returns none), retrying while the database is busy.
 */
static int sqlite__query(bg_db *d, const char *sql, char *buf, size_t size)
{
	sqlite3 *db = SDB(d)->db;
	long long deadline = sqlite__now_ms() + SQLITE_BUSY_MS;
	sqlite3_stmt *stmt = NULL;
	int delay = 1, rc;

	for (;;) {
		buf[0] = '\0';
		rc = sqlite3_prepare_v2(db, sql, -1, &stmt, NULL);
		if (rc == SQLITE_OK) {
			rc = sqlite3_step(stmt);
			if (rc == SQLITE_ROW) {
				const unsigned char *t = sqlite3_column_text(stmt, 0);
				snprintf(buf, size, "%s", t ? (const char *)t : "");
				rc = SQLITE_DONE;
			}
			if (rc == SQLITE_DONE)
				rc = SQLITE_OK;
		}
		if (rc == SQLITE_OK)
			break;
		if (!sqlite__is_busy(rc) || sqlite__backoff(SDB(d), deadline, &delay) < 0) {
			/* Finalizing keeps the failure's code for the message. */
			sqlite3_finalize(stmt);
			return -1;
		}
		sqlite3_finalize(stmt);
		stmt = NULL;
	}
	sqlite3_finalize(stmt);
	return 0;
}

static char *sqlite__ddl(const char *sql)
{
	return bg_strdup(sql);
}

static int sqlite__version(bg_db *d, long *version, int *has_tables)
{
	char buf[64], *end;

	*has_tables = 0;
	if (sqlite__query(d, "PRAGMA user_version", buf, sizeof(buf)) < 0)
		return -1;
	errno = 0;
	*version = strtol(buf, &end, 10);
	if (end == buf || *end || errno)
		return 1;
	if (*version == 0) {
		if (sqlite__query(d, "SELECT count(*) FROM sqlite_master", buf, sizeof(buf)) < 0)
			return -1;
		*has_tables = atoi(buf) != 0;
	}
	return 0;
}

static int sqlite__set_version(bg_db *d, int version)
{
	char sql[64];

	snprintf(sql, sizeof(sql), "PRAGMA user_version = %d", version);
	return sqlite__exec(d, sql);
}

static int sqlite__setup(bg_db *d, bg_ctx *ctx, int version, int latest)
{
	char buf[64];

	if (d->readonly) {
		/* Nothing may be written: no journal mode, no migration. */
		if (version < latest)
			return bg_error_set(ctx, BG_EIO,
			                    "database %s: the database is read-only (the folder or "
			                    "file may not be written) and its schema (version %d) "
			                    "needs migrating to version %d: run benchguard once "
			                    "where it may write the file",
			                    d->name, version, latest);
		if (sqlite__exec(d, "PRAGMA foreign_keys = ON") < 0)
			return sqlite__fail(d, ctx, "setting up the connection");
		return 0;
	}
	if (sqlite__query(d, "PRAGMA journal_mode = WAL", buf, sizeof(buf)) < 0)
		return sqlite__fail(d, ctx, "switching to WAL");
	if (strcmp(buf, "wal") != 0)
		return bg_error_set(ctx, BG_ERROR,
		                    "database %s: cannot use the WAL journal (journal mode is %s)",
		                    d->name, buf);
	if (sqlite__exec(d, "PRAGMA foreign_keys = ON; PRAGMA synchronous = NORMAL") < 0)
		return sqlite__fail(d, ctx, "setting up the connection");
	return 0;
}

static int sqlite__begin(bg_db *d, int write)
{
	return sqlite__exec(d, write ? "BEGIN IMMEDIATE" : "BEGIN");
}

static int sqlite__commit(bg_db *d)
{
	return sqlite__exec(d, "COMMIT");
}

/* Undoes an open transaction; SQLite may already have rolled it back. */
static void sqlite__rollback(bg_db *d)
{
	if (!sqlite3_get_autocommit(SDB(d)->db))
		sqlite3_exec(SDB(d)->db, "ROLLBACK", NULL, NULL, NULL);
}

static int sqlite__prepare(bg_db *d, const char *sql, bg_db_stmt **out)
{
	sqlite_stmt *s = calloc(1, sizeof(*s));

	*out = NULL;
	if (!s)
		return -1;
	s->base.db = d;
	if (sqlite3_prepare_v3(SDB(d)->db, sql, -1, SQLITE_PREPARE_PERSISTENT, &s->stmt, NULL) !=
	    SQLITE_OK) {
		free(s);
		return -1;
	}
	*out = &s->base;
	return 0;
}

static int sqlite__bind_int64(bg_db_stmt *s, int i, int64_t v)
{
	return sqlite3_bind_int64(SST(s), i, v) == SQLITE_OK ? 0 : -1;
}

static int sqlite__bind_double(bg_db_stmt *s, int i, double v)
{
	return sqlite3_bind_double(SST(s), i, v) == SQLITE_OK ? 0 : -1;
}

static int sqlite__bind_text(bg_db_stmt *s, int i, const char *v, int len)
{
	/* Copied: bg_db_bind_text may pass a repaired copy it frees at once. */
	return sqlite3_bind_text(SST(s), i, v, len, SQLITE_TRANSIENT) == SQLITE_OK ? 0 : -1;
}

static int sqlite__bind_null(bg_db_stmt *s, int i)
{
	return sqlite3_bind_null(SST(s), i) == SQLITE_OK ? 0 : -1;
}

static int sqlite__step(bg_db_stmt *s)
{
	int rc = sqlite3_step(SST(s));

	return rc == SQLITE_ROW ? BG_DB_ROW : rc == SQLITE_DONE ? BG_DB_DONE : -1;
}

static int64_t sqlite__column_int64(bg_db_stmt *s, int i)
{
	return sqlite3_column_int64(SST(s), i);
}

static double sqlite__column_double(bg_db_stmt *s, int i)
{
	return sqlite3_column_double(SST(s), i);
}

static const char *sqlite__column_text(bg_db_stmt *s, int i)
{
	return (const char *)sqlite3_column_text(SST(s), i);
}

static int sqlite__column_is_null(bg_db_stmt *s, int i)
{
	return sqlite3_column_type(SST(s), i) == SQLITE_NULL;
}

static void sqlite__reset(bg_db_stmt *s)
{
	sqlite3_reset(SST(s));
}

static void sqlite__finalize(bg_db_stmt *s)
{
	sqlite3_finalize(SST(s));
	free(s);
}

static int64_t sqlite__changes(bg_db *d)
{
	return sqlite3_changes(SDB(d)->db);
}

static int sqlite__unique_violation(bg_db *d)
{
	return sqlite3_extended_errcode(SDB(d)->db) == SQLITE_CONSTRAINT_UNIQUE;
}

/* The hot loop of an import: bind three numbers, step, reset. */
static int sqlite__samples(bg_db *d, int64_t result_id, const double *values, size_t n)
{
	sqlite_db *db = SDB(d);
	size_t i;

	if (!db->samples &&
	    sqlite3_prepare_v3(db->db,
	                       "INSERT INTO samples(result_id, idx, value) VALUES (?1, ?2, ?3)", -1,
	                       SQLITE_PREPARE_PERSISTENT, &db->samples, NULL) != SQLITE_OK)
		return -1;
	if (sqlite3_bind_int64(db->samples, 1, result_id) != SQLITE_OK)
		return -1;
	for (i = 0; i < n; i++) {
		if (sqlite3_bind_int64(db->samples, 2, (int64_t)i) != SQLITE_OK ||
		    sqlite3_bind_double(db->samples, 3, values[i]) != SQLITE_OK ||
		    sqlite3_step(db->samples) != SQLITE_DONE) {
			sqlite3_reset(db->samples);
			return -1;
		}
		sqlite3_reset(db->samples);
	}
	return 0;
}

static void sqlite__close(bg_db *d)
{
	sqlite_db *db = SDB(d);

	sqlite3_finalize(db->samples);
	sqlite3_close_v2(db->db);
	free(d->name);
	free(db);
}

static const bg_db_driver sqlite_driver = {
	.name = "sqlite",
	.close = sqlite__close,
	.fail = sqlite__fail,
	.exec = sqlite__exec,
	.ddl = sqlite__ddl,
	.version = sqlite__version,
	.set_version = sqlite__set_version,
	.setup = sqlite__setup,
	.begin = sqlite__begin,
	.commit = sqlite__commit,
	.rollback = sqlite__rollback,
	.prepare = sqlite__prepare,
	.bind_int64 = sqlite__bind_int64,
	.bind_double = sqlite__bind_double,
	.bind_text = sqlite__bind_text,
	.bind_null = sqlite__bind_null,
	.step = sqlite__step,
	.column_int64 = sqlite__column_int64,
	.column_double = sqlite__column_double,
	.column_text = sqlite__column_text,
	.column_is_null = sqlite__column_is_null,
	.reset = sqlite__reset,
	.finalize = sqlite__finalize,
	.changes = sqlite__changes,
	.unique_violation = sqlite__unique_violation,
	.samples = sqlite__samples,
};

/* mkdir -p of the directory part of `path`. */
static int sqlite__mkdirs(bg_ctx *ctx, const char *path)
{
	char *dir = bg_strdup(path), *p;
	int error = 0;

	if (!dir)
		return bg_error_oom(ctx);
	p = strrchr(dir, '/');
	if (!p || p == dir)
		goto cleanup;
	*p = '\0';
	for (p = dir + 1;; p++) {
		char c = *p;

		if (c != '/' && c != '\0')
			continue;
		*p = '\0';
		if (mkdir(dir, 0777) < 0 && errno != EEXIST) {
			error = bg_error_errno(ctx, BG_EIO, "cannot create directory %s", dir);
			goto cleanup;
		}
		*p = c;
		if (!c)
			break;
	}

cleanup:
	free(dir);
	return error;
}

/* The folder part of `path` ("." when it has none), malloc'd. */
static char *sqlite__dir(const char *path)
{
	const char *slash = strrchr(path, '/');

	if (!slash)
		return bg_strdup(".");
	if (slash == path)
		return bg_strdup("/");
	return bg_printf("%.*s", (int)(slash - path), path);
}

/* The size of `path`, or -1 when it does not exist. */
static long long sqlite__size(const char *path)
{
	struct stat sb;

	return stat(path, &sb) == 0 ? (long long)sb.st_size : -1;
}

/*
 * Opens an existing file this process may not write, read-only.  In WAL
 * mode a reader needs the -shm file, which SQLite creates beside the
 * database; where the folder may not be written and no writer left one
 * (a cleanly closed database has neither -shm nor -wal), it opens the file
 * as immutable instead: no -wal means the file itself holds every commit,
 * and no process of this user can add one.  A -wal with content but no
 * -shm holds commits only a writer can fold in: refused, not read stale.
 */
static int sqlite__open_readonly_once(bg_ctx *ctx, sqlite_db *db, int dir_writable, int *wal_alone)
{
	const char *path = db->base.name;
	bg_buf uri = BG_BUF_INIT;
	char *aux = NULL;
	const char *p;
	int error = 0, immutable = 0, oom = 0, rc;
	long long wal;

	if (!dir_writable) {
		if (!(aux = bg_printf("%s-shm", path))) {
			error = bg_error_oom(ctx);
			goto cleanup;
		}
		if (sqlite__size(aux) < 0) {
			free(aux);
			if (!(aux = bg_printf("%s-wal", path))) {
				error = bg_error_oom(ctx);
				goto cleanup;
			}
			wal = sqlite__size(aux);
			if (wal > 0) {
				*wal_alone = 1;
				error = bg_error_set(ctx, BG_EIO,
				                     "database %s: the database is read-only (the "
				                     "folder or file may not be written) and %s "
				                     "holds changes only a run that may write the "
				                     "folder can fold in",
				                     path, aux);
				goto cleanup;
			}
			immutable = 1;
		}
	}
	/* A URI, so that the path is percent-encoded: ? and # are not options. */
	oom |= bg_buf_puts(&uri, path[0] == '/' ? "file://" : "file:") < 0;
	for (p = path; *p; p++) {
		unsigned char c = (unsigned char)*p;

		if ((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
		    strchr("/._-~", c))
			oom |= bg_buf_put(&uri, p, 1) < 0;
		else
			oom |= bg_buf_printf(&uri, "%%%02X", c) < 0;
	}
	oom |= bg_buf_puts(&uri, immutable ? "?mode=ro&immutable=1" : "?mode=ro") < 0;
	if (oom) {
		error = bg_error_oom(ctx);
		goto cleanup;
	}
	rc = sqlite3_open_v2(uri.ptr, &db->db,
	                     SQLITE_OPEN_READONLY | SQLITE_OPEN_URI | SQLITE_OPEN_NOMUTEX, NULL);
	if (rc != SQLITE_OK)
		error = db->db ? sqlite__fail(&db->base, ctx, "opening") : bg_error_oom(ctx);

cleanup:
	bg_buf_clear(&uri);
	free(aux);
	return error;
}

/* A -shm or -wal there that this process may not read: no writer coming
 * or going changes that, so it is said at once. */
static int sqlite__aux_unreadable(const char *path)
{
	static const char *const suffix[] = { "-shm", "-wal" };
	char aux[PATH_MAX + 8];
	size_t i;

	for (i = 0; i < 2; i++) {
		snprintf(aux, sizeof(aux), "%s%s", path, suffix[i]);
		if (access(aux, R_OK) < 0 && errno == EACCES)
			return 1;
	}
	return 0;
}

/*
 * The read-only open, tried again while another process's writer makes or
 * removes the -shm and -wal files between the look at them and the first
 * read: a writer that closed took away the -shm this reader was to use
 * (which it may not make again), or one that opened made it after the look.
 * The first read, of the schema, shows it; once a read has the -shm open no
 * writer removes it.  A closing writer removes its -shm before its -wal, so
 * a -wal alone is tried again too: only one that stays is a crash's.
 * Anything else that fails is said at once.
 */
#define SQLITE_REOPEN_MS 3000

static int sqlite__open_readonly(bg_ctx *ctx, sqlite_db *db, int dir_writable)
{
	long long deadline = sqlite__now_ms() + SQLITE_REOPEN_MS;
	int delay = 1, error, rc;

	for (;;) {
		int wal_alone = 0;

		if ((error = sqlite__open_readonly_once(ctx, db, dir_writable, &wal_alone)) < 0) {
			if (wal_alone && sqlite__backoff(db, deadline, &delay) == 0)
				continue;
			return error;
		}
		sqlite3_extended_result_codes(db->db, 1);
		rc = sqlite3_exec(db->db, "SELECT count(*) FROM sqlite_master", NULL, NULL, NULL);
		if (rc == SQLITE_OK)
			return 0;
		if (!((rc & 0xff) == SQLITE_READONLY || (rc & 0xff) == SQLITE_CANTOPEN ||
		      sqlite__is_busy(rc)) ||
		    sqlite__aux_unreadable(db->base.name) ||
		    sqlite__backoff(db, deadline, &delay) < 0) {
			error = sqlite__fail(&db->base, ctx, "opening");
			sqlite3_close_v2(db->db);
			db->db = NULL;
			return error;
		}
		sqlite3_close_v2(db->db);
		db->db = NULL;
	}
}

/*
 * SQLite's unix VFS opens no database whose absolute path, with room for
 * the "-journal" beside it, passes mxPathname (512) bytes: 504 opens, 505
 * does not.  Its "unable to open database file" came with whatever errno
 * an earlier call left ("File exists", from making the folders).  Checked
 * before anything is made for a path that cannot be opened, and after a
 * reading command's "no such file", the likelier mistake.
 */
static int sqlite__path_fits(bg_ctx *ctx, const char *path)
{
	sqlite3_vfs *vfs = sqlite3_vfs_find(NULL);
	char cwd[PATH_MAX];
	size_t len = strlen(path);

	if (path[0] != '/') {
		if (!getcwd(cwd, sizeof(cwd)))
			return 0; /* SQLite will say why, if it cannot */
		len += strlen(cwd) + 1;
	}
	if (vfs && len + strlen("-journal") > (size_t)vfs->mxPathname)
		return bg_error_set(ctx, BG_EINPUT,
		                    "database %s: its absolute path is %zu bytes long, and SQLite "
		                    "opens none longer than %zu: use a shorter one",
		                    path, len, (size_t)vfs->mxPathname - strlen("-journal"));
	return 0;
}

int bg_db_sqlite_open(bg_ctx *ctx, const char *path, const char *missing, bg_db **out)
{
	sqlite_db *db = NULL;
	char *dir = NULL;
	long long size;
	int error, rc, dir_writable;

	*out = NULL;
	if (!(db = calloc(1, sizeof(*db))) || !(db->base.name = bg_strdup(path)) ||
	    !(dir = sqlite__dir(path))) {
		error = bg_error_oom(ctx);
		goto cleanup;
	}
	db->base.drv = &sqlite_driver;
	db->cancel = bg_ctx__cancel_flag(ctx);
	/* An existing file that this process may not write, or whose folder
	 * it may not write (the journal lives there), is opened read-only:
	 * the commands that only read work, and a write says why it cannot. */
	dir_writable = 1;
	size = sqlite__size(path);
	if (size == 0 && missing) {
		/* SQLite takes an empty file for an empty database, and setting
		 * it up would write the schema into what a mistake (`touch`, a
		 * failed copy, a full disk) left: a reading command says so. */
		error = bg_error_set(ctx, BG_EINPUT,
		                     "database %s: not a benchguard database (it is empty); %s",
		                     path, missing);
		goto cleanup;
	}
	if (size >= 0) {
		dir_writable = sqlite__may_write(dir, W_OK | X_OK);
		db->base.readonly = !dir_writable || !sqlite__may_write(path, W_OK);
	} else if (missing) {
		/* A mistyped path must not become an empty database, and its
		 * folders with it, that answers "nothing stored". */
		error = errno == ENOENT || errno == ENOTDIR
		                ? bg_error_set(ctx, BG_EINPUT, "database %s: no such file (%s)",
		                               path, missing)
		                : bg_error_errno(ctx, BG_EIO, "database %s", path);
		goto cleanup;
	}
	if ((error = sqlite__path_fits(ctx, path)) < 0)
		goto cleanup;
	if (db->base.readonly) {
		if ((error = sqlite__open_readonly(ctx, db, dir_writable)) < 0)
			goto cleanup;
	} else {
		if ((error = sqlite__mkdirs(ctx, path)) < 0)
			goto cleanup;
		rc = sqlite3_open_v2(
		        path, &db->db,
		        SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE | SQLITE_OPEN_NOMUTEX, NULL);
		if (rc != SQLITE_OK) {
			error = db->db ? sqlite__fail(&db->base, ctx, "opening")
			               : bg_error_oom(ctx);
			goto cleanup;
		}
	}
	sqlite3_extended_result_codes(db->db, 1);
	sqlite3_busy_handler(db->db, sqlite__busy, db);
	*out = &db->base;
	db = NULL;
	error = 0;

cleanup:
	free(dir);
	if (db) {
		sqlite3_close_v2(db->db);
		free(db->base.name);
		free(db);
	}
	return error;
}
