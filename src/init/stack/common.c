// SPDX-License-Identifier: GPL-2.0-or-later
/* What the layers share: done-once marks, UUID comparison, module sets,
 * and queueing their jobs. */
#include <ctype.h>
#include <stdlib.h>
#include <string.h>

#include "err.h"
#include "init/dev/modload.h"
#include "init/stack/stack.h"
#include "log.h"

bool stack_once(struct stack *s, const char *kind, const char *key)
{
	char *k = xasprintf("%s:%s", kind, key);

	if (strv_contains(&s->done, k)) {
		free(k);
		return true;
	}
	strv_push_owned(&s->done, k);
	return false;
}

static void hex_only(const char *u, char *out, size_t size)
{
	size_t n = 0;

	for (; *u && n + 1 < size; u++)
		if (isxdigit((unsigned char)*u))
			out[n++] = (char)tolower((unsigned char)*u);
	out[n] = '\0';
}

bool stack_uuid_eq(const char *a, const char *b)
{
	char x[128], y[128];

	if (!a || !b)
		return false;
	hex_only(a, x, sizeof(x));
	hex_only(b, y, sizeof(y));
	return *x && strcmp(x, y) == 0;
}

bool stack_seen_uuid(const struct stack_env *env, const char *type, const char *uuid)
{
	for (size_t i = 0; i < env->devs->n; i++) {
		const struct blockdev *bd = &env->devs->v[i];
		if (bd->type && !strcmp(bd->type, type) && stack_uuid_eq(bd->uuid, uuid))
			return true;
	}
	return false;
}

/* The ones not in the image are simply not wanted there (hostonly
 * picked its set). */
bool stack_load_modules(struct stack_env *env, const char *set, const char *const *mods)
{
	if (!env->ml || stack_once(env->stack, "modules", set))
		return false;
	for (size_t k = 0; mods && mods[k]; k++)
		if (modload_name(env->ml, mods[k]) < 0)
			log_debug("%s: %s", mods[k], err_msg());
	return true;
}

void stack_queue(struct stack_env *env, const char *what,
		 enum job_result (*run)(void *env, void *data), void *data,
		 void (*free_fn)(void *))
{
	struct job j = { .what = what, .run = run, .free = free_fn, .data = data, .ctx = env };

	jobq_push(env->jobs, &j);
}
