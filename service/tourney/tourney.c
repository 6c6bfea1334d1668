/* tourney.c - Swiss preliminaries and duplicate finals as a value. */
#include "service/tourney/tourney.h"

#include <string.h>

#include "rules/error.h"
#include "rules/ruleset.h"

void ddz_tourney_defaults(ddz_tourney_opts *o, int nplayers)
{
    memset(o, 0, sizeof *o);
    o->nplayers = nplayers;
    o->format = DDZ_TOURNEY_CAAI;
    o->swiss_turns = 4;
    o->games = 6;
    o->cap = 350.0 * 6;
    o->cut[1] = 18;
    o->cut[2] = 12;
    o->cut[3] = 9;
    o->dq_faults = 3;
    for (int i = 0; i < nplayers && i < DDZ_TOURNEY_MAX_PLAYERS; i++)
        o->lot[i] = (uint64_t)i;
}

void ddz_tourney_scale_cuts(ddz_tourney_opts *o)
{
    static const int num[3] = {2, 4, 1}, den[3] = {3, 9, 3};
    for (int k = 0; k < 3; k++) {
        int keep = o->nplayers * num[k] / den[k];
        o->cut[k + 1] = keep < DDZ_TOURNEY_FINALISTS ? DDZ_TOURNEY_FINALISTS : keep;
    }
}

const char *ddz_tourney_status_name(int status)
{
    switch (status) {
    case DDZ_PLAYER_ELIMINATED:
        return "eliminated";
    case DDZ_PLAYER_DISQUALIFIED:
        return "disqualified";
    case DDZ_PLAYER_FINALIST:
        return "finalist";
    default:
        return "active";
    }
}

const char *ddz_tourney_stage_name(int stage)
{
    return stage == DDZ_STAGE_FINALS ? "finals" : "swiss";
}

/* ---- ranking ---- */

/* Returns < 0 when player a ranks above player b. Swiss: players still in
 * the competition later first (an eliminated or disqualified player keeps
 * the standing it had), then points, recorded small, the lot. Finals:
 * finalists first by points then Swiss rank, the others by Swiss rank. */
static int rank_cmp(const ddz_tourney *t, int a, int b)
{
    const ddz_tourney_player *pa = &t->p[a], *pb = &t->p[b];
    if (t->stage == DDZ_STAGE_FINALS) {
        if (pa->finalist != pb->finalist)
            return pa->finalist ? -1 : 1;
        if (pa->finalist && pa->points != pb->points)
            return pa->points > pb->points ? -1 : 1;
        return pa->swiss_rank - pb->swiss_rank;
    }
    if (pa->last_turn != pb->last_turn)
        return pa->last_turn > pb->last_turn ? -1 : 1;
    if (pa->points != pb->points)
        return pa->points > pb->points ? -1 : 1;
    if (pa->small != pb->small)
        return pa->small > pb->small ? -1 : 1;
    return t->o.lot[a] < t->o.lot[b] ? -1 : t->o.lot[a] > t->o.lot[b];
}

static void rank(ddz_tourney *t)
{
    int n = t->o.nplayers;
    for (int i = 0; i < n; i++) { /* insertion sort: n is small, the order stable */
        int16_t x = (int16_t)i;
        int j = i;
        for (; j > 0 && rank_cmp(t, x, t->order[j - 1]) < 0; j--)
            t->order[j] = t->order[j - 1];
        t->order[j] = x;
    }
}

int ddz_tourney_rank_of(const ddz_tourney *t, int i)
{
    for (int r = 0; r < t->o.nplayers; r++)
        if (t->order[r] == i)
            return r + 1;
    return 0;
}

/* ---- seating ---- */

static const int8_t perms[6][3] = {{0, 1, 2}, {0, 2, 1}, {1, 0, 2},
                                   {1, 2, 0}, {2, 0, 1}, {2, 1, 0}};

/* Seats three players (in rank order) at table `k`, each in the direction
 * it has sat least: the permutation with the fewest earlier turns in the
 * directions it gives, the first in a fixed order on ties. */
