/*
 * host.c -- bg_machine_detect: the machine benchguard runs on, its system's
 * facts (lib/fingerprint.c) and, on the host itself, its GPUs' (lib/gpu.c).
 * Here rather than in either, so that the two only share the fact list
 * (lib/machine.c) and neither calls the other.
 */
#include <string.h>

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
	/* No CPU to be read (/proc and sysfs not mounted: a bare chroot, a
	 * sandbox): the fingerprint is left with the architecture, which
	 * every such machine shares, and their runs one baseline. */
	if (!bg_machine_get(m, "cpu_model") && !bg_machine_get(m, "cpu_threads"))
		bg_log(ctx, BG_LOG_WARN,
		       "this machine's CPU cannot be read (no %s/proc/cpuinfo, no "
		       "%s/sys/devices/system/cpu): its fingerprint tells it from no other machine "
		       "that lacks them too; name it with --machine NAME",
		       strcmp(root, "/") ? root : "", strcmp(root, "/") ? root : "");
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
