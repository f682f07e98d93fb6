// SPDX-License-Identifier: GPL-2.0-or-later
/* The shutdown's wait for arrays whose metadata mdmon keeps
 * (src/shutdown/md_clean.c): which arrays it waits for, which states
 * are settled, and the ping in mdmon's framing, against a fake mdmon on
 * a real socket and a fake /sys/block. */
#include <errno.h>
#include <signal.h>
#include <stdarg.h>
#include <stdint.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <unistd.h>

#include "md_clean.h"
#include "test.h"
#include "util.h"

enum reply { REPLY_ACK, REPLY_VERSION, REPLY_BAD_MAGIC, REPLY_NONE };

static char *dir;

static void fresh_dir(void)
{
	char tmpl[] = "/tmp/uniramfs-test-md-clean-XXXXXX";
	free(dir);
	dir = xstrdup(mkdtemp(tmpl));
}

/* A fake mdmon on PATH: accepts one client, checks that it sent an
 * empty message in mdmon's framing, answers as told. The child exits
 * 0 when the ping was well formed. */
static pid_t fake_mdmon(const char *path, enum reply reply)
{
	struct sockaddr_un sa = { .sun_family = AF_UNIX };
	int ls = socket(AF_UNIX, SOCK_STREAM, 0);
	pid_t pid;

	snprintf(sa.sun_path, sizeof(sa.sun_path), "%s", path);
	if (ls < 0 || bind(ls, (struct sockaddr *)&sa, sizeof(sa)) < 0 || listen(ls, 1) < 0)
		abort();
	pid = fork();
	if (pid == 0) {
		uint32_t got[3] = { 0 }, ack[3] = { 0x5a5aa5a5u, 0, 0xa5a55a5au };
		uint32_t ver[2] = { 0x5a5aa5a5u, 5 }, end = 0xa5a55a5au;
		int c = accept(ls, NULL, NULL);
		int ok = c >= 0 && read(c, got, sizeof(got)) == sizeof(got) && got[0] == 0x5a5aa5a5u &&
			 got[1] == 0 && got[2] == 0xa5a55a5au;
		switch (reply) {
		case REPLY_ACK:
			ok = ok && write(c, ack, sizeof(ack)) == sizeof(ack);
			break;
		case REPLY_VERSION:
			ok = ok && write(c, ver, sizeof(ver)) == sizeof(ver) && write(c, "4.2.0", 5) == 5 &&
			     write(c, &end, 4) == 4;
			break;
		case REPLY_BAD_MAGIC:
			ack[0] = 0x12345678u;
			ok = ok && write(c, ack, sizeof(ack)) == sizeof(ack);
			break;
		case REPLY_NONE:
			pause();
			break;
		}
		_exit(ok ? 0 : 1);
	}
	close(ls);
	return pid;
}

static int reap(pid_t pid)
{
	int st = 0;

	waitpid(pid, &st, 0);
	return WIFEXITED(st) ? WEXITSTATUS(st) : -1;
}

static void test_container_of_member(void)
{
	char c[16];

	CHECK(md_external_container("external:/md127/0", c, sizeof(c)) == 0);
	CHECK_STR(c, "md127");
	/* mdadm marks a member it has blocked with '-' */
	CHECK(md_external_container("external:-md126/1", c, sizeof(c)) == 0);
	CHECK_STR(c, "md126");
	/* a container, native metadata, and names that are no md device:
	 * the name becomes a path under /run/mdadm */
	CHECK(md_external_container("external:imsm", c, sizeof(c)) == -EINVAL);
	CHECK(md_external_container("external:ddf", c, sizeof(c)) == -EINVAL);
	CHECK(md_external_container("1.2", c, sizeof(c)) == -EINVAL);
	CHECK(md_external_container("none", c, sizeof(c)) == -EINVAL);
	CHECK(md_external_container("external:/../x/0", c, sizeof(c)) == -EINVAL);
	CHECK(md_external_container("external:/md1x/0", c, sizeof(c)) == -EINVAL);
	CHECK(md_external_container("external:/md127", c, sizeof(c)) == -EINVAL);
	CHECK(md_external_container("external:/md1234567890123456/0", c, sizeof(c)) == -EINVAL);
}

