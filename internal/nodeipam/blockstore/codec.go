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

package blockstore

import (
	"encoding/binary"
	"errors"
	"fmt"
	"hash/crc32"
	"net/netip"
	"time"

	"go4.org/netipx"

	"podnetwork.io/operator/internal/allocator"
)

// magic starts every encoded store; a new format takes a new magic and a
// new object name, so an older binary never reads it.
const magic = "PNB1"

// ErrCorrupt is wrapped by Decode for data that is not a store this
// format wrote whole: the caller must assume the worst about every block.
var ErrCorrupt = errors.New("the block store does not parse")

// Encode returns c's wire form for the given sections, written at now,
// coarsened as little as needed to fit budget bytes (see Coarsening).
// Times are rounded up to the second: a freed block may wait up to a
// second longer after a rebuild, never shorter.
func Encode(c Content, sections []Section, now time.Time, budget int) ([]byte, Coarsening, error) {
	secs, orphans, err := buildSections(c, sections, func(f Freed) int64 { return ceilUnix(f.At) })
	if err != nil {
		return nil, Coarsening{}, fmt.Errorf("encoding the block store: %w", err)
	}
	written := ceilUnix(now)
	var co Coarsening
	data := encode(secs, orphans, written)
	if len(data) <= budget {
		return data, co, nil
	}
	co.FreedAsIssued = freedAsIssued(secs)
	data = encode(secs, orphans, written)
	for gap := 1; len(data) > budget; gap *= 2 {
		if gap > 1<<30 {
			return nil, co, fmt.Errorf("encoding the block store: %d bytes with every section one run, over the budget of %d", len(data), budget)
		}
		co.GapBlocksFilled += fillGaps(secs, gap)
		data = encode(secs, orphans, written)
	}
	return data, co, nil
}

// freedAsIssued turns every freed run into an issued one and returns how
// many blocks it turned.
func freedAsIssued(secs []section) int {
	n := 0
	for i := range secs {
		var out []run
		for _, r := range secs[i].runs {
			if r.freed {
				n += r.hi - r.lo + 1
				r.freed, r.at = false, 0
			}
			if k := len(out); k > 0 && out[k-1].hi+1 == r.lo && !out[k-1].freed {
				out[k-1].hi = r.hi
				continue
			}
			out = append(out, r)
		}
		secs[i].runs = out
	}
	return n
}

// fillGaps merges issued runs separated by at most gap free blocks and
// returns how many blocks it filled. Only issued runs are left by then.
func fillGaps(secs []section, gap int) int {
	n := 0
	for i := range secs {
		var out []run
		for _, r := range secs[i].runs {
			if k := len(out); k > 0 && r.lo-out[k-1].hi-1 <= gap {
				n += r.lo - out[k-1].hi - 1
				out[k-1].hi = r.hi
				continue
			}
			out = append(out, r)
		}
		secs[i].runs = out
	}
	return n
}

func ceilUnix(t time.Time) int64 {
	s := t.Unix()
	if t.Nanosecond() > 0 {
		s++
	}
	return s
}

// encode writes the wire form:
//
//	"PNB1" written:uvarint sections:uvarint
//	  per section: addrLen:byte addr bits:byte nodeMask:byte runs:uvarint
//	    per run: gap:uvarint (len-1)<<1|freed:uvarint [age:uvarint]
//	orphans:uvarint per orphan: addrLen:byte addr bits:byte
//	crc32(IEEE) of all before, big-endian
//
// gap is the number of free blocks since the previous run's end (or the
// section's start); age is written - at, in seconds.
func encode(secs []section, orphans []netip.Prefix, written int64) []byte {
	b := []byte(magic)
	b = binary.AppendUvarint(b, uint64(written))
	b = binary.AppendUvarint(b, uint64(len(secs)))
	for _, s := range secs {
		b = appendPrefix(b, s.Prefix)
		b = append(b, byte(s.NodeMaskSize))
		b = binary.AppendUvarint(b, uint64(len(s.runs)))
		next := 0
		for _, r := range s.runs {
			b = binary.AppendUvarint(b, uint64(r.lo-next))
			lk := uint64(r.hi-r.lo) << 1
			if r.freed {
				lk |= 1
			}
			b = binary.AppendUvarint(b, lk)
			if r.freed {
				b = binary.AppendUvarint(b, uint64(max(0, written-r.at)))
			}
			next = r.hi + 1
		}
	}
	b = binary.AppendUvarint(b, uint64(len(orphans)))
	for _, p := range orphans {
		b = appendPrefix(b, p)
	}
	return binary.BigEndian.AppendUint32(b, crc32.ChecksumIEEE(b))
}

func appendPrefix(b []byte, p netip.Prefix) []byte {
	a := p.Addr().AsSlice()
	b = append(b, byte(len(a)))
	b = append(b, a...)
	return append(b, byte(p.Bits()))
}

