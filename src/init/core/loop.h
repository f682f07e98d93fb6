/* SPDX-License-Identifier: GPL-2.0-or-later */
#ifndef UNIRAMFS_INIT_CORE_LOOP_H
#define UNIRAMFS_INIT_CORE_LOOP_H

#include <poll.h>
#include <stdbool.h>
#include <sys/types.h>

#include "init/core/ops.h"

/* The one place the init waits: poll over its sources' fds, a deadline,
 * and a child to reap. Nothing sleeps; everything is an event. It knows
 * nothing of devices or the boot: a source is an fd with a handler (the
 * uevent socket; later netlink, DHCP), or idle work done one piece at a
 * time while nothing else is ready (the driver queue). */
struct loop_source {
	int fd;                  /* >= 0: polled for input, then ready(arg) */
	void (*ready)(void *arg);
	/* Idle work, NULL if none: is there some? ending: the loop's
	 * condition holds, so only work that must not be left counts. */
	bool (*has_work)(void *arg, bool ending);
	void (*step)(void *arg); /* one piece of it */
	/* A timer, NULL if none: when (ops clock ms, -1: not now), and
	 * what to do once that has come (a DHCP retransmit). */
	long long (*deadline)(void *arg);
	void (*expired)(void *arg);
	void *arg;
};

#define LOOP_MAX_SOURCES 8

struct loop {
	const struct sysops *ops;
	struct loop_source src[LOOP_MAX_SOURCES];
	size_t n;
	int child_status; /* waitpid's status of the child, after LOOP_CHILD */
};

enum loop_end { LOOP_DONE, LOOP_TIMEOUT, LOOP_CHILD, LOOP_ERROR };

void loop_init(struct loop *l, const struct sysops *ops);
/* 0, or -ENOSPC (err set) when the table is full. */
int loop_add(struct loop *l, const struct loop_source *s);
/* The fd polled for the source whose arg is arg (-1: none, while its
 * timer and idle work go on): a source whose owner closed its fd (the
 * DHCP socket once DHCP has settled) or opened it again. */
void loop_set_fd(struct loop *l, void *arg, int fd);
/* Until done(ctx) holds (done NULL: never) and no idle work must still
 * happen, deadline_ms passes (CLOCK_MONOTONIC ms of ops->now_ms, -1:
 * none), or child (> 0) has exited. Input already waiting is handled
 * before done is looked at. LOOP_ERROR: poll or signalfd failed (err
 * set). */
enum loop_end loop_run(struct loop *l, long long deadline_ms, bool (*done)(void *ctx),
		       void *ctx, pid_t child);
/* Handle the input waiting now and all idle work, without blocking:
 * for a prompt that waits on the console but must let devices (a USB
 * keyboard) come meanwhile. */
void loop_pump(struct loop *l);
/* For a wait outside the loop that pumps it (the prompt): the sources'
 * fds into pfd (their number, at most max), and how long that wait may
 * sleep before loop_pump must run (-1: until an fd is ready; 0: now,
 * idle work waits). */
size_t loop_pollfds(const struct loop *l, struct pollfd *pfd, size_t max, int *timeout);

#endif
