/* SPDX-License-Identifier: GPL-2.0-or-later */
#ifndef UNIRAMFS_INIT_REMOTE_ASKPASS_H
#define UNIRAMFS_INIT_REMOTE_ASKPASS_H

#include <poll.h>
#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

/* The init's end of the remote prompt: a unix socket the SSH logins'
 * uniramfs-askpass connect to. Each client is told the prompt while one
 * is asked and answers with one line; the first answer from a client or
 * a console wins (passphrase.c polls both). Clients are hostile: a line
 * too long, a NUL, a client that does not read: it is told why once and
 * dropped, and the init goes on.
 *
 * The protocol, one line each way, '\n'-terminated:
 *   init -> client: "prompt TEXT" (answer now), "done" (the prompt was
 *                   answered, here or elsewhere), "say TEXT" (show it)
 *   client -> init: the passphrase
 * A zeroed struct askpass is a valid empty one. */

#define ASKPASS_MAX_CLIENTS 4
/* what askpass_pollfds may give: the splash's answer, the socket, the clients */
#define ASKPASS_MAX_FDS (2 + ASKPASS_MAX_CLIENTS)
/* More than any passphrase cryptsetup takes typed (512): such an answer
 * still reaches luks.c, which says it is too long. */
#define ASKPASS_LINE_MAX 1024

struct askpass_client {
	bool on;
	int fd;
	size_t n;
	char line[ASKPASS_LINE_MAX];
};

struct askpass {
	bool listening;
	int lfd;
	char *path;         /* the socket's path, removed at close */
	char *prompt;       /* the prompt being asked; NULL: none */
	int winner;         /* 1 + the client whose answer this prompt took; 0: none */
	struct askpass_client c[ASKPASS_MAX_CLIENTS];
};

/* Listen on path (mode 0600; a stale socket there is replaced). 0 or
 * -errno (err set). */
int askpass_listen(struct askpass *a, const char *path);
/* Take a connected client (accept, or a test's socketpair end); it is
 * told the prompt if one is asked. 0, or -ENOSPC after telling it that
 * there are too many and closing fd. */
int askpass_add(struct askpass *a, int fd);
/* Start asking prompt (every client is told), or with NULL stop ("done"). */
void askpass_ask(struct askpass *a, const char *prompt);
/* The fds to poll for it: the listening socket, then each client's.
 * Their number (at most max). */
size_t askpass_pollfds(const struct askpass *a, struct pollfd *pfd, size_t max);
/* Handle what poll said of those fds (pfd, n as askpass_pollfds gave
 * them): new clients, their input. An answer to the prompt: its length,
 * copied NUL-terminated into buf (cut at size - 1). -EAGAIN: none yet. */
ssize_t askpass_ready(struct askpass *a, const struct pollfd *pfd, size_t n, char *buf,
		      size_t size);
/* "say msg" to every client (the result of the last answer); a NULL a
 * (no SSH in this boot) has none. */
void askpass_tell(struct askpass *a, const char *msg);
/* How many clients are connected. */
size_t askpass_clients(const struct askpass *a);
/* Close every client and the socket, remove its path. */
void askpass_close(struct askpass *a);

/* askpass_client.c: the program every SSH login runs (argv[0]
 * uniramfs-askpass): the prompt from the init's socket onto its
 * terminal, echo off, the answer back. Its exit status. */
int askpass_main(int argc, char **argv);

#endif
