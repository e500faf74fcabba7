/*
 * test_api.c -- the public API as a program that links libbenchguard calls
 * it by mistake: every function declared in lib/benchguard.h, given NULL
 * where it takes a pointer (the context, an object, a string, an out
 * parameter), returns an error (or, for an accessor, NULL or 0) and does
 * not crash; every _free(NULL) and _clear(NULL) is a no-op; a name of an
 * enum value out of range is still a string.
 *
 * Each case runs in a child process, so that one crash names its function
 * and does not hide the others.
 */
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include "unit.h"

typedef struct {
	char dir[64];  /* a scratch directory */
	char repo[96]; /* a git repository with one commit */
	char db[128];  /* a SQLite store there */
	int trace;     /* the pipe the child writes each line it reaches to */
} fixture;

/* Tells the parent which line the child reached, so a crash names its call. */
static void reached(const fixture *f, int line)
{
	if (write(f->trace, &line, sizeof(line)) != (ssize_t)sizeof(line))
		_exit(3);
}

/* A case returns 0 when every call behaved, else the line that did not. */
#define ERR(call)                                                                                  \
	do {                                                                                       \
		reached(f, __LINE__);                                                              \
		if ((call) >= 0)                                                                   \
			return __LINE__;                                                           \
	} while (0)
#define CALL(call)                                                                                 \
	do {                                                                                       \
		reached(f, __LINE__);                                                              \
		call;                                                                              \
	} while (0)
#define EXPECT(cond)                                                                               \
	do {                                                                                       \
		reached(f, __LINE__);                                                              \
		if (!(cond))                                                                       \
			return __LINE__;                                                           \
	} while (0)

static const char CONFIG[] = "{\"benchmarks\": [{\"name\": \"b\", \"command\": \"true\"}]}";

static int case_ctx(const fixture *f)
{
	bg_ctx *ctx = NULL;

	ERR(bg_ctx_new(NULL));
	CALL(bg_ctx_free(NULL));
	EXPECT(bg_ctx_error(NULL) && !*bg_ctx_error(NULL));
	CALL(bg_ctx_clear_error(NULL));
	CALL(bg_ctx_set_log(NULL, NULL, NULL));
	CALL(bg_ctx_set_cancel(NULL, NULL));
	EXPECT(bg_ctx_cancelled(NULL) == 0);
	EXPECT(bg_ctx_new(&ctx) == 0);
	CALL(bg_ctx_set_log(ctx, NULL, NULL));
	CALL(bg_ctx_set_cancel(ctx, NULL));
	EXPECT(bg_ctx_cancelled(ctx) == 0);
	CALL(bg_ctx_free(ctx));
	return 0;
}

static int case_names(const fixture *f)
{
	bg_format fmt;
	bg_direction dir;
	bg_instrument in;
	bg_verdict v;
	bg_report_format rf;
	const char *canon;
	double scale;

	ERR(bg_format_from_name(NULL, &fmt));
	ERR(bg_format_from_name("time", NULL));
	EXPECT(bg_format_name((bg_format)999) != NULL);
	CALL((void)bg_direction_for_unit(NULL));
	EXPECT(bg_direction_name((bg_direction)999) != NULL);
	ERR(bg_direction_from_name(NULL, &dir));
	ERR(bg_direction_from_name("lower", NULL));
	ERR(bg_unit_canonical(NULL, &canon, &scale));
	ERR(bg_unit_canonical("ms", NULL, &scale));
	ERR(bg_unit_canonical("ms", &canon, NULL));
	EXPECT(bg_instrument_name((bg_instrument)999) != NULL);
	ERR(bg_instrument_from_name(NULL, &in));
	ERR(bg_instrument_from_name("time", NULL));
	EXPECT(bg_verdict_name((bg_verdict)999) != NULL);
	ERR(bg_verdict_from_name(NULL, &v));
	ERR(bg_verdict_from_name("unchanged", NULL));
	EXPECT(bg_confirm_status_name((bg_confirm_status)999) != NULL);
	EXPECT(bg_probe_verdict_name((bg_probe_verdict)999) != NULL);
	EXPECT(bg_probe_verdict_term((bg_probe_verdict)999, 1) != NULL);
	ERR(bg_report_format_from_name(NULL, &rf));
	ERR(bg_report_format_from_name("html", NULL));
	return 0;
}

static int case_instruments(const fixture *f)
{
	bg_ctx *ctx = NULL;

	EXPECT(bg_ctx_new(&ctx) == 0);
	ERR(bg_instruments_probe(ctx, NULL, 0, 0, NULL));
	ERR(bg_instruments_probe(NULL, NULL, 0, 0, NULL));
	CALL(bg_ctx_free(ctx));
	return 0;
}

