/*
 * benchguard_harness.h -- a header-only harness for your own C and CUDA
 * benchmark programs, run by benchguard with "format": "lines".
 *
 * It runs warm-up calls, then timed samples, and prints each sample as
 * benchguard's `lines` protocol, one line per series:
 *
 *     BENCHGUARD <label>/time <seconds> s
 *     BENCHGUARD <label>/bandwidth <GB/s> GB/s        (when bytes per call is set)
 *     BENCHGUARD <label>/throughput <GFLOP/s> GFLOP/s (when FLOPs per call is set)
 *
 * so that a benchmark named "saxpy" in benchguard.json stores the series
 * saxpy:saxpy/time (lower is better) and saxpy:saxpy/bandwidth (higher is
 * better: benchguard takes every unit ending in "/s" as a rate).  GB and
 * GFLOP are 10^9.
 *
 * How many: BENCHGUARD_WARMUP (samples run first and not printed) and
 * BENCHGUARD_SAMPLES, which `benchguard run` sets from the config
 * ("warmup", "samples"), else 1 and 10.  Under the `simulate` instrument
 * benchguard asks for one sample and at most one warm-up.  A value that is
 * not a count (BENCHGUARD_SAMPLES: of 1 or more) is named on stderr, and
 * the default is used.
 * BENCHGUARD_FLUSH_L2=1 turns on the L2 flush of CUDA timings.
 *
 * Counted, not timed: under the `simulate` (Valgrind) and `counters`
 * (perf) instruments, bgh_run makes the calls of its timed samples the
 * region of interest (benchguard_region.h, which this header includes):
 * the counts are those of the samples' o->iters calls each, not of the
 * program's start-up, its setup before bgh_run, the warm-up or the
 * printing.  The clock is read outside the region: its readings are not
 * counted, and marking the region costs nothing when neither instrument
 * is on (under `counters`, two ioctls per sample inside the timed span).
 *
 * C (any C99/C11 compiler; include this header before any system header so
 * that CLOCK_MONOTONIC is declared) or C++ (C++11 and later, clean under
 * -Wold-style-cast):
 *
 *     static void work(void *arg) { ... one call of the code under test ... }
 *     bgh_opts o = bgh_opts_default("sort");
 *     o.iters = 100;         // calls per sample: each sample is their mean
 *     o.bytes = 8.0 * n;     // optional: bytes moved per call
 *     return bgh_run(&o, work, arg) ? 1 : 0;
 *
 * CUDA (compile with nvcc, or define BGH_CUDA after including
 * cuda_runtime.h): the kernel launches of one sample are timed with CUDA
 * events recorded on the launch stream around them, so that the time is
 * the GPU's, not the host's launch and synchronisation overhead.  With
 * o.flush_l2 set, a buffer twice the size of the L2 cache is written
 * before each sample (outside the timed region) so that every sample
 * starts with a cold L2: the numbers of data that comes from HBM.
 *
 *     static void launch(void *arg, cudaStream_t s) { kernel<<<g, b, 0, s>>>(...); }
 *     bgh_opts o = bgh_opts_default("saxpy");
 *     o.bytes = 12.0 * n;  o.flops = 2.0 * n;
 *     return bgh_cuda_run(&o, launch, arg, 0) ? 1 : 0;
 *
 * bgh_run and bgh_cuda_run return 0, or -1 after printing why on stderr
 * (a label that is not one word, fewer than one sample, a negative warm-up,
 * a CUDA error).
 * bgh_report prints one sample's lines for a time measured some other way;
 * it does not check the label: call bgh_label_check once first.
 */
#ifndef BENCHGUARD_HARNESS_H
#define BENCHGUARD_HARNESS_H

#if !defined(__cplusplus) && !defined(_POSIX_C_SOURCE) && !defined(_GNU_SOURCE)
#define _POSIX_C_SOURCE 200809L /* clock_gettime(CLOCK_MONOTONIC) */
#endif

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

