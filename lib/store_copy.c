/*
 * store_copy.c -- `benchguard db copy`: a whole store into another, between
 * any two backends (a cached SQLite file into a fleet's PostgreSQL
 * database, and back).
 *
 * Runs are matched by uid, as baseline imports match them, so a copy is
 * idempotent: a run the destination has is left alone, and a second copy
 * adds nothing.  Each run travels whole in one write transaction of the
 * destination (its machine and commit, facts, tags, results with every
 * sample, outcomes, and the verdicts `ci` recorded for it), so an
 * interrupted copy leaves complete runs only and the next copy finishes
 * the job.  Timestamps, roles, pairs (named by uid), exclusions and ids'
 * order are kept; ids themselves are the destination's.  Incomplete runs (a
 * job that died) are not copied.  Builds and the alert outbox follow, keyed
 * as they are in the schema.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "db.h"

enum {
	/* read from the source */
	CP_RUNS,
	CP_RUN,
	CP_MACHINE_FACTS,
	CP_RUN_FACTS,
	CP_RUN_TAGS,
	CP_RESULTS,
	CP_SAMPLES,
	CP_OUTCOMES,
	CP_CHECKS,
	CP_VERDICTS,
	CP_BUILDS,
	CP_OUTBOX,
	CP_RUN_SINCE,
	CP_SRC_COUNT,
	/* written to the destination */
	CP_D_RUN_BY_UID = CP_SRC_COUNT,
	CP_D_MACHINE,
	CP_D_MACHINE_ID,
	CP_D_MACHINE_FACT,
	CP_D_COMMIT,
	CP_D_COMMIT_ID,
	CP_D_RUN,
	CP_D_RUN_FACT,
	CP_D_RUN_TAG,
	CP_D_SERIES_FIND,
	CP_D_SERIES_ADD,
	CP_D_RUN_SERIES,
	CP_D_OUTCOME,
	CP_D_CHECK,
	CP_D_CHECK_FIND,
	CP_D_PAIR_REF,
	CP_D_EXCLUDE,
	CP_D_VERDICT,
	CP_D_BUILD,
	CP_D_OUTBOX,
	CP_COUNT
};

