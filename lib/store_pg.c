/*
 * store_pg.c -- the store's PostgreSQL backend, for fleets of runners that
 * share one history; the only module that uses libpq (lib/db.h).
 *
 * A connection string is a postgresql:// URI or libpq's key=value form, with
 * ${VAR} expanded from the environment; the password comes from libpq's
 * usual places (PGPASSWORD, ~/.pgpass, the string itself) and is never kept
 * in a message: the database is named by its user, host, port and name
 * alone, and every message libpq or the server writes is scrubbed of the
 * password before it is shown.
 *
 * Writers are serialised as SQLite's BEGIN IMMEDIATE serialises them: a
 * write transaction first takes a transaction-scoped advisory lock, so two
 * jobs that store a run at once queue instead of racing on the same
 * machine, commit or series rows, and the migration steps run once under
 * that lock when several jobs start together.  Readers never wait.  The
 * wait for the lock, or for a connection, is benchguard's own poll(), not
 * libpq's, so that Ctrl-C ends it (pg__send, pg__connect).  The schema
 * version lives in a one-row table, benchguard_schema.
 *
 * A connection the server closed while benchguard was idle (a benchmark
 * outlasting idle_session_timeout, a restart) is made again before the
 * next command outside a transaction (pg__ready).
 *
 * Statements are prepared on the server once per connection; parameters
 * go as text (numbers in their shortest exact form) and the server infers
 * their types.  Results are read whole, then stepped row by row.  Samples,
 * the bulk of an import, are sent with one COPY per transaction.
 *
 * libpq is not linked: it is loaded when a database is opened, and closed
 * with it (lib/dl.c says why), its functions called through the table in
 * the handle, db->pq.
 */
#include <errno.h>
#include <math.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>

#include <libpq-fe.h>

#include "db.h"

/*
 * Seconds to wait for a connection when neither the connection string,
 * PGCONNECT_TIMEOUT nor a service file says: libpq's own default is to wait
 * for ever, and a server that accepts and never answers (or an address
 * that drops packets) would hang a CI job until its own time limit.
 */
#define PG_CONNECT_TIMEOUT "10"
/* The advisory lock every write transaction takes ("bench" in ASCII). */
#define PG_WRITE_LOCK "427869726572"
/* Samples are sent when this much is waiting, else at commit. */
#define PG_COPY_FLUSH (8u << 20)

/*
 * The library by its soname, the name of its ABI, which a runtime package
 * installs (Debian's libpq5): the bare libpq.so is only there with the
 * development package.  The 5 is libpq's own major version, the same for
 * every PostgreSQL release since 8.2, not the server's; tests/e2e/
 * t_lazy_libs.sh checks that the libpq.so these headers came with has it.
 */
#define PG_SONAME "libpq.so.5"
#define PG_LIBRARY "PostgreSQL's client library"

/* The libpq functions used here; their types are the headers'. */
#define PG_FUNCTIONS(X)                                                                            \
	X(PQcancel)                                                                                \
	X(PQclear)                                                                                 \
	X(PQcmdTuples)                                                                             \
	X(PQconnectPoll)                                                                           \
	X(PQconnectStartParams)                                                                    \
	X(PQconninfo)                                                                              \
	X(PQconninfoFree)                                                                          \
	X(PQconninfoParse)                                                                         \
	X(PQconsumeInput)                                                                          \
	X(PQerrorMessage)                                                                          \
	X(PQexec)                                                                                  \
	X(PQexecPrepared)                                                                          \
	X(PQfinish)                                                                                \
	X(PQfreeCancel)                                                                            \
	X(PQfreemem)                                                                               \
	X(PQgetCancel)                                                                             \
	X(PQgetResult)                                                                             \
	X(PQgetisnull)                                                                             \
	X(PQgetvalue)                                                                              \
	X(PQisBusy)                                                                                \
	X(PQnfields)                                                                               \
	X(PQntuples)                                                                               \
	X(PQprepare)                                                                               \
	X(PQputCopyData)                                                                           \
	X(PQputCopyEnd)                                                                            \
	X(PQresetPoll)                                                                             \
	X(PQresetStart)                                                                            \
	X(PQresultErrorField)                                                                      \
	X(PQresultStatus)                                                                          \
	X(PQsendPrepare)                                                                           \
	X(PQsendQuery)                                                                             \
	X(PQsendQueryPrepared)                                                                     \
	X(PQserverVersion)                                                                         \
	X(PQsetNoticeReceiver)                                                                     \
	X(PQsocket)                                                                                \
	X(PQstatus)                                                                                \
	X(PQtransactionStatus)

typedef struct {
	void *dl; /* NULL: not loaded */
#define PG_POINTER(f) __typeof__(&f) f;
	PG_FUNCTIONS(PG_POINTER)
#undef PG_POINTER
} pg_lib;

typedef struct {
	bg_db base;
	pg_lib pq; /* libpq, loaded for this handle */
	PGconn *conn;
	char *password;   /* the one in the connection string, for scrubbing */
	char *errmsg;     /* the last failure, already scrubbed */
	char sqlstate[6]; /* its SQLSTATE, "" when none */
	int64_t changes;
	int next_stmt; /* names of prepared statements: bg1, bg2... */
	bg_buf copy;   /* samples waiting for COPY */
	/* The host's cancel flag (bg_ctx_set_cancel) when the store was
	 * opened; `cancelled`: the last command was cancelled for it. */
	const volatile sig_atomic_t *cancel;
	int cancelled;
	/* Connections made: statements prepared on an earlier one are
	 * prepared again (pg__ready). */
	unsigned gen;
	int resetting;  /* pg__ready is making the connection again */
	char *farewell; /* the server's FATAL notice before it hung up */
} pg_db;

