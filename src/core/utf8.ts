/**
 * A string's length in UTF-8 bytes, without encoding it: as TextEncoder writes it, a lone
 * surrogate as U+FFFD (3 bytes).
 */
export function utf8Length(s: string): number {
  let n = s.length;
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    if (c < 0x80) continue;
    if (c < 0x800) n += 1;
    else if (c >= 0xd800 && c <= 0xdbff && i + 1 < s.length && (s.charCodeAt(i + 1) & 0xfc00) === 0xdc00) {
      n += 2; // a surrogate pair: two code units, four bytes
      i++;
    } else n += 2;
  }
  return n;
}
