/* player.h - a person or bot known to the server: who it is, where it
 * sits, whether it is connected. players.c owns players (and decides who
 * is who); rooms, seats, competitions and connections point at them, and a
 * player is in at most one room (ddz__player_leave, room.h). */
#ifndef DDZ_PLAYER_H
#define DDZ_PLAYER_H

#include <stdbool.h>
#include <stdint.h>

typedef struct ddz_conn ddz_conn;
typedef struct ddz_player ddz_player;
typedef struct ddz_room ddz_room;

struct ddz_player {
    char id[16];           /* public id, "p17" */
    char name[129];        /* display name: 32 characters of UTF-8 */
    char resume[68];       /* secret resume token (hex) */
    bool bot;              /* identified with a bot token: `name` is the token's */
    int64_t account;       /* a person's account (hello's session, SPEC §15), 0 for a guest:
                              `name` is then the account's */
    uint8_t session[32];   /* BLAKE2b-256 of that session's text: which one it said */
    uint8_t token_id[32];  /* a bot's token (DDZ_TOKEN_ID_BYTES): revoked, it ends the bot */
    ddz_conn *conn;        /* NULL while disconnected */
    ddz_room *room;        /* room joined or watched, NULL if none */
    int seat;              /* 0..2, or -1 when spectating / not in a room */
    bool autopass;         /* pass for me when I cannot beat */
    int64_t gone_us;       /* when the connection dropped, 0 if connected */
    bool enlisted;         /* a competition seats it (a plug-in of host.h knows it) */
    int enlisted_in;       /* ... which one (its index among the server's plug-ins) */
    int64_t hints_us[4];   /* when its last hints were answered, oldest first (rate limit) */
    int64_t phrases_us[3]; /* when its last quick phrases were sent, oldest first */
    bool stood_up;         /* watches the room it was stood up in (spec §14): `join` sits again */
    bool seat_next;        /* watches, asked to sit while a game is on: seated when it ends */
    bool has_me;           /* it said its browser's own key in hello ("my games") */
    uint8_t me[32];        /* BLAKE2b-256 of that key: what the store keeps */
    int rated_rules;       /* rated quick play (rated.c): 1 + the index of the rule set it waits
                              for, 0 when it does not wait */
    struct rated_read *rated_read; /* ... its rating being read (not in the queue yet), or NULL */
    ddz_player *next;              /* in srv->players */
};

/* Microseconds between two looks at whether a table's players have been
 * told the last game's end (conn.h's ddz__conn_settled(), host.h's
 * ddz_host_settled()) before the next is dealt: a commit's time while the
 * database answers, --db-timeout at most once when it stops answering. */
#define DDZ_SETTLE_POLL_US 20000

#endif
