/*
 * cpscale.c -- how the change-point search grows with a series' history,
 * for `make bench`: bg_changepoints_find over N runs and over 8 N runs of
 * the same kind of history (a level +30% and back every 6 runs, 0.5%
 * noise: a step in every sixth run, the most work the search can get), so
 * the peer is the same search at an eighth of the size, measured in the
 * same run.  Linear growth is 8x, n log n about 9.5x; retesting every
 * step after each change made it 60x and more.
 *
 * Usage: cpscale N REPS.  Prints "runs steps want seconds" for N and 8 N
 * (the median of REPS searches each); status 1 if a search fails.
 */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include <benchguard.h>

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

/* splitmix64 and Box-Muller: the same history on every machine. */
static double gauss(uint64_t *s)
{
	double u[2];
	int k;

	for (k = 0; k < 2; k++) {
		uint64_t z = (*s += 0x9E3779B97F4A7C15ull);

		z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
		z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
		z ^= z >> 31;
		u[k] = ((double)(z >> 11) + 0.5) / 9007199254740992.0;
	}
	return sqrt(-2.0 * log(u[0])) * cos(6.283185307179586 * u[1]);
}

static int measure(bg_ctx *ctx, size_t n, int reps)
{
	bg_changepoint_opts o = { 5, 0.01, 0.02 };
	double *x = malloc(n * sizeof(*x)), *t = malloc((size_t)reps * sizeof(*t));
	uint64_t seed = 42;
	bg_changepoints cp = { 0 };
	size_t i, want = 0, steps = 0;
	int r;

	if (!x || !t)
		return -1;
	for (i = 0; i < n; i++) {
		x[i] = (i / 6 % 2 ? 1.3 : 1.0) * (1.0 + 0.005 * gauss(&seed));
		want += i >= 5 && i + 5 <= n && i % 6 == 0;
	}
	for (r = 0; r < reps; r++) {
		double a = now();

		if (bg_changepoints_find(ctx, x, n, &o, &cp) < 0) {
			fprintf(stderr, "cpscale: %s\n", bg_ctx_error(ctx));
			return -1;
		}
		t[r] = now() - a;
		steps = cp.npoints;
		bg_changepoints_clear(&cp);
	}
	qsort(t, (size_t)reps, sizeof(*t), cmp_double);
	printf("%zu %zu %zu %.6f\n", n, steps, want, t[reps / 2]);
	free(x);
	free(t);
	return 0;
}

int main(int argc, char **argv)
{
	bg_ctx *ctx = NULL;
	size_t n;
	int reps, rc = 0;

	if (argc != 3 || (n = strtoul(argv[1], NULL, 10)) < 12 || (reps = atoi(argv[2])) < 1) {
		fprintf(stderr, "usage: cpscale N REPS\n");
		return 2;
	}
	if (bg_ctx_new(&ctx) < 0)
		return 1;
	if (measure(ctx, n, reps) < 0 || measure(ctx, 8 * n, reps) < 0)
		rc = 1;
	bg_ctx_free(ctx);
	return rc;
}
