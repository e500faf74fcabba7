/*
 * test_instrument.c -- instruments beyond the clock, where no PMU is
 * needed: the `measure` and `counters` keys, the availability report,
 * series naming and instrument strings, the fallback between alternatives,
 * a missing instrument skipped with its reason, and the counters' whole
 * path (opened in the child, inherited by its children, read after it)
 * through the kernel's software events, which every machine has.
 */
#include <math.h>

#include "unit.h"

static bg_config *parse_ok(bg_ctx *ctx, const char *text)
{
	bg_config *cfg = NULL;
	int err = bg_config_parse(ctx, "t.json", text, strlen(text), &cfg);

	if (err < 0)
		fail_msg("unexpected error %d: %s", err, bg_ctx_error(ctx));
	return cfg;
}

static void expect_error(bg_ctx *ctx, const char *text, const char *msg)
{
	bg_config *cfg = NULL;

	bg_ctx_clear_error(ctx);
	assert_int_equal(bg_config_parse(ctx, "t.json", text, strlen(text), &cfg), BG_EINPUT);
	assert_null(cfg);
	if (strcmp(bg_ctx_error(ctx), msg) != 0)
		fail_msg("for %s\n  got  %s\n  want %s", text, bg_ctx_error(ctx), msg);
}

static void test_measure_config(void **state)
{
	bg_ctx *ctx = *state;
	bg_config *cfg = parse_ok(
	        ctx, "{\"defaults\": {\"measure\": [\"time\", [\"counters\", \"simulate\"]],\n"
	             "  \"counters\": {\"events\": [\"task_clock\", \"page_faults\"]}},\n"
	             " \"benchmarks\": [\n"
	             "  {\"name\": \"a\", \"command\": \"true\"},\n"
	             "  {\"name\": \"b\", \"command\": \"true\", \"measure\": [\"simulate\"],\n"
	             "   \"counters\": {\"kernel\": true}},\n"
	             "  {\"name\": \"c\", \"command\": \"true\", \"measure\": [\"counters\"],\n"
	             "   \"counters\": {\"events\": [\"instructions\"]}}]}");
	const bg_benchmark *a = bg_config_benchmark(cfg, 0), *b = bg_config_benchmark(cfg, 1),
	                   *c = bg_config_benchmark(cfg, 2);

	/* From "defaults". */
	assert_int_equal(a->nmeasure, 2);
	assert_int_equal(a->measure[0].nalt, 1);
	assert_int_equal(a->measure[0].alt[0], BG_INSTR_TIME);
	assert_int_equal(a->measure[1].nalt, 2);
	assert_int_equal(a->measure[1].alt[0], BG_INSTR_COUNTERS);
	assert_int_equal(a->measure[1].alt[1], BG_INSTR_SIMULATE);
	assert_int_equal(a->nevents, 2);
	assert_string_equal(a->events[0], "task_clock");
	assert_string_equal(a->events[1], "page_faults");
	assert_false(a->kernel);
	/* Its own measure; "counters" as a whole object merges key by key. */
	assert_int_equal(b->nmeasure, 1);
	assert_int_equal(b->measure[0].alt[0], BG_INSTR_SIMULATE);
	assert_int_equal(b->nevents, 2);
	assert_true(b->kernel);
	assert_int_equal(c->nevents, 1);
	assert_string_equal(c->events[0], "instructions");
	bg_config_free(cfg);

	/* The alternatives before the clock: the order of entries is the
	 * user's (it was refused as counters and simulate twice). */
	cfg = parse_ok(ctx,
	               "{\"defaults\": {\"measure\": [[\"counters\", \"simulate\"], \"time\"]},\n"
	               " \"benchmarks\": [{\"name\": \"a\", \"command\": \"true\",\n"
	               "  \"measure\": [[\"simulate\", \"counters\"], \"time\"]}]}");
	a = bg_config_benchmark(cfg, 0);
	assert_int_equal(a->nmeasure, 2);
	assert_int_equal(a->measure[0].nalt, 2);
	assert_int_equal(a->measure[0].alt[0], BG_INSTR_SIMULATE);
	assert_int_equal(a->measure[0].alt[1], BG_INSTR_COUNTERS);
	assert_int_equal(a->measure[1].alt[0], BG_INSTR_TIME);
	bg_config_free(cfg);

	/* Without "measure": the clock alone (nmeasure 0). */
	cfg = parse_ok(ctx, "{\"benchmarks\": [{\"name\": \"a\", \"command\": \"true\"}]}");
	assert_int_equal(bg_config_benchmark(cfg, 0)->nmeasure, 0);
	assert_null(bg_config_benchmark(cfg, 0)->events);
	bg_config_free(cfg);
}

