/*
 * cli.h -- what the `benchguard` subcommands share: the state built from
 * global options, the dispatch-table entry, option parsing that accepts the
 * global options anywhere, and output helpers (tables in table or Markdown
 * form, values with human units, JSON printing).
 *
 * Error rule: a command returns an exit code (0..3) or a negative
 * bg_error_code whose message is on st->ctx; main() alone prints it, as the
 * one line "benchguard: <message>".
 */
#ifndef BG_CLI_H
#define BG_CLI_H

#include <getopt.h>
#include <stdio.h>

#include "benchguard.h"
#include "internal.h"

struct json_object;

/* CLI_JUNIT: check alone prints it (cli_getopt refuses it elsewhere). */
typedef enum { CLI_TABLE = 0, CLI_JSON, CLI_MARKDOWN, CLI_JUNIT } cli_format;

typedef struct {
	bg_ctx *ctx;
	const char *db_path;     /* --db, else $BENCHGUARD_DB, else NULL (default) */
	const char *config_path; /* --config, else NULL (repository root) */
	cli_format format;
	int quiet, verbose, color;
	int stderr_tty;
	/* A table or text that could not be made (out of memory): what was
	 * printed is incomplete, and the command fails as for a lost write. */
	int print_failed;
	int progress_shown; /* a \r progress line is on stderr and needs clearing */
	double progress_at; /* when it was last drawn (bg_now() seconds) */
	int info_verbose;   /* the library's info lines (checkouts, builds) only with -v:
	                       a command whose own lines say what happens sets it */
} cli_state;

/* Where things are: the repository, its config, its database. */
typedef struct {
	bg_repo *repo;
	bg_config *config; /* only when loaded */
	bg_store *store;
	bg_machine *machine;
	char *db_path;
} cli_env;

typedef struct {
	const char *name;
	int (*fn)(cli_state *st, int argc, char **argv);
	const char *summary;
	const char *usage; /* full help text: usage line, then options */
} cli_command;

extern const cli_command cli_commands[];
const cli_command *cli_find_command(const char *name);
void cli_print_usage(FILE *f);

/* Flags of `run`, shared with `ci`. */
typedef struct {
	const char *filter, *machine;
	int samples, warmup, nruns, no_build; /* -1: config */
	double timeout;                       /* 0: config */
	const char **tags;
	size_t ntags;
	char *const *only;       /* if set, only these benchmarks (exact names) */
	const char *commit;      /* --commit REV: the suite at that commit, in a cached worktree */
	int retry_build;         /* --retry-build: build again a commit whose build failed before */
	const bg_config *config; /* the suite to run; NULL: env->config */
} cli_run_flags;

enum {
	CLI_OPT_FILTER = 1800,
	CLI_OPT_SAMPLES,
	CLI_OPT_WARMUP,
	CLI_OPT_RUNS,
	CLI_OPT_TIMEOUT,
	CLI_OPT_MACHINE,
	CLI_OPT_TAG,
	CLI_OPT_NO_BUILD,
	CLI_OPT_COMMIT,
	CLI_OPT_RETRY_BUILD
};

/* clang-format off */
#define CLI_RUN_LONG_OPTIONS                                              \
	{ "filter", required_argument, NULL, CLI_OPT_FILTER },             \
		{ "samples", required_argument, NULL, CLI_OPT_SAMPLES },   \
		{ "warmup", required_argument, NULL, CLI_OPT_WARMUP },     \
		{ "runs", required_argument, NULL, CLI_OPT_RUNS },         \
		{ "timeout", required_argument, NULL, CLI_OPT_TIMEOUT },   \
		{ "machine", required_argument, NULL, CLI_OPT_MACHINE },   \
		{ "tag", required_argument, NULL, CLI_OPT_TAG },           \
		{ "no-build", no_argument, NULL, CLI_OPT_NO_BUILD },       \
		{ "commit", required_argument, NULL, CLI_OPT_COMMIT },     \
		{ "retry-build", no_argument, NULL, CLI_OPT_RETRY_BUILD }
/* clang-format on */

