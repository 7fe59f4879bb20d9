/*
 * FTrace_host.c - the recorder's host port (POSIX): the core each thread
 * plays, the critical section (every signal blocked), the lock between
 * cores, the test points, and a real UDP sender.  The program provides only the clock, tkrec_host_tsc().
 * Host-only: the freestanding core (FTrace.c) never includes this.
 */
#define _POSIX_C_SOURCE 200809L

#include "FTrace_host.h"

#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

__thread unsigned tkrec_host_core;

/* ---- the critical section ----------------------------------------------- */

/*
 * Like cpsid i on a target: the thread's signals are blocked while the
 * recorder touches a chunk, so a handler that logs runs wholly before or
 * after the section (a signal that arrives in it is delivered when the
 * old mask comes back).  Nested sections keep the outermost mask.
 */
static __thread unsigned depth;
static __thread sigset_t saved;
static __thread uint32_t pending_points;  /* held by the section: 1 << id */
static tkrec_host_point_fn point_fn;

unsigned tkrec_host_irq_save(void)
{
	sigset_t all, old;

	sigfillset(&all);
	pthread_sigmask(SIG_BLOCK, &all, &old);
	if (depth++ == 0)
		saved = old;
	return 0;
}

void tkrec_host_irq_restore(unsigned s)
{
	(void)s;
	if (depth && --depth == 0) {
		pthread_sigmask(SIG_SETMASK, &saved, NULL);
		while (pending_points) {  /* the "interrupts" come now */
			unsigned id = 0;

			while (!(pending_points >> id & 1u))
				id++;
			pending_points &= ~(1u << id);
			if (point_fn)
				point_fn(id);
		}
	}
}

/*
 * The lock between cores (threads): a spinlock that yields, taken with
 * the thread's signals blocked, so a handler never waits for its own
 * thread.
 */
static atomic_flag core_lock = ATOMIC_FLAG_INIT;

void tkrec_host_lock(void)
{
	while (atomic_flag_test_and_set_explicit(&core_lock, memory_order_acquire))
		sched_yield();
}

void tkrec_host_unlock(void)
{
	atomic_flag_clear_explicit(&core_lock, memory_order_release);
}

/*
 * A test point: the test's hook plays an interrupt that comes there.  In
 * the section it is held, as a real one would be, and runs when the
 * outermost section ends.
 */
void tkrec_host_set_point_hook(tkrec_host_point_fn fn)
{
	point_fn = fn;
}

void tkrec_host_point(unsigned id)
{
	if (!point_fn)
		return;
	if (depth) {
		if (id < 32)
			pending_points |= 1u << id;
		return;
	}
	point_fn(id);
}

/* ---- UDP ---------------------------------------------------------------- */

static int udp_fd = -1;
static unsigned cfg_local = TKREC_UDP_PORT, cfg_target = TKREC_UDP_PORT;
static unsigned cfg_pace_us;
static struct sockaddr_in udp_to;

void tkrec_host_udp_config(unsigned local_port, unsigned target_port,
			   unsigned pace_us)
{
	cfg_local = local_port;
	cfg_target = target_port;
	cfg_pace_us = pace_us;
}

static int parse_ip(const char *s, const char *dflt, struct in_addr *a)
{
	if (!s || !*s)
		s = dflt;
	return inet_pton(AF_INET, s, a) == 1 ? 0 : -1;
}

int tkrec_host_udp_init(int flag, const char *l_ip, const char *t_ip)
{
	struct sockaddr_in me;
	int fd = -1;

	(void)flag;  /* the host network is always up */
	memset(&me, 0, sizeof(me));
	memset(&udp_to, 0, sizeof(udp_to));
	me.sin_family = AF_INET;
	me.sin_port = htons((uint16_t)cfg_local);
	udp_to.sin_family = AF_INET;
	udp_to.sin_port = htons((uint16_t)cfg_target);
	if (cfg_local > 65535 || cfg_target == 0 || cfg_target > 65535 ||
	    parse_ip(l_ip, "0.0.0.0", &me.sin_addr) != 0 ||
	    parse_ip(t_ip, "127.0.0.1", &udp_to.sin_addr) != 0)
		goto fail;
	fd = socket(AF_INET, SOCK_DGRAM, 0);
	if (fd < 0)
		goto fail;
	if (bind(fd, (struct sockaddr *)&me, sizeof(me)) != 0)
		goto fail;
	if (udp_fd >= 0)
		close(udp_fd);
	udp_fd = fd;
	return 0;
fail:
	if (fd >= 0)
		close(fd);
	return -1;
}

int tkrec_host_udp_send(const void *pkt, size_t n)
{
	ssize_t w;

	if (udp_fd < 0)
		return -1;
	do
		w = sendto(udp_fd, pkt, n, 0, (const struct sockaddr *)&udp_to,
			   sizeof(udp_to));
	while (w < 0 && errno == EINTR);
	if (w != (ssize_t)n)
		return -1;
	if (cfg_pace_us) {  /* the original waits 5 ms after each datagram */
		struct timespec ts;

		ts.tv_sec = (time_t)(cfg_pace_us / 1000000u);
		ts.tv_nsec = (long)(cfg_pace_us % 1000000u) * 1000L;
		while (nanosleep(&ts, &ts) != 0 && errno == EINTR)
			;
	}
	return 0;
}

void tkrec_host_udp_close(void)
{
	if (udp_fd >= 0)
		close(udp_fd);
	udp_fd = -1;
}

/* ---- the disk writer ---------------------------------------------------- */

/*
 * A sink for tkrec_set_sink(): chunk `index` of the send order goes to
 * `<dir>/<index><name>` (the original's naming: 0trace.dat, 1trace.dat),
 * written to a ".tmp" name and renamed when the next chunk starts or
 * tkrec_host_disk_close() is called.
 */
static FILE *disk_f;
static char disk_tmp[4096], disk_final[4096];
static unsigned disk_index;
static int disk_err;

static int disk_finish(void)
{
	int rc = 0;

	if (!disk_f)
		return 0;
	if (ferror(disk_f) | fclose(disk_f))
		rc = -1;
	disk_f = NULL;
	if (rc == 0 && rename(disk_tmp, disk_final) != 0)
		rc = -1;
	if (rc != 0) {
		remove(disk_tmp);
		disk_err = 1;
	}
	return rc;
}

void tkrec_host_disk_sink(void *ctx, const char *name, unsigned index,
			  const void *bytes, size_t n)
{
	const char *dir = ctx ? (const char *)ctx : ".";

	if (!disk_f || index != disk_index) {
		int len;

		disk_finish();
		len = snprintf(disk_final, sizeof(disk_final), "%s/%u%s", dir, index, name);
		if (len < 0 || (size_t)len + 4 >= sizeof(disk_final) ||
		    snprintf(disk_tmp, sizeof(disk_tmp), "%s.tmp", disk_final) < 0) {
			disk_err = 1;
			return;
		}
		disk_f = fopen(disk_tmp, "wb");
		if (!disk_f) {
			disk_err = 1;
			return;
		}
		disk_index = index;
	}
	if (fwrite(bytes, 1, n, disk_f) != n)
		disk_err = 1;
}

int tkrec_host_disk_close(void)
{
	int err;

	disk_finish();
	err = disk_err;
	disk_err = 0;
	return err ? -1 : 0;
}
