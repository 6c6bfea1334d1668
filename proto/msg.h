/* msg.h - the JSON protocol of proto/PROTOCOL.md, client to server:
 * requests parsed into a value and printed back. The server's events have
 * their own codec, proto/event.h.
 *
 * Parsing is strict (every field's type and range is checked, unknown
 * fields are ignored) and never trusts sizes: strings are bounded, card
 * lists go through proto/text's rules (0..53, no repeats).
 */
#ifndef DDZ_MSG_H
#define DDZ_MSG_H

#include <jansson.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "rules/cards.h"

#define DDZ_PROTOCOL_VERSION 1
#define DDZ_MSG_MAX (16 * 1024) /* largest frame a client may send */

enum ddz_req_type {
    DDZ_REQ_HELLO = 1,
    DDZ_REQ_LIST,
    DDZ_REQ_CREATE,
    DDZ_REQ_JOIN,
    DDZ_REQ_QUICK,
    DDZ_REQ_SPECTATE,
    DDZ_REQ_LEAVE,
    DDZ_REQ_BID,
    DDZ_REQ_PLAY,
    DDZ_REQ_AUTOPASS,
    DDZ_REQ_REMATCH,
    DDZ_REQ_ENLIST,  /* a bot offers itself to the competition the server runs */
    DDZ_REQ_CUSTODY, /* a person hands its seat to a hosted AI (托管) or takes it back */
    DDZ_REQ_HINT,    /* the seat to move asks for suggested plays */
    DDZ_REQ_PHRASE,  /* a quick phrase from the fixed list, by number */
    DDZ_REQ_READY,   /* between games of a casual room: the person is ready for the next */
    DDZ_NREQ
};

enum ddz_custody { DDZ_CUSTODY_AI = 0, DDZ_CUSTODY_FAULT };

/* Quick phrases are numbers into a fixed list that clients translate
 * (PROTOCOL.md): nobody types free text to strangers. */
#define DDZ_PHRASES 12

typedef struct ddz_room_opts {
    char name[161]; /* lobby name, 40 characters (UTF-8: up to 4 bytes each), "" = server picks */
    char rules[16]; /* rule set name */
    int time;       /* seconds per action, 3..300 */
    int games;      /* games per turn, 1..100 */
    bool priv;      /* unlisted */
    char password[257]; /* 64 characters, "" = none */
    char seats[3][48];  /* "" (open), "ai:NAME" or "engine:NAME" */
    char fill[48];      /* "" or "ai:NAME": fill empty seats at creation */
    bool bots;          /* remote bots may sit */
    bool autopass;      /* humans' default */
    int grace;          /* seconds a dropped seat waits, 0..600 */
    int custody;        /* enum ddz_custody */
    int pause;          /* seconds between games, 0..30 */
    bool redeal;        /* all three pass: the deal is dealt again and not counted (casual
                           rooms; only where the rule set's all-pass ends the game) */
    bool rated; /* a rated room (SPEC §15): its people must be signed in, its programs rated
                   hosted AIs; on the wire the request's top-level "rated" (create, quick) */
    bool held;  /* server-side, never on the wire: a competition table's games are HELD (stored
                   under a key told to nobody, shown to spectators without their cards) until
                   the competition publishes them (docs/decisions.md) */
} ddz_room_opts;

typedef struct ddz_req {
    int type;             /* enum ddz_req_type */
    char id[48];          /* the request's "id" as compact JSON, "" if absent */
    int version;          /* hello */
    char name[129];       /* hello: display name, 1..32 characters (UTF-8) */
    char resume[72];      /* hello: resume token, "" if absent */
    char token[72];       /* hello: bot token, "" if absent */
    char me[33];          /* hello: the browser's own key, 32 lower-case hex digits, "" if absent */
    char session[72];     /* hello: an account's session (SPEC §15), "" if absent */
    char room[33];        /* join, spectate: 1..32 bytes */
    int seat;             /* create, join: 0..2 or -1 */
    char password[257];   /* join, spectate: 64 characters */
    ddz_room_opts opts;   /* create; quick: only `rated` and `rules` ("" = the default set) */
    char ai[32];          /* quick: AI name, "" = default */
    uint32_t seq;         /* bid, play */
    int bid;              /* bid */
    ddz_cards cards;      /* play */
    bool on;              /* autopass, custody */
    int phrase;           /* phrase: 0..DDZ_PHRASES-1 */
    char competition[16]; /* enlist: "tournament", "ladder", or "" (whichever the server runs) */
} ddz_req;

/* A display name's length in characters (hello's `name`). */
#define DDZ_MSG_NAME_CHARS 32

/* Checks `name` against the rules of a display name, as hello's `name` is
 * checked (PROTOCOL.md, "Names"): 1 to DDZ_MSG_NAME_CHARS characters of
 * valid UTF-8, no control characters, nothing utf8.h's
 * ddz_utf8_name_flaw refuses (bidirectional controls, invisible
 * characters, ...), and none of the server's own names ("ai:...",
 * "engine:...", ...). Used wherever a name is shown as a player's that did
 * not come through hello: a bot token's. Returns 0, or DDZ_EFIELD (empty,
 * not UTF-8, too long, controls) or DDZ_ENAME, with `err` saying why,
 * beginning with `what` ("WHAT: U+202E is a bidirectional control"). */
int ddz_msg_display_name_check(const char *name, const char *what, char *err, size_t errlen);

/* Fills `o` with the defaults of PROTOCOL.md. */
void ddz_room_opts_default(ddz_room_opts *o);

/* Parses one client frame. Returns 0, or DDZ_ESYNTAX (not a JSON object, no
 * string "type"), DDZ_EUNKNOWN (unknown type), DDZ_EFIELD (a field missing,
 * of the wrong type or out of range), DDZ_ETOOLONG (over DDZ_MSG_MAX), with
 * `err` naming the problem. On DDZ_EFIELD and DDZ_EUNKNOWN, out->type and
 * out->id are still set so the error can name the request. */
int ddz_req_parse(const char *text, size_t len, ddz_req *out, char *err, size_t errlen);

/* Prints `r` as the JSON object it was parsed from (fields of its type
 * only). Returns a new object, NULL on allocation failure. */
json_t *ddz_req_print(const ddz_req *r);

/* Returns the protocol name of request type `type` ("hello", ...). */
const char *ddz_req_name(int type);

/* Returns a new JSON array of the codes in `c`, ascending, or NULL when out
 * of memory. */
json_t *ddz_msg_cards(ddz_cards c);

/* Serialises `j` compactly (reals with 15 significant digits:
 * DDZ_RECORD_JSON_FLAGS) and releases it. Returns malloc'd text, or NULL. */
char *ddz_msg_dump(json_t *j);

#endif
