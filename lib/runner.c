/*
 * runner.c -- runs benchmark commands and turns what they did into samples.
 *
 * bg_exec is one execution: vfork of a child that sets itself up (its own
 * process group, /dev/null for stdin, default signals, death with
 * benchguard) and execs the command, a pidfd and poll() to wait for it
 * while draining its output pipes, and a killpg of the whole group at the
 * timeout and after it exits.  What left the group (a daemon that called
 * setsid) comes back to benchguard, a child subreaper while the command
 * runs, and is killed and reaped too: nothing a benchmark starts outlives
 * it.  It must cost next to nothing beside the command itself: `make bench`
 * holds `benchguard run` on /bin/true against a bare posix_spawn+wait4 loop
 * (tests/bench/spawnloop.c; docs/development.md has the figures), which is
 * why plain word lists skip the shell, the search for leftovers reads
 * /proc/self/task/<tid>/children, a few microseconds, rather than every
 * /proc/<pid>/stat, and the child resets only the signals that need it.
 *
 * bg_runner_run applies one benchmark's config: its `requires`, warm-up and
 * samples for `time`, a single execution and the output parser for the
 * formats that report their own samples, and the outcome of the benchmark.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <poll.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include "internal.h"

/* How long a child whose pipes closed is looked for before poll() again. */
#define SPIN_US 50
#define DEFAULT_OUT_LIMIT ((size_t)64 << 20)
/* After the command is gone, how long to wait for pipe EOF: only something
 * that left the process group (setsid) can still hold a pipe by then. */
#define DRAIN_SECONDS 1.0
/* How much of stderr goes into a failure message. */
#define MESSAGE_TAIL 1024
/* The longest poll() while a command runs: a cancel flag set by a signal
 * that arrived just before poll() is seen within this many ms. */
#define CANCEL_POLL_MS 100
/* Each round of killing leftovers reaps at least one; a bound all the same. */
#define MAX_REAP_ROUNDS 10000
/* The variable that tells an execution's processes from the host's. */
#define EXEC_ID_VAR "BENCHGUARD_EXEC_ID"

/* ---------------------------------------------------------------- command */

/*
 * Words that mean something to the shell itself: run through /bin/sh even
 * when the command is otherwise a plain word list, so that `cd x`, `exit 3`
 * or `ulimit -s 100` behave as the user wrote them.
 */
static const char *const shell_words[] = {
	".",        ":",        "alias",   "bg",     "break",   "builtin", "case",   "cd",
	"command",  "continue", "declare", "do",     "done",    "elif",    "else",   "esac",
	"eval",     "exec",     "exit",    "export", "fc",      "fg",      "fi",     "for",
	"function", "getopts",  "hash",    "if",     "in",      "jobs",    "let",    "local",
	"read",     "readonly", "return",  "select", "set",     "shift",   "source", "then",
	"time",     "times",    "trap",    "type",   "typeset", "ulimit",  "umask",  "unalias",
	"unset",    "until",    "wait",    "while",
};

static int plain_char(char c)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
	       (c != '\0' && strchr("_./=:,+%@- ", c) != NULL);
}

/* A command the shell would only split on spaces, so it can be run directly. */
static int is_plain(const char *command)
{
	const char *p = command, *first;
	size_t len, i;

	for (; *p; p++)
		if (!plain_char(*p))
			return 0;
	first = command + strspn(command, " ");
	len = strcspn(first, " ");
	if (len == 0 || memchr(first, '=', len))
		return 0;
	for (i = 0; i < BG_ARRAY_SIZE(shell_words); i++)
		if (strlen(shell_words[i]) == len && !memcmp(shell_words[i], first, len))
			return 0;
	return 1;
}

/* Splits a plain command on spaces: *argv points into *words; both malloc'd. */
static int split_words(const char *command, char **words, char ***argv)
{
	size_t n = 0, max = strlen(command) / 2 + 2;
	char *p, *tok, *save = NULL;

	*argv = NULL;
	*words = strdup(command);
	if (!*words)
		return BG_ENOMEM;
	*argv = malloc(max * sizeof(char *));
	if (!*argv)
		return BG_ENOMEM;
	for (p = *words; (tok = strtok_r(p, " ", &save)) != NULL; p = NULL)
		(*argv)[n++] = tok;
	(*argv)[n] = NULL;
	return 0;
}

/*
 * environ plus the extra entries and `id` (EXEC_ID_VAR=...), in a malloc'd
 * array (*owned); an extra "K=V" replaces the inherited K, since getenv()
 * would find the inherited one first, and a bare "K" removes it.
 */
static char **build_env(const char *const *extra, char *id, char ***owned)
{
	size_t n = 0, m = 0, i, j, k = 0;
	char **envp;

	*owned = NULL;
	while (environ && environ[n])
		n++;
	while (extra && extra[m])
		m++;
	envp = malloc((n + m + 2) * sizeof(char *));
	if (!envp)
		return NULL;
	for (i = 0; i < n; i++) {
		size_t klen = strcspn(environ[i], "=");

		if (klen == strlen(EXEC_ID_VAR) && !strncmp(environ[i], EXEC_ID_VAR, klen))
			continue;
		for (j = 0; j < m; j++)
			if (!strncmp(extra[j], environ[i], klen) &&
			    (extra[j][klen] == '=' || !extra[j][klen]))
				break;
		if (j == m)
			envp[k++] = environ[i];
	}
	for (j = 0; j < m; j++)
		if (strchr(extra[j], '='))
			envp[k++] = (char *)extra[j];
	envp[k++] = id;
	envp[k] = NULL;
	*owned = envp;
	return envp;
}

/* ---------------------------------------------------------------- output */

typedef struct {
	char *out; /* stdout kept so far, up to limit */
	size_t out_len, out_cap, out_limit;
	int out_truncated;
	int out_tail; /* past the limit, keep the end of stdout rather than its start */
	int oom;
	char ring[BG_ERR_TAIL]; /* the last bytes of stderr, wrapping at pos */
	size_t ring_pos, ring_len;
	int ring_lost; /* stderr was longer than the ring: its start is gone */
} exec_io;

static void ring_put(exec_io *io, const char *p, size_t n)
{
	size_t first;

	if (io->ring_len + n > BG_ERR_TAIL)
		io->ring_lost = 1;
	if (n >= BG_ERR_TAIL) {
		p += n - BG_ERR_TAIL;
		n = BG_ERR_TAIL;
	}
	first = BG_ERR_TAIL - io->ring_pos;
	if (first > n)
		first = n;
	memcpy(io->ring + io->ring_pos, p, first);
	memcpy(io->ring, p + first, n - first);
	io->ring_pos = (io->ring_pos + n) % BG_ERR_TAIL;
	io->ring_len = io->ring_len + n > BG_ERR_TAIL ? BG_ERR_TAIL : io->ring_len + n;
}

/* Room for at least one more byte (and the NUL) below the limit. */
static int out_reserve(exec_io *io)
{
	size_t cap;
	char *p;

	if (io->out_cap > io->out_len + 1)
		return 0;
	cap = io->out_cap ? io->out_cap * 2 : 16384;
	if (io->out_limit < cap - 1)
		cap = io->out_limit + 1;
	p = realloc(io->out, cap);
	if (!p)
		return BG_ENOMEM;
	io->out = p;
	io->out_cap = cap;
	return 0;
}

/*
 * One read from a readable pipe (it is blocking, and poll said there is data
 * or EOF).  Returns 1 at EOF (or a read error, treated the same), else 0.
 * Past the limit, or out of memory, stdout is read and thrown away so the
 * child never blocks on a full pipe: what came last, or with out_tail what
 * came first (the older half of what is kept makes room for the rest).
 */
static int pipe_read(exec_io *io, int fd, int is_err)
{
	char scratch[16384];
	ssize_t n;

	for (;;) {
		if (!is_err && io->out_tail && !io->oom && io->out_len >= io->out_limit &&
		    io->out_limit >= 2) {
			size_t keep = io->out_limit / 2;

			memmove(io->out, io->out + io->out_len - keep, keep);
			io->out_len = keep;
			io->out_truncated = 1;
		}
		if (!is_err && !io->oom && io->out_len < io->out_limit) {
			size_t room;

			if (out_reserve(io) < 0) {
				io->oom = 1;
				continue;
			}
			room = io->out_cap - io->out_len - 1;
			if (room > io->out_limit - io->out_len)
				room = io->out_limit - io->out_len;
			n = read(fd, io->out + io->out_len, room);
			if (n > 0)
				io->out_len += (size_t)n;
		} else {
			n = read(fd, scratch, sizeof(scratch));
			if (n > 0 && is_err)
				ring_put(io, scratch, (size_t)n);
			else if (n > 0)
				io->out_truncated = 1;
		}
		if (n < 0 && errno == EINTR)
			continue;
		return n <= 0;
	}
}

/* Milliseconds to wait in poll() until `deadline` (0: none -> -1), rounded up. */
static int poll_ms(double deadline, double now)
{
	double ms;

	if (deadline <= 0)
		return -1;
	ms = ceil((deadline - now) * 1000.0);
	if (ms <= 0)
		return 0;
	return ms > 1e9 ? 1000000000 : (int)ms;
}

/* Reads whatever poll() reported on the pipes; a pipe at EOF is closed. */
static void pump(exec_io *io, struct pollfd *pfd)
{
	int i;

	for (i = 1; i <= 2; i++) {
		if (pfd[i].fd < 0 || !pfd[i].revents)
			continue;
		if (pipe_read(io, pfd[i].fd, i == 2)) {
			close(pfd[i].fd);
			pfd[i].fd = -1;
		}
	}
}

/* Has the child exited?  Without reaping it, so its pid (= the group id)
 * stays ours until the killpg after it. */
static int child_exited(pid_t pid)
{
	siginfo_t si;

	memset(&si, 0, sizeof(si));
	if (waitid(P_PID, (id_t)pid, &si, WEXITED | WNOHANG | WNOWAIT) < 0)
		return errno != EINTR;
	return si.si_pid != 0;
}

/* 1 when the child has exited within about SPIN_US microseconds. */
static int exit_soon(pid_t pid)
{
	double until = bg_now() + SPIN_US * 1e-6;

	do {
		if (child_exited(pid))
			return 1;
		sched_yield();
	} while (bg_now() < until);
	return 0;
}

