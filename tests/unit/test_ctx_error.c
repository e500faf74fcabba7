/*
 * test_ctx_error.c -- the context's message keeps benchguard.h's promise:
 * it stays valid until the next failing call on that context.  A call that
 * succeeds after recovering from a failure of its own inside (an instrument
 * this machine lacks, a benchmark's bad output recorded as its outcome, a
 * best-effort cache trim, a branch that is not there) must leave the
 * message an earlier failing call left for the caller byte for byte as it
 * was: neither cleared nor replaced by the recovered failure's words.
 */
#include <limits.h>
#include <math.h>
#include <sys/stat.h>
#include <unistd.h>

#include "unit.h"

static char scratch[] = "/tmp/bg-ctx-error-XXXXXX";
static char head[41];

#define sh(...) bg_test_sh(scratch, __VA_ARGS__)
#define path_of(rel) bg_test_path(scratch, rel)

static int setup(void **state)
{
	(void)state;
	if (!mkdtemp(scratch))
		return -1;
	setenv("HOME", scratch, 1);
	setenv("GIT_CONFIG_NOSYSTEM", "1", 1);
	setenv("GIT_AUTHOR_NAME", "A", 1);
	setenv("GIT_AUTHOR_EMAIL", "a@example.com", 1);
	setenv("GIT_COMMITTER_NAME", "A", 1);
	setenv("GIT_COMMITTER_EMAIL", "a@example.com", 1);
	sh("git init -q -b main repo && cd repo && echo x >f && git add f && "
	   "git commit -q -m one && mkdir empty");
	bg_test_capture(scratch, head, sizeof(head), "git -C repo rev-parse HEAD");
	return 0;
}

static int teardown(void **state)
{
	char cmd[PATH_MAX + 16];

	(void)state;
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", scratch);
	return system(cmd) == 0 ? 0 : -1;
}

/*
 * What a program holds after a failing public call: the message it may
 * still be reading when its next call succeeds.  Kept in `copy`.
 */
static void fail_first(bg_ctx *ctx, char *copy, size_t size)
{
	bg_config *cfg = NULL;

	assert_int_equal(bg_config_load(ctx, "/nonexistent/bg-ctx-error/benchguard.json", &cfg),
	                 BG_EINPUT);
	assert_null(cfg);
	snprintf(copy, size, "%s", bg_ctx_error(ctx));
	assert_non_null(strstr(copy, "cannot read"));
}

#define assert_message_kept(ctx, copy) assert_string_equal(bg_ctx_error(ctx), (copy))

/* PATH without valgrind (or anything else) while `body` runs. */
#define WITHOUT_PATH(body)                                                                         \
	do {                                                                                       \
		char *old_path = bg_strdup(getenv("PATH"));                                        \
		assert_non_null(old_path);                                                         \
		setenv("PATH", path_of("repo/empty"), 1);                                          \
		body;                                                                              \
		setenv("PATH", old_path, 1);                                                       \
		free(old_path);                                                                    \
	} while (0)

/* A benchmark whose output does not parse: its outcome, not the call's failure. */
static void test_runner_bad_output(void **state)
{
	bg_benchmark b = { .name = "garbled",
		           .command = "echo not-json",
		           .format = BG_FORMAT_GBENCH,
		           .samples = 1,
		           .timeout = 10 };
	bg_run_opts o = BG_RUN_OPTS_INIT;
	bg_results *res = NULL;
	const bg_outcome *oc;
	char before[1024];
	bg_ctx *ctx = NULL;

	(void)state;
	assert_int_equal(bg_ctx_new(&ctx), 0);
	assert_int_equal(bg_results_new(&res), 0);
	fail_first(ctx, before, sizeof(before));
	assert_int_equal(bg_runner_run(ctx, &b, &o, res), 0);
	oc = bg_results_find_outcome(res, "garbled");
	assert_non_null(oc);
	assert_int_equal(oc->status, BG_BENCH_FAILED);
	/* The parser's words are the outcome's, and only the outcome's. */
	assert_non_null(oc->message);
	assert_string_not_equal(oc->message, before);
	assert_message_kept(ctx, before);
	bg_results_free(res);
	bg_ctx_free(ctx);
}

/* An instrument this machine lacks: a skipped outcome with its reason. */
static void test_runner_instrument_missing(void **state)
{
	static const bg_measure m[] = { { { BG_INSTR_TIME }, 1 }, { { BG_INSTR_SIMULATE }, 1 } };
	bg_benchmark b = { .name = "sim",
		           .command = "/bin/true",
		           .format = BG_FORMAT_TIME,
		           .samples = 1,
		           .timeout = 10,
		           .measure = m,
		           .nmeasure = BG_ARRAY_SIZE(m) };
	bg_run_opts o = BG_RUN_OPTS_INIT;
	bg_results *res = NULL;
	const bg_outcome *oc;
	char before[1024];
	bg_ctx *ctx = NULL;
	int rc;

	(void)state;
	assert_int_equal(bg_ctx_new(&ctx), 0);
	assert_int_equal(bg_results_new(&res), 0);
	fail_first(ctx, before, sizeof(before));
	WITHOUT_PATH(rc = bg_runner_run(ctx, &b, &o, res));
	assert_int_equal(rc, 0);
	oc = bg_results_find_outcome(res, "sim:simulate");
	assert_non_null(oc);
	assert_int_equal(oc->status, BG_BENCH_SKIPPED);
	assert_non_null(strstr(oc->message, "valgrind not found"));
	assert_message_kept(ctx, before);
	bg_results_free(res);
	bg_ctx_free(ctx);
}

