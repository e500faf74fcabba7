/*
 * store.c -- the results store: its schema, its SQL and every operation on
 * it, over either backend (lib/db.h: SQLite, the embedded default, or
 * PostgreSQL for a fleet of runners).
 *
 * Every sample is kept raw, keyed by run; a run belongs to one commit and one
 * machine fingerprint.  The schema grows by appending steps to `migrations`
 * (the backend counts the steps applied), each applied inside one write
 * transaction, which excludes every other writer of the database.  A run is
 * committed as 'incomplete' before any sample is stored, so a process
 * killed half-way leaves an intact database and a run that is visibly
 * unfinished (never part of a baseline).
 *
 * The SQL is what both backends read alike: upserts with ON CONFLICT, new
 * ids from RETURNING, CASTs where PostgreSQL cannot infer a parameter's
 * type, and run uids made here rather than by a database function.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "db.h"
#include "machine.h"
#include "internal.h"

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
	/* 8: PostgreSQL keeps a result's samples in one array (migrations_pg
	 * below); SQLite's table, stored in key order without a separate
	 * index, stays as it is. */
	"",
	/* 9: which runs form a pair (bg_store_pair_record): both runs of a
	 * pair made back to back name the pair by the uid of its reference
	 * run, once both are complete.  A run whose partner was interrupted
	 * names none, and no later pair takes it; runs stored before this
	 * step name none either, and are reused by no one. */
	"ALTER TABLE runs ADD COLUMN pair_ref TEXT;"
	"CREATE INDEX runs_pair_ref ON runs(pair_ref);",
	/* 10: what measured each benchmark of a run (bg_config__definition):
	 * a stored pair is reused only while the benchmark is defined as it
	 * was.  Older rows have none, and their pairs are measured again. */
	"ALTER TABLE outcomes ADD COLUMN definition TEXT;",
	/* 11: runs newest first (bg_store_history): `history --limit 1` read
	 * and sorted every result of the series to find the newest. */
	"CREATE INDEX runs_started ON runs(started_at, id);",
	/* 12: the robust mean (step 3) of every result stored before it, from
	 * its samples (store__fill_robust, in C: no SQL computes it).  Those
	 * fell back to their plain mean, far-out samples and all, beside
	 * newer runs and imported ones summarised without them: one baseline
	 * mixed two measures, and a 3% slowdown read as a 9% improvement. */
	"",
	/* 13: PostgreSQL's view of the samples reads each array once
	 * (migrations_pg); SQLite's table stays as it is. */
	"",
	/* 14: a run set aside by hand (`benchguard exclude`), with why and
	 * when: a run measured on a throttled machine, or of a commit
	 * reverted since, would weigh in every baseline until the window
	 * turns over.  An excluded run stays stored and is listed by history;
	 * no baseline, report or stored pair uses it. */
	"ALTER TABLE runs ADD COLUMN exclude_reason TEXT;"
	"ALTER TABLE runs ADD COLUMN excluded_at INTEGER;",
	/* 15: the robust mean again (store__fill_robust) of every result that
	 * left more than one far-out sample out: a run's far-out samples now
	 * stay out only while there are few (bg_stats_summarize), and a
	 * baseline summarised the old way beside runs summarised the new
	 * would judge a benchmark's slow mode a regression of its whole
	 * size.  A result with one or none left out reads the same. */
	"",
};

/*
 * Steps whose PostgreSQL form is not the SQLite text rewritten by the
 * backend (db.h's `ddl`): NULL where it is.
 *
 * 8: a result's samples are written once, together, and read together.
 * As a million rows of a table with a primary key and a foreign key,
 * PostgreSQL checks and indexes each one, several times what storing
 * them costs; as one array per result it stores a thousand rows.  The
 * view `samples` shows them as the rows every query reads, in order.
 *
 * 13: that view took each sample by its subscript, and an array of more
 * than 2 kB is stored compressed out of line: each subscript unpacked the
 * whole array again.  Reading 100 results of 8,000 samples took 5.8 s;
 * unnest reads each array once, 0.18 s.
 */
static const char *const migrations_pg[] = {
	NULL, NULL, NULL, NULL, NULL, NULL, NULL,
	"CREATE TABLE sample_arrays ("
	"  result_id BIGINT PRIMARY KEY REFERENCES results(id) ON DELETE CASCADE,"
	"  vals DOUBLE PRECISION[] NOT NULL);"
	"INSERT INTO sample_arrays(result_id, vals)"
	"  SELECT result_id, array_agg(value ORDER BY idx) FROM samples GROUP BY result_id;"
	"DROP TABLE samples;"
	"CREATE VIEW samples(result_id, idx, value) AS"
	"  SELECT a.result_id, s.i - 1, a.vals[s.i]"
	"  FROM sample_arrays a, generate_subscripts(a.vals, 1) AS s(i);",
	NULL, NULL, NULL, NULL,
	"DROP VIEW samples;"
	"CREATE VIEW samples(result_id, idx, value) AS"
	"  SELECT a.result_id, CAST(u.i AS INTEGER) - 1, u.v"
	"  FROM sample_arrays a, unnest(a.vals) WITH ORDINALITY AS u(v, i);",
	NULL, NULL,
};
/* clang-format on */

#define STORE_SCHEMA_VERSION ((int)BG_ARRAY_SIZE(migrations))
_Static_assert(BG_ARRAY_SIZE(migrations_pg) == BG_ARRAY_SIZE(migrations),
               "a PostgreSQL form (or NULL) for every migration step");

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
	ST_SERIES_OF_BENCH,
	ST_SERIES_INSERT,
	ST_SERIES_DIRECTION,
	ST_OUTCOME_INSERT,
	ST_SERIES_COUNT,
	ST_HISTORY,
	ST_HISTORY_IDS,
	ST_HISTORY_ONE,
	ST_HISTORY_EACH,
	ST_RESULT_FIND,
	ST_SAMPLES,
	ST_ROBUST_MISSING,
	ST_ROBUST_FENCED,
	ST_ROBUST_SET,
	ST_RUN_GET,
	ST_RUN_BY_UID,
	ST_RUN_EXCLUDE,
	ST_RUN_INCLUDE,
	ST_RUNS_LIST,
	ST_PRUNE_LIST,
	ST_RUN_MAX_ID,
	ST_BASELINE_MACHINES,
	ST_MIXED_SERIES,
	ST_EXCLUDED_COUNT,
	ST_RUN_DELETE,
	ST_RUN_LATEST,
	ST_RUNS_AT,
	ST_PAIR_RECORD,
	ST_PAIRS_AT,
	ST_BASELINE_RUNS,
	ST_OTHER_MACHINES,
	ST_RUN_SERIES,
	ST_RUN_MEANS,
	ST_SERIES_AVAIL,
	ST_MACHINE_AVAIL,
	ST_RUN_SAMPLES,
	ST_RUN_OUTCOMES,
	ST_RUN_DEFINED,
	ST_RUN_TAGS,
	ST_BUILD_GET,
	ST_BUILD_PUT,
	ST_RUN_FACTS,
	ST_OUTBOX_ADD,
	ST_OUTBOX_LIST,
	ST_OUTBOX_CLAIM,
	ST_OUTBOX_HELD,
	ST_OUTBOX_SETTLE,
	ST_OUTBOX_PRUNE,
	ST_RUNS_SINCE,
	ST_RESULTS_SINCE,
	ST_CHECK_INSERT,
	ST_VERDICT_INSERT,
	ST_SERIES_ALL,
	ST_RECORDED_SINCE,
	ST_RECORDED_JSON,
	ST_COUNT
};

/* clang-format off */
/* A history row: the run, its commit and machine, the series' summary and
 * what the newest check of the run recorded for it. */
#define HISTORY_COLUMNS \
	"SELECT r.id, c.sha, r.branch, r.dirty, r.status = 'complete', r.started_at," \
	" c.author_time, c.subject, m.fingerprint, s.benchmark, s.metric, s.unit," \
	" s.direction, x.n, x.mean, x.median, x.stddev, x.min, x.max," \
	" r.role = 'paired', v.verdict, v.first, v.confirmation, r.exclude_reason"
/* Joined to series s, results x and runs r: the rest of a history row. */
#define HISTORY_JOINS \
	" JOIN commits c ON c.id = r.commit_id" \
	" JOIN machines m ON m.id = r.machine_id" \
	" LEFT JOIN verdicts v ON v.check_id =" \
	"  (SELECT max(k.id) FROM checks k WHERE k.run_id = r.id)" \
	"  AND v.series = s.benchmark || ':' || s.metric"
#define HISTORY_SELECT \
	HISTORY_COLUMNS \
	" FROM series s" \
	" JOIN results x ON x.series_id = s.id" \
	" JOIN runs r ON r.id = x.run_id" HISTORY_JOINS

/* How many runs that a baseline may draw from (as ST_BASELINE_RUNS lists
 * them: machine FP, complete, clean, primary, not excluded; less those of
 * commit SHA, by its id, looked up once: joined, each counted row read its
 * commit)
 * measured SERIES, newest first, counted to LIM at most.  The
 * statements that use it count every series in one, since one statement
 * per series cost a round trip each on PostgreSQL. */
#define AVAIL_COUNT(series, fp, sha, lim) \
	"(SELECT count(*) FROM (SELECT 1 FROM results x" \
	"   JOIN runs r ON r.id = x.run_id" \
	"  WHERE x.series_id = " series \
	"    AND r.machine_id = (SELECT id FROM machines WHERE fingerprint = " fp ")" \
	"    AND r.status = 'complete' AND r.dirty = 0 AND r.role = 'primary'" \
	"    AND r.exclude_reason IS NULL" \
	"    AND r.commit_id <> coalesce((SELECT id FROM commits WHERE sha = " sha "), -1)" \
	"  ORDER BY x.run_id DESC LIMIT " lim ") t)"

