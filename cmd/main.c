/*
 * main.c -- the `benchguard` entry point: global options, the dispatch
 * table of subcommands, and the one place where an error becomes the line
 * "benchguard: <what>: <why>" and an exit code.
 */
#include <dlfcn.h>
#include <errno.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli.h"

/*
 * The binary's, not the library's: libgit2 built with mbedTLS parses the
 * whole CA bundle as it starts, 5 to 7 ms of every command, for the one
 * https clone (a submodule) benchguard may never make.  The Makefile
 * exports this name from the binary, so libgit2's call lands here; a
 * parse bg_git__defer_ca takes (lib/git.c says when) is answered with an
 * empty chain and loaded before a clone, every other goes to mbedTLS.
 */
typedef int (*parse_file_fn)(void *chain, const char *path);

int mbedtls_x509_crt_parse_file(void *chain, const char *path);
int mbedtls_x509_crt_parse_file(void *chain, const char *path)
{
	parse_file_fn real;

	if (bg_git__defer_ca(path))
		return 0;
	/* dlsym returns an object pointer; POSIX makes it callable. */
	*(void **)&real = dlsym(RTLD_NEXT, "mbedtls_x509_crt_parse_file");
	return real ? real(chain, path) : -1;
}

const cli_command cli_commands[] = {
	{ "init", cmd_init, "write a starter benchguard.json and create the database",
	  "usage: benchguard init [--force]\n"
	  "\n"
	  "Writes a commented starter benchguard.json at the repository root (or at\n"
	  "--config PATH) and creates the results database.\n"
	  "\n"
	  "  --force          overwrite an existing configuration\n" },
	{ "run", cmd_run,
	  "build and run the suite at the working tree or at a commit; store every sample",
	  "usage: benchguard run [--commit REV [--retry-build]] [--filter RE] [--samples N]\n"
	  "                      [--warmup N] [--runs K] [--timeout SEC] [--machine NAME]\n"
	  "                      [--tag K=V]... [--no-build]\n"
	  "\n"
	  "Runs the configured build, then every benchmark (warm-up, then samples) in\n"
	  "the repository's working tree, and stores each run under HEAD's commit and\n"
	  "this machine's fingerprint.  Exit 3 if a benchmark failed or the build did.\n"
	  "\n"
	  "With --commit REV, REV is checked out (submodules included) into a cached\n"
	  "worktree, .benchguard/worktrees/<sha> (or under $BENCHGUARD_CACHE), and\n"
	  "built there once: a commit that built is never rebuilt while its worktree\n"
	  "exists, and a failed build is remembered.  The suite is the one you have\n"
	  "(benchguard.json or --config), its commands run inside the worktree, and\n"
	  "the runs are stored under REV's SHA.  Your working tree is not touched.\n"
	  "Unknown REV: exit 2; failed build: exit 3 with the end of its log.\n"
	  "\n"
	  "  --commit REV     run at REV (SHA, branch, tag, HEAD~3...) in its worktree\n"
	  "  --retry-build    build REV again although its last build failed\n"
	  "  --filter RE      only benchmarks whose name matches the extended regex RE\n"
	  "  --samples N      timed executions per benchmark (overrides the config)\n"
	  "  --warmup N       discarded executions before sampling\n"
	  "  --runs K         K separate runs, one after another (default 1)\n"
	  "  --timeout SEC    per-execution timeout (overrides the config)\n"
	  "  --machine NAME   store under NAME instead of the hardware fingerprint\n"
	  "  --tag K=V        attach a tag to the run (repeatable)\n"
	  "  --no-build       skip the configured build command (not with --commit)\n" },
	{ "check", cmd_check, "judge stored runs against their rolling baseline",
	  "usage: benchguard check [--run ID | --commit REV] [--machine NAME]\n"
	  "                        [--baseline-branch B] [--window N] [--min-runs N]\n"
	  "                        [--alpha A] [--min-change X] [--min-effect G]\n"
	  "                        [--no-fdr | --fdr] [--format junit]\n"
	  "\n"
	  "Judges runs against the last N complete, clean runs of each series on the\n"
	  "same machine along the first-parent history of the baseline branch (from\n"
	  "the merge-base for other branches).  Default: every run of the latest\n"
	  "run's commit.  Exit 1 on a regression, 3 if a benchmark failed.\n"
	  "\n"
	  "  --run ID         judge this run alone\n"
	  "  --commit REV     judge every complete run of REV on this machine\n"
	  "  --machine NAME   the machine whose runs to judge (default: this one)\n"
	  "  --baseline-branch B, --window N, --min-runs N\n"
	  "                   override the config's \"baseline\"\n"
	  "  --alpha A, --min-change X, --min-effect G, --no-fdr / --fdr\n"
	  "                   override the config's \"thresholds\" (--min-change is\n"
	  "                   the fallback: a metric's own min_change still applies)\n"
	  "  --format junit   the verdict as JUnit XML for CI dashboards: a failure\n"
	  "                   per regression, an error per failed benchmark\n" },
	{ "ci", cmd_ci, "run the suite, judge it, write the CI summary, in one step",
	  "usage: benchguard ci [run options] [check options] [--confirm N] [--max-pairs M]\n"
	  "                     [--junit FILE]\n"
	  "\n"
	  "Runs the suite at the working tree and judges the runs against the rolling\n"
	  "baseline.  Every series that run flags, or cannot clear (its 90% upper\n"
	  "bound reaches min_change), is measured again in interleaved pairs beside\n"
	  "the baseline's newest commit, looked at after N, 2N, ... up to M pairs with\n"
	  "alpha split across the looks; the pairs decide (more runs alone, where\n"
	  "that commit does not build or cannot be checked out).  The final verdict\n"
	  "is recorded (report and history show it), printed, written as Markdown to\n"
	  "$GITHUB_STEP_SUMMARY when set, with ::error annotations for regressions\n"
	  "when GITHUB_ACTIONS=true (and ::warning ones when the baseline cannot be\n"
	  "trusted).  Exit 1 on a regression, 3 if a benchmark or the\n"
	  "build failed (failure outranks regression).  Sends the configured alerts\n"
	  "through the outbox (see `benchguard help alert`); their delivery never\n"
	  "changes the exit code.\n"
	  "\n"
	  "  run options:    --filter RE --samples N --warmup N --runs K --timeout SEC\n"
	  "                  --machine NAME --tag K=V --no-build\n"
	  "  check options:  --baseline-branch B --window N --min-runs N --alpha A\n"
	  "                  --min-change X --min-effect G --no-fdr / --fdr\n"
	  "  --confirm N      pairs at the first look (default: the config's\n"
	  "                   confirm.pairs, 4); 0 believes the first runs\n"
	  "  --max-pairs M    the cap on pairs (default: confirm.max_pairs, 32)\n"
	  "  --junit FILE     write the final verdict as JUnit XML to FILE too (GitLab's\n"
	  "                   junit report, Jenkins' junit step); the exit code is the same\n" },
	{ "compare", cmd_compare, "run two commits interleaved and judge B against A",
	  "usage: benchguard compare A B [--runs K] [--max-runs M] [--retry-build]\n"
	  "                              [run options] [check options]\n"
	  "\n"
	  "Checks A and B out into cached worktrees (built once each) and runs the\n"
	  "suite at each in pairs, interleaved in ABBA order (A B, B A, ...) so that\n"
	  "drift of the machine lands on both alike, and judges B against A with a\n"
	  "paired t-test on the pairs' log ratios, looked at after K, 2K, ... up to M\n"
	  "pairs with alpha split across the looks.  Only this session's runs are\n"
	  "judged.  Exit 1 if B regressed, 3 if a build or a benchmark failed.\n"
	  "\n"
	  "  --runs K         pairs at the first look (>= 2; default 8)\n"
	  "  --max-runs M     the cap on pairs (default 2K)\n"
	  "  --retry-build    build A or B again although its last build failed\n"
	  "  run options:    --filter RE --samples N --warmup N --timeout SEC\n"
	  "                  --machine NAME --tag K=V\n"
	  "  check options:  --alpha A --min-change X --min-effect G --no-fdr / --fdr\n" },
	{ "bisect", cmd_bisect, "find the commit where a benchmark got slower (or faster)",
	  "usage: benchguard bisect --good A --bad B [--series S] [--filter RE] [--runs K]\n"
	  "                         [--max-runs M] [--retry-build] [run options]\n"
	  "                         [check options]\n"
	  "       benchguard bisect --step SERIES[@REV] [--baseline-branch B] [--runs K]\n"
	  "                         [--max-runs M] [--retry-build]\n"
	  "\n"
	  "Measures both ends in pairs like compare (looks at K pairs, default 8,\n"
	  "then twice as many up to 2K or M; stored pairs of this machine are\n"
	  "reused), picks the series that changed most surely from A to B, worse or\n"
	  "better, and binary-searches the first-parent history A..B for the first\n"
	  "commit at B's level: a regression (steps good/bad) or an improvement\n"
	  "(steps old/new).  Each probe gets 3 pairs with A and is compared with\n"
	  "both ends; an ambiguous one gets 3 more, up to M (default 12).  Then the\n"
	  "culprit and the commit before it are measured to the ends' pairs, for\n"
	  "the change printed.  Commits that do not build are skipped; if the\n"
	  "culprit is among them the range is printed.  Builds and stored pairs are\n"
	  "reused.  Stderr: a line per look at the ends, per step and per phase;\n"
	  "pairs and checkouts only with -v (a progress line on a terminal).\n"
	  "Exit 0 when found, 1 when A and B do not differ (the figures of every\n"
	  "series are printed), 2 on bad revisions (or A not a first-parent\n"
	  "ancestor of B), a series or --filter the suite does not have, 3 on a\n"
	  "build or run failure.\n"
	  "\n"
	  "  --good A, --bad B  the ends (any revision); --old and --new are the same\n"
	  "  --series S         bisect this series (BENCHMARK:METRIC), either way\n"
	  "  --step S[@REV]     the ends and series of a step of the trend report\n"
	  "                     (baseline branch, this machine): the one whose range\n"
	  "                     holds REV, else the newest\n"
	  "  --filter RE        only benchmarks whose name matches\n"
	  "  --runs K           pairs at each end at the first look (default 8)\n"
	  "  --max-runs M       cap on pairs at an ambiguous commit (default 12)\n"
	  "  --retry-build      build again the commits whose last build failed\n"
	  "  --baseline-branch B  the branch whose report has the --step\n"
	  "  run options:       --samples N --warmup N --timeout SEC --machine NAME\n"
	  "                     --tag K=V\n"
	  "  check options:     --alpha A --min-change X --min-effect G\n"
	  "                     --no-fdr / --fdr\n" },
	{ "import", cmd_import,
	  "store results produced elsewhere (lines, gbench, nvbench, hyperfine, go, pytest, "
	  "catch2, perfstat)",
	  "usage: benchguard import FILE --format lines|gbench|nvbench|hyperfine|go|pytest|\n"
	  "                                       catch2|perfstat\n"
	  "                         [--commit REV] [--machine NAME] [--name BENCH] [--tag K=V]...\n"
	  "                         [--json]\n"
	  "\n"
	  "Parses FILE (\"-\" for standard input) and stores it as one run.\n"
	  "\n"
	  "  --format F       lines, gbench, nvbench, hyperfine, go (go test -bench\n"
	  "                   output), pytest (pytest-benchmark JSON), catch2 (Catch2's\n"
	  "                   XML reporter) or perfstat (perf stat's CSV) (required)\n"
	  "  --commit REV     the commit the results belong to (default HEAD)\n"
	  "  --machine NAME   store under NAME instead of this machine's fingerprint\n"
	  "  --name BENCH     benchmark name: for lines and perfstat, default the file\n"
	  "                   name without extension; for gbench, nvbench, go, pytest\n"
	  "                   and catch2, a prefix \"BENCH/\";\n"
	  "                   for hyperfine, the series name (see the README)\n"
	  "  --tag K=V        attach a tag to the run (repeatable)\n"
	  "  --json           print the stored run's id and counts as JSON\n" },
	{ "baseline", cmd_baseline, "export or import baseline runs (JSON under baselines/)",
	  "usage: benchguard baseline export [-o FILE] [--machine NAME] [--baseline-branch B]\n"
	  "                                  [--window N]\n"
	  "       benchguard baseline import FILE... [--machine NAME] [--force]\n"
	  "\n"
	  "export writes this machine's baseline runs (the last N runs along the\n"
	  "first-parent history of the baseline branch, summaries and samples) as\n"
	  "stable JSON meant to be committed under baselines/; import stores them in\n"
	  "this database, so a CI job whose database starts empty still has history.\n"
	  "Importing the same file twice stores nothing twice.  Among several files\n"
	  "(baselines/*.json), those exported on other machines are skipped.\n"
	  "\n"
	  "  -o FILE          write to FILE instead of standard output\n"
	  "  --machine NAME   the machine (fingerprint or --machine name) to export or\n"
	  "                   to import as\n"
	  "  --force          import a file made on another machine anyway\n" },
	{ "calibrate", cmd_calibrate,
	  "measure run-to-run noise; how many samples and runs to spend",
	  "usage: benchguard calibrate [--runs N] [--change X] [--filter RE] [--samples N]\n"
	  "                            [--warmup N] [--timeout SEC] [--machine NAME]\n"
	  "                            [--tag K=V]... [--no-build]\n"
	  "\n"
	  "Runs the suite N times (default 10) at HEAD, stores the runs, and prints per\n"
	  "series the run-to-run and within-run CV, the minimum detectable effect at\n"
	  "the configured alpha and window, and the samples per run and runs needed\n"
	  "to detect a change of X (default 0.05 = 5%).\n" },
	{ "history", cmd_history, "a series' run summaries over commits",
	  "usage: benchguard history SERIES [--limit N]\n"
	  "\n"
	  "SERIES is benchmark:metric (e.g. sort/1M:wall_time), or a benchmark name\n"
	  "for all its metrics.  Newest run first, with the verdict ci recorded for\n"
	  "the runs it judged, and paired runs (compare, bisect, confirmation) and\n"
	  "excluded ones (exclude) marked.\n"
	  "\n"
	  "  --limit N        at most N runs per series (default 20, 0 = all)\n" },
	{ "exclude", cmd_exclude, "set stored runs aside from baselines and reports, saying why",
	  "usage: benchguard exclude RUN... --reason TEXT\n"
	  "       benchguard exclude --commit REV [--machine NAME] --reason TEXT\n"
	  "       benchguard exclude --undo (RUN... | --commit REV [--machine NAME])\n"
	  "       benchguard exclude --list\n"
	  "\n"
	  "Sets stored runs aside: an excluded run stays in the database, and history\n"
	  "lists it as \"excluded\", but no baseline, report, exported baseline or\n"
	  "reused pair counts it; check judges it only by number (`check --run ID`).\n"
	  "For runs measured on a throttled or broken machine, or of a commit since\n"
	  "reverted, which would weigh in every baseline until the window turns over.\n"
	  "RUN is the run number history prints.  Excluding a run again keeps its\n"
	  "first reason.  An unknown run: exit 2, and nothing changes.\n"
	  "\n"
	  "  --reason TEXT    why (needed to exclude; at most 500 bytes of text)\n"
	  "  --commit REV     every complete run of REV on this machine, paired ones too\n"
	  "  --machine NAME   with --commit: that machine's runs (default: this one)\n"
	  "  --undo           count the runs again\n"
	  "  --list           the excluded runs, with when and why\n" },
	{ "fingerprint", cmd_fingerprint, "print the machine fingerprint and the facts behind it",
	  "usage: benchguard fingerprint [--machine NAME]\n"
	  "\n"
	  "Stable facts are hashed into the fingerprint; volatile facts are stored\n"
	  "with each run for reports and warnings.\n" },
	{ "gc", cmd_gc, "reclaim cached worktrees of pinned commits by age and size",
	  "usage: benchguard gc [--max-age DAYS] [--max-size SIZE] [--dry-run]\n"
	  "\n"
	  "Removes the worktrees (checkout, build and build log) of pinned commits\n"
	  "not used for longer than --max-age, then the least recently used ones until\n"
	  "the cache fits in --max-size.  Worktrees a running benchguard uses are\n"
	  "kept.  A commit whose worktree is gone is checked out and built again when\n"
	  "next needed.  `run --commit` also keeps the cache under 20G by itself.\n"
	  "\n"
	  "  --max-age DAYS   e.g. 14d (default), 12h; 0d removes every worktree\n"
	  "  --max-size SIZE  e.g. 20G (default), 512M, 100K\n"
	  "  --dry-run        only say what would be removed\n" },
	{ "db", cmd_db,
	  "copy a whole results store between databases; name the one in use; prune old runs",
	  "usage: benchguard db copy SRC DST\n"
	  "       benchguard db info\n"
	  "       benchguard db prune --before SPAN [--window N] [--baseline-branch B]\n"
	  "                          [--dry-run]\n"
	  "\n"
	  "copy copies every complete run of the database SRC (machine, commit, facts,\n"
	  "tags, results with every sample, outcomes and the verdicts ci recorded),\n"
	  "its remembered builds and its alert outbox into DST.  Each is a SQLite file\n"
	  "or a PostgreSQL database (postgresql://... URI or libpq key=value string).\n"
	  "Runs are matched by their uid: copying again adds only ci's verdicts\n"
	  "recorded since on runs already there, and an interrupted copy is\n"
	  "finished by the next one.  A series stored in DST in another unit or\n"
	  "direction stops the copy (exit 2).  Moves a cached SQLite file\n"
	  "into a fleet's shared database, or a shared history into a file.  SRC must\n"
	  "hold a benchguard history: a file that is not there or an empty database is\n"
	  "refused (exit 2), never created.  SRC is not written, unless its schema is\n"
	  "older than this benchguard's: then it is migrated first, as any command run\n"
	  "on it would.\n"
	  "\n"
	  "info prints the database a command run here would use (--db,\n"
	  "$BENCHGUARD_DB, the config's \"database\", else .benchguard/results.db),\n"
	  "its backend and its schema version.\n"
	  "\n"
	  "prune deletes the runs of the database in use that started before SPAN\n"
	  "(180d, 26w, or a date like 2025-01-01; a day back at least), with their\n"
	  "results, samples, facts, tags, outcomes and ci's verdicts, but not the runs\n"
	  "a baseline reads: on each machine, those check would take walking the\n"
	  "baseline branch's first-parent history from its tip and from its fork\n"
	  "point with every branch this clone has (local and remote-tracking), spares\n"
	  "included, whatever branch they were stored under.  Run it in a whole\n"
	  "clone (a shallow one is refused).  Commits, machines and series stay.  A\n"
	  "SQLite file keeps its size: new runs reuse the space.\n"
	  "\n"
	  "  --before SPAN    runs started before then go (no default)\n"
	  "  --window N       the baseline window whose runs are kept (default: the\n"
	  "                   config's; 0 keeps none, and needs no repository)\n"
	  "  --baseline-branch B  a baseline branch (default: the config's; repeat it for\n"
	  "                   each branch that serves as one)\n"
	  "  --dry-run        only count what would go\n" },
	{ "alert", cmd_alert, "send a sample alert to each target, or deliver the outbox",
	  "usage: benchguard alert test\n"
	  "       benchguard alert flush\n"
	  "       benchguard alert drop ID...\n"
	  "\n"
	  "test sends a sample alert (a made-up regression, marked as a sample) to each\n"
	  "webhook and Slack target of the config; for a github or gitlab target it\n"
	  "reads the pull request's comments (merge request's notes) with the token,\n"
	  "posting nothing.  flush delivers\n"
	  "the alerts the outbox still holds (receiver down or slow during `ci`),\n"
	  "oldest first, each target within its \"timeout\".  One line per alert or\n"
	  "target on stdout.  Exit 0 when everything was delivered, 3 otherwise.\n"
	  "drop gives up pending alerts by the #ID that flush shows (one whose target\n"
	  "is no longer configured): each is kept as failed, never sent.\n" },
	{ "report", cmd_report, "trend report with charts and detected change points",
	  "usage: benchguard report [--since 30d] [--filter RE] [--branch B] [--machine FP|all]\n"
	  "                         [--include-paired] [--format html|markdown|json] [-o FILE]\n"
	  "\n"
	  "The nightly view: every clean run of the period in first-parent order of\n"
	  "the branch, one point per commit (its runs pooled, with a 95% CI), the\n"
	  "steps found between commits (change points: commit range, size, p), each\n"
	  "commit's verdict (ci's where ci judged it, else the check replayed), the\n"
	  "newest commit's baseline window and the noise.\n"
	  "HTML is one self-contained file with a chart per series; Markdown suits\n"
	  "an issue or a PR comment; JSON carries the same data for dashboards.\n"
	  "Thresholds and the baseline come from the config (defaults without one).\n"
	  "\n"
	  "  --since SPAN     runs started within SPAN: 30d (default), 12h, 2w, a date\n"
	  "                   (2024-05-01), a UTC time (2024-05-01T12:00:00Z) or all\n"
	  "  --filter RE      series whose benchmark or benchmark:metric matches RE\n"
	  "  --branch B       whose first-parent history orders the runs (default: the\n"
	  "                   config's baseline branch); outside a repository (--db\n"
	  "                   only) runs go in time order\n"
	  "  --machine FP     runs of this fingerprint or --machine name (default: this\n"
	  "                   machine); all: every machine, a series per machine\n"
	  "  --include-paired also the runs compare, bisect and ci's confirmation made\n"
	  "                   in pairs (left out of the trend by default)\n"
	  "  --format F       html, markdown or json (default: from -o's extension\n"
	  "                   .md/.json, or the global --json; else html)\n"
	  "  -o, --output FILE  write FILE whole or not at all (default: stdout)\n" },
	{ "help", cmd_help, "show help for a command", "usage: benchguard help [COMMAND]\n" },
	{ NULL, NULL, NULL, NULL },
};

