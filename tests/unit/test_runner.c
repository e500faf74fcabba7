/*
 * test_runner.c -- running commands (bg_exec) and benchmarks (bg_runner_run):
 * exit statuses, the direct and shell paths, cwd and environment, timeouts
 * that kill the whole process group, leftovers killed after a normal exit
 * (daemons that left the group too, the host's own children left alone),
 * bounded stdout and stderr, and the outcomes and series of a benchmark.
 *
 * The test process makes itself a child subreaper, so processes orphaned by
 * the commands come back to it and can be reaped: "no process of the group
 * remains" is then checked with kill(-pgid, 0) without waiting for init.
 */
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <pthread.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/time.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "unit.h"

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

/* Reaps what was orphaned to us in group pgid; 1 once the group is empty. */
static int group_gone(pid_t pgid, double seconds)
{
	double end = now() + seconds;

	do {
		while (waitpid(-pgid, NULL, WNOHANG) > 0)
			;
		if (kill(-pgid, 0) == -1 && errno == ESRCH)
			return 1;
		usleep(10000);
	} while (now() < end);
	return 0;
}

static void make_tmpdir(char dir[64])
{
	char *real;

	strcpy(dir, "/tmp/bg-runner-XXXXXX");
	assert_non_null(mkdtemp(dir));
	/* pwd prints the physical path: compare against that. */
	real = realpath(dir, NULL);
	assert_non_null(real);
	assert_true(strlen(real) < 64);
	strcpy(dir, real);
	free(real);
}

static void remove_tmpdir(const char *dir, const char *const *files)
{
	char path[256];

	for (; files && *files; files++) {
		snprintf(path, sizeof(path), "%s/%s", dir, *files);
		unlink(path);
	}
	assert_int_equal(rmdir(dir), 0);
}

static void exec_ok(bg_ctx *ctx, const char *cmd, const bg_exec_opts *opts, bg_exec_result *r)
{
	int rc = bg_exec(ctx, cmd, opts, r);

	if (rc != 0)
		fail_msg("bg_exec(\"%s\") = %d: %s", cmd, rc, bg_ctx_error(ctx));
}

static void test_exec_statuses(void **state)
{
	bg_ctx *ctx = *state;
	bg_exec_opts o = { NULL, 10, 1, 0, NULL, NULL };
	bg_exec_result r;

	exec_ok(ctx, "true", NULL, &r);
	assert_true(r.exited && r.exit_status == 0 && !r.signaled && !r.timed_out);
	assert_null(r.out); /* not captured */
	assert_non_null(r.err_tail);
	assert_int_equal(r.err_len, 0);
	assert_true(r.wall > 0 && r.wall < 5);
	assert_true(r.user >= 0 && r.sys >= 0 && r.maxrss_kib > 0);
	bg_exec_result_clear(&r);
	assert_null(r.err_tail);
	bg_exec_result_clear(&r); /* cleared twice: still a no-op */

	exec_ok(ctx, "  false  ", NULL, &r);
	assert_true(r.exited && r.exit_status == 1);
	bg_exec_result_clear(&r);
	/* A shell builtin goes to the shell even though it is a plain word list. */
	exec_ok(ctx, "exit 4", NULL, &r);
	assert_true(r.exited && r.exit_status == 4);
	bg_exec_result_clear(&r);
	exec_ok(ctx, "sh -c 'exit 3'", NULL, &r);
	assert_true(r.exited && r.exit_status == 3);
	bg_exec_result_clear(&r);
	/* Not found: the shell's usual status and message, not a library error. */
	exec_ok(ctx, "no-such-command-xyz --flag", NULL, &r);
	assert_true(r.exited && r.exit_status == 127);
	assert_non_null(strstr(r.err_tail, "not found"));
	bg_exec_result_clear(&r);
	exec_ok(ctx, "./no-such-file-xyz", NULL, &r);
	assert_true(r.exited && r.exit_status == 127);
	bg_exec_result_clear(&r);
	/* stdin is /dev/null: cat sees EOF at once, whatever our stdin is. */
	exec_ok(ctx, "cat", &o, &r);
	assert_true(r.exited && r.exit_status == 0);
	assert_string_equal(r.out, "");
	bg_exec_result_clear(&r);
}

static int count_fds(void)
{
	char path[64];
	int fd, n = 0;

	for (fd = 0; fd < 1024; fd++) {
		snprintf(path, sizeof(path), "/proc/self/fd/%d", fd);
		n += access(path, F_OK) == 0;
	}
	return n;
}

static void test_exec_no_leaks(void **state)
{
	bg_ctx *ctx = *state;
	bg_exec_opts o = { NULL, 0, 1, 0, NULL, NULL };
	bg_exec_result r;
	siginfo_t si;
	int before = count_fds(), i;

	for (i = 0; i < 20; i++) {
		o.capture_stdout = i % 2;
		o.timeout = i % 3 ? 10 : 0;
		exec_ok(ctx, i % 4 ? "echo out; echo err >&2" : "no-such-command-xyz", &o, &r);
		bg_exec_result_clear(&r);
	}
	o.cwd = "/nonexistent/bg-dir";
	assert_int_equal(bg_exec(ctx, "true", &o, &r), BG_ERROR);
	assert_int_equal(count_fds(), before);
	/* Every child was reaped: nothing is left to wait for. */
	memset(&si, 0, sizeof(si));
	if (waitid(P_ALL, 0, &si, WEXITED | WNOHANG | WNOWAIT) == 0)
		assert_int_equal(si.si_pid, 0);
	else
		assert_int_equal(errno, ECHILD);
}

static void test_exec_direct_path(void **state)
{
	bg_ctx *ctx = *state;
	bg_exec_result r;
	char *saved = bg_strdup(getenv("PWD"));

	/* dash exports PWD to what it runs; a directly spawned printenv sees the
	 * environment exactly as given, where PWD is now unset. */
	unsetenv("PWD");
	exec_ok(ctx, "printenv PWD", NULL, &r);
	assert_true(r.exited && r.exit_status == 1);
	bg_exec_result_clear(&r);
	exec_ok(ctx, "printenv PWD;", NULL, &r);
	assert_true(r.exited && r.exit_status == 0);
	bg_exec_result_clear(&r);
	if (saved)
		setenv("PWD", saved, 1);
	free(saved);
}

/*
 * A plain word list whose exec fails for another reason than "not found" or
 * "not executable" (a symbolic link loop, a binary still open for writing
 * by a build) is the command's failure, with the shell's status and
 * message, as it is when the same command goes through the shell: not a
 * library error that stopped the whole suite.
 */
static void test_exec_direct_exec_errors(void **state)
{
	bg_ctx *ctx = *state;
	bg_exec_opts o = { NULL, 10, 1, 0, NULL, NULL };
	const char *const files[] = { "loop1", "loop2", "busy", NULL };
	bg_benchmark b = { .name = "busy",
		           .command = "./busy --flag",
		           .format = BG_FORMAT_TIME,
		           .warmup = 0,
		           .samples = 2,
		           .timeout = 10 };
	bg_run_opts ro = BG_RUN_OPTS_INIT;
	const bg_outcome *oc;
	bg_results *res = NULL;
	bg_exec_result r;
	char dir[64], path[96];
	int fd, rc;

	make_tmpdir(dir);
	o.cwd = dir;
	ro.cwd = dir;
	snprintf(path, sizeof(path), "%s/loop1", dir);
	assert_int_equal(symlink("loop2", path), 0);
	snprintf(path, sizeof(path), "%s/loop2", dir);
	assert_int_equal(symlink("loop1", path), 0);
	exec_ok(ctx, "./loop1", &o, &r);
	assert_true(r.exited && (r.exit_status == 126 || r.exit_status == 127));
	assert_true(r.err_len > 0);
	bg_exec_result_clear(&r);

	/* Open for writing while it is run: ETXTBSY. */
	snprintf(path, sizeof(path), "%s/busy", dir);
	fd = open(path, O_WRONLY | O_CREAT | O_CLOEXEC, 0755);
	assert_true(fd >= 0);
	assert_int_equal(write(fd, "#!/bin/sh\n", 10), 10);
	exec_ok(ctx, "./busy", &o, &r);
	assert_true(r.exited && r.exit_status == 126);
	bg_exec_result_clear(&r);
	assert_int_equal(bg_results_new(&res), 0);
	rc = bg_runner_run(ctx, &b, &ro, res);
	close(fd);
	oc = bg_results_find_outcome(res, "busy");
	assert_int_equal(rc, 0);
	assert_non_null(oc);
	assert_int_equal(oc->status, BG_BENCH_FAILED);
	assert_non_null(strstr(oc->message, "exit status 126"));
	bg_results_free(res);
	remove_tmpdir(dir, files);
}

