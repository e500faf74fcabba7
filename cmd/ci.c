/*
 * ci.c -- `benchguard ci`: the CI step.  The build, then the library's ci
 * (bg_ci_run: the suite's runs, the rolling check, the confirmation in
 * interleaved pairs, the verdict recorded); this file prints the verdict,
 * writes its JUnit XML (--junit FILE, for GitLab's and Jenkins' test
 * reports), appends its Markdown to $GITHUB_STEP_SUMMARY and, under GitHub
 * Actions, prints workflow-command annotations so regressions show up on
 * the pull request, and sends the alerts.  A failure (exit 3) outranks a regression
 * (exit 1).
 */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "internal.h"

/* GitHub workflow commands: '%', CR and LF are escaped in the message,
 * and ':' and ',' too in property values. */
static void gh_escape(FILE *f, const char *s, int property)
{
	for (; s && *s; s++) {
		if (*s == '%')
			fputs("%25", f);
		else if (*s == '\r')
			fputs("%0D", f);
		else if (*s == '\n')
			fputs("%0A", f);
		else if (property && *s == ':')
			fputs("%3A", f);
		else if (property && *s == ',')
			fputs("%2C", f);
		else
			fputc(*s, f);
	}
}

/* Names in the message come from outside: their control characters are
 * shown (lib/text.c), then the command's own escapes keep it one command. */
static void annotate(FILE *f, const char *level, const char *title, const char *msg)
{
	char *t = bg_text__escaped(BG_ESC_TERM, title), *m = bg_text__escaped(BG_ESC_TERM, msg);

	fprintf(f, "::%s title=", level);
	gh_escape(f, t ? t : "benchguard", 1);
	fputs("::", f);
	gh_escape(f, m ? m : "(out of memory)", 0);
	fputc('\n', f);
	free(t);
	free(m);
}

static int annotated(const bg_verdict_row *r)
{
	return r->verdict == BG_VERDICT_REGRESSION || r->verdict == BG_VERDICT_FAILED;
}

/*
 * One ::error per regression or failed benchmark, in the table's order
 * (what needs attention first).  GitHub shows only BG_ANNOTATIONS_MAX of
 * a step and drops the rest without a word, so past that the last one
 * says how many more there are and where they are listed.
 */
