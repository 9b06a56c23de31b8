/* SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB */
/*
 * The built-in bootstrap: a TCP rendezvous at rank 0 that serves as the
 * out-of-band allgather for standalone tools (ibflow-probe).
 *
 * Rank 0 listens on IBFLOW_BOOT_ADDR; every other rank connects (retrying
 * until the timeout, so start order does not matter) and introduces itself
 * with its rank and the job size, which rank 0 checks.  An allgather is
 * one block from every rank to rank 0 and the whole array back, each block
 * headed by the allgather's number and length so that a rank that is out
 * of step is an error, not garbage.  Sockets are non-blocking after the
 * rendezvous: req_test() moves bytes without waiting, and the library
 * progresses UCX in between.
 */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <netdb.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include "core/ucx_internal.h"

#define BOOT_MAGIC 0x69626662u  /* "ibfb" */

typedef struct hdr {
	uint32_t magic, seq;
	uint64_t len;
} hdr_t;

typedef struct peer {
	int fd;
	size_t in_done, out_done;  /* bytes of the current exchange */
	hdr_t in_hdr;
} peer_t;

struct ibf_ucx_boot {
	ibf_ucx_boot_params_t p;
	ibf_ucx_oob_t oob;
	peer_t *peers;     /* rank 0: [size]; others: [1] = rank 0 */
	uint32_t npeers;
	uint32_t seq;
	/* the exchange under way */
	bool busy;
	hdr_t out_hdr;
	const uint8_t *sbuf;
	uint8_t *rbuf;
	size_t len;
	int state;         /* rank 0: 0 gather, 1 scatter; others: 0 send,
			      1 receive; 2 done; -1 failed */
	char msg[512];
};

static ibf_ucx_status_t boot_fail(ibf_ucx_boot_t *b, ibf_ucx_err_t *err,
				  ibf_ucx_status_t st, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));

static ibf_ucx_status_t boot_fail(ibf_ucx_boot_t *b, ibf_ucx_err_t *err,
				  ibf_ucx_status_t st, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(b->msg, sizeof(b->msg), fmt, ap);
	va_end(ap);
	return ibf_ucx_err_set(err, st, "bootstrap %s (rank %u): %s",
			       b->p.addr, b->p.rank, b->msg);
}

/* ---- parameters --------------------------------------------------------------- */

static ibf_ucx_status_t env_u32(const char *name, uint32_t *v, bool *set,
				ibf_ucx_err_t *err)
{
	const char *s = getenv(name);
	unsigned long x;
	char *end;

	*set = false;
	if (!s)
		return IBF_UCX_OK;
	errno = 0;
	x = strtoul(s, &end, 10);
	if (!*s || *end || errno || x > UINT32_MAX || s[0] == '-')
		return ibf_ucx_err_set(err, IBF_UCX_ERR_CONFIG, "%s: '%s' is not "
				       "an unsigned integer", name, s);
	*v = (uint32_t)x;
	*set = true;
	return IBF_UCX_OK;
}

ibf_ucx_status_t ibf_ucx_boot_params_env(ibf_ucx_boot_params_t *p,
					 ibf_ucx_err_t *err)
{
	static const char *const ranks[] = { "IBFLOW_BOOT_RANK",
		"OMPI_COMM_WORLD_RANK", "PMIX_RANK", "PMI_RANK" };
	static const char *const sizes[] = { "IBFLOW_BOOT_SIZE",
		"OMPI_COMM_WORLD_SIZE", "PMI_SIZE" };
	const char *a = getenv("IBFLOW_BOOT_ADDR");
	bool set = false, have_rank = false;
	uint32_t v;
	unsigned i;

	if (!p->addr[0] && a)
		snprintf(p->addr, sizeof(p->addr), "%s", a);
	if (!p->size) {
		for (i = 0; i < 3 && !set; i++)
			if (env_u32(sizes[i], &v, &set, err) != IBF_UCX_OK)
				return IBF_UCX_ERR_CONFIG;
		if (set)
			p->size = v;
		for (i = 0, set = false; i < 4 && !set; i++)
			if (env_u32(ranks[i], &v, &set, err) != IBF_UCX_OK)
				return IBF_UCX_ERR_CONFIG;
		if (set)
			p->rank = v;
		have_rank = set;
		if (p->size && !have_rank)
			return ibf_ucx_err_set(err, IBF_UCX_ERR_CONFIG,
					       "the job size is known but not "
					       "this process's rank: set "
					       "IBFLOW_BOOT_RANK");
	}
	if (!p->timeout_s)
		p->timeout_s = 60;
	if (!p->addr[0])
		return ibf_ucx_err_set(err, IBF_UCX_ERR_CONFIG,
				       "IBFLOW_BOOT_ADDR is not set (HOST:PORT "
				       "where rank 0 listens)");
	if (!p->size)
		return ibf_ucx_err_set(err, IBF_UCX_ERR_CONFIG,
				       "IBFLOW_BOOT_SIZE is not set (nor "
				       "OMPI_COMM_WORLD_SIZE: not started by "
				       "mpirun)");
	if (p->rank >= p->size)
		return ibf_ucx_err_set(err, IBF_UCX_ERR_CONFIG,
				       "rank %u is not below the size %u",
				       p->rank, p->size);
	return IBF_UCX_OK;
}