static int case_config(const fixture *f)
{
	bg_ctx *ctx = NULL;
	bg_config *cfg = NULL;
	char *s = NULL;

	EXPECT(bg_ctx_new(&ctx) == 0);
	ERR(bg_config_load(ctx, NULL, &cfg));
	ERR(bg_config_load(ctx, "benchguard.json", NULL));
	ERR(bg_config_load(NULL, NULL, NULL));
	ERR(bg_config_parse(ctx, "x", NULL, 5, &cfg));
	ERR(bg_config_parse(ctx, "x", CONFIG, strlen(CONFIG), NULL));
	ERR(bg_config_parse(NULL, "x", NULL, 5, &cfg));
	CALL(bg_config_free(NULL));
	EXPECT(!bg_config_path(NULL) && !bg_config_project(NULL) && !bg_config_database(NULL));
	EXPECT(!bg_config_build(NULL) && !bg_config_baseline(NULL));
	EXPECT(!bg_config_thresholds(NULL) && !bg_config_confirm(NULL));
	EXPECT(bg_config_benchmark_count(NULL) == 0 && !bg_config_benchmark(NULL, 0));
	EXPECT(bg_config_alert_count(NULL) == 0 && !bg_config_alert(NULL, 0));
	ERR(bg_config_database_spec(ctx, NULL, ".", &s));
	ERR(bg_config_expand(ctx, NULL, &s));
	ERR(bg_config_expand(ctx, "x", NULL));
	ERR(bg_config_expand(NULL, NULL, NULL));
	CALL((void)bg_thresholds_min_change(NULL, NULL, NULL, NULL));
	EXPECT(bg_config_parse(ctx, "x", CONFIG, strlen(CONFIG), &cfg) == 0);
	ERR(bg_config_database_spec(ctx, cfg, ".", NULL));
	EXPECT(!bg_config_benchmark(cfg, 1) && !bg_config_benchmark(cfg, SIZE_MAX));
	EXPECT(!bg_config_alert(cfg, 0) && !bg_config_alert(cfg, SIZE_MAX));
	CALL((void)bg_thresholds_min_change(bg_config_thresholds(cfg), NULL, NULL, NULL));
	CALL(bg_config_free(cfg));
	CALL(bg_ctx_free(ctx));
	return 0;
}

static int case_stats(const fixture *f)
{
	static const double v[] = { 1, 2, 3, 4, 5, 6 };
	double a[6], g;
	size_t n = 6, removed;
	bg_ctx *ctx = NULL;
	bg_summary s;
	bg_test t;
	bg_stats_cache cache = { 0 };
	bg_calibration cal;
	bg_summary runs[2];

	memset(runs, 0, sizeof(runs));
	EXPECT(bg_ctx_new(&ctx) == 0);
	ERR(bg_stats_summarize(ctx, NULL, 3, &s));
	ERR(bg_stats_summarize(ctx, v, 3, NULL));
	ERR(bg_stats_summarize(NULL, NULL, 3, NULL));
	ERR(bg_stats_compare(ctx, NULL, 3, v, 1, BG_DIR_LOWER, 0.01, &t));
	ERR(bg_stats_compare(ctx, v, 3, NULL, 1, BG_DIR_LOWER, 0.01, &t));
	ERR(bg_stats_compare(ctx, v, 3, v, 1, BG_DIR_LOWER, 0.01, NULL));
	ERR(bg_stats_compare_cached(ctx, NULL, 3, v, 1, BG_DIR_LOWER, 0.01, &cache, &t));
	ERR(bg_stats_compare_cached(ctx, v, 3, v, 1, BG_DIR_LOWER, 0.01, &cache, NULL));
	ERR(bg_stats_paired_t(ctx, NULL, v, 3, BG_DIR_LOWER, 0.01, &t));
	ERR(bg_stats_paired_t(ctx, v, NULL, 3, BG_DIR_LOWER, 0.01, &t));
	ERR(bg_stats_paired_t(ctx, v, v, 3, BG_DIR_LOWER, 0.01, NULL));
	ERR(bg_stats_hedges_g(ctx, NULL, 3, v, 3, &g));
	ERR(bg_stats_hedges_g(ctx, v, 3, NULL, 3, &g));
	ERR(bg_stats_hedges_g(ctx, v, 3, v, 3, NULL));
	ERR(bg_stats_bh(ctx, NULL, 3, a));
	ERR(bg_stats_bh(ctx, v, 3, NULL));
	ERR(bg_stats_drop_outliers(ctx, NULL, &n, 3, &removed));
	ERR(bg_stats_drop_outliers(ctx, a, NULL, 3, &removed));
	ERR(bg_calibrate(ctx, NULL, 2, 0.01, 20, 0.05, &cal));
	ERR(bg_calibrate(ctx, runs, 2, 0.01, 20, 0.05, NULL));
	CALL((void)bg_stats_t_upper(1, 0));
	CALL((void)bg_stats_t_quantile(2, -1));
	CALL(bg_ctx_free(ctx));
	return 0;
}

