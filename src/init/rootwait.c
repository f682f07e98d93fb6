// SPDX-License-Identifier: GPL-2.0-or-later
/* The waits of the boot: the loop run until a device (the root, resume=)
 * is there or a deadline passed, with the jobs the devices queue run as
 * they come (docs/design.md, "The stages"). sequence.c says what to wait
 * for and when. */
#include <stdlib.h>

#include "err.h"
#include "init/init.h"
#include "init/stages/stages.h"
#include "log.h"

int run_jobs(struct init *in)
{
	struct job j;
	int r;

	while (jobq_pop(&in->jobs, &j)) {
		if (j.run(j.ctx, j.data) == JOB_FAILED) {
			/* the failure path from here only: never inside the loop */
			if ((r = failure(in, true)) < 0) {
				job_free(&j);
				return r;
			}
			jobq_push_front(&in->jobs, &j);
			continue;
		}
		job_free(&j);
	}
	return 0;
}

/* What a wait waits for: a predicate on the boot, with its argument. */
struct waiting {
	struct init *in;
	bool (*ready)(const struct init *in, const void *arg);
	const void *arg;
};

/* The loop ends for a queued job too: jobs run out here. */
static bool wait_done(void *p)
{
	struct waiting *w = p;

	return w->in->jobs.n || w->ready(w->in, w->arg);
}

int boot_wait(struct init *in, long long deadline,
	      bool (*ready)(const struct init *in, const void *arg), const void *arg)
{
	struct waiting w = { in, ready, arg };
	long long stall0 = in->stall_ms;
	int r;

	for (;;) {
		long long d = deadline < 0 ? -1 : deadline + (in->stall_ms - stall0);
		enum loop_end e = loop_run(&in->loop, d, wait_done, &w, 0);

		if (e == LOOP_ERROR)
			log_err("%s", err_msg());
		if (in->jobs.n) {
			if ((r = run_jobs(in)) < 0)
				return r;
			continue;
		}
		/* a driver's load inside the loop moved the deadline on */
		if (e == LOOP_TIMEOUT && deadline >= 0 &&
		    now_ms(in) < deadline + (in->stall_ms - stall0))
			continue;
		return e == LOOP_DONE;
	}
}

int boot_settle(struct init *in)
{
	devevents_drain(&in->events);
	return in->jobs.n ? run_jobs(in) : 0;
}

static bool root_ready(const struct init *in, const void *arg)
{
	(void)arg;
	return in->root != NULL;
}

static bool resume_ready(const struct init *in, const void *arg)
{
	(void)arg;
	return in->root && in->resume_done;
}

/* The root is there: resume= too, for a short while once the devices
 * are quiet (resume.c says how long), never past deadline. */
static int wait_resume(struct init *in, long long deadline)
{
	long long start, stall0;
	bool settled = false;
	int r = 0;

	if (!resume_begin(in))
		return 0;
	if (deadline < 0)
		deadline = now_ms(in) + DEFAULT_ROOT_TIMEOUT * 1000;
	start = now_ms(in);
	stall0 = in->stall_ms;
	for (;;) {
		long long hard = deadline + (in->stall_ms - stall0);
		long long until = resume_quiet_until(in, start);

		r = boot_wait(in, until < hard ? until : hard, resume_ready, NULL);
		if (r != 0 || in->resume_done || !in->root)
			break;
		if (now_ms(in) >= hard)
			break;
		if (!in->drivers.n && now_ms(in) >= resume_quiet_until(in, start)) {
			settled = true;
			break;
		}
	}
	resume_end(in, settled);
	return r < 0 ? r : 0;
}

long long last_activity(const struct init *in)
{
	long long last = in->devs.last_change_ms;

	if (in->drivers.last_load_ms > last)
		last = in->drivers.last_load_ms;
	if (in->stack.last_run_ms > last)
		last = in->stack.last_run_ms;
	return last;
}

/* rd.timeout passed without the root, but a slow RAID or SAN controller
 * still announces disks one by one: failing now would reboot into the
 * same race every time. The wait goes on while something happened in
 * the last ROOT_QUIET_MS (half rd.timeout when that is shorter: a short
 * rd.timeout asks for a quick failure), never past ROOT_EXTEND_TIMES
 * rd.timeouts more. The ms waited past deadline, or a negative code (the
 * failure path gave up: a test). */
