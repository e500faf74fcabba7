/*
 * test_git.c -- commit identity from real repositories that the `git`
 * command builds in a scratch directory, with fixed authors and dates so
 * that every expected value is known: HEAD, branch, subject, author and
 * time, the dirty flag (and what must not set it), revisions, and the
 * errors for a plain directory, a bare repository and an empty one.
 */
#include <limits.h>
#include <sys/stat.h>
#include <unistd.h>

#include "unit.h"

#ifdef __SANITIZE_ADDRESS__
/*
 * libgit2 1.5.1 leaks a PCRE2 match block each time a regex does not match
 * a config key (git_regexp_match returns before freeing it; fixed upstream by
 * libgit2 pull request #6382).  Its submodule code does that on every status
 * of a repository with submodules (test_submodule).  Nothing of ours calls
 * PCRE2, so blocks allocated inside it are not our leaks.
 */
const char *__lsan_default_suppressions(void);
const char *__lsan_default_suppressions(void)
{
	return "leak:libpcre2-8.so\n";
}
#endif

/* The scratch directory every test builds its repositories in. */
static char scratch[] = "/tmp/bg-git-XXXXXX";

/* Fixed identities and dates (seconds since the epoch, see check_head). */
#define AUTHOR "GIT_AUTHOR_NAME='Ada Lovelace' GIT_AUTHOR_EMAIL=ada@example.com "
#define T1 "GIT_AUTHOR_DATE='1700000000 +0100' GIT_COMMITTER_DATE='1700000000 +0100' "
#define T2 "GIT_AUTHOR_DATE='1700003600 -0500' GIT_COMMITTER_DATE='1700003700 -0500' "

/* In the scratch directory (tests/unit/unit.h). */
#define sh(...) bg_test_sh(scratch, __VA_ARGS__)
#define capture(out, size, cmd) bg_test_capture(scratch, out, size, cmd)
#define path_of(rel) bg_test_path(scratch, rel)

/*
 * repo `name` on branch main: commit 1 "first commit" (a.txt, b.txt) at T1,
 * tagged v1 (lightweight) and v1-ann (annotated); commit 2 with a
 * multi-line message at T2.
 */
static void make_repo(const char *name)
{
	sh("git init -q -b main %s", name);
	sh("cd %s && printf 'a\\n' >a.txt && printf 'b\\n' >b.txt && git add a.txt b.txt && " AUTHOR
	           T1 "git commit -q -m 'first commit' && git tag v1 && " AUTHOR T1
	   "git tag -a -m 'release one' v1-ann",
	   name);
	sh("cd %s && printf 'a2\\n' >>a.txt && git add a.txt && " AUTHOR T2
	   "git commit -q -F - <<'EOF'\nSecond: change a\n\nWhy it changed,\nin a body.\nEOF\n",
	   name);
}

static bg_repo *open_repo(bg_ctx *ctx, const char *rel)
{
	bg_repo *r = NULL;

	if (bg_repo_open(ctx, path_of(rel), &r) != 0)
		fail_msg("bg_repo_open %s: %s", rel, bg_ctx_error(ctx));
	return r;
}

static int head_dirty(bg_ctx *ctx, bg_repo *r)
{
	bg_commit c;
	int dirty;

	if (bg_repo_head(ctx, r, &c) != 0)
		fail_msg("bg_repo_head: %s", bg_ctx_error(ctx));
	dirty = c.dirty;
	bg_commit_clear(&c);
	return dirty;
}

static int setup(void **state)
{
	(void)state;
	if (!mkdtemp(scratch))
		return -1;
	/* Neither the user's nor the system's git config may change the outcome
	 * (signing, default branch, hooks...): git and libgit2 both read $HOME. */
	setenv("HOME", scratch, 1);
	setenv("GIT_CONFIG_NOSYSTEM", "1", 1);
	setenv("GIT_COMMITTER_NAME", "Charles Babbage", 1);
	setenv("GIT_COMMITTER_EMAIL", "charles@example.com", 1);
	unsetenv("GIT_DIR");
	unsetenv("GIT_WORK_TREE");
	return 0;
}

static int teardown(void **state)
{
	char cmd[PATH_MAX + 16];

	(void)state;
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", scratch);
	return system(cmd) == 0 ? 0 : -1;
}

static void test_head(void **state)
{
	bg_ctx *ctx = NULL;
	bg_repo *r = NULL;
	bg_commit c;
	char want[64];

	(void)state;
	assert_int_equal(bg_ctx_new(&ctx), 0);
	make_repo("head");
	r = open_repo(ctx, "head");
	assert_int_equal(bg_repo_head(ctx, r, &c), 0);
	capture(want, sizeof(want), "git -C head rev-parse HEAD");
	assert_int_equal(strlen(want), 40);
	assert_string_equal(c.sha, want);
	assert_string_equal(c.branch, "main");
	/* Multi-line message: the subject is its first line. */
	assert_string_equal(c.subject, "Second: change a");
	assert_string_equal(c.author, "Ada Lovelace <ada@example.com>");
	/* GIT_AUTHOR_DATE of commit 2 (T2), not the committer date; the zone
	 * does not change the instant. */
	assert_int_equal(c.author_time, 1700003600);
	assert_int_equal(c.dirty, 0);
	bg_commit_clear(&c);
	assert_null(c.subject);

	/* A subject with no blank line after it is still just the first line. */
	sh("cd head && " AUTHOR T2 "git commit -q --allow-empty -m 'line one\nline two'");
	assert_int_equal(bg_repo_head(ctx, r, &c), 0);
	assert_string_equal(c.subject, "line one");
	bg_commit_clear(&c);

	/* A commit that declares its encoding (i18n.commitEncoding): subject
	 * and author come back in UTF-8, as written. */
	sh("cd head && GIT_AUTHOR_NAME=\"$(printf 'Jos\\351')\" "
	   "GIT_AUTHOR_EMAIL=jose@example.com " T2 "git -c i18n.commitEncoding=latin1 commit -q "
	   "--allow-empty -m \"$(printf 'caf\\351 fix')\"");
	assert_int_equal(bg_repo_head(ctx, r, &c), 0);
	assert_string_equal(c.subject, "caf\xc3\xa9 fix");
	assert_string_equal(c.author, "Jos\xc3\xa9 <jose@example.com>");
	bg_commit_clear(&c);
	/* One whose encoding iconv does not know: the bytes as they are (the
	 * store makes them valid UTF-8). */
	sh("cd head && " AUTHOR T2 "git -c i18n.commitEncoding=x-no-such-encoding commit -q "
	   "--allow-empty -m \"$(printf 'caf\\351')\"");
	assert_int_equal(bg_repo_head(ctx, r, &c), 0);
	assert_string_equal(c.subject, "caf\xe9");
	bg_commit_clear(&c);

	bg_repo_free(r);
	bg_ctx_free(ctx);
}

