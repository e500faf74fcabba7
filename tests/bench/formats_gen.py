#!/usr/bin/env python3
"""tests/bench/formats_gen.py FORMAT DIR -- the `formats` section of `make
bench`: 100,000 results in FORMAT (DIR/in.FORMAT) and the very same samples
in the `lines` format (DIR/in.lines), so that importing one is measured
against importing the other.  The shapes follow the real fixtures under
tests/fixtures/formats/; values are deterministic (no clock, no random seed
that could change between runs).

  go        1,000 benchmarks x -count 100: 100,000 result lines, each with
            ns/op, B/op and allocs/op (300,000 samples, 3,000 series)
  pytest    1,000 benchmarks x 100 rounds in stats.data (100,000 samples)
  catch2    Catch2 v3's XML reporter: 1,000 test cases x 100 BENCHMARKs,
            100,000 <BenchmarkResults>, each its mean as one sample
            (100,000 series)
  perfstat  10,000 appended `perf stat -x,` invocations x 10 events:
            100,000 event lines (100,000 samples, 10 series)
"""
import json
import sys


def value(s, i):
    # ~1% spread around a per-series level, in a fixed order.
    return (1.0 + s / 1000.0) * (1.0 + ((s * 7919 + i * 104729) % 1000) / 1e5)


def go(out, lines):
    out.write("goos: linux\ngoarch: amd64\npkg: example.com/bench\n")
    for i in range(100):
        for s in range(1000):
            ns = 1000.0 * value(s, i)
            out.write("BenchmarkS%04d-2   \t   20000\t%12.1f ns/op\t%8d B/op\t%6d allocs/op\n"
                      % (s, ns, 512 + s, 3 + s % 7))
            lines.write("BENCHGUARD S%04d_time %.1f ns\n" % (s, ns))
            lines.write("BENCHGUARD S%04d_bytes %d B/op\n" % (s, 512 + s))
            lines.write("BENCHGUARD S%04d_allocs %d allocs/op\n" % (s, 3 + s % 7))
    out.write("PASS\nok  \texample.com/bench\t12.345s\n")


def pytest(out, lines):
    benchmarks = []
    for s in range(1000):
        data = [1e-6 * value(s, i) for i in range(100)]
        mean = sum(data) / len(data)
        benchmarks.append({
            "group": None, "name": "test_s%04d" % s,
            "fullname": "tests/test_bench.py::test_s%04d" % s,
            "params": None, "param": None, "extra_info": {},
            "options": {"disable_gc": False, "timer": "perf_counter", "min_rounds": 5,
                        "max_time": 1.0, "min_time": 5e-06, "warmup": False},
            "stats": {"min": min(data), "max": max(data), "mean": mean, "rounds": 100,
                      "iterations": 1, "data": data},
        })
        for v in data:
            lines.write("BENCHGUARD s%04d %r s\n" % (s, v))
    json.dump({"machine_info": {"node": "bench"}, "commit_info": {},
               "benchmarks": benchmarks, "datetime": "2026-11-24T00:00:00",
               "version": "3.2.2"}, out)


def catch2(out, lines):
    out.write('<?xml version="1.0" encoding="UTF-8"?>\n<Catch2TestRun name="bench" '
              'rng-seed="1" xml-format-version="3" catch2-version="3.7.1">\n')
    for t in range(1000):
        out.write('  <TestCase name="case %04d" tags="[bench]" filename="b.cpp" line="1">\n' % t)
        for b in range(100):
            ns = 1000.0 * value(t, b)
            out.write('    <BenchmarkResults name="bench %02d" samples="100" resamples="100000" '
                      'iterations="1" clockResolution="16.2" estimatedDuration="160000">\n'
                      '      <!-- All values in nano seconds -->\n'
                      '      <mean value="%.3f" lowerBound="%.3f" upperBound="%.3f" ci="0.95"/>\n'
                      '      <standardDeviation value="3.67" lowerBound="0.58" upperBound="6.13" ci="0.95"/>\n'
                      '      <outliers variance="0.09" lowMild="0" lowSevere="0" highMild="0" highSevere="1"/>\n'
                      '    </BenchmarkResults>\n' % (b, ns, ns * 0.99, ns * 1.01))
            lines.write("BENCHGUARD case_%04d/bench_%02d %.3f ns\n" % (t, b, ns))
        out.write('    <OverallResult success="true" skips="0"/>\n  </TestCase>\n')
    out.write('  <OverallResults successes="0" failures="0" expectedFailures="0" skips="0"/>\n'
              '  <OverallResultsCases successes="1000" failures="0" expectedFailures="0" skips="0"/>\n'
              '</Catch2TestRun>\n')


PERF_EVENTS = [("task-clock", "msec", "ms"), ("context-switches", "", "switches"),
               ("cpu-migrations", "", "migrations"), ("page-faults", "", "faults"),
               ("cycles", "", "cycles"), ("instructions", "", "instr"),
               ("branches", "", "branches"), ("branch-misses", "", "misses"),
               ("cache-references", "", "refs"), ("cache-misses", "", "misses")]


def perfstat(out, lines):
    for i in range(10000):
        out.write("# started on Tue Nov 24 21:00:08 2026\n\n")
        for s, (event, unit, unit_as) in enumerate(PERF_EVENTS):
            v = 15.2 * value(s, i) if unit == "msec" else float(int(1000 * (s + 1) * value(s, i)))
            text = "%.2f" % v if unit == "msec" else "%d" % v
            out.write("%s,%s,%s,15208074,100.00,0.953,CPUs utilized\n" % (text, unit, event))
            lines.write("BENCHGUARD %s %s %s\n" % (event, text, unit_as))


GEN = {"go": go, "pytest": pytest, "catch2": catch2, "perfstat": perfstat}

if __name__ == "__main__":
    fmt, d = sys.argv[1], sys.argv[2]
    with open("%s/in.%s" % (d, fmt), "w") as out, open("%s/in.lines" % d, "w") as lines:
        GEN[fmt](out, lines)
