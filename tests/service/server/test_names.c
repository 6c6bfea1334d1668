/* test_names.c - the account names in memory (service/server/names.h):
 * folded names found whatever their case, siblings merged and swapped,
 * and the bound: past DDZ_NAMES_MAX a name is refused, not added. */
#include <criterion/criterion.h>

#include <sodium.h>
#include <stdio.h>

#include "service/server/names.h"

static void init(void)
{
    cr_assert_geq(sodium_init(), 0);
}

TestSuite(names, .init = init);

static bool has_name(const ddz_names *n, const char *name)
{
    char key[DDZ_NAMES_KEY_MAX];
    cr_assert(ddz_names_key(name, key), "%s", name);
    return ddz_names_has(n, key);
}

static void add_name(ddz_names *n, const char *name)
{
    char key[DDZ_NAMES_KEY_MAX];
    cr_assert(ddz_names_key(name, key), "%s", name);
    cr_assert_eq(ddz_names_add(n, key), 0);
}

Test(names, a_name_in_any_case)
{
    ddz_names *n = ddz_names_create();
    cr_assert_not_null(n);
    add_name(n, "Éva Ünal");
    add_name(n, "Бора");
    add_name(n, "Бора"); /* twice is once */
    cr_expect_eq(ddz_names_count(n), 2);
    cr_expect(has_name(n, "éVA üNAL"));
    cr_expect(has_name(n, "БОРА"));
    cr_expect_not(has_name(n, "Eva Unal"), "a fold, not a likeness");
    cr_expect_not(has_name(n, "nobody"));
    char key[DDZ_NAMES_KEY_MAX];
    cr_expect_not(ddz_names_key("\xff", key), "not UTF-8");
    cr_expect_not(ddz_names_has(NULL, "x"));
    ddz_names_destroy(n);
}

Test(names, siblings_merge_and_swap)
{
    ddz_names *a = ddz_names_create(), *b = ddz_names_sibling(a);
    cr_assert(a && b);
    add_name(a, "Alice");
    add_name(b, "Bob");
    add_name(b, "Carol");
    cr_expect_eq(ddz_names_merge(a, b), 0);
    cr_expect(has_name(a, "ALICE") && has_name(a, "bob") && has_name(a, "carol"));
    cr_expect_eq(ddz_names_count(a), 3);
    ddz_names_swap(a, b);
    cr_expect_eq(ddz_names_count(a), 2);
    cr_expect_not(has_name(a, "alice"));
    cr_expect(has_name(b, "alice"));
    ddz_names_destroy(a);
    ddz_names_destroy(b);
}

/* Many names (the table grows), then the bound. */
Test(names, bounded)
{
    ddz_names *n = ddz_names_create();
    char key[32];
    for (unsigned i = 0; i < DDZ_NAMES_MAX; i++) {
        snprintf(key, sizeof key, "n%u", i);
        cr_assert_eq(ddz_names_add(n, key), 0, "%u", i);
    }
    cr_expect_eq(ddz_names_count(n), DDZ_NAMES_MAX);
    cr_expect_eq(ddz_names_add(n, "one more"), -1);
    cr_expect_not(ddz_names_has(n, "one more"));
    cr_expect_eq(ddz_names_add(n, "n17"), 0, "one there already is no new one");
    for (unsigned i = 0; i < DDZ_NAMES_MAX; i += 4099) {
        snprintf(key, sizeof key, "n%u", i);
        cr_expect(ddz_names_has(n, key), "%u", i);
    }
    ddz_names_destroy(n);
}
