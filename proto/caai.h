/* caai.h - the CAAI 1.0 engine protocol as values: parse and print lines.
 *
 * Pure codec (spec §7): no I/O, no allocation. One ddz_caai_msg is one line,
 * in either direction. Grammar, with SP = one or more spaces or tabs and
 * d = A | B | C (seat 0, 1, 2):
 *
 *     DOUDIZHUVER SP version          version = digits and dots, <= 15 bytes
 *     NAME SP name                    name = rest of the line, raw bytes
 *     INFO SP n,n,n,n,n,n,n           turn,turns,game,games,up,maxscore,time
 *     DEAL SP d cards                 exactly 17 cards: the receiver's seat
 *     BID SP d bid                    bid = 0..3 (one digit)
 *     BID SP WHAT
 *     LEFTOVER SP d cards             exactly 3 cards: d is the landlord
 *     PLAY SP d cards | PLAY SP d-1   1 or more cards, or -1 for a pass
 *     PLAY SP WHAT
 *     GAMEOVER SP d                   d is the winner
 *     ERROR SP d                      d is the faulty seat
 *     OK SP word                      word = INFO DEAL BID LEFTOVER PLAY
 *                                            GAMEOVER ERROR
 *
 * Parsing is tolerant where real engines are sloppy: a CRLF, LF or no line
 * end, spaces and tabs around the line, after the seat letter and around
 * commas, card lists in any order. It is strict about meaning: keywords are
 * case-sensitive, counts and ranges are checked, nothing may follow the last
 * field. Printing is canonical: single spaces, ascending card lists, "-1"
 * for a pass, no line end (the caller adds "\n"), so for every line x that
 * is already canonical, format(parse(x)) == x (tests/proto/caai_lines.txt).
 */
#ifndef DDZ_CAAI_H
#define DDZ_CAAI_H

#include <stddef.h>
#include <stdint.h>

#include "rules/cards.h"

enum {
    /* Longest line ddz_caai_parse() accepts, not counting its CRLF or LF.
     * A reader should stop buffering an engine's line beyond this. */
    DDZ_CAAI_LINE_MAX = 4096,
    /* Longest line, without its line end, that the seed sample engine's
     * 80-byte buffer takes whole together with "\n" and a terminating NUL.
     * Every DEAL, LEFTOVER, BID and PLAY of a real game is at most 65 bytes
     * (a 20-card PLAY); only an INFO with huge numbers or a PLAY of more than
     * 24 cards (impossible in a game) can exceed it. */
    DDZ_CAAI_SHORT_MAX = 78,
    /* A buffer of this many bytes holds any formatted line plus its NUL. */
    DDZ_CAAI_FORMAT_MAX = 192,
    /* Room for ddz_caai_name_utf8() of any parsed name: every raw byte
     * becomes at most 3 bytes of UTF-8 (a U+FFFD), plus the NUL. */
    DDZ_CAAI_NAME_UTF8_MAX = 3 * 63 + 1,
};

enum ddz_caai_kind {
    DDZ_CAAI_NONE = 0,  /* not a message (zeroed struct) */
    DDZ_CAAI_VERSION,   /* DOUDIZHUVER 1.0 */
    DDZ_CAAI_NAME,      /* NAME hrbust */
    DDZ_CAAI_INFO,      /* INFO 1,4,1,6,9,2100,15 */
    DDZ_CAAI_DEAL,      /* DEAL B0,4,...,46 */
    DDZ_CAAI_BID,       /* BID A1 (a bid, relayed or answered) */
    DDZ_CAAI_BID_WHAT,  /* BID WHAT */
    DDZ_CAAI_LEFTOVER,  /* LEFTOVER B27,48,53 */
    DDZ_CAAI_PLAY,      /* PLAY B0,4,5,7 or PLAY C-1 */
    DDZ_CAAI_PLAY_WHAT, /* PLAY WHAT */
    DDZ_CAAI_GAMEOVER,  /* GAMEOVER C */
    DDZ_CAAI_ERROR,     /* ERROR A */
    DDZ_CAAI_OK,        /* OK INFO, OK DEAL, ... */
    DDZ_CAAI_NKINDS
};

typedef struct ddz_caai_info {
    int turn;     /* turnid: this turn, from 1 */
    int turns;    /* turncount */
    int game;     /* roundid: this game within the turn, from 1 */
    int games;    /* roundcount: games per turn */
    int up;       /* upcount: players promoted after this turn */
    int maxscore; /* score cap of a turn (2100) */
    int time;     /* seconds per answer (15) */
} ddz_caai_info;

