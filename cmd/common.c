/*
 * common.c -- plumbing every subcommand uses: option parsing with the
 * global options accepted anywhere, messages on stderr, finding the
 * repository, its configuration and its database, and output (tables in
 * table or Markdown form, JSON).
 */
#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include <json-c/json.h>

#include "cli.h"
#include "internal.h"

enum { OPT_DB = CLI_OPT_BASE - 20, OPT_CONFIG, OPT_FORMAT, OPT_JSON, OPT_NO_COLOR, OPT_VERSION };

static const struct option global_options[] = {
	{ "db", required_argument, NULL, OPT_DB },
	{ "config", required_argument, NULL, OPT_CONFIG },
	{ "format", required_argument, NULL, OPT_FORMAT },
	{ "json", no_argument, NULL, OPT_JSON },
	{ "quiet", no_argument, NULL, 'q' },
	{ "verbose", no_argument, NULL, 'v' },
	{ "no-color", no_argument, NULL, OPT_NO_COLOR },
	{ "version", no_argument, NULL, OPT_VERSION },
	{ "help", no_argument, NULL, 'h' },
};

int cli_usage_error(cli_state *st, const char *fmt, ...)
{
	va_list ap;
	int rc;

	va_start(ap, fmt);
	rc = bg_error_vset(st->ctx, BG_EINPUT, fmt, ap);
	va_end(ap);
	return rc;
}

int cli_global_option(cli_state *st, int opt, const char *arg)
{
	switch (opt) {
	case OPT_DB:
		st->db_path = arg;
		return 1;
	case OPT_CONFIG:
		if (!*arg)
			return cli_usage_error(st, "--config needs a file name");
		st->config_path = arg;
		return 1;
	case OPT_FORMAT:
		if (!strcmp(arg, "table"))
			st->format = CLI_TABLE;
		else if (!strcmp(arg, "json"))
			st->format = CLI_JSON;
		else if (!strcmp(arg, "markdown") || !strcmp(arg, "md"))
			st->format = CLI_MARKDOWN;
		else if (!strcmp(arg, "junit"))
			st->format = CLI_JUNIT;
		else
			return cli_usage_error(
			        st, "--format must be table, json, markdown or junit (got \"%s\")",
			        arg);
		return 1;
	case OPT_JSON:
		st->format = CLI_JSON;
		return 1;
	case 'q':
		st->quiet = 1;
		st->verbose = 0;
		return 1;
	case 'v':
		st->verbose = 1;
		st->quiet = 0;
		return 1;
	case OPT_NO_COLOR:
		st->color = 0;
		return 1;
	default:
		return 0;
	}
}

