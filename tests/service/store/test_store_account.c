/* test_store_account.c - people's accounts and sessions in the store
 * (SPEC §15, store.h "Accounts and sessions"): a name is one account
 * ignoring case, a deleted account's name is held, sessions are stored as
 * hashes and end with a password change or the account, and the reader
 * thread's account kinds answer as the synchronous functions do.
 *
 * The same bodies run against both backends: here with a SQLite file, and
 * compiled again by test_store_account_pg.c (STORE_PG 1) against a fresh
 * PostgreSQL database of the test server. */
#ifndef STORE_PG
#define STORE_PG 0
#endif
#include <criterion/criterion.h>

#include <pthread.h>
#include <sodium.h>
#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "rules/error.h"
#include "service/store/store.h"
#include "tests/service/store/store_db.h"
#include "test_clock.h"

static void setup(void)
{
    store_db_setup("/tmp/ddz-acct-");
}

TestSuite(account, .init = setup, .fini = store_db_teardown);

#define HASH1 "$argon2id$v=19$m=65536,t=2,p=1$c29tZXNhbHQ$aGFzaDE"
#define HASH2 "$argon2id$v=19$m=65536,t=2,p=1$c29tZXNhbHQ$aGFzaDI"

Test(account, a_name_is_one_account_ignoring_case)
{
    ddz_store *s = open_ok();
    int64_t id = 0, id2 = 0;
    cr_assert_eq(ddz_store_account_add(s, "Éva Ünal", HASH1, &id), 0);
    cr_expect_gt(id, 0);
    cr_expect_eq(ddz_store_account_add(s, "éVA üNAL", HASH2, &id2), DDZ_EEXIST);
    cr_expect_eq(ddz_store_account_add(s, "Éva Ünal", HASH2, NULL), DDZ_EEXIST);
    cr_expect_eq(ddz_store_account_add(s, "Бора", HASH2, &id2), 0);
    cr_expect_eq(ddz_store_account_add(s, "бОРА", HASH2, NULL), DDZ_EEXIST);
    cr_expect_neq(id2, id);

    ddz_store_account a;
    cr_assert_eq(ddz_store_account_get(s, "ÉVA ÜNAL", &a), 0);
    cr_expect_eq(a.id, id);
    cr_expect_str_eq(a.name, "Éva Ünal", "the name as it was made");
    cr_expect_str_eq(a.hash, HASH1);
    cr_expect_eq(ddz_store_account_get(s, "nobody", &a), DDZ_ENOTFOUND);
    cr_expect_eq(a.id, 0);

    /* the protocol's name rules, and a hash to store */
    cr_expect_eq(ddz_store_account_add(s, "ai:strong", HASH1, NULL), DDZ_ENAME);
    cr_expect_eq(ddz_store_account_add(s, "", HASH1, NULL), DDZ_EFIELD);
    cr_expect_eq(ddz_store_account_add(s,
                                       "a\xe2\x80\xae"
                                       "b",
                                       HASH1, NULL),
                 DDZ_ENAME);
    cr_expect_eq(ddz_store_account_add(s, "fine", "", NULL), DDZ_EINVAL);
    ddz_store_close(s);
}