static void seat_table(ddz_tourney *t, int k, const int who[3])
{
    int best = 0, best_cost = 1 << 30;
    for (int q = 0; q < 6; q++) {
        int cost = 0;
        for (int i = 0; i < 3; i++) {
            int c = t->p[who[i]].dirs[perms[q][i]];
            cost += c * c;
        }
        if (cost < best_cost)
            best = q, best_cost = cost;
    }
    ddz_tourney_table *tb = &t->table[k];
    memset(tb, 0, sizeof *tb);
    for (int i = 0; i < 3; i++)
        tb->player[perms[best][i]] = (int16_t)who[i];
}

static int met3(const ddz_tourney *t, int a, int b, int c)
{
    return t->met[a][b] + t->met[a][c] + t->met[b][c];
}

/* Returns true if players a, b, c can each sit in a direction they have
 * sat least often. */
static bool dirs_fit(const ddz_tourney *t, int a, int b, int c)
{
    const int who[3] = {a, b, c};
    for (int q = 0; q < 6; q++) {
        bool ok = true;
        for (int i = 0; i < 3 && ok; i++) {
            const int *d = t->p[who[i]].dirs;
            int least = d[0] < d[1] ? (d[0] < d[2] ? d[0] : d[2]) : (d[1] < d[2] ? d[1] : d[2]);
            ok = d[perms[q][i]] == least;
        }
        if (ok)
            return true;
    }
    return false;
}

/* Groups list[0..n) (in rank order, n a multiple of 3) into triples of
 * players who have not met (and, with `strict`, who can each take a
 * direction they have sat least), each triple as high as it can be: the
 * first unseated player with the nearest-ranked pair that fits,
 * backtracking when the rest cannot be seated. Returns 1 when found
 * within the budget of search nodes. */
static int pair_search(const ddz_tourney *t, const int *list, int n, bool *used, int *out,
                       int depth, long *budget, bool strict)
{
    int i = 0;
    while (i < n && used[i])
        i++;
    if (i == n)
        return 1;
    used[i] = true;
    for (int j = i + 1; j < n; j++) {
        if (used[j] || t->met[list[i]][list[j]])
            continue;
        used[j] = true;
        for (int l = j + 1; l < n; l++) {
            if (used[l] || met3(t, list[i], list[j], list[l]) ||
                (strict && !dirs_fit(t, list[i], list[j], list[l])))
                continue;
            if (--*budget < 0)
                break;
            used[l] = true;
            out[3 * depth] = list[i], out[3 * depth + 1] = list[j], out[3 * depth + 2] = list[l];
            if (pair_search(t, list, n, used, out, depth + 1, budget, strict))
                return 1;
            used[l] = false;
        }
        used[j] = false;
        if (*budget < 0)
            break;
    }
    used[i] = false;
    return 0;
}

/* The fallback when every grouping repeats a meeting: greedily, the first
 * unseated player with the pair that repeats fewest meetings. */
static void pair_greedy(const ddz_tourney *t, const int *list, int n, int *out)
{
    bool used[DDZ_TOURNEY_MAX_PLAYERS] = {0};
    for (int d = 0; d < n / 3; d++) {
        int i = 0;
        while (used[i])
            i++;
        int bj = -1, bl = -1, bc = 1 << 30;
        for (int j = i + 1; j < n; j++)
            for (int l = j + 1; l < n && !used[j]; l++)
                if (!used[l] && met3(t, list[i], list[j], list[l]) < bc)
                    bj = j, bl = l, bc = met3(t, list[i], list[j], list[l]);
        used[i] = used[bj] = used[bl] = true;
        out[3 * d] = list[i], out[3 * d + 1] = list[bj], out[3 * d + 2] = list[bl];
    }
}

/* Seats a Swiss turn: players in `list` (rank order, or lot order in turn
 * 1); byes to the lowest-placed who have had none. */
