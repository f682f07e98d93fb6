// SPDX-License-Identifier: GPL-2.0-or-later
/* The layers' options (stack_parse: rd.luks.*, rd.md.*): an option the
 * init reads but does not act on is said by name in the boot log, never
 * taken silently (issue 26, "accepted means honoured"). */
#include <string.h>

#include "cmdline.h"
#include "init/stack/stack.h"
#include "log.h"
#include "log_capture.h"
#include "test.h"

static void parse(struct stack *s, const char *line)
{
	struct cmdline c = { 0 };

	stack_init(s);
	msgs_capture(LOG_WARNING);
	cmdline_parse_layers(&c, NULL, line);
	stack_parse(s, &c);
	cmdline_free(&c);
}

static void test_luks_unsupported_named(void)
{
	struct stack s;

	parse(&s, "rd.luks.timeout=30 rd.luks.header=/h rd.luks.data=UUID=x rd.luks.uuid "
		  "rd.luks.key");
	CHECK_STR(msgs.p, "<4>ignoring rd.luks.timeout=30: uniramfs does not support rd.luks.timeout\n"
			  "<4>ignoring rd.luks.header=/h: expected rd.luks.header=UUID=/FILE, /dev/NODE "
			  "or /FILE:DEVICE\n"
			  "<4>ignoring rd.luks.data=UUID=x: expected rd.luks.data=UUID=DEVICE\n"
			  "<4>ignoring rd.luks.uuid: expected rd.luks.uuid=VALUE\n"
			  "<4>ignoring rd.luks.key: expected rd.luks.key=VALUE\n");
	stack_free(&s);
}

static void test_luks_known_quiet(void)
{
	struct stack s;

	parse(&s, "rd.luks=1 rd.luks.crypttab=0 rd.luks.uuid=luks-ABCD rd.luks.name=abcd=root "
		  "rd.luks.options=discard rd.luks.tokens=0 rd.luks.clevis=1 "
		  "rd.luks.allow-discards rd.luks.tries=5");
	CHECK_STR(msgs.p, "");
	CHECK(s.crypttab_off && s.tokens_off && s.allow_discards && s.tries == 5);
	CHECK_STR(s.luks_uuids.v[0], "abcd");
	stack_free(&s);
}

/* systemd-cryptsetup-generator's rd.luks.header=UUID=SPEC and
 * rd.luks.data=UUID=DEVICE: one entry per UUID, in any spelling of it */
static void test_luks_header_data(void)
{
	struct stack s;

	parse(&s, "rd.luks.header=CBD49694-81DE-41BD-A850-0D934AFF8328=/h.hdr "
		  "rd.luks.data=UUID=cbd49694-81de-41bd-a850-0d934aff8328=/dev/sda "
		  "rd.luks.header=luks-4d4d4d4d-4444-4444-8444-444444444444=/root.hdr:UUID=e2d8 "
		  "rd.luks.header=4d4d4d4d-4444-4444-8444-444444444445=/dev/vda "
		  "rd.luks.header=cbd49694-81de-41bd-a850-0d934aff8328=/x/../h "
		  "rd.luks.data=cbd49694-81de-41bd-a850-0d934aff8328=nodev");
	CHECK_STR(msgs.p, "<4>ignoring rd.luks.header=cbd49694-81de-41bd-a850-0d934aff8328=/x/../h: "
			  "expected rd.luks.header=UUID=/FILE, /dev/NODE or /FILE:DEVICE\n"
			  "<4>ignoring rd.luks.data=cbd49694-81de-41bd-a850-0d934aff8328=nodev: "
			  "expected rd.luks.data=UUID=DEVICE\n");
	CHECK(s.ndetached == 3);
	CHECK_STR(s.detached[0].uuid, "cbd49694-81de-41bd-a850-0d934aff8328");
	CHECK_STR(s.detached[0].header, "/h.hdr");
	CHECK_STR(s.detached[0].data, "/dev/sda");
	CHECK_STR(s.detached[1].uuid, "4d4d4d4d-4444-4444-8444-444444444444");
	CHECK_STR(s.detached[1].header, "/root.hdr:UUID=e2d8");
	CHECK(s.detached[1].data == NULL);
	CHECK_STR(s.detached[2].header, "/dev/vda");
	CHECK(luks_header_names(&s, "CBD49694-81DE-41BD-A850-0D934AFF8328"));
	CHECK(!luks_header_names(&s, "cbd49694-81de-41bd-a850-0d934aff8329"));
	stack_free(&s);
}

static void test_md_unsupported_named(void)
{
	struct stack s;

	parse(&s, "rd.md.conf=0 rd.md.waitclean=1 rd.md.uuid= rd.md rd.md=0 rd.md.uuid=1:2");
	CHECK_STR(msgs.p, "<4>ignoring rd.md.conf=0: uniramfs does not support rd.md.conf\n"
			  "<4>ignoring rd.md.waitclean=1: uniramfs does not support rd.md.waitclean\n"
			  "<4>ignoring rd.md.uuid=: expected rd.md.uuid=VALUE\n"
			  "<4>ignoring rd.md: expected rd.md=VALUE\n");
	CHECK(s.md_off);
	CHECK(s.md_uuids.n == 1);
	stack_free(&s);
}

int main(void)
{
	log_init("uniramfs", LOG_DEBUG);
	RUN(test_luks_unsupported_named);
	RUN(test_luks_known_quiet);
	RUN(test_luks_header_data);
	RUN(test_md_unsupported_named);
	buf_free(&msgs);
	return test_done();
}
