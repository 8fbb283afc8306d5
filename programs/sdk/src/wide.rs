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
/// 64 bits (hi >= d). Two 64/32 steps on the normalised divisor (Knuth's algorithm D, Hacker's
/// Delight `divlu`) with the machine's 64-bit division: the same cost whatever the operands,
/// about a tenth of a bit-by-bit long division.
#[inline(always)]
pub fn div128_64(hi: u64, lo: u64, d: u64) -> Option<(u64, u64)> {
    if d == 0 || hi >= d {
        return None;
    }
    if hi == 0 {
        return Some((lo / d, lo % d));
    }
    const B: u64 = 1 << 32;
    const M: u64 = B - 1;
    let s = d.leading_zeros();
    let v = d << s;
    let (vn1, vn0) = (v >> 32, v & M);
    // the dividend shifted by s (it still fits 128 bits: hi < d)
    let un32 = if s == 0 { hi } else { (hi << s) | (lo >> (64 - s)) };
    let un10 = lo << s;
    let (un1, un0) = (un10 >> 32, un10 & M);
    let q1 = digit(un32, un1, vn1, vn0);
    let un21 = (un32 << 32).wrapping_add(un1).wrapping_sub(q1.wrapping_mul(v));
    let q0 = digit(un21, un0, vn1, vn0);
    let rem = (un21 << 32).wrapping_add(un0).wrapping_sub(q0.wrapping_mul(v));
    Some(((q1 << 32) | q0, rem >> s))
}

/// One 32-bit quotient digit of (num * 2^32 + next) / (vn1 * 2^32 + vn0), num < the divisor
/// (vn1 has its top bit set): the estimate num / vn1, corrected at most twice.
#[inline(always)]
fn digit(num: u64, next: u64, vn1: u64, vn0: u64) -> u64 {
    const B: u64 = 1 << 32;
    let mut q = num / vn1;
    let mut rhat = num - q.wrapping_mul(vn1);
    while q >= B || q.wrapping_mul(vn0) > ((rhat << 32) | next) {
        q -= 1;
        rhat += vn1;
        if rhat >= B {
            break;
        }
    }
    q
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
    if r == 0 {
        Some(q)
    } else {
        q.checked_add(1)
    }
}

/// ceil(a / b); None on b == 0.
#[inline(always)]
pub fn ceil_div(a: u64, b: u64) -> Option<u64> {
    if b == 0 {
        return None;
    }
    Some(a / b + if a.is_multiple_of(b) { 0 } else { 1 })
}

/// a * b, None above u64::MAX (use it instead of `checked_mul` / `*` on runtime values:
/// LLVM lowers their overflow check to __multi3, which BPF lacks; the build refuses them).
#[inline(always)]
pub fn checked_mul(a: u64, b: u64) -> Option<u64> {
    let (hi, lo) = mul64(a, b);
    if hi == 0 {
        Some(lo)
    } else {
        None
    }
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

/// (hi, lo) * b, None on overflow of 128 bits.
#[inline(always)]
pub fn mul128_64(a: (u64, u64), b: u64) -> Option<(u64, u64)> {
    let (lo_hi, lo) = mul64(a.1, b);
    let (top, hi) = mul64(a.0, b);
    if top != 0 {
        return None;
    }
    Some((hi.checked_add(lo_hi)?, lo))
}
