/*
 * counters.c -- the `counters` instrument: hardware counters through
 * perf_event_open(2), on the benchmark's whole process tree.
 *
 * The events are opened by the child itself, between vfork and exec, on
 * itself (pid 0) with enable_on_exec and inherit: counting starts at the
 * exec of the command, not a moment later, and every process the command
 * starts is counted into them, summed by the kernel as each exits.  The
 * child hands the descriptors to benchguard over a socket (SCM_RIGHTS)
 * before it execs, so the vfork path stays one path for every instrument.
 * The group leader is also left open in the command at a number named by
 * BENCHGUARD_COUNTERS_FD, so that benchguard_region.h can reset, disable
 * and enable the group around the code a benchmark means to measure.
 *
 * No `perf` binary is needed.  Where the kernel does not let us count
 * (perf_event_paranoid, seccomp, a VM without a PMU) the events cannot be
 * opened: bg_counters__new says why, and the series are skipped.
 */
#include <errno.h>
#include <fcntl.h>
#include <linux/perf_event.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "internal.h"

#define MAX_EVENTS 16

static const struct event {
	const char *name;
	uint32_t type;
	uint64_t config;
	const char *unit;
} events[] = {
	{ "instructions", PERF_TYPE_HARDWARE, PERF_COUNT_HW_INSTRUCTIONS, "instr" },
	{ "cycles", PERF_TYPE_HARDWARE, PERF_COUNT_HW_CPU_CYCLES, "cycles" },
	{ "ref_cycles", PERF_TYPE_HARDWARE, PERF_COUNT_HW_REF_CPU_CYCLES, "cycles" },
	{ "branches", PERF_TYPE_HARDWARE, PERF_COUNT_HW_BRANCH_INSTRUCTIONS, "branches" },
	{ "branch_misses", PERF_TYPE_HARDWARE, PERF_COUNT_HW_BRANCH_MISSES, "misses" },
	{ "cache_references", PERF_TYPE_HARDWARE, PERF_COUNT_HW_CACHE_REFERENCES, "refs" },
	{ "cache_misses", PERF_TYPE_HARDWARE, PERF_COUNT_HW_CACHE_MISSES, "misses" },
	/* The kernel's own counts: every machine has them, a PMU or not. */
	{ "task_clock", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_TASK_CLOCK, "ns" },
	{ "page_faults", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_PAGE_FAULTS, "faults" },
	{ "context_switches", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_CONTEXT_SWITCHES, "switches" },
	{ "cpu_migrations", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_CPU_MIGRATIONS, "migrations" },
};

static const char *const event_names[] = {
	"instructions",  "cycles",           "ref_cycles",     "branches",
	"branch_misses", "cache_references", "cache_misses",   "task_clock",
	"page_faults",   "context_switches", "cpu_migrations", NULL,
};

/* The default set: the first two are what `counters` promises; the
 * misses are counted where the PMU has them. */
static const char *const default_events[] = { "instructions", "cycles", "branch_misses",
	                                      "cache_misses", NULL };
#define DEFAULT_REQUIRED 2

struct bg_counters {
	size_t n;
	const struct event *ev[MAX_EVENTS];
	struct perf_event_attr attr[MAX_EVENTS];
	int fd[MAX_EVENTS]; /* benchguard's copies, after an execution */
	int sock[2];        /* [0] benchguard's end, [1] the child's */
	int region_fd;      /* the number the leader takes in the command */
	char env[64];       /* BENCHGUARD_COUNTERS_FD=<region_fd> */
	int kernel;
};

const char *const *bg_counter_events(void)
{
	return event_names;
}

const char *const *bg_counter_default_events(void)
{
	return default_events;
}

static const struct event *find_event(const char *name)
{
	size_t i;

	for (i = 0; i < BG_ARRAY_SIZE(events); i++)
		if (!strcmp(events[i].name, name))
			return &events[i];
	return NULL;
}

static long open_event(struct perf_event_attr *a, pid_t pid, int group)
{
	return syscall(SYS_perf_event_open, a, pid, -1, group, PERF_FLAG_FD_CLOEXEC);
}

static void fill_attr(struct perf_event_attr *a, const struct event *e, int kernel, int leader)
{
	memset(a, 0, sizeof(*a));
	a->size = sizeof(*a);
	a->type = e->type;
	a->config = e->config;
	/* Group members follow their leader: only it starts disabled. */
	a->disabled = leader;
	a->enable_on_exec = leader;
	a->inherit = 1;
	a->exclude_kernel = !kernel;
	a->exclude_hv = 1;
	a->read_format = PERF_FORMAT_TOTAL_TIME_ENABLED | PERF_FORMAT_TOTAL_TIME_RUNNING;
}

