/* metrics.c - GET /metrics (see metrics.h). */
#include "service/server/metrics.h"

#include <stdio.h> /* first: it defines __GLIBC__, which the test below reads */
#include <string.h>
/* glibc's heap figures; under ASan, whose allocator answers mallinfo2
 * with zeros, the metric is left out rather than wrong */
#if defined(__GLIBC__) && !defined(__SANITIZE_ADDRESS__)
#define DDZ_HEAP_METRIC 1
#include <malloc.h>
#endif

#include "service/cluster/cluster.h"
#include "service/engine/engine.h"
#include "service/server/analyst.h"
#include "service/server/budget.h"
#include "service/server/conn.h"
#include "service/server/context.h"
#include "service/server/http_routes.h"
#include "service/server/lead_srv.h"
#include "service/server/room.h"

/* Writes one sample of metric `name` with its `# TYPE` line ("gauge" or
 * "counter") to `f`. */
static void metric(FILE *f, const char *type, const char *name, long long v)
{
    fprintf(f, "# TYPE %s %s\n%s %lld\n", name, type, name, v);
}

char *ddz__metrics_text(ddz_srv *srv)
{
    static const char *const fault_names[] = {"none", "timeout", "illegal", "protocol", "crash"};
    char *buf = NULL;
    size_t size = 0;
    FILE *f = open_memstream(&buf, &size);
    if (!f)
        return NULL;
    ddz_metrics *m = &srv->m;
    long rooms = 0, players = 0;
    long locked_rooms = 0;     /* rooms refusing passwords now */
    long room_spawns_used = 0; /* the most of its start budget a room used */
    int64_t now = ddz__now_us();
    for (ddz_room *r = srv->rooms.list; r; r = ddz__room_next(r)) {
        rooms++;
        locked_rooms += ddz__tries_locked(ddz__room_tries(r), now) > 0;
        long used = ddz_spawn_budget_used(ddz__room_spawns(r), now);
        room_spawns_used = used > room_spawns_used ? used : room_spawns_used;
    }
    for (ddz_player *p = srv->players.list; p; p = p->next)
        players++;
    ddz_store_counters sc = {0};
    if (srv->store)
        ddz_store_stats(srv->store, &sc);
    metric(f, "gauge", "ddz_connections", m->connections);
    metric(f, "counter", "ddz_connections_total", m->connections_total);
    /* the descriptor budget (service/net/listener.h): connections shed at
     * it, and the times accepting paused because none could be accepted */
    metric(f, "gauge", "ddz_descriptor_limit", srv->listener.budget.nofile);
    metric(f, "counter", "ddz_connections_shed_total", srv->listener.shed);
    metric(f, "counter", "ddz_accept_pauses_total", srv->listener.pauses);
    /* the sockets at the door (service/net/gate.h): counted now, heads
     * being read, and what was refused there */
    const ddz_gate *g = &srv->gate;
    metric(f, "gauge", "ddz_sockets", g->open);
    metric(f, "gauge", "ddz_heads_pending", g->nheld);
    metric(f, "counter", "ddz_http_400_total", g->bad);
    metric(f, "counter", "ddz_http_431_total", g->too_large);
    metric(f, "counter", "ddz_heads_timed_out_total", g->timed_out);
    /* handed to lws, not answered yet; closed unanswered at the deadline */
    metric(f, "gauge", "ddz_requests_unanswered", g->nwaiting);
    metric(f, "counter", "ddz_requests_timed_out_total", g->late);
    metric(f, "counter", "ddz_heads_shed_total", g->shed);
    fprintf(f,
            "# TYPE ddz_http2_cleartext_refused_total counter\n"
            "ddz_http2_cleartext_refused_total %ld\n",
            g->h2c);
    /* which loop runs (serve --event-loop): epoll, or poll as the fallback */
    fprintf(f, "# TYPE ddz_event_loop_info gauge\nddz_event_loop_info{loop=\"%s\"} 1\n",
            ddz_evloop_name(&srv->evl));
    /* how late the loop's timers (clocks, AI pauses, pings) fire */
    fprintf(f, "# TYPE ddz_timer_lateness_seconds histogram\n");
    uint64_t fired = 0;
    for (int b = 0; b < DDZ_LATE_BUCKETS; b++) {
        fired += srv->loop.late[b];
        if (b < DDZ_LATE_BUCKETS - 1)
            fprintf(f, "ddz_timer_lateness_seconds_bucket{le=\"%g\"} %llu\n",
                    ddz_lws_loop_late_le_us[b] / 1e6, (unsigned long long)fired);
    }
    fprintf(f, "ddz_timer_lateness_seconds_bucket{le=\"+Inf\"} %llu\n", (unsigned long long)fired);
    fprintf(f, "ddz_timer_lateness_seconds_sum %.6f\nddz_timer_lateness_seconds_count %llu\n",
            srv->loop.late_sum_us / 1e6, (unsigned long long)fired);
    metric(f, "gauge", "ddz_rooms", rooms);
    /* players kept in memory: connected, or gone but still resumable */
    metric(f, "gauge", "ddz_players", players);
    if (srv->cluster) {
        /* the cluster as this node last read it (service/cluster) */
        ddz_cluster_view v = ddz_cluster_view_get(srv->cluster);
        metric(f, "gauge", "ddz_cluster_up", (long long)(v.connected ? 1 : 0));
        metric(f, "gauge", "ddz_cluster_nodes", v.nnodes);
        metric(f, "gauge", "ddz_cluster_other_rooms", v.nrooms);
    }
#ifdef DDZ_HEAP_METRIC
    /* Heap bytes in use (the main arena, where the event loop allocates,
     * and chunks of their own mapping): set against the RSS it tells a leak
     * (this grows too) from fragmentation (it does not). */
    struct mallinfo2 mi = mallinfo2();
    metric(f, "gauge", "ddz_heap_bytes", (long long)(mi.uordblks + mi.hblkhd));
#endif
    metric(f, "counter", "ddz_games_started_total", m->games_started);
    metric(f, "counter", "ddz_games_finished_total", m->games_finished);
    metric(f, "counter", "ddz_games_aborted_total", m->games_aborted);
    fprintf(f, "# TYPE ddz_faults_total counter\n");
    for (int k = 1; k < 5; k++)
        fprintf(f, "ddz_faults_total{kind=\"%s\"} %ld\n", fault_names[k], m->faults[k]);
    metric(f, "gauge", "ddz_engine_processes", m->engines);
    /* stopped, in their grace or dying: not counted above, nor waited for */
    metric(f, "gauge", "ddz_engine_processes_stopping", ddz_engine_stopping());
    size_t biggest_queue = 0; /* the longest send queue */
    for (const ddz_conn *c = srv->budget.conns; c; c = c->next)
        if (c->q.bytes > biggest_queue)
            biggest_queue = c->q.bytes;
    ddz__budget_metrics(srv, f, locked_rooms, room_spawns_used, biggest_queue);
    ddz__lead_metrics(srv, f);
    for (int i = 0; i < srv->nplugins; i++)
        if (srv->plugin[i]->metrics)
            srv->plugin[i]->metrics(srv->plugin_self[i], f);
    metric(f, "counter", "ddz_frames_received_total", m->frames_in);
    metric(f, "counter", "ddz_frames_sent_total", m->frames_out);
    /* connections closed by the receive limits (server.c, rx_chunk) */
    fprintf(f, "# TYPE ddz_ws_receive_closed_total counter\n");
    fprintf(f, "ddz_ws_receive_closed_total{reason=\"too_large\"} %ld\n", m->ws_too_large);
    fprintf(f, "ddz_ws_receive_closed_total{reason=\"unfinished\"} %ld\n", m->ws_unfinished);
    fprintf(f, "ddz_ws_receive_closed_total{reason=\"flooding\"} %ld\n", m->ws_flooding);
    /* every write lost: failed for its data, refused (queue full), or
     * dropped by the journal past its bound (also counted alone below) */
    metric(f, "counter", "ddz_db_write_errors_total",
           (long long)(sc.write_errors + sc.drops + sc.journal_dropped));
    /* the journal (store.h): writes kept while the database is away */
    metric(f, "gauge", "ddz_db_journal_pending", sc.journal_pending);
    metric(f, "gauge", "ddz_db_journal_pending_bytes", sc.journal_bytes);
    metric(f, "counter", "ddz_db_journal_appended_total", sc.journal_appended);
    metric(f, "counter", "ddz_db_journal_replayed_total", sc.journal_replayed);
    metric(f, "counter", "ddz_db_journal_dropped_total", sc.journal_dropped);
    metric(f, "counter", "ddz_db_read_errors_total", sc.read_errors);
    /* game ids handed out while the PostgreSQL store had none in hand
     * (store.h: the database away for a block's worth of games) */
    metric(f, "counter", "ddz_db_ids_without_db_total", sc.ids_past);
    fprintf(f, "# TYPE ddz_action_latency_seconds histogram\n");
    long cum = 0;
    for (int b = 0; b < 11; b++) {
        cum += m->latency_buckets[b];
        fprintf(f, "ddz_action_latency_seconds_bucket{le=\"%g\"} %ld\n", (100 << b) / 1e6, cum);
    }
    cum += m->latency_buckets[11];
    fprintf(f, "ddz_action_latency_seconds_bucket{le=\"+Inf\"} %ld\n", cum);
    fprintf(f, "ddz_action_latency_seconds_sum %g\nddz_action_latency_seconds_count %ld\n",
            m->latency_sum_s, m->latency_count);
    /* GET /api/games/ID/analysis by result (context.h), and the jobs in hand */
    fprintf(f,
            "# TYPE ddz_analyses_total counter\n"
            "ddz_analyses_total{result=\"computed\"} %ld\n"
            "ddz_analyses_total{result=\"failed\"} %ld\n"
            "ddz_analyses_total{result=\"cached\"} %ld\n"
            "ddz_analyses_total{result=\"pending\"} %ld\n"
            "ddz_analyses_total{result=\"refused\"} %ld\n",
            m->analyses_computed, m->analyses_failed, m->analyses_cached, m->analyses_pending,
            m->analyses_refused);
    metric(f, "gauge", "ddz_analyses_in_hand",
           srv->analyst ? ddz_analyst_pending(srv->analyst) : 0);
    fclose(f);
    return buf;
}

/* GET /metrics: the text, as Prometheus reads it. */
static void metrics_get(ddz_srv *srv, const char *path, ddz_http_req *req)
{
    (void)path;
    req->type = "text/plain; version=0.0.4";
    req->body = ddz__metrics_text(srv);
}

int ddz__metrics_routes(ddz_srv *srv)
{
    return ddz__http_route_add(&srv->routes, "/metrics", false, metrics_get);
}