/* clang-format off */
static const char *const copy_sql[CP_COUNT] = {
	[CP_RUNS] = "SELECT id, uid FROM runs WHERE status = 'complete' ORDER BY id",
	[CP_RUN] = "SELECT r.branch, r.dirty, r.source, r.started_at, r.finished_at, r.role,"
		   " c.sha, c.author_time, c.author, c.subject, m.fingerprint, m.first_seen, m.id,"
		   " r.pair_ref, r.exclude_reason, r.excluded_at"
		   " FROM runs r JOIN commits c ON c.id = r.commit_id"
		   " JOIN machines m ON m.id = r.machine_id WHERE r.id = ?1",
	[CP_MACHINE_FACTS] = "SELECT key, value FROM machine_facts WHERE machine_id = ?1",
	[CP_RUN_FACTS] = "SELECT key, value FROM run_facts WHERE run_id = ?1",
	[CP_RUN_TAGS] = "SELECT key, value FROM run_tags WHERE run_id = ?1",
	[CP_RESULTS] = "SELECT x.id, s.benchmark, s.metric, s.unit, s.direction, x.n, x.mean,"
		       " x.median, x.stddev, x.min, x.max, x.robust_mean, x.outliers, x.instrument,"
		       " s.id FROM results x JOIN series s ON s.id = x.series_id"
		       " WHERE x.run_id = ?1 ORDER BY x.id",
	/* A run's samples by series, a range of its series at a time (a
	 * statement per result cost a round trip each from a PostgreSQL
	 * source; one for the whole run, libpq's copy of every sample of it
	 * in memory).  The planner reads this order from the (run_id,
	 * series_id) index. */
	[CP_SAMPLES] = "SELECT x.series_id, s.value FROM results x"
		       " JOIN samples s ON s.result_id = x.id"
		       " WHERE x.run_id = ?1 AND x.series_id BETWEEN ?2 AND ?3"
		       " ORDER BY x.series_id, s.idx",
	[CP_OUTCOMES] = "SELECT benchmark, status, message, definition FROM outcomes"
			" WHERE run_id = ?1",
	[CP_CHECKS] = "SELECT id, source, created_at, pairs, seconds, json FROM checks"
		      " WHERE run_id = ?1 ORDER BY id",
	[CP_VERDICTS] = "SELECT series, benchmark, metric, verdict, first, confirmation"
			" FROM verdicts WHERE check_id = ?1",
	[CP_BUILDS] = "SELECT sha, machine, command_hash, ok, log_tail, seconds, finished_at"
		      " FROM builds",
	[CP_OUTBOX] = "SELECT o.uid, o.kind, o.target, o.label, o.pr, o.mode, o.body, r.uid,"
		      " o.state, o.created_at, o.attempts, o.last_status, o.last_error,"
		      " o.delivered_at FROM outbox o LEFT JOIN runs r ON r.id = o.run_id"
		      " ORDER BY o.id",
	[CP_RUN_SINCE] = "SELECT pair_ref, exclude_reason, excluded_at FROM runs WHERE id = ?1",
	[CP_D_RUN_BY_UID] = "SELECT id FROM runs WHERE uid = ?1",
	[CP_D_MACHINE] = "INSERT INTO machines(fingerprint, first_seen) VALUES (?1, ?2)"
			 " ON CONFLICT DO NOTHING",
	[CP_D_MACHINE_ID] = "SELECT id FROM machines WHERE fingerprint = ?1",
	[CP_D_MACHINE_FACT] = "INSERT INTO machine_facts(machine_id, key, value)"
			      " VALUES (?1, ?2, ?3) ON CONFLICT DO NOTHING",
	[CP_D_COMMIT] = "INSERT INTO commits(sha, author_time, author, subject)"
			" VALUES (?1, ?2, ?3, ?4) ON CONFLICT DO NOTHING",
	[CP_D_COMMIT_ID] = "SELECT id FROM commits WHERE sha = ?1",
	[CP_D_RUN] = "INSERT INTO runs(commit_id, machine_id, branch, dirty, status, source,"
		     " started_at, finished_at, uid, role, pair_ref, exclude_reason, excluded_at)"
		     " VALUES (?1, ?2, ?3, ?4, 'complete', ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12)"
		     " RETURNING id",
	[CP_D_RUN_FACT] = "INSERT INTO run_facts(run_id, key, value) VALUES (?1, ?2, ?3)"
			  " ON CONFLICT DO NOTHING",
	[CP_D_RUN_TAG] = "INSERT INTO run_tags(run_id, key, value) VALUES (?1, ?2, ?3)"
			 " ON CONFLICT DO NOTHING",
	/* The units compared by the database: both sides of it as stored
	 * (bg_db_bind_text repairs the source's), not as the source holds it. */
	[CP_D_SERIES_FIND] = "SELECT id, unit, unit = CAST(?3 AS TEXT), direction,"
			     " direction = CAST(?4 AS TEXT) FROM series"
			     " WHERE benchmark = ?1 AND metric = ?2",
	[CP_D_SERIES_ADD] = "INSERT INTO series(benchmark, metric, unit, direction)"
			    " VALUES (?1, ?2, ?3, ?4) RETURNING id",
	/* The series of a run just written, as they are now, inside its
	 * write transaction: what another writer changed since they were
	 * matched. */
	[CP_D_RUN_SERIES] = "SELECT s.id, s.benchmark, s.metric, s.direction FROM results x"
			    " JOIN series s ON s.id = x.series_id WHERE x.run_id = ?1",
	[CP_D_OUTCOME] = "INSERT INTO outcomes(run_id, benchmark, status, message, definition)"
			 " VALUES (?1, ?2, ?3, ?4, ?5) ON CONFLICT DO NOTHING",
	[CP_D_CHECK] = "INSERT INTO checks(run_id, source, created_at, pairs, seconds, json)"
		       " VALUES (?1, ?2, ?3, ?4, ?5, ?6) RETURNING id",
	/* A check is one ci's verdict on the run: its source and time name it. */
	[CP_D_CHECK_FIND] = "SELECT 1 FROM checks WHERE run_id = ?1 AND source = CAST(?2 AS TEXT)"
			    " AND created_at = ?3",
	/* Pairs are recorded once both runs are complete: after a copy, maybe. */
	[CP_D_PAIR_REF] = "UPDATE runs SET pair_ref = CAST(?2 AS TEXT)"
			  " WHERE id = ?1 AND pair_ref IS NULL",
	/* A run excluded in the source since it was copied is excluded here
	 * too (with the source's reason); a copy never takes one back. */
	[CP_D_EXCLUDE] = "UPDATE runs SET exclude_reason = CAST(?2 AS TEXT), excluded_at = ?3"
			 " WHERE id = ?1 AND exclude_reason IS NULL",
	[CP_D_VERDICT] = "INSERT INTO verdicts(check_id, series, benchmark, metric, verdict,"
			 " first, confirmation) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7)"
			 " ON CONFLICT DO NOTHING",
	[CP_D_BUILD] = "INSERT INTO builds(sha, machine, command_hash, ok, log_tail, seconds,"
		       " finished_at) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7) ON CONFLICT DO NOTHING",
	[CP_D_OUTBOX] = "INSERT INTO outbox(uid, kind, target, label, pr, mode, body, run_id,"
			" state, created_at, attempts, last_status, last_error, delivered_at)"
			" VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7,"
			" (SELECT id FROM runs WHERE uid = CAST(?8 AS TEXT)),"
			" ?9, ?10, ?11, ?12, ?13, ?14) ON CONFLICT DO NOTHING",
};
/* clang-format on */

/* Samples read with one statement, about: a PostgreSQL source's answer is
 * held whole in memory, some 60 bytes a sample (400,000 at once took 23 MB
 * more than a chunk at a time). */
#define CP_CHUNK 65536

/* A source result row, held until the run's results are written. */
typedef struct {
	bg_db_result row;
	int64_t src_series;
	char *instrument; /* row.instrument's own copy */
} cp_result;

/* A source series and the destination's id for it, matched once; its
 * direction in the source, checked again at each run. */
typedef struct {
	int64_t src, dst;
	char *direction;
} cp_series;

typedef struct {
	bg_ctx *ctx;
	bg_db *src, *dst;
	bg_db_stmt *s[CP_COUNT];
	bg_db_batches batches;
	cp_result *res;
	size_t nres, rescap;
	bg_db_result *rows; /* res's rows, side by side for bg_db_results_insert */
	size_t rowscap;
	/* Series are matched once each, not once per result: the map lives
	 * as long as the copy, which stops at the first failure, so no id in
	 * it comes from a transaction that was rolled back. */
	cp_series *map;
	size_t nmap, mapcap;
	bg_index ix, ixdst; /* map by source id, by destination id */
	double *values;
	size_t cap;
} copier;

