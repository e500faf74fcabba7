/*
 * test_baseline.c -- baseline files at the library level: samples survive
 * export and import bit for bit (awkward doubles included), in their
 * shortest exact text; import is idempotent; a file of another machine, a
 * unit that contradicts the database and malformed files store nothing.
 */
#include <limits.h>
#include <math.h>
#include <time.h>
#include <unistd.h>

#include "unit.h"

static char scratch[] = "/tmp/bg-baseline-XXXXXX";

/* In the scratch directory (tests/unit/unit.h). */
#define sh(cmd) bg_test_sh(scratch, "%s", cmd)
#define path_of(rel) bg_test_path(scratch, rel)

static int setup(void **state)
{
	(void)state;
	if (!mkdtemp(scratch))
		return -1;
	setenv("HOME", scratch, 1);
	setenv("GIT_CONFIG_NOSYSTEM", "1", 1);
	setenv("GIT_AUTHOR_NAME", "Ada Lovelace", 1);
	setenv("GIT_AUTHOR_EMAIL", "ada@example.com", 1);
	setenv("GIT_COMMITTER_NAME", "Ada Lovelace", 1);
	setenv("GIT_COMMITTER_EMAIL", "ada@example.com", 1);
	/* Three commits on main: c1 <- c2 <- c3. */
	sh("git init -q -b main repo && cd repo && for i in 1 2 3; do echo $i >f && git add f && "
	   "git commit -q -m c$i; done");
	return 0;
}

static int teardown(void **state)
{
	char cmd[PATH_MAX + 16];

	(void)state;
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", scratch);
	return system(cmd) == 0 ? 0 : -1;
}

/* Doubles that a careless %g or %.15g would not bring back. */
static const double awkward[] = {
	0.1,
	1.0 / 3.0,
	0.30000000000000004,
	5e-324 /* smallest denormal */,
	1.7976931348623157e150,
	1e-300,
	123456789.12345679,
	0.0015,
	2.5e-7,
	1.0,
	6.02214076e23,
};

/* One run at `rev` on machine `name`: series b:t (s) with `awkward`, b:bw
 * (GB/s, measured by an instrument). */
static int64_t store_run(bg_ctx *ctx, bg_store *st, bg_repo *repo, const char *rev,
                         const char *name)
{
	bg_machine *m = NULL;
	bg_results *res = NULL;
	bg_commit c;
	const char *tags[] = { "pr=7", NULL };
	bg_run_info info;
	int64_t id = 0;
	size_t i;

	memset(&c, 0, sizeof(c));
	assert_int_equal(bg_repo_lookup(ctx, repo, rev, &c), 0);
	c.dirty = 0;
	assert_int_equal(bg_machine_new(&m), 0);
	assert_int_equal(bg_machine_set_name(m, name), 0);
	assert_int_equal(bg_results_new(&res), 0);
	for (i = 0; i < BG_ARRAY_SIZE(awkward); i++)
		assert_int_equal(bg_results_add(ctx, res, "b", "t", "s", awkward[i]), 0);
	assert_int_equal(bg_results_add(ctx, res, "b", "bw", "GB/s", 9.5), 0);
	assert_int_equal(bg_results_add(ctx, res, "b", "bw", "GB/s", 9.25), 0);
	/* Measured by an instrument: check compares it only with the same one. */
	assert_int_equal(bg_results_set_instrument(ctx, res, "b", "bw",
	                                           "simulate callgrind valgrind-3.19.0"),
	                 0);
	memset(&info, 0, sizeof(info));
	info.commit = &c;
	info.machine = m;
	info.source = "run";
	info.tags = tags;
	assert_int_equal(bg_store_run_begin(ctx, st, &info, &id), 0);
	assert_int_equal(bg_store_run_add(ctx, st, id, res), 0);
	assert_int_equal(bg_store_run_finish(ctx, st, id), 0);
	bg_results_free(res);
	bg_machine_free(m);
	bg_commit_clear(&c);
	return id;
}

static bg_store *open_store(bg_ctx *ctx, const char *rel)
{
	bg_store *st = NULL;

	unlink(path_of(rel));
	if (bg_store_open(ctx, path_of(rel), &st) != 0)
		fail_msg("bg_store_open: %s", bg_ctx_error(ctx));
	return st;
}

