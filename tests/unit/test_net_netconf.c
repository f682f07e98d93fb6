// SPDX-License-Identifier: GPL-2.0-or-later
/* /run/uniramfs/net/IFACE.conf and resolv.conf: the keys
 * initramfs-tools writes, every value quoted so a hostile DHCP server
 * cannot inject shell, and a writer that never follows a link. */
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include "test.h"
#include "init/net/netconf.h"

static struct dhcp_lease lease(void)
{
	struct dhcp_lease l;
	memset(&l, 0, sizeof(l));
	inet_pton(AF_INET, "10.0.2.15", &l.addr);
	inet_pton(AF_INET, "10.0.2.2", &l.router);
	inet_pton(AF_INET, "10.0.2.2", &l.server_id);
	inet_pton(AF_INET, "10.0.2.3", &l.dns[0]);
	l.n_dns = 1;
	l.prefix = 24;
	l.lease_time = 86400;
	l.mtu = 1500;
	strcpy(l.hostname, "client");
	strcpy(l.domain, "example.org");
	strcpy(l.root_path, "10.0.2.2:/srv/root");
	return l;
}

static void test_render_lease(void)
{
	struct dhcp_lease l = lease();
	struct net_conf nc;
	struct buf b = { 0 };
	struct strv w = { 0 };

	net_conf_from_lease(&nc, "eth0", &l);
	net_conf_render(&nc, &b, &w);
	buf_append(&b, "", 1);
	CHECK_STR(b.p, "DEVICE='eth0'\n"
		       "PROTO='dhcp'\n"
		       "IPV4ADDR='10.0.2.15'\n"
		       "IPV4NETMASK='255.255.255.0'\n"
		       "IPV4GATEWAY='10.0.2.2'\n"
		       "IPV4DNS0='10.0.2.3'\n"
		       "HOSTNAME='client'\n"
		       "DNSDOMAIN='example.org'\n"
		       "ROOTSERVER='10.0.2.2'\n"
		       "ROOTPATH='10.0.2.2:/srv/root'\n"
		       "DHCPLEASETIME='86400'\n"
		       "MTU='1500'\n");
	CHECK(w.n == 0);
	buf_free(&b);
}

static void test_render_hostile(void)
{
	struct dhcp_lease l = lease();
	struct net_conf nc;
	struct buf b = { 0 };
	struct strv w = { 0 };

	strcpy(l.hostname, "x'; reboot -f; echo '$(id)`id`");
	strcpy(l.domain, "evil\nIPV4ADDR=1.2.3.4");
	strcpy(l.root_path, "/srv/$HOME\\");
	net_conf_from_lease(&nc, "eth0", &l);
	net_conf_render(&nc, &b, &w);
	buf_append(&b, "", 1);
	CHECK(strstr(b.p, "HOSTNAME='x'\\''; reboot -f; echo '\\''$(id)`id`'\n") != NULL);
	CHECK(strstr(b.p, "DNSDOMAIN") == NULL);
	CHECK(strstr(b.p, "ROOTPATH='/srv/$HOME\\'\n") != NULL);
	CHECK(w.n == 1);
	CHECK_STR(w.v[0], "DNSDOMAIN: left out, its value has a control character");

	/* What sh reads back is exactly what the server sent. */
	char path[] = "/tmp/test_net_conf_XXXXXX", cmd[200], out[300] = "";
	int fd = mkstemp(path);
	CHECK(fd >= 0 && write_all(fd, b.p, strlen(b.p)) == 0);
	close(fd);
	snprintf(cmd, sizeof(cmd), "sh -c '. %s && printf %%s \"$HOSTNAME\"'", path);
	FILE *p = popen(cmd, "r");
	CHECK(p && fgets(out, sizeof(out), p));
	if (p)
		pclose(p);
	CHECK_STR(out, "x'; reboot -f; echo '$(id)`id`");
	unlink(path);

	struct buf r = { 0 };
	strv_free(&w);
	net_resolv_render(&nc, NULL, 0, true, &r, &w);
	buf_append(&r, "", 1);
	CHECK_STR(r.p, "nameserver 10.0.2.3\n");
	CHECK_STR(w.v[0], "resolv.conf: the DHCP domain is not a domain name: left out");
	buf_free(&r);
	buf_free(&b);
	strv_free(&w);
}

