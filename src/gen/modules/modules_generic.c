// SPDX-License-Identifier: GPL-2.0-or-later
/* The generic module set: what a boot of a machine we know nothing about
 * may need to reach its root filesystem and let a person type a
 * passphrase. Whole directories where every driver in them drives a disk
 * (the list grows with each kernel, and naming them one by one would
 * always lag), plus single names where a directory also holds drivers
 * no boot needs. Names this kernel does not have are skipped quietly:
 * they are builtin or absent on other distributions' kernels.
 *
 * Network roots (NFS, iSCSI, NBD) come with the NIC drivers of the
 * usual virtual machines, clouds and server/desktop cards, by name: the
 * rest of drivers/net is large and boots nothing. On Debian's 6.1 the
 * NICs cost 2.35 MB of a zstd image (10.2 MB unpacked), NFS, iSCSI and
 * NBD 1.10 MB more (6.1 MB). The two Fibre Channel HBA families SAN
 * roots (and so multipath) live on, QLogic's qla2xxx and Emulex's
 * lpfc, with scsi_transport_fc and their NVMe-over-FC halves, cost
 * 5.4 MB unpacked; their firmware is packed when the host has it
 * (qla2xxx's ql2*_fw.bin, Debian's non-free firmware-qlogic; lpfc
 * names none: its firmware is in the card's flash), and a generic
 * build without it only warns (modules_index.c): the cards from the
 * ISP2422 on boot from their flash too. Left out on purpose: FCoE
 * (bnx2fc, qedf, fcoe need their NIC and lldpad), NVMe-oF over TCP or
 * RDMA, wireless, USB NICs, GPU/DRM, sound, and drivers/scsi's tape,
 * debug and legacy ISA drivers.
 *
 * Between 6.1 and 6.12 (Debian 12 and 13) nothing here was renamed;
 * what moved is handled by these rules as they stand: virtio_pci (and
 * virtio, virtio_ring), virtiofs/fuse, ecb, sha512_generic, crc-t10dif
 * and zstd_compress became built in (skipped through modules.builtin;
 * the cloud kernel also builds in nvme, ext4, crc32c); md's linear,
 * multipath and faulty are gone (6.8), dm-vdo is new (6.9), both through
 * the drivers/md rule; t10-pi merged into the block core and fscache into
 * netfs; nvme now pulls in nvme-auth, and i2c_hid drm (its panel
 * follower, 6.6). tests/kernels/kernels.py boots the three 6.12 flavours.
 *
 * arm64's names sit beside x86's (a kernel skips the other's);
 * tests/arm64/arm64.py boots Debian 12's arm64 kernel with this table.
 *
 * Measured on Debian 6.1.0-57-amd64: see the table's end and
 * tests/unit/gen/modules/test_modules.c; the aim is at most a third of what
 * initramfs-tools' MODULES=most packs, booting the same disks. */
#include "gen/modules/modules.h"

#include <stdlib.h>
#include <string.h>

#include "err.h"
#include "gen/modules/modules_priv.h"
#include "log.h"
#include "util.h"

struct generic {
	/* A module name or alias; or a directory ending in "/" (every
	 * module directly in it); or one ending in "/" followed by two
	 * asterisks (everything below it too); or "!name": a module a
	 * directory match does not take (it still comes as a dependency). */
	const char *what;
	const char *why;
};