const cli_command *cli_find_command(const char *name)
{
	const cli_command *c;

	for (c = cli_commands; c->name; c++)
		if (!strcmp(c->name, name))
			return c;
	return NULL;
}

void cli_print_usage(FILE *f)
{
	const cli_command *c;

	fprintf(f, "usage: benchguard [--db PATH] [--config PATH] [--format "
	           "table|json|markdown|junit]\n"
	           "                  [--json] [-q] [-v] [--no-color] COMMAND [ARGS]\n\n"
	           "Keeps software from silently getting slower.\n\ncommands:\n");
	for (c = cli_commands; c->name; c++)
		fprintf(f, "  %-12s %s\n", c->name, c->summary);
	fprintf(f,
	        "\nglobal options:\n"
	        "  --db PATH        results database: a SQLite file, or a PostgreSQL\n"
	        "                   postgresql://... URI (default $BENCHGUARD_DB, else the\n"
	        "                   config's \"database\", else .benchguard/results.db at\n"
	        "                   the repository root)\n"
	        "  --config PATH    suite configuration (default benchguard.json at the root)\n"
	        "  --format F       table, json or markdown (default table); junit: check only\n"
	        "  --json           same as --format json\n"
	        "  -q, -v           quieter / more detail on stderr\n"
	        "  --no-color       no colour (also NO_COLOR)\n"
	        "  --version        print the version\n"
	        "\nexit codes: 0 ok, 1 regression, 2 usage/config/input error, 3 runtime failure\n"
	        "`benchguard help COMMAND` shows a command's options.\n");
}

