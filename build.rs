//! Build facts for `opm version` (build/version.rs). Each step of the build
//! script lives in its own file under build/ and is called from here.

#[path = "build/version.rs"]
mod version;

fn main() {
    version::emit();
}
