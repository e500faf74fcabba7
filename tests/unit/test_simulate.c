/*
 * test_simulate.c -- the `simulate` instrument's Valgrind side
 * (lib/simulate.c): the probe, the words put before the command, reading
 * callgrind's files (one process, a shell and a program with a region,
 * several dumps, several regions), files that are garbage, cut short, huge
 * or not files at all, the estimated cycles, and the region of interest
 * for real: tests/fixtures/simulate/region.c run under Valgrind, and
 * benchguard_region.h's perf side on a software counter of this process.
 *
 * The fixtures under tests/fixtures/simulate/ are callgrind 3.19 output
 * cut down to a header, a few cost lines and the totals; their summaries
 * in the hand-made cases are chosen so that each sum says which parts
 * were counted.
 */
#include <errno.h>
#include <fcntl.h>
#include <linux/perf_event.h>
#include <math.h>
#include <stdint.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "unit.h"

#include "benchguard_region.h"

/* Overhead of the region around the work in region.c, beyond its 2 N
 * instructions: the end of bg_region_begin after the dump, the call of
 * bg_region_end up to the toggle; 29 here with gcc -O2 (29 for the
 * harness's, 60 for two regions). */
#define REGION_SLACK 100

/* Counts are whole numbers held in doubles: compared as such. */
static void count_eq(double got, long long want)
{
	assert_int_equal((long long)got, want);
	assert_true(got >= (double)want && got <= (double)want);
}
#define COUNT_EQ(a, b) count_eq((double)(a), (long long)(b))

static int setup(void **state)
{
	bg_ctx *ctx = NULL;

	if (bg_ctx_new(&ctx) < 0)
		return -1;
	*state = ctx;
	return 0;
}

static int teardown(void **state)
{
	bg_ctx_free(*state);
	return 0;
}

static const char *fixture(const char *name)
{
	static char buf[1024];

	snprintf(buf, sizeof(buf), "%s/simulate/%s", bg_test_fixtures(), name);
	return buf;
}

static void make_tmpdir(char dir[64])
{
	strcpy(dir, "/tmp/bg-simulate-XXXXXX");
	assert_non_null(mkdtemp(dir));
}

static void write_file(const char *dir, const char *name, const char *text)
{
	char path[256];
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	f = fopen(path, "w");
	assert_non_null(f);
	fputs(text, f);
	assert_int_equal(fclose(f), 0);
}

/* A well-formed file for process pid, part `part`, with this trigger and summary. */
static char *cg_text(int pid, int part, const char *trigger, const char *summary)
{
	return bg_printf("# callgrind format\nversion: 1\ncreator: callgrind-3.19.0\npid: %d\n"
	                 "cmd:  ./x\npart: %d\n\n\ndesc: Trigger: %s\n\npositions: line\n"
	                 "events: Ir Dr Dw I1mr D1mr D1mw ILmr DLmr DLmw\nsummary: %s\n\n\n"
	                 "fn=(1) main\n16 %s\n\ntotals: %s\n",
	                 pid, part, trigger, summary, summary, summary);
}

static void write_cg(const char *dir, const char *name, int pid, int part, const char *trigger,
                     const char *summary)
{
	char *t = cg_text(pid, part, trigger, summary);

	assert_non_null(t);
	write_file(dir, name, t);
	free(t);
}

static void rm_dir(const char *dir)
{
	assert_int_equal(bg_rmtree(NULL, dir), 0);
}

/* Collects dir, which must be refused as input, with a message naming `what`. */
static void expect_garbage(bg_ctx *ctx, const char *dir, const char *what)
{
	bg_sim_counts c;
	int rc = bg_simulate__collect(ctx, dir, -1, &c);

	if (rc != BG_EINPUT || !strstr(bg_ctx_error(ctx), what))
		fail_msg("collect(%s) = %d, \"%s\"; wanted BG_EINPUT and \"%s\"", dir, rc,
		         bg_ctx_error(ctx), what);
	COUNT_EQ(c.ir, 0);
	COUNT_EQ(c.processes, 0); /* nothing half-counted */
	bg_ctx_clear_error(ctx);
}