static void test_resolv_and_static(void)
{
	struct ip_conf ip;
	struct strv w = { 0 };
	struct net_conf nc;
	struct buf b = { 0 }, r = { 0 };
	struct net_addr extra[2];

	CHECK(ip_conf_parse("10.0.0.5:10.0.0.1:10.0.0.254:255.255.0.0:host:eth1:none:10.0.0.2", &ip, &w) == 0);
	net_conf_from_ip(&nc, "eth1", &ip);
	net_conf_render(&nc, &b, &w);
	buf_append(&b, "", 1);
	CHECK_STR(b.p, "DEVICE='eth1'\nPROTO='none'\nIPV4ADDR='10.0.0.5'\nIPV4NETMASK='255.255.0.0'\n"
		       "IPV4GATEWAY='10.0.0.254'\nIPV4DNS0='10.0.0.2'\nHOSTNAME='host'\nROOTSERVER='10.0.0.1'\n");
	net_parse_addr("10.9.9.9", &extra[0]);
	net_parse_addr("2001:db8::53", &extra[1]);
	nc.domain = "lan";
	net_resolv_render(&nc, extra, 2, true, &r, &w);
	buf_append(&r, "", 1);
	CHECK_STR(r.p, "nameserver 10.9.9.9\nnameserver 2001:db8::53\nnameserver 10.0.0.2\nsearch lan\n");
	buf_free(&r);
	net_resolv_render(&nc, extra, 1, false, &r, &w); /* rd.peerdns=0 */
	buf_append(&r, "", 1);
	CHECK_STR(r.p, "nameserver 10.9.9.9\n");
	CHECK(w.n == 0);
	ip_conf_free(&ip);
	buf_free(&r);
	buf_free(&b);
}

static void test_write_no_links(void)
{
	char dir[] = "/tmp/test_net_dir_XXXXXX", *data = NULL, target[300], p[300];
	size_t len;
	int dfd;

	CHECK(mkdtemp(dir) != NULL);
	dfd = open(dir, O_DIRECTORY | O_RDONLY);
	CHECK(dfd >= 0);
	CHECK(net_write_file_at(dfd, "eth0.conf", "A='1'\n", 6) == 0);
	CHECK(read_file_at(dfd, "eth0.conf", &data, &len) == 0 && len == 6);
	free(data);
	/* A link planted at the final name or the temporary is replaced,
	 * never followed. */
	snprintf(target, sizeof(target), "%s/victim", dir);
	CHECK(close(open(target, O_CREAT | O_WRONLY, 0600)) == 0);
	CHECK(symlinkat(target, dfd, "eth1.conf") == 0);
	CHECK(symlinkat(target, dfd, ".eth1.conf.tmp") == 0);
	CHECK(net_write_file_at(dfd, "eth1.conf", "B='2'\n", 6) == 0);
	struct stat st;
	CHECK(stat(target, &st) == 0 && st.st_size == 0);
	CHECK(fstatat(dfd, "eth1.conf", &st, AT_SYMLINK_NOFOLLOW) == 0 && S_ISREG(st.st_mode));
	CHECK(net_write_file_at(dfd, "../x", "", 0) == -EINVAL);
	CHECK(net_write_file_at(dfd, "..", "", 0) == -EINVAL);
	CHECK(net_write_file_at(dfd, "", "", 0) == -EINVAL);
	close(dfd);
	const char *names[] = { "eth0.conf", "eth1.conf", "victim" };
	for (size_t i = 0; i < 3; i++) {
		snprintf(p, sizeof(p), "%s/%s", dir, names[i]);
		unlink(p);
	}
	CHECK(rmdir(dir) == 0);
}

int main(void)
{
	RUN(test_render_lease);
	RUN(test_render_hostile);
	RUN(test_resolv_and_static);
	RUN(test_write_no_links);
	return test_done();
}
