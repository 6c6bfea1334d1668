/* event.h - the server's messages of proto/PROTOCOL.md (welcome, rooms,
 * joined, state, seat, game, turn, bid_made, leftover, played, over,
 * turn_over, error, bye, fault, enlisted, released, hint, phrase, redirect,
 * queued, rated) as values, printed as
 * JSON and parsed back.
 *
 * ddz_event_print() writes the keys in the order the server has always sent
 * them, so that a frame printed from a parsed frame is the same bytes:
 * ddz_msg_dump(print(parse(x))) == x for every frame the server sends
 * (tests/proto/events.txt holds real ones). Scores and totals are JSON
 * numbers: integers when whole (always under caai), else reals
 * (botzone-ftl), which ddz_msg_dump prints in their shortest form. Card lists are printed
 * ascending; a turn's legal bids ascending, its legal plays in the order
 * given.
 *
 * Parsing is strict like ddz_req_parse(): every required field of the
 * schemas (proto/schema/server/) must be there with its JSON type and range
 * (seats 0..2, cards 0..53 without repeats and with the schema's counts,
 * hex digests of 64 lower-case digits, names from their enums); unknown
 * fields are ignored, so a later server may add some.
 *
 * Null is explicit: -1 for a seat, bid or winner that is null, a `has_`
 * flag for an object or card list that may be null, "" for a null room id.
 *
 * The variable-length parts (the lobby's rooms and name lists, a turn's
 * legal plays, a state's history) are a pointer and a count. To print, point
 * them at your own arrays (the event does not own them). ddz_event_parse()
 * allocates them: release them with ddz_event_clear(). Every other part is
 * inline, so a bid_made, played or turn event is a plain value on the
 * stack.
 */
#ifndef DDZ_EVENT_H
#define DDZ_EVENT_H

#include <jansson.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "proto/msg.h"
#include "rules/cards.h"
#include "rules/combo.h"
#include "rules/deal.h"
#include "rules/record.h"
#include "rules/ruleset.h"

enum {
    DDZ_EVENT_NAME_MAX = 190,           /* a player's name, bytes with the NUL: an engine's CAAI
                                         * name of 63 GBK bytes is up to 189 bytes of UTF-8 */
    DDZ_EVENT_ROOM_ID_MAX = 33,         /* a room id, 1..32 bytes, with the NUL (a cluster node's
                                         * rooms are "NODE-XXXXXXXX": 16 + 1 + 8) */
    DDZ_EVENT_URL_MAX = 256,            /* a redirect's URL, 1..255 bytes, with the NUL */
    DDZ_EVENT_ROOM_NAME_MAX = 161,      /* a room name, 40 characters of UTF-8, with the NUL */
    DDZ_EVENT_RULES_MAX = 16,           /* a rule set name, 1..15 bytes, with the NUL */
    DDZ_EVENT_TEXT_MAX = 256,           /* an error message or a bye reason, with the NUL */
    DDZ_EVENT_LIST_MAX = 64,            /* names in one of the rooms event's lists */
    DDZ_EVENT_GAME_KEY_HEX = 32,        /* an over's game_key: lower-case hex digits */
    DDZ_EVENT_HINTS_MAX = 64,           /* plays in a hint: every shape of most hands (the
                                         * client cycles these alone, so that none spends
                                         * a bomb; a hand with more keeps its bombs) */
    DDZ_EVENT_MULTIPLIER_MAX = 1 << 20, /* a multiplier so far (botzone-ftl2: 2^14 at most) */
};

enum ddz_event_type {
    DDZ_EVENT_WELCOME = 1,
    DDZ_EVENT_ROOMS,
    DDZ_EVENT_JOINED,
    DDZ_EVENT_STATE,
    DDZ_EVENT_SEAT,
    DDZ_EVENT_GAME,
    DDZ_EVENT_TURN,
    DDZ_EVENT_BID_MADE,
    DDZ_EVENT_LEFTOVER,
    DDZ_EVENT_PLAYED,
    DDZ_EVENT_OVER,
    DDZ_EVENT_TURN_OVER,
    DDZ_EVENT_ERROR,
    DDZ_EVENT_BYE,
    DDZ_EVENT_FAULT,
    DDZ_EVENT_ENLISTED,
    DDZ_EVENT_RELEASED,
    DDZ_EVENT_HINT,
    DDZ_EVENT_PHRASE,
    DDZ_EVENT_REDIRECT,
    DDZ_EVENT_QUEUED, /* rated quick play: the person waits for a table (SPEC §15) */
    DDZ_EVENT_RATED,  /* a rated game moved the person's rating (SPEC §15) */
    DDZ_NEVENT
};

