/*
 * test_bisect.c -- the search of `bisect` on synthetic histories whose
 * culprit is known: every position of a 10% step in 63 commits, worse or
 * better, is found in at most ceil(log2 63) probes; a throughput's
 * recovery labelled as an improvement; the culprit's confirmation;
 * noise-level commits, unbuildable probes, an unbuildable culprit (a
 * range, never a wrong commit), an ambiguous probe that gets more runs,
 * alpha per decision across a probe's looks, and errors.  The machine's
 * speed drifts by +-15% (more than the step) over a few hundred runs, and
 * each run has 1% noise from a fixed-seed Gaussian, so every run of the
 * test sees the same numbers; runs are compared in adjacent pairs, as the
 * command makes them.
 */
#include <math.h>

#include "unit.h"

#define N 63
#define MAXP 16

/*
 * A history whose true mean is level[i] at commit i, measured on a machine
 * whose speed drifts by +-15% over time (a slow sine of a clock that ticks
 * once a run) with 1% noise per run: a pair of adjacent runs sees nearly
 * the same drift, runs far apart do not.
 */
typedef struct {
	double level[N + 1];
	char unbuildable[N + 1];
	size_t calls[N + 1];
	double p[N + 1][MAXP], g[N + 1][MAXP]; /* pairs made so far */
	size_t np[N + 1];
	double clock;
	uint64_t seed;
	int fail_at;  /* index whose measurement fails (< 0: none) */
	int spike_at; /* index whose 4th run a neighbour slows by 30% (< 0: none) */
	size_t confirms,
	        confirm[4]; /* the confirm callback's calls, and its last lo, hi, pairs, more */
} world;

static double gauss(world *w)
{
	double u1, u2;

	/* xorshift64*, Box-Muller: a private, repeatable generator. */
	w->seed ^= w->seed >> 12;
	w->seed ^= w->seed << 25;
	w->seed ^= w->seed >> 27;
	u1 = ((double)((w->seed * 2685821657736338717ULL) >> 11) + 0.5) / 9007199254740992.0;
	w->seed ^= w->seed >> 12;
	w->seed ^= w->seed << 25;
	w->seed ^= w->seed >> 27;
	u2 = ((double)((w->seed * 2685821657736338717ULL) >> 11) + 0.5) / 9007199254740992.0;
	return sqrt(-2 * log(u1)) * cos(2 * M_PI * u2);
}

/* One run of commit i now. */
static double run(world *w, size_t i)
{
	double drift = 1 + 0.15 * sin(w->clock / 30.0);

	w->clock += 1;
	return w->level[i] * drift * (1 + 0.01 * gauss(w));
}

static void world_init(world *w, size_t step_at, double step)
{
	size_t i;

	memset(w, 0, sizeof(*w));
	w->seed = 0x9e3779b97f4a7c15ULL + step_at;
	w->fail_at = -1;
	w->spike_at = -1;
	for (i = 0; i <= N; i++)
		w->level[i] = i >= step_at ? 100 * (1 + step) : 100;
}

static int measure(bg_ctx *ctx, size_t index, size_t runs, void *data, double **values,
                   double **good, size_t *n, int *reused)
{
	world *w = data;
	size_t k;

	w->calls[index]++;
	if ((int)index == w->fail_at)
		return bg_error_set(ctx, BG_ERROR, "measuring %zu failed", index);
	if (w->unbuildable[index])
		return 1;
	assert_true(runs <= MAXP);
	*reused = w->np[index] >= runs;
	for (k = w->np[index]; k < runs; k++) {
		/* ABBA, as the command does it. */
		if (k % 2) {
			w->g[index][k] = run(w, 0);
			w->p[index][k] = run(w, index);
		} else {
			w->p[index][k] = run(w, index);
			w->g[index][k] = run(w, 0);
		}
		if ((int)index == w->spike_at && k == 3)
			w->p[index][k] *= 1.3;
	}
	if (w->np[index] < runs)
		w->np[index] = runs;
	/* The first `runs` pairs, as the command hands them over. */
	*values = malloc(runs * sizeof(double));
	*good = malloc(runs * sizeof(double));
	assert_non_null(*values);
	assert_non_null(*good);
	memcpy(*values, w->p[index], runs * sizeof(double));
	memcpy(*good, w->g[index], runs * sizeof(double));
	*n = runs;
	return 0;
}

