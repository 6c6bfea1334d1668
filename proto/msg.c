/* msg.c - requests in and out, card arrays. */
#include "msg.h"

#include <stdio.h>
#include <string.h>
#include <strings.h>

#include "proto/fail.h"
#include "proto/record_json.h"
#include "proto/text.h"
#include "proto/utf8.h"
#include "rules/error.h"

static const char *const req_names[DDZ_NREQ] = {
    NULL,   "hello",    "list",    "create", "join",    "quick", "spectate", "leave", "bid",
    "play", "autopass", "rematch", "enlist", "custody", "hint",  "phrase",   "ready"};

const char *ddz_req_name(int type)
{
    return type > 0 && type < DDZ_NREQ ? req_names[type] : "unknown";
}

void ddz_room_opts_default(ddz_room_opts *o)
{
    memset(o, 0, sizeof *o);
    snprintf(o->rules, sizeof o->rules, "caai");
    o->time = 30;
    o->games = 6;
    o->autopass = true;
    o->grace = 60;
    o->custody = DDZ_CUSTODY_AI;
    o->pause = 3;
    /* CAAI's rule unless the room asks: scripts, bots and engines see the
     * rule of the competitions they train for; quick play and the web
     * client's room form ask for the redeal players expect */
    o->redeal = false;
}

/* Field readers: each returns 0, or DDZ_EFIELD with err set. `need` says
 * whether a missing field is an error (else the output is left as is). */
static int get_str(json_t *o, const char *key, char *out, size_t cap, size_t maxchars, bool need,
                   char *err, size_t errlen)
{
    json_t *v = json_object_get(o, key);
    if (!v)
        return need ? ddz_fail(DDZ_EFIELD, err, errlen, "%s: missing", key) : 0;
    if (!json_is_string(v))
        return ddz_fail(DDZ_EFIELD, err, errlen, "%s: must be a string", key);
    const char *s = json_string_value(v);
    size_t len = json_string_length(v);
    /* characters counted as valid UTF-8: jansson rejects any other */
    if (len >= cap || ddz_utf8_chars(s) > maxchars || strlen(s) != len)
        return ddz_fail(DDZ_EFIELD, err, errlen, "%s: at most %zu characters", key, maxchars);
    /* C0, DEL and C1, as the CAAI name codec does */
    if (ddz_utf8_has_controls(s, len))
        return ddz_fail(DDZ_EFIELD, err, errlen, "%s: control characters are not allowed", key);
    memcpy(out, s, len + 1);
    return 0;
}

/* Names the server gives its own players and tables, which nobody may
 * take as a display name (`who`) or a room's name (`room`): what the
 * browser shows as a hosted AI or an engine ("ai:strong", "电脑·西", "AI·
 * West"), a seat kind of the registry, and a competition table's name
 * ("Tournament: final 1, table 2", "Ladder 1/3: …"). Prefixes, compared
 * without regard to ASCII case. */
static const char *const reserved_who[] = {
    "ai:", "engine:", "exec:", "botzone:", "absent:", "gone:", "ai\u00b7", "\u7535\u8111", NULL};
static const char *const reserved_room[] = {"tournament", "ladder", NULL};

/* Returns the entry of `list` that `s` begins with, or NULL. */
static const char *reserved_prefix(const char *s, const char *const *list)
{
    for (; *list; list++)
        if (strncasecmp(s, *list, strlen(*list)) == 0)
            return *list;
    return NULL;
}

/* Whether `s` is "Room N", the name the server gives a room that was given
 * none (the browser shows it in the viewer's language). */
static bool server_room_name(const char *s)
{
    return strncmp(s, "Room ", 5) == 0 && s[5] && strspn(s + 5, "0123456789") == strlen(s + 5);
}

/* Whether the valid UTF-8 `s` (no controls: THE CALLER CHECKS) would do
 * as a name people read: a display name (`room` false) or a room's name
 * (true). Returns 0, or DDZ_ENAME with err set ("KEY: ...") for a name
 * utf8.h's ddz_utf8_name_flaw refuses or one of the server's own (above). */
static int name_ok(const char *s, const char *key, bool room, char *err, size_t errlen)
{
    uint32_t cp;
    const char *flaw = ddz_utf8_name_flaw(s, strlen(s), &cp);
    if (flaw)
        return ddz_fail(DDZ_ENAME, err, errlen, "%s: U+%04X is %s", key, (unsigned)cp, flaw);
    const char *r = reserved_prefix(s, room ? reserved_room : reserved_who);
    if (r || (room && server_room_name(s)))
        return ddz_fail(DDZ_ENAME, err, errlen, "%s: names like this are the server's own", key);
    return 0;
}

