/* bridge.h - `ddz bridge`: a local program playing in a remote room: a
 * CAAI engine, or with --botzone a Botzone bot.
 *
 * The bridge is a table driver of its own kind: the table is the server's,
 * known only from its JSON events, and our seat is one of the table's seat
 * adapters (service/table/seat.h). In `ddz bridge` that adapter is a
 * program seat of the protocol asked for (ddz_seat_program_create): the
 * CAAI engine seat (service/seats/seat_engine.c), which runs the one CAAI
 * session of the code base (service/engine/caai_seat.c), or the Botzone
 * seat (service/seats/seat_botzone.c), which builds spec §11's requests from
 * the same events; the same seats `ddz match` and rooms use. The translator
 * knows neither protocol: it speaks to the seat interface only. Two layers,
 * as everywhere in service/:
 *
 * - The translator (ddz_bridge_*) is a value with no I/O. It runs the lobby
 *   flow (hello or resume, list, join or create, rematch, leave), parses the
 *   server's frames with proto/event.h, turns them into the ddz_ev events a
 *   seat hears and hands them to the seat it was given; it asks the seat
 *   when our turn comes and sends the seat's answer as a request. Requests
 *   and log lines go out through the callbacks of a ddz_bridge_io.
 * - ddz_bridge_run() is the driver: one libwebsockets loop
 *   (service/net/lws_loop.h) holding the WebSocket client connection and
 *   the program seat's pipes and timers, reconnection with back-off, signals.
 *
 * Translation (proto/PROTOCOL.md -> service/table/ev.h), own seat d,
 * the seat being the bridge's only player (0):
 *
 *     game (with our hand)  -> GAME {seat d, cards: the hand}
 *     turn (another seat)   -> ASK_BID|ASK_PLAY, delivered
 *     turn (seat d)         -> ASK_BID|ASK_PLAY {seq}, asked (ops->ask); the
 *                              seat's answer (host.act) -> {bid|play, seq}
 *     bid_made              -> BID
 *     leftover              -> LEFTOVER
 *     played                -> PLAY (`auto`: autopass), own plays included
 *     over                  -> OVER {winner, fault seat and kind}; a request
 *                              left unanswered is cancelled first
 *     turn_over             -> SERIES; `rematch`, or `leave` after opts.turns
 *     state (a resume)      -> what the seat has not heard of the game being
 *                              played, once: GAME (the hand as dealt), BID,
 *                              LEFTOVER, PLAY, then ASK if it is our turn (or
 *                              our answer again, if it was lost); between
 *                              games, the OVER of the game that ended while
 *                              we were away (its `result`)
 *
 * The engine seat makes of these the CAAI lines of spec §7 (INFO and DEAL,
 * BID WHAT, BID, LEFTOVER, PLAY WHAT, PLAY, GAMEOVER or ERROR, nothing after
 * all passed). host.info gives INFO its numbers: turn = turns played + 1,
 * turns = the larger of opts.turns and turn, game and games from the `game`
 * event, up = 0, maxscore = ddz_rules_maxscore(the room's rules, games),
 * time = the room's time. The engine process serves every turn; one that
 * exits after a turn's last game, or fails, is started again for the next
 * game. The Botzone seat makes of them spec §11's requests (its hand, the
 * bids, the leftover and the last two plays are all in these events, under
 * every rule set) and runs the bot when asked: a process per request, or
 * one per game if the bot asks to keep running.
 *
 * Time. The room's clock (the server's) times every bid and play, the
 * bot's process start included; the `turn` deadline is passed on to the
 * seat. The bridge sets no limit of its own on an answer (only a CAAI
 * engine's acknowledgements of other lines are timed by its seat, with
 * --time): when the server charges our seat, the end of the game or the
 * referee's stand-in move for it cancels the request, and the seat stops a
 * program still thinking.
 *
 * Enlisting (opts.enlist, `ddz bridge --enlist`): after `welcome` the
 * bridge sends `enlist` instead of `list`, then plays wherever the server
 * seats it (`joined`, `state`, the table's events); after a table's
 * `turn_over` it neither votes nor leaves, and waits for the next `joined`.
 * `released` ends it (DDZ_BRIDGE_DONE).
 *
 * Faults (spec §6). The bridge cannot charge its own seat. A seat that fails
 * (host.fault: the engine seat found a malformed or unexpected reply or
 * another seat's letter, the engine crashed or missed an acknowledgement's
 * time; the Botzone seat found an answer that is not spec §11's, or the bot
 * crashed; either stopped its program) is logged and sits out the rest of
 * that game: it owes nothing, and the server's clock times our seat out,
 * after which the room's rule set decides (the game ends, or under
 * botzone-ftl2 the referee plays our seat to the end). An illegal bid or
 * play is sent as the program gave it: the server charges a bot's illegal
 * action as a fault at once. A seat that fails DDZ_BRIDGE_GIVE_UP times
 * before its program ever answered a request or said its name (CAAI)
 * cannot play at all: the bridge gives up (io.give_up).
 */
