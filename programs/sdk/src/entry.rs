//! The entrypoint: parse the loader's input into account views, instruction data and the
//! program id, run the processor, return 0 or the error's code.
use super::account::{AccountInfo, RawAccount, MAX_PERMITTED_DATA_INCREASE};
use super::pubkey::Pubkey;

/// Most accounts an instruction may pass (views live in a stack array).
pub const MAX_ACCOUNTS: usize = 48;
const NON_DUP: u8 = u8::MAX;

/// # Safety: `input` is the loader's input region.
#[inline(always)]
#[allow(clippy::needless_lifetimes)] // 'a names the input region's lifetime, which `accounts` borrows from
pub unsafe fn deserialize<'a>(
    input: *mut u8,
    accounts: &'a mut [core::mem::MaybeUninit<AccountInfo>; MAX_ACCOUNTS],
) -> Result<(&'a Pubkey, &'a [AccountInfo], &'a [u8]), u64> {
    let mut p = input;
    let n = *(p as *const u64) as usize;
    p = p.add(8);
    if n > MAX_ACCOUNTS {
        return Err(super::error::ProgramError::InvalidArgument.to_u64());
    }
    for i in 0..n {
        let raw = p as *mut RawAccount;
        let dup = (*raw).dup;
        if dup == NON_DUP {
            let len = (*raw).data_len as usize;
            accounts[i].write(AccountInfo::from_raw(raw));
            p = p.add(core::mem::size_of::<RawAccount>() + len + MAX_PERMITTED_DATA_INCREASE);
            p = p.add((p as usize).wrapping_neg() & 7); // align to 8
            p = p.add(8); // rent epoch
        } else {
            if dup as usize >= i {
                return Err(super::error::ProgramError::InvalidArgument.to_u64());
            }
            let orig = accounts[dup as usize].assume_init();
            accounts[i].write(orig);
            p = p.add(8);
        }
    }
    let data_len = *(p as *const u64) as usize;
    p = p.add(8);
    let data = core::slice::from_raw_parts(p, data_len);
    p = p.add(data_len);
    let program_id = &*(p as *const Pubkey);
    let accs = core::slice::from_raw_parts(accounts.as_ptr() as *const AccountInfo, n);
    Ok((program_id, accs, data))
}

/// `entrypoint!(process)` with `fn process(&Pubkey, &[AccountInfo], &[u8]) -> ProgramResult`.
#[macro_export]
macro_rules! entrypoint {
    ($process:path) => {
        /// # Safety
        /// The runtime calls it with its serialized input region.
        #[no_mangle]
        pub unsafe extern "C" fn entrypoint(input: *mut u8) -> u64 {
            let mut accounts =
                [core::mem::MaybeUninit::<$crate::sdk::AccountInfo>::uninit(); $crate::sdk::entry::MAX_ACCOUNTS];
            match $crate::sdk::entry::deserialize(input, &mut accounts) {
                Ok((program_id, accounts, data)) => match $process(program_id, accounts, data) {
                    Ok(()) => 0,
                    Err(e) => e.to_u64(),
                },
                Err(code) => code,
            }
        }
    };
}
