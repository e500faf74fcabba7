/*
 * init.c -- `benchguard init`: write a commented starter benchguard.json at
 * the repository root and create the results database, so the next command
 * a new user types is `benchguard run`.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cli.h"
#include "internal.h"

enum { OPT_FORCE = CLI_OPT_BASE };

static const struct option init_options[] = {
	{ "force", no_argument, NULL, OPT_FORCE },
	{ 0, 0, 0, 0 },
};

/*
 * The starter with its baseline branch: the first of main, master and
 * trunk there is (here or at origin), else the branch checked out, born or
 * not (`git init -b trunk`, then `benchguard init`).  A
 * repository on trunk or master got "main", and its first check failed.
 * A branch name that would need escaping in JSON keeps "main"; *out is
 * malloc'd.
 */
static int starter_for(cli_state *st, cli_env *env, char **out)
{
	static const char key[] = "\"branch\": \"main\"";
	static const char *const usual[] = { "main", "master", "trunk" };
	const char *text = bg_config_starter(), *at = strstr(text, key), *name = NULL, *b;
	bg_saved_error saved;
	char tip[41], *current = NULL;
	size_t i;
	int ok = 1;

	*out = NULL;
	bg_ctx__save_error(st->ctx, &saved);
	for (i = 0; at && i < BG_ARRAY_SIZE(usual) && !name; i++)
		if (bg_repo_branch_tip(st->ctx, env->repo, usual[i], tip) == 0)
			name = usual[i];
	if (at && !name && bg_repo_head_branch(st->ctx, env->repo, &current) == 0)
		name = current;
	for (b = name; b && *b && ok; b++)
		ok = (*b >= 'a' && *b <= 'z') || (*b >= 'A' && *b <= 'Z') ||
		     (*b >= '0' && *b <= '9') || strchr("._/-", *b);
	if (name && *name && ok && strcmp(name, "main"))
		*out = bg_printf("%.*s\"branch\": \"%s\"%s", (int)(at - text), text, name,
		                 at + strlen(key));
	bg_ctx__restore_error(st->ctx, &saved);
	free(current);
	if (!*out)
		*out = bg_strdup(text);
	return *out ? 0 : bg_error_oom(st->ctx);
}

int cmd_init(cli_state *st, int argc, char **argv)
{
	const cli_command *self = cli_find_command("init");
	char *text = NULL, *path = NULL, *path_shown = NULL, *db_shown = NULL;
	struct stat sb;
	cli_env env;
	int force = 0, opt, rc = 0, fd;
	size_t len;

	memset(&env, 0, sizeof(env));
	while ((opt = cli_getopt(st, argc, argv, "", init_options, self)) != -1) {
		if (opt == 'h')
			return 0;
		if (opt == '?')
			return BG_EINPUT;
		if (opt == OPT_FORCE)
			force = 1;
	}
	if (optind < argc)
		return cli_usage_error(st, "init takes no arguments");
	if ((rc = cli_open_repo(st, &env)) < 0 || (rc = starter_for(st, &env, &text)) < 0)
		goto cleanup;
	len = strlen(text);
	if (!(path = cli_config_path(st, &env))) {
		rc = bg_error_oom(st->ctx);
		goto cleanup;
	}
	if (stat(path, &sb) == 0 && S_ISDIR(sb.st_mode)) {
		rc = cli_usage_error(st,
		                     "%s is a directory: the configuration is a file (name one "
		                     "with --config FILE)",
		                     path);
		goto cleanup;
	}
	/* Its folders are made as `report -o` makes its own (cli_write_file
	 * does for --force): a new --config path names where the file goes. */
	if ((rc = cli_make_parents(st, path)) < 0)
		goto cleanup;
	/* --force replaces the file whole (a new file renamed over it), so a
	 * write that fails part way keeps the suite there was.  Without it,
	 * O_EXCL: never clobber a suite someone wrote. */
	if (force) {
		if ((rc = cli_write_file(st, path, text, len)) < 0)
			goto cleanup;
	} else if ((fd = open(path, O_WRONLY | O_CREAT | O_EXCL, 0644)) < 0) {
		if (errno == EEXIST)
			rc = bg_error_set(st->ctx, BG_EINPUT,
			                  "%s already exists (use --force to "
			                  "overwrite it)",
			                  path);
		else
			rc = bg_error_errno(st->ctx, BG_EIO, "%s", path);
		goto cleanup;
	} else {
		int bad = write(fd, text, len) != (ssize_t)len, e = errno;

		if (close(fd) != 0 || bad) {
			if (bad)
				errno = e ? e : ENOSPC; /* a short write sets none */
			rc = bg_error_errno(st->ctx, BG_EIO, "%s", path);
			/* Ours, half written: not left for the next `init` to refuse. */
			unlink(path);
			goto cleanup;
		}
	}
	if ((rc = cli_open_store(st, &env)) < 0 || (rc = bg_store_writable(st->ctx, env.store)) < 0)
		goto cleanup;
	/* --force replaces the suite, never the results: say so of a database
	 * that held them (a file, a fleet's PostgreSQL database), rather than
	 * "created" over its runs.  Both paths shown, never interpreted by
	 * the terminal. */
	path_shown = bg_text__escaped(BG_ESC_TERM, path);
	db_shown = bg_text__escaped(BG_ESC_TERM, bg_store_name(env.store));
	printf("wrote %s\n%s %s\nnext: edit the benchmarks, then `benchguard run`\n",
	       path_shown ? path_shown : "?",
	       bg_store_created(env.store) ? "created" : "kept the results in",
	       db_shown ? db_shown : "?");
cleanup:
	free(path_shown);
	free(db_shown);
	free(path);
	free(text);
	cli_env_clear(&env);
	return rc;
}
