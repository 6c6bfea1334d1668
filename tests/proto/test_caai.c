/* test_caai.c - CAAI 1.0 line codec: round trips for every kind, tolerance,
 * every error, the data file caai_lines.txt, and engine-name conversion. */
#include <criterion/criterion.h>
#include <stdio.h>
#include <string.h>

#include "proto/caai.h"
#include "rules/error.h"

static ddz_cards cards_of(const int *codes, int n)
{
    ddz_cards c = 0;
    for (int i = 0; i < n; i++)
        c |= 1ULL << codes[i];
    return c;
}

/* Parses `line`, asserts success, and returns the message. */
static ddz_caai_msg parse_ok(const char *line)
{
    ddz_caai_msg m;
    char err[200] = "";
    int rc = ddz_caai_parse(line, strlen(line), &m, err, sizeof err);
    cr_assert_eq(rc, 0, "parse(\"%s\") = %s: %s", line, ddz_errname(rc), err);
    return m;
}

static int parse_rc(const char *line)
{
    ddz_caai_msg m;
    char err[200];
    return ddz_caai_parse(line, strlen(line), &m, err, sizeof err);
}

static void assert_round_trip(const char *line)
{
    ddz_caai_msg m = parse_ok(line);
    char buf[DDZ_CAAI_FORMAT_MAX];
    int n = ddz_caai_format(&m, buf, sizeof buf);
    cr_assert_eq(n, (int)strlen(line), "format of \"%s\" returned %d", line, n);
    cr_assert_str_eq(buf, line);
    cr_assert_eq(ddz_caai_format_len(&m), n);
}

Test(caai, every_kind_parses_to_its_fields)
{
    ddz_caai_msg m = parse_ok("DOUDIZHUVER 1.0");
    cr_assert_eq(m.kind, DDZ_CAAI_VERSION);
    cr_assert_str_eq(m.version, "1.0");
    cr_assert_eq(m.seat, -1);

    m = parse_ok("NAME hrbust");
    cr_assert_eq(m.kind, DDZ_CAAI_NAME);
    cr_assert_str_eq(m.name, "hrbust");

    m = parse_ok("INFO 1,4,1,6,9,2100,15");
    cr_assert_eq(m.kind, DDZ_CAAI_INFO);
    cr_assert_eq(m.info.turn, 1);
    cr_assert_eq(m.info.turns, 4);
    cr_assert_eq(m.info.game, 1);
    cr_assert_eq(m.info.games, 6);
    cr_assert_eq(m.info.up, 9);
    cr_assert_eq(m.info.maxscore, 2100);
    cr_assert_eq(m.info.time, 15);

    static const int deal[17] = {0, 4, 5, 7, 9, 10, 17, 21, 25, 33, 34, 39, 41, 43, 44, 45, 46};
    m = parse_ok("DEAL B0,4,5,7,9,10,17,21,25,33,34,39,41,43,44,45,46");
    cr_assert_eq(m.kind, DDZ_CAAI_DEAL);
    cr_assert_eq(m.seat, 1);
    cr_assert_eq(m.cards, cards_of(deal, 17));

    m = parse_ok("BID A1");
    cr_assert_eq(m.kind, DDZ_CAAI_BID);
    cr_assert_eq(m.seat, 0);
    cr_assert_eq(m.bid, 1);
    m = parse_ok("BID C0");
    cr_assert_eq(m.seat, 2);
    cr_assert_eq(m.bid, 0);

    m = parse_ok("BID WHAT");
    cr_assert_eq(m.kind, DDZ_CAAI_BID_WHAT);
    cr_assert_eq(m.seat, -1);

    static const int left[3] = {27, 48, 53};
    m = parse_ok("LEFTOVER B27,48,53");
    cr_assert_eq(m.kind, DDZ_CAAI_LEFTOVER);
    cr_assert_eq(m.seat, 1);
    cr_assert_eq(m.cards, cards_of(left, 3));

    m = parse_ok("PLAY WHAT");
    cr_assert_eq(m.kind, DDZ_CAAI_PLAY_WHAT);

    static const int play[4] = {0, 4, 5, 7};
    m = parse_ok("PLAY B0,4,5,7");
    cr_assert_eq(m.kind, DDZ_CAAI_PLAY);
    cr_assert_eq(m.seat, 1);
    cr_assert_eq(m.cards, cards_of(play, 4));

    m = parse_ok("PLAY C-1");
    cr_assert_eq(m.kind, DDZ_CAAI_PLAY);
    cr_assert_eq(m.seat, 2);
    cr_assert_eq(m.cards, 0, "a pass is the empty set");

    m = parse_ok("GAMEOVER C");
    cr_assert_eq(m.kind, DDZ_CAAI_GAMEOVER);
    cr_assert_eq(m.seat, 2);

    m = parse_ok("ERROR A");
    cr_assert_eq(m.kind, DDZ_CAAI_ERROR);
    cr_assert_eq(m.seat, 0);

    static const struct {
        const char *line;
        int of;
    } oks[] = {
        {"OK INFO", DDZ_CAAI_INFO},   {"OK DEAL", DDZ_CAAI_DEAL},
        {"OK BID", DDZ_CAAI_BID},     {"OK LEFTOVER", DDZ_CAAI_LEFTOVER},
        {"OK PLAY", DDZ_CAAI_PLAY},   {"OK GAMEOVER", DDZ_CAAI_GAMEOVER},
        {"OK ERROR", DDZ_CAAI_ERROR},
    };
    for (size_t i = 0; i < sizeof oks / sizeof oks[0]; i++) {
        m = parse_ok(oks[i].line);
        cr_assert_eq(m.kind, DDZ_CAAI_OK);
        cr_assert_eq(m.ok_of, oks[i].of, "%s", oks[i].line);
        cr_assert_eq(m.seat, -1);
        assert_round_trip(oks[i].line);
    }
}

