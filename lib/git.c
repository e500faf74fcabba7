/*
 * git.c -- which commit a run measures: the repository around a path, HEAD
 * (with its branch and whether the tree is dirty) and any revision, through
 * libgit2.  This is the only file that includes git2.h.
 *
 * "Dirty" means tracked content differs from HEAD, in the index or the work
 * tree.  Untracked and ignored files never count: the results database lives
 * in an untracked .benchguard/ and build outputs are untracked, and neither
 * changes what is measured.  For the same reason a submodule whose only
 * change is untracked files inside it is clean.
 *
 * Pinned commits are written into plain directories (bg_repo_checkout)
 * through an index of their own, never the repository's, with their
 * submodules at the recorded commits; ancestry questions for bisect are
 * answered along first parents.
 *
 * libgit2 keeps its last error per thread; every failure copies it into the
 * bg_ctx at once, before another libgit2 call can replace it.
 */
#include <dirent.h>
#include <errno.h>
#include <iconv.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <unistd.h>

#include <git2.h>

#include "internal.h"

struct bg_repo {
	git_repository *repo;
	char *workdir;  /* without the trailing slash */
	int said_stale; /* bg_repo_branch_tip's word on a stale local branch, once */
};

/* Sets the context's message to "<what>: <libgit2's reason>". */
static int git__fail(bg_ctx *ctx, int code, const char *what)
{
	const git_error *e = git_error_last();

	if (e && e->message && *e->message)
		return bg_error_set(ctx, code, "%s: %s", what, e->message);
	return bg_error_set(ctx, code, "%s", what);
}

/* s as one shell word, quoted where it needs it (a path with a blank), a
 * ' inside written '\'', so that a command given in a message can be
 * pasted as it is. */
static int git__shell_word(bg_buf *b, const char *s)
{
	int e = 0;

	if (!s[strcspn(s, " \t'\"\\$`!*?[]{}()<>|&;#~")])
		return bg_buf_puts(b, s);
	e |= bg_buf_put(b, "'", 1);
	for (; *s; s++)
		e |= *s == '\'' ? bg_buf_puts(b, "'\\''") : bg_buf_put(b, s, 1);
	e |= bg_buf_put(b, "'", 1);
	return e ? -1 : 0;
}

/*
 * Why a repository did not open, when it is another user's: git refuses
 * one it does not own unless safe.directory names it, and libgit2 1.5 says
 * "not found" when no safe.directory is set at all, and takes no "*" (git
 * does).  The nearest folder above `path` with a .git, on the same file
 * system (libgit2 looks no further), is the repository the open looked
 * for; when it or its .git is another user's, that is said, with the
 * command that allows it.  0: not that (the caller says what it was).
 */
static int git__foreign(bg_ctx *ctx, const char *path)
{
	char *dir = realpath(path, NULL), *slash, *dotgit;
	struct stat sb, top;
	dev_t dev = 0;
	int err = 0;

	if (dir && stat(dir, &sb) == 0)
		dev = sb.st_dev;
	while (dir && stat(dir, &top) == 0 && top.st_dev == dev) {
		if (!(dotgit = bg_printf("%s/.git", strcmp(dir, "/") ? dir : ""))) {
			err = bg_error_oom(ctx);
			break;
		}
		if (lstat(dotgit, &sb) == 0) {
			uid_t owner = top.st_uid != geteuid() ? top.st_uid : sb.st_uid;
			bg_buf q = BG_BUF_INIT;

			if (git__shell_word(&q, dir) < 0)
				err = bg_error_oom(ctx);
			else if (owner != geteuid())
				err = bg_error_set(
				        ctx, BG_EINPUT,
				        "%s: the repository belongs to another user (uid "
				        "%ld), and git's safe.directory does not name it: "
				        "git config --global --add safe.directory %s (this "
				        "libgit2 takes the path itself, not \"*\")",
				        dir, (long)owner, q.ptr);
			bg_buf_clear(&q);
			free(dotgit);
			break;
		}
		free(dotgit);
		if (!strcmp(dir, "/") || !(slash = strrchr(dir, '/')))
			break;
		slash[slash == dir] = '\0';
	}
	free(dir);
	return err;
}

/*
 * libgit2 as Debian builds it (with mbedTLS) parses the system's whole CA
 * bundle in git_libgit2_init: about 140 certificates through mbedTLS's
 * constant-time base64, 5 to 7 ms of every command's start on a 2-core VM,
 * more than the rest of a one-sample `run`.  benchguard makes a TLS
 * connection through libgit2 only to clone a submodule from an https URL.
 * So the benchguard binary defines and exports mbedtls_x509_crt_parse_file
 * (cmd/main.c, and the Makefile), which asks bg_git__defer_ca whether to
 * answer the parse git_libgit2_init asks for with an empty chain; it
 * remembers the file, and git__tls_ready loads it, through the same libgit2
 * option a program would use, before such a clone.  Every other call goes
 * to mbedTLS unchanged; where libgit2 uses OpenSSL, nothing calls it.  The
 * library defines no mbedTLS name: a program linking it, shared or static,
 * keeps libgit2's start-up as it is (and its own mbedTLS, if it has one).
 *
 * This is process-wide state, as libgit2's own initialisation is.  It is
 * armed only in the thread where bg_repo_open initialises libgit2, which
 * parses there and then (a load for a clone in another thread is never
 * taken for it), and the file is kept until the next initialisation.
 */
static _Thread_local int git__ca_armed; /* this thread initialises libgit2 */
static atomic_int git__ca_deferred;     /* git__ca_file awaits loading */
static char git__ca_file[4096];

int bg_git__defer_ca(const char *path)
{
	if (!git__ca_armed || !path || strlen(path) >= sizeof(git__ca_file))
		return 0;
	git__ca_armed = 0;
	memcpy(git__ca_file, path, strlen(path) + 1);
	atomic_store(&git__ca_deferred, 1);
	return 1;
}

/* Loads the CA bundle git_libgit2_init was not let to, before a
 * connection that may need it.  A failure is libgit2's to report when the
 * certificate cannot be checked, as when its own load fails. */
static void git__tls_ready(void)
{
	if (atomic_exchange(&git__ca_deferred, 0))
		git_libgit2_opts(GIT_OPT_SET_SSL_CERT_LOCATIONS, git__ca_file, NULL);
}

static int git__init(void)
{
	int rc;

	git__ca_armed = 1;
	rc = git_libgit2_init();
	git__ca_armed = 0;
	return rc;
}

/*
 * GIT_DIR or GIT_WORK_TREE naming another repository than the one found
 * from `path` (git's own tools follow them; benchguard finds the repository
 * around the directory it runs in): refused, naming both, rather than
 * measuring and storing the other repository's suite.  In a git hook,
 * where GIT_DIR is that same repository's .git, nothing is said.  `found`
 * is the repository's .git (NULL: none was found).
 */
static int git_env_differs(bg_ctx *ctx, const char *found, const char *workdir)
{
	static const char *const vars[] = { "GIT_DIR", "GIT_WORK_TREE" };
	size_t i;
	int err = 0;

	for (i = 0; i < BG_ARRAY_SIZE(vars) && !err; i++) {
		const char *v = getenv(vars[i]), *here = i ? workdir : found;
		char *a, *b;

		if (!v || !*v)
			continue;
		a = realpath(v, NULL);
		b = here ? realpath(here, NULL) : NULL;
		if (!a || !b || strcmp(a, b))
			err = bg_error_set(
			        ctx, BG_EINPUT,
			        "%s is %s, but benchguard reads the repository around the "
			        "folder it runs in (%s): run it in that repository's work "
			        "tree, or unset %s",
			        vars[i], v, here ? here : "none here", vars[i]);
		free(a);
		free(b);
	}
	return err;
}