static const char *const stmt_sql[ST_COUNT] = {
	[ST_MACHINE_INSERT] =
		"INSERT INTO machines(fingerprint, first_seen) VALUES (?1, ?2) ON CONFLICT DO NOTHING",
	[ST_MACHINE_ID] = "SELECT id FROM machines WHERE fingerprint = ?1",
	[ST_MACHINE_FACT] =
		"INSERT INTO machine_facts(machine_id, key, value) VALUES (?1, ?2, ?3)"
		" ON CONFLICT DO NOTHING",
	[ST_COMMIT_INSERT] = "INSERT INTO commits(sha, author_time, author, subject)"
			     " VALUES (?1, ?2, ?3, ?4) ON CONFLICT DO NOTHING",
	[ST_COMMIT_ID] = "SELECT id FROM commits WHERE sha = ?1",
	[ST_RUN_INSERT] = "INSERT INTO runs(commit_id, machine_id, branch, dirty, status, source,"
			  " started_at, uid, role) VALUES (?1, ?2, ?3, ?4, 'incomplete', ?5, ?6,"
			  " ?7, ?8) RETURNING id",
	[ST_RUN_FACT] = "INSERT INTO run_facts(run_id, key, value) VALUES (?1, ?2, ?3)"
			" ON CONFLICT (run_id, key) DO UPDATE SET value = excluded.value",
	[ST_RUN_TAG] = "INSERT INTO run_tags(run_id, key, value) VALUES (?1, ?2, ?3)"
		       " ON CONFLICT (run_id, key) DO UPDATE SET value = excluded.value",
	[ST_RUN_STATUS] = "SELECT status FROM runs WHERE id = ?1",
	[ST_RUN_FINISH] = "UPDATE runs SET status = 'complete', finished_at = ?2 WHERE id = ?1",
	[ST_SERIES_FIND] =
		"SELECT id, unit, direction FROM series WHERE benchmark = ?1 AND metric = ?2",
	[ST_SERIES_OF_BENCH] =
		"SELECT id, benchmark, metric, unit, direction FROM series WHERE benchmark = ?1",
	[ST_SERIES_INSERT] = "INSERT INTO series(benchmark, metric, unit, direction)"
			     " VALUES (?1, ?2, ?3, ?4) RETURNING id",
	[ST_SERIES_DIRECTION] = "UPDATE series SET direction = ?2 WHERE id = ?1",
	[ST_OUTCOME_INSERT] = "INSERT INTO outcomes(run_id, benchmark, status, message, definition)"
			      " VALUES (?1, ?2, ?3, ?4, ?5) ON CONFLICT (run_id, benchmark)"
			      " DO UPDATE SET status = excluded.status, message = excluded.message,"
			      " definition = excluded.definition",
	[ST_SERIES_COUNT] = "SELECT count(*) FROM series"
			    " WHERE benchmark = ?1 AND (CAST(?2 AS TEXT) IS NULL OR metric = ?2)",
	[ST_HISTORY] = HISTORY_SELECT
		       " WHERE s.benchmark = ?1 AND (CAST(?2 AS TEXT) IS NULL OR s.metric = ?2)"
		       " ORDER BY r.started_at DESC, r.id DESC, s.metric",
	[ST_HISTORY_IDS] = "SELECT id FROM series"
			   " WHERE benchmark = ?1 AND (CAST(?2 AS TEXT) IS NULL OR metric = ?2)",
	/* The limit is each series' own: a metric that later runs no longer
	 * measure keeps its newest runs.  Newest is when a run started, not
	 * its id: `db copy` and `baseline import` store older runs after
	 * newer ones.  Runs are read newest first through runs_started and
	 * the series' result looked up in each, so --limit 1 reads one run
	 * however long the history (CROSS JOIN keeps SQLite to that order). */
	[ST_HISTORY_ONE] = HISTORY_SELECT
			   " WHERE s.id = ?1 AND x.run_id IN (SELECT r2.id"
			   "  FROM runs r2 CROSS JOIN results x2"
			   "  WHERE x2.run_id = r2.id AND x2.series_id = ?1"
			   "  ORDER BY r2.started_at DESC, r2.id DESC LIMIT ?2)",
	/* PostgreSQL's form of ST_HISTORY_ONE for every series of the
	 * benchmark at once (SQLite has no LATERAL): one statement, where
	 * one per series cost 1,000 round trips, each planned afresh (1.5 s
	 * for --limit 1 of 1,000 series; this, 35 ms).  Runs are listed
	 * newest first and the series' result looked up in each, as there. */
	[ST_HISTORY_EACH] = HISTORY_COLUMNS
		" FROM series s"
		" CROSS JOIN LATERAL (SELECT r2.id FROM runs r2"
		"  WHERE EXISTS (SELECT 1 FROM results x2"
		"                WHERE x2.run_id = r2.id AND x2.series_id = s.id)"
		"  ORDER BY r2.started_at DESC, r2.id DESC LIMIT ?3) t"
		" JOIN results x ON x.run_id = t.id AND x.series_id = s.id"
		" JOIN runs r ON r.id = t.id" HISTORY_JOINS
		" WHERE s.benchmark = ?1 AND (CAST(?2 AS TEXT) IS NULL OR s.metric = ?2)",
	[ST_RESULT_FIND] = "SELECT x.id, x.n, coalesce(x.robust_mean, x.mean)"
			   " FROM results x JOIN series s ON s.id = x.series_id"
			   " WHERE x.run_id = ?1 AND s.benchmark = ?2 AND s.metric = ?3",
	[ST_SAMPLES] = "SELECT value FROM samples WHERE result_id = ?1 ORDER BY idx",
	[ST_ROBUST_MISSING] = "SELECT id FROM results WHERE robust_mean IS NULL AND id > ?1"
	                      " ORDER BY id LIMIT 1",
	[ST_ROBUST_FENCED] = "SELECT id FROM results WHERE outliers > 1 AND id > ?1"
	                     " ORDER BY id LIMIT 1",
	[ST_ROBUST_SET] = "UPDATE results SET robust_mean = ?2, outliers = ?3 WHERE id = ?1",
	[ST_RUN_GET] =
		"SELECT r.id, c.sha, r.uid, r.branch, m.fingerprint, r.source, r.dirty,"
		"       r.status = 'complete', r.started_at, c.author_time, c.author, c.subject,"
		"       r.exclude_reason, r.excluded_at"
		"  FROM runs r JOIN commits c ON c.id = r.commit_id"
		"  JOIN machines m ON m.id = r.machine_id WHERE r.id = ?1",
	[ST_RUN_BY_UID] = "SELECT id FROM runs WHERE uid = ?1",
	/* The first reason stands: excluding again changes nothing. */
	[ST_RUN_EXCLUDE] = "UPDATE runs SET exclude_reason = ?2, excluded_at = ?3"
			   " WHERE id = ?1 AND exclude_reason IS NULL",
	[ST_RUN_INCLUDE] = "UPDATE runs SET exclude_reason = NULL, excluded_at = NULL"
			   " WHERE id = ?1 AND exclude_reason IS NOT NULL",
	/* bg_store_prune's candidates, oldest first: the runs started before
	 * ?1 and stored by ?2 at the latest, each with its results and
	 * samples. */
	[ST_PRUNE_LIST] =
		"SELECT r.id, (SELECT count(*) FROM results x WHERE x.run_id = r.id),"
		"       (SELECT coalesce(sum(x.n), 0) FROM results x WHERE x.run_id = r.id)"
		"  FROM runs r WHERE r.started_at < ?1 AND r.id <= ?2 ORDER BY r.id",
	[ST_RUN_MAX_ID] = "SELECT coalesce(max(id), 0) FROM runs",
	/* The series that machine ?1's baseline runs measured with more than
	 * one instrument (the clock's NULL one of them). */
	[ST_MIXED_SERIES] =
		"SELECT x.series_id FROM results x JOIN runs r ON r.id = x.run_id"
		" WHERE r.machine_id = (SELECT id FROM machines WHERE fingerprint = ?1)"
		"   AND r.status = 'complete' AND r.dirty = 0 AND r.role = 'primary'"
		"   AND r.exclude_reason IS NULL"
		" GROUP BY x.series_id HAVING count(DISTINCT coalesce(x.instrument, '')) > 1"
		" ORDER BY x.series_id",
	/* The machines a baseline can be drawn for (ST_BASELINE_RUNS's runs). */
	[ST_BASELINE_MACHINES] =
		"SELECT DISTINCT m.fingerprint FROM runs r JOIN machines m ON m.id = r.machine_id"
		" WHERE r.status = 'complete' AND r.dirty = 0 AND r.role = 'primary'"
		"   AND r.exclude_reason IS NULL ORDER BY 1",
	[ST_EXCLUDED_COUNT] =
		"SELECT count(*) FROM runs r JOIN machines m ON m.id = r.machine_id"
		" WHERE r.exclude_reason IS NOT NULL AND r.status = 'complete'"
		"   AND (CAST(?1 AS TEXT) IS NULL OR m.fingerprint = ?1) AND r.started_at >= ?2",
	/* Its results, samples, facts, tags, outcomes and checks go with it
	 * (ON DELETE CASCADE). */
	[ST_RUN_DELETE] = "DELETE FROM runs WHERE id = ?1",
	/* Runs of commit ?1 and machine ?2 when given, oldest first: the
	 * excluded ones (?3 = 1), or every complete one of any role. */
	[ST_RUNS_LIST] =
		"SELECT r.id, c.sha, r.uid, r.branch, m.fingerprint, r.source, r.dirty,"
		"       r.status = 'complete', r.started_at, c.author_time, c.author, c.subject,"
		"       r.exclude_reason, r.excluded_at"
		"  FROM runs r JOIN commits c ON c.id = r.commit_id"
		"  JOIN machines m ON m.id = r.machine_id"
		" WHERE (CASE WHEN ?3 = 1 THEN r.exclude_reason IS NOT NULL"
		"             ELSE r.status = 'complete' END)"
		"   AND (CAST(?1 AS TEXT) IS NULL OR c.sha = ?1)"
		"   AND (CAST(?2 AS TEXT) IS NULL OR m.fingerprint = ?2) ORDER BY r.id",
	[ST_RUN_LATEST] =
		"SELECT r.id FROM runs r JOIN machines m ON m.id = r.machine_id"
		" WHERE r.status = 'complete' AND r.role = 'primary' AND r.exclude_reason IS NULL"
		"   AND (CAST(?1 AS TEXT) IS NULL OR m.fingerprint = ?1)"
		/* Newest by when it started, as history says: `db copy` and
		 * `baseline import` store older runs after newer ones. */
		" ORDER BY r.started_at DESC, r.id DESC LIMIT 1",
	[ST_RUNS_AT] =
		"SELECT r.id FROM runs r JOIN commits c ON c.id = r.commit_id"
		"  JOIN machines m ON m.id = r.machine_id"
		" WHERE c.sha = ?1 AND m.fingerprint = ?2 AND r.status = 'complete'"
		"   AND r.exclude_reason IS NULL AND (?3 < 0 OR r.dirty = ?3)"
		"   AND (CAST(?4 AS TEXT) IS NULL OR EXISTS (SELECT 1 FROM run_tags t WHERE t.run_id = r.id"
		"        AND t.key || '=' || t.value = ?4))"
		/* Without a tag: the commit's runs of its own; with one, any. */
		"   AND (CAST(?4 AS TEXT) IS NOT NULL OR r.role = 'primary') ORDER BY r.id",
	/* Both runs name the pair by the reference run's uid. */
	[ST_PAIR_RECORD] =
		"UPDATE runs SET pair_ref = (SELECT r.uid FROM runs r WHERE r.id = ?1)"
		" WHERE (id = ?1 OR id = ?2) AND status = 'complete'",
	/* a: the reference run (it names itself), b: the other side. */
	[ST_PAIRS_AT] =
		"SELECT a.id, b.id FROM runs a JOIN runs b ON b.pair_ref = a.uid AND b.id <> a.id"
		"  JOIN commits ca ON ca.id = a.commit_id JOIN commits cb ON cb.id = b.commit_id"
		"  JOIN machines m ON m.id = a.machine_id"
		" WHERE a.pair_ref = a.uid AND ca.sha = ?1 AND cb.sha = ?3 AND m.fingerprint = ?5"
		"   AND b.machine_id = a.machine_id"
		"   AND a.status = 'complete' AND b.status = 'complete'"
		"   AND a.exclude_reason IS NULL AND b.exclude_reason IS NULL"
		"   AND (?6 < 0 OR (a.dirty = ?6 AND b.dirty = ?6))"
		"   AND (CAST(?2 AS TEXT) IS NULL OR EXISTS (SELECT 1 FROM run_tags t WHERE t.run_id = a.id"
		"        AND t.key || '=' || t.value = ?2))"
		"   AND (CAST(?4 AS TEXT) IS NULL OR EXISTS (SELECT 1 FROM run_tags t WHERE t.run_id = b.id"
		"        AND t.key || '=' || t.value = ?4))"
		" ORDER BY a.id",
	[ST_BASELINE_RUNS] =
		"SELECT r.id, c.sha, coalesce(c.author_time, 0) FROM runs r"
		"  JOIN commits c ON c.id = r.commit_id"
		"  JOIN machines m ON m.id = r.machine_id"
		" WHERE m.fingerprint = ?1 AND r.status = 'complete' AND r.dirty = 0"
		"   AND r.role = 'primary' AND r.exclude_reason IS NULL ORDER BY r.id DESC",
	[ST_OTHER_MACHINES] =
		"SELECT m.fingerprint, count(*), max(r.id) FROM runs r"
		"  JOIN machines m ON m.id = r.machine_id"
		" WHERE m.fingerprint <> ?1 AND r.status = 'complete' AND r.dirty = 0"
		"   AND r.role = 'primary' AND r.exclude_reason IS NULL"
		" GROUP BY m.fingerprint ORDER BY count(*) DESC, max(r.id) DESC LIMIT ?2",
	[ST_RUN_SERIES] =
		"SELECT s.id, s.benchmark, s.metric, s.unit, s.direction,"
		"       x.n, x.mean, x.median, x.stddev, x.min, x.max,"
		"       coalesce(x.robust_mean, x.mean), x.outliers, x.instrument"
		"  FROM results x JOIN series s ON s.id = x.series_id"
		" WHERE x.run_id = ?1 ORDER BY s.id",
	[ST_RUN_MEANS] = "SELECT series_id, coalesce(robust_mean, mean), instrument FROM results"
			 " WHERE run_id = ?1 ORDER BY series_id",
	/* For each series of a run: AVAIL_COUNT. */
	[ST_SERIES_AVAIL] =
		"SELECT cr.series_id, " AVAIL_COUNT("cr.series_id", "?2", "?3", "?4")
		"  FROM results cr WHERE cr.run_id = ?1 ORDER BY cr.series_id",
	/* The same for every series there is (baseline export's walk). */
	[ST_MACHINE_AVAIL] =
		"SELECT s.id, " AVAIL_COUNT("s.id", "?1", "?2", "?3") " FROM series s ORDER BY s.id",
	/* Every sample of a run in one statement, by series, where one per
	 * series cost two round trips each on PostgreSQL. */
	[ST_RUN_SAMPLES] = "SELECT x.series_id, s.value FROM results x"
			   " JOIN samples s ON s.result_id = x.id"
			   " WHERE x.run_id = ?1 ORDER BY x.series_id, s.idx",
	[ST_RUN_OUTCOMES] =
		"SELECT benchmark, status, message FROM outcomes"
		" WHERE run_id = ?1 AND status != 'ok' ORDER BY benchmark",
	[ST_RUN_DEFINED] = "SELECT 1 FROM outcomes"
			   " WHERE run_id = ?1 AND benchmark = ?2 AND definition = ?3",
	[ST_RUN_TAGS] = "SELECT key || '=' || value FROM run_tags WHERE run_id = ?1 ORDER BY key",
	[ST_BUILD_GET] = "SELECT ok, log_tail, seconds, finished_at FROM builds"
			 " WHERE sha = ?1 AND machine = ?2 AND command_hash = ?3",
	[ST_BUILD_PUT] = "INSERT INTO builds(sha, machine, command_hash, ok, log_tail,"
			 " seconds, finished_at) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7)"
			 " ON CONFLICT (sha, machine, command_hash) DO UPDATE SET ok = excluded.ok,"
			 " log_tail = excluded.log_tail, seconds = excluded.seconds,"
			 " finished_at = excluded.finished_at",
	[ST_RUN_FACTS] = "SELECT f.key, f.value, 0 FROM machine_facts f"
			 " JOIN runs r ON r.machine_id = f.machine_id WHERE r.id = ?1"
			 " UNION ALL SELECT key, value, 1 FROM run_facts WHERE run_id = ?1",
	[ST_OUTBOX_ADD] = "INSERT INTO outbox(uid, kind, target, label, pr, mode, body, run_id,"
			  " state, created_at) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, 'pending', ?9)"
			  " RETURNING id",
	[ST_OUTBOX_LIST] = "SELECT id, uid, kind, target, label, pr, mode, body, run_id, state,"
			   " created_at, attempts, last_status, last_error, delivered_at"
			   " FROM outbox WHERE (CAST(?1 AS TEXT) IS NULL OR state = ?1) ORDER BY id",
	[ST_OUTBOX_CLAIM] = "UPDATE outbox SET claimed_until = ?2 WHERE id = ?1 AND state = 'pending'"
			    " AND coalesce(claimed_until, 0) <= ?3",
	/* 1, long past, for a pending entry nobody holds (one another process
	 * gave back, still pending): it may be claimed now. */
	[ST_OUTBOX_HELD] = "SELECT coalesce(claimed_until, 1) FROM outbox"
			   " WHERE id = ?1 AND state = 'pending'",
	[ST_OUTBOX_SETTLE] = "UPDATE outbox SET state = ?2, attempts = attempts + ?3,"
			     " last_status = coalesce(?4, last_status), last_error = ?5,"
			     " delivered_at = CASE WHEN ?2 = 'delivered' THEN CAST(?6 AS BIGINT) END,"
			     " claimed_until = NULL WHERE id = ?1",
	[ST_OUTBOX_PRUNE] = "DELETE FROM outbox WHERE state IN ('delivered', 'superseded')"
			    " AND created_at < ?1",
	/* Reports: every clean run of a period, and all their results in one
	 * pass, series by series (results_series_run gives that order). */
	[ST_RUNS_SINCE] =
		"SELECT r.id, c.sha, r.uid, r.branch, m.fingerprint, r.source, r.dirty,"
		"       r.status = 'complete', r.started_at, c.author_time, c.author, c.subject,"
		"       r.exclude_reason, r.excluded_at"
		"  FROM runs r JOIN commits c ON c.id = r.commit_id"
		"  JOIN machines m ON m.id = r.machine_id"
		" WHERE r.status = 'complete' AND r.dirty = 0 AND (?3 OR r.role = 'primary')"
		"   AND r.exclude_reason IS NULL AND r.started_at >= ?1 AND (CAST(?2 AS TEXT) IS NULL OR m.fingerprint = ?2) ORDER BY r.id",
	[ST_RESULTS_SINCE] =
		/* The series' names are read once, all of them (ST_SERIES_ALL):
		 * carried in every row, they tripled what the sort moves.  The
		 * period's runs are a set looked up per row rather than a join:
		 * joined, SQLite seeks the run and its machine for every result
		 * (two b-tree descents per row).  The unary + keeps it walking
		 * results_series_run in the order asked for; without it SQLite
		 * reads by run through the UNIQUE index and sorts afterwards.
		 * Only the columns a trend uses: each one read costs per row. */
		"SELECT x.run_id, x.series_id, x.n, x.stddev, coalesce(x.robust_mean, x.mean),"
		"       x.instrument"
		"  FROM results x"
		" WHERE +x.run_id IN (SELECT r.id FROM runs r JOIN machines m ON m.id = r.machine_id"
		"   WHERE r.status = 'complete' AND r.dirty = 0 AND (?3 OR r.role = 'primary')"
		"     AND r.exclude_reason IS NULL AND r.started_at >= ?1 AND (CAST(?2 AS TEXT) IS NULL OR m.fingerprint = ?2))"
		" ORDER BY x.series_id, x.run_id",
	[ST_SERIES_ALL] = "SELECT id, benchmark, metric, unit, direction FROM series ORDER BY id",
	[ST_CHECK_INSERT] = "INSERT INTO checks(run_id, source, created_at, pairs, seconds, json)"
			    " VALUES (?1, ?2, ?3, ?4, ?5, ?6) RETURNING id",
	[ST_VERDICT_INSERT] = "INSERT INTO verdicts(check_id, series, benchmark, metric,"
			      " verdict, first, confirmation) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7)"
			      " ON CONFLICT (check_id, series) DO UPDATE SET"
			      " benchmark = excluded.benchmark, metric = excluded.metric,"
			      " verdict = excluded.verdict, first = excluded.first,"
			      " confirmation = excluded.confirmation",
	/* The newest check of each run of the period (as ST_RUNS_SINCE lists them). */
	[ST_RECORDED_SINCE] =
		"SELECT k.id, k.run_id, v.series, v.verdict, v.first, v.confirmation"
		"  FROM checks k JOIN verdicts v ON v.check_id = k.id"
		"  JOIN runs r ON r.id = k.run_id JOIN machines m ON m.id = r.machine_id"
		" WHERE k.id = (SELECT max(k2.id) FROM checks k2 WHERE k2.run_id = k.run_id)"
		"   AND r.status = 'complete' AND r.dirty = 0 AND (?3 OR r.role = 'primary')"
		"   AND r.exclude_reason IS NULL AND r.started_at >= ?1 AND (CAST(?2 AS TEXT) IS NULL OR m.fingerprint = ?2)"
		" ORDER BY k.run_id, v.series",
	[ST_RECORDED_JSON] = "SELECT json FROM checks WHERE run_id = ?1 ORDER BY id DESC LIMIT 1",
};
/* clang-format on */

struct bg_store {
	bg_db *db;
	int version;
	int upgraded_from; /* the schema version this open migrated from; 0: none */
	int created;       /* the tables were made by this open */
	int said_no_cpu;   /* store__machine's warning, once a store (ci stores many runs) */
	bg_db_stmt *stmts[ST_COUNT];
	bg_db_batches batches; /* results' INSERTs, by rows */
};

static int store__fail(bg_ctx *ctx, bg_store *st, const char *what)
{
	return st->db->drv->fail(st->db, ctx, what);
}

static int store__exec(bg_ctx *ctx, bg_store *st, const char *sql, const char *what)
{
	return st->db->drv->exec(st->db, sql) < 0 ? store__fail(ctx, st, what) : 0;
}

static int store__begin(bg_ctx *ctx, bg_store *st)
{
	if (st->db->drv->begin(st->db, 1) < 0)
		return store__fail(ctx, st, "starting a write transaction");
	return 0;
}

static int store__commit(bg_ctx *ctx, bg_store *st)
{
	if (st->db->drv->commit(st->db) < 0)
		return store__fail(ctx, st, "committing");
	return 0;
}

/* Undoes an open transaction, if any is still open. */
static void store__rollback(bg_store *st)
{
	st->db->drv->rollback(st->db);
}

/* The cached statement `id`, prepared on first use. */
static int store__stmt(bg_ctx *ctx, bg_store *st, enum store_stmt id, bg_db_stmt **out)
{
	*out = NULL;
	if (!st->stmts[id] && st->db->drv->prepare(st->db, stmt_sql[id], &st->stmts[id]) < 0)
		return store__fail(ctx, st, "preparing a statement");
	*out = st->stmts[id];
	return 0;
}

/*
 * Steps a statement that writes (or reads at most one row the caller does
 * not need) and resets it for the next use.
 */
static int store__run(bg_ctx *ctx, bg_store *st, bg_db_stmt *stmt, const char *what)
{
	int rc = bg_db_step(stmt), error = 0;

	if (rc != BG_DB_DONE && rc != BG_DB_ROW)
		error = store__fail(ctx, st, what);
	bg_db_reset(stmt);
	return error;
}

/* Steps a statement that yields one integer; *found says whether it did. */
static int store__int(bg_ctx *ctx, bg_store *st, bg_db_stmt *stmt, const char *what, int64_t *value,
                      int *found)
{
	int rc = bg_db_step(stmt), error = 0;

	*found = rc == BG_DB_ROW;
	if (rc == BG_DB_ROW)
		*value = bg_db_column_int64(stmt, 0);
	else if (rc != BG_DB_DONE)
		error = store__fail(ctx, st, what);
	bg_db_reset(stmt);
	return error;
}

static int store__bind_fail(bg_ctx *ctx, bg_store *st, bg_db_stmt *stmt)
{
	int error = store__fail(ctx, st, "binding a value");

	bg_db_reset(stmt);
	return error;
}

/*
 * Reads the schema version into *version and refuses a version this build
 * does not know: a later benchguard's database (its tables may mean other
 * things), a negative one (no benchguard writes that; the migration steps
 * are indexed by it), or version 0 with tables: some other program's
 * database, left untouched.  Nothing is written either way, and each is
 * bad input (a --db that names the wrong database), not a failure.
 */
static int store__version(bg_ctx *ctx, bg_store *st, int *version)
{
	const char *name = st->db->name;
	int rc, has_tables = 0;
	long v = 0;

	if ((rc = st->db->drv->version(st->db, &v, &has_tables)) < 0)
		return store__fail(ctx, st, "reading the schema version");
	if (rc > 0)
		return bg_error_set(ctx, BG_EINPUT,
		                    "database %s: the schema version is not a number", name);
	if (v > STORE_SCHEMA_VERSION)
		return bg_error_set(ctx, BG_EINPUT,
		                    "database %s: database schema version %ld is newer than this "
		                    "benchguard supports (%d): a newer benchguard has upgraded it; "
		                    "upgrade this one to use it",
		                    name, v, STORE_SCHEMA_VERSION);
	if (v < 0)
		return bg_error_set(ctx, BG_EINPUT,
		                    "database %s: schema version %ld is not one benchguard knows "
		                    "(this build reads 0 to %d)",
		                    name, v, STORE_SCHEMA_VERSION);
	if (v == 0 && has_tables)
		return bg_error_set(ctx, BG_EINPUT,
		                    "database %s: not a benchguard database (it has tables "
		                    "but no schema version)",
		                    name);
	*version = (int)v;
	return 0;
}

