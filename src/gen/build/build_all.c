// SPDX-License-Identifier: GPL-2.0-or-later
#include "gen/build/build_all.h"

#include <errno.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "err.h"
#include "gen/build/build.h"
#include "gen/host/sysroot.h"
#include "gen/modules/kernels.h"
#include "log.h"
#include "util.h"

/* How many kernels build at once: the CPUs this process may run on. A
 * build compresses on every core, but its module reading, the
 * decompression of .ko.xz modules and the waits between its phases are
 * one thread; a second kernel fills them. */
static size_t jobs_max(void)
{
	cpu_set_t set;
	int n = 0;

	if (sched_getaffinity(0, sizeof(set), &set) == 0)
		n = CPU_COUNT(&set);
	return n > 0 ? (size_t)n : 1;
}

/* One kernel's build in a child: what it printed, kept until the kernels
 * before it are reported, so the output reads as a sequential run's. */
struct job {
	pid_t pid;
	int out, err;	/* memfds: the child's stdout and stderr */
	char *fail;	/* the parent's own message, when no child ran */
	bool done, failed;
};

/* The image a kernel of a sysroot gets: in the sysroot's own /boot,
 * whose links are followed inside the sysroot, never out. NULL name for
 * the host's default. */
static int image_name(const char *sysroot, const char *kver, char **name)
{
	char *rel, *boot = NULL;
	struct stat st;
	int r;

	*name = NULL;
	if (strcmp(sysroot, "/") == 0)
		return 0;
	rel = build_image_name(sysroot, kver);
	r = sysroot_resolve(sysroot, "/boot", NULL, NULL, &boot, &st);
	if (r == 0 && !S_ISDIR(st.st_mode))
		r = err_set("%s/boot: not a directory", sysroot);
	if (r == 0)
		*name = xasprintf("%s%s/%s", sysroot, boot, rel);
	free(boot);
	free(rel);
	return r;
}

/* One kernel, in this process. */
static int build_one(struct build_opts *o, const char *sysroot, const char *kver)
{
	char *name = NULL;
	int r = image_name(sysroot, kver, &name);

	o->kver = (char *)kver;
	o->output = name;
	if (r == 0)
		r = build_image(o);
	o->output = NULL;
	o->kver = NULL;
	free(name);
	if (r < 0)
		fprintf(stderr, "uniramfs: error: kernel %s: %s\n", kver, err_msg());
	return r;
}

static int job_start(struct job *j, struct build_opts *o, const char *sysroot, const char *kver)
{
	j->out = memfd_create("uniramfs-all-out", MFD_CLOEXEC);
	j->err = memfd_create("uniramfs-all-err", MFD_CLOEXEC);
	if (j->out < 0 || j->err < 0)
		return err_errno(errno, "memfd_create");
	/* nothing buffered twice */
	fflush(NULL);
	j->pid = fork();
	if (j->pid < 0)
		return err_errno(errno, "fork");
	if (j->pid == 0) {
		int r = dup2(j->out, STDOUT_FILENO) < 0 || dup2(j->err, STDERR_FILENO) < 0 ? -1 : 0;
		if (r == 0)
			r = build_one(o, sysroot, kver);
		fflush(NULL);
		_exit(r < 0 ? 1 : 0);
	}
	return 0;
}

static void replay(int fd, FILE *to)
{
	char chunk[1 << 14];
	ssize_t n;
	off_t off = 0;

	fflush(to);
	while ((n = pread(fd, chunk, sizeof(chunk), off)) > 0) {
		if (write_all(fileno(to), chunk, (size_t)n) < 0)
			break;
		off += n;
	}
}

/* A finished job's output, then its verdict if the child could not give
 * one itself. */
static void job_report(struct job *j, const char *kver)
{
	if (j->out >= 0)
		replay(j->out, stdout);
	if (j->err >= 0)
		replay(j->err, stderr);
	if (j->fail)
		fprintf(stderr, "uniramfs: error: kernel %s: %s\n", kver, j->fail);
}