int bg_repo_open(bg_ctx *ctx, const char *path, bg_repo **out)
{
	bg_repo *r = NULL;
	const char *wd;
	size_t len;
	int err, foreign;

	BG_NEED(ctx, out);

	*out = NULL;
	if (!path || !*path)
		path = ".";
	/* Refcounted by libgit2; balanced by the shutdown in bg_repo_free. */
	if (git__init() < 0)
		return git__fail(ctx, BG_ERROR, "cannot initialise libgit2");
	if (!(r = calloc(1, sizeof(*r)))) {
		git_libgit2_shutdown();
		return bg_error_oom(ctx);
	}
	err = git_repository_open_ext(&r->repo, path, 0, NULL);
	if ((err == GIT_ENOTFOUND || err == GIT_EOWNER) &&
	    (foreign = git__foreign(ctx, path)) < 0) {
		err = foreign;
		goto fail;
	}
	if ((err == 0 || err == GIT_ENOTFOUND) &&
	    git_env_differs(ctx, err ? NULL : git_repository_path(r->repo),
	                    err ? NULL : git_repository_workdir(r->repo)) < 0) {
		err = BG_EINPUT;
		goto fail;
	}
	if (err == GIT_ENOTFOUND) {
		/* "." says nothing in a message: name the directory. */
		char *abs = realpath(path, NULL);

		err = bg_error_set(ctx, BG_EINPUT,
		                   "not a git repository: %s (benchguard needs one to know which "
		                   "commit it measures)",
		                   abs ? abs : path);
		free(abs);
		goto fail;
	}
	if (err < 0) {
		/* Not owned by us (safe.directory) is the user's to fix. */
		err = git__fail(ctx, err == GIT_EOWNER ? BG_EINPUT : BG_ERROR, path);
		goto fail;
	}
	if (git_repository_is_bare(r->repo) || !(wd = git_repository_workdir(r->repo))) {
		err = bg_error_set(ctx, BG_EINPUT,
		                   "%s: a bare repository has no working tree to build and run "
		                   "benchmarks in",
		                   path);
		goto fail;
	}
	len = strlen(wd);
	while (len > 1 && wd[len - 1] == '/')
		len--;
	if (!(r->workdir = strndup(wd, len))) {
		err = bg_error_oom(ctx);
		goto fail;
	}
	*out = r;
	return 0;
fail:
	bg_repo_free(r);
	return err;
}

void bg_repo_free(bg_repo *repo)
{
	if (!repo)
		return;
	git_repository_free(repo->repo);
	free(repo->workdir);
	free(repo);
	git_libgit2_shutdown();
}

const char *bg_repo_workdir(const bg_repo *repo)
{
	return repo ? repo->workdir : NULL;
}

void bg_commit_clear(bg_commit *c)
{
	if (!c)
		return;
	free(c->branch);
	free(c->author);
	free(c->subject);
	memset(c, 0, sizeof(*c));
}

/*
 * *s from the encoding the commit declares (git's "encoding" header, which
 * `i18n.commitEncoding` writes: a Latin-1 "caf\xe9") into UTF-8, so that it
 * is stored as the author wrote it rather than with U+FFFD for each byte
 * the store would find invalid.  The text is left as it is when the commit
 * declares none (git's default: UTF-8), or iconv does not know the name or
 * cannot convert it: the store then repairs what is not UTF-8.
 */
static int to_utf8(bg_ctx *ctx, const char *encoding, char **s)
{
	iconv_t cd;
	char *in, *out, *conv;
	size_t left, room, cap;

	if (!encoding || !*s || !strcasecmp(encoding, "UTF-8") || !strcasecmp(encoding, "UTF8"))
		return 0;
	if ((cd = iconv_open("UTF-8", encoding)) == (iconv_t)-1)
		return 0;
	left = strlen(*s);
	/* Four bytes of UTF-8 per byte in is enough for any single-byte
	 * encoding, and for the others more than they need. */
	cap = 4 * left + 1;
	if (!(conv = malloc(cap))) {
		iconv_close(cd);
		return bg_error_oom(ctx);
	}
	in = *s;
	out = conv;
	room = cap - 1;
	if (iconv(cd, &in, &left, &out, &room) == (size_t)-1 ||
	    iconv(cd, NULL, NULL, &out, &room) == (size_t)-1) {
		free(conv);
		iconv_close(cd);
		return 0;
	}
	iconv_close(cd);
	*out = '\0';
	free(*s);
	*s = conv;
	return 0;
}

/* SHA, author and subject of a commit into *out (the branch and dirty flag are the caller's). */
static int fill_commit(bg_ctx *ctx, const git_commit *commit, bg_commit *out)
{
	const git_signature *sig = git_commit_author(commit);
	const char *msg = git_commit_message(commit);
	const char *encoding = git_commit_message_encoding(commit);
	bg_buf author = BG_BUF_INIT;
	size_t len;

	git_oid_tostr(out->sha, sizeof(out->sha), git_commit_id(commit));
	if (sig) {
		out->author_time = (int64_t)sig->when.time;
		if (bg_buf_printf(&author, "%s <%s>", sig->name ? sig->name : "",
		                  sig->email ? sig->email : "") < 0 ||
		    !(out->author = bg_buf_detach(&author))) {
			bg_buf_clear(&author);
			return bg_error_oom(ctx);
		}
	}
	/* The first line, as the brief history shows it; libgit2 already
	 * dropped leading blank lines. */
	if (!msg)
		msg = "";
	len = strcspn(msg, "\n");
	while (len > 0 && (msg[len - 1] == '\r' || msg[len - 1] == ' ' || msg[len - 1] == '\t'))
		len--;
	if (!(out->subject = strndup(msg, len)))
		return bg_error_oom(ctx);
	/* git writes the author's name in the message's encoding too. */
	if (to_utf8(ctx, encoding, &out->subject) < 0 || to_utf8(ctx, encoding, &out->author) < 0)
		return BG_ENOMEM;
	return 0;
}

/*
 * Is a submodule's change only untracked files inside it?  Those are build
 * outputs as much as the top-level ones, so they don't make the tree dirty.
 */
static int submodule_only_untracked(git_repository *repo, const char *path)
{
	unsigned int st = 0;

	if (git_submodule_status(&st, repo, path, GIT_SUBMODULE_IGNORE_UNTRACKED) < 0)
		return 0;
	return !(st & (GIT_SUBMODULE_STATUS_INDEX_ADDED | GIT_SUBMODULE_STATUS_INDEX_DELETED |
	               GIT_SUBMODULE_STATUS_INDEX_MODIFIED | GIT_SUBMODULE_STATUS_WD_UNINITIALIZED |
	               GIT_SUBMODULE_STATUS_WD_ADDED | GIT_SUBMODULE_STATUS_WD_DELETED |
	               GIT_SUBMODULE_STATUS_WD_MODIFIED | GIT_SUBMODULE_STATUS_WD_INDEX_MODIFIED |
	               GIT_SUBMODULE_STATUS_WD_WD_MODIFIED));
}

static int is_submodule_entry(const git_status_entry *e)
{
	const git_diff_delta *d = e->index_to_workdir ? e->index_to_workdir : e->head_to_index;

	return d &&
	       (d->old_file.mode == GIT_FILEMODE_COMMIT || d->new_file.mode == GIT_FILEMODE_COMMIT);
}

/*
 * A file missing from the working tree because the index marks it
 * skip-worktree: outside a sparse checkout's cone (actions/checkout's
 * `sparse-checkout:`), which git calls clean and libgit2 deleted, so
 * every run of a sparse checkout was stored dirty.
 */
static int skipped_in_worktree(git_index *index, const git_status_entry *e)
{
	const git_index_entry *ie;
	const char *path = e->index_to_workdir ? e->index_to_workdir->old_file.path : NULL;

	if (!index || !path || !(ie = git_index_get_bypath(index, path, 0)))
		return 0;
	return (ie->flags_extended & GIT_INDEX_ENTRY_SKIP_WORKTREE) != 0;
}

static int tree_is_dirty(bg_ctx *ctx, git_repository *repo, int *dirty)
{
	git_status_options opts;
	git_status_list *list = NULL;
	git_index *index = NULL;
	const git_status_entry *e;
	const char *path;
	size_t i, n;

	*dirty = 0;
	if (git_status_options_init(&opts, GIT_STATUS_OPTIONS_VERSION) < 0)
		return git__fail(ctx, BG_ERROR, "cannot read the working tree's status");
	opts.show = GIT_STATUS_SHOW_INDEX_AND_WORKDIR;
	/* Not GIT_STATUS_OPT_DEFAULTS: no untracked or ignored files, and so no
	 * walk into untracked directories either. */
	opts.flags = 0;
	if (git_status_list_new(&list, repo, &opts) < 0)
		return git__fail(ctx, BG_ERROR, "cannot read the working tree's status");
	if (git_repository_index(&index, repo) < 0)
		index = NULL; /* then no entry is known to be skipped */
	n = git_status_list_entrycount(list);
	for (i = 0; i < n && !*dirty; i++) {
		e = git_status_byindex(list, i);
		if (!e || e->status == GIT_STATUS_CURRENT ||
		    (e->status & (GIT_STATUS_WT_NEW | GIT_STATUS_IGNORED)) == e->status)
			continue;
		if (is_submodule_entry(e)) {
			const git_diff_delta *d =
			        e->index_to_workdir ? e->index_to_workdir : e->head_to_index;
			path = d->new_file.path ? d->new_file.path : d->old_file.path;
			if (path && submodule_only_untracked(repo, path))
				continue;
		}
		if (e->status == GIT_STATUS_WT_DELETED && skipped_in_worktree(index, e))
			continue;
		*dirty = 1;
	}
	git_status_list_free(list);
	git_index_free(index);
	return 0;
}

