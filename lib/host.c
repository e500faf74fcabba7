/*
 * host.c -- bg_machine_detect: the machine benchguard runs on, its system's
 * facts (lib/fingerprint.c) and, on the host itself, its GPUs' (lib/gpu.c).
 * Here rather than in either, so that the two only share the fact list
 * (lib/machine.c) and neither calls the other.
 */
#include "machine.h"

int bg_machine_detect(bg_ctx *ctx, const char *root, bg_machine **out)
{
	bg_machine *m = NULL;
	int err, is_host;

	BG_NEED(ctx, root);
	BG_NEED(ctx, out);

	*out = NULL;
	if (bg_machine_new(&m) < 0)
		return bg_error_oom(ctx);
	if ((err = bg_fingerprint__system(ctx, m, root, &is_host)) < 0)
		goto cleanup;
	/* GPUs belong to the host only: a fixture tree describes no GPU. */
	if (is_host && (err = bg_gpu_detect(ctx, m)) < 0) {
		err = err == BG_ENOMEM
		              ? bg_error_oom(ctx)
		              : bg_error_set(ctx, err, "cannot record the machine's facts");
		goto cleanup;
	}
	/* Hashed now, where a failure can be said: later, an empty name
	 * would stand for this machine in the store. */
	if (!*bg_machine_fingerprint(m)) {
		err = bg_error_oom(ctx);
		goto cleanup;
	}
	*out = m;
	return 0;
cleanup:
	bg_machine_free(m);
	return err;
}
