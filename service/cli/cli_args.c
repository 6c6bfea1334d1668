/* cli_args.c - argument checks shared by the `ddz` commands. */
#include "service/cli/cli_args.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

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

int ddz_cli_u64(const char *v, uint64_t *out)
{
    char *end;
    errno = 0;
    unsigned long long n = strtoull(v, &end, 10);
    /* strtoull takes "-1" as 2^64-1; a seed is written without a sign */
    if (*v < '0' || *v > '9' || *end || errno == ERANGE)
        return -1;
    *out = (uint64_t)n;
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

int ddz_cli_complain(const char *cmd, const char *fmt, ...)
{
    char buf[512];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(buf, sizeof buf, fmt, ap);
    va_end(ap);
    for (char *p = buf; *p; p++)
        if ((unsigned char)*p < 0x20 || *p == 0x7f)
            *p = '?';
    fprintf(stderr, "ddz %s: %s\n", cmd, buf);
    return 1;
}

bool ddz_cli_blank(const char *s, size_t n)
{
    for (size_t i = 0; i < n; i++)
        if (s[i] != ' ' && s[i] != '\t' && s[i] != '\r' && s[i] != '\n')
            return false;
    return true;
}

int ddz_cli_each_line(const char *cmd, const char *path,
                      int (*line)(void *ctx, const char *text, size_t len, long lineno), void *ctx)
{
    FILE *f = strcmp(path, "-") == 0 ? stdin : fopen(path, "r");
    if (!f) {
        ddz_cli_complain(cmd, "%s: %s", path, strerror(errno));
        return 2;
    }
    char *text = NULL;
    size_t cap = 0;
    long lineno = 0;
    ssize_t n;
    int status = 0;
    errno = 0;
    while ((n = getline(&text, &cap, f)) >= 0) {
        lineno++;
        if (ddz_cli_blank(text, (size_t)n))
            continue;
        int rc = line(ctx, text, (size_t)n, lineno);
        if (rc)
            status = 1;
        if (rc < 0)
            break;
        fflush(stdout);
        errno = 0;
    }
    if (ferror(f))
        status = ddz_cli_complain(cmd, "%s: %s", path, errno ? strerror(errno) : "read error");
    free(text);
    if (f != stdin)
        fclose(f);
    return status;
}