#ifndef DDZ_BRIDGE_H
#define DDZ_BRIDGE_H

#include <jansson.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "rules/deal.h"
#include "rules/ruleset.h"
#include "service/table/seat.h"

/* ---- URLs ---- */

typedef struct ddz_url {
    bool tls;           /* wss:// */
    char host[256];     /* name or address, without brackets */
    int port;           /* 80 / 443 when not given */
    char path[256];     /* begins with '/', "/" when not given */
    char hostport[270]; /* "host:port" for the Host header */
} ddz_url;

/* Parses `ws://HOST[:PORT][/PATH]` or `wss://...` (an IPv6 HOST in
 * brackets). Returns 0, or DDZ_EINVAL for anything else (another scheme, an
 * empty host, a bad port, a part too long). */
int ddz_url_parse(const char *url, ddz_url *out);

/* Whether a bridge connected at `from` may follow a `redirect` to `to`.
 * Returns 0, or DDZ_EINVAL with err set (a sentence to print) for a
 * redirect from wss:// to ws://, which would send our bot token in clear
 * (REFUSED: a server, or whoever can write into its connection, must not
 * be able to lower the scheme the operator chose), or from ws:// to
 * wss:// (TLS is set up for a wss:// start only). A redirect to another
 * host or port is followed: the nodes of a cluster each have their own
 * --public-url, and over wss:// the certificate is checked against the
 * new host as it was against the first (docs/decisions.md). */
int ddz_bridge_redirect_ok(const ddz_url *from, const ddz_url *to, char *err, size_t errlen);

/* ---- the translator ---- */

/* What the translator asks of its driver. */
typedef struct ddz_bridge_io {
    void *ctx;
    /* Sends one JSON request to the server; reference stolen. Dropped by
     * the driver while disconnected (the resume catches up). Required. */
    void (*server_send)(void *ctx, json_t *msg);
    /* A log line; `warn` marks a problem (engine or server misbehaving).
     * Required. */
    void (*log)(void *ctx, bool warn, const char *msg);
    /* The seat cannot play (see DDZ_BRIDGE_GIVE_UP; `why` says so): the
     * driver should stop. NULL = carry on. */
    void (*give_up)(void *ctx, const char *why);
} ddz_bridge_io;

/* What the user asked for. Strings are borrowed for the bridge's life. */
typedef struct ddz_bridge_opts {
    const char *token;       /* bot token (`ddz token add`), required by rooms with bots */
    const char *name;        /* hello name; the server shows the token's name instead */
    const char *room;        /* room id to join, NULL = pick one (see ddz_bridge_on_frame) */
    const char *password;    /* room password, NULL = none */
    int seat;                /* 0..2, -1 = any free seat */
    int turns;               /* stop after this many turns, 0 = play on (rematch) */
    bool enlist;             /* `enlist` for the server's competition instead of choosing a room:
                                the server seats us table after table until `released` */
    const char *competition; /* with enlist: "tournament", "ladder", or NULL (the server's
                                choice: its tournament if it runs one, else its ladder) */
    /* For a room the bridge creates (no --room and no joinable room): */
    const char *fill;  /* NULL or "ai:NAME": fill the other seats */
    int time;          /* seconds per action, 0 = server default */
    int games;         /* games per turn, 0 = server default */
    const char *rules; /* rule set name, NULL = server default (caai) */
} ddz_bridge_opts;

/* ddz_bridge_on_frame() results. */
enum ddz_bridge_status {
    DDZ_BRIDGE_GO = 0,   /* carry on */
    DDZ_BRIDGE_DONE,     /* the turns asked for are played */
    DDZ_BRIDGE_REFUSED,  /* the server refused us (token, room, seat): logged */
    DDZ_BRIDGE_BYE,      /* the server is shutting down: logged */
    DDZ_BRIDGE_REDIRECT, /* another node serves us: connect to b->redirect (hello, then the lobby
                          * flow again, joining b->target_room if the redirect named one) */
    DDZ_BRIDGE_RETRY,    /* the server cannot take us now (EDB: its database is away or not
                          * answering): connect again after a while, as after a lost connection */
};

/* Redirects followed in a row before the bridge gives up (a cluster whose
 * nodes disagree about where a room lives must not bounce us forever);
 * being seated or enlisted starts the count again. */
enum { DDZ_BRIDGE_MAX_HOPS = 3 };

/* Failures of a seat that never answered nor said its name before giving up. */
enum { DDZ_BRIDGE_GIVE_UP = 3 };