// Decode parses Encode's wire form. Every error wraps ErrCorrupt. It
// returns the content and when it was written.
func Decode(data []byte) (Content, time.Time, error) {
	c, written, err := decode(data)
	if err != nil {
		return Content{}, time.Time{}, fmt.Errorf("%w: %w", ErrCorrupt, err)
	}
	return c, written, nil
}

func decode(data []byte) (Content, time.Time, error) {
	if len(data) < len(magic)+4 || string(data[:len(magic)]) != magic {
		return Content{}, time.Time{}, errors.New("no block store header")
	}
	body, sum := data[:len(data)-4], binary.BigEndian.Uint32(data[len(data)-4:])
	if crc32.ChecksumIEEE(body) != sum {
		return Content{}, time.Time{}, errors.New("checksum mismatch: truncated or edited")
	}
	d := &decoder{b: body[len(magic):]}
	written := int64(d.uvarint())
	nsec := d.count()
	var issued netipx.IPSetBuilder
	var freed []Freed
	for range nsec {
		p := d.prefix()
		mask := int(d.byte())
		if d.err != nil {
			break
		}
		rng, err := allocator.NewRange(p, mask)
		if err != nil {
			return Content{}, time.Time{}, fmt.Errorf("section %s: %w", p, err)
		}
		nruns := d.count()
		next := 0
		for range nruns {
			lo := next + d.bounded(rng.Capacity()-next)
			lk := d.uvarint()
			if d.err != nil {
				break
			}
			hi := lo + int(lk>>1)
			if lk>>1 >= uint64(rng.Capacity()) || hi >= rng.Capacity() {
				return Content{}, time.Time{}, fmt.Errorf("section %s: a run past its last block", p)
			}
			r := netipx.IPRangeFrom(rng.Block(lo).Addr(), netipx.PrefixLastIP(rng.Block(hi)))
			if lk&1 == 0 {
				issued.AddRange(r)
			} else {
				age := d.uvarint()
				if age > uint64(written) {
					return Content{}, time.Time{}, fmt.Errorf("section %s: a freed run older than 1970", p)
				}
				freed = append(freed, Freed{Range: r, At: time.Unix(written-int64(age), 0).UTC()})
			}
			next = hi + 1
		}
	}
	for range d.count() {
		if p := d.prefix(); d.err == nil {
			issued.AddPrefix(p)
		}
	}
	if d.err != nil {
		return Content{}, time.Time{}, d.err
	}
	if len(d.b) != 0 {
		return Content{}, time.Time{}, fmt.Errorf("%d bytes after the content", len(d.b))
	}
	set, err := issued.IPSet()
	if err != nil {
		return Content{}, time.Time{}, err
	}
	return Content{Issued: set, Freed: freed}, time.Unix(written, 0).UTC(), nil
}

// decoder reads the wire form; the first error sticks and every later read
// returns zero.
type decoder struct {
	b   []byte
	err error
}

func (d *decoder) uvarint() uint64 {
	if d.err != nil {
		return 0
	}
	v, n := binary.Uvarint(d.b)
	if n <= 0 {
		d.err = errors.New("a truncated or overlong number")
		return 0
	}
	d.b = d.b[n:]
	return v
}

// count reads a number of items, each at least one byte long, so it
// cannot exceed the bytes left: a corrupt count allocates nothing.
func (d *decoder) count() int {
	v := d.uvarint()
	if v > uint64(len(d.b)) {
		d.err = errors.New("a count larger than the data")
		return 0
	}
	return int(v)
}

// bounded reads a number that must be below limit.
func (d *decoder) bounded(limit int) int {
	v := d.uvarint()
	if limit <= 0 || v >= uint64(limit) {
		if d.err == nil {
			d.err = errors.New("a run outside its section")
		}
		return 0
	}
	return int(v)
}

func (d *decoder) byte() byte {
	if d.err != nil {
		return 0
	}
	if len(d.b) == 0 {
		d.err = errors.New("truncated")
		return 0
	}
	v := d.b[0]
	d.b = d.b[1:]
	return v
}

func (d *decoder) prefix() netip.Prefix {
	n := int(d.byte())
	if d.err != nil {
		return netip.Prefix{}
	}
	if (n != 4 && n != 16) || len(d.b) < n+1 {
		d.err = errors.New("a malformed address")
		return netip.Prefix{}
	}
	a, _ := netip.AddrFromSlice(d.b[:n])
	d.b = d.b[n:]
	p := netip.PrefixFrom(a, int(d.byte()))
	if !p.IsValid() || p != p.Masked() {
		d.err = fmt.Errorf("%s is not a canonical prefix", p)
		return netip.Prefix{}
	}
	return p
}