static void test_exec_cwd(void **state)
{
	bg_ctx *ctx = *state;
	bg_exec_opts o = { NULL, 0, 1, 0, NULL, NULL };
	bg_exec_result r;
	char dir[64], want[80];

	make_tmpdir(dir);
	o.cwd = dir;
	snprintf(want, sizeof(want), "%s\n", dir);
	exec_ok(ctx, "pwd", &o, &r);
	assert_string_equal(r.out, want);
	assert_int_equal(r.out_len, strlen(want));
	bg_exec_result_clear(&r);
	exec_ok(ctx, "cd . && pwd -P", &o, &r);
	assert_string_equal(r.out, want);
	bg_exec_result_clear(&r);

	/* A missing directory is benchguard's failure, and says which. */
	o.cwd = "/nonexistent/bg-dir";
	assert_int_equal(bg_exec(ctx, "pwd", &o, &r), BG_ERROR);
	assert_non_null(strstr(bg_ctx_error(ctx), "/nonexistent/bg-dir"));
	assert_null(r.out);
	remove_tmpdir(dir, NULL);
}

static void test_exec_env(void **state)
{
	bg_ctx *ctx = *state;
	const char *env[] = { "BG_TEST_X=hello world", "BG_TEST_OVR=new", NULL };
	bg_exec_opts o = { NULL, 0, 1, 0, env, NULL };
	bg_exec_result r;

	setenv("BG_TEST_OVR", "old", 1);
	setenv("BG_TEST_INH", "inherited", 1);
	exec_ok(ctx, "printenv BG_TEST_X", &o, &r);
	assert_string_equal(r.out, "hello world\n");
	bg_exec_result_clear(&r);
	/* An extra entry replaces the inherited one (getenv finds the first). */
	exec_ok(ctx, "printenv BG_TEST_OVR", &o, &r);
	assert_string_equal(r.out, "new\n");
	bg_exec_result_clear(&r);
	/* The same through the shell, with the inherited ones still there. */
	exec_ok(ctx, "echo \"$BG_TEST_X/$BG_TEST_OVR/$BG_TEST_INH\"", &o, &r);
	assert_string_equal(r.out, "hello world/new/inherited\n");
	bg_exec_result_clear(&r);
	o.env = NULL;
	exec_ok(ctx, "printenv BG_TEST_OVR", &o, &r);
	assert_string_equal(r.out, "old\n");
	bg_exec_result_clear(&r);
	unsetenv("BG_TEST_OVR");
	unsetenv("BG_TEST_INH");
}

static void on_usr2(int sig)
{
	(void)sig;
}

/* A command that closes its output and goes on is waited for, to its
 * exit or its timeout: closed pipes make benchguard look for the exit a
 * moment before it sleeps again, and must not end the wait. */
static void test_exec_closed_pipes(void **state)
{
	bg_ctx *ctx = *state;
	bg_exec_opts o = { NULL, 0, 1, 0, NULL, NULL };
	bg_exec_result r;

	exec_ok(ctx, "exec >&- 2>&-; sleep 0.3; exit 3", &o, &r);
	assert_true(r.exited);
	assert_int_equal(r.exit_status, 3);
	assert_true(r.wall >= 0.3);
	bg_exec_result_clear(&r);
	o.timeout = 0.3;
	exec_ok(ctx, "exec >&- 2>&-; sleep 5", &o, &r);
	assert_true(r.timed_out);
	assert_true(r.wall >= 0.3 && r.wall < 4);
	bg_exec_result_clear(&r);
}

static void *idle_thread(void *arg)
{
	int *fd = arg;
	char c;

	/* Until the test closes the pipe's other end. */
	while (read(*fd, &c, 1) > 0)
		;
	return NULL;
}

/* What the host ignores or handles reaches the command as the default, and
 * nothing stays blocked.  With one thread the parent reads which signals to
 * reset from /proc/self/status (a signal below 32 and a real-time one above
 * it are checked); with another thread alive every one is reset. */
static void dispositions_reset(bg_ctx *ctx)
{
	bg_exec_opts o = { NULL, 0, 1, 0, NULL, NULL };
	struct sigaction ign, handler, old[4];
	const int sigs[4] = { SIGPIPE, SIGUSR1, SIGRTMIN + 5, SIGUSR2 };
	unsigned long kign[8] = { (unsigned long)SIG_IGN }, kold[8];
	bg_exec_result r;
	int i;

	memset(&ign, 0, sizeof(ign));
	ign.sa_handler = SIG_IGN;
	memset(&handler, 0, sizeof(handler));
	handler.sa_handler = on_usr2;
	for (i = 0; i < 4; i++)
		assert_int_equal(sigaction(sigs[i], i == 3 ? &handler : &ign, &old[i]), 0);
	/* glibc's own signal 32, ignored as `make -j` hands it down: only the
	 * system call sets it (all zero but the handler, SIG_IGN, is 1). */
	assert_int_equal(syscall(SYS_rt_sigaction, 32, kign, kold, (size_t)(NSIG - 1) / 8), 0);
	exec_ok(ctx, "grep -E '^Sig(Ign|Blk):' /proc/self/status", &o, &r);
	syscall(SYS_rt_sigaction, 32, kold, NULL, (size_t)(NSIG - 1) / 8);
	for (i = 0; i < 4; i++)
		sigaction(sigs[i], &old[i], NULL);
	assert_non_null(r.out);
	if (!strstr(r.out, "SigBlk:\t0000000000000000\n") ||
	    !strstr(r.out, "SigIgn:\t0000000000000000\n"))
		fail_msg("the command started with signals blocked or ignored:\n%s", r.out);
	bg_exec_result_clear(&r);
}

static void test_exec_signal_dispositions(void **state)
{
	pthread_t t;
	int fds[2];

	dispositions_reset(*state);
	assert_int_equal(pipe(fds), 0);
	assert_int_equal(pthread_create(&t, NULL, idle_thread, &fds[0]), 0);
	dispositions_reset(*state);
	close(fds[1]);
	assert_int_equal(pthread_join(t, NULL), 0);
	close(fds[0]);
}

/* "<$$> <its process group> <$!>", as the commands below print them. */
static void parse_ids(const char *out, long ids[3])
{
	char *end;
	int i;

	assert_non_null(out);
	for (i = 0; i < 3; i++) {
		ids[i] = strtol(out, &end, 10);
		assert_true(end != out && ids[i] > 1);
		out = end;
	}
	/* The shell leads its own group: the group id the test checks is real. */
	assert_int_equal(ids[0], ids[1]);
}

#define PRINT_IDS "echo $$ $(cut -d' ' -f5 /proc/$$/stat) $!"

static void test_exec_timeout_kills_group(void **state)
{
	bg_ctx *ctx = *state;
	bg_exec_opts o = { NULL, 0.5, 1, 0, NULL, NULL };
	bg_exec_result r;
	double t0 = now(), elapsed;
	char *desc;
	long ids[3];

	/* A shell that leaves a sleeping child and sleeps itself. */
	exec_ok(ctx, "sleep 1000 & " PRINT_IDS "; sleep 1000", &o, &r);
	elapsed = now() - t0;
	assert_true(r.timed_out);
	assert_true(elapsed < 2.0);
	assert_true(r.wall >= 0.5 - 1e-3 && r.wall < 2.0);
	parse_ids(r.out, ids);
	assert_true(group_gone((pid_t)ids[1], 2.0));
	assert_int_equal(kill((pid_t)ids[2], 0), -1);
	desc = bg_exec_describe(&r, 0.5);
	assert_string_equal(desc, "timed out after 0.5 s");
	free(desc);
	bg_exec_result_clear(&r);
}

static void test_exec_kills_leftovers(void **state)
{
	bg_ctx *ctx = *state;
	bg_exec_opts o = { NULL, 0, 1, 0, NULL, NULL };
	bg_exec_result r;
	double t0 = now();
	long ids[3];

	exec_ok(ctx, "sleep 1000 & " PRINT_IDS, &o, &r);
	/* The sleep holds the pipes: returning at all means it is dead. */
	assert_true(now() - t0 < 2.0);
	assert_true(r.exited && r.exit_status == 0 && !r.timed_out);
	parse_ids(r.out, ids);
	assert_true(group_gone((pid_t)ids[1], 2.0));
	assert_int_equal(kill((pid_t)ids[2], 0), -1);
	bg_exec_result_clear(&r);
}

