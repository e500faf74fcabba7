/*
 * test_worktree.c -- the worktree cache of pinned commits on a real
 * repository: a commit is checked out and built once, and reused after; a
 * new build command builds again; a failed build is remembered until a
 * retry; parallel processes preparing the same commit build it once; gc
 * removes by age and size, keeps what is in use, and never follows a
 * symlink out of the cache.  Builds count themselves in a file outside the
 * repository, so "built once" is read from what really ran.
 */
#include <fcntl.h>
#include <limits.h>
#include <poll.h>
#include <signal.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "unit.h"

static char scratch[] = "/tmp/bg-worktree-XXXXXX";
static char good[41], bad[41]; /* bad: the build fails there (no ok.txt) */

/* In the scratch directory (tests/unit/unit.h). */
#define sh(...) bg_test_sh(scratch, __VA_ARGS__)
#define capture(out, size, cmd) bg_test_capture(scratch, out, size, cmd)
#define path_of(rel) bg_test_path(scratch, rel)

/* Lines of builds.log that name `sha`: how many times its build ran. */
static int builds_of(const char *sha)
{
	char cmd[256], out[32];

	snprintf(cmd, sizeof(cmd), "grep -c '^%s$' builds.log || true", sha);
	capture(out, sizeof(out), cmd);
	return atoi(out);
}

#define BUILD "echo \"$BENCHGUARD_COMMIT\" >>../../../../builds.log && sleep 0.2 && cat ok.txt"

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
	sh("git init -q -b main repo && cd repo && echo x >f && git add f && git commit -q -m bad "
	   "&& "
	   "echo fine >ok.txt && git add ok.txt && git commit -q -m good");
	capture(bad, sizeof(bad), "git -C repo rev-parse HEAD~1");
	capture(good, sizeof(good), "git -C repo rev-parse HEAD");
	return 0;
}

static int teardown(void **state)
{
	char cmd[PATH_MAX + 16];

	(void)state;
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", scratch);
	return system(cmd) == 0 ? 0 : -1;
}

typedef struct {
	bg_ctx *ctx;
	bg_repo *repo;
	bg_store *store;
	bg_worktree_opts opts;
	char cache[PATH_MAX - 64];
} fixture;

/* A fresh cache directory `name` in the repository's .benchguard (builds.log is ../../../..). */
static void open_fixture(fixture *f, const char *name)
{
	memset(f, 0, sizeof(*f));
	assert_int_equal(bg_ctx_new(&f->ctx), 0);
	assert_int_equal(bg_repo_open(f->ctx, path_of("repo"), &f->repo), 0);
	snprintf(f->cache, sizeof(f->cache), "%s/repo/.benchguard/%s", scratch, name);
	assert_int_equal(bg_store_open(f->ctx, path_of("repo/.benchguard/results.db"), &f->store),
	                 0);
	f->opts.cache_dir = f->cache;
	f->opts.build = BUILD;
	f->opts.machine = "m1";
}

static void close_fixture(fixture *f)
{
	bg_store_free(f->store);
	bg_repo_free(f->repo);
	bg_ctx_free(f->ctx);
}

static void prepare(fixture *f, const char *sha, int retry, bg_worktree *wt)
{
	if (bg_worktree_prepare(f->ctx, f->repo, f->store, sha, &f->opts, retry, wt) != 0)
		fail_msg("prepare %s: %s", sha, bg_ctx_error(f->ctx));
}

/* Prepares the good commit with `build`: whether it built or failed, and
 * how many builds of it there have been since the fixture began. */
static void expect_build(fixture *f, const char *build, int built, int failed, int builds)
{
	bg_worktree wt;

	f->opts.build = build;
	prepare(f, good, 0, &wt);
	assert_int_equal(wt.checked_out, 0);
	assert_int_equal(wt.built, built);
	assert_int_equal(wt.failed, failed);
	bg_worktree_clear(&wt);
	assert_int_equal(builds_of(good), builds);
}

