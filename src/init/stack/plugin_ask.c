// SPDX-License-Identifier: GPL-2.0-or-later
/* The init's end of the plugins' request channel (plugin_ask.h): the
 * parser, and the server that answers an "ask-secret" with the same
 * prompt a LUKS passphrase is asked at. */
#include "init/stack/plugin_ask.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "err.h"
#include "init/dev/driverq.h"
#include "init/remote/askpass.h"
#include "init/remote/plymouth.h"
#include "log.h"
#include "util.h"

int plugin_ask_parse(const char *line, size_t len, struct plugin_ask_req *req)
{
	static const struct {
		const char *word;
		enum plugin_ask_verb verb;
	} verbs[] = { { "ask-secret ", PLUGIN_ASK_SECRET }, { "tell ", PLUGIN_ASK_TELL } };
	const char *text = NULL;
	size_t tl;

	for (size_t i = 0; i < ARRAY_SIZE(verbs); i++) {
		size_t wl = strlen(verbs[i].word);
		if (len >= wl && !memcmp(line, verbs[i].word, wl)) {
			req->verb = verbs[i].verb;
			text = line + wl;
			break;
		}
	}
	if (!text) {
		size_t w = 0;
		while (w < len && w < 32 && line[w] > ' ' && line[w] < 0x7f)
			w++;
		return err_set("unknown request '%.*s' (ask-secret or tell)", (int)w, line);
	}
	tl = len - (size_t)(text - line);
	if (tl == 0)
		return err_set("an empty text");
	if (tl > PLUGIN_ASK_TEXT_MAX)
		return err_set("a text longer than %d bytes", PLUGIN_ASK_TEXT_MAX);
	for (size_t i = 0; i < tl; i++) {
		unsigned char c = (unsigned char)text[i];
		/* it goes to every console as it is: no escapes, no NUL */
		if (c < 0x20 || c == 0x7f)
			return err_set("a control character in the text");
	}
	memcpy(req->text, text, tl);
	req->text[tl] = '\0';
	return 0;
}

static int reply(int fd, const char *verb, const char *text)
{
	char *line = xasprintf("%s%s%s\n", verb, text ? " " : "", text ? text : "");
	size_t len = strlen(line), off = 0;
	int r = 0;

	/* the program waits for the answer; a full socket is one that
	 * does not read: it is given up */
	while (off < len) {
		ssize_t w = send(fd, line + off, len - off, MSG_NOSIGNAL | MSG_DONTWAIT);
		if (w < 0 && errno == EINTR)
			continue;
		if (w <= 0) {
			r = -EPIPE;
			break;
		}
		off += (size_t)w;
	}
	explicit_bzero(line, len);
	free(line);
	return r;
}

static int ask_secret(struct plugin_ask *a, int fd, const char *prompt)
{
	struct stack_env *env = a->env;
	char pass[ASKPASS_LINE_MAX + 1];
	long long t0 = env->ops->now_ms();
	ssize_t n;
	int r;

	log_info("plugin %s asks for a secret", a->plugin);
	/* whoever types needs a keyboard (and the splash its screen) now;
	 * the other queued drivers load while the question waits */
	if (env->drivers)
		driverq_load_for_question(env->drivers, plymouth_wanted());
	n = env->xops->read_secret
		    ? env->xops->read_secret(prompt, pass, sizeof(pass), env->loop, env->remote)
		    : err_set("no console");
	if (env->stall_ms)
		*env->stall_ms += env->ops->now_ms() - t0;
	if (n < 0) {
		log_err("plugin %s: cannot read a secret: %s", a->plugin, err_msg());
		return reply(fd, "error", "no answer at the prompt");
	}
	r = reply(fd, "secret", pass);
	explicit_bzero(pass, sizeof(pass));
	return r;
}

static int answer(struct plugin_ask *a, int fd)
{
	struct plugin_ask_req req;
	int r;

	if (plugin_ask_parse(a->line, a->n, &req) < 0) {
		log_err("plugin %s: bad request on its channel: %s", a->plugin, err_msg());
		reply(fd, "error", err_msg());
		return -EINVAL;
	}
	if (req.verb == PLUGIN_ASK_TELL) {
		askpass_tell(a->env->remote, req.text);
		return reply(fd, "ok", NULL);
	}
	r = ask_secret(a, fd, req.text);
	explicit_bzero(&req, sizeof(req));
	return r;
}

int plugin_ask_serve(struct plugin_ask *a, int fd)
{
	char buf[256];
	ssize_t got;

	do
		got = recv(fd, buf, sizeof(buf), MSG_DONTWAIT);
	while (got < 0 && errno == EINTR);
	if (got < 0 && (errno == EAGAIN || errno == EWOULDBLOCK))
		return 0;
	if (got <= 0)
		return -EPIPE; /* the program closed it, or ended */
	for (ssize_t i = 0; i < got; i++) {
		int r;
		if (buf[i] != '\n') {
			if (a->n >= PLUGIN_ASK_LINE_MAX) {
				log_err("plugin %s: a request longer than %d bytes on its channel",
					a->plugin, PLUGIN_ASK_LINE_MAX);
				reply(fd, "error", "request too long");
				return -E2BIG;
			}
			a->line[a->n++] = buf[i];
			continue;
		}
		r = answer(a, fd);
		explicit_bzero(a->line, sizeof(a->line));
		a->n = 0;
		if (r < 0)
			return r;
	}
	return 0;
}