static char *export_all(bg_ctx *ctx, bg_store *st, bg_repo *repo, const char *machine,
                        size_t *nruns)
{
	bg_baseline_export_opts o = { machine, "main", 5, NULL };
	char *json = NULL;

	if (bg_baseline_export(ctx, st, repo, &o, &json, nruns) != 0)
		fail_msg("export: %s", bg_ctx_error(ctx));
	return json;
}

static void test_round_trip_exact(void **state)
{
	bg_ctx *ctx = NULL;
	bg_repo *repo = NULL;
	bg_store *a, *b;
	bg_baseline *bl = NULL;
	char *json, *again;
	size_t n = 0, imported, present, i, k;
	int64_t id;
	double *v = NULL;
	char **tags = NULL;

	(void)state;
	assert_int_equal(bg_ctx_new(&ctx), 0);
	assert_int_equal(bg_repo_open(ctx, path_of("repo"), &repo), 0);
	a = open_store(ctx, "a.db");
	store_run(ctx, a, repo, "HEAD~2", "m1");
	store_run(ctx, a, repo, "HEAD~1", "m1");
	store_run(ctx, a, repo, "HEAD", "m1");
	store_run(ctx, a, repo, "HEAD", "other"); /* another machine: not exported */
	json = export_all(ctx, a, repo, "m1", &n);
	assert_int_equal(n, 3);
	/* Shortest exact text, not json-c's %.17g. */
	assert_non_null(strstr(json, "      0.1,\n"));
	assert_non_null(strstr(json, "      0.0015,\n"));
	assert_null(strstr(json, "0.10000000000000001"));
	assert_non_null(strstr(json, "\"tags\": {\n        \"pr\": \"7\"\n      }"));
	assert_non_null(strstr(json, "\"direction\": \"higher\",\n          \"instrument\": "
	                             "\"simulate callgrind valgrind-3.19.0\",\n"));
	/* Stable: the same database exports the same bytes. */
	again = export_all(ctx, a, repo, "m1", &n);
	assert_string_equal(json, again);
	free(again);

	assert_int_equal(bg_baseline_parse(ctx, "x.json", json, strlen(json), &bl), 0);
	assert_string_equal(bg_baseline_machine(bl), "m1");
	assert_int_equal(bg_baseline_run_count(bl), 3);
	b = open_store(ctx, "b.db");
	assert_int_equal(bg_baseline_import(ctx, b, bl, "m1", 0, &imported, &present), 0);
	assert_int_equal(imported, 3);
	assert_int_equal(present, 0);
	for (id = 1; id <= 3; id++) {
		bg_run_row ra, rb;

		assert_int_equal(bg_store_run_get(ctx, a, id, &ra), 0);
		assert_int_equal(bg_store_run_get(ctx, b, id, &rb), 0);
		assert_string_equal(ra.uid, rb.uid);
		assert_string_equal(ra.sha, rb.sha);
		assert_string_equal(rb.source, "baseline");
		assert_string_equal(rb.machine, "m1");
		assert_true(rb.complete && !rb.dirty);
		assert_int_equal(ra.started_at, rb.started_at);
		assert_int_equal(ra.author_time, rb.author_time);
		assert_string_equal(ra.subject, rb.subject);
		bg_run_row_clear(&ra);
		bg_run_row_clear(&rb);
		assert_int_equal(bg_store_samples(ctx, b, id, "b", "t", &v, &k), 0);
		assert_int_equal(k, BG_ARRAY_SIZE(awkward));
		/* Bit for bit (SQLite itself keeps no -0.0, so none is tried). */
		for (i = 0; i < k; i++)
			assert_memory_equal(&v[i], &awkward[i], sizeof(double));
		free(v);
		{
			bg_run_series *rows = NULL;
			size_t nrows = 0, j;

			/* The instrument comes back with its series, and only there. */
			assert_int_equal(bg_store_run_series(ctx, b, id, &rows, &nrows), 0);
			assert_int_equal(nrows, 2);
			for (j = 0; j < nrows; j++)
				if (!strcmp(rows[j].metric, "bw"))
					assert_string_equal(rows[j].instrument,
					                    "simulate callgrind valgrind-3.19.0");
				else
					assert_null(rows[j].instrument);
			bg_run_series_free(rows, nrows);
		}
		assert_int_equal(bg_store_run_tags(ctx, b, id, &tags), 0);
		assert_string_equal(tags[0], "pr=7");
		assert_null(tags[1]);
		bg_strv_free(tags);
	}
	/* Re-exported from the imported copy: the same runs and samples. */
	again = export_all(ctx, b, repo, "m1", &n);
	assert_int_equal(n, 3);
	{
		/* Only "source" differs ("run" there, "baseline" here). */
		bg_buf x = BG_BUF_INIT;
		const char *p;

		for (p = json; *p; p++) {
			if (!strncmp(p, "\"source\": \"run\"", 15)) {
				bg_buf_puts(&x, "\"source\": \"baseline\"");
				p += 14;
			} else {
				bg_buf_put(&x, p, 1);
			}
		}
		assert_string_equal(x.ptr, again);
		bg_buf_clear(&x);
	}
	free(again);

	/* Importing again stores nothing. */
	assert_int_equal(bg_baseline_import(ctx, b, bl, "m1", 0, &imported, &present), 0);
	assert_int_equal(imported, 0);
	assert_int_equal(present, 3);
	assert_int_equal(bg_store_latest_run(ctx, b, NULL, &id), 0);
	assert_int_equal(id, 3);

	bg_baseline_free(bl);
	bg_store_free(a);
	bg_store_free(b);
	bg_repo_free(repo);
	free(json);
	bg_ctx_free(ctx);
}