typedef struct {
	bg_db_stmt base;
	char name[16];
	char *sql; /* in PostgreSQL's words, to prepare it again */
	unsigned gen;
	int nparams;
	char **values; /* malloc'd text of each parameter, NULL for NULL */
	PGresult *res;
	int row, nrows; /* the current row is row - 1 */
} pg_stmt;

#define PDB(d) ((pg_db *)(d))
#define PST(s) ((pg_stmt *)(s))

/* ---------------------------------------------------------------- errors */

/* Replaces every occurrence of `secret` in *msg by "***". */
static void pg__scrub_one(char **msg, const char *secret)
{
	bg_buf b = BG_BUF_INIT;
	const char *p, *hit;
	size_t n;

	if (!*msg || !secret || !*secret || !strstr(*msg, secret))
		return;
	n = strlen(secret);
	for (p = *msg; (hit = strstr(p, secret)) != NULL; p = hit + n) {
		bg_buf_put(&b, p, (size_t)(hit - p));
		bg_buf_puts(&b, "***");
	}
	bg_buf_puts(&b, p);
	if (b.ptr) {
		free(*msg);
		*msg = bg_buf_detach(&b);
	}
}

/* Keeps `text` (trimmed, on one line, without any password) as the last
 * failure. */
static void pg__set_error(pg_db *db, const char *text, const char *sqlstate)
{
	char *msg = bg_strdup(text ? text : "unknown error"), *p;
	size_t n;

	free(db->errmsg);
	db->errmsg = NULL;
	snprintf(db->sqlstate, sizeof(db->sqlstate), "%s", sqlstate ? sqlstate : "");
	if (!msg)
		return;
	/* One line: libpq ends lines with newlines, and indents with tabs. */
	for (p = msg, n = 0; *p; p++) {
		char c = *p == '\n' || *p == '\r' || *p == '\t' ? ' ' : *p;

		if (c != ' ' || (n && msg[n - 1] != ' '))
			msg[n++] = c;
	}
	msg[n] = '\0';
	while (n && msg[n - 1] == ' ')
		msg[--n] = '\0';
	pg__scrub_one(&msg, db->password);
	pg__scrub_one(&msg, getenv("PGPASSWORD"));
	db->errmsg = msg;
}

/* Keeps the failure a result reports (or the connection's). */
static void pg__result_error(pg_db *db, const PGresult *res)
{
	const char *primary = res ? db->pq.PQresultErrorField(res, PG_DIAG_MESSAGE_PRIMARY) : NULL;
	const char *state = res ? db->pq.PQresultErrorField(res, PG_DIAG_SQLSTATE) : NULL;

	pg__set_error(db, primary ? primary : db->pq.PQerrorMessage(db->conn), state);
}

static int pg__fail(bg_db *d, bg_ctx *ctx, const char *what)
{
	pg_db *db = PDB(d);
	/* A lost connection (class 08, or no SQLSTATE at all) is an I/O error. */
	int code = !db->sqlstate[0] || !strncmp(db->sqlstate, "08", 2) ? BG_EIO : BG_ERROR;

	if (db->cancelled)
		return bg_error_set(ctx, BG_ERROR, "interrupted while waiting for database %s",
		                    d->name);
	if (!strcmp(db->sqlstate, "25006"))
		return bg_error_set(ctx, BG_EIO, "database %s: the database is read-only: %s",
		                    d->name, what);
	return bg_error_set(ctx, code, "database %s: %s: %s", d->name, what,
	                    db->errmsg ? db->errmsg : "unknown error");
}

/* A result that says the command worked; else the failure is kept. */
static int pg__ok(pg_db *db, PGresult *res)
{
	ExecStatusType st = res ? db->pq.PQresultStatus(res) : PGRES_FATAL_ERROR;

	if (st == PGRES_COMMAND_OK || st == PGRES_TUPLES_OK) {
		const char *n = db->pq.PQcmdTuples(res);

		db->changes = n && *n ? strtoll(n, NULL, 10) : 0;
		return 0;
	}
	pg__result_error(db, res);
	return -1;
}

/* ------------------------------------------------------------------ SQL */

static int pg__ready(pg_db *db);

/* Whether the host asked to stop (Ctrl-C, SIGTERM, SIGHUP). */
static int pg__stop(const pg_db *db)
{
	return db->cancel && *db->cancel;
}

/*
 * Sends `sql` and waits for its results, asking the server to cancel it
 * when the host's flag is set: PQexec waits in libpq, through any signal,
 * and a write transaction's first statement waits for every other
 * writer's (the advisory lock), which may be a whole import.  The
 * server's answer to the cancel ends the wait; pg__fail then says
 * "interrupted".  The first failing result is kept; 0 or -1.  With `buf`,
 * the first column of the first row of the last result with rows goes
 * there ("" if none).
 */
/* Seconds a command may take to end once the server was asked to cancel
 * it: a server that stopped answering (a partition, a frozen backend)
 * never does. */
#define PG_CANCEL_WAIT 5.0

/*
 * Waits for the command just sent, in poll() here rather than in libpq, so
 * that the host's flag asks the server to cancel it (pg__fail then says
 * "interrupted").  A server that has not ended the command PG_CANCEL_WAIT
 * seconds after that is given up on: the connection's socket is shut, and
 * libpq's results say it broke.
 */
static void pg__await(pg_db *db)
{
	double asked = 0.0;
	int sent = 0;

	while (db->pq.PQisBusy(db->conn)) {
		struct pollfd pfd = { db->pq.PQsocket(db->conn), POLLIN, 0 };

		if (pg__stop(db) && !sent) {
			PGcancel *c = db->pq.PQgetCancel(db->conn);
			char why[256];

			sent = 1;
			asked = bg_now();
			db->cancelled = c && db->pq.PQcancel(c, why, (int)sizeof(why));
			db->pq.PQfreeCancel(c);
		}
		if (sent && bg_now() - asked > PG_CANCEL_WAIT) {
			db->cancelled = 1;
			if (pfd.fd >= 0)
				shutdown(pfd.fd, SHUT_RDWR);
		}
		if (pfd.fd < 0 || (poll(&pfd, 1, 100) < 0 && errno != EINTR) ||
		    !db->pq.PQconsumeInput(db->conn))
			break; /* PQgetResult says what became of the connection */
	}
}