/* who sits in a seat ("kind") */
enum ddz_event_kind { DDZ_EVENT_HUMAN = 0, DDZ_EVENT_BOT, DDZ_EVENT_AI, DDZ_EVENT_ENGINE };

/* what a turn asks for ("action") */
enum ddz_event_action { DDZ_EVENT_ACT_BID = 0, DDZ_EVENT_ACT_PLAY };

/* a state's "phase" */
enum ddz_event_phase {
    DDZ_EVENT_PH_WAITING = 0,
    DDZ_EVENT_PH_BID,
    DDZ_EVENT_PH_PLAY,
    DDZ_EVENT_PH_BETWEEN,
    DDZ_EVENT_PH_TURN_OVER
};

/* a player's "role" in a state */
enum ddz_event_role { DDZ_EVENT_ROLE_NONE = 0, DDZ_EVENT_ROLE_LANDLORD, DDZ_EVENT_ROLE_FARMER };

/* A seat's occupant: the `player` of a seat event, a room's `seats[]`, a
 * state's `players[]`. The last six fields belong to a state only. */
typedef struct ddz_event_player {
    bool seated;                      /* false: nobody (JSON null), the rest unused */
    char name[DDZ_EVENT_NAME_MAX];    /* display name, "ai:NAME", or an engine's name */
    int kind;                         /* enum ddz_event_kind */
    bool connected;                   /* a person's connection is up; an engine runs */
    bool custody;                     /* a hosted AI plays for the absent player */
    int missed;                       /* a person's clocks run out in a row, 0..2 (casual rooms,
                                         spec §14; printed only when > 0) */
    char standin[DDZ_EVENT_NAME_MAX]; /* a hosted AI keeps the seat for this person, who left
                                         or was stood up (casual rooms, spec §14); "" = none */
    bool in_game;   /* state: left, bid, role and last are sent (phase bid, play, between) */
    int left;       /* state: cards held, 0..20 */
    int bid;        /* state: 0..3, -1 = not bid (null) */
    int role;       /* state: enum ddz_event_role (NONE = null) */
    bool has_last;  /* state: `last` is not null */
    ddz_cards last; /* state: the seat's latest play in the trick, 0 = a pass */
    int last_combo; /* state: enum ddz_type of `last` (DDZ_PASS for a pass) */
    bool faulted;   /* state: the seat has faulted in this game and the referee acts for it
                     * (botzone-ftl2); never true where a fault ends the game */
} ddz_event_player;

/* welcome: the answer to hello */
typedef struct ddz_event_welcome {
    int version;                      /* protocol version: DDZ_PROTOCOL_VERSION */
    char id[16];                      /* you.id: the player's public id, e.g. "p3" */
    char name[DDZ_EVENT_NAME_MAX];    /* you.name */
    bool bot;                         /* you.bot: logged in with a bot token */
    char resume[65];                  /* token to resume with, 16..64 characters */
    char server[64];                  /* server version string, e.g. "ddz 0.1" */
    char account[DDZ_EVENT_NAME_MAX]; /* the account played as (hello's session), "" if none:
                                         absent from the JSON then */
} ddz_event_welcome;

/* one listed room of a rooms event */
typedef struct ddz_event_room {
    char id[DDZ_EVENT_ROOM_ID_MAX];     /* room id */
    char name[DDZ_EVENT_ROOM_NAME_MAX]; /* lobby name */
    char rules[DDZ_EVENT_RULES_MAX];    /* rule set */
    int time;                           /* seconds per action, 3..300 */
    int games;                          /* games per turn, 1..100 */
    bool priv;                          /* "private" (never true in a listing) */
    bool bots;                          /* remote bots may sit */
    bool password;                      /* a password is needed */
    ddz_event_player seats[3];          /* who sits where (state fields unused) */
    int spectators;                     /* how many watch, >= 0 */
    bool playing;                       /* a turn is under way */
    bool rated;                         /* a rated room (SPEC §15; printed only when true) */
} ddz_event_room;

