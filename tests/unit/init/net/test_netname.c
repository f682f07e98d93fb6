// SPDX-License-Identifier: GPL-2.0-or-later
/* Predictable interface names against udev's own: each directory of
 * tests/unit/fixtures/netname/ is a machine (sysfs as the booted kernel
 * showed it, udev's properties and the name udevd gave each interface;
 * README there says how they were captured), and every name computed
 * here must be udev's. */
#include <dirent.h>
#include <errno.h>

#include "test.h"
#include "util.h"
#include "init/net/netname.h"

static char *root; /* the fake tree read through fake_path */

static char *fake_path(const char *p)
{
	return xasprintf("%s%s", root, p);
}

static char *fixture(const char *name)
{
	const char *src = getenv("UNIRAMFS_SRCDIR");
	return xasprintf("%s/tests/unit/fixtures/netname/%s", src ? src : ".", name);
}

/* The expected names of one interface, from the fixture's expected file:
 * "IFACE KEY VALUE" lines, KEY an ID_NET_NAME_* property or NAME (what
 * 99-default.link renamed it to; absent: kept). */
struct expect {
	char iface[16];
	char onboard[NET_NAME_MAX], slot[NET_NAME_MAX], path[NET_NAME_MAX], mac[NET_NAME_MAX], name[NET_NAME_MAX];
};