static void test_dirty(void **state)
{
	bg_ctx *ctx = NULL;
	bg_repo *r = NULL;

	(void)state;
	assert_int_equal(bg_ctx_new(&ctx), 0);
	make_repo("dirty");
	r = open_repo(ctx, "dirty");
	assert_int_equal(head_dirty(ctx, r), 0);

	sh("cd dirty && echo more >>b.txt"); /* modified in the work tree */
	assert_int_equal(head_dirty(ctx, r), 1);
	sh("cd dirty && git checkout -q -- b.txt");
	assert_int_equal(head_dirty(ctx, r), 0);

	sh("cd dirty && echo more >>b.txt && git add b.txt"); /* staged */
	assert_int_equal(head_dirty(ctx, r), 1);
	sh("cd dirty && git reset -q --hard");
	assert_int_equal(head_dirty(ctx, r), 0);

	sh("cd dirty && rm b.txt"); /* deleted */
	assert_int_equal(head_dirty(ctx, r), 1);
	sh("cd dirty && git reset -q --hard");

	sh("cd dirty && git mv b.txt c.txt"); /* renamed */
	assert_int_equal(head_dirty(ctx, r), 1);
	sh("cd dirty && git reset -q --hard && rm -f c.txt");

	sh("cd dirty && echo new >n.txt && git add n.txt"); /* a new file, staged */
	assert_int_equal(head_dirty(ctx, r), 1);
	sh("cd dirty && git rm -q --cached n.txt && rm n.txt");

	sh("cd dirty && chmod +x a.txt"); /* mode change */
	assert_int_equal(head_dirty(ctx, r), 1);
	sh("cd dirty && chmod -x a.txt");
	assert_int_equal(head_dirty(ctx, r), 0);

	bg_repo_free(r);
	bg_ctx_free(ctx);
}

/* Repo `name` with `setup` done in it is clean; after `change`, dirty. */
static void clean_until(const char *name, const char *setup, const char *change)
{
	bg_ctx *ctx = NULL;
	bg_repo *r = NULL;

	assert_int_equal(bg_ctx_new(&ctx), 0);
	make_repo(name);
	sh("cd %s && %s", name, setup);
	r = open_repo(ctx, name);
	assert_int_equal(head_dirty(ctx, r), 0);
	sh("cd %s && %s", name, change);
	assert_int_equal(head_dirty(ctx, r), 1);
	bg_repo_free(r);
	bg_ctx_free(ctx);
}

/* Untracked and ignored files do not make a tree dirty; a tracked change
 * next to them still does. */
static void test_untracked_is_not_dirty(void **state)
{
	(void)state;
	clean_until("untracked",
	            "mkdir -p .benchguard build/obj && echo db >.benchguard/results.db && "
	            "echo o >build/obj/x.o && echo s >scratch.txt && "
	            "echo '*.log' >.git/info/exclude && echo l >run.log",
	            "echo x >>a.txt");
}

/* A sparse checkout (actions/checkout's `sparse-checkout:`) is clean, as
 * git says: the files outside its cone are skipped, not deleted.  A file
 * deleted inside it still makes the tree dirty. */
static void test_sparse_is_not_dirty(void **state)
{
	(void)state;
	clean_until("sparse",
	            "mkdir -p docs src && echo d >docs/d.txt && echo s >src/s.c && git add -A "
	            "&& " AUTHOR T2
	            "git commit -q -m dirs && git sparse-checkout set --cone docs && "
	            "test ! -e src/s.c",
	            "rm docs/d.txt");
}

static void test_submodule(void **state)
{
	bg_ctx *ctx = NULL;
	bg_repo *r = NULL;

	(void)state;
	assert_int_equal(bg_ctx_new(&ctx), 0);
	make_repo("subsrc");
	make_repo("super");
	sh("cd super && git -c protocol.file.allow=always submodule -q add '%s/subsrc' lib "
	   "&& " AUTHOR T2 "git commit -q -m 'add lib'",
	   scratch);
	r = open_repo(ctx, "super");
	assert_int_equal(head_dirty(ctx, r), 0);
	/* Build outputs inside a submodule are untracked files there: clean. */
	sh("cd super/lib && mkdir -p build && echo o >build/x.o");
	assert_int_equal(head_dirty(ctx, r), 0);
	/* A tracked file changed inside it: dirty. */
	sh("cd super/lib && echo x >>a.txt");
	assert_int_equal(head_dirty(ctx, r), 1);
	sh("cd super/lib && git checkout -q -- a.txt");
	assert_int_equal(head_dirty(ctx, r), 0);
	/* The submodule at another commit than the one recorded: dirty. */
	sh("cd super/lib && git checkout -q HEAD~1");
	assert_int_equal(head_dirty(ctx, r), 1);
	bg_repo_free(r);
	bg_ctx_free(ctx);
}