void cli_run_flags_init(cli_run_flags *f);
void cli_run_flags_clear(cli_run_flags *f);
/* 1 if `opt` was a run flag (taken), 0 if not, < 0 on a bad value. */
int cli_run_option(cli_state *st, cli_run_flags *f, int argc, int opt, const char *arg);
/* The library's suite options from the flags, with the CLI's progress lines. */
void cli_suite_opts(cli_state *st, cli_env *env, const cli_run_flags *f, bg_suite_opts *o);
/* Events that draw the progress bar only (paired runs), and report failures. */
bg_suite_event_cb cli_quiet_events(void);
/* The suite's build in `cwd`; a failure prints the log's tail, then BG_EBUILD. */
int cli_build(cli_state *st, cli_env *env, const char *cwd);
/* "the working tree has uncommitted changes" when HEAD is dirty. */
void cli_warn_dirty(cli_state *st, const bg_commit *head);
/* "stored N runs at SHA on machine M in DB". */
void cli_say_stored(cli_state *st, cli_env *env, const bg_commit *head, size_t nruns);
/* `run` at the working tree: HEAD, the build (unless --no-build), the runs. */
int cli_run_worktree(cli_state *st, cli_env *env, const cli_run_flags *f, bg_commit *head,
                     bg_suite_output *out);

/* Flags of the verdict, shared by `check` and `ci` (unset: from the config). */
typedef struct {
	const char *baseline_branch;
	int window, min_runs;                 /* -1: config */
	double alpha, min_change, min_effect; /* NAN: config */
	int fdr;                              /* -1: config */
} cli_check_flags;

enum {
	CLI_OPT_BASELINE_BRANCH = 1900,
	CLI_OPT_WINDOW,
	CLI_OPT_MIN_RUNS,
	CLI_OPT_ALPHA,
	CLI_OPT_MIN_CHANGE,
	CLI_OPT_MIN_EFFECT,
	CLI_OPT_NO_FDR,
	CLI_OPT_FDR
};

#define CLI_CHECK_LONG_OPTIONS                                                                     \
	{ "baseline-branch", required_argument, NULL, CLI_OPT_BASELINE_BRANCH },                   \
	        { "window", required_argument, NULL, CLI_OPT_WINDOW },                             \
	        { "min-runs", required_argument, NULL, CLI_OPT_MIN_RUNS },                         \
	        { "alpha", required_argument, NULL, CLI_OPT_ALPHA },                               \
	        { "min-change", required_argument, NULL, CLI_OPT_MIN_CHANGE },                     \
	        { "min-effect", required_argument, NULL, CLI_OPT_MIN_EFFECT },                     \
	        { "no-fdr", no_argument, NULL, CLI_OPT_NO_FDR },                                   \
	{                                                                                          \
		"fdr", no_argument, NULL, CLI_OPT_FDR                                              \
	}

void cli_check_flags_init(cli_check_flags *f);
/* 1 if `opt` was a verdict flag (taken), 0 if not, < 0 on a bad value. */
int cli_check_option(cli_state *st, cli_check_flags *f, int opt, const char *arg);
/* The verdict's options: the config's, with the flags over them.  A window
 * smaller than min_runs is refused (exit 2) as the config refuses it. */
int cli_check_opts(cli_state *st, const cli_check_flags *f, const bg_config *cfg, bg_check_opts *o);
/* The verdict on stdout: a table, Markdown or JSON (--format). */
int cli_check_print(cli_state *st, const bg_check_result *res);
/* Its Markdown (the step summary) into f. */
int cli_check_markdown(cli_state *st, const bg_check_result *res, FILE *f);

/* Commands (one file each). */
int cmd_init(cli_state *st, int argc, char **argv);
int cmd_run(cli_state *st, int argc, char **argv);
int cmd_import(cli_state *st, int argc, char **argv);
int cmd_check(cli_state *st, int argc, char **argv);
int cmd_ci(cli_state *st, int argc, char **argv);
int cmd_compare(cli_state *st, int argc, char **argv);
int cmd_bisect(cli_state *st, int argc, char **argv);
int cmd_baseline(cli_state *st, int argc, char **argv);
int cmd_calibrate(cli_state *st, int argc, char **argv);
int cmd_history(cli_state *st, int argc, char **argv);
int cmd_fingerprint(cli_state *st, int argc, char **argv);
int cmd_help(cli_state *st, int argc, char **argv);
int cmd_gc(cli_state *st, int argc, char **argv);
int cmd_db(cli_state *st, int argc, char **argv);
int cmd_exclude(cli_state *st, int argc, char **argv);
int cmd_alert(cli_state *st, int argc, char **argv);
int cmd_report(cli_state *st, int argc, char **argv);

/*
 * Pinned commits (cmd/pinned.c).  cli_prepare_commit resolves `rev`
 * (unknown -> exit 2, naming it) and prepares its worktree with the
 * config's build command (env: repo, config, machine and store open); a
 * failed build, now or remembered, prints the build log's tail on stderr and
 * returns BG_EBUILD (exit 3) "build of <sha12> failed (...)".  The _soft
 * form returns 0 with wt->failed set instead and prints nothing (bisect
 * skips such a commit).  Both fill *commit and *wt (the caller clears them,
 * also on failure).
 */
