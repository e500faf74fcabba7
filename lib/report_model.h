/*
 * report_model.h -- the trend report's model, shared by lib/report.c, which
 * builds it, and the renderers (report_html.c, report_markdown.c,
 * report_json.c), which only read it.
 *
 * Not in benchguard.h: the public API keeps bg_report opaque so that the
 * model can change with its renderings and no caller has to follow.  Not in
 * internal.h either: no module but the report's files has any business with
 * it.
 */
#ifndef BG_REPORT_MODEL_H
#define BG_REPORT_MODEL_H

#include <stddef.h>
#include <stdint.h>

#include "internal.h"

/* One run in commit order. */
typedef struct {
	bg_run_row row;
	size_t commit; /* index of its commit in order (runs of a commit are adjacent) */
	char date[24]; /* started_at, "YYYY-MM-DD HH:MM" UTC */
} rep_run;

/*
 * The runs of one commit within a series, and its verdict: the one `ci`
 * recorded when ci judged one of these runs (recorded), else the rolling
 * check replayed on the period's runs.
 */
/* The figures of a replayed check a rendering shows (bg_test's): a report
 * keeps one per point, 200,000 of them, so not the whole test. */
typedef struct {
	double change, delta, effect, base_mean, cur_mean;
	size_t n_base;
} rep_test;

typedef struct {
	size_t from, to; /* points [from, to) */
	size_t commit;
	bg_verdict verdict;  /* regression, improvement, unchanged or no-baseline */
	bg_verdict replayed; /* the replayed check's verdict; its figures: */
	rep_test test;
	double p_adjusted; /* of the verdict's direction; NAN when untested */
	size_t base_from;  /* the baseline it was judged against: points [base_from, from) */
	int recorded;      /* verdict, first and confirm are ci's */
	bg_verdict first;  /* ci's first verdict, before confirmation */
	bg_confirm_status confirm;
} rep_group;

typedef struct {
	size_t from, to;       /* points [from, to) */
	double mean, sd, band; /* band: half-width of the 95% range of a run mean */
} rep_level;

typedef struct {
	int64_t series_id;
	char *name, *benchmark, *metric, *unit, *machine;
	char *instrument;              /* what measured its runs (NULL: the clock): runs of
	                                  another instrument are another series */
	double min_change, resolution; /* the series' own (bg_thresholds_min_change) */
	bg_direction direction;
	/*
	 * Points: one per commit, in commit order, its runs pooled.  A commit
	 * measured twenty times is one point, so that it is neither twenty
	 * points of the chart nor a place for a step between its own runs.
	 */
	size_t n, cap;
	size_t *run;    /* per point: its newest run, an index into report->runs */
	double *mean;   /* per point: the mean of its runs' summaries (robust means) */
	double *ci;     /* per point: half-width of the 95% CI of that mean (of its
	                   samples, for one run); NAN when it cannot be had */
	size_t *count;  /* per point: samples, all runs */
	size_t *nruns;  /* per point: runs pooled */
	size_t *rfirst; /* per point: its first run in rmean; [n] = nr */
	/* Runs, in commit order: what the replayed check judges (a commit's runs
	 * together, against the runs before them, as check does). */
	double *rmean;
	size_t *rrun; /* index into report->runs */
	size_t nr;
	bg_verdict *flag;
	unsigned char *outlier; /* replaced by the change-point filter */
	bg_changepoints cps;
	rep_level *levels;
	size_t nlevels;
	rep_group *groups;
	size_t ngroups;
	double cv; /* run-to-run SD within levels / |mean| */
} rep_series;

