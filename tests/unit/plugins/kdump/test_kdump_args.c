// SPDX-License-Identifier: GPL-2.0-or-later
/* The kdump hook's input (src/plugins/kdump/kdump_args.c): the crash
 * kernel's command line, which names the dump's directory and level,
 * and the stamp that names each dump as kdump-tools does. */
#include <errno.h>
#include <string.h>

#include "kdump.h"
#include "test.h"

static void test_defaults(void)
{
	struct kdump_opts o;
	char why[400];

	CHECK(kdump_parse(NULL, &o, why, sizeof(why)) == 0);
	CHECK_STR(o.dir, "/var/crash");
	CHECK(o.level == 31);
	CHECK(kdump_parse("root=UUID=x reset_devices rd.kdump rd.kdumpdir=/x", &o, why, sizeof(why)) == 0);
	CHECK_STR(o.dir, "/var/crash");
	CHECK_STR(why, "");
}

static void test_words(void)
{
	struct kdump_opts o;
	char why[400];

	CHECK(kdump_parse("quiet rd.kdump.dir=/srv/dumps/ rd.kdump.level=1\n", &o, why, sizeof(why)) == 0);
	CHECK_STR(o.dir, "/srv/dumps");
	CHECK(o.level == 1);
	/* the last one counts, as for the init's own words */
	CHECK(kdump_parse("rd.kdump.level=0 rd.kdump.dir=/a rd.kdump.dir=/b\trd.kdump.level=17", &o, why,
			  sizeof(why)) == 0);
	CHECK_STR(o.dir, "/b");
	CHECK(o.level == 17);
	CHECK(kdump_parse("rd.kdump.dir=/", &o, why, sizeof(why)) == 0);
	CHECK_STR(o.dir, "/");
}

static void test_bad_words_say_why(void)
{
	struct kdump_opts o;
	char why[400];

	CHECK(kdump_parse("rd.kdump.dir=var/crash", &o, why, sizeof(why)) == -EINVAL);
	CHECK_STR(why, "ignoring rd.kdump.dir=var/crash: not an absolute path of plain names");
	CHECK_STR(o.dir, "/var/crash");
	CHECK(kdump_parse("rd.kdump.level=32 rd.kdump.dir=/d", &o, why, sizeof(why)) == -EINVAL);
	CHECK_STR(why, "ignoring rd.kdump.level=32: expected a dump level 0-31 (makedumpfile -d)");
	CHECK(o.level == 31);
	CHECK_STR(o.dir, "/d");
	CHECK(kdump_parse("rd.kdump.dir=", &o, why, sizeof(why)) == -EINVAL);
	CHECK_STR(why, "ignoring rd.kdump.dir=: empty value");
	static const char *const dirs[] = { "rd.kdump.dir=/var/../etc", "rd.kdump.dir=/var/./crash",
					    "rd.kdump.dir=/a//b", "rd.kdump.dir=/..", "rd.kdump.dir=/a\\b",
					    "rd.kdump.dir=/a\"b", "rd.kdump.dir=/a\x01" };
	for (size_t i = 0; i < sizeof(dirs) / sizeof(dirs[0]); i++) {
		CHECK(kdump_parse(dirs[i], &o, why, sizeof(why)) == -EINVAL);
		CHECK_STR(o.dir, "/var/crash");
	}
	static const char *const levels[] = { "rd.kdump.level=-1", "rd.kdump.level=+3", "rd.kdump.level=3x",
					      "rd.kdump.level=0031", "rd.kdump.level=", "rd.kdump.level=99999999999" };
	for (size_t i = 0; i < sizeof(levels) / sizeof(levels[0]); i++) {
		CHECK(kdump_parse(levels[i], &o, why, sizeof(why)) == -EINVAL);
		CHECK(o.level == 31);
	}
	char huge[600] = "rd.kdump.dir=/";
	memset(huge + 14, 'a', sizeof(huge) - 15);
	huge[sizeof(huge) - 1] = '\0';
	CHECK(kdump_parse(huge, &o, why, sizeof(why)) == -EINVAL);
	CHECK(strlen(why) < sizeof(why));
	CHECK_STR(o.dir, "/var/crash");
}

static void test_stamp(void)
{
	char s[32];

	/* 2024-02-29 23:59:30 UTC: kdump-tools' date +%Y%m%d%H%M */
	kdump_stamp(1709251170, s, sizeof(s));
	CHECK_STR(s, "202402292359");
	kdump_stamp(0, s, sizeof(s));
	CHECK_STR(s, "197001010000");
}

int main(void)
{
	RUN(test_defaults);
	RUN(test_words);
	RUN(test_bad_words_say_why);
	RUN(test_stamp);
	return test_done();
}
