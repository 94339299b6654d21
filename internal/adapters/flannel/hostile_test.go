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

package flannel

import (
	"strings"
	"testing"

	"podnetwork.io/operator/internal/adapters/adapterstest"
)

// TestPlanSurvivesHostileConfigs feeds Plan what whoever can write
// flannel's ConfigMap may put there: nesting deep enough to exhaust a
// recursive parser, close to a ConfigMap's 1 MiB, a member repeated under
// another case. Plan must answer (an error is reported as InvalidConfig)
// without crashing.
func TestPlanSurvivesHostileConfigs(t *testing.T) {
	pn := adapterstest.PodNetwork()
	pn.Status.Ranges = append(pn.Status.Ranges, adapterstest.Active("a", "10.244.0.0/16"))
	tests := []struct {
		name, text string
		wantErr    bool
	}{
		{name: "nested half a million levels deep", text: `{"Network": "10.244.0.0/16", "x": ` + strings.Repeat("[", 500000), wantErr: true},
		{name: "Network given twice", text: `{"Network": "10.244.0.0/16", "network": "10.0.0.0/8"}`, wantErr: true},
		{name: "an unknown member of 800 KB", text: `{"Network": "10.0.0.0/8", "x": "` + strings.Repeat("é", 400000) + `"}`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			plan, err := Plan(tt.text, adapterstest.Input(pn))
			if tt.wantErr {
				if err == nil {
					t.Fatal("want an error")
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if got, err := Parse(plan.Config); err != nil || got.Network != "10.244.0.0/16" ||
				plan.Config != strings.Replace(tt.text, "10.0.0.0/8", "10.244.0.0/16", 1) {
				t.Fatalf("Network = %v, %v; want only Network set to the range's 10.244.0.0/16", got, err)
			}
		})
	}
}
