/*
 * dl.c -- loading a library that only some runs need when it is first
 * needed: libpq when a PostgreSQL store is opened (store_pg.c), libcurl when
 * an alert is queued or sent (alert.c).  Linked, they and the dozens of
 * libraries they bring (Kerberos, LDAP, GnuTLS, nghttp2...) were mapped and
 * relocated by every run, `benchguard --version` included, and that was
 * most of its start-up time.
 *
 * The module that uses a library keeps the handle and its table of
 * function pointers in the object that needs them, and closes the handle
 * when that object is freed: the loader counts references, so opening a
 * library that is loaded already costs a lookup, and nothing here is
 * process-wide.  Once loaded, a library stays mapped (RTLD_NODELETE).
 */
#include <dlfcn.h>
#include <string.h>

#include "internal.h"

int bg_dl__load(bg_ctx *ctx, const char *soname, const char *what, const char *const *names,
                void *const *slots, size_t n, void **handle)
{
	void *lib, *fn;
	size_t i;

	*handle = NULL;
	/* RTLD_NOW: a library whose own dependencies are missing fails here,
	 * with the loader's words, not at its first call.  RTLD_NODELETE: the
	 * last dlclose leaves it mapped.  Unloading gains nothing (the next
	 * open would map it again) and is fragile: what libpq and libcurl
	 * bring (GnuTLS, Kerberos, LDAP...) keeps thread-local storage, and
	 * LeakSanitizer's scan at exit crashed on the unloaded ones' blocks. */
	if (!(lib = dlopen(soname, RTLD_NOW | RTLD_LOCAL | RTLD_NODELETE))) {
		const char *why = dlerror();

		return bg_error_set(ctx, BG_ERROR, "cannot load %s (%s): %s", soname, what,
		                    why ? why : "unknown error");
	}
	for (i = 0; i < n; i++) {
		dlerror();
		if (!(fn = dlsym(lib, names[i]))) {
			const char *why = dlerror();

			bg_error_set(ctx, BG_ERROR, "cannot use %s (%s): %s", soname, what,
			             why ? why : names[i]);
			dlclose(lib);
			return BG_ERROR;
		}
		/* POSIX makes object and function pointers the same size (dlsym
		 * depends on it); memcpy, because ISO C has no cast between them. */
		memcpy(slots[i], &fn, sizeof(fn));
	}
	*handle = lib;
	return 0;
}

void bg_dl__close(void *handle)
{
	if (handle)
		dlclose(handle);
}