/* The region of interest (benchguard_region.h, installed beside this
 * header).  A copy of this header without it still builds: the region is
 * then not marked, and `simulate`/`counters` count the whole command. */
#if defined(__has_include)
#if __has_include("benchguard_region.h")
#include "benchguard_region.h"
#define BGH_HAVE_REGION 1
#endif
#endif
#if !defined(BGH_HAVE_REGION)
#define bg_region_begin() ((void)0)
#define bg_region_end() ((void)0)
#endif

/* A conversion said out loud: static_cast in C++, whose projects often
 * build with -Wold-style-cast, and a plain cast in C. */
#if defined(__cplusplus)
#define BGH_CAST(type, x) (static_cast<type>(x))
#else
#define BGH_CAST(type, x) ((type)(x))
#endif

#if defined(__CUDACC__) && !defined(BGH_CUDA)
#define BGH_CUDA 1
#endif
#if defined(BGH_CUDA)
#include <cuda_runtime.h>
#endif

typedef struct {
	const char *label; /* series prefix: "<label>/time" ... */
	int warmup;        /* samples run before, not printed: caches, clocks, JIT */
	int samples;       /* samples printed */
	int iters;         /* calls per sample; a sample is their mean (>= 1) */
	double bytes;      /* bytes moved per call; > 0 adds <label>/bandwidth */
	double flops;      /* floating-point operations per call; > 0 adds <label>/throughput */
	int flush_l2;      /* CUDA: write over the L2 before each sample */
} bgh_opts;

/* An integer from `min` on from the environment, else dflt, after saying
 * on stderr why a value set there is not used. */
static inline int bgh_env_count(const char *name, int min, int dflt)
{
	const char *v = getenv(name);
	char *end;
	long n;

	if (!v || !*v)
		return dflt;
	n = strtol(v, &end, 10);
	if (*end || n < min || n > 1000000000L) {
		if (min > 0)
			fprintf(stderr,
			        "benchguard harness: %s=\"%s\" is not a count of %d or more; using "
			        "%d\n",
			        name, v, min, dflt);
		else
			fprintf(stderr, "benchguard harness: %s=\"%s\" is not a count; using %d\n",
			        name, v, dflt);
		return dflt;
	}
	return BGH_CAST(int, n);
}

/* A non-negative integer from the environment, else dflt. */
static inline int bgh_env_int(const char *name, int dflt)
{
	return bgh_env_count(name, 0, dflt);
}

/* Options with the counts benchguard asked for (or 1 warm-up, 10 samples). */
static inline bgh_opts bgh_opts_default(const char *label)
{
	bgh_opts o;

	memset(&o, 0, sizeof(o));
	o.label = label;
	o.warmup = bgh_env_int("BENCHGUARD_WARMUP", 1);
	/* 0 samples would print nothing, and benchguard would find no series
	 * with no word of why: refused, like any other value that is no count. */
	o.samples = bgh_env_count("BENCHGUARD_SAMPLES", 1, 10);
	o.iters = 1;
	o.flush_l2 = bgh_env_int("BENCHGUARD_FLUSH_L2", 0) != 0;
	return o;
}

/* Prints the lines of one sample: `seconds` per call. */
static inline void bgh_report(const bgh_opts *o, double seconds)
{
	/* %.9g keeps nanoseconds of a second-long call and needs no locale. */
	printf("BENCHGUARD %s/time %.9g s\n", o->label, seconds);
	if (o->bytes > 0 && seconds > 0)
		printf("BENCHGUARD %s/bandwidth %.6g GB/s\n", o->label, o->bytes / seconds * 1e-9);
	if (o->flops > 0 && seconds > 0)
		printf("BENCHGUARD %s/throughput %.6g GFLOP/s\n", o->label,
		       o->flops / seconds * 1e-9);
}

/*
 * The longest label: "<label>/throughput", the longest series this header
 * prints, must fit the 1,024 bytes benchguard takes for a series name.
 */
