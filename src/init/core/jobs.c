// SPDX-License-Identifier: GPL-2.0-or-later
#include "init/core/jobs.h"

#include <stdlib.h>
#include <string.h>

#include "util.h"

void jobq_push(struct jobq *q, const struct job *j)
{
	ARRAY_GROW(q->v, q->cap, q->n + 1);
	q->v[q->n++] = *j;
}

void jobq_push_front(struct jobq *q, const struct job *j)
{
	ARRAY_GROW(q->v, q->cap, q->n + 1);
	memmove(q->v + 1, q->v, q->n * sizeof(*q->v));
	q->v[0] = *j;
	q->n++;
}

bool jobq_pop(struct jobq *q, struct job *out)
{
	if (!q->n)
		return false;
	*out = q->v[0];
	memmove(q->v, q->v + 1, --q->n * sizeof(*q->v));
	return true;
}

void job_free(struct job *j)
{
	if (j->free)
		j->free(j->data);
	else
		free(j->data);
	memset(j, 0, sizeof(*j));
}

void jobq_free(struct jobq *q)
{
	for (size_t i = 0; i < q->n; i++)
		job_free(&q->v[i]);
	free(q->v);
	memset(q, 0, sizeof(*q));
}