/* The one piece of global state: set by a signal, read through the context,
 * so a benchmark's process group is killed and the run stays incomplete. */
static volatile sig_atomic_t interrupted;

static void on_signal(int sig)
{
	interrupted = sig;
}

/* How often benchguard was resumed after a stop (Ctrl-Z, then fg): an
 * execution timed across one is timed again. */
static volatile sig_atomic_t continued;

static void on_continue(int sig)
{
	(void)sig;
	continued++;
}

static void catch_signals(void)
{
	static const int stops[] = { SIGINT, SIGTERM, SIGHUP };
	struct sigaction sa, was;
	size_t i;

	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_signal; /* no SA_RESTART: waits return EINTR */
	sigemptyset(&sa.sa_mask);
	/* A hangup ignored when benchguard started stays ignored: `nohup
	 * benchguard ci` must outlive the terminal it was started from.
	 * Only SIGHUP: a script's `benchguard run &` starts with SIGINT
	 * ignored, and a `kill -INT` sent to it must still stop it. */
	for (i = 0; i < BG_ARRAY_SIZE(stops); i++)
		if (stops[i] != SIGHUP ||
		    (sigaction(SIGHUP, NULL, &was) == 0 && was.sa_handler != SIG_IGN))
			sigaction(stops[i], &sa, NULL);
	/* A reader that stops early (`| head -1`) must not kill benchguard:
	 * under `set -o pipefail` (GitHub Actions' bash) exit 141 fails the
	 * step, and a `ci` killed while it stores leaves its run incomplete.
	 * Writes fail with EPIPE instead, which sink_close forgives.  The
	 * runner puts SIGPIPE back to its default in every benchmark. */
	sa.sa_handler = on_continue;
	sa.sa_flags = SA_RESTART;
	sigaction(SIGCONT, &sa, NULL);
	sa.sa_flags = 0;
	sa.sa_handler = SIG_IGN;
	sigaction(SIGPIPE, &sa, NULL);
	/* Likewise a file-size limit (ulimit -f, systemd's LimitFSIZE=):
	 * SIGXFSZ killed benchguard with no word, and `-o FILE` left its
	 * temporary file; the write fails with EFBIG instead, and is said. */
	sigaction(SIGXFSZ, &sa, NULL);
}