Test(account, sessions_are_stored_as_hashes_and_end)
{
    ddz_store *s = open_ok();
    int64_t id = 0;
    cr_assert_eq(ddz_store_account_add(s, "Mei", HASH1, &id), 0);
    char s1[DDZ_SESSION_HEX + 1], s2[DDZ_SESSION_HEX + 1], s3[DDZ_SESSION_HEX + 1];
    cr_assert_eq(ddz_store_session_new(s, id, s1), 0);
    cr_assert_eq(ddz_store_session_new(s, id, s2), 0);
    cr_expect_eq(strlen(s1), DDZ_SESSION_HEX);
    cr_expect_str_neq(s1, s2);
    cr_expect_eq(ddz_store_session_new(s, id + 100, s3), DDZ_ENOTFOUND, "no such account");
    cr_expect_str_eq(s3, "");
    cr_assert_eq(ddz_store_session_new(s, id, s3), 0);
    cr_expect_eq(db_num("SELECT count(*) FROM sessions"), 3, "s3 replaced; none for a refusal");

    /* the token is nowhere in the database: only its hash */
    char sql[200];
#if STORE_PG
    snprintf(sql, sizeof sql, "SELECT count(*) FROM sessions WHERE encode(hash, 'hex') = '%s'", s1);
#else
    snprintf(sql, sizeof sql, "SELECT count(*) FROM sessions WHERE hex(hash) = upper('%s')", s1);
#endif
    cr_expect_eq(db_num(sql), 0);

    ddz_store_account a;
    cr_assert_eq(ddz_store_session_check(s, s1, &a), 0);
    cr_expect_eq(a.id, id);
    cr_expect_str_eq(a.name, "Mei");
    cr_expect_str_eq(a.hash, "", "a session check reads no hash");
    char upper[DDZ_SESSION_HEX + 1];
    for (int i = 0; i <= DDZ_SESSION_HEX; i++)
        upper[i] = (char)(s1[i] >= 'a' && s1[i] <= 'f' ? s1[i] - 32 : s1[i]);
    cr_expect_eq(ddz_store_session_check(s, upper, &a), 0, "either case");
    cr_expect_eq(ddz_store_session_check(s, "abc", &a), DDZ_EAUTH);
    char wrong[DDZ_SESSION_HEX + 1];
    memcpy(wrong, s1, sizeof wrong);
    wrong[0] = wrong[0] == '0' ? '1' : '0';
    cr_expect_eq(ddz_store_session_check(s, wrong, &a), DDZ_EAUTH);

    /* sign-out ends that one */
    int64_t whose = 0;
    cr_expect_eq(ddz_store_session_end(s, s1, &whose), 0);
    cr_expect_eq(whose, id);
    cr_expect_eq(ddz_store_session_check(s, s1, &a), DDZ_EAUTH);
    cr_expect_eq(ddz_store_session_end(s, s1, NULL), DDZ_EAUTH);
    cr_expect_eq(ddz_store_session_check(s, s2, &a), 0);

    /* a password change ends every other */
    cr_expect_eq(ddz_store_account_set_hash(s, id, HASH2, s2), 0);
    cr_expect_eq(ddz_store_session_check(s, s2, &a), 0);
    cr_expect_eq(ddz_store_session_check(s, s3, &a), DDZ_EAUTH);
    cr_assert_eq(ddz_store_account_get(s, "mei", &a), 0);
    cr_expect_str_eq(a.hash, HASH2);
    cr_expect_eq(ddz_store_account_set_hash(s, id, HASH1, NULL), 0);
    cr_expect_eq(ddz_store_session_check(s, s2, &a), DDZ_EAUTH, "NULL: every session ends");
    cr_expect_eq(ddz_store_account_set_hash(s, id + 100, HASH1, NULL), DDZ_ENOTFOUND);
    ddz_store_close(s);
}

Test(account, a_deleted_name_is_held_then_free)
{
    ddz_store *s = open_ok();
    int64_t id = 0;
    cr_assert_eq(ddz_store_account_add(s, "Lin", HASH1, &id), 0);
    char s1[DDZ_SESSION_HEX + 1];
    cr_assert_eq(ddz_store_session_new(s, id, s1), 0);
    cr_assert_eq(ddz_store_account_delete(s, id), 0);
    cr_expect_eq(ddz_store_account_delete(s, id), DDZ_ENOTFOUND);

    ddz_store_account a;
    cr_expect_eq(ddz_store_session_check(s, s1, &a), DDZ_EAUTH, "its sessions end");
    cr_expect_eq(ddz_store_account_get(s, "Lin", &a), DDZ_ENOTFOUND);
    cr_expect_eq(ddz_store_session_new(s, id, s1), DDZ_ENOTFOUND);
    cr_expect_eq(db_num("SELECT count(*) FROM accounts WHERE hash <> ''"), 0,
                 "no password hash of a deleted account stays");
    cr_expect_eq(ddz_store_account_add(s, "LIN", HASH2, NULL), DDZ_EEXIST,
                 "the name is held after deletion");

    /* 31 days later (the deletion moved back), the name is free again */
    db_exec("UPDATE accounts SET deleted_at = deleted_at - 2678400000");
    int64_t id2 = 0;
    cr_expect_eq(ddz_store_account_add(s, "LIN", HASH2, &id2), 0);
    cr_assert_eq(ddz_store_account_get(s, "lin", &a), 0);
    cr_expect_eq(a.id, id2);
    cr_expect_neq(id2, id,
                  "a new account never takes an old one's id (its ratings are keyed by it)");
    cr_expect_str_eq(a.name, "LIN");
    ddz_store_close(s);
}