int bg_repo_head(bg_ctx *ctx, bg_repo *repo, bg_commit *out)
{
	git_reference *head = NULL;
	git_object *obj = NULL;
	bg_commit c;
	int err;

	BG_NEED(ctx, repo);
	BG_NEED(ctx, out);

	memset(out, 0, sizeof(*out));
	memset(&c, 0, sizeof(c));
	err = git_repository_head_unborn(repo->repo);
	if (err == 1) {
		err = bg_error_set(ctx, BG_EINPUT, "repository has no commits yet: %s",
		                   repo->workdir);
		goto cleanup;
	}
	if (err < 0 || (err = git_repository_head(&head, repo->repo)) < 0) {
		err = git__fail(ctx, BG_ERROR, "cannot read HEAD");
		goto cleanup;
	}
	if ((err = git_reference_peel(&obj, head, GIT_OBJECT_COMMIT)) < 0) {
		err = git__fail(ctx, BG_ERROR, "HEAD is not a commit");
		goto cleanup;
	}
	if ((err = fill_commit(ctx, (const git_commit *)obj, &c)) < 0)
		goto cleanup;
	if (git_reference_is_branch(head) && !(c.branch = strdup(git_reference_shorthand(head)))) {
		err = bg_error_oom(ctx);
		goto cleanup;
	}
	if ((err = tree_is_dirty(ctx, repo->repo, &c.dirty)) < 0)
		goto cleanup;
	*out = c;
	memset(&c, 0, sizeof(c));
	err = 0;
cleanup:
	bg_commit_clear(&c);
	git_object_free(obj);
	git_reference_free(head);
	return err;
}

int bg_repo_head_branch(bg_ctx *ctx, bg_repo *repo, char **out)
{
	static const char heads[] = "refs/heads/";
	git_reference *head = NULL;
	const char *target;
	int err = 0;

	BG_NEED(ctx, repo);
	BG_NEED(ctx, out);
	*out = NULL;
	/* HEAD itself, not what it resolves to: an unborn branch resolves to
	 * nothing, and its name is all there is. */
	if (git_reference_lookup(&head, repo->repo, "HEAD") < 0)
		return git__fail(ctx, BG_ERROR, "cannot read HEAD");
	if (git_reference_type(head) == GIT_REFERENCE_SYMBOLIC &&
	    (target = git_reference_symbolic_target(head)) &&
	    !strncmp(target, heads, sizeof(heads) - 1) && target[sizeof(heads) - 1] &&
	    !(*out = strdup(target + sizeof(heads) - 1)))
		err = bg_error_oom(ctx);
	git_reference_free(head);
	return err;
}

/*
 * The branch name when `rev` is exactly a branch that points at `id`: a
 * local one by its name, a remote-tracking one ("origin/main") by the
 * remote's branch name ("main"), as bg_repo_branch_tip finds it.
 */
static int branch_of_rev(bg_ctx *ctx, git_repository *repo, const char *rev, const git_oid *id,
                         char **branch)
{
	git_reference *ref = NULL;
	git_object *tip = NULL;
	const char *name = rev, *slash;
	int err = 0;

	*branch = NULL;
	/* "HEAD" (or "@") on a branch is that branch, as a run at HEAD says. */
	if (!strcmp(rev, "HEAD") || !strcmp(rev, "@")) {
		if (git_repository_head(&ref, repo) == 0 && git_reference_is_branch(ref) &&
		    git_reference_peel(&tip, ref, GIT_OBJECT_COMMIT) == 0 &&
		    git_oid_equal(git_object_id(tip), id) &&
		    !(*branch = strdup(git_reference_shorthand(ref))))
			err = bg_error_oom(ctx);
		git_object_free(tip);
		git_reference_free(ref);
		return err;
	}
	if (git_branch_lookup(&ref, repo, rev, GIT_BRANCH_LOCAL) < 0) {
		if (git_branch_lookup(&ref, repo, rev, GIT_BRANCH_REMOTE) < 0 ||
		    !(slash = strchr(rev, '/')) || !slash[1]) {
			git_reference_free(ref);
			return 0;
		}
		name = slash + 1;
	}
	/* A tag of the same name wins in revparse; then this is not the branch. */
	if (git_reference_peel(&tip, ref, GIT_OBJECT_COMMIT) == 0 &&
	    git_oid_equal(git_object_id(tip), id) && !(*branch = strdup(name)))
		err = bg_error_oom(ctx);
	git_object_free(tip);
	git_reference_free(ref);
	return err;
}

int bg_repo_lookup(bg_ctx *ctx, bg_repo *repo, const char *rev, bg_commit *out)
{
	git_object *obj = NULL, *commit = NULL;
	bg_commit c;
	int err;

	BG_NEED(ctx, repo);
	BG_NEED(ctx, out);

	memset(out, 0, sizeof(*out));
	memset(&c, 0, sizeof(c));
	if (!rev || !*rev)
		return bg_error_set(ctx, BG_EINPUT, "empty revision");
	err = git_revparse_single(&obj, repo->repo, rev);
	if (err == GIT_ENOTFOUND || err == GIT_EINVALIDSPEC || err == GIT_EUNBORNBRANCH) {
		/* HEAD~2 of a depth-1 clone is not unknown, only not fetched. */
		err = bg_error_set(ctx, BG_ENOTFOUND, "unknown revision \"%s\"%s", rev,
		                   bg_repo_is_shallow(repo)
		                           ? " (this is a shallow clone, which may lack it: fetch "
		                             "the whole history, git fetch --unshallow; "
		                             "fetch-depth: 0 in actions/checkout)"
		                           : "");
		goto cleanup;
	}
	if (err == GIT_EAMBIGUOUS) {
		err = bg_error_set(ctx, BG_EINPUT,
		                   "ambiguous revision \"%s\": give more digits of the SHA", rev);
		goto cleanup;
	}
	if (err < 0) {
		err = git__fail(ctx, BG_ERROR, rev);
		goto cleanup;
	}
	if (git_object_peel(&commit, obj, GIT_OBJECT_COMMIT) < 0) {
		err = bg_error_set(ctx, BG_EINPUT, "revision \"%s\" is a %s, not a commit", rev,
		                   git_object_type2string(git_object_type(obj)));
		goto cleanup;
	}
	if ((err = fill_commit(ctx, (const git_commit *)commit, &c)) < 0 ||
	    (err = branch_of_rev(ctx, repo->repo, rev, git_object_id(commit), &c.branch)) < 0)
		goto cleanup;
	*out = c;
	memset(&c, 0, sizeof(c));
	err = 0;
cleanup:
	bg_commit_clear(&c);
	git_object_free(commit);
	git_object_free(obj);
	return err;
}

/* ------------------------------------------------------------- ancestry */

/* The committer time of commit `sha` here; 0 when the repository has no such commit. */
static int commit_time(bg_repo *repo, const char *sha, int64_t *time)
{
	git_commit *c = NULL;
	git_oid id;

	if (git_oid_fromstrn(&id, sha, strlen(sha)) < 0 ||
	    git_commit_lookup(&c, repo->repo, &id) < 0)
		return 0;
	*time = (int64_t)git_commit_time(c);
	git_commit_free(c);
	return 1;
}

int bg_repo_has_commit(bg_repo *repo, const char *sha)
{
	git_odb *odb = NULL;
	git_oid id;
	int has;

	/* The object database alone: nothing read or parsed, as a check may
	 * ask this of every commit a database holds runs of. */
	if (!repo || !sha || git_oid_fromstrn(&id, sha, strlen(sha)) < 0 ||
	    git_repository_odb(&odb, repo->repo) < 0)
		return 0;
	has = git_odb_exists(odb, &id);
	git_odb_free(odb);
	return has == 1;
}