/*
 * Standard output goes through a sink that keeps the first failed write's
 * errno: stdio keeps only a flag, and a large write that bypassed the
 * buffer leaves nothing for the final flush to fail on, so the reason (a
 * full disk, a reader gone) would be lost by the time the command returns.
 */
typedef struct {
	FILE *orig; /* the stdout the sink replaced */
	int err;    /* errno of the first write that failed; 0: none */
} out_sink;

static ssize_t sink_write(void *cookie, const char *buf, size_t len)
{
	out_sink *s = cookie;
	size_t done = 0;

	while (done < len) {
		ssize_t n = write(STDOUT_FILENO, buf + done, len - done);

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0) {
			if (!s->err)
				s->err = n < 0 ? errno : EIO;
			break; /* what was written; stdio marks the stream in error */
		}
		done += (size_t)n;
	}
	return (ssize_t)done;
}

/* stdout through the sink; left as it is when the sink cannot be made. */
static void sink_open(out_sink *s)
{
	cookie_io_functions_t io = { NULL, sink_write, NULL, NULL };
	FILE *f;

	s->orig = stdout;
	s->err = 0;
	if (!(f = fopencookie(s, "w", io)))
		return;
	setvbuf(f, NULL, isatty(STDOUT_FILENO) ? _IOLBF : _IOFBF, BUFSIZ);
	stdout = f;
}

