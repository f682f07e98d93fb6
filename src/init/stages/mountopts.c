// SPDX-License-Identifier: GPL-2.0-or-later
#include "init/stages/mountopts.h"

#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>

#include "util.h"

struct flagword {
	const char *word;
	unsigned long set, clear;
};

/* The words mount(8) turns into flags; "defaults" is rw,suid,dev,exec,
 * async and so clears what it would not set. Words that only mean
 * something to mount(8) itself (auto, nofail, _netdev, x-*) are
 * dropped: the kernel would reject them. */
static const struct flagword words[] = {
	{ "defaults", 0, MS_RDONLY | MS_NOSUID | MS_NODEV | MS_NOEXEC | MS_SYNCHRONOUS },
	{ "ro", MS_RDONLY, 0 },
	{ "rw", 0, MS_RDONLY },
	{ "nosuid", MS_NOSUID, 0 },
	{ "suid", 0, MS_NOSUID },
	{ "nodev", MS_NODEV, 0 },
	{ "dev", 0, MS_NODEV },
	{ "noexec", MS_NOEXEC, 0 },
	{ "exec", 0, MS_NOEXEC },
	{ "sync", MS_SYNCHRONOUS, 0 },
	{ "async", 0, MS_SYNCHRONOUS },
	{ "dirsync", MS_DIRSYNC, 0 },
	{ "mand", MS_MANDLOCK, 0 },
	{ "nomand", 0, MS_MANDLOCK },
	{ "noatime", MS_NOATIME, 0 },
	{ "atime", 0, MS_NOATIME },
	{ "nodiratime", MS_NODIRATIME, 0 },
	{ "diratime", 0, MS_NODIRATIME },
	{ "relatime", MS_RELATIME, MS_NOATIME | MS_STRICTATIME },
	{ "norelatime", 0, MS_RELATIME },
	{ "strictatime", MS_STRICTATIME, MS_NOATIME | MS_RELATIME },
	{ "nostrictatime", 0, MS_STRICTATIME },
	{ "lazytime", MS_LAZYTIME, 0 },
	{ "nolazytime", 0, MS_LAZYTIME },
	{ "silent", MS_SILENT, 0 },
	{ "loud", 0, MS_SILENT },
	{ "bind", MS_BIND, 0 },
	{ "rbind", MS_BIND | MS_REC, 0 },
	{ "auto", 0, 0 },
	{ "noauto", 0, 0 },
	{ "nofail", 0, 0 },
	{ "user", 0, 0 },
	{ "nouser", 0, 0 },
	{ "users", 0, 0 },
	{ "owner", 0, 0 },
	{ "group", 0, 0 },
	{ "_netdev", 0, 0 },
};

void mountopts_parse(const char *opts, unsigned long *flags, char **data)
{
	struct strv items = { 0 };
	struct buf out = { 0 };

	*flags = 0;
	*data = NULL;
	strv_split(&items, opts ? opts : "", ",");
	for (size_t i = 0; i < items.n; i++) {
		const char *w = items.v[i];
		bool known = false;

		if (str_has_prefix(w, "x-") || str_has_prefix(w, "comment="))
			continue;
		for (size_t k = 0; k < ARRAY_SIZE(words); k++) {
			if (strcmp(w, words[k].word) == 0) {
				*flags = (*flags & ~words[k].clear) | words[k].set;
				known = true;
				break;
			}
		}
		if (known)
			continue;
		if (out.len)
			buf_append(&out, ",", 1);
		buf_append(&out, w, strlen(w));
	}
	strv_free(&items);
	if (out.len)
		*data = out.p;
}
