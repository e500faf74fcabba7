/*
 * gpu.c -- the machine's NVIDIA GPUs, through NVML or else the CUDA driver,
 * both loaded at run time with dlopen so that benchguard links no GPU
 * library and starts on any machine.  No library, no driver, no device:
 * no GPU facts, never an error.
 *
 * Stable facts per GPU (hashed into the fingerprint, through
 * bg_machine_add_gpu): name, total memory rounded up to whole GiB (NVML and
 * the CUDA driver count a few hundred MiB of reserved memory differently,
 * and the fingerprint must not depend on which of them answered), compute
 * capability.  GPUs are sorted by those facts so that the enumeration
 * order of either library does not matter either.
 *
 * Volatile facts, stored with each run: gpu_driver (driver version),
 * gpu<N>_sm_clock_mhz, gpu<N>_mem_clock_mhz, gpu<N>_temp_c, gpu<N>_power_w
 * and gpu<N>_throttle ("none" or NVML's clock event reasons by name, comma
 * separated).  Only NVML has them; the CUDA driver fallback gives the
 * driver's CUDA version alone.
 *
 * NVML's C API is stable and tiny, so the few function types are declared
 * here rather than taken from nvml.h, which a CPU-only build machine lacks.
 */
#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "internal.h"

#define NVML_LIB "libnvidia-ml.so.1"
#define CUDA_LIB "libcuda.so.1"
#define MAX_GPUS 64
#define NAME_LEN 96 /* NVML_DEVICE_NAME_V2_BUFFER_SIZE */

/* nvmlReturn_t and CUresult are int enums; 0 is success in both. */
typedef struct nvml_device *nvml_device;
typedef struct {
	unsigned long long total, free, used;
} nvml_memory; /* nvmlMemory_t */

typedef int (*nvml_void_fn)(void);
typedef int (*nvml_count_fn)(unsigned int *count);
typedef int (*nvml_handle_fn)(unsigned int index, nvml_device *dev);
typedef int (*nvml_name_fn)(nvml_device dev, char *name, unsigned int len);
typedef int (*nvml_memory_fn)(nvml_device dev, nvml_memory *mem);
typedef int (*nvml_cc_fn)(nvml_device dev, int *major, int *minor);
typedef int (*nvml_driver_fn)(char *version, unsigned int len);
typedef int (*nvml_uint_arg_fn)(nvml_device dev, int which, unsigned int *value);
typedef int (*nvml_uint_fn)(nvml_device dev, unsigned int *value);
typedef int (*nvml_ull_fn)(nvml_device dev, unsigned long long *value);

enum { NVML_CLOCK_SM = 1, NVML_CLOCK_MEM = 2, NVML_TEMPERATURE_GPU = 0 };

typedef int (*cu_init_fn)(unsigned int flags);
typedef int (*cu_count_fn)(int *count);
typedef int (*cu_get_fn)(int *dev, int ordinal);
typedef int (*cu_name_fn)(char *name, int len, int dev);
typedef int (*cu_mem_fn)(size_t *bytes, int dev);
typedef int (*cu_attr_fn)(int *value, int attrib, int dev);
typedef int (*cu_version_fn)(int *version);

enum { CU_ATTR_CC_MAJOR = 75, CU_ATTR_CC_MINOR = 76, CUDA_ERROR_NO_DEVICE = 100 };

/* NVML's clock event ("throttle") reason bits, and whether each one means
 * the GPU ran slower than it could for the work it had. */
static const struct {
	unsigned long long bit;
	const char *name;
	int slows;
} reasons[] = {
	{ 0x1ULL, "gpu_idle", 0 },
	{ 0x2ULL, "applications_clocks_setting", 0 },
	{ 0x4ULL, "sw_power_cap", 1 },
	{ 0x8ULL, "hw_slowdown", 1 },
	{ 0x10ULL, "sync_boost", 0 },
	{ 0x20ULL, "sw_thermal_slowdown", 1 },
	{ 0x40ULL, "hw_thermal_slowdown", 1 },
	{ 0x80ULL, "hw_power_brake_slowdown", 1 },
	{ 0x100ULL, "display_clock_setting", 0 },
};

