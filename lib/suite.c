/*
 * suite.c -- running a suite: its build, then its benchmarks, run after run.
 *
 * Each run is stored as it goes: begun (incomplete) before its first
 * benchmark, each benchmark's samples added as soon as it finishes, and
 * marked complete at the end.  A process killed half-way therefore leaves
 * the earlier runs whole and one run visibly unfinished, never a partial
 * run that a baseline could take for a whole one.  What run, ci, compare,
 * bisect and the library's users share; progress goes to the caller's
 * event callback, warnings to the context's log.
 */
#include <regex.h>
#include <stdlib.h>
#include <string.h>

#include "internal.h"

void bg_suite_output_clear(bg_suite_output *out)
{
	size_t k;

	if (!out)
		return;
	for (k = 0; out->res && k < out->nruns; k++)
		bg_results_free(out->res[k]);
	free(out->res);
	free(out->ids);
	memset(out, 0, sizeof(*out));
}

void bg_build_result_clear(bg_build_result *b)
{
	if (!b)
		return;
	free(b->why);
	free(b->out_tail);
	free(b->err_tail);
	memset(b, 0, sizeof(*b));
}

/* The selection: --filter and the exact names a caller asks for. */
typedef struct {
	regex_t re;
	int have_re;
	char *const *only;
} selection;

static int select_init(bg_ctx *ctx, const bg_suite_opts *o, selection *sel)
{
	memset(sel, 0, sizeof(*sel));
	sel->only = o->only;
	if (o->filter) {
		int e = regcomp(&sel->re, o->filter, REG_EXTENDED | REG_NOSUB);

		if (e) {
			char why[256];

			regerror(e, &sel->re, why, sizeof(why));
			return bg_error_set(ctx, BG_EINPUT,
			                    "--filter: bad regular expression \"%s\": %s",
			                    o->filter, why);
		}
		sel->have_re = 1;
	}
	return 0;
}

static void select_clear(selection *sel)
{
	if (sel->have_re)
		regfree(&sel->re);
	sel->have_re = 0;
}

static int selected(const selection *sel, const char *name)
{
	char *const *p;

	if (sel->have_re && regexec(&sel->re, name, 0, NULL, 0))
		return 0;
	if (!sel->only)
		return 1;
	for (p = sel->only; *p; p++)
		if (!strcmp(*p, name))
			return 1;
	return 0;
}

int bg_suite_count(bg_ctx *ctx, const bg_suite_opts *opts, size_t *n)
{
	selection sel;
	size_t i;
	int error;

	BG_NEED(ctx, opts);
	BG_NEED(ctx, n);

	*n = 0;
	if (!opts->config)
		return bg_error_set(ctx, BG_EINPUT, "no suite to run");
	if ((error = select_init(ctx, opts, &sel)) < 0)
		return error;
	for (i = 0; i < bg_config_benchmark_count(opts->config); i++)
		*n += selected(&sel, bg_config_benchmark(opts->config, i)->name);
	select_clear(&sel);
	return 0;
}

int bg_suite__selects(bg_ctx *ctx, const bg_suite_opts *opts, const char *const *names, size_t n,
                      unsigned char *keep)
{
	selection sel;
	size_t i;
	int error;

	if ((error = select_init(ctx, opts, &sel)) < 0)
		return error;
	for (i = 0; i < n; i++)
		keep[i] = (unsigned char)selected(&sel, names[i]);
	select_clear(&sel);
	return 0;
}

void bg_suite_note_compiler(bg_ctx *ctx, bg_machine *machine, const char *cwd)
{
	bg_saved_error saved;
	bg_exec_opts o;
	bg_exec_result r;
	size_t n;

	if (!machine)
		return;

	/* The compiler explains a step in a chart without splitting baselines:
	 * a volatile fact of the run, asked only when there is a build. */
	memset(&o, 0, sizeof(o));
	memset(&r, 0, sizeof(r));
	o.cwd = cwd;
	o.timeout = 10;
	o.capture_stdout = 1;
	o.out_limit = 4096;
	/* No compiler to ask is no fact, not a failure: the message stays. */
	bg_ctx__save_error(ctx, &saved);
	if (bg_exec(ctx, "${CC:-cc} --version", &o, &r) == 0 && r.exited && r.exit_status == 0 &&
	    r.out_len) {
		n = strcspn(r.out, "\n");
		r.out[n] = '\0';
		bg_machine_set_fact(machine, "compiler", r.out, 1);
	}
	bg_ctx__restore_error(ctx, &saved);
	bg_exec_result_clear(&r);
}

