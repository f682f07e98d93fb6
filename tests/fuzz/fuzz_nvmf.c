// SPDX-License-Identifier: GPL-2.0-or-later
/* NVMe over TCP as the init reads it (src/init/net/nvmf.c): the
 * discovery log page a discovery controller sends over the network, and
 * the rd.nvmf.* words of the command line. The first byte chooses: even,
 * the rest is a log page; odd, a command line. Rules beyond "no crash":
 * every target taken has an IP literal for an address, a port from 1 to
 * 65535 and an NQN of 1 to 223 printable bytes without ',' or space; the
 * options string written to /dev/nvme-fabrics for it therefore holds
 * exactly the options put there (a ',' in a value would smuggle in
 * another); no warning about a page carries a control byte. A broken
 * rule traps. */
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "cmdline.h"
#include "init/net/netaddr.h"
#include "init/net/nvmf.h"

static bool printable(const char *s)
{
	for (; *s; s++)
		if ((unsigned char)*s < ' ' || (unsigned char)*s == 0x7f)
			return false;
	return true;
}

static void check(const struct nvmf_root *r)
{
	for (size_t i = 0; i < r->n; i++) {
		const struct nvmf_target *t = &r->t[i];
		const char *nqn = t->nqn ? t->nqn : NVMF_DISCOVERY_NQN;
		struct net_addr a;
		struct buf b = { 0 };
		size_t commas = 0, want = 3;
		if (net_parse_addr(t->traddr, &a) < 0 || (t->host_traddr && net_parse_addr(t->host_traddr, &a) < 0))
			__builtin_trap();
		if (t->port < 1 || t->port > 65535 || !*nqn || strlen(nqn) > NVMF_NQN_MAX || strpbrk(nqn, ", \t\n"))
			__builtin_trap();
		nvmf_options(r, t, nqn, &b);
		buf_append(&b, "", 1);
		for (const char *p = b.p; *p; p++)
			commas += *p == ',';
		want += (t->host_traddr != NULL) + (r->hostnqn != NULL) + (r->hostid != NULL);
		if (commas != want)
			__builtin_trap();
		buf_free(&b);
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct nvmf_root r = { 0 };
	struct strv w = { 0 };

	if (size < 1)
		return 0;
	if (data[0] % 2 == 0) {
		struct nvmf_target from = { .traddr = (char *)"192.168.100.1", .port = 4420 };
		nvmf_disc_parse(data + 1, size - 1, &from, &r, &w);
		check(&r);
		for (size_t i = 0; i < w.n; i++)
			if (!printable(w.v[i]))
				__builtin_trap();
	} else {
		char *text = malloc(size);
		struct cmdline c = { 0 };
		memcpy(text, data + 1, size - 1);
		text[size - 1] = '\0';
		cmdline_parse(&c, text);
		/* its warnings quote the command line as given (the log
		 * escapes them): only the page's must be printable */
		nvmf_from_cmdline(&c, &r, &w);
		check(&r);
		cmdline_free(&c);
		free(text);
	}
	nvmf_root_free(&r);
	strv_free(&w);
	return 0;
}