static void test_built_once(void **state)
{
	fixture f;
	bg_worktree wt;
	bg_build_row row;
	char hash[65], file[PATH_MAX + 64];
	struct stat sb;

	(void)state;
	open_fixture(&f, "once");
	prepare(&f, good, 0, &wt);
	assert_string_equal(wt.sha, good);
	assert_int_equal(wt.checked_out, 1);
	assert_int_equal(wt.built, 1);
	assert_int_equal(wt.failed, 0);
	assert_true(wt.build_seconds >= 0.2);
	snprintf(file, sizeof(file), "%s/%s", f.cache, good);
	assert_string_equal(wt.path, file);
	snprintf(file, sizeof(file), "%s/%s/ok.txt", f.cache, good);
	assert_int_equal(stat(file, &sb), 0);
	assert_int_equal(builds_of(good), 1);
	/* The full log is beside the checkout; the store remembers success. */
	assert_non_null(wt.log_path);
	assert_int_equal(stat(wt.log_path, &sb), 0);
	assert_true(sb.st_size > 0); /* "fine" from cat */
	assert_int_equal(bg_sha256_hex(BUILD, strlen(BUILD), hash), 0);
	assert_int_equal(bg_store_build_get(f.ctx, f.store, good, "m1", hash, &row), 0);
	assert_int_equal(row.found, 1);
	assert_int_equal(row.ok, 1);
	bg_build_row_clear(&row);
	bg_worktree_clear(&wt);

	/* Again: found in the cache, not built. */
	expect_build(&f, BUILD, 0, 0, 1);
	/* Another build command builds again, in the same checkout. */
	expect_build(&f, BUILD " && true", 1, 0, 2);
	/* Back to the first: built again, since the checkout now holds the
	 * other's output (-O0, -O2, -O0 measured -O2's binaries); then not. */
	expect_build(&f, BUILD, 1, 0, 3);
	expect_build(&f, BUILD, 0, 0, 3);
	/* A build that fails over it leaves the output half overwritten: the
	 * first command builds again after it too. */
	expect_build(&f, BUILD " && false", 1, 1, 4);
	expect_build(&f, BUILD, 1, 0, 5);

	/* No build command: a checkout only. */
	f.opts.build = NULL;
	prepare(&f, bad, 0, &wt);
	assert_int_equal(wt.checked_out, 1);
	assert_int_equal(wt.built, 0);
	assert_int_equal(wt.failed, 0);
	assert_null(wt.log_path);
	bg_worktree_clear(&wt);
	assert_int_equal(builds_of(bad), 0);

	/* Not a full SHA. */
	assert_int_equal(bg_worktree_prepare(f.ctx, f.repo, f.store, "HEAD", &f.opts, 0, &wt),
	                 BG_EINPUT);
	bg_worktree_clear(&wt);
	bg_worktree_clear(NULL);
	close_fixture(&f);
}

static void test_failure_remembered(void **state)
{
	fixture f;
	bg_worktree wt;

	(void)state;
	open_fixture(&f, "fail");
	prepare(&f, bad, 0, &wt);
	assert_int_equal(wt.failed, 1);
	assert_int_equal(wt.built, 1);
	assert_non_null(wt.why);
	assert_string_equal(wt.why, "exit status 1");
	assert_non_null(strstr(wt.log_tail, "ok.txt")); /* cat's complaint, from stderr */
	bg_worktree_clear(&wt);
	assert_int_equal(builds_of(bad), 1);

	/* Remembered: not built again, the tail still there. */
	prepare(&f, bad, 0, &wt);
	assert_int_equal(wt.failed, 1);
	assert_int_equal(wt.built, 0);
	assert_non_null(strstr(wt.log_tail, "ok.txt"));
	bg_worktree_clear(&wt);
	assert_int_equal(builds_of(bad), 1);

	/* Unless retried. */
	prepare(&f, bad, 1, &wt);
	assert_int_equal(wt.failed, 1);
	assert_int_equal(wt.built, 1);
	bg_worktree_clear(&wt);
	assert_int_equal(builds_of(bad), 2);
	close_fixture(&f);
}