typedef struct {
	int held;   /* "a process that left its group still holds its output" */
	int killed; /* "killed N process(es) it left running" */
} warnings;

static void count_warnings(bg_log_level level, const char *msg, void *data)
{
	warnings *w = data;

	if (level == BG_LOG_WARN && strstr(msg, "left its group"))
		w->held++;
	if (level == BG_LOG_WARN && strstr(msg, ": killed 1 process it left running (a daemon?)"))
		w->killed++;
}

/* The pid in dir/escaped.pid, which is then removed. */
static long take_pid(bg_ctx *ctx, const char *dir)
{
	char path[128], *text = NULL;
	size_t len;
	long pid;

	snprintf(path, sizeof(path), "%s/escaped.pid", dir);
	assert_int_equal(bg_read_file(ctx, path, &text, &len), 0);
	pid = strtol(text, NULL, 10);
	free(text);
	assert_int_equal(unlink(path), 0);
	assert_true(pid > 1);
	return pid;
}

/* A child of the host's own, which the library must leave alone. */
static pid_t host_child(void)
{
	pid_t pid = fork();

	assert_true(pid >= 0);
	if (pid == 0) {
		pause();
		_exit(0);
	}
	return pid;
}

/* setsid takes the sleep out of the group, still holding the pipes; the
 * shell waits until it is out (it wrote its pid after setsid). */
#define HOLDER(env)                                                                                \
	env "setsid sh -c 'echo $$ > escaped.tmp; mv escaped.tmp escaped.pid; exec sleep 1000' & " \
	    "while ! test -s escaped.pid; do sleep 0.01; done"

static void test_exec_escaped_holder(void **state)
{
	bg_ctx *ctx = *state;
	bg_exec_opts o = { NULL, 0, 1, 0, NULL, NULL };
	bg_exec_result r;
	warnings w = { 0, 0 };
	char dir[64];
	double t0, elapsed;
	int was = -1;
	pid_t host;
	long pid;

	make_tmpdir(dir);
	o.cwd = dir;
	bg_ctx_set_log(ctx, count_warnings, &w);

	/* The daemon is killed and reaped as the command ends, with a warning;
	 * the subreaper attribute the library set goes back to what it was. */
	assert_int_equal(prctl(PR_SET_CHILD_SUBREAPER, 0), 0);
	t0 = now();
	exec_ok(ctx, HOLDER(""), &o, &r);
	elapsed = now() - t0;
	assert_int_equal(prctl(PR_GET_CHILD_SUBREAPER, &was), 0);
	assert_int_equal(was, 0);
	assert_int_equal(prctl(PR_SET_CHILD_SUBREAPER, 1), 0);
	assert_true(r.exited && r.exit_status == 0);
	assert_true(elapsed < 0.9); /* nothing waited for its pipes */
	assert_int_equal(w.killed, 1);
	assert_int_equal(w.held, 0);
	pid = take_pid(ctx, dir);
	assert_int_equal(kill((pid_t)pid, 0), -1);
	assert_int_equal(waitpid((pid_t)pid, NULL, WNOHANG), -1); /* reaped too */
	bg_exec_result_clear(&r);

	/* The host has a child of its own: the daemon is still told from it by
	 * its environment, and the host's child is neither killed nor reaped. */
	host = host_child();
	w.killed = w.held = 0;
	exec_ok(ctx, HOLDER(""), &o, &r);
	assert_int_equal(w.killed, 1);
	pid = take_pid(ctx, dir);
	assert_int_equal(kill((pid_t)pid, 0), -1);
	assert_int_equal(kill(host, 0), 0);
	assert_int_equal(waitpid(host, NULL, WNOHANG), 0);
	bg_exec_result_clear(&r);

	/* ... but one that dropped its environment cannot be told from the
	 * host's: left alone, and reading the pipes gives up at the drain
	 * bound (1 s), warning. */
	w.killed = w.held = 0;
	t0 = now();
	exec_ok(ctx, HOLDER("env -i "), &o, &r);
	elapsed = now() - t0;
	assert_true(r.exited && r.exit_status == 0);
	assert_true(elapsed > 0.9 && elapsed < 3.0);
	assert_int_equal(w.held, 1);
	assert_int_equal(w.killed, 0);
	pid = take_pid(ctx, dir);
	assert_int_equal(kill((pid_t)pid, SIGKILL), 0);
	assert_int_equal(waitpid((pid_t)pid, NULL, 0), pid); /* orphaned to us */
	assert_int_equal(kill(host, SIGKILL), 0);
	assert_int_equal(waitpid(host, NULL, 0), host);
	bg_ctx_set_log(ctx, NULL, NULL);
	bg_exec_result_clear(&r);
	remove_tmpdir(dir, NULL);
}

/* The host's own children, direct or orphaned to it while a command runs,
 * are not the command's leftovers: neither killed nor reaped. */
static void test_exec_leaves_host_alone(void **state)
{
	bg_ctx *ctx = *state;
	bg_exec_result r;
	warnings w = { 0, 0 };
	int fds[2];
	pid_t direct, parent, orphan = 0;

	direct = host_child();
	assert_int_equal(pipe(fds), 0);
	parent = fork();
	assert_true(parent >= 0);
	if (parent == 0) {
		/* Once the command runs: a child, handed to us as this exits. */
		pid_t pid;

		usleep(200000);
		pid = fork();
		if (pid == 0) {
			pause();
			_exit(0);
		}
		_exit(write(fds[1], &pid, sizeof(pid)) == sizeof(pid) ? 0 : 1);
	}
	close(fds[1]);
	bg_ctx_set_log(ctx, count_warnings, &w);
	exec_ok(ctx, "sleep 0.6", NULL, &r);
	bg_ctx_set_log(ctx, NULL, NULL);
	bg_exec_result_clear(&r);
	assert_int_equal(read(fds[0], &orphan, sizeof(orphan)), sizeof(orphan));
	close(fds[0]);
	assert_true(orphan > 1);
	assert_int_equal(w.killed, 0);
	/* The orphan is our child now (we are a subreaper), alive and unreaped. */
	assert_int_equal(waitpid(orphan, NULL, WNOHANG), 0);
	assert_int_equal(waitpid(parent, NULL, 0), parent);
	assert_int_equal(waitpid(direct, NULL, WNOHANG), 0);
	assert_int_equal(kill(orphan, SIGKILL), 0);
	assert_int_equal(waitpid(orphan, NULL, 0), orphan);
	assert_int_equal(kill(direct, SIGKILL), 0);
	assert_int_equal(waitpid(direct, NULL, 0), direct);
}

static volatile sig_atomic_t cancel_flag;

static void on_alarm(int sig)
{
	cancel_flag = sig;
}

/* Sets cancel_flag from SIGALRM after `seconds`, as the CLI does on SIGINT. */
static void cancel_after(double seconds)
{
	struct itimerval it;
	struct sigaction sa;

	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_alarm; /* no SA_RESTART, like the CLI */
	sigemptyset(&sa.sa_mask);
	assert_int_equal(sigaction(SIGALRM, &sa, NULL), 0);
	memset(&it, 0, sizeof(it));
	it.it_value.tv_sec = (time_t)seconds;
	it.it_value.tv_usec = (suseconds_t)((seconds - (double)(time_t)seconds) * 1e6);
	assert_int_equal(setitimer(ITIMER_REAL, &it, NULL), 0);
}

