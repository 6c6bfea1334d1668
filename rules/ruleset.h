/* ruleset.h - a rule set is a named, versioned value (SPEC 8).
 *
 * The classifier, the move generator, the game state machine and the scoring
 * all take a `const ddz_rules *`. Only `caai` exists today. Adding Botzone's
 * FightTheLandlord2 means new fields here (kicker policy, multiplier policy,
 * all-pass policy) and branches where those rules differ; the generator's
 * structure (enumerate shapes, check each candidate with the classifier)
 * does not change, because it asks the classifier which readings are legal.
 */
#ifndef DDZ_RULESET_H
#define DDZ_RULESET_H

enum ddz_allpass {
    DDZ_ALLPASS_NOGAME, /* all three pass: game over, every score 0 (caai) */
};

enum ddz_multmode {
    DDZ_MULT_CAAI, /* x(1 + bombs), rocket x2, spring x2, anti-spring x2 */
};

typedef struct ddz_rules {
    const char *name;       /* stable identifier used in rooms and records */
    int version;            /* bumped whenever the rules' behaviour changes */
    int allpass;            /* enum ddz_allpass */
    int multmode;           /* enum ddz_multmode */
    int kickers_may_repeat; /* kickers may share a rank with each other */
} ddz_rules;

/* The CAAI 1.0 competition rules (SPEC 3-6), the default everywhere. */
extern const ddz_rules ddz_rules_caai;

/* Returns the rule set called `name`, or NULL if there is none. */
const ddz_rules *ddz_rules_find(const char *name);

#endif