Test(caai, print_parse_round_trip_every_kind)
{
    static const char *const lines[] = {
        "DOUDIZHUVER 1.0",
        "NAME hrbust",
        "INFO 1,4,1,6,9,2100,15",
        "DEAL B0,4,5,7,9,10,17,21,25,33,34,39,41,43,44,45,46",
        "BID A1",
        "BID WHAT",
        "LEFTOVER B27,48,53",
        "PLAY WHAT",
        "PLAY B0,4,5,7",
        "PLAY C-1",
        "GAMEOVER C",
        "ERROR A",
        "OK GAMEOVER",
    };
    for (size_t i = 0; i < sizeof lines / sizeof lines[0]; i++)
        assert_round_trip(lines[i]);
}

Test(caai, format_builds_lines_from_values)
{
    char buf[DDZ_CAAI_FORMAT_MAX];
    ddz_caai_msg m = {.kind = DDZ_CAAI_PLAY, .seat = 0, .cards = 0};
    cr_assert_eq(ddz_caai_format(&m, buf, sizeof buf), 8);
    cr_assert_str_eq(buf, "PLAY A-1");
    /* ascending whatever the order of insertion */
    m.cards = (1ULL << 53) | (1ULL << 52);
    m.seat = 2;
    cr_assert_eq(ddz_caai_format(&m, buf, sizeof buf), 11);
    cr_assert_str_eq(buf, "PLAY C52,53");
    /* fields the kind does not use are ignored */
    m = (ddz_caai_msg){.kind = DDZ_CAAI_PLAY_WHAT, .seat = 7, .cards = 99};
    cr_assert_eq(ddz_caai_format(&m, buf, sizeof buf), 9);
    cr_assert_str_eq(buf, "PLAY WHAT");
    m = (ddz_caai_msg){.kind = DDZ_CAAI_OK, .ok_of = DDZ_CAAI_LEFTOVER};
    cr_assert_eq(ddz_caai_format(&m, buf, sizeof buf), 11);
    cr_assert_str_eq(buf, "OK LEFTOVER");
    m = (ddz_caai_msg){.kind = DDZ_CAAI_INFO, .info = {1, 4, 2, 6, 9, 2100, 15}};
    cr_assert_gt(ddz_caai_format(&m, buf, sizeof buf), 0);
    cr_assert_str_eq(buf, "INFO 1,4,2,6,9,2100,15");
    cr_assert_str_eq(ddz_caai_keyword(DDZ_CAAI_PLAY_WHAT), "PLAY");
    cr_assert_str_eq(ddz_caai_keyword(DDZ_CAAI_VERSION), "DOUDIZHUVER");
    cr_assert_str_eq(ddz_caai_keyword(DDZ_CAAI_NONE), "?");
    cr_assert_str_eq(ddz_caai_keyword(99), "?");
}

