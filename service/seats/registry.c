/* registry.c - a seat from its spec: one line per kind. */
#include <stdio.h>
#include <string.h>

#include "rules/error.h"
#include "service/seats/seats.h"

static ddz_seat *make_ai(const char *arg, const ddz_seat_env *env, int *err)
{
    return ddz_seat_ai_create(arg, env, err);
}

static ddz_seat *make_exec(const char *arg, const ddz_seat_env *env, int *err)
{
    if (!env->allow_exec) {
        *err = DDZ_ENOTFOUND;
        return NULL;
    }
    /* until the engine says its NAME, records show its command */
    return ddz_seat_engine_create(arg, arg, env, err);
}

static ddz_seat *make_engine(const char *arg, const ddz_seat_env *env, int *err)
{
    for (int i = 0; i < env->nengines; i++)
        if (strcmp(env->engine_name[i], arg) == 0)
            return ddz_seat_program_create(env->engine_protocol ? env->engine_protocol[i]
                                                                : DDZ_SEAT_CAAI,
                                           env->engine_cmd[i], arg, env, err);
    *err = DDZ_ENOTFOUND;
    return NULL;
}

static ddz_seat *make_botzone(const char *arg, const ddz_seat_env *env, int *err)
{
    if (!env->allow_exec) {
        *err = DDZ_ENOTFOUND;
        return NULL;
    }
    return ddz_seat_botzone_create(arg, arg, env, err);
}

static ddz_seat *make_absent(const char *arg, const ddz_seat_env *env, int *err)
{
    return ddz_seat_absent_create(arg, false, env, err);
}

static ddz_seat *make_gone(const char *arg, const ddz_seat_env *env, int *err)
{
    return ddz_seat_absent_create(arg, true, env, err);
}

static const struct kind {
    const char *prefix;
    ddz_seat *(*make)(const char *arg, const ddz_seat_env *env, int *err);
} kinds[] = {
    {"ai:", make_ai},           {"exec:", make_exec},     {"engine:", make_engine},
    {"botzone:", make_botzone}, {"absent:", make_absent}, {"gone:", make_gone},
};

const char *ddz_seat_program_parse(const char *spec, int *protocol)
{
    static const struct {
        const char *prefix;
        int protocol;
    } forms[] = {{"exec:", DDZ_SEAT_CAAI}, {"botzone:", DDZ_SEAT_BOTZONE}};
    *protocol = DDZ_SEAT_CAAI; /* a bare command, as before there was a choice */
    const char *cmd = spec;
    for (size_t i = 0; i < sizeof forms / sizeof forms[0]; i++) {
        size_t n = strlen(forms[i].prefix);
        if (strncmp(spec, forms[i].prefix, n) == 0) {
            *protocol = forms[i].protocol;
            cmd = spec + n;
            break;
        }
    }
    return cmd[0] ? cmd : NULL;
}

ddz_seat *ddz_seat_program_create(int protocol, const char *cmd, const char *label,
                                  const ddz_seat_env *env, int *err)
{
    switch (protocol) {
    case DDZ_SEAT_CAAI:
        return ddz_seat_engine_create(cmd, label, env, err);
    case DDZ_SEAT_BOTZONE:
        return ddz_seat_botzone_create(cmd, label, env, err);
    default:
        *err = DDZ_EINVAL;
        return NULL;
    }
}

ddz_seat *ddz_seat_create(const char *spec, const ddz_seat_env *env, int *err, char *msg,
                          size_t msglen)
{
    for (size_t i = 0; i < sizeof kinds / sizeof kinds[0]; i++) {
        size_t n = strlen(kinds[i].prefix);
        if (strncmp(spec, kinds[i].prefix, n) != 0)
            continue;
        ddz_seat *s = kinds[i].make(spec + n, env, err);
        if (!s)
            snprintf(msg, msglen, "%s: %s", spec,
                     *err == DDZ_ENOTFOUND ? "no such player here" : ddz_strerror(*err));
        return s;
    }
    *err = DDZ_ENOTFOUND;
    snprintf(msg, msglen, "'%s' is not a known kind of seat", spec);
    return NULL;
}