static int cp__fail(copier *c, int i, const char *what)
{
	bg_db *db = i < CP_SRC_COUNT ? c->src : c->dst;

	return db->drv->fail(db, c->ctx, what);
}

/* Copies column `col` of source statement `from` into parameter `to`. */
static int cp__text(bg_db_stmt *d, int to, bg_db_stmt *from, int col)
{
	return bg_db_column_is_null(from, col)
	               ? bg_db_bind_null(d, to)
	               : bg_db_bind_text(d, to, bg_db_column_text(from, col), -1);
}

static int cp__int(bg_db_stmt *d, int to, bg_db_stmt *from, int col)
{
	return bg_db_column_is_null(from, col)
	               ? bg_db_bind_null(d, to)
	               : bg_db_bind_int64(d, to, bg_db_column_int64(from, col));
}

static int cp__real(bg_db_stmt *d, int to, bg_db_stmt *from, int col)
{
	return bg_db_column_is_null(from, col)
	               ? bg_db_bind_null(d, to)
	               : bg_db_bind_double(d, to, bg_db_column_double(from, col));
}

/* Steps a destination statement that writes; RETURNING's id into *id. */
static int cp__write(copier *c, int i, const char *what, int64_t *id)
{
	int rc = bg_db_step(c->s[i]), error = 0;

	if (rc < 0)
		error = cp__fail(c, i, what);
	else if (id)
		*id = rc == BG_DB_ROW ? bg_db_column_int64(c->s[i], 0) : 0;
	bg_db_reset(c->s[i]);
	return error;
}

/* Pairs of (key, value) rows of source query q for owner `id`, into d. */
static int cp__pairs(copier *c, int q, int64_t src_id, int d, int64_t dst_id, const char *what)
{
	bg_db_stmt *s = c->s[q];
	int error = 0, rc;

	if (bg_db_bind_int64(s, 1, src_id) < 0)
		return cp__fail(c, q, what);
	while ((rc = bg_db_step(s)) == BG_DB_ROW) {
		if (bg_db_bind_int64(c->s[d], 1, dst_id) < 0 || cp__text(c->s[d], 2, s, 0) < 0 ||
		    cp__text(c->s[d], 3, s, 1) < 0) {
			error = cp__fail(c, d, what);
			break;
		}
		if ((error = cp__write(c, d, what, NULL)) < 0)
			break;
	}
	if (!error && rc != BG_DB_DONE)
		error = cp__fail(c, q, what);
	bg_db_reset(s);
	return error;
}

/* The destination's id for a row inserted if absent, then looked up. */
static int cp__id(copier *c, int find, const char *key, const char *what, int64_t *id)
{
	int rc, error = 0;

	*id = 0;
	if (bg_db_bind_text(c->s[find], 1, key, -1) < 0)
		return cp__fail(c, find, what);
	rc = bg_db_step(c->s[find]);
	if (rc == BG_DB_ROW)
		*id = bg_db_column_int64(c->s[find], 0);
	else
		error = rc < 0 ? cp__fail(c, find, what)
		               : bg_error_set(c->ctx, BG_ERROR, "database %s: %s: vanished",
		                              c->dst->name, what);
	bg_db_reset(c->s[find]);
	return error;
}

/* The destination's series for a source result row, created if absent;
 * a unit that differs refuses the copy (one history, one unit), and so
 * does a direction: the copied runs would turn the destination's every
 * regression of the series into an improvement, as baseline import says. */
static int cp__series(copier *c, bg_db_stmt *r, int64_t *id)
{
	bg_db_stmt *f = c->s[CP_D_SERIES_FIND], *a = c->s[CP_D_SERIES_ADD];
	int rc, error = 0;

	if (cp__text(f, 1, r, 1) < 0 || cp__text(f, 2, r, 2) < 0 || cp__text(f, 3, r, 3) < 0 ||
	    cp__text(f, 4, r, 4) < 0)
		return cp__fail(c, CP_D_SERIES_FIND, "finding a series");
	rc = bg_db_step(f);
	if (rc == BG_DB_ROW) {
		*id = bg_db_column_int64(f, 0);
		if (!bg_db_column_int(f, 2))
			error = bg_error_set(
			        c->ctx, BG_EINPUT,
			        "series \"%s:%s\" is in unit \"%s\" in %s but \"%s\" in "
			        "%s; nothing more copied",
			        bg_db_column_text(r, 1), bg_db_column_text(r, 2),
			        bg_db_column_text(f, 1), c->dst->name, bg_db_column_text(r, 3),
			        c->src->name);
		else if (!bg_db_column_int(f, 4))
			error = bg_error_set(c->ctx, BG_EINPUT,
			                     "series \"%s:%s\" is %s is better in %s but %s is "
			                     "better in %s; nothing more copied",
			                     bg_db_column_text(r, 1), bg_db_column_text(r, 2),
			                     bg_db_column_text(f, 3), c->dst->name,
			                     bg_db_column_text(r, 4), c->src->name);
		bg_db_reset(f);
		return error;
	}
	bg_db_reset(f);
	if (rc < 0)
		return cp__fail(c, CP_D_SERIES_FIND, "finding a series");
	if (cp__text(a, 1, r, 1) < 0 || cp__text(a, 2, r, 2) < 0 || cp__text(a, 3, r, 3) < 0 ||
	    cp__text(a, 4, r, 4) < 0)
		return cp__fail(c, CP_D_SERIES_ADD, "storing a series");
	return cp__write(c, CP_D_SERIES_ADD, "storing a series", id);
}