Test(caai, format_rejects_what_parse_would_reject)
{
    char buf[DDZ_CAAI_FORMAT_MAX];
    const ddz_cards seventeen = (1ULL << 17) - 1;
    const ddz_caai_msg bad[] = {
        {.kind = DDZ_CAAI_NONE},
        {.kind = DDZ_CAAI_NKINDS},
        {.kind = DDZ_CAAI_BID, .seat = 3, .bid = 1},
        {.kind = DDZ_CAAI_BID, .seat = -1, .bid = 1},
        {.kind = DDZ_CAAI_BID, .seat = 0, .bid = 4},
        {.kind = DDZ_CAAI_BID, .seat = 0, .bid = -1},
        {.kind = DDZ_CAAI_DEAL, .seat = 0, .cards = seventeen >> 1},
        {.kind = DDZ_CAAI_DEAL, .seat = 0, .cards = 0},
        {.kind = DDZ_CAAI_LEFTOVER, .seat = 0, .cards = 0xF},
        {.kind = DDZ_CAAI_PLAY, .seat = 0, .cards = 1ULL << 54},
        {.kind = DDZ_CAAI_GAMEOVER, .seat = 5},
        {.kind = DDZ_CAAI_OK, .ok_of = DDZ_CAAI_NAME},
        {.kind = DDZ_CAAI_OK, .ok_of = DDZ_CAAI_PLAY_WHAT},
        {.kind = DDZ_CAAI_INFO, .info = {1, 4, 1, 6, 9, -1, 15}},
        {.kind = DDZ_CAAI_VERSION, .version = ""},
        {.kind = DDZ_CAAI_VERSION, .version = "v1"},
        {.kind = DDZ_CAAI_NAME, .name = ""},
        {.kind = DDZ_CAAI_NAME, .name = " lead"},
        {.kind = DDZ_CAAI_NAME, .name = "trail\t"},
        {.kind = DDZ_CAAI_NAME, .name = "two\nlines"},
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        cr_assert_eq(ddz_caai_format(&bad[i], buf, sizeof buf), DDZ_EINVAL, "case %zu", i);
        cr_assert_eq(ddz_caai_format_len(&bad[i]), DDZ_EINVAL, "case %zu", i);
    }
    /* a name filling its array without a NUL */
    ddz_caai_msg m = {.kind = DDZ_CAAI_NAME};
    memset(m.name, 'x', sizeof m.name);
    cr_assert_eq(ddz_caai_format(&m, buf, sizeof buf), DDZ_EINVAL);
}

Test(caai, format_reports_short_buffers)
{
    ddz_caai_msg m = parse_ok("PLAY B0,4,5,7");
    char buf[14];
    cr_assert_eq(ddz_caai_format(&m, buf, 13), DDZ_ENOSPC);
    cr_assert_str_eq(buf, "PLAY B0,4,5,");
    cr_assert_eq(ddz_caai_format(&m, buf, 0), DDZ_ENOSPC);
    cr_assert_eq(ddz_caai_format(&m, buf, 14), 13);
    cr_assert_str_eq(buf, "PLAY B0,4,5,7");
}