static int open_pidfd(pid_t pid)
{
#ifdef SYS_pidfd_open
	return (int)syscall(SYS_pidfd_open, pid, 0);
#else
	(void)pid;
	errno = ENOSYS;
	return -1;
#endif
}

static void kill_child(pid_t pid)
{
	killpg(pid, SIGKILL);
	kill(pid, SIGKILL); /* in case it moved itself to another group */
}

/*
 * Waits for the child while reading its pipes; kills its group at the
 * deadline, or when the context is cancelled (returns 1 then).  pfd[0] is
 * the pidfd, or -1 when the kernel has none: then the child is polled for
 * with a growing interval instead.
 */
static int wait_child(bg_ctx *ctx, exec_io *io, pid_t pid, struct pollfd *pfd, double deadline,
                      bg_exec_result *out)
{
	int backoff = 1;

	for (;;) {
		int ms = poll_ms(deadline, bg_now()), n;

		if (bg_ctx_cancelled(ctx)) {
			kill_child(pid);
			return 1;
		}
		if (deadline > 0 && ms == 0) {
			kill_child(pid);
			out->timed_out = 1;
			return 0;
		}
		if (ms < 0 || ms > CANCEL_POLL_MS)
			ms = CANCEL_POLL_MS;
		if (pfd[0].fd < 0) {
			if (child_exited(pid))
				break;
			if (ms < 0 || ms > backoff)
				ms = backoff;
			if (backoff < 50)
				backoff *= 2;
		}
		n = poll(pfd, 3, ms);
		if (n < 0 && errno != EINTR) {
			/* Only ENOMEM is possible here: wait without poll for a while. */
			if (child_exited(pid))
				break;
			usleep(1000);
			continue;
		}
		if (n <= 0)
			continue;
		pump(io, pfd);
		if (pfd[0].fd >= 0 && pfd[0].revents)
			break;
		/* Its pipes closed: the child is exiting, most likely, and gone
		 * within microseconds.  Looking for a while costs less than a
		 * second sleep in poll() and its wake-up. */
		if (pfd[1].fd < 0 && pfd[2].fd < 0 && exit_soon(pid))
			break;
	}
	out->wall = bg_now();
	return 0;
}

/* Reads the pipes to EOF, for at most DRAIN_SECONDS.  1 if it gave up. */
static int drain(bg_ctx *ctx, exec_io *io, struct pollfd *pfd)
{
	double deadline = bg_now() + DRAIN_SECONDS;

	pfd[0].fd = -1;
	while (pfd[1].fd >= 0 || pfd[2].fd >= 0) {
		int ms = poll_ms(deadline, bg_now()), n;

		if (ms == 0 || bg_ctx_cancelled(ctx))
			return 1;
		if (ms > CANCEL_POLL_MS)
			ms = CANCEL_POLL_MS;
		n = poll(pfd, 3, ms);
		if (n < 0 && errno != EINTR)
			return 1;
		if (n > 0)
			pump(io, pfd);
	}
	return 0;
}

/* ----------------------------------------------------------------- spawn */

/*
 * What the child needs, all prepared before vfork(): the child shares our
 * memory until it execs, so it only makes system calls, writes into
 * path_buf and, when a step fails, sets err.
 */
typedef struct {
	char **argv;    /* a plain word list run directly, or NULL */
	char **sh_argv; /* sh -c command: a shell command, or argv not found */
	char **envp;
	const char *path; /* PATH to search for argv[0]; NULL: it has a '/' */
	char *path_buf;   /* room for the longest PATH entry, '/' and argv[0] */
	const char *log_path, *cwd;
	int out_fd, err_fd; /* the pipes' write ends; -1: /dev/null */
	pid_t parent;
	int null_fd;                 /* /dev/null read-write; -1: the child opens it */
	int status_fd;               /* /proc/self/status; -1: opened at each read */
	bg_counters *counters;       /* opened by the child on itself, or NULL */
	int no_shell;                /* wrapped (valgrind ...): never run the command bare */
	int one_thread;              /* this process has one thread: spawn reads the signals */
	uint64_t reset;              /* the signals the child puts back to default (bit n-1) */
	long hwm_kib;                /* our peak RSS as the child starts; -1: not read */
	volatile int err;            /* errno of the step that failed in the child */
	volatile int at_exec;        /* it was the last exec: the command cannot be run */
	const char *volatile failed; /* what failed, when it is not the exec */
} spawn_plan;

/* Puts fd `from` at `to`, leaving it open across exec. */
static int move_fd(int from, int to)
{
	if (from == to)
		return fcntl(to, F_SETFD, 0);
	return dup2(from, to) < 0 ? -1 : 0;
}

static int open_at(const char *path, int flags, int to)
{
	int fd = open(path, flags, 0666);

	if (fd < 0 || fd == to)
		return fd < 0 ? -1 : 0;
	if (dup2(fd, to) < 0)
		return -1;
	close(fd);
	return 0;
}

/* posix_spawnp's search: an errno of exec when nothing ran. */
static int exec_path(spawn_plan *sp)
{
	const char *p = sp->path, *end;
	size_t flen = strlen(sp->argv[0]);
	int eacces = 0;

	for (;; p = end + 1) {
		size_t len;

		end = strchrnul(p, ':');
		len = (size_t)(end - p);
		if (len == 0) {
			sp->path_buf[0] = '.';
			len = 1;
		} else {
			memcpy(sp->path_buf, p, len);
		}
		sp->path_buf[len] = '/';
		memcpy(sp->path_buf + len + 1, sp->argv[0], flen + 1);
		execve(sp->path_buf, sp->argv, sp->envp);
		if (errno == EACCES)
			eacces = 1;
		else if (errno != ENOENT && errno != ENOTDIR && errno != ESTALE &&
		         errno != ENODEV && errno != ETIMEDOUT)
			return errno;
		if (!*end)
			return eacces ? EACCES : ENOENT;
	}
}

static int hex_digit(char c)
{
	return c >= '0' && c <= '9' ? c - '0' : c >= 'a' && c <= 'f' ? c - 'a' + 10 : -1;
}

/*
 * The signals whose disposition is not the default, from the SigIgn and
 * SigCgt lines of /proc/self/status (bit n-1: signal n; /proc/self/stat
 * has them too, but without the real-time signals).  Read by the parent
 * with every signal blocked, and only when it has one thread: then nothing
 * can change a disposition before the vfork child, which gets a copy of
 * the table, resets those few.  That costs about 3 us per execution where
 * resetting all 64 in the child costs 12 on a VM, and reading the file in
 * the child 13 (a new pid's /proc entries are made on first use).  `fd` is
 * the file held open across a benchmark's executions (read again from its
 * start: the kernel writes it anew at offset 0), or -1 to open it here.
 * 0, or -1 when /proc cannot tell (then: all of them).  The same text
 * gives *hwm_kib, this process's peak RSS (VmHWM) as the command starts,
 * which the kernel hands on as the least the command's peak can read (-1
 * when it does not say).
 */
static int nondefault_signals(int fd, uint64_t *mask, long *hwm_kib)
{
	static const char *const keys[2] = { "\nSigIgn:", "\nSigCgt:" };
	const char *hwm;
	char buf[4096];
	uint64_t m = 0;
	ssize_t n = 0, got;
	int own = fd < 0, k;

	if (own && (fd = open("/proc/self/status", O_RDONLY | O_CLOEXEC)) < 0)
		return -1;
	while (n < (ssize_t)sizeof(buf) - 1 &&
	       (got = pread(fd, buf + n, sizeof(buf) - 1 - (size_t)n, n)) != 0) {
		if (got < 0 && errno == EINTR)
			continue;
		if (got < 0)
			break;
		n += got;
		/* The kernel makes the whole text at once: a short read is its end. */
		if ((size_t)got < sizeof(buf) - 1 - (size_t)(n - got))
			break;
	}
	if (own)
		close(fd);
	buf[n] = '\0';
	*hwm_kib = -1;
	if ((hwm = strstr(buf, "\nVmHWM:")) != NULL) {
		char *end;
		long kib = strtol(hwm + 7, &end, 10);

		if (end != hwm + 7 && kib >= 0 && !strncmp(end, " kB", 3))
			*hwm_kib = kib;
	}
	for (k = 0; k < 2; k++) {
		const char *p = strstr(buf, keys[k]);
		uint64_t x = 0;
		int digits = 0, d;

		if (!p)
			return -1;
		for (p += strlen(keys[k]); *p == '\t' || *p == ' '; p++)
			;
		/* Highest signal first; where there are more than 64 (MIPS),
		 * the shifts keep the low 64. */
		for (; (d = hex_digit(*p)) >= 0; p++, digits++)
			x = x << 4 | (uint64_t)d;
		if (!digits)
			return -1;
		m |= x;
	}
	*mask = m;
	return 0;
}

/*
 * The child between vfork() and exec.  Dispositions go back to default
 * first: a handler of the host must not run here, in the host's memory,
 * once signals are unblocked, and what the host ignores (SIGPIPE, SIGINT
 * under nohup) must not reach the benchmark.
 */