typedef struct {
	char name[NAME_LEN];
	unsigned long long memory;
	int cc_major, cc_minor;
	unsigned int index; /* the library's enumeration order */
	nvml_device dev;    /* NVML only */
} gpu_info;

/* dlsym into a function pointer without the object/function pointer cast
 * that ISO C leaves undefined. */
static void sym(void *lib, const char *name, void *fn, size_t size)
{
	void *p = dlsym(lib, name);

	memcpy(fn, &p, size);
}
#define SYM(lib, name, fn) sym((lib), (name), &(fn), sizeof(fn))

static unsigned long long round_up_gib(unsigned long long bytes)
{
	const unsigned long long gib = 1ULL << 30;

	return (bytes + gib - 1) / gib * gib;
}

static int gpu_cmp(const void *a, const void *b)
{
	const gpu_info *x = a, *y = b;
	int c = strcmp(x->name, y->name);

	if (c)
		return c;
	if (x->memory != y->memory)
		return x->memory < y->memory ? -1 : 1;
	if (x->cc_major != y->cc_major)
		return x->cc_major < y->cc_major ? -1 : 1;
	if (x->cc_minor != y->cc_minor)
		return x->cc_minor < y->cc_minor ? -1 : 1;
	/* Identical GPUs keep the library's order: qsort is not stable. */
	return x->index < y->index ? -1 : x->index > y->index;
}

/*
 * The N of the stable facts gpu<N>_* that describe g and are not taken
 * yet, or -1.  A refresh must not number the GPUs it can reach now: one
 * lost since the run began (fallen off the bus) would shift the others',
 * and a GPU's clocks and throttling would be stored, and warned about,
 * under another GPU's name.
 */
static int gpu_slot(const bg_machine *m, const gpu_info *g, unsigned char *taken)
{
	char key[48], mem[32], cc[32];
	const char *v;
	int k;

	snprintf(mem, sizeof(mem), "%llu", g->memory);
	snprintf(cc, sizeof(cc), "%d.%d", g->cc_major, g->cc_minor);
	for (k = 0; k < MAX_GPUS; k++) {
		snprintf(key, sizeof(key), "gpu%d_name", k);
		if (!(v = bg_machine_get(m, key)))
			break;
		if (taken[k] || strcmp(v, g->name) != 0)
			continue;
		snprintf(key, sizeof(key), "gpu%d_memory", k);
		if (!(v = bg_machine_get(m, key)) || strcmp(v, mem) != 0)
			continue;
		snprintf(key, sizeof(key), "gpu%d_cc", k);
		if (!(v = bg_machine_get(m, key)) || strcmp(v, cc) != 0)
			continue;
		taken[k] = 1;
		return k;
	}
	return -1;
}

static int add_stable(bg_machine *m, gpu_info *g, size_t n)
{
	size_t i;
	int err;

	for (i = 0; i < n; i++) {
		bg_gpu gpu = { g[i].name, g[i].memory, g[i].cc_major, g[i].cc_minor };

		if ((err = bg_machine_add_gpu(m, &gpu)) < 0)
			return err;
	}
	return 0;
}

static int set_gpu_fact(bg_machine *m, size_t i, const char *what, const char *value)
{
	char key[48];

	snprintf(key, sizeof(key), "gpu%zu_%s", i, what);
	return bg_machine_set_fact(m, key, value, 1);
}

static int set_gpu_uint(bg_machine *m, size_t i, const char *what, unsigned int value)
{
	char buf[24];

	snprintf(buf, sizeof(buf), "%u", value);
	return set_gpu_fact(m, i, what, buf);
}

