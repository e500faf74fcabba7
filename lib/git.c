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
 * libgit2 keeps its last error per thread; every failure copies it into the
 * bg_ctx at once, before another libgit2 call can replace it.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <git2.h>

#include "internal.h"

struct bg_repo {
	git_repository *repo;
	char *workdir; /* without the trailing slash */
};

/* Sets the context's message to "<what>: <libgit2's reason>". */
static int git__fail(bg_ctx *ctx, int code, const char *what)
{
	const git_error *e = git_error_last();

	if (e && e->message && *e->message)
		return bg_error_set(ctx, code, "%s: %s", what, e->message);
	return bg_error_set(ctx, code, "%s", what);
}

int bg_repo_open(bg_ctx *ctx, const char *path, bg_repo **out)
{
	bg_repo *r = NULL;
	const char *wd;
	size_t len;
	int err;

	*out = NULL;
	if (!path || !*path)
		path = ".";
	/* Refcounted by libgit2; balanced by the shutdown in bg_repo_free. */
	if (git_libgit2_init() < 0)
		return git__fail(ctx, BG_ERROR, "cannot initialise libgit2");
	if (!(r = calloc(1, sizeof(*r)))) {
		git_libgit2_shutdown();
		return bg_error_oom(ctx);
	}
	err = git_repository_open_ext(&r->repo, path, 0, NULL);
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

/* SHA, author and subject of a commit into *out (the branch and dirty flag are the caller's). */
static int fill_commit(bg_ctx *ctx, const git_commit *commit, bg_commit *out)
{
	const git_signature *sig = git_commit_author(commit);
	const char *msg = git_commit_message(commit);
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

static int tree_is_dirty(bg_ctx *ctx, git_repository *repo, int *dirty)
{
	git_status_options opts;
	git_status_list *list = NULL;
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
		*dirty = 1;
	}
	git_status_list_free(list);
	return 0;
}

int bg_repo_head(bg_ctx *ctx, bg_repo *repo, bg_commit *out)
{
	git_reference *head = NULL;
	git_object *obj = NULL;
	bg_commit c;
	int err;

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

/* The branch name when `rev` is exactly a local branch that points at `id`. */
static int branch_of_rev(bg_ctx *ctx, git_repository *repo, const char *rev, const git_oid *id,
                         char **branch)
{
	git_reference *ref = NULL;
	git_object *tip = NULL;
	int err = 0;

	*branch = NULL;
	if (git_branch_lookup(&ref, repo, rev, GIT_BRANCH_LOCAL) < 0)
		return 0;
	/* A tag of the same name wins in revparse; then this is not the branch. */
	if (git_reference_peel(&tip, ref, GIT_OBJECT_COMMIT) == 0 &&
	    git_oid_equal(git_object_id(tip), id) && !(*branch = strdup(rev)))
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

	memset(out, 0, sizeof(*out));
	memset(&c, 0, sizeof(c));
	if (!rev || !*rev)
		return bg_error_set(ctx, BG_EINPUT, "empty revision");
	err = git_revparse_single(&obj, repo->repo, rev);
	if (err == GIT_ENOTFOUND || err == GIT_EINVALIDSPEC || err == GIT_EUNBORNBRANCH) {
		err = bg_error_set(ctx, BG_ENOTFOUND, "unknown revision \"%s\"", rev);
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

static int oid_of(bg_ctx *ctx, git_repository *repo, const char *sha, git_oid *out)
{
	git_object *obj = NULL;
	git_commit *c = NULL;
	int err;

	/* Full SHAs and abbreviations alike; the object must be a commit. */
	if ((err = git_revparse_single(&obj, repo, sha)) < 0) {
		if (err == GIT_ENOTFOUND || err == GIT_EAMBIGUOUS || err == GIT_EINVALIDSPEC)
			return bg_error_set(ctx, BG_ENOTFOUND, "commit %s is not in this repository",
			                    sha);
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

int bg_repo_branch_tip(bg_ctx *ctx, bg_repo *repo, const char *name, char sha[41])
{
	static const char *const prefixes[] = { "refs/heads/", "refs/remotes/origin/" };
	git_oid id;
	size_t i;

	sha[0] = '\0';
	if (!name || !*name)
		return bg_error_set(ctx, BG_EINPUT, "no baseline branch named");
	for (i = 0; i < BG_ARRAY_SIZE(prefixes); i++) {
		char ref[512];
		git_object *obj = NULL;
		git_commit *c = NULL;
		int err;

		snprintf(ref, sizeof(ref), "%s%s", prefixes[i], name);
		if (git_reference_name_to_id(&id, repo->repo, ref) < 0)
			continue;
		/* An annotated tag cannot be a branch tip, but peel anyway. */
		if ((err = git_object_lookup(&obj, repo->repo, &id, GIT_OBJECT_ANY)) < 0)
			return git__fail(ctx, BG_ERROR, "reading the baseline branch");
		err = git_object_peel((git_object **)&c, obj, GIT_OBJECT_COMMIT);
		git_object_free(obj);
		if (err < 0)
			return git__fail(ctx, BG_ERROR, "reading the baseline branch");
		git_oid_tostr(sha, 41, git_commit_id(c));
		git_commit_free(c);
		return 0;
	}
	return bg_error_set(ctx, BG_EINPUT,
	                    "unknown baseline branch \"%s\" (no refs/heads/%s or "
	                    "refs/remotes/origin/%s in %s)",
	                    name, name, name, repo->workdir);
}

int bg_repo_merge_base(bg_ctx *ctx, bg_repo *repo, const char *a, const char *b, char sha[41])
{
	git_oid ia, ib, base;
	int err;

	sha[0] = '\0';
	if ((err = oid_of(ctx, repo->repo, a, &ia)) < 0 || (err = oid_of(ctx, repo->repo, b, &ib)) < 0)
		return err;
	err = git_merge_base(&base, repo->repo, &ia, &ib);
	if (err == GIT_ENOTFOUND)
		return bg_error_set(ctx, BG_EINPUT, "commits %.12s and %.12s have no common history", a,
		                    b);
	if (err < 0)
		return git__fail(ctx, BG_ERROR, "finding the merge base");
	git_oid_tostr(sha, 41, &base);
	return 0;
}

int bg_repo_walk_first_parent(bg_ctx *ctx, bg_repo *repo, const char *sha, bg_walk_cb cb,
                              void *data)
{
	git_revwalk *walk = NULL;
	git_oid id;
	char hex[41];
	int err, rc = 0;

	if ((err = oid_of(ctx, repo->repo, sha, &id)) < 0)
		return err;
	if (git_revwalk_new(&walk, repo->repo) < 0)
		return git__fail(ctx, BG_ERROR, "walking the history");
	/* First parents only: the baseline is the branch's own line of commits,
	 * not whatever was merged into it. */
	git_revwalk_simplify_first_parent(walk);
	git_revwalk_sorting(walk, GIT_SORT_TOPOLOGICAL);
	if (git_revwalk_push(walk, &id) < 0) {
		rc = git__fail(ctx, BG_ERROR, "walking the history");
		goto cleanup;
	}
	while ((err = git_revwalk_next(&id, walk)) == 0) {
		git_oid_tostr(hex, sizeof(hex), &id);
		if ((rc = cb(hex, data)) != 0)
			break;
	}
	if (err < 0 && err != GIT_ITEROVER) {
		rc = git__fail(ctx, BG_ERROR, "walking the history");
		goto cleanup;
	}
	if (rc > 0)
		rc = 0;
cleanup:
	git_revwalk_free(walk);
	return rc;
}