/* rooms: the lobby; lists are caller-owned to print, parse-owned after parse */
typedef struct ddz_event_rooms {
    const ddz_event_room *rooms; /* the listed rooms */
    size_t nrooms;
    const char *const *ais; /* hosted AI names ("ai:NAME" seats) */
    size_t nais;
    const char *const *engines; /* operator engine names ("engine:NAME" seats) */
    size_t nengines;
    const char *const *rules; /* rule set names */
    size_t nrules;
} ddz_event_rooms;

/* joined: where the connection now is */
typedef struct ddz_event_joined {
    char room[DDZ_EVENT_ROOM_ID_MAX]; /* room id, "" = null (left) */
    int seat;                         /* 0..2, -1 = null (spectator, or left) */
} ddz_event_joined;

/* seat: a seat changed hands or state */
typedef struct ddz_event_seat {
    int seat;                /* 0..2 */
    ddz_event_player player; /* seated false = null (the seat is open) */
} ddz_event_seat;

/* game: a new deal */
typedef struct ddz_event_game {
    int game;                       /* 1-based number in the turn, 1..100 */
    int games;                      /* games per turn, 1..100 */
    uint8_t commit[DDZ_SEED_BYTES]; /* BLAKE2b-256 of the seed (hex on the wire) */
    bool has_hand;                  /* false for spectators (null) */
    ddz_cards hand;                 /* the own 17 cards */
} ddz_event_game;

/* turn: a seat must act; also a state's `turn` */
typedef struct ddz_event_turn {
    int seat;               /* 0..2 */
    int action;             /* enum ddz_event_action */
    uint32_t seq;           /* the number to answer with, 0..2^31-1 */
    int64_t deadline_ms;    /* milliseconds left, >= 0 */
    bool has_legal;         /* `legal` is sent (only to the seat to act) */
    uint8_t legal_bids;     /* bid: bit b set = bid b allowed (printed ascending) */
    const ddz_cards *legal; /* play: every legal play, in order, 0 = a pass */
    size_t nlegal;          /* play: entries in `legal`, 1..DDZ_MOVES_MAX */
} ddz_event_turn;

/* bid_made: a seat bid */
typedef struct ddz_event_bid_made {
    int seat; /* 0..2 */
    int bid;  /* 0..3 */
} ddz_event_bid_made;

/* leftover: the landlord takes the three leftover cards */
typedef struct ddz_event_leftover {
    int landlord;    /* 0..2 */
    ddz_cards cards; /* three cards */
    int bid;         /* the landlord's bid, 1..3 */
    int multiplier;  /* the rules' multiplier before any play (what `played` then
                        carries on); 0 = null: the rule set has none */
} ddz_event_leftover;

/* played: a seat played or passed */
typedef struct ddz_event_played {
    int seat;        /* 0..2 */
    ddz_cards cards; /* 0 = a pass */
    int combo;       /* enum ddz_type, DDZ_ROCKET..DDZ_PASS */
    bool autopass;   /* "auto": the server passed for the seat */
    int left;        /* cards the seat still holds, 0..20 */
    int multiplier;  /* the bombs and rocket so far (the rules' multiplier_so_far);
                        0 = null: the rule set has none */
} ddz_event_played;

/* over: a game ended; also a state's `result` */
typedef struct ddz_event_over {
    int game;                       /* 1..100 */
    int winner;                     /* seat, -1 = null */
    int landlord;                   /* seat, -1 = null */
    int fault_seat;                 /* seat charged with a fault, -1 = fault is null */
    int fault_kind;                 /* enum ddz_fault, DDZ_FAULT_TIMEOUT..DDZ_FAULT_CRASH */
    double scores[3];               /* this game's scores */
    int bid;                        /* breakdown.bid, 0..3 */
    int bombs;                      /* breakdown.bombs, 0..13 */
    bool rocket;                    /* breakdown.rocket */
    bool spring;                    /* breakdown.spring */
    bool anti_spring;               /* breakdown.anti_spring */
    int multiplier;                 /* breakdown.multiplier, 0..1000000 */
    int nterms;                     /* breakdown.terms: how many, 0..DDZ_TERMS_MAX */
    ddz_term terms[DDZ_TERMS_MAX];  /* breakdown.terms: how the scores came about, as
                                     * the rule set explains them (proto/terms.h) */
    ddz_cards hands[3];             /* cards held at the end */
    ddz_cards dealt[3];             /* hands as dealt, 17 cards each */
    ddz_cards leftover;             /* the three leftover cards */
    uint8_t seed[DDZ_SEED_BYTES];   /* the revealed seed */
    uint8_t commit[DDZ_SEED_BYTES]; /* its commitment */
    int64_t game_id;                /* store id, >= 1 */
    char game_key[DDZ_EVENT_GAME_KEY_HEX + 1]; /* "" (null): a listed room's game, served at
                                                * /api/games/ID; else served only at
                                                * /api/games/ID-KEY */
    double totals[3];                          /* the turn's totals so far */
    bool redeal; /* everyone passed and the room deals again: the game does not count
                  * (its record stays, verifiable); printed only when true */
} ddz_event_over;

