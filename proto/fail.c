/* fail.c - a parser's error message (fail.h). */
#include "proto/fail.h"

#include <stdio.h>

int ddz_failv(int code, char *err, size_t errlen, const char *fmt, va_list ap)
{
    if (err && errlen)
        vsnprintf(err, errlen, fmt, ap);
    return code;
}

int ddz_fail(int code, char *err, size_t errlen, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    ddz_failv(code, err, errlen, fmt, ap);
    va_end(ap);
    return code;
}