static void test_exec_cancel(void **state)
{
	bg_ctx *ctx = *state;
	bg_exec_opts o = { NULL, 0, 1, 0, NULL, NULL };
	bg_benchmark b = { .name = "cancelled",
		           .command = "sleep 0.2",
		           .format = BG_FORMAT_TIME,
		           .warmup = 0,
		           .samples = 100,
		           .timeout = 10 };
	bg_run_opts ro = BG_RUN_OPTS_INIT;
	const char *const files[] = { "pgid", "marker", NULL };
	bg_exec_result r;
	bg_results *res = NULL;
	char dir[64], path[96], *text = NULL;
	struct stat st;
	double t0;
	size_t len;
	long pgid;

	make_tmpdir(dir);
	o.cwd = dir;
	ro.cwd = dir;
	bg_ctx_set_cancel(ctx, &cancel_flag);

	/* Already cancelled: nothing starts. */
	cancel_flag = 1;
	assert_int_equal(bg_exec(ctx, "touch marker", &o, &r), BG_ERROR);
	assert_string_equal(bg_ctx_error(ctx), "interrupted");
	snprintf(path, sizeof(path), "%s/marker", dir);
	assert_int_equal(stat(path, &st), -1);

	/* Cancelled while it runs: the whole group is killed at once. */
	cancel_flag = 0;
	cancel_after(0.3);
	t0 = now();
	assert_int_equal(bg_exec(ctx, "echo $$ > pgid; sleep 1000 & sleep 1000", &o, &r), BG_ERROR);
	assert_true(now() - t0 < 1.5);
	assert_string_equal(bg_ctx_error(ctx), "interrupted");
	assert_null(r.out);
	snprintf(path, sizeof(path), "%s/pgid", dir);
	assert_int_equal(bg_read_file(ctx, path, &text, &len), 0);
	pgid = strtol(text, NULL, 10);
	free(text);
	assert_true(pgid > 1);
	assert_true(group_gone((pid_t)pgid, 2.0));

	/* A benchmark cancelled half-way leaves no half series behind. */
	cancel_flag = 0;
	cancel_after(0.5);
	assert_int_equal(bg_results_new(&res), 0);
	assert_int_equal(bg_runner_run(ctx, &b, &ro, res), BG_ERROR);
	assert_string_equal(bg_ctx_error(ctx), "interrupted");
	assert_int_equal(bg_results_series_count(res), 0);
	bg_results_free(res);

	bg_ctx_set_cancel(ctx, NULL);
	cancel_flag = 0;
	signal(SIGALRM, SIG_DFL);
	remove_tmpdir(dir, files);
}

/* The thread that takes SIGUSR1 (blocked in the others): it sets the cancel
 * flag without interrupting the thread waiting for the command, then says
 * so with the file "flagged" in the folder it is given. */
static void *cancel_thread(void *arg)
{
	const char *dir = arg;
	char path[96];
	sigset_t usr1;
	int sig = 0;
	FILE *f;

	sigemptyset(&usr1);
	sigaddset(&usr1, SIGUSR1);
	if (sigwait(&usr1, &sig) != 0)
		return NULL;
	cancel_flag = sig;
	snprintf(path, sizeof(path), "%s/flagged", dir);
	if ((f = fopen(path, "w")))
		fclose(f);
	return NULL;
}

/*
 * The signal that interrupts benchguard may reach the command too, at the
 * same moment (systemd, a CI runner killing the whole tree): a command that
 * died of it while the flag was being set is an interrupted execution, not
 * the benchmark's failure (stored as such, the run then marked complete),
 * nor a failed build that a worktree would remember.
 */
static void test_exec_cancelled_as_it_ends(void **state)
{
	bg_ctx *ctx = *state;
	bg_exec_opts o = { NULL, 0, 1, 0, NULL, NULL };
	const char *const files[] = { "flagged", NULL };
	bg_exec_result r;
	sigset_t usr1, old;
	pthread_t t;
	char dir[64];
	int rc, flag, signaled;

	make_tmpdir(dir);
	o.cwd = dir;
	o.timeout = 10;
	cancel_flag = 0;
	bg_ctx_set_cancel(ctx, &cancel_flag);
	sigemptyset(&usr1);
	sigaddset(&usr1, SIGUSR1);
	assert_int_equal(pthread_sigmask(SIG_BLOCK, &usr1, &old), 0);
	assert_int_equal(pthread_create(&t, NULL, cancel_thread, dir), 0);
	/* No sleep in the loop: the command is gone within the 100 ms the
	 * waiting thread would take to look at the flag by itself. */
	rc = bg_exec(ctx, "kill -USR1 $PPID; while [ ! -e flagged ]; do :; done; kill -TERM $$", &o,
	             &r);
	assert_int_equal(pthread_join(t, NULL), 0);
	assert_int_equal(pthread_sigmask(SIG_SETMASK, &old, NULL), 0);
	flag = cancel_flag;
	signaled = r.signaled;
	bg_exec_result_clear(&r);
	/* Put back before asserting: the next tests must not start cancelled. */
	bg_ctx_set_cancel(ctx, NULL);
	cancel_flag = 0;
	remove_tmpdir(dir, files);
	assert_int_equal(flag, SIGUSR1);
	assert_int_equal(rc, BG_ERROR);
	assert_string_equal(bg_ctx_error(ctx), "interrupted");
	assert_false(signaled);
}

static void test_exec_crash_and_describe(void **state)
{
	bg_ctx *ctx = *state;
	bg_exec_result r;
	char *desc;

	exec_ok(ctx, "kill -SEGV $$", NULL, &r);
	assert_true(r.signaled && !r.exited && !r.timed_out);
	assert_int_equal(r.term_signal, SIGSEGV);
	desc = bg_exec_describe(&r, 0);
	assert_string_equal(desc, "killed by signal 11 (Segmentation fault)");
	free(desc);
	bg_exec_result_clear(&r);
	exec_ok(ctx, "exit 3", NULL, &r);
	desc = bg_exec_describe(&r, 0);
	assert_string_equal(desc, "exit status 3");
	free(desc);
	bg_exec_result_clear(&r);
}

static void test_exec_stdout_bounded(void **state)
{
	bg_ctx *ctx = *state;
	bg_exec_opts o = { NULL, 0, 1, 1 << 20, NULL, NULL };
	struct rusage before, after;
	bg_exec_result r;
	size_t i;

	getrusage(RUSAGE_SELF, &before);
	exec_ok(ctx, "head -c 50000000 /dev/zero", &o, &r);
	getrusage(RUSAGE_SELF, &after);
	assert_true(r.exited && r.exit_status == 0);
	assert_int_equal(r.out_len, 1 << 20);
	assert_true(r.out_truncated);
	for (i = 0; i < r.out_len; i += 4093)
		assert_int_equal(r.out[i], 0);
	assert_int_equal(r.out[r.out_len], '\0');
	/* 50 MB went through; what stayed is the 1 MiB kept (KiB, as Linux). */
	assert_true(after.ru_maxrss - before.ru_maxrss < 24 * 1024);
	bg_exec_result_clear(&r);

	/* Exactly the limit is not truncated. */
	exec_ok(ctx, "head -c 1048576 /dev/zero", &o, &r);
	assert_int_equal(r.out_len, 1 << 20);
	assert_false(r.out_truncated);
	bg_exec_result_clear(&r);
	exec_ok(ctx, "true", &o, &r);
	assert_non_null(r.out);
	assert_int_equal(r.out_len, 0);
	assert_string_equal(r.out, "");
	bg_exec_result_clear(&r);
}

/* A build's stdout past the limit: its end is kept, where the error is. */
static void test_exec_stdout_tail_kept(void **state)
{
	bg_ctx *ctx = *state;
	bg_exec_opts o = { NULL, 0, 1, 4096, NULL, NULL };
	bg_exec_result r;

	assert_int_equal(bg_exec__tail(ctx, "seq 1 100000; echo last line", &o, &r), 0);
	assert_true(r.exited && r.exit_status == 0);
	assert_true(r.out_truncated);
	assert_true(r.out_len <= 4096 && r.out_len >= 2048);
	assert_int_equal(r.out[r.out_len], '\0');
	assert_non_null(strstr(r.out, "99999\n100000\nlast line\n"));
	assert_int_equal(strlen(r.out), r.out_len);
	bg_exec_result_clear(&r);

	/* Below the limit, all of it. */
	assert_int_equal(bg_exec__tail(ctx, "seq 1 3", &o, &r), 0);
	assert_string_equal(r.out, "1\n2\n3\n");
	assert_false(r.out_truncated);
	bg_exec_result_clear(&r);
}

static void test_exec_stderr_tail(void **state)
{
	bg_ctx *ctx = *state;
	bg_exec_opts o = { NULL, 0, 1, 0, NULL, NULL };
	bg_buf want_err = BG_BUF_INIT, want_out = BG_BUF_INIT;
	bg_exec_result r;
	int i;

	for (i = 1; i <= 100000; i++)
		assert_int_equal(bg_buf_printf(&want_err, "%d\n", i), 0);
	for (i = 1; i <= 200000; i++)
		assert_int_equal(bg_buf_printf(&want_out, "%d\n", i), 0);

	/* Both pipes busy at once: all of stdout, the end of stderr. */
	exec_ok(ctx, "seq 1 200000; seq 1 100000 >&2", &o, &r);
	assert_true(r.exited && r.exit_status == 0);
	assert_int_equal(r.out_len, want_out.len);
	assert_memory_equal(r.out, want_out.ptr, want_out.len);
	assert_int_equal(r.err_len, BG_ERR_TAIL);
	assert_memory_equal(r.err_tail, want_err.ptr + want_err.len - BG_ERR_TAIL, BG_ERR_TAIL);
	assert_int_equal(r.err_tail[BG_ERR_TAIL], '\0');
	assert_string_equal(r.err_tail + BG_ERR_TAIL - 13, "99999\n100000\n");
	bg_exec_result_clear(&r);

	exec_ok(ctx, "echo oops >&2", &o, &r);
	assert_int_equal(r.err_len, 5);
	assert_string_equal(r.err_tail, "oops\n");
	bg_exec_result_clear(&r);
	bg_buf_clear(&want_err);
	bg_buf_clear(&want_out);
}