static int case_results(const fixture *f)
{
	bg_ctx *ctx = NULL;
	bg_results *res = NULL;

	EXPECT(bg_ctx_new(&ctx) == 0);
	ERR(bg_results_new(NULL));
	CALL(bg_results_free(NULL));
	EXPECT(bg_results_series_count(NULL) == 0 && !bg_results_series(NULL, 0));
	EXPECT(bg_results_outcome_count(NULL) == 0 && !bg_results_outcome(NULL, 0));
	ERR(bg_results_add(ctx, NULL, "b", "m", "s", 1));
	EXPECT(bg_results_new(&res) == 0);
	EXPECT(!bg_results_series(res, 0) && !bg_results_series(res, SIZE_MAX));
	EXPECT(!bg_results_outcome(res, 0) && !bg_results_outcome(res, SIZE_MAX));
	ERR(bg_results_add(ctx, res, NULL, "m", "s", 1));
	ERR(bg_results_add(ctx, res, "b", NULL, "s", 1));
	ERR(bg_results_add(ctx, res, "b", "m", NULL, 1));
	ERR(bg_results_add(NULL, res, NULL, NULL, NULL, 1));
	ERR(bg_results_set_instrument(ctx, NULL, "b", "m", "x"));
	ERR(bg_results_set_instrument(ctx, res, NULL, "m", "x"));
	ERR(bg_results_set_instrument(ctx, res, "b", NULL, "x"));
	ERR(bg_results_set_direction(NULL, "b", "m", BG_DIR_LOWER));
	ERR(bg_results_set_direction(res, NULL, "m", BG_DIR_LOWER));
	ERR(bg_results_set_direction(res, "b", NULL, BG_DIR_LOWER));
	ERR(bg_results_set_outcome(ctx, NULL, "b", BG_BENCH_OK, NULL));
	ERR(bg_results_set_outcome(ctx, res, NULL, BG_BENCH_OK, NULL));
	EXPECT(!bg_results_find_outcome(NULL, "b") && !bg_results_find_outcome(res, NULL));
	CALL(bg_results_drop_benchmark(NULL, "b"));
	CALL(bg_results_drop_benchmark(res, NULL));
	ERR(bg_format_parse(ctx, BG_FORMAT_LINES, "x", "b", NULL, 5, res));
	ERR(bg_format_parse(ctx, BG_FORMAT_LINES, "x", "b", "BENCHGUARD a 1 s\n", 17, NULL));
	ERR(bg_format_parse_at(ctx, BG_FORMAT_GBENCH, "x", NULL, NULL, NULL, 5, res));
	ERR(bg_format_parse_at(NULL, BG_FORMAT_GBENCH, "x", NULL, NULL, "{}", 2, NULL));
	CALL(bg_results_free(res));
	CALL(bg_ctx_free(ctx));
	return 0;
}

static int case_runner(const fixture *f)
{
	bg_ctx *ctx = NULL;
	bg_exec_opts eo = { 0 };
	bg_exec_result er;
	bg_run_opts ro = BG_RUN_OPTS_INIT;
	bg_results *res = NULL;
	char *why = NULL;

	EXPECT(bg_ctx_new(&ctx) == 0);
	EXPECT(bg_results_new(&res) == 0);
	ERR(bg_exec(ctx, NULL, &eo, &er));
	ERR(bg_exec(ctx, "true", &eo, NULL));
	ERR(bg_exec(NULL, NULL, NULL, NULL));
	CALL(bg_exec_result_clear(NULL));
	CALL(free(bg_exec_describe(NULL, 0)));
	ERR(bg_runner_run(ctx, NULL, &ro, res));
	ERR(bg_runner_run(NULL, NULL, NULL, NULL));
	CALL((void)bg_runner_requirement_met(NULL, &why));
	free(why);
	CALL(bg_results_free(res));
	CALL(bg_ctx_free(ctx));
	return 0;
}

