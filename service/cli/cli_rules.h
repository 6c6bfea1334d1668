/* cli_rules.h - `ddz rules ...`: the rules library's command-line face
 * (spec §10). */
#ifndef DDZ_CLI_RULES_H
#define DDZ_CLI_RULES_H

/* Runs `ddz rules` with argv[0] == "rules". Prints JSON on stdout. Returns
 * the process exit status: 0 on success, 1 on bad input (one line on stderr
 * naming the problem), 2 on bad usage. */
int ddz_cli_rules(int argc, char **argv);

#endif
