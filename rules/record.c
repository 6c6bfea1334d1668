/* record.c - filling a record from a game, and replaying it. */
#include "record.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "error.h"
#include "movegen.h"

void ddz_record_finish(ddz_record *r, const ddz_game *g)
{
    r->landlord = g->landlord;
    r->winner = g->winner;
    r->fault_seat = g->fault_seat;
    r->fault_kind = g->fault_kind;
    r->nfaults = g->nfaults;
    for (int i = 0; i < DDZ_FAULTS_MAX; i++)
        r->faults[i] = i < g->nfaults ? g->faults[i] : (ddz_fault_entry){0};
    r->bombs = g->bombs;
    r->rocket = g->rocket;
    r->spring = g->spring;
    r->anti_spring = g->anti_spring;
    r->multiplier = g->multiplier;
    for (int s = 0; s < 3; s++)
        r->scores[s] = g->score[s];
}

static int fail(char *err, size_t errlen, const char *fmt, ...)
{
    if (err && errlen) {
        va_list ap;
        va_start(ap, fmt);
        vsnprintf(err, errlen, fmt, ap);
        va_end(ap);
    }
    return DDZ_EVERIFY;
}

static int check_deal(const ddz_record *r, char *err, size_t errlen)
{
    uint8_t commit[DDZ_SEED_BYTES];
    ddz_deal_commit(r->seed, commit);
    ddz_deal d;
    int dealt = ddz_deal_from_seed(r->seed, &d) == 0;
    if (memcmp(commit, r->commit, sizeof commit) != 0) {
        /* Blame the seed when it explains neither the commit nor the hands;
         * if it deals the recorded hands, the commit is the odd one out. */
        int same = dealt && d.leftover == r->deal.leftover;
        for (int s = 0; s < 3; s++)
            same = same && d.hand[s] == r->deal.hand[s];
        return same ? fail(err, errlen, "commit: does not match BLAKE2b-256(seed)")
                    : fail(err, errlen, "seed: matches neither the commit nor the hands");
    }
    if (!dealt)
        return fail(err, errlen, "seed: no deal");
    for (int s = 0; s < 3; s++)
        if (d.hand[s] != r->deal.hand[s])
            return fail(err, errlen, "hands[%d]: not the hand the seed deals", s);
    if (d.leftover != r->deal.leftover)
        return fail(err, errlen, "leftover: not the cards the seed leaves");
    return 0;
}

static int check_result(const ddz_record *r, const ddz_game *g, char *err, size_t errlen)
{
    if (r->landlord != g->landlord)
        return fail(err, errlen, "landlord: %d, the bids make it %d", r->landlord, g->landlord);
    if (r->winner != g->winner)
        return fail(err, errlen, "winner: %d, the plays make it %d", r->winner, g->winner);
    if (r->bombs != g->bombs)
        return fail(err, errlen, "bombs: %d, the plays hold %d", r->bombs, g->bombs);
    if (r->rocket != g->rocket)
        return fail(err, errlen, "rocket: %d, the plays say %d", r->rocket, g->rocket);
    if (r->spring != g->spring)
        return fail(err, errlen, "spring: %d, should be %d", r->spring, g->spring);
    if (r->anti_spring != g->anti_spring)
        return fail(err, errlen, "anti_spring: %d, should be %d", r->anti_spring, g->anti_spring);
    if (r->multiplier != g->multiplier)
        return fail(err, errlen, "multiplier: %d, should be %d", r->multiplier, g->multiplier);
    for (int s = 0; s < 3; s++)
        if (r->scores[s] != g->score[s])
            return fail(err, errlen, "scores[%d]: %.15g, should be %.15g", s, r->scores[s],
                        g->score[s]);
    return 0;
}

/* The first fault is `fault`, the list is `faults`: both as the replay
 * charged them. */
static int check_faults(const ddz_record *r, const ddz_game *g, char *err, size_t errlen)
{
    if (r->fault_seat != g->fault_seat || (g->fault_seat >= 0 && r->fault_kind != g->fault_kind))
        return fail(err, errlen, "fault: not the first of the faults charged");
    for (int i = 0; i < r->nfaults; i++) {
        const ddz_fault_entry *f = &r->faults[i], *h = &g->faults[i];
        if (f->at != h->at)
            return fail(err, errlen, "faults[%d].at: %d, but it was charged at %d", i, f->at,
                        h->at);
        if (f->at < 0 && f->bids != h->bids)
            return fail(err, errlen, "faults[%d].bids: %d, but it was charged after %d", i, f->bids,
                        h->bids);
    }
    return 0;
}