typedef struct {
	const char *sha;
	int64_t oldest; /* a commit older than this cannot precede `sha` on the line */
	int on;
	size_t streak; /* commits in a row older than that */
} on_line;

static int on_line_cb(const char *sha, int64_t time, void *data)
{
	on_line *l = data;

	if (!strcmp(sha, l->sha)) {
		l->on = 1;
		return 1;
	}
	/* Past the commit's time (with the skew a clock may have), for
	 * BG_WALK_PATIENCE commits in a row (one dated years back is a clock's
	 * mistake): it is not further back on this line. */
	if (time >= l->oldest) {
		l->streak = 0;
		return 0;
	}
	return ++l->streak >= BG_WALK_PATIENCE;
}

int bg_repo_lookup_on(bg_ctx *ctx, bg_repo *repo, const char *rev, const char *branch,
                      bg_commit *out)
{
	bg_saved_error saved;
	on_line l;
	char tip[41];
	int64_t ct;
	int err;

	if ((err = bg_repo_lookup(ctx, repo, rev, out)) < 0 || out->branch || !branch || !*branch)
		return err;
	bg_ctx__save_error(ctx, &saved);
	if (bg_repo_branch_tip(ctx, repo, branch, tip) < 0) {
		/* No such branch here: the commit is on none we can name. */
		bg_ctx__restore_error(ctx, &saved);
		return 0;
	}
	l.sha = out->sha;
	/* The earlier of its two dates: an author's fast clock put the author
	 * date days after the commit date, and the walk gave up before it. */
	l.oldest = out->author_time;
	if (commit_time(repo, out->sha, &ct) && ct < l.oldest)
		l.oldest = ct;
	l.oldest -= BG_CLOCK_SKEW;
	l.on = 0;
	l.streak = 0;
	err = bg_repo_walk_first_parent(ctx, repo, tip, on_line_cb, &l);
	/* A shallow clone's line may end before the walk can tell: the commit
	 * is then on no branch we can name, which only labels its runs.  Failing
	 * here failed compare and bisect of a commit the clone has. */
	if (err == BG_EINPUT && bg_repo_is_shallow(repo)) {
		bg_ctx__restore_error(ctx, &saved);
		err = 0;
	}
	if (err < 0) {
		bg_commit_clear(out);
		return err;
	}
	if (l.on && !(out->branch = strdup(branch))) {
		bg_commit_clear(out);
		return bg_error_oom(ctx);
	}
	return 0;
}

static int oid_of(bg_ctx *ctx, git_repository *repo, const char *sha, git_oid *out)
{
	git_object *obj = NULL;
	git_commit *c = NULL;
	int err;

	/* Full SHAs and abbreviations alike; the object must be a commit. */
	if ((err = git_revparse_single(&obj, repo, sha)) < 0) {
		if (err == GIT_ENOTFOUND || err == GIT_EAMBIGUOUS || err == GIT_EINVALIDSPEC)
			return bg_error_set(ctx, BG_ENOTFOUND,
			                    "commit %s is not in this repository", sha);
		return git__fail(ctx, BG_ERROR, "looking up a commit");
	}
	err = git_object_peel((git_object **)&c, obj, GIT_OBJECT_COMMIT);
	git_object_free(obj);
	if (err < 0)
		return bg_error_set(ctx, BG_ENOTFOUND, "%s is not a commit", sha);
	git_oid_cpy(out, git_commit_id(c));
	git_commit_free(c);
	return 0;
}

/*
 * Whether this is a GitLab runner's checkout: it fetched refs/pipelines/<id>.
 * Under a GIT_DEPTH above 0 the runner fetches the pipeline's own branch
 * and no other, and a history shorter than the depth leaves no shallow
 * clone behind to say so.
 */
static int gitlab_job(bg_repo *repo)
{
	git_reference_iterator *it = NULL;
	git_reference *ref = NULL;
	int found = 0;

	if (git_reference_iterator_glob_new(&it, repo->repo, "refs/pipelines/*") < 0)
		return 0;
	if (git_reference_next(&ref, it) == 0) {
		found = 1;
		git_reference_free(ref);
	}
	git_reference_iterator_free(it);
	return found;
}

/* At most this many branch names in the message of an unknown branch. */
#define BG_BRANCHES_SHOWN 8

/* "unknown baseline branch": and the branches there are, so that the
 * reader can pick one (a repository whose branch is not `main`). */
static int unknown_branch(bg_ctx *ctx, bg_repo *repo, const char *name)
{
	git_branch_iterator *it = NULL;
	git_reference *ref = NULL;
	git_branch_t type;
	bg_buf seen = BG_BUF_INIT;
	size_t n = 0;
	int err;

	if (git_branch_iterator_new(&it, repo->repo, GIT_BRANCH_ALL) == 0) {
		while (git_branch_next(&ref, &type, it) == 0) {
			const char *s = git_reference_shorthand(ref);
			size_t len = strlen(s);

			/* origin/HEAD names another branch, not one of its own. */
			if (git_reference_type(ref) != GIT_REFERENCE_SYMBOLIC &&
			    !(len >= 5 && !strcmp(s + len - 5, "/HEAD")) && n++ < BG_BRANCHES_SHOWN)
				bg_buf_printf(&seen, "%s%s", n > 1 ? ", " : "", s);
			git_reference_free(ref);
			ref = NULL;
		}
		git_branch_iterator_free(it);
	}
	if (n > BG_BRANCHES_SHOWN)
		bg_buf_printf(&seen, " and %zu more", n - BG_BRANCHES_SHOWN);
	/* The list shows origin's branches as git does (origin/main), and a
	 * branch is named without its remote: say so to one who copied it. */
	if (!strncmp(name, "origin/", 7) && name[7])
		err = bg_error_set(ctx, BG_EINPUT,
		                   "unknown baseline branch \"%s\": name it \"%s\" (benchguard "
		                   "reads refs/remotes/origin/%s when there is no local %s)",
		                   name, name + 7, name + 7, name + 7);
	/* A shallow checkout fetches the commit it builds and no other branch
	 * (actions/checkout's default depth on a pull request: pull/1/merge
	 * alone; GitLab's GIT_DEPTH: the pipeline's own branch): the branch
	 * was never fetched, and naming another one is no fix.  Not "unknown
	 * baseline branch", which the commands follow with that advice. */
	else if (bg_repo_is_shallow(repo))
		err = bg_error_set(ctx, BG_EINPUT,
		                   "baseline branch \"%s\" was not fetched into this shallow clone "
		                   "(no refs/heads/%s or refs/remotes/origin/%s in %s; branches "
		                   "there: %s): fetch the whole history with its branches "
		                   "(fetch-depth: 0 in actions/checkout, GIT_DEPTH: 0 on GitLab, "
		                   "or git fetch --unshallow origin "
		                   "'+refs/heads/*:refs/remotes/origin/*')",
		                   name, name, name, repo->workdir,
		                   n && seen.ptr ? seen.ptr : "none");
	else
		err = bg_error_set(ctx, BG_EINPUT,
		                   "unknown baseline branch \"%s\" (no refs/heads/%s or "
		                   "refs/remotes/origin/%s in %s); branches there: %s%s",
		                   name, name, name, repo->workdir,
		                   n && seen.ptr ? seen.ptr : "none",
		                   gitlab_job(repo) ? " (a GitLab job fetches the other branches "
		                                      "only with GIT_DEPTH: 0)"
		                                    : "");
	bg_buf_clear(&seen);
	return err;
}

/* The commit ref `ref` names, peeled: 1, 0 when there is no such ref. */
static int branch__commit(bg_ctx *ctx, bg_repo *repo, const char *ref, git_oid *out)
{
	git_object *obj = NULL, *c = NULL;
	git_oid id;
	int err;

	/* Only a ref that is not there is another name to try: one that
	 * could not be read (a corrupt file, no descriptor left) was
	 * "unknown baseline branch", exit 2, and "branches there: main". */
	if ((err = git_reference_name_to_id(&id, repo->repo, ref)) < 0) {
		if (err == GIT_ENOTFOUND || err == GIT_EINVALIDSPEC)
			return 0;
		return git__fail(ctx, BG_ERROR, "reading the baseline branch");
	}
	/* An annotated tag cannot be a branch tip, but peel anyway. */
	if ((err = git_object_lookup(&obj, repo->repo, &id, GIT_OBJECT_ANY)) < 0)
		return git__fail(ctx, BG_ERROR, "reading the baseline branch");
	err = git_object_peel(&c, obj, GIT_OBJECT_COMMIT);
	git_object_free(obj);
	if (err < 0)
		return git__fail(ctx, BG_ERROR, "reading the baseline branch");
	git_oid_cpy(out, git_object_id(c));
	git_object_free(c);
	return 1;
}