static void seat_swiss(ddz_tourney *t, int *list, int n)
{
    int r = n % 3;
    t->nbyes = 0;
    for (int pass = 0; pass < 2 && t->nbyes < r; pass++) /* pass 1: a second bye */
        for (int i = n - 1; i >= 0 && t->nbyes < r; i--)
            if (list[i] >= 0 && (pass == 1 || t->p[list[i]].byes == 0)) {
                t->bye[t->nbyes++] = (int16_t)list[i];
                list[i] = -1;
            }
    int m = 0;
    for (int i = 0; i < n; i++)
        if (list[i] >= 0)
            list[m++] = list[i];
    int out[DDZ_TOURNEY_MAX_PLAYERS];
    bool used[DDZ_TOURNEY_MAX_PLAYERS] = {0};
    long budget = 100000, budget2 = 100000;
    if (!pair_search(t, list, m, used, out, 0, &budget, true) &&
        !pair_search(t, list, m, used, out, 0, &budget2, false))
        pair_greedy(t, list, m, out);
    t->ntables = m / 3;
    for (int k = 0; k < t->ntables; k++)
        seat_table(t, k, out + 3 * k);
}

void ddz_tourney_finals_class(int k, int line[3][3])
{
    for (int c = 0; c < 3; c++)
        for (int a = 0; a < 3; a++) {
            int x, y, dir;
            switch (k) {
            case 0: /* rows: y = c, direction x */
                x = a, y = c, dir = x;
                break;
            case 1: /* columns: x = c, direction y */
                x = c, y = a, dir = y;
                break;
            case 2: /* y - x = c, direction y + 1 */
                y = a, x = ((y - c) % 3 + 3) % 3, dir = (y + 1) % 3;
                break;
            default: /* y - 2x = c, direction y + 2 */
                y = a, x = (((y - c) * 2) % 3 + 3) % 3, dir = (y + 2) % 3;
                break;
            }
            line[c][dir] = 3 * y + x;
        }
}

/* Seats finals turn t->turn: the lines of its parallel class; a line with
 * a missing or disqualified finalist gives its players a bye. */
static void seat_finals(ddz_tourney *t)
{
    int slot[DDZ_TOURNEY_FINALISTS];
    for (int s = 0; s < DDZ_TOURNEY_FINALISTS; s++)
        slot[s] = -1;
    for (int i = 0; i < t->o.nplayers; i++)
        if (t->p[i].finalist && t->p[i].status == DDZ_PLAYER_FINALIST && t->p[i].swiss_rank >= 1 &&
            t->p[i].swiss_rank <= DDZ_TOURNEY_FINALISTS)
            slot[t->p[i].swiss_rank - 1] = i;
    int line[3][3];
    ddz_tourney_finals_class(t->turn - 1, line);
    t->ntables = t->nbyes = 0;
    for (int c = 0; c < 3; c++) {
        int who[3], present = 0;
        for (int s = 0; s < 3; s++)
            present += (who[s] = slot[line[c][s]]) >= 0;
        if (present == 3) {
            ddz_tourney_table *tb = &t->table[t->ntables++];
            memset(tb, 0, sizeof *tb);
            for (int s = 0; s < 3; s++)
                tb->player[s] = (int16_t)who[s];
        } else {
            for (int s = 0; s < 3; s++)
                if (who[s] >= 0)
                    t->bye[t->nbyes++] = (int16_t)who[s];
        }
    }
}

/* Seats the current turn from the standings. */
static void seat_turn(ddz_tourney *t)
{
    if (t->stage == DDZ_STAGE_FINALS) {
        seat_finals(t);
        return;
    }
    int list[DDZ_TOURNEY_MAX_PLAYERS], n = 0;
    for (int r = 0; r < t->o.nplayers; r++)
        if (t->p[t->order[r]].status == DDZ_PLAYER_ACTIVE)
            list[n++] = t->order[r];
    if (n < 3) { /* no table can be made: the tournament ends */
        t->ntables = t->nbyes = 0;
        return;
    }
    seat_swiss(t, list, n);
}

