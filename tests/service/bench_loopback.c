/* bench_loopback.c - what one WebSocket frame costs the kernel of this
 * machine, for docs/benchmarks.md ("The kernel's share"): the sender's CPU
 * time per send() of a 300-byte message (a move's frames to one player)
 * over loopback TCP to one of 1,000 sockets that a second thread reads
 * through epoll, as the load client reads the server's frames.
 *
 *   bench_loopback [PACE_US]
 *
 * With PACE_US (e.g. 600, the benchmark's 5,000 actions/s as three sends
 * each) the sender sleeps that long after every third send, so the reader
 * sleeps between them and every send wakes it, as in `bench_serve.sh`;
 * without it the sender goes flat out and the reader is mostly awake. A
 * send on loopback carries the receiver's whole TCP input (the softirq
 * runs in the sender's context) and its wakeup: the floor under the
 * server's CPU per action, which sends three. Not a test: prints one line. */
#include <arpa/inet.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#define SOCKETS 1000
#define SENDS 150000

static int rx[SOCKETS], tx[SOCKETS];
static volatile int stop;

static void *reader(void *arg)
{
    (void)arg;
    int ep = epoll_create1(0);
    for (int i = 0; i < SOCKETS; i++) {
        struct epoll_event e = {.events = EPOLLIN, .data.fd = rx[i]};
        epoll_ctl(ep, EPOLL_CTL_ADD, rx[i], &e);
    }
    static char buf[65536];
    struct epoll_event ev[64];
    while (!stop) {
        int n = epoll_wait(ep, ev, 64, 100);
        for (int i = 0; i < n; i++)
            if (read(ev[i].data.fd, buf, sizeof buf) < 0)
                perror("read");
    }
    close(ep);
    return NULL;
}

static double thread_cpu_us(void)
{
    struct rusage r;
    getrusage(RUSAGE_THREAD, &r);
    return (double)(r.ru_utime.tv_sec + r.ru_stime.tv_sec) * 1e6 +
           (double)(r.ru_utime.tv_usec + r.ru_stime.tv_usec);
}

int main(int argc, char **argv)
{
    long pace_us = argc > 1 ? atol(argv[1]) : 0;
    int l = socket(AF_INET, SOCK_STREAM, 0);
    struct sockaddr_in a = {.sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_LOOPBACK)};
    socklen_t alen = sizeof a;
    if (l < 0 || bind(l, (struct sockaddr *)&a, sizeof a) < 0 ||
        getsockname(l, (struct sockaddr *)&a, &alen) < 0 || listen(l, SOCKETS) < 0) {
        perror("listen");
        return 1;
    }
    for (int i = 0; i < SOCKETS; i++) {
        int one = 1;
        rx[i] = socket(AF_INET, SOCK_STREAM, 0);
        if (rx[i] < 0 || connect(rx[i], (struct sockaddr *)&a, sizeof a) < 0 ||
            (tx[i] = accept(l, NULL, NULL)) < 0) {
            perror("connect");
            return 1;
        }
        setsockopt(tx[i], IPPROTO_TCP, TCP_NODELAY, &one, sizeof one); /* as the server's */
    }
    pthread_t t;
    pthread_create(&t, NULL, reader, NULL);
    char msg[300];
    memset(msg, 'x', sizeof msg);
    double c0 = thread_cpu_us();
    for (int i = 0; i < SENDS; i++) {
        if (send(tx[i % SOCKETS], msg, sizeof msg, MSG_NOSIGNAL) < 0)
            perror("send");
        if (pace_us && i % 3 == 2) {
            struct timespec d = {0, pace_us * 1000};
            nanosleep(&d, NULL);
        }
    }
    double c1 = thread_cpu_us();
    stop = 1;
    pthread_join(t, NULL);
    printf("%s: %.2f us of the sender's CPU per 300-byte send over loopback TCP\n",
           pace_us ? "paced" : "flat out", (c1 - c0) / SENDS);
    return 0;
}