Test(caai, format_len_and_the_80_byte_limit)
{
    /* The longest play of a game: 20 cards with two-digit codes. */
    ddz_caai_msg m = {.kind = DDZ_CAAI_PLAY, .seat = 1, .cards = ((1ULL << 20) - 1) << 34};
    cr_assert_eq(ddz_caai_format_len(&m), 65);
    cr_assert_leq(ddz_caai_format_len(&m), DDZ_CAAI_SHORT_MAX);
    /* 25 cards (no game has them) are where a PLAY passes the limit. */
    m.cards = ((1ULL << 25) - 1) << 29;
    cr_assert_gt(ddz_caai_format_len(&m), DDZ_CAAI_SHORT_MAX);
    m.cards = ((1ULL << 24) - 1) << 30;
    cr_assert_leq(ddz_caai_format_len(&m), DDZ_CAAI_SHORT_MAX);
    /* every card still formats within DDZ_CAAI_FORMAT_MAX */
    m.cards = DDZ_CARDS_ALL;
    int n = ddz_caai_format_len(&m);
    cr_assert_gt(n, 150);
    cr_assert_lt(n, DDZ_CAAI_FORMAT_MAX);
    char buf[DDZ_CAAI_FORMAT_MAX];
    cr_assert_eq(ddz_caai_format(&m, buf, sizeof buf), n);
    ddz_caai_msg back = parse_ok(buf);
    cr_assert_eq(back.cards, DDZ_CARDS_ALL);
    /* the longest deal */
    m = (ddz_caai_msg){.kind = DDZ_CAAI_DEAL, .seat = 2, .cards = ((1ULL << 17) - 1) << 37};
    cr_assert_eq(ddz_caai_format_len(&m), 56);
    /* the longest INFO is above the limit, a normal one far below */
    m = (ddz_caai_msg){.kind = DDZ_CAAI_INFO};
    m.info = (ddz_caai_info){INT32_MAX, INT32_MAX, INT32_MAX, INT32_MAX,
                             INT32_MAX, INT32_MAX, INT32_MAX};
    cr_assert_eq(ddz_caai_format_len(&m), 5 + 7 * 10 + 6);
    assert_round_trip("INFO 2147483647,2147483647,2147483647,2147483647,2147483647,2147483647,"
                      "2147483647");
}

Test(caai, line_length_limit)
{
    static char line[DDZ_CAAI_LINE_MAX + 8];
    /* a NAME exactly at the limit, with CRLF after it, is accepted */
    memset(line, 'n', sizeof line);
    memcpy(line, "NAME ", 5);
    memcpy(line + DDZ_CAAI_LINE_MAX, "\r\n", 2);
    ddz_caai_msg m;
    char err[200];
    cr_assert_eq(ddz_caai_parse(line, DDZ_CAAI_LINE_MAX + 2, &m, err, sizeof err), 0, "%s", err);
    cr_assert_eq(strlen(m.name), sizeof m.name - 1, "names are truncated to the array");
    /* one byte more is too long, whatever it holds */
    line[DDZ_CAAI_LINE_MAX] = 'n';
    cr_assert_eq(ddz_caai_parse(line, DDZ_CAAI_LINE_MAX + 1, &m, err, sizeof err), DDZ_ETOOLONG);
    cr_assert(strstr(err, "4096") != NULL, "%s", err);
    memset(line, ' ', sizeof line);
    cr_assert_eq(ddz_caai_parse(line, sizeof line, &m, err, sizeof err), DDZ_ETOOLONG);
}

Test(caai, name_truncation_drops_trailing_blanks)
{
    char line[100];
    snprintf(line, sizeof line, "NAME %.62s x",
             "abcdefghijklmnopqrstuvwxyzabcdefghijklmnopqrstuvwxyzabcdefghij");
    ddz_caai_msg m = parse_ok(line);
    cr_assert_eq(strlen(m.name), 62, "the blank at byte 63 is trimmed: %s", m.name);
    assert_round_trip("NAME a b");
}

Test(caai, parse_without_room_for_err_and_without_terminator)
{
    ddz_caai_msg m;
    cr_assert_eq(ddz_caai_parse("HELLO", 5, &m, NULL, 0), DDZ_EUNKNOWN);
    char err[4];
    cr_assert_eq(ddz_caai_parse("HELLO", 5, &m, err, sizeof err), DDZ_EUNKNOWN);
    cr_assert_eq(strlen(err), 3);
    /* `len` bounds the line: the bytes after it are not read */
    cr_assert_eq(ddz_caai_parse("BID A1garbage", 6, &m, NULL, 0), 0);
    cr_assert_eq(m.bid, 1);
    cr_assert_eq(ddz_caai_parse("", 0, &m, NULL, 0), DDZ_ESYNTAX);
}

