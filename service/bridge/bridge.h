/* bridge.h - `ddz bridge`: a local CAAI engine playing in a remote room.
 *
 * Two layers, as everywhere in service/:
 *
 * - The translator (ddz_bridge_*) is a value with no I/O: it is fed the
 *   server's JSON frames and the engine's lines, and answers through the
 *   callbacks of a ddz_bridge_io (a CAAI line for the engine, a JSON request
 *   for the server, start or stop the engine, a log line). It runs the lobby
 *   flow (hello, list, join or create), turns events into CAAI lines and the
 *   engine's answers into `bid`/`play` requests, checks every
 *   acknowledgement, and catches the engine up after a reconnect.
 * - ddz_bridge_run() is the driver: one libwebsockets event loop holding the
 *   WebSocket client connection and the engine's stdout pipe (adopted as a
 *   raw file descriptor), reconnection with back-off, signals.
 *
 * Translation (SPEC 7, proto/PROTOCOL.md), own seat d:
 *
 *     game                    -> INFO 1,1,game,games,0,350*games,time
 *                                DEAL <d><hand>      (engine started if needed)
 *     bid_made (other seat)   -> BID <s><n>
 *     turn (own, bid)         -> BID WHAT; answer BID <d><n> -> {bid, seq}
 *     leftover                -> LEFTOVER <landlord><cards>
 *     turn (own, play)        -> PLAY WHAT; answer PLAY <d>... -> {play, seq}
 *     played (other seat)     -> PLAY <s><cards> | PLAY <s>-1
 *     played (own, auto)      -> PLAY <d>-1
 *     over                    -> GAMEOVER <winner> | ERROR <faulty> | nothing
 *                                (all passed)
 *     turn_over               -> engine stopped (a CAAI engine serves one
 *                                turn); `rematch` unless the turns are done
 *
 * An answer that does not parse, answers the wrong message or carries
 * another seat's letter is reported and NOT forwarded: the server's clock
 * then decides, exactly as for a silent engine. Legality is the server's
 * business; its `error` frames are reported.
 */
#ifndef DDZ_BRIDGE_H
#define DDZ_BRIDGE_H

#include <jansson.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "rules/view.h"

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

/* ---- the translator ---- */

/* What the translator asks of its driver. Every callback is required. */
typedef struct ddz_bridge_io {
    void *ctx;
    /* Starts a fresh engine process. Returns 0, or < 0 if it cannot be
     * started (the translator then answers nothing until the next game). */
    int (*engine_start)(void *ctx);
    /* Stops the engine process (SIGTERM, then SIGKILL). */
    void (*engine_stop)(void *ctx);
    /* Sends one CAAI line (no line end) to the engine. */
    void (*engine_send)(void *ctx, const char *line);
    /* Sends one JSON request to the server; reference stolen. Dropped by
     * the driver while disconnected (the resume catches up). */
    void (*server_send)(void *ctx, json_t *msg);
    /* A log line; `warn` marks a problem (engine or server misbehaving). */
    void (*log)(void *ctx, bool warn, const char *msg);
} ddz_bridge_io;

/* What the user asked for. Strings are borrowed for the bridge's life. */
typedef struct ddz_bridge_opts {
    const char *token;    /* bot token (`ddz token add`), required by rooms with bots */
    const char *name;     /* hello name; the server shows the token's name instead */
    const char *room;     /* room id to join, NULL = pick one (see ddz_bridge_on_frame) */
    const char *password; /* room password, NULL = none */
    int seat;             /* 0..2, -1 = any free seat */
    int turns;            /* stop after this many turns, 0 = play on (rematch) */
    /* For a room the bridge creates (no --room and no joinable room): */
    const char *fill; /* NULL or "ai:NAME": fill the other seats */
    int time;         /* seconds per action, 0 = server default */
    int games;        /* games per turn, 0 = server default */
} ddz_bridge_opts;

/* ddz_bridge_on_frame() results. */
enum ddz_bridge_status {
    DDZ_BRIDGE_GO = 0,  /* carry on */
    DDZ_BRIDGE_DONE,    /* the turns asked for are played */
    DDZ_BRIDGE_REFUSED, /* the server refused us (token, room, seat): logged */
    DDZ_BRIDGE_BYE,     /* the server is shutting down: logged */
};

enum { DDZ_BRIDGE_EXPECT_MAX = 64 };

