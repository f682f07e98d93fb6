/* SPDX-License-Identifier: GPL-2.0-or-later */
#ifndef UNIRAMFS_SHUTDOWN_MD_CLEAN_H
#define UNIRAMFS_SHUTDOWN_MD_CLEAN_H

#include <stdbool.h>
#include <stddef.h>

/* Arrays whose metadata mdmon keeps (Intel IMSM, SNIA DDF) are marked
 * clean on their disks by mdmon alone, once the kernel found them idle.
 * One left dirty at power-off resyncs in full at the next boot, and the
 * firmware reports it as failed meanwhile. */

/* The container of a member array from its md/metadata_version text
 * ("external:/md127/0", or "-md127/0" while mdadm has it blocked):
 * "md127" into out. -EINVAL for anything else (a container itself is
 * "external:imsm"; native metadata "1.2"). */
int md_external_container(const char *metadata_version, char *out, size_t outlen);

/* Is this md/array_state text one where nothing is left for mdmon to
 * write ("clean", "inactive", "readonly", "read-auto", "clear")? */
bool md_state_settled(const char *array_state);

/* Ask the mdmon listening on sock_path to finish its pass over the
 * metadata, as mdadm --wait-clean does: an empty message in mdmon's
 * framing, answered once the pass is done. 0, or -errno (-ETIMEDOUT
 * after timeout_ms, -EPROTO on a reply that is not mdmon's). */
int md_ping_monitor(const char *sock_path, int timeout_ms);

/* For every member array with external metadata below sys_block
 * (/sys/block): wait up to timeout_ms for its state to settle, then
 * ping its container's mdmon in run_mdadm (/run/mdadm). say() reports
 * each array's outcome. Returns the number of arrays not known clean. */
int md_wait_clean(const char *sys_block, const char *run_mdadm, int timeout_ms,
		  void (*say)(const char *fmt, ...) __attribute__((format(printf, 1, 2))));

#endif