static void test_parallel_prepare(void **state)
{
	pid_t pids[4];
	int i, status, bad_exits = 0;
	int before = builds_of(good);

	(void)state;
	for (i = 0; i < 4; i++) {
		pids[i] = fork();
		assert_true(pids[i] >= 0);
		if (pids[i] == 0) {
			fixture f;
			bg_worktree wt;
			int rc;

			open_fixture(&f, "parallel");
			rc = bg_worktree_prepare(f.ctx, f.repo, f.store, good, &f.opts, 0, &wt);
			rc = rc == 0 && !wt.failed ? 0 : 1;
			bg_worktree_clear(&wt);
			close_fixture(&f);
			_exit(rc);
		}
	}
	for (i = 0; i < 4; i++) {
		assert_int_equal(waitpid(pids[i], &status, 0), pids[i]);
		bad_exits += !(WIFEXITED(status) && WEXITSTATUS(status) == 0);
	}
	assert_int_equal(bad_exits, 0);
	/* Four processes, one build, one checkout, no temporary left over. */
	assert_int_equal(builds_of(good), before + 1);
	{
		char out[64];
		capture(out, sizeof(out), "ls -A repo/.benchguard/parallel | grep -c tmp || true");
		assert_string_equal(out, "0");
	}
}

/* In a child: one byte on the pipe when prepare says it waits for another benchguard. */
static void say_waiting(bg_log_level level, const char *msg, void *data)
{
	(void)level;
	if (!strncmp(msg, "waiting for another benchguard", 30) && write(*(int *)data, "w", 1) < 0)
		_exit(3);
}

/*
 * Two processes that both found the commit not ready wait for the lock to
 * do the work: the one that gets it builds, then holds the lock shared for
 * as long as it uses the checkout.  The other must find the build done and
 * use it beside the first, not wait for the first to finish its whole run.
 */
static void test_parallel_users_do_not_wait_for_each_other(void **state)
{
	char lock[PATH_MAX], c;
	int waiting[2], prepared[2], finish[2], holder, i, n, status, bad_exits = 0;
	struct pollfd pfd;
	pid_t pids[2];
	fixture f;

	(void)state;
	assert_int_equal(pipe(waiting), 0);
	assert_int_equal(pipe(prepared), 0);
	assert_int_equal(pipe(finish), 0);
	/* Held shared, as by a third benchguard looking: both children look,
	 * find nothing ready, and wait to take it exclusively. */
	snprintf(lock, sizeof(lock), "%s/repo/.benchguard/users/%s.lock", scratch, good);
	sh("mkdir -p repo/.benchguard/users");
	holder = open(lock, O_RDWR | O_CREAT, 0666);
	assert_true(holder >= 0);
	assert_int_equal(flock(holder, LOCK_SH), 0);
	for (i = 0; i < 2; i++) {
		pids[i] = fork();
		assert_true(pids[i] >= 0);
		if (pids[i] == 0) {
			bg_worktree wt;
			int rc;

			close(holder);
			close(waiting[0]);
			close(prepared[0]);
			close(finish[1]);
			open_fixture(&f, "users");
			bg_ctx_set_log(f.ctx, say_waiting, &waiting[1]);
			rc = bg_worktree_prepare(f.ctx, f.repo, f.store, good, &f.opts, 0, &wt);
			if (rc == 0 && !wt.failed && write(prepared[1], "p", 1) == 1)
				rc = read(finish[0], &c, 1) < 0; /* using it until told */
			else
				rc = 1;
			bg_worktree_clear(&wt);
			close_fixture(&f);
			_exit(rc);
		}
	}
	close(waiting[1]);
	close(prepared[1]);
	close(finish[0]);
	for (n = 0; n < 2 && read(waiting[0], &c, 1) == 1; n++)
		;
	assert_int_equal(n, 2);
	assert_int_equal(flock(holder, LOCK_UN), 0);
	/* Both get to use it while the other does; a minute is far more than a
	 * checkout and a build need, however loaded the machine. */
	pfd.fd = prepared[0];
	pfd.events = POLLIN;
	for (n = 0; n < 2 && poll(&pfd, 1, 60000) == 1 && read(prepared[0], &c, 1) == 1; n++)
		;
	close(finish[1]); /* done: the children let go */
	for (i = 0; i < 2; i++) {
		assert_int_equal(waitpid(pids[i], &status, 0), pids[i]);
		bad_exits += !(WIFEXITED(status) && WEXITSTATUS(status) == 0);
	}
	close(holder);
	close(waiting[0]);
	close(prepared[0]);
	assert_int_equal(n, 2);
	assert_int_equal(bad_exits, 0);
}