/*
 * The version of a database about to be set up, refused if unknown or
 * foreign.  One read transaction: a process migrating the database
 * meanwhile commits its tables and its version together, and both reads
 * see the same state.
 */
static int store__identify(bg_ctx *ctx, bg_store *st, int *version)
{
	int error;

	if (st->db->drv->begin(st->db, 0) < 0)
		return store__fail(ctx, st, "reading the schema");
	if ((error = store__version(ctx, st, version)) < 0) {
		store__rollback(st);
		return error;
	}
	return store__exec(ctx, st, "COMMIT", "reading the schema");
}

/*
 * Applies the migration steps the database lacks, in one write
 * transaction: of several jobs that start together on a new database, one
 * migrates and the others find it done.
 */
/* The schema steps whose work is store__fill_robust: robust means of
 * results without one, and again of those that left several samples out. */
#define STORE_STEP_ROBUST 12
#define STORE_STEP_REFENCE 15

static int store__result_samples(bg_ctx *ctx, bg_store *store, int64_t result_id, size_t expect,
                                 double **values, size_t *n);

/*
 * Migration steps 12 and 15, inside their transaction: each result that
 * `which` selects (ST_ROBUST_MISSING: without a robust mean; _FENCED: with
 * several samples left out of it) gets the one bg_stats_summarize gives its
 * samples, as it would be stored with now.  A result without samples keeps
 * what it has.
 */
static int store__fill_robust(bg_ctx *ctx, bg_store *st, int which)
{
	bg_db_stmt *next, *set;
	bg_summary sum;
	double *v = NULL;
	size_t n;
	int64_t id = 0;
	int error = 0, found = 1;

	while (!error && found) {
		if ((error = store__stmt(ctx, st, which, &next)) < 0)
			break;
		if (bg_db_bind_int64(next, 1, id) != 0) {
			error = store__bind_fail(ctx, st, next);
			break;
		}
		if ((error = store__int(ctx, st, next, "reading results", &id, &found)) < 0 ||
		    !found)
			break;
		free(v);
		if ((error = store__result_samples(ctx, st, id, 0, &v, &n)) < 0 || !n)
			continue;
		if ((error = bg_stats_summarize(ctx, v, n, &sum)) < 0 ||
		    (error = store__stmt(ctx, st, ST_ROBUST_SET, &set)) < 0)
			break;
		if (bg_db_bind_int64(set, 1, id) != 0 ||
		    bg_db_bind_double(set, 2, sum.robust_mean) != 0 ||
		    bg_db_bind_int64(set, 3, (int64_t)sum.outliers) != 0) {
			error = store__bind_fail(ctx, st, set);
			break;
		}
		error = store__run(ctx, st, set, "storing a result's robust mean");
	}
	free(v);
	return error;
}

static int store__migrate(bg_ctx *ctx, bg_store *st)
{
	char buf[64], *sql = NULL;
	int error, version = 0, i;

	if ((error = store__begin(ctx, st)) < 0)
		return error;
	/* Another process may have migrated since we looked. */
	if ((error = store__version(ctx, st, &version)) < 0)
		goto cleanup;
	for (i = version; i < STORE_SCHEMA_VERSION; i++) {
		snprintf(buf, sizeof(buf), "migrating the schema to version %d", i + 1);
		if (!strcmp(st->db->drv->name, "postgresql") && migrations_pg[i])
			sql = bg_strdup(migrations_pg[i]);
		else
			sql = st->db->drv->ddl(migrations[i]);
		if (!sql) {
			error = bg_error_oom(ctx);
			goto cleanup;
		}
		/* A step may be one backend's alone: nothing to run on the other. */
		if (*sql && (error = store__exec(ctx, st, sql, buf)) < 0)
			goto cleanup;
		free(sql);
		sql = NULL;
		/* Every step's SQL runs first: the samples are read from the
		 * tables as the last step leaves them (a view on PostgreSQL). */
	}
	if (version > 0 && version < STORE_STEP_ROBUST &&
	    (error = store__fill_robust(ctx, st, ST_ROBUST_MISSING)) < 0)
		goto cleanup;
	if (version > 0 && version < STORE_STEP_REFENCE &&
	    (error = store__fill_robust(ctx, st, ST_ROBUST_FENCED)) < 0)
		goto cleanup;
	if (version < STORE_SCHEMA_VERSION &&
	    st->db->drv->set_version(st->db, STORE_SCHEMA_VERSION) < 0) {
		error = store__fail(ctx, st, "setting the schema version");
		goto cleanup;
	}
	if ((error = store__commit(ctx, st)) == 0)
		st->created = version == 0;

cleanup:
	free(sql);
	if (error < 0)
		store__rollback(st);
	return error;
}

/* `source`: a database to copy from, which must hold benchguard's tables
 * already (bg_store_open_source); `peek`: the version is all that is read,
 * and nothing is set up or migrated (bg_store_open_peek). */
static int store__setup(bg_ctx *ctx, bg_store *st, int source, int peek)
{
	int error, version = 0;

	/* Read first: a foreign, newer or corrupt database is refused before
	 * it is touched (SQLite's switch to WAL writes the header). */
	if ((error = store__identify(ctx, st, &version)) < 0)
		return error;
	if (peek) {
		st->version = version;
		return 0;
	}
	/* An empty database has nothing to copy: creating the tables in it
	 * would only hide a mistyped name behind "copied 0 runs". */
	if (source && version == 0)
		return bg_error_set(ctx, BG_EINPUT,
		                    "database %s: not a benchguard database (it is empty), "
		                    "nothing to copy from",
		                    st->db->name);
	if ((error = st->db->drv->setup(st->db, ctx, version, STORE_SCHEMA_VERSION)) < 0)
		return error;
	if (st->db->readonly) {
		st->version = version;
		return 0;
	}
	if (version < STORE_SCHEMA_VERSION && (error = store__migrate(ctx, st)) < 0)
		return error;
	/* From the version read before the migration: another process may
	 * have migrated meanwhile, and then this open upgraded nothing, but
	 * the note that an older benchguard now refuses it holds all the same. */
	if (version > 0 && version < STORE_SCHEMA_VERSION)
		st->upgraded_from = version;
	st->version = STORE_SCHEMA_VERSION;
	return 0;
}

int bg_db_is_postgres(const char *spec)
{
	/*
	 * Every keyword libpq knows: a key=value string may start with any of
	 * them.  One left out ("password=... host=...") would be taken for a
	 * SQLite file's name, printed in every message and made as a file.
	 */
	static const char *const keywords[] = {
		"host",
		"hostaddr",
		"port",
		"dbname",
		"user",
		"password",
		"passfile",
		"require_auth",
		"channel_binding",
		"connect_timeout",
		"client_encoding",
		"options",
		"application_name",
		"fallback_application_name",
		"keepalives",
		"keepalives_idle",
		"keepalives_interval",
		"keepalives_count",
		"tcp_user_timeout",
		"replication",
		"gssencmode",
		"sslmode",
		"sslnegotiation",
		"requiressl",
		"sslcompression",
		"sslcert",
		"sslkey",
		"sslkeylogfile",
		"sslpassword",
		"sslcertmode",
		"sslrootcert",
		"sslcrl",
		"sslcrldir",
		"sslsni",
		"requirepeer",
		"ssl_min_protocol_version",
		"ssl_max_protocol_version",
		"krbsrvname",
		"gsslib",
		"gssdelegation",
		"service",
		"target_session_attrs",
		"load_balance_hosts",
		"min_protocol_version",
		"max_protocol_version",
		"scram_client_key",
		"scram_server_key",
		"oauth_issuer",
		"oauth_client_id",
		"oauth_client_secret",
		"oauth_scope",
	};
	size_t i, n;

	/* Blanks before a URI too: a copied secret often has one, and as a
	 * file name its password would be shown (libpq then refuses it). */
	spec += strspn(spec, " \t");
	if (!strncmp(spec, "postgresql://", 13) || !strncmp(spec, "postgres://", 11))
		return 1;
	for (i = 0; i < BG_ARRAY_SIZE(keywords); i++) {
		n = strlen(keywords[i]);
		if (!strncmp(spec, keywords[i], n) && spec[n + strspn(spec + n, " \t")] == '=')
			return 1;
	}
	return 0;
}

/*
 * A string that is not PostgreSQL's as written is a file, or ${VAR}s that
 * make one or the whole PostgreSQL string (a fleet's address in a CI
 * secret): expanded here, as the PostgreSQL backend expands its own, so
 * --db, $BENCHGUARD_DB and `db copy` take what the config's "database"
 * takes.  A "$" of a value handed on to PostgreSQL is written "$$", since
 * that backend expands once more.
 */
int bg_db_open(bg_ctx *ctx, const char *spec, const char *missing, bg_db **out)
{
	char *x = NULL, *esc;
	int rc;

	*out = NULL;
	if (!spec || !*spec)
		return bg_error_set(ctx, BG_EINPUT, "no database path given");
	if (bg_db_is_postgres(spec))
		return bg_db_pg_open(ctx, spec, out);
	if (!strchr(spec, '$'))
		return bg_db_sqlite_open(ctx, spec, missing, out);
	/* The string as written is no secret: what is in it is not shown. */
	if ((rc = bg_config_expand(ctx, spec, &x)) < 0)
		return bg_error_set(ctx, rc, "database %s: %s", spec, bg_ctx_error(ctx));
	if (!*x) {
		free(x);
		return bg_error_set(ctx, BG_EINPUT, "database %s: expands to nothing", spec);
	}
	if (!bg_db_is_postgres(x)) {
		/* A file named with a '$' by an older benchguard, which took the
		 * path as written: expanded, the path names another file, and
		 * run or ci would start a new, empty history beside it. */
		if (strcmp(x, spec) && access(x, F_OK) != 0 && access(spec, F_OK) == 0) {
			rc = bg_error_set(
			        ctx, BG_EINPUT,
			        "database %s: there is a file of that name, but benchguard "
			        "expands ${VAR} and $$ in a database path, and the file "
			        "this one names once expanded does not exist; rename the "
			        "file, or write $$ for each '$' of its name",
			        spec);
			free(x);
			return rc;
		}
		rc = bg_db_sqlite_open(ctx, x, missing, out);
		free(x);
		return rc;
	}
	esc = bg_config__escape_vars(x);
	free(x);
	if (!esc)
		return bg_error_oom(ctx);
	rc = bg_db_pg_open(ctx, esc, out);
	free(esc);
	return rc;
}

/*
 * Text goes in as valid UTF-8, each stray byte as U+FFFD.  A PostgreSQL
 * database in UTF-8 refuses anything else, and text from outside is not
 * always UTF-8: a commit's subject and author in Latin-1, a failing
 * benchmark's stderr in an outcome's message, a build log's tail, rows an
 * older benchguard stored in a SQLite file that db copy reads.  A refusal
 * would lose the whole run (or stop a copy), for the sake of a byte that
 * every output escapes or replaces anyway.  Both backends store the same
 * text, so they still answer alike; lookups go through here too, so a key
 * matches the row it was stored as.
 */
int bg_db_bind_text(bg_db_stmt *s, int i, const char *v, int len)
{
	bg_buf fixed = BG_BUF_INIT;
	size_t n;
	int rc;

	if (!v)
		return s->db->drv->bind_null(s, i);
	n = len < 0 ? strlen(v) : (size_t)len;
	if (bg_text__utf8_valid(v, n))
		return s->db->drv->bind_text(s, i, v, len);
	if (bg_text__utf8_repair(&fixed, v, n) < 0 || fixed.len > INT_MAX) {
		bg_buf_clear(&fixed);
		return -1;
	}
	rc = s->db->drv->bind_text(s, i, fixed.ptr, (int)fixed.len);
	bg_buf_clear(&fixed);
	return rc;
}

/* The INSERT of 2^k results, prepared on first use.  A series the run has
 * already is left alone (its row does not come back): the caller names it,
 * where a broken constraint would have aborted a PostgreSQL transaction. */
static int db__batch_stmt(bg_ctx *ctx, bg_db *db, bg_db_batches *b, int k, bg_db_stmt **out)
{
	bg_buf sql = BG_BUF_INIT;
	size_t rows = (size_t)1 << k, j;
	int p, error;

	if ((*out = b->stmt[k]))
		return 0;
	error = bg_buf_puts(&sql, "INSERT INTO results(run_id, series_id, n, mean, median, stddev,"
	                          " min, max, robust_mean, outliers, instrument) VALUES ");
	for (j = 0; j < rows && !error; j++)
		for (p = 1; p <= 11 && !error; p++)
			error = bg_buf_printf(&sql, "%s?%zu%s",
			                      p > 1 ? ", "
			                      : j   ? ", ("
			                            : "(",
			                      j * 11 + (size_t)p, p == 11 ? ")" : "");
	if (!error)
		error = bg_buf_puts(&sql, " ON CONFLICT DO NOTHING RETURNING id, series_id");
	if (error)
		error = bg_error_oom(ctx);
	else if (db->drv->prepare(db, sql.ptr, &b->stmt[k]) < 0)
		error = db->drv->fail(db, ctx, "preparing a statement");
	bg_buf_clear(&sql);
	*out = b->stmt[k];
	return error;
}

static int db__bind_result(bg_db_stmt *s, int p, int64_t run_id, const bg_db_result *x)
{
	const double real[6] = { x->mean, x->median, x->stddev, x->min, x->max, x->robust_mean };
	int q;

	if (bg_db_bind_int64(s, p + 1, run_id) < 0 ||
	    bg_db_bind_int64(s, p + 2, x->series_id) < 0 ||
	    (x->nulls & BG_DB_NULL_N ? bg_db_bind_null(s, p + 3)
	                             : bg_db_bind_int64(s, p + 3, x->n)) < 0 ||
	    (x->nulls & BG_DB_NULL_OUTLIERS ? bg_db_bind_null(s, p + 10)
	                                    : bg_db_bind_int64(s, p + 10, x->outliers)) < 0 ||
	    bg_db_bind_text(s, p + 11, x->instrument, -1) < 0)
		return -1;
	for (q = 0; q < 6; q++)
		if ((x->nulls & BG_DB_NULL_MEAN << q
		             ? bg_db_bind_null(s, p + 4 + q)
		             : bg_db_bind_double(s, p + 4 + q, real[q])) < 0)
			return -1;
	return 0;
}

/* Rows [from, from + 2^k): RETURNING's order is not promised, so each row
 * comes back with its series, of which a run has one result each. */
static int db__results_batch(bg_ctx *ctx, bg_db *db, bg_db_batches *b, int64_t run_id,
                             bg_db_result *rows, int k)
{
	size_t n = (size_t)1 << k, j;
	bg_db_stmt *s;
	int error, rc;

	if ((error = db__batch_stmt(ctx, db, b, k, &s)) < 0)
		return error;
	for (j = 0; j < n; j++)
		if (db__bind_result(s, (int)(j * 11), run_id, &rows[j]) < 0) {
			error = db->drv->fail(db, ctx, "storing a run summary");
			bg_db_reset(s);
			return error;
		}
	while ((rc = bg_db_step(s)) == BG_DB_ROW) {
		int64_t series_id = bg_db_column_int64(s, 1);

		for (j = 0; j < n; j++)
			if (rows[j].series_id == series_id && !rows[j].id) {
				rows[j].id = bg_db_column_int64(s, 0);
				break;
			}
	}
	error = rc != BG_DB_DONE ? db->drv->fail(db, ctx, "storing a run summary") : 0;
	bg_db_reset(s);
	return error;
}

int bg_db_results_insert(bg_ctx *ctx, bg_db *db, bg_db_batches *b, int64_t run_id,
                         bg_db_result *rows, size_t n)
{
	size_t i;
	int error = 0, k = BG_DB_BATCH_LOG;

	for (i = 0; i < n; i++)
		rows[i].id = 0;
	for (i = 0; i < n && !error; i += (size_t)1 << k) {
		while (((size_t)1 << k) > n - i)
			k--;
		error = db__results_batch(ctx, db, b, run_id, rows + i, k);
	}
	return error;
}

void bg_db_batches_free(bg_db_batches *b)
{
	int k;

	for (k = 0; k <= BG_DB_BATCH_LOG; k++) {
		bg_db_finalize(b->stmt[k]);
		b->stmt[k] = NULL;
	}
}

/* How a store is opened: to write (a missing SQLite file is made), only to
 * read (it is not), as a copy's source (nor is an empty database), or to
 * read its version alone. */
enum { STORE_WRITE, STORE_READ, STORE_SOURCE, STORE_PEEK };

static int store__open(bg_ctx *ctx, const char *spec, int mode, bg_store **out)
{
	static const char *const missing[] = {
		[STORE_WRITE] = NULL,
		[STORE_READ] = "a command that only reads never creates one; "
		               "`run`, `ci` or `init` does",
		[STORE_SOURCE] = "the database a copy reads from is never created",
		[STORE_PEEK] = "a command that only reads never creates one; "
		               "`run`, `ci` or `init` does",
	};
	bg_store *st = NULL;
	int error;

	*out = NULL;
	if ((error = bg_numbers_c(ctx)) < 0)
		return error;
	if (!(st = calloc(1, sizeof(*st))))
		return bg_error_oom(ctx);
	if ((error = bg_db_open(ctx, spec, missing[mode], &st->db)) < 0 ||
	    (error = store__setup(ctx, st, mode == STORE_SOURCE, mode == STORE_PEEK)) < 0)
		goto cleanup;
	*out = st;
	st = NULL;

cleanup:
	bg_store_free(st);
	return error;
}

int bg_store_open(bg_ctx *ctx, const char *path, bg_store **out)
{
	BG_NEED(ctx, path);
	BG_NEED(ctx, out);
	return store__open(ctx, path, STORE_WRITE, out);
}

int bg_store_open_read(bg_ctx *ctx, const char *spec, bg_store **out)
{
	return store__open(ctx, spec, STORE_READ, out);
}

int bg_store_open_source(bg_ctx *ctx, const char *spec, bg_store **out)
{
	return store__open(ctx, spec, STORE_SOURCE, out);
}

int bg_store_open_peek(bg_ctx *ctx, const char *spec, bg_store **out)
{
	return store__open(ctx, spec, STORE_PEEK, out);
}