typedef struct {
	double good[5], bad[5];
} ends;

static void opts_init(bg_bisect_opts *o, world *w, ends *e)
{
	size_t k;

	for (k = 0; k < 5; k++) {
		if (k % 2) {
			e->bad[k] = run(w, N);
			e->good[k] = run(w, 0);
		} else {
			e->good[k] = run(w, 0);
			e->bad[k] = run(w, N);
		}
	}
	memset(o, 0, sizeof(*o));
	o->n = N;
	o->good = e->good;
	o->bad = e->bad;
	o->npairs = 5;
	o->direction = BG_DIR_LOWER;
	o->alpha = 0.01;
	o->measure = measure;
	o->data = w;
}

/* The search over w, its ends measured first; runs and max_runs 0: the defaults. */
static void search(world *w, size_t runs, size_t max_runs, bg_bisect_result *r)
{
	bg_bisect_opts o;
	bg_ctx *ctx = NULL;
	ends e;

	opts_init(&o, w, &e);
	o.runs = runs;
	o.max_runs = max_runs;
	assert_int_equal(bg_ctx_new(&ctx), 0);
	assert_int_equal(bg_bisect_search(ctx, &o, r), 0);
	bg_ctx_free(ctx);
}

static size_t probes(const bg_bisect_result *r)
{
	size_t i, n = 0;

	for (i = 0; i < r->nsteps; i++)
		n += r->steps[i].verdict != BG_PROBE_SKIP;
	return n;
}

/* ceil(log2 n) for every n a size_t holds: past 2^63 it is 64, not an
 * endless loop on a shift wider than the type. */
static void test_estimate(void **state)
{
	(void)state;
	assert_int_equal(bg_bisect_estimate(0), 0);
	assert_int_equal(bg_bisect_estimate(1), 0);
	assert_int_equal(bg_bisect_estimate(2), 1);
	assert_int_equal(bg_bisect_estimate(3), 2);
	assert_int_equal(bg_bisect_estimate(1024), 10);
	assert_int_equal(bg_bisect_estimate(1025), 11);
	assert_int_equal(bg_bisect_estimate(SIZE_MAX / 2 + 1), sizeof(size_t) * 8 - 1);
	assert_int_equal(bg_bisect_estimate(SIZE_MAX / 2 + 2), sizeof(size_t) * 8);
	assert_int_equal(bg_bisect_estimate(SIZE_MAX), sizeof(size_t) * 8);
}

/* Every position of the step is found, in at most ceil(log2 63) = 6 probes. */
static void test_every_position(void **state)
{
	size_t s;

	(void)state;
	assert_int_equal(bg_bisect_estimate(N), 6);
	for (s = 1; s <= N; s++) {
		bg_bisect_result r;
		world w;

		world_init(&w, s, 0.10);
		search(&w, 0, 0, &r);
		if (!r.found || r.first_bad != s) {
			print_error("step at %zu: found %d first_bad %zu\n", s, r.found,
			            r.first_bad);
			fail();
		}
		assert_int_equal(r.last_good, s - 1);
		assert_true(probes(&r) <= 6);
		/* The change reported is the step: about +10%, significant. */
		if (!(r.change.change > 0.07 && r.change.change < 0.13))
			print_error("s=%zu change %g step %g p %g\n", s, r.change.change, r.step,
			            r.change.p_worse);
		assert_true(r.change.change > 0.07 && r.change.change < 0.13);
		assert_true(r.step > 0.07 && r.step < 0.13);
		if (!(r.change.p_worse < 0.01))
			print_error("s=%zu p=%g change=%g nsteps=%zu\n", s, r.change.p_worse,
			            r.change.change, r.nsteps);
		assert_true(r.change.p_worse < 0.01);
		assert_true(r.significant);
		bg_bisect_result_clear(&r);
	}
}

