/* record_log.h - reading back a `ddz match --log` file in the service
 * tests: every line must be JSON, a record, and verify under `rules`. */
#ifndef DDZ_TEST_RECORD_LOG_H
#define DDZ_TEST_RECORD_LOG_H

#include <criterion/criterion.h>
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>

#include "proto/record_json.h"
#include "rules/record.h"

/* Reads the records of `path` into recs[0..max), asserting each parses and
 * verifies. Returns how many there were. */
static inline int read_verified_log(const char *path, const ddz_rules *rules, ddz_record *recs,
                                    int max)
{
    FILE *f = fopen(path, "r");
    cr_assert_not_null(f, "cannot open %s", path);
    char *line = NULL, err[300];
    size_t cap = 0;
    int n = 0;
    while (getline(&line, &cap, f) > 0) {
        json_error_t je;
        json_t *j = json_loads(line, 0, &je);
        cr_assert_not_null(j, "log line %d is not JSON: %s", n + 1, je.text);
        cr_assert_lt(n, max);
        cr_assert_eq(ddz_record_from_json(j, &recs[n], err, sizeof err), 0, "%s", err);
        json_decref(j);
        cr_assert_str_eq(recs[n].rules, rules->name);
        cr_assert_eq(ddz_record_verify(&recs[n], rules, err, sizeof err), 0,
                     "record %d does not verify: %s", n, err);
        n++;
    }
    free(line);
    fclose(f);
    return n;
}

#endif
