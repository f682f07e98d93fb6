/* SPDX-License-Identifier: GPL-2.0-or-later */
#ifndef UNIRAMFS_NET_DHCP6_MSG_H
#define UNIRAMFS_NET_DHCP6_MSG_H

#include <netinet/in.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "init/net/dnsname.h"

/* DHCPv6 messages (RFC 8415) for a client that wants one address (IA_NA),
 * its DNS servers and search list (RFC 3646) and the boot file URL
 * (RFC 5970, option 59): building SOLICIT and REQUEST, reading ADVERTISE
 * and REPLY. Every byte of an answer is hostile: each option is
 * bounds-checked, options nested in IA_NA and IAADDR too. Pure, no I/O. */

enum {
	DHCP6_SOLICIT = 1,
	DHCP6_ADVERTISE = 2,
	DHCP6_REQUEST = 3,
	DHCP6_REPLY = 7,
};

enum {
	DHCP6_OPT_CLIENTID = 1,
	DHCP6_OPT_SERVERID = 2,
	DHCP6_OPT_IA_NA = 3,
	DHCP6_OPT_IAADDR = 5,
	DHCP6_OPT_ORO = 6,
	DHCP6_OPT_PREFERENCE = 7,
	DHCP6_OPT_ELAPSED = 8,
	DHCP6_OPT_STATUS = 13,
	DHCP6_OPT_DNS = 23,
	DHCP6_OPT_DOMAINS = 24,
	DHCP6_OPT_BOOTFILE_URL = 59,
};

#define DHCP6_CLIENT_PORT 546
#define DHCP6_SERVER_PORT 547
#define DHCP6_MAX_DNS 3
#define DHCP6_DUID_MAX 130 /* RFC 8415 11.1: at most 128 bytes, and the type */
#define DHCP6_STR_MAX 256
#define DHCP6_STATUS_NOADDRS 2

struct dhcp6_msg {
	int type;
	uint32_t xid; /* 24 bits */
	uint8_t server_id[DHCP6_DUID_MAX];
	size_t server_id_len; /* 0: none */
	bool client_id_ok;    /* a CLIENTID equal to ours */
	int status;           /* top level STATUS_CODE; 0: success or none */
	int ia_status;        /* IA_NA's STATUS_CODE */
	bool has_addr;        /* an IAADDR in an IA_NA with our IAID, valid > 0 */
	struct in6_addr addr;
	uint32_t preferred, valid, t1, t2;
	int preference; /* 0..255, 0 when absent */
	struct in6_addr dns[DHCP6_MAX_DNS];
	unsigned n_dns;
	char domains[DNS_SEARCH_MAX]; /* search line: valid names only */
	unsigned domains_skipped;
	/* NUL-terminated, cut at DHCP6_STR_MAX - 1; hostile text still */
	char bootfile_url[DHCP6_STR_MAX];
};

/* Parse a server's message, checking the CLIENTID against duid and the
 * IA_NA against iaid. Returns 0, or -EINVAL with *why (static text). */
int dhcp6_msg_parse(const uint8_t *pkt, size_t len, const uint8_t *duid, size_t duid_len, uint32_t iaid,
		    struct dhcp6_msg *m, const char **why);

struct dhcp6_build {
	int type; /* DHCP6_SOLICIT or DHCP6_REQUEST */
	uint32_t xid;
	const uint8_t *duid;
	size_t duid_len;
	uint32_t iaid;
	uint16_t elapsed_cs; /* hundredths of a second since the first message */
	const uint8_t *server_id; /* REQUEST: the ADVERTISE's */
	size_t server_id_len;
	const struct in6_addr *addr; /* REQUEST: the address offered */
};

#define DHCP6_BUILD_MAX 256 /* enough for either, with a 130-byte server id */

/* Returns the message length, or 0 when cap is too small. */
size_t dhcp6_msg_build(uint8_t *buf, size_t cap, const struct dhcp6_build *b);

/* DUID-LL (RFC 8415 11.4) from the MAC: 10 bytes into duid. */
size_t dhcp6_duid_ll(const uint8_t mac[6], uint8_t duid[10]);

#endif
