/*
 * pinned.c -- what the commands that measure a given commit share (`run
 * --commit`, compare, bisect): resolve the revision, check it out into the
 * worktree cache and build it there once, and say plainly when its build
 * fails, with the end of the build's log.
 */
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli.h"
#include "internal.h"

char *cli_cache_dir(cli_state *st, const cli_env *env)
{
	const char *c = getenv("BENCHGUARD_CACHE");
	bg_buf b = BG_BUF_INIT;

	(void)st;
	if (c && *c)
		return strdup(c);
	if (!env->repo ||
	    bg_buf_printf(&b, "%s/.benchguard/worktrees", bg_repo_workdir(env->repo)) < 0) {
		bg_buf_clear(&b);
		return NULL;
	}
	return bg_buf_detach(&b);
}

int cli_ensure_cache(cli_state *st, cli_env *env)
{
	bg_buf priv = BG_BUF_INIT;
	int rc = 0;

	/* The default cache sits in .benchguard/, which must ignore itself even
	 * when the database lives elsewhere (--db). */
	if (getenv("BENCHGUARD_CACHE") && *getenv("BENCHGUARD_CACHE"))
		return 0;
	if (bg_buf_printf(&priv, "%s/.benchguard", bg_repo_workdir(env->repo)) < 0)
		rc = bg_error_oom(st->ctx);
	else
		rc = cli_private_dir(st, priv.ptr);
	bg_buf_clear(&priv);
	return rc;
}

int cli_lookup_commit(cli_state *st, cli_env *env, const char *rev, bg_commit *commit)
{
	int rc;

	/* A commit named by SHA that is on the baseline branch is stored as its. */
	if ((rc = bg_repo_lookup_on(st->ctx, env->repo, rev,
	                            env->config ? bg_config_baseline(env->config)->branch : NULL,
	                            commit)) < 0)
		return rc;
	commit->dirty = 0;
	return 0;
}

int cli_prepare_commit_soft(cli_state *st, cli_env *env, const char *rev, int retry_failed,
                            bg_commit *commit, bg_worktree *wt)
{
	bg_worktree_opts o;
	char *cache = NULL;
	int rc;

	memset(wt, 0, sizeof(*wt));
	if ((rc = cli_lookup_commit(st, env, rev, commit)) < 0)
		return rc;
	if (!(cache = cli_cache_dir(st, env)))
		return bg_error_oom(st->ctx);
	if ((rc = cli_ensure_cache(st, env)) < 0)
		goto cleanup;
	memset(&o, 0, sizeof(o));
	o.cache_dir = cache;
	o.build = bg_config_build(env->config);
	o.machine = bg_machine_fingerprint(env->machine);
	rc = bg_worktree_prepare(st->ctx, env->repo, env->store, commit->sha, &o, retry_failed, wt);
cleanup:
	free(cache);
	return rc;
}

int cli_prepare_commit(cli_state *st, cli_env *env, const char *rev, int retry_failed,
                       bg_commit *commit, bg_worktree *wt)
{
	int rc = cli_prepare_commit_soft(st, env, rev, retry_failed, commit, wt);
	const char *log;
	char *shown, *header;

	if (rc < 0 || !wt->failed)
		return rc;
	/* The log's end goes to stderr before the one-line error, escaped: it
	 * quotes the code being built, which may be a pull request's. */
	cli_progress_done(st);
	log = wt->log_path && access(wt->log_path, F_OK) == 0 ? wt->log_path : NULL;
	shown = log ? bg_text__escaped(BG_ESC_TERM, log) : NULL;
	header = bg_printf("--- build log of %.12s (tail%s%s) ---", wt->sha,
	                   shown ? "; all of it in " : "", shown ? shown : "");
	cli_put_tail(stderr, header ? header : "--- build log (tail) ---",
	             wt->log_tail ? wt->log_tail : "");
	free(header);
	free(shown);
	if (wt->built)
		return bg_error_set(st->ctx, BG_EBUILD, "build of %.12s failed (%s): %s", wt->sha,
		                    wt->why ? wt->why : "?", bg_config_build(env->config));
	return bg_error_set(st->ctx, BG_EBUILD,
	                    "build of %.12s failed (remembered from an earlier attempt; not "
	                    "rebuilt: pass --retry-build to try again)",
	                    wt->sha);
}

int cli_checkout_config(cli_state *st, const cli_env *env, const char *checkout, bg_config **cfg)
{
	bg_buf path = BG_BUF_INIT;
	int rc;

	(void)env;
	*cfg = NULL;
	if (st->config_path)
		return 0;
	if (bg_buf_printf(&path, "%s/benchguard.json", checkout) < 0)
		return bg_error_oom(st->ctx);
	if (access(path.ptr, F_OK) == 0 && (rc = bg_config_load(st->ctx, path.ptr, cfg)) < 0) {
		if (rc == BG_ENOMEM) {
			bg_buf_clear(&path);
			return rc;
		}
		cli_warn(st, "%s", bg_ctx_error(st->ctx));
		bg_ctx_clear_error(st->ctx);
		*cfg = NULL;
	}
	bg_buf_clear(&path);
	return 0;
}

int cli_pinned_unused_option(cli_state *st, const char *cmd, int opt)
{
	static const char *const baseline = "it judges one commit against another, not "
	                                    "against a rolling baseline";

	switch (opt) {
	case CLI_OPT_NO_BUILD:
		return cli_not_an_option(st, cmd, "--no-build",
		                         "its commits are built once in their worktrees and "
		                         "reused");
	case CLI_OPT_WINDOW:
		return cli_not_an_option(st, cmd, "--window", baseline);
	case CLI_OPT_MIN_RUNS:
		return cli_not_an_option(st, cmd, "--min-runs", baseline);
	default:
		return 0;
	}
}
