/* fuzz_msg.c - any bytes as one frame of the JSON protocol
 * (proto/PROTOCOL.md): as a client frame (proto/msg.h) and as a server
 * frame (proto/event.h).
 *
 * Checks: ddz_req_parse and ddz_event_parse_text never crash and explain
 * every refusal; a frame either accepts prints (ddz_req_print or
 * ddz_event_print, then ddz_msg_dump) as JSON that parses again to the same
 * value (field for field; ddz_event_equal for events) and prints to the same
 * text: the printed form is a fixed point and carries everything parse
 * extracted; ddz_event_dump writes the same text, and a frame that
 * ddz_event_parse_move reads straight is read the same by jansson. A
 * failed event parse keeps no allocation (LeakSanitizer).
 */
#include <string.h>

#include "fuzz.h"
#include "proto/event.h"
#include "proto/msg.h"
#include "rules/error.h"

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
    (void)argc, (void)argv;
    /* Printing compares text: object keys must come out in insertion order
     * on every run, whatever jansson's hash seed. */
    json_object_seed(1);
    return 0;
}

static void check_request(const uint8_t *data, size_t size)
{
    static ddz_req r, back;
    char err[160] = "";
    int rc = ddz_req_parse((const char *)data, size, &r, err, sizeof err);
    if (rc < 0) {
        /* ENAME: a display or room name that reads other than written
         * (PROTOCOL.md, "Names") */
        FUZZ_CHECK(rc == DDZ_ESYNTAX || rc == DDZ_EUNKNOWN || rc == DDZ_EFIELD ||
                       rc == DDZ_ETOOLONG || rc == DDZ_ENAME,
                   "undocumented error %d (%s)", rc, ddz_errname(rc));
        FUZZ_CHECK(err[0] != '\0', "error %d without a message", rc);
        if (rc == DDZ_EFIELD || rc == DDZ_ENAME)
            FUZZ_CHECK(r.type > 0 && r.type < DDZ_NREQ, "%s without the type: %d", ddz_errname(rc),
                       r.type);
        return;
    }
    FUZZ_CHECK(rc == 0, "parse returned %d", rc);
    FUZZ_CHECK(r.type > 0 && r.type < DDZ_NREQ, "type %d", r.type);

    char *text = ddz_msg_dump(ddz_req_print(&r));
    FUZZ_CHECK(text, "print of a parsed %s failed", ddz_req_name(r.type));
    /* jansson escapes C0 controls; C1 ones (U+0080..U+009F) pass get_str and
     * come out raw, which is still valid JSON. */
    FUZZ_CHECK(fuzz_utf8_ok((const unsigned char *)text, strlen(text), false),
               "printed text is not UTF-8: %s", text);
    rc = ddz_req_parse(text, strlen(text), &back, err, sizeof err);
    FUZZ_CHECK(rc == 0, "printed %s does not parse: %s", text, err);
    char *again = ddz_msg_dump(ddz_req_print(&back));
    FUZZ_CHECK(again, "second print failed");
    FUZZ_CHECK(strcmp(text, again) == 0, "print(parse(print)) differs:\n  %s\n  %s", text, again);
    /* Both structs come from ddz_req_parse, which zeroes before filling. */
    FUZZ_CHECK(memcmp(&r, &back, sizeof r) == 0, "the printed form lost a field: %s", text);
    free(text);
    free(again);
}

static void check_event(const uint8_t *data, size_t size)
{
    ddz_event e, back;
    char err[160] = "";
    int rc = ddz_event_parse_text((const char *)data, size, &e, err, sizeof err);
    if (rc < 0) {
        FUZZ_CHECK(rc == DDZ_ESYNTAX || rc == DDZ_EUNKNOWN || rc == DDZ_EFIELD || rc == DDZ_ENOMEM,
                   "undocumented event error %d (%s)", rc, ddz_errname(rc));
        FUZZ_CHECK(err[0] != '\0', "event error %d without a message", rc);
        FUZZ_CHECK(!e.owned, "a failed event parse kept its arrays");
        if (rc == DDZ_EFIELD)
            FUZZ_CHECK(e.type > 0 && e.type < DDZ_NEVENT, "EFIELD without the type: %d", e.type);
        return;
    }
    FUZZ_CHECK(rc == 0, "event parse returned %d", rc);
    FUZZ_CHECK(e.type > 0 && e.type < DDZ_NEVENT, "event type %d", e.type);

    char *text = ddz_msg_dump(ddz_event_print(&e));
    FUZZ_CHECK(text, "print of a parsed %s failed", ddz_event_name(e.type));
    FUZZ_CHECK(fuzz_utf8_ok((const unsigned char *)text, strlen(text), false),
               "printed event is not UTF-8: %s", text);
    rc = ddz_event_parse_text(text, strlen(text), &back, err, sizeof err);
    FUZZ_CHECK(rc == 0, "printed %s does not parse: %s", text, err);
    FUZZ_CHECK(ddz_event_equal(&e, &back), "the printed event lost a field: %s", text);
    char *again = ddz_msg_dump(ddz_event_print(&back));
    FUZZ_CHECK(again, "second event print failed");
    FUZZ_CHECK(strcmp(text, again) == 0, "event print(parse(print)) differs:\n  %s\n  %s", text,
               again);
    /* the text the server sends is the tree's, byte for byte */
    char *sent = ddz_event_dump(&e);
    FUZZ_CHECK(sent && strcmp(sent, text) == 0, "ddz_event_dump differs:\n  %s\n  %s",
               sent ? sent : "(null)", text);
    free(sent);
    free(text);
    free(again);
    ddz_event_clear(&back);
    /* a move's event read straight is what jansson's reading gives */
    ddz_event fast, tree;
    if (ddz_event_parse_move((const char *)data, size, &fast)) {
        json_t *j = json_loadb((const char *)data, size, JSON_REJECT_DUPLICATES, NULL);
        FUZZ_CHECK(j && ddz_event_parse(j, &tree, NULL, 0) == 0,
                   "read straight, refused by the tree: %.*s", (int)size, (const char *)data);
        FUZZ_CHECK(ddz_event_equal(&fast, &tree) && fast.owned == tree.owned,
                   "read straight otherwise than the tree: %.*s", (int)size, (const char *)data);
        json_decref(j);
        ddz_event_clear(&tree);
        ddz_event_clear(&fast);
    }
    ddz_event_clear(&e);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    check_request(data, size);
    check_event(data, size);
    return 0;
}
