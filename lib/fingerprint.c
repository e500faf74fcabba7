/*
 * fingerprint.c -- the machine a run was measured on: its system's facts,
 * and the short hash of the stable ones that keys every stored run.  The
 * list they go into is lib/machine.c's; the GPUs' facts are lib/gpu.c's,
 * and lib/host.c puts both together (bg_machine_detect).
 *
 * Stable facts are what decides speed and does not move between boots: CPU
 * model, cores, threads, caches, memory, architecture and each GPU.  They
 * are hashed (SHA-256 over "key=value\n" lines sorted by key, first 16 hex
 * digits), so baselines only mix runs of the same hardware.  Volatile facts
 * (kernel, governor, load, clock, compiler...) are kept beside the hash for
 * reports and warnings; changing them must never change the fingerprint.
 *
 * Facts are read from /proc and sysfs under a root directory so that tests
 * can describe a machine with a fixture tree.  A missing file is not an
 * error: containers and VMs often lack sysfs caches or cpufreq, and the fact
 * is then simply absent.  Which facts come from where:
 *
 *   cpu_model    /proc/cpuinfo "model name"; else "Hardware"; else
 *                "CPU implementer <x> part <y>" (arm64, raw ids: a lookup
 *                table would change the hash when it grows); else
 *                "cpu model" or "cpu" (MIPS, POWER).  Whitespace squeezed.
 *   cpu_threads  online CPUs from /sys/devices/system/cpu/online, else the
 *                number of "processor" entries in /proc/cpuinfo.
 *   cpu_cores    distinct (physical id, core id) pairs in /proc/cpuinfo,
 *                else distinct cpu<N>/topology/core_cpus_list (or
 *                thread_siblings_list) among the online CPUs.
 *   cache        one fact for cpu0's caches, "L1d 48K, L1i 32K, L2 2048K,
 *                L3 107520K", from cpu0/cache/index<N>/{level,type,size}.
 *   mem_total    /proc/meminfo MemTotal rounded to the nearest GiB, "31 GiB",
 *                so that a few MiB reserved differently at boot don't count.
 *   arch         uname().machine when root is "/"; under any other root the
 *                same value from proc/sys/kernel/arch (Linux >= 6.1), which
 *                is how fixture trees describe it.  kernel and hostname
 *                follow the same rule (osrelease, hostname).
 *
 * GPUs (host only) are added beside these by lib/gpu.c: gpu<N>_name,
 * gpu<N>_memory and gpu<N>_cc are stable, gpu_driver and each GPU's clocks,
 * temperature, power and throttle reasons volatile; they are hashed like
 * any other stable fact.
 *
 * Volatile: kernel, hostname, cpu_governor (cpu0 scaling_governor),
 * load_avg (the first three fields of /proc/loadavg), cpu_mhz (the first
 * "cpu MHz"), smt ("on"/"off" from smt/active), turbo ("on"/"off" from
 * intel_pstate/no_turbo or cpufreq/boost).  Detection reads only files
 * and takes well under a millisecond (on a machine with a GPU, nvmlInit
 * adds its own cost, tens of milliseconds without persistence mode); the
 * compiler version is deliberately not probed here, because running
 * `cc --version` alone costs 3-6 ms and the caller that builds the project
 * knows which compiler it uses.
 */
#include <ctype.h>
#include <sched.h>
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/utsname.h>

#include "machine.h"

/* ----------------------------------------------------------- the hash */

/* 16 hex digits of SHA-256 over the stable facts, which lead the list
 * sorted by key (lib/machine.c); -1 when that fails. */
static int hash_facts(const bg_machine *m, char out[17])
{
	bg_buf text = BG_BUF_INIT;
	char hex[65];
	size_t i;
	int err = 0;

	for (i = 0; i < m->n && !m->facts[i].is_volatile && !err; i++)
		err = bg_buf_printf(&text, "%s=%s\n", m->facts[i].key, m->facts[i].value);
	if (!err)
		err = bg_sha256_hex(text.ptr ? text.ptr : "", text.len, hex);
	bg_buf_clear(&text);
	if (err)
		return -1;
	memcpy(out, hex, 16);
	out[16] = '\0';
	return 0;
}