static void test_other_machine_and_units(void **state)
{
	bg_ctx *ctx = NULL;
	bg_repo *repo = NULL;
	bg_store *a, *c;
	bg_baseline *bl = NULL;
	bg_results *res = NULL;
	bg_machine *m = NULL;
	bg_commit head;
	bg_run_info info;
	char *json;
	size_t n = 0, imported, present;
	int64_t id;

	(void)state;
	assert_int_equal(bg_ctx_new(&ctx), 0);
	assert_int_equal(bg_repo_open(ctx, path_of("repo"), &repo), 0);
	a = open_store(ctx, "a2.db");
	store_run(ctx, a, repo, "HEAD~1", "m1");
	json = export_all(ctx, a, repo, "m1", &n);
	assert_int_equal(bg_baseline_parse(ctx, "x.json", json, strlen(json), &bl), 0);

	c = open_store(ctx, "c.db");
	assert_int_equal(bg_baseline_import(ctx, c, bl, "m2", 0, &imported, &present), BG_EINPUT);
	assert_non_null(strstr(bg_ctx_error(ctx), "machine m1"));
	assert_non_null(strstr(bg_ctx_error(ctx), "m2"));
	assert_int_equal(bg_store_latest_run(ctx, c, NULL, &id), BG_ENOTFOUND);
	assert_int_equal(bg_baseline_import(ctx, c, bl, "m2", 1, &imported, &present), 0);
	assert_int_equal(imported, 1);
	assert_int_equal(bg_store_latest_run(ctx, c, "m2", &id), 0);
	bg_store_free(c);

	/* A database that holds b:t in bytes: the file's seconds are refused, and
	 * none of its runs is stored. */
	c = open_store(ctx, "c2.db");
	memset(&head, 0, sizeof(head));
	assert_int_equal(bg_repo_head(ctx, repo, &head), 0);
	assert_int_equal(bg_machine_new(&m), 0);
	assert_int_equal(bg_machine_set_name(m, "m1"), 0);
	assert_int_equal(bg_results_new(&res), 0);
	assert_int_equal(bg_results_add(ctx, res, "b", "t", "B", 4096.0), 0);
	memset(&info, 0, sizeof(info));
	info.commit = &head;
	info.machine = m;
	assert_int_equal(bg_store_run_begin(ctx, c, &info, &id), 0);
	assert_int_equal(bg_store_run_add(ctx, c, id, res), 0);
	assert_int_equal(bg_store_run_finish(ctx, c, id), 0);
	assert_int_equal(bg_baseline_import(ctx, c, bl, "m1", 0, &imported, &present), BG_EINPUT);
	assert_non_null(strstr(bg_ctx_error(ctx),
	                       "series \"b:t\" is stored in unit \"B\", but this "
	                       "run measured it in \"s\"; nothing imported"));
	assert_int_equal(imported, 0);
	assert_int_equal(bg_store_latest_run(ctx, c, NULL, &id), 0);
	assert_int_equal(id, 1); /* only the run made here */

	bg_results_free(res);
	bg_machine_free(m);
	bg_commit_clear(&head);
	bg_baseline_free(bl);
	bg_store_free(a);
	bg_store_free(c);
	bg_repo_free(repo);
	free(json);
	bg_ctx_free(ctx);
}

