/*
 * fingerprint.c -- `benchguard fingerprint`: the machine's fingerprint and
 * every fact behind it, stable (hashed) and volatile (stored per run), and
 * which instruments this machine has (time, counters, simulate) or why not.
 */
#include <string.h>

#include <json-c/json.h>

#include "cli.h"
#include "internal.h"

enum { OPT_MACHINE = CLI_OPT_BASE };

static const struct option fp_options[] = {
	{ "machine", required_argument, NULL, OPT_MACHINE },
	{ 0, 0, 0, 0 },
};

int cmd_fingerprint(cli_state *st, int argc, char **argv)
{
	const cli_command *self = cli_find_command("fingerprint");
	const char *machine = NULL, *key, *value;
	cli_env env;
	bg_instrument_status inst[BG_INSTR_COUNT];
	size_t i;
	int opt, rc, vol;

	memset(&env, 0, sizeof(env));
	while ((opt = cli_getopt(st, argc, argv, "", fp_options, self)) != -1) {
		if (opt == 'h')
			return 0;
		if (opt == '?')
			return BG_EINPUT;
		if (opt == OPT_MACHINE)
			machine = optarg;
	}
	if (optind < argc)
		return cli_usage_error(st, "fingerprint takes no arguments");
	if ((rc = cli_detect_machine(st, &env, machine)) < 0)
		goto cleanup;
	if ((rc = bg_instruments_probe(st->ctx, NULL, 0, 0, inst)) < 0)
		goto cleanup;
	if (st->format == CLI_JSON) {
		json_object *top = json_object_new_object(), *stable = json_object_new_object(),
		            *volat = json_object_new_object();
		for (i = 0; i < bg_machine_fact_count(env.machine); i++) {
			if (bg_machine_fact(env.machine, i, &key, &value, &vol) < 0)
				continue;
			json_object_object_add(vol ? volat : stable, key,
			                       json_object_new_string(value));
		}
		json_object_object_add(top, "fingerprint",
		                       json_object_new_string(bg_machine_fingerprint(env.machine)));
		json_object_object_add(top, "facts", stable);
		json_object_object_add(top, "volatile", volat);
		{
			json_object *ins = json_object_new_object();

			for (i = 0; i < BG_INSTR_COUNT; i++) {
				json_object *o = json_object_new_object();

				json_object_object_add(o, "available",
				                       json_object_new_boolean(inst[i].available));
				json_object_object_add(o, inst[i].available ? "detail" : "why",
				                       json_object_new_string(inst[i].detail));
				json_object_object_add(ins, bg_instrument_name((bg_instrument)i),
				                       o);
			}
			json_object_object_add(top, "instruments", ins);
		}
		rc = cli_print_json(st, top);
	} else {
		static const char *const head[] = { "fact", "value", "kind" };
		bg_table *t = bg_table_new(3, head, "lll");
		if (!t) {
			rc = bg_error_oom(st->ctx);
			goto cleanup;
		}
		printf("%s%s\n\n", st->format == CLI_MARKDOWN ? "fingerprint: " : "",
		       bg_machine_fingerprint(env.machine));
		for (i = 0; i < bg_machine_fact_count(env.machine); i++) {
			const char *row[3];
			if (bg_machine_fact(env.machine, i, &key, &value, &vol) < 0)
				continue;
			row[0] = key;
			row[1] = value;
			row[2] = vol ? "volatile" : "hashed";
			bg_table_add(t, row);
		}
		cli_table_print(st, t, stdout);
		bg_table_free(t);
		printf("\n");
		{
			static const char *const ihead[] = { "instrument", "available", "detail" };
			bg_table *it = bg_table_new(3, ihead, "lll");

			if (!it) {
				rc = bg_error_oom(st->ctx);
				goto cleanup;
			}
			for (i = 0; i < BG_INSTR_COUNT; i++) {
				const char *row[3];

				row[0] = bg_instrument_name((bg_instrument)i);
				row[1] = inst[i].available ? "yes" : "no";
				row[2] = inst[i].detail;
				bg_table_add(it, row);
			}
			cli_table_print(st, it, stdout);
			bg_table_free(it);
		}
		rc = 0;
	}
cleanup:
	cli_env_clear(&env);
	return rc;
}