/* Hashed as the facts stand, and cached until one of them changes. */
const char *bg_machine_fingerprint(bg_machine *m)
{
	if (!m)
		return "";
	if (m->name)
		return m->name;
	if (!m->hash_ok) {
		if (hash_facts(m, m->hash) < 0)
			return "";
		m->hash_ok = 1;
	}
	return m->hash;
}

int bg_machine__hardware(const bg_machine *m, char out[17])
{
	*out = '\0';
	if (!m || !m->name || !m->n || m->facts[0].is_volatile)
		return 0;
	if (m->hash_ok) {
		memcpy(out, m->hash, 17);
		return 1;
	}
	return hash_facts(m, out) < 0 ? BG_ENOMEM : 1;
}

/* ------------------------------------------------------------- detection */

typedef struct {
	bg_machine *m;
	char root[PATH_MAX]; /* without trailing slash: "" for "/" */
	int is_host;         /* root is "/": uname() and `cc` describe it */
	int is_volatile;     /* reading a volatile fact: any failure is absence */
	/* The stable fact's file that could not be read, and why. */
	char failed[PATH_MAX + 64];
	int failed_errno;
} probe;

/* A copy of s with whitespace runs squeezed to one space and the ends trimmed. */
static char *squeeze(const char *s, size_t len)
{
	char *out = malloc(len + 1), *o = out;
	size_t i;
	int space = 0;

	if (!out)
		return NULL;
	for (i = 0; i < len && s[i]; i++) {
		if (isspace((unsigned char)s[i])) {
			space = o != out;
			continue;
		}
		if (space)
			*o++ = ' ';
		space = 0;
		*o++ = s[i];
	}
	*o = '\0';
	return out;
}

/* Whether a file that cannot be opened or read is one this machine does
 * not have (every time), rather than one it failed to read this time. */
static int absent(int e)
{
	return e == ENOENT || e == ENOTDIR || e == EACCES || e == EPERM || e == ENXIO ||
	       e == ENODEV || e == EINVAL || e == EISDIR || e == ELOOP || e == ENAMETOOLONG ||
	       e == EOPNOTSUPP;
}

/*
 * 0 with the file's contents, 1 when this machine has no such file, or
 * BG_ENOMEM.  A stable fact's file that failed to be read this time (too
 * many open files, EIO, memory) is BG_EIO, with the path and errno kept in
 * p: taken as absent, it changed the fingerprint, and the run was judged as
 * another machine's first, against no baseline, and passed.
 */
static int read_rel(probe *p, const char *rel, char **data)
{
	char path[PATH_MAX + 64];
	size_t len;
	int n, err;

	*data = NULL;
	n = snprintf(path, sizeof(path), "%s/%s", p->root, rel);
	if (n < 0 || (size_t)n >= sizeof(path))
		return 1;
	errno = 0;
	err = bg_read_file(NULL, path, data, &len);
	if (err == BG_ENOMEM)
		return err;
	/* errno 0: a file too large to be a fact (a link to /dev/zero), the
	 * same every time. */
	if (err < 0 && !p->is_volatile && errno && !absent(errno)) {
		if (errno == ENOMEM)
			return BG_ENOMEM;
		snprintf(p->failed, sizeof(p->failed), "%s", path);
		p->failed_errno = errno;
		return BG_EIO;
	}
	return err < 0 ? 1 : 0;
}

