/* tourney.h - the competition state of a CAAI tournament (spec §9, seed
 * 000 六): Swiss preliminaries and duplicate finals, as a value.
 *
 * A ddz_tourney knows the players, what each did in every turn, and who
 * sits where in the turn being played. It does no I/O, reads no clock and
 * allocates nothing (the caller allocates the struct, some 200 KB): the
 * driver (service/tourney/director.h) feeds it game results and ends
 * turns, and reads the pairings and standings back. Everything it decides
 * follows from its options and the results fed in, so a tournament
 * rebuilt from its records decides the same.
 *
 * Turns. Turn t of a stage seats the active players at tables of three,
 * seat 0..2 = West, South, East (the direction: every table plays the same
 * deals, so players in one direction held the same cards), and gives byes
 * to those left over. Results arrive per table and game; when every table
 * has all its games (or was forfeited), ddz_tourney_end_turn() scores the
 * turn, disqualifies, eliminates, ranks, and seats the next turn.
 *
 * Points are kept in tenths (`int`): Swiss 场分 are multiples of a half
 * (ties share), finals 比赛分 of a tenth (the carry-over 5.6 - 0.7 per
 * place, byes 2.5 per deal). Small scores are doubles on the rules' 1/1000
 * grid, summed with ddz_score_add.
 *
 * Swiss (preliminaries). After each turn, the players of each direction
 * (at tables not forfeited) are ranked by their small score of the turn:
 * the lowest gets 1 point, each place higher 1 more, tied players share the
 * points of their places; a turn's small score below -cap costs 1 more,
 * above +cap earns 1 more and is recorded as +cap (cap = 350 x games under
 * caai). A bye earns floor(players / 6) + 2 points (the 场分均值 + 1) and
 * cap small. Standings: points, then recorded small, then the lot.
 *
 * Finals. The finalists, by Swiss rank, are the points (i % 3, i / 3) of
 * the affine plane of order 3; turn k seats the three lines of parallel
 * class k (every pair meets exactly once in four turns). A line holding a
 * missing finalist (fewer than nine, or one disqualified) is not played:
 * its players have a bye, 2.5 points a deal. Per deal the results of one
 * direction score 4 / 2 / 0 (two results: 4 / 0; one: 2; ties share). The
 * carry-over is 5.6 for the first of the Swiss, 0.7 less per place.
 * Standings: points, then the Swiss rank.
 */
#ifndef DDZ_TOURNEY_H
#define DDZ_TOURNEY_H

#include <stdbool.h>
#include <stdint.h>

enum {
    DDZ_TOURNEY_MAX_PLAYERS = 243,
    DDZ_TOURNEY_MAX_TABLES = DDZ_TOURNEY_MAX_PLAYERS / 3,
    DDZ_TOURNEY_MAX_TURNS = 24,  /* Swiss turns + 4 finals turns */
    DDZ_TOURNEY_MAX_GAMES = 100, /* games per turn */
    DDZ_TOURNEY_FINALISTS = 9,
    DDZ_TOURNEY_FINALS_TURNS = 4,
};

enum ddz_tourney_format {
    DDZ_TOURNEY_CAAI = 0, /* Swiss, then the finals of the top nine */
    DDZ_TOURNEY_SWISS,    /* Swiss only */
    DDZ_TOURNEY_FINALS,   /* the finals only, players seeded in the order given */
};

enum ddz_tourney_stage { DDZ_STAGE_SWISS = 0, DDZ_STAGE_FINALS = 1 };

enum ddz_tourney_status {
    DDZ_PLAYER_ACTIVE = 0,
    DDZ_PLAYER_ELIMINATED,
    DDZ_PLAYER_DISQUALIFIED,
    DDZ_PLAYER_FINALIST,
};

/* What a player did in one turn. */
enum ddz_turn_kind {
    DDZ_TURN_NONE = 0, /* not in this turn (eliminated, disqualified, not a finalist) */
    DDZ_TURN_PLAYED,   /* seated and played */
    DDZ_TURN_BYE,      /* a bye */
    DDZ_TURN_ABSENT,   /* forfeited its table (late or absent) */
    DDZ_TURN_AWARDED,  /* at a table another player forfeited */
};

typedef struct ddz_tourney_opts {
    int nplayers;    /* 3..DDZ_TOURNEY_MAX_PLAYERS (finals: at most 9) */
    int format;      /* enum ddz_tourney_format */
    int swiss_turns; /* 1..DDZ_TOURNEY_MAX_TURNS - 4 (ignored by FINALS) */
    int games;       /* games per turn, 1..DDZ_TOURNEY_MAX_GAMES */
    double cap;      /* a turn's small-score cap (350 x games under caai; 0 = none) */
    int cut[DDZ_TOURNEY_MAX_TURNS]; /* players kept after Swiss turn t+1; 0 = no cut */
    int dq_faults;                  /* faulty games in one turn that disqualify (3; 0 = never) */
    uint64_t lot[DDZ_TOURNEY_MAX_PLAYERS]; /* the draw: a lower lot wins ties and
                                              is seated first in turn 1; distinct */
} ddz_tourney_opts;

typedef struct ddz_tourney_pturn {
    int8_t kind;     /* enum ddz_turn_kind */
    int8_t table;    /* 0-based table, -1 if not seated */
    int8_t seat;     /* direction 0..2, -1 if not seated */
    int8_t stage;    /* enum ddz_tourney_stage */
    int16_t faults;  /* games of the turn in which it was charged a fault */
    int points;      /* tenths earned in the turn */
    double small;    /* small-score total of the turn, as played */
    double recorded; /* small score recorded (capped above in the Swiss) */
} ddz_tourney_pturn;