int cli_getopt(cli_state *st, int argc, char **argv, const char *shortopts,
               const struct option *longopts, const cli_command *cmd)
{
	struct option all[64];
	char shorts[64];
	size_t n = 0, i;
	int opt, g;

	for (i = 0; longopts[i].name && n < BG_ARRAY_SIZE(all) - 1; i++)
		all[n++] = longopts[i];
	for (i = 0; i < BG_ARRAY_SIZE(global_options) && n < BG_ARRAY_SIZE(all) - 1; i++)
		all[n++] = global_options[i];
	memset(&all[n], 0, sizeof(all[n]));
	/* A leading '+' (stop at the first non-option) stays first; ':' makes
	 * getopt report a missing argument as ':' so the message is ours. */
	snprintf(shorts, sizeof(shorts), "%s:%sqvh", *shortopts == '+' ? "+" : "",
	         *shortopts == '+' ? shortopts + 1 : shortopts);

	opterr = 0;
	for (;;) {
		int longindex = -1;

		opt = getopt_long(argc, argv, shorts, all, &longindex);
		/* --format junit may come before the command or after it: known
		 * once the command's options are all read.  help prints text
		 * whatever the format, as --help does. */
		if (opt == -1 && cmd && st->format == CLI_JUNIT && cmd->fn != cmd_check &&
		    cmd->fn != cmd_help) {
			cli_usage_error(
			        st, "%s cannot print JUnit XML: --format junit is for check%s",
			        cmd->name,
			        !strcmp(cmd->name, "ci") ? " (ci writes it with --junit FILE)"
			                                 : "");
			return '?';
		}
		if (opt == -1)
			return -1;
		if (opt == '?') {
			const char *arg = argv[optind - 1], *eq = strchr(arg, '=');

			/* --flag=value of a known flag: the option is right, the value is not. */
			for (i = 0; eq && !strncmp(arg, "--", 2) && i < n; i++)
				if (all[i].has_arg == no_argument &&
				    strlen(all[i].name) == (size_t)(eq - arg - 2) &&
				    !strncmp(all[i].name, arg + 2, (size_t)(eq - arg - 2))) {
					cli_usage_error(st, "option --%s takes no value",
					                all[i].name);
					return '?';
				}
			if (optopt && optopt < 256 && optopt != '?')
				cli_usage_error(st, "unknown option -%c%s%s", optopt,
				                cmd ? " for " : "", cmd ? cmd->name : "");
			else
				cli_usage_error(st, "unknown option %s%s%s", argv[optind - 1],
				                cmd ? " for " : "", cmd ? cmd->name : "");
			return '?';
		}
		if (opt == ':') {
			cli_usage_error(st, "option %s needs a value", argv[optind - 1]);
			return '?';
		}
		if (opt == 'h') {
			if (cmd)
				fputs(cmd->usage, stdout);
			return 'h';
		}
		/* --version anywhere: after a command too, it is answered
		 * in place of the command (which returns 0 on 'h'). */
		if (opt == OPT_VERSION) {
			if (!cmd)
				return 'V';
			printf("benchguard %s\n", BG_VERSION);
			return 'h';
		}
		g = cli_global_option(st, opt, optarg);
		if (g < 0)
			return '?';
		if (g == 0)
			return opt;
	}
}

int cli_not_an_option(cli_state *st, const char *cmd, const char *opt, const char *why)
{
	return cli_usage_error(st, "%s is not an option of %s%s%s", opt, cmd, why ? ": " : "",
	                       why ? why : "");
}

int cli_add_tag(cli_state *st, const char *arg, const char **tags, size_t *ntags)
{
	const char *eq = strchr(arg, '='), *why;
	char q[320];
	int bad;

	if (!eq || arg[0] == '=')
		return cli_usage_error(st, "--tag needs KEY=VALUE (got %s)",
		                       bg_text__quote(q, sizeof(q), arg));
	/* What baseline import would refuse once exported is refused here. */
	if ((why = bg_results__bad_pair(arg, (size_t)(eq - arg), eq + 1, strlen(eq + 1), &bad)))
		return cli_usage_error(st, "--tag %s: %s %s", bg_text__quote(q, sizeof(q), arg),
		                       bad == BG_PAIR_KEY ? "its key" : "its value", why);
	/* Keys that mark a run as one side of a pair: a run tagged so by hand
	 * would leave the rolling baseline once exported and imported. */
	if (bg_tag__paired_key(arg, (size_t)(eq - arg)))
		return cli_usage_error(
		        st,
		        "--tag %s: the key \"%.*s\" is benchguard's own, for the runs "
		        "compare, bisect and ci's confirmation make in pairs; choose "
		        "another",
		        bg_text__quote(q, sizeof(q), arg), (int)(eq - arg), arg);
	/* One value a key: a second one silently replaced the first. */
	for (size_t i = 0; i < *ntags; i++)
		if (!strncmp(tags[i], arg, (size_t)(eq - arg) + 1))
			return cli_usage_error(st, "--tag %.*s given twice (%s and %s)",
			                       (int)(eq - arg), arg, tags[i], arg);
	tags[(*ntags)++] = arg;
	return 0;
}