/* The file's first line, squeezed; 1 when absent or empty. */
static int read_line_rel(probe *p, const char *rel, char **line)
{
	char *data = NULL;
	int err;

	*line = NULL;
	if ((err = read_rel(p, rel, &data)) != 0)
		return err;
	*line = squeeze(data, strcspn(data, "\n"));
	free(data);
	if (!*line)
		return BG_ENOMEM;
	if (!**line) {
		free(*line);
		*line = NULL;
		return 1;
	}
	return 0;
}

/* Sets a fact read from a one-line file, when there is one. */
static int fact_from_file(probe *p, const char *key, const char *rel, int is_volatile)
{
	char *line = NULL;
	int err, was = p->is_volatile;

	p->is_volatile = was || is_volatile;
	err = read_line_rel(p, rel, &line);
	p->is_volatile = was;
	if (err == 0)
		err = bg_machine_set_fact(p->m, key, line, is_volatile);
	free(line);
	return err < 0 ? err : 0;
}

/* "on"/"off" from a file holding 0 or 1; `on` is the value that means on. */
static int flag_from_file(probe *p, const char *key, const char *rel, char on, int *found)
{
	char *line = NULL;
	int err = read_line_rel(p, rel, &line);

	if (err == 0 && (line[0] == '0' || line[0] == '1') && !line[1]) {
		err = bg_machine_set_fact(p->m, key, line[0] == on ? "on" : "off", 1);
		*found = 1;
	}
	free(line);
	return err < 0 ? err : 0;
}

/*
 * Parses a kernel CPU list ("0-3,8-11\n") into cpus[] (up to max entries);
 * returns how many CPUs it names, or -1 when it is not a CPU list.
 */
static long cpulist_parse(const char *s, int *cpus, size_t max)
{
	long count = 0, a, b, c;
	char *end;

	while (*s && *s != '\n') {
		if (!isdigit((unsigned char)*s))
			return -1;
		a = b = strtol(s, &end, 10);
		s = end;
		if (*s == '-') {
			if (!isdigit((unsigned char)s[1]))
				return -1;
			b = strtol(s + 1, &end, 10);
			s = end;
		}
		if (b < a || a < 0 || b > 1L << 20)
			return -1;
		for (c = a; c <= b; c++, count++)
			if (cpus && (size_t)count < max)
				cpus[count] = (int)c;
		if (*s == ',')
			s++;
		else if (*s && *s != '\n')
			return -1;
	}
	return count;
}

typedef struct {
	long phys, core;
} core_id;

#define MAX_PARTS 8

typedef struct {
	char *model, *hardware, *cpu_model, *cpu, *mhz; /* the first of each */
	char parts[MAX_PARTS][80];                      /* distinct implementer/part */
	size_t nparts;
	core_id *ids;
	size_t nids, capids;
	long nproc;
	/* the processor block being read */
	char impl[24], part[24];
	long phys, core;
} cpuinfo;

static int core_id_cmp(const void *a, const void *b)
{
	const core_id *x = a, *y = b;

	if (x->phys != y->phys)
		return x->phys < y->phys ? -1 : 1;
	return x->core < y->core ? -1 : x->core > y->core;
}

static int cpuinfo_end_block(cpuinfo *ci)
{
	char part[80];
	size_t i;

	if (ci->core >= 0) {
		if (bg_grow((void **)&ci->ids, &ci->capids, ci->nids, sizeof(*ci->ids)) < 0)
			return BG_ENOMEM;
		ci->ids[ci->nids].phys = ci->phys < 0 ? 0 : ci->phys;
		ci->ids[ci->nids].core = ci->core;
		ci->nids++;
	}
	if (ci->impl[0] && ci->part[0]) {
		snprintf(part, sizeof(part), "CPU implementer %s part %s", ci->impl, ci->part);
		for (i = 0; i < ci->nparts && strcmp(ci->parts[i], part) != 0; i++)
			;
		if (i == ci->nparts && ci->nparts < MAX_PARTS)
			memcpy(ci->parts[ci->nparts++], part, sizeof(part));
	}
	ci->impl[0] = ci->part[0] = '\0';
	ci->phys = ci->core = -1;
	return 0;
}

