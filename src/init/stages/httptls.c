// SPDX-License-Identifier: GPL-2.0-or-later
/* root=live:https://…: TLS and certificates are curl's (the host's, with
 * its libraries, and the CA bundle: plugins/live-https.conf), run as a
 * child the loop waits on, under the same limits as our own HTTP client:
 * the room in /run, the stall timeout, the digest after.
 *
 * The clock: a certificate's validity is checked against it, and a
 * machine without a battery-backed RTC starts in 1970, where every
 * certificate is "not yet valid". The init does not guess the time (no
 * NTP, no trusting the server's Date): if the clock says a year before the
 * one this init was built in, it refuses with a message that says so. */
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "buildconf.h"
#include "err.h"
#include "init/net/http_msg.h"
#include "init/stages/httproot.h"
#include "log.h"

#define CONNECT_EXTRA_S 60
#define PROGRESS_MS 1000 /* as the plain HTTP client's lines */

/* meson's, from SOURCE_DATE_EPOCH in a package build */
static int build_year(void)
{
	return UNIRAMFS_BUILD_YEAR;
}

static int clock_check(const char *url)
{
	time_t now = time(NULL);
	struct tm tm;
	char day[16];

	gmtime_r(&now, &tm);
	strftime(day, sizeof(day), "%Y-%m-%d", &tm);
	if (tm.tm_year + 1900 >= build_year())
		return 0;
	return err_set("%s: the clock says %s, before this init was built (%d): no certificate can "
		       "be checked against it; set the machine's clock (its RTC), or use http:// "
		       "with rd.live.sha256=", url, day, build_year());
}

/* What curl's exit status says (its man page, "EXIT CODES"). */
static const char *curl_says(int st)
{
	switch (st) {
	case 6: return "the host name was not resolved";
	case 7: return "cannot connect to the server";
	case 18: return "the connection closed before the whole image came";
	case 22: return "the server answered with an error";
	case 28: return "the server was silent too long";
	case 35: return "the TLS handshake failed";
	case 60: return "the server's certificate was not accepted (the CA bundle, the clock?)";
	case 63: return "the image is larger than the room for it";
	case 77: return "the CA bundle cannot be read";
	default: return "see its message above";
	}
}

/* What curl has written so far: it tells nothing of its own, silent. */
static long long written(struct init *in, const char *path)
{
	char *real = in->ops->path(path);
	struct stat st;
	long long n = stat(real, &st) == 0 ? (long long)st.st_size : 0;

	free(real);
	return n;
}

/* curl runs silent (its meter would garble the console): a line a
 * second of what it has written, and the total at the end, as the plain
 * HTTP client says them. */
static enum loop_end wait_curl(struct init *in, const char *url, const char *path, pid_t pid)
{
	long long started = in->ops->now_ms(), took;
	enum loop_end e;

	while ((e = loop_run(&in->loop, in->ops->now_ms() + PROGRESS_MS, NULL, NULL, pid)) ==
	       LOOP_TIMEOUT)
		log_info("%s: %.1f MiB so far", url, (double)written(in, path) / (1024.0 * 1024.0));
	took = in->ops->now_ms() - started;
	if (e == LOOP_CHILD && WIFEXITED(in->loop.child_status) &&
	    WEXITSTATUS(in->loop.child_status) == 0)
		log_info("%s: %lld bytes in %lld.%01lld s", url, written(in, path), took / 1000,
			 took % 1000 / 100);
	return e;
}

int httptls_fetch(struct init *in, const char *url, const char *path, unsigned long long max,
		  long stall_ms)
{
	const struct http_root *h = &in->net.root.http;
	struct http_url u;
	char maxs[32], stall[24], connect[24], resolve[HTTP_HOST_MAX + 80];
	char *curl;
	struct strv argv = { 0 };
	pid_t pid;
	int r, st;

	if ((r = http_url_parse(url, &u)) < 0 || (r = clock_check(url)) < 0)
		return r;
	curl = tool_find(&in->stack_env, "curl");
	if (!curl)
		return err_set("%s: this image has no curl, which HTTPS needs (build it with "
			       "live-https = yes)", url);
	if (in->ops->access(HTTPROOT_CA_BUNDLE, R_OK) < 0) {
		free(curl);
		return err_set("%s: this image has no CA bundle (" HTTPROOT_CA_BUNDLE ")", url);
	}
	snprintf(maxs, sizeof(maxs), "%llu", max);
	snprintf(stall, sizeof(stall), "%ld", stall_ms / 1000 ? stall_ms / 1000 : 1);
	/* curl's connect timeout covers the TLS handshake, which is the
	 * machine's own work too (seconds on a slow or emulated CPU): a
	 * minute more than a silence of the server may take */
	snprintf(connect, sizeof(connect), "%ld", stall_ms / 1000 + CONNECT_EXTRA_S);
	/* the address netnames.c resolved: curl in the initramfs has no resolver to ask */
	snprintf(resolve, sizeof(resolve), "%s:%u:%s%s%s", u.host, u.port,
		 strchr(h->server, ':') ? "[" : "", h->server, strchr(h->server, ':') ? "]" : "");
	/* -q first: no .curlrc; https only, redirects too */
	const char *args[] = { "curl", "-q", "--fail", "--silent", "--show-error", "--location",
			       "--max-redirs", "3", "--proto", "=https", "--proto-redir", "=https",
			       "--cacert", HTTPROOT_CA_BUNDLE, "--max-filesize", maxs,
			       "--connect-timeout", connect, "--speed-limit", "1", "--speed-time", stall,
			       "--resolve", resolve, "--output", path, url };
	for (size_t i = 0; i < ARRAY_SIZE(args); i++)
		strv_push(&argv, args[i]);
	log_info("%s: fetching with %s", url, curl);
	pid = in->xops->spawn(curl, argv.v, in->tool_envp);
	strv_free(&argv);
	if (pid < 0) {
		r = err_wrap("%s: cannot run %s", url, curl);
		free(curl);
		return r;
	}
	free(curl);
	if (wait_curl(in, url, path, pid) != LOOP_CHILD) {
		kill(pid, SIGKILL);
		in->ops->waitpid(pid, &st, 0);
		return err_set("%s: curl did not end", url);
	}
	st = in->loop.child_status;
	if (WIFEXITED(st) && WEXITSTATUS(st) == 0)
		return 0;
	if (!WIFEXITED(st))
		return err_set("%s: curl died of signal %d", url, WTERMSIG(st));
	return err_set("%s: curl failed with status %d: %s", url, WEXITSTATUS(st),
		       curl_says(WEXITSTATUS(st)));
}
