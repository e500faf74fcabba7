/*
 * pairs.c -- two commits measured side by side until the data decide.
 *
 * compare, bisect's ends and ci's confirmation all ask the same question
 * of two commits on one shared machine: is the candidate worse (or better)
 * than the reference?  A shared machine's speed drifts by more than a 10%
 * step over minutes, and a neighbour's burst slows whatever runs beside
 * it; within a pair of runs made back to back the drift barely moves.  So
 * runs are made in pairs, in ABBA order (ref then candidate, candidate then
 * ref, ...) so that a trend lands on both sides alike, and the test works
 * on each pair's log ratio (bg_judge, paired design).
 *
 * How many pairs is the data's to say: the pairs are judged at the looks of
 * bg_looks(first, max), each at alpha / looks so that looking several times
 * does not multiply the false alarms (Bonferroni over looks: whatever the
 * correlation between looks, the chance of any false alarm is at most
 * alpha).  A series is decided at the first look where it is flagged, or
 * where its change is shown smaller than the larger of min_change and what
 * the cap could still detect (futility: stopping without a flag can only
 * remove false alarms); only benchmarks with series still open are run
 * again.  At the cap an open series is unchanged, and says it was undecided.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "internal.h"

/* One series being decided. */
typedef struct {
	int64_t id; /* series id */
	char *benchmark, *metric, *unit;
	bg_direction direction;
	int worse, better; /* directions still open */
	int decided;       /* 1 once closed */
	bg_verdict verdict;
	bg_confirm_status status; /* FOUND, CLEARED or UNDECIDED once decided */
	bg_judgement j;           /* at the deciding look (or the last one) */
	double min_change;        /* its own (bg_thresholds_min_change) */
	double resolution;        /* its instrument's smallest step */
	size_t pairs, look;
	size_t upto;       /* the pairs the deciding (or last) look read */
	double *cur, *ref; /* this look's pairs (scratch) */
	size_t n;
	bg_design design; /* how the last look judged them */
} pseries;

typedef struct {
	bg_ctx *ctx;
	bg_store *store;
	const bg_pairs_opts *o;
	const char *ref_cwd, *cand_cwd; /* the sides' checkouts: o's, or o->prepare's */
	int64_t *ref_ids, *cand_ids;
	size_t npairs, cap;
	pseries *s;
	size_t ns;
	/* run means, by run: cached as the looks read them again */
	struct run_means {
		int64_t run, *ids;
		double *means;
		size_t n;
	} * rm;
	size_t nrm, rmcap;
	size_t failed;
	char **failed_names; /* benchmarks that failed on either side, with why */
	char **failed_why;
	size_t nfailed, failed_cap, why_cap;
} pstate;

