/* SPDX-License-Identifier: GPL-2.0-or-later */
#ifndef UNIRAMFS_NET_DHCP_MSG_H
#define UNIRAMFS_NET_DHCP_MSG_H

#include <netinet/in.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "init/net/dnsname.h"

/* DHCPv4 messages (RFC 2131, options RFC 2132): building what a client
 * sends, reading what a server answers. Every byte of an answer is
 * hostile: each option is bounds-checked, options split across several
 * instances are joined (RFC 3396), and option 52 overload pulls in the
 * file and sname fields. Pure, no I/O. */

enum {
	DHCP_DISCOVER = 1,
	DHCP_OFFER = 2,
	DHCP_REQUEST = 3,
	DHCP_DECLINE = 4,
	DHCP_ACK = 5,
	DHCP_NAK = 6,
	DHCP_RELEASE = 7,
};

#define DHCP_SERVER_PORT 67
#define DHCP_CLIENT_PORT 68
#define DHCP_FIXED_LEN 240 /* BOOTP fields and the magic cookie */
#define DHCP_MAX_DNS 3
#define DHCP_STR_MAX 256 /* joined options may be longer: cut, and say so */

struct dhcp_msg {
	uint8_t op;
	uint32_t xid;
	uint8_t chaddr[6];
	struct in_addr yiaddr, siaddr;
	int type; /* option 53 */
	bool has_server_id, has_subnet, has_router, has_broadcast;
	struct in_addr server_id, router, broadcast;
	int prefix; /* from option 1; -1 when absent */
	struct in_addr dns[DHCP_MAX_DNS];
	unsigned n_dns;
	uint32_t lease_time, t1, t2; /* seconds; 0: absent */
	uint16_t mtu;		     /* 0: absent */
	/* NUL-terminated, cut at the first NUL or DHCP_STR_MAX - 1 bytes;
	 * still hostile text: check before use as a name or in a file. */
	char hostname[DHCP_STR_MAX], domain[DHCP_STR_MAX], root_path[DHCP_STR_MAX];
	char sname[65], file[129]; /* only when not overloaded */
	char message[DHCP_STR_MAX]; /* option 56, a NAK's reason */
	char search[DNS_SEARCH_MAX]; /* option 119 as a search line: valid names only */
};

/* Parse a server's message. Returns 0, or -EINVAL with *why (static text). */
int dhcp_msg_parse(const uint8_t *pkt, size_t len, struct dhcp_msg *m, const char **why);

struct dhcp_build {
	int type; /* DHCP_DISCOVER or DHCP_REQUEST */
	uint8_t mac[6];
	uint32_t xid;
	uint16_t secs;
	struct in_addr requested, server_id; /* REQUEST in SELECTING: both */
	const char *hostname;		     /* NULL: none sent */
	const char *vendor_class;	     /* NULL: none sent */
};

/* Returns the message length, or 0 when cap is too small (the longest
 * message with 255-byte hostname and vendor class needs 900). */
size_t dhcp_msg_build(uint8_t *buf, size_t cap, const struct dhcp_build *b);

#endif