/* ----------------------------------------------------------- bg_runner_run */

typedef struct {
	int calls, done, total;
} progress_log;

static void on_progress(const char *benchmark, int done, int total, void *data)
{
	progress_log *p = data;

	assert_non_null(benchmark);
	p->calls++;
	p->done = done;
	p->total = total;
}

static const bg_series *find_series(const bg_results *res, const char *b, const char *m)
{
	size_t i;

	for (i = 0; i < bg_results_series_count(res); i++) {
		const bg_series *s = bg_results_series(res, i);
		if (!strcmp(s->benchmark, b) && !strcmp(s->metric, m))
			return s;
	}
	return NULL;
}

static size_t series_of(const bg_results *res, const char *b)
{
	size_t i, n = 0;

	for (i = 0; i < bg_results_series_count(res); i++)
		n += !strcmp(bg_results_series(res, i)->benchmark, b);
	return n;
}

static void test_run_time_format(void **state)
{
	bg_ctx *ctx = *state;
	bg_benchmark b = { .name = "sleepy",
		           .command = "sleep 0.01",
		           .format = BG_FORMAT_TIME,
		           .warmup = 2,
		           .samples = 3,
		           .timeout = 10 };
	bg_run_opts o = BG_RUN_OPTS_INIT;
	progress_log p = { 0, 0, 0 };
	const bg_series *wall, *cpu, *rss;
	bg_results *res = NULL;
	char cmd[128];
	long hold;
	size_t i;

	o.progress = on_progress;
	o.progress_data = &p;
	assert_int_equal(bg_results_new(&res), 0);
	assert_int_equal(bg_runner_run(ctx, &b, &o, res), 0);
	assert_int_equal(bg_results_find_outcome(res, "sleepy")->status, BG_BENCH_OK);
	assert_null(bg_results_find_outcome(res, "sleepy")->message);
	/* wall_time and cpu_time only: `sleep` peaks below this process's own
	 * RSS, which Linux reports as the child's floor, so peak_rss would be
	 * ours, not the benchmark's, and is left out (see add_peak_rss). */
	assert_int_equal(bg_results_series_count(res), 2);
	/* 2 warm-ups + 3 samples executed, 3 kept. */
	assert_true(p.calls == 5 && p.done == 5 && p.total == 5);
	wall = find_series(res, "sleepy", "wall_time");
	cpu = find_series(res, "sleepy", "cpu_time");
	rss = find_series(res, "sleepy", "peak_rss");
	assert_non_null(wall);
	assert_non_null(cpu);
	assert_null(rss);
	assert_string_equal(wall->unit, "s");
	assert_string_equal(cpu->unit, "s");
	assert_true(wall->n == 3 && cpu->n == 3);
	for (i = 0; i < 3; i++) {
		assert_true(wall->values[i] >= 0.01 && wall->values[i] < 5.0);
		assert_true(cpu->values[i] >= 0 && cpu->values[i] < 1.0);
	}

	/* A shell holding a 32 MiB string peaks above 32 MiB: bytes, not KiB.
	 * It holds the margin peak_rss needs over our own peak too, so that
	 * it keeps its peak_rss on a machine with many CPUs. */
	hold = 32L * 1024 * 1024 + 1024 * bg_runner__rss_slack_kib(sysconf(_SC_NPROCESSORS_CONF),
	                                                           sysconf(_SC_PAGESIZE) / 1024);
	snprintf(cmd, sizeof(cmd), "x=$(head -c %ld /dev/zero | tr '\\000' a); test ${#x} -eq %ld",
	         hold, hold);
	b.name = "mem";
	b.command = cmd;
	b.warmup = 0;
	b.samples = 1;
	assert_int_equal(bg_runner_run(ctx, &b, NULL, res), 0);
	assert_int_equal(bg_results_find_outcome(res, "mem")->status, BG_BENCH_OK);
	rss = find_series(res, "mem", "peak_rss");
	assert_non_null(rss);
	assert_int_equal(rss->n, 1);
	assert_string_equal(rss->unit, "B");
	/* Linux reports KiB: a whole number of KiB, converted to bytes. */
	assert_true(rss->values[0] >= 32.0 * 1024 * 1024 && rss->values[0] < 1024.0 * 1024 * 1024);
	assert_true(fabs(fmod(rss->values[0], 1024.0)) < 0.5);
	bg_results_free(res);
}

/*
 * peak_rss is kept only when every sample is above benchguard's own peak by
 * more than the kernel's readings of it can differ.  A small benchmark's
 * sample is benchguard's peak read at the exec; read again afterwards it
 * came out a few KiB lower now and then, and a peak_rss series of `true`
 * appeared in some runs only (calibrate listed it, measured in one run).
 */
static void test_run_peak_rss_slack(void **state)
{
	const long same[3] = { 12000, 12000, 12000 }, near[3] = { 12040, 13000, 13000 },
	           far[2] = { 12513, 20000 }, late[2] = { 20000, 12512 },
	           before[2] = { 12100, 12100 }, unread[2] = { -1, -1 },
	           lower[2] = { 11000, 11000 };

	(void)state;
	/* Per-CPU batches of max(32, 2 x CPUs) pages, twice: two readings. */
	assert_int_equal(bg_runner__rss_slack_kib(1, 4), 512);
	assert_int_equal(bg_runner__rss_slack_kib(2, 4), 512);
	assert_int_equal(bg_runner__rss_slack_kib(8, 4), 2048);
	assert_int_equal(bg_runner__rss_slack_kib(64, 4), 65536);
	assert_int_equal(bg_runner__rss_slack_kib(64, 64), 1048576);
	assert_int_equal(bg_runner__rss_slack_kib(0, 0), 512);
	/* Samples at benchguard's own 12,000 KiB, or within 512 KiB of it. */
	assert_int_equal(bg_runner__rss_below(same, NULL, 3, 12000, 512), 0);
	assert_int_equal(bg_runner__rss_below(same, NULL, 3, 11990, 512), 0);
	assert_int_equal(bg_runner__rss_below(near, NULL, 3, 12000, 512), 0);
	assert_int_equal(bg_runner__rss_below(late, NULL, 2, 12000, 512), 1);
	assert_int_equal(bg_runner__rss_below(far, NULL, 2, 12000, 512), -1);
	assert_int_equal(bg_runner__rss_below(far, NULL, 0, 12000, 512), -1);
	/* The peak read as each execution started counts too: afterwards the
	 * kernel may report a lower one (pages it took back). */
	assert_int_equal(bg_runner__rss_below(far, before, 2, 12000, 512), 0);
	assert_int_equal(bg_runner__rss_below(far, unread, 2, 12000, 512), -1);
	assert_int_equal(bg_runner__rss_below(far, lower, 2, 12000, 512), -1);
}

static void test_run_overrides_and_env(void **state)
{
	bg_ctx *ctx = *state;
	bg_benchmark b = { .name = "envcheck",
		           .command = "test \"$BENCHGUARD_BENCHMARK\" = envcheck && "
		                      "test \"$BENCHGUARD_SAMPLES\" = 2 && "
		                      "test \"$BENCHGUARD_WARMUP\" = 1",
		           .format = BG_FORMAT_TIME,
		           .warmup = 3,
		           .samples = 5,
		           .timeout = 10 };
	bg_run_opts o = BG_RUN_OPTS_INIT;
	progress_log p = { 0, 0, 0 };
	bg_results *res = NULL;

	o.samples = 2;
	o.warmup = 1;
	o.progress = on_progress;
	o.progress_data = &p;
	assert_int_equal(bg_results_new(&res), 0);
	assert_int_equal(bg_runner_run(ctx, &b, &o, res), 0);
	assert_int_equal(bg_results_find_outcome(res, "envcheck")->status, BG_BENCH_OK);
	assert_int_equal(find_series(res, "envcheck", "wall_time")->n, 2);
	assert_true(p.calls == 3 && p.total == 3);
	bg_results_free(res);
}

/*
 * A benchmark built by hand that no config gives is refused before
 * anything runs: with 0 samples, or a format or an instrument outside its
 * enum, it ran nothing and was stored as a success with no series.
 */