/* REV as run --commit stores it (on the baseline branch when it is), with
 * no checkout. */
int cli_lookup_commit(cli_state *st, cli_env *env, const char *rev, bg_commit *commit);
int cli_prepare_commit(cli_state *st, cli_env *env, const char *rev, int retry_failed,
                       bg_commit *commit, bg_worktree *wt);
int cli_prepare_commit_soft(cli_state *st, cli_env *env, const char *rev, int retry_failed,
                            bg_commit *commit, bg_worktree *wt);
/*
 * compare and bisect take run's and check's option tables, but build their
 * commits once in worktrees and judge one commit against another, not
 * against a rolling baseline: --no-build, --window and --min-runs are
 * usage errors there ("not an option of CMD"); 0 for any other option.
 */
int cli_pinned_unused_option(cli_state *st, const char *cmd, int opt);
/* <repo root>/.benchguard/worktrees, or $BENCHGUARD_CACHE when set (caller frees). */
char *cli_cache_dir(cli_state *st, const cli_env *env);
/* Creates the default cache's private .benchguard/ (nothing for $BENCHGUARD_CACHE). */
int cli_ensure_cache(cli_state *st, cli_env *env);
/*
 * The suite as a checkout of another commit has it: its own benchguard.json
 * (at the same place as the user's), so that commit is measured as it was.
 * *cfg NULL (and 0) when --config was given, or the checkout has none or
 * one that does not load (a warning says why).
 */
int cli_checkout_config(cli_state *st, const cli_env *env, const char *checkout, bg_config **cfg);

/*
 * getopt_long over a command's own options plus the global ones, which are
 * handled here.  Returns the next command option (as getopt_long does), -1
 * at the end, or '?' after setting a usage error on st->ctx.  For -h/--help
 * the command's usage is printed, for --version the version, and 'h' is
 * returned: the command then returns 0 and does nothing else.  Without a
 * command (main), --version returns 'V'.
 */
#define CLI_OPT_BASE 1000
int cli_getopt(cli_state *st, int argc, char **argv, const char *shortopts,
               const struct option *longopts, const cli_command *cmd);
/* Global options (shared with main). Returns 1 if `opt` was one, 0 if not,
 * < 0 after setting a usage error on a bad value. */
int cli_global_option(cli_state *st, int opt, const char *arg);