static void test_measure_errors(void **state)
{
	static const struct {
		const char *measure, *msg;
	} cases[] = {
		{ "\"measure\": \"time\"",
		  "t.json:1: benchmarks[0].measure: expected an array, got string" },
		{ "\"measure\": []", "t.json:1: benchmarks[0].measure: must not be empty" },
		{ "\"measure\": [\"perf\"]",
		  "t.json:1: benchmarks[0].measure[0]: unknown instrument \"perf\" (expected "
		  "\"time\", \"counters\" or \"simulate\")" },
		{ "\"measure\": [3]",
		  "t.json:1: benchmarks[0].measure[0]: expected a string, got number" },
		{ "\"measure\": [\"time\", \"time\"]",
		  "t.json:1: benchmarks[0].measure[1]: \"time\" is measured twice" },
		{ "\"measure\": [[]]", "t.json:1: benchmarks[0].measure[0]: a list of alternatives "
		                       "holds 1 to 3 instruments" },
		{ "\"measure\": [[\"counters\", \"counters\"]]",
		  "t.json:1: benchmarks[0].measure[0][1]: \"counters\" is listed twice" },
		{ "\"measure\": [\"counters\", \"simulate\"]",
		  "t.json:1: benchmarks[0].measure[1]: \"counters\" and \"simulate\" both give the "
		  "series \"instructions\": list them as alternatives, [\"counters\", "
		  "\"simulate\"]" },
		{ "\"measure\": [[\"simulate\"], [\"time\", \"counters\"]]",
		  "t.json:1: benchmarks[0].measure[1]: \"counters\" and \"simulate\" both give the "
		  "series \"instructions\": list them as alternatives, [\"counters\", "
		  "\"simulate\"]" },
		{ "\"measure\": [[\"counters\"], \"time\", \"simulate\"]",
		  "t.json:1: benchmarks[0].measure[2]: \"counters\" and \"simulate\" both give the "
		  "series \"instructions\": list them as alternatives, [\"counters\", "
		  "\"simulate\"]" },
		{ "\"counters\": []",
		  "t.json:1: benchmarks[0].counters: expected an object, got array" },
		{ "\"counters\": {\"event\": []}", "t.json:1: benchmarks[0].counters: unknown key "
		                                   "\"event\" (did you mean \"events\"?)" },
		{ "\"counters\": {\"events\": []}",
		  "t.json:1: benchmarks[0].counters.events: must not be empty" },
		{ "\"counters\": {\"events\": [\"instructions\", \"instructions\"]}",
		  "t.json:1: benchmarks[0].counters.events[1]: \"instructions\" is listed twice" },
		{ "\"counters\": {\"kernel\": 1}",
		  "t.json:1: benchmarks[0].counters.kernel: expected true or false, got number" },
	};
	bg_ctx *ctx = *state;
	bg_config *cfg = NULL;
	char text[512];
	size_t i;

	for (i = 0; i < BG_ARRAY_SIZE(cases); i++) {
		snprintf(text, sizeof(text),
		         "{\"benchmarks\": [{\"name\": \"a\", \"command\": \"true\", %s}]}",
		         cases[i].measure);
		expect_error(ctx, text, cases[i].msg);
	}
	/* An unknown counter names the ones benchguard knows. */
	snprintf(text, sizeof(text),
	         "{\"defaults\": {\"counters\": {\"events\": [\"flops\"]}},"
	         " \"benchmarks\": [{\"name\": \"a\", \"command\": \"true\"}]}");
	bg_ctx_clear_error(ctx);
	assert_int_equal(bg_config_parse(ctx, "t.json", text, strlen(text), &cfg), BG_EINPUT);
	assert_non_null(strstr(bg_ctx_error(ctx), "t.json:1: defaults.counters.events[0]: "
	                                          "unknown counter \"flops\" (known: instructions, "
	                                          "cycles,"));
	assert_non_null(strstr(bg_ctx_error(ctx), "task_clock"));
}

