// SPDX-License-Identifier: GPL-2.0-or-later
/* A LUKS device bound with `clevis luks bind` (a "clevis" token in a
 * LUKS2 header, luksmeta's slots after a LUKS1 one): `clevis luks
 * unlock`, with no prompt. Its pins, read from a LUKS2 header's JWE
 * (clevis_pins.c), say what it waits for: Tang the network the command
 * line asks for (rd.neednet=1 ip=dhcp, as with dracut), waited for
 * without blocking the loop (luks.c parks it), at most half the root
 * timeout; tpm2 the TPM's device, as a TPM2 token does. A LUKS1
 * binding's pins are read from luksmeta's slots (luksmeta.c) alike.
 * Anything that fails falls back to the passphrase. */
#include "init/stack/luks_clevis.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "clevis_pins.h"
#include "init/stack/stack.h"
#include "log.h"
#include "luks2.h"
#include "luksmeta.h"
#include "util.h"

enum clevis_net luks_clevis_net(enum stack_net net, bool waited)
{
	switch (net) {
	case STACK_NET_UNWANTED:
		return CLEVIS_NET_UNWANTED;
	case STACK_NET_UP:
		return CLEVIS_NET_UP;
	case STACK_NET_FAILED:
		return CLEVIS_NET_DOWN;
	case STACK_NET_COMING:
		break;
	}
	return waited ? CLEVIS_NET_DOWN : CLEVIS_NET_WAIT;
}

size_t luks_clevis_argv(const char **argv, const char *dev, const char *name)
{
	size_t n = 0;

	argv[n++] = "clevis";
	argv[n++] = "luks";
	argv[n++] = "unlock";
	argv[n++] = "-d";
	argv[n++] = dev;
	argv[n++] = "-n";
	argv[n++] = name;
	argv[n] = NULL;
	return n;
}

/* clevis luks unlock (clevis 19) runs `cryptsetup open -d- DEV NAME`
 * with no options of ours: say which do not apply. */
static void warn_options(const char *dev, const struct luks_opts *o)
{
	const char *argv[LUKS_OPEN_ARGV + 1];
	char scratch[LUKS_SCRATCH][LUKS_ARG_MAX];
	size_t n = luks_opts_argv(o, false, argv, scratch);
	struct buf b = { 0 };

	if (!n)
		return;
	for (size_t i = 0; i < n; i++)
		buf_printf(&b, "%s%s", i ? " " : "", argv[i]);
	log_warn("%s: clevis luks unlock opens it without %s", dev, b.p);
	buf_free(&b);
}

/* LUKS1 has no tokens: clevis keeps its bindings in luksmeta's slots,
 * in the gap between the header and the data (luksmeta.c reads them).
 * 0: none, or none clevis could open, said when luksmeta's header is
 * there but not as luksmeta writes it. */
static unsigned luks1_pins(struct stack_env *env, const char *dev)
{
	int fd = env->ops->open(dev, O_RDONLY | O_CLOEXEC, 0), p;
	char why[LUKSMETA_WHY];

	if (fd < 0)
		return 0;
	p = luksmeta_fd_pins(fd, why);
	close(fd);
	if (p == -EBADMSG)
		log_warn("%s: %s; not trying clevis", dev, why);
	return p > 0 ? (unsigned)p : 0;
}

/* The pins of dev's LUKS2 clevis tokens; a header that cannot be read
 * again says nothing: CLEVIS_PIN_OTHER, as a LUKS1 binding. */
static unsigned header_pins(struct stack_env *env, const char *dev)
{
	int fd = env->ops->open(dev, O_RDONLY | O_CLOEXEC, 0), p;

	if (fd < 0)
		return CLEVIS_PIN_OTHER;
	p = clevis_fd_pins(fd);
	close(fd);
	return p > 0 ? (unsigned)p : CLEVIS_PIN_OTHER;
}

/* The network for Tang (or a pin we cannot tell): LUKS_CLEVIS_OPENED
 * here means "go on", the others are the answer. tpm: a tpm2 pin, whose
 * sss may open without Tang. */
static enum luks_clevis want_net(struct stack_env *env, const char *dev, bool waited, bool tpm)
{
	switch (luks_clevis_net(stack_net(env), waited)) {
	case CLEVIS_NET_UNWANTED:
		if (tpm) {
			log_info("%s: its clevis binding has Tang and tpm2 pins and the command line "
				 "asks for no network: trying the TPM alone", dev);
			return LUKS_CLEVIS_OPENED;
		}
		log_warn("%s: its clevis token needs the network: add rd.neednet=1 ip=dhcp to the "
			 "command line; asking for the passphrase", dev);
		return LUKS_CLEVIS_NO;
	case CLEVIS_NET_WAIT:
		log_info("%s: waiting for the network to reach its clevis server", dev);
		return LUKS_CLEVIS_WAIT;
	case CLEVIS_NET_DOWN:
		log_warn("%s: the network is not up; not trying clevis, asking for the passphrase",
			 dev);
		return LUKS_CLEVIS_NO;
	case CLEVIS_NET_UP:
		break;
	}
	return LUKS_CLEVIS_OPENED;
}

enum luks_clevis luks_clevis_try(struct stack_env *env, const char *dev, const char *name,
				 const struct luks_opts *o, bool waited)
{
	const char *argv[LUKS_CLEVIS_ARGV];
	char *path;
	unsigned pins;
	int have, st;

	if (o->off || env->stack->clevis_off || o->header)
		return LUKS_CLEVIS_NO; /* clevis reads the device's own header */
	have = luks_header_tokens(env, dev);
	if (have > 0 && (have & LUKS2_TOKEN_CLEVIS))
		pins = header_pins(env, dev);
	else if (!(pins = luks1_pins(env, dev)))
		return LUKS_CLEVIS_NO;
	path = tool_find(env, "clevis");
	if (!path) {
		log_warn("%s: it has a clevis binding, but clevis is not in this image "
			 "(uniramfs build --clevis); asking for the passphrase", dev);
		return LUKS_CLEVIS_NO;
	}
	free(path);
	if ((pins & CLEVIS_PIN_TPM2) &&
	    !luks_tpm_wait(env, dev, TPM2_DEFAULT, o->timeout_given ? o->timeout_s : TPM2_WAIT_HEADER_S) &&
	    !(pins & (CLEVIS_PIN_TANG | CLEVIS_PIN_OTHER))) {
		log_warn("%s: no TPM2 device %s for its clevis tpm2 pin; asking for the passphrase",
			 dev, TPM2_DEFAULT);
		return LUKS_CLEVIS_NO;
	}
	if (pins & (CLEVIS_PIN_TANG | CLEVIS_PIN_OTHER)) {
		enum luks_clevis n = want_net(env, dev, waited, pins & CLEVIS_PIN_TPM2);
		if (n != LUKS_CLEVIS_OPENED)
			return n;
	}
	warn_options(dev, o);
	luks_clevis_argv(argv, dev, name);
	st = tool_run(env, "clevis", (char *const *)argv, NULL, 0);
	if (st == 0) {
		log_info("%s: opened with clevis", dev);
		return LUKS_CLEVIS_OPENED;
	}
	if (st > 0)
		log_warn("%s: clevis could not unlock it (exit status %d); asking for the "
			 "passphrase", dev, st);
	return LUKS_CLEVIS_NO;
}
