// SPDX-License-Identifier: GPL-2.0-or-later
#include "stack_helpers.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "init/stack/stack.h"
#include "log.h"

void fake_tool(struct fake_ops *f, const char *path)
{
	char *p;

	fake_write(f, path, "#!/bin/false\n");
	p = fake_path(f, path);
	chmod(p, 0755);
	free(p);
}

void stack_init_start(struct init *in, struct fake_ops *f, const char *cmdline,
		      const struct initops *xops)
{
	struct cmdline c = { 0 };

	msgs_capture(LOG_INFO);
	memset(in, 0, sizeof(*in));
	in->ops = &f->ops;
	in->xops = xops;
	init_setup(in);
	cmdline_parse_layers(&c, NULL, cmdline);
	options_parse(&in->opt, &c);
	stack_parse(&in->stack, &c);
	cmdline_free(&c);
}

void stack_init_finish(struct fake_ops *f, struct init *in, bool failed)
{
	if (failed) {
		fake_log_dump(f);
		printf("# messages:\n%s", msgs.p);
	}
	init_free(in);
	fake_ops_free(f);
}