/* A tail cut from the end of a log starts at a character, not inside one:
 * the continuation bytes of the character cut in two are left out. */
static const char *char_start(const char *s)
{
	return s + bg_text__char_next(s, 0, strlen(s));
}

int bg_suite_build(bg_ctx *ctx, const bg_config *cfg, const char *cwd, bg_machine *machine,
                   bg_build_result *out)
{
	const char *cmd;
	bg_exec_opts o;
	bg_exec_result r;
	int error;

	BG_NEED(ctx, cfg);
	BG_NEED(ctx, out);
	cmd = bg_config_build(cfg);
	memset(out, 0, sizeof(*out));
	if (!cmd)
		return 0;
	if (machine)
		bg_suite_note_compiler(ctx, machine, cwd);
	memset(&o, 0, sizeof(o));
	memset(&r, 0, sizeof(r));
	o.cwd = cwd;
	o.timeout = BG_BUILD_TIMEOUT;
	o.capture_stdout = 1;
	o.out_limit = 1 << 20;
	bg_log(ctx, BG_LOG_INFO, "build: %s", cmd);
	/* A failure shows the end of stdout, where the error is, however much
	 * the build printed before it. */
	if ((error = bg_exec__tail(ctx, cmd, &o, &r)) < 0)
		return error;
	out->ran = 1;
	out->seconds = r.wall;
	out->ok = r.exited && r.exit_status == 0;
	if (!out->ok) {
		out->why = bg_exec_describe(&r, o.timeout);
		if (r.out_len)
			out->out_tail = bg_strdup(
			        char_start(r.out_len > 2000 ? r.out + r.out_len - 2000 : r.out));
		if (r.err_len)
			out->err_tail = bg_strdup(char_start(r.err_tail));
		if (!out->why || (r.out_len && !out->out_tail) || (r.err_len && !out->err_tail)) {
			bg_exec_result_clear(&r);
			bg_build_result_clear(out);
			return bg_error_oom(ctx);
		}
	}
	bg_exec_result_clear(&r);
	return 0;
}

/* Moves one benchmark's series and outcome into the run's set. */
static int merge(bg_ctx *ctx, bg_results *into, const bg_results *from)
{
	size_t i, j;
	int error;

	for (i = 0; i < bg_results_series_count(from); i++) {
		const bg_series *s = bg_results_series(from, i);

		for (j = 0; j < s->n; j++)
			if ((error = bg_results_add(ctx, into, s->benchmark, s->metric, s->unit,
			                            s->values[j])) < 0)
				return error;
		bg_results_set_direction(into, s->benchmark, s->metric, s->direction);
		if (s->instrument && s->n &&
		    (error = bg_results_set_instrument(ctx, into, s->benchmark, s->metric,
		                                       s->instrument)) < 0)
			return error;
	}
	for (i = 0; i < bg_results_outcome_count(from); i++) {
		const bg_outcome *o = bg_results_outcome(from, i);

		if ((error = bg_results_set_outcome(ctx, into, o->benchmark, o->status,
		                                    o->message)) < 0)
			return error;
	}
	return 0;
}

/*
 * The GPUs' clocks, temperature and throttle reasons are read again once a
 * run is over, while a GPU that ran hot still shows it, and stored with the
 * run in place of those read before it.
 */
static int gpu_state_after(bg_ctx *ctx, bg_store *store, bg_machine *machine, int64_t run_id)
{
	char *why = NULL;
	int error;

	if (!bg_machine_get(machine, "gpu0_name"))
		return 0;
	if ((error = bg_gpu_refresh(ctx, machine)) < 0 ||
	    (error = bg_store_run_set_facts(ctx, store, run_id, machine)) < 0)
		return error;
	if (bg_gpu_throttling(machine, &why) == 1)
		bg_log(ctx, BG_LOG_WARN,
		       "run %lld: GPU throttling: %s; its GPU timings may be slow",
		       (long long)run_id, why);
	free(why);
	return 0;
}

/*
 * Stores with the benchmark's outcome what measured it, so that stored
 * pairs are reused (bg_pairs_stored) only while the benchmark still is
 * what it was: a bisect run again after its command, samples, timeout or
 * the suite's build command changed measures anew.
 */
static int describe(bg_ctx *ctx, const bg_benchmark *b, const bg_suite_opts *opts, bg_results *one)
{
	char definition[65];
	int error;

	if (!bg_results_find_outcome(one, b->name))
		return 0;
	if ((error = bg_config__definition(opts->config, b, opts, definition)) < 0)
		return bg_error_set(ctx, error, "cannot describe benchmark \"%s\"", b->name);
	return bg_results__set_definition(ctx, one, b->name, definition);
}

