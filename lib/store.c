/*
 * store.c -- the results database, the only module that uses SQLite.
 *
 * Every sample is kept raw, keyed by run; a run belongs to one commit and one
 * machine fingerprint.  The schema grows by appending steps to `migrations`
 * (PRAGMA user_version counts the steps applied), each applied inside one
 * write transaction.  Parallel CI jobs may share the file: WAL lets readers
 * run beside a writer, every write transaction is BEGIN IMMEDIATE so two
 * writers never deadlock upgrading read locks, and a busy timeout (plus a
 * retry loop where SQLite reports "busy" without waiting) makes writers
 * queue rather than fail.  A run is committed as 'incomplete' before any
 * sample is stored, so a process killed half-way leaves an intact file and
 * a run that is visibly unfinished.
 */
#include <errno.h>
#include <stdio.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include <sqlite3.h>

#include "internal.h"

/* How long a writer waits for others before giving up, in milliseconds. */
#define STORE_BUSY_MS 60000

/*
 * Schema steps; step i brings user_version from i to i + 1.  Never edit a
 * step that has shipped: append a new one.  (SQL is laid out by hand, so
 * clang-format keeps off it.)
 */
/* clang-format off */
static const char *const migrations[] = {
	/* 1: machines, commits, runs, series, per-run summaries and samples. */
	"CREATE TABLE machines ("
	"  id INTEGER PRIMARY KEY,"
	"  fingerprint TEXT NOT NULL UNIQUE,"
	"  first_seen INTEGER NOT NULL);"
	/* Stable facts, written once per fingerprint. */
	"CREATE TABLE machine_facts ("
	"  machine_id INTEGER NOT NULL REFERENCES machines(id) ON DELETE CASCADE,"
	"  key TEXT NOT NULL,"
	"  value TEXT NOT NULL,"
	"  PRIMARY KEY (machine_id, key)) WITHOUT ROWID;"
	"CREATE TABLE commits ("
	"  id INTEGER PRIMARY KEY,"
	"  sha TEXT NOT NULL UNIQUE,"
	"  author_time INTEGER,"
	"  author TEXT,"
	"  subject TEXT);"
	"CREATE TABLE runs ("
	"  id INTEGER PRIMARY KEY,"
	"  commit_id INTEGER NOT NULL REFERENCES commits(id),"
	"  machine_id INTEGER NOT NULL REFERENCES machines(id),"
	"  branch TEXT,"
	"  dirty INTEGER NOT NULL CHECK (dirty IN (0, 1)),"
	"  status TEXT NOT NULL CHECK (status IN ('incomplete', 'complete')),"
	"  source TEXT NOT NULL,"
	"  started_at INTEGER NOT NULL,"
	"  finished_at INTEGER);"
	"CREATE INDEX runs_commit ON runs(commit_id);"
	"CREATE INDEX runs_machine ON runs(machine_id, id);"
	/* The machine's volatile facts (kernel, governor, load...) at that run. */
	"CREATE TABLE run_facts ("
	"  run_id INTEGER NOT NULL REFERENCES runs(id) ON DELETE CASCADE,"
	"  key TEXT NOT NULL,"
	"  value TEXT NOT NULL,"
	"  PRIMARY KEY (run_id, key)) WITHOUT ROWID;"
	"CREATE TABLE run_tags ("
	"  run_id INTEGER NOT NULL REFERENCES runs(id) ON DELETE CASCADE,"
	"  key TEXT NOT NULL,"
	"  value TEXT NOT NULL,"
	"  PRIMARY KEY (run_id, key)) WITHOUT ROWID;"
	"CREATE TABLE series ("
	"  id INTEGER PRIMARY KEY,"
	"  benchmark TEXT NOT NULL,"
	"  metric TEXT NOT NULL,"
	"  unit TEXT NOT NULL,"
	"  direction TEXT NOT NULL CHECK (direction IN ('lower', 'higher')),"
	"  UNIQUE (benchmark, metric));"
	/* One row per series per run: the run summary the verdict works on. */
	"CREATE TABLE results ("
	"  id INTEGER PRIMARY KEY,"
	"  run_id INTEGER NOT NULL REFERENCES runs(id) ON DELETE CASCADE,"
	"  series_id INTEGER NOT NULL REFERENCES series(id),"
	"  n INTEGER NOT NULL,"
	"  mean REAL NOT NULL,"
	"  median REAL NOT NULL,"
	"  stddev REAL NOT NULL,"
	"  min REAL NOT NULL,"
	"  max REAL NOT NULL,"
	"  UNIQUE (run_id, series_id));"
	/* Baselines read "series S, newest runs first" through this. */
	"CREATE INDEX results_series_run ON results(series_id, run_id);"
	"CREATE TABLE samples ("
	"  result_id INTEGER NOT NULL REFERENCES results(id) ON DELETE CASCADE,"
	"  idx INTEGER NOT NULL,"
	"  value REAL NOT NULL,"
	"  PRIMARY KEY (result_id, idx)) WITHOUT ROWID;"
	"CREATE TABLE outcomes ("
	"  run_id INTEGER NOT NULL REFERENCES runs(id) ON DELETE CASCADE,"
	"  benchmark TEXT NOT NULL,"
	"  status TEXT NOT NULL CHECK (status IN ('ok', 'failed', 'skipped')),"
	"  message TEXT,"
	"  PRIMARY KEY (run_id, benchmark)) WITHOUT ROWID;",
	/* 2: a run identity that survives baseline export/import, so importing
	 * the same file twice stores nothing twice. */
	"ALTER TABLE runs ADD COLUMN uid TEXT;"
	"UPDATE runs SET uid = lower(hex(randomblob(16)));"
	"CREATE UNIQUE INDEX runs_uid ON runs(uid);",
	/* 3: the run summary the verdict uses, without far-out samples
	 * (bg_summary.robust_mean); older rows fall back to their mean. */
	"ALTER TABLE results ADD COLUMN robust_mean REAL;"
	"ALTER TABLE results ADD COLUMN outliers INTEGER NOT NULL DEFAULT 0;",
	/* 4: builds of pinned commits, so a SHA is built once per machine and
	 * build command, and a failed build is remembered (bisect skips it). */
	"CREATE TABLE builds ("
	"  sha TEXT NOT NULL,"
	"  machine TEXT NOT NULL,"
	"  command_hash TEXT NOT NULL,"
	"  ok INTEGER NOT NULL CHECK (ok IN (0, 1)),"
	"  log_tail TEXT,"
	"  seconds REAL NOT NULL,"
	"  finished_at INTEGER NOT NULL,"
	"  PRIMARY KEY (sha, machine, command_hash)) WITHOUT ROWID;",
	/* 5: the alert outbox.  An alert is stored before it is sent and kept
	 * until delivered; `target` names the target as configured (a hash of
	 * the unexpanded strings), never a secret, so the next `ci` or `alert
	 * flush` expands ${VAR} again.  `claimed_until`: a process delivering
	 * it; another leaves it alone until then, so it is sent once. */
	"CREATE TABLE outbox ("
	"  id INTEGER PRIMARY KEY,"
	"  uid TEXT NOT NULL UNIQUE,"
	"  kind TEXT NOT NULL,"
	"  target TEXT NOT NULL,"
	"  label TEXT NOT NULL,"
	"  pr TEXT,"
	"  mode TEXT NOT NULL CHECK (mode IN ('send', 'update')),"
	"  body TEXT NOT NULL,"
	"  run_id INTEGER,"
	"  state TEXT NOT NULL CHECK (state IN ('pending', 'delivered', 'failed', 'superseded')),"
	"  created_at INTEGER NOT NULL,"
	"  attempts INTEGER NOT NULL DEFAULT 0,"
	"  last_status INTEGER,"
	"  last_error TEXT,"
	"  delivered_at INTEGER,"
	"  claimed_until INTEGER);"
	"CREATE INDEX outbox_state ON outbox(state, id);",
	/* 6: a run's role, and the verdicts `ci` decided.  A run made as one
	 * side of an interleaved measurement (compare, bisect, ci's
	 * confirmation) is 'paired': judged in its pair, never in a rolling
	 * baseline, where a dozen runs of one commit made within a minute
	 * would stand for the machine's drift they never saw.  Older
	 * databases tagged such runs; the tags say which.  `checks` keeps each
	 * decided verdict as printed (json) with the run it judged, `verdicts`
	 * its rows, so that reports and history show what ci decided. */
	"ALTER TABLE runs ADD COLUMN role TEXT NOT NULL DEFAULT 'primary'"
	"  CHECK (role IN ('primary', 'paired'));"
	"UPDATE runs SET role = 'paired' WHERE id IN (SELECT run_id FROM run_tags"
	"  WHERE key IN ('confirm', 'confirm-reference', 'compare') OR key LIKE 'bisect-%');"
	"CREATE TABLE checks ("
	"  id INTEGER PRIMARY KEY,"
	"  run_id INTEGER NOT NULL REFERENCES runs(id) ON DELETE CASCADE,"
	"  source TEXT NOT NULL,"
	"  created_at INTEGER NOT NULL,"
	"  pairs INTEGER NOT NULL DEFAULT 0,"
	"  seconds REAL,"
	"  json TEXT NOT NULL);"
	"CREATE INDEX checks_run ON checks(run_id, id);"
	"CREATE TABLE verdicts ("
	"  check_id INTEGER NOT NULL REFERENCES checks(id) ON DELETE CASCADE,"
	"  series TEXT NOT NULL,"
	"  benchmark TEXT NOT NULL,"
	"  metric TEXT,"
	"  verdict TEXT NOT NULL,"
	"  first TEXT NOT NULL,"
	"  confirmation TEXT NOT NULL,"
	"  PRIMARY KEY (check_id, series)) WITHOUT ROWID;",
	/* 7: what measured a result when not the clock or the program itself
	 * (bg_series.instrument): a baseline only holds runs measured by the
	 * same instrument, so a new Valgrind starts a new baseline rather
	 * than raising an alarm. */
	"ALTER TABLE results ADD COLUMN instrument TEXT;",
};
/* clang-format on */

#define STORE_SCHEMA_VERSION ((int)BG_ARRAY_SIZE(migrations))

/* Statements prepared once per connection and reused for every row. */
enum store_stmt {
	ST_MACHINE_INSERT,
	ST_MACHINE_ID,
	ST_MACHINE_FACT,
	ST_COMMIT_INSERT,
	ST_COMMIT_ID,
	ST_RUN_INSERT,
	ST_RUN_FACT,
	ST_RUN_TAG,
	ST_RUN_STATUS,
	ST_RUN_FINISH,
	ST_SERIES_FIND,
	ST_SERIES_INSERT,
	ST_SERIES_DIRECTION,
	ST_RESULT_INSERT,
	ST_SAMPLE_INSERT,
	ST_OUTCOME_INSERT,
	ST_SERIES_COUNT,
	ST_HISTORY,
	ST_RESULT_FIND,
	ST_SAMPLES,
	ST_RUN_GET,
	ST_RUN_BY_UID,
	ST_RUN_LATEST,
	ST_RUNS_AT,
	ST_BASELINE_RUNS,
	ST_RUN_SERIES,
	ST_RUN_MEANS,
	ST_RUN_OUTCOMES,
	ST_RUN_TAGS,
	ST_BUILD_GET,
	ST_BUILD_PUT,
	ST_RUN_FACTS,
	ST_OUTBOX_ADD,
	ST_OUTBOX_LIST,
	ST_OUTBOX_CLAIM,
	ST_OUTBOX_SETTLE,
	ST_OUTBOX_PRUNE,
	ST_RUNS_SINCE,
	ST_RESULTS_SINCE,
	ST_CHECK_INSERT,
	ST_VERDICT_INSERT,
	ST_SERIES_BY_ID,
	ST_RECORDED_SINCE,
	ST_RECORDED_JSON,
	ST_COUNT
};