/*
 * The local branch, else origin's.  A local branch that origin's has moved
 * past is stale, not the team's branch: a runner that keeps its workspace
 * between jobs keeps the local main of whichever job last checked it out,
 * while a pull request's job fetches only origin's refs.  Judged against
 * the stale one, a pull request opened after a slowdown landed was
 * "confirmed" slower beside the commit before it.  A local branch ahead of
 * origin's, or off it, is someone's own work and stays the tip.
 */
/* libgit2 (1.5) looks for the `shallow` file in a linked worktree's own
 * git folder, where git keeps it in the common one: a worktree of a
 * shallow clone read as whole, and was told its commits were made
 * elsewhere instead of to fetch its history. */
int bg_repo_is_shallow(bg_repo *repo)
{
	const char *common;
	bg_buf path = BG_BUF_INIT;
	struct stat st;
	int yes = 0;

	if (!repo)
		return 0;
	if (git_repository_is_shallow(repo->repo) == 1)
		return 1;
	common = git_repository_commondir(repo->repo);
	if (common && bg_buf_printf(&path, "%sshallow", common) == 0 && stat(path.ptr, &st) == 0 &&
	    S_ISREG(st.st_mode) && st.st_size > 0)
		yes = 1;
	bg_buf_clear(&path);
	return yes;
}

int bg_repo_branch_tip(bg_ctx *ctx, bg_repo *repo, const char *name, char sha[41])
{
	char ref[512];
	git_oid local, origin;
	size_t ahead = 0, behind = 0;
	int has_local, has_origin;

	sha[0] = '\0';
	if (!name || !*name)
		return bg_error_set(ctx, BG_EINPUT, "no baseline branch named");
	snprintf(ref, sizeof(ref), "refs/heads/%s", name);
	if ((has_local = branch__commit(ctx, repo, ref, &local)) < 0)
		return has_local;
	snprintf(ref, sizeof(ref), "refs/remotes/origin/%s", name);
	if ((has_origin = branch__commit(ctx, repo, ref, &origin)) < 0)
		return has_origin;
	if (!has_local && !has_origin)
		return unknown_branch(ctx, repo, name);
	/* Not an error when the history between them is missing (a shallow
	 * clone): the local branch then stays the tip, as before. */
	if (has_local && has_origin && !git_oid_equal(&local, &origin) &&
	    git_graph_ahead_behind(&ahead, &behind, repo->repo, &local, &origin) == 0 &&
	    behind > 0) {
		char l[13], o[13];

		git_oid_tostr(l, sizeof(l), &local);
		git_oid_tostr(o, sizeof(o), &origin);
		if (!ahead) {
			if (!repo->said_stale++)
				bg_log(ctx, BG_LOG_INFO,
				       "baseline branch %s: origin/%s (%s), which the local %s "
				       "(%s) is %zu commit%s behind",
				       name, name, o, name, l, behind, behind == 1 ? "" : "s");
			has_local = 0;
		} else if (!repo->said_stale++) {
			/* A force-push leaves a kept workspace's branch off
			 * origin's, not behind it: whose history is the team's
			 * is not for benchguard to guess. */
			bg_log(ctx, BG_LOG_WARN,
			       "the local %s (%s) and origin/%s (%s) have diverged (%zu and %zu "
			       "commits of their own): the baseline follows the local one; if "
			       "origin's was pushed over it, update it (git branch -f %s "
			       "origin/%s)",
			       name, l, name, o, ahead, behind, name, name);
		}
	}
	git_oid_tostr(sha, 41, has_local ? &local : &origin);
	return 0;
}

int bg_repo_branch_tips(bg_ctx *ctx, bg_repo *repo, char (**shas)[41], size_t *n)
{
	git_branch_iterator *it = NULL;
	git_reference *ref = NULL, *direct = NULL;
	git_branch_t type;
	char(*out)[41] = NULL;
	size_t len = 0, cap = 0;
	int error = 0, rc;

	*shas = NULL;
	*n = 0;
	if (git_branch_iterator_new(&it, repo->repo, GIT_BRANCH_ALL) < 0)
		return git__fail(ctx, BG_ERROR, "listing branches");
	while ((rc = git_branch_next(&ref, &type, it)) == 0) {
		/* origin/HEAD names another branch: resolved, it is that one. */
		if (git_reference_resolve(&direct, ref) == 0 && git_reference_target(direct)) {
			if (bg_grow((void **)&out, &cap, len, sizeof(*out)) < 0) {
				error = bg_error_oom(ctx);
				break;
			}
			git_oid_tostr(out[len++], 41, git_reference_target(direct));
		}
		git_reference_free(direct);
		git_reference_free(ref);
		direct = ref = NULL;
	}
	git_reference_free(direct);
	git_reference_free(ref);
	git_branch_iterator_free(it);
	if (!error && rc != GIT_ITEROVER)
		error = git__fail(ctx, BG_ERROR, "listing branches");
	if (error < 0) {
		free(out);
		return error;
	}
	*shas = out;
	*n = len;
	return 0;
}

/* A shallow clone lacks `what` benchguard needs: BG_EINPUT saying how to
 * fetch the whole history. */
/* A partial clone: extensions.partialClone, or origin a promisor remote,
 * as `git clone --filter` sets up.  Named keys only: listing the remotes
 * or a glob goes through libgit2's regex iterator, which leaks (pcre2
 * match data). */
static int is_partial_clone(git_repository *repo)
{
	git_config *cfg = NULL;
	git_buf b = { NULL, 0, 0 };
	int found = 0, yes;

	if (git_repository_config_snapshot(&cfg, repo) < 0)
		return 0;
	if (git_config_get_string_buf(&b, cfg, "extensions.partialclone") == 0)
		found = b.size > 0;
	git_buf_dispose(&b);
	if (!found)
		found = git_config_get_bool(&yes, cfg, "remote.origin.promisor") == 0 && yes;
	git_config_free(cfg);
	return found;
}

static int shallow_error(bg_ctx *ctx, const char *what)
{
	return bg_error_set(ctx, BG_EINPUT,
	                    "this shallow clone%s: fetch the whole history (git fetch "
	                    "--unshallow; fetch-depth: 0 in actions/checkout, GIT_DEPTH: 0 on "
	                    "GitLab)",
	                    what);
}

int bg_repo_merge_base(bg_ctx *ctx, bg_repo *repo, const char *a, const char *b, char sha[41])
{
	git_oid ia, ib, base;
	int err;

	sha[0] = '\0';
	if ((err = oid_of(ctx, repo->repo, a, &ia)) < 0 ||
	    (err = oid_of(ctx, repo->repo, b, &ib)) < 0)
		return err;
	err = git_merge_base(&base, repo->repo, &ia, &ib);
	/* A depth-1 checkout of a pull request (actions/checkout's default)
	 * has neither side's parents: libgit2 says "object not found" for the
	 * first it lacks, or finds no common history.  Say what to do. */
	if (err < 0 && bg_repo_is_shallow(repo))
		return shallow_error(ctx, " lacks the history where the two commits meet, which "
		                          "benchguard needs to find the baseline");
	if (err == GIT_ENOTFOUND)
		return bg_error_set(ctx, BG_EINPUT,
		                    "commits %.12s and %.12s have no common history", a, b);
	if (err < 0)
		return git__fail(ctx, BG_ERROR, "finding the merge base");
	git_oid_tostr(sha, 41, &base);
	return 0;
}

/*
 * A first-parent walk that cannot go past `c` because this is a shallow
 * clone (a CI checkout of depth 1) whose history ends there: BG_EINPUT with
 * what to do, rather than libgit2's "object not found" for the parent it
 * lacks (libgit2 1.5) or a root commit that is none (later ones, which read
 * .git/shallow and give the boundary no parents).  0 when the walk truly
 * reached the root.
 */
