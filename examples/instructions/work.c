/*
 * work.c -- the instruction-count example suite's program: three small
 * workloads, each timed by benchguard_harness.h (format "lines") and, under
 * the `simulate` instrument, counted by Valgrind inside the harness's
 * region of interest: the timed calls, not the start-up or the setup.
 *
 *     work sort  N [SCALE]   sorts N pseudo-random integers (its own quicksort)
 *     work hash  N [SCALE]   FNV-1a over N bytes
 *     work parse N [SCALE]   parses N comma-separated decimal numbers
 *
 * SCALE (default 1) multiplies N inside the timed calls only: 1.005 is a
 * commit that does half a percent more work, the kind of change a clock
 * cannot see on a shared CI machine and an instruction count does.  The
 * code is its own (no qsort, no strtol) so that a C library upgrade does
 * not move the counts; the input is the same at every run.
 */
#include "benchguard_harness.h"

#include <stdint.h>

typedef struct {
	size_t n;           /* the work of one call */
	uint32_t *input;    /* sort: the unsorted numbers */
	uint32_t *scratch;  /* sort: what one call sorts */
	unsigned char *buf; /* hash: the bytes; parse: the text */
	size_t len;         /* parse: bytes of text for n numbers */
	uint64_t sink;      /* results, so that no call is optimised away */
} job;

/* xorshift32: the same numbers every run, so runs are comparable. */
static uint32_t next(uint32_t *state)
{
	uint32_t x = *state;

	x ^= x << 13;
	x ^= x >> 17;
	x ^= x << 5;
	return *state = x;
}

static void quicksort(uint32_t *v, size_t n)
{
	while (n > 16) {
		uint32_t pivot = v[n / 2], t;
		size_t i = 0, j = n - 1;

		for (;;) {
			while (v[i] < pivot)
				i++;
			while (v[j] > pivot)
				j--;
			if (i >= j)
				break;
			t = v[i];
			v[i++] = v[j];
			v[j--] = t;
		}
		/* Recurse into the smaller side: the stack stays O(log n). */
		if (j + 1 < n - j - 1) {
			quicksort(v, j + 1);
			v += j + 1;
			n -= j + 1;
		} else {
			quicksort(v + j + 1, n - j - 1);
			n = j + 1;
		}
	}
	for (size_t i = 1; i < n; i++) {
		uint32_t x = v[i];
		size_t k = i;

		for (; k > 0 && v[k - 1] > x; k--)
			v[k] = v[k - 1];
		v[k] = x;
	}
}

static void do_sort(void *arg)
{
	job *j = arg;

	memcpy(j->scratch, j->input, j->n * sizeof(*j->input));
	quicksort(j->scratch, j->n);
	j->sink += j->scratch[j->n / 2];
}

static void do_hash(void *arg)
{
	job *j = arg;
	uint64_t h = 1469598103934665603ULL;

	for (size_t i = 0; i < j->n; i++)
		h = (h ^ j->buf[i]) * 1099511628211ULL;
	j->sink += h;
}

static void do_parse(void *arg)
{
	job *j = arg;
	const unsigned char *p = j->buf, *end = j->buf + j->len;
	uint64_t sum = 0, v = 0;

	for (; p < end; p++) {
		if (*p >= '0' && *p <= '9') {
			v = v * 10 + (uint64_t)(*p - '0');
		} else {
			sum += v;
			v = 0;
		}
	}
	j->sink += sum + v;
}

/* "123456," at p (no printf: the setup stays cheap under Valgrind). */
static size_t put_number(unsigned char *p, uint32_t v)
{
	unsigned char digits[10];
	size_t n = 0, k;

	do {
		digits[n++] = (unsigned char)('0' + v % 10);
		v /= 10;
	} while (v);
	for (k = 0; k < n; k++)
		p[k] = digits[n - 1 - k];
	p[n] = ',';
	return n + 1;
}

int main(int argc, char **argv)
{
	const char *what = argc > 1 ? argv[1] : "";
	long n = argc > 2 ? strtol(argv[2], NULL, 10) : 0;
	double scale = argc > 3 ? strtod(argv[3], NULL) : 1.0;
	uint32_t state = 2463534242u;
	void (*fn)(void *) = NULL;
	job j;
	bgh_opts o;
	size_t i, cap;
	int rc;

	memset(&j, 0, sizeof(j));
	if (n <= 0 || n > 100000000L || !(scale > 0 && scale < 100)) {
		fprintf(stderr, "usage: work sort|hash|parse N [SCALE]\n");
		return 2;
	}
	j.n = (size_t)((double)n * scale + 0.5);
	cap = j.n > (size_t)n ? j.n : (size_t)n;
	if (!strcmp(what, "sort")) {
		j.input = malloc(cap * sizeof(*j.input));
		j.scratch = malloc(cap * sizeof(*j.scratch));
		if (!j.input || !j.scratch)
			goto oom;
		for (i = 0; i < cap; i++)
			j.input[i] = next(&state);
		fn = do_sort;
	} else if (!strcmp(what, "hash")) {
		if (!(j.buf = malloc(cap)))
			goto oom;
		for (i = 0; i < cap; i++)
			j.buf[i] = (unsigned char)(i % 4 ? j.buf[i - 1] >> 1 : next(&state));
		fn = do_hash;
	} else if (!strcmp(what, "parse")) {
		/* At most 10 digits and a comma a number. */
		if (!(j.buf = malloc(cap * 11 + 1)))
			goto oom;
		for (i = 0; i < j.n; i++)
			j.len += put_number(j.buf + j.len, next(&state) % 1000000u);
		fn = do_parse;
	} else {
		fprintf(stderr, "usage: work sort|hash|parse N [SCALE]\n");
		return 2;
	}
	o = bgh_opts_default(what);
	rc = bgh_run(&o, fn, &j);
	if (j.sink == 0x5eed) /* never: keeps the sink alive */
		puts("");
	free(j.input);
	free(j.scratch);
	free(j.buf);
	return rc ? 1 : 0;
oom:
	fprintf(stderr, "work: out of memory\n");
	return 1;
}
