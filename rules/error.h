/* error.h - the one table of ddz error codes.
 *
 * Every fallible function in ddz returns 0 (or a count) on success and a
 * negative DDZ_E... code on failure. The X-macro below is the single source
 * for the enum, ddz_strerror() and ddz_errname() (the stable string code used
 * in JSON error messages). docs/errors.md lists every code with where it
 * arises and what a client should do: a code added here gets its row there.
 * Add new codes at the end of a group; never renumber, since numbers appear
 * in logs and records.
 */
#ifndef DDZ_ERROR_H
#define DDZ_ERROR_H

/* X(NAME, number, "human message") */
#define DDZ_ERRNO_MAP(X)                                                                           \
    /* rules: cards and combinations */                                                            \
    X(EINVAL, 1, "invalid argument")                                                               \
    X(ECARD, 2, "card code outside 0..53")                                                         \
    X(EDUP, 3, "card repeated")                                                                    \
    X(ESHAPE, 4, "cards do not form a legal combination")                                          \
    X(ENOTHELD, 5, "cards not in hand")                                                            \
    X(EWEAK, 6, "play does not beat the last play")                                                \
    X(ELEADPASS, 7, "the leader may not pass")                                                     \
    X(EBID, 8, "bid must be 0 or higher than every earlier bid, at most 3")                        \
    X(ETURN, 9, "not this seat's turn")                                                            \
    X(EPHASE, 10, "action not allowed in this phase of the game")                                  \
    X(ESEED, 11, "seed must be 64 hexadecimal characters")                                         \
    X(ENOSPC, 12, "output buffer too small")                                                       \
    X(ERULESET, 13, "unknown rule set")                                                            \
    X(ESTANDIN, 14, "the seat has faulted: the referee acts for it")                               \
    /* ai: search */                                                                               \
    X(EBUDGET, 30, "search stopped at its node budget")                                            \
    /* proto: parsing */                                                                           \
    X(ESYNTAX, 20, "malformed message")                                                            \
    X(ETOOLONG, 21, "message too long")                                                            \
    X(EUNKNOWN, 22, "unknown message type")                                                        \
    X(ESEAT, 23, "wrong seat letter")                                                              \
    X(EFIELD, 24, "missing or invalid field")                                                      \
    X(ESTALE, 25, "action answers an old state")                                                   \
    X(ENAME, 26, "name not allowed")                                                               \
    /* service: processes, I/O, storage, limits */                                                 \
    X(ENOMEM, 40, "out of memory")                                                                 \
    X(EIO, 41, "input/output error")                                                               \
    X(ETIMEOUT, 42, "time limit exceeded")                                                         \
    X(ECRASH, 43, "engine exited or crashed")                                                      \
    X(EFLOOD, 44, "too much output")                                                               \
    X(ESPAWN, 45, "could not start program")                                                       \
    X(ENOTFOUND, 46, "not found")                                                                  \
    X(EDB, 47, "database error")                                                                   \
    X(EFULL, 48, "no free seat")                                                                   \
    X(EAUTH, 49, "not authorised")                                                                 \
    X(ERATE, 50, "too many requests")                                                              \
    X(EVERIFY, 51, "record does not verify")                                                       \
    X(EUSAGE, 52, "bad command-line usage")                                                        \
    X(EBUSY, 53, "the server is at its limit")                                                     \
    X(EEXIST, 54, "already exists")                                                                \
    X(EPASSWORD, 55, "password not allowed")

enum ddz_error {
#define DDZ__ERR_ENUM(name, num, msg) DDZ_##name = -(num),
    DDZ_OK = 0,
    DDZ_ERRNO_MAP(DDZ__ERR_ENUM)
#undef DDZ__ERR_ENUM
};

/* Returns a static English message for code `err` (negative DDZ_E... or 0);
 * "unknown error" for anything not in the table. Never NULL. */
const char *ddz_strerror(int err);

/* Returns the stable symbolic name of `err` without the DDZ_ prefix, e.g.
 * "EWEAK", used as the `code` of JSON error messages; "EUNKNOWNERR" for codes
 * not in the table. Never NULL. */
const char *ddz_errname(int err);

#endif