typedef struct {
	int n, in_use, removed;
} fates;

static void count_fate(const char *sha, int64_t last_used, uint64_t bytes, bg_gc_fate fate,
                       void *data)
{
	fates *c = data;

	(void)sha;
	(void)last_used;
	(void)bytes;
	c->n++;
	c->in_use += fate == BG_GC_IN_USE;
	c->removed += fate == BG_GC_REMOVED;
}

static void test_gc(void **state)
{
	fixture f;
	bg_worktree held, wt;
	bg_gc_stats gs;
	fates c = { 0, 0, 0 };
	char link[PATH_MAX + 64], cmd[PATH_MAX * 2];
	struct stat sb;

	(void)state;
	open_fixture(&f, "gc");
	prepare(&f, good, 0, &held); /* in use until cleared */
	/* The same commit again while this process holds it: no waiting for itself. */
	alarm(30);
	prepare(&f, good, 0, &wt);
	alarm(0);
	assert_int_equal(wt.checked_out + wt.built, 0);
	bg_worktree_clear(&wt);
	f.opts.build = NULL;
	prepare(&f, bad, 0, &wt);
	bg_worktree_clear(&wt);
	/* A symlink named like a checkout, to a directory outside the cache. */
	sh("mkdir -p outside && echo keep >outside/precious");
	snprintf(link, sizeof(link), "%s/%s", f.cache, "0123456789012345678901234567890123456789");
	assert_int_equal(symlink(path_of("outside"), link), 0);

	/* Dry run: counts, removes nothing. */
	assert_int_equal(bg_worktree_gc_each(f.ctx, f.cache, 0, UINT64_MAX, 1, count_fate, &c, &gs),
	                 0);
	assert_int_equal(c.n, 3);
	assert_int_equal(c.in_use, 1);
	assert_int_equal(gs.removed, 2);
	assert_int_equal(gs.kept, 1);
	assert_int_equal(lstat(held.path, &sb), 0);
	assert_int_equal(lstat(link, &sb), 0);

	/* Ctrl-C before the first removal: exit with "interrupted", nothing
	 * removed (gc went on removing every worktree, then exited 0). */
	{
		static volatile sig_atomic_t stop = 1;

		bg_ctx_set_cancel(f.ctx, &stop);
		assert_int_equal(bg_worktree_gc(f.ctx, f.cache, 0, UINT64_MAX, 0, &gs), BG_ERROR);
		assert_string_equal(bg_ctx_error(f.ctx), "interrupted after removing 0 worktrees");
		assert_int_equal(lstat(link, &sb), 0);
		snprintf(cmd, sizeof(cmd), "%s/%s", f.cache, bad);
		assert_int_equal(lstat(cmd, &sb), 0);
		bg_ctx_set_cancel(f.ctx, NULL);
	}

	/* Age 0: everything but the one in use; the link itself, not what it points at. */
	assert_int_equal(bg_worktree_gc(f.ctx, f.cache, 0, UINT64_MAX, 0, &gs), 0);
	assert_int_equal(gs.removed, 2);
	assert_int_equal(gs.kept, 1);
	assert_true(gs.bytes_kept > 0);
	assert_int_equal(stat(held.path, &sb), 0);
	assert_int_equal(lstat(link, &sb), -1);
	assert_int_equal(stat(path_of("outside/precious"), &sb), 0);
	snprintf(cmd, sizeof(cmd), "%s/%s", f.cache, bad);
	assert_int_equal(lstat(cmd, &sb), -1);

	/* Fresh worktrees stay under a long age and a large size... */
	bg_worktree_clear(&held);
	assert_int_equal(bg_worktree_gc(f.ctx, f.cache, 86400, UINT64_MAX, 0, &gs), 0);
	assert_int_equal(gs.removed, 0);
	assert_int_equal(gs.kept, 1);
	/* ...and go when the size bound is below them, now that nobody uses them. */
	assert_int_equal(bg_worktree_gc(f.ctx, f.cache, -1, 1, 0, &gs), 0);
	assert_int_equal(gs.removed, 1);
	assert_int_equal(gs.kept, 0);
	assert_true(gs.bytes_freed > 0);
	snprintf(cmd, sizeof(cmd), "ls -A '%s' | wc -l", f.cache);
	capture(link, sizeof(link), cmd);
	assert_string_equal(link, "0");
	/* The next prepare checks out and builds again. */
	f.opts.build = BUILD;
	prepare(&f, good, 0, &wt);
	assert_int_equal(wt.checked_out, 1);
	assert_int_equal(wt.built, 1);
	bg_worktree_clear(&wt);

	/* A cache that does not exist is empty. */
	assert_int_equal(bg_worktree_gc(f.ctx, path_of("nope"), 0, 1, 0, &gs), 0);
	assert_int_equal(gs.removed + gs.kept, 0);
	close_fixture(&f);
}

