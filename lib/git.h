/*
 * git.h -- the library's git plumbing (lib/git.c), beyond what a program
 * linked against libbenchguard needs.
 *
 * benchguard.h keeps opening a repository and reading a commit (HEAD, any
 * revision): what a caller hands to the entry points.  Branch tips, merge
 * bases, first-parent walks and ranges, and checkouts of a commit into a
 * folder are how check, ci, bisect, report and the worktree cache do their
 * work; they are shared by lib/ and cmd/ through internal.h, are not
 * installed, and libbenchguard.so does not export them, so they can change
 * without breaking a program built against the library.
 */
#ifndef BG_GIT_H
#define BG_GIT_H

#include <stddef.h>
#include <stdint.h>

#include "benchguard.h"

/*
 * bg_repo_lookup for a commit that runs will be stored under: when `rev`
 * names no branch, ->branch is `branch` if the commit is on its
 * first-parent history (e.g. the baseline branch), so that a run pinned
 * by SHA says where it belongs.
 */
int bg_repo_lookup_on(bg_ctx *ctx, bg_repo *repo, const char *rev, const char *branch,
                      bg_commit *out);
/*
 * The tip of branch `name`: refs/heads/<name>, else refs/remotes/origin/<name>
 * (CI checkouts often have only the remote one), and the remote one when
 * the local one is behind it (stale).  Unknown -> BG_EINPUT.
 */
int bg_repo_branch_tip(bg_ctx *ctx, bg_repo *repo, const char *name, char sha[41]);
/*
 * The tips of every branch, local and remote-tracking (*shas: 41-byte
 * strings, caller frees; a tip two branches share is there twice).
 */
int bg_repo_branch_tips(bg_ctx *ctx, bg_repo *repo, char (**shas)[41], size_t *n);
/*
 * The branch HEAD is on, even before its first commit (`git init -b trunk`):
 * *out is its name (malloc'd), or NULL when HEAD is detached.
 */
int bg_repo_head_branch(bg_ctx *ctx, bg_repo *repo, char **out);
/* Whether the repository is a shallow clone (its history cut at a depth). */
int bg_repo_is_shallow(bg_repo *repo);
/* Whether the repository has commit `sha` (a full SHA): 1 or 0. */
int bg_repo_has_commit(bg_repo *repo, const char *sha);
/* The best common ancestor of two commits; none -> BG_EINPUT, unknown -> BG_ENOTFOUND. */
int bg_repo_merge_base(bg_ctx *ctx, bg_repo *repo, const char *a, const char *b, char sha[41]);

/* Called for each commit of a walk with its committer time (seconds since
 * the epoch); return 0 to go on, 1 to stop, < 0 to fail. */
typedef int (*bg_walk_cb)(const char *sha, int64_t time, void *data);
/* Walks the first-parent history from `sha` (itself first) back to the root,
 * reading one commit at a time: a walk that stops early costs what it read.
 * A shallow clone whose history ends before the walk does -> BG_EINPUT. */
int bg_repo_walk_first_parent(bg_ctx *ctx, bg_repo *repo, const char *sha, bg_walk_cb cb,
                              void *data);

/*
 * Writes the tree of commit `sha` into directory `dir` (created; must not
 * exist or be empty), without touching the repository's index or HEAD;
 * submodules (gitlinks) are checked out recursively at their recorded
 * commits from the superproject's .git/modules/<name> (or, failing that,
 * cloned with libgit2 from the URL in that commit's .gitmodules, relative
 * URLs resolved against the superproject's remote "origin" or its own path).
 * A submodule that cannot be found -> error with a message naming it.
 * Unknown sha -> BG_ENOTFOUND; `dir` not empty -> BG_EINPUT.
 */
int bg_repo_checkout(bg_ctx *ctx, bg_repo *repo, const char *sha, const char *dir);
/*
 * When a first-parent walk that looks for stored commits can stop.  Along a
 * first-parent line a parent is not committed more than BG_CLOCK_SKEW
 * after its child; so once the walk's committer time is that far below the
 * committer time of every stored commit not met yet, none of them lies
 * further back, however long the rest of the history is, and runs of other
 * branches' commits (every pull request's) no longer send the walk to the
 * root.  Git enforces neither date, so:
 *
 *  - stored commits are known by their author times (what the store has),
 *    and looked up in the repository for their committer times only when
 *    the walk would stop: an author date more than BG_CLOCK_SKEW ahead of
 *    its commit date (a fast clock, then a rebase) stopped the walk before
 *    it reached the commit, and its runs left the baseline;
 *  - the walk stops only once it could have for BG_WALK_PATIENCE commits
 *    in a row: one commit dated years back (a clock reset, a converted
 *    history) ended it there.
 *
 * A stored commit whose author time is unknown (0) keeps the walk going;
 * one the repository does not have cannot be met and stops nothing.
 */
#define BG_CLOCK_SKEW 86400
#define BG_WALK_PATIENCE 64
typedef struct {
	bg_repo *repo;
	int64_t *t;            /* author times of the stored commits, ascending */
	char (*sha)[41];       /* their commits, in that order */
	unsigned char *state;  /* BG_WALK_* of each */
	int64_t *ct;           /* committer time, once looked up */
	size_t n, lo, pending; /* lo: the first not met; pending: BG_WALK_BEHIND */
	size_t open;           /* the first neither met nor looked up */
	int64_t min_ct;        /* the earliest committer time of those */
	size_t streak;         /* commits in a row the walk could have stopped at */
} bg_walk_bound;

/* One stored commit (not one per run). */
typedef struct {
	const char *sha;
	int64_t author_time;
} bg_walk_point;

/* The bound of a walk in `repo` for these commits (copied). */
int bg_walk_bound_init(bg_walk_bound *b, bg_repo *repo, const bg_walk_point *points, size_t n);
/* The walk met a stored commit with this author time. */
void bg_walk_bound_meet(bg_walk_bound *b, int64_t author_time);
/* 1: every stored commit was met, or none can lie behind the walk's commit
 * of committer time `time`. */
int bg_walk_bound_done(bg_walk_bound *b, int64_t time);
void bg_walk_bound_clear(bg_walk_bound *b);

/* Is `ancestor` an ancestor of (or equal to) `descendant`?  1/0, < 0 on error. */
int bg_repo_is_ancestor(bg_ctx *ctx, bg_repo *repo, const char *ancestor, const char *descendant);
/*
 * The first-parent chain from `bad` back to (not including) `good`, oldest
 * first (*shas: array of 41-byte strings, caller frees with free(); empty
 * when good == bad).  `good` not a first-parent ancestor of `bad` ->
 * BG_EINPUT with a clear message.
 */
int bg_repo_first_parent_range(bg_ctx *ctx, bg_repo *repo, const char *good, const char *bad,
                               char (**shas)[41], size_t *n);

#endif
