/*
 * instrument.c -- what measures a benchmark besides the clock.
 *
 * A benchmark's `measure` lists instruments: `time` (the clock, or the
 * program's own output), `counters` (hardware counters, lib/counters.c)
 * and `simulate` (Valgrind's callgrind, lib/simulate.c).  Here: their
 * names, which of them this machine has, and what the series they measure
 * need to be judged: a count of instructions moves by a few parts in a
 * million from run to run, where a time moves by percents, so its
 * threshold and its resolution are its own.
 */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "internal.h"

/* What a series of an instrument is judged by, unless configured. */
static const struct metric_default {
	const char *instrument; /* prefix of the series' instrument string */
	const char *metric;
	double min_change; /* NAN: the thresholds' min_change */
	double resolution; /* in the series' unit */
} metric_defaults[] = {
	/* Simulated: the same program gives the same counts; what moves them
	 * is the environment's size, addresses (ASLR) and the C library. */
	{ "simulate", "instructions", 0.001, 1 },
	{ "simulate", "est_cycles", 0.001, 1 },
	{ "simulate", "l1_misses", 0.01, 1 },
	{ "simulate", "ll_misses", 0.01, 1 },
	/* Counted by the PMU in user space: instructions retired are nearly
	 * exact; cycles and misses move with the machine like time does. */
	{ "counters", "instructions", 0.001, 1 },
	{ "counters", "cycles", NAN, 1 },
	{ "counters", "ref_cycles", NAN, 1 },
	{ "counters", "branches", 0.001, 1 },
	{ "counters", "branch_misses", NAN, 1 },
	{ "counters", "cache_references", NAN, 1 },
	{ "counters", "cache_misses", NAN, 1 },
	{ "counters", "page_faults", NAN, 1 },
	{ "counters", "context_switches", NAN, 1 },
	{ "counters", "cpu_migrations", NAN, 1 },
	{ "counters", "task_clock", NAN, 1e-9 },
};

static const struct metric_default *metric_default(const char *instrument, const char *metric)
{
	size_t i;

	if (!instrument || !metric)
		return NULL;
	for (i = 0; i < BG_ARRAY_SIZE(metric_defaults); i++) {
		const struct metric_default *d = &metric_defaults[i];
		size_t n = strlen(d->instrument);

		if (!strncmp(instrument, d->instrument, n) &&
		    (instrument[n] == '\0' || instrument[n] == ' ') && !strcmp(metric, d->metric))
			return d;
	}
	return NULL;
}

double bg_instrument__min_change(const char *instrument, const char *metric)
{
	const struct metric_default *d = metric_default(instrument, metric);

	return d ? d->min_change : NAN;
}

double bg_instrument__resolution(const char *instrument, const char *metric)
{
	const struct metric_default *d = metric_default(instrument, metric);

	return d ? d->resolution : 0.0;
}

static const char *const instrument_names[BG_INSTR_COUNT] = { "time", "counters", "simulate" };

const char *bg_instrument_name(bg_instrument instrument)
{
	return (unsigned)instrument < BG_INSTR_COUNT ? instrument_names[instrument] : "?";
}

int bg_instrument_from_name(const char *name, bg_instrument *out)
{
	size_t i;

	if (!out)
		return BG_EINPUT;

	for (i = 0; name && i < BG_INSTR_COUNT; i++) {
		if (!strcmp(name, instrument_names[i])) {
			*out = (bg_instrument)i;
			return 0;
		}
	}
	return BG_EINPUT;
}

int bg_instruments_probe(bg_ctx *ctx, const char *const *events, size_t nevents, int kernel,
                         bg_instrument_status out[BG_INSTR_COUNT])
{
	bg_saved_error saved;
	bg_counters *c = NULL;
	size_t i, len;
	int error;

	BG_NEED(ctx, out);

	memset(out, 0, BG_INSTR_COUNT * sizeof(*out));
	out[BG_INSTR_TIME].available = 1;
	snprintf(out[BG_INSTR_TIME].detail, sizeof(out[0].detail), "the clock");

	/* An instrument this machine lacks is a detail of the answer, not a
	 * failure: the caller's message stays. */
	bg_ctx__save_error(ctx, &saved);
	error = bg_counters__new(ctx, events, nevents, kernel, &c);
	if (error == 0) {
		bg_instrument_status *st = &out[BG_INSTR_COUNTERS];

		st->available = 1;
		for (i = 0, len = 0; i < bg_counters__count(c) && len < sizeof(st->detail); i++)
			len += (size_t)snprintf(st->detail + len, sizeof(st->detail) - len, "%s%s",
			                        i ? " " : "", bg_counters__metric(c, i));
		bg_counters__free(c);
	} else if (error == BG_ENOTFOUND) {
		snprintf(out[BG_INSTR_COUNTERS].detail, sizeof(out[0].detail), "%s",
		         bg_ctx_error(ctx));
		bg_ctx__restore_error(ctx, &saved);
	} else {
		return error;
	}

	error = bg_simulate__probe(ctx, out[BG_INSTR_SIMULATE].detail, sizeof(out[0].detail));
	if (error == 0) {
		out[BG_INSTR_SIMULATE].available = 1;
	} else if (error == BG_ENOTFOUND) {
		snprintf(out[BG_INSTR_SIMULATE].detail, sizeof(out[0].detail), "%s",
		         bg_ctx_error(ctx));
		bg_ctx__restore_error(ctx, &saved);
	} else {
		return error;
	}
	return 0;
}
