//! Logging: `msg(b"text")`, numbers through `sol_log_64_`, and a small line builder that
//! writes decimal numbers without core::fmt:
//! `Line::new().s(b"swap buy in=").u(amount_in).s(b" out=").u(out).log();`
use super::pubkey::Pubkey;
use super::syscalls;

#[inline(always)]
pub fn msg(text: &[u8]) {
    unsafe { syscalls::sol_log_(text.as_ptr(), text.len() as u64) }
}

pub fn log_u64s(a: u64, b: u64, c: u64, d: u64, e: u64) {
    unsafe { syscalls::sol_log_64_(a, b, c, d, e) }
}

pub fn log_pubkey(key: &Pubkey) {
    unsafe { syscalls::sol_log_pubkey(key) }
}

pub fn log_compute_units() {
    unsafe { syscalls::sol_log_compute_units_() }
}

/// A log line of at most 200 bytes, built on the stack (longer input is cut).
pub struct Line {
    buf: [u8; 200],
    len: usize,
}

impl Line {
    pub fn new() -> Self {
        Line { buf: [0; 200], len: 0 }
    }
    pub fn s(mut self, text: &[u8]) -> Self {
        for &b in text {
            if self.len == self.buf.len() {
                break;
            }
            self.buf[self.len] = b;
            self.len += 1;
        }
        self
    }
    /// A decimal number.
    pub fn u(self, mut v: u64) -> Self {
        let mut tmp = [0u8; 20];
        let mut i = tmp.len();
        loop {
            i -= 1;
            tmp[i] = b'0' + (v % 10) as u8;
            v /= 10;
            if v == 0 {
                break;
            }
        }
        self.s(&tmp[i..])
    }
    /// An address in base58.
    pub fn pk(self, key: &Pubkey) -> Self {
        let mut out = [0u8; 44];
        let n = base58(key, &mut out);
        self.s(&out[..n])
    }
    pub fn log(&self) {
        msg(&self.buf[..self.len])
    }
}

impl Default for Line {
    fn default() -> Self {
        Self::new()
    }
}

const ALPHABET: &[u8; 58] = b"123456789ABCDEFGHJKLMNPQRSTUVWXYZabcdefghijkmnopqrstuvwxyz";

/// Base58 of 32 bytes into `out`; returns the length (at most 44). ~3k CU: use sparingly.
pub fn base58(input: &[u8; 32], out: &mut [u8; 44]) -> usize {
    let mut digits = [0u8; 44];
    let mut n = 0usize;
    for &byte in input.iter() {
        let mut carry = byte as u32;
        for d in digits[..n].iter_mut() {
            carry += (*d as u32) << 8;
            *d = (carry % 58) as u8;
            carry /= 58;
        }
        while carry > 0 {
            digits[n] = (carry % 58) as u8;
            n += 1;
            carry /= 58;
        }
    }
    let zeros = input.iter().take_while(|&&b| b == 0).count();
    let mut len = 0;
    for _ in 0..zeros {
        out[len] = b'1';
        len += 1;
    }
    for i in (0..n).rev() {
        out[len] = ALPHABET[digits[i] as usize];
        len += 1;
    }
    len
}