typedef struct ddz_bridge {
    ddz_bridge_io io;
    ddz_bridge_opts opts;
    ddz_seat *adapter; /* plays our seat (borrowed): a program seat, or a test's */
    /* session */
    char resume[72];        /* from `welcome`, for the next hello */
    char player[16];        /* our player id from `welcome` */
    bool resumed;           /* the current connection said hello with `resume` */
    bool seated;            /* `joined` with a seat (or `state`) since the last welcome */
    bool enlisted;          /* `enlisted` since the last welcome */
    bool joining;           /* a join or create is in flight */
    int seat;               /* own seat, -1 when not seated */
    char room[33];          /* room id */
    char redirect[256];     /* the URL of the last `redirect` (DDZ_BRIDGE_REDIRECT) */
    char target_room[33];   /* the room a redirect named: join it on the next `rooms` */
    int hops;               /* redirects since we were last seated or enlisted */
    int time;               /* the room's seconds per action (from `state`), 0 = unknown */
    const ddz_rules *rules; /* the room's rule set */
    /* the game the seat plays */
    bool in_game;                   /* the seat was dealt it and not told its end */
    bool failed;                    /* the seat failed in it: it hears no more of it */
    int game, games;                /* 1-based game number in the turn; games per turn */
    uint8_t commit[DDZ_SEED_BYTES]; /* the game's commitment */
    int8_t heard_bid[3];            /* bids the seat heard of, -1 = none yet */
    bool heard_leftover;            /* it heard of the leftover */
    int heard_plays;                /* plays it heard of */
    int64_t heard_ask;              /* seq of the last turn it heard of, -1 = none */
    /* our open request, and the seat's answer to resend after a reconnect */
    bool asked;         /* the seat was asked ask_seq and the table has not moved on */
    bool answered;      /* ...and it answered: the answer was sent */
    uint8_t ask_action; /* DDZ_EV_ASK_BID or DDZ_EV_ASK_PLAY */
    uint32_t ask_seq;
    int answer_bid;
    ddz_cards answer_cards;
    int turns_done;     /* `turn_over`s seen */
    bool voted;         /* rematch asked for the turn just over */
    bool proven;        /* an answer of the seat was sent at least once */
    int early_failures; /* seat failures before it answered or said its name */
    long warnings;      /* problems logged (tests count them) */
} ddz_bridge;

/* Initialises `b` to play through `adapter`, whose host (act, fault, note,
 * info) and player (0) it sets; the adapter stays the caller's, to close
 * after the bridge is done. Never fails. */
void ddz_bridge_init(ddz_bridge *b, ddz_seat *adapter, const ddz_bridge_io *io,
                     const ddz_bridge_opts *opts);

/* The connection is open: sends `hello` (with the resume token after the
 * first welcome). Never fails. */
void ddz_bridge_connected(ddz_bridge *b);

/* Handles one server frame. A `redirect` (another node of a cluster serves
 * the request) forgets the resume token, which only the node that gave it
 * knows, and returns DDZ_BRIDGE_REDIRECT, or DDZ_BRIDGE_REFUSED past
 * DDZ_BRIDGE_MAX_HOPS redirects in a row (logged). After `welcome` it sends `list`; on `rooms`,
 * unless seated: `join` opts.room (or the room a redirect named), else the first listed room that
 * allows bots, has no password and a free seat (and is not playing), else `create` a room {bots:
 * true, fill, time, games, rules} and sit in it. Game events go to the seat as the table above
 * says. Returns an enum ddz_bridge_status; a frame proto/event.h does not accept is logged and
 * ignored (DDZ_BRIDGE_GO). */
int ddz_bridge_on_frame(ddz_bridge *b, const char *text, size_t len);

/* ---- the driver ---- */

typedef struct ddz_bridge_cfg {
    const char *url; /* ws[s]://HOST:PORT/ws */
    ddz_bridge_opts opts;
    const char *engine_cmd; /* shell command line of the program */
    int protocol;           /* enum ddz_seat_protocol: DDZ_SEAT_CAAI, DDZ_SEAT_BOTZONE */
    const char *engine_log; /* the program's stderr file; NULL = our stderr */
    int retries;            /* reconnect attempts after a drop (back-off 1, 2, 4 .. 30 s) */
    bool insecure;          /* wss: accept self-signed or mismatched certificates */
    bool quiet;             /* log warnings only */
    int event_loop;         /* enum ddz_evloop_kind (service/net/evloop.h), 0 = auto */
} ddz_bridge_cfg;

/* Runs the bridge until the turns are played, the server refuses or goes
 * away, the program cannot play, or SIGINT/SIGTERM. Always stops the
 * program before returning. Returns the exit status: 0 (turns played, or a
 * signal), 1 (refused by the server, the program cannot be started or never
 * answers nor says its name, setup failed), 2 (the URL is not ws:// or
 * wss://), 3 (the server shut down, could not be reached, or the connection
 * was lost for good). */
int ddz_bridge_run(const ddz_bridge_cfg *cfg);

#endif