static int case_machine(const fixture *f)
{
	bg_ctx *ctx = NULL;
	bg_machine *m = NULL;
	bg_gpu gpu = { NULL, 1, 8, 0 };
	const char *k, *v;
	int vol;
	char *why = NULL;

	EXPECT(bg_ctx_new(&ctx) == 0);
	ERR(bg_machine_detect(ctx, "/", NULL));
	ERR(bg_machine_detect(ctx, NULL, NULL));
	ERR(bg_machine_new(NULL));
	CALL(bg_machine_free(NULL));
	ERR(bg_machine_set_fact(NULL, "k", "v", 0));
	ERR(bg_machine_add_gpu(NULL, &gpu));
	ERR(bg_machine_set_name(NULL, "x"));
	EXPECT(bg_machine_fingerprint(NULL) && bg_machine_fact_count(NULL) == 0);
	ERR(bg_machine_fact(NULL, 0, &k, &v, &vol));
	EXPECT(!bg_machine_get(NULL, "k"));
	ERR(bg_gpu_detect(ctx, NULL));
	ERR(bg_gpu_refresh(ctx, NULL));
	CALL((void)bg_gpu_throttling(NULL, &why));
	free(why);
	EXPECT(bg_machine_new(&m) == 0);
	ERR(bg_machine_set_fact(m, NULL, "v", 0));
	ERR(bg_machine_set_fact(m, "k", NULL, 0));
	ERR(bg_machine_add_gpu(m, NULL));
	ERR(bg_machine_add_gpu(m, &gpu));
	ERR(bg_machine_fact(m, 0, &k, &v, &vol));
	ERR(bg_machine_fact(m, SIZE_MAX, &k, &v, &vol));
	EXPECT(bg_machine_set_fact(m, "k", "v", 0) == 0);
	CALL((void)bg_machine_fact(m, 0, NULL, NULL, NULL));
	EXPECT(!bg_machine_get(m, NULL));
	CALL((void)bg_gpu_throttling(m, NULL));
	CALL(bg_machine_free(m));
	CALL(bg_ctx_free(ctx));
	return 0;
}

static int case_git(const fixture *f)
{
	bg_ctx *ctx = NULL;
	bg_repo *repo = NULL;
	bg_commit c;

	EXPECT(bg_ctx_new(&ctx) == 0);
	ERR(bg_repo_open(ctx, f->repo, NULL));
	CALL(bg_repo_free(NULL));
	EXPECT(!bg_repo_workdir(NULL));
	ERR(bg_repo_head(ctx, NULL, &c));
	ERR(bg_repo_lookup(ctx, NULL, "HEAD", &c));
	CALL(bg_commit_clear(NULL));
	EXPECT(bg_repo_open(ctx, f->repo, &repo) == 0);
	ERR(bg_repo_head(ctx, repo, NULL));
	ERR(bg_repo_lookup(ctx, repo, NULL, &c));
	ERR(bg_repo_lookup(ctx, repo, "HEAD", NULL));
	CALL(bg_repo_free(repo));
	CALL(bg_ctx_free(ctx));
	return 0;
}

static int case_store(const fixture *f)
{
	bg_ctx *ctx = NULL;
	bg_store *store = NULL;

	EXPECT(bg_ctx_new(&ctx) == 0);
	ERR(bg_store_open(ctx, NULL, &store));
	ERR(bg_store_open(ctx, f->db, NULL));
	ERR(bg_store_writable(ctx, NULL));
	CALL(bg_store_free(NULL));
	EXPECT(!bg_store_name(NULL) && !bg_store_backend(NULL));
	CALL(bg_ctx_free(ctx));
	return 0;
}

static int case_worktree(const fixture *f)
{
	bg_ctx *ctx = NULL;
	bg_repo *repo = NULL;
	bg_store *store = NULL;
	bg_commit head;
	bg_worktree wt;
	bg_worktree_opts wo = { 0 };
	bg_gc_stats gs;
	char cache[160];

	EXPECT(bg_ctx_new(&ctx) == 0);
	EXPECT(bg_repo_open(ctx, f->repo, &repo) == 0);
	EXPECT(bg_repo_head(ctx, repo, &head) == 0);
	EXPECT(bg_store_open(ctx, f->db, &store) == 0);
	snprintf(cache, sizeof(cache), "%s/cache", f->dir);
	wo.cache_dir = cache;
	wo.machine = "m";
	ERR(bg_worktree_prepare(ctx, NULL, store, head.sha, &wo, 0, &wt));
	ERR(bg_worktree_prepare(ctx, repo, store, NULL, &wo, 0, &wt));
	ERR(bg_worktree_prepare(ctx, repo, store, head.sha, NULL, 0, &wt));
	ERR(bg_worktree_prepare(ctx, repo, store, head.sha, &wo, 0, NULL));
	wo.cache_dir = NULL;
	ERR(bg_worktree_prepare(ctx, repo, store, head.sha, &wo, 0, &wt));
	CALL(bg_worktree_clear(NULL));
	ERR(bg_worktree_gc(ctx, NULL, -1, UINT64_MAX, 1, &gs));
	ERR(bg_worktree_gc(ctx, cache, -1, UINT64_MAX, 1, NULL));
	ERR(bg_worktree_gc_each(ctx, NULL, -1, UINT64_MAX, 1, NULL, NULL, &gs));
	CALL(bg_commit_clear(&head));
	CALL(bg_store_free(store));
	CALL(bg_repo_free(repo));
	CALL(bg_ctx_free(ctx));
	return 0;
}

