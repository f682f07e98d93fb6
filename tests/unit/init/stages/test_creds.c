// SPDX-License-Identifier: GPL-2.0-or-later
/* systemd credentials handed to the root's systemd (stages/creds.c): the
 * UKI's /.extra/ ones and the command line's, where systemd's initrd
 * leaves them, against fake_ops. Names and values are hostile text. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "fake_ops.h"
#include "init/init.h"
#include "init/stages/creds.h"
#include "log_capture.h"
#include "test.h"

static struct fake_ops *f;
static struct init in;
static struct strv env;

static void start(const char *cmdline)
{
	f = fake_ops_new();
	memset(&in, 0, sizeof(in));
	in.ops = &f->ops;
	memset(&env, 0, sizeof(env));
	fake_write(f, "/proc/cmdline", cmdline);
	fake_mkdir(f, "/run");
	msgs_capture(7);
}

static void end(void)
{
	strv_free(&env);
	fake_ops_free(f);
}

static mode_t mode_of(const char *p)
{
	char *real = fake_path(f, p);
	struct stat st;
	mode_t m = lstat(real, &st) == 0 ? st.st_mode & 07777 : 0;

	free(real);
	return m;
}

static bool absent(const char *p)
{
	char *real = fake_path(f, p);
	struct stat st;
	bool gone = lstat(real, &st) < 0;

	free(real);
	return gone;
}

static void check_file(const char *p, const char *want)
{
	char *got = fake_read(f, p);

	CHECK(got != NULL);
	if (got)
		CHECK_STR(got, want);
	free(got);
}

static void test_names(void)
{
	CHECK(cred_name_valid("passwd.hashed-password.root"));
	CHECK(cred_name_valid("a"));
	CHECK(!cred_name_valid(""));
	CHECK(!cred_name_valid("."));
	CHECK(!cred_name_valid(".."));
	CHECK(!cred_name_valid("a/b"));
	CHECK(!cred_name_valid("a:b"));
	CHECK(!cred_name_valid("tab\there"));
	CHECK(!cred_name_valid("caf\xc3\xa9"));
	char long_name[257];
	memset(long_name, 'x', 256);
	long_name[256] = '\0';
	CHECK(!cred_name_valid(long_name));
	long_name[255] = '\0';
	CHECK(cred_name_valid(long_name));
}

/* Nothing to take over: the root's systemd reads the command line itself. */
static void test_nothing(void)
{
	start("root=/dev/vda1 systemd.set_credential=firstboot.locale:C.UTF-8");
	creds_handover(&in, &env);
	CHECK(env.n == 0);
	CHECK(absent("/run/credentials"));
	end();
}