typedef struct ddz_tourney_player {
    int8_t status;  /* enum ddz_tourney_status */
    bool finalist;  /* played the finals */
    int byes;       /* byes so far (all stages) */
    int faults;     /* faulty games so far */
    int points;     /* tenths: Swiss total, or finals total with the carry-over */
    double small;   /* recorded small-score total of the current stage */
    int carry;      /* finals: carry-over in tenths */
    int swiss_rank; /* 1-based rank at the end of the Swiss (finals: seed order) */
    int last_turn;  /* last global turn it was in the competition, -1 before any */
    int dirs[3];    /* turns seated per direction */
    ddz_tourney_pturn turn[DDZ_TOURNEY_MAX_TURNS]; /* by global turn index */
} ddz_tourney_player;

typedef struct ddz_tourney_table {
    int16_t player[3]; /* by seat; -1 = empty (a finals line with a missing player) */
    int done;          /* games recorded */
    uint8_t played[DDZ_TOURNEY_MAX_GAMES];  /* game g recorded */
    uint8_t faulted[DDZ_TOURNEY_MAX_GAMES]; /* seats charged a fault in game g (bits) */
    double score[DDZ_TOURNEY_MAX_GAMES][3]; /* small scores by seat */
    uint8_t absent; /* seats that forfeited the table (bits); nonzero = not played */
} ddz_tourney_table;

typedef struct ddz_tourney {
    ddz_tourney_opts o;
    int average;               /* 场分均值: floor(nplayers / 6) + 1 */
    int stage;                 /* stage of the current turn */
    int turn;                  /* current turn within its stage, 1-based */
    int gturn;                 /* current global turn index (0-based) */
    int swiss_played;          /* Swiss turns played */
    bool done;                 /* every turn is played */
    int last_stage, last_turn; /* the last finished turn (last_turn 0: none) */
    int ntables;
    ddz_tourney_table table[DDZ_TOURNEY_MAX_TABLES]; /* the current turn's */
    int nbyes;
    int16_t bye[DDZ_TOURNEY_MAX_PLAYERS]; /* players with a bye this turn */
    ddz_tourney_player p[DDZ_TOURNEY_MAX_PLAYERS];
    uint8_t met[DDZ_TOURNEY_MAX_PLAYERS][DDZ_TOURNEY_MAX_PLAYERS]; /* tables shared */
    int16_t order[DDZ_TOURNEY_MAX_PLAYERS]; /* the standings: players by rank */
} ddz_tourney;

/* Fills `o` with the CAAI defaults for `nplayers`: format caai, 4 Swiss
 * turns, 6 games, cap 2100, cuts 18 / 12 / 9 after turns 2, 3, 4, three
 * faults disqualify, lots 0..n-1 (the caller should draw real ones). */
void ddz_tourney_defaults(ddz_tourney_opts *o, int nplayers);

/* Scales the cuts to the field, for `ddz tournament --cuts scale`: after
 * turns 2, 3, 4 keep 2/3, 4/9 and 1/3 of the players (at least nine). */
void ddz_tourney_scale_cuts(ddz_tourney_opts *o);

/* Starts the tournament: seats turn 1 (Swiss: by lot; finals: by the
 * order given). Returns 0, or DDZ_EINVAL for options out of range (fewer
 * than 3 players, more than 9 for FINALS, repeated lots). */
int ddz_tourney_init(ddz_tourney *t, const ddz_tourney_opts *o);

/* Records game `game` (0-based) of table `table` (0-based) of the current
 * turn: small `score` by seat and the seats charged a fault (`faulted`,
 * bit s = seat s). Returns 0, DDZ_EINVAL (no such table or game, a table
 * that is not played), DDZ_EPHASE (that game is already recorded, or the
 * tournament is over). */
int ddz_tourney_game(ddz_tourney *t, int table, int game, const double score[3], unsigned faulted);

/* The lateness rule (seed 000 六): the players at `seats` (bits) of
 * `table` are absent, so the table is not played. Each absent player
 * loses 2 x average points (6 in the finals), each other player gains the
 * average (3 in the finals) and cap small. Returns 0, DDZ_EINVAL, or
 * DDZ_EPHASE if a game of that table is already recorded. */
int ddz_tourney_forfeit(ddz_tourney *t, int table, unsigned seats);

/* Returns true when every table of the current turn is complete. */
bool ddz_tourney_turn_complete(const ddz_tourney *t);

/* Ends the current turn: scores it, disqualifies, eliminates, ranks
 * (`order`), and seats the next turn or the finals, or sets `done`.
 * Returns 0, or DDZ_EPHASE if a table is incomplete or it is over. */
int ddz_tourney_end_turn(ddz_tourney *t);

/* Returns the 1-based rank of player `i` in the last standings. */
int ddz_tourney_rank_of(const ddz_tourney *t, int i);

/* Writes the finals' parallel class `k` (0..3) into `line[3][3]`: three
 * lines of three finalist slots (Swiss rank - 1), each by seat. Never
 * fails. */
void ddz_tourney_finals_class(int k, int line[3][3]);

/* Returns the name of a status ("active", "eliminated", "disqualified",
 * "finalist") or of a stage ("swiss", "finals"). */
const char *ddz_tourney_status_name(int status);
const char *ddz_tourney_stage_name(int stage);

#endif