int bg_store_writable(bg_ctx *ctx, bg_store *store)
{
	BG_NEED(ctx, store);
	if (store->db->readonly)
		return bg_error_set(ctx, BG_EIO,
		                    "database %s: the database is read-only (the folder or file "
		                    "may not be written)",
		                    store->db->name);
	return 0;
}

void bg_store_free(bg_store *store)
{
	size_t i;

	if (!store)
		return;
	for (i = 0; i < ST_COUNT; i++)
		bg_db_finalize(store->stmts[i]);
	bg_db_batches_free(&store->batches);
	bg_db_close(store->db);
	free(store);
}

int bg_store_schema_version(bg_store *store)
{
	return store->version;
}

int bg_store_upgraded_from(const bg_store *store)
{
	return store->upgraded_from;
}

int bg_store_schema_current(void)
{
	return STORE_SCHEMA_VERSION;
}

const char *bg_store_name(const bg_store *store)
{
	if (!store)
		return NULL;
	return store->db->name;
}

int bg_store_created(const bg_store *store)
{
	return store ? store->created : 0;
}

const char *bg_store_backend(const bg_store *store)
{
	if (!store)
		return NULL;
	return store->db->drv->name;
}

bg_db *bg_store__db(bg_store *store)
{
	return store->db;
}

int bg_store_is_url(const char *spec)
{
	return spec && bg_db_is_postgres(spec);
}
/* ------------------------------------------------------------------ runs */

/* The machine's row, created with its stable facts the first time it is seen. */
static int store__machine(bg_ctx *ctx, bg_store *st, bg_machine *m, int64_t now, int64_t *id)
{
	const char *fp = bg_machine_fingerprint(m);
	bg_db_stmt *s;
	size_t i, n;
	int error, found;

	if (!fp || !*fp)
		return bg_error_set(ctx, BG_ERROR, "the machine has no fingerprint");
	/* No CPU could be read (/proc and sysfs not mounted: a bare chroot,
	 * a sandbox): the fingerprint holds what was left, the architecture,
	 * which every such machine shares, and so their runs one baseline.
	 * A name (--machine) tells this one apart. */
	if (!m->name && !bg_machine_get(m, "cpu_model") && !bg_machine_get(m, "cpu_threads") &&
	    !st->said_no_cpu++)
		bg_log(ctx, BG_LOG_WARN,
		       "this machine's CPU cannot be read (no /proc/cpuinfo, no "
		       "/sys/devices/system/cpu): its fingerprint %s is that of every machine "
		       "that lacks them too, and their runs share one baseline; name this one "
		       "with --machine NAME",
		       fp);
	if ((error = store__stmt(ctx, st, ST_MACHINE_INSERT, &s)) < 0)
		return error;
	if (bg_db_bind_text(s, 1, fp, -1) != 0 || bg_db_bind_int64(s, 2, now) != 0)
		return store__bind_fail(ctx, st, s);
	if ((error = store__run(ctx, st, s, "storing the machine")) < 0)
		return error;
	if ((error = store__stmt(ctx, st, ST_MACHINE_ID, &s)) < 0)
		return error;
	if (bg_db_bind_text(s, 1, fp, -1) != 0)
		return store__bind_fail(ctx, st, s);
	if ((error = store__int(ctx, st, s, "finding the machine", id, &found)) < 0)
		return error;
	if (!found)
		return bg_error_set(ctx, BG_ERROR, "database %s: machine %s vanished", st->db->name,
		                    fp);
	if ((error = store__stmt(ctx, st, ST_MACHINE_FACT, &s)) < 0)
		return error;
	n = bg_machine_fact_count(m);
	for (i = 0; i < n; i++) {
		const char *key, *value;
		int is_volatile;

		if (bg_machine_fact(m, i, &key, &value, &is_volatile) < 0 || is_volatile)
			continue;
		if (bg_db_bind_int64(s, 1, *id) != 0 || bg_db_bind_text(s, 2, key, -1) != 0 ||
		    bg_db_bind_text(s, 3, value ? value : "", -1) != 0)
			return store__bind_fail(ctx, st, s);
		if ((error = store__run(ctx, st, s, "storing the machine's facts")) < 0)
			return error;
	}
	return 0;
}

static int store__commit_row(bg_ctx *ctx, bg_store *st, const bg_commit *c, int64_t *id)
{
	bg_db_stmt *s;
	int error, found;

	if ((error = store__stmt(ctx, st, ST_COMMIT_INSERT, &s)) < 0)
		return error;
	if (bg_db_bind_text(s, 1, c->sha, -1) != 0 || bg_db_bind_int64(s, 2, c->author_time) != 0 ||
	    bg_db_bind_text(s, 3, c->author, -1) != 0 || bg_db_bind_text(s, 4, c->subject, -1) != 0)
		return store__bind_fail(ctx, st, s);
	if ((error = store__run(ctx, st, s, "storing the commit")) < 0)
		return error;
	if ((error = store__stmt(ctx, st, ST_COMMIT_ID, &s)) < 0)
		return error;
	if (bg_db_bind_text(s, 1, c->sha, -1) != 0)
		return store__bind_fail(ctx, st, s);
	if ((error = store__int(ctx, st, s, "finding the commit", id, &found)) < 0)
		return error;
	if (!found)
		return bg_error_set(ctx, BG_ERROR, "database %s: commit %s vanished", st->db->name,
		                    c->sha);
	return 0;
}

/* Checked before anything is written, so a bad tag stores nothing. */
/* Tags as `--tag` and baseline files take them (bg_results__bad_pair): a
 * tag stored here is exported, and must import again. */
static int store__check_tags(bg_ctx *ctx, const char *const *tags)
{
	char q[320];
	const char *why;
	int bad;

	for (; tags && *tags; tags++) {
		const char *eq = strchr(*tags, '=');

		if (!eq)
			return bg_error_set(ctx, BG_EINPUT, "tag %s is not KEY=VALUE",
			                    bg_text__quote(q, sizeof(q), *tags));
		if (eq == *tags)
			return bg_error_set(ctx, BG_EINPUT, "tag %s has an empty key",
			                    bg_text__quote(q, sizeof(q), *tags));
		if ((why = bg_results__bad_pair(*tags, (size_t)(eq - *tags), eq + 1, strlen(eq + 1),
		                                &bad)) != NULL)
			return bg_error_set(ctx, BG_EINPUT, "tag %s: %s %s",
			                    bg_text__quote(q, sizeof(q), *tags),
			                    bad == BG_PAIR_KEY ? "its key" : "its value", why);
	}
	return 0;
}

/* The machine's volatile facts, as they are at this run. */
static int store__run_facts(bg_ctx *ctx, bg_store *st, const bg_machine *m, int64_t id)
{
	char hw[17];
	bg_db_stmt *s;
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
		if (bg_db_bind_int64(s, 1, id) != 0 || bg_db_bind_text(s, 2, key, -1) != 0 ||
		    bg_db_bind_text(s, 3, value ? value : "", -1) != 0)
			return store__bind_fail(ctx, st, s);
		if ((error = store__run(ctx, st, s, "storing the run's machine facts")) < 0)
			return error;
	}
	/* A machine named with --machine: its hardware's own fingerprint. */
	if ((error = bg_machine__hardware(m, hw)) == BG_ENOMEM)
		return bg_error_oom(ctx);
	if (error == 1) {
		if (bg_db_bind_int64(s, 1, id) != 0 || bg_db_bind_text(s, 2, "hardware", -1) != 0 ||
		    bg_db_bind_text(s, 3, hw, -1) != 0)
			return store__bind_fail(ctx, st, s);
		if ((error = store__run(ctx, st, s, "storing the run's machine facts")) < 0)
			return error;
	}
	return 0;
}

static int store__run_details(bg_ctx *ctx, bg_store *st, const bg_run_info *info, int64_t id)
{
	const char *const *tag;
	bg_db_stmt *s;
	int error;

	if ((error = store__run_facts(ctx, st, info->machine, id)) < 0)
		return error;
	if ((error = store__stmt(ctx, st, ST_RUN_TAG, &s)) < 0)
		return error;
	for (tag = info->tags; tag && *tag; tag++) {
		const char *eq = strchr(*tag, '=');

		if (bg_db_bind_int64(s, 1, id) != 0 ||
		    bg_db_bind_text(s, 2, *tag, (int)(eq - *tag)) != 0 ||
		    bg_db_bind_text(s, 3, eq + 1, -1) != 0)
			return store__bind_fail(ctx, st, s);
		if ((error = store__run(ctx, st, s, "storing the run's tags")) < 0)
			return error;
	}
	return 0;
}

/* What a run must carry before anything is written; a new run's uid in uid. */
static int store__run_check(bg_ctx *ctx, const bg_run_info *info, char uid[33])
{
	int error;

	if (!info || !info->commit || !info->machine || !info->commit->sha[0])
		return bg_error_set(ctx, BG_EINPUT, "a run needs a commit and a machine");
	if ((error = store__check_tags(ctx, info->tags)) < 0)
		return error;
	if (info->uid && (strlen(info->uid) != 32 || strspn(info->uid, "0123456789abcdef") != 32))
		return bg_error_set(ctx, BG_EINPUT, "run uid \"%s\" is not 32 lowercase hex digits",
		                    info->uid);
	/* A new run's uid: 128 random bits in lowercase hex, as imports expect. */
	if (!info->uid && bg_random_hex(uid) < 0)
		return bg_error_errno(ctx, BG_EIO, "no random bytes for a run id");
	return 0;
}

/*
 * The run's row, its machine, commit and details, inside the caller's write
 * transaction.  With if_new, a run with info->uid already stored leaves
 * *run_id 0 and writes nothing: looked up inside the transaction, so of two
 * processes storing the same run at once, the second finds the first's.
 */
static int store__run_insert(bg_ctx *ctx, bg_store *store, const bg_run_info *info, const char *uid,
                             int if_new, int64_t *run_id)
{
	int64_t now = (int64_t)time(NULL), machine_id = 0, commit_id = 0;
	bg_db_stmt *s;
	int error, found = 0;

	*run_id = 0;
	if (if_new && info->uid) {
		int64_t have = 0;

		if ((error = store__stmt(ctx, store, ST_RUN_BY_UID, &s)) < 0)
			return error;
		if (bg_db_bind_text(s, 1, info->uid, -1) < 0)
			return store__bind_fail(ctx, store, s);
		if ((error = store__int(ctx, store, s, "finding a run", &have, &found)) < 0 ||
		    found)
			return error;
	}
	if ((error = store__machine(ctx, store, info->machine, now, &machine_id)) < 0 ||
	    (error = store__commit_row(ctx, store, info->commit, &commit_id)) < 0 ||
	    (error = store__stmt(ctx, store, ST_RUN_INSERT, &s)) < 0)
		return error;
	if (bg_db_bind_int64(s, 1, commit_id) != 0 || bg_db_bind_int64(s, 2, machine_id) != 0 ||
	    bg_db_bind_text(s, 3, info->commit->branch, -1) != 0 ||
	    bg_db_bind_int64(s, 4, info->commit->dirty ? 1 : 0) != 0 ||
	    bg_db_bind_text(s, 5, info->source ? info->source : "run", -1) != 0 ||
	    bg_db_bind_int64(s, 6, info->started_at > 0 ? info->started_at : now) != 0 ||
	    bg_db_bind_text(s, 7, info->uid ? info->uid : uid, -1) != 0 ||
	    bg_db_bind_text(s, 8, info->paired ? "paired" : "primary", -1) != 0)
		return store__bind_fail(ctx, store, s);
	if ((error = store__int(ctx, store, s, "storing the run", run_id, &found)) < 0 ||
	    (error = store__run_details(ctx, store, info, *run_id)) < 0) {
		*run_id = 0;
		return error;
	}
	return 0;
}

static int store__run_begin(bg_ctx *ctx, bg_store *store, const bg_run_info *info, int64_t *run_id,
                            int if_new)
{
	char uid[33] = "";
	int error;

	*run_id = 0;
	if ((error = store__run_check(ctx, info, uid)) < 0 ||
	    (error = store__begin(ctx, store)) < 0)
		return error;
	if ((error = store__run_insert(ctx, store, info, uid, if_new, run_id)) < 0 || !*run_id) {
		store__rollback(store);
		*run_id = 0;
		return error;
	}
	if ((error = store__commit(ctx, store)) < 0) {
		store__rollback(store);
		*run_id = 0;
	}
	return error;
}

int bg_store_run_begin(bg_ctx *ctx, bg_store *store, const bg_run_info *info, int64_t *run_id)
{
	return store__run_begin(ctx, store, info, run_id, 0);
}

int bg_store_run_begin_new(bg_ctx *ctx, bg_store *store, const bg_run_info *info, int64_t *run_id)
{
	return store__run_begin(ctx, store, info, run_id, 1);
}