static const struct generic generic[] = {
	/* Disk controllers */
	{ "kernel/drivers/ata/", "SATA/PATA: ahci, ata_piix, every pata_*/sata_* driver" },
	{ "nvme", "NVMe disks (nvme_core comes as a dependency)" },
	{ "vmd", "Intel VMD: NVMe behind it on many laptops" },
	{ "virtio_blk", "virtio disks (QEMU/KVM, clouds)" },
	{ "virtio_scsi", "virtio SCSI (QEMU/KVM, GCE)" },
	{ "virtio_pci", "the PCI transport every virtio device sits on" },
	{ "virtio_mmio", "virtio without PCI (microvms, arm64's -M virt, arm boards)" },
	{ "xen_blkfront", "Xen PV disks (older EC2)" },
	{ "xen_scsifront", "Xen PV SCSI" },
	{ "hv_storvsc", "Hyper-V / Azure disks" },
	{ "vmw_pvscsi", "VMware paravirtual SCSI" },
	{ "mptspi", "VMware's default LSI Logic parallel SCSI, old LSI HBAs" },
	{ "mptsas", "VMware's LSI Logic SAS, old LSI SAS HBAs" },
	{ "BusLogic", "VMware's BusLogic emulation" },
	{ "sym53c8xx", "QEMU's lsi53c895a emulation" },
	{ "sd_mod", "SCSI disks: every SATA/SAS/USB/virtio-scsi disk" },
	/* arm64 SoCs: SATA without PCI (the ata/ rule takes ahci_platform
	 * and the vendors' ahci_* too), the PCIe controllers Debian builds
	 * as modules (the generic ECAM host of VMs and servers, and most
	 * boards', are built in, as is the PL011 console: amba_pl011 is here
	 * for kernels that make it a module, where a passphrase typed on the
	 * serial line needs it) */
	{ "ahci_platform", "SATA on arm64 SoCs and servers" },
	{ "pci_meson", "Amlogic SoCs' PCIe" },
	{ "amba_pl011", "the PL011 UART, arm64's usual serial console" },
	{ "sr_mod", "CD/DVD drives (installer and live media)" },
	/* Server RAID and SAS host adapters that carry boot disks. The rest
	 * of drivers/scsi is tape, FCoE/iSCSI offload, debug and legacy ISA
	 * drivers: large and not a local boot disk. */
	{ "megaraid_sas", "Broadcom/LSI MegaRAID (Dell PERC, most servers)" },
	{ "mpt3sas", "Broadcom/LSI SAS2/3 HBAs" },
	{ "mpi3mr", "Broadcom SAS4 tri-mode HBAs" },
	{ "hpsa", "HPE Smart Array" },
	{ "smartpqi", "Microchip SmartRAID/HBA (newer HPE, Adaptec)" },
	{ "aacraid", "Adaptec RAID" },
	{ "arcmsr", "Areca RAID" },
	{ "3w_9xxx", "3ware 9000 RAID" },
	{ "3w_sas", "3ware 9750 SAS RAID" },
	{ "mvsas", "Marvell SAS" },
	{ "isci", "Intel C600 SAS" },
	{ "pm80xx", "PMC-Sierra SAS" },
	{ "hptiop", "HighPoint RAID" },
	{ "kernel/drivers/scsi/device_handler/", "ALUA/RDAC/EMC handlers for multipath disks" },
	/* Fibre Channel HBAs: SAN roots, usually reached through multipath */
	{ "qla2xxx", "QLogic (Marvell) FC HBAs; firmware ql2*_fw.bin if the host has it" },
	{ "lpfc", "Emulex (Broadcom) LightPulse FC HBAs" },
	/* SD/eMMC */
	{ "mmc_block", "SD cards and eMMC as block devices" },
	{ "kernel/drivers/mmc/host/", "SDHCI and other SD/MMC controllers" },
	/* USB: storage and the host controllers it (and keyboards) hang off */
	{ "kernel/drivers/usb/storage/", "usb_storage, uas and the ums-* quirk drivers" },
	{ "xhci_pci", "USB 3 controllers" },
	{ "xhci_plat_hcd", "USB 3 controllers without PCI" },
	{ "dwc3", "USB 3 on most arm64 SoCs (its host side is xhci_plat_hcd)" },
	{ "dwc2", "USB 2 on the Raspberry Pi and other SoCs" },
	{ "ehci_pci", "USB 2 controllers" },
	{ "ehci_platform", "USB 2 controllers without PCI" },
	{ "ohci_pci", "USB 1.1 controllers (OHCI)" },
	{ "uhci_hcd", "USB 1.1 controllers (UHCI)" },
	/* Device mapper and md: every target, since any may hold root */
	{ "kernel/drivers/md/**", "dm_mod, dm_crypt, dm_integrity, dm_raid, thin, cache, md raid" },
	{ "!md_cluster", "clustered md needs the cluster stack (and pulls in dlm)" },
	{ "!dm_flakey", "dm's test targets, never a root" },
	{ "!dm_dust", "" },
	{ "!dm_log_writes", "" },
	/* TPMs, for LUKS2 tokens (systemd-cryptenroll --tpm2-device) */
	{ "tpm_tis", "TPM 1.2/2.0 on the TIS interface (most PCs, QEMU's tpm-tis)" },
	{ "tpm_crb", "TPM 2.0 on the CRB interface (firmware TPMs, QEMU's tpm-crb)" },
	/* Loop and live media */
	{ "loop", "images on a filesystem (live media, Ventoy-style boots)" },
	/* Filesystems a root, /usr or /boot may be */
	{ "ext4", "ext2/3/4" },
	{ "xfs", "" },
	{ "btrfs", "" },
	{ "f2fs", "" },
	{ "vfat", "the ESP, USB sticks" },
	{ "nls_cp437", "vfat's default codepage" },
	{ "nls_iso8859_1", "vfat's default iocharset" },
	{ "nls_utf8", "" },
	{ "nls_ascii", "" },
	{ "isofs", "CD/DVD and ISO images" },
	{ "efivarfs", "LoaderDevicePartUUID: the disk root discovery looks on (no root=)" },
	{ "squashfs", "live media" },
	{ "erofs", "live media, image-based systems" },
	{ "overlay", "live media, containers' roots" },
	{ "virtiofs", "VM root shared from the host" },
	{ "9pnet_virtio", "VM root over 9p (with 9p)" },
	{ "9p", "" },
	/* Crypto for dm-crypt, dm-integrity and fscrypt (the usual LUKS
	 * ciphers and hashes; the accelerated ones first) */
	{ "aesni_intel", "AES-NI" },
	{ "aes_ce_blk", "arm64: AES with the ARMv8 Crypto Extensions (xts, cbc, essiv)" },
	{ "aes_ce_cipher", "" },
	{ "aes_neon_bs", "arm64 cores without the Crypto Extensions: bit-sliced NEON xts" },
	{ "aes_neon_blk", "" },
	{ "aes_generic", "" },
	{ "xts", "LUKS's default mode" },
	{ "cbc", "" },
	{ "ecb", "" },
	{ "essiv", "aes-cbc-essiv, older LUKS" },
	{ "lrw", "" },
	{ "sha256_ssse3", "" },
	{ "sha2_ce", "arm64: SHA-256 with the Crypto Extensions" },
	{ "sha256_arm64", "arm64: SHA-256 without them" },
	{ "sha256_generic", "LUKS hashes, dm-verity" },
	{ "sha512_ssse3", "" },
	{ "sha512_ce", "arm64" },
	{ "sha512_arm64", "arm64" },
	{ "sha512_generic", "" },
	{ "crc32c_intel", "" },
	{ "crc32c_generic", "ext4/btrfs/xfs metadata checksums, dm-integrity" },
	{ "xxhash_generic", "btrfs" },
	{ "blake2b_generic", "btrfs" },
	{ "hmac", "dm-integrity with a keyed hash" },
	{ "authenc", "" },
	{ "serpent_avx2", "serpent, a LUKS option" },
	{ "serpent_generic", "" },
	{ "twofish_avx_x86_64", "twofish, a LUKS option" },
	{ "twofish_generic", "" },
	{ "camellia_aesni_avx2", "camellia, a LUKS option (booster's TestLoadableCryptoModule)" },
	{ "camellia_generic", "" },
	{ "adiantum", "fscrypt/dm-crypt without AES hardware" },
	{ "algif_skcipher", "cryptsetup decrypts LUKS keyslots through AF_ALG" },
	{ "algif_hash", "rd.live.sha256=: a downloaded live image's SHA-256, the kernel's through AF_ALG" },
	{ "algif_hash", "" },
	/* Keyboards, to type a passphrase or use the emergency shell */
	{ "atkbd", "PS/2 keyboards" },
	{ "i8042", "PS/2 controller" },
	{ "hid_generic", "" },
	{ "usbhid", "USB keyboards" },
	{ "hid_apple", "" },
	{ "hid_microsoft", "" },
	{ "hid_logitech_dj", "Logitech Unifying receivers" },
	{ "hid_logitech_hidpp", "" },
	{ "hid_lenovo", "" },
	{ "hid_cherry", "" },
	{ "hid_multitouch", "laptop keyboards with a touchpad on one HID device" },
	{ "i2c_hid_acpi", "laptop keyboards on I2C" },
	{ "hyperv_keyboard", "Hyper-V console" },
	{ "xen_kbdfront", "Xen console" },
	{ "virtio_input", "QEMU virtio keyboards" },
	/* NICs a network root is reached through. Virtual ones first (each
	 * is small); then the cards most servers and desktops boot from.
	 * Not here, for their size or rarity as a boot NIC: ice (1.9 MB),
	 * bnx2x (1.7 MB, and useless without its firmware package), mlx4
	 * (ConnectX-3, 1.2 MB), bnxt_en, qede, be2net, sfc, USB NICs:
	 * --add-modules them. */
	{ "virtio_net", "QEMU/KVM and most clouds" },
	{ "vmxnet3", "VMware" },
	{ "hv_netvsc", "Hyper-V / Azure" },
	{ "ena", "AWS Nitro" },
	{ "gve", "Google Cloud gVNIC" },
	{ "e1000", "QEMU's and VMware's default emulated NIC, old Intel" },
	{ "e1000e", "Intel desktop and laptop onboard (and QEMU's q35 e1000e)" },
	{ "igb", "Intel 1G server NICs (i350, i210)" },
	{ "igc", "Intel 2.5G (i225/i226) desktop onboard" },
	{ "ixgbe", "Intel 10G (82599, X540, X550)" },
	{ "i40e", "Intel 10/25/40G (X710, XL710)" },
	{ "r8169", "Realtek onboard, most desktops" },
	{ "tg3", "Broadcom NetXtreme onboard (HPE, Dell, Apple)" },
	{ "mlx5_core", "Mellanox ConnectX-4 and later, the usual 25/100G NIC" },
	/* The links servers sit on: bond=, vlan=, bridge= (garp, mrp,
	 * stp and llc come as dependencies) */
	{ "bonding", "bond=" },
	{ "8021q", "vlan=" },
	{ "bridge", "bridge=" },
	/* Network roots. NFS's sunrpc, lockd, grace, fscache, netfs and
	 * dns_resolver come as dependencies; auth_rpcgss and
	 * rpcsec_gss_krb5 only serve sec=krb5, which needs a keytab and
	 * gssd no initramfs has. */
	{ "nfs", "NFS client; nfsv3/nfsv4 are loaded by fs-nfs/fs-nfs4" },
	{ "nfsv3", "" },
	{ "nfsv4", "NFSv4.0 to 4.2" },
	{ "iscsi_tcp", "software iSCSI (libiscsi, scsi_transport_iscsi as dependencies)" },
	{ "iscsi_ibft", "the firmware's iSCSI boot table (iBFT) as /sys/firmware/ibft: root=ibft" },
	{ "nbd", "network block device" },
	{ "nvme_tcp", "NVMe over TCP (nvme_fabrics, nvme_core as dependencies)" },
};

