/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The Plymouth splash's client (docs/cmdline.md "Plymouth"): plymouthd
 * started once the display's driver is in, every question of the prompt
 * asked through `plymouth ask-for-password` too (askpass.c: the first
 * answer wins, here, on a console or over SSH), what the prompt tells
 * shown with `display-message`, the daemon told of the new root at
 * switch_root and quit before a failure's report.
 *
 * One splash per boot, so its state is this file's. While plymouthd runs
 * it owns the virtual terminals' keyboard: the prompt reads only the
 * serial consoles (passphrase.c asks plymouth_owns_vts), so the init and
 * plymouthd never read the same tty. */
#ifndef UNIRAMFS_INIT_REMOTE_PLYMOUTH_H
#define UNIRAMFS_INIT_REMOTE_PLYMOUTH_H

#include <poll.h>
#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

#define PLYMOUTHD "/usr/sbin/plymouthd"
#define PLYMOUTH "/usr/bin/plymouth"
#define PLYMOUTH_RUN_DIR "/run/plymouth" /* its pid file, "pid" */
/* The VT whose keyboard plymouthd reads (its --tty): the init never
 * reads it, and cancels a question there (remote/plymouth.c) */
#define PLYMOUTH_TTY "/dev/tty1"

/* Where the programs, the VT and the pid file's directory are: the
 * defines above, or the unit tests' fakes. */
struct plymouth_paths {
	const char *daemon, *client, *tty, *rundir;
};
void plymouth_use(const struct plymouth_paths *p);

/* The command line asks for the splash (splash, not plymouth.enable=0 or
 * rd.plymouth=0): it is started at the first plymouth_start() or the
 * first question, if the image has plymouthd. */
void plymouth_want(bool on);
bool plymouth_wanted(void);
/* Start plymouthd and show the splash (once; later calls do nothing).
 * Says why when it cannot; the boot goes on without it. */
void plymouth_start(void);
/* plymouthd runs and owns the VTs' keyboard. */
bool plymouth_owns_vts(void);

/* The prompt's side (askpass.c). Ask prompt (NULL: the question was
 * answered, here or elsewhere). A question answered elsewhere is
 * withdrawn from the splash (a Ctrl+C on plymouthd's keyboard, its only
 * cancel), with what was typed into it; the next question is asked once
 * that is done, in its own words. Where it cannot be (no VT), the dialog
 * stays and its client answers the next question. */
void plymouth_ask(const char *prompt);
/* The fd to poll while asked (at most one; 0 when none). */
size_t plymouth_pollfd(struct pollfd *pfd, size_t max);
/* After poll: the answer's length, copied NUL-terminated into buf;
 * -EAGAIN none yet (or the splash cannot answer: it is not asked again
 * for this question). */
ssize_t plymouth_ready(const struct pollfd *pfd, size_t n, char *buf, size_t size);
/* Show msg on the splash (`plymouth display-message`). */
void plymouth_message(const char *msg);

/* Before switch_root: tell the daemon the new root (it keeps running,
 * argv[0] '@', for the root's plymouth-quit). */
void plymouth_newroot(const char *dir);
/* Before a failure's report: quit the splash so the text is seen. */
void plymouth_quit(void);

#endif