int ddz_tourney_init(ddz_tourney *t, const ddz_tourney_opts *o)
{
    int n = o->nplayers;
    if (n < 3 || n > DDZ_TOURNEY_MAX_PLAYERS || o->games < 1 || o->games > DDZ_TOURNEY_MAX_GAMES ||
        o->format < DDZ_TOURNEY_CAAI || o->format > DDZ_TOURNEY_FINALS || o->cap < 0)
        return DDZ_EINVAL;
    if (o->format == DDZ_TOURNEY_FINALS
            ? n > DDZ_TOURNEY_FINALISTS
            : o->swiss_turns < 1 ||
                  o->swiss_turns > DDZ_TOURNEY_MAX_TURNS - DDZ_TOURNEY_FINALS_TURNS)
        return DDZ_EINVAL;
    for (int i = 0; i < n; i++)
        for (int j = i + 1; j < n; j++)
            if (o->lot[i] == o->lot[j])
                return DDZ_EINVAL;
    memset(t, 0, sizeof *t);
    t->o = *o;
    t->average = n / 6 + 1;
    t->turn = 1;
    for (int i = 0; i < n; i++) {
        t->p[i].last_turn = -1;
        for (int g = 0; g < DDZ_TOURNEY_MAX_TURNS; g++)
            t->p[i].turn[g].table = t->p[i].turn[g].seat = -1;
    }
    if (o->format == DDZ_TOURNEY_FINALS) {
        t->stage = DDZ_STAGE_FINALS;
        for (int i = 0; i < n; i++) {
            t->p[i].finalist = true;
            t->p[i].status = DDZ_PLAYER_FINALIST;
            t->p[i].swiss_rank = i + 1; /* seeded in the order given */
        }
        rank(t);
        seat_finals(t);
        return 0;
    }
    t->stage = DDZ_STAGE_SWISS;
    rank(t); /* nobody has played: the lot's order */
    int list[DDZ_TOURNEY_MAX_PLAYERS];
    for (int r = 0; r < n; r++)
        list[r] = t->order[r];
    seat_swiss(t, list, n);
    return 0;
}

/* ---- results ---- */

int ddz_tourney_game(ddz_tourney *t, int table, int game, const double score[3], unsigned faulted)
{
    if (t->done)
        return DDZ_EPHASE;
    if (table < 0 || table >= t->ntables || game < 0 || game >= t->o.games ||
        t->table[table].absent)
        return DDZ_EINVAL;
    ddz_tourney_table *tb = &t->table[table];
    if (tb->played[game])
        return DDZ_EPHASE;
    tb->played[game] = 1;
    tb->faulted[game] = (uint8_t)(faulted & 7);
    for (int s = 0; s < 3; s++)
        tb->score[game][s] = score[s];
    tb->done++;
    return 0;
}

int ddz_tourney_forfeit(ddz_tourney *t, int table, unsigned seats)
{
    if (t->done)
        return DDZ_EPHASE;
    if (table < 0 || table >= t->ntables || (seats & 7) == 0)
        return DDZ_EINVAL;
    if (t->table[table].done > 0)
        return DDZ_EPHASE;
    t->table[table].absent = (uint8_t)(seats & 7);
    return 0;
}

bool ddz_tourney_turn_complete(const ddz_tourney *t)
{
    if (t->done)
        return false;
    for (int k = 0; k < t->ntables; k++)
        if (!t->table[k].absent && t->table[k].done < t->o.games)
            return false;
    return true;
}

/* Gives each of `n` entries (value v[i]) the points of its place, higher
 * values first: place q (0 = best) is worth pts[q] tenths; tied entries
 * share the points of the places they cover. */
static void share_places(const double *v, int n, const int *pts, int *out)
{
    for (int i = 0; i < n; i++) {
        int above = 0, same = 0;
        for (int j = 0; j < n; j++) {
            above += v[j] > v[i];
            same += v[j] == v[i];
        }
        int sum = 0;
        for (int q = above; q < above + same; q++)
            sum += pts[q];
        out[i] = sum / same; /* exact: see the callers' point scales */
    }
}

