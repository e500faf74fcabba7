/*
 * store.h -- the results store's rows (lib/store.c, lib/store_copy.c):
 * runs begun, filled and finished, their series, samples, tags and
 * outcomes, the history of a series, recorded verdicts, remembered builds,
 * the alert outbox, and copying between databases.
 *
 * benchguard.h keeps opening, naming and freeing a store: a program linked
 * against libbenchguard hands the store to the entry points (suite, check,
 * ci, compare, bisect, report, baselines, alerts), which read and write
 * these rows themselves.  This interface is shared by lib/ and cmd/ through
 * internal.h, is not installed, and libbenchguard.so does not export it, so
 * the schema's plumbing can change without breaking such a program.
 */
#ifndef BG_STORE_H
#define BG_STORE_H

#include <stddef.h>
#include <stdint.h>

#include "benchguard.h"

/* ---------------------------------------------------------- the database */

/* Schema version after migration (as found, for bg_store_open_peek). */
int bg_store_schema_version(bg_store *store);

/* The schema version the open migrated the database from, after which an
 * older benchguard refuses it; 0 when it was current (or new). */
int bg_store_upgraded_from(const bg_store *store);

/* The schema version this build writes. */
int bg_store_schema_current(void);

/* What bg_store_copy did. */
typedef struct {
	size_t runs_copied;  /* complete runs the destination did not have */
	size_t runs_present; /* runs it had already (by uid) */
	size_t checks_since; /* ci's verdicts on those, recorded after a copy */
	size_t builds;       /* remembered builds added */
	size_t alerts;       /* alert outbox entries added */
} bg_copy_stats;

/*
 * Copies every complete run of `src` (with its machine, commit, facts, tags,
 * results, samples, outcomes and recorded verdicts), its builds and its
 * alert outbox into `dst`, between any two backends.  Runs are matched by
 * uid, so copying again adds nothing but what the source recorded about a
 * run since (ci's verdicts, its pair); each run is one transaction of
 * `dst`.  A series whose unit or direction differs between the two stops
 * the copy (BG_EINPUT).
 */
int bg_store_copy(bg_ctx *ctx, bg_store *src, bg_store *dst, bg_copy_stats *stats);
/*
 * Opens a store for a command that only reads it (history, report, check,
 * db info, baseline export, alert flush).  Unlike bg_store_open, a SQLite
 * file that is not there is refused (BG_EINPUT) and not made, nor its
 * folders: a mistyped --db must not answer "nothing stored".  An empty
 * database is read as one holding no runs (its tables are made), and an
 * older schema is migrated, as bg_store_open would.
 */
int bg_store_open_read(bg_ctx *ctx, const char *spec, bg_store **out);
/*
 * Opens the store a copy reads from.  Unlike bg_store_open, it creates
 * nothing: a SQLite file that is not there, or a database without
 * benchguard's tables (an empty file, an empty PostgreSQL database), is
 * refused (BG_EINPUT) and left as it was.  One with the current schema is
 * not written; an older schema is migrated in place first, as any command
 * run on it would, since the copy reads the current tables.
 */
int bg_store_open_source(bg_ctx *ctx, const char *spec, bg_store **out);

/*
 * Opens an existing database to read its schema version, as it is: nothing
 * is set up or migrated (db info, which must not upgrade what it reports
 * on).  Only bg_store_name, bg_store_backend and bg_store_schema_version
 * may be called on it, then bg_store_free.
 */
int bg_store_open_peek(bg_ctx *ctx, const char *spec, bg_store **out);
/* Whether `spec` names a PostgreSQL database (a URI or key=value string)
 * rather than a SQLite file. */
int bg_store_is_url(const char *spec);

/* -------------------------------------------------------------------- runs */

typedef struct {
	const bg_commit *commit;
	bg_machine *machine;     /* fingerprint and facts are stored */
	const char *source;      /* "run", "import" or "baseline" */
	const char *const *tags; /* "K=V" strings, NULL-terminated, or NULL */
	const char *uid;         /* the run's identity (32 hex); NULL: a new random one */
	int64_t started_at;      /* seconds since the epoch; 0: now */
	int paired;              /* one side of an interleaved measurement (bg_suite_opts) */
} bg_run_info;

