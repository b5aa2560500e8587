// SPDX-License-Identifier: GPL-2.0-only
/*
 * ag_http: /metrics through the real libmicrohttpd on a loopback port,
 * with a collection that waits (as the module's netlink dumps do under
 * load).  The loop that runs ag_http_run() must go on while it waits;
 * scrapes queued meanwhile share one collection; a stop with scrapes
 * still waiting frees them.  Built with ASan/UBSan and with TSan.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <poll.h>
#include <pthread.h>
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>
#include <cmocka.h>

#include "agent.h"

#define TH_CLIENTS	3

struct th {
	atomic_int fills;		/* ag_fill's calls, in the loop */
	atomic_int collects;		/* collect's calls, in the thread */
	atomic_int gate;		/* the first collection waits for it */
	atomic_int gate_waiting;	/* it is waiting */
	atomic_int answered;		/* clients that read their reply */
	int hold_ms;			/* every collection's wait */
	char listen[32];
	uint16_t port;
};

struct th_client {
	struct th *t;
	char reply[4096];
	size_t len;
	int err;
};

static uint64_t th_now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000 + (uint64_t)ts.tv_nsec / 1000000;
}

static void th_sleep_ms(int ms)
{
	struct timespec ts = { ms / 1000, (long)(ms % 1000) * 1000000 };

	while (nanosleep(&ts, &ts) && errno == EINTR)
		;
}

struct th_job {
	struct th *t;
};

static void *th_fill(FILE *f, void *arg)
{
	struct th *t = arg;
	struct th_job *j = malloc(sizeof(*j));
	int n = atomic_fetch_add(&t->fills, 1) + 1;

	fprintf(f, "loop_part %d\n", n);
	if (j)
		j->t = t;
	return j;
}

static void th_collect(FILE *f, void *job)
{
	struct th *t = ((struct th_job *)job)->t;
	int n = atomic_fetch_add(&t->collects, 1) + 1;

	if (n == 1) {
		atomic_store(&t->gate_waiting, 1);
		while (!atomic_load(&t->gate))
			th_sleep_ms(5);
	}
	th_sleep_ms(t->hold_ms);
	fprintf(f, "collected_part %d\n", n);
}

/* A free loopback port: bound by the kernel, then given back. */
static uint16_t th_free_port(void)
{
	struct sockaddr_in a = { .sin_family = AF_INET };
	socklen_t len = sizeof(a);
	int fd = socket(AF_INET, SOCK_STREAM, 0);
	uint16_t port = 0;

	a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	if (fd >= 0 && !bind(fd, (struct sockaddr *)&a, sizeof(a)) &&
	    !getsockname(fd, (struct sockaddr *)&a, &len))
		port = ntohs(a.sin_port);
	if (fd >= 0)
		close(fd);
	return port;
}

static void *th_client_run(void *arg)
{
	static const char req[] = "GET /metrics HTTP/1.1\r\nHost: test\r\nConnection: close\r\n\r\n";
	struct th_client *c = arg;
	struct sockaddr_in a = { .sin_family = AF_INET };
	ssize_t n;
	int fd;

	a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	a.sin_port = htons(c->t->port);
	fd = socket(AF_INET, SOCK_STREAM, 0);
	if (fd < 0 || connect(fd, (struct sockaddr *)&a, sizeof(a)) ||
	    write(fd, req, sizeof(req) - 1) != (ssize_t)(sizeof(req) - 1)) {
		c->err = errno ? errno : EIO;
		if (fd >= 0)
			close(fd);
		return NULL;
	}
	while (c->len < sizeof(c->reply) - 1 &&
	       (n = read(fd, c->reply + c->len,
			 sizeof(c->reply) - 1 - c->len)) > 0)
		c->len += (size_t)n;
	c->reply[c->len] = '\0';
	close(fd);
	atomic_fetch_add(&c->t->answered, 1);
	return NULL;
}

struct th_loop {
	uint64_t max_gap_ms;		/* the longest turn */
	unsigned int turns;
};

/*
 * The agent's loop as rocetuned runs it, for at most @ms or until
 * @done(t) holds: poll() on ag_http_fd() with ag_http_timeout_ms(), but
 * at most 10 ms, as the agent's own timers would wake it, and
 * ag_http_run() on every turn, as rocetuned's loop.
 */
static void th_loop(struct ag_http *h, struct th *t, int ms,
		    int (*done)(struct th *t), struct th_loop *l)
{
	uint64_t end = th_now_ms() + (uint64_t)ms, start, took;
	struct pollfd p = { .fd = ag_http_fd(h), .events = POLLIN };
	int to;

	while (th_now_ms() < end && !(done && done(t))) {
		start = th_now_ms();
		to = ag_http_timeout_ms(h);
		if (to < 0 || to > 10)
			to = 10;
		if (poll(&p, 1, to) < 0 && errno != EINTR)
			break;
		ag_http_run(h);		/* every turn, as rocetuned */
		took = th_now_ms() - start;
		if (l && took > l->max_gap_ms)
			l->max_gap_ms = took;
		if (l)
			l->turns++;
	}
}

static int th_setup(void **state)
{
	struct th *t = calloc(1, sizeof(*t));

	if (!t)
		return -1;
	t->port = th_free_port();
	if (!t->port) {
		free(t);
		return -1;
	}
	snprintf(t->listen, sizeof(t->listen), "127.0.0.1:%u", t->port);
	*state = t;
	return 0;
}

