/*
 * spawnloop.c -- the bare loop `make bench` holds benchguard's runner
 * against: N times posix_spawnp of a command and wait4 for it, and nothing
 * more (no pipes, no process group, no timing), so the difference to
 * `benchguard run` is what benchguard adds per execution.
 *
 * Usage: spawnloop N cmd [args...].  Silent on success; a spawn that fails
 * or a command that does not exit 0 stops the loop with a message and
 * status 1.
 */
#include <errno.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

int main(int argc, char **argv)
{
	struct rusage ru;
	char *end;
	long n, i;

	if (argc < 3) {
		fprintf(stderr, "usage: spawnloop N cmd [args...]\n");
		return 2;
	}
	errno = 0;
	n = strtol(argv[1], &end, 10);
	if (errno || end == argv[1] || *end || n < 0) {
		fprintf(stderr, "spawnloop: N must be a count, not \"%s\"\n", argv[1]);
		return 2;
	}
	for (i = 0; i < n; i++) {
		int status, rc;
		pid_t pid;

		rc = posix_spawnp(&pid, argv[2], NULL, NULL, argv + 2, environ);
		if (rc) {
			fprintf(stderr, "spawnloop: %s: %s\n", argv[2], strerror(rc));
			return 1;
		}
		/* wait4, not waitpid: benchguard reads the rusage too. */
		while (wait4(pid, &status, 0, &ru) < 0) {
			if (errno != EINTR) {
				perror("spawnloop: wait4");
				return 1;
			}
		}
		if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) {
			fprintf(stderr, "spawnloop: %s: %s %d\n", argv[2],
			        WIFEXITED(status) ? "exit status" : "killed by signal",
			        WIFEXITED(status) ? WEXITSTATUS(status) : WTERMSIG(status));
			return 1;
		}
	}
	return 0;
}