static void test_detached(void **state)
{
	bg_ctx *ctx = NULL;
	bg_repo *r = NULL;
	bg_commit c;
	char want[64], *branch = NULL;

	(void)state;
	assert_int_equal(bg_ctx_new(&ctx), 0);
	make_repo("detached");
	sh("cd detached && git checkout -q --detach HEAD~1");
	r = open_repo(ctx, "detached");
	assert_int_equal(bg_repo_head(ctx, r, &c), 0);
	capture(want, sizeof(want), "git -C detached rev-parse HEAD");
	assert_string_equal(c.sha, want);
	assert_null(c.branch);
	assert_string_equal(c.subject, "first commit");
	assert_int_equal(c.author_time, 1700000000);
	assert_int_equal(bg_repo_head_branch(ctx, r, &branch), 0);
	assert_null(branch);
	bg_commit_clear(&c);
	bg_repo_free(r);
	bg_ctx_free(ctx);
}

/*
 * The baseline branch's tip: a branch that is not there is BG_EINPUT (the
 * user's word to fix), one whose ref cannot be read is a failure that says
 * why; it was "unknown baseline branch", exit 2, with main among "branches
 * there".
 */
static void test_branch_tip_unreadable(void **state)
{
	bg_ctx *ctx = NULL;
	bg_repo *r = NULL;
	char sha[41], want[64];

	(void)state;
	assert_int_equal(bg_ctx_new(&ctx), 0);
	make_repo("tipref");
	sh("cd tipref && git branch side && git pack-refs --all --prune && git branch loose");
	r = open_repo(ctx, "tipref");
	capture(want, sizeof(want), "git -C tipref rev-parse main");
	assert_int_equal(bg_repo_branch_tip(ctx, r, "main", sha), 0);
	assert_string_equal(sha, want);
	assert_int_equal(bg_repo_branch_tip(ctx, r, "nope", sha), BG_EINPUT);
	assert_non_null(strstr(bg_ctx_error(ctx), "unknown baseline branch"));
	assert_int_equal(bg_repo_branch_tip(ctx, r, "bad name", sha), BG_EINPUT);
	/* A loose ref that is not a ref any more. */
	sh("printf 'not a sha\\n' >tipref/.git/refs/heads/loose");
	assert_true(bg_repo_branch_tip(ctx, r, "loose", sha) < 0);
	assert_int_not_equal(bg_error_exit_code(bg_repo_branch_tip(ctx, r, "loose", sha)), 2);
	if (!strstr(bg_ctx_error(ctx), "reading the baseline branch"))
		fail_msg("error: %s", bg_ctx_error(ctx));
	bg_repo_free(r);
	bg_ctx_free(ctx);
}

static void check_lookup(bg_ctx *ctx, bg_repo *r, const char *rev, const char *want_sha,
                         const char *want_branch, const char *want_subject)
{
	bg_commit c;

	if (bg_repo_lookup(ctx, r, rev, &c) != 0)
		fail_msg("lookup %s: %s", rev, bg_ctx_error(ctx));
	assert_string_equal(c.sha, want_sha);
	if (want_branch)
		assert_string_equal(c.branch, want_branch);
	else
		assert_null(c.branch);
	assert_string_equal(c.subject, want_subject);
	assert_string_equal(c.author, "Ada Lovelace <ada@example.com>");
	assert_int_equal(c.dirty, 0);
	bg_commit_clear(&c);
}

static void test_lookup(void **state)
{
	bg_ctx *ctx = NULL;
	bg_repo *r = NULL;
	bg_commit c;
	char first[64], second[64], shortsha[16];

	(void)state;
	assert_int_equal(bg_ctx_new(&ctx), 0);
	make_repo("lookup");
	capture(first, sizeof(first), "git -C lookup rev-parse HEAD~1");
	capture(second, sizeof(second), "git -C lookup rev-parse HEAD");
	capture(shortsha, sizeof(shortsha), "git -C lookup rev-parse --short=7 HEAD~1");
	assert_int_equal(strlen(shortsha), 7);
	sh("cd lookup && echo x >>a.txt"); /* a dirty tree: lookups still say clean */
	r = open_repo(ctx, "lookup");

	check_lookup(ctx, r, "HEAD~1", first, NULL, "first commit");
	check_lookup(ctx, r, shortsha, first, NULL, "first commit");
	check_lookup(ctx, r, first, first, NULL, "first commit");
	check_lookup(ctx, r, "v1", first, NULL, "first commit");
	check_lookup(ctx, r, "v1-ann", first, NULL, "first commit"); /* peeled to the commit */
	/* HEAD on a branch is that branch, as bg_repo_head says. */
	check_lookup(ctx, r, "HEAD", second, "main", "Second: change a");
	check_lookup(ctx, r, "@", second, "main", "Second: change a");
	/* Exactly a local branch name: the branch is known. */
	check_lookup(ctx, r, "main", second, "main", "Second: change a");
	/* A detached HEAD is on no branch. */
	sh("cd lookup && git checkout -q --detach");
	check_lookup(ctx, r, "HEAD", second, NULL, "Second: change a");
	sh("cd lookup && git checkout -q main");

	assert_int_equal(bg_repo_lookup(ctx, r, "nope", &c), BG_ENOTFOUND);
	assert_string_equal(bg_ctx_error(ctx), "unknown revision \"nope\"");
	assert_null(c.subject);
	assert_int_equal(bg_repo_lookup(ctx, r, "HEAD~5", &c), BG_ENOTFOUND);
	assert_int_equal(bg_repo_lookup(ctx, r, "deadbeefdeadbeef", &c), BG_ENOTFOUND);
	assert_int_equal(bg_repo_lookup(ctx, r, "main..", &c), BG_ENOTFOUND);
	/* A tree is not a commit. */
	assert_int_equal(bg_repo_lookup(ctx, r, "HEAD^{tree}", &c), BG_EINPUT);
	assert_non_null(strstr(bg_ctx_error(ctx), "not a commit"));
	bg_repo_free(r);
	bg_ctx_free(ctx);
}

