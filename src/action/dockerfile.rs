// STUB
pub struct GenerateDockerfile { pub dir: String, pub base_image: String, pub builder_image: String, pub extra_labels: Vec<String> }
impl GenerateDockerfile { pub fn run(&self) -> anyhow::Result<std::path::PathBuf> { anyhow::bail!("stub") } }