double cli_strtod(const char *arg, char **end)
{
	const char *p = arg + (*arg == '+' || *arg == '-');

	/* strtod also reads hexadecimal (0x10 is 16), "inf", "nan" and
	 * leading blanks: none of them a number a user means here. */
	if (!(isdigit((unsigned char)*p) || (*p == '.' && isdigit((unsigned char)p[1]))) ||
	    (p[0] == '0' && (p[1] == 'x' || p[1] == 'X'))) {
		*end = (char *)arg;
		return NAN;
	}
	return strtod(arg, end);
}

double cli_strtod_plain(const char *arg, char **end)
{
	double v = cli_strtod(arg, end);
	const char *p;

	/* 1e3d is a thousand days to strtod, and no span anyone writes. */
	for (p = arg; p < *end; p++)
		if (*p == 'e' || *p == 'E') {
			*end = (char *)arg;
			return NAN;
		}
	return v;
}

int cli_parse_range(cli_state *st, const char *opt, const char *arg, int min, int max, int *out)
{
	char *end;
	long v;

	errno = 0;
	v = strtol(arg, &end, 10);
	/* strtol skips leading blanks, and " 5" would pass where "5 " did not. */
	if (errno || end == arg || *end || v < min || v > max || isspace((unsigned char)*arg))
		return cli_usage_error(st, "%s needs a whole number from %d to %d (got \"%s\")",
		                       opt, min, max, arg);
	*out = (int)v;
	return 0;
}

int cli_parse_count(cli_state *st, const char *opt, const char *arg, int min, int *out)
{
	return cli_parse_range(st, opt, arg, min, CLI_COUNT_MAX, out);
}

int cli_parse_id(cli_state *st, const char *opt, const char *arg, int64_t *out)
{
	char *end;
	long long v;

	errno = 0;
	v = strtoll(arg, &end, 10);
	if (errno || end == arg || *end || v < 1 || isspace((unsigned char)*arg))
		return cli_usage_error(st, "%s needs a run id, a whole number >= 1 (got \"%s\")",
		                       opt, arg);
	*out = (int64_t)v;
	return 0;
}

int cli_parse_when(cli_state *st, const char *opt, const char *arg, int64_t now, int64_t *out)
{
	static const struct {
		char suffix;
		int64_t seconds;
	} spans[] = { { 'm', 60 }, { 'h', 3600 }, { 'd', 86400 }, { 'w', 7 * 86400 } };
	struct tm tm;
	char *end;
	double v;
	size_t i;

	if (!strcmp(arg, "all")) {
		*out = 0;
		return 0;
	}
	/* strptime skips leading blanks; the span below does not. */
	if (isspace((unsigned char)*arg))
		goto bad;
	memset(&tm, 0, sizeof(tm));
	if (((end = strptime(arg, "%Y-%m-%dT%H:%M:%SZ", &tm)) && !*end) ||
	    (memset(&tm, 0, sizeof(tm)), (end = strptime(arg, "%Y-%m-%d", &tm)) && !*end)) {
		struct tm given = tm;

		*out = (int64_t)timegm(&tm);
		/* strptime takes any day up to 31 and timegm moves it on
		 * (2023-02-29 to March 1st): a date that does not exist is no
		 * date, as 25:00 is no time. */
		if (tm.tm_mday == given.tm_mday && tm.tm_mon == given.tm_mon &&
		    tm.tm_year == given.tm_year && tm.tm_hour == given.tm_hour &&
		    tm.tm_min == given.tm_min && tm.tm_sec == given.tm_sec)
			return 0;
	}
	errno = 0;
	v = cli_strtod_plain(arg, &end);
	if (end != arg && !errno && v >= 0 && v <= 1e5 && end[0] && !end[1])
		for (i = 0; i < BG_ARRAY_SIZE(spans); i++)
			if (end[0] == spans[i].suffix) {
				*out = now - (int64_t)(v * (double)spans[i].seconds);
				return 0;
			}
bad:
	return cli_usage_error(st,
	                       "%s needs a span like 30d, 12h or 2w, a date like "
	                       "2024-05-01, or \"all\" (got \"%s\")",
	                       opt, arg);
}

