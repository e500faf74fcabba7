/*
 * saxpy.cu -- the memory-bound example: y = a*x + y over n floats (64 Mi by
 * default), checked against a CPU reference, then timed with CUDA events
 * by the benchguard harness.  Beside it, in the same process, a
 * device-to-device cudaMemcpy moving the same number of bytes gives the
 * bandwidth the GPU's memory can reach, so that saxpy/bandwidth can be read
 * as a fraction of it (tests/gpu/acceptance.sh wants at least 80%).
 *
 * Bytes per call count DRAM traffic: saxpy reads x and y and writes y
 * (12 bytes per element); a copy of B bytes reads B and writes B.
 *
 *   saxpy [n]             series saxpy/{time,bandwidth,throughput}, memcpy_d2d/{time,bandwidth}
 *   saxpy --selfcheck [n] adds saxpy_globaltimer/time: the same kernel
 *                         timed by its own %globaltimer reads (first block
 *                         start to last block end), to cross-check the
 *                         CUDA-event times
 */
#include "benchguard_harness.h"

#include <math.h>

struct saxpy_args {
	size_t n;
	float a;
	const float *x;
	float *y;
};

__device__ __forceinline__ unsigned long long globaltimer(void)
{
	unsigned long long t;
	asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t));
	return t;
}

/* Four elements per thread through float4 loads, so that each warp moves
 * 512 contiguous bytes per access; the tail (n % 4) is done by thread 0. */
template <bool timed>
__global__ void saxpy_kernel(size_t n, float a, const float *__restrict__ x, float *__restrict__ y,
                             unsigned long long *starts, unsigned long long *ends)
{
	size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x, n4 = n / 4;
	unsigned long long t0 = 0;

	if (timed && threadIdx.x == 0)
		t0 = globaltimer();
	if (i < n4) {
		float4 xv = reinterpret_cast<const float4 *>(x)[i];
		float4 yv = reinterpret_cast<float4 *>(y)[i];
		yv.x = a * xv.x + yv.x;
		yv.y = a * xv.y + yv.y;
		yv.z = a * xv.z + yv.z;
		yv.w = a * xv.w + yv.w;
		reinterpret_cast<float4 *>(y)[i] = yv;
	}
	if (i == 0)
		for (size_t j = n4 * 4; j < n; j++)
			y[j] = a * x[j] + y[j];
	/* Per-block stamps, reduced on the host: atomics on one address from
	 * every block would serialise and lengthen what they measure. */
	if (timed) {
		__syncthreads();
		if (threadIdx.x == 0) {
			starts[blockIdx.x] = t0;
			ends[blockIdx.x] = globaltimer();
		}
	}
}

static const int block = 256;

static unsigned grid_for(size_t n)
{
	return (unsigned)((n / 4 + block - 1) / block + (n / 4 == 0));
}

static void launch_saxpy(void *p, cudaStream_t s)
{
	struct saxpy_args *a = (struct saxpy_args *)p;
	saxpy_kernel<false><<<grid_for(a->n), block, 0, s>>>(a->n, a->a, a->x, a->y, NULL, NULL);
}

struct copy_args {
	void *dst;
	const void *src;
	size_t bytes;
};

static void launch_copy(void *p, cudaStream_t s)
{
	struct copy_args *c = (struct copy_args *)p;
	cudaMemcpyAsync(c->dst, c->src, c->bytes, cudaMemcpyDeviceToDevice, s);
}

