/*
 * db.h -- the results store's two database backends behind one interface.
 *
 * lib/store.c holds the schema, the SQL and every store operation; it
 * speaks to a database only through this small driver: prepared statements
 * with numbered parameters (?1, ?2...), stepped row by row, in the shape
 * of SQLite's own API, which libpq's buffered results fit as well.  The
 * SQLite backend (store_sqlite.c) is the embedded default; the PostgreSQL
 * backend (store_pg.c) serves fleets of runners sharing one history.  Only
 * those two files include sqlite3.h and libpq-fe.h; nothing above the
 * store knows which backend it has.
 *
 * The SQL store.c writes is the common ground of both dialects: upserts
 * with ON CONFLICT, ids from RETURNING, explicit CASTs where PostgreSQL
 * cannot infer a parameter's type.  Migration steps are written in SQLite's
 * words; a backend's `ddl` rewrites them into its own (types, collation).
 */
#ifndef BG_DB_H
#define BG_DB_H

#include <stddef.h>
#include <stdint.h>

#include "internal.h"

typedef struct bg_db bg_db;
typedef struct bg_db_stmt bg_db_stmt;

/* bg_db_step's answers; a failure is negative. */
#define BG_DB_DONE 0
#define BG_DB_ROW 1

typedef struct bg_db_driver {
	const char *name; /* "sqlite", "postgresql" */
	void (*close)(bg_db *db);
	/* Sets ctx's error from the last failure, prefixed by `what`. */
	int (*fail)(bg_db *db, bg_ctx *ctx, const char *what);
	/* Runs SQL that returns no rows (several statements allowed). */
	int (*exec)(bg_db *db, const char *sql);
	/* A migration step in this backend's dialect, malloc'd. */
	char *(*ddl)(const char *sql);
	/* The schema version, and whether a version-0 database has tables. */
	int (*version)(bg_db *db, long *version, int *has_tables);
	int (*set_version)(bg_db *db, int version);
	/* After the version is known: the connection's settings (SQLite's
	 * WAL); refuses a read-only database that needs migrating. */
	int (*setup)(bg_db *db, bg_ctx *ctx, int version, int latest);
	/* Transactions.  A write transaction excludes other writers of the
	 * same database from its start (BEGIN IMMEDIATE; an advisory lock). */
	int (*begin)(bg_db *db, int write);
	int (*commit)(bg_db *db);
	void (*rollback)(bg_db *db);
	int (*prepare)(bg_db *db, const char *sql, bg_db_stmt **out);
	int (*bind_int64)(bg_db_stmt *s, int i, int64_t v);
	int (*bind_double)(bg_db_stmt *s, int i, double v);
	/* len < 0: up to the NUL.  The text is copied (bg_db_bind_text may
	 * pass a repaired copy that lives only as long as the call). */
	int (*bind_text)(bg_db_stmt *s, int i, const char *v, int len);
	int (*bind_null)(bg_db_stmt *s, int i);
	int (*step)(bg_db_stmt *s);
	int64_t (*column_int64)(bg_db_stmt *s, int i);
	double (*column_double)(bg_db_stmt *s, int i);
	const char *(*column_text)(bg_db_stmt *s, int i);
	int (*column_is_null)(bg_db_stmt *s, int i);
	/* Ready to step again with the same bindings. */
	void (*reset)(bg_db_stmt *s);
	void (*finalize)(bg_db_stmt *s);
	/* Rows changed by the last statement that wrote. */
	int64_t (*changes)(bg_db *db);
	/* Whether the last failure broke a UNIQUE constraint. */
	int (*unique_violation)(bg_db *db);
	/* Appends a series' samples (result_id, idx, value) to `samples`,
	 * inside the open write transaction; PostgreSQL sends them with COPY
	 * when the transaction commits. */
	int (*samples)(bg_db *db, int64_t result_id, const double *values, size_t n);
} bg_db_driver;

/* What every backend's connection and statement start with. */
struct bg_db {
	const bg_db_driver *drv;
	char *name;   /* for messages: a path, or a URI without its password */
	int readonly; /* opened read-only: writes are refused */
};

struct bg_db_stmt {
	bg_db *db;
};