/* ---------------------------------------------------------------- messages */

int cli_branch_hint(cli_state *st, int rc, const char *flag)
{
	const char *msg = bg_ctx_error(st->ctx);
	char *copy;

	if (rc != BG_EINPUT || !msg || strncmp(msg, "unknown baseline branch", 23) != 0 ||
	    !(copy = strdup(msg)))
		return rc;
	bg_error_set(st->ctx, BG_EINPUT,
	             "%s; name one with %s, or set \"baseline\": {\"branch\": ...} in "
	             "benchguard.json",
	             copy, flag);
	free(copy);
	return rc;
}

void cli_progress_done(cli_state *st)
{
	if (st->progress_shown) {
		fputs("\r\033[K", stderr);
		st->progress_shown = 0;
	}
}

/* Messages quote names and answers from outside: shown, never interpreted
 * by the terminal or the CI log (lib/text.c). */
void cli_put_message(FILE *f, const char *prefix, const char *msg)
{
	char *shown = bg_text__escaped(BG_ESC_LOG, msg);

	fputs(prefix, f);
	fputs(shown ? shown : "(out of memory)", f);
	fputc('\n', f);
	free(shown);
}

void cli_put_tail(FILE *f, const char *header, const char *tail)
{
	char *shown = bg_text__escaped(BG_ESC_LOG, tail);
	size_t n = shown ? strlen(shown) : 0;

	fprintf(f, "%s\n%s", header, shown ? shown : "(out of memory)");
	if (!shown || (n && shown[n - 1] != '\n'))
		fputc('\n', f);
	free(shown);
}

const char *cli_term(char *buf, size_t len, const char *s)
{
	char *shown = bg_text__escaped(BG_ESC_TERM, s ? s : "");
	size_t i, n;
	int more = 0;

	if (shown) {
		/* Too long: cut where a character starts (the escaped text is
		 * valid UTF-8), and "…" says so, as bg_text__quote does. */
		n = strlen(shown);
		if (n >= len && len > 3) {
			n = bg_text__char_start(shown, len - 4);
			more = 1;
		}
		snprintf(buf, len, "%.*s%s", (int)n, shown, more ? "\u2026" : "");
		free(shown);
		return buf;
	}
	/* Out of memory: the name still, its printable ASCII, not a "?"
	 * that reads as an unknown machine. */
	for (i = 0; s && s[i] && i + 1 < len; i++)
		buf[i] = s[i] >= 0x20 && s[i] < 0x7f ? s[i] : '?';
	if (len)
		buf[i] = '\0';
	return buf;
}

static void vmsg(cli_state *st, const char *prefix, const char *fmt, va_list ap)
{
	char *msg = NULL;

	cli_progress_done(st);
	if (vasprintf(&msg, fmt, ap) < 0)
		msg = NULL;
	cli_put_message(stderr, prefix, msg ? msg : "(out of memory)");
	free(msg);
}

void cli_info(cli_state *st, const char *fmt, ...)
{
	va_list ap;

	if (st->quiet)
		return;
	va_start(ap, fmt);
	vmsg(st, "", fmt, ap);
	va_end(ap);
}

void cli_warn(cli_state *st, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vmsg(st, "benchguard: warning: ", fmt, ap);
	va_end(ap);
}

/* A single self-overwriting line, only when stderr is a terminal. */
void cli_progress(cli_state *st, const char *fmt, ...)
{
	va_list ap;

	if (st->quiet || !st->stderr_tty)
		return;
	fputs("\r\033[K", stderr);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fflush(stderr);
	st->progress_shown = 1;
	st->progress_at = bg_now();
}

/*
 * Whether the count `done` of `of` executions is drawn: the first and the
 * last always, the others at most CLI_PROGRESS_HZ times a second.  Drawn
 * at every execution of a fast command, the line would have the terminal
 * redraw a thousand times a second, taking CPU time beside the executions
 * it counts.
 */