static int shallow_end(bg_ctx *ctx, bg_repo *repo, const git_commit *c)
{
	char hex[41], line[128];
	const char *common = git_repository_commondir(repo->repo);
	bg_buf path = BG_BUF_INIT;
	FILE *f;
	int listed = 0;

	if (!bg_repo_is_shallow(repo))
		return 0;
	git_oid_tostr(hex, sizeof(hex), git_commit_id(c));
	/* A commit with parents here lacks them only because of the clone's depth. */
	if (git_commit_parentcount(c) > 0)
		listed = 1;
	else if (common && bg_buf_printf(&path, "%sshallow", common) == 0 &&
	         (f = fopen(path.ptr, "r")) != NULL) {
		while (!listed && fgets(line, sizeof(line), f))
			listed = !strncmp(line, hex, 40);
		fclose(f);
	}
	bg_buf_clear(&path);
	if (!listed)
		return 0;
	snprintf(line, sizeof(line),
	         "'s history ends at %.12s, and benchguard needs the commits "
	         "before it",
	         hex);
	return shallow_error(ctx, line);
}

int bg_repo_walk_first_parent(bg_ctx *ctx, bg_repo *repo, const char *sha, bg_walk_cb cb,
                              void *data)
{
	git_commit *c = NULL, *parent = NULL;
	git_oid id;
	char hex[41];
	int err, rc = 0;

	if ((err = oid_of(ctx, repo->repo, sha, &id)) < 0)
		return err;
	/*
	 * First parents only: the baseline is the branch's own line of commits,
	 * not whatever was merged into it.  Chased one commit at a time rather
	 * than with a sorted revwalk, which reads the whole history before it
	 * yields the first commit: a walk that stops after 20 commits then
	 * costs 20 commits in a repository of a million.
	 */
	if (git_commit_lookup(&c, repo->repo, &id) < 0)
		return git__fail(ctx, BG_ERROR, "reading a commit");
	for (;;) {
		git_oid_tostr(hex, sizeof(hex), git_commit_id(c));
		if ((rc = cb(hex, (int64_t)git_commit_time(c), data)) != 0)
			break;
		if (git_commit_parentcount(c) == 0) {
			rc = shallow_end(ctx, repo, c);
			break;
		}
		if (git_commit_parent(&parent, c, 0) < 0) {
			if ((rc = shallow_end(ctx, repo, c)) == 0)
				rc = git__fail(ctx, BG_ERROR, "walking the history");
			break;
		}
		git_commit_free(c);
		c = parent;
	}
	git_commit_free(c);
	return rc > 0 ? 0 : rc;
}

/* ------------------------------------------------------------ walk bound */

enum {
	WALK_OPEN = 0, /* not met, not looked up */
	WALK_DONE,     /* met, or known not to lie behind the walk */
	WALK_BEHIND    /* looked up: its committer time may lie behind the walk */
};

typedef struct {
	int64_t t;
	const char *sha;
} walk_sort;

static int cmp_walk_sort(const void *a, const void *b)
{
	const walk_sort *x = a, *y = b;

	return (x->t > y->t) - (x->t < y->t);
}

int bg_walk_bound_init(bg_walk_bound *b, bg_repo *repo, const bg_walk_point *points, size_t n)
{
	walk_sort *w = malloc((n ? n : 1) * sizeof(*w));
	size_t i, m = n ? n : 1;

	memset(b, 0, sizeof(*b));
	b->repo = repo;
	if (!w || !(b->t = malloc(m * sizeof(*b->t))) || !(b->sha = malloc(m * sizeof(*b->sha))) ||
	    !(b->state = calloc(m, 1)) || !(b->ct = calloc(m, sizeof(*b->ct)))) {
		free(w);
		bg_walk_bound_clear(b);
		return BG_ENOMEM;
	}
	for (i = 0; i < n; i++) {
		w[i].t = points[i].author_time;
		w[i].sha = points[i].sha;
	}
	if (n)
		qsort(w, n, sizeof(*w), cmp_walk_sort);
	for (i = 0; i < n; i++) {
		b->t[i] = w[i].t;
		snprintf(b->sha[i], sizeof(b->sha[i]), "%s", w[i].sha);
	}
	free(w);
	b->n = n;
	return 0;
}

/* The earliest committer time of the commits looked up and not met. */
static void pending_min(bg_walk_bound *b)
{
	size_t i;

	b->min_ct = INT64_MAX;
	for (i = b->lo; b->pending && i < b->n; i++)
		if (b->state[i] == WALK_BEHIND && b->ct[i] < b->min_ct)
			b->min_ct = b->ct[i];
}

void bg_walk_bound_meet(bg_walk_bound *b, int64_t author_time)
{
	size_t lo = 0, hi = b->n;

	while (lo < hi) {
		size_t mid = (lo + hi) / 2;

		if (b->t[mid] < author_time)
			lo = mid + 1;
		else
			hi = mid;
	}
	while (lo < b->n && b->t[lo] == author_time && b->state[lo] == WALK_DONE)
		lo++;
	if (lo < b->n && b->t[lo] == author_time) {
		int behind = b->state[lo] == WALK_BEHIND;

		b->state[lo] = WALK_DONE;
		if (behind) {
			b->pending--;
			pending_min(b);
		}
	}
	while (b->lo < b->n && b->state[b->lo] == WALK_DONE)
		b->lo++;
}

/* Whether no stored commit not met can lie behind a walk at `time`, as far
 * as the bound knows: the first open one by its author time, every one
 * looked up by its committer time. */
static int walk_past(bg_walk_bound *b, int64_t time)
{
	/* Entries only ever leave WALK_OPEN: the first open one moves on. */
	while (b->open < b->n && b->state[b->open] != WALK_OPEN)
		b->open++;
	if (b->open < b->n && !(b->t[b->open] > 0 && b->t[b->open] > time + BG_CLOCK_SKEW))
		return 0;
	return !b->pending || b->min_ct > time + BG_CLOCK_SKEW;
}

int bg_walk_bound_done(bg_walk_bound *b, int64_t time)
{
	size_t i;

	if (b->lo == b->n)
		return 1;
	if (!walk_past(b, time)) {
		b->streak = 0;
		return 0;
	}
	if (++b->streak < BG_WALK_PATIENCE)
		return 0;
	/* It would stop: each open commit by when it was really committed.
	 * One the repository lacks cannot be met; one committed after the
	 * walk's time (and its skew) is not behind it. */
	for (i = b->lo; i < b->n; i++) {
		int64_t ct;

		if (b->state[i] != WALK_OPEN)
			continue;
		if (!b->repo || !commit_time(b->repo, b->sha[i], &ct) ||
		    ct > time + BG_CLOCK_SKEW) {
			b->state[i] = WALK_DONE;
		} else {
			b->state[i] = WALK_BEHIND;
			b->ct[i] = ct;
			b->pending++;
		}
	}
	pending_min(b);
	while (b->lo < b->n && b->state[b->lo] == WALK_DONE)
		b->lo++;
	if (b->lo < b->n && !walk_past(b, time)) {
		b->streak = 0;
		return 0;
	}
	return 1;
}

void bg_walk_bound_clear(bg_walk_bound *b)
{
	free(b->t);
	free(b->sha);
	free(b->state);
	free(b->ct);
	memset(b, 0, sizeof(*b));
}

int bg_repo_is_ancestor(bg_ctx *ctx, bg_repo *repo, const char *ancestor, const char *descendant)
{
	git_oid a, d;
	int err;

	if ((err = oid_of(ctx, repo->repo, ancestor, &a)) < 0 ||
	    (err = oid_of(ctx, repo->repo, descendant, &d)) < 0)
		return err;
	if (git_oid_equal(&a, &d))
		return 1;
	err = git_graph_descendant_of(repo->repo, &d, &a);
	if (err < 0)
		return git__fail(ctx, BG_ERROR, "walking the history");
	return err ? 1 : 0;
}

