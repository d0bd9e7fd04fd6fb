//! The catalog gRPC API (`package api`), generated at build time from
//! `proto/registry.proto` (see `build.rs`), and the encoded descriptors that
//! the reflection service publishes.

#![allow(clippy::all, clippy::pedantic, missing_docs, unreachable_pub)]

tonic::include_proto!("api");

/// `registry.proto` and the files it imports, as an encoded `FileDescriptorSet`.
pub const FILE_DESCRIPTOR_SET: &[u8] =
    include_bytes!(concat!(env!("OUT_DIR"), "/registry_descriptor.bin"));
