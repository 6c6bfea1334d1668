/* metrics.h - GET /metrics: the service's figures in Prometheus's text
 * format (version 0.0.4), read from the context (context.h), the rooms,
 * the door (the listener, the gate), the loop's timers, the store, the
 * cluster, the budgets (budget.c) and the analyst. README, "Metrics",
 * names them.
 */
#ifndef DDZ_METRICS_H
#define DDZ_METRICS_H

typedef struct ddz_srv ddz_srv;

/* Returns the text (malloc'd), or NULL when out of memory. A few kB; its
 * size is bounded by the code's metric families, not by what clients do
 * (the rooms and players are counted, not listed). */
char *ddz__metrics_text(ddz_srv *srv);

/* Registers GET /metrics in srv's route table (http_routes.h). Returns 0
 * or what ddz__http_route_add() returns. */
int ddz__metrics_routes(ddz_srv *srv);

#endif
