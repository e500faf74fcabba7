/*
 * replay.c -- a harness's stored inputs as an ordinary test.
 *
 * Linked with one tests/fuzz/fuzz_<name>.c (FUZZ_NAME names it) and the
 * library of the build under test, by `make unit`: it feeds every file of
 * tests/fuzz/corpus/<name>/ and tests/fuzz/crashes/<name>/ to the harness,
 * each in a child process of its own, so a crash, a hang (30 s), a
 * sanitizer's report or a leak fails that input and the others still run.
 * It prints TAP: one line for the corpus, one per crash reproducer (a
 * reproducer passes once its bug is fixed, and stays to keep it fixed).
 *
 * With FILE arguments it runs those in this process instead, which is what
 * a debugger wants: build/sanitize/tests/test_fuzz_config crash-x.
 */
#include <dirent.h>
#include <signal.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "fuzz.h"

#ifndef FUZZ_NAME
#error "FUZZ_NAME names the harness"
#endif

#define FUZZ_TIMEOUT 30 /* seconds an input may take, sanitizers included */

/* The file's bytes in a buffer of exactly their size, so that a read past
 * the end is a sanitizer's error as it is under libFuzzer. */
static uint8_t *slurp(const char *path, size_t *size)
{
	FILE *f = fopen(path, "rb");
	uint8_t *data = NULL;
	long n;

	if (!f)
		return NULL;
	if (fseek(f, 0, SEEK_END) == 0 && (n = ftell(f)) >= 0 && fseek(f, 0, SEEK_SET) == 0 &&
	    (data = malloc(n ? (size_t)n : 1)) && fread(data, 1, (size_t)n, f) == (size_t)n) {
		*size = (size_t)n;
	} else {
		free(data);
		data = NULL;
	}
	fclose(f);
	return data;
}

/* Runs one input in a child; NULL if it passed, else why not. */
static const char *run_child(const char *path, char *why, size_t whysize)
{
	pid_t pid;
	int status;

	fflush(NULL);
	if ((pid = fork()) < 0)
		return "fork failed";
	if (pid == 0) {
		size_t size = 0;
		uint8_t *data = slurp(path, &size);

		if (!data)
			_exit(120);
		alarm(FUZZ_TIMEOUT);
		LLVMFuzzerTestOneInput(data, size);
		free(data);
		exit(0); /* through exit(), so that LeakSanitizer looks */
	}
	while (waitpid(pid, &status, 0) < 0)
		;
	if (WIFEXITED(status) && WEXITSTATUS(status) == 0)
		return NULL;
	if (WIFEXITED(status) && WEXITSTATUS(status) == 120)
		snprintf(why, whysize, "cannot be read");
	else if (WIFEXITED(status))
		snprintf(why, whysize, "exit %d (a sanitizer's report?)", WEXITSTATUS(status));
	else if (WTERMSIG(status) == SIGALRM)
		snprintf(why, whysize, "still running after %d s", FUZZ_TIMEOUT);
	else
		snprintf(why, whysize, "killed by signal %d (%s)", WTERMSIG(status),
		         strsignal(WTERMSIG(status)));
	return why;
}

static int visible(const struct dirent *e)
{
	return e->d_name[0] != '.' && strcmp(e->d_name, "README.md") != 0;
}

/* The files of a folder, sorted; -1 when it does not exist. */
static int list(const char *dir, struct dirent ***names)
{
	return scandir(dir, names, visible, alphasort);
}

int main(int argc, char **argv)
{
	const char *root = getenv("BG_ROOT") ? getenv("BG_ROOT") : ".";
	char dir[4096], path[4096 + 256], why[128];
	struct dirent **names = NULL;
	int i, n, failed = 0, t = 0, bad = 0;

	LLVMFuzzerInitialize(&argc, &argv);
	if (argc > 1) {
		for (i = 1; i < argc; i++) {
			size_t size = 0;
			uint8_t *data = slurp(argv[i], &size);

			if (!data) {
				fprintf(stderr, "%s: cannot be read\n", argv[i]);
				return 2;
			}
			fprintf(stderr, "%s: %zu bytes\n", argv[i], size);
			LLVMFuzzerTestOneInput(data, size);
			free(data);
		}
		return 0;
	}

	snprintf(dir, sizeof(dir), "%s/tests/fuzz/corpus/%s", root, FUZZ_NAME);
	if ((n = list(dir, &names)) <= 0) {
		printf("not ok %d - %s: no corpus in %s\n", ++t, FUZZ_NAME, dir);
		failed++;
	} else {
		for (i = 0; i < n; i++) {
			snprintf(path, sizeof(path), "%s/%s", dir, names[i]->d_name);
			if (run_child(path, why, sizeof(why))) {
				printf("# %s: %s\n", path, why);
				bad++;
			}
			free(names[i]);
		}
		free(names);
		if (bad)
			failed++;
		printf("%s %d - %s: %d inputs%s\n", bad ? "not ok" : "ok", ++t, FUZZ_NAME, n,
		       bad ? ", some failed (above)" : "");
	}

	snprintf(dir, sizeof(dir), "%s/tests/fuzz/crashes/%s", root, FUZZ_NAME);
	names = NULL;
	n = list(dir, &names);
	for (i = 0; i < n; i++) {
		snprintf(path, sizeof(path), "%s/%s", dir, names[i]->d_name);
		if (run_child(path, why, sizeof(why))) {
			printf("not ok %d - %s: %s: %s\n", ++t, FUZZ_NAME, names[i]->d_name, why);
			failed++;
		} else {
			printf("ok %d - %s: %s no longer fails\n", ++t, FUZZ_NAME,
			       names[i]->d_name);
		}
		free(names[i]);
	}
	free(names);
	printf("1..%d\n", t);
	return failed ? 1 : 0;
}
