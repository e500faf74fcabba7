/*
 * fuzz_config.c -- the config loader (bg_config_parse) on any bytes.
 *
 * The promises: no crash, no hang, no leak; a refusal is BG_EINPUT with a
 * message that starts with the file's name; an accepted config reads back
 * through every accessor, and its benchmark names, which become series
 * names, are text that can be printed (no control character, valid UTF-8).
 */
#include "fuzz.h"
#include "internal.h"

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	(void)argc;
	(void)argv;
	return 0;
}

/* Reads a string the config handed out: all of it must be there. */
static size_t touch(const char *s)
{
	return s ? strlen(s) : 0;
}

static void walk(bg_ctx *ctx, const bg_config *cfg)
{
	size_t i, k, n = 0;

	n += touch(bg_config_path(cfg)) + touch(bg_config_project(cfg)) +
	     touch(bg_config_build(cfg)) + touch(bg_config_baseline(cfg)->branch);
	if (bg_config_benchmark_count(cfg) == 0)
		fuzz_fail("a config with no benchmark was accepted");
	for (i = 0; i < bg_config_benchmark_count(cfg); i++) {
		const bg_benchmark *b = bg_config_benchmark(cfg, i);

		if (!bg_text__ok(b->name))
			fuzz_fail("benchmark %zu's name is not printable text", i);
		n += touch(b->command);
		for (k = 0; k < b->nrequires; k++)
			n += touch(b->requires[k]);
		for (k = 0; k < b->nmetrics; k++)
			n += touch(b->metrics[k].metric);
	}
	for (i = 0; i < bg_config_alert_count(cfg); i++) {
		const bg_alert_cfg *a = bg_config_alert(cfg, i);
		const char *fields[] = { a->url, a->secret, a->repo, a->token, a->pr, a->api_url };

		n += touch(a->kind);
		for (k = 0; k < BG_ARRAY_SIZE(fields); k++) {
			char *out = NULL;

			/* ${VAR} expansion on what the file wrote: any outcome but a crash. */
			if (fields[k] && bg_config_expand(ctx, fields[k], &out) == 0)
				n += touch(out);
			free(out);
		}
	}
	(void)n;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	bg_ctx *ctx = NULL;
	bg_config *cfg = NULL;
	int rc;

	if (bg_ctx_new(&ctx) < 0)
		abort();
	rc = bg_config_parse(ctx, "fuzz.json", (const char *)data, size, &cfg);
	if (rc == 0)
		walk(ctx, cfg);
	else
		fuzz_check_refusal(ctx, rc, "fuzz.json");
	bg_config_free(cfg);
	bg_ctx_free(ctx);
	return 0;
}
