/*
 * test_fingerprint.c -- machine facts read from fixture trees (an x86 EPYC
 * slice and an arm64 Neoverse-V1 under tests/fixtures/machine), the hash of
 * the stable ones, and which changes must or must not move it.
 */
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/utsname.h>
#include <time.h>
#include <unistd.h>

#include "unit.h"

/* Expected fingerprints: the first 16 hex digits of `printf '<canonical text>' | sha256sum`,
 * where the canonical text is the stable facts asserted below as "key=value\n", sorted by key. */
#define X86_FP "b6ba9fd460b47f9e"   /* arch=x86_64 ... mem_total=31 GiB (see test_x86_facts) */
#define ARM_FP "8a7b060f985ba03e"   /* arch=aarch64 ... mem_total=15 GiB (see test_arm_facts) */
#define EMPTY_FP "e3b0c44298fc1c14" /* SHA-256 of the empty string */
/* X86 plus gpu0_cc=9.0, gpu0_memory=85899345920, gpu0_name=NVIDIA H100 80GB HBM3. */
#define X86_H100_FP "a58a82d5efa4d642"
/* X86 plus gpu0 = the A100 (8.0, 40 GiB), gpu1 = the H100: tests/unit/fake_gpu.c's two GPUs. */
#define X86_FAKE_GPUS_FP "7e9a02c140f79fc3"
#define NO_NVML "libnvidia-ml-absent.so.1"
#define NO_CUDA "libcuda-absent.so.1"

static const bg_gpu h100 = { "NVIDIA H100 80GB HBM3", 85899345920ULL, 9, 0 };
static const bg_gpu a100 = { "NVIDIA A100-SXM4-40GB", 42949672960ULL, 8, 0 };

static void last_warning(bg_log_level level, const char *msg, void *data);

/* A fixture tree's machine; a tree with a CPU draws no warning. */
static bg_machine *detect_fixture(const char *name)
{
	char root[4096], warned[512] = "";
	bg_ctx *ctx = NULL;
	bg_machine *m = NULL;

	snprintf(root, sizeof(root), "%s/machine/%s", bg_test_fixtures(), name);
	assert_int_equal(bg_ctx_new(&ctx), 0);
	bg_ctx_set_log(ctx, last_warning, warned);
	if (bg_machine_detect(ctx, root, &m) != 0)
		fail_msg("detect %s: %s", root, bg_ctx_error(ctx));
	bg_ctx_free(ctx);
	if (*warned)
		fail_msg("detect %s warned: %s", root, warned);
	assert_non_null(m);
	return m;
}

static void assert_fact(const bg_machine *m, const char *key, const char *want)
{
	const char *got = bg_machine_get(m, key);

	if (!got)
		fail_msg("fact %s is missing (want \"%s\")", key, want);
	if (strcmp(got, want) != 0)
		fail_msg("fact %s = \"%s\", want \"%s\"", key, got, want);
}

static void test_x86_facts(void **state)
{
	bg_machine *m = detect_fixture("x86-epyc");

	(void)state;
	/* Stable: read from the fixture's cpuinfo, sysfs and meminfo. */
	assert_fact(m, "arch", "x86_64");
	assert_fact(m, "cpu_model", "AMD EPYC 9654 96-Core Processor");
	assert_fact(m, "cpu_threads", "8");
	/* 8 processors with core ids 0-3 on one package: 4 cores x 2 threads. */
	assert_fact(m, "cpu_cores", "4");
	assert_fact(m, "cache", "L1d 32K, L1i 32K, L2 1024K, L3 32768K");
	/* 32827868 kB = 31.3 GiB, rounded to the nearest GiB. */
	assert_fact(m, "mem_total", "31 GiB");
	/* Volatile. */
	assert_fact(m, "kernel", "6.1.0-18-amd64");
	assert_fact(m, "hostname", "bench-x86-01");
	assert_fact(m, "cpu_governor", "performance");
	assert_fact(m, "load_avg", "0.52 0.58 0.59");
	assert_fact(m, "cpu_mhz", "3699.812"); /* the first "cpu MHz", processor 0's */
	assert_fact(m, "smt", "on");
	assert_fact(m, "turbo", "on");
	/* No cgroup quota in the tree: every CPU it has. */
	assert_fact(m, "cpus_usable", "8");
	/* Detection runs no programs, so it never knows the compiler. */
	assert_null(bg_machine_get(m, "compiler"));
	assert_int_equal(bg_machine_fact_count(m), 14);
	assert_string_equal(bg_machine_fingerprint(m), X86_FP);
	bg_machine_free(m);
}