/* The run must exist and still be open for samples. */
static int store__check_run(bg_ctx *ctx, bg_store *st, int64_t run_id)
{
	bg_db_stmt *s;
	int error, rc, complete;

	if ((error = store__stmt(ctx, st, ST_RUN_STATUS, &s)) < 0)
		return error;
	if (bg_db_bind_int64(s, 1, run_id) != 0)
		return store__bind_fail(ctx, st, s);
	rc = bg_db_step(s);
	if (rc != BG_DB_ROW && rc != BG_DB_DONE) {
		error = store__fail(ctx, st, "reading the run");
		bg_db_reset(s);
		return error;
	}
	complete = rc == BG_DB_ROW && !strcmp((const char *)bg_db_column_text(s, 0), "complete");
	bg_db_reset(s);
	if (rc == BG_DB_DONE)
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
 * The direction follows the latest run, since the config may override it,
 * unless `keep_dir`: a baseline file says a direction of its own, and one
 * that differs from the stored one would turn every stored run's
 * regression into an improvement for everyone; it is refused as a unit is.
 */
/* A series row of ST_SERIES_ALL and ST_SERIES_OF_BENCH. */
typedef struct {
	int64_t id;
	char *benchmark, *metric, *unit;
	bg_direction direction;
} store_series;

static void store__series_rows_free(store_series *v, size_t n)
{
	size_t i;

	for (i = 0; v && i < n; i++) {
		free(v[i].benchmark);
		free(v[i].metric);
		free(v[i].unit);
	}
	free(v);
}

/* Steps `s` (bound; columns id, benchmark, metric, unit, direction), its
 * rows into *out, and resets it. */
static int store__series_rows(bg_ctx *ctx, bg_store *st, bg_db_stmt *s, store_series **out,
                              size_t *nout)
{
	store_series *v = NULL;
	size_t len = 0, cap = 0;
	int error = 0, rc;

	*out = NULL;
	*nout = 0;
	while ((rc = bg_db_step(s)) == BG_DB_ROW) {
		const char *dir = bg_db_column_text(s, 4);
		store_series *r;

		if (bg_grow((void **)&v, &cap, len, sizeof(*v)) < 0) {
			error = bg_error_oom(ctx);
			goto cleanup;
		}
		r = &v[len++];
		r->id = bg_db_column_int64(s, 0);
		r->benchmark = bg_strdup(bg_db_column_text(s, 1));
		r->metric = bg_strdup(bg_db_column_text(s, 2));
		r->unit = bg_strdup(bg_db_column_text(s, 3));
		if (!dir || bg_direction_from_name(dir, &r->direction) < 0)
			r->direction = BG_DIR_LOWER;
		if (!r->benchmark || !r->metric || !r->unit) {
			error = bg_error_oom(ctx);
			goto cleanup;
		}
	}
	if (rc != BG_DB_DONE) {
		error = store__fail(ctx, st, "reading the series");
		goto cleanup;
	}
	*out = v;
	*nout = len;
	v = NULL;
	len = 0;
cleanup:
	bg_db_reset(s);
	store__series_rows_free(v, len);
	return error;
}

/* A benchmark's stored series, read once for a run's series of it: one
 * statement where one per series cost a round trip each on PostgreSQL.
 * Read inside the run's write transaction, so nothing changes them but
 * this run's own statements. */
typedef struct {
	char *benchmark;    /* NULL: none read yet */
	store_series *rows; /* by metric (strcmp) */
	size_t n;
} series_known;

static void store__known_clear(series_known *k)
{
	store__series_rows_free(k->rows, k->n);
	free(k->benchmark);
	memset(k, 0, sizeof(*k));
}

static int cmp_known(const void *a, const void *b)
{
	return strcmp(((const store_series *)a)->metric, ((const store_series *)b)->metric);
}

static int store__known_load(bg_ctx *ctx, bg_store *st, const char *benchmark, series_known *k)
{
	bg_db_stmt *s;
	int error;

	store__known_clear(k);
	if (!(k->benchmark = bg_strdup(benchmark)))
		return bg_error_oom(ctx);
	if ((error = store__stmt(ctx, st, ST_SERIES_OF_BENCH, &s)) < 0)
		goto fail;
	if (bg_db_bind_text(s, 1, benchmark, -1) != 0) {
		error = store__bind_fail(ctx, st, s);
		goto fail;
	}
	if ((error = store__series_rows(ctx, st, s, &k->rows, &k->n)) < 0)
		goto fail;
	if (k->n > 1)
		qsort(k->rows, k->n, sizeof(*k->rows), cmp_known);
	return 0;
fail:
	store__known_clear(k);
	return error;
}

/* The series' id, stored now if it is new; its unit must be the stored
 * one, and its direction too when keep_dir (else the stored one is
 * updated).  `known`: the benchmark's stored series, read in this
 * transaction; one not there is looked up (NULL: every one is). */
static int store__series(bg_ctx *ctx, bg_store *st, const bg_series *ser, int keep_dir,
                         series_known *known, int64_t *id)
{
	const char *dir = bg_direction_name(ser->direction);
	const char *unit = NULL, *old_dir = NULL;
	bg_db_stmt *s = NULL;
	int error, same_dir = 1, found = 0;

	if (known) {
		store_series key = { 0, NULL, (char *)ser->metric, NULL, BG_DIR_LOWER }, *row;

		if ((!known->benchmark || strcmp(known->benchmark, ser->benchmark)) &&
		    (error = store__known_load(ctx, st, ser->benchmark, known)) < 0)
			return error;
		row = known->n ? bsearch(&key, known->rows, known->n, sizeof(*known->rows),
		                         cmp_known)
		               : NULL;
		if (row) {
			found = 1;
			*id = row->id;
			unit = row->unit;
			old_dir = bg_direction_name(row->direction);
		}
	}
	/* Not among them: new, or stored by this run a moment ago. */
	if (!found) {
		int rc;

		if ((error = store__stmt(ctx, st, ST_SERIES_FIND, &s)) < 0)
			return error;
		if (bg_db_bind_text(s, 1, ser->benchmark, -1) != 0 ||
		    bg_db_bind_text(s, 2, ser->metric, -1) != 0)
			return store__bind_fail(ctx, st, s);
		rc = bg_db_step(s);
		if (rc == BG_DB_ROW) {
			found = 1;
			*id = bg_db_column_int64(s, 0);
			unit = (const char *)bg_db_column_text(s, 1);
			old_dir = (const char *)bg_db_column_text(s, 2);
		} else if (rc != BG_DB_DONE) {
			error = store__fail(ctx, st, "finding the series");
			bg_db_reset(s);
			return error;
		}
	}
	if (found) {
		if (strcmp(unit, ser->unit) != 0)
			error = bg_error_set(ctx, BG_EINPUT,
			                     "series \"%s:%s\" is stored in unit \"%s\", "
			                     "but this run measured it in \"%s\"",
			                     ser->benchmark, ser->metric, unit, ser->unit);
		else if ((same_dir = !strcmp(old_dir, dir)) == 0 && keep_dir)
			error = bg_error_set(ctx, BG_EINPUT,
			                     "series \"%s:%s\" is stored as %s is better, but "
			                     "this run says %s is better",
			                     ser->benchmark, ser->metric, old_dir, dir);
		else
			error = 0;
		if (s)
			bg_db_reset(s);
		if (error < 0 || same_dir)
			return error;
		if ((error = store__stmt(ctx, st, ST_SERIES_DIRECTION, &s)) < 0)
			return error;
		if (bg_db_bind_int64(s, 1, *id) != 0 || bg_db_bind_text(s, 2, dir, -1) != 0)
			return store__bind_fail(ctx, st, s);
		return store__run(ctx, st, s, "updating the series' direction");
	}
	if (s)
		bg_db_reset(s);
	if ((error = store__stmt(ctx, st, ST_SERIES_INSERT, &s)) < 0)
		return error;
	if (bg_db_bind_text(s, 1, ser->benchmark, -1) != 0 ||
	    bg_db_bind_text(s, 2, ser->metric, -1) != 0 ||
	    bg_db_bind_text(s, 3, ser->unit, -1) != 0 || bg_db_bind_text(s, 4, dir, -1) != 0)
		return store__bind_fail(ctx, st, s);
	return store__int(ctx, st, s, "storing the series", id, &found);
}

/* One series of a run: its id, stored now if new, and its summary row. */
static int store__result_row(bg_ctx *ctx, bg_store *st, const bg_series *ser, int keep_dir,
                             series_known *known, bg_db_result *row)
{
	bg_summary sum;
	int error;

	if ((error = store__series(ctx, st, ser, keep_dir, known, &row->series_id)) < 0 ||
	    (error = bg_stats_summarize(ctx, ser->values, ser->n, &sum)) < 0)
		return error;
	row->n = (int64_t)sum.n;
	row->mean = sum.mean;
	row->median = sum.median;
	row->stddev = sum.stddev;
	row->min = sum.min;
	row->max = sum.max;
	row->robust_mean = sum.robust_mean;
	row->outliers = (int64_t)sum.outliers;
	row->instrument = ser->instrument;
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
	bg_db_stmt *s;
	int error;

	if (!n)
		return 0;
	if ((error = store__stmt(ctx, st, ST_OUTCOME_INSERT, &s)) < 0)
		return error;
	for (i = 0; i < n; i++) {
		const bg_outcome *o = bg_results_outcome(res, i);

		if (bg_db_bind_int64(s, 1, run_id) != 0 ||
		    bg_db_bind_text(s, 2, o->benchmark, -1) != 0 ||
		    bg_db_bind_text(s, 3, store__outcome_name(o->status), -1) != 0 ||
		    bg_db_bind_text(s, 4, o->message, -1) != 0 ||
		    bg_db_bind_text(s, 5, bg_results__definition(res, i), -1) != 0)
			return store__bind_fail(ctx, st, s);
		if ((error = store__run(ctx, st, s, "storing outcomes")) < 0)
			return error;
	}
	return 0;
}

/* Series and outcomes of an open run, inside the caller's transaction;
 * keep_dir: as store__series. */
static int store__run_add(bg_ctx *ctx, bg_store *store, int64_t run_id, const bg_results *res,
                          int keep_dir)
{
	size_t i, n = bg_results_series_count(res);
	series_known known = { NULL, NULL, 0 };
	bg_db_result *rows = NULL;
	int error;

	if ((error = store__check_run(ctx, store, run_id)) < 0)
		return error;
	if (n && !(rows = calloc(n, sizeof(*rows))))
		return bg_error_oom(ctx);
	for (i = 0; i < n && error == 0; i++)
		error = store__result_row(ctx, store, bg_results_series(res, i), keep_dir, &known,
		                          &rows[i]);
	store__known_clear(&known);
	if (!error)
		error = bg_db_results_insert(ctx, store->db, &store->batches, run_id, rows, n);
	/* Then every sample in order: the bulk of an import, each backend's
	 * fastest way in. */
	for (i = 0; i < n && error == 0; i++) {
		const bg_series *ser = bg_results_series(res, i);

		if (!rows[i].id)
			error = bg_error_set(ctx, BG_EINPUT,
			                     "run %lld already has series \"%s:%s\"",
			                     (long long)run_id, ser->benchmark, ser->metric);
		else if (store->db->drv->samples(store->db, rows[i].id, ser->values, ser->n) < 0)
			error = store__fail(ctx, store, "storing samples");
	}
	free(rows);
	if (error < 0)
		return error;
	return store__outcomes(ctx, store, run_id, res);
}

/* Marks the run complete, inside the caller's transaction. */
static int store__run_finish(bg_ctx *ctx, bg_store *store, int64_t run_id)
{
	bg_db_stmt *s;
	int error;

	if ((error = store__stmt(ctx, store, ST_RUN_FINISH, &s)) < 0)
		return error;
	if (bg_db_bind_int64(s, 1, run_id) != 0 || bg_db_bind_int64(s, 2, (int64_t)time(NULL)) != 0)
		return store__bind_fail(ctx, store, s);
	if ((error = store__run(ctx, store, s, "finishing the run")) < 0)
		return error;
	if (store->db->drv->changes(store->db) == 0)
		return bg_error_set(ctx, BG_ENOTFOUND, "no run %lld in the database",
		                    (long long)run_id);
	return 0;
}

int bg_store_run_add(bg_ctx *ctx, bg_store *store, int64_t run_id, const bg_results *res)
{
	int error;

	if ((error = store__begin(ctx, store)) < 0)
		return error;
	if ((error = store__run_add(ctx, store, run_id, res, 0)) < 0 ||
	    (error = store__commit(ctx, store)) < 0)
		store__rollback(store);
	return error;
}

int bg_store_run_finish(bg_ctx *ctx, bg_store *store, int64_t run_id)
{
	int error;

	if ((error = store__begin(ctx, store)) < 0)
		return error;
	if ((error = store__run_finish(ctx, store, run_id)) < 0 ||
	    (error = store__commit(ctx, store)) < 0)
		store__rollback(store);
	return error;
}

/* Ctrl-C or SIGTERM while an import is stored: all or nothing, so nothing. */
static int store__interrupted(bg_ctx *ctx)
{
	return bg_ctx_cancelled(ctx) ? bg_error_set(ctx, BG_ERROR, "interrupted; nothing stored")
	                             : 0;
}

/*
 * Whole runs at once (an import): each run's row, series, outcomes and end,
 * all in one write transaction, so that input the store refuses (a unit
 * that contradicts a stored series, or one of an earlier run in the same
 * import) leaves nothing behind: not half of the runs, nor an incomplete
 * run that a later import of the same uid would take as present.
 */
int bg_store_runs_put(bg_ctx *ctx, bg_store *store, const bg_run_info *info,
                      const bg_results *const *res, size_t n, int keep_dir, int64_t *run_ids,
                      size_t *failed)
{
	char uid[33] = "";
	size_t i;
	int error;

	if (failed)
		*failed = n;
	/* Nothing to store (a baseline imported again): no write transaction,
	 * which a read-only database would refuse. */
	if (n == 0)
		return 0;
	for (i = 0; i < n; i++)
		run_ids[i] = 0;
	if ((error = store__begin(ctx, store)) < 0)
		return error;
	for (i = 0; i < n; i++) {
		if ((error = store__interrupted(ctx)) < 0)
			break;
		if ((error = store__run_check(ctx, &info[i], uid)) < 0 ||
		    (error = store__run_insert(ctx, store, &info[i], uid, info[i].uid != NULL,
		                               &run_ids[i])) < 0)
			break;
		if (!run_ids[i]) /* stored already */
			continue;
		if ((error = store__run_add(ctx, store, run_ids[i], res[i], keep_dir)) < 0 ||
		    (error = store__run_finish(ctx, store, run_ids[i])) < 0)
			break;
	}
	if (error == 0)
		error = store__interrupted(ctx);
	if (error < 0 || (error = store__commit(ctx, store)) < 0) {
		store__rollback(store);
		if (failed) /* no run of the input is at fault when interrupted */
			*failed = bg_ctx_cancelled(ctx) ? n : i;
		for (i = 0; i < n; i++)
			run_ids[i] = 0;
	}
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
	bg_db_stmt *s;
	int error = 0, rc;

	*out = NULL;
	if ((error = store__stmt(ctx, store, ST_RUN_FACTS, &s)) < 0)
		return error;
	if (bg_db_bind_int64(s, 1, run_id) != 0)
		return store__bind_fail(ctx, store, s);
	if (bg_machine_new(&m) < 0) {
		error = bg_error_oom(ctx);
		goto cleanup;
	}
	while ((rc = bg_db_step(s)) == BG_DB_ROW) {
		const char *key = (const char *)bg_db_column_text(s, 0);
		const char *value = (const char *)bg_db_column_text(s, 1);

		/* A fact the machine API would refuse (none is stored so) is skipped. */
		if (key && value &&
		    (error = bg_machine_set_fact(m, key, value, bg_db_column_int(s, 2))) ==
		            BG_ENOMEM) {
			error = bg_error_oom(ctx);
			goto cleanup;
		}
		error = 0;
	}
	if (rc != BG_DB_DONE) {
		error = store__fail(ctx, store, "reading a run's machine facts");
		goto cleanup;
	}
	*out = m;
	m = NULL;
cleanup:
	bg_db_reset(s);
	bg_machine_free(m);
	return error;
}

/* How many series match (benchmark, metric); metric NULL: any metric. */
static int store__series_count(bg_ctx *ctx, bg_store *st, const char *benchmark, const char *metric,
                               int64_t *count)
{
	bg_db_stmt *s;
	int error, found;

	if ((error = store__stmt(ctx, st, ST_SERIES_COUNT, &s)) < 0)
		return error;
	if (bg_db_bind_text(s, 1, benchmark, -1) != 0 || bg_db_bind_text(s, 2, metric, -1) != 0)
		return store__bind_fail(ctx, st, s);
	return store__int(ctx, st, s, "finding the series", count, &found);
}

static char *store__col_dup(bg_db_stmt *s, int col)
{
	const char *t = bg_db_column_text(s, col);

	return t ? bg_strdup((const char *)t) : NULL;
}

/* Columns i, i+1, i+2: verdict, first verdict, confirmation, by name. */
static int store__verdict_cols(bg_db_stmt *s, int i, bg_verdict *v, bg_verdict *first,
                               bg_confirm_status *confirm)
{
	const char *c = (const char *)bg_db_column_text(s, i + 2);
	int k;

	if (bg_verdict_from_name((const char *)bg_db_column_text(s, i), v) < 0 ||
	    bg_verdict_from_name((const char *)bg_db_column_text(s, i + 1), first) < 0)
		return BG_EINPUT;
	for (k = 0; k < BG_CONFIRM_COUNT; k++)
		if (c && !strcmp(c, bg_confirm_status_name((bg_confirm_status)k))) {
			*confirm = (bg_confirm_status)k;
			return 0;
		}
	return BG_EINPUT;
}

static int store__history_row(bg_db_stmt *s, bg_history_row *row)
{
	const char *sha = bg_db_column_text(s, 1);
	const char *dir = bg_db_column_text(s, 12);

	memset(row, 0, sizeof(*row));
	row->run_id = bg_db_column_int64(s, 0);
	snprintf(row->sha, sizeof(row->sha), "%s", sha ? (const char *)sha : "");
	row->branch = store__col_dup(s, 2);
	row->dirty = bg_db_column_int(s, 3);
	row->complete = bg_db_column_int(s, 4);
	row->started_at = bg_db_column_int64(s, 5);
	row->author_time = bg_db_column_int64(s, 6);
	row->subject = store__col_dup(s, 7);
	row->machine = store__col_dup(s, 8);
	row->benchmark = store__col_dup(s, 9);
	row->metric = store__col_dup(s, 10);
	row->unit = store__col_dup(s, 11);
	if (!dir || bg_direction_from_name((const char *)dir, &row->direction) < 0)
		row->direction = BG_DIR_LOWER;
	row->summary.n = (size_t)bg_db_column_int64(s, 13);
	row->summary.mean = bg_db_column_double(s, 14);
	row->summary.median = bg_db_column_double(s, 15);
	row->summary.stddev = bg_db_column_double(s, 16);
	row->summary.min = bg_db_column_double(s, 17);
	row->summary.max = bg_db_column_double(s, 18);
	row->paired = bg_db_column_int(s, 19);
	row->recorded = !bg_db_column_is_null(s, 20) &&
	                store__verdict_cols(s, 20, &row->verdict, &row->first, &row->confirm) == 0;
	row->excluded = store__col_dup(s, 23);
	if ((!bg_db_column_is_null(s, 2) && !row->branch) ||
	    (!bg_db_column_is_null(s, 23) && !row->excluded) ||
	    (!bg_db_column_is_null(s, 7) && !row->subject) || !row->machine || !row->benchmark ||
	    !row->metric || !row->unit)
		return BG_ENOMEM;
	return 0;
}

/* Steps a history statement to its end, appending its rows, unless its
 * parameters would not bind (`unbound`); resets it either way. */
static int store__history_rows(bg_ctx *ctx, bg_store *store, bg_db_stmt *s, int unbound,
                               bg_history_row **out, size_t *n, size_t *cap)
{
	int error = 0, rc;

	if (unbound)
		return store__bind_fail(ctx, store, s);
	while ((rc = bg_db_step(s)) == BG_DB_ROW) {
		if (bg_grow((void **)out, cap, *n, sizeof(**out)) < 0) {
			error = bg_error_oom(ctx);
			break;
		}
		/* Counted at once, so a half-filled row is freed with the rest. */
		if (store__history_row(s, &(*out)[(*n)++]) < 0) {
			error = bg_error_oom(ctx);
			break;
		}
	}
	if (error == 0 && rc != BG_DB_DONE)
		error = store__fail(ctx, store, "reading the history");
	bg_db_reset(s);
	return error;
}

/* The ids of the series a history shows. */
static int store__history_ids(bg_ctx *ctx, bg_store *store, const char *benchmark,
                              const char *metric, int64_t **ids, size_t *n)
{
	bg_db_stmt *s;
	size_t cap = 0;
	int error = 0, rc;

	if ((error = store__stmt(ctx, store, ST_HISTORY_IDS, &s)) < 0)
		return error;
	if (bg_db_bind_text(s, 1, benchmark, -1) != 0 || bg_db_bind_text(s, 2, metric, -1) != 0)
		return store__bind_fail(ctx, store, s);
	while ((rc = bg_db_step(s)) == BG_DB_ROW) {
		if (bg_grow((void **)ids, &cap, *n, sizeof(**ids)) < 0) {
			error = bg_error_oom(ctx);
			break;
		}
		(*ids)[(*n)++] = bg_db_column_int64(s, 0);
	}
	if (error == 0 && rc != BG_DB_DONE)
		error = store__fail(ctx, store, "reading the history");
	bg_db_reset(s);
	return error;
}

/* Newest run first, a run's series by metric: ST_HISTORY's order. */
static int cmp_history(const void *a, const void *b)
{
	const bg_history_row *x = a, *y = b;

	if (x->started_at != y->started_at)
		return x->started_at < y->started_at ? 1 : -1;
	if (x->run_id != y->run_id)
		return x->run_id < y->run_id ? 1 : -1;
	return strcmp(x->metric, y->metric);
}

int bg_store_history(bg_ctx *ctx, bg_store *store, const char *series, size_t limit,
                     bg_history_row **rows, size_t *nrows)
{
	const char *colon = series ? strrchr(series, ':') : NULL;
	char *benchmark = NULL;
	const char *metric = NULL;
	bg_history_row *out = NULL;
	size_t n = 0, cap = 0, nids = 0, k;
	int64_t *ids = NULL, per_series = limit < INT64_MAX ? (int64_t)limit : INT64_MAX;
	bg_db_stmt *s = NULL;
	int64_t count = 0;
	int error, unbound;

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

	if (limit && !strcmp(store->db->drv->name, "postgresql")) {
		if ((error = store__stmt(ctx, store, ST_HISTORY_EACH, &s)) < 0)
			goto cleanup;
		unbound = bg_db_bind_text(s, 1, benchmark, -1) != 0 ||
		          bg_db_bind_text(s, 2, metric, -1) != 0 ||
		          bg_db_bind_int64(s, 3, per_series) != 0;
		if ((error = store__history_rows(ctx, store, s, unbound, &out, &n, &cap)) < 0)
			goto cleanup;
		if (n > 1)
			qsort(out, n, sizeof(*out), cmp_history);
	} else if (limit) {
		/* Each series' newest runs, then all of them in one order. */
		if ((error = store__history_ids(ctx, store, benchmark, metric, &ids, &nids)) < 0)
			goto cleanup;
		for (k = 0; k < nids; k++) {
			if ((error = store__stmt(ctx, store, ST_HISTORY_ONE, &s)) < 0)
				goto cleanup;
			unbound = bg_db_bind_int64(s, 1, ids[k]) != 0 ||
			          bg_db_bind_int64(s, 2, per_series) != 0;
			if ((error = store__history_rows(ctx, store, s, unbound, &out, &n, &cap)) <
			    0)
				goto cleanup;
		}
		if (n > 1)
			qsort(out, n, sizeof(*out), cmp_history);
	} else {
		if ((error = store__stmt(ctx, store, ST_HISTORY, &s)) < 0)
			goto cleanup;
		unbound = bg_db_bind_text(s, 1, benchmark, -1) != 0 ||
		          bg_db_bind_text(s, 2, metric, -1) != 0;
		if ((error = store__history_rows(ctx, store, s, unbound, &out, &n, &cap)) < 0)
			goto cleanup;
	}
	*rows = out;
	*nrows = n;
	out = NULL;
	n = 0;

cleanup:
	bg_history_free(out, n);
	free(benchmark);
	free(ids);
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
		free(rows[i].excluded);
	}
	free(rows);
}