static void test_instruments_probe(void **state)
{
	bg_instrument_status st[BG_INSTR_COUNT];
	char before[1024];
	bg_ctx *ctx = NULL;
	int rc;

	(void)state;
	assert_int_equal(bg_ctx_new(&ctx), 0);
	fail_first(ctx, before, sizeof(before));
	WITHOUT_PATH(rc = bg_instruments_probe(ctx, NULL, 0, 0, st));
	assert_int_equal(rc, 0);
	assert_int_equal(st[BG_INSTR_SIMULATE].available, 0);
	assert_non_null(strstr(st[BG_INSTR_SIMULATE].detail, "valgrind not found"));
	assert_message_kept(ctx, before);
	bg_ctx_free(ctx);
}

/* A series that cannot be judged is skipped with its reason; the call succeeds. */
static void test_judge_unjudgeable(void **state)
{
	static const double base[] = { 100.0, 101.0, 99.5, 100.5, 99.0 }, bad[] = { 1.0, NAN };
	static const bg_thresholds th = { 0.01, 1, 0.02, 0.8, NULL, 0 };
	char before[1024];
	bg_judge_input in;
	bg_judgement j;
	bg_ctx *ctx = NULL;

	(void)state;
	assert_int_equal(bg_ctx_new(&ctx), 0);
	memset(&in, 0, sizeof(in));
	in.design = BG_DESIGN_ROLLING;
	in.base = base;
	in.n_base = BG_ARRAY_SIZE(base);
	in.cur = bad;
	in.n_cur = BG_ARRAY_SIZE(bad);
	fail_first(ctx, before, sizeof(before));
	assert_int_equal(bg_judge(ctx, &in, 1, &th, th.alpha, &j), 0);
	assert_int_equal(j.verdict, BG_VERDICT_SKIPPED);
	assert_non_null(strstr(j.reason, "cannot be judged"));
	assert_message_kept(ctx, before);
	bg_ctx_free(ctx);
}

/* No compiler to ask (here: no directory to ask it in) is no fact, not a failure. */
static void test_note_compiler(void **state)
{
	char before[1024];
	bg_machine *m = NULL;
	bg_ctx *ctx = NULL;

	(void)state;
	assert_int_equal(bg_ctx_new(&ctx), 0);
	assert_int_equal(bg_machine_new(&m), 0);
	fail_first(ctx, before, sizeof(before));
	bg_suite_note_compiler(ctx, m, "/nonexistent/bg-ctx-error");
	assert_null(bg_machine_get(m, "compiler"));
	assert_message_kept(ctx, before);
	bg_machine_free(m);
	bg_ctx_free(ctx);
}

/* A branch this clone does not have: the commit is on none we can name. */
static void test_lookup_on_missing_branch(void **state)
{
	char before[1024];
	bg_repo *repo = NULL;
	bg_commit c;
	bg_ctx *ctx = NULL;

	(void)state;
	assert_int_equal(bg_ctx_new(&ctx), 0);
	assert_int_equal(bg_repo_open(ctx, path_of("repo"), &repo), 0);
	fail_first(ctx, before, sizeof(before));
	assert_int_equal(bg_repo_lookup_on(ctx, repo, head, "no-such-branch", &c), 0);
	assert_string_equal(c.sha, head);
	assert_null(c.branch);
	assert_message_kept(ctx, before);
	bg_commit_clear(&c);
	bg_repo_free(repo);
	bg_ctx_free(ctx);
}

/* An entry whose lock cannot be opened (a directory in its place). */
static void block_lock(const char *cache, const char *sha)
{
	sh("mkdir -p '%s/%s.lock'", cache, sha);
}

/* gc: a half-written checkout it cannot lock is left to the next gc. */
static void test_gc_temp_unlockable(void **state)
{
	static const char sha[] = "1111111111111111111111111111111111111111";
	char before[1024], cache[PATH_MAX];
	bg_gc_stats gs;
	bg_ctx *ctx = NULL;

	(void)state;
	snprintf(cache, sizeof(cache), "%s/gc-temp", scratch);
	sh("mkdir -p '%s/.tmp-%s-abcdef'", cache, sha);
	block_lock(cache, sha);
	assert_int_equal(bg_ctx_new(&ctx), 0);
	fail_first(ctx, before, sizeof(before));
	assert_int_equal(bg_worktree_gc(ctx, cache, -1, UINT64_MAX, 0, &gs), 0);
	assert_message_kept(ctx, before);
	bg_ctx_free(ctx);
}

static void on_log(bg_log_level level, const char *msg, void *data)
{
	char *warned = data;

	if (level == BG_LOG_WARN && !warned[0])
		snprintf(warned, 1024, "%s", msg);
}