/* ---- sockets -------------------------------------------------------------------- */

static ibf_ucx_status_t resolve(ibf_ucx_boot_t *b, struct addrinfo **ai,
				ibf_ucx_err_t *err)
{
	char host[256];
	const char *colon = strrchr(b->p.addr, ':');
	struct addrinfo hints;
	int rc;

	if (!colon || colon == b->p.addr || !colon[1] ||
	    (size_t)(colon - b->p.addr) >= sizeof(host))
		return boot_fail(b, err, IBF_UCX_ERR_CONFIG, "address '%s' is "
				 "not HOST:PORT", b->p.addr);
	memcpy(host, b->p.addr, (size_t)(colon - b->p.addr));
	host[colon - b->p.addr] = '\0';
	memset(&hints, 0, sizeof(hints));
	hints.ai_family = AF_UNSPEC;
	hints.ai_socktype = SOCK_STREAM;
	rc = getaddrinfo(host, colon + 1, &hints, ai);
	if (rc != 0)
		return boot_fail(b, err, IBF_UCX_ERR_CONFIG, "cannot resolve "
				 "'%s': %s", b->p.addr, gai_strerror(rc));
	return IBF_UCX_OK;
}

static void tune(int fd)
{
	int one = 1;

	setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
}

/* Read or write exactly len bytes before the deadline (rendezvous only). */
static bool io_full(int fd, void *buf, size_t len, bool out, double deadline)
{
	size_t done = 0;

	while (done < len) {
		struct pollfd pfd = { fd, out ? POLLOUT : POLLIN, 0 };
		double left = deadline - ibf_ucxi_now();
		ssize_t n;

		if (left <= 0 || poll(&pfd, 1, (int)(left * 1e3) + 1) < 0)
			return false;
		n = out ? send(fd, (char *)buf + done, len - done,
			       MSG_NOSIGNAL | MSG_DONTWAIT) :
			  recv(fd, (char *)buf + done, len - done,
			       MSG_DONTWAIT);
		if (n == 0)
			return false;
		if (n < 0 && errno != EAGAIN && errno != EINTR)
			return false;
		if (n > 0)
			done += (size_t)n;
	}
	return true;
}