/* Starts a run: stored at once, marked incomplete until bg_store_run_finish. */
int bg_store_run_begin(bg_ctx *ctx, bg_store *store, const bg_run_info *info, int64_t *run_id);
/* bg_store_run_begin for a run that may be stored already (a baseline
 * file's): when a run with info->uid exists, *run_id is 0 and nothing is
 * written.  The lookup and the insert are one write transaction, so of two
 * processes importing the same run at once exactly one stores it. */
int bg_store_run_begin_new(bg_ctx *ctx, bg_store *store, const bg_run_info *info, int64_t *run_id);
/* Stores series (samples + summary) and outcomes, in one transaction. */
int bg_store_run_add(bg_ctx *ctx, bg_store *store, int64_t run_id, const bg_results *res);
/* Marks the run complete. */
int bg_store_run_finish(bg_ctx *ctx, bg_store *store, int64_t run_id);
/* Whole runs (an import) in one transaction: for each, begin, series,
 * outcomes and finish, so that a refusal stores none of them.  With
 * keep_dir (a baseline file, which says its own directions) a series
 * stored already keeps its direction: a run that says the other is
 * refused (BG_EINPUT), as one in another unit is; without it (results
 * imported, their directions from the units and the config, as a run's)
 * the stored direction follows the run.  A run with
 * info[i].uid already stored leaves run_ids[i] 0, as bg_store_run_begin_new.
 * On an error, *failed (when not NULL) is the index of the run refused, or
 * n when no one run is to blame (the commit). */
int bg_store_runs_put(bg_ctx *ctx, bg_store *store, const bg_run_info *info,
                      const bg_results *const *res, size_t n, int keep_dir, int64_t *run_ids,
                      size_t *failed);
/* Stores m's volatile facts again for the run (GPU state read after it ran). */
int bg_store_run_set_facts(bg_ctx *ctx, bg_store *store, int64_t run_id, const bg_machine *m);
/*
 * The facts a run was stored with: its machine's stable facts and the run's
 * volatile ones, as a machine (caller frees) for bg_machine_get and
 * bg_gpu_throttling.  No such run: an empty machine.
 */
int bg_store_run_facts(bg_ctx *ctx, bg_store *store, int64_t run_id, bg_machine **out);

typedef struct {
	int64_t run_id;
	char sha[41];
	char *branch;
	int dirty;
	int complete;
	int64_t started_at; /* seconds since the epoch */
	int64_t author_time;
	char *subject;
	char *machine; /* fingerprint */
	char *benchmark, *metric, *unit;
	bg_direction direction;
	bg_summary summary;
	int paired; /* one side of an interleaved measurement */
	/* What `ci` decided for this series of this run (recorded: 0 when no ci
	 * judged it): the final verdict, the first one, and the confirmation. */
	int recorded;
	bg_verdict verdict, first;
	bg_confirm_status confirm;
	char *excluded; /* why the run was excluded (bg_store_run_exclude), or NULL */
} bg_history_row;

/*
 * Run summaries of a series, newest run first.  `series` is
 * "benchmark:metric", or a benchmark name for all its metrics.  limit 0: all.
 * Unknown series -> BG_ENOTFOUND.
 */
int bg_store_history(bg_ctx *ctx, bg_store *store, const char *series, size_t limit,
                     bg_history_row **rows, size_t *nrows);
void bg_history_free(bg_history_row *rows, size_t nrows);

/* A stored run. */
typedef struct {
	int64_t id;
	char sha[41];
	char uid[33]; /* stable across databases (baseline export/import) */
	char *branch;
	char *machine; /* fingerprint */
	char *source;
	int dirty;
	int complete;
	int64_t started_at;
	int64_t author_time;
	char *author, *subject;
	char *excluded;      /* why it was excluded (bg_store_run_exclude), or NULL */
	int64_t excluded_at; /* when, seconds since the epoch */
} bg_run_row;

