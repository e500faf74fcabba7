/*
 * benchguard.h -- the public header of libbenchguard: what `make install`
 * puts in PREFIX/include, and the only functions libbenchguard.so exports
 * (the build makes the linker's version script from this file).
 *
 * libbenchguard measures a project's benchmarks at a git commit, keeps every
 * sample in SQLite keyed by commit and machine fingerprint, judges runs with
 * one rule (bg_judge) against a rolling baseline or in interleaved pairs,
 * and runs the whole CI protocol (bg_suite_build, bg_ci_run: the runs, the
 * check, the confirmation in pairs, the recorded verdict).  The `benchguard`
 * CLI is a thin layer over this API: a command parses its options, calls
 * the library and prints (examples/api/ci_json.c does what `ci --json` does).
 *
 * Conventions, stated once for every module:
 *
 *  - Errors.  Functions that can fail return 0 on success or a negative
 *    bg_error_code.  The human-readable reason is kept on the bg_ctx passed
 *    in (bg_ctx_error()); it is copied at once from SQLite/libgit2/json-c so
 *    it stays valid until the next failing call on that context (or
 *    bg_ctx_clear_error()).  A call that succeeds leaves it as it was, also
 *    one that got over a failure inside (an instrument this machine lacks, a
 *    benchmark's bad output recorded as its outcome).  The library never
 *    prints and never exits; warnings go to the context's log callback.
 *    It installs no signal handler and leaves the process's state alone,
 *    with two exceptions: while a command runs (bg_exec, bg_runner_run and
 *    what calls them) the process is a child subreaper
 *    (PR_SET_CHILD_SUBREAPER), then as it was; and a `time` benchmark
 *    (bg_runner_run) first resets the process's own peak RSS (VmHWM, and with it
 *    getrusage()'s ru_maxrss), because Linux reports a child's peak as at
 *    least its spawner's.
 *
 *  - Numbers.  Numbers go to and from text (the configuration, reports,
 *    PostgreSQL) as C writes them: the program's LC_NUMERIC must write
 *    decimals with a point, as it does unless the program called
 *    setlocale(LC_ALL, "") under a locale with a decimal comma.  Such a
 *    program sets LC_NUMERIC back to "C" (or uselocale() around the calls);
 *    bg_config_parse, bg_config_load and bg_store_open otherwise refuse
 *    with BG_EINPUT, as "0.05" would read as 0 and stored means come back
 *    as 0.
 *
 *  - Arguments.  A NULL where a function needs a pointer (the context
 *    aside: NULL there only loses the message) is the calling program's
 *    mistake: the call returns BG_EINPUT with "<function>: <argument> is
 *    NULL" and touches nothing; an accessor given a NULL object returns NULL
 *    (or 0), a void function does nothing.  An array may be NULL when its
 *    count is 0.  A parameter documented as "may be NULL" or "NULL: ..."
 *    means what its comment says.
 *
 *  - Ownership.  A result returned through an `**out` or `*out` parameter
 *    belongs to the caller, who releases it with the matching _free/_clear.
 *    Every _free(NULL) and _clear() of a zeroed struct is a no-op.  `const`
 *    pointers returned by accessors are borrowed: they live as long as the
 *    object they came from.  Strings passed in are copied when kept.
 *
 *  - Threads.  Objects are not shared between threads; a bg_ctx is per thread.
 *
 * The library's modules and the CLI see more through lib/internal.h: the
 * store's rows (lib/store.h) and the git plumbing behind the entry points
 * (lib/git.h).  Those are neither installed nor exported, so they can
 * change without breaking a program built against this header.
 */
#ifndef BENCHGUARD_H
#define BENCHGUARD_H

#include <signal.h>
#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#define BG_VERSION "0.1.0"

/* ------------------------------------------------------------------ errors */

typedef enum {
	BG_OK = 0,
	BG_ERROR = -1,     /* runtime failure (database, git, process) */
	BG_EINPUT = -2,    /* bad user input: config, file, flag value */
	BG_ENOTFOUND = -3, /* a named thing does not exist (commit, series) */
	BG_ENOMEM = -4,    /* out of memory */
	BG_EIO = -5,       /* I/O failure on a file or pipe */
	BG_EBUILD = -6     /* the configured build command failed */
} bg_error_code;

/* The CLI exit code for an error: 2 for input errors, 3 for runtime ones. */
int bg_error_exit_code(int error);

/* ----------------------------------------------------------------- context */

typedef struct bg_ctx bg_ctx;

typedef enum { BG_LOG_DEBUG = 0, BG_LOG_INFO = 1, BG_LOG_WARN = 2 } bg_log_level;

typedef void (*bg_log_cb)(bg_log_level level, const char *msg, void *data);

int bg_ctx_new(bg_ctx **out);
void bg_ctx_free(bg_ctx *ctx);
/* The last error message, or "" when none was set. */
const char *bg_ctx_error(const bg_ctx *ctx);
void bg_ctx_clear_error(bg_ctx *ctx);
/* Where warnings and progress go; without a callback they are dropped. */
void bg_ctx_set_log(bg_ctx *ctx, bg_log_cb cb, void *data);
/*
 * A flag the host sets (typically from a SIGINT/SIGTERM handler) to stop
 * long work: a running benchmark's process group is killed and the call
 * returns BG_ERROR "interrupted".  NULL: never cancelled.
 */
void bg_ctx_set_cancel(bg_ctx *ctx, const volatile sig_atomic_t *flag);
int bg_ctx_cancelled(const bg_ctx *ctx);
/*
 * A counter the host adds one to on every SIGCONT: benchguard itself was
 * stopped (Ctrl-Z, then fg) and resumed.  An execution whose measurement
 * spans a stop is measured again rather than kept with the stop in its
 * time.  NULL: stops are not seen.
 */
void bg_ctx_set_continued(bg_ctx *ctx, const volatile sig_atomic_t *counter);

/* ------------------------------------------------------- units and formats */

typedef enum {
	BG_FORMAT_TIME = 0,  /* benchguard times the process */
	BG_FORMAT_LINES,     /* "BENCHGUARD <series> <value> <unit>" lines */
	BG_FORMAT_GBENCH,    /* Google Benchmark --benchmark_format=json */
	BG_FORMAT_NVBENCH,   /* NVIDIA nvbench --json */
	BG_FORMAT_HYPERFINE, /* hyperfine --export-json */
	BG_FORMAT_GO,        /* go test -bench text output */
	BG_FORMAT_PYTEST,    /* pytest-benchmark --benchmark-json */
	BG_FORMAT_CATCH2,    /* Catch2's XML reporter, -r xml */
	BG_FORMAT_PERFSTAT   /* perf stat -x, CSV */
} bg_format;

/* "time", "lines", ... -> format; unknown name -> BG_EINPUT. */
int bg_format_from_name(const char *name, bg_format *out);
const char *bg_format_name(bg_format format);

typedef enum { BG_DIR_LOWER = 0, BG_DIR_HIGHER = 1 } bg_direction;

/* Lower is better unless the unit is a rate ("GB/s", "items/s", "1/s"...). */
bg_direction bg_direction_for_unit(const char *unit);
const char *bg_direction_name(bg_direction dir);
int bg_direction_from_name(const char *name, bg_direction *out);

/*
 * Canonical units: every time unit (ns, us, µs, ms, s, min) is stored in
 * seconds, "s"; other units are kept as written.  *scale is the factor that
 * turns a value in `unit` into the canonical unit.  Returns 0, or BG_EINPUT
 * for an empty unit.
 */
int bg_unit_canonical(const char *unit, const char **canon, double *scale);

/* ------------------------------------------------------------- instruments */

/*
 * What measures a benchmark (lib/instrument.c): the clock (with the
 * program's own output for the self-reporting formats), hardware counters
 * through perf_event_open, or a simulated CPU (Valgrind's callgrind).
 */
typedef enum { BG_INSTR_TIME = 0, BG_INSTR_COUNTERS, BG_INSTR_SIMULATE } bg_instrument;
#define BG_INSTR_COUNT 3

const char *bg_instrument_name(bg_instrument instrument);
/* "time", "counters", "simulate" -> instrument; else BG_EINPUT. */
int bg_instrument_from_name(const char *name, bg_instrument *out);

/* One entry of a benchmark's `measure`: alternatives, the first this
 * machine has is used ("time" alone, or ["counters", "simulate"]). */
typedef struct {
	bg_instrument alt[BG_INSTR_COUNT];
	size_t nalt;
} bg_measure;

/* Whether this machine has an instrument: `detail` says what it has
 * ("valgrind-3.19.0", the counters it can open) or why not. */
typedef struct {
	int available;
	char detail[256];
} bg_instrument_status;

/*
 * Probes every instrument on this machine: runs `valgrind --version`,
 * opens (and closes) the default counters.  out[BG_INSTR_TIME] is always
 * available.  `events`/`nevents`: the counters to try (NULL: the default
 * set), `kernel`: count kernel space too.
 */
int bg_instruments_probe(bg_ctx *ctx, const char *const *events, size_t nevents, int kernel,
                         bg_instrument_status out[BG_INSTR_COUNT]);

/* The counter events benchguard knows ("instructions", "cycles", ...),
 * NULL-terminated, and the ones `counters` measures by default. */
const char *const *bg_counter_events(void);
const char *const *bg_counter_default_events(void);

/* ------------------------------------------------------------------ config */

typedef struct bg_config bg_config;

typedef struct {
	const char *metric;
	bg_direction direction;
} bg_metric_override;

typedef struct {
	const char *name;
	const char *command;
	bg_format format;
	const char *const *requires; /* e.g. "cuda", or a command that must exist */
	size_t nrequires;
	int warmup;                        /* resolved: benchmark's own value, else "defaults" */
	int samples;                       /* executions for `time`; see README for other formats */
	double timeout;                    /* seconds per execution */
	const bg_metric_override *metrics; /* direction overrides */
	size_t nmetrics;
	int line; /* where the benchmark starts in the config file */
	/* `measure`: the instruments, in order (nmeasure 0: time alone). */
	const bg_measure *measure;
	size_t nmeasure;
	/* `counters`: the events (NULL: the default set) and whether kernel
	 * space is counted too. */
	const char *const *events;
	size_t nevents;
	int kernel;
} bg_benchmark;

typedef struct {
	const char *branch; /* default "main" */
	int window;         /* default 20 */
	int min_runs;       /* default 5 */
} bg_baseline_cfg;

/*
 * A metric's own min_change: `thresholds.metrics` (benchmark NULL: every
 * benchmark's series of that metric) or a benchmark's `metrics` entry.
 * A count of instructions repeats to parts per million where a time moves
 * by percents: one suite-wide threshold fits neither.
 */
typedef struct {
	const char *benchmark; /* NULL: suite-wide */
	const char *metric;
	double min_change; /* 0 < min_change < 1 */
} bg_metric_threshold;