static void test_arm_facts(void **state)
{
	bg_machine *m = detect_fixture("arm-neoverse");

	(void)state;
	assert_fact(m, "arch", "aarch64");
	/* No "model name" on arm64: the raw implementer and part ids. */
	assert_fact(m, "cpu_model", "CPU implementer 0x41 part 0xd40");
	assert_fact(m, "cpu_threads", "4");
	/* cpuinfo has no core ids here: cores come from topology/core_cpus_list. */
	assert_fact(m, "cpu_cores", "4");
	assert_fact(m, "cache", "L1d 64K, L1i 64K, L2 1024K, L3 32768K");
	assert_fact(m, "mem_total", "15 GiB"); /* 16044992 kB = 15.3 GiB */
	assert_fact(m, "kernel", "6.8.0-1015-aws");
	assert_fact(m, "load_avg", "1.07 0.93 0.88");
	assert_fact(m, "smt", "off");
	/* Files the tree lacks are absent facts, not errors. */
	assert_null(bg_machine_get(m, "cpu_governor"));
	assert_null(bg_machine_get(m, "cpu_mhz"));
	assert_null(bg_machine_get(m, "turbo"));
	assert_string_equal(bg_machine_fingerprint(m), ARM_FP);
	bg_machine_free(m);
}

static void test_same_tree_same_fingerprint(void **state)
{
	bg_machine *a = detect_fixture("x86-epyc"), *b = detect_fixture("x86-epyc");
	bg_machine *arm = detect_fixture("arm-neoverse");
	char fa[17];

	(void)state;
	snprintf(fa, sizeof(fa), "%s", bg_machine_fingerprint(a));
	assert_int_equal(strlen(fa), 16);
	assert_string_equal(bg_machine_fingerprint(b), fa);
	assert_string_not_equal(bg_machine_fingerprint(arm), fa);
	bg_machine_free(a);
	bg_machine_free(b);
	bg_machine_free(arm);
}

static void test_fact_order(void **state)
{
	bg_machine *m = detect_fixture("x86-epyc");
	const char *key, *value, *prev = "";
	int vol, prev_vol = 0;
	size_t i, n = bg_machine_fact_count(m), nstable = 0;

	(void)state;
	for (i = 0; i < n; i++) {
		assert_int_equal(bg_machine_fact(m, i, &key, &value, &vol), 0);
		assert_non_null(value);
		assert_string_equal(bg_machine_get(m, key), value);
		if (vol == prev_vol)
			assert_true(strcmp(prev, key) < 0);
		else
			assert_true(vol && !prev_vol); /* stable ones all come first */
		nstable += !vol;
		prev = key;
		prev_vol = vol;
	}
	assert_int_equal(nstable, 6);
	assert_int_equal(bg_machine_fact(m, 0, &key, &value, &vol), 0);
	assert_string_equal(key, "arch");
	assert_int_equal(vol, 0);
	assert_int_equal(bg_machine_fact(m, n, &key, &value, &vol), BG_ENOTFOUND);
	bg_machine_free(m);
}

static void test_volatile_facts_do_not_change_it(void **state)
{
	bg_machine *m = detect_fixture("x86-epyc");

	(void)state;
	assert_string_equal(bg_machine_fingerprint(m), X86_FP);
	assert_int_equal(bg_machine_set_fact(m, "load_avg", "31.00 30.12 28.70", 1), 0);
	assert_int_equal(bg_machine_set_fact(m, "kernel", "6.12.0-rc1", 1), 0);
	assert_int_equal(bg_machine_set_fact(m, "cpu_governor", "powersave", 1), 0);
	assert_int_equal(bg_machine_set_fact(m, "gpu0_driver", "550.54.15", 1), 0);
	assert_int_equal(bg_machine_set_fact(m, "gpu0_clock_mhz", "1980", 1), 0);
	assert_int_equal(bg_machine_set_fact(m, "compiler", "clang version 18.1.8", 1), 0);
	assert_string_equal(bg_machine_get(m, "load_avg"), "31.00 30.12 28.70");
	assert_string_equal(bg_machine_fingerprint(m), X86_FP);
	bg_machine_free(m);
}

static void test_stable_fact_changes_it(void **state)
{
	bg_machine *m = detect_fixture("x86-epyc");

	(void)state;
	assert_string_equal(bg_machine_fingerprint(m), X86_FP); /* computed and cached */
	assert_int_equal(bg_machine_set_fact(m, "mem_total", "63 GiB", 0), 0);
	assert_string_not_equal(bg_machine_fingerprint(m), X86_FP);
	assert_int_equal(bg_machine_set_fact(m, "mem_total", "31 GiB", 0), 0);
	assert_string_equal(bg_machine_fingerprint(m), X86_FP);
	/* A stable fact turned volatile leaves the hash; turned back, it returns. */
	assert_int_equal(
	        bg_machine_set_fact(m, "cache", "L1d 32K, L1i 32K, L2 1024K, L3 32768K", 1), 0);
	assert_string_not_equal(bg_machine_fingerprint(m), X86_FP);
	assert_int_equal(
	        bg_machine_set_fact(m, "cache", "L1d 32K, L1i 32K, L2 1024K, L3 32768K", 0), 0);
	assert_string_equal(bg_machine_fingerprint(m), X86_FP);
	bg_machine_free(m);
}