Test(caai, error_messages_are_one_printable_line)
{
    static const char *const bad[] = {
        "\xff\xfe\x01\x7f x",
        "BID \x01"
        "1",
        "OK \x1b[31mred",
        "PLAY A3,\x80",
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        ddz_caai_msg m;
        char err[200];
        cr_assert_lt(ddz_caai_parse(bad[i], strlen(bad[i]), &m, err, sizeof err), 0);
        for (const char *p = err; *p; p++)
            cr_assert(*p >= 0x20 && *p < 0x7f, "case %zu: byte 0x%02x in \"%s\"", i,
                      (unsigned char)*p, err);
    }
    cr_assert_eq(parse_rc("BID \x01"
                          "1"),
                 DDZ_ESEAT);
    cr_assert_eq(parse_rc("OK \x1b[31mred"), DDZ_ESYNTAX);
}

/* ---- the data file ---- */

/* Decodes the escapes of caai_lines.txt (see its header). Returns the
 * length, or -1 for a bad escape. */
static int unescape(const char *s, size_t n, char *out, size_t cap)
{
    size_t o = 0;
    for (size_t i = 0; i < n; i++) {
        if (o + 1 >= cap)
            return -1;
        if (s[i] != '\\') {
            out[o++] = s[i];
            continue;
        }
        if (++i >= n)
            return -1;
        switch (s[i]) {
        case 't':
            out[o++] = '\t';
            break;
        case 'r':
            out[o++] = '\r';
            break;
        case 'n':
            out[o++] = '\n';
            break;
        case '\\':
            out[o++] = '\\';
            break;
        case 'x': {
            unsigned v;
            if (i + 2 >= n || sscanf(s + i + 1, "%2x", &v) != 1)
                return -1;
            out[o++] = (char)v;
            i += 2;
            break;
        }
        default:
            return -1;
        }
    }
    out[o] = '\0';
    return (int)o;
}

static int errcode_of(const char *name)
{
    static const int codes[] = {DDZ_ESYNTAX, DDZ_ETOOLONG, DDZ_EUNKNOWN,
                                DDZ_ESEAT,   DDZ_ECARD,    DDZ_EDUP};
    for (size_t i = 0; i < sizeof codes / sizeof codes[0]; i++)
        if (strcmp(ddz_errname(codes[i]), name) == 0)
            return codes[i];
    return 0;
}

Test(caai, data_file)
{
    const char *path = DDZ_SOURCE_DIR "/tests/proto/caai_lines.txt";
    FILE *f = fopen(path, "r");
    cr_assert_not_null(f, "cannot open %s", path);
    char line[8192];
    int lineno = 0, cases = 0, errors = 0;
    while (fgets(line, sizeof line, f)) {
        lineno++;
        size_t len = strlen(line);
        if (len && line[len - 1] == '\n')
            line[--len] = '\0';
        if (len == 0 || line[0] == '#')
            continue;
        char *tab = strchr(line, '\t');
        cr_assert_not_null(tab, "line %d: no tab", lineno);
        *tab = '\0';
        char *expected = tab + 1;
        char *substr = strchr(expected, '\t');
        if (substr)
            *substr++ = '\0';

        char input[8192], want[8192], sub[256];
        int n = unescape(line, strlen(line), input, sizeof input);
        cr_assert_geq(n, 0, "line %d: bad escape in input", lineno);
        ddz_caai_msg m;
        char err[200] = "";
        int rc = ddz_caai_parse(input, (size_t)n, &m, err, sizeof err);
        cases++;

        if (strncmp(expected, "ERR:", 4) == 0) {
            errors++;
            int code = errcode_of(expected + 4);
            cr_assert_neq(code, 0, "line %d: unknown code %s", lineno, expected);
            cr_assert_eq(rc, code, "line %d: \"%s\" gave %s (%s), expected %s", lineno, line,
                         ddz_errname(rc), err, expected + 4);
            cr_assert_gt(strlen(err), 0, "line %d: empty error message", lineno);
            if (substr) {
                cr_assert_geq(unescape(substr, strlen(substr), sub, sizeof sub), 0);
                cr_assert(strstr(err, sub) != NULL, "line %d: message \"%s\" lacks \"%s\"", lineno,
                          err, sub);
            }
            continue;
        }
        cr_assert_null(substr, "line %d: a message substring only goes with ERR:", lineno);
        cr_assert_eq(rc, 0, "line %d: \"%s\" gave %s: %s", lineno, line, ddz_errname(rc), err);
        int wn = strcmp(expected, "=") == 0
                     ? n
                     : unescape(expected, strlen(expected), want, sizeof want);
        if (strcmp(expected, "=") == 0)
            memcpy(want, input, (size_t)n + 1);
        cr_assert_geq(wn, 0, "line %d: bad escape in expected", lineno);

        char out[DDZ_CAAI_FORMAT_MAX];
        int on = ddz_caai_format(&m, out, sizeof out);
        cr_assert_eq(on, wn, "line %d: printed \"%s\" (%d), expected \"%s\"", lineno, out, on,
                     expected);
        cr_assert_eq(memcmp(out, want, (size_t)wn), 0, "line %d: printed \"%s\"", lineno, out);
        /* canonical output is a fixed point */
        ddz_caai_msg again;
        cr_assert_eq(ddz_caai_parse(out, (size_t)on, &again, err, sizeof err), 0, "line %d: %s",
                     lineno, err);
        cr_assert_eq(memcmp(&again, &m, sizeof m), 0, "line %d: reparse differs", lineno);
    }
    fclose(f);
    cr_assert_geq(cases, 40, "only %d cases", cases);
    cr_assert_geq(errors, 20, "only %d error cases", errors);
    cr_log_info("caai_lines.txt: %d cases, %d errors", cases, errors);
}

