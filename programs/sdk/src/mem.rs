//! memcmp / bcmp over `sol_memcmp_` (the linker cannot alias them: other arguments).
//! memcpy, memmove and memset are aliased to their syscalls by the linker.
use super::syscalls::sol_memcmp_;

#[no_mangle]
pub unsafe extern "C" fn memcmp(a: *const u8, b: *const u8, n: usize) -> i32 {
    let mut r: i32 = 0;
    if n != 0 {
        sol_memcmp_(a, b, n as u64, &mut r);
    }
    r
}

#[no_mangle]
pub unsafe extern "C" fn bcmp(a: *const u8, b: *const u8, n: usize) -> i32 {
    memcmp(a, b, n)
}