/*
 * A throughput (higher is better) that falls to 40% at commit 20: found,
 * and its change labelled as every verdict labels it: the value moved by
 * -60%, which is +60% worse, not exp(ln 2.5) - 1 = +150%.
 */
static void test_higher_is_better_labelled(void **state)
{
	bg_bisect_opts o;
	bg_bisect_result r;
	bg_ctx *ctx = NULL;
	world w;
	ends e;

	(void)state;
	world_init(&w, 20, -0.60);
	opts_init(&o, &w, &e);
	o.direction = BG_DIR_HIGHER;
	assert_int_equal(bg_ctx_new(&ctx), 0);
	assert_int_equal(bg_bisect_search(ctx, &o, &r), 0);
	assert_true(r.found && r.first_bad == 20);
	assert_true(r.step > 0.55 && r.step < 0.65);
	assert_true(r.change.change > 0.55 && r.change.change < 0.65);
	assert_true(r.change.delta < -0.55 && r.change.delta > -0.65);
	assert_true(r.change.p_worse < 0.01);
	bg_bisect_result_clear(&r);
	bg_ctx_free(ctx);
}

/*
 * Improvements are found as regressions are: a time 10% shorter from every
 * position, and a throughput that recovers from 40 to 100 (+150%), each
 * named, in as many probes, labelled as an improvement with the value's own
 * movement and a p that it got better.
 */
static void test_improvement_every_position(void **state)
{
	size_t s;

	(void)state;
	for (s = 1; s <= N; s++) {
		bg_bisect_result r;
		world w;

		world_init(&w, s, -0.10);
		search(&w, 0, 0, &r);
		if (!r.found || r.first_bad != s || !r.improvement) {
			print_error("step at %zu: found %d first %zu improvement %d\n", s, r.found,
			            r.first_bad, r.improvement);
			fail();
		}
		assert_int_equal(r.last_good, s - 1);
		assert_true(probes(&r) <= 6);
		assert_true(r.change.delta < -0.07 && r.change.delta > -0.13);
		assert_true(r.change.change < -0.07 && r.change.change > -0.13);
		assert_true(r.step < -0.07 && r.step > -0.13);
		assert_true(r.change.p_better < 0.01);
		assert_true(r.change.p_worse > 0.99);
		bg_bisect_result_clear(&r);
	}
}

static void test_recovery_higher_is_better(void **state)
{
	bg_bisect_opts o;
	bg_bisect_result r;
	bg_ctx *ctx = NULL;
	world w;
	ends e;
	size_t i;

	(void)state;
	world_init(&w, 45, 0.0);
	for (i = 0; i <= N; i++)
		w.level[i] = i >= 45 ? 100 : 40;
	opts_init(&o, &w, &e);
	o.direction = BG_DIR_HIGHER;
	assert_int_equal(bg_ctx_new(&ctx), 0);
	assert_int_equal(bg_bisect_search(ctx, &o, &r), 0);
	assert_true(r.found && r.first_bad == 45 && r.improvement);
	/* The value moved +150%; labelled, that is 150% better. */
	assert_true(r.change.delta > 1.40 && r.change.delta < 1.60);
	assert_true(r.change.change < -1.40 && r.change.change > -1.60);
	assert_true(r.step < -1.40 && r.step > -1.60);
	assert_true(r.change.p_better < 0.01);
	for (i = 0; i < r.nsteps; i++) {
		/* Each probe's change is the value's own against the good end, labelled. */
		double want = r.steps[i].index >= 45 ? -1.5 : 0.0;
		assert_true(fabs(r.steps[i].change - want) < 0.1);
		assert_int_equal(r.steps[i].verdict,
		                 r.steps[i].index >= 45 ? BG_PROBE_BAD : BG_PROBE_GOOD);
	}
	assert_string_equal(bg_probe_verdict_term(BG_PROBE_BAD, 1), "new");
	assert_string_equal(bg_probe_verdict_term(BG_PROBE_GOOD, 1), "old");
	assert_string_equal(bg_probe_verdict_term(BG_PROBE_BAD, 0), "bad");
	bg_bisect_result_clear(&r);
	/* Asked for a regression where the series got better: refused, not searched. */
	opts_init(&o, &w, &e);
	o.direction = BG_DIR_HIGHER;
	o.want = BG_BISECT_WORSE;
	assert_int_equal(bg_bisect_search(ctx, &o, &r), BG_EINPUT);
	assert_non_null(strstr(bg_ctx_error(ctx), "no regression to find"));
	assert_int_equal(r.nsteps, 0);
	bg_ctx_free(ctx);
}