int bg_store_run_mean(bg_ctx *ctx, bg_store *store, int64_t run_id, const char *benchmark,
                      const char *metric, double *mean)
{
	bg_db_stmt *s = NULL;
	int error = 0, rc;

	*mean = NAN;
	if ((error = store__stmt(ctx, store, ST_RESULT_FIND, &s)) < 0)
		return error;
	if (bg_db_bind_int64(s, 1, run_id) != 0 || bg_db_bind_text(s, 2, benchmark, -1) != 0 ||
	    bg_db_bind_text(s, 3, metric, -1) != 0)
		return store__bind_fail(ctx, store, s);
	rc = bg_db_step(s);
	if (rc == BG_DB_ROW && !bg_db_column_is_null(s, 2))
		*mean = bg_db_column_double(s, 2);
	else if (rc != BG_DB_ROW && rc != BG_DB_DONE)
		error = store__fail(ctx, store, "finding the series");
	bg_db_reset(s);
	return error;
}

static int store__result_samples(bg_ctx *ctx, bg_store *store, int64_t result_id, size_t expect,
                                 double **values, size_t *n)
{
	double *v = NULL;
	size_t len = 0, cap;
	bg_db_stmt *s = NULL;
	int error = 0, rc;

	*values = NULL;
	*n = 0;
	if ((error = store__stmt(ctx, store, ST_SAMPLES, &s)) < 0)
		return error;
	if (bg_db_bind_int64(s, 1, result_id) != 0)
		return store__bind_fail(ctx, store, s);
	cap = expect > 0 ? expect : 16;
	if (!(v = malloc(cap * sizeof(*v)))) {
		error = bg_error_oom(ctx);
		goto cleanup;
	}
	while ((rc = bg_db_step(s)) == BG_DB_ROW) {
		if (bg_grow((void **)&v, &cap, len, sizeof(*v)) < 0) {
			error = bg_error_oom(ctx);
			goto cleanup;
		}
		v[len++] = bg_db_column_double(s, 0);
	}
	if (rc != BG_DB_DONE) {
		error = store__fail(ctx, store, "reading samples");
		goto cleanup;
	}
	*values = v;
	*n = len;
	v = NULL;

cleanup:
	bg_db_reset(s);
	free(v);
	return error;
}

int bg_store_samples(bg_ctx *ctx, bg_store *store, int64_t run_id, const char *benchmark,
                     const char *metric, double **values, size_t *n)
{
	int64_t result_id = 0, expect = 0;
	bg_db_stmt *s = NULL;
	int error = 0, rc;

	*values = NULL;
	*n = 0;
	if ((error = store__stmt(ctx, store, ST_RESULT_FIND, &s)) < 0)
		return error;
	if (bg_db_bind_int64(s, 1, run_id) != 0 || bg_db_bind_text(s, 2, benchmark, -1) != 0 ||
	    bg_db_bind_text(s, 3, metric, -1) != 0)
		return store__bind_fail(ctx, store, s);
	rc = bg_db_step(s);
	if (rc == BG_DB_ROW) {
		result_id = bg_db_column_int64(s, 0);
		expect = bg_db_column_int64(s, 1);
	} else if (rc != BG_DB_DONE) {
		error = store__fail(ctx, store, "finding the series");
	}
	bg_db_reset(s);
	if (error < 0)
		return error;
	if (rc == BG_DB_DONE)
		return bg_error_set(ctx, BG_ENOTFOUND, "no series \"%s:%s\" in run %lld", benchmark,
		                    metric, (long long)run_id);
	return store__result_samples(ctx, store, result_id, expect > 0 ? (size_t)expect : 0, values,
	                             n);
}

/* ------------------------------------------------------------ run queries */

static void store__copy_sha(char *dst, size_t n, bg_db_stmt *s, int col)
{
	const char *t = bg_db_column_text(s, col);

	snprintf(dst, n, "%s", t ? (const char *)t : "");
}

/* A row of ST_RUN_GET's columns; BG_ENOMEM leaves what was copied to clear. */
static int store__run_row(bg_db_stmt *s, bg_run_row *out)
{
	memset(out, 0, sizeof(*out));
	out->id = bg_db_column_int64(s, 0);
	store__copy_sha(out->sha, sizeof(out->sha), s, 1);
	store__copy_sha(out->uid, sizeof(out->uid), s, 2);
	out->branch = store__col_dup(s, 3);
	out->machine = store__col_dup(s, 4);
	out->source = store__col_dup(s, 5);
	out->dirty = bg_db_column_int(s, 6);
	out->complete = bg_db_column_int(s, 7);
	out->started_at = bg_db_column_int64(s, 8);
	out->author_time = bg_db_column_int64(s, 9);
	out->author = store__col_dup(s, 10);
	out->subject = store__col_dup(s, 11);
	out->excluded = store__col_dup(s, 12);
	out->excluded_at = bg_db_column_int64(s, 13);
	/* A column lost to memory is an error, not a run on no branch. */
	if (!out->machine || !out->source || (!out->branch && !bg_db_column_is_null(s, 3)) ||
	    (!out->author && !bg_db_column_is_null(s, 10)) ||
	    (!out->subject && !bg_db_column_is_null(s, 11)) ||
	    (!out->excluded && !bg_db_column_is_null(s, 12)))
		return BG_ENOMEM;
	return 0;
}

int bg_store_run_get(bg_ctx *ctx, bg_store *store, int64_t run_id, bg_run_row *out)
{
	bg_db_stmt *s;
	int error = 0, rc;

	memset(out, 0, sizeof(*out));
	if ((error = store__stmt(ctx, store, ST_RUN_GET, &s)) < 0)
		return error;
	if (bg_db_bind_int64(s, 1, run_id) != 0)
		return store__bind_fail(ctx, store, s);
	rc = bg_db_step(s);
	if (rc == BG_DB_ROW) {
		if (store__run_row(s, out) < 0)
			error = bg_error_oom(ctx);
	} else if (rc == BG_DB_DONE) {
		error = bg_error_set(ctx, BG_ENOTFOUND, "no run %lld in the database",
		                     (long long)run_id);
	} else {
		error = store__fail(ctx, store, "reading a run");
	}
	bg_db_reset(s);
	if (error < 0)
		bg_run_row_clear(out);
	return error;
}

/* ST_RUN_EXCLUDE or ST_RUN_INCLUDE on one run, which must exist. */
static int store__set_excluded(bg_ctx *ctx, bg_store *store, int64_t run_id, const char *reason,
                               int64_t at, int *changed)
{
	bg_db_stmt *s;
	int error, rc;

	*changed = 0;
	if ((error = store__stmt(ctx, store, reason ? ST_RUN_EXCLUDE : ST_RUN_INCLUDE, &s)) < 0)
		return error;
	if (bg_db_bind_int64(s, 1, run_id) != 0 ||
	    (reason && (bg_db_bind_text(s, 2, reason, -1) != 0 || bg_db_bind_int64(s, 3, at) != 0)))
		return store__bind_fail(ctx, store, s);
	if ((error = store__run(ctx, store, s, reason ? "excluding a run" : "including a run")) < 0)
		return error;
	if ((*changed = store->db->drv->changes(store->db) == 1))
		return 0;
	/* Nothing changed: already as asked, or no such run. */
	if ((error = store__stmt(ctx, store, ST_RUN_STATUS, &s)) < 0)
		return error;
	if (bg_db_bind_int64(s, 1, run_id) != 0)
		return store__bind_fail(ctx, store, s);
	rc = bg_db_step(s);
	if (rc == BG_DB_ROW)
		error = 0;
	else if (rc != BG_DB_DONE)
		error = store__fail(ctx, store, "reading a run");
	else
		error = bg_error_set(ctx, BG_ENOTFOUND, "no run %lld in the database",
		                     (long long)run_id);
	bg_db_reset(s);
	return error;
}

int bg_store_run_exclude(bg_ctx *ctx, bg_store *store, int64_t run_id, const char *reason,
                         int64_t at, int *changed)
{
	const char *bad;
	size_t len = reason ? strlen(reason) : 0, where = 0;

	*changed = 0;
	/* It is printed in terminals and tables: refused here, not escaped
	 * forever after. */
	if (!len)
		return bg_error_set(ctx, BG_EINPUT, "a run is excluded for a reason: it is empty");
	if (len > BG_EXCLUDE_REASON_MAX)
		return bg_error_set(ctx, BG_EINPUT, "the reason is %zu bytes long (at most %d)",
		                    len, BG_EXCLUDE_REASON_MAX);
	if ((bad = bg_text__invalid(reason, len, &where)))
		return bg_error_set(ctx, BG_EINPUT, "the reason has %s at byte %zu", bad, where);
	return store__set_excluded(ctx, store, run_id, reason, at, changed);
}

int bg_store_run_include(bg_ctx *ctx, bg_store *store, int64_t run_id, int *changed)
{
	return store__set_excluded(ctx, store, run_id, NULL, 0, changed);
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
	free(row->excluded);
	memset(row, 0, sizeof(*row));
}

int bg_store_run_by_uid(bg_ctx *ctx, bg_store *store, const char *uid, int64_t *run_id)
{
	bg_db_stmt *s;
	int error, found;

	*run_id = 0;
	if ((error = store__stmt(ctx, store, ST_RUN_BY_UID, &s)) < 0)
		return error;
	if (bg_db_bind_text(s, 1, uid, -1) != 0)
		return store__bind_fail(ctx, store, s);
	return store__int(ctx, store, s, "finding a run", run_id, &found);
}

int bg_store_latest_run(bg_ctx *ctx, bg_store *store, const char *machine, int64_t *run_id)
{
	bg_db_stmt *s;
	int error, found = 0;
	size_t n;

	*run_id = 0;
	if ((error = store__stmt(ctx, store, ST_RUN_LATEST, &s)) < 0)
		return error;
	if (bg_db_bind_text(s, 1, machine, -1) != 0)
		return store__bind_fail(ctx, store, s);
	if ((error = store__int(ctx, store, s, "finding the latest run", run_id, &found)) < 0)
		return error;
	if (found)
		return 0;
	/* Runs there are, all set aside: said, or they would seem lost. */
	if ((error = bg_store_excluded_count(ctx, store, machine, 0, &n)) < 0)
		return error;
	if (n)
		return bg_error_set(ctx, BG_ENOTFOUND,
		                    "no complete run%s%s that is not excluded (%zu excluded: "
		                    "exclude --list)",
		                    machine ? " on machine " : "", machine ? machine : "", n);
	return bg_error_set(ctx, BG_ENOTFOUND, "no complete run%s%s in the database yet",
	                    machine ? " on machine " : "", machine ? machine : "");
}

int bg_store_excluded_count(bg_ctx *ctx, bg_store *store, const char *machine, int64_t since,
                            size_t *n)
{
	bg_db_stmt *s;
	int64_t v = 0;
	int error, found;

	*n = 0;
	if ((error = store__stmt(ctx, store, ST_EXCLUDED_COUNT, &s)) < 0)
		return error;
	if (bg_db_bind_text(s, 1, machine, -1) != 0 || bg_db_bind_int64(s, 2, since) != 0)
		return store__bind_fail(ctx, store, s);
	if ((error = store__int(ctx, store, s, "counting the excluded runs", &v, &found)) < 0)
		return error;
	*n = (size_t)v;
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
	bg_db_stmt *s;
	int error = 0, rc;

	*run_ids = NULL;
	*n = 0;
	if ((error = store__stmt(ctx, store, ST_RUNS_AT, &s)) < 0)
		return error;
	if (bg_db_bind_text(s, 1, sha, -1) != 0 || bg_db_bind_text(s, 2, machine, -1) != 0 ||
	    bg_db_bind_int64(s, 3, dirty) != 0 ||
	    (tag ? bg_db_bind_text(s, 4, tag, -1) : bg_db_bind_null(s, 4)) != 0)
		return store__bind_fail(ctx, store, s);
	while ((rc = bg_db_step(s)) == BG_DB_ROW) {
		if (bg_grow((void **)&ids, &cap, len, sizeof(*ids)) < 0) {
			error = bg_error_oom(ctx);
			goto cleanup;
		}
		ids[len++] = bg_db_column_int64(s, 0);
	}
	if (rc != BG_DB_DONE) {
		error = store__fail(ctx, store, "finding the runs of a commit");
		goto cleanup;
	}
	*run_ids = ids;
	*n = len;
	ids = NULL;
cleanup:
	bg_db_reset(s);
	free(ids);
	return error;
}

int bg_store_pair_record(bg_ctx *ctx, bg_store *store, int64_t ref_id, int64_t cand_id)
{
	bg_db_stmt *s;
	int error;

	if ((error = store__begin(ctx, store)) < 0)
		return error;
	if ((error = store__stmt(ctx, store, ST_PAIR_RECORD, &s)) < 0)
		goto cleanup;
	if (bg_db_bind_int64(s, 1, ref_id) != 0 || bg_db_bind_int64(s, 2, cand_id) != 0) {
		error = store__bind_fail(ctx, store, s);
		goto cleanup;
	}
	if ((error = store__run(ctx, store, s, "recording a pair")) < 0)
		goto cleanup;
	/* Both, or neither: a run of its own is no pair. */
	if (ref_id == cand_id || store->db->drv->changes(store->db) != 2) {
		error = bg_error_set(ctx, BG_ENOTFOUND,
		                     "runs %lld and %lld are not two complete runs to pair",
		                     (long long)ref_id, (long long)cand_id);
		goto cleanup;
	}
	error = store__commit(ctx, store);
cleanup:
	if (error < 0)
		store__rollback(store);
	return error;
}

int bg_store_pairs_tagged(bg_ctx *ctx, bg_store *store, const char *machine, int dirty,
                          const char *ref_sha, const char *ref_tag, const char *cand_sha,
                          const char *cand_tag, int64_t **ref_ids, int64_t **cand_ids, size_t *n)
{
	int64_t *r = NULL, *c = NULL;
	size_t len = 0, rcap = 0, ccap = 0;
	bg_db_stmt *s;
	int error = 0, rc;

	*ref_ids = *cand_ids = NULL;
	*n = 0;
	if ((error = store__stmt(ctx, store, ST_PAIRS_AT, &s)) < 0)
		return error;
	if (bg_db_bind_text(s, 1, ref_sha, -1) != 0 ||
	    (ref_tag ? bg_db_bind_text(s, 2, ref_tag, -1) : bg_db_bind_null(s, 2)) != 0 ||
	    bg_db_bind_text(s, 3, cand_sha, -1) != 0 ||
	    (cand_tag ? bg_db_bind_text(s, 4, cand_tag, -1) : bg_db_bind_null(s, 4)) != 0 ||
	    bg_db_bind_text(s, 5, machine, -1) != 0 || bg_db_bind_int64(s, 6, dirty) != 0)
		return store__bind_fail(ctx, store, s);
	while ((rc = bg_db_step(s)) == BG_DB_ROW) {
		if (bg_grow((void **)&r, &rcap, len, sizeof(*r)) < 0 ||
		    bg_grow((void **)&c, &ccap, len, sizeof(*c)) < 0) {
			error = bg_error_oom(ctx);
			goto cleanup;
		}
		r[len] = bg_db_column_int64(s, 0);
		c[len++] = bg_db_column_int64(s, 1);
	}
	if (rc != BG_DB_DONE) {
		error = store__fail(ctx, store, "finding the pairs of two commits");
		goto cleanup;
	}
	*ref_ids = r;
	*cand_ids = c;
	*n = len;
	r = c = NULL;
cleanup:
	bg_db_reset(s);
	free(r);
	free(c);
	return error;
}

int bg_store_baseline_runs(bg_ctx *ctx, bg_store *store, const char *machine, bg_run_ref **refs,
                           size_t *n)
{
	bg_run_ref *r = NULL;
	size_t len = 0, cap = 0;
	bg_db_stmt *s;
	int error = 0, rc;

	*refs = NULL;
	*n = 0;
	if ((error = store__stmt(ctx, store, ST_BASELINE_RUNS, &s)) < 0)
		return error;
	if (bg_db_bind_text(s, 1, machine, -1) != 0)
		return store__bind_fail(ctx, store, s);
	while ((rc = bg_db_step(s)) == BG_DB_ROW) {
		if (bg_grow((void **)&r, &cap, len, sizeof(*r)) < 0) {
			error = bg_error_oom(ctx);
			goto cleanup;
		}
		r[len].id = bg_db_column_int64(s, 0);
		store__copy_sha(r[len].sha, sizeof(r[len].sha), s, 1);
		r[len].author_time = bg_db_column_int64(s, 2);
		len++;
	}
	if (rc != BG_DB_DONE) {
		error = store__fail(ctx, store, "listing baseline runs");
		goto cleanup;
	}
	*refs = r;
	*n = len;
	r = NULL;
cleanup:
	bg_db_reset(s);
	free(r);
	return error;
}

