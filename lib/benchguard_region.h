/*
 * benchguard_region.h -- a region of interest for benchguard's counting
 * instruments, header-only, for C (C99 and later) and C++.
 *
 * Under the `simulate` and `counters` instruments benchguard counts the
 * instructions (and cache misses, cycles...) of a whole command: its
 * start-up, its setup, its warm-up.  A benchmark that marks the code it
 * means to measure gets the counts of that code alone:
 *
 *     #include "benchguard_region.h"
 *     setup();                 // not counted
 *     bg_region_begin();
 *     work();                  // counted
 *     bg_region_end();
 *     check_and_free();        // not counted
 *
 * The region may be entered again: a later bg_region_begin() adds to what
 * the earlier ones counted (what lies between an end and the next begin is
 * left out).  A begin inside the region, or an end outside it, does
 * nothing.  benchguard_harness.h's bgh_run marks its timed samples this
 * way; a program using the harness need not call these itself.
 *
 * The two mechanisms, picked at the first bg_region_begin():
 *
 * - Under Valgrind (`simulate`): the first begin dumps what was counted so
 *   far apart (CALLGRIND_DUMP_STATS_AT("benchguard-region-start")), which
 *   zeroes the counts; benchguard reads only the parts after that dump.
 *   An end turns collection off (CALLGRIND_TOGGLE_COLLECT), a later begin
 *   back on.  When any process of the command marks a region, processes
 *   that do not (the shell, a wrapper script, and also a child forked
 *   inside the region, which never calls begin itself) are left out.  This needs
 *   Valgrind's headers (<valgrind/callgrind.h>; Debian's `valgrind`
 *   package) when the benchmark is compiled: without them the region is a
 *   no-op under `simulate`, and the command is counted whole.
 * - Under hardware counters (`counters`, Linux): benchguard passes the
 *   descriptor of its perf event group leader in BENCHGUARD_COUNTERS_FD.
 *   The first begin resets the group (PERF_EVENT_IOC_RESET: what came
 *   before is dropped; the counters run since the exec), an end disables
 *   it (PERF_EVENT_IOC_DISABLE), a later begin enables it again.
 *
 * Neither (the clock, or the program run by hand): after the first call,
 * which looks, both do nothing but test a flag.  The state lives in static variables of this
 * header: call begin and end from one thread, and from one translation unit (each file that
 * includes the header has its own state).
 */
#ifndef BENCHGUARD_REGION_H
#define BENCHGUARD_REGION_H

#include <stdlib.h>

#if defined(__has_include)
#if __has_include(<valgrind/callgrind.h>)
#include <valgrind/callgrind.h>
#define BG_REGION_CALLGRIND 1
#endif
#endif

/* Linux's perf header, where it is installed (musl systems may lack it). */
#if defined(__linux__)
#if defined(__has_include)
#if __has_include(<linux/perf_event.h>)
#define BG_REGION_PERF 1
#endif
#else
#define BG_REGION_PERF 1
#endif
#endif
#if defined(BG_REGION_PERF)
#include <linux/perf_event.h>
#include <sys/ioctl.h>
#endif

/* static_cast in C++, whose projects often build with -Wold-style-cast. */
#if defined(__cplusplus)
#define BG_REGION_CAST(type, x) (static_cast<type>(x))
#else
#define BG_REGION_CAST(type, x) ((type)(x))
#endif

enum { BG_REGION__NONE = 1, BG_REGION__CALLGRIND, BG_REGION__PERF };

struct bg_region__state {
	int how;     /* 0: not looked yet, else BG_REGION__* */
	int started; /* the first begin is done */
	int on;      /* inside the region */
	int fd;      /* the perf group leader */
};

/* One state per translation unit, in a function so that a file that
 * includes the header without calling it has no unused variable. */
static inline struct bg_region__state *bg_region__get(void)
{
	static struct bg_region__state s;

	if (!s.how) {
		s.how = BG_REGION__NONE;
#if defined(BG_REGION_CALLGRIND)
		if (RUNNING_ON_VALGRIND)
			s.how = BG_REGION__CALLGRIND;
#endif
#if defined(BG_REGION_PERF)
		if (s.how == BG_REGION__NONE) {
			const char *v = getenv("BENCHGUARD_COUNTERS_FD");
			char *end;
			long fd;

			if (v && *v) {
				fd = strtol(v, &end, 10);
				if (!*end && fd >= 0 && fd < 1048576) {
					s.fd = BG_REGION_CAST(int, fd);
					s.how = BG_REGION__PERF;
				}
			}
		}
#endif
	}
	return &s;
}

/* Starts (or resumes) counting: what came before the first begin is dropped. */
static inline void bg_region_begin(void)
{
	struct bg_region__state *s = bg_region__get();

	if (s->on)
		return;
	switch (s->how) {
#if defined(BG_REGION_CALLGRIND)
	case BG_REGION__CALLGRIND:
		if (!s->started)
			CALLGRIND_DUMP_STATS_AT("benchguard-region-start");
		else
			CALLGRIND_TOGGLE_COLLECT;
		break;
#endif
#if defined(BG_REGION_PERF)
	case BG_REGION__PERF:
		(void)ioctl(s->fd, s->started ? PERF_EVENT_IOC_ENABLE : PERF_EVENT_IOC_RESET,
		            PERF_IOC_FLAG_GROUP);
		break;
#endif
	default:
		break;
	}
	s->started = s->on = 1;
}

/* Stops counting until the next bg_region_begin(). */
static inline void bg_region_end(void)
{
	struct bg_region__state *s = bg_region__get();

	if (!s->on)
		return;
	switch (s->how) {
#if defined(BG_REGION_CALLGRIND)
	case BG_REGION__CALLGRIND:
		CALLGRIND_TOGGLE_COLLECT;
		break;
#endif
#if defined(BG_REGION_PERF)
	case BG_REGION__PERF:
		(void)ioctl(s->fd, PERF_EVENT_IOC_DISABLE, PERF_IOC_FLAG_GROUP);
		break;
#endif
	default:
		break;
	}
	s->on = 0;
}

#endif /* BENCHGUARD_REGION_H */