/* ---- names ---- */

static void assert_name(const char *raw, const char *want)
{
    char out[DDZ_CAAI_NAME_UTF8_MAX];
    int n = ddz_caai_name_utf8(raw, out, sizeof out);
    cr_assert_eq(n, (int)strlen(want), "length %d for \"%s\"", n, out);
    cr_assert_str_eq(out, want);
}

Test(caai, name_utf8_copies_utf8_and_converts_gbk)
{
    assert_name("hrbust", "hrbust");
    assert_name("", "");
    /* 斗地主 in UTF-8 stays as it is */
    assert_name("\xE6\x96\x97\xE5\x9C\xB0\xE4\xB8\xBB", "斗地主");
    /* 斗地主 in GBK (iconv -f UTF-8 -t GBK: B6 B7 B5 D8 D6 F7) */
    assert_name("\xB6\xB7\xB5\xD8\xD6\xF7", "斗地主");
    /* mixed ASCII and GBK, 测试引擎 */
    assert_name("ai-\xB2\xE2\xCA\xD4\xD2\xFD\xC7\xE6", "ai-测试引擎");
    /* GBK cut inside its last character, as truncation to 63 bytes does */
    assert_name("\xB6\xB7\xB5\xD8\xD6", "斗地\xEF\xBF\xBD");
}

Test(caai, name_utf8_replaces_invalid_bytes_and_controls)
{
    /* 0xFF is neither UTF-8 nor GB18030 */
    assert_name("a\xFF"
                "b",
                "a\xEF\xBF\xBD"
                "b");
    assert_name("\xFF\xFF", "\xEF\xBF\xBD\xEF\xBF\xBD");
    /* C0 controls, DEL and UTF-8-encoded C1 controls */
    assert_name("a\x01"
                "b\x1b[0m",
                "a\xEF\xBF\xBD"
                "b\xEF\xBF\xBD[0m");
    assert_name("x\x7F", "x\xEF\xBF\xBD");
    assert_name("x\xC2\x85", "x\xEF\xBF\xBD");
    assert_name("tab\there", "tab\xEF\xBF\xBDhere");
    /* the result of any byte string is valid UTF-8 without controls */
    char raw[64], out[DDZ_CAAI_NAME_UTF8_MAX];
    unsigned x = 12345;
    for (int t = 0; t < 2000; t++) {
        size_t n = (size_t)(t % 63);
        for (size_t i = 0; i < n; i++) {
            x = x * 1103515245u + 12345u;
            raw[i] = (char)((x >> 16) | 1); /* never NUL */
        }
        raw[n] = '\0';
        int k = ddz_caai_name_utf8(raw, out, sizeof out);
        cr_assert_geq(k, 0);
        char again[DDZ_CAAI_NAME_UTF8_MAX];
        /* valid UTF-8 comes back unchanged, and has no control bytes */
        cr_assert_eq(ddz_caai_name_utf8(out, again, sizeof again), k);
        cr_assert_str_eq(again, out);
        for (int i = 0; i < k; i++)
            cr_assert((unsigned char)out[i] >= 0x20 && out[i] != 0x7f);
    }
}