/* Why an event cannot be opened, in words a user can act on. */
static void explain(char *buf, size_t n, const char *name, int err)
{
	int paranoid = -9;
	FILE *f = fopen("/proc/sys/kernel/perf_event_paranoid", "re");

	if (f) {
		if (fscanf(f, "%d", &paranoid) != 1)
			paranoid = -9;
		fclose(f);
	}
	if (err == ENOENT || err == EOPNOTSUPP)
		snprintf(buf, n, "%s: this machine has no such hardware counter (no PMU: a VM?)",
		         name);
	else if ((err == EACCES || err == EPERM) && paranoid > -9)
		snprintf(buf, n, "%s: not permitted (kernel.perf_event_paranoid is %d)", name,
		         paranoid);
	else if (err == EACCES || err == EPERM)
		snprintf(buf, n, "%s: not permitted", name);
	else if (err == ENOSYS)
		snprintf(buf, n, "%s: perf_event_open is not available (a container's seccomp?)",
		         name);
	else
		snprintf(buf, n, "%s: perf_event_open: %s", name, strerror(err));
}

int bg_counters__new(bg_ctx *ctx, const char *const *names, size_t nnames, int kernel,
                     bg_counters **out)
{
	bg_counters *c = NULL;
	size_t i, required;
	char why[200];
	int error = 0;

	*out = NULL;
	if (!names) {
		names = default_events;
		for (nnames = 0; names[nnames]; nnames++)
			;
		required = DEFAULT_REQUIRED;
	} else {
		required = nnames;
	}
	if (nnames > MAX_EVENTS)
		return bg_error_set(ctx, BG_EINPUT, "at most %d counters", MAX_EVENTS);
	if (!(c = calloc(1, sizeof(*c))))
		return bg_error_oom(ctx);
	c->sock[0] = c->sock[1] = c->region_fd = -1;
	c->kernel = kernel;
	for (i = 0; i < MAX_EVENTS; i++)
		c->fd[i] = -1;
	/* Each is opened once on benchguard itself: what the child will open. */
	for (i = 0; i < nnames; i++) {
		const struct event *e = find_event(names[i]);
		struct perf_event_attr a;
		long fd;

		if (!e) {
			error = bg_error_set(ctx, BG_EINPUT, "unknown counter \"%s\"", names[i]);
			goto cleanup;
		}
		fill_attr(&a, e, kernel, 1);
		a.enable_on_exec = 0;
		if ((fd = open_event(&a, 0, -1)) < 0) {
			if (i < required) {
				explain(why, sizeof(why), names[i], errno);
				error = bg_error_set(ctx, BG_ENOTFOUND, "%s", why);
				goto cleanup;
			}
			continue;
		}
		close((int)fd);
		c->ev[c->n] = e;
		fill_attr(&c->attr[c->n], e, kernel, c->n == 0);
		c->n++;
	}
	*out = c;
	c = NULL;
cleanup:
	bg_counters__free(c);
	return error;
}

void bg_counters__free(bg_counters *c)
{
	if (!c)
		return;
	bg_counters__done(c);
	free(c);
}

size_t bg_counters__count(const bg_counters *c)
{
	return c->n;
}

const char *bg_counters__metric(const bg_counters *c, size_t i)
{
	return c->ev[i]->name;
}

const char *bg_counters__unit(const bg_counters *c, size_t i)
{
	return c->ev[i]->unit;
}

const char *bg_counters__instrument(const bg_counters *c)
{
	return c->kernel ? "counters user+kernel" : "counters user";
}

int bg_counters__prepare(bg_ctx *ctx, bg_counters *c)
{
	bg_counters__done(c);
	if (socketpair(AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC, 0, c->sock) < 0)
		return bg_error_errno(ctx, BG_ERROR, "cannot create a socket for the counters");
	/* A number that is free now, held until the child puts the leader
	 * there: the environment must name it before the child runs. */
	if ((c->region_fd = open("/dev/null", O_RDONLY | O_CLOEXEC)) < 0) {
		bg_counters__done(c);
		return bg_error_errno(ctx, BG_ERROR, "cannot open /dev/null");
	}
	snprintf(c->env, sizeof(c->env), "BENCHGUARD_COUNTERS_FD=%d", c->region_fd);
	return 0;
}

const char *bg_counters__env(const bg_counters *c)
{
	return c->env;
}