/* The robust mean of series `id` in run `run` (NAN when the run lacks it). */
static int value_of(pstate *p, int64_t run, int64_t id, double *v)
{
	struct run_means *m = NULL;
	size_t i, lo, hi;
	int error;

	for (i = 0; i < p->nrm && !m; i++)
		if (p->rm[i].run == run)
			m = &p->rm[i];
	if (!m) {
		if (bg_grow((void **)&p->rm, &p->rmcap, p->nrm, sizeof(*p->rm)) < 0)
			return bg_error_oom(p->ctx);
		m = &p->rm[p->nrm];
		memset(m, 0, sizeof(*m));
		m->run = run;
		if ((error = bg_store_run_means(p->ctx, p->store, run, &m->ids, &m->means, NULL,
		                                &m->n)) < 0)
			return error;
		p->nrm++;
	}
	*v = NAN;
	for (lo = 0, hi = m->n; lo < hi;) {
		size_t mid = (lo + hi) / 2;

		if (m->ids[mid] < id)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (lo < m->n && m->ids[lo] == id)
		*v = m->means[lo];
	return 0;
}

static void state_clear(pstate *p)
{
	size_t i;

	for (i = 0; i < p->ns; i++) {
		free(p->s[i].benchmark);
		free(p->s[i].metric);
		free(p->s[i].unit);
		free(p->s[i].cur);
		free(p->s[i].ref);
	}
	for (i = 0; i < p->nrm; i++) {
		free(p->rm[i].ids);
		free(p->rm[i].means);
	}
	for (i = 0; i < p->nfailed; i++) {
		free(p->failed_names[i]);
		free(p->failed_why[i]);
	}
	free(p->failed_names);
	free(p->failed_why);
	free(p->rm);
	free(p->s);
	free(p->ref_ids);
	free(p->cand_ids);
}

/* Adds a benchmark name to v[0..*n) unless it is there (borrowed). */
static void add_name(char **v, size_t *n, char *name)
{
	size_t j;

	for (j = 0; j < *n; j++)
		if (!strcmp(v[j], name))
			return;
	v[(*n)++] = name;
}

/*
 * The benchmarks to run next (NULL-terminated, borrowed names): those with
 * open series once the series are known; before, those of the series asked
 * for.  *all: no list, the caller's selection (filter, only) as it is.
 */
static char **next_benchmarks(pstate *p, int *all)
{
	const bg_pairs_opts *o = p->o;
	size_t i, n = 0, max = p->ns ? p->ns : o->nseries;
	char **v;

	*all = !p->ns && !o->series;
	if (!(v = calloc(max + 1, sizeof(char *))))
		return NULL;
	for (i = 0; p->ns && i < p->ns; i++)
		if (!p->s[i].decided)
			add_name(v, &n, p->s[i].benchmark);
	for (i = 0; !p->ns && o->series && i < o->nseries; i++)
		add_name(v, &n, (char *)o->series[i].benchmark);
	return v;
}

/* Notes a failed benchmark once, with why. */
static int note_failure(pstate *p, const bg_outcome *oc, const char *side)
{
	size_t k;

	p->failed++;
	for (k = 0; k < p->nfailed; k++)
		if (!strcmp(p->failed_names[k], oc->benchmark))
			return 0;
	/* Both arrays hold nfailed + 1 entries before either is filled, so
	 * that state_clear frees what there is whatever fails. */
	if (bg_grow((void **)&p->failed_names, &p->failed_cap, p->nfailed, sizeof(char *)) < 0 ||
	    bg_grow((void **)&p->failed_why, &p->why_cap, p->nfailed, sizeof(char *)) < 0)
		return bg_error_oom(p->ctx);
	p->failed_names[p->nfailed] = bg_strdup(oc->benchmark);
	p->failed_why[p->nfailed] =
	        bg_printf("failed at the %s: %s", side, oc->message ? oc->message : "?");
	p->nfailed++;
	if (!p->failed_names[p->nfailed - 1] || !p->failed_why[p->nfailed - 1])
		return bg_error_oom(p->ctx);
	return 0;
}

/* Notes the failed benchmarks of a run just made. */
static int note_failures(pstate *p, const bg_results *res, const char *side)
{
	size_t i;
	int error;

	for (i = 0; i < bg_results_outcome_count(res); i++) {
		const bg_outcome *oc = bg_results_outcome(res, i);

		if (oc->status == BG_BENCH_FAILED && (error = note_failure(p, oc, side)) < 0)
			return error;
	}
	return 0;
}

/*
 * Notes the failed benchmarks of a stored run that is reused, those this
 * measurement takes (the series asked for, else the caller's selection): a
 * rerun sees the failures the first one saw.
 */
static int note_stored_failures(pstate *p, int64_t run, const char *side)
{
	const bg_pairs_opts *o = p->o;
	bg_outcome *oc = NULL;
	size_t n = 0, i, k;
	int error, take;

	if ((error = bg_store_run_outcomes(p->ctx, p->store, run, &oc, &n)) < 0)
		return error;
	for (i = 0; i < n && error == 0; i++) {
		const char *name = oc[i].benchmark;
		unsigned char keep = 0;

		if (oc[i].status != BG_BENCH_FAILED)
			continue;
		for (k = 0, take = !o->series; o->series && k < o->nseries && !take; k++)
			take = !strcmp(o->series[k].benchmark, name);
		if (take && !o->series &&
		    (error = bg_suite__selects(p->ctx, &o->run, &name, 1, &keep)) == 0)
			take = keep;
		if (error == 0 && take)
			error = note_failure(p, &oc[i], side);
	}
	bg_outcomes_free(oc, n);
	return error;
}

/* One run of one side, of the benchmarks in `only` (all: the caller's selection). */
static int run_side(pstate *p, const bg_side *side, char **only, int all, int64_t *id,
                    const char *name)
{
	const bg_pairs_opts *o = p->o;
	bg_suite_opts so = o->run;
	bg_suite_output out;
	const char **tags = NULL;
	size_t nt = 0, i;
	int error;

	for (i = 0; o->run.tags && o->run.tags[i]; i++)
		nt++;
	if (!(tags = calloc(nt + 2, sizeof(char *))))
		return bg_error_oom(p->ctx);
	for (i = 0; i < nt; i++)
		tags[i] = o->run.tags[i];
	if (side->tag)
		tags[nt++] = side->tag;
	so.config = side->config ? side->config : o->run.config;
	so.commit = side->commit;
	so.cwd = side == &o->ref ? p->ref_cwd : p->cand_cwd;
	so.runs = 1;
	so.tags = tags;
	so.paired = 1;
	if (!all) {
		so.only = only;
		so.filter = NULL; /* `only` already holds the selection */
	}
	memset(&out, 0, sizeof(out));
	*id = 0;
	/* A side whose own suite has none of these benchmarks (the reference's
	 * benchguard.json may predate or drop one) measures nothing: its
	 * series get no pairs, and the caller keeps what it knew. */
	if ((error = bg_suite_count(p->ctx, &so, &i)) < 0 || i == 0) {
		free(tags);
		return error;
	}
	error = bg_suite_run(p->ctx, p->store, &so, &out);
	if (error == 0) {
		*id = out.ids[0];
		error = note_failures(p, out.res[0], name);
	}
	bg_suite_output_clear(&out);
	free(tags);
	return error;
}

/* Makes pairs until there are `want` (of the `goal` this look needs). */
static int measure(pstate *p, size_t want, size_t goal)
{
	int all = 0, error = 0;
	char **only = next_benchmarks(p, &all);

	if (!only)
		return bg_error_oom(p->ctx);
	while (p->npairs < want && (all || only[0])) {
		size_t k = p->npairs;
		int64_t rid = 0, cid = 0;
		/* One capacity for both arrays: each grows from it, and it moves
		 * once both have. */
		size_t rcap = p->cap, ccap = p->cap;

		if (bg_grow((void **)&p->ref_ids, &rcap, k, sizeof(*p->ref_ids)) < 0 ||
		    bg_grow((void **)&p->cand_ids, &ccap, k, sizeof(*p->cand_ids)) < 0) {
			error = bg_error_oom(p->ctx);
			break;
		}
		p->cap = rcap;
		/* The checkouts, only now that a pair is to be made. */
		if ((!p->ref_cwd || !p->cand_cwd) &&
		    (error = p->o->prepare(p->o->prepare_data, &p->ref_cwd, &p->cand_cwd)) < 0)
			break;
		if (!p->ref_cwd || !p->cand_cwd) {
			error = bg_error_set(p->ctx, BG_ERROR, "pairs: no checkout to measure in");
			break;
		}
		if (p->o->pair)
			p->o->pair(k + 1, goal, k % 2 == 0, p->o->look_data);
		if (k % 2 == 0) {
			if ((error = run_side(p, &p->o->ref, only, all, &rid, "reference")) < 0 ||
			    (error = run_side(p, &p->o->cand, only, all, &cid, "candidate")) < 0)
				break;
		} else {
			if ((error = run_side(p, &p->o->cand, only, all, &cid, "candidate")) < 0 ||
			    (error = run_side(p, &p->o->ref, only, all, &rid, "reference")) < 0)
				break;
		}
		p->ref_ids[k] = rid;
		p->cand_ids[k] = cid;
		p->npairs++;
		/* Recorded once both sides are complete: a pair interrupted
		 * half-way leaves a run that no later pair takes. */
		if (rid && cid && (error = bg_store_pair_record(p->ctx, p->store, rid, cid)) < 0)
			break;
	}
	free(only);
	return error;
}

/* A benchmark a stored run must hold, measured as it is defined now. */
typedef struct {
	const char *name; /* into the config */
	char definition[65];
} wanted_bench;

/*
 * The benchmarks this call selects on `side` (opts->series, and the run's
 * only and filter, over that side's suite), each with its definition as
 * that side would run it: *wants of *n; none without a suite.  Worked out
 * once, for every stored run.
 */
static int side_wants(bg_ctx *ctx, const bg_pairs_opts *o, const bg_side *side,
                      wanted_bench **wants, size_t *n)
{
	const bg_config *cfg = side->config ? side->config : o->run.config;
	size_t count = cfg ? bg_config_benchmark_count(cfg) : 0, i, k;
	const char **names = NULL;
	unsigned char *keep = NULL;
	int error = 0;

	*wants = NULL;
	*n = 0;
	if (!count)
		return 0;
	if (!(names = malloc(count * sizeof(*names))) || !(keep = malloc(count)) ||
	    !(*wants = malloc(count * sizeof(**wants)))) {
		error = bg_error_oom(ctx);
		goto cleanup;
	}
	for (i = 0; i < count; i++)
		names[i] = bg_config_benchmark(cfg, i)->name;
	if ((error = bg_suite__selects(ctx, &o->run, names, count, keep)) < 0)
		goto cleanup;
	for (i = 0; i < count; i++) {
		int wanted = keep[i] && !o->series;
		wanted_bench *w = &(*wants)[*n];

		for (k = 0; keep[i] && !wanted && o->series && k < o->nseries; k++)
			wanted = !strcmp(o->series[k].benchmark, names[i]);
		if (!wanted)
			continue;
		w->name = names[i];
		if ((error = bg_config__definition(cfg, bg_config_benchmark(cfg, i), &o->run,
		                                   w->definition)) < 0) {
			error = bg_error_set(ctx, error, "cannot describe benchmark \"%s\"",
			                     names[i]);
			goto cleanup;
		}
		(*n)++;
	}
cleanup:
	free(keep);
	free((void *)names);
	if (error < 0) {
		free(*wants);
		*wants = NULL;
		*n = 0;
	}
	return error;
}

/*
 * Whether a stored run measured every one of wants[0..n), each as it is
 * defined now (measured, failed or skipped).  Pairs are found by their
 * tags, which do not say what was run: a pair made for a narrower selection
 * (a bisect of another series over the same range) lacks the rest, and
 * reused it would judge them on no runs; one made before a benchmark's
 * command, samples or timeout (or the build) changed measured something
 * else.  Runs that recorded no definition (an older benchguard) cover
 * nothing.
 */
static int run_covers(bg_ctx *ctx, bg_store *store, int64_t run, const wanted_bench *wants,
                      size_t n, int *covers)
{
	size_t i;
	int error = 0, have = 1;

	for (i = 0; i < n && have && error == 0; i++)
		error = bg_store_run_defined(ctx, store, run, wants[i].name, wants[i].definition,
		                             &have);
	*covers = error == 0 && have;
	return error;
}

int bg_pairs_stored(bg_ctx *ctx, bg_store *store, const bg_pairs_opts *opts, int64_t **ref_ids,
                    int64_t **cand_ids, size_t *n)
{
	wanted_bench *rwant = NULL, *cwant = NULL;
	size_t len = 0, i, kept = 0, nr = 0, nc = 0;
	int error, a = 0, b = 0;

	BG_NEED(ctx, store);
	BG_NEED(ctx, opts);
	BG_NEED(ctx, ref_ids);
	BG_NEED(ctx, cand_ids);
	BG_NEED(ctx, n);

	*ref_ids = *cand_ids = NULL;
	*n = 0;
	/* What it reads; the checkouts and the suite need not be there. */
	if (!opts->ref.commit || !opts->cand.commit || !opts->run.machine)
		return bg_error_set(ctx, BG_EINPUT, "stored pairs need two commits and a machine");
	if ((error = bg_store_pairs_tagged(ctx, store, bg_machine_fingerprint(opts->run.machine), 0,
	                                   opts->ref.commit->sha, opts->ref.tag,
	                                   opts->cand.commit->sha, opts->cand.tag, ref_ids,
	                                   cand_ids, &len)) < 0)
		return error;
	if (len && ((error = side_wants(ctx, opts, &opts->ref, &rwant, &nr)) < 0 ||
	            (error = side_wants(ctx, opts, &opts->cand, &cwant, &nc)) < 0))
		goto cleanup;
	/* In their order, so that a rerun with the same selection sees the
	 * pairs it saw before. */
	for (i = 0; i < len; i++) {
		if ((error = run_covers(ctx, store, (*ref_ids)[i], rwant, nr, &a)) < 0 ||
		    (error = run_covers(ctx, store, (*cand_ids)[i], cwant, nc, &b)) < 0)
			goto cleanup;
		if (a && b) {
			(*ref_ids)[kept] = (*ref_ids)[i];
			(*cand_ids)[kept++] = (*cand_ids)[i];
		}
	}
	*n = kept;
cleanup:
	free(rwant);
	free(cwant);
	if (error < 0) {
		free(*ref_ids);
		free(*cand_ids);
		*ref_ids = *cand_ids = NULL;
	}
	return error;
}

/*
 * Pairs already stored under the sides' tags, oldest first: only those
 * recorded as pairs (both runs made back to back and complete), never runs
 * matched by their position, which a run left without its partner by an
 * interruption would shift by one for good.
 */
static int stored_pairs(pstate *p)
{
	const bg_pairs_opts *o = p->o;
	size_t n = 0, i;
	int error;

	if ((error = bg_pairs_stored(p->ctx, p->store, o, &p->ref_ids, &p->cand_ids, &n)) < 0)
		return error;
	p->npairs = p->cap = n;
	for (i = 0; i < p->npairs && error == 0; i++)
		if ((error = note_stored_failures(p, p->ref_ids[i], "reference")) == 0)
			error = note_stored_failures(p, p->cand_ids[i], "candidate");
	return error;
}

/* Into p->s, sized by find_series for every series of the run. */
static int add_series(pstate *p, const bg_run_series *rs, int worse, int better)
{
	pseries *x = &p->s[p->ns];

	memset(x, 0, sizeof(*x));
	x->id = rs->series_id;
	x->direction = rs->direction;
	x->worse = worse;
	x->better = better;
	x->verdict = BG_VERDICT_NO_BASELINE;
	x->benchmark = bg_strdup(rs->benchmark);
	x->metric = bg_strdup(rs->metric);
	x->unit = bg_strdup(rs->unit);
	/* The candidate's first run says what measured the series. */
	x->min_change = bg_thresholds_min_change(&p->o->thresholds, rs->benchmark, rs->metric,
	                                         rs->instrument);
	x->resolution = bg_instrument__resolution(rs->instrument, rs->metric);
	p->ns++;
	if (!x->benchmark || !x->metric || !x->unit)
		return bg_error_oom(p->ctx);
	return 0;
}

/*
 * The series to decide: those asked for, else every series of the
 * candidate's first run of a benchmark the caller selects (filter, only):
 * a stored pair (reuse) may have been made with a wider selection.  Known
 * once the first pair exists.
 */
static int find_series(pstate *p)
{
	const bg_pairs_opts *o = p->o;
	bg_run_series *rs = NULL;
	const char **names = NULL;
	unsigned char *keep = NULL;
	size_t n = 0, i, k;
	int error;

	if (p->ns || !p->npairs)
		return 0;
	if ((error = bg_store_run_series(p->ctx, p->store, p->cand_ids[0], &rs, &n)) < 0)
		return error;
	if (!(p->s = calloc(n + 1, sizeof(*p->s))) || !(names = calloc(n + 1, sizeof(*names))) ||
	    !(keep = calloc(n + 1, 1))) {
		error = bg_error_oom(p->ctx);
		goto cleanup;
	}
	for (i = 0; i < n; i++)
		names[i] = rs[i].benchmark;
	if (!o->series && (error = bg_suite__selects(p->ctx, &o->run, names, n, keep)) < 0)
		goto cleanup;
	for (i = 0; i < n && error == 0; i++) {
		if (!o->series) {
			if (keep[i])
				error = add_series(p, &rs[i], 1, 1);
			continue;
		}
		for (k = 0; k < o->nseries; k++)
			if (!strcmp(o->series[k].benchmark, rs[i].benchmark) &&
			    !strcmp(o->series[k].metric, rs[i].metric)) {
				error = add_series(p, &rs[i], o->series[k].worse,
				                   o->series[k].better);
				break;
			}
	}
cleanup:
	free(names);
	free(keep);
	bg_run_series_free(rs, n);
	return error;
}

/* Judges the open series on the first `pairs` pairs; decides what it can. */
static int look_at(pstate *p, size_t pairs, size_t look, size_t looks, double level)
{
	const bg_pairs_opts *o = p->o;
	bg_judge_input *in = NULL;
	bg_judgement *jd = NULL;
	size_t i, k, nin = 0, *idx = NULL;
	int error = 0;

	in = calloc(p->ns + 1, sizeof(*in));
	jd = calloc(p->ns + 1, sizeof(*jd));
	idx = calloc(p->ns + 1, sizeof(*idx));
	if (!in || !jd || !idx) {
		error = bg_error_oom(p->ctx);
		goto cleanup;
	}
	for (i = 0; i < p->ns; i++) {
		pseries *x = &p->s[i];

		if (x->decided)
			continue;
		if ((!x->cur && !(x->cur = malloc((o->max + 1) * sizeof(double)))) ||
		    (!x->ref && !(x->ref = malloc((o->max + 1) * sizeof(double))))) {
			error = bg_error_oom(p->ctx);
			goto cleanup;
		}
		/* Pairs where either side lacks the series (it failed there) drop out. */
		x->design = BG_DESIGN_PAIRED;
		for (k = x->n = 0; k < pairs && k < p->npairs; k++) {
			double c, r;

			if ((error = value_of(p, p->cand_ids[k], x->id, &c)) < 0 ||
			    (error = value_of(p, p->ref_ids[k], x->id, &r)) < 0)
				goto cleanup;
			if (isfinite(c) && isfinite(r)) {
				x->cur[x->n] = c;
				x->ref[x->n] = r;
				x->n++;
				/* A ratio needs two values above 0.  Where a side is 0
				 * (0 allocs/op) or below (a score in pt), the two sides
				 * are compared as two samples, as check compares runs:
				 * the pairing's gain is lost, the move is judged. */
				if (!(c > 0) || !(r > 0))
					x->design = BG_DESIGN_ROLLING;
			}
		}
		idx[nin] = i;
		in[nin].design = x->design;
		in[nin].direction = x->direction;
		in[nin].base = x->ref;
		in[nin].cur = x->cur;
		in[nin].n_base = in[nin].n_cur = x->n >= 2 ? x->n : 0;
		in[nin].min_change = x->min_change;
		in[nin].resolution = x->resolution;
		nin++;
	}
	if (!nin)
		goto cleanup;
	if ((error = bg_judge(p->ctx, in, nin, &o->thresholds, level, jd)) < 0)
		goto cleanup;
	for (k = 0; k < nin; k++) {
		pseries *x = &p->s[idx[k]];

		x->j = jd[k];
		x->pairs = x->n;
		x->upto = pairs;
		x->look = look + 1;
		x->decided =
		        bg_sequential_decide(&jd[k], look + 1, looks, o->max, &o->thresholds, level,
		                             &x->worse, &x->better, &x->verdict, &x->status);
		/* Not one pair has it on both sides: the reference does not
		 * measure it (a benchmark or metric the candidate added), or
		 * failed it every time.  More pairs would not give it one; they
		 * would only hold the others' decided series to the cap. */
		if (!x->n && x->verdict == BG_VERDICT_NO_BASELINE)
			x->decided = 1;
	}
cleanup:
	free(in);
	free(jd);
	free(idx);
	return error;
}

static size_t open_count(const pstate *p)
{
	size_t i, n = 0;

	for (i = 0; i < p->ns; i++)
		n += !p->s[i].decided;
	return n;
}

/* The samples of series `id` in a run's series (ordered by id); 0 if absent. */
static size_t samples_in(const bg_run_series *rs, size_t n, int64_t id)
{
	size_t lo = 0, hi = n;

	while (lo < hi) {
		size_t mid = (lo + hi) / 2;

		if (rs[mid].series_id < id)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo < n && rs[lo].series_id == id ? rs[lo].summary.n : 0;
}

/*
 * Each series' samples in the candidate's runs of the pairs its verdict
 * read (both sides measured it), into samples[i]: what check calls a
 * row's samples.
 */
static int count_samples(pstate *p, size_t *samples)
{
	bg_run_series *rs = NULL;
	size_t k, i, n = 0;
	int error = 0;

	for (k = 0; k < p->npairs && !error; k++) {
		if ((error = bg_store_run_series(p->ctx, p->store, p->cand_ids[k], &rs, &n)) < 0)
			break;
		for (i = 0; i < p->ns && !error; i++) {
			const pseries *x = &p->s[i];
			double c, r;

			if (k >= x->upto || (error = value_of(p, p->cand_ids[k], x->id, &c)) < 0 ||
			    (error = value_of(p, p->ref_ids[k], x->id, &r)) < 0)
				continue;
			if (isfinite(c) && isfinite(r))
				samples[i] += samples_in(rs, n, x->id);
		}
		bg_run_series_free(rs, n);
		rs = NULL;
	}
	return error;
}

static int make_result(pstate *p, size_t nlooks, double level, double seconds, size_t made,
                       bg_check_result **out)
{
	const bg_pairs_opts *o = p->o;
	bg_check_result *res = calloc(1, sizeof(*res));
	size_t i, *samples = calloc(p->ns + 1, sizeof(*samples));
	int error;

	if (!res || !samples || !(res->rows = calloc(p->ns + p->nfailed + 1, sizeof(*res->rows))))
		goto oom;
	if ((error = count_samples(p, samples)) < 0) {
		free(samples);
		bg_check_result_free(res);
		return error;
	}
	res->run_id = p->npairs ? p->cand_ids[0] : 0;
	memcpy(res->sha, o->cand.commit->sha, sizeof(res->sha));
	memcpy(res->baseline_from, o->ref.commit->sha, sizeof(res->baseline_from));
	memcpy(res->reference, o->ref.commit->sha, sizeof(res->reference));
	res->dirty = o->cand.commit->dirty;
	res->window = (int)p->npairs;
	res->confirm_pairs = made;
	res->confirm_max = o->max;
	res->confirm_seconds = seconds;
	if ((o->cand.commit->branch && !(res->branch = bg_strdup(o->cand.commit->branch))) ||
	    !(res->machine = bg_strdup(bg_machine_fingerprint(o->run.machine))))
		goto oom;
	for (i = 0; i < p->ns; i++) {
		const pseries *x = &p->s[i];
		bg_verdict_row *r = &res->rows[res->nrows++];

		r->series = bg_printf("%s:%s", x->benchmark, x->metric);
		r->benchmark = bg_strdup(x->benchmark);
		r->metric = bg_strdup(x->metric);
		r->unit = bg_strdup(x->unit);
		if (!r->series || !r->benchmark || !r->metric || !r->unit)
			goto oom;
		r->direction = x->direction;
		r->verdict = x->verdict;
		r->test = x->j.test;
		r->p_adjusted = x->j.p_adjusted;
		r->p_better_adjusted = x->j.p_better_adjusted;
		r->deterministic = x->j.deterministic;
		r->noise_floor = x->j.noise_floor;
		r->min_change = x->j.min_change;
		r->baseline_runs = r->current_runs = x->pairs;
		r->samples = samples[i];
		r->confirm.status = x->status;
		r->confirm.first = BG_VERDICT_UNCHANGED;
		/* Measured in pairs, whichever test judged them. */
		r->confirm.design = BG_DESIGN_PAIRED;
		r->confirm.test = x->j.test;
		r->confirm.p_adjusted = x->verdict == BG_VERDICT_IMPROVEMENT
		                                ? x->j.p_better_adjusted
		                                : x->j.p_adjusted;
		r->confirm.level = level;
		r->confirm.pairs = x->pairs;
		r->confirm.look = x->look;
		r->confirm.looks = nlooks;
		memcpy(r->confirm.reference, o->ref.commit->sha, sizeof(r->confirm.reference));
		if (x->verdict == BG_VERDICT_NO_BASELINE) {
			r->confirm.status = BG_CONFIRM_NONE;
			if (!(r->message = x->pairs ? bg_printf("fewer than 2 pairs have it (%zu)",
			                                        x->pairs)
			                            : bg_strdup("not measured at the reference in "
			                                        "any pair")))
				goto oom;
		} else if (x->verdict == BG_VERDICT_SKIPPED) {
			/* Why its values cannot be judged, as check says it. */
			r->confirm.status = BG_CONFIRM_NONE;
			if (!(r->message = bg_strdup(x->j.reason)))
				goto oom;
		}
	}
	for (i = 0; i < p->nfailed; i++) {
		bg_verdict_row *r = &res->rows[res->nrows++];

		r->verdict = BG_VERDICT_FAILED;
		r->series = bg_strdup(p->failed_names[i]);
		r->benchmark = bg_strdup(p->failed_names[i]);
		r->message = bg_strdup(p->failed_why[i]);
		r->p_adjusted = r->p_better_adjusted = NAN;
		if (!r->series || !r->benchmark || !r->message)
			goto oom;
	}
	bg_check_sort(res);
	free(samples);
	*out = res;
	return 0;
oom:
	free(samples);
	bg_check_result_free(res);
	return bg_error_oom(p->ctx);
}

static int check_sides(bg_ctx *ctx, const bg_pairs_opts *opts)
{
	if (!opts->ref.commit || !opts->cand.commit ||
	    ((!opts->ref.cwd || !opts->cand.cwd) && !opts->prepare) || !opts->run.machine ||
	    (!opts->run.config && (!opts->ref.config || !opts->cand.config)))
		return bg_error_set(ctx, BG_EINPUT,
		                    "a paired measurement needs two commits, their checkouts, a "
		                    "suite and a machine");
	return 0;
}

int bg_pairs_make(bg_ctx *ctx, bg_store *store, const bg_pairs_opts *opts, size_t want,
                  int64_t **ref_ids, int64_t **cand_ids, size_t *n)
{
	pstate p;
	int error;

	BG_NEED(ctx, store);
	BG_NEED(ctx, opts);
	BG_NEED(ctx, ref_ids);
	BG_NEED(ctx, cand_ids);
	BG_NEED(ctx, n);

	*ref_ids = *cand_ids = NULL;
	*n = 0;
	if ((error = check_sides(ctx, opts)) < 0)
		return error;
	memset(&p, 0, sizeof(p));
	p.ctx = ctx;
	p.store = store;
	p.o = opts;
	p.ref_cwd = opts->ref.cwd;
	p.cand_cwd = opts->cand.cwd;
	/* No series: measure() runs the caller's selection as it is. */
	if ((!opts->reuse || (error = stored_pairs(&p)) == 0) &&
	    (error = measure(&p, want, want)) == 0) {
		*ref_ids = p.ref_ids;
		*cand_ids = p.cand_ids;
		*n = p.npairs;
		p.ref_ids = p.cand_ids = NULL;
	}
	state_clear(&p);
	return error;
}

int bg_pairs_run(bg_ctx *ctx, bg_store *store, const bg_pairs_opts *opts, bg_check_result **out)
{
	size_t sizes[BG_MAX_LOOKS], nlooks, k, made = 0;
	double level, t0 = bg_now();
	pstate p;
	int error = 0;

	BG_NEED(ctx, store);
	BG_NEED(ctx, opts);
	BG_NEED(ctx, out);

	*out = NULL;
	memset(&p, 0, sizeof(p));
	if ((error = check_sides(ctx, opts)) < 0)
		return error;
	if (opts->first < 2 || opts->max < opts->first)
		return bg_error_set(ctx, BG_EINPUT,
		                    "pairs: the first look needs at least 2 pairs and the cap at "
		                    "least as many (got %zu and %zu)",
		                    opts->first, opts->max);
	if (!(opts->thresholds.alpha > 0 && opts->thresholds.alpha < 1))
		return bg_error_set(ctx, BG_EINPUT, "alpha must be between 0 and 1 (got %g)",
		                    opts->thresholds.alpha);
	/* A selection of nothing measures nothing: not a comparison that found
	 * no change. */
	if (opts->run.config && !opts->series) {
		if ((error = bg_suite_count(ctx, &opts->run, &k)) < 0)
			return error;
		if (!k)
			return opts->run.filter
			               ? bg_error_set(ctx, BG_EINPUT,
			                              "--filter \"%s\" matches no benchmark",
			                              opts->run.filter)
			               : bg_error_set(ctx, BG_EINPUT, "no benchmark to run");
	}
	p.ctx = ctx;
	p.store = store;
	p.o = opts;
	p.ref_cwd = opts->ref.cwd;
	p.cand_cwd = opts->cand.cwd;
	nlooks = bg_looks(opts->first, opts->max, sizes);
	level = opts->thresholds.alpha / (double)nlooks;
	if (opts->reuse && (error = stored_pairs(&p)) < 0)
		goto cleanup;
	for (k = 0; k < nlooks; k++) {
		size_t before = p.npairs;

		/* The first pair tells which series there are; a series list
		 * given by the caller is matched against it. */
		if ((error = measure(&p, p.npairs ? sizes[k] : 1, sizes[k])) < 0 ||
		    (error = find_series(&p)) < 0)
			goto cleanup;
		if (!p.ns) /* nothing measured at the candidate: its failures say why */
			break;
		if ((error = measure(&p, sizes[k], sizes[k])) < 0)
			goto cleanup;
		made += p.npairs - before;
		if ((error = look_at(&p, sizes[k], k, nlooks, level)) < 0)
			goto cleanup;
		if (opts->look)
			opts->look(k + 1, nlooks, sizes[k] < p.npairs ? sizes[k] : p.npairs,
			           open_count(&p), bg_now() - t0, opts->look_data);
		if (!open_count(&p))
			break;
	}
	error = make_result(&p, nlooks, level, bg_now() - t0, made, out);
cleanup:
	state_clear(&p);
	return error;
}