/* Sets a usage error (exit 2) on st->ctx and returns BG_EINPUT. */
int cli_usage_error(cli_state *st, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* "OPT is not an option of CMD: WHY" (why may be NULL): a usage error for
 * an option of a shared table (run's, check's) that CMD has no use for. */
int cli_not_an_option(cli_state *st, const char *cmd, const char *opt, const char *why);
/* rc as is; when the library could not find the baseline branch, its
 * message (which lists the branches there are) also names `flag`, the
 * option that picks another. */
int cli_branch_hint(cli_state *st, int rc, const char *flag);
/* Appends a --tag KEY=VALUE to tags[] (sized for argc); usage error if malformed. */
int cli_add_tag(cli_state *st, const char *arg, const char **tags, size_t *ntags);
/* Reads a whole file, or standard input for "-". */
int cli_read_input(cli_state *st, const char *path, char **data, size_t *len);
/* Parses a count from min to CLI_COUNT_MAX; a usage error naming both otherwise. */
#define CLI_COUNT_MAX 1000000
int cli_parse_count(cli_state *st, const char *opt, const char *arg, int min, int *out);
/* The same, from min to max, both said when refused. */
int cli_parse_range(cli_state *st, const char *opt, const char *arg, int min, int max, int *out);
/* strtod() for a decimal number as a user writes it (12, 0.5, 1e-3): anything
 * else (0x10, inf, nan, a leading blank) reads nothing, *end == arg. */
double cli_strtod(const char *arg, char **end);
/* The same without an exponent: for spans and sizes (1e3d is refused). */
double cli_strtod_plain(const char *arg, char **end);
/* Parses a run id: any positive int64; usage error otherwise. */
int cli_parse_id(cli_state *st, const char *opt, const char *arg, int64_t *out);
/*
 * A time for option `opt`: a span back from `now` (30d, 12h, 2w, 90m), a date
 * (2024-05-01, midnight UTC) or a UTC time (2024-05-01T12:00:00Z); "all" is
 * 0, the beginning.  Else a usage error.
 */
int cli_parse_when(cli_state *st, const char *opt, const char *arg, int64_t now, int64_t *out);

/* Progress and diagnostics on stderr, honouring -q/-v. */
void cli_info(cli_state *st, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* prefix, then msg escaped for a terminal or CI log, then a newline. */
void cli_put_message(FILE *f, const char *prefix, const char *msg);
/*
 * A log's tail (a failed build's output) under a header line: escaped as a
 * benchmark's stderr is in its message, line breaks kept, ending in one
 * newline.  header is benchguard's own, printed as it is.
 */
void cli_put_tail(FILE *f, const char *header, const char *tail);
/* s escaped for one line of a terminal or CI log, into buf; too long for
 * len, it is cut where a character starts and ends in "…". */
const char *cli_term(char *buf, size_t len, const char *s);
#define CLI_TERM_MAX 512
void cli_warn(cli_state *st, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* A warning when `facts` (a run's) show a throttling GPU. */
void cli_warn_throttling(cli_state *st, int64_t run_id, const bg_machine *facts);
/* The same for stored runs, from the facts stored with each. */
void cli_warn_throttled_runs(cli_state *st, bg_store *store, const int64_t *ids, size_t n);
void cli_progress(cli_state *st, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* How often at most a count of executions is redrawn (cli_progress_due). */
#define CLI_PROGRESS_HZ 10
int cli_progress_due(cli_state *st, int done, int of);
void cli_progress_done(cli_state *st);
void cli_log_cb(bg_log_level level, const char *msg, void *data);

int cli_open_repo(cli_state *st, cli_env *env);
int cli_load_config(cli_state *st, cli_env *env);
/* The same when there is one to load (--config, or benchguard.json at the
 * repository's root); none is no error. */
int cli_load_config_if_any(cli_state *st, cli_env *env);
/* The config's thresholds and baseline (*cfg, env->config's): with no config
 * file, its defaults (*cfg, *defaults', the caller's to free). */
int cli_config_or_defaults(cli_state *st, cli_env *env, bg_config **defaults,
                           const bg_config **cfg);
int cli_open_store(cli_state *st, cli_env *env);
/* The same store for a command that only reads it: a SQLite file that is
 * not there is refused (exit 2), not made (bg_store_open_read). */
int cli_read_store(cli_state *st, cli_env *env);
/* The database as cli_read_store finds it, for its version alone: nothing
 * is set up or migrated (db info). */
int cli_peek_store(cli_state *st, cli_env *env);
/* Warns that opening `store` migrated it (an older benchguard refuses it
 * now); nothing when it did not. */
void cli_say_upgraded(cli_state *st, const bg_store *store);
int cli_detect_machine(cli_state *st, cli_env *env, const char *name);
/*
 * Writes the whole text or nothing (-o FILE of baseline export and report):
 * a temporary file beside it, renamed over it; missing directories above
 * it are created.
 */
int cli_write_file(cli_state *st, const char *path, const char *text, size_t len);
/* Creates the directories above `path` that are not there (baselines/ on
 * first export, the folders of a new --config): a path the user names is
 * where they want the file, so a missing folder is made, not refused. */
int cli_make_parents(cli_state *st, const char *path);
/* Creates .benchguard-style directory `dir` with a .gitignore that ignores it all. */
int cli_private_dir(cli_state *st, const char *dir);
void cli_env_clear(cli_env *env);
/* The config path for this repository (caller frees). */
char *cli_config_path(cli_state *st, const cli_env *env);

/* A table (lib/table.c) on f: aligned text, or Markdown under --format markdown. */
void cli_table_print(cli_state *st, const bg_table *t, FILE *f);

/* Room for "BENCHMARK:METRIC" with both names as long as names may be
 * (BG_NAME_MAX each) and the NUL: a smaller buffer cut long names short, in
 * the middle of a character. */
#define CLI_SERIES_MAX (2 * BG_NAME_MAX + 2)

/* Coefficient of variation in percent (0 when the mean is 0). */
/* A run summary's coefficient of variation, "1.2%", or "-" for a spread
 * about a mean of 0; returns buf. */
const char *cli_fmt_cv(char *buf, size_t len, const bg_summary *s);
void cli_fmt_time(char *buf, size_t len, int64_t t); /* ISO-8601 UTC */

/* Prints a json-c object (pretty) to stdout and frees it. */
int cli_print_json(cli_state *st, struct json_object *obj);

/* `ci`'s alerts (cmd/alert.c): queues what the verdict calls for and
 * delivers the outbox; trouble is a warning, never an error. */
int cli_alert_ci(cli_state *st, cli_env *env, const bg_check_result *res, const char *subject);

#endif