/* The significance levels taken (thresholds.alpha, --alpha): a level
 * past one half calls most noise a change, and one below 1e-12 asks the t
 * quantile for more than a double holds. */
#define BG_ALPHA_MIN 1e-12
#define BG_ALPHA_MAX 0.5

/* A min_change is a relative change from 0 up to, not including, this: a
 * series where higher is better cannot fall by 100% or more, so a
 * threshold of 1 or more (5 written for 5%) would never flag it. */
#define BG_MIN_CHANGE_LIMIT 1.0

typedef struct {
	double alpha;      /* default 0.01; BG_ALPHA_MIN to BG_ALPHA_MAX */
	int fdr;           /* default 1 */
	double min_change; /* default 0.02; 0 to below BG_MIN_CHANGE_LIMIT */
	double min_effect; /* default 0.8 */
	/* Per-metric min_change (bg_thresholds_min_change); NULL: none. */
	const bg_metric_threshold *metrics;
	size_t nmetrics;
} bg_thresholds;

/*
 * The min_change of one series: the benchmark's own `metrics` entry, else
 * `thresholds.metrics`, else the instrument's default for the metric
 * (0.001 for simulated or counted instructions; `instrument` is the
 * series' instrument string, NULL for the clock), else th->min_change.
 */
double bg_thresholds_min_change(const bg_thresholds *th, const char *benchmark, const char *metric,
                                const char *instrument);

/* ci's confirmation: interleaved pairs at the first look (0: none), and the cap. */
typedef struct {
	int pairs;     /* default BG_CONFIRM_PAIRS */
	int max_pairs; /* default BG_CONFIRM_MAX_PAIRS */
} bg_confirm_cfg;

#define BG_CONFIRM_PAIRS 4
#define BG_CONFIRM_MAX_PAIRS 32
#define BG_MAX_PAIRS 1000

enum {
	BG_ALERT_ON_REGRESSION = 1 << 0,
	BG_ALERT_ON_IMPROVEMENT = 1 << 1,
	BG_ALERT_ON_ALWAYS = 1 << 2
};

/* The longest a benchmark's execution may be given (`timeout`, --timeout):
 * more is a typo, 11 days and a half. */
#define BG_TIMEOUT_MAX 1e6

/* An alert target's time per `ci` or `alert flush`, retries included (seconds). */
#define BG_ALERT_TIMEOUT 30.0
#define BG_ALERT_MAX_TIMEOUT 600
/* The least: lib/alert.c begins no request in a budget's last 0.05 s. */
#define BG_ALERT_MIN_TIMEOUT 0.1

/* Alert targets as written: ${VAR} is expanded at use (bg_config_expand). */
typedef struct {
	const char *kind;                             /* "webhook", "slack", "github", "gitlab" */
	const char *url, *secret, *repo, *token, *pr; /* NULL when absent */
	unsigned on;                                  /* BG_ALERT_ON_* mask; default regression */
	int line;
	const char *api_url; /* github: the REST API base; NULL: https://api.github.com */
	double timeout;      /* seconds; default BG_ALERT_TIMEOUT */
} bg_alert_cfg;

/*
 * Loads a benchguard.json.  Comments are allowed.  Any error (unparsable
 * JSON, unknown key, wrong type, empty or duplicate benchmarks...) returns
 * BG_EINPUT with the message "<path>:<line>: <what is wrong>".
 */
int bg_config_load(bg_ctx *ctx, const char *path, bg_config **out);
/* The same from memory; `name` stands for the file in messages. */
int bg_config_parse(bg_ctx *ctx, const char *name, const char *text, size_t len, bg_config **out);
void bg_config_free(bg_config *cfg);

const char *bg_config_path(const bg_config *cfg);
const char *bg_config_project(const bg_config *cfg); /* NULL when absent */
/* The "database" key as written (a path or a PostgreSQL URI with ${VAR}s
 * unexpanded); NULL when absent. */
const char *bg_config_database(const bg_config *cfg);
/*
 * What to open for the "database" key (*out, caller frees; NULL when the
 * key is absent), for bg_store_open: a file path with its ${VAR}s
 * expanded, relative to `workdir` (the repository's root) when not
 * absolute; a PostgreSQL URI or key=value string, also when a ${VAR} holds
 * one.  bg_store_open expands once more, so a "$" of an expanded value is
 * written "$$".  A variable that is unset or empty -> BG_ENOTFOUND.
 */
int bg_config_database_spec(bg_ctx *ctx, const bg_config *cfg, const char *workdir, char **out);
const char *bg_config_build(const bg_config *cfg); /* NULL when absent */
const bg_baseline_cfg *bg_config_baseline(const bg_config *cfg);
const bg_thresholds *bg_config_thresholds(const bg_config *cfg);
const bg_confirm_cfg *bg_config_confirm(const bg_config *cfg);
size_t bg_config_benchmark_count(const bg_config *cfg);
const bg_benchmark *bg_config_benchmark(const bg_config *cfg, size_t i);
size_t bg_config_alert_count(const bg_config *cfg);
const bg_alert_cfg *bg_config_alert(const bg_config *cfg, size_t i);

/*
 * Expands ${VAR} from the environment into a new string (*out, caller
 * frees).  "$$" is a literal "$".  A variable that is unset or empty ->
 * BG_ENOTFOUND with a message naming it.
 */
int bg_config_expand(bg_ctx *ctx, const char *in, char **out);

/* The commented starter benchguard.json that `init` writes. */
const char *bg_config_starter(void);

/* ------------------------------------------------------------ measurements */

typedef struct {
	size_t n;
	double mean, median, stddev, min, max; /* stddev: sample (n-1), 0 if n<2 */
	/*
	 * The mean without far-out samples (beyond Tukey's outer fences, Q1/Q3
	 * -/+ 3 IQR; none left out below 4 samples) while they are few, at most
	 * one in 20 (one at least), and how many were left out.  More are a mode
	 * of the benchmark itself, and all count.  The verdict uses it: an
	 * interrupt that hits one sample in five moves the plain mean of a run
	 * by a whole step, not the run's true cost.  The samples themselves are
	 * all kept.
	 */
	double robust_mean;
	size_t outliers;
} bg_summary;

/* Summary of n finite values (GSL).  n == 0 -> BG_EINPUT. */
int bg_stats_summarize(bg_ctx *ctx, const double *values, size_t n, bg_summary *out);

/*
 * One series judged: baseline run means against candidate run means.  All
 * signed quantities are oriented so that positive means worse (slower for
 * "lower is better", less for "higher is better").
 */
typedef struct {
	size_t n_base, n_cur;
	double base_mean, base_sd; /* of the baseline run means */
	double cur_mean, cur_sd;   /* cur_sd is 0 with one candidate run */
	double t, df;              /* t oriented like change; df as used for p */
	double p_worse;            /* one-sided p-value that the candidate is worse */
	double p_better;           /* the mirror one-sided p-value */
	double delta;              /* the value's own relative movement, unoriented: (cur - base) /
	                              |base| (rolling), exp(mean ln(cur/ref)) - 1 (paired); NAN if
	                              base is 0.  What tables print, whatever the direction. */
	double change;             /* delta oriented: -delta for higher-is-better, so positive is
	                              worse and min_change applies alike to both directions */
	double se;                 /* standard error of the difference tested (value units for
	                              the rolling test, log-ratio units for the paired one) */
	double effect;             /* Hedges' g, oriented; +-INFINITY if no variance at all */
	double mde;                /* minimum detectable relative change, alpha, 80% power */
	double base_ci;            /* half-width of the (1 - alpha) CI of the baseline mean */
} bg_test;

/* Candidate runs from which their own variance is trusted (Welch's form). */
#define BG_WELCH_MIN_RUNS 5

/*
 * Welch's t-test on run summaries, one-sided in the worse direction.  With
 * one candidate run its variance is taken from the baseline's run-to-run
 * variance (prediction interval: t = (x - m) / (s * sqrt(1 + 1/n)), df =
 * n - 1); so it is with 2 to BG_WELCH_MIN_RUNS - 1 runs (t = (x - m) /
 * (s * sqrt(1/k + 1/n)), df = n - 1), whose own variance is too poor an
 * estimate, unless the baseline has none; from BG_WELCH_MIN_RUNS runs,
 * Welch-Satterthwaite.  Needs n_base >= 2, n_cur >= 1
 * and finite values (else BG_EINPUT).  Zero variance on both sides: equal
 * means give p = 1 both ways, different means p = 0 in their direction.
 */
int bg_stats_compare(bg_ctx *ctx, const double *base, size_t n_base, const double *cur,
                     size_t n_cur, bg_direction dir, double alpha, bg_test *out);

/* t quantiles kept between calls with the same alpha and baseline size
 * (they cost more than the test); zero it before the first call. */
typedef struct {
	int valid;
	double alpha, df, q_detect, q_ci;
} bg_stats_cache;

/* bg_stats_compare for a series of calls, e.g. every series of a suite. */
int bg_stats_compare_cached(bg_ctx *ctx, const double *base, size_t n_base, const double *cur,
                            size_t n_cur, bg_direction dir, double alpha, bg_stats_cache *cache,
                            bg_test *out);

/*
 * The paired t-test on log ratios with their own variance: cur[k] and
 * ref[k] were measured side by side (`compare`'s interleaved pairs), so
 * ln(cur[k] / ref[k]) is free of the machine's drift between pairs.
 * t = mean / (sd / sqrt(n)), df = n - 1; delta = exp(mean) - 1 (the
 * geometric mean ratio, in the value's own direction) and change = delta
 * oriented, as the rolling test labels them, so that a drop from 5,268 to
 * 2,090 MB/s is -60.3% in both; effect = mean / (1.4826 MAD), oriented
 * (positive is worse): Cohen's d_z with a spread that the few pairs a
 * neighbour's burst hit do not inflate (the SD when the MAD is 0); se = sd
 * / sqrt(n), in log units; base_* and
 * cur_* describe ref and cur; mde and base_ci are relative to the ratio.
 * One pair far outside the others is left out (bg_stats_drop_outliers);
 * n_base and n_cur count the pairs used.  Needs n >= 2 and values finite
 * and > 0 (else BG_EINPUT).
 */
int bg_stats_paired_t(bg_ctx *ctx, const double *cur, const double *ref, size_t n, bg_direction dir,
                      double alpha, bg_test *out);
/* P(T > t) for Student's t with df degrees of freedom (GSL); NAN when t is NAN
 * or df is not > 0. */
double bg_stats_t_upper(double t, double df);

/* Hedges' g of b against a (bias-corrected standardized mean difference,
 * pooled SD; unoriented: positive when mean(b) > mean(a)).  n_a + n_b >= 3.
 * NAN for exactly 3 values with any spread: one degree of freedom, where the
 * small-sample correction is 0, leaves no estimate. */
int bg_stats_hedges_g(bg_ctx *ctx, const double *a, size_t n_a, const double *b, size_t n_b,
                      double *g);

