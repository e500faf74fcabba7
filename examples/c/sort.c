/*
 * sort.c -- a CPU-bound example benchmark: sorts N pseudo-random integers
 * with qsort.  benchguard times the whole process (format "time"), so the
 * program only does the work and checks its result.
 *
 * usage: sort N [SLOWDOWN]   (SLOWDOWN: extra passes, to make it slower on purpose)
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

static int cmp(const void *a, const void *b)
{
	uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
	return (x > y) - (x < y);
}

int main(int argc, char **argv)
{
	long n = argc > 1 ? strtol(argv[1], NULL, 10) : 1000000;
	long extra = argc > 2 ? strtol(argv[2], NULL, 10) : 0;
	uint32_t *v, state = 2463534242u;
	long i, pass;

	if (n <= 0 || extra < 0) {
		fprintf(stderr, "usage: sort N [SLOWDOWN]\n");
		return 2;
	}
	v = malloc((size_t)n * sizeof(*v));
	if (!v) {
		perror("sort");
		return 1;
	}
	for (pass = 0; pass <= extra; pass++) {
		for (i = 0; i < n; i++) {
			/* xorshift32: the same input every run, so runs are comparable */
			state ^= state << 13;
			state ^= state >> 17;
			state ^= state << 5;
			v[i] = state;
		}
		qsort(v, (size_t)n, sizeof(*v), cmp);
	}
	for (i = 1; i < n; i++) {
		if (v[i - 1] > v[i]) {
			fprintf(stderr, "sort: result is not sorted at %ld\n", i);
			return 1;
		}
	}
	free(v);
	return 0;
}
