/* baseline.c -- placeholder while the command is being written (helper). */
#include "cli.h"

int cmd_baseline(cli_state *st, int argc, char **argv)
{
	(void)argc;
	(void)argv;
	return cli_usage_error(st, "baseline is not built yet");
}