/* A run by id; unknown -> BG_ENOTFOUND. */
int bg_store_run_get(bg_ctx *ctx, bg_store *store, int64_t run_id, bg_run_row *out);
void bg_run_row_clear(bg_run_row *row);
/*
 * Sets run `run_id` aside from every baseline, report and stored pair,
 * saying why (`reason`: 1 to BG_EXCLUDE_REASON_MAX bytes of UTF-8 without
 * control characters, else BG_EINPUT) at `at` (seconds since the epoch).
 * *changed: 1, or 0 when it was excluded already (its first reason stands).
 * Unknown run: BG_ENOTFOUND.
 */
#define BG_EXCLUDE_REASON_MAX 500
int bg_store_run_exclude(bg_ctx *ctx, bg_store *store, int64_t run_id, const char *reason,
                         int64_t at, int *changed);
/* Undoes it; *changed 0 when the run was not excluded. */
int bg_store_run_include(bg_ctx *ctx, bg_store *store, int64_t run_id, int *changed);
/* Runs of commit `sha` and of `machine` when not NULL, oldest first: the
 * excluded ones (`excluded` 1, complete or not), else every complete run of
 * any role (paired ones too), excluded or not.  Free with bg_run_rows_free. */
int bg_store_runs_list(bg_ctx *ctx, bg_store *store, const char *sha, const char *machine,
                       int excluded, bg_run_row **rows, size_t *n);
/* How many complete runs of `machine` (NULL: any) that started at `since`
 * or later are excluded. */
int bg_store_excluded_count(bg_ctx *ctx, bg_store *store, const char *machine, int64_t since,
                            size_t *n);
/* bg_store_prune: which runs go. */
typedef struct {
	int64_t before;      /* runs started before this go (seconds since the epoch) */
	int64_t max_id;      /* and stored by this run id (bg_store_max_run_id) at the latest, */
	const int64_t *keep; /* but these, ascending (what baselines read) */
	size_t nkeep;
	int dry_run; /* only count */
} bg_prune_opts;

typedef struct {
	size_t runs, results, samples; /* deleted (dry run: that would be) */
	size_t kept;                   /* started before `before`, kept for baselines */
	size_t machines, starts;       /* bg_prune: the baselines walked for them */
} bg_prune_stats;

/* The series that `machine`'s baseline runs measured with more than one
 * instrument, ascending ids. */
int bg_store_mixed_series(bg_ctx *ctx, bg_store *store, const char *machine, int64_t **ids,
                          size_t *n);
/* The id of the newest stored run (0: none): a run stored after it was
 * read was not seen by what bg_store_prune's `keep` was made from. */
int bg_store_max_run_id(bg_ctx *ctx, bg_store *store, int64_t *id);
/* The machines with runs a baseline may use; free with bg_strings_free. */
int bg_store_baseline_machines(bg_ctx *ctx, bg_store *store, char ***fps, size_t *n);
/*
 * Deletes old runs with everything stored under them (results, samples,
 * facts, tags, outcomes, ci's verdicts), PRUNE_BATCH runs a transaction.
 * Commits, machines and series stay.  On an error, stats->runs says how
 * many were deleted before it.
 */
int bg_store_prune(bg_ctx *ctx, bg_store *store, const bg_prune_opts *opts, bg_prune_stats *stats);
/* The run with this uid: *run_id, or 0 when there is none. */
int bg_store_run_by_uid(bg_ctx *ctx, bg_store *store, const char *uid, int64_t *run_id);
/* The newest complete run (of `machine` when not NULL); none -> BG_ENOTFOUND. */
int bg_store_latest_run(bg_ctx *ctx, bg_store *store, const char *machine, int64_t *run_id);
/*
 * Complete runs of commit `sha` on `machine`, oldest first; dirty: 0 clean
 * only, 1 dirty only, -1 both.  None is not an error (*n = 0).
 */
int bg_store_runs_at(bg_ctx *ctx, bg_store *store, const char *sha, const char *machine, int dirty,
                     int64_t **run_ids, size_t *n);