static int pg__send(pg_db *db, const char *sql, char *buf, size_t size)
{
	PGresult *res;
	int rc = 0;

	db->cancelled = 0;
	if (buf)
		buf[0] = '\0';
	if (pg__ready(db) < 0)
		return -1;
	if (!db->pq.PQsendQuery(db->conn, sql)) {
		pg__set_error(db, db->pq.PQerrorMessage(db->conn), NULL);
		return -1;
	}
	pg__await(db);
	while ((res = db->pq.PQgetResult(db->conn)) != NULL) {
		if (!rc && pg__ok(db, res) < 0)
			rc = -1;
		else if (!rc && buf && db->pq.PQntuples(res) > 0 && db->pq.PQnfields(res) > 0 &&
		         !db->pq.PQgetisnull(res, 0, 0))
			snprintf(buf, size, "%s", db->pq.PQgetvalue(res, 0, 0));
		db->pq.PQclear(res);
	}
	/* Cancelled, but the command had finished first: it stands. */
	if (!rc)
		db->cancelled = 0;
	return rc;
}

static int pg__exec(bg_db *d, const char *sql)
{
	return pg__send(PDB(d), sql, NULL, 0);
}

/* Whether `word` (all capitals) starts at p as a whole word. */
static int pg__word(const char *sql, const char *p, const char *word)
{
	size_t n = strlen(word);

	return !strncmp(p, word, n) &&
	       (p == sql || !(p[-1] == '_' || (p[-1] >= 'A' && p[-1] <= 'Z'))) &&
	       !(p[n] == '_' || (p[n] >= 'A' && p[n] <= 'Z'));
}

/*
 * A migration step in PostgreSQL's words.  The steps are written for
 * SQLite with type names in capitals; here integers are 64-bit, a rowid
 * key is an identity column, text compares byte by byte as SQLite's does
 * (so every ORDER BY gives the same order on both backends), and the
 * random run uid comes from md5().
 */
static char *pg__ddl(const char *sql)
{
	static const struct {
		const char *from, *to;
	} words[] = {
		{ "INTEGER PRIMARY KEY", "BIGINT GENERATED BY DEFAULT AS IDENTITY PRIMARY KEY" },
		{ "INTEGER", "BIGINT" },
		{ "REAL", "DOUBLE PRECISION" },
		{ "TEXT", "TEXT COLLATE \"C\"" },
		{ " WITHOUT ROWID", "" },
		{ "lower(hex(randomblob(16)))",
		  "md5(random()::text || clock_timestamp()::text || id::text)" },
	};
	bg_buf b = BG_BUF_INIT;
	const char *p = sql;
	int quoted = 0, oom = 0;
	size_t i;

	while (*p) {
		if (*p == '\'')
			quoted = !quoted;
		if (!quoted) {
			for (i = 0; i < BG_ARRAY_SIZE(words); i++) {
				const char *w = words[i].from;
				int is_word = w[0] >= 'A' && w[0] <= 'Z';

				if (is_word ? pg__word(sql, p, w) : !strncmp(p, w, strlen(w)))
					break;
			}
			if (i < BG_ARRAY_SIZE(words)) {
				oom |= bg_buf_puts(&b, words[i].to) < 0;
				p += strlen(words[i].from);
				continue;
			}
		}
		oom |= bg_buf_put(&b, p++, 1) < 0;
	}
	if (oom) {
		bg_buf_clear(&b);
		return NULL;
	}
	return bg_buf_detach(&b);
}

static int pg__version(bg_db *d, long *version, int *has_tables)
{
	pg_db *db = PDB(d);
	char buf[64], *end;
	long ours, all;

	*version = 0;
	*has_tables = 0;
	/*
	 * The catalog, not information_schema.tables, which lists only the
	 * tables the role has some right on: to a role granted nothing, a
	 * migrated database looked empty, and even a reading command set out
	 * to create the tables again ("relation already exists").
	 */
	if (pg__send(
	            db,
	            "SELECT count(*) FROM pg_catalog.pg_class c"
	            " JOIN pg_catalog.pg_namespace n ON n.oid = c.relnamespace"
	            " WHERE n.nspname = current_schema() AND c.relkind IN ('r', 'p', 'v', 'm', 'f')"
	            " AND c.relname = 'benchguard_schema'",
	            buf, sizeof(buf)) < 0)
		return -1;
	ours = atol(buf);
	if (pg__send(db,
	             "SELECT count(*) FROM pg_catalog.pg_class c"
	             " JOIN pg_catalog.pg_namespace n ON n.oid = c.relnamespace"
	             " WHERE n.nspname = current_schema() AND c.relkind IN ('r', 'p', 'v', 'm', "
	             "'f')",
	             buf, sizeof(buf)) < 0)
		return -1;
	all = atol(buf);
	if (!ours) {
		*has_tables = all > 0;
		return 0;
	}
	if (pg__send(db, "SELECT max(version) FROM benchguard_schema", buf, sizeof(buf)) < 0)
		return -1;
	if (!buf[0])
		return 0;
	errno = 0;
	*version = strtol(buf, &end, 10);
	if (end == buf || *end || errno)
		return 1;
	return 0;
}

static int pg__set_version(bg_db *d, int version)
{
	char sql[256];

	snprintf(sql, sizeof(sql),
	         "CREATE TABLE IF NOT EXISTS benchguard_schema (version BIGINT NOT NULL);"
	         " DELETE FROM benchguard_schema;"
	         " INSERT INTO benchguard_schema(version) VALUES (%d)",
	         version);
	return pg__exec(d, sql);
}

