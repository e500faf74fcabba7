/*
 * changepoint.c -- steps in a series' history: where the level of run means
 * moved, by how much, and how surely, for the trend report (the method
 * and its reasons: docs/statistics.md, "Change points in the trend report").
 *
 * The method is binary segmentation with Student's t-test as the split
 * criterion, the significance test Hunter (Apache Otava) applies to its
 * candidate splits, made deterministic and conservative:
 *
 *  1. A single run far from its neighbours (a noisy neighbour on a shared
 *     machine) is replaced by the median of the runs around it (a Hampel
 *     filter: farther than BG_CP_OUTLIER_SIGMAS noise SDs, the noise SD
 *     estimated from successive differences, which steps barely touch; and
 *     by its logarithm too where every value is positive).  The window is
 *     2 * min_segment - 1 runs wide, so a plateau of min_segment runs
 *     survives and a burst of fewer does not.  The filtered values say
 *     where steps may be; every t and p, change and level mean is the
 *     runs', the filter's replacements kept only where they are too rare
 *     to make a level of a second mode's chance cluster (see test_values).
 *  2. The split of a segment that maximises |t| of a pooled two-sample t-test
 *     (at least min_segment runs each side) on the filtered values is kept
 *     when its two-sided p, multiplied by the number of split positions
 *     tried (Bonferroni: the maximum of many correlated t statistics is not
 *     t-distributed), is below alpha there and in the runs; both halves
 *     are searched again, whether it was kept or not.
 *  3. A level at either end shorter than min_segment, when the test with
 *     two runs a side calls it one, bounds the level beside it (see
 *     end_boundaries).  Each step is then moved to the best split between
 *     its neighbours and tested there again; the weakest one that fails
 *     alpha or min_change is dropped, until every step stands on its own;
 *     the levels of a dropped step are searched again on their own (see
 *     research).
 *     A step whose level moves nearer an end than min_segment lets a step
 *     stand keeps its place as a boundary (its neighbours' levels end
 *     there) but is not reported: its place is min_segment's, not the
 *     data's.  So are the end levels' boundaries.
 *
 * Everything is a closed formula over prefix sums, each segment finds its
 * intervals through a tree and step 3 retests only the steps whose
 * neighbourhood changed, so a series of n runs costs O(n log n) (`make
 * bench`, "change points"), and the same input always gives the same steps.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "internal.h"

/* A run this many noise SDs from the median of its neighbours is an outlier. */
#define BG_CP_OUTLIER_SIGMAS 5.0

/* What step 3 knows of each step (a byte per step). */
#define BG_CP_DIRTY 1u   /* its place or a neighbour changed: test it again */
#define BG_CP_FAILING 2u /* its last test failed */
#define BG_CP_FIXED 4u   /* an end level's boundary: never moved, dropped or shown */
#define BG_CP_LOCAL 8u   /* found again in a dropped step's levels (see research) */

