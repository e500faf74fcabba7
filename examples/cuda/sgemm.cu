/*
 * sgemm.cu -- the compute example: C = A * B for n x n single-precision
 * matrices (2048 by default), tiled through shared memory, checked against
 * a CPU reference, then timed with CUDA events by the benchguard harness.
 *
 * Each block computes a 64 x 64 tile of C with 256 threads, each thread a
 * 4 x 4 patch held in registers; the block walks the K dimension 16 at a
 * time, staging a 64 x 16 slice of A and a 16 x 64 slice of B in shared
 * memory.  Not cuBLAS, but an honest tiled kernel that is compute-bound.
 * The CPU reference checks 1024 entries spread over C (all of them when n
 * is at most 128): a full CPU product of 2048^3 would take seconds.
 *
 *   sgemm [n]    n a multiple of 64; series sgemm/{time,throughput}
 */
#include "benchguard_harness.h"

#include <math.h>

#define TILE 64
#define KT 16
#define PATCH 4 /* TILE / 16 threads per side */

struct sgemm_args {
	int n;
	const float *a, *b;
	float *c;
};

__global__ void __launch_bounds__(256)
        sgemm_kernel(int n, const float *__restrict__ A, const float *__restrict__ B,
                     float *__restrict__ C)
{
	__shared__ float as[KT][TILE]; /* A slice, transposed: as[k][row] */
	__shared__ float bs[KT][TILE];
	int tx = threadIdx.x % 16, ty = threadIdx.x / 16;
	int row0 = blockIdx.y * TILE, col0 = blockIdx.x * TILE;
	float acc[PATCH][PATCH] = { { 0.0f } };

	for (int k0 = 0; k0 < n; k0 += KT) {
		/* 256 threads load 64 x 16 = 1024 floats of each: 4 apiece. */
		for (int l = threadIdx.x; l < TILE * KT; l += 256) {
			int r = l / KT, k = l % KT;
			as[k][r] = A[(size_t)(row0 + r) * n + k0 + k];
			int kb = l / TILE, cb = l % TILE;
			bs[kb][cb] = B[(size_t)(k0 + kb) * n + col0 + cb];
		}
		__syncthreads();
#pragma unroll
		for (int k = 0; k < KT; k++) {
			float ra[PATCH], rb[PATCH];
#pragma unroll
			for (int p = 0; p < PATCH; p++) {
				ra[p] = as[k][ty + 16 * p];
				rb[p] = bs[k][tx + 16 * p];
			}
#pragma unroll
			for (int p = 0; p < PATCH; p++)
#pragma unroll
				for (int q = 0; q < PATCH; q++)
					acc[p][q] = fmaf(ra[p], rb[q], acc[p][q]);
		}
		__syncthreads();
	}
#pragma unroll
	for (int p = 0; p < PATCH; p++)
#pragma unroll
		for (int q = 0; q < PATCH; q++)
			C[(size_t)(row0 + ty + 16 * p) * n + col0 + tx + 16 * q] = acc[p][q];
}

static void launch_sgemm(void *p, cudaStream_t s)
{
	struct sgemm_args *g = (struct sgemm_args *)p;
	dim3 grid(g->n / TILE, g->n / TILE);

	sgemm_kernel<<<grid, 256, 0, s>>>(g->n, g->a, g->b, g->c);
}

int main(int argc, char **argv)
{
	int n = argc > 1 ? atoi(argv[1]) : 2048;
	size_t nn, bytes, i, checks, bad = 0;
	float *ha, *hb, *hc, *da, *db, *dc;
	struct sgemm_args g;
	bgh_opts o;

	if (n <= 0 || n % TILE) {
		fprintf(stderr, "sgemm: n must be a positive multiple of %d\n", TILE);
		return 2;
	}
	nn = (size_t)n * n;
	bytes = nn * sizeof(float);
	ha = (float *)malloc(bytes);
	hb = (float *)malloc(bytes);
	hc = (float *)malloc(bytes);
	if (!ha || !hb || !hc) {
		fprintf(stderr, "sgemm: out of memory\n");
		return 1;
	}
	for (i = 0; i < nn; i++) {
		ha[i] = (float)((i * 7) % 13) * 0.1f - 0.6f;
		hb[i] = (float)((i * 11) % 17) * 0.05f - 0.4f;
	}
	BGH_CUDA_CHECK(cudaMalloc(&da, bytes));
	BGH_CUDA_CHECK(cudaMalloc(&db, bytes));
	BGH_CUDA_CHECK(cudaMalloc(&dc, bytes));
	BGH_CUDA_CHECK(cudaMemcpy(da, ha, bytes, cudaMemcpyHostToDevice));
	BGH_CUDA_CHECK(cudaMemcpy(db, hb, bytes, cudaMemcpyHostToDevice));
	g.n = n;
	g.a = da;
	g.b = db;
	g.c = dc;

	launch_sgemm(&g, 0);
	BGH_CUDA_CHECK(cudaGetLastError());
	BGH_CUDA_CHECK(cudaMemcpy(hc, dc, bytes, cudaMemcpyDeviceToHost));
	checks = nn <= 128 * 128 ? nn : 1024;
	for (i = 0; i < checks; i++) {
		/* Spread over C with a stride prime to n*n. */
		size_t at = checks == nn ? i : (i * 2654435761u) % nn, r = at / n, c = at % n;
		double want = 0.0, mag = 0.0;
		int k;

		for (k = 0; k < n; k++) {
			want += (double)ha[r * n + k] * hb[(size_t)k * n + c];
			mag += fabs((double)ha[r * n + k] * hb[(size_t)k * n + c]);
		}
		/* The float rounding bound of an n-term dot product: n * 2^-23 * sum |terms|. */
		if (fabs(hc[at] - want) > n * 1.2e-7 * mag + 1e-6 && bad++ < 5)
			fprintf(stderr, "sgemm: C[%zu][%zu] = %g, CPU says %g\n", r, c, hc[at],
			        want);
	}
	if (bad) {
		fprintf(stderr, "sgemm: %zu of %zu checked entries wrong\n", bad, checks);
		return 1;
	}

	o = bgh_opts_default("sgemm");
	o.flops = 2.0 * (double)n * n * n;
	if (bgh_cuda_run(&o, launch_sgemm, &g, 0))
		return 1;
	cudaFree(da);
	cudaFree(db);
	cudaFree(dc);
	free(ha);
	free(hb);
	free(hc);
	return 0;
}