/* The branch a commit is stored under: the one REV names (a remote-tracking
 * one by its branch), else `branch` when the commit is on its first-parent
 * history, else none; a branch that does not exist is no error. */
static void on_branch(bg_ctx *ctx, bg_repo *r, const char *rev, const char *branch,
                      const char *want)
{
	bg_commit c;

	if (bg_repo_lookup_on(ctx, r, rev, branch, &c) != 0)
		fail_msg("bg_repo_lookup_on %s: %s", rev, bg_ctx_error(ctx));
	if (want)
		assert_string_equal(c.branch, want);
	else
		assert_null(c.branch);
	bg_commit_clear(&c);
}

static void test_lookup_on(void **state)
{
	bg_ctx *ctx = NULL;
	bg_repo *r = NULL;
	bg_commit c;
	char first[64], side[64];

	(void)state;
	assert_int_equal(bg_ctx_new(&ctx), 0);
	make_repo("lookon");
	capture(first, sizeof(first), "git -C lookon rev-parse HEAD~1");
	sh("cd lookon && git checkout -q -b side HEAD~1 && echo s >s.txt && git add s.txt "
	   "&& " AUTHOR T2 "git commit -q -m side && git checkout -q main");
	capture(side, sizeof(side), "git -C lookon rev-parse side");
	sh("cd lookon && git update-ref refs/remotes/origin/feature %s", side);
	r = open_repo(ctx, "lookon");
	on_branch(ctx, r, first, "main", "main"); /* a SHA on main's line */
	on_branch(ctx, r, "HEAD~1", "main", "main");
	on_branch(ctx, r, side, "main", NULL);     /* on side only */
	on_branch(ctx, r, "side", "main", "side"); /* named: that branch */
	on_branch(ctx, r, "origin/feature", "main", "feature");
	on_branch(ctx, r, first, "nosuch", NULL); /* no such branch: none, no error */
	on_branch(ctx, r, first, NULL, NULL);
	assert_int_equal(bg_repo_lookup_on(ctx, r, "nope", "main", &c), BG_ENOTFOUND);
	assert_null(c.branch);
	bg_repo_free(r);
	bg_ctx_free(ctx);
}

static void test_open_from_subdirectory(void **state)
{
	bg_ctx *ctx = NULL;
	bg_repo *r = NULL;
	char top[PATH_MAX], got[PATH_MAX];
	const char *wd;

	(void)state;
	assert_int_equal(bg_ctx_new(&ctx), 0);
	make_repo("subdir");
	sh("mkdir -p subdir/src/deeper");
	r = open_repo(ctx, "subdir/src/deeper");
	wd = bg_repo_workdir(r);
	assert_non_null(wd);
	assert_true(wd[strlen(wd) - 1] != '/');
	assert_non_null(realpath(path_of("subdir"), top));
	assert_non_null(realpath(wd, got));
	assert_string_equal(got, top);
	assert_int_equal(head_dirty(ctx, r), 0);
	bg_repo_free(r);
	bg_ctx_free(ctx);
}

static void test_not_a_repository(void **state)
{
	bg_ctx *ctx = NULL;
	bg_repo *r = (bg_repo *)&r;

	(void)state;
	assert_int_equal(bg_ctx_new(&ctx), 0);
	sh("mkdir -p plain/dir");
	assert_int_equal(bg_repo_open(ctx, path_of("plain/dir"), &r), BG_EINPUT);
	assert_null(r);
	assert_non_null(strstr(bg_ctx_error(ctx), "not a git repository: "));
	assert_non_null(strstr(bg_ctx_error(ctx), "plain/dir"));

	sh("git init -q --bare bare.git");
	assert_int_equal(bg_repo_open(ctx, path_of("bare.git"), &r), BG_EINPUT);
	assert_null(r);
	assert_non_null(strstr(bg_ctx_error(ctx), "bare"));
	bg_ctx_free(ctx);
}

static void test_empty_repository(void **state)
{
	bg_ctx *ctx = NULL;
	bg_repo *r = NULL;
	bg_commit c;
	char *branch = NULL;

	(void)state;
	assert_int_equal(bg_ctx_new(&ctx), 0);
	sh("git init -q -b main empty");
	r = open_repo(ctx, "empty");
	assert_int_equal(bg_repo_head(ctx, r, &c), BG_EINPUT);
	assert_non_null(strstr(bg_ctx_error(ctx), "repository has no commits yet"));
	assert_null(c.branch);
	assert_int_equal(bg_repo_lookup(ctx, r, "HEAD", &c), BG_ENOTFOUND);
	/* The branch HEAD is on has a name before its first commit. */
	assert_int_equal(bg_repo_head_branch(ctx, r, &branch), 0);
	assert_non_null(branch);
	assert_string_equal(branch, "main");
	free(branch);
	bg_repo_free(r);
	bg_ctx_free(ctx);
}

static void test_free_and_clear_are_noops(void **state)
{
	bg_commit c;

	(void)state;
	bg_repo_free(NULL);
	memset(&c, 0, sizeof(c));
	bg_commit_clear(&c);
	bg_commit_clear(&c); /* twice: the first left it zeroed */
	bg_commit_clear(NULL);
	assert_null(c.author);
	assert_null(bg_repo_workdir(NULL));
}

/* ------------------------------------------------------- pinned checkouts */