/*
 * Benjamini-Hochberg adjusted p-values (monotone, capped at 1).  Entries
 * that are NAN are not hypotheses: they stay NAN and do not count in n.
 */
int bg_stats_bh(bg_ctx *ctx, const double *p, size_t n, double *adjusted);

/*
 * Removes, in place and keeping order, at most one outlier: the value
 * farthest from the mean of the others, if it lies more than k standard
 * deviations of the others away, farther than the farthest of as many
 * normal values lies once in 400 (about 18 SDs for 5 values, 6.6 for 10, 5
 * for 20), and no second value does (among the rest).  Nothing when fewer
 * than 5 values or when the others do not vary (beyond rounding).  One run
 * slowed by a neighbour on a shared machine goes, instead of inflating the
 * baseline's variance and blinding the test for a whole window; a tail or a
 * second mode (several far runs) is the benchmark's own noise and stays.
 */
int bg_stats_drop_outliers(bg_ctx *ctx, double *v, size_t *n, double k, size_t *removed);

/* Quantile of Student's t with df degrees of freedom (GSL). */
double bg_stats_t_quantile(double prob, double df);

/* One series' raw samples, in the order they were measured. */
typedef struct {
	char *benchmark;
	char *metric;
	char *unit; /* canonical (see bg_unit_canonical) */
	bg_direction direction;
	double *values;
	size_t n;
	/* What measured it when not the clock or the program's own output:
	 * "simulate callgrind valgrind-3.19.0", "counters user"; NULL
	 * otherwise.  Runs measured by another instrument (a new Valgrind)
	 * are not compared with each other. */
	char *instrument;
} bg_series;

typedef enum {
	BG_BENCH_OK = 0,
	BG_BENCH_FAILED, /* crash, nonzero exit, timeout, unparsable output */
	BG_BENCH_SKIPPED /* a `requires` is not met on this machine */
} bg_bench_status;

typedef struct {
	char *benchmark;
	bg_bench_status status;
	char *message; /* why it failed or was skipped; NULL when OK */
} bg_outcome;

/* A set of series and per-benchmark outcomes: what one run measured. */
typedef struct bg_results bg_results;

int bg_results_new(bg_results **out);
void bg_results_free(bg_results *res);
size_t bg_results_series_count(const bg_results *res);
const bg_series *bg_results_series(const bg_results *res, size_t i);
size_t bg_results_outcome_count(const bg_results *res);
const bg_outcome *bg_results_outcome(const bg_results *res, size_t i);

/*
 * Appends one sample to series (benchmark, metric), creating it on first
 * use.  The value is converted to the canonical unit; the direction comes
 * from the unit.  Non-finite values, a unit that contradicts the series'
 * earlier samples (seconds vs bytes), or a metric name with a ':' (series
 * are named "benchmark:metric", split at the last ':'; a benchmark name
 * may hold one) -> BG_EINPUT.
 */
int bg_results_add(bg_ctx *ctx, bg_results *res, const char *benchmark, const char *metric,
                   const char *unit, double value);
/* Records what measured a series (see bg_series.instrument). */
int bg_results_set_instrument(bg_ctx *ctx, bg_results *res, const char *benchmark,
                              const char *metric, const char *instrument);
/* Forces a series' direction (config override). */
int bg_results_set_direction(bg_results *res, const char *benchmark, const char *metric,
                             bg_direction dir);
/* Records what happened to a benchmark; replaces an earlier outcome. */
int bg_results_set_outcome(bg_ctx *ctx, bg_results *res, const char *benchmark,
                           bg_bench_status status, const char *message);
/* The outcome recorded for a benchmark, or NULL. */
const bg_outcome *bg_results_find_outcome(const bg_results *res, const char *benchmark);
/* Drops every series of a benchmark (its run failed half-way). */
void bg_results_drop_benchmark(bg_results *res, const char *benchmark);

/*
 * Parses one program output (or file) in `format` and appends its samples
 * (and a skipped outcome for what the tool skipped: nvbench's states, go's
 * and Catch2's skipped benchmarks; for perfstat, when no event was
 * counted).  `benchmark` names the samples: for `lines` every series goes
 * under it, and for `perfstat` every event is a metric of it (required for
 * both); for the others it is a prefix "<benchmark>/" (none when NULL) of
 * the tool's own names: Google Benchmark's and go's benchmark names,
 * nvbench's "<benchmark>/<state>", pytest's node id with "::" as "/",
 * Catch2's "<test case>/<section>/.../<benchmark>"; for `hyperfine` see
 * docs/configuration.md.  An empty `benchmark` ("") -> BG_EINPUT for
 * every format.  `source` names the input in messages.
 * Unparsable input -> BG_EINPUT "<source>:<line>: <what>" or "<source>:
 * <JSON path>: <what>"; nothing is appended to `into` then.
 */
int bg_format_parse(bg_ctx *ctx, bg_format format, const char *source, const char *benchmark,
                    const char *data, size_t len, bg_results *into);
/*
 * The same, with relative file names in the input (nvbench's --jsonbin
 * sample-times files) taken from `dir`: the JSON file's directory for an
 * import, the benchmark's working directory for a run.  NULL: the current
 * directory, which is what bg_format_parse() uses.
 */
int bg_format_parse_at(bg_ctx *ctx, bg_format format, const char *source, const char *benchmark,
                       const char *dir, const char *data, size_t len, bg_results *into);

/* ------------------------------------------------------------------ runner */

/* What one execution of a command did. */
typedef struct {
	int exited; /* exited normally, with exit_status */
	int exit_status;
	int signaled; /* killed by term_signal */
	int term_signal;
	int timed_out;    /* benchguard killed its process group at the timeout */
	double wall;      /* seconds, monotonic clock */
	double user, sys; /* seconds, from wait4 */
	long maxrss_kib;  /* peak resident set, from wait4 */
	char *out;        /* captured stdout (NUL-terminated), or NULL */
	size_t out_len;
	int out_truncated; /* stdout went past the limit; the rest was discarded */
	char *err_tail;    /* the last BG_ERR_TAIL bytes of stderr (NUL-terminated) */
	size_t err_len;
} bg_exec_result;

#define BG_ERR_TAIL 4096

typedef struct {
	const char *cwd;    /* NULL: current directory */
	double timeout;     /* seconds; <= 0: none */
	int capture_stdout; /* 0: stdout goes to /dev/null */
	size_t out_limit;   /* bytes of stdout kept; 0: 64 MiB */
	/* Extra "K=V" entries, NULL-terminated, or NULL; a bare "K" removes K
	 * from what the command inherits. */
	const char *const *env;
	/* Set: stdout and stderr both go to this file (created or truncated),
	 * interleaved as written, and nothing is captured (a build's log). */
	const char *log_path;
} bg_exec_opts;

/*
 * Runs `command` once in its own process group: directly when it is a plain
 * word list (no shell syntax), else through `/bin/sh -c`.  At the timeout
 * the whole group is killed (grandchildren too); after the command exits,
 * whatever it left running in its group is killed as well.  Returns 0 when
 * the command was started and waited for, whatever its status, and when
 * not even the shell could be started with it (an argument list past the
 * kernel's limit: exit status 126, the reason in err_tail); < 0 only when
 * benchguard itself could not run it.
 */
int bg_exec(bg_ctx *ctx, const char *command, const bg_exec_opts *opts, bg_exec_result *out);
void bg_exec_result_clear(bg_exec_result *res);
/* "exit status 3", "killed by signal 11 (Segmentation fault)", "timed out after 5 s" */
char *bg_exec_describe(const bg_exec_result *res, double timeout);

typedef void (*bg_progress_cb)(const char *benchmark, int done, int total, void *data);

typedef struct {
	const char *cwd;  /* checkout the commands run in */
	int samples;      /* < 0: the benchmark's own */
	int warmup;       /* < 0: the benchmark's own */
	double timeout;   /* <= 0: the benchmark's own */
	size_t out_limit; /* 0: 64 MiB */
	bg_progress_cb progress;
	void *progress_data;
	/* What this machine has (bg_instruments_probe with the benchmark's
	 * events); NULL: probed when a benchmark needs it. */
	const bg_instrument_status *instruments;
} bg_run_opts;

#define BG_RUN_OPTS_INIT                                                                           \
	{                                                                                          \
		NULL, -1, -1, 0.0, 0, NULL, NULL, NULL                                             \
	}

/*
 * Runs one benchmark (warm-up, then samples) and adds its series and its
 * outcome to `into`.  A benchmark that crashes, times out or prints
 * unparsable output is recorded as BG_BENCH_FAILED (its partial series are
 * dropped) and the call still returns 0; an unmet `requires` is
 * BG_BENCH_SKIPPED.  < 0 when benchguard itself fails, and BG_EINPUT for
 * a benchmark no config gives (fewer than one sample, a format or an
 * instrument outside its enum), which would run nothing.  Measuring
 * `peak_rss` (format `time` with the clock) resets the calling process's
 * own peak RSS first: a host that reports its ru_maxrss should read it
 * before.
 */
int bg_runner_run(bg_ctx *ctx, const bg_benchmark *bench, const bg_run_opts *opts,
                  bg_results *into);

/* Is requirement `req` met here (a relative path: from the current
 * directory; bg_runner_run looks from its options' cwd)?  1 yes, 0 no (with
 * *why, caller frees). */
int bg_runner_requirement_met(const char *req, char **why);

/* ------------------------------------------------------------- fingerprint */

typedef struct bg_machine bg_machine;

/* A GPU as the fingerprint sees it (filled by the CUDA module, or by tests). */
typedef struct {
	const char *name;
	uint64_t memory_bytes;
	int cc_major, cc_minor; /* compute capability */
} bg_gpu;

/*
 * Reads the machine's facts from /proc and sysfs under `root` ("/" normally;
 * tests pass a fixture tree).  Stable facts (CPU model, cores, threads,
 * caches, memory, arch) are hashed into the fingerprint; volatile facts
 * (kernel, governor, load average, compiler...) are kept beside it.
 */
int bg_machine_detect(bg_ctx *ctx, const char *root, bg_machine **out);
/* An empty machine, for facts handed over as data. */
int bg_machine_new(bg_machine **out);
void bg_machine_free(bg_machine *m);
/* Sets (or replaces) a fact. */
int bg_machine_set_fact(bg_machine *m, const char *key, const char *value, int is_volatile);
/* Adds a GPU: its name, memory and compute capability become stable facts. */
int bg_machine_add_gpu(bg_machine *m, const bg_gpu *gpu);
/* --machine NAME: the fingerprint becomes NAME instead of the hash, which
 * is kept as the volatile fact "hardware" (when there are stable facts).
 * One word of printable characters, not "all" (every machine, to `report`). */