static void test_gpus_change_it(void **state)
{
	bg_machine *a = detect_fixture("x86-epyc"), *b = detect_fixture("x86-epyc");
	char with_h100[17];

	(void)state;
	assert_int_equal(bg_machine_add_gpu(a, &h100), 0);
	assert_fact(a, "gpu0_name", "NVIDIA H100 80GB HBM3");
	assert_fact(a, "gpu0_memory", "85899345920");
	assert_fact(a, "gpu0_cc", "9.0");
	snprintf(with_h100, sizeof(with_h100), "%s", bg_machine_fingerprint(a));
	assert_string_equal(with_h100, X86_H100_FP);
	assert_string_not_equal(with_h100, X86_FP);

	assert_int_equal(bg_machine_add_gpu(b, &a100), 0);
	assert_fact(b, "gpu0_cc", "8.0");
	assert_string_not_equal(bg_machine_fingerprint(b), with_h100);
	assert_string_not_equal(bg_machine_fingerprint(b), X86_FP);

	/* A second GPU is gpu1 and changes it again. */
	assert_int_equal(bg_machine_add_gpu(a, &h100), 0);
	assert_fact(a, "gpu1_name", "NVIDIA H100 80GB HBM3");
	assert_string_not_equal(bg_machine_fingerprint(a), with_h100);

	assert_int_equal(bg_machine_add_gpu(a, NULL), BG_EINPUT);
	bg_machine_free(a);
	bg_machine_free(b);
}

static void test_set_name(void **state)
{
	bg_machine *m = detect_fixture("x86-epyc");

	(void)state;
	assert_int_equal(bg_machine_set_name(m, "ci-runner-a100"), 0);
	assert_string_equal(bg_machine_fingerprint(m), "ci-runner-a100");
	/* Still the name after a stable fact changes. */
	assert_int_equal(bg_machine_add_gpu(m, &h100), 0);
	assert_string_equal(bg_machine_fingerprint(m), "ci-runner-a100");
	assert_int_equal(bg_machine_set_name(m, ""), BG_EINPUT);
	assert_int_equal(bg_machine_set_name(m, "two words"), BG_EINPUT);
	assert_int_equal(bg_machine_set_name(m, "tab\there"), BG_EINPUT);
	assert_int_equal(bg_machine_set_name(m, "bell\a"), BG_EINPUT);
	/* report --machine all means every machine: no machine may be "all". */
	assert_int_equal(bg_machine_set_name(m, "all"), BG_EINPUT);
	assert_int_equal(bg_machine_set_name(m, "all-runners"), 0);
	assert_int_equal(bg_machine_set_name(m, "ci-runner-a100"), 0);
	assert_string_equal(bg_machine_fingerprint(m), "ci-runner-a100"); /* unchanged by those */
	/* NULL drops the override: back to the hash. */
	assert_int_equal(bg_machine_set_name(m, NULL), 0);
	assert_string_equal(bg_machine_fingerprint(m), X86_H100_FP);
	bg_machine_free(m);
}

static void test_facts_as_data(void **state)
{
	bg_machine *m = NULL;

	(void)state;
	assert_int_equal(bg_machine_new(&m), 0);
	assert_int_equal(bg_machine_fact_count(m), 0);
	assert_string_equal(bg_machine_fingerprint(m), EMPTY_FP);
	assert_int_equal(bg_machine_set_fact(m, "b", "2", 0), 0);
	assert_int_equal(bg_machine_set_fact(m, "a", "1", 0), 0);
	assert_int_equal(bg_machine_set_fact(m, "z", "v", 1), 0);
	/* printf 'a=1\nb=2\n' | sha256sum -> 4a73850fde34aad4... */
	assert_string_equal(bg_machine_fingerprint(m), "4a73850fde34aad4");
	/* Replacing a value keeps one fact per key. */
	assert_int_equal(bg_machine_set_fact(m, "z", "w", 1), 0);
	assert_int_equal(bg_machine_fact_count(m), 3);
	assert_string_equal(bg_machine_get(m, "z"), "w");
	assert_null(bg_machine_get(m, "nope"));
	/* Keys and values that would make the canonical text ambiguous. */
	assert_int_equal(bg_machine_set_fact(m, "", "x", 0), BG_EINPUT);
	assert_int_equal(bg_machine_set_fact(m, "a=b", "x", 0), BG_EINPUT);
	assert_int_equal(bg_machine_set_fact(m, "k", "two\nlines", 0), BG_EINPUT);
	assert_int_equal(bg_machine_set_fact(m, "k", NULL, 0), BG_EINPUT);
	assert_string_equal(bg_machine_fingerprint(m), "4a73850fde34aad4");
	bg_machine_free(m);
	bg_machine_free(NULL);
}

/* Keeps the last warning logged. */
static void last_warning(bg_log_level level, const char *msg, void *data)
{
	if (level == BG_LOG_WARN)
		snprintf(data, 512, "%s", msg);
}