static int pg__setup(bg_db *d, bg_ctx *ctx, int version, int latest)
{
	(void)d;
	(void)ctx;
	(void)version;
	(void)latest;
	return 0;
}

/*
 * Sends the samples waiting in db->copy with one binary COPY into
 * sample_arrays: a row per result, its id and its samples as one float8
 * array, between the format's header and trailer.  Binary, because
 * formatting a million doubles as text and parsing them back cost as much
 * as storing them.
 */
static int pg__flush(pg_db *db)
{
	static const char header[19] = "PGCOPY\n\377\r\n\0\0\0\0\0\0\0\0\0";
	static const char trailer[2] = "\377\377";
	PGresult *res;
	int rc = 0;

	if (!db->copy.len)
		return 0;
	res = db->pq.PQexec(db->conn,
	                    "COPY sample_arrays(result_id, vals) FROM STDIN (FORMAT binary)");
	if (db->pq.PQresultStatus(res) != PGRES_COPY_IN) {
		rc = pg__ok(db, res);
		db->pq.PQclear(res);
		if (!rc) /* cannot happen: COPY FROM STDIN always asks for data */
			pg__set_error(db, "COPY did not ask for data", NULL);
		goto cleanup;
	}
	db->pq.PQclear(res);
	if (db->pq.PQputCopyData(db->conn, header, (int)sizeof(header)) != 1 ||
	    db->pq.PQputCopyData(db->conn, db->copy.ptr, (int)db->copy.len) != 1 ||
	    db->pq.PQputCopyData(db->conn, trailer, (int)sizeof(trailer)) != 1 ||
	    db->pq.PQputCopyEnd(db->conn, NULL) != 1) {
		pg__set_error(db, db->pq.PQerrorMessage(db->conn), NULL);
		rc = -1;
	}
	/* The COPY's own result, then NULL. */
	while ((res = db->pq.PQgetResult(db->conn)) != NULL) {
		if (!rc && pg__ok(db, res) < 0)
			rc = -1;
		db->pq.PQclear(res);
	}
cleanup:
	db->copy.len = 0;
	if (db->copy.ptr)
		db->copy.ptr[0] = '\0';
	return rc < 0 ? -1 : 0;
}

/* A read transaction sees one snapshot, as SQLite's does: READ COMMITTED
 * would let its second statement see what another job committed after its
 * first (a migration's tables without the version yet). */
static int pg__begin(bg_db *d, int write)
{
	return pg__exec(d, write ? "BEGIN; SELECT pg_advisory_xact_lock(" PG_WRITE_LOCK ")"
	                         : "BEGIN ISOLATION LEVEL REPEATABLE READ");
}

static int pg__commit(bg_db *d)
{
	if (pg__flush(PDB(d)) < 0)
		return -1;
	return pg__exec(d, "COMMIT");
}

static void pg__rollback(bg_db *d)
{
	pg_db *db = PDB(d);
	PGresult *res;

	db->copy.len = 0;
	if (db->pq.PQtransactionStatus(db->conn) != PQTRANS_IDLE) {
		res = db->pq.PQexec(db->conn, "ROLLBACK");
		db->pq.PQclear(res);
	}
}

/* ------------------------------------------------------------ statements */

/* SQLite's ?N parameters as PostgreSQL's $N, outside quoted strings. */
static char *pg__params(const char *sql, int *nparams)
{
	bg_buf b = BG_BUF_INIT;
	const char *p;
	int quoted = 0, oom = 0;

	*nparams = 0;
	for (p = sql; *p; p++) {
		if (*p == '\'')
			quoted = !quoted;
		if (*p == '?' && !quoted && p[1] >= '0' && p[1] <= '9') {
			char *end;
			long n = strtol(p + 1, &end, 10);

			if (n > *nparams)
				*nparams = (int)n;
			oom |= bg_buf_printf(&b, "$%ld", n) < 0;
			p = end - 1;
			continue;
		}
		oom |= bg_buf_put(&b, p, 1) < 0;
	}
	if (oom || !b.ptr) {
		bg_buf_clear(&b);
		return NULL;
	}
	return bg_buf_detach(&b);
}

/* Prepares s on the server, under its name, on this connection. */
/* The one result of the command pg__await waited for (NULL: none). */
static PGresult *pg__result(pg_db *db)
{
	PGresult *res = db->pq.PQgetResult(db->conn), *more;

	while ((more = db->pq.PQgetResult(db->conn)) != NULL)
		db->pq.PQclear(more);
	return res;
}

/* Prepares s on the server, under its name, on this connection. */
static int pg__prepare_on(pg_db *db, pg_stmt *s)
{
	PGresult *res;
	int rc;

	db->cancelled = 0;
	if (!db->pq.PQsendPrepare(db->conn, s->name, s->sql, s->nparams, NULL)) {
		pg__set_error(db, db->pq.PQerrorMessage(db->conn), NULL);
		return -1;
	}
	pg__await(db);
	res = pg__result(db);
	rc = pg__ok(db, res);
	db->pq.PQclear(res);
	if (rc == 0)
		s->gen = db->gen;
	return rc;
}

static int pg__prepare(bg_db *d, const char *sql, bg_db_stmt **out)
{
	pg_db *db = PDB(d);
	pg_stmt *s = NULL;
	char *text = NULL;
	int rc = -1;

	*out = NULL;
	if (!(s = calloc(1, sizeof(*s))) || !(text = pg__params(sql, &s->nparams)) ||
	    (s->nparams && !(s->values = calloc((size_t)s->nparams, sizeof(*s->values))))) {
		pg__set_error(db, "out of memory", NULL);
		goto cleanup;
	}
	s->base.db = d;
	s->sql = text;
	text = NULL;
	snprintf(s->name, sizeof(s->name), "bg%d", ++db->next_stmt);
	if ((rc = pg__ready(db)) < 0 || (rc = pg__prepare_on(db, s)) < 0)
		goto cleanup;
	*out = &s->base;
	s = NULL;
cleanup:
	free(text);
	if (s) {
		free(s->values);
		free(s->sql);
		free(s);
	}
	return rc;
}