static bool dir_match(const char *relpath, const char *pat)
{
	size_t pl = strlen(pat);

	if (str_has_suffix(pat, "/**"))
		return strncmp(relpath, pat, pl - 2) == 0;
	if (strncmp(relpath, pat, pl) != 0)
		return false;
	return strchr(relpath + pl, '/') == NULL;
}

int modules_add_generic(struct modules *m)
{
	char *path = xasprintf("%s/modules.dep", m->kmoddir);
	struct nameset skip = { 0 };
	char *data, *line, *save;
	size_t len;
	int r;

	/* Directories are matched against modules.dep's paths (one read of
	 * one file); what each match needs is then resolved by libkmod. */
	r = read_file(path, &data, &len);
	if (r < 0) {
		err_errno(r, "%s", path);
		free(path);
		return err_code();
	}
	free(path);
	for (size_t i = 0; i < ARRAY_SIZE(generic); i++)
		if (generic[i].what[0] == '!')
			nameset_put(&skip, generic[i].what + 1, NULL);
	for (line = strtok_r(data, "\n", &save); line && r == 0; line = strtok_r(NULL, "\n", &save)) {
		char *colon = strchr(line, ':');
		if (!colon)
			continue;
		*colon = '\0';
		for (size_t i = 0; i < ARRAY_SIZE(generic); i++) {
			if (!strchr(generic[i].what, '/') || !dir_match(line, generic[i].what))
				continue;
			char *name = modname_from_path(line);
			if (!nameset_has(&skip, name))
				r = modules_add(m, name, false);
			free(name);
			break;
		}
	}
	free(data);
	nameset_free(&skip);
	for (size_t i = 0; i < ARRAY_SIZE(generic) && r == 0; i++)
		if (!strchr(generic[i].what, '/') && generic[i].what[0] != '!')
			r = modules_add(m, generic[i].what, false);
	return r;
}