static int throttle_text(unsigned long long bits, char *out, size_t size)
{
	size_t i, len = 0;

	out[0] = '\0';
	for (i = 0; i < BG_ARRAY_SIZE(reasons); i++) {
		if (!(bits & reasons[i].bit))
			continue;
		len += (size_t)snprintf(out + len, size - len, "%s%s", len ? "," : "",
		                        reasons[i].name);
		if (len >= size)
			return BG_EINPUT;
	}
	if (!len)
		snprintf(out, size, "none");
	return 0;
}

typedef struct {
	nvml_void_fn init, shutdown;
	nvml_count_fn count;
	nvml_handle_fn handle;
	nvml_name_fn name;
	nvml_memory_fn memory;
	nvml_cc_fn cc;
	nvml_driver_fn driver;
	nvml_uint_arg_fn clock, temperature;
	nvml_uint_fn power;
	nvml_ull_fn reasons;
} nvml_api;

/* The volatile facts of GPU i (index in sorted order). */
static int nvml_volatile(const nvml_api *api, bg_machine *m, size_t i, nvml_device dev)
{
	unsigned long long bits;
	unsigned int v;
	char text[256];
	int err = 0;

	if (api->clock && api->clock(dev, NVML_CLOCK_SM, &v) == 0 &&
	    (err = set_gpu_uint(m, i, "sm_clock_mhz", v)) < 0)
		return err;
	if (api->clock && api->clock(dev, NVML_CLOCK_MEM, &v) == 0 &&
	    (err = set_gpu_uint(m, i, "mem_clock_mhz", v)) < 0)
		return err;
	if (api->temperature && api->temperature(dev, NVML_TEMPERATURE_GPU, &v) == 0 &&
	    (err = set_gpu_uint(m, i, "temp_c", v)) < 0)
		return err;
	if (api->power && api->power(dev, &v) == 0) { /* milliwatts */
		snprintf(text, sizeof(text), "%.1f", v / 1000.0);
		if ((err = set_gpu_fact(m, i, "power_w", text)) < 0)
			return err;
	}
	if (api->reasons && api->reasons(dev, &bits) == 0 &&
	    throttle_text(bits, text, sizeof(text)) == 0)
		err = set_gpu_fact(m, i, "throttle", text);
	return err;
}

/* NVML's and the CUDA driver's codes for a kernel driver and a user-space
 * library of different versions (a driver upgraded without a reboot): the
 * GPUs are there, but nothing can describe them. */
#define NVML_ERROR_LIB_RM_VERSION_MISMATCH 18
#define CUDA_ERROR_INSUFFICIENT_DRIVER 35
#define CUDA_ERROR_SYSTEM_DRIVER_MISMATCH 803

/* 1 when NVML answered (GPU facts added, possibly none), 0 when it is not
 * usable (`why` set when it is there but its driver does not match), or a
 * negative BG_E* code. */