typedef struct ddz_caai_msg {
    uint8_t kind;       /* enum ddz_caai_kind */
    int8_t seat;        /* 0..2 = A..C for DEAL BID LEFTOVER PLAY GAMEOVER ERROR; else -1 */
    uint8_t ok_of;      /* OK only: the kind acknowledged (INFO DEAL BID LEFTOVER PLAY
                           GAMEOVER ERROR) */
    int8_t bid;         /* BID only: 0..3 */
    ddz_cards cards;    /* DEAL LEFTOVER PLAY: the cards; 0 in a PLAY is a pass ("-1"),
                           as in ddz_game_play() */
    ddz_caai_info info; /* INFO only */
    char version[16];   /* DOUDIZHUVER only, NUL-terminated */
    char name[64];      /* NAME only: raw bytes as received (maybe GBK), NUL-terminated,
                           truncated to 63 bytes; see ddz_caai_name_utf8() */
} ddz_caai_msg;

/* Parses one line of `len` bytes (need not be NUL-terminated; a trailing
 * CRLF or LF is allowed). Returns 0 and fills *out (every field not used by
 * the kind is zero, seat -1), or a negative code and writes a one-line
 * reason into `err` (if not NULL, at most `errlen` bytes); *out is then
 * unspecified:
 *   DDZ_ETOOLONG  more than DDZ_CAAI_LINE_MAX bytes before the line end
 *   DDZ_EUNKNOWN  the first word is no CAAI keyword (they are case-sensitive)
 *   DDZ_ESEAT     a seat letter other than A, B or C
 *   DDZ_ECARD     a card code outside 0..53 (from ddz_text_parse_cards)
 *   DDZ_EDUP      a card listed twice (from ddz_text_parse_cards)
 *   DDZ_ESYNTAX   anything else: empty line, NUL or line break inside, a
 *                 missing or extra field, a bid outside 0..3, an empty card
 *                 list, DEAL not 17 cards, LEFTOVER not 3 cards, INFO not 7
 *                 non-negative integers, OK of an unknown word. */
int ddz_caai_parse(const char *line, size_t len, ddz_caai_msg *out, char *err, size_t errlen);

/* Writes the canonical line of `m` (no line end) and a NUL into buf (at most
 * `len` bytes; DDZ_CAAI_FORMAT_MAX always suffice). Returns the length
 * written, or DDZ_ENOSPC (buf then holds some prefix), or DDZ_EINVAL when
 * `m` is no message the parser would accept: unknown kind, seat outside
 * 0..2, bid outside 0..3, a DEAL without 17 or LEFTOVER without 3 cards,
 * a card above 53, a negative INFO field, a bad OK word, an empty or
 * non-numeric version, or a name that is empty, holds a CR or LF, or
 * starts or ends with a space or tab (the parser would trim it). */
int ddz_caai_format(const ddz_caai_msg *m, char *buf, size_t len);

/* Returns the length ddz_caai_format() would write for `m`, or DDZ_EINVAL.
 * The referee compares it with DDZ_CAAI_SHORT_MAX to keep lines readable by
 * engines with an 80-byte buffer; longer lines are still legal CAAI and are
 * sent anyway (see DDZ_CAAI_SHORT_MAX for when that can happen). */
int ddz_caai_format_len(const ddz_caai_msg *m);

/* Returns the keyword of `kind` as it starts a line ("DOUDIZHUVER", "NAME",
 * "INFO", "DEAL", "BID", "LEFTOVER", "PLAY", "GAMEOVER", "ERROR", "OK"; BID_WHAT
 * gives "BID", PLAY_WHAT "PLAY"), or "?" for anything else. Never NULL. */
const char *ddz_caai_keyword(int kind);

/* Converts an engine's raw name to displayable UTF-8 (spec §7: names may be
 * GBK). If `raw` is valid UTF-8 it is copied; else if it is valid GB18030 (a
 * superset of GBK; an incomplete character at the very end, as left by the
 * parser's truncation, becomes U+FFFD) it is converted with iconv; else it is
 * read as UTF-8 with every invalid byte replaced by U+FFFD. In all cases
 * control characters (C0, DEL, C1) become U+FFFD, so the result is valid
 * UTF-8 safe for JSON and logs. Writes it NUL-terminated into out (at most
 * `outlen` bytes; 3 * strlen(raw) + 1 always suffice). Returns its length,
 * or DDZ_ENOSPC when it did not fit: out then holds as many whole characters
 * as fit (still valid UTF-8) unless outlen is 0. */
int ddz_caai_name_utf8(const char *raw, char *out, size_t outlen);

#endif