#define BGH_LABEL_MAX (1024 - sizeof("/throughput") + 1)

/*
 * One UTF-8 character of s (n bytes left) into *cp: its length, or 0 when
 * it is malformed (cut short, overlong, a UTF-16 surrogate, past
 * U+10FFFF).  The rules of benchguard's own reader, repeated here because
 * this header runs in programs that do not link the library.
 */
static inline size_t bgh__utf8(const char *s, size_t n, unsigned long *cp)
{
	unsigned long b = BGH_CAST(unsigned char, s[0]), c, min;
	size_t len, i;

	if (b < 0x80) {
		*cp = b;
		return 1;
	}
	if ((b & 0xE0) == 0xC0) {
		len = 2, c = b & 0x1Fu, min = 0x80;
	} else if ((b & 0xF0) == 0xE0) {
		len = 3, c = b & 0x0Fu, min = 0x800;
	} else if ((b & 0xF8) == 0xF0) {
		len = 4, c = b & 0x07u, min = 0x10000;
	} else {
		return 0;
	}
	if (len > n)
		return 0;
	for (i = 1; i < len; i++) {
		b = BGH_CAST(unsigned char, s[i]);
		if ((b & 0xC0) != 0x80)
			return 0;
		c = (c << 6) | (b & 0x3Fu);
	}
	if (c < min || c > 0x10FFFF || (c >= 0xD800 && c <= 0xDFFF))
		return 0;
	*cp = c;
	return len;
}

/*
 * What benchguard refuses in a name, as its reader does: blanks (it splits
 * a line at them), C0, DEL and C1 controls, the line and paragraph
 * separators, the bidirectional marks, embeddings, overrides and isolates
 * (which make a name read as another), U+FFFD (a character some decoder
 * lost), and ':' (a series is addressed as "benchmark:metric").
 */
static inline int bgh__refused(unsigned long c)
{
	return c <= 0x20 || c == ':' || (c >= 0x7F && c <= 0x9F) || c == 0x2028 || c == 0x2029 ||
	       (c >= 0x202A && c <= 0x202E) || (c >= 0x2066 && c <= 0x2069) || c == 0x200E ||
	       c == 0x200F || c == 0x061C || c == 0xFFFD;
}

/*
 * The characters that show nothing, which benchguard refuses in a name too
 * (lib/text.c, is_invisible: Unicode's Default_Ignorable_Code_Point, the
 * interlinear annotation marks, the noncharacters): "pa<U+200B>rse" would
 * print as "parse", a second series that reads as the first.
 */
static inline int bgh__invisible(unsigned long c)
{
	return c == 0xAD || c == 0x34F || c == 0x61C || c == 0x115F || c == 0x1160 ||
	       (c >= 0x17B4 && c <= 0x17B5) || (c >= 0x180B && c <= 0x180F) ||
	       (c >= 0x200B && c <= 0x200F) || (c >= 0x202A && c <= 0x202E) ||
	       (c >= 0x2060 && c <= 0x206F) || c == 0x3164 || (c >= 0xFE00 && c <= 0xFE0F) ||
	       c == 0xFEFF || c == 0xFFA0 || (c >= 0xFFF0 && c <= 0xFFFB) ||
	       (c >= 0x1BCA0 && c <= 0x1BCA3) || (c >= 0x1D173 && c <= 0x1D17A) ||
	       (c >= 0xE0000 && c <= 0xE0FFF) || (c >= 0xFDD0 && c <= 0xFDEF) ||
	       (c & 0xFFFEu) == 0xFFFEu;
}

/*
 * 0 for a label that comes back from the printed lines as one series name
 * benchguard stores, else -1 after saying why: a label benchguard would
 * refuse fails every run of the benchmark, so it is refused here first.
 */
