/*
 * simulate.c -- the `simulate` instrument's Valgrind side: is callgrind
 * here, the words that run a command under it, and what its output files
 * say once the command is gone.
 *
 * The command runs once under callgrind with the cache simulation on, its
 * children traced, one output file per process (and one more per dump a
 * process asked for) and Valgrind's own messages in a log file beside
 * them, so that the program's stdout and stderr stay its own.  The files
 * are written by the benchmark's processes, inside Valgrind but still at
 * their mercy: everything read here is bounded and checked, and what does
 * not parse is an input error, never a crash or a guess.
 *
 * A region of interest (benchguard_region.h) shows in the files as a dump
 * whose trigger is the client request "benchguard-region-start": what the
 * process did before it is in that dump and its earlier parts, the region
 * in the parts after it.  When any process marks a region, only regions
 * count: the shell or the script that started the program is not what the
 * benchmark means to measure.
 */
#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "internal.h"

/* The trigger benchguard_region.h's first bg_region_begin() dumps with. */
#define REGION_TRIGGER "Client Request: benchguard-region-start"
/* Bounds on what the command can make us read. */
#define MAX_FILES 8192             /* callgrind files and logs (each fork adds a dump) */
#define MAX_LINE 4096              /* a line we parse; longer ones are skipped */
#define MAX_HEADER ((long)4 << 20) /* the header (events, summary) lies within it */
#define TAIL_BYTES 4096            /* where the closing totals: line is looked for */
#define MAX_LOG ((long)64 << 20)   /* a log is searched for failures up to here */
#define MAX_PART 1000000L          /* dumps of one process */
#define VERSION_MAX 64             /* "valgrind-3.19.0" and the like */

/* The events bg_sim_counts holds, in its order. */
static const char *const event_names[] = { "Ir",   "Dr",   "Dw",   "I1mr", "D1mr",
	                                   "D1mw", "ILmr", "DLmr", "DLmw" };
#define NEVENTS 9

/* What Valgrind writes to its log when it, not the program, failed. */
static const char *const failure_marks[] = {
	"the 'impossible' happened",   "Valgrind's memory management: out of memory",
	"unhandled instruction bytes", "Unrecognised instruction at address",
	"Fatal error at startup",      "VALGRIND INTERNAL ERROR",
};

/* ------------------------------------------------------------------ probe */

/* 1 when some directory of PATH holds an executable `name`. */
static int on_path(const char *name)
{
	const char *path = getenv("PATH"), *p, *end;
	char buf[PATH_MAX];
	struct stat st;
	size_t len;

	if (!path)
		path = "/bin:/usr/bin"; /* glibc's default, as bg_exec uses */
	for (p = path;; p = end + 1) {
		end = strchr(p, ':');
		len = end ? (size_t)(end - p) : strlen(p);
		/* An empty entry is the current directory. */
		if (len + strlen(name) + 2 <= sizeof(buf)) {
			snprintf(buf, sizeof(buf), "%.*s%s%s", (int)len, p, len ? "/" : "", name);
			if (stat(buf, &st) == 0 && S_ISREG(st.st_mode) && access(buf, X_OK) == 0)
				return 1;
		}
		if (!end)
			return 0;
	}
}