int bg_store_other_machines(bg_ctx *ctx, bg_store *store, const char *machine, size_t max,
                            bg_machine_runs **out, size_t *n)
{
	bg_machine_runs *r = NULL;
	size_t len = 0;
	bg_db_stmt *s;
	int error = 0, rc;

	*out = NULL;
	*n = 0;
	if (!max)
		return 0;
	if (!(r = calloc(max, sizeof(*r))))
		return bg_error_oom(ctx);
	if ((error = store__stmt(ctx, store, ST_OTHER_MACHINES, &s)) < 0)
		goto cleanup;
	if (bg_db_bind_text(s, 1, machine, -1) != 0 || bg_db_bind_int64(s, 2, (int64_t)max) != 0) {
		error = store__bind_fail(ctx, store, s);
		goto cleanup;
	}
	while (len < max && (rc = bg_db_step(s)) == BG_DB_ROW) {
		const char *fp = bg_db_column_text(s, 0);

		if (!(r[len].machine = bg_strdup(fp ? fp : ""))) {
			error = bg_error_oom(ctx);
			goto done;
		}
		r[len].runs = (size_t)bg_db_column_int64(s, 1);
		r[len].newest = bg_db_column_int64(s, 2);
		len++;
	}
	if (len < max && rc != BG_DB_DONE)
		error = store__fail(ctx, store, "listing the other machines' runs");
done:
	bg_db_reset(s);
	if (error == 0) {
		*out = r;
		*n = len;
		r = NULL;
	}
cleanup:
	bg_store_machine_runs_free(r, max);
	return error;
}

void bg_store_machine_runs_free(bg_machine_runs *r, size_t n)
{
	size_t i;

	if (!r)
		return;
	for (i = 0; i < n; i++)
		free(r[i].machine);
	free(r);
}

/* A run summary from columns n, mean, median, stddev, min, max, robust
 * mean and outliers, starting at `col`. */
static void store__summary(bg_db_stmt *s, int col, bg_summary *out)
{
	out->n = (size_t)bg_db_column_int64(s, col);
	out->mean = bg_db_column_double(s, col + 1);
	out->median = bg_db_column_double(s, col + 2);
	out->stddev = bg_db_column_double(s, col + 3);
	out->min = bg_db_column_double(s, col + 4);
	out->max = bg_db_column_double(s, col + 5);
	out->robust_mean = bg_db_column_double(s, col + 6);
	out->outliers = (size_t)bg_db_column_int64(s, col + 7);
}