Test(caai, name_utf8_short_buffer_keeps_whole_characters)
{
    char out[8];
    cr_assert_eq(ddz_caai_name_utf8("\xB6\xB7\xB5\xD8\xD6\xF7", out, 8), DDZ_ENOSPC);
    cr_assert_str_eq(out, "斗地");
    cr_assert_eq(ddz_caai_name_utf8("\xB6\xB7\xB5\xD8\xD6\xF7", out, 7), DDZ_ENOSPC);
    cr_assert_str_eq(out, "斗地");
    cr_assert_eq(ddz_caai_name_utf8("abc", out, 4), 3);
    cr_assert_eq(ddz_caai_name_utf8("abcd", out, 4), DDZ_ENOSPC);
    cr_assert_str_eq(out, "abc");
    cr_assert_eq(ddz_caai_name_utf8("abc", out, 0), DDZ_ENOSPC);
}

/* ---- property: whatever parse accepts, format prints, and the printed
 * line parses back to the same message ---- */

Test(caai, mutated_lines_parse_or_fail_cleanly)
{
    static const char *const seeds[] = {
        "DOUDIZHUVER 1.0",
        "NAME hrbust",
        "INFO 1,4,1,6,9,2100,15",
        "DEAL B0,4,5,7,9,10,17,21,25,33,34,39,41,43,44,45,46",
        "BID A1",
        "BID WHAT",
        "LEFTOVER B27,48,53",
        "PLAY WHAT",
        "PLAY B0,4,5,7",
        "PLAY C-1",
        "GAMEOVER C",
        "ERROR A",
        "OK GAMEOVER",
    };
    static const char alphabet[] = "ABCD0123456789-, \t\r\nWHATOKx\x80\xff";
    unsigned x = 2024;
    int accepted = 0;
    for (int t = 0; t < 20000; t++) {
        char line[128];
        const char *s = seeds[t % (sizeof seeds / sizeof seeds[0])];
        size_t n = strlen(s);
        memcpy(line, s, n);
        for (int k = 0; k < 1 + t % 3; k++) {
            x = x * 1103515245u + 12345u;
            size_t at = (x >> 8) % (n + 1);
            char ch = alphabet[(x >> 20) % (sizeof alphabet - 1)];
            switch ((x >> 4) % 3) {
            case 0: /* replace */
                if (at < n)
                    line[at] = ch;
                break;
            case 1: /* insert */
                if (n + 1 < sizeof line) {
                    memmove(line + at + 1, line + at, n - at);
                    line[at] = ch;
                    n++;
                }
                break;
            default: /* delete */
                if (at < n) {
                    memmove(line + at, line + at + 1, n - at - 1);
                    n--;
                }
            }
        }
        ddz_caai_msg m, again;
        char err[200], out[DDZ_CAAI_FORMAT_MAX];
        int rc = ddz_caai_parse(line, n, &m, err, sizeof err);
        if (rc < 0) {
            cr_assert(rc == DDZ_ESYNTAX || rc == DDZ_EUNKNOWN || rc == DDZ_ESEAT ||
                          rc == DDZ_ECARD || rc == DDZ_EDUP,
                      "unexpected %s", ddz_errname(rc));
            cr_assert_gt(strlen(err), 0);
            continue;
        }
        accepted++;
        int on = ddz_caai_format(&m, out, sizeof out);
        cr_assert_gt(on, 0, "parsed \"%.*s\" but cannot print it", (int)n, line);
        cr_assert_eq(ddz_caai_parse(out, (size_t)on, &again, err, sizeof err), 0, "%s", err);
        cr_assert_eq(memcmp(&again, &m, sizeof m), 0, "\"%s\" reparses differently", out);
    }
    cr_assert_gt(accepted, 1000, "the mutations should leave many lines valid");
}
