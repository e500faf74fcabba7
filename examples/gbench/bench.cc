// bench.cc -- an example Google Benchmark program for benchguard (format
// "gbench").  Run with --benchmark_format=json --benchmark_repetitions=N:
// each repetition becomes one sample of real_time and cpu_time.
#include <benchmark/benchmark.h>

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <vector>

static void BM_Sort(benchmark::State &state)
{
	std::vector<uint32_t> v(static_cast<size_t>(state.range(0)));
	for (auto _ : state) {
		state.PauseTiming();
		uint32_t x = 2463534242u;
		for (auto &e : v) {
			x ^= x << 13;
			x ^= x >> 17;
			x ^= x << 5;
			e = x;
		}
		state.ResumeTiming();
		std::sort(v.begin(), v.end());
		benchmark::DoNotOptimize(v.data());
	}
	state.SetItemsProcessed(state.iterations() * state.range(0));
}
BENCHMARK(BM_Sort)->Arg(1 << 16)->Unit(benchmark::kMicrosecond);

static void BM_Memcpy(benchmark::State &state)
{
	std::vector<char> src(static_cast<size_t>(state.range(0)), 'x'), dst(src.size());
	for (auto _ : state) {
		std::memcpy(dst.data(), src.data(), src.size());
		benchmark::ClobberMemory();
	}
	state.SetBytesProcessed(state.iterations() * state.range(0));
}
BENCHMARK(BM_Memcpy)->Arg(1 << 20);

BENCHMARK_MAIN();