/* A minimal valid file with `run` spliced in as its only run. */
static char *file_with_run(const char *run)
{
	bg_buf b = BG_BUF_INIT;

	bg_buf_printf(&b,
	              "{\"format\": \"benchguard-baseline\", \"version\": 1, \"machine\": \"m1\",\n"
	              " \"runs\": [%s]}\n",
	              run);
	return bg_buf_detach(&b);
}

#define GOOD_COMMIT                                                                                \
	"\"commit\": {\"sha\": \"0123456789abcdef0123456789abcdef01234567\", \"author_time\": 1}"
#define GOOD_UID "\"uid\": \"0123456789abcdef0123456789abcdef\""

static void test_parse_errors(void **state)
{
	static const struct {
		const char *text; /* a whole file, or a run when it starts with '{"uid' */
		const char *want;
	} cases[] = {
		{ "{\"format\": \"benchguard-baseline\",\n\"version\": 1,,\n}",
		  "x.json:2: not valid JSON" },
		{ "{\"format\": \"benchguard-baseline\"} {}", "x.json:1: not valid JSON" },
		{ "[]", "x.json: expected a JSON object, got an array" },
		{ "{\"version\": 1}", "x.json: format: missing" },
		{ "{\"format\": \"benchguard-baseline\", \"version\": 2, \"machine\": \"m\", "
		  "\"runs\": []}",
		  "x.json: version: version 2 is not supported" },
		{ "{\"format\": \"benchguard-baseline\", \"version\": 1, \"machine\": \"a b\", "
		  "\"runs\": []}",
		  "x.json: machine: \"a b\" is not a machine name" },
		{ "{\"format\": \"benchguard-baseline\", \"version\": 1, \"machine\": \"m\", "
		  "\"runs\": {}}",
		  "x.json: runs: expected an array, got an object" },
		{ "{\"format\": \"benchguard-baseline\", \"version\": 1, \"machine\": \"m\", "
		  "\"runs\": [],"
		  " \"facts\": {\"cpu\": 4}}",
		  "x.json: facts.cpu: expected a string, got a number" },
		{ "{" GOOD_COMMIT ", \"started_at\": 5, \"series\": []}", "runs[0].uid: missing" },
		{ "{" GOOD_UID
		  ", \"commit\": {\"sha\": \"abc\"}, \"started_at\": 5, \"series\": []}",
		  "runs[0].commit.sha: \"abc\" is not a full commit SHA" },
		{ "{" GOOD_UID ", " GOOD_COMMIT ", \"started_at\": 0, \"series\": []}",
		  "runs[0].started_at: must be at least 1 (got 0)" },
		{ "{" GOOD_UID ", " GOOD_COMMIT ", \"started_at\": 5, \"tags\": {\"a=b\": \"c\"},"
		  " \"series\": []}",
		  "runs[0].tags.a=b: a key must be non-empty and hold no '='" },
		{ "{" GOOD_UID ", " GOOD_COMMIT
		  ", \"started_at\": 5, \"series\": [{\"benchmark\": \"b\","
		  " \"metric\": \"t\", \"unit\": \"s\", \"direction\": \"lower\", \"samples\": [1, "
		  "true]}]}",
		  "runs[0].series[0].samples[1]: expected a number, got a boolean" },
		{ "{" GOOD_UID ", " GOOD_COMMIT
		  ", \"started_at\": 5, \"series\": [{\"benchmark\": \"b\","
		  " \"metric\": \"t\", \"unit\": \"s\", \"direction\": \"lower\", \"samples\": "
		  "[1]},"
		  " {\"benchmark\": \"b\", \"metric\": \"t\", \"unit\": \"s\", \"direction\": "
		  "\"lower\","
		  " \"samples\": [2]}]}",
		  "runs[0].series[1]: b:t appears twice in this run" },
		{ "{" GOOD_UID ", " GOOD_COMMIT
		  ", \"started_at\": 5, \"series\": [{\"benchmark\": \"b\","
		  " \"metric\": \"t\", \"unit\": \"s\", \"direction\": \"lower\", \"samples\": "
		  "[1]},"
		  " {\"benchmark\": \"b\", \"metric\": \"u\", \"unit\": \"\", \"direction\": "
		  "\"lower\","
		  " \"samples\": [2]}]}",
		  "runs[0].series[1].unit: is empty" },
		/* Whole numbers past 64 bits: json-c would clamp them to the
		 * nearest bound, storing 1.8e19 for 1.2e29 (or a time of
		 * INT64_MAX), so they are refused rather than misread. */
		{ "{" GOOD_UID ", " GOOD_COMMIT
		  ", \"started_at\": 5, \"series\": [{\"benchmark\": \"b\","
		  " \"metric\": \"t\", \"unit\": \"s\", \"direction\": \"lower\", \"samples\": "
		  "[1, 123456789012345678901234567890]}]}",
		  "runs[0].series[0].samples[1]: whole number out of range" },
		{ "{" GOOD_UID ", " GOOD_COMMIT
		  ", \"started_at\": 5, \"series\": [{\"benchmark\": \"b\","
		  " \"metric\": \"t\", \"unit\": \"s\", \"direction\": \"lower\", \"samples\": "
		  "[-123456789012345678901234567890]}]}",
		  "runs[0].series[0].samples[0]: whole number out of range" },
		{ "{" GOOD_UID ", " GOOD_COMMIT ", \"started_at\": 99999999999999999999,"
		  " \"series\": []}",
		  "runs[0].started_at: whole number out of range" },
		{ "{" GOOD_UID ", \"commit\": {\"sha\": "
		  "\"0123456789abcdef0123456789abcdef01234567\", \"author_time\": "
		  "-99999999999999999999}, \"started_at\": 5, \"series\": []}",
		  "runs[0].commit.author_time: whole number out of range" },
		/* In milliseconds, or from a clock gone wrong: the run would stay
		 * the latest for good, and be what check judges. */
		{ "{" GOOD_UID ", " GOOD_COMMIT ", \"started_at\": 1700000000000, \"series\": []}",
		  "runs[0].started_at: 1700000000000 is more than a day past this machine's clock "
		  "(" },
		{ "{" GOOD_UID ", \"commit\": {\"sha\": "
		  "\"0123456789abcdef0123456789abcdef01234567\", \"author_time\": "
		  "253402300800}, \"started_at\": 5, \"series\": []}",
		  "runs[0].commit.author_time: must be at most 253402300799 (got 253402300800)" },
		{ "{" GOOD_UID ", \"commit\": {\"sha\": "
		  "\"0123456789abcdef0123456789abcdef01234567\", \"author_time\": "
		  "-62135596801}, \"started_at\": 5, \"series\": []}",
		  "runs[0].commit.author_time: must be at least -62135596800 (got -62135596801)" },
	};
	bg_ctx *ctx = NULL;
	bg_baseline *b = NULL;
	size_t i;

	(void)state;
	assert_int_equal(bg_ctx_new(&ctx), 0);
	for (i = 0; i < BG_ARRAY_SIZE(cases); i++) {
		char *text = !strncmp(cases[i].text, "{\"uid", 5) ||
		                             !strncmp(cases[i].text, "{\"commit", 8)
		                     ? file_with_run(cases[i].text)
		                     : strdup(cases[i].text);
		int rc = bg_baseline_parse(ctx, "x.json", text, strlen(text), &b);

		if (rc != BG_EINPUT || !strstr(bg_ctx_error(ctx), cases[i].want))
			fail_msg("case %zu: rc %d, message \"%s\", want \"%s\"", i, rc,
			         bg_ctx_error(ctx), cases[i].want);
		assert_null(b);
		free(text);
	}

	/* Across runs a series keeps one unit ("ms" is seconds, so that one is fine). */
	{
		char *text = file_with_run(
		        "{" GOOD_UID ", " GOOD_COMMIT
		        ", \"started_at\": 5, \"series\": [{\"benchmark\":"
		        " \"b\", \"metric\": \"t\", \"unit\": \"s\", \"direction\": \"lower\","
		        " \"samples\": [1]}]}, {\"uid\": "
		        "\"1123456789abcdef0123456789abcdef\", " GOOD_COMMIT
		        ", \"started_at\": 5, \"series\": [{\"benchmark\": \"b\", \"metric\": "
		        "\"t\","
		        " \"unit\": \"ms\", \"direction\": \"lower\", \"samples\": [1]}]}, "
		        "{\"uid\":"
		        " \"2123456789abcdef0123456789abcdef\", " GOOD_COMMIT ", \"started_at\": 5,"
		        " \"series\": [{\"benchmark\": \"b\", \"metric\": \"t\", \"unit\": \"B\","
		        " \"direction\": \"lower\", \"samples\": [1]}]}");

		assert_int_equal(bg_baseline_parse(ctx, "x.json", text, strlen(text), &b),
		                 BG_EINPUT);
		assert_non_null(
		        strstr(bg_ctx_error(ctx), "runs[2].series[0]: unit \"B\" of b:t differs"));
		free(text);
	}
	/* Inside 64 bits whole numbers are fine, unsigned ones past INT64_MAX
	 * too (in a unit of the file's own, where a value may be negative). */
	{
		char *text = file_with_run(
		        "{" GOOD_UID ", " GOOD_COMMIT
		        ", \"started_at\": 5, \"series\": [{\"benchmark\":"
		        " \"b\", \"metric\": \"t\", \"unit\": \"pt\", \"direction\": \"lower\","
		        " \"samples\": [10000000000000000000, -9223372036854775807]}]}");

		assert_int_equal(bg_baseline_parse(ctx, "x.json", text, strlen(text), &b), 0);
		bg_baseline_free(b);
		b = NULL;
		free(text);
	}
	/* A time is never negative: -1 ms is refused, naming the series. */
	{
		char *text = file_with_run(
		        "{" GOOD_UID ", " GOOD_COMMIT
		        ", \"started_at\": 5, \"series\": [{\"benchmark\":"
		        " \"b\", \"metric\": \"t\", \"unit\": \"ms\", \"direction\": \"lower\","
		        " \"samples\": [2, -1]}]}");

		assert_int_equal(bg_baseline_parse(ctx, "x.json", text, strlen(text), &b),
		                 BG_EINPUT);
		if (!strstr(bg_ctx_error(ctx), "b:t: value -0.001 s is negative, not a time"))
			fail_msg("%s", bg_ctx_error(ctx));
		free(text);
	}
	bg_ctx_free(ctx);
}

