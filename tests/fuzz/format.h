/*
 * format.h -- the body of the format harnesses (fuzz_lines.c,
 * fuzz_gbench.c, fuzz_nvbench.c, fuzz_hyperfine.c, fuzz_go.c,
 * fuzz_pytest.c, fuzz_catch2.c, fuzz_perfstat.c), which define FUZZ_FORMAT,
 * FUZZ_BENCH (the benchmark name `import` would pass) and FUZZ_SOURCE.
 *
 * The promises of bg_format_parse_at, for any bytes: no crash, no hang, no
 * leak; a refusal is BG_EINPUT, names the file first and appends nothing;
 * what is accepted is series with at least one finite sample whose
 * benchmark, metric and unit are printable text, since they are stored and
 * shown in reports, PR comments and CI logs.
 *
 * nvbench names side files (sample times) relative to the JSON file: they
 * are read from a scratch folder that holds the two the seeds name.
 */
#include <math.h>
#include <sys/stat.h>
#include <unistd.h>

#include "fuzz.h"
#include "internal.h"

static char fuzz_dir[] = "/tmp/bg-fuzz-XXXXXX";
static pid_t fuzz_dir_owner; /* replay.c's children exit() too: only the maker removes it */
static const char *const side_files[] = { "samples.json-bin/0.bin",
	                                  "bad-truncated-bin.json-bin/0.bin" };

static void remove_dir(void)
{
	char path[256];
	size_t i;

	if (getpid() != fuzz_dir_owner)
		return;
	for (i = 0; i < BG_ARRAY_SIZE(side_files); i++) {
		snprintf(path, sizeof(path), "%s/%s", fuzz_dir, side_files[i]);
		unlink(path);
		*strrchr(path, '/') = '\0';
		rmdir(path);
	}
	rmdir(fuzz_dir);
}

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	/* 7 little-endian float32 GPU times, as nvbench --jsonbin writes them. */
	static const float times[7] = { 1e-3f, 1.1e-3f, 0.9e-3f, 1e-3f, 1.2e-3f, 1e-3f, 1e-3f };
	char path[256];
	size_t i;
	FILE *f;

	(void)argc;
	(void)argv;
	if (!mkdtemp(fuzz_dir))
		abort();
	fuzz_dir_owner = getpid();
	atexit(remove_dir);
	for (i = 0; i < BG_ARRAY_SIZE(side_files); i++) {
		snprintf(path, sizeof(path), "%s/%s", fuzz_dir, side_files[i]);
		*strrchr(path, '/') = '\0';
		mkdir(path, 0777);
		snprintf(path, sizeof(path), "%s/%s", fuzz_dir, side_files[i]);
		if (!(f = fopen(path, "wb")))
			abort();
		/* The second holds 26 bytes for 7 samples: a truncated file. */
		fwrite(times, 1, i ? 26 : sizeof(times), f);
		fclose(f);
	}
	return 0;
}

static void check_results(const bg_results *res)
{
	size_t i, k;

	for (i = 0; i < bg_results_series_count(res); i++) {
		const bg_series *s = bg_results_series(res, i);

		if (!bg_text__ok(s->benchmark) || !bg_text__ok(s->metric) || !bg_text__ok(s->unit))
			fuzz_fail("series %zu: a benchmark, metric or unit that is not printable "
			          "text",
			          i);
		if (!*s->benchmark || !*s->metric || !*s->unit)
			fuzz_fail("series %zu: an empty benchmark, metric or unit", i);
		if (s->n == 0)
			fuzz_fail("series %zu: no sample", i);
		for (k = 0; k < s->n; k++)
			if (!isfinite(s->values[k]))
				fuzz_fail("series %zu: sample %zu is not finite", i, k);
	}
	for (i = 0; i < bg_results_outcome_count(res); i++)
		if (!bg_text__ok(bg_results_outcome(res, i)->benchmark))
			fuzz_fail("outcome %zu: a benchmark that is not printable text", i);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	bg_ctx *ctx = NULL;
	bg_results *res = NULL;
	int rc;

	if (bg_ctx_new(&ctx) < 0 || bg_results_new(&res) < 0)
		abort();
	rc = bg_format_parse_at(ctx, FUZZ_FORMAT, FUZZ_SOURCE, FUZZ_BENCH, fuzz_dir,
	                        (const char *)data, size, res);
	if (rc == 0) {
		check_results(res);
	} else {
		fuzz_check_refusal(ctx, rc, FUZZ_SOURCE);
		if (bg_results_series_count(res) || bg_results_outcome_count(res))
			fuzz_fail("refused, yet series or outcomes were appended");
	}
	bg_results_free(res);
	bg_ctx_free(ctx);
	return 0;
}