int bg_simulate__probe(bg_ctx *ctx, char *version, size_t n)
{
	static const bg_exec_opts opts = { NULL, 30.0, 1, 4096, NULL, NULL };
	bg_exec_result r = { 0 };
	char q[96], *desc = NULL;
	size_t len = 0;
	int error;

	if (n)
		version[0] = '\0';
	if (!on_path("valgrind"))
		return bg_error_set(ctx, BG_ENOTFOUND, "valgrind not found on PATH");
	if ((error = bg_exec(ctx, "valgrind --version", &opts, &r)) < 0)
		goto cleanup;
	if (!r.exited || r.exit_status != 0) {
		desc = bg_exec_describe(&r, opts.timeout);
		error = bg_error_set(ctx, BG_ENOTFOUND, "valgrind --version failed: %s",
		                     desc ? desc : "?");
		goto cleanup;
	}
	if (r.out)
		len = strcspn(r.out, "\r\n");
	/* One word such as "valgrind-3.19.0": it becomes part of the series'
	 * instrument string, which is stored and compared. */
	if (len >= n) {
		error = bg_error_set(ctx, BG_ENOTFOUND,
		                     "valgrind --version printed %s, longer than benchguard keeps",
		                     bg_text__quote_n(q, sizeof(q), r.out ? r.out : "", len));
		goto cleanup;
	}
	if (len == 0 || len > VERSION_MAX || strncmp(r.out, "valgrind-", 9) != 0 ||
	    strspn(r.out, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789.+-_") !=
	            len) {
		error = bg_error_set(ctx, BG_ENOTFOUND,
		                     "valgrind --version printed %s, not a version",
		                     bg_text__quote_n(q, sizeof(q), r.out ? r.out : "", len));
		goto cleanup;
	}
	memcpy(version, r.out, len);
	version[len] = '\0';
cleanup:
	free(desc);
	bg_exec_result_clear(&r);
	return error;
}

/* ------------------------------------------------------------------- argv */

void bg_simulate__argv_free(char **argv)
{
	size_t i;

	if (!argv)
		return;
	for (i = 0; argv[i]; i++)
		free(argv[i]);
	free(argv);
}

/* Valgrind expands %p and %q{VAR} in file names; %% is a '%'. */
static int put_escaped(bg_buf *b, const char *s)
{
	for (; *s; s++)
		if ((*s == '%' ? bg_buf_puts(b, "%%") : bg_buf_put(b, s, 1)) < 0)
			return BG_ENOMEM;
	return 0;
}

int bg_simulate__argv(bg_ctx *ctx, const char *dir, char ***argv)
{
	/*
	 * Valgrind's options come from this command line alone: VALGRIND_OPTS
	 * and the .valgrindrc files (~ and the benchmark's folder, often a
	 * repository's own) are read before it, and an option there that this
	 * list does not name (--simulate-hwpref, --zero-before) would change
	 * the counts, one meant for memcheck (--leak-check) fail every run.
	 * The options that decide the counts are all given: collection from
	 * the start (the region header toggles it), one file per dump and
	 * per process, never per thread.  The caches are fixed rather than
	 * read from this CPU, so that misses and estimated cycles do not move
	 * when CI lands on another machine: a common desktop's 32 KiB 8-way
	 * L1s and an 8 MiB 16-way last level, 64-byte lines.
	 *
	 * A child forked without exec (a worker, a subshell) starts as a copy
	 * of its parent, cost counters included, and its file would count
	 * everything the parent did before the fork a second time.  A dump at
	 * each call of fork() writes the parent's costs so far to a part of
	 * its own and zeroes them, so that both sides of the fork start from
	 * nothing.  glibc's fork is named either way, depending on which of
	 * its aliases the symbol table gives first.
	 */
	static const char *const fixed[] = {
		"valgrind",
		"--command-line-only=yes",
		"--tool=callgrind",
		"--cache-sim=yes",
		"--I1=32768,8,64",
		"--D1=32768,8,64",
		"--LL=8388608,16,64",
		"--trace-children=yes",
		/* No gdbserver: its FIFOs in /tmp outlive a process killed
		 * with SIGKILL (a leftover, a timeout), three files each. */
		"--vgdb=no",
		"--collect-atstart=yes",
		"--instr-atstart=yes",
		"--separate-threads=no",
		"--combine-dumps=no",
		"--dump-every-bb=0",
		"--dump-before=fork",
		"--dump-before=__libc_fork",
	};
	size_t nfixed = BG_ARRAY_SIZE(fixed), i;
	char **v = NULL, *cwd = NULL;
	bg_buf esc = BG_BUF_INIT;
	int error = 0;

	*argv = NULL;
	if (!dir || !*dir)
		return bg_error_set(ctx, BG_EINPUT, "no folder for Valgrind's output");
	/* The command may run in another directory: make the folder absolute. */
	if (dir[0] != '/') {
		if (!(cwd = getcwd(NULL, 0))) {
			error = bg_error_errno(ctx, BG_ERROR, "cannot name the current directory");
			goto cleanup;
		}
	}
	if ((cwd && (put_escaped(&esc, cwd) < 0 || bg_buf_puts(&esc, "/") < 0)) ||
	    put_escaped(&esc, dir) < 0)
		goto oom;
	if (!(v = calloc(nfixed + 3, sizeof(char *))))
		goto oom;
	for (i = 0; i < nfixed; i++)
		if (!(v[i] = bg_strdup(fixed[i])))
			goto oom;
	if (!(v[nfixed] = bg_printf("--callgrind-out-file=%s/cg.%%p", esc.ptr)) ||
	    !(v[nfixed + 1] = bg_printf("--log-file=%s/vg.%%p.log", esc.ptr)))
		goto oom;
	*argv = v;
	v = NULL;
	goto cleanup;
oom:
	error = bg_error_oom(ctx);
cleanup:
	bg_simulate__argv_free(v);
	bg_buf_clear(&esc);
	free(cwd);
	return error;
}

/* ---------------------------------------------------------------- collect */

/* One callgrind output file: one part of one process. */
typedef struct {
	long pid, part;
	int region_start; /* its trigger is the region's start */
	double v[NEVENTS];
} part_file;

/*
 * The next line of f into buf, without its newline; 0 at the end of the
 * file.  A line longer than the buffer is consumed whole and comes back
 * as "" with *long_line set: no line we parse is that long.  *consumed
 * counts the bytes read, for the caller's bound.
 */
static int next_line(FILE *f, char *buf, size_t size, int *long_line, long *consumed)
{
	size_t len = 0;
	int c;

	*long_line = 0;
	while ((c = getc(f)) != EOF) {
		(*consumed)++;
		if (c == '\n')
			break;
		if (len + 1 < size)
			buf[len++] = (char)c;
		else
			*long_line = 1;
	}
	if (c == EOF && len == 0 && !*long_line)
		return 0;
	if (len && buf[len - 1] == '\r')
		len--;
	buf[len] = '\0';
	/* A NUL inside a line is garbage: the line is as good as too long. */
	if (*long_line || strlen(buf) != len) {
		*long_line = 1;
		buf[0] = '\0';
	}
	return 1;
}

/* A non-negative decimal number below 2^63 at *s, the pointer moved past it. */
static int parse_count(const char **s, double *out)
{
	const char *p = *s;
	unsigned long long v = 0;

	if (!isdigit((unsigned char)*p))
		return -1;
	for (; isdigit((unsigned char)*p); p++) {
		if (v > (ULLONG_MAX >> 1) / 10)
			return -1;
		v = v * 10 + (unsigned)(*p - '0');
	}
	if (v > (ULLONG_MAX >> 1))
		return -1;
	*out = (double)v;
	*s = p;
	return 0;
}

/*
 * "summary: 6026 1001 1015 4 0 0 4": one count per event named on the
 * events: line; callgrind leaves the trailing zeros out.  map[i] is where
 * column i goes in v (-1: an event we do not keep).
 */
static const char *parse_costs(const char *s, const int *map, size_t ncols, double *v)
{
	size_t i;
	double x;

	for (i = 0; i < NEVENTS; i++)
		v[i] = 0;
	for (i = 0;; i++) {
		while (*s == ' ' || *s == '\t')
			s++;
		if (!*s)
			return NULL;
		if (i >= ncols)
			return "has more counts than events";
		if (parse_count(&s, &x) < 0 || (*s && *s != ' ' && *s != '\t'))
			return "has a count that is not a whole number below 2^63";
		if (map[i] >= 0)
			v[map[i]] = x;
	}
}

/* "events: Ir Dr ...": map[column] = index in event_names or -1. */
static const char *parse_events(char *s, int *map, size_t *ncols)
{
	int seen[NEVENTS] = { 0 };
	char *tok, *save = NULL;
	size_t i, n = 0;

	for (tok = strtok_r(s, " \t", &save); tok; tok = strtok_r(NULL, " \t", &save)) {
		if (n >= 64)
			return "names more than 64 events";
		map[n] = -1;
		for (i = 0; i < NEVENTS; i++) {
			if (!strcmp(tok, event_names[i])) {
				if (seen[i]++)
					return "names an event twice";
				map[n] = (int)i;
			}
		}
		n++;
	}
	for (i = 0; i < NEVENTS; i++)
		if (!seen[i])
			return "lacks an event of the cache simulation (Ir Dr Dw I1mr D1mr D1mw "
			       "ILmr DLmr DLmw)";
	*ncols = n;
	return NULL;
}

/* "key:" at the start of line: the text after it, else NULL. */
static char *after_key(char *line, const char *key)
{
	size_t n = strlen(key);

	if (strncmp(line, key, n) != 0)
		return NULL;
	return line + n;
}

/*
 * 1 when the last line of f (a regular file of `size` bytes) is a whole
 * "totals:" line: callgrind writes it last, so a file without it was cut
 * short (Valgrind killed at the timeout, a full disk).
 */
static int has_totals(FILE *f, long size)
{
	char buf[TAIL_BYTES + 1];
	size_t n;
	char *p;

	if (fseek(f, size > TAIL_BYTES ? size - TAIL_BYTES : 0, SEEK_SET) != 0)
		return 0;
	n = fread(buf, 1, TAIL_BYTES, f);
	if (n == 0 || buf[n - 1] != '\n' || memchr(buf, '\0', n))
		return 0;
	buf[n - 1] = '\0';
	p = strrchr(buf, '\n');
	if (!p && size > TAIL_BYTES)
		return 0; /* a last line longer than the tail: not callgrind's */
	p = p ? p + 1 : buf;
	return strncmp(p, "totals:", 7) == 0;
}

/* Reads the header of one callgrind file (`name` in the folder) into *pf. */
static int read_part(bg_ctx *ctx, int dirfd, const char *name, part_file *pf, int *cut_short)
{
	char line[MAX_LINE], *val;
	int map[64], long_line, fd = -1, have_events = 0, have_summary = 0, have_part = 0;
	size_t ncols = 0;
	const char *why = NULL;
	struct stat st;
	FILE *f = NULL;
	long lineno = 0, consumed = 0;
	int error = 0;

	*cut_short = 0;
	fd = openat(dirfd, name, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
	if (fd < 0) {
		if (errno == ELOOP)
			return bg_error_set(ctx, BG_EINPUT,
			                    "Valgrind's output %s is a symbolic link, not a file",
			                    name);
		return bg_error_errno(ctx, BG_EIO, "cannot open Valgrind's output %s", name);
	}
	if (fstat(fd, &st) < 0 || !S_ISREG(st.st_mode)) {
		close(fd);
		return bg_error_set(ctx, BG_EINPUT, "Valgrind's output %s is not a regular file",
		                    name);
	}
	if (!(f = fdopen(fd, "r"))) {
		close(fd);
		return bg_error_oom(ctx);
	}
	while (!have_summary && consumed < MAX_HEADER &&
	       next_line(f, line, sizeof(line), &long_line, &consumed)) {
		lineno++;
		if (lineno == 1) {
			if (long_line || strcmp(line, "# callgrind format") != 0) {
				why = "is not a callgrind output file (its first line is not "
				      "\"# callgrind format\")";
				break;
			}
			continue;
		}
		if (long_line)
			continue;
		if ((val = after_key(line, "part:"))) {
			double p;
			const char *s = val + strspn(val, " ");

			if (have_part++ || parse_count(&s, &p) < 0 || *s || p < 1 || p > MAX_PART) {
				why = "has a bad part: line";
				break;
			}
			pf->part = (long)p;
		} else if ((val = after_key(line, "desc: Trigger:"))) {
			val += strspn(val, " ");
			if (!strcmp(val, REGION_TRIGGER))
				pf->region_start = 1;
		} else if ((val = after_key(line, "events:"))) {
			if (have_events++) {
				why = "has two events: lines";
				break;
			}
			if ((why = parse_events(val, map, &ncols)))
				break;
		} else if ((val = after_key(line, "summary:"))) {
			if (!have_events) {
				why = "has its summary: before its events: line";
				break;
			}
			if ((why = parse_costs(val, map, ncols, pf->v)))
				break;
			have_summary = 1;
		}
	}
	if (!why && ferror(f)) {
		error = bg_error_errno(ctx, BG_EIO, "cannot read Valgrind's output %s", name);
		goto cleanup;
	}
	if (!why && lineno == 0)
		why = "is empty";
	else if (!why && !have_events)
		why = "has no events: line in its header";
	else if (!why && !have_summary)
		why = "has no summary: line in its header";
	else if (!why && !have_part)
		why = "has no part: line in its header";
	/* callgrind writes totals: last: without it the file was cut short. */
	else if (!why && !has_totals(f, (long)st.st_size))
		why = "ends without its totals: line (cut short?)";
	/* What a process killed before it ended leaves (callgrind writes its
	 * header at the start, its totals at the end). */
	if (why && (lineno == 0 || !strcmp(why, "ends without its totals: line (cut short?)")))
		*cut_short = 1;
	if (why)
		error = bg_error_set(ctx, BG_EINPUT,
		                     "Valgrind's output %s %s: was it written by callgrind, "
		                     "or overwritten by the benchmark?",
		                     name, why);
cleanup:
	fclose(f);
	return error;
}

/*
 * Scans one Valgrind log for the lines it writes when it failed (not the
 * program): the first such line is the error, with the process's pid.
 */
static int check_log(bg_ctx *ctx, int dirfd, const char *name, long pid)
{
	char line[MAX_LINE], q[200];
	int fd, long_line, error = 0;
	long consumed = 0;
	struct stat st;
	size_t i;
	FILE *f;

	fd = openat(dirfd, name, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
	if (fd < 0) {
		if (errno == ELOOP)
			return bg_error_set(ctx, BG_EINPUT,
			                    "Valgrind's log %s is a symbolic link, not a file",
			                    name);
		return bg_error_errno(ctx, BG_EIO, "cannot open Valgrind's log %s", name);
	}
	if (fstat(fd, &st) < 0 || !S_ISREG(st.st_mode)) {
		close(fd);
		return bg_error_set(ctx, BG_EINPUT, "Valgrind's log %s is not a regular file",
		                    name);
	}
	if (!(f = fdopen(fd, "r"))) {
		close(fd);
		return bg_error_oom(ctx);
	}
	while (consumed < MAX_LOG && next_line(f, line, sizeof(line), &long_line, &consumed)) {
		for (i = 0; i < BG_ARRAY_SIZE(failure_marks); i++) {
			if (strstr(line, failure_marks[i])) {
				const char *msg = line;

				/* "==123== " or "--123-- " or "valgrind: " is not news. */
				if ((msg[0] == '=' || msg[0] == '-') && msg[1] == msg[0]) {
					msg += 2 + strspn(msg + 2, "0123456789");
					msg += strspn(msg, "=-");
					msg += strspn(msg, " ");
				}
				error = bg_error_set(ctx, BG_EINPUT,
				                     "Valgrind failed in process %ld (%s): %s", pid,
				                     name, bg_text__quote(q, sizeof(q), msg));
				goto cleanup;
			}
		}
	}
cleanup:
	fclose(f);
	return error;
}

/* "cg.<pid>" or "cg.<pid>.<n>" -> pid; "vg.<pid>.log" -> pid and *log. */
static int parse_name(const char *name, long *pid, int *log)
{
	const char *s;
	double p;

	*log = 0;
	if (!strncmp(name, "cg.", 3)) {
		s = name + 3;
		if (parse_count(&s, &p) < 0 || p > INT_MAX)
			return -1;
		if (*s == '.') {
			double part;

			s++;
			if (parse_count(&s, &part) < 0)
				return -1;
		}
		*pid = (long)p;
		return *s ? -1 : 0;
	}
	if (!strncmp(name, "vg.", 3)) {
		s = name + 3;
		if (parse_count(&s, &p) < 0 || p > INT_MAX || strcmp(s, ".log") != 0)
			return -1;
		*pid = (long)p;
		*log = 1;
		return 0;
	}
	return -1;
}

static int part_cmp(const void *a, const void *b)
{
	const part_file *x = a, *y = b;

	if (x->pid != y->pid)
		return x->pid < y->pid ? -1 : 1;
	return (x->part > y->part) - (x->part < y->part);
}

int bg_simulate__collect(bg_ctx *ctx, const char *dir, long main_pid, bg_sim_counts *out)
{
	part_file *parts = NULL;
	size_t nparts = 0, cap = 0, entries = 0, i, j, k, lo;
	int error = 0, dirfd = -1, any_region = 0, log, cut_short = 0;
	bg_saved_error saved;
	struct dirent *de;
	DIR *d = NULL;
	long pid;

	memset(out, 0, sizeof(*out));
	bg_ctx__save_error(ctx, &saved);
	dirfd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (dirfd < 0 || !(d = fdopendir(dirfd))) {
		error = bg_error_errno(ctx, BG_EIO, "cannot read Valgrind's output folder %s", dir);
		if (dirfd >= 0)
			close(dirfd);
		return error;
	}
	/* The logs first: when Valgrind failed, that is the news, not what
	 * its output files lack. */
	for (k = 0; k < 2; k++) {
		rewinddir(d);
		entries = 0;
		while ((errno = 0, de = readdir(d))) {
			if (de->d_name[0] == '.' || parse_name(de->d_name, &pid, &log) < 0)
				continue;
			if (++entries > MAX_FILES) {
				error = bg_error_set(
				        ctx, BG_EINPUT,
				        "Valgrind wrote more than %d files in %s: more "
				        "processes or dumps than benchguard reads",
				        MAX_FILES, dir);
				goto cleanup;
			}
			if (k == 0 && log) {
				if ((error = check_log(ctx, dirfd, de->d_name, pid)) < 0)
					goto cleanup;
			} else if (k == 1 && !log) {
				if (bg_grow((void **)&parts, &cap, nparts, sizeof(*parts)) < 0)
					goto oom;
				memset(&parts[nparts], 0, sizeof(parts[nparts]));
				parts[nparts].pid = pid;
				error = read_part(ctx, dirfd, de->d_name, &parts[nparts],
				                  &cut_short);
				/*
				 * Another process's file, cut short: one the command
				 * left running, which benchguard killed once it ended
				 * (a server started with &), or one killed before it
				 * ended.  Its counts never came; the others stand.  The
				 * command's own must be whole.
				 */
				if (error == BG_EINPUT && cut_short && main_pid > 0 &&
				    pid != main_pid) {
					bg_ctx__restore_error(ctx, &saved);
					error = 0;
					out->cut_short++;
					continue;
				}
				if (error < 0)
					goto cleanup;
				nparts++;
			}
		}
		if (errno) {
			error = bg_error_errno(ctx, BG_EIO,
			                       "cannot read Valgrind's output folder %s", dir);
			goto cleanup;
		}
	}
	if (nparts == 0) {
		error = bg_error_set(ctx, BG_EINPUT,
		                     "Valgrind wrote no callgrind output in %s: did the command "
		                     "run under it?",
		                     dir);
		goto cleanup;
	}
	qsort(parts, nparts, sizeof(*parts), part_cmp);
	for (i = 0; i < nparts; i++) {
		if (i && parts[i].pid == parts[i - 1].pid && parts[i].part == parts[i - 1].part) {
			error = bg_error_set(ctx, BG_EINPUT,
			                     "Valgrind's output for process %ld has part %ld twice",
			                     parts[i].pid, parts[i].part);
			goto cleanup;
		}
		any_region |= parts[i].region_start;
	}
	out->region = any_region;
	/* One process at a time: parts[lo..j) share a pid, in part order. */
	for (lo = 0; lo < nparts; lo = j) {
		long start = 0; /* the region's start dump; 0: none */

		for (j = lo; j < nparts && parts[j].pid == parts[lo].pid; j++)
			if (parts[j].region_start && !start)
				start = parts[j].part;
		if (any_region && !start)
			continue; /* not the region: a wrapper, a helper */
		out->processes++;
		for (k = lo; k < j; k++) {
			const double *v = parts[k].v;

			if (parts[k].part <= start)
				continue; /* before the region, and its start dump */
			out->ir += v[0];
			out->dr += v[1];
			out->dw += v[2];
			out->i1mr += v[3];
			out->d1mr += v[4];
			out->d1mw += v[5];
			out->ilmr += v[6];
			out->dlmr += v[7];
			out->dlmw += v[8];
		}
	}
	goto cleanup;
oom:
	error = bg_error_oom(ctx);
cleanup:
	if (error < 0)
		memset(out, 0, sizeof(*out));
	free(parts);
	closedir(d);
	return error;
}

/* --------------------------------------------------------------- estimate */

double bg_simulate__est_cycles(const bg_sim_counts *c)
{
	double ram = c->ilmr + c->dlmr + c->dlmw;
	double l1_misses = c->i1mr + c->d1mr + c->d1mw;
	double ll_hits = l1_misses - ram;
	double l1_hits = c->ir + c->dr + c->dw - l1_misses;

	return l1_hits + 5.0 * ll_hits + 35.0 * ram;
}
