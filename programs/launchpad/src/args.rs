//! Borsh decoding of the instruction arguments (idl/launchpad.json "args"):
//! anything short, malformed (bool > 1, enum or option tag out of range, bad
//! UTF-8) or followed by trailing bytes is InvalidInput, as in the reference.

use crate::error::{Error, Res};

pub struct Reader<'a> {
    d: &'a [u8],
    at: usize,
}

impl<'a> Reader<'a> {
    pub fn new(d: &'a [u8]) -> Reader<'a> {
        Reader { d, at: 0 }
    }

    pub fn take(&mut self, n: usize) -> Res<&'a [u8]> {
        if n > self.d.len() - self.at {
            return Err(Error::InvalidInput);
        }
        let s = &self.d[self.at..self.at + n];
        self.at += n;
        Ok(s)
    }

    pub fn u8(&mut self) -> Res<u8> {
        Ok(self.take(1)?[0])
    }

    pub fn u16(&mut self) -> Res<u16> {
        let b = self.take(2)?;
        Ok(b[0] as u16 | (b[1] as u16) << 8)
    }

    pub fn u32(&mut self) -> Res<u32> {
        let b = self.take(4)?;
        Ok(u32::from_le_bytes([b[0], b[1], b[2], b[3]]))
    }

    pub fn u64(&mut self) -> Res<u64> {
        let b = self.take(8)?;
        Ok(u64::from_le_bytes([b[0], b[1], b[2], b[3], b[4], b[5], b[6], b[7]]))
    }

    pub fn i64(&mut self) -> Res<i64> {
        Ok(self.u64()? as i64)
    }

    pub fn bool(&mut self) -> Res<bool> {
        match self.u8()? {
            0 => Ok(false),
            1 => Ok(true),
            _ => Err(Error::InvalidInput),
        }
    }

    /// A unit enum of `n` variants (its index).
    pub fn variant(&mut self, n: u8) -> Res<u8> {
        let v = self.u8()?;
        if v >= n {
            return Err(Error::InvalidInput);
        }
        Ok(v)
    }

    pub fn pubkey(&mut self) -> Res<&'a [u8; 32]> {
        let b = self.take(32)?;
        Ok(unsafe { &*(b.as_ptr() as *const [u8; 32]) })
    }

    /// A Borsh string: u32 length + UTF-8 bytes.
    pub fn string(&mut self) -> Res<&'a str> {
        let n = self.u32()? as usize;
        let b = self.take(n)?;
        core::str::from_utf8(b).map_err(|_| Error::InvalidInput)
    }

    /// Option tag: 0 none, 1 some.
    pub fn some(&mut self) -> Res<bool> {
        self.bool()
    }

    pub fn opt_string(&mut self) -> Res<Option<&'a str>> {
        if self.some()? {
            Ok(Some(self.string()?))
        } else {
            Ok(None)
        }
    }

    pub fn opt_u64(&mut self) -> Res<Option<u64>> {
        if self.some()? {
            Ok(Some(self.u64()?))
        } else {
            Ok(None)
        }
    }

    /// The five 16-byte digests of the uri-borne fields ([[u8; 16]; 5]).
    pub fn digests(&mut self) -> Res<&'a [u8]> {
        self.take(crate::layout::DIGESTS_LEN)
    }

    /// No trailing bytes.
    pub fn end(&self) -> Res<()> {
        if self.at != self.d.len() {
            return Err(Error::InvalidInput);
        }
        Ok(())
    }
}

/// Python's `str.strip()` whitespace: Unicode White_Space plus U+001C..U+001F.
fn py_space(c: char) -> bool {
    c.is_whitespace() || ('\u{1c}'..='\u{1f}').contains(&c)
}

/// The reference's check_text: blank -> `empty`, over `limit` bytes -> `too_long`.
pub fn check_text(text: &str, limit: usize, empty: Error, too_long: Error) -> Res<()> {
    let mut blank = true;
    for c in text.chars() {
        if !py_space(c) {
            blank = false;
            break;
        }
    }
    if blank {
        return Err(empty);
    }
    if text.len() > limit {
        return Err(too_long);
    }
    Ok(())
}

pub const NAME_MAX: usize = 32;
pub const SYMBOL_MAX: usize = 10;
pub const URI_MAX: usize = 200;

pub fn check_name(s: &str) -> Res<()> {
    check_text(s, NAME_MAX, Error::NameEmpty, Error::NameTooLong)
}

pub fn check_symbol(s: &str) -> Res<()> {
    check_text(s, SYMBOL_MAX, Error::SymbolEmpty, Error::SymbolTooLong)
}

pub fn check_uri(s: &str) -> Res<()> {
    if s.len() > URI_MAX {
        return Err(Error::UriTooLong);
    }
    Ok(())
}
