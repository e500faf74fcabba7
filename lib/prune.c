/*
 * prune.c -- which old runs `db prune` deletes: every run that started
 * before the cutoff but those a baseline still reads.
 *
 * A baseline is a first-parent walk of the baseline branch from its tip, or,
 * for a check of another branch, from that branch's merge-base with it
 * (lib/check.c), taking runs by commit, whatever branch a run was stored
 * under (a detached CI checkout stores none; `run --commit` stores older
 * commits later).  So the runs kept are, for each machine, those such walks
 * take, spares included (bg_verdict__reach), from the baseline branch's tip
 * and from its merge-base with every branch this clone has, local and
 * remote-tracking: a release branch forked long ago keeps the runs at its
 * fork.  A shallow clone cannot walk back far enough to say, and is refused.
 */
#include <stdlib.h>
#include <string.h>

#include "internal.h"

typedef struct {
	int64_t *v;
	size_t n, cap;
} id_set;

static int cmp_sha(const void *a, const void *b)
{
	return strcmp((const char *)a, (const char *)b);
}

/* The walks' start points: each baseline branch's tip, and each branch's
 * merge-base with it, each once. */
static int prune__starts(bg_ctx *ctx, bg_repo *repo, const char *const *branches, size_t nbranches,
                         char (**out)[41], size_t *nout)
{
	char(*tips)[41] = NULL, (*starts)[41] = NULL;
	char tip[41];
	size_t ntips = 0, n = 0, i, b;
	int error;

	*out = NULL;
	*nout = 0;
	if ((error = bg_repo_branch_tips(ctx, repo, &tips, &ntips)) < 0)
		return error;
	if (!(starts = malloc((ntips + 1) * nbranches * sizeof(*starts)))) {
		error = bg_error_oom(ctx);
		goto cleanup;
	}
	for (b = 0; b < nbranches; b++) {
		if ((error = bg_repo_branch_tip(ctx, repo, branches[b], tip)) < 0)
			goto cleanup;
		memcpy(starts[n++], tip, 41);
		for (i = 0; i < ntips; i++) {
			error = bg_repo_merge_base(ctx, repo, tips[i], tip, starts[n]);
			/* A branch with no history in common (gh-pages), or one
			 * whose objects are gone: no check of it reads a baseline. */
			if (error == BG_EINPUT || error == BG_ENOTFOUND) {
				bg_ctx_clear_error(ctx);
				continue;
			}
			if (error < 0)
				goto cleanup;
			n++;
		}
	}
	error = 0;
	qsort(starts, n, sizeof(*starts), cmp_sha);
	for (i = 1, ntips = n ? 1 : 0; i < n; i++)
		if (strcmp(starts[i], starts[ntips - 1]))
			memcpy(starts[ntips++], starts[i], 41);
	*out = starts;
	*nout = ntips;
	starts = NULL;
cleanup:
	free(tips);
	free(starts);
	return error;
}

/* What the baselines of machine `fp` read, from every start point, into *keep. */
static int prune__machine(bg_ctx *ctx, bg_store *store, bg_repo *repo, const char *fp,
                          const char (*starts)[41], size_t nstarts, size_t window, id_set *keep)
{
	bg_run_ref *refs = NULL;
	int64_t *chosen = NULL, *mixed = NULL;
	size_t nrefs = 0, nchosen = 0, nmixed = 0, i;
	int error;

	if ((error = bg_store_baseline_runs(ctx, store, fp, &refs, &nrefs)) < 0 ||
	    (error = bg_store_mixed_series(ctx, store, fp, &mixed, &nmixed)) < 0)
		goto cleanup;
	bg_baseline__sort_refs(refs, nrefs);
	for (i = 0; i < nstarts && error == 0; i++) {
		if ((error = bg_baseline__walk(ctx, store, repo, fp, starts[i], window, refs, nrefs,
		                               mixed, nmixed, &chosen, &nchosen)) < 0)
			break;
		/* Room for element n + nchosen - 1: all of them. */
		if (nchosen && bg_grow((void **)&keep->v, &keep->cap, keep->n + nchosen - 1,
		                       sizeof(*keep->v)) < 0) {
			error = bg_error_oom(ctx);
		} else if (nchosen) {
			memcpy(keep->v + keep->n, chosen, nchosen * sizeof(*chosen));
			keep->n += nchosen;
		}
		free(chosen);
		chosen = NULL;
	}
cleanup:
	free(refs);
	free(mixed);
	return error;
}

int bg_prune(bg_ctx *ctx, bg_store *store, bg_repo *repo, const bg_prune_policy *policy,
             bg_prune_stats *stats)
{
	char(*starts)[41] = NULL;
	char **machines = NULL;
	size_t nstarts = 0, nmachines = 0, i, k;
	id_set keep = { NULL, 0, 0 };
	bg_prune_opts o;
	int64_t max_id = 0;
	int error = 0;

	memset(stats, 0, sizeof(*stats));
	/* A job may still be writing a run of the last day, or judging it. */
	if (policy->before > policy->now - 86400)
		return bg_error_set(ctx, BG_EINPUT,
		                    "runs of the last day are never pruned: the cutoff must be a "
		                    "day back or more");
	/* Read first: a run stored while the walks choose (a `baseline
	 * import` of old runs, a `db copy`) is not one they could keep. */
	if ((error = bg_store_max_run_id(ctx, store, &max_id)) < 0)
		return error;
	if (policy->window > 0) {
		if (!repo)
			return bg_error_set(
			        ctx, BG_EINPUT,
			        "a prune that keeps baselines reads the branches' history: "
			        "run it in a clone of the repository");
		if (bg_repo_is_shallow(repo))
			return bg_error_set(ctx, BG_EINPUT,
			                    "this clone is shallow, so the runs its baselines read "
			                    "cannot be told: fetch the whole history (git fetch "
			                    "--unshallow, or fetch-depth: 0)");
		if ((error = prune__starts(ctx, repo, policy->branches, policy->nbranches, &starts,
		                           &nstarts)) < 0 ||
		    (error = bg_store_baseline_machines(ctx, store, &machines, &nmachines)) < 0)
			goto cleanup;
		for (i = 0; i < nmachines; i++)
			if ((error = prune__machine(ctx, store, repo, machines[i],
			                            (const char(*)[41])starts, nstarts,
			                            bg_verdict__reach(policy->window), &keep)) < 0)
				goto cleanup;
		if (keep.n) {
			qsort(keep.v, keep.n, sizeof(*keep.v), bg_cmp_int64);
			for (i = 1, k = 1; i < keep.n; i++)
				if (keep.v[i] != keep.v[k - 1])
					keep.v[k++] = keep.v[i];
			keep.n = k;
		}
	}
	memset(&o, 0, sizeof(o));
	o.before = policy->before;
	o.max_id = max_id;
	o.dry_run = policy->dry_run;
	o.keep = keep.v;
	o.nkeep = keep.n;
	error = bg_store_prune(ctx, store, &o, stats);
	stats->machines = nmachines;
	stats->starts = nstarts;
cleanup:
	free(keep.v);
	free(starts);
	bg_strings_free(machines, nmachines);
	return error;
}