/*
 * rc, or a failure when what the command printed never reached stdout: a
 * full disk or a closed descriptor would otherwise exit 0 (or with the
 * verdict's 1) over an empty or cut `check --json >verdict.json`.  A
 * reader that stopped reading (`| head -1`, SIGPIPE ignored) has what it
 * wanted: that is no failure.  Puts the real stdout back.
 */
static int sink_close(cli_state *st, out_sink *s, int rc)
{
	int bad, err;

	errno = 0;
	bad = fflush(stdout) != 0 || ferror(stdout);
	err = s->err ? s->err : errno;
	if (stdout != s->orig) {
		FILE *f = stdout;

		stdout = s->orig;
		fclose(f);
	}
	if (st->print_failed && rc >= 0)
		return bg_error_set(st->ctx, BG_ENOMEM,
		                    "out of memory: what was printed is incomplete");
	if (!bad || err == EPIPE || rc < 0)
		return rc;
	return bg_error_set(st->ctx, BG_EIO, "cannot write to standard output: %s",
	                    err ? strerror(err) : "write error");
}

int main(int argc, char **argv)
{
	static const struct option globals_only[] = { { 0, 0, 0, 0 } };
	cli_state st;
	out_sink sink;
	const cli_command *cmd;
	int rc, code;
	const char *env_db = getenv("BENCHGUARD_DB");
	const char *nc = getenv("NO_COLOR");

	memset(&st, 0, sizeof(st));
	if (bg_ctx_new(&st.ctx) < 0) {
		fputs("benchguard: out of memory\n", stderr);
		return 3;
	}
	sink_open(&sink);
	bg_ctx_set_log(st.ctx, cli_log_cb, &st);
	bg_ctx_set_cancel(st.ctx, &interrupted);
	bg_ctx_set_continued(st.ctx, &continued);
	catch_signals();
	st.db_path = env_db && *env_db ? env_db : NULL;
	st.stderr_tty = isatty(STDERR_FILENO);
	st.color = isatty(STDOUT_FILENO) && !(nc && *nc);

	/* Global options before the command; "+" stops at the first word. */
	rc = cli_getopt(&st, argc, argv, "+", globals_only, NULL);
	if (rc == 'h' || rc == 'V') {
		if (rc == 'h')
			cli_print_usage(stdout);
		else
			printf("benchguard %s\n", BG_VERSION);
		rc = 0;
		goto done;
	}
	if (rc == '?') {
		code = 2;
		goto fail;
	}
	if (optind >= argc) {
		cli_print_usage(stderr);
		sink_close(&st, &sink, 0);
		bg_ctx_free(st.ctx);
		return 2;
	}
	cmd = cli_find_command(argv[optind]);
	if (!cmd) {
		cli_usage_error(&st, "unknown command \"%s\" (see benchguard --help)",
		                argv[optind]);
		code = 2;
		goto fail;
	}
	argc -= optind;
	argv += optind;
	optind = 0; /* full reset: commands parse their own argv with getopt_long */
	rc = cmd->fn(&st, argc, argv);
	/* A command with nothing left to stop when the signal came (a short
	 * one, or one past its last check) still says it was interrupted:
	 * exit 0 would tell a CI step's timeout that all went well. */
	if (rc == 0 && interrupted) {
		bg_error_set(st.ctx, BG_ERROR, "interrupted (the command had finished its work)");
		rc = BG_ERROR;
	}
done:
	rc = sink_close(&st, &sink, rc);
	cli_progress_done(&st);
	if (rc >= 0) {
		bg_ctx_free(st.ctx);
		return rc;
	}
	code = bg_error_exit_code(rc);
fail:
	sink_close(&st, &sink, -1);
	cli_progress_done(&st);
	cli_put_message(stderr, "benchguard: ",
	                *bg_ctx_error(st.ctx) ? bg_ctx_error(st.ctx) : "unknown error");
	bg_ctx_free(st.ctx);
	return code;
}
