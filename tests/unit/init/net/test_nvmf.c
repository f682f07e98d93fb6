// SPDX-License-Identifier: GPL-2.0-or-later
/* NVMe over TCP roots: dracut's rd.nvmf.* words, the /dev/nvme-fabrics
 * options string and answer, the discovery log page; and that
 * rd.nvmf.* makes a network root (netroot.h) only when nothing else
 * does. */
#include <stdlib.h>
#include <string.h>

#include "test.h"
#include "init/net/netroot.h"
#include "init/net/nvmf.h"

static struct strv w;
static struct nvmf_root r;
static struct buf ob;

static int line(const char *text)
{
	struct cmdline c = { 0 };
	int n;

	nvmf_root_free(&r);
	strv_free(&w);
	cmdline_parse(&c, text);
	n = nvmf_from_cmdline(&c, &r, &w);
	cmdline_free(&c);
	return n;
}

static const char *opts(size_t i)
{
	buf_free(&ob);
	nvmf_options(&r, &r.t[i], r.t[i].nqn ? r.t[i].nqn : NVMF_DISCOVERY_NQN, &ob);
	buf_append(&ob, "", 1);
	return ob.p;
}

static void test_discover(void)
{
	CHECK(line("rd.nvmf.discover=tcp,192.168.100.1") == 1);
	CHECK_STR(r.t[0].traddr, "192.168.100.1");
	CHECK(r.t[0].port == 4420 && !r.t[0].host_traddr && !r.t[0].nqn);
	CHECK_STR(opts(0), "nqn=nqn.2014-08.org.nvmexpress.discovery,transport=tcp,traddr=192.168.100.1,"
			   "trsvcid=4420");
	/* dracut's examples: empty fields keep their defaults; several words */
	CHECK(line("rd.nvmf.discover=tcp,192.168.1.3,,8009 rd.nvmf.discover=tcp,fd00::1,fd00::2 "
		   "rd.nvmf.hostnqn=nqn.2014-08.org.nvmexpress:uuid:37303738-3034-584d-5137-333230423843 "
		   "rd.nvmf.hostid=37303738-3034-584d-5137-333230423843") == 2);
	CHECK(r.t[0].port == 8009);
	CHECK_STR(r.t[1].traddr, "fd00::1");
	CHECK_STR(r.t[1].host_traddr, "fd00::2");
	CHECK_STR(opts(1), "nqn=nqn.2014-08.org.nvmexpress.discovery,transport=tcp,traddr=fd00::1,trsvcid=4420,"
			   "host_traddr=fd00::2,hostnqn=nqn.2014-08.org.nvmexpress:uuid:"
			   "37303738-3034-584d-5137-333230423843,hostid=37303738-3034-584d-5137-333230423843");
	CHECK(w.n == 0);
	/* the same twice is one target; dracut's older nvmf.discover= too */
	CHECK(line("rd.nvmf.discover=tcp,10.0.0.1 nvmf.discover=tcp,10.0.0.1,,4420") == 1);
}

static void test_discover_malformed(void)
{
	CHECK(line("rd.nvmf.discover=rdma,192.168.1.3,,4420") == 0);
	CHECK(w.n == 1);
	CHECK_STR(w.v[0], "rd.nvmf.discover=rdma,192.168.1.3,,4420: transport \"rdma\" is not tcp "
			  "(the only one uniramfs connects over)");
	CHECK(line("rd.nvmf.discover=tcp") == 0);
	CHECK_STR(w.v[0], "rd.nvmf.discover=tcp: not TRTYPE,TRADDR[,HOST_TRADDR[,TRSVCID]]");
	CHECK(line("rd.nvmf.discover=tcp,,,4420") == 0);
	CHECK_STR(w.v[0], "rd.nvmf.discover=tcp,,,4420: \"\" is not an IP address");
	CHECK(line("rd.nvmf.discover=tcp,server.example,,4420") == 0);
	CHECK_STR(w.v[0], "rd.nvmf.discover=tcp,server.example,,4420: \"server.example\" is not an IP address");
	CHECK(line("rd.nvmf.discover=tcp,10.0.0.1,eth0") == 0);
	CHECK_STR(w.v[0], "rd.nvmf.discover=tcp,10.0.0.1,eth0: host address \"eth0\" is not an IP address");
	CHECK(line("rd.nvmf.discover=tcp,10.0.0.1,,65536") == 0);
	CHECK_STR(w.v[0], "rd.nvmf.discover=tcp,10.0.0.1,,65536: \"65536\" is not a port");
	CHECK(line("rd.nvmf.discover=tcp,10.0.0.1,,4420,x") == 0);
	CHECK_STR(w.v[0], "rd.nvmf.discover=tcp,10.0.0.1,,4420,x: more than TRTYPE,TRADDR,HOST_TRADDR,TRSVCID");
	/* a comma inside a value would be the kernel's next option */
	CHECK(line("rd.nvmf.discover=tcp,10.0.0.1,,4420,hostnqn=evil") == 0);
	/* the good one stays beside a bad one */
	CHECK(line("rd.nvmf.discover=fc,auto rd.nvmf.discover=tcp,10.0.0.1") == 1 && w.n == 1);
}