static void test_names_and_defaults(void **state)
{
	bg_instrument i;
	const char *const *ev = bg_counter_events(), *const *def = bg_counter_default_events();

	(void)state;
	assert_int_equal(bg_instrument_from_name("simulate", &i), 0);
	assert_int_equal(i, BG_INSTR_SIMULATE);
	assert_int_equal(bg_instrument_from_name("Simulate", &i), BG_EINPUT);
	assert_string_equal(bg_instrument_name(BG_INSTR_COUNTERS), "counters");
	/* What `counters` promises by default: instructions and cycles first. */
	assert_string_equal(def[0], "instructions");
	assert_string_equal(def[1], "cycles");
	assert_string_equal(def[2], "branch_misses");
	assert_string_equal(def[3], "cache_misses");
	assert_null(def[4]);
	for (; *def; def++) {
		const char *const *e = ev;

		while (*e && strcmp(*e, *def))
			e++;
		assert_non_null(*e);
	}
	/* Counts are printed with SI prefixes and the digits a 0.1% change needs. */
	{
		char buf[64];

		bg_unit_format(buf, sizeof(buf), 26135030, "instr");
		assert_string_equal(buf, "26.135M instr");
		bg_unit_format(buf, sizeof(buf), 26161165, "instr");
		assert_string_equal(buf, "26.161M instr");
		bg_unit_format(buf, sizeof(buf), 2604, "misses");
		assert_string_equal(buf, "2.604k misses");
		bg_unit_format(buf, sizeof(buf), 0.5, "misses");
		assert_string_equal(buf, "0.5 misses");
		bg_unit_format(buf, sizeof(buf), 4.2e9, "cycles");
		assert_string_equal(buf, "4.2G cycles");
	}
	/* Thresholds and resolution of an instrument's series. */
	assert_true(fabs(bg_instrument__min_change("simulate callgrind valgrind-3.19.0",
	                                           "instructions") -
	                 0.001) < 1e-15);
	assert_true(fabs(bg_instrument__min_change("counters user", "instructions") - 0.001) <
	            1e-15);
	assert_true(isnan(bg_instrument__min_change("counters user", "cycles")));
	assert_true(isnan(bg_instrument__min_change(NULL, "instructions")));
	assert_true(isnan(bg_instrument__min_change("simulated", "instructions")));
	assert_true(
	        fabs(bg_instrument__resolution("simulate callgrind valgrind-3.19.0", "est_cycles") -
	             1.0) < 1e-15);
	assert_true(fabs(bg_instrument__resolution(NULL, "wall_time")) < 1e-300);
}

static int valgrind_here(void)
{
	return system("valgrind --version >/dev/null 2>&1") == 0;
}