static int cp__same_series(const void *set, size_t entry, const void *key)
{
	return ((const cp_series *)set)[entry].src == *(const int64_t *)key;
}

static int cp__same_dst(const void *set, size_t entry, const void *key)
{
	return ((const cp_series *)set)[entry].dst == *(const int64_t *)key;
}

static uint64_t cp__hash_id(int64_t id)
{
	return bg_index__hash_n((const char *)&id, sizeof(id));
}

/* cp__series once per source series: its lookups are the same for every
 * run, and its unit never changes.  Two source series that are one in
 * the destination (their names differ only in bytes that are not UTF-8,
 * which bg_db_bind_text replaces) would be two results of one series in
 * a run. */
static int cp__series_of(copier *c, bg_db_stmt *r, int64_t *id)
{
	int64_t src = bg_db_column_int64(r, 14);
	uint64_t h = cp__hash_id(src);
	size_t at = bg_index__find(&c->ix, h, cp__same_series, c->map, &src);
	cp_series *m;
	int error;

	if (at != BG_INDEX_NONE) {
		*id = c->map[at].dst;
		return 0;
	}
	if ((error = cp__series(c, r, id)) < 0)
		return error;
	if (bg_index__find(&c->ixdst, cp__hash_id(*id), cp__same_dst, c->map, id) != BG_INDEX_NONE)
		return bg_error_set(c->ctx, BG_EINPUT,
		                    "series \"%s:%s\" of %s is the same series in %s as another "
		                    "of %s (their names differ only in bytes that are not valid "
		                    "UTF-8); nothing more copied",
		                    bg_db_column_text(r, 1), bg_db_column_text(r, 2), c->src->name,
		                    c->dst->name, c->src->name);
	if (bg_grow((void **)&c->map, &c->mapcap, c->nmap, sizeof(*c->map)) < 0)
		return bg_error_oom(c->ctx);
	m = &c->map[c->nmap];
	m->src = src;
	m->dst = *id;
	if (!(m->direction = bg_strdup(bg_db_column_text(r, 4) ? bg_db_column_text(r, 4) : "")))
		return bg_error_oom(c->ctx);
	if (bg_index__add(&c->ix, h, c->nmap) < 0 ||
	    bg_index__add(&c->ixdst, cp__hash_id(*id), c->nmap) < 0) {
		free(m->direction);
		return bg_error_oom(c->ctx);
	}
	c->nmap++;
	return 0;
}

/* The directions of the series of destination run `run_id`, just written,
 * against the source's: another writer may have turned one since it was
 * matched (a suite that now says higher is better), and the copied runs
 * would then be read the other way. */
static int cp__directions(copier *c, int64_t run_id)
{
	bg_db_stmt *q = c->s[CP_D_RUN_SERIES];
	int error = 0, rc;

	if (bg_db_bind_int64(q, 1, run_id) < 0)
		return cp__fail(c, CP_D_RUN_SERIES, "reading series");
	while ((rc = bg_db_step(q)) == BG_DB_ROW) {
		int64_t dst = bg_db_column_int64(q, 0);
		size_t at = bg_index__find(&c->ixdst, cp__hash_id(dst), cp__same_dst, c->map, &dst);
		const char *now = bg_db_column_text(q, 3);

		if (at == BG_INDEX_NONE || !now || !strcmp(now, c->map[at].direction))
			continue;
		error = bg_error_set(c->ctx, BG_EINPUT,
		                     "series \"%s:%s\" is %s is better in %s but %s is better in "
		                     "%s; nothing more copied",
		                     bg_db_column_text(q, 1), bg_db_column_text(q, 2), now,
		                     c->dst->name, c->map[at].direction, c->src->name);
		break;
	}
	if (!error && rc != BG_DB_DONE)
		error = cp__fail(c, CP_D_RUN_SERIES, "reading series");
	bg_db_reset(q);
	return error;
}

static void cp__results_clear(copier *c)
{
	size_t i;

	for (i = 0; i < c->nres; i++)
		free(c->res[i].instrument);
	c->nres = 0;
}

/* The source's result row r, into c->res. */
static int cp__result_read(copier *c, bg_db_stmt *r)
{
	cp_result *x;
	bg_db_result *w;
	int error, k;

	if (bg_grow((void **)&c->res, &c->rescap, c->nres, sizeof(*c->res)) < 0)
		return bg_error_oom(c->ctx);
	x = &c->res[c->nres];
	memset(x, 0, sizeof(*x));
	w = &x->row;
	if ((error = cp__series_of(c, r, &w->series_id)) < 0)
		return error;
	x->src_series = bg_db_column_int64(r, 14);
	/* Columns 5 to 12 in BG_DB_NULL_*'s order. */
	for (k = 0; k < 8; k++)
		if (bg_db_column_is_null(r, 5 + k))
			w->nulls |= 1u << k;
	w->n = bg_db_column_int64(r, 5);
	w->mean = bg_db_column_double(r, 6);
	w->median = bg_db_column_double(r, 7);
	w->stddev = bg_db_column_double(r, 8);
	w->min = bg_db_column_double(r, 9);
	w->max = bg_db_column_double(r, 10);
	w->robust_mean = bg_db_column_double(r, 11);
	w->outliers = bg_db_column_int64(r, 12);
	if (!bg_db_column_is_null(r, 13) &&
	    !(w->instrument = x->instrument = bg_strdup(bg_db_column_text(r, 13))))
		return bg_error_oom(c->ctx);
	c->nres++;
	return 0;
}