int cli_progress_due(cli_state *st, int done, int of)
{
	if (st->quiet || !st->stderr_tty)
		return 0;
	return done <= 1 || done >= of || bg_now() - st->progress_at >= 1.0 / CLI_PROGRESS_HZ;
}

void cli_log_cb(bg_log_level level, const char *msg, void *data)
{
	cli_state *st = data;

	if (level == BG_LOG_WARN)
		cli_warn(st, "%s", msg);
	else if (level == BG_LOG_INFO && (!st->info_verbose || st->verbose))
		cli_info(st, "%s", msg);
	else if (st->verbose)
		cli_info(st, "%s", msg);
}

int cli_read_input(cli_state *st, const char *path, char **data, size_t *len)
{
	bg_buf b = BG_BUF_INIT;
	char chunk[65536];
	size_t n;

	if (!*path)
		return cli_usage_error(st, "a file name is empty: name a file, or - for standard "
		                           "input");
	if (strcmp(path, "-") != 0)
		return bg_read_file(st->ctx, path, data, len);
	for (;;) {
		if ((n = fread(chunk, 1, sizeof(chunk), stdin)) == 0) {
			int e = errno;

			if (!ferror(stdin))
				break;
			if (e == EINTR && !bg_ctx_cancelled(st->ctx)) {
				clearerr(stdin);
				continue;
			}
			/* Not an end of input: what came so far is not all. */
			bg_buf_clear(&b);
			if (e == EINTR)
				return bg_error_set(st->ctx, BG_ERROR,
				                    "interrupted while reading standard input");
			errno = e;
			return bg_error_errno(st->ctx, BG_EIO, "standard input");
		}
		/* The same bound as a file read whole (bg_read_file). */
		if (b.len + n > BG_READ_MAX) {
			bg_buf_clear(&b);
			return bg_error_set(
			        st->ctx, BG_EINPUT,
			        "standard input: larger than %zu MiB, more than benchguard "
			        "reads",
			        BG_READ_MAX >> 20);
		}
		if (bg_buf_put(&b, chunk, n) < 0) {
			bg_buf_clear(&b);
			return bg_error_oom(st->ctx);
		}
	}
	*len = b.len;
	*data = bg_buf_detach(&b);
	return *data ? 0 : bg_error_oom(st->ctx);
}

/* ------------------------------------------------------------- environment */

int cli_open_repo(cli_state *st, cli_env *env)
{
	return bg_repo_open(st->ctx, ".", &env->repo);
}

char *cli_config_path(cli_state *st, const cli_env *env)
{
	bg_buf b = BG_BUF_INIT;

	if (st->config_path)
		return strdup(st->config_path);
	if (bg_buf_printf(&b, "%s/benchguard.json", bg_repo_workdir(env->repo)) < 0)
		return NULL;
	return bg_buf_detach(&b);
}

int cli_load_config(cli_state *st, cli_env *env)
{
	char *path = cli_config_path(st, env);
	int rc;

	if (!path)
		return bg_error_oom(st->ctx);
	if (access(path, F_OK) != 0 && !st->config_path) {
		rc = bg_error_set(st->ctx, BG_EINPUT,
		                  "%s: no such file (run `benchguard init` or pass --config)",
		                  path);
		free(path);
		return rc;
	}
	rc = bg_config_load(st->ctx, path, &env->config);
	free(path);
	return rc;
}

int cli_load_config_if_any(cli_state *st, cli_env *env)
{
	char *path;
	int rc;

	if (env->config)
		return 0;
	if (!(path = cli_config_path(st, env)))
		return bg_error_oom(st->ctx);
	rc = st->config_path || access(path, F_OK) == 0 ? cli_load_config(st, env) : 0;
	free(path);
	return rc;
}

/* The default database lives in .benchguard/ at the repository root; that
 * folder ignores itself so the results never show up in `git status`. */