/* ------------------------------------------------------------- fixtures */

static void test_single_process(void **state)
{
	bg_ctx *ctx = *state;
	bg_sim_counts c;

	assert_int_equal(bg_simulate__collect(ctx, fixture("single"), -1, &c), 0);
	/* summary: 40131502 28019 11829 1094 976 571 1078 767 539 */
	COUNT_EQ(c.ir, 40131502);
	COUNT_EQ(c.dr, 28019);
	COUNT_EQ(c.dw, 11829);
	COUNT_EQ(c.i1mr, 1094);
	COUNT_EQ(c.d1mr, 976);
	COUNT_EQ(c.d1mw, 571);
	COUNT_EQ(c.ilmr, 1078);
	COUNT_EQ(c.dlmr, 767);
	COUNT_EQ(c.dlmw, 539);
	assert_int_equal(c.region, 0);
	assert_int_equal(c.processes, 1);
}

/* A shell and the program it runs: only the program's region counts. */
static void test_shell_and_region(void **state)
{
	bg_ctx *ctx = *state;
	bg_sim_counts c;

	assert_int_equal(bg_simulate__collect(ctx, fixture("region"), -1, &c), 0);
	/* cg.201, part 2: "2029 5 9 5 1 0 5 1", DLmw left out as zero; not
	 * the shell's 229817 nor the 40126319 before the region. */
	COUNT_EQ(c.ir, 2029);
	COUNT_EQ(c.dr, 5);
	COUNT_EQ(c.dw, 9);
	COUNT_EQ(c.i1mr, 5);
	COUNT_EQ(c.d1mr, 1);
	COUNT_EQ(c.d1mw, 0);
	COUNT_EQ(c.ilmr, 5);
	COUNT_EQ(c.dlmr, 1);
	COUNT_EQ(c.dlmw, 0);
	assert_int_equal(c.region, 1);
	assert_int_equal(c.processes, 1);
}

/* Dumps of the program's own: every part counts. */
static void test_multiple_parts(void **state)
{
	bg_ctx *ctx = *state;
	bg_sim_counts c;

	assert_int_equal(bg_simulate__collect(ctx, fixture("parts"), -1, &c), 0);
	COUNT_EQ(c.ir, 7000);
	COUNT_EQ(c.dr, 1400);
	COUNT_EQ(c.dw, 700);
	COUNT_EQ(c.i1mr, 70);
	COUNT_EQ(c.d1mr, 140);
	COUNT_EQ(c.d1mw, 210);
	COUNT_EQ(c.ilmr, 7);
	COUNT_EQ(c.dlmr, 14);
	COUNT_EQ(c.dlmw, 15);
	assert_int_equal(c.region, 0);
	assert_int_equal(c.processes, 1);
}

/*
 * The wrapper 400 is left out; of 401 the parts after its region's start
 * (a dump of its own inside the region, then the end), not the one before
 * nor the start dump; of 402 its last part.
 */
static void test_regions_and_dumps(void **state)
{
	bg_ctx *ctx = *state;
	bg_sim_counts c;

	assert_int_equal(bg_simulate__collect(ctx, fixture("region_parts"), -1, &c), 0);
	COUNT_EQ(c.ir, 1000 + 20 + 300);
	COUNT_EQ(c.dr, 100 + 10 + 30);
	COUNT_EQ(c.dw, 10 + 5 + 3);
	COUNT_EQ(c.i1mr, 8 + 4);
	COUNT_EQ(c.d1mr, 6 + 3);
	COUNT_EQ(c.d1mw, 4 + 2);
	COUNT_EQ(c.ilmr, 3 + 1);
	COUNT_EQ(c.dlmr, 2);
	COUNT_EQ(c.dlmw, 1);
	assert_int_equal(c.region, 1);
	assert_int_equal(c.processes, 2);
}

