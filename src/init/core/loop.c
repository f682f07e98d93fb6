// SPDX-License-Identifier: GPL-2.0-or-later
/* The one place the init waits: kernel uevents, a deadline and, while a
 * shell runs, that child. Nothing sleeps; everything is an event. */
#include <errno.h>
#include <poll.h>
#include <signal.h>
#include <string.h>
#include <sys/signalfd.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "init/stages/early.h"
#include "err.h"
#include "init/init.h"
#include "log.h"

void rescan_devices(struct init *in)
{
	in->scan_gen++;
	if (uevent_coldplug(in->ops, handle_uevent, in) < 0) {
		log_err("coldplug: %s", err_msg());
		return;
	}
	for (size_t i = in->ndevs; i-- > 0;)
		if (in->devs[i].seen != in->scan_gen)
			forget_device(in, i);
}

void drain_uevents(struct init *in)
{
	static char buf[16384];
	bool lost = false;

	for (;;) {
		struct uevent ev;
		ssize_t n = in->ops->recv(in->uevent_fd, buf, sizeof(buf) - 1, MSG_DONTWAIT);
		if (n < 0) {
			if (errno == ENOBUFS) {
				lost = true;
				continue;
			}
			break;
		}
		if (n == 0)
			break;
		buf[n] = '\0';
		if (uevent_parse(buf, (size_t)n, &ev) < 0)
			continue;
		handle_uevent(&ev, in);
	}
	if (lost) {
		/* The kernel dropped messages: whatever they said (a device
		 * added, a driver wanted, a disk gone) is in sysfs now. */
		log_warn("uevent buffer overrun, some device events were lost; "
			 "reading the devices from sysfs again");
		rescan_devices(in);
	}
}

enum wait_end wait_events(struct init *in, long long deadline_ms, pid_t child, bool until_root)
{
	sigset_t chld, old;
	int sfd = -1;
	enum wait_end end = WAIT_ERROR;
	long long stall0 = in->stall_ms;

	if (child > 0) {
		sigemptyset(&chld);
		sigaddset(&chld, SIGCHLD);
		sigprocmask(SIG_BLOCK, &chld, &old);
		sfd = in->ops->signalfd(-1, &chld, SFD_CLOEXEC | SFD_NONBLOCK);
		if (sfd < 0) {
			err_errno(errno, "signalfd");
			goto out;
		}
	}
	for (;;) {
		struct pollfd pfd[2];
		nfds_t n = 0;
		int timeout = -1, r;

		bool satisfied = until_root && in->root >= 0 && !early_waiting(in);
		bool load = in->ndq && (!satisfied || driverq_urgent(in));

		if (satisfied && !load) {
			end = WAIT_ROOT;
			break;
		}
		if (child > 0) {
			int st;
			if (in->ops->waitpid(child, &st, WNOHANG) == child) {
				end = WAIT_CHILD;
				break;
			}
		}
		if (deadline_ms >= 0) {
			long long left = deadline_ms + (in->stall_ms - stall0) - now_ms(in);
			if (left <= 0) {
				end = WAIT_TIMEOUT;
				break;
			}
			timeout = left > 60000 ? 60000 : (int)left;
		}
		/* Drivers still queued: look for events without blocking, then
		 * load the next one. */
		if (load)
			timeout = 0;
		if (in->uevent_fd >= 0)
			pfd[n++] = (struct pollfd){ .fd = in->uevent_fd, .events = POLLIN };
		if (sfd >= 0)
			pfd[n++] = (struct pollfd){ .fd = sfd, .events = POLLIN };
		r = in->ops->poll(pfd, n, timeout);
		if (r < 0 && errno != EINTR) {
			err_errno(errno, "poll");
			break;
		}
		for (nfds_t i = 0; r > 0 && i < n; i++) {
			if (!(pfd[i].revents & POLLIN))
				continue;
			if (pfd[i].fd == in->uevent_fd) {
				drain_uevents(in);
			} else {
				struct signalfd_siginfo si;
				while (read(sfd, &si, sizeof(si)) == sizeof(si))
					;
			}
		}
		if (r == 0 && load)
			driverq_load_next(in);
	}
out:
	if (sfd >= 0)
		close(sfd);
	if (child > 0)
		sigprocmask(SIG_SETMASK, &old, NULL);
	return end;
}
