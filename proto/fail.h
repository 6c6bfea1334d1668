/* fail.h - how a proto/ parser fails: it returns a negative DDZ_E... code
 * (rules/error.h) and writes a one-line message naming the problem into
 * the caller's buffer (redis anet's `char *err`), which may be absent.
 */
#ifndef DDZ_FAIL_H
#define DDZ_FAIL_H

#include <stdarg.h>
#include <stddef.h>

/* Writes the printf-style message into err (errlen bytes, truncated to
 * fit, always terminated) unless err is NULL or errlen 0. Returns `code`,
 * so that a parser says `return ddz_fail(DDZ_EFIELD, err, errlen, ...)`. */
int ddz_fail(int code, char *err, size_t errlen, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));

/* ddz_fail() with the arguments as a va_list. Returns `code`. */
int ddz_failv(int code, char *err, size_t errlen, const char *fmt, va_list ap)
    __attribute__((format(printf, 4, 0)));

#endif