static void test_valgrind_failed(void **state)
{
	bg_ctx *ctx = *state;

	expect_garbage(ctx, fixture("failed"), "the 'impossible' happened");
	/* The process is named, Valgrind's "valgrind: " kept as it wrote it. */
	assert_int_equal(bg_simulate__collect(ctx, fixture("failed"), -1, &(bg_sim_counts){ 0 }),
	                 BG_EINPUT);
	assert_non_null(strstr(bg_ctx_error(ctx), "Valgrind failed in process 500"));
	bg_ctx_clear_error(ctx);
}

/* ------------------------------------------------------------- garbage */

static void test_garbage(void **state)
{
	static const struct {
		const char *text, *what;
	} cases[] = {
		{ "", "is empty" },
		{ "hello\n", "is not a callgrind output file" },
		{ "# callgrind format\npart: 1\nsummary: 1 2 3\n", "before its events" },
		{ "# callgrind format\npart: 1\nevents: Ir Dr Dw\nsummary: 1 2 3\ntotals: 1\n",
		  "lacks an event" },
		{ "# callgrind format\npart: 1\nevents: Ir Dr Dw I1mr D1mr D1mw ILmr DLmr DLmw\n"
		  "totals: 1\n",
		  "no summary" },
		{ "# callgrind format\npart: 1\nevents: Ir Dr Dw I1mr D1mr D1mw ILmr DLmr DLmw\n"
		  "summary: 1 2 3 4 5 6 7 8 9 10\ntotals: 1\n",
		  "more counts than events" },
		{ "# callgrind format\npart: 1\nevents: Ir Dr Dw I1mr D1mr D1mw ILmr DLmr DLmw\n"
		  "summary: 1 -2 3\ntotals: 1\n",
		  "not a whole number" },
		{ "# callgrind format\npart: 1\nevents: Ir Dr Dw I1mr D1mr D1mw ILmr DLmr DLmw\n"
		  "summary: 1 2x 3\ntotals: 1\n",
		  "not a whole number" },
		{ "# callgrind format\npart: 1\nevents: Ir Dr Dw I1mr D1mr D1mw ILmr DLmr DLmw\n"
		  "summary: 99999999999999999999999 2 3\ntotals: 1\n",
		  "not a whole number" },
		{ "# callgrind format\npart: 1\nevents: Ir Dr Ir Dw I1mr D1mr D1mw ILmr DLmr DLmw\n"
		  "summary: 1\ntotals: 1\n",
		  "names an event twice" },
		{ "# callgrind format\npart: 1\nevents: Ir Dr Dw I1mr D1mr D1mw ILmr DLmr DLmw\n"
		  "events: Ir Dr Dw I1mr D1mr D1mw ILmr DLmr DLmw\nsummary: 1\ntotals: 1\n",
		  "two events" },
		{ "# callgrind format\nevents: Ir Dr Dw I1mr D1mr D1mw ILmr DLmr DLmw\n"
		  "summary: 1\ntotals: 1\n",
		  "no part" },
		{ "# callgrind format\npart: 0\nevents: Ir Dr Dw I1mr D1mr D1mw ILmr DLmr DLmw\n"
		  "summary: 1\ntotals: 1\n",
		  "bad part" },
		{ "# callgrind format\npart: 1\npart: 2\n", "bad part" },
		/* Cut short after its summary, before the totals. */
		{ "# callgrind format\npart: 1\nevents: Ir Dr Dw I1mr D1mr D1mw ILmr DLmr DLmw\n"
		  "summary: 1 2 3\n\nfn=(1) main\n16 1 2",
		  "cut short" },
	};
	bg_ctx *ctx = *state;
	char dir[64], path[128];
	size_t i;

	for (i = 0; i < BG_ARRAY_SIZE(cases); i++) {
		FILE *f;
		size_t len = strlen(cases[i].text);

		make_tmpdir(dir);
		snprintf(path, sizeof(path), "%s/cg.7", dir);
		f = fopen(path, "w");
		assert_non_null(f);
		assert_int_equal(fwrite(cases[i].text, 1, len, f), len);
		assert_int_equal(fclose(f), 0);
		expect_garbage(ctx, dir, cases[i].what);
		rm_dir(dir);
	}

	/* A NUL hides the summary: that line is as good as absent. */
	{
		static const char nul[] = "# callgrind format\npart: 1\nevents: Ir Dr Dw I1mr D1mr "
		                          "D1mw ILmr DLmr DLmw\nsummary: 1\0 2\ntotals: 1\n";
		FILE *f;

		make_tmpdir(dir);
		snprintf(path, sizeof(path), "%s/cg.7", dir);
		f = fopen(path, "w");
		assert_non_null(f);
		assert_int_equal(fwrite(nul, 1, sizeof(nul) - 1, f), sizeof(nul) - 1);
		assert_int_equal(fclose(f), 0);
		expect_garbage(ctx, dir, "no summary");
		rm_dir(dir);
	}
	/* A totals: line cut short, or followed by more: not callgrind's end. */
	{
		char *t = cg_text(7, 1, "Program termination", "1 2 3"), *more;

		assert_non_null(t);
		more = bg_printf("%sfn=(2) other\n", t);
		assert_non_null(more);
		make_tmpdir(dir);
		write_file(dir, "cg.7", more);
		expect_garbage(ctx, dir, "cut short");
		t[strlen(t) - 1] = '\0';
		write_file(dir, "cg.7", t);
		expect_garbage(ctx, dir, "cut short");
		free(t);
		free(more);
		rm_dir(dir);
	}
}