/* Opens the database `spec` names: a postgresql:// or postgres:// URI, a
 * libpq key=value string, else a SQLite file path.  `missing` NULL: a
 * SQLite file that is not there is made, with its folders; else it is
 * refused (BG_EINPUT), `missing` saying why it is not made.  A PostgreSQL
 * database is never created. */
int bg_db_open(bg_ctx *ctx, const char *spec, const char *missing, bg_db **out);
/* Whether `spec` names a PostgreSQL database rather than a file. */
int bg_db_is_postgres(const char *spec);

/* Binds text as valid UTF-8 (lib/store.c); NULL binds NULL. */
int bg_db_bind_text(bg_db_stmt *s, int i, const char *v, int len);

/*
 * A run's results, written up to 2^BG_DB_BATCH_LOG rows to a statement
 * (lib/store.c): one INSERT per result cost a round trip each on
 * PostgreSQL, a thousand for a suite of a thousand series.  The rest of a
 * run goes in the power-of-two sizes below, each statement prepared once
 * into a bg_db_batches (zeroed at first; bg_db_batches_free).
 */
#define BG_DB_BATCH_LOG 6
typedef struct {
	bg_db_stmt *stmt[BG_DB_BATCH_LOG + 1]; /* [k]: 2^k rows */
} bg_db_batches;

/* One row of results: the run's, and `series_id`'s. */
typedef struct {
	int64_t series_id;
	int64_t n, outliers;
	double mean, median, stddev, min, max, robust_mean;
	/* BG_DB_NULL_*: columns a row copied from an older database lacks */
	unsigned nulls;
	const char *instrument; /* NULL: the clock */
	/* Out: the row's id; 0 when the run already has the series (its row
	 * is left as it was). */
	int64_t id;
} bg_db_result;
#define BG_DB_NULL_N 1u
#define BG_DB_NULL_MEAN 2u
#define BG_DB_NULL_MEDIAN 4u
#define BG_DB_NULL_STDDEV 8u
#define BG_DB_NULL_MIN 16u
#define BG_DB_NULL_MAX 32u
#define BG_DB_NULL_ROBUST_MEAN 64u
#define BG_DB_NULL_OUTLIERS 128u

/* Writes rows[0..n) of run `run_id`, inside the caller's write
 * transaction; each row's id into rows[i].id.  ctx says what failed. */
int bg_db_results_insert(bg_ctx *ctx, bg_db *db, bg_db_batches *b, int64_t run_id,
                         bg_db_result *rows, size_t n);
void bg_db_batches_free(bg_db_batches *b);

/* The database under a store (lib/store_copy.c). */
bg_db *bg_store__db(bg_store *store);

int bg_db_sqlite_open(bg_ctx *ctx, const char *path, const char *missing, bg_db **out);
int bg_db_pg_open(bg_ctx *ctx, const char *conninfo, bg_db **out);

static inline void bg_db_close(bg_db *db)
{
	if (db)
		db->drv->close(db);
}
static inline int bg_db_bind_int64(bg_db_stmt *s, int i, int64_t v)
{
	return s->db->drv->bind_int64(s, i, v);
}
static inline int bg_db_bind_double(bg_db_stmt *s, int i, double v)
{
	return s->db->drv->bind_double(s, i, v);
}
static inline int bg_db_bind_null(bg_db_stmt *s, int i)
{
	return s->db->drv->bind_null(s, i);
}
static inline int bg_db_step(bg_db_stmt *s)
{
	return s->db->drv->step(s);
}
static inline int64_t bg_db_column_int64(bg_db_stmt *s, int i)
{
	return s->db->drv->column_int64(s, i);
}
static inline int bg_db_column_int(bg_db_stmt *s, int i)
{
	return (int)s->db->drv->column_int64(s, i);
}
static inline double bg_db_column_double(bg_db_stmt *s, int i)
{
	return s->db->drv->column_double(s, i);
}
static inline const char *bg_db_column_text(bg_db_stmt *s, int i)
{
	return s->db->drv->column_text(s, i);
}
static inline int bg_db_column_is_null(bg_db_stmt *s, int i)
{
	return s->db->drv->column_is_null(s, i);
}
static inline void bg_db_reset(bg_db_stmt *s)
{
	s->db->drv->reset(s);
}
static inline void bg_db_finalize(bg_db_stmt *s)
{
	if (s)
		s->db->drv->finalize(s);
}

#endif