/* The Swiss points of one direction: n players, the lowest place 1 point,
 * each higher place one more (tenths). Sums of consecutive tens over k
 * places divide by k exactly when k is odd, and leave 5 when even. */
static void score_swiss(ddz_tourney *t, int g)
{
    for (int d = 0; d < 3; d++) {
        int who[DDZ_TOURNEY_MAX_TABLES], n = 0, pts[DDZ_TOURNEY_MAX_TABLES],
                                         got[DDZ_TOURNEY_MAX_TABLES];
        double v[DDZ_TOURNEY_MAX_TABLES];
        for (int k = 0; k < t->ntables; k++)
            if (!t->table[k].absent) {
                who[n] = t->table[k].player[d];
                v[n] = t->p[who[n]].turn[g].small;
                n++;
            }
        for (int q = 0; q < n; q++)
            pts[q] = 10 * (n - q);
        share_places(v, n, pts, got);
        for (int i = 0; i < n; i++) {
            ddz_tourney_pturn *pt = &t->p[who[i]].turn[g];
            pt->points = got[i];
            pt->recorded = pt->small;
            if (t->o.cap > 0 && pt->small < -t->o.cap)
                pt->points -= 10;
            if (t->o.cap > 0 && pt->small > t->o.cap) {
                pt->points += 10;
                pt->recorded = t->o.cap;
            }
        }
    }
}

/* The finals' points: per deal and direction, 4 / 2 / 0 among the tables
 * (4 / 0 between two, 2 alone), ties sharing. */
static void score_finals(ddz_tourney *t, int g)
{
    for (int game = 0; game < t->o.games; game++)
        for (int d = 0; d < 3; d++) {
            int who[3], n = 0, got[3];
            double v[3];
            for (int k = 0; k < t->ntables; k++)
                if (!t->table[k].absent) {
                    who[n] = t->table[k].player[d];
                    v[n] = t->table[k].score[game][d];
                    n++;
                }
            static const int three[3] = {40, 20, 0}, two[2] = {40, 0}, one[1] = {20};
            share_places(v, n, n == 3 ? three : n == 2 ? two : one, got);
            for (int i = 0; i < n; i++)
                t->p[who[i]].turn[g].points += got[i];
        }
    for (int k = 0; k < t->ntables; k++)
        if (!t->table[k].absent)
            for (int s = 0; s < 3; s++) {
                ddz_tourney_pturn *pt = &t->p[t->table[k].player[s]].turn[g];
                pt->recorded = pt->small;
            }
}

/* Swiss: keeps the first `keep` active players of the standings. */
static void cut(ddz_tourney *t, int keep, int status_out)
{
    int kept = 0;
    for (int r = 0; r < t->o.nplayers; r++) {
        ddz_tourney_player *p = &t->p[t->order[r]];
        if (p->status != DDZ_PLAYER_ACTIVE)
            continue;
        if (kept < keep)
            kept++;
        else
            p->status = (int8_t)status_out;
    }
}

/* From the last Swiss turn to the finals: the first nine active players
 * are finalists, seeded by their Swiss rank, with the carry-over. */
static void to_finals(ddz_tourney *t)
{
    int n = t->o.nplayers, seeded = 0;
    for (int r = 0; r < n; r++) {
        ddz_tourney_player *p = &t->p[t->order[r]];
        p->swiss_rank = r + 1;
        if (p->status != DDZ_PLAYER_ACTIVE)
            continue;
        if (seeded < DDZ_TOURNEY_FINALISTS) {
            p->finalist = true;
            p->status = DDZ_PLAYER_FINALIST;
            p->carry = 56 - 7 * seeded;
            seeded++;
            p->swiss_rank = seeded; /* finals seed = place among the finalists */
        } else {
            p->status = DDZ_PLAYER_ELIMINATED;
        }
    }
    /* Non-finalists keep their Swiss place after the nine. */
    int next = seeded;
    for (int r = 0; r < n; r++) {
        ddz_tourney_player *p = &t->p[t->order[r]];
        if (!p->finalist)
            p->swiss_rank = ++next;
    }
    for (int i = 0; i < n; i++) {
        t->p[i].points = t->p[i].finalist ? t->p[i].carry : t->p[i].points;
        if (t->p[i].finalist)
            t->p[i].small = 0;
    }
    t->stage = DDZ_STAGE_FINALS;
    t->turn = 1;
}