/*
 * What a baseline file may not bring in: strings that would be stored and
 * printed with control characters (facts, names, units, tags), a NUL in git's text,
 * and JSON nested past 64 levels.  Each is an input error naming the path,
 * and the message itself is printable.
 */
static void test_hostile_input(void **state)
{
#define SERIES(b, m, u)                                                                            \
	"{" GOOD_UID ", " GOOD_COMMIT ", \"started_at\": 5, \"series\": [{\"benchmark\": " b       \
	", \"metric\": " m ", \"unit\": " u ", \"direction\": \"lower\", \"samples\": [1]}]}"
	static const struct {
		const char *text, *want;
	} cases[] = {
		{ "{\"format\": \"benchguard-baseline\", \"version\": 1, \"machine\": \"m\", "
		  "\"runs\": [], \"facts\": {\"cpu_model\": \"Intel\\nfake\"}}",
		  "x.json: facts.cpu_model: \"Intel\\x0afake\" has a control character" },
		{ "{\"format\": \"benchguard-baseline\", \"version\": 1, \"machine\": \"m\", "
		  "\"runs\": [], \"facts\": {\"a=b\": \"c\"}}",
		  "x.json: facts.a=b: a key must be non-empty and hold no '='" },
		{ "{\"format\": \"benchguard-baseline\", \"version\": 1, \"machine\": \"m\", "
		  "\"runs\": [], \"facts\": {\"k\\u001b\": \"c\"}}",
		  "x.json: facts.k\\x1b: key \"k\\x1b\" has a control character" },
		{ SERIES("\"b\\u0000x\"", "\"t\"", "\"s\""),
		  "x.json: runs[0].series[0].benchmark: \"b\\x00x\" has a control character" },
		{ SERIES("\"b\"", "\"t\\u009b\"", "\"s\""),
		  "x.json: runs[0].series[0].metric: \"t\\u{009b}\" has a control character" },
		{ SERIES("\"b\"", "\"t\"", "\"s\\u001b[31m\""),
		  "x.json: runs[0].series[0].unit: \"s\\x1b[31m\" has a control character" },
		/* A subject, an author and a branch are git's: what git takes is
		 * kept (see test_git_text), what the store never holds is not. */
		{ "{" GOOD_UID
		  ", \"commit\": {\"sha\": \"0123456789abcdef0123456789abcdef01234567\", "
		  "\"subject\": \"fix \\u202e txt\\u0000.exe\"}, \"started_at\": 5, \"series\": "
		  "[]}",
		  "x.json: runs[0].commit.subject: \"fix \\u{202e} txt\\x00.exe\" holds a NUL "
		  "character" },
		{ "{" GOOD_UID
		  ", \"commit\": {\"sha\": \"0123456789abcdef0123456789abcdef01234567\", "
		  "\"author\": \"A \\u0000\"}, \"started_at\": 5, \"series\": []}",
		  "x.json: runs[0].commit.author: \"A \\x00\" holds a NUL character" },
		{ "{" GOOD_UID ", " GOOD_COMMIT
		  ", \"branch\": \"main\\r\\u0000\", \"started_at\": 5, "
		  "\"series\": []}",
		  "x.json: runs[0].branch: \"main\\x0d\\x00\" holds a NUL character" },
		{ "{" GOOD_UID ", " GOOD_COMMIT ", \"branch\": \"main\xff\", \"started_at\": 5, "
		  "\"series\": []}",
		  "x.json:2: not valid JSON: invalid utf-8 string" },
		{ "{" GOOD_UID ", " GOOD_COMMIT ", \"started_at\": 5, \"tags\": {\"k\": "
		  "\"v\\n::error::x\"}, \"series\": []}",
		  "x.json: runs[0].tags.k: \"v\\x0a::error::x\" has a control character" },
		/* Quoted anywhere else, the file's text is escaped too. */
		{ "{\"uid\": \"\\u001b]0;x\\u0007\", " GOOD_COMMIT ", \"started_at\": 5, "
		  "\"series\": []}",
		  "x.json: runs[0].uid: \"\\x1b]0;x\\x07\" is not 32 lowercase hex digits" },
	};
#undef SERIES
	bg_ctx *ctx = NULL;
	bg_baseline *b = NULL;
	bg_buf deep = BG_BUF_INIT;
	size_t i;

	(void)state;
	assert_int_equal(bg_ctx_new(&ctx), 0);
	for (i = 0; i < BG_ARRAY_SIZE(cases); i++) {
		char *text = cases[i].text[0] == '{' && cases[i].text[1] == '"' &&
		                             (cases[i].text[2] == 'u' || cases[i].text[2] == 'c')
		                     ? file_with_run(cases[i].text)
		                     : strdup(cases[i].text);
		const unsigned char *m;
		int rc = bg_baseline_parse(ctx, "x.json", text, strlen(text), &b);

		if (rc != BG_EINPUT || strcmp(bg_ctx_error(ctx), cases[i].want) != 0)
			fail_msg("case %zu: rc %d, message \"%s\", want \"%s\"", i, rc,
			         bg_ctx_error(ctx), cases[i].want);
		for (m = (const unsigned char *)bg_ctx_error(ctx); *m; m++)
			assert_true(*m >= 0x20 && *m != 0x7f);
		assert_null(b);
		free(text);
	}

	/* 50,000 '[': json-c stops at 64 levels and says so, with the line. */
	assert_int_equal(bg_buf_puts(&deep, "{\n\"runs\": "), 0);
	for (i = 0; i < 50000; i++)
		assert_int_equal(bg_buf_puts(&deep, "["), 0);
	assert_int_equal(bg_baseline_parse(ctx, "x.json", deep.ptr, deep.len, &b), BG_EINPUT);
	assert_string_equal(bg_ctx_error(ctx), "x.json:2: nesting deeper than 64 levels");
	assert_null(b);
	bg_buf_clear(&deep);
	bg_ctx_free(ctx);
}

