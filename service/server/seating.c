/* seating.c - makes every seat a server table holds (seating.h). */
#include <sodium.h>
#include <stdio.h>
#include <string.h>

#include "rules/error.h"
#include "service/seats/seats.h"
#include "service/server/budget.h"
#include "service/server/context.h"
#include "service/server/seat_player.h"
#include "service/server/seating.h"

/* A player's seat: its own while it is connected; otherwise a seat that
 * nobody answers and the table charges (a competition does not wait). */
static ddz_seat *player_seat(ddz_srv *srv, const ddz_seat_want *w, int *err, char *msg,
                             size_t msglen)
{
    ddz_seat *s = NULL;
    if (w->player && w->player->conn) {
        s = ddz__seat_player_create(srv, w->player);
    } else {
        ddz_seat_env env = {.loop = &srv->loop.base};
        s = ddz_seat_absent_create(w->name ? w->name : "", w->charge_at_once, &env, err);
    }
    if (!s) {
        *err = DDZ_ENOMEM;
        snprintf(msg, msglen, "out of memory");
    }
    return s;
}

ddz_seat *ddz__seat_make(ddz_srv *srv, const ddz_seat_want *w, int *err, char *msg, size_t msglen)
{
    msg[0] = '\0';
    if (!w->spec)
        return player_seat(srv, w, err, msg, msglen);
    bool ai = strncmp(w->spec, "ai:", 3) == 0;
    if (ai && w->ai_budget && srv->budget.ais >= ddz__budget_max_ais(srv)) {
        ddz__budget_refused(srv, DDZ_BUDGET_AIS);
        *err = DDZ_EBUSY;
        snprintf(msg, msglen, "the hosted-AI budget is spent");
        return NULL;
    }
    const ddz_server_cfg *cfg = &srv->cfg;
    uint64_t seed = w->ai_seed;
    while (!seed)
        randombytes_buf(&seed, sizeof seed);
    ddz_seat_env env = {
        .loop = &srv->loop.base,
        .think = srv->think,
        /* the think pool's fair share and budget are per key: a client's
         * room's are its owner address's, metered; a competition's are its
         * own, never cut (its AIs are the server's reference points) */
        .think_key = w->think_key   ? w->think_key
                     : w->ai_budget ? "?"
                                    : "(server)",
        .think_metered = w->ai_budget,
        .allow_exec = w->allow_exec,
        .nengines = cfg->nengines,
        .engine_name = (const char *const *)cfg->engine_name,
        .engine_cmd = (const char *const *)cfg->engine_cmd,
        .engine_protocol = cfg->engine_protocol,
        .time_ms = w->time_ms,
        .kill_grace_ms = 0, /* the default grace: the engine module's thread waits it out */
        .engines_running = &srv->m.engines,
        .spawns_room = w->spawns_room,
        .spawns_addr = w->spawns_addr,
        .spawns_total = ddz__budget_spawns(srv),
        .ais_alive = &srv->budget.ais,
        .ais_created = &srv->budget.ais_created,
        .ai_seed = seed,
        .ai_budget_ms = w->ai_budget_ms,
    };
    char log_path[4400];
    if (cfg->engine_log_dir && w->log_name && !ai) {
        snprintf(log_path, sizeof log_path, "%s/%s.stderr.log", cfg->engine_log_dir, w->log_name);
        env.stderr_log = log_path;
    }
    *err = 0;
    return ddz_seat_create(w->spec, &env, err, msg, msglen);
}