/* The same, only runs that carry tag `tag` ("K=V"; NULL: any). */
int bg_store_runs_tagged(bg_ctx *ctx, bg_store *store, const char *sha, const char *machine,
                         int dirty, const char *tag, int64_t **run_ids, size_t *n);

/*
 * Records that two complete runs were made back to back as one pair (the
 * sides of an interleaved measurement): both name the pair by ref_id's
 * uid.  Called once the second run is complete, so that a pair one side of
 * which was interrupted is never recorded.
 */
int bg_store_pair_record(bg_ctx *ctx, bg_store *store, int64_t ref_id, int64_t cand_id);
/*
 * The recorded pairs (bg_store_pair_record) of a complete run of `ref_sha`
 * with one of `cand_sha`, both on `machine`, carrying `ref_tag` and
 * `cand_tag` ("K=V"; NULL: any); dirty as bg_store_runs_at, for both.
 * Oldest first (by the reference run): (*ref_ids)[k] beside
 * (*cand_ids)[k] (the caller frees both).  A run left without its partner
 * (the other side interrupted) and runs stored before pairs were recorded
 * are in none.  None is not an error (*n = 0).
 */
int bg_store_pairs_tagged(bg_ctx *ctx, bg_store *store, const char *machine, int dirty,
                          const char *ref_sha, const char *ref_tag, const char *cand_sha,
                          const char *cand_tag, int64_t **ref_ids, int64_t **cand_ids, size_t *n);

typedef struct {
	int64_t id;
	char sha[41];
	int64_t author_time; /* of its commit: how far back a walk may have to look */
} bg_run_ref;

/* A machine other than the one asked about, and its stored runs. */
typedef struct {
	char *machine; /* fingerprint or name */
	size_t runs;   /* complete, clean, primary */
	int64_t newest;
} bg_machine_runs;
/* Up to `max` machines other than `machine` with complete, clean, primary
 * runs, most runs first; free with bg_store_machine_runs_free(*out, *n). */
int bg_store_other_machines(bg_ctx *ctx, bg_store *store, const char *machine, size_t max,
                            bg_machine_runs **out, size_t *n);
void bg_store_machine_runs_free(bg_machine_runs *r, size_t n);
/* Every complete, clean run on `machine`, newest first: what baselines draw from. */
int bg_store_baseline_runs(bg_ctx *ctx, bg_store *store, const char *machine, bg_run_ref **refs,
                           size_t *n);

/* One series of one run: its identity and run summary. */
typedef struct {
	int64_t series_id;
	char *benchmark, *metric, *unit;
	bg_direction direction;
	bg_summary summary;
	char *instrument; /* NULL: the clock or the program's own output */
} bg_run_series;

/* Every series of a run, ordered by series id. */
int bg_store_run_series(bg_ctx *ctx, bg_store *store, int64_t run_id, bg_run_series **rows,
                        size_t *n);
void bg_run_series_free(bg_run_series *rows, size_t n);
/*
 * The run summaries the verdict uses (robust_mean) of a run's series, by
 * series id; with `instruments`, what measured each (NULL entries for the
 * clock), freed with bg_strings_free(*instruments, *n).
 */
int bg_store_run_means(bg_ctx *ctx, bg_store *store, int64_t run_id, int64_t **series_ids,
                       double **means, char ***instruments, size_t *n);
/* For each series run `run_id` measured, in series id order: how many
 * complete, clean, primary runs of machine `machine` at a commit other
 * than `exclude_sha` measured it too, counted to `limit` at most. */
typedef void (*bg_series_count_cb)(int64_t series_id, size_t count, void *data);
int bg_store_series_avail(bg_ctx *ctx, bg_store *store, int64_t run_id, const char *machine,
                          const char *exclude_sha, size_t limit, bg_series_count_cb cb, void *data);
/* The same count for every series in the database (their ids ascending),
 * of the runs of `machine` at a commit other than `exclude_sha`. */
int bg_store_machine_avail(bg_ctx *ctx, bg_store *store, const char *machine,
                           const char *exclude_sha, size_t limit, bg_series_count_cb cb,
                           void *data);