/* The whole content of a file under the scratch directory ("" if absent, NULL-safe). */
static const char *slurp(const char *rel)
{
	static char buf[4096];
	FILE *f = fopen(path_of(rel), "r");
	size_t n = 0;

	buf[0] = '\0';
	if (f) {
		n = fread(buf, 1, sizeof(buf) - 1, f);
		fclose(f);
	}
	buf[n] = '\0';
	return buf;
}

static int exists(const char *rel)
{
	struct stat sb;

	return lstat(path_of(rel), &sb) == 0;
}

/* Regular files under a checkout, "path" per line, sorted (what `find` sees). */
static void files_of(char *out, size_t size, const char *rel)
{
	char cmd[512];

	snprintf(cmd, sizeof(cmd), "cd '%s' && find . -type f | sort | tr '\\n' ' ' && echo", rel);
	capture(out, size, cmd);
}

static void test_checkout(void **state)
{
	bg_ctx *ctx = NULL;
	bg_repo *r = NULL;
	char first[64], second[64], third[64], files[1024], index_before[128], index_after[128],
	        head_before[256];
	struct stat sb;

	(void)state;
	assert_int_equal(bg_ctx_new(&ctx), 0);
	make_repo("co");
	/* Third commit: a new file, an executable, a subdirectory; a.txt changes again. */
	sh("cd co && printf 'c\\n' >c.txt && printf '#!/bin/sh\\n' >x.sh && chmod +x x.sh && "
	   "mkdir d && printf 'e\\n' >d/e.txt && printf 'a3\\n' >>a.txt && git add . && " AUTHOR T2
	   "git commit -q -m third");
	capture(first, sizeof(first), "git -C co rev-parse HEAD~2");
	capture(second, sizeof(second), "git -C co rev-parse HEAD~1");
	capture(third, sizeof(third), "git -C co rev-parse HEAD");
	/* A staged change and a work-tree change, which the checkout must ignore and keep. */
	sh("cd co && printf 'staged\\n' >b.txt && git add b.txt && printf 'wt\\n' >>a.txt");
	capture(index_before, sizeof(index_before), "sha256sum co/.git/index");
	snprintf(head_before, sizeof(head_before), "%s", slurp("co/.git/HEAD"));
	r = open_repo(ctx, "co");

	/* The second commit: exactly its files, at their content then. */
	if (bg_repo_checkout(ctx, r, second, path_of("out2")) != 0)
		fail_msg("checkout: %s", bg_ctx_error(ctx));
	files_of(files, sizeof(files), "out2");
	assert_string_equal(files, "./a.txt ./b.txt ");
	assert_string_equal(slurp("out2/a.txt"), "a\na2\n");
	assert_string_equal(slurp("out2/b.txt"), "b\n");
	assert_false(exists("out2/c.txt"));
	assert_false(exists("out2/.git"));

	/* The first, into an existing empty directory. */
	sh("mkdir out1");
	assert_int_equal(bg_repo_checkout(ctx, r, first, path_of("out1")), 0);
	assert_string_equal(slurp("out1/a.txt"), "a\n");

	/* The third: new files, the subdirectory, the executable bit. */
	assert_int_equal(bg_repo_checkout(ctx, r, third, path_of("out3")), 0);
	files_of(files, sizeof(files), "out3");
	assert_string_equal(files, "./a.txt ./b.txt ./c.txt ./d/e.txt ./x.sh ");
	assert_string_equal(slurp("out3/a.txt"), "a\na2\na3\n");
	assert_int_equal(stat(path_of("out3/x.sh"), &sb), 0);
	assert_true(sb.st_mode & S_IXUSR);

	/* The repository: index, HEAD and work tree as they were. */
	capture(index_after, sizeof(index_after), "sha256sum co/.git/index");
	assert_string_equal(index_after, index_before);
	assert_string_equal(slurp("co/.git/HEAD"), head_before);
	assert_string_equal(slurp("co/b.txt"), "staged\n");
	assert_string_equal(slurp("co/a.txt"), "a\na2\na3\nwt\n");

	/* A directory with something in it is refused; so is an unknown commit. */
	assert_int_equal(bg_repo_checkout(ctx, r, third, path_of("out3")), BG_EINPUT);
	assert_non_null(strstr(bg_ctx_error(ctx), "not empty"));
	assert_int_equal(bg_repo_checkout(ctx, r, "0123456789012345678901234567890123456789",
	                                  path_of("out4")),
	                 BG_ENOTFOUND);
	assert_false(exists("out4"));
	bg_repo_free(r);
	bg_ctx_free(ctx);
}

