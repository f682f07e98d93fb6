// SPDX-License-Identifier: GPL-2.0-or-later
/* A router advertisement's DNS options as the kernel passes them on
 * (RTM_NEWNDUSEROPT): servers and search names kept, expired ones and
 * bad names left out, and the exact reason a malformed message is
 * refused. */
#include <arpa/inet.h>
#include <errno.h>
#include <linux/rtnetlink.h>
#include <string.h>

#include "test.h"
#include "init/net/ndopt.h"

struct msg {
	uint8_t b[512];
	size_t n;
};

static void start(struct msg *m, int type)
{
	struct nduseroptmsg h = { .nduseropt_family = AF_INET6, .nduseropt_ifindex = 2,
				  .nduseropt_icmp_type = (uint8_t)type };
	memcpy(m->b, &h, sizeof(h));
	m->n = sizeof(h);
}

static void add(struct msg *m, const uint8_t *opt, size_t n)
{
	struct nduseroptmsg *h = (struct nduseroptmsg *)m->b;
	memcpy(m->b + m->n, opt, n);
	m->n += n;
	h->nduseropt_opts_len = (unsigned short)(h->nduseropt_opts_len + n);
}

/* RDNSS with lifetime life and the given servers (up to 3) */
static void rdnss(struct msg *m, uint32_t life, const char *a, const char *b)
{
	uint8_t o[8 + 32] = { 25, a && b ? 5 : 3, 0, 0, (uint8_t)(life >> 24), (uint8_t)(life >> 16),
			      (uint8_t)(life >> 8), (uint8_t)life };
	inet_pton(AF_INET6, a, o + 8);
	if (b)
		inet_pton(AF_INET6, b, o + 24);
	add(m, o, b ? 40 : 24);
}

static void test_good(void)
{
	struct msg m;
	struct nd_dns d;
	const char *why;
	char t[INET6_ADDRSTRLEN];
	static const uint8_t dnssl[] = { 31, 3, 0, 0, 0, 0, 0, 60, 4, 't', 'e', 's', 't', 0, 2, 'a', 'b', 0, 0, 0, 0, 0, 0, 0 };
	static const uint8_t prefix_info[32] = { 3, 4 };

	start(&m, 134);
	add(&m, prefix_info, sizeof(prefix_info));
	rdnss(&m, 600, "fd00::1", "fd00::2");
	rdnss(&m, 0, "fd00::3", NULL);
	add(&m, dnssl, sizeof(dnssl));
	CHECK(nd_useropt_parse(m.b, m.n, &d, &why) == 0);
	CHECK(d.ifindex == 2);
	CHECK(d.n_dns == 2);
	CHECK_STR(inet_ntop(AF_INET6, &d.dns[1], t, sizeof(t)), "fd00::2");
	CHECK_STR(d.search, "test ab");
	CHECK(d.skipped == 0);
}

static void expect_bad(const struct msg *m, size_t n, const char *want)
{
	struct nd_dns d;
	const char *why = NULL;

	CHECK(nd_useropt_parse(m->b, n, &d, &why) == -EINVAL);
	CHECK_STR(why, want);
}

static void test_malformed(void)
{
	struct msg m;
	struct nd_dns d;
	const char *why;
	static const uint8_t zero_len[] = { 25, 0, 0, 0, 0, 0, 0, 0 };
	static const uint8_t long_opt[] = { 25, 9, 0, 0, 0, 0, 0, 1 };
	static const uint8_t bad_names[] = { 31, 3, 0, 0, 0, 0, 0, 60, 3, 'a', '/', 'b', 0, 0xc0, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0 };

	start(&m, 134);
	expect_bad(&m, sizeof(struct nduseroptmsg) - 1, "shorter than its header");
	start(&m, 137);
	expect_bad(&m, m.n, "not from an IPv6 router advertisement");
	start(&m, 134);
	add(&m, zero_len, sizeof(zero_len));
	expect_bad(&m, m.n, "an option of length 0 or cut short");
	expect_bad(&m, m.n - 1, "its options run past its end");
	start(&m, 134);
	add(&m, long_opt, sizeof(long_opt));
	expect_bad(&m, m.n, "an option runs past the end");
	start(&m, 134);
	add(&m, bad_names, sizeof(bad_names));
	CHECK(nd_useropt_parse(m.b, m.n, &d, &why) == 0);
	CHECK_STR(d.search, "");
	CHECK(d.skipped == 2);
}

int main(void)
{
	RUN(test_good);
	RUN(test_malformed);
	return test_done();
}
