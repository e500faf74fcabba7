/*
 * help.c -- `benchguard help [COMMAND]`: the overview, or one command's
 * options (the same text as `benchguard COMMAND --help`).
 */
#include "cli.h"

int cmd_help(cli_state *st, int argc, char **argv)
{
	const cli_command *c;

	if (argc < 2) {
		cli_print_usage(stdout);
		return 0;
	}
	c = cli_find_command(argv[1]);
	if (!c)
		return cli_usage_error(st, "no such command \"%s\" (see benchguard help)", argv[1]);
	fputs(c->usage, stdout);
	return 0;
}
