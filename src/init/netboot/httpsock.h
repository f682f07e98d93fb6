/* SPDX-License-Identifier: GPL-2.0-or-later */
#ifndef UNIRAMFS_INIT_NETBOOT_HTTPSOCK_H
#define UNIRAMFS_INIT_NETBOOT_HTTPSOCK_H

#include "init/net/netaddr.h"
#include "init/netboot/httpget.h"

/* The TCP connection under an http_io, with real system calls: only
 * ever used in the download's child process (stages/httproot.c), never
 * in PID 1 and never in a unit test. */
struct http_sock {
	int fd;
};

/* Connect to addr:port within timeout_ms: 0 or a negative code (err set,
 * naming shown). io is then wired to s. */
int http_sock_connect(struct http_sock *s, const struct net_addr *addr, unsigned port,
		      long timeout_ms, const char *shown, struct http_io *io);
void http_sock_close(struct http_sock *s);

#endif