typedef struct racer {
    ddz_store *s;
    pthread_barrier_t *go;
    int rc;
} racer;

static void *make_rose(void *arg)
{
    racer *r = arg;
    pthread_barrier_wait(r->go);
    r->rc = ddz_store_account_add(r->s, "Rose", HASH1, NULL);
    return NULL;
}

/* Two stores (two nodes) making one name at once: one account. */
Test(account, concurrent_makers_of_a_name_get_one_account)
{
    ddz_store *a = open_ok(), *b = open_ok();
    for (int round = 0; round < 5; round++) {
        pthread_barrier_t go;
        pthread_barrier_init(&go, NULL, 2);
        racer r[2] = {{a, &go, 1}, {b, &go, 1}};
        pthread_t t[2];
        for (int i = 0; i < 2; i++)
            cr_assert_eq(pthread_create(&t[i], NULL, make_rose, &r[i]), 0);
        for (int i = 0; i < 2; i++)
            pthread_join(t[i], NULL);
        pthread_barrier_destroy(&go);
        int made = (r[0].rc == 0) + (r[1].rc == 0);
        cr_expect_eq(made, round == 0 ? 1 : 0, "round %d: %d %d", round, r[0].rc, r[1].rc);
        for (int i = 0; i < 2; i++)
            cr_expect(r[i].rc == 0 || r[i].rc == DDZ_EEXIST, "%d", r[i].rc);
    }
    cr_expect_eq(db_num("SELECT count(*) FROM accounts"), 1);
    ddz_store_close(a);
    ddz_store_close(b);
}

/* ---- through the reader thread ---- */

static void collect_key(void *ctx, const char *key)
{
    char *all = ctx;
    strcat(all, key);
    strcat(all, "|");
}

/* The names nobody else may use: live and held accounts' folded names,
 * not those whose hold ran out; a bot token's name is no account's, and
 * an account's (live or held) is no bot's (SPEC §15). */
Test(account, names_held_and_bots)
{
    ddz_store *s = open_ok();
    int64_t id = 0, gone = 0;
    cr_assert_eq(ddz_store_account_add(s, "Éva", HASH1, &id), 0);
    cr_assert_eq(ddz_store_account_add(s, "Gone", HASH1, &gone), 0);
    cr_assert_eq(ddz_store_account_add(s, "Old", HASH1, NULL), 0);
    cr_assert_eq(ddz_store_account_delete(s, gone), 0);
    db_exec("UPDATE accounts SET deleted_at = 1000, created_at = 500 WHERE key = 'old'");

    char all[256] = "";
    cr_expect_eq(ddz_store_account_keys(s, 0, collect_key, all), 2, "%s", all);
    cr_expect(strstr(all, "éva|") && strstr(all, "gone|"), "%s", all);
    cr_expect_null(strstr(all, "old|"), "held 30 days, then free: %s", all);
    all[0] = '\0';
    db_exec("UPDATE accounts SET created_at = 2000 WHERE key = 'gone'");
    cr_expect_eq(ddz_store_account_keys(s, 3000, collect_key, all), 1, "since: %s", all);
    cr_expect_str_eq(all, "éva|");

    cr_expect_eq(ddz_store_account_name_taken(s, "ÉVA"), 1);
    cr_expect_eq(ddz_store_account_name_taken(s, "gONE"), 1, "held");
    cr_expect_eq(ddz_store_account_name_taken(s, "old"), 0);
    cr_expect_eq(ddz_store_account_name_taken(s, "nobody"), 0);

    char token[DDZ_TOKEN_HEX + 1];
    cr_expect_eq(ddz_store_token_add(s, "éVA", token), DDZ_EEXIST);
    cr_expect_str_eq(token, "");
    cr_expect_eq(ddz_store_token_add(s, "GONE", token), DDZ_EEXIST, "a held name too");
    cr_expect_eq(ddz_store_token_add(s, "Old", token), 0, "its hold ran out");
    cr_expect_eq(ddz_store_token_add(s, "Robo", token), 0);
    cr_expect_eq(ddz_store_account_add(s, "ROBO", HASH1, NULL), DDZ_EEXIST, "a bot's name");
    cr_expect_eq(ddz_store_token_revoke(s, "Robo"), 0);
    cr_expect_eq(ddz_store_account_add(s, "ROBO", HASH1, NULL), 0, "a revoked bot's name is free");
    ddz_store_close(s);
}

