/* budget.c - the limits of the server's budgets and their metrics. */
#include "service/server/budget.h"

#include "service/server/context.h"

static const char *const budget_names[DDZ_BUDGET_N] = {
    [DDZ_BUDGET_ENGINES] = "engines",
};

long ddz__budget_max_engines(const ddz_srv *srv)
{
    return srv->cfg.max_engines > 0 ? srv->cfg.max_engines : DDZ_BUDGET_ENGINES_DEFAULT;
}

void ddz__budget_refused(ddz_srv *srv, int kind)
{
    if (kind >= 0 && kind < DDZ_BUDGET_N)
        srv->budget.refused[kind]++;
}

void ddz__budget_metrics(ddz_srv *srv, FILE *f)
{
    const ddz_budget *b = &srv->budget;
    long used[DDZ_BUDGET_N] = {[DDZ_BUDGET_ENGINES] = b->engines};
    long limit[DDZ_BUDGET_N] = {[DDZ_BUDGET_ENGINES] = ddz__budget_max_engines(srv)};
    fprintf(f, "# TYPE ddz_budget_used gauge\n");
    for (int k = 0; k < DDZ_BUDGET_N; k++)
        fprintf(f, "ddz_budget_used{budget=\"%s\"} %ld\n", budget_names[k], used[k]);
    fprintf(f, "# TYPE ddz_budget_limit gauge\n");
    for (int k = 0; k < DDZ_BUDGET_N; k++)
        fprintf(f, "ddz_budget_limit{budget=\"%s\"} %ld\n", budget_names[k], limit[k]);
    fprintf(f, "# TYPE ddz_budget_refused_total counter\n");
    for (int k = 0; k < DDZ_BUDGET_N; k++)
        fprintf(f, "ddz_budget_refused_total{budget=\"%s\"} %ld\n", budget_names[k], b->refused[k]);
}
