/* error.c - messages and names generated from DDZ_ERRNO_MAP. */
#include "error.h"

const char *ddz_strerror(int err)
{
    switch (err) {
    case DDZ_OK:
        return "success";
#define DDZ__ERR_MSG(name, num, msg)                                                               \
    case DDZ_##name:                                                                               \
        return msg;
        DDZ_ERRNO_MAP(DDZ__ERR_MSG)
#undef DDZ__ERR_MSG
    }
    return "unknown error";
}

const char *ddz_errname(int err)
{
    switch (err) {
    case DDZ_OK:
        return "OK";
#define DDZ__ERR_NAME(name, num, msg)                                                              \
    case DDZ_##name:                                                                               \
        return #name;
        DDZ_ERRNO_MAP(DDZ__ERR_NAME)
#undef DDZ__ERR_NAME
    }
    return "EUNKNOWNERR";
}
