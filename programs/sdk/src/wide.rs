//! Hand-written wide integer math (LLVM's BPF backend has no 128-bit libcalls: no
//! __multi3 / __udivti3). A 128-bit value is (hi, lo) u64 halves.

/// a * b as (hi, lo).
#[inline(always)]
pub fn mul64(a: u64, b: u64) -> (u64, u64) {
    let (a1, a0) = (a >> 32, a & 0xFFFF_FFFF);
    let (b1, b0) = (b >> 32, b & 0xFFFF_FFFF);
    let p00 = a0 * b0;
    let p01 = a0 * b1;
    let p10 = a1 * b0;
    let p11 = a1 * b1;
    // middle = high half of p00 + low halves of the cross products (fits in 34 bits)
    // (cannot overflow: the true product is below 2^128; wrapping_* skips the checks)
    let mid = (p00 >> 32).wrapping_add(p01 & 0xFFFF_FFFF).wrapping_add(p10 & 0xFFFF_FFFF);
    let lo = (p00 & 0xFFFF_FFFF) | (mid << 32);
    let hi = p11.wrapping_add(p01 >> 32).wrapping_add(p10 >> 32).wrapping_add(mid >> 32);
    (hi, lo)
}

/// (hi, lo) / d -> (quotient, remainder); None when d == 0 or the quotient needs more than
/// 64 bits (hi >= d). Restoring binary long division, 64 steps.
#[inline(always)]
pub fn div128_64(hi: u64, lo: u64, d: u64) -> Option<(u64, u64)> {
    if d == 0 || hi >= d {
        return None;
    }
    if hi == 0 {
        return Some((lo / d, lo % d));
    }
    let mut rem = hi;
    let mut q = 0u64;
    let mut i = 64;
    while i > 0 {
        i -= 1;
        let top = rem >> 63; // the bit shifted out of rem
        rem = (rem << 1) | ((lo >> i) & 1);
        q <<= 1;
        if top != 0 || rem >= d {
            rem = rem.wrapping_sub(d);
            q |= 1;
        }
    }
    Some((q, rem))
}

/// floor(a * b / c); None on c == 0 or a result above u64::MAX.
#[inline(always)]
pub fn mul_div_floor(a: u64, b: u64, c: u64) -> Option<u64> {
    let (hi, lo) = mul64(a, b);
    div128_64(hi, lo, c).map(|(q, _)| q)
}

/// ceil(a * b / c); None on c == 0 or a result above u64::MAX.
#[inline(always)]
pub fn mul_div_ceil(a: u64, b: u64, c: u64) -> Option<u64> {
    let (hi, lo) = mul64(a, b);
    let (q, r) = div128_64(hi, lo, c)?;
    if r == 0 { Some(q) } else { q.checked_add(1) }
}

/// ceil(a / b); None on b == 0.
#[inline(always)]
pub fn ceil_div(a: u64, b: u64) -> Option<u64> {
    if b == 0 {
        return None;
    }
    Some(a / b + if a % b == 0 { 0 } else { 1 })
}

/// a * b, None above u64::MAX (use it instead of `checked_mul` / `*` on runtime values:
/// LLVM lowers their overflow check to __multi3, which BPF lacks; the build refuses them).
#[inline(always)]
pub fn checked_mul(a: u64, b: u64) -> Option<u64> {
    let (hi, lo) = mul64(a, b);
    if hi == 0 { Some(lo) } else { None }
}

/// (hi, lo) + (hi2, lo2), None on overflow of 128 bits.
#[inline(always)]
pub fn add128(a: (u64, u64), b: (u64, u64)) -> Option<(u64, u64)> {
    let (lo, c) = a.1.overflowing_add(b.1);
    let hi = a.0.checked_add(b.0)?.checked_add(c as u64)?;
    Some((hi, lo))
}

/// Compare (hi, lo) values.
#[inline(always)]
pub fn cmp128(a: (u64, u64), b: (u64, u64)) -> core::cmp::Ordering {
    match a.0.cmp(&b.0) {
        core::cmp::Ordering::Equal => a.1.cmp(&b.1),
        o => o,
    }
}