static int case_judge(const fixture *f)
{
	static const double v[] = { 1, 2, 3 };
	bg_ctx *ctx = NULL;
	bg_thresholds th = { 0.01, 1, 0.02, 0.8, NULL, 0 };
	bg_judge_input in = { 0 };
	bg_judgement j;
	bg_rule rule = { 0 };
	char buf[128];
	int worse = 1, better = 1;
	bg_verdict verdict;
	bg_confirm_status status;

	EXPECT(bg_ctx_new(&ctx) == 0);
	in.base = v;
	in.n_base = 3;
	in.cur = v;
	in.n_cur = 1;
	ERR(bg_judge(ctx, NULL, 1, &th, 0.01, &j));
	ERR(bg_judge(ctx, &in, 1, NULL, 0.01, &j));
	ERR(bg_judge(ctx, &in, 1, &th, 0.01, NULL));
	in.cur = NULL;
	ERR(bg_judge(ctx, &in, 1, &th, 0.01, &j));
	in.cur = v;
	in.base = NULL;
	ERR(bg_judge(ctx, &in, 1, &th, 0.01, &j));
	ERR(bg_judge_rule(ctx, NULL, 3, 0.02, 0, &rule));
	ERR(bg_judge_rule(ctx, v, 3, 0.02, 0, NULL));
	CALL(bg_rule_text(buf, sizeof(buf), NULL));
	CALL(bg_rule_text(NULL, 0, &rule));
	CALL((void)bg_looks(4, 32, NULL));
	CALL((void)bg_change_oriented(0.1, (bg_direction)999));
	ERR(bg_sequential_decide(NULL, 1, 1, 8, &th, 0.01, &worse, &better, &verdict, &status));
	memset(&j, 0, sizeof(j));
	ERR(bg_sequential_decide(&j, 1, 1, 8, NULL, 0.01, &worse, &better, &verdict, &status));
	ERR(bg_sequential_decide(&j, 1, 1, 8, &th, 0.01, NULL, &better, &verdict, &status));
	ERR(bg_sequential_decide(&j, 1, 1, 8, &th, 0.01, &worse, NULL, &verdict, &status));
	ERR(bg_sequential_decide(&j, 1, 1, 8, &th, 0.01, &worse, &better, NULL, &status));
	ERR(bg_sequential_decide(&j, 1, 1, 8, &th, 0.01, &worse, &better, &verdict, NULL));
	CALL(bg_unit_format(NULL, 0, 1.0, "s"));
	/* A length with no buffer (a caller's sizeof of a pointer gone NULL). */
	CALL(bg_unit_format(NULL, 64, 1.0, "s"));
	CALL(bg_unit_format(NULL, 64, 1.0, "B"));
	CALL(bg_unit_format(NULL, 64, 1.0, "pt"));
	CALL(bg_rule_text(NULL, 64, &rule));
	CALL(bg_unit_format(buf, sizeof(buf), 1.0, NULL));
	CALL(bg_ctx_free(ctx));
	return 0;
}

static int case_check(const fixture *f)
{
	bg_ctx *ctx = NULL;
	bg_store *store = NULL;
	bg_check_opts co = { 0 };
	bg_check_result *res = NULL, empty;
	int64_t run = 1;
	char *out = NULL;

	EXPECT(bg_ctx_new(&ctx) == 0);
	EXPECT(bg_store_open(ctx, f->db, &store) == 0);
	co.runs = &run;
	co.nruns = 1;
	ERR(bg_check_run(ctx, NULL, NULL, &co, &res));
	ERR(bg_check_run(ctx, store, NULL, NULL, &res));
	ERR(bg_check_run(ctx, store, NULL, &co, NULL));
	co.runs = NULL;
	ERR(bg_check_run(ctx, store, NULL, &co, &res));
	CALL(bg_check_result_free(NULL));
	CALL((void)bg_check_exit_code(NULL));
	CALL(bg_check_sort(NULL));
	ERR(bg_check_json(ctx, NULL, &out));
	ERR(bg_check_markdown(ctx, NULL, &out));
	ERR(bg_check_markdown_max(ctx, NULL, 100, &out));
	ERR(bg_check_junit(ctx, NULL, &out));
	memset(&empty, 0, sizeof(empty));
	ERR(bg_check_json(ctx, &empty, NULL));
	ERR(bg_check_markdown(ctx, &empty, NULL));
	ERR(bg_check_markdown_max(ctx, &empty, 100, NULL));
	ERR(bg_check_junit(ctx, &empty, NULL));
	CALL(bg_store_free(store));
	CALL(bg_ctx_free(ctx));
	return 0;
}