/* A guest's games claimed: the rows of its owner hash copied to the
 * account's (both kept), each with its seat; the owner is the account's,
 * never a browser key's. */
Test(account, a_guest_history_is_claimed)
{
    ddz_store *s = open_ok();
    uint8_t guest[DDZ_STORE_ME_BYTES], owner[DDZ_STORE_ME_BYTES], other[DDZ_STORE_ME_BYTES];
    memset(guest, 7, sizeof guest);
    int64_t id = 0;
    cr_assert_eq(ddz_store_account_add(s, "Kai", HASH1, &id), 0);
    cr_assert_eq(ddz_store_add_mine(s, 11, 2, guest), 0);
    cr_assert_eq(ddz_store_add_mine(s, 12, 0, guest), 0);
    cr_assert_eq(ddz_store_flush(s), 0);
    ddz_store_account_owner(id, owner);
    ddz_store_account_owner(id + 1, other);
    cr_expect_neq(memcmp(owner, other, sizeof owner), 0);
    cr_expect_eq(ddz_store_account_claim(s, id, guest), 2);
    cr_expect_eq(ddz_store_account_claim(s, id, guest), 0, "claimed once");
    cr_expect_eq(db_num("SELECT count(*) FROM mine"), 4);
    cr_expect_eq(db_num("SELECT count(DISTINCT owner) FROM mine"), 2);
    cr_expect_eq(db_num("SELECT count(*) FROM mine WHERE game = 11 AND seat = 2"), 2);
    cr_expect_eq(db_num("SELECT count(*) FROM mine WHERE game = 12 AND seat = 0"), 2);
    ddz_store_close(s);
}