/* Fills what `o` says about the game `g` has ended, `rec` its record
 * (ddz_record_finish'ed): game (rec->game + 1), winner, landlord, fault,
 * scores, the breakdown with its terms (ddz_record_explain), hands, dealt,
 * leftover, seed and commit. The room's own fields (game_id, game_key,
 * totals) are zeroed, for the caller to set. Never fails. */
void ddz_event_over_fill(ddz_event_over *o, const ddz_game *g, const ddz_record *rec);

/* a state's room options (the password itself is never sent) */
typedef struct ddz_event_options {
    char rules[DDZ_EVENT_RULES_MAX]; /* rule set */
    int time;                        /* seconds per action, 3..300 */
    int games;                       /* games per turn, 1..100 */
    bool priv;                       /* "private": not listed */
    bool bots;                       /* remote bots may sit */
    bool autopass;                   /* the room's default for humans */
    int grace;                       /* seconds a dropped seat waits, 0..600 */
    int custody;                     /* enum ddz_custody (proto/msg.h) */
    int pause;                       /* seconds between games, 0..30 */
    bool redeal;                     /* an all-pass deal is dealt again, not counted */
    bool rated;                      /* a rated room (SPEC §15; printed only when true) */
} ddz_event_options;

/* state: a full snapshot as one connection may see it */
typedef struct ddz_event_state {
    char room[DDZ_EVENT_ROOM_ID_MAX];        /* room.id */
    char room_name[DDZ_EVENT_ROOM_NAME_MAX]; /* room.name */
    bool password;                           /* room.password (read as false if absent) */
    ddz_event_options options;               /* room.options */
    int seat;                                /* own seat, -1 = spectator (null) */
    int phase;                               /* enum ddz_event_phase */
    int game;                                /* 0..100 */
    int games;                               /* 1..100 */
    bool has_commit;                         /* false: null (no game is played) */
    uint8_t commit[DDZ_SEED_BYTES];          /* the current game's commitment */
    ddz_event_player players[3];             /* seated false = null */
    bool has_hand;                           /* false: null (spectator, no game) */
    ddz_cards hand;                          /* own cards */
    bool has_leftover;                       /* false: null (not revealed yet) */
    ddz_cards leftover;                      /* the three leftover cards */
    int landlord;                            /* seat, -1 = null */
    int bid;                                 /* the landlord's bid 1..3, -1 = null */
    int multiplier;                          /* the bombs and rocket so far, once the
                                                landlord is known; 0 = null (none yet,
                                                or the rule set has none) */
    const ddz_record_play *history;          /* this game's plays, in order */
    int nhistory;                            /* 0..DDZ_RECORD_MAX_PLAYS */
    bool has_turn;                           /* false: null */
    ddz_event_turn turn;                     /* the pending request */
    double totals[3];                        /* the turn's totals */
    bool autopass;                           /* this connection's auto-pass */
    bool has_result;                         /* false: null */
    ddz_event_over result;                   /* the last game's over event */
    bool has_ready;                          /* false: no `ready` (no wait between games) */
    bool ready[3];                           /* ready: the seats that are ready for the next game */
    int ready_ms;   /* ready: milliseconds left on the ready clock, 0..600000 */
    bool stood_up;  /* this spectator was stood up from the room (spec §14): `join` seats it
                       again (printed only when true) */
    bool seat_next; /* this spectator asked to sit while a game is on: it is seated when the
                       game ends (printed only when true) */
    bool held;      /* a spectator of a competition table whose games are held (printed only when
                       true): no cards, bids, plays, totals or result, and the players' game fields
                       (left, bid, role, last, faulted) absent while a game is on */
} ddz_event_state;

