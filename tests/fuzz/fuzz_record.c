/* fuzz_record.c - any bytes as one game record line (proto/record_json.h),
 * then through the verifier (rules/record.h).
 *
 * Checks: json_loadb + ddz_record_from_json never crash and explain every
 * refusal; a record they accept encodes (ddz_record_to_json), decodes to the
 * same record field by field, and encodes to the same text; and
 * ddz_record_verify runs on it to an answer (any answer) with a message on
 * failure. Lines are loaded as `ddz verify` loads them.
 */
#include <sodium.h>
#include <string.h>

#include "fuzz.h"
#include "proto/record_json.h"
#include "rules/error.h"

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
    (void)argc, (void)argv;
    FUZZ_CHECK(sodium_init() >= 0, "sodium_init");
    json_object_seed(1);
    return 0;
}

static void same_record(const ddz_record *a, const ddz_record *b)
{
    FUZZ_CHECK(strcmp(a->rules, b->rules) == 0, "rules");
    FUZZ_CHECK(a->game == b->game, "game");
    FUZZ_CHECK(memcmp(a->seed, b->seed, DDZ_SEED_BYTES) == 0, "seed");
    FUZZ_CHECK(memcmp(a->commit, b->commit, DDZ_SEED_BYTES) == 0, "commit");
    for (int s = 0; s < 3; s++)
        FUZZ_CHECK(a->deal.hand[s] == b->deal.hand[s], "hands[%d]", s);
    FUZZ_CHECK(a->deal.leftover == b->deal.leftover, "leftover");
    FUZZ_CHECK(a->early_penalty == b->early_penalty, "early_penalty");
    FUZZ_CHECK(a->nbids == b->nbids, "nbids %d vs %d", a->nbids, b->nbids);
    for (int i = 0; i < a->nbids; i++)
        FUZZ_CHECK(a->bids[i] == b->bids[i], "bids[%d]", i);
    FUZZ_CHECK(a->landlord == b->landlord, "landlord");
    FUZZ_CHECK(a->nplays == b->nplays, "nplays %d vs %d", a->nplays, b->nplays);
    for (int i = 0; i < a->nplays; i++) {
        FUZZ_CHECK(a->plays[i].seat == b->plays[i].seat, "plays[%d].seat", i);
        FUZZ_CHECK(a->plays[i].cards == b->plays[i].cards, "plays[%d].cards", i);
        FUZZ_CHECK(a->plays[i].autopass == b->plays[i].autopass, "plays[%d].auto", i);
    }
    FUZZ_CHECK(a->winner == b->winner, "winner");
    FUZZ_CHECK(a->fault_seat == b->fault_seat, "fault seat");
    FUZZ_CHECK(a->fault_kind == b->fault_kind, "fault kind");
    FUZZ_CHECK(a->nfaults == b->nfaults, "nfaults %d vs %d", a->nfaults, b->nfaults);
    for (int i = 0; i < a->nfaults; i++)
        FUZZ_CHECK(a->faults[i].seat == b->faults[i].seat &&
                       a->faults[i].kind == b->faults[i].kind &&
                       a->faults[i].at == b->faults[i].at && a->faults[i].bids == b->faults[i].bids,
                   "faults[%d]", i);
    FUZZ_CHECK(a->bombs == b->bombs, "bombs");
    FUZZ_CHECK(a->rocket == b->rocket, "rocket");
    FUZZ_CHECK(a->spring == b->spring, "spring");
    FUZZ_CHECK(a->anti_spring == b->anti_spring, "anti_spring");
    FUZZ_CHECK(a->multiplier == b->multiplier, "multiplier");
    for (int s = 0; s < 3; s++) {
        FUZZ_CHECK(a->scores[s] == b->scores[s], "scores[%d]", s);
        FUZZ_CHECK(strcmp(a->names[s], b->names[s]) == 0, "names[%d]", s);
    }
}

/* The compact text of r's encoding; aborts if r does not encode. */
static char *encode(const ddz_record *r)
{
    json_t *j = ddz_record_to_json(r);
    FUZZ_CHECK(j, "a decoded record does not encode");
    char *s = json_dumps(j, DDZ_RECORD_JSON_FLAGS);
    FUZZ_CHECK(s, "json_dumps");
    json_decref(j);
    return s;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static ddz_record r, back;
    char err[256] = "";
    json_error_t jerr;
    json_t *j = json_loadb((const char *)data, size, JSON_REJECT_DUPLICATES, &jerr);
    if (!j)
        return 0;
    int rc = ddz_record_from_json(j, &r, err, sizeof err);
    json_decref(j);
    if (rc < 0) {
        FUZZ_CHECK(rc == DDZ_ESYNTAX || rc == DDZ_EFIELD, "undocumented error %d (%s)", rc,
                   ddz_errname(rc));
        FUZZ_CHECK(err[0] != '\0', "error %d without a message", rc);
        return 0;
    }
    FUZZ_CHECK(rc == 0, "from_json returned %d", rc);

    char *text = encode(&r);
    j = json_loads(text, JSON_REJECT_DUPLICATES, &jerr);
    FUZZ_CHECK(j, "the encoding is not JSON: %s", jerr.text);
    rc = ddz_record_from_json(j, &back, err, sizeof err);
    json_decref(j);
    FUZZ_CHECK(rc == 0, "the encoding does not decode: %s\n%s", err, text);
    same_record(&r, &back);
    char *again = encode(&back);
    FUZZ_CHECK(strcmp(text, again) == 0, "encodings differ:\n%s\n%s", text, again);
    free(text);
    free(again);

    const ddz_rules *rs = ddz_rules_find(r.rules);
    err[0] = '\0';
    rc = ddz_record_verify(&r, rs ? rs : &ddz_rules_caai, err, sizeof err);
    FUZZ_CHECK(rc == 0 || (rc == DDZ_EVERIFY && err[0]), "verify returned %d (%s)", rc, err);
    return 0;
}