static void test_run_refuses_what_no_config_gives(void **state)
{
	static const bg_measure bad_instr[] = { { { (bg_instrument)7 }, 1 } };
	static const bg_measure no_alt[] = { { { BG_INSTR_TIME }, 0 } };
	bg_ctx *ctx = *state;
	bg_benchmark b = { .name = "h",
		           .command = "touch ran",
		           .format = BG_FORMAT_TIME,
		           .samples = 3,
		           .timeout = 10 };
	static const char *const files[] = { "ran", NULL };
	bg_run_opts o = BG_RUN_OPTS_INIT;
	bg_results *res = NULL;
	char dir[64], ran[128];
	const struct {
		int samples, opt_samples, format;
		const bg_measure *m;
		const char *msg;
	} cases[] = {
		{ 0, -1, BG_FORMAT_TIME, NULL,
		  "benchmark \"h\": 0 samples; a run needs at least one" },
		{ -2, -1, BG_FORMAT_TIME, NULL,
		  "benchmark \"h\": -2 samples; a run needs at least one" },
		{ 3, 0, BG_FORMAT_TIME, NULL,
		  "benchmark \"h\": 0 samples; a run needs at least one" },
		{ 3, -1, 42, NULL, "benchmark \"h\": unknown format 42" },
		{ 3, -1, -1, NULL, "benchmark \"h\": unknown format -1" },
		{ 3, -1, BG_FORMAT_TIME, bad_instr,
		  "benchmark \"h\": measure[0] names unknown instrument 7" },
		{ 3, -1, BG_FORMAT_TIME, no_alt,
		  "benchmark \"h\": measure[0] holds 0 alternatives (1 to 3)" },
	};
	size_t i;

	make_tmpdir(dir);
	snprintf(ran, sizeof(ran), "%s/ran", dir);
	o.cwd = dir;
	assert_int_equal(bg_results_new(&res), 0);
	for (i = 0; i < BG_ARRAY_SIZE(cases); i++) {
		b.samples = cases[i].samples;
		o.samples = cases[i].opt_samples;
		b.format = (bg_format)cases[i].format;
		b.measure = cases[i].m;
		b.nmeasure = cases[i].m ? 1 : 0;
		assert_int_equal(bg_runner_run(ctx, &b, &o, res), BG_EINPUT);
		assert_string_equal(bg_ctx_error(ctx), cases[i].msg);
		assert_null(bg_results_find_outcome(res, "h"));
		assert_int_equal(access(ran, F_OK), -1);
	}
	/* The same benchmark as a config gives it runs. */
	b.samples = 2;
	o.samples = -1;
	b.format = BG_FORMAT_TIME;
	b.measure = NULL;
	b.nmeasure = 0;
	assert_int_equal(bg_runner_run(ctx, &b, &o, res), 0);
	assert_int_equal(bg_results_find_outcome(res, "h")->status, BG_BENCH_OK);
	assert_int_equal(find_series(res, "h", "wall_time")->n, 2);
	assert_int_equal(access(ran, F_OK), 0);
	remove_tmpdir(dir, files);
	bg_results_free(res);
}

static void test_run_failures(void **state)
{
	bg_ctx *ctx = *state;
	bg_benchmark bad = { .name = "bad",
		             .command = "echo first line >&2; echo boom >&2; exit 3",
		             .format = BG_FORMAT_TIME,
		             .warmup = 1,
		             .samples = 3,
		             .timeout = 10 };
	bg_benchmark partial = { .name = "partial",
		                 .command = "n=$(cat count 2>/dev/null || echo 0); "
		                            "echo $((n + 1)) > count; test $n -lt 2",
		                 .format = BG_FORMAT_TIME,
		                 .warmup = 0,
		                 .samples = 5,
		                 .timeout = 10 };
	bg_benchmark slow = { .name = "slow",
		              .command = "sleep 5",
		              .format = BG_FORMAT_TIME,
		              .warmup = 0,
		              .samples = 1,
		              .timeout = 0.3 };
	bg_run_opts o = BG_RUN_OPTS_INIT;
	progress_log p = { 0, 0, 0 };
	const char *const files[] = { "count", NULL };
	const bg_series *other;
	bg_results *res = NULL;
	char dir[64], *text = NULL;
	size_t len;

	make_tmpdir(dir);
	o.cwd = dir;
	o.progress = on_progress;
	o.progress_data = &p;
	assert_int_equal(bg_results_new(&res), 0);
	assert_int_equal(bg_results_add(ctx, res, "other", "m", "s", 1.0), 0);
	assert_int_equal(bg_results_add(ctx, res, "other", "m", "s", 2.0), 0);
	assert_int_equal(bg_results_set_outcome(ctx, res, "other", BG_BENCH_OK, NULL), 0);

	/* The failing warm-up fails the benchmark and stops it. */
	assert_int_equal(bg_runner_run(ctx, &bad, &o, res), 0);
	assert_int_equal(bg_results_find_outcome(res, "bad")->status, BG_BENCH_FAILED);
	assert_string_equal(bg_results_find_outcome(res, "bad")->message,
	                    "exit status 3; stderr: first line | boom");
	assert_int_equal(p.calls, 1);
	assert_int_equal(series_of(res, "bad"), 0);

	/* Two samples made it into series before the third failed: dropped. */
	assert_int_equal(bg_runner_run(ctx, &partial, &o, res), 0);
	assert_int_equal(bg_results_find_outcome(res, "partial")->status, BG_BENCH_FAILED);
	assert_string_equal(bg_results_find_outcome(res, "partial")->message, "exit status 1");
	assert_int_equal(series_of(res, "partial"), 0);
	snprintf(dir + strlen(dir), sizeof(dir) - strlen(dir), "/count");
	assert_int_equal(bg_read_file(ctx, dir, &text, &len), 0);
	*strrchr(dir, '/') = '\0';
	assert_string_equal(text, "3\n");
	free(text);

	assert_int_equal(bg_runner_run(ctx, &slow, &o, res), 0);
	assert_int_equal(bg_results_find_outcome(res, "slow")->status, BG_BENCH_FAILED);
	assert_string_equal(bg_results_find_outcome(res, "slow")->message, "timed out after 0.3 s");

	/* Someone else's series and outcome are untouched. */
	other = find_series(res, "other", "m");
	assert_non_null(other);
	assert_int_equal(other->n, 2);
	assert_true(fabs(other->values[1] - 2.0) < 1e-12);
	assert_int_equal(bg_results_series_count(res), 1);
	assert_int_equal(bg_results_find_outcome(res, "other")->status, BG_BENCH_OK);
	bg_results_free(res);
	remove_tmpdir(dir, files);
}

/* The progress callback is host code run between a benchmark's
 * executions: what it ignores from then on must not reach the later ones.
 * The runner holds /proc/self/status open across them; this fails if it
 * read the dispositions once per benchmark instead of at each execution. */
static void ignore_after_first(const char *benchmark, int done, int total, void *data)
{
	struct sigaction ign;

	(void)benchmark;
	(void)total;
	if (done != 1)
		return;
	memset(&ign, 0, sizeof(ign));
	ign.sa_handler = SIG_IGN;
	assert_int_equal(sigaction(SIGUSR1, &ign, data), 0);
}

static void test_run_dispositions_each_execution(void **state)
{
	bg_ctx *ctx = *state;
	char dir[64], cmd[256], path[96], *text = NULL;
	bg_benchmark b = { .name = "sigs", .format = BG_FORMAT_TIME, .samples = 3, .timeout = 10 };
	bg_run_opts o = BG_RUN_OPTS_INIT;
	struct sigaction old;
	bg_results *res = NULL;
	FILE *f;
	long len;

	make_tmpdir(dir);
	snprintf(path, sizeof(path), "%s/sigign", dir);
	snprintf(cmd, sizeof(cmd), "grep '^SigIgn:' /proc/self/status >> %s", path);
	b.command = cmd;
	o.progress = ignore_after_first;
	o.progress_data = &old;
	assert_int_equal(bg_results_new(&res), 0);
	assert_int_equal(bg_runner_run(ctx, &b, &o, res), 0);
	sigaction(SIGUSR1, &old, NULL);
	assert_int_equal(bg_results_find_outcome(res, "sigs")->status, BG_BENCH_OK);
	f = fopen(path, "r");
	assert_non_null(f);
	text = calloc(1, 4096);
	assert_non_null(text);
	len = (long)fread(text, 1, 4095, f);
	fclose(f);
	assert_true(len > 0);
	if (strcmp(text, "SigIgn:\t0000000000000000\nSigIgn:\t0000000000000000\n"
	                 "SigIgn:\t0000000000000000\n") != 0)
		fail_msg("an execution inherited what the host ignored:\n%s", text);
	free(text);
	bg_results_free(res);
	assert_int_equal(unlink(path), 0);
	assert_int_equal(rmdir(dir), 0);
}