int cli_config_or_defaults(cli_state *st, cli_env *env, bg_config **defaults, const bg_config **cfg)
{
	static const char minimal[] =
	        "{ \"benchmarks\": [ { \"name\": \"-\", \"command\": \"-\" } ] }";
	char *path = NULL;
	int rc;

	if (env->repo &&
	    (st->config_path || ((path = cli_config_path(st, env)) && access(path, F_OK) == 0))) {
		free(path);
		if ((rc = cli_load_config(st, env)) < 0)
			return rc;
		*cfg = env->config;
		return 0;
	}
	free(path);
	if (st->config_path) {
		if ((rc = bg_config_load(st->ctx, st->config_path, &env->config)) < 0)
			return rc;
		*cfg = env->config;
		return 0;
	}
	if ((rc = bg_config_parse(st->ctx, "defaults", minimal, sizeof(minimal) - 1, defaults)) < 0)
		return rc;
	*cfg = *defaults;
	return 0;
}

int cli_private_dir(cli_state *st, const char *dir)
{
	bg_buf ign = BG_BUF_INIT;
	FILE *f;

	if (mkdir(dir, 0777) != 0 && errno != EEXIST)
		return bg_error_errno(st->ctx, BG_EIO, "%s", dir);
	if (bg_buf_printf(&ign, "%s/.gitignore", dir) < 0)
		return bg_error_oom(st->ctx);
	if (access(ign.ptr, F_OK) != 0 && (f = fopen(ign.ptr, "w")) != NULL) {
		fputs("# benchguard's results and worktrees; not part of the project\n*\n", f);
		fclose(f);
	}
	bg_buf_clear(&ign);
	return 0;
}

/* How open_store opens: to write, to read, or for its version alone. */
enum { OPEN_WRITE, OPEN_READ, OPEN_PEEK };

static int open_store(cli_state *st, cli_env *env, int how)
{
	bg_buf b = BG_BUF_INIT;
	int read = how != OPEN_WRITE, rc;

	/* --db, then $BENCHGUARD_DB (both in st->db_path), then the config's
	 * "database", then the file in the repository.  A command that reads
	 * no config otherwise (history, report) reads it for that key. */
	if (!st->db_path && env->repo && (rc = cli_load_config_if_any(st, env)) < 0)
		return rc;
	if (st->db_path) {
		env->db_path = strdup(st->db_path);
	} else if (env->config && bg_config_database(env->config)) {
		if ((rc = bg_config_database_spec(st->ctx, env->config,
		                                  env->repo ? bg_repo_workdir(env->repo) : NULL,
		                                  &env->db_path)) < 0)
			return rc;
	} else {
		if (bg_buf_printf(&b, "%s/.benchguard", bg_repo_workdir(env->repo)) < 0)
			return bg_error_oom(st->ctx);
		if (!read && (rc = cli_private_dir(st, b.ptr)) < 0) {
			bg_buf_clear(&b);
			return rc;
		}
		bg_buf_puts(&b, "/results.db");
		env->db_path = bg_buf_detach(&b);
	}
	if (!env->db_path)
		return bg_error_oom(st->ctx);
	if (how == OPEN_PEEK)
		return bg_store_open_peek(st->ctx, env->db_path, &env->store);
	rc = read ? bg_store_open_read(st->ctx, env->db_path, &env->store)
	          : bg_store_open(st->ctx, env->db_path, &env->store);
	if (rc == 0)
		cli_say_upgraded(st, env->store);
	return rc;
}

void cli_say_upgraded(cli_state *st, const bg_store *store)
{
	int from = bg_store_upgraded_from(store);

	/* Said, as where runners of two releases share a database the older
	 * ones stop at it with "newer than this benchguard supports". */
	if (from > 0)
		cli_warn(st,
		         "database %s upgraded from schema version %d to %d: an older "
		         "benchguard now refuses it",
		         bg_store_name(store), from, bg_store_schema_current());
}

