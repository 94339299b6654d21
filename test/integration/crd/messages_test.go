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

package crd_test

import (
	"strings"
	"testing"

	"k8s.io/apiextensions-apiserver/pkg/apiserver/schema"

	"podnetwork.io/operator/api/v1alpha1"
)

// TestMessageFieldsShareOneCap checks the MaxLength markers of the API's own
// message fields against v1alpha1.MaxMessageLength, the one constant the
// operator truncates by: a marker cannot name a constant, so the two could
// drift apart and the apiserver would refuse a status write the operator
// believed bounded. metav1.Condition's message (32768) is Kubernetes', not
// ours.
func TestMessageFieldsShareOneCap(t *testing.T) {
	found := 0
	for _, file := range crdFiles {
		s := structuralSchema(t, loadCRD(t, file))
		walkSchema(s, "", true, func(path string, node *schema.Structural, _ bool) {
			if node.Type != "string" || strings.Contains(path, ".conditions[*]") || !isMessagePath(path) {
				return
			}
			found++
			if node.ValueValidation == nil || node.ValueValidation.MaxLength == nil || *node.ValueValidation.MaxLength != v1alpha1.MaxMessageLength {
				t.Errorf("%s %s: maxLength is not v1alpha1.MaxMessageLength (%d)", file, path, v1alpha1.MaxMessageLength)
			}
		})
	}
	// The eight MaxLength=1024 markers of api/v1alpha1 today; fewer means
	// the walk no longer sees them.
	if found < 8 {
		t.Errorf("found %d message fields, want at least 8; has the schema walk broken?", found)
	}
}

// isMessagePath reports whether path names a free-text message: a field
// "message" or "...Message", or an item of allocationConflicts.
func isMessagePath(path string) bool {
	last := path[strings.LastIndex(path, ".")+1:]
	return last == "message" || strings.HasSuffix(last, "Message") || last == "allocationConflicts[*]"
}

// TestUserFacingMessages pins the whole error a user sees for the rules whose
// messages issue #32 rewrote: the text after `The PodNetwork "x" is invalid: `
// in kubectl's output is exactly these field errors.
func TestUserFacingMessages(t *testing.T) {
	renamed := func(o map[string]any) map[string]any {
		o["metadata"] = map[string]any{"name": "other"}
		return o
	}
	tests := []struct {
		name string
		file string
		obj  map[string]any
		want string
	}{
		{
			name: "second PodNetwork",
			file: "podnetwork.io_podnetworks.yaml",
			obj:  renamed(podNetwork()),
			want: `[]: Invalid value: PodNetwork is a singleton: its name must be "default"; `,
		},
		{
			name: "second AutoscaledRangeSet",
			file: "podnetwork.io_autoscaledrangesets.yaml",
			obj:  renamed(rangeSet()),
			want: `[]: Invalid value: AutoscaledRangeSet is a singleton: its name must be "default"; `,
		},
		{
			name: "range cidr with an octet above 255",
			file: "podnetwork.io_podnetworks.yaml",
			obj:  podNetwork(rng("a", "10.300.0.0/16")),
			want: `[].spec.ranges[0].cidr: Invalid value: "10.300.0.0/16": cidr is not a valid CIDR: it must be an IPv4 or IPv6 prefix such as 10.244.0.0/16 or fd00:10:244::/48; `,
		},
		{
			name: "range cidr IPv4-mapped IPv6",
			file: "podnetwork.io_podnetworks.yaml",
			obj:  podNetwork(rng("a", "::ffff:10.0.0.0/104", 120)),
			want: `[].spec.ranges[0].cidr: Invalid value: "::ffff:10.0.0.0/104": cidr is not a valid CIDR: it must be an IPv4 or IPv6 prefix such as 10.244.0.0/16 or fd00:10:244::/48 (IPv4-mapped IPv6 prefixes are not allowed); `,
		},
		{
			name: "pool cidr with an octet above 255",
			file: "podnetwork.io_podnetworks.yaml",
			obj:  autoscaled("Auto", pool("a", "10.300.0.0/16")),
			want: `[].spec.autoscaling.pools[0].cidr: Invalid value: "10.300.0.0/16": cidr is not a valid CIDR: it must be an IPv4 or IPv6 prefix such as 10.244.0.0/14 or fd00:10:244::/40; `,
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got := errString(validate(t, loadCRD(t, tc.file), tc.obj, nil))
			if got != tc.want {
				t.Errorf("errors:\n got %s\nwant %s", got, tc.want)
			}
		})
	}
}
