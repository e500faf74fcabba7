/*
 * machine.c -- a machine's facts: the list every module that finds facts
 * fills (lib/fingerprint.c the system's, lib/gpu.c the GPUs') and that runs
 * are stored with.  Each fact is stable (it decides speed and does not move
 * between boots: hashed into the fingerprint) or volatile (kept beside it
 * for reports and warnings).
 *
 * The list is kept sorted, stable facts first and each group by key, so
 * that the fingerprint's canonical text is the stable facts in order and
 * bg_machine_fact lists them the same way on every machine.  A change to a
 * stable fact clears the cached hash.
 */
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "machine.h"

static int fact_cmp(int vol_a, const char *key_a, int vol_b, const char *key_b)
{
	if (vol_a != vol_b)
		return vol_a ? 1 : -1;
	return strcmp(key_a, key_b);
}

int bg_machine_new(bg_machine **out)
{
	BG_NEED(NULL, out);
	*out = calloc(1, sizeof(bg_machine));
	return *out ? 0 : BG_ENOMEM;
}

void bg_machine_free(bg_machine *m)
{
	size_t i;

	if (!m)
		return;
	for (i = 0; i < m->n; i++) {
		free(m->facts[i].key);
		free(m->facts[i].value);
	}
	free(m->facts);
	free(m->name);
	free(m);
}

static void remove_at(bg_machine *m, size_t i)
{
	if (!m->facts[i].is_volatile)
		m->hash_ok = 0;
	free(m->facts[i].key);
	free(m->facts[i].value);
	memmove(&m->facts[i], &m->facts[i + 1], (m->n - i - 1) * sizeof(bg_fact));
	m->n--;
}

int bg_machine_set_fact(bg_machine *m, const char *key, const char *value, int is_volatile)
{
	char *k = NULL, *v = NULL;
	size_t i, pos;

	is_volatile = is_volatile ? 1 : 0;
	/* '=' and newlines would make the canonical text ambiguous. */
	if (!m || !key || !value || !*key || strpbrk(key, "=\n") || strchr(value, '\n'))
		return BG_EINPUT;
	for (i = 0; i < m->n; i++) {
		if (strcmp(m->facts[i].key, key) != 0)
			continue;
		if (m->facts[i].is_volatile == is_volatile) {
			if (strcmp(m->facts[i].value, value) == 0)
				return 0;
			if (!(v = strdup(value)))
				return BG_ENOMEM;
			free(m->facts[i].value);
			m->facts[i].value = v;
			if (!is_volatile)
				m->hash_ok = 0;
			return 0;
		}
		remove_at(m, i);
		break;
	}
	if (bg_grow((void **)&m->facts, &m->cap, m->n, sizeof(*m->facts)) < 0)
		return BG_ENOMEM;
	k = strdup(key);
	v = strdup(value);
	if (!k || !v) {
		free(k);
		free(v);
		return BG_ENOMEM;
	}
	for (pos = 0; pos < m->n; pos++)
		if (fact_cmp(m->facts[pos].is_volatile, m->facts[pos].key, is_volatile, key) > 0)
			break;
	memmove(&m->facts[pos + 1], &m->facts[pos], (m->n - pos) * sizeof(bg_fact));
	m->facts[pos].key = k;
	m->facts[pos].value = v;
	m->facts[pos].is_volatile = is_volatile;
	m->n++;
	if (!is_volatile)
		m->hash_ok = 0;
	return 0;
}

int bg_machine_add_gpu(bg_machine *m, const bg_gpu *gpu)
{
	char key[32], val[64];
	int n, err;

	if (!m || !gpu || !gpu->name || !*gpu->name)
		return BG_EINPUT;
	n = m->ngpus;
	snprintf(key, sizeof(key), "gpu%d_name", n);
	if ((err = bg_machine_set_fact(m, key, gpu->name, 0)) < 0)
		return err;
	snprintf(key, sizeof(key), "gpu%d_memory", n);
	snprintf(val, sizeof(val), "%llu", (unsigned long long)gpu->memory_bytes);
	if ((err = bg_machine_set_fact(m, key, val, 0)) < 0)
		return err;
	snprintf(key, sizeof(key), "gpu%d_cc", n);
	snprintf(val, sizeof(val), "%d.%d", gpu->cc_major, gpu->cc_minor);
	if ((err = bg_machine_set_fact(m, key, val, 0)) < 0)
		return err;
	m->ngpus++;
	return 0;
}

int bg_machine_set_name(bg_machine *m, const char *name)
{
	const char *p;
	char *copy;

	if (!m)
		return BG_EINPUT;
	if (!name) {
		free(m->name);
		m->name = NULL;
		return 0;
	}
	/* The name is printed, stored and passed on command lines: one word;
	 * and not "all", which `report --machine all` reads as every machine. */
	if (!*name || !strcmp(name, "all"))
		return BG_EINPUT;
	for (p = name; *p; p++)
		if (!isgraph((unsigned char)*p))
			return BG_EINPUT;
	if (!(copy = strdup(name)))
		return BG_ENOMEM;
	free(m->name);
	m->name = copy;
	return 0;
}

size_t bg_machine_fact_count(const bg_machine *m)
{
	return m ? m->n : 0;
}

int bg_machine_fact(const bg_machine *m, size_t i, const char **key, const char **value,
                    int *is_volatile)
{
	if (!m || i >= m->n)
		return BG_ENOTFOUND;
	if (key)
		*key = m->facts[i].key;
	if (value)
		*value = m->facts[i].value;
	if (is_volatile)
		*is_volatile = m->facts[i].is_volatile;
	return 0;
}

const char *bg_machine_get(const bg_machine *m, const char *key)
{
	size_t i;

	if (!m || !key)
		return NULL;
	for (i = 0; i < m->n; i++)
		if (strcmp(m->facts[i].key, key) == 0)
			return m->facts[i].value;
	return NULL;
}

int bg_machine__differ(const bg_machine *there, const bg_machine *here, bg_buf *out)
{
	const bg_machine *side[2] = { there, here };
	size_t shown = 0, more = 0, k, i;

	for (k = 0; k < 2; k++)
		for (i = 0; i < bg_machine_fact_count(side[k]); i++) {
			const char *key, *value, *other;
			int is_volatile;

			if (bg_machine_fact(side[k], i, &key, &value, &is_volatile) < 0 ||
			    is_volatile)
				continue;
			other = bg_machine_get(side[!k], key);
			/* Each key once: from `there`, or from `here` when there lacks it. */
			if (k == 1 && other)
				continue;
			if (other && !strcmp(other, value))
				continue;
			if (shown == BG_FACTS_SHOWN) {
				more++;
				continue;
			}
			if (bg_buf_printf(out, "%s%s %s -> %s", shown ? ", " : "", key,
			                  k ? "(none)" : value,
			                  k       ? value
			                  : other ? other
			                          : "(none)") < 0)
				return BG_ENOMEM;
			shown++;
		}
	if (more && bg_buf_printf(out, " and %zu more", more) < 0)
		return BG_ENOMEM;
	return 0;
}