int bg_machine_set_name(bg_machine *m, const char *name);
/* 16 hex digits of SHA-256 over the sorted stable facts, or the name set. */
const char *bg_machine_fingerprint(bg_machine *m);
size_t bg_machine_fact_count(const bg_machine *m);
/* The i-th fact, stable facts first, each group sorted by key. */
int bg_machine_fact(const bg_machine *m, size_t i, const char **key, const char **value,
                    int *is_volatile);
const char *bg_machine_get(const bg_machine *m, const char *key); /* NULL if absent */

/* --------------------------------------------------------------------- gpu */

/*
 * Adds this machine's NVIDIA GPUs to m: name, memory and compute capability
 * as stable facts (bg_machine_add_gpu), and the driver version, SM and
 * memory clocks, temperature, power and throttle reasons as volatile ones.
 * NVML and the CUDA driver are loaded at run time; without them, or without
 * a GPU, nothing is added and 0 is returned.  bg_machine_detect(ctx, "/")
 * calls it.
 */
int bg_gpu_detect(bg_ctx *ctx, bg_machine *m);
/* Reads the volatile GPU facts again (after a run, when they tell most). */
int bg_gpu_refresh(bg_ctx *ctx, bg_machine *m);
/* Can CUDA programs run here?  1 yes; 0 no, with *why (caller frees). */
int bg_gpu_cuda_usable(char **why);
/*
 * Do these facts (of this machine, or those a run was stored with)
 * show a GPU slowed by power or thermal limits?  1 with *why, e.g. "GPU 0
 * (NVIDIA H100 80GB HBM3): sw thermal slowdown" (caller frees; why may be
 * NULL); 0 no; BG_ENOMEM.  What `run`, `check` and reports warn with.
 */
int bg_gpu_throttling(const bg_machine *m, char **why);

/* --------------------------------------------------------------------- git */

typedef struct bg_repo bg_repo;

typedef struct {
	char sha[41];
	char *branch;        /* short branch name; NULL when detached or not HEAD */
	int dirty;           /* tracked files differ from HEAD (untracked files don't count) */
	int64_t author_time; /* seconds since the epoch */
	char *author;        /* "Name <email>" */
	char *subject;       /* first line of the message */
} bg_commit;

/* Finds the repository containing `path`.  Not in one -> BG_EINPUT. */
int bg_repo_open(bg_ctx *ctx, const char *path, bg_repo **out);
void bg_repo_free(bg_repo *repo);
/* The working tree's top directory, without a trailing slash. */
const char *bg_repo_workdir(const bg_repo *repo);
/* HEAD with branch and dirty flag.  No commit yet -> BG_EINPUT. */
int bg_repo_head(bg_ctx *ctx, bg_repo *repo, bg_commit *out);
/* Any revision (SHA, ref, HEAD~3...) -> commit; unknown -> BG_ENOTFOUND. */
int bg_repo_lookup(bg_ctx *ctx, bg_repo *repo, const char *rev, bg_commit *out);
void bg_commit_clear(bg_commit *c);

/* ---------------------------------------------------------------- verdicts */

typedef enum {
	BG_VERDICT_REGRESSION = 0,
	BG_VERDICT_IMPROVEMENT,
	BG_VERDICT_UNCHANGED,
	BG_VERDICT_NO_BASELINE,
	BG_VERDICT_SKIPPED,
	BG_VERDICT_FAILED,
	BG_VERDICT_COUNT
} bg_verdict;

/* "regression", "improvement", "unchanged", "no-baseline", "skipped", "failed". */
const char *bg_verdict_name(bg_verdict v);
/* And back; an unknown name -> BG_EINPUT. */
int bg_verdict_from_name(const char *name, bg_verdict *out);

/*
 * What became of a series that was measured again (ci's confirmation, and
 * every row of compare and bisect's ends, which are sequential pairs from
 * the start).
 */
typedef enum {
	BG_CONFIRM_NONE = 0,      /* not measured again */
	BG_CONFIRM_CONFIRMED,     /* flagged first, and the pairs show it: it stands */
	BG_CONFIRM_NOT_CONFIRMED, /* flagged first, the pairs do not show it: unchanged */
	BG_CONFIRM_FOUND,         /* the pairs show a change the first look did not
	                             (undecided, or flagged the other way) */
	BG_CONFIRM_CLEARED,       /* the pairs show it smaller than what would be flagged */
	BG_CONFIRM_UNDECIDED,     /* the cap was reached with nothing shown: unchanged */
	BG_CONFIRM_COUNT
} bg_confirm_status;

/* "none", "confirmed", "not-confirmed", "found", "cleared", "undecided". */
const char *bg_confirm_status_name(bg_confirm_status s);

/* ------------------------------------------------------------------- store */

typedef struct bg_store bg_store;

/*
 * Opens and migrates the results database `spec` names: a SQLite file
 * (created with its directory if needed; WAL), or a PostgreSQL database
 * given as a postgresql:// (or postgres://) URI or a libpq key=value string
 * that starts with a libpq keyword ("host=... dbname=...").  ${VAR} in
 * `spec` is expanded from the environment (a "$$" is one "$"), in a file
 * path as in a PostgreSQL string, and a variable may hold the whole
 * PostgreSQL string; an unset or empty one -> BG_ENOTFOUND.  The password
 * is never kept in a message.  Writers from other processes are waited
 * for.  A schema version this build does not know (newer, or negative) is
 * refused with BG_EINPUT before anything is written.
 */
int bg_store_open(bg_ctx *ctx, const char *spec, bg_store **out);
/* 1 when this open made benchguard's tables: the database held none (a new
 * file, an empty PostgreSQL database); 0 when it held results. */
int bg_store_created(const bg_store *store);
/*
 * An existing file this process may not write (the file or its folder) is
 * opened read-only: reading works, and a write fails with BG_EIO, "the
 * database is read-only".  bg_store_writable says so up front (0 when it may
 * write), for a command that would measure before its first write.
 */
int bg_store_writable(bg_ctx *ctx, bg_store *store);
void bg_store_free(bg_store *store);
/* The database's name for messages: a path, or a PostgreSQL URI without
 * its password ("postgresql://user@host:port/dbname"). */
const char *bg_store_name(const bg_store *store);
/* "sqlite" or "postgresql". */
const char *bg_store_backend(const bg_store *store);

/* --------------------------------------------------------------- worktrees */

typedef struct {
	const char *cache_dir; /* where checkouts live, e.g. <repo>/.benchguard/worktrees */
	const char *build;     /* the config's build command; NULL: none */
	double build_timeout;  /* seconds; <= 0: 3600 */
	const char *machine;   /* fingerprint the build outcome is remembered for */
	uint64_t max_bytes;    /* automatic bound on the cache (0: default 20 GiB); the least
	                          recently used other checkouts go first */
} bg_worktree_opts;

typedef struct {
	char sha[41];
	char *path;      /* the checkout */
	int checked_out; /* 1: written now, 0: found in the cache */
	int built;       /* 1: the build ran now, 0: reused (or no build command) */
	int failed;      /* the build failed, now or remembered from an earlier attempt */
	char *log_tail;  /* last few KiB of the build's stdout+stderr when failed */
	double build_seconds;
	char *why;      /* a build that failed now: "exit status 2", "timed out after 5 s" */
	char *log_path; /* the build's full log beside the checkout; NULL: no build */
	int lock_fd;    /* internal: fd + 1 of the lock that keeps gc away while in use */
} bg_worktree;

/* Default bound of the worktree cache (bg_worktree_opts.max_bytes = 0). */
#define BG_WORKTREE_MAX_BYTES ((uint64_t)20 << 30)

/*
 * Checks `sha` (40 hex digits) out into <cache_dir>/<sha> (atomically: a
 * temp dir renamed into place, safe against a parallel benchguard doing the
 * same) and runs the build there once, with cwd = the checkout and
 * BENCHGUARD_COMMIT=<sha> in its environment; a SHA whose build succeeded
 * (and whose checkout still exists) is never rebuilt; a remembered failure is
 * not retried (returns 0 with failed=1) unless `retry_failed`.  Returns < 0
 * only when benchguard itself fails (git, disk, database).  Progress
 * ("checking out…", "building…") through bg_log on ctx.  Until
 * bg_worktree_clear, the checkout is marked in use and gc leaves it alone.
 * `store` NULL: no build outcome is remembered or looked up.
 */
int bg_worktree_prepare(bg_ctx *ctx, bg_repo *repo, bg_store *store, const char *sha,
                        const bg_worktree_opts *opts, int retry_failed, bg_worktree *out);
void bg_worktree_clear(bg_worktree *wt);

typedef struct {
	size_t removed, kept;
	uint64_t bytes_freed, bytes_kept;
} bg_gc_stats;

/*
 * Removes checkouts not used for more than max_age seconds (< 0: no age
 * limit; 0: all), then the least recently used until the cache is at most
 * max_bytes (UINT64_MAX: no size limit); checkouts in use by a benchguard
 * are kept; never follows symlinks out of the cache.  dry_run: only count.
 * A build log or build stamp whose checkout is gone is an entry of its own
 * (used when last written).  A cache_dir that does not exist is empty.
 */
int bg_worktree_gc(bg_ctx *ctx, const char *cache_dir, int64_t max_age, uint64_t max_bytes,
                   int dry_run, bg_gc_stats *out);

typedef enum { BG_GC_KEPT = 0, BG_GC_REMOVED, BG_GC_IN_USE } bg_gc_fate;

/* Called once per checkout, least recently used first, with what gc did to it
 * (BG_GC_REMOVED in a dry run: would remove). */
typedef void (*bg_gc_cb)(const char *sha, int64_t last_used, uint64_t bytes, bg_gc_fate fate,
                         void *data);
/* bg_worktree_gc that reports each checkout to `cb` (may be NULL). */
int bg_worktree_gc_each(bg_ctx *ctx, const char *cache_dir, int64_t max_age, uint64_t max_bytes,
                        int dry_run, bg_gc_cb cb, void *data, bg_gc_stats *out);

/* ------------------------------------------------------------------- check */

/*
 * The verdict's rule, written once (lib/verdict.c): every command that
 * judges (check, ci, compare, bisect, report) hands its run summaries to
 * bg_judge and prints what comes back.
 *
 * Two designs.  Rolling: the candidate's run means against a baseline of
 * earlier runs (Welch, or the prediction-interval form: bg_stats_compare).
 * Paired: cur[k] measured beside base[k] (interleaved), the t-test on the
 * log ratios with their own variance (bg_stats_paired_t).  Either way the
 * change is labelled one way: test.delta is the value's own relative
 * movement (what tables print), test.change the same oriented so that
 * positive is worse.
 *
 * The rule: regression = p (Benjamini-Hochberg adjusted across the inputs
 * when fdr is on, regressions and improvements as separate families) <
 * level AND change >= min_change AND effect >= min_effect; improvement the
 * mirror image; otherwise unchanged.  `level` is alpha for a single look,
 * or a sequential look's share of it.
 *
 * Near-deterministic series (a simulated instruction count) are judged by
 * the threshold alone: when the noise floor f (the larger of the
 * resolution and the observed spread, relative to the baseline mean) is at
 * most min_change / 4, regression = change >= min_change, improvement =
 * change <= -min_change, with no t-test and outside the BH family
 * (lib/verdict.c says why).
 */