static void test_direct(void)
{
	CHECK(line("rd.nvmf.traddr=192.168.100.1 rd.nvmf.trsvcid=4421 rd.nvmf.nqn=nqn.2026-12.org.uniramfs:root") ==
	      1);
	CHECK_STR(opts(0), "nqn=nqn.2026-12.org.uniramfs:root,transport=tcp,traddr=192.168.100.1,trsvcid=4421");
	/* without an NQN the address is a discovery controller */
	CHECK(line("rd.nvmf.traddr=[fd00::1]") == 1 && !r.t[0].nqn && r.t[0].port == 4420);
	CHECK_STR(r.t[0].traddr, "fd00::1");
	CHECK(line("rd.nvmf.nqn=nqn.a:b") == 0);
	CHECK_STR(w.v[0], "rd.nvmf.nqn=nqn.a:b without rd.nvmf.traddr=: no NVMe over TCP target");
	CHECK(line("rd.nvmf.traddr=10.0.0.1 rd.nvmf.trsvcid=port") == 0);
	CHECK_STR(w.v[0], "rd.nvmf.trsvcid=port: \"port\" is not a port");
	CHECK(line("rd.nvmf.traddr=10.0.0.1 rd.nvmf.trsvcid=") == 0);
	CHECK_STR(w.v[0], "rd.nvmf.trsvcid=: \"\" is not a port");
	CHECK(line("rd.nvmf.traddr=10.0.0.1 rd.nvmf.nqn=nqn.a,hostnqn=b") == 0);
	CHECK_STR(w.v[0], "rd.nvmf.nqn=nqn.a,hostnqn=b: not an NQN (1 to 223 printable bytes, no ',')");
	CHECK(line("rd.nvmf.traddr=10.0.0.1.5") == 0);
	CHECK_STR(w.v[0], "rd.nvmf.traddr=10.0.0.1.5: \"10.0.0.1.5\" is not an IP address");
	/* the host's names: bad ones are left to the kernel's own */
	CHECK(line("rd.nvmf.traddr=10.0.0.1 rd.nvmf.hostnqn=a,b rd.nvmf.hostid=not-a-uuid") == 1);
	CHECK(!r.hostnqn && !r.hostid && w.n == 2);
	CHECK_STR(w.v[0], "rd.nvmf.hostnqn=a,b: not an NQN (1 to 223 printable bytes, no ','): the kernel's own "
			  "is used");
	CHECK_STR(w.v[1], "rd.nvmf.hostid=not-a-uuid: not a UUID: the kernel's own is used");
	/* rd.nonvmf turns it off */
	CHECK(line("rd.nonvmf rd.nvmf.discover=tcp,10.0.0.1") == 0 && w.n == 0);
	CHECK(line("rd.nonvmf=0 rd.nvmf.discover=tcp,10.0.0.1") == 1);
}

static void test_reply(void)
{
	CHECK(nvmf_reply_instance("instance=3,cntlid=1\n") == 3);
	CHECK(nvmf_reply_instance("instance=0\n") == 0);
	CHECK(nvmf_reply_instance("instance=,cntlid=1") < 0);
	CHECK(nvmf_reply_instance("instance=12345678,cntlid=1") < 0);
	CHECK(nvmf_reply_instance("cntlid=1") < 0);
	CHECK(nvmf_reply_instance("instance=1x") < 0);
}

static void entry(uint8_t *e, int trtype, int subtype, const char *svc, const char *nqn, const char *addr)
{
	memset(e, 0, NVMF_DISC_ENTRY);
	e[0] = (uint8_t)trtype;
	e[1] = 1;
	e[2] = (uint8_t)subtype;
	memset(e + 32, ' ', 32);
	memcpy(e + 32, svc, strlen(svc));
	memcpy(e + 256, nqn, strlen(nqn));
	memset(e + 512, ' ', 256);
	memcpy(e + 512, addr, strlen(addr));
}

