//! Errors of the CUDA backend: one line each, so the CLI can print them as they are.

/// Anything the CUDA backend can fail with.
#[derive(Debug, thiserror::Error)]
pub enum GpuError {
    /// No usable GPU: the driver, a device or NVRTC is missing (the text says which).
    #[error("no usable GPU: {0}")]
    Unavailable(String),
    /// A CUDA driver call failed.
    #[error("CUDA driver: {0}")]
    Driver(String),
    /// NVRTC failed to compile a kernel module; `log` is NVRTC's program log.
    #[error("NVRTC could not compile cuda/{module}: {log}")]
    Compile {
        /// The module's file name.
        module: &'static str,
        /// NVRTC's log (or the failing call).
        log: String,
    },
    /// An operation would need more device memory than is free.
    #[error("GPU {device}: {what} needs {need} bytes of device memory but only {free} are free")]
    OutOfMemory {
        /// Device ordinal.
        device: usize,
        /// What needed it.
        what: String,
        /// Bytes needed.
        need: usize,
        /// Bytes free.
        free: usize,
    },
    /// Inputs the kernels cannot take (sizes, lengths).
    #[error("{0}")]
    Invalid(String),
    /// The kernel cache on disk could not be written (compilation still succeeded).
    #[error("kernel cache {path}: {msg}")]
    Cache {
        /// The file or folder.
        path: String,
        /// What went wrong.
        msg: String,
    },
}

impl From<cudarc::driver::DriverError> for GpuError {
    fn from(e: cudarc::driver::DriverError) -> Self {
        GpuError::Driver(e.to_string())
    }
}

/// Result of a CUDA backend operation.
pub type GResult<T> = Result<T, GpuError>;
