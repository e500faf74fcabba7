/*
 * test_fingerprint.c -- machine facts read from fixture trees (an x86 EPYC
 * slice and an arm64 Neoverse-V1 under tests/fixtures/machine), the hash of
 * the stable ones, and which changes must or must not move it.
 */
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

static const bg_gpu h100 = { "NVIDIA H100 80GB HBM3", 85899345920ULL, 9, 0 };
static const bg_gpu a100 = { "NVIDIA A100-SXM4-40GB", 42949672960ULL, 8, 0 };

static bg_machine *detect_fixture(const char *name)
{
	char root[4096];
	bg_ctx *ctx = NULL;
	bg_machine *m = NULL;

	snprintf(root, sizeof(root), "%s/machine/%s", bg_test_fixtures(), name);
	assert_int_equal(bg_ctx_new(&ctx), 0);
	if (bg_machine_detect(ctx, root, &m) != 0)
		fail_msg("detect %s: %s", root, bg_ctx_error(ctx));
	bg_ctx_free(ctx);
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
	/* Detection runs no programs, so it never knows the compiler. */
	assert_null(bg_machine_get(m, "compiler"));
	assert_int_equal(bg_machine_fact_count(m), 13);
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

static void test_empty_root(void **state)
{
	char dir[] = "/tmp/bg-machine-XXXXXX";
	bg_ctx *ctx = NULL;
	bg_machine *m = NULL;

	(void)state;
	assert_non_null(mkdtemp(dir));
	assert_int_equal(bg_ctx_new(&ctx), 0);
	/* Nothing to read (a container without /proc or sysfs): no facts, no error. */
	assert_int_equal(bg_machine_detect(ctx, dir, &m), 0);
	assert_int_equal(bg_machine_fact_count(m), 0);
	assert_string_equal(bg_machine_fingerprint(m), EMPTY_FP);
	bg_machine_free(m);
	/* A root that does not exist at all behaves the same. */
	assert_int_equal(rmdir(dir), 0);
	assert_int_equal(bg_machine_detect(ctx, dir, &m), 0);
	assert_int_equal(bg_machine_fact_count(m), 0);
	bg_machine_free(m);
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
		cmocka_unit_test(test_other_layouts),
		cmocka_unit_test(test_real_machine),
	};
	return cmocka_run_group_tests_name("fingerprint", tests, NULL, NULL);
}