/* Charges every fault of `r` due before bid `bids` (while bidding, at ==
 * -1) or before play `at`, from *next on. */
static int charge(const ddz_record *r, ddz_game *g, int *next, int at, int bids, char *err,
                  size_t errlen)
{
    while (*next < r->nfaults) {
        const ddz_fault_entry *f = &r->faults[*next];
        if (f->at != at || (at < 0 && f->bids != bids))
            return 0;
        if (g->phase == DDZ_PHASE_OVER)
            return fail(err, errlen, "faults[%d]: the game was already over", *next);
        int rc = ddz_game_fault(g, f->seat, f->kind);
        if (rc < 0)
            return fail(err, errlen, "faults[%d]: %s", *next,
                        rc == DDZ_EPHASE ? "the seat has already faulted" : ddz_strerror(rc));
        ++*next;
    }
    return 0;
}

int ddz_record_replay(const ddz_record *r, const ddz_rules *rs, ddz_game *g, char *err,
                      size_t errlen)
{
    int rc;
    ddz_game_start(g, rs, &r->deal, r->early_penalty);
    if (r->nbids < 0 || r->nbids > 3)
        return fail(err, errlen, "bids: %d bids", r->nbids);
    if (r->nplays < 0 || r->nplays > DDZ_RECORD_MAX_PLAYS)
        return fail(err, errlen, "plays: %d plays", r->nplays);
    if (r->early_penalty < 0)
        return fail(err, errlen, "early_penalty: negative");
    if (r->nfaults < 0 || r->nfaults > DDZ_FAULTS_MAX)
        return fail(err, errlen, "faults: %d faults", r->nfaults);
    for (int i = 0; i < r->nfaults; i++)
        if (r->faults[i].at < -1 || r->faults[i].at > r->nplays || r->faults[i].bids > r->nbids)
            return fail(err, errlen, "faults[%d]: not between the recorded actions", i);

    int next = 0; /* the next fault to charge */
    for (int i = 0; i <= r->nbids; i++) {
        if ((rc = charge(r, g, &next, -1, i, err, errlen)) < 0)
            return rc;
        if (i == r->nbids)
            break;
        rc = ddz_game_bid(g, i, r->bids[i]);
        if (rc < 0)
            return fail(err, errlen, "bids[%d]: %s", i, ddz_strerror(rc));
    }
    for (int i = 0; i <= r->nplays; i++) {
        if ((rc = charge(r, g, &next, i, 0, err, errlen)) < 0)
            return rc;
        if (i == r->nplays)
            break;
        const ddz_record_play *p = &r->plays[i];
        if (g->phase != DDZ_PHASE_PLAY)
            return fail(err, errlen, "plays[%d]: no play is possible now", i);
        if (p->seat != g->turn)
            return fail(err, errlen, "plays[%d]: seat %d played, it was seat %d's turn", i, p->seat,
                        g->turn);
        bool standin = ddz_game_standin_due(g);
        if (standin && !p->autopass)
            return fail(err, errlen, "plays[%d]: the seat has faulted: the referee plays for it",
                        i);
        if (p->autopass && !standin && (p->cards || !ddz_game_must_pass(g)))
            return fail(err, errlen, "plays[%d]: auto-pass, but the seat could beat the last play",
                        i);
        rc = ddz_game_play(g, p->seat, p->cards);
        if (rc < 0)
            return fail(err, errlen, "plays[%d]: %s", i, ddz_strerror(rc));
    }
    if (next < r->nfaults)
        return fail(err, errlen, "faults[%d]: not between the recorded actions", next);
    if (g->phase != DDZ_PHASE_OVER)
        return fail(err, errlen, "plays: the game is not over and no fault ended it");
    return 0;
}

int ddz_record_explain(const ddz_record *r, const ddz_game *g, ddz_term out[DDZ_TERMS_MAX])
{
    if (g->phase != DDZ_PHASE_OVER)
        return 0;
    int nplays = r->nplays < 0                      ? 0
                 : r->nplays > DDZ_RECORD_MAX_PLAYS ? DDZ_RECORD_MAX_PLAYS
                                                    : r->nplays;
    return g->rules->explain(g, r->plays, nplays, out);
}

int ddz_record_verify(const ddz_record *r, const ddz_rules *rs, char *err, size_t errlen)
{
    int rc = check_deal(r, err, errlen);
    if (rc < 0)
        return rc;
    ddz_game g;
    if ((rc = ddz_record_replay(r, rs, &g, err, errlen)) < 0)
        return rc;
    if ((rc = check_faults(r, &g, err, errlen)) < 0)
        return rc;
    return check_result(r, &g, err, errlen);
}
