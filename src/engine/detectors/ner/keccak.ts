// Keccak-256 (the pre-standard padding Ethereum uses, not SHA3-256), only for the EIP-55 checksum
// of mixed-case Ethereum addresses. Node's crypto has SHA3 but not this padding. BigInt lanes are
// slow but the input is 40 characters and the detector calls it only on mixed-case candidates.

const MASK = (1n << 64n) - 1n;

const ROUND_CONSTANTS: readonly bigint[] = [
  0x0000000000000001n, 0x0000000000008082n, 0x800000000000808an, 0x8000000080008000n,
  0x000000000000808bn, 0x0000000080000001n, 0x8000000080008081n, 0x8000000000008009n,
  0x000000000000008an, 0x0000000000000088n, 0x0000000080008009n, 0x000000008000000an,
  0x000000008000808bn, 0x800000000000008bn, 0x8000000000008089n, 0x8000000000008003n,
  0x8000000000008002n, 0x8000000000000080n, 0x000000000000800an, 0x800000008000000an,
  0x8000000080008081n, 0x8000000000008080n, 0x0000000080000001n, 0x8000000080008008n,
];

/** Rotation offsets indexed [x + 5y]. */
const ROTATIONS: readonly number[] = [
  0, 1, 62, 28, 27,
  36, 44, 6, 55, 20,
  3, 10, 43, 25, 39,
  41, 45, 15, 21, 8,
  18, 2, 61, 56, 14,
];

function rotate(value: bigint, by: number): bigint {
  if (by === 0) return value;
  const shift = BigInt(by);
  return ((value << shift) | (value >> (64n - shift))) & MASK;
}

function permute(state: bigint[]): void {
  const c: bigint[] = new Array<bigint>(5).fill(0n);
  const b: bigint[] = new Array<bigint>(25).fill(0n);
  for (const constant of ROUND_CONSTANTS) {
    for (let x = 0; x < 5; x += 1) c[x] = state[x]! ^ state[x + 5]! ^ state[x + 10]! ^ state[x + 15]! ^ state[x + 20]!;
    for (let x = 0; x < 5; x += 1) {
      const d = c[(x + 4) % 5]! ^ rotate(c[(x + 1) % 5]!, 1);
      for (let y = 0; y < 25; y += 5) state[x + y] = state[x + y]! ^ d;
    }
    for (let x = 0; x < 5; x += 1) {
      for (let y = 0; y < 5; y += 1) b[y + 5 * ((2 * x + 3 * y) % 5)] = rotate(state[x + 5 * y]!, ROTATIONS[x + 5 * y]!);
    }
    for (let y = 0; y < 25; y += 5) {
      for (let x = 0; x < 5; x += 1) state[x + y] = b[x + y]! ^ (~b[((x + 1) % 5) + y]! & MASK & b[((x + 2) % 5) + y]!);
    }
    state[0] = state[0]! ^ constant;
  }
}

/** Keccak-256 of the bytes, as 64 lower-case hex digits. */
export function keccak256Hex(input: Uint8Array): string {
  const rate = 136;
  const padded = new Uint8Array(Math.ceil((input.length + 1) / rate) * rate);
  padded.set(input);
  padded[input.length] = 0x01;
  padded[padded.length - 1] = padded[padded.length - 1]! | 0x80;
  const state: bigint[] = new Array<bigint>(25).fill(0n);
  for (let offset = 0; offset < padded.length; offset += rate) {
    for (let lane = 0; lane < rate / 8; lane += 1) {
      let value = 0n;
      for (let i = 7; i >= 0; i -= 1) value = (value << 8n) | BigInt(padded[offset + lane * 8 + i]!);
      state[lane] = state[lane]! ^ value;
    }
    permute(state);
  }
  let out = '';
  for (let lane = 0; lane < 4; lane += 1) {
    let value = state[lane]!;
    for (let i = 0; i < 8; i += 1) {
      out += Number(value & 0xffn).toString(16).padStart(2, '0');
      value >>= 8n;
    }
  }
  return out;
}