static int pg__bind(bg_db_stmt *st, int i, char *text)
{
	pg_stmt *s = PST(st);

	if (i < 1 || i > s->nparams) {
		free(text);
		pg__set_error(PDB(st->db), "parameter index out of range", NULL);
		return -1;
	}
	free(s->values[i - 1]);
	s->values[i - 1] = text;
	return 0;
}

static int pg__bind_int64(bg_db_stmt *s, int i, int64_t v)
{
	char *t = bg_printf("%lld", (long long)v);

	return t ? pg__bind(s, i, t) : -1;
}

/*
 * -0 as 0, as SQLite stores it (a REAL -0.0 comes back 0 there): kept
 * here, a sample or a minimum of -0 read back "-0" from PostgreSQL alone,
 * and the two backends exported different baseline files and histories.
 */
static double pg__zero(double v)
{
	return fpclassify(v) == FP_ZERO ? 0.0 : v;
}

static int pg__bind_double(bg_db_stmt *s, int i, double v)
{
	/* 17 significant digits read back to the same double. */
	char *t = bg_printf("%.17g", pg__zero(v));

	return t ? pg__bind(s, i, t) : -1;
}

static int pg__bind_text(bg_db_stmt *s, int i, const char *v, int len)
{
	char *t = len < 0 ? bg_strdup(v) : strndup(v, (size_t)len);

	return t ? pg__bind(s, i, t) : -1;
}

static int pg__bind_null(bg_db_stmt *s, int i)
{
	return pg__bind(s, i, NULL);
}

static int pg__step(bg_db_stmt *st)
{
	pg_stmt *s = PST(st);
	pg_db *db = PDB(st->db);

	if (!s->res) {
		if (pg__ready(db) < 0 || (s->gen != db->gen && pg__prepare_on(db, s) < 0))
			return -1;
		db->cancelled = 0;
		if (!db->pq.PQsendQueryPrepared(db->conn, s->name, s->nparams,
		                                (const char *const *)s->values, NULL, NULL, 0)) {
			pg__set_error(db, db->pq.PQerrorMessage(db->conn), NULL);
			return -1;
		}
		/* Ctrl-C while it waits (a lock another session holds, a server
		 * that stopped answering) asks the server to cancel it. */
		pg__await(db);
		s->res = pg__result(db);
		if (pg__ok(db, s->res) < 0) {
			db->pq.PQclear(s->res);
			s->res = NULL;
			return -1;
		}
		s->row = 0;
		s->nrows = db->pq.PQresultStatus(s->res) == PGRES_TUPLES_OK
		                   ? db->pq.PQntuples(s->res)
		                   : 0;
	}
	if (s->row < s->nrows) {
		s->row++;
		return BG_DB_ROW;
	}
	return BG_DB_DONE;
}

static const char *pg__column_text(bg_db_stmt *st, int i)
{
	pg_stmt *s = PST(st);
	pg_db *db = PDB(st->db);

	if (!s->res || s->row < 1 || i >= db->pq.PQnfields(s->res) ||
	    db->pq.PQgetisnull(s->res, s->row - 1, i))
		return NULL;
	return db->pq.PQgetvalue(s->res, s->row - 1, i);
}

static int64_t pg__column_int64(bg_db_stmt *s, int i)
{
	const char *t = pg__column_text(s, i);

	if (!t)
		return 0;
	/* A comparison in a SELECT list is a boolean here, an integer in SQLite. */
	if (!strcmp(t, "t"))
		return 1;
	if (!strcmp(t, "f"))
		return 0;
	return strtoll(t, NULL, 10);
}

static double pg__column_double(bg_db_stmt *s, int i)
{
	const char *t = pg__column_text(s, i);

	return t ? strtod(t, NULL) : 0.0;
}

static int pg__column_is_null(bg_db_stmt *st, int i)
{
	pg_stmt *s = PST(st);
	pg_db *db = PDB(st->db);

	return !s->res || s->row < 1 || i >= db->pq.PQnfields(s->res) ||
	       db->pq.PQgetisnull(s->res, s->row - 1, i);
}

static void pg__reset(bg_db_stmt *st)
{
	pg_stmt *s = PST(st);
	pg_db *db = PDB(st->db);

	db->pq.PQclear(s->res);
	s->res = NULL;
	s->row = s->nrows = 0;
}

static void pg__finalize(bg_db_stmt *st)
{
	pg_stmt *s = PST(st);
	pg_db *db = PDB(st->db);
	int i;

	db->pq.PQclear(s->res);
	for (i = 0; i < s->nparams; i++)
		free(s->values[i]);
	free(s->values);
	free(s->sql);
	free(s);
}

static int64_t pg__changes(bg_db *d)
{
	return PDB(d)->changes;
}

static int pg__unique_violation(bg_db *d)
{
	return !strcmp(PDB(d)->sqlstate, "23505");
}

/* n bytes of v, big-endian, at p; returns what follows. */
static unsigned char *pg__be(unsigned char *p, uint64_t v, int n)
{
	int k;

	for (k = 0; k < n; k++)
		p[k] = (unsigned char)(v >> (8 * (n - 1 - k)));
	return p + n;
}