static _Noreturn void spawn_child(spawn_plan *sp)
{
	/* The kernel's struct sigaction for SIG_DFL, no flags, no mask: all
	 * zero, whatever the architecture's field order. */
	static const unsigned long dfl[8];
	sigset_t none;
	int sig, e;

	/* The system call, not sigaction(): glibc refuses its own two signals
	 * (32 and 33), which `make -j` hands down ignored, and a benchmark
	 * must not inherit that either. */
	for (sig = 1; sig < NSIG; sig++)
		if (sig != SIGKILL && sig != SIGSTOP && (sig > 64 || (sp->reset >> (sig - 1) & 1)))
			syscall(SYS_rt_sigaction, sig, dfl, NULL, (size_t)(NSIG - 1) / 8);
	if (setpgid(0, 0) < 0 ||
	    (sp->null_fd >= 0 ? move_fd(sp->null_fd, 0) : open_at("/dev/null", O_RDWR, 0)) < 0)
		goto fail;
	if (sp->log_path) {
		if (open_at(sp->log_path, O_WRONLY | O_CREAT | O_TRUNC | O_APPEND, 1) < 0 ||
		    move_fd(1, 2) < 0)
			goto fail;
	} else if (move_fd(sp->out_fd >= 0 ? sp->out_fd : 0, 1) < 0 || move_fd(sp->err_fd, 2) < 0) {
		goto fail;
	}
	if (sp->cwd && chdir(sp->cwd) < 0)
		goto fail;
	/*
	 * Killed when benchguard dies, even by SIGKILL.  The kernel sends this
	 * when the *thread* that forked exits, not the process: bg_exec's
	 * thread waits for the child, so for as long as the child lives that
	 * thread does.  If benchguard died before the prctl, nothing would
	 * send it: getppid() tells (we are an orphan then).  Only the command
	 * itself has it: exec of a set-user-ID program, and fork, drop it.
	 */
	if (prctl(PR_SET_PDEATHSIG, SIGKILL) < 0)
		goto fail;
	if (getppid() != sp->parent)
		_exit(127);
	/* Last before exec: counting starts at the exec, of what the command
	 * runs, not of this setup. */
	if (sp->counters && (e = bg_counters__child(sp->counters)) != 0) {
		sp->failed = "cannot open the counters";
		sp->err = e;
		_exit(127);
	}
	sigemptyset(&none);
	sigprocmask(SIG_SETMASK, &none, NULL);
	if (sp->argv) {
		if (sp->path) {
			e = exec_path(sp);
		} else {
			execve(sp->argv[0], sp->argv, sp->envp);
			e = errno;
		}
		/* Not found, not executable, a link loop, a binary still open
		 * for writing: the shell tries again and says so, with its
		 * 127/126, as for the same command written with shell syntax.
		 * The benchmark failed, not benchguard. */
		if (sp->no_shell) {
			sp->at_exec = 1;
			errno = e;
			goto fail;
		}
	}
	execve("/bin/sh", sp->sh_argv, sp->envp);
	sp->at_exec = 1;
fail:
	sp->err = errno ? errno : EINVAL;
	_exit(127);
}

/*
 * Starts the child (vfork: no copy of our memory, the cost of posix_spawn)
 * with every signal blocked until it has reset its dispositions.  The
 * pid, or -1 with errno when the child could not get to exec.  *start is
 * the clock just before the vfork: an execution's time begins there, not
 * before the dispositions are read (a few us of /proc text, and their
 * jitter, that are benchguard's and not the command's).
 */
static pid_t spawn(spawn_plan *sp, double *start)
{
	sigset_t all, old;
	pid_t pid;
	int e;

	sigfillset(&all);
	pthread_sigmask(SIG_BLOCK, &all, &old);
	sp->hwm_kib = -1;
	if (!sp->one_thread || nondefault_signals(sp->status_fd, &sp->reset, &sp->hwm_kib) < 0)
		sp->reset = ~(uint64_t)0;
	sp->err = 0;
	sp->at_exec = 0;
	sp->failed = NULL;
	*start = bg_now();
	pid = vfork();
	if (pid == 0)
		spawn_child(sp);
	e = pid < 0 ? errno : sp->err;
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	if (pid > 0 && e) {
		while (waitpid(pid, NULL, 0) < 0 && errno == EINTR)
			;
		pid = -1;
	}
	errno = e;
	return pid;
}

/* ------------------------------------------------------------- leftovers */

/*
 * What a command leaves running outside its process group (a daemon that
 * called setsid) is found through the child subreaper attribute: while a
 * command runs, benchguard is one, so such processes, once orphaned, become
 * its children rather than init's (or an outer subreaper's).  The library
 * may live inside a host with children and threads of its own, so:
 *  - the attribute is set only while a command runs (counted across
 *    threads) and then put back as it was;
 *  - a new child is taken for the command's only when the process had no
 *    other child and one thread as the command started (then all it can
 *    gain descends from the command), or when it is in the command's
 *    group, in a group of another such process, or carries this
 *    execution's EXEC_ID_VAR in its environment (as it was at its exec);
 *  - anything else is the host's: never signalled, never waited for; and
 *    what is ours is reaped by pid, so no status of the host's is taken.
 * The exceptions: a signal handler of a lone-threaded host that forks
 * while a command runs would have its child taken for the command's; and a
 * host that reaps children it does not know (waitpid(-1) in another thread,
 * SIGCHLD ignored) lets a pid be reused under us, as it already does with
 * the command's own.
 */
static pthread_mutex_t reaper_lock = PTHREAD_MUTEX_INITIALIZER;
static int reaper_users, reaper_was;
static unsigned long exec_serial;

typedef struct {
	pid_t *v;
	size_t n, cap;
} pid_list;

/* Becomes a subreaper for one execution; returns its serial number. */
static unsigned long reaper_enter(void)
{
	unsigned long serial;
	int was = 0;

	pthread_mutex_lock(&reaper_lock);
	if (reaper_users++ == 0) {
		/* Unknown (a kernel before 3.4): leave it alone. */
		if (prctl(PR_GET_CHILD_SUBREAPER, (unsigned long)&was) < 0)
			was = -1;
		reaper_was = was;
		if (!was)
			prctl(PR_SET_CHILD_SUBREAPER, 1UL);
	}
	serial = ++exec_serial;
	pthread_mutex_unlock(&reaper_lock);
	return serial;
}

static void reaper_leave(void)
{
	pthread_mutex_lock(&reaper_lock);
	if (--reaper_users == 0 && !reaper_was)
		prctl(PR_SET_CHILD_SUBREAPER, 0UL);
	pthread_mutex_unlock(&reaper_lock);
}

static int pids_add(pid_list *l, pid_t pid)
{
	if (bg_grow((void **)&l->v, &l->cap, l->n, sizeof(pid_t)) < 0)
		return BG_ENOMEM;
	l->v[l->n++] = pid;
	return 0;
}

static int pids_has(const pid_list *l, pid_t pid)
{
	size_t i;

	for (i = 0; i < l->n; i++)
		if (l->v[i] == pid)
			return 1;
	return 0;
}

/* Adds the numbers of an open /proc "children" file, read from its start
 * (the kernel lists the children again at offset 0).  A read that leaves
 * room for more than one more "pid " is the last: the kernel fills what it
 * is given, so the second read that would say so is saved. */
static int read_pids_fd(int fd, pid_list *l)
{
	char buf[4096];
	long v = -1;
	off_t at = 0;
	ssize_t n, i;
	int rc = 0;

	while (rc == 0 && (n = pread(fd, buf, sizeof(buf), at)) != 0) {
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			break;
		at += n;
		for (i = 0; i < n && rc == 0; i++) {
			if (buf[i] >= '0' && buf[i] <= '9' && v < 100000000)
				v = (v < 0 ? 0 : v * 10) + (buf[i] - '0');
			else if (v >= 0) {
				rc = pids_add(l, (pid_t)v);
				v = -1;
			}
		}
		if (n < (ssize_t)sizeof(buf) - 32)
			break;
	}
	if (rc == 0 && v >= 0)
		rc = pids_add(l, (pid_t)v);
	return rc;
}

/* The same by path; 1 when it cannot be opened. */
static int read_pids(const char *path, pid_list *l)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC), rc;

	if (fd < 0)
		return 1;
	rc = read_pids_fd(fd, l);
	close(fd);
	return rc;
}

/*
 * /proc/self/task, this thread's children file, /proc/self/status and
 * /dev/null, held open across the executions of a benchmark: looking the
 * paths up at every execution cost more than reading them.  -1: not open
 * (then the task folder is walked, and the others opened when needed).
 */
typedef struct {
	int task_fd, children_fd, status_fd, null_fd;
	pid_t tid; /* the thread children_fd lists */
} proc_view;

#define PROC_VIEW_INIT                                                                             \
	{                                                                                          \
		-1, -1, -1, -1, 0                                                                  \
	}

