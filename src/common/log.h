/* SPDX-License-Identifier: GPL-2.0-or-later */
#ifndef UNIRAMFS_LOG_H
#define UNIRAMFS_LOG_H

#include <stdarg.h>
#include <stddef.h>

/* Levels follow syslog/kmsg numbering so the init can pass them on. */
enum log_level { LOG_ERR = 3, LOG_WARNING = 4, LOG_NOTICE = 5, LOG_INFO = 6, LOG_DEBUG = 7 };

/* The sink receives one formatted message (no trailing newline), already
 * escaped by log_escape: messages carry text from the network (DHCP's
 * root-path, a server's answers) and from disks and images (labels,
 * entry names), and none of it may drive the terminal (ESC, CSI as C1
 * 0x9b), rewrite a line (CR) or start a forged one (LF) on the console or
 * in /run/uniramfs/log. The default sink writes "PROG: msg\n" to stderr. */
typedef void (*log_sink_fn)(int level, const char *msg, void *userdata);

/* Copy src into dst (size > 0, always NUL-terminated, truncated at a
 * whole escape) with every control character as \xNN: C0 (0x00-0x1f),
 * DEL, the C1 controls U+0080-U+009F (their two UTF-8 bytes), and each
 * byte that is not part of well-formed UTF-8 (overlong forms,
 * surrogates, stray 0x80-0xff). Valid UTF-8 text stays readable as it
 * is. A backslash is kept as it is, so escaping twice changes nothing
 * (err.c escapes what it records, and that text is logged again). The
 * length written. */
size_t log_escape(char *dst, size_t size, const char *src);

void log_init(const char *prog, int max_level);
void log_set_level(int max_level);
int log_get_level(void);
void log_set_sink(log_sink_fn fn, void *userdata);
void log_msg(int level, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
void log_vmsg(int level, const char *fmt, va_list ap);

#define log_err(...) log_msg(LOG_ERR, __VA_ARGS__)
#define log_warn(...) log_msg(LOG_WARNING, __VA_ARGS__)
#define log_notice(...) log_msg(LOG_NOTICE, __VA_ARGS__)
#define log_info(...) log_msg(LOG_INFO, __VA_ARGS__)
#define log_debug(...) log_msg(LOG_DEBUG, __VA_ARGS__)

#endif