static void test_probe(void **state)
{
	bg_ctx *ctx = *state;
	bg_instrument_status st[BG_INSTR_COUNT];
	bg_counters *c = NULL;
	int err;

	assert_int_equal(bg_instruments_probe(ctx, NULL, 0, 0, st), 0);
	assert_true(st[BG_INSTR_TIME].available);
	/* counters: what it can open, or why not, naming the event. */
	err = bg_counters__new(ctx, NULL, 0, 0, &c);
	if (err == 0) {
		assert_true(st[BG_INSTR_COUNTERS].available);
		assert_true(!strncmp(st[BG_INSTR_COUNTERS].detail, "instructions cycles", 19));
		bg_counters__free(c);
	} else {
		assert_int_equal(err, BG_ENOTFOUND);
		assert_false(st[BG_INSTR_COUNTERS].available);
		assert_true(!strncmp(st[BG_INSTR_COUNTERS].detail, "instructions: ", 14) ||
		            !strncmp(st[BG_INSTR_COUNTERS].detail, "cycles: ", 8));
		print_message("counters: %s\n", st[BG_INSTR_COUNTERS].detail);
	}
	if (valgrind_here()) {
		assert_true(st[BG_INSTR_SIMULATE].available);
		assert_true(!strncmp(st[BG_INSTR_SIMULATE].detail, "valgrind-", 9));
	} else {
		assert_false(st[BG_INSTR_SIMULATE].available);
		assert_non_null(strstr(st[BG_INSTR_SIMULATE].detail, "valgrind"));
	}
	/* The kernel's software events open everywhere perf_event_open does. */
	{
		static const char *const sw[] = { "task_clock", "page_faults" };

		assert_int_equal(bg_instruments_probe(ctx, sw, 2, 0, st), 0);
		assert_true(st[BG_INSTR_COUNTERS].available);
		assert_string_equal(st[BG_INSTR_COUNTERS].detail, "task_clock page_faults");
	}
}

static const bg_series *series(const bg_results *res, const char *metric)
{
	size_t i;

	for (i = 0; i < bg_results_series_count(res); i++)
		if (!strcmp(bg_results_series(res, i)->metric, metric))
			return bg_results_series(res, i);
	return NULL;
}

static bg_benchmark bench(const char *command, const bg_measure *m, size_t nm)
{
	bg_benchmark b;

	memset(&b, 0, sizeof(b));
	b.name = "b";
	b.command = command;
	b.format = BG_FORMAT_TIME;
	b.samples = 3;
	b.warmup = 1;
	b.timeout = 60;
	b.measure = m;
	b.nmeasure = nm;
	return b;
}

/*
 * The counters' path without a PMU: task_clock and page_faults opened in
 * the child, counting the shell's child too (inherit), read after the
 * tree is gone, stored as series of the `counters user` instrument.
 */
static void test_counters_software(void **state)
{
	static const char *const sw[] = { "task_clock", "page_faults", "context_switches" };
	static const bg_measure m[] = { { { BG_INSTR_TIME }, 1 }, { { BG_INSTR_COUNTERS }, 1 } };
	bg_ctx *ctx = *state;
	bg_benchmark b = bench("sh -c 'sh -c \"i=0; while [ \\$i -lt 40000 ]; do i=\\$((i+1)); "
	                       "done\"; true'",
	                       m, 2);
	bg_run_opts ro = BG_RUN_OPTS_INIT;
	bg_results *res = NULL;
	const bg_series *tc, *pf, *cpu;
	size_t i;

	b.events = sw;
	b.nevents = 3;
	assert_int_equal(bg_results_new(&res), 0);
	assert_int_equal(bg_runner_run(ctx, &b, &ro, res), 0);
	assert_int_equal(bg_results_find_outcome(res, "b")->status, BG_BENCH_OK);
	tc = series(res, "task_clock");
	pf = series(res, "page_faults");
	cpu = series(res, "cpu_time");
	assert_non_null(tc);
	assert_non_null(pf);
	assert_non_null(series(res, "context_switches"));
	assert_non_null(cpu);
	assert_string_equal(tc->unit, "s");
	assert_string_equal(pf->unit, "faults");
	assert_string_equal(tc->instrument, "counters user");
	assert_null(cpu->instrument);
	assert_int_equal(tc->n, 3); /* the warm-up is not a sample */
	for (i = 0; i < tc->n; i++) {
		/* The grandchild's loop is counted: task_clock is the tree's CPU
		 * time, which wait4 gives too (within scheduling ticks). */
		assert_true(pf->values[i] > 50);
		if (!(tc->values[i] > 0.5 * cpu->values[i] - 0.005 &&
		      tc->values[i] < 1.5 * cpu->values[i] + 0.005))
			fail_msg("task_clock %g s against cpu_time %g s", tc->values[i],
			         cpu->values[i]);
	}
	bg_results_free(res);

	/* Counted only: no clock series. */
	{
		static const bg_measure only[] = { { { BG_INSTR_COUNTERS }, 1 } };

		b = bench("true", only, 1);
		b.events = sw;
		b.nevents = 2;
		assert_int_equal(bg_results_new(&res), 0);
		assert_int_equal(bg_runner_run(ctx, &b, &ro, res), 0);
		assert_null(series(res, "wall_time"));
		assert_null(series(res, "peak_rss"));
		assert_int_equal(series(res, "page_faults")->n, 3);
		bg_results_free(res);
	}
}

