//! Which CA roots registries' certificates are checked against: the
//! system's (what reqwest's platform verifier reads: `SSL_CERT_FILE`,
//! `SSL_CERT_DIR`, or the distribution's bundle), or, on a system that has
//! none — an empty container image running the static build — the roots
//! built into opm (Mozilla's, as the `webpki-root-certs` crate ships them).
//! A `--root-ca` file is trusted on top of either.

use std::sync::OnceLock;

/// Where the roots come from.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Roots {
    /// The system's CA store.
    System,
    /// The roots built into opm.
    BuiltIn,
}

/// The roots this process uses (the system is asked once).
pub(crate) fn roots() -> Roots {
    static CHOSEN: OnceLock<Roots> = OnceLock::new();
    *CHOSEN.get_or_init(|| choose(system_has_roots()))
}

/// The built-in roots when the system has none.
pub(crate) fn choose(system_has_roots: bool) -> Roots {
    if system_has_roots {
        Roots::System
    } else {
        Roots::BuiltIn
    }
}

/// Whether the system's CA store holds at least one certificate.
fn system_has_roots() -> bool {
    !rustls_native_certs::load_native_certs().certs.is_empty()
}

/// The built-in roots, DER-encoded.
pub(crate) fn built_in_der() -> &'static [rustls::pki_types::CertificateDer<'static>] {
    webpki_root_certs::TLS_SERVER_ROOT_CERTS
}

/// The built-in roots, as certificates reqwest takes.
pub(crate) fn built_in() -> impl Iterator<Item = reqwest::Certificate> {
    built_in_der()
        .iter()
        .filter_map(|der| reqwest::Certificate::from_der(der).ok())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_system_without_roots_gets_the_built_in_ones() {
        assert_eq!(choose(true), Roots::System);
        assert_eq!(choose(false), Roots::BuiltIn);
        // Every built-in root parses: none is dropped on the way.
        assert!(webpki_root_certs::TLS_SERVER_ROOT_CERTS.len() > 100);
        assert_eq!(
            built_in().count(),
            webpki_root_certs::TLS_SERVER_ROOT_CERTS.len()
        );
    }
}
