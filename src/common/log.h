/* SPDX-License-Identifier: GPL-2.0-or-later */
#ifndef UNIRAMFS_LOG_H
#define UNIRAMFS_LOG_H

#include <stdarg.h>

/* Levels follow syslog/kmsg numbering so the init can pass them on. */
enum log_level { LOG_ERR = 3, LOG_WARNING = 4, LOG_NOTICE = 5, LOG_INFO = 6, LOG_DEBUG = 7 };

/* The sink receives one formatted message (no trailing newline). The
 * default sink writes "PROG: msg\n" to stderr. */
typedef void (*log_sink_fn)(int level, const char *msg, void *userdata);

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
