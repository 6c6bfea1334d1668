/* budget.h - the server's budgets: every thing an anonymous client can make
 * the server hold has a bound (README, "Budgets"). The counts live in the
 * context (ddz_budget, context.h) and are kept where the thing is made and
 * freed (room.c, lobby.c, conn.c); this module holds the limits with their
 * defaults and prints them for /metrics. */
#ifndef DDZ_BUDGET_H
#define DDZ_BUDGET_H

#include <stdio.h>

typedef struct ddz_srv ddz_srv;

/* Defaults for one node (README, "Budgets", has the arithmetic). */
#define DDZ_BUDGET_ENGINES_DEFAULT 64

/* Returns the most engine seats live rooms may reserve (--max-engines). */
long ddz__budget_max_engines(const ddz_srv *srv);

/* Counts a request refused because budget `kind` (enum ddz_budget_kind)
 * was spent. */
void ddz__budget_refused(ddz_srv *srv, int kind);

/* Writes the budgets' gauges to `f` in Prometheus text:
 * ddz_budget_used{budget=...}, ddz_budget_limit{budget=...} and the
 * counter ddz_budget_refused_total{budget=...}. Never fails (a write error
 * shows in `f`). */
void ddz__budget_metrics(ddz_srv *srv, FILE *f);

#endif
