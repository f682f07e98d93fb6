/* SPDX-License-Identifier: GPL-2.0-or-later */
#ifndef UNIRAMFS_INIT_STACK_LUKS_HEADER_H
#define UNIRAMFS_INIT_STACK_LUKS_HEADER_H

#include <stdbool.h>
#include <stddef.h>

/* LUKS2's largest header: two 4 MiB metadata areas and 128 MiB of key
 * slots (cryptsetup's limits); a header copied off a device is bounded
 * by it. */
#define LUKS_HEADER_FILE_MAX ((size_t)136 << 20)

/* A LUKS header kept apart from its data: rd.luks.header=UUID=... with
 * rd.luks.data=UUID=..., or a line of the image's crypttab with header=.
 * The data device holds no signature, so nothing else finds it. */
struct luks_detached {
	char *uuid;   /* the UUID in the header as the options name it; NULL: not named */
	char *header; /* /FILE (in the image), /dev/NODE (the header is a device) or
			 /FILE:DEVICE (a file on DEVICE's filesystem) */
	char *data;   /* the data device; NULL: the first device with no signature */
	long line;    /* its crypttab line, -1: none */
	bool done;    /* its data device was found */
};

/* Where one unlock's header is, and what was found of it. */
struct luks_hdr_src {
	char *path;        /* the file (in the image or on dev); NULL: dev is the header */
	char *dev;         /* the device holding it; NULL: the image */
	char *node, *type; /* dev's node and filesystem, once seen */
	char *copy;        /* the header copied off dev's filesystem while the unlock runs */
};

struct stack;
struct stack_env;
struct blockdev;

/* rd.luks.header=UUID=SPEC and rd.luks.data=UUID=DEVICE (key says which). */
void luks_header_parse(struct stack *s, const char *key, const char *v);
/* The crypttab lines with header= (s->ct_opts read), after the command
 * line's, which win for their UUID. */
void luks_header_setup(struct stack_env *env);
/* The LUKS UUID of a header file in the image: 0, or -EINVAL. */
int luks_header_file_uuid(struct stack_env *env, const char *path, char uuid[40]);
/* Does a detached header name this LUKS UUID? A device that holds it is
 * that header (or a stale copy), not the data to open. */
bool luks_header_names(const struct stack *s, const char *uuid);
/* The entry whose data device bd is, marked done; NULL: none. */
struct luks_detached *luks_header_data_of(struct stack_env *env, const struct blockdev *bd);
/* After the root timed out: each entry whose data device never came. */
void luks_header_report(const struct stack *s);
void luks_header_free(struct stack *s);

void luks_hdr_src_set(struct luks_hdr_src *h, const char *spec);
/* Is its device still to come? */
bool luks_hdr_src_waits(const struct luks_hdr_src *h);
/* bd is the header's device: noted (true), or not it (false). */
bool luks_hdr_src_seen(struct luks_hdr_src *h, const struct blockdev *bd);
/* The path for cryptsetup's --header= (a file on a device copied into
 * /run first); NULL after an error naming what, for the LUKS device
 * devnode. */
const char *luks_hdr_src_fetch(struct stack_env *env, struct luks_hdr_src *h,
			       const char *devnode);
/* The copy removed, once the unlock is over. */
void luks_hdr_src_done(struct stack_env *env, struct luks_hdr_src *h);
void luks_hdr_src_free(struct luks_hdr_src *h);

/* luks_key.c: path on the filesystem of node (dev: its spec, for the
 * messages) copied to outfd, as a key file on a key device is read. */
int luks_header_copy(struct stack_env *env, const char *node, const char *fstype, const char *dev,
		     const char *path, int outfd);

#endif