static int cp__by_series(const void *a, const void *b)
{
	int64_t x = ((const cp_result *)a)->src_series, y = ((const cp_result *)b)->src_series;

	return (x > y) - (x < y);
}

/* The samples of results c->res[from, to), by series: each result's are
 * the rows that carry its series, and a result with none gets none. */
static int cp__samples(copier *c, int64_t src_run, size_t from, size_t to)
{
	bg_db_stmt *v = c->s[CP_SAMPLES];
	size_t i = from, nv = 0;
	int error = 0, rc;

	if (bg_db_bind_int64(v, 1, src_run) < 0 ||
	    bg_db_bind_int64(v, 2, c->res[from].src_series) < 0 ||
	    bg_db_bind_int64(v, 3, c->res[to - 1].src_series) < 0)
		return cp__fail(c, CP_SAMPLES, "reading samples");
	while ((rc = bg_db_step(v)) == BG_DB_ROW) {
		int64_t series = bg_db_column_int64(v, 0);

		for (; i < to && c->res[i].src_series < series; i++, nv = 0)
			if (c->dst->drv->samples(c->dst, c->res[i].row.id, c->values, nv) < 0) {
				error = cp__fail(c, CP_D_RUN, "storing samples");
				goto cleanup;
			}
		if (i < to && c->res[i].src_series == series) {
			if (bg_grow((void **)&c->values, &c->cap, nv, sizeof(*c->values)) < 0) {
				error = bg_error_oom(c->ctx);
				goto cleanup;
			}
			c->values[nv++] = bg_db_column_double(v, 1);
		}
	}
	if (rc != BG_DB_DONE) {
		error = cp__fail(c, CP_SAMPLES, "reading samples");
		goto cleanup;
	}
	for (; i < to; i++, nv = 0)
		if (c->dst->drv->samples(c->dst, c->res[i].row.id, c->values, nv) < 0) {
			error = cp__fail(c, CP_D_RUN, "storing samples");
			goto cleanup;
		}
cleanup:
	bg_db_reset(v);
	return error;
}

/* Every result of source run `src_run`, with all its samples, into
 * destination run `run_id`. */
static int cp__results(copier *c, int64_t src_run, int64_t run_id)
{
	bg_db_stmt *r = c->s[CP_RESULTS];
	size_t i, end;
	int error = 0, rc;

	if (bg_db_bind_int64(r, 1, src_run) < 0)
		return cp__fail(c, CP_RESULTS, "reading results");
	while ((rc = bg_db_step(r)) == BG_DB_ROW)
		if ((error = cp__result_read(c, r)) < 0)
			break;
	if (!error && rc != BG_DB_DONE)
		error = cp__fail(c, CP_RESULTS, "reading results");
	bg_db_reset(r);
	if (!error && c->nres &&
	    bg_grow((void **)&c->rows, &c->rowscap, c->nres - 1, sizeof(*c->rows)) < 0)
		error = bg_error_oom(c->ctx);
	for (i = 0; i < c->nres && !error; i++)
		c->rows[i] = c->res[i].row;
	if (!error)
		error = bg_db_results_insert(c->ctx, c->dst, &c->batches, run_id, c->rows, c->nres);
	/* A new run: every row comes back. */
	for (i = 0; i < c->nres && !error; i++)
		if (!(c->res[i].row.id = c->rows[i].id))
			error = bg_error_set(c->ctx, BG_ERROR,
			                     "database %s: storing a run summary: "
			                     "a row did not come back",
			                     c->dst->name);
	if (error < 0)
		goto cleanup;
	if ((error = cp__directions(c, run_id)) < 0)
		goto cleanup;
	/* Both by the source's series, one result each in a run. */
	qsort(c->res, c->nres, sizeof(*c->res), cp__by_series);
	for (i = 0; i < c->nres && !error; i = end) {
		size_t expect = 0;

		/* About CP_CHUNK samples a statement, at least one result. */
		for (end = i; end < c->nres && (end == i || expect < CP_CHUNK); end++)
			expect += c->res[end].row.n > 0 ? (size_t)c->res[end].row.n : 1;
		error = cp__samples(c, src_run, i, end);
	}
cleanup:
	cp__results_clear(c);
	return error;
}

/* 1 when the destination's run holds the check at the source's row k. */
static int cp__check_there(copier *c, bg_db_stmt *k, int64_t dst_run)
{
	bg_db_stmt *f = c->s[CP_D_CHECK_FIND];
	int rc;

	if (bg_db_bind_int64(f, 1, dst_run) < 0 || cp__text(f, 2, k, 1) < 0 ||
	    cp__int(f, 3, k, 2) < 0)
		return cp__fail(c, CP_D_CHECK_FIND, "finding a check");
	rc = bg_db_step(f);
	bg_db_reset(f);
	if (rc < 0)
		return cp__fail(c, CP_D_CHECK_FIND, "finding a check");
	return rc == BG_DB_ROW;
}