/* A real file cut anywhere: an error or counts, never a crash; cut before
 * its summary or its totals, always an error. */
static void test_truncated(void **state)
{
	bg_ctx *ctx = *state;
	char *data = NULL, dir[64], path[128], src[1100];
	size_t len, cut;
	bg_sim_counts c;

	snprintf(src, sizeof(src), "%s/cg.100", fixture("single"));
	assert_int_equal(bg_read_file(ctx, src, &data, &len), 0);
	make_tmpdir(dir);
	snprintf(path, sizeof(path), "%s/cg.100", dir);
	for (cut = 0; cut < len; cut++) {
		FILE *f = fopen(path, "w");

		assert_non_null(f);
		assert_int_equal(fwrite(data, 1, cut, f), cut);
		assert_int_equal(fclose(f), 0);
		/* Cut anywhere before its last line's end, a file lacks its totals. */
		if (bg_simulate__collect(ctx, dir, -1, &c) != BG_EINPUT)
			fail_msg("cut at %zu of %zu bytes: accepted", cut, len);
		bg_ctx_clear_error(ctx);
	}
	free(data);
	rm_dir(dir);
}

/* Huge files and lines, too many files, things that are not files. */
static void test_hostile_folder(void **state)
{
	bg_ctx *ctx = *state;
	char dir[64], path[1100], *line;
	bg_sim_counts c;
	FILE *f;
	int i;

	/* 5 MiB of lines without a summary: read to the header's bound only. */
	make_tmpdir(dir);
	snprintf(path, sizeof(path), "%s/cg.9", dir);
	f = fopen(path, "w");
	assert_non_null(f);
	fputs("# callgrind format\npart: 1\n", f);
	for (i = 0; i < 5 * 1024; i++)
		fprintf(f, "desc: %01023d\n", i);
	assert_int_equal(fclose(f), 0);
	expect_garbage(ctx, dir, "no events");
	rm_dir(dir);

	/* A 1 MiB cmd: line is skipped; the rest of the header still reads. */
	make_tmpdir(dir);
	line = malloc((1 << 20) + 1);
	assert_non_null(line);
	memset(line, 'x', 1 << 20);
	line[1 << 20] = '\0';
	snprintf(path, sizeof(path), "%s/cg.10", dir);
	f = fopen(path, "w");
	assert_non_null(f);
	fprintf(f,
	        "# callgrind format\ncmd: %s\npart: 1\n"
	        "events: Ir Dr Dw I1mr D1mr D1mw ILmr DLmr DLmw\nsummary: 5 4 3 2 1\n"
	        "fn=(1) %s\ntotals: 5 4 3 2 1\n",
	        line, line);
	assert_int_equal(fclose(f), 0);
	free(line);
	if (bg_simulate__collect(ctx, dir, -1, &c) != 0)
		fail_msg("a long cmd: line: %s", bg_ctx_error(ctx));
	COUNT_EQ(c.ir, 5);
	COUNT_EQ(c.dr, 4);
	COUNT_EQ(c.d1mr, 1);
	COUNT_EQ(c.ilmr, 0);
	rm_dir(dir);

	/* A symbolic link (to a good file), a folder, a FIFO (must not block). */
	make_tmpdir(dir);
	snprintf(path, sizeof(path), "%s/cg.100", fixture("single"));
	{
		char link[128];

		snprintf(link, sizeof(link), "%s/cg.11", dir);
		assert_int_equal(symlink(path, link), 0);
	}
	expect_garbage(ctx, dir, "symbolic link");
	rm_dir(dir);
	make_tmpdir(dir);
	snprintf(path, sizeof(path), "%s/cg.12", dir);
	assert_int_equal(mkdir(path, 0700), 0);
	expect_garbage(ctx, dir, "not a regular file");
	rm_dir(dir);
	make_tmpdir(dir);
	snprintf(path, sizeof(path), "%s/cg.13", dir);
	assert_int_equal(mkfifo(path, 0600), 0);
	expect_garbage(ctx, dir, "not a regular file");
	rm_dir(dir);

	/* More files than a run can have: refused before they are read. */
	make_tmpdir(dir);
	for (i = 0; i <= 8192; i++) {
		char name[32];

		snprintf(name, sizeof(name), "cg.%d", 1000 + i);
		write_file(dir, name, "");
	}
	expect_garbage(ctx, dir, "more than 8192 files");
	rm_dir(dir);

	/* Two files claim the same part of one process. */
	make_tmpdir(dir);
	write_cg(dir, "cg.20", 20, 1, "Program termination", "1 2 3");
	write_cg(dir, "cg.20.1", 20, 1, "Program termination", "1 2 3");
	expect_garbage(ctx, dir, "part 1 twice");
	rm_dir(dir);

	/* Nothing at all, and names that are not callgrind's, are no output. */
	make_tmpdir(dir);
	write_file(dir, "cg.x", "junk");
	write_file(dir, "notes.txt", "junk");
	write_file(dir, "cg.1.2.3", "junk");
	expect_garbage(ctx, dir, "no callgrind output");
	rm_dir(dir);

	/* A folder that is not there is benchguard's trouble, not input. */
	assert_int_equal(bg_simulate__collect(ctx, "/nonexistent/bg-simulate", -1, &c), BG_EIO);
	bg_ctx_clear_error(ctx);
}