Test(account, the_reader_thread_runs_the_account_kinds)
{
    ddz_store *s = open_ok();
    cr_assert_eq(ddz_store_reader_start(s, store_db_wake, NULL), 0);
    ddz_store_read r = {.kind = DDZ_STORE_READ_ACCOUNT_ADD};
    snprintf(r.account.name, sizeof r.account.name, "Kai");
    snprintf(r.account.hash, sizeof r.account.hash, HASH1);
    store_db_run(s, &r);
    cr_assert_eq(r.rc, 0);
    cr_expect_gt(r.account.id, 0);
    cr_expect_eq(strlen(r.session), DDZ_SESSION_HEX, "made with a session");
    int64_t id = r.account.id;
    char session[DDZ_SESSION_HEX + 1];
    memcpy(session, r.session, sizeof session);

    store_db_run(s, &r); /* the same again */
    cr_expect_eq(r.rc, DDZ_EEXIST);

    r = (ddz_store_read){.kind = DDZ_STORE_READ_ACCOUNT_GET};
    snprintf(r.account.name, sizeof r.account.name, "KAI");
    store_db_run(s, &r);
    cr_expect_eq(r.rc, 0);
    cr_expect_eq(r.account.id, id);
    cr_expect_str_eq(r.account.hash, HASH1);

    r = (ddz_store_read){.kind = DDZ_STORE_READ_SESSION_CHECK};
    memcpy(r.session, session, sizeof session);
    store_db_run(s, &r);
    cr_expect_eq(r.rc, 0);
    cr_expect_eq(r.account.id, id);
    cr_expect_str_eq(r.account.name, "Kai");
    cr_expect_str_eq(r.session, "", "the session is wiped once checked");

    r = (ddz_store_read){.kind = DDZ_STORE_READ_SESSION_NEW, .account.id = id};
    store_db_run(s, &r);
    cr_expect_eq(r.rc, 0);
    char other[DDZ_SESSION_HEX + 1];
    memcpy(other, r.session, sizeof other);

    r = (ddz_store_read){.kind = DDZ_STORE_READ_ACCOUNT_HASH, .account.id = id};
    snprintf(r.account.hash, sizeof r.account.hash, HASH2);
    memcpy(r.session, session, sizeof session);
    store_db_run(s, &r);
    cr_expect_eq(r.rc, 0);
    ddz_store_account a;
    cr_expect_eq(ddz_store_session_check(s, other, &a), DDZ_EAUTH);
    cr_expect_eq(ddz_store_session_check(s, session, &a), 0);

    r = (ddz_store_read){.kind = DDZ_STORE_READ_SESSION_END};
    memcpy(r.session, session, sizeof session);
    store_db_run(s, &r);
    cr_expect_eq(r.rc, 0);
    cr_expect_eq(r.account.id, id);
    cr_expect_eq(ddz_store_session_check(s, session, &a), DDZ_EAUTH);

    /* my games by session: none yet; a new account claims a guest's */
    r = (ddz_store_read){.kind = DDZ_STORE_READ_SESSION_NEW, .account.id = id};
    store_db_run(s, &r);
    cr_assert_eq(r.rc, 0);
    char fresh[DDZ_SESSION_HEX + 1];
    memcpy(fresh, r.session, sizeof fresh);
    r = (ddz_store_read){.kind = DDZ_STORE_READ_MINE_SESSION};
    memcpy(r.session, fresh, sizeof fresh);
    store_db_run(s, &r);
    cr_expect_eq(r.rc, 0);
    cr_expect_str_eq(r.json, "[]");
    free(r.json);
    cr_expect_str_eq(r.session, "", "the session is wiped once checked");
    r = (ddz_store_read){.kind = DDZ_STORE_READ_MINE_SESSION};
    memcpy(r.session, session, sizeof session); /* ended above */
    store_db_run(s, &r);
    cr_expect_eq(r.rc, DDZ_EAUTH);
    cr_expect_null(r.json);
    r = (ddz_store_read){.kind = DDZ_STORE_READ_ACCOUNT_ADD};
    snprintf(r.account.name, sizeof r.account.name, "Mo");
    snprintf(r.account.hash, sizeof r.account.hash, HASH1);
    memset(r.me, 9, sizeof r.me);
    cr_assert_eq(ddz_store_add_mine(s, 5, 1, r.me), 0);
    cr_assert_eq(ddz_store_flush(s), 0);
    store_db_run(s, &r);
    cr_expect_eq(r.rc, 0);
    cr_expect_eq(db_num("SELECT count(*) FROM mine WHERE game = 5"), 2, "claimed");

    char keys[256] = "";
    r = (ddz_store_read){
        .kind = DDZ_STORE_READ_ACCOUNT_KEYS, .key_row = collect_key, .key_ctx = keys};
    store_db_run(s, &r);
    cr_expect_eq(r.rc, 2);
    cr_expect(strstr(keys, "kai|") && strstr(keys, "mo|"), "%s", keys);

    r = (ddz_store_read){.kind = DDZ_STORE_READ_ACCOUNT_DELETE, .account.id = id};
    store_db_run(s, &r);
    cr_expect_eq(r.rc, 0);
    cr_expect_eq(ddz_store_account_get(s, "kai", &a), DDZ_ENOTFOUND);
    ddz_store_reader_stop(s);
    ddz_store_close(s);
}
