//! Commands that upstream removed, or that only work inside a cluster: they
//! are recognised before the command line is parsed and answered with what
//! to use instead (never clap's "a similar subcommand exists" guess).

/// What to say for each removed command, by the words that name it (and
/// whether the next word is one of its subcommands).
const REMOVED: &[(&[&str], bool, &str)] = &[
    (&["index"], true, INDEX),
    (&["registry"], true, REGISTRY),
    (&["alpha", "bundle", "extract"], false, EXTRACT),
    (&["bundle", "extract"], false, EXTRACT),
    (
        &["alpha", "generate"],
        true,
        "it left alpha: use opm generate dockerfile CATALOG_DIR",
    ),
];

const INDEX: &str =
    "upstream opm removed the \"index\" commands with SQLite catalogs; catalogs are file-based now:
  opm init PACKAGE > catalog/PACKAGE/index.json          # start a package
  opm render BUNDLE_IMAGE >> catalog/PACKAGE/index.json  # add a bundle, then list it in a channel
  opm alpha render-template basic|semver TEMPLATE        # or write the catalog from a template
  opm validate catalog                                   # check it
  opm generate dockerfile catalog                        # build its image
  opm render INDEX_IMAGE                                 # read an existing catalog image";

const REGISTRY: &str = "upstream opm removed the \"registry\" commands with SQLite catalogs; catalogs are file-based now:
  opm serve CATALOG_DIR                  # serve a catalog over gRPC
  opm render, opm alpha render-template  # write one
  opm validate CATALOG_DIR               # check it
  opm generate dockerfile CATALOG_DIR    # build its image";

const EXTRACT: &str = "it runs inside OLM's bundle-unpack Job and writes the bundle into a ConfigMap of the cluster; to look at a bundle here:
  opm bundle unpack IMAGE    # its files
  opm bundle list DIR|IMAGE  # the objects OLM applies";

/// The message for a removed command, when `args` (without the program
/// name) name one: `"opm index add" is not available: ...`. Flags before the
/// command words are skipped (the groups only have switches).
pub(crate) fn message(args: &[String]) -> Option<String> {
    let words: Vec<&str> = args
        .iter()
        .map(String::as_str)
        .filter(|arg| !arg.starts_with('-'))
        .collect();
    REMOVED.iter().find_map(|(names, has_subcommands, what)| {
        if !words.starts_with(names) {
            return None;
        }
        // `opm index add`: the subcommand too, as the user typed it.
        let count = names.len() + usize::from(*has_subcommands);
        let typed = words
            .iter()
            .take(count)
            .copied()
            .collect::<Vec<_>>()
            .join(" ");
        Some(format!("\"opm {typed}\" is not available: {what}"))
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn args(line: &str) -> Vec<String> {
        line.split_whitespace().map(str::to_string).collect()
    }

    #[test]
    fn removed_commands_are_named_as_typed() {
        let index = message(&args("--use-http index add --bundles x")).unwrap();
        assert!(
            index.starts_with("\"opm index add\" is not available: upstream opm removed"),
            "{index}"
        );
        assert!(message(&args("alpha bundle extract -m /"))
            .unwrap()
            .starts_with("\"opm alpha bundle extract\" is not available: it runs inside"));
        assert!(message(&args("registry"))
            .unwrap()
            .starts_with("\"opm registry\" is not available"));
        assert_eq!(
            message(&args("alpha generate dockerfile x")).unwrap(),
            "\"opm alpha generate dockerfile\" is not available: it left alpha: use opm generate dockerfile CATALOG_DIR"
        );
        assert_eq!(message(&args("render index")), None);
        assert_eq!(message(&args("bundle build extract")), None);
        assert_eq!(message(&args("")), None);
    }
}
