/* seats.h - the seat kinds that need no network server, and the registry
 * that makes a seat from its spec.
 *
 *     ai:NAME        a hosted AI (seat_ai.c): on the think pool when one is
 *                    given, else on the loop thread
 *     exec:COMMAND   a CAAI 1.0 engine process (seat_engine.c), where the
 *                    environment allows commands (`ddz match`)
 *     engine:NAME    an operator's engine from the environment's list: a
 *                    CAAI engine or a Botzone bot, as the operator said
 *     botzone:COMMAND a Botzone-protocol bot (spec §11, seat_botzone.c),
 *                    where `exec:` is allowed
 *     absent:NAME    a competition's bot that is not here (seat_absent.c):
 *                    nobody answers, the clock charges it
 *     gone:NAME      the same, charged a crash at once when asked
 *
 * Adding a kind is a new seat_KIND.c and one line in registry.c.
 */
#ifndef DDZ_SEATS_H
#define DDZ_SEATS_H

#include "service/engine/spawn_budget.h"
#include "service/seats/think.h"
#include "service/table/seat.h"

/* The protocol a program (a local child process) speaks. */
enum ddz_seat_protocol {
    DDZ_SEAT_CAAI = 0, /* CAAI 1.0 engine (spec §7): seat_engine.c */
    DDZ_SEAT_BOTZONE,  /* Botzone FightTheLandlord bot (spec §11): seat_botzone.c */
};

/* What a seat may need from where it is made. */
typedef struct ddz_seat_env {
    ddz_loop *loop;                 /* required */
    ddz_think *think;               /* hosted AIs think here; NULL = on the loop thread */
    const char *think_key;          /* whose thinking it is on `think` (think.h); NULL = "" */
    bool think_metered;             /* the key's budget of thinking time applies */
    ddz_ai_workspace *workspace;    /* for decisions on the loop thread (no `think`);
                                       NULL = each AI seat makes its own */
    bool allow_exec;                /* `exec:COMMAND` allowed (never from the network) */
    int nengines;                   /* operator engines for `engine:NAME` */
    const char *const *engine_name; /* [nengines] */
    const char *const *engine_cmd;  /* [nengines] */
    const int *engine_protocol;     /* [nengines] enum ddz_seat_protocol; NULL = all CAAI */
    const char *stderr_log;         /* engines' stderr file; NULL = discarded */
    int time_ms;                    /* per action (engines' acknowledgements too) */
    int kill_grace_ms;              /* engines: SIGTERM -> SIGKILL; 0 = default, < 0 = at once */
    long *engines_running;          /* counts engine processes; NULL = not counted */
    ddz_spawn_budget *spawns_room;  /* starts of this room's engines; NULL = no bound */
    ddz_spawn_budget *spawns_addr;  /* starts for the client address that made the room;
                                       NULL = no bound (an operator's table) */
    ddz_spawn_budget *spawns_total; /* starts of every engine; NULL = no bound */
    long *ais_alive;                /* counts hosted AI objects until freed; NULL = not counted */
    long *ais_created;              /* counts hosted AIs made; NULL = not counted */
    uint64_t ai_seed;               /* hosted AIs' random stream */
    int ai_budget_ms;               /* per decision; 0 = the AI's default */
} ddz_seat_env;

/* Makes the seat `spec` describes. Returns it (not yet placed at a table),
 * or NULL with *err = DDZ_ENOTFOUND (unknown kind, AI or engine name: `msg`
 * says which), DDZ_EINVAL (an empty command) or DDZ_ENOMEM. */
ddz_seat *ddz_seat_create(const char *spec, const ddz_seat_env *env, int *err, char *msg,
                          size_t msglen);

/* Reads an operator's program, `exec:COMMAND` or a bare `COMMAND` (a CAAI
 * engine) or `botzone:COMMAND` (a Botzone bot): sets *protocol (enum
 * ddz_seat_protocol) and returns COMMAND, a pointer into `spec`. Returns
 * NULL if COMMAND is empty. */
const char *ddz_seat_program_parse(const char *spec, int *protocol);

/* A program seat: `cmd` run as a child process speaking `protocol`, named
 * `label` until it says a name of its own (CAAI). Returns the seat, or NULL
 * with *err = DDZ_EINVAL (empty command, unknown protocol) or DDZ_ENOMEM. */
ddz_seat *ddz_seat_program_create(int protocol, const char *cmd, const char *label,
                                  const ddz_seat_env *env, int *err);

/* The constructors behind the registry. Each returns the seat, or NULL
 * with *err set as ddz_seat_create says. */
ddz_seat *ddz_seat_ai_create(const char *name, const ddz_seat_env *env, int *err);
ddz_seat *ddz_seat_engine_create(const char *cmd, const char *label, const ddz_seat_env *env,
                                 int *err);

/* A Botzone-protocol bot run as `cmd` (spec §11), named `label` in
 * records. Returns the seat (no process starts until it is asked to act),
 * or NULL with *err = DDZ_EINVAL (empty command) or DDZ_ENOMEM. */
ddz_seat *ddz_seat_botzone_create(const char *cmd, const char *label, const ddz_seat_env *env,
                                  int *err);

/* A seat nobody plays, shown as NAME (seat_absent.c): charged a crash
 * when asked if `at_once`, else by the clock. Returns the seat, or NULL
 * with *err = DDZ_ENOMEM. */
ddz_seat *ddz_seat_absent_create(const char *name, bool at_once, const ddz_seat_env *env, int *err);

/* Returns whether `s` is an absent or gone seat (NULL-safe). */
bool ddz_seat_is_absent(const ddz_seat *s);

/* Returns how often an engine seat's process was started again (0 for
 * other kinds). */
long ddz_seat_engine_restarts(const ddz_seat *s);

/* Called on the loop thread with a job the think pool finished: hands the
 * decision to the AI seat that asked, or frees the job if that seat has
 * gone. */
void ddz_seat_ai_done(ddz_think_job *job);

#endif
