/*
 * internal.h -- helpers shared by the library's modules and nothing else.
 *
 * Error reporting (bg_error_set), logging to the context's callback, and a
 * small growable byte buffer.  Nothing here is part of the public API; the
 * CLI and the tests may use it, users of the library must not.
 */
#ifndef BG_INTERNAL_H
#define BG_INTERNAL_H

#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include "benchguard.h"
/* The store's rows and the git plumbing: the library's and the CLI's, not
 * installed and not exported by libbenchguard.so. */
#include "git.h"
#include "store.h"

#if defined(__GNUC__)
#define BG_PRINTF(f, a) __attribute__((format(printf, f, a)))
#else
#define BG_PRINTF(f, a)
#endif

#define BG_ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))

/* Sets the context's message and returns `code`, so `return bg_error_set(...)` reads well. */
int bg_error_set(bg_ctx *ctx, int code, const char *fmt, ...) BG_PRINTF(3, 4);
/* Same, with ": <strerror(errno)>" appended. */
int bg_error_errno(bg_ctx *ctx, int code, const char *fmt, ...) BG_PRINTF(3, 4);
/* bg_error_set with the arguments in a va_list. */
int bg_error_vset(bg_ctx *ctx, int code, const char *fmt, va_list ap) BG_PRINTF(3, 0);
/* The common out-of-memory failure. */
int bg_error_oom(bg_ctx *ctx);
/* 0 when LC_NUMERIC writes decimals with a point, as the library needs;
 * else BG_EINPUT saying so (a library host that called setlocale). */
int bg_numbers_c(bg_ctx *ctx);

/* Bytes the context keeps of a message, its NUL included. */
#define BG_CTX_MSG_MAX 1024

/*
 * The context's message, kept aside across a failure the library recovers
 * from: an instrument this machine lacks, a benchmark's bad output recorded
 * as its outcome, a best-effort cache trim.  benchguard.h promises the
 * caller that a message stays valid until the next failing call on the
 * context, so a call that returns 0 must leave it as it found it, neither
 * cleared nor replaced.  Saved before the call that may fail; where a
 * warning or an outcome wants the recovered failure's words, they are
 * taken before the restore.  Never bg_ctx_clear_error() for this: that
 * also wipes what an earlier failing call left for the caller.
 */
typedef struct {
	char msg[BG_CTX_MSG_MAX];
} bg_saved_error;

void bg_ctx__save_error(const bg_ctx *ctx, bg_saved_error *saved);
void bg_ctx__restore_error(bg_ctx *ctx, const bg_saved_error *saved);
/* The host's cancel flag (bg_ctx_set_cancel), or NULL: for a store's waits,
 * which outlast no call but are made where no context is passed. */
const volatile sig_atomic_t *bg_ctx__cancel_flag(const bg_ctx *ctx);
/* The host's SIGCONT count (bg_ctx_set_continued), or 0. */
sig_atomic_t bg_ctx__continued(const bg_ctx *ctx);

/*
 * Secrets: the values behind the configuration's alert targets (their
 * tokens, webhook secrets and URLs; bg_config_parse adds them), replaced
 * by BG_SECRET_MARK in everything benchguard reads from what it runs
 * (bg_exec's stdout and stderr, a build's log) before anything is cut,
 * parsed, quoted, printed, stored or posted.  A value shorter than
 * BG_SECRET_MIN bytes is no key (GitLab masks no shorter variable either),
 * and replacing it ("1", "main") would garble every message it occurs in.
 */
#define BG_SECRET_MIN 8
/* The end of a secret whose start a tail cut off is replaced from this many bytes. */
#define BG_SECRET_PART_MIN 4
#define BG_SECRET_MARK "[secret]"
/* Adds s[0..n) to the context's secrets (a shorter one is ignored): 0, or BG_ENOMEM. */
int bg_ctx__add_secret(bg_ctx *ctx, const char *s, size_t n);
/*
 * *text (malloc'd, *len bytes, NUL-terminated) with each of the context's
 * secrets replaced, overlapping ones as one; `cut`: BG_SCRUB_CUT_START for
 * text that is the end of a longer output (the end of a secret it starts
 * with goes too), BG_SCRUB_CUT_END for its start (the start of a secret it
 * ends with), or both.  A new string replaces *text only when something
 * was replaced.  0, or BG_ENOMEM (*text as it was).
 */
