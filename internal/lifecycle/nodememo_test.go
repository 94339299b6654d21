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

package lifecycle

import (
	"net/netip"
	"reflect"
	"testing"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

func memoNode(name string, podCIDRs ...string) *corev1.Node {
	return &corev1.Node{ObjectMeta: metav1.ObjectMeta{Name: name}, Spec: corev1.NodeSpec{PodCIDRs: podCIDRs}}
}

func TestNodeMemo(t *testing.T) {
	var m NodeMemo
	a, b := memoNode("a", "10.0.0.0/24"), memoNode("b", "10.0.1.0/24")
	if got, want := m.From([]*corev1.Node{a, b}), []Node{NodeFrom(a), NodeFrom(b)}; !reflect.DeepEqual(got, want) {
		t.Fatalf("first conversion: got %+v, want %+v", got, want)
	}

	// The same object is not converted again: changing it in place, which
	// the informer's store never does, shows the remembered result.
	a.Spec.PodCIDRs = []string{"10.0.9.0/24"}
	if got := m.From([]*corev1.Node{a, b}); got[0].PodCIDRs[0] != netip.MustParsePrefix("10.0.0.0/24") {
		t.Errorf("same object converted again: %v", got[0].PodCIDRs)
	}

	// An update is a new object: converted. An object not listed is
	// forgotten.
	a2 := memoNode("a", "10.0.2.0/24")
	got := m.From([]*corev1.Node{a2})
	if want := []Node{NodeFrom(a2)}; !reflect.DeepEqual(got, want) {
		t.Errorf("updated node: got %+v, want %+v", got, want)
	}
	if m.Len() != 1 {
		t.Errorf("memo holds %d objects after a list of one", m.Len())
	}

	// Order follows the list, not the memo.
	c := memoNode("c")
	if got := m.From([]*corev1.Node{c, a2}); got[0].Name != "c" || got[1].Name != "a" {
		t.Errorf("order: got %s, %s", got[0].Name, got[1].Name)
	}
	if got := m.From(nil); len(got) != 0 || m.Len() != 0 {
		t.Errorf("empty list: got %d nodes, memo holds %d", len(got), m.Len())
	}
}
