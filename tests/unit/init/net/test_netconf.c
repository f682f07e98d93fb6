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
#include "init/net/nethandover.h"

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
	/* one search line (a second would replace it): the IPv6 list,
	 * option 119's, the domain, each name once */
	nc.search6 = "v6.example lan";
	nc.search = "eng.example lan";
	net_resolv_render(&nc, NULL, 0, true, &r, &w);
	buf_append(&r, "", 1);
	CHECK_STR(r.p, "nameserver 10.0.0.2\nsearch v6.example lan eng.example\n");
	buf_free(&r);
	nc.search6 = nc.search = NULL;
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

/* /run/net-IFACE.conf: klibc ipconfig's layout exactly (every key, in
 * its order, 0.0.0.0 and '' for what is absent), what initramfs-tools'
 * readers expect. */
static void test_klibc_lease(void)
{
	struct dhcp_lease l = lease();
	struct net_conf nc;
	struct buf b = { 0 };
	struct strv w = { 0 };

	l.bound_ms = 3456;
	memcpy(l.search, "example.org lab.example.org", 28);
	net_conf_from_lease(&nc, "eth0", &l);
	net_conf_render_klibc(&nc, &b, &w);
	buf_append(&b, "", 1);
	CHECK_STR(b.p, "DEVICE='eth0'\n"
		       "PROTO='dhcp'\n"
		       "IPV4ADDR='10.0.2.15'\n"
		       "IPV4BROADCAST='10.0.2.255'\n"
		       "IPV4NETMASK='255.255.255.0'\n"
		       "IPV4GATEWAY='10.0.2.2'\n"
		       "IPV4DNS0='10.0.2.3'\n"
		       "IPV4DNS1='0.0.0.0'\n"
		       "HOSTNAME='client'\n"
		       "DNSDOMAIN='example.org'\n"
		       "NISDOMAIN=''\n"
		       "ROOTSERVER='10.0.2.2'\n"
		       "ROOTPATH='10.0.2.2:/srv/root'\n"
		       "filename=''\n"
		       "UPTIME='3'\n"
		       "DHCPLEASETIME='86400'\n"
		       "DOMAINSEARCH='example.org lab.example.org'\n");
	CHECK(w.n == 0);
	buf_free(&b);
}

static void test_klibc_static_and_hostile(void)
{
	struct ip_conf ip;
	struct strv w = { 0 };
	struct net_conf nc;
	struct buf b = { 0 };
	struct dhcp_lease l = lease();

	CHECK(ip_conf_parse("10.0.0.5:10.0.0.1:10.0.0.254:255.255.0.0:host:eth1:none", &ip, &w) == 0);
	net_conf_from_ip(&nc, "eth1", &ip);
	nc.uptime = 12;
	net_conf_render_klibc(&nc, &b, &w);
	buf_append(&b, "", 1);
	CHECK_STR(b.p, "DEVICE='eth1'\nPROTO='none'\nIPV4ADDR='10.0.0.5'\nIPV4BROADCAST='10.0.255.255'\n"
		       "IPV4NETMASK='255.255.0.0'\nIPV4GATEWAY='10.0.0.254'\nIPV4DNS0='0.0.0.0'\n"
		       "IPV4DNS1='0.0.0.0'\nHOSTNAME='host'\nDNSDOMAIN=''\nNISDOMAIN=''\n"
		       "ROOTSERVER='10.0.0.1'\nROOTPATH=''\nfilename=''\nUPTIME='12'\n"
		       "DHCPLEASETIME='0'\nDOMAINSEARCH=''\n");
	ip_conf_free(&ip);
	buf_free(&b);

	/* ' and ! closed out of the quotes as ipconfig does; a control
	 * byte empties the value (the key stays, as readers expect it) */
	strcpy(l.hostname, "x'!$(id)`id`");
	strcpy(l.domain, "evil\nIPV4ADDR=1.2.3.4");
	strcpy(l.file, "pxelinux.0");
	net_conf_from_lease(&nc, "eth0", &l);
	net_conf_render_klibc(&nc, &b, &w);
	buf_append(&b, "", 1);
	CHECK(strstr(b.p, "HOSTNAME='x'\\'''\\!'$(id)`id`'\n") != NULL);
	CHECK(strstr(b.p, "DNSDOMAIN=''\n") != NULL);
	CHECK(strstr(b.p, "1.2.3.4") == NULL);
	CHECK(strstr(b.p, "filename='pxelinux.0'\n") != NULL);
	CHECK(w.n == 1 && !strcmp(w.v[0], "DNSDOMAIN: left out, its value has a control character"));

	/* sh reads back exactly what the server sent */
	char path[] = "/tmp/test_net_klibc_XXXXXX", cmd[200], out[300] = "";
	int fd = mkstemp(path);
	CHECK(fd >= 0 && write_all(fd, b.p, strlen(b.p)) == 0);
	close(fd);
	snprintf(cmd, sizeof(cmd), "sh -c '. %s && printf %%s \"$HOSTNAME|$DNSDOMAIN|$IPV4DNS1\"'", path);
	FILE *p = popen(cmd, "r");
	CHECK(p && fgets(out, sizeof(out), p));
	if (p)
		pclose(p);
	CHECK_STR(out, "x'!$(id)`id`||0.0.0.0");
	unlink(path);
	buf_free(&b);
	strv_free(&w);
}