int bg_repo_first_parent_range(bg_ctx *ctx, bg_repo *repo, const char *good, const char *bad,
                               char (**shas)[41], size_t *n)
{
	char(*list)[41] = NULL;
	git_commit *c = NULL, *parent = NULL;
	git_oid g, b;
	size_t len = 0, cap = 0, i;
	int err;

	*shas = NULL;
	*n = 0;
	if ((err = oid_of(ctx, repo->repo, good, &g)) < 0 ||
	    (err = oid_of(ctx, repo->repo, bad, &b)) < 0)
		return err;
	if (git_commit_lookup(&c, repo->repo, &b) < 0)
		return git__fail(ctx, BG_ERROR, "reading a commit");
	/* Following first parents only: a bisect along the branch's own line
	 * steps over a merge as one commit instead of into what it merged. */
	while (!git_oid_equal(git_commit_id(c), &g)) {
		if (bg_grow((void **)&list, &cap, len, sizeof(*list)) < 0) {
			err = bg_error_oom(ctx);
			goto cleanup;
		}
		git_oid_tostr(list[len++], 41, git_commit_id(c));
		if (git_commit_parentcount(c) == 0) {
			char gs[41], bs[41];
			if ((err = shallow_end(ctx, repo, c)) < 0)
				goto cleanup;
			git_oid_tostr(gs, sizeof(gs), &g);
			git_oid_tostr(bs, sizeof(bs), &b);
			err = bg_error_set(ctx, BG_EINPUT,
			                   "%.12s is not on the first-parent history of %.12s: the "
			                   "good commit must be an ancestor of the bad one along "
			                   "its branch",
			                   gs, bs);
			goto cleanup;
		}
		if (git_commit_parent(&parent, c, 0) < 0) {
			if ((err = shallow_end(ctx, repo, c)) == 0)
				err = git__fail(ctx, BG_ERROR, "reading a parent commit");
			goto cleanup;
		}
		git_commit_free(c);
		c = parent;
		parent = NULL;
	}
	/* Oldest first. */
	for (i = 0; i < len / 2; i++) {
		char tmp[41];
		memcpy(tmp, list[i], 41);
		memcpy(list[i], list[len - 1 - i], 41);
		memcpy(list[len - 1 - i], tmp, 41);
	}
	*shas = list;
	*n = len;
	list = NULL;
	err = 0;
cleanup:
	free(list);
	git_commit_free(c);
	git_commit_free(parent);
	return err;
}

/* -------------------------------------------------------------- checkouts */

/* Submodules inside submodules: deeper than this is a cycle, not a project. */
#define SUBMODULE_DEPTH 8

typedef struct {
	char *path;
	git_oid id;
} gitlink;

static void gitlinks_free(gitlink *links, size_t n)
{
	size_t i;

	for (i = 0; links && i < n; i++)
		free(links[i].path);
	free(links);
}

/* "<a>/<b>", or NULL when out of memory. */
static char *path_join(const char *a, const char *b)
{
	bg_buf buf = BG_BUF_INIT;

	if (bg_buf_printf(&buf, "%s/%s", a, b) < 0) {
		bg_buf_clear(&buf);
		return NULL;
	}
	return bg_buf_detach(&buf);
}

/* Creates `dir` (and its parents) if it does not exist; an existing one must be empty. */
static int empty_dir(bg_ctx *ctx, const char *dir)
{
	struct dirent *e;
	char *p;
	DIR *d;
	int used = 0;
	size_t i;

	if (!(p = strdup(dir)))
		return bg_error_oom(ctx);
	for (i = 1; p[i]; i++) {
		if (p[i] != '/')
			continue;
		p[i] = '\0';
		if (mkdir(p, 0777) < 0 && errno != EEXIST) {
			int err = bg_error_errno(ctx, BG_EIO, "cannot create %s", p);
			free(p);
			return err;
		}
		p[i] = '/';
	}
	free(p);
	if (mkdir(dir, 0777) == 0)
		return 0;
	if (errno != EEXIST)
		return bg_error_errno(ctx, BG_EIO, "cannot create %s", dir);
	if (!(d = opendir(dir)))
		return bg_error_errno(ctx, BG_EIO, "%s", dir);
	while (!used && (e = readdir(d)) != NULL)
		used = strcmp(e->d_name, ".") != 0 && strcmp(e->d_name, "..") != 0;
	closedir(d);
	if (used)
		return bg_error_set(ctx, BG_EINPUT, "%s is not empty: will not check out into it",
		                    dir);
	return 0;
}

/*
 * The name and URL that commit's .gitmodules (already written to
 * <dir>/.gitmodules) gives the submodule at `path`; *name stays NULL when
 * the file has no entry for it.
 */
static int submodule_config(bg_ctx *ctx, const char *dir, const char *path, char **name, char **url)
{
	git_config *cfg = NULL;
	git_config_iterator *it = NULL;
	git_config_entry *e;
	git_buf buf = { 0 };
	char *file = path_join(dir, ".gitmodules"), *key = NULL;
	int err = 0;

	*name = *url = NULL;
	if (!file)
		return bg_error_oom(ctx);
	if (access(file, F_OK) != 0)
		goto cleanup;
	if (git_config_open_ondisk(&cfg, file) < 0 || git_config_iterator_new(&it, cfg) < 0) {
		err = git__fail(ctx, BG_ERROR, "reading .gitmodules");
		goto cleanup;
	}
	/* submodule.<name>.path = <path>; names may contain dots. */
	while (!*name && git_config_next(&e, it) == 0) {
		size_t len = strlen(e->name);
		if (len > 15 && !strncmp(e->name, "submodule.", 10) &&
		    !strcmp(e->name + len - 5, ".path") && e->value && !strcmp(e->value, path) &&
		    !(*name = strndup(e->name + 10, len - 15))) {
			err = bg_error_oom(ctx);
			goto cleanup;
		}
	}
	if (!*name)
		goto cleanup;
	{
		bg_buf k = BG_BUF_INIT;
		if (bg_buf_printf(&k, "submodule.%s.url", *name) < 0 ||
		    !(key = bg_buf_detach(&k))) {
			bg_buf_clear(&k);
			err = bg_error_oom(ctx);
			goto cleanup;
		}
	}
	if (git_config_get_string_buf(&buf, cfg, key) == 0 && !(*url = strdup(buf.ptr)))
		err = bg_error_oom(ctx);
cleanup:
	git_buf_dispose(&buf);
	git_config_iterator_free(it);
	git_config_free(cfg);
	free(key);
	free(file);
	return err;
}

/*
 * A submodule URL as git reads it: "./x" and "../x" are relative to the
 * superproject's own URL (`base`), one "../" per path component.
 */
static char *resolve_url(const char *base, const char *url)
{
	bg_buf b = BG_BUF_INIT;
	size_t blen;

	if (strncmp(url, "./", 2) != 0 && strncmp(url, "../", 3) != 0)
		return strdup(url);
	blen = strlen(base);
	while (blen > 1 && base[blen - 1] == '/')
		blen--;
	for (;;) {
		if (!strncmp(url, "./", 2)) {
			url += 2;
		} else if (!strncmp(url, "../", 3)) {
			url += 3;
			while (blen > 0 && base[blen - 1] != '/' && base[blen - 1] != ':')
				blen--;
			while (blen > 1 && base[blen - 1] == '/')
				blen--;
		} else {
			break;
		}
	}
	if (bg_buf_put(&b, base, blen) < 0 ||
	    (blen && base[blen - 1] != '/' && base[blen - 1] != ':' && bg_buf_puts(&b, "/") < 0) ||
	    bg_buf_puts(&b, url) < 0) {
		bg_buf_clear(&b);
		return NULL;
	}
	return bg_buf_detach(&b);
}

/* What a relative submodule URL of `repo` is relative to: remote origin, else its own path. */
static char *base_url_of(git_repository *repo)
{
	git_remote *origin = NULL;
	const char *p;
	char *s;
	size_t len;

	if (git_remote_lookup(&origin, repo, "origin") == 0 && git_remote_url(origin)) {
		s = strdup(git_remote_url(origin));
		git_remote_free(origin);
		return s;
	}
	git_error_clear();
	p = git_repository_workdir(repo) ? git_repository_workdir(repo) : git_repository_path(repo);
	len = strlen(p);
	while (len > 1 && p[len - 1] == '/')
		len--;
	return strndup(p, len);
}

/* A repository that holds commit `id`, or NULL (*repo untouched on failure). */
static int open_with_commit(const char *path, const git_oid *id, git_repository **repo)
{
	git_repository *r = NULL;
	git_commit *c = NULL;

	if (git_repository_open_ext(&r, path, GIT_REPOSITORY_OPEN_NO_SEARCH, NULL) < 0) {
		git_error_clear();
		return 0;
	}
	if (git_commit_lookup(&c, r, id) < 0) {
		git_error_clear();
		git_repository_free(r);
		return 0;
	}
	git_commit_free(c);
	*repo = r;
	return 1;
}

static int checkout_into(bg_ctx *ctx, git_repository *repo, const git_oid *id, const char *dir,
                         const char *base_url, int depth);