static void test_settled_states(void)
{
	CHECK(md_state_settled("clean\n"));
	CHECK(md_state_settled("inactive"));
	CHECK(md_state_settled("readonly\n"));
	CHECK(md_state_settled("read-auto\n"));
	CHECK(md_state_settled("clear"));
	/* still to be written by mdmon, or in use */
	CHECK(!md_state_settled("active\n"));
	CHECK(!md_state_settled("active-idle\n"));
	CHECK(!md_state_settled("write-pending\n"));
	CHECK(!md_state_settled("cleanish"));
	CHECK(!md_state_settled(""));
}

static void test_ping(void)
{
	char *sock;
	pid_t pid;

	fresh_dir();
	sock = path_join(dir, "md127.sock");
	pid = fake_mdmon(sock, REPLY_ACK);
	CHECK(md_ping_monitor(sock, 5000) == 0);
	CHECK(reap(pid) == 0);
	unlink(sock);
	/* mdmon may answer with its version: read past it */
	pid = fake_mdmon(sock, REPLY_VERSION);
	CHECK(md_ping_monitor(sock, 5000) == 0);
	CHECK(reap(pid) == 0);
	unlink(sock);
	pid = fake_mdmon(sock, REPLY_BAD_MAGIC);
	CHECK(md_ping_monitor(sock, 5000) == -EPROTO);
	reap(pid);
	unlink(sock);
	pid = fake_mdmon(sock, REPLY_NONE);
	CHECK(md_ping_monitor(sock, 200) == -ETIMEDOUT);
	kill(pid, SIGKILL);
	reap(pid);
	unlink(sock);
	CHECK(md_ping_monitor(sock, 200) == -ENOENT);
	free(sock);
}

static char said[1024];

static void capture(const char *fmt, ...)
{
	size_t n = strlen(said);
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(said + n, sizeof(said) - n, fmt, ap);
	va_end(ap);
	strncat(said, "\n", sizeof(said) - strlen(said) - 1);
}

static void put(const char *path, const char *text)
{
	FILE *f = fopen(path, "w");

	CHECK(f && fputs(text, f) >= 0);
	if (f)
		fclose(f);
}

static void md_dev(const char *name, const char *version, const char *state)
{
	char *p = path_join(dir, name), *md;

	mkdir(p, 0755);
	md = path_join(p, "md");
	mkdir(md, 0755);
	free(p);
	p = path_join(md, "metadata_version");
	put(p, version);
	free(p);
	p = path_join(md, "array_state");
	put(p, state);
	free(p);
	free(md);
}

static void test_wait_clean(void)
{
	char *sock;
	pid_t pid;

	fresh_dir();
	/* the volume, its container, a native array, a disk */
	md_dev("md126", "external:/md127/0\n", "clean\n");
	md_dev("md127", "external:imsm\n", "inactive\n");
	md_dev("md0", "1.2\n", "active\n");
	md_dev("vda", "", "");
	sock = path_join(dir, "md127.sock");
	pid = fake_mdmon(sock, REPLY_ACK);
	said[0] = '\0';
	CHECK(md_wait_clean(dir, dir, 5000, capture) == 0);
	CHECK_STR(said, "md126 is clean: md127's mdmon confirmed its metadata\n");
	CHECK(reap(pid) == 0);
	unlink(sock);

	/* still active when the time is up: said, counted, no ping */
	md_dev("md126", "external:/md127/0\n", "active\n");
	said[0] = '\0';
	CHECK(md_wait_clean(dir, dir, 1000, capture) == 1);
	CHECK_STR(said, "md126 is still active after 1 s: its metadata may be left dirty (a resync at the next boot)\n");

	/* settled, but no mdmon to confirm it */
	md_dev("md126", "external:/md127/0\n", "read-auto\n");
	said[0] = '\0';
	CHECK(md_wait_clean(dir, dir, 1000, capture) == 1);
	CHECK_STR(said, "md126 is read-auto, but md127's mdmon did not confirm its metadata (No such file or directory)\n");
	free(sock);
}

int main(void)
{
	RUN(test_container_of_member);
	RUN(test_settled_states);
	RUN(test_ping);
	RUN(test_wait_clean);
	return test_done();
}