/*
 * A benchmark whose own output reports a series a counter measures too
 * fails, saying so: added to one series, its 3 and the counted faults were
 * averaged under the counter's label.  Another name stays two series.
 */
static void test_counters_output_clash(void **state)
{
	static const char *const sw[] = { "page_faults" };
	static const bg_measure m[] = { { { BG_INSTR_TIME }, 1 }, { { BG_INSTR_COUNTERS }, 1 } };
	bg_ctx *ctx = *state;
	bg_benchmark b = bench("echo BENCHGUARD page_faults 3 faults", m, 2);
	bg_run_opts ro = BG_RUN_OPTS_INIT;
	bg_results *res = NULL;
	const bg_outcome *o;

	b.format = BG_FORMAT_LINES;
	b.events = sw;
	b.nevents = 1;
	assert_int_equal(bg_results_new(&res), 0);
	assert_int_equal(bg_runner_run(ctx, &b, &ro, res), 0);
	o = bg_results_find_outcome(res, "b");
	assert_int_equal(o->status, BG_BENCH_FAILED);
	assert_string_equal(o->message, "its output reports \"page_faults\", which the counters "
	                                "instrument measures too: the two would be one series; "
	                                "rename the one it prints");
	assert_null(series(res, "page_faults"));
	bg_results_free(res);

	b.command = "echo BENCHGUARD faults_seen 3 faults";
	assert_int_equal(bg_results_new(&res), 0);
	assert_int_equal(bg_runner_run(ctx, &b, &ro, res), 0);
	assert_int_equal(bg_results_find_outcome(res, "b")->status, BG_BENCH_OK);
	/* One execution: the program samples itself. */
	assert_int_equal(series(res, "page_faults")->n, 1);
	assert_int_equal(series(res, "faults_seen")->n, 1);
	bg_results_free(res);
}

/* The command sees where the counters' leader is, for its region. */
static void test_counters_env(void **state)
{
	static const char *const sw[] = { "page_faults" };
	static const bg_measure m[] = { { { BG_INSTR_COUNTERS }, 1 } };
	bg_ctx *ctx = *state;
	bg_benchmark b = bench("sh -c 'test -n \"$BENCHGUARD_COUNTERS_FD\" && "
	                       "test \"$BENCHGUARD_INSTRUMENT\" = time && "
	                       "test -e /proc/self/fd/$BENCHGUARD_COUNTERS_FD && "
	                       "readlink /proc/$$/fd/$BENCHGUARD_COUNTERS_FD | grep -q perf_event'",
	                       m, 1);
	bg_run_opts ro = BG_RUN_OPTS_INIT;
	bg_results *res = NULL;

	b.events = sw;
	b.nevents = 1;
	assert_int_equal(bg_results_new(&res), 0);
	assert_int_equal(bg_runner_run(ctx, &b, &ro, res), 0);
	if (bg_results_find_outcome(res, "b")->status != BG_BENCH_OK)
		fail_msg("%s", bg_results_find_outcome(res, "b")->message);
	bg_results_free(res);
}