static void job_close(struct job *j)
{
	if (j->out >= 0)
		close(j->out);
	if (j->err >= 0)
		close(j->err);
	free(j->fail);
}

/* The kernels on up to jobs_max() children at once. Each child's image is
 * written as a lone build writes it (a failed or killed one leaves the
 * old image), and the output comes kernel by kernel in their order. */
static void build_parallel(struct build_opts *o, const char *sysroot, const struct strv *kvers, size_t jobs,
			   struct strv *failed)
{
	struct job *js = xcalloc(kvers->n, sizeof(*js));
	size_t started = 0, running = 0, reported = 0;

	for (size_t i = 0; i < kvers->n; i++)
		js[i].out = js[i].err = -1;
	while (reported < kvers->n) {
		while (started < kvers->n && running < jobs) {
			struct job *j = &js[started];
			/* no child: the kernel fails here, the others go on */
			if (job_start(j, o, sysroot, kvers->v[started]) < 0) {
				j->fail = xstrdup(err_msg());
				j->done = j->failed = true;
			} else {
				running++;
			}
			started++;
		}
		while (reported < started && js[reported].done) {
			job_report(&js[reported], kvers->v[reported]);
			if (js[reported].failed)
				strv_push(failed, kvers->v[reported]);
			reported++;
		}
		if (running) {
			int st;
			pid_t pid = waitpid(-1, &st, 0);
			if (pid < 0 && errno == EINTR)
				continue;
			if (pid < 0) {
				/* ECHILD: someone else reaped them; say so rather
				 * than loop */
				for (size_t i = 0; i < started; i++)
					if (!js[i].done) {
						js[i].done = js[i].failed = true;
						js[i].fail = xasprintf("its build's process was lost: %s", strerror(errno));
					}
				running = 0;
				continue;
			}
			for (size_t i = 0; i < started; i++)
				if (js[i].pid == pid && !js[i].done) {
					js[i].done = true;
					running--;
					if (WIFSIGNALED(st))
						js[i].fail = xasprintf("the build was killed by signal %d (%s)",
								       WTERMSIG(st), strsignal(WTERMSIG(st)));
					js[i].failed = !WIFEXITED(st) || WEXITSTATUS(st) != 0;
				}
		}
	}
	for (size_t i = 0; i < kvers->n; i++)
		job_close(&js[i]);
	free(js);
}

int build_all(struct build_opts *o)
{
	const char *sysroot = o->sysroot ? o->sysroot : "/";
	struct strv kvers = { 0 }, failed = { 0 };
	struct buf names = { 0 };
	size_t jobs;
	int r;

	/* each kernel gets its own default image */
	if (o->kver)
		return err_set("--all builds every installed kernel: kver '%s' (a flag or a config file) cannot be "
			       "given with it", o->kver);
	if (o->kdump)
		return err_set("--kdump makes one kernel's crash image (-k KVER), not --all");
	if (o->output)
		return err_set("--all writes each kernel's default image: output '%s' (a flag or a config file) "
			       "cannot be given with it", o->output);
	r = kernels_installed(sysroot, &kvers);
	if (r < 0)
		return r;
	if (kvers.n == 0)
		log_notice("no installed kernel under %s (lib/modules/KVER with boot/vmlinuz-KVER): nothing to build",
			   sysroot);
	jobs = jobs_max();
	if (jobs > 1 && kvers.n > 1) {
		build_parallel(o, sysroot, &kvers, jobs, &failed);
	} else {
		for (size_t i = 0; i < kvers.n; i++)
			if (build_one(o, sysroot, kvers.v[i]) < 0)
				strv_push(&failed, kvers.v[i]);
	}
	r = 0;
	if (failed.n) {
		for (size_t i = 0; i < failed.n; i++)
			buf_printf(&names, "%s%s", i ? ", " : "", failed.v[i]);
		r = err_set("%zu of %zu kernels failed (their old images are unchanged): %s", failed.n, kvers.n,
			    names.p);
	}
	buf_free(&names);
	strv_free(&failed);
	strv_free(&kvers);
	return r;
}