/*
 * The checks `ci` recorded for the source run, with their verdicts, that
 * the destination's run lacks: all of them for a run just copied, and for
 * a run copied before, those recorded since (a copy taken while ci
 * measured again in pairs).  *added counts them.
 */
static int cp__checks(copier *c, int64_t src_run, int64_t dst_run, size_t *added)
{
	bg_db_stmt *k = c->s[CP_CHECKS], *d = c->s[CP_D_CHECK], *v = c->s[CP_VERDICTS];
	int error = 0, rc, rv, i;

	if (bg_db_bind_int64(k, 1, src_run) < 0)
		return cp__fail(c, CP_CHECKS, "reading checks");
	while ((rc = bg_db_step(k)) == BG_DB_ROW) {
		int64_t check_id = 0;

		if ((error = cp__check_there(c, k, dst_run)) != 0) {
			if (error > 0) {
				error = 0;
				continue;
			}
			break;
		}
		(*added)++;
		if (bg_db_bind_int64(d, 1, dst_run) < 0 || cp__text(d, 2, k, 1) < 0 ||
		    cp__int(d, 3, k, 2) < 0 || cp__int(d, 4, k, 3) < 0 ||
		    cp__real(d, 5, k, 4) < 0 || cp__text(d, 6, k, 5) < 0) {
			error = cp__fail(c, CP_D_CHECK, "storing a check");
			break;
		}
		if ((error = cp__write(c, CP_D_CHECK, "storing a check", &check_id)) < 0)
			break;
		if (bg_db_bind_int64(v, 1, bg_db_column_int64(k, 0)) < 0) {
			error = cp__fail(c, CP_VERDICTS, "reading verdicts");
			break;
		}
		while ((rv = bg_db_step(v)) == BG_DB_ROW) {
			bg_db_stmt *w = c->s[CP_D_VERDICT];

			if (bg_db_bind_int64(w, 1, check_id) < 0) {
				error = cp__fail(c, CP_D_VERDICT, "storing a verdict");
				break;
			}
			for (i = 0; i < 6 && !error; i++)
				if (cp__text(w, 2 + i, v, i) < 0)
					error = cp__fail(c, CP_D_VERDICT, "storing a verdict");
			if (error ||
			    (error = cp__write(c, CP_D_VERDICT, "storing a verdict", NULL)) < 0)
				break;
		}
		if (!error && rv != BG_DB_DONE)
			error = cp__fail(c, CP_VERDICTS, "reading verdicts");
		bg_db_reset(v);
		if (error)
			break;
	}
	if (!error && rc != BG_DB_DONE)
		error = cp__fail(c, CP_CHECKS, "reading checks");
	bg_db_reset(k);
	return error;
}

/* Everything of one source run, inside the destination's open transaction. */
static int cp__run_body(copier *c, int64_t src_run, const char *uid)
{
	bg_db_stmt *r = c->s[CP_RUN], *d;
	int64_t machine_id = 0, commit_id = 0, run_id = 0, src_machine;
	size_t checks = 0;
	int error = 0, rc;

	if (bg_db_bind_int64(r, 1, src_run) < 0)
		return cp__fail(c, CP_RUN, "reading a run");
	if ((rc = bg_db_step(r)) != BG_DB_ROW) {
		error = rc < 0 ? cp__fail(c, CP_RUN, "reading a run")
		               : bg_error_set(c->ctx, BG_ERROR, "database %s: run %lld vanished",
		                              c->src->name, (long long)src_run);
		goto cleanup;
	}
	src_machine = bg_db_column_int64(r, 12);
	d = c->s[CP_D_MACHINE];
	if (cp__text(d, 1, r, 10) < 0 || cp__int(d, 2, r, 11) < 0) {
		error = cp__fail(c, CP_D_MACHINE, "storing the machine");
		goto cleanup;
	}
	if ((error = cp__write(c, CP_D_MACHINE, "storing the machine", NULL)) < 0 ||
	    (error = cp__id(c, CP_D_MACHINE_ID, bg_db_column_text(r, 10), "finding the machine",
	                    &machine_id)) < 0 ||
	    (error = cp__pairs(c, CP_MACHINE_FACTS, src_machine, CP_D_MACHINE_FACT, machine_id,
	                       "copying the machine's facts")) < 0)
		goto cleanup;
	d = c->s[CP_D_COMMIT];
	if (cp__text(d, 1, r, 6) < 0 || cp__int(d, 2, r, 7) < 0 || cp__text(d, 3, r, 8) < 0 ||
	    cp__text(d, 4, r, 9) < 0) {
		error = cp__fail(c, CP_D_COMMIT, "storing the commit");
		goto cleanup;
	}
	if ((error = cp__write(c, CP_D_COMMIT, "storing the commit", NULL)) < 0 ||
	    (error = cp__id(c, CP_D_COMMIT_ID, bg_db_column_text(r, 6), "finding the commit",
	                    &commit_id)) < 0)
		goto cleanup;
	d = c->s[CP_D_RUN];
	if (bg_db_bind_int64(d, 1, commit_id) < 0 || bg_db_bind_int64(d, 2, machine_id) < 0 ||
	    cp__text(d, 3, r, 0) < 0 || cp__int(d, 4, r, 1) < 0 || cp__text(d, 5, r, 2) < 0 ||
	    cp__int(d, 6, r, 3) < 0 || cp__int(d, 7, r, 4) < 0 ||
	    bg_db_bind_text(d, 8, uid, -1) < 0 || cp__text(d, 9, r, 5) < 0 ||
	    cp__text(d, 10, r, 13) < 0 || cp__text(d, 11, r, 14) < 0 || cp__int(d, 12, r, 15) < 0) {
		error = cp__fail(c, CP_D_RUN, "storing the run");
		goto cleanup;
	}
	if ((error = cp__write(c, CP_D_RUN, "storing the run", &run_id)) < 0 ||
	    (error = cp__pairs(c, CP_RUN_FACTS, src_run, CP_D_RUN_FACT, run_id,
	                       "copying the run's facts")) < 0 ||
	    (error = cp__pairs(c, CP_RUN_TAGS, src_run, CP_D_RUN_TAG, run_id,
	                       "copying the run's tags")) < 0)
		goto cleanup;

	bg_db_reset(c->s[CP_RUN]);
	if ((error = cp__results(c, src_run, run_id)) < 0)
		goto cleanup;

	r = c->s[CP_OUTCOMES];
	if (bg_db_bind_int64(r, 1, src_run) < 0) {
		error = cp__fail(c, CP_OUTCOMES, "reading outcomes");
		goto cleanup;
	}
	while ((rc = bg_db_step(r)) == BG_DB_ROW) {
		d = c->s[CP_D_OUTCOME];
		if (bg_db_bind_int64(d, 1, run_id) < 0 || cp__text(d, 2, r, 0) < 0 ||
		    cp__text(d, 3, r, 1) < 0 || cp__text(d, 4, r, 2) < 0 ||
		    cp__text(d, 5, r, 3) < 0) {
			error = cp__fail(c, CP_D_OUTCOME, "storing outcomes");
			goto cleanup;
		}
		if ((error = cp__write(c, CP_D_OUTCOME, "storing outcomes", NULL)) < 0)
			goto cleanup;
	}
	if (rc != BG_DB_DONE) {
		error = cp__fail(c, CP_OUTCOMES, "reading outcomes");
		goto cleanup;
	}
	error = cp__checks(c, src_run, run_id, &checks);

cleanup:
	bg_db_reset(c->s[CP_RUN]);
	bg_db_reset(c->s[CP_OUTCOMES]);
	return error;
}