static void test_empty_root(void **state)
{
	char dir[] = "/tmp/bg-machine-XXXXXX", warned[512] = "";
	bg_ctx *ctx = NULL;
	bg_machine *m = NULL;

	(void)state;
	assert_non_null(mkdtemp(dir));
	assert_int_equal(bg_ctx_new(&ctx), 0);
	bg_ctx_set_log(ctx, last_warning, warned);
	/* Nothing to read (a container without /proc or sysfs): no facts, no
	 * error (storing a run under it warns: test_store). */
	assert_int_equal(bg_machine_detect(ctx, dir, &m), 0);
	assert_int_equal(bg_machine_fact_count(m), 0);
	assert_string_equal(bg_machine_fingerprint(m), EMPTY_FP);
	assert_string_equal(warned, "");
	bg_machine_free(m);
	/* A root that does not exist at all behaves the same. */
	assert_int_equal(rmdir(dir), 0);
	assert_int_equal(bg_machine_detect(ctx, dir, &m), 0);
	assert_int_equal(bg_machine_fact_count(m), 0);
	bg_machine_free(m);
	bg_ctx_free(ctx);
}

static void put_file(const char *root, const char *rel, const char *text);

/* cpus_usable of a tree with 4 CPUs and the cgroup files given. */
static void assert_usable(const char *cgroup, const char *rel, const char *text, const char *rel2,
                          const char *text2, const char *want)
{
	char dir[] = "/tmp/bg-cgroup-XXXXXX", cmd[4200];
	bg_ctx *ctx = NULL;
	bg_machine *m = NULL;

	assert_non_null(mkdtemp(dir));
	put_file(dir, "sys/devices/system/cpu/online", "0-3\n");
	put_file(dir, "proc/self/cgroup", cgroup);
	if (rel)
		put_file(dir, rel, text);
	if (rel2)
		put_file(dir, rel2, text2);
	assert_int_equal(bg_ctx_new(&ctx), 0);
	assert_int_equal(bg_machine_detect(ctx, dir, &m), 0);
	assert_fact(m, "cpus_usable", want);
	bg_machine_free(m);
	bg_ctx_free(ctx);
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
	assert_int_equal(system(cmd), 0);
}

/*
 * The CPUs a process may use, less its cgroup's CPU quota (docker --cpus,
 * a Kubernetes limit): cgroup v2's cpu.max, v1's cfs quota and period
 * under the controller's own folder, the lowest of the folder's and those
 * above it; no quota ("max", -1) leaves them all.
 */
static void test_cpu_quota(void **state)
{
	(void)state;
	assert_usable("0::/ci.slice/job-7\n", "sys/fs/cgroup/ci.slice/job-7/cpu.max",
	              "50000 100000\n", NULL, NULL, "0.5");
	assert_usable("0::/ci.slice/job-7\n", "sys/fs/cgroup/ci.slice/job-7/cpu.max",
	              "max 100000\n", NULL, NULL, "4");
	assert_usable("12:pids:/docker/ab\n4:cpu,cpuacct:/docker/ab\n1:name=systemd:/docker/ab\n",
	              "sys/fs/cgroup/cpu,cpuacct/docker/ab/cpu.cfs_quota_us", "150000\n",
	              "sys/fs/cgroup/cpu,cpuacct/docker/ab/cpu.cfs_period_us", "100000\n", "1.5");
	assert_usable("4:cpu,cpuacct:/docker/ab\n",
	              "sys/fs/cgroup/cpu,cpuacct/docker/ab/cpu.cfs_quota_us", "-1\n",
	              "sys/fs/cgroup/cpu,cpuacct/docker/ab/cpu.cfs_period_us", "100000\n", "4");
	/* A quota above the CPUs there are changes nothing. */
	assert_usable("0::/big\n", "sys/fs/cgroup/big/cpu.max", "800000 100000\n", NULL, NULL, "4");
	/* A quota on a folder above holds the ones below it. */
	assert_usable("0::/kubepods/pod1/ctr\n", "sys/fs/cgroup/kubepods/pod1/cpu.max",
	              "150000 100000\n", "sys/fs/cgroup/kubepods/pod1/ctr/cpu.max", "max 100000\n",
	              "1.5");
	assert_usable("3:cpu:/a/b\n", "sys/fs/cgroup/cpu/a/cpu.cfs_quota_us", "25000\n",
	              "sys/fs/cgroup/cpu/a/cpu.cfs_period_us", "100000\n", "0.25");
	/* Both hierarchies (a hybrid host): the lower quota. */
	assert_usable("1:cpu:/j\n0::/j\n", "sys/fs/cgroup/cpu/j/cpu.cfs_quota_us", "200000\n",
	              "sys/fs/cgroup/cpu/j/cpu.cfs_period_us", "100000\n", "2");
	/* "cpuacct" alone is not the cpu controller. */
	assert_usable("2:cpuacct:/x\n", "sys/fs/cgroup/cpuacct/x/cpu.cfs_quota_us", "10000\n",
	              "sys/fs/cgroup/cpuacct/x/cpu.cfs_period_us", "100000\n", "4");
}

/*
 * A stable fact's file that fails to be read this time (an I/O error, too
 * many open files) is an error that names it: taken as absent, it gave the
 * machine another fingerprint, and ci judged the run as another machine's
 * first, against no baseline, and passed a regression.  A volatile fact's
 * file that fails is left out, as it changes no fingerprint.
 */