static void annotations(FILE *f, const bg_check_result *res)
{
	size_t i, total = 0, shown = 0;

	/* Nothing judged because this machine has no runs while another has:
	 * a warning on the pull request, not only a line in the log. */
	if (res->other_machine) {
		char *msg =
		        bg_printf("no run of machine %s is stored, so nothing was judged and a "
		                  "regression would pass; the database has %zu runs of machine "
		                  "%s%s%s%s. If that is this runner class, run with --machine %s",
		                  res->machine, res->other_machine_runs, res->other_machine,
		                  res->other_machine_differs ? " (facts that differ: " : "",
		                  res->other_machine_differs ? res->other_machine_differs : "",
		                  res->other_machine_differs ? ")" : "", res->other_machine);

		annotate(f, "warning", "benchguard: no baseline on this machine", msg);
		free(msg);
	}
	/* The baseline older than the branch (a cache restored from an older
	 * job), or nothing judged because the machine's runs are of a history
	 * that was rewritten: as the warning above, on the pull request. */
	if (res->stale_commits) {
		char *msg = bg_check__stale_text(res);

		annotate(f, "warning", "benchguard: baseline older than the branch", msg);
		free(msg);
	}
	if (res->missing_runs) {
		char *msg = bg_check__missing_text(res);

		annotate(f, "warning", "benchguard: no baseline on this history", msg);
		free(msg);
	}
	for (i = 0; i < res->nrows; i++)
		total += annotated(&res->rows[i]);
	/* Formatted whole (a series name may be 2 KiB, a failure's message
	 * longer): a fixed buffer cut the numbers off, or a character in two. */
	for (i = 0; i < res->nrows; i++) {
		const bg_verdict_row *r = &res->rows[i];
		char *msg = NULL, worse[64], g[32];
		/* Measured again, the second measurement decided the verdict:
		 * its change is the one to state (the first look's may even
		 * point the other way); the message says against what. */
		int again = r->confirm.status == BG_CONFIRM_CONFIRMED ||
		            r->confirm.status == BG_CONFIRM_FOUND;
		double change = again ? r->confirm.test.change : r->test.change;

		if (!annotated(r))
			continue;
		if (total > BG_ANNOTATIONS_MAX && shown == BG_ANNOTATIONS_MAX - 1) {
			msg = bg_printf("%zu more regressions or failed benchmarks are not "
			                "annotated (GitHub shows %d a step): see the step "
			                "summary, and the verdict table in the log for all "
			                "of them",
			                total - shown, BG_ANNOTATIONS_MAX);
			annotate(f, "error", "benchguard", msg);
			free(msg);
			return;
		}
		shown++;

		/* "got 2.5% worse", or from a zero mean "got worse from 0". */
		if (isnan(change))
			snprintf(worse, sizeof(worse), "got worse from 0");
		else
			snprintf(worse, sizeof(worse), "got %.1f%% worse", 100.0 * change);
		/* No g from three runs in all (one degree of freedom): say so,
		 * not "g=nan". */
		if (isnan(r->test.effect))
			snprintf(g, sizeof(g), "no effect size from %zu runs",
			         r->baseline_runs + r->current_runs);
		else
			snprintf(g, sizeof(g), "g=%.2f", r->test.effect);
		if (r->verdict == BG_VERDICT_REGRESSION && again) {
			msg = bg_printf("%s %s when measured again; %s", r->series, worse,
			                r->message ? r->message
			                           : bg_confirm_status_name(r->confirm.status));
			annotate(f, "error", "benchguard: performance regression", msg);
		} else if (r->verdict == BG_VERDICT_REGRESSION && r->deterministic) {
			/* No p and no g: the noise floor judged it, as the table says. */
			msg = bg_printf("%s %s than the %s baseline (near-deterministic, "
			                "noise floor %.2g%%, %zu baseline runs)%s%s",
			                r->series, worse, res->baseline_branch,
			                100.0 * r->noise_floor, r->baseline_runs,
			                r->message ? "; " : "", r->message ? r->message : "");
			annotate(f, "error", "benchguard: performance regression", msg);
		} else if (r->verdict == BG_VERDICT_REGRESSION) {
			msg = bg_printf("%s %s than the %s baseline (p=%.2g adjusted, "
			                "%s, %zu baseline runs)%s%s",
			                r->series, worse, res->baseline_branch, r->p_adjusted, g,
			                r->baseline_runs, r->message ? "; " : "",
			                r->message ? r->message : "");
			annotate(f, "error", "benchguard: performance regression", msg);
		} else if (r->verdict == BG_VERDICT_FAILED) {
			msg = bg_printf("%s did not run: %s", r->series,
			                r->message ? r->message : "failed");
			annotate(f, "error", "benchguard: benchmark failed", msg);
		}
		free(msg);
	}
}

/* Appends to the step summary; a file that cannot be written is a warning,
 * never a reason to hide the verdict. */
static FILE *open_summary(cli_state *st)
{
	const char *path = getenv("GITHUB_STEP_SUMMARY");
	FILE *f;

	if (!path || !*path)
		return NULL;
	/* "a+": its last byte is read (write_summary), and everything written
	 * goes to the end. */
	if (!(f = fopen(path, "a+")))
		cli_warn(st, "cannot write the step summary %s", path);
	return f;
}

/*
 * Where the step summary stands: the room left in GitHub's 1 MiB (earlier
 * steps' text and ours together: GitHub drops a larger summary whole), and
 * *sep a "\n" when an earlier step's text does not end its line, which
 * would take our heading into its last line, where it renders as text.
 */
