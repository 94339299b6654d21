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

package watches

import (
	"fmt"
	"maps"
	"strings"
	"testing"
	"unsafe"
)

// same reports whether a and b share their bytes, not only their value.
func same(a, b string) bool {
	return a == b && unsafe.StringData(a) == unsafe.StringData(b)
}

func TestInternPool(t *testing.T) {
	p := newInternPool()
	// Built at run time: the decoder allocates each copy anew, and string
	// constants would share their bytes already.
	first, second := strings.Repeat("linux", 1), strings.Clone("linux")
	if same(first, second) {
		t.Fatal("the test needs two copies of the string")
	}
	if got := p.intern(second); !same(p.intern(first), got) {
		t.Fatal("intern returned another copy of a string it had seen")
	}

	name := strings.Clone("node-1")
	in := map[string]string{strings.Clone("kubernetes.io/hostname"): strings.Clone("node-1"), strings.Clone("kubernetes.io/os"): strings.Clone("linux")}
	out := p.labels(name, in)
	if !maps.Equal(in, out) {
		t.Fatalf("labels changed: got %v, want %v", out, in)
	}
	if !same(out["kubernetes.io/hostname"], name) {
		t.Error("the hostname label does not share the node name's string")
	}
	if !same(out["kubernetes.io/os"], p.intern("linux")) {
		t.Error("a label value was not interned")
	}
	if p.labels(name, nil) != nil {
		t.Error("nil labels became a map")
	}

	for i := range maxInterned + 10 {
		p.intern(fmt.Sprintf("unique-%d", i))
	}
	if len(p.strings) != maxInterned {
		t.Errorf("the pool holds %d strings, want at most %d", len(p.strings), maxInterned)
	}
	if v := strings.Clone("after-full"); !same(p.intern(v), v) {
		t.Error("a full pool did not return the string as given")
	}
}