static inline int bgh_label_check(const char *label)
{
	const char *why = NULL;
	size_t n = label ? strlen(label) : 0, i = 0, len;
	unsigned long c;

	if (!n)
		why = "the label is empty";
	else if (n > BGH_LABEL_MAX)
		why = "the label is longer than 1013 bytes (\"<label>/throughput\" must fit "
		      "benchguard's 1024)";
	while (!why && i < n) {
		if (!(len = bgh__utf8(label + i, n - i, &c)))
			why = "the label is not valid UTF-8";
		else if (bgh__refused(c))
			why = c == 0xFFFD
			              ? "the label holds U+FFFD, a character lost before it got "
			                "here"
			              : "the label must be one word without ':' or control "
			                "characters";
		else if (bgh__invisible(c))
			why = "the label holds a character that shows nothing (such as "
			      "U+200B), which would make it read as another";
		else
			i += len;
	}
	if (!why)
		return 0;
	fprintf(stderr, "benchguard harness: %s\n", why);
	return -1;
}

/*
 * 0 for options bgh_run can measure with, else -1 after saying why: a
 * label as bgh_label_check wants it, at least one sample (a program that
 * set o.samples to 0 would print nothing, and benchguard would find no
 * series with no word of why) and no negative warm-up.
 */
static inline int bgh_opts_check(const bgh_opts *o)
{
	if (bgh_label_check(o->label))
		return -1;
	if (o->samples < 1 || o->warmup < 0) {
		fprintf(stderr,
		        "benchguard harness: %s: %d samples after %d warm-up; a run needs at least "
		        "one sample and no negative warm-up\n",
		        o->label, o->samples, o->warmup);
		return -1;
	}
	return 0;
}

/*
 * The clock: CLOCK_MONOTONIC where POSIX declares it, else C11's wall clock
 * (a C program that included a system header before this one), which NTP
 * may step.
 */
static inline void bgh_clock(struct timespec *ts)
{
#if defined(CLOCK_MONOTONIC)
	clock_gettime(CLOCK_MONOTONIC, ts);
#else
	timespec_get(ts, TIME_UTC);
#endif
}

/* Seconds from t0 to t1, the whole seconds subtracted first: the wall
 * clock's 1.8e9 s as one double is a multiple of 238 ns. */
static inline double bgh_seconds(const struct timespec *t0, const struct timespec *t1)
{
	return BGH_CAST(double, t1->tv_sec - t0->tv_sec) +
	       BGH_CAST(double, t1->tv_nsec - t0->tv_nsec) * 1e-9;
}

/* A reading of the clock in seconds, for a program's own use; bgh_run
 * subtracts two readings with bgh_seconds, which keeps the nanoseconds. */
static inline double bgh_now(void)
{
	struct timespec ts;

	bgh_clock(&ts);
	return BGH_CAST(double, ts.tv_sec) + BGH_CAST(double, ts.tv_nsec) * 1e-9;
}

/* Host-timed samples of fn(arg): warm-up, then o->samples samples of o->iters calls. */
static inline int bgh_run(const bgh_opts *o, void (*fn)(void *), void *arg)
{
	int i, k, iters = o->iters > 0 ? o->iters : 1;
	struct timespec t0, t1;

	if (bgh_opts_check(o))
		return -1;
	/* Two loops, not one of warmup * iters calls: the product of two
	 * counts that each fit an int need not. */
	for (i = 0; i < o->warmup; i++)
		for (k = 0; k < iters; k++)
			fn(arg);
	for (i = 0; i < o->samples; i++) {
		bgh_clock(&t0);
		/* Inside the clock readings: only the calls are counted. */
		bg_region_begin();
		for (k = 0; k < iters; k++)
			fn(arg);
		bg_region_end();
		bgh_clock(&t1);
		bgh_report(o, bgh_seconds(&t0, &t1) / iters);
	}
	return fflush(stdout) == 0 ? 0 : -1;
}

#if defined(BGH_CUDA)