static long long wait_while_appearing(struct init *in, long long deadline)
{
	long long quiet = in->opt.timeout * 1000 / 2, hard, stall0 = in->stall_ms;
	bool said = false;
	int r;

	if (quiet > ROOT_QUIET_MS)
		quiet = ROOT_QUIET_MS;
	hard = deadline + in->opt.timeout * 1000 * ROOT_EXTEND_TIMES;
	for (;;) {
		long long now = now_ms(in), last = last_activity(in);
		long long h = hard + (in->stall_ms - stall0);

		if (in->root || now >= h || now - last >= quiet)
			break;
		if (!said) {
			log_notice("root=%s is not there after %ld seconds, but devices are still "
				   "appearing: waiting on (at most %ld seconds more)",
				   in->opt.root, in->opt.timeout, in->opt.timeout * ROOT_EXTEND_TIMES);
			said = true;
		}
		if ((r = boot_wait(in, last + quiet < h ? last + quiet : h, root_ready, NULL)) < 0)
			return r;
	}
	return said && now_ms(in) > deadline ? now_ms(in) - deadline : 0;
}

int init_wait_root(struct init *in)
{
	long long extra = 0;
	long long deadline = in->opt.timeout < 0 ? -1 : now_ms(in) + in->opt.timeout * 1000;
	long long stall0 = in->stall_ms;
	int r;

	if (!in->root) {
		if (in->opt.timeout < 0)
			log_info("waiting for root=%s", in->opt.root);
		else
			log_info("waiting up to %ld seconds for root=%s", in->opt.timeout,
				 in->opt.root);
	}
	/* Half the root timeout (15 s when it is forever) gives every
	 * member of an array its chance; then the layers may act (md:
	 * start what is short of members degraded). */
	if (!in->root && stack_has_half_time(&in->stack_env)) {
		long timeout = in->opt.timeout < 0 ? DEFAULT_ROOT_TIMEOUT : in->opt.timeout;
		long long half = now_ms(in) + timeout * 1000 / 2;

		if (deadline >= 0 && half > deadline)
			half = deadline;
		if ((r = boot_wait(in, half, root_ready, NULL)) < 0)
			return r;
		if (!in->root)
			stack_half_time(&in->stack_env);
	}
	/* the root may have come first: its siblings' disk drivers still load */
	if ((r = boot_wait(in, deadline < 0 ? -1 : deadline + (in->stall_ms - stall0), root_ready,
			   NULL)) < 0)
		return r;
	if (!in->root && deadline >= 0 &&
	    (extra = wait_while_appearing(in, deadline + (in->stall_ms - stall0))) < 0)
		return (int)extra;
	if ((in->root || root_timed_out(in)) &&
	    (r = wait_resume(in, deadline < 0 ? -1 : deadline + (in->stall_ms - stall0))) < 0)
		return r;
	if (in->root)
		return 1;
	if (extra)
		log_err("root device root=%s did not appear within %ld seconds, nor in %lld more "
			"while devices were still appearing", in->opt.root, in->opt.timeout,
			(extra + 999) / 1000);
	else
		log_err("root device root=%s did not appear within %ld seconds", in->opt.root,
			in->opt.timeout);
	stack_report_missing(&in->stack_env);
	return 0;
}


int gptroot_wait(struct init *in)
{
	long long start = now_ms(in), stall0 = in->stall_ms;
	struct gptroot st;
	int r;

	gptroot_begin(in, &st);
	for (;;) {
		long long end = in->opt.timeout < 0 ? -1
			: start + (in->stall_ms - stall0) + in->opt.timeout * 1000, until;

		if ((r = gptroot_step(in, &st, end, last_activity(in), &until)) != 0)
			break;
		if ((r = boot_wait(in, until, gptroot_ready, &st)) < 0) {
			gptroot_free(&st);
			return r;
		}
	}
	gptroot_free(&st);
	return r < 0 ? 0 : init_wait_root(in);
}

int livescan_wait(struct init *in)
{
	long long end = in->opt.timeout < 0 ? -1 : now_ms(in) + in->opt.timeout * 1000;
	long long stall0 = in->stall_ms;
	struct livescan st = { 0 };
	int r;

	log_info("boot=live: looking for %s/%s on the block devices", in->opt.live_dir,
		 in->opt.live_squashimg);
	for (;;) {
		long long e = end < 0 ? -1 : end + (in->stall_ms - stall0);

		if ((r = livescan_step(in, &st)) < 0) {
			log_err("%s", err_msg());
			r = 0;
			break;
		}
		if (r > 0 || (e >= 0 && now_ms(in) >= e))
			break;
		if ((r = boot_wait(in, e, livescan_ready, &st)) < 0) {
			livescan_free(&st);
			return r;
		}
	}
	if (r == 0)
		livescan_report(in, &st);
	livescan_free(&st);
	return r == 0 ? 0 : init_wait_root(in);
}