/* --------------------------------------------------------------- figures */

static void test_est_cycles(void **state)
{
	bg_sim_counts c;

	(void)state;
	memset(&c, 0, sizeof(c));
	/* 1000 accesses, 100 of them L1 misses, 10 of those from RAM:
	 * 900 L1 hits + 5 x 90 LL hits + 35 x 10 = 900 + 450 + 350. */
	c.ir = 600;
	c.dr = 300;
	c.dw = 100;
	c.i1mr = 20;
	c.d1mr = 50;
	c.d1mw = 30;
	c.ilmr = 2;
	c.dlmr = 5;
	c.dlmw = 3;
	COUNT_EQ(bg_simulate__est_cycles(&c), 1700);
	/* No misses: one cycle per access. */
	memset(&c, 0, sizeof(c));
	c.ir = 12345;
	c.dr = 55;
	COUNT_EQ(bg_simulate__est_cycles(&c), 12400);
	/* Every miss goes to RAM: 35 each, no LL hit. */
	memset(&c, 0, sizeof(c));
	c.ir = 10;
	c.i1mr = 10;
	c.ilmr = 10;
	COUNT_EQ(bg_simulate__est_cycles(&c), 350);
}

static void test_argv(void **state)
{
	bg_ctx *ctx = *state;
	char **v = NULL, *cwd;
	size_t i, n;
	int cg = 0, log = 0, sim = 0, tool = 0;

	assert_int_equal(bg_simulate__argv(ctx, "/tmp/out dir%p", &v), 0);
	assert_non_null(v);
	assert_string_equal(v[0], "valgrind");
	for (n = 0; v[n]; n++) {
		tool |= !strcmp(v[n], "--tool=callgrind");
		sim |= !strcmp(v[n], "--cache-sim=yes");
		/* A '%' of the folder is doubled: Valgrind expands %p and %q. */
		cg |= !strcmp(v[n], "--callgrind-out-file=/tmp/out dir%%p/cg.%p");
		log |= !strcmp(v[n], "--log-file=/tmp/out dir%%p/vg.%p.log");
	}
	assert_true(tool && sim && cg && log);
	bg_simulate__argv_free(v);

	/* A relative folder is made absolute: the command may run elsewhere. */
	assert_int_equal(bg_simulate__argv(ctx, "sim-out", &v), 0);
	cwd = getcwd(NULL, 0);
	assert_non_null(cwd);
	for (i = 0, cg = 0; v[i]; i++) {
		char *want = bg_printf("--callgrind-out-file=%s/sim-out/cg.%%p", cwd);

		cg |= !strcmp(v[i], want);
		free(want);
	}
	assert_true(cg || strchr(cwd, '%'));
	free(cwd);
	bg_simulate__argv_free(v);
	bg_simulate__argv_free(NULL);
}

