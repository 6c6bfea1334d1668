/* cli_args.c - argument checks shared by the `ddz` commands. */
#include "cli_args.h"

#include <stdio.h>
#include <stdlib.h>

int ddz_cli_usage(const char *cmd, const char *what)
{
    fprintf(stderr, "ddz %s: %s (try 'ddz %s --help')\n", cmd, what, cmd);
    return 2;
}

int ddz_cli_int(const char *v, int lo, int hi, int *out)
{
    char *end;
    long n = strtol(v, &end, 10);
    if (!*v || *end || n < lo || n > hi)
        return -1;
    *out = (int)n;
    return 0;
}

int ddz_cli_double(const char *v, double lo, double hi, double *out)
{
    char *end;
    double d = strtod(v, &end);
    if (!*v || *end || !(d >= lo && d <= hi))
        return -1;
    *out = d;
    return 0;
}