/*
 * What git takes in a subject, an author's name and a branch name (a TAB,
 * an ESC, U+200F, U+202E, a CR), the store keeps and export writes: the
 * import reads it back, or one such commit would spoil every baseline file.
 */
static void test_git_text(void **state)
{
	static const char text[] =
	        "{\"format\": \"benchguard-baseline\", \"version\": 1, \"machine\": \"m1\", "
	        "\"branch\": \"rel\\u202eesa\", \"runs\": [{" GOOD_UID ", \"commit\": "
	        "{\"sha\": \"0123456789abcdef0123456789abcdef01234567\", \"author_time\": 1, "
	        "\"author\": \"Ann\\u001b[31m \\u200fRed <a@b>\", "
	        "\"subject\": \"fix:\\tparser\\u200f \\u001b[2J \\u202e\\r\"}, "
	        "\"branch\": \"rel\\u202eesa\", \"started_at\": 5, \"series\": []}]}";
	bg_ctx *ctx = NULL;
	bg_baseline *b = NULL;

	(void)state;
	assert_int_equal(bg_ctx_new(&ctx), 0);
	if (bg_baseline_parse(ctx, "x.json", text, strlen(text), &b) != 0)
		fail_msg("refused: %s", bg_ctx_error(ctx));
	assert_int_equal(bg_baseline_run_count(b), 1);
	bg_baseline_free(b);
	bg_ctx_free(ctx);
}