static int case_suite(const fixture *f)
{
	bg_ctx *ctx = NULL;
	bg_store *store = NULL;
	bg_config *cfg = NULL;
	bg_machine *m = NULL;
	bg_suite_opts so = BG_SUITE_OPTS_INIT;
	bg_suite_output out;
	bg_build_result br;
	bg_commit commit;
	size_t n;

	EXPECT(bg_ctx_new(&ctx) == 0);
	EXPECT(bg_store_open(ctx, f->db, &store) == 0);
	EXPECT(bg_config_parse(ctx, "x", CONFIG, strlen(CONFIG), &cfg) == 0);
	EXPECT(bg_machine_new(&m) == 0);
	memset(&commit, 0, sizeof(commit));
	ERR(bg_suite_count(ctx, NULL, &n));
	ERR(bg_suite_count(ctx, &so, &n)); /* no config */
	so.config = cfg;
	ERR(bg_suite_count(ctx, &so, NULL));
	ERR(bg_suite_run(ctx, NULL, &so, &out));
	ERR(bg_suite_run(ctx, store, NULL, &out));
	ERR(bg_suite_run(ctx, store, &so, NULL));
	/* No commit, no machine. */
	ERR(bg_suite_run(ctx, store, &so, &out));
	CALL(bg_suite_output_clear(&out));
	so.commit = &commit;
	ERR(bg_suite_run(ctx, store, &so, &out));
	CALL(bg_suite_output_clear(&out));
	CALL(bg_suite_output_clear(NULL));
	ERR(bg_suite_build(ctx, NULL, f->dir, m, &br));
	ERR(bg_suite_build(ctx, cfg, f->dir, m, NULL));
	CALL(bg_build_result_clear(NULL));
	CALL(bg_suite_note_compiler(ctx, NULL, NULL));
	CALL(bg_suite_note_compiler(NULL, m, NULL));
	CALL(bg_machine_free(m));
	CALL(bg_config_free(cfg));
	CALL(bg_store_free(store));
	CALL(bg_ctx_free(ctx));
	return 0;
}

static int case_pairs_ci(const fixture *f)
{
	bg_ctx *ctx = NULL;
	bg_store *store = NULL;
	bg_pairs_opts po;
	bg_ci_opts cio;
	bg_ci_result cr;
	bg_check_result *res = NULL;
	int64_t *r = NULL, *c = NULL;
	size_t n;

	EXPECT(bg_ctx_new(&ctx) == 0);
	EXPECT(bg_store_open(ctx, f->db, &store) == 0);
	memset(&po, 0, sizeof(po));
	ERR(bg_pairs_run(ctx, NULL, &po, &res));
	ERR(bg_pairs_run(ctx, store, NULL, &res));
	ERR(bg_pairs_run(ctx, store, &po, NULL));
	ERR(bg_pairs_run(ctx, store, &po, &res)); /* no commits, no config */
	ERR(bg_pairs_make(ctx, store, NULL, 4, &r, &c, &n));
	ERR(bg_pairs_make(ctx, store, &po, 4, NULL, &c, &n));
	ERR(bg_pairs_make(ctx, store, &po, 4, &r, NULL, &n));
	ERR(bg_pairs_make(ctx, store, &po, 4, &r, &c, NULL));
	ERR(bg_pairs_make(ctx, store, &po, 4, &r, &c, &n));
	ERR(bg_pairs_stored(ctx, NULL, &po, &r, &c, &n));
	ERR(bg_pairs_stored(ctx, store, NULL, &r, &c, &n));
	ERR(bg_pairs_stored(ctx, store, &po, NULL, &c, &n));
	ERR(bg_pairs_stored(ctx, store, &po, &r, NULL, &n));
	ERR(bg_pairs_stored(ctx, store, &po, &r, &c, NULL));
	ERR(bg_pairs_stored(ctx, store, &po, &r, &c, &n)); /* no commits */
	memset(&cio, 0, sizeof(cio));
	ERR(bg_ci_run(ctx, NULL, &cr));
	ERR(bg_ci_run(ctx, &cio, NULL));
	ERR(bg_ci_run(ctx, &cio, &cr)); /* no repo, store, config, machine */
	ERR(bg_ci_probe(ctx, NULL));
	ERR(bg_ci_probe(ctx, &cio)); /* no repo, store, machine */
	CALL(bg_ci_result_clear(&cr));
	CALL(bg_ci_result_clear(NULL));
	CALL(bg_store_free(store));
	CALL(bg_ctx_free(ctx));
	return 0;
}