static int all_digits(const char *s)
{
	if (!*s)
		return 0;
	for (; *s; s++)
		if (!isdigit((unsigned char)*s))
			return 0;
	return 1;
}

/* Keeps the first value seen for a key. */
static int keep_first(char **slot, const char *value)
{
	if (*slot || !*value)
		return 0;
	*slot = strdup(value);
	return *slot ? 0 : BG_ENOMEM;
}

static int cpuinfo_line(cpuinfo *ci, const char *line, size_t len)
{
	const char *colon = memchr(line, ':', len);
	char *key = NULL, *val = NULL;
	int err = 0;

	if (!colon)
		return 0;
	key = squeeze(line, (size_t)(colon - line));
	val = squeeze(colon + 1, len - (size_t)(colon + 1 - line));
	if (!key || !val) {
		err = BG_ENOMEM;
		goto cleanup;
	}
	if (strcmp(key, "processor") == 0 && all_digits(val)) {
		if ((err = cpuinfo_end_block(ci)) < 0)
			goto cleanup;
		ci->nproc++;
	} else if (strcmp(key, "model name") == 0) {
		err = keep_first(&ci->model, val);
	} else if (strcmp(key, "Hardware") == 0) {
		err = keep_first(&ci->hardware, val);
	} else if (strcmp(key, "cpu model") == 0) {
		err = keep_first(&ci->cpu_model, val);
	} else if (strcmp(key, "cpu") == 0) {
		err = keep_first(&ci->cpu, val);
	} else if (strcmp(key, "cpu MHz") == 0) {
		err = keep_first(&ci->mhz, val);
	} else if (strcmp(key, "CPU implementer") == 0) {
		snprintf(ci->impl, sizeof(ci->impl), "%s", val);
	} else if (strcmp(key, "CPU part") == 0) {
		snprintf(ci->part, sizeof(ci->part), "%s", val);
	} else if (strcmp(key, "physical id") == 0 && all_digits(val)) {
		ci->phys = strtol(val, NULL, 10);
	} else if (strcmp(key, "core id") == 0 && all_digits(val)) {
		ci->core = strtol(val, NULL, 10);
	}
cleanup:
	free(key);
	free(val);
	return err;
}

static void cpuinfo_clear(cpuinfo *ci)
{
	free(ci->model);
	free(ci->hardware);
	free(ci->cpu_model);
	free(ci->cpu);
	free(ci->mhz);
	free(ci->ids);
}

static long distinct_cores(cpuinfo *ci)
{
	long n = 0;
	size_t i;

	qsort(ci->ids, ci->nids, sizeof(core_id), core_id_cmp);
	for (i = 0; i < ci->nids; i++)
		if (i == 0 || core_id_cmp(&ci->ids[i - 1], &ci->ids[i]) != 0)
			n++;
	return n;
}