static void test_run_failure_stderr_lines(void **state)
{
	bg_ctx *ctx = *state;
	bg_benchmark b = { .name = "noisy",
		           .command = "seq 1 5000 >&2; exit 1",
		           .format = BG_FORMAT_TIME,
		           .warmup = 0,
		           .samples = 1,
		           .timeout = 10 };
	const char *msg, *tail;
	bg_results *res = NULL;
	char *endp;
	long first, second;

	assert_int_equal(bg_results_new(&res), 0);
	assert_int_equal(bg_runner_run(ctx, &b, NULL, res), 0);
	msg = bg_results_find_outcome(res, "noisy")->message;
	assert_non_null(msg);
	assert_true(strncmp(msg, "exit status 1; stderr: ", 23) == 0);
	assert_true(strlen(msg) <= 23 + 1024);
	tail = msg + 23;
	/* The last lines, the first of them whole: k is followed by k + 1. */
	first = strtol(tail, &endp, 10);
	assert_true(strncmp(endp, " | ", 3) == 0);
	second = strtol(endp + 3, NULL, 10);
	assert_int_equal(second, first + 1);
	assert_true(first > 4000);
	assert_string_equal(msg + strlen(msg) - strlen("4998 | 4999 | 5000"), "4998 | 4999 | 5000");
	bg_results_free(res);
}

static void test_run_requires(void **state)
{
	bg_ctx *ctx = *state;
	const char *const missing[] = { "no-such-command-xyz" };
	const char *const cuda[] = { "cuda" };
	bg_benchmark b = { .name = "needs",
		           .command = "touch marker",
		           .format = BG_FORMAT_TIME,
		           .requires = missing,
		           .nrequires = 1,
		           .warmup = 0,
		           .samples = 1,
		           .timeout = 10 };
	bg_run_opts o = BG_RUN_OPTS_INIT;
	progress_log p = { 0, 0, 0 };
	bg_results *res = NULL;
	char dir[64], marker[96], *why = NULL;
	struct stat st;
	void *libcuda;

	make_tmpdir(dir);
	o.cwd = dir;
	o.progress = on_progress;
	o.progress_data = &p;
	snprintf(marker, sizeof(marker), "%s/marker", dir);
	assert_int_equal(bg_results_new(&res), 0);
	assert_int_equal(bg_runner_run(ctx, &b, &o, res), 0);
	assert_int_equal(bg_results_find_outcome(res, "needs")->status, BG_BENCH_SKIPPED);
	assert_string_equal(bg_results_find_outcome(res, "needs")->message,
	                    "command \"no-such-command-xyz\" not found");
	assert_int_equal(p.calls, 0);
	assert_int_equal(stat(marker, &st), -1); /* nothing was executed */
	assert_int_equal(bg_results_series_count(res), 0);

	assert_int_equal(bg_runner_requirement_met("sh", &why), 1);
	assert_null(why);
	assert_int_equal(bg_runner_requirement_met("/bin/sh", &why), 1);
	assert_int_equal(bg_runner_requirement_met("/etc/passwd", &why), 0);
	assert_string_equal(why, "command \"/etc/passwd\" not found");
	free(why);
	assert_int_equal(bg_runner_requirement_met("no-such-command-xyz", NULL), 0);

	libcuda = dlopen("libcuda.so.1", RTLD_NOW | RTLD_LOCAL);
	if (!libcuda) {
		/* No driver here: a plain skip with the reason. */
		assert_int_equal(bg_runner_requirement_met("cuda", &why), 0);
		assert_string_equal(why, "no CUDA driver (libcuda.so.1 not found)");
		free(why);
		b.requires = cuda;
		assert_int_equal(bg_runner_run(ctx, &b, &o, res), 0);
		assert_int_equal(bg_results_find_outcome(res, "needs")->status, BG_BENCH_SKIPPED);
		assert_string_equal(bg_results_find_outcome(res, "needs")->message,
		                    "no CUDA driver (libcuda.so.1 not found)");
		assert_int_equal(stat(marker, &st), -1);
	} else if (bg_runner_requirement_met("cuda", &why)) {
		assert_null(why);
	} else {
		assert_true(strncmp(why, "no CUDA device", 14) == 0);
		free(why);
	}
	bg_results_free(res);
	remove_tmpdir(dir, NULL);
}

/* What a fake libcuda.so.1 returns is set through its environment. */
static const char fake_cuda_src[] =
        "#include <stdlib.h>\n"
        "int cuInit(unsigned f) { const char *e = getenv(\"FAKE_CU_INIT\");"
        " (void)f; return e ? atoi(e) : 0; }\n"
        "int cuDeviceGetCount(int *n) { const char *e = getenv(\"FAKE_CU_COUNT\");"
        " *n = e ? atoi(e) : 0; return 0; }\n";

/* Runs this test binary as a probe (see main) against the fake driver. */
static char *cuda_probe(bg_ctx *ctx, const char *dir, const char *init, const char *count)
{
	char self[512], cmd[600], ldpath[600], e_init[64], e_count[64];
	const char *env[] = { ldpath, e_init, e_count, NULL };
	bg_exec_opts o = { NULL, 30, 1, 0, env, NULL };
	bg_exec_result r;
	ssize_t n = readlink("/proc/self/exe", self, sizeof(self) - 1);
	char *out;

	assert_true(n > 0);
	self[n] = '\0';
	snprintf(cmd, sizeof(cmd), "%s --cuda-probe", self);
	snprintf(ldpath, sizeof(ldpath), "LD_LIBRARY_PATH=%s", dir);
	snprintf(e_init, sizeof(e_init), "FAKE_CU_INIT=%s", init);
	snprintf(e_count, sizeof(e_count), "FAKE_CU_COUNT=%s", count);
	exec_ok(ctx, cmd, &o, &r);
	assert_true(r.exited && r.exit_status == 0);
	out = r.out;
	r.out = NULL;
	bg_exec_result_clear(&r);
	return out;
}

static void test_requires_cuda_fake_driver(void **state)
{
	bg_ctx *ctx = *state;
	const char *const files[] = { "fake.c", "libcuda.so.1", NULL };
	bg_exec_opts o = { NULL, 60, 0, 0, NULL, NULL };
	bg_exec_result r;
	char dir[64], path[96], *out;
	FILE *f;

	make_tmpdir(dir);
	snprintf(path, sizeof(path), "%s/fake.c", dir);
	f = fopen(path, "w");
	assert_non_null(f);
	fputs(fake_cuda_src, f);
	assert_int_equal(fclose(f), 0);
	o.cwd = dir;
	exec_ok(ctx, "cc -shared -fPIC -o libcuda.so.1 fake.c", &o, &r);
	if (!r.exited || r.exit_status != 0) {
		bg_exec_result_clear(&r);
		remove_tmpdir(dir, files);
		skip(); /* no C compiler to build the fake driver */
	}
	bg_exec_result_clear(&r);

	out = cuda_probe(ctx, dir, "0", "2");
	assert_string_equal(out, "met\n");
	free(out);
	out = cuda_probe(ctx, dir, "0", "0");
	assert_string_equal(out, "no CUDA device\n");
	free(out);
	out = cuda_probe(ctx, dir, "100", "2"); /* CUDA_ERROR_NO_DEVICE */
	assert_string_equal(out, "no CUDA device\n");
	free(out);
	out = cuda_probe(ctx, dir, "3", "2");
	assert_string_equal(out, "no CUDA device (CUDA driver error 3)\n");
	free(out);
	remove_tmpdir(dir, files);
}