static ibf_ucx_status_t serve(ibf_ucx_boot_t *b, struct addrinfo *ai,
			      ibf_ucx_err_t *err)
{
	double deadline = ibf_ucxi_now() + b->p.timeout_s;
	int one = 1, lfd;
	uint32_t got = 0;

	lfd = socket(ai->ai_family, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (lfd < 0)
		return boot_fail(b, err, IBF_UCX_ERR_OOB, "socket: %m");
	setsockopt(lfd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
	if (bind(lfd, ai->ai_addr, ai->ai_addrlen) != 0 ||
	    listen(lfd, (int)b->p.size) != 0) {
		boot_fail(b, err, IBF_UCX_ERR_OOB, "cannot listen: %m");
		close(lfd);
		return IBF_UCX_ERR_OOB;
	}
	while (got + 1 < b->p.size) {
		struct pollfd pfd = { lfd, POLLIN, 0 };
		double left = deadline - ibf_ucxi_now();
		uint32_t hello[3];
		int fd;

		if (left <= 0 || poll(&pfd, 1, (int)(left * 1e3) + 1) <= 0)
			break;
		fd = accept4(lfd, NULL, NULL, SOCK_CLOEXEC);
		if (fd < 0)
			continue;
		tune(fd);
		if (!io_full(fd, hello, sizeof(hello), false, deadline) ||
		    hello[0] != BOOT_MAGIC) {
			close(fd);
			continue;   /* a stray connection */
		}
		if (hello[2] != b->p.size || !hello[1] ||
		    hello[1] >= b->p.size || b->peers[hello[1]].fd >= 0) {
			boot_fail(b, err, IBF_UCX_ERR_OOB, "a process claims "
				  "rank %u of %u (job size %u%s)", hello[1],
				  hello[2], b->p.size, hello[1] < b->p.size &&
				  b->peers[hello[1]].fd >= 0 ?
				  ", rank taken twice" : "");
			close(fd);
			close(lfd);
			return IBF_UCX_ERR_OOB;
		}
		b->peers[hello[1]].fd = fd;
		got++;
	}
	close(lfd);
	if (got + 1 < b->p.size) {
		uint32_t i;

		for (i = 1; i < b->p.size && b->peers[i].fd >= 0; i++)
			;
		return boot_fail(b, err, IBF_UCX_ERR_TIMEOUT, "%u of %u "
				 "processes connected within %g s (rank %u "
				 "missing)", got + 1, b->p.size,
				 b->p.timeout_s, i);
	}
	return IBF_UCX_OK;
}

static ibf_ucx_status_t join(ibf_ucx_boot_t *b, struct addrinfo *ai,
			     ibf_ucx_err_t *err)
{
	double deadline = ibf_ucxi_now() + b->p.timeout_s;
	struct timespec nap = { 0, 100000000 };
	uint32_t hello[3] = { BOOT_MAGIC, b->p.rank, b->p.size };
	int fd = -1;

	while (ibf_ucxi_now() < deadline) {
		fd = socket(ai->ai_family, SOCK_STREAM | SOCK_CLOEXEC, 0);
		if (fd < 0)
			return boot_fail(b, err, IBF_UCX_ERR_OOB, "socket: %m");
		if (connect(fd, ai->ai_addr, ai->ai_addrlen) == 0)
			break;
		close(fd);
		fd = -1;
		nanosleep(&nap, NULL);  /* rank 0 not listening yet */
	}
	if (fd < 0)
		return boot_fail(b, err, IBF_UCX_ERR_TIMEOUT, "rank 0 did not "
				 "accept within %g s", b->p.timeout_s);
	tune(fd);
	if (!io_full(fd, hello, sizeof(hello), true, deadline)) {
		close(fd);
		return boot_fail(b, err, IBF_UCX_ERR_OOB, "introduction to "
				 "rank 0 failed");
	}
	b->peers[0].fd = fd;
	return IBF_UCX_OK;
}

/* ---- the allgather, non-blocking ---------------------------------------------- */

/* Move bytes of one direction; false on a closed or broken socket. */
static bool pump(int fd, void *buf, size_t len, size_t *done, bool out)
{
	while (*done < len) {
		ssize_t n = out ? send(fd, (char *)buf + *done, len - *done,
				       MSG_NOSIGNAL | MSG_DONTWAIT) :
				  recv(fd, (char *)buf + *done, len - *done,
				       MSG_DONTWAIT);

		if (n > 0) {
			*done += (size_t)n;
			continue;
		}
		if (n < 0 && (errno == EAGAIN || errno == EINTR))
			return true;
		return false;
	}
	return true;
}

/* A peer's header + block: in_done counts both. */
static bool pump_in(peer_t *q, uint8_t *block, size_t len)
{
	size_t hd = q->in_done < sizeof(hdr_t) ? q->in_done : sizeof(hdr_t);
	size_t bd;

	if (hd < sizeof(hdr_t)) {
		if (!pump(q->fd, &q->in_hdr, sizeof(hdr_t), &hd, false))
			return false;
		q->in_done = hd;
		if (hd < sizeof(hdr_t))
			return true;
	}
	bd = q->in_done - sizeof(hdr_t);
	if (!pump(q->fd, block, len, &bd, false))
		return false;
	q->in_done = sizeof(hdr_t) + bd;
	return true;
}

static bool pump_out(peer_t *q, const hdr_t *h, const void *block,
		     size_t len)
{
	size_t hd = q->out_done < sizeof(hdr_t) ? q->out_done : sizeof(hdr_t);
	size_t bd;

	if (hd < sizeof(hdr_t)) {
		if (!pump(q->fd, (void *)h, sizeof(hdr_t), &hd, true))
			return false;
		q->out_done = hd;
		if (hd < sizeof(hdr_t))
			return true;
	}
	bd = q->out_done - sizeof(hdr_t);
	if (!pump(q->fd, (void *)block, len, &bd, true))
		return false;
	q->out_done = sizeof(hdr_t) + bd;
	return true;
}

static bool header_ok(ibf_ucx_boot_t *b, uint32_t rank, const peer_t *q,
		      size_t want)
{
	if (q->in_hdr.magic != BOOT_MAGIC || q->in_hdr.seq != b->seq ||
	    q->in_hdr.len != want) {
		boot_fail(b, NULL, IBF_UCX_ERR_OOB, "rank %u is out of step "
			  "(exchange %u of %llu bytes, expected %u of %zu)",
			  rank, q->in_hdr.seq,
			  (unsigned long long)q->in_hdr.len, b->seq, want);
		return false;
	}
	return true;
}

static int step_root(ibf_ucx_boot_t *b)
{
	size_t n = b->p.size, in_total = sizeof(hdr_t) + b->len;
	size_t out_total = sizeof(hdr_t) + n * b->len;
	uint32_t i, waiting = 0;

	for (i = 1; b->state == 0 && i < n; i++) {
		peer_t *q = &b->peers[i];

		if (q->in_done == in_total)
			continue;
		if (!pump_in(q, b->rbuf + i * b->len, b->len))
			return boot_fail(b, NULL, IBF_UCX_ERR_OOB, "rank %u "
					 "closed the connection (exited?)",
					 i), -1;
		if (q->in_done >= sizeof(hdr_t) &&
		    !header_ok(b, i, q, b->len))
			return -1;
		waiting += q->in_done < in_total;
	}
	if (b->state == 0 && !waiting)
		b->state = 1;
	for (i = 1, waiting = 0; b->state == 1 && i < n; i++) {
		peer_t *q = &b->peers[i];

		if (!pump_out(q, &b->out_hdr, b->rbuf, n * b->len))
			return boot_fail(b, NULL, IBF_UCX_ERR_OOB, "rank %u "
					 "closed the connection (exited?)",
					 i), -1;
		waiting += q->out_done < out_total;
	}
	if (b->state == 1 && !waiting)
		b->state = 2;
	return b->state;
}

static int step_other(ibf_ucx_boot_t *b)
{
	peer_t *q = &b->peers[0];
	size_t total = b->p.size * b->len;

	if (b->state == 0) {
		if (!pump_out(q, &b->out_hdr, b->sbuf, b->len))
			return boot_fail(b, NULL, IBF_UCX_ERR_OOB, "rank 0 "
					 "closed the connection (exited?)"),
			       -1;
		if (q->out_done == sizeof(hdr_t) + b->len)
			b->state = 1;
	}
	if (b->state == 1) {
		if (!pump_in(q, b->rbuf, total))
			return boot_fail(b, NULL, IBF_UCX_ERR_OOB, "rank 0 "
					 "closed the connection (exited?)"),
			       -1;
		if (q->in_done >= sizeof(hdr_t) &&
		    !header_ok(b, 0, q, total))
			return -1;
		if (q->in_done == sizeof(hdr_t) + total)
			b->state = 2;
	}
	return b->state;
}

static ibf_ucx_status_t boot_allgather(void *sbuf, void *rbuf, size_t len,
				       void *coll_info, void **req)
{
	ibf_ucx_boot_t *b = coll_info;
	uint32_t i;

	if (b->busy)
		return IBF_UCX_ERR_INVALID;
	b->busy = true;
	b->seq++;
	b->sbuf = sbuf;
	b->rbuf = rbuf;
	b->len = len;
	b->state = 0;
	for (i = 0; i < b->npeers; i++)
		b->peers[i].in_done = b->peers[i].out_done = 0;
	b->out_hdr.magic = BOOT_MAGIC;
	b->out_hdr.seq = b->seq;
	b->out_hdr.len = b->p.rank == 0 ? (uint64_t)b->p.size * len : len;
	memcpy((uint8_t *)rbuf + (size_t)b->p.rank * len, sbuf, len);
	if (b->p.size == 1)
		b->state = 2;
	*req = b;
	return IBF_UCX_OK;
}

static ibf_ucx_status_t boot_test(void *req)
{
	ibf_ucx_boot_t *b = req;
	int s = b->state;

	if (s == 0 || s == 1)
		s = b->p.rank == 0 ? step_root(b) : step_other(b);
	if (s < 0) {
		b->state = -1;
		return IBF_UCX_ERR_OOB;
	}
	return s == 2 ? IBF_UCX_OK : IBF_UCX_INPROGRESS;
}

static ibf_ucx_status_t boot_free(void *req)
{
	ibf_ucx_boot_t *b = req;

	b->busy = false;
	return IBF_UCX_OK;
}

/* ---- open / close ---------------------------------------------------------------- */

ibf_ucx_status_t ibf_ucx_boot_open(const ibf_ucx_boot_params_t *p,
				   ibf_ucx_boot_t **out, ibf_ucx_err_t *err)
{
	struct addrinfo *ai = NULL;
	ibf_ucx_boot_t *b;
	uint32_t i;
	ibf_ucx_status_t st;

	*out = NULL;
	if (!p->size || p->rank >= p->size)
		return ibf_ucx_err_set(err, IBF_UCX_ERR_INVALID, "bootstrap: "
				       "rank %u of size %u", p->rank, p->size);
	b = calloc(1, sizeof(*b));
	if (!b)
		return ibf_ucx_err_set(err, IBF_UCX_ERR_NOMEM, "out of memory");
	b->p = *p;
	if (b->p.timeout_s <= 0)
		b->p.timeout_s = 60;
	b->npeers = p->rank == 0 ? p->size : 1;
	b->peers = calloc(b->npeers, sizeof(*b->peers));
	if (!b->peers) {
		free(b);
		return ibf_ucx_err_set(err, IBF_UCX_ERR_NOMEM, "out of memory");
	}
	for (i = 0; i < b->npeers; i++)
		b->peers[i].fd = -1;
	st = p->size == 1 ? IBF_UCX_OK : resolve(b, &ai, err);
	if (st == IBF_UCX_OK && p->size > 1)
		st = p->rank == 0 ? serve(b, ai, err) : join(b, ai, err);
	if (ai)
		freeaddrinfo(ai);
	if (st != IBF_UCX_OK) {
		ibf_ucx_boot_close(b);
		return st;
	}
	for (i = 0; i < b->npeers; i++)
		if (b->peers[i].fd >= 0)
			fcntl(b->peers[i].fd, F_SETFL, O_NONBLOCK);
	b->oob.allgather = boot_allgather;
	b->oob.req_test = boot_test;
	b->oob.req_free = boot_free;
	b->oob.coll_info = b;
	b->oob.rank = p->rank;
	b->oob.size = p->size;
	*out = b;
	return IBF_UCX_OK;
}

const ibf_ucx_oob_t *ibf_ucx_boot_oob(const ibf_ucx_boot_t *b)
{
	return &b->oob;
}

const char *ibf_ucx_boot_error(const ibf_ucx_boot_t *b)
{
	return b->msg;
}

void ibf_ucx_boot_close(ibf_ucx_boot_t *b)
{
	uint32_t i;

	if (!b)
		return;
	for (i = 0; i < b->npeers; i++)
		if (b->peers[i].fd >= 0)
			close(b->peers[i].fd);
	free(b->peers);
	free(b);
}