static size_t read_expected(const char *dir, struct expect *e, size_t max)
{
	char *p = xasprintf("%s/expected", dir), *data = NULL, *line, *save = NULL;
	size_t len, n = 0;

	if (read_file(p, &data, &len) < 0) {
		printf("# cannot read %s\n", p);
		free(p);
		return 0;
	}
	for (line = strtok_r(data, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
		char iface[16], key[32], val[NET_NAME_MAX];
		struct expect *x = NULL;
		if (line[0] == '#' || sscanf(line, "%15s %31s %127s", iface, key, val) != 3)
			continue;
		for (size_t i = 0; i < n; i++)
			if (!strcmp(e[i].iface, iface))
				x = &e[i];
		if (!x && n < max) {
			x = &e[n++];
			memset(x, 0, sizeof(*x));
			snprintf(x->iface, sizeof(x->iface), "%s", iface);
		}
		if (!x)
			continue;
		if (!strcmp(key, "ID_NET_NAME_ONBOARD"))
			snprintf(x->onboard, sizeof(x->onboard), "%s", val);
		else if (!strcmp(key, "ID_NET_NAME_SLOT"))
			snprintf(x->slot, sizeof(x->slot), "%s", val);
		else if (!strcmp(key, "ID_NET_NAME_PATH"))
			snprintf(x->path, sizeof(x->path), "%s", val);
		else if (!strcmp(key, "ID_NET_NAME_MAC"))
			snprintf(x->mac, sizeof(x->mac), "%s", val);
		else if (!strcmp(key, "NAME"))
			snprintf(x->name, sizeof(x->name), "%s", val);
	}
	free(data);
	free(p);
	return n;
}

#define CHECK_NAME(machine, iface, what, got, want)                                              \
	do {                                                                                     \
		if (strcmp(got, want)) {                                                         \
			printf("# %s %s %s: got '%s', udev '%s'\n", machine, iface, what, got, want); \
			test_cur_failed++;                                                       \
		}                                                                                \
	} while (0)

/* Every interface of one captured machine named as udev named it. */
static void check_machine(const char *machine)
{
	struct expect e[32];
	size_t n;

	root = fixture(machine);
	n = read_expected(root, e, 32);
	CHECK(n > 0);
	for (size_t i = 0; i < n; i++) {
		struct net_names nn;
		const char *pick;

		CHECK(net_names_read(fake_path, e[i].iface, &nn) == 0);
		CHECK_NAME(machine, e[i].iface, "ID_NET_NAME_ONBOARD", nn.onboard, e[i].onboard);
		CHECK_NAME(machine, e[i].iface, "ID_NET_NAME_SLOT", nn.slot, e[i].slot);
		CHECK_NAME(machine, e[i].iface, "ID_NET_NAME_PATH", nn.path, e[i].path);
		CHECK_NAME(machine, e[i].iface, "ID_NET_NAME_MAC", nn.mac, e[i].mac);
		pick = net_names_policy(&nn);
		CHECK_NAME(machine, e[i].iface, "NAME", pick ? pick : "", e[i].name);
		if (pick)
			CHECK(net_names_has(&nn, pick));
		CHECK(!net_names_has(&nn, e[i].iface));
		if (e[i].mac[0])
			CHECK(net_names_has(&nn, e[i].mac));
	}
	free(root);
	root = NULL;
}

static void test_qemu_pc(void)
{
	check_machine("qemu-pc");
}

static void test_qemu_q35(void)
{
	check_machine("qemu-q35");
}

/* What QEMU cannot show: dev_port, a port name, an SR-IOV virtual
 * function, ARI, a PCI domain, a random MAC (see synthetic/README). */
static void test_synthetic(void)
{
	check_machine("synthetic");
}

/* sysfs gone wrong (hostile/): names too long for an interface, values
 * that do not parse, an empty slot address; an interface that cannot be
 * read gets no names. */
static void test_hostile(void)
{
	struct net_names n;

	check_machine("hostile");
	root = fixture("hostile");
	CHECK(net_names_read(fake_path, "eth4", &n) == -ENOENT);
	CHECK(net_names_read(fake_path, "eth5", &n) == -ENOENT);
	CHECK(!n.mac[0] && !n.path[0]);
	CHECK(net_names_read(fake_path, "eth0", &n) == 0);
	CHECK(strlen(n.path) > 15 && net_names_policy(&n) == NULL && !net_names_has(&n, n.path));
	free(root);
	root = NULL;
}

/* The policy itself: keep a name userspace or the kernel chose, take
 * onboard before slot before path, never one too long to be a name. */
static void test_policy(void)
{
	struct net_names n = { 0 };

	CHECK(net_names_policy(&n) == NULL);
	snprintf(n.path, sizeof(n.path), "enp1s0");
	snprintf(n.mac, sizeof(n.mac), "enx525400123456");
	CHECK_STR(net_names_policy(&n), "enp1s0");
	snprintf(n.slot, sizeof(n.slot), "ens1");
	CHECK_STR(net_names_policy(&n), "ens1");
	snprintf(n.onboard, sizeof(n.onboard), "eno1");
	CHECK_STR(net_names_policy(&n), "eno1");
	for (int t = 2; t <= 4; t++) {
		n.assign_type = t;
		CHECK(net_names_policy(&n) == NULL);
	}
	n.assign_type = 1;
	snprintf(n.onboard, sizeof(n.onboard), "enP1234p255s31f7d1");
	CHECK_STR(net_names_policy(&n), "ens1");
	CHECK(!net_names_has(&n, "enP1234p255s31f7d1"));
	CHECK(net_names_has(&n, "enx525400123456"));
	CHECK(!net_names_has(&n, ""));
}

/* Not there, not readable, not Ethernet: no names, and no crash. */
static void test_missing(void)
{
	struct net_names n;

	root = fixture("synthetic");
	CHECK(net_names_read(fake_path, "eth99", &n) == -ENOENT);
	CHECK(!n.onboard[0] && !n.slot[0] && !n.path[0] && !n.mac[0]);
	CHECK(net_names_read(fake_path, "../x", &n) == -EINVAL);
	free(root);
	root = xstrdup("/nonexistent-uniramfs-root");
	CHECK(net_names_read(fake_path, "eth0", &n) == -ENOENT);
	free(root);
	root = NULL;
}

int main(void)
{
	RUN(test_qemu_pc);
	RUN(test_qemu_q35);
	RUN(test_synthetic);
	RUN(test_hostile);
	RUN(test_policy);
	RUN(test_missing);
	return test_done();
}