/*
 * What the source recorded about a run after it was complete, for a run the
 * destination has: its pair, its exclusion and ci's checks.  A copy taken
 * while ci measured again in pairs has the run but not the verdict; the
 * next copy adds it (*checks counts what it added).
 */
static int cp__run_since(copier *c, int64_t src_run, int64_t dst_run, size_t *checks)
{
	bg_db_stmt *q = c->s[CP_RUN_SINCE], *d;
	int error = 0, rc;

	if (bg_db_bind_int64(q, 1, src_run) < 0)
		return cp__fail(c, CP_RUN_SINCE, "reading a run");
	rc = bg_db_step(q);
	if (rc == BG_DB_ROW && !bg_db_column_is_null(q, 0)) {
		d = c->s[CP_D_PAIR_REF];
		if (bg_db_bind_int64(d, 1, dst_run) < 0 || cp__text(d, 2, q, 0) < 0)
			error = cp__fail(c, CP_D_PAIR_REF, "storing a run's pair");
		else
			error = cp__write(c, CP_D_PAIR_REF, "storing a run's pair", NULL);
	}
	if (!error && rc == BG_DB_ROW && !bg_db_column_is_null(q, 1)) {
		d = c->s[CP_D_EXCLUDE];
		if (bg_db_bind_int64(d, 1, dst_run) < 0 || cp__text(d, 2, q, 1) < 0 ||
		    cp__int(d, 3, q, 2) < 0)
			error = cp__fail(c, CP_D_EXCLUDE, "excluding a run");
		else
			error = cp__write(c, CP_D_EXCLUDE, "excluding a run", NULL);
	}
	if (rc < 0)
		error = cp__fail(c, CP_RUN_SINCE, "reading a run");
	bg_db_reset(q);
	if (error < 0)
		return error;
	return cp__checks(c, src_run, dst_run, checks);
}

/* One source run, unless the destination has its uid (then only what was
 * recorded about it since); *copied says which. */
static int cp__run(copier *c, int64_t src_run, const char *uid, int *copied, size_t *checks)
{
	int64_t dst_run = 0;
	int error, found, rc;

	*copied = 0;
	if (bg_db_bind_text(c->s[CP_D_RUN_BY_UID], 1, uid, -1) < 0)
		return cp__fail(c, CP_D_RUN_BY_UID, "finding a run");
	if (c->dst->drv->begin(c->dst, 1) < 0)
		return cp__fail(c, CP_D_RUN, "starting a write transaction");
	/* Looked up inside the transaction: a concurrent copy cannot slip in. */
	rc = bg_db_step(c->s[CP_D_RUN_BY_UID]);
	found = rc == BG_DB_ROW;
	if (found)
		dst_run = bg_db_column_int64(c->s[CP_D_RUN_BY_UID], 0);
	bg_db_reset(c->s[CP_D_RUN_BY_UID]);
	if (rc < 0) {
		error = cp__fail(c, CP_D_RUN_BY_UID, "finding a run");
		goto cleanup;
	}
	if (found) {
		if ((error = cp__run_since(c, src_run, dst_run, checks)) < 0)
			goto cleanup;
		if (c->dst->drv->commit(c->dst) < 0) {
			error = cp__fail(c, CP_D_RUN, "committing");
			goto cleanup;
		}
		return 0;
	}
	if ((error = cp__run_body(c, src_run, uid)) < 0)
		goto cleanup;
	if (c->dst->drv->commit(c->dst) < 0) {
		error = cp__fail(c, CP_D_RUN, "committing");
		goto cleanup;
	}
	*copied = 1;
	return 0;

cleanup:
	c->dst->drv->rollback(c->dst);
	return error;
}

