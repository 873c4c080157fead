//! TLS connections (the `tls` feature): rustls with the ring provider, trusting the
//! certificates of `sslrootcert=PATH` or else the Mozilla root certificates.

use std::sync::Arc;

use rustls::pki_types::pem::PemObject;
use rustls::pki_types::CertificateDer;
use tokio_postgres_rustls::MakeRustlsConnect;
use vwr::{Result, VwrError};

use crate::PgLocation;

/// The connector for `loc`'s connections.
pub fn connector(loc: &PgLocation) -> Result<MakeRustlsConnect> {
    let fail = |message: String| VwrError::Store {
        location: loc.display(),
        message,
    };
    let mut roots = rustls::RootCertStore::empty();
    match &loc.sslrootcert {
        Some(path) => {
            let bad =
                |e: &dyn std::fmt::Display| fail(format!("sslrootcert {}: {e}", path.display()));
            for cert in CertificateDer::pem_file_iter(path).map_err(|e| bad(&e))? {
                roots.add(cert.map_err(|e| bad(&e))?).map_err(|e| bad(&e))?;
            }
            if roots.is_empty() {
                return Err(bad(&"holds no PEM certificate"));
            }
        }
        None => roots.extend(webpki_roots::TLS_SERVER_ROOTS.iter().cloned()),
    }
    // ring needs only a C compiler, as the rest of the build; rustls marks it deprecated for
    // want of post-quantum key exchange, which its other provider (aws-lc-rs) has but builds
    // with CMake.
    #[allow(deprecated)]
    let provider = Arc::new(rustls::crypto::ring::default_provider());
    let config = rustls::ClientConfig::builder_with_provider(provider)
        .with_safe_default_protocol_versions()
        .map_err(|e| fail(format!("TLS: {e}")))?
        .with_root_certificates(roots)
        .with_no_client_auth();
    Ok(MakeRustlsConnect::new(config))
}