/*
 * A build log and build stamp left without their checkout (removed by
 * hand, or by a gc killed half-way) are an entry of their own: listed,
 * kept while young or while a benchguard holds the commit's lock, removed
 * with the lock file like any worktree.
 */
static void test_gc_orphans(void **state)
{
	fixture f;
	bg_worktree wt;
	bg_gc_stats gs;
	fates c = { 0, 0, 0 };
	char path[PATH_MAX + 64], cmd[PATH_MAX * 2 + 64], out[64];
	struct stat sb;
	int fd;

	(void)state;
	open_fixture(&f, "gc-orphans");
	prepare(&f, good, 0, &wt);
	bg_worktree_clear(&wt);
	/* A failed build (tried again here, whatever the store remembers): its
	 * log, and no stamp. */
	prepare(&f, bad, 1, &wt);
	assert_int_equal(wt.failed, 1);
	bg_worktree_clear(&wt);
	snprintf(cmd, sizeof(cmd), "rm -rf '%s/%s' '%s/%s'", f.cache, good, f.cache, bad);
	sh("%s", cmd);
	snprintf(path, sizeof(path), "%s/%s.build.log", f.cache, good);
	assert_int_equal(stat(path, &sb), 0);
	snprintf(path, sizeof(path), "%s/%s.build.log", f.cache, bad);
	assert_int_equal(stat(path, &sb), 0);
	snprintf(path, sizeof(path), "%s/%s.built", f.cache, good);
	assert_int_equal(stat(path, &sb), 0);

	/* Listed, once per commit, with their bytes; a dry run removes nothing. */
	assert_int_equal(bg_worktree_gc_each(f.ctx, f.cache, 0, UINT64_MAX, 1, count_fate, &c, &gs),
	                 0);
	assert_int_equal(c.n, 2);
	assert_int_equal(c.removed, 2);
	assert_int_equal(gs.removed, 2);
	assert_true(gs.bytes_freed > 0);
	assert_int_equal(stat(path, &sb), 0);
	/* Young, they stay under a long age. */
	assert_int_equal(bg_worktree_gc(f.ctx, f.cache, 86400, UINT64_MAX, 0, &gs), 0);
	assert_int_equal(gs.removed, 0);
	assert_int_equal(gs.kept, 2);
	assert_true(gs.bytes_kept > 0);
	/* A benchguard holding the commit's lock (checking it out again) keeps them. */
	snprintf(path, sizeof(path), "%s/%s.lock", f.cache, good);
	assert_true((fd = open(path, O_RDWR)) >= 0);
	assert_int_equal(flock(fd, LOCK_SH), 0);
	memset(&c, 0, sizeof(c));
	assert_int_equal(bg_worktree_gc_each(f.ctx, f.cache, 0, UINT64_MAX, 0, count_fate, &c, &gs),
	                 0);
	assert_int_equal(c.n, 2);
	assert_int_equal(c.in_use, 1);
	assert_int_equal(gs.removed, 1);
	snprintf(path, sizeof(path), "%s/%s.build.log", f.cache, good);
	assert_int_equal(stat(path, &sb), 0);
	snprintf(path, sizeof(path), "%s/%s.build.log", f.cache, bad);
	assert_int_equal(stat(path, &sb), -1);
	close(fd);
	/* Free, they go, and so does the lock file: the cache is empty. */
	assert_int_equal(bg_worktree_gc(f.ctx, f.cache, 0, UINT64_MAX, 0, &gs), 0);
	assert_int_equal(gs.removed, 1);
	assert_int_equal(gs.kept, 0);
	snprintf(cmd, sizeof(cmd), "ls -A '%s' | wc -l", f.cache);
	capture(out, sizeof(out), cmd);
	assert_string_equal(out, "0");
	close_fixture(&f);
}

