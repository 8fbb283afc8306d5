//! The Solana syscalls the SDK uses (names resolved by the loader, murmur3-hashed).

#[repr(C)]
pub struct SolBytes {
    pub addr: *const u8,
    pub len: u64,
}

extern "C" {
    pub fn abort() -> !;
    pub fn sol_panic_(file: *const u8, len: u64, line: u64, column: u64) -> !;
    pub fn sol_log_(message: *const u8, len: u64);
    pub fn sol_log_64_(a: u64, b: u64, c: u64, d: u64, e: u64);
    pub fn sol_log_pubkey(pubkey: *const [u8; 32]);
    pub fn sol_log_compute_units_();
    pub fn sol_log_data(data: *const SolBytes, len: u64);
    pub fn sol_memcpy_(dst: *mut u8, src: *const u8, n: u64);
    pub fn sol_memmove_(dst: *mut u8, src: *const u8, n: u64);
    pub fn sol_memset_(dst: *mut u8, c: u8, n: u64);
    pub fn sol_memcmp_(a: *const u8, b: *const u8, n: u64, result: *mut i32);
    pub fn sol_create_program_address(
        seeds: *const SolBytes,
        seeds_len: u64,
        program_id: *const [u8; 32],
        address: *mut [u8; 32],
    ) -> u64;
    pub fn sol_try_find_program_address(
        seeds: *const SolBytes,
        seeds_len: u64,
        program_id: *const [u8; 32],
        address: *mut [u8; 32],
        bump: *mut u8,
    ) -> u64;
    pub fn sol_sha256(vals: *const SolBytes, len: u64, hash: *mut u8) -> u64;
    pub fn sol_invoke_signed_c(
        instruction: *const u8,
        account_infos: *const u8,
        account_infos_len: u64,
        signers_seeds: *const u8,
        signers_seeds_len: u64,
    ) -> u64;
    pub fn sol_get_clock_sysvar(addr: *mut u8) -> u64;
    pub fn sol_get_rent_sysvar(addr: *mut u8) -> u64;
    pub fn sol_set_return_data(data: *const u8, len: u64);
}