static void test_stub_and_cmdline(void)
{
	start("root=/dev/vda1 systemd.set_credential=firstboot.locale:C.UTF-8 "
	      "rd.systemd.set-credential=login.issue:hello:world "
	      "systemd.set_credential=firstboot.locale:de_DE.UTF-8 "
	      "systemd.set_credential=nocolon "
	      "systemd.set_credential=bad/name:x "
	      "systemd.set_credential_binary=b:aGk=");
	fake_write(f, "/.extra/credentials/ssh.authorized_keys.root.cred", "ENCRYPTED-1");
	fake_write(f, "/.extra/global_credentials/ssh.authorized_keys.root.cred", "GLOBAL");
	fake_write(f, "/.extra/global_credentials/other.cred", "GLOBAL-2");
	fake_write(f, "/.extra/credentials/not-a-cred.txt", "x");
	fake_write(f, "/.extra/credentials/a:b.cred", "x");
	fake_mkdir(f, "/.extra/credentials/dir.cred");
	fake_symlink(f, "/etc/shadow", "/.extra/credentials/link.cred");
	fake_write(f, "/.extra/sysext/tools.raw", "image");
	creds_handover(&in, &env);
	CHECK(env.n == 2);
	if (env.n == 2) {
		CHECK_STR(env.v[0], "CREDENTIALS_DIRECTORY=/run/credentials/@system");
		CHECK_STR(env.v[1], "ENCRYPTED_CREDENTIALS_DIRECTORY=/run/credentials/@encrypted");
	}
	/* the first of a name wins, the boot's before the ESP's */
	check_file("/run/credentials/@encrypted/ssh.authorized_keys.root", "ENCRYPTED-1");
	check_file("/run/credentials/@encrypted/other", "GLOBAL-2");
	check_file("/run/credentials/@system/firstboot.locale", "C.UTF-8");
	check_file("/run/credentials/@system/login.issue", "hello:world");
	CHECK(mode_of("/run/credentials/@system") == 0700);
	CHECK(mode_of("/run/credentials/@encrypted") == 0700);
	CHECK(mode_of("/run/credentials/@system/login.issue") == 0400);
	CHECK(absent("/run/credentials/@encrypted/link"));
	CHECK(absent("/run/credentials/@encrypted/dir"));
	CHECK(absent("/run/credentials/@encrypted/not-a-cred.txt"));
	CHECK(said("<4>/.extra/credentials/a:b.cred: not a credential name systemd takes: not passed on\n"));
	CHECK(said("<4>/.extra/credentials/dir.cred: not a regular file: not passed on\n"));
	CHECK(said("<4>/.extra/credentials/link.cred: not a regular file: not passed on\n"));
	CHECK(said("<4>systemd.set_credential=nocolon: no ':' between a name and a value: not passed on\n"));
	CHECK(said("<4>systemd.set_credential=bad/name:x: \"bad/name\" is not a credential name "
		   "systemd takes: not passed on\n"));
	CHECK(said("<4>systemd.set_credential_binary=: uniramfs passes on only "
		   "systemd.set_credential= (text): not passed on\n"));
	CHECK(said("<6>/.extra/sysext: extension images for an initrd that runs systemd-sysext: "
		   "not merged here, and not the root's\n"));
	CHECK(said("<6>passing 2 credential(s) from the command line and 2 from the UKI on to systemd\n"));
	end();
}

static void test_limits(void)
{
	char *big = xmalloc(CRED_SIZE_MAX + 2), *half = xmalloc(CRED_SIZE_MAX / 2 + 2);

	start("root=/dev/vda1");
	memset(big, 'x', CRED_SIZE_MAX + 1);
	big[CRED_SIZE_MAX + 1] = '\0';
	memset(half, 'y', CRED_SIZE_MAX / 2 + 1); /* two are one byte too many */
	half[CRED_SIZE_MAX / 2 + 1] = '\0';
	fake_write(f, "/.extra/credentials/a.cred", big);
	fake_write(f, "/.extra/credentials/b.cred", half);
	fake_write(f, "/.extra/credentials/c.cred", half);
	fake_write(f, "/.extra/credentials/d.cred", "small");
	creds_handover(&in, &env);
	CHECK(said("<4>credential a is larger than 1048576 bytes: not passed on\n"));
	CHECK(said("<4>credential c: the credentials would pass 1048576 bytes in all: not passed on\n"));
	CHECK(absent("/run/credentials/@encrypted/a") && !absent("/run/credentials/@encrypted/b") &&
	      absent("/run/credentials/@encrypted/c"));
	check_file("/run/credentials/@encrypted/d", "small");
	CHECK(env.n == 1 && !strcmp(env.v[0], "ENCRYPTED_CREDENTIALS_DIRECTORY=/run/credentials/@encrypted"));
	end();
	free(big);
	free(half);

	/* systemd.import_credentials=no: nothing, as systemd */
	start("root=/dev/vda1 rd.systemd.set_credential=a:b systemd.import_credentials=no");
	fake_write(f, "/.extra/credentials/d.cred", "small");
	creds_handover(&in, &env);
	CHECK(env.n == 0 && absent("/run/credentials"));
	end();
}

int main(void)
{
	RUN(test_names);
	RUN(test_nothing);
	RUN(test_stub_and_cmdline);
	RUN(test_limits);
	msgs_clear();
	buf_free(&msgs);
	return test_done();
}