/* get_str for a name people read: a display name (`room` false) or a
 * room's name (true). Returns 0, DDZ_EFIELD as get_str, or DDZ_ENAME as
 * name_ok. */
static int get_name(json_t *o, const char *key, char *out, size_t cap, size_t maxchars, bool need,
                    bool room, char *err, size_t errlen)
{
    int rc = get_str(o, key, out, cap, maxchars, need, err, errlen);
    if (rc || !out[0])
        return rc;
    return name_ok(out, key, room, err, errlen);
}

int ddz_msg_display_name_check(const char *name, const char *what, char *err, size_t errlen)
{
    size_t len = name ? strlen(name) : 0;
    if (len == 0)
        return ddz_fail(DDZ_EFIELD, err, errlen, "%s: empty", what);
    if (!ddz_utf8_valid(name, len))
        return ddz_fail(DDZ_EFIELD, err, errlen, "%s: not valid UTF-8", what);
    if (ddz_utf8_chars(name) > DDZ_MSG_NAME_CHARS)
        return ddz_fail(DDZ_EFIELD, err, errlen, "%s: at most %d characters", what,
                        DDZ_MSG_NAME_CHARS);
    if (ddz_utf8_has_controls(name, len))
        return ddz_fail(DDZ_EFIELD, err, errlen, "%s: control characters are not allowed", what);
    return name_ok(name, what, false, err, errlen);
}

static int get_int(json_t *o, const char *key, int lo, int hi, int *out, bool need, char *err,
                   size_t errlen)
{
    json_t *v = json_object_get(o, key);
    if (!v)
        return need ? ddz_fail(DDZ_EFIELD, err, errlen, "%s: missing", key) : 0;
    if (!json_is_integer(v) || json_integer_value(v) < lo || json_integer_value(v) > hi)
        return ddz_fail(DDZ_EFIELD, err, errlen, "%s: must be an integer from %d to %d", key, lo,
                        hi);
    *out = (int)json_integer_value(v);
    return 0;
}

static int get_bool(json_t *o, const char *key, bool *out, bool need, char *err, size_t errlen)
{
    json_t *v = json_object_get(o, key);
    if (!v)
        return need ? ddz_fail(DDZ_EFIELD, err, errlen, "%s: missing", key) : 0;
    if (!json_is_boolean(v))
        return ddz_fail(DDZ_EFIELD, err, errlen, "%s: must be true or false", key);
    *out = json_is_true(v);
    return 0;
}

/* seat: absent or null = -1, else 0..2 */
static int get_seat(json_t *o, int *out, char *err, size_t errlen)
{
    json_t *v = json_object_get(o, "seat");
    *out = -1;
    if (!v || json_is_null(v))
        return 0;
    return get_int(o, "seat", 0, 2, out, true, err, errlen);
}

static int get_player_spec(json_t *v, char *out, size_t cap, const char *what, char *err,
                           size_t errlen)
{
    out[0] = '\0';
    if (!v || json_is_null(v))
        return 0;
    const char *s = json_string_value(v);
    if (!s || json_string_length(v) >= cap ||
        (strncmp(s, "ai:", 3) != 0 && strncmp(s, "engine:", 7) != 0) || !s[s[0] == 'a' ? 3 : 7])
        return ddz_fail(DDZ_EFIELD, err, errlen, "%s: must be null, \"ai:NAME\" or \"engine:NAME\"",
                        what);
    snprintf(out, cap, "%s", s);
    return 0;
}