static int case_bisect(const fixture *f)
{
	static const double v[] = { 1, 1.1, 0.9, 1 };
	bg_ctx *ctx = NULL;
	bg_bisect_opts bo = { 0 };
	bg_bisect_result br;

	EXPECT(bg_ctx_new(&ctx) == 0);
	ERR(bg_bisect_search(ctx, NULL, &br));
	bo.n = 4;
	bo.good = v;
	bo.bad = v;
	bo.npairs = 4;
	bo.alpha = 0.01;
	ERR(bg_bisect_search(ctx, &bo, &br)); /* no measure callback */
	ERR(bg_bisect_search(ctx, &bo, NULL));
	bo.good = NULL;
	ERR(bg_bisect_search(ctx, &bo, &br));
	CALL(bg_bisect_result_clear(NULL));
	CALL((void)bg_bisect_estimate(0));
	CALL(bg_ctx_free(ctx));
	return 0;
}

static int case_baseline(const fixture *f)
{
	bg_ctx *ctx = NULL;
	bg_store *store = NULL;
	bg_baseline *b = NULL;
	bg_baseline_export_opts eo = { 0 };
	const bg_baseline *list[1] = { NULL };
	size_t imported = 0, present = 0, nruns;
	char *json = NULL;

	EXPECT(bg_ctx_new(&ctx) == 0);
	EXPECT(bg_store_open(ctx, f->db, &store) == 0);
	ERR(bg_baseline_export(ctx, NULL, NULL, &eo, &json, &nruns));
	ERR(bg_baseline_export(ctx, store, NULL, NULL, &json, &nruns));
	ERR(bg_baseline_export(ctx, store, NULL, &eo, &json, &nruns)); /* no repo */
	ERR(bg_baseline_parse(ctx, "x", NULL, 5, &b));
	ERR(bg_baseline_parse(ctx, "x", "{}", 2, NULL));
	CALL(bg_baseline_free(NULL));
	EXPECT(!bg_baseline_machine(NULL) && bg_baseline_run_count(NULL) == 0);
	ERR(bg_baseline_import(ctx, NULL, NULL, "m", 0, &imported, &present));
	ERR(bg_baseline_import(ctx, store, NULL, "m", 0, &imported, &present));
	ERR(bg_baseline_import_all(ctx, store, NULL, 1, "m", 0, &imported, &present));
	ERR(bg_baseline_import_all(ctx, store, list, 1, "m", 0, &imported, &present));
	CALL(bg_store_free(store));
	CALL(bg_ctx_free(ctx));
	return 0;
}

static int case_alert(const fixture *f)
{
	bg_ctx *ctx = NULL;
	bg_store *store = NULL;
	bg_config *cfg = NULL;
	bg_alert_event ev = { 0 };
	bg_alert_stats st;

	EXPECT(bg_ctx_new(&ctx) == 0);
	EXPECT(bg_store_open(ctx, f->db, &store) == 0);
	EXPECT(bg_config_parse(ctx, "x", CONFIG, strlen(CONFIG), &cfg) == 0);
	ERR(bg_alert_queue(ctx, NULL, cfg, &ev, &st));
	ERR(bg_alert_queue(ctx, store, NULL, &ev, &st));
	ERR(bg_alert_queue(ctx, store, cfg, NULL, &st));
	ERR(bg_alert_flush(ctx, NULL, cfg, NULL, NULL, &st));
	ERR(bg_alert_flush(ctx, store, NULL, NULL, NULL, &st));
	ERR(bg_alert_drop(ctx, NULL, 1, NULL, NULL));
	ERR(bg_alert_drop(NULL, NULL, 1, NULL, NULL));
	ERR(bg_alert_test(ctx, NULL, &ev, NULL, NULL, &st));
	ERR(bg_alert_test(ctx, cfg, NULL, NULL, NULL, &st));
	CALL(bg_config_free(cfg));
	CALL(bg_store_free(store));
	CALL(bg_ctx_free(ctx));
	return 0;
}