static void test_unreadable_fact(void **state)
{
	char dir[] = "/tmp/bg-machine-XXXXXX", path[4096];
	bg_ctx *ctx = NULL;
	bg_machine *m = NULL;
	struct rlimit was, low;
	int fd;

	(void)state;
	assert_non_null(mkdtemp(dir));
	assert_int_equal(bg_ctx_new(&ctx), 0);
	/* /proc/self/mem read from offset 0: EIO, every time. */
	snprintf(path, sizeof(path), "%s/proc", dir);
	assert_int_equal(mkdir(path, 0755), 0);
	snprintf(path, sizeof(path), "%s/proc/cpuinfo", dir);
	assert_int_equal(symlink("/proc/self/mem", path), 0);
	assert_int_equal(bg_machine_detect(ctx, dir, &m), BG_EIO);
	assert_null(m);
	if (!strstr(bg_ctx_error(ctx), "/proc/cpuinfo, one of the machine's facts: Input/output "
	                               "error"))
		fail_msg("error: %s", bg_ctx_error(ctx));
	assert_int_equal(unlink(path), 0);
	/* ... the same file as a volatile fact's (the load average): left out. */
	snprintf(path, sizeof(path), "%s/proc/loadavg", dir);
	assert_int_equal(symlink("/proc/self/mem", path), 0);
	assert_int_equal(bg_machine_detect(ctx, dir, &m), 0);
	assert_null(bg_machine_get(m, "load_avg"));
	assert_string_equal(bg_machine_fingerprint(m), EMPTY_FP);
	bg_machine_free(m);
	m = NULL;
	assert_int_equal(unlink(path), 0);
	/* No descriptor left to open the real machine's files with: EMFILE. */
	assert_int_equal(getrlimit(RLIMIT_NOFILE, &was), 0);
	assert_true((fd = dup(0)) >= 0);
	close(fd);
	low = was;
	low.rlim_cur = (rlim_t)fd;
	assert_int_equal(setrlimit(RLIMIT_NOFILE, &low), 0);
	fd = bg_machine_detect(ctx, "/", &m);
	assert_int_equal(setrlimit(RLIMIT_NOFILE, &was), 0);
	assert_int_equal(fd, BG_EIO);
	assert_null(m);
	if (!strstr(bg_ctx_error(ctx), "Too many open files"))
		fail_msg("error: %s", bg_ctx_error(ctx));
	snprintf(path, sizeof(path), "%s/proc", dir);
	assert_int_equal(rmdir(path), 0);
	assert_int_equal(rmdir(dir), 0);
	bg_ctx_free(ctx);
}

/* Writes `text` to root/rel, creating the directories on the way. */
static void put_file(const char *root, const char *rel, const char *text)
{
	char path[4096], *slash;
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", root, rel);
	for (slash = strchr(path + strlen(root) + 1, '/'); slash; slash = strchr(slash + 1, '/')) {
		*slash = '\0';
		mkdir(path, 0755);
		*slash = '/';
	}
	f = fopen(path, "w");
	assert_non_null(f);
	fputs(text, f);
	assert_int_equal(fclose(f), 0);
}

static bg_machine *detect_root(const char *root)
{
	bg_machine *m = NULL;

	assert_int_equal(bg_machine_detect(NULL, root, &m), 0);
	return m;
}