/*
 * One submodule: from the superproject's .git/modules/<name> (or an old-style
 * .git inside its working tree), else a clone of its URL into a temporary
 * directory that is removed afterwards.
 */
static int checkout_submodule(bg_ctx *ctx, git_repository *super, const gitlink *link,
                              const char *dir, const char *base_url, int depth)
{
	char *name = NULL, *url = NULL, *abs_url = NULL, *modules = NULL, *old = NULL,
	     *target = NULL, *tmp = NULL;
	git_repository *sub = NULL;
	git_clone_options co;
	char sha[41];
	int err;

	git_oid_tostr(sha, sizeof(sha), &link->id);
	if (!(target = path_join(dir, link->path))) {
		err = bg_error_oom(ctx);
		goto cleanup;
	}
	if ((err = empty_dir(ctx, target)) < 0 ||
	    (err = submodule_config(ctx, dir, link->path, &name, &url)) < 0)
		goto cleanup;
	if (!name) {
		err = bg_error_set(ctx, BG_ERROR,
		                   "submodule at %s (commit %.12s) has no entry in .gitmodules",
		                   link->path, sha);
		goto cleanup;
	}
	{
		bg_buf b = BG_BUF_INIT;
		if (bg_buf_printf(&b, "%smodules/%s", git_repository_path(super), name) < 0 ||
		    !(modules = bg_buf_detach(&b))) {
			bg_buf_clear(&b);
			err = bg_error_oom(ctx);
			goto cleanup;
		}
	}
	if (git_repository_workdir(super) &&
	    !(old = path_join(git_repository_workdir(super), link->path))) {
		err = bg_error_oom(ctx);
		goto cleanup;
	}
	if (url && !(abs_url = resolve_url(base_url, url))) {
		err = bg_error_oom(ctx);
		goto cleanup;
	}
	if (!open_with_commit(modules, &link->id, &sub) &&
	    !(old && open_with_commit(old, &link->id, &sub))) {
		if (!url) {
			err = bg_error_set(ctx, BG_ERROR,
			                   "submodule \"%s\" (%s): commit %.12s is not in %s and "
			                   ".gitmodules gives no url to clone",
			                   name, link->path, sha, modules);
			goto cleanup;
		}
		if (!(tmp = strdup("/tmp/benchguard-submodule-XXXXXX"))) {
			err = bg_error_oom(ctx);
			goto cleanup;
		}
		if (getenv("TMPDIR") && *getenv("TMPDIR")) {
			free(tmp);
			if (!(tmp = path_join(getenv("TMPDIR"), "benchguard-submodule-XXXXXX"))) {
				err = bg_error_oom(ctx);
				goto cleanup;
			}
		}
		if (!mkdtemp(tmp)) {
			err = bg_error_errno(ctx, BG_EIO, "cannot create a directory like %s", tmp);
			free(tmp);
			tmp = NULL;
			goto cleanup;
		}
		bg_log(ctx, BG_LOG_INFO, "cloning submodule %s from %s", link->path, abs_url);
		git_clone_options_init(&co, GIT_CLONE_OPTIONS_VERSION);
		co.bare = 1;
		git__tls_ready();
		if (git_clone(&sub, abs_url, tmp, &co) < 0) {
			char what[1024];
			snprintf(what, sizeof(what), "submodule \"%s\" (%s): cannot clone %s", name,
			         link->path, abs_url);
			err = git__fail(ctx, BG_ERROR, what);
			goto cleanup;
		}
		{
			git_commit *c = NULL;
			if (git_commit_lookup(&c, sub, &link->id) < 0) {
				err = bg_error_set(
				        ctx, BG_ERROR,
				        "submodule \"%s\" (%s): commit %.12s is neither in "
				        "%s nor at %s",
				        name, link->path, sha, modules, abs_url);
				goto cleanup;
			}
			git_commit_free(c);
		}
	}
	/* Relative URLs of nested submodules are relative to this one's URL. */
	err = checkout_into(ctx, sub, &link->id, target, abs_url ? abs_url : base_url, depth + 1);
cleanup:
	git_repository_free(sub);
	if (tmp) {
		bg_rmtree(NULL, tmp);
		free(tmp);
	}
	free(name);
	free(url);
	free(abs_url);
	free(modules);
	free(old);
	free(target);
	return err;
}

/*
 * Writes commit `id`'s tree into `dir` (which exists and is empty) through an
 * index of its own, so the repository's index, HEAD and working tree are
 * never read for it nor written.  Gitlinks are left out of that index (libgit2
 * would only make empty directories of them) and checked out one by one.
 */
static int checkout_into(bg_ctx *ctx, git_repository *repo, const git_oid *id, const char *dir,
                         const char *base_url, int depth)
{
	git_checkout_options opts;
	git_commit *commit = NULL;
	git_tree *tree = NULL;
	git_index *index = NULL;
	gitlink *links = NULL;
	size_t nlinks = 0, i, n;
	char *base = NULL;
	int err = 0;

	if (depth > SUBMODULE_DEPTH)
		return bg_error_set(ctx, BG_ERROR, "submodules nested deeper than %d levels at %s",
		                    SUBMODULE_DEPTH, dir);
	if (git_commit_lookup(&commit, repo, id) < 0 || git_commit_tree(&tree, commit) < 0 ||
	    git_index_new(&index) < 0 || git_index_read_tree(index, tree) < 0) {
		err = git__fail(ctx, BG_ERROR, "reading the commit to check out");
		goto cleanup;
	}
	n = git_index_entrycount(index);
	for (i = 0; i < n; i++) {
		const git_index_entry *e = git_index_get_byindex(index, i);
		if (!e || e->mode != GIT_FILEMODE_COMMIT)
			continue;
		if (!links && !(links = calloc(n, sizeof(*links)))) {
			err = bg_error_oom(ctx);
			goto cleanup;
		}
		if (!(links[nlinks].path = strdup(e->path))) {
			err = bg_error_oom(ctx);
			goto cleanup;
		}
		git_oid_cpy(&links[nlinks++].id, &e->id);
	}
	for (i = 0; i < nlinks; i++)
		if (git_index_remove(index, links[i].path, 0) < 0) {
			err = git__fail(ctx, BG_ERROR, "preparing the checkout");
			goto cleanup;
		}
	git_checkout_options_init(&opts, GIT_CHECKOUT_OPTIONS_VERSION);
	opts.checkout_strategy = GIT_CHECKOUT_FORCE | GIT_CHECKOUT_DONT_UPDATE_INDEX;
	opts.target_directory = dir;
	if (git_checkout_index(repo, index, &opts) < 0) {
		const git_error *ge = git_error_last();
		char what[1024];

		/* A partial clone (--filter=blob:none) lacks the files of
		 * commits it has not checked out, which git fetches on demand
		 * and libgit2 cannot: say what is wrong and how to mend it. */
		if (ge && ge->klass == GIT_ERROR_ODB && is_partial_clone(repo)) {
			char sha[GIT_OID_HEXSZ + 1];

			git_oid_tostr(sha, sizeof(sha), id);
			err = bg_error_set(
			        ctx, BG_EINPUT,
			        "this partial clone lacks files of commit %.12s, which "
			        "benchguard cannot fetch (git fetches them on demand): clone "
			        "without --filter (in actions/checkout, leave filter unset)",
			        sha);
			goto cleanup;
		}
		snprintf(what, sizeof(what), "cannot check out into %s", dir);
		err = git__fail(ctx, BG_ERROR, what);
		goto cleanup;
	}
	if (nlinks && !base_url && !(base = base_url_of(repo))) {
		err = bg_error_oom(ctx);
		goto cleanup;
	}
	for (i = 0; i < nlinks && err == 0; i++)
		err = checkout_submodule(ctx, repo, &links[i], dir, base_url ? base_url : base,
		                         depth);
cleanup:
	free(base);
	gitlinks_free(links, nlinks);
	git_index_free(index);
	git_tree_free(tree);
	git_commit_free(commit);
	return err;
}

int bg_repo_checkout(bg_ctx *ctx, bg_repo *repo, const char *sha, const char *dir)
{
	git_oid id;
	int err;

	if ((err = oid_of(ctx, repo->repo, sha, &id)) < 0 || (err = empty_dir(ctx, dir)) < 0)
		return err;
	return checkout_into(ctx, repo->repo, &id, dir, NULL, 0);
}