/*
 * In the child, between vfork and exec: only system calls, on memory the
 * parent prepared.  Returns 0 or an errno.
 */
int bg_counters__child(bg_counters *c)
{
	int fds[MAX_EVENTS];
	union {
		char buf[CMSG_SPACE(sizeof(int) * MAX_EVENTS)];
		struct cmsghdr align;
	} u;
	struct msghdr msg;
	struct iovec iov;
	struct cmsghdr *cm;
	char one = 'c';
	size_t i;
	long fd;

	for (i = 0; i < c->n; i++) {
		fd = open_event(&c->attr[i], 0, i ? fds[0] : -1);
		if (fd < 0)
			return errno;
		fds[i] = (int)fd;
	}
	memset(&msg, 0, sizeof(msg));
	memset(&u, 0, sizeof(u));
	iov.iov_base = &one;
	iov.iov_len = 1;
	msg.msg_iov = &iov;
	msg.msg_iovlen = 1;
	msg.msg_control = u.buf;
	msg.msg_controllen = CMSG_SPACE(sizeof(int) * c->n);
	cm = CMSG_FIRSTHDR(&msg);
	cm->cmsg_level = SOL_SOCKET;
	cm->cmsg_type = SCM_RIGHTS;
	cm->cmsg_len = CMSG_LEN(sizeof(int) * c->n);
	memcpy(CMSG_DATA(cm), fds, sizeof(int) * c->n);
	if (sendmsg(c->sock[1], &msg, 0) < 0)
		return errno;
	/* The leader stays open in the command (dup2 clears close-on-exec). */
	if (dup2(fds[0], c->region_fd) < 0)
		return errno;
	return 0;
}

int bg_counters__receive(bg_ctx *ctx, bg_counters *c)
{
	union {
		char buf[CMSG_SPACE(sizeof(int) * MAX_EVENTS)];
		struct cmsghdr align;
	} u;
	struct msghdr msg;
	struct iovec iov;
	struct cmsghdr *cm;
	char one;
	size_t i;

	close(c->sock[1]);
	c->sock[1] = -1;
	close(c->region_fd);
	c->region_fd = -1;
	memset(&msg, 0, sizeof(msg));
	iov.iov_base = &one;
	iov.iov_len = 1;
	msg.msg_iov = &iov;
	msg.msg_iovlen = 1;
	msg.msg_control = u.buf;
	msg.msg_controllen = sizeof(u.buf);
	if (recvmsg(c->sock[0], &msg, MSG_DONTWAIT | MSG_CMSG_CLOEXEC) < 0)
		return bg_error_errno(ctx, BG_ERROR, "cannot receive the counters");
	cm = CMSG_FIRSTHDR(&msg);
	if (!cm || cm->cmsg_type != SCM_RIGHTS || cm->cmsg_len != CMSG_LEN(sizeof(int) * c->n))
		return bg_error_set(ctx, BG_ERROR, "the counters did not arrive");
	memcpy(c->fd, CMSG_DATA(cm), sizeof(int) * c->n);
	for (i = 0; i < c->n; i++)
		if (c->fd[i] < 0)
			return bg_error_set(ctx, BG_ERROR, "the counters did not arrive");
	return 0;
}

int bg_counters__read(bg_ctx *ctx, bg_counters *c, double *values)
{
	uint64_t v[3];
	size_t i;

	for (i = 0; i < c->n; i++) {
		if (c->fd[i] < 0 || read(c->fd[i], v, sizeof(v)) != (ssize_t)sizeof(v))
			return bg_error_errno(ctx, BG_ERROR, "cannot read counter %s",
			                      c->ev[i]->name);
		/* v: count, time enabled, time running.  A counter that shared
		 * the PMU with others ran part of the time: scaled, as perf does. */
		if (v[2] == 0)
			values[i] = v[1] == 0 ? 0.0 : NAN; /* enabled, never scheduled */
		else if (v[2] < v[1])
			values[i] = (double)v[0] * ((double)v[1] / (double)v[2]);
		else
			values[i] = (double)v[0];
	}
	return 0;
}

void bg_counters__done(bg_counters *c)
{
	size_t i;

	for (i = 0; i < MAX_EVENTS; i++) {
		if (c->fd[i] >= 0)
			close(c->fd[i]);
		c->fd[i] = -1;
	}
	if (c->sock[0] >= 0)
		close(c->sock[0]);
	if (c->sock[1] >= 0)
		close(c->sock[1]);
	if (c->region_fd >= 0)
		close(c->region_fd);
	c->sock[0] = c->sock[1] = c->region_fd = -1;
}
