/* pg_conn.c - one way to open a PostgreSQL session (pg_conn.h). */
#include "service/store/pg_conn.h"

#include <stdio.h>

PGconn *ddz_pg_connect(const char *url, const char *app, int lock_timeout_ms,
                       int statement_timeout_ms)
{
    char options[320];
    snprintf(options, sizeof options,
             "-c client_min_messages=warning -c lock_timeout=%d -c statement_timeout=%d"
             " -c idle_in_transaction_session_timeout=15000 -c tcp_keepalives_idle=5"
             " -c tcp_keepalives_interval=2 -c tcp_keepalives_count=3",
             lock_timeout_ms > 0 ? lock_timeout_ms : 0,
             statement_timeout_ms > 0 ? statement_timeout_ms : 0);
    /* later keywords win: ours first, then the URL (expand_dbname) */
    const char *const keys[] = {"connect_timeout",
                                "application_name",
                                "client_encoding",
                                "options",
                                "keepalives",
                                "keepalives_idle",
                                "keepalives_interval",
                                "keepalives_count",
                                "tcp_user_timeout",
                                "dbname",
                                NULL};
    const char *const vals[] = {"5", app, "UTF8", options, "1", "5", "2", "3", "10000", url, NULL};
    return PQconnectdbParams(keys, vals, 1);
}
