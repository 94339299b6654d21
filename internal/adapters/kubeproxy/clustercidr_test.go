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

package kubeproxy_test

import (
	"strings"
	"testing"

	"podnetwork.io/operator/internal/adapters/kubeproxy"
)

// TestCheckClusterCIDR lists what kube-proxy accepts as clusterCIDR and
// what it refuses (test/realconfig checks the same values against kube-proxy
// itself).
func TestCheckClusterCIDR(t *testing.T) {
	tests := []struct {
		value string
		want  string // substring of the error; "" means kube-proxy accepts it
	}{
		{value: ""},
		{value: "10.244.0.0/16"},
		{value: "10.244.0.0/16,fd00:10:244::/56"},
		{value: "fd00:10:244::/56,10.244.0.0/16"},
		{value: "10.244.1.0/16"},  // host bits: kube-proxy masks them
		{value: "010.244.0.0/16"}, // leading zeros: Kubernetes' legacy parser reads them
		{value: "10.244.0.0/16, fd00:10:244::/56", want: `" fd00:10:244::/56" is not a CIDR: kube-proxy does not trim spaces`},
		{value: "10.244.0.0/16 ,fd00:10:244::/56", want: `"10.244.0.0/16 " is not a CIDR: kube-proxy does not trim spaces`},
		{value: " 10.244.0.0/16", want: "does not trim spaces"},
		{value: "10.244.0.0/16,", want: `"" is not a CIDR`},
		{value: "10.244.0.0/16,10.245.0.0/16", want: "both parts are IPv4"},
		{value: "10.244.0.0/16,fd00::/48,10.245.0.0/16", want: "3 comma-separated parts"},
		{value: "garbage", want: `"garbage" is not a CIDR`},
		{value: "10.244.0.0", want: "is not a CIDR"},
	}
	for _, tt := range tests {
		t.Run(tt.value, func(t *testing.T) {
			err := kubeproxy.CheckClusterCIDR(tt.value)
			switch {
			case tt.want == "" && err != nil:
				t.Fatalf("refused: %v", err)
			case tt.want != "" && (err == nil || !strings.Contains(err.Error(), tt.want)):
				t.Fatalf("error %v, want one saying %q", err, tt.want)
			}
		})
	}
}
