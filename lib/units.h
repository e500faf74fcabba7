/*
 * units.h -- lib/units.c's display steps for a module that scales values
 * itself: the trend report reads a whole series in one step (123 µs, not
 * 0.000123 s) so that its columns and chart axes agree.  A single value is
 * formatted with bg_unit_format (benchguard.h), from the same tables.
 */
#ifndef BG_UNITS_H
#define BG_UNITS_H

/*
 * The step of `unit` in which `typical` (a magnitude, in `unit`) reads
 * best: seconds down to ns, bytes up to TiB, B/s up to TB/s.  *scale is
 * what a value in `unit` is multiplied by to read in that step.  Other
 * units are returned as they are, *scale 1.
 */
const char *bg_unit__display(const char *unit, double typical, double *scale);

#endif