/* The confirmation: announced once, with the pairs still to run, and the
 * culprit's and last good commit's figures are then those of all pairs. */
static void on_confirm(size_t lo, size_t hi, size_t pairs, size_t more, void *data)
{
	world *w = data;

	w->confirms++;
	w->confirm[0] = lo;
	w->confirm[1] = hi;
	w->confirm[2] = pairs;
	w->confirm[3] = more;
}

static void test_confirm_phase(void **state)
{
	bg_bisect_opts o;
	bg_bisect_result r;
	bg_ctx *ctx = NULL;
	world w;
	ends e;
	size_t i, updated = 0;

	(void)state;
	world_init(&w, 37, 0.10);
	opts_init(&o, &w, &e);
	o.confirm = on_confirm;
	assert_int_equal(bg_ctx_new(&ctx), 0);
	assert_int_equal(bg_bisect_search(ctx, &o, &r), 0);
	assert_true(r.found && r.first_bad == 37);
	assert_int_equal(w.confirms, 1);
	assert_int_equal(w.confirm[0], 36);
	assert_int_equal(w.confirm[1], 37);
	assert_int_equal(w.confirm[2], 5);
	assert_int_equal(w.confirm[3], 2 + 2); /* 3 pairs each, 5 wanted */
	for (i = 0; i < r.nsteps; i++)
		if (r.steps[i].index == 36 || r.steps[i].index == 37) {
			assert_int_equal(r.steps[i].runs, 5);
			assert_int_equal(r.steps[i].decided_runs, 3);
			updated++;
		}
	assert_int_equal(updated, 2);
	assert_int_equal(w.np[36], 5);
	assert_int_equal(w.np[37], 5);
	bg_bisect_result_clear(&r);
	/* Again over the stored pairs: the same phase, every pair reused. */
	w.confirms = 0;
	opts_init(&o, &w, &e);
	o.confirm = on_confirm;
	assert_int_equal(bg_bisect_search(ctx, &o, &r), 0);
	assert_int_equal(w.confirms, 1);
	assert_int_equal(w.confirm[3], 4);
	for (i = 0; i < r.nsteps; i++)
		assert_true(r.steps[i].reused);
	assert_int_equal(w.np[36], 5);
	bg_bisect_result_clear(&r);
	bg_ctx_free(ctx);
}

/* Commits that move the series by noise-level amounts are good. */
static void test_noise_level_commits(void **state)
{
	bg_bisect_result r;
	world w;
	size_t i;

	(void)state;
	world_init(&w, 40, 0.10);
	for (i = 10; i < 40; i++)
		w.level[i] = 100.3; /* +0.3%: a third of the noise */
	search(&w, 0, 0, &r);
	assert_true(r.found);
	assert_int_equal(r.first_bad, 40);
	for (i = 0; i < r.nsteps; i++)
		assert_int_equal(r.steps[i].verdict,
		                 r.steps[i].index >= 40 ? BG_PROBE_BAD : BG_PROBE_GOOD);
	bg_bisect_result_clear(&r);
}

