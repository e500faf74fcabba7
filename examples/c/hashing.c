/*
 * hashing.c -- an example of a benchmark that reports its own samples in
 * benchguard's `lines` format: it times an FNV-1a hash over a buffer with
 * the monotonic clock and prints, per sample,
 *
 *     BENCHGUARD fnv1a_time <seconds> s
 *     BENCHGUARD fnv1a_throughput <GB/s> GB/s
 *
 * It honours BENCHGUARD_SAMPLES and BENCHGUARD_WARMUP, which benchguard
 * sets from the configuration.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

static double now(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static uint64_t fnv1a(const unsigned char *p, size_t n)
{
	uint64_t h = 1469598103934665603ULL;
	size_t i;

	for (i = 0; i < n; i++)
		h = (h ^ p[i]) * 1099511628211ULL;
	return h;
}

static int env_int(const char *name, int def)
{
	const char *v = getenv(name);
	return v && *v ? atoi(v) : def;
}

int main(int argc, char **argv)
{
	size_t n = argc > 1 ? (size_t)strtoull(argv[1], NULL, 10) : (size_t)8 << 20;
	int samples = env_int("BENCHGUARD_SAMPLES", 10), warmup = env_int("BENCHGUARD_WARMUP", 1);
	unsigned char *buf = malloc(n);
	volatile uint64_t sink = 0;
	size_t i;
	int s;

	if (!buf || n == 0) {
		fprintf(stderr, "hashing: cannot allocate %zu bytes\n", n);
		return 1;
	}
	for (i = 0; i < n; i++)
		buf[i] = (unsigned char)(i * 131u);
	for (s = -warmup; s < samples; s++) {
		double t0 = now(), dt;
		sink ^= fnv1a(buf, n);
		dt = now() - t0;
		if (s >= 0) {
			printf("BENCHGUARD fnv1a_time %.9f s\n", dt);
			printf("BENCHGUARD fnv1a_throughput %.6f GB/s\n", (double)n / dt * 1e-9);
		}
	}
	printf("checksum %llx\n", (unsigned long long)sink);
	free(buf);
	return 0;
}
