/*
 * units.c -- units, directions and format names, and how a value is shown
 * in a unit's readable step (1.23 ms, 4.5 GiB, 12.3 GB/s).
 *
 * All time units are stored in seconds so that a series keeps one unit
 * whatever unit each tool printed (Google Benchmark's time_unit, a harness
 * printing "ms").  Rates ("GB/s", "items/s", "ops/sec") are better when higher;
 * everything else (times, bytes, counts) when lower.
 */
#include <math.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>

#include "internal.h"
#include "units.h"

/* The steps a value is shown in, the only copy (bg_unit_format for one
 * value, bg_unit__display for a report's series), each from the stored
 * unit on: time down to ns, bytes up in powers of 1024, rates (and counts,
 * with si) up in SI powers of 1000, as bandwidths are usually quoted. */
static const char *const time_steps[] = { "s", "ms", "\xc2\xb5s", "ns" };
static const char *const byte_steps[] = { "B", "KiB", "MiB", "GiB", "TiB" };
static const char *const rate_steps[] = { "B/s", "kB/s", "MB/s", "GB/s", "TB/s" };
static const char *const si[] = { "", "k", "M", "G", "T" };

static const struct {
	const char *name;
	double scale;
} time_units[] = {
	{ "ns", 1e-9 },        { "us", 1e-6 },   { "\xc2\xb5s", 1e-6 }, /* U+00B5, micro sign */
	{ "\xce\xbcs", 1e-6 }, /* U+03BC, the Greek letter, as some tools print it */
	{ "ms", 1e-3 },        { "msec", 1e-3 }, /* perf stat's task-clock and cpu-clock */
	{ "s", 1.0 },          { "sec", 1.0 },   { "min", 60.0 },
};

/* In bg_format order. */
static const char *const format_names[] = { "time", "lines",  "gbench", "nvbench", "hyperfine",
	                                    "go",   "pytest", "catch2", "perfstat" };

int bg_unit_canonical(const char *unit, const char **canon, double *scale)
{
	size_t i;

	if (!canon || !scale)
		return BG_EINPUT;

	if (!unit || !*unit)
		return BG_EINPUT;
	for (i = 0; i < BG_ARRAY_SIZE(time_units); i++) {
		if (!strcmp(unit, time_units[i].name)) {
			*canon = "s";
			*scale = time_units[i].scale;
			return 0;
		}
	}
	*canon = unit;
	*scale = 1.0;
	return 0;
}

/*
 * A rate: anything per a unit of time ("GB/s", "ops/sec", "MB/S",
 * "items/ms", "req/min", "jobs/h"), in any case, as tools print them.
 * Only "/s" was taken, so "ops/sec" was judged lower-is-better: its
 * regressions passed as improvements.
 */
static int per_time(const char *unit)
{
	static const char *const more[] = { "secs",    "second", "seconds", "mins", "minute",
		                            "minutes", "h",      "hr",      "hrs",  "hour",
		                            "hours",   "d",      "day",     "days" };
	const char *per = unit ? strrchr(unit, '/') : NULL;
	size_t i;

	if (!per || !*++per)
		return 0;
	for (i = 0; i < BG_ARRAY_SIZE(time_units); i++)
		if (!strcasecmp(per, time_units[i].name))
			return 1;
	for (i = 0; i < BG_ARRAY_SIZE(more); i++)
		if (!strcasecmp(per, more[i]))
			return 1;
	return 0;
}

bg_direction bg_direction_for_unit(const char *unit)
{
	if (per_time(unit))
		return BG_DIR_HIGHER;
	if (!strcasecmp(unit ? unit : "", "hz") || !strcasecmp(unit ? unit : "", "fps") ||
	    !strcasecmp(unit ? unit : "", "ops"))
		return BG_DIR_HIGHER;
	return BG_DIR_LOWER;
}

const char *bg_direction_name(bg_direction dir)
{
	return dir == BG_DIR_HIGHER ? "higher" : "lower";
}

int bg_direction_from_name(const char *name, bg_direction *out)
{
	if (!name || !out)
		return BG_EINPUT;
	if (!strcmp(name, "lower"))
		*out = BG_DIR_LOWER;
	else if (!strcmp(name, "higher"))
		*out = BG_DIR_HIGHER;
	else
		return BG_EINPUT;
	return 0;
}