static int pg__samples(bg_db *d, int64_t result_id, const double *values, size_t n)
{
	/* The row: 2 fields; the id (length, 8 bytes); the array (length,
	 * 1 dimension, no NULLs, float8's oid 701, n elements from index 1,
	 * then each element's length and 8 bytes). */
	enum { HEAD = 2 + 4 + 8 + 4 + 20, ELEM = 4 + 8 };
	pg_db *db = PDB(d);
	unsigned char *p;
	uint64_t bits;
	size_t i;

	if (n > 0x7ffffff0u / ELEM - HEAD) {
		pg__set_error(db, "too many samples for one result", NULL);
		return -1;
	}
	if (bg_buf_grow(&db->copy, HEAD + n * ELEM) < 0) {
		pg__set_error(db, "out of memory", NULL);
		return -1;
	}
	p = (unsigned char *)db->copy.ptr + db->copy.len;
	p = pg__be(p, 2, 2);
	p = pg__be(p, 8, 4);
	p = pg__be(p, (uint64_t)result_id, 8);
	p = pg__be(p, 20 + n * ELEM, 4);
	p = pg__be(p, 1, 4);
	p = pg__be(p, 0, 4);
	p = pg__be(p, 701, 4);
	p = pg__be(p, n, 4);
	p = pg__be(p, 1, 4);
	for (i = 0; i < n; i++) {
		double v = pg__zero(values[i]);

		memcpy(&bits, &v, sizeof(bits));
		p = pg__be(p, 8, 4);
		p = pg__be(p, bits, 8);
	}
	db->copy.len += HEAD + n * ELEM;
	/* Outside a transaction, or a large import: send them now. */
	if (db->pq.PQtransactionStatus(db->conn) == PQTRANS_IDLE || db->copy.len >= PG_COPY_FLUSH)
		return pg__flush(db);
	return 0;
}

static void pg__close(bg_db *d)
{
	pg_db *db = PDB(d);

	if (db->conn)
		db->pq.PQfinish(db->conn);
	/* After PQfinish: the library goes when its last user does. */
	bg_dl__close(db->pq.dl);
	bg_buf_clear(&db->copy);
	free(db->password);
	free(db->errmsg);
	free(db->farewell);
	free(d->name);
	free(db);
}

static const bg_db_driver pg_driver = {
	.name = "postgresql",
	.close = pg__close,
	.fail = pg__fail,
	.exec = pg__exec,
	.ddl = pg__ddl,
	.version = pg__version,
	.set_version = pg__set_version,
	.setup = pg__setup,
	.begin = pg__begin,
	.commit = pg__commit,
	.rollback = pg__rollback,
	.prepare = pg__prepare,
	.bind_int64 = pg__bind_int64,
	.bind_double = pg__bind_double,
	.bind_text = pg__bind_text,
	.bind_null = pg__bind_null,
	.step = pg__step,
	.column_int64 = pg__column_int64,
	.column_double = pg__column_double,
	.column_text = pg__column_text,
	.column_is_null = pg__column_is_null,
	.reset = pg__reset,
	.finalize = pg__finalize,
	.changes = pg__changes,
	.unique_violation = pg__unique_violation,
	.samples = pg__samples,
};

/* ------------------------------------------------------------ connecting */

static void pg__notice(void *arg, const PGresult *res)
{
	pg_db *db = arg;
	const char *sev = db->pq.PQresultErrorField(res, PG_DIAG_SEVERITY_NONLOCALIZED);
	const char *msg = db->pq.PQresultErrorField(res, PG_DIAG_MESSAGE_PRIMARY);

	/* The library never prints: NOTICEs (CREATE ... IF NOT EXISTS) go.
	 * A FATAL one came while the connection was idle, before the server
	 * hung up (idle_session_timeout, an administrator's shutdown): it says
	 * why the connection was lost better than libpq's "server closed the
	 * connection unexpectedly".  The severity as the server names it in
	 * any language (PostgreSQL 9.6 and later; before, the local word). */
	if (!sev)
		sev = db->pq.PQresultErrorField(res, PG_DIAG_SEVERITY);
	if (sev && msg && !strcmp(sev, "FATAL")) {
		free(db->farewell);
		db->farewell = bg_strdup(msg);
	}
}

/* The value of `keyword` in parsed options, or NULL. */
static const char *pg__opt(PQconninfoOption *opts, const char *keyword)
{
	PQconninfoOption *o;

	for (o = opts; o && o->keyword; o++)
		if (!strcmp(o->keyword, keyword))
			return o->val && *o->val ? o->val : NULL;
	return NULL;
}

/* How pg__wait ends, when not with a connection. */
enum { PG_WAIT_FAILED = -1, PG_WAIT_STOPPED = -2, PG_WAIT_TIMEOUT = -3 };

/*
 * Waits for the connection libpq is making (PQconnectStartParams's, or
 * PQresetStart's when `again`) as PQconnectdbParams would, but in poll()
 * here, so that Ctrl-C or SIGTERM ends the wait at once: libpq's own wait
 * goes on through any signal, and a server that never answers held a
 * command for its whole connect_timeout.  PQconnectPoll leaves that
 * timeout to its caller: it is the one libpq settled on (ours, the
 * string's, PGCONNECT_TIMEOUT's or a service file's; at least 2 s, as
 * libpq rounds it), counted afresh whenever libpq moves to another
 * address, and given back in *limit.  0 when connected, else PG_WAIT_*.
 */
static int pg__wait(pg_db *db, int again, double *limit)
{
	PostgresPollingStatusType st = PGRES_POLLING_WRITING;
	PQconninfoOption *used;
	double until = 0.0;
	int sock = -1;

	*limit = 0.0;
	if ((used = db->pq.PQconninfo(db->conn)) != NULL) {
		const char *t = pg__opt(used, "connect_timeout");

		*limit = t ? strtod(t, NULL) : 0.0;
		if (*limit > 0.0 && *limit < 2.0)
			*limit = 2.0;
		db->pq.PQconninfoFree(used);
	}
	while (db->pq.PQstatus(db->conn) != CONNECTION_BAD && st != PGRES_POLLING_OK &&
	       st != PGRES_POLLING_FAILED) {
		struct pollfd pfd = { db->pq.PQsocket(db->conn),
			              st == PGRES_POLLING_READING ? POLLIN : POLLOUT, 0 };
		int n;

		if (pfd.fd != sock) {
			sock = pfd.fd;
			until = *limit > 0.0 ? bg_now() + *limit : 0.0;
		}
		if (pg__stop(db))
			return PG_WAIT_STOPPED;
		if (until > 0.0 && bg_now() >= until)
			return PG_WAIT_TIMEOUT;
		n = pfd.fd < 0 ? -1 : poll(&pfd, 1, 100);
		if (n < 0 && errno != EINTR)
			break; /* PQstatus says what became of the connection */
		if (n > 0)
			st = again ? db->pq.PQresetPoll(db->conn) : db->pq.PQconnectPoll(db->conn);
	}
	return db->pq.PQstatus(db->conn) == CONNECTION_OK ? 0 : PG_WAIT_FAILED;
}