/* One series' samples in a run, in their order. */
typedef struct {
	int64_t series_id;
	double *values;
	size_t n;
} bg_series_samples;
/* Every sample of run `run_id`, by series id ascending (a series with no
 * samples is absent); free with bg_series_samples_free(*out, *n). */
int bg_store_run_samples(bg_ctx *ctx, bg_store *store, int64_t run_id, bg_series_samples **out,
                         size_t *n);
void bg_series_samples_free(bg_series_samples *v, size_t n);
/* Frees n strings (NULL entries allowed) and the array; NULL is a no-op. */
void bg_strings_free(char **v, size_t n);
/* The failed and skipped benchmarks of a run. */
int bg_store_run_outcomes(bg_ctx *ctx, bg_store *store, int64_t run_id, bg_outcome **out,
                          size_t *n);
void bg_outcomes_free(bg_outcome *o, size_t n);
/* *yes: the run measured `benchmark` as `definition` describes
 * (bg_config__definition), whatever became of it. */
int bg_store_run_defined(bg_ctx *ctx, bg_store *store, int64_t run_id, const char *benchmark,
                         const char *definition, int *yes);
/* A run's tags as "K=V" strings (NULL-terminated array; free with bg_strv_free). */
int bg_store_run_tags(bg_ctx *ctx, bg_store *store, int64_t run_id, char ***tags);
void bg_strv_free(char **v);

/* The run summary the verdict uses (robust_mean) of one series in one run; NAN if the run lacks it.
 */
int bg_store_run_mean(bg_ctx *ctx, bg_store *store, int64_t run_id, const char *benchmark,
                      const char *metric, double *mean);
/* The raw samples of one series in one run, in measured order. */
int bg_store_samples(bg_ctx *ctx, bg_store *store, int64_t run_id, const char *benchmark,
                     const char *metric, double **values, size_t *n);

/* The runs a report reads: complete, clean, started at or after `since`
 * (seconds since the epoch), on `machine` (NULL: every machine), runs of
 * their own only unless `include_paired`. */
typedef struct {
	int64_t since;
	const char *machine;
	int include_paired;
} bg_period;

/* Every run of the period, oldest id first. */
int bg_store_runs_since(bg_ctx *ctx, bg_store *store, const bg_period *period, bg_run_row **rows,
                        size_t *n);
void bg_run_rows_free(bg_run_row *rows, size_t n);

/* One series of one run, as bg_store_each_result hands it over: the strings
 * are borrowed for the duration of the callback.  Of the run's summary only
 * what a trend reads, since every column read costs per row of a period. */
typedef struct {
	int64_t run_id, series_id;
	const char *benchmark, *metric, *unit;
	bg_direction direction;
	size_t n;               /* samples */
	double stddev;          /* of the samples */
	double robust_mean;     /* else the mean, where the run stored none */
	const char *instrument; /* what measured it; NULL: the clock */
} bg_result_row;

/* Return 0 to go on, < 0 (an error code, message set) to stop. */
typedef int (*bg_result_cb)(const bg_result_row *row, void *data);
/*
 * The results of the runs bg_store_runs_since lists, in one query, series
 * by series (by series id), each series' runs by id.
 */
int bg_store_each_result(bg_ctx *ctx, bg_store *store, const bg_period *period, bg_result_cb cb,
                         void *data);

/* -------------------------------------------------------- recorded verdicts */

/* What `ci` decided for one series (or failed/skipped benchmark). */
typedef struct {
	const char *series, *benchmark, *metric; /* metric NULL for failed/skipped */
	bg_verdict verdict, first;
	bg_confirm_status confirm;
} bg_verdict_record;

typedef struct {
	int64_t run_id;     /* the candidate's first run */
	const char *source; /* "ci" */
	const char *json;   /* the verdict as printed (bg_check_json) */
	size_t pairs;       /* pairs measured to confirm */
	double seconds;     /* what deciding took */
	const bg_verdict_record *rows;
	size_t nrows;
} bg_check_record;

/* Stores a decided verdict, in one transaction (*check_id may be NULL). */
int bg_store_check_record(bg_ctx *ctx, bg_store *store, const bg_check_record *rec,
                          int64_t *check_id);

