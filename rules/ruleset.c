/* ruleset.c - the table of known rule sets. */
#include "ruleset.h"

#include <string.h>

const ddz_rules ddz_rules_caai = {
    .name = "caai",
    .version = 1,
    .allpass = DDZ_ALLPASS_NOGAME,
    .multmode = DDZ_MULT_CAAI,
    .kickers_may_repeat = 1,
};

static const ddz_rules *const known[] = {&ddz_rules_caai};

const ddz_rules *ddz_rules_find(const char *name)
{
    for (unsigned i = 0; i < sizeof known / sizeof known[0]; i++)
        if (strcmp(known[i]->name, name) == 0)
            return known[i];
    return NULL;
}
