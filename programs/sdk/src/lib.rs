//! The no_std runtime shared by the project's SBF programs (docs: programs/sdk/README.md).
//!
//! A program includes it as a module and names its processor:
//!
//! ```ignore
//! #![no_std]
//! #[path = "../../sdk/src/lib.rs"]
//! #[macro_use]
//! #[allow(dead_code)]
//! mod sdk;
//! sdk::entrypoint!(process);
//! fn process(program_id: &sdk::Pubkey, accounts: &[sdk::AccountInfo], data: &[u8]) -> sdk::ProgramResult { Ok(()) }
//! ```
//!
//! No allocator, no crates: every buffer lives on the stack, every account is a zero-copy
//! view into the loader's input region. Integer math above 64 bits is hand-written
//! (`wide`): LLVM's BPF backend has no 128-bit libcalls.
#![allow(clippy::missing_safety_doc)]

pub mod account;
pub mod borsh;
pub mod checks;
pub mod cpi;
pub mod entry;
pub mod error;
pub mod ids;
pub mod log;
pub mod mem;
pub mod pubkey;
pub mod syscalls;
pub mod system;
pub mod sysvar;
pub mod token;
pub mod wide;

#[allow(unused_imports)]
pub use account::AccountInfo;
#[allow(unused_imports)]
pub use cpi::{invoke, invoke_signed, AccountMeta, Instruction};
#[allow(unused_imports)]
pub use error::{ProgramError, ProgramResult};
#[allow(unused_imports)]
pub use pubkey::Pubkey;

#[cfg(not(test))]
#[panic_handler]
fn panic(info: &core::panic::PanicInfo) -> ! {
    // the file and line, without core::fmt (its formatting machinery costs ~10 KiB)
    if let Some(loc) = info.location() {
        let file = loc.file();
        unsafe { self::syscalls::sol_panic_(file.as_ptr(), file.len() as u64, loc.line() as u64, loc.column() as u64) }
    }
    unsafe { self::syscalls::abort() }
}