/* 1 when valgrind runs here (else the test says why it is skipped). */
static int have_valgrind(bg_ctx *ctx, char *version, size_t n)
{
	int rc = bg_simulate__probe(ctx, version, n);

	if (rc == BG_ENOTFOUND) {
		print_message("# skipped: valgrind not installed (%s)\n", bg_ctx_error(ctx));
		bg_ctx_clear_error(ctx);
		return 0;
	}
	assert_int_equal(rc, 0);
	return 1;
}

static void test_probe(void **state)
{
	bg_ctx *ctx = *state;
	char version[128], small[8], *old;

	if (!have_valgrind(ctx, version, sizeof(version)))
		skip();
	assert_memory_equal(version, "valgrind-", 9);
	assert_true(strlen(version) > 9 && !strchr(version, '\n'));
	/* No room for it: not a version benchguard can store. */
	assert_int_equal(bg_simulate__probe(ctx, small, sizeof(small)), BG_ENOTFOUND);
	bg_ctx_clear_error(ctx);

	/* Not on PATH: the reason in words. */
	old = bg_strdup(getenv("PATH"));
	assert_non_null(old);
	setenv("PATH", "/nonexistent", 1);
	assert_int_equal(bg_simulate__probe(ctx, version, sizeof(version)), BG_ENOTFOUND);
	assert_string_equal(bg_ctx_error(ctx), "valgrind not found on PATH");
	assert_string_equal(version, "");
	bg_ctx_clear_error(ctx);
	setenv("PATH", old, 1);
	free(old);
}

/* ------------------------------------------------------- under Valgrind */

/* Runs `<dir>/region MODE N SETUP` (or `sh -c` around it) under the words of
 * bg_simulate__argv and collects what it counted. */
static void simulate(bg_ctx *ctx, const char *dir, const char *cmd, const char *const *env,
                     bg_sim_counts *c)
{
	char out[128], **v = NULL;
	bg_exec_opts o = { NULL, 120.0, 0, 0, env, NULL };
	bg_exec_result r = { 0 };
	bg_buf b = BG_BUF_INIT;
	size_t i;

	snprintf(out, sizeof(out), "%s/out", dir);
	assert_int_equal(mkdir(out, 0700), 0);
	assert_int_equal(bg_simulate__argv(ctx, out, &v), 0);
	for (i = 0; v[i]; i++)
		assert_int_equal(bg_buf_printf(&b, "%s ", v[i]), 0);
	assert_int_equal(bg_buf_puts(&b, cmd), 0);
	bg_simulate__argv_free(v);
	o.cwd = dir;
	o.capture_stdout = 1;
	if (bg_exec(ctx, b.ptr, &o, &r) != 0)
		fail_msg("%s: %s", b.ptr, bg_ctx_error(ctx));
	if (!r.exited || r.exit_status != 0)
		fail_msg("%s: exit %d: %s", b.ptr, r.exit_status, r.err_tail);
	/* Valgrind's chatter is in its log, not in the program's stderr. */
	assert_null(strstr(r.err_tail, "Callgrind"));
	if (bg_simulate__collect(ctx, out, -1, c) != 0)
		fail_msg("collect: %s", bg_ctx_error(ctx));
	bg_exec_result_clear(&r);
	bg_buf_clear(&b);
	assert_int_equal(bg_rmtree(ctx, out), 0);
}