typedef enum { BG_DESIGN_ROLLING = 0, BG_DESIGN_PAIRED = 1 } bg_design;

typedef struct {
	bg_design design;
	bg_direction direction;
	/* rolling: baseline run means (n_base >= 2) and candidate run means
	 * (n_cur >= 1); paired: base[k] beside cur[k], n_base == n_cur >= 2.
	 * n_base == 0: not tested (no baseline), not counted by BH. */
	const double *base;
	size_t n_base;
	const double *cur;
	size_t n_cur;
	/* The series' own min_change (bg_thresholds_min_change); NAN or 0 (a
	 * zeroed input): th->min_change. */
	double min_change;
	/* The smallest step the instrument shows, in the series' unit: 1
	 * for a count (instructions, cache misses, page faults), 0 for the
	 * clock and a program's own output (none). */
	double resolution;
} bg_judge_input;

/* How sure the screen and the futility bound are: one-sided 90%. */
#define BG_SCREEN_CONFIDENCE 0.90

typedef struct {
	bg_verdict verdict; /* regression, improvement, unchanged; no-baseline if untested;
	                       skipped if its values cannot be judged (see reason) */
	/*
	 * Unchanged, yet the data cannot exclude a regression of min_change: the
	 * one-sided BG_SCREEN_CONFIDENCE upper bound of the change (`hi`)
	 * reaches min_change.  What ci re-measures in pairs before it believes
	 * "unchanged" (a single run with a 3% CV cannot tell 0 from +5%).
	 */
	int undecided;
	/* Unchanged, yet it moved the better way by min_change or more. */
	int undecided_better;
	bg_test test;
	double p_adjusted;        /* p_worse adjusted; NAN when untested */
	double p_better_adjusted; /* p_better adjusted */
	double lo, hi;            /* one-sided BG_SCREEN_CONFIDENCE bounds of test.change */
	double sd_one;            /* the spread of one run (rolling, relative to the baseline
	                             mean) or one pair's log ratio (paired): what sizes a
	                             later measurement */
	/* Skipped: the series' values could not be judged (a value that is not
	 * finite, say, from an older file); why, as a sentence.  "" otherwise. */
	char reason[160];
	/* The min_change this series was judged by (the input's, else the
	 * thresholds'); NAN when untested. */
	double min_change;
	/* Judged near-deterministic: by the threshold alone, lo/hi = change -/+
	 * noise_floor, p-values NAN, outside the BH family. */
	int deterministic;
	/* The relative noise floor: max(resolution / |baseline mean|, observed
	 * spread); NAN when untested or undefined (a zero mean). */
	double noise_floor;
	/* The input's direction: which way a log ratio is worse, so that a
	 * later look maps a reach in log ratio to a change as lo and hi were. */
	bg_direction direction;
} bg_judgement;

/* Judges n inputs as one family (out[i] for in[i]). */
int bg_judge(bg_ctx *ctx, const bg_judge_input *in, size_t n, const bg_thresholds *th, double level,
             bg_judgement *out);

/* Which of bg_judge's rules a series gets, and why (what `calibrate` shows). */
typedef struct {
	int deterministic;  /* judged by the threshold alone */
	double noise_floor; /* relative; NAN when undefined (a zero mean) */
	double min_change;
} bg_rule;

/*
 * The rule for a series whose run means (robust means, as the verdict
 * reads them) at one commit are v[0..n), n >= 2: its noise floor as a
 * rolling judgement sees it (the range of v, or the resolution, relative
 * to their mean) against min_change / 4.  n < 2 or a value not finite ->
 * BG_EINPUT.
 */
int bg_judge_rule(bg_ctx *ctx, const double *v, size_t n, double min_change, double resolution,
                  bg_rule *out);
/* The rule in words: "near-deterministic: noise floor 0.0004%, min_change
 * 0.1%", or "t-test: noise floor 1.2% > min_change 2% / 4". */
void bg_rule_text(char *buf, size_t len, const bg_rule *rule);

/*
 * The relative change, labelled: `d` is a relative movement of the value
 * (cur / ref - 1); the result is oriented so that positive is worse.  Its
 * own inverse: given an oriented change it gives back the movement, which
 * is what tables print.
 */
double bg_change_oriented(double d, bg_direction dir);
/* exp(m) - 1 of an oriented mean log ratio m, labelled as bg_judge labels it. */
double bg_change_from_log(double m, bg_direction dir);

/*
 * Sequential looks (lib/verdict.c): a measurement that goes on while it is
 * undecided looks at `first` pairs, then twice as many each time, up to
 * `max` (the last look is at `max` exactly).  The error rate of the repeated
 * looks is held by splitting alpha equally among them (Bonferroni over
 * looks): level = alpha / looks at each.  Returns the number of looks and
 * fills sizes[0..n) (at most BG_MAX_LOOKS; sizes may be NULL).
 */
#define BG_MAX_LOOKS 16
size_t bg_looks(size_t first, size_t max, size_t *sizes);

/*
 * One look of a sequential measurement, decided: `j` is the series' paired
 * judgement at look `look` (1-based) of `looks` (bg_judge at `level`, the
 * look's share of alpha), `max` the cap on pairs, *worse and *better the
 * directions still open.  Returns 1 when the series is decided (*verdict
 * and *status set: FOUND when flagged either way, CLEARED when its bounds
 * lie within min_change in the open directions, UNDECIDED at the last
 * look, when the change left is smaller than the cap could show, or when
 * the bound of a closed direction lies beyond min_change: the pairs show
 * what the first check ruled out), 0 to measure more.  min_change is the
 * judgement's own (j->min_change, else th->min_change).  A near-deterministic
 * judgement is decided at once: more pairs cannot narrow its noise floor,
 * only widen it.  Pure: what bg_pairs_run applies, and what the unit tests
 * simulate to show the false-alarm rate of repeated looks.  A NULL pointer
 * -> BG_EINPUT.
 */
int bg_sequential_decide(const bg_judgement *j, size_t look, size_t looks, size_t max,
                         const bg_thresholds *th, double level, int *worse, int *better,
                         bg_verdict *verdict, bg_confirm_status *status);

typedef struct {
	bg_confirm_status status;
	bg_verdict first;   /* the verdict before it was measured again */
	bg_design design;   /* paired (beside `reference`), or rolling (more candidate runs
	                       against the rolling baseline, when no reference could be built) */
	bg_test test;       /* the evidence at the look that decided */
	double p_adjusted;  /* in the direction of the verdict (worse when unchanged) */
	double level;       /* that look's share of alpha */
	size_t pairs;       /* pairs (or candidate runs) that look used */
	size_t look, looks; /* which look decided (1-based), of how many planned */
	char reference[41]; /* the commit measured beside; "" for the rolling design */
} bg_confirmation;

/* One series (or, for failed/skipped, one benchmark) of a check. */
typedef struct {
	char *series; /* "benchmark:metric", or the benchmark for failed/skipped */
	char *benchmark, *metric, *unit; /* metric and unit NULL for failed/skipped */
	bg_direction direction;
	bg_verdict verdict; /* the final verdict */
	bg_test test;       /* filled for regression, improvement and unchanged */
	double p_adjusted;  /* p_worse after Benjamini-Hochberg (or as is); NAN if untested */
	double p_better_adjusted;
	int undecided;        /* unchanged, but a regression of min_change is not excluded */
	int undecided_better; /* unchanged, but it moved the better way by min_change */
	size_t baseline_runs, current_runs, samples;
	size_t baseline_outliers; /* runs of the window left out of the estimate */
	size_t outlier_samples;   /* far-out samples of the candidate runs, flagged */
	char *message;            /* why failed, skipped or no-baseline; what the pairs showed */
	bg_confirmation confirm;  /* status BG_CONFIRM_NONE unless measured again */
	/* The rule of the judgement (bg_judgement's): near-deterministic, its
	 * noise floor, and the series' min_change (NAN when untested). */
	int deterministic;
	double noise_floor, min_change;
} bg_verdict_row;

typedef struct {
	const char *baseline_branch;
	int window, min_runs;
	bg_thresholds thresholds;
	/* The candidate runs: same commit and machine (several: the full Welch form). */
	const int64_t *runs;
	size_t nruns;
	/* An explicit baseline (`compare`, `bisect`): exactly these runs, all of one
	 * commit on the candidates' machine, instead of the rolling baseline; no
	 * history walk, so `repo` may be NULL.  NULL: the rolling baseline. */
	const int64_t *baseline;
	size_t nbaseline;
	/* With an explicit baseline of as many runs as candidates, made in pairs
	 * (baseline[k] beside runs[k]): the paired design of bg_judge. */
	int paired;
	/* The judgement's level when it is one look of several (0: alpha). */
	double level;
} bg_check_opts;

typedef struct {
	int64_t run_id; /* the first candidate run */
	char sha[41];
	char *branch;
	char *machine;
	int dirty;
	char *baseline_branch;  /* NULL for an explicit baseline */
	char baseline_from[41]; /* the commit whose first-parent history was used */
	char reference[41];     /* the newest commit whose runs are in the baseline ("" if none) */
	int window;
	bg_verdict_row *rows; /* regressions first, then failed, improvement, ... */
	size_t nrows;
	size_t count[BG_VERDICT_COUNT];
	/* Measured again: pairs (or runs) made, the seconds they took, the cap. */
	size_t confirm_pairs, confirm_max;
	double confirm_seconds;
	/* Nonzero when what was measured again ran alone (no reference to pair
	 * with): confirm_pairs then counts the candidate's extra runs. */
	int confirm_alone;
	/* Set when the candidate's machine has no stored run to judge against
	 * while the database holds other machines' runs (a fingerprint that
	 * changed under the same runner class leaves every series without a
	 * baseline): the machine with the most runs, how many, and its stable
	 * facts that differ from the candidate's ("key A -> B, ...", NULL when
	 * none do).  NULL other_machine: not the case. */
	char *other_machine;
	size_t other_machine_runs;
	char *other_machine_differs;
	/* Set when the baseline is older than the baseline branch where this
	 * commit's history meets it (baseline_from): that many commits of the
	 * branch, from baseline_from back, have no run of this machine before
	 * the one with its newest run (reference).  A results database restored
	 * from an older CI cache than the branch's newest lacks their runs, and
	 * a change they made is judged as this commit's.  0: not the case (and
	 * always 0 for a commit on the branch itself, whose own push measures
	 * what its parents did not). */
	size_t stale_commits;
	/* Set when no run of this machine lies on the baseline's history while
	 * some of its runs are of commits the repository does not have (a
	 * history rewritten by a force-push): missing_runs of its stored_runs
	 * (this commit's left out).  0: not the case. */
	size_t missing_runs, stored_runs;
} bg_check_result;