int ddz_tourney_end_turn(ddz_tourney *t)
{
    if (!ddz_tourney_turn_complete(t))
        return DDZ_EPHASE;
    int g = t->gturn, n = t->o.nplayers;
    bool finals = t->stage == DDZ_STAGE_FINALS;
    int avg = finals ? 3 : t->average;
    for (int i = 0; i < n; i++) {
        ddz_tourney_pturn *pt = &t->p[i].turn[g];
        *pt = (ddz_tourney_pturn){.table = -1, .seat = -1, .stage = (int8_t)t->stage};
    }
    for (int k = 0; k < t->ntables; k++) {
        ddz_tourney_table *tb = &t->table[k];
        for (int s = 0; s < 3; s++) {
            int i = tb->player[s];
            ddz_tourney_pturn *pt = &t->p[i].turn[g];
            pt->table = (int8_t)k;
            pt->seat = (int8_t)s;
            if (tb->absent) {
                bool gone = tb->absent >> s & 1;
                pt->kind = gone ? DDZ_TURN_ABSENT : DDZ_TURN_AWARDED;
                pt->points = gone ? -20 * avg : 10 * avg;
                pt->small = pt->recorded = gone ? 0 : t->o.cap;
                continue;
            }
            pt->kind = DDZ_TURN_PLAYED;
            for (int game = 0; game < t->o.games; game++) {
                pt->small = ddz_score_add(pt->small, tb->score[game][s]);
                pt->faults += tb->faulted[game] >> s & 1;
            }
        }
        for (int a = 0; a < 3; a++)
            for (int b = 0; b < 3; b++)
                if (a != b)
                    t->met[tb->player[a]][tb->player[b]]++;
    }
    if (finals)
        score_finals(t, g);
    else
        score_swiss(t, g);
    for (int b = 0; b < t->nbyes; b++) {
        ddz_tourney_pturn *pt = &t->p[t->bye[b]].turn[g];
        pt->kind = DDZ_TURN_BYE;
        pt->points = finals ? 25 * t->o.games : 10 * (t->average + 1);
        pt->small = pt->recorded = t->o.cap;
    }
    for (int i = 0; i < n; i++) {
        ddz_tourney_player *p = &t->p[i];
        ddz_tourney_pturn *pt = &p->turn[g];
        if (pt->kind == DDZ_TURN_NONE)
            continue;
        p->points += pt->points;
        p->small = ddz_score_add(p->small, pt->recorded);
        p->faults += pt->faults;
        p->byes += pt->kind == DDZ_TURN_BYE;
        if (pt->seat >= 0)
            p->dirs[pt->seat]++;
        p->last_turn = g;
        if (t->o.dq_faults > 0 && pt->faults >= t->o.dq_faults)
            p->status = DDZ_PLAYER_DISQUALIFIED;
    }
    rank(t);
    t->last_stage = t->stage;
    t->last_turn = t->turn;
    t->gturn++;
    if (!finals) {
        t->swiss_played++;
        if (t->o.cut[t->turn - 1] > 0)
            cut(t, t->o.cut[t->turn - 1], DDZ_PLAYER_ELIMINATED);
        if (t->turn >= t->o.swiss_turns) {
            if (t->o.format != DDZ_TOURNEY_CAAI) {
                t->done = true;
                return 0;
            }
            to_finals(t);
            rank(t);
        } else {
            t->turn++;
        }
    } else if (t->turn >= DDZ_TOURNEY_FINALS_TURNS) {
        t->done = true;
        return 0;
    } else {
        t->turn++;
    }
    seat_turn(t);
    if (t->ntables == 0 && t->nbyes == 0)
        t->done = true; /* nobody left to seat */
    return 0;
}