/*
 * A gc killed while it removes a checkout (SIGKILL, a CI job cancelled)
 * leaves no half-removed checkout at <sha> beside a stamp that still says
 * it is built: the next use would run the benchmarks in what was left.
 * The checkout leaves its place whole before its files go; what is left
 * is a scratch directory the next gc removes, and the commit is checked
 * out and built again.
 */
static void test_gc_killed_midway(void **state)
{
	fixture f;
	bg_worktree wt;
	bg_gc_stats gs;
	char path[PATH_MAX + 64], cmd[PATH_MAX * 2 + 64], out[64];
	struct stat sb;
	nlink_t links;
	pid_t pid;
	int status, builds;

	(void)state;
	open_fixture(&f, "gc-killed");
	prepare(&f, good, 0, &wt);
	bg_worktree_clear(&wt);
	builds = builds_of(good);
	/* Enough to remove that the kill lands half-way. */
	snprintf(cmd, sizeof(cmd),
	         "cd '%s/%s' && mkdir -p out && cd out && for i in $(seq 3000); do mkdir d$i && "
	         ": >d$i/f; done",
	         f.cache, good);
	sh("%s", cmd);
	snprintf(path, sizeof(path), "%s/%s/out", f.cache, good);
	assert_int_equal(stat(path, &sb), 0);
	links = sb.st_nlink;

	pid = fork();
	assert_true(pid >= 0);
	if (pid == 0) {
		bg_ctx *ctx = NULL;
		if (bg_ctx_new(&ctx) < 0)
			_exit(1);
		bg_worktree_gc(ctx, f.cache, 0, UINT64_MAX, 0, &gs);
		_exit(0);
	}
	/* Killed as soon as the checkout is no longer what it was. */
	while (stat(path, &sb) == 0 && sb.st_nlink == links)
		;
	kill(pid, SIGKILL);
	assert_int_equal(waitpid(pid, &status, 0), pid);

	/* Either gone from its place, or there whole with its stamp. */
	snprintf(path, sizeof(path), "%s/%s", f.cache, good);
	if (stat(path, &sb) == 0) {
		snprintf(cmd, sizeof(cmd), "ls '%s/%s/out' | wc -l", f.cache, good);
		capture(out, sizeof(out), cmd);
		assert_string_equal(out, "3000");
	}
	/* The next gc leaves nothing behind, scratch directory included. */
	assert_int_equal(bg_worktree_gc(f.ctx, f.cache, 0, UINT64_MAX, 0, &gs), 0);
	snprintf(cmd, sizeof(cmd), "ls -A '%s' | wc -l", f.cache);
	capture(out, sizeof(out), cmd);
	assert_string_equal(out, "0");
	/* And the commit is checked out and built again when next needed. */
	prepare(&f, good, 0, &wt);
	assert_int_equal(wt.checked_out, 1);
	assert_int_equal(builds_of(good), builds + 1);
	bg_worktree_clear(&wt);
	close_fixture(&f);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_built_once),
		cmocka_unit_test(test_failure_remembered),
		cmocka_unit_test(test_parallel_prepare),
		cmocka_unit_test(test_parallel_users_do_not_wait_for_each_other),
		cmocka_unit_test(test_gc),
		cmocka_unit_test(test_gc_orphans),
		cmocka_unit_test(test_gc_killed_midway),
	};
	return cmocka_run_group_tests_name("worktree", tests, setup, teardown);
}
