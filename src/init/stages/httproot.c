// SPDX-License-Identifier: GPL-2.0-or-later
/* root=live:http://HOST[:PORT]/PATH (and dracut's root=http://…, its
 * livenet, TEST-31): the image is downloaded into a file on /run's
 * tmpfs, checked against rd.live.sha256= when given, and mounted as a
 * live medium's image (livemount.c); the overlay stage puts a tmpfs over
 * it. The download and the digest each run in a child the loop waits on
 * (as the NFS mount does): a silent server cannot hang PID 1, and the
 * child bounds each of its waits by the stall timeout. https:// is
 * curl's (httptls.c): TLS is not ours to write. */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/mman.h>
#include <sys/statvfs.h>
#include <sys/wait.h>
#include <unistd.h>

#include "err.h"
#include "init/init.h"
#include "init/net/http_msg.h"
#include "init/netboot/httpget.h"
#include "init/netboot/httpsock.h"
#include "init/netboot/imgsum.h"
#include "init/stages/httproot.h"
#include "init/stages/stages.h"
#include "log.h"

#define MAX_REDIRECTS 3
/* with rd.timeout=0 or rootwait (no limit to the root's wait), a server
 * silent this long still fails the download */
#define STALL_FOREVER_MS 60000

/* What the child is given and what it reports, in memory it shares with
 * PID 1. */
struct fetch {
	struct http_url url;
	struct net_addr addr;
	char host[HTTP_HOST_MAX]; /* the command line's: a redirect may stay on it */
	char shown[HTTP_PATH_MAX + HTTP_HOST_MAX + 16];
	char max_why[96];
	unsigned long long max;
	long stall_ms;
	int out;
	/* the report */
	int code;
	char msg[1024];
	unsigned long long bytes;
	char sum[SHA256_HEX];
};

static void report(struct fetch *f, int code)
{
	f->code = code;
	snprintf(f->msg, sizeof(f->msg), "%s", code < 0 ? err_msg() : "");
}

/* Where a redirect leads: a URL on the same host (or at an address), by
 * plain HTTP. 0 or a negative code (err set). */
static int follow(struct fetch *f, const char *location)
{
	struct http_url to;
	char shown[128];

	if (location[0] == '/' && location[1] != '/') {
		if (strlen(location) >= sizeof(f->url.path))
			return err_set("%s: a redirect to a path too long", f->shown);
		strcpy(f->url.path, location);
		return 0;
	}
	http_show(location, strlen(location), shown, sizeof(shown));
	if (http_url_parse(location, &to) < 0)
		return err_wrap("%s: a redirect to a URL uniramfs cannot use", f->shown);
	if (to.tls)
		return err_set("%s: redirected to %s: HTTPS needs root=live:https://… on the "
			       "command line (curl in the image)", f->shown, shown);
	if (strcasecmp(to.host, f->host) && net_parse_addr(to.host, &f->addr) < 0)
		return err_set("%s: redirected to %s, another host by name: give that URL in root=",
			       f->shown, shown);
	f->url = to;
	return 0;
}

static int fetch_run(struct fetch *f)
{
	struct http_get g = { .shown = f->shown, .out = f->out, .max = f->max,
			      .max_why = f->max_why, .stall_ms = f->stall_ms, .progress_ms = 1000 };
	struct http_got got;
	int r;

	for (int hops = 0;; hops++) {
		struct http_sock s = { .fd = -1 };
		struct http_io io;

		if ((r = http_sock_connect(&s, &f->addr, f->url.port, f->stall_ms, f->shown, &io)) < 0)
			return r;
		r = http_get_run(&io, &f->url, &g, &got);
		http_sock_close(&s);
		if (r < 0)
			return r;
		f->bytes = got.bytes;
		if (!got.redirect)
			return 0;
		if (hops == MAX_REDIRECTS)
			return err_set("%s: more than %d redirects", f->shown, MAX_REDIRECTS);
		if ((r = follow(f, got.location)) < 0)
			return r;
		log_info("%s: redirected (%d) to %s", f->shown, got.status, got.location);
	}
}

static void fetch_child(void *arg)
{
	struct fetch *f = arg;

	report(f, fetch_run(f));
}

static void sum_child(void *arg)
{
	struct fetch *f = arg;
	int r = lseek(f->out, 0, SEEK_SET) < 0 ? err_errno(errno, "cannot read the image") :
						 imgsum_fd(f->out, f->sum);

	report(f, r);
}

/* fn(f) in a child the loop waits on (in place when the ops have no
 * children: a unit test). 0 or the child's code (err set). */
static int in_child(struct init *in, void (*fn)(void *), struct fetch *f)
{
	pid_t pid;
	int st;

	f->code = -EIO;
	snprintf(f->msg, sizeof(f->msg), "%.900s: the download's process died", f->shown);
	if (!in->xops->run_child) {
		fn(f);
	} else {
		if ((pid = in->xops->run_child(fn, f)) < 0)
			return pid;
		if (loop_run(&in->loop, -1, NULL, NULL, pid) != LOOP_CHILD) {
			kill(pid, SIGKILL);
			in->ops->waitpid(pid, &st, 0);
		}
	}
	return f->code < 0 ? err_set_code(f->code, "%s", f->msg) : 0;
}