int bg_store_run_series(bg_ctx *ctx, bg_store *store, int64_t run_id, bg_run_series **rows,
                        size_t *n)
{
	bg_run_series *r = NULL;
	size_t len = 0, cap = 0;
	bg_db_stmt *s;
	int error = 0, rc;

	*rows = NULL;
	*n = 0;
	if ((error = store__stmt(ctx, store, ST_RUN_SERIES, &s)) < 0)
		return error;
	if (bg_db_bind_int64(s, 1, run_id) != 0)
		return store__bind_fail(ctx, store, s);
	while ((rc = bg_db_step(s)) == BG_DB_ROW) {
		const char *dir = bg_db_column_text(s, 4);
		bg_run_series *x;

		if (bg_grow((void **)&r, &cap, len, sizeof(*r)) < 0) {
			error = bg_error_oom(ctx);
			goto cleanup;
		}
		x = &r[len++];
		memset(x, 0, sizeof(*x));
		x->series_id = bg_db_column_int64(s, 0);
		x->benchmark = store__col_dup(s, 1);
		x->metric = store__col_dup(s, 2);
		x->unit = store__col_dup(s, 3);
		if (!dir || bg_direction_from_name((const char *)dir, &x->direction) < 0)
			x->direction = BG_DIR_LOWER;
		store__summary(s, 5, &x->summary);
		x->instrument = store__col_dup(s, 13);
		if (!x->benchmark || !x->metric || !x->unit ||
		    (!x->instrument && !bg_db_column_is_null(s, 13))) {
			error = bg_error_oom(ctx);
			goto cleanup;
		}
	}
	if (rc != BG_DB_DONE) {
		error = store__fail(ctx, store, "reading a run's series");
		goto cleanup;
	}
	*rows = r;
	*n = len;
	r = NULL;
	len = 0;
cleanup:
	bg_db_reset(s);
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

int bg_store_series_avail(bg_ctx *ctx, bg_store *store, int64_t run_id, const char *machine,
                          const char *exclude_sha, size_t limit, bg_series_count_cb cb, void *data)
{
	bg_db_stmt *s;
	int error = 0, rc;

	if ((error = store__stmt(ctx, store, ST_SERIES_AVAIL, &s)) < 0)
		return error;
	if (bg_db_bind_int64(s, 1, run_id) != 0 || bg_db_bind_text(s, 2, machine, -1) != 0 ||
	    bg_db_bind_text(s, 3, exclude_sha, -1) != 0 ||
	    bg_db_bind_int64(s, 4, limit > INT64_MAX ? INT64_MAX : (int64_t)limit) != 0)
		return store__bind_fail(ctx, store, s);
	while ((rc = bg_db_step(s)) == BG_DB_ROW) {
		int64_t n = bg_db_column_int64(s, 1);

		cb(bg_db_column_int64(s, 0), n > 0 ? (size_t)n : 0, data);
	}
	if (rc != BG_DB_DONE)
		error = store__fail(ctx, store, "counting the series' baseline runs");
	bg_db_reset(s);
	return error;
}

int bg_store_machine_avail(bg_ctx *ctx, bg_store *store, const char *machine,
                           const char *exclude_sha, size_t limit, bg_series_count_cb cb, void *data)
{
	bg_db_stmt *s;
	int error = 0, rc;

	if ((error = store__stmt(ctx, store, ST_MACHINE_AVAIL, &s)) < 0)
		return error;
	if (bg_db_bind_text(s, 1, machine, -1) != 0 ||
	    bg_db_bind_text(s, 2, exclude_sha, -1) != 0 ||
	    bg_db_bind_int64(s, 3, limit > INT64_MAX ? INT64_MAX : (int64_t)limit) != 0)
		return store__bind_fail(ctx, store, s);
	while ((rc = bg_db_step(s)) == BG_DB_ROW) {
		int64_t n = bg_db_column_int64(s, 1);

		cb(bg_db_column_int64(s, 0), n > 0 ? (size_t)n : 0, data);
	}
	if (rc != BG_DB_DONE)
		error = store__fail(ctx, store, "counting the series' baseline runs");
	bg_db_reset(s);
	return error;
}

void bg_series_samples_free(bg_series_samples *v, size_t n)
{
	size_t i;

	if (!v)
		return;
	for (i = 0; i < n; i++)
		free(v[i].values);
	free(v);
}

int bg_store_run_samples(bg_ctx *ctx, bg_store *store, int64_t run_id, bg_series_samples **out,
                         size_t *nout)
{
	bg_series_samples *v = NULL;
	size_t len = 0, cap = 0, vcap = 0;
	bg_db_stmt *s;
	int error = 0, rc;

	*out = NULL;
	*nout = 0;
	if ((error = store__stmt(ctx, store, ST_RUN_SAMPLES, &s)) < 0)
		return error;
	if (bg_db_bind_int64(s, 1, run_id) != 0)
		return store__bind_fail(ctx, store, s);
	while ((rc = bg_db_step(s)) == BG_DB_ROW) {
		int64_t id = bg_db_column_int64(s, 0);
		bg_series_samples *cur;

		if (!len || v[len - 1].series_id != id) {
			if (bg_grow((void **)&v, &cap, len, sizeof(*v)) < 0) {
				error = bg_error_oom(ctx);
				goto cleanup;
			}
			memset(&v[len], 0, sizeof(*v));
			v[len++].series_id = id;
			vcap = 0;
		}
		cur = &v[len - 1];
		if (bg_grow((void **)&cur->values, &vcap, cur->n, sizeof(*cur->values)) < 0) {
			error = bg_error_oom(ctx);
			goto cleanup;
		}
		cur->values[cur->n++] = bg_db_column_double(s, 1);
	}
	if (rc != BG_DB_DONE) {
		error = store__fail(ctx, store, "reading a run's samples");
		goto cleanup;
	}
	*out = v;
	*nout = len;
	v = NULL;
	len = 0;
cleanup:
	bg_db_reset(s);
	bg_series_samples_free(v, len);
	return error;
}

int bg_store_run_means(bg_ctx *ctx, bg_store *store, int64_t run_id, int64_t **series_ids,
                       double **means, char ***instruments, size_t *n)
{
	int64_t *ids = NULL;
	double *m = NULL;
	char **inst = NULL;
	size_t len = 0, cap = 0, mcap = 0, icap = 0;
	bg_db_stmt *s;
	int error = 0, rc;

	*series_ids = NULL;
	*means = NULL;
	if (instruments)
		*instruments = NULL;
	*n = 0;
	if ((error = store__stmt(ctx, store, ST_RUN_MEANS, &s)) < 0)
		return error;
	if (bg_db_bind_int64(s, 1, run_id) != 0)
		return store__bind_fail(ctx, store, s);
	while ((rc = bg_db_step(s)) == BG_DB_ROW) {
		if (bg_grow((void **)&ids, &cap, len, sizeof(*ids)) < 0 ||
		    bg_grow((void **)&m, &mcap, len, sizeof(*m)) < 0 ||
		    (instruments && bg_grow((void **)&inst, &icap, len, sizeof(*inst)) < 0)) {
			error = bg_error_oom(ctx);
			goto cleanup;
		}
		ids[len] = bg_db_column_int64(s, 0);
		m[len] = bg_db_column_double(s, 1);
		if (instruments) {
			inst[len] = store__col_dup(s, 2);
			if (!inst[len] && !bg_db_column_is_null(s, 2)) {
				error = bg_error_oom(ctx);
				goto cleanup;
			}
		}
		len++;
	}
	if (rc != BG_DB_DONE) {
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
	bg_db_reset(s);
	free(ids);
	free(m);
	bg_strings_free(inst, len);
	return error;
}

int bg_store_run_outcomes(bg_ctx *ctx, bg_store *store, int64_t run_id, bg_outcome **out, size_t *n)
{
	bg_outcome *o = NULL;
	size_t len = 0, cap = 0;
	bg_db_stmt *s;
	int error = 0, rc;

	*out = NULL;
	*n = 0;
	if ((error = store__stmt(ctx, store, ST_RUN_OUTCOMES, &s)) < 0)
		return error;
	if (bg_db_bind_int64(s, 1, run_id) != 0)
		return store__bind_fail(ctx, store, s);
	while ((rc = bg_db_step(s)) == BG_DB_ROW) {
		const char *status = bg_db_column_text(s, 1);

		if (bg_grow((void **)&o, &cap, len, sizeof(*o)) < 0) {
			error = bg_error_oom(ctx);
			goto cleanup;
		}
		o[len].benchmark = store__col_dup(s, 0);
		o[len].message = store__col_dup(s, 2);
		o[len].status = status && !strcmp((const char *)status, "skipped")
		                        ? BG_BENCH_SKIPPED
		                        : BG_BENCH_FAILED;
		/* A message lost to memory is an error, not an outcome without one. */
		if (!o[len++].benchmark || (!o[len - 1].message && !bg_db_column_is_null(s, 2))) {
			error = bg_error_oom(ctx);
			goto cleanup;
		}
	}
	if (rc != BG_DB_DONE) {
		error = store__fail(ctx, store, "reading a run's outcomes");
		goto cleanup;
	}
	*out = o;
	*n = len;
	o = NULL;
	len = 0;
cleanup:
	bg_db_reset(s);
	bg_outcomes_free(o, len);
	return error;
}

int bg_store_run_defined(bg_ctx *ctx, bg_store *store, int64_t run_id, const char *benchmark,
                         const char *definition, int *yes)
{
	bg_db_stmt *s;
	int error = 0, rc;

	*yes = 0;
	if ((error = store__stmt(ctx, store, ST_RUN_DEFINED, &s)) < 0)
		return error;
	if (bg_db_bind_int64(s, 1, run_id) != 0 || bg_db_bind_text(s, 2, benchmark, -1) != 0 ||
	    bg_db_bind_text(s, 3, definition, -1) != 0)
		return store__bind_fail(ctx, store, s);
	rc = bg_db_step(s);
	if (rc == BG_DB_ROW)
		*yes = 1;
	else if (rc != BG_DB_DONE)
		error = store__fail(ctx, store, "reading a run's outcomes");
	bg_db_reset(s);
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
	bg_db_stmt *s;
	int error = 0, rc;

	*tags = NULL;
	if ((error = store__stmt(ctx, store, ST_RUN_TAGS, &s)) < 0)
		return error;
	if (bg_db_bind_int64(s, 1, run_id) != 0)
		return store__bind_fail(ctx, store, s);
	for (;;) {
		if (bg_grow((void **)&v, &cap, len + 1, sizeof(*v)) < 0) {
			error = bg_error_oom(ctx);
			goto cleanup;
		}
		v[len] = NULL;
		if ((rc = bg_db_step(s)) != BG_DB_ROW)
			break;
		if (!(v[len++] = store__col_dup(s, 0))) {
			error = bg_error_oom(ctx);
			goto cleanup;
		}
	}
	if (rc != BG_DB_DONE) {
		error = store__fail(ctx, store, "reading a run's tags");
		goto cleanup;
	}
	*tags = v;
	v = NULL;
cleanup:
	bg_db_reset(s);
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
static int store__bind_build_key(bg_db_stmt *s, const char *sha, const char *machine,
                                 const char *command_hash)
{
	return bg_db_bind_text(s, 1, sha, -1) != 0 || bg_db_bind_text(s, 2, machine, -1) != 0 ||
	       bg_db_bind_text(s, 3, command_hash, -1) != 0;
}

int bg_store_build_get(bg_ctx *ctx, bg_store *store, const char *sha, const char *machine,
                       const char *command_hash, bg_build_row *out)
{
	bg_db_stmt *s;
	int error, rc;

	memset(out, 0, sizeof(*out));
	if (!sha || !machine || !command_hash)
		return bg_error_set(ctx, BG_EINPUT,
		                    "a build is keyed by commit, machine and command");
	if ((error = store__stmt(ctx, store, ST_BUILD_GET, &s)) < 0)
		return error;
	if (store__bind_build_key(s, sha, machine, command_hash))
		return store__bind_fail(ctx, store, s);
	rc = bg_db_step(s);
	if (rc == BG_DB_ROW) {
		out->found = 1;
		out->ok = bg_db_column_int(s, 0);
		out->seconds = bg_db_column_double(s, 2);
		out->finished_at = bg_db_column_int64(s, 3);
		if (!bg_db_column_is_null(s, 1) && !(out->log_tail = store__col_dup(s, 1)))
			error = bg_error_oom(ctx);
	} else if (rc != BG_DB_DONE) {
		error = store__fail(ctx, store, "reading a build");
	}
	bg_db_reset(s);
	if (error < 0)
		bg_build_row_clear(out);
	return error;
}

int bg_store_build_put(bg_ctx *ctx, bg_store *store, const char *sha, const char *machine,
                       const char *command_hash, int ok, const char *log_tail, double seconds)
{
	bg_db_stmt *s;
	int error;

	if (!sha || !machine || !command_hash)
		return bg_error_set(ctx, BG_EINPUT,
		                    "a build is keyed by commit, machine and command");
	if ((error = store__stmt(ctx, store, ST_BUILD_PUT, &s)) < 0)
		return error;
	if (store__bind_build_key(s, sha, machine, command_hash) ||
	    bg_db_bind_int64(s, 4, ok ? 1 : 0) != 0 || bg_db_bind_text(s, 5, log_tail, -1) != 0 ||
	    bg_db_bind_double(s, 6, seconds) != 0 ||
	    bg_db_bind_int64(s, 7, (int64_t)time(NULL)) != 0)
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
	bg_db_stmt *s;
	int error, found = 0;

	*id = 0;
	if (!row->uid[0] || !row->kind || !row->target || !row->label || !row->mode || !row->body)
		return bg_error_set(ctx, BG_EINPUT, "an outbox entry needs its target and body");
	if ((error = store__stmt(ctx, store, ST_OUTBOX_ADD, &s)) < 0)
		return error;
	if (bg_db_bind_text(s, 1, row->uid, -1) != 0 || bg_db_bind_text(s, 2, row->kind, -1) != 0 ||
	    bg_db_bind_text(s, 3, row->target, -1) != 0 ||
	    bg_db_bind_text(s, 4, row->label, -1) != 0 || bg_db_bind_text(s, 5, row->pr, -1) != 0 ||
	    bg_db_bind_text(s, 6, row->mode, -1) != 0 ||
	    bg_db_bind_text(s, 7, row->body, -1) != 0 ||
	    (row->run_id > 0 ? bg_db_bind_int64(s, 8, row->run_id) : bg_db_bind_null(s, 8)) != 0 ||
	    bg_db_bind_int64(s, 9, row->created_at ? row->created_at : (int64_t)time(NULL)) != 0)
		return store__bind_fail(ctx, store, s);
	/* One statement: committed (durably, before anything is sent) on its own. */
	return store__int(ctx, store, s, "storing an alert", id, &found);
}

static int store__outbox_row(bg_db_stmt *s, bg_outbox_row *r)
{
	const char *uid = bg_db_column_text(s, 1);

	memset(r, 0, sizeof(*r));
	r->id = bg_db_column_int64(s, 0);
	snprintf(r->uid, sizeof(r->uid), "%s", uid ? (const char *)uid : "");
	r->kind = store__col_dup(s, 2);
	r->target = store__col_dup(s, 3);
	r->label = store__col_dup(s, 4);
	r->pr = store__col_dup(s, 5);
	r->mode = store__col_dup(s, 6);
	r->body = store__col_dup(s, 7);
	r->run_id = bg_db_column_int64(s, 8);
	r->state = store__col_dup(s, 9);
	r->created_at = bg_db_column_int64(s, 10);
	r->attempts = bg_db_column_int(s, 11);
	r->last_status = bg_db_column_int(s, 12);
	r->last_error = store__col_dup(s, 13);
	r->delivered_at = bg_db_column_int64(s, 14);
	if (!r->kind || !r->target || !r->label || !r->mode || !r->body || !r->state ||
	    (!bg_db_column_is_null(s, 5) && !r->pr) ||
	    (!bg_db_column_is_null(s, 13) && !r->last_error))
		return BG_ENOMEM;
	return 0;
}

int bg_store_outbox_list(bg_ctx *ctx, bg_store *store, const char *state, bg_outbox_row **rows,
                         size_t *n)
{
	bg_outbox_row *v = NULL;
	size_t len = 0, cap = 0;
	bg_db_stmt *s;
	int error = 0, rc;

	*rows = NULL;
	*n = 0;
	if ((error = store__stmt(ctx, store, ST_OUTBOX_LIST, &s)) < 0)
		return error;
	if (bg_db_bind_text(s, 1, state, -1) != 0)
		return store__bind_fail(ctx, store, s);
	while ((rc = bg_db_step(s)) == BG_DB_ROW) {
		if (bg_grow((void **)&v, &cap, len + 1, sizeof(*v)) < 0) {
			error = bg_error_oom(ctx);
			goto cleanup;
		}
		if (store__outbox_row(s, &v[len++]) < 0) {
			error = bg_error_oom(ctx);
			goto cleanup;
		}
	}
	if (rc != BG_DB_DONE) {
		error = store__fail(ctx, store, "reading the alert outbox");
		goto cleanup;
	}
	*rows = v;
	*n = len;
	v = NULL;
	len = 0;
cleanup:
	bg_db_reset(s);
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
	bg_db_stmt *s;
	int error;

	*claimed = 0;
	if ((error = store__stmt(ctx, store, ST_OUTBOX_CLAIM, &s)) < 0)
		return error;
	if (bg_db_bind_int64(s, 1, id) != 0 || bg_db_bind_int64(s, 2, until) != 0 ||
	    bg_db_bind_int64(s, 3, (int64_t)time(NULL)) != 0)
		return store__bind_fail(ctx, store, s);
	/* The test and the claim are one UPDATE: of two processes, one wins. */
	if ((error = store__run(ctx, store, s, "claiming an alert")) < 0)
		return error;
	*claimed = store->db->drv->changes(store->db) == 1;
	return 0;
}

int bg_store_outbox_held(bg_ctx *ctx, bg_store *store, int64_t id, int64_t *until)
{
	bg_db_stmt *s;
	int error, found;

	*until = 0;
	if ((error = store__stmt(ctx, store, ST_OUTBOX_HELD, &s)) < 0)
		return error;
	if (bg_db_bind_int64(s, 1, id) != 0)
		return store__bind_fail(ctx, store, s);
	return store__int(ctx, store, s, "reading an alert's claim", until, &found);
}

int bg_store_outbox_settle(bg_ctx *ctx, bg_store *store, int64_t id, const char *state,
                           int attempts, int last_status, const char *last_error)
{
	bg_db_stmt *s;
	int error;

	if (strcmp(state, "pending") && strcmp(state, "delivered") && strcmp(state, "failed") &&
	    strcmp(state, "superseded"))
		return bg_error_set(ctx, BG_EINPUT, "unknown outbox state \"%s\"", state);
	if ((error = store__stmt(ctx, store, ST_OUTBOX_SETTLE, &s)) < 0)
		return error;
	if (bg_db_bind_int64(s, 1, id) != 0 || bg_db_bind_text(s, 2, state, -1) != 0 ||
	    bg_db_bind_int64(s, 3, attempts) != 0 ||
	    (last_status > 0 ? bg_db_bind_int64(s, 4, last_status) : bg_db_bind_null(s, 4)) != 0 ||
	    bg_db_bind_text(s, 5, last_error, -1) != 0 ||
	    bg_db_bind_int64(s, 6, (int64_t)time(NULL)) != 0)
		return store__bind_fail(ctx, store, s);
	return store__run(ctx, store, s, "recording an alert's delivery");
}

int bg_store_outbox_prune(bg_ctx *ctx, bg_store *store, int64_t before)
{
	bg_db_stmt *s;
	int error;

	/* Housekeeping: a database that may not be written keeps its old
	 * entries, and `alert flush` with nothing to deliver reads alone. */
	if (store->db->readonly)
		return 0;
	if ((error = store__stmt(ctx, store, ST_OUTBOX_PRUNE, &s)) < 0)
		return error;
	if (bg_db_bind_int64(s, 1, before) != 0)
		return store__bind_fail(ctx, store, s);
	return store__run(ctx, store, s, "pruning the alert outbox");
}

/* -------------------------------------------------------------------- prune */

int bg_store_max_run_id(bg_ctx *ctx, bg_store *store, int64_t *id)
{
	bg_db_stmt *s;
	int error, found;

	*id = 0;
	if ((error = store__stmt(ctx, store, ST_RUN_MAX_ID, &s)) < 0)
		return error;
	return store__int(ctx, store, s, "finding the newest run", id, &found);
}

int bg_store_mixed_series(bg_ctx *ctx, bg_store *store, const char *machine, int64_t **ids,
                          size_t *n)
{
	int64_t *out = NULL;
	size_t len = 0, cap = 0;
	bg_db_stmt *s;
	int error = 0, rc;

	*ids = NULL;
	*n = 0;
	if ((error = store__stmt(ctx, store, ST_MIXED_SERIES, &s)) < 0)
		return error;
	if (bg_db_bind_text(s, 1, machine, -1) != 0)
		return store__bind_fail(ctx, store, s);
	while ((rc = bg_db_step(s)) == BG_DB_ROW) {
		if (bg_grow((void **)&out, &cap, len, sizeof(*out)) < 0) {
			error = bg_error_oom(ctx);
			break;
		}
		out[len++] = bg_db_column_int64(s, 0);
	}
	if (!error && rc != BG_DB_DONE)
		error = store__fail(ctx, store, "listing series of two instruments");
	bg_db_reset(s);
	if (error < 0) {
		free(out);
		return error;
	}
	*ids = out;
	*n = len;
	return 0;
}

int bg_store_baseline_machines(bg_ctx *ctx, bg_store *store, char ***fps, size_t *n)
{
	char **out = NULL;
	size_t len = 0, cap = 0;
	bg_db_stmt *s;
	int error = 0, rc;

	*fps = NULL;
	*n = 0;
	if ((error = store__stmt(ctx, store, ST_BASELINE_MACHINES, &s)) < 0)
		return error;
	while ((rc = bg_db_step(s)) == BG_DB_ROW) {
		if (bg_grow((void **)&out, &cap, len, sizeof(*out)) < 0 ||
		    !(out[len] = store__col_dup(s, 0))) {
			error = bg_error_oom(ctx);
			break;
		}
		len++;
	}
	if (!error && rc != BG_DB_DONE)
		error = store__fail(ctx, store, "listing machines");
	bg_db_reset(s);
	if (error < 0) {
		bg_strings_free(out, len);
		return error;
	}
	*fps = out;
	*n = len;
	return 0;
}

/* Runs deleted a transaction at a time: a writer waiting for the database
 * (a ci storing its run) waits for one batch, not for the whole prune. */
#define PRUNE_BATCH 64

int bg_store_prune(bg_ctx *ctx, bg_store *store, const bg_prune_opts *opts, bg_prune_stats *stats)
{
	int64_t *ids = NULL;
	size_t n = 0, cap = 0, i = 0, j;
	bg_db_stmt *s;
	int error = 0, rc;

	memset(stats, 0, sizeof(*stats));
	if ((error = store__stmt(ctx, store, ST_PRUNE_LIST, &s)) < 0)
		return error;
	if (bg_db_bind_int64(s, 1, opts->before) != 0 || bg_db_bind_int64(s, 2, opts->max_id) != 0)
		return store__bind_fail(ctx, store, s);
	while ((rc = bg_db_step(s)) == BG_DB_ROW) {
		int64_t id = bg_db_column_int64(s, 0);

		if (opts->nkeep &&
		    bsearch(&id, opts->keep, opts->nkeep, sizeof(*opts->keep), bg_cmp_int64)) {
			stats->kept++;
			continue;
		}
		if (bg_grow((void **)&ids, &cap, n, sizeof(*ids)) < 0) {
			error = bg_error_oom(ctx);
			break;
		}
		ids[n++] = id;
		stats->results += (size_t)bg_db_column_int64(s, 1);
		stats->samples += (size_t)bg_db_column_int64(s, 2);
	}
	if (!error && rc != BG_DB_DONE)
		error = store__fail(ctx, store, "listing the runs to prune");
	bg_db_reset(s);
	if (error < 0 || opts->dry_run) {
		stats->runs = n;
		goto cleanup;
	}
	while (i < n) {
		if ((error = store__begin(ctx, store)) < 0)
			goto cleanup;
		for (j = i; j < n && j < i + PRUNE_BATCH; j++) {
			if ((error = store__stmt(ctx, store, ST_RUN_DELETE, &s)) < 0)
				break;
			if (bg_db_bind_int64(s, 1, ids[j]) != 0) {
				error = store__bind_fail(ctx, store, s);
				break;
			}
			if ((error = store__run(ctx, store, s, "deleting a run")) < 0)
				break;
		}
		if (error < 0 || (error = store__commit(ctx, store)) < 0) {
			store__rollback(store);
			goto cleanup;
		}
		/* What is gone is counted: an error later leaves these deleted. */
		stats->runs = j;
		i = j;
	}
cleanup:
	free(ids);
	return error;
}

/* ------------------------------------------------------------------ reports */

static int store__bind_period(bg_ctx *ctx, bg_store *st, bg_db_stmt *s, const bg_period *p)
{
	if (bg_db_bind_int64(s, 1, p->since) != 0 || bg_db_bind_text(s, 2, p->machine, -1) != 0 ||
	    bg_db_bind_int64(s, 3, p->include_paired != 0) != 0)
		return store__bind_fail(ctx, st, s);
	return 0;
}

/* Steps `s`, bound, to its end: its rows in ST_RUN_GET's columns. */
static int store__run_rows(bg_ctx *ctx, bg_store *store, bg_db_stmt *s, const char *what,
                           bg_run_row **rows, size_t *n)
{
	bg_run_row *r = NULL;
	size_t len = 0, cap = 0;
	int error = 0, rc;

	while ((rc = bg_db_step(s)) == BG_DB_ROW) {
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
	if (rc != BG_DB_DONE) {
		error = store__fail(ctx, store, what);
		goto cleanup;
	}
	*rows = r;
	*n = len;
	r = NULL;
	len = 0;
cleanup:
	bg_db_reset(s);
	bg_run_rows_free(r, len);
	return error;
}

int bg_store_runs_since(bg_ctx *ctx, bg_store *store, const bg_period *period, bg_run_row **rows,
                        size_t *n)
{
	bg_db_stmt *s;
	int error;

	*rows = NULL;
	*n = 0;
	if ((error = store__stmt(ctx, store, ST_RUNS_SINCE, &s)) < 0 ||
	    (error = store__bind_period(ctx, store, s, period)) < 0)
		return error;
	return store__run_rows(ctx, store, s, "listing the runs of the period", rows, n);
}

int bg_store_runs_list(bg_ctx *ctx, bg_store *store, const char *sha, const char *machine,
                       int excluded, bg_run_row **rows, size_t *n)
{
	bg_db_stmt *s;
	int error;

	*rows = NULL;
	*n = 0;
	if ((error = store__stmt(ctx, store, ST_RUNS_LIST, &s)) < 0)
		return error;
	if (bg_db_bind_text(s, 1, sha, -1) != 0 || bg_db_bind_text(s, 2, machine, -1) != 0 ||
	    bg_db_bind_int64(s, 3, excluded != 0) != 0)
		return store__bind_fail(ctx, store, s);
	return store__run_rows(ctx, store, s,
	                       excluded ? "listing the excluded runs" : "listing runs", rows, n);
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

/* Every series' names, by id: one statement where one per series of a
 * period cost a round trip each on PostgreSQL. */
static int store__series_all(bg_ctx *ctx, bg_store *st, store_series **out, size_t *nout)
{
	bg_db_stmt *s;
	int error;

	*out = NULL;
	*nout = 0;
	if ((error = store__stmt(ctx, st, ST_SERIES_ALL, &s)) < 0)
		return error;
	return store__series_rows(ctx, st, s, out, nout);
}

static int store__find_series(const void *key, const void *elem)
{
	int64_t x = *(const int64_t *)key, y = ((const store_series *)elem)->id;

	return (x > y) - (x < y);
}

int bg_store_each_result(bg_ctx *ctx, bg_store *store, const bg_period *period, bg_result_cb cb,
                         void *data)
{
	store_series *all = NULL;
	size_t nall = 0;
	bg_db_stmt *s = NULL;
	bg_result_row row;
	int error = 0, rc;

	memset(&row, 0, sizeof(row));
	if ((error = store__series_all(ctx, store, &all, &nall)) < 0)
		return error;
	if ((error = store__stmt(ctx, store, ST_RESULTS_SINCE, &s)) < 0 ||
	    (error = store__bind_period(ctx, store, s, period)) < 0) {
		s = NULL;
		goto cleanup;
	}
	while ((rc = bg_db_step(s)) == BG_DB_ROW) {
		int64_t series_id = bg_db_column_int64(s, 1);

		if (!row.benchmark || series_id != row.series_id) {
			const store_series *ser = nall ? bsearch(&series_id, all, nall,
			                                         sizeof(*all), store__find_series)
			                               : NULL;

			if (!ser) {
				error = bg_error_set(
				        ctx, BG_ERROR,
				        "reading a series of the period: series %lld is not "
				        "in the database",
				        (long long)series_id);
				goto cleanup;
			}
			row.series_id = series_id;
			row.benchmark = ser->benchmark;
			row.metric = ser->metric;
			row.unit = ser->unit;
			row.direction = ser->direction;
		}
		row.run_id = bg_db_column_int64(s, 0);
		row.n = (size_t)bg_db_column_int64(s, 2);
		row.stddev = bg_db_column_double(s, 3);
		row.robust_mean = bg_db_column_double(s, 4);
		row.instrument = (const char *)bg_db_column_text(s, 5);
		if ((error = cb(&row, data)) < 0)
			goto cleanup;
	}
	if (rc != BG_DB_DONE)
		error = store__fail(ctx, store, "reading the results of the period");
cleanup:
	if (s)
		bg_db_reset(s);
	store__series_rows_free(all, nall);
	return error;
}

int bg_store_check_record(bg_ctx *ctx, bg_store *store, const bg_check_record *rec,
                          int64_t *check_id)
{
	bg_db_stmt *s;
	int64_t id = 0;
	size_t i;
	int error, found = 0;

	if (check_id)
		*check_id = 0;
	if (!rec || !rec->json || !rec->source)
		return bg_error_set(ctx, BG_EINPUT, "a recorded check needs its JSON and source");
	if ((error = store__begin(ctx, store)) < 0)
		return error;
	if ((error = store__stmt(ctx, store, ST_CHECK_INSERT, &s)) < 0)
		goto cleanup;
	if (bg_db_bind_int64(s, 1, rec->run_id) != 0 ||
	    bg_db_bind_text(s, 2, rec->source, -1) != 0 ||
	    bg_db_bind_int64(s, 3, (int64_t)time(NULL)) != 0 ||
	    bg_db_bind_int64(s, 4, (int64_t)rec->pairs) != 0 ||
	    bg_db_bind_double(s, 5, rec->seconds) != 0 ||
	    bg_db_bind_text(s, 6, rec->json, -1) != 0) {
		error = store__bind_fail(ctx, store, s);
		goto cleanup;
	}
	if ((error = store__int(ctx, store, s, "recording the verdict", &id, &found)) < 0)
		goto cleanup;
	for (i = 0; i < rec->nrows; i++) {
		const bg_verdict_record *v = &rec->rows[i];

		if ((error = store__stmt(ctx, store, ST_VERDICT_INSERT, &s)) < 0)
			goto cleanup;
		if (bg_db_bind_int64(s, 1, id) != 0 || bg_db_bind_text(s, 2, v->series, -1) != 0 ||
		    bg_db_bind_text(s, 3, v->benchmark, -1) != 0 ||
		    bg_db_bind_text(s, 4, v->metric, -1) != 0 ||
		    bg_db_bind_text(s, 5, bg_verdict_name(v->verdict), -1) != 0 ||
		    bg_db_bind_text(s, 6, bg_verdict_name(v->first), -1) != 0 ||
		    bg_db_bind_text(s, 7, bg_confirm_status_name(v->confirm), -1) != 0) {
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
	bg_db_stmt *s;
	bg_recorded_row row;
	int error = 0, rc;

	if ((error = store__stmt(ctx, store, ST_RECORDED_SINCE, &s)) < 0 ||
	    (error = store__bind_period(ctx, store, s, period)) < 0)
		return error;
	while ((rc = bg_db_step(s)) == BG_DB_ROW) {
		memset(&row, 0, sizeof(row));
		row.check_id = bg_db_column_int64(s, 0);
		row.run_id = bg_db_column_int64(s, 1);
		row.series = (const char *)bg_db_column_text(s, 2);
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
	if (rc != BG_DB_DONE)
		error = store__fail(ctx, store, "reading the recorded verdicts");
cleanup:
	bg_db_reset(s);
	return error;
}

int bg_store_recorded_json(bg_ctx *ctx, bg_store *store, int64_t run_id, char **json)
{
	bg_db_stmt *s;
	int error = 0, rc;

	*json = NULL;
	if ((error = store__stmt(ctx, store, ST_RECORDED_JSON, &s)) < 0)
		return error;
	if (bg_db_bind_int64(s, 1, run_id) != 0)
		return store__bind_fail(ctx, store, s);
	rc = bg_db_step(s);
	if (rc == BG_DB_ROW) {
		if (!(*json = store__col_dup(s, 0)))
			error = bg_error_oom(ctx);
	} else if (rc != BG_DB_DONE) {
		error = store__fail(ctx, store, "reading the recorded verdict");
	}
	bg_db_reset(s);
	return error;
}
