/*
 * machine.h -- a machine's facts inside the library.  lib/machine.c keeps
 * the list (bg_machine and the bg_machine_* accessors of benchguard.h);
 * the modules that find facts add to it through those accessors and never
 * call one another: lib/fingerprint.c the system's facts from /proc and
 * sysfs (and the hash of the stable ones, which is why the type is here),
 * lib/gpu.c each GPU's.  lib/host.c puts the two together for
 * bg_machine_detect.
 */
#ifndef BG_MACHINE_H
#define BG_MACHINE_H

#include <stddef.h>

#include "internal.h"

typedef struct {
	char *key;
	char *value;
	int is_volatile;
} bg_fact;

struct bg_machine {
	bg_fact *facts; /* stable first, then volatile; each group sorted by key */
	size_t n, cap;
	int ngpus;
	char *name;    /* --machine NAME, or NULL */
	int hash_ok;   /* hash is up to date with the stable facts (cleared on a change) */
	char hash[17]; /* 16 hex digits + NUL (lib/fingerprint.c) */
};

/*
 * lib/fingerprint.c: adds the system's facts (CPU, caches, memory, kernel,
 * load...) read under root: NULL, "" or "/" is this host, anything else a
 * tree that describes a machine (tests' fixtures).  *is_host: root is this
 * host's.  The context's message is set on failure.
 */
int bg_fingerprint__system(bg_ctx *ctx, bg_machine *m, const char *root, int *is_host);
/*
 * lib/fingerprint.c: the fingerprint a machine named with --machine NAME
 * would have without the name (its hardware's), into out; 1 when there is
 * one (a name and stable facts), 0 when not, BG_ENOMEM.  Stored with each
 * run as the volatile fact "hardware", so that runs of other hardware under
 * one name can be told apart.
 */
int bg_machine__hardware(const bg_machine *m, char out[17]);

#endif