static int th_teardown(void **state)
{
	free(*state);
	return 0;
}

static struct ag_http *th_start(struct th *t)
{
	const struct ag_http_src src = {
		.fill = th_fill,
		.collect = th_collect,
		.arg = t,
	};

	return ag_http_start(t->listen, NULL, &src);
}

static int th_gate_waiting(struct th *t)
{
	return atomic_load(&t->gate_waiting);
}

static int th_answered(struct th *t)
{
	return atomic_load(&t->answered) > 0;
}

static int th_all_filled(struct th *t)
{
	return atomic_load(&t->fills) == TH_CLIENTS;
}

static int th_two_filled(struct th *t)
{
	return atomic_load(&t->fills) == 2;
}

/*
 * A scrape whose collection takes 1 s: from the request to the answer no
 * turn of the loop takes half of that (one held by the collection would
 * take all of it), and the scrape answers both parts with 200.
 */
static void test_loop_goes_on(void **state)
{
	struct th *t = *state;
	struct th_loop l = { 0 };
	struct th_client c = { .t = t };
	struct ag_http *h;
	pthread_t thr;

	t->hold_ms = 1000;
	atomic_store(&t->gate, 1);
	h = th_start(t);
	assert_non_null(h);
	assert_int_equal(pthread_create(&thr, NULL, th_client_run, &c), 0);
	th_loop(h, t, 10000, th_answered, &l);
	assert_int_equal(atomic_load(&t->answered), 1);
	assert_int_equal(atomic_load(&t->collects), 1);
	assert_true(l.max_gap_ms < 500);
	assert_true(l.turns >= 20);
	assert_int_equal(pthread_join(thr, NULL), 0);
	assert_int_equal(c.err, 0);
	assert_non_null(strstr(c.reply, "HTTP/1.1 200"));
	assert_non_null(strstr(c.reply, "text/plain; version=0.0.4"));
	assert_non_null(strstr(c.reply, "\r\n\r\nloop_part 1\ncollected_part 1\n"));
	ag_http_stop(h);
}

/*
 * Three scrapes, the first one's collection held until the other two are
 * in the loop's hands: the two that queued meanwhile share the second
 * collection, and each answers its own loop part.
 */
static void test_queued_share(void **state)
{
	struct th *t = *state;
	struct th_client c[TH_CLIENTS];
	pthread_t thr[TH_CLIENTS];
	struct ag_http *h;
	int i, seen[TH_CLIENTS + 1] = { 0 };
	char *p;

	h = th_start(t);
	assert_non_null(h);
	for (i = 0; i < TH_CLIENTS; i++) {
		c[i] = (struct th_client){ .t = t };
		assert_int_equal(pthread_create(&thr[i], NULL, th_client_run,
						&c[i]), 0);
		if (i)
			continue;
		/* the first in the collector's hands, then the others */
		th_loop(h, t, 5000, th_gate_waiting, NULL);
		assert_int_equal(th_gate_waiting(t), 1);
	}
	th_loop(h, t, 10000, th_all_filled, NULL);
	assert_int_equal(atomic_load(&t->fills), TH_CLIENTS);
	atomic_store(&t->gate, 1);
	th_loop(h, t, 3000, NULL, NULL);
	for (i = 0; i < TH_CLIENTS; i++) {
		int n;

		assert_int_equal(pthread_join(thr[i], NULL), 0);
		assert_int_equal(c[i].err, 0);
		assert_non_null(strstr(c[i].reply, "HTTP/1.1 200"));
		p = strstr(c[i].reply, "\r\n\r\nloop_part ");
		assert_non_null(p);
		n = atoi(p + strlen("\r\n\r\nloop_part "));
		assert_true(n >= 1 && n <= TH_CLIENTS);
		seen[n]++;
		assert_non_null(strstr(p, "\ncollected_part "));
	}
	for (i = 1; i <= TH_CLIENTS; i++)
		assert_int_equal(seen[i], 1);
	assert_int_equal(atomic_load(&t->collects), 2);
	ag_http_stop(h);
}

/*
 * A stop while one scrape is being collected and another waits for the
 * collector: it returns, the clients see their connections closed, and
 * (ASan) nothing of either is leaked.
 */
static void test_stop_pending(void **state)
{
	struct th *t = *state;
	struct th_client c[2] = { { .t = t }, { .t = t } };
	pthread_t thr[2];
	struct ag_http *h;
	int i;

	t->hold_ms = 200;
	h = th_start(t);
	assert_non_null(h);
	for (i = 0; i < 2; i++)
		assert_int_equal(pthread_create(&thr[i], NULL, th_client_run,
						&c[i]), 0);
	th_loop(h, t, 10000, th_gate_waiting, NULL);
	th_loop(h, t, 10000, th_two_filled, NULL);
	assert_int_equal(atomic_load(&t->fills), 2);
	atomic_store(&t->gate, 1);
	ag_http_stop(h);
	for (i = 0; i < 2; i++)
		assert_int_equal(pthread_join(thr[i], NULL), 0);
	assert_true(atomic_load(&t->collects) <= 2);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_loop_goes_on, th_setup,
						th_teardown),
		cmocka_unit_test_setup_teardown(test_queued_share, th_setup,
						th_teardown),
		cmocka_unit_test_setup_teardown(test_stop_pending, th_setup,
						th_teardown),
	};

	ag_log_init(false, AG_WARNING);
	return cmocka_run_group_tests(tests, NULL, NULL);
}
