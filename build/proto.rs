//! Compiles `proto/registry.proto` (the catalog gRPC API) with protox, a pure
//! Rust protobuf compiler, so that a plain `cargo build` needs no `protoc`.
//! Writes the Rust code for prost/tonic and the encoded descriptor set that
//! the reflection service publishes.

use prost::Message as _;

pub fn compile() -> Result<(), Box<dyn std::error::Error>> {
    println!("cargo:rerun-if-changed=proto/registry.proto");
    let out_dir = std::path::PathBuf::from(std::env::var("OUT_DIR")?);
    let mut compiler = protox::Compiler::new(["proto"])?;
    compiler.include_imports(true);
    compiler.open_file("registry.proto")?;
    let with_imports = compiler.file_descriptor_set();
    std::fs::write(
        out_dir.join("registry_descriptor.bin"),
        with_imports.encode_to_vec(),
    )?;
    // Code only for our own file; `google.protobuf.Struct` is prost-types'.
    let mut own = with_imports;
    own.file.retain(|file| file.name() == "registry.proto");
    tonic_prost_build::configure()
        .build_server(true)
        .build_client(true)
        .build_transport(false)
        .compile_fds(own)?;
    Ok(())
}