int cli_open_store(cli_state *st, cli_env *env)
{
	return open_store(st, env, OPEN_WRITE);
}

int cli_read_store(cli_state *st, cli_env *env)
{
	return open_store(st, env, OPEN_READ);
}

int cli_peek_store(cli_state *st, cli_env *env)
{
	return open_store(st, env, OPEN_PEEK);
}

int cli_make_parents(cli_state *st, const char *path)
{
	char *copy = strdup(path), *p;
	int rc = 0;

	if (!copy)
		return bg_error_oom(st->ctx);
	/* From the second character: a leading '/' is the root, not a parent. */
	for (p = copy; *p && rc == 0; p++) {
		if (*p != '/' || p == copy)
			continue;
		*p = '\0';
		if (mkdir(copy, 0777) != 0 && errno != EEXIST)
			rc = bg_error_errno(st->ctx, BG_EIO, "%s", copy);
		*p = '/';
	}
	free(copy);
	return rc;
}

/* What is not a regular file (/dev/stdout, a FIFO, /dev/null) is written
 * in place: renaming a file over it would replace the device itself. */
static int write_in_place(cli_state *st, const char *path, const char *text, size_t len)
{
	FILE *f = fopen(path, "w");

	if (!f)
		return bg_error_errno(st->ctx, BG_EIO, "%s", path);
	if (fwrite(text, 1, len, f) != len || fclose(f) != 0)
		return bg_error_errno(st->ctx, BG_EIO, "%s", path);
	return 0;
}

/* All of text to fd, through short writes and signals. */
static int write_all(int fd, const char *text, size_t len)
{
	while (len > 0) {
		ssize_t n = write(fd, text, len);

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			return -1;
		text += n;
		len -= (size_t)n;
	}
	return 0;
}

int cli_write_file(cli_state *st, const char *path, const char *text, size_t len)
{
	bg_buf tmp = BG_BUF_INIT;
	struct stat sb;
	char id[33];
	int exists, fd = -1, rc = 0, tries;

	if (!*path)
		return cli_usage_error(st, "no file name to write to");
	if (path[strlen(path) - 1] == '/')
		return cli_usage_error(st, "%s names a folder: give a file name to write to", path);
	exists = stat(path, &sb) == 0;
	if (exists && S_ISDIR(sb.st_mode))
		return cli_usage_error(st, "%s is a folder: give a file name to write to", path);
	if (exists && !S_ISREG(sb.st_mode))
		return write_in_place(st, path, text, len);
	/* Renaming over a file needs only its folder's permission: a file
	 * that may not be written is left as it is, as `>` would leave it. */
	if (exists && access(path, W_OK) != 0)
		return bg_error_errno(st->ctx, BG_EIO, "%s", path);
	if ((rc = cli_make_parents(st, path)) < 0)
		return rc;
	/* A new file (O_EXCL) under a name no one can guess: never a link or
	 * a file someone left there. */
	for (tries = 0; fd < 0 && tries < 8; tries++) {
		tmp.len = 0;
		if (bg_random_hex(id) < 0) {
			rc = bg_error_errno(st->ctx, BG_EIO,
			                    "%s: no random name for the temporary file", path);
			goto cleanup;
		}
		if (bg_buf_printf(&tmp, "%s.tmp.%.12s", path, id) < 0) {
			rc = bg_error_oom(st->ctx);
			goto cleanup;
		}
		fd = open(tmp.ptr, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0666);
		if (fd < 0 && errno != EEXIST)
			break;
	}
	if (fd < 0) {
		rc = bg_error_errno(st->ctx, BG_EIO, "%s", path);
		goto cleanup;
	}
	/* The file it replaces keeps its permissions. */
	if ((exists && fchmod(fd, sb.st_mode & 07777) != 0) || write_all(fd, text, len) != 0 ||
	    fsync(fd) != 0) {
		rc = bg_error_errno(st->ctx, BG_EIO, "%s", path);
		close(fd);
		unlink(tmp.ptr);
		goto cleanup;
	}
	if (close(fd) != 0 || rename(tmp.ptr, path) != 0) {
		rc = bg_error_errno(st->ctx, BG_EIO, "%s", path);
		unlink(tmp.ptr);
	}
cleanup:
	bg_buf_clear(&tmp);
	return rc;
}

