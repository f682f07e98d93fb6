// SPDX-License-Identifier: GPL-2.0-or-later
/* The event loop: sources, a deadline and a child, all through the ops
 * table so a unit test runs it on a fake clock. */
#include "init/core/loop.h"

#include <errno.h>
#include <poll.h>
#include <signal.h>
#include <string.h>
#include <sys/signalfd.h>
#include <sys/wait.h>
#include <unistd.h>

#include "err.h"

void loop_init(struct loop *l, const struct sysops *ops)
{
	memset(l, 0, sizeof(*l));
	l->ops = ops;
}

int loop_add(struct loop *l, const struct loop_source *s)
{
	if (l->n == LOOP_MAX_SOURCES)
		return err_set_code(-ENOSPC, "too many event sources");
	l->src[l->n++] = *s;
	return 0;
}

void loop_set_fd(struct loop *l, void *arg, int fd)
{
	for (size_t i = 0; i < l->n; i++)
		if (l->src[i].arg == arg)
			l->src[i].fd = fd;
}

/* The first idle source with work, or NULL. */
static const struct loop_source *idle_work(const struct loop *l, bool ending)
{
	for (size_t i = 0; i < l->n; i++)
		if (l->src[i].has_work && l->src[i].has_work(l->src[i].arg, ending))
			return &l->src[i];
	return NULL;
}

/* The nearest source timer, -1 if none. */
static long long next_timer(const struct loop *l)
{
	long long best = -1;

	for (size_t i = 0; i < l->n; i++) {
		long long d = l->src[i].deadline ? l->src[i].deadline(l->src[i].arg) : -1;
		if (d >= 0 && (best < 0 || d < best))
			best = d;
	}
	return best;
}

static void run_timers(struct loop *l)
{
	long long now = l->ops->now_ms();

	for (size_t i = 0; i < l->n; i++) {
		long long d = l->src[i].deadline ? l->src[i].deadline(l->src[i].arg) : -1;
		if (d >= 0 && d <= now)
			l->src[i].expired(l->src[i].arg);
	}
}

/* Poll the sources' fds (and sfd) for up to timeout ms; handle what is
 * ready. The poll's result. */
static int poll_once(struct loop *l, int sfd, int timeout)
{
	struct pollfd pfd[LOOP_MAX_SOURCES + 1];
	nfds_t n = 0;
	size_t who[LOOP_MAX_SOURCES];
	int r;

	for (size_t i = 0; i < l->n; i++) {
		if (l->src[i].fd < 0)
			continue;
		who[n] = i;
		pfd[n++] = (struct pollfd){ .fd = l->src[i].fd, .events = POLLIN };
	}
	if (sfd >= 0)
		pfd[n++] = (struct pollfd){ .fd = sfd, .events = POLLIN };
	r = l->ops->poll(pfd, n, timeout);
	if (r < 0)
		return r == -EINTR ? 0 : err_errno(r, "poll");
	for (nfds_t i = 0; r > 0 && i < n; i++) {
		if (!(pfd[i].revents & (POLLIN | POLLERR | POLLHUP)))
			continue;
		if (pfd[i].fd == sfd) {
			struct signalfd_siginfo si;
			while (read(sfd, &si, sizeof(si)) == sizeof(si))
				;
		} else {
			l->src[who[i]].ready(l->src[who[i]].arg);
		}
	}
	return r;
}

enum loop_end loop_run(struct loop *l, long long deadline_ms, bool (*done)(void *ctx),
		       void *ctx, pid_t child)
{
	sigset_t chld, old;
	int sfd = -1;
	enum loop_end end = LOOP_ERROR;

	if (child > 0) {
		sigemptyset(&chld);
		sigaddset(&chld, SIGCHLD);
		sigprocmask(SIG_BLOCK, &chld, &old);
		sfd = l->ops->signalfd(-1, &chld, SFD_CLOEXEC | SFD_NONBLOCK);
		if (sfd < 0) {
			err_errno(sfd, "signalfd");
			goto out;
		}
	}
	for (;;) {
		bool met;
		const struct loop_source *work;
		long long timer;
		int timeout = -1, st;

		run_timers(l);
		met = done && done(ctx);
		work = idle_work(l, met);
		timer = next_timer(l);

		if (met && !work) {
			end = LOOP_DONE;
			break;
		}
		if (child > 0 && l->ops->waitpid(child, &st, WNOHANG) == child) {
			l->child_status = st;
			end = LOOP_CHILD;
			break;
		}
		if (deadline_ms >= 0) {
			long long left = deadline_ms - l->ops->now_ms();
			if (left <= 0) {
				end = LOOP_TIMEOUT;
				break;
			}
			timeout = left > 60000 ? 60000 : (int)left;
		}
		if (timer >= 0) {
			long long left = timer - l->ops->now_ms();
			if (left < 0)
				left = 0;
			if (timeout < 0 || left < timeout)
				timeout = left > 60000 ? 60000 : (int)left;
		}
		/* Idle work waiting: look for input without blocking, then do
		 * one piece of it. */
		if (work)
			timeout = 0;
		int r = poll_once(l, sfd, timeout);
		if (r < 0)
			break;
		if (r == 0 && work)
			work->step(work->arg);
	}
out:
	if (sfd >= 0)
		close(sfd);
	if (child > 0)
		sigprocmask(SIG_SETMASK, &old, NULL);
	return end;
}

void loop_pump(struct loop *l)
{
	const struct loop_source *work;

	run_timers(l);
	poll_once(l, -1, 0);
	while ((work = idle_work(l, false)))
		work->step(work->arg);
}

size_t loop_pollfds(const struct loop *l, struct pollfd *pfd, size_t max, int *timeout)
{
	long long timer = next_timer(l);
	size_t n = 0;

	for (size_t i = 0; i < l->n && n < max; i++)
		if (l->src[i].fd >= 0)
			pfd[n++] = (struct pollfd){ .fd = l->src[i].fd, .events = POLLIN };
	*timeout = -1;
	if (timer >= 0) {
		long long left = timer - l->ops->now_ms();
		*timeout = left < 0 ? 0 : left > 60000 ? 60000 : (int)left;
	}
	if (idle_work(l, false))
		*timeout = 0;
	return n;
}