int bg_format_from_name(const char *name, bg_format *out)
{
	size_t i;

	if (!name || !out)
		return BG_EINPUT;

	for (i = 0; i < BG_ARRAY_SIZE(format_names); i++) {
		if (!strcmp(name, format_names[i])) {
			*out = (bg_format)i;
			return 0;
		}
	}
	return BG_EINPUT;
}

const char *bg_format_name(bg_format format)
{
	return (size_t)format < BG_ARRAY_SIZE(format_names) ? format_names[format] : "?";
}

const char *bg_format__list(bg_format first, char *buf, size_t size)
{
	size_t i, o = 0, last = BG_ARRAY_SIZE(format_names) - 1;

	buf[0] = '\0';
	for (i = (size_t)first; i <= last && o < size; i++)
		o += (size_t)snprintf(buf + o, size - o, "%s%s",
		                      i == (size_t)first ? ""
		                      : i == last        ? " or "
		                                         : ", ",
		                      format_names[i]);
	return buf;
}

/* The units of the counters and the simulation (lib/counters.c, runner.c),
 * and "events", perf stat's count of an event that has none of them. */
static int is_count(const char *unit)
{
	static const char *const counts[] = { "instr",    "cycles",     "misses",
		                              "branches", "refs",       "faults",
		                              "switches", "migrations", "events" };
	size_t i;

	for (i = 0; i < sizeof(counts) / sizeof(counts[0]); i++)
		if (!strcmp(unit, counts[i]))
			return 1;
	return 0;
}

void bg_unit_format(char *buf, size_t len, double v, const char *unit)
{
	double a = fabs(v);
	size_t i = 0;

	if (!buf || !len)
		return;
	if (!unit)
		unit = "";
	if (!strcmp(unit, "s")) {
		while (i < 3 && a > 0 && a < 1.0) {
			a *= 1000;
			v *= 1000;
			i++;
		}
		snprintf(buf, len, "%.4g %s", v, time_steps[i]);
	} else if (!strcmp(unit, "B")) {
		while (i < 4 && a >= 1024) {
			a /= 1024;
			v /= 1024;
			i++;
		}
		snprintf(buf, len, i ? "%.4g %s" : "%.0f %s", v, byte_steps[i]);
	} else if (!strcmp(unit, "B/s") || !strcmp(unit, "items/s")) {
		while (i < 4 && a >= 1000) {
			a /= 1000;
			v /= 1000;
			i++;
		}
		if (unit[0] == 'B')
			snprintf(buf, len, "%.4g %s", v, rate_steps[i]);
		else
			snprintf(buf, len, "%.4g %s items/s", v, si[i]);
	} else if (is_count(unit)) {
		/* An instrument's counts: 26.135M instr, with the digits a 0.1%
		 * change needs. */
		while (i < 4 && a >= 1000) {
			a /= 1000;
			v /= 1000;
			i++;
		}
		snprintf(buf, len, i ? "%.5g%s %s" : "%.4g%s %s", v, si[i], unit);
	} else {
		snprintf(buf, len, "%.4g %s", v, unit);
	}
}

const char *bg_unit__pct(char *buf, size_t len, double change, int decimals)
{
	snprintf(buf, len, "%+.*f%%", decimals, 100.0 * change);
	/* A constant series' means differ in their last bit (0.1 summed five
	 * times is not 0.5), and a change of -0.01% rounds to nothing: either
	 * would read "-0.0%", as if a zero had a direction. */
	if (buf[0] == '-' && buf[1 + strspn(buf + 1, "0.")] == '%')
		buf[0] = '+';
	return buf;
}

/* The same steps as bg_unit_format, chosen once for a magnitude; the scale
 * is built up step by step (and compared as typical * scale) so that a
 * series reads exactly as the report always showed it. */
const char *bg_unit__display(const char *unit, double typical, double *scale)
{
	size_t i = 0;

	*scale = 1.0;
	if (!strcmp(unit, "s")) {
		while (i < 3 && typical > 0 && typical * *scale < 1.0) {
			*scale *= 1000.0;
			i++;
		}
		return time_steps[i];
	}
	if (!strcmp(unit, "B")) {
		while (i < 4 && typical * *scale >= 1024.0) {
			*scale /= 1024.0;
			i++;
		}
		return byte_steps[i];
	}
	if (!strcmp(unit, "B/s")) {
		while (i < 4 && typical * *scale >= 1000.0) {
			*scale /= 1000.0;
			i++;
		}
		return rate_steps[i];
	}
	return unit;
}