static void test_other_layouts(void **state)
{
	char root[64] = "/tmp/bg-machine-XXXXXX", cmd[96];
	bg_machine *m;

	(void)state;
	assert_non_null(mkdtemp(root));
	/* big.LITTLE arm64: two kinds of core, CPU 3 offline ("0-2,4"), a
	 * trailing slash on the root, and no core ids in cpuinfo. */
	put_file(root, "proc/cpuinfo",
	         "processor\t: 0\nCPU implementer\t: 0x41\nCPU part\t: 0xd05\n\n"
	         "processor\t: 1\nCPU implementer\t: 0x41\nCPU part\t: 0xd05\n\n"
	         "processor\t: 2\nCPU implementer\t: 0x41\nCPU part\t: 0xd05\n\n"
	         "processor\t: 4\nCPU implementer\t: 0x41\nCPU part\t: 0xd0b\n");
	put_file(root, "sys/devices/system/cpu/online", "0-2,4\n");
	put_file(root, "sys/devices/system/cpu/cpu0/topology/core_cpus_list", "0\n");
	put_file(root, "sys/devices/system/cpu/cpu1/topology/core_cpus_list", "1\n");
	put_file(root, "sys/devices/system/cpu/cpu2/topology/core_cpus_list", "2\n");
	/* Older kernels only have thread_siblings_list. */
	put_file(root, "sys/devices/system/cpu/cpu4/topology/thread_siblings_list", "4\n");
	/* 1.5 GiB exactly rounds up; a unified-only cache list. */
	put_file(root, "proc/meminfo", "MemFree: 1 kB\nMemTotal:        1572864 kB\n");
	put_file(root, "sys/devices/system/cpu/cpu0/cache/index0/level", "2\n");
	put_file(root, "sys/devices/system/cpu/cpu0/cache/index0/type", "Unified\n");
	put_file(root, "sys/devices/system/cpu/cpu0/cache/index0/size", "512K\n");
	put_file(root, "sys/devices/system/cpu/intel_pstate/no_turbo", "1\n");
	strcat(root, "/");
	m = detect_root(root);
	root[strlen(root) - 1] = '\0';
	assert_fact(m, "cpu_model",
	            "CPU implementer 0x41 part 0xd05 + CPU implementer 0x41 part 0xd0b");
	assert_fact(m, "cpu_threads", "4");
	assert_fact(m, "cpu_cores", "4");
	assert_fact(m, "mem_total", "2 GiB");
	assert_fact(m, "cache", "L2 512K");
	assert_fact(m, "turbo", "off"); /* intel_pstate/no_turbo = 1 */
	assert_null(bg_machine_get(m, "arch"));
	bg_machine_free(m);

	/* An arm32 board: "Hardware" names it; no online file, so the
	 * processor entries are counted; SMT siblings share a core list. */
	put_file(root, "proc/cpuinfo",
	         "processor\t: 0\nmodel name\t: ARMv7 Processor rev 4 (v7l)\n\n"
	         "processor\t: 1\nmodel name\t: ARMv7 Processor rev 4 (v7l)\n\n"
	         "Hardware\t: BCM2835\nRevision\t: a02082\n");
	put_file(root, "sys/devices/system/cpu/online", "garbage\n");
	put_file(root, "sys/devices/system/cpu/cpu1/topology/core_cpus_list", "0-1\n");
	put_file(root, "sys/devices/system/cpu/cpu0/topology/core_cpus_list", "0-1\n");
	put_file(root, "proc/meminfo", "MemTotal:        1572863 kB\n");
	m = detect_root(root);
	/* "model name" wins over "Hardware" when both are there. */
	assert_fact(m, "cpu_model", "ARMv7 Processor rev 4 (v7l)");
	assert_fact(m, "cpu_threads", "2");
	assert_fact(m, "cpu_cores", "1");
	assert_fact(m, "mem_total", "1 GiB");
	bg_machine_free(m);

	put_file(root, "proc/cpuinfo", "processor\t: 0\nHardware\t: BCM2835\n");
	m = detect_root(root);
	assert_fact(m, "cpu_model", "BCM2835");
	bg_machine_free(m);

	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", root);
	assert_int_equal(system(cmd), 0);
}

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static void test_real_machine(void **state)
{
	bg_ctx *ctx = NULL;
	bg_machine *m = NULL;
	struct utsname u;
	const char *threads;
	double t0, t1;

	(void)state;
	assert_int_equal(bg_ctx_new(&ctx), 0);
	t0 = now();
	if (bg_machine_detect(ctx, "/", &m) != 0)
		fail_msg("detect /: %s", bg_ctx_error(ctx));
	t1 = now();
	assert_non_null(bg_machine_get(m, "cpu_model"));
	assert_non_null(bg_machine_get(m, "mem_total"));
	threads = bg_machine_get(m, "cpu_threads");
	assert_non_null(threads);
	assert_true(atol(threads) >= 1);
	assert_true(atol(threads) == sysconf(_SC_NPROCESSORS_ONLN));
	assert_int_equal(uname(&u), 0);
	assert_fact(m, "arch", u.machine);
	assert_fact(m, "kernel", u.release);
	assert_int_equal(strlen(bg_machine_fingerprint(m)), 16);
	print_message("# detect / took %.1f ms, fingerprint %s\n", (t1 - t0) * 1e3,
	              bg_machine_fingerprint(m));
	bg_machine_free(m);
	/* "" and "//" mean the host too. */
	assert_int_equal(bg_machine_detect(ctx, "", &m), 0);
	assert_fact(m, "arch", u.machine);
	bg_machine_free(m);
	assert_int_equal(bg_machine_detect(ctx, "//", &m), 0);
	assert_fact(m, "kernel", u.release);
	bg_machine_free(m);
	bg_ctx_free(ctx);
}

/* tests/unit/fake_gpu.c, built beside this test by the Makefile. */
static const char *fake_gpu_lib(void)
{
	static char path[4096];
	ssize_t n = readlink("/proc/self/exe", path, sizeof(path) - 32);
	char *slash;

	assert_true(n > 0);
	path[n] = '\0';
	slash = strrchr(path, '/');
	assert_non_null(slash);
	strcpy(slash + 1, "libfakegpu.so");
	if (access(path, R_OK) != 0)
		fail_msg("%s is missing: build it with `make unit`", path);
	return path;
}

static void fake_gpu_env(const char *temp, const char *clock, const char *throttle,
                         const char *driver)
{
	setenv("FAKE_GPU_TEMP", temp, 1);
	setenv("FAKE_GPU_SM_CLOCK", clock, 1);
	setenv("FAKE_GPU_THROTTLE", throttle, 1);
	setenv("FAKE_GPU_DRIVER", driver, 1);
	unsetenv("FAKE_GPU_NVML_FAIL");
	unsetenv("FAKE_GPU_CUDA_COUNT");
	unsetenv("FAKE_GPU_LOST");
}