static int get_opts(json_t *o, ddz_room_opts *opts, char *err, size_t errlen)
{
    ddz_room_opts_default(opts);
    if (!o)
        return 0;
    if (!json_is_object(o))
        return ddz_fail(DDZ_EFIELD, err, errlen, "options: must be an object");
    int rc;
    char custody[8] = "";
    if ((rc = get_name(o, "name", opts->name, sizeof opts->name, 40, false, true, err, errlen)) ||
        (rc = get_str(o, "rules", opts->rules, sizeof opts->rules, 15, false, err, errlen)) ||
        (rc = get_int(o, "time", 3, 300, &opts->time, false, err, errlen)) ||
        (rc = get_int(o, "games", 1, 100, &opts->games, false, err, errlen)) ||
        (rc = get_bool(o, "private", &opts->priv, false, err, errlen)) ||
        (rc = get_str(o, "password", opts->password, sizeof opts->password, 64, false, err,
                      errlen)) ||
        (rc = get_bool(o, "bots", &opts->bots, false, err, errlen)) ||
        (rc = get_bool(o, "autopass", &opts->autopass, false, err, errlen)) ||
        (rc = get_int(o, "grace", 0, 600, &opts->grace, false, err, errlen)) ||
        (rc = get_int(o, "pause", 0, 30, &opts->pause, false, err, errlen)) ||
        (rc = get_bool(o, "redeal", &opts->redeal, false, err, errlen)) ||
        (rc = get_str(o, "custody", custody, sizeof custody, 5, false, err, errlen)))
        return rc;
    if (custody[0] && strcmp(custody, "ai") != 0 && strcmp(custody, "fault") != 0)
        return ddz_fail(DDZ_EFIELD, err, errlen, "options.custody: must be \"ai\" or \"fault\"");
    opts->custody = strcmp(custody, "fault") == 0 ? DDZ_CUSTODY_FAULT : DDZ_CUSTODY_AI;
    json_t *fill = json_object_get(o, "fill");
    if ((rc = get_player_spec(fill, opts->fill, sizeof opts->fill, "options.fill", err, errlen)))
        return rc;
    if (opts->fill[0] && strncmp(opts->fill, "ai:", 3) != 0)
        return ddz_fail(DDZ_EFIELD, err, errlen, "options.fill: must be null or \"ai:NAME\"");
    json_t *seats = json_object_get(o, "seats");
    if (seats && !json_is_null(seats)) {
        if (!json_is_array(seats) || json_array_size(seats) != 3)
            return ddz_fail(DDZ_EFIELD, err, errlen, "options.seats: must be an array of 3");
        for (int s = 0; s < 3; s++)
            if ((rc = get_player_spec(json_array_get(seats, (size_t)s), opts->seats[s],
                                      sizeof opts->seats[s], "options.seats[]", err, errlen)))
                return rc;
    }
    return 0;
}

static int get_cards(json_t *o, ddz_cards *out, char *err, size_t errlen)
{
    json_t *a = json_object_get(o, "cards");
    if (!json_is_array(a))
        return ddz_fail(DDZ_EFIELD, err, errlen, "cards: must be an array of card codes");
    if (json_array_size(a) > DDZ_HAND_MAX)
        return ddz_fail(DDZ_EFIELD, err, errlen, "cards: at most %d cards", DDZ_HAND_MAX);
    ddz_cards c = 0;
    size_t i;
    json_t *v;
    json_array_foreach(a, i, v)
    {
        if (!json_is_integer(v) || json_integer_value(v) < 0 || json_integer_value(v) >= DDZ_NCARDS)
            return ddz_fail(DDZ_EFIELD, err, errlen, "cards[%zu]: must be a card code 0..53", i);
        ddz_cards bit = 1ULL << json_integer_value(v);
        if (c & bit)
            return ddz_fail(DDZ_EFIELD, err, errlen, "cards[%zu]: card %lld repeated", i,
                            (long long)json_integer_value(v));
        c |= bit;
    }
    *out = c;
    return 0;
}

