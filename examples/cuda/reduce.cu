/*
 * reduce.cu -- the reduction example: the sum of n floats (64 Mi by
 * default) in one pass, checked against a CPU sum in double precision,
 * then timed with CUDA events by the benchguard harness.
 *
 * Each thread sums a grid-stride slice through float4 loads, each warp
 * folds its 32 partial sums with shuffles, each block its warps' sums in
 * shared memory, and one atomicAdd per block adds the block's sum to the
 * result: a single kernel, memory-bound (4 bytes per element read).
 *
 *   reduce [n]    series reduce/{time,bandwidth,throughput}
 */
#include "benchguard_harness.h"

#include <math.h>

#define BLOCK 256

struct reduce_args {
	size_t n;
	const float *x;
	float *sum;
	unsigned grid;
};

__device__ __forceinline__ float warp_sum(float v)
{
	for (int off = 16; off > 0; off >>= 1)
		v += __shfl_down_sync(0xffffffffu, v, off);
	return v;
}

__global__ void reduce_kernel(size_t n, const float *__restrict__ x, float *sum)
{
	__shared__ float warps[BLOCK / 32];
	size_t i, n4 = n / 4, stride = (size_t)gridDim.x * blockDim.x;
	float v = 0.0f;

	for (i = (size_t)blockIdx.x * blockDim.x + threadIdx.x; i < n4; i += stride) {
		float4 q = reinterpret_cast<const float4 *>(x)[i];
		v += (q.x + q.y) + (q.z + q.w);
	}
	if (blockIdx.x == 0 && threadIdx.x == 0)
		for (i = n4 * 4; i < n; i++)
			v += x[i];
	v = warp_sum(v);
	if ((threadIdx.x & 31) == 0)
		warps[threadIdx.x / 32] = v;
	__syncthreads();
	if (threadIdx.x < 32) {
		v = threadIdx.x < BLOCK / 32 ? warps[threadIdx.x] : 0.0f;
		v = warp_sum(v);
		if (threadIdx.x == 0)
			atomicAdd(sum, v);
	}
}

static void launch_reduce(void *p, cudaStream_t s)
{
	struct reduce_args *a = (struct reduce_args *)p;

	/* The sum starts at zero: resetting it is part of every call. */
	cudaMemsetAsync(a->sum, 0, sizeof(float), s);
	reduce_kernel<<<a->grid, BLOCK, 0, s>>>(a->n, a->x, a->sum);
}

int main(int argc, char **argv)
{
	size_t n = argc > 1 ? strtoull(argv[1], NULL, 0) : (size_t)1 << 26;
	size_t bytes = n * sizeof(float), i;
	double want = 0.0, err;
	float *hx, *dx, *dsum, got;
	struct reduce_args ra;
	int dev, sms, per_sm;
	bgh_opts o;

	if (n == 0) {
		fprintf(stderr, "reduce: n must be > 0\n");
		return 2;
	}
	if (!(hx = (float *)malloc(bytes))) {
		fprintf(stderr, "reduce: out of memory\n");
		return 1;
	}
	/* Values in [0, 1), all positive, so that a lost part of the input
	 * (one block's share is 0.1% of it on an H100) shows in the sum. */
	for (i = 0; i < n; i++) {
		hx[i] = (float)((i * 2654435761u) % 1000u) * 0.001f;
		want += hx[i];
	}
	BGH_CUDA_CHECK(cudaMalloc(&dx, bytes));
	BGH_CUDA_CHECK(cudaMalloc(&dsum, sizeof(float)));
	BGH_CUDA_CHECK(cudaMemcpy(dx, hx, bytes, cudaMemcpyHostToDevice));
	/* Enough resident blocks to fill every SM, no more: the atomics stay few. */
	BGH_CUDA_CHECK(cudaGetDevice(&dev));
	BGH_CUDA_CHECK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, dev));
	BGH_CUDA_CHECK(
	        cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, reduce_kernel, BLOCK, 0));
	ra.n = n;
	ra.x = dx;
	ra.sum = dsum;
	ra.grid = (unsigned)(sms * per_sm);

	launch_reduce(&ra, 0);
	BGH_CUDA_CHECK(cudaGetLastError());
	BGH_CUDA_CHECK(cudaMemcpy(&got, dsum, sizeof(got), cudaMemcpyDeviceToHost));
	/* Float partial sums and one float atomic per block: a relative error
	 * of 1e-6 is typical, 1e-4 is far beyond what rounding can explain. */
	err = fabs((double)got - want);
	if (!(err <= 1e-4 * want + 1e-3)) {
		fprintf(stderr, "reduce: GPU sum %.6f, CPU sum %.6f (error %.3g)\n", got, want,
		        err);
		return 1;
	}

	o = bgh_opts_default("reduce");
	o.bytes = (double)bytes;
	o.flops = (double)n;
	if (bgh_cuda_run(&o, launch_reduce, &ra, 0))
		return 1;
	cudaFree(dx);
	cudaFree(dsum);
	free(hx);
	return 0;
}