/* An unbuildable probe is skipped, a neighbour measured, the culprit still found. */
static void test_skip_unbuildable(void **state)
{
	bg_bisect_result r;
	world w;
	size_t i, skipped = 0;

	(void)state;
	world_init(&w, 37, 0.10);
	w.unbuildable[31] = 1; /* the first midpoint of 0..63 */
	search(&w, 0, 0, &r);
	assert_true(r.found);
	assert_int_equal(r.first_bad, 37);
	for (i = 0; i < r.nsteps; i++)
		if (r.steps[i].verdict == BG_PROBE_SKIP) {
			assert_int_equal(r.steps[i].index, 31);
			skipped++;
		}
	assert_int_equal(skipped, 1);
	assert_int_equal(w.calls[31], 1); /* never tried twice */
	bg_bisect_result_clear(&r);
}

/* The culprit cannot be built: the answer is the smallest range holding it. */
static void test_unbuildable_culprit(void **state)
{
	bg_bisect_result r;
	world w;

	(void)state;
	world_init(&w, 20, 0.10);
	w.unbuildable[20] = 1;
	w.unbuildable[21] = 1;
	search(&w, 0, 0, &r);
	assert_false(r.found);
	/* 19 is good, 22 bad; 20 and 21 unbuildable: any of 20, 21, 22. */
	assert_int_equal(r.last_good, 19);
	assert_int_equal(r.lo, 20);
	assert_int_equal(r.hi, 22);
	bg_bisect_result_clear(&r);
}

/* Half the step: like neither end, so it gets runs up to the cap, then the nearer end. */
static void test_ambiguous_gets_more_runs(void **state)
{
	bg_bisect_result r;
	world w;
	size_t i;
	int seen = 0;

	(void)state;
	world_init(&w, 33, 0.10);
	/* Nearer the good end (100) than the bad (110), and far enough from
	 * both that its first 3 pairs are significant against each at
	 * alpha / 3 (at 104 it moved from good with p 0.005 only: decided
	 * good at once, the nearer end too, but not this path). */
	w.level[31] = 104.5;
	search(&w, 3, 9, &r);
	for (i = 0; i < r.nsteps; i++)
		if (r.steps[i].index == 31) {
			seen = 1;
			print_message("# 31: %s, %zu pairs, %+.2f%%, p %.3g %.3g\n",
			              bg_probe_verdict_name(r.steps[i].verdict), r.steps[i].runs,
			              100 * r.steps[i].change, r.steps[i].p_good, r.steps[i].p_bad);
			assert_int_equal(r.steps[i].runs, 9);
			assert_true(r.steps[i].by_distance);
			assert_int_equal(r.steps[i].verdict, BG_PROBE_GOOD);
		} else {
			/* Decided in 3; the culprit and the commit before it
			 * are then measured to the ends' 5 pairs. */
			assert_int_equal(r.steps[i].decided_runs, 3);
			if (r.steps[i].index == r.lo || r.steps[i].index == r.last_good) {
				/* 5 measured; one far pair may be left out of the figures. */
				assert_int_equal(w.np[r.steps[i].index], 5);
				assert_true(r.steps[i].runs >= 4 && r.steps[i].runs <= 5);
			} else {
				assert_int_equal(r.steps[i].runs, 3);
			}
			assert_false(r.steps[i].by_distance);
		}
	assert_true(seen);
	assert_true(w.calls[31] == 3); /* 3, 6, 9 runs */
	assert_true(r.found);
	assert_int_equal(r.first_bad, 33);
	bg_bisect_result_clear(&r);
}

/* Stored results: a second search over the same world measures nothing new. */
static void test_reuse_flag(void **state)
{
	bg_bisect_result r, first;
	world w;
	size_t i;

	(void)state;
	world_init(&w, 50, 0.10);
	search(&w, 0, 0, &r);
	for (i = 0; i < r.nsteps; i++)
		assert_false(r.steps[i].reused);
	memcpy(&first, &r, sizeof(r));
	memset(&r, 0, sizeof(r));
	search(&w, 0, 0, &r);
	/* Over the same stored pairs it takes the same steps to the same verdicts. */
	assert_int_equal(r.nsteps, first.nsteps);
	for (i = 0; i < r.nsteps; i++) {
		assert_int_equal(r.steps[i].index, first.steps[i].index);
		assert_int_equal(r.steps[i].verdict, first.steps[i].verdict);
		assert_int_equal(r.steps[i].runs, first.steps[i].runs);
	}
	bg_bisect_result_clear(&first);
	assert_true(r.found);
	assert_int_equal(r.first_bad, 50);
	for (i = 0; i < r.nsteps; i++)
		if (!r.steps[i].reused) {
			print_error("step %zu (commit %zu) not reused\n", i, r.steps[i].index);
			fail();
		}
	bg_bisect_result_clear(&r);
}

