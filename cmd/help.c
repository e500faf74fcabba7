/*
 * help.c -- `benchguard help [COMMAND]`: the overview, or one command's
 * options (the same text as `benchguard COMMAND --help`).
 */
#include "cli.h"

int cmd_help(cli_state *st, int argc, char **argv)
{
	static const struct option none[] = { { 0, 0, 0, 0 } };
	const cli_command *self = cli_find_command("help"), *c;
	int opt;

	/* The global options (--version, --help) here as after any command. */
	while ((opt = cli_getopt(st, argc, argv, "", none, self)) != -1) {
		if (opt == 'h')
			return 0;
		if (opt == '?')
			return BG_EINPUT;
	}
	if (optind >= argc) {
		cli_print_usage(stdout);
		return 0;
	}
	c = cli_find_command(argv[optind]);
	if (!c)
		return cli_usage_error(st, "no such command \"%s\" (see benchguard help)",
		                       argv[optind]);
	fputs(c->usage, stdout);
	return 0;
}