static void test_discovery_log(void)
{
	size_t len = NVMF_DISC_HDR + 5 * NVMF_DISC_ENTRY;
	uint8_t *p = calloc(1, len);
	struct nvmf_target from = { .traddr = (char *)"192.168.100.1", .port = 4420,
				    .host_traddr = (char *)"192.168.100.10" };

	p[8] = 5;
	entry(p + 1024, 3, 3, "4420", NVMF_DISCOVERY_NQN, "192.168.100.1"); /* itself */
	entry(p + 2048, 3, 2, "4420", "nqn.2026-12.org.uniramfs:root", "192.168.100.1");
	entry(p + 3072, 1, 2, "4420", "nqn.rdma", "192.168.100.1"); /* RDMA */
	entry(p + 4096, 3, 2, "44x0", "nqn.bad", "192.168.100.1");
	entry(p + 5120, 3, 2, "4421", "nqn.2026-12.org.uniramfs:root", "192.168.100.1");
	nvmf_root_free(&r);
	strv_free(&w);
	CHECK(nvmf_disc_parse(p, len, &from, &r, &w) == 2);
	CHECK(r.n == 2);
	CHECK_STR(r.t[0].nqn, "nqn.2026-12.org.uniramfs:root");
	CHECK_STR(r.t[0].traddr, "192.168.100.1");
	CHECK_STR(r.t[0].host_traddr, "192.168.100.10");
	CHECK(r.t[0].port == 4420 && r.t[1].port == 4421);
	CHECK(w.n == 1);
	CHECK_STR(w.v[0], "NVMe discovery log page from 192.168.100.1:4420: record 4 is not a TCP address, "
			  "port and NQN (\"192.168.100.1\", \"44x0\")");
	/* listed again (a second discovery controller): counted, not added */
	strv_free(&w);
	CHECK(nvmf_disc_parse(p, len, &from, &r, &w) == 2 && r.n == 2 && w.n == 1);
	/* NUMREC past the bytes sent: what came is read, the rest said */
	nvmf_root_free(&r);
	strv_free(&w);
	p[8] = 9;
	CHECK(nvmf_disc_parse(p, len, &from, &r, &w) == 2);
	CHECK(w.n == 2);
	CHECK_STR(w.v[1], "NVMe discovery log page from 192.168.100.1:4420: record 6 of 9 is cut short");
	/* an address with a control byte, an NQN with a comma */
	nvmf_root_free(&r);
	strv_free(&w);
	p[8] = 2;
	entry(p + 2048, 3, 2, "4420", "nqn.a,hostnqn=x", "192.168.100.1");
	CHECK(nvmf_disc_parse(p, len, &from, &r, &w) == 0 && w.n == 1);
	entry(p + 2048, 3, 2, "4420", "nqn.a", "192.168.100.1\n");
	strv_free(&w);
	CHECK(nvmf_disc_parse(p, len, &from, &r, &w) == 0 && w.n == 1);
	CHECK_STR(w.v[0], "NVMe discovery log page from 192.168.100.1:4420: record 2 is not a TCP address, "
			  "port and NQN (\"\", \"4420\")");
	/* a huge NUMREC is capped; a short header is refused */
	memset(p + 8, 0xff, 8);
	CHECK(nvmf_disc_count(p, len, 16, &w) == 16);
	strv_free(&w);
	CHECK(nvmf_disc_parse(p, 100, &from, &r, &w) == 0);
	CHECK_STR(w.v[0], "NVMe discovery log page: 100 bytes, shorter than its 1024-byte header");
	free(p);
}

/* rd.nvmf.* is the root only when no other network root is named */
static void test_netroot(void)
{
	struct cmdline c = { 0 };
	struct netroot nr;
	struct strv ww = { 0 };

	cmdline_parse(&c, "root=UUID=1234 rd.nvmf.discover=tcp,10.0.0.1");
	CHECK(netroot_from_cmdline(&c, &nr, &ww) == 0);
	CHECK(nr.kind == NETROOT_NVMF && nr.nvmf.n == 1);
	CHECK(netroot_use(&nr) == NETROOT_USE_DEVICE);
	netroot_free(&nr);
	cmdline_free(&c);
	cmdline_parse(&c, "netroot=nbd:10.0.0.2:raw rd.nvmf.discover=tcp,10.0.0.1");
	CHECK(netroot_from_cmdline(&c, &nr, &ww) == 0);
	CHECK(nr.kind == NETROOT_NBD && nr.nvmf.n == 0);
	netroot_free(&nr);
	cmdline_free(&c);
	strv_free(&ww);
}

int main(void)
{
	RUN(test_discover);
	RUN(test_discover_malformed);
	RUN(test_direct);
	RUN(test_reply);
	RUN(test_discovery_log);
	RUN(test_netroot);
	nvmf_root_free(&r);
	strv_free(&w);
	buf_free(&ob);
	return test_done();
}