/*
 * An instrument the machine lacks is skipped with its reason, as
 * "<bench>:<instrument>"; the benchmark's other instruments still measure;
 * alternatives fall back in order.
 */
static void test_skip_and_fallback(void **state)
{
	static const bg_measure with_counters[] = { { { BG_INSTR_TIME }, 1 },
		                                    { { BG_INSTR_COUNTERS }, 1 } };
	static const bg_measure fallback[] = { { { BG_INSTR_COUNTERS, BG_INSTR_SIMULATE }, 2 } };
	static const char *const none[] = { "cycles" };
	bg_ctx *ctx = *state;
	bg_benchmark b = bench("true", with_counters, 2);
	bg_run_opts ro = BG_RUN_OPTS_INIT;
	bg_results *res = NULL;
	bg_counters *c = NULL;
	const bg_outcome *o;
	int pmu = bg_counters__new(ctx, NULL, 0, 0, &c) == 0;

	bg_counters__free(c);
	bg_ctx_clear_error(ctx);
	assert_int_equal(bg_results_new(&res), 0);
	assert_int_equal(bg_runner_run(ctx, &b, &ro, res), 0);
	assert_int_equal(bg_results_find_outcome(res, "b")->status, BG_BENCH_OK);
	assert_non_null(series(res, "wall_time"));
	o = bg_results_find_outcome(res, "b:counters");
	if (pmu) {
		assert_null(o);
		assert_string_equal(series(res, "instructions")->instrument, "counters user");
	} else {
		assert_non_null(o);
		assert_int_equal(o->status, BG_BENCH_SKIPPED);
		assert_true(!strncmp(o->message, "counters: instructions: ", 24));
		assert_null(series(res, "instructions"));
	}
	bg_results_free(res);

	/* counters, else simulate. */
	if (!pmu && valgrind_here()) {
		b = bench("true", fallback, 1);
		b.events = none;
		b.nevents = 1;
		assert_int_equal(bg_results_new(&res), 0);
		assert_int_equal(bg_runner_run(ctx, &b, &ro, res), 0);
		assert_int_equal(bg_results_find_outcome(res, "b")->status, BG_BENCH_OK);
		assert_null(bg_results_find_outcome(res, "b:counters"));
		assert_null(series(res, "wall_time"));
		assert_true(!strncmp(series(res, "instructions")->instrument,
		                     "simulate callgrind valgrind-", 28));
		assert_string_equal(series(res, "instructions")->unit, "instr");
		assert_int_equal(series(res, "instructions")->n, 1);
		assert_true(series(res, "instructions")->values[0] > 1000);
		assert_non_null(series(res, "est_cycles"));
		assert_non_null(series(res, "l1_misses"));
		assert_non_null(series(res, "ll_misses"));
		bg_results_free(res);
	} else {
		print_message("skipped: the fallback needs no PMU and valgrind\n");
	}
}

static int setup(void **state)
{
	bg_ctx *ctx = NULL;

	assert_int_equal(bg_ctx_new(&ctx), 0);
	*state = ctx;
	return 0;
}

static int teardown(void **state)
{
	bg_ctx_free(*state);
	return 0;
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_measure_config),
		cmocka_unit_test(test_measure_errors),
		cmocka_unit_test(test_names_and_defaults),
		cmocka_unit_test(test_probe),
		cmocka_unit_test(test_counters_software),
		cmocka_unit_test(test_counters_env),
		cmocka_unit_test(test_counters_output_clash),
		cmocka_unit_test(test_skip_and_fallback),
	};

	return cmocka_run_group_tests(tests, setup, teardown);
}