int main(int argc, char **argv)
{
	int selfcheck = argc > 1 && !strcmp(argv[1], "--selfcheck");
	size_t n = argc > 1 + selfcheck ? strtoull(argv[1 + selfcheck], NULL, 0) : (size_t)1 << 26;
	size_t bytes = n * sizeof(float), i, bad = 0;
	float *hx, *hy, *out, *dx, *dy;
	void *csrc, *cdst;
	struct saxpy_args sa;
	struct copy_args ca;
	bgh_opts o;

	if (n == 0) {
		fprintf(stderr, "saxpy: n must be > 0\n");
		return 2;
	}
	hx = (float *)malloc(bytes);
	hy = (float *)malloc(bytes);
	out = (float *)malloc(bytes);
	if (!hx || !hy || !out) {
		fprintf(stderr, "saxpy: out of memory\n");
		return 1;
	}
	for (i = 0; i < n; i++) {
		hx[i] = (float)(i % 1000) * 0.001f;
		hy[i] = (float)(i % 777) * 0.5f;
	}
	BGH_CUDA_CHECK(cudaMalloc(&dx, bytes));
	BGH_CUDA_CHECK(cudaMalloc(&dy, bytes));
	BGH_CUDA_CHECK(cudaMemcpy(dx, hx, bytes, cudaMemcpyHostToDevice));
	BGH_CUDA_CHECK(cudaMemcpy(dy, hy, bytes, cudaMemcpyHostToDevice));
	sa.n = n;
	sa.a = 2.5f;
	sa.x = dx;
	sa.y = dy;

	/* One call checked against the CPU before anything is timed. */
	launch_saxpy(&sa, 0);
	BGH_CUDA_CHECK(cudaGetLastError());
	BGH_CUDA_CHECK(cudaMemcpy(out, dy, bytes, cudaMemcpyDeviceToHost));
	for (i = 0; i < n; i++) {
		float want = sa.a * hx[i] + hy[i];
		if (fabsf(out[i] - want) > 1e-5f * fmaxf(1.0f, fabsf(want)) && bad++ < 5)
			fprintf(stderr, "saxpy: y[%zu] = %g, CPU says %g\n", i, out[i], want);
	}
	if (bad) {
		fprintf(stderr, "saxpy: %zu of %zu results wrong\n", bad, n);
		return 1;
	}

	o = bgh_opts_default("saxpy");
	o.bytes = 3.0 * (double)bytes;
	o.flops = 2.0 * (double)n;
	if (bgh_cuda_run(&o, launch_saxpy, &sa, 0))
		return 1;

	/* The same traffic as a copy: half of it read, half written. */
	ca.bytes = 3 * bytes / 2;
	BGH_CUDA_CHECK(cudaMalloc(&csrc, ca.bytes));
	BGH_CUDA_CHECK(cudaMalloc(&cdst, ca.bytes));
	BGH_CUDA_CHECK(cudaMemset(csrc, 1, ca.bytes));
	ca.src = csrc;
	ca.dst = cdst;
	o = bgh_opts_default("memcpy_d2d");
	o.bytes = 2.0 * (double)ca.bytes;
	if (bgh_cuda_run(&o, launch_copy, &ca, 0))
		return 1;

	if (selfcheck) {
		/* Each sample: the kernel's own span (first block start to last
		 * block end, by %globaltimer), and the events around it. */
		unsigned nb = grid_for(n), b;
		unsigned long long *starts, *ends, *hs, *he, t0, t1;
		cudaEvent_t e0, e1;
		float ms;
		int k, samples = bgh_env_int("BENCHGUARD_SAMPLES", 10);

		hs = (unsigned long long *)malloc(nb * sizeof(*hs));
		he = (unsigned long long *)malloc(nb * sizeof(*he));
		if (!hs || !he)
			return 1;
		BGH_CUDA_CHECK(cudaMalloc(&starts, nb * sizeof(*starts)));
		BGH_CUDA_CHECK(cudaMalloc(&ends, nb * sizeof(*ends)));
		BGH_CUDA_CHECK(cudaEventCreate(&e0));
		BGH_CUDA_CHECK(cudaEventCreate(&e1));
		for (k = 0; k < samples + 1; k++) {
			BGH_CUDA_CHECK(cudaEventRecord(e0, 0));
			saxpy_kernel<true><<<nb, block>>>(n, sa.a, dx, dy, starts, ends);
			BGH_CUDA_CHECK(cudaEventRecord(e1, 0));
			BGH_CUDA_CHECK(cudaEventSynchronize(e1));
			BGH_CUDA_CHECK(cudaEventElapsedTime(&ms, e0, e1));
			BGH_CUDA_CHECK(
			        cudaMemcpy(hs, starts, nb * sizeof(*hs), cudaMemcpyDeviceToHost));
			BGH_CUDA_CHECK(
			        cudaMemcpy(he, ends, nb * sizeof(*he), cudaMemcpyDeviceToHost));
			if (k == 0)
				continue; /* warm-up */
			t0 = hs[0];
			t1 = he[0];
			for (b = 1; b < nb; b++) {
				t0 = hs[b] < t0 ? hs[b] : t0;
				t1 = he[b] > t1 ? he[b] : t1;
			}
			printf("BENCHGUARD saxpy_globaltimer/time %.9g s\n",
			       (double)(t1 - t0) * 1e-9);
			printf("BENCHGUARD saxpy_globaltimer/event_time %.9g s\n", ms * 1e-3);
		}
		cudaFree(starts);
		cudaFree(ends);
		free(hs);
		free(he);
	}
	cudaFree(csrc);
	cudaFree(cdst);
	cudaFree(dx);
	cudaFree(dy);
	free(hx);
	free(hy);
	free(out);
	return 0;
}