static int probe_nvml(bg_machine *m, const char *lib_name, int stable, char *why, size_t whylen)
{
	gpu_info *g = NULL;
	nvml_api api;
	unsigned int count = 0, i;
	unsigned char taken[MAX_GPUS] = { 0 };
	size_t n = 0;
	char driver[96];
	void *lib;
	int err = 0, inited = 0, slot, rc;

	if (!(lib = dlopen(lib_name, RTLD_NOW | RTLD_LOCAL)))
		return 0;
	memset(&api, 0, sizeof(api));
	SYM(lib, "nvmlInit_v2", api.init);
	SYM(lib, "nvmlShutdown", api.shutdown);
	SYM(lib, "nvmlDeviceGetCount_v2", api.count);
	SYM(lib, "nvmlDeviceGetHandleByIndex_v2", api.handle);
	SYM(lib, "nvmlDeviceGetName", api.name);
	SYM(lib, "nvmlDeviceGetMemoryInfo", api.memory);
	SYM(lib, "nvmlDeviceGetCudaComputeCapability", api.cc);
	SYM(lib, "nvmlSystemGetDriverVersion", api.driver);
	SYM(lib, "nvmlDeviceGetClockInfo", api.clock);
	SYM(lib, "nvmlDeviceGetTemperature", api.temperature);
	SYM(lib, "nvmlDeviceGetPowerUsage", api.power);
	/* Renamed in CUDA 12.2; the old name stays for old drivers. */
	SYM(lib, "nvmlDeviceGetCurrentClocksEventReasons", api.reasons);
	if (!api.reasons)
		SYM(lib, "nvmlDeviceGetCurrentClocksThrottleReasons", api.reasons);
	if (!api.init || !api.shutdown || !api.count || !api.handle || !api.name || !api.memory ||
	    !api.cc)
		goto cleanup;
	if ((rc = api.init()) != 0) {
		if (rc == NVML_ERROR_LIB_RM_VERSION_MISMATCH)
			snprintf(why, whylen, "NVML: driver/library version mismatch (%s)",
			         lib_name);
		goto cleanup;
	}
	inited = 1;
	if (api.count(&count) != 0)
		goto cleanup;
	if (count > MAX_GPUS)
		count = MAX_GPUS;
	if (count && !(g = calloc(count, sizeof(*g)))) {
		err = BG_ENOMEM;
		goto cleanup;
	}
	for (i = 0; i < count; i++) {
		nvml_memory mem;

		if (api.handle(i, &g[n].dev) != 0 ||
		    api.name(g[n].dev, g[n].name, sizeof(g[n].name)) != 0 ||
		    api.memory(g[n].dev, &mem) != 0 ||
		    api.cc(g[n].dev, &g[n].cc_major, &g[n].cc_minor) != 0)
			continue; /* a device NVML cannot describe (lost, no permission) */
		g[n].name[sizeof(g[n].name) - 1] = '\0';
		if (!g[n].name[0])
			continue;
		g[n].memory = round_up_gib(mem.total);
		g[n].index = i;
		n++;
	}
	qsort(g, n, sizeof(*g), gpu_cmp);
	if (stable && (err = add_stable(m, g, n)) < 0)
		goto cleanup;
	if (api.driver && api.driver(driver, sizeof(driver)) == 0) {
		driver[sizeof(driver) - 1] = '\0';
		if (driver[0] && (err = bg_machine_set_fact(m, "gpu_driver", driver, 1)) < 0)
			goto cleanup;
	}
	for (i = 0; i < n; i++)
		if ((slot = gpu_slot(m, &g[i], taken)) >= 0 &&
		    (err = nvml_volatile(&api, m, (size_t)slot, g[i].dev)) < 0)
			goto cleanup;
	err = 1;
cleanup:
	if (inited)
		api.shutdown();
	dlclose(lib);
	free(g);
	return err;
}

typedef struct {
	cu_init_fn init;
	cu_count_fn count;
	cu_get_fn get;
	cu_name_fn name;
	cu_mem_fn memory;
	cu_attr_fn attr;
	cu_version_fn version;
} cuda_api;

/*
 * Loads the CUDA driver and runs cuInit.  Never dlclose'd: unloading the
 * driver after cuInit is not safe, and dlopen of a loaded library is only
 * a reference count.  1 with the device count, or 0 with *why (a static
 * string, or `buf`), and *mismatch set when the driver and its library
 * do not match.
 */