/* turn_over: the last game of the turn is over */
typedef struct ddz_event_turn_over {
    double totals[3]; /* the turn's totals */
    int games;        /* games per turn, 1..100 */
} ddz_event_turn_over;

/* error: a request failed */
typedef struct ddz_event_error {
    int code;                         /* negative DDZ_E... (rules/error.h), named on the wire */
    char message[DDZ_EVENT_TEXT_MAX]; /* human text; "" prints ddz_strerror(code) */
    int about;                        /* enum ddz_req_type of the request, 0 = absent */
    char id[48];                      /* the request's id as compact JSON text, "" = absent */
} ddz_event_error;

/* bye: the server is shutting down */
typedef struct ddz_event_bye {
    char reason[DDZ_EVENT_TEXT_MAX]; /* human text */
} ddz_event_bye;

/* fault: a seat was charged a fault and the game goes on, the referee
 * acting for that seat from now on (botzone-ftl2); where a fault ends the
 * game, `over` says it instead */
typedef struct ddz_event_fault {
    int seat; /* 0..2 */
    int kind; /* enum ddz_fault, DDZ_FAULT_TIMEOUT..DDZ_FAULT_CRASH */
} ddz_event_fault;
/* enlisted: the server took an `enlist`; it seats the bot where its
 * competition needs it (`joined`, then the table's events) */
typedef struct ddz_event_enlisted {
    char competition[16]; /* "tournament" (the ladder will say "ladder") */
    char player[33];      /* the bot's ID in the competition: 1..32 bytes */
} ddz_event_enlisted;

/* released: the competition needs the bot no more (it is over) */
typedef struct ddz_event_released {
    char reason[DDZ_EVENT_TEXT_MAX]; /* human text */
} ddz_event_released;

/* hint: plays suggested to the seat to move for its open request, the
 * likeliest first (only to that seat, only from its own hand) */
typedef struct ddz_event_hint {
    uint32_t seq;                         /* the request the hint is for */
    size_t n;                             /* 0..DDZ_EVENT_HINTS_MAX */
    ddz_cards plays[DDZ_EVENT_HINTS_MAX]; /* none is a pass */
} ddz_event_hint;

/* phrase: a seat said one of the fixed quick phrases */
typedef struct ddz_event_phrase {
    int seat;   /* 0..2 */
    int phrase; /* 0..DDZ_PHRASES-1 */
} ddz_event_phrase;

/* redirect: another node serves this request (a room of another node of a
 * cluster); sent instead of its answer. The client connects to `url`, says
 * hello there and repeats the request (PROTOCOL.md, "Many nodes"). */
typedef struct ddz_event_redirect {
    char url[DDZ_EVENT_URL_MAX];      /* ws://... or wss://... of the node to ask */
    int about;                        /* enum ddz_req_type of the request redirected (> 0) */
    char id[48];                      /* the request's id as compact JSON text, "" = absent */
    char room[DDZ_EVENT_ROOM_ID_MAX]; /* the room the request named, "" = absent */
    char reason[DDZ_EVENT_TEXT_MAX];  /* human text */
} ddz_event_redirect;

/* queued: the person waits for a rated quick-play table (SPEC §15);
 * `joined` follows when it is found, `leave` cancels */
typedef struct ddz_event_queued {
    char rules[DDZ_EVENT_RULES_MAX]; /* the rule set waited for */
    double rating;                   /* the person's shown rating the queue uses */
    int fill_s;                      /* seconds after which hosted AIs fill the table, 0..3600 */
} ddz_event_queued;

/* rated: a rated game moved the person's rating (shown numbers, to 0.1) */
typedef struct ddz_event_rated {
    int64_t game;                    /* the game's id (> 0) */
    char rules[DDZ_EVENT_RULES_MAX]; /* its rule set */
    double before;                   /* the rating before the game */
    double rating;                   /* after */
    double deviation;                /* its deviation after, >= 0 */
    long long games;                 /* rated games of the rule set so far, >= 1 */
    bool forfeit;                    /* counted as a loss: the person left the game */
} ddz_event_rated;