/* Prints "<what>: <CUDA error>" and returns -1 unless err is cudaSuccess. */
static inline int bgh_cuda_ok(cudaError_t err, const char *what)
{
	if (err == cudaSuccess)
		return 0;
	fprintf(stderr, "benchguard harness: %s: %s\n", what, cudaGetErrorString(err));
	return -1;
}

/* For the examples' own calls: exits with status 1 on a CUDA error. */
#define BGH_CUDA_CHECK(call)                                                                       \
	do {                                                                                       \
		if (bgh_cuda_ok((call), #call))                                                    \
			exit(1);                                                                   \
	} while (0)

/*
 * GPU-timed samples of launch(arg, stream): each sample is o->iters
 * launches between two events on `stream`, their elapsed time divided by
 * o->iters.  A launch error or a failing kernel ends the run with -1.
 */
static inline int bgh_cuda_run(const bgh_opts *o, void (*launch)(void *, cudaStream_t), void *arg,
                               cudaStream_t stream)
{
	cudaEvent_t start = NULL, stop = NULL;
	void *flush = NULL;
	size_t flush_bytes = 0;
	int i, k, rc = -1, dev = 0, l2 = 0, iters = o->iters > 0 ? o->iters : 1;
	float ms = 0;

	if (bgh_opts_check(o))
		return -1;
	if (bgh_cuda_ok(cudaEventCreate(&start), "cudaEventCreate") ||
	    bgh_cuda_ok(cudaEventCreate(&stop), "cudaEventCreate"))
		goto cleanup;
	if (o->flush_l2) {
		if (bgh_cuda_ok(cudaGetDevice(&dev), "cudaGetDevice") ||
		    bgh_cuda_ok(cudaDeviceGetAttribute(&l2, cudaDevAttrL2CacheSize, dev),
		                "cudaDeviceGetAttribute(L2 size)"))
			goto cleanup;
		/* Twice the L2: its replacement is not strict LRU, and some GPUs
		 * (H100) split it in two halves that each cache the other's lines. */
		flush_bytes = 2 * BGH_CAST(size_t, l2);
		if (flush_bytes &&
		    bgh_cuda_ok(cudaMalloc(&flush, flush_bytes), "cudaMalloc(L2 flush buffer)"))
			goto cleanup;
	}
	for (i = 0; i < o->warmup; i++)
		for (k = 0; k < iters; k++)
			launch(arg, stream);
	if (bgh_cuda_ok(cudaGetLastError(), "kernel launch (warm-up)") ||
	    bgh_cuda_ok(cudaStreamSynchronize(stream), "warm-up"))
		goto cleanup;
	for (i = 0; i < o->samples; i++) {
		if (flush && bgh_cuda_ok(cudaMemsetAsync(flush, i & 0xff, flush_bytes, stream),
		                         "cudaMemsetAsync(L2 flush)"))
			goto cleanup;
		if (bgh_cuda_ok(cudaEventRecord(start, stream), "cudaEventRecord"))
			goto cleanup;
		for (k = 0; k < iters; k++)
			launch(arg, stream);
		if (bgh_cuda_ok(cudaGetLastError(), "kernel launch") ||
		    bgh_cuda_ok(cudaEventRecord(stop, stream), "cudaEventRecord") ||
		    bgh_cuda_ok(cudaEventSynchronize(stop), "kernel") ||
		    bgh_cuda_ok(cudaEventElapsedTime(&ms, start, stop), "cudaEventElapsedTime"))
			goto cleanup;
		bgh_report(o, BGH_CAST(double, ms) * 1e-3 / iters);
	}
	rc = fflush(stdout) == 0 ? 0 : -1;
cleanup:
	if (flush)
		cudaFree(flush);
	if (start)
		cudaEventDestroy(start);
	if (stop)
		cudaEventDestroy(stop);
	return rc;
}

#endif /* BGH_CUDA */

#endif /* BENCHGUARD_HARNESS_H */