static void test_checkout_submodule(void **state)
{
	bg_ctx *ctx = NULL;
	bg_repo *r = NULL;
	char sub_first[64], sub_tip[64], rec[128], sha[64];

	(void)state;
	assert_int_equal(bg_ctx_new(&ctx), 0);
	make_repo("smsrc");
	capture(sub_first, sizeof(sub_first), "git -C smsrc rev-parse HEAD~1");
	make_repo("smsuper");
	/* The superproject records the submodule's FIRST commit, not its tip. */
	sh("cd smsuper && git -c protocol.file.allow=always submodule -q add '%s/smsrc' lib/sub && "
	   "git -C lib/sub checkout -q HEAD~1 && git add lib/sub && " AUTHOR T2
	   "git commit -q -m 'add sub'",
	   scratch);
	capture(rec, sizeof(rec), "git -C smsuper ls-tree HEAD lib/sub | cut -f1 | cut -d' ' -f3");
	assert_string_equal(rec, sub_first);
	/* And the submodule's origin moves on after that. */
	sh("cd smsrc && printf 'later\\n' >later.txt && git add later.txt && " AUTHOR T2
	   "git commit -q -m later");
	capture(sub_tip, sizeof(sub_tip), "git -C smsrc rev-parse HEAD");
	capture(sha, sizeof(sha), "git -C smsuper rev-parse HEAD");
	r = open_repo(ctx, "smsuper");

	/* From .git/modules/<name>. */
	if (bg_repo_checkout(ctx, r, sha, path_of("smout")) != 0)
		fail_msg("checkout: %s", bg_ctx_error(ctx));
	assert_string_equal(slurp("smout/lib/sub/a.txt"), "a\n");
	assert_string_equal(slurp("smout/lib/sub/b.txt"), "b\n");
	assert_false(exists("smout/lib/sub/later.txt"));
	assert_false(exists("smout/lib/sub/.git"));
	assert_true(exists("smout/.gitmodules"));
	bg_repo_free(r);

	/* Without .git/modules: cloned from the URL in .gitmodules. */
	sh("cd smsuper && git submodule -q deinit -f lib/sub && rm -rf .git/modules");
	r = open_repo(ctx, "smsuper");
	if (bg_repo_checkout(ctx, r, sha, path_of("smout2")) != 0)
		fail_msg("checkout by clone: %s", bg_ctx_error(ctx));
	assert_string_equal(slurp("smout2/lib/sub/a.txt"), "a\n");
	assert_false(exists("smout2/lib/sub/later.txt"));
	bg_repo_free(r);

	/* A relative URL, resolved against the superproject's own path (no origin). */
	make_repo("smrel");
	sh("cd smrel && git -c protocol.file.allow=always submodule -q add ../smsrc sub && " AUTHOR
	           T2
	   "git commit -q -m 'add sub' && git submodule -q deinit -f sub && rm -rf .git/modules");
	capture(sha, sizeof(sha), "git -C smrel rev-parse HEAD");
	r = open_repo(ctx, "smrel");
	if (bg_repo_checkout(ctx, r, sha, path_of("smout3")) != 0)
		fail_msg("checkout by relative clone: %s", bg_ctx_error(ctx));
	assert_string_equal(slurp("smout3/sub/later.txt"), "later\n");
	bg_repo_free(r);

	/* Nowhere to be found: the error names the submodule. */
	sh("mv smsrc smsrc-gone");
	r = open_repo(ctx, "smrel");
	assert_true(bg_repo_checkout(ctx, r, sha, path_of("smout4")) < 0);
	assert_non_null(strstr(bg_ctx_error(ctx), "submodule \"sub\""));
	bg_repo_free(r);
	sh("mv smsrc-gone smsrc");
	bg_ctx_free(ctx);
}

/*
 * Repository `name`, main: c1 - c2 - c3 - m - c4, where m merges feature
 * (f1 - f2, branched from c2) with --no-ff.  c[0..4] = c1, c2, c3, m, c4.
 */
static void make_history(const char *name, char c[5][64], char f[2][64])
{
	char cmd[256];
	int i;

	sh("git init -q -b main %s && cd %s && for i in 1 2; do echo $i >>h.txt && git add h.txt "
	   "&& " AUTHOR T1 "git commit -q -m c$i; done",
	   name, name);
	sh("cd %s && git checkout -q -b feature && for i in 1 2; do echo f$i >>f.txt && git add "
	   "f.txt && " AUTHOR T1 "git commit -q -m f$i; done",
	   name);
	sh("cd %s && git checkout -q main && echo 3 >>h.txt && git add h.txt && " AUTHOR T1
	   "git commit -q -m c3 && " AUTHOR T1
	   "git merge -q --no-ff -m m feature && echo 4 >>h.txt "
	   "&& git add h.txt && " AUTHOR T1 "git commit -q -m c4",
	   name);
	for (i = 0; i < 5; i++) {
		snprintf(cmd, sizeof(cmd), "git -C %s rev-parse HEAD~%d", name, 4 - i);
		capture(c[i], 64, cmd);
	}
	snprintf(cmd, sizeof(cmd), "git -C %s rev-parse feature~1", name);
	capture(f[0], 64, cmd);
	snprintf(cmd, sizeof(cmd), "git -C %s rev-parse feature", name);
	capture(f[1], 64, cmd);
}

static void test_is_ancestor(void **state)
{
	bg_ctx *ctx = NULL;
	bg_repo *r = NULL;
	char c[5][64], f[2][64];

	(void)state;
	assert_int_equal(bg_ctx_new(&ctx), 0);
	make_history("anc", c, f);
	r = open_repo(ctx, "anc");
	assert_int_equal(bg_repo_is_ancestor(ctx, r, c[0], c[4]), 1);
	assert_int_equal(bg_repo_is_ancestor(ctx, r, f[0], c[4]), 1); /* through the merge */
	assert_int_equal(bg_repo_is_ancestor(ctx, r, c[2], c[2]), 1); /* itself */
	assert_int_equal(bg_repo_is_ancestor(ctx, r, c[4], c[0]), 0);
	assert_int_equal(bg_repo_is_ancestor(ctx, r, f[1], c[2]), 0); /* sideways */
	assert_int_equal(bg_repo_is_ancestor(ctx, r, "main", "feature"), 0);
	assert_int_equal(bg_repo_is_ancestor(ctx, r, "nope", c[0]), BG_ENOTFOUND);
	bg_repo_free(r);
	bg_ctx_free(ctx);
}

