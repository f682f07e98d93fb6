/* SPDX-License-Identifier: GPL-2.0-or-later */
#ifndef UNIRAMFS_NET_RAWUDP_H
#define UNIRAMFS_NET_RAWUDP_H

#include <netinet/in.h>
#include <stddef.h>
#include <stdint.h>

/* IPv4+UDP framing for DHCP over an AF_PACKET/SOCK_DGRAM socket, which
 * hands us IP packets without the link header: before the interface
 * has an address no UDP socket can send from 0.0.0.0 or hear replies
 * addressed to an address it does not have yet. */

#define RAWUDP_HEADERS 28 /* IPv4 (no options) + UDP */

/* The Internet checksum (RFC 1071) of data, folded, not inverted,
 * continuing from sum. */
uint32_t inet_sum(const void *data, size_t len, uint32_t sum);
uint16_t inet_fold(uint32_t sum);

/* Write headers and payload into frame. Returns the frame length, or 0
 * when cap is too small or the payload too long for one datagram. */
size_t rawudp_build(uint8_t *frame, size_t cap, struct in_addr src, uint16_t sport, struct in_addr dst,
		    uint16_t dport, const void *payload, size_t len);

/* Check one received IP packet: IPv4, header checksum, not a fragment,
 * UDP to dport, lengths that fit, the UDP checksum when there is one.
 * On 0 *payload and *plen point into frame; on -EINVAL *why says what was
 * wrong (static text). */
int rawudp_parse(const uint8_t *frame, size_t len, uint16_t dport, const uint8_t **payload, size_t *plen,
		 const char **why);

#endif
