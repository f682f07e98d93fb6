// SPDX-License-Identifier: GPL-2.0-or-later
/* dropbear's start and stop in the init against fake ops: the argv it
 * gets (no passwords, no forwarding, the forced command, the image's
 * host keys or -R), /dev/pts and the prompt's socket, when it is not
 * started at all, and that everything is undone at the stop. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "fake_ops.h"
#include "init/init.h"
#include "init/remote/sshd.h"
#include "layout.h"
#include "log.h"
#include "log_capture.h"
#include "test.h"

static struct strv calls;

static pid_t x_start(const char *path, char *const argv[], char *const envp[])
{
	struct buf b = { 0 };

	(void)envp;
	buf_printf(&b, "start %s", path);
	for (size_t i = 0; argv[i]; i++)
		buf_printf(&b, " %s", argv[i]);
	strv_push_owned(&calls, b.p);
	return 4242;
}

static void x_stop(pid_t pid)
{
	strv_push_owned(&calls, xasprintf("stop %d", (int)pid));
}

static const struct initops xops = { .start_daemon = x_start, .stop_daemon = x_stop };

/* An image with dropbear and, if hostkeys, the packed host key. */
static struct fake_ops *image(struct init *in, const char *ssh_file)
{
	struct fake_ops *f = fake_ops_new();
	char *p;

	memset(in, 0, sizeof(*in));
	in->ops = &f->ops;
	in->xops = &xops;
	in->opt.ssh = true;
	in->opt.ssh_port = 22;
	fake_mkdir(f, "/run/uniramfs");
	fake_mkdir(f, "/dev");
	if (ssh_file)
		fake_write(f, LAYOUT_SSH_FILE, ssh_file);
	fake_write(f, "/usr/sbin/dropbear", "");
	p = fake_path(f, "/usr/sbin/dropbear");
	CHECK(chmod(p, 0755) == 0);
	free(p);
	fake_write(f, "/etc/dropbear/dropbear_ed25519_host_key", "k");
	strv_free(&calls);
	return f;
}

static void done(struct fake_ops *f, struct init *in)
{
	askpass_close(&in->ssh.ask);
	fake_ops_free(f);
	strv_free(&calls);
}

static void test_packed_keys(void)
{
	struct init in;
	struct fake_ops *f = image(&in, "hostkeys=image\n");
	char *sock = fake_path(f, LAYOUT_ASKPASS_SOCKET);
	struct stat st;

	in.opt.ssh_port = 2222;
	sshd_start(&in.ssh, in.ops, in.xops, &in.opt, in.tool_envp);
	CHECK(calls.n == 1);
	CHECK_STR(calls.n ? calls.v[0] : NULL,
		  "start /usr/sbin/dropbear dropbear -F -E -s -j -k -m -p 2222 -P "
		  "/run/uniramfs/dropbear.pid -c /bin/uniramfs-askpass -r "
		  "/etc/dropbear/dropbear_ed25519_host_key");
	CHECK(fake_log_find(f, "mount devpts /dev/pts devpts 0xa mode=620,ptmxmode=666") >= 0);
	CHECK(in.ssh.pid == 4242 && in.ssh.ask.listening);
	CHECK(stat(sock, &st) == 0 && S_ISSOCK(st.st_mode) && (st.st_mode & 0777) == 0600);
	CHECK(said("<6>SSH: dropbear on port 2222: log in to answer the passphrase prompt\n"));
	/* the network may come up again: once is all */
	sshd_start(&in.ssh, in.ops, in.xops, &in.opt, in.tool_envp);
	CHECK(calls.n == 1);
	sshd_stop(&in.ssh, in.ops, in.xops);
	CHECK(calls.n == 2);
	CHECK_STR(calls.n > 1 ? calls.v[1] : NULL, "stop 4242");
	CHECK(fake_log_find(f, "umount /dev/pts 0x2") >= 0);
	CHECK(fake_log_find(f, "unlink /run/uniramfs/dropbear.pid") >= 0);
	CHECK(stat(sock, &st) < 0 && errno == ENOENT);
	CHECK(!in.ssh.ask.listening && in.ssh.pid == 0);
	free(sock);
	done(f, &in);
}

static void test_generic_makes_keys_at_boot(void)
{
	struct init in;
	struct fake_ops *f = image(&in, "hostkeys=boot\n");

	sshd_start(&in.ssh, in.ops, in.xops, &in.opt, in.tool_envp);
	CHECK_STR(calls.n ? calls.v[0] : NULL,
		  "start /usr/sbin/dropbear dropbear -F -E -s -j -k -m -p 22 -P "
		  "/run/uniramfs/dropbear.pid -c /bin/uniramfs-askpass -R");
	CHECK(fake_log_find(f, "mkdir /etc/dropbear 0700") >= 0);
	sshd_stop(&in.ssh, in.ops, in.xops);
	done(f, &in);
}

static void test_not_started(void)
{
	struct init in;
	struct fake_ops *f = image(&in, "hostkeys=image\n");

	in.opt.ssh = false; /* rd.ssh=0 */
	sshd_start(&in.ssh, in.ops, in.xops, &in.opt, in.tool_envp);
	CHECK(calls.n == 0);
	done(f, &in);

	f = image(&in, NULL); /* an image made without SSH */
	sshd_start(&in.ssh, in.ops, in.xops, &in.opt, in.tool_envp);
	CHECK(calls.n == 0 && !in.ssh.ask.listening);
	sshd_stop(&in.ssh, in.ops, in.xops); /* nothing to undo: no call */
	CHECK(calls.n == 0 && fake_log_count(f, "umount") == 0);
	done(f, &in);

	f = image(&in, "hostkeys=image\n");
	{
		char *p = fake_path(f, "/usr/sbin/dropbear");
		CHECK(unlink(p) == 0);
		free(p);
	}
	sshd_start(&in.ssh, in.ops, in.xops, &in.opt, in.tool_envp);
	CHECK(calls.n == 0 && !in.ssh.ask.listening);
	CHECK(said("<4>SSH: the image has no dropbear; the passphrase is asked on the console "
		   "only\n"));
	done(f, &in);
}

int main(void)
{
	msgs_capture(LOG_DEBUG);
	RUN(test_packed_keys);
	RUN(test_generic_makes_keys_at_boot);
	RUN(test_not_started);
	return test_done();
}