static int parse_fields(json_t *o, ddz_req *r, char *err, size_t errlen)
{
    int rc = 0, seq = 0;
    switch (r->type) {
    case DDZ_REQ_HELLO:
        if ((rc = get_int(o, "version", 1, 1000, &r->version, true, err, errlen)) ||
            (rc = get_name(o, "name", r->name, sizeof r->name, DDZ_MSG_NAME_CHARS, true, false, err,
                           errlen)) ||
            (rc = get_str(o, "resume", r->resume, sizeof r->resume, 64, false, err, errlen)) ||
            (rc = get_str(o, "token", r->token, sizeof r->token, 64, false, err, errlen)) ||
            (rc = get_str(o, "me", r->me, sizeof r->me, 32, false, err, errlen)) ||
            (rc = get_str(o, "session", r->session, sizeof r->session, 64, false, err, errlen)))
            return rc;
        if (r->me[0] && strspn(r->me, "0123456789abcdef") != 32)
            return ddz_fail(DDZ_EFIELD, err, errlen, "me: must be 32 lower-case hex digits");
        if (!r->name[0])
            return ddz_fail(DDZ_EFIELD, err, errlen, "name: must not be empty");
        if (r->version != DDZ_PROTOCOL_VERSION)
            return ddz_fail(DDZ_EFIELD, err, errlen, "version: this server speaks version %d",
                            DDZ_PROTOCOL_VERSION);
        return 0;
    case DDZ_REQ_CREATE:
        if ((rc = get_opts(json_object_get(o, "options"), &r->opts, err, errlen)) ||
            (rc = get_bool(o, "rated", &r->opts.rated, false, err, errlen)))
            return rc;
        return get_seat(o, &r->seat, err, errlen);
    case DDZ_REQ_JOIN:
    case DDZ_REQ_SPECTATE:
        if ((rc = get_str(o, "room", r->room, sizeof r->room, 32, true, err, errlen)) ||
            (rc = get_str(o, "password", r->password, sizeof r->password, 64, false, err, errlen)))
            return rc;
        return r->type == DDZ_REQ_JOIN ? get_seat(o, &r->seat, err, errlen) : 0;
    case DDZ_REQ_QUICK:
        /* rated quick play names a rule set (the server's default when
         * absent); the rest of opts is the server's to choose */
        if ((rc = get_str(o, "ai", r->ai, sizeof r->ai, 30, false, err, errlen)) ||
            (rc = get_bool(o, "rated", &r->opts.rated, false, err, errlen)) ||
            (rc = get_str(o, "rules", r->opts.rules, sizeof r->opts.rules, 15, false, err, errlen)))
            return rc;
        if (r->opts.rules[0] && !r->opts.rated)
            return ddz_fail(DDZ_EFIELD, err, errlen, "rules: only with \"rated\": true");
        return 0;
    case DDZ_REQ_BID:
        if ((rc = get_int(o, "seq", 0, 0x7fffffff, &seq, true, err, errlen)) ||
            (rc = get_int(o, "bid", 0, 3, &r->bid, true, err, errlen)))
            return rc;
        r->seq = (uint32_t)seq;
        return 0;
    case DDZ_REQ_PLAY:
        if ((rc = get_int(o, "seq", 0, 0x7fffffff, &seq, true, err, errlen)) ||
            (rc = get_cards(o, &r->cards, err, errlen)))
            return rc;
        r->seq = (uint32_t)seq;
        return 0;
    case DDZ_REQ_AUTOPASS:
    case DDZ_REQ_CUSTODY:
        return get_bool(o, "on", &r->on, true, err, errlen);
    case DDZ_REQ_PHRASE:
        return get_int(o, "phrase", 0, DDZ_PHRASES - 1, &r->phrase, true, err, errlen);
    case DDZ_REQ_ENLIST:
        if ((rc = get_str(o, "competition", r->competition, sizeof r->competition, 15, false, err,
                          errlen)))
            return rc;
        if (r->competition[0] && strcmp(r->competition, "tournament") != 0 &&
            strcmp(r->competition, "ladder") != 0)
            return ddz_fail(DDZ_EFIELD, err, errlen, "competition: \"tournament\" or \"ladder\"");
        return 0;
    default:
        return 0; /* list, leave, rematch, hint, ready: no fields */
    }
}

int ddz_req_parse(const char *text, size_t len, ddz_req *r, char *err, size_t errlen)
{
    memset(r, 0, sizeof *r);
    r->seat = -1;
    if (len > DDZ_MSG_MAX)
        return ddz_fail(DDZ_ETOOLONG, err, errlen, "frame over %d bytes", DDZ_MSG_MAX);
    json_error_t je;
    json_t *o = json_loadb(text, len, JSON_REJECT_DUPLICATES, &je);
    if (!o)
        return ddz_fail(DDZ_ESYNTAX, err, errlen, "not JSON: %s", je.text);
    int rc = 0;
    if (!json_is_object(o)) {
        rc = ddz_fail(DDZ_ESYNTAX, err, errlen, "a message must be a JSON object");
        goto out;
    }
    json_t *id = json_object_get(o, "id");
    if (id && (json_is_string(id) || json_is_integer(id))) {
        char *s = json_dumps(id, JSON_ENCODE_ANY | JSON_COMPACT);
        if (s && strlen(s) < sizeof r->id)
            snprintf(r->id, sizeof r->id, "%s", s);
        free(s);
    }
    const char *type = json_string_value(json_object_get(o, "type"));
    if (!type) {
        rc = ddz_fail(DDZ_ESYNTAX, err, errlen, "a message needs a string \"type\"");
        goto out;
    }
    for (int t = 1; t < DDZ_NREQ; t++)
        if (strcmp(type, req_names[t]) == 0)
            r->type = t;
    if (!r->type) {
        /* echoed to the client as JSON text: a cut character would make
         * the error itself invalid UTF-8 */
        int n = (int)ddz_text_fit_width(type, 40, NULL);
        rc = ddz_fail(DDZ_EUNKNOWN, err, errlen, "unknown message type \"%.*s\"", n, type);
        goto out;
    }
    rc = parse_fields(o, r, err, errlen);
out:
    json_decref(o);
    return rc;
}