static int cuda_open(const char *lib_name, cuda_api *api, int *count, const char **why, char *buf,
                     size_t size, int *mismatch)
{
	void *lib = dlopen(lib_name, RTLD_NOW | RTLD_LOCAL);
	int rc;

	memset(api, 0, sizeof(*api));
	*count = 0;
	*mismatch = 0;
	if (!lib) {
		snprintf(buf, size, "no CUDA driver (%s not found)", lib_name);
		*why = buf;
		return 0;
	}
	SYM(lib, "cuInit", api->init);
	SYM(lib, "cuDeviceGetCount", api->count);
	SYM(lib, "cuDeviceGet", api->get);
	SYM(lib, "cuDeviceGetName", api->name);
	SYM(lib, "cuDeviceTotalMem_v2", api->memory);
	SYM(lib, "cuDeviceGetAttribute", api->attr);
	SYM(lib, "cuDriverGetVersion", api->version);
	if (!api->init || !api->count) {
		snprintf(buf, size, "no CUDA driver (%s has no cuInit or cuDeviceGetCount)",
		         lib_name);
		*why = buf;
		return 0;
	}
	rc = api->init(0);
	if (rc == 0)
		rc = api->count(count);
	if (rc == 0 && *count > 0)
		return 1;
	if (rc == 0 || rc == CUDA_ERROR_NO_DEVICE)
		*why = "no CUDA device";
	else if (rc == CUDA_ERROR_SYSTEM_DRIVER_MISMATCH || rc == CUDA_ERROR_INSUFFICIENT_DRIVER) {
		snprintf(buf, size, "no CUDA device (CUDA driver error %d: %s)", rc,
		         rc == CUDA_ERROR_INSUFFICIENT_DRIVER
		                 ? "the driver is older than the library"
		                 : "driver/library version mismatch");
		*why = buf;
		*mismatch = 1;
	} else {
		snprintf(buf, size, "no CUDA device (CUDA driver error %d)", rc);
		*why = buf;
	}
	return 0;
}

static int probe_cuda(bg_machine *m, const char *lib_name, int stable, char *whyout, size_t whylen)
{
	gpu_info *g = NULL;
	cuda_api api;
	const char *why;
	char buf[160];
	size_t n = 0;
	int count, i, dev, version, err = 0, mismatch;

	if (!cuda_open(lib_name, &api, &count, &why, buf, sizeof(buf), &mismatch)) {
		if (mismatch)
			snprintf(whyout, whylen, "%s", why);
		return 0;
	}
	if (!api.get || !api.name || !api.memory || !api.attr)
		return 0;
	if (count > MAX_GPUS)
		count = MAX_GPUS;
	if (!(g = calloc((size_t)count, sizeof(*g))))
		return BG_ENOMEM;
	for (i = 0; i < count; i++) {
		size_t mem;

		if (api.get(&dev, i) != 0 ||
		    api.name(g[n].name, (int)sizeof(g[n].name), dev) != 0 ||
		    api.memory(&mem, dev) != 0 ||
		    api.attr(&g[n].cc_major, CU_ATTR_CC_MAJOR, dev) != 0 ||
		    api.attr(&g[n].cc_minor, CU_ATTR_CC_MINOR, dev) != 0)
			continue;
		g[n].name[sizeof(g[n].name) - 1] = '\0';
		if (!g[n].name[0])
			continue;
		g[n].memory = round_up_gib(mem);
		g[n].index = (unsigned int)i;
		n++;
	}
	qsort(g, n, sizeof(*g), gpu_cmp);
	if (stable && (err = add_stable(m, g, n)) < 0)
		goto cleanup;
	if (api.version && api.version(&version) == 0) {
		snprintf(buf, sizeof(buf), "CUDA %d.%d", version / 1000, version % 1000 / 10);
		err = bg_machine_set_fact(m, "gpu_driver", buf, 1);
	}
	err = err < 0 ? err : 1;
cleanup:
	free(g);
	return err;
}

int bg_gpu__probe_why(bg_machine *m, const char *nvml_lib, const char *cuda_lib, int stable,
                      char *why, size_t whylen)
{
	int err;

	if (!m)
		return BG_EINPUT;
	*why = '\0';
	if (nvml_lib && (err = probe_nvml(m, nvml_lib, stable, why, whylen)) != 0)
		return err < 0 ? err : 0;
	/* CUDA's answer stands when NVML's was no answer. */
	if (cuda_lib && (err = probe_cuda(m, cuda_lib, stable, why, whylen)) < 0)
		return err;
	return 0;
}

int bg_gpu__probe(bg_machine *m, const char *nvml_lib, const char *cuda_lib, int stable)
{
	char why[192];

	return bg_gpu__probe_why(m, nvml_lib, cuda_lib, stable, why, sizeof(why));
}