/* clang-format off */
static const char *const stmt_sql[ST_COUNT] = {
	[ST_MACHINE_INSERT] =
		"INSERT OR IGNORE INTO machines(fingerprint, first_seen) VALUES (?1, ?2)",
	[ST_MACHINE_ID] = "SELECT id FROM machines WHERE fingerprint = ?1",
	[ST_MACHINE_FACT] =
		"INSERT OR IGNORE INTO machine_facts(machine_id, key, value) VALUES (?1, ?2, ?3)",
	[ST_COMMIT_INSERT] = "INSERT OR IGNORE INTO commits(sha, author_time, author, subject)"
			     " VALUES (?1, ?2, ?3, ?4)",
	[ST_COMMIT_ID] = "SELECT id FROM commits WHERE sha = ?1",
	[ST_RUN_INSERT] = "INSERT INTO runs(commit_id, machine_id, branch, dirty, status, source,"
			  " started_at, uid, role) VALUES (?1, ?2, ?3, ?4, 'incomplete', ?5, ?6,"
			  " coalesce(?7, lower(hex(randomblob(16)))), ?8)",
	[ST_RUN_FACT] = "INSERT OR REPLACE INTO run_facts(run_id, key, value) VALUES (?1, ?2, ?3)",
	[ST_RUN_TAG] = "INSERT OR REPLACE INTO run_tags(run_id, key, value) VALUES (?1, ?2, ?3)",
	[ST_RUN_STATUS] = "SELECT status FROM runs WHERE id = ?1",
	[ST_RUN_FINISH] = "UPDATE runs SET status = 'complete', finished_at = ?2 WHERE id = ?1",
	[ST_SERIES_FIND] =
		"SELECT id, unit, direction FROM series WHERE benchmark = ?1 AND metric = ?2",
	[ST_SERIES_INSERT] = "INSERT INTO series(benchmark, metric, unit, direction)"
			     " VALUES (?1, ?2, ?3, ?4)",
	[ST_SERIES_DIRECTION] = "UPDATE series SET direction = ?2 WHERE id = ?1",
	[ST_RESULT_INSERT] = "INSERT INTO results(run_id, series_id, n, mean, median, stddev,"
			     " min, max, robust_mean, outliers, instrument)"
			     " VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11)",
	[ST_SAMPLE_INSERT] = "INSERT INTO samples(result_id, idx, value) VALUES (?1, ?2, ?3)",
	[ST_OUTCOME_INSERT] = "INSERT OR REPLACE INTO outcomes(run_id, benchmark, status, message)"
			      " VALUES (?1, ?2, ?3, ?4)",
	[ST_SERIES_COUNT] = "SELECT count(*) FROM series"
			    " WHERE benchmark = ?1 AND (?2 IS NULL OR metric = ?2)",
	/* ?3 counts runs, not rows, so a benchmark's metrics stay together. */
	[ST_HISTORY] = "SELECT r.id, c.sha, r.branch, r.dirty, r.status = 'complete', r.started_at,"
		       " c.author_time, c.subject, m.fingerprint, s.benchmark, s.metric, s.unit,"
		       " s.direction, x.n, x.mean, x.median, x.stddev, x.min, x.max,"
		       " r.role = 'paired', v.verdict, v.first, v.confirmation"
		       " FROM series s"
		       " JOIN results x ON x.series_id = s.id"
		       " JOIN runs r ON r.id = x.run_id"
		       " JOIN commits c ON c.id = r.commit_id"
		       " JOIN machines m ON m.id = r.machine_id"
		       " LEFT JOIN verdicts v ON v.check_id ="
		       "  (SELECT max(k.id) FROM checks k WHERE k.run_id = r.id)"
		       "  AND v.series = s.benchmark || ':' || s.metric"
		       " WHERE s.benchmark = ?1 AND (?2 IS NULL OR s.metric = ?2)"
		       " AND x.run_id IN (SELECT DISTINCT x2.run_id FROM series s2"
		       "  JOIN results x2 ON x2.series_id = s2.id"
		       "  WHERE s2.benchmark = ?1 AND (?2 IS NULL OR s2.metric = ?2)"
		       "  ORDER BY x2.run_id DESC LIMIT ?3)"
		       " ORDER BY r.id DESC, s.metric",
	[ST_RESULT_FIND] = "SELECT x.id, x.n, coalesce(x.robust_mean, x.mean)"
			   " FROM results x JOIN series s ON s.id = x.series_id"
			   " WHERE x.run_id = ?1 AND s.benchmark = ?2 AND s.metric = ?3",
	[ST_SAMPLES] = "SELECT value FROM samples WHERE result_id = ?1 ORDER BY idx",
	[ST_RUN_GET] =
		"SELECT r.id, c.sha, r.uid, r.branch, m.fingerprint, r.source, r.dirty,"
		"       r.status = 'complete', r.started_at, c.author_time, c.author, c.subject"
		"  FROM runs r JOIN commits c ON c.id = r.commit_id"
		"  JOIN machines m ON m.id = r.machine_id WHERE r.id = ?1",
	[ST_RUN_BY_UID] = "SELECT id FROM runs WHERE uid = ?1",
	[ST_RUN_LATEST] =
		"SELECT r.id FROM runs r JOIN machines m ON m.id = r.machine_id"
		" WHERE r.status = 'complete' AND r.role = 'primary'"
		"   AND (?1 IS NULL OR m.fingerprint = ?1)"
		" ORDER BY r.id DESC LIMIT 1",
	[ST_RUNS_AT] =
		"SELECT r.id FROM runs r JOIN commits c ON c.id = r.commit_id"
		"  JOIN machines m ON m.id = r.machine_id"
		" WHERE c.sha = ?1 AND m.fingerprint = ?2 AND r.status = 'complete'"
		"   AND (?3 < 0 OR r.dirty = ?3)"
		"   AND (?4 IS NULL OR EXISTS (SELECT 1 FROM run_tags t WHERE t.run_id = r.id"
		"        AND t.key || '=' || t.value = ?4))"
		/* Without a tag: the commit's runs of its own; with one, any. */
		"   AND (?4 IS NOT NULL OR r.role = 'primary') ORDER BY r.id",
	[ST_BASELINE_RUNS] =
		"SELECT r.id, c.sha, coalesce(c.author_time, 0) FROM runs r"
		"  JOIN commits c ON c.id = r.commit_id"
		"  JOIN machines m ON m.id = r.machine_id"
		" WHERE m.fingerprint = ?1 AND r.status = 'complete' AND r.dirty = 0"
		"   AND r.role = 'primary' ORDER BY r.id DESC",
	[ST_RUN_SERIES] =
		"SELECT s.id, s.benchmark, s.metric, s.unit, s.direction,"
		"       x.n, x.mean, x.median, x.stddev, x.min, x.max,"
		"       coalesce(x.robust_mean, x.mean), x.outliers, x.instrument"
		"  FROM results x JOIN series s ON s.id = x.series_id"
		" WHERE x.run_id = ?1 ORDER BY s.id",
	[ST_RUN_MEANS] = "SELECT series_id, coalesce(robust_mean, mean), instrument FROM results"
			 " WHERE run_id = ?1 ORDER BY series_id",
	[ST_RUN_OUTCOMES] =
		"SELECT benchmark, status, message FROM outcomes"
		" WHERE run_id = ?1 AND status != 'ok' ORDER BY benchmark",
	[ST_RUN_TAGS] = "SELECT key || '=' || value FROM run_tags WHERE run_id = ?1 ORDER BY key",
	[ST_BUILD_GET] = "SELECT ok, log_tail, seconds, finished_at FROM builds"
			 " WHERE sha = ?1 AND machine = ?2 AND command_hash = ?3",
	[ST_BUILD_PUT] = "INSERT OR REPLACE INTO builds(sha, machine, command_hash, ok, log_tail,"
			 " seconds, finished_at) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7)",
	[ST_RUN_FACTS] = "SELECT f.key, f.value, 0 FROM machine_facts f"
			 " JOIN runs r ON r.machine_id = f.machine_id WHERE r.id = ?1"
			 " UNION ALL SELECT key, value, 1 FROM run_facts WHERE run_id = ?1",
	[ST_OUTBOX_ADD] = "INSERT INTO outbox(uid, kind, target, label, pr, mode, body, run_id,"
			  " state, created_at) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, 'pending', ?9)",
	[ST_OUTBOX_LIST] = "SELECT id, uid, kind, target, label, pr, mode, body, run_id, state,"
			   " created_at, attempts, last_status, last_error, delivered_at"
			   " FROM outbox WHERE (?1 IS NULL OR state = ?1) ORDER BY id",
	[ST_OUTBOX_CLAIM] = "UPDATE outbox SET claimed_until = ?2 WHERE id = ?1 AND state = 'pending'"
			    " AND coalesce(claimed_until, 0) <= ?3",
	[ST_OUTBOX_SETTLE] = "UPDATE outbox SET state = ?2, attempts = attempts + ?3,"
			     " last_status = coalesce(?4, last_status), last_error = ?5,"
			     " delivered_at = CASE WHEN ?2 = 'delivered' THEN ?6 END,"
			     " claimed_until = NULL WHERE id = ?1",
	[ST_OUTBOX_PRUNE] = "DELETE FROM outbox WHERE state IN ('delivered', 'superseded')"
			    " AND created_at < ?1",
	/* Reports: every clean run of a period, and all their results in one
	 * pass, series by series (results_series_run gives that order). */
	[ST_RUNS_SINCE] =
		"SELECT r.id, c.sha, r.uid, r.branch, m.fingerprint, r.source, r.dirty,"
		"       r.status = 'complete', r.started_at, c.author_time, c.author, c.subject"
		"  FROM runs r JOIN commits c ON c.id = r.commit_id"
		"  JOIN machines m ON m.id = r.machine_id"
		" WHERE r.status = 'complete' AND r.dirty = 0 AND (?3 OR r.role = 'primary')"
		"   AND r.started_at >= ?1 AND (?2 IS NULL OR m.fingerprint = ?2) ORDER BY r.id",
	[ST_RESULTS_SINCE] =
		/* The series' names are read once per series (ST_SERIES_BY_ID):
		 * carried in every row, they tripled what the sort moves. */
		"SELECT x.run_id, x.series_id,"
		"       x.n, x.mean, x.median, x.stddev, x.min, x.max,"
		"       coalesce(x.robust_mean, x.mean), x.outliers, x.instrument"
		"  FROM results x"
		"  JOIN runs r ON r.id = x.run_id JOIN machines m ON m.id = r.machine_id"
		" WHERE r.status = 'complete' AND r.dirty = 0 AND (?3 OR r.role = 'primary')"
		"   AND r.started_at >= ?1 AND (?2 IS NULL OR m.fingerprint = ?2)"
		" ORDER BY x.series_id, x.run_id",
	[ST_SERIES_BY_ID] = "SELECT benchmark, metric, unit, direction FROM series WHERE id = ?1",
	[ST_CHECK_INSERT] = "INSERT INTO checks(run_id, source, created_at, pairs, seconds, json)"
			    " VALUES (?1, ?2, ?3, ?4, ?5, ?6)",
	[ST_VERDICT_INSERT] = "INSERT OR REPLACE INTO verdicts(check_id, series, benchmark, metric,"
			      " verdict, first, confirmation) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7)",
	/* The newest check of each run of the period (as ST_RUNS_SINCE lists them). */
	[ST_RECORDED_SINCE] =
		"SELECT k.id, k.run_id, v.series, v.verdict, v.first, v.confirmation"
		"  FROM checks k JOIN verdicts v ON v.check_id = k.id"
		"  JOIN runs r ON r.id = k.run_id JOIN machines m ON m.id = r.machine_id"
		" WHERE k.id = (SELECT max(k2.id) FROM checks k2 WHERE k2.run_id = k.run_id)"
		"   AND r.status = 'complete' AND r.dirty = 0 AND (?3 OR r.role = 'primary')"
		"   AND r.started_at >= ?1 AND (?2 IS NULL OR m.fingerprint = ?2)"
		" ORDER BY k.run_id, v.series",
	[ST_RECORDED_JSON] = "SELECT json FROM checks WHERE run_id = ?1 ORDER BY id DESC LIMIT 1",
};
/* clang-format on */

struct bg_store {
	sqlite3 *db;
	char *path;
	int version;
	/* Opened read-only: the file or its folder may not be written. */
	int readonly;
	sqlite3_stmt *stmts[ST_COUNT];
};

/* The error code for a SQLite result code. */
static int store__code(int rc)
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

/*
 * Copies SQLite's message for the last failure at once (a ROLLBACK would
 * replace it), prefixed with the path and what was being done.
 */
static int store__fail(bg_ctx *ctx, bg_store *st, const char *what)
{
	int rc = sqlite3_extended_errcode(st->db);

	if ((rc & 0xff) == SQLITE_NOTADB)
		return bg_error_set(ctx, BG_ERROR, "database %s: the file is not a SQLite database",
		                    st->path);
	/* A write on a store opened read-only: say so, not SQLite's words. */
	if ((rc & 0xff) == SQLITE_READONLY)
		return bg_error_set(ctx, BG_EIO,
		                    "database %s: the database is read-only (the folder or file "
		                    "may not be written): %s",
		                    st->path, what);
	/* "unable to open database file" says nothing of why; errno does. */
	if (((rc & 0xff) == SQLITE_CANTOPEN || (rc & 0xff) == SQLITE_IOERR) &&
	    sqlite3_system_errno(st->db) != 0)
		return bg_error_set(ctx, store__code(rc), "database %s: %s: %s (%s)", st->path,
		                    what, sqlite3_errmsg(st->db),
		                    strerror(sqlite3_system_errno(st->db)));
	return bg_error_set(ctx, store__code(rc), "database %s: %s: %s", st->path, what,
	                    sqlite3_errmsg(st->db));
}

static int store__is_busy(int rc)
{
	return (rc & 0xff) == SQLITE_BUSY || (rc & 0xff) == SQLITE_LOCKED;
}

static long long store__now_ms(void)
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
static int store__backoff(long long deadline, int *delay_ms)
{
	if (store__now_ms() >= deadline)
		return -1;
	sqlite3_sleep(*delay_ms);
	if (*delay_ms < 100)
		*delay_ms *= 2;
	return 0;
}

/*
 * Runs SQL that returns no rows.  Outside a transaction it is retried while
 * the database is busy; inside one, SQL may have half run, so never.
 */
static int store__exec(bg_ctx *ctx, bg_store *st, const char *sql, const char *what)
{
	long long deadline = store__now_ms() + STORE_BUSY_MS;
	int retry = sqlite3_get_autocommit(st->db), delay = 1, rc;

	while ((rc = sqlite3_exec(st->db, sql, NULL, NULL, NULL)) != SQLITE_OK) {
		if (!retry || !store__is_busy(rc) || store__backoff(deadline, &delay) < 0)
			return store__fail(ctx, st, what);
	}
	return 0;
}