static void test_first_parent_range(void **state)
{
	bg_ctx *ctx = NULL;
	bg_repo *r = NULL;
	char c[5][64], f[2][64];
	char(*shas)[41] = NULL;
	size_t n = 99;
	const char *c1 = c[0], *c2 = c[1], *c3 = c[2], *m = c[3];

	(void)state;
	assert_int_equal(bg_ctx_new(&ctx), 0);
	make_history("fpr", c, f);
	r = open_repo(ctx, "fpr");

	/* Oldest first, good excluded, bad included, the merge one step. */
	if (bg_repo_first_parent_range(ctx, r, c1, "HEAD", &shas, &n) != 0)
		fail_msg("range: %s", bg_ctx_error(ctx));
	assert_int_equal(n, 4);
	assert_string_equal(shas[0], c2);
	assert_string_equal(shas[1], c3);
	assert_string_equal(shas[2], m);
	assert_string_equal(shas[3], c[4]);
	free(shas);

	assert_int_equal(bg_repo_first_parent_range(ctx, r, c2, m, &shas, &n), 0);
	assert_int_equal(n, 2);
	assert_string_equal(shas[0], c3);
	assert_string_equal(shas[1], m);
	free(shas);

	/* good == bad: nothing between. */
	assert_int_equal(bg_repo_first_parent_range(ctx, r, m, m, &shas, &n), 0);
	assert_int_equal(n, 0);
	free(shas);

	/* An ancestor only through the merge's second parent is not on the line. */
	assert_int_equal(bg_repo_first_parent_range(ctx, r, f[0], c[4], &shas, &n), BG_EINPUT);
	assert_non_null(strstr(bg_ctx_error(ctx), "not on the first-parent history"));
	assert_null(shas);
	assert_int_equal(n, 0);
	/* Reversed. */
	assert_int_equal(bg_repo_first_parent_range(ctx, r, c[4], c1, &shas, &n), BG_EINPUT);
	assert_int_equal(bg_repo_first_parent_range(ctx, r, "nope", c1, &shas, &n), BG_ENOTFOUND);
	bg_repo_free(r);
	bg_ctx_free(ctx);
}

typedef struct {
	char seen[8][41];
	int64_t time[8];
	size_t n, stop_after;
} walk_log;

static int log_commit(const char *sha, int64_t time, void *data)
{
	walk_log *w = data;

	assert_true(w->n < 8);
	memcpy(w->seen[w->n], sha, 41);
	w->time[w->n++] = time;
	return w->n == w->stop_after;
}

/* The first-parent line, newest first, with committer times; a callback's
 * 1 stops the walk, its < 0 fails it. */
static void test_walk_first_parent(void **state)
{
	bg_ctx *ctx = NULL;
	bg_repo *r = NULL;
	char c[5][64], f[2][64];
	walk_log w;

	(void)state;
	assert_int_equal(bg_ctx_new(&ctx), 0);
	make_history("walk", c, f);
	r = open_repo(ctx, "walk");
	memset(&w, 0, sizeof(w));
	assert_int_equal(bg_repo_walk_first_parent(ctx, r, "HEAD", log_commit, &w), 0);
	assert_int_equal(w.n, 5); /* c4, m, c3, c2, c1: never the feature commits */
	assert_string_equal(w.seen[0], c[4]);
	assert_string_equal(w.seen[1], c[3]);
	assert_string_equal(w.seen[2], c[2]);
	assert_string_equal(w.seen[4], c[0]);
	assert_int_equal(w.time[4], 1700000000);
	memset(&w, 0, sizeof(w));
	w.stop_after = 2;
	assert_int_equal(bg_repo_walk_first_parent(ctx, r, "HEAD", log_commit, &w), 0);
	assert_int_equal(w.n, 2);
	assert_int_equal(bg_repo_walk_first_parent(ctx, r, "nope", log_commit, &w), BG_ENOTFOUND);
	bg_repo_free(r);
	bg_ctx_free(ctx);
}

/*
 * A shallow clone (a CI checkout of depth 1) ends its history before the
 * root: a walk that reaches that end is told so, with what to fetch, as
 * bad input -- not libgit2's "object not found" for the missing parent,
 * and not a quiet end as if the history began there.
 */
static void test_walk_shallow(void **state)
{
	bg_ctx *ctx = NULL;
	bg_repo *r = NULL;
	walk_log w;
	char head[64];

	(void)state;
	assert_int_equal(bg_ctx_new(&ctx), 0);
	make_repo("deep");
	sh("cd deep && printf 'c\\n' >c.txt && git add c.txt && " AUTHOR T2
	   "git commit -q -m third");
	sh("git clone -q --depth 1 \"file://%s\" shallow", path_of("deep"));
	capture(head, sizeof(head), "git -C shallow rev-parse HEAD");
	r = open_repo(ctx, "shallow");
	memset(&w, 0, sizeof(w));
	assert_int_equal(bg_repo_walk_first_parent(ctx, r, "HEAD", log_commit, &w), BG_EINPUT);
	assert_int_equal(w.n, 1);
	assert_string_equal(w.seen[0], head);
	assert_non_null(strstr(bg_ctx_error(ctx), "shallow clone"));
	assert_non_null(strstr(bg_ctx_error(ctx), "--unshallow"));
	/* A walk that stops before the end never sees it. */
	memset(&w, 0, sizeof(w));
	w.stop_after = 1;
	assert_int_equal(bg_repo_walk_first_parent(ctx, r, "HEAD", log_commit, &w), 0);
	bg_repo_free(r);

	/* Unshallowed, the same walk goes to the root. */
	sh("git -C shallow fetch -q --unshallow");
	r = open_repo(ctx, "shallow");
	memset(&w, 0, sizeof(w));
	assert_int_equal(bg_repo_walk_first_parent(ctx, r, "HEAD", log_commit, &w), 0);
	assert_int_equal(w.n, 3);
	bg_repo_free(r);
	bg_ctx_free(ctx);
}

/* Whether a walk at `time` stops there: it may, BG_WALK_PATIENCE commits
 * in a row, and then does (and not before). */
static int stops(bg_walk_bound *b, int64_t time)
{
	int k;

	for (k = 1; k < BG_WALK_PATIENCE; k++)
		if (bg_walk_bound_done(b, time))
			return 0;
	return bg_walk_bound_done(b, time);
}

