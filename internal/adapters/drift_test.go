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
	"net/netip"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	v1alpha1 "podnetwork.io/operator/api/v1alpha1"
	"podnetwork.io/operator/internal/adapters"
	"podnetwork.io/operator/internal/adapters/adapterstest"
	"podnetwork.io/operator/internal/adapters/kubeproxy"
)

func TestConfigDrift(t *testing.T) {
	grown := adapterstest.PodNetwork(adapterstest.Active("a", "10.244.0.0/16"), adapterstest.Active("b", "10.250.0.0/16"))
	kubeadm := testdata(t, "kubeproxy", "kubeadm.yaml") // clusterCIDR 10.244.0.0/16
	nodeCIDR := "apiVersion: kubeproxy.config.k8s.io/v1alpha1\nkind: KubeProxyConfiguration\ndetectLocalMode: NodeCIDR\n"
	tests := []struct {
		name         string
		cfg          adapters.Config
		pn           *v1alpha1.PodNetwork
		wantDrift    []string
		wantCompared bool
	}{
		{
			name: "covers every range in use", cfg: adapters.Config{Text: kubeadm, Found: true, Running: true},
			pn: adapterstest.PodNetwork(adapterstest.Active("a", "10.244.0.0/16"), adapterstest.Pending("p", "10.250.0.0/16")), wantCompared: true,
		},
		{
			name: "a running adapter's configuration that leaves out a range: the operator rewrites it", cfg: adapters.Config{Text: kubeadm, Found: true, Running: true}, pn: grown,
			wantDrift:    []string{"kube-proxy covers 10.244.0.0/16, which leaves out the ranges in use b (10.250.0.0/16, Active): nodes there lose their network when kube-proxy restarts; the operator rewrites it while it runs"},
			wantCompared: true,
		},
		{
			name: "the same without the adapter: nothing rewrites it", cfg: adapters.Config{Text: kubeadm, Found: true}, pn: grown,
			wantDrift:    []string{"kube-proxy covers 10.244.0.0/16, which leaves out the ranges in use b (10.250.0.0/16, Active): nodes there lose their network when kube-proxy restarts; the kube-proxy adapter is off (no PodNetworkConsumer kube-proxy), so nothing rewrites it"},
			wantCompared: true,
		},
		{
			name: "a range the adapter accepted as not carried yet is no drift",
			cfg: adapters.Config{Text: kubeadm, Found: true, Running: true, Acks: []v1alpha1.ConsumerRangeStatus{
				{Name: "b", CIDR: "10.250.0.0/16", Phase: v1alpha1.RangePhaseActive, Result: v1alpha1.AckAccepted, Message: adapters.NotCarriedPrefix + "waiting"}}},
			pn: grown, wantCompared: true,
		},
		{
			name: "an acknowledgement of another phase does not excuse it",
			cfg: adapters.Config{Text: kubeadm, Found: true, Running: true, Acks: []v1alpha1.ConsumerRangeStatus{
				{Name: "b", CIDR: "10.250.0.0/16", Phase: v1alpha1.RangePhasePending, Result: v1alpha1.AckAccepted, Message: adapters.NotCarriedPrefix + "waiting"}}},
			pn:           grown,
			wantDrift:    []string{"kube-proxy covers 10.244.0.0/16, which leaves out the ranges in use b (10.250.0.0/16, Active): nodes there lose their network when kube-proxy restarts; the operator rewrites it while it runs"},
			wantCompared: true,
		},
		{
			name: "a missing key of a running adapter", cfg: adapters.Config{Running: true}, pn: grown,
			wantDrift: []string{"the kube-proxy adapter's ConfigMap key is missing"},
		},
		{name: "a missing key of an adapter that does not run is no drift", cfg: adapters.Config{}, pn: grown},
		{name: "independent of the ranges", cfg: adapters.Config{Text: nodeCIDR, Found: true}, pn: grown},
		{name: "no PodNetwork", cfg: adapters.Config{Text: kubeadm, Found: true}},
		{name: "no range yet", cfg: adapters.Config{Text: kubeadm, Found: true}, pn: adapterstest.PodNetwork()},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			tt.cfg.Adapter, tt.cfg.Covered = kubeproxy.Adapter.Name, kubeproxy.Covered
			covered, drift, compared := tt.cfg.Drift(tt.pn)
			if diff := cmp.Diff(tt.wantDrift, drift); diff != "" {
				t.Errorf("drift (-want +got):\n%s", diff)
			}
			if compared != tt.wantCompared {
				t.Errorf("compared %v, want %v", compared, tt.wantCompared)
			}
			if compared && !tt.cfg.Found {
				t.Error("compared a missing configuration")
			}
			if tt.wantCompared && !cmp.Equal(covered.Prefixes, []netip.Prefix{netip.MustParsePrefix("10.244.0.0/16")}, prefixes) {
				t.Errorf("covered %v", covered.Prefixes)
			}
		})
	}
	// Unreadable, whether the adapter runs or not; the reader's own error
	// follows.
	for _, running := range []bool{false, true} {
		cfg := adapters.Config{Adapter: kubeproxy.Adapter.Name, Covered: kubeproxy.Covered, Text: "clusterCIDR: [", Found: true, Running: running}
		_, drift, compared := cfg.Drift(grown)
		if len(drift) != 1 || !strings.HasPrefix(drift[0], "cannot be read as the kube-proxy configuration: ") || compared {
			t.Errorf("running %v: unreadable configuration: drift %q, compared %v", running, drift, compared)
		}
	}
}
