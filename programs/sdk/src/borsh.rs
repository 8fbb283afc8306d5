//! Borsh (little-endian, u32-length strings / vectors) over byte slices, no allocation.
use super::error::ProgramError;
use super::pubkey::Pubkey;

/// `pub fn u16(&mut self, v: u16)` and so on: the integer, little-endian.
macro_rules! le_writers {
    ($($int:ident),*) => {$(
        #[inline(always)]
        pub fn $int(&mut self, v: $int) -> Result<&mut Self, ProgramError> {
            self.bytes(&v.to_le_bytes())
        }
    )*};
}

/// Reads from instruction data or account data; every read is bounds-checked
/// (InvalidInstructionData when short).
pub struct Reader<'a> {
    buf: &'a [u8],
    pos: usize,
}

impl<'a> Reader<'a> {
    #[inline(always)]
    pub fn new(buf: &'a [u8]) -> Self {
        Reader { buf, pos: 0 }
    }
    #[inline(always)]
    pub fn pos(&self) -> usize {
        self.pos
    }
    #[inline(always)]
    pub fn remaining(&self) -> usize {
        self.buf.len() - self.pos
    }
    #[inline(always)]
    pub fn bytes(&mut self, n: usize) -> Result<&'a [u8], ProgramError> {
        let end = self.pos.checked_add(n).ok_or(ProgramError::InvalidInstructionData)?;
        if end > self.buf.len() {
            return Err(ProgramError::InvalidInstructionData);
        }
        let out = &self.buf[self.pos..end];
        self.pos = end;
        Ok(out)
    }
    #[inline(always)]
    pub fn u8(&mut self) -> Result<u8, ProgramError> {
        Ok(self.bytes(1)?[0])
    }
    /// Borsh bool: 0 or 1 only.
    #[inline(always)]
    pub fn bool(&mut self) -> Result<bool, ProgramError> {
        match self.u8()? {
            0 => Ok(false),
            1 => Ok(true),
            _ => Err(ProgramError::InvalidInstructionData),
        }
    }
    #[inline(always)]
    pub fn u16(&mut self) -> Result<u16, ProgramError> {
        let b = self.bytes(2)?;
        Ok(u16::from_le_bytes([b[0], b[1]]))
    }
    #[inline(always)]
    pub fn u32(&mut self) -> Result<u32, ProgramError> {
        let b = self.bytes(4)?;
        Ok(u32::from_le_bytes([b[0], b[1], b[2], b[3]]))
    }
    #[inline(always)]
    pub fn u64(&mut self) -> Result<u64, ProgramError> {
        let b = self.bytes(8)?;
        let mut a = [0u8; 8];
        a.copy_from_slice(b);
        Ok(u64::from_le_bytes(a))
    }
    #[inline(always)]
    pub fn i64(&mut self) -> Result<i64, ProgramError> {
        Ok(self.u64()? as i64)
    }
    #[inline(always)]
    pub fn pubkey(&mut self) -> Result<&'a Pubkey, ProgramError> {
        let b = self.bytes(32)?;
        Ok(unsafe { &*(b.as_ptr() as *const Pubkey) })
    }
    /// A Borsh string (u32 length + UTF-8 bytes), at most `max` bytes; the bytes are not
    /// checked for UTF-8 (callers that need it call `core::str::from_utf8`).
    #[inline(always)]
    pub fn string(&mut self, max: usize) -> Result<&'a [u8], ProgramError> {
        let n = self.u32()? as usize;
        if n > max {
            return Err(ProgramError::InvalidInstructionData);
        }
        self.bytes(n)
    }
    /// A Borsh string of valid UTF-8, at most `max` bytes.
    #[inline(always)]
    pub fn str(&mut self, max: usize) -> Result<&'a str, ProgramError> {
        core::str::from_utf8(self.string(max)?).map_err(|_| ProgramError::InvalidInstructionData)
    }
    /// A Borsh `Option<T>`: tag 0 (None) or 1 (Some, then `T` read by `read`); any other tag
    /// is InvalidInstructionData.
    #[inline(always)]
    pub fn option<T>(
        &mut self,
        read: impl FnOnce(&mut Self) -> Result<T, ProgramError>,
    ) -> Result<Option<T>, ProgramError> {
        if self.bool()? {
            Ok(Some(read(self)?))
        } else {
            Ok(None)
        }
    }
    /// A Borsh unit enum of `variants` variants: its index (any other is InvalidInstructionData).
    #[inline(always)]
    pub fn variant(&mut self, variants: u8) -> Result<u8, ProgramError> {
        match self.u8()? {
            v if v < variants => Ok(v),
            _ => Err(ProgramError::InvalidInstructionData),
        }
    }
    /// Err unless every byte was read (no trailing garbage).
    #[inline(always)]
    pub fn finish(&self) -> Result<(), ProgramError> {
        if self.pos == self.buf.len() {
            Ok(())
        } else {
            Err(ProgramError::InvalidInstructionData)
        }
    }
}

/// Writes into a caller's buffer (account data or an instruction-data array).
pub struct Writer<'a> {
    buf: &'a mut [u8],
    pos: usize,
}

impl<'a> Writer<'a> {
    #[inline(always)]
    pub fn new(buf: &'a mut [u8]) -> Self {
        Writer { buf, pos: 0 }
    }
    pub fn len(&self) -> usize {
        self.pos
    }
    pub fn is_empty(&self) -> bool {
        self.pos == 0
    }
    #[inline(always)]
    pub fn bytes(&mut self, b: &[u8]) -> Result<&mut Self, ProgramError> {
        let end = self.pos.checked_add(b.len()).ok_or(ProgramError::AccountDataTooSmall)?;
        if end > self.buf.len() {
            return Err(ProgramError::AccountDataTooSmall);
        }
        self.buf[self.pos..end].copy_from_slice(b);
        self.pos = end;
        Ok(self)
    }
    #[inline(always)]
    pub fn u8(&mut self, v: u8) -> Result<&mut Self, ProgramError> {
        self.bytes(&[v])
    }
    #[inline(always)]
    pub fn bool(&mut self, v: bool) -> Result<&mut Self, ProgramError> {
        self.bytes(&[v as u8])
    }
    le_writers!(u16, u32, u64, i64);
    #[inline(always)]
    pub fn pubkey(&mut self, k: &Pubkey) -> Result<&mut Self, ProgramError> {
        self.bytes(k)
    }
    #[inline(always)]
    pub fn string(&mut self, s: &[u8]) -> Result<&mut Self, ProgramError> {
        self.u32(s.len() as u32)?;
        self.bytes(s)
    }
}

/// Little-endian field access at fixed offsets (account layouts).
#[inline(always)]
pub fn read_u64(data: &[u8], off: usize) -> u64 {
    let mut a = [0u8; 8];
    a.copy_from_slice(&data[off..off + 8]);
    u64::from_le_bytes(a)
}

#[inline(always)]
pub fn write_u64(data: &mut [u8], off: usize, v: u64) {
    data[off..off + 8].copy_from_slice(&v.to_le_bytes());
}

#[inline(always)]
pub fn read_pubkey(data: &[u8], off: usize) -> &Pubkey {
    let s = &data[off..off + 32];
    unsafe { &*(s.as_ptr() as *const Pubkey) }
}
