// SPDX-License-Identifier: GPL-2.0-or-later
/* md RAID: every member goes to `mdadm -I`, which starts its array when
 * the last member arrives. An array still short of members half way to
 * the root timeout is started degraded (stack.c). */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "log.h"
#include "init/stack/stack.h"

void md_parse_option(struct stack *s, const char *kv)
{
	bool b;

	if (str_has_prefix(kv, "rd.md=")) {
		if (cmdline_parse_bool(kv + 6, &b) < 0)
			log_warn("ignoring %s: not a boolean (use 1 or 0)", kv);
		else
			s->md_off = !b;
	} else if (str_has_prefix(kv, "rd.md.uuid=") && kv[11]) {
		strv_split(&s->md_uuids, kv + 11, ",");
	}
}

static bool md_wanted(const struct stack *s, const char *uuid)
{
	if (!s->md_uuids.n)
		return true;
	for (size_t i = 0; i < s->md_uuids.n; i++)
		if (stack_uuid_eq(s->md_uuids.v[i], uuid))
			return true;
	return false;
}

void md_block(struct init *in, const struct blockdev *bd)
{
	struct stack *s = in->stack;
	char *argv[] = { "mdadm", "-I", bd->devnode, NULL };
	int st;

	if (s->md_off)
		return;
	if (!md_wanted(s, bd->uuid)) {
		log_info("%s: RAID member of UUID=%s, not in rd.md.uuid, left alone", bd->devnode,
			 bd->uuid ? bd->uuid : "?");
		return;
	}
	s->md_member_seen = true;
	if (stack_once(s, "md", bd->devnode))
		return;
	stack_load_modules(in, "md");
	st = stack_run(in, "mdadm", argv, NULL, 0);
	if (st > 0)
		log_warn("mdadm -I %s exited with status %d", bd->devnode, st);
}

bool md_any_inactive(struct init *in)
{
	char *p = in->ops->path("/proc/mdstat"), *data = NULL;
	size_t len;
	bool r;

	if (read_file(p, &data, &len) < 0) {
		free(p);
		return false;
	}
	r = strstr(data, " : inactive ") != NULL;
	free(p);
	free(data);
	return r;
}

void md_start_degraded(struct init *in)
{
	char *argv[] = { "mdadm", "-IRs", NULL };
	int st;

	log_warn("starting RAID array(s) degraded: some members did not appear");
	st = stack_run(in, "mdadm", argv, NULL, 0);
	if (st > 0)
		log_warn("mdadm -IRs exited with status %d", st);
}
