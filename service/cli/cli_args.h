/* cli_args.h - what every `ddz` command does with its arguments: one-line
 * usage errors, and numbers checked whole and in range. */
#ifndef DDZ_CLI_ARGS_H
#define DDZ_CLI_ARGS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* Prints "ddz CMD: WHAT (try 'ddz CMD --help')" as one line on stderr.
 * Returns 2, the exit status of bad usage, so a command can `return` it. */
int ddz_cli_usage(const char *cmd, const char *what);

/* Parses all of `v` as a whole decimal number in lo..hi into *out.
 * Returns 0, or -1 (leaving *out alone) if `v` is empty, has anything after
 * the number, or is out of range. */
int ddz_cli_int(const char *v, int lo, int hi, int *out);

/* As ddz_cli_int, for any whole decimal number 0..2^64-1 (a seed). */
int ddz_cli_u64(const char *v, uint64_t *out);

/* As ddz_cli_int, for a decimal number (strtod syntax) in lo..hi; NaN is
 * out of every range. */
int ddz_cli_double(const char *v, double lo, double hi, double *out);

/* Prints "ddz CMD: MESSAGE" as one line on stderr, control characters
 * (which a record's strings or a JSON error may carry) replaced by '?' so
 * that it stays one line; MESSAGE is cut at some 500 bytes. Returns 1, a
 * failed command's exit status, so that `return ddz_cli_complain(...)`
 * ends one. */
int ddz_cli_complain(const char *cmd, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* Returns whether s[0..n) is white space only (a blank line of a JSONL
 * file, which the commands reading records skip). */
bool ddz_cli_blank(const char *s, size_t n);

/* Reads the JSONL file `path` ("-": standard input) a line at a time for
 * command `cmd`, skipping blank lines, and calls line(ctx, text, len,
 * lineno) for each other (lineno from 1), flushing stdout after each so
 * that its output shows as it comes. `line` returns 0 to go on, 1 for a
 * bad line (the command fails, reading goes on) or -1 to stop (it fails).
 * A file that cannot be opened or read is said on stderr. Returns 0 when
 * every line went well, 2 when the file could not be opened (no line
 * read: the command has nothing to sum up), 1 otherwise. */
int ddz_cli_each_line(const char *cmd, const char *path,
                      int (*line)(void *ctx, const char *text, size_t len, long lineno), void *ctx);

#endif
