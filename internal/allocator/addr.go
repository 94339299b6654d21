/*
Copyright 2026 The podnetwork-operator Authors.

Licensed under the Apache License, Version 2.0 (the "License");
you may not use this file except in compliance with the License.
You may obtain a copy of the License at

    http://www.apache.org/licenses/LICENSE-2.0

Unless required by applicable law or agreed to in writing, software
distributed under the License is distributed on an "AS IS" BASIS,
WITHOUT WARRANTIES OR CONDITIONS OF ANY KIND, either express or implied.
See the License for the specific language governing permissions and
limitations under the License.
*/

package allocator

import (
	"encoding/binary"
	"net/netip"
)

// u128 is an address as a 128-bit unsigned integer, used only to convert
// between a block index and the block's first address. IPv4 addresses occupy
// the low 32 bits. netipx has no exported index arithmetic, so this is the one
// place in the project that shifts address bits by hand; FuzzBlockMath checks
// it against netipx.
type u128 struct{ hi, lo uint64 }

func u128From(a netip.Addr) u128 {
	if a.Is4() {
		b := a.As4()
		return u128{lo: uint64(binary.BigEndian.Uint32(b[:]))}
	}
	b := a.As16()
	return u128{hi: binary.BigEndian.Uint64(b[:8]), lo: binary.BigEndian.Uint64(b[8:])}
}

// addr converts u back to an address of the given family. For IPv4 only the
// low 32 bits are used.
func (u u128) addr(is4 bool) netip.Addr {
	if is4 {
		var b [4]byte
		binary.BigEndian.PutUint32(b[:], uint32(u.lo))
		return netip.AddrFrom4(b)
	}
	var b [16]byte
	binary.BigEndian.PutUint64(b[:8], u.hi)
	binary.BigEndian.PutUint64(b[8:], u.lo)
	return netip.AddrFrom16(b)
}

// shr shifts right by n bits, 0 <= n < 128.
func (u u128) shr(n uint) u128 {
	switch {
	case n == 0:
		return u
	case n >= 64:
		return u128{lo: u.hi >> (n - 64)}
	default:
		return u128{hi: u.hi >> n, lo: u.lo>>n | u.hi<<(64-n)}
	}
}

// shl shifts left by n bits, 0 <= n < 128.
func (u u128) shl(n uint) u128 {
	switch {
	case n == 0:
		return u
	case n >= 64:
		return u128{hi: u.lo << (n - 64)}
	default:
		return u128{hi: u.hi<<n | u.lo>>(64-n), lo: u.lo << n}
	}
}

func (u u128) or(v u128) u128 { return u128{hi: u.hi | v.hi, lo: u.lo | v.lo} }