static void assert_no_gpu_facts(const bg_machine *m)
{
	const char *key;
	size_t i;

	for (i = 0; i < bg_machine_fact_count(m); i++) {
		assert_int_equal(bg_machine_fact(m, i, &key, NULL, NULL), 0);
		if (!strncmp(key, "gpu", 3))
			fail_msg("unexpected GPU fact %s", key);
	}
}

/* No NVML and no CUDA driver: no GPU, not an error, the fingerprint as before. */
static void test_gpu_libraries_absent(void **state)
{
	bg_machine *m = detect_fixture("x86-epyc");
	size_t n = bg_machine_fact_count(m);
	char *why = NULL;

	(void)state;
	assert_int_equal(bg_gpu__probe(m, NO_NVML, NO_CUDA, 1), 0);
	assert_int_equal(bg_machine_fact_count(m), n);
	assert_no_gpu_facts(m);
	assert_string_equal(bg_machine_fingerprint(m), X86_FP);
	assert_int_equal(bg_gpu__cuda_usable(NO_CUDA, &why), 0);
	assert_non_null(why);
	assert_non_null(strstr(why, "not found"));
	free(why);
	bg_machine_free(m);
}

static void test_gpu_facts_from_nvml(void **state)
{
	bg_machine *a = detect_fixture("x86-epyc"), *b = detect_fixture("x86-epyc");
	int vol = -1;
	size_t i;
	const char *key, *value;

	(void)state;
	fake_gpu_env("41", "1980", "1", "580.65.06");
	assert_int_equal(bg_gpu__probe(a, fake_gpu_lib(), NO_CUDA, 1), 0);
	/* Sorted by name, memory rounded up to whole GiB. */
	assert_fact(a, "gpu0_name", "NVIDIA A100-SXM4-40GB");
	assert_fact(a, "gpu0_memory", "42949672960");
	assert_fact(a, "gpu0_cc", "8.0");
	assert_fact(a, "gpu1_name", "NVIDIA H100 80GB HBM3");
	assert_fact(a, "gpu1_memory", "85899345920");
	assert_fact(a, "gpu1_cc", "9.0");
	assert_fact(a, "gpu_driver", "580.65.06");
	assert_fact(a, "gpu1_temp_c", "41");
	assert_fact(a, "gpu1_sm_clock_mhz", "1980");
	assert_fact(a, "gpu1_mem_clock_mhz", "2619");
	assert_fact(a, "gpu1_power_w", "71.2");
	assert_fact(a, "gpu1_throttle", "gpu_idle");
	for (i = 0; bg_machine_fact(a, i, &key, &value, &vol) == 0; i++)
		if (!strncmp(key, "gpu", 3))
			assert_int_equal(vol, strstr(key, "_name") || strstr(key, "_memory") ||
			                                      strstr(key, "_cc")
			                              ? 0
			                              : 1);
	assert_string_equal(bg_machine_fingerprint(a), X86_FAKE_GPUS_FP);

	/* Another probe, with every volatile fact changed: the same hash. */
	fake_gpu_env("87", "1350", "0x20", "590.10.01");
	assert_int_equal(bg_gpu__probe(b, fake_gpu_lib(), NO_CUDA, 1), 0);
	assert_fact(b, "gpu1_temp_c", "87");
	assert_fact(b, "gpu1_sm_clock_mhz", "1350");
	assert_fact(b, "gpu1_throttle", "sw_thermal_slowdown");
	assert_fact(b, "gpu_driver", "590.10.01");
	assert_string_equal(bg_machine_fingerprint(b), X86_FAKE_GPUS_FP);

	/* A refresh replaces the volatile facts and adds no GPU. */
	assert_int_equal(bg_gpu__probe(a, fake_gpu_lib(), NULL, 0), 0);
	assert_fact(a, "gpu1_temp_c", "87");
	assert_null(bg_machine_get(a, "gpu2_name"));
	assert_string_equal(bg_machine_fingerprint(a), X86_FAKE_GPUS_FP);
	bg_machine_free(a);
	bg_machine_free(b);
}

/* Without NVML (absent, or its init failing) the CUDA driver names the same GPUs. */
static void test_gpu_facts_from_cuda_driver(void **state)
{
	bg_machine *a = detect_fixture("x86-epyc"), *b = detect_fixture("x86-epyc");
	char *why = NULL;

	(void)state;
	fake_gpu_env("41", "1980", "1", "580.65.06");
	assert_int_equal(bg_gpu__probe(a, NO_NVML, fake_gpu_lib(), 1), 0);
	assert_fact(a, "gpu0_name", "NVIDIA A100-SXM4-40GB");
	assert_fact(a, "gpu1_memory", "85899345920");
	assert_fact(a, "gpu_driver", "CUDA 13.0");
	assert_null(bg_machine_get(a, "gpu1_temp_c"));
	assert_string_equal(bg_machine_fingerprint(a), X86_FAKE_GPUS_FP);

	setenv("FAKE_GPU_NVML_FAIL", "1", 1);
	assert_int_equal(bg_gpu__probe(b, fake_gpu_lib(), fake_gpu_lib(), 1), 0);
	assert_fact(b, "gpu_driver", "CUDA 13.0");
	assert_string_equal(bg_machine_fingerprint(b), X86_FAKE_GPUS_FP);

	assert_int_equal(bg_gpu__cuda_usable(fake_gpu_lib(), &why), 1);
	assert_null(why);
	setenv("FAKE_GPU_CUDA_COUNT", "0", 1);
	assert_int_equal(bg_gpu__cuda_usable(fake_gpu_lib(), &why), 0);
	assert_string_equal(why, "no CUDA device");
	free(why);
	unsetenv("FAKE_GPU_NVML_FAIL");
	unsetenv("FAKE_GPU_CUDA_COUNT");
	bg_machine_free(a);
	bg_machine_free(b);
}