typedef struct ddz_event {
    int type;   /* enum ddz_event_type */
    bool owned; /* the arrays were allocated by ddz_event_parse: ddz_event_clear frees them */
    union {
        ddz_event_welcome welcome;
        ddz_event_rooms rooms;
        ddz_event_joined joined;
        ddz_event_state state;
        ddz_event_seat seat;
        ddz_event_game game;
        ddz_event_turn turn;
        ddz_event_bid_made bid_made;
        ddz_event_leftover leftover;
        ddz_event_played played;
        ddz_event_over over;
        ddz_event_turn_over turn_over;
        ddz_event_error error;
        ddz_event_bye bye;
        ddz_event_fault fault;
        ddz_event_enlisted enlisted;
        ddz_event_released released;
        ddz_event_hint hint;
        ddz_event_phrase phrase;
        ddz_event_redirect redirect;
        ddz_event_queued queued;
        ddz_event_rated rated;
    };
} ddz_event;

/* Returns the protocol name of event type `type` ("welcome", ...), or
 * "unknown" for a value outside enum ddz_event_type. Never NULL. */
const char *ddz_event_name(int type);

/* Returns the event type named `name` (enum ddz_event_type), or
 * DDZ_EUNKNOWN when no server message has that name. */
int ddz_event_type_of(const char *name);

/* Prints `e` as the JSON object the server sends: its type's fields only, in
 * the server's key order. Returns a new object (the caller owns it), or NULL
 * on allocation failure, for an unknown type, for a string that is not UTF-8,
 * or when an error event's `id` is not JSON text. DOES NOT CHECK RANGES: a
 * seat of 7 prints as 7, and a count > 0 needs its array. */
json_t *ddz_event_print(const ddz_event *e);

/* `e` as the text the server sends: the same bytes as
 * ddz_msg_dump(ddz_event_print(e)) (compact, the server's key order).
 * The events of every move (turn, bid_made, played) are written straight
 * into the text, without a JSON tree: at 10,000 players the tree of a
 * turn's legal plays and its dump were the most of the loop's own work
 * per action; the others go through ddz_event_print(). Returns malloc'd
 * text (the caller frees it), or NULL as ddz_event_print() fails, or
 * when out of memory. */
char *ddz_event_dump(const ddz_event *e);

/* Parses the server frame `j` into `out` (zeroed first). Returns 0, or
 * DDZ_ESYNTAX (`j` is not an object or has no string "type"), DDZ_EUNKNOWN
 * (no server message has that type), DDZ_EFIELD (a field missing, of the
 * wrong type or out of range), DDZ_ENOMEM; `err` (errlen bytes, may be
 * NULL) then names the field and the problem, e.g. "result.hands[1]: card 54
 * outside 0..53". On success out->owned is set when arrays were allocated:
 * release them with ddz_event_clear(). On failure nothing stays allocated
 * and out->type is the type if it was known (else 0). */
int ddz_event_parse(const json_t *j, ddz_event *out, char *err, size_t errlen);

/* Like ddz_event_parse() on the JSON text text[0..len); DDZ_ESYNTAX also
 * when the text is not one JSON value or repeats a key. */
int ddz_event_parse_text(const char *text, size_t len, ddz_event *out, char *err, size_t errlen);

/* Reads text[0..len) when it is a move's event (turn, bid_made, played)
 * exactly as ddz_event_dump() writes it, without a JSON tree: what a
 * client of 10,000 players spends the most on. Anything else, however
 * valid (another key order, spaces, another event), is declined and left
 * to ddz_event_parse_text(), which calls this first. Returns 1 with *out
 * as ddz_event_parse_text() would give it (owned: the legal plays), 0
 * when declined or out of memory (*out then zeroed, nothing held). Never
 * accepts what ddz_event_parse_text() would refuse. */
int ddz_event_parse_move(const char *text, size_t len, ddz_event *out);

/* Frees what ddz_event_parse() allocated in `e` (nothing if e->owned is
 * false, e.g. for an event whose arrays are the caller's) and zeroes `e`.
 * Never fails; safe on a zeroed event and to call twice. */
void ddz_event_clear(ddz_event *e);

/* Returns true when `a` and `b` are the same event: the same type and the
 * same value in every field their type prints (the contents of the arrays,
 * not their addresses; a state player's game fields only when in_game). */
bool ddz_event_equal(const ddz_event *a, const ddz_event *b);

#endif
