// SPDX-License-Identifier: GPL-2.0-or-later
#include "stack_helpers.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "cmdline.h"
#include "init/init.h"
#include "err.h"
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

void stack_log_run(struct fake_ops *f, const char *path, char *const argv[], char *const envp[],
		   const void *input, size_t len)
{
	struct buf b = { 0 };

	buf_printf(&b, "run %s", path);
	for (size_t i = 0; argv[i]; i++)
		buf_printf(&b, " %s", argv[i]);
	for (size_t i = 0; envp && envp[i]; i++)
		if (!strncmp(envp[i], "SYSTEMD_", 8))
			buf_printf(&b, " env %s", envp[i]);
	if (input)
		buf_printf(&b, " <%.*s>", (int)len, (const char *)input);
	strv_push_owned(&f->log, b.p);
}

struct stack_script stack_script;

void stack_script_start(struct fake_ops *f)
{
	memset(&stack_script, 0, sizeof(stack_script));
	stack_script.f = f;
}

void stack_script_answer(const char *answer)
{
	if (stack_script.nanswer < (int)ARRAY_SIZE(stack_script.answers))
		stack_script.answers[stack_script.nanswer++] = answer;
}

int stack_script_next_status(void)
{
	int *v = stack_script.statuses, st = v[0];

	memmove(v, v + 1, sizeof(stack_script.statuses) - sizeof(v[0]));
	v[ARRAY_SIZE(stack_script.statuses) - 1] = 0;
	return st;
}

static int script_run(const char *path, char *const argv[], char *const envp[],
		      const void *input, size_t len)
{
	stack_log_run(stack_script.f, path, argv, stack_script.log_env ? envp : NULL, input, len);
	return stack_script_next_status();
}

static int script_run_stderr(const char *path, char *const argv[], char *const envp[],
			     const void *input, size_t len, char *err, size_t size)
{
	const char **e = stack_script.errs;

	snprintf(err, size, "%s", e[0] ? e[0] : "");
	memmove(e, e + 1, sizeof(stack_script.errs) - sizeof(e[0]));
	e[ARRAY_SIZE(stack_script.errs) - 1] = NULL;
	return script_run(path, argv, envp, input, len);
}

static ssize_t script_read_secret(const char *prompt, char *buf, size_t size, struct loop *loop,
				  struct askpass *remote)
{
	struct stack_script *s = &stack_script;

	(void)loop;
	(void)remote;
	strv_push_owned(&s->f->log, xasprintf("prompt %s", prompt));
	if (s->nanswer == 0)
		return err_set("end of input on /dev/console");
	snprintf(buf, size, "%s", s->answers[0]);
	memmove(s->answers, s->answers + 1, sizeof(s->answers) - sizeof(s->answers[0]));
	s->nanswer--;
	return (ssize_t)strlen(buf);
}

const struct initops stack_script_ops = {
	.reboot = fake_reboot,
	.run = script_run,
	.run_stderr = script_run_stderr,
	.read_secret = script_read_secret,
};

void stack_luks2_header(struct fake_ops *f, const char *dev, const char *json)
{
	static unsigned char h[16384];
	char *p = fake_path(f, dev);
	FILE *fp;

	memset(h, 0, sizeof(h));
	memcpy(h, "LUKS\xba\xbe\0\2", 8);
	h[14] = 0x40; /* hdr_size 16384, big-endian at 8 */
	memcpy(h + 4096, json, strlen(json));
	fp = fopen(p, "wb");
	if (!fp || fwrite(h, 1, sizeof(h), fp) != sizeof(h))
		fprintf(stderr, "# cannot write a LUKS2 header at %s\n", p);
	if (fp)
		fclose(fp);
	free(p);
}

void stack_event(struct init *in, const char *name, const char *type, const char *uuid)
{
	struct blockdev bd;

	memset(&bd, 0, sizeof(bd));
	bd.name = (char *)name;
	bd.devnode = xasprintf("/dev/%s", name);
	bd.type = (char *)type;
	bd.uuid = (char *)uuid;
	stack_seen(&in->stack_env, DEV_ADDED, &bd);
	free(bd.devnode);
	run_jobs(in);
}

struct blockdev *stack_device(struct init *in, const char *name, const char *type,
			      const char *uuid, const char *label)
{
	struct registry *r = &in->devs;
	struct blockdev *bd;

	ARRAY_GROW(r->v, r->cap, r->n + 1);
	bd = &r->v[r->n++];
	memset(bd, 0, sizeof(*bd));
	bd->name = xstrdup(name);
	bd->devnode = xasprintf("/dev/%s", name);
	bd->type = type ? xstrdup(type) : NULL;
	bd->uuid = uuid ? xstrdup(uuid) : NULL;
	bd->label = label ? xstrdup(label) : NULL;
	return bd;
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

void stack_world_init(struct stack_world *w, struct fake_ops *f, const struct initops *xops,
		      const char *cmdline)
{
	struct cmdline c = { 0 };

	memset(w, 0, sizeof(*w));
	stack_init(&w->stack);
	registry_init(&w->devs, &f->ops);
	driverq_init(&w->drivers, &f->ops);
	w->env = (struct stack_env){
		.ops = &f->ops,
		.xops = xops,
		.stack = &w->stack,
		.drivers = &w->drivers,
		.jobs = &w->jobs,
		.devs = &w->devs,
		.stall_ms = &w->stall_ms,
	};
	cmdline_parse_layers(&c, NULL, cmdline);
	stack_parse(&w->stack, &c);
	cmdline_free(&c);
}

void stack_world_finish(struct fake_ops *f, struct stack_world *w, bool failed)
{
	if (failed) {
		fake_log_dump(f);
		printf("# messages:\n%s", msgs.p);
	}
	stack_free(&w->stack);
	jobq_free(&w->jobs);
	registry_free(&w->devs);
	driverq_free(&w->drivers);
	fake_ops_free(f);
}