/*
 * Runs a PRAGMA and copies the first column of its first row into buf
 * ("" when it returns none), retrying while the database is busy.
 */
static int store__pragma(bg_ctx *ctx, bg_store *st, const char *sql, char *buf, size_t size,
                         const char *what)
{
	long long deadline = store__now_ms() + STORE_BUSY_MS;
	sqlite3_stmt *stmt = NULL;
	int delay = 1, rc;

	for (;;) {
		buf[0] = '\0';
		rc = sqlite3_prepare_v2(st->db, sql, -1, &stmt, NULL);
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
		if (!store__is_busy(rc) || store__backoff(deadline, &delay) < 0) {
			int error = store__fail(ctx, st, what);
			sqlite3_finalize(stmt);
			return error;
		}
		sqlite3_finalize(stmt);
		stmt = NULL;
	}
	sqlite3_finalize(stmt);
	return 0;
}

static int store__begin(bg_ctx *ctx, bg_store *st)
{
	return store__exec(ctx, st, "BEGIN IMMEDIATE", "starting a write transaction");
}

static int store__commit(bg_ctx *ctx, bg_store *st)
{
	return store__exec(ctx, st, "COMMIT", "committing");
}

/* Undoes an open transaction; SQLite may already have rolled it back. */
static void store__rollback(bg_store *st)
{
	if (!sqlite3_get_autocommit(st->db))
		sqlite3_exec(st->db, "ROLLBACK", NULL, NULL, NULL);
}

/* The cached statement `id`, prepared on first use. */
static int store__stmt(bg_ctx *ctx, bg_store *st, enum store_stmt id, sqlite3_stmt **out)
{
	*out = NULL;
	if (!st->stmts[id] &&
	    sqlite3_prepare_v3(st->db, stmt_sql[id], -1, SQLITE_PREPARE_PERSISTENT, &st->stmts[id],
	                       NULL) != SQLITE_OK)
		return store__fail(ctx, st, "preparing a statement");
	*out = st->stmts[id];
	return 0;
}

/*
 * Steps a statement that writes (or reads at most one row the caller does
 * not need) and resets it for the next use.
 */
static int store__run(bg_ctx *ctx, bg_store *st, sqlite3_stmt *stmt, const char *what)
{
	int rc = sqlite3_step(stmt), error = 0;

	if (rc != SQLITE_DONE && rc != SQLITE_ROW)
		error = store__fail(ctx, st, what);
	sqlite3_reset(stmt);
	return error;
}

/* Steps a statement that yields one integer; *found says whether it did. */
static int store__int(bg_ctx *ctx, bg_store *st, sqlite3_stmt *stmt, const char *what,
                      int64_t *value, int *found)
{
	int rc = sqlite3_step(stmt), error = 0;

	*found = rc == SQLITE_ROW;
	if (rc == SQLITE_ROW)
		*value = sqlite3_column_int64(stmt, 0);
	else if (rc != SQLITE_DONE)
		error = store__fail(ctx, st, what);
	sqlite3_reset(stmt);
	return error;
}

static int store__bind_fail(bg_ctx *ctx, bg_store *st, sqlite3_stmt *stmt)
{
	int error = store__fail(ctx, st, "binding a value");

	sqlite3_reset(stmt);
	return error;
}

/* mkdir -p of the directory part of `path`. */
static int store__mkdirs(bg_ctx *ctx, const char *path)
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

/*
 * Reads PRAGMA user_version into *version and refuses a version this build
 * does not know: a later benchguard's file (its tables may mean other
 * things), or a negative one (no benchguard writes that; the migration
 * steps are indexed by it).  Nothing is written either way.
 */
static int store__version(bg_ctx *ctx, bg_store *st, int *version)
{
	char buf[64], *end;
	long v;
	int error;

	if ((error = store__pragma(ctx, st, "PRAGMA user_version", buf, sizeof(buf),
	                           "reading the schema version")) < 0)
		return error;
	errno = 0;
	v = strtol(buf, &end, 10);
	if (end == buf || *end || errno)
		return bg_error_set(ctx, BG_EINPUT,
		                    "database %s: the schema version \"%s\" is not a number",
		                    st->path, buf);
	if (v > STORE_SCHEMA_VERSION)
		return bg_error_set(ctx, BG_EINPUT,
		                    "database %s: database schema version %ld is newer than this "
		                    "benchguard supports (%d)",
		                    st->path, v, STORE_SCHEMA_VERSION);
	if (v < 0)
		return bg_error_set(ctx, BG_EINPUT,
		                    "database %s: schema version %ld is not one benchguard knows "
		                    "(this build reads 0 to %d)",
		                    st->path, v, STORE_SCHEMA_VERSION);
	*version = (int)v;
	return 0;
}

/* Version 0 with tables: some other program's database, left untouched. */
static int store__foreign(bg_ctx *ctx, bg_store *st)
{
	char buf[64];
	int error;

	if ((error = store__pragma(ctx, st, "SELECT count(*) FROM sqlite_master", buf, sizeof(buf),
	                           "reading the schema")) < 0)
		return error;
	if (atoi(buf) != 0)
		return bg_error_set(ctx, BG_ERROR,
		                    "database %s: not a benchguard database (it has tables "
		                    "but no schema version)",
		                    st->path);
	return 0;
}

/*
 * The version of a file about to be set up, refused if unknown or foreign.
 * One read transaction: a process migrating the file meanwhile commits its
 * tables and its version together, and both reads see the same state.
 */
static int store__identify(bg_ctx *ctx, bg_store *st, int *version)
{
	int error;

	if ((error = store__exec(ctx, st, "BEGIN", "reading the schema")) < 0)
		return error;
	if ((error = store__version(ctx, st, version)) < 0 ||
	    (*version == 0 && (error = store__foreign(ctx, st)) < 0)) {
		store__rollback(st);
		return error;
	}
	return store__exec(ctx, st, "COMMIT", "reading the schema");
}

/* Applies the migration steps this file lacks, in one write transaction. */
static int store__migrate(bg_ctx *ctx, bg_store *st)
{
	char buf[64], sql[64];
	int error, version = 0, i;

	if ((error = store__begin(ctx, st)) < 0)
		return error;
	/* Another process may have migrated since we looked. */
	if ((error = store__version(ctx, st, &version)) < 0 ||
	    (version == 0 && (error = store__foreign(ctx, st)) < 0))
		goto cleanup;
	for (i = version; i < STORE_SCHEMA_VERSION; i++) {
		snprintf(buf, sizeof(buf), "migrating the schema to version %d", i + 1);
		if ((error = store__exec(ctx, st, migrations[i], buf)) < 0)
			goto cleanup;
	}
	snprintf(sql, sizeof(sql), "PRAGMA user_version = %d", STORE_SCHEMA_VERSION);
	if ((error = store__exec(ctx, st, sql, "setting the schema version")) < 0)
		goto cleanup;
	error = store__commit(ctx, st);

cleanup:
	if (error < 0)
		store__rollback(st);
	return error;
}

static int store__setup(bg_ctx *ctx, bg_store *st)
{
	char buf[64];
	int error, version = 0;

	sqlite3_extended_result_codes(st->db, 1);
	sqlite3_busy_timeout(st->db, STORE_BUSY_MS);
	/* Read first: a foreign, newer or corrupt file is refused before it is
	 * touched (switching to WAL writes the header). */
	if ((error = store__identify(ctx, st, &version)) < 0)
		return error;
	if (st->readonly) {
		/* Nothing may be written: no journal mode, no migration. */
		if (version < STORE_SCHEMA_VERSION)
			return bg_error_set(ctx, BG_EIO,
			                    "database %s: the database is read-only (the folder or "
			                    "file may not be written) and its schema (version %d) "
			                    "needs migrating to version %d: run benchguard once "
			                    "where it may write the file",
			                    st->path, version, STORE_SCHEMA_VERSION);
		if ((error = store__exec(ctx, st, "PRAGMA foreign_keys = ON",
		                         "setting up the connection")) < 0)
			return error;
		st->version = version;
		return 0;
	}
	if ((error = store__pragma(ctx, st, "PRAGMA journal_mode = WAL", buf, sizeof(buf),
	                           "switching to WAL")) < 0)
		return error;
	if (strcmp(buf, "wal") != 0)
		return bg_error_set(ctx, BG_ERROR,
		                    "database %s: cannot use the WAL journal (journal mode is %s)",
		                    st->path, buf);
	if ((error = store__exec(ctx, st, "PRAGMA foreign_keys = ON; PRAGMA synchronous = NORMAL",
	                         "setting up the connection")) < 0)
		return error;
	if (version < STORE_SCHEMA_VERSION && (error = store__migrate(ctx, st)) < 0)
		return error;
	st->version = STORE_SCHEMA_VERSION;
	return 0;
}

/* The folder part of `path` ("." when it has none), malloc'd. */
static char *store__dir(const char *path)
{
	const char *slash = strrchr(path, '/');

	if (!slash)
		return bg_strdup(".");
	if (slash == path)
		return bg_strdup("/");
	return bg_printf("%.*s", (int)(slash - path), path);
}

/* 0 when access() says this process may not write `path` (a missing file
 * is no reason: another process may be creating it). */
static int store__may_write(const char *path, int mode)
{
	return access(path, mode) == 0 || (errno != EACCES && errno != EROFS && errno != EPERM);
}