/* One answer the engine owes. */
typedef struct ddz_bridge_expect {
    uint8_t kind;    /* DDZ_CAAI_NAME, DDZ_CAAI_OK, DDZ_CAAI_BID or DDZ_CAAI_PLAY */
    uint8_t ok_of;   /* DDZ_CAAI_OK: the word acknowledged */
    uint32_t seq;    /* BID/PLAY: the server's turn seq */
    uint32_t serial; /* BID/PLAY: the game it belongs to (ddz_bridge.serial) */
} ddz_bridge_expect;

typedef struct ddz_bridge {
    ddz_bridge_io io;
    ddz_bridge_opts opts;
    /* session */
    char resume[72]; /* from `welcome`, for the next hello */
    char player[16]; /* our player id from `welcome` */
    bool resumed;    /* the current connection said hello with `resume` */
    bool seated;     /* `joined` with a seat (or `state`) since the last welcome */
    bool joining;    /* a join or create is in flight */
    int seat;        /* own seat, -1 when not seated */
    char room[24];   /* room id */
    int time, games; /* room options (from `state`) */
    const ddz_rules *rules;
    /* engine */
    bool engine_up;  /* started and not known dead */
    bool named;      /* it answered DOUDIZHUVER since it started */
    bool in_game;    /* it was dealt a game whose end it was not yet told */
    uint32_t serial; /* games dealt to engines, ever; stamps expectations */
    int game;        /* 1-based game number in the turn */
    char commit[65]; /* the current game's commitment */
    ddz_view view;   /* what the engine was told of the current game */
    int nplays;      /* plays of the current game the engine knows */
    ddz_bridge_expect expect[DDZ_BRIDGE_EXPECT_MAX]; /* FIFO of owed answers */
    unsigned ehead, ecount;
    /* the engine's latest answer to a WHAT, to recognise its broadcast and
     * to resend it after a reconnect */
    bool answered;       /* set until the matching broadcast */
    uint8_t answer_kind; /* DDZ_CAAI_BID or DDZ_CAAI_PLAY */
    uint32_t answer_seq;
    int answer_bid;
    ddz_cards answer_cards;
    int turns_done; /* `turn_over`s seen */
    bool voted;     /* rematch asked for the turn just over */
    long warnings;  /* problems logged (tests count them) */
} ddz_bridge;

/* Initialises `b`. Never fails. */
void ddz_bridge_init(ddz_bridge *b, const ddz_bridge_io *io, const ddz_bridge_opts *opts);

/* Starts the engine now (it is otherwise started at the first game), so
 * that a broken command shows at once. Returns 0 or -1 (logged). */
int ddz_bridge_start(ddz_bridge *b);

/* The connection is open: sends `hello` (with the resume token after the
 * first welcome). */
void ddz_bridge_connected(ddz_bridge *b);

/* Handles one server frame. After `welcome` it sends `list`; on `rooms`,
 * unless seated: `join` opts.room, else the first listed room that allows
 * bots, has no password and a free seat (and is not playing), else
 * `create` a room {bots: true, fill, time, games} and sit in it.
 * Returns an enum ddz_bridge_status; a malformed frame is logged and
 * ignored (DDZ_BRIDGE_GO). */
int ddz_bridge_on_frame(ddz_bridge *b, const char *text, size_t len);

/* Handles one line from the engine (`bad`: it held a NUL byte). */
void ddz_bridge_on_engine_line(ddz_bridge *b, const char *line, size_t len, bool bad);

/* The engine exited or misbehaved past its limits (the driver has stopped
 * it): forget what it owed; a new one is started at the next game. */
void ddz_bridge_engine_died(ddz_bridge *b);

/* ---- the driver ---- */

typedef struct ddz_bridge_cfg {
    const char *url; /* ws[s]://HOST:PORT/ws */
    ddz_bridge_opts opts;
    const char *engine_cmd; /* shell command line of the engine */
    const char *engine_log; /* engine stderr file; NULL = our stderr */
    int retries;            /* reconnect attempts after a drop (back-off 1, 2, 4 .. 30 s) */
    bool insecure;          /* wss: accept self-signed or mismatched certificates */
    bool quiet;             /* log warnings only */
} ddz_bridge_cfg;

/* Runs the bridge until the turns are played, the server refuses or goes
 * away, or SIGINT/SIGTERM. Always stops the engine before returning.
 * Returns the exit status: 0 (turns played, or a signal), 1 (refused by the
 * server, the engine cannot be started, setup failed), 3 (the server shut
 * down, could not be reached, or the connection was lost for good). */
int ddz_bridge_run(const ddz_bridge_cfg *cfg);

#endif
