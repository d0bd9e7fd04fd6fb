//! Build steps, each in its own file under build/: the gRPC code of
//! `proto/registry.proto` (build/proto.rs) and the facts `opm version`
//! reports (build/version.rs).

#[path = "build/proto.rs"]
mod proto;
#[path = "build/version.rs"]
mod version;

fn main() -> Result<(), Box<dyn std::error::Error>> {
    version::emit();
    proto::compile()
}
