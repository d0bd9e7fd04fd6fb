//! The kinds a registry+v1 bundle may ship (operator-registry's
//! `supported_resources.go`, newest list), matched on `kind` only.

/// Every supported kind and whether objects of that kind are namespaced.
pub const SUPPORTED_KINDS: &[(&str, bool)] = &[
    ("ClusterServiceVersion", true),
    ("CustomResourceDefinition", false),
    ("ClusterRole", false),
    ("ClusterRoleBinding", false),
    ("Service", true),
    ("ServiceAccount", true),
    ("Role", true),
    ("RoleBinding", true),
    ("PrometheusRule", true),
    ("ServiceMonitor", true),
    ("Secret", true),
    ("ConfigMap", true),
    ("PodDisruptionBudget", true),
    ("PriorityClass", false),
    // Upstream lists it as cluster-scoped.
    ("VerticalPodAutoscaler", false),
    ("ConsoleYAMLSample", false),
    ("ConsoleQuickStart", false),
    ("ConsoleCLIDownload", false),
    ("ConsoleLink", false),
    ("ConsolePlugin", false),
    ("NetworkPolicy", true),
    ("PodMonitor", true),
];

/// True when a registry+v1 bundle may contain objects of `kind` (exact,
/// case-sensitive).
pub fn is_supported(kind: &str) -> bool {
    SUPPORTED_KINDS.iter().any(|(k, _)| *k == kind)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn supported() {
        for kind in [
            "ConsoleYAMLSample",
            "ConsolePlugin",
            "NetworkPolicy",
            "PodMonitor",
            "Secret",
        ] {
            assert!(is_supported(kind), "{kind}");
        }
        for kind in [
            "ConsoleYamlSample",
            "Deployment",
            "ResourceQuota",
            "",
            "secret",
        ] {
            assert!(!is_supported(kind), "{kind}");
        }
    }
}