/*
 * Judges candidate runs against their rolling baseline: for each series,
 * the last `window` complete, clean runs on the same machine at commits on
 * the first-parent history of merge-base(candidate, baseline branch tip),
 * the candidate's own commit excluded, and only runs made as runs of their
 * own (not one side of a paired measurement).  Fewer than `min_runs` ->
 * no-baseline.  The rule is bg_judge's.
 */
int bg_check_run(bg_ctx *ctx, bg_store *store, bg_repo *repo, const bg_check_opts *opts,
                 bg_check_result **out);
void bg_check_result_free(bg_check_result *res);
/* 3 if anything failed (or res is NULL), else 1 if anything regressed, else 0. */
int bg_check_exit_code(const bg_check_result *res);
/* Recounts res->count and puts the rows in report order (regressions first). */
void bg_check_sort(bg_check_result *res);

/*
 * The verdict as documents (lib/check_render.c): `check --json`'s JSON
 * (keys in a fixed order; a "confirmation" object on rows measured again),
 * the Markdown table of the step summary and the pull-request comment, and
 * JUnit XML for CI dashboards (GitLab's junit report, Jenkins' junit step):
 * a <testsuite> per benchmark, a <testcase> per series (name: the metric,
 * classname: "benchguard.<benchmark>"); a regression is a <failure>, a
 * failed benchmark an <error>, no-baseline and skipped are <skipped>,
 * improvement and unchanged pass.  *out is NUL-terminated and the caller's.
 */
int bg_check_json(bg_ctx *ctx, const bg_check_result *res, char **out);
int bg_check_markdown(bg_ctx *ctx, const bg_check_result *res, char **out);
/* The Markdown within `max` bytes where it can be: as many of the table's
 * rows as fit (regressions and failures come first), then a line saying how
 * many were left out.  The heading and the counts are always there, so *out
 * may still pass `max` when even they do not fit. */
int bg_check_markdown_max(bg_ctx *ctx, const bg_check_result *res, size_t max, char **out);
/* GitHub drops a step summary ($GITHUB_STEP_SUMMARY) larger than this whole. */
#define BG_STEP_SUMMARY_MAX ((size_t)1024 * 1024)
/* GitHub shows at most this many error annotations (and as many warnings)
 * of one step and drops the rest unseen. */
#define BG_ANNOTATIONS_MAX 10
int bg_check_junit(bg_ctx *ctx, const bg_check_result *res, char **out);
/* A value in a readable unit: seconds as ns/µs/ms/s, bytes as KiB/MiB/GiB,
 * rates in SI steps ("12.5 GB/s"); anything else as written. */
void bg_unit_format(char *buf, size_t len, double v, const char *unit);

/* ------------------------------------------------------------------- suite */

/*
 * Running a suite (lib/suite.c): the configured benchmarks, each run as
 * bg_runner_run runs it, every run stored as it goes (begun incomplete,
 * finished complete), so that a process killed half-way leaves the
 * earlier runs and one visibly unfinished run.  What `run`, `ci`,
 * `compare`, `bisect` and the library's users all call.
 */
typedef enum {
	BG_SUITE_RUN_BEGIN = 0, /* run `run` of `runs` was stored (incomplete) as run_id */
	BG_SUITE_PROGRESS,      /* benchmark `index` of `total`: `done` of `of` executions */
	BG_SUITE_BENCH_DONE,    /* a benchmark finished: its series and outcome in `results` */
	BG_SUITE_RUN_DONE       /* run_id is complete */
} bg_suite_event_kind;

typedef struct {
	bg_suite_event_kind kind;
	int64_t run_id;
	int run, runs;    /* 1-based */
	int index, total; /* benchmark, 1-based */
	const bg_benchmark *benchmark;
	int done, of;
	const bg_results *results;
} bg_suite_event;

typedef void (*bg_suite_event_cb)(const bg_suite_event *ev, void *data);

typedef struct {
	const bg_config *config; /* the suite */
	const bg_commit *commit; /* the runs are stored under it (its dirty flag too) */
	const char *cwd;         /* where the commands run: the work tree or a checkout */
	bg_machine *machine;
	const char *filter;      /* extended regex on benchmark names; NULL: all */
	char *const *only;       /* exact benchmark names, NULL-terminated; NULL: all */
	int samples, warmup;     /* < 0: each benchmark's own */
	double timeout;          /* <= 0: each benchmark's own */
	int runs;                /* >= 1 */
	const char *const *tags; /* "K=V", NULL-terminated; may be NULL */
	/* The runs are one side of an interleaved measurement (compare, bisect,
	 * ci's confirmation): stored, judged in their pairs, never part of a
	 * rolling baseline, whose runs must each stand for a moment of their own. */
	int paired;
	bg_suite_event_cb event; /* may be NULL */
	void *data;
} bg_suite_opts;

#define BG_SUITE_OPTS_INIT                                                                         \
	{                                                                                          \
		NULL, NULL, NULL, NULL, NULL, NULL, -1, -1, 0.0, 1, NULL, 0, NULL, NULL            \
	}

typedef struct {
	int64_t *ids;     /* the stored runs, in order */
	bg_results **res; /* what each measured */
	size_t nruns;
	size_t failed; /* benchmark runs that failed, over all runs */
} bg_suite_output;

/* How many benchmarks the selection (filter, only) takes; a bad regex -> BG_EINPUT. */
int bg_suite_count(bg_ctx *ctx, const bg_suite_opts *opts, size_t *n);
/* Makes opts->runs runs; *out is the caller's (bg_suite_output_clear), also on failure. */
int bg_suite_run(bg_ctx *ctx, bg_store *store, const bg_suite_opts *opts, bg_suite_output *out);
void bg_suite_output_clear(bg_suite_output *out);

typedef struct {
	int ran; /* 0: the suite has no build command */
	int ok;
	char *why;      /* a failure: "exit status 2", "timed out after 3600 s" */
	char *out_tail; /* the ends of its stdout and stderr (failures) */
	char *err_tail;
	double seconds;
} bg_build_result;

/*
 * The suite's build command, once, in `cwd`; the compiler it uses (`cc
 * --version`) becomes a volatile fact of `machine`.  A failed build is 0
 * with ok = 0; < 0 only when it could not be started.
 */
int bg_suite_build(bg_ctx *ctx, const bg_config *cfg, const char *cwd, bg_machine *machine,
                   bg_build_result *out);
void bg_build_result_clear(bg_build_result *b);
/* The compiler fact alone (a pinned commit, built in its worktree earlier). */
void bg_suite_note_compiler(bg_ctx *ctx, bg_machine *machine, const char *cwd);

/* ------------------------------------------------------------------- pairs */

/*
 * Interleaved, sequential measurement of two commits (lib/pairs.c): what
 * compare, bisect's ends and ci's confirmation share.  Runs are made in
 * pairs in ABBA order (ref then candidate, candidate then ref, ...), so a
 * machine that speeds up or slows down lands on both sides alike; the
 * pairs are judged with bg_judge's paired design at each look of
 * bg_looks(first, max), each look at alpha / looks.  A series is decided at
 * the first look where it is flagged (regression or improvement), or where
 * the one-sided BG_SCREEN_CONFIDENCE bound of its change shows it smaller
 * than the larger of min_change and what the cap could still detect (a
 * stop for futility, which cannot add false alarms); the rest are measured
 * again, only the benchmarks that have undecided series, until the cap.
 */
typedef struct {
	const bg_commit *commit; /* stored under */
	const char *cwd;         /* its checkout */
	const bg_config *config; /* the suite there; NULL: the shared one (run.config) */
	const char *tag;         /* one more "K=V" tag on its runs; may be NULL */
} bg_side;

/* A series to decide, and the directions in which it is open. */
typedef struct {
	const char *benchmark, *metric;
	int worse, better;
} bg_pairs_series;

/* After each look: its pairs, and how many series are still open. */
typedef void (*bg_pairs_look_cb)(size_t look, size_t looks, size_t pairs, size_t open,
                                 double seconds, void *data);
/* Before each pair: pair k of the `of` this look needs (1-based); ref_first: its order. */
typedef void (*bg_pairs_pair_cb)(size_t k, size_t of, int ref_first, void *data);
/* Before the first pair a call makes, when a side's cwd is NULL: its
 * checkouts (built), set in *ref_cwd and *cand_cwd.  < 0 stops the call. */
typedef int (*bg_pairs_prepare_cb)(void *data, const char **ref_cwd, const char **cand_cwd);

typedef struct {
	bg_side ref, cand; /* ref: A, the good end, the baseline commit; cand: B, the bad end */
	bg_suite_opts run; /* machine, filter/only, samples, warmup, timeout, tags, events,
	                      the shared config (commit, cwd and runs are the sides') */
	const bg_pairs_series
	        *series; /* NULL: every series of the measured benchmarks, both ways */
	size_t nseries;
	size_t first, max; /* the looks: bg_looks(first, max) */
	bg_thresholds thresholds;
	/* Reuse pairs already stored under the sides' tags (bisect's ends: a
	 * rerun repeats the decisions); 0: only this call's runs.  Only pairs
	 * recorded as such (both runs complete) are reused: a run whose
	 * partner was interrupted pairs with nothing. */
	int reuse;
	bg_pairs_look_cb look; /* may be NULL */
	bg_pairs_pair_cb pair; /* may be NULL */
	void *look_data;       /* for both */
	/* With reuse: the sides' checkouts only when a pair must be made (a
	 * bisect run again whose pairs are all stored checks out and builds
	 * nothing); the sides' cwd may then be NULL.  May be NULL. */
	bg_pairs_prepare_cb prepare;
	void *prepare_data;
} bg_pairs_opts;

/*
 * Measures and decides.  *out is a check result of the candidate against
 * the reference: a row per series (failed and skipped benchmarks too),
 * each with `test` and `confirm` from the look that decided it.
 */
int bg_pairs_run(bg_ctx *ctx, bg_store *store, const bg_pairs_opts *opts, bg_check_result **out);

/*
 * Makes pairs without judging them: those recorded under the sides' tags
 * (with opts->reuse), then new ones in ABBA order, of the benchmarks
 * opts->run selects, until there are `want`.  *ref_ids and *cand_ids (the
 * caller frees both) hold the run ids of all *n pairs, oldest first; an id
 * is 0 where that side's suite has none of the benchmarks.  A benchmark
 * that fails leaves its series out of that run.  The series, looks,
 * thresholds and look callback are not used; the pair callback is.
 */
int bg_pairs_make(bg_ctx *ctx, bg_store *store, const bg_pairs_opts *opts, size_t want,
                  int64_t **ref_ids, int64_t **cand_ids, size_t *n);

/*
 * The pairs stored under the sides' tags that opts->reuse would reuse,
 * oldest first: those whose two runs each hold every benchmark the call
 * selects on their side (opts->series, opts->run's only and filter), run,
 * failed or skipped.  Pairs made for another selection are left out.  The
 * commits, tags, machine and suites are read; nothing else is.
 */