/* CPU seconds bg_baseline_parse takes over `text`, which must parse. */
static double parse_seconds(bg_ctx *ctx, const bg_buf *text)
{
	bg_baseline *b = NULL;
	clock_t start = clock();
	double s;

	assert_int_equal(bg_baseline_parse(ctx, "x.json", text->ptr, text->len, &b), 0);
	s = (double)(clock() - start) / CLOCKS_PER_SEC;
	bg_baseline_free(b);
	return s;
}

/*
 * A large file is checked in time that grows with its size, not with its
 * square: 200,000 runs (each uid compared with every earlier one took
 * minutes), then one run of 200,000 series (each unit looked up among all
 * the series before it).  Both files are a fraction of what a baseline
 * file may be (256 MiB); the bound is far above what a loaded machine or
 * a sanitizer build needs, and far below the quadratic time.
 */
static void test_large_files(void **state)
{
	bg_ctx *ctx = NULL;
	bg_buf text = BG_BUF_INIT;
	double runs, series;
	size_t i;

	(void)state;
	assert_int_equal(bg_ctx_new(&ctx), 0);
	assert_int_equal(bg_buf_puts(&text, "{\"format\": \"benchguard-baseline\", \"version\": 1,"
	                                    " \"machine\": \"m\", \"runs\": ["),
	                 0);
	for (i = 0; i < 200000; i++)
		assert_int_equal(bg_buf_printf(&text,
		                               "%s{\"uid\": \"%032zx\", " GOOD_COMMIT
		                               ", \"started_at\": 5, \"series\": []}",
		                               i ? ", " : "", i),
		                 0);
	assert_int_equal(bg_buf_puts(&text, "]}"), 0);
	runs = parse_seconds(ctx, &text);

	text.len = 0;
	assert_int_equal(bg_buf_puts(&text, "{\"format\": \"benchguard-baseline\", \"version\": 1,"
	                                    " \"machine\": \"m\", \"runs\": [{" GOOD_UID
	                                    ", " GOOD_COMMIT ", \"started_at\": 5, \"series\": ["),
	                 0);
	for (i = 0; i < 200000; i++)
		assert_int_equal(bg_buf_printf(&text,
		                               "%s{\"benchmark\": \"b%zu\", \"metric\": \"t\","
		                               " \"unit\": \"s\", \"direction\": \"lower\","
		                               " \"samples\": [1]}",
		                               i ? ", " : "", i),
		                 0);
	assert_int_equal(bg_buf_puts(&text, "]}]}"), 0);
	series = parse_seconds(ctx, &text);
	if (runs > 20.0 || series > 20.0)
		fail_msg("parsing took %.1f s (200,000 runs) and %.1f s (200,000 series)", runs,
		         series);
	bg_buf_clear(&text);
	bg_ctx_free(ctx);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_round_trip_exact),
		cmocka_unit_test(test_other_machine_and_units),
		cmocka_unit_test(test_parse_errors),
		cmocka_unit_test(test_hostile_input),
		cmocka_unit_test(test_git_text),
		cmocka_unit_test(test_large_files),
	};
	return cmocka_run_group_tests_name("baseline", tests, setup, teardown);
}
