/*
 * index.c -- the one hash index behind the library's lookups by name.
 *
 * A result set finds its series by (benchmark, metric) and its outcomes by
 * benchmark, a check its outcome rows, the config parser the keys of one
 * object, a baseline file its run uids and series: each among as many as a
 * million of its kind, where a walk over the earlier ones for each new one
 * would take time in the square of that.  The entries stay in the caller's
 * array; the index maps hashes to their numbers and asks the caller whether
 * an entry is the one sought, so one index serves every kind of entry.
 *
 * Open addressing with linear probing over a power-of-two table kept at most
 * half full, doubled when it would not be.  Each slot keeps its entry's hash:
 * growing then never reads the entries again, and a probe compares names
 * only where the hashes agree.
 */
#include <stdlib.h>
#include <string.h>

#include "internal.h"

struct bg_index_slot {
	uint64_t hash;
	size_t entry; /* the entry's number + 1; 0: a free slot, as calloc leaves it */
};

/* The first capacity: small, as the config parser keeps one index per
 * object of the file and most objects have a few keys. */
#define INDEX_MIN 16

/* FNV-1a's 64-bit offset basis, all 20 digits of it, and its prime. */
#define FNV_BASIS 14695981039346656037ULL
#define FNV_PRIME 1099511628211ULL

uint64_t bg_index__hash(const char *a, const char *b)
{
	/* FNV-1a, over "a\0b" for a pair, so that ("ab", "c") and ("a", "bc")
	 * differ. */
	uint64_t h = FNV_BASIS;
	const unsigned char *p;

	for (p = (const unsigned char *)a; *p; p++)
		h = (h ^ *p) * FNV_PRIME;
	if (!b)
		return h;
	h *= FNV_PRIME;
	for (p = (const unsigned char *)b; *p; p++)
		h = (h ^ *p) * FNV_PRIME;
	return h;
}

uint64_t bg_index__hash_n(const char *a, size_t len)
{
	const unsigned char *p = (const unsigned char *)a;
	uint64_t h = FNV_BASIS;

	while (len--)
		h = (h ^ *p++) * FNV_PRIME;
	return h;
}

size_t bg_index__find(const bg_index *ix, uint64_t h, bg_index_same same, const void *set,
                      const void *key)
{
	size_t j;

	if (!ix->cap)
		return BG_INDEX_NONE;
	for (j = (size_t)h & (ix->cap - 1); ix->slot[j].entry; j = (j + 1) & (ix->cap - 1))
		if (ix->slot[j].hash == h && same(set, ix->slot[j].entry - 1, key))
			return ix->slot[j].entry - 1;
	return BG_INDEX_NONE;
}

/* Files (h, entry + 1) in the first free slot of its probe sequence. */
static void index_put(struct bg_index_slot *slot, size_t cap, uint64_t h, size_t entry1)
{
	size_t j = (size_t)h & (cap - 1);

	while (slot[j].entry)
		j = (j + 1) & (cap - 1);
	slot[j].hash = h;
	slot[j].entry = entry1;
}

int bg_index__add(bg_index *ix, uint64_t h, size_t entry)
{
	if ((ix->n + 1) * 2 > ix->cap) {
		size_t cap = ix->cap ? ix->cap * 2 : INDEX_MIN, i;
		struct bg_index_slot *slot = calloc(cap, sizeof(*slot));

		if (!slot)
			return BG_ENOMEM;
		for (i = 0; i < ix->cap; i++)
			if (ix->slot[i].entry)
				index_put(slot, cap, ix->slot[i].hash, ix->slot[i].entry);
		free(ix->slot);
		ix->slot = slot;
		ix->cap = cap;
	}
	index_put(ix->slot, ix->cap, h, entry + 1);
	ix->n++;
	return 0;
}

void bg_index__reset(bg_index *ix)
{
	if (ix->cap)
		memset(ix->slot, 0, ix->cap * sizeof(*ix->slot));
	ix->n = 0;
}

void bg_index__free(bg_index *ix)
{
	free(ix->slot);
	ix->slot = NULL;
	ix->cap = ix->n = 0;
}