static void proc_view_open(proc_view *pv)
{
	char path[64];

	pv->tid = gettid();
	snprintf(path, sizeof(path), "/proc/self/task/%d/children", (int)pv->tid);
	pv->task_fd = open("/proc/self/task", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	pv->children_fd = open(path, O_RDONLY | O_CLOEXEC);
	pv->status_fd = open("/proc/self/status", O_RDONLY | O_CLOEXEC);
	pv->null_fd = open("/dev/null", O_RDWR | O_CLOEXEC);
}

static void proc_view_close(proc_view *pv)
{
	int *fds[4] = { &pv->task_fd, &pv->children_fd, &pv->status_fd, &pv->null_fd };
	size_t i;

	for (i = 0; i < 4; i++) {
		if (*fds[i] >= 0)
			close(*fds[i]);
		*fds[i] = -1;
	}
}

/* State, parent and process group of pid from /proc/<pid>/stat; -1: gone. */
static int proc_stat(pid_t pid, char *state, pid_t *ppid, pid_t *pgrp)
{
	char path[64], buf[1024], *p;
	int fd, pp, pg;
	ssize_t n;

	snprintf(path, sizeof(path), "/proc/%d/stat", (int)pid);
	if ((fd = open(path, O_RDONLY | O_CLOEXEC)) < 0)
		return -1;
	n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	if (n <= 0)
		return -1;
	buf[n] = '\0';
	/* After the command name, which may hold anything, ')' included. */
	p = strrchr(buf, ')');
	if (!p || sscanf(p + 1, " %c %d %d", state, &pp, &pg) != 3)
		return -1;
	*ppid = (pid_t)pp;
	*pgrp = (pid_t)pg;
	return 0;
}

/* Without CONFIG_PROC_CHILDREN: every process whose parent we are. */
static int scan_children(pid_list *l)
{
	DIR *d = opendir("/proc");
	struct dirent *e;
	pid_t self = getpid(), ppid, pgrp;
	char state;
	int rc = 0;

	if (!d)
		return BG_ERROR;
	while (rc == 0 && (e = readdir(d)) != NULL) {
		pid_t pid = (pid_t)atoi(e->d_name);

		if (pid > 0 && proc_stat(pid, &state, &ppid, &pgrp) == 0 && ppid == self)
			rc = pids_add(l, pid);
	}
	closedir(d);
	return rc;
}

/*
 * This process's children, from /proc/self/task/<tid>/children (a child
 * is listed under the thread that forked it, an orphan under the one that
 * took it), and how many threads it has.  0; BG_ENOMEM; BG_ERROR when /proc
 * cannot tell.
 */
static int list_children(const proc_view *pv, pid_list *l, int *threads)
{
	char path[64];
	struct dirent *e;
	DIR *d;
	pid_t self = gettid();
	int rc = 0, nt = 0, scan = 0;
	struct stat st;

	l->n = 0;
	/* One thread (a task folder's link count is 2 + its threads): its
	 * children file alone, without the walk, twice per execution. */
	if (pv->task_fd >= 0 && pv->children_fd >= 0 && pv->tid == self &&
	    fstat(pv->task_fd, &st) == 0 && st.st_nlink == 3) {
		if (threads)
			*threads = 1;
		return read_pids_fd(pv->children_fd, l);
	}
	d = opendir("/proc/self/task");
	if (!d)
		return BG_ERROR;
	while (rc == 0 && (e = readdir(d)) != NULL) {
		pid_t tid = (pid_t)atoi(e->d_name);

		if (tid <= 0)
			continue;
		nt++;
		if (scan)
			continue;
		snprintf(path, sizeof(path), "/proc/self/task/%d/children", (int)tid);
		/* Missing for another thread: it just ended.  For ours: no such file. */
		if ((rc = read_pids(path, l)) == 1) {
			scan = tid == self;
			rc = 0;
		}
	}
	closedir(d);
	if (rc == 0 && scan) {
		l->n = 0;
		rc = scan_children(l);
	}
	if (threads)
		*threads = nt;
	return rc;
}

/* Does pid's environment, as it was at its exec, hold the entry `id`? */
static int has_id(pid_t pid, const char *id)
{
	char path[64], buf[4096];
	size_t len = strlen(id);
	long at = 0; /* bytes of id matched in this entry; -1: not this one */
	ssize_t n, i;
	int fd, found = 0;

	snprintf(path, sizeof(path), "/proc/%d/environ", (int)pid);
	if ((fd = open(path, O_RDONLY | O_CLOEXEC)) < 0)
		return 0;
	while (!found && (n = read(fd, buf, sizeof(buf))) != 0) {
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			break;
		for (i = 0; i < n && !found; i++) {
			if (buf[i] == '\0') {
				found = at == (long)len;
				at = 0;
			} else if (at >= 0 && (size_t)at < len && buf[i] == id[at]) {
				at++;
			} else {
				at = -1;
			}
		}
	}
	close(fd);
	return found || at == (long)len;
}

/*
 * Kills what the command `child` left that came back to us and reaps it:
 * the group a leftover leads first (a daemon leads its own), then the
 * process.  A killed process hands its children to us as it exits, so this
 * goes on until a round finds nothing of ours.  `child` must be a zombie
 * not yet reaped: its children are ours by then, and its pid keeps its
 * group id from being reused.  *killed counts the live processes outside
 * its group (the group is killed anyway, as the README says).
 */
static int reap_leftovers(bg_ctx *ctx, const proc_view *pv, pid_t child, const pid_list *before,
                          int exclusive, const char *id, int *killed)
{
	pid_list now = { 0 }, ours = { 0 }, groups = { 0 };
	pid_t self = getpid(), own_group = getpgrp();
	int error = 0, round;
	size_t i;

	for (round = 0; round < MAX_REAP_ROUNDS && error == 0; round++) {
		if (list_children(pv, &now, NULL) < 0)
			break;
		ours.n = 0;
		for (i = 0; i < now.n && error == 0; i++) {
			pid_t pid = now.v[i], ppid, pgrp;
			char state;

			if (pid == child || pids_has(before, pid) ||
			    proc_stat(pid, &state, &ppid, &pgrp) < 0 || ppid != self)
				continue;
			if (!exclusive && pgrp != child && !pids_has(&groups, pgrp) &&
			    (state == 'Z' || !has_id(pid, id)))
				continue;
			error = pids_add(&ours, pid);
			if (!error && pgrp != child && pgrp != own_group &&
			    !pids_has(&groups, pgrp))
				error = pids_add(&groups, pgrp);
			if (state == 'Z')
				continue;
			if (pgrp == pid)
				killpg(pid, SIGKILL);
			kill(pid, SIGKILL);
			if (pgrp != child)
				++*killed;
		}
		for (i = 0; i < ours.n; i++)
			while (waitpid(ours.v[i], NULL, 0) < 0 && errno == EINTR)
				;
		if (ours.n == 0)
			break;
	}
	free(now.v);
	free(ours.v);
	free(groups.v);
	return error < 0 ? bg_error_oom(ctx) : 0;
}

/* ------------------------------------------------------------------ exec */

/* Waits until the child has exited, leaving it a zombie. */
static void wait_exited(pid_t pid)
{
	siginfo_t si;

	memset(&si, 0, sizeof(si));
	while (waitid(P_PID, (id_t)pid, &si, WEXITED | WNOWAIT) < 0 && errno == EINTR)
		;
}

/* bg_exec, saying how many processes left outside the group were killed. */
/* What an instrument adds to an execution (bg_runner_run's; bg_exec has none). */
typedef struct {
	const char *const *wrap; /* words run before the command: valgrind ... */
	bg_counters *counters;   /* opened on the command, read once it is gone */
	double *values;          /* the counters' values, bg_counters__count() of them */
	const proc_view *proc;   /* /proc held open by the caller; NULL: opened per execution */
	long *hwm_kib;           /* set to our peak RSS as the command started (-1: unknown) */
	int out_tail;            /* keep the end of stdout past its limit (bg_exec__tail) */
	pid_t *pid;              /* set to the command's pid once it started */
} exec_extra;

static int exec_run(bg_ctx *ctx, const char *command, const bg_exec_opts *opts, const exec_extra *x,
                    bg_exec_result *out, int *killed)
{
	static const bg_exec_opts no_opts = { NULL, 0.0, 0, 0, NULL, NULL };
	spawn_plan sp;
	int outp[2] = { -1, -1 }, errp[2] = { -1, -1 }, status = 0, rc, error = 0, reaping = 0,
	    threads = 0, exclusive = 0, proc_ok = 0;
	char *words = NULL, **argv = NULL, **env_owned = NULL, *path_buf = NULL, **wrapped = NULL;
	char *sh_argv[] = { "sh", "-c", (char *)command, NULL };
	char *bin_sh[] = { "/bin/sh", "-c", (char *)command, NULL };
	char id[64];
	struct pollfd pfd[3];
	struct rusage ru;
	exec_io *io = NULL;
	pid_list before = { 0 };
	proc_view own = PROC_VIEW_INIT;
	const proc_view *pv = x && x->proc ? x->proc : &own;
	double start, deadline;
	pid_t pid = -1;
	int cancelled;

	memset(out, 0, sizeof(*out));
	memset(&sp, 0, sizeof(sp));
	*killed = 0;
	if (!opts)
		opts = &no_opts;
	if (bg_ctx_cancelled(ctx))
		return bg_error_set(ctx, BG_ERROR, "interrupted");
	io = calloc(1, sizeof(*io));
	if (!io || (is_plain(command) && split_words(command, &words, &argv) < 0))
		goto oom;
	if (x && x->wrap) {
		/* wrap + the command's words, or wrap + /bin/sh -c command. */
		char **tail = argv ? argv : bin_sh;
		size_t nw = 0, nt = 0;

		while (x->wrap[nw])
			nw++;
		while (tail[nt])
			nt++;
		if (!(wrapped = malloc((nw + nt + 1) * sizeof(char *))))
			goto oom;
		memcpy(wrapped, x->wrap, nw * sizeof(char *));
		memcpy(wrapped + nw, tail, (nt + 1) * sizeof(char *));
		free(argv);
		argv = wrapped;
		wrapped = NULL;
		sp.no_shell = 1;
	}
	if (argv && !strchr(argv[0], '/')) {
		sp.path = getenv("PATH");
		if (!sp.path)
			sp.path = "/bin:/usr/bin"; /* glibc's default */
		if (!(path_buf = malloc(strlen(sp.path) + strlen(argv[0]) + 3)))
			goto oom;
	}
	io->out_limit = opts->out_limit ? opts->out_limit : DEFAULT_OUT_LIMIT;
	io->out_tail = x && x->out_tail;
	if (pipe2(errp, O_CLOEXEC) < 0 ||
	    (opts->capture_stdout && !opts->log_path && pipe2(outp, O_CLOEXEC) < 0)) {
		error = bg_error_errno(ctx, BG_ERROR, "cannot create a pipe to run \"%s\"",
		                       command);
		goto cleanup;
	}

	/* Fixed width, so that the environment's size (which moves the
	 * benchmark's stack) is the same at every execution. */
	/* Before the environment: it names the fd the counters' leader takes. */
	if (x && x->counters && (error = bg_counters__prepare(ctx, x->counters)) < 0)
		goto cleanup;
	snprintf(id, sizeof(id), EXEC_ID_VAR "=%08x%016lx", (unsigned)getpid(), reaper_enter());
	reaping = 1;
	if (!build_env(opts->env, id, &env_owned))
		goto oom;
	/* A single execution (bg_exec) opens /proc for itself. */
	if (pv == &own)
		proc_view_open(&own);
	rc = list_children(pv, &before, &threads);
	if (rc == BG_ENOMEM)
		goto oom;
	proc_ok = rc == 0;
	exclusive = proc_ok && before.n == 0 && threads == 1;

	sp.argv = argv;
	sp.sh_argv = sh_argv;
	sp.envp = env_owned;
	sp.path_buf = path_buf;
	sp.log_path = opts->log_path;
	sp.cwd = opts->cwd;
	sp.out_fd = outp[1];
	sp.err_fd = errp[1];
	sp.parent = getpid();
	sp.counters = x ? x->counters : NULL;
	sp.one_thread = proc_ok && threads == 1;
	sp.status_fd = pv->status_fd;
	sp.null_fd = pv->null_fd;
	pid = spawn(&sp, &start);
	if (x && x->hwm_kib)
		*x->hwm_kib = sp.hwm_kib;
	if (x && x->pid)
		*x->pid = pid;
	if (pid < 0 && sp.at_exec) {
		/*
		 * Even the shell could not be started with this command: an
		 * argument list past the kernel's limit (E2BIG), no memory for
		 * it.  The command cannot run, as one the shell cannot find or
		 * execute: the benchmark fails, with the shell's 126, and the
		 * others still run.  The command itself is not repeated: it may
		 * be what is too long.
		 */
		out->exited = 1;
		out->exit_status = 126;
		out->wall = 0;
		if (!(out->err_tail = bg_printf("benchguard: cannot execute the command: %s",
		                                strerror(errno))))
			goto oom;
		out->err_len = strlen(out->err_tail);
		goto cleanup;
	}
	if (pid < 0) {
		if (sp.failed)
			error = bg_error_errno(ctx, BG_ERROR, "\"%s\": %s", command, sp.failed);
		else
			error = bg_error_errno(ctx, BG_ERROR, "cannot run \"%s\"%s%s", command,
			                       opts->cwd ? " in " : "", opts->cwd ? opts->cwd : "");
		goto cleanup;
	}
	if (x && x->counters && (error = bg_counters__receive(ctx, x->counters)) < 0) {
		kill_child(pid);
		wait_exited(pid);
		while (waitpid(pid, NULL, 0) < 0 && errno == EINTR)
			;
		reaper_leave();
		reaping = 0;
		goto cleanup;
	}
	/* No pidfd (old kernel, seccomp, no fds left): wait_child polls instead. */
	pfd[0].fd = open_pidfd(pid);
	/*
	 * With a pidfd, the pipes' write ends stay open here until the child
	 * has exited: otherwise its exit wakes us twice, once when it closes
	 * its files and again when it is gone, a few microseconds apart (a
	 * context switch per execution, 3 instead of 2).  Its output is read
	 * as it comes all the same, and to its end once the child is gone.
	 */
	if (pfd[0].fd < 0) {
		close(errp[1]);
		errp[1] = -1;
		if (outp[1] >= 0) {
			close(outp[1]);
			outp[1] = -1;
		}
	}
	pfd[1].fd = outp[0];
	pfd[2].fd = errp[0];
	outp[0] = errp[0] = -1;
	pfd[0].events = pfd[1].events = pfd[2].events = POLLIN;
	deadline = opts->timeout > 0 ? start + opts->timeout : 0;
	cancelled = wait_child(ctx, io, pid, pfd, deadline, out);
	if (errp[1] >= 0) {
		close(errp[1]);
		errp[1] = -1;
	}
	if (outp[1] >= 0) {
		close(outp[1]);
		outp[1] = -1;
	}
	/* The child is a zombie still holding its pid, so the group id cannot
	 * have been reused: kill whatever it left running. */
	killpg(pid, SIGKILL);
	wait_exited(pid);
	if (proc_ok)
		error = reap_leftovers(ctx, pv, pid, &before, exclusive, id, killed);
	reaper_leave();
	reaping = 0;
	memset(&ru, 0, sizeof(ru));
	while ((rc = (int)wait4(pid, &status, 0, &ru)) < 0 && errno == EINTR)
		;
	if (rc < 0 && !error) /* ECHILD: the host ignores SIGCHLD, so nothing is known */
		error = bg_error_errno(ctx, BG_ERROR, "cannot wait for \"%s\"", command);
	/* Cancelled as the command ended: wait_child saw it gone before the
	 * flag.  The signal that cancels us may have killed the command too
	 * (systemd and CI runners signal the whole tree at once): its end then
	 * says nothing of the benchmark, or of a build that would be
	 * remembered as broken. */
	if (bg_ctx_cancelled(ctx))
		cancelled = 1;
	if (out->timed_out)
		out->wall = bg_now();
	out->wall -= start;
	if (pfd[0].fd >= 0)
		close(pfd[0].fd);
	if (drain(ctx, io, pfd) && !cancelled)
		bg_log(ctx, BG_LOG_WARN,
		       "\"%s\": a process that left its group still holds its output; "
		       "stopped reading it",
		       command);
	if (pfd[1].fd >= 0)
		close(pfd[1].fd);
	if (pfd[2].fd >= 0)
		close(pfd[2].fd);

	if (WIFEXITED(status)) {
		out->exited = 1;
		out->exit_status = WEXITSTATUS(status);
	} else if (WIFSIGNALED(status)) {
		out->signaled = 1;
		out->term_signal = WTERMSIG(status);
	}
	out->user = (double)ru.ru_utime.tv_sec + (double)ru.ru_utime.tv_usec * 1e-6;
	out->sys = (double)ru.ru_stime.tv_sec + (double)ru.ru_stime.tv_usec * 1e-6;
	/* Linux keeps the high-water mark of the address space left at exec,
	 * and the vfork child leaves ours: this is max(our RSS at spawn, the
	 * command's peak).  Exact for commands bigger than benchguard. */
	out->maxrss_kib = ru.ru_maxrss;
	out->out_truncated = io->out_truncated;
	/* Every process of the tree is gone: the kernel has summed them. */
	if (x && x->counters && !error &&
	    (error = bg_counters__read(ctx, x->counters, x->values)) < 0)
		goto cleanup;

	if (cancelled)
		error = bg_error_set(ctx, BG_ERROR, "interrupted");
	if (error < 0)
		goto cleanup;
	if (io->oom)
		goto oom;
	if (opts->capture_stdout && !opts->log_path) {
		if (!io->out && out_reserve(io) < 0)
			goto oom;
		io->out[io->out_len] = '\0';
		out->out = io->out;
		out->out_len = io->out_len;
		io->out = NULL;
	}
	out->err_tail = malloc(io->ring_len + 1);
	if (!out->err_tail)
		goto oom;
	if (io->ring_len < BG_ERR_TAIL) {
		memcpy(out->err_tail, io->ring, io->ring_len);
	} else {
		memcpy(out->err_tail, io->ring + io->ring_pos, BG_ERR_TAIL - io->ring_pos);
		memcpy(out->err_tail + BG_ERR_TAIL - io->ring_pos, io->ring, io->ring_pos);
	}
	out->err_len = io->ring_len;
	out->err_tail[out->err_len] = '\0';
	/* What the command printed may hold a secret of the alert targets (a
	 * `set -x` of a curl with the token): replaced here, before it is
	 * parsed, cut into a message, printed, stored or posted, so that no
	 * part of one is left anywhere.  A tail may start inside one. */
	if (bg_ctx__scrub(ctx, &out->out, &out->out_len,
	                  !io->out_truncated ? 0
	                  : io->out_tail     ? BG_SCRUB_CUT_START
	                                     : BG_SCRUB_CUT_END) < 0 ||
	    bg_ctx__scrub(ctx, &out->err_tail, &out->err_len,
	                  io->ring_lost ? BG_SCRUB_CUT_START : 0) < 0)
		goto oom;
	goto cleanup;

oom:
	error = bg_error_oom(ctx);
cleanup:
	if (reaping)
		reaper_leave();
	proc_view_close(&own);
	if (x && x->counters)
		bg_counters__done(x->counters);
	if (error < 0)
		bg_exec_result_clear(out);
	if (outp[0] >= 0)
		close(outp[0]);
	if (outp[1] >= 0)
		close(outp[1]);
	if (errp[0] >= 0)
		close(errp[0]);
	if (errp[1] >= 0)
		close(errp[1]);
	if (io)
		free(io->out);
	free(io);
	free(before.v);
	free(env_owned);
	free(path_buf);
	free(argv);
	free(wrapped);
	free(words);
	return error;
}

/* One command run on its own, saying so when it left processes behind. */
static int exec_alone(bg_ctx *ctx, const char *command, const bg_exec_opts *opts,
                      const exec_extra *x, bg_exec_result *out)
{
	int killed = 0, rc = exec_run(ctx, command, opts, x, out, &killed);

	if (killed)
		bg_log(ctx, BG_LOG_WARN, "\"%s\": killed %d process%s it left running (a daemon?)",
		       command, killed, killed == 1 ? "" : "es");
	return rc;
}

int bg_exec__git_fence(const char *cwd, char *fence, size_t size)
{
	char path[PATH_MAX], *slash, real[PATH_MAX];
	const char *old = getenv("GIT_CEILING_DIRECTORIES");
	struct stat sb;
	int n;

	if (!cwd || !realpath(cwd, real))
		return 0;
	n = snprintf(path, sizeof(path), "%s/.git", real);
	if (n < 0 || (size_t)n >= sizeof(path) || lstat(path, &sb) == 0)
		return 0;
	if ((slash = strrchr(real, '/')) == NULL || slash == real)
		return 0;
	*slash = '\0';
	n = snprintf(fence, size, "GIT_CEILING_DIRECTORIES=%s%s%s", real, old && *old ? ":" : "",
	             old && *old ? old : "");
	return n > 0 && (size_t)n < size;
}

int bg_exec(bg_ctx *ctx, const char *command, const bg_exec_opts *opts, bg_exec_result *out)
{
	BG_NEED(ctx, command);
	BG_NEED(ctx, out);
	return exec_alone(ctx, command, opts, NULL, out);
}

int bg_exec__tail(bg_ctx *ctx, const char *command, const bg_exec_opts *opts, bg_exec_result *out)
{
	exec_extra x = { .out_tail = 1 };

	return exec_alone(ctx, command, opts, &x, out);
}

void bg_exec_result_clear(bg_exec_result *res)
{
	if (!res)
		return;
	free(res->out);
	free(res->err_tail);
	memset(res, 0, sizeof(*res));
}

char *bg_exec_describe(const bg_exec_result *res, double timeout)
{
	bg_buf b = BG_BUF_INIT;
	int rc;

	if (!res)
		return NULL;

	if (res->timed_out)
		rc = bg_buf_printf(&b, "timed out after %g s", timeout > 0 ? timeout : res->wall);
	else if (res->signaled)
		rc = bg_buf_printf(&b, "killed by signal %d (%s)", res->term_signal,
		                   strsignal(res->term_signal));
	else if (res->exited)
		rc = bg_buf_printf(&b, "exit status %d", res->exit_status);
	else
		rc = bg_buf_puts(&b, "did not run");
	if (rc < 0) {
		bg_buf_clear(&b);
		return NULL;
	}
	return bg_buf_detach(&b);
}

/* ---------------------------------------------------------------- requires */

/* `path` as the commands' shell finds it: a relative one from `cwd` (NULL:
 * the current directory), where the commands run. */
static int is_executable(const char *cwd, const char *path)
{
	struct stat st;
	char *full = NULL;
	int ok;

	if (cwd && path[0] != '/') {
		bg_buf b = BG_BUF_INIT;

		if (bg_buf_printf(&b, "%s/%s", cwd, path) < 0 || !(full = bg_buf_detach(&b))) {
			bg_buf_clear(&b);
			return 0;
		}
		path = full;
	}
	ok = stat(path, &st) == 0 && S_ISREG(st.st_mode) && access(path, X_OK) == 0;
	free(full);
	return ok;
}

/* Like the shell's lookup from `cwd`: a name with a '/' is a path, else
 * each PATH entry ("" meaning the current directory) is tried. */
static int command_exists(const char *cwd, const char *name)
{
	const char *path = getenv("PATH"), *p, *end;
	size_t nlen = strlen(name);
	char *buf;
	int found = 0;

	if (!*name)
		return 0;
	if (strchr(name, '/'))
		return is_executable(cwd, name);
	if (!path)
		path = "/usr/local/bin:/usr/bin:/bin";
	buf = malloc(strlen(path) + nlen + 3);
	if (!buf)
		return 0;
	for (p = path; !found; p = end + 1) {
		size_t dlen;

		end = strchr(p, ':');
		if (!end)
			end = p + strlen(p);
		dlen = (size_t)(end - p);
		if (dlen == 0) {
			buf[0] = '.';
			dlen = 1;
		} else {
			memcpy(buf, p, dlen);
		}
		buf[dlen] = '/';
		memcpy(buf + dlen + 1, name, nlen + 1);
		found = is_executable(cwd, buf);
		if (!*end)
			break;
	}
	free(buf);
	return found;
}

/* A requirement met where the commands run: a relative path (./tool.sh,
 * made by the build) is looked for in `cwd`, not where benchguard started. */
static int requirement_met_in(const char *cwd, const char *req, char **why)
{
	char *reason = NULL;
	int met;

	if (why)
		*why = NULL;
	if (!req)
		return 0;

	if (!strcmp(req, "cuda")) {
		met = bg_gpu_cuda_usable(&reason);
		if (met < 0)
			met = 0;
	} else {
		met = command_exists(cwd, req);
		if (!met) {
			bg_buf b = BG_BUF_INIT;

			if (bg_buf_printf(&b, "command \"%s\" not found", req) == 0)
				reason = bg_buf_detach(&b);
			bg_buf_clear(&b);
		}
	}
	if (why)
		*why = reason;
	else
		free(reason);
	return met;
}

int bg_runner_requirement_met(const char *req, char **why)
{
	return requirement_met_in(NULL, req, why);
}

/* ------------------------------------------------------------------ runner */

static int exec_failed(const bg_exec_result *r)
{
	return r->timed_out || !r->exited || r->exit_status != 0;
}

/*
 * "<what happened>; stderr: <last lines>": the end of stderr on one line,
 * whole lines of it that fit in MESSAGE_TAIL bytes once each newline is
 * " | " (or the last MESSAGE_TAIL bytes of a longer last line).
 */
static char *failure_message(const bg_exec_result *r, double timeout)
{
	bg_buf b = BG_BUF_INIT;
	char *desc = bg_exec_describe(r, timeout);
	const char *t = r->err_tail;
	size_t end = r->err_len, start, i, cost;
	int rc, sep = 0;

	if (!desc)
		return NULL;
	rc = bg_buf_puts(&b, desc);
	free(desc);
	while (t && end > 0 && strchr(" \t\r\n", t[end - 1]) && t[end - 1] != '\0')
		end--;
	for (start = end, cost = 0; start > 0; start--) {
		cost += t[start - 1] == '\n' ? 3 : 1;
		if (cost > MESSAGE_TAIL)
			break;
	}
	if (start > 0) {
		const char *nl = memchr(t + start, '\n', end - start);
		if (nl)
			start = (size_t)(nl - t) + 1;
		start = bg_text__char_next(t, start, end); /* no half UTF-8 character */
	}
	while (start < end && (t[start] == '\n' || t[start] == '\r'))
		start++;
	if (start < end && rc == 0)
		rc = bg_buf_puts(&b, "; stderr: ");
	for (i = start; i < end && rc == 0; i++) {
		char c = t[i];

		if (c == '\n' || c == '\r') {
			sep = 1;
			continue;
		}
		if (sep)
			rc = bg_buf_puts(&b, " | ");
		sep = 0;
		if (rc == 0)
			rc = bg_buf_put(&b, (c >= 0 && c < ' ' && c != '\t') ? " " : &t[i], 1);
	}
	if (rc < 0) {
		bg_buf_clear(&b);
		return NULL;
	}
	return bg_buf_detach(&b);
}

static int record_failure(bg_ctx *ctx, const bg_benchmark *bench, bg_results *into,
                          const char *message)
{
	bg_results_drop_benchmark(into, bench->name);
	if (!message)
		return bg_error_oom(ctx);
	return bg_results_set_outcome(ctx, into, bench->name, BG_BENCH_FAILED, message);
}

/* Direction overrides, on this benchmark's series: those named after it and
 * those the parser created from index `first` on (gbench's "<name>/<x>"). */
static void apply_overrides(const bg_benchmark *bench, bg_results *into, size_t first)
{
	size_t i, j, n = bg_results_series_count(into);

	for (i = 0; i < n; i++) {
		const bg_series *s = bg_results_series(into, i);

		if (i < first && strcmp(s->benchmark, bench->name) != 0)
			continue;
		for (j = 0; j < bench->nmetrics; j++)
			if (!strcmp(bench->metrics[j].metric, s->metric))
				bg_results_set_direction(into, s->benchmark, s->metric,
				                         bench->metrics[j].direction);
	}
}

static int add_time_samples(bg_ctx *ctx, const bg_benchmark *bench, bg_results *into,
                            const bg_exec_result *r)
{
	int rc = bg_results_add(ctx, into, bench->name, "wall_time", "s", r->wall);

	if (rc == 0)
		rc = bg_results_add(ctx, into, bench->name, "cpu_time", "s", r->user + r->sys);
	return rc;
}

/* This process's peak resident set (VmHWM) in KiB, or 0 if unknown. */
static long own_peak_kib(void)
{
	char line[256];
	long kib = 0;
	FILE *f = fopen("/proc/self/status", "re");

	if (!f)
		return 0;
	while (fgets(line, sizeof(line), f))
		if (sscanf(line, "VmHWM: %ld kB", &kib) == 1)
			break;
	fclose(f);
	return kib;
}

/*
 * Lowers this process's peak RSS to its current RSS (Linux >= 4.0), so that
 * the floor below is benchguard's footprint now, not the high-water mark of
 * an earlier benchmark's captured output.  Best effort: it only resets a
 * statistic.
 */
static void reset_own_peak(void)
{
	int fd = open("/proc/self/clear_refs", O_WRONLY | O_CLOEXEC);

	if (fd < 0)
		return;
	if (write(fd, "5", 1) < 0) {
		/* Not permitted or not supported: the floor just stays higher. */
	}
	close(fd);
}

/*
 * How far apart two of the kernel's readings of one process's resident
 * pages may be, in KiB, with nothing changed: since Linux 6.2 the count is a
 * per-CPU counter, read without the changes each CPU still holds, up to a
 * batch of max(32, 2 x CPUs) pages each; before, each task held up to 64.
 * A reading is off by less than that either way, two readings by less than
 * twice it: 512 KiB on 2 CPUs, 2 MiB on 8, 64 MiB on 64.
 */
long bg_runner__rss_slack_kib(long cpus, long page_kib)
{
	long batch, pages;

	if (cpus < 1)
		cpus = 1;
	if (page_kib < 1)
		page_kib = 4;
	batch = cpus * 2 > 32 ? cpus * 2 : 32;
	pages = cpus * batch > 64 ? cpus * batch : 64;
	return 2 * pages * page_kib;
}

/*
 * Linux carries the spawning process's peak RSS over exec into the child's
 * ru_maxrss, so wait4 reports max(benchmark's peak, benchguard's peak).  A
 * value at or below benchguard's own peak says nothing about the benchmark
 * and would move whenever benchguard's memory does (a false alarm later):
 * the series is kept only when every sample is above that floor, by more
 * than the kernel's readings can differ (bg_runner__rss_slack_kib).  The
 * floor of sample i is the larger of `floor_kib` (benchguard's peak once
 * the executions are over) and own_kib[i] (its peak read just before that
 * execution; -1 or own_kib NULL: not read): the peak the kernel reports
 * afterwards can be the lower one, since it is the count of the moment
 * unless memory was unmapped since, and the kernel may have taken pages
 * back.  Without both, a small benchmark's peak_rss (benchguard's own) was
 * kept now and then, in some runs only.  The first sample not above its
 * floor, or -1.
 */
/* Sample i's floor: the larger of floor_kib and own_kib[i] when read. */
static long rss_floor(const long *own_kib, int i, long floor_kib)
{
	return own_kib && own_kib[i] > floor_kib ? own_kib[i] : floor_kib;
}

int bg_runner__rss_below(const long *rss_kib, const long *own_kib, int n, long floor_kib,
                         long slack_kib)
{
	int i;

	for (i = 0; i < n; i++)
		if (rss_kib[i] <= rss_floor(own_kib, i, floor_kib) + slack_kib)
			return i;
	return -1;
}

static int add_peak_rss(bg_ctx *ctx, const bg_benchmark *bench, bg_results *into,
                        const long *rss_kib, const long *own_kib, int n, long floor_kib)
{
	long now = own_peak_kib(), cpus = sysconf(_SC_NPROCESSORS_CONF),
	     page = sysconf(_SC_PAGESIZE), slack;
	int i, rc;

	if (now > floor_kib)
		floor_kib = now;
	slack = bg_runner__rss_slack_kib(cpus, page > 0 ? page / 1024 : 4);
	if ((i = bg_runner__rss_below(rss_kib, own_kib, n, floor_kib, slack)) >= 0) {
		bg_log(ctx, BG_LOG_DEBUG,
		       "%s: peak_rss not recorded: %ld KiB is not above benchguard's own %ld KiB "
		       "(which the kernel reports as a floor) by more than %ld KiB (how far the "
		       "kernel's counts may be off)",
		       bench->name, rss_kib[i], rss_floor(own_kib, i, floor_kib), slack);
		return 0;
	}
	for (i = 0; i < n; i++)
		if ((rc = bg_results_add(ctx, into, bench->name, "peak_rss", "B",
		                         (double)rss_kib[i] * 1024.0)) < 0)
			return rc;
	return 0;
}

/* What one benchmark is measured with on this machine (bg_runner_run). */
typedef struct {
	int time;              /* the clock, or the program's own output */
	bg_counters *counters; /* NULL: not counted */
	int simulate;
	char sim_version[256]; /* "valgrind-3.19.0" */
} chosen_instruments;

/*
 * The first available alternative of each `measure` entry.  An entry none
 * of whose alternatives this machine has is a skipped "<bench>:<first
 * alternative>" outcome with each one's reason: the benchmark's other
 * instruments still measure, and check shows the skip like any other.
 */
static int choose_instruments(bg_ctx *ctx, const bg_benchmark *bench, const bg_run_opts *opts,
                              bg_results *into, chosen_instruments *ch)
{
	static const bg_measure time_only = { { BG_INSTR_TIME }, 1 };
	const bg_measure *m = bench->nmeasure ? bench->measure : &time_only;
	size_t n = bench->nmeasure ? bench->nmeasure : 1, i, k;
	bg_buf why = BG_BUF_INIT, name = BG_BUF_INIT;
	bg_saved_error saved;
	int error = 0, got;

	memset(ch, 0, sizeof(*ch));
	/* An instrument this machine lacks is the skip's reason, not a failure
	 * of the call: the caller's message stays. */
	bg_ctx__save_error(ctx, &saved);
	for (i = 0; i < n; i++) {
		bg_buf_clear(&why);
		for (k = 0, got = 0; k < m[i].nalt && !got; k++) {
			switch (m[i].alt[k]) {
			case BG_INSTR_TIME:
				ch->time = got = 1;
				break;
			case BG_INSTR_COUNTERS:
				error = bg_counters__new(ctx, bench->events, bench->nevents,
				                         bench->kernel, &ch->counters);
				if (error == 0) {
					got = 1;
				} else if (error == BG_ENOTFOUND) {
					error = bg_buf_printf(&why, "%scounters: %s",
					                      why.len ? "; " : "",
					                      bg_ctx_error(ctx));
					bg_ctx__restore_error(ctx, &saved);
				}
				break;
			case BG_INSTR_SIMULATE:
				if (opts->instruments &&
				    opts->instruments[BG_INSTR_SIMULATE].available) {
					snprintf(ch->sim_version, sizeof(ch->sim_version), "%s",
					         opts->instruments[BG_INSTR_SIMULATE].detail);
					got = ch->simulate = 1;
				} else if (opts->instruments) {
					error = bg_buf_printf(
					        &why, "%ssimulate: %s", why.len ? "; " : "",
					        opts->instruments[BG_INSTR_SIMULATE].detail);
				} else if ((error = bg_simulate__probe(ctx, ch->sim_version,
				                                       sizeof(ch->sim_version))) ==
				           0) {
					got = ch->simulate = 1;
				} else if (error == BG_ENOTFOUND) {
					error = bg_buf_printf(&why, "%ssimulate: %s",
					                      why.len ? "; " : "",
					                      bg_ctx_error(ctx));
					bg_ctx__restore_error(ctx, &saved);
				}
				break;
			}
			if (error < 0)
				goto cleanup;
		}
		if (got)
			continue;
		bg_buf_clear(&name);
		if ((error = bg_buf_printf(&name, "%s:%s", bench->name,
		                           bg_instrument_name(m[i].alt[0]))) < 0 ||
		    (error = bg_results_set_outcome(ctx, into, name.ptr, BG_BENCH_SKIPPED,
		                                    why.ptr ? why.ptr : "not available")) < 0)
			goto cleanup;
	}
cleanup:
	bg_buf_clear(&why);
	bg_buf_clear(&name);
	return error;
}

/* How long a simulated execution may take: Valgrind runs a program 20 to
 * 100 times slower than the CPU does. */
#define SIMULATE_SLOWDOWN 100.0

/*
 * One execution under callgrind: the instructions, cache misses and the
 * cycles estimated from them, of the whole command, or of its region when
 * it marks one (benchguard_region.h).  The program's own output is not
 * read: its times are Valgrind's.
 */
static int simulate_pass(bg_ctx *ctx, const bg_benchmark *bench, const bg_run_opts *opts,
                         const chosen_instruments *ch, const char *const *env, bg_results *into,
                         int *left, char **failure)
{
	char dir[] = "/tmp/benchguard-simulate.XXXXXX", inst[300];
	const char *tmp = getenv("TMPDIR");
	char *dirp = NULL, **wrap = NULL;
	bg_exec_opts eo = { NULL, 0.0, 0, 0, env, NULL };
	bg_exec_result r = { 0 };
	exec_extra x = { .wrap = NULL };
	pid_t pid = -1;
	bg_sim_counts c;
	bg_buf b = BG_BUF_INIT;
	int error, killed = 0;
	double timeout = (opts->timeout > 0 ? opts->timeout : bench->timeout) * SIMULATE_SLOWDOWN;

	if (tmp && *tmp && bg_buf_printf(&b, "%s/benchguard-simulate.XXXXXX", tmp) == 0)
		dirp = bg_buf_detach(&b);
	if (!mkdtemp(dirp ? dirp : dir)) {
		error = bg_error_errno(ctx, BG_ERROR,
		                       "cannot create a folder for Valgrind's output");
		goto cleanup;
	}
	if ((error = bg_simulate__argv(ctx, dirp ? dirp : dir, &wrap)) < 0)
		goto cleanup;
	x.wrap = (const char *const *)wrap;
	x.pid = &pid;
	eo.cwd = opts->cwd;
	eo.timeout = timeout;
	eo.out_limit = opts->out_limit;
	if ((error = exec_run(ctx, bench->command, &eo, &x, &r, &killed)) < 0)
		goto cleanup;
	*left += killed;
	if (exec_failed(&r)) {
		*failure = failure_message(&r, timeout);
		if (!*failure)
			error = bg_error_oom(ctx);
		goto cleanup;
	}
	if ((error = bg_simulate__collect(ctx, dirp ? dirp : dir, (long)pid, &c)) < 0) {
		if (error == BG_EINPUT) {
			*failure = bg_strdup(bg_ctx_error(ctx));
			error = *failure ? 0 : bg_error_oom(ctx);
		}
		goto cleanup;
	}
	if (c.cut_short)
		bg_log(ctx, BG_LOG_WARN,
		       "\"%s\": %zu process%s it started ended before its simulation did (killed: "
		       "left running, or by a signal); not counted",
		       bench->name, c.cut_short, c.cut_short == 1 ? "" : "es");
	snprintf(inst, sizeof(inst), "simulate callgrind %s", ch->sim_version);
	{
		const struct {
			const char *metric, *unit;
			double value;
		} v[] = {
			{ "instructions", "instr", c.ir },
			{ "l1_misses", "misses", c.i1mr + c.d1mr + c.d1mw },
			{ "ll_misses", "misses", c.ilmr + c.dlmr + c.dlmw },
			{ "est_cycles", "cycles", bg_simulate__est_cycles(&c) },
		};
		size_t i;

		for (i = 0; i < BG_ARRAY_SIZE(v); i++)
			if ((error = bg_results_add(ctx, into, bench->name, v[i].metric, v[i].unit,
			                            v[i].value)) < 0 ||
			    (error = bg_results_set_instrument(ctx, into, bench->name, v[i].metric,
			                                       inst)) < 0)
				goto cleanup;
	}
cleanup:
	bg_exec_result_clear(&r);
	bg_simulate__argv_free(wrap);
	bg_rmtree(NULL, dirp ? dirp : dir);
	free(dirp);
	return error;
}

/* The counters of one execution, as samples. */
static int add_counters(bg_ctx *ctx, const bg_benchmark *bench, bg_counters *c,
                        const double *values, bg_results *into)
{
	size_t i;
	int error;

	for (i = 0; i < bg_counters__count(c); i++) {
		if (isnan(values[i]))
			return bg_error_set(ctx, BG_EINPUT,
			                    "counter %s was never scheduled (the PMU is busy: "
			                    "another perf session?)",
			                    bg_counters__metric(c, i));
		if ((error = bg_results_add(ctx, into, bench->name, bg_counters__metric(c, i),
		                            bg_counters__unit(c, i), values[i])) < 0 ||
		    (error = bg_results_set_instrument(ctx, into, bench->name,
		                                       bg_counters__metric(c, i),
		                                       bg_counters__instrument(c))) < 0)
			return error;
	}
	return 0;
}

/*
 * The name of an instrument's series that the benchmark's own output also
 * reported (it printed "BENCHGUARD instructions 5 instr" under simulate), or
 * NULL.  Added to one series, a count of 5 and callgrind's 306,944 were
 * averaged under the instrument's label.  Each counter has one sample per
 * execution it counted, callgrind one: more is the output's.
 */
static const char *instrument_clash(const bg_benchmark *bench, const chosen_instruments *ch,
                                    size_t counted, const bg_results *into, const char **by)
{
	static const char *const simulated[] = { "instructions", "l1_misses", "ll_misses",
		                                 "est_cycles" };
	const bg_series *s;
	size_t i;

	for (i = 0; ch->counters && i < bg_counters__count(ch->counters); i++)
		if ((s = bg_results__find(into, bench->name,
		                          bg_counters__metric(ch->counters, i))) &&
		    s->n != counted) {
			*by = "counters";
			return s->metric;
		}
	for (i = 0; ch->simulate && i < BG_ARRAY_SIZE(simulated); i++)
		if ((s = bg_results__find(into, bench->name, simulated[i])) && s->n != 1) {
			*by = "simulate";
			return s->metric;
		}
	return NULL;
}

/* BG_EINPUT for a benchmark no config would give: see bg_runner_run. */
static int check_benchmark(bg_ctx *ctx, const bg_benchmark *bench, int samples)
{
	size_t i, k;

	if (samples < 1)
		return bg_error_set(ctx, BG_EINPUT,
		                    "benchmark \"%s\": %d samples; a run needs at least one",
		                    bench->name, samples);
	if ((unsigned)bench->format > (unsigned)BG_FORMAT_PERFSTAT)
		return bg_error_set(ctx, BG_EINPUT, "benchmark \"%s\": unknown format %d",
		                    bench->name, (int)bench->format);
	if (bench->nmeasure && !bench->measure)
		return bg_error_set(ctx, BG_EINPUT,
		                    "benchmark \"%s\": nmeasure is %zu but measure is NULL",
		                    bench->name, bench->nmeasure);
	for (i = 0; i < bench->nmeasure; i++) {
		const bg_measure *m = &bench->measure[i];

		if (m->nalt < 1 || m->nalt > BG_INSTR_COUNT)
			return bg_error_set(ctx, BG_EINPUT,
			                    "benchmark \"%s\": measure[%zu] holds %zu alternatives "
			                    "(1 to %d)",
			                    bench->name, i, m->nalt, BG_INSTR_COUNT);
		for (k = 0; k < m->nalt; k++)
			if ((unsigned)m->alt[k] >= BG_INSTR_COUNT)
				return bg_error_set(ctx, BG_EINPUT,
				                    "benchmark \"%s\": measure[%zu] names unknown "
				                    "instrument %d",
				                    bench->name, i, (int)m->alt[k]);
	}
	return 0;
}

int bg_runner_run(bg_ctx *ctx, const bg_benchmark *bench, const bg_run_opts *opts, bg_results *into)
{
	static const bg_run_opts no_opts = BG_RUN_OPTS_INIT;
	char env_samples[64], env_warmup[64], env_sim_samples[64], env_sim_warmup[64];
	char *env_name = NULL, *why = NULL, *msg = NULL;
	/* Then the git fence (4 to 8, when it applies), the counters' entry,
	 * and the end. */
	const char *env[11] = { NULL, env_samples, env_warmup, "BENCHGUARD_INSTRUMENT=time" };
	const char *sim_env[10] = { NULL, env_sim_samples, env_sim_warmup,
		                    "BENCHGUARD_INSTRUMENT=simulate" };
	static const char *const unset[] = { BG_GIT_UNSET };
	char fence[PATH_MAX + 64];
	size_t nenv = 4;
	bg_exec_opts eo = { NULL, 0.0, 0, 0, env, NULL };
	bg_buf name = BG_BUF_INIT;
	bg_exec_result r = { 0 };
	bg_saved_error saved;
	chosen_instruments ch;
	proc_view pv = PROC_VIEW_INIT;
	exec_extra x = { .proc = &pv };
	long *rss = NULL, *own = NULL, floor_kib = 0, hwm_kib = -1;
	int samples, warmup, total, done, error = 0, nrss = 0, killed, left = 0, clock, reaping = 0;
	int redone = 0;
	size_t i, first, counted = 0;
	const char *clash, *by = NULL;
	double timeout, values[16];

	BG_NEED(ctx, bench);
	BG_NEED(ctx, bench->name);
	BG_NEED(ctx, bench->command);
	BG_NEED(ctx, into);
	/* A benchmark's failure (bad output, a counter never scheduled) is its
	 * outcome, and the call succeeds: where one is recorded, the caller's
	 * message is put back as the call found it. */
	bg_ctx__save_error(ctx, &saved);
	memset(&ch, 0, sizeof(ch));
	if (!opts)
		opts = &no_opts;
	samples = opts->samples >= 0 ? opts->samples : bench->samples;
	warmup = opts->warmup >= 0 ? opts->warmup : bench->warmup;
	timeout = opts->timeout > 0 ? opts->timeout : bench->timeout;
	if (warmup < 0)
		warmup = 0;
	/* A benchmark built by hand rather than loaded from a config: what
	 * the config refuses would run nothing, or fall through every format
	 * and instrument, and be stored as a success with no series. */
	if ((error = check_benchmark(ctx, bench, samples)) < 0)
		return error;

	for (i = 0; i < bench->nrequires; i++) {
		if (requirement_met_in(opts->cwd, bench->requires[i], &why))
			continue;
		if (!why)
			return bg_error_oom(ctx);
		error = bg_results_set_outcome(ctx, into, bench->name, BG_BENCH_SKIPPED, why);
		free(why);
		return error;
	}
	first = bg_results_series_count(into);
	if ((error = choose_instruments(ctx, bench, opts, into, &ch)) < 0)
		goto fail;

	if (bg_buf_printf(&name, "BENCHGUARD_BENCHMARK=%s", bench->name) < 0 ||
	    !(env_name = bg_buf_detach(&name))) {
		bg_buf_clear(&name);
		error = bg_error_oom(ctx);
		goto fail;
	}
	env[0] = sim_env[0] = env_name;
	if (bg_exec__git_fence(opts->cwd, fence, sizeof(fence))) {
		env[nenv] = sim_env[nenv] = fence;
		nenv++;
		for (i = 0; i < BG_ARRAY_SIZE(unset); i++, nenv++)
			env[nenv] = sim_env[nenv] = unset[i];
	}
	snprintf(env_samples, sizeof(env_samples), "BENCHGUARD_SAMPLES=%d", samples);
	snprintf(env_warmup, sizeof(env_warmup), "BENCHGUARD_WARMUP=%d", warmup);
	/* A simulated count is the same every time: one sample says it all. */
	snprintf(env_sim_samples, sizeof(env_sim_samples), "BENCHGUARD_SAMPLES=1");
	snprintf(env_sim_warmup, sizeof(env_sim_warmup), "BENCHGUARD_WARMUP=%d", warmup ? 1 : 0);
	if (ch.counters) {
		x.counters = ch.counters;
		x.values = values;
		if (bg_counters__count(ch.counters) > BG_ARRAY_SIZE(values)) {
			error = bg_error_set(ctx, BG_EINPUT, "too many counters");
			goto fail;
		}
	}
	eo.cwd = opts->cwd;
	eo.timeout = timeout;
	eo.out_limit = opts->out_limit;
	eo.capture_stdout = bench->format != BG_FORMAT_TIME && ch.time;
	/* The executions the clock and the counters share. */
	clock = ch.time || ch.counters;
	/* The self-reporting formats warm up and repeat inside the program. */
	total = !clock ? 0 : bench->format == BG_FORMAT_TIME ? warmup + samples : 1;
	if (bench->format == BG_FORMAT_TIME && ch.time) {
		rss = malloc(((size_t)samples + 1) * sizeof(long));
		own = malloc(((size_t)samples + 1) * sizeof(long));
		if (!rss || !own) {
			error = bg_error_oom(ctx);
			goto fail;
		}
		x.hwm_kib = &hwm_kib;
		reset_own_peak();
		floor_kib = own_peak_kib();
	}

	/* A subreaper for the whole benchmark, so that its executions do not
	 * each switch it on and off; and /proc held open for them. */
	if (total > 0) {
		(void)reaper_enter();
		reaping = 1;
		proc_view_open(&pv);
	}
	for (done = 0; done < total; done++) {
		sig_atomic_t resumed = bg_ctx__continued(ctx);

		if (ch.counters)
			env[nenv] = bg_counters__env(ch.counters);
		error = exec_run(ctx, bench->command, &eo, &x, &r, &killed);
		left += killed;
		if (error < 0)
			goto fail;
		/* benchguard was stopped and resumed (Ctrl-Z, fg) while this
		 * execution ran: its time holds the stop, and so may what the
		 * program timed itself.  Measured again, as many times as there
		 * are executions, so that a stream of SIGCONTs cannot keep a
		 * benchmark running for ever. */
		if (resumed != bg_ctx__continued(ctx) && !exec_failed(&r) &&
		    !(bench->format == BG_FORMAT_TIME && done < warmup) && redone < total) {
			redone++;
			bg_log(ctx, BG_LOG_WARN,
			       "bench \"%s\": benchguard was stopped while it measured; measuring "
			       "that execution again",
			       bench->name);
			bg_exec_result_clear(&r);
			done--;
			continue;
		}
		if (opts->progress)
			opts->progress(bench->name, done + 1, total + ch.simulate,
			               opts->progress_data);
		if (exec_failed(&r)) {
			msg = failure_message(&r, timeout);
			error = record_failure(ctx, bench, into, msg);
			goto cleanup;
		}
		if (ch.counters && (bench->format != BG_FORMAT_TIME || done >= warmup)) {
			counted++;
			if ((error = add_counters(ctx, bench, ch.counters, values, into)) ==
			    BG_EINPUT) {
				msg = bg_strdup(bg_ctx_error(ctx));
				bg_ctx__restore_error(ctx, &saved);
				error = record_failure(ctx, bench, into, msg);
				goto cleanup;
			}
			if (error < 0)
				goto fail;
		}
		if (!ch.time) {
			/* counted only */
		} else if (bench->format == BG_FORMAT_TIME) {
			if (done >= warmup) {
				if ((error = add_time_samples(ctx, bench, into, &r)) < 0)
					goto fail;
				own[nrss] = hwm_kib;
				rss[nrss++] = r.maxrss_kib;
			}
		} else if (r.out_truncated) {
			char m[64];

			snprintf(m, sizeof(m), "output exceeded %zu bytes",
			         opts->out_limit ? opts->out_limit : DEFAULT_OUT_LIMIT);
			error = record_failure(ctx, bench, into, m);
			goto cleanup;
		} else {
			error = bg_format_parse_at(ctx, bench->format, bench->name, bench->name,
			                           opts->cwd, r.out, r.out_len, into);
			if (error == BG_EINPUT) {
				msg = bg_strdup(bg_ctx_error(ctx));
				bg_ctx__restore_error(ctx, &saved);
				error = record_failure(ctx, bench, into, msg);
				goto cleanup;
			}
			if (error < 0)
				goto fail;
		}
		bg_exec_result_clear(&r);
	}
	if (ch.simulate) {
		if ((error = simulate_pass(ctx, bench, opts, &ch, sim_env, into, &left, &msg)) < 0)
			goto fail;
		if (opts->progress)
			opts->progress(bench->name, total + 1, total + 1, opts->progress_data);
		if (msg) {
			char *full = bg_printf("under valgrind: %s", msg);

			/* Callgrind's output that did not read is in msg already. */
			bg_ctx__restore_error(ctx, &saved);
			error = record_failure(ctx, bench, into, full ? full : msg);
			free(full);
			goto cleanup;
		}
	}
	if (nrss && (error = add_peak_rss(ctx, bench, into, rss, own, nrss, floor_kib)) < 0)
		goto fail;
	if ((clash = instrument_clash(bench, &ch, counted, into, &by)) != NULL) {
		msg = bg_printf("its output reports \"%s\", which the %s instrument measures "
		                "too: the two would be one series; rename the one it prints",
		                clash, by);
		error = record_failure(ctx, bench, into, msg);
		goto cleanup;
	}
	apply_overrides(bench, into, first);
	error = bg_results_set_outcome(ctx, into, bench->name, BG_BENCH_OK, NULL);
	goto cleanup;

fail:
	/* benchguard itself failed: no outcome, but no half series either. */
	bg_results_drop_benchmark(into, bench->name);
cleanup:
	/* Once per benchmark, not per sample: the same daemon each time. */
	if (left)
		bg_log(ctx, BG_LOG_WARN,
		       "bench \"%s\": killed %d process%s it left running (a daemon?)", bench->name,
		       left, left == 1 ? "" : "es");
	bg_exec_result_clear(&r);
	proc_view_close(&pv);
	if (reaping)
		reaper_leave();
	bg_counters__free(ch.counters);
	free(rss);
	free(own);
	free(env_name);
	free(msg);
	return error;
}