static int pg__connect(bg_ctx *ctx, pg_db *db, const char *const *keys, const char *const *vals)
{
	double limit;

	if (!(db->conn = db->pq.PQconnectStartParams(keys, vals, 1)))
		return bg_error_oom(ctx);
	switch (pg__wait(db, 0, &limit)) {
	case 0:
		return 0;
	case PG_WAIT_STOPPED:
		return bg_error_set(ctx, BG_ERROR, "interrupted while connecting to database %s",
		                    db->base.name);
	case PG_WAIT_TIMEOUT:
		return bg_error_set(ctx, BG_EIO,
		                    "database %s: cannot connect: timeout expired after %g s",
		                    db->base.name, limit);
	default:
		pg__set_error(db, db->pq.PQerrorMessage(db->conn), NULL);
		return bg_error_set(ctx, BG_EIO, "database %s: cannot connect: %s", db->base.name,
		                    db->errmsg ? db->errmsg : "unknown error");
	}
}

/* The session's settings, on every connection made. */
static int pg__session(pg_db *db)
{
	/*
	 * Every number comes back as text, and float8's text has only 15
	 * significant digits where extra_float_digits is 0 or less (the
	 * default before PostgreSQL 12, and what a server, database or role
	 * may set): samples and means would come back rounded.  3 gives the
	 * shortest form that reads back exactly (12 and later) or 17 digits.
	 */
	return pg__send(db, "SET extra_float_digits = 3", NULL, 0);
}

/*
 * Before a command is sent outside a transaction: a connection that the
 * server closed while benchguard had nothing to say (idle_session_timeout
 * while a benchmark ran for longer, a restart, pg_terminate_backend) is
 * made again, once, with the same parameters.  Reading what came while
 * the connection was idle is how libpq learns that it is gone; nothing of
 * the command has been sent yet, so nothing is done twice.  Inside a
 * transaction a lost connection fails the transaction, as it did: what
 * the server kept of it is not known here.
 */
static int pg__ready(pg_db *db)
{
	PGTransactionStatusType t = db->pq.PQtransactionStatus(db->conn);
	char *lost = NULL;
	double limit = 0.0;
	int rc;

	/* pg__session's own command, on the connection just made. */
	if (db->resetting)
		return 0;
	if (t == PQTRANS_IDLE) {
		/* A server that hangs up sends its FATAL message, then the end
		 * of the stream: libpq sees the end on the read after, and
		 * hands the message to pg__notice only when asked to parse
		 * what it read (PQisBusy). */
		struct pollfd pfd = { db->pq.PQsocket(db->conn), POLLIN, 0 };
		int k;

		for (k = 0; k < 4 && pfd.fd >= 0 && poll(&pfd, 1, 0) > 0 &&
		            db->pq.PQconsumeInput(db->conn);
		     k++)
			(void)db->pq.PQisBusy(db->conn);
		(void)db->pq.PQisBusy(db->conn);
	} else if (t != PQTRANS_UNKNOWN) {
		return 0;
	}
	/* Not only CONNECTION_BAD: a connection left half made by a timed
	 * out or interrupted attempt is made again too. */
	if (db->pq.PQstatus(db->conn) == CONNECTION_OK && !db->farewell)
		return 0;
	pg__set_error(db, db->farewell ? db->farewell : db->pq.PQerrorMessage(db->conn), NULL);
	lost = db->errmsg ? bg_strdup(db->errmsg) : NULL;
	free(db->farewell);
	db->farewell = NULL;
	rc = db->pq.PQresetStart(db->conn) ? pg__wait(db, 1, &limit) : PG_WAIT_FAILED;
	if (rc == 0) {
		db->gen++;
		db->resetting = 1;
		rc = pg__session(db);
		db->resetting = 0;
	} else if (rc == PG_WAIT_STOPPED) {
		db->cancelled = 1;
	} else {
		char *why = rc == PG_WAIT_TIMEOUT ? bg_printf("timeout expired after %g s", limit)
		                                  : bg_strdup(db->pq.PQerrorMessage(db->conn));
		char *msg =
		        bg_printf("the connection was lost (%s), and connecting again failed: %s",
		                  lost ? lost : "unknown error", why ? why : "unknown error");

		pg__set_error(db, msg ? msg : "the connection was lost", NULL);
		free(msg);
		free(why);
	}
	free(lost);
	return rc < 0 ? -1 : 0;
}

#define PG_URI_UNENCODED                                                                           \
	"the PostgreSQL URI's user name or password holds a '/', '@', '?' or '#' that is "         \
	"not percent-encoded (write %2F, %40, %3F, %23; a ${VAR} there is encoded for you)"

/*
 * Whether a postgresql:// URI reads as it was meant: an authority with at
 * most one '@', and no '@' after it before the parameters (a password's '/'
 * ends the authority early, and the rest of it becomes the database name).
 * Any other string: yes.
 */
static int pg__uri_whole(const char *s)
{
	const char *p, *auth;
	int ats = 0;

	if (strncmp(s, "postgresql://", 13) && strncmp(s, "postgres://", 11))
		return 1;
	auth = strstr(s, "://") + 3;
	for (p = auth; *p && !strchr("/?#", *p); p++)
		ats += *p == '@';
	if (ats > 1)
		return 0;
	for (; *p && *p != '?' && *p != '#'; p++)
		if (*p == '@')
			return 0;
	return 1;
}