/* 1 when a series of `one` has metric `m`. */
static int has_metric(const bg_results *one, const char *m)
{
	size_t i, n = bg_results_series_count(one);

	for (i = 0; i < n; i++)
		if (!strcmp(bg_results_series(one, i)->metric, m))
			return 1;
	return 0;
}

/*
 * Stores one benchmark's results in the open run.  Values the store
 * refuses (a series stored in another unit: a benchmark that now prints
 * bytes where it printed seconds) fail that benchmark, with the store's
 * sentence, and the run goes on: the others' measurements, and the run
 * itself, are not lost for one benchmark's output.  The store rolled the
 * refused results back; the failure is stored in their place.
 */
static int store_benchmark(bg_ctx *ctx, bg_store *store, int64_t run_id, const bg_benchmark *b,
                           bg_results *one)
{
	bg_saved_error saved;
	char *why;
	int error;

	bg_ctx__save_error(ctx, &saved);
	if ((error = bg_store_run_add(ctx, store, run_id, one)) != BG_EINPUT)
		return error;
	if (!(why = strdup(bg_ctx_error(ctx))))
		return bg_error_oom(ctx);
	bg_ctx__restore_error(ctx, &saved);
	bg_results_drop_benchmark(one, b->name);
	error = bg_results_set_outcome(ctx, one, b->name, BG_BENCH_FAILED, why);
	free(why);
	return error < 0 ? error : bg_store_run_add(ctx, store, run_id, one);
}

/*
 * A benchmark's `metrics` entry that none of its series has (a misspelt
 * "wal_time") overrides nothing, and nothing else would say so: warned
 * once, after a run that measured the benchmark.
 */
static void warn_unmatched(bg_ctx *ctx, const bg_config *cfg, const bg_benchmark *b,
                           const bg_results *one)
{
	const bg_thresholds *th = bg_config_thresholds(cfg);
	const bg_outcome *oc = bg_results_find_outcome(one, b->name);
	size_t i;

	if (!oc || oc->status != BG_BENCH_OK)
		return;
	for (i = 0; i < b->nmetrics + th->nmetrics; i++) {
		const char *m;

		if (i < b->nmetrics) {
			m = b->metrics[i].metric;
		} else {
			const bg_metric_threshold *t = &th->metrics[i - b->nmetrics];
			size_t k;

			if (!t->benchmark || strcmp(t->benchmark, b->name) != 0)
				continue;
			m = t->metric;
			/* One named with a direction and a min_change: said once. */
			for (k = 0; k < b->nmetrics && strcmp(b->metrics[k].metric, m) != 0; k++)
				;
			if (k < b->nmetrics)
				continue;
		}
		if (!has_metric(one, m))
			bg_log(ctx, BG_LOG_WARN,
			       "%s:%d: benchmark \"%s\": metrics.%s overrides nothing: none of its "
			       "series has that metric (misspelt, or measured by an instrument "
			       "that did not run here)",
			       bg_config_path(cfg), b->line, b->name, m);
	}
}

typedef struct {
	const bg_suite_opts *o;
	bg_suite_event ev;
} progress_state;

static void on_progress(const char *benchmark, int done, int total, void *data)
{
	progress_state *p = data;

	(void)benchmark;
	p->ev.kind = BG_SUITE_PROGRESS;
	p->ev.done = done;
	p->ev.of = total;
	p->o->event(&p->ev, p->o->data);
}

static void emit(const bg_suite_opts *o, bg_suite_event *ev, bg_suite_event_kind kind)
{
	if (!o->event)
		return;
	ev->kind = kind;
	o->event(ev, o->data);
}