int bg_pairs_stored(bg_ctx *ctx, bg_store *store, const bg_pairs_opts *opts, int64_t **ref_ids,
                    int64_t **cand_ids, size_t *n);

/* -------------------------------------------------------------------- ci */

/*
 * `benchguard ci` as one call (lib/ci.c): the candidate's runs at the work
 * tree (built already: bg_suite_build), the rolling check, then the
 * confirmation of every series that is flagged or undecided: measured
 * again in pairs beside the baseline's newest commit (checked out and built
 * in the worktree cache, measured with its own benchguard.json unless
 * `same_suite`), sequentially (bg_pairs_run), so that a regression stands
 * only when the pairs show it, and one the first run could not tell is
 * found.  Without a reference that builds, the candidate is measured again
 * alone and judged against the rolling baseline at the same looks.  The
 * final verdict is recorded in the store (`benchguard history` shows it).
 */
typedef struct {
	bg_repo *repo;
	bg_store *store;
	const bg_config *config;
	bg_machine *machine;
	const char *cache_dir; /* worktree cache for the reference */
	int same_suite;        /* 1: the reference runs `config` (the user passed --config) */
	bg_suite_opts run;     /* the candidate's runs; commit NULL: HEAD; cwd NULL: work tree */
	bg_check_opts check;   /* baseline and thresholds (runs are filled in) */
	size_t confirm_first;  /* pairs at the first look; 0: believe the first runs */
	size_t confirm_max;    /* the cap on pairs */
	bg_suite_event_cb pair_event; /* events of the confirmation's runs (NULL: none) */
	bg_pairs_look_cb look;
	bg_pairs_pair_cb pair;
	void *look_data;
} bg_ci_opts;

typedef struct {
	bg_check_result *result; /* the final verdict */
	bg_commit head;          /* the candidate */
	bg_suite_output runs;    /* its first runs */
	int64_t check_id;        /* where the verdict was recorded */
	double seconds;          /* the whole call */
} bg_ci_result;

/*
 * Whether the check after the runs can judge them, asked before anything is
 * built or run: the baseline branch exists, the history from the candidate
 * (opts->run.commit, else HEAD) to where it left that branch is in the
 * clone, and so are the commits before it that hold the baseline's runs.
 * BG_EINPUT with what to do when not.  bg_ci_run asks it again itself; a
 * caller that builds first (bg_suite_build) asks it before the build, so
 * that a suite whose build takes minutes is not built for nothing.
 */
int bg_ci_probe(bg_ctx *ctx, const bg_ci_opts *opts);
int bg_ci_run(bg_ctx *ctx, const bg_ci_opts *opts, bg_ci_result *out);
void bg_ci_result_clear(bg_ci_result *r);

/* ------------------------------------------------------------------ bisect */

/*
 * The search of `bisect` over a first-parent range c[0..n] (c[0] the good
 * or old end, c[n] the bad or new end), on one series: the first commit at
 * the new end's level, whether the series got worse there (a regression,
 * "good"/"bad") or better (an improvement, "old"/"new", git bisect's own
 * terms for a change that is not a breakage).  Measuring is the caller's
 * (it builds, runs and stores); the search decides which commit to measure
 * next, how many runs it needs and what each shows.
 *
 * Every comparison is made on runs measured side by side: the ends in pairs
 * (good[k] beside bad[k]), each probe in pairs with fresh runs of the good
 * end.  A shared machine's speed drifts by more than a 10% step over
 * minutes; within a pair it barely moves, so the search works on log ratios
 * to the good end, and the drift cancels.
 */
typedef enum { BG_PROBE_GOOD = 0, BG_PROBE_BAD, BG_PROBE_SKIP } bg_probe_verdict;

/* "good", "bad", "skip". */
const char *bg_probe_verdict_name(bg_probe_verdict v);
/* As a search for that kind of change calls it: "good"/"bad" for a
 * regression, "old"/"new" for an improvement; "skip". */
const char *bg_probe_verdict_term(bg_probe_verdict v, int improvement);

typedef struct {
	size_t index;             /* into c[0..n] */
	bg_probe_verdict verdict; /* GOOD: at the old end's level; BAD: at the new end's */
	size_t runs;              /* pairs in its figures (after the culprit's confirmation) */
	size_t decided_runs;      /* pairs the decision used */
	int reused;               /* every one of them was already stored */
	int by_distance;          /* still ambiguous at max_runs: nearer end taken */
	double change;            /* against the good end, labelled (positive is worse; NAN when
	                             skipped); the bad end is at `step` */
	double p_good;            /* p that it moved from the good end, the way the bad end did */
	double p_bad;             /* p that it falls short of the bad end */
} bg_bisect_step;

/*
 * Makes sure commit c[index] has at least `runs` runs made in pairs with
 * runs of the good end, and hands the first `runs` pairs over, oldest
 * first: (*values)[k] beside (*good)[k] (malloc'd, the search frees both);
 * *reused: no run was needed.  The first pairs, not all that are stored:
 * a search over stored results then sees what it saw the first time and
 * repeats its decisions.
 * Returns 0, 1 when the commit cannot be built or run (it is then skipped,
 * as `git bisect skip` does), or < 0 to stop the search.
 */
typedef int (*bg_bisect_measure_cb)(bg_ctx *ctx, size_t index, size_t runs, void *data,
                                    double **values, double **good, size_t *n, int *reused);
/* Called after each decision: step k of about `total`. */
typedef void (*bg_bisect_progress_cb)(const bg_bisect_step *step, size_t k, size_t total,
                                      void *data);
/* Called once the search has its answer and before the culprit and the
 * commit before it (c[lo], c[hi]; an end needs nothing) are measured to as
 * many pairs as the ends (`pairs`), for the change reported: `more` pairs
 * in all beyond those that decided (the measure callback knows which of
 * them are stored already). */
typedef void (*bg_bisect_confirm_cb)(size_t lo, size_t hi, size_t pairs, size_t more, void *data);

/* Which way the search looks: the way the ends moved, or one named. */
typedef enum { BG_BISECT_AUTO = 0, BG_BISECT_WORSE, BG_BISECT_BETTER } bg_bisect_want;

typedef struct {
	size_t n;                 /* index of the bad end, >= 1 */
	const double *good, *bad; /* the ends' run summaries, in pairs: good[k] beside bad[k] */
	size_t npairs;            /* >= 2 */
	bg_direction direction;   /* of the series */
	bg_bisect_want want;      /* AUTO: worse if the bad end is worse, else better */
	double alpha;             /* per decision, e.g. 0.01 */
	size_t runs, max_runs;    /* a probe's first pairs, and its cap (0: 3 and 12) */
	bg_bisect_measure_cb measure;
	bg_bisect_progress_cb progress; /* may be NULL */
	bg_bisect_confirm_cb confirm;   /* may be NULL */
	void *data;
} bg_bisect_opts;

typedef struct {
	int found;             /* 1: first_bad is the commit; 0: it is one of lo..hi */
	int improvement;       /* the search was for where the series got better */
	size_t first_bad;      /* the first commit at the new level (found), else hi */
	size_t lo, hi;         /* the culprit is in c[lo..hi]; lo == hi == first_bad when found */
	size_t last_good;      /* the newest commit at the old level */
	double step;           /* the ends' change, labelled (positive is worse) */
	bg_bisect_step *steps; /* the probes, in the order measured */
	size_t nsteps;
	/* first_bad (or hi) against last_good, labelled as bg_judge labels a
	 * change: change (positive is worse), delta (the value's own
	 * movement), t, df, p_worse, p_better, effect */
	bg_test change;
	/* That change is significant at alpha, the way the search looked
	 * (p_worse, or p_better for an improvement).  0: no single commit was
	 * shown to make the step, whatever the steps said. */
	int significant;
} bg_bisect_result;

/*
 * Binary search for the first commit at the new end's level.  A probe's log
 * ratio to the good end (the mean over its pairs, oriented the way the ends
 * moved) is tested against 0 (moved from good?) and against the ends' log
 * ratio (short of bad?), one-sided, with the variance pooled from the
 * ends' pairs and the probe's: moved and not short is bad, the mirror image
 * good; otherwise it gets `runs` more pairs, up to max_runs, and then goes
 * to the nearer end.  Each look is at alpha / ceil(max_runs / runs), so
 * that a decision is wrong at most alpha of the time however many looks
 * it took.  Commits that cannot be built are skipped; when
 * the culprit is among them the result is the range.  Then the culprit and
 * the commit before it are measured to as many pairs as the ends, and the
 * change between them is reported with those.
 */
int bg_bisect_search(bg_ctx *ctx, const bg_bisect_opts *opts, bg_bisect_result *out);
void bg_bisect_result_clear(bg_bisect_result *res);
/* About how many probes a range of n takes: ceil(log2(n)). */
size_t bg_bisect_estimate(size_t n);

/* ------------------------------------------------- baselines and calibration */

typedef struct {
	const char *machine;     /* fingerprint (or --machine name) whose runs to export */
	const char *branch;      /* the baseline branch */
	int window;              /* runs per series, >= 2 */
	const bg_machine *facts; /* its stable facts are written as "facts"; NULL: none */
} bg_baseline_export_opts;

/*
 * A machine's baseline runs as JSON, to be committed under baselines/: the
 * complete, clean runs of `machine` along the first-parent history of the
 * branch tip, newest first, until every series has `window` of them; the
 * tip's own runs are kept besides and do not count, so the tip itself can be
 * judged too.
 * Runs come with their commit, uid, tags and raw samples.  The text (*json,
 * caller frees) is stable: keys in a fixed order, runs oldest first, series
 * by name, numbers in the shortest form that reads back exactly.
 */
int bg_baseline_export(bg_ctx *ctx, bg_store *store, bg_repo *repo,
                       const bg_baseline_export_opts *opts, char **json, size_t *nruns);

/* A parsed and validated baseline file. */
typedef struct bg_baseline bg_baseline;

/*
 * Parses a baseline file; `name` stands for it in messages.  Everything is
 * checked before anything can be stored: bad input -> BG_EINPUT
 * "<name>: runs[3].series[0].samples[2]: <what is wrong>".
 */
int bg_baseline_parse(bg_ctx *ctx, const char *name, const char *text, size_t len,
                      bg_baseline **out);
void bg_baseline_free(bg_baseline *b);
const char *bg_baseline_machine(const bg_baseline *b); /* the machine it was exported for */
size_t bg_baseline_run_count(const bg_baseline *b);

/*
 * Stores the file's runs under `machine` (this machine's fingerprint) with
 * source "baseline" and their own uids; a run whose uid is already stored is
 * skipped, so importing a file twice stores nothing twice.  A file exported
 * for another machine -> BG_EINPUT, unless `force`.  All or nothing: a series
 * whose unit contradicts the database is refused with nothing stored.
 */
