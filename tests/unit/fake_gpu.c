/*
 * fake_gpu.c -- a stand-in for libnvidia-ml.so.1 and libcuda.so.1, built as
 * a shared library for test_fingerprint, so that lib/gpu.c's dlopen path is
 * exercised on machines without a GPU.  It describes two GPUs, listed in
 * the opposite order by "NVML" and "CUDA" (the fingerprint must not care),
 * with memory totals that differ by the reserved amounts the real
 * libraries report.  Volatile values come from the environment
 * (FAKE_GPU_TEMP, FAKE_GPU_SM_CLOCK, FAKE_GPU_THROTTLE, FAKE_GPU_DRIVER) so
 * a test can change them between probes.  FAKE_GPU_NVML_FAIL=1 makes
 * nvmlInit fail, as it does when the kernel module is missing;
 * FAKE_GPU_LOST=<NVML index + 1> makes that one GPU unreachable, as one
 * that fell off the bus is.
 */
#include <stdlib.h>
#include <string.h>

typedef struct {
	unsigned long long total, free, used;
} fake_memory;

struct fake_dev {
	const char *name;
	unsigned long long nvml_total, cuda_total;
	int major, minor;
};

static const struct fake_dev devs[2] = {
	{ "NVIDIA H100 80GB HBM3", 85520809984ULL, 84987740160ULL, 9, 0 },
	{ "NVIDIA A100-SXM4-40GB", 42505273344ULL, 42297524224ULL, 8, 0 },
};

/* Prototypes, as the real headers would give them. */
int nvmlInit_v2(void);
int nvmlShutdown(void);
int nvmlDeviceGetCount_v2(unsigned int *count);
int nvmlDeviceGetHandleByIndex_v2(unsigned int index, const struct fake_dev **dev);
int nvmlDeviceGetName(const struct fake_dev *dev, char *name, unsigned int len);
int nvmlDeviceGetMemoryInfo(const struct fake_dev *dev, fake_memory *mem);
int nvmlDeviceGetCudaComputeCapability(const struct fake_dev *dev, int *major, int *minor);
int nvmlSystemGetDriverVersion(char *version, unsigned int len);
int nvmlDeviceGetClockInfo(const struct fake_dev *dev, int type, unsigned int *clock);
int nvmlDeviceGetTemperature(const struct fake_dev *dev, int sensor, unsigned int *temp);
int nvmlDeviceGetPowerUsage(const struct fake_dev *dev, unsigned int *mw);
int nvmlDeviceGetCurrentClocksThrottleReasons(const struct fake_dev *dev,
                                              unsigned long long *reasons);
int cuInit(unsigned int flags);
int cuDeviceGetCount(int *count);
int cuDeviceGet(int *dev, int ordinal);
int cuDeviceGetName(char *name, int len, int dev);
int cuDeviceTotalMem_v2(size_t *bytes, int dev);
int cuDeviceGetAttribute(int *value, int attrib, int dev);
int cuDriverGetVersion(int *version);

static unsigned env_uint(const char *name, unsigned dflt)
{
	const char *v = getenv(name);

	return v ? (unsigned)strtoul(v, NULL, 0) : dflt;
}

static int copy_name(char *out, size_t len, const char *name)
{
	if (strlen(name) >= len)
		return 7; /* NVML_ERROR_INSUFFICIENT_SIZE */
	memcpy(out, name, strlen(name) + 1);
	return 0;
}

int nvmlInit_v2(void)
{
	unsigned fail = env_uint("FAKE_GPU_NVML_FAIL", 0);

	/* 1: NVML_ERROR_DRIVER_NOT_LOADED; another value: that code. */
	return fail == 1 ? 9 : (int)fail;
}

int nvmlShutdown(void)
{
	return 0;
}

int nvmlDeviceGetCount_v2(unsigned int *count)
{
	*count = 2;
	return 0;
}

int nvmlDeviceGetHandleByIndex_v2(unsigned int index, const struct fake_dev **dev)
{
	if (index > 1)
		return 2; /* NVML_ERROR_INVALID_ARGUMENT */
	if (env_uint("FAKE_GPU_LOST", 0) == index + 1)
		return 15; /* NVML_ERROR_GPU_IS_LOST */
	*dev = &devs[index];
	return 0;
}

int nvmlDeviceGetName(const struct fake_dev *dev, char *name, unsigned int len)
{
	return copy_name(name, len, dev->name);
}

int nvmlDeviceGetMemoryInfo(const struct fake_dev *dev, fake_memory *mem)
{
	mem->total = dev->nvml_total;
	mem->used = 1ULL << 29;
	mem->free = mem->total - mem->used;
	return 0;
}

int nvmlDeviceGetCudaComputeCapability(const struct fake_dev *dev, int *major, int *minor)
{
	*major = dev->major;
	*minor = dev->minor;
	return 0;
}

int nvmlSystemGetDriverVersion(char *version, unsigned int len)
{
	const char *v = getenv("FAKE_GPU_DRIVER");

	return copy_name(version, len, v ? v : "580.65.06");
}

int nvmlDeviceGetClockInfo(const struct fake_dev *dev, int type, unsigned int *clock)
{
	(void)dev;
	*clock = type == 1 ? env_uint("FAKE_GPU_SM_CLOCK", 1980) : 2619;
	return 0;
}

int nvmlDeviceGetTemperature(const struct fake_dev *dev, int sensor, unsigned int *temp)
{
	(void)dev;
	(void)sensor;
	*temp = env_uint("FAKE_GPU_TEMP", 41);
	return 0;
}

int nvmlDeviceGetPowerUsage(const struct fake_dev *dev, unsigned int *mw)
{
	(void)dev;
	*mw = 71234;
	return 0;
}

/* Only GPU 0 throttles, so a test can tell which GPU the warning names. */
int nvmlDeviceGetCurrentClocksThrottleReasons(const struct fake_dev *dev,
                                              unsigned long long *reasons)
{
	*reasons = dev == &devs[0] ? env_uint("FAKE_GPU_THROTTLE", 1) : 1;
	return 0;
}

/* "CUDA" lists the devices the other way round. */
static const struct fake_dev *cuda_dev(int dev)
{
	return dev == 0 ? &devs[1] : dev == 1 ? &devs[0] : NULL;
}

int cuInit(unsigned int flags)
{
	(void)flags;
	return (int)env_uint("FAKE_GPU_CUDA_FAIL", 0);
}

int cuDeviceGetCount(int *count)
{
	*count = env_uint("FAKE_GPU_CUDA_COUNT", 2);
	return 0;
}

int cuDeviceGet(int *dev, int ordinal)
{
	*dev = ordinal;
	return cuda_dev(ordinal) ? 0 : 101; /* CUDA_ERROR_INVALID_DEVICE */
}

int cuDeviceGetName(char *name, int len, int dev)
{
	return copy_name(name, (size_t)len, cuda_dev(dev)->name);
}

int cuDeviceTotalMem_v2(size_t *bytes, int dev)
{
	*bytes = (size_t)cuda_dev(dev)->cuda_total;
	return 0;
}

int cuDeviceGetAttribute(int *value, int attrib, int dev)
{
	if (attrib == 75)
		*value = cuda_dev(dev)->major;
	else if (attrib == 76)
		*value = cuda_dev(dev)->minor;
	else
		return 1;
	return 0;
}

int cuDriverGetVersion(int *version)
{
	*version = 13000;
	return 0;
}