/* One run slowed by 30% among the last good commit's pairs does not halve the step. */
static void test_spike_left_out(void **state)
{
	bg_bisect_result r;
	world w;

	(void)state;
	world_init(&w, 37, 0.10);
	w.spike_at = 36;
	search(&w, 0, 0, &r);
	assert_true(r.found);
	assert_int_equal(r.first_bad, 37);
	assert_int_equal(r.last_good, 36);
	assert_true(w.np[36] >= 4); /* the spike was measured */
	if (!(r.change.change > 0.07 && r.change.change < 0.13)) {
		print_error("change %g with the spike\n", r.change.change);
		fail();
	}
	bg_bisect_result_clear(&r);
}

/* An ambiguous probe whose runs include a slowed one still stops at the cap
 * (the outlier left out must not make it ask for the same pairs forever). */
static void test_ambiguous_with_spike_stops(void **state)
{
	bg_bisect_result r;
	world w;
	size_t i;
	int seen = 0;

	(void)state;
	world_init(&w, 33, 0.10);
	w.level[31] = 104.5;
	w.spike_at = 31;
	search(&w, 3, 9, &r);
	for (i = 0; i < r.nsteps; i++)
		if (r.steps[i].index == 31) {
			seen = 1;
			assert_true(r.steps[i].by_distance);
			assert_int_equal(r.steps[i].runs,
			                 8); /* 9 measured, the slowed one left out */
		}
	assert_true(seen);
	assert_int_equal(w.calls[31], 3);
	assert_int_equal(r.first_bad, 33);
	bg_bisect_result_clear(&r);
}

/*
 * A probe on a noisy machine, for the error rate of its decisions: pairs
 * whose log ratio to the good end is `level` plus Gaussian noise of SD `sd`.
 */
typedef struct {
	world w; /* its generator only */
	double level, sd;
	double p[MAXP], g[MAXP];
	size_t np;
} noisy_probe;

static int measure_noisy(bg_ctx *ctx, size_t index, size_t runs, void *data, double **values,
                         double **good, size_t *n, int *reused)
{
	noisy_probe *q = data;

	(void)ctx;
	(void)index;
	assert_true(runs <= MAXP);
	*reused = q->np >= runs;
	for (; q->np < runs; q->np++) {
		q->g[q->np] = 100;
		q->p[q->np] = 100 * exp(q->level + q->sd * gauss(&q->w));
	}
	*values = malloc(runs * sizeof(double));
	*good = malloc(runs * sizeof(double));
	assert_non_null(*values);
	assert_non_null(*good);
	memcpy(*values, q->p, runs * sizeof(double));
	memcpy(*good, q->g, runs * sizeof(double));
	*n = runs;
	return 0;
}

/*
 * Searches of c0..c2 whose probe c1 is at `level` (0: the good end's, 0.10:
 * the bad end's), the ends 10% apart in 8 pairs, every log ratio scattered
 * by `sd`: how often c1 is *decided* (not taken by distance) for the wrong end.
 */