#define BG_SCRUB_CUT_START 1
#define BG_SCRUB_CUT_END 2
int bg_ctx__scrub(const bg_ctx *ctx, char **text, size_t *len, int cut);
/* Whether the context has secrets to replace: a file is read for them only then. */
int bg_ctx__has_secrets(const bg_ctx *ctx);

/* How long a suite's `build` may run before it is killed and counted as
 * failed: one hour, in the working tree and in a cached worktree alike. */
#define BG_BUILD_TIMEOUT 3600.0

void bg_log(bg_ctx *ctx, bg_log_level level, const char *fmt, ...) BG_PRINTF(3, 4);
/* Nothing is logged between bg_ctx__mute(ctx, 1) and bg_ctx__mute(ctx, 0)
 * (nested): a second look at what was already said. */
void bg_ctx__mute(bg_ctx *ctx, int on);

/*
 * A public function's guard for a pointer it needs: a NULL there is the
 * calling program's mistake, which gets BG_EINPUT and "<function>: <p> is
 * NULL" on the context (when there is one) instead of a crash.  At the top
 * of the function, before anything is acquired.
 */
#define BG_NEED(ctx, p)                                                                            \
	do {                                                                                       \
		if (!(p))                                                                          \
			return bg_error_set((ctx), BG_EINPUT, "%s: %s is NULL", __func__, #p);     \
	} while (0)
/* The same for an array of n elements, which may be NULL when n is 0. */
#define BG_NEED_N(ctx, p, n)                                                                       \
	do {                                                                                       \
		if (!(p) && (n))                                                                   \
			return bg_error_set((ctx), BG_EINPUT, "%s: %s is NULL", __func__, #p);     \
	} while (0)

/* A growable byte buffer, always NUL-terminated once anything was added. */
typedef struct {
	char *ptr;
	size_t len, cap;
} bg_buf;

#define BG_BUF_INIT                                                                                \
	{                                                                                          \
		NULL, 0, 0                                                                         \
	}

int bg_buf_grow(bg_buf *b, size_t extra);
int bg_buf_put(bg_buf *b, const void *data, size_t len);
int bg_buf_puts(bg_buf *b, const char *s);
int bg_buf_printf(bg_buf *b, const char *fmt, ...) BG_PRINTF(2, 3);
/* Hands the string over to the caller (never NULL on success: "" if empty). */
char *bg_buf_detach(bg_buf *b);
void bg_buf_clear(bg_buf *b);

/* bg_ctx__scrub over any list of secrets (lib/alert.c's of a target): 1
 * with text[0..len) so replaced appended to *out, 0 when nothing was (out
 * untouched), or BG_ENOMEM (*out cleared). */
int bg_scrub__list(char *const *secrets, size_t nsecrets, const char *text, size_t len, int cut,
                   bg_buf *out);

/*
 * text.c: text from outside.  bg_text__invalid() is NULL when s[0..n) is
 * valid UTF-8 without control characters, else what is wrong (*at: where);
 * ingest refuses such free text.  bg_text__invalid_name() also refuses the
 * characters that show nothing (U+200B, U+FEFF, ...), for names.
 * bg_text__escape() writes s for one place it is printed, both kinds shown
 * as "\u{200b}"; bg_text__json() serializes a tree as valid UTF-8 with every
 * non-finite number as null.
 */
typedef enum {
	BG_ESC_HTML,    /* HTML text and quoted attribute values */
	BG_ESC_MD,      /* Markdown inline text (table cells, list items) */
	BG_ESC_MD_CODE, /* a Markdown code span, fences included, fit for a table cell
	                 * (<code> and escaped text when s holds '<', '>' or '&') */
	BG_ESC_TERM,    /* one line on a terminal or in a CI log */
	BG_ESC_LOG,     /* the same, keeping line breaks (messages) */
	BG_ESC_XML,     /* XML 1.0 text before libxml2 escapes its markup (lib/xml.c):
	                 * line breaks kept, control characters and noncharacters
	                 * (U+FFFE/U+FFFF: XML 1.0 cannot carry them even as
	                 * references) shown */
	BG_ESC_TEXT     /* text a page's script shows as it is (textContent): control
	                 * characters shown as in HTML text, no entities */
} bg_esc;
const char *bg_text__invalid(const char *s, size_t n, size_t *at);
const char *bg_text__invalid_name(const char *s, size_t n, size_t *at);
int bg_text__ok(const char *s); /* s is not NULL and fit for a name (bg_text__invalid_name) */
int bg_text__escape(bg_buf *b, bg_esc where, const char *s);
char *bg_text__escaped(bg_esc where, const char *s);
/* cols[k]: the terminal columns s[k] takes (escaped text: wide characters
 * count two, combining marks none), for each of the n strings. */
void bg_text__columns(const char *const *s, size_t n, size_t *cols);
/* s (bg_text__quote_n: s[0..n), a NUL shown as "\x00") for a message: in
 * quotes, escaped for a terminal, cut short.  Returns buf. */
const char *bg_text__quote(char *buf, size_t size, const char *s);
const char *bg_text__quote_n(char *buf, size_t size, const char *s, size_t n);
/* Where to cut UTF-8 text without leaving half a character: the greatest
 * k <= n at which one starts in s (s[n] readable), and the least k >= i,
 * below len, past the continuation bytes of one that a cut split. */
size_t bg_text__char_start(const char *s, size_t n);
size_t bg_text__char_next(const char *s, size_t i, size_t len);
struct json_object;
const char *bg_text__json(struct json_object *o, int flags);
/* Whether s[0..n) is well-formed UTF-8 (control characters and NUL are);
 * bg_text__utf8_repair appends s[0..n) to b, NUL-terminated, each byte
 * that is not part of a well-formed sequence replaced by U+FFFD
 * (BG_ENOMEM on failure). */
int bg_text__utf8_valid(const char *s, size_t n);
/* Whether s[0..n) is written as a decimal number could be: what strtod_l()
 * reads besides ("0x10" as 16, "0x1p4", "infinity") is no benchmark's way
 * of printing a measurement, and a hexadecimal count read as a time would
 * be stored as if it were one.  Every reader of numbers in text asks it. */
int bg_text__decimal(const char *s, size_t n);
int bg_text__utf8_repair(bg_buf *b, const char *s, size_t n);

/* "lines, gbench, ... or perfstat": the names of the formats from `first`
 * on, for a message (lib/units.c).  Returns buf. */
const char *bg_format__list(bg_format first, char *buf, size_t size);

/* A relative change (0.05 is 5%) as "+5.0%" with `decimals` places, the one
 * way every report, check, ci and bisect text writes one; a change that
 * rounds to zero reads "+0.0%" from either side (lib/units.c).  Returns
 * buf. */
const char *bg_unit__pct(char *buf, size_t len, double change, int decimals);

/*
 * Bounds on input from outside (results, configs, baselines), so that no
 * file can make a parser recurse, allocate or read without end: JSON
 * nesting, the bytes of a name or unit, of free text (subjects, messages),
 * and of a file read whole (bg_read_file; bg_read_file_max for another).
 * bg_results__bad_name() says what makes s[0..n) unfit to be stored as a
 * name ("has a control character", "is not valid UTF-8", "is longer than
 * 1024 bytes"; `text`: free text, BG_TEXT_MAX), or NULL.
 */
#define BG_JSON_DEPTH 64
#define BG_NAME_MAX 1024
#define BG_TEXT_MAX 65536
#define BG_READ_MAX ((size_t)256 << 20)
const char *bg_results__bad_name(const char *s, size_t n, int text);
/*
 * What makes a run's tag or fact, key[0..keylen) = value[0..vlen), unfit
 * to be stored and exported (baseline import refuses what this refuses),
 * or NULL: the key non-empty, without '=', a name; the value free text.
 * *bad says which part is at fault.
 */
enum { BG_PAIR_KEY_SHAPE, BG_PAIR_KEY, BG_PAIR_VALUE };
const char *bg_results__bad_pair(const char *key, size_t keylen, const char *value, size_t vlen,
                                 int *bad);
/*
 * Whether a run tag's key is one of the keys benchguard tags its paired
 * runs with (compare=, confirm=, confirm-reference=, bisect-*=): such a
 * run is judged in its pair, never in a rolling baseline.  Schema step 6
 * marked stored runs by this rule; a baseline file written before runs
 * had a role is read by it; a user's --tag may not take these keys.
 */
int bg_tag__paired_key(const char *key, size_t keylen);
int bg_read_file_max(bg_ctx *ctx, const char *path, size_t max, char **data, size_t *len);
/* The series (benchmark, metric) of a result set, or NULL; by its hash
 * table, so that a parser asking once per series stays linear. */
const bg_series *bg_results__find(const bg_results *res, const char *benchmark, const char *metric);
/* What measured outcome `benchmark` (bg_config__definition), or NULL for
 * none; bg_results__definition: that of outcome i, or NULL. */
int bg_results__set_definition(bg_ctx *ctx, bg_results *res, const char *benchmark,
                               const char *definition);
const char *bg_results__definition(const bg_results *res, size_t i);

/* Makes room in an array of `size`-byte elements for element n (its
 * capacity doubles); 0 or BG_ENOMEM, the array unchanged on failure. */
int bg_grow(void **arr, size_t *cap, size_t n, size_t size);
/* qsort and bsearch order of int64_t ids. */
int bg_cmp_int64(const void *a, const void *b);
/* Two strings equal, or both NULL. */
int bg_streq_null(const char *a, const char *b);

/*
 * lib/index.c: a hash index over the entries of the caller's array, by
 * number, for lookups by name that stay linear over a million names.  A
 * zeroed bg_index is empty.  hash: FNV-1a over a, or over "a\0b" when b is
 * not NULL.  find: the entry filed under h for which same(set, entry, key)
 * is true, else BG_INDEX_NONE.  add: files `entry` under h, the caller
 * having found no equal one; 0, or BG_ENOMEM with the index as it was.
 * reset: empties it and keeps its room, so that no more entries than it
 * held go back in without allocating.  free leaves it empty.
 */
#define BG_INDEX_NONE SIZE_MAX
typedef struct {
	struct bg_index_slot *slot; /* cap of them: 0 or a power of two, at most half full */
	size_t cap, n;
} bg_index;
typedef int (*bg_index_same)(const void *set, size_t entry, const void *key);
uint64_t bg_index__hash(const char *a, const char *b);
/* The same FNV-1a over the `len` bytes at a, which need no terminator (names
 * that are slices of an input); bg_index__hash(a, NULL) for a C string. */
uint64_t bg_index__hash_n(const char *a, size_t len);
size_t bg_index__find(const bg_index *ix, uint64_t h, bg_index_same same, const void *set,
                      const void *key);
int bg_index__add(bg_index *ix, uint64_t h, size_t entry);
void bg_index__reset(bg_index *ix);
void bg_index__free(bg_index *ix);

/*
 * lib/instrument.c: the defaults of the series an instrument measures.
 * `instrument` is a series' instrument string (bg_series.instrument; NULL
 * for the clock).  min_change: the relative change worth an alarm for that
 * metric (0.001 for simulated instructions), NAN when the thresholds'
 * own applies.  resolution: the smallest step the instrument can show, in
 * the series' unit (1 for a count), 0 when unknown.
 */
double bg_instrument__min_change(const char *instrument, const char *metric);
double bg_instrument__resolution(const char *instrument, const char *metric);

/*
 * lib/counters.c: the `counters` instrument.  new: the events (NULL: the
 * default set) opened once on benchguard to see they can be; a required
 * one that cannot -> BG_ENOTFOUND with why.  Per execution: prepare()
 * before the child starts (env() then names the region fd), child() in
 * the child before exec, receive() once it has exec'd, read() after it
 * is gone (values[count()]), done() to close what is left.
 */
typedef struct bg_counters bg_counters;
int bg_counters__new(bg_ctx *ctx, const char *const *names, size_t nnames, int kernel,
                     bg_counters **out);
void bg_counters__free(bg_counters *c);
size_t bg_counters__count(const bg_counters *c);
const char *bg_counters__metric(const bg_counters *c, size_t i);
const char *bg_counters__unit(const bg_counters *c, size_t i);
const char *bg_counters__instrument(const bg_counters *c);
int bg_counters__prepare(bg_ctx *ctx, bg_counters *c);
const char *bg_counters__env(const bg_counters *c);
int bg_counters__child(bg_counters *c);
int bg_counters__receive(bg_ctx *ctx, bg_counters *c);
int bg_counters__read(bg_ctx *ctx, bg_counters *c, double *values);
void bg_counters__done(bg_counters *c);
/* lib/git.c: 1 when the CA bundle `path` that libgit2 parses at start-up
 * (mbedTLS builds) is to be deferred to the first https clone: only while
 * bg_repo_open initialises libgit2 in this thread.  For the benchguard
 * binary's own mbedtls_x509_crt_parse_file (cmd/main.c). */
int bg_git__defer_ca(const char *path);

/*
 * lib/simulate.c: the `simulate` instrument's Valgrind side.  probe: "valgrind-3.19.0"
 * into version, or BG_ENOTFOUND with why.  argv: the words to run before
 * the command (valgrind ... --callgrind-out-file=<dir>/cg.%p), NULL-
 * terminated, freed by argv_free.  collect: the counts of the callgrind
 * files in dir once the command is gone: of its region alone when any
 * process marked one (benchguard_region.h; region = 1), else of every
 * process; BG_EINPUT with a sentence when a file is garbage or Valgrind
 * failed.  With main_pid > 0 (the command's own process), the file of
 * another process that was cut short (empty, no totals: killed before it
 * ended) is left out and counted in cut_short; else every file must be
 * whole.  est_cycles: L1 hits + 5 x LL hits + 35 x
 * RAM accesses.
 */
typedef struct {
	double ir, dr, dw, i1mr, d1mr, d1mw, ilmr, dlmr, dlmw;
	int region;       /* only the region of interest was counted */
	size_t processes; /* processes whose counts are in */
	size_t cut_short; /* processes killed before their output ended: not counted */
} bg_sim_counts;
int bg_simulate__probe(bg_ctx *ctx, char *version, size_t n);
int bg_simulate__argv(bg_ctx *ctx, const char *dir, char ***argv);
void bg_simulate__argv_free(char **argv);
int bg_simulate__collect(bg_ctx *ctx, const char *dir, long main_pid, bg_sim_counts *out);
double bg_simulate__est_cycles(const bg_sim_counts *c);

/* lib/runner.c: how far apart two of the kernel's readings of a process's
 * resident set may be (KiB), and the first of n peak RSS samples that is not
 * above benchguard's own peak (the larger of floor_kib and own_kib[i], read
 * as execution i started) by more than slack_kib (-1: none). */
long bg_runner__rss_slack_kib(long cpus, long page_kib);
/* bg_exec that keeps the end of stdout, not its start, once it passes
 * opts->out_limit (out_truncated then says its start was dropped): a
 * build's error comes last. */
int bg_exec__tail(bg_ctx *ctx, const char *command, const bg_exec_opts *opts, bg_exec_result *out);
/*
 * What keeps git inside a checkout of the worktree cache, which holds
 * files only and lies inside the user's repository: git run there (by a
 * build's `git describe`, `git submodule update`) found the user's
 * repository above it, read its HEAD and changed its working tree.  When
 * `cwd` has no .git of its own, `fence` gets "GIT_CEILING_DIRECTORIES=" its
 * parent (before any the user set) and 1 is returned: the command's
 * environment then takes it and BG_GIT_UNSET's entries (bare names, which
 * remove the variables that would point git elsewhere).  0: nothing to do.
 */
#define BG_GIT_UNSET "GIT_DIR", "GIT_WORK_TREE", "GIT_INDEX_FILE", "GIT_COMMON_DIR"
int bg_exec__git_fence(const char *cwd, char *fence, size_t size);
int bg_runner__rss_below(const long *rss_kib, const long *own_kib, int n, long floor_kib,
                         long slack_kib);

/* Seconds on the monotonic clock: for timing and deadlines, not dates. */
double bg_now(void);

/* strdup that accepts NULL. */
char *bg_strdup(const char *s);
/* A new formatted string (caller frees), or NULL when out of memory. */
char *bg_printf(const char *fmt, ...) BG_PRINTF(1, 2);
/* Reads a whole file; BG_EIO with "<path>: <why>" on failure. */
int bg_read_file(bg_ctx *ctx, const char *path, char **data, size_t *len);
/* Line number (1-based) of byte `offset` in text. */
int bg_line_of(const char *text, size_t len, size_t offset);

/* rm -rf of `path` that never follows a symlink out of it; a missing path is fine. */
int bg_rmtree(bg_ctx *ctx, const char *path);
/* Bytes on disk (allocated blocks) under `path`, symlinks counted, never followed. */
uint64_t bg_disk_usage(const char *path);

/* A run more than this many SDs of the others from their mean is an outlier
 * (bg_stats_drop_outliers): checks' baselines and bisect's pairs. */
#define BG_OUTLIER_SIGMAS 5.0
/* ... and lies where the farthest of that many normal values falls less
 * often than this: few values need more SDs (lib/stats.c far_enough). */
#define BG_OUTLIER_CHANCE 0.0025
/* A run's far-out samples are left out of its mean only when there are at
 * most one in this many (one at least): more are the benchmark's own. */
#define BG_FAR_SAMPLES_PER 20

/* lib/stats.c: bg_stats_drop_outliers over v[0..m) of v[0..*n) only.  The
 * values from m on are spares: after a removal they move up one, so that
 * v[0..m) is whole again, and the far value stays out only when v[0..m) so
 * refilled has no far value of its own (else both are a tail, and stay). */
int bg_stats__drop_outliers_window(bg_ctx *ctx, double *v, size_t *n, size_t m, double k,
                                   size_t *removed);
/* lib/stats.c: the median of v[0..n), n >= 1, in O(n) by selection (GSL);
 * v is reordered. */
double bg_stats__median(double *v, size_t n);
/* The power of two e that brings the largest |v[i]| into [0.5, 1), when it
 * lies outside [2^-400, 2^400] (sums and squares of such values overflow or
 * vanish); 0 otherwise, so ordinary values are used to the bit. */
int bg_stats__scale_exponent(const double *v, size_t n);

/* lib/suite.c: which of the benchmarks names[0..n) the selection of `opts`
 * (its filter and its only list, as bg_suite_run applies them) keeps:
 * keep[i] 1 or 0.  BG_EINPUT for a filter that is not a regex. */
int bg_suite__selects(bg_ctx *ctx, const bg_suite_opts *opts, const char *const *names, size_t n,
                      unsigned char *keep);

/* lib/verdict.c: baseline runs a check reads, newest first: the window and a
 * few spare, so that an outlier run left out does not shorten it. */
size_t bg_verdict__reach(int window);
/* A rolling baseline (run means, newest first) made ready for bg_judge: the
 * newest `window` (0: all) kept, one far run among them left out (*removed)
 * and its place taken by the next older run, where there is one, unless
 * that run is far too.  Runs beyond the window are never screened. */
int bg_verdict__baseline(bg_ctx *ctx, double *base, size_t *n, int window, size_t *removed);

/* lib/table.c: a table whose columns line up, for a terminal (header in
 * bold when `bold`) or as Markdown.  Cells are copied; NULL cells are "". */
typedef struct bg_table bg_table;
bg_table *bg_table_new(size_t ncols, const char *const *headers, const char *align);
int bg_table_add(bg_table *t, const char *const *cells);
/* Cells are plain text, escaped when rendered (for the terminal or as
 * Markdown) unless bg_table_markup() says they are Markdown already. */
void bg_table_markup(bg_table *t);
int bg_table_render(const bg_table *t, int markdown, int bold, bg_buf *b);
void bg_table_free(bg_table *t);

/* lib/check_render.c's pieces, shared with the terminal table of the CLI:
 * a change as "+1.23%", a p-value as "0.0012" or "<0.0001", what the
 * confirmation showed, the nine cells of a verdict row (verdict, series,
 * baseline, current, change, p, g, runs, confirmation; `md`: Markdown
 * emphasis) and "2 regression, 3 unchanged". */
void bg_check__pct(char *buf, size_t len, double change);
/* A test's delta as bg_check__pct writes it, or "from 0" for a move away
 * from a zero mean (whose relative change is NAN). */
void bg_check__delta(char *buf, size_t len, const bg_test *t);
/* A move away from a baseline mean of exactly zero: its relative change
 * `rel` is NAN and the current mean is not zero (verdicts and every table's
 * "from 0" decide it here). */
int bg_verdict__from_zero(double rel, double base_mean, double cur_mean);
/* The same in a sentence: one decimal ("+10.0%"), "from 0", or "n/a"; buf. */
const char *bg_check__moved(char *buf, size_t len, const bg_test *t);
/* The sentences of res->stale_commits and res->missing_runs, for the log
 * and CI annotations alike (the caller frees; NULL: out of memory). */
char *bg_check__stale_text(const bg_check_result *res);
char *bg_check__missing_text(const bg_check_result *res);
void bg_check__p(char *buf, size_t len, double p);
/* Of a test's two adjusted p-values, the one a table shows: toward the side
 * it moved to (worse when it did not move).  The side is the oriented
 * change's sign, or t's where a zero mean leaves the change NAN. */
double bg_check__shown_p(const bg_test *t, double p_worse, double p_better);
void bg_check__confirm_text(const bg_verdict_row *r, char *buf, size_t len);
/*
 * For ci, before it measures: the first-parent walk from `from` that the
 * check will make, as far as `window` commits with stored runs of
 * `machine` (`exclude_sha`, the candidate's, not counted) or the last that
 * could lie further back.  0, or the error that walk would give then: a
 * shallow clone whose history ends before those commits.
 */
int bg_check__probe_history(bg_ctx *ctx, bg_store *store, bg_repo *repo, const char *machine,
                            const char *from, const char *exclude_sha, size_t window);
/* A warning on ctx's log when ci recorded, for run_id, verdicts other than
 * res's (lib/check_render.c, which reads ci's JSON back); < 0 only for
 * the store or memory. */
int bg_check__warn_recorded(bg_ctx *ctx, bg_store *store, const bg_check_result *res,
                            int64_t run_id);
/* A cell holds a whole series name (benchmark and metric) or two values in
 * a unit of BG_NAME_MAX bytes; a longer message is cut, with an ellipsis. */
#define BG_CHECK_CELL (2 * BG_NAME_MAX + 128)
int bg_check__row_cells(const bg_verdict_row *r, int md, char cells[9][BG_CHECK_CELL]);
int bg_check__summary_line(const bg_check_result *res, bg_buf *b);

/* ci's merge (lib/ci.c): folds what the pairs decided for the `open`
 * series into the first check's rows of `res`; a series the pairs could
 * not judge keeps the first look's verdict. */
int bg_ci__merge(bg_ctx *ctx, bg_check_result *res, const bg_check_result *pairs,
                 const bg_pairs_series *open, size_t nopen);

/* SHA-256 of data as 64 lowercase hex digits + NUL (lib/hash.c, libcrypto). */
int bg_sha256_hex(const void *data, size_t len, char out[65]);
/* HMAC-SHA256 of data under key, as 64 lowercase hex digits + NUL (lib/hash.c). */
int bg_hmac_sha256_hex(const void *key, size_t keylen, const void *data, size_t len, char out[65]);
/* 128 random bits as 32 lowercase hex digits + NUL (lib/hash.c): alert identities. */
int bg_random_hex(char out[33]);

/*
 * lib/gpu.c with the libraries named: nvml_lib (NULL: not tried) first,
 * then cuda_lib (NULL: not tried) when NVML is absent or fails.  stable: add
 * the GPUs themselves too, not only their volatile facts.  Tests pass names
 * that do not exist, or a fake library.
 */
/* The stable facts a baseline file carries for its machine, as an unnamed
 * machine (none: no facts); 0 or a BG_E* code. */
int bg_baseline__facts(const bg_baseline *b, bg_machine **out);
/*
 * The runs of `machine` a baseline walk from commit `tip` takes, as
 * baseline export takes them: the tip's own, then along the first-parent
 * history, for each series, up to `window` runs (pass bg_verdict__reach()
 * for what check reads, spares included); of the series in `mixed`
 * (ascending ids: measured by more than one instrument, where check takes
 * a window of the candidate's), every run.  `refs`: the machine's runs
 * (bg_store_baseline_runs) sorted by bg_baseline__sort_refs.  *chosen:
 * newest first, the caller's to free.
 */
int bg_baseline__walk(bg_ctx *ctx, bg_store *store, bg_repo *repo, const char *machine,
                      const char *tip, size_t window, const bg_run_ref *refs, size_t nrefs,
                      const int64_t *mixed, size_t nmixed, int64_t **chosen, size_t *n);
void bg_baseline__sort_refs(bg_run_ref *refs, size_t n);

/* prune.c: `db prune` (bg_store_prune, keeping what baselines read). */
typedef struct {
	int64_t before; /* runs started before this go, a day before `now` at least */
	int64_t now;
	int dry_run;
	int window;                  /* the baseline window: runs a check reads are kept; 0: none */
	const char *const *branches; /* the baseline branches (one at least) */
	size_t nbranches;
} bg_prune_policy;
int bg_prune(bg_ctx *ctx, bg_store *store, bg_repo *repo, const bg_prune_policy *policy,
             bg_prune_stats *stats);
/* How many differing facts bg_machine__differ names. */
#define BG_FACTS_SHOWN 4

/*
 * lib/machine.c: the stable facts of `there` and `here` that differ, as
 * "key THERE -> HERE" joined by ", " ("(none)" for a side without it), the
 * first BG_FACTS_SHOWN of them and "and N more"; nothing appended when
 * none differ.  0, or BG_ENOMEM.
 */
int bg_machine__differ(const bg_machine *there, const bg_machine *here, bg_buf *out);
int bg_gpu__probe(bg_machine *m, const char *nvml_lib, const char *cuda_lib, int stable);
/* The same, with `why` set (else "") when a GPU library is there but its
 * driver does not match it (version mismatch), so no GPU was described. */
int bg_gpu__probe_why(bg_machine *m, const char *nvml_lib, const char *cuda_lib, int stable,
                      char *why, size_t whylen);
int bg_gpu__cuda_usable(const char *cuda_lib, char **why);

/* lib/config.c: a forge's repo, "owner/name"; when deep, also GitLab's
 * "group/sub/name" or numeric project id. */
int bg_config__valid_repo(const char *repo, int deep);
/* A pull or merge request's number as "pr" may be, written or from a
 * ${VAR}: 1 to INT64_MAX in decimal, without a sign or a leading zero. */
int bg_config__valid_pr(const char *pr);
/*
 * What a benchmark of cfg measures, as a SHA-256 in hex: the suite's build
 * command, the benchmark's command, format, requirements, instruments,
 * counters, and the samples, warmup and timeout that `o` gives it (its own
 * where o leaves them).  Not its name or the directions of its metrics,
 * which judge the samples but do not change them.  Stored with each
 * outcome (outcomes.definition), so that stored pairs are reused only while
 * the benchmark is what measured them.
 */
int bg_config__definition(const bg_config *cfg, const bg_benchmark *bench, const bg_suite_opts *o,
                          char out[65]);
/*
 * The directions cfg's benchmarks give their metrics (`metrics.<m>.direction`),
 * set on the series of res that are theirs: named after the benchmark, or
 * "<name>/<x>" as a parser names them (the nearest name wins), as `run`
 * sets them.  For results measured elsewhere (import).
 */
void bg_config__apply_directions(const bg_config *cfg, bg_results *res);
/* s with each "$" written "$$", so that a ${VAR} expansion gives s back
 * (bg_config_expand); NULL when out of memory. */
char *bg_config__escape_vars(const char *s);
/*
 * bg_config_expand for a PostgreSQL connection string: in a URI, a ${VAR}
 * in the user information (postgresql://user:${PW}@host/db) goes in
 * percent-encoded, so that a password holding '/', '@', '?' or '%' is the
 * password and not, in part, the host or port an error message quotes.
 */
int bg_config__expand_uri(bg_ctx *ctx, const char *in, char **out);
/*
 * Calls fn(data, value) with the value of each ${VAR} in `in` that is set
 * (bg_config_expand's syntax: "$$" is a "$"), but for one that `shown`
 * holds (a webhook's host, which messages name): the values an alert
 * target keeps secret.  0, or the first negative fn returns, or BG_ENOMEM.
 */
int bg_config__each_secret_var(const char *in, const char *shown,
                               int (*fn)(void *data, const char *value), void *data);

/* lib/dl.c: loads `soname` (what it is, `what`, for messages) and stores
 * the address of names[i] at slots[i], each the address of a function
 * pointer; 0 with *handle, or BG_ERROR with a sentence naming the library
 * and the loader's words, nothing left open.  bg_dl__close takes NULL. */
int bg_dl__load(bg_ctx *ctx, const char *soname, const char *what, const char *const *names,
                void *const *slots, size_t n, void **handle);
void bg_dl__close(void *handle);

/* lib/alert.c's pure parts, for its unit tests. */
enum { BG_ALERT__OK = 0, BG_ALERT__RETRY = 1, BG_ALERT__REFUSED = 2 };
/* What an HTTP status means: 2xx OK; 408, 429 and 5xx RETRY; else REFUSED. */
int bg_alert__classify(long status);
/* Seconds a Retry-After value asks to wait (delta-seconds, or an HTTP-date
 * against `now`, epoch seconds); -1 when it is neither, or when libcurl
 * (which parses the date) cannot be loaded. */
double bg_alert__retry_after(const char *value, int64_t now);
/* The wait before try `attempt` + 1 (attempt >= 1): 0.5 s doubling, at most 8 s. */
double bg_alert__backoff(int attempt);
/* scheme://host[:port]/path of a URL, without userinfo, query or fragment;
 * the path becomes three stars when hide_path.  NULL when it does not parse
 * or libcurl (which parses it) cannot be loaded. */
char *bg_alert__redact(const char *url, int hide_path);
/* The URL marked rel="next" in a Link header, if it lies under `base`. */
char *bg_alert__next_link(const char *link, const char *base);
/* A listing's URL (page=N, per_page=N) as the page of `size` comments that
 * starts where it does, its other parameters and all before its query kept;
 * NULL when it does not say where it starts, or does not start on such a
 * page's boundary. */
char *bg_alert__page_url(const char *url, int size);
/* The Slack message text for an event. */
char *bg_alert__slack_text(const bg_alert_event *ev);
/* "<!-- benchguard:PROJECT -->": how the pull-request comment is found again. */
char *bg_alert__marker(const char *project);
/* A github or gitlab comment's text: the marker, the verdict's Markdown
 * (cut at a row to fit the forge's longest comment), the footer. */
char *bg_alert__forge_text(const char *kind, const bg_alert_event *ev);

#endif
