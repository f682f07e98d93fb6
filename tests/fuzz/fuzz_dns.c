// SPDX-License-Identifier: GPL-2.0-or-later
/* A DNS server's answer, raw off the wire: the answer parser as sent,
 * then with our id and question written in so that it gets past them,
 * every name in it read from each offset, and the stub resolver fed
 * it; asked as A, or as AAAA when the first byte has 0x40 set (an IPv6
 * boot's question). Rules: what a parse returns is a name a query could
 * carry again, addresses of the family asked, no more than
 * DNS_MAX_ADDRS. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>

#include "init/net/dns_client.h"

static const char qname[] = "nfsserver.test";

static void check(const struct dns_answer *a, uint16_t qtype)
{
	uint8_t q[DNS_QUERY_MAX];

	if (a->n_addr > DNS_MAX_ADDRS)
		__builtin_trap();
	for (size_t i = 0; i < a->n_addr; i++)
		if (a->addr[i].family != (qtype == DNS_TYPE_AAAA ? AF_INET6 : AF_INET))
			__builtin_trap();
	if (a->cname[0] && !dns_query_build(q, sizeof(q), 0, a->cname, qtype))
		__builtin_trap();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct dns_answer a;
	struct dns_client c;
	struct net_addr srv = { .family = AF_INET, .v4 = { 0x0302000a } };
	uint16_t qtype = size && (data[0] & 0x40) ? DNS_TYPE_AAAA : DNS_TYPE_A;
	struct dns_config cfg = { .name = "nfsserver", .qtype = qtype, .servers = &srv, .n_servers = 1,
				  .search = (const char *const[]){ "test" }, .n_search = 1, .seed = 7 };
	uint8_t q[DNS_QUERY_MAX], tx[DNS_QUERY_MAX], *copy;
	size_t qlen, txlen, off;
	struct net_addr to;
	uint64_t dl;
	const char *why;
	char name[DNS_NAME_TEXT];

	if (dns_answer_parse(data, size, 0x1234, qname, qtype, &a, &why) == 0)
		check(&a, qtype);
	/* our question at the front, then the input's first 4 bytes as
	 * flags and answer count, the rest as the answer section */
	qlen = dns_query_build(q, sizeof(q), 0x1234, qname, qtype);
	copy = malloc(qlen + size);
	memcpy(copy, q, qlen);
	if (size >= 4) {
		memcpy(copy + qlen, data + 4, size - 4);
		copy[2] = (uint8_t)(0x80 | (data[0] & 0x07)); /* QR, a standard query's opcode */
		copy[3] = data[1];
		copy[6] = data[2];
		copy[7] = data[3];
		if (dns_answer_parse(copy, qlen + size - 4, 0x1234, qname, qtype, &a, &why) == 0)
			check(&a, qtype);
	}
	for (off = 0; off < size && off < 64; off++) {
		size_t o = off;
		dns_name_read(data, size, &o, name, &why);
	}
	/* the resolver: the same bytes as the answer to its first query */
	if (dns_client_init(&c, &cfg) == 0 &&
	    dns_client_step(&c, 0, NULL, 0, NULL, tx, sizeof(tx), &txlen, &to, &dl) == DNS_ACT_SEND) {
		/* its first question is nfsserver.test (the search list
		 * first): only its id is written over */
		memcpy(copy, tx, 2);
		if (size >= 4)
			dns_client_step(&c, 1, copy, qlen + size - 4, &srv, tx, sizeof(tx), &txlen, &to, &dl);
		dns_client_step(&c, dl, NULL, 0, NULL, tx, sizeof(tx), &txlen, &to, &dl);
	}
	free(copy);
	return 0;
}