static size_t summary_room(FILE *f, const char **sep)
{
	size_t room = BG_STEP_SUMMARY_MAX;
	long have;

	*sep = "";
	if (fseek(f, 0, SEEK_END) == 0 && (have = ftell(f)) > 0) {
		room = (size_t)have < room ? room - (size_t)have : 0;
		if (fseek(f, -1, SEEK_END) == 0 && fgetc(f) != '\n') {
			*sep = "\n";
			room = room ? room - 1 : 0;
		}
		(void)fseek(f, 0, SEEK_END);
	}
	return room;
}

/* `text` (the `what`) appended after `sep` when it fits in `room`, then the
 * summary closed.  One that does not fit, or a write that fails (a full disk
 * shows at the close), is a warning: the exit code stays the run's. */
static void summary_append(cli_state *st, FILE *f, const char *sep, const char *text, size_t room,
                           const char *what)
{
	const char *path = getenv("GITHUB_STEP_SUMMARY");
	int bad;

	if (strlen(text) > room) {
		cli_warn(st,
		         "the step summary %s is full (GitHub takes 1 MiB): %s is not added to "
		         "it",
		         path, what);
		fclose(f);
		return;
	}
	bad = fputs(sep, f) == EOF || fputs(text, f) == EOF;
	bad |= fclose(f) != 0;
	if (bad)
		cli_warn(st, "cannot write the step summary %s: %s", path, strerror(errno));
}

/*
 * The verdict's Markdown appended to the open step summary, then closed,
 * the table cut to the room left, the regressions and failures first.
 * Only running out of memory is an error.
 */
static int write_summary(cli_state *st, const bg_check_result *res, FILE *f)
{
	const char *sep;
	size_t room = summary_room(f, &sep);
	char *md = NULL;
	int rc;

	if ((rc = bg_check_markdown_max(st->ctx, res, room, &md)) < 0) {
		fclose(f);
		return rc;
	}
	summary_append(st, f, sep, md, room, "the verdict");
	free(md);
	return 0;
}

/* Why the run or the build failed, appended to the open step summary under
 * the same guards as the verdict, then closed. */
static void write_failure_summary(cli_state *st, int rc, FILE *f)
{
	const char *sep;
	size_t room = summary_room(f, &sep);
	char *why = bg_text__escaped(BG_ESC_MD, bg_ctx_error(st->ctx));
	char *text = bg_printf("### benchguard: %s\n\n%s\n\n",
	                       rc == BG_EBUILD ? "build failed" : "run failed", why ? why : "");

	if (text && why) {
		summary_append(st, f, sep, text, room, "the failure");
	} else {
		fclose(f);
		cli_warn(st, "cannot write the step summary %s: out of memory",
		         getenv("GITHUB_STEP_SUMMARY"));
	}
	free(why);
	free(text);
}

static void on_pair(size_t k, size_t of, int ref_first, void *data)
{
	cli_state *st = data;

	cli_info(st, "  pair %zu of %zu (%s first)", k, of, ref_first ? "baseline" : "candidate");
}

static void on_look(size_t look, size_t looks, size_t pairs, size_t open, double seconds,
                    void *data)
{
	cli_state *st = data;

	cli_info(st, "  look %zu of %zu at %zu pairs: %zu series still open (%.1f s)", look, looks,
	         pairs, open, seconds);
}

/* The final verdict as JUnit XML in `path`, whole or not at all (a temp
 * file renamed).  Like the step summary, a file that cannot be written is
 * a warning: the verdict and the exit code stay what the runs said. */
static void write_junit(cli_state *st, const char *path, const bg_check_result *res)
{
	char *xml = NULL;

	if (bg_check_junit(st->ctx, res, &xml) < 0 ||
	    cli_write_file(st, path, xml, strlen(xml)) < 0)
		cli_warn(st, "cannot write the JUnit report: %s", bg_ctx_error(st->ctx));
	free(xml);
}

enum { OPT_CONFIRM = CLI_OPT_BASE + 200, OPT_MAX_PAIRS, OPT_JUNIT };