json_t *ddz_msg_cards(ddz_cards c)
{
    json_t *a = json_array();
    while (a && c) {
        json_array_append_new(a, json_integer(__builtin_ctzll(c)));
        c &= c - 1;
    }
    return a;
}

static json_t *opts_json(const ddz_room_opts *o)
{
    json_t *seats = json_array();
    for (int s = 0; s < 3; s++)
        json_array_append_new(seats, o->seats[s][0] ? json_string(o->seats[s]) : json_null());
    return json_pack(
        "{s:s, s:s, s:i, s:i, s:b, s:s, s:o, s:o, s:b, s:b, s:i, s:s, s:i, s:b}", "name", o->name,
        "rules", o->rules, "time", o->time, "games", o->games, "private", o->priv, "password",
        o->password, "seats", seats, "fill", o->fill[0] ? json_string(o->fill) : json_null(),
        "bots", o->bots, "autopass", o->autopass, "grace", o->grace, "custody",
        o->custody == DDZ_CUSTODY_FAULT ? "fault" : "ai", "pause", o->pause, "redeal", o->redeal);
}

json_t *ddz_req_print(const ddz_req *r)
{
    json_t *o = json_pack("{s:s}", "type", ddz_req_name(r->type));
    if (!o)
        return NULL;
    if (r->id[0])
        json_object_set_new(o, "id", json_loads(r->id, JSON_DECODE_ANY, NULL));
    switch (r->type) {
    case DDZ_REQ_HELLO:
        json_object_set_new(o, "version", json_integer(r->version));
        json_object_set_new(o, "name", json_string(r->name));
        if (r->resume[0])
            json_object_set_new(o, "resume", json_string(r->resume));
        if (r->token[0])
            json_object_set_new(o, "token", json_string(r->token));
        if (r->me[0])
            json_object_set_new(o, "me", json_string(r->me));
        if (r->session[0])
            json_object_set_new(o, "session", json_string(r->session));
        break;
    case DDZ_REQ_CREATE:
        json_object_set_new(o, "options", opts_json(&r->opts));
        if (r->seat >= 0)
            json_object_set_new(o, "seat", json_integer(r->seat));
        if (r->opts.rated)
            json_object_set_new(o, "rated", json_true());
        break;
    case DDZ_REQ_JOIN:
    case DDZ_REQ_SPECTATE:
        json_object_set_new(o, "room", json_string(r->room));
        if (r->password[0])
            json_object_set_new(o, "password", json_string(r->password));
        if (r->seat >= 0)
            json_object_set_new(o, "seat", json_integer(r->seat));
        break;
    case DDZ_REQ_QUICK:
        if (r->ai[0])
            json_object_set_new(o, "ai", json_string(r->ai));
        if (r->opts.rated)
            json_object_set_new(o, "rated", json_true());
        if (r->opts.rules[0])
            json_object_set_new(o, "rules", json_string(r->opts.rules));
        break;
    case DDZ_REQ_BID:
        json_object_set_new(o, "seq", json_integer(r->seq));
        json_object_set_new(o, "bid", json_integer(r->bid));
        break;
    case DDZ_REQ_PLAY:
        json_object_set_new(o, "seq", json_integer(r->seq));
        json_object_set_new(o, "cards", ddz_msg_cards(r->cards));
        break;
    case DDZ_REQ_AUTOPASS:
    case DDZ_REQ_CUSTODY:
        json_object_set_new(o, "on", json_boolean(r->on));
        break;
    case DDZ_REQ_PHRASE:
        json_object_set_new(o, "phrase", json_integer(r->phrase));
        break;
    case DDZ_REQ_ENLIST:
        if (r->competition[0])
            json_object_set_new(o, "competition", json_string(r->competition));
        break;
    }
    return o;
}

char *ddz_msg_dump(json_t *j)
{
    if (!j)
        return NULL;
    char *s = json_dumps(j, DDZ_RECORD_JSON_FLAGS); /* scores print shortest */
    json_decref(j);
    return s;
}