/* Median of v[0..n), n >= 1; v is reordered. */
static double median_of(double *v, size_t n)
{
	size_t i, j;

	/* The filter's windows are a few runs wide: insertion sort beats a
	 * selection there; a whole series' differences are not. */
	if (n > 16)
		return bg_stats__median(v, n);
	for (i = 1; i < n; i++) {
		double x = v[i];
		for (j = i; j > 0 && v[j - 1] > x; j--)
			v[j] = v[j - 1];
		v[j] = x;
	}
	return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

/*
 * The noise SD of x: the median absolute deviation of successive
 * differences, scaled to a normal SD.  A step is one difference among many
 * and an outlier two, so neither moves it.  When more than half of the
 * differences are alike (quantized or cycling values: counts, 10.0 10.1
 * 10.2 ...) that median is 0, and every run off its neighbours' median
 * would be called far out; the mean absolute deviation, scaled to a
 * normal SD the same way, stands in then (Iglewicz and Hoaglin's rule for
 * the modified z-score).
 */
static double noise_sd(const double *x, size_t n, double *tmp)
{
	double med, mad, sum = 0.0;
	size_t i;

	if (n < 3)
		return 0.0;
	for (i = 0; i + 1 < n; i++)
		tmp[i] = x[i + 1] - x[i];
	med = median_of(tmp, n - 1);
	for (i = 0; i + 1 < n; i++) {
		tmp[i] = fabs(x[i + 1] - x[i] - med);
		sum += tmp[i];
	}
	mad = median_of(tmp, n - 1);
	if (mad > 0.0)
		return 1.4826 * mad / sqrt(2.0);
	return 1.2533 * (sum / (double)(n - 1)) / sqrt(2.0);
}

/*
 * Step 1: the Hampel filter; clean[] gets x with outliers replaced.  The
 * noise of the whole history, in its own units, is mostly that of its
 * most common level: a series that got 10 times faster had 23 of its 60
 * older runs replaced, since their noise (in seconds) was 10 times as
 * large.  Where every value is positive (times, rates: noise that grows
 * with the level) a run must also be far out by its logarithm, against
 * the noise of the logarithms.  Not that alone: values that cycle by
 * steps alike in their own units (+0.2%, +0.2%, -0.4% of a level) differ
 * by a hair as logarithms, and with half of those differences nearly
 * alike their MAD is nearly 0, every run far out.
 */
static int hampel(const double *x, size_t n, size_t half, double *clean, size_t **outliers,
                  size_t *nout)
{
	double *tmp = malloc((n + 2 * half + 2) * sizeof(double)), *lx = NULL, sd, lsd = 0.0;
	size_t i, j, lo, hi, cap = 0;
	int positive = n > 0;

	*outliers = NULL;
	*nout = 0;
	for (i = 0; i < n && positive; i++)
		positive = x[i] > 0.0;
	if (!tmp || (positive && !(lx = malloc(n * sizeof(double))))) {
		free(tmp);
		return BG_ENOMEM;
	}
	sd = noise_sd(x, n, tmp);
	if (positive) {
		for (i = 0; i < n; i++)
			lx[i] = log(x[i]);
		lsd = noise_sd(lx, n, tmp);
	}
	for (i = 0; i < n; i++) {
		double med;

		clean[i] = x[i];
		lo = i > half ? i - half : 0;
		hi = i + half + 1 < n ? i + half + 1 : n;
		if (hi - lo < 3)
			continue;
		for (j = lo; j < hi; j++)
			tmp[j - lo] = x[j];
		med = median_of(tmp, hi - lo);
		if (!(fabs(x[i] - med) > BG_CP_OUTLIER_SIGMAS * sd) ||
		    (positive && !(fabs(lx[i] - log(med)) > BG_CP_OUTLIER_SIGMAS * lsd)))
			continue;
		clean[i] = med;
		if (bg_grow((void **)outliers, &cap, *nout, sizeof(**outliers)) < 0) {
			free(tmp);
			free(lx);
			return BG_ENOMEM;
		}
		(*outliers)[(*nout)++] = i;
	}
	free(tmp);
	free(lx);
	return 0;
}

/*
 * The expected number of windows of 2 * half + 1 runs in which runs the
 * filter replaced are the majority, were the n runs' nflagged replaced
 * ones scattered at random.  Where that happens the window's median is a
 * replaced run's level, the filter replaces its other runs with it, and a
 * chance cluster of a second mode becomes a level as flat as a plateau.
 */
static double majority_windows(size_t n, size_t half, size_t nflagged)
{
	double f = (double)nflagged / (double)n, tail = 0.0;
	size_t w = 2 * half + 1, k;

	if (!nflagged)
		return 0.0;
	if (f >= 0.5)
		return (double)n;
	for (k = half + 1; k <= w; k++)
		tail += exp(lgamma((double)w + 1.0) - lgamma((double)k + 1.0) -
		            lgamma((double)(w - k) + 1.0) + (double)k * log(f) +
		            (double)(w - k) * log1p(-f));
	return (double)n * tail;
}

/*
 * The values the tests judge (y[]), and which of the filter's replaced runs
 * flagged[0..nflagged) (ascending) they replace: returns how many, kept at
 * the front of flagged[].  Where replaced runs are so rare that a window
 * holding a majority of them is not expected by chance (below alpha), the
 * filter's values are those of the runs: one far run now and then, or a
 * burst of a noisy neighbour.  Where they are not rare, they are a mode of
 * the benchmark (code layout, ASLR: a run in five 10% slower), and the
 * filter turned their chance clusters into flat levels, judged against
 * the noise of the main mode alone: a flat series of 150 runs, a fifth
 * slow, had a step at p = 3e-110 where the runs differ at p = 0.0003, and
 * 10 of 15 with half slow had false steps.  Then the tests judge the runs
 * themselves, but for a far run with no other within 2 * half runs either
 * side: that one is a spike, a mode's runs come closer together.  Replacing
 * the lone ones in a window's reach (half) left the clusters, and one flat
 * series in a hundred still had a false step.
 */
static size_t test_values(const double *x, const double *clean, size_t n, size_t half, double alpha,
                          size_t *flagged, size_t nflagged, double *y)
{
	size_t k, kept = 0, reach = 2 * half;

	if (majority_windows(n, half, nflagged) < alpha) {
		memcpy(y, clean, n * sizeof(double));
		return nflagged;
	}
	memcpy(y, x, n * sizeof(double));
	for (k = 0; k < nflagged; k++) {
		size_t at = flagged[k];

		if (k > 0 && flagged[k - 1] + reach >= at)
			continue;
		if (k + 1 < nflagged && at + reach >= flagged[k + 1])
			continue;
		y[at] = clean[at];
		flagged[kept++] = at;
	}
	return kept;
}

/* Prefix sums of the (centred) values and their squares. */
typedef struct {
	const double *s, *q; /* s[i] = sum of v[0..i), q likewise of squares */
	size_t m;            /* min_segment */
} sums;

typedef struct {
	size_t at;   /* first index of the right part; 0: no split possible */
	double t;    /* pooled t of right mean - left mean */
	double p;    /* two-sided, times the positions tried, capped at 1 */
	double l, r; /* the two means (centred) */
} split;

/*
 * The best split of [a, b) by |t| among positions [from, to] (clipped to
 * min_segment from either end); its p is left for split_p.
 */
static split best_split_scan(const sums *ps, size_t a, size_t b, size_t from, size_t to)
{
	split best = { 0, 0.0, 1.0, 0.0, 0.0 };
	double bestabs = -1.0;
	size_t k;

	if (b - a < 2 * ps->m)
		return best;
	if (from < a + ps->m)
		from = a + ps->m;
	if (to > b - ps->m)
		to = b - ps->m;
	for (k = from; k <= to; k++) {
		double n1 = (double)(k - a), n2 = (double)(b - k);
		double s1 = ps->s[k] - ps->s[a], s2 = ps->s[b] - ps->s[k];
		double q1 = ps->q[k] - ps->q[a], q2 = ps->q[b] - ps->q[k];
		double m1 = s1 / n1, m2 = s2 / n2;
		double sse = (q1 - s1 * m1) + (q2 - s2 * m2), t, at;

		if (sse < 0.0) /* rounding of a constant segment */
			sse = 0.0;
		if (sse > 0.0)
			t = (m2 - m1) / sqrt(sse / (n1 + n2 - 2.0) * (1.0 / n1 + 1.0 / n2));
		else
			t = m2 > m1 ? INFINITY : m2 < m1 ? -INFINITY : 0.0;
		at = fabs(t);
		if (at > bestabs) {
			bestabs = at;
			best.at = k;
			best.t = t;
			best.l = m1;
			best.r = m2;
		}
	}
	return best;
}

/* The two-sided p of a split of [a, b), adjusted for every position of [a, b). */
static void split_p(const sums *ps, size_t a, size_t b, split *sp)
{
	sp->p = 1.0;
	if (b - a < 2 * ps->m)
		return;
	if (isinf(sp->t))
		sp->p = 0.0;
	else if (fabs(sp->t) > 0.0)
		sp->p = 2.0 * bg_stats_t_upper(fabs(sp->t), (double)(b - a) - 2.0) *
		        (double)(b - a - 2 * ps->m + 1);
	if (!(sp->p < 1.0))
		sp->p = 1.0;
}

static split best_split_in(const sums *ps, size_t a, size_t b, size_t from, size_t to)
{
	split best = best_split_scan(ps, a, b, from, to);

	split_p(ps, a, b, &best);
	return best;
}

static split best_split(const sums *ps, size_t a, size_t b)
{
	return best_split_in(ps, a, b, 0, b);
}

/* The test of a step at `at` of [a, b), its p adjusted for every position
 * of [a, b); at 0 (no place found) fails. */
static split test_at(const sums *ts, size_t a, size_t b, size_t at)
{
	split none = { 0, 0.0, 1.0, 0.0, 0.0 };

	return at ? best_split_in(ts, a, b, at, at) : none;
}

/* One interval of the seeded set and its best split; intervals of one
 * length share a class (seedset.first), and with it the df and positions
 * of their test. */
typedef struct {
	size_t a, b;
	split sp;
	int have_p;
} seeded;

/* Classes halve the length from n down to 2 * min_segment: far fewer
 * than the bits of a size_t. */
#define BG_CP_CLASSES (8 * sizeof(size_t))

/*
 * The seeded set: each class's intervals in order of their start, and a
 * tree over all of them that gives the one of largest |t| in a run of
 * them.  Step 2 asks, for every segment it searches, each class's best
 * interval inside the segment; scanning every interval each time made
 * a history of 64,000 runs with 10,000 steps take seconds.
 */
typedef struct {
	seeded *iv;
	size_t niv, ncls;
	size_t first[BG_CP_CLASSES + 1]; /* class c: iv[first[c] .. first[c + 1]) */
	size_t *tree, leaves;            /* tree[leaves + k] is interval k */
	double tests;                    /* split positions in the whole set */
} seedset;

/* An interval's p, adjusted for `tests` positions (its own p, for its
 * positions alone, computed when first asked: a t tail costs more than
 * the scan). */
static double seeded_p(const sums *ps, seeded *iv, double tests)
{
	double npos = (double)(iv->b - iv->a - 2 * ps->m + 1);

	if (!iv->have_p) {
		split_p(ps, iv->a, iv->b, &iv->sp);
		iv->have_p = 1;
	}
	return iv->sp.p < 1.0 ? fmin(1.0, iv->sp.p / npos * tests) : 1.0;
}

/* Which of two intervals (SIZE_MAX: none) has the larger |t|; the first
 * of equal ones, as one pass in order would take. */
static size_t larger_t(const seeded *iv, size_t i, size_t j)
{
	double ti, tj;

	if (i == SIZE_MAX || j == SIZE_MAX)
		return i == SIZE_MAX ? j : i;
	ti = iv[i].sp.at ? fabs(iv[i].sp.t) : -1.0;
	tj = iv[j].sp.at ? fabs(iv[j].sp.t) : -1.0;
	if (ti > tj || tj > ti)
		return ti > tj ? i : j;
	return i < j ? i : j;
}

static int seed_tree(seedset *ss)
{
	size_t k;

	for (ss->leaves = 1; ss->leaves < ss->niv; ss->leaves *= 2)
		;
	if (!(ss->tree = malloc(2 * ss->leaves * sizeof(*ss->tree))))
		return BG_ENOMEM;
	for (k = 0; k < ss->leaves; k++)
		ss->tree[ss->leaves + k] = k < ss->niv ? k : SIZE_MAX;
	for (k = ss->leaves - 1; k > 0; k--)
		ss->tree[k] = larger_t(ss->iv, ss->tree[2 * k], ss->tree[2 * k + 1]);
	return 0;
}

/* The intervals of class c lying inside [a, b): iv[*from .. *to). */
static void class_range(const seedset *ss, size_t c, size_t a, size_t b, size_t *from, size_t *to)
{
	size_t lo = ss->first[c], hi = ss->first[c + 1];

	*from = *to = lo;
	/* Starts rise within a class and all its intervals are one length:
	 * those inside [a, b) are those starting in [a, b - length]. */
	if (lo == hi || b - a < ss->iv[lo].b - ss->iv[lo].a)
		return;
	for (*to = hi; *from < *to;) {
		size_t mid = *from + (*to - *from) / 2;

		if (ss->iv[mid].a < a)
			*from = mid + 1;
		else
			*to = mid;
	}
	for (*to = *from; *to < hi;) {
		size_t mid = *to + (hi - *to) / 2;

		if (ss->iv[mid].b <= b)
			*to = mid + 1;
		else
			hi = mid;
	}
}

/* The interval of class c lying inside [a, b) with the largest |t|, or NULL. */
static seeded *class_best(const seedset *ss, size_t c, size_t a, size_t b)
{
	size_t from, to, best = SIZE_MAX;

	class_range(ss, c, a, b, &from, &to);
	/* [from, to) bottom up: the tree's nodes covering it, in any order. */
	for (from += ss->leaves, to += ss->leaves; from < to; from /= 2, to /= 2) {
		if (from & 1)
			best = larger_t(ss->iv, best, ss->tree[from++]);
		if (to & 1)
			best = larger_t(ss->iv, best, ss->tree[--to]);
	}
	return best == SIZE_MAX ? NULL : &ss->iv[best];
}

/* The split positions the seeded intervals inside [a, b) and the segment
 * itself try: the family a search of [a, b) alone is corrected for. */
static double local_tests(const sums *ps, const seedset *ss, size_t a, size_t b)
{
	double tests = (double)(b - a - 2 * ps->m + 1);
	size_t c, from, to;

	for (c = 0; c < ss->ncls; c++) {
		class_range(ss, c, a, b, &from, &to);
		if (to > from)
			tests += (double)(to - from) *
			         (double)(ss->iv[from].b - ss->iv[from].a - 2 * ps->m + 1);
	}
	return tests;
}

/*
 * The seeded intervals (Kovacs et al., "Seeded binary segmentation", 2020):
 * at lengths n, n/2, n/4, ... and last exactly 2 * min_segment, each length laid
 * over the series with half-overlapping starts, or closer where that leaves
 * a split position out.  A short level between two
 * steps (a plateau of a few runs) is the best split of some short interval,
 * where a split of the whole series cannot see it.  Each interval's split
 * p is multiplied by the number of split positions in the whole set: the
 * familywise rate of a flat series stays below alpha.
 */
static int seed_intervals(const sums *ps, size_t n, seedset *ss)
{
	seeded *iv = NULL;
	size_t cap = 0, len = 0, k, tests = 0, cls = 0, last = 0;
	double l;

	memset(ss, 0, sizeof(*ss));
	for (l = (double)n;; l /= 2.0) {
		size_t w = (size_t)l, count;
		double shift;

		/* The shortest class is exactly 2 * min_segment long, wherever the
		 * halving falls: in 16 nightly runs a level of 5 between two
		 * others lies whole in no interval of 8 or 16 beside one other
		 * level, and the whole series' best split cannot see it. */
		if (w < 2 * ps->m) {
			if (last <= 2 * ps->m)
				break;
			l = (double)(w = 2 * ps->m);
		}
		last = w;
		ss->first[cls] = len;
		count = 2 * (size_t)ceil((double)n / l) - 1;
		/* Half-overlapping starts leave split positions no interval of a
		 * short class can try: one of 2 * min_segment tries only its
		 * middle, so in 20 runs (intervals at 0, 5, 10) a level from run
		 * 7 to 13 was no interval's split, and the whole series', where
		 * the level is one part of a side, was not significant.  Starts
		 * at most w - 2 * min_segment + 1 apart reach every position. */
		if (n > w) {
			size_t reach = w - 2 * ps->m + 1, need = (n - w + reach - 1) / reach + 1;

			if (need > count)
				count = need;
		}
		shift = count > 1 ? (double)(n - w) / (double)(count - 1) : 0.0;

		for (k = 0; k < count; k++) {
			size_t a = (size_t)floor((double)k * shift + 0.5);

			if (a + w > n)
				a = n - w;
			if (bg_grow((void **)&iv, &cap, len, sizeof(*iv)) < 0) {
				free(iv);
				return BG_ENOMEM;
			}
			iv[len].a = a;
			iv[len].b = a + w;
			iv[len].sp = best_split_scan(ps, a, a + w, 0, a + w);
			iv[len].have_p = 0;
			tests += w - 2 * ps->m + 1;
			len++;
		}
		cls++;
		if (w == 2 * ps->m || cls == BG_CP_CLASSES)
			break;
	}
	ss->iv = iv;
	ss->niv = len;
	ss->ncls = cls;
	ss->first[cls] = len;
	ss->tests = (double)tests;
	return seed_tree(ss);
}

/* Step 2: the most significant split among intervals inside [a, b) of the
 * filtered values (ps), then both sides again; appends the splits the test
 * values (ts) bear out to cps.  Every p is adjusted
 * for `tests` split positions: those of the whole seeded set, or of the
 * part that research searches again. */
static void segment(const sums *ps, const sums *ts, seedset *ss, double tests, size_t a, size_t b,
                    double alpha, size_t *cps, size_t *n)
{
	const split *best = NULL;
	double bestp = 1.0;
	split whole, raw;
	size_t c, at, ia = a, ib = b;

	if (b - a < 2 * ps->m)
		return;
	/* The segment itself is a candidate too: the classic binary split. */
	whole = best_split(ps, a, b);
	if (whole.p < 1.0)
		whole.p = fmin(1.0, whole.p / (double)(b - a - 2 * ps->m + 1) * tests);
	if (whole.at && whole.p < alpha) {
		best = &whole;
		bestp = whole.p;
	}
	/* Within a class the p falls as |t| grows, so only each class's
	 * largest |t| inside the segment can be the most significant split:
	 * only those get a p.  The first of equal |t| wins, as in one pass. */
	for (c = 0; c < ss->ncls; c++) {
		seeded *w = class_best(ss, c, a, b);
		double p;

		if (!w || !w->sp.at)
			continue;
		p = seeded_p(ps, w, tests);
		if (p < alpha &&
		    (!best || p < bestp || (!(p > bestp) && fabs(w->sp.t) > fabs(best->t)))) {
			best = &w->sp;
			bestp = p;
			ia = w->a;
			ib = w->b;
		}
	}
	if (!best)
		return;
	/* The filtered values found it; the runs must bear it out, with the
	 * same correction.  Where they do not, the segment is still split
	 * there: a second mode's plateau would otherwise hide a real step
	 * beside it, the search stopping at the plateau. */
	at = best->at;
	raw = test_at(ts, ia, ib, at);
	if (raw.p < 1.0 && raw.p / (double)(ib - ia - 2 * ts->m + 1) * tests < alpha)
		cps[(*n)++] = at;
	segment(ps, ts, ss, tests, a, at, alpha, cps, n);
	segment(ps, ts, ss, tests, at, b, alpha, cps, n);
}

static int cmp_size(const void *a, const void *b)
{
	size_t x = *(const size_t *)a, y = *(const size_t *)b;

	return (x > y) - (x < y);
}

/* Whether a level moved from `before` to `after` by min_change or more; a
 * level that leaves zero (0 allocs/op, then 2) moved by more than any:
 * its relative change is unbounded, not too small to count. */
static int moved(double before, double after, double min_change)
{
	if (!(fabs(before) > 0.0))
		return fabs(after) > 0.0;
	return fabs(after - before) / fabs(before) >= min_change;
}

/* Mean of v[a..b), summed from the values, not the centred prefix sums:
 * a level of zeros is 0, not the rounding of centre - centre (2e-16),
 * and so is NAN's cause in change.  Each term is divided first, so values
 * near 1e308 do not overflow. */
static double level_mean(const double *v, size_t a, size_t b)
{
	double m = 0.0;
	size_t k;

	for (k = a; k < b; k++)
		m += v[k] / (double)(b - a);
	return m;
}

/* Median of v[a..b), through the scratch buffer tmp. */
static double seg_median(const double *v, size_t a, size_t b, double *tmp)
{
	memcpy(tmp, v + a, (b - a) * sizeof(double));
	return median_of(tmp, b - a);
}

/*
 * Whether the step at sp->at between lo and hi falls short: not
 * significant, or smaller than min_change, by its means or by its medians
 * (of y, the values the tests judge: see test_values).
 * The medians keep one far run at the end of a short edge level (where the
 * filter has few neighbours to judge it by) from making a step of it.
 */
static int fails(const split *sp, const double *y, size_t lo, size_t hi, double centre,
                 const bg_changepoint_opts *o, double *tmp)
{
	double ml, mr;

	/* The means were centred: `centre` is added back to both. */
	if (!sp->at || !(sp->p < o->alpha) || !moved(sp->l + centre, sp->r + centre, o->min_change))
		return 1;
	ml = seg_median(y, lo, sp->at, tmp);
	mr = seg_median(y, sp->at, hi, tmp);
	return !moved(ml, mr, o->min_change);
}

/*
 * Whether the step at `at` in [lo, hi) stands where min_segment pushed it
 * rather than where the level moves: the best split near it, with as few
 * as two runs on a side, lies closer to an end than a step may.  A step
 * four commits before the newest was reported one commit early (the
 * nearest place with five after it), and its range then held no change;
 * it is not reported until enough runs follow it.  Only the neighbourhood
 * that step 3 moves a step in is searched: a larger step farther off, too
 * near an end itself, says nothing of this one.
 */
static int misplaced(const sums *ps, size_t lo, size_t hi, size_t at)
{
	sums two = *ps;
	split near;

	two.m = 2;
	near = best_split_scan(&two, lo, hi, at > ps->m ? at - ps->m : 0, at + ps->m);
	return near.at && (near.at < lo + ps->m || near.at + ps->m > hi);
}

/*
 * A level at either end shorter than min_segment: the newest commits'
 * level before enough runs follow it, or the oldest one's where a report's
 * period starts inside a level.  The filter's window is cut short at the
 * ends, so such a level survives it, and no split can end it (min_segment
 * runs each side): it was left in the level beside it, that level's step
 * then failed its test, and the step before it, whose level now held
 * both, failed next.  In a history stepping every 6 commits, 4 commits of
 * the next level dropped all 5,332 steps of 32,002 runs.  So such a level,
 * when it passes the two-run test (alpha over every split of its segment,
 * and min_change), bounds the level beside it before step 3: a boundary
 * that step 3 neither moves nor drops and the report does not show; it is
 * a step once min_segment runs follow it.  The level is found in the
 * filtered values (ps) and tested on the test values (ts, y).  Returns
 * the new count; flag[] marks the boundaries BG_CP_FIXED.
 */
static size_t end_boundaries(const sums *ps, const sums *ts, const double *y, size_t n,
                             double centre, const bg_changepoint_opts *o, double *tmp, size_t *cps,
                             size_t ncp, unsigned char *flag)
{
	sums two = *ps, ttwo = *ts;
	size_t m = ps->m, edge, from;
	split sp;

	two.m = ttwo.m = 2;
	memset(flag, 0, ncp);
	/* The newest end: 2 to m - 1 runs after the split, m or more before. */
	edge = ncp ? cps[ncp - 1] : 0;
	if (n >= edge + m + 2) {
		from = n - m + 1 > edge + m ? n - m + 1 : edge + m;
		sp = best_split_scan(&two, edge, n, from, n - 2);
		sp = test_at(&ttwo, edge, n, sp.at);
		if (!fails(&sp, y, edge, n, centre, o, tmp)) {
			cps[ncp] = sp.at;
			flag[ncp++] = BG_CP_FIXED;
		}
	}
	/* The oldest end, likewise. */
	edge = ncp ? cps[0] : n;
	if (edge >= m + 2) {
		sp = best_split_scan(&two, 0, edge, 2, m - 1 < edge - m ? m - 1 : edge - m);
		sp = test_at(&ttwo, 0, edge, sp.at);
		if (!fails(&sp, y, 0, edge, centre, o, tmp)) {
			memmove(cps + 1, cps, ncp * sizeof(*cps));
			memmove(flag + 1, flag, ncp);
			cps[0] = sp.at;
			flag[0] = BG_CP_FIXED;
			ncp++;
		}
	}
	return ncp;
}

/* Step i is tested again (a boundary never is). */
static void mark(unsigned char *flag, size_t ncp, size_t i)
{
	if (i < ncp && !(flag[i] & BG_CP_FIXED))
		flag[i] |= BG_CP_DIRTY;
}

/* Step i is dropped; the two steps beside it get a longer level. */
static void drop(size_t *cps, split *sp, unsigned char *flag, size_t *ncp, size_t i)
{
	size_t rest = *ncp - i - 1;

	memmove(cps + i, cps + i + 1, rest * sizeof(*cps));
	memmove(sp + i, sp + i + 1, rest * sizeof(*sp));
	memmove(flag + i, flag + i + 1, rest);
	(*ncp)--;
	if (i > 0)
		mark(flag, *ncp, i - 1);
	mark(flag, *ncp, i);
}

/*
 * After a step found in step 2 is dropped, its two levels, now one, are
 * searched again as step 2 searches, its p corrected for the split
 * positions inside them alone; what it finds is inserted at `i`, to be
 * tested as any step is.  Step 2's correction is for every position of
 * the series (about 800,000 in 32,000 runs), so it can miss a level of
 * 6 runs that a search of 24 finds at once; left inside a neighbour's
 * level, that level made the step beside it fail, and dropping that
 * step made the next one fail: a history stepping +30% and back every 6
 * runs lost every step.  What this search finds is marked BG_CP_LOCAL,
 * and dropping it searches nothing again, so step 3 still ends.
 * Returns the new count.
 */
static size_t research(const sums *ps, const sums *ts, seedset *ss, double alpha, size_t n,
                       size_t *cps, split *sp, unsigned char *flag, size_t ncp, size_t i,
                       size_t *found)
{
	size_t lo = i ? cps[i - 1] : 0, hi = i < ncp ? cps[i] : n, nfound = 0, k;

	if (hi - lo < 2 * ps->m)
		return ncp;
	segment(ps, ts, ss, local_tests(ps, ss, lo, hi), lo, hi, alpha, found, &nfound);
	if (!nfound)
		return ncp;
	qsort(found, nfound, sizeof(*found), cmp_size);
	memmove(cps + i + nfound, cps + i, (ncp - i) * sizeof(*cps));
	memmove(sp + i + nfound, sp + i, (ncp - i) * sizeof(*sp));
	memmove(flag + i + nfound, flag + i, ncp - i);
	for (k = 0; k < nfound; k++) {
		cps[i + k] = found[k];
		flag[i + k] = BG_CP_LOCAL | BG_CP_DIRTY;
	}
	ncp += nfound;
	if (i > 0)
		mark(flag, ncp, i - 1);
	mark(flag, ncp, i + nfound);
	return ncp;
}

/*
 * s[k], q[k]: the sums of the first k values of v less their mean, and of
 * their squares (s[0] = q[0] = 0), so that any interval's mean and
 * variance cost O(1); centred, so sums of squares of values like 1e9 ns
 * keep their digits.  The mean taken off.
 */
static double prefix_sums(const double *v, size_t n, double *s, double *q)
{
	double centre = 0.0;
	size_t i;

	for (i = 0; i < n; i++)
		centre += v[i] / (double)n;
	s[0] = q[0] = 0.0;
	for (i = 0; i < n; i++) {
		double d = v[i] - centre;

		s[i + 1] = s[i] + d;
		q[i + 1] = q[i] + d * d;
	}
	return centre;
}

int bg_changepoints_find(bg_ctx *ctx, const double *x, size_t n, const bg_changepoint_opts *opts,
                         bg_changepoints *out)
{
	bg_changepoint_opts o = { 5, 0.01, 0.0 };
	double *clean = NULL, *s = NULL, *q = NULL, *tmp = NULL;
	double *y = NULL, *ys = NULL, *yq = NULL, ycentre = 0.0;
	size_t *cps = NULL, ncp = 0, i, round;
	unsigned char *flag = NULL;
	size_t *found = NULL;
	split *sp = NULL;
	seedset ss = { 0 };
	sums ps, ts;
	int error = 0;

	BG_NEED_N(ctx, x, n);
	BG_NEED(ctx, out);

	memset(out, 0, sizeof(*out));
	if (opts) {
		o = *opts;
		if (!o.min_segment)
			o.min_segment = 5;
		if (!(o.alpha > 0.0))
			o.alpha = 0.01;
	}
	if (o.min_segment < 2 || !(o.alpha < 1.0) || !(o.min_change >= 0.0))
		return bg_error_set(ctx, BG_EINPUT,
		                    "change points: min_segment >= 2, 0 < alpha < 1 and "
		                    "min_change >= 0 are needed");
	for (i = 0; i < n; i++)
		if (!isfinite(x[i]))
			return bg_error_set(ctx, BG_EINPUT,
			                    "change points: value %zu is not finite", i);
	if (n == 0)
		return 0;
	clean = malloc(n * sizeof(double));
	s = malloc((n + 1) * sizeof(double));
	q = malloc((n + 1) * sizeof(double));
	cps = malloc((n + 1) * sizeof(size_t));
	sp = malloc((n + 1) * sizeof(split));
	tmp = malloc(n * sizeof(double));
	flag = calloc(n + 1, 1);
	found = malloc((n + 1) * sizeof(size_t));
	y = malloc(n * sizeof(double));
	ys = malloc((n + 1) * sizeof(double));
	yq = malloc((n + 1) * sizeof(double));
	if (!clean || !s || !q || !cps || !sp || !tmp || !flag || !found || !y || !ys || !yq ||
	    hampel(x, n, o.min_segment - 1, clean, &out->outliers, &out->noutliers) < 0) {
		error = bg_error_oom(ctx);
		goto cleanup;
	}
	out->noutliers = test_values(x, clean, n, o.min_segment - 1, o.alpha, out->outliers,
	                             out->noutliers, y);
	(void)prefix_sums(clean, n, s, q);
	ps.s = s;
	ps.q = q;
	ps.m = o.min_segment;
	ycentre = prefix_sums(y, n, ys, yq);
	ts.s = ys;
	ts.q = yq;
	ts.m = o.min_segment;
	if (seed_intervals(&ps, n, &ss) < 0) {
		error = bg_error_oom(ctx);
		goto cleanup;
	}
	segment(&ps, &ts, &ss, ss.tests, 0, n, o.alpha, cps, &ncp);
	qsort(cps, ncp, sizeof(size_t), cmp_size);

	/* A level at either end shorter than min_segment bounds its
	 * neighbour's level before step 3 judges it (see end_boundary). */
	ncp = end_boundaries(&ps, &ts, y, n, ycentre, &o, tmp, cps, ncp, flag);

	/* Step 3: each step between its neighbours, until all of them stand.
	 * A step is tested again only when its place or a neighbour changed:
	 * its test is a function of those three places alone, and retesting
	 * all of them after each drop made a long history quadratic. */
	for (i = 0; i < ncp; i++)
		mark(flag, ncp, i);
	for (round = 0; round < 4 * n + 8 && ncp; round++) {
		size_t worst = ncp, moved = 0;

		for (i = 0; i < ncp; i++) {
			size_t lo = i ? cps[i - 1] : 0, hi = i + 1 < ncp ? cps[i + 1] : n;

			if (flag[i] & BG_CP_DIRTY) {
				split place;

				flag[i] &= (unsigned char)~(BG_CP_DIRTY | BG_CP_FAILING);
				/* Near its place only: a step whose neighbour is still
				 * missing would otherwise jump to an unrelated split. */
				place = best_split_scan(
				        &ps, lo, hi,
				        cps[i] > o.min_segment ? cps[i] - o.min_segment : 0,
				        cps[i] + o.min_segment);
				/* Placed by the filtered values, tested on the runs. */
				sp[i] = test_at(&ts, lo, hi, place.at);
				if (place.at && place.at != cps[i] && round < 2 * n) {
					cps[i] = place.at;
					moved++;
					mark(flag, ncp, i ? i - 1 : 0);
					mark(flag, ncp, i);
					mark(flag, ncp, i + 1);
				}
				if (fails(&sp[i], y, lo, hi, ycentre, &o, tmp))
					flag[i] |= BG_CP_FAILING;
			}
			if ((flag[i] & BG_CP_FAILING) &&
			    (worst == ncp || fabs(sp[i].t) < fabs(sp[worst].t)))
				worst = i;
		}
		if (worst < ncp) {
			int again = !(flag[worst] & BG_CP_LOCAL);

			drop(cps, sp, flag, &ncp, worst);
			if (again)
				ncp = research(&ps, &ts, &ss, o.alpha, n, cps, sp, flag, ncp, worst,
				               found);
			continue;
		}
		if (!moved)
			break;
	}

	if (ncp && !(out->points = calloc(ncp, sizeof(*out->points)))) {
		error = bg_error_oom(ctx);
		goto cleanup;
	}
	for (i = 0; i < ncp; i++) {
		size_t lo = i ? cps[i - 1] : 0, hi = i + 1 < ncp ? cps[i + 1] : n;
		split one;
		bg_changepoint *c;

		if ((flag[i] & BG_CP_FIXED) || misplaced(&ps, lo, hi, cps[i]))
			continue;
		one = test_at(&ts, lo, hi, cps[i]);
		c = &out->points[out->npoints++];
		/* The statistics at the step's own place (stable after step 3). */
		c->index = cps[i];
		c->before = level_mean(y, lo, cps[i]);
		c->after = level_mean(y, cps[i], hi);
		c->change = fabs(c->before) > 0.0 ? (c->after - c->before) / fabs(c->before) : NAN;
		c->t = one.t;
		c->p = one.p;
	}

cleanup:
	free(clean);
	free(s);
	free(q);
	free(cps);
	free(sp);
	free(ss.iv);
	free(ss.tree);
	free(tmp);
	free(flag);
	free(found);
	free(y);
	free(ys);
	free(yq);
	if (error < 0)
		bg_changepoints_clear(out);
	return error;
}

void bg_changepoints_clear(bg_changepoints *cp)
{
	if (!cp)
		return;
	free(cp->points);
	free(cp->outliers);
	memset(cp, 0, sizeof(*cp));
}