struct bg_report {
	int64_t since, now;
	char *branch, *machine, *project;
	char *filter; /* --filter, to say so when it matched no series */
	int by_git;
	bg_thresholds th;
	int window, min_runs;
	size_t min_segment;
	rep_run *runs;
	size_t nruns, ncommits, excluded;
	/* What the report covers: the runs and commits that hold a series the
	 * filter selected (all of them without --filter).  nruns and ncommits
	 * are the period's, which the runs above list. */
	size_t shown_runs, shown_commits;
	rep_series *series;
	size_t nseries;
	char **machines; /* distinct, sorted */
	char **cpus;     /* the CPU model of each (or NULL) */
	size_t nmachines;
	size_t steps[2];                 /* change points: [0] regressions, [1] improvements */
	size_t latest[BG_VERDICT_COUNT]; /* verdicts of each series' newest commit */
	size_t latest_unconfirmed;       /* of those unchanged: flagged by ci, not confirmed */
	size_t unconfirmed;              /* every group of the period flagged, not confirmed */
	size_t recorded;                 /* groups whose verdict ci recorded */
};

/* A series' values in a readable unit: a factor and its name. */
typedef struct {
	double scale;
	const char *unit;
} disp_unit;

/* A step, in the order every rendering lists them: worst first. */
typedef struct {
	const rep_series *s;
	const bg_changepoint *c;
	double worse; /* oriented change */
} step_ref;

/* ------------------------------------------------ lib/report.c: the model */

/* A step of s: regression when it goes the worse way, else improvement. */
bg_verdict bg_report__step_verdict(const rep_series *s, const bg_changepoint *c);
/* t in UTC with strftime's fmt; the number itself when gmtime cannot place it. */
void bg_report__fmt_date(char *buf, size_t len, int64_t t, const char *fmt);
void bg_report__fmt_since(char *buf, size_t len, int64_t t);
/* Point i of s: its run (commit, subject, date). */
const rep_run *bg_report__point_run(const bg_report *r, const rep_series *s, size_t i);
/* Every change point of the report, worst first; *n of them, the caller
 * frees.  NULL when out of memory. */
step_ref *bg_report__all_steps(const bg_report *r, size_t *n);
/* The noisiest series first, at most `max` of them into top; how many. */
size_t bg_report__noisiest(const bg_report *r, const rep_series **top, size_t max);
/* The newest commit's judgement; NULL without runs. */
const rep_group *bg_report__latest_group(const rep_series *s);
/* The newest commit's judgement when it is a regression or improvement. */
const rep_group *bg_report__flagged_latest(const rep_series *s);
bg_verdict bg_report__latest_verdict(const rep_series *s);
/* "first-parent" or "time": how the commits are ordered. */
const char *bg_report__order_name(const bg_report *r);
/* ci flagged it first and the pairs did not confirm it: unchanged, but shown apart. */
int bg_report__unconfirmed(const rep_group *g);
/* What a reader is told: "regression", ..., or "flagged, not confirmed". */
const char *bg_report__group_label(const rep_group *g);
/* The group (commit) point i of s belongs to. */
const rep_group *bg_report__point_group(const rep_series *s, size_t i);

/* ------------------------------------- lib/report_render.c: for renderers */

disp_unit bg_report__display_unit(const rep_series *s);
/* A change as a signed percentage with one decimal, or "n/a". */
void bg_report__fmt_pct(char *buf, size_t len, double change);
/* A replayed test's delta the same way, or "from 0" for a move away from a
 * zero mean, as check's tables say it. */
const char *bg_report__fmt_delta(char *buf, size_t len, const rep_test *t);
/* Why a report has no series, for every form to say: none (it has some), a
 * --filter that matched none of the period's runs' series, runs that
 * measured none (every benchmark skipped), or no runs at all. */
typedef enum { REP_EMPTY_NOT, REP_EMPTY_FILTER, REP_EMPTY_NO_SERIES, REP_EMPTY_NO_RUNS } rep_empty;
rep_empty bg_report__empty(const bg_report *r);

/* --------------------------------------------------------- the renderers */

/* Each appends the whole document to b; 0, or an error set on ctx. */
int bg_report__render_html(bg_ctx *ctx, const bg_report *r, bg_buf *b);
int bg_report__render_markdown(bg_ctx *ctx, const bg_report *r, bg_buf *b);
int bg_report__render_json(bg_ctx *ctx, const bg_report *r, bg_buf *b);

#endif