static double wrong_decisions(double level, double sd, size_t searches)
{
	bg_bisect_result r;
	bg_bisect_opts o;
	bg_ctx *ctx = NULL;
	noisy_probe q;
	double good[8], bad[8];
	size_t i, k, wrong = 0, made = 0;

	memset(&q, 0, sizeof(q));
	q.w.seed = 0x2545f4914f6cdd1dULL;
	q.sd = sd;
	q.level = level;
	assert_int_equal(bg_ctx_new(&ctx), 0);
	for (i = 0; i < searches; i++) {
		for (k = 0; k < 8; k++) {
			good[k] = 100;
			bad[k] = 100 * exp(0.10 + sd * gauss(&q.w));
		}
		memset(&o, 0, sizeof(o));
		o.n = 2;
		o.good = good;
		o.bad = bad;
		o.npairs = 8;
		o.direction = BG_DIR_LOWER;
		o.want = BG_BISECT_WORSE;
		o.alpha = 0.01;
		o.measure = measure_noisy;
		o.data = &q;
		q.np = 0;
		assert_int_equal(bg_bisect_search(ctx, &o, &r), 0);
		for (k = 0; k < r.nsteps; k++)
			if (r.steps[k].index == 1 && !r.steps[k].by_distance) {
				made++;
				wrong += r.steps[k].verdict !=
				         (level > 0.05 ? BG_PROBE_BAD : BG_PROBE_GOOD);
			}
		bg_bisect_result_clear(&r);
	}
	bg_ctx_free(ctx);
	assert_true(made > searches / 2);
	return (double)wrong / (double)searches;
}

/*
 * alpha is per decision, however many looks a probe takes (3, 6, 9, 12
 * pairs): with pairs scattered by half the step, a probe at either end's
 * level is decided for the other end in at most alpha of 4,000 searches.
 * Looking four times at alpha each decided a good probe bad in 1.6% of them.
 */
static void test_alpha_per_decision(void **state)
{
	double at_good, at_bad;

	(void)state;
	at_good = wrong_decisions(0, 0.05, 4000);
	at_bad = wrong_decisions(0.10, 0.05, 4000);
	print_message(
	        "# wrong decisions at sd 5%% of a 10%% step: good probe %.4f, bad probe %.4f\n",
	        at_good, at_bad);
	assert_true(at_good <= 0.01);
	assert_true(at_bad <= 0.01);
}

static void test_errors(void **state)
{
	bg_ctx *ctx = NULL;
	bg_bisect_opts o;
	bg_bisect_result r;
	world w;
	ends e;

	(void)state;
	assert_int_equal(bg_ctx_new(&ctx), 0);
	world_init(&w, 10, 0.10);
	opts_init(&o, &w, &e);
	w.fail_at = 31;
	assert_int_equal(bg_bisect_search(ctx, &o, &r), BG_ERROR);
	assert_non_null(strstr(bg_ctx_error(ctx), "measuring 31 failed"));
	assert_null(r.steps);
	opts_init(&o, &w, &e);
	o.npairs = 1;
	assert_int_equal(bg_bisect_search(ctx, &o, &r), BG_EINPUT);
	opts_init(&o, &w, &e);
	e.bad[2] = -1;
	assert_int_equal(bg_bisect_search(ctx, &o, &r), BG_EINPUT);
	opts_init(&o, &w, &e);
	o.n = 0;
	assert_int_equal(bg_bisect_search(ctx, &o, &r), BG_EINPUT);
	assert_string_equal(bg_probe_verdict_name(BG_PROBE_SKIP), "skip");
	bg_bisect_result_clear(NULL);
	bg_ctx_free(ctx);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_estimate),
		cmocka_unit_test(test_every_position),
		cmocka_unit_test(test_higher_is_better_labelled),
		cmocka_unit_test(test_improvement_every_position),
		cmocka_unit_test(test_recovery_higher_is_better),
		cmocka_unit_test(test_confirm_phase),
		cmocka_unit_test(test_noise_level_commits),
		cmocka_unit_test(test_skip_unbuildable),
		cmocka_unit_test(test_unbuildable_culprit),
		cmocka_unit_test(test_ambiguous_gets_more_runs),
		cmocka_unit_test(test_reuse_flag),
		cmocka_unit_test(test_spike_left_out),
		cmocka_unit_test(test_ambiguous_with_spike_stops),
		cmocka_unit_test(test_alpha_per_decision),
		cmocka_unit_test(test_errors),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