/*
 * How messages name the database: postgresql://user@host:port/dbname from
 * the string as written (a ${VAR} stays a name), never its password.
 */
static char *pg__display(const pg_db *db, const char *spec)
{
	PQconninfoOption *opts = db->pq.PQconninfoParse(spec, NULL);
	const char *user, *host, *port, *dbname;
	char *out;

	if (!opts)
		return bg_strdup("(an unreadable PostgreSQL connection string)");
	user = pg__opt(opts, "user");
	host = pg__opt(opts, "host");
	port = pg__opt(opts, "port");
	dbname = pg__opt(opts, "dbname");
	if (host && host[0] == '/') /* a socket folder: as libpq's URIs write it */
		out = bg_printf("postgresql://%s%s/%s?host=%s%s%s", user ? user : "",
		                user ? "@" : "", dbname ? dbname : "", host, port ? "&port=" : "",
		                port ? port : "");
	else
		out = bg_printf("postgresql://%s%s%s%s%s/%s", user ? user : "", user ? "@" : "",
		                host ? host : "", port ? ":" : "", port ? port : "",
		                dbname ? dbname : "");
	db->pq.PQconninfoFree(opts);
	return out;
}

/* libpq into pq, or an error that names it (and how the loader failed). */
static int pg__load(bg_ctx *ctx, pg_lib *pq)
{
#define PG_NAME(f) #f,
#define PG_SLOT(f) &pq->f,
	static const char *const names[] = { PG_FUNCTIONS(PG_NAME) };
	void *const slots[] = { PG_FUNCTIONS(PG_SLOT) };
#undef PG_NAME
#undef PG_SLOT

	return bg_dl__load(ctx, PG_SONAME, PG_LIBRARY, names, slots, BG_ARRAY_SIZE(names), &pq->dl);
}

int bg_db_pg_open(bg_ctx *ctx, const char *spec, bg_db **out)
{
	PQconninfoOption *opts = NULL;
	pg_db *db = NULL;
	char *conninfo = NULL, *perr = NULL;
	int error = 0;

	*out = NULL;
	if (!(db = calloc(1, sizeof(*db)))) {
		error = bg_error_oom(ctx);
		goto cleanup;
	}
	db->base.drv = &pg_driver;
	if ((error = pg__load(ctx, &db->pq)) < 0)
		goto cleanup;
	/* A URI whose password holds an unencoded '/' or '@' reads as another
	 * host, port or database name, which the name below and libpq's
	 * errors would quote: part of the password in a CI log. */
	if (!pg__uri_whole(spec)) {
		error = bg_error_set(ctx, BG_EINPUT, "%s", PG_URI_UNENCODED);
		goto cleanup;
	}
	if (!(db->base.name = pg__display(db, spec))) {
		error = bg_error_oom(ctx);
		goto cleanup;
	}
	if ((error = bg_config__expand_uri(ctx, spec, &conninfo)) < 0) {
		char why[256];

		snprintf(why, sizeof(why), "%s", bg_ctx_error(ctx));
		error = bg_error_set(ctx, BG_EINPUT, "database %s: %s", db->base.name, why);
		goto cleanup;
	}
	if (!pg__uri_whole(conninfo)) {
		error = bg_error_set(ctx, BG_EINPUT, "database %s: %s", db->base.name,
		                     PG_URI_UNENCODED);
		goto cleanup;
	}
	if (!(opts = db->pq.PQconninfoParse(conninfo, &perr))) {
		/* Not libpq's words: they may quote the string, password and all. */
		error = bg_error_set(ctx, BG_EINPUT,
		                     "database %s: libpq cannot read it as a URI or key=value "
		                     "string",
		                     db->base.name);
		goto cleanup;
	}
	if (pg__opt(opts, "password") && !(db->password = bg_strdup(pg__opt(opts, "password")))) {
		error = bg_error_oom(ctx);
		goto cleanup;
	}
	{
		/* The string's own connect_timeout, given after ours, wins. */
		const char *keys[] = { "connect_timeout", "dbname", NULL };
		const char *vals[] = { PG_CONNECT_TIMEOUT, conninfo, NULL };
		const char *env = getenv("PGCONNECT_TIMEOUT"), *svc = getenv("PGSERVICE");
		int ours = !pg__opt(opts, "connect_timeout") && !pg__opt(opts, "service") &&
		           !(env && *env) && !(svc && *svc);

		db->cancel = bg_ctx__cancel_flag(ctx);
		if ((error = pg__connect(ctx, db, ours ? keys : keys + 1, ours ? vals : vals + 1)) <
		    0)
			goto cleanup;
	}
	db->pq.PQsetNoticeReceiver(db->conn, pg__notice, db);
	if (db->pq.PQserverVersion(db->conn) < 100000) {
		error = bg_error_set(
		        ctx, BG_ERROR,
		        "database %s: PostgreSQL %d.%d is too old (10 or later needed)",
		        db->base.name, db->pq.PQserverVersion(db->conn) / 10000,
		        db->pq.PQserverVersion(db->conn) / 100 % 100);
		goto cleanup;
	}
	if (pg__session(db) < 0) {
		error = pg__fail(&db->base, ctx, "setting up the connection");
		goto cleanup;
	}
	*out = &db->base;

cleanup:
	/* libpq frees what it made: the handle, and with it the library, last. */
	if (perr)
		db->pq.PQfreemem(perr);
	if (opts)
		db->pq.PQconninfoFree(opts);
	if (conninfo) {
		/* It may hold the password. */
		memset(conninfo, 0, strlen(conninfo));
		free(conninfo);
	}
	if (db && !*out)
		pg__close(&db->base);
	return error;
}