/* rd.live.maxsize=N[KMG]: 0, or -EINVAL (err set). */
static int parse_size(const char *text, unsigned long long *out)
{
	char *end;
	unsigned long long n;
	unsigned shift = 0;

	errno = 0;
	n = strtoull(text, &end, 10);
	if (*end == 'K' || *end == 'k')
		shift = 10;
	else if (*end == 'M' || *end == 'm')
		shift = 20;
	else if (*end == 'G' || *end == 'g')
		shift = 30;
	if (shift)
		end++;
	if (end == text || *text < '0' || *text > '9' || *end || errno || n > (~0ULL >> shift))
		return err_set("rd.live.maxsize=%s: not a size (a number of bytes, or with K, M or G)",
			       text);
	*out = n << shift;
	return 0;
}

/* The room for the image: what /run's tmpfs has free, within the RAM
 * the kernel says is available, within rd.live.maxsize=. 0 or -EINVAL. */
static int room(struct init *in, struct fetch *f)
{
	char *run = in->ops->path("/run");
	struct statvfs sv;
	unsigned long long mem = live_mem_available(in), cap = 0;
	int r = statvfs(run, &sv);

	free(run);
	f->max = r < 0 ? 0 : (unsigned long long)sv.f_bavail * sv.f_frsize;
	snprintf(f->max_why, sizeof(f->max_why), "free for it in /run (RAM)");
	if (mem && mem < f->max) {
		f->max = mem;
		snprintf(f->max_why, sizeof(f->max_why), "of RAM available");
	}
	if (in->opt.live_maxsize) {
		if ((r = parse_size(in->opt.live_maxsize, &cap)) < 0)
			return r;
		if (cap < f->max) {
			f->max = cap;
			snprintf(f->max_why, sizeof(f->max_why), "rd.live.maxsize=%.64s allows",
				 in->opt.live_maxsize);
		}
	}
	return 0;
}

static int digest(struct init *in, struct fetch *f, const char *want)
{
	int r;

	if (!want) {
		log_warn("%s: no rd.live.sha256= on the command line: nothing checked the image",
			 f->shown);
		return 0;
	}
	if (in->ml && modload_name(in->ml, "algif_hash") < 0)
		log_debug("algif_hash: %s", err_msg());
	if ((r = in_child(in, sum_child, f)) < 0)
		return err_wrap("%s: rd.live.sha256= cannot be checked", f->shown);
	if (strcmp(f->sum, want))
		return err_set("%s: the image's SHA-256 is %s, not %s (rd.live.sha256=): not "
			       "mounting it", f->shown, f->sum, want);
	log_info("%s: SHA-256 %s as rd.live.sha256= says", f->shown, want);
	return 0;
}

static int fetch_setup(struct init *in, struct fetch *f, char want[SHA256_HEX], bool *has_want)
{
	const struct http_root *h = &in->net.root.http;
	int r;

	snprintf(f->shown, sizeof(f->shown), "%s", h->url);
	if ((r = http_url_parse(h->url, &f->url)) < 0)
		return err_wrap("root=%s", h->url);
	snprintf(f->host, sizeof(f->host), "%s", f->url.host);
	*has_want = in->opt.live_sha256 != NULL;
	if (*has_want && (r = imgsum_parse(in->opt.live_sha256, want)) < 0)
		return r;
	if (net_parse_addr(h->server, &f->addr) < 0)
		return err_set("%s: the server %s has no address", f->shown, h->server);
	f->stall_ms = in->opt.timeout > 0 ? in->opt.timeout * 1000 : STALL_FOREVER_MS;
	return room(in, f);
}

int mount_http_root(struct init *in)
{
	struct fetch *f;
	char want[SHA256_HEX];
	bool has_want = false;
	int r;

	f = mmap(NULL, sizeof(*f), PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	if (f == MAP_FAILED)
		return err_errno(errno, "cannot share memory with the download");
	memset(f, 0, sizeof(*f));
	f->out = -1;
	if ((r = fetch_setup(in, f, want, &has_want)) < 0)
		goto out;
	in->ops->mkdir("/run/initramfs", 0755);
	in->ops->unlink(HTTPROOT_IMAGE); /* an attempt before this one's */
	f->out = in->ops->open(HTTPROOT_IMAGE, O_RDWR | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC,
			       0600);
	if (f->out < 0) {
		r = err_errno(f->out, "cannot create " HTTPROOT_IMAGE);
		goto out;
	}
	log_info("%s: downloading into " HTTPROOT_IMAGE " (at most %llu MiB)", f->shown,
		 f->max >> 20);
	r = f->url.tls ? httptls_fetch(in, f->shown, HTTPROOT_IMAGE, f->max, f->stall_ms) :
			 in_child(in, fetch_child, f);
	if (r < 0 || (r = digest(in, f, has_want ? want : NULL)) < 0)
		goto out;
	close(f->out);
	f->out = -1;
	if (in->ml && modload_name(in->ml, "loop") < 0)
		log_debug("loop: %s", err_msg());
	r = mount_live_file(in, HTTPROOT_IMAGE);
out:
	if (f->out >= 0)
		close(f->out);
	if (r < 0) /* the RAM it took is the next attempt's */
		in->ops->unlink(HTTPROOT_IMAGE);
	munmap(f, sizeof(*f));
	return r;
}
