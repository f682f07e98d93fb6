/* SPDX-License-Identifier: GPL-2.0-or-later */
#ifndef UNIRAMFS_NET_NETHANDOVER_H
#define UNIRAMFS_NET_NETHANDOVER_H

#include "util.h"
#include "init/net/netconf.h"

/* What tells the root's network managers to leave the root's link as
 * the init configured it (the root file system, or the disk under it,
 * is reached through it: taking the address away hangs the system).
 *
 * NetworkManager: a snippet for /run/NetworkManager/conf.d/ (read on
 * every start, before /etc's) marking the interface unmanaged, both as
 * a [device-*] section (a name of our own, so the administrator's
 * unmanaged-devices= cannot replace it) and appended to the keyfile
 * plugin's unmanaged-devices list (+=, understood by every NM since
 * 1.2, for versions whose [device] sections lack managed=).
 *
 * systemd-networkd: a .network file for /run/systemd/network/, named to
 * sort before the administrator's (the first file that matches wins),
 * with the same addressing (DHCP=ipv4, or the static Address=/Gateway=/
 * DNS=) and KeepConfiguration=yes, so that a restart of networkd or an
 * expired lease never drops the address; CriticalConnection=yes is its
 * spelling before systemd 243. ClientIdentifier=mac is what the init's
 * DHCP client sent, so the server hands out the same lease
 * (RequestAddress= would say it outright, but Debian 12's networkd,
 * 252, does not know it and would log an unknown key).
 *
 * Both return 0, or -EINVAL for an interface name that cannot be
 * written into these formats (a ';' would split NM's list). */
int net_nm_unmanaged_render(const char *ifname, struct buf *out);
int net_networkd_render(const struct net_conf *nc, struct buf *out);
/* A port of the bond or bridge (or a VLAN's link) the root is reached
 * through: networkd leaves it alone (Unmanaged=yes), so it neither
 * runs DHCP on it nor takes it out of its master; NM gets
 * net_nm_unmanaged_render for it. The file is net_networkd_name(port).
 * 0, or -EINVAL as above. */
int net_networkd_port_render(const char *port, const char *master, struct buf *out);
/* The file names: "90-uniramfs-IFACE.conf", "00-uniramfs-IFACE.network"
 * (malloc'd). */
char *net_nm_conf_name(const char *ifname);
char *net_networkd_name(const char *ifname);
/* iSCSI: the initiator name the init logged in with, for the root's
 * iscsid. Debian's and Fedora's iscsid read it only from
 * /etc/iscsi/initiatorname.iscsi, which lives in the root (the init
 * must not rewrite the administrator's file); so it goes to
 * /run/uniramfs/iscsi/initiatorname.iscsi in iscsid's format, and a
 * drop-in for iscsid.service bind-mounts that file over /etc's inside
 * iscsid's own mount namespace only (BindReadOnlyPaths=, systemd 233):
 * its session recovery and new logins to the root's target use the
 * name the target's ACL lets in. The drop-in goes to
 * /run/systemd/system.control/, not /run/systemd/system/, whose mere
 * existence tells every program the system runs systemd (sd_booted),
 * which a root with another init does not. -EINVAL: not a name iscsid
 * would read back (empty, longer than iSCSI's 223 bytes, a blank or a
 * control byte). */
int net_iscsi_initiator_render(const char *iqn, struct buf *out);
void net_iscsid_dropin_render(struct buf *out);
#define NET_ISCSI_NAME_DIR "/run/uniramfs/iscsi"
#define NET_ISCSI_NAME_FILE "initiatorname.iscsi"
#define NET_ISCSID_DROPIN_DIR "/run/systemd/system.control/iscsid.service.d"
#define NET_ISCSID_DROPIN_NAME "50-uniramfs-initiator.conf"

/* Write data as DIR/name, making the directories of dirs (NULL-ended,
 * parents first, all below /run) as needed; atomic and never through a
 * link (net_write_file_at). 0 or a negative errno code. */
struct sysops;
int net_run_file_write(const struct sysops *ops, const char *const dirs[], const char *name, const void *data,
		       size_t len);

/* An interface name safe in both: letters, digits, '-', '_', '.', '@'
 * excluded. */
bool net_handover_ifname_ok(const char *ifname);

#endif