static void test_gpu_throttling(void **state)
{
	bg_machine *m = NULL;
	char *why = NULL;

	(void)state;
	/* Idle and application clocks are not throttling. */
	fake_gpu_env("41", "1980", "0x3", "580.65.06");
	assert_int_equal(bg_machine_new(&m), 0);
	assert_int_equal(bg_gpu__probe(m, fake_gpu_lib(), NULL, 1), 0);
	assert_fact(m, "gpu1_throttle", "gpu_idle,applications_clocks_setting");
	assert_int_equal(bg_gpu_throttling(m, &why), 0);
	assert_null(why);

	/* Power cap and thermal slowdown on the H100 (gpu1) only. */
	setenv("FAKE_GPU_THROTTLE", "0x24", 1);
	assert_int_equal(bg_gpu__probe(m, fake_gpu_lib(), NULL, 0), 0);
	assert_fact(m, "gpu0_throttle", "gpu_idle");
	assert_fact(m, "gpu1_throttle", "sw_power_cap,sw_thermal_slowdown");
	assert_int_equal(bg_gpu_throttling(m, &why), 1);
	assert_string_equal(why,
	                    "GPU 1 (NVIDIA H100 80GB HBM3): sw power cap, sw thermal slowdown");
	free(why);
	assert_int_equal(bg_gpu_throttling(m, NULL), 1);
	bg_machine_free(m);

	/* The A100 (gpu0) is lost by the time the run is over: the H100's state
	 * is still its own, and the warning names the H100, not the A100. */
	fake_gpu_env("41", "1980", "0x1", "580.65.06");
	assert_int_equal(bg_machine_new(&m), 0);
	assert_int_equal(bg_gpu__probe(m, fake_gpu_lib(), NULL, 1), 0);
	setenv("FAKE_GPU_LOST", "2", 1);
	setenv("FAKE_GPU_THROTTLE", "0x20", 1);
	setenv("FAKE_GPU_TEMP", "90", 1);
	assert_int_equal(bg_gpu__probe(m, fake_gpu_lib(), NULL, 0), 0);
	assert_fact(m, "gpu1_throttle", "sw_thermal_slowdown");
	assert_fact(m, "gpu1_temp_c", "90");
	assert_fact(m, "gpu0_throttle", "gpu_idle");
	assert_fact(m, "gpu0_temp_c", "41");
	assert_int_equal(bg_gpu_throttling(m, &why), 1);
	assert_string_equal(why, "GPU 1 (NVIDIA H100 80GB HBM3): sw thermal slowdown");
	free(why);
	bg_machine_free(m);
	unsetenv("FAKE_GPU_LOST");

	/* Facts handed over as data (a stored run's): no name, still a warning. */
	assert_int_equal(bg_machine_new(&m), 0);
	assert_int_equal(bg_gpu_throttling(m, &why), 0);
	assert_int_equal(bg_machine_set_fact(m, "gpu3_throttle", "hw_slowdown", 1), 0);
	assert_int_equal(bg_machine_set_fact(m, "gpu_throttle", "hw_slowdown", 1), 0);
	assert_int_equal(bg_gpu_throttling(m, &why), 1);
	assert_string_equal(why, "GPU 3: hw slowdown");
	free(why);
	bg_machine_free(m);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_x86_facts),
		cmocka_unit_test(test_arm_facts),
		cmocka_unit_test(test_same_tree_same_fingerprint),
		cmocka_unit_test(test_fact_order),
		cmocka_unit_test(test_volatile_facts_do_not_change_it),
		cmocka_unit_test(test_stable_fact_changes_it),
		cmocka_unit_test(test_gpus_change_it),
		cmocka_unit_test(test_set_name),
		cmocka_unit_test(test_facts_as_data),
		cmocka_unit_test(test_empty_root),
		cmocka_unit_test(test_unreadable_fact),
		cmocka_unit_test(test_other_layouts),
		cmocka_unit_test(test_real_machine),
		cmocka_unit_test(test_gpu_libraries_absent),
		cmocka_unit_test(test_gpu_facts_from_nvml),
		cmocka_unit_test(test_gpu_facts_from_cuda_driver),
		cmocka_unit_test(test_gpu_throttling),
		cmocka_unit_test(test_cpu_quota),
	};
	return cmocka_run_group_tests_name("fingerprint", tests, NULL, NULL);
}