int cmd_ci(cli_state *st, int argc, char **argv)
{
	static const struct option ci_options[] = {
		CLI_RUN_LONG_OPTIONS,
		CLI_CHECK_LONG_OPTIONS,
		{ "confirm", required_argument, NULL, OPT_CONFIRM },
		{ "max-pairs", required_argument, NULL, OPT_MAX_PAIRS },
		{ "junit", required_argument, NULL, OPT_JUNIT },
		{ 0, 0, 0, 0 },
	};
	const cli_command *self = cli_find_command("ci");
	const char *gha = getenv("GITHUB_ACTIONS");
	int github = gha && !strcmp(gha, "true");
	FILE *ann;
	cli_run_flags rflags;
	cli_check_flags cflags;
	bg_ci_result out;
	bg_ci_opts o;
	bg_commit head;
	cli_env env;
	char *cache = NULL;
	const char *junit = NULL;
	FILE *summary;
	int opt, rc = 0, n, confirm = -1, max_pairs = -1;
	size_t count;

	memset(&env, 0, sizeof(env));
	memset(&out, 0, sizeof(out));
	memset(&head, 0, sizeof(head));
	cli_run_flags_init(&rflags);
	cli_check_flags_init(&cflags);
	while ((opt = cli_getopt(st, argc, argv, "", ci_options, self)) != -1) {
		if (opt == 'h')
			goto cleanup;
		if (opt == '?') {
			rc = BG_EINPUT;
			goto cleanup;
		}
		if (opt == OPT_JUNIT) {
			if (!*optarg) {
				rc = cli_usage_error(st, "--junit needs a file name");
				goto cleanup;
			}
			junit = optarg;
			continue;
		}
		if (opt == OPT_CONFIRM || opt == OPT_MAX_PAIRS) {
			int *v = opt == OPT_CONFIRM ? &confirm : &max_pairs;

			/* The range said is the range taken: "from 0 to 1000000"
			 * then "at most 1000 pairs" named two. */
			if ((rc = cli_parse_range(
			             st, opt == OPT_CONFIRM ? "--confirm" : "--max-pairs", optarg,
			             opt == OPT_CONFIRM ? 0 : 2, BG_MAX_PAIRS, v)) < 0)
				goto cleanup;
			continue;
		}
		if ((n = cli_run_option(st, &rflags, argc, opt, optarg)) == 0)
			n = cli_check_option(st, &cflags, opt, optarg);
		if (n < 0) {
			rc = n;
			goto cleanup;
		}
	}
	/* The runner reads workflow commands on stdout and stderr alike; beside
	 * --json or --format markdown (known once the options are read) they go
	 * to stderr, so that stdout stays the one document a later step parses
	 * or posts. */
	ann = st->format == CLI_TABLE ? stdout : stderr;
	if (optind < argc) {
		rc = cli_usage_error(st, "ci takes no arguments (got \"%s\")", argv[optind]);
		goto cleanup;
	}
	if (rflags.commit || rflags.retry_build) {
		rc = cli_usage_error(st, "ci judges the working tree: --commit and --retry-build "
		                         "are options of run");
		goto cleanup;
	}
	if (confirm == 1) {
		rc = cli_usage_error(st, "--confirm needs 0 (none) or at least 2 pairs: one pair "
		                         "has no spread to judge");
		goto cleanup;
	}
	if ((rc = cli_open_repo(st, &env)) < 0 || (rc = cli_load_config(st, &env)) < 0 ||
	    (rc = cli_detect_machine(st, &env, rflags.machine)) < 0 ||
	    (rc = cli_open_store(st, &env)) < 0 || (rc = bg_store_writable(st->ctx, env.store)) < 0)
		goto cleanup;

	memset(&o, 0, sizeof(o));
	if ((rc = cli_check_opts(st, &cflags, env.config, &o.check)) < 0)
		goto cleanup;
	cli_suite_opts(st, &env, &rflags, &o.run);
	o.repo = env.repo;
	o.store = env.store;
	o.config = env.config;
	o.machine = env.machine;
	o.same_suite = st->config_path != NULL;
	o.confirm_first = (size_t)(confirm >= 0 ? confirm : bg_config_confirm(env.config)->pairs);
	o.confirm_max =
	        (size_t)(max_pairs >= 0 ? max_pairs : bg_config_confirm(env.config)->max_pairs);
	if (o.confirm_first && o.confirm_max < o.confirm_first) {
		if (max_pairs >= 0) {
			rc = cli_usage_error(st,
			                     "--max-pairs %d is less than the first look's %zu "
			                     "pairs",
			                     max_pairs, o.confirm_first);
			goto cleanup;
		}
		o.confirm_max = o.confirm_first;
	}
	o.pair_event = cli_quiet_events();
	o.look = on_look;
	o.pair = on_pair;
	o.look_data = st;
	if (!(cache = cli_cache_dir(st, &env)) || (rc = cli_ensure_cache(st, &env)) < 0) {
		rc = rc < 0 ? rc : bg_error_oom(st->ctx);
		goto cleanup;
	}
	o.cache_dir = cache;
	if ((rc = bg_suite_count(st->ctx, &o.run, &count)) < 0)
		goto cleanup;

	if ((rc = bg_repo_head(st->ctx, env.repo, &head)) < 0)
		goto cleanup;
	cli_warn_dirty(st, &head);
	/* The commit as it was checked out, before the build, as `run` takes
	 * it: a build that rewrites a tracked file (a version stamp) made
	 * every ci run dirty where run's were clean, and no baseline grew. */
	o.run.commit = &head;
	/* What would stop the check is said before the build, which may take
	 * minutes; bg_ci_run asks again after it. */
	if ((rc = cli_branch_hint(st, bg_ci_probe(st->ctx, &o), "--baseline-branch")) < 0 ||
	    (!rflags.no_build && (rc = cli_build(st, &env, bg_repo_workdir(env.repo))) < 0) ||
	    (rc = cli_branch_hint(st, bg_ci_run(st->ctx, &o, &out), "--baseline-branch")) < 0) {
		/* Say so where CI users look, then fail as `run` would. */
		if ((summary = open_summary(st)))
			write_failure_summary(st, rc, summary);
		if (github)
			annotate(ann, "error", "benchguard", bg_ctx_error(st->ctx));
		goto cleanup;
	}
	cli_say_stored(st, &env, &out.head, out.runs.nruns);
	if (out.result->confirm_pairs && out.result->confirm_alone)
		cli_info(st,
		         "measured again alone: %zu more run%s (no reference to pair with) in "
		         "%.1f s; ci took %.1f s",
		         out.result->confirm_pairs, out.result->confirm_pairs == 1 ? "" : "s",
		         out.result->confirm_seconds, out.seconds);
	else if (out.result->confirm_pairs)
		cli_info(st, "measured again: %zu pair%s (at most %zu) in %.1f s; ci took %.1f s",
		         out.result->confirm_pairs, out.result->confirm_pairs == 1 ? "" : "s",
		         out.result->confirm_max, out.result->confirm_seconds, out.seconds);
	if ((rc = cli_check_print(st, out.result)) < 0)
		goto cleanup;
	if (junit)
		write_junit(st, junit, out.result);
	if ((summary = open_summary(st)) && (rc = write_summary(st, out.result, summary)) < 0)
		goto cleanup;
	if (github)
		annotations(ann, out.result);
	/* Delivery trouble is a warning: it never changes the exit code. */
	cli_alert_ci(st, &env, out.result, out.head.subject);
	rc = bg_check_exit_code(out.result);

cleanup:
	bg_ci_result_clear(&out);
	bg_commit_clear(&head);
	free(cache);
	cli_run_flags_clear(&rflags);
	cli_env_clear(&env);
	return rc;
}
