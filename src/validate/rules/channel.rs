//! Checks of one channel of the model (upstream: `model.Channel.Validate`). Their lines go
//! into the channel's `invalid channel "<name>"` node, before or after its bundles.

use super::package::when;
use crate::diag::Severity;
use crate::model::Channel;
use crate::validate::rule::{At, Check, Placement, Rule};

/// Checks that a channel has a name (not reachable from catalog files).
pub const CHANNEL_NAME_EMPTY: Rule = Rule {
    id: "channel-name-empty",
    severity: Severity::Error,
    summary: "a channel in the model has no name",
    details: "A channel of the checked model has no name. Catalog files report it as channel-name-missing.",
    at: At::Blob(""),
    check: Check::Channel(Placement::BeforeChildren, channel_name_empty),
};

fn channel_name_empty(channel: &Channel) -> Vec<String> {
    when(channel.name.is_empty(), "channel name must not be empty")
}

/// Checks that a channel lists at least one bundle (also fires for a default channel that
/// no channel blob defines).
pub const CHANNEL_NO_BUNDLES: Rule = Rule {
    id: "channel-no-bundles",
    severity: Severity::Error,
    summary: "a channel has no entries",
    details: "A channel whose `entries` are empty.",
    at: At::Blob("/entries"),
    check: Check::Channel(Placement::BeforeChildren, channel_no_bundles),
};

fn channel_no_bundles(channel: &Channel) -> Vec<String> {
    when(
        channel.bundles.is_empty(),
        "channel must contain at least one bundle",
    )
}

/// Checks the upgrade graph: one head, no replaces cycle, no stranded entries (the chain
/// stops at a skipped `replaces`). Upstream: `Channel.validateReplacesChain`.
pub const CHANNEL_GRAPH_INVALID: Rule = Rule {
    id: "channel-graph-invalid",
    severity: Severity::Error,
    summary: "a channel's upgrade graph has no single head, a cycle or stranded bundles",
    details: "A channel's upgrade graph (its `replaces` edges) must have exactly one head, the entry nothing replaces, and no cycle; every entry must be on the head's replaces chain or skipped by an entry on it. The message names the heads, the cycle or the stranded bundles.",
    at: At::Blob("/entries"),
    check: Check::Channel(Placement::BeforeChildren, channel_graph_invalid),
};

fn channel_graph_invalid(channel: &Channel) -> Vec<String> {
    if channel.bundles.is_empty() {
        return Vec::new();
    }
    match channel.validate_graph() {
        Ok(()) => Vec::new(),
        Err(error) => vec![error.to_string()],
    }
}

/// Checks that a channel deprecation carries a message.
pub const CHANNEL_DEPRECATION_MESSAGE_EMPTY: Rule = Rule {
    id: "channel-deprecation-message-empty",
    severity: Severity::Error,
    summary: "a channel deprecation has an empty message",
    details: "A deprecation of a channel has an empty `message`.",
    at: At::Blob(""),
    check: Check::Channel(Placement::AfterChildren, channel_deprecation_message_empty),
};

fn channel_deprecation_message_empty(channel: &Channel) -> Vec<String> {
    when(
        channel
            .deprecation
            .as_ref()
            .is_some_and(|deprecation| deprecation.message.is_empty()),
        "invalid deprecation: message must be set",
    )
}