/* One recorded verdict, as bg_store_each_recorded hands it over (strings
 * borrowed for the callback). */
typedef struct {
	int64_t check_id, run_id;
	const char *series;
	bg_verdict verdict, first;
	bg_confirm_status confirm;
} bg_recorded_row;

typedef int (*bg_recorded_cb)(const bg_recorded_row *row, void *data);
/* The verdicts of the newest recorded check of every run bg_store_runs_since lists. */
int bg_store_each_recorded(bg_ctx *ctx, bg_store *store, const bg_period *period, bg_recorded_cb cb,
                           void *data);
/* The JSON of the newest recorded check of a run; *json NULL when there is none. */
int bg_store_recorded_json(bg_ctx *ctx, bg_store *store, int64_t run_id, char **json);

/* ------------------------------------------------------------------ builds */

/* The remembered outcome of building one commit with one build command on one machine. */
typedef struct {
	int found; /* 0: never built (the rest is zero) */
	int ok;
	char *log_tail; /* the end of the build's output (failed builds); may be NULL */
	double seconds;
	int64_t finished_at; /* seconds since the epoch */
} bg_build_row;

/* The build of `sha` keyed by machine and command hash; none -> found = 0, not an error. */
int bg_store_build_get(bg_ctx *ctx, bg_store *store, const char *sha, const char *machine,
                       const char *command_hash, bg_build_row *out);
/* Records (or replaces) a build's outcome, finished now. */
int bg_store_build_put(bg_ctx *ctx, bg_store *store, const char *sha, const char *machine,
                       const char *command_hash, int ok, const char *log_tail, double seconds);
void bg_build_row_clear(bg_build_row *row);

/* ------------------------------------------------------------ alert outbox */

/* One outbox entry (bg_store_outbox_*); strings belong to the row. */
typedef struct {
	int64_t id;
	char uid[33]; /* the alert's identity, sent as X-Benchguard-Delivery */
	char *kind;   /* "webhook", "slack", "github", "gitlab" */
	char *target; /* the configured target's identity (no secret) */
	char *label;  /* the target for messages (no secret) */
	char *pr;     /* github, gitlab: the pull or merge request; else NULL */
	char *mode;   /* "send"; github, gitlab "update": edit the comment if there is one */
	char *body;   /* exactly what is sent (JSON) */
	int64_t run_id;
	char *state; /* "pending", "delivered", "failed" (refused for good), "superseded" */
	int64_t created_at, delivered_at;
	int attempts;    /* HTTP requests made for it so far */
	int last_status; /* the last HTTP status, 0 if none */
	char *last_error;
} bg_outbox_row;

/* Stores a new pending entry (uid, kind, target, label, mode, body needed). */
int bg_store_outbox_add(bg_ctx *ctx, bg_store *store, const bg_outbox_row *row, int64_t *id);
/* Entries in `state` (NULL: all), oldest first. */
int bg_store_outbox_list(bg_ctx *ctx, bg_store *store, const char *state, bg_outbox_row **rows,
                         size_t *n);
void bg_outbox_row_clear(bg_outbox_row *row);
void bg_outbox_rows_free(bg_outbox_row *rows, size_t n);
/* Takes a pending entry for delivery until `until` (epoch seconds); *claimed
 * 0 when it is no longer pending or another process holds it. */
int bg_store_outbox_claim(bg_ctx *ctx, bg_store *store, int64_t id, int64_t until, int *claimed);
/* When a pending entry may be claimed (epoch seconds: the past when nobody
 * holds it or the holder's claim ran out); 0 when it is not pending. */
int bg_store_outbox_held(bg_ctx *ctx, bg_store *store, int64_t id, int64_t *until);
/* Records a delivery's end: the new state, requests made, and why (may be NULL). */
int bg_store_outbox_settle(bg_ctx *ctx, bg_store *store, int64_t id, const char *state,
                           int attempts, int last_status, const char *last_error);
/* Forgets delivered and superseded entries created before `before`. */
int bg_store_outbox_prune(bg_ctx *ctx, bg_store *store, int64_t before);

#endif