/* The size of `path`, or -1 when it does not exist. */
static long long store__size(const char *path)
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
static int store__open_readonly(bg_ctx *ctx, bg_store *st, int dir_writable)
{
	bg_buf uri = BG_BUF_INIT;
	char *aux = NULL;
	const char *p;
	int error = 0, immutable = 0, oom = 0, rc;
	long long wal;

	if (!dir_writable) {
		if (!(aux = bg_printf("%s-shm", st->path))) {
			error = bg_error_oom(ctx);
			goto cleanup;
		}
		if (store__size(aux) < 0) {
			free(aux);
			if (!(aux = bg_printf("%s-wal", st->path))) {
				error = bg_error_oom(ctx);
				goto cleanup;
			}
			wal = store__size(aux);
			if (wal > 0) {
				error = bg_error_set(ctx, BG_EIO,
				                     "database %s: the database is read-only (the "
				                     "folder or file may not be written) and %s "
				                     "holds changes only a run that may write the "
				                     "folder can fold in",
				                     st->path, aux);
				goto cleanup;
			}
			immutable = 1;
		}
	}
	/* A URI, so that the path is percent-encoded: ? and # are not options. */
	oom |= bg_buf_puts(&uri, st->path[0] == '/' ? "file://" : "file:") < 0;
	for (p = st->path; *p; p++) {
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
	rc = sqlite3_open_v2(uri.ptr, &st->db,
	                     SQLITE_OPEN_READONLY | SQLITE_OPEN_URI | SQLITE_OPEN_NOMUTEX, NULL);
	if (rc != SQLITE_OK)
		error = st->db ? store__fail(ctx, st, "opening") : bg_error_oom(ctx);

cleanup:
	bg_buf_clear(&uri);
	free(aux);
	return error;
}

int bg_store_open(bg_ctx *ctx, const char *path, bg_store **out)
{
	bg_store *st = NULL;
	char *dir = NULL;
	int error, rc, dir_writable;

	*out = NULL;
	if (!path || !*path)
		return bg_error_set(ctx, BG_EINPUT, "no database path given");
	if (!(st = calloc(1, sizeof(*st))) || !(st->path = bg_strdup(path)) ||
	    !(dir = store__dir(path))) {
		error = bg_error_oom(ctx);
		goto cleanup;
	}
	/* An existing file that this process may not write, or whose folder
	 * it may not write (the journal lives there), is opened read-only:
	 * the commands that only read work, and a write says why it cannot. */
	dir_writable = 1;
	if (store__size(path) >= 0) {
		dir_writable = store__may_write(dir, W_OK | X_OK);
		st->readonly = !dir_writable || !store__may_write(path, W_OK);
	}
	if (st->readonly) {
		if ((error = store__open_readonly(ctx, st, dir_writable)) < 0)
			goto cleanup;
	} else {
		if ((error = store__mkdirs(ctx, path)) < 0)
			goto cleanup;
		rc = sqlite3_open_v2(
		        path, &st->db,
		        SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE | SQLITE_OPEN_NOMUTEX, NULL);
		if (rc != SQLITE_OK) {
			error = st->db ? store__fail(ctx, st, "opening") : bg_error_oom(ctx);
			goto cleanup;
		}
	}
	if ((error = store__setup(ctx, st)) < 0)
		goto cleanup;
	*out = st;
	st = NULL;

cleanup:
	free(dir);
	bg_store_free(st);
	return error;
}

int bg_store_writable(bg_ctx *ctx, bg_store *store)
{
	if (store->readonly)
		return bg_error_set(ctx, BG_EIO,
		                    "database %s: the database is read-only (the folder or file "
		                    "may not be written)",
		                    store->path);
	return 0;
}

void bg_store_free(bg_store *store)
{
	size_t i;

	if (!store)
		return;
	for (i = 0; i < ST_COUNT; i++)
		sqlite3_finalize(store->stmts[i]);
	sqlite3_close_v2(store->db);
	free(store->path);
	free(store);
}

int bg_store_schema_version(bg_store *store)
{
	return store->version;
}

/* ------------------------------------------------------------------ runs */

/* The machine's row, created with its stable facts the first time it is seen. */
static int store__machine(bg_ctx *ctx, bg_store *st, bg_machine *m, int64_t now, int64_t *id)
{
	const char *fp = bg_machine_fingerprint(m);
	sqlite3_stmt *s;
	size_t i, n;
	int error, found;

	if (!fp || !*fp)
		return bg_error_set(ctx, BG_ERROR, "the machine has no fingerprint");
	if ((error = store__stmt(ctx, st, ST_MACHINE_INSERT, &s)) < 0)
		return error;
	if (sqlite3_bind_text(s, 1, fp, -1, SQLITE_STATIC) != SQLITE_OK ||
	    sqlite3_bind_int64(s, 2, now) != SQLITE_OK)
		return store__bind_fail(ctx, st, s);
	if ((error = store__run(ctx, st, s, "storing the machine")) < 0)
		return error;
	if ((error = store__stmt(ctx, st, ST_MACHINE_ID, &s)) < 0)
		return error;
	if (sqlite3_bind_text(s, 1, fp, -1, SQLITE_STATIC) != SQLITE_OK)
		return store__bind_fail(ctx, st, s);
	if ((error = store__int(ctx, st, s, "finding the machine", id, &found)) < 0)
		return error;
	if (!found)
		return bg_error_set(ctx, BG_ERROR, "database %s: machine %s vanished", st->path,
		                    fp);
	if ((error = store__stmt(ctx, st, ST_MACHINE_FACT, &s)) < 0)
		return error;
	n = bg_machine_fact_count(m);
	for (i = 0; i < n; i++) {
		const char *key, *value;
		int is_volatile;

		if (bg_machine_fact(m, i, &key, &value, &is_volatile) < 0 || is_volatile)
			continue;
		if (sqlite3_bind_int64(s, 1, *id) != SQLITE_OK ||
		    sqlite3_bind_text(s, 2, key, -1, SQLITE_STATIC) != SQLITE_OK ||
		    sqlite3_bind_text(s, 3, value ? value : "", -1, SQLITE_STATIC) != SQLITE_OK)
			return store__bind_fail(ctx, st, s);
		if ((error = store__run(ctx, st, s, "storing the machine's facts")) < 0)
			return error;
	}
	return 0;
}

static int store__commit_row(bg_ctx *ctx, bg_store *st, const bg_commit *c, int64_t *id)
{
	sqlite3_stmt *s;
	int error, found;

	if ((error = store__stmt(ctx, st, ST_COMMIT_INSERT, &s)) < 0)
		return error;
	if (sqlite3_bind_text(s, 1, c->sha, -1, SQLITE_STATIC) != SQLITE_OK ||
	    sqlite3_bind_int64(s, 2, c->author_time) != SQLITE_OK ||
	    sqlite3_bind_text(s, 3, c->author, -1, SQLITE_STATIC) != SQLITE_OK ||
	    sqlite3_bind_text(s, 4, c->subject, -1, SQLITE_STATIC) != SQLITE_OK)
		return store__bind_fail(ctx, st, s);
	if ((error = store__run(ctx, st, s, "storing the commit")) < 0)
		return error;
	if ((error = store__stmt(ctx, st, ST_COMMIT_ID, &s)) < 0)
		return error;
	if (sqlite3_bind_text(s, 1, c->sha, -1, SQLITE_STATIC) != SQLITE_OK)
		return store__bind_fail(ctx, st, s);
	if ((error = store__int(ctx, st, s, "finding the commit", id, &found)) < 0)
		return error;
	if (!found)
		return bg_error_set(ctx, BG_ERROR, "database %s: commit %s vanished", st->path,
		                    c->sha);
	return 0;
}

/* Checked before anything is written, so a bad tag stores nothing. */
static int store__check_tags(bg_ctx *ctx, const char *const *tags)
{
	for (; tags && *tags; tags++) {
		const char *eq = strchr(*tags, '=');

		if (!eq)
			return bg_error_set(ctx, BG_EINPUT, "tag \"%s\" is not KEY=VALUE", *tags);
		if (eq == *tags)
			return bg_error_set(ctx, BG_EINPUT, "tag \"%s\" has an empty key", *tags);
	}
	return 0;
}

/* The machine's volatile facts, as they are at this run. */
static int store__run_facts(bg_ctx *ctx, bg_store *st, const bg_machine *m, int64_t id)
{
	sqlite3_stmt *s;
	size_t i, n;
	int error;

	if ((error = store__stmt(ctx, st, ST_RUN_FACT, &s)) < 0)
		return error;
	n = bg_machine_fact_count(m);
	for (i = 0; i < n; i++) {
		const char *key, *value;
		int is_volatile;

		if (bg_machine_fact(m, i, &key, &value, &is_volatile) < 0 || !is_volatile)
			continue;
		if (sqlite3_bind_int64(s, 1, id) != SQLITE_OK ||
		    sqlite3_bind_text(s, 2, key, -1, SQLITE_STATIC) != SQLITE_OK ||
		    sqlite3_bind_text(s, 3, value ? value : "", -1, SQLITE_STATIC) != SQLITE_OK)
			return store__bind_fail(ctx, st, s);
		if ((error = store__run(ctx, st, s, "storing the run's machine facts")) < 0)
			return error;
	}
	return 0;
}

static int store__run_details(bg_ctx *ctx, bg_store *st, const bg_run_info *info, int64_t id)
{
	const char *const *tag;
	sqlite3_stmt *s;
	int error;

	if ((error = store__run_facts(ctx, st, info->machine, id)) < 0)
		return error;
	if ((error = store__stmt(ctx, st, ST_RUN_TAG, &s)) < 0)
		return error;
	for (tag = info->tags; tag && *tag; tag++) {
		const char *eq = strchr(*tag, '=');

		if (sqlite3_bind_int64(s, 1, id) != SQLITE_OK ||
		    sqlite3_bind_text(s, 2, *tag, (int)(eq - *tag), SQLITE_STATIC) != SQLITE_OK ||
		    sqlite3_bind_text(s, 3, eq + 1, -1, SQLITE_STATIC) != SQLITE_OK)
			return store__bind_fail(ctx, st, s);
		if ((error = store__run(ctx, st, s, "storing the run's tags")) < 0)
			return error;
	}
	return 0;
}

int bg_store_run_begin(bg_ctx *ctx, bg_store *store, const bg_run_info *info, int64_t *run_id)
{
	int64_t now = (int64_t)time(NULL), machine_id = 0, commit_id = 0;
	sqlite3_stmt *s;
	int error;

	*run_id = 0;
	if (!info || !info->commit || !info->machine || !info->commit->sha[0])
		return bg_error_set(ctx, BG_EINPUT, "a run needs a commit and a machine");
	if ((error = store__check_tags(ctx, info->tags)) < 0)
		return error;
	if (info->uid && (strlen(info->uid) != 32 || strspn(info->uid, "0123456789abcdef") != 32))
		return bg_error_set(ctx, BG_EINPUT, "run uid \"%s\" is not 32 lowercase hex digits",
		                    info->uid);
	if ((error = store__begin(ctx, store)) < 0)
		return error;
	if ((error = store__machine(ctx, store, info->machine, now, &machine_id)) < 0 ||
	    (error = store__commit_row(ctx, store, info->commit, &commit_id)) < 0 ||
	    (error = store__stmt(ctx, store, ST_RUN_INSERT, &s)) < 0)
		goto cleanup;
	if (sqlite3_bind_int64(s, 1, commit_id) != SQLITE_OK ||
	    sqlite3_bind_int64(s, 2, machine_id) != SQLITE_OK ||
	    sqlite3_bind_text(s, 3, info->commit->branch, -1, SQLITE_STATIC) != SQLITE_OK ||
	    sqlite3_bind_int(s, 4, info->commit->dirty ? 1 : 0) != SQLITE_OK ||
	    sqlite3_bind_text(s, 5, info->source ? info->source : "run", -1, SQLITE_STATIC) !=
	            SQLITE_OK ||
	    sqlite3_bind_int64(s, 6, info->started_at > 0 ? info->started_at : now) != SQLITE_OK ||
	    sqlite3_bind_text(s, 7, info->uid, -1, SQLITE_STATIC) != SQLITE_OK ||
	    sqlite3_bind_text(s, 8, info->paired ? "paired" : "primary", -1, SQLITE_STATIC) !=
	            SQLITE_OK) {
		error = store__bind_fail(ctx, store, s);
		goto cleanup;
	}
	if ((error = store__run(ctx, store, s, "storing the run")) < 0)
		goto cleanup;
	*run_id = sqlite3_last_insert_rowid(store->db);
	if ((error = store__run_details(ctx, store, info, *run_id)) < 0)
		goto cleanup;
	error = store__commit(ctx, store);

cleanup:
	if (error < 0) {
		store__rollback(store);
		*run_id = 0;
	}
	return error;
}

/* The run must exist and still be open for samples. */
static int store__check_run(bg_ctx *ctx, bg_store *st, int64_t run_id)
{
	sqlite3_stmt *s;
	int error, rc, complete;

	if ((error = store__stmt(ctx, st, ST_RUN_STATUS, &s)) < 0)
		return error;
	if (sqlite3_bind_int64(s, 1, run_id) != SQLITE_OK)
		return store__bind_fail(ctx, st, s);
	rc = sqlite3_step(s);
	if (rc != SQLITE_ROW && rc != SQLITE_DONE) {
		error = store__fail(ctx, st, "reading the run");
		sqlite3_reset(s);
		return error;
	}
	complete = rc == SQLITE_ROW && !strcmp((const char *)sqlite3_column_text(s, 0), "complete");
	sqlite3_reset(s);
	if (rc == SQLITE_DONE)
		return bg_error_set(ctx, BG_ENOTFOUND, "no run %lld in the database",
		                    (long long)run_id);
	if (complete)
		return bg_error_set(ctx, BG_EINPUT, "run %lld is already complete",
		                    (long long)run_id);
	return 0;
}

/*
 * The series' id, created on first use.  A unit that differs from the one
 * stored is refused: mixing seconds and bytes in one history is meaningless.
 * The direction follows the latest run, since the config may override it.
 */
static int store__series(bg_ctx *ctx, bg_store *st, const bg_series *ser, int64_t *id)
{
	const char *dir = bg_direction_name(ser->direction);
	sqlite3_stmt *s;
	int error, rc, same_dir = 1;

	if ((error = store__stmt(ctx, st, ST_SERIES_FIND, &s)) < 0)
		return error;
	if (sqlite3_bind_text(s, 1, ser->benchmark, -1, SQLITE_STATIC) != SQLITE_OK ||
	    sqlite3_bind_text(s, 2, ser->metric, -1, SQLITE_STATIC) != SQLITE_OK)
		return store__bind_fail(ctx, st, s);
	rc = sqlite3_step(s);
	if (rc == SQLITE_ROW) {
		const char *unit = (const char *)sqlite3_column_text(s, 1);
		const char *old_dir = (const char *)sqlite3_column_text(s, 2);

		*id = sqlite3_column_int64(s, 0);
		if (strcmp(unit, ser->unit) != 0) {
			error = bg_error_set(ctx, BG_EINPUT,
			                     "series \"%s:%s\" is stored in unit \"%s\", "
			                     "but this run measured it in \"%s\"",
			                     ser->benchmark, ser->metric, unit, ser->unit);
			sqlite3_reset(s);
			return error;
		}
		same_dir = !strcmp(old_dir, dir);
	} else if (rc != SQLITE_DONE) {
		error = store__fail(ctx, st, "finding the series");
		sqlite3_reset(s);
		return error;
	}
	sqlite3_reset(s);
	if (rc == SQLITE_ROW) {
		if (same_dir)
			return 0;
		if ((error = store__stmt(ctx, st, ST_SERIES_DIRECTION, &s)) < 0)
			return error;
		if (sqlite3_bind_int64(s, 1, *id) != SQLITE_OK ||
		    sqlite3_bind_text(s, 2, dir, -1, SQLITE_STATIC) != SQLITE_OK)
			return store__bind_fail(ctx, st, s);
		return store__run(ctx, st, s, "updating the series' direction");
	}
	if ((error = store__stmt(ctx, st, ST_SERIES_INSERT, &s)) < 0)
		return error;
	if (sqlite3_bind_text(s, 1, ser->benchmark, -1, SQLITE_STATIC) != SQLITE_OK ||
	    sqlite3_bind_text(s, 2, ser->metric, -1, SQLITE_STATIC) != SQLITE_OK ||
	    sqlite3_bind_text(s, 3, ser->unit, -1, SQLITE_STATIC) != SQLITE_OK ||
	    sqlite3_bind_text(s, 4, dir, -1, SQLITE_STATIC) != SQLITE_OK)
		return store__bind_fail(ctx, st, s);
	if ((error = store__run(ctx, st, s, "storing the series")) < 0)
		return error;
	*id = sqlite3_last_insert_rowid(st->db);
	return 0;
}

/* One series of a run: its summary row, then every sample in order. */
static int store__series_samples(bg_ctx *ctx, bg_store *st, int64_t run_id, const bg_series *ser)
{
	bg_summary sum;
	int64_t series_id = 0, result_id;
	sqlite3_stmt *s;
	size_t i;
	int error, rc;

	if ((error = store__series(ctx, st, ser, &series_id)) < 0)
		return error;
	if ((error = bg_stats_summarize(ctx, ser->values, ser->n, &sum)) < 0)
		return error;
	if ((error = store__stmt(ctx, st, ST_RESULT_INSERT, &s)) < 0)
		return error;
	if (sqlite3_bind_int64(s, 1, run_id) != SQLITE_OK ||
	    sqlite3_bind_int64(s, 2, series_id) != SQLITE_OK ||
	    sqlite3_bind_int64(s, 3, (int64_t)sum.n) != SQLITE_OK ||
	    sqlite3_bind_double(s, 4, sum.mean) != SQLITE_OK ||
	    sqlite3_bind_double(s, 5, sum.median) != SQLITE_OK ||
	    sqlite3_bind_double(s, 6, sum.stddev) != SQLITE_OK ||
	    sqlite3_bind_double(s, 7, sum.min) != SQLITE_OK ||
	    sqlite3_bind_double(s, 8, sum.max) != SQLITE_OK ||
	    sqlite3_bind_double(s, 9, sum.robust_mean) != SQLITE_OK ||
	    sqlite3_bind_int64(s, 10, (int64_t)sum.outliers) != SQLITE_OK ||
	    (ser->instrument ? sqlite3_bind_text(s, 11, ser->instrument, -1, SQLITE_STATIC)
	                     : sqlite3_bind_null(s, 11)) != SQLITE_OK)
		return store__bind_fail(ctx, st, s);
	rc = sqlite3_step(s);
	if (rc != SQLITE_DONE) {
		if (sqlite3_extended_errcode(st->db) == SQLITE_CONSTRAINT_UNIQUE)
			error = bg_error_set(ctx, BG_EINPUT,
			                     "run %lld already has series \"%s:%s\"",
			                     (long long)run_id, ser->benchmark, ser->metric);
		else
			error = store__fail(ctx, st, "storing a run summary");
		sqlite3_reset(s);
		return error;
	}
	sqlite3_reset(s);
	result_id = sqlite3_last_insert_rowid(st->db);

	/* The hot loop of an import: bind three numbers, step, reset. */
	if ((error = store__stmt(ctx, st, ST_SAMPLE_INSERT, &s)) < 0)
		return error;
	if (sqlite3_bind_int64(s, 1, result_id) != SQLITE_OK)
		return store__bind_fail(ctx, st, s);
	for (i = 0; i < ser->n; i++) {
		if (sqlite3_bind_int64(s, 2, (int64_t)i) != SQLITE_OK ||
		    sqlite3_bind_double(s, 3, ser->values[i]) != SQLITE_OK)
			return store__bind_fail(ctx, st, s);
		if (sqlite3_step(s) != SQLITE_DONE) {
			error = store__fail(ctx, st, "storing samples");
			sqlite3_reset(s);
			return error;
		}
		sqlite3_reset(s);
	}
	return 0;
}

static const char *store__outcome_name(bg_bench_status status)
{
	switch (status) {
	case BG_BENCH_FAILED:
		return "failed";
	case BG_BENCH_SKIPPED:
		return "skipped";
	default:
		return "ok";
	}
}

static int store__outcomes(bg_ctx *ctx, bg_store *st, int64_t run_id, const bg_results *res)
{
	size_t i, n = bg_results_outcome_count(res);
	sqlite3_stmt *s;
	int error;

	if (!n)
		return 0;
	if ((error = store__stmt(ctx, st, ST_OUTCOME_INSERT, &s)) < 0)
		return error;
	for (i = 0; i < n; i++) {
		const bg_outcome *o = bg_results_outcome(res, i);

		if (sqlite3_bind_int64(s, 1, run_id) != SQLITE_OK ||
		    sqlite3_bind_text(s, 2, o->benchmark, -1, SQLITE_STATIC) != SQLITE_OK ||
		    sqlite3_bind_text(s, 3, store__outcome_name(o->status), -1, SQLITE_STATIC) !=
		            SQLITE_OK ||
		    sqlite3_bind_text(s, 4, o->message, -1, SQLITE_STATIC) != SQLITE_OK)
			return store__bind_fail(ctx, st, s);
		if ((error = store__run(ctx, st, s, "storing outcomes")) < 0)
			return error;
	}
	return 0;
}

int bg_store_run_add(bg_ctx *ctx, bg_store *store, int64_t run_id, const bg_results *res)
{
	size_t i, n = bg_results_series_count(res);
	int error;

	if ((error = store__begin(ctx, store)) < 0)
		return error;
	if ((error = store__check_run(ctx, store, run_id)) < 0)
		goto cleanup;
	for (i = 0; i < n; i++)
		if ((error = store__series_samples(ctx, store, run_id, bg_results_series(res, i))) <
		    0)
			goto cleanup;
	if ((error = store__outcomes(ctx, store, run_id, res)) < 0)
		goto cleanup;
	error = store__commit(ctx, store);

cleanup:
	if (error < 0)
		store__rollback(store);
	return error;
}

int bg_store_run_finish(bg_ctx *ctx, bg_store *store, int64_t run_id)
{
	sqlite3_stmt *s;
	int error;

	if ((error = store__begin(ctx, store)) < 0)
		return error;
	if ((error = store__stmt(ctx, store, ST_RUN_FINISH, &s)) < 0)
		goto cleanup;
	if (sqlite3_bind_int64(s, 1, run_id) != SQLITE_OK ||
	    sqlite3_bind_int64(s, 2, (int64_t)time(NULL)) != SQLITE_OK) {
		error = store__bind_fail(ctx, store, s);
		goto cleanup;
	}
	if ((error = store__run(ctx, store, s, "finishing the run")) < 0)
		goto cleanup;
	if (sqlite3_changes(store->db) == 0) {
		error = bg_error_set(ctx, BG_ENOTFOUND, "no run %lld in the database",
		                     (long long)run_id);
		goto cleanup;
	}
	error = store__commit(ctx, store);

cleanup:
	if (error < 0)
		store__rollback(store);
	return error;
}

int bg_store_run_set_facts(bg_ctx *ctx, bg_store *store, int64_t run_id, const bg_machine *m)
{
	int error;

	if ((error = store__begin(ctx, store)) < 0)
		return error;
	if ((error = store__run_facts(ctx, store, m, run_id)) < 0) {
		store__rollback(store);
		return error;
	}
	return store__commit(ctx, store);
}

/* --------------------------------------------------------------- queries */

int bg_store_run_facts(bg_ctx *ctx, bg_store *store, int64_t run_id, bg_machine **out)
{
	bg_machine *m = NULL;
	sqlite3_stmt *s;
	int error = 0, rc;

	*out = NULL;
	if ((error = store__stmt(ctx, store, ST_RUN_FACTS, &s)) < 0)
		return error;
	if (sqlite3_bind_int64(s, 1, run_id) != SQLITE_OK)
		return store__bind_fail(ctx, store, s);
	if (bg_machine_new(&m) < 0) {
		error = bg_error_oom(ctx);
		goto cleanup;
	}
	while ((rc = sqlite3_step(s)) == SQLITE_ROW) {
		const char *key = (const char *)sqlite3_column_text(s, 0);
		const char *value = (const char *)sqlite3_column_text(s, 1);

		/* A fact the machine API would refuse (none is stored so) is skipped. */
		if (key && value &&
		    (error = bg_machine_set_fact(m, key, value, sqlite3_column_int(s, 2))) ==
		            BG_ENOMEM) {
			error = bg_error_oom(ctx);
			goto cleanup;
		}
		error = 0;
	}
	if (rc != SQLITE_DONE) {
		error = store__fail(ctx, store, "reading a run's machine facts");
		goto cleanup;
	}
	*out = m;
	m = NULL;
cleanup:
	sqlite3_reset(s);
	bg_machine_free(m);
	return error;
}

/* How many series match (benchmark, metric); metric NULL: any metric. */
static int store__series_count(bg_ctx *ctx, bg_store *st, const char *benchmark, const char *metric,
                               int64_t *count)
{
	sqlite3_stmt *s;
	int error, found;

	if ((error = store__stmt(ctx, st, ST_SERIES_COUNT, &s)) < 0)
		return error;
	if (sqlite3_bind_text(s, 1, benchmark, -1, SQLITE_STATIC) != SQLITE_OK ||
	    sqlite3_bind_text(s, 2, metric, -1, SQLITE_STATIC) != SQLITE_OK)
		return store__bind_fail(ctx, st, s);
	return store__int(ctx, st, s, "finding the series", count, &found);
}

static char *store__col_dup(sqlite3_stmt *s, int col)
{
	const unsigned char *t = sqlite3_column_text(s, col);

	return t ? bg_strdup((const char *)t) : NULL;
}

/* Columns i, i+1, i+2: verdict, first verdict, confirmation, by name. */
static int store__verdict_cols(sqlite3_stmt *s, int i, bg_verdict *v, bg_verdict *first,
                               bg_confirm_status *confirm)
{
	const char *c = (const char *)sqlite3_column_text(s, i + 2);
	int k;

	if (bg_verdict_from_name((const char *)sqlite3_column_text(s, i), v) < 0 ||
	    bg_verdict_from_name((const char *)sqlite3_column_text(s, i + 1), first) < 0)
		return BG_EINPUT;
	for (k = 0; k < BG_CONFIRM_COUNT; k++)
		if (c && !strcmp(c, bg_confirm_status_name((bg_confirm_status)k))) {
			*confirm = (bg_confirm_status)k;
			return 0;
		}
	return BG_EINPUT;
}

static int store__history_row(sqlite3_stmt *s, bg_history_row *row)
{
	const unsigned char *sha = sqlite3_column_text(s, 1);
	const unsigned char *dir = sqlite3_column_text(s, 12);

	memset(row, 0, sizeof(*row));
	row->run_id = sqlite3_column_int64(s, 0);
	snprintf(row->sha, sizeof(row->sha), "%s", sha ? (const char *)sha : "");
	row->branch = store__col_dup(s, 2);
	row->dirty = sqlite3_column_int(s, 3);
	row->complete = sqlite3_column_int(s, 4);
	row->started_at = sqlite3_column_int64(s, 5);
	row->author_time = sqlite3_column_int64(s, 6);
	row->subject = store__col_dup(s, 7);
	row->machine = store__col_dup(s, 8);
	row->benchmark = store__col_dup(s, 9);
	row->metric = store__col_dup(s, 10);
	row->unit = store__col_dup(s, 11);
	if (!dir || bg_direction_from_name((const char *)dir, &row->direction) < 0)
		row->direction = BG_DIR_LOWER;
	row->summary.n = (size_t)sqlite3_column_int64(s, 13);
	row->summary.mean = sqlite3_column_double(s, 14);
	row->summary.median = sqlite3_column_double(s, 15);
	row->summary.stddev = sqlite3_column_double(s, 16);
	row->summary.min = sqlite3_column_double(s, 17);
	row->summary.max = sqlite3_column_double(s, 18);
	row->paired = sqlite3_column_int(s, 19);
	row->recorded = sqlite3_column_type(s, 20) != SQLITE_NULL &&
	                store__verdict_cols(s, 20, &row->verdict, &row->first, &row->confirm) == 0;
	if ((sqlite3_column_type(s, 2) != SQLITE_NULL && !row->branch) ||
	    (sqlite3_column_type(s, 7) != SQLITE_NULL && !row->subject) || !row->machine ||
	    !row->benchmark || !row->metric || !row->unit)
		return BG_ENOMEM;
	return 0;
}

int bg_store_history(bg_ctx *ctx, bg_store *store, const char *series, size_t limit,
                     bg_history_row **rows, size_t *nrows)
{
	const char *colon = series ? strrchr(series, ':') : NULL;
	char *benchmark = NULL;
	const char *metric = NULL;
	bg_history_row *out = NULL;
	size_t n = 0, cap = 0;
	sqlite3_stmt *s = NULL;
	int64_t count = 0;
	int error, rc;

	*rows = NULL;
	*nrows = 0;
	if (!series || !*series)
		return bg_error_set(ctx, BG_EINPUT, "no series named");
	if (colon) {
		if (!(benchmark = strndup(series, (size_t)(colon - series))))
			return bg_error_oom(ctx);
		metric = colon + 1;
		if ((error = store__series_count(ctx, store, benchmark, metric, &count)) < 0)
			goto cleanup;
	}
	if (!count) {
		/* No metric given, or none such: the whole name may be a benchmark. */
		free(benchmark);
		metric = NULL;
		if (!(benchmark = bg_strdup(series))) {
			error = bg_error_oom(ctx);
			goto cleanup;
		}
		if ((error = store__series_count(ctx, store, benchmark, NULL, &count)) < 0)
			goto cleanup;
	}
	if (!count) {
		error = bg_error_set(ctx, BG_ENOTFOUND, "no series \"%s\" in the database", series);
		goto cleanup;
	}

	if ((error = store__stmt(ctx, store, ST_HISTORY, &s)) < 0)
		goto cleanup;
	if (sqlite3_bind_text(s, 1, benchmark, -1, SQLITE_STATIC) != SQLITE_OK ||
	    sqlite3_bind_text(s, 2, metric, -1, SQLITE_STATIC) != SQLITE_OK ||
	    sqlite3_bind_int64(s, 3, limit ? (int64_t)limit : -1) != SQLITE_OK) {
		error = store__bind_fail(ctx, store, s);
		s = NULL;
		goto cleanup;
	}
	while ((rc = sqlite3_step(s)) == SQLITE_ROW) {
		if (n == cap) {
			size_t ncap = cap ? cap * 2 : 16;
			bg_history_row *p = realloc(out, ncap * sizeof(*p));

			if (!p) {
				error = bg_error_oom(ctx);
				goto cleanup;
			}
			out = p;
			cap = ncap;
		}
		/* Counted at once, so a half-filled row is freed with the rest. */
		if (store__history_row(s, &out[n++]) < 0) {
			error = bg_error_oom(ctx);
			goto cleanup;
		}
	}
	if (rc != SQLITE_DONE) {
		error = store__fail(ctx, store, "reading the history");
		goto cleanup;
	}
	*rows = out;
	*nrows = n;
	out = NULL;
	n = 0;

cleanup:
	if (s)
		sqlite3_reset(s);
	bg_history_free(out, n);
	free(benchmark);
	return error;
}

void bg_history_free(bg_history_row *rows, size_t nrows)
{
	size_t i;

	if (!rows)
		return;
	for (i = 0; i < nrows; i++) {
		free(rows[i].branch);
		free(rows[i].subject);
		free(rows[i].machine);
		free(rows[i].benchmark);
		free(rows[i].metric);
		free(rows[i].unit);
	}
	free(rows);
}

int bg_store_run_mean(bg_ctx *ctx, bg_store *store, int64_t run_id, const char *benchmark,
                      const char *metric, double *mean)
{
	sqlite3_stmt *s = NULL;
	int error = 0, rc;

	*mean = NAN;
	if ((error = store__stmt(ctx, store, ST_RESULT_FIND, &s)) < 0)
		return error;
	if (sqlite3_bind_int64(s, 1, run_id) != SQLITE_OK ||
	    sqlite3_bind_text(s, 2, benchmark, -1, SQLITE_STATIC) != SQLITE_OK ||
	    sqlite3_bind_text(s, 3, metric, -1, SQLITE_STATIC) != SQLITE_OK)
		return store__bind_fail(ctx, store, s);
	rc = sqlite3_step(s);
	if (rc == SQLITE_ROW && sqlite3_column_type(s, 2) != SQLITE_NULL)
		*mean = sqlite3_column_double(s, 2);
	else if (rc != SQLITE_ROW && rc != SQLITE_DONE)
		error = store__fail(ctx, store, "finding the series");
	sqlite3_reset(s);
	return error;
}

int bg_store_samples(bg_ctx *ctx, bg_store *store, int64_t run_id, const char *benchmark,
                     const char *metric, double **values, size_t *n)
{
	int64_t result_id = 0, expect = 0;
	double *v = NULL;
	size_t len = 0, cap;
	sqlite3_stmt *s = NULL;
	int error = 0, rc;

	*values = NULL;
	*n = 0;
	if ((error = store__stmt(ctx, store, ST_RESULT_FIND, &s)) < 0)
		return error;
	if (sqlite3_bind_int64(s, 1, run_id) != SQLITE_OK ||
	    sqlite3_bind_text(s, 2, benchmark, -1, SQLITE_STATIC) != SQLITE_OK ||
	    sqlite3_bind_text(s, 3, metric, -1, SQLITE_STATIC) != SQLITE_OK)
		return store__bind_fail(ctx, store, s);
	rc = sqlite3_step(s);
	if (rc == SQLITE_ROW) {
		result_id = sqlite3_column_int64(s, 0);
		expect = sqlite3_column_int64(s, 1);
	} else if (rc != SQLITE_DONE) {
		error = store__fail(ctx, store, "finding the series");
	}
	sqlite3_reset(s);
	if (error < 0)
		return error;
	if (rc == SQLITE_DONE)
		return bg_error_set(ctx, BG_ENOTFOUND, "no series \"%s:%s\" in run %lld", benchmark,
		                    metric, (long long)run_id);

	if ((error = store__stmt(ctx, store, ST_SAMPLES, &s)) < 0)
		return error;
	if (sqlite3_bind_int64(s, 1, result_id) != SQLITE_OK)
		return store__bind_fail(ctx, store, s);
	cap = expect > 0 ? (size_t)expect : 16;
	if (!(v = malloc(cap * sizeof(*v)))) {
		error = bg_error_oom(ctx);
		goto cleanup;
	}
	while ((rc = sqlite3_step(s)) == SQLITE_ROW) {
		if (len == cap) {
			double *p = realloc(v, cap * 2 * sizeof(*v));

			if (!p) {
				error = bg_error_oom(ctx);
				goto cleanup;
			}
			v = p;
			cap *= 2;
		}
		v[len++] = sqlite3_column_double(s, 0);
	}
	if (rc != SQLITE_DONE) {
		error = store__fail(ctx, store, "reading samples");
		goto cleanup;
	}
	*values = v;
	*n = len;
	v = NULL;

cleanup:
	sqlite3_reset(s);
	free(v);
	return error;
}

/* ------------------------------------------------------------ run queries */

static void store__copy_sha(char *dst, size_t n, sqlite3_stmt *s, int col)
{
	const unsigned char *t = sqlite3_column_text(s, col);

	snprintf(dst, n, "%s", t ? (const char *)t : "");
}

/* A row of ST_RUN_GET's columns; BG_ENOMEM leaves what was copied to clear. */
static int store__run_row(sqlite3_stmt *s, bg_run_row *out)
{
	memset(out, 0, sizeof(*out));
	out->id = sqlite3_column_int64(s, 0);
	store__copy_sha(out->sha, sizeof(out->sha), s, 1);
	store__copy_sha(out->uid, sizeof(out->uid), s, 2);
	out->branch = store__col_dup(s, 3);
	out->machine = store__col_dup(s, 4);
	out->source = store__col_dup(s, 5);
	out->dirty = sqlite3_column_int(s, 6);
	out->complete = sqlite3_column_int(s, 7);
	out->started_at = sqlite3_column_int64(s, 8);
	out->author_time = sqlite3_column_int64(s, 9);
	out->author = store__col_dup(s, 10);
	out->subject = store__col_dup(s, 11);
	return out->machine && out->source ? 0 : BG_ENOMEM;
}

int bg_store_run_get(bg_ctx *ctx, bg_store *store, int64_t run_id, bg_run_row *out)
{
	sqlite3_stmt *s;
	int error = 0, rc;

	memset(out, 0, sizeof(*out));
	if ((error = store__stmt(ctx, store, ST_RUN_GET, &s)) < 0)
		return error;
	if (sqlite3_bind_int64(s, 1, run_id) != SQLITE_OK)
		return store__bind_fail(ctx, store, s);
	rc = sqlite3_step(s);
	if (rc == SQLITE_ROW) {
		if (store__run_row(s, out) < 0)
			error = bg_error_oom(ctx);
	} else if (rc == SQLITE_DONE) {
		error = bg_error_set(ctx, BG_ENOTFOUND, "no run %lld in the database",
		                     (long long)run_id);
	} else {
		error = store__fail(ctx, store, "reading a run");
	}
	sqlite3_reset(s);
	if (error < 0)
		bg_run_row_clear(out);
	return error;
}

void bg_run_row_clear(bg_run_row *row)
{
	if (!row)
		return;
	free(row->branch);
	free(row->machine);
	free(row->source);
	free(row->author);
	free(row->subject);
	memset(row, 0, sizeof(*row));
}

int bg_store_run_by_uid(bg_ctx *ctx, bg_store *store, const char *uid, int64_t *run_id)
{
	sqlite3_stmt *s;
	int error, found;

	*run_id = 0;
	if ((error = store__stmt(ctx, store, ST_RUN_BY_UID, &s)) < 0)
		return error;
	if (sqlite3_bind_text(s, 1, uid, -1, SQLITE_STATIC) != SQLITE_OK)
		return store__bind_fail(ctx, store, s);
	return store__int(ctx, store, s, "finding a run", run_id, &found);
}

int bg_store_latest_run(bg_ctx *ctx, bg_store *store, const char *machine, int64_t *run_id)
{
	sqlite3_stmt *s;
	int error, found = 0;

	*run_id = 0;
	if ((error = store__stmt(ctx, store, ST_RUN_LATEST, &s)) < 0)
		return error;
	if (sqlite3_bind_text(s, 1, machine, -1, SQLITE_STATIC) != SQLITE_OK)
		return store__bind_fail(ctx, store, s);
	if ((error = store__int(ctx, store, s, "finding the latest run", run_id, &found)) < 0)
		return error;
	if (!found)
		return bg_error_set(ctx, BG_ENOTFOUND, "no complete run%s%s in the database yet",
		                    machine ? " on machine " : "", machine ? machine : "");
	return 0;
}

int bg_store_runs_at(bg_ctx *ctx, bg_store *store, const char *sha, const char *machine, int dirty,
                     int64_t **run_ids, size_t *n)
{
	return bg_store_runs_tagged(ctx, store, sha, machine, dirty, NULL, run_ids, n);
}

int bg_store_runs_tagged(bg_ctx *ctx, bg_store *store, const char *sha, const char *machine,
                         int dirty, const char *tag, int64_t **run_ids, size_t *n)
{
	int64_t *ids = NULL;
	size_t len = 0, cap = 0;
	sqlite3_stmt *s;
	int error = 0, rc;

	*run_ids = NULL;
	*n = 0;
	if ((error = store__stmt(ctx, store, ST_RUNS_AT, &s)) < 0)
		return error;
	if (sqlite3_bind_text(s, 1, sha, -1, SQLITE_STATIC) != SQLITE_OK ||
	    sqlite3_bind_text(s, 2, machine, -1, SQLITE_STATIC) != SQLITE_OK ||
	    sqlite3_bind_int(s, 3, dirty) != SQLITE_OK ||
	    (tag ? sqlite3_bind_text(s, 4, tag, -1, SQLITE_STATIC) : sqlite3_bind_null(s, 4)) !=
	            SQLITE_OK)
		return store__bind_fail(ctx, store, s);
	while ((rc = sqlite3_step(s)) == SQLITE_ROW) {
		if (bg_grow((void **)&ids, &cap, len, sizeof(*ids)) < 0) {
			error = bg_error_oom(ctx);
			goto cleanup;
		}
		ids[len++] = sqlite3_column_int64(s, 0);
	}
	if (rc != SQLITE_DONE) {
		error = store__fail(ctx, store, "finding the runs of a commit");
		goto cleanup;
	}
	*run_ids = ids;
	*n = len;
	ids = NULL;
cleanup:
	sqlite3_reset(s);
	free(ids);
	return error;
}

int bg_store_baseline_runs(bg_ctx *ctx, bg_store *store, const char *machine, bg_run_ref **refs,
                           size_t *n)
{
	bg_run_ref *r = NULL;
	size_t len = 0, cap = 0;
	sqlite3_stmt *s;
	int error = 0, rc;

	*refs = NULL;
	*n = 0;
	if ((error = store__stmt(ctx, store, ST_BASELINE_RUNS, &s)) < 0)
		return error;
	if (sqlite3_bind_text(s, 1, machine, -1, SQLITE_STATIC) != SQLITE_OK)
		return store__bind_fail(ctx, store, s);
	while ((rc = sqlite3_step(s)) == SQLITE_ROW) {
		if (bg_grow((void **)&r, &cap, len, sizeof(*r)) < 0) {
			error = bg_error_oom(ctx);
			goto cleanup;
		}
		r[len].id = sqlite3_column_int64(s, 0);
		store__copy_sha(r[len].sha, sizeof(r[len].sha), s, 1);
		r[len].author_time = sqlite3_column_int64(s, 2);
		len++;
	}
	if (rc != SQLITE_DONE) {
		error = store__fail(ctx, store, "listing baseline runs");
		goto cleanup;
	}
	*refs = r;
	*n = len;
	r = NULL;
cleanup:
	sqlite3_reset(s);
	free(r);
	return error;
}

/* A run summary from columns n, mean, median, stddev, min, max, robust
 * mean and outliers, starting at `col`. */
static void store__summary(sqlite3_stmt *s, int col, bg_summary *out)
{
	out->n = (size_t)sqlite3_column_int64(s, col);
	out->mean = sqlite3_column_double(s, col + 1);
	out->median = sqlite3_column_double(s, col + 2);
	out->stddev = sqlite3_column_double(s, col + 3);
	out->min = sqlite3_column_double(s, col + 4);
	out->max = sqlite3_column_double(s, col + 5);
	out->robust_mean = sqlite3_column_double(s, col + 6);
	out->outliers = (size_t)sqlite3_column_int64(s, col + 7);
}

int bg_store_run_series(bg_ctx *ctx, bg_store *store, int64_t run_id, bg_run_series **rows,
                        size_t *n)
{
	bg_run_series *r = NULL;
	size_t len = 0, cap = 0;
	sqlite3_stmt *s;
	int error = 0, rc;

	*rows = NULL;
	*n = 0;
	if ((error = store__stmt(ctx, store, ST_RUN_SERIES, &s)) < 0)
		return error;
	if (sqlite3_bind_int64(s, 1, run_id) != SQLITE_OK)
		return store__bind_fail(ctx, store, s);
	while ((rc = sqlite3_step(s)) == SQLITE_ROW) {
		const unsigned char *dir = sqlite3_column_text(s, 4);
		bg_run_series *x;

		if (bg_grow((void **)&r, &cap, len, sizeof(*r)) < 0) {
			error = bg_error_oom(ctx);
			goto cleanup;
		}
		x = &r[len++];
		memset(x, 0, sizeof(*x));
		x->series_id = sqlite3_column_int64(s, 0);
		x->benchmark = store__col_dup(s, 1);
		x->metric = store__col_dup(s, 2);
		x->unit = store__col_dup(s, 3);
		if (!dir || bg_direction_from_name((const char *)dir, &x->direction) < 0)
			x->direction = BG_DIR_LOWER;
		store__summary(s, 5, &x->summary);
		x->instrument = store__col_dup(s, 13);
		if (!x->benchmark || !x->metric || !x->unit ||
		    (!x->instrument && sqlite3_column_type(s, 13) != SQLITE_NULL)) {
			error = bg_error_oom(ctx);
			goto cleanup;
		}
	}
	if (rc != SQLITE_DONE) {
		error = store__fail(ctx, store, "reading a run's series");
		goto cleanup;
	}
	*rows = r;
	*n = len;
	r = NULL;
	len = 0;
cleanup:
	sqlite3_reset(s);
	bg_run_series_free(r, len);
	return error;
}

void bg_run_series_free(bg_run_series *rows, size_t n)
{
	size_t i;

	if (!rows)
		return;
	for (i = 0; i < n; i++) {
		free(rows[i].benchmark);
		free(rows[i].metric);
		free(rows[i].unit);
		free(rows[i].instrument);
	}
	free(rows);
}

int bg_store_run_means(bg_ctx *ctx, bg_store *store, int64_t run_id, int64_t **series_ids,
                       double **means, char ***instruments, size_t *n)
{
	int64_t *ids = NULL;
	double *m = NULL;
	char **inst = NULL;
	size_t len = 0, cap = 0, mcap = 0, icap = 0;
	sqlite3_stmt *s;
	int error = 0, rc;

	*series_ids = NULL;
	*means = NULL;
	if (instruments)
		*instruments = NULL;
	*n = 0;
	if ((error = store__stmt(ctx, store, ST_RUN_MEANS, &s)) < 0)
		return error;
	if (sqlite3_bind_int64(s, 1, run_id) != SQLITE_OK)
		return store__bind_fail(ctx, store, s);
	while ((rc = sqlite3_step(s)) == SQLITE_ROW) {
		if (bg_grow((void **)&ids, &cap, len, sizeof(*ids)) < 0 ||
		    bg_grow((void **)&m, &mcap, len, sizeof(*m)) < 0 ||
		    (instruments && bg_grow((void **)&inst, &icap, len, sizeof(*inst)) < 0)) {
			error = bg_error_oom(ctx);
			goto cleanup;
		}
		ids[len] = sqlite3_column_int64(s, 0);
		m[len] = sqlite3_column_double(s, 1);
		if (instruments) {
			inst[len] = store__col_dup(s, 2);
			if (!inst[len] && sqlite3_column_type(s, 2) != SQLITE_NULL) {
				error = bg_error_oom(ctx);
				goto cleanup;
			}
		}
		len++;
	}
	if (rc != SQLITE_DONE) {
		error = store__fail(ctx, store, "reading run means");
		goto cleanup;
	}
	*series_ids = ids;
	*means = m;
	if (instruments)
		*instruments = inst;
	*n = len;
	ids = NULL;
	m = NULL;
	inst = NULL;
cleanup:
	sqlite3_reset(s);
	free(ids);
	free(m);
	bg_strings_free(inst, len);
	return error;
}

int bg_store_run_outcomes(bg_ctx *ctx, bg_store *store, int64_t run_id, bg_outcome **out, size_t *n)
{
	bg_outcome *o = NULL;
	size_t len = 0, cap = 0;
	sqlite3_stmt *s;
	int error = 0, rc;

	*out = NULL;
	*n = 0;
	if ((error = store__stmt(ctx, store, ST_RUN_OUTCOMES, &s)) < 0)
		return error;
	if (sqlite3_bind_int64(s, 1, run_id) != SQLITE_OK)
		return store__bind_fail(ctx, store, s);
	while ((rc = sqlite3_step(s)) == SQLITE_ROW) {
		const unsigned char *status = sqlite3_column_text(s, 1);

		if (bg_grow((void **)&o, &cap, len, sizeof(*o)) < 0) {
			error = bg_error_oom(ctx);
			goto cleanup;
		}
		o[len].benchmark = store__col_dup(s, 0);
		o[len].message = store__col_dup(s, 2);
		o[len].status = status && !strcmp((const char *)status, "skipped")
		                        ? BG_BENCH_SKIPPED
		                        : BG_BENCH_FAILED;
		if (!o[len++].benchmark) {
			error = bg_error_oom(ctx);
			goto cleanup;
		}
	}
	if (rc != SQLITE_DONE) {
		error = store__fail(ctx, store, "reading a run's outcomes");
		goto cleanup;
	}
	*out = o;
	*n = len;
	o = NULL;
	len = 0;
cleanup:
	sqlite3_reset(s);
	bg_outcomes_free(o, len);
	return error;
}

void bg_outcomes_free(bg_outcome *o, size_t n)
{
	size_t i;

	if (!o)
		return;
	for (i = 0; i < n; i++) {
		free(o[i].benchmark);
		free(o[i].message);
	}
	free(o);
}

int bg_store_run_tags(bg_ctx *ctx, bg_store *store, int64_t run_id, char ***tags)
{
	char **v = NULL;
	size_t len = 0, cap = 0;
	sqlite3_stmt *s;
	int error = 0, rc;

	*tags = NULL;
	if ((error = store__stmt(ctx, store, ST_RUN_TAGS, &s)) < 0)
		return error;
	if (sqlite3_bind_int64(s, 1, run_id) != SQLITE_OK)
		return store__bind_fail(ctx, store, s);
	for (;;) {
		if (bg_grow((void **)&v, &cap, len + 1, sizeof(*v)) < 0) {
			error = bg_error_oom(ctx);
			goto cleanup;
		}
		v[len] = NULL;
		if ((rc = sqlite3_step(s)) != SQLITE_ROW)
			break;
		if (!(v[len++] = store__col_dup(s, 0))) {
			error = bg_error_oom(ctx);
			goto cleanup;
		}
	}
	if (rc != SQLITE_DONE) {
		error = store__fail(ctx, store, "reading a run's tags");
		goto cleanup;
	}
	*tags = v;
	v = NULL;
cleanup:
	sqlite3_reset(s);
	bg_strv_free(v);
	return error;
}

void bg_strv_free(char **v)
{
	char **p;

	if (!v)
		return;
	for (p = v; *p; p++)
		free(*p);
	free(v);
}

/* ------------------------------------------------------------------ builds */

/* Binds the (sha, machine, command hash) key as ?1..?3. */
static int store__bind_build_key(sqlite3_stmt *s, const char *sha, const char *machine,
                                 const char *command_hash)
{
	return sqlite3_bind_text(s, 1, sha, -1, SQLITE_STATIC) != SQLITE_OK ||
	       sqlite3_bind_text(s, 2, machine, -1, SQLITE_STATIC) != SQLITE_OK ||
	       sqlite3_bind_text(s, 3, command_hash, -1, SQLITE_STATIC) != SQLITE_OK;
}

int bg_store_build_get(bg_ctx *ctx, bg_store *store, const char *sha, const char *machine,
                       const char *command_hash, bg_build_row *out)
{
	sqlite3_stmt *s;
	int error, rc;

	memset(out, 0, sizeof(*out));
	if (!sha || !machine || !command_hash)
		return bg_error_set(ctx, BG_EINPUT,
		                    "a build is keyed by commit, machine and command");
	if ((error = store__stmt(ctx, store, ST_BUILD_GET, &s)) < 0)
		return error;
	if (store__bind_build_key(s, sha, machine, command_hash))
		return store__bind_fail(ctx, store, s);
	rc = sqlite3_step(s);
	if (rc == SQLITE_ROW) {
		out->found = 1;
		out->ok = sqlite3_column_int(s, 0);
		out->seconds = sqlite3_column_double(s, 2);
		out->finished_at = sqlite3_column_int64(s, 3);
		if (sqlite3_column_type(s, 1) != SQLITE_NULL &&
		    !(out->log_tail = store__col_dup(s, 1)))
			error = bg_error_oom(ctx);
	} else if (rc != SQLITE_DONE) {
		error = store__fail(ctx, store, "reading a build");
	}
	sqlite3_reset(s);
	if (error < 0)
		bg_build_row_clear(out);
	return error;
}

int bg_store_build_put(bg_ctx *ctx, bg_store *store, const char *sha, const char *machine,
                       const char *command_hash, int ok, const char *log_tail, double seconds)
{
	sqlite3_stmt *s;
	int error;

	if (!sha || !machine || !command_hash)
		return bg_error_set(ctx, BG_EINPUT,
		                    "a build is keyed by commit, machine and command");
	if ((error = store__stmt(ctx, store, ST_BUILD_PUT, &s)) < 0)
		return error;
	if (store__bind_build_key(s, sha, machine, command_hash) ||
	    sqlite3_bind_int(s, 4, ok ? 1 : 0) != SQLITE_OK ||
	    sqlite3_bind_text(s, 5, log_tail, -1, SQLITE_STATIC) != SQLITE_OK ||
	    sqlite3_bind_double(s, 6, seconds) != SQLITE_OK ||
	    sqlite3_bind_int64(s, 7, (int64_t)time(NULL)) != SQLITE_OK)
		return store__bind_fail(ctx, store, s);
	/* One statement: its own transaction, queued behind other writers by
	 * the busy timeout. */
	return store__run(ctx, store, s, "recording a build");
}

void bg_build_row_clear(bg_build_row *row)
{
	if (!row)
		return;
	free(row->log_tail);
	memset(row, 0, sizeof(*row));
}

/* ------------------------------------------------------------------ outbox */

int bg_store_outbox_add(bg_ctx *ctx, bg_store *store, const bg_outbox_row *row, int64_t *id)
{
	sqlite3_stmt *s;
	int error;

	*id = 0;
	if (!row->uid[0] || !row->kind || !row->target || !row->label || !row->mode || !row->body)
		return bg_error_set(ctx, BG_EINPUT, "an outbox entry needs its target and body");
	if ((error = store__stmt(ctx, store, ST_OUTBOX_ADD, &s)) < 0)
		return error;
	if (sqlite3_bind_text(s, 1, row->uid, -1, SQLITE_STATIC) != SQLITE_OK ||
	    sqlite3_bind_text(s, 2, row->kind, -1, SQLITE_STATIC) != SQLITE_OK ||
	    sqlite3_bind_text(s, 3, row->target, -1, SQLITE_STATIC) != SQLITE_OK ||
	    sqlite3_bind_text(s, 4, row->label, -1, SQLITE_STATIC) != SQLITE_OK ||
	    sqlite3_bind_text(s, 5, row->pr, -1, SQLITE_STATIC) != SQLITE_OK ||
	    sqlite3_bind_text(s, 6, row->mode, -1, SQLITE_STATIC) != SQLITE_OK ||
	    sqlite3_bind_text(s, 7, row->body, -1, SQLITE_STATIC) != SQLITE_OK ||
	    (row->run_id > 0 ? sqlite3_bind_int64(s, 8, row->run_id) : sqlite3_bind_null(s, 8)) !=
	            SQLITE_OK ||
	    sqlite3_bind_int64(s, 9, row->created_at ? row->created_at : (int64_t)time(NULL)) !=
	            SQLITE_OK)
		return store__bind_fail(ctx, store, s);
	/* One statement: committed (durably, before anything is sent) on its own. */
	if ((error = store__run(ctx, store, s, "storing an alert")) < 0)
		return error;
	*id = sqlite3_last_insert_rowid(store->db);
	return 0;
}

static int store__outbox_row(sqlite3_stmt *s, bg_outbox_row *r)
{
	const unsigned char *uid = sqlite3_column_text(s, 1);

	memset(r, 0, sizeof(*r));
	r->id = sqlite3_column_int64(s, 0);
	snprintf(r->uid, sizeof(r->uid), "%s", uid ? (const char *)uid : "");
	r->kind = store__col_dup(s, 2);
	r->target = store__col_dup(s, 3);
	r->label = store__col_dup(s, 4);
	r->pr = store__col_dup(s, 5);
	r->mode = store__col_dup(s, 6);
	r->body = store__col_dup(s, 7);
	r->run_id = sqlite3_column_int64(s, 8);
	r->state = store__col_dup(s, 9);
	r->created_at = sqlite3_column_int64(s, 10);
	r->attempts = sqlite3_column_int(s, 11);
	r->last_status = sqlite3_column_int(s, 12);
	r->last_error = store__col_dup(s, 13);
	r->delivered_at = sqlite3_column_int64(s, 14);
	if (!r->kind || !r->target || !r->label || !r->mode || !r->body || !r->state ||
	    (sqlite3_column_type(s, 5) != SQLITE_NULL && !r->pr) ||
	    (sqlite3_column_type(s, 13) != SQLITE_NULL && !r->last_error))
		return BG_ENOMEM;
	return 0;
}

int bg_store_outbox_list(bg_ctx *ctx, bg_store *store, const char *state, bg_outbox_row **rows,
                         size_t *n)
{
	bg_outbox_row *v = NULL;
	size_t len = 0, cap = 0;
	sqlite3_stmt *s;
	int error = 0, rc;

	*rows = NULL;
	*n = 0;
	if ((error = store__stmt(ctx, store, ST_OUTBOX_LIST, &s)) < 0)
		return error;
	if (sqlite3_bind_text(s, 1, state, -1, SQLITE_STATIC) != SQLITE_OK)
		return store__bind_fail(ctx, store, s);
	while ((rc = sqlite3_step(s)) == SQLITE_ROW) {
		if (bg_grow((void **)&v, &cap, len + 1, sizeof(*v)) < 0) {
			error = bg_error_oom(ctx);
			goto cleanup;
		}
		if (store__outbox_row(s, &v[len++]) < 0) {
			error = bg_error_oom(ctx);
			goto cleanup;
		}
	}
	if (rc != SQLITE_DONE) {
		error = store__fail(ctx, store, "reading the alert outbox");
		goto cleanup;
	}
	*rows = v;
	*n = len;
	v = NULL;
	len = 0;
cleanup:
	sqlite3_reset(s);
	bg_outbox_rows_free(v, len);
	return error;
}

void bg_outbox_row_clear(bg_outbox_row *r)
{
	if (!r)
		return;
	free(r->kind);
	free(r->target);
	free(r->label);
	free(r->pr);
	free(r->mode);
	free(r->body);
	free(r->state);
	free(r->last_error);
	memset(r, 0, sizeof(*r));
}

void bg_outbox_rows_free(bg_outbox_row *rows, size_t n)
{
	size_t i;

	if (!rows)
		return;
	for (i = 0; i < n; i++)
		bg_outbox_row_clear(&rows[i]);
	free(rows);
}

int bg_store_outbox_claim(bg_ctx *ctx, bg_store *store, int64_t id, int64_t until, int *claimed)
{
	sqlite3_stmt *s;
	int error;

	*claimed = 0;
	if ((error = store__stmt(ctx, store, ST_OUTBOX_CLAIM, &s)) < 0)
		return error;
	if (sqlite3_bind_int64(s, 1, id) != SQLITE_OK ||
	    sqlite3_bind_int64(s, 2, until) != SQLITE_OK ||
	    sqlite3_bind_int64(s, 3, (int64_t)time(NULL)) != SQLITE_OK)
		return store__bind_fail(ctx, store, s);
	/* The test and the claim are one UPDATE: of two processes, one wins. */
	if ((error = store__run(ctx, store, s, "claiming an alert")) < 0)
		return error;
	*claimed = sqlite3_changes(store->db) == 1;
	return 0;
}

int bg_store_outbox_settle(bg_ctx *ctx, bg_store *store, int64_t id, const char *state,
                           int attempts, int last_status, const char *last_error)
{
	sqlite3_stmt *s;
	int error;

	if (strcmp(state, "pending") && strcmp(state, "delivered") && strcmp(state, "failed") &&
	    strcmp(state, "superseded"))
		return bg_error_set(ctx, BG_EINPUT, "unknown outbox state \"%s\"", state);
	if ((error = store__stmt(ctx, store, ST_OUTBOX_SETTLE, &s)) < 0)
		return error;
	if (sqlite3_bind_int64(s, 1, id) != SQLITE_OK ||
	    sqlite3_bind_text(s, 2, state, -1, SQLITE_STATIC) != SQLITE_OK ||
	    sqlite3_bind_int(s, 3, attempts) != SQLITE_OK ||
	    (last_status > 0 ? sqlite3_bind_int(s, 4, last_status) : sqlite3_bind_null(s, 4)) !=
	            SQLITE_OK ||
	    sqlite3_bind_text(s, 5, last_error, -1, SQLITE_STATIC) != SQLITE_OK ||
	    sqlite3_bind_int64(s, 6, (int64_t)time(NULL)) != SQLITE_OK)
		return store__bind_fail(ctx, store, s);
	return store__run(ctx, store, s, "recording an alert's delivery");
}

int bg_store_outbox_prune(bg_ctx *ctx, bg_store *store, int64_t before)
{
	sqlite3_stmt *s;
	int error;

	if ((error = store__stmt(ctx, store, ST_OUTBOX_PRUNE, &s)) < 0)
		return error;
	if (sqlite3_bind_int64(s, 1, before) != SQLITE_OK)
		return store__bind_fail(ctx, store, s);
	return store__run(ctx, store, s, "pruning the alert outbox");
}

/* ------------------------------------------------------------------ reports */

static int store__bind_period(bg_ctx *ctx, bg_store *st, sqlite3_stmt *s, const bg_period *p)
{
	if (sqlite3_bind_int64(s, 1, p->since) != SQLITE_OK ||
	    sqlite3_bind_text(s, 2, p->machine, -1, SQLITE_STATIC) != SQLITE_OK ||
	    sqlite3_bind_int(s, 3, p->include_paired != 0) != SQLITE_OK)
		return store__bind_fail(ctx, st, s);
	return 0;
}

int bg_store_runs_since(bg_ctx *ctx, bg_store *store, const bg_period *period, bg_run_row **rows,
                        size_t *n)
{
	bg_run_row *r = NULL;
	size_t len = 0, cap = 0;
	sqlite3_stmt *s;
	int error = 0, rc;

	*rows = NULL;
	*n = 0;
	if ((error = store__stmt(ctx, store, ST_RUNS_SINCE, &s)) < 0 ||
	    (error = store__bind_period(ctx, store, s, period)) < 0)
		return error;
	while ((rc = sqlite3_step(s)) == SQLITE_ROW) {
		if (bg_grow((void **)&r, &cap, len, sizeof(*r)) < 0) {
			error = bg_error_oom(ctx);
			goto cleanup;
		}
		/* Counted at once, so a half-filled row is freed with the rest. */
		if (store__run_row(s, &r[len++]) < 0) {
			error = bg_error_oom(ctx);
			goto cleanup;
		}
	}
	if (rc != SQLITE_DONE) {
		error = store__fail(ctx, store, "listing the runs of the period");
		goto cleanup;
	}
	*rows = r;
	*n = len;
	r = NULL;
	len = 0;
cleanup:
	sqlite3_reset(s);
	bg_run_rows_free(r, len);
	return error;
}

void bg_run_rows_free(bg_run_row *rows, size_t n)
{
	size_t i;

	if (!rows)
		return;
	for (i = 0; i < n; i++)
		bg_run_row_clear(&rows[i]);
	free(rows);
}

int bg_store_each_result(bg_ctx *ctx, bg_store *store, const bg_period *period, bg_result_cb cb,
                         void *data)
{
	sqlite3_stmt *s, *ser = NULL;
	bg_result_row row;
	int error = 0, rc;

	memset(&row, 0, sizeof(row));
	if ((error = store__stmt(ctx, store, ST_RESULTS_SINCE, &s)) < 0 ||
	    (error = store__bind_period(ctx, store, s, period)) < 0)
		return error;
	if ((error = store__stmt(ctx, store, ST_SERIES_BY_ID, &ser)) < 0)
		goto cleanup;
	while ((rc = sqlite3_step(s)) == SQLITE_ROW) {
		int64_t series_id = sqlite3_column_int64(s, 1);

		/* A new series: its names, valid until `ser` is stepped again. */
		if (!row.benchmark || series_id != row.series_id) {
			const unsigned char *dir;

			sqlite3_reset(ser);
			if (sqlite3_bind_int64(ser, 1, series_id) != SQLITE_OK) {
				error = store__bind_fail(ctx, store, ser);
				goto cleanup;
			}
			if (sqlite3_step(ser) != SQLITE_ROW) {
				error = store__fail(ctx, store, "reading a series of the period");
				goto cleanup;
			}
			row.series_id = series_id;
			row.benchmark = (const char *)sqlite3_column_text(ser, 0);
			row.metric = (const char *)sqlite3_column_text(ser, 1);
			row.unit = (const char *)sqlite3_column_text(ser, 2);
			dir = sqlite3_column_text(ser, 3);
			if (!dir || bg_direction_from_name((const char *)dir, &row.direction) < 0)
				row.direction = BG_DIR_LOWER;
			if (!row.benchmark || !row.metric || !row.unit) {
				error = bg_error_oom(ctx);
				goto cleanup;
			}
		}
		row.run_id = sqlite3_column_int64(s, 0);
		store__summary(s, 2, &row.summary);
		row.instrument = (const char *)sqlite3_column_text(s, 10);
		if ((error = cb(&row, data)) < 0)
			goto cleanup;
	}
	if (rc != SQLITE_DONE)
		error = store__fail(ctx, store, "reading the results of the period");
cleanup:
	if (ser)
		sqlite3_reset(ser);
	sqlite3_reset(s);
	return error;
}

int bg_store_check_record(bg_ctx *ctx, bg_store *store, const bg_check_record *rec,
                          int64_t *check_id)
{
	sqlite3_stmt *s;
	int64_t id = 0;
	size_t i;
	int error;

	if (check_id)
		*check_id = 0;
	if (!rec || !rec->json || !rec->source)
		return bg_error_set(ctx, BG_EINPUT, "a recorded check needs its JSON and source");
	if ((error = store__begin(ctx, store)) < 0)
		return error;
	if ((error = store__stmt(ctx, store, ST_CHECK_INSERT, &s)) < 0)
		goto cleanup;
	if (sqlite3_bind_int64(s, 1, rec->run_id) != SQLITE_OK ||
	    sqlite3_bind_text(s, 2, rec->source, -1, SQLITE_STATIC) != SQLITE_OK ||
	    sqlite3_bind_int64(s, 3, (int64_t)time(NULL)) != SQLITE_OK ||
	    sqlite3_bind_int64(s, 4, (int64_t)rec->pairs) != SQLITE_OK ||
	    sqlite3_bind_double(s, 5, rec->seconds) != SQLITE_OK ||
	    sqlite3_bind_text(s, 6, rec->json, -1, SQLITE_STATIC) != SQLITE_OK) {
		error = store__bind_fail(ctx, store, s);
		goto cleanup;
	}
	if ((error = store__run(ctx, store, s, "recording the verdict")) < 0)
		goto cleanup;
	id = sqlite3_last_insert_rowid(store->db);
	for (i = 0; i < rec->nrows; i++) {
		const bg_verdict_record *v = &rec->rows[i];

		if ((error = store__stmt(ctx, store, ST_VERDICT_INSERT, &s)) < 0)
			goto cleanup;
		if (sqlite3_bind_int64(s, 1, id) != SQLITE_OK ||
		    sqlite3_bind_text(s, 2, v->series, -1, SQLITE_STATIC) != SQLITE_OK ||
		    sqlite3_bind_text(s, 3, v->benchmark, -1, SQLITE_STATIC) != SQLITE_OK ||
		    sqlite3_bind_text(s, 4, v->metric, -1, SQLITE_STATIC) != SQLITE_OK ||
		    sqlite3_bind_text(s, 5, bg_verdict_name(v->verdict), -1, SQLITE_STATIC) !=
		            SQLITE_OK ||
		    sqlite3_bind_text(s, 6, bg_verdict_name(v->first), -1, SQLITE_STATIC) !=
		            SQLITE_OK ||
		    sqlite3_bind_text(s, 7, bg_confirm_status_name(v->confirm), -1,
		                      SQLITE_STATIC) != SQLITE_OK) {
			error = store__bind_fail(ctx, store, s);
			goto cleanup;
		}
		if ((error = store__run(ctx, store, s, "recording the verdict")) < 0)
			goto cleanup;
	}
	error = store__commit(ctx, store);
cleanup:
	if (error < 0)
		store__rollback(store);
	else if (check_id)
		*check_id = id;
	return error;
}

int bg_store_each_recorded(bg_ctx *ctx, bg_store *store, const bg_period *period, bg_recorded_cb cb,
                           void *data)
{
	sqlite3_stmt *s;
	bg_recorded_row row;
	int error = 0, rc;

	if ((error = store__stmt(ctx, store, ST_RECORDED_SINCE, &s)) < 0 ||
	    (error = store__bind_period(ctx, store, s, period)) < 0)
		return error;
	while ((rc = sqlite3_step(s)) == SQLITE_ROW) {
		memset(&row, 0, sizeof(row));
		row.check_id = sqlite3_column_int64(s, 0);
		row.run_id = sqlite3_column_int64(s, 1);
		row.series = (const char *)sqlite3_column_text(s, 2);
		if (!row.series) {
			error = bg_error_oom(ctx);
			goto cleanup;
		}
		/* A name this version does not know (a later one wrote it): skipped. */
		if (store__verdict_cols(s, 3, &row.verdict, &row.first, &row.confirm) < 0)
			continue;
		if ((error = cb(&row, data)) < 0)
			goto cleanup;
	}
	if (rc != SQLITE_DONE)
		error = store__fail(ctx, store, "reading the recorded verdicts");
cleanup:
	sqlite3_reset(s);
	return error;
}

int bg_store_recorded_json(bg_ctx *ctx, bg_store *store, int64_t run_id, char **json)
{
	sqlite3_stmt *s;
	int error = 0, rc;

	*json = NULL;
	if ((error = store__stmt(ctx, store, ST_RECORDED_JSON, &s)) < 0)
		return error;
	if (sqlite3_bind_int64(s, 1, run_id) != SQLITE_OK)
		return store__bind_fail(ctx, store, s);
	rc = sqlite3_step(s);
	if (rc == SQLITE_ROW) {
		if (!(*json = store__col_dup(s, 0)))
			error = bg_error_oom(ctx);
	} else if (rc != SQLITE_DONE) {
		error = store__fail(ctx, store, "reading the recorded verdict");
	}
	sqlite3_reset(s);
	return error;
}
