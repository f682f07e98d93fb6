// SPDX-License-Identifier: GPL-2.0-or-later
/* The iSCSI Boot Firmware Table as the init reads it from
 * /sys/firmware/ibft (ibft.c): firmware text, as hostile as the
 * network's. The input is records, each a byte choosing the attribute
 * (initiator-name, ethernetN/…, targetN/…) and its value up to a
 * newline or NUL, as sysfs shows one line; a later record of the same
 * attribute replaces the earlier. Rules beyond "no crash": every
 * target taken (the boot one and the others, fewer than the slots) has
 * an address, a port from 1 to 65535, a LUN below 2^14 and a name; the NIC's prefix fits its family; and no warning quotes a CHAP
 * secret. A broken rule traps. */
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>

#include "init/net/ibft.h"

#define SLOTS 4 /* targetN and ethernetN, as ibft.c looks for */

static const char *const target_attrs[] = {
	"flags", "nic-assoc", "ip-addr", "port", "lun", "target-name",
	"chap-name", "chap-secret", "rev-chap-name", "rev-chap-name-secret",
};
static const char *const nic_attrs[] = {
	"mac", "ip-addr", "gateway", "primary-dns", "secondary-dns", "subnet-mask", "prefix-len", "hostname", "origin",
};
#define N_TARGET (sizeof(target_attrs) / sizeof(target_attrs[0]))
#define N_NIC (sizeof(nic_attrs) / sizeof(nic_attrs[0]))
#define N_KEYS (1 + SLOTS * (N_TARGET + N_NIC))

struct table {
	char sub[N_KEYS][16];
	const char *name[N_KEYS];
	const char *value[N_KEYS];
	bool secret[N_KEYS];
};

static struct table table;

static void table_init(void)
{
	size_t k = 0;

	snprintf(table.sub[k], sizeof(table.sub[k]), "initiator");
	table.name[k++] = "initiator-name";
	for (int s = 0; s < SLOTS; s++) {
		for (size_t i = 0; i < N_TARGET; i++, k++) {
			snprintf(table.sub[k], sizeof(table.sub[k]), "target%d", s);
			table.name[k] = target_attrs[i];
			table.secret[k] = strstr(target_attrs[i], "secret") != NULL;
		}
		for (size_t i = 0; i < N_NIC; i++, k++) {
			snprintf(table.sub[k], sizeof(table.sub[k]), "ethernet%d", s);
			table.name[k] = nic_attrs[i];
		}
	}
}

static char *get(void *userdata, const char *sub, const char *name)
{
	(void)userdata;
	for (size_t k = 0; k < N_KEYS; k++)
		if (table.value[k] && !strcmp(table.sub[k], sub) && !strcmp(table.name[k], name))
			return strdup(table.value[k]);
	return NULL;
}

/* A secret that holds a byte no other value holds and that no message
 * template has (any byte outside printable ASCII): if a warning holds
 * it, the secret was quoted. */
static bool secret_shown(size_t k, const struct strv *w)
{
	const unsigned char *s = (const unsigned char *)table.value[k];
	bool own = false;

	for (; *s && !own; s++) {
		if (*s >= 0x20 && *s < 0x7f)
			continue;
		own = true;
		for (size_t j = 0; j < N_KEYS && own; j++)
			if (j != k && !table.secret[j] && table.value[j] && strchr(table.value[j], *s))
				own = false;
	}
	if (!own)
		return false;
	for (size_t i = 0; i < w->n; i++)
		if (strstr(w->v[i], table.value[k]))
			return true;
	return false;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static bool ready;
	char *text = malloc(size + 1), *p = text, *end = text + size;
	struct iscsi_root root;
	struct ip_conf nic;
	struct strv w = { 0 };

	if (!ready) {
		table_init();
		ready = true;
	}
	memset(table.value, 0, sizeof(table.value));
	memcpy(text, data, size);
	text[size] = '\0';
	while (p < end) {
		size_t k = (unsigned char)*p++ % N_KEYS, n = strcspn(p, "\n");
		p[n] = '\0';
		table.value[k] = p;
		p += n + 1;
	}

	if (ibft_parse(get, NULL, "fuzz", &root, &nic, &w) == 0) {
		struct net_addr a;
		if (!root.firmware || root.nmore >= SLOTS)
			__builtin_trap();
		for (size_t i = 0; i <= root.nmore; i++) { /* the boot target, then the others */
			const struct iscsi_target *t = i ? &root.more[i - 1] : &root.target;
			if (!t->server || net_parse_addr(t->server, &a) < 0 || !t->name || !*t->name)
				__builtin_trap();
			if (t->port < 1 || t->port > 65535 || t->lun >= 1u << 14)
				__builtin_trap();
		}
		if (nic.prefix < -1 || nic.prefix > (nic.client.family == AF_INET6 ? 128 : 32))
			__builtin_trap();
		iscsi_root_free(&root);
		ip_conf_free(&nic);
	}
	for (size_t k = 0; k < N_KEYS; k++)
		if (table.secret[k] && table.value[k] && *table.value[k] && secret_shown(k, &w))
			__builtin_trap();
	strv_free(&w);
	free(text);
	return 0;
}
