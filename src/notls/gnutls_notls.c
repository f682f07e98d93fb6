// SPDX-License-Identifier: GPL-2.0-or-later
/* A stand-in for libgnutls.so.30 that only nbd-client loads: the image's
 * init never asks nbd-client for TLS, and GnuTLS with what it needs
 * (nettle, hogweed, gmp, libunistring, libidn2, libtasn1) is 5.6 MB of
 * an image, 2.4 MB compressed (bench/results/size.md). nbd-client calls
 * GnuTLS only on its TLS path (-certfile, -enable-tls...); there every
 * call fails with GNUTLS_E_UNIMPLEMENTED_FEATURE, and the message says
 * why. The names are the ones Debian's nbd-client 3.24 imports, all at
 * the version node GNUTLS_3_4 (gnutls_notls.map). Arguments are never
 * read, so each takes none: on the ABIs we build for a callee that
 * ignores its arguments is called safely. An nbd-client of another
 * version that imports a name missing here fails at its first call of
 * it (lazy binding, as Debian links it), or at start when linked with
 * -z now: add the name here then. */
#include <stddef.h>
#include <sys/types.h>

#define E_UNIMPLEMENTED (-1250) /* GNUTLS_E_UNIMPLEMENTED_FEATURE */

#define FAIL(name) \
	int name(void); \
	int name(void) { return E_UNIMPLEMENTED; }
#define NOTHING(name) \
	void name(void); \
	void name(void) {}

FAIL(gnutls_global_init)
FAIL(gnutls_init)
FAIL(gnutls_handshake)
FAIL(gnutls_bye)
FAIL(gnutls_credentials_set)
FAIL(gnutls_priority_set_direct)
FAIL(gnutls_set_default_priority)
FAIL(gnutls_certificate_allocate_credentials)
FAIL(gnutls_certificate_set_x509_key_file)
FAIL(gnutls_certificate_set_x509_trust_file)
FAIL(gnutls_certificate_type_get)
FAIL(gnutls_certificate_verify_peers2)
FAIL(gnutls_x509_crt_init)
FAIL(gnutls_x509_crt_import)
FAIL(gnutls_x509_crt_check_hostname)
NOTHING(gnutls_deinit)
NOTHING(gnutls_certificate_server_set_request)
NOTHING(gnutls_certificate_set_verify_flags)
NOTHING(gnutls_certificate_set_verify_function)
NOTHING(gnutls_session_set_ptr)
NOTHING(gnutls_transport_set_ptr)
NOTHING(gnutls_x509_crt_deinit)

ssize_t gnutls_record_recv(void);
ssize_t gnutls_record_recv(void)
{
	return E_UNIMPLEMENTED;
}

ssize_t gnutls_record_send(void);
ssize_t gnutls_record_send(void)
{
	return E_UNIMPLEMENTED;
}

size_t gnutls_record_check_pending(void);
size_t gnutls_record_check_pending(void)
{
	return 0;
}

void *gnutls_session_get_ptr(void);
void *gnutls_session_get_ptr(void)
{
	return NULL;
}

const void *gnutls_certificate_get_peers(void);
const void *gnutls_certificate_get_peers(void)
{
	return NULL;
}

const char *gnutls_strerror(void);
const char *gnutls_strerror(void)
{
	return "TLS is not in this initramfs (uniramfs packs nbd-client without GnuTLS)";
}