static void test_region_under_valgrind(void **state)
{
	static const char *const harness_env[] = { "BENCHGUARD_WARMUP=1", "BENCHGUARD_SAMPLES=1",
		                                   "BENCHGUARD_INSTRUMENT=simulate", NULL };
	bg_ctx *ctx = *state;
	char version[128], dir[64], *cmd;
	const double n = 100000, setup = 20000000;
	bg_sim_counts c;

	if (!have_valgrind(ctx, version, sizeof(version)))
		skip();
	make_tmpdir(dir);
	cmd = bg_printf("cc -std=c11 -O2 -I'%s/../../lib' -o '%s/region' '%s/simulate/region.c'",
	                bg_test_fixtures(), dir, bg_test_fixtures());
	assert_non_null(cmd);
	if (system(cmd) != 0)
		fail_msg("cannot build the fixture: %s", cmd);
	free(cmd);

	/* The region alone: 2 N and a little, not the 40 M of the setup. */
	simulate(ctx, dir, "./region region 100000 20000000", NULL, &c);
	print_message("# figure: region: %.0f instructions for 2 x %.0f\n", c.ir, n);
	assert_int_equal(c.region, 1);
	assert_int_equal(c.processes, 1);
	assert_true(c.ir >= 2 * n && c.ir <= 2 * n + REGION_SLACK);

	/* Through a shell that forks: the shell is not the region. */
	simulate(ctx, dir, "sh -c './region region 100000 20000000; true'", NULL, &c);
	assert_int_equal(c.region, 1);
	assert_int_equal(c.processes, 1);
	assert_true(c.ir >= 2 * n && c.ir <= 2 * n + REGION_SLACK);

	/* Two regions, a million iterations between them left out. */
	simulate(ctx, dir, "./region split 100000 20000000", NULL, &c);
	print_message("# figure: split: %.0f instructions for 2 x %.0f\n", c.ir, n);
	assert_true(c.ir >= 2 * n && c.ir <= 2 * n + REGION_SLACK);

	/* The harness: the timed sample, not the warm-up nor the setup. */
	simulate(ctx, dir, "./region harness 100000 20000000", harness_env, &c);
	print_message("# figure: harness: %.0f instructions for 2 x %.0f\n", c.ir, n);
	assert_int_equal(c.region, 1);
	assert_true(c.ir >= 2 * n && c.ir <= 2 * n + REGION_SLACK);

	/* No region: the whole program, setup included. */
	simulate(ctx, dir, "./region none 100000 20000000", NULL, &c);
	print_message("# figure: none: %.0f instructions\n", c.ir);
	assert_int_equal(c.region, 0);
	assert_true(c.ir >= 2 * setup + 2 * n);
	assert_true(c.dr > 0 && c.i1mr > 0 && c.ilmr > 0 && c.ilmr <= c.i1mr);

	/* Valgrind's options from the environment (or a .valgrindrc in the
	 * benchmark's folder) neither change the counts nor, when they are
	 * another tool's (a CI that runs memcheck), fail the run. */
	{
		static const char *const hwpref[] = { "VALGRIND_OPTS=--simulate-hwpref=yes", NULL };
		static const char *const memcheck[] = { "VALGRIND_OPTS=--leak-check=full", NULL };
		bg_sim_counts o;

		simulate(ctx, dir, "./region none 100000 20000000", hwpref, &o);
		print_message("# figure: VALGRIND_OPTS: %.0f of %.0f last-level write misses\n",
		              o.dlmw, c.dlmw);
		assert_true(fabs(o.ir - c.ir) <= 1e-3 * c.ir);
		assert_true(fabs(o.dlmw - c.dlmw) <= 0.1 * c.dlmw);
		simulate(ctx, dir, "./region none 100000 20000000", memcheck, &o);
		assert_true(fabs(o.ir - c.ir) <= 1e-3 * c.ir);
	}

	/* A child forked without exec starts as a copy of its parent, costs
	 * included: the setup done before the fork counts once, not once per
	 * process. */
	simulate(ctx, dir, "./region fork 100000 20000000", NULL, &c);
	print_message("# figure: fork: %.0f instructions in %zu processes\n", c.ir,
	              (size_t)c.processes);
	assert_int_equal(c.processes, 2);
	assert_true(c.ir >= 2 * setup + 2 * n);
	assert_true(c.ir < 3 * setup);

	rm_dir(dir);
}