/* Points of commits "a", "b", "c"... at these author times. */
static bg_walk_point *points(const int64_t *t, size_t n)
{
	static const char *const names[] = { "a", "b", "c", "d" };
	static bg_walk_point p[4];
	size_t i;

	for (i = 0; i < n; i++) {
		p[i].sha = names[i];
		p[i].author_time = t[i];
	}
	return p;
}

/*
 * When a walk looking for stored commits may stop: once its committer time
 * is more than a day of clock skew below the author time of every stored
 * commit not met yet, for BG_WALK_PATIENCE commits in a row; never while an
 * older stored commit may lie behind.  (No repository: a commit it would
 * look up counts as not there.)
 */
static void test_walk_bound(void **state)
{
	const int64_t day = 86400, t[] = { 100 * day, 50 * day, 100 * day };
	bg_walk_bound b;
	int k;

	(void)state;
	assert_int_equal(bg_walk_bound_init(&b, NULL, points(t, 3), 3), 0);
	assert_false(stops(&b, 120 * day));
	bg_walk_bound_meet(&b, 100 * day);
	/* One commit of day 100 is still to be met: until the walk is a day
	 * and more behind it, it may come. */
	assert_false(stops(&b, 99 * day));
	/* A walk at day 20 for 64 commits has passed every commit of days 50
	 * and 100 it could meet: nothing not met can lie further back. */
	assert_true(stops(&b, 20 * day));
	bg_walk_bound_clear(&b);

	/* One commit dated far back (a clock reset) does not end the walk:
	 * the next one, dated as its neighbours, starts the count again. */
	assert_int_equal(bg_walk_bound_init(&b, NULL, points(t, 3), 3), 0);
	for (k = 0; k < 10 * BG_WALK_PATIENCE; k++)
		assert_false(bg_walk_bound_done(&b, k % 2 ? 1 : 99 * day));
	bg_walk_bound_meet(&b, 50 * day);
	bg_walk_bound_meet(&b, 100 * day);
	assert_false(stops(&b, 99 * day));
	assert_true(stops(&b, 98 * day));
	bg_walk_bound_meet(&b, 100 * day);
	assert_true(bg_walk_bound_done(&b, 1000 * day)); /* every one met */
	bg_walk_bound_clear(&b);
	bg_walk_bound_clear(&b);

	/* An unknown author time (0) never lets the walk stop early. */
	{
		const int64_t u[] = { 0, 10 * day };

		assert_int_equal(bg_walk_bound_init(&b, NULL, points(u, 2), 2), 0);
		bg_walk_bound_meet(&b, 10 * day);
		assert_false(stops(&b, 1));
		bg_walk_bound_clear(&b);
	}
	assert_int_equal(bg_walk_bound_init(&b, NULL, NULL, 0), 0);
	assert_true(bg_walk_bound_done(&b, 0));
	bg_walk_bound_clear(&b);
}

/*
 * The same in a repository, where a stored commit's author date ran days
 * ahead of its commit date (an author's fast clock, then a rebase): the
 * walk stopped days before it, and its runs left the baseline.  Looked up
 * when the walk would stop, it is found to lie behind, and the walk goes on
 * until it is met or passed by its commit date.
 */
static void test_walk_bound_skewed(void **state)
{
	const int64_t day = 86400, base = 1700000000;
	bg_ctx *ctx = NULL;
	bg_repo *r;
	bg_walk_bound b;
	bg_walk_point p;
	char sha[64];

	(void)state;
	sh("git init -q -b main skew && cd skew && " AUTHOR
	   "GIT_AUTHOR_DATE='1700864000 +0000' GIT_COMMITTER_DATE='1700000000 +0000' "
	   "git commit -q --allow-empty -m x");
	capture(sha, sizeof(sha), "git -C skew rev-parse HEAD");
	assert_int_equal(bg_ctx_new(&ctx), 0);
	r = open_repo(ctx, "skew");
	p.sha = sha;
	p.author_time = base + 10 * day; /* its author date, 10 days ahead */
	assert_int_equal(bg_walk_bound_init(&b, r, &p, 1), 0);
	/* Two days after it was committed, eight before its author date. */
	assert_false(stops(&b, base + 2 * day));
	assert_false(stops(&b, base + 2 * day));
	/* Passed by its commit date, with the skew: it is not behind. */
	assert_true(stops(&b, base - 2 * day));
	bg_walk_bound_clear(&b);

	/* A commit the repository does not have cannot be met: it stops nothing. */
	p.sha = "0123456789012345678901234567890123456789";
	assert_int_equal(bg_walk_bound_init(&b, r, &p, 1), 0);
	assert_true(stops(&b, base - 2 * day));
	bg_walk_bound_clear(&b);
	bg_repo_free(r);
	bg_ctx_free(ctx);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_head),
		cmocka_unit_test(test_walk_first_parent),
		cmocka_unit_test(test_walk_bound),
		cmocka_unit_test(test_walk_bound_skewed),
		cmocka_unit_test(test_walk_shallow),
		cmocka_unit_test(test_dirty),
		cmocka_unit_test(test_untracked_is_not_dirty),
		cmocka_unit_test(test_sparse_is_not_dirty),
		cmocka_unit_test(test_submodule),
		cmocka_unit_test(test_detached),
		cmocka_unit_test(test_branch_tip_unreadable),
		cmocka_unit_test(test_lookup),
		cmocka_unit_test(test_lookup_on),
		cmocka_unit_test(test_open_from_subdirectory),
		cmocka_unit_test(test_not_a_repository),
		cmocka_unit_test(test_empty_repository),
		cmocka_unit_test(test_free_and_clear_are_noops),
		cmocka_unit_test(test_checkout),
		cmocka_unit_test(test_checkout_submodule),
		cmocka_unit_test(test_is_ancestor),
		cmocka_unit_test(test_first_parent_range),
	};
	return cmocka_run_group_tests_name("git", tests, setup, teardown);
}