int bg_baseline_import(bg_ctx *ctx, bg_store *store, const bg_baseline *b, const char *machine,
                       int force, size_t *imported, size_t *present);
/* bg_baseline_import of nb files at once, all or nothing across them (one
 * file's series in another unit than another's is refused too); imported[i]
 * and present[i] count file i's runs. */
int bg_baseline_import_all(bg_ctx *ctx, bg_store *store, const bg_baseline *const *b, size_t nb,
                           const char *machine, int force, size_t *imported, size_t *present);

/* What `calibrate` learnt about one series from k runs at one commit. */
typedef struct {
	size_t runs;           /* k */
	double mean;           /* mean of the run means */
	double samples;        /* mean samples per run */
	double run_cv;         /* SD of the run means / |mean| */
	double within_cv;      /* sqrt(s2_within) / |mean|; NAN when no run has 2 samples */
	double s2_within;      /* pooled within-run variance; NAN when unknown */
	double s2_between;     /* run-to-run variance that within-run noise does not explain */
	double mde;            /* relative change one candidate run detects against `window` runs */
	int samples_suggested; /* samples per run worth spending (1..1000); 0: unknown */
	int runs_needed;       /* smallest window that detects `change` (2..1000); 0: more
	                          than 1000; -1: undefined (a zero mean) */
} bg_calibration;

/*
 * Variance components of a series from its run summaries (n, mean, stddev of
 * each run): the MDE at `alpha` with 80% power for one candidate run against
 * a baseline of `window` runs, the samples per run beyond which within-run
 * noise is at most a fifth of a run mean's variance, and the window needed to
 * detect a relative change `change`.  Needs nruns >= 2 (else BG_EINPUT).
 */
int bg_calibrate(bg_ctx *ctx, const bg_summary *runs, size_t nruns, double alpha, int window,
                 double change, bg_calibration *out);

/* ------------------------------------------------------------------ alerts */

/*
 * Alerts, sent over HTTP by lib/alert.c: a signed JSON
 * webhook, a Slack incoming-webhook message, a pull-request comment found
 * again by a hidden marker and edited in place.  An alert is written to the
 * database's outbox first and delivered from there: one that cannot be
 * delivered within its target's `timeout` stays and is retried by the next
 * bg_alert_flush.  ${VAR} is expanded at each delivery; secrets (token,
 * secret, the expanded URLs) are never stored, logged or put in a message.
 * Strings handed in are borrowed for the call.
 */

/* What an alert is about: one check. */
typedef struct {
	const char *project;           /* NULL: "default" */
	const bg_check_result *result; /* its counts decide against each target's "on" */
	const char *check_json;        /* the result as `check --json` prints it */
	const char *markdown;          /* the result as the Markdown verdict */
	const char *subject;           /* the commit's subject, or NULL */
	const char *run_url;           /* the CI run, or NULL */
	const char *commit_url;        /* the commit, or NULL */
	int sample; /* `alert test`: marked as a sample, sent whatever "on" says */
} bg_alert_event;

/* What became of one alert (or, for `alert test`, one target). */
typedef struct {
	const char *kind;
	const char *target;  /* the label: secrets left out */
	const char *outcome; /* "delivered", "pending", "failed", "superseded", "disabled" */
	int attempts;        /* HTTP requests made by this call */
	int status;          /* the last HTTP status, 0 if none */
	const char *why;     /* for anything but delivered: the reason, or NULL */
	int64_t id;          /* the outbox entry; 0 for `alert test` */
} bg_alert_report;

typedef void (*bg_alert_report_cb)(const bg_alert_report *r, void *data);

typedef struct {
	size_t queued;    /* new entries written to the outbox */
	size_t delivered; /* delivered by this call, old and new */
	size_t pending;   /* left in the outbox to retry */
	size_t failed;    /* refused for good by the receiver (4xx): kept, not retried */
	size_t disabled;  /* targets left out: a ${VAR} is not set */
} bg_alert_stats;

/*
 * Writes to the outbox the alerts `ev` calls for: to each configured target
 * whose "on" matches (a github target whose "on" does not match gets an
 * entry that only edits an existing comment, so it never goes stale).  A
 * target with a ${VAR} unset is left out with a warning.
 */
int bg_alert_queue(bg_ctx *ctx, bg_store *store, const bg_config *cfg, const bg_alert_event *ev,
                   bg_alert_stats *stats);
/*
 * Delivers the outbox's pending entries to the configured targets, oldest
 * first, each target within its `timeout` (all requests and waits).
 * Connection errors, 408, 429 (after its Retry-After) and 5xx are retried
 * with exponential backoff; another 4xx marks the entry failed.  Of several
 * pending comments for one pull request only the newest is sent.  Returns
 * < 0 only when the database fails; delivery trouble is in the stats and
 * reports (`cb` may be NULL).
 */
int bg_alert_flush(bg_ctx *ctx, bg_store *store, const bg_config *cfg, bg_alert_report_cb cb,
                   void *data, bg_alert_stats *stats);
/*
 * Gives up pending outbox entry `id` (`alert drop`): it is marked failed,
 * "dropped by hand", and no flush sends it; for an alert whose target is
 * gone from the config.  `cb` (may be NULL) hears of it as "dropped".
 * BG_EINPUT when no entry `id` is pending, or another benchguard is
 * sending it now.
 */
int bg_alert_drop(bg_ctx *ctx, bg_store *store, int64_t id, bg_alert_report_cb cb, void *data);
/*
 * `alert test`: sends `ev` (a sample) straight to each webhook and Slack
 * target, nothing stored; for a github target it reads the pull request's
 * comments (or the repository) to check the token, posting nothing.
 */
int bg_alert_test(bg_ctx *ctx, const bg_config *cfg, const bg_alert_event *ev,
                  bg_alert_report_cb cb, void *data, bg_alert_stats *stats);
/* ------------------------------------------------------------ change points */

/*
 * Steps in a series of run means in commit order (lib/changepoint.c):
 * binary segmentation with a pooled two-sample t-test on the best split,
 * Bonferroni over the split positions tried, a Hampel filter first so that
 * one far run is never a step (it places steps; the runs test them), and a
 * last pass that re-tests each step between its neighbours.  Deterministic.
 */
typedef struct {
	size_t min_segment; /* runs on each side of a step, >= 2 (0: 5) */
	double alpha;       /* significance of a step after adjustment (0: 0.01) */
	double min_change;  /* smallest |relative step| reported, e.g. 0.02 */
} bg_changepoint_opts;

typedef struct {
	size_t index;         /* the first value of the new level */
	double before, after; /* means of the levels' runs (outliers replaced) */
	double change;        /* (after - before) / |before|, unoriented; NAN if before is 0 */
	double t;             /* pooled t of after - before */
	double p;             /* two-sided, times the split positions tried (capped at 1) */
} bg_changepoint;

typedef struct {
	bg_changepoint *points; /* by index */
	size_t npoints;
	size_t *outliers; /* values the tests take as replaced, by index */
	size_t noutliers;
} bg_changepoints;

/* Finds the steps of x[0..n) (finite values; else BG_EINPUT); opts NULL: defaults.
 * *out is the caller's (bg_changepoints_clear). */
int bg_changepoints_find(bg_ctx *ctx, const double *x, size_t n, const bg_changepoint_opts *opts,
                         bg_changepoints *out);
void bg_changepoints_clear(bg_changepoints *cp);

/* ------------------------------------------------------------------ report */

/*
 * The nightly trend view (lib/report.c): every clean run of a period in
 * commit order, per series its run means with 95% CIs, the levels between
 * change points (bg_changepoints_find with the thresholds' alpha and
 * min_change), the runs the rolling-baseline check flags at each commit
 * (the check replayed along the history, Benjamini-Hochberg across the
 * series of a commit when fdr is on), the newest commit's baseline window
 * and the run-to-run noise; rendered as HTML, Markdown or JSON.
 */
typedef struct bg_report bg_report;

typedef enum { BG_REPORT_HTML = 0, BG_REPORT_MARKDOWN, BG_REPORT_JSON } bg_report_format;

typedef struct {
	int64_t since;        /* runs started at or after (seconds since the epoch); 0: all */
	int64_t now;          /* when the report is made, for its header */
	const char *filter;   /* extended regex on the benchmark or "benchmark:metric"; NULL: all */
	const char *branch;   /* commit order: its first-parent history (with a repo); runs of
	                         other commits are left out.  No repo: by each commit's first run */
	const char *machine;  /* fingerprint; NULL: every machine (a series per machine) */
	int include_paired;   /* the paired runs of compare, bisect and ci's confirmation too */
	const char *project;  /* for the title; may be NULL */
	int window, min_runs; /* the rolling baseline, as check */
	bg_thresholds thresholds;
	size_t min_segment; /* runs on each side of a step (0: 5) */
} bg_report_opts;

/* Gathers a report (repo may be NULL); *out is the caller's (bg_report_free). */
int bg_report_build(bg_ctx *ctx, bg_store *store, bg_repo *repo, const bg_report_opts *opts,
                    bg_report **out);
void bg_report_free(bg_report *r);
size_t bg_report_series_count(const bg_report *r);
/* The runs and commits the report covers: with a filter, those holding a
 * selected series; a commit is one point in every series with runs there. */
size_t bg_report_run_count(const bg_report *r);
size_t bg_report_commit_count(const bg_report *r);
/* Every run of the period on the branch's history, whatever the filter
 * selected (to say that the filter, not the period, left a report empty). */
size_t bg_report_period_run_count(const bg_report *r);
/* Runs of the period left out: their commits are not on the branch's history. */
size_t bg_report_excluded_runs(const bg_report *r);
/* A change point of the report, as `bisect --step` searches it: the series
 * moved between the commit of its last point before the step and the
 * commit of its first point after (`git log before..after` holds the
 * culprit). */
typedef struct {
	char *series;  /* "benchmark:metric" */
	char *machine; /* the fingerprint of its runs */
	char before[41], after[41];
	double mean_before, mean_after; /* the levels on each side */
	double delta;                   /* the value's own movement, after / before - 1 */
	double change;                  /* labelled: positive is worse */
	double p;                       /* the step's p (adjusted) */
	bg_verdict verdict;             /* regression or improvement */
} bg_report_step;

/* Every change point of the report, series by series, oldest first in
 * each; *steps is the caller's (bg_report_steps_free). */
int bg_report_steps(bg_ctx *ctx, const bg_report *r, bg_report_step **steps, size_t *n);
void bg_report_steps_free(bg_report_step *steps, size_t n);
/* "html", "markdown" (or "md"), "json" -> format; else BG_EINPUT. */
int bg_report_format_from_name(const char *name, bg_report_format *out);
/* The whole document (*text, NUL-terminated, caller frees). */
int bg_report_render(bg_ctx *ctx, const bg_report *r, bg_report_format format, char **text,
                     size_t *len);

#ifdef __cplusplus
}
#endif

#endif