/* NetworkManager: the root's interface unmanaged, by a section of our
 * own and appended to unmanaged-devices. */
static void test_nm_unmanaged(void)
{
	struct buf b = { 0 };
	char *n = net_nm_conf_name("eth0");

	CHECK_STR(n, "90-uniramfs-eth0.conf");
	free(n);
	CHECK(net_nm_unmanaged_render("eth0", &b) == 0);
	buf_append(&b, "", 1);
	CHECK(strstr(b.p, "\n[device-uniramfs-eth0]\nmatch-device=interface-name:eth0\nmanaged=0\n") != NULL);
	CHECK(strstr(b.p, "\n[keyfile]\nunmanaged-devices+=interface-name:eth0\n") != NULL);
	buf_free(&b);
	/* a name that would split NM's list or a section header */
	CHECK(net_nm_unmanaged_render("a;b", &b) == -EINVAL);
	CHECK(net_nm_unmanaged_render("a]b", &b) == -EINVAL);
	CHECK(net_nm_unmanaged_render("", &b) == -EINVAL);
	CHECK(b.len == 0);
}

/* networkd: the same addressing, KeepConfiguration=yes (and the older
 * CriticalConnection=), sorted before the administrator's files. */
static void test_networkd(void)
{
	struct dhcp_lease l = lease();
	struct net_conf nc;
	struct buf b = { 0 };
	struct ip_conf ip;
	struct strv w = { 0 };
	char *n = net_networkd_name("enp1s0");

	CHECK_STR(n, "00-uniramfs-enp1s0.network");
	free(n);
	net_conf_from_lease(&nc, "eth0", &l);
	CHECK(net_networkd_render(&nc, &b) == 0);
	buf_append(&b, "", 1);
	CHECK(strstr(b.p, "\n[Match]\nName=eth0\n\n[Network]\nDHCP=ipv4\nKeepConfiguration=yes\n\n"
			  "[DHCPv4]\nClientIdentifier=mac\n") != NULL);
	/* networkd 252 (Debian 12) does not know it: an unknown-key warning */
	CHECK(strstr(b.p, "RequestAddress") == NULL);
	CHECK(strstr(b.p, "\n[DHCP]\nCriticalConnection=yes\n") != NULL);
	buf_free(&b);

	CHECK(ip_conf_parse("10.0.0.5::10.0.0.254:255.255.0.0::eth1:none:10.0.0.2", &ip, &w) == 0);
	net_conf_from_ip(&nc, "eth1", &ip);
	CHECK(net_networkd_render(&nc, &b) == 0);
	buf_append(&b, "", 1);
	CHECK(strstr(b.p, "\n[Network]\nAddress=10.0.0.5/16\nGateway=10.0.0.254\nDNS=10.0.0.2\n"
			  "KeepConfiguration=yes\n") != NULL);
	CHECK(strstr(b.p, "DHCP") == NULL);
	buf_free(&b);
	nc.device = "x\ny";
	CHECK(net_networkd_render(&nc, &b) == -EINVAL);
	ip_conf_free(&ip);
	strv_free(&w);
}

/* IPv6: initramfs-tools' IPV6* keys, v6 servers and the search list in
 * resolv.conf after the v4 ones, networkd's spelling of each method; a
 * search list with a control byte never reaches resolv.conf. */
