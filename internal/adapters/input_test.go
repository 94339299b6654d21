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

package adapters_test

import (
	"testing"

	"github.com/google/go-cmp/cmp"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"podnetwork.io/operator/internal/adapters"
	"podnetwork.io/operator/internal/cidr"
	"podnetwork.io/operator/internal/slimnode"
)

// TestInputFromUnannounced: the nodes without flanneld's public-IP
// annotation of a family are listed per family, sorted, from what the
// node cache keeps of them (a flag, not the value).
func TestInputFromUnannounced(t *testing.T) {
	node := func(name string, annotations map[string]string) *slimnode.Node {
		return slimnode.From(&corev1.Node{ObjectMeta: metav1.ObjectMeta{Name: name, Annotations: annotations}})
	}
	nodes := []*slimnode.Node{
		node("c", nil),
		node("b", map[string]string{slimnode.FlannelPublicIPAnnotation: "192.0.2.2"}),
		node("a", map[string]string{slimnode.FlannelPublicIPAnnotation: "192.0.2.1", slimnode.FlannelPublicIPv6Annotation: "2001:db8::1"}),
		node("d", map[string]string{slimnode.FlannelPublicIPv6Annotation: ""}), // empty: not announced
	}
	in := adapters.InputFrom(nil, nil, nodes, nil, adapters.DefaultLimits)
	want := map[string][]string{cidr.IPv4: {"c", "d"}, cidr.IPv6: {"b", "c", "d"}}
	if diff := cmp.Diff(want, in.Unannounced); diff != "" {
		t.Errorf("Unannounced (-want +got):\n%s", diff)
	}
	if in := adapters.InputFrom(nil, nil, nodes[2:3], nil, adapters.DefaultLimits); in.Unannounced != nil {
		t.Errorf("Unannounced %v, want nil when every node announces both", in.Unannounced)
	}
}