void cli_warn_throttling(cli_state *st, int64_t run_id, const bg_machine *facts)
{
	char *why = NULL;

	if (bg_gpu_throttling(facts, &why) == 1)
		cli_warn(st, "run %lld: GPU throttling: %s; its GPU timings may be slow",
		         (long long)run_id, why);
	free(why);
}

void cli_warn_throttled_runs(cli_state *st, bg_store *store, const int64_t *ids, size_t n)
{
	bg_machine *facts;
	size_t i;

	for (i = 0; i < n; i++) {
		/* A warning that cannot be read is no reason to hold back the verdict. */
		if (bg_store_run_facts(st->ctx, store, ids[i], &facts) < 0) {
			bg_ctx_clear_error(st->ctx);
			continue;
		}
		cli_warn_throttling(st, ids[i], facts);
		bg_machine_free(facts);
	}
}

int cli_detect_machine(cli_state *st, cli_env *env, const char *name)
{
	int rc = bg_machine_detect(st->ctx, "/", &env->machine);
	char q[320];

	if (rc < 0)
		return rc;
	/* The name as other refusals quote one: escaped and cut short. */
	if (name && bg_machine_set_name(env->machine, name) < 0)
		return cli_usage_error(st,
		                       "--machine: %s is not a valid machine name "
		                       "(one word of printable characters, none that shows "
		                       "nothing, and not \"all\", which report reads as every "
		                       "machine)",
		                       bg_text__quote(q, sizeof(q), name));
	return 0;
}

void cli_env_clear(cli_env *env)
{
	bg_store_free(env->store);
	bg_config_free(env->config);
	bg_machine_free(env->machine);
	bg_repo_free(env->repo);
	free(env->db_path);
	memset(env, 0, sizeof(*env));
}

/* ------------------------------------------------------------------ tables */

void cli_table_print(cli_state *st, const bg_table *t, FILE *f)
{
	bg_buf b = BG_BUF_INIT;

	if (bg_table_render(t, st->format == CLI_MARKDOWN, st->color, &b) == 0 && b.ptr)
		fputs(b.ptr, f);
	else
		st->print_failed = 1; /* a verdict table missing, exit 0: never */
	bg_buf_clear(&b);
}

/* ------------------------------------------------------------------ values */

const char *cli_fmt_cv(char *buf, size_t len, const bg_summary *s)
{
	/* Of a mean of 0 a spread has no relative size: "-", not a 0.0% that
	 * reads as no noise at all (a score in pt of -1 and 1). */
	if (fabs(s->mean) > 0)
		snprintf(buf, len, "%.1f%%", 100.0 * s->stddev / fabs(s->mean));
	else
		snprintf(buf, len, "%s", s->stddev > 0 ? "-" : "0.0%");
	return buf;
}

void cli_fmt_time(char *buf, size_t len, int64_t t)
{
	time_t tt = (time_t)t;
	struct tm tm;

	if (gmtime_r(&tt, &tm))
		strftime(buf, len, "%Y-%m-%dT%H:%M:%SZ", &tm);
	else
		snprintf(buf, len, "%lld", (long long)t);
}

int cli_print_json(cli_state *st, struct json_object *obj)
{
	const char *s;

	if (!obj)
		return bg_error_oom(st->ctx);
	s = bg_text__json(obj, JSON_C_TO_STRING_PRETTY | JSON_C_TO_STRING_SPACED |
	                               JSON_C_TO_STRING_NOSLASHESCAPE);
	fputs(s, stdout);
	fputc('\n', stdout);
	json_object_put(obj);
	return 0;
}