static void test_ipv6(void)
{
	struct net_conf nc = { .device = "eth0", .prefix = -1, .proto6 = "dhcp6", .prefix6 = 128,
			       .search6 = "test example.org" };
	struct net_addr extra = { .family = AF_INET6 };
	struct buf b = { 0 };
	struct strv w = { 0 };

	inet_pton(AF_INET6, "fd00::10", &nc.addr6);
	inet_pton(AF_INET6, "fd00::53", &nc.dns6[0]);
	nc.n_dns6 = 1;
	net_conf_render(&nc, &b, &w);
	buf_append(&b, "", 1);
	CHECK_STR(b.p, "DEVICE='eth0'\nIPV6PROTO='dhcp6'\nIPV6ADDR='fd00::10'\nIPV6NETMASK='128'\n"
		       "IPV6DNS0='fd00::53'\nIPV6DOMAINSEARCH='test example.org'\n");
	buf_free(&b);
	inet_pton(AF_INET6, "fd00::1", &extra.v6);
	net_resolv_render(&nc, &extra, 1, true, &b, &w);
	buf_append(&b, "", 1);
	CHECK_STR(b.p, "nameserver fd00::1\nnameserver fd00::53\nsearch test example.org\n");
	buf_free(&b);
	nc.search6 = "a\nnameserver 6.6.6.6";
	net_resolv_render(&nc, NULL, 0, true, &b, &w);
	buf_append(&b, "", 1);
	CHECK_STR(b.p, "nameserver fd00::53\n");
	buf_free(&b);
	CHECK(w.n == 0);

	CHECK(net_networkd_render(&nc, &b) == 0);
	buf_append(&b, "", 1);
	CHECK(strstr(b.p, "\n[Network]\nDHCP=ipv6\nIPv6AcceptRA=yes\nDNS=fd00::53\nKeepConfiguration=yes\n") != NULL);
	CHECK(strstr(b.p, "DHCPv4") == NULL);
	buf_free(&b);
	nc.proto6 = "auto6";
	CHECK(net_networkd_render(&nc, &b) == 0);
	buf_append(&b, "", 1);
	CHECK(strstr(b.p, "\n[Network]\nIPv6AcceptRA=yes\nDNS=fd00::53\n") != NULL);
	buf_free(&b);
	nc.proto6 = "none";
	nc.prefix6 = 64;
	inet_pton(AF_INET6, "fd00::fe", &nc.gateway6);
	nc.n_dns6 = 0;
	CHECK(net_networkd_render(&nc, &b) == 0);
	buf_append(&b, "", 1);
	CHECK(strstr(b.p, "\n[Network]\nAddress=fd00::10/64\nGateway=fd00::fe\nKeepConfiguration=yes\n") != NULL);
	CHECK(strstr(b.p, "0.0.0.0") == NULL);
	buf_free(&b);
	strv_free(&w);
}

/* iSCSI: iscsid's name file and the drop-in that shows it to iscsid
 * alone; a name iscsid could not read back is refused. */
static void test_iscsi_initiator(void)
{
	struct buf b = { 0 };
	char longname[300];

	CHECK(net_iscsi_initiator_render("iqn.2026-12.test:client1", &b) == 0);
	buf_append(&b, "", 1);
	CHECK(strstr(b.p, "\nInitiatorName=iqn.2026-12.test:client1\n") != NULL);
	buf_free(&b);
	CHECK(net_iscsi_initiator_render("iqn.x:a b", &b) == -EINVAL);
	CHECK(net_iscsi_initiator_render("iqn.x:a\nInitiatorName=evil", &b) == -EINVAL);
	CHECK(net_iscsi_initiator_render("", &b) == -EINVAL);
	CHECK(net_iscsi_initiator_render(NULL, &b) == -EINVAL);
	memset(longname, 'a', 224);
	longname[224] = '\0';
	CHECK(net_iscsi_initiator_render(longname, &b) == -EINVAL);
	CHECK(b.len == 0);
	net_iscsid_dropin_render(&b);
	buf_append(&b, "", 1);
	CHECK(strstr(b.p, "\n[Service]\nBindReadOnlyPaths=/run/uniramfs/iscsi/initiatorname.iscsi:"
			  "/etc/iscsi/initiatorname.iscsi\n") != NULL);
	buf_free(&b);
}

int main(void)
{
	RUN(test_render_lease);
	RUN(test_render_hostile);
	RUN(test_resolv_and_static);
	RUN(test_write_no_links);
	RUN(test_klibc_lease);
	RUN(test_klibc_static_and_hostile);
	RUN(test_nm_unmanaged);
	RUN(test_networkd);
	RUN(test_ipv6);
	RUN(test_iscsi_initiator);
	return test_done();
}