static int case_report(const fixture *f)
{
	static const double v[] = { 1, 2, 3, 4, 5 };
	bg_ctx *ctx = NULL;
	bg_store *store = NULL;
	bg_changepoints cp;
	bg_report_opts ro = { 0 };
	bg_report *r = NULL;
	bg_report_step *steps = NULL;
	size_t n, len;
	char *text = NULL;

	EXPECT(bg_ctx_new(&ctx) == 0);
	EXPECT(bg_store_open(ctx, f->db, &store) == 0);
	ERR(bg_changepoints_find(ctx, NULL, 5, NULL, &cp));
	ERR(bg_changepoints_find(ctx, v, 5, NULL, NULL));
	CALL(bg_changepoints_clear(NULL));
	ERR(bg_report_build(ctx, NULL, NULL, &ro, &r));
	ERR(bg_report_build(ctx, store, NULL, NULL, &r));
	ERR(bg_report_build(ctx, store, NULL, &ro, NULL));
	CALL(bg_report_free(NULL));
	EXPECT(bg_report_series_count(NULL) == 0 && bg_report_run_count(NULL) == 0);
	EXPECT(bg_report_commit_count(NULL) == 0 && bg_report_excluded_runs(NULL) == 0);
	EXPECT(bg_report_period_run_count(NULL) == 0);
	ERR(bg_report_steps(ctx, NULL, &steps, &n));
	CALL(bg_report_steps_free(NULL, 5));
	ERR(bg_report_render(ctx, NULL, BG_REPORT_HTML, &text, &len));
	ro.window = 20;
	ro.min_runs = 5;
	ro.thresholds.alpha = 0.01;
	ro.thresholds.min_change = 0.02;
	EXPECT(bg_report_build(ctx, store, NULL, &ro, &r) == 0);
	ERR(bg_report_steps(ctx, r, NULL, &n));
	ERR(bg_report_steps(ctx, r, &steps, NULL));
	ERR(bg_report_render(ctx, r, BG_REPORT_HTML, NULL, &len));
	ERR(bg_report_render(ctx, r, (bg_report_format)999, &text, &len));
	CALL(bg_report_free(r));
	CALL(bg_store_free(store));
	CALL(bg_ctx_free(ctx));
	return 0;
}

typedef struct {
	const char *name;
	int (*fn)(const fixture *f);
} api_case;

#define CASE(x)                                                                                    \
	{                                                                                          \
#x, case_##x                                                                       \
	}

static const api_case CASES[] = {
	CASE(ctx),      CASE(names),    CASE(instruments), CASE(config), CASE(stats),
	CASE(results),  CASE(runner),   CASE(machine),     CASE(git),    CASE(store),
	CASE(worktree), CASE(judge),    CASE(check),       CASE(suite),  CASE(pairs_ci),
	CASE(bisect),   CASE(baseline), CASE(alert),       CASE(report),
};

static void test_null_arguments(void **state)
{
	fixture f;
	size_t i, bad = 0;

	(void)state;
	snprintf(f.dir, sizeof(f.dir), "/tmp/bg_api.XXXXXX");
	assert_non_null(mkdtemp(f.dir));
	snprintf(f.repo, sizeof(f.repo), "%s/repo", f.dir);
	snprintf(f.db, sizeof(f.db), "%s/bg.db", f.dir);
	bg_test_sh(f.dir, "git init -q repo && cd repo && git -c user.name=t -c user.email=t@t "
	                  "commit -q --allow-empty -m one");
	for (i = 0; i < BG_ARRAY_SIZE(CASES); i++) {
		int status = 0, line;
		pid_t pid;
		int fds[2], last = 0, got;

		assert_int_equal(pipe(fds), 0);
		fflush(NULL);
		pid = fork();
		assert_true(pid >= 0);
		if (pid == 0) {
			/* cmocka's handlers would carry on with the next test in
			 * this child: a crash is to end it. */
			signal(SIGSEGV, SIG_DFL);
			signal(SIGBUS, SIG_DFL);
			signal(SIGFPE, SIG_DFL);
			signal(SIGILL, SIG_DFL);
			signal(SIGABRT, SIG_DFL);
			/* A call that never returns is as bad as a crash. */
			alarm(60);
			close(fds[0]);
			f.trace = fds[1];
			line = CASES[i].fn(&f);
			if (line)
				fprintf(stderr, "case %s: the call at line %d did not fail\n",
				        CASES[i].name, line);
			_exit(line ? 1 : 0);
		}
		close(fds[1]);
		while (read(fds[0], &got, sizeof(got)) == (ssize_t)sizeof(got))
			last = got;
		close(fds[0]);
		assert_int_equal(waitpid(pid, &status, 0), pid);
		if (WIFSIGNALED(status)) {
			fprintf(stderr, "case %s: crashed with signal %d at line %d\n",
			        CASES[i].name, WTERMSIG(status), last);
			bad++;
		} else if (WEXITSTATUS(status) != 0) {
			fprintf(stderr, "case %s: exit status %d\n", CASES[i].name,
			        WEXITSTATUS(status));
			bad++;
		}
	}
	bg_test_sh(f.dir, "rm -rf repo cache bg.db*");
	rmdir(f.dir);
	assert_int_equal(bad, 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_null_arguments),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