static void test_run_lines_format(void **state)
{
	bg_ctx *ctx = *state;
	const bg_metric_override higher[] = { { "lat", BG_DIR_HIGHER } };
	bg_benchmark b = { .name = "lb",
		           .command = "printf 'BENCHGUARD lat 1.5 ms\\nBENCHGUARD lat 2.5 ms\\n"
		                      "BENCHGUARD n %s count\\n' \"$BENCHGUARD_SAMPLES\"",
		           .format = BG_FORMAT_LINES,
		           .warmup = 2,
		           .samples = 7,
		           .timeout = 10,
		           .metrics = higher,
		           .nmetrics = 1 };
	bg_run_opts o = BG_RUN_OPTS_INIT;
	progress_log p = { 0, 0, 0 };
	const bg_series *lat, *n;
	bg_results *res = NULL;

	o.progress = on_progress;
	o.progress_data = &p;
	assert_int_equal(bg_results_new(&res), 0);
	assert_int_equal(bg_runner_run(ctx, &b, &o, res), 0);
	assert_int_equal(bg_results_find_outcome(res, "lb")->status, BG_BENCH_OK);
	/* The program repeats itself: one execution despite samples = 7. */
	assert_true(p.calls == 1 && p.total == 1);
	lat = find_series(res, "lb", "lat");
	n = find_series(res, "lb", "n");
	assert_non_null(lat);
	assert_non_null(n);
	assert_int_equal(lat->n, 2);
	assert_string_equal(lat->unit, "s");
	assert_true(fabs(lat->values[0] - 0.0015) < 1e-12 && fabs(lat->values[1] - 0.0025) < 1e-12);
	assert_int_equal(lat->direction, BG_DIR_HIGHER); /* the override */
	assert_int_equal(n->n, 1);
	assert_true(fabs(n->values[0] - 7.0) < 1e-12); /* BENCHGUARD_SAMPLES passed through */
	assert_int_equal(n->direction, BG_DIR_LOWER);

	/* Unparsable output: failed with the parser's message, nothing kept. */
	b.name = "lb2";
	b.command = "echo BENCHGUARD lat notanumber ms";
	assert_int_equal(bg_runner_run(ctx, &b, &o, res), 0);
	assert_int_equal(bg_results_find_outcome(res, "lb2")->status, BG_BENCH_FAILED);
	assert_true(strncmp(bg_results_find_outcome(res, "lb2")->message, "lb2:1: ", 7) == 0);
	assert_non_null(strstr(bg_results_find_outcome(res, "lb2")->message, "notanumber"));
	assert_int_equal(series_of(res, "lb2"), 0);

	/* A nonzero exit fails it even with good output. */
	b.name = "lb3";
	b.command = "echo BENCHGUARD lat 1 ms; exit 2";
	assert_int_equal(bg_runner_run(ctx, &b, &o, res), 0);
	assert_string_equal(bg_results_find_outcome(res, "lb3")->message, "exit status 2");
	assert_int_equal(series_of(res, "lb3"), 0);

	/* Output past the limit. */
	b.name = "lb4";
	b.command = "seq 1 1000";
	o.out_limit = 16;
	assert_int_equal(bg_runner_run(ctx, &b, &o, res), 0);
	assert_string_equal(bg_results_find_outcome(res, "lb4")->message,
	                    "output exceeded 16 bytes");
	assert_int_equal(series_of(res, "lb4"), 0);
	assert_int_equal(bg_results_series_count(res), 2);
	bg_results_free(res);
}

static int setup(void **state)
{
	bg_ctx *ctx = NULL;

	if (bg_ctx_new(&ctx) < 0)
		return -1;
	*state = ctx;
	return 0;
}

static int teardown(void **state)
{
	bg_ctx_free(*state);
	return 0;
}

/* The child half of test_requires_cuda_fake_driver. */
static int cuda_probe_main(void)
{
	char *why = NULL;

	if (bg_runner_requirement_met("cuda", &why))
		printf("met\n");
	else
		printf("%s\n", why ? why : "(no reason)");
	free(why);
	return 0;
}

/*
 * The alert targets' secrets a loaded configuration names are replaced in
 * what a command prints, before anything reads it: its stdout, and the tail
 * of its stderr, also when that tail starts inside one.  What names the
 * targets (a pr number, an API host, a webhook's host) is left.
 */
static void test_exec_secrets_replaced(void **state)
{
	static const char cfg_text[] =
	        "{ \"benchmarks\": [ { \"name\": \"b\", \"command\": \"true\" } ],\n"
	        "  \"alerts\": [ { \"kind\": \"github\", \"repo\": \"o/r\", \"token\": "
	        "\"${BG_T_TOKEN}\", \"pr\": \"${BG_T_PR}\", \"api_url\": \"${BG_T_API}\" },\n"
	        "    { \"kind\": \"webhook\", \"url\": \"https://${BG_T_HOST}/hooks/${BG_T_HOOK}\","
	        " \"secret\": \"lit-${BG_T_SALT}\" } ] }\n";
	bg_ctx *ctx = NULL;
	bg_config *cfg = NULL;
	bg_exec_opts o = { NULL, 10, 1, 0, NULL, NULL };
	bg_exec_result r;

	(void)state;
	setenv("BG_T_TOKEN", "ghs_unit_token_0123456789", 1);
	setenv("BG_T_PR", "12345678", 1);
	setenv("BG_T_API", "http://127.0.0.1:9", 1);
	setenv("BG_T_HOST", "hooks.example.com", 1);
	setenv("BG_T_HOOK", "T000/B000/abcdefghijklmnopqrstuvwx", 1);
	setenv("BG_T_SALT", "pepperpepper", 1);
	assert_int_equal(bg_ctx_new(&ctx), 0);
	assert_int_equal(bg_config_parse(ctx, "t.json", cfg_text, strlen(cfg_text), &cfg), 0);

	exec_ok(ctx,
	        "echo \"Bearer $BG_T_TOKEN pr $BG_T_PR at $BG_T_API\"; "
	        "echo \"to https://$BG_T_HOST/hooks/$BG_T_HOOK salt $BG_T_SALT key "
	        "lit-$BG_T_SALT\" >&2",
	        &o, &r);
	assert_string_equal(r.out, "Bearer [secret] pr 12345678 at http://127.0.0.1:9\n");
	assert_int_equal(r.out_len, strlen(r.out));
	assert_string_equal(r.err_tail, "to [secret] salt [secret] key [secret]\n");
	assert_int_equal(r.err_len, strlen(r.err_tail));
	bg_exec_result_clear(&r);

	/* stderr's kept tail starts 10 bytes before the token's end. */
	exec_ok(ctx,
	        "head -c 100 /dev/zero | tr '\\0' A >&2; printf %s \"$BG_T_TOKEN\" >&2; "
	        "head -c 4086 /dev/zero | tr '\\0' B >&2",
	        &o, &r);
	assert_int_equal(r.err_len, 8 + 4086);
	assert_memory_equal(r.err_tail, "[secret]BBBB", 12);
	assert_null(strstr(r.err_tail, "0123456789"));
	bg_exec_result_clear(&r);

	bg_config_free(cfg);
	bg_ctx_free(ctx);
	unsetenv("BG_T_TOKEN");
	unsetenv("BG_T_HOOK");
	unsetenv("BG_T_SALT");
}

int main(int argc, char **argv)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_exec_no_leaks),
		cmocka_unit_test(test_exec_statuses),
		cmocka_unit_test(test_exec_direct_path),
		cmocka_unit_test(test_exec_direct_exec_errors),
		cmocka_unit_test(test_exec_cwd),
		cmocka_unit_test(test_exec_env),
		cmocka_unit_test(test_exec_signal_dispositions),
		cmocka_unit_test(test_exec_closed_pipes),
		cmocka_unit_test(test_exec_timeout_kills_group),
		cmocka_unit_test(test_exec_kills_leftovers),
		cmocka_unit_test(test_exec_escaped_holder),
		cmocka_unit_test(test_exec_leaves_host_alone),
		cmocka_unit_test(test_exec_cancel),
		cmocka_unit_test(test_exec_cancelled_as_it_ends),
		cmocka_unit_test(test_exec_crash_and_describe),
		cmocka_unit_test(test_exec_stdout_bounded),
		cmocka_unit_test(test_exec_stdout_tail_kept),
		cmocka_unit_test(test_exec_stderr_tail),
		cmocka_unit_test(test_exec_secrets_replaced),
		cmocka_unit_test(test_run_time_format),
		cmocka_unit_test(test_run_peak_rss_slack),
		cmocka_unit_test(test_run_overrides_and_env),
		cmocka_unit_test(test_run_failures),
		cmocka_unit_test(test_run_failure_stderr_lines),
		cmocka_unit_test(test_run_dispositions_each_execution),
		cmocka_unit_test(test_run_refuses_what_no_config_gives),
		cmocka_unit_test(test_run_requires),
		cmocka_unit_test(test_requires_cuda_fake_driver),
		cmocka_unit_test(test_run_lines_format),
	};

	if (argc == 2 && !strcmp(argv[1], "--cuda-probe"))
		return cuda_probe_main();
	/* Orphans of the commands come back to us (see the top comment). */
	prctl(PR_SET_CHILD_SUBREAPER, 1);
	return cmocka_run_group_tests_name("runner", tests, setup, teardown);
}