/* Builds, then the alert outbox: rows the destination lacks.  `types`
 * has a letter per column: t(ext), i(nteger), r(eal). */
static int cp__rows(copier *c, int q, int d, const char *types, const char *what, size_t *added)
{
	bg_db_stmt *s = c->s[q], *w = c->s[d];
	int error = 0, rc, i;

	while ((rc = bg_db_step(s)) == BG_DB_ROW) {
		for (i = 0; types[i] && !error; i++) {
			int bad = types[i] == 'i'   ? cp__int(w, i + 1, s, i)
			          : types[i] == 'r' ? cp__real(w, i + 1, s, i)
			                            : cp__text(w, i + 1, s, i);

			if (bad < 0)
				error = cp__fail(c, d, what);
		}
		if (error || (error = cp__write(c, d, what, NULL)) < 0)
			break;
		*added += (size_t)c->dst->drv->changes(c->dst);
	}
	if (!error && rc != BG_DB_DONE)
		error = cp__fail(c, q, what);
	bg_db_reset(s);
	return error;
}

int bg_store_copy(bg_ctx *ctx, bg_store *src, bg_store *dst, bg_copy_stats *stats)
{
	copier c;
	bg_db_stmt *runs;
	int64_t *ids = NULL;
	char **uids = NULL;
	size_t n = 0, cap = 0, ucap = 0, i;
	int error = 0, rc, copied, k;

	memset(stats, 0, sizeof(*stats));
	memset(&c, 0, sizeof(c));
	c.ctx = ctx;
	c.src = bg_store__db(src);
	c.dst = bg_store__db(dst);
	if ((error = bg_store_writable(ctx, dst)) < 0)
		return error;
	if (!strcmp(c.src->name, c.dst->name) && !strcmp(c.src->drv->name, c.dst->drv->name))
		return bg_error_set(ctx, BG_EINPUT, "%s is both the source and the destination",
		                    c.src->name);
	for (k = 0; k < CP_COUNT; k++) {
		bg_db *db = k < CP_SRC_COUNT ? c.src : c.dst;

		if (db->drv->prepare(db, copy_sql[k], &c.s[k]) < 0) {
			error = db->drv->fail(db, ctx, "preparing a statement");
			goto cleanup;
		}
	}
	/* The source's runs first, whole: each run is then read while the
	 * destination writes. */
	runs = c.s[CP_RUNS];
	while ((rc = bg_db_step(runs)) == BG_DB_ROW) {
		if (bg_grow((void **)&ids, &cap, n, sizeof(*ids)) < 0 ||
		    bg_grow((void **)&uids, &ucap, n, sizeof(*uids)) < 0) {
			error = bg_error_oom(ctx);
			goto cleanup;
		}
		ids[n] = bg_db_column_int64(runs, 0);
		if (!(uids[n] = bg_strdup(bg_db_column_text(runs, 1) ? bg_db_column_text(runs, 1)
		                                                     : ""))) {
			error = bg_error_oom(ctx);
			goto cleanup;
		}
		n++;
	}
	bg_db_reset(runs);
	if (rc != BG_DB_DONE) {
		error = cp__fail(&c, CP_RUNS, "listing runs");
		goto cleanup;
	}
	for (i = 0; i < n; i++) {
		/* Between runs: each one copied is whole, and the next copy
		 * finishes the job. */
		if (bg_ctx_cancelled(ctx)) {
			error = bg_error_set(ctx, BG_ERROR,
			                     "interrupted after %zu of %zu runs; the next db copy "
			                     "finishes the job",
			                     i, n);
			goto cleanup;
		}
		if ((error = cp__run(&c, ids[i], uids[i], &copied, &stats->checks_since)) < 0)
			goto cleanup;
		if (copied)
			stats->runs_copied++;
		else
			stats->runs_present++;
	}
	if ((error = cp__rows(&c, CP_BUILDS, CP_D_BUILD, "tttitri", "copying builds",
	                      &stats->builds)) < 0 ||
	    (error = cp__rows(&c, CP_OUTBOX, CP_D_OUTBOX, "tttttttttiiiti",
	                      "copying the alert outbox", &stats->alerts)) < 0)
		goto cleanup;

cleanup:
	for (k = 0; k < CP_COUNT; k++)
		bg_db_finalize(c.s[k]);
	bg_db_batches_free(&c.batches);
	cp__results_clear(&c);
	free(c.res);
	free(c.rows);
	for (i = 0; i < c.nmap; i++)
		free(c.map[i].direction);
	free(c.map);
	bg_index__free(&c.ix);
	bg_index__free(&c.ixdst);
	bg_strings_free(uids, n);
	free(ids);
	free(c.values);
	return error;
}