int bg_suite_run(bg_ctx *ctx, bg_store *store, const bg_suite_opts *opts, bg_suite_output *out)
{
	const bg_config *cfg;
	bg_instrument_status inst[BG_INSTR_COUNT];
	selection sel;
	size_t i, total = 0;
	int k, idx, error, simulated = 0;

	BG_NEED(ctx, store);
	BG_NEED(ctx, opts);
	BG_NEED(ctx, out);
	cfg = opts->config;
	memset(out, 0, sizeof(*out));
	if (!cfg || !opts->commit || !opts->machine || opts->runs < 1)
		return bg_error_set(ctx, BG_EINPUT,
		                    "running a suite needs its config, a commit, a machine and "
		                    "runs >= 1");
	if ((error = select_init(ctx, opts, &sel)) < 0)
		return error;
	for (i = 0; i < bg_config_benchmark_count(cfg); i++) {
		const bg_benchmark *b = bg_config_benchmark(cfg, i);
		size_t m, a;

		if (!selected(&sel, b->name))
			continue;
		total++;
		for (m = 0; m < b->nmeasure; m++)
			for (a = 0; a < b->measure[m].nalt; a++)
				simulated |= b->measure[m].alt[a] == BG_INSTR_SIMULATE;
	}
	/* Once for the suite, not per benchmark: it runs `valgrind --version`. */
	if (simulated && (error = bg_instruments_probe(ctx, NULL, 0, 0, inst)) < 0)
		goto cleanup;
	if (!total) {
		error = opts->filter
		                ? bg_error_set(ctx, BG_EINPUT,
		                               "--filter \"%s\" matches no benchmark", opts->filter)
		                : bg_error_set(ctx, BG_EINPUT, "no benchmark to run");
		goto cleanup;
	}
	out->ids = calloc((size_t)opts->runs, sizeof(*out->ids));
	out->res = calloc((size_t)opts->runs, sizeof(*out->res));
	if (!out->ids || !out->res) {
		error = bg_error_oom(ctx);
		goto cleanup;
	}
	for (k = 0; k < opts->runs; k++) {
		bg_run_info info;
		bg_run_opts ro = BG_RUN_OPTS_INIT;
		progress_state ps;

		memset(&info, 0, sizeof(info));
		info.commit = opts->commit;
		info.machine = opts->machine;
		info.source = "run";
		info.tags = opts->tags;
		info.paired = opts->paired;
		memset(&ps, 0, sizeof(ps));
		ps.o = opts;
		ps.ev.run = k + 1;
		ps.ev.runs = opts->runs;
		ps.ev.total = (int)total;
		ro.cwd = opts->cwd;
		ro.samples = opts->samples;
		ro.warmup = opts->warmup;
		ro.timeout = opts->timeout;
		ro.instruments = simulated ? inst : NULL;
		if (opts->event) {
			ro.progress = on_progress;
			ro.progress_data = &ps;
		}
		/* Before the run is begun: one interrupted here would be stored
		 * empty, an incomplete run with nothing measured. */
		if (bg_ctx_cancelled(ctx)) {
			error = bg_error_set(ctx, BG_ERROR, "interrupted");
			goto cleanup;
		}
		if ((error = bg_results_new(&out->res[k])) < 0)
			goto cleanup;
		out->nruns = (size_t)k + 1;
		if ((error = bg_store_run_begin(ctx, store, &info, &out->ids[k])) < 0)
			goto cleanup;
		ps.ev.run_id = out->ids[k];
		emit(opts, &ps.ev, BG_SUITE_RUN_BEGIN);
		idx = 0;
		for (i = 0; i < bg_config_benchmark_count(cfg); i++) {
			const bg_benchmark *b = bg_config_benchmark(cfg, i);
			bg_results *one = NULL;
			const bg_outcome *oc;

			if (!selected(&sel, b->name))
				continue;
			if (bg_ctx_cancelled(ctx)) {
				error = bg_error_set(ctx, BG_ERROR,
				                     "interrupted: run %lld left incomplete",
				                     (long long)out->ids[k]);
				goto cleanup;
			}
			ps.ev.index = ++idx;
			ps.ev.benchmark = b;
			if ((error = bg_results_new(&one)) < 0)
				goto cleanup;
			error = bg_runner_run(ctx, b, &ro, one);
			if (error == 0 && k == 0)
				warn_unmatched(ctx, cfg, b, one);
			if (error == 0)
				error = describe(ctx, b, opts, one);
			if (error == 0)
				error = store_benchmark(ctx, store, out->ids[k], b, one);
			if (error == 0)
				error = merge(ctx, out->res[k], one);
			if (error == 0) {
				ps.ev.results = one;
				emit(opts, &ps.ev, BG_SUITE_BENCH_DONE);
				ps.ev.results = NULL;
				oc = bg_results_find_outcome(one, b->name);
				out->failed += oc && oc->status == BG_BENCH_FAILED;
			}
			bg_results_free(one);
			if (error < 0)
				goto cleanup;
		}
		if ((error = gpu_state_after(ctx, store, opts->machine, out->ids[k])) < 0 ||
		    (error = bg_store_run_finish(ctx, store, out->ids[k])) < 0)
			goto cleanup;
		ps.ev.benchmark = NULL;
		emit(opts, &ps.ev, BG_SUITE_RUN_DONE);
	}
cleanup:
	select_clear(&sel);
	return error;
}