/* prepare: the commit is ready; the cache trim after it failing is a warning. */
static void test_prepare_trim_fails(void **state)
{
	static const char old[] = "2222222222222222222222222222222222222222";
	char before[1024], cache[PATH_MAX], warned[1024] = "";
	bg_worktree_opts wo;
	bg_worktree wt;
	bg_repo *repo = NULL;
	bg_ctx *ctx = NULL;

	(void)state;
	snprintf(cache, sizeof(cache), "%s/trim", scratch);
	/* The least recently used entry, first to go, and not removable. */
	sh("mkdir -p '%s/%s' && touch -d @1000000000 '%s/%s'", cache, old, cache, old);
	block_lock(cache, old);
	memset(&wo, 0, sizeof(wo));
	wo.cache_dir = cache;
	wo.machine = "m1";
	wo.max_bytes = 1;
	assert_int_equal(bg_ctx_new(&ctx), 0);
	bg_ctx_set_log(ctx, on_log, warned);
	assert_int_equal(bg_repo_open(ctx, path_of("repo"), &repo), 0);
	fail_first(ctx, before, sizeof(before));
	assert_int_equal(bg_worktree_prepare(ctx, repo, NULL, head, &wo, 0, &wt), 0);
	assert_int_equal(wt.checked_out, 1);
	/* The trim's failure is the warning's, with its reason. */
	assert_non_null(strstr(warned, "worktree cache not trimmed: "));
	assert_non_null(strstr(warned, ".lock"));
	assert_message_kept(ctx, before);
	bg_worktree_clear(&wt);
	bg_repo_free(repo);
	bg_ctx_free(ctx);
}

/*
 * Queues an alert for the one target in `alerts`, which an unset ${VAR}
 * disables: a warning, not a failure.
 */
static void queue_disabled(const char *alerts)
{
	char text[1024], before[1024], db[PATH_MAX];
	bg_check_result res;
	bg_alert_event ev;
	bg_alert_stats stats;
	bg_config *cfg = NULL;
	bg_store *store = NULL;
	bg_ctx *ctx = NULL;
	int rc;

	snprintf(text, sizeof(text),
	         "{\"benchmarks\": [{\"name\": \"a\", \"command\": \"true\"}],\n"
	         " \"alerts\": [%s]}",
	         alerts);
	snprintf(db, sizeof(db), "%s/alerts.db", scratch);
	assert_int_equal(bg_ctx_new(&ctx), 0);
	if (bg_config_parse(ctx, "t.json", text, strlen(text), &cfg) < 0)
		fail_msg("config: %s", bg_ctx_error(ctx));
	assert_int_equal(bg_store_open(ctx, db, &store), 0);
	memset(&res, 0, sizeof(res));
	memset(&ev, 0, sizeof(ev));
	memset(&stats, 0, sizeof(stats));
	ev.result = &res;
	ev.check_json = "{}";
	ev.sample = 1;
	fail_first(ctx, before, sizeof(before));
	rc = bg_alert_queue(ctx, store, cfg, &ev, &stats);
	if (rc < 0 && strstr(bg_ctx_error(ctx), "libcurl")) {
		bg_store_free(store);
		bg_config_free(cfg);
		bg_ctx_free(ctx);
		skip();
	}
	assert_int_equal(rc, 0);
	assert_int_equal(stats.disabled, 1);
	assert_int_equal(stats.queued, 0);
	assert_message_kept(ctx, before);
	bg_store_free(store);
	bg_config_free(cfg);
	bg_ctx_free(ctx);
}

/* A target's URL from an unset variable: the target is disabled. */
static void test_alert_unset_url(void **state)
{
	(void)state;
	unsetenv("BG_CTX_ERROR_UNSET_URL");
	queue_disabled("{\"kind\": \"webhook\", \"url\": \"${BG_CTX_ERROR_UNSET_URL}\"}");
}

/* A pull request's number from an unset variable: no new comment. */
static void test_alert_unset_pr(void **state)
{
	(void)state;
	unsetenv("BG_CTX_ERROR_UNSET_PR");
	setenv("BG_CTX_ERROR_TOKEN", "t0ken", 1);
	queue_disabled("{\"kind\": \"github\", \"repo\": \"octo/demo\", "
	               "\"token\": \"${BG_CTX_ERROR_TOKEN}\", "
	               "\"pr\": \"${BG_CTX_ERROR_UNSET_PR}\"}");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_runner_bad_output),
		cmocka_unit_test(test_runner_instrument_missing),
		cmocka_unit_test(test_instruments_probe),
		cmocka_unit_test(test_judge_unjudgeable),
		cmocka_unit_test(test_note_compiler),
		cmocka_unit_test(test_lookup_on_missing_branch),
		cmocka_unit_test(test_gc_temp_unlockable),
		cmocka_unit_test(test_prepare_trim_fails),
		cmocka_unit_test(test_alert_unset_url),
		cmocka_unit_test(test_alert_unset_pr),
	};
	return cmocka_run_group_tests(tests, setup, teardown);
}