int bg_gpu_detect(bg_ctx *ctx, bg_machine *m)
{
	char why[192];
	int err;

	BG_NEED(ctx, m);
	err = bg_gpu__probe_why(m, NVML_LIB, CUDA_LIB, 1, why, sizeof(why));

	if (err == BG_ENOMEM)
		return bg_error_oom(ctx);
	if (err < 0)
		return bg_error_set(ctx, err, "cannot record the GPUs' facts");
	/* The GPUs are there and nothing can describe them: the machine
	 * fingerprint loses them (every baseline with them is another
	 * machine's), and benchmarks that need CUDA are skipped. */
	if (*why && !bg_machine_get(m, "gpu0_name"))
		bg_log(ctx, BG_LOG_WARN,
		       "%s: this machine's GPUs are left out of its facts, so its fingerprint is "
		       "another machine's and benchmarks that need CUDA are skipped (a driver "
		       "upgraded without a reboot does this)",
		       why);
	return 0;
}

int bg_gpu_refresh(bg_ctx *ctx, bg_machine *m)
{
	int err;

	BG_NEED(ctx, m);
	/* Only NVML has clocks, temperature and throttle reasons. */
	err = bg_gpu__probe(m, NVML_LIB, NULL, 0);

	if (err == BG_ENOMEM)
		return bg_error_oom(ctx);
	return err < 0 ? bg_error_set(ctx, err, "cannot record the GPUs' state") : 0;
}

int bg_gpu__cuda_usable(const char *cuda_lib, char **why)
{
	cuda_api api;
	const char *reason = NULL;
	char buf[160];
	int count, mismatch;

	if (why)
		*why = NULL;
	if (cuda_open(cuda_lib, &api, &count, &reason, buf, sizeof(buf), &mismatch))
		return 1;
	if (why && !(*why = bg_strdup(reason)))
		return BG_ENOMEM;
	return 0;
}

int bg_gpu_cuda_usable(char **why)
{
	return bg_gpu__cuda_usable(CUDA_LIB, why);
}

int bg_gpu_throttling(const bg_machine *m, char **why)
{
	bg_buf text = BG_BUF_INIT;
	const char *key, *value;
	size_t i, j, k, n = bg_machine_fact_count(m);
	int found = 0, err = 0;

	if (why)
		*why = NULL;
	for (i = 0; i < n && !err; i++) {
		char name_key[48];
		const char *name, *p;
		size_t idx;
		int listed = 0;

		if (bg_machine_fact(m, i, &key, &value, NULL) < 0 ||
		    sscanf(key, "gpu%zu_", &idx) != 1 || !(p = strchr(key, '_')) ||
		    strcmp(p, "_throttle") != 0)
			continue;
		for (p = value; *p; p += strcspn(p, ","), p += *p == ',') {
			size_t len = strcspn(p, ",");

			for (j = 0; j < BG_ARRAY_SIZE(reasons); j++) {
				if (!reasons[j].slows || strlen(reasons[j].name) != len ||
				    strncmp(p, reasons[j].name, len) != 0)
					continue;
				if (!listed) {
					snprintf(name_key, sizeof(name_key), "gpu%zu_name", idx);
					name = bg_machine_get(m, name_key);
					err = bg_buf_printf(&text,
					                    "%sGPU %zu%s%s%s: ", found ? "; " : "",
					                    idx, name ? " (" : "", name ? name : "",
					                    name ? ")" : "");
					listed = found = 1;
				} else {
					err = bg_buf_puts(&text, ", ");
				}
				for (k = 0; !err && k < len; k++)
					err = bg_buf_put(&text, p[k] == '_' ? " " : p + k, 1);
			}
		}
	}
	if (err < 0 || !found) {
		bg_buf_clear(&text);
		return err < 0 ? err : 0;
	}
	if (why && !(*why = bg_buf_detach(&text))) {
		bg_buf_clear(&text);
		return BG_ENOMEM;
	}
	bg_buf_clear(&text);
	return 1;
}
