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

	"podnetwork.io/operator/internal/adapters/adapterstest"
	"podnetwork.io/operator/internal/adapters/kubeproxy"
)

// TestPlanSurvivesHostileConfigs feeds Plan what whoever can write
// kube-proxy's ConfigMap may put there: nesting deep enough to exhaust a
// recursive parser, an alias bomb, close to a ConfigMap's 1 MiB. Plan must
// answer (an error is reported as InvalidConfig) without crashing or
// expanding the bomb.
func TestPlanSurvivesHostileConfigs(t *testing.T) {
	const header = "apiVersion: kubeproxy.config.k8s.io/v1alpha1\nkind: KubeProxyConfiguration\n"
	bomb := `a: &a ["lol","lol","lol","lol","lol","lol","lol","lol","lol"]` + "\n"
	prev := "a"
	for _, n := range []string{"b", "c", "d", "e", "f", "g", "h", "i"} {
		bomb += n + ": &" + n + " [" + strings.Repeat("*"+prev+",", 8) + "*" + prev + "]\n"
		prev = n
	}
	pn := adapterstest.PodNetwork()
	pn.Status.Ranges = append(pn.Status.Ranges, adapterstest.Active("a", "10.244.0.0/16"))
	tests := []struct {
		name, text string
		wantErr    bool
	}{
		{name: "nested half a million levels deep", text: header + "x: " + strings.Repeat("[", 500000), wantErr: true},
		{name: "an alias bomb", text: bomb + header, wantErr: true},
		{name: "an unknown field of 800 KB", text: header + "clusterCIDR: 10.0.0.0/8\nx: \"" + strings.Repeat("é", 400000) + "\"\n"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			plan, err := kubeproxy.Plan(tt.text, adapterstest.Input(pn))
			if tt.wantErr {
				if err == nil {
					t.Fatal("want an error")
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if !strings.Contains(plan.Config, "clusterCIDR: 10.244.0.0/16\n") || len(plan.Config) != len(tt.text)-len("10.0.0.0/8")+len("10.244.0.0/16") {
				t.Fatalf("the rewrite changed more than clusterCIDR")
			}
		})
	}
}
