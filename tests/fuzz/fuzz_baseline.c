/*
 * fuzz_baseline.c -- baseline files (bg_baseline_parse), and what parses
 * imported into a fresh results database (bg_baseline_import).
 *
 * The promises: no crash, no hang, no leak; a refusal is BG_EINPUT naming
 * the file first; a file that parses names its machine in printable text,
 * and imports whole into an empty database, since "everything is checked
 * before anything can be stored" (benchguard.h).  The database is a new
 * file each time (the store wants WAL, which an in-memory one cannot do).
 */
#include <unistd.h>

#include "fuzz.h"
#include "internal.h"

static char fuzz_dir[] = "/tmp/bg-fuzz-XXXXXX";
static char db_path[64];
static pid_t fuzz_dir_owner; /* replay.c's children exit() too: only the maker removes it */

/* The database and its WAL files, gone. */
static void remove_db(void)
{
	static const char *const ext[] = { "", "-wal", "-shm", "-journal" };
	char path[96];
	size_t i;

	for (i = 0; i < BG_ARRAY_SIZE(ext); i++) {
		snprintf(path, sizeof(path), "%s%s", db_path, ext[i]);
		unlink(path);
	}
}

static void remove_dir(void)
{
	if (getpid() != fuzz_dir_owner)
		return;
	remove_db();
	rmdir(fuzz_dir);
}

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	(void)argc;
	(void)argv;
	if (!mkdtemp(fuzz_dir))
		abort();
	snprintf(db_path, sizeof(db_path), "%s/results.db", fuzz_dir);
	fuzz_dir_owner = getpid();
	atexit(remove_dir);
	return 0;
}

static void import(bg_ctx *ctx, const bg_baseline *b)
{
	bg_store *store = NULL;
	size_t imported = 0, present = 0;
	int rc;

	remove_db();
	if (bg_store_open(ctx, db_path, &store) < 0)
		fuzz_fail("a new database did not open: %s", bg_ctx_error(ctx));
	rc = bg_baseline_import(ctx, store, b, bg_baseline_machine(b), 0, &imported, &present);
	if (rc < 0)
		fuzz_fail("a baseline that parsed was not imported (%d): %s", rc,
		          bg_ctx_error(ctx));
	/* A file may hold one run twice (the same uid): the second is "present". */
	if (imported + present != bg_baseline_run_count(b))
		fuzz_fail("%zu runs parsed, but %zu imported and %zu present",
		          bg_baseline_run_count(b), imported, present);
	bg_store_free(store);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	bg_ctx *ctx = NULL;
	bg_baseline *b = NULL;
	int rc;

	if (bg_ctx_new(&ctx) < 0)
		abort();
	rc = bg_baseline_parse(ctx, "fuzz.json", (const char *)data, size, &b);
	if (rc == 0) {
		if (!bg_text__ok(bg_baseline_machine(b)))
			fuzz_fail("the machine is not printable text");
		import(ctx, b);
	} else {
		fuzz_check_refusal(ctx, rc, "fuzz.json");
	}
	bg_baseline_free(b);
	bg_ctx_free(ctx);
	return 0;
}
