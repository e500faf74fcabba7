/* calibrate.c -- placeholder while the command is being written (helper). */
#include "cli.h"

int cmd_calibrate(cli_state *st, int argc, char **argv)
{
	(void)argc;
	(void)argv;
	return cli_usage_error(st, "calibrate is not built yet");
}