static int str_cmp(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/*
 * Cores from sysfs topology, for kernels whose cpuinfo has no core ids
 * (arm64): each core's CPUs share one core_cpus_list.
 */
static int cores_from_topology(probe *p, const int *cpus, size_t ncpus, long *cores)
{
	static const char *const files[] = { "core_cpus_list", "thread_siblings_list" };
	char rel[128], **lists = NULL;
	size_t i, j, n = 0;
	int err = 0;

	*cores = 0;
	if (!ncpus)
		return 0;
	if (!(lists = calloc(ncpus, sizeof(char *))))
		return BG_ENOMEM;
	for (i = 0; i < ncpus; i++) {
		for (j = 0; j < BG_ARRAY_SIZE(files); j++) {
			snprintf(rel, sizeof(rel), "sys/devices/system/cpu/cpu%d/topology/%s",
			         cpus[i], files[j]);
			if ((err = read_line_rel(p, rel, &lists[n])) < 0)
				goto cleanup;
			if (err == 0) {
				n++;
				break;
			}
		}
	}
	err = 0;
	qsort(lists, n, sizeof(char *), str_cmp);
	for (i = 0; i < n; i++)
		if (i == 0 || strcmp(lists[i - 1], lists[i]) != 0)
			(*cores)++;
cleanup:
	for (i = 0; i < ncpus; i++)
		free(lists[i]);
	free(lists);
	return err;
}

static int set_long(probe *p, const char *key, long value)
{
	char buf[32];

	snprintf(buf, sizeof(buf), "%ld", value);
	return bg_machine_set_fact(p->m, key, buf, 0);
}

static int detect_cpu(probe *p)
{
	cpuinfo ci;
	char *data = NULL, *online = NULL, *line, *nl;
	const char *model;
	int *cpus = NULL;
	long nonline = -1, cores = 0, i;
	size_t ncpus = 0;
	bg_buf parts = BG_BUF_INIT;
	int err;

	memset(&ci, 0, sizeof(ci));
	ci.phys = ci.core = -1;
	if ((err = read_rel(p, "proc/cpuinfo", &data)) < 0)
		goto cleanup;
	for (line = data; line && *line; line = nl ? nl + 1 : NULL) {
		nl = strchr(line, '\n');
		if ((err = cpuinfo_line(&ci, line, nl ? (size_t)(nl - line) : strlen(line))) < 0)
			goto cleanup;
	}
	if ((err = cpuinfo_end_block(&ci)) < 0)
		goto cleanup;

	for (i = 0; i < (long)ci.nparts && !err; i++)
		err = bg_buf_printf(&parts, "%s%s", i ? " + " : "", ci.parts[i]);
	if (err < 0)
		goto cleanup;
	model = ci.model       ? ci.model
	        : ci.hardware  ? ci.hardware
	        : parts.len    ? parts.ptr
	        : ci.cpu_model ? ci.cpu_model
	                       : ci.cpu;
	if (model && (err = bg_machine_set_fact(p->m, "cpu_model", model, 0)) < 0)
		goto cleanup;
	if (ci.mhz && (err = bg_machine_set_fact(p->m, "cpu_mhz", ci.mhz, 1)) < 0)
		goto cleanup;

	if ((err = read_line_rel(p, "sys/devices/system/cpu/online", &online)) < 0)
		goto cleanup;
	if (online)
		nonline = cpulist_parse(online, NULL, 0);
	if (nonline > 0) {
		if (!(cpus = calloc((size_t)nonline, sizeof(int)))) {
			err = BG_ENOMEM;
			goto cleanup;
		}
		cpulist_parse(online, cpus, (size_t)nonline);
		ncpus = (size_t)nonline;
	} else if (ci.nproc > 0) {
		nonline = ci.nproc;
		if (!(cpus = calloc((size_t)nonline, sizeof(int)))) {
			err = BG_ENOMEM;
			goto cleanup;
		}
		for (i = 0; i < nonline; i++)
			cpus[i] = (int)i;
		ncpus = (size_t)nonline;
	}
	if (nonline > 0 && (err = set_long(p, "cpu_threads", nonline)) < 0)
		goto cleanup;

	if (ci.nids)
		cores = distinct_cores(&ci);
	else if ((err = cores_from_topology(p, cpus, ncpus, &cores)) < 0)
		goto cleanup;
	if (cores > 0 && (err = set_long(p, "cpu_cores", cores)) < 0)
		goto cleanup;
	err = 0;
cleanup:
	cpuinfo_clear(&ci);
	bg_buf_clear(&parts);
	free(data);
	free(online);
	free(cpus);
	return err;
}

typedef struct {
	int level, rank;
	char text[48];
} cache_entry;

static int cache_cmp(const void *a, const void *b)
{
	const cache_entry *x = a, *y = b;

	if (x->level != y->level)
		return x->level < y->level ? -1 : 1;
	return x->rank < y->rank ? -1 : x->rank > y->rank;
}

static int detect_caches(probe *p)
{
	cache_entry caches[32];
	char rel[96], *level = NULL, *type = NULL, *size = NULL;
	bg_buf text = BG_BUF_INIT;
	size_t n = 0, i;
	int err = 0;

	for (i = 0; i < 64 && n < BG_ARRAY_SIZE(caches); i++) {
		snprintf(rel, sizeof(rel), "sys/devices/system/cpu/cpu0/cache/index%zu/level", i);
		if ((err = read_line_rel(p, rel, &level)) != 0)
			break;
		snprintf(rel, sizeof(rel), "sys/devices/system/cpu/cpu0/cache/index%zu/type", i);
		if ((err = read_line_rel(p, rel, &type)) < 0)
			break;
		snprintf(rel, sizeof(rel), "sys/devices/system/cpu/cpu0/cache/index%zu/size", i);
		if ((err = read_line_rel(p, rel, &size)) < 0)
			break;
		if (all_digits(level) && size) {
			const char *suffix = "";
			int rank = 2;

			if (type && strcmp(type, "Data") == 0)
				suffix = "d", rank = 0;
			else if (type && strcmp(type, "Instruction") == 0)
				suffix = "i", rank = 1;
			caches[n].level = atoi(level);
			caches[n].rank = rank;
			snprintf(caches[n].text, sizeof(caches[n].text), "L%s%s %s", level, suffix,
			         size);
			n++;
		}
		free(level);
		free(type);
		free(size);
		level = type = size = NULL;
	}
	if (err < 0)
		goto cleanup;
	err = 0;
	qsort(caches, n, sizeof(cache_entry), cache_cmp);
	for (i = 0; i < n && !err; i++)
		err = bg_buf_printf(&text, "%s%s", i ? ", " : "", caches[i].text);
	if (!err && n)
		err = bg_machine_set_fact(p->m, "cache", text.ptr, 0);
cleanup:
	free(level);
	free(type);
	free(size);
	bg_buf_clear(&text);
	return err;
}

static int detect_memory(probe *p)
{
	char *data = NULL, *line, buf[32];
	unsigned long long kib;
	int err;

	if ((err = read_rel(p, "proc/meminfo", &data)) != 0)
		return err < 0 ? err : 0;
	for (line = data; line; line = strchr(line, '\n'), line = line ? line + 1 : NULL) {
		if (strncmp(line, "MemTotal:", 9) != 0)
			continue;
		kib = strtoull(line + 9, NULL, 10);
		if (kib > 0) {
			snprintf(buf, sizeof(buf), "%llu GiB",
			         (kib + 512ULL * 1024) / (1024ULL * 1024));
			err = bg_machine_set_fact(p->m, "mem_total", buf, 0);
		}
		break;
	}
	free(data);
	return err;
}

/* Whether comma-separated `list` holds `word`. */
static int has_token(const char *list, const char *word)
{
	size_t n = strlen(word);

	for (const char *t = list; t; t = strchr(t, ',') ? strchr(t, ',') + 1 : NULL)
		if (!strncmp(t, word, n) && (t[n] == ',' || t[n] == '\0'))
			return 1;
	return 0;
}

/* The CPU quota of cgroup folder `dir` (relative to the root), as CPUs,
 * into *best when lower: v2's cpu.max ("QUOTA PERIOD", or "max ..."), or
 * v1's cpu.cfs_quota_us over cpu.cfs_period_us (-1: none). */
static int cg_quota(probe *p, const char *dir, int v2, double *best)
{
	char path[PATH_MAX], *a = NULL, *b = NULL;
	double quota = 0, period = 0;
	int err;

	if (snprintf(path, sizeof(path), "%s/%s", dir, v2 ? "cpu.max" : "cpu.cfs_quota_us") >=
	    (int)sizeof(path))
		return 0;
	if ((err = read_line_rel(p, path, &a)) < 0)
		return err;
	if (a && v2 && sscanf(a, "%lf %lf", &quota, &period) != 2)
		quota = 0;
	if (a && !v2 && sscanf(a, "%lf", &quota) == 1 && quota > 0 &&
	    snprintf(path, sizeof(path), "%s/cpu.cfs_period_us", dir) < (int)sizeof(path)) {
		if ((err = read_line_rel(p, path, &b)) < 0) {
			free(a);
			return err;
		}
		if (!b || sscanf(b, "%lf", &period) != 1)
			quota = 0;
	}
	free(a);
	free(b);
	if (quota > 0 && period > 0 && quota / period < *best)
		*best = quota / period;
	return 0;
}

/* The lowest quota of cgroup folder base/rel and the folders above it, up
 * to base: a limit set on a parent holds its children to it. */
static int cg_quota_up(probe *p, const char *base, const char *rel, int v2, double *best)
{
	char dir[PATH_MAX];
	size_t keep = strlen(base);
	char *slash;
	int err;

	if (snprintf(dir, sizeof(dir), "%s%s", base, rel) >= (int)sizeof(dir))
		return 0;
	while (strlen(dir) > keep && dir[strlen(dir) - 1] == '/')
		dir[strlen(dir) - 1] = '\0';
	for (;;) {
		if ((err = cg_quota(p, dir, v2, best)) < 0)
			return err;
		if (strlen(dir) <= keep || !(slash = strrchr(dir + keep, '/')))
			return 0;
		*slash = '\0';
	}
}

/*
 * The CPUs this process may use: those of its affinity mask, fewer when
 * its cgroup (or one above it) has a CPU quota (cgroup v2 cpu.max, v1
 * cpu.cfs_quota_us: `docker run --cpus`, a Kubernetes limit).  Volatile,
 * as the same machine runs jobs with and without a limit; check warns when
 * it differs from the baseline runs'.  On the host, this process's
 * affinity; under another root, that tree's CPU count and cgroup files.
 */
static int detect_cpus_usable(probe *p)
{
	cpu_set_t set;
	char *cg = NULL, base[PATH_MAX], buf[32];
	double cpus;
	int err = 0;

	if (p->is_host) {
		if (sched_getaffinity(0, sizeof(set), &set) != 0)
			return 0;
		cpus = CPU_COUNT(&set);
	} else {
		/* A tree describing a machine (tests' fixtures): its CPUs, its
		 * cgroup files, no process of its own. */
		const char *t = bg_machine_get(p->m, "cpu_threads");

		if (!t || (cpus = strtod(t, NULL)) <= 0)
			return 0;
	}
	/* "0::/path" (v2) or "N:cpu,cpuacct:/path" (v1), one line each. */
	if ((err = read_rel(p, "proc/self/cgroup", &cg)) < 0)
		return err;
	for (char *l = cg, *next; l && *l && err >= 0; l = next) {
		char *ctl, *rel;

		if ((next = strchr(l, '\n')))
			*next++ = '\0';
		if (!(ctl = strchr(l, ':')) || !(rel = strchr(ctl + 1, ':')))
			continue;
		*rel++ = '\0';
		*ctl++ = '\0';
		if (!strcmp(l, "0") && !*ctl)
			err = cg_quota_up(p, "sys/fs/cgroup", rel, 1, &cpus);
		else if (has_token(ctl, "cpu") &&
		         snprintf(base, sizeof(base), "sys/fs/cgroup/%s", ctl) < (int)sizeof(base))
			err = cg_quota_up(p, base, rel, 0, &cpus);
	}
	free(cg);
	if (err < 0)
		return err;
	snprintf(buf, sizeof(buf), "%.4g", cpus);
	return bg_machine_set_fact(p->m, "cpus_usable", buf, 1);
}

static int detect_volatile(probe *p)
{
	char *load = NULL;
	size_t i, fields = 0;
	int err, found = 0;

	err = fact_from_file(p, "cpu_governor",
	                     "sys/devices/system/cpu/cpu0/cpufreq/scaling_governor", 1);
	if (err < 0)
		return err;
	if ((err = flag_from_file(p, "smt", "sys/devices/system/cpu/smt/active", '1', &found)) < 0)
		return err;
	found = 0;
	err = flag_from_file(p, "turbo", "sys/devices/system/cpu/intel_pstate/no_turbo", '0',
	                     &found);
	if (err < 0)
		return err;
	if (!found && (err = flag_from_file(p, "turbo", "sys/devices/system/cpu/cpufreq/boost", '1',
	                                    &found)) < 0)
		return err;

	if ((err = detect_cpus_usable(p)) < 0)
		return err;

	if ((err = read_line_rel(p, "proc/loadavg", &load)) < 0)
		return err;
	if (load) {
		/* "0.52 0.58 0.59 1/467 12345": keep the three averages. */
		for (i = 0; load[i]; i++)
			if (load[i] == ' ' && ++fields == 3)
				load[i] = '\0';
		err = bg_machine_set_fact(p->m, "load_avg", load, 1);
	}
	free(load);
	return err;
}

/*
 * The system identity.  On the host, uname() is the authority; under another
 * root, the procfs files that expose the same strings.
 */
static int detect_uname(probe *p)
{
	struct utsname u;
	int err;

	if (p->is_host && uname(&u) == 0) {
		if ((err = bg_machine_set_fact(p->m, "arch", u.machine, 0)) < 0 ||
		    (err = bg_machine_set_fact(p->m, "kernel", u.release, 1)) < 0 ||
		    (err = bg_machine_set_fact(p->m, "hostname", u.nodename, 1)) < 0)
			return err;
		return 0;
	}
	if ((err = fact_from_file(p, "arch", "proc/sys/kernel/arch", 0)) < 0 ||
	    (err = fact_from_file(p, "kernel", "proc/sys/kernel/osrelease", 1)) < 0 ||
	    (err = fact_from_file(p, "hostname", "proc/sys/kernel/hostname", 1)) < 0)
		return err;
	return 0;
}

int bg_fingerprint__system(bg_ctx *ctx, bg_machine *m, const char *root, int *is_host)
{
	probe p;
	size_t len;
	int err;

	*is_host = 0;
	if (!root || !*root)
		root = "/";
	len = strlen(root);
	while (len > 1 && root[len - 1] == '/')
		len--;
	if (len >= sizeof(p.root) - 64)
		return bg_error_set(ctx, BG_EINPUT, "machine root too long: %s", root);
	memset(&p, 0, sizeof(p));
	p.is_host = len == 1 && root[0] == '/';
	if (!p.is_host)
		memcpy(p.root, root, len);
	p.root[p.is_host ? 0 : len] = '\0';
	p.m = m;
	if ((err = detect_cpu(&p)) < 0 || (err = detect_caches(&p)) < 0 ||
	    (err = detect_memory(&p)) < 0 || (err = detect_uname(&p)) < 0)
		goto fail;
	/* Volatile facts are not in the fingerprint: one that cannot be read
	 * is left out. */
	p.is_volatile = 1;
	err = detect_volatile(&p);
	p.is_volatile = 0;
	if (err < 0)
		goto fail;
	*is_host = p.is_host;
	return 0;
fail:
	if (err == BG_ENOMEM)
		return bg_error_oom(ctx);
	if (p.failed[0])
		return bg_error_set(ctx, BG_EIO,
		                    "cannot read %s, one of the machine's facts: %s (without it "
		                    "the fingerprint would name another machine)",
		                    p.failed, strerror(p.failed_errno));
	return bg_error_set(ctx, err, "cannot record the machine's facts");
}
