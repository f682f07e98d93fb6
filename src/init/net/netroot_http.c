// SPDX-License-Identifier: GPL-2.0-or-later
/* root=live:http://… and root=http://… (dracut's livenet, TEST-31's two
 * command lines): the URL of a live image, a network root of its own. */
#include "init/net/netroot.h"
#include "init/net/netroot_priv.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "err.h"
#include "init/net/http_msg.h"

bool netroot_http_parse(const char *root, struct netroot *r, struct strv *w, int *ret)
{
	const char *url = str_has_prefix(root, "live:") ? root + 5 : root;
	struct http_url u;

	if (!str_has_prefix(url, "http://") && !str_has_prefix(url, "https://"))
		return false;
	if (http_url_parse(url, &u) < 0) {
		netroot_warn(w, xasprintf("cannot use root=%s: %s", root, err_msg()));
		*ret = -EINVAL;
		return true;
	}
	r->kind = NETROOT_HTTP;
	r->http.url = xstrdup(url);
	r->http.server = xstrdup(u.host);
	*ret = 0;
	return true;
}