/* ------------------------------------------------------- under perf */

static uint64_t read_counter(int fd)
{
	uint64_t v = 0;

	assert_int_equal(read(fd, &v, sizeof(v)), sizeof(v));
	return v;
}

static void busy(void)
{
	volatile unsigned long i;

	for (i = 0; i < 3000000; i++)
		;
}

/*
 * The counters side of benchguard_region.h, on this process's task clock
 * (a software event: no PMU needed): the first begin resets the group, an
 * end freezes it, a later begin lets it run on.  This file's region state
 * is its own: nothing else here calls bg_region_begin.
 */
static void test_region_perf(void **state)
{
	struct perf_event_attr a;
	char env[32];
	uint64_t before, v1, v2, v3;
	int fd;

	(void)state;
	memset(&a, 0, sizeof(a));
	a.size = sizeof(a);
	a.type = PERF_TYPE_SOFTWARE;
	a.config = PERF_COUNT_SW_TASK_CLOCK;
	a.exclude_kernel = 1;
	a.exclude_hv = 1;
	fd = (int)syscall(SYS_perf_event_open, &a, 0, -1, -1, PERF_FLAG_FD_CLOEXEC);
	if (fd < 0) {
		print_message("# skipped: perf_event_open(task-clock): %s\n", strerror(errno));
		skip();
	}
	busy();
	busy();
	busy();
	before = read_counter(fd);
	snprintf(env, sizeof(env), "%d", fd);
	setenv("BENCHGUARD_COUNTERS_FD", env, 1);
	bg_region_begin(); /* reset: what came before is dropped */
	busy();
	bg_region_end();
	v1 = read_counter(fd);
	assert_true(v1 > 0 && v1 < before); /* one busy() of three */
	busy();
	v2 = read_counter(fd);
	assert_true(v2 == v1); /* disabled between end and begin */
	bg_region_end();       /* outside: nothing */
	bg_region_begin();
	busy();
	bg_region_begin(); /* inside: nothing, no second reset */
	busy();
	bg_region_end();
	v3 = read_counter(fd);
	print_message("# figure: task clock %llu ns before, %llu in the first region, %llu "
	              "after the second\n",
	              (unsigned long long)before, (unsigned long long)v1, (unsigned long long)v3);
	assert_true(v3 > v1);
	unsetenv("BENCHGUARD_COUNTERS_FD");
	close(fd);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_single_process),
		cmocka_unit_test(test_shell_and_region),
		cmocka_unit_test(test_multiple_parts),
		cmocka_unit_test(test_regions_and_dumps),
		cmocka_unit_test(test_valgrind_failed),
		cmocka_unit_test(test_garbage),
		cmocka_unit_test(test_truncated),
		cmocka_unit_test(test_hostile_folder),
		cmocka_unit_test(test_est_cycles),
		cmocka_unit_test(test_argv),
		cmocka_unit_test(test_probe),
		cmocka_unit_test(test_region_under_valgrind),
		cmocka_unit_test(test_region_perf),
	};
	return cmocka_run_group_tests(tests, setup, teardown);
}
